/* lower_memory.c: load, store, atomic, atomic_cas.
 *
 * Vector width v = min(attr.i2 (proved by axis analysis), the layout's run of
 * registers contiguous along the fastest dim, 16 bytes). One TP LOAD/STORE per
 * group of v registers: pointer and mask of the group's first register (axis
 * analysis proved the mask constant over the group), `other` per element.
 *
 * Stores and atomics are warp-predicated (layouts.md 2.3): a thread with a
 * free lane/warp bit set holds copies and does not write; registers with a
 * free register bit are skipped. A scalar store or atomic is done by thread 0;
 * an atomic's old value reaches the copies through shared memory.
 *
 * TP_COALESCED marks a load/store whose per-thread pointers are provably
 * thread 0's + tid * v elements (lane and warp bases enumerate consecutive
 * vector groups, and the pointer is uniform + arange along that dim).
 */
#include "codegen/lower_internal.h"

#include <string.h>

/* ---- contiguity along a dim (for TP_COALESCED) ------------------------------------ */

/* A loop-carried value's stride, assumed while its update is checked. */
typedef struct Assume {
	ValId v;
	int dim, stride;
	const struct Assume *up;
} Assume;

static int stride_rec(const TirFunc *f, ValId v, int dim, int depth, const Assume *as);

/* A FOR loop's carried value (a_ptrs += BLOCK_K * stride_ak) keeps the
 * stride of its initial value if the value it is updated to has that stride
 * whenever it has (induction over the iterations). */
static int carried_stride(const TirFunc *f, const TirVal *tv, ValId v, int dim, int depth,
			  const Assume *as)
{
	for (const Assume *a = as; a; a = a->up)
		if (a->v == v && a->dim == dim)
			return a->stride;
	const TirBlock *b = tv->block;
	const TirOp *loop = b ? b->parent : NULL;
	if (!loop || loop->kind != TOP_FOR || loop->nregions < 1 || b != &loop->regions[0] ||
	    tv->index < 1 || 3 + tv->index - 1 >= loop->nin || !b->nops)
		return -1;
	int i = tv->index - 1;
	const TirOp *y = b->ops[b->nops - 1];
	if (y->kind != TOP_YIELD || i >= y->nin)
		return -1;
	int s = stride_rec(f, loop->operands[3 + i], dim, depth + 1, as);
	if (s < 0)
		return -1;
	Assume me = {v, dim, s, as};
	return stride_rec(f, y->operands[i], dim, depth + 1, &me) == s ? s : -1;
}

static int stride_rec(const TirFunc *f, ValId v, int dim, int depth, const Assume *as)
{
	const TirVal *tv = &f->vals.data[v];
	if (tv->ty.rank == 0)
		return 0; /* scalars are uniform */
	const TirOp *d = tv->def;
	if (depth > 64)
		return -1;
	if (!d)
		return carried_stride(f, tv, v, dim, depth, as);
	switch ((TirOpKind)d->kind) {
	case TOP_CONST:
	case TOP_SPLAT: return 0;
	case TOP_ARANGE: return dim == 0 ? 1 : -1;
	case TOP_ADD:
	case TOP_PTR_ADD: {
		int a = stride_rec(f, d->operands[0], dim, depth + 1, as);
		int b = stride_rec(f, d->operands[1], dim, depth + 1, as);
		if (a < 0 || b < 0 || a + b > 1)
			return -1;
		return a + b;
	}
	case TOP_SUB: {
		int a = stride_rec(f, d->operands[0], dim, depth + 1, as);
		int b = stride_rec(f, d->operands[1], dim, depth + 1, as);
		return b == 0 ? a : -1;
	}
	case TOP_CONVERT_LAYOUT: return stride_rec(f, d->operands[0], dim, depth + 1, as);
	case TOP_CAST: {
		Type from = f->vals.data[d->operands[0]].ty;
		if (!dtype_is_int((DType)from.dt) || !dtype_is_int((DType)tv->ty.dt) ||
		    dtype_bits((DType)tv->ty.dt) < dtype_bits((DType)from.dt))
			return -1;
		return stride_rec(f, d->operands[0], dim, depth + 1, as);
	}
	case TOP_BROADCAST: {
		Type st = f->vals.data[d->operands[0]].ty;
		if (st.rank != tv->ty.rank)
			return -1;
		if (st.shape[dim] == 1)
			return 0;
		return stride_rec(f, d->operands[0], dim, depth + 1, as);
	}
	case TOP_EXPAND_DIMS:
		if (dim == d->attr.axis)
			return 0;
		return stride_rec(f, d->operands[0], dim > d->attr.axis ? dim - 1 : dim, depth + 1, as);
	case TOP_TRANS: return stride_rec(f, d->operands[0], d->attr.perm[dim], depth + 1, as);
	default: {
		/* pure ops of operands all constant along dim are constant along dim */
		if (!(tir_op_flags((TirOpKind)d->kind) & TF_PURE) || d->nregions)
			return -1;
		for (int i = 0; i < d->nin; i++)
			if (stride_rec(f, d->operands[i], dim, depth + 1, as) != 0)
				return -1;
		return 0;
	}
	}
}

int lw_stride_along(const TirFunc *f, ValId v, int dim) { return stride_rec(f, v, dim, 0, NULL); }

/* ---- vector width ---------------------------------------------------------------------- */

int lw_unit_dim(const LinearLayout *l, LLInDim k)
{
	if (lw_bits(l, k) == 0)
		return -1;
	const int32_t *c = lw_basis(l, k, 0);
	int dim = -1;
	for (int d = 0; d < l->n_out; d++) {
		if (c[d] == 1 && dim < 0)
			dim = d;
		else if (c[d])
			return -1;
	}
	return dim;
}

/* The layout's contiguous dim: the one register bit 0 steps along by one
 * element; failing that (one register per thread along the fastest dim, the
 * usual CPU layout, or no register bits at all), the one lane bit 0 steps
 * along: the vector width is then 1, but the access may still be coalesced
 * across threads. The lane dim also wins when it is the one contiguous in
 * memory and the registers' is not (a [SEQ, HEADS, D] tile with threads along
 * D and registers over heads: vectors across threads, not gathers). -1 if
 * neither. */
static int contig_dim(Lower *L, const LinearLayout *l, ValId ptr)
{
	int d = lw_unit_dim(l, LL_REG), dl = lw_unit_dim(l, LL_LANE);
	if (d >= 0 && dl >= 0 && d != dl && lw_stride_along(L->tf, ptr, d) != 1 &&
	    lw_stride_along(L->tf, ptr, dl) == 1)
		return dl;
	return d >= 0 ? d : dl;
}

/* Every basis other than registers 0..v-1 leaves the low log2(v) bits of the
 * coordinate along dim alone, so each group of v registers is contiguous. */
static bool groups_contiguous(const LinearLayout *l, int dim, int v)
{
	int32_t low = v - 1;
	int vb = 0;
	while ((1 << vb) < v)
		vb++;
	for (int b = vb; b < lw_bits(l, LL_REG); b++)
		if (lw_basis(l, LL_REG, b)[dim] & low)
			return false;
	for (int b = 0; b < lw_bits(l, LL_LANE); b++)
		if (lw_basis(l, LL_LANE, b)[dim] & low)
			return false;
	for (int b = 0; b < lw_bits(l, LL_WARP); b++)
		if (lw_basis(l, LL_WARP, b)[dim] & low)
			return false;
	return true;
}

static int vec_width(Lower *L, const TirOp *op, const LinearLayout *l, Type et, ValId ptr, int *dim_out)
{
	int dim = contig_dim(L, l, ptr);
	*dim_out = dim;
	if (dim < 0)
		return 1;
	int v = op->attr.i2 > 1 ? (int)op->attr.i2 : 1;
	v = MINOF(v, ll_num_contig_regs(l, dim));
	int eb = dtype_bytes((DType)et.dt);
	if (eb > 0)
		v = MINOF(v, MAXOF(1, 16 / eb));
	while (v > 1 && !groups_contiguous(l, dim, v))
		v /= 2;
	return v;
}

/* Do the threads enumerate consecutive vectors of v along dim (lane, then
 * warp order)? */
static bool threads_enumerate(Lower *L, const LinearLayout *l, int dim, int v)
{
	if (dim < 0 || lw_bits(l, LL_LANE) != L->lane_bits || lw_bits(l, LL_WARP) != L->warp_bits)
		return false;
	for (int k = 0; k < 2; k++) {
		LLInDim kind = k ? LL_WARP : LL_LANE;
		int shift = k ? L->lane_bits : 0;
		for (int b = 0; b < lw_bits(l, kind); b++) {
			const int32_t *c = lw_basis(l, kind, b);
			for (int d = 0; d < l->n_out; d++)
				if (c[d] != (d == dim ? v << (b + shift) : 0))
					return false;
		}
	}
	return true;
}

/* On the CPU, where stride analysis cannot show an access consecutive over
 * all threads: the aligned runs of threads whose addresses axis analysis
 * proves consecutive (x % N with N a multiple of 16 keeps runs of 16); -1 if
 * that is all of them, 0 if shorter than 4 threads. A run is aligned in the
 * tile as axis analysis's groups are when every register's own coordinate
 * along dim is a multiple of what all threads span. */
static int coalesced_run(Lower *L, const TirOp *op, const LinearLayout *l, int dim, int v)
{
	if (!lw_simd_program(L) || dim < 0 || dim >= TIR_MAX_RANK || !threads_enumerate(L, l, dim, v))
		return 0;
	int32_t span = v << (L->lane_bits + L->warp_bits);
	for (int b = 0; b < lw_bits(l, LL_REG); b++)
		if (lw_basis(l, LL_REG, b)[dim] % span && lw_basis(l, LL_REG, b)[dim] >= v)
			return 0;
	int64_t run = op->attr.perm[dim] / v, threads = (int64_t)1 << (L->lane_bits + L->warp_bits);
	int r = 1;
	while ((int64_t)r * 2 <= run && r * 2 <= threads)
		r *= 2;
	if (r == threads)
		return -1; /* consecutive over all threads */
	return r >= 4 ? r : 0;
}

static bool coalesced(Lower *L, const LinearLayout *l, int dim, int v, ValId ptr)
{
	return threads_enumerate(L, l, dim, v) && lw_stride_along(L->tf, ptr, dim) == 1;
}

/* ---- load ---------------------------------------------------------------------------------- */

static TpVal zero_of(Lower *L, Type et)
{
	if (dtype_is_float((DType)et.dt))
		return lw_const_f(L, (DType)et.dt, 0.0);
	return lw_const_i(L, (DType)et.dt, 0);
}

static void lower_load(Lower *L, const TirOp *op)
{
	int k = 1;
	ValId ptr = op->operands[0];
	ValId mask = (op->attr.flags & TIR_HAS_MASK) ? op->operands[k++] : 0;
	ValId other = (op->attr.flags & TIR_HAS_OTHER) ? op->operands[k++] : 0;
	ValId res = op->results[0];
	Type et = lw_elem_type(L, res);
	LVal p = lw_get(L, ptr);
	LVal m = {0}, o = {0};
	if (mask)
		m = lw_get(L, mask);
	if (other)
		o = lw_get(L, other);
	const LinearLayout *l = lw_layout(L, ptr);
	int dim = -1, v = l ? vec_width(L, op, l, et, ptr, &dim) : 1;
	bool coal = l && coalesced(L, l, dim, v, ptr);
	int run = l && !coal ? coalesced_run(L, op, l, dim, v) : 0;
	if (run < 0)
		coal = true, run = 0;
	LVal x = lw_alloc(L, p.n);
	TpVal in[2 + 16];
	Type outs[16];
	for (int g = 0; g < p.n; g += v) {
		in[0] = p.r[g];
		in[1] = mask ? m.r[m.n == 1 ? 0 : g] : lw_true(L);
		for (int j = 0; j < v; j++) {
			in[2 + j] = other ? o.r[o.n == 1 ? 0 : g + j] : zero_of(L, et);
			outs[j] = et;
		}
		TpOp *t = lw_op(L, TP_LOAD, op->loc, in, 2 + v, outs, v);
		t->attr.i = v;
		t->attr.i2 = op->attr.i; /* cache hint */
		t->attr.flags = (op->attr.flags & TIR_VOLATILE) | (coal || run ? TP_COALESCED : 0);
		t->attr.axis = run;
		for (int j = 0; j < v; j++)
			x.r[g + j] = t->results[j];
	}
	lw_set(L, res, x);
}

/* ---- store ----------------------------------------------------------------------------------- */

static TpVal thread0_pred(Lower *L)
{
	TpVal p = lw_owner_pred(L, (1u << L->lane_bits) - 1, (1u << L->warp_bits) - 1);
	return p ? p : lw_true(L);
}

static void lower_store(Lower *L, const TirOp *op)
{
	ValId ptr = op->operands[0], val = op->operands[1];
	ValId mask = (op->attr.flags & TIR_HAS_MASK) ? op->operands[2] : 0;
	LVal p = lw_get(L, ptr), x = lw_get(L, val);
	LVal m = {0};
	if (mask)
		m = lw_get(L, mask);
	const LinearLayout *l = lw_layout(L, ptr);
	Type et = lw_elem_type(L, val);
	TpVal in[2 + 16];
	if (!l) {
		in[0] = p.r[0];
		in[1] = lw_and1(L, thread0_pred(L), mask ? m.r[0] : 0);
		in[2] = x.r[0];
		TpOp *t = lw_op(L, TP_STORE, op->loc, in, 3, NULL, 0);
		t->attr.i = 1;
		t->attr.i2 = op->attr.i;
		t->attr.flags = op->attr.flags & TIR_VOLATILE;
		return;
	}
	int dim = -1, v = vec_width(L, op, l, et, ptr, &dim);
	bool coal = coalesced(L, l, dim, v, ptr);
	int run = !coal ? coalesced_run(L, op, l, dim, v) : 0;
	if (run < 0)
		coal = true, run = 0;
	uint32_t rf, lf, wf;
	lw_free(L, l, &rf, &lf, &wf);
	TpVal own = lw_owner_pred(L, lf, wf);
	for (int g = 0; g < p.n; g += v) {
		if (g & (int)rf)
			continue; /* a copy of another register */
		in[0] = p.r[g];
		TpVal pm = lw_and1(L, own, mask ? m.r[m.n == 1 ? 0 : g] : 0);
		in[1] = pm ? pm : lw_true(L);
		for (int j = 0; j < v; j++)
			in[2 + j] = x.r[x.n == 1 ? 0 : g + j];
		TpOp *t = lw_op(L, TP_STORE, op->loc, in, 2 + v, NULL, 0);
		t->attr.i = v;
		t->attr.i2 = op->attr.i;
		t->attr.flags = (op->attr.flags & TIR_VOLATILE) | (coal || run ? TP_COALESCED : 0);
		t->attr.axis = run;
	}
}

/* ---- atomics -----------------------------------------------------------------------------------
 */

/* Row-major flat index (i32) of the element register r holds. */
static TpVal flat_index(Lower *L, const LinearLayout *l, int r)
{
	TpVal acc = 0;
	int shift = 0;
	for (int d = l->n_out - 1; d >= 0; d--) {
		if (!l->out_bits[d])
			continue;
		TpVal c = lw_coord(L, l, r, d);
		if (shift)
			c = lw_bin(L, TP_SHL, c, lw_i32(L, shift));
		acc = acc ? lw_bin(L, TP_OR, acc, c) : c;
		shift += l->out_bits[d];
	}
	return acc ? acc : lw_i32(L, 0);
}

/* The owners' results reach every copy: owners write to shared memory at the
 * element's index, everyone reads it back. */
static void share_from_owners(Lower *L, const TirOp *op, const LinearLayout *l, LVal res, Type et,
                              TpVal own, uint32_t rf)
{
	int eb = MAXOF(1, dtype_bytes((DType)et.dt));
	int64_t numel = 1;
	for (int d = 0; d < l->n_out; d++)
		numel <<= l->out_bits[d];
	int base = lw_scratch(L, op, (int)(numel * eb));
	TpVal *off = ARENA_NEWN(L->arena, TpVal, res.n);
	for (int r = 0; r < res.n; r++) {
		TpVal fi = flat_index(L, l, r);
		off[r] = lw_bin(L, TP_ADD, lw_bin(L, TP_MUL, fi, lw_i32(L, eb)), lw_i32(L, base));
		if (r & (int)rf)
			continue;
		TpVal in[3] = {off[r], own ? own : lw_true(L), res.r[r]};
		lw_op(L, TP_SMEM_STORE, op->loc, in, 3, NULL, 0)->attr.i = 1;
	}
	lw_barrier(L);
	for (int r = 0; r < res.n; r++) {
		TpVal in[2] = {off[r], lw_true(L)};
		TpOp *t = lw_op(L, TP_SMEM_LOAD, op->loc, in, 2, &et, 1);
		t->attr.i = 1;
		res.r[r] = t->results[0];
	}
	lw_barrier(L);
}

static void lower_atomic(Lower *L, const TirOp *op)
{
	bool cas = op->kind == TOP_ATOMIC_CAS;
	ValId ptr = op->operands[0];
	ValId mask = (!cas && (op->attr.flags & TIR_HAS_MASK)) ? op->operands[2] : 0;
	ValId res = op->results[0];
	Type et = lw_elem_type(L, res);
	LVal p = lw_get(L, ptr);
	LVal a = lw_get(L, op->operands[1]);
	LVal b = cas ? lw_get(L, op->operands[2]) : a;
	LVal m = {0};
	if (mask)
		m = lw_get(L, mask);
	const LinearLayout *l = lw_layout(L, ptr);
	uint32_t rf = 0, lf = 0, wf = 0;
	TpVal own;
	if (l) {
		lw_free(L, l, &rf, &lf, &wf);
		own = lw_owner_pred(L, lf, wf);
	} else {
		own = thread0_pred(L);
	}
	/* A scalar atomic is thread 0's. With release semantics (acq_rel, the
	 * default, or release) every thread's earlier writes must come before it
	 * (a lock released after the whole block stored its partial sums), so
	 * all threads meet first; the barrier after it, in share_from_owners,
	 * orders the acquire side. (Newer Triton does the same.) */
	int sem = (int)(op->attr.i & 0xff);
	if (!l && (sem == TIR_SEM_ACQ_REL || sem == TIR_SEM_RELEASE))
		lw_barrier(L);
	/* groups of v consecutive elements go in one instruction (assign.c's
	 * atomic_vec: Hopper's vector adds, f16x2 pairs) */
	int dim = -1, v = l && !cas ? vec_width(L, op, l, et, ptr, &dim) : 1;
	LVal x = lw_alloc(L, p.n);
	for (int g = 0; g < p.n; g += v) {
		if (g & (int)rf)
			continue;
		TpVal pm = lw_and1(L, own, mask ? m.r[m.n == 1 ? 0 : g] : 0);
		TpVal in[2 + 16];
		Type outs[16];
		int n = 0;
		in[n++] = p.r[g];
		for (int j = 0; j < v; j++) {
			in[n++] = a.r[a.n == 1 ? 0 : g + j];
			outs[j] = et;
		}
		if (cas)
			in[n++] = b.r[b.n == 1 ? 0 : g];
		in[n++] = pm ? pm : lw_true(L);
		TpOp *t = lw_op(L, cas ? TP_ATOMIC_CAS : TP_ATOMIC, op->loc, in, n, outs, v);
		t->attr.atomic = op->attr.atomic;
		t->attr.i = op->attr.i;
		for (int j = 0; j < v; j++)
			x.r[g + j] = t->results[j];
	}
	if (!l) {
		/* thread 0 did it: everyone reads its result */
		LinearLayout one;
		ll_init_hw(&one, 0);
		share_from_owners(L, op, &one, x, et, own, 0);
	} else if (lf || wf) {
		share_from_owners(L, op, l, x, et, own, rf);
	} else {
		for (int r = 0; r < p.n; r++)
			if (r & (int)rf) {
				int32_t c[LL_MAX_OUT];
				ll_apply_hw(l, (uint32_t)r, 0, 0, c);
				x.r[r] = x.r[lw_find_reg(l, c, rf)];
			}
	}
	lw_set(L, res, x);
}

/* A special register (globaltimer, smid): thread 0's reading, shared with
 * every thread, so that a loop may wait on the clock (control flow is
 * uniform) and one call is one reading for the whole program. */
static void lower_sreg(Lower *L, const TirOp *op)
{
	Type et = lw_elem_type(L, op->results[0]);
	TpOp *t = lw_op(L, TP_SREG, op->loc, NULL, 0, &et, 1);
	t->attr.i = op->attr.i;
	LVal x = lw_alloc(L, 1);
	x.r[0] = t->results[0];
	LinearLayout one;
	ll_init_hw(&one, 0);
	share_from_owners(L, op, &one, x, et, thread0_pred(L), 0);
	lw_set(L, op->results[0], x);
}

bool lw_memory(Lower *L, const TirOp *op)
{
	switch ((TirOpKind)op->kind) {
	case TOP_LOAD: lower_load(L, op); return true;
	case TOP_STORE: lower_store(L, op); return true;
	case TOP_ATOMIC:
	case TOP_ATOMIC_CAS: lower_atomic(L, op); return true;
	case TOP_SREG: lower_sreg(L, op); return true;
	default: return false;
	}
}

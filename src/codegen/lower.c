/* lower.c: Tile IR with layouts -> thread program (the driver).
 *
 * Requires: tir_verify(layouts) holds: every tile value has a distributed
 * layout (REG, LANE, WARP) whose out dims match its shape; elementwise
 * operands share the result's layout; CONVERT_LAYOUT ops sit where layouts
 * change; LOAD/STORE/ATOMIC carry the proven vector width in attr.i2.
 * Guarantees: a thread program that passes tp_verify, in which every thread
 * runs every op (control flow stays uniform). Parameters become PARAM ops,
 * LANE_ID and WARP_ID are emitted once at the top, constants are hoisted
 * right after them.
 *
 * This file keeps the map ValId -> registers and the shared helpers (emitting,
 * coordinates, predicates, scratch shared memory); each op family lowers in
 * its own file (see lower_internal.h).
 */
#include "codegen/lower_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lw_ice(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	ice("lower", "%s", buf);
}

/* ---- emitting --------------------------------------------------------------------- */

static const SrcLoc no_loc;

TpOp *lw_op(Lower *L, TpOpKind k, SrcLoc loc, const TpVal *in, int nin, const Type *out, int nout)
{
	return tp_op(L->f, L->blk, k, loc, in, nin, out, nout);
}

TpVal lw_op1(Lower *L, TpOpKind k, const TpVal *in, int nin, Type rt)
{
	TpOp *op = lw_op(L, k, no_loc, in, nin, &rt, rt.dt == DT_VOID ? 0 : 1);
	return op->nout ? op->results[0] : 0;
}

TpVal lw_bin(Lower *L, TpOpKind k, TpVal a, TpVal b)
{
	TpVal in[2] = {a, b};
	return lw_op1(L, k, in, 2, tp_type(L->f, a));
}

TpVal lw_cmp(Lower *L, TirPred p, TpVal a, TpVal b)
{
	TpVal in[2] = {a, b};
	TpOp *op = lw_op(L, TP_CMP, no_loc, in, 2, &(Type){.dt = DT_I1}, 1);
	op->attr.pred = p;
	return op->results[0];
}

TpVal lw_select(Lower *L, TpVal c, TpVal a, TpVal b)
{
	if (a == b)
		return a;
	TpVal in[3] = {c, a, b};
	return lw_op1(L, TP_SELECT, in, 3, tp_type(L->f, a));
}

TpVal lw_cast(Lower *L, TpVal v, Type to)
{
	to.rank = 0;
	if (type_eq(tp_type(L->f, v), to))
		return v;
	return lw_op1(L, TP_CAST, &v, 1, to);
}

static unsigned const_slot(const Lower *L, DType dt, int64_t bits)
{
	uint64_t h = ((uint64_t)bits ^ ((uint64_t)dt << 56)) * 0x9E3779B97F4A7C15ull;
	return (unsigned)(h >> 32) & (unsigned)(L->hcap - 1);
}

static void const_rehash(Lower *L)
{
	L->hcap = L->hcap ? 2 * L->hcap : 64;
	L->chash = ARENA_NEWN(L->arena, int, L->hcap);
	memset(L->chash, 0, sizeof(int) * (size_t)L->hcap);
	for (int i = 0; i < L->nconsts; i++) {
		unsigned h = const_slot(L, (DType)L->consts[i].dt, L->consts[i].bits);
		while (L->chash[h])
			h = (h + 1) & (unsigned)(L->hcap - 1);
		L->chash[h] = i + 1;
	}
}

/* One op per distinct constant, kept aside and placed at the top of the body
 * when lowering ends (lower_func): found by hash, never inserted into the
 * body one at a time (a kernel with thousands of distinct constants and a
 * long body was quadratic). */
static TpVal const_hoisted(Lower *L, DType dt, int64_t bits, bool is_f, int64_t iv, double fv)
{
	if (2 * (L->nconsts + 1) > L->hcap)
		const_rehash(L);
	unsigned h = const_slot(L, dt, bits);
	for (; L->chash[h]; h = (h + 1) & (unsigned)(L->hcap - 1)) {
		const LConst *c = &L->consts[L->chash[h] - 1];
		if (c->dt == dt && c->bits == bits)
			return c->v;
	}
	TpBlock *save = L->blk, *b = L->f->body;
	L->blk = b;
	Type t = type_scalar(dt);
	TpOp *op = lw_op(L, TP_CONST, no_loc, NULL, 0, &t, 1);
	L->blk = save;
	b->nops--; /* out of the body until lower_func places it */
	if (is_f)
		op->attr.f = fv;
	else
		op->attr.i = iv;
	if (L->nconsts == L->capconsts) {
		int nc = L->capconsts ? 2 * L->capconsts : 32;
		LConst *n = ARENA_NEWN(L->arena, LConst, nc);
		if (L->nconsts)
			memcpy(n, L->consts, sizeof(LConst) * (size_t)L->nconsts);
		L->consts = n;
		L->capconsts = nc;
	}
	LConst c = {(uint8_t)dt, bits, op->results[0], op};
	L->consts[L->nconsts++] = c;
	L->chash[h] = L->nconsts;
	return c.v;
}

/* Places the hoisted constants at L->top of the body, in the order made. */
static void place_consts(Lower *L)
{
	TpBlock *b = L->f->body;
	int n = L->nconsts;
	if (!n)
		return;
	TpOp **ops = ARENA_NEWN(L->arena, TpOp *, b->nops + n);
	memcpy(ops, b->ops, sizeof(TpOp *) * (size_t)L->top);
	for (int i = 0; i < n; i++)
		ops[L->top + i] = L->consts[i].op;
	memcpy(&ops[L->top + n], &b->ops[L->top], sizeof(TpOp *) * (size_t)(b->nops - L->top));
	b->ops = ops;
	b->nops += n;
	b->cap = b->nops;
}

TpVal lw_const_i(Lower *L, DType dt, int64_t v)
{
	if (dtype_is_float(dt))
		return lw_const_f(L, dt, (double)v);
	if (dt == DT_I1)
		v = v != 0;
	return const_hoisted(L, dt, v, false, v, 0);
}

TpVal lw_const_f(Lower *L, DType dt, double v)
{
	if (!dtype_is_float(dt))
		return lw_const_i(L, dt, (int64_t)v);
	int64_t bits;
	memcpy(&bits, &v, sizeof bits);
	return const_hoisted(L, dt, bits, true, 0, v);
}

TpVal lw_i32(Lower *L, int64_t v) { return lw_const_i(L, DT_I32, v); }

TpVal lw_true(Lower *L) { return lw_const_i(L, DT_I1, 1); }

TpVal lw_and1(Lower *L, TpVal a, TpVal b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	return lw_bin(L, TP_AND, a, b);
}

TpVal lw_barrier(Lower *L)
{
	lw_op(L, TP_BARRIER, no_loc, NULL, 0, NULL, 0);
	return 0;
}

/* ---- values ------------------------------------------------------------------------ */

LVal lw_alloc(Lower *L, int n)
{
	LVal x = {ARENA_NEWN(L->arena, TpVal, n), n};
	return x;
}

LVal lw_get(Lower *L, ValId v)
{
	if (!v || !L->map[v].n)
		lw_ice("value %%%u used before it was lowered", v);
	return L->map[v];
}

void lw_set(Lower *L, ValId v, LVal x)
{
	int want = lw_nregs_of(L, v);
	if (x.n != want)
		lw_ice("value %%%u: %d registers, layout needs %d", v, x.n, want);
	L->map[v] = x;
}

const LinearLayout *lw_layout(Lower *L, ValId v)
{
	const TirVal *tv = &L->tf->vals.data[v];
	if (tv->ty.rank == 0)
		return NULL;
	if (!tv->layout)
		lw_ice("tile value %%%u has no layout", v);
	return tv->layout;
}

int lw_nregs_of(Lower *L, ValId v)
{
	const LinearLayout *l = lw_layout(L, v);
	return l ? 1 << lw_bits(l, LL_REG) : 1;
}

Type lw_elem_type(Lower *L, ValId v)
{
	Type t = L->tf->vals.data[v].ty;
	t.rank = 0;
	memset(t.shape, 0, sizeof t.shape);
	return t;
}

/* ---- layouts -------------------------------------------------------------------------- */

int lw_slot(const LinearLayout *l, LLInDim k) { return ll_find_slot(l, k); }

int lw_bits(const LinearLayout *l, LLInDim k)
{
	int s = ll_find_slot(l, k);
	return s < 0 ? 0 : l->in_bits[s];
}

const int32_t *lw_basis(const LinearLayout *l, LLInDim k, int b)
{
	return l->basis[ll_find_slot(l, k)][b];
}

bool lw_basis_zero(const LinearLayout *l, LLInDim k, int b)
{
	const int32_t *c = lw_basis(l, k, b);
	for (int d = 0; d < l->n_out; d++)
		if (c[d])
			return false;
	return true;
}

void lw_free(Lower *L, const LinearLayout *l, uint32_t *reg, uint32_t *lane, uint32_t *warp)
{
	uint32_t m[LL_MAX_IN] = {0};
	ll_free_masks(l, m);
	int sr = lw_slot(l, LL_REG), sl = lw_slot(l, LL_LANE), sw = lw_slot(l, LL_WARP);
	*reg = sr >= 0 ? m[sr] : 0;
	*lane = sl >= 0 ? m[sl] : 0;
	*warp = sw >= 0 ? m[sw] : 0;
	int lb = lw_bits(l, LL_LANE), wb = lw_bits(l, LL_WARP);
	if (lb > L->lane_bits || wb > L->warp_bits)
		lw_ice("layout has %d lane / %d warp bits; the target runs %d / %d", lb, wb,
		       L->lane_bits, L->warp_bits);
	for (int b = lb; b < L->lane_bits; b++)
		*lane |= 1u << b;
	for (int b = wb; b < L->warp_bits; b++)
		*warp |= 1u << b;
}

/* Emit sum over set bits of `id` of img[i] (XOR-combined). Runs of bits whose
 * images are consecutive powers of two become (id >> i & mask) << s. */
static TpVal lin_bits(Lower *L, TpVal id, int id_bits, const int32_t *img, int n, TpVal acc,
                      uint32_t *accmask)
{
	for (int i = 0; i < n;) {
		int32_t c = img[i];
		if (!c) {
			i++;
			continue;
		}
		int run = 1;
		if ((c & (c - 1)) == 0)
			while (i + run < n && img[i + run] == c << run)
				run++;
		TpVal t = i ? lw_bin(L, TP_SHR, id, lw_i32(L, i)) : id;
		TpVal term;
		uint32_t tmask;
		if ((c & (c - 1)) == 0) {
			int s = 0;
			while ((1 << s) != c)
				s++;
			if (i + run < id_bits) /* id < 2^id_bits: the top bits need no mask */
				t = lw_bin(L, TP_AND, t, lw_i32(L, (1 << run) - 1));
			term = s ? lw_bin(L, TP_SHL, t, lw_i32(L, s)) : t;
			tmask = (uint32_t)((1 << run) - 1) << s;
		} else {
			t = lw_bin(L, TP_AND, t, lw_i32(L, 1));
			term = lw_bin(L, TP_MUL, t, lw_i32(L, c));
			tmask = (uint32_t)c;
		}
		if (!acc)
			acc = term;
		else
			acc = lw_bin(L, (*accmask & tmask) ? TP_XOR : TP_OR, acc, term);
		*accmask |= tmask;
		i += run;
	}
	return acc;
}

bool lw_simd_program(const Lower *L)
{
	return L->t->kind == TARGET_CPU && !L->t->emulate;
}

TpVal lw_linear_lane_warp(Lower *L, const int32_t *lane_img, int nl, const int32_t *warp_img,
                          int nw)
{
	uint32_t m = 0;
	TpVal acc = lin_bits(L, L->lane, L->lane_bits, lane_img, nl, 0, &m);
	acc = lin_bits(L, L->warp, L->warp_bits, warp_img, nw, acc, &m);
	return acc ? acc : lw_i32(L, 0);
}

TpVal lw_hw_coord(Lower *L, const LinearLayout *l, int dim)
{
	int32_t li[LL_MAX_BITS], wi[LL_MAX_BITS];
	int nl = lw_bits(l, LL_LANE), nw = lw_bits(l, LL_WARP);
	for (int b = 0; b < nl; b++)
		li[b] = lw_basis(l, LL_LANE, b)[dim];
	for (int b = 0; b < nw; b++)
		wi[b] = lw_basis(l, LL_WARP, b)[dim];
	return lw_linear_lane_warp(L, li, nl, wi, nw);
}

static uint32_t hw_mask(const LinearLayout *l, int dim)
{
	uint32_t m = 0;
	for (int b = 0; b < lw_bits(l, LL_LANE); b++)
		m |= (uint32_t)lw_basis(l, LL_LANE, b)[dim];
	for (int b = 0; b < lw_bits(l, LL_WARP); b++)
		m |= (uint32_t)lw_basis(l, LL_WARP, b)[dim];
	return m;
}

TpVal lw_coord(Lower *L, const LinearLayout *l, int r, int dim)
{
	int32_t c[LL_MAX_OUT];
	ll_apply_hw(l, (uint32_t)r, 0, 0, c);
	uint32_t m = hw_mask(l, dim);
	if (!m)
		return lw_i32(L, c[dim]);
	TpVal hw = lw_hw_coord(L, l, dim);
	if (!c[dim])
		return hw;
	if (m & (uint32_t)c[dim])
		return lw_bin(L, TP_XOR, hw, lw_i32(L, c[dim]));
	/* Disjoint bits: | and + agree. An address built from hw + c is one
	 * base plus a constant per register, which ptxas folds into the access
	 * (an | of a thread value is opaque to it: one offset register per
	 * element, live across a loop); but the + form also changes how ptxas
	 * schedules the rest, more spills in some kernels, fewer in others, so
	 * it is a variant driver/compile.c weighs where the | form spills. */
	if (L->o && L->o->add_coords)
		return lw_bin(L, TP_ADD, hw, lw_i32(L, c[dim]));
	L->f->or_coords = true;
	TpVal in[2] = {hw, lw_i32(L, c[dim])};
	Type t = tp_type(L->f, hw);
	TpOp *op = lw_op(L, TP_OR, no_loc, in, 2, &t, 1);
	op->attr.flags |= TP_DISJOINT;
	return op->results[0];
}

TpVal lw_owner_pred(Lower *L, uint32_t lane_free, uint32_t warp_free)
{
	TpVal p = 0;
	if (lane_free) {
		TpVal t = lw_bin(L, TP_AND, L->lane, lw_i32(L, lane_free));
		p = lw_cmp(L, PRED_EQ, t, lw_i32(L, 0));
	}
	if (warp_free) {
		TpVal t = lw_bin(L, TP_AND, L->warp, lw_i32(L, warp_free));
		p = lw_and1(L, p, lw_cmp(L, PRED_EQ, t, lw_i32(L, 0)));
	}
	return p;
}

/* Packs coordinates into one bit vector (dims side by side); false if they
 * do not fit in 64 bits or a coordinate lies outside its dim. */
static bool pack_coords(const LinearLayout *l, const int32_t c[], uint64_t *out)
{
	int off = 0;
	*out = 0;
	for (int d = 0; d < l->n_out; d++) {
		int b = l->out_bits[d];
		if (off + b > 64 || c[d] < 0 || (b < 31 && c[d] >= (1 << b)))
			return false;
		*out |= (uint64_t)c[d] << off;
		off += b;
	}
	return true;
}

static int top_bit(uint64_t v) { return 63 - __builtin_clzll(v); }

/* The smallest r over register bits `allowed` with l(r, 0, 0) = target, or -1:
 * Gaussian elimination over GF(2) (a register's coordinates are the XOR of
 * its bits' bases), then the solution reduced by the kernel's basis from the
 * top bit down, which gives the coset's minimum. */
static int solve_reg(const LinearLayout *l, int nb, uint64_t target, uint32_t allowed)
{
	uint64_t vec[64];
	uint32_t comb[64], kern[32] = {0};
	bool have[64] = {0};
	for (int b = 0; b < nb; b++) {
		if (!(allowed >> b & 1))
			continue;
		uint64_t v;
		if (!pack_coords(l, l->basis[0][b], &v))
			return -2;
		uint32_t m = 1u << b;
		while (v && have[top_bit(v)]) {
			int p = top_bit(v);
			v ^= vec[p];
			m ^= comb[p];
		}
		if (v) {
			have[top_bit(v)] = true;
			vec[top_bit(v)] = v;
			comb[top_bit(v)] = m;
			continue;
		}
		for (int p = 31; p >= 0 && m; p--) /* m: a combination mapping to 0 */
			if (m >> p & 1) {
				if (!kern[p]) {
					kern[p] = m;
					break;
				}
				m ^= kern[p];
			}
	}
	uint32_t r = 0;
	while (target) {
		int p = top_bit(target);
		if (!have[p])
			return -1;
		target ^= vec[p];
		r ^= comb[p];
	}
	for (int p = 31; p >= 0; p--)
		if (kern[p] && (r >> p & 1))
			r ^= kern[p];
	return (int)r;
}

/* Register holding coords c at lane = warp = 0: the smallest one without
 * reg_free bits, else the smallest; -1 if none. Solved rather than scanned:
 * a scan per lookup made lowering quadratic in the registers of a thread
 * (minutes for a 512x512 tl.dot). */
int lw_find_reg(const LinearLayout *l, const int32_t c[], uint32_t reg_free)
{
	int nb = lw_bits(l, LL_REG);
	uint64_t target;
	if (nb > 0 && ll_find_slot(l, LL_REG) == 0 && nb <= 31 && pack_coords(l, c, &target)) {
		int r = solve_reg(l, nb, target, ~reg_free);
		if (r == -1)
			r = solve_reg(l, nb, target, ~0u);
		if (r != -2)
			return r;
	} else if (nb > 0 && ll_find_slot(l, LL_REG) == 0 && nb <= 31) {
		uint64_t dummy;
		int32_t zero[LL_MAX_OUT] = {0};
		if (pack_coords(l, zero, &dummy))
			return -1; /* packable layout, c outside it */
	}
	int n = 1 << nb;
	int32_t x[LL_MAX_OUT];
	for (int pass = 0; pass < 2; pass++)
		for (int r = 0; r < n; r++) {
			if (pass == 0 && (r & (int)reg_free))
				continue;
			ll_apply_hw(l, (uint32_t)r, 0, 0, x);
			if (!memcmp(x, c, sizeof(int32_t) * l->n_out))
				return r;
		}
	return -1;
}

/* ---- shared memory ------------------------------------------------------------------ */

int lw_scratch(Lower *L, const TirOp *op, int bytes)
{
	/* Every scratch use is one self-contained phase (write, barrier, read,
	 * barrier), so all of them start at the same offset, as src/layout/smem.c
	 * sizes them (attr.i2 there is only an estimate: the thread program's
	 * size is the maximum of the layout pass's and ours): right after the
	 * pipelining buffers while they are live, over them elsewhere. */
	(void)op;
	if (lw_scratch_base(L)) {
		L->smem_top_pipelined = MAXOF(L->smem_top_pipelined, bytes);
		return L->tf->smem_reserved;
	}
	L->smem_top = MAXOF(L->smem_top, bytes);
	return 0;
}

int lw_scratch_base(const Lower *L)
{
	bool apart = L->o && L->o->scratch_apart;
	return apart || L->in_pipelined_loop || L->copies_in_flight || L->held_loop ? L->tf->smem_reserved : 0;
}

/* ---- driver -------------------------------------------------------------------------- */

static void lower_op(Lower *L, const TirOp *op)
{
	if (lw_elementwise(L, op) || lw_memory(L, op) || lw_view(L, op) || lw_reduce(L, op) ||
	    lw_dot(L, op) || lw_async(L, op) || lw_control(L, op))
		return;
	lw_ice("no lowering for op %s", tir_op_name((TirOpKind)op->kind));
}

void lw_block(Lower *L, const TirBlock *b)
{
	for (int i = 0; i < b->nops; i++)
		lower_op(L, b->ops[i]);
}

void lw_inline_region(Lower *L, const TirBlock *b, const TpVal *args, int nargs, TpVal *out)
{
	if (b->nargs != nargs)
		lw_ice("combine region takes %d arguments, given %d", b->nargs, nargs);
	for (int i = 0; i < nargs; i++) {
		LVal x = lw_alloc(L, 1);
		x.r[0] = args[i];
		lw_set(L, b->args[i], x);
	}
	for (int i = 0; i < b->nops; i++) {
		const TirOp *op = b->ops[i];
		if (op->kind == TOP_YIELD) {
			for (int j = 0; j < op->nin; j++)
				out[j] = lw_get(L, op->operands[j]).r[0];
			return;
		}
		lower_op(L, op);
	}
	lw_ice("combine region does not end in yield");
}

static int ilog2i(int x)
{
	int n = 0;
	while ((1 << n) < x)
		n++;
	return n;
}

static void lower_params(Lower *L)
{
	const TirFunc *tf = L->tf;
	TpFunc *f = L->f;
	f->nparams = tf->nparams;
	f->params = ARENA_NEWN(L->arena, TpParam, tf->nparams ? tf->nparams : 1);
	for (int i = 0; i < tf->nparams; i++) {
		f->params[i].name = tf->params[i].name;
		f->params[i].ty = tf->params[i].ty;
		f->params[i].spec = tf->params[i].spec;
		Type t = tf->params[i].ty;
		TpOp *op = lw_op(L, TP_PARAM, no_loc, NULL, 0, &t, 1);
		op->attr.i = i;
		LVal x = lw_alloc(L, 1);
		x.r[0] = op->results[0];
		lw_set(L, tf->params[i].val, x);
	}
}

/* ---- dead code ---------------------------------------------------------------------- */

/* Pure ops whose results nothing uses are dropped: a pattern lowered as a
 * whole (the one-hot gather in lower_reduce.c) leaves the ops of its parts
 * behind, and so may views and conversions whose results only fed it.
 * PARAM, LANE_ID and WARP_ID stay (the top of every thread program). */
static void count_uses(const TpBlock *b, int *uses)
{
	for (int i = 0; i < b->nops; i++) {
		const TpOp *op = b->ops[i];
		for (int k = 0; k < op->nin; k++)
			uses[op->operands[k]]++;
		for (int k = 0; k < op->nregions; k++)
			count_uses(&op->regions[k], uses);
	}
}

static bool removable(const TpOp *op, const int *uses)
{
	TpOpKind k = (TpOpKind)op->kind;
	if (!(tp_op_flags(k) & TF_PURE) || op->nregions || k == TP_PARAM || k == TP_LANE_ID ||
	    k == TP_WARP_ID)
		return false;
	for (int i = 0; i < op->nout; i++)
		if (uses[op->results[i]])
			return false;
	return true;
}

/* Backwards over the block, entering regions where they stand: every use
 * follows its definition, so one pass removes whole dead chains. */
static void drop_dead(TpBlock *b, int *uses)
{
	int n = b->nops;
	for (int i = b->nops - 1; i >= 0; i--) {
		TpOp *op = b->ops[i];
		for (int k = op->nregions - 1; k >= 0; k--)
			drop_dead(&op->regions[k], uses);
		if (!removable(op, uses))
			continue;
		for (int k = 0; k < op->nin; k++)
			uses[op->operands[k]]--;
		b->ops[i] = NULL;
		n--;
	}
	int j = 0;
	for (int i = 0; i < b->nops; i++)
		if (b->ops[i])
			b->ops[j++] = b->ops[i];
	b->nops = n;
}

static void remove_dead_code(TpFunc *f)
{
	int *uses = xcalloc(f->vals.len + 1, sizeof *uses);
	count_uses(f->body, uses);
	drop_dead(f->body, uses);
	free(uses);
}

static int disjoint_ors(TpBlock *b, bool to_add)
{
	int n = 0;
	for (int i = 0; i < b->nops; i++) {
		TpOp *op = b->ops[i];
		for (int k = 0; k < op->nregions; k++)
			n += disjoint_ors(&op->regions[k], to_add);
		if (op->kind == TP_OR && (op->attr.flags & TP_DISJOINT)) {
			n++;
			if (to_add) {
				op->kind = TP_ADD;
				op->attr.flags &= ~TP_DISJOINT;
			}
		}
	}
	return n;
}

/* NVVM's alias analysis cannot split an address built from lane/warp part |
 * constant into a base and an offset, and its cost grows with the square of
 * the accesses so addressed: 512 stores of one thread took 1.5 s to PTX as |,
 * 0.16 s as +, and a 2^20-element store over 4 warps over 120 s. Below the
 * bound the | form stays (lw_coord: it spills less in some kernels, the +
 * form is a variant); real kernels have up to about 130 such coordinates. */
enum { OR_COORDS_MAX = 256 };

static void coords_as_adds_when_many(TpFunc *f)
{
	if (f->or_coords && disjoint_ors(f->body, false) > OR_COORDS_MAX) {
		disjoint_ors(f->body, true);
		f->or_coords = false;
	}
}

TpFunc *lower_func(Arena *a, DiagSink *diags, const TirFunc *tf, const TargetDesc *t,
                   const CompileOptions *o)
{
	int nw = tf->num_warps > 0 ? tf->num_warps : (o && o->num_warps > 0 ? o->num_warps : 4);
	Lower L = {0};
	L.arena = a;
	L.diags = diags;
	L.tf = tf;
	L.t = t;
	L.o = o;
	L.f = tp_func_new(a, tf->name, t, nw);
	L.f->display = tf->display;
	L.f->line_info = !(o && o->no_line_info);
	L.f->no_fmad = o && o->no_fp_fusion;
	L.f->racecheck = o && o->racecheck;
	L.f->wide_addr = o && o->wide_addr;
	L.map = ARENA_NEWN(a, LVal, tf->vals.len + 1);
	L.blk = L.f->body;
	L.lane_bits = ilog2i(L.f->lanes_per_warp);
	L.warp_bits = ilog2i(nw);
	lower_params(&L);
	Type i32 = type_scalar(DT_I32);
	L.lane = lw_op(&L, TP_LANE_ID, no_loc, NULL, 0, &i32, 1)->results[0];
	L.warp = lw_op(&L, TP_WARP_ID, no_loc, NULL, 0, &i32, 1)->results[0];
	L.top = L.f->body->nops;
	lw_block(&L, tf->entry);
	place_consts(&L);
	TpBlock *b = L.f->body;
	if (!b->nops || b->ops[b->nops - 1]->kind != TP_RETURN)
		lw_op(&L, TP_RETURN, no_loc, NULL, 0, NULL, 0);
	L.f->smem_bytes = MAXOF(tf->smem_bytes, MAXOF(tf->smem_reserved + L.smem_top_pipelined,
	                                               L.smem_top));
	remove_dead_code(L.f);
	/* for the native CPU only: NVVM hoists and merges these itself, and done
	 * here they lengthened live ranges ptxas then spilled (a 128x256x64 fp16
	 * matmul over 8 warps: 2504 -> 3240 bytes); cuda-emu runs exactly the
	 * GPU's thread program */
	if (t->kind == TARGET_CPU && !t->emulate)
		tp_cse_hoist(L.f);
	tp_sink_barriers(L.f);
	tp_sink_smem_loads(L.f);
	if (!(o && o->no_mma_prefetch)) {
		tp_prefetch_dot_operands(L.f);
		if (L.f->prefetched) /* the moved loads' address ops, now unused */
			remove_dead_code(L.f);
	}
	tp_drop_barriers(L.f);
	if (!lw_simd_program(&L))
		coords_as_adds_when_many(L.f);
	tp_verify(L.f);
	return L.f;
}

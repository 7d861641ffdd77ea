/* lower_reduce.c: reduce along one axis (tl.reduce, tl.sum, tl.max, tl.argmax, ...).
 *
 * Layout requirements (checked; the layout pass's blocked, slice and MMA
 * layouts meet them): every pivot basis moves either only along the axis or
 * not along it at all, and free lane/warp bits have zero bases (plain copies).
 *
 * REDUCE (n operands, the combine region inlined per pair):
 *   1. in each thread, canonical registers with the same off-axis coordinates
 *      ("key") are combined by a balanced pairwise tree over
 *      increasing axis order (adjacent partials, lower coordinate on the
 *      left), log2 deep instead of one serial chain;
 *   2. across lanes, a SHFL_XOR butterfly over each lane bit along the axis;
 *      the lane whose bit is clear is always the left operand, so every
 *      thread computes the same value, even for non-commutative combines;
 *   3. across warps: one writer per (key, warp group) stores its partial to
 *      shared memory, BARRIER, every thread combines the partials of its keys
 *      in warp order, BARRIER. Where the warps are one SIMD vector (the
 *      native CPU), a WARP_XOR butterfly as across lanes instead.
 *   The result layout is ll_slice(L, axis): result registers are matched to
 *   keys by coordinates. A 1-D reduce yields a scalar held by every thread.
 *   A non-commutative combine keeps its order where the layout's register
 *   axis bits lie below its lane axis bits and those below its warp axis
 *   bits (blocked layouts without repetitions); Triton, like tile, asks
 *   tl.reduce's combine to be commutative.
 *
 *
 * Scans are in lower_scan.c; the state both share is lower_red.h.
 */
#include "codegen/lower_red.h"

#include <string.h>


/* Triton's _argmax_combine(v1, i1, v2, i2, tie_break_left) is
 * gt = v1 > v2 or (v1 == v2 and i1 < i2), then where(gt, v1, v2) and
 * where(gt, i1, i2). Where every i1 is known to be below every i2 (R->ordered),
 * gt is v1 >= v2: equal in every case, NaN included (both false); without
 * tie_break_left it is v1 > v2. One compare and two selects instead of the
 * region's seven ops (argmin: <= and <). */
static bool arg_combine(Red *R, const TpVal *a, const TpVal *b, TpVal *out)
{
	if (!R->arg || (R->tie_left && !R->ordered))
		return false;
	bool max = R->arg == TIR_ARGMAX;
	TirPred p = R->tie_left ? (max ? PRED_GE : PRED_LE) : (max ? PRED_GT : PRED_LT);
	TpVal keep = lw_cmp(R->L, p, a[0], b[0]);
	out[0] = lw_select(R->L, keep, a[0], b[0]);
	out[1] = lw_select(R->L, keep, a[1], b[1]);
	return true;
}

void red_combine(Red *R, const TpVal *a, const TpVal *b, TpVal *out)
{
	if (arg_combine(R, a, b, out))
		return;
	TpVal args[16];
	for (int i = 0; i < R->n; i++) {
		args[i] = a[i];
		args[R->n + i] = b[i];
	}
	lw_inline_region(R->L, R->region, args, 2 * R->n, out);
}

static bool is_commutative(const TirBlock *b, int n)
{
	if (n != 1 || b->nops != 2 || b->ops[1]->kind != TOP_YIELD)
		return false;
	const TirOp *op = b->ops[0];
	switch ((TirOpKind)op->kind) {
	case TOP_ADD:
	case TOP_MUL:
	case TOP_MIN:
	case TOP_MAX:
	case TOP_AND:
	case TOP_OR:
	case TOP_XOR: break;
	default: return false;
	}
	return op->nin == 2 && b->ops[1]->operands[0] == op->results[0] &&
	       ((op->operands[0] == b->args[0] && op->operands[1] == b->args[1]) ||
	        (op->operands[0] == b->args[1] && op->operands[1] == b->args[0]));
}

static bool basis_pure(const LinearLayout *l, const int32_t *c, int axis, bool *along)
{
	bool on = c[axis] != 0, off = false;
	for (int d = 0; d < l->n_out; d++)
		if (d != axis && c[d])
			off = true;
	*along = on;
	return !(on && off);
}

/* Classifies the bits; ice on a layout the algorithms cannot handle. */
static void classify(Red *R, const char *what)
{
	const LinearLayout *l = R->l;
	lw_free(R->L, l, &R->rf, &R->lf, &R->wf);
	R->lane_a = R->warp_a = 0;
	for (int k = 0; k < 3; k++) {
		LLInDim kind = k == 0 ? LL_REG : k == 1 ? LL_LANE : LL_WARP;
		uint32_t fm = k == 0 ? R->rf : k == 1 ? R->lf : R->wf;
		for (int b = 0; b < lw_bits(l, kind); b++) {
			bool along;
			if ((fm >> b) & 1) {
				if (k && !lw_basis_zero(l, kind, b))
					lw_ice("%s: lane/warp bit %d of the layout is a "
					       "non-trivial copy",
					       what, b);
				continue;
			}
			if (!basis_pure(l, lw_basis(l, kind, b), R->axis, &along))
				lw_ice("%s: a layout basis moves along the axis and across it",
				       what);
			if (along && k == 1)
				R->lane_a |= 1u << b;
			if (along && k == 2)
				R->warp_a |= 1u << b;
		}
	}
}

void red_init(Red *R, Lower *L, const TirOp *op, const char *what)
{
	memset(R, 0, sizeof *R);
	R->L = L;
	R->op = op;
	R->n = op->nin;
	R->axis = op->attr.axis;
	if (op->nregions < 1)
		lw_ice("%s without a combine region", what);
	R->region = &op->regions[0];
	if (R->n < 1 || R->n > 8)
		lw_ice("%s: %d operands", what, R->n);
	R->l = lw_layout(L, op->operands[0]);
	if (!R->l)
		lw_ice("%s of a scalar", what);
	for (int i = 0; i < R->n; i++) {
		const LinearLayout *li = lw_layout(L, op->operands[i]);
		if (li != R->l && !ll_equal(li, R->l))
			lw_ice("%s: operands have different layouts", what);
		R->et[i] = lw_elem_type(L, op->operands[i]);
	}
	R->commutative = is_commutative(R->region, R->n);
	classify(R, what);
}

/* Off-axis coordinates of register r at lane = warp = 0. */
static void key_of(const Red *R, int r, int32_t *key)
{
	ll_apply_hw(R->l, (uint32_t)r, 0, 0, key);
	key[R->axis] = 0;
}

static int32_t along_of(const Red *R, int r)
{
	int32_t c[LL_MAX_OUT];
	ll_apply_hw(R->l, (uint32_t)r, 0, 0, c);
	return c[R->axis];
}

/* ---- reduce --------------------------------------------------------------------------- */

typedef struct Group {
	int32_t key[LL_MAX_OUT];
	int rep; /* a register of the group */
	TpVal acc[8];
} Group;

static int in_thread(Red *R, LVal *in, Group *groups)
{
	Lower *L = R->L;
	int nr = 1 << lw_bits(R->l, LL_REG), ng = 0;
	int *order = ARENA_NEWN(L->arena, int, nr);
	for (int r = 0; r < nr; r++) {
		if (r & (int)R->rf)
			continue;
		int32_t k[LL_MAX_OUT];
		key_of(R, r, k);
		int g = 0;
		while (g < ng && memcmp(groups[g].key, k, sizeof k))
			g++;
		if (g < ng)
			continue;
		memcpy(groups[ng].key, k, sizeof k);
		groups[ng].rep = r;
		/* members of this key, by increasing axis coordinate */
		int nm = 0;
		for (int q = r; q < nr; q++) {
			if (q & (int)R->rf)
				continue;
			int32_t kq[LL_MAX_OUT];
			key_of(R, q, kq);
			if (memcmp(kq, k, sizeof k))
				continue;
			int pos = nm++;
			while (pos > 0 && along_of(R, order[pos - 1]) > along_of(R, q)) {
				order[pos] = order[pos - 1];
				pos--;
			}
			order[pos] = q;
		}
		/* balanced pairwise tree over the sorted members: each level
		 * combines adjacent partials (2p, 2p+1), the lower-coordinate one
		 * as the left operand; an odd last partial moves up unchanged. The
		 * dependency chain is ceil(log2(nm)) deep, every partial covers a
		 * contiguous run of axis coordinates, so with an associative
		 * combine the result equals the left-to-right fold, also for
		 * non-commutative combines. */
		TpVal(*part)[8] = arena_alloc(L->arena, sizeof *part * (size_t)nm);
		for (int m = 0; m < nm; m++)
			for (int i = 0; i < R->n; i++)
				part[m][i] = in[i].r[order[m]];
		/* argmax: a register's index is the first member's plus a constant
		 * (its axis coordinate's register part, the rest shared), so the
		 * tree selects constants and adds the first member's index once */
		bool rel = R->arg && R->regs_apart && nm > 1;
		for (int m = 0; rel && m < nm; m++)
			part[m][1] = lw_i32(L, along_of(R, order[m]) - along_of(R, order[0]));
		R->ordered = R->regs_apart;
		for (int cnt = nm; cnt > 1; cnt = (cnt + 1) / 2) {
			for (int p = 0; 2 * p < cnt; p++) {
				if (2 * p + 1 < cnt)
					red_combine(R, part[2 * p], part[2 * p + 1], part[p]);
				else /* p > 0 here: cnt > 1 */
					memcpy(part[p], part[2 * p], sizeof part[p]);
			}
		}
		if (rel)
			part[0][1] = lw_bin(L, TP_ADD, in[1].r[order[0]], part[0][1]);
		for (int i = 0; i < R->n; i++)
			groups[ng].acc[i] = part[0][i];
		ng++;
	}
	return ng;
}

/* argmax across threads: whether to keep mine, without putting the operands
 * in order first (four selects). mine is the second operand where `second`.
 * The first one is kept where f >= s (ordered, tie_break_left) or f > s
 * (no tie_break_left), so mine where m >= o, or where !(o >= m) when it is the
 * second (NaN: the second is kept). Integers have no NaN and partners no
 * common index, so with tie_break_left Triton's combine is symmetric there. */
static bool arg_combine_ordered(Red *R, const TpVal *m, const TpVal *o, TpVal second, TpVal *out)
{
	if (!R->arg || !second)
		return false;
	Lower *L = R->L;
	bool max = R->arg == TIR_ARGMAX, isint = !dtype_is_float((DType)R->et[0].dt);
	TirPred strict = max ? PRED_GT : PRED_LT, loose = max ? PRED_GE : PRED_LE;
	TpVal keep;
	if (!R->tie_left || R->ordered) {
		TirPred p = R->tie_left ? loose : strict;
		TpVal a = lw_cmp(L, p, m[0], o[0]); /* mine is the first */
		TpVal b = isint ? lw_cmp(L, p == loose ? strict : loose, m[0], o[0])
		                : lw_bin(L, TP_XOR, lw_cmp(L, p, o[0], m[0]), lw_true(L));
		keep = lw_select(L, second, b, a);
	} else if (isint) {
		TpVal tie = lw_bin(L, TP_AND, lw_cmp(L, PRED_EQ, m[0], o[0]), lw_cmp(L, PRED_LT, m[1], o[1]));
		keep = lw_bin(L, TP_OR, lw_cmp(L, strict, m[0], o[0]), tie);
	} else {
		return false;
	}
	out[0] = lw_select(L, keep, m[0], o[0]);
	out[1] = lw_select(L, keep, m[1], o[1]);
	return true;
}

/* Combine a and its partner's b with the operand whose `sel` is false first. */
void red_combine_ordered(Red *R, const TpVal *mine, const TpVal *other, TpVal sel_second,
                            TpVal *out)
{
	if (arg_combine_ordered(R, mine, other, sel_second, out))
		return;
	if (R->commutative || !sel_second) {
		red_combine(R, mine, other, out);
		return;
	}
	TpVal first[8], second[8];
	for (int i = 0; i < R->n; i++) {
		first[i] = lw_select(R->L, sel_second, other[i], mine[i]);
		second[i] = lw_select(R->L, sel_second, mine[i], other[i]);
	}
	red_combine(R, first, second, out);
}

TpVal red_bit_set(Lower *L, TpVal id, int b)
{
	TpVal t = lw_bin(L, TP_AND, id, lw_i32(L, 1 << b));
	return lw_cmp(L, PRED_NE, t, lw_i32(L, 0));
}

/* The butterfly over the lane (or warp) bits in `along`: the thread whose bit
 * is clear is always the left operand, so every thread computes the same
 * value, even for non-commutative combines. */
static void butterfly(Red *R, Group *g, int ng, TpOpKind xchg, TpVal id, int nbits, uint32_t along)
{
	Lower *L = R->L;
	for (int b = 0; b < nbits; b++) {
		if (!((along >> b) & 1))
			continue;
		TpVal second = R->commutative ? 0 : red_bit_set(L, id, b);
		for (int k = 0; k < ng; k++) {
			TpVal other[8];
			for (int i = 0; i < R->n; i++) {
				TpOp *t = lw_op(L, xchg, R->op->loc, &g[k].acc[i], 1, &R->et[i], 1);
				t->attr.i = 1 << b;
				other[i] = t->results[0];
			}
			red_combine_ordered(R, g[k].acc, other, second, g[k].acc);
		}
	}
}

static void across_lanes(Red *R, Group *g, int ng)
{
	R->ordered = R->lanes_ordered;
	butterfly(R, g, ng, TP_SHFL_XOR, R->L->lane, R->L->lane_bits, R->lane_a);
}

/* Row-major index of a key over the dims other than the axis (i32). */
static TpVal key_flat(Red *R, int rep)
{
	Lower *L = R->L;
	TpVal acc = 0;
	int shift = 0;
	for (int d = R->l->n_out - 1; d >= 0; d--) {
		if (d == R->axis || !R->l->out_bits[d])
			continue;
		TpVal c = lw_coord(L, R->l, rep, d);
		if (shift)
			c = lw_bin(L, TP_SHL, c, lw_i32(L, shift));
		acc = acc ? lw_bin(L, TP_OR, acc, c) : c;
		shift += R->l->out_bits[d];
	}
	return acc ? acc : lw_i32(L, 0);
}

static void across_warps(Red *R, Group *g, int ng)
{
	Lower *L = R->L;
	const LinearLayout *l = R->l;
	R->ordered = R->warps_ordered;
	if (lw_simd_program(L)) {
		butterfly(R, g, ng, TP_WARP_XOR, L->warp, lw_bits(l, LL_WARP), R->warp_a);
		return;
	}
	int G = 1, nwa = 0;
	int32_t wimg[LL_MAX_BITS] = {0};
	for (int b = 0; b < lw_bits(l, LL_WARP); b++)
		if ((R->warp_a >> b) & 1)
			wimg[b] = 1 << nwa++;
	G <<= nwa;
	int keys = 1;
	for (int d = 0; d < l->n_out; d++)
		if (d != R->axis)
			keys <<= l->out_bits[d];
	int base[8], total = 0;
	for (int i = 0; i < R->n; i++) {
		int eb = MAXOF(1, dtype_bytes((DType)R->et[i].dt));
		total = (total + eb - 1) / eb * eb;
		base[i] = total;
		total += keys * G * eb;
	}
	int b0 = lw_scratch(L, R->op, total);
	TpVal widx = lw_linear_lane_warp(L, NULL, 0, wimg, lw_bits(l, LL_WARP));
	TpVal wr = lw_owner_pred(L, R->lf | R->lane_a, R->wf);
	if (!wr)
		wr = lw_true(L);
	TpVal *slot = ARENA_NEWN(L->arena, TpVal, ng);
	for (int k = 0; k < ng; k++) {
		slot[k] = lw_bin(L, TP_MUL, key_flat(R, g[k].rep), lw_i32(L, G));
		TpVal s = lw_bin(L, TP_ADD, slot[k], widx);
		for (int i = 0; i < R->n; i++) {
			int eb = MAXOF(1, dtype_bytes((DType)R->et[i].dt));
			TpVal off = lw_bin(L, TP_ADD, lw_bin(L, TP_MUL, s, lw_i32(L, eb)),
			                   lw_i32(L, b0 + base[i]));
			TpVal in[3] = {off, wr, g[k].acc[i]};
			lw_op(L, TP_SMEM_STORE, R->op->loc, in, 3, NULL, 0)->attr.i = 1;
		}
	}
	lw_barrier(L);
	for (int k = 0; k < ng; k++) {
		TpVal acc[8];
		for (int w = 0; w < G; w++) {
			TpVal x[8];
			for (int i = 0; i < R->n; i++) {
				int eb = MAXOF(1, dtype_bytes((DType)R->et[i].dt));
				TpVal s = lw_bin(L, TP_ADD, slot[k], lw_i32(L, w));
				TpVal in[2] = {lw_bin(L, TP_ADD,
				                      lw_bin(L, TP_MUL, s, lw_i32(L, eb)),
				                      lw_i32(L, b0 + base[i])),
				               lw_true(L)};
				TpOp *t = lw_op(L, TP_SMEM_LOAD, R->op->loc, in, 2, &R->et[i], 1);
				t->attr.i = 1;
				x[i] = t->results[0];
			}
			if (w == 0)
				memcpy(acc, x, sizeof(TpVal) * (size_t)R->n);
			else
				red_combine(R, acc, x, acc);
		}
		memcpy(g[k].acc, acc, sizeof(TpVal) * (size_t)R->n);
	}
	lw_barrier(L);
}

static void reduce_results(Red *R, Group *g, int ng)
{
	Lower *L = R->L;
	const TirOp *op = R->op;
	const LinearLayout *s = lw_layout(L, op->results[0]);
	if (!s) {
		if (ng != 1)
			lw_ice("reduce to a scalar left %d partial results", ng);
		for (int i = 0; i < R->n; i++) {
			LVal x = lw_alloc(L, 1);
			x.r[0] = g[0].acc[i];
			lw_set(L, op->results[i], x);
		}
		return;
	}
	/* the result's lane/warp bases must be the operand's without the axis */
	for (int k = 1; k < 3; k++) {
		LLInDim kind = k == 1 ? LL_LANE : LL_WARP;
		int nb = MAXOF(lw_bits(s, kind), lw_bits(R->l, kind));
		for (int b = 0; b < nb; b++) {
			int32_t want[LL_MAX_OUT] = {0}, have[LL_MAX_OUT] = {0};
			if (b < lw_bits(R->l, kind))
				for (int d = 0, j = 0; d < R->l->n_out; d++)
					if (d != R->axis)
						want[j++] = lw_basis(R->l, kind, b)[d];
			if (b < lw_bits(s, kind))
				memcpy(have, lw_basis(s, kind, b), sizeof(int32_t) * s->n_out);
			if (memcmp(want, have, sizeof want))
				lw_ice("reduce: result layout is not the slice of the operand "
				       "layout");
		}
	}
	int nr = 1 << lw_bits(s, LL_REG);
	LVal x[8];
	for (int i = 0; i < R->n; i++)
		x[i] = lw_alloc(L, nr);
	for (int r = 0; r < nr; r++) {
		int32_t c[LL_MAX_OUT], key[LL_MAX_OUT] = {0};
		ll_apply_hw(s, (uint32_t)r, 0, 0, c);
		for (int d = 0, j = 0; d < R->l->n_out; d++)
			key[d] = d == R->axis ? 0 : c[j++];
		int k = 0;
		while (k < ng && memcmp(g[k].key, key, sizeof key))
			k++;
		if (k == ng)
			lw_ice("reduce: result register %d has no partial result", r);
		for (int i = 0; i < R->n; i++)
			x[i].r[r] = g[k].acc[i];
	}
	for (int i = 0; i < R->n; i++)
		lw_set(L, op->results[i], x[i]);
}

/* ---- one-hot gather --------------------------------------------------------------------- */

/* A sum along the axis of where(I == K, V, 0) with integer elements, where
 * K is arange(0, n) along the axis and I does not vary along it, picks V at
 * axis coordinate I (0 when I is outside [0, n)): tl.gather's one-hot form,
 * n times the work of the gather itself (a 512-row gather: 512 x 512
 * compares, selects and adds, seconds of C/LLVM compile time). When V is a
 * broadcast of a tile S, S goes to shared memory and each result element is
 * one load of S at its coordinates with the axis one replaced by I. */

static const TirOp *def_of(Lower *L, ValId v)
{
	return L->tf->vals.data[v].def;
}

static Type type_of(Lower *L, ValId v)
{
	return L->tf->vals.data[v].ty;
}

/* v is the constant 0 (through splat, broadcast, expand_dims) */
static bool is_zero(Lower *L, ValId v)
{
	for (int depth = 0; depth < 16; depth++) {
		const TirOp *d = def_of(L, v);
		if (!d)
			return false;
		switch ((TirOpKind)d->kind) {
		case TOP_CONST: return d->attr.i == 0 && dtype_is_int((DType)type_of(L, v).dt);
		case TOP_SPLAT:
		case TOP_BROADCAST:
		case TOP_EXPAND_DIMS:
		case TOP_CONVERT_LAYOUT: v = d->operands[0]; break;
		default: return false;
		}
	}
	return false;
}

/* v[..., c_dim, ...] == c_dim for every element: arange(0, n) placed along
 * dim by expand_dims and broadcast, through widening integer casts. */
static bool is_axis_iota(Lower *L, ValId v, int dim)
{
	for (int depth = 0; depth < 16; depth++) {
		const TirOp *d = def_of(L, v);
		Type t = type_of(L, v);
		if (!d || !dtype_is_int((DType)t.dt))
			return false;
		switch ((TirOpKind)d->kind) {
		case TOP_ARANGE: return dim == 0 && d->attr.i == 0 && t.rank == 1;
		case TOP_CONVERT_LAYOUT: v = d->operands[0]; break;
		case TOP_CAST: {
			Type from = type_of(L, d->operands[0]);
			if (!dtype_is_int((DType)from.dt) || dtype_bits((DType)t.dt) < 32 ||
			    dtype_bits((DType)t.dt) < dtype_bits((DType)from.dt))
				return false;
			v = d->operands[0];
			break;
		}
		case TOP_BROADCAST: {
			Type st = type_of(L, d->operands[0]);
			if (st.rank != t.rank || st.shape[dim] != t.shape[dim])
				return false;
			v = d->operands[0];
			break;
		}
		case TOP_EXPAND_DIMS:
			if (dim == d->attr.axis)
				return false;
			dim = dim > d->attr.axis ? dim - 1 : dim;
			v = d->operands[0];
			break;
		default: return false;
		}
	}
	return false;
}

typedef struct OneHot {
	ValId index; /* I, in the operand's layout */
	ValId src;   /* S: V = broadcast(S) */
	int64_t n;   /* size of the axis */
} OneHot;

static bool match_one_hot(Red *R, OneHot *m)
{
	Lower *L = R->L;
	const TirOp *op = R->op;
	const TirBlock *b = R->region;
	if (R->n != 1 || !R->commutative || b->ops[0]->kind != TOP_ADD ||
	    !dtype_is_int((DType)R->et[0].dt) || dtype_bits((DType)R->et[0].dt) < 8)
		return false;
	ValId x = op->operands[0];
	Type xt = type_of(L, x);
	const TirOp *sel = def_of(L, x);
	if (!sel || sel->kind != TOP_SELECT || !is_zero(L, sel->operands[2]))
		return false;
	const TirOp *eq = def_of(L, sel->operands[0]);
	const TirOp *bc = def_of(L, sel->operands[1]);
	if (!eq || eq->kind != TOP_CMP || eq->attr.pred != PRED_EQ || !bc ||
	    bc->kind != TOP_BROADCAST)
		return false;
	Type st = type_of(L, bc->operands[0]);
	if (st.rank != xt.rank || !lw_layout(L, bc->operands[0]))
		return false;
	for (int k = 0; k < 2; k++) {
		ValId i = eq->operands[k], a = eq->operands[1 - k];
		if (!is_axis_iota(L, a, R->axis) || lw_stride_along(L->tf, i, R->axis) != 0)
			continue;
		const LinearLayout *li = lw_layout(L, i);
		if (!li || (li != R->l && !ll_equal(li, R->l)))
			return false;
		m->index = i;
		m->src = bc->operands[0];
		m->n = xt.shape[R->axis];
		/* S in shared memory must not grow the kernel's past what it
		 * already needs or 32 KB */
		int64_t bytes = type_numel(st) * dtype_bytes((DType)R->et[0].dt);
		return lw_scratch_base(L) + bytes <=
		       MAXOF(L->tf->smem_bytes, 32768);
	}
	return false;
}

/* Row-major element offset (i32) into S of register r of layout l, whose
 * dims match S's; the axis coordinate is `along` when given. Dims where S
 * has size 1 contribute nothing. */
static TpVal src_offset(Lower *L, Type st, const LinearLayout *l, int r, int axis, TpVal along)
{
	TpVal off = 0;
	int64_t stride = 1;
	for (int d = st.rank - 1; d >= 0; d--) {
		if (st.shape[d] > 1) {
			TpVal c = d == axis && along ? along : lw_coord(L, l, r, d);
			if (stride > 1)
				c = lw_bin(L, TP_MUL, c, lw_i32(L, stride));
			off = off ? lw_bin(L, TP_ADD, off, c) : c;
		}
		stride *= st.shape[d];
	}
	return off ? off : lw_i32(L, 0);
}

TpVal red_byte_off(Lower *L, TpVal elem, int eb, int base)
{
	return lw_bin(L, TP_ADD, lw_bin(L, TP_MUL, elem, lw_i32(L, eb)), lw_i32(L, base));
}

static bool lower_one_hot(Red *R)
{
	OneHot m;
	if (!match_one_hot(R, &m))
		return false;
	Lower *L = R->L;
	const TirOp *op = R->op;
	Type et = R->et[0], st = type_of(L, m.src);
	int eb = dtype_bytes((DType)et.dt);
	int base = lw_scratch(L, op, (int)(type_numel(st) * eb));
	/* S -> shared memory, row-major, one writer per element; stored as the
	 * tile it was expanded from (same row-major offsets), not as S, whose
	 * layout may hold copies in every thread */
	ValId from = m.src;
	for (const TirOp *d = def_of(L, from);
	     d && (d->kind == TOP_EXPAND_DIMS || d->kind == TOP_CONVERT_LAYOUT) &&
	     lw_layout(L, d->operands[0]);
	     d = def_of(L, from))
		from = d->operands[0];
	Type ft = type_of(L, from);
	const LinearLayout *ls = lw_layout(L, from);
	LVal sv = lw_get(L, from);
	uint32_t rf, lf, wf;
	lw_free(L, ls, &rf, &lf, &wf);
	TpVal wr = lw_owner_pred(L, lf, wf);
	if (!wr)
		wr = lw_true(L);
	for (int r = 0; r < sv.n; r++) {
		if (r & (int)rf)
			continue;
		TpVal in[3] = {red_byte_off(L, src_offset(L, ft, ls, r, -1, 0), eb, base), wr, sv.r[r]};
		lw_op(L, TP_SMEM_STORE, op->loc, in, 3, NULL, 0)->attr.i = 1;
	}
	lw_barrier(L);
	/* one load per key: S at the key's coordinates, axis coordinate I */
	LVal iv = lw_get(L, m.index);
	Type it = lw_elem_type(L, m.index);
	DType idt = (DType)it.dt;
	int nr = 1 << lw_bits(R->l, LL_REG), ng = 0;
	Group *g = ARENA_NEWN(L->arena, Group, nr);
	for (int r = 0; r < nr; r++) {
		if (r & (int)R->rf)
			continue;
		int32_t k[LL_MAX_OUT];
		key_of(R, r, k);
		int q = 0;
		while (q < ng && memcmp(g[q].key, k, sizeof k))
			q++;
		if (q < ng)
			continue;
		memcpy(g[ng].key, k, sizeof k);
		g[ng].rep = r;
		TpVal i = iv.r[r];
		TpVal ok = lw_cmp(L, PRED_LT, i, lw_const_i(L, idt, m.n));
		if (dtype_is_signed(idt))
			ok = lw_and1(L, ok, lw_cmp(L, PRED_GE, i, lw_const_i(L, idt, 0)));
		TpVal at = lw_select(L, ok, lw_cast(L, i, type_scalar(DT_I32)), lw_i32(L, 0));
		TpVal in[2] = {red_byte_off(L, src_offset(L, st, R->l, r, R->axis, at), eb, base),
		               lw_true(L)};
		TpOp *t = lw_op(L, TP_SMEM_LOAD, op->loc, in, 2, &et, 1);
		t->attr.i = 1;
		g[ng].acc[0] = lw_select(L, ok, t->results[0], lw_const_i(L, (DType)et.dt, 0));
		ng++;
	}
	lw_barrier(L);
	reduce_results(R, g, ng);
	return true;
}

/* The axis coordinates the bits of kind (along the axis, not free) add, OR'd;
 * *chain: each is a power of two above all of `below` and the ones before it,
 * so a step over such a bit has the lower coordinates on the side whose bit
 * is clear. */
static uint32_t axis_bits(const Red *R, LLInDim kind, uint32_t below, bool *chain)
{
	uint32_t free = kind == LL_REG ? R->rf : kind == LL_LANE ? R->lf : R->wf, all = 0;
	*chain = true;
	for (int b = 0; b < lw_bits(R->l, kind); b++) {
		uint32_t c = (free >> b) & 1 ? 0u : (uint32_t)lw_basis(R->l, kind, b)[R->axis];
		if (!c)
			continue;
		*chain &= (c & (c - 1)) == 0 && c > (below | all);
		all |= c;
	}
	return all;
}

/* Whether op is a tl.argmax / tl.argmin whose index operand is the axis iota,
 * and which of its combine steps are ordered (arg_combine). */
static void arg_setup(Red *R)
{
	int f = R->op->attr.flags;
	if (!(f & (TIR_ARGMAX | TIR_ARGMIN)) || R->n != 2 || R->et[1].dt != DT_I32 ||
	    !is_axis_iota(R->L, R->op->operands[1], R->axis))
		return;
	bool unused, lchain, wchain;
	uint32_t regs = axis_bits(R, LL_REG, 0, &unused);
	uint32_t lanes = axis_bits(R, LL_LANE, regs, &lchain);
	uint32_t warps = axis_bits(R, LL_WARP, regs | lanes, &wchain);
	R->arg = f & TIR_ARGMAX ? TIR_ARGMAX : TIR_ARGMIN;
	R->tie_left = f & TIR_TIE_LEFT;
	R->regs_apart = !(regs & (lanes | warps));
	R->lanes_ordered = R->regs_apart && lchain && !(warps & (regs | lanes));
	R->warps_ordered = R->regs_apart && wchain && !(lanes & regs);
}

static void lower_reduce_op(Lower *L, const TirOp *op)
{
	Red R;
	red_init(&R, L, op, "reduce");
	if (lower_one_hot(&R))
		return;
	arg_setup(&R);
	LVal in[8];
	for (int i = 0; i < R.n; i++)
		in[i] = lw_get(L, op->operands[i]);
	Group *g = ARENA_NEWN(L->arena, Group, in[0].n);
	int ng = in_thread(&R, in, g);
	across_lanes(&R, g, ng);
	if (R.warp_a)
		across_warps(&R, g, ng);
	reduce_results(&R, g, ng);
}

bool lw_reduce(Lower *L, const TirOp *op)
{
	switch ((TirOpKind)op->kind) {
	case TOP_REDUCE: lower_reduce_op(L, op); return true;
	case TOP_SCAN: lw_scan_op(L, op); return true;
	default: return false;
	}
}

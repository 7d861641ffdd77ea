/* lower_reduce.c: reduce and scan along one axis.
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
 *      in warp order, BARRIER.
 *   The result layout is ll_slice(L, axis): result registers are matched to
 *   keys by coordinates. A 1-D reduce yields a scalar held by every thread.
 *
 * SCAN: every axis coordinate bit belongs to one register, lane or warp bit
 * (bases along the axis are single powers of two). A block-doubling scan runs
 * over those bits from the lowest: for the coordinate bit j, every element
 * keeps P (inclusive prefix within its aligned 2^j block) and T (the block's
 * total); merging the two halves gives the upper half P = T_lower (+) P and
 * both T = T_lower (+) T_upper. The partner is another register (bit owned by
 * a register), SHFL_XOR (lane), or shared memory (warp). The lowest run of
 * register-owned bits is a plain sequential scan. Operand order is always
 * left-to-right, so non-commutative combines are exact; TIR_REVERSE swaps
 * which half comes first.
 */
#include "codegen/lower_internal.h"

#include <string.h>

typedef struct Red {
	Lower *L;
	const TirOp *op;
	const TirBlock *region;
	int n; /* operands */
	int axis;
	const LinearLayout *l;
	uint32_t rf, lf, wf;
	uint32_t lane_a, warp_a; /* lane / warp bits along the axis */
	Type et[8];
	bool commutative;
} Red;

static void combine(Red *R, const TpVal *a, const TpVal *b, TpVal *out)
{
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

static void red_init(Red *R, Lower *L, const TirOp *op, const char *what)
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
		for (int cnt = nm; cnt > 1; cnt = (cnt + 1) / 2) {
			for (int p = 0; 2 * p < cnt; p++) {
				if (2 * p + 1 < cnt)
					combine(R, part[2 * p], part[2 * p + 1], part[p]);
				else /* p > 0 here: cnt > 1 */
					memcpy(part[p], part[2 * p], sizeof part[p]);
			}
		}
		for (int i = 0; i < R->n; i++)
			groups[ng].acc[i] = part[0][i];
		ng++;
	}
	return ng;
}

/* Combine a and its partner's b with the operand whose `sel` is false first. */
static void combine_ordered(Red *R, const TpVal *mine, const TpVal *other, TpVal sel_second,
                            TpVal *out)
{
	if (R->commutative || !sel_second) {
		combine(R, mine, other, out);
		return;
	}
	TpVal first[8], second[8];
	for (int i = 0; i < R->n; i++) {
		first[i] = lw_select(R->L, sel_second, other[i], mine[i]);
		second[i] = lw_select(R->L, sel_second, mine[i], other[i]);
	}
	combine(R, first, second, out);
}

static TpVal bit_set(Lower *L, TpVal id, int b)
{
	TpVal t = lw_bin(L, TP_AND, id, lw_i32(L, 1 << b));
	return lw_cmp(L, PRED_NE, t, lw_i32(L, 0));
}

static void across_lanes(Red *R, Group *g, int ng)
{
	Lower *L = R->L;
	for (int b = 0; b < L->lane_bits; b++) {
		if (!((R->lane_a >> b) & 1))
			continue;
		TpVal second = R->commutative ? 0 : bit_set(L, L->lane, b);
		for (int k = 0; k < ng; k++) {
			TpVal other[8];
			for (int i = 0; i < R->n; i++) {
				TpOp *t = lw_op(L, TP_SHFL_XOR, R->op->loc, &g[k].acc[i], 1,
				                &R->et[i], 1);
				t->attr.i = 1 << b;
				other[i] = t->results[0];
			}
			combine_ordered(R, g[k].acc, other, second, g[k].acc);
		}
	}
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
				combine(R, acc, x, acc);
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

static void lower_reduce_op(Lower *L, const TirOp *op)
{
	Red R;
	red_init(&R, L, op, "reduce");
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

/* ---- scan ------------------------------------------------------------------------------ */

typedef struct Owner {
	int kind; /* 0 reg, 1 lane, 2 warp */
	int bit;
} Owner;

static void scan_owners(Red *R, Owner *own, int nbits)
{
	for (int j = 0; j < nbits; j++)
		own[j].kind = -1;
	for (int k = 0; k < 3; k++) {
		LLInDim kind = k == 0 ? LL_REG : k == 1 ? LL_LANE : LL_WARP;
		uint32_t fm = k == 0 ? R->rf : k == 1 ? R->lf : R->wf;
		for (int b = 0; b < lw_bits(R->l, kind); b++) {
			int32_t c = lw_basis(R->l, kind, b)[R->axis];
			if (((fm >> b) & 1) || !c)
				continue;
			if (c & (c - 1))
				lw_ice("scan: a layout basis along the axis is not a power of two");
			int j = 0;
			while ((1 << j) != c)
				j++;
			if (j >= nbits || own[j].kind >= 0)
				lw_ice("scan: axis coordinate bit %d owned twice", j);
			own[j].kind = k;
			own[j].bit = b;
		}
	}
	for (int j = 0; j < nbits; j++)
		if (own[j].kind < 0)
			lw_ice("scan: axis coordinate bit %d is not held by any thread", j);
}

typedef struct ScanSt {
	TpVal *P[8], *T[8]; /* per operand, per register */
} ScanSt;

/* Merge step for one element: `second` (i1 or constant) says whether this
 * element is in the later half; pT = the partner half's total. */
static void merge(Red *R, ScanSt *S, int r, const TpVal *pT, TpVal second_v, int second_c)
{
	TpVal mineT[8], mineP[8], nT[8], nP[8];
	for (int i = 0; i < R->n; i++) {
		mineT[i] = S->T[i][r];
		mineP[i] = S->P[i][r];
	}
	if (!second_v) {
		if (second_c) {
			combine(R, pT, mineP, nP);
			combine(R, pT, mineT, nT);
		} else {
			memcpy(nP, mineP, sizeof(TpVal) * (size_t)R->n);
			combine(R, mineT, pT, nT);
		}
	} else {
		TpVal withP[8];
		combine(R, pT, mineP, withP);
		combine_ordered(R, mineT, pT, second_v, nT);
		for (int i = 0; i < R->n; i++)
			nP[i] = lw_select(R->L, second_v, withP[i], mineP[i]);
	}
	for (int i = 0; i < R->n; i++) {
		S->T[i][r] = nT[i];
		S->P[i][r] = nP[i];
	}
}

static void scan_low_run(Red *R, ScanSt *S, LVal *in, const Owner *own, int j0, bool rev)
{
	int nr = 1 << lw_bits(R->l, LL_REG);
	uint32_t lowmask = 0;
	for (int j = 0; j < j0; j++)
		lowmask |= 1u << own[j].bit;
	int blk = 1 << j0;
	int *mem = ARENA_NEWN(R->L->arena, int, blk);
	for (int r = 0; r < nr; r++) {
		if ((r & (int)R->rf) || (r & (int)lowmask))
			continue;
		for (int t = 0; t < blk; t++) {
			int q = r;
			for (int j = 0; j < j0; j++)
				if ((t >> j) & 1)
					q |= 1 << own[j].bit;
			mem[t] = q;
		}
		TpVal acc[8];
		for (int s = 0; s < blk; s++) {
			int q = mem[rev ? blk - 1 - s : s];
			TpVal x[8];
			for (int i = 0; i < R->n; i++)
				x[i] = in[i].r[q];
			if (s == 0)
				memcpy(acc, x, sizeof(TpVal) * (size_t)R->n);
			else
				combine(R, acc, x, acc);
			for (int i = 0; i < R->n; i++)
				S->P[i][q] = acc[i];
		}
		for (int s = 0; s < blk; s++)
			for (int i = 0; i < R->n; i++)
				S->T[i][mem[s]] = acc[i];
	}
}

static void scan_warp_bit(Red *R, ScanSt *S, int wb, bool rev)
{
	Lower *L = R->L;
	int nr = 1 << lw_bits(R->l, LL_REG);
	int nthreads = L->f->num_warps * L->f->lanes_per_warp;
	int base[8], total = 0;
	for (int i = 0; i < R->n; i++) {
		int eb = MAXOF(1, dtype_bytes((DType)R->et[i].dt));
		total = (total + eb - 1) / eb * eb;
		base[i] = total;
		total += nthreads * nr * eb;
	}
	int b0 = lw_scratch(L, R->op, total);
	TpVal tid = lw_bin(L, TP_ADD, lw_bin(L, TP_MUL, L->warp, lw_i32(L, L->f->lanes_per_warp)),
	                   L->lane);
	TpVal ptid = lw_bin(L, TP_XOR, tid, lw_i32(L, L->f->lanes_per_warp << wb));
	TpVal mine = lw_bin(L, TP_MUL, tid, lw_i32(L, nr));
	TpVal theirs = lw_bin(L, TP_MUL, ptid, lw_i32(L, nr));
	for (int r = 0; r < nr; r++) {
		if (r & (int)R->rf)
			continue;
		for (int i = 0; i < R->n; i++) {
			int eb = MAXOF(1, dtype_bytes((DType)R->et[i].dt));
			TpVal s = lw_bin(L, TP_ADD, mine, lw_i32(L, r));
			TpVal in[3] = {lw_bin(L, TP_ADD, lw_bin(L, TP_MUL, s, lw_i32(L, eb)),
			                      lw_i32(L, b0 + base[i])),
			               lw_true(L), S->T[i][r]};
			lw_op(L, TP_SMEM_STORE, R->op->loc, in, 3, NULL, 0)->attr.i = 1;
		}
	}
	lw_barrier(L);
	TpVal bit = bit_set(L, L->warp, wb);
	TpVal second = rev ? lw_bin(L, TP_XOR, bit, lw_true(L)) : bit;
	for (int r = 0; r < nr; r++) {
		if (r & (int)R->rf)
			continue;
		TpVal pT[8];
		for (int i = 0; i < R->n; i++) {
			int eb = MAXOF(1, dtype_bytes((DType)R->et[i].dt));
			TpVal s = lw_bin(L, TP_ADD, theirs, lw_i32(L, r));
			TpVal in[2] = {lw_bin(L, TP_ADD, lw_bin(L, TP_MUL, s, lw_i32(L, eb)),
			                      lw_i32(L, b0 + base[i])),
			               lw_true(L)};
			TpOp *t = lw_op(L, TP_SMEM_LOAD, R->op->loc, in, 2, &R->et[i], 1);
			t->attr.i = 1;
			pT[i] = t->results[0];
		}
		merge(R, S, r, pT, second, 0);
	}
	lw_barrier(L);
}

static void lower_scan_op(Lower *L, const TirOp *op)
{
	Red R;
	red_init(&R, L, op, "scan");
	bool rev = (op->attr.flags & TIR_REVERSE) != 0;
	const LinearLayout *l = R.l;
	int nbits = l->out_bits[R.axis];
	Owner own[32];
	scan_owners(&R, own, nbits);
	LVal in[8];
	ScanSt S;
	int nr = 1 << lw_bits(l, LL_REG);
	for (int i = 0; i < R.n; i++) {
		in[i] = lw_get(L, op->operands[i]);
		S.P[i] = ARENA_NEWN(L->arena, TpVal, nr);
		S.T[i] = ARENA_NEWN(L->arena, TpVal, nr);
	}
	int j0 = 0;
	while (j0 < nbits && own[j0].kind == 0)
		j0++;
	scan_low_run(&R, &S, in, own, j0, rev);
	for (int j = j0; j < nbits; j++) {
		if (own[j].kind == 0) {
			int rb = own[j].bit;
			for (int r = 0; r < nr; r++) {
				if ((r & (int)R.rf) || ((r >> rb) & 1))
					continue;
				int lo = r, hi = r | (1 << rb);
				int first = rev ? hi : lo, second = rev ? lo : hi;
				TpVal fT[8], sT[8];
				for (int i = 0; i < R.n; i++) {
					fT[i] = S.T[i][first];
					sT[i] = S.T[i][second];
				}
				merge(&R, &S, second, fT, 0, 1);
				merge(&R, &S, first, sT, 0, 0);
			}
		} else if (own[j].kind == 1) {
			int lb = own[j].bit;
			TpVal bit = bit_set(L, L->lane, lb);
			TpVal second = rev ? lw_bin(L, TP_XOR, bit, lw_true(L)) : bit;
			for (int r = 0; r < nr; r++) {
				if (r & (int)R.rf)
					continue;
				TpVal pT[8];
				for (int i = 0; i < R.n; i++) {
					TpOp *t = lw_op(L, TP_SHFL_XOR, op->loc, &S.T[i][r], 1,
					                &R.et[i], 1);
					t->attr.i = 1 << lb;
					pT[i] = t->results[0];
				}
				merge(&R, &S, r, pT, second, 0);
			}
		} else {
			scan_warp_bit(&R, &S, own[j].bit, rev);
		}
	}
	for (int i = 0; i < R.n; i++) {
		const LinearLayout *rl = lw_layout(L, op->results[i]);
		if (rl != l && !ll_equal(rl, l))
			lw_ice("scan: result layout differs from the operand layout");
		LVal x = lw_alloc(L, nr);
		for (int r = 0; r < nr; r++) {
			int q = r;
			if (r & (int)R.rf) {
				int32_t c[LL_MAX_OUT];
				ll_apply_hw(l, (uint32_t)r, 0, 0, c);
				q = lw_find_reg(l, c, R.rf);
			}
			x.r[r] = S.P[i][q];
		}
		lw_set(L, op->results[i], x);
	}
}

bool lw_reduce(Lower *L, const TirOp *op)
{
	switch ((TirOpKind)op->kind) {
	case TOP_REDUCE: lower_reduce_op(L, op); return true;
	case TOP_SCAN: lower_scan_op(L, op); return true;
	default: return false;
	}
}

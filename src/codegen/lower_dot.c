/* lower_dot.c: tl.dot (a [M,K], b [K,N], acc [M,N]).
 *
 * The layouts decide the path:
 * - mma.sync (target has_mma_sync; f16/bf16 -> f32, tf32, int8 -> i32; an f16
 *   accumulator is carried in f32 and rounded back after the last k step): the
 *   accumulator is ll_mma_acc-shaped and the operands ll_mma_operand-shaped.
 *   Every 16x8 accumulator tile gets one TP MMA per k step, its operands
 *   listed in PTX fragment order (unpacked). Which register holds which
 *   fragment element is found by coordinates and checked for all 32 lanes,
 *   so the lowering does not depend on the register order the layout chose.
 * - FMA (always): each thread holds, for each accumulator element (m, n), all
 *   of A[m, :] and B[:, n]; acc = fma chain over k in increasing k order.
 */
#include "codegen/lower_internal.h"

#include <string.h>

typedef struct Dot {
	Lower *L;
	const TirOp *op;
	const LinearLayout *la, *lb, *lc;
	int M, N, K;
	Type ta, tb, tc;
} Dot;

/* A's lane/warp bases are C's restricted to m (k = 0), B's are C's restricted
 * to n (from_kind = 1: lanes and warps; 2: warps only). */
static bool hw_matches(const Dot *D, int from_kind)
{
	static const int32_t zero[LL_MAX_OUT];
	int rank = D->lc->n_out, dm = rank - 2, dn = rank - 1;
	for (int k = from_kind; k < 3; k++) {
		LLInDim kind = k == 1 ? LL_LANE : LL_WARP;
		int nb = MAXOF(lw_bits(D->lc, kind),
		               MAXOF(lw_bits(D->la, kind), lw_bits(D->lb, kind)));
		for (int b = 0; b < nb; b++) {
			const int32_t *c =
			        b < lw_bits(D->lc, kind) ? lw_basis(D->lc, kind, b) : zero;
			const int32_t *a =
			        b < lw_bits(D->la, kind) ? lw_basis(D->la, kind, b) : zero;
			const int32_t *bb =
			        b < lw_bits(D->lb, kind) ? lw_basis(D->lb, kind, b) : zero;
			for (int d = 0; d < dm; d++)
				if (a[d] != c[d] || bb[d] != c[d])
					return false;
			if (a[dm] != c[dm] || a[dn] != 0 || bb[dm] != 0 || bb[dn] != c[dn])
				return false;
		}
	}
	return true;
}

/* ---- FMA --------------------------------------------------------------------------------- */

static bool fma_plan(const Dot *D, int *ra, int *rb)
{
	if (!hw_matches(D, 1))
		return false;
	int nc = 1 << lw_bits(D->lc, LL_REG);
	uint32_t m[LL_MAX_IN];
	ll_free_masks(D->la, m);
	uint32_t fa = m[lw_slot(D->la, LL_REG)];
	ll_free_masks(D->lb, m);
	uint32_t fb = m[lw_slot(D->lb, LL_REG)];
	for (int r = 0; r < nc; r++) {
		int32_t c[LL_MAX_OUT];
		ll_apply_hw(D->lc, (uint32_t)r, 0, 0, c);
		int rank = D->lc->n_out;
		for (int k = 0; k < D->K; k++) {
			int32_t x[LL_MAX_OUT], y[LL_MAX_OUT];
			memcpy(x, c, sizeof x);
			memcpy(y, c, sizeof y);
			x[rank - 1] = k; /* A[..., m, k] */
			y[rank - 2] = k; /* B[..., k, n] */
			ra[r * D->K + k] = lw_find_reg(D->la, x, fa);
			rb[r * D->K + k] = lw_find_reg(D->lb, y, fb);
			if (ra[r * D->K + k] < 0 || rb[r * D->K + k] < 0)
				return false;
		}
	}
	return true;
}

static TpVal cast_cached(Lower *L, TpVal *cache, LVal src, int r, Type to)
{
	if (!cache[r])
		cache[r] = lw_cast(L, src.r[r], to);
	return cache[r];
}

static void fma_emit(const Dot *D, const int *ra, const int *rb, LVal a, LVal b, LVal c, LVal out)
{
	Lower *L = D->L;
	TpVal *ca = ARENA_NEWN(L->arena, TpVal, a.n), *cb = ARENA_NEWN(L->arena, TpVal, b.n);
	bool is_f = dtype_is_float((DType)D->tc.dt);
	for (int r = 0; r < out.n; r++) {
		TpVal acc = c.r[r];
		for (int k = 0; k < D->K; k++) {
			TpVal x = cast_cached(L, ca, a, ra[r * D->K + k], D->tc);
			TpVal y = cast_cached(L, cb, b, rb[r * D->K + k], D->tc);
			if (is_f) {
				TpVal in[3] = {x, y, acc};
				acc = lw_op1(L, TP_FMA, in, 3, D->tc);
			} else {
				acc = lw_bin(L, TP_ADD, acc, lw_bin(L, TP_MUL, x, y));
			}
		}
		out.r[r] = acc;
	}
}

/* ---- mma.sync --------------------------------------------------------------------------- */

typedef struct MmaShape {
	MmaKind kind;
	int kstep, na, nb;
} MmaShape;

static bool mma_shape(const Dot *D, MmaShape *s)
{
	DType a = (DType)D->ta.dt, b = (DType)D->tb.dt, c = (DType)D->tc.dt;
	if (a != b)
		return false;
	if (a == DT_F16 && (c == DT_F32 || c == DT_F16))
		*s = (MmaShape){MMA_M16N8K16_F16_F32, 16, 8, 4};
	else if (a == DT_BF16 && c == DT_F32)
		*s = (MmaShape){MMA_M16N8K16_BF16_F32, 16, 8, 4};
	else if (a == DT_F32 && c == DT_F32 && D->op->attr.i != PREC_IEEE)
		*s = (MmaShape){MMA_M16N8K8_TF32_F32, 8, 4, 2};
	else if (a == DT_I8 && c == DT_I32)
		*s = (MmaShape){MMA_M16N8K32_S8_S32, 32, 16, 8};
	else
		return false;
	return D->M % 16 == 0 && D->N % 8 == 0 && D->K % s->kstep == 0;
}

/* PTX fragment coordinates for lane (g = lane / 4, t = lane % 4). */
static void frag_a(MmaKind k, int j, int lane, int *row, int *col)
{
	int g = lane >> 2, t = lane & 3;
	if (k == MMA_M16N8K8_TF32_F32) {
		*row = g + 8 * (j & 1);
		*col = t + 4 * (j >> 1);
	} else if (k == MMA_M16N8K32_S8_S32) {
		int p = j >> 2;
		*row = g + 8 * (p & 1);
		*col = 4 * t + (j & 3) + 16 * (p >> 1);
	} else {
		int p = j >> 1;
		*row = g + 8 * (p & 1);
		*col = 2 * t + (j & 1) + 8 * (p >> 1);
	}
}

static void frag_b(MmaKind k, int j, int lane, int *kk, int *n)
{
	int g = lane >> 2, t = lane & 3;
	*n = g;
	if (k == MMA_M16N8K8_TF32_F32)
		*kk = t + 4 * j;
	else if (k == MMA_M16N8K32_S8_S32)
		*kk = 4 * t + (j & 3) + 16 * (j >> 2);
	else
		*kk = 2 * t + (j & 1) + 8 * (j >> 1);
}

static void frag_c(int j, int lane, int *row, int *col)
{
	*row = (lane >> 2) + 8 * (j >> 1);
	*col = 2 * (lane & 3) + (j & 1);
}

/* The register of l holding (r0 + dr(lane), c0 + dc(lane)) in every lane. */
typedef void (*FragFn)(MmaKind k, int j, int lane, int *x, int *y);

static int frag_reg(const LinearLayout *l, MmaKind kind, int j, int x0, int y0, FragFn fn)
{
	int x, y;
	fn(kind, j, 0, &x, &y);
	int32_t c[LL_MAX_OUT] = {x0 + x, y0 + y};
	int r = lw_find_reg(l, c, 0);
	if (r < 0)
		return -1;
	for (int lane = 0; lane < 32; lane++) {
		int32_t got[LL_MAX_OUT];
		ll_apply_hw(l, (uint32_t)r, (uint32_t)lane, 0, got);
		fn(kind, j, lane, &x, &y);
		if (got[0] != x0 + x || got[1] != y0 + y)
			return -1;
	}
	return r;
}

static void frag_c_fn(MmaKind k, int j, int lane, int *x, int *y)
{
	(void)k;
	frag_c(j, lane, x, y);
}

typedef struct MmaTile {
	int rc[4];
	int *ra, *rb; /* per k step: na / nb registers */
} MmaTile;

static int mma_plan(const Dot *D, const MmaShape *s, MmaTile **tiles_out)
{
	Lower *L = D->L;
	if (L->f->lanes_per_warp != 32 || lw_bits(D->lc, LL_LANE) != 5 || !hw_matches(D, 2))
		return -1;
	int nc = 1 << lw_bits(D->lc, LL_REG);
	if (nc % 4)
		return -1;
	MmaTile *tiles = ARENA_NEWN(L->arena, MmaTile, nc / 4);
	bool *seen = ARENA_NEWN(L->arena, bool, nc);
	int nt = 0, nk = D->K / s->kstep;
	for (int r = 0; r < nc; r++) {
		if (seen[r])
			continue;
		int32_t c[LL_MAX_OUT];
		ll_apply_hw(D->lc, (uint32_t)r, 0, 0, c);
		int m0 = c[0] & ~15, n0 = c[1] & ~7;
		MmaTile *t = &tiles[nt];
		for (int j = 0; j < 4; j++) {
			t->rc[j] = frag_reg(D->lc, s->kind, j, m0, n0, frag_c_fn);
			if (t->rc[j] < 0 || seen[t->rc[j]])
				return -1;
			seen[t->rc[j]] = true;
		}
		if (!seen[r])
			return -1;
		t->ra = ARENA_NEWN(L->arena, int, nk * s->na);
		t->rb = ARENA_NEWN(L->arena, int, nk * s->nb);
		for (int k = 0; k < nk; k++) {
			for (int j = 0; j < s->na; j++)
				if ((t->ra[k * s->na + j] = frag_reg(D->la, s->kind, j, m0,
				                                     k * s->kstep, frag_a)) < 0)
					return -1;
			for (int j = 0; j < s->nb; j++)
				if ((t->rb[k * s->nb + j] = frag_reg(D->lb, s->kind, j,
				                                     k * s->kstep, n0, frag_b)) < 0)
					return -1;
		}
		nt++;
	}
	*tiles_out = tiles;
	return nt;
}

static void mma_emit(const Dot *D, const MmaShape *s, const MmaTile *tiles, int nt, LVal a, LVal b,
                     LVal c, LVal out)
{
	Lower *L = D->L;
	int nk = D->K / s->kstep;
	Type f32 = type_scalar(D->tc.dt == DT_F16 ? DT_F32 : (DType)D->tc.dt);
	Type outs[4] = {f32, f32, f32, f32};
	for (int i = 0; i < nt; i++) {
		const MmaTile *t = &tiles[i];
		TpVal acc[4];
		for (int j = 0; j < 4; j++) /* an f16 accumulator is carried in f32 */
			acc[j] = lw_cast(L, c.r[t->rc[j]], f32);
		for (int k = 0; k < nk; k++) {
			TpVal in[16 + 8 + 4];
			int n = 0;
			for (int j = 0; j < s->na; j++)
				in[n++] = a.r[t->ra[k * s->na + j]];
			for (int j = 0; j < s->nb; j++)
				in[n++] = b.r[t->rb[k * s->nb + j]];
			for (int j = 0; j < 4; j++)
				in[n++] = acc[j];
			TpOp *op = lw_op(L, TP_MMA, D->op->loc, in, n, outs, 4);
			op->attr.i = s->kind;
			for (int j = 0; j < 4; j++)
				acc[j] = op->results[j];
		}
		for (int j = 0; j < 4; j++)
			out.r[t->rc[j]] = lw_cast(L, acc[j], D->tc);
	}
}

static void lower_dot_op(Lower *L, const TirOp *op)
{
	Dot D = {0};
	D.L = L;
	D.op = op;
	D.la = lw_layout(L, op->operands[0]);
	D.lb = lw_layout(L, op->operands[1]);
	D.lc = lw_layout(L, op->operands[2]);
	if (!D.la || !D.lb || !D.lc || D.lc->n_out < 2 || D.la->n_out != D.lc->n_out ||
	    D.lb->n_out != D.lc->n_out)
		lw_ice("dot: operands must be tiles of equal rank >= 2 with layouts");
	int rank = D.lc->n_out;
	const LinearLayout *lr = lw_layout(L, op->results[0]);
	if (lr != D.lc && !ll_equal(lr, D.lc))
		lw_ice("dot: result layout differs from the accumulator's");
	D.M = 1 << D.lc->out_bits[rank - 2];
	D.N = 1 << D.lc->out_bits[rank - 1];
	D.K = 1 << D.la->out_bits[rank - 1];
	D.ta = lw_elem_type(L, op->operands[0]);
	D.tb = lw_elem_type(L, op->operands[1]);
	D.tc = lw_elem_type(L, op->operands[2]);
	LVal a = lw_get(L, op->operands[0]), b = lw_get(L, op->operands[1]);
	LVal c = lw_get(L, op->operands[2]);
	LVal out = lw_alloc(L, c.n);
	MmaShape s;
	MmaTile *tiles;
	int nt;
	if (rank == 2 && L->t->has_mma_sync && mma_shape(&D, &s) &&
	    (nt = mma_plan(&D, &s, &tiles)) >= 0) {
		mma_emit(&D, &s, tiles, nt, a, b, c, out);
		lw_set(L, op->results[0], out);
		return;
	}
	int *ra = ARENA_NEWN(L->arena, int, c.n *D.K), *rb = ARENA_NEWN(L->arena, int, c.n *D.K);
	if (!fma_plan(&D, ra, rb))
		lw_ice("dot: operand layouts fit neither the FMA nor the mma.sync lowering");
	fma_emit(&D, ra, rb, a, b, c, out);
	lw_set(L, op->results[0], out);
}

bool lw_dot(Lower *L, const TirOp *op)
{
	if (op->kind != TOP_DOT)
		return false;
	lower_dot_op(L, op);
	return true;
}

/* lower_view.c: splat, arange, broadcast, expand_dims, reshape, trans and
 * convert_layout.
 *
 * View ops move no data: the layout pass derives the result layout so that
 * each result register holds an element some operand register of the same
 * thread holds. The register map is built by matching coordinates (through
 * the op's coordinate transform) and checked against the lane/warp bases.
 *
 * convert_layout moves data as layout_conversion_kind says: a register
 * permutation, warp shuffles (SHFL_IDX from the source lane; selects when the
 * source register depends on the lane) or a shared-memory round trip through
 * the layout ll_choose_conversion_smem picks (swizzled or padded), with
 * vectorized accesses where registers map to consecutive offsets; a big tile
 * goes round in chunks (layout_plan_conversion, src/layout/smem_chunks.c).
 */
#include "codegen/lower_internal.h"

#include "layout/assign.h"

#include <string.h>

/* ---- coordinate transforms (result coords -> operand coords) ------------------ */

enum { XF_ID, XF_BCAST, XF_EXPAND, XF_TRANS, XF_RESHAPE };

typedef struct Xf {
	int kind, axis;
	int perm[TIR_MAX_RANK];
	int src_rank, dst_rank;
	int32_t src_shape[TIR_MAX_RANK], dst_shape[TIR_MAX_RANK];
} Xf;

static void xf_apply(const Xf *x, const int32_t *dc, int32_t *sc)
{
	switch (x->kind) {
	case XF_ID: memcpy(sc, dc, sizeof(int32_t) * (size_t)x->dst_rank); break;
	case XF_BCAST:
		for (int d = 0; d < x->dst_rank; d++)
			sc[d] = x->src_shape[d] == 1 ? 0 : dc[d];
		break;
	case XF_EXPAND:
		for (int d = 0, k = 0; d < x->dst_rank; d++)
			if (d != x->axis)
				sc[k++] = dc[d];
		break;
	case XF_TRANS:
		for (int d = 0; d < x->dst_rank; d++)
			sc[x->perm[d]] = dc[d];
		break;
	case XF_RESHAPE: {
		int64_t flat = 0;
		for (int d = 0; d < x->dst_rank; d++)
			flat = flat * x->dst_shape[d] + dc[d];
		for (int d = x->src_rank - 1; d >= 0; d--) {
			sc[d] = (int32_t)(flat % x->src_shape[d]);
			flat /= x->src_shape[d];
		}
		break;
	}
	}
}

static bool same_coords(const int32_t *a, const int32_t *b, int n)
{
	return !memcmp(a, b, sizeof(int32_t) * (size_t)n);
}

/* map[r] = the operand register holding dst register r's element (same
 * thread). False if the layouts are not related that way. */
static bool reg_map(const LinearLayout *src, const LinearLayout *dst, const Xf *x, int *map)
{
	static const int32_t zero[LL_MAX_OUT];
	for (int k = 0; k < 2; k++) {
		LLInDim kind = k ? LL_WARP : LL_LANE;
		int nb = MAXOF(lw_bits(src, kind), lw_bits(dst, kind));
		for (int b = 0; b < nb; b++) {
			const int32_t *dc = b < lw_bits(dst, kind) ? lw_basis(dst, kind, b) : zero;
			const int32_t *sc = b < lw_bits(src, kind) ? lw_basis(src, kind, b) : zero;
			int32_t t[LL_MAX_OUT] = {0};
			xf_apply(x, dc, t);
			if (!same_coords(t, sc, src->n_out))
				return false;
		}
	}
	uint32_t m[LL_MAX_IN] = {0};
	ll_free_masks(src, m);
	uint32_t rf = lw_slot(src, LL_REG) >= 0 ? m[lw_slot(src, LL_REG)] : 0;
	int n = 1 << lw_bits(dst, LL_REG);
	for (int r = 0; r < n; r++) {
		int32_t c[LL_MAX_OUT], t[LL_MAX_OUT] = {0};
		ll_apply_hw(dst, (uint32_t)r, 0, 0, c);
		xf_apply(x, c, t);
		map[r] = lw_find_reg(src, t, rf);
		if (map[r] < 0)
			return false;
	}
	return true;
}

static void xf_init(Lower *L, Xf *x, int kind, ValId src, ValId dst)
{
	memset(x, 0, sizeof *x);
	x->kind = kind;
	Type st = L->tf->vals.data[src].ty, dt = L->tf->vals.data[dst].ty;
	x->src_rank = st.rank;
	x->dst_rank = dt.rank;
	memcpy(x->src_shape, st.shape, sizeof x->src_shape);
	memcpy(x->dst_shape, dt.shape, sizeof x->dst_shape);
}

static void lower_permute(Lower *L, const TirOp *op, const Xf *x)
{
	ValId src = op->operands[0], dst = op->results[0];
	const LinearLayout *sl = lw_layout(L, src), *dl = lw_layout(L, dst);
	LVal s = lw_get(L, src);
	if (!sl || !dl)
		lw_ice("%s on a scalar", tir_op_name((TirOpKind)op->kind));
	LVal d = lw_alloc(L, lw_nregs_of(L, dst));
	int *map = ARENA_NEWN(L->arena, int, d.n);
	if (!reg_map(sl, dl, x, map)) {
		char a[512], b[512];
		ll_print_shape(sl, a, sizeof a);
		ll_print_shape(dl, b, sizeof b);
		lw_ice("%s: result layout %s does not map registers of operand layout %s",
		       tir_op_name((TirOpKind)op->kind), b, a);
	}
	for (int r = 0; r < d.n; r++)
		d.r[r] = s.r[map[r]];
	lw_set(L, dst, d);
}

/* ---- splat, arange ----------------------------------------------------------------- */

static void lower_splat(Lower *L, const TirOp *op)
{
	LVal s = lw_get(L, op->operands[0]);
	LVal d = lw_alloc(L, lw_nregs_of(L, op->results[0]));
	for (int r = 0; r < d.n; r++)
		d.r[r] = s.r[0];
	lw_set(L, op->results[0], d);
}

static void lower_arange(Lower *L, const TirOp *op)
{
	ValId res = op->results[0];
	const LinearLayout *l = lw_layout(L, res);
	LVal d = lw_alloc(L, lw_nregs_of(L, res));
	Type et = lw_elem_type(L, res);
	for (int r = 0; r < d.n; r++) {
		TpVal c = lw_coord(L, l, r, 0);
		if (op->attr.i)
			c = lw_bin(L, TP_ADD, c, lw_i32(L, op->attr.i));
		d.r[r] = lw_cast(L, c, et);
	}
	lw_set(L, res, d);
}

/* ---- convert_layout ------------------------------------------------------------------- */

/* Value of a GF(2)-linear map of the lane bits, as a compile-time image per
 * lane bit: imgs[b] (i32), emitted as a runtime value. */
static TpVal lane_linear(Lower *L, const int32_t *img, int n)
{
	return lw_linear_lane_warp(L, img, n, NULL, 0);
}

/* The map dst hw -> src hw; usable for shuffles when it keeps every warp bit. */
static bool shuffle_map(const LinearLayout *sl, const LinearLayout *dl, LinearLayout *c)
{
	return ll_invert_and_compose(dl, sl, c) && ll_is_trivial_over(c, 1u << LL_WARP);
}

static void cvt_shuffle(Lower *L, const TirOp *op, const LinearLayout *sl, const LinearLayout *dl,
                        LVal s, LVal d)
{
	LinearLayout c;
	if (!shuffle_map(sl, dl, &c))
		lw_ice("convert_layout: source layout does not cover the result");
	int cr = lw_slot(&c, LL_REG), cl = lw_slot(&c, LL_LANE);
	int sr = lw_slot(sl, LL_REG), sln = lw_slot(sl, LL_LANE);
	/* c's output dims are sl's input slots */
	int nl = cl >= 0 ? c.in_bits[cl] : 0;
	int32_t to_lane[LL_MAX_BITS], to_reg[LL_MAX_BITS];
	for (int b = 0; b < nl; b++) {
		to_lane[b] = sln >= 0 ? c.basis[cl][b][sln] : 0;
		to_reg[b] = sr >= 0 ? c.basis[cl][b][sr] : 0;
	}
	/* the span of the lane -> source register part */
	int32_t span[1 << 8];
	int nspan = 1;
	span[0] = 0;
	for (int b = 0; b < nl; b++) {
		bool in = false;
		for (int i = 0; i < nspan; i++)
			if (span[i] == to_reg[b])
				in = true;
		if (in)
			continue;
		if (nspan * 2 > (int)COUNTOF(span))
			lw_ice("convert_layout: shuffle needs too many source registers");
		for (int i = 0; i < nspan; i++)
			span[nspan + i] = span[i] ^ to_reg[b];
		nspan *= 2;
	}
	TpVal lane_part = lane_linear(L, to_lane, nl);
	TpVal reg_sel = nspan > 1 ? lane_linear(L, to_reg, nl) : 0;
	Type i32 = type_scalar(DT_I32);
	for (int r = 0; r < d.n; r++) {
		uint32_t in[LL_MAX_IN] = {0};
		int32_t out[LL_MAX_OUT];
		in[cr] = (uint32_t)r;
		ll_apply(&c, in, out);
		int32_t rbase = sr >= 0 ? out[sr] : 0, lbase = sln >= 0 ? out[sln] : 0;
		TpVal src_lane = lbase ? lw_bin(L, TP_XOR, lane_part, lw_i32(L, lbase)) : lane_part;
		TpVal acc = 0;
		for (int i = 0; i < nspan; i++) {
			TpVal a[2] = {s.r[rbase ^ span[i]], src_lane};
			TpVal v = lw_op1(L, TP_SHFL_IDX, a, 2, tp_type(L->f, a[0]));
			if (!acc)
				acc = v;
			else
				acc = lw_select(L, lw_cmp(L, PRED_EQ, reg_sel, lw_i32(L, span[i])),
				                v, acc);
		}
		d.r[r] = acc;
	}
	(void)i32;
	(void)op;
}

/* Through shared memory, one chunk at a time (layout_plan_conversion, as
 * smem.c sized the scratch): each chunk is a write, a barrier, a read and a
 * barrier, so the next chunk (or the next scratch user) may overwrite it. */
static void cvt_shared(Lower *L, const TirOp *op, const LinearLayout *sl, const LinearLayout *dl,
                       LVal s, LVal d, Type et)
{
	CvtSmemPlan *p = ARENA_NEW(L->arena, CvtSmemPlan);
	SmemTile *t = ARENA_NEW(L->arena, SmemTile);
	t->et = et;
	t->eb = MAXOF(1, dtype_bytes((DType)et.dt));
	layout_plan_conversion(L->t, L->tf, sl, dl, t->eb, p);
	t->m = p->smem;
	t->pad = p->pad;
	TpVal base = lw_i32(L, lw_scratch(L, op, (int)ll_plan_smem_bytes(p, t->eb)));
	LVal cs = lw_alloc(L, s.n >> p->nbits), cd = lw_alloc(L, d.n >> p->nbits);
	for (uint32_t c = 0; c < 1u << p->nbits; c++) {
		for (int r = 0; r < cs.n; r++)
			cs.r[r] = s.r[ll_plan_register(p->src_reg, p->nbits, c, (uint32_t)r)];
		lw_smem_write(L, op->loc, t, base, &p->src, cs, 0);
		lw_barrier(L);
		lw_smem_read(L, op->loc, t, base, &p->dst, cd);
		lw_barrier(L);
		for (int r = 0; r < cd.n; r++)
			d.r[ll_plan_register(p->dst_reg, p->nbits, c, (uint32_t)r)] = cd.r[r];
	}
}

static void lower_convert(Lower *L, const TirOp *op)
{
	ValId src = op->operands[0], dst = op->results[0];
	const LinearLayout *sl = lw_layout(L, src), *dl = lw_layout(L, dst);
	LVal s = lw_get(L, src);
	if (!sl) {
		lw_set(L, dst, s);
		return;
	}
	LVal d = lw_alloc(L, lw_nregs_of(L, dst));
	CvtKind k = layout_conversion_kind(L->t, sl, dl);
	Xf x;
	xf_init(L, &x, XF_ID, src, dst);
	int *map = ARENA_NEWN(L->arena, int, d.n);
	if (k == CVT_NONE || k == CVT_REGISTERS || reg_map(sl, dl, &x, map)) {
		if (!reg_map(sl, dl, &x, map))
			lw_ice("convert_layout: register permutation does not match");
		for (int r = 0; r < d.n; r++)
			d.r[r] = s.r[map[r]];
	} else if (k == CVT_SHUFFLE && shuffle_map(sl, dl, &(LinearLayout){0})) {
		cvt_shuffle(L, op, sl, dl, s, d);
	} else {
		cvt_shared(L, op, sl, dl, s, d, lw_elem_type(L, dst));
	}
	lw_set(L, dst, d);
}

bool lw_view(Lower *L, const TirOp *op)
{
	Xf x;
	switch ((TirOpKind)op->kind) {
	case TOP_SPLAT: lower_splat(L, op); return true;
	case TOP_ARANGE: lower_arange(L, op); return true;
	case TOP_BROADCAST:
		if (!lw_layout(L, op->operands[0])) {
			lower_splat(L, op);
			return true;
		}
		xf_init(L, &x, XF_BCAST, op->operands[0], op->results[0]);
		lower_permute(L, op, &x);
		return true;
	case TOP_EXPAND_DIMS:
		xf_init(L, &x, XF_EXPAND, op->operands[0], op->results[0]);
		x.axis = op->attr.axis;
		lower_permute(L, op, &x);
		return true;
	case TOP_RESHAPE:
		xf_init(L, &x, XF_RESHAPE, op->operands[0], op->results[0]);
		lower_permute(L, op, &x);
		return true;
	case TOP_TRANS:
		xf_init(L, &x, XF_TRANS, op->operands[0], op->results[0]);
		memcpy(x.perm, op->attr.perm, sizeof x.perm);
		lower_permute(L, op, &x);
		return true;
	case TOP_CONVERT_LAYOUT: lower_convert(L, op); return true;
	default: return false;
	}
}

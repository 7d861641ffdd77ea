/* lower_smem.c: tiles in shared memory: addresses, stores and loads.
 *
 * A shared tile (SmemTile) is a shared layout m (linear offset -> tile
 * coordinates, swizzled or row-major, from src/layout/smem_choose.c) plus
 * optional padding. For a register layout l, W = m^-1 o l maps a hardware
 * location (register, lane, warp) to the linear offset of the element it
 * holds; the byte address is base + elem_bytes * padded(W(r, lane, warp)).
 * The lane/warp part of W is computed once per access family; each register
 * group XORs in its constant part.
 *
 * Stores and loads are vectorized over the registers that W maps to
 * consecutive offsets (up to 16 bytes). Stores are predicated on the canonical
 * owner, so a broadcast element is written once. On the native CPU, where the
 * threads are one SIMD vector, an access whose offsets run consecutively over
 * the threads is marked TP_COALESCED (one vector, not a gather/scatter).
 *
 * Reads use ldmatrix (8x8 matrices of 16-byte rows, up to 4 per instruction;
 * 8-, 16- and 32-bit elements, .trans for 16-bit) whenever W has its
 * structure (ll_ldmatrix_plan): this is
 * how mma.sync operands come out of shared memory, but nothing here knows
 * about mma; the shared layout was chosen knowing ldmatrix would be used.
 */
#include "codegen/lower_internal.h"

#include "layout/assign.h"

#include <string.h>

static void hw_to_offset(const SmemTile *t, const LinearLayout *l, LinearLayout *w)
{
	if (!ll_invert_and_compose(l, &t->m, w))
		lw_ice("shared tile: the shared layout does not cover the register layout");
}

static int ilog2(int64_t v)
{
	int k = 0;
	while (((int64_t)1 << k) < v)
		k++;
	return k;
}

/* pad(x) = x + sum over intervals of (x >> log2 interval) << log2 pad. */
static TpVal padded_expr(Lower *L, TpVal off, const PaddedShared *pad)
{
	TpVal padded = off;
	for (int k = 0; k < pad->n; k++) {
		TpVal t = lw_bin(L, TP_SHR, off, lw_i32(L, ilog2(pad->interval[k])));
		if (pad->pad[k] > 1)
			t = lw_bin(L, TP_SHL, t, lw_i32(L, ilog2(pad->pad[k])));
		padded = lw_bin(L, TP_ADD, padded, t);
	}
	return padded;
}

static int64_t padded_const(int64_t off, const PaddedShared *pad)
{
	int64_t padded = off;
	for (int k = 0; k < pad->n; k++)
		padded += (off >> ilog2(pad->interval[k])) << ilog2(pad->pad[k]);
	return padded;
}

/* Byte offset of the element hw location (r, lane, warp) has in the buffer:
 * w maps hw -> linear offset (hwpart: its lane/warp part, which only sets
 * bits in hw_bits); then padding. Register r's constant splits in two: the
 * bits hwpart may share are XORed in, the rest cannot carry and are added
 * after padding (padding is additive over disjoint bits). So registers that
 * differ only in the added bits share one address register and a constant
 * offset, as ptxas's [reg+imm] wants: a 128x256 mma tile's ldmatrix
 * addresses take 8 registers, not 32. */
static TpVal smem_offset(Lower *L, const LinearLayout *w, TpVal hwpart, int32_t hw_bits, int r,
                         const PaddedShared *pad, int eb, TpVal base)
{
	int32_t out[LL_MAX_OUT];
	ll_apply_hw(w, (uint32_t)r, 0, 0, out);
	int32_t cx = out[0] & hw_bits, ca = out[0] & ~hw_bits;
	TpVal off = cx ? lw_bin(L, TP_XOR, hwpart, lw_i32(L, cx)) : hwpart;
	TpVal padded = padded_expr(L, off, pad);
	if (eb > 1)
		padded = lw_bin(L, TP_MUL, padded, lw_i32(L, eb));
	if (base)
		padded = lw_bin(L, TP_ADD, padded, base);
	if (ca)
		padded = lw_bin(L, TP_ADD, padded, lw_i32(L, (int32_t)(padded_const(ca, pad) * eb)));
	return padded;
}

/* OR of the offsets lane and warp bases map to: every bit the lane/warp
 * part of an address can set. */
static int32_t hw_image_bits(const int32_t *lane, int nl, const int32_t *warp, int nw)
{
	int32_t m = 0;
	for (int b = 0; b < nl; b++)
		m |= lane[b];
	for (int b = 0; b < nw; b++)
		m |= warp[b];
	return m;
}

/* Widest v: registers g..g+v-1 go to consecutive offsets for aligned g. */
static int smem_vec(const LinearLayout *w, const PaddedShared *pad, int eb)
{
	int v = 1;
	int nr = lw_bits(w, LL_REG);
	while (v * 2 * eb <= 16) {
		int k = 0;
		while ((1 << k) < v)
			k++;
		if (k >= nr || lw_basis(w, LL_REG, k)[0] != (1 << k))
			break;
		int nv = v * 2;
		bool ok = true;
		for (int b = k + 1; b < nr; b++)
			ok = ok && !(lw_basis(w, LL_REG, b)[0] & (nv - 1));
		for (int b = 0; b < lw_bits(w, LL_LANE); b++)
			ok = ok && !(lw_basis(w, LL_LANE, b)[0] & (nv - 1));
		for (int b = 0; b < lw_bits(w, LL_WARP); b++)
			ok = ok && !(lw_basis(w, LL_WARP, b)[0] & (nv - 1));
		/* padding must keep groups whole and aligned (as smem_choose.c's
		 * vector_bits assumes) */
		for (int i = 0; i < pad->n; i++)
			ok = ok && pad->interval[i] >= nv && pad->pad[i] >= nv;
		if (!ok)
			break;
		v = nv;
	}
	return v;
}

static TpVal hw_linear(Lower *L, const LinearLayout *w, int32_t *bits)
{
	int32_t li[LL_MAX_BITS], wi[LL_MAX_BITS];
	int nl = lw_bits(w, LL_LANE), nw = lw_bits(w, LL_WARP);
	for (int b = 0; b < nl; b++)
		li[b] = lw_basis(w, LL_LANE, b)[0];
	for (int b = 0; b < nw; b++)
		wi[b] = lw_basis(w, LL_WARP, b)[0];
	*bits = hw_image_bits(li, nl, wi, nw);
	return lw_linear_lane_warp(L, li, nl, wi, nw);
}

/* Everything but the lane/warp offset a->hw (not emitted yet). */
static void plan_w(Lower *L, const SmemTile *t, const LinearLayout *l, SmemAccess *a)
{
	memset(a, 0, sizeof *a);
	a->t = t;
	hw_to_offset(t, l, &a->w);
	a->vec = smem_vec(&a->w, &t->pad, t->eb);
	lw_free(L, l, &a->reg_free, &a->lane_free, &a->warp_free);
}

void lw_smem_plan(Lower *L, const SmemTile *t, const LinearLayout *l, SmemAccess *a)
{
	plan_w(L, t, l, a);
	a->hw = hw_linear(L, &a->w, &a->hw_bits);
}

TpVal lw_smem_addr(Lower *L, const SmemAccess *a, int r, TpVal base)
{
	return smem_offset(L, &a->w, a->hw, a->hw_bits, r, &a->t->pad, a->t->eb, base);
}

/* Where a program's threads are one SIMD vector (the native CPU): does w
 * put thread t's vector of a->vec elements at t * vec (lanes, then warps,
 * unpadded)? Then a register group whose constant leaves those offset bits
 * alone is one vector access over all threads, not a gather or scatter. */
static bool smem_threads_consecutive(Lower *L, const SmemAccess *a)
{
	const LinearLayout *w = &a->w;
	if (!lw_simd_program(L) || a->t->pad.n || lw_bits(w, LL_LANE) != L->lane_bits ||
	    lw_bits(w, LL_WARP) != L->warp_bits)
		return false;
	int32_t want = a->vec;
	for (int k = 0; k < 2; k++) {
		LLInDim kind = k ? LL_WARP : LL_LANE;
		for (int b = 0; b < lw_bits(w, kind); b++, want *= 2)
			if (lw_basis(w, kind, b)[0] != want)
				return false;
	}
	return true;
}

static bool smem_group_coalesced(const SmemAccess *a, bool threads_consecutive, int g)
{
	if (!threads_consecutive)
		return false;
	int32_t out[LL_MAX_OUT];
	ll_apply_hw(&a->w, (uint32_t)g, 0, 0, out);
	return !(out[0] & a->hw_bits);
}

void lw_smem_write(Lower *L, SrcLoc loc, const SmemTile *t, TpVal base, const LinearLayout *l,
                   LVal v, TpVal mask)
{
	SmemAccess a;
	lw_smem_plan(L, t, l, &a);
	bool consec = smem_threads_consecutive(L, &a);
	TpVal own = lw_owner_pred(L, a.lane_free, a.warp_free);
	TpVal m = lw_and1(L, own, mask);
	if (!m)
		m = lw_true(L);
	for (int g = 0; g < v.n; g += a.vec) {
		if (g & (int)a.reg_free)
			continue;
		TpVal in[2 + 16];
		in[0] = lw_smem_addr(L, &a, g, base);
		in[1] = m;
		for (int j = 0; j < a.vec; j++)
			in[2 + j] = v.r[g + j];
		TpOp *op = lw_op(L, TP_SMEM_STORE, loc, in, 2 + a.vec, NULL, 0);
		op->attr.i = a.vec;
		if (smem_group_coalesced(&a, consec, g))
			op->attr.flags |= TP_COALESCED;
	}
}

/* ldmatrix.x{nmat}: lane l addresses row l%8 of matrix l/8 of each
 * instruction (plan.lane_img), register group g adds w(g); result j is
 * register g + j (epr of them per 32-bit word, nmat words). False when
 * ldmatrix does not apply. */
static bool read_ldmatrix(Lower *L, SrcLoc loc, const SmemAccess *a, TpVal base, LVal out)
{
	LdmatrixPlan p;
	const SmemTile *t = a->t;
	if (!layout_target_ldmatrix(L->t) || L->lane_bits != 5 ||
	    !ll_ldmatrix_plan(&a->w, &t->pad, t->eb, &p))
		return false;
	int32_t wi[LL_MAX_BITS];
	int nw = lw_bits(&a->w, LL_WARP);
	for (int b = 0; b < nw; b++)
		wi[b] = lw_basis(&a->w, LL_WARP, b)[0];
	TpVal hw = lw_linear_lane_warp(L, p.lane_img, 5, wi, nw);
	int32_t hw_bits = hw_image_bits(p.lane_img, 5, wi, nw);
	int n = p.elems_per_reg * p.nmat;
	Type outs[16];
	for (int j = 0; j < n; j++)
		outs[j] = t->et;
	for (int g = 0; g < out.n; g += n) {
		TpVal addr = smem_offset(L, &a->w, hw, hw_bits, g, &t->pad, t->eb, base);
		TpOp *op = lw_op(L, TP_LDMATRIX, loc, &addr, 1, outs, n);
		op->attr.i = p.nmat;
		if (p.trans)
			op->attr.flags |= TP_TRANS;
		for (int j = 0; j < n; j++)
			out.r[g + j] = op->results[j];
	}
	return true;
}

void lw_smem_read(Lower *L, SrcLoc loc, const SmemTile *t, TpVal base, const LinearLayout *l,
                  LVal out)
{
	SmemAccess a;
	plan_w(L, t, l, &a);
	if (read_ldmatrix(L, loc, &a, base, out))
		return;
	a.hw = hw_linear(L, &a.w, &a.hw_bits);
	bool consec = smem_threads_consecutive(L, &a);
	Type outs[16];
	for (int j = 0; j < a.vec; j++)
		outs[j] = t->et;
	for (int g = 0; g < out.n; g += a.vec) {
		TpVal in[2] = {lw_smem_addr(L, &a, g, base), lw_true(L)};
		TpOp *op = lw_op(L, TP_SMEM_LOAD, loc, in, 2, outs, a.vec);
		op->attr.i = a.vec;
		if (smem_group_coalesced(&a, consec, g))
			op->attr.flags |= TP_COALESCED;
		for (int j = 0; j < a.vec; j++)
			out.r[g + j] = op->results[j];
	}
}

/* lower_dot.c: tl.dot (a [M,K], b [K,N], acc [M,N]; batched: a [B,M,K],
 * b [B,K,N], acc [B,M,N], each batch its own mma tiles or FMA loop).
 *
 * The layouts decide the path:
 * - mma.sync (target has_mma_sync; f16/bf16 -> f32, tf32, int8 -> i32, and
 *   e4m3/e5m2 in any pairing -> f32: m16n8k32 with has_mma_fp8, else
 *   m16n8k16 f16 on operands the emitters convert to f16, exactly, as
 *   Triton upcasts for sm_80; an f16 accumulator is
 *   carried in f32 and rounded back after the last k step): the
 *   accumulator is ll_mma_acc-shaped and the operands ll_mma_operand-shaped.
 *   Every 16x8 accumulator tile gets one TP MMA per k step, its operands
 *   listed in PTX fragment order (unpacked). Which register holds which
 *   fragment element is found by coordinates and checked for all 32 lanes,
 *   so the lowering does not depend on the register order the layout chose.
 * - FMA (always; any operand layouts): A and B go through shared memory once
 *   (src/layout/smem.c: layout_dot_fma_smem), then a uniform loop over k
 *   (unrolled by 4) loads, per distinct row m / column n of the thread's
 *   accumulator registers, A[m, k] and B[k, n] (staged in their own dtype on
 *   GPUs and cuda-emu and converted at the read, in the accumulator's on the
 *   native CPU: layout_dot_fma_stage_dt), and accumulates register-wise in
 *   increasing k order. The register count no longer grows with K.
 */
#include "codegen/lower_internal.h"
#include "layout/assign.h"

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

/* Byte offsets of tile elements in a row-major shared buffer, for the
 * registers of layout l: offset = base + sum over dims of coord * stride
 * (bytes; stride 0 = the dim does not count). The lane/warp part is computed
 * once; a register whose own coordinate bits are disjoint from the lane/warp
 * bits costs one add. */
typedef struct Addr {
	const LinearLayout *l;
	int rank;
	int64_t stride[LL_MAX_OUT];
	int32_t mask[LL_MAX_OUT]; /* coordinate bits the lanes/warps can set */
	TpVal hw[LL_MAX_OUT];     /* lane/warp part of each coordinate (0: none) */
	TpVal hwoff;              /* sum of hw[d] * stride[d] (i32) */
	int64_t hw_align;         /* every value of hwoff is a multiple of this */
} Addr;

static void addr_init(Lower *L, Addr *a, const LinearLayout *l, const int64_t *stride)
{
	memset(a, 0, sizeof *a);
	a->l = l;
	a->rank = l->n_out;
	a->hw_align = (int64_t)1 << 30;
	TpVal sum = 0;
	for (int d = 0; d < a->rank; d++) {
		a->stride[d] = stride[d];
		for (int k = 0; k < 2; k++) {
			LLInDim kind = k ? LL_WARP : LL_LANE;
			for (int b = 0; b < lw_bits(l, kind); b++)
				a->mask[d] |= lw_basis(l, kind, b)[d];
		}
		if (!stride[d] || !a->mask[d])
			continue;
		a->hw[d] = lw_hw_coord(L, l, d);
		TpVal t = stride[d] == 1 ? a->hw[d] : lw_bin(L, TP_MUL, a->hw[d], lw_i32(L, stride[d]));
		sum = sum ? lw_bin(L, TP_ADD, sum, t) : t;
		int64_t low = (int64_t)(a->mask[d] & -a->mask[d]) * stride[d];
		low &= -low;
		if (low < a->hw_align)
			a->hw_align = low;
	}
	a->hwoff = sum;
}

/* Is hwoff thread t's = t * bytes (t = warp * lanes + lane)? Then a register
 * addressed as hwoff + constant is one contiguous run over the threads: a
 * coalesced access on the CPU, whose threads are one SIMD vector. */
static bool addr_coalesced(Lower *L, const Addr *a, int64_t bytes)
{
	const LinearLayout *l = a->l;
	if (lw_bits(l, LL_LANE) != L->lane_bits || lw_bits(l, LL_WARP) != L->warp_bits)
		return false;
	int64_t want = bytes;
	int32_t seen[LL_MAX_OUT] = {0};
	for (int k = 0; k < 2; k++) {
		LLInDim kind = k ? LL_WARP : LL_LANE;
		for (int b = 0; b < lw_bits(l, kind); b++, want *= 2) {
			const int32_t *c = lw_basis(l, kind, b);
			int64_t off = 0;
			for (int d = 0; d < a->rank; d++) {
				if (!a->stride[d] || !c[d])
					continue;
				/* XOR of the bases is their sum only if no two share a bit */
				if ((c[d] & (c[d] - 1)) || (seen[d] & c[d]))
					return false;
				seen[d] |= c[d];
				off += (int64_t)c[d] * a->stride[d];
			}
			if (off != want)
				return false;
		}
	}
	return true;
}

static bool addr_disjoint(const Addr *a, const int32_t *c)
{
	for (int d = 0; d < a->rank; d++)
		if (a->stride[d] && (c[d] & a->mask[d]))
			return false;
	return true;
}

static int64_t addr_const(const Addr *a, const int32_t *c)
{
	int64_t k = 0;
	for (int d = 0; d < a->rank; d++)
		k += (int64_t)c[d] * a->stride[d];
	return k;
}

/* Offset (i32 bytes) of the element whose register-part coordinates are c. */
static TpVal addr_emit(Lower *L, const Addr *a, const int32_t *c, int64_t base)
{
	TpVal sum = 0;
	int64_t k = base;
	if (addr_disjoint(a, c)) {
		sum = a->hwoff;
		k += addr_const(a, c);
	} else {
		for (int d = 0; d < a->rank; d++) {
			if (!a->stride[d])
				continue;
			if (!a->hw[d]) {
				k += (int64_t)c[d] * a->stride[d];
				continue;
			}
			TpVal x = c[d] ? lw_bin(L, TP_XOR, a->hw[d], lw_i32(L, c[d])) : a->hw[d];
			if (a->stride[d] != 1)
				x = lw_bin(L, TP_MUL, x, lw_i32(L, a->stride[d]));
			sum = sum ? lw_bin(L, TP_ADD, sum, x) : x;
		}
	}
	if (!sum)
		return lw_i32(L, k);
	return k ? lw_bin(L, TP_ADD, sum, lw_i32(L, k)) : sum;
}

/* Can registers g..g+v-1 (g % v == 0, owned ones) be stored as one vector? */
static bool write_vec_ok(const Addr *a, int n, uint32_t rf, int v, int eb, int64_t base)
{
	if (v > n || (rf & (uint32_t)(v - 1)) || a->hw_align % (v * eb))
		return false;
	for (int g = 0; g < n; g += v) {
		if ((uint32_t)g & rf)
			continue;
		int32_t c0[LL_MAX_OUT];
		ll_apply_hw(a->l, (uint32_t)g, 0, 0, c0);
		int64_t k0 = addr_const(a, c0);
		if (!addr_disjoint(a, c0) || (k0 + base) % (v * eb))
			return false;
		for (int j = 1; j < v; j++) {
			int32_t c[LL_MAX_OUT];
			ll_apply_hw(a->l, (uint32_t)(g + j), 0, 0, c);
			if (!addr_disjoint(a, c) || addr_const(a, c) != k0 + (int64_t)j * eb)
				return false;
		}
	}
	return true;
}

/* Phase 1: the canonical owner of every element of x (layout l) writes it
 * to the row-major buffer at `base` with byte strides `stride`. */
static void stage_write(Lower *L, const TirOp *op, const LinearLayout *l, LVal x,
                        const int64_t *stride, int64_t base, int eb)
{
	uint32_t rf, lf, wf;
	lw_free(L, l, &rf, &lf, &wf);
	TpVal own = lw_owner_pred(L, lf, wf);
	TpVal mask = own ? own : lw_true(L);
	Addr a;
	addr_init(L, &a, l, stride);
	int v = 16 / eb;
	while (v > 1 && !write_vec_ok(&a, x.n, rf, v, eb, base))
		v /= 2;
	/* the CPU stores a run consecutive over the threads as one vector */
	bool coal = lw_simd_program(L) && !own && addr_coalesced(L, &a, (int64_t)v * eb);
	for (int g = 0; g < x.n; g += v) {
		if ((uint32_t)g & rf)
			continue;
		int32_t c[LL_MAX_OUT];
		ll_apply_hw(l, (uint32_t)g, 0, 0, c);
		TpVal in[2 + 16];
		in[0] = addr_emit(L, &a, c, base);
		in[1] = mask;
		for (int j = 0; j < v; j++)
			in[2 + j] = x.r[g + j];
		TpOp *t = lw_op(L, TP_SMEM_STORE, op->loc, in, 2 + v, NULL, 0);
		t->attr.i = v;
		if (coal && addr_disjoint(&a, c))
			t->attr.flags |= TP_COALESCED;
	}
}

/* Distinct operand rows/columns of the accumulator registers: key[r] =
 * index of register r's A row (B column); the first register of each. */
typedef struct Keys {
	int n;
	int *of;    /* per acc register */
	int *first; /* per key: an acc register */
	int *vec;   /* per key: vector width of the load starting here (0: inside one) */
	TpVal *off; /* per key: byte offset at k = 0 */
	bool *disjoint; /* per key: off is the lane/warp part plus a constant */
} Keys;

typedef struct Coords {
	int32_t c[LL_MAX_OUT];
} Coords;

static void keys_build(Lower *L, const Addr *a, int nc, Keys *k)
{
	k->of = ARENA_NEWN(L->arena, int, nc);
	k->first = ARENA_NEWN(L->arena, int, nc);
	k->vec = ARENA_NEWN(L->arena, int, nc);
	k->off = ARENA_NEWN(L->arena, TpVal, nc);
	k->disjoint = ARENA_NEWN(L->arena, bool, nc);
	k->n = 0;
	Coords *cs = ARENA_NEWN(L->arena, Coords, nc);
	for (int r = 0; r < nc; r++) {
		int32_t c[LL_MAX_OUT] = {0};
		ll_apply_hw(a->l, (uint32_t)r, 0, 0, c);
		for (int d = 0; d < a->rank; d++)
			if (!a->stride[d])
				c[d] = 0;
		int i = 0;
		while (i < k->n && memcmp(cs[i].c, c, sizeof c))
			i++;
		if (i == k->n) {
			memcpy(cs[i].c, c, sizeof c);
			k->first[i] = r;
			k->n++;
		}
		k->of[r] = i;
	}
}

/* Greedy vector loads over consecutive keys (B columns along n). */
static void keys_vectorize(const Addr *a, Keys *k, int eb, int64_t base, int64_t row_bytes)
{
	for (int i = 0; i < k->n;) {
		int v = 16 / eb;
		for (; v > 1; v /= 2) {
			if (i + v > k->n || a->hw_align % (v * eb) || row_bytes % (v * eb))
				continue;
			int32_t c0[LL_MAX_OUT];
			ll_apply_hw(a->l, (uint32_t)k->first[i], 0, 0, c0);
			int64_t k0 = addr_const(a, c0);
			bool ok = addr_disjoint(a, c0) && (k0 + base) % (v * eb) == 0;
			for (int j = 1; ok && j < v; j++) {
				int32_t c[LL_MAX_OUT];
				ll_apply_hw(a->l, (uint32_t)k->first[i + j], 0, 0, c);
				ok = addr_disjoint(a, c) && addr_const(a, c) == k0 + (int64_t)j * eb;
			}
			if (ok)
				break;
		}
		k->vec[i] = v;
		for (int j = 1; j < v; j++)
			k->vec[i + j] = 0;
		i += v;
	}
}

/* Accumulator bytes one k loop carries on the CPU (fma_group): 8 AVX-512 or
 * 16 AVX2 vector registers. */
enum { CPU_ACC_BYTES = 512 };

typedef struct FmaCtx {
	const Dot *D;
	Keys ka, kb;
	int unroll, va; /* k steps per iteration; A elements per load (along k) */
	int eba, ebb;
	Type sta, stb;   /* staged dtypes (layout_dot_fma_stage_dt) */
	int64_t bstride; /* bytes between B rows (k) */
	bool b_coalesced; /* B reads of disjoint keys are consecutive over threads */
} FmaCtx;

/* k0 (uniform i32) .. k0 + unroll - 1: loads, then the FMAs of accumulator
 * registers r0 .. r1 - 1 in k order. Only the A rows and B columns those
 * registers use are loaded. */
static void fma_steps(FmaCtx *X, TpVal k0, TpVal *acc, int r0, int r1)
{
	const Dot *D = X->D;
	Lower *L = D->L;
	int U = X->unroll;
	TpVal *av = ARENA_NEWN(L->arena, TpVal, X->ka.n * U);
	TpVal *bv = ARENA_NEWN(L->arena, TpVal, X->kb.n * U);
	bool *need_a = ARENA_NEWN(L->arena, bool, X->ka.n);
	bool *need_b = ARENA_NEWN(L->arena, bool, X->kb.n);
	for (int r = r0; r < r1; r++) {
		need_a[X->ka.of[r]] = true;
		need_b[X->kb.of[r]] = true;
	}
	TpVal ka0 = lw_bin(L, TP_MUL, k0, lw_i32(L, X->eba));
	TpVal kb0 = lw_bin(L, TP_MUL, k0, lw_i32(L, X->bstride));
	Type outs[16];
	for (int u = 0; u < U; u += X->va) {
		TpVal ko = u ? lw_bin(L, TP_ADD, ka0, lw_i32(L, (int64_t)u * X->eba)) : ka0;
		for (int j = 0; j < X->va; j++)
			outs[j] = X->sta;
		for (int i = 0; i < X->ka.n; i++) {
			if (!need_a[i])
				continue;
			TpVal in[2] = {lw_bin(L, TP_ADD, X->ka.off[i], ko), lw_true(L)};
			TpOp *t = lw_op(L, TP_SMEM_LOAD, D->op->loc, in, 2, outs, X->va);
			t->attr.i = X->va;
			for (int j = 0; j < X->va; j++)
				av[i * U + u + j] = lw_cast(L, t->results[j], D->tc);
		}
	}
	for (int u = 0; u < U; u++) {
		TpVal ko = u ? lw_bin(L, TP_ADD, kb0, lw_i32(L, (int64_t)u * X->bstride)) : kb0;
		for (int i = 0; i < X->kb.n; i++) {
			int v = X->kb.vec[i];
			bool used = false;
			for (int j = 0; j < v; j++)
				used |= need_b[i + j];
			if (!used)
				continue;
			for (int j = 0; j < v; j++)
				outs[j] = X->stb;
			TpVal in[2] = {lw_bin(L, TP_ADD, X->kb.off[i], ko), lw_true(L)};
			TpOp *t = lw_op(L, TP_SMEM_LOAD, D->op->loc, in, 2, outs, v);
			t->attr.i = v;
			if (X->b_coalesced && v == 1 && X->kb.disjoint[i])
				t->attr.flags |= TP_COALESCED;
			for (int j = 0; j < v; j++)
				bv[(i + j) * U + u] = lw_cast(L, t->results[j], D->tc);
		}
	}
	bool is_f = dtype_is_float((DType)D->tc.dt);
	for (int u = 0; u < U; u++)
		for (int r = r0; r < r1; r++) {
			TpVal x = av[X->ka.of[r] * U + u], y = bv[X->kb.of[r] * U + u];
			if (is_f) {
				TpVal in[3] = {x, y, acc[r]};
				acc[r] = lw_op1(L, TP_FMA, in, 3, D->tc);
			} else {
				acc[r] = lw_bin(L, TP_ADD, acc[r], lw_bin(L, TP_MUL, x, y));
			}
		}
}

/* The loop over k for accumulator registers r0 .. r1 - 1. */
static void fma_loop(FmaCtx *X, TpVal *acc, int r0, int r1)
{
	const Dot *D = X->D;
	Lower *L = D->L;
	int n = r1 - r0;
	if (D->K == X->unroll) {
		fma_steps(X, lw_i32(L, 0), acc, r0, r1);
		return;
	}
	Type i32 = type_scalar(DT_I32);
	TpVal *in = ARENA_NEWN(L->arena, TpVal, n + 3);
	Type *rt = ARENA_NEWN(L->arena, Type, n);
	in[0] = lw_i32(L, 0);
	in[1] = lw_i32(L, D->K);
	in[2] = lw_i32(L, X->unroll);
	for (int r = r0; r < r1; r++) {
		in[3 + r - r0] = acc[r];
		rt[r - r0] = D->tc;
	}
	TpOp *t = lw_op(L, TP_FOR, D->op->loc, in, n + 3, rt, n);
	tp_op_add_regions(L->f, t, 1);
	TpBlock *body = &t->regions[0];
	TpVal iv = tp_block_add_arg(L->f, body, i32, true);
	for (int r = r0; r < r1; r++)
		acc[r] = tp_block_add_arg(L->f, body, D->tc, false);
	TpBlock *save = L->blk;
	L->blk = body;
	fma_steps(X, iv, acc, r0, r1);
	lw_op(L, TP_YIELD, D->op->loc, acc + r0, n, NULL, 0);
	L->blk = save;
	for (int r = r0; r < r1; r++) {
		L->f->vals.data[t->results[r - r0]].uniform = false;
		acc[r] = t->results[r - r0];
	}
}

/* Accumulator registers one k loop carries. A GPU thread keeps them all in
 * registers, and one loop shares each load among all of them. On the CPU a
 * register is a vector over the program's threads (<32 x float> on 4
 * warps), so a 64x64 tile's 128 of them would live in memory: there the
 * accumulators are taken a few at a time, each group looping over k with
 * its own loads (from L1), so they stay in vector registers. */
static int fma_group(const Dot *D, int nc)
{
	Lower *L = D->L;
	if (!lw_simd_program(L))
		return nc;
	int64_t reg_bytes = ((int64_t)1 << (L->lane_bits + L->warp_bits)) *
	                    MAXOF(1, dtype_bytes((DType)D->tc.dt));
	int64_t g = CPU_ACC_BYTES / reg_bytes;
	return g < 1 ? 1 : g > nc ? nc : (int)g;
}

/* FMA path, any operand layouts: (1) the owners write A and B to shared
 * memory (layout_dot_fma_smem), barrier; (2) a uniform loop over k whose
 * body loads A[m, k] for every distinct row m and B[k, n] for every distinct
 * column n of this thread's accumulator registers (converted to the
 * accumulator type) and accumulates in increasing k order; (3) barrier. */
static void fma_lower(const Dot *D, LVal a, LVal b, LVal c, LVal out)
{
	Lower *L = D->L;
	const TirFunc *tf = L->tf;
	Type ta = tf->vals.data[D->op->operands[0]].ty, tb = tf->vals.data[D->op->operands[1]].ty;
	int rank = D->lc->n_out, dm = rank - 2, dn = rank - 1;
	int64_t pad_a, off_b;
	Type tcc = tf->vals.data[D->op->operands[2]].ty;
	int64_t bytes = layout_dot_fma_smem(L->t, ta, tb, tcc, &pad_a, &off_b);
	if (bytes > INT32_MAX)
		lw_ice("dot: %lld bytes of shared memory", (long long)bytes);
	int base = lw_scratch(L, D->op, (int)bytes);
	FmaCtx X = {0};
	X.D = D;
	DType tcd = (DType)D->tc.dt;
	X.sta = type_scalar(layout_dot_fma_stage_dt(L->t, (DType)D->ta.dt, tcd));
	X.stb = type_scalar(layout_dot_fma_stage_dt(L->t, (DType)D->tb.dt, tcd));
	X.eba = MAXOF(1, dtype_bytes((DType)X.sta.dt));
	X.ebb = MAXOF(1, dtype_bytes((DType)X.stb.dt));
	/* staged in the operand's own type (converted to the accumulator's at
	 * each read) or the accumulator's (converted once, here) */
	LVal ca = lw_alloc(L, a.n), cb = lw_alloc(L, b.n);
	for (int r = 0; r < a.n; r++)
		ca.r[r] = lw_cast(L, a.r[r], X.sta);
	for (int r = 0; r < b.n; r++)
		cb.r[r] = lw_cast(L, b.r[r], X.stb);
	a = ca;
	b = cb;
	/* row-major byte strides */
	int64_t sa[LL_MAX_OUT] = {0}, sb[LL_MAX_OUT] = {0};
	sa[dn] = X.eba;
	sa[dm] = (D->K + pad_a) * X.eba;
	sb[dn] = X.ebb;
	sb[dm] = (int64_t)D->N * X.ebb;
	for (int d = dm - 1; d >= 0; d--) {
		sa[d] = sa[d + 1] * (d + 1 == dm ? D->M : ta.shape[d + 1]);
		sb[d] = sb[d + 1] * (d + 1 == dm ? D->K : tb.shape[d + 1]);
	}
	X.bstride = sb[dm];
	stage_write(L, D->op, D->la, a, sa, base, X.eba);
	stage_write(L, D->op, D->lb, b, sb, base + off_b, X.ebb);
	lw_barrier(L);
	/* reads, addressed by the accumulator's coordinates */
	int64_t ra[LL_MAX_OUT], rb[LL_MAX_OUT];
	memcpy(ra, sa, sizeof ra);
	memcpy(rb, sb, sizeof rb);
	ra[dn] = 0; /* A[.., m, k]: k comes from the loop */
	rb[dm] = 0; /* B[.., k, n] */
	Addr aa, ab;
	addr_init(L, &aa, D->lc, ra);
	addr_init(L, &ab, D->lc, rb);
	int nc = c.n, group = fma_group(D, nc);
	keys_build(L, &aa, nc, &X.ka);
	keys_build(L, &ab, nc, &X.kb);
	keys_vectorize(&ab, &X.kb, X.ebb, base + off_b, X.bstride);
	/* unroll by up to 4 for ILP, but keep the loop body near 256 FMAs:
	 * LLVM's instruction selection is superlinear in basic-block size */
	X.unroll = 4;
	while (X.unroll > 1 && (X.unroll > D->K || X.unroll * group > 256))
		X.unroll /= 2;
	X.va = X.unroll;
	while (X.va > 1 && (X.va * X.eba > 16 || (D->K + pad_a) % X.va || base % (X.va * X.eba)))
		X.va /= 2;
	for (int i = 0; i < X.ka.n; i++) {
		int32_t cc[LL_MAX_OUT];
		ll_apply_hw(D->lc, (uint32_t)X.ka.first[i], 0, 0, cc);
		X.ka.off[i] = addr_emit(L, &aa, cc, base);
	}
	for (int i = 0; i < X.kb.n; i++) {
		if (!X.kb.vec[i])
			continue;
		int32_t cc[LL_MAX_OUT];
		ll_apply_hw(D->lc, (uint32_t)X.kb.first[i], 0, 0, cc);
		X.kb.off[i] = addr_emit(L, &ab, cc, base + off_b);
		X.kb.disjoint[i] = addr_disjoint(&ab, cc);
	}
	X.b_coalesced = lw_simd_program(L) && addr_coalesced(L, &ab, X.ebb);
	TpVal *acc = ARENA_NEWN(L->arena, TpVal, nc);
	for (int r = 0; r < nc; r++)
		acc[r] = c.r[r];
	for (int r0 = 0; r0 < nc; r0 += group)
		fma_loop(&X, acc, r0, MINOF(nc, r0 + group));
	lw_barrier(L);
	for (int r = 0; r < nc; r++)
		out.r[r] = acc[r];
}

/* ---- mma.sync --------------------------------------------------------------------------- */

typedef struct MmaShape {
	MmaKind kind;
	int kstep, na, nb;
} MmaShape;

static bool mma_shape(const Dot *D, MmaShape *s)
{
	DType a = (DType)D->ta.dt, b = (DType)D->tb.dt, c = (DType)D->tc.dt;
	bool fp8 = (a == DT_F8E4M3 || a == DT_F8E5M2) && (b == DT_F8E4M3 || b == DT_F8E5M2);
	if (a != b && !fp8)
		return false;
	if (fp8 && D->L->t->has_mma_fp8 && (c == DT_F32 || c == DT_F16))
		*s = (MmaShape){(MmaKind)(MMA_M16N8K32_E4M3_E4M3_F32 + 2 * (a == DT_F8E5M2) +
		                          (b == DT_F8E5M2)),
		                32, 16, 8};
	else if ((a == DT_F16 || fp8) && (c == DT_F32 || c == DT_F16))
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
	} else if (mma_kind_is_k32(k)) {
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
	else if (mma_kind_is_k32(k))
		*kk = 4 * t + (j & 3) + 16 * (j >> 2);
	else
		*kk = 2 * t + (j & 1) + 8 * (j >> 1);
}

static void frag_c(int j, int lane, int *row, int *col)
{
	*row = (lane >> 2) + 8 * (j >> 1);
	*col = 2 * (lane & 3) + (j & 1);
}

/* The register of l holding (x0 + dx(lane), y0 + dy(lane)) in every lane, in
 * the last two dims; the leading (batch) coordinates are lead[]. */
typedef void (*FragFn)(MmaKind k, int j, int lane, int *x, int *y);

static int frag_reg(const LinearLayout *l, MmaKind kind, int j, const int32_t *lead, int x0,
                    int y0, FragFn fn)
{
	int x, y, rank = l->n_out, dx = rank - 2, dy = rank - 1;
	fn(kind, j, 0, &x, &y);
	int32_t c[LL_MAX_OUT] = {0};
	for (int d = 0; d < dx; d++)
		c[d] = lead[d];
	c[dx] = x0 + x;
	c[dy] = y0 + y;
	int r = lw_find_reg(l, c, 0);
	if (r < 0)
		return -1;
	/* Both sides are XOR-affine in the lane: the layout is linear, and a
	 * fragment's coordinates are bit fields of the lane (lane / 4, lane % 4
	 * times 1, 2 or 4) plus constants on other bits (j, the tile origin).
	 * So they agree on all 32 lanes if they do on lane 0 and each lane bit. */
	for (int lane = 0; lane < 32; lane = lane ? lane << 1 : 1) {
		int32_t got[LL_MAX_OUT];
		ll_apply_hw(l, (uint32_t)r, (uint32_t)lane, 0, got);
		fn(kind, j, lane, &x, &y);
		c[dx] = x0 + x;
		c[dy] = y0 + y;
		if (memcmp(got, c, sizeof(int32_t) * (size_t)rank))
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
		int rank = D->lc->n_out;
		int m0 = c[rank - 2] & ~15, n0 = c[rank - 1] & ~7; /* c[0]: the batch at rank 3 */
		MmaTile *t = &tiles[nt];
		for (int j = 0; j < 4; j++) {
			t->rc[j] = frag_reg(D->lc, s->kind, j, c, m0, n0, frag_c_fn);
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
				if ((t->ra[k * s->na + j] = frag_reg(D->la, s->kind, j, c, m0,
				                                     k * s->kstep, frag_a)) < 0)
					return -1;
			for (int j = 0; j < s->nb; j++)
				if ((t->rb[k * s->nb + j] = frag_reg(D->lb, s->kind, j, c,
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
	TpVal *acc = ARENA_NEWN(L->arena, TpVal, 4 * nt);
	for (int i = 0; i < nt; i++)
		for (int j = 0; j < 4; j++) /* an f16 accumulator is carried in f32 */
			acc[4 * i + j] = lw_cast(L, c.r[tiles[i].rc[j]], f32);
	/* k outermost, as Triton orders them: one k step's operand fragments are
	 * live at a time once their loads sink to their first use (tp_sched.c),
	 * and consecutive mmas are independent */
	for (int k = 0; k < nk; k++)
		for (int i = 0; i < nt; i++) {
			const MmaTile *t = &tiles[i];
			TpVal in[16 + 8 + 4];
			int n = 0;
			for (int j = 0; j < s->na; j++)
				in[n++] = a.r[t->ra[k * s->na + j]];
			for (int j = 0; j < s->nb; j++)
				in[n++] = b.r[t->rb[k * s->nb + j]];
			for (int j = 0; j < 4; j++)
				in[n++] = acc[4 * i + j];
			TpOp *op = lw_op(L, TP_MMA, D->op->loc, in, n, outs, 4);
			op->attr.i = s->kind;
			for (int j = 0; j < 4; j++)
				acc[4 * i + j] = op->results[j];
		}
	for (int i = 0; i < nt; i++)
		for (int j = 0; j < 4; j++)
			out.r[tiles[i].rc[j]] = lw_cast(L, acc[4 * i + j], D->tc);
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
	if (L->t->has_mma_sync && mma_shape(&D, &s) &&
	    (nt = mma_plan(&D, &s, &tiles)) >= 0) {
		mma_emit(&D, &s, tiles, nt, a, b, c, out);
		lw_set(L, op->results[0], out);
		return;
	}
	fma_lower(&D, a, b, c, out);
	lw_set(L, op->results[0], out);
}

bool lw_dot(Lower *L, const TirOp *op)
{
	if (op->kind != TOP_DOT)
		return false;
	lower_dot_op(L, op);
	return true;
}

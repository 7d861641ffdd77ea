/* assign.c: layout assignment on the Tile IR (the contract is in assign.h).
 *
 * Requires: a verified Tile IR without layouts. Guarantees: every tile value
 * has an interned layout (equal layouts are the same pointer); operands have
 * the layout their consumer needs (CONVERT_LAYOUT ops or rematerialized cheap
 * ops are inserted where they differ); memory ops carry their vector width in
 * attr.i2; TirFunc.smem_bytes is set (smem.c).
 *
 * How (a small version of Triton's coalesce + remove-layout-conversions):
 * 1. Axis analysis (axis.c) gives contiguity/alignment of pointers.
 * 2. Anchors: a load/store/atomic gets a coalesced blocked layout along its
 *    most contiguous dim with the widest provable vector (<= 16 bytes; a load
 *    as wide as any memory op of its shape and order); a dot
 *    gets MMA accumulator/operand layouts (targets with mma.sync and fitting
 *    dtypes/shapes) or the FMA layout (blocked result; the operands keep
 *    their producers' layouts).
 * 3. Backward pass: each value learns the layout its (last) anchor-side user
 *    wants, through elementwise and view ops and loop-carried values.
 * 4. Forward pass (assign_forward.c) in program order: sources (arange, splat, constants) take
 *    the wanted layout; elementwise ops keep their operands' layout when they
 *    agree; reductions slice; views transform. Where a consumer needs another
 *    layout, a cheap producer chain (arange/splat/constant and elementwise or
 *    view ops over them) is cloned in the needed layout, a broadcast is redone
 *    from its source in the needed layout (converting the smaller tile),
 *    anything else gets a CONVERT_LAYOUT (cached per block).
 * 5. Dead pure ops left behind by rematerialization are removed.
 */
#include <stdlib.h>
#include <string.h>

#include "layout/assign_int.h"

/* ---- small helpers ---------------------------------------------------------- */


const LinearLayout *lay_intern(Assign *A, const LinearLayout *l)
{
	for (size_t i = 0; i < A->interned.len; i++)
		if (ll_equal(A->interned.data[i], l))
			return A->interned.data[i];
	const LinearLayout *p = arena_dup(A->lc->arena, l, sizeof *l);
	vec_push(&A->interned, p);
	return p;
}

void set_layout(Assign *A, ValId v, const LinearLayout *l)
{
	if (is_tile(A, v))
		A->f->vals.data[v].layout = l ? lay_intern(A, l) : NULL;
}


static void set_want(Assign *A, ValId v, const LinearLayout *l)
{
	if (l && is_tile(A, v) && v < A->nvals0 && !A->want[v]) {
		A->want[v] = lay_intern(A, l);
		A->nwants++;
	}
}

void shape_of(const Assign *A, ValId v, int32_t shape[])
{
	Type t = vty(A, v);
	for (int d = 0; d < t.rank; d++)
		shape[d] = t.shape[d];
}

void default_layout(const Assign *A, ValId v, LinearLayout *out)
{
	int32_t shape[TIR_MAX_RANK];
	shape_of(A, v, shape);
	ll_default_blocked(out, vty(A, v).rank, shape, A->warps, A->lanes, 1);
}

bool is_elementwise(int k)
{
	switch (k) {
	case TOP_ADD: case TOP_SUB: case TOP_MUL: case TOP_DIV: case TOP_REM:
	case TOP_AND: case TOP_OR: case TOP_XOR: case TOP_SHL: case TOP_SHR:
	case TOP_MIN: case TOP_MAX: case TOP_UMULHI: case TOP_CMP: case TOP_NEG:
	case TOP_NOT: case TOP_MATH: case TOP_FMA: case TOP_SELECT: case TOP_CAST:
	case TOP_BITCAST: case TOP_PTR_ADD: case TOP_PTR_TO_INT: case TOP_INT_TO_PTR:
	case TOP_CONVERT_LAYOUT:
		return true;
	}
	return false;
}

bool is_memory(int k)
{
	return k == TOP_LOAD || k == TOP_STORE || k == TOP_ATOMIC || k == TOP_ATOMIC_CAS;
}

/* Index of the mask operand of a memory op, or -1. */
static int mask_index(const TirOp *op)
{
	if (!(op->attr.flags & TIR_HAS_MASK) || op->kind == TOP_ATOMIC_CAS)
		return -1;
	return op->kind == TOP_LOAD ? 1 : 2;
}

/* ---- anchors ------------------------------------------------------------------ */

static int elem_bytes_of_ptr(const Assign *A, ValId p)
{
	int eb = dtype_bytes((DType)vty(A, p).elem);
	return eb > 0 ? eb : 1;
}

static ValId origin_of(const Assign *A, ValId v)
{
	if (v < A->nvals0)
		return v;
	size_t i = v - A->nvals0;
	return i < A->origin.len ? A->origin.data[i] : 0;
}

/* r (made by the pass) holds the same elements as v */
void set_origin(Assign *A, ValId r, ValId v)
{
	ValId o = origin_of(A, v);
	if (!o || r < A->nvals0)
		return;
	size_t i = r - A->nvals0;
	while (A->origin.len <= i)
		vec_push(&A->origin, 0);
	A->origin.data[i] = o;
}

/* Axis info (contiguity, divisibility, constancy) of v; a conversion or a
 * rematerialized copy has its source's, so an access whose pointer or mask
 * was converted into its layout still vectorizes. */
static const AxisInfo *axis_of(const Assign *A, ValId v)
{
	v = v ? origin_of(A, v) : 0;
	return v ? &A->ax[v] : NULL;
}

/* Native CPU: the threads of a program instance are the SIMD lanes of one
 * vector (ISPC style), so a register is <T x elem> across threads. */
static bool simd_threads(const Assign *A)
{
	return A->lc->target->kind == TARGET_CPU && !A->lc->target->emulate;
}

/* Elements one atomic instruction updates, as Triton's atomic lowering packs
 * them: float adds on Hopper as atom.global.add vectors (4 f32, 8 f16/bf16:
 * 16 bytes), elsewhere f16 adds in pairs (f16x2); one for the rest, and for
 * atomic_cas. The layout gives each thread that many consecutive elements
 * (no more: for single-element atomics, one element per thread keeps each
 * instruction's 32 addresses consecutive). */
static int atomic_vec(const Assign *A, const TirOp *op)
{
	if (op->kind != TOP_ATOMIC || op->attr.atomic != ATOM_ADD)
		return 1;
	const TargetDesc *t = A->lc->target;
	if (t->kind != TARGET_CUDA && !t->emulate)
		return 1;
	DType d = (DType)vty(A, op->operands[0]).elem;
	if (t->has_vector_atomics && (d == DT_F32 || d == DT_F16 || d == DT_BF16))
		return 16 / dtype_bytes(d);
	return d == DT_F16 ? 2 : 1;
}

/* Coalesced layout for a memory op on a pointer tile. */
static void collect_mem_ops(Assign *A, const TirBlock *b)
{
	for (int i = 0; i < b->nops; i++) {
		const TirOp *op = b->ops[i];
		if (is_memory(op->kind) && op->nin && is_tile(A, op->operands[0]))
			vec_push(&A->mem_ops, op);
		for (int r = 0; r < op->nregions; r++)
			collect_mem_ops(A, &op->regions[r]);
	}
}

/* A memory op's dims, most contiguous first (ties: last dim first), and the
 * elements per thread its pointer, mask and element size allow. */
static int mem_own_vec(const Assign *A, const TirOp *op, int32_t order[])
{
	ValId p = op->operands[0];
	Type t = vty(A, p);
	int rank = t.rank;
	const AxisInfo *pa = axis_of(A, p);
	for (int k = 0; k < rank; k++)
		order[k] = rank - 1 - k;
	for (int i = 1; i < rank && pa; i++) /* stable sort by contiguity */
		for (int j = i; j > 0 && pa->contig[order[j]] > pa->contig[order[j - 1]]; j--) {
			int32_t tmp = order[j];
			order[j] = order[j - 1];
			order[j - 1] = tmp;
		}
	int vec = 1;
	if (pa) {
		int mi = mask_index(op);
		const AxisInfo *ma = mi >= 0 && mi < op->nin ? axis_of(A, op->operands[mi]) : NULL;
		vec = axis_vector_width(pa, ma, order[0], elem_bytes_of_ptr(A, p));
	}
	int64_t per_thread = type_numel(t) / ((int64_t)A->lanes * A->warps);
	if (vec > per_thread)
		vec = (int)MAXOF(per_thread, 1);
	if (op->kind == TOP_ATOMIC || op->kind == TOP_ATOMIC_CAS)
		vec = MINOF(vec, atomic_vec(A, op));
	return vec;
}

static bool same_shape(const Assign *A, ValId a, ValId b)
{
	Type x = vty(A, a), y = vty(A, b);
	if (x.rank != y.rank)
		return false;
	for (int d = 0; d < x.rank; d++)
		if (x.shape[d] != y.shape[d])
			return false;
	return true;
}

/* Coalesced layout for a memory op on a pointer tile. A load takes the
 * widest grouping among the memory ops on pointers of its shape and order,
 * as Triton's Coalesce does: an fp32 weight row loaded beside an fp16 row
 * and stored as fp16 is then 8 elements per thread like them (two 16-byte
 * loads) and nothing converts between the three. A store or an atomic keeps
 * its own width: wider would leave gaps in each instruction's writes. */
static void mem_layout(const Assign *A, const TirOp *op, LinearLayout *out)
{
	ValId p = op->operands[0];
	Type t = vty(A, p);
	int32_t shape[TIR_MAX_RANK], order[TIR_MAX_RANK], o2[TIR_MAX_RANK];
	shape_of(A, p, shape);
	int vec = mem_own_vec(A, op, order);
	for (size_t i = 0; op->kind == TOP_LOAD && i < A->mem_ops.len; i++) {
		const TirOp *o = A->mem_ops.data[i];
		if (o == op || !same_shape(A, o->operands[0], p))
			continue;
		int v = mem_own_vec(A, o, o2);
		if (v > vec && !memcmp(order, o2, sizeof(int32_t) * (size_t)t.rank))
			vec = v;
	}
	/* Native CPU: the threads of a program are SIMD lanes, so the wide access
	 * is across threads: one register of every thread is one <T x elem>
	 * vector over T consecutive elements (TP_COALESCED, no shuffles). Giving
	 * each thread `vec` consecutive elements instead would force the emitter
	 * to de-interleave every load and re-interleave every store. */
	if (simd_threads(A))
		vec = 1;
	ll_coalesced(out, t.rank, shape, order, A->warps, A->lanes, vec);
}

/* Vector width (elements) a memory op with layout l can use. */
int mem_vec(const Assign *A, const TirOp *op, const LinearLayout *l)
{
	if (atomic_vec(A, op) == 1 && (op->kind == TOP_ATOMIC || op->kind == TOP_ATOMIC_CAS))
		return 1;
	if (!l || !l->in_bits[0])
		return 1;
	int dim = -1;
	for (int d = 0; d < l->n_out; d++)
		if (l->basis[0][0][d])
			dim = d;
	if (dim < 0)
		return 1;
	int v = ll_num_contig_regs(l, dim);
	const AxisInfo *pa = axis_of(A, op->operands[0]);
	if (!pa)
		return 1;
	int mi = mask_index(op);
	const AxisInfo *ma = mi >= 0 && mi < op->nin ? axis_of(A, op->operands[mi]) : NULL;
	if (mi >= 0 && mi < op->nin && !ma)
		return 1;
	int w = axis_vector_width(pa, ma, dim, elem_bytes_of_ptr(A, op->operands[0]));
	if (op->kind == TOP_ATOMIC)
		w = MINOF(w, atomic_vec(A, op));
	return v < w ? v : w;
}

/* The runs of consecutive addresses along each dim (attr.perm): a CPU
 * access can be a few short vectors where it cannot be one long one. Runs
 * span threads, so a max_contiguous hint counts only up to one 16-byte
 * vector, as far as a GPU relies on it; past that, proven contiguity. */
void mem_runs(const Assign *A, TirOp *op)
{
	ValId p = op->operands[0];
	const AxisInfo *pa = axis_of(A, p);
	const AxisInfo *pp = A->ax_proven && pa ? &A->ax_proven[pa - A->ax] : NULL;
	int eb = elem_bytes_of_ptr(A, p);
	int64_t vmax = eb > 0 && eb <= 16 ? 16 / eb : 1;
	for (int d = 0; d < TIR_MAX_RANK; d++) {
		int64_t c = pa && d < pa->rank ? pa->contig[d] : 0;
		if (pp && c > vmax)
			c = MAXOF(pp->contig[d], vmax);
		op->attr.perm[d] = (int)(c < (1 << 30) ? c : 1 << 30);
	}
}

/* Triton's warpsPerTileV2 for a [M, N] accumulator. */
static void mma_warps(int64_t m, int64_t n, int num_warps, int32_t w[2])
{
	w[0] = w[1] = 1;
	while (w[0] * w[1] < num_warps) {
		if (m / 16 / w[0] >= n / 16 / w[1]) {
			if (w[0] < m / 16)
				w[0] *= 2;
			else
				w[1] *= 2;
		} else {
			w[1] *= 2;
		}
	}
}

/* A dot chained to another (flash attention's Q K^T feeding P V) puts every
 * warp along M, like Triton's warpsPerTileV2: each warp then owns whole rows
 * of the first dot's result, the row split the second dot's A operand needs,
 * so the softmax between them stays in registers. Triton picks M or N by the
 * first dot's shape and lets the others copy it; the rows are what chained
 * dots share, so M for every one of them here. Falls back to the balanced
 * split where M is too short. */
static void mma_warps_chained(int64_t m, int64_t n, int num_warps, int32_t w[2])
{
	if (m / 16 < num_warps) {
		mma_warps(m, n, num_warps, w);
		return;
	}
	w[0] = num_warps;
	w[1] = 1;
}

/* Marks, in A->chained, the results of dots of block b (and nested blocks)
 * that share a def-use component of b with another dot, transpositions
 * excluded (Triton's multiRootGetSlice over the dot's region). */
static void mark_chained_dots(Assign *A, const TirBlock *b)
{
	int n = b->nops, ndots = 0;
	for (int i = 0; i < n; i++) {
		const TirOp *op = b->ops[i];
		for (int r = 0; r < op->nregions; r++)
			mark_chained_dots(A, &op->regions[r]);
		ndots += op->kind == TOP_DOT;
	}
	if (ndots < 2)
		return;
	/* producer index in b of each value defined here, -1 elsewhere */
	int *at = calloc(A->nvals0 + 1, sizeof *at);
	uint8_t *comp = calloc((size_t)n + 1, 1);
	for (int i = 0; i < n; i++)
		for (int k = 0; k < b->ops[i]->nout; k++)
			if (b->ops[i]->results[k] < A->nvals0)
				at[b->ops[i]->results[k]] = i + 1;
	for (int d = 0; d < n; d++) {
		if (b->ops[d]->kind != TOP_DOT || A->chained[b->ops[d]->results[0]])
			continue;
		memset(comp, 0, (size_t)n);
		comp[d] = 1;
		for (bool grew = true; grew;) {
			grew = false;
			for (int i = 0; i < n; i++) { /* forward: users of the component */
				const TirOp *op = b->ops[i];
				if (comp[i] || op->kind == TOP_TRANS)
					continue;
				for (int k = 0; k < op->nin; k++) {
					ValId u = op->operands[k];
					if (u < A->nvals0 && at[u] && comp[at[u] - 1]) {
						comp[i] = 1;
						grew = true;
						break;
					}
				}
			}
			for (int i = n - 1; i >= 0; i--) { /* backward: their producers */
				if (!comp[i])
					continue;
				const TirOp *op = b->ops[i];
				for (int k = 0; k < op->nin; k++) {
					ValId u = op->operands[k];
					int j = u < A->nvals0 ? at[u] - 1 : -1;
					if (j >= 0 && !comp[j] && b->ops[j]->kind != TOP_TRANS) {
						comp[j] = 1;
						grew = true;
					}
				}
			}
		}
		int in = 0;
		for (int i = 0; i < n; i++)
			in += comp[i] && b->ops[i]->kind == TOP_DOT;
		if (in > 1)
			for (int i = 0; i < n; i++)
				if (comp[i] && b->ops[i]->kind == TOP_DOT)
					A->chained[b->ops[i]->results[0]] = 1;
	}
	free(comp);
	free(at);
}

int layout_dot_mma_bits(const TargetDesc *t, const TirFunc *f, const TirOp *dot)
{
	if (!t->has_mma_sync || t->lanes_per_warp != 32 || dot->nin < 3)
		return 0;
	Type a = f->vals.data[dot->operands[0]].ty, b = f->vals.data[dot->operands[1]].ty;
	Type c = f->vals.data[dot->operands[2]].ty;
	int rank = c.rank;
	if ((rank != 2 && rank != 3) || a.rank != rank || b.rank != rank)
		return 0;
	bool fp8 = (a.dt == DT_F8E4M3 || a.dt == DT_F8E5M2) && (b.dt == DT_F8E4M3 || b.dt == DT_F8E5M2);
	if (a.dt != b.dt && !fp8)
		return 0;
	int bits = 0;
	if ((a.dt == DT_F16 || a.dt == DT_BF16) && (c.dt == DT_F32 || (c.dt == DT_F16 && a.dt == DT_F16)))
		bits = 16;
	else if (fp8 && (c.dt == DT_F32 || c.dt == DT_F16))
		bits = t->has_mma_fp8 ? 8 : 16; /* else upcast to f16, exactly (lower_dot.c) */
	else if (a.dt == DT_F32 && c.dt == DT_F32 && dot->attr.i != PREC_IEEE)
		bits = 32;
	else if (a.dt == DT_I8 && c.dt == DT_I32)
		bits = 8;
	if (!bits)
		return 0;
	int64_t m = a.shape[rank - 2], k = a.shape[rank - 1], n = b.shape[rank - 1];
	if (m % 16 || n % 8 || k % (8 * (32 / bits)))
		return 0;
	return bits;
}

/* Layouts of a dot: MMA accumulator/operand layouts (returns true), or the
 * FMA path (false): a blocked accumulator, and la/lb are left unset because
 * the operands keep their producers' layouts (lowering stages them through
 * shared memory and loops over K; see lower_dot.c). */
bool dot_layouts(Assign *A, const TirOp *op, LinearLayout *la, LinearLayout *lb,
			LinearLayout *lc)
{
	ValId a = op->operands[0], c = op->operands[2];
	Type at = vty(A, a), ct = vty(A, c);
	int bits = layout_dot_mma_bits(A->lc->target, A->f, op);
	int64_t k = at.shape[at.rank - 1];
	if (bits) {
		int rank = ct.rank, dm = rank - 2, dn = rank - 1;
		int32_t sc[3], sa[3], sb[3], w[3];
		for (int d = 0; d < rank; d++)
			sc[d] = sa[d] = sb[d] = ct.shape[d];
		sa[dn] = sb[dm] = (int32_t)k;
		/* a batched dot puts warps over the batch first (Triton's rank-3
		 * NvidiaMmaEncoding: all of them, [w, 1, 1]); where the batch is
		 * shorter than the warps, the rest split M and N as a 2-D dot */
		int bw = rank == 3 ? (int)MINOF(ct.shape[0], A->warps) : 1;
		w[0] = bw;
		ValId r = op->results[0];
		if (r < A->nvals0 && A->chained[r])
			mma_warps_chained(sc[dm], sc[dn], A->warps / bw, w + rank - 2);
		else
			mma_warps(sc[dm], sc[dn], A->warps / bw, w + rank - 2);
		ll_mma_acc(lc, rank, sc, w);
		ll_mma_operand(la, 0, rank, sa, w, bits);
		ll_mma_operand(lb, 1, rank, sb, w, bits);
		return true;
	}
	int32_t shape[TIR_MAX_RANK];
	shape_of(A, c, shape);
	/* per-thread runs of 4 columns on GPUs (vector stores); on the native
	 * CPU one column per thread, like the stores' coalesced layout */
	int vec = shape[ct.rank - 1] >= 4 && !simd_threads(A) ? 4 : 1;
	ll_default_blocked(lc, ct.rank, shape, A->warps, A->lanes, vec);
	return false;
}

/* ---- backward pass: wanted layouts ----------------------------------------- */

/* ---- tl.join ---------------------------------------------------------------- */

static const TirOp *def_of(const Assign *A, ValId v, TirOpKind k)
{
	const TirOp *d = v ? A->f->vals.data[v].def : NULL;
	return d && d->kind == k && d->nout == 1 && !d->nregions ? d : NULL;
}

/* sema builds tl.join(a, b) along a new axis k of size 2 (builtins_shape.c:
 * tl.join, interleave, cat, flip, inline asm's pack) as
 *   select(broadcast(reshape(arange(0, 2)) == 0),
 *          broadcast(expand_dims(a, k)), broadcast(expand_dims(b, k))).
 * Returns k, or -1 if op is not such a select; src[i] is a or b (0 where
 * that operand was built otherwise, a splatted constant). */
int join_axis(const Assign *A, const TirOp *op, ValId src[2])
{
	if (op->kind != TOP_SELECT || op->nin != 3 || op->nout != 1 || !is_tile(A, op->results[0]))
		return -1;
	const TirOp *bc = def_of(A, op->operands[0], TOP_BROADCAST);
	const TirOp *cmp = bc ? def_of(A, bc->operands[0], TOP_CMP) : NULL;
	if (!cmp || cmp->nin != 2 || cmp->attr.pred != PRED_EQ)
		return -1;
	const TirOp *zero = def_of(A, cmp->operands[1], TOP_CONST);
	const TirOp *idx = def_of(A, cmp->operands[0], TOP_RESHAPE);
	const TirOp *ar = def_of(A, idx ? idx->operands[0] : cmp->operands[0], TOP_ARANGE);
	if (!zero || zero->attr.i != 0 || !ar || ar->attr.i != 0 || ar->attr.i2 != 2)
		return -1;
	Type ct = vty(A, cmp->results[0]), rt = vty(A, op->results[0]);
	int k = -1;
	for (int d = 0; d < ct.rank; d++) {
		if (ct.shape[d] == 1)
			continue;
		if (ct.shape[d] != 2 || k >= 0)
			return -1;
		k = d;
	}
	if (k < 0 || ct.rank != rt.rank || rt.shape[k] != 2)
		return -1;
	for (int i = 0; i < 2; i++) {
		const TirOp *b = def_of(A, op->operands[i + 1], TOP_BROADCAST);
		const TirOp *e = b ? def_of(A, b->operands[0], TOP_EXPAND_DIMS) : NULL;
		src[i] = e && e->attr.axis == k && is_tile(A, e->operands[0]) ? e->operands[0] : 0;
	}
	return k;
}

/* No lane or warp of l moves along axis k: every thread holds both halves. */
bool axis_in_registers(const LinearLayout *l, int k)
{
	for (int i = 0; i < l->n_in; i++) {
		if (l->in_dim[i] == LL_REG)
			continue;
		for (int b = 0; b < l->in_bits[i]; b++)
			if (l->basis[i][b][k])
				return false;
	}
	return true;
}

static void want_block(Assign *A, const TirBlock *b);

/* The layout operand `u` must have so that `op` produces `res_l`, for view and
 * elementwise ops; false if there is none. */
bool operand_layout_for(Assign *A, const TirOp *op, ValId u, const LinearLayout *res_l,
			       LinearLayout *out)
{
	int32_t shape[TIR_MAX_RANK];
	if (!is_tile(A, u))
		return false;
	shape_of(A, u, shape);
	switch (op->kind) {
	case TOP_BROADCAST:
		return ll_broadcast_source(out, res_l, vty(A, u).rank, shape);
	case TOP_EXPAND_DIMS:
		ll_slice(out, res_l, op->attr.axis);
		return true;
	case TOP_TRANS: {
		int inv[TIR_MAX_RANK];
		for (int d = 0; d < res_l->n_out; d++)
			inv[op->attr.perm[d]] = d;
		ll_permute_outs(out, res_l, inv);
		return true;
	}
	case TOP_RESHAPE:
		return ll_reshape_outs(out, res_l, vty(A, u).rank, shape);
	default:
		if ((!is_elementwise(op->kind) && op->kind != TOP_LOAD) || vty(A, u).rank != res_l->n_out)
			return false;
		*out = *res_l;
		return true;
	}
}


/* The layout v will come out in when nothing asks otherwise, as far as the
 * forward pass is predictable: a load's coalesced layout, a dot's
 * accumulator, a reduction's slice of its input, an elementwise op's
 * non-constant operand. false if unknown. */
static bool natural_layout(Assign *A, ValId v, int depth, LinearLayout *out)
{
	const TirOp *op = v < A->nvals0 ? A->f->vals.data[v].def : NULL;
	if (!op || depth > 8 || !is_tile(A, v))
		return false;
	LinearLayout la, lb, l;
	switch (op->kind) {
	case TOP_LOAD:
		if (!op->nin || !is_tile(A, op->operands[0]))
			return false;
		mem_layout(A, op, out);
		return true;
	case TOP_DOT:
		dot_layouts(A, op, &la, &lb, out);
		return true;
	case TOP_REDUCE:
		if (op->nin < 1 || !natural_layout(A, op->operands[0], depth + 1, &l))
			return false;
		ll_slice(out, &l, op->attr.axis);
		return true;
	default:
		if (!is_elementwise(op->kind) || op->kind == TOP_CONVERT_LAYOUT)
			return false;
		for (int i = 0; i < op->nin; i++)
			if (is_tile(A, op->operands[i]) && !cheap(A, op->operands[i], 0) &&
			    natural_layout(A, op->operands[i], depth + 1, out))
				return true;
		return false;
	}
}

/* Some op of b from index `from` on (or nested in one) reads v. */
static bool reads_from(const TirBlock *b, int from, ValId v)
{
	for (int i = from; i < b->nops; i++) {
		const TirOp *o = b->ops[i];
		for (int k = 0; k < o->nin; k++)
			if (o->operands[k] == v)
				return true;
		for (int r = 0; r < o->nregions; r++)
			if (reads_from(&o->regions[r], 0, v))
				return true;
	}
	return false;
}

/* v is read after op in program order, or op is in a loop that v was
 * defined outside of (it lives across the iterations). */
static bool live_after(const Assign *A, const TirOp *op, ValId v)
{
	for (const TirOp *at = op; at && at->block; at = at->block->parent) {
		const TirBlock *b = at->block;
		int i = 0;
		while (i < b->nops && b->ops[i] != at)
			i++;
		if (reads_from(b, i + 1, v))
			return true;
		const TirOp *p = b->parent;
		if (p && (p->kind == TOP_FOR || p->kind == TOP_WHILE) &&
		    !tir_block_within(p, tir_def_block(A->f, v)))
			return true;
	}
	return false;
}

/* natural_layout, also of a loop's result: what its body yields. */
static bool produced_layout(Assign *A, ValId v, LinearLayout *out)
{
	const TirOp *d = v < A->nvals0 ? A->f->vals.data[v].def : NULL;
	if (d && d->kind == TOP_FOR && d->nregions) {
		const TirOp *y = terminator(&d->regions[0]);
		int i = A->f->vals.data[v].index;
		return y && i < y->nin && natural_layout(A, y->operands[i], 1, out);
	}
	return natural_layout(A, v, 0, out);
}

/* Registers (32-bit words per thread) from which a stored tile that stays
 * live is stored in its own layout rather than converted: two copies of
 * it would take over half of the 255 registers. */
enum { STORE_OWN_LAYOUT_WORDS = 64 };

/* The layout a store takes instead of its coalesced one (Triton's
 * BypassEpilogueSMEM): the layout its value is produced in, when reaching
 * the coalesced layout goes through shared memory and the value is a big
 * tile that stays live after the store. Converting it would hold the tile
 * twice: kernl's kernel_fma stores its 128x256 fp32 accumulator (128
 * registers a thread over 8 warps) before applying the activation to it,
 * and the converted copy beside it made ptxas spill 1.6 KB a thread. The
 * store then writes the vectors the value's layout allows (2 elements of
 * an mma accumulator). */
static bool store_own_layout(Assign *A, const TirOp *op, LinearLayout *out)
{
	if (op->kind != TOP_STORE || op->nin < 2 || simd_threads(A))
		return false;
	ValId v = op->operands[1];
	if (!is_tile(A, v) || !produced_layout(A, v, out))
		return false;
	Type t = vty(A, v);
	int64_t words = type_numel(t) * dtype_bytes((DType)t.dt) / 4 / ((int64_t)A->lanes * A->warps);
	if (words < STORE_OWN_LAYOUT_WORDS)
		return false;
	LinearLayout ml;
	mem_layout(A, op, &ml);
	return layout_conversion_kind(A->lc->target, out, &ml) == CVT_SHARED && live_after(A, op, v);
}

/* The layout of memory op `op` (on a pointer tile): coalesced, or for a
 * store its value's own (store_own_layout). */
void access_layout(Assign *A, const TirOp *op, LinearLayout *out)
{
	if (!store_own_layout(A, op, out))
		mem_layout(A, op, out);
}

/* v is computed by elementwise ops from broadcasts of smaller tiles and from
 * constants, aranges and splats of scalars only: no memory op or dot of its
 * shape anchors its layout (*grown: some broadcast is among them). */
static bool from_broadcasts(const Assign *A, ValId v, int depth, bool *grown)
{
	const TirOp *d = v ? A->f->vals.data[v].def : NULL;
	if (!d || d->nout != 1 || d->nregions || depth > 8)
		return false;
	switch (d->kind) {
	case TOP_BROADCAST:
		*grown = true;
		return true;
	case TOP_CONST: case TOP_ARANGE:
		return true;
	case TOP_SPLAT:
		return d->nin == 1 && !is_tile(A, d->operands[0]);
	default:
		if (!is_elementwise(d->kind) || d->kind == TOP_CONVERT_LAYOUT)
			return false;
	}
	/* a tl.join (split back by a sum over its new axis) is placed by
	 * assign_join, where it moves no data */
	ValId src[2];
	if (join_axis(A, d, src) >= 0)
		return false;
	for (int i = 0; i < d->nin; i++)
		if (is_tile(A, d->operands[i]) && !from_broadcasts(A, d->operands[i], depth + 1, grown))
			return false;
	return true;
}

/* A reduction of a tile built from broadcasts (a one-hot count
 * `tl.sum(x[:, None] == cols[None, :], axis=0)`) is asked for a blocked
 * layout with the reduced axis slowest: threads spread over the other axes
 * and each thread sums its part of the reduced axis in registers. Without a
 * want, the broadcasts kept their source's layout: x's lanes along the
 * reduced axis and the new axis in registers, so each thread held a whole
 * row of the tile and the sum crossed lanes (kernel-hyperdrive's
 * contiguous_count, BLOCK_SIZE_B 64 x 256 experts on 4 warps: 254 registers;
 * 1024 x 256 on 8 warps: 2584 bytes of spills). The smaller sources are
 * converted. A sum along the last axis (`x[:, None] > cut[None, :]`, the
 * one-hot form of tl.gather) gets what it had: rows over the threads; a
 * tl.split of a tl.join is left to assign_join. */
static void want_reduce_blocked(Assign *A, const TirOp *op)
{
	LinearLayout l;
	int32_t shape[TIR_MAX_RANK], order[TIR_MAX_RANK];
	for (int i = 0; i < op->nin; i++) {
		ValId u = op->operands[i];
		bool grown = false;
		int rank = vty(A, u).rank, n = 0, axis = op->attr.axis;
		if (!is_tile(A, u) || wanted(A, u) || rank < 2 || axis < 0 || axis >= rank ||
		    !from_broadcasts(A, u, 0, &grown) || !grown)
			continue;
		for (int d = rank - 1; d >= 0; d--)
			if (d != axis)
				order[n++] = d;
		order[n] = axis;
		shape_of(A, u, shape);
		ll_coalesced(&l, rank, shape, order, A->warps, A->lanes, 1);
		set_want(A, u, &l);
	}
}

static void want_op(Assign *A, const TirOp *op)
{
	LinearLayout l, la, lb, lc;
	if (is_memory(op->kind) && op->nin && is_tile(A, op->operands[0])) {
		access_layout(A, op, &l);
		for (int i = 0; i < op->nin; i++)
			set_want(A, op->operands[i], &l);
		for (int i = 0; i < op->nout; i++)
			set_want(A, op->results[i], &l);
		return;
	}
	switch (op->kind) {
	case TOP_DOT:
		if (dot_layouts(A, op, &la, &lb, &lc)) {
			set_want(A, op->operands[0], &la);
			set_want(A, op->operands[1], &lb);
		}
		set_want(A, op->operands[2], &lc);
		return;
	case TOP_FOR:
	case TOP_WHILE: {
		/* uses inside the loop decide a carried value's layout first (an
		 * accumulator stays in the dot's layout), then uses after it */
		const TirBlock *body = &op->regions[0];
		int first = op->kind == TOP_FOR ? 3 : 0, arg0 = op->kind == TOP_FOR ? 1 : 0;
		const TirBlock *yb = op->kind == TOP_FOR ? body : &op->regions[op->nregions - 1];
		const TirOp *y = terminator(yb);
		/* A pass that sets no want leaves the next one nothing new to start
		 * from: skipped, so loops nested n deep cost n^2 passes, not 2^n. */
		size_t nwants0 = (size_t)-1;
		for (int pass = 0; pass < 2 && A->nwants != nwants0; pass++) {
			nwants0 = A->nwants;
			for (int k = op->nregions - 1; k >= 0; k--)
				want_block(A, &op->regions[k]);
			for (int i = 0; i < op->nout && arg0 + i < body->nargs; i++) {
				ValId arg = body->args[arg0 + i];
				/* nothing in the loop asks: carry what the body yields
				 * (flash attention's row sum l_i stays in the slice of
				 * the dot's layout), converting once after the loop
				 * rather than twice per iteration */
				LinearLayout nl;
				if (!wanted(A, arg) && y && i < y->nin &&
				    natural_layout(A, y->operands[i], 0, &nl))
					set_want(A, arg, &nl);
				set_want(A, arg, wanted(A, op->results[i]));
				if (y && i < y->nin)
					set_want(A, y->operands[i], wanted(A, arg));
			}
		}
		for (int i = first; i < op->nin && arg0 + i - first < body->nargs; i++)
			set_want(A, op->operands[i], wanted(A, body->args[arg0 + i - first]));
		return;
	}
	case TOP_IF:
		for (int k = 0; k < op->nregions; k++) {
			const TirOp *y = terminator(&op->regions[k]);
			for (int i = 0; y && i < y->nin && i < op->nout; i++)
				set_want(A, y->operands[i], wanted(A, op->results[i]));
			want_block(A, &op->regions[k]);
		}
		return;
	default:
		break;
	}
	for (int k = op->nregions - 1; k >= 0; k--)
		want_block(A, &op->regions[k]);
	if (op->kind == TOP_REDUCE)
		want_reduce_blocked(A, op);
	if (op->nout != 1 || !wanted(A, op->results[0]))
		return;
	const LinearLayout *w = wanted(A, op->results[0]);
	/* a join wanted with its new axis across lanes or warps (a dot operand
	 * after the reshape of an int4 unpack) is built in registers and
	 * converted after (assign_join): its sources are not asked to follow */
	ValId src[2];
	int k = join_axis(A, op, src);
	if (k >= 0 && !axis_in_registers(w, k))
		return;
	for (int i = 0; i < op->nin; i++)
		if (operand_layout_for(A, op, op->operands[i], w, &l))
			set_want(A, op->operands[i], &l);
}

static void want_block(Assign *A, const TirBlock *b)
{
	for (int i = b->nops - 1; i >= 0; i--)
		want_op(A, b->ops[i]);
}

/* ---- dead code -------------------------------------------------------------- */


static bool remove_dead(TirBlock *b, uint32_t *uses)
{
	bool changed = false;
	for (int k = 0; k < b->nops; k++)
		for (int r = 0; r < b->ops[k]->nregions; r++)
			changed |= remove_dead(&b->ops[k]->regions[r], uses);
	int n = 0;
	for (int i = 0; i < b->nops; i++) {
		TirOp *op = b->ops[i];
		/* a load nobody reads is dead too (a copy redone in another layout,
		 * cheap_load, may have taken all its uses); a volatile one is not */
		bool dead = ((tir_op_flags((TirOpKind)op->kind) & TF_PURE) ||
		             (op->kind == TOP_LOAD && !(op->attr.flags & TIR_VOLATILE))) &&
		            !op->nregions && op->nout > 0;
		for (int k = 0; dead && k < op->nout; k++)
			dead = uses[op->results[k]] == 0;
		if (dead) {
			for (int k = 0; k < op->nin; k++)
				uses[op->operands[k]]--;
			changed = true;
			continue;
		}
		b->ops[n++] = op;
	}
	b->nops = n;
	return changed;
}

static void dead_code(TirFunc *f)
{
	uint32_t *uses = arena_alloc(f->arena, sizeof(uint32_t) * (f->vals.len + 1));
	tir_count_uses(f->entry, uses);
	while (remove_dead(f->entry, uses))
		;
}

/* ---- loop-invariant conversions ------------------------------------------------ */

/* v is the same every iteration of loop: defined outside it, or in `body`'s
 * top level by pure ops of such values (`scale[None, :]` written in the loop).
 * Not a division (a loop that runs no iteration must not divide by zero) nor
 * a dot. */
static bool invariant_in(const TirFunc *f, const TirOp *loop, const TirBlock *body, ValId v,
			 int depth)
{
	if (!tir_block_within(loop, tir_def_block(f, v)))
		return true;
	const TirOp *d = f->vals.data[v].def;
	if (!d || d->block != body || depth > 16 || d->nregions || d->nout != 1 ||
	    !(tir_op_flags((TirOpKind)d->kind) & TF_PURE) || d->kind == TOP_DIV ||
	    d->kind == TOP_REM || d->kind == TOP_DOT)
		return false;
	for (int i = 0; i < d->nin; i++)
		if (!invariant_in(f, loop, body, d->operands[i], depth + 1))
			return false;
	return true;
}

/* Moves the ops computing v inside loop (invariant_in) to b at *pos, operands
 * first, advancing *pos. */
static void move_invariant(TirFunc *f, const TirOp *loop, ValId v, TirBlock *b, int *pos)
{
	if (!tir_block_within(loop, tir_def_block(f, v)))
		return;
	TirOp *d = f->vals.data[v].def;
	for (int i = 0; i < d->nin; i++)
		move_invariant(f, loop, d->operands[i], b, pos);
	tir_op_move(f, d, b, (*pos)++);
}

/* A conversion in a loop whose operand is the same every iteration (e.g. a
 * dot operand loaded before the loop, a scale broadcast in the loop) moves in
 * front of the loop with the ops computing its operand there, as Triton's
 * LICM does, sharing a conversion already there: a conversion through shared
 * memory costs barriers each iteration, ptxas cannot hoist it. Inner loops
 * first, so a conversion climbs out of a nest. Only top-level ops of the
 * loop's regions move: what sits under an `if` may not run. */
static void hoist_converts(Assign *A, TirBlock *b)
{
	TirFunc *f = A->f;
	for (int k = 0; k < b->nops; k++) {
		TirOp *loop = b->ops[k];
		for (int r = 0; r < loop->nregions; r++)
			hoist_converts(A, &loop->regions[r]);
		if (loop->kind != TOP_FOR && loop->kind != TOP_WHILE)
			continue;
		for (int r = 0; r < loop->nregions; r++) {
			TirBlock *body = &loop->regions[r];
			for (int i = 0; i < body->nops; i++) {
				TirOp *cv = body->ops[i];
				ValId src = cv->nin ? cv->operands[0] : 0;
				if (cv->kind != TOP_CONVERT_LAYOUT || !invariant_in(f, loop, body, src, 0))
					continue;
				if (tir_block_within(loop, tir_def_block(f, src))) {
					/* its operand's ops leave the body first: look again from the top */
					move_invariant(f, loop, src, b, &k);
					i = -1;
					continue;
				}
				ValId same = 0;
				for (int j = 0; j < k && !same; j++)
					if (b->ops[j]->kind == TOP_CONVERT_LAYOUT && b->ops[j]->operands[0] == src &&
					    lay(A, b->ops[j]->results[0]) == lay(A, cv->results[0]))
						same = b->ops[j]->results[0];
				if (same) {
					tir_replace_uses(f, cv->results[0], same);
					continue; /* dead now; dead_code removes it */
				}
				tir_op_move(f, cv, b, k);
				k++;
				i--;
			}
		}
	}
}

/* ---- entry -------------------------------------------------------------------- */

bool layout_assign(LayoutCtx *lc, TirFunc *f)
{
	layout_memo_init(f);
	Assign A;
	memset(&A, 0, sizeof A);
	A.lc = lc;
	A.f = f;
	A.lanes = lc->target->lanes_per_warp > 0 ? lc->target->lanes_per_warp : 1;
	A.warps = lc->opts && lc->opts->num_warps > 0 ? lc->opts->num_warps
		  : f->num_warps > 0 ? f->num_warps : 1;
	if (!f->num_warps)
		f->num_warps = A.warps;
	A.nvals0 = f->vals.len;
	A.ax = axis_analyze(lc->arena, f);
	if (simd_threads(&A))
		A.ax_proven = axis_analyze_proven(lc->arena, f);
	A.want = arena_alloc(lc->arena, sizeof(void *) * (A.nvals0 + 1));
	A.chained = arena_alloc(lc->arena, A.nvals0 + 1);
	mark_chained_dots(&A, f->entry);
	collect_mem_ops(&A, f->entry);
	want_block(&A, f->entry);
	assign_block(&A, f->entry, NULL, 0, 0);
	hoist_converts(&A, f->entry);
	dead_code(f);
	vec_free(&A.interned);
	vec_free(&A.cache);
	vec_free(&A.origin);
	vec_free(&A.mem_ops);
	return layout_smem(lc, f);
}

/* smem.c: shared memory for layout conversions and cross-warp reductions.
 *
 * Requires: every tile value has a layout (assign.c). Guarantees: each
 * CONVERT_LAYOUT, REDUCE and SCAN carries in attr.i2 the scratch bytes it
 * needs (0 = none), and TirFunc.smem_bytes = the largest of them (after
 * software pipelining: max(smem_reserved + the largest inside pipelined
 * loops, the largest elsewhere)).
 *
 * Every scratch use is one self-contained phase (write, barrier, read,
 * barrier), so all of them share one offset and the buffer is as big as the
 * biggest phase, not the sum. That offset is 0, except inside a pipelined
 * loop, where the loop's buffers occupy [0, smem_reserved) (TirSmemBuf).
 *
 * Needs:
 * - CONVERT_LAYOUT through shared memory (ll_conversion_kind == CVT_SHARED):
 *   one chunk's buffer of layout_plan_conversion (smem_chunks.c: split so a
 *   chunk is at most layout_cvt_scratch_cap where the layouts allow; padding
 *   included; ldmatrix-aware on targets that have it, exactly as lowering
 *   plans it), elements of the tile's dtype.
 * - REDUCE over an axis that warps split (a warp basis moves along the axis):
 *   one partial result per warp group along the axis for every result
 *   element, per operand.
 * - SCAN over such an axis: one carry per aligned block of the axis below
 *   its lowest warp bit (2^j elements) and scanned line, per operand.
 * - DOT on the FMA path (layout_dot_mma_bits == 0): A and B staged whole
 *   (layout_dot_fma_smem).
 */
#include "layout/assign.h"

#include "layout/linear.h"

#include "util/util.h"

#include <stdlib.h>
#include <string.h>

static int elem_bytes(Type t)
{
	int b = dtype_bytes((DType)t.dt);
	return b > 0 ? b : 1;
}

bool layout_target_ldmatrix(const TargetDesc *t)
{
	return t->has_ldmatrix && t->lanes_per_warp == 32;
}

/* A conversion's scratch is kept to 64 KB where it can be split (three
 * programs of it still fit an SM), and to half of what the target has: a
 * bigger buffer would cut occupancy for a few barriers saved. */
int64_t layout_cvt_scratch_cap(const TargetDesc *t)
{
	int64_t half = t->max_shared_bytes / 2;
	return half < 64 * 1024 ? half : 64 * 1024;
}

/* ---- the memo of shared-layout choices ------------------------------------------------- */

typedef struct MemoEntry {
	LinearLayout src, dst;
	int eb;
	bool ldm;
	LinearLayout smem;
	PaddedShared pad;
	struct MemoEntry *next;
} MemoEntry;

struct LayoutMemo {
	Arena *arena;
	MemoEntry *head;
};

void layout_memo_init(TirFunc *f)
{
	if (f->layout_memo)
		return;
	f->layout_memo = ARENA_NEW(f->arena, struct LayoutMemo);
	f->layout_memo->arena = f->arena;
}

/* ll_choose_conversion_smem_ldm through the memo (a pure function of its
 * arguments, so an answer never goes stale). */
static void choose(const TirFunc *f, const LinearLayout *src, const LinearLayout *dst, int eb,
		   bool ldm, LinearLayout *smem, PaddedShared *pad)
{
	struct LayoutMemo *m = f ? f->layout_memo : NULL;
	for (MemoEntry *e = m ? m->head : NULL; e; e = e->next)
		if (e->eb == eb && e->ldm == ldm && ll_equal(&e->src, src) && ll_equal(&e->dst, dst)) {
			*smem = e->smem;
			*pad = e->pad;
			return;
		}
	ll_choose_conversion_smem_ldm(src, dst, eb, ldm, smem, pad);
	if (!m)
		return;
	MemoEntry *e = ARENA_NEW(m->arena, MemoEntry);
	e->src = *src;
	e->dst = *dst;
	e->eb = eb;
	e->ldm = ldm;
	e->smem = *smem;
	e->pad = *pad;
	e->next = m->head;
	m->head = e;
}

void layout_choose_conversion_smem(const TargetDesc *t, const TirFunc *f, const LinearLayout *src,
				   const LinearLayout *dst, int elem_bytes_, LinearLayout *smem,
				   PaddedShared *pad)
{
	choose(f, src, dst, elem_bytes_, layout_target_ldmatrix(t), smem, pad);
}

/* On the native CPU a program's threads are one SIMD vector, and a shared
 * access is one vector where its offsets run over the threads, a gather or
 * scatter elsewhere; banks do not exist. So the buffer takes the writer's
 * order (its lanes, warps, then registers): the writes are plain vector
 * stores. false where the writer replicates (a free lane, warp or register
 * bit): then the GPU's choice. */
static bool cpu_writer_order(const TargetDesc *t, const LinearLayout *src, LinearLayout *smem,
			     PaddedShared *pad)
{
	if (t->kind != TARGET_CPU || t->emulate)
		return false;
	LinearLayout m;
	ll_empty(&m, src->n_out);
	ll_slot(&m, LL_OFFSET);
	const LLInDim order[3] = {LL_LANE, LL_WARP, LL_REG};
	for (int k = 0; k < 3; k++) {
		int s = ll_find_slot(src, order[k]);
		for (int b = 0; s >= 0 && b < src->in_bits[s]; b++)
			ll_push_basis(&m, LL_OFFSET, src->basis[s][b]);
	}
	for (int d = 0; d < src->n_out; d++)
		m.out_bits[d] = src->out_bits[d];
	if (ll_total_in_bits(&m) != ll_total_out_bits(&m) || !ll_is_injective(&m) ||
	    !ll_is_surjective(&m))
		return false;
	*smem = m;
	memset(pad, 0, sizeof *pad);
	return true;
}

void layout_plan_conversion(const TargetDesc *t, const TirFunc *f, const LinearLayout *src,
			    const LinearLayout *dst, int elem_bytes_, CvtSmemPlan *plan)
{
	ll_plan_conversion_chunks(src, dst, elem_bytes_, layout_cvt_scratch_cap(t), plan);
	if (cpu_writer_order(t, &plan->src, &plan->smem, &plan->pad))
		return;
	choose(f, &plan->src, &plan->dst, elem_bytes_, layout_target_ldmatrix(t), &plan->smem,
	       &plan->pad);
}

/* A conversion within a warp is shuffles (lower_view.c): per result register
 * one shfl for each source register its lanes may read, then selects, every
 * source live until the last result. A big tile turned into mma operands in a
 * one-warp kernel reads up to 32 sources per result (flash-attention decode,
 * 128x64 bf16: a 2.4 MB cubin and 2.5 KB of spills per thread); shared memory
 * costs a write and a read per element. The native CPU keeps its shuffles
 * (vector permutes of all threads' registers). */
enum { MAX_SHUFFLE_SOURCES = 4 };

CvtKind layout_conversion_kind(const TargetDesc *t, const LinearLayout *src, const LinearLayout *dst)
{
	CvtKind k = ll_conversion_kind(src, dst);
	bool native_cpu = t->kind == TARGET_CPU && !t->emulate;
	if (k == CVT_SHUFFLE && !native_cpu && ll_shuffle_sources(src, dst) > MAX_SHUFFLE_SOURCES)
		return CVT_SHARED;
	return k;
}

int64_t layout_convert_smem_bytes(const TargetDesc *t, const TirFunc *f, const LinearLayout *src,
				  const LinearLayout *dst, int elem_bytes_)
{
	if (layout_conversion_kind(t, src, dst) != CVT_SHARED)
		return 0;
	CvtSmemPlan *plan = xmalloc(sizeof *plan); /* four layouts: too big for a stack frame */
	layout_plan_conversion(t, f, src, dst, elem_bytes_, plan);
	int64_t bytes = ll_plan_smem_bytes(plan, elem_bytes_);
	free(plan);
	return bytes;
}

/* log2 of the number of warp groups along `axis` (warp bits moving along it). */
static int warp_bits_along(const LinearLayout *l, int axis)
{
	int s = ll_find_slot(l, LL_WARP), n = 0;
	for (int b = 0; s >= 0 && b < l->in_bits[s]; b++)
		if (l->basis[s][b][axis])
			n++;
	return n;
}

int64_t layout_reduce_smem_bytes(const LinearLayout *in, int axis, Type elem, bool scan)
{
	int wb = warp_bits_along(in, axis);
	if (!wb)
		return 0;
	if (scan) { /* one carry per aligned block below the lowest warp bit along the axis */
		int s = ll_find_slot(in, LL_WARP), j = 31;
		for (int b = 0; b < in->in_bits[s]; b++)
			if (in->basis[s][b][axis])
				j = MINOF(j, __builtin_ctz((unsigned)in->basis[s][b][axis]));
		return ((int64_t)1 << (ll_total_out_bits(in) - j)) * elem_bytes(elem);
	}
	int64_t lines = (int64_t)1 << (ll_total_out_bits(in) - in->out_bits[axis]);
	return lines * ((int64_t)1 << wb) * elem_bytes(elem);
}

DType layout_dot_fma_stage_dt(const TargetDesc *t, DType in, DType acc)
{
	bool simd = t->kind == TARGET_CPU && !t->emulate;
	return !simd && dtype_bytes(in) > 0 && dtype_bytes(in) <= dtype_bytes(acc) ? in : acc;
}

int64_t layout_dot_fma_smem(const TargetDesc *t, Type a, Type b, Type acc, int64_t *pad_a,
			    int64_t *off_b)
{
	int ea = elem_bytes(type_scalar(layout_dot_fma_stage_dt(t, (DType)a.dt, (DType)acc.dt)));
	int eb = elem_bytes(type_scalar(layout_dot_fma_stage_dt(t, (DType)b.dt, (DType)acc.dt)));
	int64_t k = a.rank ? a.shape[a.rank - 1] : 1;
	int64_t pad = (k * ea) % 16 == 0 ? 16 / ea : 0;
	int64_t na = 1, nb = 1;
	for (int d = 0; d < a.rank; d++)
		na *= d == a.rank - 1 ? k + pad : a.shape[d];
	for (int d = 0; d < b.rank; d++)
		nb *= b.shape[d];
	int64_t ob = (na * ea + 15) & ~(int64_t)15;
	if (pad_a)
		*pad_a = pad;
	if (off_b)
		*off_b = ob;
	return ob + nb * eb;
}

int64_t layout_op_scratch(const LayoutCtx *lc, const TirFunc *f, const TirOp *op)
{
	int64_t bytes = 0;
	if (op->kind == TOP_DOT && op->nin >= 2 && !layout_dot_mma_bits(lc->target, f, op)) {
		bytes = layout_dot_fma_smem(lc->target, f->vals.data[op->operands[0]].ty,
					    f->vals.data[op->operands[1]].ty,
					    f->vals.data[op->operands[2]].ty, NULL, NULL);
	} else if (op->kind == TOP_CONVERT_LAYOUT && op->nin == 1 && op->nout == 1) {
		const TirVal *s = &f->vals.data[op->operands[0]], *d = &f->vals.data[op->results[0]];
		if (s->layout && d->layout)
			bytes = layout_convert_smem_bytes(lc->target, f, s->layout, d->layout,
							  elem_bytes(s->ty));
	} else if (op->kind == TOP_REDUCE || op->kind == TOP_SCAN) {
		for (int i = 0; i < op->nin; i++) {
			const TirVal *s = &f->vals.data[op->operands[i]];
			if (s->layout && s->ty.rank > op->attr.axis)
				bytes += layout_reduce_smem_bytes(s->layout, op->attr.axis, s->ty,
								  op->kind == TOP_SCAN);
		}
	}
	return bytes;
}

/* The scratch the ops of b need: *in inside software-pipelined loops, *out
 * elsewhere (see TirSmemBuf for why the two can overlap the buffers or not). */
static void block_smem(const LayoutCtx *lc, TirFunc *f, TirBlock *b, bool in_pipe, int64_t *in,
                       int64_t *out, int64_t *top)
{
	for (int i = 0; i < b->nops; i++) {
		TirOp *op = b->ops[i];
		int64_t need = layout_op_scratch(lc, f, op);
		if (op->kind == TOP_CONVERT_LAYOUT || op->kind == TOP_REDUCE || op->kind == TOP_SCAN ||
		    op->kind == TOP_DOT)
			op->attr.i2 = need;
		int64_t *side = in_pipe ? in : out;
		if (need > *side)
			*side = need;
		if (need > *top) {
			*top = need;
			f->smem_loc = op->loc;
		}
		bool pipe = in_pipe || ((op->kind == TOP_FOR || op->kind == TOP_WHILE) &&
		                        (op->attr.flags & (TIR_PIPELINED | TIR_HOLDS_BUFS)));
		for (int k = 0; k < op->nregions; k++)
			block_smem(lc, f, &op->regions[k], pipe, in, out, top);
	}
}

void layout_scratch(LayoutCtx *lc, TirFunc *f, TirBlock *b, bool in_pipe, int64_t *in,
                    int64_t *out)
{
	int64_t top = 0;
	*in = *out = 0;
	block_smem(lc, f, b, in_pipe, in, out, &top);
}

bool layout_smem(LayoutCtx *lc, TirFunc *f)
{
	int64_t in = 0, out = 0, top = 0;
	if (f->entry)
		block_smem(lc, f, f->entry, false, &in, &out, &top);
	if (top > INT32_MAX) {
		diag_error(lc->diags, f->smem_loc,
			   "kernel '%s' needs %lld bytes of shared memory for layout conversions",
			   tir_func_label(f), (long long)top);
		return false;
	}
	int64_t total = MAXOF(f->smem_reserved + in, out);
	f->smem_bytes = (int)MINOF(total, INT32_MAX);
	return true;
}

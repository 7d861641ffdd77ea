/* tp_sched.c: shared-memory loads, and the pure ops computed from them,
 * sink to their first use.
 *
 * Lowering reads a whole dot operand out of shared memory (ldmatrix, smem
 * loads) before the mmas that use it, and the CUDA emitter prints ldmatrix
 * as `asm volatile`, which neither NVVM nor ptxas moves: every k step's
 * fragments were live at once (a 128x256x64 fp16 tile over 8 warps spilled
 * 14 KB per thread). Moving each load down to just before the first op that
 * uses its results keeps one k step's fragments live, as Triton's operand
 * prefetch does.
 *
 * A load moves only inside its block and past ops that cannot change what it
 * reads: pure ops (arithmetic, casts, mma, shuffles) and global loads; an
 * ldmatrix also past shared stores and async copies being issued. That rests
 * on lowering's discipline: shared bytes one warp reads and bytes written
 * before the next barrier are disjoint (a conversion writes, syncs, reads,
 * and syncs before its buffer is written again; the pipeliner issues copies
 * into a different stage's slot than the one the dot reads), so only the
 * issuing order changes. Never past a barrier, an async-copy wait, a print
 * or assert, a region op or a terminator. Loads keep their order among
 * themselves where one feeds another. The CPU emitter runs the same program,
 * so cuda-emu still executes exactly what the GPU runs.
 *
 * Pure ops other than mma (the anchor) and the leaves (constants, ids) sink
 * too, past anything but region ops and terminators: a dot operand computed
 * from shared memory or a carried value (an int4 or fp8 dequantization, a
 * scale) is then produced k step by k step next to the mmas that use it, not
 * for the whole tile at once: an AWQ GEMM's B operand held 256 fp16 values
 * per thread before its first mma (13.9 KB of spills, 1.9 KB after).
 */
#include "codegen/tp.h"

#include <stdlib.h>
#include <string.h>

typedef struct Sched {
	TpFunc *f;
	int *pending_at; /* per value: 1 + index in pend of the load defining it, or 0 */
	TpOp **pend;
	int npend;
	bool *flushed;
	TpOp **out;
	int nout;
	int live_smem; /* pending smem_loads not yet flushed */
} Sched;

static bool is_load(const TpOp *op) { return op->kind == TP_LDMATRIX || op->kind == TP_SMEM_LOAD; }

/* Pending: a shared load, or a pure op other than mma (the anchor) and the
 * leaves (constants, ids), which sink to their first use as well. */
static bool sinks(const Sched *s, const TpOp *op)
{
	(void)s;
	if (is_load(op))
		return true;
	switch (op->kind) {
	case TP_MMA:
	case TP_CONST:
	case TP_PARAM:
	case TP_LANE_ID:
	case TP_WARP_ID:
	case TP_PROGRAM_ID:
	case TP_NUM_PROGRAMS: return false;
	default: return !op->nregions && (tp_op_flags((TpOpKind)op->kind) & TF_PURE);
	}
}

static void flush_one(Sched *s, int i)
{
	if (s->flushed[i])
		return;
	s->flushed[i] = true;
	TpOp *op = s->pend[i];
	s->live_smem -= op->kind == TP_SMEM_LOAD;
	for (int k = 0; k < op->nin; k++) /* a load whose address another pending load gives */
		if (op->operands[k] && s->pending_at[op->operands[k]])
			flush_one(s, s->pending_at[op->operands[k]] - 1);
	for (int k = 0; k < op->nout; k++)
		s->pending_at[op->results[k]] = 0;
	s->out[s->nout++] = op;
}

static void flush_all(Sched *s)
{
	for (int i = 0; i < s->npend; i++)
		flush_one(s, i);
	s->npend = 0;
}

/* Flushes the pending loads of kind `load` (TP_LDMATRIX: every load). */
static void flush_kind(Sched *s, TpOpKind load)
{
	for (int k = 0; k < s->npend; k++)
		if (!s->flushed[k] && is_load(s->pend[k]) &&
		    (load == TP_LDMATRIX || s->pend[k]->kind == load))
			flush_one(s, k);
}

/* Whether a pending load of kind `load` may move past op. */
static bool passes(const TpOp *op, TpOpKind load)
{
	if (op->nregions)
		return false;
	switch (op->kind) {
	case TP_LOAD: return true;
	case TP_SMEM_STORE:
	case TP_CP_ASYNC:
	case TP_CP_ASYNC_COMMIT: return load == TP_LDMATRIX;
	default: return (tp_op_flags((TpOpKind)op->kind) & TF_PURE) != 0;
	}
}

static void sched_block(Sched *s, TpBlock *b)
{
	for (int i = 0; i < b->nops; i++)
		for (int r = 0; r < b->ops[i]->nregions; r++)
			sched_block(s, &b->ops[i]->regions[r]);
	s->npend = s->nout = s->live_smem = 0;
	s->pend = xrealloc(s->pend, sizeof *s->pend * (size_t)(b->nops + 1));
	s->flushed = xrealloc(s->flushed, sizeof *s->flushed * (size_t)(b->nops + 1));
	s->out = xrealloc(s->out, sizeof *s->out * (size_t)(b->nops + 1));
	for (int i = 0; i < b->nops; i++) {
		TpOp *op = b->ops[i];
		if (sinks(s, op)) {
			s->flushed[s->npend] = false;
			s->pend[s->npend++] = op;
			s->live_smem += op->kind == TP_SMEM_LOAD;
			for (int k = 0; k < op->nout; k++)
				s->pending_at[op->results[k]] = s->npend;
			continue;
		}
		/* most ops are pure and pass every load: no scan of the pending ones.
		 * Pending pure ops pass everything but region ops and terminators. */
		if (op->nregions || (tp_op_flags((TpOpKind)op->kind) & TF_TERM))
			flush_all(s);
		else if (!passes(op, TP_LDMATRIX))
			flush_kind(s, TP_LDMATRIX);
		else if (s->live_smem && !passes(op, TP_SMEM_LOAD))
			flush_kind(s, TP_SMEM_LOAD);
		for (int k = 0; k < op->nin; k++)
			if (op->operands[k] && s->pending_at[op->operands[k]])
				flush_one(s, s->pending_at[op->operands[k]] - 1);
		s->out[s->nout++] = op;
	}
	flush_all(s);
	memcpy(b->ops, s->out, sizeof *b->ops * (size_t)b->nops);
}

void tp_sink_smem_loads(TpFunc *f)
{
	Sched s = {0};
	s.f = f;
	s.pending_at = xcalloc(f->vals.len + 1, sizeof *s.pending_at);
	sched_block(&s, f->body);
	free(s.pending_at);
	free(s.pend);
	free(s.flushed);
	free(s.out);
}

/* tp_sched.c: shared-memory loads, and pure ops where that saves registers,
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
 * reads: pure ops (arithmetic, casts, mma, shuffles), global loads and stores; an
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
 * too when that frees more registers than it holds (sinks()), past anything
 * but region ops and terminators: a dot operand computed from shared memory
 * or a carried value (an int4 or fp8 dequantization, a scale) is then
 * produced k step by k step next to the mmas that use it, not for the whole
 * tile at once: an AWQ GEMM's B operand held 256 fp16 values per thread
 * before its first mma (13.9 KB of spills, 1.8 KB after).
 */
#include "codegen/tp.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef struct Sched {
	TpFunc *f;
	int *pending_at; /* per value: 1 + index in pend of the load defining it, or 0 */
	TpOp **pend;
	int npend;
	bool *flushed;
	/* pend indices of the pending ldmatrix and smem loads, ascending, so a
	 * flush of loads visits only them: scanning all of pend at every store
	 * was quadratic (a 2^20-element copy: 7 s of 7.3 in lowering) */
	int *ldm, nldm, *sml, nsml;
	TpOp **out;
	int nout;
	int live_smem; /* pending smem_loads not yet flushed */
	/* per value, for the block being scheduled (stamp == serial): index of
	 * its last use in the block (a use inside a region op counts at the op),
	 * and whether the block defines it (constants aside) */
	int *last_use, *stamp, serial;
	bool *defined_here;
	/* fixed_use[v]: index of the first op that stays (stays()) among v's
	 * uses and those of the pure ops computed from it, b->nops if none;
	 * dest[i]: that of op i's results, where op i would sink to at most */
	int *fixed_use, *dest;
	int *def_at; /* per value defined in the block: the index of its op */
	int *bars;   /* bars[i]: barriers among the block's first i ops */
} Sched;

static bool is_load(const TpOp *op) { return op->kind == TP_LDMATRIX || op->kind == TP_SMEM_LOAD; }

/* An op the scheduler never moves: an mma, not pure, or holding regions. */
static bool stays(const TpOp *op)
{
	return op->kind == TP_MMA || op->nregions || !(tp_op_flags((TpOpKind)op->kind) & TF_PURE);
}

static int words(const Sched *s, TpVal v)
{
	DType d = (DType)tp_type(s->f, v).dt;
	return d == DT_PTR || dtype_bytes(d) > 4 ? 2 : 1;
}

/* Pending: a shared load, or a pure op other than mma (the anchor) and the
 * leaves (constants, ids) whose sinking shortens more live ranges than it
 * lengthens: its results (not live until the use) outweigh the operands it
 * would keep live until the use instead, pending operands and constants not
 * counted. So a dequantization (one packed word in, several values out)
 * sinks; `a + b` where both die does not. Those operands are the ones it is
 * the last use of, and those whose last use is an op that stays where it
 * is (an mma, a shared store, a store, a loop) before the op would sink to
 * (dest: the first such op its results reach): sinking past it extends
 * them. The fp32 squares of an x tile summed for an RMS norm
 * (x's last use: the shared store converting it for a dot) sank, with the
 * reduction, to the sum's use after the last of sixteen unrolled dots, so
 * every x tile stayed live (Liger's _mhc_mm_norm_fwd: 5.7 KB of spills).
 * i: op's index in b. */
static bool sinks(const Sched *s, const TpBlock *b, const TpOp *op, int i)
{
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
	default: break;
	}
	if (op->nregions || !(tp_op_flags((TpOpKind)op->kind) & TF_PURE))
		return false;
	int gain = 0;
	for (int k = 0; k < op->nout; k++)
		gain += words(s, op->results[k]);
	for (int k = 0; k < op->nin; k++) {
		TpVal v = op->operands[k];
		bool dup = false;
		for (int j = 0; j < k && !dup; j++)
			dup = op->operands[j] == v;
		if (!v || dup || s->stamp[v] != s->serial || !s->defined_here[v])
			continue;
		int last = s->last_use[v];
		if (s->pending_at[v]) {
			/* it sinks too, and mostly with this op; but where another
			 * use pins a pure producer on the near side of a barrier
			 * this op would sink past, v is live across that barrier,
			 * and the order across a barrier holds in ptxas's schedule
			 * (a scan's prefix combine and its shuffle, which the
			 * total's combine pins to the store of the total: every
			 * step's shuffled total stayed live past the barrier).
			 * Short of a barrier ptxas reorders the two itself, and
			 * counting v there too added spills as often as it took
			 * them away (bench/results/spills-scan-2026-11-25.md). */
			int p = s->def_at[v];
			if (last == i && !is_load(b->ops[p]) && s->bars[s->dest[p]] < s->bars[s->dest[i]])
				gain -= words(s, v);
			continue;
		}
		if (last == i || (last > i && last < s->dest[i] && stays(b->ops[last])))
			gain -= words(s, v);
	}
	return gain > 0;
}

/* Uses of values by the ops of block b (and their regions) at index `at`. */
static void mark_uses(Sched *s, const TpBlock *b, int at)
{
	for (int i = 0; i < b->nops; i++) {
		const TpOp *op = b->ops[i];
		int pos = at >= 0 ? at : i;
		for (int k = 0; k < op->nin; k++) {
			TpVal v = op->operands[k];
			if (!v)
				continue;
			if (s->stamp[v] != s->serial) {
				s->stamp[v] = s->serial;
				s->defined_here[v] = false;
				s->last_use[v] = -1;
				s->fixed_use[v] = INT_MAX;
			}
			if (pos > s->last_use[v])
				s->last_use[v] = pos;
		}
		for (int r = 0; r < op->nregions; r++)
			mark_uses(s, &op->regions[r], pos);
	}
}

/* fixed_use of the values ops of b (and their regions) read, for uses at
 * index `at` that sink no further than pos. */
static void mark_fixed(Sched *s, const TpBlock *b, int pos)
{
	for (int i = 0; i < b->nops; i++) {
		const TpOp *op = b->ops[i];
		for (int k = 0; k < op->nin; k++)
			if (op->operands[k] && pos < s->fixed_use[op->operands[k]])
				s->fixed_use[op->operands[k]] = pos;
		for (int r = 0; r < op->nregions; r++)
			mark_fixed(s, &op->regions[r], pos);
	}
}

static void mark_block(Sched *s, const TpBlock *b)
{
	s->serial++;
	mark_uses(s, b, -1);
	for (int i = 0; i < b->nops; i++)
		for (int k = 0; k < b->ops[i]->nout; k++) {
			TpVal v = b->ops[i]->results[k];
			if (s->stamp[v] != s->serial) {
				s->stamp[v] = s->serial;
				s->last_use[v] = -1;
				s->fixed_use[v] = INT_MAX;
			}
			/* a constant is an immediate: never a register freed */
			s->defined_here[v] = b->ops[i]->kind != TP_CONST;
			s->def_at[v] = i;
		}
	s->bars[0] = 0;
	for (int i = 0; i < b->nops; i++)
		s->bars[i + 1] = s->bars[i] + (b->ops[i]->kind == TP_BARRIER);
	for (int i = b->nops - 1; i >= 0; i--) { /* users before their operands */
		const TpOp *op = b->ops[i];
		int d = b->nops;
		if (stays(op))
			d = i;
		for (int k = 0; k < op->nout && d > i; k++)
			d = MINOF(d, s->fixed_use[op->results[k]]);
		s->dest[i] = d;
		for (int k = 0; k < op->nin; k++)
			if (op->operands[k] && d < s->fixed_use[op->operands[k]])
				s->fixed_use[op->operands[k]] = d;
		for (int r = 0; r < op->nregions; r++)
			mark_fixed(s, &op->regions[r], i);
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
	s->npend = s->nldm = s->nsml = 0;
}

/* Flushes the pending loads of kind `load` (TP_LDMATRIX: every load), in
 * the order they were met. */
static void flush_kind(Sched *s, TpOpKind load)
{
	int i = 0, j = 0;
	if (load == TP_LDMATRIX)
		while (i < s->nldm || j < s->nsml)
			flush_one(s, j == s->nsml || (i < s->nldm && s->ldm[i] < s->sml[j]) ? s->ldm[i++]
			                                                                     : s->sml[j++]);
	else
		while (j < s->nsml)
			flush_one(s, s->sml[j++]);
	s->nsml = 0;
	if (load == TP_LDMATRIX)
		s->nldm = 0;
}

/* Whether a pending load of kind `load` may move past op. */
static bool passes(const TpOp *op, TpOpKind load)
{
	if (op->nregions)
		return false;
	switch (op->kind) {
	case TP_LOAD:
	case TP_STORE: return true; /* global memory only */
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
	s->npend = s->nout = s->live_smem = s->nldm = s->nsml = 0;
	s->pend = xrealloc(s->pend, sizeof *s->pend * (size_t)(b->nops + 1));
	s->flushed = xrealloc(s->flushed, sizeof *s->flushed * (size_t)(b->nops + 1));
	s->out = xrealloc(s->out, sizeof *s->out * (size_t)(b->nops + 1));
	s->dest = xrealloc(s->dest, sizeof *s->dest * (size_t)(b->nops + 1));
	s->bars = xrealloc(s->bars, sizeof *s->bars * (size_t)(b->nops + 1));
	s->ldm = xrealloc(s->ldm, sizeof *s->ldm * (size_t)(b->nops + 1));
	s->sml = xrealloc(s->sml, sizeof *s->sml * (size_t)(b->nops + 1));
	mark_block(s, b);
	for (int i = 0; i < b->nops; i++) {
		TpOp *op = b->ops[i];
		if (sinks(s, b, op, i)) {
			s->flushed[s->npend] = false;
			s->pend[s->npend++] = op;
			s->live_smem += op->kind == TP_SMEM_LOAD;
			if (op->kind == TP_LDMATRIX)
				s->ldm[s->nldm++] = s->npend - 1;
			else if (op->kind == TP_SMEM_LOAD)
				s->sml[s->nsml++] = s->npend - 1;
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
	s.last_use = xcalloc(f->vals.len + 1, sizeof *s.last_use);
	s.stamp = xcalloc(f->vals.len + 1, sizeof *s.stamp);
	s.defined_here = xcalloc(f->vals.len + 1, sizeof *s.defined_here);
	s.fixed_use = xcalloc(f->vals.len + 1, sizeof *s.fixed_use);
	s.def_at = xcalloc(f->vals.len + 1, sizeof *s.def_at);
	sched_block(&s, f->body);
	free(s.pending_at);
	free(s.last_use);
	free(s.stamp);
	free(s.defined_here);
	free(s.fixed_use);
	free(s.def_at);
	free(s.bars);
	free(s.dest);
	free(s.pend);
	free(s.flushed);
	free(s.out);
	free(s.ldm);
	free(s.sml);
}

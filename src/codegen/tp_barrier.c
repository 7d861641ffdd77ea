/* tp_barrier.c: moves the barriers lowering placed down to the shared-memory
 * access they guard, and drops those that guard nothing.
 *
 * Lowering writes each shared-memory phase (a layout conversion, a cross-warp
 * reduction, a staged dot operand) as write, barrier, read, barrier: the
 * second barrier lets whatever comes next reuse the scratch.
 *
 * Sinking (tp_sink_barriers): that second barrier comes right after the
 * reads, before the ops that use what was read. Where those are global
 * stores (a layout conversion for a store), every value read was live across
 * the barrier, since neither NVVM nor ptxas moves a shared read below one: a
 * 128x128 fp32 tile stored transposed from 4 warps held 128 values a thread
 * at once (504 bytes of spills; a matmul epilogue's bf16 halves, 1.6 KB).
 * A barrier orders shared memory only (Triton's Membar puts it right before
 * the access it guards), so it may move down past ops that touch none: pure
 * ops and global loads and stores. It moves to just after the last global
 * store of a value read before it (directly or through pure ops), and only
 * as far as that: it stops at any shared access, another barrier, an
 * async-copy wait or commit, an atomic, a print or assert, a special
 * register, a region op and the block's end. The reads then sink to their
 * stores (tp_sched.c). Reads feeding mmas are left alone: moving the
 * barrier past the mmas of an attention loop moved ptxas's spills both ways
 * (one config 1512 -> 1784 bytes, another 888 -> 448). A barrier right
 * after an async-copy wait stays (the pair makes the copies' data visible,
 * and tp_prefetch.c looks for it), and so do tl.debug_barrier's (TP_USER).
 *
 * Dropping (tp_drop_barriers): where nothing touches shared memory before
 * the next barrier on every path (a dot loop's operand conversion, followed
 * by the mma and the next iteration's cp.async wait and barrier), the
 * barrier orders nothing and only makes the warps wait for each other.
 *
 * Requires: a verified thread program. Guarantees: a barrier lowering placed
 * (not tl.debug_barrier's, TP_USER, which orders global memory too) is
 * removed when, on every path after it, another barrier comes before any
 * shared-memory access (SMEM_LOAD, SMEM_STORE, LDMATRIX, CP_ASYNC). Then every
 * access after it is after that barrier too, which orders it after every
 * access before. A CP_ASYNC_WAIT is no access here: the copies it waits for
 * were issued before, and a barrier does not order copies in flight. Each
 * removal leaves a program for which this holds, so removals are made one
 * at a time on the current program. Conservative at regions: a loop or if
 * holding an access counts as an access, and a WHILE's end is not looked
 * past. */
#include "codegen/tp.h"

#include <stdlib.h>
#include <string.h>

enum { SCAN_BARRIER, SCAN_ACCESS, SCAN_END };

static bool is_smem_access(const TpOp *op)
{
	return op->kind == TP_SMEM_LOAD || op->kind == TP_SMEM_STORE || op->kind == TP_LDMATRIX ||
	       op->kind == TP_CP_ASYNC;
}

static bool block_accesses(const TpBlock *b)
{
	for (int i = 0; i < b->nops; i++) {
		const TpOp *op = b->ops[i];
		if (is_smem_access(op))
			return true;
		for (int r = 0; r < op->nregions; r++)
			if (block_accesses(&op->regions[r]))
				return true;
	}
	return false;
}

/* What comes first from op i of b on: a barrier, an access (or a region that
 * holds one), or the block's end */
static int scan_ops(const TpBlock *b, int i)
{
	for (; i < b->nops; i++) {
		const TpOp *op = b->ops[i];
		if (op->kind == TP_BARRIER)
			return SCAN_BARRIER;
		if (is_smem_access(op))
			return SCAN_ACCESS;
		for (int r = 0; r < op->nregions; r++)
			if (block_accesses(&op->regions[r]))
				return SCAN_ACCESS;
	}
	return SCAN_END;
}

/* Where a walk stands: op i of block b, whose region op (if any) is op
 * up->i of up->b */
typedef struct At {
	const TpBlock *b;
	int i;
	const struct At *up;
} At;

/* Every path from op at->i on reaches a barrier before a shared-memory access */
static bool barrier_first(const At *at)
{
	int r = scan_ops(at->b, at->i);
	if (r != SCAN_END)
		return r == SCAN_BARRIER;
	if (!at->up)
		return true; /* the kernel ends */
	const TpOp *owner = at->up->b->ops[at->up->i];
	if (owner->kind == TP_WHILE)
		return false;
	/* a loop's next iteration: its body from the top (the end again: the body
	 * holds no access on that path, however often it runs) */
	if (owner->kind == TP_FOR && scan_ops(at->b, 0) == SCAN_ACCESS)
		return false;
	At after = {at->up->b, at->up->i + 1, at->up->up};
	return barrier_first(&after);
}

static int drop_in(TpBlock *b, const At *up)
{
	int dropped = 0;
	for (int i = 0; i < b->nops; i++) {
		TpOp *op = b->ops[i];
		At here = {b, i, up};
		for (int r = 0; r < op->nregions; r++)
			dropped += drop_in(&op->regions[r], &here);
		if (op->kind != TP_BARRIER || (op->attr.flags & TP_USER))
			continue;
		At next = {b, i + 1, up};
		if (!barrier_first(&next))
			continue;
		for (int j = i; j + 1 < b->nops; j++)
			b->ops[j] = b->ops[j + 1];
		b->nops--;
		i--;
		dropped++;
	}
	return dropped;
}

int tp_drop_barriers(TpFunc *f) { return drop_in(f->body, NULL); }

/* Whether a lowering barrier may move down past op: op touches no shared
 * memory and orders nothing a barrier must stay around */
static bool barrier_passes(const TpOp *op)
{
	if (op->nregions)
		return false;
	if (op->kind == TP_LOAD || op->kind == TP_STORE)
		return true;
	return (tp_op_flags((TpOpKind)op->kind) & TF_PURE) != 0;
}

typedef struct Sink {
	int *mark; /* per value: the stamp of the barrier whose reads it comes from */
	int stamp;
} Sink;

static bool is_smem_read(const TpOp *op) { return op->kind == TP_SMEM_LOAD || op->kind == TP_LDMATRIX; }

/* Marks op's results when it reads shared memory or is a pure op over
 * marked values; says whether it uses a marked value */
static bool mark_op(Sink *s, const TpOp *op)
{
	bool uses = false;
	for (int k = 0; k < op->nin; k++)
		uses |= op->operands[k] && s->mark[op->operands[k]] == s->stamp;
	if (is_smem_read(op) || (uses && !op->nregions && (tp_op_flags((TpOpKind)op->kind) & TF_PURE)))
		for (int k = 0; k < op->nout; k++)
			s->mark[op->results[k]] = s->stamp;
	return uses;
}

/* The barrier at b->ops[i] moves down to just after the last global store
 * of a value the shared reads before it (since the previous barrier)
 * produced, directly or through pure ops, within what barrier_passes
 * allows; the ops after that store keep their place. */
static bool sink_one(Sink *s, TpBlock *b, int i)
{
	s->stamp++;
	int from = i;
	while (from > 0 && b->ops[from - 1]->kind != TP_BARRIER)
		from--;
	for (int k = from; k < i; k++)
		mark_op(s, b->ops[k]);
	int last = i;
	for (int j = i + 1; j < b->nops && barrier_passes(b->ops[j]); j++)
		if (mark_op(s, b->ops[j]) && b->ops[j]->kind == TP_STORE)
			last = j;
	if (last == i)
		return false;
	TpOp *bar = b->ops[i];
	memmove(&b->ops[i], &b->ops[i + 1], sizeof *b->ops * (size_t)(last - i));
	b->ops[last] = bar;
	return true;
}

static int sink_in(Sink *s, TpBlock *b)
{
	int moved = 0;
	for (int i = 0; i < b->nops; i++)
		for (int r = 0; r < b->ops[i]->nregions; r++)
			moved += sink_in(s, &b->ops[i]->regions[r]);
	for (int i = b->nops - 1; i >= 0; i--) {
		const TpOp *op = b->ops[i];
		if (op->kind == TP_BARRIER && !(op->attr.flags & TP_USER) &&
		    !(i > 0 && b->ops[i - 1]->kind == TP_CP_ASYNC_WAIT))
			moved += sink_one(s, b, i);
	}
	return moved;
}

int tp_sink_barriers(TpFunc *f)
{
	Sink s = {xcalloc(f->vals.len + 1, sizeof *s.mark), 0};
	int moved = sink_in(&s, f->body);
	free(s.mark);
	return moved;
}

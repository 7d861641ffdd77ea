/* tp_barrier.c: drops the barriers lowering placed that guard nothing.
 *
 * Lowering writes each shared-memory phase (a layout conversion, a cross-warp
 * reduction, a staged dot operand) as write, barrier, read, barrier: the
 * second barrier lets whatever comes next reuse the scratch. Where nothing
 * touches shared memory before the next barrier on every path (a dot
 * loop's operand conversion, followed by the mma and the next iteration's
 * cp.async wait and barrier), that second barrier orders nothing and only
 * makes the warps wait for each other.
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

/* tir_licm.c: loop-invariant code motion on the Tile IR, as Triton's LICM
 * (make_ttir) does: a pure op at the top level of a FOR or WHILE region
 * whose operands are all defined outside the loop moves in front of it.
 *
 * What it is for: a reduction, scan or dot of values the loop does not
 * change (Megatron's `tl.sum(tl.where(sel, src, 0), axis=1)` written inside
 * its hidden-dimension loop) costs shuffles, shared memory and barriers every
 * iteration, which neither NVVM nor LLVM can hoist once lowered.
 *
 * Rules:
 * - inner loops first, so an op climbs out of a nest one loop at a time;
 * - only top-level ops of a loop's regions move: what sits under an `if`
 *   may not run;
 * - REDUCE and SCAN move with their combine regions when every op there is
 *   pure and reads only the region's own values or values outside the loop;
 * - no integer division or remainder unless by a constant other than 0 and
 *   -1: a loop that runs no iteration must not trap where it did not;
 * - ops without operands (constants, aranges, program ids) move only with a
 *   user that moves: alone they cost nothing where they are.
 * Hoisting keeps values live across the loop: where the cubin spills, the
 * driver compiles the kernel again without it (driver/compile.c, choices). */
#include <stdlib.h>
#include <string.h>

#include "ir/tir.h"

typedef struct Licm {
	TirFunc *f;
	uint8_t *moving; /* by ValId: defined by an op of the current body that may move */
	int *leaf_at;    /* by ValId: 1 + position of its leaf op in the current body */
	int moved;
} Licm;

static bool leaf_op(const TirOp *op)
{
	return op->nin == 0 && op->nregions == 0 && (tir_op_flags((TirOpKind)op->kind) & TF_PURE);
}

/* `op` (or an op of a combine region) may run where the loop would not
 * have run it. */
static bool speculatable(const TirFunc *f, const TirOp *op)
{
	TirOpKind k = (TirOpKind)op->kind;
	if (k == TOP_YIELD) return true;
	if ((k == TOP_DIV || k == TOP_REM) && dtype_is_int((DType)f->vals.data[op->results[0]].ty.dt)) {
		const TirOp *d = f->vals.data[op->operands[1]].def;
		return d && d->kind == TOP_CONST && d->attr.i != 0 && d->attr.i != -1;
	}
	if (k == TOP_REDUCE || k == TOP_SCAN) {
		for (int r = 0; r < op->nregions; r++)
			for (int i = 0; i < op->regions[r].nops; i++)
				if (!speculatable(f, op->regions[r].ops[i])) return false;
		return true;
	}
	return !op->nregions && (tir_op_flags(k) & TF_PURE);
}

/* Every value `op` and its regions read is defined outside `loop`, by an op
 * of the body that may move, or inside `self` (the region op checked). */
static bool reads_invariant(const Licm *L, const TirOp *loop, const TirOp *self, const TirOp *op)
{
	for (int i = 0; i < op->nin; i++) {
		ValId v = op->operands[i];
		const TirBlock *b = tir_def_block(L->f, v);
		if (L->moving[v] || !tir_block_within(loop, b) || (self && tir_block_within(self, b)))
			continue;
		return false;
	}
	for (int r = 0; r < op->nregions; r++)
		for (int i = 0; i < op->regions[r].nops; i++)
			if (!reads_invariant(L, loop, self, op->regions[r].ops[i])) return false;
	return true;
}

/* The leaves of the current body that `op` or its regions read move with it. */
static void mark_leaves(const Licm *L, const TirOp *op, uint8_t *moves)
{
	for (int j = 0; j < op->nin; j++)
		if (L->leaf_at[op->operands[j]]) moves[L->leaf_at[op->operands[j]] - 1] = 1;
	for (int r = 0; r < op->nregions; r++)
		for (int i = 0; i < op->regions[r].nops; i++)
			mark_leaves(L, op->regions[r].ops[i], moves);
}

/* Moves the invariant ops of `body`, a region of `loop` (which sits at
 * parent->ops[*pos]), in front of the loop, advancing *pos. */
static void hoist_body(Licm *L, TirOp *loop, TirBlock *body, TirBlock *parent, int *pos)
{
	TirFunc *f = L->f;
	int n = body->nops, m = 0;
	uint8_t *moves = xcalloc((size_t)n + 1, 1);
	for (int i = 0; i < n; i++) {
		TirOp *op = body->ops[i];
		if (leaf_op(op)) {
			for (int j = 0; j < op->nout; j++) {
				L->moving[op->results[j]] = 1;
				L->leaf_at[op->results[j]] = i + 1;
			}
		} else if (op->kind != TOP_YIELD && speculatable(f, op) &&
			   reads_invariant(L, loop, op->nregions ? op : NULL, op)) {
			moves[i] = 1;
			m++;
			for (int j = 0; j < op->nout; j++) L->moving[op->results[j]] = 1;
		}
	}
	for (int i = 0; m && i < n; i++)
		if (moves[i] && !leaf_op(body->ops[i])) mark_leaves(L, body->ops[i], moves);
	TirOp **ops = xmalloc(sizeof(TirOp *) * ((size_t)n + 1));
	m = 0;
	for (int i = 0; i < n; i++) {
		TirOp *op = body->ops[i];
		for (int j = 0; j < op->nout; j++) L->moving[op->results[j]] = 0, L->leaf_at[op->results[j]] = 0;
		if (moves[i]) ops[m++] = op;
	}
	tir_ops_move(f, body, ops, m, parent, *pos);
	*pos += m;
	L->moved += m;
	free(ops);
	free(moves);
}

static void licm_block(Licm *L, TirBlock *b)
{
	for (int k = 0; k < b->nops; k++) {
		TirOp *op = b->ops[k];
		for (int r = 0; r < op->nregions; r++) licm_block(L, &op->regions[r]);
		if ((op->kind != TOP_FOR && op->kind != TOP_WHILE) || (op->attr.flags & TIR_NO_LICM)) continue;
		for (int r = 0; r < op->nregions; r++) hoist_body(L, op, &op->regions[r], b, &k);
	}
}

int tir_hoist_invariants(TirFunc *f)
{
	Licm L = {f, xcalloc(f->vals.len + 1, 1), xcalloc(f->vals.len + 1, sizeof(int)), 0};
	licm_block(&L, f->entry);
	free(L.moving);
	free(L.leaf_at);
	return L.moved;
}

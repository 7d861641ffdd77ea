/* sema_cleanup.c: small clean-ups on the Tile IR sema built, so later
 * stages see what the program means rather than how sema spelled it:
 * - loop-invariant iter args of FOR ops (the body yields its own argument,
 *   e.g. the shape and strides of a block pointer carried through a loop)
 *   become uses of the initial value;
 * - `acc += tl.dot(a, b)`, an add of a dot with a zero accumulator whose
 *   only use is that add, becomes `dot(a, b, acc)` (Triton's combine does the
 *   same), so the accumulator lives in the dot's layout across a loop instead
 *   of being converted every iteration;
 * - dead pure ops (constants materialized for a splat, unused results of
 *   helpers, the dots the previous step replaced) are removed. */
#include <math.h>
#include <string.h>

#include "sema/sema_int.h"

static void remove_at(ValId *a, int *n, int i)
{
	memmove(a + i, a + i + 1, sizeof(ValId) * (size_t)(*n - i - 1));
	(*n)--;
}

static void invariant_iter_args(TirFunc *f, TirBlock *b)
{
	for (int k = 0; k < b->nops; k++) {
		TirOp *op = b->ops[k];
		for (int r = 0; r < op->nregions; r++) invariant_iter_args(f, &op->regions[r]);
		if (op->kind != TOP_FOR) continue;
		TirBlock *body = &op->regions[0];
		TirOp *y = body->ops[body->nops - 1];
		for (int i = op->nout - 1; i >= 0; i--) {
			ValId arg = body->args[i + 1];
			if (y->operands[i] != arg) continue;
			ValId init = op->operands[3 + i];
			ValId res = op->results[i];
			tir_replace_uses(f, arg, init);
			tir_replace_uses(f, res, init);
			remove_at(op->operands, &op->nin, 3 + i);
			remove_at(y->operands, &y->nin, i);
			remove_at(body->args, &body->nargs, i + 1);
			remove_at(op->results, &op->nout, i);
		}
		for (int i = 0; i < body->nargs; i++) tir_val(f, body->args[i])->index = i;
		for (int i = 0; i < op->nout; i++) tir_val(f, op->results[i])->index = i;
	}
}

static bool zero_tile(const TirFunc *f, ValId v)
{
	const TirOp *d = f->vals.data[v].def;
	return d && d->kind == TOP_CONST && d->attr.i == 0 && d->attr.f == 0.0 && !signbit(d->attr.f);
}

/* Position of v's defining op in b, -1 if it is not defined there. */
static int def_pos(const TirFunc *f, const TirBlock *b, ValId v)
{
	const TirOp *d = f->vals.data[v].def;
	for (int i = 0; d && d->block == b && i < b->nops; i++)
		if (b->ops[i] == d) return i;
	return -1;
}

/* Operand j of add `op` is a dot with a zero accumulator used only there. */
static bool foldable(const TirFunc *f, const TirOp *op, const uint32_t *uses, int j)
{
	ValId d = op->operands[j], acc = op->operands[1 - j];
	const TirOp *dot = f->vals.data[d].def;
	return dot && dot->kind == TOP_DOT && uses[d] == 1 && zero_tile(f, dot->operands[2]) &&
	       type_eq(f->vals.data[d].ty, f->vals.data[op->results[0]].ty) &&
	       type_eq(f->vals.data[acc].ty, f->vals.data[d].ty);
}

/* add(x, dot(a, b, 0)) -> dot(a, b, x), rewriting the add in place (where x
 * and the dot's operands are all available); the old dot dies, its location
 * kept: the mma instructions are the dot's line, not the add's. Where both
 * operands qualify (an unrolled `acc += tl.dot(...)`: the accumulator is a
 * folded dot of a zero tile too), the later dot takes the other: folding
 * the running accumulator into the new dot instead chained the dots in
 * reverse, every iteration's operands live until the last one (Liger's
 * _mhc_mm_norm_fwd over a static_range of 16 K blocks spilled 5.7 KB). */
static void fold_dot_add(TirFunc *f, TirBlock *b, uint32_t *uses)
{
	for (int k = 0; k < b->nops; k++) {
		TirOp *op = b->ops[k];
		for (int r = 0; r < op->nregions; r++) fold_dot_add(f, &op->regions[r], uses);
		if (op->kind != TOP_ADD || op->nin != 2) continue;
		bool can0 = foldable(f, op, uses, 0), can1 = foldable(f, op, uses, 1);
		if (!can0 && !can1) continue;
		/* def_pos scans the block: only where both qualify (it was asked
		 * of every add, quadratic in a long block of them) */
		int j = !can1 || (can0 && def_pos(f, b, op->operands[0]) > def_pos(f, b, op->operands[1])) ? 0 : 1;
		ValId d = op->operands[j], acc = op->operands[1 - j];
		const TirOp *dot = f->vals.data[d].def;
		ValId *in = ARENA_NEWN(f->arena, ValId, 3);
		in[0] = dot->operands[0];
		in[1] = dot->operands[1];
		in[2] = acc;
		op->kind = TOP_DOT;
		op->operands = in;
		op->nin = 3;
		op->attr = dot->attr;
		op->loc = dot->loc;
		uses[d] = 0;
		uses[in[0]]++;
		uses[in[1]]++;
	}
}

static bool dce_block(TirBlock *b, uint32_t *uses)
{
	bool changed = false;
	for (int k = b->nops - 1; k >= 0; k--) {
		TirOp *op = b->ops[k];
		for (int r = 0; r < op->nregions; r++) changed |= dce_block(&op->regions[r], uses);
		if (!(tir_op_flags((TirOpKind)op->kind) & TF_PURE) || op->nregions) continue;
		bool dead = true;
		for (int i = 0; i < op->nout; i++) dead &= uses[op->results[i]] == 0;
		if (!dead) continue;
		for (int i = 0; i < op->nin; i++) uses[op->operands[i]]--;
		memmove(b->ops + k, b->ops + k + 1, sizeof(TirOp *) * (size_t)(b->nops - k - 1));
		b->nops--;
		changed = true;
	}
	return changed;
}

void sema_cleanup(TirFunc *f)
{
	invariant_iter_args(f, f->entry);
	uint32_t *uses = xcalloc(f->vals.len + 1, sizeof(uint32_t));
	tir_count_uses(f->entry, uses);
	for (int i = 0; i < f->nhints; i++) uses[f->hints[i].val]++;
	fold_dot_add(f, f->entry, uses);
	while (dce_block(f->entry, uses)) {}
	free(uses);
}

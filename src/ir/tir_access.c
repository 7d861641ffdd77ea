/* tir_access.c: which pointer parameters the kernel accesses memory through.
 *
 * A launch on the CPU refuses a NULL pointer for such a parameter (the
 * kernel would fault and take the host process with it) and accepts one for
 * a parameter the code never reads or writes through (an optional pointer
 * whose uses a constexpr folded away). The answer is a may-analysis on
 * values: a parameter taints every value computed from it (ptr_add, splat,
 * casts, select, loop-carried and yielded values), and a load, store,
 * atomic or async copy whose address is tainted accesses it. Masks are not
 * looked at: a masked access may still touch memory.
 *
 * Taints are bit sets, 64 parameters per pass, iterated to a fixed point
 * (loops carry values back to their start).
 */
#include <stdlib.h>
#include <string.h>

#include "ir/tir.h"

typedef struct Taint {
	uint64_t *t; /* per value: the parameters (bits) it may be computed from */
	bool changed;
} Taint;

static void add(Taint *T, ValId v, uint64_t bits)
{
	if (v && (T->t[v] | bits) != T->t[v]) {
		T->t[v] |= bits;
		T->changed = true;
	}
}

/* The region of its parent that block b is. */
static int region_index(const TirOp *parent, const TirBlock *b)
{
	for (int r = 0; r < parent->nregions; r++)
		if (&parent->regions[r] == b)
			return r;
	return -1;
}

/* A terminator's operands flow to its parent's results and region arguments,
 * position by position where the structure says which (for, if, while), to
 * all of them otherwise (reduce, scan: combine regions of any shape). */
static void flow_terminator(Taint *T, const TirOp *term)
{
	const TirOp *p = term->block->parent;
	if (!p)
		return;
	int r = region_index(p, term->block);
	for (int i = 0; i < term->nin; i++) {
		uint64_t b = T->t[term->operands[i]];
		if (!b)
			continue;
		switch (p->kind) {
		case TOP_FOR: /* yield i -> iter arg i + 1 (after the iv), result i */
			if (i + 1 < p->regions[0].nargs)
				add(T, p->regions[0].args[i + 1], b);
			if (i < p->nout)
				add(T, p->results[i], b);
			break;
		case TOP_IF:
			if (i < p->nout)
				add(T, p->results[i], b);
			break;
		case TOP_WHILE:
			if (r == 0 && term->kind == TOP_CONDITION) { /* (cond, vals...) */
				if (i >= 1 && i - 1 < p->regions[1].nargs)
					add(T, p->regions[1].args[i - 1], b);
				if (i >= 1 && i - 1 < p->nout)
					add(T, p->results[i - 1], b);
			} else if (i < p->regions[0].nargs) { /* the after region's yield */
				add(T, p->regions[0].args[i], b);
			}
			break;
		default:
			for (int k = 0; k < p->nout; k++)
				add(T, p->results[k], b);
			for (int k = 0; k < p->nregions; k++)
				for (int a = 0; a < p->regions[k].nargs; a++)
					add(T, p->regions[k].args[a], b);
		}
	}
}

/* A region op's operands flow to its regions' arguments. */
static void flow_into_regions(Taint *T, const TirOp *op)
{
	for (int i = 0; i < op->nin; i++) {
		uint64_t b = T->t[op->operands[i]];
		if (!b)
			continue;
		switch (op->kind) {
		case TOP_FOR: /* (lb, ub, step, inits...) -> (iv, iters...) */
			if (i < 3)
				add(T, op->regions[0].args[0], b);
			else if (i - 2 < op->regions[0].nargs)
				add(T, op->regions[0].args[i - 2], b);
			break;
		case TOP_IF: break; /* the condition picks a region: no value flows */
		case TOP_WHILE:
			if (i < op->regions[0].nargs)
				add(T, op->regions[0].args[i], b);
			break;
		default:
			for (int k = 0; k < op->nregions; k++)
				for (int a = 0; a < op->regions[k].nargs; a++)
					add(T, op->regions[k].args[a], b);
		}
	}
}

static bool is_access(TirOpKind k)
{
	return k == TOP_LOAD || k == TOP_STORE || k == TOP_ATOMIC || k == TOP_ATOMIC_CAS ||
	       k == TOP_ASYNC_COPY;
}

static void walk(Taint *T, const TirBlock *blk, uint64_t *accessed)
{
	for (int i = 0; i < blk->nops; i++) {
		const TirOp *op = blk->ops[i];
		if (op->kind == TOP_YIELD || op->kind == TOP_CONDITION) {
			flow_terminator(T, op);
		} else if (op->nregions) {
			flow_into_regions(T, op);
			for (int r = 0; r < op->nregions; r++)
				walk(T, &op->regions[r], accessed);
		} else {
			uint64_t b = 0;
			for (int k = 0; k < op->nin; k++)
				b |= T->t[op->operands[k]];
			for (int k = 0; b && k < op->nout; k++)
				add(T, op->results[k], b);
		}
		if (is_access((TirOpKind)op->kind) && op->nin > 0)
			*accessed |= T->t[op->operands[0]];
	}
}

void tir_params_accessed(const TirFunc *f, bool *out)
{
	uint64_t *taints = xcalloc(f->vals.len, sizeof *taints);
	for (int first = 0; first < f->nparams; first += 64) {
		memset(taints, 0, f->vals.len * sizeof *taints);
		Taint T = {taints, false};
		for (int i = first; i < f->nparams && i < first + 64; i++)
			if (f->params[i].ty.dt == DT_PTR)
				taints[f->params[i].val] |= UINT64_C(1) << (i - first);
		uint64_t accessed = 0;
		do {
			T.changed = false;
			walk(&T, f->entry, &accessed);
		} while (T.changed);
		for (int i = first; i < f->nparams && i < first + 64; i++)
			out[i] = accessed >> (i - first) & 1;
	}
	free(taints);
}

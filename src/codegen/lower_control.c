/* lower_control.c: for, if, while, yield, condition, return, print, assert,
 * barrier.
 *
 * Region ops stay structured: the register arrays of loop-carried values and
 * results are flattened into block args / results in operand order. An iter
 * arg is uniform when its init and its yielded value are: the body is lowered
 * assuming the inits' uniformity and lowered again (with fewer uniform args)
 * until the assumption holds.
 */
#include "codegen/lower_internal.h"

#include <string.h>

/* Flattened registers of values vs[0..n-1]. */
static int flatten(Lower *L, const ValId *vs, int n, TpVal *out)
{
	int k = 0;
	for (int i = 0; i < n; i++) {
		LVal x = lw_get(L, vs[i]);
		for (int r = 0; r < x.n; r++) {
			if (out)
				out[k] = x.r[r];
			k++;
		}
	}
	return k;
}

static int count_regs(Lower *L, const ValId *vs, int n)
{
	int k = 0;
	for (int i = 0; i < n; i++)
		k += lw_nregs_of(L, vs[i]);
	return k;
}

/* Binds TIR values vs to consecutive TP values flat[]. */
static void bind(Lower *L, const ValId *vs, int n, const TpVal *flat)
{
	int k = 0;
	for (int i = 0; i < n; i++) {
		LVal x = lw_alloc(L, lw_nregs_of(L, vs[i]));
		for (int r = 0; r < x.n; r++)
			x.r[r] = flat[k++];
		lw_set(L, vs[i], x);
	}
}

static void remove_op(TpBlock *b, TpOp *op)
{
	for (int i = b->nops - 1; i >= 0; i--)
		if (b->ops[i] == op) {
			memmove(&b->ops[i], &b->ops[i + 1],
			        sizeof(TpOp *) * (size_t)(b->nops - 1 - i));
			b->nops--;
			return;
		}
}

static Type *flat_types(Lower *L, const ValId *vs, int n, int total)
{
	Type *t = ARENA_NEWN(L->arena, Type, total ? total : 1);
	int k = 0;
	for (int i = 0; i < n; i++) {
		int nr = lw_nregs_of(L, vs[i]);
		for (int r = 0; r < nr; r++)
			t[k++] = lw_elem_type(L, vs[i]);
	}
	return t;
}

/* Lower TIR block b into TP block tb with its args bound to tb's args. */
static void lower_region(Lower *L, const TirBlock *b, TpBlock *tb, const Type *argt,
                         const bool *uni, int nflat)
{
	for (int i = 0; i < nflat; i++)
		tp_block_add_arg(L->f, tb, argt[i], uni[i]);
	bind(L, b->args, b->nargs, tb->args);
	TpBlock *save = L->blk;
	L->blk = tb;
	lw_block(L, b);
	L->blk = save;
}

static const TpOp *term(const TpBlock *b) { return b->nops ? b->ops[b->nops - 1] : NULL; }

static void set_results_uniform(Lower *L, TpOp *t, const bool *uni)
{
	for (int i = 0; i < t->nout; i++)
		L->f->vals.data[t->results[i]].uniform = uni[i];
}

/* A scalar of the Tile IR that control flow needs as a uniform value: every
 * thread holds the same copy (a full reduction's result, say), so thread 0's
 * is it. */
static TpVal uniform(Lower *L, TpVal v, SrcLoc loc)
{
	if (tp_uniform(L->f, v)) return v;
	Type t = tp_type(L->f, v);
	return lw_op(L, TP_UNIFORM, loc, &v, 1, &t, 1)->results[0];
}

static void lower_for(Lower *L, const TirOp *op)
{
	int ninit = op->nin - 3;
	const TirBlock *body = &op->regions[0];
	int n = count_regs(L, op->operands + 3, ninit);
	TpVal *in = ARENA_NEWN(L->arena, TpVal, n + 3);
	for (int i = 0; i < 3; i++)
		in[i] = uniform(L, lw_get(L, op->operands[i]).r[0], op->loc);
	flatten(L, op->operands + 3, ninit, in + 3);
	Type *rt = flat_types(L, op->operands + 3, ninit, n);
	Type *at = ARENA_NEWN(L->arena, Type, n + 1);
	bool *uni = ARENA_NEWN(L->arena, bool, n + 1);
	at[0] = lw_elem_type(L, body->args[0]);
	uni[0] = true;
	for (int i = 0; i < n; i++) {
		at[i + 1] = rt[i];
		uni[i + 1] = tp_uniform(L->f, in[3 + i]);
	}
	bool in_flight = L->copies_in_flight; /* as it was before the loop, on every retry */
	for (;;) {
		TpBlock *blk = L->blk;
		L->copies_in_flight = in_flight;
		TpOp *t = lw_op(L, TP_FOR, op->loc, in, n + 3, rt, n);
		t->attr.i = op->attr.i;
		tp_op_add_regions(L->f, t, 1);
		/* a loop holding buffers keeps its scratch after them, as a pipelined one */
		bool pipelined = op->attr.flags & (TIR_PIPELINED | TIR_HOLDS_BUFS);
		L->in_pipelined_loop += pipelined;
		lower_region(L, body, &t->regions[0], at, uni, n + 1);
		L->in_pipelined_loop -= pipelined;
		const TpOp *y = term(&t->regions[0]);
		bool again = false;
		for (int i = 0; i < n; i++)
			if (uni[i + 1] && y && i < y->nin && !tp_uniform(L->f, y->operands[i])) {
				uni[i + 1] = false;
				again = true;
			}
		if (!again) {
			set_results_uniform(L, t, uni + 1);
			bind(L, op->results, op->nout, t->results);
			if (L->held_loop == op)
				L->held_loop = NULL; /* its held buffers are dead after it */
			return;
		}
		remove_op(blk, t);
	}
}

static void lower_if(Lower *L, const TirOp *op)
{
	TpVal c = uniform(L, lw_get(L, op->operands[0]).r[0], op->loc);
	int n = count_regs(L, op->results, op->nout);
	Type *rt = flat_types(L, op->results, op->nout, n);
	TpOp *t = lw_op(L, TP_IF, op->loc, &c, 1, rt, n);
	tp_op_add_regions(L->f, t, 2);
	bool *uni = ARENA_NEWN(L->arena, bool, n + 1);
	for (int i = 0; i < n; i++)
		uni[i] = true;
	for (int r = 0; r < 2; r++) {
		lower_region(L, &op->regions[r], &t->regions[r], NULL, NULL, 0);
		const TpOp *y = term(&t->regions[r]);
		for (int i = 0; i < n; i++)
			if (!y || i >= y->nin || !tp_uniform(L->f, y->operands[i]))
				uni[i] = false;
	}
	set_results_uniform(L, t, uni);
	bind(L, op->results, op->nout, t->results);
}

static void lower_while(Lower *L, const TirOp *op)
{
	const TirBlock *before = &op->regions[0], *after = &op->regions[1];
	int n = count_regs(L, op->operands, op->nin);
	TpVal *in = ARENA_NEWN(L->arena, TpVal, n + 1);
	flatten(L, op->operands, op->nin, in);
	Type *it = flat_types(L, op->operands, op->nin, n);
	int nv = count_regs(L, op->results, op->nout);
	Type *vt = flat_types(L, op->results, op->nout, nv);
	bool *uni = ARENA_NEWN(L->arena, bool, n + 1);
	bool *vuni = ARENA_NEWN(L->arena, bool, nv + 1);
	for (int i = 0; i < n; i++)
		uni[i] = tp_uniform(L->f, in[i]);
	for (;;) {
		TpBlock *blk = L->blk;
		TpOp *t = lw_op(L, TP_WHILE, op->loc, in, n, vt, nv);
		tp_op_add_regions(L->f, t, 2);
		bool holds = op->attr.flags & TIR_HOLDS_BUFS;
		L->in_pipelined_loop += holds;
		lower_region(L, before, &t->regions[0], it, uni, n);
		const TpOp *c = term(&t->regions[0]);
		for (int i = 0; i < nv; i++)
			vuni[i] = c && i + 1 < c->nin && tp_uniform(L->f, c->operands[i + 1]);
		lower_region(L, after, &t->regions[1], vt, vuni, nv);
		L->in_pipelined_loop -= holds;
		const TpOp *y = term(&t->regions[1]);
		bool again = false;
		for (int i = 0; i < n; i++)
			if (uni[i] && y && i < y->nin && !tp_uniform(L->f, y->operands[i])) {
				uni[i] = false;
				again = true;
			}
		if (!again) {
			set_results_uniform(L, t, vuni);
			bind(L, op->results, op->nout, t->results);
			if (L->held_loop == op)
				L->held_loop = NULL;
			return;
		}
		remove_op(blk, t);
	}
}

static void lower_term(Lower *L, const TirOp *op, TpOpKind k)
{
	int n = count_regs(L, op->operands, op->nin);
	TpVal *in = ARENA_NEWN(L->arena, TpVal, n + 1);
	flatten(L, op->operands, op->nin, in);
	if (k == TP_CONDITION && n) in[0] = uniform(L, in[0], op->loc);
	lw_op(L, k, op->loc, in, n, NULL, 0);
}

/* Decimal digits of n >= 0. */
static int digits(int64_t n)
{
	int d = 1;
	while (n >= 10)
		n /= 10, d++;
	return d;
}

/* One TP_PRINT per value element; attr.perm[d] is the width of coordinate d
 * (the digits of the largest index, as Triton pads it: "idx (  5)" in 128). */
static void lower_print(Lower *L, const TirOp *op)
{
	for (int i = 0; i < op->nin; i++) {
		Type vt = L->tf->vals.data[op->operands[i]].ty;
		LVal x = lw_get(L, op->operands[i]);
		const LinearLayout *l = lw_layout(L, op->operands[i]);
		uint32_t rf = 0, lf, wf;
		if (l)
			lw_free(L, l, &rf, &lf, &wf);
		for (int r = 0; r < x.n; r++) {
			if (r & (int)rf)
				continue;
			TpVal in[LL_MAX_OUT + 1];
			int k = 0;
			for (int d = 0; l && d < l->n_out; d++)
				in[k++] = lw_coord(L, l, r, d);
			in[k++] = x.r[r];
			TpOp *t = lw_op(L, TP_PRINT, op->loc, in, k, NULL, 0);
			t->attr.str = op->attr.str;
			t->attr.flags = op->attr.flags;
			t->attr.i = l ? l->n_out : 0;
			t->attr.i2 = op->nin > 1 ? i + 1 : 0;
			for (int d = 0; l && d < l->n_out && d < vt.rank && d < TIR_MAX_RANK; d++)
				t->attr.perm[d] = digits(vt.shape[d] - 1);
		}
	}
	if (op->nin == 0) {
		TpOp *t = lw_op(L, TP_PRINT, op->loc, NULL, 0, NULL, 0);
		t->attr.str = op->attr.str;
	}
}

static void lower_assert(Lower *L, const TirOp *op)
{
	LVal x = lw_get(L, op->operands[0]);
	const char *file = op->loc.file && op->loc.file->name ? op->loc.file->name : "<kernel>";
	const char *msg = arena_printf(L->arena, "%s:%d: %s", file, op->loc.line,
	                               op->attr.str ? op->attr.str : "assertion failed");
	/* One assert per thread, on the AND of its elements, as Triton's GPU
	 * lowering checks them: a thread fails once if any element fails. One per
	 * register stopped the program instance at the first register that failed,
	 * so threads failing only in a later one were not counted (cpu, 8 lanes
	 * holding 2 elements of a 16-element tile, 11 failing: 3 threads, not 8). */
	TpVal all = 0;
	for (int r = 0; r < x.n; r++)
		all = lw_and1(L, all, x.r[r]);
	if (!all)
		return;
	TpOp *t = lw_op(L, TP_ASSERT, op->loc, &all, 1, NULL, 0);
	t->attr.str = msg;
}

bool lw_control(Lower *L, const TirOp *op)
{
	switch ((TirOpKind)op->kind) {
	case TOP_FOR: lower_for(L, op); return true;
	case TOP_IF: lower_if(L, op); return true;
	case TOP_WHILE: lower_while(L, op); return true;
	case TOP_YIELD: lower_term(L, op, TP_YIELD); return true;
	case TOP_CONDITION: lower_term(L, op, TP_CONDITION); return true;
	case TOP_RETURN: lower_term(L, op, TP_RETURN); return true;
	case TOP_PRINT: lower_print(L, op); return true;
	case TOP_ASSERT: lower_assert(L, op); return true;
	case TOP_BARRIER:
		lw_op(L, TP_BARRIER, op->loc, NULL, 0, NULL, 0)->attr.flags = op->attr.flags & TIR_USER_BARRIER ? TP_USER : 0;
		return true;
	default: return false;
	}
}

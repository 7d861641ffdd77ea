/* tp_prefetch.c: the first k step of a pipelined dot loop's operands, read
 * from shared memory one iteration ahead (Triton's Prefetch pass, done on the
 * thread program).
 *
 * A pipelined loop (src/layout/pipeline.c) begins each iteration by waiting
 * for its stage's copies and a barrier, then issues the copies of a later
 * stage, then reads the operands with ldmatrix and runs the mmas. The first
 * mma waits for an ldmatrix issued after the barrier and after the copies
 * (ptxas does not move a shared read above a shared write it cannot tell
 * apart), so each iteration starts with the tensor cores idle. Here the
 * wait and the barrier move to the end of the iteration, followed by the
 * ldmatrix ops that feed the first k step's mmas, for the next iteration's
 * stage; their results are carried into that iteration. The next iteration
 * starts its mmas at once, and the copies it issues overlap them.
 *
 * Why this is still race free: the barrier at the end of iteration i comes
 * after every shared read of iteration i's stage, and before iteration i+1
 * issues copies into the slot iteration i read (with S stages the copies of
 * iteration i+1 go to slot (i+1+S-1) mod S = i mod S). The wait before it
 * allows as many groups in flight as the one at the top did: one more group
 * has been committed by then, and one more stage is needed. Before the loop,
 * the same wait and barrier and the first iteration's loads are added. The
 * last iteration's loads read a stage no iteration uses; their values are
 * dropped.
 *
 * The k step: the mmas whose accumulators do not come from an mma of the
 * same iteration (with the k-outer order lowering uses, the mmas of k = 0).
 * Applied only where the loop is exactly that shape: the wait and the
 * barrier first, no other barrier or wait inside, the loads' addresses
 * computed by pure ops. The CPU emitter runs the same program (cuda-emu). */
#include "codegen/tp.h"

#include <stdlib.h>
#include <string.h>

/* More carried words than this and the prefetch is not worth its registers
 * (the accumulator tile is carried too; ptxas spills past 255). */
enum { PREFETCH_MAX_WORDS = 64 };

typedef struct Prefetch {
	TpFunc *f;
	TpBlock *body;
	int nargs; /* the body's arguments before any was added */
	int *def_at;   /* per value: 1 + index in body of the op defining it, 0 otherwise */
	TpVal *map;    /* per value: its clone while cloning, 0 = itself */
	bool *in_chain; /* per body op: needed for a prefetched address */
	bool *take;    /* per body op: a prefetched ldmatrix */
} Prefetch;

static bool block_has_sync(const TpBlock *b)
{
	for (int i = 0; i < b->nops; i++) {
		const TpOp *op = b->ops[i];
		if (op->kind == TP_BARRIER || op->kind == TP_CP_ASYNC_WAIT)
			return true;
		for (int r = 0; r < op->nregions; r++)
			if (block_has_sync(&op->regions[r]))
				return true;
	}
	return false;
}

/* Marks the body ops that compute v (transitively); false when one of them
 * cannot be cloned (not pure, or a region op). */
static bool mark_chain(Prefetch *p, TpVal v)
{
	int at = v ? p->def_at[v] : 0;
	if (!at || p->in_chain[at - 1])
		return true;
	const TpOp *op = p->body->ops[at - 1];
	if (op->nregions || !(tp_op_flags((TpOpKind)op->kind) & TF_PURE) || op->kind == TP_MMA)
		return false;
	p->in_chain[at - 1] = true;
	for (int k = 0; k < op->nin; k++)
		if (!mark_chain(p, op->operands[k]))
			return false;
	return true;
}

static TpVal mapped(const Prefetch *p, TpVal v) { return v && p->map[v] ? p->map[v] : v; }

static TpOp *clone_op(Prefetch *p, TpBlock *into, const TpOp *op)
{
	TpVal in[64];
	TpVal *ins = op->nin <= 64 ? in : xmalloc(sizeof *ins * (size_t)op->nin);
	Type outs[16];
	Type *outt = op->nout <= 16 ? outs : xmalloc(sizeof *outt * (size_t)op->nout);
	for (int k = 0; k < op->nin; k++)
		ins[k] = mapped(p, op->operands[k]);
	for (int k = 0; k < op->nout; k++)
		outt[k] = tp_type(p->f, op->results[k]);
	TpOp *c = tp_op(p->f, into, (TpOpKind)op->kind, op->loc, ins, op->nin, outt, op->nout);
	c->attr = op->attr;
	for (int k = 0; k < op->nout; k++)
		p->map[op->results[k]] = c->results[k];
	if (ins != in)
		free(ins);
	if (outt != outs)
		free(outt);
	return c;
}

/* Appends to `into` the wait and barrier of the body's top, the address
 * ops and the prefetched ldmatrix ops, with the body's arguments read as
 * args[] (the induction variable, then the carried values). */
static void emit_prefetch(Prefetch *p, TpBlock *into, const TpVal *args)
{
	const TpBlock *b = p->body;
	for (int k = 0; k < p->nargs; k++)
		p->map[b->args[k]] = args[k];
	clone_op(p, into, b->ops[0]);
	clone_op(p, into, b->ops[1]);
	for (int i = 2; i < b->nops; i++)
		if (p->in_chain[i] || p->take[i])
			clone_op(p, into, b->ops[i]);
	for (int i = 2; i < b->nops; i++)
		for (int k = 0; k < b->ops[i]->nout; k++)
			p->map[b->ops[i]->results[k]] = 0;
	for (int k = 0; k < p->nargs; k++)
		p->map[b->args[k]] = 0;
}

static void replace_uses(TpBlock *b, const TpVal *map)
{
	for (int i = 0; i < b->nops; i++) {
		TpOp *op = b->ops[i];
		for (int k = 0; k < op->nin; k++)
			if (op->operands[k] && map[op->operands[k]])
				op->operands[k] = map[op->operands[k]];
		for (int r = 0; r < op->nregions; r++)
			replace_uses(&op->regions[r], map);
	}
}

/* Appends n values to an arena array of length len. */
static TpVal *append_vals(Arena *a, const TpVal *v, int len, const TpVal *more, int n)
{
	TpVal *out = ARENA_NEWN(a, TpVal, len + n);
	if (len)
		memcpy(out, v, sizeof *out * (size_t)len);
	memcpy(out + len, more, sizeof *out * (size_t)n);
	return out;
}

/* Which body ops are the prefetched ldmatrix ops and their address chains;
 * the number of carried values they add, 0 when the loop does not qualify. */
static int choose(Prefetch *p)
{
	TpBlock *b = p->body;
	if (b->nops < 3 || b->ops[0]->kind != TP_CP_ASYNC_WAIT || b->ops[1]->kind != TP_BARRIER ||
	    b->ops[b->nops - 1]->kind != TP_YIELD)
		return 0;
	for (int i = 2; i < b->nops; i++) {
		const TpOp *op = b->ops[i];
		if (op->kind == TP_BARRIER || op->kind == TP_CP_ASYNC_WAIT)
			return 0;
		for (int r = 0; r < op->nregions; r++)
			if (block_has_sync(&op->regions[r]))
				return 0;
		for (int k = 0; k < op->nout; k++)
			p->def_at[op->results[k]] = i + 1;
	}
	/* the first k step: mmas whose accumulator no mma of this body made */
	int nvals = 0, words = 0;
	for (int i = 2; i < b->nops; i++) {
		const TpOp *op = b->ops[i];
		if (op->kind != TP_MMA)
			continue;
		int nab = op->nin - op->nout, first = 1;
		for (int k = nab; k < op->nin && first; k++) {
			int at = p->def_at[op->operands[k]];
			first = !at || b->ops[at - 1]->kind != TP_MMA;
		}
		for (int k = 0; k < nab && first; k++) {
			int at = p->def_at[op->operands[k]];
			if (!at || b->ops[at - 1]->kind != TP_LDMATRIX || p->take[at - 1])
				continue;
			p->take[at - 1] = true;
			nvals += b->ops[at - 1]->nout;
			words += (int)b->ops[at - 1]->attr.i;
			if (!mark_chain(p, b->ops[at - 1]->operands[0]))
				return 0;
		}
	}
	return words <= PREFETCH_MAX_WORDS ? nvals : 0;
}

/* Per-value tables, grown to the values there are now (zeroed). */
typedef struct Tables {
	int *def_at;
	TpVal *map;
	size_t n;
} Tables;

static void tables_fit(Tables *t, size_t n)
{
	if (n <= t->n)
		return;
	t->def_at = xrealloc(t->def_at, sizeof *t->def_at * n);
	t->map = xrealloc(t->map, sizeof *t->map * n);
	memset(t->def_at + t->n, 0, sizeof *t->def_at * (n - t->n));
	memset(t->map + t->n, 0, sizeof *t->map * (n - t->n));
	t->n = n;
}

static void prefetch_loop(TpFunc *f, TpBlock *parent, int idx, Tables *t)
{
	tables_fit(t, f->vals.len + 1);
	int *def_at = t->def_at;
	TpVal *map = t->map;
	TpOp *loop = parent->ops[idx];
	TpBlock *b = &loop->regions[0];
	Prefetch p = {f, b, b->nargs, def_at, map, NULL, NULL};
	p.in_chain = xcalloc((size_t)b->nops, sizeof *p.in_chain);
	p.take = xcalloc((size_t)b->nops, sizeof *p.take);
	int n = choose(&p);
	for (int i = 0; i < b->nops; i++)
		for (int k = 0; k < b->ops[i]->nout; k++)
			def_at[b->ops[i]->results[k]] = 0;
	if (!n || b->nargs != loop->nin - 2) {
		free(p.in_chain);
		free(p.take);
		return;
	}
	int nloads = 0;
	for (int i = 0; i < b->nops; i++)
		nloads += p.take[i];
	Arena *a = f->arena;
	TpVal *args = xmalloc(sizeof *args * (size_t)b->nargs);
	TpVal *inits = xmalloc(sizeof *inits * (size_t)n), *nexts = xmalloc(sizeof *nexts * (size_t)n);
	TpVal *carried = xmalloc(sizeof *carried * (size_t)n);
	TpOp **loads = xmalloc(sizeof *loads * (size_t)nloads);

	/* before the loop: the first iteration's (induction variable = lb) */
	TpBlock pre = {0};
	args[0] = loop->operands[0];
	for (int k = 1; k < b->nargs; k++)
		args[k] = loop->operands[2 + k];
	emit_prefetch(&p, &pre, args);
	int j = 0, l = 0;
	for (int i = 0; i < pre.nops; i++)
		if (pre.ops[i]->kind == TP_LDMATRIX)
			for (int k = 0; k < pre.ops[i]->nout; k++)
				inits[j++] = pre.ops[i]->results[k];

	/* the body: the prefetched loads' results become carried values */
	for (int i = 2, c = 0; i < b->nops; i++)
		if (p.take[i]) {
			loads[l++] = b->ops[i];
			for (int k = 0; k < b->ops[i]->nout; k++, c++) {
				TpVal r = b->ops[i]->results[k];
				carried[c] = tp_block_add_arg(f, b, tp_type(f, r), false);
				map[r] = carried[c];
			}
		}
	replace_uses(b, map);
	for (int i = 0; i < nloads; i++)
		for (int k = 0; k < loads[i]->nout; k++)
			map[loads[i]->results[k]] = 0;
	TpOp *yield = b->ops[b->nops - 1];
	TpBlock end = {0};
	Type ivt = tp_type(f, b->args[0]);
	TpVal step_in[2] = {b->args[0], loop->operands[2]};
	args[0] = tp_op(f, &end, TP_ADD, loop->loc, step_in, 2, &ivt, 1)->results[0];
	for (int k = 1; k < p.nargs; k++)
		args[k] = yield->operands[k - 1];
	emit_prefetch(&p, &end, args);
	j = 0;
	for (int i = 0; i < end.nops; i++)
		if (end.ops[i]->kind == TP_LDMATRIX)
			for (int k = 0; k < end.ops[i]->nout; k++)
				nexts[j++] = end.ops[i]->results[k];

	/* splice: the body without its top wait/barrier and the moved loads,
	 * then the end ops and the yield */
	TpOp **ops = ARENA_NEWN(a, TpOp *, b->nops + end.nops);
	int m = 0;
	for (int i = 2; i < b->nops - 1; i++)
		if (!p.take[i])
			ops[m++] = b->ops[i];
	for (int i = 0; i < end.nops; i++)
		ops[m++] = end.ops[i];
	ops[m++] = yield;
	b->ops = ops;
	b->nops = b->cap = m;
	yield->operands = append_vals(a, yield->operands, yield->nin, nexts, n);
	yield->nin += n;
	loop->operands = append_vals(a, loop->operands, loop->nin, inits, n);
	loop->nin += n;
	TpVal *res = xmalloc(sizeof *res * (size_t)n);
	for (int k = 0; k < n; k++)
		res[k] = tp_new_val(f, tp_type(f, carried[k]), false);
	loop->results = append_vals(a, loop->results, loop->nout, res, n);
	loop->nout += n;

	TpOp **pops = ARENA_NEWN(a, TpOp *, parent->nops + pre.nops);
	memcpy(pops, parent->ops, sizeof *pops * (size_t)idx);
	memcpy(pops + idx, pre.ops, sizeof *pops * (size_t)pre.nops);
	memcpy(pops + idx + pre.nops, parent->ops + idx, sizeof *pops * (size_t)(parent->nops - idx));
	parent->ops = pops;
	parent->nops = parent->cap = parent->nops + pre.nops;
	f->prefetched = true;
	free(res);
	free(args);
	free(inits);
	free(nexts);
	free(carried);
	free(loads);
	free(p.in_chain);
	free(p.take);
}

static void walk(TpFunc *f, TpBlock *b, Tables *t)
{
	for (int i = 0; i < b->nops; i++) {
		TpOp *op = b->ops[i];
		for (int r = 0; r < op->nregions; r++)
			walk(f, &op->regions[r], t);
		if (op->kind == TP_FOR && op->nregions == 1) {
			int before = b->nops;
			prefetch_loop(f, b, i, t);
			i += b->nops - before; /* past the ops added before the loop */
		}
	}
}

void tp_prefetch_dot_operands(TpFunc *f)
{
	Tables t = {0};
	walk(f, f->body, &t);
	free(t.def_at);
	free(t.map);
}

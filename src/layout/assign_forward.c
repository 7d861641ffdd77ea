/* assign_forward.c: layout assignment's forward pass (step 4 in assign.c):
 * in program order, every tile value takes a layout, and where a consumer
 * needs another one a cheap producer chain is redone in it, a broadcast is
 * redone from its source, or a CONVERT_LAYOUT is inserted (cached per block). */
#include <stdlib.h>
#include <string.h>

#include "layout/assign_int.h"

/* ---- forward pass: assignment and conversions ------------------------------ */

typedef struct Cursor {
	TirBlock *b;
	int pos; /* index of the op being processed; inserted ops go before it */
} Cursor;

static ValId need(Assign *A, Cursor *c, ValId v, const LinearLayout *l, int depth);

/* A load of fewer elements than the program has threads is redone in the
 * layout a consumer wants instead of converted (Triton's
 * isExpensiveLoadOrStore: such loads hit in L1): attention backward's
 * per-row l_i and delta are read straight into the rows of the dot's
 * layout, with no round trip through shared memory and no barrier. Only
 * where nothing between the load and the cursor may write memory (a store,
 * an atomic, a barrier, any op with a region), so the copy reads what the
 * load read. */
static bool cheap_load(const Assign *A, const Cursor *c, ValId v)
{
	const TirOp *d = A->f->vals.data[v].def;
	if (!d || d->kind != TOP_LOAD || d->block != c->b || (d->attr.flags & TIR_VOLATILE) ||
	    d->nout != 1 || d->nin > 8 || type_numel(vty(A, v)) >= (int64_t)A->lanes * A->warps)
		return false;
	int at = -1;
	for (int i = 0; i < c->pos && i < c->b->nops; i++)
		if (c->b->ops[i] == d)
			at = i;
	if (at < 0)
		return false;
	for (int i = at + 1; i < c->pos; i++) {
		const TirOp *o = c->b->ops[i];
		if (o->nregions || (o->kind != TOP_LOAD && (tir_op_flags((TirOpKind)o->kind) & TF_MEM)))
			return false;
	}
	return true;
}

/* v is computed by a short chain of arange/splat/constants and elementwise
 * and view ops, which is cheaper to redo in another layout than to convert;
 * with a cursor, small loads there (cheap_load) count too. */
static bool cheap_in(const Assign *A, const Cursor *c, ValId v, int depth)
{
	const TirOp *op = A->f->vals.data[v].def;
	if (!op || op->nout != 1 || op->nregions || depth > 6)
		return false;
	switch (op->kind) {
	case TOP_CONST: case TOP_ARANGE: case TOP_SPLAT:
		return true;
	case TOP_BROADCAST: case TOP_EXPAND_DIMS: case TOP_TRANS: case TOP_RESHAPE:
		break;
	case TOP_LOAD:
		/* its pointers and mask are redone too: converting a loop-carried
		 * pointer tile (8 bytes an element) each iteration costs more than
		 * converting what it loads */
		if (!c || !cheap_load(A, c, v))
			return false;
		break;
	default:
		if (!is_elementwise(op->kind) || op->kind == TOP_CONVERT_LAYOUT)
			return false;
	}
	for (int i = 0; i < op->nin; i++)
		if (is_tile(A, op->operands[i]) && !cheap_in(A, c, op->operands[i], depth + 1))
			return false;
	return true;
}

bool cheap(const Assign *A, ValId v, int depth) { return cheap_in(A, NULL, v, depth); }

/* v is a broadcast: converting its (smaller) source and broadcasting again
 * moves fewer elements than converting the broadcast tile (Triton's
 * remove-layout-conversions rematerializes it the same way). */
static bool is_broadcast(const Assign *A, ValId v)
{
	const TirOp *op = A->f->vals.data[v].def;
	return op && op->kind == TOP_BROADCAST && op->nout == 1 && !op->nregions;
}

/* v is made from no tile (a constant, an arange, a splat of a scalar):
 * redoing it in another layout recurses no further, so it is redone at any
 * depth of a rematerialized chain. Past the depth limit, sglang's decode
 * attention converted the arange and splat of `start_n + arange(0, N)`
 * through shared memory for its kv_indices load, twice per iteration. */
static bool is_leaf(const Assign *A, ValId v)
{
	const TirOp *op = A->f->vals.data[v].def;
	return op && op->nout == 1 && !op->nregions &&
	       (op->kind == TOP_CONST || op->kind == TOP_ARANGE ||
	        (op->kind == TOP_SPLAT && op->nin == 1 && !is_tile(A, op->operands[0])));
}

/* Clone the cheap op (or broadcast) defining v, producing layout l, before
 * the cursor. */
static ValId remat(Assign *A, Cursor *c, ValId v, const LinearLayout *l, int depth)
{
	const TirOp *op = A->f->vals.data[v].def;
	ValId ins[8];
	LinearLayout ul;
	if (op->nin > 8)
		return 0;
	for (int i = 0; i < op->nin; i++) {
		ValId u = op->operands[i];
		ins[i] = u;
		if (!is_tile(A, u))
			continue;
		if (!operand_layout_for(A, op, u, l, &ul))
			return 0;
		ins[i] = need(A, c, u, lay_intern(A, &ul), depth + 1);
		if (!ins[i])
			return 0;
	}
	Type t = vty(A, v);
	TirOp *n = tir_op_at(A->f, c->b, c->pos, (TirOpKind)op->kind, op->loc, ins, op->nin, &t, 1);
	n->attr = op->attr;
	c->pos++;
	ValId r = n->results[0];
	A->f->vals.data[r].name = A->f->vals.data[v].name;
	set_layout(A, r, l);
	set_origin(A, r, v);
	if (n->kind == TOP_LOAD) {
		n->attr.i2 = mem_vec(A, n, lay(A, r));
		mem_runs(A, n);
	}
	return r;
}

/* The one operand of elementwise op d that is neither a scalar nor cheap to
 * redo in another layout (a constant chain, a broadcast), or 0. */
static ValId sole_costly_operand(const Assign *A, const TirOp *d)
{
	ValId u = 0;
	for (int i = 0; i < d->nin; i++) {
		ValId x = d->operands[i];
		if (!is_tile(A, x) || cheap(A, x, 0) || is_broadcast(A, x))
			continue;
		if (u)
			return 0;
		u = x;
	}
	return u;
}

/* Converting v to l where v is a chain of elementwise ops of this block over
 * one narrower value (fp8 x loaded, .to(fp32), * scale, .to(bf16) for a
 * store of another layout): convert the narrowest value and redo the chain
 * in l, moving 1 byte per element through shared memory instead of 2 or 4
 * (Triton's hoisting of conversions above extensions). 0 when no value up
 * the chain is narrower than v. */
static ValId hoist_conversion(Assign *A, Cursor *c, ValId v, const LinearLayout *l, int depth)
{
	enum { MAX_CHAIN = 8 };
	const TirOp *chain[MAX_CHAIN];
	int n = 0, best = 0;
	int best_bytes = dtype_bytes((DType)vty(A, v).dt);
	ValId cur = v, from = 0;
	while (n < MAX_CHAIN) {
		const TirOp *d = A->f->vals.data[cur].def;
		if (!d || d->block != c->b || d->nout != 1 || d->nregions || !is_elementwise(d->kind) ||
		    d->kind == TOP_CONVERT_LAYOUT || d->nin > 8)
			break;
		ValId u = sole_costly_operand(A, d);
		if (!u || vty(A, u).rank != vty(A, v).rank)
			break;
		chain[n++] = d;
		cur = u;
		int b = dtype_bytes((DType)vty(A, u).dt);
		if (b > 0 && b < best_bytes)
			best = n, best_bytes = b, from = u;
	}
	if (!best)
		return 0;
	ValId r = need(A, c, from, l, depth + 1);
	for (int k = best - 1; k >= 0; k--) {
		const TirOp *op = chain[k];
		ValId ins[8];
		LinearLayout ul;
		for (int i = 0; i < op->nin; i++) {
			ValId u = op->operands[i];
			ins[i] = u;
			if (k + 1 < best ? u == chain[k + 1]->results[0] : u == from)
				ins[i] = r;
			else if (is_tile(A, u)) {
				if (!operand_layout_for(A, op, u, l, &ul))
					return 0;
				ins[i] = need(A, c, u, lay_intern(A, &ul), depth + 1);
			}
			if (!ins[i])
				return 0;
		}
		ValId res = op->results[0];
		Type t = vty(A, res);
		TirOp *nop = tir_op_at(A->f, c->b, c->pos, (TirOpKind)op->kind, op->loc, ins, op->nin, &t, 1);
		nop->attr = op->attr;
		c->pos++;
		r = nop->results[0];
		A->f->vals.data[r].name = A->f->vals.data[res].name;
		set_layout(A, r, l);
		set_origin(A, r, res);
	}
	return r;
}

/* v in layout l, usable at the cursor: v itself, a cached or new conversion,
 * or a rematerialized copy. */
static ValId need(Assign *A, Cursor *c, ValId v, const LinearLayout *l, int depth)
{
	if (!is_tile(A, v) || !l)
		return v;
	l = lay_intern(A, l);
	if (lay(A, v) == l)
		return v;
	/* a conversion's value is wanted elsewhere: start from its source
	 * (no chains of conversions; none at all if the source has l) */
	const TirOp *d = A->f->vals.data[v].def;
	if (d && d->kind == TOP_CONVERT_LAYOUT && d->nin == 1 && is_tile(A, d->operands[0])) {
		v = d->operands[0];
		if (lay(A, v) == l)
			return v;
	}
	for (size_t i = 0; i < A->cache.len; i++) {
		CvtEntry *e = &A->cache.data[i];
		if (e->from == v && e->l == l && e->block == c->b)
			return e->to;
	}
	ValId r = 0;
	if ((depth < 6 || is_leaf(A, v)) && (cheap_in(A, c, v, 0) || is_broadcast(A, v)))
		r = remat(A, c, v, l, depth);
	if (!r && depth < 6)
		r = hoist_conversion(A, c, v, l, depth);
	if (!r) {
		Type t = vty(A, v);
		TirOp *n = tir_op_at(A->f, c->b, c->pos, TOP_CONVERT_LAYOUT, A->f->vals.data[v].def
			? A->f->vals.data[v].def->loc : (SrcLoc){0}, &v, 1, &t, 1);
		c->pos++;
		r = n->results[0];
		A->f->vals.data[r].name = A->f->vals.data[v].name;
		set_layout(A, r, l);
		set_origin(A, r, v);
	}
	CvtEntry e = {v, l, c->b, r};
	vec_push(&A->cache, e);
	return r;
}

static void set_operand(Assign *A, Cursor *c, TirOp *op, int i, const LinearLayout *l)
{
	if (i < op->nin && l)
		op->operands[i] = need(A, c, op->operands[i], l, 0);
}

/* Layout for a result that is produced fresh (source ops, fallbacks). */
static const LinearLayout *fresh(Assign *A, ValId v)
{
	LinearLayout l;
	if (wanted(A, v))
		return wanted(A, v);
	default_layout(A, v, &l);
	return lay_intern(A, &l);
}

static void assign_elementwise(Assign *A, Cursor *c, TirOp *op)
{
	ValId res = op->results[0];
	const LinearLayout *common = NULL, *first = NULL, *w = wanted(A, res);
	bool agree = true, w_is_operand = false;
	/* cheap operands follow the others, and so do broadcasts when some
	 * operand is not one: a broadcast is redone from its smaller source
	 * (need), so `acc / l[:, None]` keeps acc where it is rather than
	 * converting the whole tile */
	bool skip_bcast = false;
	for (int i = 0; i < op->nin; i++) {
		ValId u = op->operands[i];
		skip_bcast |= is_tile(A, u) && !cheap(A, u, 0) && !is_broadcast(A, u);
	}
	for (int i = 0; i < op->nin; i++) {
		ValId u = op->operands[i];
		if (!is_tile(A, u) || cheap(A, u, 0) || (skip_bcast && is_broadcast(A, u)))
			continue;
		const LinearLayout *ul = lay(A, u);
		if (!first)
			first = ul;
		if (common && common != ul)
			agree = false;
		common = ul;
		if (ul == w)
			w_is_operand = true;
	}
	const LinearLayout *t = first && agree ? first
			       : w_is_operand ? w
			       : first ? first
			       : fresh(A, res);
	for (int i = 0; i < op->nin; i++)
		set_operand(A, c, op, i, t);
	set_layout(A, res, t);
}

/* Some lane or warp of l holds copies (its basis is zero). */
static bool has_copies(const LinearLayout *l)
{
	for (int i = 0; i < l->n_in; i++)
		for (int b = 0; l->in_dim[i] != LL_REG && b < l->in_bits[i]; b++) {
			bool zero = true;
			for (int d = 0; d < l->n_out; d++)
				zero &= !l->basis[i][b][d];
			if (zero)
				return true;
		}
	return false;
}

/* Every costly source of the join along k already has the layout that
 * makes its broadcast to w register-local: a flip's halves, picked out of a
 * view along lanes, are put back on those lanes. */
static bool join_is_local(Assign *A, const ValId src[2], int k, const LinearLayout *w)
{
	bool any = false;
	for (int i = 0; i < 2; i++) {
		if (!src[i] || !lay(A, src[i]) || cheap(A, src[i], 0))
			continue;
		Type t = vty(A, src[i]);
		int32_t shape[TIR_MAX_RANK];
		for (int d = 0, s = 0; d <= t.rank; d++)
			shape[d] = d == k ? 1 : t.shape[s++];
		LinearLayout bs, ex;
		ll_expand_dims(&ex, lay(A, src[i]), k);
		if (!ll_broadcast_source(&bs, w, t.rank + 1, shape) || !ll_equal(&bs, &ex))
			return false;
		any = true;
	}
	return any;
}

/* The layout of the tile along whose axis k (of size 2) the first costly
 * source of a join was picked (shape_pick_axis: a REDUCE over k), or NULL. */
static const LinearLayout *picked_from(const Assign *A, const ValId src[2], int k)
{
	for (int i = 0; i < 2; i++) {
		if (!src[i] || cheap(A, src[i], 0))
			continue;
		const TirOp *r = A->f->vals.data[src[i]].def;
		if (!r || r->kind != TOP_REDUCE || r->nin != 1 || r->attr.axis != k || vty(A, r->operands[0]).shape[k] != 2)
			return NULL;
		return lay(A, r->operands[0]);
	}
	return NULL;
}

/* tl.join (join_axis), in the first layout that moves no data:
 * - the wanted one, where it holds the new axis k in registers or the
 *   sources already have its slice (their broadcasts are register copies);
 * - for a flip step (halves picked out of a tile along k), that tile's;
 * - where the first costly source is replicated over some lanes or warps,
 *   the one its broadcast takes (ll_fit_broadcast puts k there);
 * - else the source's layout with k on register bit 0 (Triton's join
 *   encoding): each thread owns both halves of its elements.
 * A consumer wanting another layout converts the result. Before, the join
 * followed its consumer's want: an mma operand after lmdeploy's AWQ unpack
 * put the three nested joins' axes on lanes, so every lane unpacked the
 * same packed int4 word 8 times, and the packed weights were converted to a
 * layout replicated 8-fold. */
static bool assign_join(Assign *A, Cursor *c, TirOp *op)
{
	ValId src[2], res = op->results[0];
	int k = join_axis(A, op, src);
	if (k < 0)
		return false;
	const LinearLayout *w = wanted(A, res), *from = NULL;
	LinearLayout j;
	const LinearLayout *p = picked_from(A, src, k);
	if (w && (axis_in_registers(w, k) || join_is_local(A, src, k, w))) {
		j = *w;
	} else if (p && join_is_local(A, src, k, p)) {
		j = *p; /* a flip step: the swapped halves go back where they were */
	} else {
		for (int i = 0; i < 2 && !from; i++)
			if (src[i] && lay(A, src[i]) && !cheap(A, src[i], 0))
				from = lay(A, src[i]);
		/* a source replicated over some lanes or warps: the broadcasts
		 * put the new axis there (ll_fit_broadcast), as free */
		if (!from || has_copies(from))
			return false;
		ll_join_axis(&j, from, k);
	}
	const LinearLayout *jl = lay_intern(A, &j);
	for (int i = 0; i < op->nin; i++)
		set_operand(A, c, op, i, jl);
	set_layout(A, res, jl);
	return true;
}

static void assign_loop(Assign *A, Cursor *c, TirOp *op)
{
	TirBlock *body = &op->regions[0];
	bool is_for = op->kind == TOP_FOR;
	int first = is_for ? 3 : 0, arg0 = is_for ? 1 : 0;
	int n = op->nin - first;
	const LinearLayout **carried = arena_alloc(A->lc->arena, sizeof(void *) * (size_t)(n + 1));
	for (int i = 0; i < n; i++) {
		ValId init = op->operands[first + i];
		ValId arg = arg0 + i < body->nargs ? body->args[arg0 + i] : 0;
		if (!is_tile(A, init))
			continue;
		carried[i] = wanted(A, arg) ? wanted(A, arg) : lay(A, init);
		set_operand(A, c, op, first + i, carried[i]);
		set_layout(A, arg, carried[i]);
	}
	if (is_for) {
		assign_block(A, body, carried, n, 0);
		for (int i = 0; i < op->nout && i < n; i++)
			set_layout(A, op->results[i], carried[i]);
		return;
	}
	/* WHILE: before region ends in CONDITION(cond, vals...) feeding the after
	 * region's args and the results; after region yields the carried values */
	TirBlock *before = body, *after = &op->regions[1];
	assign_block(A, before, NULL, 0, 1);
	const TirOp *cond = terminator(before);
	int nv = cond ? cond->nin - 1 : 0;
	const LinearLayout **vals = arena_alloc(A->lc->arena, sizeof(void *) * (size_t)(nv + 1));
	for (int i = 0; i < nv; i++) {
		ValId v = cond->operands[i + 1];
		if (!is_tile(A, v))
			continue;
		ValId aa = i < after->nargs ? after->args[i] : 0;
		vals[i] = wanted(A, aa) ? wanted(A, aa) : lay(A, v);
		set_layout(A, aa, vals[i]);
		if (i < op->nout)
			set_layout(A, op->results[i], vals[i]);
	}
	/* convert the condition's values (before the terminator) */
	Cursor cc = {before, before->nops - 1};
	TirOp *condop = before->ops[before->nops - 1];
	for (int i = 0; i < nv; i++)
		set_operand(A, &cc, condop, i + 1, vals[i]);
	assign_block(A, after, carried, n, 0);
}

static void assign_if(Assign *A, TirOp *op)
{
	const LinearLayout **res = arena_alloc(A->lc->arena, sizeof(void *) * (size_t)(op->nout + 1));
	/* then branch decides unless the result is wanted in a layout */
	for (int k = 0; k < op->nregions; k++) {
		TirBlock *b = &op->regions[k];
		assign_block(A, b, NULL, 0, 1); /* everything but the yield */
		const TirOp *y = terminator(b);
		for (int i = 0; y && i < y->nin && i < op->nout; i++)
			if (!res[i] && is_tile(A, y->operands[i]))
				res[i] = wanted(A, op->results[i]) ? wanted(A, op->results[i])
								    : lay(A, y->operands[i]);
	}
	for (int k = 0; k < op->nregions; k++) {
		TirBlock *b = &op->regions[k];
		if (!b->nops)
			continue;
		Cursor yc = {b, b->nops - 1};
		TirOp *y = b->ops[b->nops - 1];
		for (int i = 0; i < y->nin && i < op->nout; i++)
			set_operand(A, &yc, y, i, res[i]);
	}
	for (int i = 0; i < op->nout; i++)
		set_layout(A, op->results[i], res[i]);
}

static void assign_reduce(Assign *A, Cursor *c, TirOp *op)
{
	const LinearLayout *l = NULL;
	for (int i = 0; i < op->nin && !l; i++)
		if (is_tile(A, op->operands[i]))
			l = lay(A, op->operands[i]);
	for (int i = 0; i < op->nin; i++)
		set_operand(A, c, op, i, l);
	for (int k = 0; k < op->nregions; k++)
		assign_block(A, &op->regions[k], NULL, 0, 0);
	for (int i = 0; i < op->nout && l; i++) {
		if (op->kind == TOP_SCAN) {
			set_layout(A, op->results[i], l);
		} else if (is_tile(A, op->results[i])) {
			LinearLayout s;
			ll_slice(&s, l, op->attr.axis);
			set_layout(A, op->results[i], &s);
		}
	}
}

static void assign_view(Assign *A, Cursor *c, TirOp *op)
{
	ValId src = op->operands[0], res = op->results[0];
	const LinearLayout *sl = lay(A, src);
	LinearLayout l;
	int32_t shape[TIR_MAX_RANK];
	shape_of(A, res, shape);
	switch (op->kind) {
	case TOP_EXPAND_DIMS:
		ll_expand_dims(&l, sl, op->attr.axis);
		break;
	case TOP_TRANS: {
		int perm[TIR_MAX_RANK];
		for (int d = 0; d < vty(A, res).rank; d++)
			perm[d] = op->attr.perm[d];
		ll_permute_outs(&l, sl, perm);
		break;
	}
	case TOP_RESHAPE:
		if (!ll_reshape_outs(&l, sl, vty(A, res).rank, shape))
			default_layout(A, res, &l);
		set_operand(A, c, op, 0, NULL);
		break;
	case TOP_BROADCAST: {
		LinearLayout src_need;
		int32_t order[TIR_MAX_RANK];
		if (wanted(A, res)) {
			l = *wanted(A, res);
		} else {
			l = *sl;
			for (int k = 0; k < vty(A, res).rank; k++)
				order[k] = vty(A, res).rank - 1 - k;
			ll_fit_broadcast(&l, vty(A, res).rank, shape, order);
		}
		if (operand_layout_for(A, op, src, &l, &src_need)) {
			set_operand(A, c, op, 0, &src_need);
		} else {
			default_layout(A, res, &l);
			if (operand_layout_for(A, op, src, &l, &src_need))
				set_operand(A, c, op, 0, &src_need);
		}
		break;
	}
	default:
		l = *sl;
	}
	set_layout(A, res, &l);
}

static void assign_op(Assign *A, Cursor *c, TirOp *op)
{
	LinearLayout l, la, lb, lc;
	if (is_memory(op->kind)) {
		if (op->nin && is_tile(A, op->operands[0])) {
			access_layout(A, op, &l);
			const LinearLayout *il = lay_intern(A, &l);
			for (int i = 0; i < op->nin; i++)
				set_operand(A, c, op, i, il);
			for (int i = 0; i < op->nout; i++)
				set_layout(A, op->results[i], il);
			op->attr.i2 = mem_vec(A, op, il);
			mem_runs(A, op);
		} else {
			op->attr.i2 = 1;
		}
		return;
	}
	switch (op->kind) {
	case TOP_CONST: case TOP_ARANGE: case TOP_SPLAT:
		for (int i = 0; i < op->nout; i++)
			if (is_tile(A, op->results[i]))
				set_layout(A, op->results[i], fresh(A, op->results[i]));
		return;
	case TOP_DOT:
		if (dot_layouts(A, op, &la, &lb, &lc)) {
			set_operand(A, c, op, 0, lay_intern(A, &la));
			set_operand(A, c, op, 1, lay_intern(A, &lb));
		} else {
			for (int i = 0; i < 2; i++) /* FMA: operands keep their layouts */
				if (!lay(A, op->operands[i]))
					set_operand(A, c, op, i, fresh(A, op->operands[i]));
		}
		set_operand(A, c, op, 2, lay_intern(A, &lc));
		set_layout(A, op->results[0], &lc);
		return;
	case TOP_REDUCE: case TOP_SCAN:
		assign_reduce(A, c, op);
		return;
	case TOP_FOR: case TOP_WHILE:
		assign_loop(A, c, op);
		return;
	case TOP_IF:
		assign_if(A, op);
		return;
	case TOP_EXPAND_DIMS: case TOP_TRANS: case TOP_RESHAPE: case TOP_BROADCAST:
		if (op->nin && is_tile(A, op->operands[0]) && lay(A, op->operands[0])) {
			assign_view(A, c, op);
			return;
		}
		break;
	case TOP_SELECT:
		if (assign_join(A, c, op))
			return;
		/* fall through */
	default:
		if (is_elementwise(op->kind) && op->nout == 1 && is_tile(A, op->results[0])) {
			assign_elementwise(A, c, op);
			return;
		}
	}
	for (int k = 0; k < op->nregions; k++)
		assign_block(A, &op->regions[k], NULL, 0, 0);
	for (int i = 0; i < op->nout; i++)
		if (is_tile(A, op->results[i]))
			set_layout(A, op->results[i], fresh(A, op->results[i]));
}

/* Walk b; if term_layouts, the terminator's operands term_first.. get those
 * layouts; skip_term (as term_first with no layouts) leaves the terminator
 * for the caller. */
void assign_block(Assign *A, TirBlock *b, const LinearLayout *const *term_layouts,
			 int nterm, int skip_term)
{
	for (int i = 0; i < b->nargs; i++)
		if (is_tile(A, b->args[i]) && !lay(A, b->args[i]))
			set_layout(A, b->args[i], fresh(A, b->args[i]));
	Cursor c = {b, 0};
	while (c.pos < b->nops) {
		TirOp *op = b->ops[c.pos];
		bool is_term = c.pos == b->nops - 1 && (tir_op_flags((TirOpKind)op->kind) & TF_TERM);
		if (is_term) {
			if (term_layouts)
				for (int i = 0; i < op->nin && i < nterm; i++)
					set_operand(A, &c, op, i, term_layouts[i]);
			(void)skip_term;
			break;
		}
		assign_op(A, &c, op);
		c.pos++;
	}
}

/* rk_gen_reduce.c: nodes that reduce or scan along an axis (sum/max/min/
 * argmax/argmin, whole-tile reductions, cumsum, x - reduce(x)), sort and
 * flip, tl.cat under a sort or a reduction, and histograms. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk_gen.h"

/* a whole tile reduced to a scalar (tl.sum(x) and the like, axis=None) */
node *full_reduce(gen *g, rk_dtype t)
{
	static const char *const fn[] = {"sum", "max", "min"};
	rk_shape s = rg_random_shape(g, 1 + below(g, 2));
	int which = below(g, 3);
	char text[96];
	rk_val cat;
	uint64_t cat_feat = 0;
	bool is_cat = chance(g, 25) && cat_of(g, &s, t, 2, &cat, text, sizeof text, &cat_feat);
	node *a = is_cat ? NULL : gen_node(g, &s, t, 2);
	if (a)
		snprintf(text, sizeof text, "%s", a->name);
	rk_shape flat = {1, {(int)rk_numel(&s)}};
	rk_val f, v;
	bool ok = rk_reshape(&f, is_cat ? &cat : &a->v, &flat);
	if (is_cat)
		rk_free(&cat);
	if (!ok)
		return NULL;
	ok = rk_reduce(&v, "sMm"[which], &f, 0, false);
	rk_free(&f);
	if (!ok)
		return NULL;
	char expr[160];
	snprintf(expr, sizeof expr, chance(g, 50) ? "tl.%s(%s)" : "tl.%s(%s, axis=None)", fn[which], text);
	node *n = rg_emit(g, &v, expr);
	n->feat |= cat_feat;
	return n;
}

/* the operand shape cs whose reduction along *axis gives s: keep_dims on a
 * dim of size 1 of s (*keep), else a new dim; that dim's size a power of 2 up
 * to 2^cap with cs within RK_MAX_NUMEL. False where s has no room (rank 3
 * with no dim of size 1). */
bool rg_widen_axis(gen *g, const rk_shape *s, int cap, rk_shape *cs, int *axis, bool *keep)
{
	int ones[RK_MAX_RANK], nones = 0;
	for (int k = 0; k < s->rank; k++)
		if (s->d[k] == 1)
			ones[nones++] = k;
	*keep = nones && (s->rank == RK_MAX_RANK || chance(g, 40));
	if (!*keep && s->rank == RK_MAX_RANK)
		return false;
	*axis = *keep ? ones[below(g, nones)] : below(g, s->rank + 1);
	*cs = *s;
	if (!*keep) {
		for (int k = cs->rank; k > *axis; k--)
			cs->d[k] = cs->d[k - 1];
		cs->rank++;
	}
	int room = rg_log2i((int)(RK_MAX_NUMEL / rk_numel(s)));
	cs->d[*axis] = 1 << below(g, (room < cap ? room : cap) + 1);
	return true;
}

node *op_reduce(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	static const char *const fn[] = {"sum", "max", "min", "argmax", "argmin"};
	int kind, which;
	rk_dtype from;
	if (rk_is_float(t)) {
		/* sum keeps the dtype; max/min of fp16/bf16 are fp32 */
		static const rk_dtype fl[] = {RK_F32, RK_F32, RK_F16, RK_BF16};
		which = t == RK_F32 ? below(g, 3) : 0;
		from = which ? fl[below(g, 4)] : t;
	} else if (t == RK_I32) {
		which = below(g, 5);
		if (which >= 3)
			from = rg_random_dtype(g);
		else
			from = chance(g, 60) ? RK_I32 : which ? RK_U8 : RK_I8;
		/* version 5: int16 sums to int32, as do narrow max/min */
		if (g->v5 && which < 3 && from != RK_I32 && chance(g, 50))
			from = which ? (chance(g, 50) ? RK_I16 : RK_U16) : RK_I16;
	} else if (g->v5 && (t == RK_U32 || t == RK_I64)) {
		/* unsigned sums of narrow integers are uint32 */
		static const rk_dtype narrow[] = {RK_U32, RK_U8, RK_U16};
		which = below(g, 3);
		from = t == RK_U32 && which == 0 ? narrow[below(g, 3)] : t;
	} else {
		return NULL;
	}
	kind = "sMmAa"[which];
	rk_shape cs;
	int axis;
	bool keep;
	if (!rg_widen_axis(g, s, 8, &cs, &axis, &keep))
		return NULL;
	node *a = gen_node(g, &cs, from, depth - 1);
	rk_val v;
	if (!rk_reduce(&v, kind, &a->v, axis, keep))
		return NULL;
	char expr[128];
	if (chance(g, 20) && !keep)
		snprintf(expr, sizeof expr, "%s.%s(axis=%d)", a->name, fn[which], axis);
	else if (keep)
		snprintf(expr, sizeof expr, "tl.%s(%s, %d, keep_dims=True)", fn[which], a->name, axis);
	else
		snprintf(expr, sizeof expr, "tl.%s(%s, axis=%d)", fn[which], a->name, axis);
	return rg_emit(g, &v, expr);
}

node *op_cumsum(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	rk_dtype from;
	if (t == RK_F32)
		from = chance(g, 70) ? RK_F32 : RK_BF16; /* cumsum of bf16 is fp32 */
	else if (t == RK_F16)
		from = RK_F16;
	else if (t == RK_I32)
		from = chance(g, 70) ? RK_I32 : RK_I8;
	else if (g->v5 && (t == RK_U32 || t == RK_I64))
		from = t == RK_U32 && chance(g, 50) ? (chance(g, 50) ? RK_U8 : RK_U16) : t;
	else
		return NULL;
	if (g->v5 && from == RK_I8 && chance(g, 50))
		from = RK_I16;
	int axis = below(g, s->rank);
	bool rev = chance(g, 25);
	node *a = gen_node(g, s, from, depth - 1);
	rk_val v;
	if (!rk_cumsum(&v, &a->v, axis, rev))
		return NULL;
	char expr[128];
	snprintf(expr, sizeof expr, "tl.cumsum(%s, axis=%d%s)", a->name, axis, rev ? ", reverse=True" : "");
	return rg_emit(g, &v, expr);
}

/* tl.histogram(x, bins[, mask=]) of in-range values */
node *op_histogram(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	(void)depth;
	if (t != RK_I32 || s->rank != 1)
		return NULL;
	int bins = s->d[0], room = rg_log2i(65536 / bins);
	rk_shape xs = {1, {1 << below(g, (room < 11 ? room : 11) + 1)}};
	node *x = index_tile(g, &xs, bins);
	if (!x)
		return NULL;
	x = index_retype(g, x);
	rk_val v, m;
	char expr[160];
	bool masked = false;
	if (chance(g, 40)) {
		rk_param *np = rg_add_param(g, RK_P_I32, RK_I32);
		if (np) {
			np->i = below(g, xs.d[0] + 1);
			rk_alloc(&m, &xs, RK_BOOL);
			for (int i = 0; i < xs.d[0]; i++)
				m.v[i] = i < np->i;
			snprintf(expr, sizeof expr, "tl.histogram(%s, %d, mask=tl.arange(0, %d) < %s)", x->name, bins,
				 xs.d[0], np->name);
			masked = true;
		}
	}
	if (!masked)
		snprintf(expr, sizeof expr, "tl.histogram(%s, %d)", x->name, bins);
	bool ok = rk_histogram(&v, &x->v, masked ? &m : NULL, bins);
	if (masked)
		rk_free(&m);
	if (!ok)
		return NULL;
	node *n = rg_emit(g, &v, expr);
	n->feat |= RK_F_HISTOGRAM;
	return n;
}

/* tl.cat(a, b, can_reorder=True) of two tiles whose dim 0 adds to s's: the
 * text of the expression and its value (in order; Triton may reorder, so it
 * only goes where the order does not matter: a sort, a whole reduction) */
bool cat_of(gen *g, const rk_shape *s, rk_dtype t, int depth, rk_val *v, char *text, size_t size,
		   uint64_t *feat)
{
	if (s->rank < 1 || s->d[0] < 2)
		return false;
	rk_shape cs = *s;
	cs.d[0] /= 2;
	node *a = gen_node(g, &cs, t, depth - 1), *b = gen_node(g, &cs, t, depth - 1);
	if (!rk_cat(v, &a->v, &b->v))
		return false;
	snprintf(text, size, "tl.cat(%s, %s, can_reorder=True)", a->name, b->name);
	*feat = a->feat | b->feat | RK_F_CAT;
	return true;
}

/* x - reduce(x) broadcast back along the reduced axis (softmax's shape: a
 * tile meets its own reduction in the reduction's layout) */
node *op_rowwise(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	static const char *const fn[] = {"sum", "max", "min"};
	if ((t != RK_F32 && t != RK_I32 && !(g->v5 && (t == RK_U32 || t == RK_I64))) || s->rank < 1)
		return NULL;
	int which = below(g, 3), axis = below(g, s->rank);
	rk_dtype from = t;
	if (t == RK_F32 && which && chance(g, 40))
		from = chance(g, 50) ? RK_F16 : RK_BF16; /* max/min of narrow floats are fp32 */
	node *a = gen_node(g, s, from, depth - 1);
	rk_val r, v;
	if (!rk_reduce(&r, "sMm"[which], &a->v, axis, true))
		return NULL;
	char rexpr[96], expr[160];
	if (s->rank == 2 && chance(g, 50))
		snprintf(rexpr, sizeof rexpr, "tl.%s(%s, axis=%d)%s", fn[which], a->name, axis,
			 axis ? "[:, None]" : "[None, :]");
	else
		snprintf(rexpr, sizeof rexpr, "tl.%s(%s, axis=%d, keep_dims=True)", fn[which], a->name, axis);
	int op = chance(g, 70) ? '-' : '+';
	bool ok = rk_binary(&v, op, &a->v, &r);
	rk_free(&r);
	if (!ok)
		return NULL;
	snprintf(expr, sizeof expr, "%s %c %s", a->name, op, rexpr);
	return rg_emit(g, &v, expr);
}

/* tl.flip or tl.sort along the last dim */
node *op_order(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	if (s->rank < 1 || s->d[s->rank - 1] < 2)
		return NULL;
	node *a = gen_node(g, s, t, depth - 1);
	rk_val v;
	char expr[128];
	if (chance(g, 50)) {
		if (!rk_flip(&v, &a->v))
			return NULL;
		snprintf(expr, sizeof expr, chance(g, 50) ? "tl.flip(%s)" : "tl.flip(%s, %d)", a->name, s->rank - 1);
	} else {
		bool desc = chance(g, 50);
		if (!rk_sort(&v, &a->v, desc))
			return NULL;
		snprintf(expr, sizeof expr, "tl.sort(%s, descending=%s)", a->name, desc ? "True" : "False");
	}
	return rg_emit(g, &v, expr);
}

/* tl.sort of a 1-D tl.cat (whose order Triton leaves open) */
node *op_sort_cat(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	if (s->rank != 1 || s->d[0] < 4)
		return NULL;
	rk_val c, v;
	char text[96], expr[160];
	uint64_t feat;
	if (!cat_of(g, s, t, depth, &c, text, sizeof text, &feat))
		return NULL;
	bool desc = chance(g, 50), ok = rk_sort(&v, &c, desc);
	rk_free(&c);
	if (!ok)
		return NULL;
	snprintf(expr, sizeof expr, "tl.sort(%s, descending=%s)", text, desc ? "True" : "False");
	node *n = rg_emit(g, &v, expr);
	n->feat |= feat;
	return n;
}

/* version 5: tl.topk(x, k) of a 1-D or 2-D tile, k its last dim's size of s */
node *op_topk(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	if (s->rank < 1 || s->rank > 2)
		return NULL;
	rk_shape as = *s;
	int k = s->d[s->rank - 1], room = rg_log2i((int)(RK_MAX_NUMEL / rk_numel(s)));
	as.d[as.rank - 1] = k << below(g, (room < 4 ? room : 4) + 1);
	node *a = gen_node(g, &as, t, depth - 1);
	rk_val v;
	if (!rk_topk(&v, &a->v, k))
		return NULL;
	char expr[128];
	int c = below(g, 3);
	snprintf(expr, sizeof expr, c == 0 ? "tl.topk(%s, %d)" : c == 1 ? "tl.topk(%s, %d, dim=%d)" : "%s.topk(%d)", a->name, k,
		 s->rank - 1);
	node *n = rg_emit(g, &v, expr);
	n->feat |= RK_F_TOPK;
	return n;
}

/* version 5: tl.max/tl.min(x, axis, return_indices=True[,
 * return_indices_tie_break_left=]) (the value keeps x's dtype, bf16 becoming
 * fp32; or the index), or tl.argmax/argmin(x, axis, tie_break_left=False).
 * Without the left tie-break the index of a tie is the combine tree's, so
 * lines whose extreme is tied are refused there. */
node *op_maxidx(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	bool want_idx = t == RK_I32 && chance(g, 60), left = chance(g, 50), mx = chance(g, 50);
	rk_dtype from = want_idx ? rg_random_dtype(g) : t == RK_F32 && chance(g, 30) ? RK_BF16 : t;
	if (t == RK_BF16 || t == RK_BOOL || s->rank == RK_MAX_RANK)
		return NULL;
	int axis = below(g, s->rank + 1);
	rk_shape cs = *s;
	for (int k = cs.rank; k > axis; k--)
		cs.d[k] = cs.d[k - 1];
	cs.rank++;
	int room = rg_log2i((int)(RK_MAX_NUMEL / rk_numel(s)));
	cs.d[axis] = 1 << below(g, (room < 7 ? room : 7) + 1);
	node *a = gen_node(g, &cs, from, depth - 1);
	rk_val val, idx, val2, idx2;
	if (!rk_arg_reduce(&val, &idx, mx ? 'M' : 'm', true, &a->v, axis, false))
		return NULL;
	bool tied = false;
	if (!left && rk_arg_reduce(&val2, &idx2, mx ? 'M' : 'm', false, &a->v, axis, false)) {
		tied = memcmp(idx.v, idx2.v, rk_numel(&idx.s) * sizeof(double)) != 0;
		rk_free(&val2), rk_free(&idx2);
	}
	if (tied) {
		rk_free(&val), rk_free(&idx);
		return NULL;
	}
	if (val.t == RK_BF16)
		val.t = RK_F32; /* exact */
	char expr[200], n0[32], n1[32];
	const char *fn = mx ? "max" : "min";
	if (want_idx && !left && chance(g, 40)) {
		rk_free(&val);
		snprintf(expr, sizeof expr, "tl.arg%s(%s, %d, tie_break_left=False)", fn, a->name, axis);
		return rg_emit(g, &idx, expr);
	}
	rg_var(g, n0), rg_var(g, n1);
	rg_sb_printf(&g->body, "    %s, %s = tl.%s(%s, axis=%d, return_indices=True%s)\n", n0, n1, fn, a->name, axis,
		     left ? (chance(g, 50) ? ", return_indices_tie_break_left=True" : "")
			  : ", return_indices_tie_break_left=False");
	node *v = rg_new_node(g, &val, n0), *i = rg_new_node(g, &idx, n1);
	v->feat |= a->feat, i->feat |= a->feat;
	return want_idx ? i : v;
}

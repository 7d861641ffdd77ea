/* rk_gen_nan.c (version 5): NaNs through the ops that define what they do
 * with one: maximum/minimum (propagate_nan NONE: the other operand; ALL:
 * NaN), tl.clamp (NONE: the lower bound; ALL: NaN), tl.max/tl.min (NaNs
 * ignored unless a line holds nothing else) and tl.reduce with a combine_fn
 * of maximum(..., propagate_nan=ALL) (NaN for a line with any). The NaNs
 * come from memory and from a 2-D masked load's other=float("nan"); the
 * result goes through tl.where(r != r, c, r), so no NaN leaves the op (the
 * tiles holding one are no nodes: nothing else uses them). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk_gen.h"

/* a fresh name that no node has (gen_node reuses only v-names) */
static const char *nan_var(gen *g, char *buf)
{
	snprintf(buf, 32, "q%d", g->nvar++);
	return buf;
}

/* a load of a dense [s] buffer of t with some NaNs, masked on its first and
 * last dims by runtime bounds, other=float("nan"); NULL out of parameters */
static bool nan_load(gen *g, const rk_shape *s, rk_dtype t, char *name, rk_val *v)
{
	rk_param *p = rg_add_param(g, RK_P_PTR, t);
	rk_param *b0 = rg_add_param(g, RK_P_I32, RK_I32), *b1 = s->rank > 1 ? rg_add_param(g, RK_P_I32, RK_I32) : NULL;
	if (!p || !b0 || (s->rank > 1 && !b1))
		return false;
	int r = s->rank, last = s->d[r - 1];
	size_t n = rk_numel(s);
	b0->i = 1 + below(g, s->d[0]);
	if (b1)
		b1->i = 1 + below(g, last);
	p->count = n;
	p->data = calloc(n, rk_size(t));
	rk_alloc(v, s, t);
	bool exact = chance(g, 60);
	int pct = below(g, 40);
	for (size_t i = 0; i < n; i++) {
		double x = chance(g, pct) ? NAN : rg_random_value(g, t, exact);
		rk_put(t, p->data, i, x);
		int idx[RK_MAX_RANK];
		rk_unflatten(s, i, idx);
		bool in = idx[0] < b0->i && (!b1 || idx[r - 1] < b1->i);
		v->v[i] = in ? rk_get(t, p->data, i) : NAN;
	}
	char off[200] = "", mask[160];
	long stride = 1;
	nan_var(g, name);
	for (int k = r - 1; k >= 0; k--) {
		rg_sb_printf(&g->body, "    %s_%d = tl.arange(0, %d)\n", name, k, s->d[k]);
		size_t ol = strlen(off);
		snprintf(off + ol, sizeof off - ol, "%s%s_%d%s * %ld", ol ? " + " : "", name, k, rg_place(r, k), stride);
		stride *= s->d[k];
	}
	snprintf(mask, sizeof mask, "(%s_0%s < %s)", name, rg_place(r, 0), b0->name);
	if (b1)
		snprintf(mask + strlen(mask), sizeof mask - strlen(mask), " & (%s_%d%s < %s)", name, r - 1,
			 rg_place(r, r - 1), b1->name);
	rg_sb_printf(&g->body, "    %s = tl.load(%s + (%s), mask=%s, other=float(\"nan\"))\n", name, p->name, off, mask);
	return true;
}

/* the combine_fn maximum/minimum(a, b, propagate_nan=ALL), written once */
static const char *nan_helper(gen *g, bool mx)
{
	unsigned bit = mx ? 1u << 16 : 1u << 17;
	if (!(g->helpers & bit)) {
		g->helpers |= bit;
		/* version 6: cast back (bf16 is computed in fp32; a combine_fn keeps the dtype) */
		rg_sb_printf(&g->pre, "@triton.jit\ndef _c_%snan(a, b):\n    return tl.%s(a, b, propagate_nan=tl.PropagateNan.ALL)%s\n\n\n",
			     mx ? "max" : "min", mx ? "maximum" : "minimum", g->v6 ? ".to(a.dtype)" : "");
	}
	return mx ? "_c_maxnan" : "_c_minnan";
}

static const char *const nan_flags[] = {"", ", propagate_nan=tl.PropagateNan.NONE", ", propagate_nan=tl.PropagateNan.ALL"};

node *op_nan(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	if (!rk_is_float(t))
		return NULL;
	/* 0 maximum/minimum, 1 clamp, 2 tl.max/min (fp32 only: narrow floats widen), 3 tl.reduce */
	int form = below(g, 4), flag = below(g, 3), op = chance(g, 50) ? 'M' : 'm';
	if (form == 2 && (t != RK_F32 || s->rank == RK_MAX_RANK))
		form = 0;
	if (form == 3 && s->rank == RK_MAX_RANK)
		form = 1;
	bool all = flag == 2;
	rk_shape as = *s;
	int axis = 0;
	rk_dtype at = t;
	if (form >= 2) {
		/* a new dim to reduce */
		axis = below(g, s->rank + 1);
		for (int k = as.rank; k > axis; k--)
			as.d[k] = as.d[k - 1];
		as.rank++;
		int room = rg_log2i((int)(RK_MAX_NUMEL / rk_numel(s)));
		as.d[axis] = 1 << below(g, (room < 6 ? room : 6) + 1);
		static const rk_dtype fl[] = {RK_F32, RK_F16, RK_BF16};
		if (form == 2)
			at = fl[below(g, 3)];
	}
	char a[32], r[32], expr[256];
	rk_val av, rv = {0}, out;
	if (!nan_load(g, &as, at, a, &av))
		return NULL;
	bool ok = true;
	if (form == 0) {
		node *b = rg_operand(g, s, t, depth - 1, false);
		ok = rk_nan_minmax(&rv, op, all, &av, &b->v);
		bool swap = chance(g, 50);
		snprintf(expr, sizeof expr, "tl.%s(%s, %s%s)%s", op == 'M' ? "maximum" : "minimum", swap ? b->name : a,
			 swap ? a : b->name, nan_flags[flag], rg_minmax_to(g, t));
	} else if (form == 1) {
		static const double los[] = {-1.0, -0.5, 0.0, 0.5};
		double lo = los[below(g, 4)], hi = lo + 0.5 * (1 + below(g, 4));
		rk_val lv, hv, m;
		rk_shape s0 = {0, {0}};
		rk_alloc(&lv, &s0, t), rk_alloc(&hv, &s0, t);
		lv.v[0] = lo, hv.v[0] = hi;
		ok = rk_nan_minmax(&m, 'M', all, &av, &lv);
		ok = ok && rk_nan_minmax(&rv, 'm', all, &m, &hv);
		if (ok)
			rk_free(&m);
		rk_free(&lv), rk_free(&hv);
		snprintf(expr, sizeof expr, "tl.clamp(%s, %.1f, %.1f%s)%s", a, lo, hi, nan_flags[flag], rg_minmax_to(g, t));
	} else if (form == 2) {
		ok = rk_nan_reduce(&rv, op, false, &av, axis, RK_F32);
		snprintf(expr, sizeof expr, "tl.%s(%s, axis=%d)", op == 'M' ? "max" : "min", a, axis);
	} else {
		ok = rk_nan_reduce(&rv, op, true, &av, axis, t);
		snprintf(expr, sizeof expr, "tl.reduce(%s, %d, %s)", a, axis, nan_helper(g, op == 'M'));
	}
	rk_free(&av);
	if (!ok)
		return NULL;
	rg_sb_printf(&g->body, "    %s = %s\n", nan_var(g, r), expr);
	/* NaN out: a literal in its place */
	static const double fills[] = {-3.0, 0.0, 7.5, -0.25};
	static const char *const fill_text[] = {"-3.0", "0.0", "7.5", "-0.25"};
	int fi = below(g, 4);
	ok = rk_nan_fill(&out, &rv, fills[fi]);
	rk_free(&rv);
	if (!ok)
		return NULL;
	if (chance(g, 50))
		snprintf(expr, sizeof expr, "tl.where(%s != %s, %s, %s)", r, r, fill_text[fi], r);
	else
		snprintf(expr, sizeof expr, "tl.where(%s == %s, %s, %s)", r, r, r, fill_text[fi]);
	node *n = rg_emit(g, &out, expr);
	n->feat |= RK_F_NAN;
	return n;
}

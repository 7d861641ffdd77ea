/* rk_gen_scan.c (version 3): tl.reduce and tl.associative_scan with a
 * combine_fn the kernel defines (a @triton.jit helper before it): one
 * operand (add, mul, xor, and, or of integers; max, min), or (value, index)
 * pairs combined argmax/argmin-style with ties broken toward the lower or
 * the higher index; tl.cumprod; keep_dims, reverse=True, any axis. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk_gen.h"

/* the combine_fns: op '+', '*', '^', '&', '|', 'M', 'm'; pairs 'A' (argmax)
 * and 'a' (argmin), tie_low or not. Returns the helper's name, writing its
 * definition the first time. */
static const char *helper(gen *g, int op, bool tie_low)
{
	static const char ops[] = "+*^&|MmAa";
	static const char *const names[] = {"_c_add", "_c_mul", "_c_xor", "_c_and", "_c_or", "_c_max", "_c_min",
					    "_c_argmax_lo", "_c_argmin_lo", "_c_argmax_hi", "_c_argmin_hi"};
	static const char *const bodies[] = {"a + b", "a * b", "a ^ b", "a & b", "a | b", "tl.maximum(a, b)",
					     "tl.where(a < b, a, b)"};
	int i = (int)(strchr(ops, op) - ops), bit = i + (op == 'A' || op == 'a' ? (tie_low ? 0 : 2) : 0);
	const char *name = names[bit];
	if (g->helpers & (1u << bit))
		return name;
	g->helpers |= 1u << bit;
	rg_sb_printf(&g->pre, "@triton.jit\n");
	if (op == 'A' || op == 'a')
		rg_sb_printf(&g->pre,
			     "def %s(v0, i0, v1, i1):\n    take = (v0 %c v1) | ((v0 == v1) & (i0 %c i1))\n"
			     "    return tl.where(take, v0, v1), tl.where(take, i0, i1)\n\n\n",
			     name, op == 'A' ? '>' : '<', tie_low ? '<' : '>');
	else
		rg_sb_printf(&g->pre, "def %s(a, b):\n    return %s%s\n\n\n", name, bodies[i],
			     g->v6 && op == 'M' ? ".to(a.dtype)" : ""); /* version 6: bf16's maximum is fp32 */
	return name;
}

/* an int32 tile of shape cs holding each element's index along axis */
static void index_along(gen *g, const rk_shape *cs, int axis, char *name)
{
	char sh[64];
	rg_var(g, name);
	rg_shape_text(cs, sh, sizeof sh);
	if (cs->rank == 1)
		rg_sb_printf(&g->body, "    %s = tl.arange(0, %d)\n", name, cs->d[0]);
	else
		rg_sb_printf(&g->body, "    %s = tl.broadcast_to(tl.arange(0, %d)%s, %s)\n", name, cs->d[axis],
			     rg_place(cs->rank, axis), sh);
}

/* a combine op for dtype t (0: a pair) */
static int pick_op(gen *g, rk_dtype t)
{
	if (chance(g, 35))
		return 0;
	/* version 5: float + (summed in any order), int64 without * (past 2^53) */
	const char *ops = rk_is_float(t) ? (g->v5 ? "Mm++" : "Mm") : t == RK_I64 ? "+^&|Mm" : "+*^&|Mm";
	return ops[below(g, (int)strlen(ops))];
}

/* a pair's values: an integer operand sometimes taken % 3 (or & 3), so that
 * lines hold ties and the tie-breaking shows */
static node *pair_operand(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	node *a = gen_node(g, s, t, depth - 1);
	if (rk_is_float(t) || !chance(g, 60))
		return a;
	bool rem = chance(g, 50);
	rk_val three, v;
	rk_shape s0 = {0, {0}};
	rk_alloc(&three, &s0, t);
	three.v[0] = 3;
	bool ok = rk_binary(&v, rem ? '%' : '&', &a->v, &three);
	rk_free(&three);
	if (!ok)
		return a;
	char expr[96];
	snprintf(expr, sizeof expr, "%s %s 3", a->name, rem ? "%" : "&");
	return rg_emit(g, &v, expr);
}

/* two nodes from `a, b = expr`: the value, or the index (cast to t: the
 * indices are below 128, exact in every dtype) */
static node *emit_pair(gen *g, rk_val *v0, rk_val *v1, const char *expr, bool idx, rk_dtype t, uint64_t feat)
{
	char n0[32], n1[32];
	rg_var(g, n0);
	rg_var(g, n1);
	rg_sb_printf(&g->body, "    %s, %s = %s\n", n0, n1, expr);
	node *a = rg_new_node(g, v0, n0), *b = rg_new_node(g, v1, n1);
	a->feat |= feat, b->feat |= feat;
	if (!idx || t == RK_I32)
		return idx ? b : a;
	rk_val v;
	char cast[96];
	if (!rk_cast(&v, &b->v, t))
		return NULL;
	snprintf(cast, sizeof cast, "%s.to(%s)", n1, rk_tl_name(t));
	return rg_emit(g, &v, cast);
}

node *op_combine(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	if (t == RK_BOOL)
		return NULL;
	int op = pick_op(g, t);
	bool want_idx = !op && chance(g, 70), tie_low = chance(g, 60);
	rk_dtype from = want_idx ? rg_random_dtype(g) : t;
	rk_shape cs;
	int axis;
	bool keep;
	if (!rg_widen_axis(g, s, 7, &cs, &axis, &keep))
		return NULL;
	node *a = op ? gen_node(g, &cs, from, depth - 1) : pair_operand(g, &cs, from, depth);
	char expr[256], axtext[32], kd[24];
	bool kw = chance(g, 50); /* axis=, combine_fn= as keywords */
	snprintf(kd, sizeof kd, "%s", keep ? ", keep_dims=True" : "");
	if (op) {
		rk_val v;
		if (!rk_combine_reduce(&v, op, &a->v, axis, keep))
			return NULL;
		snprintf(axtext, sizeof axtext, kw ? "axis=%d, combine_fn=" : "%d, ", axis);
		if (g->v5 && op == '^' && chance(g, 40)) /* version 5: the built-in xor reduction */
			snprintf(expr, sizeof expr, "tl.xor_sum(%s, axis=%d%s)", a->name, axis, kd);
		else if (chance(g, 30) && !keep)
			snprintf(expr, sizeof expr, "%s.reduce(%s%s)", a->name, axtext, helper(g, op, false));
		else
			snprintf(expr, sizeof expr, "tl.reduce(%s, %s%s%s)", a->name, axtext, helper(g, op, false), kd);
		node *n = rg_emit(g, &v, expr);
		n->feat |= RK_F_COMBINE | (op == '+' && rk_is_float(t) ? RK_F_FADD : 0);
		return n;
	}
	int pop = chance(g, 50) ? 'A' : 'a';
	rk_val val, idx;
	if (!rk_arg_reduce(&val, &idx, pop == 'A' ? 'M' : 'm', tie_low, &a->v, axis, keep))
		return NULL;
	char iname[32];
	index_along(g, &cs, axis, iname);
	snprintf(axtext, sizeof axtext, kw ? "axis=%d, combine_fn=" : "%d, ", axis);
	snprintf(expr, sizeof expr, "tl.reduce((%s, %s), %s%s%s)", a->name, iname, axtext, helper(g, pop, tie_low), kd);
	return emit_pair(g, &val, &idx, expr, want_idx, t, a->feat | RK_F_COMBINE | RK_F_ARGPAIR);
}

node *op_scan(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	if (t == RK_BOOL || s->rank < 1)
		return NULL;
	int op = pick_op(g, t), axis = below(g, s->rank);
	bool want_idx = !op && chance(g, 70), tie_low = chance(g, 60), rev = chance(g, 40);
	rk_dtype from = want_idx ? rg_random_dtype(g) : t;
	node *a = op ? gen_node(g, s, from, depth - 1) : pair_operand(g, s, from, depth);
	char expr[256], rtext[24];
	snprintf(rtext, sizeof rtext, "%s", rev ? ", reverse=True" : chance(g, 30) ? ", reverse=False" : "");
	if (op) {
		rk_val v;
		if (!rk_combine_scan(&v, op, &a->v, axis, rev))
			return NULL;
		/* Triton's cumprod: an associative_scan of a * b in the input's dtype */
		if (op == '*' && t == RK_I32 && chance(g, 50))
			snprintf(expr, sizeof expr, "tl.cumprod(%s, axis=%d%s)", a->name, axis, rtext);
		else
			snprintf(expr, sizeof expr, "tl.associative_scan(%s, %d, %s%s)", a->name, axis, helper(g, op, false),
				 rtext);
		node *n = rg_emit(g, &v, expr);
		n->feat |= RK_F_SCAN | (op == '+' && rk_is_float(t) ? RK_F_FADD : 0);
		return n;
	}
	int pop = chance(g, 50) ? 'A' : 'a';
	rk_val val, idx;
	if (!rk_arg_scan(&val, &idx, pop == 'A' ? 'M' : 'm', tie_low, &a->v, axis, rev))
		return NULL;
	char iname[32];
	index_along(g, s, axis, iname);
	snprintf(expr, sizeof expr, "tl.associative_scan((%s, %s), %d, %s%s)", a->name, iname, axis,
		 helper(g, pop, tie_low), rtext);
	return emit_pair(g, &val, &idx, expr, want_idx, t, a->feat | RK_F_SCAN | RK_F_ARGPAIR);
}

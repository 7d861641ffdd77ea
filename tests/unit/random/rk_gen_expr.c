/* rk_gen_expr.c: elementwise nodes of rk_gen.c's trees: arithmetic with
 * broadcasting (a float dot added to a tile), unary math, where with
 * comparisons, casts and float8 round trips. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk_gen.h"

static const char *op_text(int op)
{
	switch (op) {
	case 'f':
		return "//";
	case '+':
		return "+";
	case '-':
		return "-";
	case '*':
		return "*";
	case '/':
		return "/";
	case '%':
		return "%";
	case '&':
		return "&";
	case '|':
		return "|";
	case '<':
		return "<<";
	case '>':
		return ">>";
	default:
		return "^";
	}
}

/* x + d where d is a float dot with no accumulator, both of d's shape: tile
 * (as Triton's combine) may make it tl.dot(a, b, acc=x), x then summed with
 * the products in the dot's order; rk_dot with x as the accumulator bounds
 * both ways. False where the add is not such an add (*folded then false). */
bool dot_add(const node *d, const rk_val *x, rk_val *out, bool *folded)
{
	*folded = false;
	if (!d->dot_a || x->s.rank != d->v.s.rank || !rk_is_float(x->t) ||
	    memcmp(x->s.d, d->v.s.d, sizeof(int) * (size_t)x->s.rank) != 0)
		return true;
	rk_val acc = *x;
	acc.t = RK_F32; /* fp16/bf16 widen exactly */
	*folded = true;
	return rk_dot(out, &d->dot_a->v, &d->dot_b->v, &acc, d->dot_rel);
}

/* version 5: an integer type that promotes with t to t (t itself if none) */
static rk_dtype narrower_int(gen *g, rk_dtype t)
{
	static const rk_dtype ints[] = {RK_I8, RK_U8, RK_I16, RK_U16, RK_I32, RK_U32, RK_I64};
	rk_dtype o = ints[below(g, 7)];
	return o != t && rk_int_promote(t, o) == t ? o : t;
}

node *op_binary(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	const char *ops = rk_is_float(t) ? "++--**//Mm" : "++--**ff%%&|^Mm<>";
	int op = ops[below(g, (int)strlen(ops))];
	rk_dtype ta = t, tb = t;
	if (op == '/') {
		/* Triton divides floats in fp32 (fp16 / fp16 is fp32, as is fp16 / 2.0) */
		static const rk_dtype fl[] = {RK_F32, RK_F32, RK_F16, RK_BF16};
		if (t != RK_F32)
			return NULL;
		ta = fl[below(g, 4)];
		tb = chance(g, 50) ? ta : fl[below(g, 4)];
	} else if (t == RK_F32 && chance(g, 25)) {
		/* fp16/bf16 with fp32 computes in fp32 */
		rk_dtype narrow = chance(g, 50) ? RK_F16 : RK_BF16;
		*(chance(g, 50) ? &ta : &tb) = narrow;
	} else if (g->v5 && !rk_is_float(t) && !strchr("f%<>", op) && chance(g, 30)) {
		/* version 5: an integer of another type that promotes to t */
		rk_dtype o = narrower_int(g, t);
		if (o != t)
			*(chance(g, 50) ? &ta : &tb) = o;
	}
	bool div = op == '/' || op == 'f' || op == '%', shift = op == '<' || op == '>';
	node *a = gen_node(g, s, ta, depth - 1);
	node *b;
	if (shift && chance(g, 70)) {
		/* a shift amount within the width */
		char lit[16];
		int amount = below(g, t == RK_BOOL ? 8 : rk_bits(t));
		snprintf(lit, sizeof lit, "%d", amount);
		rk_val v;
		rk_shape s0 = {0, {0}};
		rk_alloc(&v, &s0, t);
		v.v[0] = amount;
		b = rg_new_node(g, &v, lit);
	} else {
		b = ta == tb ? rg_operand(g, s, tb, depth - 1, div) : gen_node(g, s, tb, depth - 1);
	}
	if (!div && !shift && chance(g, 30)) {
		node *tmp = a;
		a = b, b = tmp;
	}
	rk_val v;
	bool folded = false;
	if (op == '+' && t == RK_F32 && !dot_add(a->dot_a ? a : b, a->dot_a ? &b->v : &a->v, &v, &folded))
		return NULL;
	if (!folded && !rk_binary(&v, op, &a->v, &b->v))
		return NULL;
	char expr[128];
	if (op == 'M' || op == 'm')
		snprintf(expr, sizeof expr, "tl.%s(%s, %s)%s", op == 'M' ? "maximum" : "minimum", a->name, b->name,
			 rg_minmax_to(g, t));
	else
		snprintf(expr, sizeof expr, "%s %s %s", a->name, op_text(op), b->name);
	return rg_emit(g, &v, expr);
}

node *op_unary(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	const char *ops = rk_is_float(t) ? "-aees" : "-a";
	int op = ops[below(g, (int)strlen(ops))];
	node *a = gen_node(g, s, t, depth - 1);
	rk_val v;
	char expr[96];
	if (op == 's') {
		/* sqrt of a non-negative operand */
		if (!rk_unary(&v, 'a', &a->v))
			return NULL;
		snprintf(expr, sizeof expr, "tl.abs(%s)", a->name);
		a = rg_emit(g, &v, expr);
	}
	if (!rk_unary(&v, op, &a->v))
		return NULL;
	if (op == '-')
		snprintf(expr, sizeof expr, "-%s", a->name);
	else
		snprintf(expr, sizeof expr, "tl.%s(%s)", op == 'a' ? "abs" : op == 'e' ? "exp" : "sqrt", a->name);
	return rg_emit(g, &v, expr);
}

static const char *cmp_text(int op)
{
	switch (op) {
	case '<':
		return "<";
	case 'l':
		return "<=";
	case '>':
		return ">";
	case 'g':
		return ">=";
	case '=':
		return "==";
	default:
		return "!=";
	}
}

/* a comparison of two random operands broadcasting to s; NULL where uncertain */
node *rg_condition(gen *g, const rk_shape *s, int depth, char *text, size_t size)
{
	static const char ops[] = "<l>g=!";
	rk_dtype ct = rg_random_dtype(g);
	int op = ops[below(g, 6)];
	/* version 5: sometimes integers of two types (compared in their promotion) */
	rk_dtype yt = g->v5 && !rk_is_float(ct) && chance(g, 30) ? narrower_int(g, ct) : ct;
	node *x = gen_node(g, s, ct, depth - 1);
	node *y = yt == ct ? rg_operand(g, s, ct, depth - 1, false) : gen_node(g, s, yt, depth - 1);
	if (yt != ct && chance(g, 50)) {
		node *tmp = x;
		x = y, y = tmp;
	}
	rk_val v;
	if (!rk_compare(&v, op, &x->v, &y->v))
		return NULL;
	snprintf(text, size, "%s %s %s", x->name, cmp_text(op), y->name);
	return rg_emit(g, &v, text);
}

node *op_where(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	char ctext[96], expr[200];
	rk_shape cs = chance(g, 30) ? rg_broadcastable(g, s) : *s;
	node *c = rg_condition(g, &cs, depth, ctext, sizeof ctext);
	if (!c)
		return NULL;
	rk_val v;
	if (chance(g, 25)) {
		char c2text[96], both[200];
		node *c2 = rg_condition(g, &cs, depth, c2text, sizeof c2text);
		int op = chance(g, 50) ? '&' : '|';
		if (c2 && rk_binary(&v, op, &c->v, &c2->v)) {
			snprintf(both, sizeof both, "%s %c %s", c->name, op, c2->name);
			c = rg_emit(g, &v, both);
		}
	}
	if (chance(g, 20) && !rk_is_unsigned(t)) {
		/* a bool tile cast to t */
		if (!rk_cast(&v, &c->v, t))
			return NULL;
		snprintf(expr, sizeof expr, "%s.to(%s)", c->name, rk_tl_name(t));
		node *n = rg_emit(g, &v, expr);
		if (rk_numel(&cs) == rk_numel(s) && cs.rank == s->rank)
			return n;
		if (cs.rank != s->rank) /* broadcast_to keeps the rank, as Triton's */
			return NULL;
		/* the condition broadcast: bring it to s */
		char sh[64];
		rg_shape_text(s, sh, sizeof sh);
		snprintf(expr, sizeof expr, "tl.broadcast_to(%s, %s)", n->name, sh);
		rk_val w;
		if (!rk_broadcast_to(&w, &n->v, s))
			return NULL;
		return rg_emit(g, &w, expr);
	}
	/* version 5: sometimes an integer of another type that promotes to t */
	rk_dtype bt = g->v5 && !rk_is_float(t) && chance(g, 25) ? narrower_int(g, t) : t;
	node *a = gen_node(g, s, t, depth - 1);
	node *b = bt == t ? rg_operand(g, s, t, depth - 1, false) : gen_node(g, s, bt, depth - 1);
	if (chance(g, 30)) {
		node *tmp = a;
		a = b, b = tmp;
	}
	if (!rk_where(&v, &c->v, &a->v, &b->v))
		return NULL;
	if (v.s.rank != s->rank || rk_numel(&v.s) != rk_numel(s)) {
		rk_free(&v);
		return NULL;
	}
	snprintf(expr, sizeof expr, "tl.where(%s, %s, %s)", c->name, a->name, b->name);
	return rg_emit(g, &v, expr);
}

node *op_cast(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	rk_dtype from = rg_random_dtype(g);
	if (from == t)
		return NULL;
	node *a = gen_node(g, s, from, depth - 1);
	rk_val v;
	bool big = g->v5 && !rk_is_float(from) && rk_is_float(t) && chance(g, 50);
	if (big ? !rk_cast_int(&v, &a->v, t) : !rk_cast(&v, &a->v, t))
		return NULL;
	char expr[96];
	snprintf(expr, sizeof expr, "%s.to(%s)", a->name, rk_tl_name(t));
	return rg_emit(g, &v, expr);
}

/* (a * scale).to(float8).to(t): scaled to reach float8's saturation and subnormals */
node *op_fp8(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	static const rk_dtype fl[] = {RK_F32, RK_F32, RK_F16, RK_BF16};
	static const char *const scale_text[] = {"", "", "64.0", "256.0", "0.015625", "0.000244140625", "65536.0"};
	static const double scale[] = {1, 1, 64, 256, 0x1p-6, 0x1p-12, 65536};
	if (!rk_is_float(t))
		return NULL;
	rk_dtype from = fl[below(g, 4)];
	int fmt = chance(g, 50) ? 4 : 5, si = below(g, 7);
	node *a = gen_node(g, s, from, depth - 1);
	rk_val v;
	char expr[160];
	if (scale_text[si][0]) {
		rk_val sc;
		rk_shape s0 = {0, {0}};
		rk_alloc(&sc, &s0, from);
		/* a Python float meeting an fp16 tile is fp16: 65536.0 is inf there */
		sc.v[0] = rk_round(from, scale[si]);
		bool ok = rk_binary(&v, '*', &a->v, &sc);
		rk_free(&sc);
		if (!ok)
			return NULL;
		snprintf(expr, sizeof expr, "%s * %s", a->name, scale_text[si]);
		a = rg_emit(g, &v, expr);
	}
	if (!rk_fp8(&v, &a->v, fmt, t))
		return NULL;
	const char *f8 = fmt == 4 ? (chance(g, 80) ? "tl.float8e4nv" : "tl.float8e4m3fn")
				  : (chance(g, 80) ? "tl.float8e5" : "tl.float8e5m2");
	if (chance(g, 25))
		snprintf(expr, sizeof expr, "tl.cast(tl.cast(%s, %s), %s)", a->name, f8, rk_tl_name(t));
	else
		snprintf(expr, sizeof expr, "%s.to(%s).to(%s)", a->name, f8, rk_tl_name(t));
	node *n = rg_emit(g, &v, expr);
	n->feat |= RK_F_FP8;
	return n;
}

/* x op s wrapped to t's width (two's complement: + * ^ commute with wrapping) */
static double wrap_to(rk_dtype t, double x, int op, int64_t s)
{
	uint64_t a = (uint64_t)(int64_t)x, b = (uint64_t)s;
	return rk_wrap(t, op == '+' ? a + b : op == '*' ? a * b : a ^ b);
}

/* version 3: (x op s).to(t), s a scalar argument of a dtype no tile here
 * has: an integer tile meets i64/u32/i16/u16 (promoted to the wider, then
 * wrapped back to t), a float tile fp64 (computed in fp64, rounded once to
 * t); or tl.where on an i1 argument */
node *op_wide(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	if (t == RK_BOOL)
		return NULL;
	rk_param *p = rg_add_param(g, rk_is_float(t) ? RK_P_F32 : RK_P_I32, t);
	if (!p)
		return NULL;
	node *x = gen_node(g, s, t, depth - 1);
	rk_val v;
	char expr[160];
	size_t n = rk_numel(s);
	if (chance(g, 20)) {
		p->wide = "i1";
		p->wi = below(g, 2);
		node *y = gen_node(g, s, t, depth - 1);
		if (!rk_broadcast_to(&v, p->wi ? &x->v : &y->v, s))
			return NULL;
		snprintf(expr, sizeof expr, "tl.where(%s, %s, %s)", p->name, x->name, y->name);
	} else if (rk_is_float(t)) {
		int op = chance(g, 50) ? '*' : '+';
		p->wide = "fp64";
		/* often no fp32 value (k/8 + d 2^-26): computing in fp32 rounds it first */
		p->wf = (below(g, 33) - 16) / 8.0 + (chance(g, 50) ? ldexp(below(g, 7) - 3, -26) : 0);
		if (!rk_alloc(&v, s, t))
			return NULL;
		for (size_t i = 0; i < n; i++) {
			double a = x->v.v[i], r = op == '*' ? a * p->wf : a + p->wf, rr = rk_round(t, r);
			double e = op == '*' ? x->v.e[i] * fabs(p->wf) : x->v.e[i];
			v.v[i] = rr;
			/* one rounding of the fp64 result (itself exact, or rounded as
			 * tile's fp64 rounds it): exact for an exact x */
			v.e[i] = e > 0 ? e + rk_ulp(t, rr) : 0;
		}
		if (!rk_finish(&v))
			return NULL;
		snprintf(expr, sizeof expr, "(%s %c %s).to(%s)", x->name, op, p->name, rk_tl_name(t));
	} else {
		static const char *const wides[] = {"i64", "u32", "i16", "u16"};
		int k = below(g, 4), op = "+*^"[below(g, 3)];
		p->wide = wides[k];
		uint64_t r = rnd(g);
		p->wi = k == 0 ? (int64_t)(r % (UINT64_C(1) << 41)) - (INT64_C(1) << 40)
		       : k == 1 ? (int64_t)(r & 0xffffffffu) : k == 2 ? (int64_t)(r % 65536) - 32768 : (int64_t)(r % 65536);
		if (!rk_alloc(&v, s, t))
			return NULL;
		for (size_t i = 0; i < n; i++)
			v.v[i] = wrap_to(t, x->v.v[i], op, p->wi);
		if (t == RK_I64 && !rk_finish(&v)) /* past 2^53 */
			return NULL;
		snprintf(expr, sizeof expr, "(%s %c %s).to(%s)", x->name, op, p->name, rk_tl_name(t));
	}
	node *res = rg_emit(g, &v, expr);
	res->feat |= RK_F_SCALAR;
	return res;
}

/* rk_gen_math.c (version 3): tl.math functions of fp32 tiles (exp2, log2,
 * log, rsqrt, erf, sin, cos, sqrt_rn, floor, ceil, div_rn, fma), tl.clamp
 * and maximum/minimum with propagate_nan on every float dtype, tl.umulhi
 * and bitcasts (fp32 <-> int32 through integer bit operations, int8 <->
 * uint8; version 5: int16/uint16/fp16/bf16, uint32 <-> int32/fp32). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk_gen.h"

/* a literal node of t holding x (exact in every float dtype) */
static node *lit(gen *g, rk_dtype t, double x, const char *text)
{
	rk_val v;
	rk_shape s0 = {0, {0}};
	rk_alloc(&v, &s0, t);
	v.v[0] = rk_round(t, x);
	return rg_new_node(g, &v, text);
}

/* an operand of a correctly rounded op: often a load (exact, full-width
 * values), so that its one right answer is compared bit for bit */
static node *rn_operand(gen *g, const rk_shape *s, int depth)
{
	return chance(g, 50) ? rg_leaf(g, s, RK_F32) : gen_node(g, s, RK_F32, depth - 1);
}

static node *math1(gen *g, const rk_shape *s, int depth)
{
	static const char ops[] = "2lnrESCqfc";
	static const char *const names[] = {"exp2", "log2", "log", "rsqrt", "erf", "sin", "cos", "sqrt_rn", "floor", "ceil"};
	int i = below(g, (int)strlen(ops)), op = ops[i];
	node *a = op == 'q' ? rn_operand(g, s, depth) : gen_node(g, s, RK_F32, depth - 1);
	rk_val v;
	char expr[160];
	if (op == 'l' || op == 'n' || op == 'r' || op == 'q') {
		/* a non-negative operand */
		if (!rk_unary(&v, 'a', &a->v))
			return NULL;
		snprintf(expr, sizeof expr, "tl.abs(%s)", a->name);
		a = rg_emit(g, &v, expr);
	}
	if (!rk_math1(&v, op, &a->v))
		return NULL;
	/* sqrt_rn, erf and friends are tl.math's; the common ones are tl's too */
	bool in_tl = op != 'q' && op != 'E' && chance(g, 50);
	snprintf(expr, sizeof expr, "tl.%s%s(%s)", in_tl ? "" : "math.", names[i], a->name);
	return rg_emit(g, &v, expr);
}

static node *math3(gen *g, const rk_shape *s, int depth)
{
	bool fma = chance(g, 50);
	node *a = rn_operand(g, s, depth), *b = rn_operand(g, s, depth);
	node *c = fma ? rn_operand(g, s, depth) : NULL;
	rk_val v;
	if (!rk_math3(&v, fma ? 'F' : 'd', &a->v, &b->v, c ? &c->v : NULL))
		return NULL;
	char expr[160];
	if (fma)
		snprintf(expr, sizeof expr, "tl.fma(%s, %s, %s)", a->name, b->name, c->name);
	else
		snprintf(expr, sizeof expr, "tl.math.div_rn(%s, %s)", a->name, b->name);
	return rg_emit(g, &v, expr);
}

/* tl.clamp(x, lo, hi), lo a literal and hi a literal or a tile */
static node *clamp(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	static const double los[] = {-1.0, -0.5, 0.0, 0.5, -2.0};
	static const char *const lot[] = {"-1.0", "-0.5", "0.0", "0.5", "-2.0"};
	static const double wid[] = {0.5, 1.0, 2.0, 3.5};
	int li = below(g, 5), wi = below(g, 4);
	node *x = gen_node(g, s, t, depth - 1), *lo = lit(g, t, los[li], lot[li]), *hi;
	char text[16];
	if (chance(g, 30)) {
		hi = gen_node(g, s, t, depth - 1);
	} else {
		snprintf(text, sizeof text, "%.1f", los[li] + wid[wi]);
		hi = lit(g, t, los[li] + wid[wi], text);
	}
	rk_val v;
	if (!rk_clamp(&v, &x->v, &lo->v, &hi->v))
		return NULL;
	char expr[160];
	snprintf(expr, sizeof expr, chance(g, 50) ? "tl.clamp(%s, %s, %s)%s" : "tl.clamp(%s, min=%s, max=%s)%s", x->name,
		 lo->name, hi->name, rg_minmax_to(g, t));
	return rg_emit(g, &v, expr);
}

node *op_math(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	if (!rk_is_float(t))
		return NULL;
	int c = below(g, 10);
	node *n = NULL;
	if (c < 5 && t == RK_F32) {
		n = math1(g, s, depth);
	} else if (c < 7 && t == RK_F32) {
		n = math3(g, s, depth);
	} else if (c < 9) {
		n = clamp(g, s, t, depth);
	} else {
		/* no NaN reaches here: propagate_nan changes nothing */
		bool mx = chance(g, 50);
		node *a = gen_node(g, s, t, depth - 1), *b = rg_operand(g, s, t, depth - 1, false);
		rk_val v;
		if (!rk_binary(&v, mx ? 'M' : 'm', &a->v, &b->v))
			return NULL;
		char expr[160];
		snprintf(expr, sizeof expr, "tl.%s(%s, %s, propagate_nan=tl.PropagateNan.%s)%s", mx ? "maximum" : "minimum",
			 a->name, b->name, chance(g, 50) ? "ALL" : "NONE", rg_minmax_to(g, t));
		n = rg_emit(g, &v, expr);
	}
	if (n)
		n->feat |= RK_F_MATH;
	return n;
}

/* fp32 -> int32 bits -> & 0x7fffffff (abs) or | int32 min (-abs) -> fp32 */
static node *float_bits(gen *g, const rk_shape *s, int depth)
{
	node *a = gen_node(g, s, RK_F32, depth - 1);
	rk_val bits, m, back;
	bool neg = chance(g, 50);
	node *mask = lit(g, RK_I32, neg ? -2147483648.0 : 2147483647.0, neg ? "(-2147483648)" : "2147483647");
	if (!rk_bitcast(&bits, &a->v, RK_I32))
		return NULL;
	bool ok = rk_binary(&m, neg ? '|' : '&', &bits, &mask->v);
	rk_free(&bits);
	if (!ok)
		return NULL;
	ok = rk_bitcast(&back, &m, RK_F32);
	rk_free(&m);
	if (!ok)
		return NULL;
	char expr[200];
	snprintf(expr, sizeof expr,
		 chance(g, 50) ? "(%s.to(tl.int32, bitcast=True) %c %s).to(tl.float32, bitcast=True)"
			       : "tl.cast(tl.cast(%s, tl.int32, bitcast=True) %c %s, tl.float32, bitcast=True)",
		 a->name, neg ? '|' : '&', mask->name);
	return rg_emit(g, &back, expr);
}

node *op_intbits(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	node *n = NULL;
	rk_val v;
	char expr[160];
	if (t == RK_F32) {
		n = float_bits(g, s, depth);
	} else if (t == RK_I32 && chance(g, 60)) {
		node *a = gen_node(g, s, RK_I32, depth - 1), *b = gen_node(g, s, RK_I32, depth - 1);
		if (!rk_umulhi(&v, &a->v, &b->v))
			return NULL;
		snprintf(expr, sizeof expr, chance(g, 50) ? "tl.umulhi(%s, %s)" : "tl.math.umulhi(%s, %s)", a->name, b->name);
		n = rg_emit(g, &v, expr);
	} else if (t == RK_I32 || t == RK_I8 || t == RK_U8 || (g->v5 && rk_size(t) >= 2 && t != RK_I64)) {
		rk_dtype from = t == RK_I32 ? (g->v5 && chance(g, 50) ? RK_U32 : RK_F32) : t == RK_I8 ? RK_U8 : RK_I8;
		if (rk_size(t) >= 2 && t != RK_I32) {
			/* version 5: 16- and 32-bit pairs (an int16 read as fp16 may be NaN: refused) */
			static const rk_dtype p16[] = {RK_I16, RK_U16, RK_F16, RK_BF16};
			do
				from = t == RK_U32 ? (chance(g, 50) ? RK_I32 : RK_F32) : p16[below(g, 4)];
			while (from == t || (rk_is_float(from) && rk_is_float(t)));
		}
		node *a = gen_node(g, s, from, depth - 1);
		if (!rk_bitcast(&v, &a->v, t))
			return NULL;
		snprintf(expr, sizeof expr, "%s.to(%s, bitcast=True)", a->name, rk_tl_name(t));
		n = rg_emit(g, &v, expr);
	}
	if (n)
		n->feat |= RK_F_INTBITS;
	return n;
}

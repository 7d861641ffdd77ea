/* sema_const.c: constexpr values with Python's semantics (ints are int64,
 * `//` and `%` floor, `/` is true division, bools are ints in arithmetic). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sema/sema_int.h"

bool const_truthy(ConstVal c)
{
	switch (c.kind) {
	case CV_INT:
	case CV_BOOL: return c.i != 0;
	case CV_FLOAT: return c.f != 0.0;
	case CV_STR: return c.s && c.s[0];
	case CV_NONE: return false;
	case CV_DTYPE: return true;
	}
	return false;
}

static bool is_num(ConstVal c) { return c.kind == CV_INT || c.kind == CV_BOOL || c.kind == CV_FLOAT; }
static double as_f(ConstVal c) { return c.kind == CV_FLOAT ? c.f : (double)c.i; }

bool const_eq(ConstVal a, ConstVal b)
{
	if (is_num(a) && is_num(b)) {
		if (a.kind == CV_FLOAT || b.kind == CV_FLOAT) return as_f(a) == as_f(b);
		return a.i == b.i;
	}
	if (a.kind != b.kind) return false;
	switch (a.kind) {
	case CV_STR: return !strcmp(a.s ? a.s : "", b.s ? b.s : "");
	case CV_NONE: return true;
	case CV_DTYPE: return a.dtype == b.dtype;
	default: return false;
	}
}

void const_str(ConstVal c, char *buf, size_t n)
{
	switch (c.kind) {
	case CV_INT: snprintf(buf, n, "%lld", (long long)c.i); break;
	case CV_BOOL: snprintf(buf, n, "%s", c.i ? "True" : "False"); break;
	case CV_FLOAT: snprintf(buf, n, "%g", c.f); break;
	case CV_STR: snprintf(buf, n, "'%s'", c.s ? c.s : ""); break;
	case CV_NONE: snprintf(buf, n, "None"); break;
	case CV_DTYPE: snprintf(buf, n, "%s", dtype_name(c.dtype)); break;
	}
}

static const char *op_spelling(AstOp op)
{
	static const char *tab[] = {
	    [OP_ADD] = "+",  [OP_SUB] = "-",   [OP_MUL] = "*",      [OP_DIV] = "/",      [OP_FLOORDIV] = "//",
	    [OP_MOD] = "%",  [OP_POW] = "**",  [OP_MATMUL] = "@",   [OP_LSHIFT] = "<<",  [OP_RSHIFT] = ">>",
	    [OP_BITAND] = "&", [OP_BITOR] = "|", [OP_BITXOR] = "^", [OP_NEG] = "-",      [OP_POS] = "+",
	    [OP_INVERT] = "~", [OP_NOT] = "not", [OP_LT] = "<",     [OP_LE] = "<=",      [OP_GT] = ">",
	    [OP_GE] = ">=",  [OP_EQ] = "==",   [OP_NE] = "!=",      [OP_IS] = "is",      [OP_ISNOT] = "is not",
	    [OP_IN] = "in",  [OP_NOTIN] = "not in", [OP_AND] = "and", [OP_OR] = "or",
	};
	return (unsigned)op < COUNTOF(tab) && tab[op] ? tab[op] : "?";
}

static int64_t py_floordiv(int64_t a, int64_t b)
{
	int64_t q = a / b;
	if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
	return q;
}

static int64_t py_mod(int64_t a, int64_t b)
{
	int64_t r = a % b;
	if (r != 0 && ((r < 0) != (b < 0))) r += b;
	return r;
}

static Value int_overflow(Sema *s, SrcLoc loc, AstOp op)
{
	diag_error(s->d, loc, "integer overflow in constant expression: the result of '%s' does not fit in 64 bits",
		   op_spelling(op));
	return v_err();
}

/* Python's exact integer + - * ** << where the result fits in int64 (constexprs
 * are int64 here: a result Python would make bigger is an error, not a wrap). */
static Value int_result(Sema *s, SrcLoc loc, AstOp op, int64_t a, int64_t b)
{
	int64_t r = 0;
	bool ovf = false;
	switch (op) {
	case OP_ADD: ovf = __builtin_add_overflow(a, b, &r); break;
	case OP_SUB: ovf = __builtin_sub_overflow(a, b, &r); break;
	case OP_MUL: ovf = __builtin_mul_overflow(a, b, &r); break;
	case OP_LSHIFT: /* b >= 0 */
		if (a == 0) break;
		r = b < 64 ? (int64_t)((uint64_t)a << b) : 0;
		ovf = b >= 64 || r >> b != a;
		break;
	default: /* OP_POW, b >= 0: by squaring */
		r = 1;
		for (int64_t x = a, e = b; e > 0 && !ovf;) {
			if (e & 1)
				ovf = __builtin_mul_overflow(r, x, &r);
			e >>= 1;
			if (e && !ovf)
				ovf = __builtin_mul_overflow(x, x, &x);
		}
		break;
	}
	return ovf ? int_overflow(s, loc, op) : v_int(r);
}

static Value const_of(Value v)
{
	if (v.kind == V_DTYPE && v.ty.dt != DT_PTR) return (Value){.kind = V_CONST, .c = {.kind = CV_DTYPE, .dtype = (DType)v.ty.dt}};
	return v;
}

static Value cmp_result(AstOp op, int c)
{
	switch (op) {
	case OP_LT: return v_bool(c < 0);
	case OP_LE: return v_bool(c <= 0);
	case OP_GT: return v_bool(c > 0);
	case OP_GE: return v_bool(c >= 0);
	case OP_EQ: return v_bool(c == 0);
	default: return v_bool(c != 0);
	}
}

Value const_binop(Sema *s, AstOp op, Value av, Value bv, SrcLoc loc)
{
	/* dtypes (including pointer dtypes) compare by type */
	if (av.kind == V_DTYPE || bv.kind == V_DTYPE) {
		bool eq = av.kind == bv.kind && type_eq(av.ty, bv.ty);
		if (op == OP_EQ || op == OP_IS) return v_bool(eq);
		if (op == OP_NE || op == OP_ISNOT) return v_bool(!eq);
	}
	av = const_of(av);
	bv = const_of(bv);
	if (av.kind != V_CONST || bv.kind != V_CONST) {
		diag_error(s->d, loc, "unsupported operand types for %s: %s and %s", op_spelling(op), v_describe(s, av),
			   v_describe(s, bv));
		return v_err();
	}
	ConstVal a = av.c, b = bv.c;
	if (op == OP_IS || op == OP_ISNOT) {
		bool same = a.kind == b.kind && const_eq(a, b);
		return v_bool(op == OP_IS ? same : !same);
	}
	if (op == OP_EQ || op == OP_NE) {
		bool eq = const_eq(a, b);
		return v_bool(op == OP_EQ ? eq : !eq);
	}
	if (a.kind == CV_STR && b.kind == CV_STR) {
		if (op == OP_ADD) {
			return v_str(arena_printf(s->a, "%s%s", a.s ? a.s : "", b.s ? b.s : ""));
		}
		if (op >= OP_LT && op <= OP_GE) return cmp_result(op, strcmp(a.s ? a.s : "", b.s ? b.s : ""));
	}
	if (!is_num(a) || !is_num(b)) {
		diag_error(s->d, loc, "unsupported operand types for %s: %s and %s", op_spelling(op), v_describe(s, av),
			   v_describe(s, bv));
		return v_err();
	}
	bool fl = a.kind == CV_FLOAT || b.kind == CV_FLOAT;
	if (op >= OP_LT && op <= OP_GE) {
		if (fl) {
			double x = as_f(a), y = as_f(b);
			if (isnan(x) || isnan(y)) return v_bool(op == OP_NE);
			return cmp_result(op, x < y ? -1 : x > y ? 1 : 0);
		}
		return cmp_result(op, a.i < b.i ? -1 : a.i > b.i ? 1 : 0);
	}
	bool both_bool = a.kind == CV_BOOL && b.kind == CV_BOOL;
	switch (op) {
	case OP_ADD:
	case OP_SUB:
	case OP_MUL:
		if (fl)
			return v_float(op == OP_ADD ? as_f(a) + as_f(b) : op == OP_SUB ? as_f(a) - as_f(b)
									: as_f(a) * as_f(b));
		return int_result(s, loc, op, a.i, b.i);
	case OP_DIV:
		if (as_f(b) == 0.0) break;
		return v_float(as_f(a) / as_f(b));
	case OP_FLOORDIV:
		if (as_f(b) == 0.0) break;
		if (!fl && a.i == INT64_MIN && b.i == -1)
			return int_overflow(s, loc, op);
		return fl ? v_float(floor(as_f(a) / as_f(b))) : v_int(py_floordiv(a.i, b.i));
	case OP_MOD:
		if (as_f(b) == 0.0) break;
		if (fl) {
			double x = as_f(a), y = as_f(b), r = fmod(x, y);
			if (r != 0 && ((r < 0) != (y < 0))) r += y;
			return v_float(r);
		}
		return v_int(b.i == -1 ? 0 : py_mod(a.i, b.i));
	case OP_POW:
		if (!fl && b.i >= 0)
			return int_result(s, loc, op, a.i, b.i);
		return v_float(pow(as_f(a), as_f(b)));
	case OP_LSHIFT:
	case OP_RSHIFT:
	case OP_BITAND:
	case OP_BITOR:
	case OP_BITXOR:
		if (fl) {
			diag_error(s->d, loc, "unsupported operand types for %s: %s and %s", op_spelling(op), v_describe(s, av),
				   v_describe(s, bv));
			return v_err();
		}
		switch (op) {
		case OP_LSHIFT:
		case OP_RSHIFT:
			if (b.i < 0) {
				diag_error(s->d, loc, "negative shift count %lld", (long long)b.i);
				return v_err();
			}
			if (op == OP_LSHIFT)
				return int_result(s, loc, op, a.i, b.i);
			return v_int(b.i >= 64 ? (a.i < 0 ? -1 : 0) : a.i >> b.i);
		case OP_BITAND: return both_bool ? v_bool(a.i & b.i) : v_int(a.i & b.i);
		case OP_BITOR: return both_bool ? v_bool(a.i | b.i) : v_int(a.i | b.i);
		default: return both_bool ? v_bool(a.i ^ b.i) : v_int(a.i ^ b.i);
		}
	default:
		diag_error(s->d, loc, "unsupported operator %s on constexprs", op_spelling(op));
		return v_err();
	}
	diag_error(s->d, loc, "division by zero");
	return v_err();
}

Value const_unop(Sema *s, AstOp op, Value v, SrcLoc loc)
{
	ConstVal a = v.c;
	if (op == OP_NOT) return v_bool(!const_truthy(a));
	if (!is_num(a)) {
		diag_error(s->d, loc, "bad operand type for unary %s: %s", op_spelling(op), v_describe(s, v));
		return v_err();
	}
	switch (op) {
	case OP_NEG:
		if (a.kind == CV_FLOAT)
			return v_float(-a.f);
		return int_result(s, loc, OP_SUB, 0, a.i);
	case OP_POS: return a.kind == CV_BOOL ? v_int(a.i) : v;
	case OP_INVERT:
		if (a.kind == CV_FLOAT) break;
		return v_int(~a.i);
	default: break;
	}
	diag_error(s->d, loc, "bad operand type for unary %s: %s", op_spelling(op), v_describe(s, v));
	return v_err();
}

bool values_identical(Value a, Value b)
{
	if (a.kind != b.kind) return false;
	switch (a.kind) {
	case V_CONST: return a.c.kind == b.c.kind && const_eq(a.c, b.c);
	case V_DTYPE: return type_eq(a.ty, b.ty);
	case V_TENSOR: return a.id == b.id;
	case V_FUNC: return a.fn == b.fn;
	case V_BUILTIN: return a.builtin == b.builtin && !a.self && !b.self;
	case V_NS: return a.ns == b.ns;
	case V_MODULE: return a.mod == b.mod;
	case V_TUPLE:
		if (a.n != b.n) return false;
		for (int i = 0; i < a.n; i++)
			if (!values_identical(a.items[i], b.items[i])) return false;
		return true;
	case V_BLOCKPTR: {
		const BlockPtr *x = a.bp, *y = b.bp;
		if (x == y) return true;
		if (x->rank != y->rank || x->desc != y->desc || x->pad_nan != y->pad_nan || !values_identical(x->base, y->base))
			return false;
		for (int i = 0; i < x->rank; i++)
			if (!values_identical(x->shape[i], y->shape[i]) || !values_identical(x->strides[i], y->strides[i]) ||
			    !values_identical(x->offsets[i], y->offsets[i]) || x->block[i] != y->block[i] ||
			    x->order[i] != y->order[i])
				return false;
		return true;
	}
	default: return false;
	}
}

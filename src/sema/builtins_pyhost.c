/* builtins_pyhost.c: more of the host Python real kernel files run at module
 * and decorator level, on compile-time values: math's integer functions (gcd,
 * lcm, isqrt, comb, perm, factorial, prod), functools.reduce, the operator
 * module (operator.mul as reduce's function, itemgetter as a sort key),
 * hasattr, type(x) (its __name__, `type(x) is int`), chr and ord.
 *
 * Integers are tile's: int64 (uint64 above), and a result past them is an
 * error, never a wrapped value. */
#include <math.h>
#include <string.h>

#include "sema/sema_int.h"

/* ---- math's integer functions ----------------------------------------------------------- */

static bool int_arg(Sema *s, Value v, SrcLoc loc, const char *fname, int64_t *out)
{
	if (v.kind == V_ERR) return false;
	if (v_is_const(v, CV_FLOAT) || v_is_const(v, CV_STR)) {
		s->py_errors++;
		diag_error(s->d, loc, "'%s' object cannot be interpreted as an integer (a TypeError in Python)",
			   v.c.kind == CV_FLOAT ? "float" : "str");
		return false;
	}
	if (!v_is_intlike(v) || v.c.u64) {
		s->py_errors += v.kind == V_CONST;
		diag_error(s->d, loc, "'%s' needs an integer%s, got %s", fname, v.c.u64 ? " below 2**63" : "", v_describe(s, v));
		return false;
	}
	*out = v.c.i;
	return true;
}

static bool too_big(Sema *s, Call *c)
{
	s->py_errors++;
	diag_error(s->d, c->loc, "'%s' gives an integer outside tile's [-2**63, 2**63)", c->name);
	return false;
}

static uint64_t gcd_u(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

enum { MI_GCD, MI_LCM, MI_ISQRT, MI_COMB, MI_PERM, MI_FACTORIAL };

/* math.gcd(*integers), math.lcm(*integers) */
static Value b_gcd(Sema *s, Call *c, int lcm)
{
	uint64_t r = lcm ? 1 : 0;
	for (int i = 0; i < c->nrest; i++) {
		int64_t x;
		if (!int_arg(s, c->rest[i], c->rest_at[i], c->name, &x)) return v_err();
		uint64_t m = x < 0 ? 0 - (uint64_t)x : (uint64_t)x;
		if (!lcm) r = gcd_u(r, m);
		else if (m == 0 || r == 0) r = 0;
		else {
			uint64_t q = m / gcd_u(r, m);
			if (r > (uint64_t)INT64_MAX / q) return too_big(s, c), v_err();
			r *= q;
		}
	}
	if (r > (uint64_t)INT64_MAX) return too_big(s, c), v_err(); /* gcd(-2**63) */
	return v_int((int64_t)r);
}

static bool nonneg(Sema *s, Call *c, int64_t x, const char *what)
{
	if (x >= 0) return true;
	s->py_errors++;
	diag_error(s->d, c->loc, "%s (a ValueError in Python)", what);
	return false;
}

/* math.isqrt(n), comb(n, k), perm(n, k=None), factorial(n) */
static Value b_intmath(Sema *s, Call *c, int op)
{
	int64_t n, k = 0;
	if (!int_arg(s, c->a[0], c->at[0], c->name, &n)) return v_err();
	bool has_k = (op == MI_COMB || op == MI_PERM) && c->has[1] && !v_is_none(c->a[1]);
	if (has_k && !int_arg(s, c->a[1], c->at[1], c->name, &k)) return v_err();
	if (op == MI_ISQRT) {
		if (!nonneg(s, c, n, "isqrt() argument must be nonnegative")) return v_err();
		uint64_t r = (uint64_t)sqrtl((long double)n);
		while (r * r > (uint64_t)n) r--;
		while ((r + 1) * (r + 1) <= (uint64_t)n) r++;
		return v_int((int64_t)r);
	}
	if (op == MI_FACTORIAL) {
		if (!nonneg(s, c, n, "factorial() not defined for negative values")) return v_err();
		int64_t r = 1;
		for (int64_t i = 2; i <= n; i++) {
			if (r > INT64_MAX / i) return too_big(s, c), v_err();
			r *= i;
		}
		return v_int(r);
	}
	if (!nonneg(s, c, n, "n must be a non-negative integer") || (has_k && !nonneg(s, c, k, "k must be a non-negative integer")))
		return v_err();
	if (op == MI_PERM && !has_k) k = n;
	if (k > n) return v_int(0);
	if (op == MI_COMB && k > n - k) k = n - k;
	/* comb: r * (n - i) / (i + 1) is a binomial at each step; dividing by the
	 * gcd first keeps the product from overflowing where the result fits */
	uint64_t r = 1;
	for (int64_t i = 0; i < k; i++) {
		uint64_t t = (uint64_t)(n - i);
		if (op == MI_COMB) {
			uint64_t d = (uint64_t)i + 1, g = gcd_u(r, d);
			r /= g;
			t /= d / g;
		}
		if (t && r > (uint64_t)INT64_MAX / t) return too_big(s, c), v_err();
		r *= t;
	}
	return v_int((int64_t)r);
}

/* math.prod(iterable, start=1): Python's * of the items */
static Value b_prod(Sema *s, Call *c, int extra)
{
	(void)extra;
	const Value *items;
	int n;
	if (!const_iter_items(s, c->a[0], c->at[0], &items, &n)) return v_err();
	Value r = c->has[1] ? c->a[1] : v_int(1);
	for (int i = 0; i < n && r.kind != V_ERR; i++) r = binop(s, OP_MUL, r, items[i], c->loc);
	return r;
}

/* ---- functools and operator ------------------------------------------------------------- */

/* functools.reduce(function, iterable[, initial]) */
static Value b_reduce(Sema *s, Call *c, int extra)
{
	(void)extra;
	const Value *items;
	int n, i = 0;
	if (c->a[0].kind == V_ERR || !const_iter_items(s, c->a[1], c->at[1], &items, &n)) return v_err();
	Value acc;
	if (c->has[2]) acc = c->a[2];
	else if (n) acc = items[i++];
	else {
		s->py_errors++;
		diag_error(s->d, c->loc, "reduce() of empty iterable with no initial value (a TypeError in Python)");
		return v_err();
	}
	for (; i < n && acc.kind != V_ERR; i++) {
		Value args[2] = {acc, items[i]};
		if (!sema_work(s, 1, c->loc)) return v_err();
		acc = call_value(s, c->fn, c->a[0], args, 2, NULL, NULL, 0, c->loc, &c->at[0], NULL);
	}
	return acc;
}

/* obj[key] of a compile-time tuple, list, dict or string */
static Value py_getitem(Sema *s, Value obj, Value key, SrcLoc loc)
{
	if (obj.kind == V_ERR || key.kind == V_ERR) return v_err();
	Value out;
	if (obj.kind == V_DICT && !v_is_enum_member(obj)) {
		if (dict_get(obj, key, &out)) return out;
		Value r = py_str_value(s, key, true, loc);
		s->py_errors++;
		diag_error(s->d, loc, "%s (a KeyError in Python)", r.kind == V_ERR ? "key" : r.c.s);
		return v_err();
	}
	bool seq = obj.kind == V_TUPLE || v_is_const(obj, CV_STR);
	if (seq && v_is_intlike(key) && !key.c.u64) {
		if (obj.kind != V_TUPLE) return str_index(s, obj.c.s ? obj.c.s : "", key.c.i, loc);
		int64_t i = key.c.i < 0 ? key.c.i + obj.n : key.c.i;
		if (i >= 0 && i < obj.n) return obj.items[i];
		s->py_errors++;
		diag_error(s->d, loc, "%s index out of range (an IndexError in Python)", obj.list ? "list" : "tuple");
		return v_err();
	}
	diag_error(s->d, loc, "operator.getitem of %s by %s is not supported", v_describe(s, obj), v_describe(s, key));
	return v_err();
}

static const AstOp op_of[] = {OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_FLOORDIV, OP_MOD, OP_POW, OP_LSHIFT, OP_RSHIFT,
			      OP_BITAND, OP_BITOR, OP_BITXOR, OP_MATMUL, OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE,
			      OP_IS, OP_ISNOT};
enum { OPX_NEG = 100, OPX_POS, OPX_INVERT, OPX_NOT, OPX_TRUTH, OPX_CONTAINS, OPX_GETITEM, OPX_INDEX };

static Value b_operator(Sema *s, Call *c, int op)
{
	Value a = c->a[0], b = c->has[1] ? c->a[1] : v_none();
	switch (op) {
	case OPX_NEG: return unop(s, OP_NEG, a, c->loc);
	case OPX_POS: return unop(s, OP_POS, a, c->loc);
	case OPX_INVERT: return unop(s, OP_INVERT, a, c->loc);
	case OPX_NOT: return unop(s, OP_NOT, a, c->loc);
	case OPX_TRUTH: {
		Value n = unop(s, OP_NOT, a, c->loc);
		return n.kind == V_ERR ? n : unop(s, OP_NOT, n, c->loc);
	}
	case OPX_CONTAINS: return compare_one(s, OP_IN, b, a, c->loc);
	case OPX_GETITEM: return py_getitem(s, a, b, c->loc);
	case OPX_INDEX: {
		int64_t i;
		return int_arg(s, a, c->at[0], c->name, &i) ? a : v_err();
	}
	default: return op_of[op] >= OP_LT ? compare_one(s, op_of[op], a, b, c->loc) : binop(s, op_of[op], a, b, c->loc);
	}
}

/* operator.itemgetter(*items): a callable that indexes its argument (bound
 * to the items; one item gives the item, several a tuple) */
static Value b_itemgetter(Sema *s, Call *c, int extra)
{
	(void)extra;
	if (!c->nrest) {
		diag_error(s->d, c->loc, "itemgetter expected 1 argument, got 0");
		return v_err();
	}
	Value *self = ARENA_NEW(s->a, Value);
	*self = v_tuple(s, c->rest, c->nrest);
	return v_builtin(builtin_find("_itemgetter_call", BF_OPERATOR), self);
}

static Value b_itemgetter_call(Sema *s, Call *c, int extra)
{
	(void)extra;
	Value keys = c->a[0];
	if (keys.n == 1) return py_getitem(s, c->a[1], keys.items[0], c->loc);
	Value *out = ARENA_NEWN(s->a, Value, (size_t)keys.n);
	for (int i = 0; i < keys.n; i++)
		if ((out[i] = py_getitem(s, c->a[1], keys.items[i], c->loc)).kind == V_ERR) return v_err();
	return v_tuple(s, out, keys.n);
}

/* ascii(v): repr(v) with its non-ASCII characters escaped, \xNN, \uNNNN or
 * \UNNNNNNNN, as Python's ascii() and the !a / %a conversions write it */
Value py_ascii_value(Sema *s, Value v, SrcLoc loc)
{
	Value r = py_str_value(s, v, true, loc);
	if (r.kind == V_ERR || !r.c.s) return r;
	StrBuf b = {0};
	for (const unsigned char *u = (const unsigned char *)r.c.s; *u;) {
		if (*u < 0x80) {
			sb_putc(&b, (char)*u++);
			continue;
		}
		int n = *u < 0xe0 ? 2 : *u < 0xf0 ? 3 : 4;
		uint32_t cp = *u & (n == 2 ? 0x1f : n == 3 ? 0x0f : 0x07);
		for (int i = 1; i < n && u[i]; i++) cp = cp << 6 | (u[i] & 0x3f);
		u += n;
		sb_printf(&b, cp < 0x100 ? "\\x%02x" : cp < 0x10000 ? "\\u%04x" : "\\U%08x", (unsigned)cp);
	}
	Value out = v_str(arena_strdup(s->a, b.s ? b.s : ""));
	sb_free(&b);
	return out;
}

static Value b_ascii(Sema *s, Call *c, int extra)
{
	(void)extra;
	return py_ascii_value(s, c->a[0], c->at[0]);
}

/* ---- hasattr, type, chr, ord --------------------------------------------------------------- */

static Value b_hasattr(Sema *s, Call *c, int extra)
{
	(void)extra;
	if (c->a[0].kind == V_ERR || c->a[1].kind == V_ERR) return v_err();
	if (!v_is_const(c->a[1], CV_STR)) {
		s->py_errors++;
		diag_error(s->d, c->at[1], "attribute name must be string, not %s (a TypeError in Python)", v_describe(s, c->a[1]));
		return v_err();
	}
	Value out;
	return v_bool(attr_quiet(s, c->a[0], istr(s, c->a[1].c.s ? c->a[1].c.s : ""), c->at[1], &out));
}

/* type(x): the class builtin (int, float, bool, str, tuple, list, dict, tl.tensor,
 * tl.dtype), which `is` compares and whose __name__ names it */
static Value b_type(Sema *s, Call *c, int extra)
{
	(void)extra;
	Value v = c->a[0];
	const char *name = NULL;
	unsigned flag = BF_PY;
	if (v.kind == V_ERR) return v;
	if (v.kind == V_CONST) {
		switch (v.c.kind) {
		case CV_INT: name = "int"; break;
		case CV_BOOL: name = "bool"; break;
		case CV_FLOAT: name = "float"; break;
		case CV_STR: name = "str"; break;
		default: break;
		}
	} else if (v.kind == V_TUPLE) name = v.set ? "set" : v.list ? "list" : "tuple";
	else if (v.kind == V_DICT && !v.msg && !v_is_enum_member(v)) name = "dict";
	else if (v.kind == V_TENSOR) name = "tensor", flag = BF_TL;
	else if (v.kind == V_DTYPE) name = "dtype", flag = BF_TL;
	int id = name ? builtin_find(name, flag) : -1;
	if (id < 0) {
		diag_error(s->d, c->loc, "type() of %s is not supported (of ints, floats, bools, strings, tuples, lists, "
			   "dicts, sets, tensors and dtypes it is)", v_describe(s, v));
		return v_err();
	}
	return v_builtin(id, NULL);
}

static Value b_chr_ord(Sema *s, Call *c, int ord)
{
	Value v = c->a[0];
	if (v.kind == V_ERR) return v;
	if (ord) {
		const char *str = v_is_const(v, CV_STR) && v.c.s ? v.c.s : NULL;
		if (!str || str_length(str) != 1) {
			s->py_errors++;
			if (str) diag_error(s->d, c->at[0], "ord() expected a character, but string of length %lld found (a TypeError in Python)",
					    (long long)str_length(str));
			else diag_error(s->d, c->at[0], "ord() expected string of length 1, but %s found (a TypeError in Python)",
					v_describe(s, v));
			return v_err();
		}
		const unsigned char *u = (const unsigned char *)str;
		uint32_t cp = u[0] < 0x80 ? u[0] : u[0] < 0xe0 ? u[0] & 0x1f : u[0] < 0xf0 ? u[0] & 0x0f : u[0] & 0x07;
		for (const unsigned char *q = u + 1; *q; q++) cp = cp << 6 | (*q & 0x3f);
		return v_int(cp);
	}
	int64_t x;
	if (!int_arg(s, v, c->at[0], "chr", &x)) return v_err();
	if (x <= 0 || x >= 0x110000) {
		s->py_errors++;
		diag_error(s->d, c->at[0], x == 0 ? "chr(0): tile's strings cannot hold a NUL character"
						  : "chr() arg not in range(0x110000) (a ValueError in Python)");
		return v_err();
	}
	char buf[8];
	*utf8_put(buf, (uint32_t)x) = 0;
	return v_str(arena_strdup(s->a, buf));
}

const Builtin builtins_pyhost[] = {
    {"gcd", "*integers", b_gcd, 0, BF_PYMATH},
    {"lcm", "*integers", b_gcd, 1, BF_PYMATH},
    {"isqrt", "n", b_intmath, MI_ISQRT, BF_PYMATH},
    {"comb", "n,k", b_intmath, MI_COMB, BF_PYMATH},
    {"perm", "n,k=None", b_intmath, MI_PERM, BF_PYMATH},
    {"factorial", "n", b_intmath, MI_FACTORIAL, BF_PYMATH},
    {"prod", "iterable,start=1", b_prod, 0, BF_PYMATH},
    {"reduce", "function,iterable,initial=None", b_reduce, 0, BF_FUNCTOOLS},
    {"add", "a,b", b_operator, 0, BF_OPERATOR},
    {"sub", "a,b", b_operator, 1, BF_OPERATOR},
    {"mul", "a,b", b_operator, 2, BF_OPERATOR},
    {"truediv", "a,b", b_operator, 3, BF_OPERATOR},
    {"floordiv", "a,b", b_operator, 4, BF_OPERATOR},
    {"mod", "a,b", b_operator, 5, BF_OPERATOR},
    {"pow", "a,b", b_operator, 6, BF_OPERATOR},
    {"lshift", "a,b", b_operator, 7, BF_OPERATOR},
    {"rshift", "a,b", b_operator, 8, BF_OPERATOR},
    {"and_", "a,b", b_operator, 9, BF_OPERATOR},
    {"or_", "a,b", b_operator, 10, BF_OPERATOR},
    {"xor", "a,b", b_operator, 11, BF_OPERATOR},
    {"matmul", "a,b", b_operator, 12, BF_OPERATOR},
    {"eq", "a,b", b_operator, 13, BF_OPERATOR},
    {"ne", "a,b", b_operator, 14, BF_OPERATOR},
    {"lt", "a,b", b_operator, 15, BF_OPERATOR},
    {"le", "a,b", b_operator, 16, BF_OPERATOR},
    {"gt", "a,b", b_operator, 17, BF_OPERATOR},
    {"ge", "a,b", b_operator, 18, BF_OPERATOR},
    {"is_", "a,b", b_operator, 19, BF_OPERATOR},
    {"is_not", "a,b", b_operator, 20, BF_OPERATOR},
    {"neg", "a", b_operator, OPX_NEG, BF_OPERATOR},
    {"pos", "a", b_operator, OPX_POS, BF_OPERATOR},
    {"invert", "a", b_operator, OPX_INVERT, BF_OPERATOR},
    {"inv", "a", b_operator, OPX_INVERT, BF_OPERATOR},
    {"not_", "a", b_operator, OPX_NOT, BF_OPERATOR},
    {"truth", "a", b_operator, OPX_TRUTH, BF_OPERATOR},
    {"contains", "a,b", b_operator, OPX_CONTAINS, BF_OPERATOR},
    {"getitem", "a,b", b_operator, OPX_GETITEM, BF_OPERATOR},
    {"index", "a", b_operator, OPX_INDEX, BF_OPERATOR},
    {"itemgetter", "*items", b_itemgetter, 0, BF_OPERATOR},
    {"_itemgetter_call", "self,obj", b_itemgetter_call, 0, BF_OPERATOR},
    {"hasattr", "object,name", b_hasattr, 0, BF_PY},
    {"type", "object", b_type, 0, BF_PY},
    {"chr", "i", b_chr_ord, 0, BF_PY},
    {"ascii", "obj", b_ascii, 0, BF_PY},
    {"ord", "c", b_chr_ord, 1, BF_PY},
    {NULL, NULL, NULL, 0, 0},
};

/* sema_const.c: constexpr values with Python's semantics (`//` and `%` floor,
 * `/` is true division, bools are ints in arithmetic). Ints are exact in
 * [-2**63, 2**64): int64, and flagged uint64 above INT64_MAX, as Triton types
 * such constants; a result outside is an error, never a silent wraparound. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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
	case CV_DTYPE:
	case CV_NAME: return true;
	}
	return false;
}

static bool is_num(ConstVal c) { return c.kind == CV_INT || c.kind == CV_BOOL || c.kind == CV_FLOAT; }
static bool is_int(ConstVal c) { return c.kind == CV_INT || c.kind == CV_BOOL; }
static int num_cmp(ConstVal a, ConstVal b);
double const_as_double(ConstVal c)
{
	if (c.kind == CV_FLOAT) return c.f;
	return c.u64 ? (double)(uint64_t)c.i : (double)c.i;
}

bool const_eq(ConstVal a, ConstVal b)
{
	if (is_num(a) && is_num(b)) {
		if (a.kind == CV_FLOAT || b.kind == CV_FLOAT) return num_cmp(a, b) == 0;
		return a.i == b.i && a.u64 == b.u64;
	}
	if (a.kind != b.kind) return false;
	switch (a.kind) {
	case CV_STR:
	case CV_NAME: return !strcmp(a.s ? a.s : "", b.s ? b.s : "");
	case CV_NONE: return true;
	case CV_DTYPE: return a.dtype == b.dtype;
	default: return false;
	}
}

/* repr(x) of a float as Python writes it: the shortest digits that read
 * back as x, in fixed notation from 1e-4 up to 1e16 (always with a '.':
 * 2.0) and as 1.5e-05 / 1e+16 outside that; inf, -inf, nan. */
void py_float_repr(double x, char *buf, size_t n)
{
	if (isnan(x)) {
		snprintf(buf, n, "nan");
		return;
	}
	if (isinf(x)) {
		snprintf(buf, n, x < 0 ? "-inf" : "inf");
		return;
	}
	char e[40];
	for (int p = 1; p <= 17; p++) { /* the fewest significant digits that round-trip */
		snprintf(e, sizeof e, "%.*e", p - 1, x);
		if (strtod(e, NULL) == x) break;
	}
	/* e is [-]d[.ddd]e[+-]XX: its digits without trailing zeros, and the exponent */
	char digits[24];
	int nd = 0, exp10 = (int)strtol(strchr(e, 'e') + 1, NULL, 10);
	for (const char *q = e + (e[0] == '-'); *q != 'e'; q++)
		if (*q != '.') digits[nd++] = *q;
	while (nd > 1 && digits[nd - 1] == '0') nd--;
	digits[nd] = 0;
	const char *sign = signbit(x) ? "-" : "";
	static const char zeros[] = "000000000000000"; /* fixed notation pads at most 15 */
	if (exp10 < -4 || exp10 >= 16)
		snprintf(buf, n, "%s%c%s%.*s%c%c%02d", sign, digits[0], nd > 1 ? "." : "", nd - 1, digits + 1, 'e',
			 exp10 < 0 ? '-' : '+', exp10 < 0 ? -exp10 : exp10);
	else if (exp10 < 0) /* 0.000ddd */
		snprintf(buf, n, "%s0.%.*s%s", sign, -exp10 - 1, zeros, digits);
	else if (nd <= exp10 + 1) /* an integer: ddd000.0 */
		snprintf(buf, n, "%s%s%.*s.0", sign, digits, exp10 + 1 - nd, zeros);
	else
		snprintf(buf, n, "%s%.*s.%s", sign, exp10 + 1, digits, digits + exp10 + 1);
}

/* Python's float divmod: the quotient floored as the remainder's sign (b's)
 * needs, which floor(a / b) gets wrong where a / b rounds up (1 // 0.1 is 9.0) */
void py_float_divmod(double a, double b, double *div, double *mod)
{
	double m = fmod(a, b), d = (a - m) / b;
	if (m != 0.0) {
		if ((b < 0) != (m < 0)) {
			m += b;
			d -= 1.0;
		}
	} else m = copysign(0.0, b);
	double f;
	if (d != 0.0) {
		f = floor(d);
		if (d - f > 0.5) f += 1.0;
	} else f = copysign(0.0, a / b);
	*div = f;
	*mod = m;
}

void const_str(ConstVal c, char *buf, size_t n)
{
	switch (c.kind) {
	case CV_INT:
		if (c.u64) snprintf(buf, n, "%llu", (unsigned long long)(uint64_t)c.i);
		else snprintf(buf, n, "%lld", (long long)c.i);
		break;
	case CV_BOOL: snprintf(buf, n, "%s", c.i ? "True" : "False"); break;
	case CV_FLOAT: py_float_repr(c.f, buf, n); break;
	case CV_STR: snprintf(buf, n, "'%s'", c.s ? c.s : ""); break;
	case CV_NONE: snprintf(buf, n, "None"); break;
	case CV_DTYPE: snprintf(buf, n, "%s", dtype_name(c.dtype)); break;
	case CV_NAME: snprintf(buf, n, "%s", c.s ? c.s : ""); break;
	}
}

/* the flags, width and precision of a %-conversion's spec "%[flags][width][.prec]" */
typedef struct PctSpec {
	bool minus, plus, space, alt, zero;
	int width, prec; /* prec -1: none */
} PctSpec;

static PctSpec pct_spec(const char *spec)
{
	PctSpec ps = {.prec = -1};
	const char *p = spec + 1;
	for (; *p && strchr("-+ #0", *p); p++) {
		ps.minus |= *p == '-';
		ps.plus |= *p == '+';
		ps.space |= *p == ' ';
		ps.alt |= *p == '#';
		ps.zero |= *p == '0';
	}
	ps.width = atoi(p);
	const char *dot = strchr(p, '.');
	if (dot) ps.prec = atoi(dot + 1);
	return ps;
}

/* head + body padded to the width as Python pads: zeros after the head with
 * the '0' flag (numbers only), else spaces on the left, or on the right with '-' */
static void pct_pad(StrBuf *b, PctSpec ps, const char *head, const char *body, int chars, bool number)
{
	int pad = ps.width > chars ? ps.width - chars : 0;
	bool zeros = number && ps.zero && !ps.minus;
	for (int i = 0; !ps.minus && !zeros && i < pad; i++) sb_putc(b, ' ');
	sb_puts(b, head);
	for (int i = 0; zeros && i < pad; i++) sb_putc(b, '0');
	sb_puts(b, body);
	for (int i = 0; ps.minus && i < pad; i++) sb_putc(b, ' ');
}

/* %d %o %x %X of an integer as Python writes them: a '-' for a negative number (or
 * '+' / ' ' by the flags), the '#' prefix 0o / 0x / 0X, then the digits at
 * least `.prec` long, the '0' flag padding even with a precision (C's %x would
 * print a negative number's two's complement, C's %.0d of 0 nothing) */
static void percent_radix(StrBuf *b, const char *spec, char conv, ConstVal c)
{
	PctSpec ps = pct_spec(spec);
	bool neg = !c.u64 && c.i < 0;
	unsigned long long mag = neg ? 0 - (uint64_t)c.i : (uint64_t)c.i;
	char head[8], digits[32];
	snprintf(head, sizeof head, "%s%s", neg ? "-" : ps.plus ? "+" : ps.space ? " " : "",
		 !ps.alt || conv == 'd' ? "" : conv == 'o' ? "0o" : conv == 'x' ? "0x" : "0X");
	snprintf(digits, sizeof digits, conv == 'd' ? "%llu" : conv == 'o' ? "%llo" : conv == 'x' ? "%llx" : "%llX", mag);
	StrBuf body = {0};
	for (int i = (int)strlen(digits); i < ps.prec; i++) sb_putc(&body, '0');
	sb_puts(&body, digits);
	pct_pad(b, ps, head, body.s, (int)(strlen(head) + body.len), true);
	sb_free(&body);
}

/* One %-conversion of `fmt % args`: spec is "%[flags][width][.prec]" and conv its
 * letter (width and precision checked by the caller). Appends to b; false (with
 * a message) if v does not fit. */
static bool percent_one(Sema *s, StrBuf *b, const char *spec, char conv, Value v, SrcLoc loc)
{
	char f[48];
	if (strchr("sra", conv)) {
		Value t = conv == 'a' ? py_ascii_value(s, v, loc) : py_str_value(s, v, conv != 's', loc);
		if (t.kind == V_ERR) return false;
		/* the precision and width count characters, not bytes (C's %s would) */
		PctSpec ps = pct_spec(spec);
		const char *str = t.c.s ? t.c.s : "", *end = str;
		int n = 0;
		for (; *end && (ps.prec < 0 || n < ps.prec); n++)
			for (end++; ((unsigned char)*end & 0xc0) == 0x80; end++) {}
		char *cut = arena_strndup(s->a, str, (size_t)(end - str));
		pct_pad(b, ps, "", cut, n, false);
		return true;
	}
	bool num = v.kind == V_CONST && (v.c.kind == CV_INT || v.c.kind == CV_BOOL || v.c.kind == CV_FLOAT);
	bool intlike = num && v.c.kind != CV_FLOAT;
	if (!num || (strchr("oxXc", conv) && !intlike)) {
		diag_error(s->d, loc, "%%%c format: a %s is required, not %s", conv,
			   strchr("oxXc", conv) ? "integer" : "real number", v_describe(s, v));
		return false;
	}
	double d = const_as_double(v.c);
	if (strchr("diu", conv)) {
		if (!intlike && !(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) {
			diag_error(s->d, loc, "%%%c format of %g: tile's integers have 64 bits", conv, d);
			return false;
		}
		ConstVal iv = v.c;
		if (!intlike) iv = (ConstVal){.kind = CV_INT, .i = (int64_t)d};
		percent_radix(b, spec, 'd', iv);
	} else if (strchr("oxX", conv)) {
		percent_radix(b, spec, conv, v.c);
	} else if (conv == 'c') {
		if (v.c.u64 || v.c.i <= 0 || v.c.i >= 0x110000) {
			diag_error(s->d, loc, v.c.i == 0 && !v.c.u64 ? "%%c of 0: tile's strings cannot hold a NUL character"
								     : "%%c arg not in range(0x110000)");
			return false;
		}
		char u[8];
		*utf8_put(u, (uint32_t)v.c.i) = 0;
		pct_pad(b, pct_spec(spec), "", u, 1, false); /* the width counts characters, not bytes */
	} else {
		snprintf(f, sizeof f, "%s%c", spec, conv);
		sb_printf(b, f, d);
	}
	return true;
}

/* 'fmt' % args: Python's printf-style formatting on constexprs, as Triton evaluates it
 * (`tl.static_assert(c, "got %d" % tl.extra.cuda.num_warps())`); args is one value or
 * a tuple of them. */
Value str_percent(Sema *s, const char *fmt, Value args, SrcLoc loc)
{
	const Value *items = args.kind == V_TUPLE ? args.items : &args;
	int n = args.kind == V_TUPLE ? args.n : 1, k = 0;
	bool mapping = args.kind == V_DICT && !v_is_enum_member(args); /* "%(name)s" % d */
	StrBuf b = {0};
	const char *err = NULL;
	for (const char *p = fmt; *p && !err; p++) {
		if (*p != '%') {
			sb_putc(&b, *p);
			continue;
		}
		if (p[1] == '%') {
			sb_putc(&b, '%');
			p++;
			continue;
		}
		Value keyed = {0};
		bool has_key = false;
		if (p[1] == '(') { /* %(key)...: the mapping's item, the key up to the matching ')' */
			const char *ks = p + 2, *ke = ks;
			for (int depth = 1; *ke && (depth > 1 || *ke != ')'); ke++) depth += (*ke == '(') - (*ke == ')');
			if (!*ke) err = "incomplete format key";
			else if (!mapping) err = "format requires a mapping";
			else if (!dict_get(args, v_str(arena_strndup(s->a, ks, (size_t)(ke - ks))), &keyed)) {
				s->py_errors++;
				diag_error(s->d, loc, "'%.*s' (a KeyError in Python)", (int)(ke - ks), ks);
				sb_free(&b);
				return v_err();
			}
			if (err) break;
			has_key = true;
			p = ke; /* the spec goes on after the ')', '%' standing in for it */
		}
		const char *st = p++;
		while (*p && strchr("-+ #0", *p)) p++;
		long width = 0, prec = 0;
		for (; *p >= '0' && *p <= '9'; p++) width = width > STR_MAX_LEN ? width : width * 10 + (*p - '0');
		if (*p == '.')
			for (p++; *p >= '0' && *p <= '9'; p++) prec = prec > STR_MAX_LEN ? prec : prec * 10 + (*p - '0');
		if (!*p || !strchr("diouxXeEfFgGcrsa", *p) || p - st > 16) {
			err = "unsupported format character in '%' formatting";
		} else if (width > STR_MAX_LEN || prec > STR_MAX_LEN || b.len > STR_MAX_LEN) {
			s->py_errors++;
			diag_error(s->d, loc, "'%%' formatting gives more than %d characters", STR_MAX_LEN);
			sb_free(&b);
			return v_err();
		} else if (!has_key && k >= n) {
			err = "not enough arguments for format string";
		} else {
			char spec[24];
			snprintf(spec, sizeof spec, "%%%.*s", (int)(p - st - 1), st + 1);
			if (!percent_one(s, &b, spec, *p, has_key ? keyed : items[k++], loc)) {
				sb_free(&b);
				return v_err();
			}
		}
	}
	if (!err && k < n && !mapping) err = "not all arguments converted during string formatting";
	if (!err && b.len > STR_MAX_LEN) {
		s->py_errors++;
		diag_error(s->d, loc, "'%%' formatting gives more than %d characters", STR_MAX_LEN);
		sb_free(&b);
		return v_err();
	}
	if (err) {
		s->py_errors++;
		diag_error(s->d, loc, "%s", err);
		sb_free(&b);
		return v_err();
	}
	Value r = sema_work(s, (int64_t)(b.len / 16), loc) ? v_str(arena_strdup(s->a, b.s ? b.s : "")) : v_err();
	sb_free(&b);
	return r;
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

/* ---- exact integers: sign and magnitude, |value| < 2**64 ---------------------- */

typedef struct BigInt {
	bool neg;
	uint64_t mag;
} BigInt;

static BigInt big_of(ConstVal c)
{
	if (c.u64 || c.i >= 0) return (BigInt){false, (uint64_t)c.i};
	return (BigInt){true, 0 - (uint64_t)c.i};
}

static BigInt big_norm(BigInt x) { return (BigInt){x.neg && x.mag != 0, x.mag}; }
static BigInt big_neg(BigInt x) { return big_norm((BigInt){!x.neg, x.mag}); }

static BigInt big_add(BigInt a, BigInt b, bool *ovf)
{
	if (a.neg == b.neg) {
		if (a.mag > UINT64_MAX - b.mag) *ovf = true;
		return (BigInt){a.neg, a.mag + b.mag};
	}
	if (a.mag >= b.mag) return big_norm((BigInt){a.neg, a.mag - b.mag});
	return big_norm((BigInt){b.neg, b.mag - a.mag});
}

static BigInt big_mul(BigInt a, BigInt b, bool *ovf)
{
	if (a.mag != 0 && b.mag > UINT64_MAX / a.mag) *ovf = true;
	return big_norm((BigInt){a.neg != b.neg, a.mag * b.mag});
}

static int big_cmp(BigInt a, BigInt b)
{
	if (a.neg != b.neg) return a.neg ? -1 : 1;
	int c = a.mag < b.mag ? -1 : a.mag > b.mag ? 1 : 0;
	return a.neg ? -c : c;
}

/* -1, 0 or 1 as a < b, a == b, a > b; 2 when a NaN makes them unordered.
 * An int and a float compare exactly, as Python's do: going through a
 * double, 2**53 + 1 == 2.0**53 was True and 2**63 - 1 < 2.0**63 False. */
static int num_cmp(ConstVal a, ConstVal b)
{
	if (is_int(a) && is_int(b)) return big_cmp(big_of(a), big_of(b));
	if (a.kind == CV_FLOAT && b.kind == CV_FLOAT) return isnan(a.f) || isnan(b.f) ? 2 : (a.f > b.f) - (a.f < b.f);
	if (a.kind == CV_FLOAT) {
		int c = num_cmp(b, a);
		return c == 2 ? 2 : -c;
	}
	double f = b.f;
	if (isnan(f)) return 2;
	if (f >= 0x1p64) return -1; /* every int is below 2**64 and above -2**63 - 1 */
	if (f < -0x1p63) return 1;
	double t = trunc(f); /* an integer in [-2**63, 2**64): exact as a BigInt */
	int c = big_cmp(big_of(a), big_norm((BigInt){t < 0, (uint64_t)fabs(t)}));
	if (c) return c;
	return f > t ? -1 : f < t ? 1 : 0;
}

/* Python's floor division and modulo (b != 0) */
static BigInt big_floordiv(BigInt a, BigInt b)
{
	uint64_t q = a.mag / b.mag;
	if (a.neg == b.neg) return (BigInt){false, q};
	return big_norm((BigInt){true, q + (a.mag % b.mag != 0)});
}

static BigInt big_mod(BigInt a, BigInt b)
{
	uint64_t r = a.mag % b.mag;
	if (r != 0 && a.neg != b.neg) r = b.mag - r;
	return big_norm((BigInt){b.neg, r});
}

static BigInt big_pow(BigInt a, uint64_t e, bool *ovf)
{
	BigInt r = {false, 1};
	while (e) {
		if (e & 1) r = big_mul(r, a, ovf);
		e >>= 1;
		if (e) a = big_mul(a, a, ovf);
		if (*ovf) break;
	}
	return r;
}

static BigInt big_shift(BigInt a, uint64_t sh, bool left, bool *ovf)
{
	if (left) {
		if (a.mag != 0 && (sh >= 64 || a.mag > (UINT64_MAX >> sh))) *ovf = true;
		return (BigInt){a.neg, sh >= 64 ? 0 : a.mag << sh};
	}
	if (!a.neg) return (BigInt){false, sh >= 64 ? 0 : a.mag >> sh};
	/* floor(-m / 2**sh) = -(((m - 1) >> sh) + 1) */
	return (BigInt){true, (sh >= 64 ? 0 : (a.mag - 1) >> sh) + 1};
}

/* &, |, ^ on Python's infinite two's complement: 64 low bits and the sign */
static BigInt big_bitop(AstOp op, BigInt a, BigInt b, bool *ovf)
{
	uint64_t x = a.neg ? 0 - a.mag : a.mag, y = b.neg ? 0 - b.mag : b.mag, r;
	bool sign;
	switch (op) {
	case OP_BITAND: r = x & y, sign = a.neg && b.neg; break;
	case OP_BITOR: r = x | y, sign = a.neg || b.neg; break;
	default: r = x ^ y, sign = a.neg != b.neg; break;
	}
	if (!sign) return (BigInt){false, r};
	if (!(r >> 63)) *ovf = true; /* below -2**63 */
	return (BigInt){true, 0 - r};
}

/* The Value of x, or an error if it is outside [-2**63, 2**64). */
static Value big_value(Sema *s, BigInt x, bool ovf, AstOp op, SrcLoc loc)
{
	if (!ovf && x.neg && x.mag <= (uint64_t)INT64_MAX + 1) return v_int((int64_t)(0 - x.mag));
	if (!ovf && !x.neg) return v_uint64(x.mag);
	s->py_errors++;
	diag_error(s->d, loc, "integer overflow in %s: the result is outside [-2**63, 2**64)", op_spelling(op));
	return v_err();
}

static uint64_t sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

/* len(range(lo, hi, step)) as Python counts it (step != 0), exact over
 * [-2**63, 2**64) however far apart the bounds are; saturates at UINT64_MAX. */
uint64_t const_range_len(ConstVal lo, ConstVal hi, ConstVal step)
{
	BigInt a = big_of(lo), b = big_of(hi), st = big_of(step);
	if (st.neg) { /* counting down from lo to hi counts up from hi to lo */
		BigInt t = a;
		a = b;
		b = t;
	}
	if (st.mag == 0 || big_cmp(b, a) <= 0) return 0;
	bool wide = false; /* b - a >= 2**64: it is 2**64 + d.mag */
	BigInt d = big_add(b, big_neg(a), &wide);
	uint64_t sz = st.mag;
	if (!wide) return (d.mag - 1) / sz + 1;
	if (d.mag == 0) return sat_add(UINT64_MAX / sz, 1);
	if (sz == 1) return UINT64_MAX;
	/* (2**64 + low) / sz + 1 with low = d.mag - 1 and 2**64 = q * sz + r */
	uint64_t low = d.mag - 1, q = UINT64_MAX / sz, r = UINT64_MAX % sz + 1;
	if (r == sz) {
		q++;
		r = 0;
	}
	uint64_t quot = sat_add(q, low / sz);
	if (r && low % sz >= sz - r) quot = sat_add(quot, 1);
	return sat_add(quot, 1);
}

/* the item after v in a range of step `step`: exact where it lies in the range */
Value const_range_next(Value v, Value step)
{
	bool ovf = false;
	BigInt r = big_add(big_of(v.c), big_of(step.c), &ovf);
	return r.neg ? v_int((int64_t)(0 - r.mag)) : v_uint64(r.mag);
}

/* dtypes compare by type; a block type (n > 0) also by its shape, and never equals a scalar dtype */
static bool dtypes_equal(Value a, Value b)
{
	if (v_is_foreign_dtype(a) || v_is_foreign_dtype(b)) /* equal only to itself */
		return v_is_foreign_dtype(a) && v_is_foreign_dtype(b) && !strcmp(a.msg, b.msg);
	/* a pointer to const is another type in Triton (type_eq does not tell them apart) */
	if (!type_eq(a.ty, b.ty) || a.ty.ptr_const != b.ty.ptr_const || a.n != b.n) return false;
	for (int i = 0; i < a.n; i++)
		if (a.items[i].c.i != b.items[i].c.i) return false;
	return true;
}

static Value const_of(Value v)
{
	if (v_dtype_is_const(v)) return (Value){.kind = V_CONST, .c = {.kind = CV_DTYPE, .dtype = (DType)v.ty.dt}};
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
	/* dtypes (including pointer dtypes) compare by type, block types by shape too */
	if (av.kind == V_DTYPE || bv.kind == V_DTYPE) {
		bool eq = av.kind == bv.kind && dtypes_equal(av, bv);
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
			size_t len = strlen(a.s ? a.s : "") + strlen(b.s ? b.s : "");
			/* a step per 16 characters copied: a string grown in a loop
			 * without end stops at the work limit after ~32 MB, not GBs */
			if (len > STR_MAX_LEN || !sema_work(s, (int64_t)(len / 16), loc)) {
				if (len > STR_MAX_LEN) {
					s->py_errors++;
					diag_error(s->d, loc, "string concatenation gives %zu characters, more than %d", len,
						   STR_MAX_LEN);
				}
				return v_err();
			}
			return v_str(arena_printf(s->a, "%s%s", a.s ? a.s : "", b.s ? b.s : ""));
		}
		if (op >= OP_LT && op <= OP_GE) return cmp_result(op, strcmp(a.s ? a.s : "", b.s ? b.s : ""));
	}
	if (op == OP_MUL && ((a.kind == CV_STR && is_int(b)) || (is_int(a) && b.kind == CV_STR))) {
		/* 'ab' * 3: repetition (a count below 1 gives '') */
		const char *str = a.kind == CV_STR ? a.s : b.s;
		int64_t n = a.kind == CV_STR ? b.i : a.i;
		size_t len = strlen(str ? str : "");
		if (n <= 0 || !len) return v_str("");
		if ((uint64_t)n > STR_MAX_LEN / len) {
			s->py_errors++;
			diag_error(s->d, loc, "string repetition gives more than %d characters", STR_MAX_LEN);
			return v_err();
		}
		if (!sema_work(s, (int64_t)(len * (size_t)n / 64), loc)) return v_err();
		char *out = arena_alloc(s->a, len * (size_t)n + 1);
		for (int64_t i = 0; i < n; i++) memcpy(out + (size_t)i * len, str, len);
		out[len * (size_t)n] = 0;
		return v_str(out);
	}
	if (!is_num(a) || !is_num(b)) {
		s->py_errors++;
		diag_error(s->d, loc, "unsupported operand types for %s: %s and %s", op_spelling(op), v_describe(s, av),
			   v_describe(s, bv));
		return v_err();
	}
	bool fl = a.kind == CV_FLOAT || b.kind == CV_FLOAT;
	if (op >= OP_LT && op <= OP_GE) {
		int c = num_cmp(a, b);
		return c == 2 ? v_bool(op == OP_NE) : cmp_result(op, c);
	}
	bool both_bool = a.kind == CV_BOOL && b.kind == CV_BOOL, ovf = false;
	BigInt x = big_of(a), y = big_of(b), r;
	switch (op) {
	case OP_ADD:
		if (fl) return v_float(const_as_double(a) + const_as_double(b));
		r = big_add(x, y, &ovf);
		break;
	case OP_SUB:
		if (fl) return v_float(const_as_double(a) - const_as_double(b));
		r = big_add(x, big_neg(y), &ovf);
		break;
	case OP_MUL:
		if (fl) return v_float(const_as_double(a) * const_as_double(b));
		r = big_mul(x, y, &ovf);
		break;
	case OP_DIV:
		if (const_as_double(b) == 0.0) goto div_zero;
		return v_float(const_as_double(a) / const_as_double(b));
	case OP_FLOORDIV:
		if (const_as_double(b) == 0.0) goto div_zero;
		if (fl) {
			double d, m;
			py_float_divmod(const_as_double(a), const_as_double(b), &d, &m);
			return v_float(d);
		}
		r = big_floordiv(x, y);
		break;
	case OP_MOD:
		if (const_as_double(b) == 0.0) goto div_zero;
		if (fl) {
			double d, m;
			py_float_divmod(const_as_double(a), const_as_double(b), &d, &m);
			return v_float(m);
		}
		r = big_mod(x, y);
		break;
	case OP_POW:
		if (fl || y.neg) { /* float ** float, raising as Python does */
			double u = const_as_double(a), w = const_as_double(b), p = pow(u, w);
			const char *why = NULL;
			if (u == 0.0 && w < 0.0) why = "0.0 cannot be raised to a negative power";
			else if (u < 0.0 && isfinite(w) && w != floor(w))
				why = "a negative number raised to a fractional power is complex";
			else if (isinf(p) && isfinite(u) && isfinite(w))
				why = "float ** overflows: the result is out of range";
			if (why) {
				s->py_errors++;
				diag_error(s->d, loc, "%s", why);
				return v_err();
			}
			return v_float(p);
		}
		r = big_pow(x, y.mag, &ovf);
		break;
	case OP_LSHIFT:
	case OP_RSHIFT:
	case OP_BITAND:
	case OP_BITOR:
	case OP_BITXOR:
		if (fl) {
			s->py_errors++;
			diag_error(s->d, loc, "unsupported operand types for %s: %s and %s", op_spelling(op), v_describe(s, av),
				   v_describe(s, bv));
			return v_err();
		}
		if (both_bool) return v_bool(op == OP_BITAND ? a.i & b.i : op == OP_BITOR ? a.i | b.i : a.i ^ b.i);
		if (op == OP_LSHIFT || op == OP_RSHIFT) {
			if (y.neg) {
				s->py_errors++;
				diag_error(s->d, loc, "negative shift count");
				return v_err();
			}
			r = big_shift(x, y.mag, op == OP_LSHIFT, &ovf);
		} else {
			r = big_bitop(op, x, y, &ovf);
		}
		break;
	default:
		diag_error(s->d, loc, "unsupported operator %s on constexprs", op_spelling(op));
		return v_err();
	}
	return big_value(s, r, ovf, op, loc);
div_zero:
	s->py_errors++;
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
	case OP_NEG: return a.kind == CV_FLOAT ? v_float(-a.f) : big_value(s, big_neg(big_of(a)), false, op, loc);
	case OP_POS: return a.kind == CV_BOOL ? v_int(a.i) : v;
	case OP_INVERT:
		if (a.kind == CV_FLOAT) break;
		{ /* ~x == -x - 1 */
			bool ovf = false;
			BigInt r = big_add(big_neg(big_of(a)), (BigInt){true, 1}, &ovf);
			return big_value(s, r, ovf, op, loc);
		}
	default: break;
	}
	diag_error(s->d, loc, "bad operand type for unary %s: %s", op_spelling(op), v_describe(s, v));
	return v_err();
}

bool values_identical(Value a, Value b)
{
	if (a.kind != b.kind) return false;
	switch (a.kind) {
	case V_CONST: /* an IntEnum member is itself, not another class's of the same value */
		if (v_is_enum_member(a) || v_is_enum_member(b)) return enum_members_identical(a, b);
		return a.c.kind == b.c.kind && const_eq(a.c, b.c);
	case V_DTYPE: return dtypes_equal(a, b);
	case V_TENSOR: return a.id == b.id;
	case V_FUNC: /* a method bound to an aggregate: the same receiver too */
		if (a.fn != b.fn || a.ns != b.ns) return false;
		return a.self == b.self || (a.self && b.self && values_identical(*a.self, *b.self));
	case V_BUILTIN: return a.builtin == b.builtin && !a.self && !b.self;
	case V_NS: return a.ns == b.ns;
	case V_MODULE: return a.mod == b.mod;
	case V_POISON: return a.msg == b.msg;
	case V_DICT: /* an Enum member (dtype.SIGNEDNESS.SIGNED, Act.RELU) is itself only */
		return enum_members_identical(a, b);
	case V_AGG:
		if (a.mod != b.mod || a.ns != b.ns) return false;
		/* fallthrough */
	case V_TUPLE:
		if (a.n != b.n) return false;
		/* the same items (an `if` merging an unchanged variable, `t is t`):
		 * t = (t, t) in a static_range shares them, exponentially many */
		if (a.items == b.items) return true;
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

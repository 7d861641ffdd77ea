/* builtins_format.c: Python's format-spec mini-language on constexprs:
 * format(x, spec), what an f-string's {x:spec} calls, and str.format /
 * str.format_map, as CPython's Objects/stringlib/unicode_format.h and
 * Python/formatter_unicode.c do them, for str, int, bool and float
 * ([[fill]align][sign][z][#][0][width][,|_][.precision][type]).
 *
 * Floats are rounded by the C library's printf, which is correctly rounded,
 * as CPython's dtoa is; a float without a type or precision is repr()'s.
 * Errors Python raises are reported with its message and exception. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sema/sema_int.h"

typedef struct FmtSpec {
	char fill[5];  /* one character, UTF-8 */
	char align;    /* '<' '>' '=' '^' */
	char sign;     /* 0, '+', '-', ' ' */
	bool z, alt;
	long width;    /* -1: none */
	char sep;      /* 0, ',' or '_': thousands separator */
	int group;     /* digits between separators: 3, or 4 for _ in b/o/x/X */
	long prec;     /* -1: none */
	char type;     /* 0: none */
} FmtSpec;

static bool py_value_error(Sema *s, SrcLoc loc, const char *exc, const char *fmt, const char *a, const char *b)
{
	s->py_errors++;
	char msg[256];
	snprintf(msg, sizeof msg, fmt, a, b);
	diag_error(s->d, loc, "%s (a%s %s in Python)", msg, strchr("AEIOU", *exc) ? "n" : "", exc);
	return false;
}

/* "int", "str", ...: the type name Python's messages use */
static const char *fmt_type_name(Value v)
{
	if (v.kind != V_CONST) return "object";
	switch (v.c.kind) {
	case CV_INT: return "int";
	case CV_BOOL: return "bool";
	case CV_FLOAT: return "float";
	case CV_STR: return "str";
	default: return "object";
	}
}

/* a run of decimal digits at *p as a width or precision; -1 if none */
static bool spec_int(Sema *s, const char **p, long *out, SrcLoc loc)
{
	long n = -1;
	for (; **p >= '0' && **p <= '9'; (*p)++) {
		n = (n < 0 ? 0 : n * 10) + (**p - '0');
		if (n > STR_MAX_LEN) {
			diag_error(s->d, loc, "format spec: a width or precision over %d is not supported", STR_MAX_LEN);
			return false;
		}
	}
	*out = n;
	return true;
}

/* CPython's parse_internal_render_format_spec: def_type is the type's default
 * presentation ('s' str, 'd' int, 0 float), def_align '<' for str, '>' for numbers */
static bool spec_parse(Sema *s, const char *spec, Value v, char def_type, char def_align, FmtSpec *f, SrcLoc loc)
{
	*f = (FmtSpec){.fill = " ", .align = def_align, .width = -1, .prec = -1, .type = def_type, .group = 3};
	const char *p = spec;
	int clen = 1; /* the first character's UTF-8 length */
	while (p[clen] && ((unsigned char)p[clen] & 0xc0) == 0x80) clen++;
	bool fill_given = false, align_given = false;
	if (*p && p[clen] && strchr("<>=^", p[clen])) {
		memcpy(f->fill, p, (size_t)clen);
		f->fill[clen] = 0;
		f->align = p[clen];
		fill_given = align_given = true;
		p += clen + 1;
	} else if (*p && strchr("<>=^", *p)) {
		f->align = *p++;
		align_given = true;
	}
	if (*p && strchr("+- ", *p)) f->sign = *p++;
	if (*p == 'z') f->z = true, p++;
	if (*p == '#') f->alt = true, p++;
	if (!fill_given && *p == '0') {
		strcpy(f->fill, "0");
		if (!align_given && def_align == '>') f->align = '=';
		p++;
	}
	if (!spec_int(s, &p, &f->width, loc)) return false;
	if (*p == ',') f->sep = *p++;
	if (*p == '_') {
		if (f->sep) return py_value_error(s, loc, "ValueError", "Cannot specify both ',' and '_'.", "", "");
		f->sep = *p++;
	}
	if (*p == ',' && f->sep == '_')
		return py_value_error(s, loc, "ValueError", "Cannot specify both ',' and '_'.", "", "");
	if (*p == '.') {
		p++;
		if (!spec_int(s, &p, &f->prec, loc)) return false;
		if (f->prec < 0) return py_value_error(s, loc, "ValueError", "Format specifier missing precision", "", "");
	}
	if (p[0] && p[1])
		return py_value_error(s, loc, "ValueError", "Invalid format specifier '%s' for object of type '%s'", spec,
				      fmt_type_name(v));
	if (*p) f->type = *p;
	if (f->sep && !strchr("defgEG%F", f->type ? f->type : 'd')) {
		char t[2] = {f->type, 0}, sp[2] = {f->sep, 0};
		if (!strchr("boxX", f->type) || f->sep == ',')
			return py_value_error(s, loc, "ValueError", "Cannot specify '%s' with '%s'.", sp, t);
		f->group = 4;
	}
	return true;
}

static void put_fill(StrBuf *b, const FmtSpec *f, long n)
{
	for (long i = 0; i < n; i++) sb_puts(b, f->fill);
}

/* ---- str --------------------------------------------------------------------------- */

static bool fmt_str(Sema *s, StrBuf *b, const char *str, const FmtSpec *f, SrcLoc loc)
{
	char t[2] = {f->type, 0};
	if (f->type != 's') return py_value_error(s, loc, "ValueError", "Unknown format code '%s' for object of type '%s'", t, "str");
	const char *why = f->sign == ' '  ? "Space not allowed in string format specifier"
			  : f->sign       ? "Sign not allowed in string format specifier"
			  : f->z          ? "Negative zero coercion (z) not allowed in string format specifier"
			  : f->alt        ? "Alternate form (#) not allowed in string format specifier"
			  : f->align == '=' ? "'=' alignment not allowed in string format specifier"
					  : NULL;
	if (why) return py_value_error(s, loc, "ValueError", "%s", why, "");
	long n = (long)str_length(str);
	size_t bytes = strlen(str);
	if (f->prec >= 0 && n > f->prec) { /* the first prec code points */
		const char *q = str;
		for (long k = 0; k < f->prec; k++)
			for (q++; ((unsigned char)*q & 0xc0) == 0x80; q++) {}
		bytes = (size_t)(q - str);
		n = f->prec;
	}
	long pad = f->width > n ? f->width - n : 0;
	long left = f->align == '>' ? pad : f->align == '^' ? pad / 2 : 0;
	put_fill(b, f, left);
	sb_putn(b, str, bytes);
	put_fill(b, f, pad - left);
	return true;
}

/* ---- numbers ------------------------------------------------------------------------ */

/* CPython's _PyUnicode_InsertThousandsGrouping: digits[0..n) grouped from the
 * right, and zero-padded (zeros grouped too) to at least min_width characters */
static void put_grouped(StrBuf *b, const char *digits, long n, long min_width, char sep, int group)
{
	StrBuf r = {0}; /* built backwards */
	long remaining = n;
	bool first = true;
	for (;;) {
		long len = sep ? group : LONG_MAX;
		long want = remaining > min_width ? remaining : min_width;
		if (want < 1) want = 1;
		if (len > want) len = want;
		long chars = remaining < len ? remaining : len;
		if (!first) sb_putc(&r, sep);
		for (long i = 0; i < chars; i++) sb_putc(&r, digits[remaining - 1 - i]);
		for (long i = chars; i < len; i++) sb_putc(&r, '0');
		first = false;
		remaining -= chars;
		min_width -= len;
		if (remaining <= 0 && min_width <= 0) break;
		min_width -= 1;
	}
	for (size_t i = r.len; i-- > 0;) sb_putc(b, r.s[i]);
	sb_free(&r);
}

/* CPython's calc_number_widths + fill_number: [lpad][sign][prefix][spad]
 * [grouped digits][.][rest][rpad]; body is the magnitude, its first ndigits
 * characters the digits to group */
static void put_number(StrBuf *b, const FmtSpec *f, bool neg, const char *prefix, const char *body, long ndigits)
{
	const char *after = body + ndigits;
	bool dot = *after == '.';
	const char *rest = after + dot;
	char sign = neg ? '-' : f->sign == '+' ? '+' : f->sign == ' ' ? ' ' : 0;
	long other = (sign != 0) + (long)strlen(prefix) + dot + (long)str_length(rest);
	long min_width = !strcmp(f->fill, "0") && f->align == '=' ? f->width - other : 0;
	char sep = f->type == 'n' ? 0 : f->sep;
	StrBuf g = {0};
	if (ndigits) put_grouped(&g, body, ndigits, min_width, sep, f->group);
	long pad = f->width - (other + (long)g.len);
	long lp = 0, sp = 0, rp = 0;
	if (pad > 0) {
		if (f->align == '<') rp = pad;
		else if (f->align == '^') lp = pad / 2, rp = pad - lp;
		else if (f->align == '=') sp = pad;
		else lp = pad;
	}
	put_fill(b, f, lp);
	if (sign) sb_putc(b, sign);
	sb_puts(b, prefix);
	put_fill(b, f, sp);
	if (g.len) sb_putn(b, g.s, g.len);
	if (dot) sb_putc(b, '.');
	sb_puts(b, rest);
	put_fill(b, f, rp);
	sb_free(&g);
}

static bool fmt_int(Sema *s, StrBuf *b, ConstVal c, const FmtSpec *f, const char *tname, SrcLoc loc)
{
	if (f->prec >= 0) return py_value_error(s, loc, "ValueError", "Precision not allowed in integer format specifier", "", "");
	if (f->z) return py_value_error(s, loc, "ValueError", "Negative zero coercion (z) not allowed in integer format specifier", "", "");
	bool neg = !c.u64 && c.i < 0;
	unsigned long long mag = neg ? 0 - (uint64_t)c.i : (uint64_t)c.i;
	char digits[72];
	const char *prefix = "";
	if (f->type == 'c') {
		if (f->sign) return py_value_error(s, loc, "ValueError", "Sign not allowed with integer format specifier 'c'", "", "");
		if (f->alt)
			return py_value_error(s, loc, "ValueError", "Alternate form (#) not allowed with integer format specifier 'c'", "", "");
		if (neg || mag >= 0x110000) return py_value_error(s, loc, "OverflowError", "%%c arg not in range(0x110000)", "", "");
		if (!mag) {
			diag_error(s->d, loc, "format of 0 with 'c': tile's strings cannot hold a NUL character");
			return false;
		}
		*utf8_put(digits, (uint32_t)mag) = 0;
		put_number(b, f, false, "", digits, 1);
		return true;
	}
	if (f->type == 'b') {
		int n = 0;
		char tmp[72];
		do tmp[n++] = (char)('0' + (mag & 1)), mag >>= 1;
		while (mag);
		for (int i = 0; i < n; i++) digits[i] = tmp[n - 1 - i];
		digits[n] = 0;
	} else {
		snprintf(digits, sizeof digits, f->type == 'o' ? "%llo" : f->type == 'x' ? "%llx" : f->type == 'X' ? "%llX" : "%llu", mag);
	}
	if (f->alt && strchr("boxX", f->type))
		prefix = f->type == 'b' ? "0b" : f->type == 'o' ? "0o" : f->type == 'x' ? "0x" : "0X";
	(void)tname;
	put_number(b, f, neg, prefix, digits, (long)strlen(digits));
	return true;
}

/* the magnitude |x| (finite or not) in presentation type t ('e' 'f' 'g' 'r' and
 * their capitals), as PyOS_double_to_string writes it; add_dot0 is the no-type
 * form with a precision ('g' that keeps a '.0' and goes to exponents at p-1) */
static void float_body(StrBuf *o, double x, char t, int prec, bool alt, bool add_dot0)
{
	bool up = t == 'E' || t == 'F' || t == 'G';
	if (!isfinite(x)) {
		sb_puts(o, isnan(x) ? (up ? "NAN" : "nan") : (up ? "INF" : "inf"));
		return;
	}
	char lt = (char)(up ? t + 32 : t);
	if (lt == 'r') {
		char buf[40];
		py_float_repr(x, buf, sizeof buf);
		char *ep = strchr(buf, 'e');
		if (alt && ep && !strchr(buf, '.')) { /* '#' keeps the point: 1.e+16 */
			sb_putn(o, buf, (size_t)(ep - buf));
			sb_putc(o, '.');
			sb_puts(o, ep);
		} else sb_puts(o, buf);
		return;
	}
	if (lt == 'e' || lt == 'f') {
		char fmt[8];
		snprintf(fmt, sizeof fmt, alt ? "%%#.*%c" : "%%.*%c", t);
		sb_printf(o, fmt, prec, x);
		return;
	}
	int p = prec ? prec : 1;
	char e[64];
	snprintf(e, sizeof e, "%.*e", p - 1, x);
	int x10 = atoi(strchr(e, 'e') + 1);
	StrBuf r = {0};
	bool use_exp = x10 < -4 || x10 >= (add_dot0 ? p - 1 : p);
	if (use_exp) sb_printf(&r, alt ? "%#.*e" : "%.*e", p - 1, x);
	else sb_printf(&r, alt ? "%#.*f" : "%.*f", p - 1 - x10, x);
	char *ep = strchr(r.s, 'e');
	size_t mant = ep ? (size_t)(ep - r.s) : r.len;
	if (!alt && memchr(r.s, '.', mant)) { /* drop trailing zeros, then a bare '.' */
		while (mant > 0 && r.s[mant - 1] == '0') mant--;
		if (mant > 0 && r.s[mant - 1] == '.') mant--;
	}
	sb_putn(o, r.s, mant);
	if (add_dot0 && !use_exp && !memchr(r.s, '.', mant)) sb_puts(o, ".0");
	if (ep) sb_puts(o, up ? "E" : "e"), sb_puts(o, ep + 1);
	sb_free(&r);
}

static bool fmt_float(Sema *s, StrBuf *b, double x, const FmtSpec *f, SrcLoc loc)
{
	char t = f->type;
	bool add_dot0 = false, pct = false;
	int def_prec = 6;
	if (!t) {
		t = 'r';
		add_dot0 = true;
		def_prec = 0;
	}
	if (t == 'n') t = 'g';
	if (t == '%') {
		t = 'f';
		x *= 100;
		pct = true;
	}
	int prec = f->prec < 0 ? def_prec : (int)f->prec;
	if (f->prec >= 0 && t == 'r') t = 'g';
	(void)loc;
	(void)s;
	bool neg = signbit(x) && !isnan(x);
	StrBuf m = {0};
	float_body(&m, fabs(x), t, prec, f->alt, add_dot0);
	if (pct) sb_putc(&m, '%');
	if (f->z && neg && isfinite(x)) { /* -0.0 and what rounds to it lose the sign */
		bool zero = true;
		for (const char *q = m.s; *q && *q != 'e' && *q != 'E'; q++) zero &= !(*q >= '1' && *q <= '9');
		neg = !zero;
	}
	long nd = 0;
	while (m.s[nd] >= '0' && m.s[nd] <= '9') nd++;
	put_number(b, f, neg, "", m.s, nd);
	sb_free(&m);
	return true;
}

/* format(v, spec): appends to b; false (with a message) on an error */
static bool format_into(Sema *s, StrBuf *b, Value v, const char *spec, SrcLoc loc)
{
	if (v.kind == V_ERR) return false;
	bool num = v.kind == V_CONST && (v.c.kind == CV_INT || v.c.kind == CV_BOOL || v.c.kind == CV_FLOAT);
	bool str = v.kind == V_CONST && v.c.kind == CV_STR && !v_is_enum_member(v);
	if (!*spec || (!num && !str)) { /* str(v); object.__format__ takes only '' */
		if (*spec) {
			if (v_is_enum_member(v) || v.kind == V_CONST || v.kind == V_DTYPE || v.kind == V_TUPLE || v.kind == V_DICT) {
				Value t = py_str_value(s, v, false, loc); /* an Enum formats as its str() */
				if (t.kind == V_ERR) return false;
				if (v_is_enum_member(v)) return format_into(s, b, t, spec, loc);
				return py_value_error(s, loc, "TypeError", "unsupported format string passed to %s.__format__",
						      v.kind == V_CONST && v.c.kind == CV_NONE ? "NoneType"
						      : v.kind == V_DTYPE ? "dtype" : v.kind == V_DICT ? "dict"
						      : v.list ? "list" : "tuple", "");
			}
			diag_error(s->d, loc, "format needs a constexpr, got %s", v_describe(s, v));
			return false;
		}
		Value t = py_str_value(s, v, false, loc);
		if (t.kind == V_ERR) return false;
		sb_puts(b, t.c.s ? t.c.s : "");
		return true;
	}
	FmtSpec f;
	char def_type = str ? 's' : v.c.kind == CV_FLOAT ? 0 : 'd';
	if (!spec_parse(s, spec, v, def_type, str ? '<' : '>', &f, loc)) return false;
	if (str) return fmt_str(s, b, v.c.s ? v.c.s : "", &f, loc);
	char t[2] = {f.type, 0};
	if (v.c.kind != CV_FLOAT && f.type && strchr("bcdoxXn", f.type)) return fmt_int(s, b, v.c, &f, fmt_type_name(v), loc);
	if (!f.type || strchr("eEfFgGn%", f.type)) {
		if (v.c.kind != CV_FLOAT && !f.type) return fmt_int(s, b, v.c, &f, fmt_type_name(v), loc);
		double x = v.c.kind == CV_FLOAT ? v.c.f : v.c.u64 ? (double)(uint64_t)v.c.i : (double)v.c.i;
		return fmt_float(s, b, x, &f, loc);
	}
	return py_value_error(s, loc, "ValueError", "Unknown format code '%s' for object of type '%s'", t, fmt_type_name(v));
}

static Value take(Sema *s, StrBuf *b, bool ok, SrcLoc loc)
{
	if (ok && b->len > STR_MAX_LEN) {
		diag_error(s->d, loc, "formatting gives more than %d characters", STR_MAX_LEN);
		ok = false;
	}
	Value r = ok ? v_str(arena_strdup(s->a, b->s ? b->s : "")) : v_err();
	sb_free(b);
	return r;
}

Value py_format(Sema *s, Value v, const char *spec, SrcLoc loc)
{
	StrBuf b = {0};
	bool ok = format_into(s, &b, v, spec, loc);
	return take(s, &b, ok, loc);
}

/* format(value, format_spec='') */
static Value b_format(Sema *s, Call *c, int extra)
{
	(void)extra;
	const char *spec = "";
	if (c->has[1]) {
		if (c->a[1].kind == V_ERR) return c->a[1];
		if (!v_is_const(c->a[1], CV_STR)) {
			s->py_errors++;
			diag_error(s->d, c->at[1], "format() argument 2 must be str, not %s (a TypeError in Python)",
				   v_describe(s, c->a[1]));
			return v_err();
		}
		spec = c->a[1].c.s ? c->a[1].c.s : "";
	}
	return py_format(s, c->a[0], spec, c->at[0]);
}

/* ---- str.format ------------------------------------------------------------------------ */

typedef struct FmtArgs {
	const Value *pos;
	int npos;
	const char **kwn;
	const Value *kwv;
	int nkw;
	const Value *map; /* format_map's mapping; NULL for format */
	int auto_ix;      /* the next automatic index; -1 once manual numbering is used */
	bool manual;
} FmtArgs;

static bool fmt_fail(Sema *s, SrcLoc loc, const char *exc, const char *msg, const char *a)
{
	return py_value_error(s, loc, exc, msg, a, "");
}

/* the value a field name [arg_name]("." attr | "[" key "]")* [a, e) names */
static bool field_value(Sema *s, FmtArgs *fa, const char *a, const char *e, Value *out, SrcLoc loc)
{
	const char *q = a;
	while (q < e && *q != '.' && *q != '[') q++;
	char *name = arena_strndup(s->a, a, (size_t)(q - a));
	bool digits = *name != 0;
	for (const char *d = name; *d; d++) digits &= *d >= '0' && *d <= '9';
	if (!*name || digits) {
		long ix;
		if (!*name) {
			if (fa->manual)
				return fmt_fail(s, loc, "ValueError", "cannot switch from manual field specification to automatic field numbering", "");
			ix = fa->auto_ix++;
		} else {
			if (fa->auto_ix > 0)
				return fmt_fail(s, loc, "ValueError", "cannot switch from automatic field numbering to manual field specification", "");
			fa->manual = true;
			ix = strlen(name) > 9 ? LONG_MAX : atol(name);
		}
		if (fa->map) return fmt_fail(s, loc, "ValueError", "Format string contains positional fields", "");
		if (ix >= fa->npos) {
			char n[24];
			snprintf(n, sizeof n, "%ld", ix);
			return fmt_fail(s, loc, "IndexError", "Replacement index %s out of range for positional args tuple", n);
		}
		*out = fa->pos[ix];
	} else {
		bool found = false;
		if (fa->map) found = fa->map->kind == V_DICT && dict_get(*fa->map, v_str(name), out);
		for (int k = 0; !fa->map && k < fa->nkw && !found; k++)
			if (!strcmp(fa->kwn[k], name)) *out = fa->kwv[k], found = true;
		if (!found) return fmt_fail(s, loc, "KeyError", "'%s'", name);
	}
	while (q < e) {
		if (*q == '.') {
			const char *st = ++q;
			while (q < e && *q != '.' && *q != '[') q++;
			if (q == st) return fmt_fail(s, loc, "ValueError", "Empty attribute in format string", "");
			*out = get_attr(s, *out, arena_strndup(s->a, st, (size_t)(q - st)), loc);
		} else if (*q == '[') {
			const char *st = ++q;
			while (q < e && *q != ']') q++;
			if (q >= e) return fmt_fail(s, loc, "ValueError", "Missing ']' in format string", "");
			if (q == st) return fmt_fail(s, loc, "ValueError", "Empty attribute in format string", "");
			char *key = arena_strndup(s->a, st, (size_t)(q - st));
			bool num = true;
			for (const char *d = key; *d; d++) num &= *d >= '0' && *d <= '9';
			Value k = num && strlen(key) < 19 ? v_int(atoll(key)) : v_str(key);
			Value item;
			if (out->kind == V_DICT && dict_get(*out, k, &item)) *out = item;
			else if (out->kind == V_DICT) return fmt_fail(s, loc, "KeyError", "%s", py_str_value(s, k, true, loc).c.s);
			else if (out->kind == V_TUPLE && num && k.c.i < out->n) *out = out->items[k.c.i];
			else if (out->kind == V_TUPLE && num) return fmt_fail(s, loc, "IndexError", "%s index out of range", out->list ? "list" : "tuple");
			else if (out->kind == V_TUPLE) return fmt_fail(s, loc, "TypeError", "%s indices must be integers or slices, not str", out->list ? "list" : "tuple");
			else {
				diag_error(s->d, loc, "format field '[%s]' of %s is not supported", key, v_describe(s, *out));
				return false;
			}
			q++;
			if (q < e && *q != '.' && *q != '[')
				return fmt_fail(s, loc, "ValueError", "Only '.' or '[' may follow ']' in format field specifier", "");
		}
		if (out->kind == V_ERR) return false;
	}
	return true;
}

static bool format_str_into(Sema *s, StrBuf *b, const char *fmt, FmtArgs *fa, int depth, SrcLoc loc);

/* one replacement field, the text between its braces [a, e) */
static bool format_field(Sema *s, StrBuf *b, const char *a, const char *e, FmtArgs *fa, int depth, SrcLoc loc)
{
	const char *q = a;
	for (; q < e && *q != ':' && *q != '!'; q++) {
		if (*q == '{') return fmt_fail(s, loc, "ValueError", "unexpected '{' in field name", "");
		if (*q == '[')
			while (q < e && *q != ']') q++;
		if (q >= e) break;
	}
	Value v;
	if (!field_value(s, fa, a, q, &v, loc)) return false;
	if (q < e && *q == '!') {
		if (q + 1 >= e) return fmt_fail(s, loc, "ValueError", "end of string while looking for conversion specifier", "");
		char conv[2] = {q[1], 0};
		if (q + 2 < e && q[2] != ':') return fmt_fail(s, loc, "ValueError", "expected ':' after conversion specifier", "");
		if (!strchr("rsa", conv[0])) return fmt_fail(s, loc, "ValueError", "Unknown conversion specifier %s", conv);
		v = conv[0] == 'a' ? py_ascii_value(s, v, loc) : py_str_value(s, v, conv[0] != 's', loc);
		if (v.kind == V_ERR) return false;
		q += 2;
	}
	StrBuf spec = {0};
	bool ok = true;
	if (q < e) { /* ':' then the spec, whose own fields are formatted first */
		char *raw = arena_strndup(s->a, q + 1, (size_t)(e - q - 1));
		ok = format_str_into(s, &spec, raw, fa, depth + 1, loc);
	}
	ok = ok && format_into(s, b, v, spec.s ? spec.s : "", loc);
	sb_free(&spec);
	return ok;
}

/* CPython's MarkupIterator: literal text with {{ and }}, and {fields} */
static bool format_str_into(Sema *s, StrBuf *b, const char *fmt, FmtArgs *fa, int depth, SrcLoc loc)
{
	if (depth > 1) return fmt_fail(s, loc, "ValueError", "Max string recursion exceeded", "");
	for (const char *p = fmt; *p; p++) {
		if (*p == '}') {
			if (p[1] != '}') return fmt_fail(s, loc, "ValueError", "Single '}' encountered in format string", "");
			sb_putc(b, *p++);
			continue;
		}
		if (*p != '{') {
			sb_putc(b, *p);
			continue;
		}
		if (p[1] == '{') {
			sb_putc(b, *p++);
			continue;
		}
		if (!p[1]) return fmt_fail(s, loc, "ValueError", "Single '{' encountered in format string", "");
		int nest = 1;
		const char *e = p + 1;
		for (; *e; e++) {
			if (*e == '[') /* a key may hold braces */
				for (; *e && *e != ']'; e++) {}
			if (!*e) break;
			if (*e == '{') nest++;
			else if (*e == '}' && --nest == 0) break;
		}
		if (!*e) return fmt_fail(s, loc, "ValueError", "expected '}' before end of string", "");
		if (!format_field(s, b, p + 1, e, fa, depth, loc)) return false;
		if (b->len > STR_MAX_LEN) break;
		p = e;
	}
	return true;
}

/* S.format(*args, **kwargs), S.format_map(mapping) */
static Value b_str_format(Sema *s, Call *c, int map)
{
	FmtArgs fa = {.pos = c->rest, .npos = c->nrest, .kwn = c->kwn, .kwv = c->kwv, .nkw = c->nkw};
	if (map) {
		if (c->a[1].kind == V_ERR) return c->a[1];
		if (c->a[1].kind != V_DICT) {
			diag_error(s->d, c->at[1], "format_map of %s is not supported (tile's mappings are dicts)", v_describe(s, c->a[1]));
			return v_err();
		}
		fa.pos = NULL, fa.npos = 0, fa.map = &c->a[1];
	}
	for (int i = 0; i < fa.npos; i++)
		if (fa.pos[i].kind == V_ERR) return fa.pos[i];
	for (int i = 0; i < fa.nkw; i++)
		if (fa.kwv[i].kind == V_ERR) return fa.kwv[i];
	StrBuf b = {0};
	bool ok = format_str_into(s, &b, c->a[0].c.s ? c->a[0].c.s : "", &fa, 0, c->loc);
	return take(s, &b, ok, c->loc);
}

const Builtin builtins_format[] = {
    {"format", "value,format_spec=None", b_format, 0, BF_PY},
    {"format", "self,*args,**kwargs", b_str_format, 0, BF_PYSTR},
    {"format_map", "self,mapping", b_str_format, 1, BF_PYSTR},
    {NULL, NULL, NULL, 0, 0},
};

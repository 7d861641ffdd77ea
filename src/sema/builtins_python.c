/* builtins_python.c: the Python builtins kernels and their modules use at
 * compile time (min, max, abs, int, float, len, getattr, isinstance, str,
 * tuple, sum, map, zip, enumerate, sorted, itertools). */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sema/sema_int.h"

/* ---- Python builtins ------------------------------------------------------------------------------ */

/* Python's min/max(*args, key=None, default=...): one iterable or several
 * values; the first least (greatest) by key wins, as Python's `<` (`>`) picks.
 * A tensor among them makes it tl.minimum/tl.maximum, as Triton maps them. */
static Value py_minmax(Sema *s, Call *c, int is_max)
{
	const Value *vals = c->rest;
	int n = c->nrest;
	bool has_key = c->has[1] && !v_is_const(c->a[1], CV_NONE);
	if (c->has[2] && n > 1) {
		s->py_errors++;
		diag_error(s->d, c->at[2], "Cannot specify a default for %s() with multiple positional arguments (a TypeError in Python)", c->name);
		return v_err();
	}
	if (n == 1) {
		Value it = c->rest[0];
		if (it.kind == V_ERR) return it;
		if (it.kind == V_TUPLE || it.kind == V_DICT || v_is_const(it, CV_STR) || c->has[2] || has_key) {
			if (!const_iter_items(s, it, c->rest_at[0], &vals, &n)) return v_err();
			if (n == 0 && c->has[2]) return c->a[2];
			if (n == 0) {
				s->py_errors++;
				diag_error(s->d, c->loc, "%s() arg is an empty sequence (a ValueError in Python)", c->name);
				return v_err();
			}
		}
	}
	if (n == 0) {
		diag_error(s->d, c->loc, "'%s' expects at least 1 argument, got 0", c->name);
		return v_err();
	}
	Value best = vals[0], best_key = best;
	for (int i = 0; i < n; i++) {
		if (vals[i].kind == V_ERR) return v_err();
		Value key = has_key ? call_value(s, c->fn, c->a[1], &vals[i], 1, NULL, NULL, 0, c->loc, &c->at[1], NULL) : vals[i];
		if (key.kind == V_ERR) return key;
		if (i == 0) {
			best_key = key;
			continue;
		}
		if (!has_key && (vals[i].kind == V_TENSOR || best.kind == V_TENSOR)) {
			/* Triton maps the builtin min/max to tl.minimum/tl.maximum */
			best = best_key = make_minmax(s, is_max, best, vals[i], false, c->loc);
			if (best.kind == V_ERR) return best;
			continue;
		}
		Value lt = is_max ? binop(s, OP_LT, best_key, key, c->loc) : binop(s, OP_LT, key, best_key, c->loc);
		if (lt.kind == V_ERR) return lt;
		if (!v_is_intlike(lt)) {
			diag_error(s->d, c->loc, "'%s' needs constexpr keys to compare, got %s", c->name, v_describe(s, lt));
			return v_err();
		}
		if (lt.c.i) best = vals[i], best_key = key;
	}
	return best;
}

static Value b_py_min(Sema *s, Call *c, int extra) { return py_minmax(s, c, extra); }

static Value b_py_abs(Sema *s, Call *c, int extra)
{
	(void)extra;
	Value v = c->a[0];
	if (v.kind == V_CONST && (v.c.kind == CV_INT || v.c.kind == CV_BOOL)) {
		/* a uint64 value (u64) is never negative; abs(-2**63) is 2**63, a uint64 */
		if (v.c.u64 || v.c.i >= 0) return v.c.kind == CV_BOOL ? v_int(v.c.i) : v;
		return const_unop(s, OP_NEG, v, c->loc);
	}
	if (v.kind == V_CONST && v.c.kind == CV_FLOAT) return v_float(fabs(v.c.f));
	int id = builtin_find("abs", BF_TL);
	return builtin_get(id)->fn(s, c, builtin_get(id)->extra);
}

/* bin(n) / oct(n) / hex(n) (extra: bits per digit 1, 3, 4) of a constexpr integer, with
 * Python's prefix and sign: bin(-5) is '-0b101' */
static Value b_py_radix(Sema *s, Call *c, int extra)
{
	Value v = c->a[0];
	if (v.kind == V_ERR) return v;
	if (!v_is_intlike(v)) {
		diag_error(s->d, c->at[0], "'%s' needs a constexpr integer, got %s", c->name, v_describe(s, v));
		return v_err();
	}
	bool neg = !v.c.u64 && v.c.i < 0;
	uint64_t m = neg ? (uint64_t)0 - (uint64_t)v.c.i : (uint64_t)v.c.i;
	char digits[72], *d = digits + sizeof digits;
	*--d = 0;
	do {
		*--d = "0123456789abcdef"[m & ((1u << extra) - 1)];
		m >>= extra;
	} while (m);
	return v_str(arena_printf(s->a, "%s0%c%s", neg ? "-" : "", extra == 1 ? 'b' : extra == 3 ? 'o' : 'x', d));
}

/* int(text, base) as Python reads it: whitespace around, a sign, digits of
 * the base with single '_' between them; base 0 takes 0x / 0o / 0b prefixes
 * (and refuses leading zeros). A ValueError otherwise; past int64 (uint64
 * for a positive value) an error. */
static Value int_of_str(Sema *s, Call *c, const char *text, int64_t base)
{
	const char *p = text, *end = text + strlen(text);
	while (p < end && strchr(" \t\n\r\v\f", *p)) p++;
	while (end > p && strchr(" \t\n\r\v\f", end[-1])) end--;
	bool neg = p < end && *p == '-';
	if (p < end && (*p == '-' || *p == '+')) p++;
	int b = (int)base;
	if ((b == 0 || b == 16 || b == 8 || b == 2) && end - p > 2 && p[0] == '0') {
		int pb = (p[1] | 32) == 'x' ? 16 : (p[1] | 32) == 'o' ? 8 : (p[1] | 32) == 'b' ? 2 : 0;
		if (pb && (b == 0 || b == pb)) {
			b = pb;
			p += 2;
			if (p < end && *p == '_') p++; /* 0x_ff */
		}
	}
	bool zero_lead = b == 0 && p < end && *p == '0';
	if (b == 0) b = 10;
	uint64_t m = 0;
	bool ok = p < end, over = false, nonzero = false;
	for (const char *q = p; q < end && ok; q++) {
		if (*q == '_' && q > p && q + 1 < end && q[1] != '_') continue;
		int d = *q >= '0' && *q <= '9' ? *q - '0' : (*q | 32) >= 'a' && (*q | 32) <= 'z' ? (*q | 32) - 'a' + 10 : 99;
		ok = d < b;
		nonzero |= d > 0 && ok;
		if (ok && m > (UINT64_MAX - (uint64_t)d) / (uint64_t)b) over = true;
		m = m * (uint64_t)b + (uint64_t)d;
	}
	if (!ok || (zero_lead && nonzero)) {
		s->py_errors++;
		diag_error(s->d, c->at[0], "invalid literal for int() with base %d: %s (a ValueError in Python)", (int)base,
			   py_repr_str(s, text).c.s);
		return v_err();
	}
	if (over || (neg && m > (uint64_t)INT64_MAX + 1)) {
		diag_error(s->d, c->at[0], "int(%s) is outside [-2**63, 2**64)", py_repr_str(s, text).c.s);
		return v_err();
	}
	if (neg) return v_int((int64_t)(0 - m));
	return m > (uint64_t)INT64_MAX ? v_uint64(m) : v_int((int64_t)m);
}

/* Whether p[0..n) is word in any case. */
static bool word_is(const char *p, size_t n, const char *word)
{
	if (strlen(word) != n) return false;
	for (size_t i = 0; i < n; i++)
		if (tolower((unsigned char)p[i]) != word[i]) return false;
	return true;
}

/* float(text) as Python reads it: whitespace around, a sign, then inf,
 * infinity or nan in any case, or decimal digits (single '_' between two
 * digits) with a point and an exponent. A ValueError otherwise: strtod alone
 * took hex ("0x10" was 16.0) and "nan(...)", and refused " 1.5" and "1_0". */
static Value float_of_str(Sema *s, Call *c, const char *text)
{
	const char *p = text, *end = text + strlen(text);
	while (p < end && strchr(" \t\n\r\v\f", *p)) p++;
	while (end > p && strchr(" \t\n\r\v\f", end[-1])) end--;
	const char *num = p;
	if (p < end && (*p == '-' || *p == '+')) p++;
	size_t n = (size_t)(end - p);
	char *buf = arena_alloc(s->a, (size_t)(end - num) + 1), *w = buf;
	bool ok = n > 0;
	if (word_is(p, n, "inf") || word_is(p, n, "infinity") || word_is(p, n, "nan")) {
		double v = (p[0] | 32) == 'n' ? NAN : INFINITY;
		return v_float(num < p && *num == '-' && !isnan(v) ? -v : v); /* float("-nan") is nan */
	}
	for (const char *q = num; q < end && ok; q++) {
		bool digit = *q >= '0' && *q <= '9';
		if (*q == '_')
			ok = q > num && q[-1] >= '0' && q[-1] <= '9' && q + 1 < end && q[1] >= '0' && q[1] <= '9';
		else if (digit || strchr("+-.eE", *q))
			*w++ = *q;
		else
			ok = false;
	}
	*w = 0;
	char *stop;
	double d = ok ? strtod(buf, &stop) : 0;
	if (!ok || stop == buf || *stop) {
		s->py_errors++;
		diag_error(s->d, c->at[0], "could not convert string to float: %s (a ValueError in Python)",
			   py_repr_str(s, text).c.s);
		return v_err();
	}
	return v_float(d);
}

static Value b_py_conv(Sema *s, Call *c, int extra)
{
	Value v = c->a[0];
	if (v.kind == V_ERR) return v;
	if (extra == 0 && (v_is_const(v, CV_STR) || (c->has[1] && !v_is_none(c->a[1])))) { /* int("12"), int("ff", 16) */
		int64_t base = 10;
		if (c->has[1] && !v_is_none(c->a[1]) && !arg_const_int(s, c, 1, &base)) return v_err();
		if (!v_is_const(v, CV_STR) || base == 1 || base < 0 || base > 36) {
			s->py_errors++;
			diag_error(s->d, c->loc, v_is_const(v, CV_STR) ? "int() base must be >= 2 and <= 36, or 0 (a ValueError in Python)"
								       : "int() can't convert non-string with explicit base (a TypeError in Python)");
			return v_err();
		}
		return int_of_str(s, c, v.c.s ? v.c.s : "", base);
	}
	if (v.kind == V_CONST && v.c.kind == CV_STR && extra == 1) return float_of_str(s, c, v.c.s ? v.c.s : "");
	if (v.kind != V_CONST || v.c.kind == CV_STR || v.c.kind == CV_NONE || v.c.kind == CV_DTYPE) {
		if (extra == 2 && v.kind != V_TENSOR) return v_bool(value_truthy(v));
		diag_error(s->d, c->at[0], "'%s' needs a constexpr number, got %s", c->name, v_describe(s, v));
		return v_err();
	}
	double f = const_as_double(v.c);
	switch (extra) {
	case 0:
		if (v.c.kind == CV_INT) return v; /* 2**63 stays 2**63 */
		if (v.c.kind != CV_FLOAT) return v_int(v.c.i);
		if (!isfinite(f)) {
			diag_error(s->d, c->at[0], "cannot convert %g to int", f);
			return v_err();
		}
		Value r;
		if (!v_int_of_double(trunc(f), &r)) {
			diag_error(s->d, c->at[0], "int(%g) is outside [-2**63, 2**64)", f);
			return v_err();
		}
		return r;
	case 1: return v_float(f);
	default: return v_bool(const_truthy(v.c));
	}
}

static Value b_len(Sema *s, Call *c, int extra)
{
	(void)extra;
	Value v = c->a[0];
	if (v.kind == V_MODULE && enum_class_items(s, v.mod, &v) && v.kind == V_ERR) return v; /* len(Act) */
	if (enum_flag_items(s, v, &v)) return v_int(v.n); /* len(Perm.R | Perm.W) */
	if ((v.kind == V_TUPLE || v.kind == V_DICT) && !v_is_enum_member(v)) return v_int(v.n);
	if (v.kind == V_CONST && v.c.kind == CV_STR) return v_int(str_length(v.c.s)); /* code points */
	if (v.kind == V_TENSOR && v.ty.rank) return v_int(v.ty.shape[0]);
	if (v.kind != V_ERR) diag_error(s->d, c->at[0], "'len' of %s", v_describe(s, v));
	return v_err();
}

/* getattr(obj, name): Python's, with a constexpr name (test_libdevice's
 * getattr(libdevice, fn)(x)); the default form would need a lookup that fails
 * quietly, which tile does not have. */
static Value b_getattr(Sema *s, Call *c, int extra)
{
	(void)extra;
	const char *name = arg_str(s, c, 1);
	if (!name) return v_err();
	if (c->a[0].kind == V_ERR) return v_err();
	Value v;
	if (c->has[2]) /* getattr(obj, name, default): the default where obj has no such attribute */
		return attr_quiet(s, c->a[0], istr(s, name), c->at[1], &v) ? v : c->a[2];
	return get_attr(s, c->a[0], istr(s, name), c->at[1]);
}

/* tuple(it) / list(it): a constexpr iterable to a tuple (lists are tuples here). */
static Value b_py_tuple(Sema *s, Call *c, int extra)
{
	(void)extra;
	Value r = v_tuple(s, NULL, 0);
	if (c->has[0] && c->a[0].kind == V_TUPLE) { /* its items may be runtime values */
		r = c->a[0];
	} else if (c->has[0]) {
		const Value *items;
		int n;
		if (!const_iter_items(s, c->a[0], c->at[0], &items, &n)) return v_err();
		r = v_tuple(s, items, n);
	}
	r.list = extra; /* list(...) */
	r.set = false;
	return r;
}

/* itertools.product(*iterables, repeat=1) and itertools.chain(*iterables)
 * on constexpr sequences: a list of tuples / of items, as Python iterates
 * them (product varies the last iterable fastest). */
static Value b_itertools(Sema *s, Call *c, int chain)
{
	enum { MAX_SEQS = 16 };
	const Value *items[MAX_SEQS];
	int len[MAX_SEQS], nseq = c->nrest;
	int64_t repeat = 1;
	if (!chain && c->has[1] && !v_is_const(c->a[1], CV_NONE)) { /* slot 0 is *args */
		if (!v_is_const(c->a[1], CV_INT) || c->a[1].c.i < 0 || c->a[1].c.i > MAX_SEQS) {
			diag_error(s->d, c->at[1], "itertools.product: repeat must be a constexpr int from 0 to %d", MAX_SEQS);
			return v_err();
		}
		repeat = c->a[1].c.i;
	}
	if (nseq * repeat > MAX_SEQS) {
		diag_error(s->d, c->loc, "%s of more than %d sequences", c->name, MAX_SEQS);
		return v_err();
	}
	for (int i = 0; i < nseq; i++)
		if (!const_iter_items(s, c->rest[i], c->rest_at[i], &items[i], &len[i])) return v_err();
	int64_t total = chain ? 0 : 1;
	for (int r = 0; r < repeat; r++)
		for (int i = 0; i < nseq; i++) {
			total = chain ? total + len[i] : total * len[i];
			if (total > (1 << 20) || !sema_work(s, total, c->loc)) {
				if (total > (1 << 20)) diag_error(s->d, c->loc, "%s: more than 2^20 items", c->name);
				return v_err();
			}
		}
	Value *out = ARENA_NEWN(s->a, Value, (size_t)total + 1);
	if (chain) {
		int64_t k = 0;
		for (int i = 0; i < nseq; i++)
			for (int j = 0; j < len[i]; j++) out[k++] = items[i][j];
		return v_tuple(s, out, (int)total);
	}
	int ns = (int)(nseq * repeat);
	Value tup[MAX_SEQS];
	for (int64_t t = 0; t < total; t++) {
		int64_t rem = t;
		for (int d = ns - 1; d >= 0; d--) { /* the last sequence varies fastest */
			int i = d % (nseq ? nseq : 1);
			tup[d] = items[i][rem % len[i]];
			rem /= len[i];
		}
		out[t] = v_tuple(s, tup, ns);
	}
	return v_tuple(s, out, (int)total);
}

/* sum(iterable, start=0) on constexprs: Python's left fold with +. */
static Value b_py_sum(Sema *s, Call *c, int extra)
{
	(void)extra;
	const Value *items;
	int n;
	if (!const_iter_items(s, c->a[0], c->at[0], &items, &n)) return v_err();
	Value acc = c->has[1] ? c->a[1] : v_int(0);
	for (int i = 0; i < n && acc.kind != V_ERR; i++) {
		if (acc.kind != V_CONST || items[i].kind != V_CONST) {
			diag_error(s->d, c->at[0], "'sum' needs constexpr numbers, got %s",
				   v_describe(s, acc.kind != V_CONST ? acc : items[i]));
			return v_err();
		}
		acc = const_binop(s, OP_ADD, acc, items[i], c->loc);
	}
	return acc;
}

/* The truth of what a filter/sorted key function returned, which must be known
 * at compile time. */
static bool py_fn_truth(Sema *s, Call *c, Value t, bool *out)
{
	if (t.kind == V_ERR) return false;
	if (t.kind == V_TENSOR || t.kind == V_BLOCKPTR) {
		diag_error(s->d, c->loc, "'%s': the function must return a constexpr, got %s", c->name, v_describe(s, t));
		return false;
	}
	*out = value_truthy(t);
	return true;
}

/* filter(function, iterable) on a constexpr sequence: the items for which the
 * function (None: the item itself) is true, as a list. */
static Value b_py_filter(Sema *s, Call *c, int extra)
{
	(void)extra;
	const Value *items;
	int n;
	if (!const_iter_items(s, c->a[1], c->at[1], &items, &n)) return v_err();
	Value *out = ARENA_NEWN(s->a, Value, (size_t)n + 1);
	int k = 0;
	bool ident = v_is_const(c->a[0], CV_NONE);
	for (int i = 0; i < n; i++) {
		Value t = ident ? items[i] : call_value(s, c->fn, c->a[0], &items[i], 1, NULL, NULL, 0, c->loc, &c->at[1], NULL);
		bool keep;
		if (!py_fn_truth(s, c, t, &keep)) return v_err();
		if (keep) out[k++] = items[i];
	}
	return v_tuple(s, out, k);
}

/* map(function, *iterables) and zip(*iterables) on constexpr sequences: as many
 * items as the shortest sequence has, each the function of the items at that
 * position (zip: their tuple), as a list. */
static Value b_py_mapzip(Sema *s, Call *c, int is_zip)
{
	enum { MAX_SEQS = BMAX_ARGS };
	const Value *items[MAX_SEQS];
	int nseq = c->nrest, n = INT32_MAX;
	if (!is_zip && nseq == 0) {
		diag_error(s->d, c->loc, "'map' needs at least one iterable");
		return v_err();
	}
	if (nseq > MAX_SEQS) {
		diag_error(s->d, c->loc, "'%s' of more than %d sequences", c->name, MAX_SEQS);
		return v_err();
	}
	for (int i = 0; i < nseq; i++) {
		int len;
		if (!const_iter_items(s, c->rest[i], c->rest_at[i], &items[i], &len)) return v_err();
		if (len < n) n = len;
	}
	if (nseq == 0) n = 0;
	bool strict = false;
	if (is_zip && c->has[1] && !arg_bool(s, c, 1, &strict)) return v_err();
	for (int i = 1; strict && i < nseq; i++) { /* zip(strict=True): equal lengths, as Python checks */
		const Value *it;
		int len, len0;
		const_iter_items(s, c->rest[0], c->rest_at[0], &it, &len0);
		const_iter_items(s, c->rest[i], c->rest_at[i], &it, &len);
		if (len != len0) {
			s->py_errors++;
			diag_error(s->d, c->rest_at[i], "zip() argument %d is %s than argument%s%s (a ValueError in Python)", i + 1,
				   len > len0 ? "longer" : "shorter", i > 1 ? "s 1-" : " 1", i > 1 ? arena_printf(s->a, "%d", i) : "");
			return v_err();
		}
	}
	Value *out = ARENA_NEWN(s->a, Value, (size_t)n + 1);
	Value row[MAX_SEQS];
	for (int k = 0; k < n; k++) {
		for (int i = 0; i < nseq; i++) row[i] = items[i][k];
		out[k] = is_zip ? v_tuple(s, row, nseq)
				: call_value(s, c->fn, c->a[0], row, nseq, NULL, NULL, 0, c->loc, c->rest_at, NULL);
		if (out[k].kind == V_ERR) return out[k];
	}
	return v_tuple(s, out, n);
}

/* enumerate(iterable, start=0): (index, item) tuples, as a list */
static Value b_py_enumerate(Sema *s, Call *c, int extra)
{
	(void)extra;
	const Value *items;
	int n;
	if (!const_iter_items(s, c->a[0], c->at[0], &items, &n)) return v_err();
	int64_t start = 0;
	if (c->has[1]) {
		if (!v_is_intlike(c->a[1])) {
			diag_error(s->d, c->at[1], "'enumerate': start must be a constexpr int, got %s", v_describe(s, c->a[1]));
			return v_err();
		}
		start = c->a[1].c.i;
	}
	Value *out = ARENA_NEWN(s->a, Value, (size_t)n + 1);
	for (int i = 0; i < n; i++) {
		Value pair[2] = {v_int(start + i), items[i]};
		out[i] = v_tuple(s, pair, 2);
	}
	return v_tuple(s, out, n);
}

/* reversed(sequence), as a list */
static Value b_py_reversed(Sema *s, Call *c, int extra)
{
	(void)extra;
	const Value *items;
	int n;
	if (!const_iter_items(s, c->a[0], c->at[0], &items, &n)) return v_err();
	Value *out = ARENA_NEWN(s->a, Value, (size_t)n + 1);
	for (int i = 0; i < n; i++) out[i] = items[n - 1 - i];
	return v_tuple(s, out, n);
}

/* sorted(iterable, key=None, reverse=False) on constexprs: a stable sort by `<`
 * of the items (or of key(item)), as Python's. */
static Value b_py_sorted(Sema *s, Call *c, int extra)
{
	(void)extra;
	const Value *items;
	int n;
	if (!const_iter_items(s, c->a[0], c->at[0], &items, &n)) return v_err();
	bool has_key = c->has[1] && !v_is_const(c->a[1], CV_NONE), rev = false;
	if (c->has[2] && !py_fn_truth(s, c, c->a[2], &rev)) return v_err();
	if (!sema_work(s, (int64_t)n * n, c->loc)) return v_err();
	Value *out = ARENA_NEWN(s->a, Value, (size_t)n + 1), *keys = ARENA_NEWN(s->a, Value, (size_t)n + 1);
	for (int i = 0; i < n; i++) {
		Value key = has_key ? call_value(s, c->fn, c->a[1], &items[i], 1, NULL, NULL, 0, c->loc, &c->at[0], NULL) : items[i];
		if (key.kind == V_ERR) return key;
		/* insertion: after every item it is not less than (reverse: not greater
		 * than), which keeps equal items in their order */
		int j = i;
		for (; j > 0; j--) {
			Value lt = rev ? binop(s, OP_LT, keys[j - 1], key, c->loc) : binop(s, OP_LT, key, keys[j - 1], c->loc);
			bool before;
			if (!py_fn_truth(s, c, lt, &before)) return v_err();
			if (!before) break;
			out[j] = out[j - 1];
			keys[j] = keys[j - 1];
		}
		out[j] = items[i];
		keys[j] = key;
	}
	Value r = v_tuple(s, out, n);
	r.list = true; /* sorted() gives a list */
	return r;
}

/* any(it) / all(it) on constexprs. */
static Value b_py_anyall(Sema *s, Call *c, int extra)
{
	const Value *items;
	int n;
	if (!const_iter_items(s, c->a[0], c->at[0], &items, &n)) return v_err();
	for (int i = 0; i < n; i++) {
		bool t = value_truthy(items[i]);
		if (t == (extra == 0)) return v_bool(extra == 0);
	}
	return v_bool(extra != 0);
}

/* isinstance(x, T) for the classes a kernel can name: Python's int, float,
 * bool, str, tuple, list and tl.tensor, tl.constexpr, tl.dtype, tl.block_type, tl.pointer_type,
 * tl.tensor_descriptor (tl.tensor_descriptor_base), torch.Tensor; T may be a
 * tuple of them. */
static int isinstance_one(Sema *s, Value x, Value t, SrcLoc loc)
{
	if (t.kind == V_MODULE && class_aggregate(s, t.mod)) /* an @aggregate class, or one derived from it */
		return x.kind == V_AGG && class_derives(s, x.mod, t.mod);
	if (t.kind == V_MODULE && enum_class_kind(s, t.mod) != ENUM_NONE) /* isinstance(ACT, Act) */
		return v_is_enum_member(x) && x.mod && class_derives(s, x.mod, t.mod);
	if (t.kind == V_NS && t.ns >= NS_ENUM_ENUM && t.ns <= NS_ENUM_STRENUM) { /* enum.Enum, IntEnum, ... */
		int k = !v_is_enum_member(x) ? ENUM_NONE : x.mod ? enum_class_kind(s, x.mod) : ENUM_PLAIN;
		switch (t.ns) {
		case NS_ENUM_ENUM: return k != ENUM_NONE;
		case NS_ENUM_INTENUM: return k == ENUM_INT || k == ENUM_INTFLAG;
		case NS_ENUM_FLAG: return k == ENUM_FLAG || k == ENUM_INTFLAG;
		case NS_ENUM_INTFLAG: return k == ENUM_INTFLAG;
		default: return k == ENUM_STR;
		}
	}
	if (t.kind != V_BUILTIN || t.self) {
		diag_error(s->d, loc, "the second argument of isinstance must be a class or a tuple of classes, got %s",
			   v_describe(s, t));
		return -1;
	}
	const char *n = builtin_get(t.builtin)->name;
	if (x.kind == V_RTARG) {
		/* a heuristic's runtime argument: the launcher passes a Python number
		 * for a scalar and the tensor for a pointer */
		DType dt = x.ty.dt;
		if (!strcmp(n, "int")) return dt != DT_PTR && dtype_is_int(dt);
		if (!strcmp(n, "bool")) return dt == DT_I1;
		if (!strcmp(n, "float")) return dtype_is_float(dt);
		if (!strcmp(n, "Tensor")) return dt == DT_PTR;
		return 0;
	}
	bool cst = x.kind == V_CONST;
	if (!strcmp(n, "int")) return cst && (x.c.kind == CV_INT || x.c.kind == CV_BOOL);
	if (!strcmp(n, "float")) return cst && x.c.kind == CV_FLOAT;
	if (!strcmp(n, "bool")) return cst && x.c.kind == CV_BOOL;
	if (!strcmp(n, "str")) return cst && x.c.kind == CV_STR;
	if (!strcmp(n, "tuple") || !strcmp(n, "list")) return x.kind == V_TUPLE;
	if (!strcmp(n, "constexpr")) return cst || (v_is_enum_member(x) && x.ns == ENUM_WRAPPED);
	if (!strcmp(n, "dtype")) return x.kind == V_DTYPE || (cst && x.c.kind == CV_DTYPE);
	/* Triton's dtype subclasses: x.type of a block, a pointer dtype */
	if (!strcmp(n, "block_type")) return x.kind == V_DTYPE && x.n > 0;
	if (!strcmp(n, "pointer_type")) return x.kind == V_DTYPE && x.n == 0 && x.ty.dt == DT_PTR;
	if (!strcmp(n, "tensor")) return x.kind == V_TENSOR || (x.kind == V_BLOCKPTR && !x.bp->desc);
	if (!strcmp(n, "tensor_descriptor") || !strcmp(n, "tensor_descriptor_base"))
		return x.kind == V_BLOCKPTR && x.bp->desc;
	if (!strcmp(n, "constexpr_type")) return v_is_pyobj(x, CONSTEXPR_TYPE_OBJ);
	if (!strcmp(n, "slice")) return v_is_pyobj(x, SLICE_OBJ);
	if (!strcmp(n, "tuple_type")) return v_is_pyobj(x, TUPLE_TYPE_OBJ);
	if (!strcmp(n, "Tensor")) return 0; /* a kernel's own values are tl.tensors */
	diag_error(s->d, loc, "isinstance with '%s' is not supported", builtin_display(s, t.builtin));
	return -1;
}

static Value b_isinstance(Sema *s, Call *c, int extra)
{
	(void)extra;
	Value x = c->a[0], t = c->a[1];
	if (x.kind == V_ERR || t.kind == V_ERR) return v_err();
	const Value *cls = t.kind == V_TUPLE ? t.items : &t;
	int n = t.kind == V_TUPLE ? t.n : 1;
	bool any = false;
	for (int i = 0; i < n; i++) {
		int r = isinstance_one(s, x, cls[i], c->at[1]);
		if (r < 0) return v_err();
		any |= r;
	}
	return v_bool(any);
}

/* str(x) of a constexpr */
/* whether tuple or dict v holds only compile-time values (keys too): 1, or 0;
 * -1 when it has more than *budget items in all, counted as its text will be
 * (a tuple sharing its items, t = (t, t) 60 times, has 2^60: the walk took
 * forever) */
static int all_const(Value v, int64_t *budget)
{
	for (int i = 0; i < v.n; i++) {
		Value x = v.items[i];
		if (--*budget < 0) return -1;
		if (v.kind == V_DICT && v.keys[i].kind != V_CONST) return 0;
		int r = x.kind == V_TUPLE || x.kind == V_DICT ? all_const(x, budget) : x.kind == V_CONST || x.kind == V_DTYPE;
		if (r <= 0) return r;
	}
	return 1;
}

/* str(v) (repr false) or repr(v) of a constexpr; repr of a dtype is Triton's
 * `triton.language.fp32` */
Value py_str_value(Sema *s, Value v, bool repr, SrcLoc loc)
{
	if (v.kind == V_ERR) return v;
	/* str(): SIGNEDNESS.SIGNED (an IntEnum's: its int); repr(): <SIGNEDNESS.SIGNED: 0> */
	if (v_is_enum_member(v)) return v_str(enum_member_str(s, v, repr));
	const char *obj = pytype_str(s, v, loc); /* constexpr_type[4], slice(0, 8, None) */
	if (obj) return v_str(obj);
	if (v.kind == V_CONST && v.c.kind == CV_STR) /* str('x') is 'x', unquoted */
		return repr ? py_repr_str(s, v.c.s ? v.c.s : "") : v;
	int64_t budget = STR_MAX_LEN; /* each item prints a character or more */
	int ac = v.kind == V_TUPLE || v.kind == V_DICT ? all_const(v, &budget) : 0;
	if (ac < 0) {
		diag_error(s->d, loc, "'%s' gives more than %d characters", repr ? "repr" : "str", STR_MAX_LEN);
		return v_err();
	}
	if (ac) /* str([1, 'a']) is its repr */
		return py_repr_whole(s, v, repr ? "repr" : "str", loc);
	if (repr && v.kind == V_DTYPE && v.ty.dt != DT_PTR && v.n == 0) { /* a block type's repr is its str */
		Value n = py_str_value(s, v, false, loc);
		return n.kind == V_ERR ? n : v_str(arena_printf(s->a, "triton.language.%s", n.c.s));
	}
	char buf[256];
	/* a dtype's str() is Triton's name, which tl.dtype() takes back */
	if (v.kind == V_DTYPE) return v_str(dtype_value_name(s, v));
	if (v.kind == V_CONST) const_str(v.c, buf, sizeof buf);
	else {
		diag_error(s->d, loc, "'%s' needs a constexpr, got %s", repr ? "repr" : "str", v_describe(s, v));
		return v_err();
	}
	return v_str(arena_strdup(s->a, buf));
}

static Value b_py_str(Sema *s, Call *c, int extra) { return py_str_value(s, c->a[0], extra, c->at[0]); }

/* tl.tensor, tl.dtype, tl.tensor_descriptor, torch.Tensor: classes for isinstance, not callable */
static Value b_class(Sema *s, Call *c, int extra)
{
	(void)extra;
	diag_error(s->d, c->loc, "'%s' is a class for isinstance and cannot be called in a kernel", c->name);
	return v_err();
}

/* tl.dtype("uint32"): the dtype of one of Triton's names (int1 ... uint64, fp8e4nv,
 * fp8e5, fp16, bf16, fp32, fp64); otherwise a class for isinstance */
static Value b_dtype(Sema *s, Call *c, int extra)
{
	if (c->nrest != 1 || c->rest[0].kind != V_CONST || c->rest[0].c.kind != CV_STR) return b_class(s, c, extra);
	const char *n = c->rest[0].c.s ? c->rest[0].c.s : "";
	for (int d = DT_I1; d < DT_PTR; d++)
		if (!strcmp(n, dtype_is_float((DType)d) ? dtype_short((DType)d) : dtype_name((DType)d)))
			return v_dtype(type_scalar((DType)d));
	/* the dtypes tile only names: dtype('void') is tl.void, dtype('fp8e4b15') tl.float8e4b15 */
	if (!strcmp(n, "void")) return v_foreign_dtype("void");
	if (!strcmp(n, "fp8e4b15") || !strcmp(n, "fp8e4b8") || !strcmp(n, "fp8e5b16"))
		return v_foreign_dtype(arena_printf(s->a, "float8%s", n + 3));
	diag_error(s->d, c->rest_at[0], "tl.dtype: unknown dtype name '%s'", n);
	return v_err();
}

/* staticmethod(f) in a class body (`f2 = staticmethod(f)`): read through the
 * class (`Ops.f2(x)`, how kernels reach it), Python gives f itself */
static Value b_py_staticmethod(Sema *s, Call *c, int extra)
{
	(void)s;
	(void)extra;
	return c->a[0];
}

const Builtin builtins_python[] = {
    {"min", "*args,key=None,default=None", b_py_min, 0, BF_PY},
    {"max", "*args,key=None,default=None", b_py_min, 1, BF_PY},
    {"abs", "x", b_py_abs, 0, BF_PY},
    {"int", "x,base=None", b_py_conv, 0, BF_PY},
    {"float", "x", b_py_conv, 1, BF_PY},
    {"bool", "x", b_py_conv, 2, BF_PY},
    {"len", "x", b_len, 0, BF_PY},
    {"getattr", "object,name,default=None", b_getattr, 0, BF_PY},
    {"bin", "x", b_py_radix, 1, BF_PY},
    {"oct", "x", b_py_radix, 3, BF_PY},
    {"hex", "x", b_py_radix, 4, BF_PY},
    {"isinstance", "x,t", b_isinstance, 0, BF_PY},
    {"str", "object=''", b_py_str, 0, BF_PY},
    {"repr", "obj", b_py_str, 1, BF_PY},
    {"tensor", "*args", b_class, 0, BF_TL},
    {"dtype", "*args", b_dtype, 0, BF_TL},
    {"tensor_descriptor", "*args", b_class, 0, BF_TL},
    {"tensor_descriptor_base", "*args", b_class, 0, BF_TL},
    {"Tensor", "*args", b_class, 0, BF_TORCH},
    {"tuple", "iterable=None", b_py_tuple, 0, BF_PY},
    {"tuple", "args=None,type=None", b_py_tuple, 0, BF_TL}, /* tl.tuple(iterable) */
    {"list", "iterable=None", b_py_tuple, 1, BF_PY},
    {"product", "*args,repeat=None", b_itertools, 0, BF_ITERTOOLS},
    {"chain", "*args", b_itertools, 1, BF_ITERTOOLS},
    {"sum", "iterable,start=0", b_py_sum, 0, BF_PY},
    {"any", "iterable", b_py_anyall, 0, BF_PY},
    {"all", "iterable", b_py_anyall, 1, BF_PY},
    {"filter", "function,iterable", b_py_filter, 0, BF_PY},
    {"map", "function,*iterables", b_py_mapzip, 0, BF_PY},
    {"zip", "*iterables,strict=False", b_py_mapzip, 1, BF_PY},
    {"enumerate", "iterable,start=0", b_py_enumerate, 0, BF_PY},
    {"reversed", "sequence", b_py_reversed, 0, BF_PY},
    {"sorted", "iterable,key=None,reverse=False", b_py_sorted, 0, BF_PY},
    {"staticmethod", "function", b_py_staticmethod, 0, BF_PY},
    {NULL, NULL, NULL, 0, 0},
};

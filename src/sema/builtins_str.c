/* builtins_str.c: Python's str on constexpr strings, in host code and on a
 * kernel's constexprs: the methods (S.upper(), S.split(","), ", ".join(xs),
 * S.find("x"), ...), indexing and slicing, `in`, and repr()'s escaping.
 *
 * Strings are UTF-8 without NUL (the lexer refuses NUL); indices, lengths and
 * what find() returns count code points, as Python's do. Case mapping and the
 * character classes (isdigit, upper, ...) are ASCII's: on a string with other
 * characters they are an error that says so, not a different answer.
 * Errors Python raises (ValueError, TypeError) are reported as such. */
#include <string.h>

#include "sema/sema_int.h"

/* ---- code points ------------------------------------------------------------------ */

/* The byte offset of each code point of str, and strlen(str) after the
 * last: offs[0..n]; returns n. */
static int cp_offsets(Sema *s, const char *str, int32_t **offs)
{
	size_t len = strlen(str);
	int32_t *o = ARENA_NEWN(s->a, int32_t, len + 1);
	int n = 0;
	for (size_t i = 0; i < len; i++)
		if (((unsigned char)str[i] & 0xc0) != 0x80) o[n++] = (int32_t)i;
	o[n] = (int32_t)len;
	*offs = o;
	return n;
}

int64_t str_length(const char *str)
{
	int64_t n = 0;
	for (const unsigned char *p = (const unsigned char *)str; *p; p++) n += (*p & 0xc0) != 0x80;
	return n;
}

static bool is_ascii(const char *str)
{
	for (const unsigned char *p = (const unsigned char *)str; *p; p++)
		if (*p >= 0x80) return false;
	return true;
}

static const char *substr(Sema *s, const char *str, int32_t lo, int32_t hi)
{
	char *r = arena_alloc(s->a, (size_t)(hi - lo) + 1);
	memcpy(r, str + lo, (size_t)(hi - lo));
	r[hi - lo] = 0;
	return r;
}

static Value str_take(Sema *s, StrBuf *b)
{
	Value r = v_str(arena_strdup(s->a, b->s ? b->s : ""));
	sb_free(b);
	return r;
}

/* The same for a string that may outgrow its operands (join, replace,
 * center...): a step per 16 characters, as a concatenation costs, so one
 * made in a loop ("a".center(10**6) 4000 times: 4 GB) stops at the work
 * limit. */
static Value str_take_work(Sema *s, SrcLoc loc, StrBuf *b)
{
	if (sema_work(s, (int64_t)(b->len / 16), loc)) return str_take(s, b);
	sb_free(b);
	return v_err();
}

/* Whether a list of n items may be built at loc: the limit tuple_grow has,
 * and a step per item (str.split of 500k parts took 330 MB). */
static bool items_room(Sema *s, size_t n, SrcLoc loc)
{
	if (n > TUPLE_MAX_ITEMS) {
		s->py_errors++;
		diag_error(s->d, loc, "a list built at compile time grows past %d items", TUPLE_MAX_ITEMS);
		return false;
	}
	return sema_work(s, (int64_t)n, loc);
}

static Value list_of(Sema *s, const Value *items, size_t n, SrcLoc loc)
{
	if (!items_room(s, n, loc)) return v_err();
	Value r = v_tuple(s, items, (int)n);
	r.list = true;
	return r;
}

/* ---- slices ------------------------------------------------------------------------ */

/* Python's slice.indices: start, stop and step (each may be absent) of a
 * sequence of len items to the first index, the step and the count; steps
 * of any size (a huge one takes one item) without overflow. False for a zero step. */
bool slice_indices(int64_t len, const int64_t *start, const int64_t *stop, const int64_t *step, int64_t *first,
		   int64_t *by, int64_t *count)
{
	int64_t st = step ? *step : 1;
	if (st == 0) return false;
	if (st < -INT64_MAX) st = -INT64_MAX; /* so that -st fits */
	int64_t lo = start ? *start : st < 0 ? INT64_MAX : 0;
	int64_t hi = stop ? *stop : st < 0 ? INT64_MIN : INT64_MAX;
	if (lo < 0) {
		lo = lo < -len ? (st < 0 ? -1 : 0) : lo + len;
	} else if (lo >= len) lo = st < 0 ? len - 1 : len;
	if (hi < 0) {
		hi = hi < -len ? (st < 0 ? -1 : 0) : hi + len;
	} else if (hi >= len) hi = st < 0 ? len - 1 : len;
	*count = st < 0 ? (hi < lo ? (lo - hi - 1) / -st + 1 : 0) : (lo < hi ? (hi - lo - 1) / st + 1 : 0);
	*first = lo;
	*by = st;
	return true;
}

/* S[i] and S[a:b:c] (parts absent are NULL), in code points */
Value str_index(Sema *s, const char *str, int64_t i, SrcLoc loc)
{
	int32_t *o;
	int n = cp_offsets(s, str, &o);
	if (i < -(int64_t)n || i >= n) {
		s->py_errors++;
		diag_error(s->d, loc, "string index %lld out of range (length %d; an IndexError in Python)", (long long)i, n);
		return v_err();
	}
	if (i < 0) i += n;
	return v_str(substr(s, str, o[i], o[i + 1]));
}

Value str_slice(Sema *s, const char *str, const int64_t *lo, const int64_t *hi, const int64_t *step, SrcLoc loc)
{
	int32_t *o;
	int n = cp_offsets(s, str, &o);
	int64_t first, by, count;
	if (!slice_indices(n, lo, hi, step, &first, &by, &count)) {
		s->py_errors++;
		diag_error(s->d, loc, "slice step cannot be zero (a ValueError in Python)");
		return v_err();
	}
	StrBuf b = {0};
	for (int64_t k = 0; k < count; k++) { /* k * by stays within the string: no overflow */
		int64_t i = first + k * by;
		sb_putn(&b, str + o[i], (size_t)(o[i + 1] - o[i]));
	}
	return str_take(s, &b);
}

/* ---- repr ---------------------------------------------------------------------------- */

/* repr('x') as Python writes it: single quotes unless the text has one and
 * no double quote; \\, the quote, \t \n \r, other control characters (and
 * DEL, C1 controls, NBSP and the soft hyphen, which Python does not print)
 * as \xNN. */
Value py_repr_str(Sema *s, const char *str)
{
	char qc = strchr(str, '\'') && !strchr(str, '"') ? '"' : '\'';
	StrBuf b = {0};
	sb_putc(&b, qc);
	for (const unsigned char *p = (const unsigned char *)str; *p; p++) {
		unsigned c = *p;
		if (c == 0xc2 && p[1] >= 0x80 && (p[1] < 0xa1 || p[1] == 0xad)) { /* U+0080..U+00A0, U+00AD */
			sb_printf(&b, "\\x%02x", p[1]);
			p++;
		} else if (c == '\\' || c == (unsigned char)qc) sb_printf(&b, "\\%c", c);
		else if (c == '\n') sb_puts(&b, "\\n");
		else if (c == '\t') sb_puts(&b, "\\t");
		else if (c == '\r') sb_puts(&b, "\\r");
		else if (c < 0x20 || c == 0x7f) sb_printf(&b, "\\x%02x", c);
		else sb_putc(&b, (char)c);
	}
	sb_putc(&b, qc);
	return str_take(s, &b);
}

/* ---- `in` ---------------------------------------------------------------------------- */

Value str_contains(Sema *s, Value needle, const char *hay, SrcLoc loc)
{
	if (needle.kind == V_ERR) return needle;
	if (!v_is_const(needle, CV_STR)) {
		s->py_errors++;
		diag_error(s->d, loc, "'in <string>' requires a string as left operand, not %s (a TypeError in Python)",
			   v_describe(s, needle));
		return v_err();
	}
	return v_bool(strstr(hay, needle.c.s) != NULL);
}

/* ---- the methods ---------------------------------------------------------------------- */

static const char *self_str(Call *c) { return c->a[0].c.s ? c->a[0].c.s : ""; }

static bool given(Call *c, int i) { return c->has[i] && !v_is_none(c->a[i]); }

/* the text of argument i, which must be a str */
static const char *str_arg(Sema *s, Call *c, int i)
{
	if (c->a[i].kind == V_ERR) return NULL;
	if (!v_is_const(c->a[i], CV_STR)) {
		s->py_errors++;
		diag_error(s->d, c->at[i], "'%s' argument '%s' must be str, not %s (a TypeError in Python)", c->name,
			   c->pn[i], v_describe(s, c->a[i]));
		return NULL;
	}
	return c->a[i].c.s ? c->a[i].c.s : "";
}

/* an optional int argument (None: absent): *set tells which */
static bool opt_int(Sema *s, Call *c, int i, int64_t *out, bool *set)
{
	*set = given(c, i);
	return !*set || arg_const_int(s, c, i, out);
}

static bool need_ascii(Sema *s, Call *c, const char *str)
{
	if (is_ascii(str)) return true;
	diag_error(s->d, c->loc, "'%s' of a string with non-ASCII characters is not supported (tile's case "
		   "mapping and character classes are ASCII's)", c->name);
	return false;
}

static bool is_lower(int c) { return c >= 'a' && c <= 'z'; }
static bool is_upper(int c) { return c >= 'A' && c <= 'Z'; }
static bool is_digit(int c) { return c >= '0' && c <= '9'; }
static bool is_alpha(int c) { return is_lower(c) || is_upper(c); }
/* str.isspace and split()'s whitespace, ASCII part */
static bool is_space(int c) { return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f); }
static int to_upper(int c) { return is_lower(c) ? c - 32 : c; }
static int to_lower(int c) { return is_upper(c) ? c + 32 : c; }

enum { SC_UPPER, SC_LOWER, SC_SWAP, SC_CAPITALIZE, SC_TITLE };

static Value b_case(Sema *s, Call *c, int op)
{
	const char *str = self_str(c);
	if (!need_ascii(s, c, str)) return v_err();
	char *r = arena_strdup(s->a, str);
	bool prev_cased = false;
	for (size_t i = 0; r[i]; i++) {
		int ch = (unsigned char)r[i];
		switch (op) {
		case SC_UPPER: ch = to_upper(ch); break;
		case SC_LOWER: ch = to_lower(ch); break;
		case SC_SWAP: ch = is_upper(ch) ? to_lower(ch) : to_upper(ch); break;
		case SC_CAPITALIZE: ch = i ? to_lower(ch) : to_upper(ch); break;
		default: /* title: a letter after a letter is lower case */
			ch = prev_cased ? to_lower(ch) : to_upper(ch);
			prev_cased = is_alpha(ch);
		}
		r[i] = (char)ch;
	}
	return v_str(r);
}

enum { SP_DIGIT, SP_ALPHA, SP_ALNUM, SP_SPACE, SP_UPPER, SP_LOWER, SP_ASCII, SP_IDENT };

static Value b_is(Sema *s, Call *c, int op)
{
	const char *str = self_str(c);
	if (op == SP_ASCII) return v_bool(is_ascii(str));
	if (!need_ascii(s, c, str)) return v_err();
	if (!*str) return v_bool(false);
	bool cased = false;
	for (const char *p = str; *p; p++) {
		int ch = (unsigned char)*p;
		bool ok;
		switch (op) {
		case SP_DIGIT: ok = is_digit(ch); break;
		case SP_ALPHA: ok = is_alpha(ch); break;
		case SP_ALNUM: ok = is_alpha(ch) || is_digit(ch); break;
		case SP_SPACE: ok = is_space(ch); break;
		case SP_UPPER: ok = !is_lower(ch), cased |= is_upper(ch); break;
		case SP_LOWER: ok = !is_upper(ch), cased |= is_lower(ch); break;
		default: ok = is_alpha(ch) || ch == '_' || (p != str && is_digit(ch)); break;
		}
		if (!ok) return v_bool(false);
	}
	return v_bool(op == SP_UPPER || op == SP_LOWER ? cased : true);
}

enum { ST_BOTH, ST_LEFT, ST_RIGHT };

/* whether code point str[o[i]..o[i+1]) is one of `chars` (NULL: whitespace) */
static bool strip_this(const char *str, const int32_t *o, int i, const char *chars)
{
	int32_t len = o[i + 1] - o[i];
	if (!chars) return len == 1 && is_space((unsigned char)str[o[i]]);
	for (const char *p = chars; *p;) {
		int32_t l = 1;
		while ((p[l] & 0xc0) == 0x80) l++;
		if (l == len && !memcmp(p, str + o[i], (size_t)l)) return true;
		p += l;
	}
	return false;
}

static Value b_strip(Sema *s, Call *c, int side)
{
	const char *str = self_str(c), *chars = NULL;
	if (given(c, 1) && !(chars = str_arg(s, c, 1))) return v_err();
	int32_t *o;
	int n = cp_offsets(s, str, &o), lo = 0, hi = n;
	while (side != ST_RIGHT && lo < hi && strip_this(str, o, lo, chars)) lo++;
	while (side != ST_LEFT && hi > lo && strip_this(str, o, hi - 1, chars)) hi--;
	return v_str(substr(s, str, o[lo], o[hi]));
}

/* The first needle (nl bytes) in [p, end), or NULL: searches in a loop
 * stay linear (strstr measures the rest of the haystack each time under
 * AddressSanitizer: a split into 65536 parts took minutes). */
static const char *find_in(const char *p, const char *end, const char *needle, size_t nl)
{
	return memmem(p, (size_t)(end - p), needle, nl);
}

/* S.split() / S.rsplit() without a separator: runs of whitespace; extra 1: from the right */
static Value split_ws(Sema *s, const char *str, int64_t maxsplit, bool right, SrcLoc loc)
{
	int32_t len = (int32_t)strlen(str);
	VEC(Value) parts = {0};
	if (!right) {
		int32_t i = 0;
		while (parts.len <= TUPLE_MAX_ITEMS) {
			while (i < len && is_space((unsigned char)str[i])) i++;
			if (i == len) break;
			int32_t j = i;
			if (maxsplit >= 0 && (int64_t)parts.len >= maxsplit) j = len; /* the rest, as it is */
			else while (j < len && !is_space((unsigned char)str[j])) j++;
			vec_push(&parts, v_str(substr(s, str, i, j)));
			i = j;
		}
	} else {
		int32_t j = len;
		while (parts.len <= TUPLE_MAX_ITEMS) {
			while (j > 0 && is_space((unsigned char)str[j - 1])) j--;
			if (j == 0) break;
			int32_t i = j;
			if (maxsplit >= 0 && (int64_t)parts.len >= maxsplit) i = 0; /* the rest, as it is */
			else while (i > 0 && !is_space((unsigned char)str[i - 1])) i--;
			vec_push(&parts, v_str(substr(s, str, i, j)));
			j = i;
		}
		for (size_t k = 0; k < parts.len / 2; k++) { /* back into reading order */
			Value t = parts.data[k];
			parts.data[k] = parts.data[parts.len - 1 - k];
			parts.data[parts.len - 1 - k] = t;
		}
	}
	Value r = list_of(s, parts.data, parts.len, loc);
	vec_free(&parts);
	return r;
}

static Value b_split(Sema *s, Call *c, int right)
{
	const char *str = self_str(c), *sep = NULL;
	int64_t maxsplit = -1;
	bool set;
	if (given(c, 1) && !(sep = str_arg(s, c, 1))) return v_err();
	if (!opt_int(s, c, 2, &maxsplit, &set)) return v_err();
	if (!sep) return split_ws(s, str, maxsplit, right, c->loc);
	size_t sl = strlen(sep), len = strlen(str);
	if (!sl) {
		s->py_errors++;
		diag_error(s->d, c->at[1], "empty separator (a ValueError in Python)");
		return v_err();
	}
	VEC(Value) parts = {0};
	if (!right) {
		const char *p = str, *q, *e = str + len;
		while ((maxsplit < 0 || (int64_t)parts.len < maxsplit) && parts.len <= TUPLE_MAX_ITEMS &&
		       (q = find_in(p, e, sep, sl))) {
			vec_push(&parts, v_str(substr(s, p, 0, (int32_t)(q - p))));
			p = q + sl;
		}
		vec_push(&parts, v_str(p));
	} else {
		size_t end = len; /* search backwards for sep ending at or before end */
		while ((maxsplit < 0 || (int64_t)parts.len < maxsplit) && parts.len <= TUPLE_MAX_ITEMS) {
			size_t at = end + 1;
			for (size_t i = end >= sl ? end - sl + 1 : 0; i-- > 0;)
				if (!memcmp(str + i, sep, sl)) {
					at = i;
					break;
				}
			if (at > end) break;
			vec_push(&parts, v_str(substr(s, str, (int32_t)(at + sl), (int32_t)end)));
			end = at;
		}
		vec_push(&parts, v_str(substr(s, str, 0, (int32_t)end)));
		for (size_t k = 0; k < parts.len / 2; k++) {
			Value t = parts.data[k];
			parts.data[k] = parts.data[parts.len - 1 - k];
			parts.data[parts.len - 1 - k] = t;
		}
	}
	Value r = list_of(s, parts.data, parts.len, c->loc);
	vec_free(&parts);
	return r;
}

/* the characters of a string as strings (what iterating over it gives) */
Value str_chars(Sema *s, const char *str, SrcLoc loc)
{
	int32_t *o;
	int n = cp_offsets(s, str, &o);
	/* a list like any other: tuple("a" * 2**20) built a million items (900 MB) */
	if (!items_room(s, (size_t)n, loc)) return v_err();
	Value *items = ARENA_NEWN(s->a, Value, (size_t)n + 1);
	for (int i = 0; i < n; i++) items[i] = v_str(substr(s, str, o[i], o[i + 1]));
	return v_tuple(s, items, n);
}

static Value b_join(Sema *s, Call *c, int extra)
{
	(void)extra;
	const char *sep = self_str(c);
	Value it = c->a[1];
	if (it.kind == V_ERR) return it;
	const Value *items;
	int n;
	if (v_is_const(it, CV_STR)) it = str_chars(s, it.c.s ? it.c.s : "", c->at[1]);
	if (!const_iter_items(s, it, c->at[1], &items, &n)) return v_err();
	StrBuf b = {0};
	for (int i = 0; i < n; i++) {
		if (!v_is_const(items[i], CV_STR)) {
			sb_free(&b);
			s->py_errors++;
			diag_error(s->d, c->at[1], "sequence item %d: expected str instance, %s found (a TypeError in Python)", i,
				   v_describe(s, items[i]));
			return v_err();
		}
		if (i) sb_puts(&b, sep);
		sb_puts(&b, items[i].c.s ? items[i].c.s : "");
		if (b.len > STR_MAX_LEN) {
			sb_free(&b);
			diag_error(s->d, c->loc, "'%s' gives more than %d characters", c->name, STR_MAX_LEN);
			return v_err();
		}
	}
	return str_take_work(s, c->loc, &b);
}

static Value b_replace(Sema *s, Call *c, int extra)
{
	(void)extra;
	const char *str = self_str(c), *old = str_arg(s, c, 1), *rep = old ? str_arg(s, c, 2) : NULL;
	int64_t count = -1;
	bool set;
	if (!rep || !opt_int(s, c, 3, &count, &set)) return v_err();
	size_t ol = strlen(old);
	StrBuf b = {0};
	int64_t done = 0;
	if (!ol) { /* '' matches before each character and at the end */
		int32_t *o;
		int n = cp_offsets(s, str, &o);
		for (int i = 0; i <= n; i++) {
			if (count < 0 || done < count) sb_puts(&b, rep), done++;
			if (i < n) sb_putn(&b, str + o[i], (size_t)(o[i + 1] - o[i]));
			if (b.len > STR_MAX_LEN) break; /* (100k chars).replace('', 100k) was 10 GB */
		}
	} else {
		const char *p = str, *q, *e = str + strlen(str);
		while ((count < 0 || done < count) && (q = find_in(p, e, old, ol))) {
			sb_putn(&b, p, (size_t)(q - p));
			sb_puts(&b, rep);
			p = q + ol;
			done++;
			if (b.len > STR_MAX_LEN) break;
		}
		sb_puts(&b, p);
	}
	if (b.len > STR_MAX_LEN) {
		sb_free(&b);
		diag_error(s->d, c->loc, "'%s' gives more than %d characters", c->name, STR_MAX_LEN);
		return v_err();
	}
	return str_take_work(s, c->loc, &b);
}

/* The byte range [*lo, *hi) of self that start/end (arguments 2 and 3, code
 * points, as a slice takes them) select; false on an error. */
static bool sub_range(Sema *s, Call *c, const int32_t *o, int n, int32_t *lo, int32_t *hi, int *cp_lo)
{
	int64_t a, b, first, by, count;
	bool has_a, has_b;
	if (!opt_int(s, c, 2, &a, &has_a) || !opt_int(s, c, 3, &b, &has_b)) return false;
	slice_indices(n, has_a ? &a : NULL, has_b ? &b : NULL, NULL, &first, &by, &count);
	/* an empty range still has a place (where '' is found) if start <= len */
	int64_t start = has_a ? (a < 0 ? (a + n < 0 ? 0 : a + n) : a) : 0;
	*cp_lo = (int)(count ? first : start > n ? n + 1 : start);
	*lo = count ? o[first] : start > n ? -1 : o[start];
	*hi = count ? o[first + count] : *lo;
	return true;
}

enum { SF_FIND, SF_RFIND, SF_INDEX, SF_RINDEX, SF_COUNT };

/* the code point index of byte offset off */
static int cp_of(const int32_t *o, int n, int32_t off)
{
	int i = 0;
	while (i < n && o[i] < off) i++;
	return i;
}

static Value b_find(Sema *s, Call *c, int op)
{
	const char *str = self_str(c), *sub = str_arg(s, c, 1);
	if (!sub) return v_err();
	int32_t *o, lo, hi;
	int n = cp_offsets(s, str, &o), cp_lo;
	if (!sub_range(s, c, o, n, &lo, &hi, &cp_lo)) return v_err();
	size_t sl = strlen(sub);
	int64_t found = -1, count = 0;
	if (lo >= 0 && (size_t)(hi - lo) >= sl) {
		if (op == SF_COUNT) {
			if (!sl) count = cp_of(o, n, hi) - cp_lo + 1;
			else
				for (int32_t i = lo; i + (int32_t)sl <= hi;)
					if (!memcmp(str + i, sub, sl)) count++, i += (int32_t)sl;
					else i++;
		} else if (op == SF_FIND || op == SF_INDEX) {
			for (int32_t i = lo; i + (int32_t)sl <= hi && found < 0; i++)
				if (!memcmp(str + i, sub, sl) && ((unsigned char)str[i] & 0xc0) != 0x80) found = cp_of(o, n, i);
		} else {
			for (int32_t i = hi - (int32_t)sl; i >= lo && found < 0; i--)
				if (!memcmp(str + i, sub, sl) && ((unsigned char)str[i] & 0xc0) != 0x80) found = cp_of(o, n, i);
		}
	}
	if (op == SF_COUNT) return v_int(count);
	if (found < 0 && (op == SF_INDEX || op == SF_RINDEX)) {
		s->py_errors++;
		diag_error(s->d, c->loc, "substring %s not found (a ValueError in Python)", py_repr_str(s, sub).c.s);
		return v_err();
	}
	return v_int(found);
}

/* S.startswith(prefix or a tuple of them, start, end); extra 1: endswith */
static Value b_startswith(Sema *s, Call *c, int end)
{
	const char *str = self_str(c);
	Value p = c->a[1];
	if (p.kind == V_ERR) return p;
	const Value *cands = p.kind == V_TUPLE ? p.items : &p;
	int nc = p.kind == V_TUPLE ? p.n : 1;
	int32_t *o, lo, hi;
	int n = cp_offsets(s, str, &o), cp_lo;
	if (!sub_range(s, c, o, n, &lo, &hi, &cp_lo)) return v_err();
	for (int i = 0; i < nc; i++) {
		if (!v_is_const(cands[i], CV_STR)) {
			s->py_errors++;
			diag_error(s->d, c->at[1], "%s first arg must be str or a tuple of str, not %s (a TypeError in Python)",
				   c->name, v_describe(s, cands[i]));
			return v_err();
		}
		const char *x = cands[i].c.s ? cands[i].c.s : "";
		size_t xl = strlen(x);
		if (lo < 0 || (size_t)(hi - lo) < xl) continue;
		if (!memcmp(str + (end ? hi - (int32_t)xl : lo), x, xl)) return v_bool(true);
	}
	return v_bool(false);
}

/* S.removeprefix(p) / removesuffix(p) (extra 1) */
static Value b_remove(Sema *s, Call *c, int suffix)
{
	const char *str = self_str(c), *x = str_arg(s, c, 1);
	if (!x) return v_err();
	size_t sl = strlen(str), xl = strlen(x);
	if (xl > sl || memcmp(str + (suffix ? sl - xl : 0), x, xl)) return c->a[0];
	return v_str(suffix ? substr(s, str, 0, (int32_t)(sl - xl)) : str + xl);
}

/* S.partition(sep) / rpartition (extra 1): (before, sep, after) */
static Value b_partition(Sema *s, Call *c, int right)
{
	const char *str = self_str(c), *sep = str_arg(s, c, 1);
	if (!sep) return v_err();
	size_t sl = strlen(sep);
	if (!sl) {
		s->py_errors++;
		diag_error(s->d, c->at[1], "empty separator (a ValueError in Python)");
		return v_err();
	}
	const char *e = str + strlen(str), *at = find_in(str, e, sep, sl);
	for (const char *q = at; right && q; q = find_in(q + 1, e, sep, sl)) at = q;
	Value parts[3];
	if (!at) {
		parts[0] = right ? v_str("") : v_str(str);
		parts[1] = v_str("");
		parts[2] = right ? v_str(str) : v_str("");
	} else {
		parts[0] = v_str(substr(s, str, 0, (int32_t)(at - str)));
		parts[1] = v_str(sep);
		parts[2] = v_str(at + sl);
	}
	return v_tuple(s, parts, 3);
}

enum { SJ_LEFT, SJ_RIGHT, SJ_CENTER, SJ_ZFILL };

/* S.ljust / rjust / center(width, fillchar=None), S.zfill(width) */
static Value b_justify(Sema *s, Call *c, int op)
{
	const char *str = self_str(c), *fill = " ";
	int64_t width;
	if (!arg_const_int(s, c, 1, &width)) return v_err();
	if (op != SJ_ZFILL && c->has[2]) {
		if (!(fill = str_arg(s, c, 2))) return v_err();
		if (str_length(fill) != 1) {
			s->py_errors++;
			diag_error(s->d, c->at[2], "the fill character must be exactly one character long (a TypeError in Python)");
			return v_err();
		}
	}
	int64_t n = str_length(str);
	if (width <= n) return c->a[0];
	if (width > STR_MAX_LEN) {
		diag_error(s->d, c->loc, "'%s' gives more than %d characters", c->name, STR_MAX_LEN);
		return v_err();
	}
	int64_t marg = width - n, left = op == SJ_LEFT ? 0 : op == SJ_CENTER ? marg / 2 + (marg & width & 1) : marg;
	StrBuf b = {0};
	const char *body = str;
	if (op == SJ_ZFILL) {
		fill = "0";
		if (*str == '+' || *str == '-') sb_putc(&b, *str), body++; /* the sign stays in front */
	}
	for (int64_t i = 0; i < left; i++) sb_puts(&b, fill);
	sb_puts(&b, body);
	for (int64_t i = left; i < marg; i++) sb_puts(&b, fill);
	return str_take_work(s, c->loc, &b);
}

/* the length in bytes of a line boundary at p (0 if none): \n \r \r\n \v \f
 * \x1c-\x1e U+0085 U+2028 U+2029, what str.splitlines splits at */
static int line_break(const char *p)
{
	const unsigned char *u = (const unsigned char *)p;
	if (u[0] == '\r') return u[1] == '\n' ? 2 : 1;
	if (u[0] == '\n' || u[0] == '\v' || u[0] == '\f' || (u[0] >= 0x1c && u[0] <= 0x1e)) return 1;
	if (u[0] == 0xc2 && u[1] == 0x85) return 2;
	if (u[0] == 0xe2 && u[1] == 0x80 && (u[2] == 0xa8 || u[2] == 0xa9)) return 3;
	return 0;
}

/* S.splitlines(keepends=False) */
static Value b_splitlines(Sema *s, Call *c, int extra)
{
	(void)extra;
	bool keep = false;
	if (c->has[1] && !arg_bool(s, c, 1, &keep)) return v_err();
	const char *str = self_str(c), *line = str;
	VEC(Value) parts = {0};
	for (const char *p = str; *p;) {
		int n = line_break(p);
		if (!n) {
			p++;
			continue;
		}
		vec_push(&parts, v_str(substr(s, str, (int32_t)(line - str), (int32_t)(p - str + (keep ? n : 0)))));
		p += n;
		line = p;
	}
	if (*line) vec_push(&parts, v_str(line));
	Value r = list_of(s, parts.data, parts.len, c->loc);
	vec_free(&parts);
	return r;
}

/* S.expandtabs(tabsize=8): a tab to the next multiple of tabsize columns, the
 * columns counted in code points from the last \n or \r */
static Value b_expandtabs(Sema *s, Call *c, int extra)
{
	(void)extra;
	int64_t size = 8;
	if (c->has[1] && !arg_const_int(s, c, 1, &size)) return v_err();
	StrBuf b = {0};
	int64_t col = 0;
	for (const char *p = self_str(c); *p; p++) {
		if (*p == '\t') {
			/* checked before the spaces are written: a tabsize of 10**12 wrote
			 * them all first (minutes, gigabytes) */
			int64_t k = size > 0 ? size - col % size : 0;
			if (k > STR_MAX_LEN - (int64_t)b.len) {
				sb_free(&b);
				diag_error(s->d, c->loc, "'%s' gives more than %d characters", c->name, STR_MAX_LEN);
				return v_err();
			}
			for (; k > 0; k--, col++) sb_putc(&b, ' ');
			continue;
		}
		sb_putc(&b, *p);
		if (*p == '\n' || *p == '\r') col = 0;
		else if (((unsigned char)*p & 0xc0) != 0x80) col++;
	}
	return str_take(s, &b);
}

const Builtin builtins_str[] = {
    {"upper", "self", b_case, SC_UPPER, BF_PYSTR},
    {"lower", "self", b_case, SC_LOWER, BF_PYSTR},
    {"casefold", "self", b_case, SC_LOWER, BF_PYSTR},
    {"swapcase", "self", b_case, SC_SWAP, BF_PYSTR},
    {"capitalize", "self", b_case, SC_CAPITALIZE, BF_PYSTR},
    {"title", "self", b_case, SC_TITLE, BF_PYSTR},
    {"isdigit", "self", b_is, SP_DIGIT, BF_PYSTR},
    {"isdecimal", "self", b_is, SP_DIGIT, BF_PYSTR},
    {"isnumeric", "self", b_is, SP_DIGIT, BF_PYSTR},
    {"isalpha", "self", b_is, SP_ALPHA, BF_PYSTR},
    {"isalnum", "self", b_is, SP_ALNUM, BF_PYSTR},
    {"isspace", "self", b_is, SP_SPACE, BF_PYSTR},
    {"isupper", "self", b_is, SP_UPPER, BF_PYSTR},
    {"islower", "self", b_is, SP_LOWER, BF_PYSTR},
    {"isascii", "self", b_is, SP_ASCII, BF_PYSTR},
    {"isidentifier", "self", b_is, SP_IDENT, BF_PYSTR},
    {"strip", "self,chars=None", b_strip, ST_BOTH, BF_PYSTR},
    {"lstrip", "self,chars=None", b_strip, ST_LEFT, BF_PYSTR},
    {"rstrip", "self,chars=None", b_strip, ST_RIGHT, BF_PYSTR},
    {"split", "self,sep=None,maxsplit=-1", b_split, 0, BF_PYSTR},
    {"rsplit", "self,sep=None,maxsplit=-1", b_split, 1, BF_PYSTR},
    {"join", "self,iterable", b_join, 0, BF_PYSTR},
    {"replace", "self,old,new,count=-1", b_replace, 0, BF_PYSTR},
    {"find", "self,sub,start=None,end=None", b_find, SF_FIND, BF_PYSTR},
    {"rfind", "self,sub,start=None,end=None", b_find, SF_RFIND, BF_PYSTR},
    {"index", "self,sub,start=None,end=None", b_find, SF_INDEX, BF_PYSTR},
    {"rindex", "self,sub,start=None,end=None", b_find, SF_RINDEX, BF_PYSTR},
    {"count", "self,sub,start=None,end=None", b_find, SF_COUNT, BF_PYSTR},
    {"startswith", "self,prefix,start=None,end=None", b_startswith, 0, BF_PYSTR},
    {"endswith", "self,suffix,start=None,end=None", b_startswith, 1, BF_PYSTR},
    {"removeprefix", "self,prefix", b_remove, 0, BF_PYSTR},
    {"removesuffix", "self,suffix", b_remove, 1, BF_PYSTR},
    {"partition", "self,sep", b_partition, 0, BF_PYSTR},
    {"rpartition", "self,sep", b_partition, 1, BF_PYSTR},
    {"ljust", "self,width,fillchar=None", b_justify, SJ_LEFT, BF_PYSTR},
    {"rjust", "self,width,fillchar=None", b_justify, SJ_RIGHT, BF_PYSTR},
    {"center", "self,width,fillchar=None", b_justify, SJ_CENTER, BF_PYSTR},
    {"zfill", "self,width", b_justify, SJ_ZFILL, BF_PYSTR},
    {"splitlines", "self,keepends=False", b_splitlines, 0, BF_PYSTR},
    {"expandtabs", "self,tabsize=8", b_expandtabs, 0, BF_PYSTR},
    {NULL, NULL, NULL, 0, 0},
};

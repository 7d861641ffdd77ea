/* inline_array.c: arrays written in an argument (tile run, the REPL's :run),
 * so that trying a kernel needs no .npy file:
 *
 *   zeros(SHAPE[, DTYPE])  ones(SHAPE[, DTYPE])  full(SHAPE, VALUE[, DTYPE])
 *   arange(STOP[, DTYPE])  arange(START, STOP[, DTYPE])
 *   rand(SHAPE[, DTYPE])   uniform in [0, 1)    randn(SHAPE[, DTYPE])  normal
 *   [1, 2, 3]  [[1, 2], [3, 4]]  [0.5, 1]:fp16    a (nested, rectangular) list
 *
 * Numbers are Python literals (py_number: 1_000, 0x1f; 010 is an error).
 * SHAPE is N or (N0, N1, ...); DTYPE a Triton or NumPy name (fp16, tl.bfloat16,
 * int32, u8, bool, fp8e4nv...), also as dtype=DTYPE. Without one: i32 for
 * arange and lists of integers, fp32 otherwise. rand/randn draw from a
 * generator seeded by the parameter's name, so a run repeats exactly.
 * Values are rounded to nearest-even into the dtype; one that does not fit
 * (an integer out of range, a float past an fp8 format's largest) is an error.
 * Values pass through a double: integers past 2^53 are not exact.
 * bf16 and fp8 arrays are stored as same-width unsigned integers viewed as
 * that dtype, as `@file.npy:bf16` does.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "ir/types.h"
#include "util/py_number.h"

enum { MAX_INLINE_BYTES = 1 << 30 }; /* a typo's 10^12 elements stay an error */

typedef struct Parser {
	const char *p; /* where parsing is */
	char *err;
	size_t errlen;
} Parser;

typedef struct Vals {
	double *v;
	size_t n, cap;
	bool any_float;
} Vals;

/* fmt has one %s: what, or where parsing stopped ("at the end" when it ran out). */
static bool fail(Parser *P, const char *fmt, const char *what)
{
	if (what == P->p && !*what) {
		char f[160];
		const char *at = strstr(fmt, " at '%s'");
		snprintf(f, sizeof f, "%.*s at the end%s", at ? (int)(at - fmt) : (int)strlen(fmt), fmt,
		         at ? at + 8 : "");
		snprintf(P->err, P->errlen, f, "");
	} else {
		snprintf(P->err, P->errlen, fmt, what);
	}
	return false;
}

static void skip_space(Parser *P)
{
	while (*P->p == ' ' || *P->p == '\t')
		P->p++;
}

static bool eat(Parser *P, char c)
{
	skip_space(P);
	if (*P->p != c)
		return false;
	P->p++;
	skip_space(P);
	return true;
}

static bool push(Vals *V, double x)
{
	if (V->n == V->cap) {
		size_t cap = V->cap ? 2 * V->cap : 64;
		double *v = realloc(V->v, cap * sizeof *v);
		if (!v)
			return false;
		V->v = v;
		V->cap = cap;
	}
	V->v[V->n++] = x;
	return true;
}

/* A number as Python writes one (1_000, 0x1f, 0o17, 1e-3, also inf, nan, True,
 * False; read by py_number, as tile run reads a scalar); *is_float says whether
 * it was written as a float. 1 when read; 0 when there is no number, for the
 * caller to report; -1 when it is reported (010, an integer past 64 bits). */
static int number(Parser *P, double *out, bool *is_float)
{
	skip_space(P);
	const char *q = P->p, *e = q + (*q == '-' || *q == '+');
	*is_float = false;
	if (strncmp(q, "True", 4) == 0 || strncmp(q, "False", 5) == 0) {
		*out = q[0] == 'T';
		e = q + (q[0] == 'T' ? 4 : 5);
		if (isalnum((unsigned char)*e) || *e == '_' || *e == '.')
			return 0;
		P->p = e;
		return 1;
	}
	/* the literal's extent: letters, digits, '_' and '.', and a sign after a
	 * decimal exponent's e (1e-3; 0x1e-3 is no literal) */
	bool hex = e[0] == '0' && (e[1] == 'x' || e[1] == 'X');
	while (isalnum((unsigned char)*e) || *e == '_' || *e == '.' ||
	       ((*e == '-' || *e == '+') && !hex && (e[-1] == 'e' || e[-1] == 'E')))
		e++;
	char tok[128];
	size_t n = (size_t)(e - q);
	if (!n || n >= sizeof tok)
		return 0;
	memcpy(tok, q, n);
	tok[n] = 0;
	int64_t i;
	uint64_t u;
	double f;
	switch (py_number(tok, &i, &u, &f)) {
	case PYNUM_INT: *out = (double)i; break;
	case PYNUM_U64: *out = (double)u; break;
	case PYNUM_FLOAT:
		*out = f;
		*is_float = true;
		break;
	case PYNUM_BIG:
		fail(P, "the integer %s does not fit in 64 bits", tok);
		return -1;
	case PYNUM_NONE: {
		const char *d = tok + (*tok == '-' || *tok == '+');
		if (d[0] == '0' && isdigit((unsigned char)d[1]) && strspn(d, "0123456789_") == strlen(d))
		{
			fail(P, "%s is no Python literal (a decimal int has no leading zero; 0o for octal)", tok);
			return -1;
		}
		return 0;
	}
	}
	P->p = e;
	return 1;
}

/* A dtype name up to ',' ')' or the end. */
static bool dtype_word(Parser *P, DType *out)
{
	skip_space(P);
	if (strncmp(P->p, "dtype", 5) == 0) {
		const char *q = P->p + 5;
		while (*q == ' ')
			q++;
		if (*q == '=')
			P->p = q + 1;
		skip_space(P);
	}
	const char *q = P->p;
	while (*q && *q != ',' && *q != ')' && *q != ' ')
		q++;
	char word[40];
	size_t n = (size_t)(q - P->p);
	if (!n || n >= sizeof word)
		return fail(P, "expected a dtype at '%s'", P->p);
	memcpy(word, P->p, n);
	word[n] = 0;
	const char *w = word;
	if (strncmp(w, "tl.", 3) == 0)
		w += 3;
	else if (strncmp(w, "np.", 3) == 0)
		w += 3;
	if (!dtype_from_name(w, out) || api_dt_to_dtype(*out) == TILE_DTYPE_UNSPECIFIED)
		return fail(P, "'%s' is not a dtype (fp32, fp16, bf16, i32, u8, bool, fp8e4nv, ...)", word);
	P->p = q;
	return true;
}

/* N or (N0, N1, ...) */
static bool shape(Parser *P, NpyArray *a)
{
	skip_space(P);
	bool paren = eat(P, '(');
	a->ndim = 0;
	do {
		skip_space(P);
		if (paren && *P->p == ')')
			break; /* (4,) */
		const char *at = P->p;
		double n;
		bool f;
		int r = number(P, &n, &f);
		if (r < 0)
			return false;
		if (!r || f || n < 0 || n > 0x1p62)
			return fail(P, "expected a size (an integer >= 0) at '%s'", at);
		if (a->ndim == NPY_MAX_DIMS)
			return fail(P, "more than %s dimensions", "8");
		a->shape[a->ndim++] = (int64_t)n;
	} while (paren && eat(P, ','));
	if (paren && !eat(P, ')'))
		return fail(P, "expected ')' closing the shape at '%s'", P->p);
	return true;
}

/* [a, b, ...], nested: every list at one depth has the same length, and
 * numbers sit at one depth only. len[d] is -1 until the first list at depth d
 * ends; *leaf is the depth whose lists hold numbers (-1 until known). */
static bool list(Parser *P, Vals *V, int64_t *len, int *leaf, int depth)
{
	if (depth == NPY_MAX_DIMS)
		return fail(P, "lists nested more than %s deep", "8");
	if (!eat(P, '['))
		return fail(P, "expected '[' at '%s'", P->p);
	int64_t n = 0;
	bool of_lists = false;
	while (*P->p != ']') {
		if (*P->p == '[') {
			if (n && !of_lists)
				return fail(P, "a list mixes numbers and lists at '%s'", P->p);
			of_lists = true;
			if (!list(P, V, len, leaf, depth + 1))
				return false;
		} else {
			double x;
			bool f;
			if (of_lists || (*leaf >= 0 && *leaf != depth))
				return fail(P, "a list mixes numbers and lists at '%s'", P->p);
			int r = number(P, &x, &f);
			if (r <= 0)
				return r < 0 ? false : fail(P, "expected a number at '%s'", P->p);
			*leaf = depth;
			V->any_float |= f;
			if (!push(V, x))
				return fail(P, "out of memory reading %s", "a list");
		}
		n++;
		if (!eat(P, ','))
			break;
	}
	if (!eat(P, ']'))
		return fail(P, "expected ',' or ']' at '%s'", P->p);
	if (!n && *leaf < 0)
		*leaf = depth; /* [] holds no numbers, but ends the nesting here */
	else if (!n && *leaf != depth)
		return fail(P, "the lists are not rectangular (an empty list at '%s')", P->p);
	if (len[depth] < 0)
		len[depth] = n;
	else if (len[depth] != n)
		return fail(P, "the lists are not rectangular (one of another length before '%s')", P->p);
	return true;
}

/* ---- values into bytes -------------------------------------------------------------- */

/* v rounded to nearest-even into a binary float with eb exponent and mb
 * mantissa bits; fn: no infinity, all-ones mantissa at the top exponent is NaN
 * (float8e4m3fn). *over: v is past the largest finite value. */
static uint32_t minifloat(double v, int eb, int mb, bool fn, bool *over)
{
	uint32_t sign = signbit(v) ? 1u << (eb + mb) : 0, top = (1u << eb) - 1;
	int bias = (1 << (eb - 1)) - 1;
	*over = false;
	if (isnan(v))
		return sign | (top << mb) | ((1u << mb) - 1);
	v = fabs(v);
	if (isinf(v)) {
		*over = fn;
		return sign | (top << mb);
	}
	int e;
	(void)frexp(v, &e);
	e -= 1; /* v = s * 2^e, s in [1, 2) */
	if (v == 0)
		return sign;
	if (e < 1 - bias) { /* subnormal: multiples of 2^(1 - bias - mb) */
		double q = nearbyint(ldexp(v, mb - (1 - bias)));
		return sign | (uint32_t)q; /* q = 2^mb reads as the smallest normal */
	}
	double q = nearbyint(ldexp(v, mb - e));
	if (q == ldexp(1.0, mb + 1)) {
		q = ldexp(1.0, mb);
		e++;
	}
	uint32_t ef = (uint32_t)(e + bias), mant = (uint32_t)q - (1u << mb);
	if (ef > top || (!fn && ef == top) || (fn && ef == top && mant == (1u << mb) - 1)) {
		*over = true;
		return sign | (top << mb) | (fn ? (1u << mb) - 1 : 0);
	}
	return sign | (ef << mb) | mant;
}

static bool store(Parser *P, DType dt, double x, unsigned char *dst)
{
	char num[64];
	bool over = false;
	uint64_t u = 0;
	switch (dt) {
	case DT_F32: {
		float f = (float)x;
		memcpy(dst, &f, 4);
		return true;
	}
	case DT_F64: memcpy(dst, &x, 8); return true;
	case DT_F16: u = minifloat(x, 5, 10, false, &over); over = false; break;
	case DT_BF16: u = minifloat(x, 8, 7, false, &over); over = false; break;
	case DT_F8E4M3: u = minifloat(x, 4, 3, true, &over); break;
	case DT_F8E5M2: u = minifloat(x, 5, 2, false, &over); break;
	case DT_I1: u = x != 0; break;
	default: {
		bool sgn = dtype_is_signed(dt);
		int bits = dtype_bits(dt);
		double lo = sgn ? -ldexp(1.0, bits - 1) : 0, hi = sgn ? ldexp(1.0, bits - 1) : ldexp(1.0, bits);
		if (x != floor(x) || x < lo || x >= hi) {
			snprintf(num, sizeof num, "%.17g", x);
			if (x != floor(x))
				snprintf(P->err, P->errlen, "%s is not a whole number, as %s needs", num,
				         dtype_short(dt));
			else
				snprintf(P->err, P->errlen, "%s is outside the range of %s", num, dtype_short(dt));
			return false;
		}
		u = sgn ? (uint64_t)(int64_t)x : (uint64_t)x;
	}
	}
	if (over) {
		snprintf(num, sizeof num, "%.17g", x);
		snprintf(P->err, P->errlen, "%s does not fit in %s", num, dtype_short(dt));
		return false;
	}
	memcpy(dst, &u, (size_t)dtype_bytes(dt)); /* little-endian hosts, as .npy files */
	return true;
}

/* xorshift64*: reproducible, seeded by the parameter's name */
static double uniform(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return (double)((*s * 0x2545F4914F6CDD1DULL) >> 11) * 0x1.0p-53;
}

static const char *npy_descr(DType dt)
{
	switch (dt) {
	case DT_F16: return "<f2";
	case DT_F32: return "<f4";
	case DT_F64: return "<f8";
	case DT_I8: return "|i1";
	case DT_I16: return "<i2";
	case DT_I32: return "<i4";
	case DT_I64: return "<i8";
	case DT_U8: case DT_F8E4M3: case DT_F8E5M2: return "|u1";
	case DT_U16: case DT_BF16: return "<u2";
	case DT_U32: return "<u4";
	case DT_U64: return "<u8";
	case DT_I1: return "|b1";
	default: return NULL;
	}
}

typedef enum { LIST, ZEROS, ONES, FULL, ARANGE, RAND, RANDN, NKINDS } Kind;

static const char *const constructors[NKINDS] = {
        [ZEROS] = "zeros(", [ONES] = "ones(", [FULL] = "full(", [ARANGE] = "arange(",
        [RAND] = "rand(",   [RANDN] = "randn(",
};

/* The constructor s starts with, or LIST for none */
static Kind constructor_of(const char *s)
{
	for (int k = ZEROS; k < NKINDS; k++)
		if (strncmp(s, constructors[k], strlen(constructors[k])) == 0)
			return (Kind)k;
	return LIST;
}

bool cli_is_inline_array(const char *s) { return s[0] == '[' || constructor_of(s) != LIST; }

int cli_inline_array(const char *name, const char *text, NpyArray *out, tile_dtype *view,
                     char *err, size_t errlen)
{
	Parser P = {text, err, errlen};
	Vals V = {0};
	memset(out, 0, sizeof *out);
	DType dt = DT_F32;
	Kind kind = LIST;
	double fill = 0, start = 0, stop = 0;
	bool ok = true;
	if (text[0] == '[') {
		int64_t len[NPY_MAX_DIMS];
		int leaf = -1;
		for (int d = 0; d < NPY_MAX_DIMS; d++)
			len[d] = -1;
		ok = list(&P, &V, len, &leaf, 0);
		out->ndim = leaf + 1;
		for (int d = 0; ok && d < out->ndim; d++)
			out->shape[d] = len[d] < 0 ? 0 : len[d];
		dt = V.any_float ? DT_F32 : DT_I32;
		if (ok && eat(&P, ':'))
			ok = dtype_word(&P, &dt);
	} else if ((kind = constructor_of(text)) == LIST) {
		ok = fail(&P, "'%s' is no array (zeros(...), [...], ...)", text);
	} else {
		P.p = text + strlen(constructors[kind]);
		if (kind == ARANGE) {
			bool f1 = false, f2 = false;
			double a = 0, b = 0;
			dt = DT_I32;
			int r = number(&P, &a, &f1);
			ok = r > 0 || (r == 0 && fail(&P, "expected a number at '%s'", P.p));
			stop = a;
			const char *after = P.p;
			if (ok && eat(&P, ',')) {
				const char *q = P.p;
				if ((r = number(&P, &b, &f2)) < 0) {
					ok = false;
				} else if (r) {
					start = a;
					stop = b;
				} else {
					P.p = q; /* arange(N, DTYPE) */
				}
				if (ok && P.p != q && eat(&P, ','))
					ok = dtype_word(&P, &dt);
				else if (ok && P.p == q)
					ok = dtype_word(&P, &dt);
			} else {
				P.p = after;
			}
			if (ok && (f1 || f2))
				ok = fail(&P, "arange takes integers: %s", "arange(STOP) or arange(START, STOP)");
			out->ndim = 1;
			/* past 2^53 the count is too large anyway: the size check says so */
			out->shape[0] = stop - start > 0x1p53 ? (int64_t)1 << 53
			                : stop > start      ? (int64_t)(stop - start)
			                                    : 0;
		} else {
			ok = shape(&P, out);
			if (ok && kind == FULL) {
				bool f;
				int r = eat(&P, ',') ? number(&P, &fill, &f) : 0;
				ok = r > 0;
				if (r == 0)
					fail(&P, "full takes a shape and a value: %s", "full(SHAPE, VALUE[, DTYPE])");
			}
			if (ok && eat(&P, ',') && *P.p != ')') /* zeros(8,) as Python takes it */
				ok = dtype_word(&P, &dt);
		}
		if (ok && !eat(&P, ')'))
			ok = fail(&P, "expected ')' at '%s'", P.p);
	}
	skip_space(&P);
	/* `zeros(8, u8):fp8e4nv` reads as a list's `:DTYPE` (or a file's view);
	 * say where a constructor's dtype goes, not only what is left over */
	if (ok && *P.p == ':' && kind != LIST) {
		static const char *const forms[NKINDS] = {
		        [ZEROS] = "zeros(SHAPE, DTYPE)",      [ONES] = "ones(SHAPE, DTYPE)",
		        [FULL] = "full(SHAPE, VALUE, DTYPE)", [ARANGE] = "arange(STOP, DTYPE)",
		        [RAND] = "rand(SHAPE, DTYPE)",        [RANDN] = "randn(SHAPE, DTYPE)"};
		char msg[128];
		snprintf(msg, sizeof msg,
		         "unexpected '%%s' after the array: the dtype goes inside, %s",
		         forms[kind]);
		ok = fail(&P, msg, P.p);
	}
	if (ok && *P.p)
		ok = fail(&P, "unexpected '%s' after the array", P.p);
	int64_t count = 1;
	for (int d = 0; ok && d < out->ndim; d++) {
		if (out->shape[d] && count > MAX_INLINE_BYTES / out->shape[d])
			count = (int64_t)MAX_INLINE_BYTES + 1;
		else
			count *= out->shape[d];
	}
	int esize = dtype_bytes(dt);
	if (ok && count * esize > MAX_INLINE_BYTES) {
		char lim[32];
		snprintf(lim, sizeof lim, "%d MiB", MAX_INLINE_BYTES >> 20);
		ok = fail(&P, "the array is larger than %s", lim);
	}
	const char *descr = ok ? npy_descr(dt) : NULL;
	if (ok && !descr)
		ok = fail(&P, "no array of dtype %s", dtype_short(dt));
	if (ok) {
		snprintf(out->dtype, sizeof out->dtype, "%s", descr);
		out->elem_size = esize;
		out->nbytes = (size_t)(count * esize);
		out->data = calloc(1, out->nbytes ? out->nbytes : 1);
		if (!out->data)
			ok = fail(&P, "cannot allocate %s", "the array");
	}
	if (ok && (kind == RAND || kind == RANDN) && !dtype_is_float(dt))
		ok = fail(&P, "%s makes floats: give a float dtype", kind == RAND ? "rand" : "randn");
	uint64_t seed = 0x9E3779B97F4A7C15ULL;
	for (const char *c = name; *c; c++)
		seed = (seed ^ (unsigned char)*c) * 0x100000001B3ULL;
	for (int64_t i = 0; ok && i < count; i++) {
		double x = 0;
		switch (kind) {
		case LIST: x = V.v[i]; break;
		case ZEROS:
		case NKINDS: x = 0; break;
		case ONES: x = 1; break;
		case FULL: x = fill; break;
		case ARANGE: x = start + (double)i; break;
		case RAND: x = uniform(&seed); break;
		case RANDN: { /* Box-Muller */
			double u1 = uniform(&seed), u2 = uniform(&seed);
			x = sqrt(-2 * log(1 - u1)) * cos(2 * M_PI * u2);
			break;
		}
		}
		ok = store(&P, dt, x, (unsigned char *)out->data + i * esize);
	}
	free(V.v);
	if (!ok) {
		npy_free(out);
		return -1;
	}
	*view = dt == DT_BF16 || dt == DT_F8E4M3 || dt == DT_F8E5M2 ? api_dt_to_dtype(dt)
	                                                             : TILE_DTYPE_UNSPECIFIED;
	return 0;
}

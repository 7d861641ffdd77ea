/* npy.c: NumPy .npy reader and writer. The format: "\x93NUMPY", major and
 * minor version bytes, a little-endian header length (u16 for 1.0, u32 for 2.0
 * and 3.0), an ASCII Python dict literal padded with spaces and ending in '\n'
 * so that the data starts at a multiple of 64 bytes, then the raw data. */
#include "util/npy.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/util.h"

static const char *const dtypes[] = {"<f2", "<f4", "<f8", "<i1", "<i2", "<i4", "<i8",
                                     "<u1", "<u2", "<u4", "<u8", "|b1", "|i1", "|u1"};

static int errf(char *err, size_t errlen, const char *fmt, ...) PRINTF_LIKE(3, 4);
static int errf(char *err, size_t errlen, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

int npy_dtype_size(const char *dtype)
{
	for (size_t i = 0; i < COUNTOF(dtypes); i++)
		if (strcmp(dtype, dtypes[i]) == 0)
			return dtype[2] - '0';
	return 0;
}

int64_t npy_count(const NpyArray *a)
{
	int64_t n = 1;
	for (int i = 0; i < a->ndim; i++)
		n *= a->shape[i];
	return n;
}

/* ---- header parsing ------------------------------------------------------------ */

typedef struct P {
	const char *s, *end;
} P;

static void skip_ws(P *p)
{
	while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r'))
		p->s++;
}

static bool eat(P *p, char c)
{
	skip_ws(p);
	if (p->s < p->end && *p->s == c) {
		p->s++;
		return true;
	}
	return false;
}

/* A quoted string into buf (cap bytes); false if malformed or too long. */
static bool parse_str(P *p, char *buf, size_t cap)
{
	skip_ws(p);
	if (p->s >= p->end || (*p->s != '\'' && *p->s != '"'))
		return false;
	char q = *p->s++;
	size_t n = 0;
	while (p->s < p->end && *p->s != q) {
		if (n + 1 >= cap)
			return false;
		buf[n++] = *p->s++;
	}
	if (p->s >= p->end)
		return false;
	p->s++;
	buf[n] = 0;
	return true;
}

static bool parse_word(P *p, const char *w)
{
	skip_ws(p);
	size_t n = strlen(w);
	if ((size_t)(p->end - p->s) >= n && memcmp(p->s, w, n) == 0) {
		p->s += n;
		return true;
	}
	return false;
}

static int parse_shape(P *p, NpyArray *a, char *err, size_t errlen)
{
	if (!eat(p, '('))
		return errf(err, errlen, "shape is not a tuple");
	a->ndim = 0;
	int64_t total = 1;
	for (;;) {
		if (eat(p, ')'))
			return 0;
		skip_ws(p);
		if (p->s < p->end && *p->s == '-') /* an integer all the same: "non-integer" misled */
			return errf(err, errlen, "shape has a negative dimension");
		if (p->s >= p->end || *p->s < '0' || *p->s > '9')
			return errf(err, errlen, "shape has a non-integer dimension");
		int64_t v = 0;
		while (p->s < p->end && *p->s >= '0' && *p->s <= '9') {
			if (v > (INT64_MAX - 9) / 10)
				return errf(err, errlen, "shape dimension is too large");
			v = v * 10 + (*p->s++ - '0');
		}
		if (p->s < p->end && *p->s == 'L') /* Python 2 longs */
			p->s++;
		if (a->ndim == NPY_MAX_DIMS)
			return errf(err, errlen, "array has more than %d dimensions", NPY_MAX_DIMS);
		if (v && total > INT64_MAX / 16 / v)
			return errf(err, errlen, "array is too large");
		total *= v;
		a->shape[a->ndim++] = v;
		if (!eat(p, ',')) {
			if (eat(p, ')'))
				return 0;
			return errf(err, errlen, "shape tuple is malformed");
		}
	}
}

/* The error for a dtype the reader does not take, with what to do instead. */
static int bad_dtype(const char *d, char *err, size_t errlen)
{
	char le[16];
	snprintf(le, sizeof le, "<%s", d + 1);
	if (d[0] == '>' && npy_dtype_size(le))
		return errf(err, errlen, "its dtype '%s' is big-endian; save it little-endian "
		            "(a.astype('%s'))", d, le);
	if (strcmp(d, "|O") == 0)
		return errf(err, errlen, "it is an object array (Python objects, not numbers); "
		            "save a numeric array");
	return errf(err, errlen, "unsupported dtype '%s' (supported: <f2 <f4 <f8 |i1 <i2 <i4 "
	            "<i8 |u1 <u2 <u4 <u8 |b1; bf16 and fp8 as <u2 and |u1)", d);
}

int npy_parse_header(const char *hdr, size_t len, NpyArray *a, char *err, size_t errlen)
{
	P p = {hdr, hdr + len};
	bool seen_descr = false, seen_order = false, seen_shape = false;
	/* Python's literal_eval refuses NUL; the C string handling below would
	 * stop at it ("'<f4\0junk'" read as '<f4') */
	const char *nul = memchr(hdr, 0, len);
	if (nul)
		return errf(err, errlen, "header has a NUL byte (at offset %zu of the header)",
		            (size_t)(nul - hdr));
	if (!eat(&p, '{'))
		return errf(err, errlen, "header is not a dictionary");
	for (;;) {
		if (eat(&p, '}'))
			break;
		char key[32];
		if (!parse_str(&p, key, sizeof key) || !eat(&p, ':'))
			return errf(err, errlen, "header dictionary is malformed");
		if (strcmp(key, "descr") == 0) {
			char d[16];
			skip_ws(&p);
			if (p.s < p.end && *p.s == '[')
				return errf(err, errlen, "its dtype is a structured one (named fields); save "
				            "each field as an array of its own");
			if (!parse_str(&p, d, sizeof d))
				return errf(err, errlen, "descr is not a simple dtype string");
			if (strcmp(d, "<i1") == 0 || strcmp(d, "<u1") == 0 || strcmp(d, "<b1") == 0 ||
			    strcmp(d, ">i1") == 0 || strcmp(d, ">u1") == 0 || strcmp(d, ">b1") == 0)
				d[0] = '|'; /* one byte has no byte order */
			if (!npy_dtype_size(d))
				return bad_dtype(d, err, errlen);
			strcpy(a->dtype, d);
			a->elem_size = npy_dtype_size(d);
			seen_descr = true;
		} else if (strcmp(key, "fortran_order") == 0) {
			if (parse_word(&p, "True"))
				a->fortran_order = true;
			else if (parse_word(&p, "False"))
				a->fortran_order = false;
			else
				return errf(err, errlen, "fortran_order is not True or False");
			seen_order = true;
		} else if (strcmp(key, "shape") == 0) {
			if (parse_shape(&p, a, err, errlen) < 0)
				return -1;
			seen_shape = true;
		} else {
			return errf(err, errlen, "header has an unknown key '%s'", key);
		}
		if (!eat(&p, ',')) {
			if (eat(&p, '}'))
				break;
			return errf(err, errlen, "header dictionary is malformed");
		}
	}
	skip_ws(&p); /* numpy pads with spaces and ends with '\n'; nothing else may follow */
	if (p.s != p.end)
		return errf(err, errlen, "header has text after its dictionary");
	if (!seen_descr || !seen_order || !seen_shape)
		return errf(err, errlen, "header lacks '%s'",
		            !seen_descr   ? "descr"
		            : !seen_order ? "fortran_order"
		                          : "shape");
	return 0;
}

/* ---- reading ---------------------------------------------------------------------- */

/* Fortran and C order lay an array out alike when at most one dimension is
 * over 1 (or there are no elements): other writers than numpy's np.save mark
 * such arrays fortran_order. */
static bool same_as_c_order(const NpyArray *a)
{
	int big = 0;
	for (int i = 0; i < a->ndim; i++) {
		if (a->shape[i] == 0)
			return true;
		big += a->shape[i] > 1;
	}
	return big <= 1;
}

static int read_fail(FILE *f, NpyArray *out, char *hdr, int r)
{
	if (f)
		fclose(f);
	free(hdr);
	npy_free(out);
	return r;
}

int npy_read(const char *path, NpyArray *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	FILE *f = fopen(path, "rb");
	if (!f)
		return errf(err, errlen, "cannot open %s: %s", path, strerror(errno));
	struct stat st;
	long long fsize = -1; /* known only for regular files */
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode))
		fsize = (long long)st.st_size;
	else if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) /* fopen takes one */
		return read_fail(f, out, NULL, errf(err, errlen, "cannot open %s: %s", path, strerror(EISDIR)));
	unsigned char pre[12];
	if (fread(pre, 1, 8, f) != 8 || memcmp(pre, "\x93NUMPY", 6) != 0)
		return read_fail(f, out, NULL,
		                 errf(err, errlen, "%s is not a .npy file (bad magic)", path));
	int major = pre[6];
	size_t hlen, hstart;
	if (major == 1) {
		if (fread(pre + 8, 1, 2, f) != 2)
			return read_fail(f, out, NULL, errf(err, errlen, "%s is truncated", path));
		hlen = (size_t)pre[8] | (size_t)pre[9] << 8;
		hstart = 10;
	} else if (major == 2 || major == 3) {
		if (fread(pre + 8, 1, 4, f) != 4)
			return read_fail(f, out, NULL, errf(err, errlen, "%s is truncated", path));
		hlen = (size_t)pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 |
		       (size_t)pre[11] << 24;
		hstart = 12;
	} else {
		return read_fail(f, out, NULL,
		                 errf(err, errlen, "%s has unsupported .npy version %d.%d", path,
		                      major, pre[7]));
	}
	if (fsize >= 0 && (long long)(hstart + hlen) > fsize)
		return read_fail(f, out, NULL, errf(err, errlen, "%s is truncated", path));
	char *hdr = malloc(hlen + 1);
	if (!hdr)
		return read_fail(f, out, NULL, errf(err, errlen, "%s: out of memory", path));
	if (fread(hdr, 1, hlen, f) != hlen)
		return read_fail(f, out, hdr, errf(err, errlen, "%s is truncated", path));
	hdr[hlen] = 0;
	char why[160];
	if (npy_parse_header(hdr, hlen, out, why, sizeof why) < 0)
		return read_fail(f, out, hdr,
		                 errf(err, errlen, "%s has a bad header: %s", path, why));
	if (out->fortran_order && same_as_c_order(out))
		out->fortran_order = false; /* 0-d, 1-d, (1, n): the bytes are in C order */
	if (out->fortran_order)
		return read_fail(
		        f, out, hdr,
		        errf(err, errlen, "%s is in Fortran order; save it in C order", path));
	out->nbytes = (size_t)npy_count(out) * (size_t)out->elem_size;
	if (fsize >= 0 && (long long)(hstart + hlen + out->nbytes) > fsize)
		return read_fail(f, out, hdr,
		                 errf(err, errlen, "%s is truncated: its data is %lld bytes short",
		                      path, (long long)(hstart + hlen + out->nbytes) - fsize));
	out->data = malloc(out->nbytes ? out->nbytes : 1);
	if (!out->data)
		return read_fail(f, out, hdr, errf(err, errlen, "%s: out of memory", path));
	if (fread(out->data, 1, out->nbytes, f) != out->nbytes)
		return read_fail(f, out, hdr, errf(err, errlen, "%s is truncated", path));
	/* more data than the shape says: the header is wrong, and the rest would be
	 * dropped without a word (and missing from what --out-dir writes back) */
	if (fgetc(f) != EOF) {
		long long extra = fsize >= 0 ? fsize - (long long)(hstart + hlen + out->nbytes) : -1;
		char what[48] = "data";
		if (extra > 0)
			snprintf(what, sizeof what, "%lld bytes", extra);
		return read_fail(f, out, hdr,
		                 errf(err, errlen, "%s has %s after the %zu bytes its header's shape and dtype describe",
		                      path, what, out->nbytes));
	}
	fclose(f);
	free(hdr);
	return 0;
}

/* ---- writing ------------------------------------------------------------------------ */

int npy_write(const char *path, const NpyArray *a, char *err, size_t errlen)
{
	int esize = npy_dtype_size(a->dtype);
	if (!esize)
		return errf(err, errlen, "cannot write %s: unsupported dtype '%s'", path, a->dtype);
	if (a->ndim < 0 || a->ndim > NPY_MAX_DIMS)
		return errf(err, errlen, "cannot write %s: bad number of dimensions %d", path,
		            a->ndim);
	if (a->fortran_order)
		return errf(err, errlen, "cannot write %s: Fortran order is not supported", path);
	for (int i = 0; i < a->ndim; i++)
		if (a->shape[i] < 0)
			return errf(err, errlen, "cannot write %s: negative dimension", path);
	size_t nbytes = (size_t)npy_count(a) * (size_t)esize;
	if (a->nbytes && a->nbytes != nbytes)
		return errf(err, errlen,
		            "cannot write %s: data is %zu bytes but the shape needs %zu", path,
		            a->nbytes, nbytes);
	char hdr[512];
	int n = snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': False, 'shape': (",
	                 a->dtype);
	for (int i = 0; i < a->ndim; i++)
		n += snprintf(hdr + n, sizeof hdr - (size_t)n, "%s%lld", i ? ", " : "",
		              (long long)a->shape[i]);
	n += snprintf(hdr + n, sizeof hdr - (size_t)n, "%s), }", a->ndim == 1 ? "," : "");
	/* pad with spaces so that 10 + header + '\n' is a multiple of 64 */
	size_t total = ((size_t)n + 10 + 1 + 63) / 64 * 64;
	size_t hlen = total - 10;
	memset(hdr + n, ' ', hlen - 1 - (size_t)n);
	hdr[hlen - 1] = '\n';
	unsigned char pre[10] = {0x93,
	                         'N',
	                         'U',
	                         'M',
	                         'P',
	                         'Y',
	                         1,
	                         0,
	                         (unsigned char)(hlen & 0xff),
	                         (unsigned char)(hlen >> 8)};
	/* written beside it and renamed over it: a failed write (a full disk) leaves
	 * the file as it was, never a truncated array in its place */
	FilePart parts[3] = {{pre, 10}, {hdr, hlen}, {a->data, nbytes}};
	if (write_file_parts(path, parts, 3) != 0)
		return errf(err, errlen, "cannot write %s: %s", path, strerror(errno));
	return 0;
}

void npy_free(NpyArray *a)
{
	free(a->data);
	memset(a, 0, sizeof *a);
}

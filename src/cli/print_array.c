/* print_array.c: an array as NumPy prints it, for `tile run --print` and the
 * REPL's :run: nested brackets, one row per line, and past 1000 elements only
 * the first and last 3 along each axis with "..." between (NumPy's
 * threshold and edgeitems). Elements are read in the dtype the kernel saw
 * (a bf16 or fp8 view of a uint16/uint8 array prints as numbers). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

enum { SUMMARY_THRESHOLD = 1000, EDGE_ITEMS = 3 };

static double f16_value(uint16_t h)
{
	int e = (h >> 10) & 31, m = h & 1023;
	double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
	return h & 0x8000 ? -v : v;
}

/* e4m3fn (no infinities; S.1111.111 is NaN) and e5m2 (IEEE-like) */
static double fp8_value(uint8_t b, bool e4m3)
{
	int mb = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15, emax = e4m3 ? 15 : 31;
	int e = (b >> mb) & emax, m = b & ((1 << mb) - 1);
	double v;
	if (e4m3 && e == 15 && m == 7)
		v = NAN;
	else if (!e4m3 && e == 31)
		v = m ? NAN : INFINITY;
	else
		v = e == 0 ? ldexp(m, 1 - bias - mb) : ldexp(m + (1 << mb), e - bias - mb);
	return b & 0x80 ? -v : v;
}

static void print_elem(FILE *out, const NpyArray *a, tile_dtype view, int64_t i)
{
	const unsigned char *p = (const unsigned char *)a->data + i * a->elem_size;
	uint64_t u = 0;
	for (int k = 0; k < a->elem_size && k < 8; k++)
		u |= (uint64_t)p[k] << (8 * k);
	double f;
	/* the view's dtype decides (a :fp16 view of a uint16 array prints as
	 * halves, not as the integers of the array's own dtype); sizes match */
	switch (view) {
	case TILE_FP8E4M3:
	case TILE_FP8E5M2: f = fp8_value((uint8_t)u, view == TILE_FP8E4M3); goto flt;
	case TILE_FP16: f = f16_value((uint16_t)u); goto flt;
	case TILE_BF16: {
		uint32_t b = (uint32_t)(uint16_t)u << 16;
		float x;
		memcpy(&x, &b, 4);
		f = x;
		goto flt;
	}
	case TILE_FP32: {
		uint32_t b = (uint32_t)u;
		float x;
		memcpy(&x, &b, 4);
		f = x;
		goto flt;
	}
	case TILE_FP64: memcpy(&f, &u, 8); goto flt;
	case TILE_BOOL: fputs(u ? "True" : "False", out); return;
	case TILE_I8:
	case TILE_I16:
	case TILE_I32:
	case TILE_I64: {
		int sh = 64 - 8 * a->elem_size;
		fprintf(out, "%lld", (long long)((int64_t)(u << sh) >> sh));
		return;
	}
	default: fprintf(out, "%llu", (unsigned long long)u); return;
	}
flt:
	if (isnan(f))
		fputs("nan", out);
	else if (isinf(f))
		fputs(f < 0 ? "-inf" : "inf", out);
	else {
		char buf[40];
		snprintf(buf, sizeof buf, "%.*g", view == TILE_FP32 || view == TILE_FP64 ? 8 : 4, f);
		/* "2." as NumPy writes a whole float, so floats never read as ints */
		fprintf(out, "%s%s", buf, strpbrk(buf, ".e") ? "" : ".");
	}
}

/* dimension `dim` of the block starting at element `base`; `indent` is the
 * column after this dimension's opening bracket */
static void print_dim(FILE *out, const NpyArray *a, tile_dtype view, int dim, int64_t base, int64_t stride,
                      bool summarize, int indent)
{
	fputc('[', out);
	int64_t n = a->shape[dim], inner = stride / (n ? n : 1);
	for (int64_t i = 0; i < n; i++) {
		if (summarize && n > 2 * EDGE_ITEMS && i == EDGE_ITEMS) {
			if (dim == a->ndim - 1)
				fputs("..., ", out);
			else
				fprintf(out, "...,\n%*s", indent + 1, "");
			i = n - EDGE_ITEMS - 1;
			continue;
		}
		if (dim == a->ndim - 1)
			print_elem(out, a, view, base + i);
		else
			print_dim(out, a, view, dim + 1, base + i * inner, inner, summarize, indent + 1);
		if (i + 1 < n) {
			if (dim == a->ndim - 1)
				fputs(", ", out);
			else
				fprintf(out, ",\n%*s", indent + 1, "");
		}
	}
	fputc(']', out);
}

void cli_print_array(FILE *out, const char *name, const NpyArray *a, tile_dtype view)
{
	fprintf(out, "%s: %s[", name, tile_dtype_name(view));
	for (int d = 0; d < a->ndim; d++)
		fprintf(out, "%s%lld", d ? ", " : "", (long long)a->shape[d]);
	fputs("]\n", out);
	int64_t count = npy_count(a);
	if (a->ndim == 0) {
		print_elem(out, a, view, 0);
	} else if (count == 0) {
		fputs("[]", out);
	} else {
		print_dim(out, a, view, 0, 0, count, count > SUMMARY_THRESHOLD, 0);
	}
	fputc('\n', out);
}

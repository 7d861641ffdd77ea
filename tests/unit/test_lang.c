/* test_lang.c: language semantics that only running shows, through the
 * public API on the cpu and cuda-emu targets: each test compiles a small
 * kernel from source, runs it, and compares with what Triton computes,
 * written out here in C. (Kernels of kernels/ are in test_kernels.c; what the
 * compiler prints is in tests/golden/.) */
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tile.h"

static int failures, checks;
static const char *target;

static void check(bool ok, const char *what, int line)
{
	checks++;
	if (!ok) {
		fprintf(stderr, "test_lang.c:%d: [%s] %s\n", line, target, what);
		failures++;
	}
}
#define CHECK(cond) check((cond), #cond, __LINE__)

/* TILE_TEST_DUMP_DIR=DIR (tests/lang_nvrtc.sh): each kernel run() compiles
 * on the cpu target is also written to DIR/N.tile (N counts them), and a
 * tab-separated line "N KERNEL SIGNATURE NUM_WARPS LINE" to DIR/list, so a
 * script can compile them all for the NVIDIA targets through nvrtc. */
static int dumped;
static void dump_kernel(const char *src, const char *kernel, const char *sig, const tile_kernel_options *opt,
			int line)
{
	const char *dir = getenv("TILE_TEST_DUMP_DIR");
	if (!dir || !*dir || strcmp(target, "cpu") != 0)
		return;
	char path[512];
	int n = ++dumped;
	snprintf(path, sizeof path, "%s/%d.tile", dir, n);
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(src, f);
		fclose(f);
	}
	snprintf(path, sizeof path, "%s/list", dir);
	f = fopen(path, "a");
	if (f) {
		fprintf(f, "%d\t%s\t%s\t%d\t%d\n", n, kernel, sig, opt && opt->num_warps ? opt->num_warps : 4,
			line);
		fclose(f);
	}
}

/* Compiles `kernel` of `src` with signature `sig` (and options opt, NULL =
 * defaults) and launches it on a 1-D grid; false (after reporting) on any
 * error. */
static bool run(const char *src, const char *kernel, const char *sig, uint32_t grid, const tile_arg *args, size_t n,
		const tile_kernel_options *opt, int line)
{
	dump_kernel(src, kernel, sig, opt, line);
	tile_context_options o = {0};
	o.target = target;
	tile_context *ctx = NULL;
	tile_module *m = NULL;
	tile_kernel *k = NULL;
	bool ok = tile_context_create(&ctx, &o) == TILE_OK && tile_module_load_source(ctx, "t.py", src, strlen(src), &m) == TILE_OK &&
		  tile_kernel_get(m, kernel, sig, opt, &k) == TILE_OK;
	uint32_t g[3] = {grid, 1, 1};
	ok = ok && tile_launch(k, g, args, n, NULL) == TILE_OK;
	if (!ok) {
		fprintf(stderr, "test_lang.c:%d: [%s] %s: %s\n", line, target, kernel, ctx ? tile_errmsg(ctx) : "no context");
		failures++;
	}
	tile_kernel_destroy(k);
	tile_module_destroy(m);
	tile_context_destroy(ctx);
	return ok;
}
#define RUN(src, kernel, sig, grid, args) run(src, kernel, sig, grid, args, sizeof(args) / sizeof(*(args)), NULL, __LINE__)
#define RUN_OPT(src, kernel, sig, grid, args, opt) \
	run(src, kernel, sig, grid, args, sizeof(args) / sizeof(*(args)), opt, __LINE__)

/* ---- `and` / `or` on tiles: elementwise logical and/or of x != 0 ------------------ */

static const char logical_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
	"    offs = tl.arange(0, BLOCK)\n"
	"    a = tl.load(a_ptr + offs, mask=offs < n, other=0)\n"
	"    b = tl.load(b_ptr + offs, mask=offs < n, other=0)\n"
	"    both = a and b\n"
	"    either = (a > 1) or b\n"
	"    row = (offs < 8) and (a > 0)[None, :]\n" /* broadcast [1,B] with [B] */
	"    tl.store(out_ptr + offs, both.to(tl.int32) + 2 * either.to(tl.int32) + 4 * tl.sum(row.to(tl.int32), 0),\n"
	"             mask=offs < n)\n";

static void test_logical(void)
{
	enum { N = 50, B = 64 };
	int32_t a[N], b[N], out[N];
	for (int i = 0; i < N; i++)
		a[i] = (i % 5) - 1, b[i] = (i % 3) * (i % 7 == 0 ? 0 : 2), out[i] = -1;
	tile_arg args[] = {tile_arg_ptr(a, TILE_I32), tile_arg_ptr(b, TILE_I32), tile_arg_ptr(out, TILE_I32),
			   tile_arg_i32(N)};
	if (!RUN(logical_src, "k", "*i32,*i32,*i32,i32,64", 1, args))
		return;
	bool ok = true;
	for (int i = 0; i < N; i++) {
		/* row: [B] with [1, B] broadcasts to [1, B]; its sum over axis 0 is row 0 */
		int both = a[i] != 0 && b[i] != 0, either = a[i] > 1 || b[i] != 0;
		int want = both + 2 * either + 4 * (i < 8 && a[i] > 0);
		ok &= out[i] == want;
	}
	CHECK(ok);
}

/* ---- identifiers beyond ASCII (PEP 3131): kernel, helper, parameters and locals -- */

static const char unicode_names_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def \u03c3_scale(x, \u03b1):\n" /* σ_scale(x, α) */
	"    return x * \u03b1\n"
	"@triton.jit\n"
	"def \u7f29\u653e(x_ptr, \u8f93\u51fa_ptr, n, \u03b1: tl.constexpr, BLOCK: tl.constexpr):\n" /* 缩放(x_ptr, 输出_ptr, ...) */
	"    \u504f\u79fb = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n" /* 偏移 */
	"    tl.device_assert(\u504f\u79fb >= 0)\n"
	"    x\u0663 = tl.load(x_ptr + \u504f\u79fb, mask=\u504f\u79fb < n)\n" /* x٣: a digit beyond ASCII */
	"    tl.store(\u8f93\u51fa_ptr + \u504f\u79fb, \u03c3_scale(x\u0663, \u03b1), mask=\u504f\u79fb < n)\n";

static void test_unicode_names(void)
{
	enum { N = 100 };
	float x[N], out[N + 1];
	for (int i = 0; i < N; i++)
		x[i] = (float)i, out[i] = -1;
	out[N] = -1;
	tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(out, TILE_FP32), tile_arg_i32(N)};
	if (!RUN(unicode_names_src, "\u7f29\u653e", "*fp32,*fp32,i32,0.5,64", 2, args))
		return;
	bool ok = out[N] == -1;
	for (int i = 0; i < N; i++)
		ok &= out[i] == 0.5f * (float)i;
	CHECK(ok);
}

/* ---- argmax / argmin: ties, -inf, NaN, masked edges, along each axis ------------ */

/* Lowered as one compare and two selects per in-thread step where the index
 * order is known (lower_reduce.c arg_combine); Triton's combine elsewhere. */
static const char argmax_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(x_ptr, out_ptr, n, M: tl.constexpr, N: tl.constexpr, TIE: tl.constexpr):\n"
	"    r = tl.arange(0, M)[:, None]\n"
	"    c = tl.arange(0, N)[None, :]\n"
	"    m = (r < M) & (c < n)\n" /* the columns past n are masked */
	"    x = tl.load(x_ptr + r * N + c, mask=m, other=float('-inf'))\n"
	"    y = tl.where(m, x, float('inf'))\n"
	"    tl.store(out_ptr + tl.arange(0, M), tl.argmax(x, 1, tie_break_left=TIE))\n"
	"    tl.store(out_ptr + M + tl.arange(0, N), tl.argmax(x, 0, tie_break_left=TIE))\n"
	"    tl.store(out_ptr + M + N + tl.arange(0, M), tl.argmin(y, 1, tie_break_left=TIE))\n"
	"    tl.store(out_ptr + 2 * M + N + tl.arange(0, N), y.argmin(0, tie_break_left=TIE))\n"
	"    f = tl.reshape(x, (M * N,))\n"
	"    tl.store(out_ptr + 2 * M + 2 * N, tl.argmax(f, 0, tie_break_left=TIE))\n"
	"    tl.store(out_ptr + 2 * M + 2 * N + 1, tl.argmin(tl.reshape(y, (M * N,)), 0, tie_break_left=TIE))\n";

/* The index Triton's argmax (sign 1) or argmin (-1) gives over the n values
 * at x[0], x[step], ...: the extreme value's first index; -1 where a NaN
 * makes it depend on the reduction tree, as in Triton (any index does). */
static int ref_arg(const float *x, int n, int step, int sign)
{
	int best = 0;
	for (int i = 0; i < n; i++) {
		float v = x[i * step];
		if (v != v)
			return -1;
		if (sign * v > sign * x[best * step])
			best = i;
	}
	return best;
}

/* got is right for the n values at x[0], x[step], ...: the reference's index
 * with tie_break_left, else one whose value is the extreme one; with a NaN,
 * any index in range (one of the NaNs when all are). */
static bool arg_ok(const float *x, int n, int step, int sign, bool tie, int32_t got)
{
	if (got < 0 || got >= n)
		return false;
	int want = ref_arg(x, n, step, sign);
	bool all_nan = true;
	for (int i = 0; i < n; i++)
		all_nan &= x[i * step] != x[i * step];
	if (want < 0)
		return !all_nan || x[got * step] != x[got * step];
	return tie ? got == want : x[got * step] == x[want * step];
}

static void test_argmax(void)
{
	enum { M = 16, N = 64, NV = 50 };
	static float x[M * N], lx[M * N], ly[M * N];
	uint32_t seed = 7;
	for (int i = 0; i < M * N; i++) {
		int r = i / N;
		seed = seed * 1103515245u + 12345u;
		x[i] = (float)((seed >> 16) % 4); /* ties everywhere */
		if (r == 3 && (seed >> 8) % 5 == 0)
			x[i] = NAN;
		if (r == 4 || (r == 5 && i % N != 20))
			x[i] = -INFINITY; /* a row of -inf only; one with a single finite value */
		if (r == 6)
			x[i] = NAN;
		if (r == 7)
			x[i] = INFINITY;
	}
	/* what the kernel sees: -inf (argmax) / +inf (argmin) past column NV */
	for (int i = 0; i < M * N; i++) {
		bool in = i % N < NV;
		lx[i] = in ? x[i] : -INFINITY;
		ly[i] = in ? x[i] : INFINITY;
	}
	for (int tie = 1; tie >= 0; tie--) {
		int32_t out[2 * M + 2 * N + 2];
		for (size_t i = 0; i < sizeof out / sizeof *out; i++)
			out[i] = -7;
		tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(out, TILE_I32), tile_arg_i32(NV)};
		if (!RUN(argmax_src, "k", tie ? "*fp32,*i32,i32,16,64,True" : "*fp32,*i32,i32,16,64,False", 1, args))
			return;
		int bad = 0;
		for (int r = 0; r < M; r++) {
			bad += !arg_ok(lx + r * N, N, 1, 1, tie, out[r]);
			bad += !arg_ok(ly + r * N, N, 1, -1, tie, out[M + N + r]);
		}
		for (int c = 0; c < N; c++) {
			bad += !arg_ok(lx + c, M, N, 1, tie, out[M + c]);
			bad += !arg_ok(ly + c, M, N, -1, tie, out[2 * M + N + c]);
		}
		/* rows 3 and 6 hold NaNs: the whole tile's answer is any index */
		bad += out[2 * M + 2 * N] < 0 || out[2 * M + 2 * N] >= M * N;
		bad += out[2 * M + 2 * N + 1] < 0 || out[2 * M + 2 * N + 1] >= M * N;
		/* without them: row 7 (+inf) first for argmax; 0 is the least value */
		if (tie) {
			CHECK(out[4] == 0 && out[5] == 20 && out[7] == 0); /* -inf only: the first; the finite one */
			CHECK(out[M + N + 4] == 0 && out[M + N + 7] == 0);
		}
		CHECK(bad == 0);
	}
	/* without NaN rows, the whole-tile answers are exact */
	for (int i = 0; i < M * N; i++)
		if (x[i] != x[i])
			x[i] = 1.0f;
	int32_t out[2 * M + 2 * N + 2];
	tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(out, TILE_I32), tile_arg_i32(NV)};
	if (!RUN(argmax_src, "k", "*fp32,*i32,i32,16,64,True", 1, args))
		return;
	for (int i = 0; i < M * N; i++) {
		bool in = i % N < NV;
		lx[i] = in ? x[i] : -INFINITY;
		ly[i] = in ? x[i] : INFINITY;
	}
	CHECK(out[2 * M + 2 * N] == ref_arg(lx, M * N, 1, 1));
	CHECK(out[2 * M + 2 * N + 1] == ref_arg(ly, M * N, 1, -1));
}

/* ---- x[None] / x[:, None] on a scalar: a 1-element tile (Triton splats it) -------- */

static const char scalar_index_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(x_ptr, out_ptr, s, BLOCK: tl.constexpr):\n"
	"    pid = tl.program_id(0)\n"
	"    offs = (pid[None] * BLOCK)[:, None] + tl.arange(0, BLOCK)[None, :]\n" /* [1, BLOCK] */
	"    v = tl.load(x_ptr + offs) * s[None][:, None]\n"
	"    tl.store(out_ptr + offs, v + pid[None, None] + pid[:, None])\n"; /* ':' of a scalar: no dim */

static void test_scalar_index(void)
{
	enum { B = 16, G = 3 };
	float x[B * G], out[B * G];
	for (int i = 0; i < B * G; i++)
		x[i] = (float)(i % 7) - 2.5f, out[i] = -1;
	tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(out, TILE_FP32), tile_arg_f32(3.0f)};
	if (!RUN(scalar_index_src, "k", "*fp32,*fp32,fp32,16", G, args))
		return;
	bool ok = true;
	for (int i = 0; i < B * G; i++)
		ok &= out[i] == x[i] * 3.0f + 2.0f * (float)(i / B);
	CHECK(ok);
}

/* ---- a reduction's scalar as a loop bound, an if condition and a while condition --- */

static const char reduce_control_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(x_ptr, out_ptr, BLOCK: tl.constexpr):\n"
	"    pid = tl.program_id(0)\n"
	"    v = tl.load(x_ptr + pid * BLOCK + tl.arange(0, BLOCK))\n"
	"    n = tl.sum(v)\n"
	"    m = tl.max(v * tl.arange(0, BLOCK))\n"
	"    acc = 0\n"
	"    for i in range(max(n - 3, 0), n):\n"
	"        acc += i\n"
	"    if m > 4:\n"
	"        acc += 1000\n"
	"    j = 0\n"
	"    while j < tl.min(v + 2):\n"
	"        j += 1\n"
	"    tl.store(out_ptr + pid, acc + 10000 * j)\n";

static void test_reduce_control(void)
{
	enum { B = 8, G = 5 }; /* a tile smaller than the threads: the reduction stays in shuffles */
	int32_t x[B * G], out[G];
	for (int i = 0; i < B * G; i++)
		x[i] = (i / B == 2) ? 1 : ((i * 7 + i / B) % 3 == 0); /* program 2: all ones */
	tile_arg args[] = {tile_arg_ptr(x, TILE_I32), tile_arg_ptr(out, TILE_I32)};
	if (!RUN(reduce_control_src, "k", "*i32,*i32,8", G, args))
		return;
	bool ok = true;
	for (int g = 0; g < G; g++) {
		int n = 0, m = 0, mn = 1;
		for (int i = 0; i < B; i++) {
			int v = x[g * B + i];
			n += v, m = v && i > m ? i : m, mn = v < mn ? v : mn;
		}
		int acc = 0;
		for (int i = n - 3 > 0 ? n - 3 : 0; i < n; i++)
			acc += i;
		acc += m > 4 ? 1000 : 0;
		ok &= out[g] == acc + 10000 * (mn + 2);
	}
	CHECK(ok);
}

/* ---- tl.sum / tl.cumsum of bools are uint32, as Triton's _pick_sum_dtype (int1 is unsigned) -- */

static const char sum_bool_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(x_ptr, out_ptr, BLOCK: tl.constexpr):\n"
	"    pid = tl.program_id(0)\n"
	"    o = tl.arange(0, BLOCK)\n"
	"    m = tl.load(x_ptr + pid * BLOCK + o) > 0\n"
	"    n = tl.sum(m, 0)\n"
	"    c = tl.cumsum(m, 0)\n"
	"    tl.static_assert(n.dtype == tl.uint32 and c.dtype == tl.uint32)\n"
	"    tl.store(out_ptr + pid * (BLOCK + 1) + o, (c - 1).to(tl.int64))\n"
	"    tl.store(out_ptr + pid * (BLOCK + 1) + BLOCK, (n - 1).to(tl.int64))\n";

static void test_sum_bool(void)
{
	enum { B = 8, G = 2 }; /* program 1: no true at all, so every count - 1 wraps around in uint32 */
	int32_t x[B * G] = {0, 1, 0, 0, 1, 1, 0, 1};
	int64_t out[(B + 1) * G];
	tile_arg args[] = {tile_arg_ptr(x, TILE_I32), tile_arg_ptr(out, TILE_I64)};
	if (!RUN(sum_bool_src, "k", "*i32,*i64,8", G, args))
		return;
	bool ok = true;
	for (int g = 0; g < G; g++) {
		uint32_t c = 0;
		for (int i = 0; i < B; i++) {
			c += x[g * B + i] > 0;
			ok &= out[g * (B + 1) + i] == (int64_t)(uint32_t)(c - 1u);
		}
		ok &= out[g * (B + 1) + B] == (int64_t)(uint32_t)(c - 1u);
	}
	CHECK(ok);
}

/* ---- a value stored through an int1 pointer is x != 0 (Triton's store casts to the
 * pointer's element type, int1, before the byte is written), not x truncated to int8:
 * 0.5, -0.75, NaN and 256 are True (byte 1), 0 and -0.0 False; `other` of an int1 load
 * likewise (0.5 reads as True) ------------------------------------------------------------ */

static const char store_bool_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(x_ptr, i_ptr, m_ptr, b_ptr, c_ptr, d_ptr, BLOCK: tl.constexpr):\n"
	"    o = tl.arange(0, BLOCK)\n"
	"    tl.store(b_ptr + o, tl.load(x_ptr + o))\n"
	"    tl.store(c_ptr + o, tl.load(i_ptr + o))\n"
	"    tl.store(d_ptr + o, 0.5, mask=o < 2)\n"
	"    e = tl.load(m_ptr + o, mask=o < 4, other=0.5)\n"
	"    tl.store(d_ptr + 2 + o, e, mask=o < 6)\n";

static void test_store_bool(void)
{
	enum { B = 8 };
	float x[B] = {-0.75f, 2.5f, 0.5f, -1.5f, 0.0f, -0.0f, 1e-30f, NAN};
	int32_t i[B] = {0, 1, 2, 256, -1, 0, 512, -256};
	uint8_t m[B] = {1, 0, 1, 0, 0, 0, 0, 0}, b[B], c[B], d[B];
	memset(b, 7, sizeof b);
	memset(c, 7, sizeof c);
	memset(d, 7, sizeof d);
	tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(i, TILE_I32), tile_arg_ptr(m, TILE_BOOL),
			   tile_arg_ptr(b, TILE_BOOL), tile_arg_ptr(c, TILE_BOOL), tile_arg_ptr(d, TILE_BOOL)};
	if (!RUN(store_bool_src, "k", "*fp32,*i32,*i1,*i1,*i1,*i1,8", 1, args))
		return;
	static const uint8_t wb[B] = {1, 1, 1, 1, 0, 0, 1, 1}, wc[B] = {0, 1, 1, 1, 1, 0, 1, 1};
	static const uint8_t wd[B] = {1, 1, 1, 0, 1, 0, 1, 1}; /* 0.5 twice, then m[0..3] and other=0.5 twice */
	CHECK(!memcmp(b, wb, B));
	CHECK(!memcmp(c, wc, B));
	CHECK(!memcmp(d, wd, B));
}

static uint16_t half_bits(float f);

/* ---- widening between a load and a store of other layouts -------------------------
 * fp16 loads 8 per thread, fp32 stores 4: the conversion between the two
 * layouts moves the fp16 tile and the cast and arithmetic are redone after
 * it (assign.c's hoist_conversion); masked rows and columns stay untouched. */

static const char widen_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(x_ptr, y_ptr, M, N, s, BM: tl.constexpr, BN: tl.constexpr):\n"
	"    r = tl.program_id(0) * BM + tl.arange(0, BM)\n"
	"    c = tl.arange(0, BN)\n"
	"    m = (r[:, None] < M) & (c[None, :] < N)\n"
	"    x = tl.load(x_ptr + r[:, None] * N + c[None, :], mask=m)\n"
	"    tl.store(y_ptr + r[:, None] * N + c[None, :], x.to(tl.float32) * s - 1.0, mask=m)\n";

static void test_widen_convert(void)
{
	enum { M = 45, N = 48, BM = 32, BN = 64 };
	uint16_t x[M * N];
	float y[M * N];
	for (int i = 0; i < M * N; i++)
		x[i] = half_bits((float)(i % 61) - 30.0f), y[i] = -7.0f;
	tile_arg args[] = {tile_arg_ptr(x, TILE_FP16), tile_arg_ptr(y, TILE_FP32), tile_arg_i32(M), tile_arg_i32(N),
	                   tile_arg_f32(0.5f)};
	tile_kernel_options o = {0};
	o.num_warps = 4;
	if (!RUN_OPT(widen_src, "k", "*fp16:16,*fp32:16,i32,i32:16,fp32,32,64", (M + BM - 1) / BM, args, &o))
		return;
	int bad = 0;
	for (int i = 0; i < M * N; i++)
		bad += y[i] != ((float)(i % 61) - 30.0f) * 0.5f - 1.0f;
	CHECK(bad == 0);
}

/* ---- a per-row load read again in the tile's layout ---------------------------------
 * 32 row values on 128 threads are loaded straight into the rows of the
 * [32, 64] tile's layout instead of converted (assign.c's cheap_load): the
 * mask and `other` must come along. */

static const char row_load_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(x_ptr, d_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):\n"
	"    r = tl.program_id(0) * BM + tl.arange(0, BM)\n"
	"    c = tl.arange(0, BN)\n"
	"    m = (r[:, None] < M) & (c[None, :] < N)\n"
	"    x = tl.load(x_ptr + r[:, None] * N + c[None, :], mask=m, other=0.0)\n"
	"    d = tl.load(d_ptr + r, mask=r < M - 3, other=100.0)\n"
	"    tl.store(y_ptr + r[:, None] * N + c[None, :], x - d[:, None], mask=m)\n";

static void test_row_load(void)
{
	enum { M = 45, N = 48, BM = 32 };
	float x[M * N], d[M], y[M * N];
	for (int i = 0; i < M * N; i++)
		x[i] = (float)(i % 97), y[i] = -7.0f;
	for (int i = 0; i < M; i++)
		d[i] = (float)(3 * i);
	tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(d, TILE_FP32), tile_arg_ptr(y, TILE_FP32),
	                   tile_arg_i32(M), tile_arg_i32(N)};
	tile_kernel_options o = {0};
	o.num_warps = 4;
	if (!RUN_OPT(row_load_src, "k", "*fp32:16,*fp32:16,*fp32:16,i32,i32:16,32,64", (M + BM - 1) / BM, args, &o))
		return;
	int bad = 0;
	for (int i = 0; i < M * N; i++) {
		int row = i / N;
		bad += y[i] != x[i] - (row < M - 3 ? d[row] : 100.0f);
	}
	CHECK(bad == 0);
}

/* ---- atomic_add: every program adds into the same slots -------------------------
 * Groups of consecutive elements may go in one instruction (f16x2 pairs,
 * Hopper's vectors; cuda-emu groups as sm_90a does), each element still
 * atomic on its own: the old values of the G programs must chain from the
 * initial value to the final one in some order. Small integers keep every
 * sum exact in fp16 and bf16. */

static const char atomic_add_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(acc_ptr, x_ptr, old_ptr, n, BLOCK: tl.constexpr):\n"
	"    pid = tl.program_id(0)\n"
	"    o = tl.arange(0, BLOCK)\n"
	"    m = o < n\n"
	"    x = tl.load(x_ptr + pid * BLOCK + o)\n"
	"    old = tl.atomic_add(acc_ptr + o, x, mask=m)\n"
	"    tl.store(old_ptr + pid * BLOCK + o, old, mask=m)\n";

static uint16_t f32_to_bits16(float f, tile_dtype d)
{
	if (d == TILE_FP16)
		return half_bits(f);
	uint32_t u;
	memcpy(&u, &f, 4);
	return (uint16_t)(u >> 16); /* small integers: exact in bf16 */
}

static float bits16_to_f32(uint16_t b, tile_dtype d)
{
	if (d == TILE_FP16) {
		_Float16 h;
		memcpy(&h, &b, 2);
		return (float)h;
	}
	uint32_t u = (uint32_t)b << 16;
	float f;
	memcpy(&f, &u, 4);
	return f;
}

/* Can the G programs' (old, x) steps be ordered so that each starts where
 * the previous ended, from `from` to `to`? */
static bool atomic_chain(const float *old, const float *x, int G, bool *used, float from, float to, int left)
{
	if (!left)
		return from == to;
	for (int g = 0; g < G; g++)
		if (!used[g] && old[g] == from) {
			used[g] = true;
			bool ok = atomic_chain(old, x, G, used, from + x[g], to, left - 1);
			used[g] = false;
			if (ok)
				return true;
		}
	return false;
}

static void test_atomic_add_vector(void)
{
	enum { B = 256, G = 4 };
	static const tile_dtype dts[] = {TILE_FP32, TILE_FP16, TILE_BF16};
	static const char *const names[] = {"fp32", "fp16", "bf16"};
	static const struct {
		int n;
		const char *spec; /* n % 16 == 0 specialized: masks whole groups */
		int warps;
	} cs[] = {{256, ":16", 1}, {240, ":16", 1}, {240, ":16", 4}, {237, "", 1}, {237, "", 2}};
	for (size_t di = 0; di < sizeof dts / sizeof *dts; di++)
		for (size_t ci = 0; ci < sizeof cs / sizeof *cs; ci++) {
			tile_dtype d = dts[di];
			float xf[G * B], init[B], accf[B], oldf[G * B];
			for (int i = 0; i < B; i++)
				init[i] = (float)((i * 5) % 7 - 3);
			for (int i = 0; i < G * B; i++)
				xf[i] = (float)((i * 11 + i / B) % 9 - 4);
			uint16_t xh[G * B], acch[B], oldh[G * B];
			float accs[B], olds[G * B];
			void *acc = d == TILE_FP32 ? (void *)accs : acch, *x = d == TILE_FP32 ? (void *)xf : xh,
			     *old = d == TILE_FP32 ? (void *)olds : oldh;
			for (int i = 0; i < B; i++)
				accs[i] = init[i], acch[i] = f32_to_bits16(init[i], d);
			for (int i = 0; i < G * B; i++)
				xh[i] = f32_to_bits16(xf[i], d), olds[i] = -99.0f, oldh[i] = f32_to_bits16(-99.0f, d);
			char sig[96];
			snprintf(sig, sizeof sig, "*%s:16,*%s:16,*%s:16,i32%s,%d", names[di], names[di], names[di], cs[ci].spec, B);
			tile_arg args[] = {tile_arg_ptr(acc, d), tile_arg_ptr(x, d), tile_arg_ptr(old, d),
			                   tile_arg_i32(cs[ci].n)};
			tile_kernel_options o = {0};
			o.num_warps = cs[ci].warps;
			if (!RUN_OPT(atomic_add_src, "k", sig, G, args, &o))
				continue;
			for (int i = 0; i < B; i++)
				accf[i] = d == TILE_FP32 ? accs[i] : bits16_to_f32(acch[i], d);
			for (int i = 0; i < G * B; i++)
				oldf[i] = d == TILE_FP32 ? olds[i] : bits16_to_f32(oldh[i], d);
			int bad = 0;
			for (int i = 0; i < B; i++) {
				float want = init[i];
				for (int g = 0; g < G; g++)
					want += xf[g * B + i];
				if (i >= cs[ci].n) {
					bad += accf[i] != init[i];
					for (int g = 0; g < G; g++)
						bad += oldf[g * B + i] != -99.0f;
					continue;
				}
				float ol[G], xs[G];
				bool used[G] = {false};
				for (int g = 0; g < G; g++)
					ol[g] = oldf[g * B + i], xs[g] = xf[g * B + i];
				bad += accf[i] != want || !atomic_chain(ol, xs, G, used, init[i], want, G);
			}
			if (bad) {
				fprintf(stderr, "test_lang.c: [%s] atomic_add %s n=%d warps=%d: %d bad\n", target,
				        names[di], cs[ci].n, cs[ci].warps, bad);
			}
			CHECK(bad == 0);
		}
}

/* ---- float -> int conversions saturate, NaN -> 0 (what PTX cvt.rzi does and Triton shows) ---- */

static const char f2i_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(x_ptr, a_ptr, b_ptr, c_ptr, d_ptr, BLOCK: tl.constexpr):\n"
	"    o = tl.arange(0, BLOCK)\n"
	"    x = tl.load(x_ptr + o)\n"
	"    tl.store(a_ptr + o, x.to(tl.int8))\n"
	"    tl.store(b_ptr + o, x.to(tl.int32))\n"
	"    tl.store(c_ptr + o, x.to(tl.uint32))\n"
	"    tl.store(d_ptr + o, x.to(tl.int64))\n";

/* the saturating conversion to a signed type of range [lo, hi) (hi <= 2**31), NaN -> 0 */
static int64_t sat(double v, double lo, double hi)
{
	if (v != v) return 0;
	if (v >= hi) return (int64_t)hi - 1;
	if (v <= lo) return (int64_t)lo;
	return (int64_t)v;
}

static void test_float_to_int(void)
{
	enum { B = 32 };
	float x[B] = {NAN, INFINITY, -INFINITY, 0.f, -0.5f, 0.99f, -1.5f, 127.9f, 128.f, -128.f, -129.f, 255.5f,
		      2147483520.f, 2147483648.f, -2147483648.f, -2147483904.f, 4294967040.f, 4294967296.f,
		      9.2233715e18f, 9.223372e18f, -9.223372e18f, -1e30f, 1e30f, 3.75f, -3.75f, 1e-30f, -7.f,
		      65535.9f, 100000.f, -100000.f, 42.f, -42.f};
	int8_t a[B];
	int32_t b[B];
	uint32_t c[B];
	int64_t d[B];
	tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(a, TILE_I8), tile_arg_ptr(b, TILE_I32),
			   tile_arg_ptr(c, TILE_U32), tile_arg_ptr(d, TILE_I64)};
	if (!RUN(f2i_src, "k", "*fp32,*i8,*i32,*u32,*i64,32", 1, args))
		return;
	bool ok = true;
	for (int i = 0; i < B; i++) {
		ok &= a[i] == sat(x[i], -128, 128);
		ok &= b[i] == sat(x[i], -2147483648.0, 2147483648.0);
		ok &= c[i] == (uint32_t)(x[i] != x[i] || x[i] <= 0 ? 0 : x[i] >= 4294967296.0 ? 4294967295u : (uint32_t)x[i]);
		ok &= d[i] == (x[i] != x[i] ? 0 : x[i] >= 9223372036854775808.0 ? INT64_MAX : x[i] <= -9223372036854775808.0 ? INT64_MIN : (int64_t)x[i]);
	}
	CHECK(ok);
}

/* ---- tl.uint_to_uniform_float on 64-bit integers (Triton's 2**-63 scale) ----------- */

static const char u2f_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):\n"
	"    o = tl.arange(0, BLOCK)\n"
	"    tl.store(out_ptr + o, tl.uint_to_uniform_float(tl.load(x_ptr + o)))\n"
	"    tl.store(out_ptr + BLOCK + o, tl.uint_to_uniform_float(tl.load(y_ptr + o)))\n";

static void test_uint_to_uniform_float(void)
{
	enum { B = 8 };
	uint64_t x[B] = {0, 1, 12345678901234567ull, (1ull << 63) - 1, 1ull << 63, ~0ull, 0x8000000000000400ull, 42};
	uint32_t y[B] = {0, 1, 0x7fffffffu, 0x80000000u, 0xffffffffu, 123456789u, 0xdeadbeefu, 7};
	float out[2 * B];
	tile_arg args[] = {tile_arg_ptr(x, TILE_U64), tile_arg_ptr(y, TILE_U32), tile_arg_ptr(out, TILE_FP32)};
	if (!RUN(u2f_src, "k", "*u64,*u32,*fp32,8", 1, args))
		return;
	bool ok = true;
	for (int i = 0; i < B; i++) {
		int64_t v = (int64_t)x[i];
		int32_t w = (int32_t)y[i];
		if (v < 0) v = -v - 1;
		if (w < 0) w = -w - 1;
		ok &= out[i] == (float)v * 1.0842020432385337e-19f && out[i] >= 0.0f && out[i] <= 1.0f;
		ok &= out[B + i] == (float)w * 4.6566127342e-10f;
	}
	CHECK(ok);
}

/* ---- runtime loops with a negative constant step -------------------------------- */

static const char down_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(out_ptr, n):\n"
	"    acc = 0\n"
	"    for i in range(n - 1, -1, -1):\n" /* n-1 .. 0 */
	"        acc = acc * 3 + i\n"
	"    cnt = 0\n"
	"    for j in range(n, 2, -3):\n" /* n, n-3, ... > 2 */
	"        cnt = cnt * 100 + j\n"
	"    none = 0\n"
	"    for j in range(2, n, -1):\n" /* 2 .. n+1: empty for n >= 2 */
	"        none += 1\n"
	"    tl.store(out_ptr, acc)\n"
	"    tl.store(out_ptr + 1, cnt)\n"
	"    tl.store(out_ptr + 2, none)\n";

/* ---- runtime loops with a runtime step --------------------------------------------
 * A runtime step is taken to be positive, as Triton's scf.for takes it: the
 * loop runs while i < stop, so range(10, 0, s) with s = -1 at run time runs no
 * iteration. The CUDA C did so; the CPU emitter picked i > stop for a negative
 * step and ran 10 (Python's count), so cpu and cuda-emu differed from the GPU. */

static const char step_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(out_ptr, a, b, s):\n"
	"    c = 0\n"
	"    for i in range(a, b, s):\n"
	"        c = c * 10 + i\n"
	"    tl.store(out_ptr, c)\n";

static void test_runtime_step(void)
{
	static const int32_t cases[][4] = {
		/* a, b, s, want */
		{10, 0, -1, 0}, {3, 0, -3, 0}, {5, 5, -2, 0}, {0, 7, 3, 36}, {-2, 2, 2, -20}, {4, 5, 9, 4},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		int32_t out[1] = {-1};
		tile_arg args[] = {tile_arg_ptr(out, TILE_I32), tile_arg_i32(cases[i][0]), tile_arg_i32(cases[i][1]),
				   tile_arg_i32(cases[i][2])};
		if (!RUN(step_src, "k", "*i32,i32,i32,i32", 1, args))
			return;
		CHECK(out[0] == cases[i][3]);
	}
}

/* ---- unsigned loop variables ---------------------------------------------------------
 * Triton types a loop's variable as its bounds and step promoted (a number as
 * int32): range(n) with n uint32 counts in uint32, so i - 1 at i = 0 is
 * 4294967295, and a bound past 2**31 is a bound, not a negative number. tile
 * counted every 32-bit loop in int32: (i - 1) // 2 gave 0, and the second loop
 * ran no iteration. */

static const char urange_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(out_ptr, n):\n"
	"    c = n.to(tl.int64) * 0\n"
	"    for i in range(n.to(tl.uint32)):\n"
	"        tl.static_assert(i.dtype == tl.uint32)\n"
	"        c += ((i - 1) // 2).to(tl.int64)\n"
	"    tl.store(out_ptr, c)\n"
	"    d = 0\n"
	"    for i in range(2147483640, n.to(tl.uint32) + 2147483647):\n"
	"        d += 1\n"
	"    tl.store(out_ptr + 1, d.to(tl.int64))\n"
	"    e = 0\n"
	"    for i in tl.range(n.to(tl.uint64), 2 * n):\n"
	"        tl.static_assert(i.dtype == tl.uint64)\n"
	"        e += 1\n"
	"    tl.store(out_ptr + 2, e.to(tl.int64))\n";

static void test_unsigned_range(void)
{
	int64_t out[3] = {-1, -1, -1};
	tile_arg args[] = {tile_arg_ptr(out, TILE_I64), tile_arg_i32(3)};
	if (!RUN(urange_src, "k", "*i64,i32", 1, args))
		return;
	CHECK(out[0] == 2147483647 && out[1] == 10 && out[2] == 3);
}

/* ---- volatile loads: a spin on a flag that another program sets ----------------------
 * FlagGems' radix sort (sort.py sweep) waits on its neighbour's status word,
 * `while pack1 == 0: pack1 = tl.load(p, volatile=True)`. The CPU emitter made
 * such loads plain LLVM loads, which LICM hoisted out of the loop: program 1
 * read the flag once, before program 0 stored it, and spun forever. Here
 * program 0 works a while and then sets the flags; program 1 spins (at most
 * `limit` times) on one flag (a uniform load), then on a tile of them (a load
 * per thread) under a 2-thread pool, so the two programs run at once. */
static const char volatile_spin_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(flag_ptr, out_ptr, n_work, limit, BLOCK: tl.constexpr):\n"
	"    offs = tl.arange(0, BLOCK)\n"
	"    if tl.program_id(0) == 0:\n"
	"        acc = 0\n"
	"        for i in range(n_work):\n"
	"            acc = acc * 3 + i\n"
	"        tl.store(out_ptr + BLOCK + 1, acc)\n"
	"        tl.store(flag_ptr, 1)\n"
	"        for i in range(n_work):\n"
	"            acc = acc * 5 + i\n"
	"        tl.store(out_ptr + BLOCK + 2, acc)\n"
	"        tl.store(flag_ptr + 1 + offs, offs + 1)\n"
	"    else:\n"
	"        f = tl.load(flag_ptr, volatile=True)\n"
	"        n = 0\n"
	"        while (f == 0) & (n < limit):\n"
	"            f = tl.load(flag_ptr, volatile=True)\n"
	"            n += 1\n"
	"        tl.store(out_ptr + BLOCK, f)\n"
	"        g = tl.load(flag_ptr + 1 + offs, volatile=True)\n"
	"        n = 0\n"
	"        while (tl.min(g, 0) == 0) & (n < limit):\n"
	"            g = tl.load(flag_ptr + 1 + offs, volatile=True)\n"
	"            n += 1\n"
	"        tl.store(out_ptr + offs, g)\n";

static void volatile_spin(int num_warps)
{
	enum { B = 64 };
	int32_t flags[B + 1], out[B + 3];
	memset(flags, 0, sizeof flags);
	memset(out, 0, sizeof out);
	tile_context_options o = {0};
	o.target = target;
	o.num_threads = 2;
	tile_kernel_options ko = {0};
	ko.num_warps = num_warps;
	tile_context *ctx = NULL;
	tile_module *m = NULL;
	tile_kernel *k = NULL;
	tile_arg args[] = {tile_arg_ptr(flags, TILE_I32), tile_arg_ptr(out, TILE_I32),
			   tile_arg_i32(20000000), tile_arg_i32(2000000000)};
	uint32_t g[3] = {2, 1, 1};
	bool ok = tile_context_create(&ctx, &o) == TILE_OK &&
		  tile_module_load_source(ctx, "t.py", volatile_spin_src, strlen(volatile_spin_src), &m) == TILE_OK &&
		  tile_kernel_get(m, "k", "*i32,*i32,i32,i32,64", &ko, &k) == TILE_OK &&
		  tile_launch(k, g, args, 4, NULL) == TILE_OK;
	if (!ok) {
		fprintf(stderr, "test_lang.c:%d: [%s] k: %s\n", __LINE__, target, ctx ? tile_errmsg(ctx) : "no context");
		failures++;
	} else {
		CHECK(out[B] == 1);
		bool all = true;
		for (int i = 0; i < B; i++)
			all &= out[i] == i + 1;
		CHECK(all);
	}
	tile_kernel_destroy(k);
	tile_module_destroy(m);
	tile_context_destroy(ctx);
}

static void test_volatile_spin(void)
{
	volatile_spin(1);
	volatile_spin(4);
}

/* ---- instances that wait for instances not started ---------------------------------
 * A GPU keeps all the blocks of a small grid resident, and kernels rely on it:
 * npbench's grid_sync (a spin barrier over the whole grid, for persistent
 * heat_3d / jacobi_1d) and chains where a program waits for a flag a later
 * one sets. The CPU runs an instance to its end on its thread, so a pool of
 * 1 or 2 threads ran the first instances' spins forever. Now while loops call
 * the pool every few hundred iterations, and a stalled launch gets threads
 * for the instances not started (cpu_launch.c). Each spin gives up after
 * `limit` iterations, so without that the test fails instead of hanging. */
static const char grid_wait_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(bar, flags, out, limit, ROUNDS: tl.constexpr, FAIL: tl.constexpr):\n"
	"    pid = tl.program_id(0)\n"
	"    G = tl.num_programs(0)\n"
	"    if FAIL:\n"
	"        tl.device_assert(pid != G - 1, 'the last program fails')\n"
	"    if pid == G - 1:\n"
	"        tl.atomic_xchg(flags + pid, 1)\n"
	"    else:\n"
	"        n = 0\n"
	"        f = tl.atomic_add(flags + pid + 1, 0)\n"
	"        while (f == 0) & (n < limit):\n"
	"            f = tl.atomic_add(flags + pid + 1, 0)\n"
	"            n += 1\n"
	"        tl.atomic_xchg(flags + pid, f + 1)\n"
	"    for r in range(ROUNDS):\n"
	"        tl.atomic_add(bar, 1, sem='release')\n"
	"        n = 0\n"
	"        c = tl.atomic_add(bar, 0, sem='acquire')\n"
	"        while (c < G * (r + 1)) & (n < limit):\n"
	"            c = tl.atomic_add(bar, 0, sem='acquire')\n"
	"            n += 1\n"
	"        tl.store(out + pid * ROUNDS + r, c)\n";

enum { GRID_WAIT_ROUNDS = 3, GRID_WAIT_GMAX = 64 };

/* Whether a launch of grid G passed the chain and every round's barrier. */
static bool grid_wait_done(int threads, uint32_t G, int32_t bar, const int32_t *flags, const int32_t *out)
{
	const int ROUNDS = GRID_WAIT_ROUNDS;
	bool chain = true, passed = true;
	for (uint32_t i = 0; i < G; i++)
		chain &= flags[i] == (int32_t)(G - i);
	for (uint32_t i = 0; i < G; i++)
		for (int r = 0; r < ROUNDS; r++)
			passed &= out[i * ROUNDS + r] >= (int32_t)G * (r + 1) &&
				  out[i * ROUNDS + r] <= (int32_t)G * ROUNDS;
	if (!chain || !passed || bar != (int32_t)G * ROUNDS)
		fprintf(stderr, "test_lang.c:%d: [%s] %d threads, grid %u: chain %d barrier %d (bar %d)\n",
			__LINE__, target, threads, G, chain, passed, bar);
	return chain && passed && bar == (int32_t)G * ROUNDS;
}

/* fail: the last program fails a device_assert before it sets its flag, so
 * the others would wait forever; they end at their next spin check instead
 * (out stays 0: none went past its wait, as a GPU's trap ends the grid). */
static void grid_wait(int threads, uint32_t G, bool fail)
{
	enum { ROUNDS = GRID_WAIT_ROUNDS, GMAX = GRID_WAIT_GMAX };
	int32_t bar = 0, flags[GMAX] = {0}, out[GMAX * ROUNDS] = {0};
	tile_context_options o = {0};
	o.target = target;
	o.num_threads = threads;
	tile_kernel_options ko = {0};
	ko.num_warps = 1;
	ko.debug = fail;
	tile_context *ctx = NULL;
	tile_module *m = NULL;
	tile_kernel *k = NULL;
	tile_arg args[] = {tile_arg_ptr(&bar, TILE_I32), tile_arg_ptr(flags, TILE_I32),
			   tile_arg_ptr(out, TILE_I32), tile_arg_i32(20000000)};
	uint32_t g[3] = {G, 1, 1};
	bool ok = G <= GMAX && tile_context_create(&ctx, &o) == TILE_OK &&
		  tile_module_load_source(ctx, "t.py", grid_wait_src, strlen(grid_wait_src), &m) == TILE_OK &&
		  tile_kernel_get(m, "k", fail ? "*i32,*i32,*i32,i32,3,1" : "*i32,*i32,*i32,i32,3,0", &ko, &k) ==
			  TILE_OK;
	tile_status st = ok ? tile_launch(k, g, args, 4, NULL) : TILE_OK;
	if (ok && fail) {
		bool none = bar == 0;
		for (uint32_t i = 0; i < G * ROUNDS; i++)
			none &= out[i] == 0;
		CHECK(st != TILE_OK && strstr(tile_errmsg(ctx), "the last program fails") != NULL);
		CHECK(none);
	} else if (!ok || st != TILE_OK) {
		fprintf(stderr, "test_lang.c:%d: [%s] k: %s\n", __LINE__, target, ctx ? tile_errmsg(ctx) : "no context");
		failures++;
	} else {
		CHECK(grid_wait_done(threads, G, bar, flags, out));
	}
	tile_kernel_destroy(k);
	tile_module_destroy(m);
	tile_context_destroy(ctx);
}

/* One launch of grid_wait_src's kernel from a thread of its own, with its
 * own counters. */
typedef struct GridWaitLaunch {
	tile_kernel *k;
	uint32_t G;
	tile_status st;
	int32_t bar, flags[GRID_WAIT_GMAX], out[GRID_WAIT_GMAX * GRID_WAIT_ROUNDS];
} GridWaitLaunch;

static void *grid_wait_launch(void *arg)
{
	GridWaitLaunch *l = arg;
	tile_arg args[] = {tile_arg_ptr(&l->bar, TILE_I32), tile_arg_ptr(l->flags, TILE_I32),
			   tile_arg_ptr(l->out, TILE_I32), tile_arg_i32(20000000)};
	uint32_t g[3] = {l->G, 1, 1};
	l->st = tile_launch(l->k, g, args, 4, NULL);
	return NULL;
}

/* Launches from several host threads at once on one context: those that
 * find the pool busy run their grid on their own thread, and used to get no
 * threads when their instances waited for one another (the first waited
 * forever for instances queued behind it on the same thread). */
static void grid_wait_concurrent(int threads)
{
	enum { T = 3 };
	tile_context_options o = {0};
	o.target = target;
	o.num_threads = threads;
	tile_kernel_options ko = {0};
	ko.num_warps = 1;
	tile_context *ctx = NULL;
	tile_module *m = NULL;
	tile_kernel *k = NULL;
	bool ok = tile_context_create(&ctx, &o) == TILE_OK &&
		  tile_module_load_source(ctx, "t.py", grid_wait_src, strlen(grid_wait_src), &m) == TILE_OK &&
		  tile_kernel_get(m, "k", "*i32,*i32,*i32,i32,3,0", &ko, &k) == TILE_OK;
	CHECK(ok);
	static GridWaitLaunch l[T]; /* 1 KB each: off the stack */
	pthread_t th[T];
	for (int t = 0; ok && t < T; t++) {
		memset(&l[t], 0, sizeof l[t]);
		l[t].k = k;
		l[t].G = (uint32_t)(12 + 8 * t);
		CHECK(pthread_create(&th[t], NULL, grid_wait_launch, &l[t]) == 0);
	}
	for (int t = 0; ok && t < T; t++) {
		pthread_join(th[t], NULL);
		CHECK(l[t].st == TILE_OK);
		CHECK(grid_wait_done(threads, l[t].G, l[t].bar, l[t].flags, l[t].out));
	}
	tile_kernel_destroy(k);
	tile_module_destroy(m);
	tile_context_destroy(ctx);
}

static void test_grid_wait(void)
{
	grid_wait(1, 5, false);
	grid_wait(2, 24, false);
	grid_wait(0, 64, false);
	grid_wait(2, 24, true);
	grid_wait_concurrent(2);
	grid_wait_concurrent(1);
}

static void test_down_loops(void)
{
	for (int n = 0; n <= 9; n += 3) {
		int32_t out[3] = {-1, -1, -1};
		tile_arg args[] = {tile_arg_ptr(out, TILE_I32), tile_arg_i32(n)};
		if (!RUN(down_src, "k", "*i32,i32", 1, args))
			return;
		int32_t acc = 0, cnt = 0, none = n < 2 ? 2 - n : 0;
		for (int i = n - 1; i >= 0; i--)
			acc = acc * 3 + i;
		for (int j = n; j > 2; j -= 3)
			cnt = cnt * 100 + j;
		CHECK(out[0] == acc && out[1] == cnt && out[2] == none);
	}
}

/* ---- tl.extra.cuda.globaltimer() / smid(): a loop waiting on the clock ----------- */

static const char sreg_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(out_ptr, NS):\n"
	"    t0 = tl.extra.cuda.globaltimer()\n"
	"    t = t0\n"
	"    n = 0\n"
	"    while t - t0 < NS:\n" /* a runtime loop on the clock: one value for all threads */
	"        t = tl.extra.cuda.globaltimer()\n"
	"        n += 1\n"
	"    tl.store(out_ptr, (t - t0).to(tl.int64))\n"
	"    tl.store(out_ptr + 1, n.to(tl.int64))\n"
	"    tl.store(out_ptr + 2, tl.extra.cuda.smid().to(tl.int64))\n"
	"    tl.store(out_ptr + 3, t0.to(tl.int64))\n";

static void test_sreg(void)
{
	int64_t out[4] = {-1, -1, -1, -1};
	tile_arg args[] = {tile_arg_ptr(out, TILE_I64), tile_arg_i64(300000)};
	if (!RUN(sreg_src, "k", "*i64,i64", 1, args))
		return;
	/* 0.3 ms waited, in several readings (each call reads the clock anew);
	 * the timer counts wall-clock nanoseconds (after 2020-01-01) */
	CHECK(out[0] >= 300000 && out[0] < 60000000000LL);
	CHECK(out[1] >= 2);
	CHECK(out[2] >= 0 && out[2] < 65536);
	CHECK(out[3] > 1577836800LL * 1000000000LL);
}

/* ---- tensor descriptors: every dimension bounds-checked, padding, atomics -------- */

static const char desc_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(x_ptr, y_ptr, acc_ptr, blk_ptr, M, N, om, on, PAD: tl.constexpr):\n"
	"    x = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [8, 8], padding_option=PAD)\n"
	"    y = tl.make_tensor_descriptor(y_ptr, [M, N], [N, 1], [8, 8])\n"
	"    a = tl.make_tensor_descriptor(acc_ptr, [M, N], [N, 1], [8, 8])\n"
	"    t = x.load([om, on])\n"                   /* may start outside, on either side */
	"    y.store([om, on], t)\n"
	"    r = tl.arange(0, 8)\n"
	"    tl.store(blk_ptr + r[:, None] * 8 + r[None, :], tl.where(t == t, t, -1.0))\n" /* NaN shows as -1 */
	"    a.atomic_add([om, on], tl.full((8, 8), 1.0, tl.float32))\n";

static void test_descriptors(void)
{
	enum { M = 12, N = 8 };
	static const int offs[][2] = {{0, 0}, {-3, 2}, {6, -4}, {10, 5}};
	for (int pad = 0; pad < 2; pad++)
		for (int c = 0; c < 4; c++) {
			float x[M * N], y[M * N], acc[M * N], blk[64];
			for (int i = 0; i < M * N; i++)
				x[i] = (float)(i + 1), y[i] = 0, acc[i] = 0;
			int om = offs[c][0], on = offs[c][1];
			tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(y, TILE_FP32),
					   tile_arg_ptr(acc, TILE_FP32),   tile_arg_ptr(blk, TILE_FP32), tile_arg_i32(M),
					   tile_arg_i32(N),               tile_arg_i32(om),
					   tile_arg_i32(on),              tile_arg_str(pad ? "nan" : "zero")};
			const char *sig = pad ? "*fp32:16,*fp32:16,*fp32:16,*fp32:16,i32,i32,i32,i32,'nan'"
					      : "*fp32:16,*fp32:16,*fp32:16,*fp32:16,i32,i32,i32,i32,'zero'";
			if (!RUN(desc_src, "k", sig, 1, args))
				return;
			bool ok = true;
			for (int i = 0; i < M; i++)
				for (int j = 0; j < N; j++) {
					/* (i, j) is written iff inside the block at (om, on) */
					bool in = i >= om && i < om + 8 && j >= on && j < on + 8;
					ok &= y[i * N + j] == (in ? x[i * N + j] : 0.0f);
					ok &= acc[i * N + j] == (in ? 1.0f : 0.0f);
				}
			for (int r = 0; r < 8; r++)
				for (int q = 0; q < 8; q++) {
					int i = om + r, j = on + q;
					bool in = i >= 0 && i < M && j >= 0 && j < N;
					ok &= blk[r * 8 + q] == (in ? x[i * N + j] : pad ? -1.0f : 0.0f);
				}
			CHECK(ok);
		}
}

/* ---- Triton 3.2's device-made TMA descriptors (experimental_device_tensormap_create*):
 * descriptor loads read zeros outside [M, N], stores write only inside it; the 1-D
 * form bounds one dimension; a runtime if may make one and use it inside -------- */

static const char tma_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(ws, x_ptr, y_ptr, blk_ptr, v_ptr, M, N, om, on, L):\n"
	"    dx = ws\n"
	"    dy = ws + 128\n"
	"    tl.extra.cuda.experimental_device_tensormap_create2d(desc_ptr=dx, global_address=x_ptr,\n"
	"        load_size=[8, 8], global_size=[M, N], element_ty=x_ptr.dtype.element_ty)\n"
	"    tl.extra.cuda.experimental_tensormap_fenceproxy_acquire(dx)\n"
	"    tl.extra.cuda.experimental_device_tensormap_create2d(dy, y_ptr, [8, 8], [M, N], tl.float32)\n"
	"    tl.extra.cuda.experimental_tensormap_fenceproxy_acquire(dy)\n"
	"    t = tl._experimental_descriptor_load(dx, [om, on], [8, 8], tl.float32)\n"
	"    tl._experimental_descriptor_store(dy, t * 2.0, [om, on])\n"
	"    r = tl.arange(0, 8)\n"
	"    tl.store(blk_ptr + r[:, None] * 8 + r[None, :], t)\n"
	"    if L > 0:\n"
	"        dv = ws + 256\n"
	"        tl.extra.cuda.experimental_device_tensormap_create1d(dv, v_ptr, [16], L, tl.float32)\n"
	"        tl.extra.cuda.experimental_tensormap_fenceproxy_acquire(dv)\n"
	"        w = tl._experimental_descriptor_load(dv, [0], [16], tl.float32)\n"
	"        tl._experimental_descriptor_store(dv, w + 1.0, [0])\n";

static void test_device_tma(void)
{
	enum { M = 12, N = 8 };
	static const int offs[][2] = {{0, 0}, {-3, 2}, {6, -4}, {10, 5}};
	for (int c = 0; c < 4; c++) {
		uint8_t ws[384] = {0};
		float x[M * N], y[M * N], blk[64], v[16];
		for (int i = 0; i < M * N; i++)
			x[i] = (float)(i + 1), y[i] = -5.0f;
		for (int i = 0; i < 16; i++)
			v[i] = (float)i;
		int om = offs[c][0], on = offs[c][1], len = 3 * c;
		tile_arg args[] = {tile_arg_ptr(ws, TILE_U8), tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(y, TILE_FP32),
				   tile_arg_ptr(blk, TILE_FP32), tile_arg_ptr(v, TILE_FP32), tile_arg_i32(M),
				   tile_arg_i32(N), tile_arg_i32(om), tile_arg_i32(on), tile_arg_i32(len)};
		if (!RUN(tma_src, "k", "*u8:16,*fp32:16,*fp32:16,*fp32:16,*fp32:16,i32,i32,i32,i32,i32", 1, args))
			return;
		bool ok = true;
		for (int i = 0; i < M; i++)
			for (int j = 0; j < N; j++) {
				bool in = i >= om && i < om + 8 && j >= on && j < on + 8;
				ok &= y[i * N + j] == (in ? 2.0f * x[i * N + j] : -5.0f);
			}
		for (int r = 0; r < 8; r++)
			for (int q = 0; q < 8; q++) {
				int i = om + r, j = on + q;
				bool in = i >= 0 && i < M && j >= 0 && j < N;
				ok &= blk[r * 8 + q] == (in ? x[i * N + j] : 0.0f);
			}
		for (int i = 0; i < 16; i++)
			ok &= v[i] == (float)i + (i < len ? 1.0f : 0.0f);
		CHECK(ok);
	}
}

/* ---- tl.sort: along the last dimension, both directions, fp32 and int16 ------------ */

static const char sort_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(x_ptr, y_ptr, R: tl.constexpr, C: tl.constexpr, DESC: tl.constexpr):\n"
	"    o = tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]\n"
	"    tl.store(y_ptr + o, tl.load(x_ptr + o).sort(descending=DESC))\n"
	"@triton.jit\n"
	"def k1(x_ptr, y_ptr, C: tl.constexpr):\n"
	"    o = tl.arange(0, C)\n"
	"    tl.store(y_ptr + o, tl.sort(tl.load(x_ptr + o), dim=0))\n"
	"@triton.jit\n"
	"def top(x_ptr, y_ptr, R: tl.constexpr, C: tl.constexpr, K: tl.constexpr):\n"
	"    o = tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]\n"
	"    ok = tl.arange(0, R)[:, None] * K + tl.arange(0, K)[None, :]\n"
	"    tl.store(y_ptr + ok, tl.topk(tl.load(x_ptr + o), K))\n"
	"@triton.jit\n"
	"def kb(x_ptr, y_ptr, C: tl.constexpr, DESC: tl.constexpr):\n"
	"    o = tl.arange(0, C)\n"
	"    x = tl.load(x_ptr + o) != 0\n"
	"    tl.store(y_ptr + o, tl.sort(x, descending=DESC).to(tl.int8))\n"
	"    tl.store(y_ptr + C + tl.arange(0, 4), tl.topk(x, 4).to(tl.int8))\n";

static int cmp_f32(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return (x > y) - (x < y);
}

static int cmp_i16(const void *a, const void *b) { return *(const int16_t *)a - *(const int16_t *)b; }

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* The same bits, in any order. */
static bool same_multiset(const float *x, const float *y, int n)
{
	uint32_t *a = malloc((size_t)n * 4), *b = malloc((size_t)n * 4);
	memcpy(a, x, (size_t)n * 4);
	memcpy(b, y, (size_t)n * 4);
	qsort(a, (size_t)n, 4, cmp_u32);
	qsort(b, (size_t)n, 4, cmp_u32);
	bool same = memcmp(a, b, (size_t)n * 4) == 0;
	free(a);
	free(b);
	return same;
}

/* 1024 elements (pairs split by registers, lanes and warps): -0.0 and +0.0,
 * infinities and repeats come out sorted with every value kept; with NaNs in
 * the input no value is lost or duplicated (a NaN pair compares false both
 * ways, so neither side may take the other's value). */
static void test_sort_specials(uint32_t *seed)
{
	enum { N = 1024 };
	static float x[N], y[N];
	static const float specials[] = {0.0f, -0.0f, INFINITY, -INFINITY, 1.5f, -1.5f};
	for (int nan = 0; nan < 2; nan++) {
		for (int i = 0; i < N; i++) {
			*seed = *seed * 1664525u + 1013904223u;
			x[i] = (*seed >> 28) < 6 ? specials[*seed >> 28] : (float)((int)(*seed >> 8) % 201 - 100);
			if (nan && i % 97 == 3)
				x[i] = i % 2 ? NAN : -NAN;
		}
		tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(y, TILE_FP32)};
		if (!RUN(sort_src, "k1", "*fp32,*fp32,1024", 1, args))
			return;
		CHECK(same_multiset(x, y, N));
		bool sorted = true;
		for (int i = 1; i < N && !nan; i++)
			sorted &= !(y[i - 1] > y[i]);
		CHECK(sorted);
	}
}

/* tl.topk as Triton's bitonic top-k (the first log2(k) sort stages, then
 * rounds that keep the larger of each pair k apart): 1-D 1024 -> 8 and k = 1,
 * 2-D 4 x 256 -> 16 and k = the whole row, 3-D and 4-D tiles, int32 1024 -> 4, with -0.0/+0.0,
 * infinities, repeats and the integer extremes. The result is the reference's
 * k largest, largest first, and every result's bits occur in its row. */
static const char topk_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k1(x_ptr, y_ptr, N: tl.constexpr, K: tl.constexpr):\n"
	"    tl.store(y_ptr + tl.arange(0, K), tl.topk(tl.load(x_ptr + tl.arange(0, N)), K, dim=0))\n"
	"@triton.jit\n"
	"def k2(x_ptr, y_ptr, R: tl.constexpr, C: tl.constexpr, K: tl.constexpr):\n"
	"    o = tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]\n"
	"    ok = tl.arange(0, R)[:, None] * K + tl.arange(0, K)[None, :]\n"
	"    tl.store(y_ptr + ok, tl.topk(tl.load(x_ptr + o), K))\n"
	"@triton.jit\n"
	"def k3(x_ptr, y_ptr, A: tl.constexpr, R: tl.constexpr, C: tl.constexpr, K: tl.constexpr):\n"
	"    o = tl.arange(0, A)[:, None, None] * (R * C) + tl.arange(0, R)[None, :, None] * C + tl.arange(0, C)[None, None, :]\n"
	"    ok = tl.arange(0, A)[:, None, None] * (R * K) + tl.arange(0, R)[None, :, None] * K + tl.arange(0, K)[None, None, :]\n"
	"    tl.store(y_ptr + ok, tl.topk(tl.load(x_ptr + o), K))\n"
	"@triton.jit\n"
	"def k4(x_ptr, y_ptr, C: tl.constexpr, K: tl.constexpr):\n"
	"    x = tl.reshape(tl.load(x_ptr + tl.arange(0, 8 * C)), (2, 2, 2, C))\n"
	"    tl.store(y_ptr + tl.arange(0, 8 * K), tl.reshape(tl.topk(x, K, dim=-1), (8 * K,)))\n";

static int cmp_f32_desc(const void *a, const void *b) { return cmp_f32(b, a); }

static int cmp_i32_desc(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x < y) - (x > y);
}

/* y[r*k..] == the k largest of x[r*n..] (as values), each y's bits in the row */
static bool topk_ok(const float *x, const float *y, int rows, int n, int k)
{
	bool ok = true;
	float *w = malloc((size_t)n * sizeof(float));
	for (int r = 0; r < rows; r++) {
		memcpy(w, x + r * n, (size_t)n * sizeof(float));
		qsort(w, (size_t)n, sizeof(float), cmp_f32_desc);
		for (int i = 0; i < k; i++) {
			ok &= y[r * k + i] == w[i];
			bool found = false;
			for (int j = 0; j < n && !found; j++)
				found = memcmp(&x[r * n + j], &y[r * k + i], 4) == 0;
			ok &= found;
		}
	}
	free(w);
	return ok;
}

static void test_topk(void)
{
	enum { N = 1024 };
	static float x[N], y[N];
	static int32_t a[N], b[4], w[N];
	static const float specials[] = {0.0f, -0.0f, INFINITY, -INFINITY, 1.5f, -1.5f};
	uint32_t seed = 11;
	for (int i = 0; i < N; i++) {
		seed = seed * 1664525u + 1013904223u;
		x[i] = (seed >> 28) < 6 ? specials[seed >> 28] : (float)((int)(seed >> 8) % 201 - 100);
		a[i] = w[i] = (seed >> 28) < 2 ? (seed >> 28 ? INT32_MAX : INT32_MIN) : (int32_t)(seed >> 4) - (1 << 27);
	}
	x[700] = x[5] = 1e30f; /* a repeated maximum */
	tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(y, TILE_FP32)};
	if (RUN(topk_src, "k1", "*fp32,*fp32,1024,8", 1, args))
		CHECK(topk_ok(x, y, 1, N, 8));
	if (RUN(topk_src, "k1", "*fp32,*fp32,1024,1", 1, args))
		CHECK(topk_ok(x, y, 1, N, 1));
	if (RUN(topk_src, "k2", "*fp32,*fp32,4,256,16", 1, args))
		CHECK(topk_ok(x, y, 4, 256, 16));
	if (RUN(topk_src, "k2", "*fp32,*fp32,8,128,128", 1, args))
		CHECK(topk_ok(x, y, 8, 128, 128));
	/* 3-D and 4-D tiles (Helion's generated torch.topk kernels): the last
	 * dimension of every leading index, as Triton's hypercube sort does */
	if (RUN(topk_src, "k3", "*fp32,*fp32,4,8,32,8", 1, args))
		CHECK(topk_ok(x, y, 32, 32, 8));
	if (RUN(topk_src, "k3", "*fp32,*fp32,2,4,16,16", 1, args))
		CHECK(topk_ok(x, y, 8, 16, 16));
	if (RUN(topk_src, "k4", "*fp32,*fp32,32,4", 1, args))
		CHECK(topk_ok(x, y, 8, 32, 4));
	qsort(w, N, sizeof(int32_t), cmp_i32_desc);
	tile_arg iargs[] = {tile_arg_ptr(a, TILE_I32), tile_arg_ptr(b, TILE_I32)};
	if (RUN(topk_src, "k1", "*i32,*i32,1024,4", 1, iargs))
		CHECK(memcmp(b, w, sizeof b) == 0);
}

static void test_sort(void)
{
	enum { R = 4, C = 32 };
	uint32_t seed = 7;
	for (int desc = 0; desc < 2; desc++) {
		float x[R * C], y[R * C], want[R * C];
		for (int i = 0; i < R * C; i++) {
			seed = seed * 1664525u + 1013904223u;
			x[i] = (float)((int)(seed >> 8) % 2001 - 1000) / 8.0f;
			want[i] = x[i];
		}
		for (int r = 0; r < R; r++) {
			qsort(want + r * C, C, sizeof(float), cmp_f32);
			if (desc)
				for (int i = 0; i < C / 2; i++) {
					float t = want[r * C + i];
					want[r * C + i] = want[r * C + C - 1 - i];
					want[r * C + C - 1 - i] = t;
				}
		}
		tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(y, TILE_FP32)};
		if (!RUN(sort_src, "k", desc ? "*fp32,*fp32,4,32,True" : "*fp32,*fp32,4,32,False", 1, args))
			return;
		CHECK(memcmp(y, want, sizeof y) == 0);
		if (desc) { /* the 8 largest of each row, largest first */
			float t[R * 8];
			if (RUN(sort_src, "top", "*fp32,*fp32,4,32,8", 1, args)) {
				memcpy(t, y, sizeof t);
				bool ok = true;
				for (int r = 0; r < R; r++)
					ok &= memcmp(t + r * 8, want + r * C, 8 * sizeof(float)) == 0;
				CHECK(ok);
			}
		}
	}
	int16_t a[64], b[64], w[64];
	for (int i = 0; i < 64; i++) {
		seed = seed * 1664525u + 1013904223u;
		a[i] = w[i] = (int16_t)((seed >> 9) % 60000 - 30000);
	}
	qsort(w, 64, sizeof(int16_t), cmp_i16);
	tile_arg args[] = {tile_arg_ptr(a, TILE_I16), tile_arg_ptr(b, TILE_I16)};
	if (RUN(sort_src, "k1", "*i16,*i16,64", 1, args))
		CHECK(memcmp(b, w, sizeof b) == 0);
	/* bool tensors (int1) sort and take their top k: the prelude's bit view
	 * refused them ("cannot bitcast int1 to int64") */
	for (int desc = 0; desc < 2; desc++) {
		int8_t xb[32], yb[36] = {0}, wb[36];
		int ones = 0;
		for (int i = 0; i < 32; i++) {
			seed = seed * 1664525u + 1013904223u;
			xb[i] = (int8_t)((seed >> 20) % 3); /* 0, 1 or 2: != 0 is the bool */
			ones += xb[i] != 0;
		}
		for (int i = 0; i < 32; i++)
			wb[i] = desc ? i < ones : i >= 32 - ones;
		for (int i = 0; i < 4; i++)
			wb[32 + i] = i < ones;
		tile_arg bargs[] = {tile_arg_ptr(xb, TILE_I8), tile_arg_ptr(yb, TILE_I8)};
		if (RUN(sort_src, "kb", desc ? "*i8,*i8,32,True" : "*i8,*i8,32,False", 1, bargs))
			CHECK(memcmp(yb, wb, sizeof yb) == 0);
	}
	test_sort_specials(&seed);
}

/* ---- tl.histogram ---------------------------------------------------------------- */

static const char hist_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(x_ptr, h_ptr, n, B: tl.constexpr, BINS: tl.constexpr):\n"
	"    o = tl.arange(0, B)\n"
	"    x = tl.load(x_ptr + o, mask=o < n, other=0)\n"
	"    tl.store(h_ptr + tl.arange(0, BINS), tl.histogram(x, BINS, mask=o < n))\n";

static void test_histogram(void)
{
	enum { B = 128, BINS = 16, N = 100 };
	int32_t x[B], h[BINS], want[BINS] = {0};
	for (int i = 0; i < B; i++) {
		x[i] = (i * 7 + 3) % 19 - 1; /* -1 and 16..17 fall outside the bins */
		if (i < N && x[i] >= 0 && x[i] < BINS)
			want[x[i]]++;
	}
	tile_arg args[] = {tile_arg_ptr(x, TILE_I32), tile_arg_ptr(h, TILE_I32), tile_arg_i32(N)};
	if (RUN(hist_src, "k", "*i32,*i32,i32,128,16", 1, args))
		CHECK(memcmp(h, want, sizeof h) == 0);
}

/* 256 values into 1024 bins (a histogram challenge's shape): more than the one-hot
 * tile takes, so the bins are counted a chunk per loop iteration */
static void test_histogram_many_bins(void)
{
	enum { B = 256, BINS = 1024, N = 250 };
	static int32_t x[B], h[BINS], want[BINS];
	memset(want, 0, sizeof want);
	for (int i = 0; i < B; i++) {
		x[i] = (i * 389 + 11) % 1031 - 3; /* -3..-1 and 1024..1027 fall outside */
		if (i < 40)
			x[i] = 1023 - (i % 3); /* repeats in the last chunk */
		if (i < N && x[i] >= 0 && x[i] < BINS)
			want[x[i]]++;
	}
	tile_arg args[] = {tile_arg_ptr(x, TILE_I32), tile_arg_ptr(h, TILE_I32), tile_arg_i32(N)};
	if (RUN(hist_src, "k", "*i32,*i32,i32,256,1024", 1, args))
		CHECK(memcmp(h, want, sizeof h) == 0);
}

/* ---- tl.gather along either axis of a 2-D tile, and 1-D ------------------------ */

static const char gather_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(x_ptr, i_ptr, y_ptr, AXIS: tl.constexpr):\n"
	"    o = tl.arange(0, 8)[:, None] * 16 + tl.arange(0, 16)[None, :]\n"
	"    x = tl.load(x_ptr + o)\n"
	"    tl.store(y_ptr + o, tl.gather(x, tl.load(i_ptr + o), AXIS))\n"
	"@triton.jit\n"
	"def k1(x_ptr, i_ptr, y_ptr):\n"
	"    o = tl.arange(0, 32)\n"
	"    tl.store(y_ptr + o, tl.load(x_ptr + o).gather(tl.load(i_ptr + o), 0))\n"
	"@triton.jit\n"
	"def kb(x_ptr, i_ptr, y_ptr):\n"
	"    o = tl.arange(0, 32)\n"
	"    v = tl.load(x_ptr + o) != 0\n"
	"    g = tl.gather(v, tl.load(i_ptr + o), 0)\n"
	"    tl.store(y_ptr + o, tl.where(g, 5, -3).to(tl.int8))\n";

static void test_gather(void)
{
	float x[128], y[128];
	int32_t idx[128];
	for (int i = 0; i < 128; i++)
		x[i] = (float)i * 0.5f - 17.0f;
	x[5] = -0.0f;
	for (int axis = 0; axis < 2; axis++) {
		for (int i = 0; i < 128; i++)
			idx[i] = (i * 13 + 5) % (axis ? 16 : 8);
		tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(idx, TILE_I32), tile_arg_ptr(y, TILE_FP32)};
		if (!RUN(gather_src, "k", axis ? "*fp32,*i32,*fp32,1" : "*fp32,*i32,*fp32,0", 1, args))
			return;
		bool ok = true;
		for (int r = 0; r < 8; r++)
			for (int c = 0; c < 16; c++) {
				float want = axis ? x[r * 16 + idx[r * 16 + c]] : x[idx[r * 16 + c] * 16 + c];
				ok &= memcmp(&y[r * 16 + c], &want, 4) == 0; /* bit-exact: -0.0 stays */
			}
		CHECK(ok);
	}
	for (int i = 0; i < 32; i++)
		idx[i] = 31 - i;
	tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(idx, TILE_I32), tile_arg_ptr(y, TILE_FP32)};
	if (RUN(gather_src, "k1", "*fp32,*i32,*fp32", 1, args)) {
		bool ok = true;
		for (int i = 0; i < 32; i++)
			ok &= memcmp(&y[i], &x[31 - i], 4) == 0;
		CHECK(ok);
	}
	/* 16- and 8-bit elements (a NaN, -0.0 and negative integers among them),
	 * whose one-hot sum is kept in their own width */
	uint16_t h[32], hy[32];
	int8_t b[32], by[32];
	for (int i = 0; i < 32; i++) {
		h[i] = (uint16_t)(0x8000u + (unsigned)i * 0x0411u);
		b[i] = (int8_t)(i * 9 - 128);
		idx[i] = (i * 7 + 3) % 32;
	}
	h[4] = 0x7e01; /* a NaN with a payload */
	h[9] = 0x8000; /* -0.0 */
	tile_arg hargs[] = {tile_arg_ptr(h, TILE_FP16), tile_arg_ptr(idx, TILE_I32), tile_arg_ptr(hy, TILE_FP16)};
	if (RUN(gather_src, "k1", "*fp16,*i32,*fp16", 1, hargs)) {
		bool ok = true;
		for (int i = 0; i < 32; i++)
			ok &= hy[i] == h[idx[i]];
		CHECK(ok);
	}
	tile_arg bargs[] = {tile_arg_ptr(b, TILE_I8), tile_arg_ptr(idx, TILE_I32), tile_arg_ptr(by, TILE_I8)};
	if (RUN(gather_src, "k1", "*i8,*i32,*i8", 1, bargs)) {
		bool ok = true;
		for (int i = 0; i < 32; i++)
			ok &= by[i] == b[idx[i]];
		CHECK(ok);
	}
	/* a bool tile (a bitonic network's valid flags swapped with a peer's,
	 * lane ^ stride): Triton takes any element type; tile refused int1 */
	for (int i = 0; i < 32; i++) {
		b[i] = (int8_t)((i * 5) % 3 == 0 ? i : 0);
		idx[i] = i ^ 4;
	}
	if (RUN(gather_src, "kb", "*i8,*i32,*i8", 1, bargs)) {
		bool ok = true;
		for (int i = 0; i < 32; i++)
			ok &= by[i] == (b[idx[i]] != 0 ? 5 : -3);
		CHECK(ok);
	}
}

/* tl.gather whose one-hot tile would pass 2^20 elements (1024 indices into
 * 2048 entries: Triton takes it; it was 'exceeds the limit'), which takes
 * the source a chunk at a time in a loop: 1-D fp32 and fp16, 2-D along
 * either axis (index rows unlike the source's), bit-exact (a NaN payload,
 * -0.0), indices out of range (-1, n, 2^40) give 0 as an unchunked one does. */
static const char gather_big_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k1(x_ptr, i_ptr, y_ptr, N: tl.constexpr, M: tl.constexpr):\n"
	"    o = tl.arange(0, M)\n"
	"    tl.store(y_ptr + o, tl.gather(tl.load(x_ptr + tl.arange(0, N)), tl.load(i_ptr + o), 0))\n"
	"@triton.jit\n"
	"def k2(x_ptr, i_ptr, y_ptr, R: tl.constexpr, C: tl.constexpr, IR: tl.constexpr, IC: tl.constexpr,\n"
	"       AXIS: tl.constexpr):\n"
	"    x = tl.load(x_ptr + tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :])\n"
	"    o = tl.arange(0, IR)[:, None] * IC + tl.arange(0, IC)[None, :]\n"
	"    tl.store(y_ptr + o, tl.gather(x, tl.load(i_ptr + o), AXIS))\n";

static void test_gather_big(void)
{
	enum { N = 2048, M = 1024 };
	static uint32_t x[2 * N], y[M]; /* the 2-D sources are 4 x 1024 and 1024 x 4 */
	static uint16_t h[N], hy[M];
	static int64_t idx[M];
	static int32_t idx32[M];
	uint32_t seed = 5;
	for (int i = 0; i < N; i++) {
		seed = seed * 1664525u + 1013904223u;
		x[i] = seed;
		h[i] = (uint16_t)(seed >> 16);
	}
	for (int i = N; i < 2 * N; i++)
		x[i] = x[i - N] ^ 0x5a5a5a5au;
	x[3] = 0x7fc00123u; /* a NaN with a payload */
	x[2047] = 0x80000000u; /* -0.0 */
	h[1500] = 0x8000;
	static const int64_t odd[] = {-1, N, (int64_t)1 << 40};
	for (int i = 0; i < M; i++) {
		idx[i] = i % 61 == 7 ? odd[i % 3] : (i * 1237 + 3) % N;
		idx32[i] = i % 61 == 7 ? -1 : (int32_t)idx[i];
	}
	idx[0] = 3, idx[1] = 2047, idx[2] = 0, idx32[0] = 1500;
	tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(idx, TILE_I64), tile_arg_ptr(y, TILE_FP32)};
	if (RUN(gather_big_src, "k1", "*fp32,*i64,*fp32,2048,1024", 1, args)) {
		bool ok = true;
		for (int i = 0; i < M; i++)
			ok &= y[i] == (idx[i] >= 0 && idx[i] < N ? x[idx[i]] : 0u);
		CHECK(ok);
	}
	tile_arg hargs[] = {tile_arg_ptr(h, TILE_FP16), tile_arg_ptr(idx32, TILE_I32), tile_arg_ptr(hy, TILE_FP16)};
	if (RUN(gather_big_src, "k1", "*fp16,*i32,*fp16,2048,1024", 1, hargs)) {
		bool ok = true;
		for (int i = 0; i < M; i++)
			ok &= hy[i] == (idx32[i] >= 0 ? h[idx32[i]] : 0u);
		CHECK(ok);
	}
	/* 2-D: source 4 x 1024 with 4 x 512 indices along axis 1, source
	 * 1024 x 4 with 512 x 4 along axis 0 (2^21-element one-hot tiles) */
	for (int axis = 0; axis < 2; axis++) {
		static int32_t ix[2048];
		static uint32_t yy[2048];
		for (int e = 0; e < 2048; e++)
			ix[e] = e % 53 == 9 ? (e % 2 ? -1 : 1024) : (e * 389 + 11) % 1024;
		tile_arg args2[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(ix, TILE_I32), tile_arg_ptr(yy, TILE_FP32)};
		if (!RUN(gather_big_src, "k2", axis ? "*fp32,*i32,*fp32,4,1024,4,512,1" : "*fp32,*i32,*fp32,1024,4,512,4,0",
			 1, args2))
			return;
		bool ok = true;
		for (int e = 0; e < 2048; e++) {
			int r = axis ? e / 512 : e / 4, c = axis ? e % 512 : e % 4;
			int32_t i = ix[e];
			uint32_t want = i < 0 || i >= 1024 ? 0u : axis ? x[r * 1024 + i] : x[i * 4 + c];
			ok &= yy[e] == want;
		}
		CHECK(ok);
	}
}

/* ---- a hand-written one-hot sum: sum(where(i == arange, x, 0)) along the
 * arange picks x at i, 0 for i outside the axis (i64 indices past 2^32
 * included); lowered as a shared-memory gather. When i varies along the
 * summed axis it is an ordinary sum. */

static const char one_hot_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(x_ptr, i_ptr, j_ptr, y_ptr, z_ptr):\n"
	"    r = tl.arange(0, 8)\n"
	"    c = tl.arange(0, 16)\n"
	"    q = tl.arange(0, 4)\n"
	"    x = tl.load(x_ptr + r[:, None] * 16 + c[None, :])\n"
	"    i = tl.load(i_ptr + r[:, None] * 4 + q[None, :])\n"
	"    k = c.to(tl.int64)\n"
	"    y = tl.sum(tl.where(i[:, :, None] == k[None, None, :], x[:, None, :], 0), 2)\n"
	"    tl.store(y_ptr + r[:, None] * 4 + q[None, :], y)\n"
	"    j = tl.load(j_ptr + r[:, None] * 16 + c[None, :])\n"
	"    z = tl.sum(tl.where(j == c[None, :], x, 0), 1)\n"
	"    tl.store(z_ptr + r, z)\n";

static void test_one_hot_sum(void)
{
	int32_t x[128], j[128], y[32], z[8];
	int64_t idx[32];
	static const int64_t odd[] = {-1, 16, 17, (int64_t)1 << 40, -((int64_t)1 << 40) + 3};
	for (int e = 0; e < 128; e++) {
		x[e] = e * 7 - 300;
		j[e] = (e * 5) % 16;
	}
	for (int e = 0; e < 32; e++)
		idx[e] = e % 3 == 2 ? odd[e % 5] : (e * 11) % 16;
	tile_arg args[] = {tile_arg_ptr(x, TILE_I32), tile_arg_ptr(idx, TILE_I64),
	                   tile_arg_ptr(j, TILE_I32), tile_arg_ptr(y, TILE_I32),
	                   tile_arg_ptr(z, TILE_I32)};
	if (!RUN(one_hot_src, "k", "*i32,*i64,*i32,*i32,*i32", 1, args))
		return;
	bool ok = true;
	for (int r = 0; r < 8; r++) {
		int32_t zs = 0;
		for (int c = 0; c < 16; c++)
			zs += j[r * 16 + c] == c ? x[r * 16 + c] : 0;
		ok &= z[r] == zs;
		for (int q = 0; q < 4; q++) {
			int64_t i = idx[r * 4 + q];
			ok &= y[r * 4 + q] == (i >= 0 && i < 16 ? x[r * 16 + i] : 0);
		}
	}
	CHECK(ok);
}

/* ---- batched (3-D) tl.dot ----------------------------------------------------- */

static const char bdot_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(a_ptr, b_ptr, c_ptr, B: tl.constexpr, M: tl.constexpr, K: tl.constexpr, N: tl.constexpr):\n"
	"    bb = tl.arange(0, B)[:, None, None]\n"
	"    oa = bb * M * K + tl.arange(0, M)[None, :, None] * K + tl.arange(0, K)[None, None, :]\n"
	"    ob = bb * K * N + tl.arange(0, K)[None, :, None] * N + tl.arange(0, N)[None, None, :]\n"
	"    oc = bb * M * N + tl.arange(0, M)[None, :, None] * N + tl.arange(0, N)[None, None, :]\n"
	"    acc = tl.full((B, M, N), 1.0, tl.float32)\n"
	"    acc = tl.dot(tl.load(a_ptr + oa), tl.load(b_ptr + ob), acc)\n"
	"    tl.store(c_ptr + oc, acc)\n";

static void test_batched_dot(void)
{
	enum { B = 2, M = 16, K = 32, N = 16 };
	float a[B * M * K], b[B * K * N], c[B * M * N];
	for (int i = 0; i < B * M * K; i++)
		a[i] = (float)((i * 7) % 11 - 5) / 4.0f;
	for (int i = 0; i < B * K * N; i++)
		b[i] = (float)((i * 5) % 13 - 6) / 8.0f;
	tile_arg args[] = {tile_arg_ptr(a, TILE_FP32), tile_arg_ptr(b, TILE_FP32), tile_arg_ptr(c, TILE_FP32)};
	if (!RUN(bdot_src, "k", "*fp32,*fp32,*fp32,2,16,32,16", 1, args))
		return;
	bool ok = true;
	for (int z = 0; z < B; z++)
		for (int i = 0; i < M; i++)
			for (int j = 0; j < N; j++) {
				double want = 1.0; /* small multiples of 1/32: exact in fp32 */
				for (int k = 0; k < K; k++)
					want += (double)a[(z * M + i) * K + k] * b[(z * K + k) * N + j];
				ok &= c[(z * M + i) * N + j] == (float)want;
			}
	CHECK(ok);
}

/* Batched dots of 4 and 8 batches (one 2-D dot per batch, the batch split
 * off in halves), fp16 on tensor cores and int8: each batch's own operands
 * (distinct per batch, so a swapped or repeated batch shows), fp16 extremes
 * (+-65504, +-2^-24, -0.0) in products exact in fp32, int8 -128 * -128 sums,
 * and a batch of one. */
static const char bdot2_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(a_ptr, b_ptr, c_ptr, B: tl.constexpr, M: tl.constexpr, K: tl.constexpr, N: tl.constexpr):\n"
	"    bb = tl.arange(0, B)[:, None, None]\n"
	"    oa = bb * M * K + tl.arange(0, M)[None, :, None] * K + tl.arange(0, K)[None, None, :]\n"
	"    ob = bb * K * N + tl.arange(0, K)[None, :, None] * N + tl.arange(0, N)[None, None, :]\n"
	"    oc = bb * M * N + tl.arange(0, M)[None, :, None] * N + tl.arange(0, N)[None, None, :]\n"
	"    tl.store(c_ptr + oc, tl.dot(tl.load(a_ptr + oa), tl.load(b_ptr + ob)))\n";

static void test_batched_dot_split(void)
{
	enum { B = 8, M = 16, K = 32, N = 32 };
	static _Float16 a[B * M * K], b[B * K * N];
	static float c[B * M * N];
	static int8_t ia[B * M * K], ib[B * K * N];
	static int32_t ic[B * M * N];
	for (int i = 0; i < B * M * K; i++) {
		a[i] = (_Float16)((float)((i * 7 + i / (M * K)) % 17 - 8) / 4.0f);
		ia[i] = (int8_t)((i * 37 + 11) % 256 - 128);
	}
	for (int i = 0; i < B * K * N; i++) {
		b[i] = (_Float16)((float)((i * 5 + 3 * (i / (K * N))) % 13 - 6) / 8.0f);
		ib[i] = (int8_t)((i * 53 + 7) % 256 - 128);
	}
	/* batch 3: extremes whose products and sums are exact in fp32 */
	a[3 * M * K + 0] = (_Float16)65504.0f, b[3 * K * N + 0] = (_Float16)-1.0f;
	b[3 * K * N + N] = (_Float16)65504.0f;
	for (int q = 0; q < K; q++) /* row 2: 2^-24 * b[1][j] alone, and a -0.0 */
		a[3 * M * K + 2 * K + q] = (_Float16)(q == 1 ? 5.9604645e-8f : q == 2 ? -0.0f : 0.0f);
	ia[5 * M * K] = ib[5 * K * N] = -128;
	for (int nb = 1; nb <= B; nb *= (nb == 1 ? 4 : 2)) {
		char sig[64];
		snprintf(sig, sizeof sig, "*fp16,*fp16,*fp32,%d,16,32,32", nb);
		tile_arg args[] = {tile_arg_ptr(a, TILE_FP16), tile_arg_ptr(b, TILE_FP16), tile_arg_ptr(c, TILE_FP32)};
		if (RUN(bdot2_src, "k", sig, 1, args)) {
			bool ok = true;
			for (int z = 0; z < nb; z++)
				for (int i = 0; i < M; i++)
					for (int j = 0; j < N; j++) {
						double want = 0.0;
						for (int q = 0; q < K; q++)
							want += (double)a[(z * M + i) * K + q] * (double)b[(z * K + q) * N + j];
						ok &= c[(z * M + i) * N + j] == (float)want;
					}
			CHECK(ok);
		}
		snprintf(sig, sizeof sig, "*i8,*i8,*i32,%d,16,32,32", nb);
		tile_arg iargs[] = {tile_arg_ptr(ia, TILE_I8), tile_arg_ptr(ib, TILE_I8), tile_arg_ptr(ic, TILE_I32)};
		if (RUN(bdot2_src, "k", sig, 1, iargs)) {
			bool ok = true;
			for (int z = 0; z < nb; z++)
				for (int i = 0; i < M; i++)
					for (int j = 0; j < N; j++) {
						int32_t want = 0;
						for (int q = 0; q < K; q++)
							want += ia[(z * M + i) * K + q] * ib[(z * K + q) * N + j];
						ok &= ic[(z * M + i) * N + j] == want;
					}
			CHECK(ok);
		}
	}
}

/* A batched fp32 dot honours input_precision as a 2-D one does: tf32 on the
 * tensor cores by default (cuda-emu; inputs rounded to nearest even with 10
 * mantissa bits), ieee when asked and on the CPU. A's values carry 12 bits,
 * so tf32 rounding shows; B's are exact in tf32 and every sum is exact in
 * fp32. Over 1, 2, 4 and 8 warps (warps over the batch, then M and N). */
static const char bdot_prec_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(a_ptr, b_ptr, c_ptr, d_ptr, B: tl.constexpr, M: tl.constexpr, K: tl.constexpr, N: tl.constexpr):\n"
	"    bb = tl.arange(0, B)[:, None, None]\n"
	"    oa = bb * M * K + tl.arange(0, M)[None, :, None] * K + tl.arange(0, K)[None, None, :]\n"
	"    ob = bb * K * N + tl.arange(0, K)[None, :, None] * N + tl.arange(0, N)[None, None, :]\n"
	"    oc = bb * M * N + tl.arange(0, M)[None, :, None] * N + tl.arange(0, N)[None, None, :]\n"
	"    a = tl.load(a_ptr + oa)\n"
	"    b = tl.load(b_ptr + ob)\n"
	"    tl.store(c_ptr + oc, tl.dot(a, b))\n"
	"    tl.store(d_ptr + oc, tl.dot(a, b, input_precision='ieee'))\n";

static float tf32_rne(float f)
{
	uint32_t x;
	memcpy(&x, &f, 4);
	x = (x + 0xfff + ((x >> 13) & 1)) & 0xffffe000u;
	memcpy(&f, &x, 4);
	return f;
}

static void test_batched_dot_precision(void)
{
	enum { B = 4, M = 16, K = 32, N = 32 };
	static float a[B * M * K], b[B * K * N], c[B * M * N], d[B * M * N];
	for (int i = 0; i < B * M * K; i++)
		a[i] = (float)((i * 2731 + i / (M * K) * 977) % 8191 - 4095) / 4096.0f;
	for (int i = 0; i < B * K * N; i++)
		b[i] = (float)((i * 5 + 3 * (i / (K * N))) % 17 - 8) / 4.0f;
	bool tf32 = strcmp(target, "cpu") != 0;
	for (int w = 1; w <= 8; w *= 2) {
		tile_kernel_options opt = {0};
		opt.num_warps = w;
		tile_arg args[] = {tile_arg_ptr(a, TILE_FP32), tile_arg_ptr(b, TILE_FP32), tile_arg_ptr(c, TILE_FP32),
				   tile_arg_ptr(d, TILE_FP32)};
		if (!RUN_OPT(bdot_prec_src, "k", "*fp32,*fp32,*fp32,*fp32,4,16,32,32", 1, args, &opt))
			return;
		bool ok = true, differs = false;
		for (int z = 0; z < B; z++)
			for (int i = 0; i < M; i++)
				for (int j = 0; j < N; j++) {
					double ieee = 0.0, t = 0.0;
					for (int q = 0; q < K; q++) {
						float x = a[(z * M + i) * K + q], y = b[(z * K + q) * N + j];
						ieee += (double)x * y;
						t += (double)tf32_rne(x) * y;
					}
					ok &= c[(z * M + i) * N + j] == (float)(tf32 ? t : ieee);
					ok &= d[(z * M + i) * N + j] == (float)ieee;
					differs |= (float)t != (float)ieee;
				}
		CHECK(ok && differs);
	}
}

/* ---- scratch shared memory over the pipelining buffers ------------------------------
 * Outside a software-pipelined loop its buffers are dead, so the scratch of a
 * cross-warp reduction before the loop and of the epilogue's layout
 * conversion after it start at offset 0, over them (TirSmemBuf). A
 * persistent loop runs the three phases three times: each reuse must see
 * the previous phase finished (its barriers, the loop's final wait). */

static const char alias_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(a_ptr, b_ptr, s_ptr, c_ptr, K, T: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,\n"
	"      BK: tl.constexpr):\n"
	"    rm = tl.arange(0, BM)\n"
	"    rn = tl.arange(0, BN)\n"
	"    rk = tl.arange(0, BK)\n"
	"    for t in range(T):\n"
	"        s = tl.load(s_ptr + t * BM * BN + rm[:, None] * BN + rn[None, :])\n"
	"        scale = tl.sum(s, axis=0)\n"
	"        acc = tl.zeros((BM, BN), tl.float32)\n"
	"        for kk in range(0, K, BK):\n"
	"            a = tl.load(a_ptr + t * BM * K + rm[:, None] * K + (kk + rk[None, :]))\n"
	"            b = tl.load(b_ptr + (kk + rk[:, None]) * BN + rn[None, :])\n"
	"            acc = tl.dot(a, b, acc)\n"
	"        tl.store(c_ptr + t * BM * BN + rm[:, None] * BN + rn[None, :], acc * scale[None, :])\n";

static void test_scratch_over_pipeline_buffers(void)
{
	enum { T = 3, BM = 32, BN = 32, BK = 16, K = 64 };
	static _Float16 a[T * BM * K], b[K * BN];
	static float s[T * BM * BN], c[T * BM * BN];
	static float af[T * BM * K], bf[K * BN];
	for (int i = 0; i < T * BM * K; i++) {
		af[i] = (float)((i * 7) % 5 - 2);
		a[i] = (_Float16)af[i];
	}
	for (int i = 0; i < K * BN; i++) {
		bf[i] = (float)((i * 3) % 5 - 2);
		b[i] = (_Float16)bf[i];
	}
	for (int i = 0; i < T * BM * BN; i++)
		s[i] = (float)((i * 5) % 3 - 1);
	tile_arg args[] = {tile_arg_ptr(a, TILE_FP16), tile_arg_ptr(b, TILE_FP16), tile_arg_ptr(s, TILE_FP32),
			   tile_arg_ptr(c, TILE_FP32), tile_arg_i32(K)};
	if (!RUN(alias_src, "k", "*fp16:16,*fp16:16,*fp32:16,*fp32:16,i32:16,3,32,32,16", 1, args))
		return;
	bool ok = true; /* small integers: exact in fp32 */
	for (int t = 0; t < T; t++)
		for (int j = 0; j < BN; j++) {
			float scale = 0;
			for (int i = 0; i < BM; i++)
				scale += s[(t * BM + i) * BN + j];
			for (int i = 0; i < BM; i++) {
				float acc = 0;
				for (int k = 0; k < K; k++)
					acc += af[(t * BM + i) * K + k] * bf[k * BN + j];
				ok &= c[(t * BM + i) * BN + j] == acc * scale;
			}
		}
	CHECK(ok);
}

/* ---- host tensor descriptors (signature tensordesc<...>, DLTensor or expanded) ------- */

static const char hdesc_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(a_desc, c_desc, BM: tl.constexpr, BN: tl.constexpr):\n"
	"    pm = tl.program_id(0) * BM\n"
	"    for n in tl.range(0, tl.cdiv(a_desc.shape[1], BN)):\n"
	"        c_desc.store([pm, n * BN], a_desc.load([pm, n * BN]) * 2 + 1)\n";

static void test_host_descriptors(void)
{
	enum { M = 20, N = 12, LD = 16 }; /* a 20x12 view of rows 16 floats apart */
	static float a[M * LD] __attribute__((aligned(64))), c[M * N] __attribute__((aligned(64)));
	for (int i = 0; i < M * LD; i++)
		a[i] = (float)i;
	int64_t ashape[2] = {M, N}, astrides[2] = {LD, 1}, cshape[2] = {M, N}, cstrides[2] = {N, 1};
	DLTensor ta = {.data = a, .ndim = 2, .dtype = {kDLFloat, 32, 1}, .shape = ashape, .strides = astrides};
	DLTensor tc = {.data = c, .ndim = 2, .dtype = {kDLFloat, 32, 1}, .shape = cshape, .strides = cstrides};
	const char *sig = "tensordesc<fp32[8, 8]>,tensordesc<fp32[8,8]>,8,8";
	for (int mode = 0; mode < 2; mode++) {
		memset(c, 0, sizeof c);
		bool ran;
		if (mode == 0) { /* one DLTensor per descriptor parameter */
			tile_arg args[] = {tile_arg_dltensor(&ta), tile_arg_dltensor(&tc), tile_arg_i32(8), tile_arg_i32(8)};
			ran = RUN(hdesc_src, "k", sig, 3, args);
		} else { /* the launch ABI: base, shape (i32), strides but the last (i64) */
			tile_arg args[] = {tile_arg_ptr(a, TILE_FP32), tile_arg_i32(M), tile_arg_i32(N), tile_arg_i64(LD),
					   tile_arg_ptr(c, TILE_FP32), tile_arg_i32(M), tile_arg_i32(N), tile_arg_i64(N)};
			ran = RUN(hdesc_src, "k", sig, 3, args);
		}
		if (!ran)
			return;
		bool ok = true;
		for (int i = 0; i < M; i++)
			for (int j = 0; j < N; j++)
				ok &= c[i * N + j] == a[i * LD + j] * 2 + 1;
		CHECK(ok);
	}
	/* the descriptor contract is checked at launch */
	tile_context_options o = {0};
	o.target = target;
	tile_context *ctx = NULL;
	tile_module *m = NULL;
	tile_kernel *k = NULL;
	if (tile_context_create(&ctx, &o) == TILE_OK && tile_module_load_source(ctx, "t.py", hdesc_src, strlen(hdesc_src), &m) == TILE_OK &&
	    tile_kernel_get(m, "k", sig, NULL, &k) == TILE_OK) {
		int64_t bad_strides[2] = {N + 1, 1};
		DLTensor tb = ta;
		tb.strides = bad_strides;
		tile_arg args[] = {tile_arg_dltensor(&tb), tile_arg_dltensor(&tc), tile_arg_i32(8), tile_arg_i32(8)};
		uint32_t g[3] = {3, 1, 1};
		CHECK(tile_launch(k, g, args, 4, NULL) == TILE_ERROR_INVALID_ARGUMENT &&
		      strstr(tile_errmsg(ctx), "multiple of 16 bytes"));
		int64_t col_major[2] = {1, M};
		tb.strides = col_major;
		CHECK(tile_launch(k, g, args, 4, NULL) == TILE_ERROR_INVALID_ARGUMENT &&
		      strstr(tile_errmsg(ctx), "not contiguous"));
	} else {
		CHECK(!"the descriptor kernel compiles");
	}
	tile_kernel_destroy(k);
	tile_module_destroy(m);
	tile_context_destroy(ctx);
}

/* `tensordesc<...>:16`: a descriptor whose last dimension is a multiple of 16,
 * so its loads and stores vectorize along it. The launch checks the claim, and
 * tile_kernel_get_typed makes it for a descriptor argument where it holds. */
static void test_host_descriptor_last16(void)
{
	enum { M = 20, N = 32, N_ODD = 20 };
	static float a[M * N] __attribute__((aligned(64))), c[M * N] __attribute__((aligned(64)));
	for (int i = 0; i < M * N; i++)
		a[i] = (float)i;
	int64_t shape[2] = {M, N}, strides[2] = {N, 1}, odd_shape[2] = {M, N_ODD};
	DLTensor ta = {.data = a, .ndim = 2, .dtype = {kDLFloat, 32, 1}, .shape = shape, .strides = strides};
	DLTensor tc = {.data = c, .ndim = 2, .dtype = {kDLFloat, 32, 1}, .shape = shape, .strides = strides};
	DLTensor ta_odd = ta, tc_odd = tc;
	ta_odd.shape = tc_odd.shape = odd_shape;
	const char *sig = "tensordesc<fp32[8, 8]>:16,tensordesc<fp32[8,8]>:16,8,8";
	tile_arg args[] = {tile_arg_dltensor(&ta), tile_arg_dltensor(&tc), tile_arg_i32(8), tile_arg_i32(8)};
	memset(c, 0, sizeof c);
	if (RUN(hdesc_src, "k", sig, 3, args)) {
		bool ok = true;
		for (int i = 0; i < M * N; i++)
			ok &= i / N < 3 * 8 ? c[i] == a[i] * 2 + 1 : c[i] == 0;
		CHECK(ok);
	}
	tile_context_options o = {0};
	o.target = target;
	tile_context *ctx = NULL;
	tile_module *m = NULL;
	tile_kernel *k = NULL, *kt = NULL;
	uint32_t g[3] = {3, 1, 1};
	if (tile_context_create(&ctx, &o) != TILE_OK ||
	    tile_module_load_source(ctx, "t.py", hdesc_src, strlen(hdesc_src), &m) != TILE_OK ||
	    tile_kernel_get(m, "k", sig, NULL, &k) != TILE_OK) {
		CHECK(!"the :16 descriptor kernel compiles");
		goto out;
	}
	/* a last dimension of 20 breaks the specialization: as a DLTensor, and as
	 * the launch ABI's shape argument */
	tile_arg odd[] = {tile_arg_dltensor(&ta_odd), tile_arg_dltensor(&tc_odd), tile_arg_i32(8), tile_arg_i32(8)};
	CHECK(tile_launch(k, g, odd, 4, NULL) == TILE_ERROR_INVALID_ARGUMENT &&
	      strstr(tile_errmsg(ctx), "last dimension is not a multiple of 16"));
	tile_arg flat[] = {tile_arg_ptr(a, TILE_FP32), tile_arg_i32(M), tile_arg_i32(N_ODD), tile_arg_i64(N),
			   tile_arg_ptr(c, TILE_FP32), tile_arg_i32(M), tile_arg_i32(N), tile_arg_i64(N)};
	CHECK(tile_launch(k, g, flat, 8, NULL) == TILE_ERROR_INVALID_ARGUMENT &&
	      strstr(tile_errmsg(ctx), "not divisible by 16"));
	/* specialized from descriptor arguments: :16 where the last dimension is
	 * 32, so a launch with 20 is refused; none where it is 20 */
	tile_tensordesc da = {.tensor = &ta, .block_rank = 2, .block_shape = {8, 8}};
	tile_tensordesc dc = {.tensor = &tc, .block_rank = 2, .block_shape = {8, 8}};
	tile_arg typed[] = {tile_arg_tensordesc(&da), tile_arg_tensordesc(&dc), tile_arg_i32(8), tile_arg_i32(8)};
	CHECK(tile_kernel_get_typed(m, "k", typed, 4, NULL, &kt) == TILE_OK);
	if (kt) {
		CHECK(tile_launch(kt, g, typed, 4, NULL) == TILE_OK);
		da.tensor = &ta_odd;
		dc.tensor = &tc_odd;
		CHECK(tile_launch(kt, g, typed, 4, NULL) == TILE_ERROR_INVALID_ARGUMENT &&
		      strstr(tile_errmsg(ctx), "last dimension is not a multiple of 16"));
		tile_kernel_destroy(kt);
		kt = NULL;
		CHECK(tile_kernel_get_typed(m, "k", typed, 4, NULL, &kt) == TILE_OK &&
		      tile_launch(kt, g, typed, 4, NULL) == TILE_OK);
	}
out:
	tile_kernel_destroy(kt);
	tile_kernel_destroy(k);
	tile_module_destroy(m);
	tile_context_destroy(ctx);
}

/* ---- tl.inline_asm_elementwise: the PTX translated, run on every target ---------- */

static const char asm_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def tanh_approx(x):\n"
	"    return tl.inline_asm_elementwise('tanh.approx.f32 $0, $1;', '=f,f', [x], dtype=tl.float32,\n"
	"                                     is_pure=True, pack=1)\n"
	"@triton.jit\n"
	"def k(x_ptr, y_ptr, b_ptr, i_ptr, h_ptr, f_out, u_out, b_out, h_out, n, BLOCK: tl.constexpr):\n"
	"    offs = tl.arange(0, BLOCK)\n"
	"    m = offs < n\n"
	"    x = tl.load(x_ptr + offs, mask=m, other=1.0)\n"
	"    y = tl.load(y_ptr + offs, mask=m, other=1.0)\n"
	"    q = tl.inline_asm_elementwise('div.rn.f32 $0, $1, $2;', '=r,r,r', [x, y], dtype=tl.float32,\n"
	"                                  is_pure=True, pack=1)\n"
	/* a block with a predicate, a temporary, hex float literals and a guard */
	"    r = tl.inline_asm_elementwise(\"\"\"{\n"
	"        .reg .pred p;\n"
	"        .reg .f32 t;\n"
	"        setp.gt.f32 p, $1, 0f00000000;   // x > 0\n"
	"        selp.f32 t, $1, 0f00000000, p;\n"
	"        add.f32 $0, t, t;\n"
	"        @!p mov.f32 $0, 0fBF800000;      // -1 where x <= 0\n"
	"    }\"\"\", '=f,f', [x], dtype=tl.float32, is_pure=True, pack=1)\n"
	"    tl.store(f_out + offs, tanh_approx(x), mask=m)\n"
	"    tl.store(f_out + BLOCK + offs, q, mask=m)\n"
	"    tl.store(f_out + 2 * BLOCK + offs, r, mask=m)\n"
	/* two results; a packed conversion; a 3-input logic op */
	"    i = tl.load(i_ptr + offs, mask=m, other=0)\n"
	"    lo, hi = tl.inline_asm_elementwise('mov.b64 {$0, $1}, $2;', '=r,=r,l', [i.to(tl.uint64) * 3],\n"
	"                                       dtype=(tl.uint32, tl.uint32), is_pure=True, pack=1)\n"
	"    cv = tl.inline_asm_elementwise('cvt.rn.f16x2.f32 $0, $1, $2;', '=r,f,f', [x, y], dtype=tl.uint32,\n"
	"                                   is_pure=True, pack=1)\n"
	"    maj = tl.inline_asm_elementwise('lop3.b32 $0, $1, $2, $3, 0xE8;', '=r,r,r,r', [i, i * 5, i ^ 0x5a5a],\n"
	"                                    dtype=tl.int32, is_pure=True, pack=1)\n"
	"    tl.store(u_out + offs, lo, mask=m)\n"
	"    tl.store(u_out + BLOCK + offs, hi, mask=m)\n"
	"    tl.store(u_out + 2 * BLOCK + offs, cv, mask=m)\n"
	"    tl.store(u_out + 3 * BLOCK + offs, maj.to(tl.uint32, bitcast=True), mask=m)\n"
	/* pack=4 bytes in one register: reverse each group of 4 */
	"    b = tl.load(b_ptr + offs)\n"
	"    rev = tl.inline_asm_elementwise('prmt.b32 $0, $1, $2, 0x0123;', '=r,r,r', [b, b], dtype=tl.uint8,\n"
	"                                    is_pure=True, pack=4)\n"
	"    tl.store(b_out + offs, rev)\n"
	/* pack=2 halves in one register, an x2 op */
	"    h = tl.load(h_ptr + offs)\n"
	"    hs = tl.inline_asm_elementwise('add.rn.f16x2 $0, $1, $2;', '=r,r,r', [h, h * 2], dtype=tl.float16,\n"
	"                                   is_pure=True, pack=2)\n"
	"    tl.store(h_out + offs, hs)\n";

static uint16_t half_bits(float f)
{
	_Float16 h = (_Float16)f;
	uint16_t b;
	memcpy(&b, &h, 2);
	return b;
}

static void test_inline_asm(void)
{
	enum { N = 45, B = 64 };
	float x[N], y[N], fo[3 * B];
	int32_t iv[N];
	uint32_t uo[4 * B];
	uint8_t bv[B], bo[B];
	_Float16 hv[B], ho[B];
	for (int i = 0; i < N; i++)
		x[i] = (float)(i - 20) / 7.0f, y[i] = 0.25f + (float)i / 3.0f, iv[i] = i * 2654435 - 77777;
	for (int i = 0; i < B; i++)
		bv[i] = (uint8_t)(i * 37 + 1), hv[i] = (_Float16)((float)i / 8.0f - 3.0f);
	tile_arg args[] = {tile_arg_ptr(x, TILE_FP32),  tile_arg_ptr(y, TILE_FP32),  tile_arg_ptr(bv, TILE_U8),
			   tile_arg_ptr(iv, TILE_I32), tile_arg_ptr(hv, TILE_FP16), tile_arg_ptr(fo, TILE_FP32),
			   tile_arg_ptr(uo, TILE_U32), tile_arg_ptr(bo, TILE_U8),  tile_arg_ptr(ho, TILE_FP16),
			   tile_arg_i32(N)};
	if (!RUN(asm_src, "k", "*fp32,*fp32,*u8,*i32,*fp16,*fp32,*u32,*u8,*fp16,i32,64", 1, args))
		return;
	bool ok_tanh = true, ok_div = true, ok_sel = true, ok_mov = true, ok_cvt = true, ok_lop = true;
	for (int i = 0; i < N; i++) {
		ok_tanh &= fabsf(fo[i] - tanhf(x[i])) <= 1e-6f;
		ok_div &= fo[B + i] == x[i] / y[i];
		ok_sel &= fo[2 * B + i] == (x[i] > 0 ? 2 * x[i] : -1.0f);
		uint64_t w = (uint64_t)(int64_t)iv[i] * 3;
		ok_mov &= uo[i] == (uint32_t)w && uo[B + i] == (uint32_t)(w >> 32);
		ok_cvt &= uo[2 * B + i] == ((uint32_t)half_bits(x[i]) << 16 | half_bits(y[i]));
		uint32_t a = (uint32_t)iv[i], b = (uint32_t)(iv[i] * 5), c = (uint32_t)(iv[i] ^ 0x5a5a);
		ok_lop &= uo[3 * B + i] == ((a & b) | (a & c) | (b & c));
	}
	CHECK(ok_tanh);
	CHECK(ok_div);
	CHECK(ok_sel);
	CHECK(ok_mov);
	CHECK(ok_cvt);
	CHECK(ok_lop);
	bool ok_prmt = true, ok_h = true;
	for (int i = 0; i < B; i++) {
		ok_prmt &= bo[i] == bv[(i / 4) * 4 + 3 - i % 4];
		ok_h &= ho[i] == (_Float16)((float)hv[i] + (float)(_Float16)((float)hv[i] * 2));
	}
	CHECK(ok_prmt);
	CHECK(ok_h);
}

/* PTX integer literals as ptxas reads them: 010 is octal (it was 10), 0b
 * binary, a U suffix, and -0x8000000000000000 (negated in 64 bits, was
 * signed overflow) */
static const char asm_lit_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(o_ptr, w_ptr):\n"
	"    i = tl.arange(0, 32)\n"
	"    a = tl.inline_asm_elementwise('{ .reg .s32 t; add.s32 t, $1, 010; add.s32 t, t, 0b101; add.s32 $0, t, 0x10U; }',\n"
	"                                  '=r,r', [i], dtype=tl.int32, is_pure=True, pack=1)\n"
	"    w = tl.inline_asm_elementwise('add.s64 $0, $1, -0x8000000000000000;', '=l,l', [i.to(tl.int64)],\n"
	"                                  dtype=tl.int64, is_pure=True, pack=1)\n"
	"    tl.store(o_ptr + i, a)\n"
	"    tl.store(w_ptr + i, w)\n";

static void test_inline_asm_literals(void)
{
	int32_t o[32];
	int64_t w[32];
	tile_arg args[] = {tile_arg_ptr(o, TILE_I32), tile_arg_ptr(w, TILE_I64)};
	if (!RUN(asm_lit_src, "k", "*i32,*i64", 1, args))
		return;
	bool ok = true;
	for (int i = 0; i < 32; i++)
		ok &= o[i] == i + 8 + 5 + 16 && w[i] == INT64_MIN + i;
	CHECK(ok);
}

/* A `.reg` declared at the asm string's top level (outside `{ }`), as
 * ptxas accepts in one asm statement: each asm call is its own scope, so two
 * copies in one kernel (and a helper inlined twice) do not clash, and the
 * temporary of one never leaks into the other. */
static const char asm_toplevel_reg_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def add3(x):\n"
	"    return tl.inline_asm_elementwise('.reg .s32 t; add.s32 t, $1, 3; mov.b32 $0, t;', '=r,r', [x],\n"
	"                                     dtype=tl.int32, is_pure=True, pack=1)\n"
	"@triton.jit\n"
	"def k(X, Y):\n"
	"    o = tl.arange(0, 32)\n"
	"    x = tl.load(X + o)\n"
	"    a = tl.inline_asm_elementwise(\"\"\"\n"
	"        .reg .s32 t;\n"
	"        .reg .pred p;\n"
	"        mul.lo.s32 t, $1, 2;\n"
	"        setp.lt.s32 p, $1, 10;\n"
	"        @p add.s32 t, t, 1000;\n"
	"        mov.b32 $0, t;\n"
	"    \"\"\", '=r,r', [x], dtype=tl.int32, is_pure=True, pack=1)\n"
	"    b = tl.inline_asm_elementwise('.reg .s32 t; mul.lo.s32 t, $1, $1; mov.b32 $0, t;', '=r,r', [x],\n"
	"                                  dtype=tl.int32, is_pure=True, pack=1)\n"
	"    tl.store(Y + o, a + b + add3(x) + add3(b))\n";

static void test_inline_asm_toplevel_reg(void)
{
	int32_t x[32], y[32];
	for (int i = 0; i < 32; i++)
		x[i] = i - 7;
	tile_arg args[] = {tile_arg_ptr(x, TILE_I32), tile_arg_ptr(y, TILE_I32)};
	if (!RUN(asm_toplevel_reg_src, "k", "*i32,*i32", 1, args))
		return;
	bool ok = true;
	for (int i = 0; i < 32; i++) {
		int32_t v = x[i], a = v * 2 + (v < 10 ? 1000 : 0), b = v * v;
		ok &= y[i] == a + b + (v + 3) + (b + 3);
	}
	CHECK(ok);
}

static const char asm_bits_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(X, Y, Z):\n"
	"    o = tl.arange(0, 64)\n"
	"    x = tl.load(X + o)\n"
	"    y = tl.inline_asm_elementwise('bfe.s32 $0, $1, 4, 8;', '=r,r', [x], dtype=tl.int32, is_pure=True, pack=1)\n"
	"    z = tl.inline_asm_elementwise('bfi.b32 $0, $1, $2, 8, 4;', '=r,r,r', [x, x * 3], dtype=tl.int32,\n"
	"                                  is_pure=True, pack=1)\n"
	"    tl.store(Y + o, y)\n"
	"    tl.store(Z + o, z)\n";

/* bfe (sign-extended bit field extract) and bfi (bit field insert) */
static void test_inline_asm_bits(void)
{
	int32_t x[64], y[64], z[64];
	for (int i = 0; i < 64; i++)
		x[i] = (int32_t)((uint32_t)i * 2654435761u);
	tile_arg args[] = {tile_arg_ptr(x, TILE_I32), tile_arg_ptr(y, TILE_I32), tile_arg_ptr(z, TILE_I32)};
	if (!RUN(asm_bits_src, "k", "*i32,*i32,*i32", 1, args))
		return;
	bool ok = true;
	for (int i = 0; i < 64; i++) {
		int32_t f = (int32_t)(((uint32_t)x[i] >> 4) & 0xff);
		uint32_t b = (uint32_t)x[i] * 3u;
		ok &= y[i] == (f >= 128 ? f - 256 : f);
		ok &= (uint32_t)z[i] == ((b & ~(0xfu << 8)) | (((uint32_t)x[i] << 8) & (0xfu << 8)));
	}
	CHECK(ok);
}

/* shf (funnel shift) of the 64 bits {hi:lo}: .l keeps the upper word, .r the
 * lower; .wrap takes the amount mod 32, .clamp caps it at 32 (PyTorch's
 * inline_asm_kernel test kernel rotates with shf.l.wrap.b32) */
static const char asm_shf_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(X, Y, N, Z):\n"
	"    o = tl.arange(0, 64)\n"
	"    x = tl.load(X + o)\n"
	"    y = tl.load(Y + o)\n"
	"    n = tl.load(N + o)\n"
	"    a = tl.inline_asm_elementwise('shf.l.wrap.b32 $0, $1, $2, $3;', '=r,r, r, r', [x, y, n], dtype=tl.int32,\n"
	"                                  is_pure=True, pack=1)\n"
	"    b = tl.inline_asm_elementwise('shf.r.wrap.b32 $0, $1, $2, $3;', '=r,r,r,r', [x, y, n], dtype=tl.int32,\n"
	"                                  is_pure=True, pack=1)\n"
	"    c = tl.inline_asm_elementwise('shf.l.clamp.b32 $0, $1, $2, $3;', '=r,r,r,r', [x, y, n], dtype=tl.int32,\n"
	"                                  is_pure=True, pack=1)\n"
	"    d = tl.inline_asm_elementwise('shf.r.clamp.b32 $0, $1, $2, 5;', '=r,r,r', [x, y], dtype=tl.int32,\n"
	"                                  is_pure=True, pack=1)\n"
	"    tl.store(Z + o, a)\n"
	"    tl.store(Z + 64 + o, b)\n"
	"    tl.store(Z + 128 + o, c)\n"
	"    tl.store(Z + 192 + o, d)\n";

static uint32_t shf_ref(uint32_t lo, uint32_t hi, uint32_t n, bool left, bool wrap)
{
	n = wrap ? n & 31 : (n > 32 ? 32 : n);
	uint64_t v = ((uint64_t)hi << 32) | lo;
	return left ? (uint32_t)((v << n) >> 32) : (uint32_t)(v >> n);
}

static void test_inline_asm_shf(void)
{
	int32_t x[64], y[64], n[64], z[256];
	for (int i = 0; i < 64; i++) {
		x[i] = (int32_t)((uint32_t)i * 2654435761u);
		y[i] = (int32_t)((uint32_t)(i + 7) * 40503u ^ 0x80000001u);
		n[i] = i < 40 ? i : (int32_t)((uint32_t)i * 77u + (i & 1 ? 0x80000000u : 0u));
	}
	tile_arg args[] = {tile_arg_ptr(x, TILE_I32), tile_arg_ptr(y, TILE_I32), tile_arg_ptr(n, TILE_I32),
	                   tile_arg_ptr(z, TILE_I32)};
	if (!RUN(asm_shf_src, "k", "*i32,*i32,*i32,*i32", 1, args))
		return;
	bool ok = true;
	for (int i = 0; i < 64; i++) {
		uint32_t lo = (uint32_t)x[i], hi = (uint32_t)y[i], s = (uint32_t)n[i];
		ok &= (uint32_t)z[i] == shf_ref(lo, hi, s, true, true);
		ok &= (uint32_t)z[64 + i] == shf_ref(lo, hi, s, false, true);
		ok &= (uint32_t)z[128 + i] == shf_ref(lo, hi, s, true, false);
		ok &= (uint32_t)z[192 + i] == shf_ref(lo, hi, 5, false, false);
	}
	CHECK(ok);
}

/* Complementary guards define a register no instruction wrote before
 * (@p mov $0 ..; @!p ex2 $0 ..), as PTX allows (softplus written so); each
 * guarded write also reads the value its predecessor left. */
static const char asm_guard_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(X, Y, Z):\n"
	"    o = tl.arange(0, 64)\n"
	"    x = tl.load(X + o)\n"
	"    y = tl.inline_asm_elementwise(\"\"\"{\n"
	"        .reg .pred big;\n"
	"        setp.gt.f32 big, $1, 12.;\n"
	"        @big mov.f32 $0, $1;\n"
	"        @!big ex2.approx.f32 $0, $1;\n"
	"        @!big add.f32 $0, $0, 1.0;\n"
	"        @!big lg2.approx.f32 $0, $0;\n"
	"    }\"\"\", '=r,r', [x], dtype=tl.float32, is_pure=True, pack=1)\n"
	"    i = x.to(tl.int32)\n"
	"    z = tl.inline_asm_elementwise('{ .reg .pred n; .reg .s32 t; setp.lt.s32 n, $1, 0; @n neg.s32 t, $1;'\n"
	"                                  ' @!n add.s32 t, $1, 100; mov.b32 $0, t; }', '=r,r', [i], dtype=tl.int32,\n"
	"                                  is_pure=True, pack=1)\n"
	"    tl.store(Y + o, y)\n"
	"    tl.store(Z + o, z)\n";

static void test_inline_asm_guards(void)
{
	float x[64], y[64];
	int32_t z[64];
	for (int i = 0; i < 64; i++)
		x[i] = (float)(i - 32) * 0.625f;
	tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(y, TILE_FP32), tile_arg_ptr(z, TILE_I32)};
	if (!RUN(asm_guard_src, "k", "*fp32,*fp32,*i32", 1, args))
		return;
	bool ok_y = true, ok_z = true;
	for (int i = 0; i < 64; i++) {
		double want = x[i] > 12.f ? x[i] : log2(1.0 + exp2((double)x[i]));
		ok_y &= fabs(y[i] - want) <= 1e-5 * (1 + fabs(want));
		int32_t v = (int32_t)x[i];
		ok_z &= z[i] == (v < 0 ? -v : v + 100);
	}
	CHECK(ok_y);
	CHECK(ok_z);
}

static const char asm_fp4_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(X, Y, Q, H, B, G):\n"
	"    o = tl.arange(0, 64)\n"
	"    x = tl.load(X + o)\n"
	"    y = tl.load(Y + o)\n"
	/* two f32 -> one e2m1x2 byte (x in the high nibble), widened to a u32 */
	"    q = tl.inline_asm_elementwise('''{\n"
	"        .reg .b8 pk;\n"
	"        cvt.rn.satfinite.e2m1x2.f32 pk, $1, $2;\n"
	"        cvt.u32.u8 $0, pk;\n"
	"    }''', '=r,f,f', [x, y], dtype=tl.uint32, is_pure=True, pack=1)\n"
	"    tl.store(Q + o, q)\n"
	/* and back: one byte -> f16x2, the low nibble in the low half */
	"    h = tl.inline_asm_elementwise('''{\n"
	"        .reg .b8 pk;\n"
	"        cvt.u8.u32 pk, $1;\n"
	"        cvt.rn.f16x2.e2m1x2 $0, pk;\n"
	"    }''', '=r,r', [q], dtype=tl.uint32, is_pure=True, pack=1)\n"
	"    tl.store(H + o, h)\n"
	/* pack=4: four bytes of one register split into .b8 temporaries, each to f16x2 */
	"    b = tl.load(B + o)\n"
	"    g = tl.inline_asm_elementwise('''{\n"
	"        .reg .b8 q0, q1, q2, q3;\n"
	"        mov.b32 {q0, q1, q2, q3}, $4;\n"
	"        cvt.rn.f16x2.e2m1x2 $3, q3;\n"
	"        cvt.rn.f16x2.e2m1x2 $2, q2;\n"
	"        cvt.rn.f16x2.e2m1x2 $1, q1;\n"
	"        cvt.rn.f16x2.e2m1x2 $0, q0;\n"
	"    }''', '=r,=r,=r,=r,r', [b], dtype=tl.uint32, is_pure=True, pack=4)\n"
	"    tl.store(G + o, g)\n";

/* e2m1 (fp4): sign, 2 exponent bits, 1 mantissa bit */
static float e2m1_value(unsigned code)
{
	static const float mag[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
	return code & 8 ? -mag[code & 7] : mag[code & 7];
}

/* round to nearest, ties to the even code, saturating at 6; NaN -> +6 */
static unsigned e2m1_code(float f)
{
	if (f != f)
		return 7;
	float a = fabsf(f);
	unsigned c = (unsigned)(a > 0.25f) + (a >= 0.75f) + (a > 1.25f) + (a >= 1.75f) + (a > 2.5f) +
		     (a >= 3.5f) + (a > 5.0f);
	return c | (signbit(f) ? 8u : 0u);
}

/* cvt between f32/f16x2 and the packed fp4 e2m1x2 (NVFP4 quantization kernels) */
static void test_inline_asm_fp4(void)
{
	float x[64], y[64];
	uint32_t q[64], h[64], g[64];
	uint8_t b[64];
	static const float probe[] = {0.0f, -0.0f, 0.25f, 0.26f, 0.75f, -0.74f, 1.25f, 1.75f, 2.5f, -2.6f,
				      3.5f, 4.9f, 5.0f, 5.1f, -7.0f, 1e9f, -1e-9f, 2.0f, 3.0f, -6.0f};
	for (int i = 0; i < 64; i++) {
		x[i] = i < 20 ? probe[i] : (float)((i * 37) % 29 - 14) / 4.0f;
		y[i] = i < 20 ? probe[19 - i] : (float)((i * 11) % 31 - 15) / 3.0f;
		b[i] = (uint8_t)(i * 73 + 5);
	}
	x[63] = NAN;
	tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(y, TILE_FP32), tile_arg_ptr(q, TILE_U32),
			   tile_arg_ptr(h, TILE_U32),  tile_arg_ptr(b, TILE_U8),   tile_arg_ptr(g, TILE_U32)};
	if (!RUN(asm_fp4_src, "k", "*fp32,*fp32,*u32,*u32,*u8,*u32", 1, args))
		return;
	bool ok_enc = true, ok_dec = true, ok_pack = true;
	for (int i = 0; i < 64; i++) {
		unsigned want = e2m1_code(x[i]) << 4 | e2m1_code(y[i]);
		ok_enc &= q[i] == want;
		ok_dec &= h[i] == ((uint32_t)half_bits(e2m1_value(want >> 4)) << 16 | half_bits(e2m1_value(want & 15)));
		ok_pack &= g[i] == ((uint32_t)half_bits(e2m1_value(b[i] >> 4u)) << 16 | half_bits(e2m1_value(b[i] & 15u)));
	}
	CHECK(ok_enc);
	CHECK(ok_dec);
	CHECK(ok_pack);
}

/* ---- libdevice functions: libm-backed, conversions, compositions ------------------- */

static const char libdevice_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"from triton.language.extra.cuda import libdevice\n"
	"@triton.jit\n"
	"def k(x_ptr, i_ptr, l_ptr, f_out, i_out, l_out, BLOCK: tl.constexpr):\n"
	"    o = tl.arange(0, BLOCK)\n"
	"    x = tl.load(x_ptr + o)\n"
	"    i = tl.load(i_ptr + o)\n"
	"    l = tl.load(l_ptr + o)\n"
	"    u = tl.minimum(tl.abs(x) * 0.09, 0.999)\n"
	"    tl.store(f_out + 0 * BLOCK + o, libdevice.erfinv(u))\n"
	"    tl.store(f_out + 1 * BLOCK + o, libdevice.normcdf(x))\n"
	"    tl.store(f_out + 2 * BLOCK + o, libdevice.log10(tl.abs(x) + 0.5))\n"
	"    tl.store(f_out + 3 * BLOCK + o, libdevice.lgamma(tl.abs(x) + 0.25))\n"
	"    tl.store(f_out + 4 * BLOCK + o, libdevice.sinpi(x))\n"
	"    tl.store(f_out + 5 * BLOCK + o, libdevice.saturatef(x))\n"
	"    tl.store(f_out + 6 * BLOCK + o, libdevice.ldexp(x, i % 300))\n"
	"    tl.store(f_out + 7 * BLOCK + o, libdevice.int_as_float(i))\n"
	"    tl.store(f_out + 8 * BLOCK + o, libdevice.asinh(x))\n"
	"    tl.store(i_out + 0 * BLOCK + o, libdevice.float2int_rn(x * 1e9))\n"
	"    tl.store(i_out + 1 * BLOCK + o, libdevice.float2int_rd(x))\n"
	"    tl.store(i_out + 2 * BLOCK + o, libdevice.brev(i))\n"
	"    tl.store(i_out + 3 * BLOCK + o, libdevice.ffs(i))\n"
	"    tl.store(i_out + 4 * BLOCK + o, libdevice.mulhi(i, i * 7 + 3))\n"
	"    tl.store(i_out + 5 * BLOCK + o, libdevice.byte_perm(i, i * 3, 0x7531))\n"
	"    tl.store(i_out + 6 * BLOCK + o, libdevice.hadd(i, i * 5) + libdevice.rhadd(i, 77))\n"
	"    tl.store(i_out + 7 * BLOCK + o, libdevice.mul24(i, i + 1))\n"
	"    tl.store(i_out + 8 * BLOCK + o, libdevice.ilogb(x))\n"
	"    tl.store(l_out + 0 * BLOCK + o, libdevice.mulhi(l, l * 3 + 1))\n"
	"    tl.store(l_out + 1 * BLOCK + o, libdevice.brev(l))\n"
	"    tl.store(l_out + 2 * BLOCK + o, libdevice.llround(x * 3.0))\n";

static uint32_t brev32(uint32_t v)
{
	uint32_t r = 0;
	for (int b = 0; b < 32; b++)
		r |= ((v >> b) & 1u) << (31 - b);
	return r;
}

static int32_t sat_i32(double v)
{
	return v != v ? 0 : v >= 2147483647.0 ? INT32_MAX : v <= -2147483648.0 ? INT32_MIN : (int32_t)v;
}

static void test_libdevice(void)
{
	enum { B = 64 };
	float x[B], fo[9 * B];
	int32_t iv[B], io[9 * B];
	int64_t lv[B], lo[3 * B];
	for (int i = 0; i < B; i++) {
		x[i] = (float)(i - 31) * 0.37f;
		iv[i] = (int32_t)(i * 0x9E3779B1u) ^ (i << 3);
		lv[i] = (int64_t)((uint64_t)iv[i] * 0x9E3779B97F4A7C15ull);
	}
	x[3] = NAN, x[4] = 1e30f, x[5] = -1e30f, x[6] = 0.5f, x[7] = -2.5f;
	iv[0] = 0, iv[1] = INT32_MIN, iv[2] = -1;
	tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(iv, TILE_I32), tile_arg_ptr(lv, TILE_I64),
			   tile_arg_ptr(fo, TILE_FP32), tile_arg_ptr(io, TILE_I32), tile_arg_ptr(lo, TILE_I64)};
	if (!RUN(libdevice_src, "k", "*fp32,*i32,*i64,*fp32,*i32,*i64,64", 1, args))
		return;
	bool ok[21];
	for (int j = 0; j < 21; j++)
		ok[j] = true;
	for (int i = 0; i < B; i++) {
		float a = x[i];
		float u = fminf(fabsf(a) * 0.09f, 0.999f);
		if (a == a) {
			ok[0] &= fabsf(erff(fo[i]) - u) <= 2e-6f * (1 + 100 * (u > 0.99f));
			ok[1] &= fabsf(fo[B + i] - 0.5f * erfcf(-a / sqrtf(2.0f))) <= 1e-6f;
			ok[2] &= fabsf(fo[2 * B + i] - log10f(fabsf(a) + 0.5f)) <= 1e-6f * fabsf(log10f(fabsf(a) + 0.5f)) + 1e-7f;
			ok[3] &= fabsf(fo[3 * B + i] - lgammaf(fabsf(a) + 0.25f)) <= 1e-5f * fmaxf(1, fabsf(lgammaf(fabsf(a) + 0.25f)));
			ok[8] &= fabsf(fo[8 * B + i] - asinhf(a)) <= 1e-6f * fmaxf(1, fabsf(asinhf(a)));
		}
		if (fabsf(a) < 1e6f)
			ok[4] &= fabsf(fo[4 * B + i] - (float)sin(M_PI * fmod((double)a, 2.0))) <= 1e-6f;
		ok[5] &= fo[5 * B + i] == (a > 0 ? (a < 1 ? a : 1) : 0);
		ok[6] &= a != a ? fo[6 * B + i] != fo[6 * B + i] : fo[6 * B + i] == ldexpf(a, iv[i] % 300);
		float bits;
		memcpy(&bits, &iv[i], 4);
		ok[7] &= memcmp(&fo[7 * B + i], &bits, 4) == 0;
		ok[9] &= io[i] == sat_i32(rint((double)a * 1e9)) || (a == a && fabs((double)a * 1e9 - (double)io[i]) <= 64);
		ok[10] &= io[B + i] == sat_i32(floor((double)a));
		ok[11] &= (uint32_t)io[2 * B + i] == brev32((uint32_t)iv[i]);
		ok[12] &= io[3 * B + i] == ffs(iv[i]);
		int32_t y = (int32_t)((uint32_t)iv[i] * 7u + 3u);
		ok[13] &= io[4 * B + i] == (int32_t)(((int64_t)iv[i] * y) >> 32);
		uint64_t v = (uint64_t)(uint32_t)((uint32_t)iv[i] * 3u) << 32 | (uint32_t)iv[i];
		uint32_t bp = 0;
		for (int n = 0; n < 4; n++)
			bp |= (uint32_t)((v >> (8 * ((0x7531 >> (4 * n)) & 7))) & 0xff) << (8 * n);
		ok[14] &= (uint32_t)io[5 * B + i] == bp;
		int64_t i5 = (int32_t)((uint32_t)iv[i] * 5u);
		ok[15] &= io[6 * B + i] == (int32_t)((uint32_t)(int32_t)(((int64_t)iv[i] + i5) >> 1) +
		                                     (uint32_t)(int32_t)(((int64_t)iv[i] + 77 + 1) >> 1));
		int32_t a24 = (int32_t)((uint32_t)iv[i] << 8) >> 8, b24 = (int32_t)((uint32_t)(iv[i] + 1) << 8) >> 8;
		ok[16] &= io[7 * B + i] == (int32_t)((uint32_t)a24 * (uint32_t)b24);
		ok[17] &= a != a || a == 0 || io[8 * B + i] == ilogbf(a);
		int64_t m = (int64_t)((uint64_t)lv[i] * 3u + 1u);
		ok[18] &= lo[i] == (int64_t)(((__int128)lv[i] * m) >> 64);
		uint64_t br = (uint64_t)brev32((uint32_t)lv[i]) << 32 | brev32((uint32_t)((uint64_t)lv[i] >> 32));
		ok[19] &= (uint64_t)lo[B + i] == br;
		ok[20] &= a != a || fabsf(a) > 1e18f || lo[2 * B + i] == llroundf(a * 3.0f);
	}
	for (int j = 0; j < 21; j++)
		if (!ok[j])
			fprintf(stderr, "libdevice check %d failed\n", j);
	bool all = true;
	for (int j = 0; j < 21; j++)
		all &= ok[j];
	CHECK(all);
}

/* ---- tuple parameters: signature (...) entries, runtime elements flattened in order -- */

static const char tuple_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(out_ptr, src, strides, shape, n, BLOCK: tl.constexpr):\n"
	"    x_ptr, y_ptr = src\n"
	"    r = tl.program_id(0)\n"
	"    offs = tl.arange(0, BLOCK)\n"
	"    m = offs < shape[1]\n"
	"    x = tl.load(x_ptr + r * strides[0] + offs * strides[1], mask=m, other=0)\n"
	"    y = tl.load(y_ptr + r * strides[0] + offs * strides[1], mask=m, other=0)\n"
	"    tl.store(out_ptr + r * shape[1] + offs, x * len(strides) + y * n + shape[0], mask=m)\n";

static void test_tuple_params(void)
{
	enum { ROWS = 3, COLS = 40, LD = 48, N = 7 };
	int32_t x[ROWS * LD], y[ROWS * LD], out[ROWS * COLS];
	for (int i = 0; i < ROWS * LD; i++)
		x[i] = i % 11 - 5, y[i] = i % 13;
	for (int i = 0; i < ROWS * COLS; i++)
		out[i] = -1;
	/* src = (x, y), strides = (LD, 1) with 1 specialized, shape = (ROWS constant, COLS) */
	tile_arg args[] = {tile_arg_ptr(out, TILE_I32), tile_arg_ptr(x, TILE_I32), tile_arg_ptr(y, TILE_I32),
			   tile_arg_i32(LD), tile_arg_i32(1), tile_arg_i32(COLS), tile_arg_i32(N)};
	if (!RUN(tuple_src, "k", "*i32,(*i32:16,*i32:16),(i32:16,i32:1),(3,i32,),i32,64", ROWS, args))
		return;
	bool ok = true;
	for (int r = 0; r < ROWS; r++)
		for (int c = 0; c < COLS; c++)
			ok &= out[r * COLS + c] == x[r * LD + c] * 2 + y[r * LD + c] * N + ROWS;
	CHECK(ok);
}

/* The same kernel from C values: tile_arg_tuple specializes each element as a
 * parameter of its own, and the all-parameters launch passes the runtime ones. */
static void test_tuple_args_typed(void)
{
	enum { ROWS = 3, COLS = 40, LD = 48, N = 7 };
	int32_t x[ROWS * LD], y[ROWS * LD], out[ROWS * COLS];
	for (int i = 0; i < ROWS * LD; i++)
		x[i] = i % 11 - 5, y[i] = i % 13;
	for (int i = 0; i < ROWS * COLS; i++)
		out[i] = -1;
	tile_context_options o = {0};
	o.target = target;
	o.disable_cache = 1;
	tile_context *ctx = NULL;
	tile_module *m = NULL;
	tile_kernel *k = NULL;
	tile_arg src_e[] = {tile_arg_ptr(x, TILE_I32), tile_arg_ptr(y, TILE_I32)};
	tile_arg str_e[] = {tile_arg_i32(LD), tile_arg_i32(1)};
	tile_arg shp_e[] = {tile_arg_i32(ROWS), tile_arg_i32(COLS)};
	tile_tuple src_t = {src_e, 2}, str_t = {str_e, 2}, shp_t = {shp_e, 2};
	tile_arg args[] = {tile_arg_ptr(out, TILE_I32), tile_arg_tuple(&src_t), tile_arg_tuple(&str_t),
			   tile_arg_tuple(&shp_t), tile_arg_i32(N), tile_arg_i32(64)};
	if (tile_context_create(&ctx, &o) != TILE_OK ||
	    tile_module_load_source(ctx, "t.py", tuple_src, strlen(tuple_src), &m) != TILE_OK ||
	    tile_kernel_get_typed(m, "k", args, 6, NULL, &k) != TILE_OK) {
		CHECK(!"the tuple kernel specializes from typed arguments");
	} else {
		/* every element a runtime slot (strides[1] == 1 is specialized, as a
		 * parameter equal to 1 is, but keeps its slot): 1 + 2 + 2 + 2 + 1 */
		tile_kernel_info info;
		CHECK(tile_kernel_get_info(k, &info) == TILE_OK && info.num_runtime_args == 8);
		uint32_t g[3] = {ROWS, 1, 1};
		CHECK(tile_launch(k, g, args, 6, NULL) == TILE_OK);
		bool ok = true;
		for (int r = 0; r < ROWS; r++)
			for (int c = 0; c < COLS; c++)
				ok &= out[r * COLS + c] == x[r * LD + c] * 2 + y[r * LD + c] * N + ROWS;
		CHECK(ok);
		/* a tuple of the wrong length, and a scalar where the tuple goes */
		tile_tuple short_t = {shp_e, 1};
		args[3] = tile_arg_tuple(&short_t);
		CHECK(tile_launch(k, g, args, 6, NULL) == TILE_ERROR_INVALID_ARGUMENT &&
		      strstr(tile_errmsg(ctx), "'shape' is a tuple of 2 elements"));
		args[3] = tile_arg_tuple(&shp_t);
		args[2] = tile_arg_i32(LD);
		CHECK(tile_launch(k, g, args, 6, NULL) == TILE_ERROR_INVALID_ARGUMENT &&
		      strstr(tile_errmsg(ctx), "'strides' is a tuple"));
		args[2] = tile_arg_tuple(&str_t);
	}
	/* elements may be tuples, 8 deep at most; a constexpr's tuple holds constants */
	tile_kernel *bad = NULL;
	tile_arg chain[9];
	tile_tuple links[9];
	for (int d = 0; d < 9; d++) {
		links[d] = (tile_tuple){d ? &chain[d - 1] : &args[1], 1};
		chain[d] = tile_arg_tuple(&links[d]);
	}
	args[2] = chain[8];
	CHECK(m && tile_kernel_get_typed(m, "k", args, 6, NULL, &bad) == TILE_ERROR_INVALID_ARGUMENT &&
	      strstr(tile_errmsg(ctx), "the tuple nests deeper than 8"));
	args[2] = tile_arg_tuple(&str_t);
	args[5] = tile_arg_tuple(&src_t);
	CHECK(m && tile_kernel_get_typed(m, "k", args, 6, NULL, &bad) == TILE_ERROR_INVALID_ARGUMENT &&
	      strstr(tile_errmsg(ctx), "needs a constant"));
	tile_kernel_destroy(k);
	tile_module_destroy(m);
	tile_context_destroy(ctx);
}

/* A tuple of constants for a constexpr parameter (Triton's test_tuple
 * passing_tuple_with_constexpr: `shape: tl.constexpr` given x.shape), from C
 * values and from a signature */
static const char const_tuple_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(X, shape: tl.constexpr, strides, m_n):\n"
	"    Xs = X + tl.arange(0, shape[0])[:, None] * strides[0] + tl.arange(0, shape[1])[None, :] * strides[1]\n"
	"    data = tl.load(Xs)\n"
	"    for i in tl.range(0, m_n[1]):\n"
	"        data = m_n[0] * data\n"
	"    tl.store(Xs, data)\n";

static void test_const_tuple_param(void)
{
	enum { R = 4, C = 8 };
	int32_t x[R * C];
	for (int i = 0; i < R * C; i++)
		x[i] = i - 5;
	tile_arg shape_e[] = {tile_arg_i32(R), tile_arg_i32(C)}, str_e[] = {tile_arg_i32(C), tile_arg_i32(1)},
		 mn_e[] = {tile_arg_i32(2), tile_arg_i32(3)};
	tile_tuple shape_t = {shape_e, 2}, str_t = {str_e, 2}, mn_t = {mn_e, 2};
	tile_arg args[] = {tile_arg_ptr(x, TILE_I32), tile_arg_tuple(&shape_t), tile_arg_tuple(&str_t),
			   tile_arg_tuple(&mn_t)};
	tile_context_options o = {0};
	o.target = target;
	tile_context *ctx = NULL;
	tile_module *m = NULL;
	tile_kernel *k = NULL;
	uint32_t g[3] = {1, 1, 1};
	bool ok = tile_context_create(&ctx, &o) == TILE_OK &&
		  tile_module_load_source(ctx, "t.py", const_tuple_src, strlen(const_tuple_src), &m) == TILE_OK &&
		  tile_kernel_get_typed(m, "k", args, 4, NULL, &k) == TILE_OK && tile_launch(k, g, args, 4, NULL) == TILE_OK;
	if (!ok)
		fprintf(stderr, "  %s\n", ctx ? tile_errmsg(ctx) : "no context");
	for (int i = 0; ok && i < R * C; i++)
		ok = x[i] == 8 * (i - 5);
	CHECK(ok);
	tile_kernel_destroy(k);
	/* the same from a signature; a type among a constexpr's elements is an error */
	tile_kernel *k2 = NULL;
	ok = m && tile_kernel_get(m, "k", "*i32,(4,8),(i32,i32:1),(i32,i32)", NULL, &k2) == TILE_OK;
	CHECK(ok);
	tile_kernel_destroy(k2);
	k2 = NULL;
	CHECK(m && tile_kernel_get(m, "k", "*i32,(4,i32),(i32,i32:1),(i32,i32)", NULL, &k2) != TILE_OK &&
	      strstr(tile_errmsg(ctx), "element 2 is a type"));
	tile_module_destroy(m);
	tile_context_destroy(ctx);
}

/* ---- one module, two specializations that differ only in a descriptor's block shape
 * or a tuple element: two kernels (the module's table of specializations keys on them) -- */

static const char spec_key_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(out_ptr, d, t):\n"
	"    tl.store(out_ptr, d.block_shape[0] * 100 + t[1])\n";

static void test_spec_keys(void)
{
	tile_context_options o = {0};
	o.target = target;
	tile_context *ctx = NULL;
	tile_module *m = NULL;
	tile_kernel *k[3] = {NULL, NULL, NULL};
	static const char *const sigs[3] = {"*i32,tensordesc<fp32[16]>,(i32,i32)", "*i32,tensordesc<fp32[32]>,(i32,i32)",
					    "*i32,tensordesc<fp32[32]>,(i32,7)"};
	int32_t want[3] = {1605, 3205, 3207}, got[3] = {-1, -1, -1};
	float buf[64] = {0};
	bool ok = tile_context_create(&ctx, &o) == TILE_OK &&
		  tile_module_load_source(ctx, "t.py", spec_key_src, strlen(spec_key_src), &m) == TILE_OK;
	for (int i = 0; ok && i < 3; i++) {
		ok = tile_kernel_get(m, "k", sigs[i], NULL, &k[i]) == TILE_OK;
		/* out, d (base, shape[0]), t's runtime elements */
		tile_arg args[] = {tile_arg_ptr(&got[i], TILE_I32), tile_arg_ptr(buf, TILE_FP32), tile_arg_i32(64),
				   tile_arg_i32(0), tile_arg_i32(5)};
		uint32_t g[3] = {1, 1, 1};
		ok = ok && tile_launch(k[i], g, args, i == 2 ? 4 : 5, NULL) == TILE_OK;
	}
	if (!ok) {
		fprintf(stderr, "test_lang.c:%d: [%s] %s\n", __LINE__, target, ctx ? tile_errmsg(ctx) : "no context");
		failures++;
	}
	CHECK(ok && k[0] != k[1] && k[1] != k[2]);
	CHECK(got[0] == want[0] && got[1] == want[1] && got[2] == want[2]);
	for (int i = 0; i < 3; i++)
		tile_kernel_destroy(k[i]);
	tile_module_destroy(m);
	tile_context_destroy(ctx);
}

/* ---- tl.dot_scaled: fp4 (e2m1, packed along K) x fp8 (e4m3) with e8m0 scales -------- */

static const char dot_scaled_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(A, AS, B, BS, C, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):\n"
	"    m = tl.arange(0, M)\n"
	"    n = tl.arange(0, N)\n"
	"    kh = tl.arange(0, K // 2)\n"
	"    kk = tl.arange(0, K)\n"
	"    ks = tl.arange(0, K // 32)\n"
	"    a = tl.load(A + m[:, None] * (K // 2) + kh[None, :])\n"
	"    a_s = tl.load(AS + m[:, None] * (K // 32) + ks[None, :])\n"
	"    b = tl.load(B + kk[:, None] * N + n[None, :])\n"
	"    b_s = tl.load(BS + n[:, None] * (K // 32) + ks[None, :])\n"
	"    acc = tl.full((M, N), 0.5, tl.float32)\n"
	"    c = tl.dot_scaled(a, a_s, 'e2m1', b, b_s, 'e4m3', acc)\n"
	"    tl.store(C + m[:, None] * N + n[None, :], c)\n";

static float fp4_value(unsigned v)
{
	static const float mag[8] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
	return (v & 8) ? -mag[v & 7] : mag[v & 7];
}

static float e4m3_value(unsigned v)
{
	unsigned e = (v >> 3) & 15, m = v & 7;
	float mag = e ? ldexpf(1.0f + (float)m / 8, (int)e - 7) : ldexpf((float)m, -9);
	return (v & 0x80) ? -mag : mag;
}

static void test_dot_scaled(void)
{
	enum { M = 16, N = 16, K = 64 };
	uint8_t a[M * K / 2], as[M * K / 32], b[K * N], bs[N * K / 32];
	float c[M * N];
	for (int i = 0; i < M * K / 2; i++)
		a[i] = (uint8_t)(i * 37 + 11);
	for (int i = 0; i < M * K / 32; i++)
		as[i] = (uint8_t)(122 + i % 9);
	for (int i = 0; i < K * N; i++) {
		b[i] = (uint8_t)(i * 53 + 7);
		if ((b[i] & 0x7f) == 0x7f) /* not NaN */
			b[i] ^= 1;
	}
	for (int i = 0; i < N * K / 32; i++)
		bs[i] = (uint8_t)(125 + i % 5);
	tile_arg args[] = {tile_arg_ptr(a, TILE_U8), tile_arg_ptr(as, TILE_U8), tile_arg_ptr(b, TILE_U8),
			   tile_arg_ptr(bs, TILE_U8), tile_arg_ptr(c, TILE_FP32)};
	if (!RUN(dot_scaled_src, "k", "*u8,*u8,*u8,*u8,*fp32,16,16,64", 1, args))
		return;
	bool ok = true;
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			double want = 0.5, mag = 0.5;
			for (int kk = 0; kk < K; kk++) {
				unsigned byte = a[i * K / 2 + kk / 2];
				double x = fp4_value(kk % 2 ? byte >> 4 : byte & 15) * ldexp(1.0, as[i * K / 32 + kk / 32] - 127);
				double y = e4m3_value(b[kk * N + j]) * ldexp(1.0, bs[j * K / 32 + kk / 32] - 127);
				want += x * y;
				mag += fabs(x * y);
			}
			ok &= fabs(c[i * N + j] - want) <= 1e-5 * mag;
		}
	CHECK(ok);
}

/* ---- tl.dot_scaled as Triton decomposes it: the group size is K over the scale's
 * columns, an fp8 (e4m3, nvfp4) scale is a value, an e8m0 scale is the zero-extended
 * byte (an int8 -128 is 2.0), and an fp16 operand makes fp16 the compute type ---- */

static const char dot_scaled2_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(A, AS, B, C, D, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):\n"
	"    m = tl.arange(0, M)\n"
	"    n = tl.arange(0, N)\n"
	"    kh = tl.arange(0, K // 2)\n"
	"    kk = tl.arange(0, K)\n"
	"    ks = tl.arange(0, K // 16)\n"
	"    a = tl.load(A + m[:, None] * (K // 2) + kh[None, :])\n"
	"    a_s = tl.load(AS + m[:, None] * (K // 16) + ks[None, :])\n"
	"    b = tl.load(B + kk[:, None] * N + n[None, :])\n"
	"    c = tl.dot_scaled(a, a_s, 'e2m1', b, None, 'fp16')\n"
	"    tl.store(C + m[:, None] * N + n[None, :], c)\n"
	"    s = tl.full((M, K // 32), -128, tl.int8)\n"
	"    a8 = tl.load(A + m[:, None] * (K // 2) + kk[None, :] // 2)\n"
	"    d = tl.dot_scaled(a8, s, 'e5m2', b.to(tl.float8e5), None, 'e5m2')\n"
	"    tl.store(D + m[:, None] * N + n[None, :], d)\n";

static float e5m2_value(unsigned v)
{
	unsigned e = (v >> 2) & 31, m = v & 3;
	float mag = e ? ldexpf(1.0f + (float)m / 4, (int)e - 15) : ldexpf((float)m, -16);
	return (v & 0x80) ? -mag : mag;
}

static void test_dot_scaled_groups(void)
{
	enum { M = 16, N = 16, K = 64 };
	uint8_t a[M * K / 2], as[M * K / 16];
	uint16_t b[K * N];
	float c[M * N], d[M * N], bf[K * N];
	for (int i = 0; i < M * K / 2; i++) {
		a[i] = (uint8_t)(i * 37 + 11);
		if ((a[i] & 0x7c) == 0x7c) /* no e5m2 inf/NaN */
			a[i] ^= 0x40;
	}
	for (int i = 0; i < M * K / 16; i++)
		as[i] = (uint8_t)(0x20 + (i * 7) % 32); /* e4m3 2^-3 .. 0.94 */
	for (int i = 0; i < K * N; i++) {
		/* fp16 values with full 11-bit significands in [-2, 2] */
		bf[i] = (float)((i * 2654435761u) % 4093) / 1024 - 2.0f;
		float f = bf[i];
		uint32_t u;
		memcpy(&u, &f, 4);
		uint32_t e = (u >> 23) & 255;
		b[i] = (uint16_t)(((u >> 16) & 0x8000) | (e ? ((e - 112) << 10) | ((u >> 13) & 0x3ff) : 0));
	}
	tile_arg args[] = {tile_arg_ptr(a, TILE_U8), tile_arg_ptr(as, TILE_FP8E4M3), tile_arg_ptr(b, TILE_FP16),
			   tile_arg_ptr(c, TILE_FP32), tile_arg_ptr(d, TILE_FP32)};
	if (!RUN(dot_scaled2_src, "k", "*u8,*fp8e4nv,*fp16,*fp32,*fp32,16,16,64", 1, args))
		return;
	bool ok = true;
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			double want = 0, mag = 0, want8 = 0, mag8 = 0;
			for (int kk = 0; kk < K; kk++) {
				unsigned byte = a[i * K / 2 + kk / 2];
				double x = fp4_value(kk % 2 ? byte >> 4 : byte & 15) * e4m3_value(as[i * K / 16 + kk / 16]);
				want += x * bf[kk * N + j];
				mag += fabs(x * bf[kk * N + j]);
				/* b.to(tl.float8e5) rounds the fp16 bits to nearest even */
				uint16_t h = b[kk * N + j];
				unsigned r = (unsigned)(h >> 8) + (((h & 0xff) > 0x80 || ((h & 0xff) == 0x80 && (h & 0x100))) ? 1 : 0);
				double x8 = 2.0 * e5m2_value(a[i * K / 2 + kk / 2]);
				want8 += x8 * e5m2_value(r & 0xff);
				mag8 += fabs(x8 * e5m2_value(r & 0xff));
			}
			ok &= fabs(c[i * N + j] - want) <= 1e-5 * mag + 1e-6;
			ok &= fabs(d[i * N + j] - want8) <= 1e-5 * mag8 + 1e-6;
		}
	CHECK(ok);
}

/* ---- tl.dot_scaled: an e8m0 scale of 255 is NaN unless fast_math (then 2^128, inf) - */

static const char dot_scaled_nan_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(A, AS, B, C, FAST: tl.constexpr):\n"
	"    m = tl.arange(0, 16)\n"
	"    kk = tl.arange(0, 32)\n"
	"    a = tl.load(A + m[:, None] * 32 + kk[None, :])\n"
	"    a_s = tl.load(AS + m[:, None] + tl.arange(0, 1)[None, :])\n"
	"    b = tl.load(B + kk[:, None] * 16 + m[None, :])\n"
	"    c = tl.dot_scaled(a, a_s, 'e4m3', b, None, 'bf16', fast_math=FAST)\n"
	"    tl.store(C + m[:, None] * 16 + m[None, :], c)\n";

static void test_dot_scaled_nan(void)
{
	uint8_t a[16 * 32], as[16];
	uint16_t b[32 * 16];
	float c[2][16 * 16];
	for (int i = 0; i < 16 * 32; i++)
		a[i] = 0x38; /* e4m3 1.0 */
	for (int i = 0; i < 16; i++)
		as[i] = i == 3 ? 255 : 127;
	for (int i = 0; i < 32 * 16; i++)
		b[i] = 0x3f80; /* bf16 1.0 */
	for (int f = 0; f < 2; f++) {
		tile_arg args[] = {tile_arg_ptr(a, TILE_U8), tile_arg_ptr(as, TILE_U8), tile_arg_ptr(b, TILE_BF16),
				   tile_arg_ptr(c[f], TILE_FP32)};
		if (!RUN(dot_scaled_nan_src, "k", f ? "*u8,*u8,*bf16,*fp32,True" : "*u8,*u8,*bf16,*fp32,False", 1, args))
			return;
	}
	bool ok = true;
	for (int i = 0; i < 16; i++)
		for (int j = 0; j < 16; j++) {
			ok &= i == 3 ? isnan(c[0][i * 16 + j]) : c[0][i * 16 + j] == 32.0f;
			ok &= i == 3 ? isinf(c[1][i * 16 + j]) && c[1][i * 16 + j] > 0 : c[1][i * 16 + j] == 32.0f;
		}
	CHECK(ok);
}

/* ---- tl.dot with M or N below 16 (Triton pads them; tile takes the FMA path) ------ */

static const char small_dot_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(a_ptr, b_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):\n"
	"    rm = tl.arange(0, M)\n"
	"    rn = tl.arange(0, N)\n"
	"    rk = tl.arange(0, K)\n"
	"    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])\n"
	"    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])\n"
	"    tl.store(out_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b, input_precision='ieee'))\n"
	"@triton.jit\n"
	"def kv(a_ptr, v_ptr, out_ptr, M: tl.constexpr, K: tl.constexpr):\n"
	"    rm = tl.arange(0, M)\n"
	"    rk = tl.arange(0, K)\n"
	"    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])\n"
	"    v = tl.load(v_ptr + rk)\n"
	"    tl.store(out_ptr + rm, tl.dot(a, v.reshape([K, 1])).reshape([M]))\n";

/* small integers as IEEE half bits */
static uint16_t half_of(int v)
{
	if (!v)
		return 0;
	uint16_t sign = v < 0 ? 0x8000 : 0;
	unsigned m = (unsigned)(v < 0 ? -v : v);
	int e = 0;
	while ((m >> e) > 1)
		e++;
	return (uint16_t)(sign | (uint16_t)((e + 15) << 10) | (uint16_t)(((m << 10) >> e) & 0x3ff));
}

static void test_small_dot(void)
{
	static const struct { int m, n, k; tile_dtype dt; const char *sig; } cases[] = {
		{1, 16, 16, TILE_FP16, "*fp16,*fp16,*fp32,1,16,16"},
		{8, 4, 32, TILE_FP16, "*fp16,*fp16,*fp32,8,4,32"},
		{16, 2, 16, TILE_FP32, "*fp32,*fp32,*fp32,16,2,16"},
		{2, 8, 32, TILE_I8, "*i8,*i8,*i32,2,8,32"},
	};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		int M = cases[c].m, N = cases[c].n, K = cases[c].k;
		int ia[64 * 64], ib[64 * 64];
		uint16_t ha[64 * 64], hb[64 * 64];
		float fa[64 * 64], fb[64 * 64], fo[64 * 64];
		int8_t ca[64 * 64], cb[64 * 64];
		int32_t io[64 * 64];
		for (int i = 0; i < M * K; i++)
			ia[i] = (i * 7 + (int)c) % 9 - 4, ha[i] = half_of(ia[i]), fa[i] = (float)ia[i], ca[i] = (int8_t)ia[i];
		for (int i = 0; i < K * N; i++)
			ib[i] = (i * 5 + 3) % 7 - 3, hb[i] = half_of(ib[i]), fb[i] = (float)ib[i], cb[i] = (int8_t)ib[i];
		bool i8 = cases[c].dt == TILE_I8, h = cases[c].dt == TILE_FP16;
		tile_arg args[] = {tile_arg_ptr(i8 ? (void *)ca : h ? (void *)ha : (void *)fa, cases[c].dt),
				   tile_arg_ptr(i8 ? (void *)cb : h ? (void *)hb : (void *)fb, cases[c].dt),
				   tile_arg_ptr(i8 ? (void *)io : (void *)fo, i8 ? TILE_I32 : TILE_FP32)};
		if (!RUN(small_dot_src, "k", cases[c].sig, 1, args))
			return;
		bool ok = true;
		for (int i = 0; i < M; i++)
			for (int j = 0; j < N; j++) {
				int want = 0;
				for (int q = 0; q < K; q++)
					want += ia[i * K + q] * ib[q * N + j];
				ok &= i8 ? io[i * N + j] == want : fo[i * N + j] == (float)want;
			}
		CHECK(ok);
	}
	/* mamba3's step: [M, K] @ v.reshape([K, 1]) */
	enum { M = 64, K = 128 };
	static uint16_t a[M * K], v[K];
	static int ia[M * K], iv[K];
	float out[M];
	for (int i = 0; i < M * K; i++)
		ia[i] = (i * 3) % 5 - 2, a[i] = half_of(ia[i]);
	for (int i = 0; i < K; i++)
		iv[i] = i % 3 - 1, v[i] = half_of(iv[i]);
	tile_arg args[] = {tile_arg_ptr(a, TILE_FP16), tile_arg_ptr(v, TILE_FP16), tile_arg_ptr(out, TILE_FP32)};
	if (!RUN(small_dot_src, "kv", "*fp16,*fp16,*fp32,64,128", 1, args))
		return;
	bool ok = true;
	for (int i = 0; i < M; i++) {
		int want = 0;
		for (int q = 0; q < K; q++)
			want += ia[i * K + q] * iv[q];
		ok &= out[i] == (float)want;
	}
	CHECK(ok);
}

/* ---- a K-loop tl.dot whose operand masks are converted to the dot layouts ---------- */

static const char masked_dot_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(a_ptr, b_ptr, out_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):\n"
	"    rm = tl.arange(0, BM)\n"
	"    rn = tl.arange(0, BN)\n"
	"    rk = tl.arange(0, BK)\n"
	"    acc = tl.zeros((BM, BN), dtype=tl.float32)\n"
	"    for _ in range(0, tl.cdiv(K, BK)):\n"
	"        in_k = rk < K\n"
	"        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & in_k[None, :], other=0.0)\n"
	"        b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=in_k[:, None] & (rn[None, :] < N), other=0.0)\n"
	"        acc = tl.dot(a, b, acc)\n"
	"        rk += BK\n"
	"    tl.store(out_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))\n";

/* Small integers (exact in fp16 and in every fp32 sum) for A [M, K] and
 * B [K, N], out preset to -1, and the product in want. */
static void masked_dot_inputs(int M, int N, int K, uint16_t *a, uint16_t *b, float *out, float *want)
{
	for (int i = 0; i < M * K; i++)
		a[i] = half_of((i * 7) % 9 - 4);
	for (int i = 0; i < K * N; i++)
		b[i] = half_of((i * 5) % 7 - 3);
	for (int i = 0; i < M * N; i++)
		out[i] = -1.0f;
	for (int m = 0; m < M; m++)
		for (int n = 0; n < N; n++) {
			float s = 0;
			for (int kk = 0; kk < K; kk++)
				s += (float)((((m * K + kk) * 7) % 9) - 4) * (float)((((kk * N + n) * 5) % 7) - 3);
			want[m * N + n] = s;
		}
}

/* The boolean masks reach the mma operand layouts through shared memory (ldmatrix
 * of i1 values, bytes in memory); M is not a multiple of the block, N and K are
 * specialized divisible by 16 (which picks that layout conversion). */
static void test_masked_dot(void)
{
	enum { M = 13, N = 48, K = 96 };
	_Alignas(16) uint16_t a[M * K], b[K * N];
	_Alignas(16) float out[M * N];
	float want[M * N];
	masked_dot_inputs(M, N, K, a, b, out, want);
	tile_arg args[] = {tile_arg_ptr(a, TILE_FP16), tile_arg_ptr(b, TILE_FP16), tile_arg_ptr(out, TILE_FP32),
			   tile_arg_i32(M),                 tile_arg_i32(N),                 tile_arg_i32(K)};
	if (!RUN(masked_dot_src, "k", "*fp16:16,*fp16:16,*fp32:16,i32,i32:16,i32:16,16,64,32", 1, args))
		return;
	bool ok = true;
	for (int i = 0; i < M * N; i++)
		ok &= out[i] == want[i];
	CHECK(ok);
}

/* ---- a 256x256 fp32 accumulator: its 256 KB conversion to the store layout ------
 * is more shared memory than a GPU has, so it goes through in chunks (the
 * epilogue of a 256x256 matmul tile, 8 warps; M and N masked). */
static void test_big_accumulator(void)
{
	enum { M = 250, N = 200, K = 32, B = 256 };
	static _Alignas(16) uint16_t a[M * K], b[K * N];
	static _Alignas(16) float out[M * N], want[M * N];
	masked_dot_inputs(M, N, K, a, b, out, want);
	tile_arg args[] = {tile_arg_ptr(a, TILE_FP16), tile_arg_ptr(b, TILE_FP16), tile_arg_ptr(out, TILE_FP32),
			   tile_arg_i32(M),                 tile_arg_i32(N),                 tile_arg_i32(K)};
	tile_kernel_options o = {0};
	o.num_warps = 8;
	char sig[96];
	snprintf(sig, sizeof sig, "*fp16:16,*fp16:16,*fp32:16,i32,i32,i32:16,%d,%d,%d", B, B, K);
	if (!RUN_OPT(masked_dot_src, "k", sig, 1, args, &o))
		return;
	bool ok = true;
	for (int i = 0; i < M * N; i++)
		ok &= out[i] == want[i];
	CHECK(ok);
}

/* ---- fp8 tl.dot (e4m3 / e5m2, mixed) with fp32 accumulation, masked edges -------- */

static const char fp8_dot_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(A, B, C, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):\n"
	"    nn = tl.cdiv(N, BN)\n"
	"    rm = tl.program_id(0) // nn * BM + tl.arange(0, BM)\n"
	"    rn = tl.program_id(0) % nn * BN + tl.arange(0, BN)\n"
	"    rk = tl.arange(0, BK)\n"
	"    acc = tl.zeros((BM, BN), dtype=tl.float32)\n"
	"    for k0 in range(0, K, BK):\n"
	"        ka = k0 + rk\n"
	"        a = tl.load(A + rm[:, None] * K + ka[None, :], mask=(rm[:, None] < M) & (ka[None, :] < K), other=0.0)\n"
	"        b = tl.load(B + ka[:, None] * N + rn[None, :], mask=(ka[:, None] < K) & (rn[None, :] < N), other=0.0)\n"
	"        acc = tl.dot(a, b, acc)\n"
	"    tl.store(C + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))\n";

/* float8 value of code x: e4m3fn (bias 7, no inf, S.1111.111 NaN) or e5m2
 * (bias 15, exponent 31 inf/NaN), from the formats' definitions */
static float f8_value(unsigned x, bool e5)
{
	int eb = e5 ? 5 : 4, mb = 7 - eb, bias = e5 ? 15 : 7;
	unsigned e = (x >> mb) & ((1u << eb) - 1), m = x & ((1u << mb) - 1);
	if (e5 ? e == 31 : (e == 15 && m == 7))
		return e5 && !m ? ((x & 0x80) ? -INFINITY : INFINITY) : NAN;
	float mag = e ? ldexpf(1.0f + (float)m / (float)(1 << mb), (int)e - bias)
		      : ldexpf((float)m / (float)(1 << mb), 1 - bias);
	return (x & 0x80) ? -mag : mag;
}

static uint8_t f8_finite(uint32_t *seed, bool e5)
{
	for (;;) {
		*seed = *seed * 1103515245u + 12345u;
		uint8_t x = (uint8_t)(*seed >> 16);
		if (isfinite(f8_value(x, e5)))
			return x;
	}
}

static void test_fp8_dot(void)
{
	enum { M = 40, N = 24, K = 100 };
	static const struct { bool ea, eb; const char *sig; } cases[] = {
		{false, false, "*fp8e4nv,*fp8e4nv,*fp32,i32,i32,i32,32,16,64"},
		{true, true, "*fp8e5,*fp8e5,*fp32,i32,i32,i32,32,16,64"},
		{false, true, "*fp8e4nv,*fp8e5,*fp32,i32,i32,i32,16,8,32"},
		{true, false, "*fp8e5,*fp8e4nv,*fp32,i32,i32,i32,32,32,32"},
		/* N below 8: the FMA path, operands staged in shared memory as fp8 */
		{true, false, "*fp8e5,*fp8e4nv,*fp32,i32,i32,i32,32,4,32"},
	};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		static uint8_t a[M * K], b[K * N];
		static float out[M * N];
		uint32_t seed = 7 + (uint32_t)c;
		for (int i = 0; i < M * K; i++)
			a[i] = f8_finite(&seed, cases[c].ea);
		for (int i = 0; i < K * N; i++)
			b[i] = f8_finite(&seed, cases[c].eb);
		if (c == 0)
			a[5 * K + 7] = 0x7f; /* e4m3 NaN: row 5 is NaN */
		tile_dtype ta = cases[c].ea ? TILE_FP8E5M2 : TILE_FP8E4M3;
		tile_dtype tb = cases[c].eb ? TILE_FP8E5M2 : TILE_FP8E4M3;
		static const int bns[] = {16, 16, 8, 32, 4};
		int bm = c == 2 ? 16 : 32, bn = bns[c];
		uint32_t grid = (uint32_t)(((M + bm - 1) / bm) * ((N + bn - 1) / bn));
		tile_arg args[] = {tile_arg_ptr(a, ta), tile_arg_ptr(b, tb), tile_arg_ptr(out, TILE_FP32),
				   tile_arg_i32(M), tile_arg_i32(N), tile_arg_i32(K)};
		if (!RUN(fp8_dot_src, "k", cases[c].sig, grid, args))
			return;
		/* Products of fp8 values are exact in fp32; both the FMA path (cpu)
		 * and the mma emulation (cuda-emu) add them in k order in fp32, so
		 * the result is bit-exact against this order. */
		int bad = 0;
		for (int i = 0; i < M; i++)
			for (int j = 0; j < N; j++) {
				float want = 0;
				for (int q = 0; q < K; q++)
					want += f8_value(a[i * K + q], cases[c].ea) * f8_value(b[q * N + j], cases[c].eb);
				float got = out[i * N + j];
				if (!(got == want || (isnan(got) && isnan(want))) && bad++ < 3)
					fprintf(stderr, "fp8 dot case %zu: C[%d][%d] = %.9g, want %.9g\n", c, i, j,
						(double)got, (double)want);
			}
		CHECK(bad == 0);
	}
}

/* ---- Triton 2.0's tl.dot(a, b, trans_a=..., trans_b=...) -------------------------- */

static const char legacy_trans_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(a_ptr, b_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, TA: tl.constexpr):\n"
	"    rm = tl.arange(0, M)\n"
	"    rn = tl.arange(0, N)\n"
	"    rk = tl.arange(0, K)\n"
	"    if TA:\n"
	"        a = tl.load(a_ptr + rk[:, None] * M + rm[None, :])\n"
	"    else:\n"
	"        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])\n"
	"    b = tl.load(b_ptr + rn[:, None] * K + rk[None, :])\n"
	"    c = tl.dot(a, b, trans_a=TA, trans_b=True)\n"
	"    tl.store(out_ptr + rm[:, None] * N + rn[None, :], c)\n";

static void test_legacy_trans(void)
{
	enum { M = 16, N = 32, K = 16 };
	static const char *const sigs[] = {"*fp16,*fp16,*fp32,16,32,16,False", "*fp16,*fp16,*fp32,16,32,16,True"};
	static uint16_t a[M * K], b[N * K];
	static int ia[M * K], ib[N * K];
	static float out[M * N];
	for (int i = 0; i < M * K; i++)
		ia[i] = (i * 7) % 9 - 4, a[i] = half_of(ia[i]);
	for (int i = 0; i < N * K; i++)
		ib[i] = (i * 5 + 3) % 7 - 3, b[i] = half_of(ib[i]);
	for (int ta = 0; ta < 2; ta++) {
		tile_arg args[] = {tile_arg_ptr(a, TILE_FP16), tile_arg_ptr(b, TILE_FP16), tile_arg_ptr(out, TILE_FP32)};
		if (!RUN(legacy_trans_src, "k", sigs[ta], 1, args))
			return;
		bool ok = true;
		for (int i = 0; i < M; i++)
			for (int j = 0; j < N; j++) {
				int want = 0;
				for (int q = 0; q < K; q++)
					want += (ta ? ia[q * M + i] : ia[i * K + q]) * ib[j * K + q];
				ok &= out[i * N + j] == (float)want;
			}
		CHECK(ok);
	}
}

/* ---- a loop whose body is one long block (split before machine code) ------------- */

static const char long_block_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(x_ptr, y_ptr, n_iter, BLOCK: tl.constexpr):\n"
	"    o = tl.arange(0, BLOCK)\n"
	"    x = tl.load(x_ptr + o)\n"
	"    acc = tl.zeros([BLOCK], tl.float32)\n"
	"    for i in range(n_iter):\n"
	"        acc = acc * 0.5 + (x + i) * (x - i) + x * 0.25 - tl.abs(acc - x) * 0.125 + tl.maximum(acc, x)\n"
	"    tl.store(y_ptr + o, acc)\n";

static void test_long_block(void)
{
	enum { B = 16384, ITER = 3 };
	float *x = malloc(sizeof(float) * B), *y = malloc(sizeof(float) * B);
	for (int i = 0; i < B; i++)
		x[i] = (float)(i % 97) * 0.125f - 6.0f, y[i] = -1;
	tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(y, TILE_FP32), tile_arg_i32(ITER)};
	if (RUN(long_block_src, "k", "*fp32,*fp32,i32,16384", 1, args)) {
		bool ok = true;
		for (int i = 0; i < B; i++) {
			float acc = 0;
			for (int it = 0; it < ITER; it++)
				acc = acc * 0.5f + (x[i] + (float)it) * (x[i] - (float)it) + x[i] * 0.25f -
				      fabsf(acc - x[i]) * 0.125f + fmaxf(acc, x[i]);
			ok &= fabsf(y[i] - acc) <= 1e-5f * fmaxf(1.0f, fabsf(acc));
		}
		CHECK(ok);
	}
	free(x);
	free(y);
}

/* ---- an outer comparison x[:, None] > cut[None, :] summed over the cuts ---------- */

/* x and cut come in different layouts: the conversion goes on the small
 * [1, NB] operand before the broadcast (a [512, 256] tile converted through
 * shared memory would need 512 KiB, more than a GPU has) */
static const char bucketize_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(x_ptr, cut_ptr, q_ptr, B: tl.constexpr, NB: tl.constexpr):\n"
	"    x = tl.load(x_ptr + tl.arange(0, B))\n"
	"    cut = tl.load(cut_ptr + tl.arange(0, NB))\n"
	"    q = (tl.reshape(x, (B, 1)) > cut).to(tl.uint8)\n"
	"    tl.store(q_ptr + tl.arange(0, B), tl.sum(q, axis=1).to(tl.int32))\n";

static void test_bucketize(void)
{
	enum { B = 512, NB = 256 };
	float x[B], cut[NB];
	int32_t q[B];
	for (int i = 0; i < NB; i++)
		cut[i] = (float)i / NB - 0.5f;
	for (int i = 0; i < B; i++)
		x[i] = (float)((i * 37) % 101) / 100.0f - 0.5f, q[i] = -1;
	tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(cut, TILE_FP32), tile_arg_ptr(q, TILE_I32)};
	if (RUN(bucketize_src, "k", "*fp32,*fp32,*i32,512,256", 1, args)) {
		bool ok = true;
		for (int i = 0; i < B; i++) {
			int want = 0;
			for (int j = 0; j < NB; j++)
				want += x[i] > cut[j];
			ok &= q[i] == want;
		}
		CHECK(ok);
	}
}

/* ---- f32 `/` by a uniform divisor: Triton's div.full.f32 (within 2 ulp) ---------
 * The CPU code takes one reciprocal of the divisor for the whole tile; it must
 * stay within 2 ulp of x / s for every divisor (0, subnormal, huge, inf, NaN)
 * and every dividend, and div_rn stays exact. */

static const char div_uniform_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(x_ptr, out_ptr, rn_ptr, sum_ptr, s, BLOCK: tl.constexpr):\n"
	"    offs = tl.arange(0, BLOCK)\n"
	"    x = tl.load(x_ptr + offs)\n"
	"    tl.store(out_ptr + offs, x / s)\n"
	"    tl.store(rn_ptr + offs, tl.math.div_rn(x, s))\n"
	"    d = tl.sum(tl.where(offs < 4, x, 0.0))\n" /* a reduction's result: uniform too */
	"    tl.store(sum_ptr + offs, x / d)\n";

static uint32_t f32_bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

/* |a - b| in units in the last place, for floats of the same sign */
static bool within_ulps(float got, float want, uint32_t n)
{
	if (isnan(want))
		return isnan(got);
	if (isinf(want) || want == 0)
		return f32_bits(got) == f32_bits(want);
	if (signbit(got) != signbit(want) || isnan(got))
		return false;
	uint32_t a = f32_bits(got) & 0x7fffffff, b = f32_bits(want) & 0x7fffffff;
	return (a > b ? a - b : b - a) <= n;
}

static void test_div_uniform(void)
{
	enum { B = 64 };
	static const float divisors[] = {3.0f,  -7.5f,    0.0f,    -0.0f,    INFINITY, -INFINITY, NAN,
	                                 1e-40f, -1e-45f, 0x1p126f, 0x1.8p126f, 0x1p127f, 3e38f, 0x1p-126f,
	                                 0.1f,  1e-30f};
	float x[B], out[B], rn[B], sum[B];
	uint32_t seed = 7;
	for (int i = 0; i < B; i++) {
		seed = seed * 1664525u + 1013904223u;
		x[i] = ldexpf(1.0f + (float)(seed >> 9) / 8388608.0f, (int)(seed % 200) - 100) *
		       ((seed & 1) ? -1 : 1);
	}
	static const float special[] = {1.0f, 2.0f, 3.0f, 4.0f, 0.0f, -0.0f, INFINITY, -INFINITY,
	                                NAN, 1e-40f, 3e38f, 0x1p-126f, 1e-45f, 0x1.fffffep127f};
	memcpy(x, special, sizeof special);
	for (size_t j = 0; j < sizeof divisors / sizeof *divisors; j++) {
		float s = divisors[j];
		tile_arg args[] = {tile_arg_ptr(x, TILE_FP32),  tile_arg_ptr(out, TILE_FP32),
		                   tile_arg_ptr(rn, TILE_FP32), tile_arg_ptr(sum, TILE_FP32),
		                   tile_arg_f32(s)};
		if (!RUN(div_uniform_src, "k", "*fp32,*fp32,*fp32,*fp32,fp32,64", 1, args))
			return;
		int bad = 0;
		float d = x[0] + x[1] + x[2] + x[3];
		for (int i = 0; i < B; i++) {
			float want = x[i] / s;
			bool ok = within_ulps(out[i], want, 2) && f32_bits(rn[i]) == f32_bits(want) &&
			          within_ulps(sum[i], x[i] / d, 2);
			if (!ok && bad++ < 3)
				fprintf(stderr, "  %a / %a: got %a (div_rn %a), want %a\n", (double)x[i],
				        (double)s, (double)out[i], (double)rn[i], (double)want);
		}
		CHECK(bad == 0);
	}
}

/* Integer // and % (C semantics, as Triton's sdiv/srem) at the edges: INT_MIN / -1
 * wraps, x % -1 is 0, and a zero divisor gives some value without trapping. Tile
 * divisors and a uniform scalar one, at 32 and 64 bits. */
static const char int_div_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(a_ptr, b_ptr, q_ptr, r_ptr, qs_ptr, rs_ptr, d, N: tl.constexpr):\n"
	"    o = tl.arange(0, N)\n"
	"    a = tl.load(a_ptr + o)\n"
	"    b = tl.load(b_ptr + o)\n"
	"    tl.store(q_ptr + o, a // b)\n"
	"    tl.store(r_ptr + o, a % b)\n"
	"    tl.store(qs_ptr + o, a // d)\n"
	"    tl.store(rs_ptr + o, a % d)\n";

static void test_int_division(void)
{
	enum { N = 16 };
	for (int w = 32; w <= 64; w += 32) {
		int64_t a[N] = {7, -7, 7, -7, 0, 1, -1, 100, -100, 12345, INT64_MIN, INT64_MIN, 5, -5, 9, 3};
		int64_t b[N] = {2, 2, -2, -2, 3, -1, -1, 7, 7, -10, -1, 1, 0, 0, -1, 3};
		if (w == 32) /* the INT_MIN of the width */
			a[10] = a[11] = INT32_MIN;
		for (int d = -1; d <= 3; d += 4) { /* scalar divisors -1 and 3 */
			int64_t q[N], r[N], qs[N], rs[N];
			int32_t a32[N], b32[N], q32[N], r32[N], qs32[N], rs32[N];
			for (int i = 0; i < N; i++)
				a32[i] = (int32_t)a[i], b32[i] = (int32_t)b[i];
			tile_dtype t = w == 32 ? TILE_I32 : TILE_I64;
			tile_arg args[] = {
			        tile_arg_ptr(w == 32 ? (void *)a32 : (void *)a, t),
			        tile_arg_ptr(w == 32 ? (void *)b32 : (void *)b, t),
			        tile_arg_ptr(w == 32 ? (void *)q32 : (void *)q, t),
			        tile_arg_ptr(w == 32 ? (void *)r32 : (void *)r, t),
			        tile_arg_ptr(w == 32 ? (void *)qs32 : (void *)qs, t),
			        tile_arg_ptr(w == 32 ? (void *)rs32 : (void *)rs, t),
			        w == 32 ? tile_arg_i32(d) : tile_arg_i64(d)};
			if (!RUN(int_div_src, "k", w == 32 ? "*i32,*i32,*i32,*i32,*i32,*i32,i32,16"
			                                   : "*i64,*i64,*i64,*i64,*i64,*i64,i64,16",
			         1, args))
				continue;
			bool ok = true;
			for (int i = 0; i < N; i++) {
				int64_t x = w == 32 ? a32[i] : a[i], y = w == 32 ? b32[i] : b[i];
				int64_t gq = w == 32 ? q32[i] : q[i], gr = w == 32 ? r32[i] : r[i];
				int64_t gqs = w == 32 ? qs32[i] : qs[i], grs = w == 32 ? rs32[i] : rs[i];
				int64_t min = w == 32 ? INT32_MIN : INT64_MIN;
				if (y != 0) { /* zero divisors: any value, but the kernel ran */
					int64_t wq = y == -1 ? (x == min ? min : -x) : x / y;
					int64_t wr = y == -1 ? 0 : x % y;
					ok &= gq == wq && gr == wr;
				}
				int64_t wqs = d == -1 ? (x == min ? min : -x) : x / d;
				ok &= gqs == wqs && grs == (d == -1 ? 0 : x % d);
			}
			if (!ok)
				fprintf(stderr, "int division: wrong at %d bits, scalar divisor %d\n", w, d);
			CHECK(ok);
		}
	}
}

/* The same at every width and signedness, over random operands that include
 * each type's extremes: a vector divisor that is not a constant divides in
 * double precision on the CPU, which must be exact for every 8-32 bit pair. */
static const char int_div_w_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(a_ptr, b_ptr, q_ptr, r_ptr, N: tl.constexpr):\n"
	"    o = tl.arange(0, N)\n"
	"    a = tl.load(a_ptr + o)\n"
	"    b = tl.load(b_ptr + o)\n"
	"    tl.store(q_ptr + o, a // b)\n"
	"    tl.store(r_ptr + o, a % b)\n";

static int64_t wrap_to(int64_t v, int bits, bool sgn)
{
	uint64_t m = bits == 64 ? ~0ull : (1ull << bits) - 1, u = (uint64_t)v & m;
	if (sgn && bits < 64 && (u >> (bits - 1)))
		return (int64_t)(u | ~m);
	return (int64_t)u;
}

static void test_int_division_widths(void)
{
	enum { N = 256 };
	static const struct { int bits; bool sgn; tile_dtype t; const char *sig; } ty[] = {
		{8, true, TILE_I8, "*i8,*i8,*i8,*i8,256"},       {8, false, TILE_U8, "*u8,*u8,*u8,*u8,256"},
		{16, true, TILE_I16, "*i16,*i16,*i16,*i16,256"}, {16, false, TILE_U16, "*u16,*u16,*u16,*u16,256"},
		{32, true, TILE_I32, "*i32,*i32,*i32,*i32,256"}, {32, false, TILE_U32, "*u32,*u32,*u32,*u32,256"},
	};
	uint32_t seed = 77;
	for (size_t k = 0; k < sizeof ty / sizeof *ty; k++) {
		int bits = ty[k].bits, bytes = bits / 8;
		bool sgn = ty[k].sgn;
		int64_t lo = sgn ? -((int64_t)1 << (bits - 1)) : 0, hi = sgn ? ((int64_t)1 << (bits - 1)) - 1 : ((int64_t)1 << bits) - 1;
		int64_t a[N], b[N];
		for (int i = 0; i < N; i++) {
			uint32_t r_hi = seed = seed * 1664525u + 1013904223u;
			uint32_t r_lo = seed = seed * 1664525u + 1013904223u;
			uint64_t r = (uint64_t)r_hi << 32 | r_lo;
			a[i] = wrap_to((int64_t)r, bits, sgn);
			seed = seed * 1664525u + 1013904223u;
			b[i] = wrap_to((int64_t)(seed >> (32 - bits + (i % 4) * (bits / 4))), bits, sgn); /* mixed magnitudes */
		}
		int64_t edge[] = {lo, hi, lo + 1, hi - 1, 0, 1, -1, 2, -2, 3};
		for (int i = 0; i < 10; i++)
			for (int j = 0; j < 10; j++) {
				a[16 * i + j] = wrap_to(edge[i], bits, sgn);
				b[16 * i + j] = wrap_to(edge[j], bits, sgn);
			}
		unsigned char ab[N * 4], bb[N * 4], qb[N * 4], rb[N * 4];
		for (int i = 0; i < N; i++) {
			if (b[i] == 0)
				b[i] = 7;
			for (int c = 0; c < bytes; c++) {
				ab[i * bytes + c] = (unsigned char)((uint64_t)a[i] >> (8 * c));
				bb[i * bytes + c] = (unsigned char)((uint64_t)b[i] >> (8 * c));
			}
		}
		tile_arg args[] = {tile_arg_ptr(ab, ty[k].t), tile_arg_ptr(bb, ty[k].t), tile_arg_ptr(qb, ty[k].t),
				   tile_arg_ptr(rb, ty[k].t)};
		if (!RUN(int_div_w_src, "k", ty[k].sig, 1, args))
			continue;
		bool ok = true;
		for (int i = 0; i < N; i++) {
			int64_t gq = 0, gr = 0;
			for (int c = 0; c < bytes; c++) {
				gq |= (int64_t)qb[i * bytes + c] << (8 * c);
				gr |= (int64_t)rb[i * bytes + c] << (8 * c);
			}
			gq = wrap_to(gq, bits, sgn);
			gr = wrap_to(gr, bits, sgn);
			int64_t wq = wrap_to(a[i] / b[i], bits, sgn), wr = wrap_to(a[i] % b[i], bits, sgn);
			if (gq != wq || gr != wr) {
				if (ok)
					fprintf(stderr, "int division %s%d: %lld / %lld gave %lld r %lld, want %lld r %lld\n",
						sgn ? "i" : "u", bits, (long long)a[i], (long long)b[i], (long long)gq,
						(long long)gr, (long long)wq, (long long)wr);
				ok = false;
			}
		}
		CHECK(ok);
	}
}

/* Shifts by the width or more, as PTX defines them (the amount clamped to the
 * width): << and unsigned >> give 0, signed >> the sign. Constant amounts
 * (a uint8 shifted by 8, as DeepSpeed's fp8 dequantization does under
 * Triton 3's typing) and tile amounts, 8 and 32 bits. */
static const char shift_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(a_ptr, s_ptr, o_ptr, N: tl.constexpr):\n"
	"    o = tl.arange(0, N)\n"
	"    a = tl.load(a_ptr + o)\n"
	"    s = tl.load(s_ptr + o)\n"
	"    tl.store(o_ptr + o, a << s)\n"
	"    tl.store(o_ptr + N + o, a >> s)\n"
	"    tl.store(o_ptr + 2 * N + o, a << 8)\n"
	"    tl.store(o_ptr + 3 * N + o, a >> 40)\n";

static int64_t ptx_shift(int64_t a, int64_t s, int bits, bool sgn, bool left)
{
	uint64_t m = bits == 64 ? ~0ull : (1ull << bits) - 1, ua = (uint64_t)a & m, us = (uint64_t)s & m;
	if (us >= (uint64_t)bits) /* clamped */
		return left || !sgn ? 0 : wrap_to((ua >> (bits - 1)) & 1 ? -1 : 0, bits, sgn);
	uint64_t r = left ? ua << us : sgn ? (uint64_t)(wrap_to((int64_t)ua, bits, true) >> us) : ua >> us;
	return wrap_to((int64_t)r, bits, sgn);
}

static void test_wide_shifts(void)
{
	enum { N = 16 };
	static const struct { int bits; bool sgn; tile_dtype t; const char *sig; } ty[] = {
		{8, false, TILE_U8, "*u8,*u8,*u8,16"}, {8, true, TILE_I8, "*i8,*i8,*i8,16"},
		{32, false, TILE_U32, "*u32,*u32,*u32,16"}, {32, true, TILE_I32, "*i32,*i32,*i32,16"},
	};
	static const int64_t as[N] = {1, -1, 0x55, -128, 127, 3, 0x7f, -2, 1, -1, 0x40, 5, -7, 9, 100, -100};
	static const int64_t ss[N] = {0, 1, 7, 8, 9, 31, 32, 33, 100, 255, -1, 4, 16, 2, 6, 200};
	for (size_t k = 0; k < sizeof ty / sizeof *ty; k++) {
		int bits = ty[k].bits, bytes = bits / 8;
		bool sgn = ty[k].sgn;
		unsigned char ab[N * 4], sb[N * 4], ob[4 * N * 4];
		for (int i = 0; i < N; i++)
			for (int c = 0; c < bytes; c++) {
				ab[i * bytes + c] = (unsigned char)((uint64_t)as[i] >> (8 * c));
				sb[i * bytes + c] = (unsigned char)((uint64_t)ss[i] >> (8 * c));
			}
		tile_arg args[] = {tile_arg_ptr(ab, ty[k].t), tile_arg_ptr(sb, ty[k].t), tile_arg_ptr(ob, ty[k].t)};
		if (!RUN(shift_src, "k", ty[k].sig, 1, args))
			continue;
		bool ok = true;
		for (int j = 0; j < 4 * N; j++) {
			int i = j % N, part = j / N;
			int64_t got = 0;
			for (int c = 0; c < bytes; c++)
				got |= (int64_t)ob[j * bytes + c] << (8 * c);
			got = wrap_to(got, bits, sgn);
			int64_t a = wrap_to(as[i], bits, sgn);
			int64_t s = part == 2 ? 8 : part == 3 ? 40 : wrap_to(ss[i], bits, sgn);
			int64_t want = ptx_shift(a, s, bits, sgn, part == 0 || part == 2);
			if (got != want) {
				if (ok)
					fprintf(stderr, "shift %s%d part %d: %lld by %lld gave %lld, want %lld\n", sgn ? "i" : "u",
						bits, part, (long long)a, (long long)s, (long long)got, (long long)want);
				ok = false;
			}
		}
		CHECK(ok);
	}
}

/* ---- mixed-signedness integer ops: >> keeps the left tensor's signedness, a weak
 * int constant takes an unsigned tensor's type ------------------------------------ */

static const char mixed_int_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(a_ptr, b_ptr, o_ptr, BLOCK: tl.constexpr):\n"
	"    o = tl.arange(0, BLOCK)\n"
	"    a = tl.load(a_ptr + o)\n" /* int8 */
	"    b = tl.load(b_ptr + o)\n" /* uint8 */
	"    tl.store(o_ptr + o, (a >> (b & 7)).to(tl.int32))\n"
	"    tl.store(o_ptr + BLOCK + o, (b % 7).to(tl.int32))\n"
	"    tl.store(o_ptr + 2 * BLOCK + o, (b + 200).to(tl.int32))\n"
	"    tl.store(o_ptr + 3 * BLOCK + o, (b // 3).to(tl.int32))\n"
	"    tl.store(o_ptr + 4 * BLOCK + o, ((b & 7) >> a.to(tl.int32)).to(tl.int32))\n";

static void test_mixed_int(void)
{
	enum { B = 64 };
	int8_t a[B];
	uint8_t b[B];
	int32_t out[5 * B];
	for (int i = 0; i < B; i++)
		a[i] = (int8_t)(i * 37 - 100), b[i] = (uint8_t)(i * 53 + 7), out[i] = -1;
	for (int i = 0; i < B; i++)
		if (i % 4 == 0) a[i] = (int8_t)(i % 3); /* small non-negative shift amounts for the last store */
	tile_arg args[] = {tile_arg_ptr(a, TILE_I8), tile_arg_ptr(b, TILE_U8), tile_arg_ptr(out, TILE_I32)};
	if (!RUN(mixed_int_src, "k", "*i8,*u8,*i32,64", 1, args))
		return;
	bool ok_shr = true, ok_mod = true, ok_add = true, ok_div = true, ok_rshr = true;
	for (int i = 0; i < B; i++) {
		/* int8 >> uint8: both become uint8, shifted arithmetically (a is the tensor on the left) */
		uint8_t sh = (uint8_t)((int8_t)a[i] >> (b[i] & 7));
		ok_shr &= out[i] == sh;
		ok_mod &= out[B + i] == b[i] % 7;
		ok_add &= out[2 * B + i] == (uint8_t)(b[i] + 200);
		ok_div &= out[3 * B + i] == b[i] / 3;
		if (i % 4 == 0) ok_rshr &= out[4 * B + i] == ((b[i] & 7) >> a[i]);
	}
	CHECK(ok_shr);
	CHECK(ok_mod);
	CHECK(ok_add);
	CHECK(ok_div);
	CHECK(ok_rshr);
}

/* ---- tl.bitonic_merge of bitonic rows; tl.reduce_or of one-hot bits ------------- */

static const char bitonic_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(x_ptr, asc_ptr, desc_ptr, bits_ptr, R: tl.constexpr, C: tl.constexpr):\n"
	"    offs = tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]\n"
	"    x = tl.load(x_ptr + offs)\n"
	"    tl.store(asc_ptr + offs, tl.bitonic_merge(x))\n"
	"    tl.store(desc_ptr + offs, x.bitonic_merge(descending=True))\n"
	"    hot = (1 << (x.to(tl.uint32) % 32))\n"
	"    tl.store(bits_ptr + tl.arange(0, R), tl.reduce_or(hot, axis=1))\n";

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

static void test_bitonic_merge(void)
{
	enum { R = 4, C = 16 };
	int32_t x[R * C], asc[R * C], desc[R * C];
	uint32_t bits[R];
	for (int r = 0; r < R; r++)
		for (int c = 0; c < C; c++) /* rising then falling, peak placed per row */
			x[r * C + c] = c <= 3 + 3 * r ? 5 * c - 7 * r : 5 * (3 + 3 * r) - 7 * r - 3 * (c - 3 - 3 * r);
	tile_arg args[] = {tile_arg_ptr(x, TILE_I32), tile_arg_ptr(asc, TILE_I32), tile_arg_ptr(desc, TILE_I32),
			   tile_arg_ptr(bits, TILE_U32)};
	if (!RUN(bitonic_src, "k", "*i32,*i32,*i32,*u32,4,16", 1, args))
		return;
	bool ok = true;
	for (int r = 0; r < R; r++) {
		int32_t want[C];
		uint32_t wb = 0;
		memcpy(want, x + r * C, sizeof want);
		qsort(want, C, sizeof *want, cmp_i32);
		for (int c = 0; c < C; c++) {
			ok &= asc[r * C + c] == want[c] && desc[r * C + c] == want[C - 1 - c];
			wb |= 1u << ((uint32_t)x[r * C + c] % 32);
		}
		ok &= bits[r] == wb;
	}
	CHECK(ok);
}

/* ---- inline asm "n" constraints: constexpr integers as immediates --------------- */

static const char asm_imm_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(x_ptr, out_ptr, BLOCK: tl.constexpr):\n"
	"    offs = tl.arange(0, BLOCK)\n"
	"    x = tl.load(x_ptr + offs)\n"
	"    LUT: tl.constexpr = (0xf0 & 0xcc) | 0xaa\n"
	"    y = tl.inline_asm_elementwise('lop3.b32 $0, $1, $2, $3, $4; // $4 = (a & b) | c',\n"
	"        '=r,r,n,n,n', args=[x, 0x00ff00ff, 0xd400d400, LUT], dtype=tl.uint32, is_pure=True, pack=1)\n"
	"    tl.store(out_ptr + offs, y)\n";

static void test_asm_imm(void)
{
	enum { B = 32 };
	uint32_t x[B], out[B];
	for (int i = 0; i < B; i++)
		x[i] = 0x9e3779b9u * (uint32_t)(i + 1), out[i] = 0;
	tile_arg args[] = {tile_arg_ptr(x, TILE_U32), tile_arg_ptr(out, TILE_U32)};
	if (!RUN(asm_imm_src, "k", "*u32,*u32,32", 1, args))
		return;
	bool ok = true;
	for (int i = 0; i < B; i++)
		ok &= out[i] == ((x[i] & 0x00ff00ffu) | 0xd400d400u);
	CHECK(ok);
}

/* tl.randint / tl.rand with 64-bit offsets: Philox 4x64-10 with Triton's constants
 * (random.py: seed_lo = the seed, seed_hi = 0), checked against a C Philox. */
static const char philox64_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(out_ptr, f_ptr, seed, base, N: tl.constexpr):\n"
	"    o = tl.arange(0, N)\n"
	"    offs = o.to(tl.int64) + base\n"
	"    tl.store(out_ptr + o, tl.randint(seed, offs))\n"
	"    tl.store(f_ptr + o, tl.rand(seed, offs))\n";

static uint64_t mulhi64(uint64_t a, uint64_t b)
{
	uint64_t al = a & 0xffffffffu, ah = a >> 32, bl = b & 0xffffffffu, bh = b >> 32;
	uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
	uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
	return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

static void test_philox64(void)
{
	enum { N = 16 };
	uint64_t seed = 0x1234567890abcdefull;
	int64_t base = 5000000000ll; /* past 2^32: the offsets need 64 bits */
	uint64_t out[N];
	float f[N];
	tile_arg args[] = {tile_arg_ptr(out, TILE_U64), tile_arg_ptr(f, TILE_FP32), tile_arg_u64(seed),
	                   tile_arg_i64(base)};
	if (!RUN(philox64_src, "k", "*u64,*fp32,u64,i64,16", 1, args))
		return;
	bool ok = true;
	for (int i = 0; i < N; i++) {
		uint64_t c0 = (uint64_t)(base + i), c1 = 0, c2 = 0, c3 = 0, k0 = seed, k1 = 0;
		for (int r = 0; r < 10; r++) {
			uint64_t p0 = c0, p2 = c2;
			c0 = mulhi64(0xCA5A826395121157ull, p2) ^ c1 ^ k0;
			c2 = mulhi64(0xD2E7470EE14C6C93ull, p0) ^ c3 ^ k1;
			c1 = 0xCA5A826395121157ull * p2;
			c3 = 0xD2E7470EE14C6C93ull * p0;
			k0 += 0x9E3779B97F4A7C15ull;
			k1 += 0xBB67AE8584CAA73Bull;
		}
		int64_t x = (int64_t)c0;
		double want = (double)(float)(x < 0 ? -x - 1 : x) * 1.0842020432385337e-19;
		ok &= out[i] == c0 && fabs(f[i] - want) <= 1e-7 * want + 1e-12;
	}
	CHECK(ok);
}

/* ---- loads and stores through offsets that wrap (x % N) ----------------------------
 * With N a multiple of 16 only runs of 16 consecutive offsets are provably
 * consecutive: on the CPU such an access is a few 16-wide vectors, and a run
 * claimed too long would read across the wrap. N = 48 and 80 wrap inside a
 * run of 32; masked and unmasked, loads and stores, 1 and 4 warps. */
static const char wrap_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(x_ptr, y_ptr, n, N, BLOCK: tl.constexpr, MASK: tl.constexpr):\n"
	"    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
	"    src = offs % N\n"
	"    if MASK:\n"
	"        x = tl.load(x_ptr + src, mask=offs < n, other=-1)\n"
	"        tl.store(y_ptr + (offs * 7) % N + N * (offs // N), x + 1, mask=offs < n)\n"
	"    else:\n"
	"        x = tl.load(x_ptr + src)\n"
	"        tl.store(y_ptr + offs, x + 1)\n";

static void test_wrapped_offsets(void)
{
	enum { BLOCK = 128, G = 3, TOT = BLOCK * G };
	for (int masked = 0; masked < 2; masked++)
		for (int ni = 0; ni < 2; ni++)
			for (int nw = 1; nw <= 4; nw *= 4) {
				int N = ni ? 80 : 48, n = masked ? TOT - 37 : TOT;
				int32_t x[TOT], y[TOT + 256];
				for (int i = 0; i < TOT; i++)
					x[i] = i * 7 + 1;
				for (int i = 0; i < TOT + 256; i++)
					y[i] = -5;
				tile_arg args[] = {tile_arg_ptr(x, TILE_I32), tile_arg_ptr(y, TILE_I32),
				                   tile_arg_i32(n), tile_arg_i32(N)};
				char sig[96];
				snprintf(sig, sizeof sig, "*i32:16,*i32:16,i32,i32:16,%d,%s", BLOCK,
				         masked ? "True" : "False");
				tile_kernel_options o = {0};
				o.num_warps = nw;
				if (!RUN_OPT(wrap_src, "k", sig, G, args, &o))
					return;
				int bad = 0;
				for (int i = 0; i < n; i++) {
					int dst = masked ? (i * 7) % N + N * (i / N) : i;
					bad += y[dst] != x[i % N] + 1;
				}
				if (bad)
					fprintf(stderr, "wrapped offsets (N=%d, %s, %d warps): %d wrong\n",
					        N, masked ? "masked" : "unmasked", nw, bad);
				CHECK(bad == 0);
			}
}

/* ---- tl.reduce / tl.associative_scan of a tuple of one tensor give a tuple of one - */

static const char scan_tuple1_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def add(a, b):\n"
	"    return a + b\n"
	"@triton.jit\n"
	"def k(x_ptr, scan_ptr, sum_ptr, R: tl.constexpr, C: tl.constexpr):\n"
	"    offs = tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]\n"
	"    x = tl.load(x_ptr + offs)\n"
	"    run, = tl.associative_scan((x,), 1, add)\n"
	"    tot = tl.reduce((x * 2,), 1, add)\n"
	"    tl.store(scan_ptr + offs, run)\n"
	"    tl.store(sum_ptr + tl.arange(0, R), tot[0] + tl.reduce(x, 1, add))\n";

static void test_scan_tuple1(void)
{
	enum { R = 4, C = 16 };
	int32_t x[R * C], scan[R * C], sum[R];
	for (int i = 0; i < R * C; i++)
		x[i] = (i * 7) % 11 - 5;
	tile_arg args[] = {tile_arg_ptr(x, TILE_I32), tile_arg_ptr(scan, TILE_I32), tile_arg_ptr(sum, TILE_I32)};
	if (!RUN(scan_tuple1_src, "k", "*i32,*i32,*i32,4,16", 1, args))
		return;
	bool ok = true;
	for (int r = 0; r < R; r++) {
		int32_t acc = 0;
		for (int c = 0; c < C; c++) {
			acc += x[r * C + c];
			ok &= scan[r * C + c] == acc;
		}
		ok &= sum[r] == 3 * acc;
	}
	CHECK(ok);
}

/* ---- scans whose axis warps split, with registers above them -----------------------
 * An 8 x 1024 cumsum along its rows (lanes, then warps, then registers along
 * the axis) keeps one carry per 32-element block in shared memory, written
 * by the block's first element (it stored every register's: 64 x 1024 needed
 * 256 KB, cli_limits.sh). Forward and reverse, int32 wrapping, and a
 * two-value scan (sum, max) whose carries share the buffer. */
static const char scan_big_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def summax(a, b, c, d):\n"
	"    return a + c, tl.maximum(b, d)\n"
	"@triton.jit\n"
	"def k(x_ptr, y_ptr, R: tl.constexpr, C: tl.constexpr, REV: tl.constexpr):\n"
	"    o = tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]\n"
	"    tl.store(y_ptr + o, tl.cumsum(tl.load(x_ptr + o), 1, reverse=REV))\n"
	"@triton.jit\n"
	"def k2(x_ptr, s_ptr, m_ptr, R: tl.constexpr, C: tl.constexpr):\n"
	"    o = tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]\n"
	"    x = tl.load(x_ptr + o)\n"
	"    s, m = tl.associative_scan((x, x), 1, summax)\n"
	"    tl.store(s_ptr + o, s)\n"
	"    tl.store(m_ptr + o, m)\n";

static void test_scan_big(void)
{
	enum { R = 8, C = 1024 };
	static int32_t x[R * C], y[R * C], m[R * C];
	uint32_t seed = 3;
	for (int i = 0; i < R * C; i++) {
		seed = seed * 1664525u + 1013904223u;
		x[i] = i % 509 == 7 ? INT32_MAX : (int32_t)(seed >> 12) - (1 << 19);
	}
	for (int rev = 0; rev < 2; rev++) {
		tile_arg args[] = {tile_arg_ptr(x, TILE_I32), tile_arg_ptr(y, TILE_I32)};
		if (!RUN(scan_big_src, "k", rev ? "*i32,*i32,8,1024,True" : "*i32,*i32,8,1024,False", 1, args))
			return;
		bool ok = true;
		for (int r = 0; r < R; r++) {
			uint32_t acc = 0;
			for (int q = 0; q < C; q++) {
				int c = rev ? C - 1 - q : q;
				acc += (uint32_t)x[r * C + c];
				ok &= (uint32_t)y[r * C + c] == acc;
			}
		}
		CHECK(ok);
	}
	tile_arg args[] = {tile_arg_ptr(x, TILE_I32), tile_arg_ptr(y, TILE_I32), tile_arg_ptr(m, TILE_I32)};
	if (RUN(scan_big_src, "k2", "*i32,*i32,*i32,4,1024", 1, args)) {
		bool ok = true;
		for (int r = 0; r < 4; r++) {
			uint32_t acc = 0;
			int32_t mx = INT32_MIN;
			for (int c = 0; c < C; c++) {
				acc += (uint32_t)x[r * C + c];
				mx = x[r * C + c] > mx ? x[r * C + c] : mx;
				ok &= (uint32_t)y[r * C + c] == acc && m[r * C + c] == mx;
			}
		}
		CHECK(ok);
	}
}

/* ---- tl.math.mul/add/sub/fma_f32x2: elementwise fp32, the fma rounded once ------- */

static const char f32x2_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(a_ptr, b_ptr, c_ptr, out, N: tl.constexpr):\n"
	"    o = tl.arange(0, N)\n"
	"    a = tl.load(a_ptr + o)\n"
	"    b = tl.load(b_ptr + o)\n"
	"    c = tl.load(c_ptr + o)\n"
	"    tl.store(out + o, tl.math.mul_f32x2(a, b))\n"
	"    tl.store(out + N + o, tl.math.add_f32x2(a, b))\n"
	"    tl.store(out + 2 * N + o, tl.math.sub_f32x2(a, b))\n"
	"    tl.store(out + 3 * N + o, tl.math.fma_f32x2(a, b, c))\n";

static void test_f32x2(void)
{
	enum { N = 64 };
	float a[N], b[N], c[N], out[4 * N];
	for (int i = 0; i < N; i++) {
		a[i] = 1.0f + (float)i / 3.0f;
		b[i] = 1.0f - (float)i / 7.0f;
		c[i] = -a[i] * b[i]; /* the fma keeps the product's low bits */
	}
	tile_arg args[] = {tile_arg_ptr(a, TILE_FP32), tile_arg_ptr(b, TILE_FP32), tile_arg_ptr(c, TILE_FP32),
			   tile_arg_ptr(out, TILE_FP32)};
	if (!RUN(f32x2_src, "k", "*fp32,*fp32,*fp32,*fp32,64", 1, args))
		return;
	bool ok = true;
	for (int i = 0; i < N; i++) {
		ok &= out[i] == a[i] * b[i] && out[N + i] == a[i] + b[i] && out[2 * N + i] == a[i] - b[i];
		ok &= out[3 * N + i] == fmaf(a[i], b[i], c[i]);
	}
	CHECK(ok);
}

/* ---- a lambda as combine_fn of tl.reduce / tl.associative_scan (constexpr captures) */

static const char lambda_combine_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(x_ptr, scan_ptr, red_ptr, R: tl.constexpr, C: tl.constexpr, OFF: tl.constexpr):\n"
	"    offs = tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]\n"
	"    x = tl.load(x_ptr + offs)\n"
	"    run = tl.associative_scan(x, 1, combine_fn=lambda a, b: tl.maximum(a, b) + OFF)\n"
	"    lo, hi = tl.reduce((x, x), 1, lambda a0, a1, b0, b1: (tl.minimum(a0, b0), tl.maximum(a1, b1)))\n"
	"    tl.store(scan_ptr + offs, run)\n"
	"    tl.store(red_ptr + tl.arange(0, R), hi - lo)\n";

static void test_lambda_combine(void)
{
	enum { R = 4, C = 16 };
	int32_t x[R * C], scan[R * C], red[R];
	for (int i = 0; i < R * C; i++)
		x[i] = (i * 7) % 11 - 5;
	tile_arg args[] = {tile_arg_ptr(x, TILE_I32), tile_arg_ptr(scan, TILE_I32), tile_arg_ptr(red, TILE_I32)};
	if (!RUN(lambda_combine_src, "k", "*i32,*i32,*i32,4,16,0", 1, args))
		return;
	bool ok = true;
	for (int r = 0; r < R; r++) {
		int32_t run = x[r * C], lo = x[r * C], hi = x[r * C];
		for (int c = 0; c < C; c++) {
			int32_t v = x[r * C + c];
			run = v > run ? v : run;
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
			ok &= scan[r * C + c] == run;
		}
		ok &= red[r] == hi - lo;
	}
	CHECK(ok);
}

/* ---- a combine_fn with an if on its elements: each combine picks per element
 * (it was a runtime branch on one thread's element for all, on every target) */

static const char if_combine_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def pick(v0, i0, v1, i1):\n"
	"    if v1 > v0:\n"
	"        v = v1\n"
	"        i = i1\n"
	"    else:\n"
	"        v = v0\n"
	"        i = i0\n"
	"    return v, i\n"
	"@triton.jit\n"
	"def k(x_ptr, run_ptr, idx_ptr, red_ptr, R: tl.constexpr, C: tl.constexpr):\n"
	"    offs = tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]\n"
	"    x = tl.load(x_ptr + offs)\n"
	"    col = tl.broadcast_to(tl.arange(0, C)[None, :], (R, C))\n"
	"    run, idx = tl.associative_scan((x, col), 1, pick, reverse=True)\n"
	"    best, at = tl.reduce((x, col), 1, pick)\n"
	"    tl.store(run_ptr + offs, run)\n"
	"    tl.store(idx_ptr + offs, idx)\n"
	"    tl.store(red_ptr + tl.arange(0, R), best * 1000 + at)\n";

static void test_if_combine(void)
{
	enum { R = 4, C = 64 };
	int32_t x[R * C], run_[R * C], idx[R * C], red[R];
	for (int i = 0; i < R * C; i++)
		x[i] = (i * 37) % 101 - 50 + (i % 13 == 0 ? 200 : 0);
	tile_arg args[] = {tile_arg_ptr(x, TILE_I32), tile_arg_ptr(run_, TILE_I32), tile_arg_ptr(idx, TILE_I32),
			   tile_arg_ptr(red, TILE_I32)};
	static const int warps[] = {1, 4, 8};
	for (size_t w = 0; w < sizeof warps / sizeof *warps; w++) {
		tile_kernel_options opt = {0};
		opt.num_warps = warps[w];
		if (!RUN_OPT(if_combine_src, "k", "*i32,*i32,*i32,*i32,4,64", 1, args, &opt))
			return;
		bool ok = true;
		for (int r = 0; r < R; r++) {
			/* reverse scan from the right: the later (left) element wins only if greater */
			int32_t v = x[r * C + C - 1], at = C - 1;
			for (int c = C - 1; c >= 0; c--) {
				if (x[r * C + c] > v)
					v = x[r * C + c], at = c;
				ok &= run_[r * C + c] == v && idx[r * C + c] == at;
			}
			int32_t bv = x[r * C], bi = 0;
			for (int c = 1; c < C; c++)
				if (x[r * C + c] > bv)
					bv = x[r * C + c], bi = c;
			ok &= red[r] == bv * 1000 + bi;
		}
		CHECK(ok);
	}
}

/* ---- Triton 2.2's tl.math.max/min(x, y, propagate_nan): elementwise, as Inductor emitted them */

static const char math_minmax_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(x_ptr, y_ptr, out_ptr, idx_ptr, ks0, BLOCK: tl.constexpr):\n"
	"    o = tl.arange(0, BLOCK)\n"
	"    x = tl.load(x_ptr + o)\n"
	"    y = tl.load(y_ptr + o)\n"
	"    tl.store(out_ptr + o, tl.math.max(x, y) - 2 * tl.math.min(x, y, tl.PropagateNan.NONE))\n"
	"    i = tl.math.min((-1) + ks0, tl.math.max(0, (-1) + o, tl.PropagateNan.NONE), tl.PropagateNan.NONE)\n"
	"    tl.store(idx_ptr + o, i)\n";

static void test_math_minmax(void)
{
	enum { B = 32, KS0 = 20 };
	float x[B], y[B], out[B];
	int32_t idx[B];
	for (int i = 0; i < B; i++)
		x[i] = (float)(i % 7) - 3.0f, y[i] = (float)(i % 5) - 2.5f;
	tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(y, TILE_FP32), tile_arg_ptr(out, TILE_FP32),
			   tile_arg_ptr(idx, TILE_I32), tile_arg_i32(KS0)};
	if (!RUN(math_minmax_src, "k", "*fp32,*fp32,*fp32,*i32,i32,32", 1, args))
		return;
	bool ok = true;
	for (int i = 0; i < B; i++) {
		float mx = x[i] > y[i] ? x[i] : y[i], mn = x[i] < y[i] ? x[i] : y[i];
		int want = i - 1 < 0 ? 0 : i - 1;
		ok &= out[i] == mx - 2 * mn && idx[i] == (want < KS0 - 1 ? want : KS0 - 1);
	}
	CHECK(ok);
}

/* ---- tl.minimum / tl.maximum with PropagateNan.ALL: Triton's arith.minimumf /
 * maximumf (LLVM's minimum / maximum): NaN wins and -0.0 is below +0.0, in fp32,
 * fp64 and fp16 (minnum picked either zero: maximum(-0.0, +0.0) was -0.0) */

static const char minmax_zero_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(x_ptr, y_ptr, mn_ptr, mx_ptr, BLOCK: tl.constexpr):\n"
	"    o = tl.arange(0, BLOCK)\n"
	"    x = tl.load(x_ptr + o)\n"
	"    y = tl.load(y_ptr + o)\n"
	"    tl.store(mn_ptr + o, tl.minimum(x, y, propagate_nan=tl.PropagateNan.ALL))\n"
	"    tl.store(mx_ptr + o, tl.maximum(x, y, propagate_nan=tl.PropagateNan.ALL))\n";

static void test_minmax_nan_zero(void)
{
	enum { B = 8 };
	/* (x, y) and the sign-aware minimum / maximum; NaN as 2 */
	static const double xs[B] = {0.0, -0.0, -0.0, 0.0, NAN, 1.0, -2.0, 3.0};
	static const double ys[B] = {-0.0, 0.0, -0.0, 0.0, 1.0, NAN, -2.0, -3.0};
	static const double mn[B] = {-0.0, -0.0, -0.0, 0.0, 2, 2, -2.0, -3.0};
	static const double mx[B] = {0.0, 0.0, -0.0, 0.0, 2, 2, -2.0, 3.0};
	bool ok = true;
	{
		float x[B], y[B], a[B], b[B];
		for (int i = 0; i < B; i++)
			x[i] = (float)xs[i], y[i] = (float)ys[i];
		tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(y, TILE_FP32), tile_arg_ptr(a, TILE_FP32),
				   tile_arg_ptr(b, TILE_FP32)};
		if (!RUN(minmax_zero_src, "k", "*fp32,*fp32,*fp32,*fp32,8", 1, args))
			return;
		for (int i = 0; i < B; i++) {
			ok &= mn[i] == 2 ? isnan(a[i]) : a[i] == mn[i] && !signbit(a[i]) == !signbit(mn[i]);
			ok &= mx[i] == 2 ? isnan(b[i]) : b[i] == mx[i] && !signbit(b[i]) == !signbit(mx[i]);
		}
	}
	{
		double a[B], b[B];
		tile_arg args[] = {tile_arg_ptr((void *)xs, TILE_FP64), tile_arg_ptr((void *)ys, TILE_FP64),
				   tile_arg_ptr(a, TILE_FP64), tile_arg_ptr(b, TILE_FP64)};
		if (!RUN(minmax_zero_src, "k", "*fp64,*fp64,*fp64,*fp64,8", 1, args))
			return;
		for (int i = 0; i < B; i++) {
			ok &= mn[i] == 2 ? isnan(a[i]) : a[i] == mn[i] && !signbit(a[i]) == !signbit(mn[i]);
			ok &= mx[i] == 2 ? isnan(b[i]) : b[i] == mx[i] && !signbit(b[i]) == !signbit(mx[i]);
		}
	}
	{
		/* fp16 bits: +0 0x0000, -0 0x8000, NaN 0x7e00, 1 0x3c00, -2 0xc000, 3 0x4200, -3 0xc200 */
		uint16_t x[B] = {0x0000, 0x8000, 0x8000, 0x0000, 0x7e00, 0x3c00, 0xc000, 0x4200};
		uint16_t y[B] = {0x8000, 0x0000, 0x8000, 0x0000, 0x3c00, 0x7e00, 0xc000, 0xc200};
		uint16_t wmn[B] = {0x8000, 0x8000, 0x8000, 0x0000, 0x7e00, 0x7e00, 0xc000, 0xc200};
		uint16_t wmx[B] = {0x0000, 0x0000, 0x8000, 0x0000, 0x7e00, 0x7e00, 0xc000, 0x4200};
		uint16_t a[B], b[B];
		tile_arg args[] = {tile_arg_ptr(x, TILE_FP16), tile_arg_ptr(y, TILE_FP16), tile_arg_ptr(a, TILE_FP16),
				   tile_arg_ptr(b, TILE_FP16)};
		if (!RUN(minmax_zero_src, "k", "*fp16,*fp16,*fp16,*fp16,8", 1, args))
			return;
		for (int i = 0; i < B; i++) {
			bool na = (a[i] & 0x7c00) == 0x7c00 && (a[i] & 0x3ff), nb = (b[i] & 0x7c00) == 0x7c00 && (b[i] & 0x3ff);
			ok &= wmn[i] == 0x7e00 ? na : a[i] == wmn[i];
			ok &= wmx[i] == 0x7e00 ? nb : b[i] == wmx[i];
		}
	}
	CHECK(ok);
}

/* ---- tl.fma of f16 / bf16 rounds once, as fma.rn.f16 / .bf16: an f32 fma rounded
 * twice (f16 1.25 * 1.001953125 + 2^-24 is 1.2529296875, 0x3d03, not 0x3d02; bf16
 * 3 * 119 + 2^-100 is 358, 0x43b3, not 356) */

static const char fma_narrow_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(a_ptr, b_ptr, c_ptr, out_ptr, BLOCK: tl.constexpr):\n"
	"    o = tl.arange(0, BLOCK)\n"
	"    tl.store(out_ptr + o, tl.fma(tl.load(a_ptr + o), tl.load(b_ptr + o), tl.load(c_ptr + o)))\n";

static void test_fma_narrow(void)
{
	enum { B = 4 };
	/* f16: the double-rounding case, a plain one (1 * 2 + 1 = 3), -0 * 1 + -0 = -0, inf * 0 + 1 = NaN */
	uint16_t a[B] = {0x3d00, 0x3c00, 0x8000, 0x7c00}, b[B] = {0x3c02, 0x4000, 0x3c00, 0x0000},
	         c[B] = {0x0001, 0x3c00, 0x8000, 0x3c00}, want[B] = {0x3d03, 0x4200, 0x8000, 0x7e00}, out[B];
	tile_arg args[] = {tile_arg_ptr(a, TILE_FP16), tile_arg_ptr(b, TILE_FP16), tile_arg_ptr(c, TILE_FP16),
			   tile_arg_ptr(out, TILE_FP16)};
	if (!RUN(fma_narrow_src, "k", "*fp16,*fp16,*fp16,*fp16,4", 1, args))
		return;
	bool ok = true;
	for (int i = 0; i < 3; i++)
		ok &= out[i] == want[i];
	ok &= (out[3] & 0x7c00) == 0x7c00 && (out[3] & 0x3ff);
	/* bf16: 3 * 119 + 2^-100, -(3 * 119) - 2^-100, 1 * 1 + 1, 3 * 119 + 0 (the tie: even, 356) */
	uint16_t ba[B] = {0x4040, 0xc040, 0x3f80, 0x4040}, bb[B] = {0x42ee, 0x42ee, 0x3f80, 0x42ee},
	         bc[B] = {0x0d80, 0x8d80, 0x3f80, 0x0000}, bwant[B] = {0x43b3, 0xc3b3, 0x4000, 0x43b2};
	tile_arg bargs[] = {tile_arg_ptr(ba, TILE_BF16), tile_arg_ptr(bb, TILE_BF16), tile_arg_ptr(bc, TILE_BF16),
			    tile_arg_ptr(out, TILE_BF16)};
	if (!RUN(fma_narrow_src, "k", "*bf16,*bf16,*bf16,*bf16,4", 1, bargs))
		return;
	for (int i = 0; i < B; i++)
		ok &= out[i] == bwant[i];
	CHECK(ok);
}

/* ---- many pointer parameters (TorchInductor fuses kernels with dozens) ------------- */

static void test_many_params(void)
{
	enum { NP = 80, B = 16 };
	static char src[8192];
	size_t n = (size_t)snprintf(src, sizeof src, "import triton\nimport triton.language as tl\n@triton.jit\ndef k(out_ptr");
	for (int i = 0; i < NP; i++)
		n += (size_t)snprintf(src + n, sizeof src - n, ", p%d", i);
	n += (size_t)snprintf(src + n, sizeof src - n, ", BLOCK: tl.constexpr):\n    o = tl.arange(0, BLOCK)\n    acc = tl.zeros([BLOCK], tl.float32)\n");
	for (int i = 0; i < NP; i++)
		n += (size_t)snprintf(src + n, sizeof src - n, "    acc += tl.load(p%d + o) * %d\n", i, i + 1);
	snprintf(src + n, sizeof src - n, "    tl.store(out_ptr + o, acc)\n");
	static float in[NP][B];
	float out[B];
	tile_arg args[NP + 1];
	char sig[NP * 8 + 32];
	size_t m = (size_t)snprintf(sig, sizeof sig, "*fp32");
	args[0] = tile_arg_ptr(out, TILE_FP32);
	for (int i = 0; i < NP; i++) {
		for (int j = 0; j < B; j++)
			in[i][j] = (float)((i * 3 + j) % 5) - 2.0f;
		args[i + 1] = tile_arg_ptr(in[i], TILE_FP32);
		m += (size_t)snprintf(sig + m, sizeof sig - m, ",*fp32");
	}
	snprintf(sig + m, sizeof sig - m, ",%d", B);
	if (!RUN(src, "k", sig, 1, args))
		return;
	bool ok = true;
	for (int j = 0; j < B; j++) {
		float want = 0;
		for (int i = 0; i < NP; i++)
			want += in[i][j] * (float)(i + 1);
		ok &= out[j] == want;
	}
	CHECK(ok);
}

/* ---- input_precision tf32x3 / bf16x3 / bf16x6: fp32 from tf32 or bf16 dots ------- */

static const char tf32x3_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(A, B, C, N: tl.constexpr, P: tl.constexpr):\n"
	"    r = tl.arange(0, N)\n"
	"    a = tl.load(A + r[:, None] * N + r[None, :])\n"
	"    b = tl.load(B + r[:, None] * N + r[None, :])\n"
	"    acc = tl.full((N, N), 0.25, tl.float32)\n"
	"    tl.store(C + r[:, None] * N + r[None, :], tl.dot(a, b, acc, input_precision=P))\n";

static void test_tf32x3(void)
{
	enum { N = 32 };
	static float a[N * N], b[N * N], c[N * N];
	uint32_t seed = 7;
	for (int i = 0; i < N * N; i++) {
		seed = seed * 1103515245u + 12345u;
		a[i] = (float)(seed >> 8) / 16777216.0f - 0.5f; /* 24 significant bits */
		seed = seed * 1103515245u + 12345u;
		b[i] = (float)(seed >> 8) / 16777216.0f - 0.5f;
	}
	tile_arg args[] = {tile_arg_ptr(a, TILE_FP32), tile_arg_ptr(b, TILE_FP32), tile_arg_ptr(c, TILE_FP32)};
	/* one tf32 (bf16) dot is off by ~1e-3 (~1e-2) here; tf32x3 and bf16x6 are
	 * within a few fp32 ulps, bf16x3 within ~2^-16 */
	static const struct { const char *sig; double tol; } p[] = {
		{"*fp32,*fp32,*fp32,32,'tf32x3'", 1e-5}, {"*fp32,*fp32,*fp32,32,'bf16x6'", 1e-5},
		{"*fp32,*fp32,*fp32,32,'bf16x3'", 2e-4}};
	for (size_t k = 0; k < sizeof p / sizeof *p; k++) {
		if (!RUN(tf32x3_src, "k", p[k].sig, 1, args))
			return;
		double worst = 0;
		for (int i = 0; i < N; i++)
			for (int j = 0; j < N; j++) {
				double want = 0.25;
				for (int q = 0; q < N; q++)
					want += (double)a[i * N + q] * b[q * N + j];
				worst = fmax(worst, fabs(c[i * N + j] - want));
			}
		CHECK(worst < p[k].tol);
	}
}

/* ---- float casts: f32 -> e5m2 saturates (cvt.rn.satfinite) and rounds once;
 * f64 -> f32 / f16 and f32 -> e5m2 with fp_downcast_rounding='rtz' ------------- */

static const char fp_cast_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(X, E5, D, Z32, Z16, E5Z, N: tl.constexpr):\n"
	"    o = tl.arange(0, N)\n"
	"    x = tl.load(X + o)\n"
	"    tl.store(E5 + o, x.to(tl.float8e5).to(tl.uint8, bitcast=True))\n"
	"    d = tl.load(D + o)\n"
	"    tl.store(Z32 + o, d.to(tl.float32, fp_downcast_rounding='rtz'))\n"
	"    tl.store(Z16 + o, d.to(tl.float16, fp_downcast_rounding='rtz').to(tl.float32))\n"
	"    tl.store(E5Z + o, x.to(tl.float8e5, fp_downcast_rounding='rtz').to(tl.uint8, bitcast=True))\n";

/* the e5m2 code nearest to v (ties to the even code), saturating to +-57344 */
static unsigned e5m2_of(float v)
{
	if (isnan(v))
		return 0x7f;
	v = fmaxf(-57344.0f, fminf(v, 57344.0f));
	unsigned best = 0;
	double bd = INFINITY;
	for (unsigned c = 0; c < 256; c++) {
		float f = f8_value(c, true);
		if (!isfinite(f) || signbit(f) != signbit(v))
			continue;
		double d = fabs((double)f - (double)v);
		if (d < bd || (d == bd && !(c & 1)))
			bd = d, best = c;
	}
	return best;
}

/* the e5m2 code toward zero from v: the largest magnitude not above |v| (Triton
 * truncates through fp16, so past 57344 it is 57344; infinities stay) */
static unsigned e5m2_rtz_of(float v)
{
	if (isnan(v))
		return 0x7e;
	if (isinf(v))
		return v < 0 ? 0xfc : 0x7c;
	unsigned best = signbit(v) ? 0x80 : 0;
	for (unsigned c = 0; c < 256; c++) {
		float f = f8_value(c, true);
		if (isfinite(f) && signbit(f) == signbit(v) && fabsf(f) <= fabsf(v) && fabsf(f) > fabsf(f8_value(best, true)))
			best = c;
	}
	return best;
}

static void test_fp_casts(void)
{
	enum { N = 64 };
	static const float special[] = {1.125f + 0x1p-13f, 1.125f - 0x1p-13f, 1.125f, 1.375f, 61440.0f, 1e6f,
					-INFINITY, INFINITY, 0x1p-17f, 0x1.8p-17f, 0x1p-16f + 0x1p-30f, -0x1.4p-15f};
	float x[N], z32[N], z16[N];
	double d[N];
	uint8_t e5[N], e5z[N];
	int ns = (int)(sizeof special / sizeof *special);
	for (int i = 0; i < N; i++) {
		x[i] = i < ns ? special[i] : ldexpf(1.0f + (float)(i * 37 % 64) / 64.0f + 0x1p-20f, i % 20 - 10) * (i & 1 ? -1.0f : 1.0f);
		d[i] = (1.0 + 0x1p-24 + 0x1p-40 * i) * ldexp(1.0, i % 30 - 15) * (i & 2 ? -1.0 : 1.0);
	}
	d[0] = 1e300, d[1] = -1e300, d[2] = 65519.99;
	tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(e5, TILE_U8), tile_arg_ptr(d, TILE_FP64),
			   tile_arg_ptr(z32, TILE_FP32), tile_arg_ptr(z16, TILE_FP32), tile_arg_ptr(e5z, TILE_U8)};
	if (!RUN(fp_cast_src, "k", "*fp32,*u8,*fp64,*fp32,*fp32,*u8,64", 1, args))
		return;
	bool ok5 = true, ok32 = true, ok16 = true, ok5z = true;
	for (int i = 0; i < N; i++) {
		ok5 &= e5[i] == e5m2_of(x[i]);
		ok5z &= e5z[i] == e5m2_rtz_of(x[i]);
		/* toward zero: not above |d|, and the next value away from zero is */
		double a = fabs(d[i]);
		ok32 &= fabs((double)z32[i]) <= a && (isinf(a) || fabs((double)nextafterf(z32[i], z32[i] < 0 ? -INFINITY : INFINITY)) > a);
		double h = fabs((double)z16[i]);
		ok16 &= h <= a && (h == 65504.0 || h + ldexp(1.0, ilogb(h > 0x1p-14 ? h : 0x1p-14) - 10) > a);
	}
	CHECK(ok5);
	CHECK(ok5z);
	CHECK(ok32);
	CHECK(ok16);
}

/* ---- tl.map_elementwise: a scalar function with branches, run per element ------ */

static const char map_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def _cmp(a, b):\n"
	"    if a > b:\n"
	"        return 1\n"
	"    elif a < b:\n"
	"        return -1\n"
	"    return 0\n"
	"@triton.jit\n"
	"def _step(a, lim):\n"
	"    r = a - 1\n"
	"    if a % 2 == 0:\n"
	"        r = a * 2\n"
	"        if a > lim:\n"
	"            return -r\n"
	"    return r + lim\n"
	"@triton.jit\n"
	"def _pair(a0, a1):\n"
	"    if a0 > a1:\n"
	"        return a1, a0, a0 - a1, a1 - a0\n"
	"    return a0, a1, a0 + a1, a1 + a0\n"
	"@triton.jit\n"
	"def k(X, Y, O, N: tl.constexpr):\n"
	"    o = tl.arange(0, N)\n"
	"    x = tl.load(X + o)\n"
	"    y = tl.load(Y + o)\n"
	"    tl.store(O + o, tl.map_elementwise(_cmp, x, y))\n"
	"    tl.store(O + N + o, tl.map_elementwise(_step, x, 4))\n"
	"    lo, d = tl.map_elementwise(_pair, x, pack=2)\n"
	"    tl.store(O + 2 * N + o, lo)\n"
	"    tl.store(O + 3 * N + o, d)\n";

static void test_map_elementwise(void)
{
	enum { N = 16 };
	int32_t x[N], y[N], o[4 * N];
	for (int i = 0; i < N; i++)
		x[i] = (i * 7) % 11 - 3, y[i] = (i * 5) % 7 - 2;
	tile_arg args[] = {tile_arg_ptr(x, TILE_I32), tile_arg_ptr(y, TILE_I32), tile_arg_ptr(o, TILE_I32)};
	if (!RUN(map_src, "k", "*i32,*i32,*i32,16", 1, args))
		return;
	bool ok = true;
	for (int i = 0; i < N; i++) {
		int a = x[i], want = a > y[i] ? 1 : a < y[i] ? -1 : 0;
		ok &= o[i] == want;
		int r = a - 1;
		if (a % 2 == 0) {
			r = a * 2;
			r = a > 4 ? -r - 4 : r;
		}
		ok &= o[N + i] == r + 4;
		int a0 = x[i & ~1], a1 = x[i | 1], j = i & 1; /* one call per pair of elements */
		int lo[2] = {a0 > a1 ? a1 : a0, a0 > a1 ? a0 : a1};
		int d[2] = {a0 > a1 ? a0 - a1 : a0 + a1, a0 > a1 ? a1 - a0 : a1 + a0};
		ok &= o[2 * N + i] == lo[j] && o[3 * N + i] == d[j];
	}
	CHECK(ok);
}

/* ---- libdevice.cyl_bessel_i0 / i1 (test_libdevice.py's test_bessel) --------------- */

static const char bessel_i_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"from triton.language.extra import libdevice\n"
	"@triton.jit\n"
	"def k(x_ptr, i0_ptr, i1_ptr, BLOCK: tl.constexpr):\n"
	"    o = tl.arange(0, BLOCK)\n"
	"    x = tl.load(x_ptr + o)\n"
	"    tl.store(i0_ptr + o, libdevice.cyl_bessel_i0(x))\n"
	"    tl.store(i1_ptr + o, libdevice.cyl_bessel_i1(x))\n";

/* I_nu(|x|) by its power series in long double: positive terms, so accurate
 * well past double's precision, up to x = 750 */
static long double bessel_i_ref(double x, int nu)
{
	long double h = fabsl((long double)x) / 2, q = h * h, t = nu ? h : 1, s = t;
	for (int k = 1; k < 4000 && t > s * 1e-22L; k++) {
		t = t * q / ((long double)k * (k + nu));
		s += t;
	}
	return nu && x < 0 ? -s : s;
}

static bool bessel_close(double got, long double want, double rel)
{
	if (isnan(want))
		return isnan(got);
	if (isinf(want) || fabsl(want) > DBL_MAX)
		return got == (want > 0 ? INFINITY : -INFINITY);
	return fabsl(got - want) <= rel * fabsl(want);
}

static void test_bessel_i(void)
{
	enum { B = 64 };
	double d[B], d0[B], d1[B];
	float f[B], f0[B], f1[B];
	for (int i = 0; i < B; i++)
		d[i] = (double)(i - 32) * 1.37 + 0.01 * i; /* both sides of the crossover at 30 */
	d[0] = 0.0, d[1] = -0.0, d[2] = 29.999, d[3] = 30.0, d[4] = 700.5, d[5] = 713.5, d[6] = 714.5;
	d[7] = NAN, d[8] = INFINITY, d[9] = -INFINITY, d[10] = 89.0, d[11] = 1e-30, d[12] = -5.0;
	for (int i = 0; i < B; i++)
		f[i] = (float)d[i];
	tile_arg a64[] = {tile_arg_ptr(d, TILE_FP64), tile_arg_ptr(d0, TILE_FP64), tile_arg_ptr(d1, TILE_FP64)};
	tile_arg a32[] = {tile_arg_ptr(f, TILE_FP32), tile_arg_ptr(f0, TILE_FP32), tile_arg_ptr(f1, TILE_FP32)};
	if (!RUN(bessel_i_src, "k", "*fp64,*fp64,*fp64,64", 1, a64) ||
	    !RUN(bessel_i_src, "k", "*fp32,*fp32,*fp32,64", 1, a32))
		return;
	bool ok64 = true, ok32 = true;
	for (int i = 0; i < B; i++) {
		long double w0 = isinf(d[i]) ? INFINITY : bessel_i_ref(d[i], 0);
		long double w1 = isinf(d[i]) ? d[i] : bessel_i_ref(d[i], 1);
		ok64 &= bessel_close(d0[i], w0, 4e-15) && bessel_close(d1[i], w1, 4e-15);
		/* fp32: computed in fp64, so within an fp32 rounding */
		long double v0 = isinf(f[i]) ? INFINITY : bessel_i_ref(f[i], 0);
		long double v1 = isinf(f[i]) ? f[i] : bessel_i_ref(f[i], 1);
		ok32 &= bessel_close(f0[i], (float)v0, 0) && bessel_close(f1[i], (float)v1, 0);
		if (!bessel_close(d0[i], w0, 4e-15) || !bessel_close(d1[i], w1, 4e-15) ||
		    !bessel_close(f0[i], (float)v0, 0) || !bessel_close(f1[i], (float)v1, 0))
			fprintf(stderr, "bessel x=%g: i0 %.17g %.17Lg, i1 %.17g %.17Lg, fp32 %.9g %.9g\n", d[i], d0[i], w0, d1[i],
				w1, f0[i], f1[i]);
	}
	CHECK(ok64);
	CHECK(ok32);
}

/* ---- libdevice double2hiint / double2loint / hiloint2double, rsqrt_rn ----------- */

static const char ld_bits_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"from triton.language.extra.cuda import libdevice\n"
	"@triton.jit\n"
	"def k(D, F, HI, LO, BACK, R, N: tl.constexpr):\n"
	"    o = tl.arange(0, N)\n"
	"    d = tl.load(D + o)\n"
	"    hi = libdevice.double2hiint(d)\n"
	"    lo = libdevice.double2loint(d)\n"
	"    tl.store(HI + o, hi)\n"
	"    tl.store(LO + o, lo)\n"
	"    tl.store(BACK + o, libdevice.hiloint2double(hi, lo ^ 1))\n"
	"    tl.store(R + o, libdevice.rsqrt_rn(tl.load(F + o)))\n";

static void test_libdevice_bits(void)
{
	enum { N = 16 };
	double d[N], back[N];
	float f[N], r[N];
	int32_t hi[N], lo[N];
	for (int i = 0; i < N; i++) {
		d[i] = (i - 7.5) * 1.0e10 / (i + 1);
		f[i] = ldexpf(1.0f + (float)i / 7.0f, i - 8);
	}
	d[0] = -0.0, d[1] = INFINITY;
	tile_arg args[] = {tile_arg_ptr(d, TILE_FP64), tile_arg_ptr(f, TILE_FP32), tile_arg_ptr(hi, TILE_I32),
			   tile_arg_ptr(lo, TILE_I32), tile_arg_ptr(back, TILE_FP64), tile_arg_ptr(r, TILE_FP32)};
	if (!RUN(ld_bits_src, "k", "*fp64,*fp32,*i32,*i32,*fp64,*fp32,16", 1, args))
		return;
	bool ok = true, okr = true;
	for (int i = 0; i < N; i++) {
		uint64_t u, b;
		memcpy(&u, &d[i], 8);
		memcpy(&b, &back[i], 8);
		ok &= (uint32_t)hi[i] == (uint32_t)(u >> 32) && (uint32_t)lo[i] == (uint32_t)u && b == (u ^ 1);
		okr &= r[i] == (float)(1.0 / sqrt((double)f[i]));
	}
	CHECK(ok);
	CHECK(okr);
}

/* ---- libdevice sinpi/cospi/exp10 accuracy, signbit/clz/popc result types ------------ */

/* sinpi was sin(pi * r) with r in [-1, 1]: sinpi(1) = -8.7e-8 (not 0), cospi(0.5) = -4.4e-8, and
 * fp16/bf16 multiplied by pi rounded to their own precision (bf16 sinpi(1) = 9.7e-4); exp10 was
 * exp2(x * log2(10)), 28 ulp at x = -23. libdevice.signbit is an int32 (Triton does not narrow
 * __nv_signbitf to int1, so adding two is 2), clz/popc of int64 are int32 (__nv_clzll). */
static const char pi_exp10_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"from triton.language.extra import libdevice\n"
	"@triton.jit\n"
	"def k(X, H, F, HO, IO, B: tl.constexpr):\n"
	"    o = tl.arange(0, B)\n"
	"    x = tl.load(X + o)\n"
	"    h = tl.load(H + o)\n"
	"    tl.store(F + o, libdevice.sinpi(x))\n"
	"    tl.store(F + B + o, libdevice.cospi(x))\n"
	"    tl.store(F + 2 * B + o, libdevice.exp10(x * 8.0))\n"
	"    tl.store(HO + o, libdevice.sinpi(h))\n"
	"    s = libdevice.signbit(x)\n"
	"    tl.store(IO + o, s + s + s)\n"
	"@triton.jit\n"
	"def k2(L, LO, B: tl.constexpr):\n"
	"    o = tl.arange(0, B)\n"
	"    l = tl.load(L + o)\n"
	"    c = libdevice.clz(l)\n"
	"    p = libdevice.popc(l)\n"
	"    tl.static_assert(c.dtype == tl.int32 and p.dtype == tl.int32)\n"
	"    tl.store(LO + o, c * 100 + p)\n";

static int ulp_dist_f(float a, float b)
{
	int32_t ia, ib;
	memcpy(&ia, &a, 4);
	memcpy(&ib, &b, 4);
	if (ia < 0) ia = INT32_MIN - ia;
	if (ib < 0) ib = INT32_MIN - ib;
	int64_t d = (int64_t)ia - ib;
	return d < 0 ? (int)-d : (int)d;
}

static void test_pi_exp10(void)
{
	enum { B = 16 };
	float x[B] = {1.0f, -3.0f, 0.5f, -0.5f, 1.5f, 2.0f, 1.25f, -4.499967098f, 1.0f + 0x1p-20f, 100.0f,
		      0x1p30f, -0.0f, 0.1f, -2.870616197f, 2.94247723f, 0.0f};
	uint16_t hb[B];
	int64_t l[B];
	float f[3 * B];
	uint16_t ho[B];
	int32_t io[B], lo[B];
	for (int i = 0; i < B; i++) {
		hb[i] = (uint16_t)(i < 8 ? 0x3f80 + (i << 7) : 0xbf80 + ((i - 8) << 7)); /* bf16 1, 2, 4, ... and -1, -2, ... */
		l[i] = i == 0 ? 0 : (int64_t)(0x9E3779B97F4A7C15ull >> (i * 3));
	}
	hb[14] = 0xbfc0, hb[15] = 0x3f00; /* -1.5 and 0.5: sinpi 1 */
	tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(hb, TILE_BF16), tile_arg_ptr(f, TILE_FP32),
			   tile_arg_ptr(ho, TILE_BF16), tile_arg_ptr(io, TILE_I32)};
	tile_arg args2[] = {tile_arg_ptr(l, TILE_I64), tile_arg_ptr(lo, TILE_I32)};
	bool ran2 = RUN(pi_exp10_src, "k2", "*i64,*i32,16", 1, args2);
	if (!RUN(pi_exp10_src, "k", "*fp32,*bf16,*fp32,*bf16,*i32,16", 1, args))
		return;
	bool oks = true, okc = true, oke = true, okh = true, oki = true, okl = true;
	for (int i = 0; i < B; i++) {
		double a = x[i], t = rint(2 * a), r = a - t / 2; /* exact */
		int q = (int)fmod(fmod(t, 4) + 4, 4);
		double sv = sin(M_PI * r), cv = cos(M_PI * r);
		float ws = (float)(q == 0 ? sv : q == 1 ? cv : q == 2 ? -sv : -cv);
		float wc = (float)(q == 0 ? cv : q == 1 ? -sv : q == 2 ? -cv : sv);
		if (r == 0 && (q & 1) == 0) ws = signbit(a) ? -0.0f : 0.0f;
		if (r == 0 && (q & 1)) wc = 0.0f;
		oks &= ulp_dist_f(f[i], ws) <= 1 && (f[i] != 0 || signbit(f[i]) == signbit(ws));
		okc &= ulp_dist_f(f[B + i], wc) <= 1 && (f[B + i] != 0 || !signbit(f[B + i]));
		float we = (float)pow(10.0, (double)(x[i] * 8.0f));
		oke &= ulp_dist_f(f[2 * B + i], we) <= 2;
		/* bf16 inputs are integers or halves of them: sinpi exactly 0 or +-1 */
		float hv;
		uint32_t hbits = (uint32_t)hb[i] << 16;
		memcpy(&hv, &hbits, 4);
		double ht = rint(2.0 * hv);
		float hw = fmod(ht, 2) != 0 ? (fmod(ht, 4) == 1 || fmod(ht, 4) == -3 ? 1.0f : -1.0f) : 0.0f;
		uint32_t gb = (uint32_t)ho[i] << 16;
		float g;
		memcpy(&g, &gb, 4);
		okh &= g == hw;
		oki &= io[i] == (signbit(x[i]) ? 3 : 0);
		int clz = l[i] == 0 ? 64 : __builtin_clzll((unsigned long long)l[i]);
		okl &= !ran2 || lo[i] == clz * 100 + __builtin_popcountll((unsigned long long)l[i]);
	}
	CHECK(oks);
	CHECK(okc);
	CHECK(oke);
	CHECK(okh);
	CHECK(oki);
	CHECK(okl);
}

/* ---- libdevice erfcx / erfcinv / normcdfinv tails, normcdf's left tail ------------- */

/* erfcx was exp(x^2) * erfc(x): inf from x = 10 and NaN past 13 in fp32; erfcinv(y) was
 * erfinv(1 - y): inf for y < 6e-8; normcdfinv the same through 1 - 2p; normcdf 55 ulp at x = -9. */
static const char erfc_tail_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"from triton.language.extra import libdevice\n"
	"@triton.jit\n"
	"def k(X, Y, P, F, B: tl.constexpr):\n"
	"    o = tl.arange(0, B)\n"
	"    tl.store(F + o, libdevice.erfcx(tl.load(X + o)))\n"
	"    tl.store(F + B + o, libdevice.erfcinv(tl.load(Y + o)))\n"
	"    tl.store(F + 2 * B + o, libdevice.normcdfinv(tl.load(P + o)))\n"
	"    tl.store(F + 3 * B + o, libdevice.normcdf(-tl.load(X + o) * 0.9))\n";

static double erfcinv_ref(double y)
{
	double lo = 0, hi = 30;
	for (int i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;
		if (erfc(mid) > y) lo = mid;
		else hi = mid;
	}
	return (lo + hi) / 2;
}

static void test_erfc_tails(void)
{
	enum { B = 8 };
	float x[B] = {10.0f, 13.5f, 20.0f, 1e5f, 1e30f, 0.5f, -3.0f, 9.0f};
	float y[B] = {5e-11f, 1e-30f, 1e-45f, 0.3f, 1.7f, 0.0f, 2.0f, -0.1f};
	float p[B] = {1e-20f, 2.5e-11f, 0.999f, 0.25f, 1e-38f, 0.0f, 1.0f, 1.5f};
	float f[4 * B];
	tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(y, TILE_FP32), tile_arg_ptr(p, TILE_FP32),
			   tile_arg_ptr(f, TILE_FP32)};
	if (!RUN(erfc_tail_src, "k", "*fp32,*fp32,*fp32,*fp32,8", 1, args))
		return;
	bool okx = true, oki = true, okn = true, okc = true;
	for (int i = 0; i < B; i++) {
		long double a = x[i], wx;
		if (a < 25) wx = expl(a * a) * erfcl(a);
		else {
			long double t = 1 / (2 * a * a), s = 1, term = 1;
			for (int n = 1; n < 8; n++) term *= -(2 * n - 1) * t, s += term;
			wx = s / (a * sqrtl(3.14159265358979323846L));
		}
		okx &= ulp_dist_f(f[i], (float)wx) <= 4;
		double v = y[i], wi = v < 0 || v > 2 ? NAN : v == 0 ? INFINITY : v == 2 ? -INFINITY
		                  : v > 1 ? -erfcinv_ref(2 - v) : erfcinv_ref(v);
		oki &= wi != wi ? f[B + i] != f[B + i] : ulp_dist_f(f[B + i], (float)wi) <= 4;
		double q = 2.0 * p[i], wn = q < 0 || q > 2 ? NAN : q == 0 ? -INFINITY : q == 2 ? INFINITY
		                  : q > 1 ? M_SQRT2 * erfcinv_ref(2 - q) : -M_SQRT2 * erfcinv_ref(q);
		okn &= wn != wn ? f[2 * B + i] != f[2 * B + i] : ulp_dist_f(f[2 * B + i], (float)wn) <= 8;
		float xc = -x[i] * 0.9f;
		float wc = (float)(0.5L * erfcl(-(long double)xc / sqrtl(2.0L)));
		okc &= ulp_dist_f(f[3 * B + i], wc) <= 4;
	}
	CHECK(okx);
	CHECK(oki);
	CHECK(okn);
	CHECK(okc);
}

/* ---- libdevice norm3d/norm4d/rnorm3d without overflow, 4-d tl.dot ----------------- */

/* norm3d was sqrt(a*a + b*b + c*c): inf from 1.9e19 and 0 below 1e-23 in fp32. */
static const char norm_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"from triton.language.extra import libdevice\n"
	"@triton.jit\n"
	"def k(X, F, D, DO, B: tl.constexpr):\n"
	"    o = tl.arange(0, B)\n"
	"    x = tl.load(X + o)\n"
	"    tl.store(F + o, libdevice.norm3d(x, x * 0.5, -x))\n"
	"    tl.store(F + B + o, libdevice.rnorm3d(x, x * 0.5, -x))\n"
	"    tl.store(F + 2 * B + o, libdevice.norm4d(x, x, x, x))\n"
	"    d = tl.load(D + o)\n"
	"    tl.store(DO + o, libdevice.norm3d(d, d, d))\n";

static void test_norm_scaled(void)
{
	enum { B = 8 };
	float x[B] = {1e20f, 1e-25f, 3.0f, 0.0f, -1e38f, 1e-45f, INFINITY, NAN};
	double d[B] = {1e300, 1e-310, 3.0, 0.0, -1e308, 5e-324, 1.0, 2.0};
	float f[3 * B];
	double dout[B];
	tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(f, TILE_FP32), tile_arg_ptr(d, TILE_FP64),
			   tile_arg_ptr(dout, TILE_FP64)};
	if (!RUN(norm_src, "k", "*fp32,*fp32,*fp64,*fp64,8", 1, args))
		return;
	bool ok3 = true, okr = true, ok4 = true, okd = true;
	for (int i = 0; i < B; i++) {
		long double a = fabsl((long double)x[i]);
		long double n3 = a * sqrtl(2.25L), n4 = 2 * a;
		if (x[i] != x[i]) {
			ok3 &= f[i] != f[i], okr &= f[B + i] != f[B + i], ok4 &= f[2 * B + i] != f[2 * B + i];
			continue;
		}
		ok3 &= ulp_dist_f(f[i], (float)n3) <= 2;
		okr &= ulp_dist_f(f[B + i], (float)(1 / n3)) <= 2;
		ok4 &= ulp_dist_f(f[2 * B + i], (float)n4) <= 2;
		long double w = fabsl((long double)d[i]) * sqrtl(3.0L);
		double got = dout[i], want = (double)w;
		okd &= got == want || fabs(got - want) <= 4 * fabs(nextafter(want, INFINITY) - want);
	}
	CHECK(ok3);
	CHECK(okr);
	CHECK(ok4);
	CHECK(okd);
}

/* tl.dot of rank 4 (Triton 3.5+'s core.dot flattens the batch dims): refused before */
static const char dot4_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(X, Y, Z, O):\n"
	"    i = tl.arange(0, 2)[:, None, None, None] * 1024 + tl.arange(0, 2)[None, :, None, None] * 512\n"
	"    r = tl.arange(0, 16)[None, None, :, None]\n"
	"    c = tl.arange(0, 32)[None, None, None, :]\n"
	"    x = tl.load(X + i + r * 32 + c)\n"
	"    y = tl.trans(tl.load(Y + i + r * 32 + c), (0, 1, 3, 2))\n"
	"    n = tl.arange(0, 16)[None, None, None, :]\n"
	"    acc = tl.load(Z + i // 2 + r * 16 + n)\n"
	"    tl.store(O + i // 2 + r * 16 + n, tl.dot(x, y, acc))\n";

static void test_dot_rank4(void)
{
	enum { NB = 4, M = 16, K = 32 };
	static uint16_t x[NB * M * K], y[NB * M * K];
	static float xf[NB * M * K], yf[NB * M * K], z[NB * M * M], o[NB * M * M];
	for (int i = 0; i < NB * M * K; i++) {
		xf[i] = (float)((i * 7) % 13 - 6) * 0.25f;
		yf[i] = (float)((i * 5) % 11 - 5) * 0.5f;
		x[i] = half_bits(xf[i]);
		y[i] = half_bits(yf[i]);
	}
	for (int i = 0; i < NB * M * M; i++)
		z[i] = (float)(i % 9) - 4.0f, o[i] = 0;
	tile_arg args[] = {tile_arg_ptr(x, TILE_FP16), tile_arg_ptr(y, TILE_FP16), tile_arg_ptr(z, TILE_FP32),
			   tile_arg_ptr(o, TILE_FP32)};
	if (!RUN(dot4_src, "k", "*fp16,*fp16,*fp32,*fp32", 1, args))
		return;
	bool ok = true;
	for (int b = 0; b < NB; b++)
		for (int m = 0; m < M; m++)
			for (int n = 0; n < M; n++) {
				float want = z[b * M * M + m * M + n];
				for (int k = 0; k < K; k++)
					want += xf[b * M * K + m * K + k] * yf[b * M * K + n * K + k];
				ok &= o[b * M * M + m * M + n] == want;
			}
	CHECK(ok);
}

/* ---- a one-element tile to its scalar: reshape(x, ()) and x.item() --------------- */

static const char item_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(X, O):\n"
	"    x = tl.load(X + tl.arange(0, 1)[:, None] + tl.arange(0, 1)[None, :])\n"
	"    n = tl.reshape(tl.max(x, 1), ())\n"
	"    acc = 0.0\n"
	"    for i in range(n.to(tl.int32)):\n"
	"        acc += x.item()\n"
	"    tl.store(O, acc)\n";

static void test_item(void)
{
	float x = 3.0f, o = 0;
	tile_arg args[] = {tile_arg_ptr(&x, TILE_FP32), tile_arg_ptr(&o, TILE_FP32)};
	if (!RUN(item_src, "k", "*fp32,*fp32", 1, args))
		return;
	CHECK(o == 9.0f);
}

/* ---- a one-element tile as an if's condition: Triton unsplats it (test_core's
 * test_unsplat; trident's argmax keeps a running (1,) max over blocks) ---------- */

static const char unsplat_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(X, O, I, F, N, BLOCK: tl.constexpr):\n"
	"    best = tl.full((1,), -float('inf'), tl.float32)\n"
	"    idx = tl.zeros((1,), tl.int32)\n"
	"    for off in range(0, N, BLOCK):\n"
	"        cols = off + tl.arange(0, BLOCK)\n"
	"        x = tl.load(X + cols[None, :], mask=(cols < N)[None, :], other=-float('inf'))\n"
	"        pos = tl.argmax(x, 1) + off\n"
	"        peak = tl.load(X + pos)\n"
	"        if peak > best:\n"
	"            best = peak\n"
	"            idx = pos\n"
	"    tl.store(O + tl.arange(0, 1), best)\n"
	"    tl.store(I + tl.arange(0, 1), idx)\n"
	"    flag = tl.load(F + tl.arange(0, 1)[:, None]) > 42\n" /* rank 2, one element */
	"    if flag:\n"
	"        tl.store(F, 42)\n";

static void test_unsplat(void)
{
	enum { N = 300 };
	static float x[N];
	for (int i = 0; i < N; i++)
		x[i] = (float)((i * 37) % 101) - 50.0f;
	x[211] = 77.0f;
	for (int f0 = 41; f0 <= 43; f0 += 2) {
		float o = 0;
		int32_t idx = -1, flag = f0;
		tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(&o, TILE_FP32), tile_arg_ptr(&idx, TILE_I32),
				   tile_arg_ptr(&flag, TILE_I32), tile_arg_i32(N)};
		if (!RUN(unsplat_src, "k", "*fp32,*fp32,*i32,*i32,i32,64", 1, args))
			return;
		CHECK(o == 77.0f);
		CHECK(idx == 211);
		CHECK(flag == (f0 > 42 ? 42 : f0));
	}
}

/* ---- with tl.async_task(...): Triton's warp-specialization hint runs its
 * block in place (tritonbench's gdpa); names it binds are loop-carried ----- */

static const char async_task_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(X, O, n, BLOCK: tl.constexpr):\n"
	"    acc = tl.zeros((BLOCK,), tl.float32)\n"
	"    for start in range(0, n, BLOCK):\n"
	"        offs = start + tl.arange(0, BLOCK)\n"
	"        with tl.async_task([0]):\n"
	"            x = tl.load(X + offs, mask=offs < n, other=0.0)\n"
	"        with tl.async_task([1, 2]), tl.async_task(num_warps=1, num_regs=48):\n"
	"            acc += x * x\n"
	"            if start > 0:\n"
	"                acc += 1.0\n"
	"    with tl.async_task(\"default\"):\n"
	"        tl.store(O + tl.arange(0, BLOCK), acc)\n";

static void test_async_task(void)
{
	enum { N = 100, B = 32 };
	float x[N], o[B], want[B];
	for (int i = 0; i < N; i++)
		x[i] = (float)(i % 7) - 3.0f;
	for (int j = 0; j < B; j++) {
		want[j] = 0;
		for (int start = 0; start < N; start += B) {
			float v = start + j < N ? x[start + j] : 0.0f;
			want[j] += v * v;
			if (start) want[j] += 1.0f;
		}
	}
	tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(o, TILE_FP32), tile_arg_i32(N)};
	if (!RUN(async_task_src, "k", "*fp32,*fp32,i32,32", 1, args))
		return;
	bool ok = true;
	for (int j = 0; j < B; j++)
		ok &= o[j] == want[j];
	CHECK(ok);
}

/* ---- masks and indices that axis analysis reasons about: every comparison
 * direction against a bound divisible by 16 (only < and >= are constant over
 * an aligned group), and x % n, x // n by a runtime n divisible by 16 ------- */

static const char axis_mask_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(x_ptr, o_ptr, n, BLOCK: tl.constexpr):\n"
	"    offs = tl.arange(0, BLOCK)\n"
	"    base = o_ptr + offs\n"
	"    tl.store(base, tl.load(x_ptr + offs, mask=offs > n, other=-1.0))\n"
	"    tl.store(base + BLOCK, tl.load(x_ptr + offs, mask=offs <= n, other=-1.0))\n"
	"    tl.store(base + 2 * BLOCK, tl.load(x_ptr + offs, mask=n < offs, other=-1.0))\n"
	"    tl.store(base + 3 * BLOCK, tl.load(x_ptr + offs, mask=n >= offs, other=-1.0))\n"
	"    tl.store(base + 4 * BLOCK, tl.load(x_ptr + offs, mask=offs >= n, other=-1.0))\n"
	"    tl.store(base + 5 * BLOCK, tl.load(x_ptr + offs, mask=offs < n, other=-1.0))\n"
	"    col = offs % n\n"
	"    row = offs // n\n"
	"    tl.store(base + 6 * BLOCK, tl.load(x_ptr + row * n + col))\n"
	"    tl.store(base + 7 * BLOCK, tl.load(x_ptr + col) + row.to(tl.float32))\n";

static void test_axis_masks(void)
{
	enum { B = 1024, PARTS = 8 };
	static float x[B], out[PARTS * B];
	for (int i = 0; i < B; i++)
		x[i] = (float)i;
	static const int32_t ns[] = {16, 48, 512};
	for (size_t t = 0; t < sizeof ns / sizeof *ns; t++) {
		int32_t n = ns[t];
		for (int i = 0; i < PARTS * B; i++)
			out[i] = -7.0f;
		tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(out, TILE_FP32), tile_arg_i32(n)};
		if (!RUN(axis_mask_src, "k", "*fp32:16,*fp32:16,i32:16,1024", 1, args))
			continue;
		bool ok = true;
		for (int i = 0; i < B && ok; i++) {
			bool m[6] = {i > n, i <= n, n < i, n >= i, i >= n, i < n};
			for (int p = 0; p < 6; p++)
				if (out[p * B + i] != (m[p] ? x[i] : -1.0f)) {
					fprintf(stderr, "n=%d part %d elem %d: %g\n", n, p, i, out[p * B + i]);
					ok = false;
				}
			if (out[6 * B + i] != x[i] || out[7 * B + i] != x[i % n] + (float)(i / n)) {
				fprintf(stderr, "n=%d index parts elem %d: %g %g\n", n, i, out[6 * B + i], out[7 * B + i]);
				ok = false;
			}
		}
		CHECK(ok);
	}
}

/* ---- f(x, *args): a tuple's items as positional arguments ------------------------ */

static const char star_args_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def affine(x, a, b):\n"
	"    return x * a + b\n"
	"@triton.jit\n"
	"def apply(fn: tl.constexpr, x, fn_args):\n"
	"    return fn(x, *fn_args)\n"
	"@triton.jit\n"
	"def k(x_ptr, out_ptr, BLOCK: tl.constexpr):\n"
	"    offs = tl.arange(0, BLOCK)\n"
	"    x = tl.load(x_ptr + offs)\n"
	"    args = (3.0, x)\n"
	"    y = apply(affine, x, args)\n"
	"    count = lambda *r: len(r)\n"
	"    z = tl.maximum(*(y, x * 5))\n"
	"    tl.store(out_ptr + offs, y + z + count(*args, *(), 1))\n";

static void test_star_args(void)
{
	enum { B = 32 };
	float x[B], out[B];
	for (int i = 0; i < B; i++)
		x[i] = (float)(i - 12) * 0.5f, out[i] = 0;
	tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(out, TILE_FP32)};
	if (!RUN(star_args_src, "k", "*fp32,*fp32,32", 1, args))
		return;
	bool ok = true;
	for (int i = 0; i < B; i++) {
		float y = x[i] * 3 + x[i], z = y > x[i] * 5 ? y : x[i] * 5;
		ok &= out[i] == y + z + 3;
	}
	CHECK(ok);
}

/* ---- an empty tuple argument `()` in a signature (triton_kernels' fn_args=()) ----- */

static const char empty_tuple_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(x_ptr, out_ptr, fn_args, n, BLOCK: tl.constexpr):\n"
	"    offs = tl.arange(0, BLOCK)\n"
	"    x = tl.load(x_ptr + offs, mask=offs < n)\n"
	"    if len(fn_args) == 0:\n"
	"        x = tl.maximum(x, *fn_args, 0.0)\n"
	"    tl.store(out_ptr + offs, x, mask=offs < n)\n";

static void test_empty_tuple_arg(void)
{
	enum { B = 16 };
	float x[B], out[B];
	for (int i = 0; i < B; i++)
		x[i] = (float)(i - 6), out[i] = -1;
	tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(out, TILE_FP32), tile_arg_i32(B)};
	if (!RUN(empty_tuple_src, "k", "*fp32,*fp32,(),i32,16", 1, args))
		return;
	bool ok = true;
	for (int i = 0; i < B; i++)
		ok &= out[i] == (x[i] > 0 ? x[i] : 0);
	CHECK(ok);
}

/* ---- tl.core.add / sub / mul(x, y, sanitize_overflow=) (triton_kernels' mxfp) ----- */

static const char core_arith_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(x_ptr, out_ptr, BLOCK: tl.constexpr):\n"
	"    offs = tl.arange(0, BLOCK)\n"
	"    x = tl.load(x_ptr + offs)\n"
	"    d = tl.core.sub(127, x + 1, sanitize_overflow=False)\n"
	"    tl.store(out_ptr + offs, tl.core.add(tl.core.mul(d, 3), x))\n";

static void test_core_arith(void)
{
	enum { B = 16 };
	uint32_t x[B], out[B];
	for (int i = 0; i < B; i++)
		x[i] = (uint32_t)(i * 20), out[i] = 0;
	tile_arg args[] = {tile_arg_ptr(x, TILE_U32), tile_arg_ptr(out, TILE_U32)};
	if (!RUN(core_arith_src, "k", "*u32,*u32,16", 1, args))
		return;
	bool ok = true;
	for (int i = 0; i < B; i++)
		ok &= out[i] == (127u - (x[i] + 1u)) * 3u + x[i];
	CHECK(ok);
}

/* ---- inline PTX min/max with .NaN and .xorsign.abs (triton_kernels' flexpoint) ---- */

static const char asm_minmax_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):\n"
	"    offs = tl.arange(0, BLOCK)\n"
	"    x = tl.load(x_ptr + offs)\n"
	"    y = tl.load(y_ptr + offs)\n"
	"    a = tl.inline_asm_elementwise('max.NaN.xorsign.abs.f32 $0, $1, $2;', '=r,r,r', [x, y],\n"
	"                                  dtype=tl.float32, is_pure=True, pack=1)\n"
	"    b = tl.inline_asm_elementwise('min.xorsign.abs.f32 $0, $1, $2;', '=r,r,r', [x, y],\n"
	"                                  dtype=tl.float32, is_pure=True, pack=1)\n"
	"    c = tl.inline_asm_elementwise('min.NaN.f32 $0, $1, $2;', '=r,r,r', [x, y],\n"
	"                                  dtype=tl.float32, is_pure=True, pack=1)\n"
	"    d = tl.inline_asm_elementwise('max.f32 $0, $1, $2;', '=r,r,r', [x, y],\n"
	"                                  dtype=tl.float32, is_pure=True, pack=1)\n"
	"    tl.store(out_ptr + offs, a)\n"
	"    tl.store(out_ptr + BLOCK + offs, b)\n"
	"    tl.store(out_ptr + 2 * BLOCK + offs, c)\n"
	"    tl.store(out_ptr + 3 * BLOCK + offs, d)\n";

/* the value with |.| chosen by is_max (NaN if either is and nan), sign of x xor y */
static float xorsign_ref(float x, float y, bool is_max, bool nan)
{
	if (isnan(x) || isnan(y))
		return nan ? NAN : fabsf(isnan(x) ? y : x) * (signbit(x) != signbit(y) ? -1.0f : 1.0f);
	float m = is_max ? fmaxf(fabsf(x), fabsf(y)) : fminf(fabsf(x), fabsf(y));
	return signbit(x) != signbit(y) ? -m : m;
}

static bool same_float(float a, float b) { return (isnan(a) && isnan(b)) || a == b; }

static void test_asm_minmax(void)
{
	enum { B = 8 };
	float x[B] = {1, -2, 3, -4, NAN, 5, -0.5f, 2}, y[B] = {-1.5f, -1, 2, 8, 1, NAN, 0.25f, -3}, out[4 * B];
	tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(y, TILE_FP32), tile_arg_ptr(out, TILE_FP32)};
	if (!RUN(asm_minmax_src, "k", "*fp32,*fp32,*fp32,8", 1, args))
		return;
	bool ok_a = true, ok_b = true, ok_c = true, ok_d = true;
	for (int i = 0; i < B; i++) {
		bool n = isnan(x[i]) || isnan(y[i]);
		ok_a &= same_float(out[i], xorsign_ref(x[i], y[i], true, true));
		ok_b &= n || same_float(out[B + i], xorsign_ref(x[i], y[i], false, false));
		ok_c &= same_float(out[2 * B + i], n ? NAN : fminf(x[i], y[i]));
		ok_d &= same_float(out[3 * B + i], fmaxf(x[i], y[i]));
	}
	CHECK(ok_a);
	CHECK(ok_b);
	CHECK(ok_c);
	CHECK(ok_d);
}

/* ---- inline asm: .sat and sign-extending cvt ------------------------------------- */

/* add.sat.f32 clamps to [0, 1] with NaN giving 0 (it gave 1); add.sat.s32 and
 * sub.sat.s32 clamp to the int32 range (the .sat was ignored: they wrapped);
 * cvt.rni.sat.s8.f32 into a .b32 register sign-extends (-2 was 254) */
static const char asm_sat_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(x_ptr, i_ptr, j_ptr, f_ptr, o_ptr, BLOCK: tl.constexpr):\n"
	"    offs = tl.arange(0, BLOCK)\n"
	"    x = tl.load(x_ptr + offs)\n"
	"    i = tl.load(i_ptr + offs)\n"
	"    j = tl.load(j_ptr + offs)\n"
	"    f = tl.inline_asm_elementwise('add.sat.f32 $0, $1, 0f00000000;', '=f,f', [x],\n"
	"                                  dtype=tl.float32, is_pure=True, pack=1)\n"
	"    a = tl.inline_asm_elementwise('add.sat.s32 $0, $1, $2;', '=r,r,r', [i, j],\n"
	"                                  dtype=tl.int32, is_pure=True, pack=1)\n"
	"    b = tl.inline_asm_elementwise('sub.sat.s32 $0, $1, $2;', '=r,r,r', [i, j],\n"
	"                                  dtype=tl.int32, is_pure=True, pack=1)\n"
	"    c = tl.inline_asm_elementwise('cvt.rni.sat.s8.f32 $0, $1;', '=r,f', [x],\n"
	"                                  dtype=tl.int32, is_pure=True, pack=1)\n"
	"    tl.store(f_ptr + offs, f)\n"
	"    tl.store(o_ptr + offs, a)\n"
	"    tl.store(o_ptr + BLOCK + offs, b)\n"
	"    tl.store(o_ptr + 2 * BLOCK + offs, c)\n";

static void test_asm_sat(void)
{
	enum { B = 8 };
	float x[B] = {NAN, -NAN, -0.5f, 0.25f, 2.0f, -1.6f, 300.0f, -300.0f}, f[B];
	int32_t i[B] = {INT32_MAX, INT32_MIN, INT32_MIN, 5, -7, INT32_MAX, 0, 100};
	int32_t j[B] = {1, -1, 1, -3, 2, -1, INT32_MIN, INT32_MAX}, o[3 * B];
	tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(i, TILE_I32), tile_arg_ptr(j, TILE_I32),
			   tile_arg_ptr(f, TILE_FP32), tile_arg_ptr(o, TILE_I32)};
	if (!RUN(asm_sat_src, "k", "*fp32,*i32,*i32,*fp32,*i32,8", 1, args))
		return;
	bool ok_f = true, ok_a = true, ok_b = true, ok_c = true;
	for (int k = 0; k < B; k++) {
		float fr = isnan(x[k]) || x[k] <= 0 ? 0.0f : x[k] > 1 ? 1.0f : x[k];
		int64_t s = (int64_t)i[k] + j[k], d = (int64_t)i[k] - j[k];
		s = s < INT32_MIN ? INT32_MIN : s > INT32_MAX ? INT32_MAX : s;
		d = d < INT32_MIN ? INT32_MIN : d > INT32_MAX ? INT32_MAX : d;
		float r = isnan(x[k]) ? 0.0f : rintf(x[k]);
		int32_t c = r < -128 ? -128 : r > 127 ? 127 : (int32_t)r;
		ok_f &= f[k] == fr && !signbit(f[k]);
		ok_a &= o[k] == (int32_t)s;
		ok_b &= o[B + k] == (int32_t)d;
		ok_c &= o[2 * B + k] == c;
	}
	CHECK(ok_f);
	CHECK(ok_a);
	CHECK(ok_b);
	CHECK(ok_c);
}

/* ---- integer -> float rounded toward zero -------------------------------------- */

/* libdevice's int2float_rz / ll2float_rz / ull2float_rz / ll2double_rz and
 * inline asm cvt.rz.f32.s64 / cvt.rz.f16.s32 round toward zero; they were
 * rounded to nearest (int2float_rz(16777219) gave 16777220, not 16777218) */
static const char int_rz_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"from triton.language.extra import libdevice\n"
	"@triton.jit\n"
	"def k(i_ptr, l_ptr, f_ptr, d_ptr, h_ptr, BLOCK: tl.constexpr):\n"
	"    offs = tl.arange(0, BLOCK)\n"
	"    i = tl.load(i_ptr + offs)\n"
	"    l = tl.load(l_ptr + offs)\n"
	"    tl.store(f_ptr + offs, libdevice.int2float_rz(i))\n"
	"    tl.store(f_ptr + BLOCK + offs, libdevice.ll2float_rz(l))\n"
	"    tl.store(f_ptr + 2 * BLOCK + offs, libdevice.ull2float_rz(l.to(tl.uint64, bitcast=True)))\n"
	"    tl.store(f_ptr + 3 * BLOCK + offs, tl.inline_asm_elementwise('cvt.rz.f32.s64 $0, $1;', '=f,l', [l],\n"
	"                                       dtype=tl.float32, is_pure=True, pack=1))\n"
	"    tl.store(d_ptr + offs, libdevice.ll2double_rz(l))\n"
	"    tl.store(h_ptr + offs, tl.inline_asm_elementwise('cvt.rz.f16.s32 $0, $1;', '=h,r', [i],\n"
	"                                   dtype=tl.float16, is_pure=True, pack=1))\n";

/* |v| with the bits below its top p significant ones cleared, v's sign */
static double rz_ref(int64_t v, uint64_t mag, int p)
{
	uint64_t m = mag;
	int len = 0;
	while (len < 64 && (m >> len)) len++;
	if (len > p) m &= ~0ull << (len - p);
	return v < 0 ? -(double)m : (double)m;
}

static void test_int_rz(void)
{
	enum { B = 8 };
	int32_t i[B] = {16777219, -16777219, INT32_MAX, INT32_MIN + 1, 33554435, 7, 0, 65519};
	int64_t l[B] = {50331651, -50331651, INT64_MAX, INT64_MIN, (1ll << 53) + 1, -((1ll << 53) + 3), -1,
			27021597764222979ll};
	float f[4 * B];
	double d[B];
	uint16_t h[B];
	tile_arg args[] = {tile_arg_ptr(i, TILE_I32), tile_arg_ptr(l, TILE_I64), tile_arg_ptr(f, TILE_FP32),
			   tile_arg_ptr(d, TILE_FP64), tile_arg_ptr(h, TILE_FP16)};
	if (!RUN(int_rz_src, "k", "*i32,*i64,*fp32,*fp64,*fp16,8", 1, args))
		return;
	bool ok_i = true, ok_l = true, ok_u = true, ok_a = true, ok_d = true, ok_h = true;
	for (int k = 0; k < B; k++) {
		uint64_t mi = i[k] < 0 ? (uint64_t)0 - (uint64_t)(int64_t)i[k] : (uint64_t)i[k];
		uint64_t ml = l[k] < 0 ? (uint64_t)0 - (uint64_t)l[k] : (uint64_t)l[k];
		ok_i &= f[k] == (float)rz_ref(i[k], mi, 24);
		ok_l &= f[B + k] == (float)rz_ref(l[k], ml, 24);
		ok_u &= f[2 * B + k] == (float)rz_ref(0, (uint64_t)l[k], 24);
		ok_a &= f[3 * B + k] == (float)rz_ref(l[k], ml, 24);
		ok_d &= d[k] == rz_ref(l[k], ml, 53);
		/* f16: 11 significant bits, past 65504 the largest finite (toward zero) */
		double hv = rz_ref(i[k], mi, 11);
		hv = hv > 65504 ? 65504 : hv < -65504 ? -65504 : hv;
		ok_h &= h[k] == half_bits((float)hv);
	}
	CHECK(ok_i);
	CHECK(ok_l);
	CHECK(ok_u);
	CHECK(ok_a);
	CHECK(ok_d);
	CHECK(ok_h);
}

/* ---- tl.extra.cuda: num_warps(), num_threads(), min/max_nan_xorsign_abs_f32 ------- */

static const char extra_cuda_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def absmax(a, b):\n"
	"    return tl.extra.cuda.max_nan_xorsign_abs_f32(a, b)\n"
	"@triton.jit\n"
	"def k(x_ptr, y_ptr, out_ptr, w_ptr, BLOCK: tl.constexpr):\n"
	"    offs = tl.arange(0, BLOCK)\n"
	"    x = tl.load(x_ptr + offs)\n"
	"    y = tl.load(y_ptr + offs)\n"
	"    tl.store(out_ptr + offs, absmax(x, y))\n"
	"    tl.store(out_ptr + BLOCK + offs, tl.extra.cuda.min_nan_xorsign_abs_f32(x, y))\n"
	"    r = tl.reduce(y, 0, absmax).to(tl.uint32, bitcast=True) & 0x7FFFFFFF\n"
	"    tl.store(out_ptr + 2 * BLOCK, r.to(tl.float32, bitcast=True))\n"
	"    nw: tl.constexpr = tl.extra.cuda.num_warps()\n"
	"    tl.static_assert(tl.extra.cuda.num_threads() == 32 * nw)\n"
	"    tl.store(w_ptr, nw)\n";

static void test_extra_cuda(void)
{
	enum { B = 8 };
	float x[B] = {1, -2, 3, -4, NAN, 5, -0.5f, 2}, y[B] = {-1.5f, -1, 2, 8, 1, -7, 0.25f, -3}, out[3 * B];
	int32_t w = 0;
	tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(y, TILE_FP32), tile_arg_ptr(out, TILE_FP32),
			   tile_arg_ptr(&w, TILE_I32)};
	if (!RUN(extra_cuda_src, "k", "*fp32,*fp32,*fp32,*i32,8", 1, args))
		return;
	bool ok_max = true, ok_min = true;
	for (int i = 0; i < B; i++) {
		ok_max &= same_float(out[i], xorsign_ref(x[i], y[i], true, true));
		ok_min &= same_float(out[B + i], xorsign_ref(x[i], y[i], false, true));
	}
	CHECK(ok_max);
	CHECK(ok_min);
	CHECK(out[2 * B] == 8.0f);
	CHECK(w == 4);
}

/* ---- @aggregate classes: built by a Python __init__ or from their fields, nested,
 * carried through for/while loops and runtime ifs, passed to and returned from
 * functions, with @jit, static, Python and __getitem__ methods ------------------------- */

static const char aggregate_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"from triton.language.core import _aggregate as aggregate\n"
	"@aggregate\n"
	"class Window:\n"
	"    base: tl.tensor\n"
	"    size: tl.constexpr\n"
	"    @triton.constexpr_function\n"
	"    def __init__(self, base, size):\n"
	"        self.base = base\n"
	"        self.size = tl.constexpr(size)\n"
	"    @triton.jit\n"
	"    def offsets(self):\n"
	"        return self.base + tl.arange(0, self.size)\n"
	"    def half(self):\n"
	"        return self.size // 2\n"
	"@aggregate\n"
	"class Stats:\n"
	"    total: tl.tensor\n"
	"    hits: tl.tensor\n"
	"    win: Window\n"
	"    pair: tl.tuple\n"
	"    weight: tl.constexpr = 3\n"
	"    @triton.jit\n"
	"    def add(self, x):\n"
	"        return Stats(self.total + x * self.weight, self.hits + 1, self.win, (self.pair[1], self.pair[0]))\n"
	"    @staticmethod\n"
	"    @triton.jit\n"
	"    def start(win):\n"
	"        return Stats(tl.zeros([win.size], tl.float32), 0, win, pair=(1, 2))\n"
	"    @triton.jit\n"
	"    def __getitem__(self, i):\n"
	"        return self.pair[i]\n"
	"@triton.jit\n"
	"def step(st, x):\n"
	"    return st.add(x)\n"
	"@triton.jit\n"
	"def k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
	"    pid = tl.program_id(0)\n"
	"    win = Window(pid * BLOCK, BLOCK)\n"
	"    st = Stats.start(win)\n"
	"    for i in range(n):\n"
	"        st = step(st, tl.load(x_ptr + st.win.offsets()) + i)\n"
	"    j = 0\n"
	"    while j < n:\n"
	"        if j % 3 == 0:\n"
	"            st = st.add(1.0)\n"
	"        j += 1\n"
	"    tl.static_assert(win.half() * 2 == BLOCK)\n"
	"    tl.store(out_ptr + win.offsets(), st.total + st.hits * 100 + st[0] * 10000)\n";

static void test_aggregate(void)
{
	enum { B = 16, G = 3, N = 5 };
	float x[B * G], out[B * G];
	for (int i = 0; i < B * G; i++)
		x[i] = (float)(i % 9) - 3.5f, out[i] = -1;
	tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(out, TILE_FP32), tile_arg_i32(N)};
	if (!RUN(aggregate_src, "k", "*fp32,*fp32,i32,16", G, args))
		return;
	int hits = N + (N + 2) / 3;
	float pair0 = hits % 2 ? 2.0f : 1.0f;
	bool ok = true;
	for (int i = 0; i < B * G; i++) {
		float total = 0;
		for (int it = 0; it < N; it++)
			total += (x[i] + (float)it) * 3.0f;
		total += 3.0f * (float)((N + 2) / 3);
		ok &= fabsf(out[i] - (total + (float)hits * 100.0f + pair0 * 10000.0f)) < 1e-3f;
	}
	CHECK(ok);
}

/* ---- typing.NamedTuple: a tuple with field names, built in a kernel (Triton's
 * test_tuple): by keyword in a helper and returned, read by name and by index,
 * unpacked, len(), carried by a loop, merged by an if, a field's default ------ */

static const char namedtuple_src[] =
	"from typing import NamedTuple\n"
	"import triton\n"
	"import triton.language as tl\n"
	"class Tensor(NamedTuple):\n"
	"    ptr: any\n"
	"    shape: tuple\n"
	"    stride: tuple\n"
	"class Pair(NamedTuple):\n"
	"    a: tl.tensor\n"
	"    b: tl.tensor\n"
	"    scale: tl.constexpr = 2\n"
	"@triton.jit\n"
	"def make(shape, ptr, stride):\n"
	"    return Tensor(shape=shape, ptr=ptr, stride=stride)\n"
	"@triton.jit\n"
	"def mask_of(T, BM: tl.constexpr, BN: tl.constexpr):\n"
	"    om = tl.arange(0, BM)\n"
	"    on = tl.arange(0, BN)\n"
	"    return (om[:, None] < T.shape[0]) & (on[None, :] < T.shape[1])\n"
	"@triton.jit\n"
	"def k(X, Y, P, Q, M, N, sm, sn, BM: tl.constexpr, BN: tl.constexpr):\n"
	"    T = make((M, N), X, (sm, sn))\n"
	"    om = tl.arange(0, BM)\n"
	"    on = tl.arange(0, BN)\n"
	"    x = tl.load(T.ptr + om[:, None] * T.stride[0] + on[None, :] * T.stride[1], mask=mask_of(T, BM, BN), other=0.0)\n"
	"    ptr, shape, stride = T\n"
	"    tl.store(Y + om[:, None] * stride[0] + on[None, :] * stride[1], x * len(T), mask=mask_of(T, BM, BN))\n"
	"    o = tl.arange(0, BN)\n"
	"    p = Pair(tl.load(P + o), tl.load(Q + o))\n"
	"    for i in range(3):\n"
	"        p = Pair(p.a + p.b, p.b, p.scale)\n"
	"    if M > 4:\n"
	"        p = Pair(p.b, p.a)\n"
	"    tl.static_assert(p._fields[2] == 'scale')\n"
	"    tl.static_assert(Pair._fields == ('a', 'b', 'scale'))\n"
	"    tl.store(P + o, p.a * p.scale + p[1])\n";

static void test_namedtuple(void)
{
	enum { B = 16, M = 10, N = 12 };
	float x[B * B], y[B * B], p[B], q[B];
	for (int i = 0; i < B * B; i++)
		x[i] = (float)i, y[i] = -1;
	for (int i = 0; i < B; i++)
		p[i] = (float)i, q[i] = 10.0f + (float)(i % 3);
	tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(y, TILE_FP32), tile_arg_ptr(p, TILE_FP32),
			   tile_arg_ptr(q, TILE_FP32), tile_arg_i32(M), tile_arg_i32(N), tile_arg_i32(B), tile_arg_i32(1)};
	if (!RUN(namedtuple_src, "k", "*fp32,*fp32,*fp32,*fp32,i32,i32,i32,i32,16,16", 1, args))
		return;
	bool ok = true;
	for (int i = 0; i < B * B; i++)
		ok &= y[i] == (i / B < M && i % B < N ? 3.0f * x[i] : -1.0f);
	/* a = p + 3q after the loop; the if swaps: a = q, b = p + 3q, scale 2 */
	for (int i = 0; i < B; i++)
		ok &= p[i] == (float)i + 5.0f * (10.0f + (float)(i % 3));
	CHECK(ok);
}

/* A kernel's tuple parameter annotated with a NamedTuple class is an instance of
 * it (Triton's launcher keeps a NamedTuple argument's type): its fields by name,
 * nested in another tuple parameter too, and still by index. */
static const char namedtuple_param_src[] =
	"from typing import NamedTuple\n"
	"import triton\n"
	"import triton.language as tl\n"
	"class Shape(NamedTuple):\n"
	"    m: int\n"
	"    n: int\n"
	"class View(NamedTuple):\n"
	"    ptr: tl.tensor\n"
	"    stride: int\n"
	"@triton.jit\n"
	"def k(out_ptr, s: Shape, v: View):\n"
	"    tl.static_assert(s._fields == ('m', 'n'))\n"
	"    tl.store(out_ptr, s.m * 100 + s.n * 10 + tl.load(v.ptr + v.stride) + s[0] * 1000)\n";

static void test_namedtuple_param(void)
{
	int32_t out[1] = {-1}, data[8] = {0, 1, 2, 3, 4, 5, 6, 7};
	tile_arg args[] = {tile_arg_ptr(out, TILE_I32), tile_arg_i32(3), tile_arg_i32(5),
	                   tile_arg_ptr(data, TILE_I32), tile_arg_i32(6)};
	if (!RUN(namedtuple_param_src, "k", "*i32,(i32,i32),(*i32,i32)", 1, args))
		return;
	CHECK(out[0] == 3000 + 300 + 50 + 6);
}

/* ---- named expressions (:=): a binding that is also a value, carried by loops --- */

static const char walrus_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(out_ptr, n):\n"
	"    i = 0\n"
	"    acc = 0\n"
	"    while (i := i + 1) <= n:\n" /* i is carried through the while: bound in its condition */
	"        acc += i * i\n"
	"    big = 0\n"
	"    for j in range(n):\n"
	"        if (t := j * 3) > n:\n" /* t is assigned in the loop body only through := */
	"            big += t\n"
	"    tl.store(out_ptr, acc)\n"
	"    tl.store(out_ptr + 1, i)\n"
	"    tl.store(out_ptr + 2, big)\n"
	"    tl.store(out_ptr + 3, (w := n + 7) * w)\n";

static void test_walrus(void)
{
	for (int n = 0; n <= 7; n += 7) {
		int32_t out[4] = {-1, -1, -1, -1};
		tile_arg args[] = {tile_arg_ptr(out, TILE_I32), tile_arg_i32(n)};
		if (!RUN(walrus_src, "k", "*i32,i32", 1, args))
			return;
		int32_t acc = 0, big = 0;
		for (int i = 1; i <= n; i++)
			acc += i * i;
		for (int j = 0; j < n; j++)
			big += j * 3 > n ? j * 3 : 0;
		CHECK(out[0] == acc && out[1] == n + 1 && out[2] == big && out[3] == (n + 7) * (n + 7));
	}
}

/* ---- device_print: Triton's line format (prefix " x: ", indices padded to the
 * widest, "idx ()" for a scalar, %f floats, hex padded to the type) -------------- */

static const char print_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(X):\n"
	"    x = tl.load(X + tl.arange(0, 16))\n"
	"    tl.device_print('x', x)\n"
	"    print('', tl.program_id(0) + 7)\n"
	"    tl.device_print('h: ', x.to(tl.int16), hex=True)\n"
	"    print('m', tl.reshape(x, (2, 8)).to(tl.float32), tl.full((2, 8), 1, tl.int8))\n"
	"    print('no arg')\n";

typedef struct {
	char *text;
	size_t len;
} PrintBuf;

static void on_print_text(void *user, const char *text, size_t n)
{
	PrintBuf *b = user;
	char *t = realloc(b->text, b->len + n + 1);
	if (!t)
		return;
	memcpy(t + b->len, text, n);
	b->len += n;
	t[b->len] = 0;
	b->text = t;
}

static int count_lines(const char *text, const char *line)
{
	int n = 0;
	size_t k = strlen(line);
	for (const char *p = text; p && *p;) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		n += len == k && !memcmp(p, line, k);
		p = e ? e + 1 : NULL;
	}
	return n;
}

static void test_print_format(void)
{
	PrintBuf out = {0};
	tile_context_options o = {0};
	o.target = target;
	o.num_warps = 1;
	o.on_print = on_print_text;
	o.print_user = &out;
	tile_context *ctx = NULL;
	tile_module *m = NULL;
	tile_kernel *k = NULL;
	int32_t x[16];
	for (int i = 0; i < 16; i++)
		x[i] = i * 3 - 20;
	tile_arg args[] = {tile_arg_ptr(x, TILE_I32)};
	uint32_t g[3] = {1, 1, 1};
	bool ok = tile_context_create(&ctx, &o) == TILE_OK &&
		  tile_module_load_source(ctx, "t.py", print_src, strlen(print_src), &m) == TILE_OK &&
		  tile_kernel_get(m, "k", "*i32", NULL, &k) == TILE_OK && tile_launch(k, g, args, 1, NULL) == TILE_OK;
	if (!ok) {
		fprintf(stderr, "test_lang.c: [%s] print: %s\n", target, ctx ? tile_errmsg(ctx) : "no context");
		failures++;
	} else {
		char line[128];
		bool all = true;
		for (int i = 0; i < 16; i++) {
			snprintf(line, sizeof line, "pid (0, 0, 0) idx (%2d) x: %d", i, x[i]);
			all &= count_lines(out.text, line) >= 1; /* a thread each holding it */
			snprintf(line, sizeof line, "pid (0, 0, 0) idx (%2d) h: 0x%04x", i, (unsigned)(uint16_t)x[i]);
			all &= count_lines(out.text, line) >= 1; /* a thread each holding it */
			snprintf(line, sizeof line, "pid (0, 0, 0) idx (%d, %d) m: (operand 0) %f", i / 8, i % 8, (double)x[i]);
			all &= count_lines(out.text, line) >= 1; /* a thread each holding it */
			snprintf(line, sizeof line, "pid (0, 0, 0) idx (%d, %d) m: (operand 1) 1", i / 8, i % 8);
			all &= count_lines(out.text, line) >= 1; /* a thread each holding it */
		}
		CHECK(all);
		/* a scalar and a print without values: once per thread (as many as
		 * the target runs) */
		int ns = count_lines(out.text, "pid (0, 0, 0) idx (): 7");
		CHECK(ns > 0 && count_lines(out.text, "pid (0, 0, 0) no arg") == ns);
	}
	free(out.text);
	tile_kernel_destroy(k);
	tile_module_destroy(m);
	tile_context_destroy(ctx);
}

/* ---- a max_contiguous hint true only between wrap-arounds ------------------------- */

/* triton.ops.matmul's (and kernl's, bitsandbytes') trick: indices past N wrap
 * (% N) and are hinted contiguous over the whole block, true only for each
 * 16-byte vector when N is a multiple of 4. A GPU relies on the hint that far;
 * the CPU's accesses spanning threads read and wrote 256 consecutive floats
 * (corpus24, kernl's linear layer: "accessed memory outside argument"). */
static const char wrap_hint_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):\n"
	"    offs = tl.max_contiguous(tl.multiple_of(tl.arange(0, BLOCK) % N, BLOCK), BLOCK)\n"
	"    tl.store(y_ptr + offs, tl.load(x_ptr + offs) + 1)\n"
	"@triton.jit\n"
	"def k2(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):\n"
	"    rm = tl.max_contiguous(tl.multiple_of(tl.arange(0, BM) % M, BM), BM)\n"
	"    rn = tl.max_contiguous(tl.multiple_of(tl.arange(0, BN) % N, BN), BN)\n"
	"    o = rm[:, None] * N + rn[None, :]\n"
	"    tl.store(y_ptr + o, tl.load(x_ptr + o) * 2)\n";

static void test_wrap_hint(void)
{
	static float x[256], y[256];
	for (int i = 0; i < 256; i++)
		x[i] = (float)i, y[i] = -1;
	tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(y, TILE_FP32), tile_arg_i32(40)};
	if (RUN(wrap_hint_src, "k", "*fp32,*fp32,i32,256", 1, args)) {
		bool ok = true;
		for (int i = 0; i < 256; i++)
			ok &= y[i] == (i < 40 ? (float)i + 1 : -1.0f);
		CHECK(ok);
	}
	/* [12, 20] inside [64, 64] blocks, as the matmul stores its output */
	for (int i = 0; i < 256; i++)
		y[i] = -1;
	tile_arg args2[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(y, TILE_FP32), tile_arg_i32(12), tile_arg_i32(20)};
	if (RUN(wrap_hint_src, "k2", "*fp32,*fp32,i32,i32,64,64", 1, args2)) {
		bool ok = true;
		for (int i = 0; i < 256; i++)
			ok &= y[i] == (i < 240 ? 2.0f * (float)i : -1.0f);
		CHECK(ok);
	}
}

int main(void)
{
	static const char *const targets[] = {"cpu", "cuda-emu"};
	/* every kernel runs under the shared-memory race checker (jit/rt_race.h):
	 * lock-step CPU threads hide a missing barrier that a GPU would not */
	setenv("TILE_RACECHECK", "1", 0);
	/* dumping (tests/lang_nvrtc.sh) needs the cpu run only */
	const char *dump = getenv("TILE_TEST_DUMP_DIR");
	int ntargets = dump && *dump ? 1 : 2;
	for (int t = 0; t < ntargets; t++) {
		target = targets[t];
		test_logical();
		test_int_division();
		test_div_uniform();
		test_philox64();
		test_scalar_index();
		test_unicode_names();
		test_argmax();
		test_reduce_control();
		test_sum_bool();
		test_store_bool();
		test_float_to_int();
		test_uint_to_uniform_float();
		test_atomic_add_vector();
		test_widen_convert();
		test_row_load();
		test_down_loops();
		test_runtime_step();
		test_unsigned_range();
		test_volatile_spin();
		test_grid_wait();
		test_sreg();
		test_descriptors();
		test_device_tma();
		test_sort();
		test_topk();
		test_histogram();
		test_histogram_many_bins();
		test_gather();
		test_gather_big();
		test_wrap_hint();
		test_one_hot_sum();
		test_batched_dot();
		test_batched_dot_split();
		test_batched_dot_precision();
		test_scratch_over_pipeline_buffers();
		test_host_descriptors();
		test_host_descriptor_last16();
		test_inline_asm();
		test_inline_asm_literals();
		test_inline_asm_toplevel_reg();
		test_inline_asm_bits();
		test_inline_asm_shf();
		test_inline_asm_guards();
		test_inline_asm_fp4();
		test_libdevice();
		test_bessel_i();
		test_dot_scaled();
		test_dot_scaled_groups();
		test_dot_scaled_nan();
		test_tuple_params();
		test_tuple_args_typed();
		test_const_tuple_param();
		test_spec_keys();
		test_small_dot();
		test_masked_dot();
		test_big_accumulator();
		test_fp8_dot();
		test_legacy_trans();
		test_long_block();
		test_bucketize();
		test_mixed_int();
		test_int_division_widths();
		test_wide_shifts();
		test_bitonic_merge();
		test_asm_imm();
		test_scan_tuple1();
		test_wrapped_offsets();
		test_scan_big();
		test_lambda_combine();
		test_if_combine();
		test_f32x2();
		test_math_minmax();
		test_minmax_nan_zero();
		test_fma_narrow();
		test_many_params();
		test_axis_masks();
		test_tf32x3();
		test_fp_casts();
		test_map_elementwise();
		test_libdevice_bits();
		test_pi_exp10();
		test_erfc_tails();
		test_norm_scaled();
		test_dot_rank4();
		test_item();
		test_unsplat();
		test_async_task();
		test_star_args();
		test_empty_tuple_arg();
		test_core_arith();
		test_asm_minmax();
		test_asm_sat();
		test_int_rz();
		test_extra_cuda();
		test_aggregate();
		test_namedtuple();
		test_namedtuple_param();
		test_walrus();
		test_print_format();
	}
	printf("test_lang: %d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}

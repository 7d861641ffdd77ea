/* test_lang.c: language semantics that only running shows, through the
 * public API on the cpu and cuda-emu targets: each test compiles a small
 * kernel from source, runs it, and compares with what Triton computes,
 * written out here in C. (Kernels of kernels/ are in test_kernels.c; what the
 * compiler prints is in tests/golden/.) */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Compiles `kernel` of `src` with signature `sig` and launches it on a 1-D
 * grid; false (after reporting) on any error. */
static bool run(const char *src, const char *kernel, const char *sig, uint32_t grid, const tile_arg *args, size_t n,
		int line)
{
	tile_context_options o = {0};
	o.target = target;
	tile_context *ctx = NULL;
	tile_module *m = NULL;
	tile_kernel *k = NULL;
	bool ok = tile_context_create(&ctx, &o) == TILE_OK && tile_module_load_source(ctx, "t.py", src, strlen(src), &m) == TILE_OK &&
		  tile_kernel_get(m, kernel, sig, NULL, &k) == TILE_OK;
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
#define RUN(src, kernel, sig, grid, args) run(src, kernel, sig, grid, args, sizeof(args) / sizeof(*(args)), __LINE__)

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
	"    tl.store(y_ptr + ok, tl.topk(tl.load(x_ptr + o), K))\n";

static int cmp_f32(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return (x > y) - (x < y);
}

static int cmp_i16(const void *a, const void *b) { return *(const int16_t *)a - *(const int16_t *)b; }

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
	"    tl.store(y_ptr + o, tl.load(x_ptr + o).gather(tl.load(i_ptr + o), 0))\n";

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

int main(void)
{
	static const char *const targets[] = {"cpu", "cuda-emu"};
	for (int t = 0; t < 2; t++) {
		target = targets[t];
		test_logical();
		test_down_loops();
		test_descriptors();
		test_sort();
		test_histogram();
		test_gather();
		test_batched_dot();
		test_host_descriptors();
	}
	printf("test_lang: %d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}

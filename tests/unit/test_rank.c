/* test_rank.c: tiles of rank above 4, as real kernels build them: a bitonic
 * argsort on the hypercube ([2] * log2(numel), the form Triton's standard
 * library and its copies use), nested tl.join, and a permute and reduction of a
 * rank-6 tile. Each kernel runs on cpu and cuda-emu through the public API and
 * is compared with C. */
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
		fprintf(stderr, "test_rank.c:%d: [%s] %s\n", line, target, what);
		failures++;
	}
}
#define CHECK(cond) check((cond), #cond, __LINE__)

static bool run(const char *src, const char *kernel, const char *sig, const tile_arg *args, size_t n, int line)
{
	tile_context_options o = {0};
	o.target = target;
	tile_context *ctx = NULL;
	tile_module *m = NULL;
	tile_kernel *k = NULL;
	bool ok = tile_context_create(&ctx, &o) == TILE_OK &&
		  tile_module_load_source(ctx, "rank.py", src, strlen(src), &m) == TILE_OK &&
		  tile_kernel_get(m, kernel, sig, NULL, &k) == TILE_OK;
	uint32_t g[3] = {1, 1, 1};
	ok = ok && tile_launch(k, g, args, n, NULL) == TILE_OK;
	if (!ok) {
		fprintf(stderr, "test_rank.c:%d: [%s] %s: %s\n", line, target, kernel, ctx ? tile_errmsg(ctx) : "no context");
		failures++;
	}
	tile_kernel_destroy(k);
	tile_module_destroy(m);
	tile_context_destroy(ctx);
	return ok;
}
#define RUN(src, kernel, sig, args) run(src, kernel, sig, args, sizeof(args) / sizeof(*(args)), __LINE__)

static uint32_t next(uint32_t *seed)
{
	*seed = *seed * 1664525u + 1013904223u;
	return *seed >> 8;
}

/* ---- argsort on the hypercube ------------------------------------------------------
 * The tile is reshaped to [2] * log2(numel); compare-and-swap step i pairs the
 * elements that differ in bit i of their flat index, by flipping along axis
 * n_dims - 1 - i with an xor_sum. The tile's rank is log2(numel): 10 for
 * 2 x 512. Sorts along the last dim, values and their ids together. */

static const char hypercube_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"from triton.language.standard import _log2 as log2\n"
	"\n"
	"@triton.jit\n"
	"def bit_tile(n_dims: tl.constexpr, j: tl.constexpr):\n"
	"    # 0/1 along axis n_dims-1-j, size 1 elsewhere: bit j of the flat index\n"
	"    return tl.reshape(tl.arange(0, 2), [1] * (n_dims - j - 1) + [2] + [1] * j)\n"
	"\n"
	"@triton.jit\n"
	"def partner(x, axis: tl.constexpr):\n"
	"    ix = x.to(tl.int32, bitcast=True)\n"
	"    return (ix ^ tl.xor_sum(ix, axis, True)).to(x.dtype, bitcast=True)\n"
	"\n"
	"@triton.jit\n"
	"def swap_step(x, ids, flip, i: tl.constexpr):\n"
	"    n_dims: tl.constexpr = log2(x.numel)\n"
	"    y = partner(x, n_dims - 1 - i)\n"
	"    ids_y = partner(ids, n_dims - 1 - i)\n"
	"    swap = (x > y) != (flip ^ bit_tile(n_dims, i))\n"
	"    return tl.where(swap, y, x), tl.where(swap, ids_y, ids)\n"
	"\n"
	"@triton.jit\n"
	"def merge(x, ids, stage: tl.constexpr, order: tl.constexpr):\n"
	"    n_dims: tl.constexpr = log2(x.numel)\n"
	"    h = tl.reshape(x, [2] * n_dims)\n"
	"    h_ids = tl.reshape(ids, [2] * n_dims)\n"
	"    if order == 2:\n"
	"        flip = bit_tile(n_dims, stage)\n"
	"    else:\n"
	"        flip = order\n"
	"    for i in tl.static_range(stage):\n"
	"        h, h_ids = swap_step(h, h_ids, flip, stage - 1 - i)\n"
	"    return tl.reshape(h, x.shape), tl.reshape(h_ids, ids.shape)\n"
	"\n"
	"@triton.jit\n"
	"def k(x_ptr, v_ptr, i_ptr, R: tl.constexpr, C: tl.constexpr, DESC: tl.constexpr):\n"
	"    offs = tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]\n"
	"    x = tl.load(x_ptr + offs)\n"
	"    ids = tl.arange(0, C)[None, :] + tl.zeros([R, C], tl.int32)\n"
	"    n: tl.constexpr = log2(C)\n"
	"    for s in tl.static_range(1, n + 1):\n"
	"        x, ids = merge(x, ids, s, 2 if s < n else DESC)\n"
	"    tl.store(v_ptr + offs, x)\n"
	"    tl.store(i_ptr + offs, ids)\n";

static void test_hypercube_sort(void)
{
	enum { R = 2, C = 512 };
	static float x[R * C], v[R * C];
	static int32_t ids[R * C];
	uint32_t seed = 11;
	for (int desc = 0; desc < 2; desc++) {
		/* distinct values, so the ids are determined */
		for (int i = 0; i < R * C; i++)
			x[i] = (float)i;
		for (int i = R * C - 1; i > 0; i--) {
			int j = (int)(next(&seed) % (uint32_t)(i + 1));
			float t = x[i];
			x[i] = x[j];
			x[j] = t;
		}
		tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(v, TILE_FP32), tile_arg_ptr(ids, TILE_I32)};
		if (!RUN(hypercube_src, "k", desc ? "*fp32,*fp32,*i32,2,512,1" : "*fp32,*fp32,*i32,2,512,0", args))
			return;
		bool sorted = true, ids_ok = true;
		for (int r = 0; r < R; r++)
			for (int c = 0; c < C; c++) {
				const float *row = x + r * C;
				float got = v[r * C + c];
				if (c > 0 && (desc ? v[r * C + c - 1] < got : v[r * C + c - 1] > got))
					sorted = false;
				if (ids[r * C + c] < 0 || ids[r * C + c] >= C || row[ids[r * C + c]] != got)
					ids_ok = false;
			}
		CHECK(sorted);
		CHECK(ids_ok);
	}
}

/* ---- nested tl.join: [M, N] -> [M, N, 2, 2, 2] -> [M, 8N] ------------------------- */

static const char join3_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):\n"
	"    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]\n"
	"    x = tl.load(x_ptr + offs)\n"
	"    a = tl.join(x, x + 1)\n"       /* [M,N,2] */
	"    b = tl.join(a, a * 10)\n"      /* [M,N,2,2] */
	"    c = tl.join(b, -b)\n"          /* [M,N,2,2,2] */
	"    y = tl.reshape(c, (M, 8 * N))\n"
	"    o = tl.arange(0, M)[:, None] * (8 * N) + tl.arange(0, 8 * N)[None, :]\n"
	"    tl.store(y_ptr + o, y)\n";

static void test_join3(void)
{
	enum { M = 4, N = 16 };
	int32_t x[M * N], y[M * 8 * N];
	uint32_t seed = 5;
	for (int i = 0; i < M * N; i++)
		x[i] = (int32_t)(next(&seed) % 1000) - 500;
	tile_arg args[] = {tile_arg_ptr(x, TILE_I32), tile_arg_ptr(y, TILE_I32)};
	if (!RUN(join3_src, "k", "*i32,*i32,4,16", args))
		return;
	bool ok = true;
	for (int m = 0; m < M; m++)
		for (int n = 0; n < N; n++)
			for (int p = 0; p < 8; p++) { /* join adds a last axis: p = 4*l + 2*j + i */
				int l = p >> 2, j = (p >> 1) & 1, i = p & 1;
				int32_t a = x[m * N + n] + l;
				int32_t b = j ? a * 10 : a;
				int32_t want = i ? -b : b;
				ok &= y[m * 8 * N + n * 8 + p] == want;
			}
	CHECK(ok);
}

/* ---- permute and reduce a rank-6 tile ----------------------------------------------- */

static const char rank6_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def k(x_ptr, y_ptr, z_ptr):\n"
	"    x = tl.load(x_ptr + tl.arange(0, 256))\n"
	"    h = tl.reshape(x, (2, 4, 2, 2, 4, 2))\n"
	"    p = tl.permute(h, (5, 3, 1, 0, 2, 4))\n"          /* [2,2,4,2,2,4] */
	"    tl.store(y_ptr + tl.arange(0, 256), tl.reshape(p, (256,)))\n"
	"    s = tl.sum(p, axis=2)\n"                           /* [2,2,2,2,4] */
	"    m = tl.max(s, axis=4)\n"                           /* [2,2,2,2] */
	"    tl.store(z_ptr + tl.arange(0, 16), tl.reshape(m, (16,)))\n";

static void test_rank6(void)
{
	int32_t x[256], y[256], z[16];
	uint32_t seed = 9;
	for (int i = 0; i < 256; i++)
		x[i] = (int32_t)(next(&seed) % 200) - 100;
	tile_arg args[] = {tile_arg_ptr(x, TILE_I32), tile_arg_ptr(y, TILE_I32), tile_arg_ptr(z, TILE_I32)};
	if (!RUN(rank6_src, "k", "*i32,*i32,*i32", args))
		return;
	/* h[a][b][c][d][e][f] = x[((((a*4+b)*2+c)*2+d)*4+e)*2+f]; p[f][d][b][a][c][e] */
	int32_t p[2][2][4][2][2][4];
	for (int a = 0; a < 2; a++)
		for (int b = 0; b < 4; b++)
			for (int c = 0; c < 2; c++)
				for (int d = 0; d < 2; d++)
					for (int e = 0; e < 4; e++)
						for (int f = 0; f < 2; f++)
							p[f][d][b][a][c][e] = x[((((a * 4 + b) * 2 + c) * 2 + d) * 4 + e) * 2 + f];
	CHECK(memcmp(y, p, sizeof y) == 0);
	bool ok = true;
	for (int i = 0; i < 16; i++) {
		int f = i >> 3, d = (i >> 2) & 1, a = (i >> 1) & 1, c = i & 1;
		int32_t best = INT32_MIN;
		for (int e = 0; e < 4; e++) {
			int32_t s = 0;
			for (int b = 0; b < 4; b++)
				s += p[f][d][b][a][c][e];
			if (s > best)
				best = s;
		}
		ok &= z[i] == best;
	}
	CHECK(ok);
}

/* ---- triton.language.standard's private helpers ------------------------------------
 * Kernels import them to write their own argsort (Triton <= 3.1's form:
 * _take_slice and the three-argument _indicator) and pass its combine
 * functions to tl.reduce. */

static const char std_helpers_src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"import triton.language.core as core\n"
	"from triton.language.standard import _get_sort_dim, _indicator, _is_power_of_two, _log2, _take_slice, zeros_like\n"
	"from triton.language.standard import _elementwise_max, _argmax_combine_tie_break_left, _sum_combine\n"
	"\n"
	"\n"
	"@triton.jit\n"
	"def cas(x, ids, desc_mask, n_dims: core.constexpr, idx: core.constexpr):\n"
	"    l = _take_slice(x, n_dims, idx, 0)\n"
	"    r = _take_slice(x, n_dims, idx, 1)\n"
	"    li = _take_slice(ids, n_dims, idx, 0)\n"
	"    ri = _take_slice(ids, n_dims, idx, 1)\n"
	"    xi = x.to(tl.int32, bitcast=True)\n"
	"    cond = (l > r) ^ desc_mask.to(tl.int1)\n"
	"    y = xi ^ tl.where(cond, l.to(tl.int32, bitcast=True) ^ r.to(tl.int32, bitcast=True), zeros_like(xi))\n"
	"    return y.to(x.dtype, bitcast=True), ids ^ tl.where(cond, li ^ ri, zeros_like(ids))\n"
	"\n"
	"\n"
	"@triton.jit\n"
	"def merge(x, ids, n_dims: core.constexpr, active: core.constexpr, order: core.constexpr):\n"
	"    if order == 2:\n"
	"        desc_mask = _indicator(n_dims, active, 1)\n"
	"    else:\n"
	"        desc_mask = tl.full([1], order, tl.int32)\n"
	"    for i in core.static_range(active):\n"
	"        x, ids = cas(x, ids, desc_mask, n_dims, active - 1 - i)\n"
	"    return x, ids\n"
	"\n"
	"\n"
	"@triton.jit\n"
	"def k(x_ptr, v_ptr, i_ptr, m_ptr, N: tl.constexpr, DESC: tl.constexpr):\n"
	"    x = tl.load(x_ptr + tl.arange(0, N))\n"
	"    ids = tl.arange(0, N)\n"
	"    core.static_assert(_is_power_of_two(x.shape[_get_sort_dim(None, x.shape)]))\n"
	"    n_dims: tl.constexpr = _log2(N)\n"
	"    y = tl.reshape(x, [2] * n_dims)\n"
	"    yi = tl.reshape(ids, [2] * n_dims)\n"
	"    for i in core.static_range(1, n_dims + 1):\n"
	"        y, yi = merge(y, yi, n_dims, i, DESC if i == n_dims else 2)\n"
	"    tl.store(v_ptr + tl.arange(0, N), tl.reshape(y, [N]))\n"
	"    tl.store(i_ptr + tl.arange(0, N), tl.reshape(yi, [N]))\n"
	"    mx = tl.reduce(x, 0, _elementwise_max)\n"
	"    v, am = tl.reduce((x, ids), 0, _argmax_combine_tie_break_left)\n"
	"    s = tl.reduce(ids, 0, _sum_combine)\n"
	"    tl.store(m_ptr, mx)\n"
	"    tl.store(m_ptr + 1, am.to(tl.float32))\n"
	"    tl.store(m_ptr + 2, s.to(tl.float32))\n"
	"\n";

static void test_std_helpers(void)
{
	enum { N = 64 };
	float x[N], v[N], m[3];
	int32_t ids[N];
	uint32_t seed = 3;
	for (int i = 0; i < N; i++)
		x[i] = (float)i;
	for (int i = N - 1; i > 0; i--) {
		int j = (int)(next(&seed) % (uint32_t)(i + 1));
		float t = x[i];
		x[i] = x[j];
		x[j] = t;
	}
	for (int desc = 0; desc < 2; desc++) {
		tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(v, TILE_FP32), tile_arg_ptr(ids, TILE_I32),
				   tile_arg_ptr(m, TILE_FP32)};
		if (!RUN(std_helpers_src, "k", desc ? "*fp32,*fp32,*i32,*fp32,64,1" : "*fp32,*fp32,*i32,*fp32,64,0", args))
			return;
		bool ok = true;
		for (int i = 0; i < N; i++) /* values 0..63, a permutation */
			ok &= v[i] == (float)(desc ? N - 1 - i : i) && ids[i] >= 0 && ids[i] < N && x[ids[i]] == v[i];
		CHECK(ok);
		int argmax = 0;
		for (int i = 1; i < N; i++)
			if (x[i] > x[argmax])
				argmax = i;
		CHECK(m[0] == (float)(N - 1) && m[1] == (float)argmax && m[2] == (float)(N * (N - 1) / 2));
	}
}

int main(void)
{
	static const char *targets[] = {"cpu", "cuda-emu"};
	for (size_t t = 0; t < sizeof targets / sizeof *targets; t++) {
		target = targets[t];
		test_hypercube_sort();
		test_join3();
		test_rank6();
		test_std_helpers();
	}
	printf("test_rank: %d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}

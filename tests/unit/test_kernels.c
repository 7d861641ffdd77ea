/* test_kernels.c: every kernel in kernels/ through the public API, on the
 * native CPU target and on the CPU running GPU-shaped layouts ("cuda-emu":
 * 32-lane warps, the thread program a GPU would run), at several shapes,
 * including sizes that are not multiples of the block, and several dtypes,
 * against references written here in plain C.
 *
 * Run as a unit test it covers the native `cpu` target; the `cuda-emu` runs are
 * split by kernel group into tests/kernels_emu_*.sh so each stays well inside
 * the runner's per-test time limit. TILE_TEST_TARGETS="cpu,cuda-emu" (a comma
 * list) picks targets; "cuda" (or an architecture, "sm_90a") runs them on the
 * GPU, each launch's buffers copied to the device and back (launch_mirrored),
 * TILE_TEST_ONLY=SUBSTRING (e.g. "matmul fp32") to run a subset of kernels,
 * TILE_TEST_NUM_STAGES="1,2,3,4" (a comma list; default: the context's) runs
 * the matmul kernels once per num_stages (software pipelining on cuda-emu).
 */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tile.h"

#define MAX_HOST_BUFS 64

typedef struct T {
	tile_context *ctx;
	const char *target;
	int num_warps;
	int num_stages; /* 0 = the context's default */
	int failures, checks;
	const char *what; /* current test, for messages */
	struct {
		void *p;
		size_t bytes;
	} bufs[MAX_HOST_BUFS]; /* live kalloc buffers, mirrored to a GPU at launches */
	int nbufs;
} T;

/* ---- helpers --------------------------------------------------------------- */

static uint32_t rng_next(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(*s >> 33);
}

static float rnd(uint64_t *s) { return (float)(rng_next(s) % 20000) / 10000.0f - 1.0f; }

static uint16_t f2h(float f)
{
	uint32_t x;
	memcpy(&x, &f, 4);
	uint32_t sign = (x >> 16) & 0x8000;
	int32_t e = (int32_t)((x >> 23) & 0xff) - 127 + 15;
	uint32_t m = x & 0x7fffff;
	if (((x >> 23) & 0xff) == 0xff)
		return (uint16_t)(sign | 0x7c00 | (m ? 0x200 : 0));
	if (e >= 31)
		return (uint16_t)(sign | 0x7c00);
	if (e <= 0) {
		if (e < -10)
			return (uint16_t)sign;
		m |= 0x800000;
		uint32_t shift = (uint32_t)(14 - e);
		uint32_t hm = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
		if (rem > half || (rem == half && (hm & 1)))
			hm++;
		return (uint16_t)(sign | hm);
	}
	uint32_t hm = m >> 13, rem = m & 0x1fff;
	uint32_t h = sign | ((uint32_t)e << 10) | hm;
	if (rem > 0x1000 || (rem == 0x1000 && (hm & 1)))
		h++;
	return (uint16_t)h;
}

static float h2f(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff, x;
	if (e == 0) {
		if (m == 0)
			x = sign;
		else {
			e = 127 - 15 + 1;
			while (!(m & 0x400)) {
				m <<= 1;
				e--;
			}
			x = sign | (e << 23) | ((m & 0x3ff) << 13);
		}
	} else if (e == 31)
		x = sign | 0x7f800000 | (m << 13);
	else
		x = sign | ((e + 127 - 15) << 23) | (m << 13);
	float f;
	memcpy(&f, &x, 4);
	return f;
}

static void check(T *t, bool ok, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void check(T *t, bool ok, const char *fmt, ...)
{
	t->checks++;
	if (ok)
		return;
	if (t->failures++ < 30) {
		va_list ap;
		if (t->num_stages)
			printf("FAIL [%s, target %s, num_stages %d] ", t->what, t->target, t->num_stages);
		else
			printf("FAIL [%s, target %s] ", t->what, t->target);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf("\n");
	}
}

static bool close_enough(double got, double want, double rtol, double atol)
{
	if (isnan(want))
		return isnan(got);
	if (isinf(want))
		return got == want;
	return fabs(got - want) <= atol + rtol * fabs(want);
}

/* Compares n floats; reports the first mismatch only. */
static void check_floats(T *t, const char *name, const float *got, const float *want, size_t n,
			 double rtol, double atol)
{
	for (size_t i = 0; i < n; i++) {
		if (!close_enough(got[i], want[i], rtol, atol)) {
			check(t, false, "%s[%zu] = %.8g, want %.8g", name, i, got[i], want[i]);
			return;
		}
	}
	check(t, true, "%s", name);
}

static tile_kernel *get_kernel(T *t, const char *file, const char *name, const char *sig)
{
	tile_module *m = NULL;
	char path[256];
	snprintf(path, sizeof path, "kernels/%s", file);
	if (tile_module_load_file(t->ctx, path, &m) != TILE_OK) {
		check(t, false, "loading %s: %s", path, tile_errmsg(t->ctx));
		return NULL;
	}
	tile_kernel_options o = {0};
	o.num_warps = t->num_warps;
	o.num_stages = t->num_stages;
	o.target = t->target;
	tile_kernel *k = NULL;
	if (tile_kernel_get(m, name, sig, &o, &k) != TILE_OK) {
		check(t, false, "compiling %s with '%s': %s", name, sig, tile_errmsg(t->ctx));
		k = NULL;
	}
	/* the kernel keeps what it needs; the module can go (tested: it must) */
	tile_module_destroy(m);
	return k;
}

/* Kernel buffers live in host memory (kalloc). On a GPU target each launch
 * copies the buffers its pointer arguments point into to device memory and
 * back, so the tests and their references stay the same on every target. */
static void *kalloc(T *t, size_t bytes)
{
	bytes = (bytes + 63) / 64 * 64; /* aligned_alloc wants a multiple of the alignment */
	void *p = aligned_alloc(64, bytes);
	if (!p || t->nbufs == MAX_HOST_BUFS) {
		fprintf(stderr, "test_kernels: out of memory or host buffer slots\n");
		exit(1);
	}
	t->bufs[t->nbufs].p = p;
	t->bufs[t->nbufs++].bytes = bytes;
	return p;
}

static void kfree(T *t, void *p)
{
	for (int i = t->nbufs; i-- > 0;)
		if (t->bufs[i].p == p) {
			t->bufs[i] = t->bufs[--t->nbufs];
			break;
		}
	free(p);
}

static bool gpu_target(const T *t) { return strcmp(t->target, "cpu") && strcmp(t->target, "cuda-emu"); }

static void launch_mirrored(T *t, tile_kernel *k, const uint32_t grid[3], const tile_arg *args, size_t n)
{
	tile_arg dargs[32];
	tile_buffer *dev[MAX_HOST_BUFS] = {0};
	tile_status s = n <= 32 ? TILE_OK : TILE_ERROR_INVALID_ARGUMENT;
	for (size_t i = 0; i < n && s == TILE_OK; i++) {
		dargs[i] = args[i];
		if (args[i].kind != TILE_ARG_PTR || !args[i].ptr)
			continue;
		int b = t->nbufs;
		while (b-- > 0 && !((char *)args[i].ptr >= (char *)t->bufs[b].p &&
				    (char *)args[i].ptr < (char *)t->bufs[b].p + t->bufs[b].bytes))
			;
		if (b < 0) {
			check(t, false, "argument %zu points outside every kalloc buffer", i);
			return;
		}
		if (!dev[b]) {
			s = tile_buffer_alloc(t->ctx, t->bufs[b].bytes, &dev[b]);
			if (s == TILE_OK)
				s = tile_buffer_upload(dev[b], 0, t->bufs[b].p, t->bufs[b].bytes);
		}
		if (s == TILE_OK)
			dargs[i].ptr = (char *)tile_buffer_ptr(dev[b]) + ((char *)args[i].ptr - (char *)t->bufs[b].p);
	}
	if (s == TILE_OK)
		s = tile_launch(k, grid, dargs, n, NULL);
	if (s == TILE_OK)
		s = tile_synchronize(t->ctx);
	check(t, s == TILE_OK, "launch: %s", tile_errmsg(t->ctx));
	for (int b = 0; b < t->nbufs; b++) {
		if (dev[b] && s == TILE_OK) {
			s = tile_buffer_download(dev[b], 0, t->bufs[b].p, t->bufs[b].bytes);
			check(t, s == TILE_OK, "download: %s", tile_errmsg(t->ctx));
		}
		tile_buffer_free(dev[b]);
	}
}

static void launch(T *t, tile_kernel *k, uint32_t gx, uint32_t gy, const tile_arg *args, size_t n)
{
	uint32_t grid[3] = {gx, gy, 1};
	if (gpu_target(t)) {
		launch_mirrored(t, k, grid, args, n);
		return;
	}
	tile_status s = tile_launch(k, grid, args, n, NULL);
	check(t, s == TILE_OK, "launch: %s", tile_errmsg(t->ctx));
}

/* Steps through TILE_TEST_NUM_STAGES ("1,2,3"; "0" = the default) into
 * t->num_stages; false at the end. */
static bool next_num_stages(T *t, const char **p)
{
	if (!**p)
		return false;
	char *end;
	t->num_stages = (int)strtol(*p, &end, 10);
	*p = *end == ',' ? end + 1 : end + strlen(end);
	return true;
}

static uint32_t next_pow2(uint32_t x)
{
	uint32_t p = 1;
	while (p < x)
		p <<= 1;
	return p;
}

/* ---- vector add ------------------------------------------------------------ */

static void test_vector_add(T *t, bool fp16, int block)
{
	t->what = fp16 ? "vector_add fp16" : "vector_add fp32";
	char sig[128];
	const char *ty = fp16 ? "*fp16" : "*fp32";
	snprintf(sig, sizeof sig, "%s:16,%s:16,%s:16,i32,%d", ty, ty, ty, block);
	tile_kernel *k = get_kernel(t, "vector_add.tile", "add_kernel", sig);
	if (!k)
		return;
	static const int sizes[] = {1, 17, 1024, 4097, 70001};
	uint64_t seed = 1;
	for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
		int n = sizes[si];
		size_t es = fp16 ? 2 : 4;
		void *x = kalloc(t, (n * es + 63) / 64 * 64), *y = kalloc(t, (n * es + 63) / 64 * 64);
		void *o = kalloc(t, (n * es + 63) / 64 * 64 + 64);
		float *want = malloc(n * sizeof(float)), *got = malloc(n * sizeof(float));
		memset(o, 0xAB, (n * es + 63) / 64 * 64 + 64);
		for (int i = 0; i < n; i++) {
			float a = rnd(&seed), b = rnd(&seed);
			if (fp16) {
				((uint16_t *)x)[i] = f2h(a);
				((uint16_t *)y)[i] = f2h(b);
				want[i] = h2f(f2h(h2f(f2h(a)) + h2f(f2h(b))));
			} else {
				((float *)x)[i] = a;
				((float *)y)[i] = b;
				want[i] = a + b;
			}
		}
		tile_dtype dt = fp16 ? TILE_FP16 : TILE_FP32;
		tile_arg args[] = {tile_arg_ptr(x, dt), tile_arg_ptr(y, dt), tile_arg_ptr(o, dt),
				   tile_arg_i32(n)};
		launch(t, k, (uint32_t)((n + block - 1) / block), 1, args, 4);
		for (int i = 0; i < n; i++)
			got[i] = fp16 ? h2f(((uint16_t *)o)[i]) : ((float *)o)[i];
		check_floats(t, "out", got, want, (size_t)n, 0, 0);
		/* the masked tail must not write past n */
		check(t, ((unsigned char *)o)[n * es] == 0xAB, "wrote past the end (n=%d)", n);
		kfree(t, x), kfree(t, y), kfree(t, o), kfree(t, want), kfree(t, got);
	}
	tile_kernel_destroy(k);
}

/* ---- softmax ------------------------------------------------------------------ */

static void test_softmax(T *t, bool fp16)
{
	t->what = fp16 ? "softmax fp16" : "softmax fp32";
	static const int shapes[][2] = {{1, 1}, {3, 17}, {64, 128}, {37, 1000}, {5, 2048}};
	uint64_t seed = 7;
	for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++) {
		int rows = shapes[si][0], cols = shapes[si][1], block = (int)next_pow2((uint32_t)cols);
		char sig[128];
		const char *ty = fp16 ? "*fp16" : "*fp32";
		snprintf(sig, sizeof sig, "%s:16,%s:16,i32,i32,i32,i32,%d", ty, ty, block);
		tile_kernel *k = get_kernel(t, "softmax.tile", "softmax_kernel", sig);
		if (!k)
			return;
		size_t es = fp16 ? 2 : 4, n = (size_t)rows * cols;
		void *in = kalloc(t, (n * es + 63) / 64 * 64 + 64);
		void *out = kalloc(t, (n * es + 63) / 64 * 64 + 64);
		float *x = malloc(n * 4), *want = malloc(n * 4), *got = malloc(n * 4);
		for (size_t i = 0; i < n; i++) {
			x[i] = rnd(&seed) * 5;
			if (fp16) {
				((uint16_t *)in)[i] = f2h(x[i]);
				x[i] = h2f(f2h(x[i]));
			} else
				((float *)in)[i] = x[i];
		}
		for (int r = 0; r < rows; r++) {
			double mx = -INFINITY, sum = 0;
			for (int c = 0; c < cols; c++)
				mx = fmax(mx, x[r * cols + c]);
			for (int c = 0; c < cols; c++)
				sum += exp(x[r * cols + c] - mx);
			for (int c = 0; c < cols; c++)
				want[r * cols + c] = (float)(exp(x[r * cols + c] - mx) / sum);
		}
		tile_dtype dt = fp16 ? TILE_FP16 : TILE_FP32;
		tile_arg args[] = {tile_arg_ptr(out, dt), tile_arg_ptr(in, dt), tile_arg_i32(cols),
				   tile_arg_i32(cols), tile_arg_i32(rows), tile_arg_i32(cols)};
		uint32_t grid = rows < 8 ? (uint32_t)rows : 8; /* exercises the row loop */
		launch(t, k, grid, 1, args, 6);
		for (size_t i = 0; i < n; i++)
			got[i] = fp16 ? h2f(((uint16_t *)out)[i]) : ((float *)out)[i];
		check_floats(t, "softmax", got, want, n, fp16 ? 2e-3 : 1e-5, fp16 ? 1e-4 : 1e-7);
		kfree(t, in), kfree(t, out), kfree(t, x), kfree(t, want), kfree(t, got);
		tile_kernel_destroy(k);
	}
}

/* ---- layer norm and RMS norm ---------------------------------------------------- */

static void test_layer_norm(T *t)
{
	t->what = "layer_norm";
	static const int shapes[][3] = {{4, 64, 64}, {3, 1000, 256}, {2, 2049, 1024}, {1, 1, 16}};
	uint64_t seed = 11;
	for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++) {
		int M = shapes[si][0], N = shapes[si][1], block = shapes[si][2];
		char sig[160];
		snprintf(sig, sizeof sig, "*fp32:16,*fp32:16,*fp32:16,*fp32:16,*fp32:16,*fp32:16,i32,i32,fp32,%d", block);
		tile_kernel *k = get_kernel(t, "layer_norm.tile", "layer_norm_fwd", sig);
		if (!k)
			return;
		size_t n = (size_t)M * N;
		float *x = kalloc(t, n * 4 + 64), *y = kalloc(t, n * 4 + 64);
		float *w = kalloc(t, N * 4 + 64), *b = kalloc(t, N * 4 + 64);
		float *mean = kalloc(t, 64 + M * 4), *rstd = kalloc(t, 64 + M * 4);
		float *want = malloc(n * 4), *wmean = malloc(M * 4), *wrstd = malloc(M * 4);
		for (size_t i = 0; i < n; i++)
			x[i] = rnd(&seed) * 3 + 0.5f;
		for (int i = 0; i < N; i++)
			w[i] = rnd(&seed), b[i] = rnd(&seed);
		float eps = 1e-5f;
		for (int r = 0; r < M; r++) {
			double s = 0, v = 0;
			for (int c = 0; c < N; c++)
				s += x[r * N + c];
			double mu = s / N;
			for (int c = 0; c < N; c++)
				v += (x[r * N + c] - mu) * (x[r * N + c] - mu);
			double rs = 1 / sqrt(v / N + eps);
			wmean[r] = (float)mu, wrstd[r] = (float)rs;
			for (int c = 0; c < N; c++)
				want[r * N + c] = (float)((x[r * N + c] - mu) * rs * w[c] + b[c]);
		}
		tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(y, TILE_FP32),
				   tile_arg_ptr(w, TILE_FP32), tile_arg_ptr(b, TILE_FP32),
				   tile_arg_ptr(mean, TILE_FP32), tile_arg_ptr(rstd, TILE_FP32),
				   tile_arg_i32(N), tile_arg_i32(N), tile_arg_f32(eps)};
		launch(t, k, (uint32_t)M, 1, args, 9);
		check_floats(t, "y", y, want, n, 1e-4, 1e-5);
		check_floats(t, "mean", mean, wmean, (size_t)M, 1e-5, 1e-6);
		check_floats(t, "rstd", rstd, wrstd, (size_t)M, 1e-4, 1e-6);
		kfree(t, x), kfree(t, y), kfree(t, w), kfree(t, b), kfree(t, mean), kfree(t, rstd), kfree(t, want), kfree(t, wmean), kfree(t, wrstd);
		tile_kernel_destroy(k);
	}
}

static void test_rms_norm(T *t, bool fp16)
{
	t->what = fp16 ? "rms_norm fp16" : "rms_norm fp32";
	static const int shapes[][2] = {{5, 100}, {3, 512}, {2, 1}, {4, 777}};
	uint64_t seed = 13;
	for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++) {
		int M = shapes[si][0], N = shapes[si][1], block = (int)next_pow2((uint32_t)N);
		const char *ty = fp16 ? "*fp16" : "*fp32";
		char sig[128];
		snprintf(sig, sizeof sig, "%s:16,%s:16,%s:16,i32,i32,fp32,%d", ty, ty, ty, block);
		tile_kernel *k = get_kernel(t, "rms_norm.tile", "rms_norm_kernel", sig);
		if (!k)
			return;
		size_t n = (size_t)M * N, es = fp16 ? 2 : 4;
		void *x = kalloc(t, n * es + 64), *w = kalloc(t, N * es + 64);
		void *y = kalloc(t, n * es + 64);
		float *xf = malloc(n * 4), *wf = malloc(N * 4), *want = malloc(n * 4), *got = malloc(n * 4);
		for (size_t i = 0; i < n; i++)
			xf[i] = rnd(&seed) * 2;
		for (int i = 0; i < N; i++)
			wf[i] = rnd(&seed);
		for (size_t i = 0; i < n; i++) {
			if (fp16)
				((uint16_t *)x)[i] = f2h(xf[i]), xf[i] = h2f(f2h(xf[i]));
			else
				((float *)x)[i] = xf[i];
		}
		for (int i = 0; i < N; i++) {
			if (fp16)
				((uint16_t *)w)[i] = f2h(wf[i]), wf[i] = h2f(f2h(wf[i]));
			else
				((float *)w)[i] = wf[i];
		}
		for (int r = 0; r < M; r++) {
			double ss = 0;
			for (int c = 0; c < N; c++)
				ss += (double)xf[r * N + c] * xf[r * N + c];
			double rs = 1 / sqrt(ss / N + 1e-6);
			for (int c = 0; c < N; c++)
				want[r * N + c] = (float)(xf[r * N + c] * rs * wf[c]);
		}
		tile_dtype dt = fp16 ? TILE_FP16 : TILE_FP32;
		tile_arg args[] = {tile_arg_ptr(x, dt), tile_arg_ptr(w, dt), tile_arg_ptr(y, dt),
				   tile_arg_i32(N), tile_arg_i32(N), tile_arg_f32(1e-6f)};
		launch(t, k, (uint32_t)M, 1, args, 6);
		for (size_t i = 0; i < n; i++)
			got[i] = fp16 ? h2f(((uint16_t *)y)[i]) : ((float *)y)[i];
		check_floats(t, "y", got, want, n, fp16 ? 2e-3 : 1e-5, fp16 ? 2e-3 : 1e-6);
		kfree(t, x), kfree(t, w), kfree(t, y), kfree(t, xf), kfree(t, wf), kfree(t, want), kfree(t, got);
		tile_kernel_destroy(k);
	}
}

/* ---- matmul (grouped ordering + activation) and block-pointer matmul ------------- */

static void ref_matmul(const float *a, const float *b, float *c, int M, int N, int K, bool leaky)
{
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			double s = 0;
			for (int k = 0; k < K; k++)
				s += (double)a[i * K + k] * b[k * N + j];
			if (leaky && s < 0)
				s *= 0.01;
			c[i * N + j] = (float)s;
		}
}

/* fp32 tl.dot defaults to tf32 on NVIDIA targets (as in Triton): inputs keep
 * 10 mantissa bits, rounded to nearest even. */
static float tf32_round(float f)
{
	uint32_t x;
	memcpy(&x, &f, 4);
	if ((x & 0x7f800000) != 0x7f800000)
		x = (x + 0xfff + ((x >> 13) & 1)) & 0xffffe000u;
	memcpy(&f, &x, 4);
	return f;
}

static void fill_operands(T *t, uint64_t *seed, bool fp16, int M, int N, int K, void **a, void **b,
			  float **af, float **bf)
{
	size_t es = fp16 ? 2 : 4;
	*a = kalloc(t, (size_t)M * K * es + 64);
	*b = kalloc(t, (size_t)K * N * es + 64);
	*af = malloc((size_t)M * K * 4);
	*bf = malloc((size_t)K * N * 4);
	for (int i = 0; i < M * K; i++) {
		float v = rnd(seed);
		(*af)[i] = fp16 ? h2f(f2h(v)) : v;
		if (fp16)
			((uint16_t *)*a)[i] = f2h(v);
		else
			((float *)*a)[i] = v;
	}
	for (int i = 0; i < K * N; i++) {
		float v = rnd(seed);
		(*bf)[i] = fp16 ? h2f(f2h(v)) : v;
		if (fp16)
			((uint16_t *)*b)[i] = f2h(v);
		else
			((float *)*b)[i] = v;
	}
}

/* Shapes: one K block, ragged M/N/K edges, more K blocks than stages with a
 * ragged last block (pipelining prologue, steady state and drain). */
static const int mm_shapes[][3] = {{16, 16, 16}, {64, 64, 64}, {100, 70, 33}, {128, 96, 80},
				   {40, 24, 200}};
static const int mm_blocks[][3] = {{16, 16, 16}, {32, 32, 32}, {64, 32, 16}, {32, 64, 32},
				   {32, 16, 32}};
/* Tensor descriptors require row strides of whole 16-byte units, so N and K
 * are multiples of 8; M, N and K stay ragged against the blocks. */
static const int mm_desc_shapes[][3] = {{16, 16, 16}, {64, 64, 64}, {100, 72, 40}, {128, 96, 80},
					{40, 24, 200}};

/* How the matmul kernel addresses memory: pointer tiles, block pointers, tensor descriptors */
typedef enum { MM_POINTERS, MM_BLOCK_PTR, MM_DESCRIPTOR } MmKind;

static void test_matmul_shape(T *t, bool fp16, MmKind kind, uint64_t *seed, int si,
			      const int shape[3], const int block[3])
{
	{
		int M = shape[0], N = shape[1], K = shape[2];
		int BM = block[0], BN = block[1], BK = block[2];
		bool leaky = kind == MM_POINTERS && (si & 1);
		const char *ty = fp16 ? "*fp16:16" : "*fp32:16";
		char sig[256];
		if (kind == MM_BLOCK_PTR)
			snprintf(sig, sizeof sig, "%s,%s,*fp32:16,i32,i32,i32,i32,i32,i32,i32,i32,i32,%d,%d,%d",
				 ty, ty, BM, BN, BK);
		else if (kind == MM_DESCRIPTOR)
			snprintf(sig, sizeof sig, "%s,%s,*fp32:16,i32,i32,i32,i32,i32,i32,%d,%d,%d", ty, ty, BM, BN,
				 BK);
		else
			snprintf(sig, sizeof sig,
				 "%s,%s,*fp32:16,i32,i32,i32,i32,i32,i32,i32,i32,i32,%d,%d,%d,8,'%s'",
				 ty, ty, BM, BN, BK, leaky ? "leaky_relu" : "");
		tile_kernel *k = kind == MM_BLOCK_PTR	 ? get_kernel(t, "matmul_block_ptr.tile", "matmul_block_ptr_kernel", sig)
				 : kind == MM_DESCRIPTOR ? get_kernel(t, "matmul_descriptor.tile", "matmul_descriptor_kernel", sig)
							 : get_kernel(t, "matmul.tile", "matmul_kernel", sig);
		if (!k)
			return;
		void *a, *b;
		float *af, *bf;
		fill_operands(t, seed, fp16, M, N, K, &a, &b, &af, &bf);
		float *c = kalloc(t, (size_t)M * N * 4 + 64), *want = malloc((size_t)M * N * 4);
		memset(c, 0, (size_t)M * N * 4);
		if (!fp16 && strcmp(t->target, "cpu") != 0) {
			for (int i = 0; i < M * K; i++)
				af[i] = tf32_round(af[i]);
			for (int i = 0; i < K * N; i++)
				bf[i] = tf32_round(bf[i]);
		}
		ref_matmul(af, bf, want, M, N, K, leaky);
		tile_dtype dt = fp16 ? TILE_FP16 : TILE_FP32;
		tile_arg args[] = {tile_arg_ptr(a, dt), tile_arg_ptr(b, dt), tile_arg_ptr(c, TILE_FP32),
				   tile_arg_i32(M), tile_arg_i32(N), tile_arg_i32(K),
				   tile_arg_i32(K), tile_arg_i32(1), tile_arg_i32(N), tile_arg_i32(1),
				   tile_arg_i32(N), tile_arg_i32(1)};
		tile_arg dargs[] = {args[0], args[1], args[2], tile_arg_i32(M), tile_arg_i32(N), tile_arg_i32(K),
				    tile_arg_i32(K), tile_arg_i32(N), tile_arg_i32(N)};
		uint32_t gm = (uint32_t)((M + BM - 1) / BM), gn = (uint32_t)((N + BN - 1) / BN);
		if (kind == MM_DESCRIPTOR)
			launch(t, k, gm, gn, dargs, 9);
		else if (kind == MM_BLOCK_PTR)
			launch(t, k, gm, gn, args, 12);
		else
			launch(t, k, gm * gn, 1, args, 12);
		check_floats(t, "c", c, want, (size_t)M * N, 1e-4, 1e-4);
		kfree(t, a), kfree(t, b), kfree(t, af), kfree(t, bf), kfree(t, c), kfree(t, want);
		tile_kernel_destroy(k);
	}
}

static void test_matmul(T *t, bool fp16, MmKind kind)
{
	static const char *const what[][2] = {{"matmul fp32", "matmul fp16"},
					      {"matmul_block_ptr fp32", "matmul_block_ptr fp16"},
					      {"matmul_descriptor fp32", "matmul_descriptor fp16"}};
	t->what = what[kind][fp16];
	const char *env = getenv("TILE_TEST_NUM_STAGES");
	int save = t->num_stages;
	/* not strtok: main's loop over targets is using it */
	for (const char *p = env && *env ? env : "0"; next_num_stages(t, &p);) {
		uint64_t seed = 17;
		for (int si = 0; si < (int)(sizeof mm_shapes / sizeof *mm_shapes); si++)
			test_matmul_shape(t, fp16, kind, &seed, si,
					  kind == MM_DESCRIPTOR ? mm_desc_shapes[si] : mm_shapes[si], mm_blocks[si]);
	}
	/* buffers of 4 stages (4 x 64 KiB) exceed cuda-emu's 227 KiB: the pass
	 * must fall back to fewer stages and still be right */
	if (!fp16 && kind == MM_POINTERS && env && *env && strcmp(t->target, "cuda-emu") == 0) {
		static const int shape[3] = {48, 40, 600}, block[3] = {32, 32, 256};
		uint64_t seed = 23;
		t->num_stages = 4;
		test_matmul_shape(t, fp16, kind, &seed, 1, shape, block);
	}
	/* a 256x256 fp32 accumulator with 8 warps: its 256 KiB conversion to the
	 * store layout goes through shared memory in chunks (GPU layouts only) */
	if (fp16 && kind == MM_POINTERS && strcmp(t->target, "cpu") != 0) {
		static const int shape[3] = {300, 260, 64}, block[3] = {256, 256, 32};
		uint64_t seed = 29;
		int warps = t->num_warps;
		t->num_warps = 8;
		test_matmul_shape(t, fp16, kind, &seed, 1, shape, block);
		t->num_warps = warps;
	}
	t->num_stages = save;
}

/* ---- weight-only int8 matmul (W8A16): the int8 load reaches the dot through
 * a cast and a scale, so pipelining copies it as a value load ---------------- */

static void test_matmul_w8_shape(T *t, uint64_t *seed, const int shape[3], const int block[3])
{
	int M = shape[0], N = shape[1], K = shape[2];
	int BM = block[0], BN = block[1], BK = block[2] < 16 ? 16 : block[2];
	char sig[256];
	snprintf(sig, sizeof sig,
		 "*fp16:16,*i8:16,*fp16:16,*fp32:16,i32,i32:16,i32,i32,i32:1,i32:16,i32:1,i32:16,i32:1,%d,%d,%d",
		 BM, BN, BK);
	tile_kernel *k = get_kernel(t, "matmul_w8.tile", "matmul_w8_kernel", sig);
	if (!k)
		return;
	uint16_t *a = kalloc(t, (size_t)M * K * 2 + 64), *s = kalloc(t, (size_t)N * 2 + 64);
	int8_t *b = kalloc(t, (size_t)K * N + 64);
	float *c = kalloc(t, (size_t)M * N * 4 + 64);
	float *af = malloc((size_t)M * K * 4), *wf = malloc((size_t)K * N * 4);
	float *want = malloc((size_t)M * N * 4);
	for (int i = 0; i < M * K; i++) {
		a[i] = f2h(rnd(seed));
		af[i] = h2f(a[i]);
	}
	for (int j = 0; j < N; j++)
		s[j] = f2h(0.01f + 0.02f * (rnd(seed) + 1.0f));
	for (int i = 0; i < K; i++)
		for (int j = 0; j < N; j++) {
			int8_t q = (int8_t)((int)(rng_next(seed) % 255) - 127);
			b[i * N + j] = q;
			/* an int8 and an fp16 scale multiply exactly in fp32: one rounding to fp16 */
			wf[i * N + j] = h2f(f2h((float)q * h2f(s[j])));
		}
	memset(c, 0, (size_t)M * N * 4);
	ref_matmul(af, wf, want, M, N, K, false);
	tile_arg args[] = {tile_arg_ptr(a, TILE_FP16), tile_arg_ptr(b, TILE_I8),
			   tile_arg_ptr(s, TILE_FP16), tile_arg_ptr(c, TILE_FP32),
			   tile_arg_i32(M), tile_arg_i32(N), tile_arg_i32(K),
			   tile_arg_i32(K), tile_arg_i32(1), tile_arg_i32(N), tile_arg_i32(1),
			   tile_arg_i32(N), tile_arg_i32(1)};
	launch(t, k, (uint32_t)((M + BM - 1) / BM), (uint32_t)((N + BN - 1) / BN), args, 13);
	check_floats(t, "c", c, want, (size_t)M * N, 1e-3, 1e-3);
	kfree(t, a), kfree(t, b), kfree(t, s), kfree(t, c), kfree(t, af), kfree(t, wf), kfree(t, want);
	tile_kernel_destroy(k);
}

/* N a multiple of 16 (`i32:16`, as a weight's width is): the int8 rows load
 * as 16-byte vectors; M and K stay ragged */
static const int w8_shapes[][3] = {{16, 16, 16}, {64, 64, 64}, {100, 64, 33}, {128, 96, 80},
				   {40, 32, 200}};

static void test_matmul_w8(T *t)
{
	t->what = "matmul_w8";
	const char *env = getenv("TILE_TEST_NUM_STAGES");
	int save = t->num_stages;
	for (const char *p = env && *env ? env : "0"; next_num_stages(t, &p);) {
		uint64_t seed = 31;
		for (int si = 0; si < (int)(sizeof w8_shapes / sizeof *w8_shapes); si++)
			test_matmul_w8_shape(t, &seed, w8_shapes[si], mm_blocks[si]);
	}
	t->num_stages = save;
}

/* ---- dropout: Philox 4x32-10 written here from its definition --------------------- */

static void philox(uint32_t seed_lo, uint32_t seed_hi, uint32_t c[4], int rounds)
{
	uint32_t k0 = seed_lo, k1 = seed_hi;
	for (int r = 0; r < rounds; r++) {
		uint64_t p0 = (uint64_t)0xD2511F53u * c[0], p1 = (uint64_t)0xCD9E8D57u * c[2];
		uint32_t n0 = (uint32_t)(p1 >> 32) ^ c[1] ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c[3] ^ k1;
		c[1] = (uint32_t)p1, c[3] = (uint32_t)p0, c[0] = n0, c[2] = n2;
		k0 += 0x9E3779B9u, k1 += 0xBB67AE85u;
	}
}

static float uint_to_uniform(uint32_t u)
{
	int32_t x = (int32_t)u;
	if (x < 0)
		x = -x - 1;
	return (float)x * 4.6566127342e-10f;
}

static void test_dropout(T *t)
{
	t->what = "dropout";
	tile_kernel *k = get_kernel(t, "dropout.tile", "dropout_kernel",
				    "*fp32:16,*fp32:16,i32,fp32,i32,1024");
	if (!k)
		return;
	static const int sizes[] = {1, 1000, 5000};
	uint64_t s = 3;
	for (size_t si = 0; si < 3; si++) {
		int n = sizes[si];
		float *x = kalloc(t, n * 4 + 64), *o = kalloc(t, n * 4 + 64),
		      *want = malloc(n * 4);
		for (int i = 0; i < n; i++)
			x[i] = rnd(&s);
		float p = 0.5f;
		int seed = 123;
		for (int i = 0; i < n; i++) {
			uint32_t c[4] = {(uint32_t)i, 0, 0, 0};
			philox((uint32_t)seed, 0, c, 10);
			float r = uint_to_uniform(c[0]);
			want[i] = r > p ? x[i] / (1 - p) : 0.0f;
		}
		tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(o, TILE_FP32),
				   tile_arg_i32(n), tile_arg_f32(p), tile_arg_i32(seed)};
		launch(t, k, (uint32_t)((n + 1023) / 1024), 1, args, 5);
		check_floats(t, "dropout", o, want, (size_t)n, 1e-6, 0);
		kfree(t, x), kfree(t, o), kfree(t, want);
	}
	tile_kernel_destroy(k);
}

/* ---- row sum / max / argmax ------------------------------------------------------- */

static void test_row_reduce(T *t)
{
	t->what = "row_reduce";
	static const int shapes[][3] = {{5, 17, 4}, {64, 128, 8}, {33, 1000, 2}, {1, 1, 1}};
	uint64_t seed = 19;
	for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++) {
		int M = shapes[si][0], N = shapes[si][1], BM = shapes[si][2];
		int BN = (int)next_pow2((uint32_t)N);
		char sig[128];
		snprintf(sig, sizeof sig, "*fp32:16,*fp32:16,*fp32:16,*i32:16,i32,i32,i32,%d,%d", BM, BN);
		tile_kernel *k = get_kernel(t, "row_reduce.tile", "row_reduce_kernel", sig);
		if (!k)
			return;
		float *x = kalloc(t, (size_t)M * N * 4 + 64);
		float *sum = kalloc(t, M * 4 + 64), *mx = kalloc(t, M * 4 + 64);
		int32_t *am = kalloc(t, M * 4 + 64);
		float *wsum = malloc(M * 4), *wmx = malloc(M * 4), *gam = malloc(M * 4), *wam = malloc(M * 4);
		for (int i = 0; i < M * N; i++)
			x[i] = (float)(rng_next(&seed) % 16); /* small integers: ties for argmax */
		for (int r = 0; r < M; r++) {
			double s = 0;
			float m = -INFINITY;
			int a = 0;
			for (int c = 0; c < N; c++) {
				s += x[r * N + c];
				if (x[r * N + c] > m)
					m = x[r * N + c], a = c;
			}
			wsum[r] = (float)s, wmx[r] = m, wam[r] = (float)a;
		}
		tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(sum, TILE_FP32),
				   tile_arg_ptr(mx, TILE_FP32), tile_arg_ptr(am, TILE_I32),
				   tile_arg_i32(M), tile_arg_i32(N), tile_arg_i32(N)};
		launch(t, k, (uint32_t)((M + BM - 1) / BM), 1, args, 7);
		for (int r = 0; r < M; r++)
			gam[r] = (float)am[r];
		check_floats(t, "sum", sum, wsum, (size_t)M, 1e-6, 0);
		check_floats(t, "max", mx, wmx, (size_t)M, 0, 0);
		check_floats(t, "argmax", gam, wam, (size_t)M, 0, 0);
		kfree(t, x), kfree(t, sum), kfree(t, mx), kfree(t, am), kfree(t, wsum), kfree(t, wmx), kfree(t, gam), kfree(t, wam);
		tile_kernel_destroy(k);
	}
}

/* ---- cumsum ----------------------------------------------------------------------- */

static void test_cumsum(T *t, bool ints)
{
	t->what = ints ? "cumsum i32" : "cumsum fp32";
	static const int shapes[][2] = {{1, 1}, {3, 1000}, {4, 64}, {2, 33}};
	uint64_t seed = 23;
	for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++) {
		int M = shapes[si][0], N = shapes[si][1], BN = (int)next_pow2((uint32_t)N);
		char sig[96];
		snprintf(sig, sizeof sig, "%s,%s,i32,i32,%d", ints ? "*i32:16" : "*fp32:16",
			 ints ? "*i32:16" : "*fp32:16", BN);
		tile_kernel *k = get_kernel(t, "cumsum.tile", "cumsum_kernel", sig);
		if (!k)
			return;
		void *x = kalloc(t, (size_t)M * N * 4 + 64), *y = kalloc(t, (size_t)M * N * 4 + 64);
		float *want = malloc((size_t)M * N * 4), *got = malloc((size_t)M * N * 4);
		for (int r = 0; r < M; r++) {
			double acc = 0;
			for (int c = 0; c < N; c++) {
				int v = (int)(rng_next(&seed) % 201) - 100;
				if (ints)
					((int32_t *)x)[r * N + c] = v;
				else
					((float *)x)[r * N + c] = (float)v * 0.25f;
				acc += ints ? v : v * 0.25;
				want[r * N + c] = (float)acc;
			}
		}
		tile_arg args[] = {tile_arg_ptr(x, ints ? TILE_I32 : TILE_FP32),
				   tile_arg_ptr(y, ints ? TILE_I32 : TILE_FP32), tile_arg_i32(N),
				   tile_arg_i32(N)};
		launch(t, k, (uint32_t)M, 1, args, 4);
		for (int i = 0; i < M * N; i++)
			got[i] = ints ? (float)((int32_t *)y)[i] : ((float *)y)[i];
		check_floats(t, "cumsum", got, want, (size_t)M * N, 0, 0);
		kfree(t, x), kfree(t, y), kfree(t, want), kfree(t, got);
		tile_kernel_destroy(k);
	}
}

/* ---- attention (online softmax, K used through tl.trans) --------------------- */

/* o = softmax(q k^T * scale) v per head, in double, from the fp16-rounded
 * inputs; p is rounded to fp16 before p v, as the kernel's p.to(fp16) does
 * (the kernel's p is relative to a running maximum, so the rounding differs
 * slightly: the tolerance covers it). */
static void ref_attention(const float *q, const float *k, const float *v, float *o, int heads, int n, int d,
			  float scale)
{
	double *p = malloc(sizeof(double) * (size_t)n);
	for (int h = 0; h < heads; h++)
		for (int i = 0; i < n; i++) {
			const float *qi = q + ((size_t)h * n + i) * d;
			double mx = -INFINITY, sum = 0;
			for (int j = 0; j < n; j++) {
				const float *kj = k + ((size_t)h * n + j) * d;
				double s = 0;
				for (int x = 0; x < d; x++)
					s += (double)qi[x] * kj[x];
				p[j] = s * scale;
				mx = p[j] > mx ? p[j] : mx;
			}
			for (int j = 0; j < n; j++) {
				p[j] = exp(p[j] - mx);
				sum += p[j];
				p[j] = h2f(f2h((float)p[j]));
			}
			for (int x = 0; x < d; x++) {
				double acc = 0;
				for (int j = 0; j < n; j++)
					acc += p[j] * v[((size_t)h * n + j) * d + x];
				o[((size_t)h * n + i) * d + x] = (float)(acc / sum);
			}
		}
	free(p);
}

static void test_attention_shape(T *t, uint64_t *seed, int n, int d, int bm, int bn)
{
	const int heads = 2;
	char sig[256];
	snprintf(sig, sizeof sig,
		 "*fp16:16,*fp16:16,*fp16:16,*fp32:16,i32,fp32,i32:16,i32:16,i32:16,i32:16,i32:16,i32:16,i32:16,i32:16,"
		 "%d,%d,%d",
		 d, bm, bn);
	tile_kernel *kern = get_kernel(t, "attention.tile", "attention_fwd_kernel", sig);
	if (!kern)
		return;
	size_t cnt = (size_t)heads * n * d;
	uint16_t *q = kalloc(t, cnt * 2 + 64), *k = kalloc(t, cnt * 2 + 64),
		 *v = kalloc(t, cnt * 2 + 64);
	float *qf = malloc(cnt * 4), *kf = malloc(cnt * 4), *vf = malloc(cnt * 4);
	float *o = kalloc(t, cnt * 4 + 64), *want = malloc(cnt * 4);
	for (size_t i = 0; i < cnt; i++) {
		q[i] = f2h(rnd(seed)), qf[i] = h2f(q[i]);
		k[i] = f2h(rnd(seed)), kf[i] = h2f(k[i]);
		v[i] = f2h(rnd(seed)), vf[i] = h2f(v[i]);
	}
	memset(o, 0, cnt * 4);
	float scale = 1.0f / sqrtf((float)d);
	ref_attention(qf, kf, vf, want, heads, n, d, scale);
	int32_t sh = n * d;
	tile_arg args[] = {tile_arg_ptr(q, TILE_FP16), tile_arg_ptr(k, TILE_FP16), tile_arg_ptr(v, TILE_FP16),
			   tile_arg_ptr(o, TILE_FP32), tile_arg_i32(n), tile_arg_f32(scale),
			   tile_arg_i32(sh), tile_arg_i32(d), tile_arg_i32(sh), tile_arg_i32(d),
			   tile_arg_i32(sh), tile_arg_i32(d), tile_arg_i32(sh), tile_arg_i32(d)};
	launch(t, kern, (uint32_t)((n + bm - 1) / bm), heads, args, 14);
	check_floats(t, "o", o, want, cnt, 1e-2, 2e-3);
	kfree(t, q), kfree(t, k), kfree(t, v), kfree(t, qf), kfree(t, kf), kfree(t, vf), kfree(t, o), kfree(t, want);
	tile_kernel_destroy(kern);
}

/* Sequence lengths: one block, ragged (masked keys and rows), several blocks
 * (pipelining prologue, steady state and drain). */
static void test_attention(T *t)
{
	t->what = "attention";
	const char *env = getenv("TILE_TEST_NUM_STAGES");
	int save = t->num_stages;
	for (const char *p = env && *env ? env : "0"; next_num_stages(t, &p);) {
		uint64_t seed = 29;
		static const int seqs[] = {32, 100, 160};
		for (int i = 0; i < 3; i++)
			test_attention_shape(t, &seed, seqs[i], 64, 32, 32);
		test_attention_shape(t, &seed, 75, 32, 16, 16);
	}
	/* BLOCK_M = 64 over 4 warps: the two dots are chained, so every warp
	 * takes 16 whole rows of both (assign.c, mma_warps_chained) */
	if (strcmp(t->target, "cpu")) {
		uint64_t seed = 37;
		test_attention_shape(t, &seed, 100, 64, 64, 32);
	}
	/* big enough (~37k LLVM instructions) that the CPU backend generates its
	 * machine code at -O0 (emit_llvm.c, BIG_KERNEL_INSTRS): still right */
	if (!strcmp(t->target, "cpu")) {
		uint64_t seed = 31;
		test_attention_shape(t, &seed, 130, 64, 64, 64);
	}
	t->num_stages = save;
}

/* ---- paged attention (K/V rows through an index table) ------------------------ */

/* The cache holds the sequence's keys in shuffled token slots (more slots
 * than keys, every head in one row); the reference reads them back in
 * order, as contiguous k and v, and is the attention reference above. */
static void test_paged_attention_shape(T *t, uint64_t *seed, int n, int d, int bm, int bn)
{
	const int heads = 2, slots = n + 37;
	char sig[256];
	snprintf(sig, sizeof sig,
		 "*fp16:16,*fp16:16,*fp16:16,*i32:16,*fp32:16,i32,fp32,i32:16,i32:16,i32:16,i32:16,i32:16,"
		 "i32:16,i32:16,i32:16,%d,%d,%d",
		 d, bm, bn);
	tile_kernel *kern = get_kernel(t, "paged_attention.tile", "paged_attention_kernel", sig);
	if (!kern)
		return;
	size_t cnt = (size_t)heads * n * d, ccnt = (size_t)slots * heads * d;
	uint16_t *q = kalloc(t, cnt * 2 + 64), *kc = kalloc(t, ccnt * 2 + 64), *vc = kalloc(t, ccnt * 2 + 64);
	int32_t *idx = kalloc(t, (size_t)n * 4 + 64), *perm = malloc((size_t)slots * 4);
	float *qf = malloc(cnt * 4), *kf = malloc(cnt * 4), *vf = malloc(cnt * 4);
	float *o = kalloc(t, cnt * 4 + 64), *want = malloc(cnt * 4);
	for (int i = 0; i < slots; i++)
		perm[i] = i;
	for (int i = slots - 1; i > 0; i--) { /* Fisher-Yates */
		int j = (int)(rng_next(seed) % (uint64_t)(i + 1)), x = perm[i];
		perm[i] = perm[j], perm[j] = x;
	}
	for (int j = 0; j < n; j++)
		idx[j] = perm[j];
	for (size_t i = 0; i < cnt; i++)
		q[i] = f2h(rnd(seed)), qf[i] = h2f(q[i]);
	for (size_t i = 0; i < ccnt; i++)
		kc[i] = f2h(rnd(seed)), vc[i] = f2h(rnd(seed));
	for (int h = 0; h < heads; h++)
		for (int j = 0; j < n; j++)
			for (int x = 0; x < d; x++) {
				size_t c = ((size_t)idx[j] * heads + h) * d + x, r = ((size_t)h * n + j) * d + x;
				kf[r] = h2f(kc[c]), vf[r] = h2f(vc[c]);
			}
	memset(o, 0, cnt * 4);
	float scale = 1.0f / sqrtf((float)d);
	ref_attention(qf, kf, vf, want, heads, n, d, scale);
	int32_t sh = n * d, st = heads * d;
	tile_arg args[] = {tile_arg_ptr(q, TILE_FP16), tile_arg_ptr(kc, TILE_FP16), tile_arg_ptr(vc, TILE_FP16),
			   tile_arg_ptr(idx, TILE_I32), tile_arg_ptr(o, TILE_FP32), tile_arg_i32(n),
			   tile_arg_f32(scale), tile_arg_i32(sh), tile_arg_i32(d), tile_arg_i32(st),
			   tile_arg_i32(d), tile_arg_i32(st), tile_arg_i32(d), tile_arg_i32(sh), tile_arg_i32(d)};
	launch(t, kern, (uint32_t)((n + bm - 1) / bm), heads, args, 15);
	check_floats(t, "o", o, want, cnt, 1e-2, 2e-3);
	kfree(t, q), kfree(t, kc), kfree(t, vc), kfree(t, idx), kfree(t, qf), kfree(t, kf), kfree(t, vf);
	kfree(t, o), kfree(t, want), free(perm);
	tile_kernel_destroy(kern);
}

/* One block, ragged, several blocks (the index loads' prologue, steady state
 * and the copies past the end, which must not read past kv_indices). */
static void test_paged_attention(T *t)
{
	t->what = "paged_attention";
	const char *env = getenv("TILE_TEST_NUM_STAGES");
	int save = t->num_stages;
	for (const char *p = env && *env ? env : "0"; next_num_stages(t, &p);) {
		uint64_t seed = 41;
		static const int seqs[] = {32, 100, 160};
		for (int i = 0; i < 3; i++)
			test_paged_attention_shape(t, &seed, seqs[i], 64, 32, 32);
		test_paged_attention_shape(t, &seed, 75, 32, 16, 16);
	}
	t->num_stages = save;
}

/* ---- SwiGLU --------------------------------------------------------------------- */

static void test_swiglu(T *t, bool fp16)
{
	t->what = fp16 ? "swiglu fp16" : "swiglu fp32";
	const char *ty = fp16 ? "*fp16:16" : "*fp32:16";
	char sig[96];
	snprintf(sig, sizeof sig, "%s,%s,%s,i32,256", ty, ty, ty);
	tile_kernel *k = get_kernel(t, "swiglu.tile", "swiglu_kernel", sig);
	if (!k)
		return;
	static const int sizes[] = {1, 255, 1000};
	uint64_t seed = 29;
	for (size_t si = 0; si < 3; si++) {
		int n = sizes[si];
		size_t es = fp16 ? 2 : 4;
		void *g = kalloc(t, n * es + 64), *u = kalloc(t, n * es + 64), *o = kalloc(t, n * es + 64);
		float *want = malloc(n * 4), *got = malloc(n * 4);
		for (int i = 0; i < n; i++) {
			float gv = rnd(&seed) * 4, uv = rnd(&seed);
			if (fp16) {
				((uint16_t *)g)[i] = f2h(gv), ((uint16_t *)u)[i] = f2h(uv);
				gv = h2f(f2h(gv)), uv = h2f(f2h(uv));
			} else
				((float *)g)[i] = gv, ((float *)u)[i] = uv;
			want[i] = (float)(gv / (1 + exp(-(double)gv)) * uv);
		}
		tile_dtype dt = fp16 ? TILE_FP16 : TILE_FP32;
		tile_arg args[] = {tile_arg_ptr(g, dt), tile_arg_ptr(u, dt), tile_arg_ptr(o, dt),
				   tile_arg_i32(n)};
		launch(t, k, (uint32_t)((n + 255) / 256), 1, args, 4);
		for (int i = 0; i < n; i++)
			got[i] = fp16 ? h2f(((uint16_t *)o)[i]) : ((float *)o)[i];
		check_floats(t, "swiglu", got, want, (size_t)n, fp16 ? 2e-3 : 1e-5, fp16 ? 1e-3 : 1e-6);
		kfree(t, g), kfree(t, u), kfree(t, o), kfree(t, want), kfree(t, got);
	}
	tile_kernel_destroy(k);
}

/* ---- driver ----------------------------------------------------------------------- */

static bool selected(const char *name)
{
	const char *only = getenv("TILE_TEST_ONLY");
	return !only || !*only || strstr(name, only);
}

static void run_all(T *t)
{
	if (selected("vector_add"))
		test_vector_add(t, false, 1024);
	if (selected("vector_add"))
		test_vector_add(t, false, 128);
	if (selected("vector_add"))
		test_vector_add(t, true, 512);
	if (selected("softmax"))
		test_softmax(t, false);
	if (selected("softmax"))
		test_softmax(t, true);
	if (selected("layer_norm"))
		test_layer_norm(t);
	if (selected("rms_norm"))
		test_rms_norm(t, false);
	if (selected("rms_norm"))
		test_rms_norm(t, true);
	if (selected("matmul fp32"))
		test_matmul(t, false, MM_POINTERS);
	if (selected("matmul fp16"))
		test_matmul(t, true, MM_POINTERS);
	if (selected("matmul_block_ptr fp32"))
		test_matmul(t, false, MM_BLOCK_PTR);
	if (selected("matmul_block_ptr fp16"))
		test_matmul(t, true, MM_BLOCK_PTR);
	if (selected("matmul_descriptor fp32"))
		test_matmul(t, false, MM_DESCRIPTOR);
	if (selected("matmul_descriptor fp16"))
		test_matmul(t, true, MM_DESCRIPTOR);
	if (selected("matmul_w8"))
		test_matmul_w8(t);
	if (selected("attention"))
		test_attention(t);
	if (selected("paged_attention"))
		test_paged_attention(t);
	if (selected("dropout"))
		test_dropout(t);
	if (selected("row_reduce"))
		test_row_reduce(t);
	if (selected("cumsum"))
		test_cumsum(t, true);
	if (selected("cumsum"))
		test_cumsum(t, false);
	if (selected("swiglu"))
		test_swiglu(t, false);
	if (selected("swiglu"))
		test_swiglu(t, true);
}

int main(void)
{
	const char *targets = getenv("TILE_TEST_TARGETS");
	setenv("TILE_RACECHECK", "1", 0); /* as test_lang: barriers checked by the GPU's rules */
	char buf[256];
	snprintf(buf, sizeof buf, "%s", targets && *targets ? targets : "cpu");
	int failures = 0, checks = 0;
	for (char *tg = strtok(buf, ","); tg; tg = strtok(NULL, ",")) {
		T t = {0};
		t.target = tg;
		t.num_warps = 4;
		tile_context_options o = {0};
		o.target = tg;
		if (tile_context_create(&t.ctx, &o) != TILE_OK) {
			printf("FAIL cannot create a context for target %s\n", tg);
			return 1;
		}
		run_all(&t);
		printf("target %s: %d checks, %d failed\n", tg, t.checks, t.failures);
		failures += t.failures;
		checks += t.checks;
		tile_context_destroy(t.ctx);
	}
	return failures ? 1 : 0;
}

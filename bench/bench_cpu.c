/* bench_cpu.c: CPU benchmarks of tile, run by bench/run.sh (`make bench`).
 *
 * Every number is reported next to a baseline measured in the same run, and
 * every target is a ratio or a latency bound checked here:
 *
 *   1. cold compile   softmax_kernel, disk cache disabled, N fresh contexts:
 *                     median of tile_module_load_file + tile_kernel_get (<= 60 ms)
 *   2. cache hit      fresh context, cache dir that already holds the entry:
 *                     median of tile_module_load_file + tile_kernel_get (<= 1 ms)
 *   3. launch         store_one (grid 1x1x1): ns per call of the thunk, of
 *                     tile_launch and of a direct call of the JIT'd function
 *                     (when built with -DBENCH_INTERNAL); thunk - direct <= 1 us
 *   4. bandwidth      vector add (16M fp32, 12 B/elem) and softmax (4096 x 1024
 *                     fp32, 8 B/elem) GB/s vs memcpy of the same traffic
 *                     (>= 50% and >= 30% of memcpy)
 *   5. no target      cumsum of 4096 rows of 1024 (GB/s, vs memcpy) and an
 *                     fp32 512^3 matmul (GFLOP/s): cross-thread scans and
 *                     the FMA-path dot, to compare runs and commits
 *
 * Usage: bench_cpu [--quick] [--md FILE]   (run from the repository root)
 * --md appends the results, in Markdown, to FILE (run.sh writes the header).
 * Exit status: 0 when every benchmark ran (targets may be missed: that is a
 * result, not an error), 1 when something could not be compiled or run.
 *
 * -DBENCH_INTERNAL: built against build/libtile.a with -Isrc, it also reads
 * the per-stage compile times and calls the JIT'd function directly (the
 * struct tile_kernel of src/api/api.h). Without it only the public API is used.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* nftw, mkdtemp, clock_gettime */
#endif
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tile.h"
#ifdef BENCH_INTERNAL
#include "api/api.h"
#endif

/* ---- small helpers ------------------------------------------------------------ */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(const double *v, int n)
{
	if (n <= 0)
		return NAN;
	double *c = malloc((size_t)n * sizeof *c);
	memcpy(c, v, (size_t)n * sizeof *c);
	qsort(c, (size_t)n, sizeof *c, cmp_double);
	double m = n % 2 ? c[n / 2] : 0.5 * (c[n / 2 - 1] + c[n / 2]);
	free(c);
	return m;
}

static double minimum(const double *v, int n)
{
	double m = INFINITY;
	for (int i = 0; i < n; i++)
		m = v[i] < m ? v[i] : m;
	return m;
}

/* ---- result rows (printed as a table and written as Markdown) ------------------ */

typedef struct Row {
	char section[24];
	char name[80];
	char value[64];
	char target[24];
	int status; /* -1: no target, 0: missed, 1: met */
} Row;

static Row g_rows[160];
static int nrows;
static int nerrors;
static char raw[1 << 16]; /* "raw numbers" section of the Markdown */
static size_t rawlen;
static const char *section = "";

static void add_row(const char *name, const char *target, int status, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void add_row(const char *name, const char *target, int status, const char *fmt, ...)
{
	if (nrows == (int)(sizeof g_rows / sizeof g_rows[0]))
		return;
	Row *r = &g_rows[nrows++];
	snprintf(r->section, sizeof r->section, "%s", section);
	snprintf(r->name, sizeof r->name, "%s", name);
	snprintf(r->target, sizeof r->target, "%s", target ? target : "");
	r->status = status;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->value, sizeof r->value, fmt, ap);
	va_end(ap);
}

static void add_raw(const char *name, const char *unit, const double *v, int n, double scale)
{
	int w = snprintf(raw + rawlen, sizeof raw - rawlen, "- %s (%s, %d samples):", name, unit, n);
	if (w < 0 || (size_t)w >= sizeof raw - rawlen)
		return;
	rawlen += (size_t)w;
	for (int i = 0; i < n; i++) {
		w = snprintf(raw + rawlen, sizeof raw - rawlen, " %.4g", v[i] * scale);
		if (w < 0 || (size_t)w >= sizeof raw - rawlen)
			return;
		rawlen += (size_t)w;
	}
	w = snprintf(raw + rawlen, sizeof raw - rawlen, "\n");
	if (w > 0 && (size_t)w < sizeof raw - rawlen)
		rawlen += (size_t)w;
}

static void fail(const char *what, tile_context *ctx, tile_status st)
{
	char msg[64];
	const char *em = ctx ? tile_errmsg(ctx) : "";
	fprintf(stderr, "bench_cpu: %s: %s\n%s%s", what, tile_status_string(st), em,
		*em && em[strlen(em) - 1] != '\n' ? "\n" : "");
	snprintf(msg, sizeof msg, "%s", tile_status_string(st));
	add_row(what, NULL, 0, "ERROR: %s", msg);
	nerrors++;
}

/* ---- configuration --------------------------------------------------------------- */

static int quick;
static int ncpu = 1;
#define SOFTMAX_FILE "kernels/softmax.tile"
#define SOFTMAX_SIG  "*fp32:16,*fp32:16,i32,i32,i32,i32,1024"
#define ADD_FILE     "kernels/vector_add.tile"
#define ADD_SIG      "*fp32:16,*fp32:16,*fp32:16,i32,1024"
#define STORE_FILE   "bench/kernels/store_one.tile"
#define STORE_SIG    "*fp32:16,fp32"

static tile_status make_ctx_threads(tile_context **ctx, const char *cache_dir, int disable_cache,
				   int nthreads)
{
	tile_context_options o;
	memset(&o, 0, sizeof o);
	o.target = "cpu";
	o.cache_dir = cache_dir;
	o.disable_cache = disable_cache;
	o.num_threads = nthreads; /* 0: all cores */
	return tile_context_create(ctx, &o);
}

static tile_status make_ctx(tile_context **ctx, const char *cache_dir, int disable_cache)
{
	return make_ctx_threads(ctx, cache_dir, disable_cache, 0);
}

/* Median seconds of `reps` launches (after 2 warm-up ones) of a kernel compiled
 * in a context with ONE worker thread: tells code quality from pool scaling.
 * Returns NAN on any error (reported by the caller as n/a). */
/* A fresh context without the disk cache and kernel `name` of `file`
 * compiled for `sig`; false (after fail()) when either step fails. */
static int open_kernel(const char *file, const char *name, const char *sig, tile_context **ctx,
		       tile_module **mod, tile_kernel **k)
{
	tile_status s = make_ctx(ctx, NULL, 1);
	if (s != TILE_OK) {
		fail("tile_context_create", NULL, s);
		return 0;
	}
	s = tile_module_load_file(*ctx, file, mod);
	if (s == TILE_OK)
		s = tile_kernel_get(*mod, name, sig, NULL, k);
	if (s != TILE_OK) {
		char what[96];
		snprintf(what, sizeof what, "compile of %s", name);
		fail(what, *ctx, s);
		return 0;
	}
	return 1;
}

static double time_one_thread(const char *file, const char *name, const char *sig,
			      const uint32_t grid[3], const tile_arg *args, size_t nargs, int reps)
{
	tile_context *ctx = NULL;
	tile_module *mod = NULL;
	tile_kernel *k = NULL;
	double v[32], m = NAN;
	if (make_ctx_threads(&ctx, NULL, 1, 1) != TILE_OK)
		return NAN;
	if (tile_module_load_file(ctx, file, &mod) != TILE_OK ||
	    tile_kernel_get(mod, name, sig, NULL, &k) != TILE_OK)
		goto out;
	for (int r = -2; r < reps; r++) {
		double t0 = now_s();
		if (tile_launch(k, grid, args, nargs, NULL) != TILE_OK)
			goto out;
		if (r >= 0)
			v[r] = now_s() - t0;
	}
	m = median(v, reps);
out:
	tile_kernel_destroy(k);
	tile_module_destroy(mod);
	tile_context_destroy(ctx);
	return m;
}

/* ---- 1. cold compile ---------------------------------------------------------------- */

static void bench_cold_compile(void)
{
	section = "cold compile";
	int n = quick ? 5 : 21;
	double *t_ctx = calloc((size_t)n, sizeof(double)), *t_load = calloc((size_t)n, sizeof(double));
	double *t_get = calloc((size_t)n, sizeof(double)), *t_tot = calloc((size_t)n, sizeof(double));
	double *t_cs = calloc((size_t)n, sizeof(double));
#ifdef BENCH_INTERNAL
	double *st[6];
	for (int s = 0; s < 6; s++)
		st[s] = calloc((size_t)n, sizeof(double));
#endif
	int ok = 1;
	for (int i = 0; i < n && ok; i++) {
		tile_context *ctx = NULL;
		tile_module *mod = NULL;
		tile_kernel *k = NULL;
		double t0 = now_s();
		tile_status s = make_ctx(&ctx, NULL, 1);
		double t1 = now_s();
		if (s != TILE_OK) {
			fail("tile_context_create", NULL, s);
			ok = 0;
			break;
		}
		s = tile_module_load_file(ctx, SOFTMAX_FILE, &mod);
		double t2 = now_s();
		if (s == TILE_OK)
			s = tile_kernel_get(mod, "softmax_kernel", SOFTMAX_SIG, NULL, &k);
		double t3 = now_s();
		if (s != TILE_OK) {
			fail("cold compile of softmax_kernel", ctx, s);
			ok = 0;
		} else {
			tile_kernel_info info;
			if (tile_kernel_get_info(k, &info) == TILE_OK) {
				t_cs[i] = info.compile_seconds;
				if (info.from_cache) {
					fprintf(stderr, "bench_cpu: cold compile came from the cache "
							"although it is disabled\n");
					add_row("from_cache with the cache disabled", NULL, 0, "ERROR");
					nerrors++;
					ok = 0;
				}
			}
#ifdef BENCH_INTERNAL
			st[0][i] = k->ck.t_parse;
			st[1][i] = k->ck.t_sema;
			st[2][i] = k->ck.t_layout;
			st[3][i] = k->ck.t_lower;
			st[4][i] = k->ck.t_codegen;
			st[5][i] = k->ck.t_total;
#endif
		}
		t_ctx[i] = t1 - t0;
		t_load[i] = t2 - t1;
		t_get[i] = t3 - t2;
		t_tot[i] = t3 - t1;
		tile_kernel_destroy(k);
		tile_module_destroy(mod);
		tile_context_destroy(ctx);
	}
	if (ok) {
		double m = median(t_tot, n) * 1e3;
		add_row("load_file + kernel_get, median (ms)", "<= 60 ms", m <= 60.0, "%.2f", m);
		add_row("  tile_module_load_file, median (ms)", NULL, -1, "%.2f", median(t_load, n) * 1e3);
		add_row("  tile_kernel_get, median (ms)", NULL, -1, "%.2f", median(t_get, n) * 1e3);
		add_row("  first in process (ms, one-time init incl.)", NULL, -1, "%.2f", t_tot[0] * 1e3);
		add_row("  min (ms)", NULL, -1, "%.2f", minimum(t_tot, n) * 1e3);
		add_row("  info.compile_seconds, median (ms)", NULL, -1, "%.2f", median(t_cs, n) * 1e3);
		add_row("tile_context_create, median (ms)", NULL, -1, "%.3f", median(t_ctx, n) * 1e3);
		add_raw("cold compile load+get", "ms", t_tot, n, 1e3);
		add_raw("cold compile compile_seconds", "ms", t_cs, n, 1e3);
#ifdef BENCH_INTERNAL
		static const char *names[6] = {"parse", "sema", "layout", "lower", "codegen (LLVM)",
					       "total (driver)"};
		for (int s = 0; s < 6; s++) {
			char nm[80];
			snprintf(nm, sizeof nm, "  stage %s, median (ms)", names[s]);
			add_row(nm, NULL, -1, "%.2f", median(st[s], n) * 1e3);
		}
		add_raw("cold compile stage codegen", "ms", st[4], n, 1e3);
#else
		add_row("  per-stage times", NULL, -1, "n/a (public API build)");
#endif
	}
	free(t_ctx);
	free(t_load);
	free(t_get);
	free(t_tot);
	free(t_cs);
#ifdef BENCH_INTERNAL
	for (int s = 0; s < 6; s++)
		free(st[s]);
#endif
}

/* ---- 2. cache hit ------------------------------------------------------------------- */

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *f)
{
	(void)sb;
	(void)flag;
	(void)f;
	return remove(path);
}

static void bench_cache_hit(void)
{
	section = "cache hit";
	char dir[] = "/tmp/tile-bench-cache-XXXXXX";
	if (!mkdtemp(dir)) {
		fprintf(stderr, "bench_cpu: mkdtemp: %s\n", strerror(errno));
		add_row("mkdtemp", NULL, 0, "ERROR");
		nerrors++;
		return;
	}
	int n = quick ? 5 : 51;
	double *t_load = calloc((size_t)n, sizeof(double)), *t_get = calloc((size_t)n, sizeof(double));
	double *t_tot = calloc((size_t)n, sizeof(double)), *t_launch = calloc((size_t)n, sizeof(double));
	double *t_second = calloc((size_t)n, sizeof(double));
	int ok = 1;
	/* fill the cache */
	{
		tile_context *ctx = NULL;
		tile_module *mod = NULL;
		tile_kernel *k = NULL;
		tile_status s = make_ctx(&ctx, dir, 0);
		if (s != TILE_OK) {
			fail("tile_context_create", NULL, s);
			ok = 0;
		} else {
			s = tile_module_load_file(ctx, SOFTMAX_FILE, &mod);
			if (s == TILE_OK)
				s = tile_kernel_get(mod, "softmax_kernel", SOFTMAX_SIG, NULL, &k);
			tile_module *mod2 = NULL;
			tile_kernel *k2 = NULL;
			if (s == TILE_OK)
				s = tile_module_load_file(ctx, ADD_FILE, &mod2);
			if (s == TILE_OK)
				s = tile_kernel_get(mod2, "add_kernel", ADD_SIG, NULL, &k2);
			if (s != TILE_OK) {
				fail("compile to fill the cache", ctx, s);
				ok = 0;
			}
			tile_kernel_destroy(k2);
			tile_module_destroy(mod2);
		}
		tile_kernel_destroy(k);
		tile_module_destroy(mod);
		tile_context_destroy(ctx);
	}
	/* one small row so the first launch does real work without much time */
	float in[1024], out[1024];
	for (int i = 0; i < 1024; i++)
		in[i] = (float)(i % 17);
	int nhit = 0, nhit2 = 0;
	for (int i = 0; i < n && ok; i++) {
		tile_context *ctx = NULL;
		tile_module *mod = NULL;
		tile_kernel *k = NULL;
		tile_status s = make_ctx(&ctx, dir, 0);
		if (s != TILE_OK) {
			fail("tile_context_create", NULL, s);
			ok = 0;
			break;
		}
		double t0 = now_s();
		s = tile_module_load_file(ctx, SOFTMAX_FILE, &mod);
		double t1 = now_s();
		if (s == TILE_OK)
			s = tile_kernel_get(mod, "softmax_kernel", SOFTMAX_SIG, NULL, &k);
		double t2 = now_s();
		if (s != TILE_OK) {
			fail("kernel_get with a warm cache", ctx, s);
			ok = 0;
		} else {
			tile_kernel_info info;
			if (tile_kernel_get_info(k, &info) == TILE_OK && info.from_cache)
				nhit++;
			tile_arg args[6] = {tile_arg_ptr(out, TILE_FP32), tile_arg_ptr(in, TILE_FP32),
					    tile_arg_i32(1024), tile_arg_i32(1024), tile_arg_i32(1),
					    tile_arg_i32(1024)};
			uint32_t grid[3] = {1, 1, 1};
			double t3 = now_s();
			s = tile_launch(k, grid, args, 6, NULL);
			double t4 = now_s();
			if (s != TILE_OK) {
				fail("first launch after a cache hit", ctx, s);
				ok = 0;
			}
			t_launch[i] = t4 - t3;
			/* a second kernel in the same context: the JIT engine is up already */
			tile_module *mod2 = NULL;
			tile_kernel *k2 = NULL;
			double t5 = now_s();
			s = tile_module_load_file(ctx, ADD_FILE, &mod2);
			if (s == TILE_OK)
				s = tile_kernel_get(mod2, "add_kernel", ADD_SIG, NULL, &k2);
			double t6 = now_s();
			if (s != TILE_OK) {
				fail("second kernel_get with a warm cache", ctx, s);
				ok = 0;
			} else if (tile_kernel_get_info(k2, &info) == TILE_OK && info.from_cache) {
				nhit2++;
			}
			t_second[i] = t6 - t5;
			tile_kernel_destroy(k2);
			tile_module_destroy(mod2);
		}
		t_load[i] = t1 - t0;
		t_get[i] = t2 - t1;
		t_tot[i] = t2 - t0;
		tile_kernel_destroy(k);
		tile_module_destroy(mod);
		tile_context_destroy(ctx);
	}
	if (ok) {
		double m = median(t_tot, n) * 1e3;
		add_row("load_file + kernel_get, median (ms)", "<= 1 ms", m <= 1.0, "%.3f", m);
		add_row("  tile_module_load_file, median (ms)", NULL, -1, "%.3f", median(t_load, n) * 1e3);
		add_row("  tile_kernel_get, median (ms)", NULL, -1, "%.3f", median(t_get, n) * 1e3);
		add_row("  min (ms)", NULL, -1, "%.3f", minimum(t_tot, n) * 1e3);
		add_row("  first launch after the hit (1 row), median (ms)", NULL, -1, "%.3f",
			median(t_launch, n) * 1e3);
		add_row("  2nd kernel (add_kernel), same context, median (ms)", NULL, -1, "%.3f",
			median(t_second, n) * 1e3);
		add_row("kernels that reported from_cache", "all", nhit + nhit2 == 2 * n, "%d of %d",
			nhit + nhit2, 2 * n);
		add_raw("cache hit load+get", "ms", t_tot, n, 1e3);
	}
	free(t_load);
	free(t_get);
	free(t_tot);
	free(t_launch);
	free(t_second);
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- 3. launch overhead ------------------------------------------------------------------ */

typedef int (*StoreOneThunk)(void *out, float value, uint32_t gx, uint32_t gy, uint32_t gz,
			     void *stream);

/* The floor: an opaque call with the thunk's signature that does what the
 * kernel does (one store). */
static __attribute__((noinline)) int empty_call(void *out, float value, uint32_t gx, uint32_t gy,
						uint32_t gz, void *stream)
{
	(void)gx;
	(void)gy;
	(void)gz;
	(void)stream;
	*(volatile float *)out = value;
	return 0;
}

static StoreOneThunk volatile empty_fn = empty_call;

static void bench_launch(void)
{
	section = "launch overhead";
	tile_context *ctx = NULL;
	tile_module *mod = NULL;
	tile_kernel *k = NULL;
	StoreOneThunk thunk = NULL;
	tile_status s;
	if (!open_kernel(STORE_FILE, "store_one", STORE_SIG, &ctx, &mod, &k))
		goto out;
	void (*fn)(void) = NULL;
	s = tile_kernel_thunk(k, &fn);
	if (s != TILE_OK) {
		fail("tile_kernel_thunk", ctx, s);
		goto out;
	}
	thunk = (StoreOneThunk)fn;

	float *dst = aligned_alloc(64, 64);
	*dst = 0;
	const int reps = quick ? 5 : 15;
	const int iters = quick ? 20000 : 200000;
	double v_empty[15], v_thunk[15], v_launch[15];
#ifdef BENCH_INTERNAL
	double v_direct[15], v_pool[15];
	void *argv_vals[2];
	void *dptr = dst;
	float dval = 0;
	argv_vals[0] = &dptr;
	argv_vals[1] = &dval;
	size_t smem_n = k->ck.smem_bytes > 0 ? (size_t)k->ck.smem_bytes : 16;
	void *smem = aligned_alloc(64, (smem_n + 63) / 64 * 64);
	const int32_t pid[3] = {0, 0, 0}, nprog[3] = {1, 1, 1};
#endif
	tile_arg args[2] = {tile_arg_ptr(dst, TILE_FP32), tile_arg_f32(0)};
	const uint32_t grid[3] = {1, 1, 1};
	int bad = 0;
	for (int r = -2; r < reps; r++) { /* two warm-up rounds */
		double t0 = now_s();
		for (int i = 0; i < iters; i++)
			empty_fn(dst, (float)i, 1, 1, 1, NULL);
		double t1 = now_s();
		for (int i = 0; i < iters; i++)
			bad |= thunk(dst, (float)i, 1, 1, 1, NULL);
		double t2 = now_s();
		if (*dst != (float)(iters - 1))
			bad |= 2;
		for (int i = 0; i < iters; i++) {
			args[1].f32 = (float)i;
			bad |= tile_launch(k, grid, args, 2, NULL);
		}
		double t3 = now_s();
		if (*dst != (float)(iters - 1))
			bad |= 4;
#ifdef BENCH_INTERNAL
		for (int i = 0; i < iters; i++) {
			dval = (float)i;
			k->cpu_fn(argv_vals, pid, nprog, smem, k->rt);
		}
		double t4 = now_s();
		if (*dst != (float)(iters - 1))
			bad |= 8;
		for (int i = 0; i < iters; i++) {
			dval = (float)i;
			bad |= cpu_launch(ctx->pool, (CpuKernelFn)k->cpu_fn, argv_vals, grid,
					  (size_t)k->ck.smem_bytes, k->ck.stack_bytes, k->rt, NULL) != 0;
		}
		double t5 = now_s();
		if (r >= 0) {
			v_direct[r] = (t4 - t3) / iters;
			v_pool[r] = (t5 - t4) / iters;
		}
#endif
		if (r >= 0) {
			v_empty[r] = (t1 - t0) / iters;
			v_thunk[r] = (t2 - t1) / iters;
			v_launch[r] = (t3 - t2) / iters;
		}
	}
	if (bad) {
		fprintf(stderr, "bench_cpu: store_one launches failed or stored the wrong value (%d)\n",
			bad);
		add_row("store_one results", NULL, 0, "ERROR (code %d)", bad);
		nerrors++;
	}
	double e = median(v_empty, reps) * 1e9, th = median(v_thunk, reps) * 1e9;
	double la = median(v_launch, reps) * 1e9;
	add_row("empty C call, same signature (ns/call)", NULL, -1, "%.1f", e);
	add_row("thunk call (ns/call)", NULL, -1, "%.1f", th);
	add_row("tile_launch (ns/call)", NULL, -1, "%.1f", la);
	add_row("thunk - tile_launch (ns)", NULL, -1, "%+.1f", th - la);
	add_raw("thunk", "ns/call", v_thunk, reps, 1e9);
	add_raw("tile_launch", "ns/call", v_launch, reps, 1e9);
#ifdef BENCH_INTERNAL
	double di = median(v_direct, reps) * 1e9, po = median(v_pool, reps) * 1e9;
	add_row("direct call of the JIT'd function (ns/call)", NULL, -1, "%.1f", di);
	add_row("cpu_launch (internal, no arg checks) (ns/call)", NULL, -1, "%.1f", po);
	add_row("thunk - direct call (ns)", "<= 1000 ns", th - di <= 1000.0, "%+.1f", th - di);
	add_row("tile_launch - direct call (ns)", NULL, -1, "%+.1f", la - di);
	add_raw("direct", "ns/call", v_direct, reps, 1e9);
	add_raw("cpu_launch", "ns/call", v_pool, reps, 1e9);
	free(smem);
#else
	/* no direct path in the public API: the empty C call is the floor */
	add_row("thunk - empty C call (ns) [no direct hook]", "<= 1000 ns", th - e <= 1000.0, "%+.1f",
		th - e);
#endif
	free(dst);
out:
	tile_kernel_destroy(k);
	tile_module_destroy(mod);
	tile_context_destroy(ctx);
}

/* ---- 4. bandwidth ---------------------------------------------------------------------- */

typedef void (*RangeFn)(void *arg, size_t lo, size_t hi);
typedef struct ParJob {
	RangeFn fn;
	void *arg;
	size_t lo, hi;
} ParJob;

static void *par_thread(void *p)
{
	ParJob *j = p;
	j->fn(j->arg, j->lo, j->hi);
	return NULL;
}

/* Runs fn over [0, n) split into nthreads chunks (multiples of `align`). */
static void par_for(int nthreads, size_t n, size_t align, RangeFn fn, void *arg)
{
	if (nthreads < 1)
		nthreads = 1;
	if (nthreads > 64)
		nthreads = 64;
	ParJob jobs[64];
	pthread_t th[64];
	size_t chunk = (n / (size_t)nthreads + align - 1) / align * align;
	for (int t = 0; t < nthreads; t++) {
		size_t lo = chunk * (size_t)t, hi = lo + chunk;
		jobs[t] = (ParJob){fn, arg, lo < n ? lo : n, hi < n ? hi : n};
	}
	for (int t = 1; t < nthreads; t++)
		if (pthread_create(&th[t], NULL, par_thread, &jobs[t]) != 0) {
			jobs[t].fn(jobs[t].arg, jobs[t].lo, jobs[t].hi);
			jobs[t].fn = NULL;
		}
	jobs[0].fn(jobs[0].arg, jobs[0].lo, jobs[0].hi);
	for (int t = 1; t < nthreads; t++)
		if (jobs[t].fn)
			pthread_join(th[t], NULL);
}

typedef struct CopyArg {
	char *dst;
	const char *src;
} CopyArg;

static void copy_range(void *p, size_t lo, size_t hi)
{
	CopyArg *a = p;
	memcpy(a->dst + lo, a->src + lo, hi - lo);
}

typedef struct AddArg {
	const float *x, *y;
	float *z;
} AddArg;

static void add_range(void *p, size_t lo, size_t hi)
{
	AddArg *a = p;
	for (size_t i = lo; i < hi; i++)
		a->z[i] = a->x[i] + a->y[i];
}

/* memcpy of `bytes` bytes (traffic 2 * bytes): best median of 1 thread and
 * ncpu threads, in GB/s of traffic. */
static double bench_memcpy(const char *label, size_t bytes, int reps)
{
	char *src = aligned_alloc(64, (bytes + 63) / 64 * 64), *dst = aligned_alloc(64, (bytes + 63) / 64 * 64);
	memset(src, 1, bytes);
	memset(dst, 0, bytes);
	CopyArg a = {dst, src};
	double v1[32], vn[32];
	for (int r = -2; r < reps; r++) {
		double t0 = now_s();
		memcpy(dst, src, bytes);
		double t1 = now_s();
		par_for(ncpu, bytes, 4096, copy_range, &a);
		double t2 = now_s();
		if (r >= 0) {
			v1[r] = t1 - t0;
			vn[r] = t2 - t1;
		}
	}
	double g1 = 2.0 * (double)bytes / median(v1, reps) / 1e9;
	double gn = 2.0 * (double)bytes / median(vn, reps) / 1e9;
	char nm[80];
	snprintf(nm, sizeof nm, "memcpy %s, 1 thread (GB/s)", label);
	add_row(nm, NULL, -1, "%.2f", g1);
	snprintf(nm, sizeof nm, "memcpy %s, %d threads (GB/s)", label, ncpu);
	add_row(nm, NULL, -1, "%.2f", gn);
	snprintf(nm, sizeof nm, "memcpy %s 1 thread", label);
	add_raw(nm, "ms", v1, reps, 1e3);
	snprintf(nm, sizeof nm, "memcpy %s %d threads", label, ncpu);
	add_raw(nm, "ms", vn, reps, 1e3);
	free(src);
	free(dst);
	return g1 > gn ? g1 : gn;
}

static void bench_vector_add(void)
{
	section = "vector add";
	const int32_t n = 16 * 1024 * 1024;
	const int reps = quick ? 5 : 15;
	tile_context *ctx = NULL;
	tile_module *mod = NULL;
	tile_kernel *k = NULL;
	float *x = aligned_alloc(64, (size_t)n * 4), *y = aligned_alloc(64, (size_t)n * 4);
	float *z = aligned_alloc(64, (size_t)n * 4);
	for (int32_t i = 0; i < n; i++) {
		x[i] = (float)(i % 1000) * 0.5f;
		y[i] = (float)(i % 7) - 3.0f;
	}
	memset(z, 0, (size_t)n * 4);
	tile_status s;
	if (!open_kernel(ADD_FILE, "add_kernel", ADD_SIG, &ctx, &mod, &k))
		goto out;
	tile_arg args[4] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(y, TILE_FP32),
			    tile_arg_ptr(z, TILE_FP32), tile_arg_i32(n)};
	uint32_t grid[3] = {(uint32_t)((n + 1023) / 1024), 1, 1};
	double v[32], vc[32];
	AddArg ca = {x, y, z};
	for (int r = -3; r < reps; r++) {
		double t0 = now_s();
		s = tile_launch(k, grid, args, 4, NULL);
		double t1 = now_s();
		if (s != TILE_OK) {
			fail("tile_launch add_kernel", ctx, s);
			goto out;
		}
		if (r == -3) { /* check once */
			int32_t wrong = 0;
			for (int32_t i = 0; i < n; i++)
				wrong += z[i] != x[i] + y[i];
			if (wrong) {
				fprintf(stderr, "bench_cpu: add_kernel: %d wrong elements\n", (int)wrong);
				add_row("add_kernel result", NULL, 0, "WRONG (%d elements)", (int)wrong);
				nerrors++;
				goto out;
			}
		}
		double t2 = now_s();
		par_for(ncpu, (size_t)n, 1024, add_range, &ca);
		double t3 = now_s();
		if (r >= 0) {
			v[r] = t1 - t0;
			vc[r] = t3 - t2;
		}
	}
	double bytes = 12.0 * n;
	double g = bytes / median(v, reps) / 1e9;
	double gc = bytes / median(vc, reps) / 1e9;
	add_row("add_kernel, 16M fp32, 12 B/elem (GB/s)", NULL, -1, "%.2f", g);
	add_row("add_kernel median time (ms)", NULL, -1, "%.2f", median(v, reps) * 1e3);
	{
		double t1 = time_one_thread(ADD_FILE, "add_kernel", ADD_SIG, grid, args, 4, reps);
		add_row("  add_kernel on 1 worker thread (GB/s)", NULL, -1, "%.2f", bytes / t1 / 1e9);
	}
	{
		char nm[80];
		snprintf(nm, sizeof nm, "C loop gcc, %d threads (GB/s, reference)", ncpu);
		add_row(nm, NULL, -1, "%.2f", gc);
	}
	add_raw("add_kernel", "ms", v, reps, 1e3);
	add_raw("C loop add", "ms", vc, reps, 1e3);
	double gm = bench_memcpy("96 MiB (same traffic)", (size_t)n * 6, reps);
	add_row("add_kernel / memcpy", ">= 50%", g / gm >= 0.5, "%.0f%%", 100.0 * g / gm);
out:
	tile_kernel_destroy(k);
	tile_module_destroy(mod);
	tile_context_destroy(ctx);
	free(x);
	free(y);
	free(z);
}

static void bench_softmax(void)
{
	section = "softmax";
	const int32_t rows = 4096, cols = 1024;
	const size_t n = (size_t)rows * (size_t)cols;
	const int reps = quick ? 5 : 15;
	tile_context *ctx = NULL;
	tile_module *mod = NULL;
	tile_kernel *k = NULL;
	float *in = aligned_alloc(64, n * 4), *out = aligned_alloc(64, n * 4);
	for (size_t i = 0; i < n; i++)
		in[i] = (float)((i * 7919) % 1000) * 0.01f - 5.0f;
	memset(out, 0, n * 4);
	tile_status s;
	if (!open_kernel(SOFTMAX_FILE, "softmax_kernel", SOFTMAX_SIG, &ctx, &mod, &k))
		goto out;
	tile_arg args[6] = {tile_arg_ptr(out, TILE_FP32), tile_arg_ptr(in, TILE_FP32),
			    tile_arg_i32(cols), tile_arg_i32(cols), tile_arg_i32(rows), tile_arg_i32(cols)};
	uint32_t grid[3] = {(uint32_t)rows, 1, 1};
	double v[32];
	for (int r = -3; r < reps; r++) {
		double t0 = now_s();
		s = tile_launch(k, grid, args, 6, NULL);
		double t1 = now_s();
		if (s != TILE_OK) {
			fail("tile_launch softmax_kernel", ctx, s);
			goto out;
		}
		if (r == -3) { /* check a few rows against a double-precision reference */
			double worst = 0;
			for (int32_t row = 0; row < rows; row += 511) {
				const float *a = in + (size_t)row * cols;
				double mx = -INFINITY, sum = 0;
				for (int32_t c = 0; c < cols; c++)
					mx = a[c] > mx ? a[c] : mx;
				for (int32_t c = 0; c < cols; c++)
					sum += exp(a[c] - mx);
				for (int32_t c = 0; c < cols; c++) {
					double ref = exp(a[c] - mx) / sum;
					double err = fabs(out[(size_t)row * cols + c] - ref) / (ref + 1e-30);
					worst = err > worst ? err : worst;
				}
			}
			if (!(worst < 1e-4)) {
				fprintf(stderr, "bench_cpu: softmax_kernel: relative error %g\n", worst);
				add_row("softmax_kernel result", NULL, 0, "WRONG (rel err %.2g)", worst);
				nerrors++;
				goto out;
			}
		}
		if (r >= 0)
			v[r] = t1 - t0;
	}
	double g = 8.0 * (double)n / median(v, reps) / 1e9;
	add_row("softmax_kernel, 4096x1024 fp32, 8 B/elem (GB/s)", NULL, -1, "%.2f", g);
	add_row("softmax_kernel median time (ms)", NULL, -1, "%.2f", median(v, reps) * 1e3);
	{
		double t1 = time_one_thread(SOFTMAX_FILE, "softmax_kernel", SOFTMAX_SIG, grid, args, 6,
					    reps);
		add_row("  softmax_kernel on 1 worker thread (GB/s)", NULL, -1, "%.2f",
			8.0 * (double)n / t1 / 1e9);
	}
	add_raw("softmax_kernel", "ms", v, reps, 1e3);
	double gm = bench_memcpy("16 MiB (same traffic)", n * 4, reps);
	add_row("softmax_kernel / memcpy", ">= 30%", g / gm >= 0.3, "%.0f%%", 100.0 * g / gm);
out:
	tile_kernel_destroy(k);
	tile_module_destroy(mod);
	tile_context_destroy(ctx);
	free(in);
	free(out);
}

/* ---- matmul and cumsum: compute-bound and cross-thread work (no targets) ----------------- */

/* fp32 512^3 through kernels/matmul.tile (the tutorial's, offsets % M / % N),
 * 64x64x32 tiles on 4 warps: the FMA-path dot and its operand staging. */
#define MATMUL_SIG                                                                            \
	"*fp32:16,*fp32:16,*fp32:16,i32:16,i32:16,i32:16,i32:16,i32:1,i32:16,i32:1,i32:16,i32:1," \
	"64,64,32,8,''"
static void bench_matmul(void)
{
	section = "matmul (fp32, FMA path)";
	const int32_t S = 512;
	const int reps = quick ? 3 : 7;
	tile_context *ctx = NULL;
	tile_module *mod = NULL;
	tile_kernel *k = NULL;
	float *a = aligned_alloc(64, (size_t)S * S * 4), *b = aligned_alloc(64, (size_t)S * S * 4),
	      *c = aligned_alloc(64, (size_t)S * S * 4);
	for (int32_t i = 0; i < S * S; i++) {
		a[i] = (float)((i * 37) % 101) * 0.01f;
		b[i] = (float)((i * 11) % 13) * 0.1f;
	}
	tile_status st;
	if (!open_kernel("kernels/matmul.tile", "matmul_kernel", MATMUL_SIG, &ctx, &mod, &k))
		goto out;
	tile_arg args[12] = {tile_arg_ptr(a, TILE_FP32), tile_arg_ptr(b, TILE_FP32),
			     tile_arg_ptr(c, TILE_FP32), tile_arg_i32(S), tile_arg_i32(S),
			     tile_arg_i32(S), tile_arg_i32(S), tile_arg_i32(1), tile_arg_i32(S),
			     tile_arg_i32(1), tile_arg_i32(S), tile_arg_i32(1)};
	uint32_t grid[3] = {(uint32_t)((S / 64) * (S / 64)), 1, 1};
	double v[16];
	for (int r = -1; r < reps; r++) {
		double t0 = now_s();
		st = tile_launch(k, grid, args, 12, NULL);
		double t1 = now_s();
		if (st != TILE_OK) {
			fail("tile_launch matmul_kernel", ctx, st);
			goto out;
		}
		if (r == -1) {
			double worst = 0;
			for (int32_t i = 0; i < S; i += 37)
				for (int32_t j = 0; j < S; j += 41) {
					double ref = 0;
					for (int32_t kk = 0; kk < S; kk++)
						ref += (double)a[(size_t)i * S + kk] * b[(size_t)kk * S + j];
					double err = fabs(c[(size_t)i * S + j] - ref) / (fabs(ref) + 1.0);
					worst = err > worst ? err : worst;
				}
			if (!(worst < 1e-4)) {
				add_row("matmul_kernel result", NULL, 0, "WRONG (rel err %.2g)", worst);
				nerrors++;
				goto out;
			}
		} else {
			v[r] = t1 - t0;
		}
	}
	double flop = 2.0 * S * S * S;
	add_row("matmul_kernel 512^3 fp32, 64x64x32, 4 warps (GFLOP/s)", NULL, -1, "%.1f",
		flop / median(v, reps) / 1e9);
	{
		double t1 = time_one_thread("kernels/matmul.tile", "matmul_kernel", MATMUL_SIG,
					    grid, args, 12, reps);
		add_row("  matmul_kernel on 1 worker thread (GFLOP/s)", NULL, -1, "%.1f", flop / t1 / 1e9);
	}
	add_raw("matmul_kernel", "ms", v, reps, 1e3);
out:
	tile_kernel_destroy(k);
	tile_module_destroy(mod);
	tile_context_destroy(ctx);
	free(a);
	free(b);
	free(c);
}

/* Row-wise inclusive cumsum (kernels/cumsum.tile) of 4096 x 1024 fp32 on 4
 * warps: scans cross lanes and warps in every row. */
static void bench_cumsum(void)
{
	section = "cumsum";
	const int32_t rows = 4096, cols = 1024;
	const size_t n = (size_t)rows * (size_t)cols;
	const int reps = quick ? 5 : 15;
	tile_context *ctx = NULL;
	tile_module *mod = NULL;
	tile_kernel *k = NULL;
	float *in = aligned_alloc(64, n * 4), *out = aligned_alloc(64, n * 4);
	for (size_t i = 0; i < n; i++)
		in[i] = (float)((i * 7919) % 1000) * 0.001f;
	const char *sig = "*fp32:16,*fp32:16,i32,i32:16,1024";
	tile_status st;
	if (!open_kernel("kernels/cumsum.tile", "cumsum_kernel", sig, &ctx, &mod, &k))
		goto out;
	tile_arg args[4] = {tile_arg_ptr(in, TILE_FP32), tile_arg_ptr(out, TILE_FP32),
			    tile_arg_i32(cols), tile_arg_i32(cols)};
	uint32_t grid[3] = {(uint32_t)rows, 1, 1};
	double v[32];
	for (int r = -2; r < reps; r++) {
		double t0 = now_s();
		st = tile_launch(k, grid, args, 4, NULL);
		double t1 = now_s();
		if (st != TILE_OK) {
			fail("tile_launch cumsum_kernel", ctx, st);
			goto out;
		}
		if (r == -2) {
			double worst = 0;
			for (int32_t row = 0; row < rows; row += 511) {
				double acc = 0;
				for (int32_t cc = 0; cc < cols; cc++) {
					acc += in[(size_t)row * cols + cc];
					double err = fabs(out[(size_t)row * cols + cc] - acc) / (acc + 1.0);
					worst = err > worst ? err : worst;
				}
			}
			if (!(worst < 1e-4)) {
				add_row("cumsum_kernel result", NULL, 0, "WRONG (rel err %.2g)", worst);
				nerrors++;
				goto out;
			}
		}
		if (r >= 0)
			v[r] = t1 - t0;
	}
	double g = 8.0 * (double)n / median(v, reps) / 1e9;
	add_row("cumsum_kernel, 4096x1024 fp32, 8 B/elem (GB/s)", NULL, -1, "%.2f", g);
	{
		double t1 = time_one_thread("kernels/cumsum.tile", "cumsum_kernel", sig, grid, args, 4,
					    reps);
		add_row("  cumsum_kernel on 1 worker thread (GB/s)", NULL, -1, "%.2f",
			8.0 * (double)n / t1 / 1e9);
	}
	add_raw("cumsum_kernel", "ms", v, reps, 1e3);
	double gm = bench_memcpy("16 MiB (same traffic)", n * 4, reps);
	add_row("cumsum_kernel / memcpy", NULL, -1, "%.0f%%", 100.0 * g / gm);
out:
	tile_kernel_destroy(k);
	tile_module_destroy(mod);
	tile_context_destroy(ctx);
	free(in);
	free(out);
}

/* ---- output ------------------------------------------------------------------------------- */

static const char *status_text(int st) { return st < 0 ? "" : st ? "pass" : "FAIL"; }

static void print_table(void)
{
	const char *last = NULL;
	printf("\n%-52s %14s %12s %6s\n", "benchmark", "value", "target", "");
	for (int i = 0; i < nrows; i++) {
		if (!last || strcmp(last, g_rows[i].section) != 0) {
			printf("-- %s %.*s\n", g_rows[i].section, (int)(84 - strlen(g_rows[i].section)),
			       "------------------------------------------------------------------"
			       "--------------------");
			last = g_rows[i].section;
		}
		printf("%-52s %14s %12s %6s\n", g_rows[i].name, g_rows[i].value, g_rows[i].target,
		       status_text(g_rows[i].status));
	}
	int met = 0, total = 0;
	for (int i = 0; i < nrows; i++)
		if (g_rows[i].status >= 0 && g_rows[i].target[0]) {
			total++;
			met += g_rows[i].status;
		}
	printf("\n%d of %d targets met%s\n", met, total, nerrors ? ", with errors (see above)" : "");
}

static void write_md(const char *path)
{
	FILE *f = fopen(path, "a");
	if (!f) {
		fprintf(stderr, "bench_cpu: cannot write %s: %s\n", path, strerror(errno));
		nerrors++;
		return;
	}
	fprintf(f, "## Results\n\n");
	fprintf(f, "| section | benchmark | value | target | |\n|---|---|---:|---|---|\n");
	for (int i = 0; i < nrows; i++) {
		const char *nm = g_rows[i].name;
		while (*nm == ' ')
			nm++;
		fprintf(f, "| %s | %s%s | %s | %s | %s |\n", g_rows[i].section,
			g_rows[i].name[0] == ' ' ? "&nbsp;&nbsp;" : "", nm, g_rows[i].value, g_rows[i].target,
			g_rows[i].status < 0 ? "" : g_rows[i].status ? "pass" : "**FAIL**");
	}
	int met = 0, total = 0;
	for (int i = 0; i < nrows; i++)
		if (g_rows[i].status >= 0 && g_rows[i].target[0]) {
			total++;
			met += g_rows[i].status;
		}
	fprintf(f, "\n**%d of %d targets met**%s\n\n", met, total,
		nerrors ? " (some benchmarks failed to run: see the ERROR rows)" : "");
	fprintf(f, "## Raw numbers\n\nEach sample is the time of one run (ms) or the mean over "
		   "one round of calls (ns/call).\n\n%s\n",
		raw);
	fclose(f);
}

int main(int argc, char **argv)
{
	const char *md = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quick") == 0)
			quick = 1;
		else if (strcmp(argv[i], "--md") == 0 && i + 1 < argc)
			md = argv[++i];
		else {
			fprintf(stderr, "usage: bench_cpu [--quick] [--md FILE]\n");
			return 2;
		}
	}
	if (getenv("BENCH_QUICK") && *getenv("BENCH_QUICK") && strcmp(getenv("BENCH_QUICK"), "0"))
		quick = 1;
	long nc = sysconf(_SC_NPROCESSORS_ONLN);
	ncpu = nc > 0 ? (int)nc : 1;
	printf("tile %s, CPU benchmarks (%s), %d cores%s\n", tile_version(),
#ifdef BENCH_INTERNAL
	       "internal build",
#else
	       "public API build",
#endif
	       ncpu, quick ? ", QUICK mode (few samples)" : "");
	fflush(stdout);

	bench_cold_compile();
	bench_cache_hit();
	bench_launch();
	bench_vector_add();
	bench_softmax();
	bench_cumsum();
	bench_matmul();

	print_table();
	if (md)
		write_md(md);
	return nerrors ? 1 : 0;
}

/* test_api_hostile.c: the public C API (include/tile.h) given bad input.
 *
 * Every call with NULL handles and pointers, argument kinds and dtypes that
 * do not match the specialization, scalars out of range, inconsistent
 * DLTensors, empty and oversized grids, bad options, objects destroyed in the
 * "wrong" order, and errors raised from several threads at once. Each must be
 * a status and a message, never a crash: build with --enable-sanitizers to
 * look for memory errors and undefined behaviour too. CPU target only. */
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/api.h"
#include "tile.h"

static int failures;

#include "api_checks.h"

/* One kernel with every kind of parameter a launch checks. */
static const char src[] = "import triton\n"
                          "import triton.language as tl\n"
                          "\n"
                          "@triton.jit\n"
                          "def fill(out_ptr, n, v8, vf, flag, BLOCK: tl.constexpr):\n"
                          "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                          "    x = vf + v8.to(tl.float32)\n"
                          "    if flag:\n"
                          "        x = x * 2.0\n"
                          "    tl.store(out_ptr + offs, x, mask=offs < n)\n";

enum { N = 256, BLOCK = 64 };
static _Alignas(64) float OUT[N];

static tile_context *make_ctx(void)
{
	tile_context_options o = {0};
	o.target = "cpu";
	o.disable_cache = 1;
	o.num_threads = 2;
	tile_context *c = NULL;
	if (tile_context_create(&c, &o) != TILE_OK)
		return NULL;
	return c;
}

/* ---- calls with no context ------------------------------------------------------------ */

static void test_null_handles(void)
{
	tile_context *ctx = NULL;
	CHECK(tile_errmsg(NULL) != NULL);
	CHECK(tile_error_offset(NULL) == -1);
	CHECK(tile_context_target(NULL) != NULL);
	CHECK(strcmp(tile_status_string((tile_status)1000), "") != 0);
	CHECK(strcmp(tile_dtype_name((tile_dtype)1000), "?") == 0);
	CHECK(strcmp(tile_dtype_name((tile_dtype)-1), "?") == 0);
	tile_context_destroy(NULL);
	tile_module_destroy(NULL);
	tile_kernel_destroy(NULL);
	tile_buffer_free(NULL);
	tile_module *m = (tile_module *)1;
	CHECK_ST(tile_module_load_source(NULL, "x", src, (size_t)-1, &m), TILE_ERROR_INVALID_ARGUMENT);
	CHECK(m == NULL);
	CHECK_ST(tile_module_load_file(NULL, "x.tile", NULL), TILE_ERROR_INVALID_ARGUMENT);
	CHECK(tile_module_num_kernels(NULL) == 0);
	CHECK(tile_module_kernel_name(NULL, 0) == NULL);
	const tile_param_info *p = NULL;
	int np = 0;
	CHECK_ST(tile_module_kernel_params(NULL, "k", &p, &np), TILE_ERROR_INVALID_ARGUMENT);
	tile_kernel *k = (tile_kernel *)1;
	CHECK_ST(tile_kernel_get(NULL, "k", "", NULL, &k), TILE_ERROR_INVALID_ARGUMENT);
	CHECK(k == NULL);
	CHECK_ST(tile_kernel_get_typed(NULL, "k", NULL, 0, NULL, &k), TILE_ERROR_INVALID_ARGUMENT);
	tile_kernel_info info;
	CHECK_ST(tile_kernel_get_info(NULL, &info), TILE_ERROR_INVALID_ARGUMENT);
	CHECK(tile_kernel_param_name(NULL, 0) == NULL);
	CHECK(tile_kernel_param_is_runtime(NULL, 0) == 0);
	void (*fn)(void) = NULL;
	CHECK_ST(tile_kernel_thunk(NULL, &fn), TILE_ERROR_INVALID_ARGUMENT);
	uint32_t grid[3] = {1, 1, 1};
	CHECK_ST(tile_launch(NULL, grid, NULL, 0, NULL), TILE_ERROR_INVALID_ARGUMENT);
	tile_buffer *b = (tile_buffer *)1;
	CHECK_ST(tile_buffer_alloc(NULL, 16, &b), TILE_ERROR_INVALID_ARGUMENT);
	CHECK(b == NULL);
	CHECK(tile_buffer_ptr(NULL) == NULL && tile_buffer_size(NULL) == 0);
	char byte;
	CHECK_ST(tile_buffer_upload(NULL, 0, &byte, 1), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_ST(tile_buffer_download(NULL, 0, &byte, 1), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_ST(tile_synchronize(NULL), TILE_ERROR_INVALID_ARGUMENT);
}

/* ---- context options ------------------------------------------------------------------ */

static void test_bad_options(void)
{
	tile_context *ctx = NULL;
	char why[256];
	tile_context_options o = {0};
	o.target = "cpu";
	o.errbuf = why;
	o.errbuf_size = sizeof why;
	static const int warps[] = {3, 64, -1};
	for (size_t i = 0; i < sizeof warps / sizeof *warps; i++) {
		why[0] = 0;
		o.num_warps = warps[i];
		CHECK_ST(tile_context_create(&ctx, &o), TILE_ERROR_INVALID_ARGUMENT);
		CHECK(ctx == NULL && strstr(why, "num_warps") != NULL);
	}
	o.num_warps = 0;
	o.num_stages = -2;
	why[0] = 0;
	CHECK_ST(tile_context_create(&ctx, &o), TILE_ERROR_INVALID_ARGUMENT);
	CHECK(ctx == NULL && strstr(why, "num_stages") != NULL);
	o.num_stages = 0;
	o.num_threads = -3;
	why[0] = 0;
	CHECK_ST(tile_context_create(&ctx, &o), TILE_ERROR_INVALID_ARGUMENT);
	CHECK(ctx == NULL && strstr(why, "num_threads") != NULL);
	o.num_threads = 0;
	o.target = "";
	CHECK_ST(tile_context_create(&ctx, &o), TILE_OK); /* "" is "auto" */
	tile_context_destroy(ctx);
	ctx = NULL;
	/* a cache directory that is a file: the cache is off, the context works */
	char path[] = "/tmp/tile-hostile-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	o.target = "cpu";
	o.cache_dir = path;
	CHECK_ST(tile_context_create(&ctx, &o), TILE_OK);
	if (ctx) {
		tile_module *m = NULL;
		tile_kernel *k = NULL;
		CHECK_ST(tile_module_load_source(ctx, "fill.tile", src, (size_t)-1, &m), TILE_OK);
		CHECK_ST(tile_kernel_get(m, "fill", "*fp32:16,i32,i8,fp32,i1,64", NULL, &k), TILE_OK);
		tile_kernel_destroy(k);
		tile_module_destroy(m);
	}
	tile_context_destroy(ctx);
	unlink(path);
}

/* ---- buffers ------------------------------------------------------------------------- */

static void test_bad_buffers(tile_context *ctx)
{
	tile_buffer *b = (tile_buffer *)1;
	CHECK_ST(tile_buffer_alloc(ctx, SIZE_MAX, &b), TILE_ERROR_NOMEM);
	CHECK(b == NULL);
	CHECK_ST(tile_buffer_alloc(ctx, SIZE_MAX - 10, &b), TILE_ERROR_NOMEM);
	CHECK_ST(tile_buffer_alloc(ctx, 16, NULL), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_ST(tile_buffer_alloc(ctx, 0, &b), TILE_OK);
	CHECK(tile_buffer_size(b) == 0 && tile_buffer_ptr(b) != NULL);
	tile_buffer_free(b);
	CHECK_ST(tile_buffer_alloc(ctx, 100, &b), TILE_OK);
	char host[200] = {0};
	CHECK_ST(tile_buffer_upload(b, 0, host, 101), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_ST(tile_buffer_upload(b, 101, host, 0), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_ST(tile_buffer_upload(b, SIZE_MAX, host, 2), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_ST(tile_buffer_upload(b, 1, host, SIZE_MAX), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_ST(tile_buffer_upload(b, 0, NULL, 4), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_ST(tile_buffer_download(b, 99, host, 2), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_ST(tile_buffer_download(b, 100, host, 0), TILE_OK);
	CHECK_ST(tile_buffer_download(b, 0, NULL, 0), TILE_OK);
	tile_buffer_free(b);
	CHECK_ST(tile_synchronize(ctx), TILE_OK);
}

/* ---- modules and signatures ------------------------------------------------------------ */

static void test_bad_sources(tile_context *ctx)
{
	tile_module *m = NULL;
	/* a length shorter than the string: only that prefix is source */
	CHECK_ST(tile_module_load_source(ctx, NULL, src, 20, &m), TILE_ERROR_COMPILE);
	CHECK(m == NULL);
	/* zero-length and NUL bytes inside */
	CHECK_ST(tile_module_load_source(ctx, "empty", "", 0, &m), TILE_OK);
	CHECK(tile_module_num_kernels(m) == 0);
	tile_kernel *k = NULL;
	CHECK_ST(tile_kernel_get(m, "fill", "", NULL, &k), TILE_ERROR_NOT_FOUND);
	tile_module_destroy(m);
	m = NULL;
	static const char nul[] = "@triton.jit\ndef k(x):\n    pass\0garbage\n";
	tile_status st = tile_module_load_source(ctx, "nul", nul, sizeof nul - 1, &m);
	CHECK(st == TILE_OK || st == TILE_ERROR_COMPILE);
	tile_module_destroy(m);
	m = NULL;
	CHECK_ST(tile_module_load_file(ctx, "/", &m), TILE_ERROR_IO); /* a directory */
	CHECK(m == NULL);
}

static void test_bad_signatures(tile_context *ctx, tile_module *m)
{
	static const char *const sigs[] = {
	        "*fp99,i32,i8,fp32,i1,64", "*fp32:17,i32,i8,fp32,i1,64", "*fp32,i32:16:16,i8,fp32,i1,64",
	        "*fp32,i32,i8,fp32,i1,64,1", "*fp32,,i8,fp32,i1,64", ",,,,,,,,,,,,,,,,,,,,,,,,,,,,",
	        "*fp32,i32,i8,fp32,i1,abc", "*fp32,i32,i8,fp32,i1,99999999999999999999999",
	        "*fp32,i32,i8,fp32,i1,'unterminated", "(((((,i32", "*fp32,i32,i8,fp32,i1,tl.float99",
	        "*fp32:1,i32,i8,fp32,i1,64", "*fp32,fp32:16,i8,fp32,i1,64", "tensordesc<fp32[3]>,i32",
	        "tensordesc<fp32[0]>", "tensordesc<fp32[64,64,64,64,64,64,64,64,64,64]>"};
	for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
		tile_kernel *k = (tile_kernel *)1;
		CHECK_ST(tile_kernel_get(m, "fill", sigs[i], NULL, &k), TILE_ERROR_INVALID_ARGUMENT);
		CHECK(k == NULL);
		CHECK(*tile_errmsg(ctx) != 0);
	}
	/* reported at the parameter the entry is for, as a compile error is */
	tile_kernel *k0 = NULL;
	CHECK_ST(tile_kernel_get(m, "fill", "*fp32:16,i32,i8,fp32,i1,BLOCK", NULL, &k0),
	         TILE_ERROR_INVALID_ARGUMENT);
	CHECK_MSG("fill.tile:5:");
	CHECK(tile_error_offset(ctx) == (int)(strstr(src, "BLOCK:") - src));
		/* a very long signature: many entries, and one very long entry */
	size_t len = 1 << 20;
	char *big = malloc(len + 1);
	for (size_t i = 0; i < len; i++)
		big[i] = i % 2 ? ',' : '1';
	big[len] = 0;
	tile_kernel *k = NULL;
	CHECK_ST(tile_kernel_get(m, "fill", big, NULL, &k), TILE_ERROR_INVALID_ARGUMENT);
	memset(big, ' ', len);
	memcpy(big, "*fp32", 5);
	memcpy(big + len - 3, ":16", 3);
	CHECK_ST(tile_kernel_get(m, "fill", big, NULL, &k), TILE_ERROR_INVALID_ARGUMENT);
	free(big);
	/* a long entry is read whole, never cut at some length (here losing its :16) */
	char spaced[128];
	snprintf(spaced, sizeof spaced, "*fp32%70s,i32,i8,fp32,i1,64", ":16");
	CHECK_ST(tile_kernel_get(m, "fill", spaced, NULL, &k), TILE_OK);
	if (k) {
		uint32_t grid[3] = {1, 1, 1};
		tile_arg a[5] = {tile_arg_ptr(OUT + 1, TILE_FP32), tile_arg_i32(N), tile_arg_i32(0),
		                 tile_arg_f32(0.0f), tile_arg_bool(0)};
		CHECK_ST(tile_launch(k, grid, a, 5, NULL), TILE_ERROR_INVALID_ARGUMENT);
		CHECK_MSG("16-byte");
	}
	tile_kernel_destroy(k);
	k = NULL;
	tile_kernel_options o = {0};
	o.num_warps = 3;
	CHECK_ST(tile_kernel_get(m, "fill", "*fp32:16,i32,i8,fp32,i1,64", &o, &k),
	         TILE_ERROR_INVALID_ARGUMENT);
	CHECK_MSG("num_warps");
	o.num_warps = 0;
	o.num_stages = 100;
	CHECK_ST(tile_kernel_get(m, "fill", "*fp32:16,i32,i8,fp32,i1,64", &o, &k),
	         TILE_ERROR_INVALID_ARGUMENT);
	CHECK_MSG("num_stages");
}

/* Kernels of many parameters (TorchInductor's foreach kernels take hundreds):
 * a signature entry for each, up to the launch limit of 512 runtime arguments. */
static void test_many_params(tile_context *ctx)
{
	for (int np = 300; np <= 600; np += 300) {
		char *text = malloc((size_t)np * 24 + 256), *sig = malloc((size_t)np * 8 + 1);
		int n = sprintf(text, "import triton\nimport triton.language as tl\n@triton.jit\ndef k(");
		for (int i = 0; i < np; i++)
			n += sprintf(text + n, "%sp%d", i ? ", " : "", i);
		sprintf(text + n, "):\n    tl.store(p%d, 1.0)\n", np - 1);
		sig[0] = 0;
		for (int i = 0, m = 0; i < np; i++)
			m += sprintf(sig + m, "%s*fp32", i ? "," : "");
		tile_module *m = NULL;
		tile_kernel *k = NULL;
		CHECK_ST(tile_module_load_source(ctx, "many.tile", text, (size_t)-1, &m), TILE_OK);
		CHECK_ST(tile_kernel_get(m, "k", sig, NULL, &k), np <= 512 ? TILE_OK : TILE_ERROR_RESOURCES);
		if (k) {
			static _Alignas(64) float cell;
			tile_arg *a = calloc((size_t)np, sizeof *a);
			for (int i = 0; i < np; i++)
				a[i] = tile_arg_ptr(&cell, TILE_FP32);
			uint32_t grid[3] = {1, 1, 1};
			cell = 0;
			CHECK_ST(tile_launch(k, grid, a, (size_t)np, NULL), TILE_OK);
			CHECK(cell == 1.0f);
			free(a);
		}
		tile_kernel_destroy(k);
		tile_module_destroy(m);
		free(text);
		free(sig);
	}
}

/* ---- tile_kernel_get_typed ------------------------------------------------------------- */

static void test_bad_typed(tile_context *ctx, tile_module *m)
{
	tile_kernel *k = NULL;
	tile_arg a[6] = {tile_arg_ptr(OUT, TILE_FP32), tile_arg_i32(N),      tile_arg_i32(1),
	                 tile_arg_f32(1.0f),           tile_arg_bool(0),     tile_arg_i32(BLOCK)};
	CHECK_ST(tile_kernel_get_typed(m, "fill", NULL, 6, NULL, &k), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_ST(tile_kernel_get_typed(m, "fill", a, 7, NULL, &k), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_ST(tile_kernel_get_typed(m, "fill", a, 3, NULL, &k), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_MSG("'vf'");
	tile_arg w[6];
	memcpy(w, a, sizeof w);
	w[0] = tile_arg_ptr(OUT, (tile_dtype)77); /* no such dtype */
	CHECK_ST(tile_kernel_get_typed(m, "fill", w, 6, NULL, &k), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_MSG("'out_ptr': its pointee dtype 77 is no tile_dtype");
	memcpy(w, a, sizeof w);
	w[1].kind = (tile_arg_kind)99; /* no such kind: it was called a dtype */
	CHECK_ST(tile_kernel_get_typed(m, "fill", w, 6, NULL, &k), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_MSG("'n' has kind 99, which is no tile_arg_kind");
	memcpy(w, a, sizeof w);
	w[5].kind = (tile_arg_kind)99; /* for a constexpr: it was called a pointer */
	CHECK_ST(tile_kernel_get_typed(m, "fill", w, 6, NULL, &k), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_MSG("'BLOCK' has kind 99, which is no tile_arg_kind");
	memcpy(w, a, sizeof w);
	w[5] = tile_arg_ptr(OUT, TILE_FP32); /* a pointer for a constexpr */
	CHECK_ST(tile_kernel_get_typed(m, "fill", w, 6, NULL, &k), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_MSG("BLOCK");
	memcpy(w, a, sizeof w);
	w[5] = tile_arg_u64(UINT64_MAX); /* a uint64 constexpr, as Triton types it: too long a tl.arange */
	CHECK_ST(tile_kernel_get_typed(m, "fill", w, 6, NULL, &k), TILE_ERROR_COMPILE);
	CHECK_MSG("18446744073709551615");
	memcpy(w, a, sizeof w);
	w[5] = tile_arg_dtype((tile_dtype)1000);
	CHECK_ST(tile_kernel_get_typed(m, "fill", w, 6, NULL, &k), TILE_ERROR_INVALID_ARGUMENT);
	memcpy(w, a, sizeof w);
	w[5] = tile_arg_str(NULL); /* was bound as "" */
	CHECK_ST(tile_kernel_get_typed(m, "fill", w, 6, NULL, &k), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_MSG("'BLOCK': the string is NULL");
	w[5] = tile_arg_name(NULL); /* was printed as '(null)' */
	CHECK_ST(tile_kernel_get_typed(m, "fill", w, 6, NULL, &k), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_MSG("'BLOCK': the name is NULL");
	memcpy(w, a, sizeof w);
	w[3] = tile_arg_str("x"); /* a string for a runtime parameter */
	CHECK_ST(tile_kernel_get_typed(m, "fill", w, 6, NULL, &k), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_MSG("'vf'");
	memcpy(w, a, sizeof w);
	w[0] = tile_arg_dltensor(NULL);
	CHECK_ST(tile_kernel_get_typed(m, "fill", w, 6, NULL, &k), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_MSG("NULL");
	CHECK(k == NULL);
}

/* ---- launches ---------------------------------------------------------------------------- */

static bool filled(float want)
{
	for (int i = 0; i < N; i++)
		if (OUT[i] != want)
			return false;
	return true;
}

static void launch_args(tile_arg a[5])
{
	a[0] = tile_arg_ptr(OUT, TILE_FP32);
	a[1] = tile_arg_i32(N);
	a[2] = tile_arg_i32(3);
	a[3] = tile_arg_f32(0.5f);
	a[4] = tile_arg_bool(0);
}

static void test_bad_launch(tile_context *ctx, tile_kernel *k)
{
	uint32_t grid[3] = {N / BLOCK, 1, 1};
	tile_arg a[5], w[5];
	launch_args(a);
	memset(OUT, 0, sizeof OUT);
	CHECK_ST(tile_launch(k, grid, a, 5, NULL), TILE_OK);
	CHECK(filled(3.5f));
	CHECK_ST(tile_launch(k, NULL, a, 5, NULL), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_ST(tile_launch(k, grid, NULL, 5, NULL), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_ST(tile_launch(k, grid, a, 0, NULL), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_ST(tile_launch(k, grid, a, 4, NULL), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_ST(tile_launch(k, grid, a, (size_t)-1, NULL), TILE_ERROR_INVALID_ARGUMENT);
	/* a NULL out: the message says so (tile_errmsg showed the error before) */
	CHECK_ST(tile_kernel_get_info(k, NULL), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_MSG("tile_kernel_get_info: kernel and out must not be NULL");
	/* scalars out of range of the parameter's dtype */
	static const struct {
		int slot;
		tile_arg arg;
		const char *msg;
	} bad[] = {
	        {1, {.kind = TILE_ARG_I64, .i64 = INT64_C(1) << 40}, "does not fit"},
	        {1, {.kind = TILE_ARG_U64, .u64 = UINT64_MAX}, "does not fit"},
	        {1, {.kind = TILE_ARG_U32, .u32 = UINT32_MAX}, "does not fit"},
	        {2, {.kind = TILE_ARG_I32, .i32 = 128}, "does not fit"},
	        {2, {.kind = TILE_ARG_I32, .i32 = -129}, "does not fit"},
	        {4, {.kind = TILE_ARG_I32, .i32 = 2}, "does not fit"},
	        {3, {.kind = TILE_ARG_I32, .i32 = 1}, "expected fp32"},
	        {1, {.kind = TILE_ARG_F32, .f32 = 1.0f}, "expected i32"},
	        {0, {.kind = TILE_ARG_I64, .i64 = 0}, "expected a pointer"},
	        {0, {.kind = TILE_ARG_NONE}, "expected a pointer"},
	        {1, {.kind = (tile_arg_kind)99}, "unknown kind"},
	        {0, {.kind = (tile_arg_kind)-7}, "unknown kind"},
	        {0, {.kind = TILE_ARG_PTR, .dtype = TILE_FP64, .ptr = OUT}, "pointer to fp64"},
	        {0, {.kind = TILE_ARG_PTR, .dtype = (tile_dtype)999, .ptr = OUT}, "unknown pointee dtype 999"},
	        {0, {.kind = TILE_ARG_PTR, .dtype = (tile_dtype)-3, .ptr = OUT}, "unknown pointee dtype -3"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		memcpy(w, a, sizeof w);
		w[bad[i].slot] = bad[i].arg;
		CHECK_ST(tile_launch(k, grid, w, 5, NULL), TILE_ERROR_INVALID_ARGUMENT);
		CHECK_MSG(bad[i].msg);
	}
	/* an fp32 parameter given a double beyond its range: inf, as a C cast would
	 * give on IEEE hardware, never undefined behaviour */
	memcpy(w, a, sizeof w);
	w[3] = tile_arg_f64(1e300);
	w[2] = tile_arg_i32(0);
	CHECK_ST(tile_launch(k, grid, w, 5, NULL), TILE_OK);
	CHECK(isinf(OUT[0]) && OUT[0] > 0);
	w[3] = tile_arg_f64(NAN);
	CHECK_ST(tile_launch(k, grid, w, 5, NULL), TILE_OK);
	CHECK(isnan(OUT[0]));
	/* the pointee dtype unspecified: not checked */
	memcpy(w, a, sizeof w);
	w[0] = tile_arg_ptr(OUT, TILE_DTYPE_UNSPECIFIED);
	CHECK_ST(tile_launch(k, grid, w, 5, NULL), TILE_OK);
	/* all parameters, with the constexpr wrong */
	tile_arg all[6];
	memcpy(all, a, sizeof a);
	all[5] = tile_arg_str("64");
	CHECK_ST(tile_launch(k, grid, all, 6, NULL), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_MSG("BLOCK");
	all[5] = tile_arg_str(NULL);
	CHECK_ST(tile_launch(k, grid, all, 6, NULL), TILE_ERROR_INVALID_ARGUMENT);
	all[5] = tile_arg_i64(BLOCK);
	CHECK_ST(tile_launch(k, grid, all, 6, NULL), TILE_OK);
}

static void test_grids(tile_context *ctx, tile_kernel *k)
{
	tile_arg a[5];
	launch_args(a);
	/* an empty grid runs nothing (Triton's launcher skips it) */
	static const uint32_t empty[][3] = {{0, 1, 1}, {1, 0, 1}, {1, 1, 0}, {0, 0, 0}};
	for (size_t i = 0; i < sizeof empty / sizeof *empty; i++) {
		memset(OUT, 0, sizeof OUT);
		CHECK_ST(tile_launch(k, empty[i], a, 5, NULL), TILE_OK);
		CHECK(filled(0.0f));
	}
	/* more program instances than int32 program ids can count: refused */
	static const uint32_t huge[][3] = {{UINT32_MAX, 1, 1}, {1, 0x80000000u, 1}, {1, 1, UINT32_MAX}};
	for (size_t i = 0; i < sizeof huge / sizeof *huge; i++) {
		CHECK_ST(tile_launch(k, huge[i], a, 5, NULL), TILE_ERROR_LAUNCH);
		CHECK_MSG("too large");
	}
	/* the same grids through the thunk, which takes them as raw values */
	void (*fn)(void) = NULL;
	CHECK_ST(tile_kernel_thunk(k, &fn), TILE_OK);
	if (!fn)
		return;
	typedef int (*fill_fn)(void *, int32_t, int8_t, float, uint8_t, uint32_t, uint32_t, uint32_t, void *);
	fill_fn f = (fill_fn)fn;
	for (size_t i = 0; i < sizeof empty / sizeof *empty; i++) {
		memset(OUT, 0, sizeof OUT);
		CHECK(f(OUT, N, 3, 0.5f, 0, empty[i][0], empty[i][1], empty[i][2], NULL) == TILE_OK);
		CHECK(filled(0.0f));
	}
	for (size_t i = 0; i < sizeof huge / sizeof *huge; i++) {
		CHECK(f(OUT, N, 3, 0.5f, 0, huge[i][0], huge[i][1], huge[i][2], NULL) == TILE_ERROR_LAUNCH);
		CHECK_MSG("too large");
	}
	CHECK(f(OUT, N, 3, 0.5f, 0, N / BLOCK, 1, 1, NULL) == TILE_OK);
	CHECK(filled(3.5f));
}

/* cuda-emu runs the program a GPU would: it refuses the grids a GPU refuses
 * (y and z at most 65535), rather than run what the GPU would not */
static void test_emu_grid(void)
{
	tile_context_options o = {0};
	o.target = "cuda-emu";
	o.disable_cache = 1;
	tile_context *ctx = NULL;
	tile_module *m = NULL;
	tile_kernel *k = NULL;
	CHECK_ST(tile_context_create(&ctx, &o), TILE_OK);
	CHECK_ST(tile_module_load_source(ctx, "fill.tile", src, (size_t)-1, &m), TILE_OK);
	CHECK_ST(tile_kernel_get(m, "fill", "*fp32:16,i32,i8,fp32,i1,64", NULL, &k), TILE_OK);
	if (k) {
		tile_arg a[5];
		launch_args(a);
		static const uint32_t bad[][3] = {{1, 65536, 1}, {1, 1, 70000}, {0x80000000u, 1, 1}};
		for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
			CHECK_ST(tile_launch(k, bad[i], a, 5, NULL), TILE_ERROR_LAUNCH);
			CHECK_MSG("out of range");
		}
		uint32_t grid[3] = {N / BLOCK, 1, 1};
		memset(OUT, 0, sizeof OUT);
		CHECK_ST(tile_launch(k, grid, a, 5, NULL), TILE_OK);
		CHECK(filled(3.5f));
	}
	tile_kernel_destroy(k);
	tile_module_destroy(m);
	tile_context_destroy(ctx);
}

static void test_bad_dlpack(tile_context *ctx, tile_kernel *k)
{
	uint32_t grid[3] = {N / BLOCK, 1, 1};
	tile_arg a[5];
	launch_args(a);
	int64_t shape[1] = {N};
	int64_t neg_stride[1] = {-1};
	DLTensor good = {OUT, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, NULL, 0};
	a[0] = tile_arg_dltensor(&good);
	CHECK_ST(tile_launch(k, grid, a, 5, NULL), TILE_OK);
	/* strides are the kernel's business (it takes them as arguments, as in
	 * Triton): a non-contiguous or negative-stride tensor passes its data pointer */
	DLTensor t = good;
	t.strides = neg_stride;
	a[0] = tile_arg_dltensor(&t);
	CHECK_ST(tile_launch(k, grid, a, 5, NULL), TILE_OK);
	/* a 0-d tensor is one element */
	t = good;
	t.ndim = 0;
	t.shape = NULL;
	CHECK_ST(tile_launch(k, grid, a, 5, NULL), TILE_OK);
	/* byte_offset moving the pointer off the 16-byte alignment the kernel assumes */
	t = good;
	t.byte_offset = 4;
	CHECK_ST(tile_launch(k, grid, a, 5, NULL), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_MSG("16-byte");
	/* byte_offset wrapping the address space */
	t = good;
	t.byte_offset = UINT64_MAX - 15;
	CHECK_ST(tile_launch(k, grid, a, 5, NULL), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_MSG("byte_offset");
	/* huge shapes whose element count overflows */
	int64_t huge[3] = {INT64_MAX / 2, 4, 0};
	t = good;
	t.ndim = 2;
	t.shape = huge;
	CHECK_ST(tile_launch(k, grid, a, 5, NULL), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_MSG("64 bits");
	/* more dimensions than NumPy's 64 (an uninitialized ndim): refused before
	 * its shape is read; reading INT32_MAX dimensions ran off the array */
	int64_t ones[65];
	for (int i = 0; i < 65; i++)
		ones[i] = i == 0 ? N : 1;
	t = good;
	t.shape = ones;
	t.ndim = 64;
	CHECK_ST(tile_launch(k, grid, a, 5, NULL), TILE_OK);
	t.ndim = 65;
	CHECK_ST(tile_launch(k, grid, a, 5, NULL), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_MSG("more than 64 dimensions");
	t.ndim = INT32_MAX;
	CHECK_ST(tile_launch(k, grid, a, 5, NULL), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_MSG("more than 64 dimensions");
	t = good;
	t.ndim = 2;
	t.shape = huge;
	/* the same with a last dimension of 0: empty, as {0, 2^62, 4} is */
	t.ndim = 3;
	CHECK_ST(tile_launch(k, grid, a, 5, NULL), TILE_OK);
	/* an empty tensor may have no data, and still a byte_offset */
	int64_t none[1] = {0};
	t = good;
	t.data = NULL;
	t.shape = none;
	t.byte_offset = 64;
	uint32_t one[3] = {1, 1, 1};
	tile_arg e[5];
	launch_args(e);
	e[0] = tile_arg_dltensor(&t);
	e[1] = tile_arg_i32(0);
	CHECK_ST(tile_launch(k, one, e, 5, NULL), TILE_OK);
		int64_t zhuge[3] = {0, INT64_MAX, INT64_MAX};
	t = good;
	t.ndim = 3;
	t.shape = zhuge; /* zero elements: fine, the kernel may not touch it */
	CHECK_ST(tile_launch(k, grid, a, 5, NULL), TILE_OK);
	/* dtypes tile cannot take, and one that mismatches */
	static const DLDataType dts[] = {{kDLFloat, 8, 1}, {kDLComplex, 64, 1}, {kDLOpaqueHandle, 64, 1},
	                                 {kDLFloat, 32, 0}, {kDLInt, 7, 1},     {kDLBfloat, 32, 1}};
	for (size_t i = 0; i < sizeof dts / sizeof *dts; i++) {
		t = good;
		t.dtype = dts[i];
		CHECK_ST(tile_launch(k, grid, a, 5, NULL), TILE_ERROR_INVALID_ARGUMENT);
		CHECK_MSG("dtype");
	}
	/* a vector dtype is named as such (its code and bits are fine) */
	static const uint16_t lanes[] = {0, 2, 4, 65535};
	for (size_t i = 0; i < sizeof lanes / sizeof *lanes; i++) {
		t = good;
		t.dtype.lanes = lanes[i];
		CHECK_ST(tile_launch(k, grid, a, 5, NULL), TILE_ERROR_INVALID_ARGUMENT);
		CHECK_MSG("lanes != 1");
	}
	t = good;
	t.dtype = (DLDataType){kDLInt, 32, 1};
	CHECK_ST(tile_launch(k, grid, a, 5, NULL), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_MSG("pointer to i32");
	/* devices the host cannot address */
	static const DLDeviceType devs[] = {kDLCUDA, kDLOpenCL, kDLVulkan, kDLMetal, kDLROCM,
	                                    kDLExtDev, kDLOneAPI, kDLWebGPU, kDLHexagon, (DLDeviceType)99};
	for (size_t i = 0; i < sizeof devs / sizeof *devs; i++) {
		t = good;
		t.device.device_type = devs[i];
		CHECK_ST(tile_launch(k, grid, a, 5, NULL), TILE_ERROR_INVALID_ARGUMENT);
		CHECK_MSG("host");
	}
	/* host-accessible memory of other kinds is fine on the CPU, and a DLDevice
	 * left zero-initialized is not checked */
	static const DLDeviceType host_ok[] = {kDLCUDAHost, kDLCUDAManaged, kDLROCMHost, (DLDeviceType)0};
	for (size_t i = 0; i < sizeof host_ok / sizeof *host_ok; i++) {
		t = good;
		t.device.device_type = host_ok[i];
		CHECK_ST(tile_launch(k, grid, a, 5, NULL), TILE_OK);
	}
}

/* The memory a GPU launch can address, checked without a GPU: tile runs
 * kernels on CUDA device 0 with no peer access, so kDLCUDA memory of another
 * device_id is refused (it was taken, and faulted on the GPU); pinned and
 * managed memory is addressable whatever its device_id. */
static void test_dlpack_device_id(void)
{
	static float data[4];
	int64_t n4[1] = {4};
	DLTensor t = {data, {kDLCUDA, 0}, 1, {kDLFloat, 32, 1}, n4, NULL, 0};
	CHECK(api_dltensor_problem(&t, 1) == NULL);
	t.device.device_id = 1;
	const char *why = api_dltensor_problem(&t, 1);
	CHECK(why && strstr(why, "device_id != 0") && strstr(why, "device 0"));
	t.device.device_id = -1;
	CHECK(api_dltensor_problem(&t, 1) != NULL);
	why = api_dltensor_problem(&t, 0); /* on the host it is GPU memory first */
	CHECK(why && strstr(why, "runs on the host"));
	static const DLDeviceType anywhere[] = {kDLCUDAHost, kDLCUDAManaged};
	for (size_t i = 0; i < sizeof anywhere / sizeof *anywhere; i++) {
		t.device = (DLDevice){anywhere[i], 3};
		CHECK(api_dltensor_problem(&t, 1) == NULL);
		CHECK(api_dltensor_problem(&t, 0) == NULL);
	}
}

/* Heuristics reading a DLTensor with a dimension of size 0 see what torch
 * would: row-major strides count that dimension as 1 (torch.empty(3, 0,
 * 4).stride() is (4, 4, 1); they were 0), an empty tensor is contiguous
 * whatever its strides (was False), and row-major strides that overflow
 * 64 bits are an error (was signed overflow). */
static const char empty_src[] =
        "import triton\n"
        "import triton.language as tl\n"
        "@triton.heuristics({'S': lambda a: a['x'].stride(0), 'C': lambda a: a['x'].is_contiguous()})\n"
        "@triton.jit\n"
        "def e(x, out_ptr, S: tl.constexpr, C: tl.constexpr):\n"
        "    tl.store(out_ptr, S * 10 + C)\n";

static void test_empty_dlpack(tile_context *ctx)
{
	tile_module *m = NULL;
	CHECK_ST(tile_module_load_source(ctx, "empty.py", empty_src, sizeof empty_src - 1, &m), TILE_OK);
	if (!m)
		return;
	int64_t shape[3] = {3, 0, 4}, strides[3] = {4, 4, 1};
	int64_t wide[3] = {0, INT64_C(1) << 62, 4};
	DLTensor t = {OUT, {kDLCPU, 0}, 3, {kDLFloat, 32, 1}, shape, NULL, 0};
	int64_t out = 0;
	const int64_t *shapes[3] = {shape, shape, wide};
	const int64_t *strd[3] = {NULL, strides, NULL};
	for (int c = 0; c < 3; c++) {
		t.shape = (int64_t *)shapes[c];
		t.strides = (int64_t *)strd[c];
		tile_arg a[2] = {tile_arg_dltensor(&t), tile_arg_ptr(&out, TILE_I64)};
		tile_kernel *k = NULL;
		if (c == 2) {
			CHECK_ST(tile_kernel_get_typed(m, "e", a, 2, NULL, &k), TILE_ERROR_INVALID_ARGUMENT);
			CHECK_MSG("argument 'x': a row-major stride of the DLTensor");
			continue;
		}
		CHECK_ST(tile_kernel_get_typed(m, "e", a, 2, NULL, &k), TILE_OK);
		if (!k)
			continue;
		uint32_t grid[3] = {1, 1, 1};
		out = 0;
		CHECK_ST(tile_launch(k, grid, a, 2, NULL), TILE_OK);
		CHECK(out == 41);
		tile_kernel_destroy(k);
	}
	tile_module_destroy(m);
}

/* ---- NULL pointers on the host --------------------------------------------------- */

/* A NULL pointer is refused where the kernel reads or writes through it (it
 * would fault and kill the process), however the address gets there, and
 * taken where the code never accesses it (an optional pointer whose uses a
 * constexpr folded away, a pointer only compared). */
static const char null_src[] =
        "import triton\n"
        "import triton.language as tl\n"
        "@triton.jit\n"
        "def opt(out_ptr, bias_ptr, n, HAS_BIAS: tl.constexpr, BLOCK: tl.constexpr):\n"
        "    offs = tl.arange(0, BLOCK)\n"
        "    x = tl.zeros([BLOCK], tl.float32) + 1.0\n"
        "    if HAS_BIAS:\n"
        "        x += tl.load(bias_ptr + offs, mask=offs < n)\n"
        "    tl.store(out_ptr + offs, x, mask=offs < n)\n"
        "@triton.jit\n"
        "def carried(out_ptr, src_ptr, n, BLOCK: tl.constexpr):\n"
        "    p = src_ptr\n"
        "    acc = tl.zeros([BLOCK], tl.float32)\n"
        "    for i in range(0, n, BLOCK):\n"
        "        acc += tl.load(p + tl.arange(0, BLOCK))\n"
        "        p += BLOCK\n"
        "    tl.store(out_ptr + tl.arange(0, BLOCK), acc)\n"
        "@triton.jit\n"
        "def swapped(out_ptr, src_ptr, n, BLOCK: tl.constexpr):\n"
        "    q = out_ptr\n"
        "    r = src_ptr\n"
        "    i = 0\n"
        "    while i < n:\n"
        "        q, r = r, q\n"
        "        i += 1\n"
        "    tl.store(q + tl.arange(0, BLOCK), tl.zeros([BLOCK], tl.float32))\n"
        "@triton.jit\n"
        "def as_int(out_ptr, src_ptr, BLOCK: tl.constexpr):\n"
        "    p = (src_ptr.to(tl.int64) + 0).to(tl.pointer_type(tl.float32))\n"
        "    tl.store(out_ptr + tl.arange(0, BLOCK), tl.load(p + tl.arange(0, BLOCK)))\n"
        "@triton.jit\n"
        "def tests_null(out_ptr, spare_ptr):\n"
        "    tl.store(out_ptr, (spare_ptr.to(tl.int64) == 0).to(tl.float32))\n"
        "@triton.jit\n"
        "def tup(ptrs, BLOCK: tl.constexpr):\n"
        "    offs = tl.arange(0, BLOCK)\n"
        "    tl.store(ptrs[0] + offs, tl.load(ptrs[1] + offs) + 1)\n";

/* Launches kernel `name` of m (signature sig) with a[], expecting want; a
 * refusal names the kernel and `arg`. */
static void null_case(tile_context *ctx, tile_module *m, const char *name, const char *sig,
                      tile_arg *a, size_t n, tile_status want, const char *arg)
{
	tile_kernel *k = NULL;
	uint32_t one[3] = {1, 1, 1};
	CHECK_ST(tile_kernel_get(m, name, sig, NULL, &k), TILE_OK);
	if (!k)
		return;
	CHECK_ST(tile_launch(k, one, a, n, NULL), want);
	if (want != TILE_OK) {
		char who[96];
		snprintf(who, sizeof who, "kernel '%s', argument '%s': the pointer is NULL", name, arg);
		CHECK_MSG(who);
	}
	tile_kernel_destroy(k);
}

static void test_null_pointers(tile_context *ctx)
{
	tile_module *m = NULL;
	CHECK_ST(tile_module_load_source(ctx, "null.py", null_src, (size_t)-1, &m), TILE_OK);
	if (!m)
		return;
	static _Alignas(64) float out[64], src2[64];
	tile_arg a[3] = {tile_arg_ptr(out, TILE_FP32), tile_arg_ptr(NULL, TILE_FP32), tile_arg_i32(64)};
	/* the optional pointer: taken while HAS_BIAS folds its load away */
	memset(out, 0, sizeof out);
	null_case(ctx, m, "opt", "*fp32:16,*fp32,i32,0,64", a, 3, TILE_OK, NULL);
	CHECK(out[0] == 1.0f && out[63] == 1.0f);
	null_case(ctx, m, "opt", "*fp32:16,*fp32,i32,1,64", a, 3, TILE_ERROR_INVALID_ARGUMENT, "bias_ptr");
	/* masked off (n = 0) the load may not run, but a raw pointer has no size
	 * to say so: refused all the same */
	a[2] = tile_arg_i32(0);
	null_case(ctx, m, "opt", "*fp32:16,*fp32,i32,1,64", a, 3, TILE_ERROR_INVALID_ARGUMENT, "bias_ptr");
	/* an empty DLTensor may have NULL data: taken */
	int64_t zero[1] = {0};
	DLTensor empty = {NULL, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, zero, NULL, 0};
	a[1] = tile_arg_dltensor(&empty);
	null_case(ctx, m, "opt", "*fp32:16,*fp32,i32,1,64", a, 3, TILE_OK, NULL);
	a[0] = tile_arg_ptr(NULL, TILE_FP32);
	a[1] = tile_arg_ptr(src2, TILE_FP32);
	a[2] = tile_arg_i32(64);
	null_case(ctx, m, "opt", "*fp32,*fp32,i32,1,64", a, 3, TILE_ERROR_INVALID_ARGUMENT, "out_ptr");
	/* through the thunk, which takes raw values */
	tile_kernel *k = NULL;
	CHECK_ST(tile_kernel_get(m, "opt", "*fp32:16,*fp32,i32,1,64", NULL, &k), TILE_OK);
	void (*fn)(void) = NULL;
	if (k && tile_kernel_thunk(k, &fn) == TILE_OK) {
		typedef int (*opt_fn)(void *, void *, int32_t, uint32_t, uint32_t, uint32_t, void *);
		CHECK(((opt_fn)fn)(out, NULL, 64, 1, 1, 1, NULL) == TILE_ERROR_INVALID_ARGUMENT);
		CHECK_MSG("kernel 'opt', argument 'bias_ptr': the pointer is NULL");
		CHECK(((opt_fn)fn)(out, src2, 64, 1, 1, 1, NULL) == TILE_OK);
	}
	tile_kernel_destroy(k);
	/* the address reaches the access through a loop-carried value, values
	 * swapped in a while loop, a round trip through an integer */
	a[0] = tile_arg_ptr(out, TILE_FP32);
	a[1] = tile_arg_ptr(NULL, TILE_FP32);
	a[2] = tile_arg_i32(64);
	null_case(ctx, m, "carried", "*fp32,*fp32,i32,16", a, 3, TILE_ERROR_INVALID_ARGUMENT, "src_ptr");
	null_case(ctx, m, "swapped", "*fp32,*fp32,i32,16", a, 3, TILE_ERROR_INVALID_ARGUMENT, "src_ptr");
	a[2] = tile_arg_i32(16);
	null_case(ctx, m, "as_int", "*fp32,*fp32,16", a, 3, TILE_ERROR_INVALID_ARGUMENT, "src_ptr");
	/* compared, never accessed: taken */
	out[0] = 0;
	null_case(ctx, m, "tests_null", "*fp32,*fp32", a, 2, TILE_OK, NULL);
	CHECK(out[0] == 1.0f);
	/* a tuple's pointer element */
	tile_arg elems[2] = {tile_arg_ptr(out, TILE_FP32), tile_arg_ptr(NULL, TILE_FP32)};
	tile_tuple t = {elems, 2};
	tile_arg all[2] = {tile_arg_tuple(&t), tile_arg_i64(16)};
	null_case(ctx, m, "tup", "(*fp32,*fp32),16", all, 2, TILE_ERROR_INVALID_ARGUMENT, "ptrs");
	/* a bad DLTensor in a tuple is named by its element, when the kernel is
	 * got for the arguments and when it is launched */
	int64_t n16[1] = {16};
	DLTensor gpu = {src2, {kDLCUDA, 0}, 1, {kDLFloat, 32, 1}, n16, NULL, 0}, neg = gpu;
	int64_t minus[1] = {-1};
	neg.device.device_type = kDLCPU;
	neg.shape = minus;
	elems[1] = tile_arg_dltensor(&neg);
	tile_kernel *kt = NULL;
	CHECK_ST(tile_kernel_get_typed(m, "tup", all, 2, NULL, &kt), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_MSG("argument 'ptrs': element 2 of the tuple: the DLTensor has a negative dimension");
	elems[1] = tile_arg_dltensor(&gpu);
	uint32_t one[3] = {1, 1, 1};
	CHECK_ST(tile_kernel_get(m, "tup", "(*fp32,*fp32),16", NULL, &kt), TILE_OK);
	if (kt) {
		CHECK_ST(tile_launch(kt, one, all, 2, NULL), TILE_ERROR_INVALID_ARGUMENT);
		CHECK_MSG("kernel 'tup', argument 'ptrs': element 2 of the tuple: the DLTensor is in GPU memory");
		tile_kernel_destroy(kt);
	}
	/* a DLTensor for a constexpr is called what it is */
	tile_arg cx[2] = {tile_arg_tuple(&t), tile_arg_dltensor(&gpu)};
	CHECK_ST(tile_kernel_get_typed(m, "tup", cx, 2, NULL, &kt), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_MSG("constexpr parameter 'BLOCK' needs a constant (int, float, bool, None, str or dtype), not a DLTensor");
	tile_module_destroy(m);
}

/* A host tensor descriptor from a DLTensor: its strides become kernel
 * arguments, so absurd ones are refused, never overflowed. */
static const char desc_src[] = "import triton\n"
                               "import triton.language as tl\n"
                               "@triton.jit\n"
                               "def k(a_desc, B: tl.constexpr):\n"
                               "    a_desc.store([0, 0], a_desc.load([0, 0]) + 1)\n";

static void test_bad_descriptor(tile_context *ctx)
{
	tile_module *m = NULL;
	tile_kernel *k = NULL;
	CHECK_ST(tile_module_load_source(ctx, "desc.tile", desc_src, (size_t)-1, &m), TILE_OK);
	CHECK_ST(tile_kernel_get(m, "k", "tensordesc<fp32[8, 8]>,8", NULL, &k), TILE_OK);
	if (k) {
		static _Alignas(64) float a[64];
		int64_t shape[2] = {8, 8}, strides[2] = {8, 1};
		DLTensor t = {a, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, shape, strides, 0};
		tile_arg args[2] = {tile_arg_dltensor(&t), tile_arg_i32(8)};
		uint32_t grid[3] = {1, 1, 1};
		CHECK_ST(tile_launch(k, grid, args, 2, NULL), TILE_OK);
		CHECK(a[0] == 1.0f && a[63] == 1.0f);
		static const int64_t lead[] = {INT64_MAX, INT64_MIN, -16, INT64_MAX / 4 + 12};
		for (size_t i = 0; i < sizeof lead / sizeof *lead; i++) {
			strides[0] = lead[i];
			CHECK_ST(tile_launch(k, grid, args, 2, NULL), TILE_ERROR_INVALID_ARGUMENT);
			CHECK_MSG("stride");
		}
		strides[0] = 8;
		int64_t big[2] = {INT64_C(1) << 31, 8};
		t.shape = big;
		CHECK_ST(tile_launch(k, grid, args, 2, NULL), TILE_ERROR_INVALID_ARGUMENT);
		CHECK_MSG("too large");
		t.shape = shape;
		t.ndim = 1;
		CHECK_ST(tile_launch(k, grid, args, 2, NULL), TILE_ERROR_INVALID_ARGUMENT);
		CHECK_MSG("rank");
		t.ndim = 2;
		args[0] = tile_arg_ptr(a, TILE_FP32);
		CHECK_ST(tile_launch(k, grid, args, 2, NULL), TILE_ERROR_INVALID_ARGUMENT);
		CHECK_MSG("DLTensor");
		/* the runtime-arguments form (base, shapes, strides) and the thunk
		 * keep the stride contract too: a row of 9 fp32 (36 bytes) or a
		 * negative stride was taken, and 16-byte vectors over it fault on a GPU */
		tile_arg flat[4] = {tile_arg_ptr(a, TILE_FP32), tile_arg_i32(8), tile_arg_i32(8), tile_arg_i64(8)};
		CHECK_ST(tile_launch(k, grid, flat, 4, NULL), TILE_OK);
		flat[3] = tile_arg_i64(9);
		CHECK_ST(tile_launch(k, grid, flat, 4, NULL), TILE_ERROR_INVALID_ARGUMENT);
		CHECK_MSG("leading stride 0 of the tensor descriptor is 9 elements, not a multiple of 16 bytes");
		flat[3] = tile_arg_i64(-8);
		CHECK_ST(tile_launch(k, grid, flat, 4, NULL), TILE_ERROR_INVALID_ARGUMENT);
		CHECK_MSG("negative");
		void (*raw)(void) = NULL;
		CHECK_ST(tile_kernel_thunk(k, &raw), TILE_OK);
		if (raw) {
			int (*fn)(void *, int32_t, int32_t, int64_t, uint32_t, uint32_t, uint32_t, void *) =
			        (int (*)(void *, int32_t, int32_t, int64_t, uint32_t, uint32_t, uint32_t, void *))raw;
			CHECK(fn(a, 8, 8, 10, 1, 1, 1, NULL) == TILE_ERROR_INVALID_ARGUMENT);
			CHECK_MSG("not a multiple of 16 bytes");
			CHECK(fn(a, 8, 8, 8, 1, 1, 1, NULL) == TILE_OK);
		}
	}
	tile_kernel_destroy(k);
	tile_module_destroy(m);
}

/* tile_arg_tensordesc: the kernel specialized from the descriptor (its block
 * shape and element type, uint8 data viewed as another type), launched with
 * all parameters; a block shape other than the one compiled, a bad block and
 * a rank mismatch are errors. */
static void test_typed_descriptor(tile_context *ctx)
{
	tile_module *m = NULL;
	tile_kernel *k = NULL;
	CHECK_ST(tile_module_load_source(ctx, "desc2.tile", desc_src, (size_t)-1, &m), TILE_OK);
	static _Alignas(64) float a[64];
	int64_t shape[2] = {8, 8};
	DLTensor t = {a, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, shape, NULL, 0};
	tile_tensordesc d = {&t, TILE_DTYPE_UNSPECIFIED, 2, {8, 8}};
	tile_arg args[2] = {tile_arg_tensordesc(&d), tile_arg_i32(8)};
	CHECK_ST(tile_kernel_get_typed(m, "k", args, 2, NULL, &k), TILE_OK);
	if (k) {
		uint32_t grid[3] = {1, 1, 1};
		CHECK_ST(tile_launch(k, grid, args, 2, NULL), TILE_OK);
		CHECK(a[0] == 1.0f && a[63] == 1.0f);
		d.block_shape[1] = 4; /* not what k was compiled for */
		CHECK_ST(tile_launch(k, grid, args, 2, NULL), TILE_ERROR_INVALID_ARGUMENT);
		CHECK_MSG("block shape");
		d.block_shape[1] = 8;
	}
	tile_kernel_destroy(k);
	k = NULL;
	d.block_shape[0] = 6;
	CHECK_ST(tile_kernel_get_typed(m, "k", args, 2, NULL, &k), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_MSG("power of two");
	d.block_shape[0] = 8;
	d.block_rank = 1;
	CHECK_ST(tile_kernel_get_typed(m, "k", args, 2, NULL, &k), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_MSG("dimensions");
	d.block_rank = 2;
	/* bf16 data held as uint16: the descriptor's dtype names the elements */
	static _Alignas(64) uint16_t h[64];
	DLTensor th = {h, {kDLCPU, 0}, 2, {kDLUInt, 16, 1}, shape, NULL, 0};
	tile_tensordesc dh = {&th, TILE_BF16, 2, {8, 8}};
	tile_arg hargs[2] = {tile_arg_tensordesc(&dh), tile_arg_i32(8)};
	CHECK_ST(tile_kernel_get_typed(m, "k", hargs, 2, NULL, &k), TILE_OK);
	if (k) {
		uint32_t grid[3] = {1, 1, 1};
		CHECK_ST(tile_launch(k, grid, hargs, 2, NULL), TILE_OK);
		CHECK(h[0] == 0x3f80 && h[63] == 0x3f80); /* bf16 1.0 */
		/* the same element type over a tensor of other width: the kernel
		 * moved 8x8 bf16 through 8x8 bytes, past the tensor's end */
		static _Alignas(64) uint8_t narrow[128];
		DLTensor tn = {narrow, {kDLCPU, 0}, 2, {kDLUInt, 8, 1}, shape, NULL, 0};
		dh.tensor = &tn;
		CHECK_ST(tile_launch(k, grid, hargs, 2, NULL), TILE_ERROR_INVALID_ARGUMENT);
		CHECK_MSG("is 16 bits, its tensor's elements (u8) 8");
		CHECK(narrow[64] == 0);
		dh.tensor = &th;
	}
	tile_kernel_destroy(k);
	k = NULL;
	/* a view wider than the tensor's elements is refused when specializing:
	 * fp64 over fp32 read and wrote twice the tensor's bytes */
	d.dtype = TILE_FP64;
	CHECK_ST(tile_kernel_get_typed(m, "k", args, 2, NULL, &k), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_MSG("element type fp64 is 64 bits, its tensor's elements (fp32) 32");
	d.dtype = TILE_I32; /* the same width: a view of the bits */
	CHECK_ST(tile_kernel_get_typed(m, "k", args, 2, NULL, &k), TILE_OK);
	tile_kernel_destroy(k);
	tile_module_destroy(m);
}

/* ---- threads ------------------------------------------------------------------------------ */

typedef struct Job {
	tile_kernel *k;
	int idx;
	int bad; /* launch with a wrong argument */
	int errors;
} Job;

static void *hammer(void *arg)
{
	Job *j = arg;
	static _Alignas(64) float scratch[8][N];
	uint32_t grid[3] = {N / BLOCK, 1, 1};
	tile_arg a[5];
	launch_args(a);
	a[0] = tile_arg_ptr(scratch[j->idx & 7], TILE_FP32);
	if (j->bad)
		a[1] = tile_arg_i64(INT64_C(1) << 40);
	for (int r = 0; r < 200; r++)
		if (tile_launch(j->k, grid, a, 5, NULL) != TILE_OK)
			j->errors++;
	return NULL;
}

/* Launches of one kernel from several threads, half of them failing: the
 * failures record their message on the context concurrently. */
static void test_threads(tile_context *ctx, tile_kernel *k)
{
	enum { T = 6 };
	pthread_t th[T];
	Job jobs[T];
	for (int t = 0; t < T; t++) {
		jobs[t] = (Job){k, t, t & 1, 0};
		pthread_create(&th[t], NULL, hammer, &jobs[t]);
	}
	for (int t = 0; t < T; t++) {
		pthread_join(th[t], NULL);
		CHECK(jobs[t].errors == (t & 1 ? 200 : 0));
	}
	CHECK_MSG("'n'");
}

/* ---- lifetimes --------------------------------------------------------------------------- */

/* The context destroyed first: what was made from it is released afterwards
 * (the context is freed with the last of them). */
static void test_destroy_order(void)
{
	for (int order = 0; order < 3; order++) {
		tile_context *ctx = make_ctx();
		CHECK(ctx != NULL);
		if (!ctx)
			return;
		tile_module *m = NULL;
		tile_kernel *k = NULL;
		tile_buffer *b = NULL;
		CHECK_ST(tile_module_load_source(ctx, "fill.tile", src, (size_t)-1, &m), TILE_OK);
		CHECK_ST(tile_kernel_get(m, "fill", "*fp32:16,i32,i8,fp32,i1,64", NULL, &k), TILE_OK);
		CHECK_ST(tile_buffer_alloc(ctx, N * sizeof(float), &b), TILE_OK);
		void (*fn)(void) = NULL;
		CHECK_ST(tile_kernel_thunk(k, &fn), TILE_OK);
		tile_context_destroy(ctx);
		ctx = NULL;
		if (order == 0) {
			tile_module_destroy(m);
			tile_kernel_destroy(k);
			tile_buffer_free(b);
		} else if (order == 1) {
			tile_kernel_destroy(k);
			tile_buffer_free(b);
			tile_module_destroy(m);
		} else {
			tile_buffer_free(b);
			tile_module_destroy(m);
			tile_kernel_destroy(k);
		}
	}
	/* a kernel used after its module and context are gone: still valid until destroyed */
	tile_context *ctx = make_ctx();
	tile_module *m = NULL;
	tile_kernel *k = NULL;
	CHECK_ST(tile_module_load_source(ctx, "fill.tile", src, (size_t)-1, &m), TILE_OK);
	CHECK_ST(tile_kernel_get(m, "fill", "*fp32:16,i32,i8,fp32,i1,64", NULL, &k), TILE_OK);
	tile_module_destroy(m);
	tile_context_destroy(ctx);
	ctx = NULL;
	if (k) {
		uint32_t grid[3] = {N / BLOCK, 1, 1};
		tile_arg a[5];
		launch_args(a);
		memset(OUT, 0, sizeof OUT);
		CHECK(tile_launch(k, grid, a, 5, NULL) == TILE_OK);
		CHECK(filled(3.5f));
		a[1] = tile_arg_f32(1.0f);
		CHECK(tile_launch(k, grid, a, 5, NULL) == TILE_ERROR_INVALID_ARGUMENT);
	}
	tile_kernel_destroy(k);
}

int main(void)
{
	test_null_handles();
	test_bad_options();
	test_destroy_order();
	test_emu_grid();
	test_dlpack_device_id();
	tile_context *ctx = make_ctx();
	CHECK(ctx != NULL);
	if (!ctx)
		return 1;
	test_bad_sources(ctx);
	test_bad_buffers(ctx);
	tile_module *m = NULL;
	CHECK_ST(tile_module_load_source(ctx, "fill.tile", src, (size_t)-1, &m), TILE_OK);
	if (m) {
		test_bad_signatures(ctx, m);
		test_bad_typed(ctx, m);
		tile_kernel *k = NULL;
		CHECK_ST(tile_kernel_get(m, "fill", "*fp32:16,i32,i8,fp32,i1,64", NULL, &k), TILE_OK);
		if (k) {
			test_bad_launch(ctx, k);
			test_grids(ctx, k);
			test_bad_dlpack(ctx, k);
			test_threads(ctx, k);
		}
		test_bad_descriptor(ctx);
		test_typed_descriptor(ctx);
		test_many_params(ctx);
		test_null_pointers(ctx);
		test_empty_dlpack(ctx);
		tile_kernel_destroy(k);
	}
	tile_module_destroy(m);
	tile_context_destroy(ctx);
	if (failures)
		fprintf(stderr, "test_api_hostile: %d check(s) failed\n", failures);
	return failures ? 1 : 0;
}

/* test_api.c: the public C API (include/tile.h) on the CPU target.
 *
 * Errors (status codes, messages naming the parameter, source offsets),
 * handle lifetimes, specialization lookup, typed specialization, launches
 * in both argument modes, thunks giving the same results as tile_launch, and
 * concurrent launches of one kernel. */
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tile.h"

static int failures;

#include "api_checks.h"

static const char src[] = "import triton\n"
                          "import triton.language as tl\n"
                          "\n"
                          "@triton.jit\n"
                          "def axpy(x_ptr, y_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):\n"
                          "    pid = tl.program_id(0)\n"
                          "    offs = pid * BLOCK + tl.arange(0, BLOCK)\n"
                          "    mask = offs < n\n"
                          "    x = tl.load(x_ptr + offs, mask=mask)\n"
                          "    y = tl.load(y_ptr + offs, mask=mask)\n"
                          "    tl.store(out_ptr + offs, alpha * x + y, mask=mask)\n";

static const char bad_src[] = "import triton.language as tl\n"
                              "@triton.jit\n"
                              "def k(x_ptr):\n"
                              "    y = = 1\n";

enum { N = 1000, BLOCK = 128 };

/* n floats, 64-byte aligned (aligned_alloc wants a multiple of the alignment) */
static float *falloc(size_t n) { return aligned_alloc(64, (n * sizeof(float) + 63) & ~(size_t)63); }
static _Alignas(64) float X[N], Y[N];

/* ---- pure functions ----------------------------------------------------------------- */

static void test_static(void)
{
	CHECK(strcmp(tile_version(), TILE_VERSION_STRING) == 0);
	CHECK(tile_version_number() == TILE_VERSION_NUMBER);
	CHECK(TILE_VERSION_NUMBER ==
	      TILE_VERSION_MAJOR * 10000 + TILE_VERSION_MINOR * 100 + TILE_VERSION_PATCH);
	for (int a = TILE_OK; a <= TILE_ERROR_NOMEM; a++) {
		CHECK(tile_status_string((tile_status)a) != NULL);
		for (int b = TILE_OK; b < a; b++)
			CHECK(strcmp(tile_status_string((tile_status)a),
			             tile_status_string((tile_status)b)) != 0);
	}
	CHECK(strcmp(tile_status_string(TILE_OK), "ok") == 0);
	CHECK(strcmp(tile_status_string((tile_status)999), "unknown status") == 0);
	CHECK(strcmp(tile_dtype_name(TILE_FP32), "fp32") == 0);
	/* destroy(NULL) is a no-op everywhere */
	tile_context_destroy(NULL);
	tile_module_destroy(NULL);
	tile_kernel_destroy(NULL);
	tile_buffer_free(NULL);
	CHECK(tile_errmsg(NULL)[0] != 0);
	CHECK(tile_error_offset(NULL) == -1);
	tile_arg a = tile_arg_i64(-5);
	CHECK(a.kind == TILE_ARG_I64 && a.i64 == -5);
	a = tile_arg_ptr(X, TILE_FP32);
	CHECK(a.kind == TILE_ARG_PTR && a.ptr == X && a.dtype == TILE_FP32);
}

static void test_context_errors(void)
{
	tile_context *ctx = (tile_context *)1;
	tile_context_options o = {0};
	char why[256] = "";
	o.target = "no-such-target";
	o.errbuf = why;
	o.errbuf_size = sizeof why;
	CHECK(tile_context_create(&ctx, &o) == TILE_ERROR_TARGET);
	CHECK(ctx == NULL);
	CHECK(strstr(why, "no-such-target") != NULL);
	CHECK(tile_context_create(NULL, NULL) == TILE_ERROR_INVALID_ARGUMENT);
}

/* ---- with a context ------------------------------------------------------------------- */

typedef struct DiagLog {
	int count;
	int offset;
	char first[256];
} DiagLog;

static void on_diag(void *user, const tile_diagnostic *d)
{
	DiagLog *l = user;
	if (l->count++ == 0) {
		snprintf(l->first, sizeof l->first, "%s", d->rendered);
		l->offset = d->offset;
	}
}

static void test_load_errors(tile_context *ctx, DiagLog *log)
{
	tile_module *m = (tile_module *)1;
	CHECK_ST(tile_module_load_source(ctx, "bad.tile", bad_src, (size_t)-1, &m),
	         TILE_ERROR_COMPILE);
	CHECK(m == NULL);
	CHECK_MSG("bad.tile:4:");
	CHECK_MSG("error:");
	int off = tile_error_offset(ctx);
	CHECK(off > 0 && off < (int)strlen(bad_src));
	CHECK(log->count >= 1);
	CHECK(strstr(log->first, "bad.tile:4:") != NULL);
	CHECK_ST(tile_module_load_file(ctx, "/nonexistent/dir/k.tile", &m), TILE_ERROR_IO);
	CHECK_MSG("/nonexistent/dir/k.tile");
	CHECK_ST(tile_module_load_file(ctx, NULL, &m), TILE_ERROR_INVALID_ARGUMENT);
}

static void test_kernel_errors(tile_context *ctx, tile_module *m)
{
	tile_kernel *k = (tile_kernel *)1;
	CHECK_ST(tile_kernel_get(m, "nope", "", NULL, &k), TILE_ERROR_NOT_FOUND);
	CHECK(k == NULL);
	CHECK_MSG("nope");
	CHECK_MSG("axpy"); /* lists what there is */
	CHECK_ST(tile_kernel_get(m, "axpy", "*fp32,*fp32", NULL, &k), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_MSG("out_ptr"); /* the first parameter without an entry */
	CHECK_ST(tile_kernel_get(m, "axpy", "*fp32,*fp32,*fp32,fp32,i32,*fp32", NULL, &k),
	         TILE_ERROR_INVALID_ARGUMENT);
	CHECK_MSG("BLOCK");
	CHECK_ST(tile_kernel_get(m, "axpy", "*fp32,*fp32,*fp32,fp32,i32,128,7", NULL, &k),
	         TILE_ERROR_INVALID_ARGUMENT);
	tile_kernel_options o = {0};
	o.target = "bogus";
	CHECK_ST(tile_kernel_get(m, "axpy", "*fp32,*fp32,*fp32,fp32,i32,128", &o, &k),
	         TILE_ERROR_TARGET);
	const tile_param_info *p;
	int np;
	CHECK_ST(tile_module_kernel_params(m, "axpy", &p, &np), TILE_OK);
	CHECK(np == 6 && strcmp(p[0].name, "x_ptr") == 0 && p[5].is_constexpr &&
	      !p[0].is_constexpr);
	CHECK(tile_module_num_kernels(m) == 1 &&
	      strcmp(tile_module_kernel_name(m, 0), "axpy") == 0);
	CHECK(tile_module_kernel_name(m, 1) == NULL);
}

static bool result_ok(const float *out, float alpha)
{
	for (int i = 0; i < N; i++)
		if (fabsf(out[i] - (alpha * X[i] + Y[i])) > 1e-4f)
			return false;
	return true;
}

static void test_launch_errors(tile_context *ctx, tile_kernel *k, float *out)
{
	uint32_t grid[3] = {(N + BLOCK - 1) / BLOCK, 1, 1};
	tile_arg a[6] = {tile_arg_ptr(X, TILE_FP32),
	                 tile_arg_ptr(Y, TILE_FP32),
	                 tile_arg_ptr(out, TILE_FP32),
	                 tile_arg_f32(2.0f),
	                 tile_arg_i32(N),
	                 tile_arg_i32(BLOCK)};
	CHECK_ST(tile_launch(k, grid, a, 3, NULL), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_MSG("5");
	tile_arg w[5];
	memcpy(w, a, sizeof w);
	w[1] = tile_arg_i32(3);
	CHECK_ST(tile_launch(k, grid, w, 5, NULL), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_MSG("'y_ptr'");
	memcpy(w, a, sizeof w);
	w[0] = tile_arg_ptr((char *)X + 4, TILE_FP32); /* not 16-byte aligned */
	CHECK_ST(tile_launch(k, grid, w, 5, NULL), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_MSG("'x_ptr'");
	CHECK_MSG("16");
	memcpy(w, a, sizeof w);
	w[2] = tile_arg_ptr(out, TILE_FP16);
	CHECK_ST(tile_launch(k, grid, w, 5, NULL), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_MSG("'out_ptr'");
	memcpy(w, a, sizeof w);
	w[3] = tile_arg_i32(2);
	CHECK_ST(tile_launch(k, grid, w, 5, NULL), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_MSG("'alpha'");
	tile_arg all[6];
	memcpy(all, a, sizeof all);
	all[5] = tile_arg_i32(64); /* constexpr differs from the specialization */
	CHECK_ST(tile_launch(k, grid, all, 6, NULL), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_MSG("BLOCK");
	CHECK_ST(tile_launch(NULL, grid, a, 5, NULL), TILE_ERROR_INVALID_ARGUMENT);
}

static void test_launch(tile_context *ctx, tile_kernel *k)
{
	float *out = falloc(N), *out2 = falloc(N);
	uint32_t grid[3] = {(N + BLOCK - 1) / BLOCK, 1, 1};
	tile_arg a[6] = {tile_arg_ptr(X, TILE_FP32),
	                 tile_arg_ptr(Y, TILE_FP32),
	                 tile_arg_ptr(out, TILE_FP32),
	                 tile_arg_f32(2.0f),
	                 tile_arg_i32(N),
	                 tile_arg_i32(BLOCK)};
	memset(out, 0, sizeof(float) * N);
	CHECK_ST(tile_launch(k, grid, a, 5, NULL), TILE_OK); /* runtime arguments only */
	CHECK(result_ok(out, 2.0f));
	memset(out, 0, sizeof(float) * N);
	CHECK_ST(tile_launch(k, grid, a, 6, NULL), TILE_OK); /* all parameters */
	CHECK(result_ok(out, 2.0f));
	test_launch_errors(ctx, k, out);

	/* the thunk computes what tile_launch computes */
	typedef int (*fn_t)(void *, void *, void *, float, int32_t, uint32_t, uint32_t, uint32_t,
	                    void *);
	void (*raw)(void) = NULL, (*raw2)(void) = NULL;
	CHECK_ST(tile_kernel_thunk(k, &raw), TILE_OK);
	CHECK_ST(tile_kernel_thunk(k, &raw2), TILE_OK);
	CHECK(raw != NULL && raw == raw2);
	if (raw) {
		fn_t fn = (fn_t)raw;
		memset(out2, 0, sizeof(float) * N);
		CHECK(fn(X, Y, out2, 2.0f, N, grid[0], 1, 1, NULL) == TILE_OK);
		CHECK(memcmp(out, out2, sizeof(float) * N) == 0);
		/* and checks the specialization: a misaligned pointer for :16 */
		CHECK(fn((char *)X + 4, Y, out2, 2.0f, N, grid[0], 1, 1, NULL) ==
		      TILE_ERROR_INVALID_ARGUMENT);
		CHECK_MSG("'x_ptr'");
	}
	free(out);
	free(out2);
}

static void test_typed(tile_context *ctx, tile_module *m, tile_kernel *by_sig)
{
	float *out = falloc(N);
	memset(out, 0, sizeof(float) * N);
	tile_arg a[6] = {tile_arg_ptr(X, TILE_FP32),
	                 tile_arg_ptr(Y, TILE_FP32),
	                 tile_arg_ptr(out, TILE_FP32),
	                 tile_arg_f32(-1.5f),
	                 tile_arg_i32(N),
	                 tile_arg_i32(BLOCK)};
	tile_kernel *k = NULL;
	CHECK_ST(tile_kernel_get_typed(m, "axpy", a, 6, NULL, &k), TILE_OK);
	if (!k)
		return;
	/* X, Y, out 16-byte aligned, N % 16 == 8: the same specialization as by_sig */
	CHECK(k == by_sig);
	tile_kernel_info info;
	CHECK_ST(tile_kernel_get_info(k, &info), TILE_OK);
	CHECK(info.num_params == 6 && info.num_runtime_args == 5 && strcmp(info.name, "axpy") == 0);
	CHECK(info.registers == -1 && info.spill_bytes == -1); /* GPU numbers only */
	CHECK(strcmp(tile_kernel_param_name(k, 5), "BLOCK") == 0);
	CHECK(!tile_kernel_param_is_runtime(k, 5) && tile_kernel_param_is_runtime(k, 0));
	uint32_t grid[3] = {(N + BLOCK - 1) / BLOCK, 1, 1};
	CHECK_ST(tile_launch(k, grid, a, 6, NULL), TILE_OK);
	CHECK(result_ok(out, -1.5f));
	tile_kernel_destroy(k);

	tile_arg bad[6];
	memcpy(bad, a, sizeof bad);
	bad[5] = tile_arg_ptr(X, TILE_FP32);
	CHECK_ST(tile_kernel_get_typed(m, "axpy", bad, 6, NULL, &k), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_MSG("BLOCK");
	bad[5] = a[5];
	bad[0] = tile_arg_ptr(X, TILE_DTYPE_UNSPECIFIED);
	CHECK_ST(tile_kernel_get_typed(m, "axpy", bad, 6, NULL, &k), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_MSG("x_ptr");
	CHECK_ST(tile_kernel_get_typed(m, "axpy", a, 4, NULL, &k), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_MSG("n");
	free(out);
}

static const char print_src[] = "import triton\n"
                                "import triton.language as tl\n"
                                "@triton.jit\n"
                                "def show(x_ptr, BLOCK: tl.constexpr):\n"
                                "    x = tl.load(x_ptr + tl.arange(0, BLOCK))\n"
                                "    tl.device_print(\"val\", x)\n"
                                "    tl.device_assert(x < 100.0, \"too big\")\n"
                                "@triton.jit\n"
                                "def grid2():\n"
                                "    r = tl.arange(0, 4)[:, None] * 4 + tl.arange(0, 4)[None, :]\n"
                                "    tl.device_print(\"m\", r, hex=True)\n"
                                "    tl.device_print(\"two\", r, r * 10)\n";

typedef struct PrintLog {
	pthread_mutex_t mu;
	int lines;
	bool saw_val, saw_coord, saw_operand;
} PrintLog;

static void on_print(void *user, const char *text, size_t len)
{
	PrintLog *l = user;
	pthread_mutex_lock(&l->mu);
	l->lines++;
	if (memmem(text, len, "val", 3))
		l->saw_val = true;
	/* element (2, 1) of a 4x4 tile holding 9: its coordinates and hex=True
	 * (zero-padded to the int32's 8 digits, as Triton prints it) */
	if (memmem(text, len, "idx (2, 1) m: 0x00000009\n", 25))
		l->saw_coord = true;
	/* a print of several values labels each, as Triton does */
	if (memmem(text, len, "idx (2, 1) two: (operand 1) 90\n", 31))
		l->saw_operand = true;
	pthread_mutex_unlock(&l->mu);
}

/* device_print reaches the host's callback; a failed device_assert fails the launch. */
/* Kernels defined in classes (static methods, as kakaobrain's trident writes
 * them): named Class.name, two classes' `fwd` kept apart by the in-memory
 * table and the disk cache, a helper and a constant reached through a base. */
static const char class_src[] = "import triton\n"
                                "import triton.language as tl\n"
                                "\n"
                                "class Base:\n"
                                "    K = 3.0\n"
                                "\n"
                                "    @staticmethod\n"
                                "    @triton.jit\n"
                                "    def twice(x):\n"
                                "        return x * 2.0\n"
                                "\n"
                                "class A(Base):\n"
                                "    @staticmethod\n"
                                "    @triton.jit\n"
                                "    def fwd(x_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
                                "        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                                "        x = tl.load(x_ptr + offs, mask=offs < n)\n"
                                "        tl.store(out_ptr + offs, A.twice(x) + A.K, mask=offs < n)\n"
                                "\n"
                                "class B:\n"
                                "    @staticmethod\n"
                                "    @triton.jit\n"
                                "    def fwd(x_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
                                "        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                                "        x = tl.load(x_ptr + offs, mask=offs < n)\n"
                                "        tl.store(out_ptr + offs, x - 1.0, mask=offs < n)\n";

static void run_class_kernels(tile_context *ctx)
{
	tile_module *m = NULL;
	CHECK_ST(tile_module_load_source(ctx, "classes.py", class_src, sizeof class_src - 1, &m), TILE_OK);
	if (!m)
		return;
	bool listed = false;
	for (int i = 0; i < tile_module_num_kernels(m); i++)
		listed |= strcmp(tile_module_kernel_name(m, i), "B.fwd") == 0;
	CHECK(listed);
	tile_kernel *ka = NULL, *kb = NULL, *none = NULL;
	const char *sig = "*fp32:16,*fp32:16,i32,128";
	CHECK_ST(tile_kernel_get(m, "A.fwd", sig, NULL, &ka), TILE_OK);
	CHECK_ST(tile_kernel_get(m, "B.fwd", sig, NULL, &kb), TILE_OK);
	CHECK_ST(tile_kernel_get(m, "fwd", sig, NULL, &none), TILE_ERROR_NOT_FOUND);
	CHECK(ka && kb && ka != kb);
	float *out = falloc(N);
	uint32_t grid[3] = {(N + BLOCK - 1) / BLOCK, 1, 1};
	tile_arg a[3] = {tile_arg_ptr(X, TILE_FP32), tile_arg_ptr(out, TILE_FP32), tile_arg_i32(N)};
	bool ok = true;
	if (ka) {
		CHECK_ST(tile_launch(ka, grid, a, 3, NULL), TILE_OK);
		for (int i = 0; i < N; i++)
			ok &= out[i] == X[i] * 2.0f + 3.0f;
	}
	if (kb) {
		CHECK_ST(tile_launch(kb, grid, a, 3, NULL), TILE_OK);
		for (int i = 0; i < N; i++)
			ok &= out[i] == X[i] - 1.0f;
	}
	CHECK(ok);
	if (ka) { /* messages name the kernel as the user does; the symbol stays Class_name */
		CHECK_ST(tile_launch(ka, grid, a, 2, NULL), TILE_ERROR_INVALID_ARGUMENT);
		CHECK_MSG("kernel 'A.fwd'");
		tile_kernel_info info;
		CHECK_ST(tile_kernel_get_info(ka, &info), TILE_OK);
		CHECK(strcmp(info.name, "A_fwd") == 0);
	}
	free(out);
	tile_kernel_destroy(ka);
	tile_kernel_destroy(kb);
	tile_module_destroy(m);
}

/* A constexpr bound to a @jit function: by name (tile_arg_name, as the host's
 * Python passes the function), or left to its default when that is one. */
static const char named_src[] = "import triton\n"
                                "import triton.language as tl\n"
                                "@triton.jit\n"
                                "def twice(x):\n"
                                "    return x * 2.0\n"
                                "@triton.jit\n"
                                "def neg(x):\n"
                                "    return -x\n"
                                "@triton.jit\n"
                                "def act(x_ptr, out_ptr, n, BLOCK: tl.constexpr, ACT: tl.constexpr = twice,\n"
                                "        K: tl.constexpr = 1.0):\n"
                                "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                                "    x = tl.load(x_ptr + offs, mask=offs < n)\n"
                                "    tl.store(out_ptr + offs, ACT(x) * K, mask=offs < n)\n";

static void test_named_constexpr(tile_context *ctx)
{
	tile_module *m = NULL;
	CHECK_ST(tile_module_load_source(ctx, "named.py", named_src, sizeof named_src - 1, &m), TILE_OK);
	if (!m)
		return;
	const tile_param_info *p = NULL;
	int np = 0;
	CHECK_ST(tile_module_kernel_params(m, "act", &p, &np), TILE_OK);
	CHECK(np == 6 && p[4].has_default); /* ACT's default is a @jit function */
	float *out = falloc(N);
	uint32_t grid[3] = {(N + BLOCK - 1) / BLOCK, 1, 1};
	tile_arg a[6] = {tile_arg_ptr(X, TILE_FP32), tile_arg_ptr(out, TILE_FP32), tile_arg_i32(N),
	                 tile_arg_i32(BLOCK), tile_arg_name("neg"), tile_arg_f64(3.0)};
	struct { int nargs; float mul; } cases[] = {{4, 2.0f}, {5, -1.0f}, {6, -3.0f}};
	for (int c = 0; c < 3; c++) {
		tile_kernel *k = NULL;
		CHECK_ST(tile_kernel_get_typed(m, "act", a, (size_t)cases[c].nargs, NULL, &k), TILE_OK);
		if (!k)
			continue;
		memset(out, 0, sizeof(float) * N);
		CHECK_ST(tile_launch(k, grid, a, 3, NULL), TILE_OK); /* the runtime arguments */
		bool ok = true;
		for (int i = 0; i < N; i++)
			ok &= out[i] == X[i] * cases[c].mul;
		CHECK(ok);
		/* all parameters: the launch checks a name as it checks constants, a
		 * default that names a function included */
		tile_arg all[6];
		memcpy(all, a, sizeof all);
		all[4] = tile_arg_name(cases[c].nargs == 4 ? "twice" : "neg");
		all[5] = tile_arg_f64(cases[c].nargs == 6 ? 3.0 : 1.0);
		CHECK_ST(tile_launch(k, grid, all, 6, NULL), TILE_OK);
		all[4] = tile_arg_name(cases[c].nargs == 4 ? "neg" : "twice");
		CHECK_ST(tile_launch(k, grid, all, 6, NULL), TILE_ERROR_INVALID_ARGUMENT);
		CHECK_MSG(cases[c].nargs == 4 ? "ACT=twice" : "ACT=neg");
		tile_kernel_destroy(k);
	}
	tile_kernel *k = NULL;
	a[4] = tile_arg_name("nosuch");
	CHECK_ST(tile_kernel_get_typed(m, "act", a, 5, NULL, &k), TILE_ERROR_COMPILE);
	CHECK_MSG("'nosuch' given for constexpr parameter 'ACT'");
	a[4] = tile_arg_name("neg(");
	CHECK_ST(tile_kernel_get_typed(m, "act", a, 5, NULL, &k), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_MSG("is not a (dotted) name");
	a[4] = tile_arg_name("neg");
	a[2] = tile_arg_name("neg");
	CHECK_ST(tile_kernel_get_typed(m, "act", a, 5, NULL, &k), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_MSG("parameter 'n' is not tl.constexpr: it cannot take a name");
	free(out);
	tile_module_destroy(m);
}

/* @triton.heuristics see the actual runtime arguments (Triton's launcher runs
 * them on each launch's values); the specialization is keyed on their results. */
static const char heur_src[] = "import triton\n"
                               "import triton.language as tl\n"
                               "@triton.heuristics({'EVEN': lambda args: args['n'] % args['BLOCK'] == 0})\n"
                               "@triton.jit\n"
                               "def h(x_ptr, out_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):\n"
                               "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                               "    x = tl.load(x_ptr + offs, mask=offs < n)\n"
                               "    tl.store(out_ptr + offs, x + (1.0 if EVEN else 2.0), mask=offs < n)\n";

static void test_heuristic_values(tile_context *ctx)
{
	tile_module *m = NULL;
	CHECK_ST(tile_module_load_source(ctx, "heur.py", heur_src, sizeof heur_src - 1, &m), TILE_OK);
	if (!m)
		return;
	float *out = falloc(N);
	int ns[3] = {2 * BLOCK, 2 * BLOCK - 3, 4 * BLOCK}; /* even, odd, even again */
	tile_kernel *k[3] = {NULL, NULL, NULL};
	for (int c = 0; c < 3; c++) {
		tile_arg a[4] = {tile_arg_ptr(X, TILE_FP32), tile_arg_ptr(out, TILE_FP32), tile_arg_i32(ns[c]),
		                 tile_arg_i32(BLOCK)};
		CHECK_ST(tile_kernel_get_typed(m, "h", a, 4, NULL, &k[c]), TILE_OK);
		if (!k[c])
			continue;
		memset(out, 0, sizeof(float) * N);
		uint32_t grid[3] = {(uint32_t)(ns[c] + BLOCK - 1) / BLOCK, 1, 1};
		CHECK_ST(tile_launch(k[c], grid, a, 3, NULL), TILE_OK);
		/* all parameters: None stands for what the heuristic computed */
		tile_arg all[5] = {a[0], a[1], a[2], a[3], tile_arg_none()};
		CHECK_ST(tile_launch(k[c], grid, all, 5, NULL), TILE_OK);
		all[4] = tile_arg_bool(ns[c] % BLOCK != 0);
		CHECK_ST(tile_launch(k[c], grid, all, 5, NULL), TILE_ERROR_INVALID_ARGUMENT);
		bool ok = true;
		for (int i = 0; i < ns[c]; i++)
			ok &= out[i] == X[i] + (ns[c] % BLOCK ? 2.0f : 1.0f);
		CHECK(ok);
	}
	CHECK(k[0] && k[1] && k[0] != k[1] && k[2] == k[0]);
	for (int c = 0; c < 3; c++)
		tile_kernel_destroy(k[c]);
	free(out);
	tile_module_destroy(m);
}

/* A heuristic's num_warps computed from a runtime argument's value is applied
 * (and keyed) by tile_kernel_get_typed, as Triton's launcher applies it; it
 * wins over the caller's option. */
static const char heur_warps_src[] = "import triton\n"
                                     "import triton.language as tl\n"
                                     "@triton.heuristics({'num_warps': lambda args: 8 if args['n'] > 512 else 2,\n"
                                     "                    'BLOCK': lambda args: triton.next_power_of_2(args['n'])})\n"
                                     "@triton.jit\n"
                                     "def w(x_ptr, n, BLOCK: tl.constexpr):\n"
                                     "    offs = tl.arange(0, BLOCK)\n"
                                     "    x = tl.load(x_ptr + offs, mask=offs < n)\n"
                                     "    tl.store(x_ptr + offs, x + 1.0, mask=offs < n)\n"
                                     "@triton.heuristics({'num_warps': lambda args: 1 if args['n'] < 128 else 16})\n"
                                     "@triton.jit\n"
                                     "def v(x_ptr, n, BLOCK: tl.constexpr):\n"
                                     "    w(x_ptr, n, BLOCK)\n";

static void test_heuristic_launch_options(tile_context *ctx)
{
	tile_module *m = NULL;
	CHECK_ST(tile_module_load_source(ctx, "heurw.py", heur_warps_src, sizeof heur_warps_src - 1, &m), TILE_OK);
	if (!m)
		return;
	float *x = falloc(N);
	int ns[3] = {N, 100, N - 1};
	int warps[3] = {8, 2, 8};
	tile_kernel *k[3] = {NULL, NULL, NULL};
	tile_kernel_options opt = {.num_warps = 4};
	for (int c = 0; c < 3; c++) {
		tile_arg a[2] = {tile_arg_ptr(x, TILE_FP32), tile_arg_i32(ns[c])};
		CHECK_ST(tile_kernel_get_typed(m, "w", a, 2, c == 2 ? &opt : NULL, &k[c]), TILE_OK);
		if (!k[c])
			continue;
		tile_kernel_info info;
		CHECK_ST(tile_kernel_get_info(k[c], &info), TILE_OK);
		CHECK(info.num_warps == warps[c]);
		memset(x, 0, sizeof(float) * N);
		uint32_t grid[3] = {1, 1, 1};
		CHECK_ST(tile_launch(k[c], grid, a, 2, NULL), TILE_OK);
		bool ok = true;
		for (int i = 0; i < N; i++)
			ok &= x[i] == (i < ns[c] ? 1.0f : 0.0f);
		CHECK(ok);
	}
	CHECK(k[0] && k[1] && k[0] != k[1]);
	for (int c = 0; c < 3; c++) {
		tile_kernel_destroy(k[c]);
		k[c] = NULL;
	}
	/* only a launch option depends on the values: v's parameters are all bound */
	for (int c = 0; c < 2; c++) {
		tile_arg a[3] = {tile_arg_ptr(x, TILE_FP32), tile_arg_i32(c ? 100 : N), tile_arg_i32(1024)};
		CHECK_ST(tile_kernel_get_typed(m, "v", a, 3, NULL, &k[c]), TILE_OK);
		tile_kernel_info info = {0};
		if (k[c])
			CHECK_ST(tile_kernel_get_info(k[c], &info), TILE_OK);
		CHECK(info.num_warps == (c ? 1 : 16));
	}
	CHECK(k[0] && k[1] && k[0] != k[1]);
	for (int c = 0; c < 2; c++)
		tile_kernel_destroy(k[c]);
	free(x);
	tile_module_destroy(m);
}

/* Triton's test_cache.py: how many specializations the launcher makes.
 * i in 1, 2, 4, 8, 16, 32 gives 3 (i == 1, i % 16 == 0, neither); with
 * do_not_specialize 1, with do_not_specialize_on_alignment 2 (i == 1 is still
 * folded); an annotated `i: tl.int32` is not folded when 1 (Triton's binder
 * keys it ("i32", 1) but compiles a runtime i32, as for 8 and 17: its
 * test_annotation's third cache entry is the same code), so 1, 8, 16, 17
 * make 2 here; a @jit function and a tuple of its arguments make one each. */
static const char spec_src[] = "import triton\n"
                               "import triton.language as tl\n"
                               "@triton.jit\n"
                               "def inc(i):\n"
                               "    return i + 1\n"
                               "@triton.jit\n"
                               "def kernel(X, i, BLOCK: tl.constexpr):\n"
                               "    tl.store(X, inc(i + 1))\n"
                               "@triton.jit(do_not_specialize=['i'])\n"
                               "def kernel_nospec(X, i, BLOCK: tl.constexpr):\n"
                               "    tl.store(X, inc(i + 1))\n"
                               "@triton.jit(do_not_specialize_on_alignment=['i'])\n"
                               "def kernel_nospec_on_alignment(X, i, BLOCK: tl.constexpr):\n"
                               "    tl.store(X, inc(i + 1))\n"
                               "@triton.jit\n"
                               "def kernel_ann(X, i: tl.int32):\n"
                               "    tl.store(X, i)\n"
                               "@triton.jit\n"
                               "def kernel_ann_wrap(X, i: tl.int32, j: tl.int64, k):\n"
                               "    tl.store(X, 2147483647 + i < 0)\n"
                               "    tl.store(X + 1, 9223372036854775807 + j < 0)\n"
                               "    tl.store(X + 2, 2147483647 + k < 0)\n"
                               "@triton.jit\n"
                               "def func1():\n"
                               "    return 1\n"
                               "@triton.jit\n"
                               "def func2():\n"
                               "    return 2\n"
                               "@triton.jit\n"
                               "def func3(x):\n"
                               "    return x\n"
                               "@triton.jit\n"
                               "def func4(x, y):\n"
                               "    return x + y\n"
                               "@triton.jit\n"
                               "def kernel_fn(Y, fn: tl.constexpr, fn_args):\n"
                               "    tl.store(Y, fn(*fn_args))\n"
                               "@triton.jit\n"
                               "def kernel_str(X, B: 'tl.constexpr'):\n"
                               "    tl.store(X + tl.arange(0, B), B)\n"
                               "@triton.jit\n"
                               "def kernel_nest(X, t):\n"
                               "    tl.static_assert(len(t[1][1]) == 0 and t[2] is None)\n"
                               "    tl.store(X, t[0][0] + t[0][1] * 10 + t[1][0] * 100)\n"
                               "@triton.jit(do_not_specialize=['t'])\n"
                               "def kernel_t(X, t):\n"
                               "    tl.store(X, t[0])\n"
                               "@triton.jit\n"
                               "def kernel_ct(X, C: tl.constexpr):\n"
                               "    tl.store(X, C[0] + C[1] * 10)\n";

/* Specializes `name` for each i (after X, before BLOCK = 512 when block) and
 * launches it; returns how many distinct kernels that made. */
static int count_specs(tile_context *ctx, tile_module *m, const char *name, const int *is, int n, bool block, int32_t *x)
{
	tile_kernel *k[8] = {NULL};
	int distinct = 0;
	for (int c = 0; c < n && c < 8; c++) {
		tile_arg a[3] = {tile_arg_ptr(x, TILE_I32), tile_arg_i32(is[c]), tile_arg_i32(512)};
		CHECK_ST(tile_kernel_get_typed(m, name, a, block ? 3 : 2, NULL, &k[c]), TILE_OK);
		if (!k[c])
			continue;
		uint32_t grid[3] = {1, 1, 1};
		*x = -1;
		CHECK_ST(tile_launch(k[c], grid, a, block ? 3 : 2, NULL), TILE_OK);
		CHECK(*x == is[c] + (block ? 2 : 0));
		bool seen = false;
		for (int j = 0; j < c; j++)
			seen |= k[j] == k[c];
		distinct += !seen;
	}
	for (int c = 0; c < n && c < 8; c++)
		tile_kernel_destroy(k[c]);
	return distinct;
}

static void test_specialization_counts(tile_context *ctx)
{
	tile_module *m = NULL;
	CHECK_ST(tile_module_load_source(ctx, "spec.py", spec_src, sizeof spec_src - 1, &m), TILE_OK);
	if (!m)
		return;
	_Alignas(16) int32_t y[8] = {0};
	int is[6] = {1, 2, 4, 8, 16, 32};
	CHECK(count_specs(ctx, m, "kernel", is, 6, true, y) == 3);
	CHECK(count_specs(ctx, m, "kernel_nospec", is, 6, true, y) == 1);
	CHECK(count_specs(ctx, m, "kernel_nospec_on_alignment", is, 6, true, y) == 2);
	int ann[4] = {1, 8, 16, 17};
	CHECK(count_specs(ctx, m, "kernel_ann", ann, 4, false, y) == 2);
	/* annotated i32/i64 equal to 1 are runtime values and wrap; the plain
	 * k = 1 is the constant 1 (a Python int: 2147483648, not negative) */
	{
		tile_arg a[4] = {tile_arg_ptr(y, TILE_I32), tile_arg_i32(1), tile_arg_i32(1), tile_arg_i32(1)};
		tile_kernel *kw = NULL;
		CHECK_ST(tile_kernel_get_typed(m, "kernel_ann_wrap", a, 4, NULL, &kw), TILE_OK);
		if (kw) {
			uint32_t grid[3] = {1, 1, 1};
			y[0] = y[1] = y[2] = -1;
			CHECK_ST(tile_launch(kw, grid, a, 4, NULL), TILE_OK);
			CHECK(y[0] == 1 && y[1] == 1 && y[2] == 0);
			tile_kernel_destroy(kw);
		}
	}
	/* fn(*fn_args): y[0], y[1], y[2], y[3], y[4] as Triton's test passes them */
	const char *fns[5] = {"func1", "func2", "func3", "func4", "func1"};
	tile_arg three = tile_arg_i32(3), three_four[2] = {tile_arg_i32(3), tile_arg_i32(4)};
	tile_tuple none = {NULL, 0}, one = {&three, 1}, two = {three_four, 2};
	const tile_tuple *targs[5] = {&none, &none, &one, &two, &none};
	tile_kernel *k[5] = {NULL};
	int distinct = 0;
	for (int c = 0; c < 5; c++) {
		tile_arg a[3] = {tile_arg_ptr(&y[c], TILE_I32), tile_arg_name(fns[c]), tile_arg_tuple(targs[c])};
		CHECK_ST(tile_kernel_get_typed(m, "kernel_fn", a, 3, NULL, &k[c]), TILE_OK);
		if (!k[c])
			continue;
		uint32_t grid[3] = {1, 1, 1};
		CHECK_ST(tile_launch(k[c], grid, a, 3, NULL), TILE_OK);
		bool seen = false;
		for (int j = 0; j < c; j++)
			seen |= k[j] == k[c];
		distinct += !seen;
	}
	CHECK(distinct == 4);
	CHECK(y[0] == 1 && y[1] == 2 && y[2] == 3 && y[3] == 7 && y[4] == 1);
	for (int c = 0; c < 5; c++)
		tile_kernel_destroy(k[c]);
	/* a tuple's elements are specialized even when the tuple is listed in
	 * do_not_specialize (test_specialize.py's reference): (1,) and (2,) differ */
	tile_arg e[2] = {tile_arg_i32(1), tile_arg_i32(2)};
	tile_tuple t1 = {&e[0], 1}, t2 = {&e[1], 1};
	tile_arg a1[2] = {tile_arg_ptr(y, TILE_I32), tile_arg_tuple(&t1)};
	tile_arg a2[2] = {tile_arg_ptr(y, TILE_I32), tile_arg_tuple(&t2)};
	CHECK_ST(tile_kernel_get_typed(m, "kernel_t", a1, 2, NULL, &k[0]), TILE_OK);
	CHECK_ST(tile_kernel_get_typed(m, "kernel_t", a2, 2, NULL, &k[1]), TILE_OK);
	CHECK(k[0] && k[1] && k[0] != k[1]);
	tile_kernel_destroy(k[0]);
	tile_kernel_destroy(k[1]);
	/* nested tuples, as Triton's launcher takes them (test_jit_paths.py's
	 * ((1, 1), (2, 1))): t = ((5, 1), (7, ()), None) has runtime elements 5,
	 * 1 (:1) and 7, launched flat or as the tuple */
	tile_arg in0[2] = {tile_arg_i32(5), tile_arg_i32(1)}, in1[2] = {tile_arg_i32(7), tile_arg_tuple(&none)};
	tile_tuple t0 = {in0, 2}, t1i = {in1, 2};
	tile_arg outer[3] = {tile_arg_tuple(&t0), tile_arg_tuple(&t1i), tile_arg_none()};
	tile_tuple tn = {outer, 3};
	tile_arg an[2] = {tile_arg_ptr(y, TILE_I32), tile_arg_tuple(&tn)};
	k[0] = NULL;
	CHECK_ST(tile_kernel_get_typed(m, "kernel_nest", an, 2, NULL, &k[0]), TILE_OK);
	if (k[0]) {
		tile_kernel_info info;
		CHECK_ST(tile_kernel_get_info(k[0], &info), TILE_OK);
		CHECK(info.num_runtime_args == 4);
		uint32_t grid[3] = {1, 1, 1};
		y[0] = 0;
		CHECK_ST(tile_launch(k[0], grid, an, 2, NULL), TILE_OK);
		CHECK(y[0] == 5 + 10 + 700);
		tile_arg flat[4] = {an[0], tile_arg_i32(6), tile_arg_i32(1), tile_arg_i32(8)};
		CHECK_ST(tile_launch(k[0], grid, flat, 4, NULL), TILE_OK);
		CHECK(y[0] == 6 + 10 + 800);
		t1i.len = 1; /* (7,) where the kernel has (7, ()) */
		CHECK_ST(tile_launch(k[0], grid, an, 2, NULL), TILE_ERROR_INVALID_ARGUMENT);
		CHECK_MSG("is a tuple of 2 elements there");
		t1i.len = 2;
		/* the constant leaves are checked as constexpr arguments are: None
		 * given 3, and () given (3,) are other specializations */
		tile_arg three_t = tile_arg_i32(3);
		tile_tuple t3 = {&three_t, 1};
		outer[2] = tile_arg_i32(3);
		CHECK_ST(tile_launch(k[0], grid, an, 2, NULL), TILE_ERROR_INVALID_ARGUMENT);
		CHECK_MSG("argument 't': element 3 of the tuple was specialized as None");
		outer[2] = tile_arg_none();
		in1[1] = tile_arg_tuple(&t3);
		CHECK_ST(tile_launch(k[0], grid, an, 2, NULL), TILE_ERROR_INVALID_ARGUMENT);
		CHECK_MSG("element 2 of a nested tuple was specialized as ()");
		in1[1] = tile_arg_tuple(&none);
		CHECK_ST(tile_launch(k[0], grid, an, 2, NULL), TILE_OK);
	}
	tile_kernel_destroy(k[0]);
	/* a constexpr tuple: an all-parameters launch gives the same constants again */
	tile_arg ce[2] = {tile_arg_i32(2), tile_arg_i32(3)};
	tile_tuple ct = {ce, 2};
	tile_arg ac[2] = {tile_arg_ptr(y, TILE_I32), tile_arg_tuple(&ct)};
	k[0] = NULL;
	CHECK_ST(tile_kernel_get_typed(m, "kernel_ct", ac, 2, NULL, &k[0]), TILE_OK);
	if (k[0]) {
		uint32_t grid[3] = {1, 1, 1};
		y[0] = 0;
		CHECK_ST(tile_launch(k[0], grid, ac, 2, NULL), TILE_OK);
		CHECK(y[0] == 32);
		ce[0] = tile_arg_i32(4);
		CHECK_ST(tile_launch(k[0], grid, ac, 2, NULL), TILE_ERROR_INVALID_ARGUMENT);
		CHECK_MSG("argument 'C': element 1 of the tuple was specialized as 2");
	}
	tile_kernel_destroy(k[0]);
	/* an annotation written as a string, "tl.constexpr" (Triton's test_jit.py),
	 * is a constexpr: B takes the value 4 and is no runtime argument */
	const tile_param_info *pi = NULL;
	int np = 0;
	CHECK_ST(tile_module_kernel_params(m, "kernel_str", &pi, &np), TILE_OK);
	CHECK(np == 2 && pi && pi[1].is_constexpr);
	tile_arg as[2] = {tile_arg_ptr(y, TILE_I32), tile_arg_i32(4)};
	k[0] = NULL;
	CHECK_ST(tile_kernel_get_typed(m, "kernel_str", as, 2, NULL, &k[0]), TILE_OK);
	if (k[0]) {
		uint32_t grid[3] = {1, 1, 1};
		memset(y, 0, sizeof y);
		CHECK_ST(tile_launch(k[0], grid, as, 1, NULL), TILE_OK);
		CHECK(y[0] == 4 && y[3] == 4 && y[4] == 0);
	}
	tile_kernel_destroy(k[0]);
	tile_module_destroy(m);
}

static void test_class_kernels(void)
{
	/* twice: without the disk cache, then with it (a fresh context per run,
	 * so the second context reads what the first wrote, if caching works) */
	for (int cached = 0; cached < 2; cached++) {
		for (int round = 0; round < 1 + cached; round++) {
			tile_context_options o = {0};
			o.target = "cpu";
			o.disable_cache = !cached;
			tile_context *ctx = NULL;
			CHECK_ST(tile_context_create(&ctx, &o), TILE_OK);
			if (!ctx)
				return;
			run_class_kernels(ctx);
			tile_context_destroy(ctx);
		}
	}
}

static void test_print_assert(void)
{
	PrintLog log = {PTHREAD_MUTEX_INITIALIZER, 0, false, false, false};
	tile_context_options o = {0};
	o.target = "cpu";
	o.disable_cache = 1;
	o.on_print = on_print;
	o.print_user = &log;
	tile_context *ctx = NULL;
	tile_module *m = NULL;
	tile_kernel *k = NULL;
	CHECK_ST(tile_context_create(&ctx, &o), TILE_OK);
	if (!ctx)
		return;
	CHECK_ST(tile_module_load_source(ctx, "show.tile", print_src, (size_t)-1, &m), TILE_OK);
	/* device_assert is kept with debug only, as in Triton (its semantic
	 * drops it otherwise) */
	tile_kernel_options dbg = {.debug = 1};
	tile_kernel *nodebug = NULL;
	if (m) {
		CHECK_ST(tile_kernel_get(m, "show", "*fp32:16,16", &dbg, &k), TILE_OK);
		CHECK_ST(tile_kernel_get(m, "show", "*fp32:16,16", NULL, &nodebug), TILE_OK);
	}
	if (k && nodebug) {
		_Alignas(16) float v[16] = {0};
		uint32_t grid[3] = {1, 1, 1};
		tile_arg a = tile_arg_ptr(v, TILE_FP32);
		CHECK_ST(tile_launch(k, grid, &a, 1, NULL), TILE_OK);
		CHECK(log.lines >= 16 && log.saw_val);
		v[3] = 1000.0f;
		CHECK_ST(tile_launch(k, grid, &a, 1, NULL), TILE_ERROR_LAUNCH);
		CHECK_MSG("too big");
		CHECK_ST(tile_launch(nodebug, grid, &a, 1, NULL), TILE_OK);
	}
	tile_kernel_destroy(nodebug);
	tile_kernel_destroy(k);
	k = NULL;
	if (m)
		CHECK_ST(tile_kernel_get(m, "grid2", "", NULL, &k), TILE_OK);
	if (k) {
		uint32_t grid[3] = {1, 1, 1};
		CHECK_ST(tile_launch(k, grid, NULL, 0, NULL), TILE_OK);
		CHECK(log.saw_coord && log.saw_operand);
	}
	tile_kernel_destroy(k);
	tile_module_destroy(m);
	tile_context_destroy(ctx);
}

/* A failed device_assert ends the program instance there, as a GPU's trap
 * ends the kernel: the store after it and the loop's later iterations do
 * not run (before, the CPU targets went on, and a spin loop whose only exit
 * was a timeout assert never ended). */
static const char assert_stop_src[] = "import triton\n"
                                      "import triton.language as tl\n"
                                      "@triton.jit\n"
                                      "def stop(x_ptr, out_ptr, n):\n"
                                      "    x = tl.load(x_ptr + tl.arange(0, 16))\n"
                                      "    tl.device_assert(x < 100.0, \"first\")\n"
                                      "    tl.store(out_ptr, 1.0)\n"
                                      "    for i in range(n):\n"
                                      "        tl.device_assert(i != 3, \"in loop\")\n"
                                      "        tl.store(out_ptr + 1, i.to(tl.float32))\n";

static void test_assert_stops(void)
{
	static const char *const targets[] = {"cpu", "cuda-emu"};
	for (int t = 0; t < 2; t++) {
		tile_context_options o = {0};
		o.target = targets[t];
		o.disable_cache = 1;
		tile_context *ctx = NULL;
		tile_module *m = NULL;
		tile_kernel *k = NULL;
		CHECK_ST(tile_context_create(&ctx, &o), TILE_OK);
		if (!ctx)
			continue;
		CHECK_ST(tile_module_load_source(ctx, "stop.py", assert_stop_src, (size_t)-1, &m), TILE_OK);
		if (m)
			CHECK_ST(tile_kernel_get(m, "stop", "*fp32:16,*fp32:16,i32", &(tile_kernel_options){.debug = 1}, &k),
			         TILE_OK);
		if (k) {
			_Alignas(16) float x[16] = {0}, out[4] = {0};
			uint32_t grid[3] = {1, 1, 1};
			tile_arg a[3] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(out, TILE_FP32), tile_arg_i32(10)};
			x[5] = 1000.0f;
			CHECK_ST(tile_launch(k, grid, a, 3, NULL), TILE_ERROR_LAUNCH);
			CHECK_MSG("first");
			CHECK(out[0] == 0.0f && out[1] == 0.0f); /* nothing after the failed assert ran */
			x[5] = 0.0f;
			CHECK_ST(tile_launch(k, grid, a, 3, NULL), TILE_ERROR_LAUNCH);
			CHECK_MSG("in loop");
			CHECK(out[0] == 1.0f && out[1] == 2.0f); /* iterations 0..2 stored, 3 stopped */
		}
		tile_kernel_destroy(k);
		tile_module_destroy(m);
		tile_context_destroy(ctx);
	}
}

/* Launches of one kernel made at once from several threads, some failing a
 * device_assert: each launch reports only its own failures. The pool's
 * assert count and first message used to be the context's, so a launch that
 * overlapped a failing one stopped early and returned the other's error. */
static const char assert_apart_src[] = "import triton\n"
                                       "import triton.language as tl\n"
                                       "@triton.jit\n"
                                       "def k(x_ptr, out_ptr, n):\n"
                                       "    pid = tl.program_id(0)\n"
                                       "    x = tl.load(x_ptr + pid)\n"
                                       "    tl.device_assert(x < 100.0, \"too big\")\n"
                                       "    acc = x\n"
                                       "    for i in range(n):\n"
                                       "        acc = acc * 0.5 + 1.0\n"
                                       "    tl.store(out_ptr + pid, acc)\n";

enum { APART_G = 64, APART_ROUNDS = 40 };

typedef struct ApartJob {
	tile_kernel *k;
	bool fails;
	int errors;
	bool whole; /* every launch that did not fail stored every program's result */
	_Alignas(16) float x[APART_G];
	_Alignas(16) float out[APART_G];
} ApartJob;

static void *launch_apart(void *arg)
{
	ApartJob *j = arg;
	uint32_t grid[3] = {APART_G, 1, 1};
	tile_arg a[3] = {tile_arg_ptr(j->x, TILE_FP32), tile_arg_ptr(j->out, TILE_FP32),
	                 tile_arg_i32(2000)};
	j->whole = true;
	for (int r = 0; r < APART_ROUNDS; r++) {
		for (int i = 0; i < APART_G; i++)
			j->x[i] = j->fails && i == 0 ? 1000.0f : 1.0f, j->out[i] = -1.0f;
		if (tile_launch(j->k, grid, a, 3, NULL) != TILE_OK)
			j->errors++;
		else
			for (int i = 0; i < APART_G; i++)
				j->whole &= j->out[i] > 1.9f && j->out[i] <= 2.0f;
	}
	return NULL;
}

static void test_assert_apart(void)
{
	tile_context_options o = {0};
	o.target = "cpu";
	o.disable_cache = 1;
	o.num_threads = 2;
	tile_context *ctx = NULL;
	tile_module *m = NULL;
	tile_kernel *k = NULL;
	CHECK_ST(tile_context_create(&ctx, &o), TILE_OK);
	if (ctx)
		CHECK_ST(tile_module_load_source(ctx, "apart.py", assert_apart_src, (size_t)-1, &m), TILE_OK);
	if (m)
		CHECK_ST(tile_kernel_get(m, "k", "*fp32:16,*fp32:16,i32", &(tile_kernel_options){.debug = 1}, &k),
		         TILE_OK);
	if (k) {
		enum { T = 4 };
		static ApartJob jobs[T];
		pthread_t th[T];
		for (int t = 0; t < T; t++) {
			jobs[t].k = k;
			jobs[t].fails = t % 2 == 0;
			jobs[t].errors = 0;
			pthread_create(&th[t], NULL, launch_apart, &jobs[t]);
		}
		for (int t = 0; t < T; t++) {
			pthread_join(th[t], NULL);
			if (jobs[t].errors != (jobs[t].fails ? APART_ROUNDS : 0))
				fprintf(stderr, "launches from thread %d: %d errors (%s)\n", t, jobs[t].errors, tile_errmsg(ctx));
			CHECK(jobs[t].errors == (jobs[t].fails ? APART_ROUNDS : 0));
			CHECK(jobs[t].fails || jobs[t].whole);
		}
	}
	tile_kernel_destroy(k);
	tile_module_destroy(m);
	tile_context_destroy(ctx);
}

/* A failed device_assert ends the whole grid, as a GPU's trap does: the
 * CPU launcher starts no program instance after it (before, it ran the
 * rest of the grid). On one thread the grid runs in order, so exactly the
 * instances before the failing one have stored. */
static const char grid_stop_src[] = "import triton\n"
                                    "import triton.language as tl\n"
                                    "@triton.jit\n"
                                    "def gstop(out_ptr, bad):\n"
                                    "    pid = tl.program_id(0)\n"
                                    "    tl.device_assert(pid != bad, \"bad pid\")\n"
                                    "    tl.store(out_ptr + pid, 1.0)\n";

static void test_assert_stops_grid(void)
{
	tile_context_options o = {0};
	o.target = "cpu";
	o.disable_cache = 1;
	o.num_threads = 1;
	tile_context *ctx = NULL;
	tile_module *m = NULL;
	tile_kernel *k = NULL;
	CHECK_ST(tile_context_create(&ctx, &o), TILE_OK);
	if (!ctx)
		return;
	CHECK_ST(tile_module_load_source(ctx, "gstop.py", grid_stop_src, (size_t)-1, &m), TILE_OK);
	if (m)
		CHECK_ST(tile_kernel_get(m, "gstop", "*fp32:16,i32", &(tile_kernel_options){.debug = 1}, &k), TILE_OK);
	if (k) {
		enum { NOUT = 64 };
		_Alignas(16) float out[NOUT] = {0};
		uint32_t grid[3] = {NOUT, 1, 1};
		tile_arg a[2] = {tile_arg_ptr(out, TILE_FP32), tile_arg_i32(5)};
		CHECK_ST(tile_launch(k, grid, a, 2, NULL), TILE_ERROR_LAUNCH);
		CHECK_MSG("bad pid");
		int stored = 0;
		for (int i = 0; i < NOUT; i++)
			stored += out[i] == 1.0f;
		CHECK(stored == 5 && out[4] == 1.0f && out[5] == 0.0f && out[NOUT - 1] == 0.0f);
		memset(out, 0, sizeof out);
		a[1] = tile_arg_i32(-1); /* nothing fails: the next launch runs the whole grid */
		CHECK_ST(tile_launch(k, grid, a, 2, NULL), TILE_OK);
		CHECK(out[0] == 1.0f && out[NOUT - 1] == 1.0f);
	}
	tile_kernel_destroy(k);
	tile_module_destroy(m);
	tile_context_destroy(ctx);
}

/* A heuristic reads a DLTensor argument's shape and strides (elements; NULL
 * strides are row-major), as Triton's see the tensor; the specialization is
 * keyed on the results. A plain pointer has no shape: an error that says so. */
static const char shape_src[] = "import triton\n"
                                "import triton.language as tl\n"
                                "@triton.heuristics({'R': lambda a: a['x'].shape[0] * 1000 + a['x'].stride(0)})\n"
                                "@triton.jit\n"
                                "def s(x, out_ptr, R: tl.constexpr):\n"
                                "    tl.store(out_ptr, R)\n";

static void test_heuristic_shape(tile_context *ctx)
{
	tile_module *m = NULL;
	CHECK_ST(tile_module_load_source(ctx, "shape.py", shape_src, sizeof shape_src - 1, &m), TILE_OK);
	if (!m)
		return;
	int64_t shape[2] = {3, 4}, strides[2] = {8, 1};
	DLTensor t = {X, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, shape, NULL, 0};
	int32_t out = 0;
	tile_kernel *k[2] = {NULL, NULL};
	int32_t want[2] = {3004, 3008};
	for (int c = 0; c < 2; c++) {
		t.strides = c ? strides : NULL;
		tile_arg a[2] = {tile_arg_dltensor(&t), tile_arg_ptr(&out, TILE_I32)};
		CHECK_ST(tile_kernel_get_typed(m, "s", a, 2, NULL, &k[c]), TILE_OK);
		if (!k[c])
			continue;
		uint32_t grid[3] = {1, 1, 1};
		CHECK_ST(tile_launch(k[c], grid, a, 2, NULL), TILE_OK);
		CHECK(out == want[c]);
	}
	CHECK(k[0] && k[1] && k[0] != k[1]);
	tile_arg p[2] = {tile_arg_ptr(X, TILE_FP32), tile_arg_ptr(&out, TILE_I32)};
	tile_kernel *kp = NULL;
	CHECK_ST(tile_kernel_get_typed(m, "s", p, 2, NULL, &kp), TILE_ERROR_COMPILE);
	CHECK(strstr(tile_errmsg(ctx), "needs the shape of tensor argument 'x'") != NULL);
	for (int c = 0; c < 2; c++)
		tile_kernel_destroy(k[c]);
	tile_module_destroy(m);
}

/* tile_kernel_get runs early_config_prune on what the signature gives (n
 * given as a constant), as Triton's Autotuner prunes before it benchmarks; a
 * pruner reading a runtime value keeps the first config. */
static const char sigprune_src[] =
        "import triton\n"
        "import triton.language as tl\n"
        "def prune(configs, named_args, **kw):\n"
        "    return [c for c in configs if c.kwargs['B'] <= named_args['n']]\n"
        "@triton.autotune(configs=[triton.Config({'B': 64}), triton.Config({'B': 8})], key=['n'],\n"
        "                 prune_configs_by={'early_config_prune': prune})\n"
        "@triton.jit\n"
        "def p(out_ptr, n, B: tl.constexpr):\n"
        "    tl.store(out_ptr, B)\n";

static void test_signature_prune(tile_context *ctx)
{
	tile_module *m = NULL;
	CHECK_ST(tile_module_load_source(ctx, "sigprune.py", sigprune_src, sizeof sigprune_src - 1, &m), TILE_OK);
	if (!m)
		return;
	const char *sigs[2] = {"*i32,16", "*i32,i32"};
	int32_t want[2] = {8, 64};
	for (int c = 0; c < 2; c++) {
		tile_kernel *k = NULL;
		CHECK_ST(tile_kernel_get(m, "p", sigs[c], NULL, &k), TILE_OK);
		if (!k)
			continue;
		int32_t out = 0;
		tile_arg a[2] = {tile_arg_ptr(&out, TILE_I32), tile_arg_i32(16)};
		uint32_t grid[3] = {1, 1, 1};
		CHECK_ST(tile_launch(k, grid, a, c ? 2 : 1, NULL), TILE_OK);
		CHECK(out == want[c]);
		tile_kernel_destroy(k);
	}
	tile_module_destroy(m);
}

/* A DLTensor passes data + byte_offset, with its dtype checked. */
static void test_dlpack(tile_context *ctx, tile_kernel *k)
{
	float *out = falloc((N + 16));
	int64_t shape[1] = {N};
	DLTensor tx = {X, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, NULL, 0};
	DLTensor tout = {out, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, NULL, 16 * sizeof(float)};
	uint32_t grid[3] = {(N + BLOCK - 1) / BLOCK, 1, 1};
	tile_arg a[5] = {tile_arg_dltensor(&tx), tile_arg_ptr(Y, TILE_FP32),
	                 tile_arg_dltensor(&tout), tile_arg_f32(3.0f), tile_arg_i32(N)};
	CHECK_ST(tile_launch(k, grid, a, 5, NULL), TILE_OK);
	CHECK(result_ok(out + 16, 3.0f));
	DLTensor ti = tx;
	ti.dtype.code = kDLInt;
	a[0] = tile_arg_dltensor(&ti);
	CHECK_ST(tile_launch(k, grid, a, 5, NULL), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_MSG("'x_ptr'");
	/* inconsistent DLTensors are refused, never dereferenced or launched */
	int64_t neg[1] = {-5};
	DLTensor bad[7];
	for (int i = 0; i < 7; i++)
		bad[i] = tx;
	bad[0].data = NULL;
	bad[1].shape = neg;
	bad[2].shape = NULL;
	bad[3].ndim = -1;
	bad[4].dtype.code = 77;
	bad[5].dtype.lanes = 4;
	bad[6].device.device_type = kDLCUDA;
	const char *why[7] = {"data is NULL", "negative dimension", "no shape", "negative ndim",
	                      "dtype", "dtype", "GPU memory"};
	for (int i = 0; i < 7; i++) {
		a[0] = tile_arg_dltensor(&bad[i]);
		CHECK_ST(tile_launch(k, grid, a, 5, NULL), TILE_ERROR_INVALID_ARGUMENT);
		CHECK_MSG(why[i]);
	}
	a[0] = tile_arg_dltensor(NULL);
	CHECK_ST(tile_launch(k, grid, a, 5, NULL), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_MSG("DLTensor is NULL");
	free(out);
}

/* DLPack 1.1's fp8 codes: kDLFloat8_e4m3fn / kDLFloat8_e5m2 are Triton's fp8e4nv
 * / fp8e5 (tile_kernel_get_typed types the pointer by them, and the kernel
 * decodes the bytes so); another narrow format is refused by name. */
static void test_dlpack_fp8(tile_context *ctx)
{
	static const char fp8_src[] = "import triton\nimport triton.language as tl\n"
	                              "@triton.jit\n"
	                              "def up(x_ptr, y_ptr):\n"
	                              "    o = tl.arange(0, 4)\n"
	                              "    tl.store(y_ptr + o, tl.load(x_ptr + o).to(tl.float32))\n";
	tile_module *m = NULL;
	CHECK_ST(tile_module_load_source(ctx, "fp8.tile", fp8_src, sizeof fp8_src - 1, &m), TILE_OK);
	if (!m)
		return;
	/* 1, 2, -0.5 and the largest finite value of each format */
	static const uint8_t e4m3[4] = {0x38, 0x40, 0xb0, 0x7e}, e5m2[4] = {0x3c, 0x40, 0xb8, 0x7b};
	static const float want[2][4] = {{1, 2, -0.5f, 448}, {1, 2, -0.5f, 57344}};
	int64_t shape[1] = {4};
	uint32_t grid[3] = {1, 1, 1};
	for (int f = 0; f < 2; f++) {
		_Alignas(16) uint8_t x[16];
		_Alignas(16) float y[4] = {0};
		memcpy(x, f ? e5m2 : e4m3, 4);
		DLTensor tx = {x, {kDLCPU, 0}, 1, {f ? kDLFloat8_e5m2 : kDLFloat8_e4m3fn, 8, 1}, shape, NULL, 0};
		tile_arg a[2] = {tile_arg_dltensor(&tx), tile_arg_ptr(y, TILE_FP32)};
		tile_kernel *k = NULL;
		CHECK_ST(tile_kernel_get_typed(m, "up", a, 2, NULL, &k), TILE_OK);
		if (k)
			CHECK_ST(tile_launch(k, grid, a, 2, NULL), TILE_OK);
		CHECK(memcmp(y, want[f], sizeof y) == 0);
		tile_kernel_destroy(k);
	}
	_Alignas(16) uint8_t x[16] = {0};
	_Alignas(16) float y[4];
	static const uint8_t refused[] = {kDLFloat8_e4m3fnuz, kDLFloat8_e4m3, kDLFloat8_e8m0fnu, kDLFloat4_e2m1fn};
	for (size_t i = 0; i < sizeof refused; i++) {
		DLTensor tx = {x, {kDLCPU, 0}, 1, {refused[i], 8, 1}, shape, NULL, 0};
		tile_arg a[2] = {tile_arg_dltensor(&tx), tile_arg_ptr(y, TILE_FP32)};
		tile_kernel *k = NULL;
		CHECK_ST(tile_kernel_get_typed(m, "up", a, 2, NULL, &k), TILE_ERROR_INVALID_ARGUMENT);
		CHECK_MSG("a format tile has no type for");
	}
	DLTensor wide = {x, {kDLCPU, 0}, 1, {kDLFloat8_e4m3fn, 16, 1}, shape, NULL, 0};
	tile_arg a[2] = {tile_arg_dltensor(&wide), tile_arg_ptr(y, TILE_FP32)};
	tile_kernel *k = NULL;
	CHECK_ST(tile_kernel_get_typed(m, "up", a, 2, NULL, &k), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_MSG("not one tile supports");
	tile_module_destroy(m);
}

/* A float argument of a runtime parameter annotated tl.float64 keeps all of a
 * double (Triton's launcher types it by the annotation); tile_arg_f32 widens. */
static void test_float64_param(tile_context *ctx)
{
	static const char f64_src[] = "import triton\nimport triton.language as tl\n"
	                              "@triton.jit\n"
	                              "def f(out_ptr, x: tl.float64):\n"
	                              "    tl.store(out_ptr, x)\n";
	tile_module *m = NULL;
	CHECK_ST(tile_module_load_source(ctx, "f64.tile", f64_src, sizeof f64_src - 1, &m), TILE_OK);
	if (!m)
		return;
	_Alignas(16) double out[2] = {0};
	uint32_t grid[3] = {1, 1, 1};
	const tile_arg xs[2] = {tile_arg_f64(0.1), tile_arg_f32(0.1f)};
	const double want[2] = {0.1, (double)0.1f};
	for (int c = 0; c < 2; c++) {
		tile_arg a[2] = {tile_arg_ptr(out, TILE_FP64), xs[c]};
		tile_kernel *k = NULL;
		CHECK_ST(tile_kernel_get_typed(m, "f", a, 2, NULL, &k), TILE_OK);
		if (k)
			CHECK_ST(tile_launch(k, grid, a, 2, NULL), TILE_OK);
		CHECK(out[0] == want[c]);
		tile_kernel_destroy(k);
	}
	tile_module_destroy(m);
}

/* The config early_config_prune keeps brings its launch options, an
 * enable_fp_fusion=False in its kwargs included: the same specialization as
 * binding its parameters and passing the options. */
static void test_prune_options(tile_context *ctx)
{
	static const char prune_src[] =
	        "import triton\nimport triton.language as tl\n"
	        "def prune(configs, named_args, **kwargs):\n"
	        "    return configs[1:] if named_args['n'] > 4 else configs\n"
	        "@triton.autotune(configs=[triton.Config({'BLOCK': 16}, num_warps=4),\n"
	        "                          triton.Config({'BLOCK': 32, 'enable_fp_fusion': False}, num_warps=2)],\n"
	        "                 key=['n'], prune_configs_by={'early_config_prune': prune})\n"
	        "@triton.jit\n"
	        "def p(x_ptr, n, BLOCK: tl.constexpr):\n"
	        "    tl.store(x_ptr + tl.arange(0, BLOCK), tl.full([BLOCK], BLOCK, tl.int32))\n";
	tile_module *m = NULL;
	CHECK_ST(tile_module_load_source(ctx, "prune.py", prune_src, sizeof prune_src - 1, &m), TILE_OK);
	if (!m)
		return;
	_Alignas(16) int32_t x[32];
	tile_arg a[3] = {tile_arg_ptr(x, TILE_I32), tile_arg_i32(8), tile_arg_i32(32)};
	tile_kernel_options second = {.num_warps = 2, .disable_fp_fusion = 1};
	tile_kernel *pruned = NULL, *bound = NULL, *plain = NULL, *first = NULL;
	CHECK_ST(tile_kernel_get_typed(m, "p", a, 2, NULL, &pruned), TILE_OK);
	CHECK_ST(tile_kernel_get_typed(m, "p", a, 3, &second, &bound), TILE_OK);
	CHECK_ST(tile_kernel_get_typed(m, "p", a, 3, NULL, &plain), TILE_OK);
	CHECK(pruned && pruned == bound && pruned != plain);
	tile_kernel_info info;
	if (pruned && tile_kernel_get_info(pruned, &info) == TILE_OK)
		CHECK(info.num_warps == 2);
	a[1] = tile_arg_i32(3); /* nothing pruned: the first config, BLOCK 16 */
	CHECK_ST(tile_kernel_get_typed(m, "p", a, 2, NULL, &first), TILE_OK);
	if (first) {
		uint32_t grid[3] = {1, 1, 1};
		x[0] = 0;
		CHECK_ST(tile_launch(first, grid, a, 2, NULL), TILE_OK);
		CHECK(x[0] == 16);
	}
	tile_kernel_destroy(pruned);
	tile_kernel_destroy(bound);
	tile_kernel_destroy(plain);
	tile_kernel_destroy(first);
	tile_module_destroy(m);
}

typedef struct ThreadJob {
	tile_kernel *k;
	float *out;
	float alpha;
	tile_status st;
} ThreadJob;

static void *launch_many(void *arg)
{
	ThreadJob *j = arg;
	uint32_t grid[3] = {(N + BLOCK - 1) / BLOCK, 1, 1};
	tile_arg a[5] = {tile_arg_ptr(X, TILE_FP32), tile_arg_ptr(Y, TILE_FP32),
	                 tile_arg_ptr(j->out, TILE_FP32), tile_arg_f32(j->alpha), tile_arg_i32(N)};
	for (int r = 0; r < 50 && j->st == TILE_OK; r++)
		j->st = tile_launch(j->k, grid, a, 5, NULL);
	return NULL;
}

static void test_concurrent(tile_kernel *k)
{
	enum { T = 4 };
	pthread_t th[T];
	ThreadJob jobs[T];
	for (int t = 0; t < T; t++) {
		jobs[t] = (ThreadJob){k, falloc(N), (float)t, TILE_OK};
		pthread_create(&th[t], NULL, launch_many, &jobs[t]);
	}
	for (int t = 0; t < T; t++) {
		pthread_join(th[t], NULL);
		CHECK(jobs[t].st == TILE_OK);
		CHECK(result_ok(jobs[t].out, (float)t));
		free(jobs[t].out);
	}
}

int main(void)
{
	for (int i = 0; i < N; i++) {
		X[i] = (float)i * 0.25f;
		Y[i] = 3.0f - (float)(i % 17);
	}
	test_static();
	test_context_errors();

	DiagLog log = {0};
	tile_context_options o = {0};
	o.target = "cpu";
	o.disable_cache = 1;
	o.on_diagnostic = on_diag;
	o.diagnostic_user = &log;
	tile_context *ctx = NULL;
	CHECK_ST(tile_context_create(&ctx, &o), TILE_OK);
	if (!ctx)
		return 1;
	CHECK(strcmp(tile_context_target(ctx), "cpu") == 0);
	test_load_errors(ctx, &log);

	tile_module *m = NULL;
	CHECK_ST(tile_module_load_source(ctx, "axpy.tile", src, sizeof src - 1, &m), TILE_OK);
	if (m) {
		test_kernel_errors(ctx, m);
		tile_kernel *k = NULL, *k2 = NULL;
		const char *sig = "*fp32:16,*fp32:16,*fp32:16,fp32,i32,128";
		CHECK_ST(tile_kernel_get(m, "axpy", sig, NULL, &k), TILE_OK);
		CHECK_ST(tile_kernel_get(m, "axpy", sig, NULL, &k2), TILE_OK);
		CHECK(k != NULL && k == k2); /* the second get is a table lookup */
		tile_kernel_destroy(k2);
		/* enable_fp_fusion=False is another specialization (its key holds it) */
		tile_kernel_options nofuse = {.disable_fp_fusion = 1};
		k2 = NULL;
		CHECK_ST(tile_kernel_get(m, "axpy", sig, &nofuse, &k2), TILE_OK);
		CHECK(k2 != NULL && k2 != k);
		tile_kernel_destroy(k2);
		if (k) {
			test_launch(ctx, k);
			test_typed(ctx, m, k);
			test_named_constexpr(ctx);
			test_heuristic_values(ctx);
			test_heuristic_shape(ctx);
			test_signature_prune(ctx);
			test_heuristic_launch_options(ctx);
			test_specialization_counts(ctx);
			test_concurrent(k);
			test_dlpack(ctx, k);
			test_dlpack_fp8(ctx);
			test_float64_param(ctx);
			test_prune_options(ctx);
		}
		tile_module_destroy(m);
		/* a kernel outlives its module */
		if (k) {
			float *out = falloc(N);
			uint32_t grid[3] = {(N + BLOCK - 1) / BLOCK, 1, 1};
			tile_arg a[5] = {tile_arg_ptr(X, TILE_FP32), tile_arg_ptr(Y, TILE_FP32),
			                 tile_arg_ptr(out, TILE_FP32), tile_arg_f32(0.5f),
			                 tile_arg_i32(N)};
			CHECK_ST(tile_launch(k, grid, a, 5, NULL), TILE_OK);
			CHECK(result_ok(out, 0.5f));
			free(out);
		}
		tile_kernel_destroy(k);
	}
	tile_context_destroy(ctx);
	test_class_kernels();
	test_print_assert();
	test_assert_stops();
	test_assert_apart();
	test_assert_stops_grid();
	if (failures)
		fprintf(stderr, "test_api: %d check(s) failed\n", failures);
	return failures ? 1 : 0;
}

/* test_api_reentry.c: the C API called again while a compiling call runs on
 * the same context: from the on_diagnostic callback of that call, and from
 * another thread; and a kernel's thunk asked for by several threads at once. Both used to run on the context's shared diagnostics (the
 * outer call's error then carried the inner one's) or free a module under
 * the call compiling from it; now the second call is refused with a message,
 * and a module destroyed meanwhile is freed when the call returns. Build with
 * --enable-sanitizers to see the memory errors this guards against. */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tile.h"

static int failures;

#include "api_checks.h"

/* static_print reports a note, so on_diagnostic runs in the middle of sema */
static const char printing[] = "import triton\n"
                               "import triton.language as tl\n"
                               "@triton.jit\n"
                               "def k(X, B: tl.constexpr):\n"
                               "    tl.static_print('compiling', B)\n"
                               "    tl.store(X + tl.arange(0, B), 1.0)\n";
static const char broken[] = "import triton\n"
                             "import triton.language as tl\n"
                             "@triton.jit\n"
                             "def k(X):\n"
                             "    tl.static_print('compiling')\n"
                             "    tl.store(X, undefined_name)\n";

typedef struct Probe {
	tile_context *ctx;
	tile_module *m;
	int mode; /* what the callback does: 1 load a module, 2 get a kernel, 3 destroy m */
	tile_status inner;
	char msg[512];
	/* mode 4: the callback lets another thread try, and waits for it */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int phase; /* 1: the other thread may try; 2: it has */
} Probe;

static void on_diag(void *user, const tile_diagnostic *d)
{
	(void)d;
	Probe *p = user;
	int mode = p->mode;
	p->mode = 0; /* once */
	tile_module *m = NULL;
	tile_kernel *k = NULL;
	switch (mode) {
	case 1:
		p->inner = tile_module_load_source(p->ctx, "inner.py", broken, (size_t)-1, &m);
		break;
	case 2: p->inner = tile_kernel_get(p->m, "k", "*fp32", NULL, &k); break;
	case 3: tile_module_destroy(p->m); return;
	case 4:
		pthread_mutex_lock(&p->mu);
		p->phase = 1;
		pthread_cond_broadcast(&p->cv);
		while (p->phase != 2)
			pthread_cond_wait(&p->cv, &p->mu);
		pthread_mutex_unlock(&p->mu);
		return;
	default: return;
	}
	snprintf(p->msg, sizeof p->msg, "%s", tile_errmsg(p->ctx));
	tile_kernel_destroy(k);
	tile_module_destroy(m);
}

static tile_context *make_ctx(Probe *p)
{
	tile_context_options o = {0};
	o.target = "cpu";
	o.disable_cache = 1;
	o.num_threads = 1;
	o.on_diagnostic = on_diag;
	o.diagnostic_user = p;
	tile_context *c = NULL;
	if (tile_context_create(&c, &o) != TILE_OK)
		return NULL;
	return c;
}

/* a load, or a get, from a callback of a compiling call: refused; the outer
 * call's error is its own (it carried the inner one's) */
static void test_nested(int mode)
{
	Probe p = {.mode = 0};
	tile_context *ctx = make_ctx(&p);
	CHECK(ctx != NULL);
	if (!ctx)
		return;
	p.ctx = ctx;
	tile_module *m = NULL;
	CHECK_ST(tile_module_load_source(ctx, "outer.py", broken, (size_t)-1, &m), TILE_OK);
	p.m = m;
	p.mode = mode;
	tile_kernel *k = NULL;
	if (m)
		CHECK_ST(tile_kernel_get(m, "k", "*fp32", NULL, &k), TILE_ERROR_COMPILE);
	CHECK(p.mode == 0);
	CHECK(p.inner == TILE_ERROR_INVALID_ARGUMENT);
	CHECK(strstr(p.msg, "the context is compiling already") != NULL);
	CHECK(strstr(p.msg, mode == 1 ? "tile_module_load_source" : "tile_kernel_get") != NULL);
	CHECK(strstr(tile_errmsg(ctx), "outer.py:6:17: error: unknown name 'undefined_name'") != NULL);
	CHECK(strstr(tile_errmsg(ctx), "inner.py") == NULL);
	const char *e = strstr(tile_errmsg(ctx), "error:");
	CHECK(e && !strstr(e + 1, "error:")); /* one error, not the inner call's too */
	tile_kernel_destroy(k);
	tile_module_destroy(m);
	tile_context_destroy(ctx);
}

/* the module a get compiles from, destroyed in its callback: freed when the
 * get returns (it was freed under sema), and the kernel works */
static void test_destroy_in_callback(void)
{
	Probe p = {.mode = 0};
	tile_context *ctx = make_ctx(&p);
	CHECK(ctx != NULL);
	if (!ctx)
		return;
	p.ctx = ctx;
	CHECK_ST(tile_module_load_source(ctx, "outer.py", printing, (size_t)-1, &p.m), TILE_OK);
	p.mode = 3;
	tile_kernel *k = NULL;
	if (p.m)
		CHECK_ST(tile_kernel_get(p.m, "k", "*fp32,64", NULL, &k), TILE_OK);
	CHECK(p.mode == 0);
	if (k) {
		_Alignas(64) float x[64] = {0};
		tile_arg a[] = {tile_arg_ptr(x, TILE_FP32)};
		uint32_t grid[3] = {1, 1, 1};
		CHECK_ST(tile_launch(k, grid, a, 1, NULL), TILE_OK);
		CHECK(x[0] == 1.0f && x[63] == 1.0f);
	}
	tile_kernel_destroy(k);
	tile_context_destroy(ctx);
}

static void *other_thread(void *arg)
{
	Probe *p = arg;
	pthread_mutex_lock(&p->mu);
	while (p->phase != 1)
		pthread_cond_wait(&p->cv, &p->mu);
	pthread_mutex_unlock(&p->mu);
	tile_kernel *k = NULL;
	p->inner = tile_kernel_get(p->m, "k", "*fp32,32", NULL, &k);
	snprintf(p->msg, sizeof p->msg, "%s", tile_errmsg(p->ctx));
	tile_kernel_destroy(k);
	pthread_mutex_lock(&p->mu);
	p->phase = 2;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* a get from another thread while one compiles on the same context (the
 * header's rule: one thread at a time): refused, and the first one finishes */
static void test_two_threads(void)
{
	Probe p = {.mode = 0};
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.cv, NULL);
	tile_context *ctx = make_ctx(&p);
	CHECK(ctx != NULL);
	if (!ctx)
		return;
	p.ctx = ctx;
	CHECK_ST(tile_module_load_source(ctx, "outer.py", printing, (size_t)-1, &p.m), TILE_OK);
	pthread_t th;
	CHECK(pthread_create(&th, NULL, other_thread, &p) == 0);
	p.mode = 4;
	tile_kernel *k = NULL;
	CHECK_ST(tile_kernel_get(p.m, "k", "*fp32,64", NULL, &k), TILE_OK);
	pthread_join(th, NULL);
	CHECK(p.inner == TILE_ERROR_INVALID_ARGUMENT);
	CHECK(strstr(p.msg, "tile_kernel_get: the context is compiling already") != NULL);
	/* and once it is done, the other thread's get works */
	tile_kernel *k2 = NULL;
	CHECK_ST(tile_kernel_get(p.m, "k", "*fp32,32", NULL, &k2), TILE_OK);
	tile_kernel_destroy(k2);
	tile_kernel_destroy(k);
	tile_module_destroy(p.m);
	tile_context_destroy(ctx);
	pthread_mutex_destroy(&p.mu);
	pthread_cond_destroy(&p.cv);
}

enum { NTHUNK = 8 };

typedef struct ThunkRace {
	tile_kernel *k;
	pthread_barrier_t *go;
	void (*fn)(void);
	int st;
	float out[64];
} ThunkRace;

typedef int (*fill_fn)(void *x, uint32_t gx, uint32_t gy, uint32_t gz, void *stream);

static void *ask_thunk(void *arg)
{
	ThunkRace *r = arg;
	pthread_barrier_wait(r->go);
	r->st = tile_kernel_thunk(r->k, &r->fn);
	if (r->st == TILE_OK) {
		fill_fn f;
		memcpy(&f, &r->fn, sizeof f);
		r->st = f(r->out, 1, 1, 1, NULL);
	}
	return NULL;
}

/* tile_kernel_thunk from several threads at once, on a kernel that has none
 * yet: each made a closure and stored it over the others' (all but one
 * leaked, and threads got different functions) */
static void test_thunk_threads(void)
{
	tile_context *ctx = NULL;
	tile_context_options o = {0};
	o.target = "cpu";
	o.disable_cache = 1;
	CHECK_ST(tile_context_create(&ctx, &o), TILE_OK);
	if (!ctx)
		return;
	tile_module *m = NULL;
	CHECK_ST(tile_module_load_source(ctx, "fill.py", printing, (size_t)-1, &m), TILE_OK);
	for (int round = 0; m && round < 4; round++) {
		tile_kernel *k = NULL;
		char sig[32];
		snprintf(sig, sizeof sig, "*fp32,%d", 8 << round);
		CHECK_ST(tile_kernel_get(m, "k", sig, NULL, &k), TILE_OK);
		if (!k)
			break;
		pthread_barrier_t go;
		pthread_barrier_init(&go, NULL, NTHUNK);
		ThunkRace r[NTHUNK];
		pthread_t th[NTHUNK];
		for (int i = 0; i < NTHUNK; i++) {
			r[i] = (ThunkRace){.k = k, .go = &go};
			CHECK(pthread_create(&th[i], NULL, ask_thunk, &r[i]) == 0);
		}
		for (int i = 0; i < NTHUNK; i++) {
			pthread_join(th[i], NULL);
			CHECK(r[i].st == TILE_OK);
			CHECK(r[i].fn == r[0].fn);
			CHECK(r[i].out[0] == 1.0f && r[i].out[(8 << round) - 1] == 1.0f);
		}
		pthread_barrier_destroy(&go);
		tile_kernel_destroy(k);
	}
	tile_module_destroy(m);
	tile_context_destroy(ctx);
}

int main(void)
{
	test_nested(1);
	test_nested(2);
	test_destroy_in_callback();
	test_two_threads();
	test_thunk_threads();
	if (failures)
		fprintf(stderr, "test_api_reentry: %d check(s) failed\n", failures);
	return failures ? 1 : 0;
}

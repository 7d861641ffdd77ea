/* test_llvm_once.c: LLVM's native target is registered once per process,
 * whichever path needs it first, and contexts in several threads compile and
 * launch at once.
 *
 * LLVM's TargetRegistry is an unlocked global list: the emitter and the ORC
 * loader each had their own pthread_once, so a kernel loaded from the disk
 * cache in one thread while another compiled registered the target twice at
 * once, which can link it into the list twice (a cycle: lookups then fail or
 * never end). The test counts registrations by interposing the x86 target's
 * registration function (an x86-64 host with LLVM linked as a shared library;
 * elsewhere it skips). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tile.h"

static int failures;
static tile_context *ctx; /* for CHECK_ST's message */

#include "api_checks.h"

static atomic_int registrations;

/* Weak: with a static LLVM the archive's definition wins and the test skips. */
__attribute__((weak)) void LLVMInitializeX86TargetInfo(void);
__attribute__((weak)) void LLVMInitializeX86TargetInfo(void)
{
	atomic_fetch_add(&registrations, 1);
	void (*real)(void) = (void (*)(void))dlsym(RTLD_NEXT, "LLVMInitializeX86TargetInfo");
	if (real)
		real();
}

static const char src[] = "import triton\n"
                          "import triton.language as tl\n"
                          "\n"
                          "@triton.jit\n"
                          "def add(x, y, o, n, B: tl.constexpr):\n"
                          "    offs = tl.program_id(0) * B + tl.arange(0, B)\n"
                          "    m = offs < n\n"
                          "    tl.store(o + offs, tl.load(x + offs, mask=m) + tl.load(y + offs, mask=m), mask=m)\n";

enum { N = 4096 };

static tile_context *open_ctx(const char *cache_dir)
{
	tile_context_options o = {0};
	o.target = "cpu";
	o.cache_dir = cache_dir;
	o.disable_cache = cache_dir == NULL;
	o.num_threads = 2;
	tile_context *c = NULL;
	return tile_context_create(&c, &o) == TILE_OK ? c : NULL;
}

/* Gets add with block B from m and checks one launch; returns from_cache, -1 on failure. */
static int run_add(tile_module *m, int B, float shift)
{
	char sig[96];
	snprintf(sig, sizeof sig, "*fp32:16,*fp32:16,*fp32:16,i32,%d", B);
	tile_kernel *k = NULL;
	if (tile_kernel_get(m, "add", sig, NULL, &k) != TILE_OK)
		return -1;
	float *x = aligned_alloc(64, N * sizeof(float)), *y = aligned_alloc(64, N * sizeof(float));
	float *o = aligned_alloc(64, N * sizeof(float));
	for (int i = 0; i < N; i++) {
		x[i] = (float)i;
		y[i] = shift;
		o[i] = -1.0f;
	}
	uint32_t grid[3] = {(uint32_t)(N / B), 1, 1};
	tile_arg a[4] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(y, TILE_FP32),
	                 tile_arg_ptr(o, TILE_FP32), tile_arg_i32(N)};
	int r = -1;
	tile_kernel_info info;
	if (tile_launch(k, grid, a, 4, NULL) == TILE_OK && tile_kernel_get_info(k, &info) == TILE_OK) {
		r = info.from_cache;
		for (int i = 0; i < N; i++)
			if (o[i] != (float)i + shift)
				r = -1;
	}
	free(x);
	free(y);
	free(o);
	tile_kernel_destroy(k);
	return r;
}

/* A kernel from the disk cache (the loader registers the target), then a
 * compile (the emitter needs it too): one registration. */
static void test_cache_then_compile(const char *dir)
{
	pid_t pid = fork(); /* fills the cache in a process of its own */
	if (pid == 0) {
		tile_context *c = open_ctx(dir);
		tile_module *m = NULL;
		int ok = c && tile_module_load_source(c, "add.tile", src, (size_t)-1, &m) == TILE_OK &&
		         run_add(m, 256, 1.0f) == 0;
		_exit(ok ? 0 : 1);
	}
	int st = 0;
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(atomic_load(&registrations) == 0);
	ctx = open_ctx(dir);
	CHECK(ctx != NULL);
	tile_module *m = NULL;
	CHECK_ST(tile_module_load_source(ctx, "add.tile", src, (size_t)-1, &m), TILE_OK);
	CHECK(run_add(m, 256, 2.0f) == 1); /* from the cache: loaded, not compiled */
	CHECK(run_add(m, 128, 3.0f) == 0); /* compiled */
	CHECK(atomic_load(&registrations) == 1);
	tile_module_destroy(m);
	tile_context_destroy(ctx);
	ctx = NULL;
}

static void *worker(void *arg)
{
	int id = (int)(intptr_t)arg, bad = 0;
	tile_context *c = open_ctx(NULL);
	tile_module *m = NULL;
	if (!c || tile_module_load_source(c, "add.tile", src, (size_t)-1, &m) != TILE_OK)
		bad++;
	for (int it = 0; m && it < 3; it++)
		if (run_add(m, 64 << ((id + it) % 4), (float)id) != 0)
			bad++;
	tile_module_destroy(m);
	tile_context_destroy(c);
	return (void *)(intptr_t)bad;
}

/* Contexts of their own in several threads, compiling and launching at once. */
static void test_threads(void)
{
	enum { T = 4 };
	pthread_t th[T];
	for (int t = 0; t < T; t++)
		CHECK(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) == 0);
	for (int t = 0; t < T; t++) {
		void *bad = NULL;
		pthread_join(th[t], &bad);
		CHECK(bad == NULL);
	}
	CHECK(atomic_load(&registrations) == 1);
}

int main(void)
{
#if !defined(__x86_64__)
	puts("skip: counts the x86 target's registrations");
	return 77;
#endif
	if (!dlsym(RTLD_NEXT, "LLVMInitializeX86TargetInfo")) { /* a static LLVM: not interposed */
		puts("skip: LLVM's target registration cannot be interposed");
		return 77;
	}
	char dir[] = "/tmp/tile-test-llvm-once-XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	test_cache_then_compile(dir);
	test_threads();
	char cmd[96];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		failures++;
	if (failures)
		fprintf(stderr, "test_llvm_once: %d check(s) failed\n", failures);
	return failures ? 1 : 0;
}

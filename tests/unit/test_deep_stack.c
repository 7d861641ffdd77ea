/* test_deep_stack.c: a kernel whose machine-code frame is deeper than the
 * launching thread's free stack still runs, launched from the main thread.
 *
 * A tl.sort of an 8x256 fp32 tile is one straight-line sorting network, big
 * enough to be compiled at -O0 with a frame of about 2 MB. The test compiles
 * it on a helper thread (so that compiling does not grow the main thread's
 * stack), then lowers RLIMIT_STACK so that the main thread has only
 * CALLER_FREE bytes of stack to grow into, as a host thread with a small
 * stack would, and launches it from there with grids of one and of three
 * instances: the kernel's stack bound (well over 1 MB) keeps it off the
 * calling thread (src/jit/cpu_launch.h). Run on the caller, it would die of
 * SIGSEGV. Each target twice: the second time the kernel, and its bound,
 * come from the disk cache. Exit status 77 (skipped) where the main thread's stack cannot be
 * found (no /proc/self/maps).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "tile.h"

enum { R = 8, C = 256, GRID = 3, CALLER_FREE = (1 << 20) + (256 << 10) };

static const char sort_src[] =
        "import triton\n"
        "import triton.language as tl\n"
        "@triton.jit\n"
        "def k(x_ptr, y_ptr, R: tl.constexpr, C: tl.constexpr):\n"
        "    o = tl.program_id(0) * R * C + tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]\n"
        "    tl.store(y_ptr + o, tl.sort(tl.load(x_ptr + o)))\n";

static int failures;

typedef struct Compile {
	const char *target;
	tile_context *ctx;
	tile_module *m;
	tile_kernel *k;
	bool ok;
} Compile;

static void *compile_main(void *arg)
{
	Compile *c = arg;
	tile_context_options o = {0};
	o.target = c->target;
	tile_kernel_options ko = {0};
	ko.num_warps = 4;
	c->ok = tile_context_create(&c->ctx, &o) == TILE_OK &&
	        tile_module_load_source(c->ctx, "t.py", sort_src, strlen(sort_src), &c->m) == TILE_OK &&
	        tile_kernel_get(c->m, "k", "*fp32,*fp32,8,256", &ko, &c->k) == TILE_OK;
	return NULL;
}

/* The top of the main thread's stack (the end of its [stack] mapping), 0 if
 * unknown. */
static uintptr_t stack_top(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	if (!f)
		return 0;
	char line[512];
	uintptr_t top = 0;
	while (fgets(line, sizeof line, f)) {
		unsigned long lo, hi;
		if (strstr(line, "[stack]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2)
			top = hi;
	}
	fclose(f);
	return top;
}

static int cmp_f32(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return (x > y) - (x < y);
}

/* Launches c->k from this (the main) thread with only CALLER_FREE bytes of
 * stack left to grow into; checks each row comes back sorted. */
static void launch_shallow(Compile *c, uintptr_t top)
{
	static float x[GRID * R * C], y[GRID * R * C], want[GRID * R * C];
	uint64_t s = 12345;
	for (int i = 0; i < GRID * R * C; i++) {
		s = s * 6364136223846793005ULL + 1442695040888963407ULL;
		x[i] = (float)(int32_t)(s >> 40) / 1024.0f;
	}
	memcpy(want, x, sizeof x);
	for (int r = 0; r < GRID * R; r++)
		qsort(want + r * C, C, sizeof(float), cmp_f32);
	struct rlimit old, low;
	if (getrlimit(RLIMIT_STACK, &old) != 0)
		return;
	char here;
	low = old;
	low.rlim_cur = (rlim_t)(top - (uintptr_t)&here) + CALLER_FREE;
	if (old.rlim_cur != RLIM_INFINITY && low.rlim_cur > old.rlim_cur)
		low.rlim_cur = old.rlim_cur;
	setrlimit(RLIMIT_STACK, &low);
	tile_arg args[] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(y, TILE_FP32)};
	for (uint32_t g = 1; g <= GRID; g += GRID - 1) {
		memset(y, 0, sizeof y);
		uint32_t grid[3] = {g, 1, 1};
		if (tile_launch(c->k, grid, args, 2, NULL) != TILE_OK) {
			fprintf(stderr, "test_deep_stack: [%s] grid %u: %s\n", c->target, g,
			        tile_errmsg(c->ctx));
			failures++;
			continue;
		}
		if (memcmp(y, want, g * R * C * sizeof(float)) != 0) {
			fprintf(stderr, "test_deep_stack: [%s] grid %u: wrong result\n", c->target, g);
			failures++;
		}
	}
	setrlimit(RLIMIT_STACK, &old);
}

int main(void)
{
	uintptr_t top = stack_top();
	if (!top) {
		printf("test_deep_stack: no /proc/self/maps: skipped\n");
		return 77;
	}
	static const char *const targets[] = {"cpu", "cuda-emu"};
	for (int t = 0; t < 4; t++) { /* each target twice: compiled, then from the cache */
		Compile c = {.target = targets[t / 2]};
		pthread_t th;
		if (pthread_create(&th, NULL, compile_main, &c) != 0) {
			fprintf(stderr, "test_deep_stack: cannot start the compile thread\n");
			return 1;
		}
		pthread_join(th, NULL);
		if (!c.ok) {
			fprintf(stderr, "test_deep_stack: [%s] %s\n", c.target,
			        c.ctx ? tile_errmsg(c.ctx) : "no context");
			failures++;
		} else {
			tile_kernel_info info;
			if (t % 2 && (tile_kernel_get_info(c.k, &info) != TILE_OK || !info.from_cache)) {
				fprintf(stderr, "test_deep_stack: [%s] not from the cache\n", c.target);
				failures++;
			}
			launch_shallow(&c, top);
		}
		tile_kernel_destroy(c.k);
		tile_module_destroy(c.m);
		tile_context_destroy(c.ctx);
	}
	printf("test_deep_stack: %d failed\n", failures);
	return failures ? 1 : 0;
}

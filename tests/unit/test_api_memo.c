/* test_api_memo.c: tile_kernel_get / tile_kernel_get_typed run a kernel's
 * heuristics and early_config_prune once per distinct input (heur_memo.c),
 * not once per call: the count of sema passes the module ran says so, and a
 * different value, shape or signature runs them again with its own result. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "tile.h"

static int failures;
#include "api_checks.h"

static const char src[] =
        "import triton\n"
        "import triton.language as tl\n"
        "def prune(configs, named_args, **kw):\n"
        "    return [c for c in configs if c.kwargs['B'] <= named_args['n']]\n"
        "@triton.autotune(configs=[triton.Config({'B': 64}), triton.Config({'B': 8})], key=['n'],\n"
        "                 prune_configs_by={'early_config_prune': prune})\n"
        "@triton.jit\n"
        "def p(out_ptr, n, B: tl.constexpr):\n"
        "    tl.store(out_ptr, B)\n"
        "def by_shape(configs, named_args, **kw):\n"
        "    return [c for c in configs if c.kwargs['B'] <= named_args['x'].shape[0]]\n"
        "@triton.autotune(configs=[triton.Config({'B': 64}), triton.Config({'B': 8})], key=[],\n"
        "                 prune_configs_by={'early_config_prune': by_shape})\n"
        "@triton.jit\n"
        "def s(out_ptr, x, B: tl.constexpr):\n"
        "    tl.store(out_ptr, B)\n"
        "@triton.heuristics({'EVEN': lambda a: a['n'] % 2 == 0})\n"
        "@triton.jit\n"
        "def h(out_ptr, n, EVEN: tl.constexpr):\n"
        "    tl.store(out_ptr, EVEN)\n";

/* Gets kernel `name` for args and launches it once: what it stored. */
static int32_t get_run(tile_context *ctx, tile_module *m, const char *name, tile_arg *a, int n,
                       const char *sig)
{
	_Alignas(16) int32_t out = -1;
	a[0] = tile_arg_ptr(&out, TILE_I32);
	tile_kernel *k = NULL;
	if (sig)
		CHECK_ST(tile_kernel_get(m, name, sig, NULL, &k), TILE_OK);
	else
		CHECK_ST(tile_kernel_get_typed(m, name, a, (size_t)n, NULL, &k), TILE_OK);
	if (!k)
		return -1;
	uint32_t grid[3] = {1, 1, 1};
	CHECK_ST(tile_launch(k, grid, a, n, NULL), TILE_OK);
	tile_kernel_destroy(k);
	return out;
}

static void test_prune_value(tile_context *ctx, tile_module *m)
{
	tile_arg a[2] = {{0}, tile_arg_i32(16)};
	uint64_t p0 = m->heur_passes;
	CHECK(get_run(ctx, m, "p", a, 2, NULL) == 8);
	CHECK(get_run(ctx, m, "p", a, 2, NULL) == 8);
	CHECK(m->heur_passes == p0 + 1); /* the second call ran no pass */
	a[1] = tile_arg_i32(100);
	CHECK(get_run(ctx, m, "p", a, 2, NULL) == 64);
	CHECK(m->heur_passes == p0 + 2); /* another n: the pruner again */
	a[1] = tile_arg_i32(16);
	CHECK(get_run(ctx, m, "p", a, 2, NULL) == 8);
	a[1] = tile_arg_i64(16); /* the same value, another type: its own key */
	CHECK(get_run(ctx, m, "p", a, 2, NULL) == 8);
	CHECK(m->heur_passes == p0 + 3);
	/* a signature: the pruner sees n = 16 as a constant, quietly */
	CHECK(get_run(ctx, m, "p", a, 1, "*i32,16") == 8);
	CHECK(get_run(ctx, m, "p", a, 1, "*i32,16") == 8);
	CHECK(m->heur_passes == p0 + 4);
	CHECK(get_run(ctx, m, "p", a, 1, "*i32,100") == 64);
	CHECK(m->heur_passes == p0 + 5);
}

static void test_prune_shape(tile_context *ctx, tile_module *m)
{
	static float x[128];
	int64_t shape[2][1] = {{16}, {128}};
	int32_t want[2] = {8, 64};
	uint64_t p0 = m->heur_passes;
	for (int r = 0; r < 2; r++)
		for (int c = 0; c < 2; c++) {
			DLTensor t = {x, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape[c], NULL, 0};
			tile_arg a[2] = {{0}, tile_arg_dltensor(&t)};
			CHECK(get_run(ctx, m, "s", a, 2, NULL) == want[c]);
		}
	CHECK(m->heur_passes == p0 + 2);
}

/* a heuristic too, and a host feeding a new value each call: the memo stays bounded */
static void test_heuristic_bound(tile_context *ctx, tile_module *m)
{
	uint64_t p0 = m->heur_passes;
	for (int r = 0; r < 2; r++)
		for (int n = 0; n < 4; n++) {
			tile_arg a[2] = {{0}, tile_arg_i32(n)};
			CHECK(get_run(ctx, m, "h", a, 2, NULL) == (n % 2 == 0));
		}
	CHECK(m->heur_passes == p0 + 4);
	for (int n = 0; n < 1000; n++) {
		tile_arg a[2] = {{0}, tile_arg_i32(n)};
		CHECK(get_run(ctx, m, "h", a, 2, NULL) == (n % 2 == 0));
	}
	CHECK(m->memo.len <= 256);
}

int main(void)
{
	tile_context_options o = {0};
	o.target = "cpu";
	o.disable_cache = 1;
	tile_context *ctx = NULL;
	CHECK_ST(tile_context_create(&ctx, &o), TILE_OK);
	if (!ctx)
		return 1;
	tile_module *m = NULL;
	CHECK_ST(tile_module_load_source(ctx, "memo.py", src, sizeof src - 1, &m), TILE_OK);
	if (m) {
		test_prune_value(ctx, m);
		test_prune_shape(ctx, m);
		test_heuristic_bound(ctx, m);
	}
	tile_module_destroy(m);
	tile_context_destroy(ctx);
	if (failures) {
		fprintf(stderr, "test_api_memo: %d check(s) failed\n", failures);
		return 1;
	}
	printf("test_api_memo: ok\n");
	return 0;
}

/* embed.c: using tile from C.
 *
 * Loads a kernel from a source string, specializes it from a Triton
 * signature, launches it with tile_launch and again through a thunk (the
 * kernel called like a C function), and checks both results against a C loop.
 * Prints nothing and exits 0 on success; says what went wrong otherwise.
 *
 *     cc embed.c $(pkg-config --cflags --libs tile)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tile.h>

static const char source[] = "import triton\n"
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

/* The thunk's C signature: runtime parameters, then the grid and a stream. */
typedef int (*axpy_fn)(void *x, void *y, void *out, float alpha, int32_t n, uint32_t gx,
                       uint32_t gy, uint32_t gz, void *stream);

enum { N = 1000, BLOCK = 256 };

static int fail(tile_context *ctx, const char *what, tile_status st)
{
	fprintf(stderr, "embed: %s: %s\n%s\n", what, tile_status_string(st), tile_errmsg(ctx));
	return 1;
}

static int check(const char *how, const tile_buffer *out, const float *x, const float *y,
                 float alpha)
{
	float got[N];
	if (tile_buffer_download(out, 0, got, sizeof got) != TILE_OK) {
		fprintf(stderr, "embed: %s: download failed\n", how);
		return 1;
	}
	for (int i = 0; i < N; i++) {
		float want = alpha * x[i] + y[i];
		if (fabsf(got[i] - want) > 1e-5f * (1.0f + fabsf(want))) {
			fprintf(stderr, "embed: %s: out[%d] = %g, expected %g\n", how, i, got[i],
			        want);
			return 1;
		}
	}
	return 0;
}

static int run(tile_context *ctx)
{
	tile_module *mod = NULL;
	tile_kernel *k = NULL;
	tile_buffer *bx = NULL, *by = NULL, *bout = NULL;
	tile_status st;
	int rc = 1;
	float x[N], y[N], zeros[N];
	const float alpha = 2.5f;
	for (int i = 0; i < N; i++) {
		x[i] = (float)i * 0.5f;
		y[i] = 1.0f - (float)i;
		zeros[i] = 0.0f;
	}
	if ((st = tile_module_load_source(ctx, "axpy.tile", source, sizeof source - 1, &mod)) !=
	    TILE_OK)
		return fail(ctx, "load", st);
	/* constexpr BLOCK given as a literal in its position */
	if ((st = tile_kernel_get(mod, "axpy", "*fp32:16,*fp32:16,*fp32:16,fp32,i32,256", NULL,
	                          &k)) != TILE_OK) {
		fail(ctx, "specialize", st);
		goto out;
	}
	if ((st = tile_buffer_alloc(ctx, sizeof x, &bx)) != TILE_OK ||
	    (st = tile_buffer_alloc(ctx, sizeof y, &by)) != TILE_OK ||
	    (st = tile_buffer_alloc(ctx, sizeof x, &bout)) != TILE_OK ||
	    (st = tile_buffer_upload(bx, 0, x, sizeof x)) != TILE_OK ||
	    (st = tile_buffer_upload(by, 0, y, sizeof y)) != TILE_OK) {
		fail(ctx, "buffers", st);
		goto out;
	}
	uint32_t grid[3] = {(N + BLOCK - 1) / BLOCK, 1, 1};

	/* 1. tile_launch with typed arguments (the runtime ones) */
	tile_arg args[] = {
	        tile_arg_ptr(tile_buffer_ptr(bx), TILE_FP32),
	        tile_arg_ptr(tile_buffer_ptr(by), TILE_FP32),
	        tile_arg_ptr(tile_buffer_ptr(bout), TILE_FP32),
	        tile_arg_f32(alpha),
	        tile_arg_i32(N),
	};
	if ((st = tile_launch(k, grid, args, 5, NULL)) != TILE_OK ||
	    (st = tile_synchronize(ctx)) != TILE_OK) {
		fail(ctx, "tile_launch", st);
		goto out;
	}
	if (check("tile_launch", bout, x, y, alpha))
		goto out;

	/* 2. the same kernel as a C function */
	void (*fn)(void);
	if ((st = tile_kernel_thunk(k, &fn)) != TILE_OK) {
		fail(ctx, "thunk", st);
		goto out;
	}
	axpy_fn axpy = (axpy_fn)fn;
	if ((st = tile_buffer_upload(bout, 0, zeros, sizeof zeros)) != TILE_OK) {
		fail(ctx, "upload", st);
		goto out;
	}
	st = (tile_status)axpy(tile_buffer_ptr(bx), tile_buffer_ptr(by), tile_buffer_ptr(bout),
	                       alpha, N, grid[0], 1, 1, NULL);
	if (st != TILE_OK || (st = tile_synchronize(ctx)) != TILE_OK) {
		fail(ctx, "thunk call", st);
		goto out;
	}
	if (check("thunk", bout, x, y, alpha))
		goto out;
	rc = 0;
out:
	tile_buffer_free(bx);
	tile_buffer_free(by);
	tile_buffer_free(bout);
	tile_kernel_destroy(k);
	tile_module_destroy(mod);
	return rc;
}

int main(void)
{
	tile_context *ctx;
	tile_status st = tile_context_create(&ctx, NULL);
	if (st != TILE_OK) {
		fprintf(stderr, "embed: cannot create a context: %s\n", tile_status_string(st));
		return 1;
	}
	int rc = run(ctx);
	tile_context_destroy(ctx);
	return rc;
}

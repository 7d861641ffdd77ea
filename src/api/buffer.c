/* buffer.c: memory for kernel arguments on the context's target.
 *
 * CPU: 64-byte-aligned host memory, zero-filled. CUDA: device memory from the
 * driver; upload/download are synchronous copies. */
#include <stdlib.h>
#include <string.h>

#include "api/api.h"

tile_status tile_buffer_alloc(tile_context *ctx, size_t bytes, tile_buffer **out)
{
	if (out)
		*out = NULL;
	if (!ctx || !out)
		return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT,
		                "tile_buffer_alloc: ctx and out must not be NULL");
	tile_buffer *b = calloc(1, sizeof *b);
	if (!b)
		return api_fail(ctx, TILE_ERROR_NOMEM, "out of memory");
	b->ctx = ctx;
	b->size = bytes;
	size_t cap = bytes ? (bytes + 63) & ~(size_t)63 : 64;
	if (cap < bytes) {
		free(b);
		return api_fail(ctx, TILE_ERROR_NOMEM, "cannot allocate %zu bytes", bytes);
	}
	if (ctx->target.kind == TARGET_CUDA) {
		b->device = true;
		tile_status st = backend_cuda_alloc(ctx, cap, &b->ptr);
		if (st != TILE_OK) {
			free(b);
			return st;
		}
	} else {
		b->ptr = aligned_alloc(64, cap);
		if (!b->ptr) {
			free(b);
			return api_fail(ctx, TILE_ERROR_NOMEM, "cannot allocate %zu bytes", bytes);
		}
		memset(b->ptr, 0, cap);
	}
	api_ctx_retain(ctx);
	*out = b;
	return TILE_OK;
}

void tile_buffer_free(tile_buffer *b)
{
	if (!b)
		return;
	if (b->device)
		backend_cuda_free(b->ctx, b->ptr);
	else
		free(b->ptr);
	api_ctx_release(b->ctx);
	free(b);
}

void *tile_buffer_ptr(const tile_buffer *b) { return b ? b->ptr : NULL; }
size_t tile_buffer_size(const tile_buffer *b) { return b ? b->size : 0; }

static tile_status check_range(const tile_buffer *b, size_t offset, const void *p, size_t n,
                               const char *what)
{
	if (!b)
		return TILE_ERROR_INVALID_ARGUMENT;
	if (n && !p)
		return api_fail(b->ctx, TILE_ERROR_INVALID_ARGUMENT, "%s: NULL host pointer", what);
	if (offset > b->size || n > b->size - offset)
		return api_fail(b->ctx, TILE_ERROR_INVALID_ARGUMENT,
		                "%s: bytes [%zu, %zu) are outside the buffer of %zu bytes", what,
		                offset, offset + n, b->size);
	return TILE_OK;
}

tile_status tile_buffer_upload(tile_buffer *b, size_t offset, const void *src, size_t bytes)
{
	tile_status st = check_range(b, offset, src, bytes, "tile_buffer_upload");
	if (st != TILE_OK || !bytes)
		return st;
	if (b->device)
		return backend_cuda_copy(b->ctx, (char *)b->ptr + offset, src, bytes, true);
	memcpy((char *)b->ptr + offset, src, bytes);
	return TILE_OK;
}

tile_status tile_buffer_download(const tile_buffer *b, size_t offset, void *dst, size_t bytes)
{
	tile_status st = check_range(b, offset, dst, bytes, "tile_buffer_download");
	if (st != TILE_OK || !bytes)
		return st;
	if (b->device)
		return backend_cuda_copy(b->ctx, dst, (const char *)b->ptr + offset, bytes, false);
	memcpy(dst, (const char *)b->ptr + offset, bytes);
	return TILE_OK;
}

tile_status tile_synchronize(tile_context *ctx)
{
	if (!ctx)
		return TILE_ERROR_INVALID_ARGUMENT;
	if (ctx->target.kind == TARGET_CUDA)
		return backend_cuda_sync(ctx);
	return TILE_OK;
}

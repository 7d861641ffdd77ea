/* backend.c: the one place the API talks to the JIT engines.
 *
 * CPU: an OrcJit (jit/orc.h), created on the first CPU kernel, loads each
 * compiled object and hands back the kernel's entry point. The runtime hooks
 * (device_print, device_assert) forward to the context's callbacks.
 *
 * CUDA: the driver API (jit/cuda.h), opened on first use: module loading,
 * launches, device memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "jit/nvrtc.h"
#include "jit/orc.h"
#if __has_include("jit/cuda.h")
#include "jit/cuda.h"
#define HAVE_CUDA_API 1
#else
#define HAVE_CUDA_API 0
#endif

struct Backend {
	tile_context *ctx;
	OrcJit *orc;
	TileRuntimeHooks hooks;
	bool cuda_probed, cuda_ok;
	char cuda_target[24]; /* "sm_90a" */
	char cuda_err[256];   /* why CUDA is not available */
#if HAVE_CUDA_API
	CudaDriver cuda;
#endif
};

/* ---- runtime hooks ----------------------------------------------------------------- */

static void hook_print(void *user, const char *line)
{
	Backend *b = user;
	b->ctx->on_print(b->ctx->print_user, line, strlen(line));
}

/* Asserts and faults are the launch's (cpu_launch_note), so launches made at
 * once from several threads each report only their own. */
static void hook_assert(void *user, const char *msg, const int32_t pid[3], int32_t tid)
{
	(void)user;
	StrBuf m = {0}; /* whole: a 256-byte copy cut a long path or message, and where it failed */
	sb_printf(&m, "%s (program (%d, %d, %d), thread %d)", msg, pid[0], pid[1], pid[2], tid);
	cpu_launch_note(CPU_NOTE_ASSERT, m.s ? m.s : msg);
	sb_free(&m);
}

static void hook_fault(void *user, const char *msg)
{
	(void)user;
	cpu_launch_note(CPU_NOTE_FAULT, msg);
}

/* A while loop has spun: the launch may wait for an instance not started. */
static int hook_spin(void *user)
{
	(void)user; /* the launch is the one this thread runs an instance of */
	return cpu_launch_spin();
}

Backend *backend_create(tile_context *ctx)
{
	Backend *b = calloc(1, sizeof *b);
	if (!b)
		return NULL;
	b->ctx = ctx;
	b->hooks.print = hook_print;
	b->hooks.assert_fail = hook_assert;
	b->hooks.fault = hook_fault;
	b->hooks.spin = hook_spin;
	b->hooks.user = b;
	return b;
}

void backend_destroy(Backend *b)
{
	if (!b)
		return;
	orc_destroy(b->orc);
#if HAVE_CUDA_API
	if (b->cuda_ok)
		cuda_close(&b->cuda);
#endif
	free(b);
}

tile_status backend_fault_report(tile_kernel *k, const CpuLaunchNotes *notes)
{
	const char *msg = notes->fault_msg ? notes->fault_msg : "a fault";
	if (notes->faults > 1)
		return api_fail(k->ctx, TILE_ERROR_LAUNCH, "kernel '%s': %s; %d reports in all", k->name,
		                msg, notes->faults);
	return api_fail(k->ctx, TILE_ERROR_LAUNCH, "kernel '%s': %s", k->name, msg);
}

tile_status backend_assert_report(tile_kernel *k, const CpuLaunchNotes *notes)
{
	int n = notes->asserts;
	return api_fail(k->ctx, TILE_ERROR_LAUNCH, "kernel '%s': device_assert failed in %d thread%s: %s",
	                k->name, n, n == 1 ? "" : "s", notes->assert_msg ? notes->assert_msg : "");
}

/* ---- CPU ------------------------------------------------------------------------ */

static tile_status load_cpu(tile_context *ctx, tile_kernel *k)
{
	Backend *b = ctx->be;
	char err[512] = "";
	if (!b->orc) {
		b->orc = orc_create(err, sizeof err);
		if (!b->orc)
			return api_fail(ctx, TILE_ERROR_TARGET, "cannot start the LLVM JIT: %s",
			                err);
	}
	void *fn = orc_load(b->orc, k->ck.binary, k->ck.binary_len, k->ck.name, err, sizeof err);
	if (!fn)
		return api_fail(ctx, TILE_ERROR_INTERNAL,
		                "cannot load kernel '%s' into the JIT: %s", k->name, err);
	memcpy(&k->cpu_fn, &fn, sizeof fn);
	k->rt = &b->hooks;
	return TILE_OK;
}

/* ---- CUDA ------------------------------------------------------------------------ */

#if HAVE_CUDA_API
#include "api/backend_cuda.inc"
#else
bool backend_cuda_present(Backend *b, char *target, size_t n)
{
	(void)b, (void)target, (void)n;
	return false;
}

static tile_status no_cuda(tile_context *ctx)
{
	return api_fail(ctx, TILE_ERROR_TARGET, "this libtile was built without CUDA support");
}

static tile_status load_cuda(tile_context *ctx, tile_kernel *k)
{
	(void)k;
	return no_cuda(ctx);
}

static void unload_cuda(tile_kernel *k) { (void)k; }

tile_status backend_cuda_launch(tile_kernel *k, const uint32_t grid[3], void **argv, void *stream)
{
	(void)grid, (void)argv, (void)stream;
	return no_cuda(k->ctx);
}

tile_status backend_cuda_alloc(tile_context *ctx, size_t bytes, void **ptr)
{
	(void)bytes, (void)ptr;
	return no_cuda(ctx);
}

void backend_cuda_free(tile_context *ctx, void *ptr) { (void)ctx, (void)ptr; }

tile_status backend_cuda_copy(tile_context *ctx, void *dst, const void *src, size_t n,
                              bool to_device)
{
	(void)dst, (void)src, (void)n, (void)to_device;
	return no_cuda(ctx);
}

tile_status backend_cuda_sync(tile_context *ctx)
{
	(void)ctx;
	return TILE_OK;
}
#endif

const char *backend_cuda_reason(const Backend *b)
{
	return b->cuda_err[0] ? b->cuda_err : "this libtile was built without CUDA support";
}

/* ---- dispatch -------------------------------------------------------------------- */

tile_status backend_load(tile_context *ctx, tile_kernel *k)
{
	if (k->ck.target.kind == TARGET_CPU)
		return load_cpu(ctx, k);
	if (k->ck.target.kind == TARGET_CUDA) {
		k->is_cuda = true;
		return load_cuda(ctx, k);
	}
	return api_fail(ctx, TILE_ERROR_TARGET, "target '%s' cannot run kernels yet",
	                k->ck.target.name);
}

void backend_unload(tile_kernel *k)
{
	if (k->is_cuda)
		unload_cuda(k);
	/* CPU code stays in the OrcJit until the context is destroyed. */
}

/* emit.h: emitters turn a thread program into something a machine runs.
 *
 * Launch ABI, the same on every target: the runtime parameters of a kernel
 * are passed as `void **args` (args[i] points at the value of parameter i, as
 * with cuLaunchKernel's kernelParams).
 *
 * CPU: the emitted object defines
 *     void NAME(void **args, const int32_t pid[3], const int32_t nprog[3], void *smem,
 *               void *rt);
 * which runs ONE program instance: all num_warps * lanes_per_warp threads in
 * lock-step as SIMD lanes (ISPC-style). smem points at TpFunc.smem_bytes bytes
 * (16-byte aligned) owned by the caller (one buffer per worker thread).
 * rt is the launcher's TileRuntimeHooks (src/jit/orc.h) or NULL: device_print
 * calls `tile_rt_print(rt, ...)` per thread and value in thread order,
 * device_assert calls `tile_rt_assert(rt, ...)` per failing thread, and
 * a while loop with an atomic or a volatile load (one that may wait for
 * another program) calls `tile_rt_spin(rt)` once per SPIN_CHECK_ITERS
 * iterations (an instance that waits for another: jit/cpu_launch.h), and
 * ends the instance where it returns nonzero (runtime symbols the JIT
 * resolves; see src/jit/orc.h). The only other symbols the
 * object references are libm/libc functions (expf, tanhf, memcpy, ...).
 *
 * CUDA: the emitted source defines `extern "C" __global__ void NAME(T0 p0, ...)`
 * with blockDim.x = num_warps * 32 and static shared memory of smem_bytes.
 */
#ifndef TILE_EMIT_H
#define TILE_EMIT_H

#include "codegen/tp.h"

enum { SPIN_CHECK_ITERS = 256 }; /* a power of two */

typedef struct EmitResult {
	void *binary;    /* CPU: ELF object; CUDA: cubin (heap) */
	size_t binary_len;
	uint64_t stack_bytes; /* CPU: an upper bound of the stack one program instance needs */
	char *text;      /* the requested textual form (--emit=llvm/asm/cuda/ptx), heap, or NULL */
	double seconds_codegen; /* time spent in the backend (LLVM passes+codegen, nvrtc) */
	int registers;   /* CUDA binary and PTX: per thread, as ptxas reported of the cubin
	                  * (for PTX: the one it was chosen on); -1 unknown (CPU) */
	int spill_bytes; /* CUDA binary and PTX: spill stores per thread (ptxas); -1 unknown */
} EmitResult;

typedef enum { EMIT_BINARY, EMIT_LLVM_IR, EMIT_ASM, EMIT_CUDA_SRC, EMIT_PTX } EmitWhat;

/* CPU (src/codegen/emit_llvm.c). Returns false with a diagnostic on error. */
bool emit_llvm(const TpFunc *f, EmitWhat what, DiagSink *diags, EmitResult *out);
/* Choices emit_llvm otherwise makes from the host; tests force the portable
 * paths with them. */
typedef struct EmitCpuOptions {
	bool soft_f16; /* convert f16 <-> f32 with integer ops even where the host has instructions */
} EmitCpuOptions;
bool emit_llvm_with(const TpFunc *f, EmitWhat what, const EmitCpuOptions *o, DiagSink *diags,
                    EmitResult *out);

/* CUDA (src/codegen/emit_c.c). Compiles with libnvrtc loaded by dlopen; when
 * nvrtc is missing and a binary is requested, reports "libnvrtc not found"
 * and returns false. EMIT_CUDA_SRC works without nvrtc. `memo` (may be NULL):
 * where nvrtc runs are kept and reused for the same source (the variants of
 * one kernel's compile; jit/nvrtc_memo.c). */
typedef struct NvrtcMemo NvrtcMemo;
bool emit_cuda(const TpFunc *f, EmitWhat what, NvrtcMemo *memo, DiagSink *diags,
               EmitResult *out);
/* Starts compiling f to a cubin, as emit_cuda(f, EMIT_BINARY, memo) would,
 * on another thread, into memo; false where it did not start. */
bool emit_cuda_ahead(const TpFunc *f, NvrtcMemo *memo);

void emit_result_free(EmitResult *r);

#endif

/* orc.h: loading compiled CPU kernels (ELF objects from emit_llvm) into an
 * ORC LLJIT, and the runtime hooks that JIT'd kernels call.
 *
 * One OrcJit per tile context. Every orc_load gets its own JITDylib, so the
 * same kernel name can be loaded any number of times (two specializations of
 * one kernel, or a reload after the cache was cleared). With LLVM 14 the C API
 * cannot look a symbol up in any JITDylib but the main one, so each load gets
 * its own small LLJIT instance (about 0.2 ms to create) whose main JITDylib
 * holds that object alone; the code lives until orc_destroy.
 *
 * Symbols the objects may reference: the runtime hooks below and the libm /
 * libc functions the emitter calls (expf, tanhf, memcpy, ...), defined as
 * absolute symbols with their addresses in this process, so they resolve even
 * when libtile is linked statically and nothing exports them; anything else
 * falls back to the process's dynamic symbol table.
 *
 * Thread safety: orc_load and orc_destroy are serialized by a mutex inside
 * the OrcJit; a returned function may be called from any thread.
 */
#ifndef TILE_JIT_ORC_H
#define TILE_JIT_ORC_H

#include <stddef.h>
#include <stdint.h>

typedef struct OrcJit OrcJit;

/* NULL on failure with a message in err[0..n). */
OrcJit *orc_create(char *err, size_t n);
void orc_destroy(OrcJit *j); /* NULL: no-op */
/* Copies obj[0..len), links it, and returns the address of `symbol`, or NULL
 * with a message in err. */
void *orc_load(OrcJit *j, const void *obj, size_t len, const char *symbol, char *err, size_t n);

/* ---- runtime hooks --------------------------------------------------------------
 * The kernel's hidden last parameter `rt` (see codegen/emit.h) points at one of
 * these, owned by the launcher; it may be NULL (prints go nowhere, asserts are
 * not recorded). Kernels call the hooks concurrently from every worker thread
 * running a program instance: callbacks must be thread-safe. */
typedef enum {
	RT_PRINT_INT,
	RT_PRINT_UINT,
	RT_PRINT_FLOAT,
	RT_PRINT_HEX, /* kind | (hex digits << 8): zero-padded to the type's width */
	RT_PRINT_PTR,
	RT_PRINT_NONE /* a print without values: "pid (x, y, z)PREFIX" */
} RtPrintKind;

typedef struct TileRuntimeHooks {
	/* device_print: one line per thread and value, e.g.
	 * "pid (0, 0, 0) idx (  5) x: 1.500000\n", as Triton prints. NULL writes the line to stdout (the
	 * user asked for the output). */
	void (*print)(void *user, const char *line);
	/* device_assert: called for each thread whose condition is false, with
	 * msg = "file:line: message". NULL: only counted. */
	void (*assert_fail)(void *user, const char *msg, const int32_t pid[3], int32_t tid);
	/* A fault a GPU would have that the CPU emulation detected: a shared-memory
	 * race (TILE_RACECHECK, jit/rt_race.c; the first of each program instance)
	 * or a misaligned vector access on cuda-emu (tile_rt_misaligned). msg is
	 * one sentence starting with the kind. NULL: only counted. */
	void (*fault)(void *user, const char *msg);
	/* A program instance has run SPIN_CHECK_ITERS more iterations of a while
	 * loop (tile_rt_spin): it may be waiting for an instance that has not
	 * started (jit/cpu_launch.h, cpu_launch_spin). Returns nonzero when the
	 * launch was stopped by a failed device_assert: the instance ends. NULL:
	 * nothing. */
	int (*spin)(void *user);
	void *user;
	/* all launches' totals (updated atomically); a launch's own are counted
	 * by the hooks the API sets (jit/cpu_launch.h, cpu_launch_note) */
	int assert_count; /* number of failed thread-asserts */
	int fault_count;  /* faults reported */
} TileRuntimeHooks;

/* What the JIT'd code calls (the emitter declares these with the same types). */
/* idx[2 * nidx]: the element's coordinates in its tile ("idx (i, j)"), then
 * the width each is padded to; nidx = 0 prints "idx ()" (a scalar), nidx < 0
 * no idx (a print without values); prefix follows as it is (sema gave it
 * Triton's form, " x: "); operand >= 0: the value is that operand of a print
 * of several ("(operand i)"); tid is not printed. */
void tile_rt_print(void *rt, int32_t pid_x, int32_t pid_y, int32_t pid_z, int32_t tid,
                   const int32_t *idx, int32_t nidx, const char *prefix, int32_t operand, int32_t kind,
                   int64_t ival, double fval);
void tile_rt_assert(void *rt, const char *msg, int32_t pid_x, int32_t pid_y, int32_t pid_z,
                    int32_t tid);
/* tl.extra.cuda.globaltimer() / smid() on the CPU (which = TirSreg): the
 * real-time clock in nanoseconds / the CPU core running the program */
int64_t tile_rt_sreg(int32_t which);
/* A while loop's body calls this every SPIN_CHECK_ITERS (codegen/emit.h)
 * iterations: rt->spin's answer; nonzero ends the instance. */
int32_t tile_rt_spin(void *rt);
/* cuda-emu: a vector access a GPU would fault on. addr[t] is thread t's
 * address (a shared-memory byte offset when shared), bad[t] nonzero where it
 * is not a multiple of align; reports the first such thread through
 * rt->fault. where = "file:line:col (op)". */
void tile_rt_misaligned(void *rt, const int32_t *pid, const uint64_t *addr, const uint8_t *bad,
                        int32_t nthreads, int32_t lanes, int32_t align, int32_t shared,
                        const char *where);

/* mma.sync / ldmatrix emulation (rt_mma.c) for cuda-emu kernels. Operands are
 * per-thread registers stored row-wise, x[i * nthreads + t] = register i of
 * thread t; nthreads is a multiple of 32, warps are consecutive threads.
 * MMA: a/b/c/d hold na/nb/4/4 registers (f16, bf16: 8/4; tf32: 4/2; s8 and
 * fp8: 16/8) in the PTX fragment layouts; d may not alias a or b. fp8 operands
 * are the float8 bits (e4m3fn or e5m2, as the helper's name says for a, b). */
void tile_rt_mma_f16_f32(float *d, const uint16_t *a, const uint16_t *b, const float *c,
                         int32_t nthreads);
void tile_rt_mma_bf16_f32(float *d, const uint16_t *a, const uint16_t *b, const float *c,
                          int32_t nthreads);
void tile_rt_mma_tf32_f32(float *d, const float *a, const float *b, const float *c,
                          int32_t nthreads);
void tile_rt_mma_s8_s32(int32_t *d, const int8_t *a, const int8_t *b, const int32_t *c,
                        int32_t nthreads);
void tile_rt_mma_e4m3_e4m3_f32(float *d, const uint8_t *a, const uint8_t *b, const float *c,
                               int32_t nthreads);
void tile_rt_mma_e4m3_e5m2_f32(float *d, const uint8_t *a, const uint8_t *b, const float *c,
                               int32_t nthreads);
void tile_rt_mma_e5m2_e4m3_f32(float *d, const uint8_t *a, const uint8_t *b, const float *c,
                               int32_t nthreads);
void tile_rt_mma_e5m2_e5m2_f32(float *d, const uint8_t *a, const uint8_t *b, const float *c,
                               int32_t nthreads);
/* ldmatrix.x{nmat}[.trans].b16: off[t] = byte offset into smem of the row
 * thread t supplies; writes (4/eb)*nmat rows of nthreads eb-byte values. */
void tile_rt_ldmatrix(uint8_t *out, const uint8_t *smem, const int32_t *off, int32_t nmat,
                      int32_t trans, int32_t eb, int32_t nthreads);

/* Lane loops of gathers/scatters (rt_lanes.c): lane t's `size`-byte element
 * is at addr[t] + off (addr NULL: base + t * stride + off); lanes with a zero
 * mask byte are skipped (mask NULL: none). out/in hold nlanes elements. */
void tile_rt_lanes_load(uint8_t *out, const uint64_t *addr, uint8_t *base, int64_t stride,
                        int64_t off, const uint8_t *mask, int32_t nlanes, int32_t size);
void tile_rt_lanes_store(const uint8_t *in, const uint64_t *addr, uint8_t *base, int64_t stride,
                         int64_t off, const uint8_t *mask, int32_t nlanes, int32_t size);

#endif

/* emit_llvm_internal.h: state shared by the CPU emitter's files.
 *
 *   emit_llvm.c         module/function setup, control flow, op dispatch
 *   emit_llvm_backend.c verify, our pass list, block splitting, the stack
 *                       bound, object/asm emission
 *   emit_llvm_arith.c   elementwise ops, comparisons, math functions
 *   emit_llvm_cast.c    float formats and casts (f16/bf16/fp8 by bit
 *                       manipulation; emit_llvm_arith.h: what the two share)
 *   emit_llvm_mem.c     global loads/stores (coalesced vector, gather/scatter,
 *                       scalar), shared memory, cp.async
 *   emit_llvm_atomic.c  atomics (lane by lane; CAS loops for float min/max)
 *   emit_llvm_intrin.c  warp shuffles, mma.sync and ldmatrix emulation,
 *                       device print/assert hooks
 *   emit_llvm_gvn.c     whether GVN would be quadratic in a module's branches
 *   emit_llvm_check.c   what a GPU faults on and the CPU would not: shared-
 *                       memory races (TILE_RACECHECK), misaligned accesses
 *
 * Model (ISPC-style SPMD-on-SIMD): one call of the emitted function runs one
 * program instance; its T = num_warps * lanes_per_warp threads are the lanes
 * of <T x ty> vectors. A uniform thread-program value is an LLVM scalar; a
 * varying one is a vector. i1 masks are <T x i1>.
 */
#ifndef TILE_EMIT_LLVM_INTERNAL_H
#define TILE_EMIT_LLVM_INTERNAL_H

#include "codegen/emit.h"
#include "codegen/tp.h"

#include <llvm-c/Core.h>

typedef struct Em {
	const TpFunc *f;
	LLVMContextRef C;
	LLVMModuleRef M;
	LLVMBuilderRef B;
	LLVMValueRef fn;
	LLVMValueRef *vals; /* per TpVal: scalar (uniform) or <T x ty> (varying) */
	LLVMValueRef *lane0; /* per varying integer/pointer TpVal: its value in thread 0
	                      * as a scalar, when integer ops over lane/warp ids and
	                      * uniform values made it (NULL otherwise) */
	int T;              /* threads per program instance */
	int lanes;          /* lanes per warp */
	LLVMTypeRef t_void, t_i1, t_i8, t_i16, t_i32, t_i64, t_f32, t_f64, t_i8p;
	LLVMValueRef a_args, a_pid, a_nprog, a_smem, a_rt; /* function parameters */
	LLVMValueRef tid_vec;                              /* <T x i32> 0..T-1 (entry block) */
	LLVMBasicBlockRef entry;
	/* where a failed device_assert ends the instance (em_abort_block), as a
	 * GPU's trap ends the kernel; NULL until an assert asks for it */
	LLVMBasicBlockRef abort_bb;
	/* lane-loop gathers/scatters (emit_llvm_mem.c): stack arrays in the entry
	 * block, created on first use and reused by every such access */
	LLVMValueRef ll_addr, ll_mask; /* [T x i64] addresses, [T x i8] mask */
	struct {
		LLVMTypeRef t;
		int k;
		LLVMValueRef a; /* [T x t] */
	} ll_val[32];
	int n_ll_val;
	bool lane_calls;      /* lane loops run in libtile (em_wants_lane_calls) */
	bool smem_lane_calls; /* the same for shared-memory accesses */
	bool native_scatter; /* the host has 32/64-bit scatters (x86: AVX-512F) */
	bool f16_narrow_x86; /* f32 -> f16 vectors with vcvtps2ph (the host has F16C) */
	bool f16_widen_x86;  /* f16 -> f32 vectors with vcvtph2ps (the host has AVX-512F) */
	/* cp.async (emit_llvm_mem.c): this instance's queue header as i8* (NULL
	 * when the function has no CP_ASYNC), per-thread argument arrays */
	LLVMValueRef cpa_q, cpa_off, cpa_src, cpa_flags;
	/* race checker (emit_llvm_check.c): this instance's state as i8* (NULL
	 * when TpFunc.racecheck is off or there is no shared memory), per-thread
	 * argument arrays, a buffer for the values of a store */
	LLVMValueRef race, race_off, race_act, race_vals;
	LLVMValueRef chk_addr, chk_bad; /* the alignment check's report arrays */
	int run_mode;   /* RUN_*: how coalesced masked accesses check their mask */
	bool *run_defs; /* per TpVal: a load result of the current access run */
} Em;

/* Coalesced masked global accesses in a run (emit_block): RUN_NONE, each
 * access branches on its own "all lanes enabled"; RUN_ENABLED, the run's one
 * check passed: plain vector accesses; RUN_MASKED: masked accesses. */
enum { RUN_NONE, RUN_ENABLED, RUN_MASKED };

/* ---- helpers (emit_llvm.c) ---- */
LLVMTypeRef em_scalar_type(Em *e, Type t); /* value type: f16/bf16 -> i16, fp8 -> i8, ptr -> elem* */
LLVMTypeRef em_storage_type(Em *e, DType d); /* memory type: i1 -> i8 */
LLVMTypeRef em_vec(Em *e, LLVMTypeRef scalar); /* <T x scalar> */
LLVMTypeRef em_val_type(Em *e, TpVal v);       /* scalar or vector per uniformity */
LLVMValueRef em_get(Em *e, TpVal v);           /* as stored */
LLVMValueRef em_getv(Em *e, TpVal v);          /* always a vector (splats uniform values) */
LLVMValueRef em_splat(Em *e, LLVMValueRef s);
LLVMBasicBlockRef em_abort_block(Em *e); /* the instance's exit: copies land, races are reported */
LLVMValueRef em_match(Em *e, LLVMValueRef x, bool want_vec); /* splat if needed */
LLVMValueRef em_const_int(Em *e, LLVMTypeRef scalar_ty, int64_t v, bool vec);
LLVMValueRef em_const_f(Em *e, LLVMTypeRef scalar_ty, double v, bool vec);
LLVMValueRef em_intrinsic(Em *e, const char *name, LLVMTypeRef *ovl, int novl, LLVMValueRef *args,
                          int nargs);
LLVMValueRef em_call(Em *e, const char *name, LLVMTypeRef ret, LLVMTypeRef *params, int nparams,
                     LLVMValueRef *args);
bool em_is_vec(LLVMValueRef v);
LLVMValueRef em_lane_vec(Em *e); /* <T x i32> 0..T-1 */
void em_set(Em *e, TpVal v, LLVMValueRef x);
/* v in thread 0 as a scalar: a uniform value itself, else e->lane0[v] (may be NULL) */
LLVMValueRef em_lane0(Em *e, TpVal v);
LLVMValueRef em_entry_alloca(Em *e, LLVMTypeRef t, unsigned align); /* in the entry block */
/* (emit_llvm_mem.c) whether m is the constant true; a mask operand as a
 * <T x i1> vector, or NULL when there is none or it is true */
bool em_is_true_const(LLVMValueRef m);
LLVMValueRef em_mask_vec(Em *e, TpVal m);
/* whether every one of the n operands (0: none) is uniform across the threads */
bool em_all_uniform(Em *e, const TpVal *v, int n);

/* ---- per-file op emitters; each returns false when it does not handle op ---- */
bool em_arith(Em *e, const TpOp *op);
bool em_mem(Em *e, const TpOp *op);
void em_atomic(Em *e, const TpOp *op); /* TP_ATOMIC, TP_ATOMIC_CAS (emit_llvm_atomic.c) */
bool em_intrin(Em *e, const TpOp *op);

/* cp.async queue (emit_llvm_mem.c): setup in the entry block (only when the
 * function has a CP_ASYNC), COMMIT/WAIT, and retiring everything at return */
void em_cp_async_setup(Em *e);
void em_cp_async_sync(Em *e, const TpOp *op);
void em_cp_async_fini(Em *e);

/* cuda-emu (target.emulate): fails the launch where an active thread's addr
 * (pointers, or shared-memory byte offsets when shared) is not a multiple of
 * align, as a GPU faults on such a vector access (emit_llvm_check.c) */
void em_align_check(Em *e, const TpOp *op, LLVMValueRef addr, LLVMValueRef active, int align,
                    bool shared);
/* The alignment a GPU needs for vec elements of eb bytes moved at once by
 * emit_c: global accesses move chunks of up to 16 bytes; shared-memory ones
 * use one 2/4/8/16-byte word where the total is one, else element by element. */
static inline int em_global_align(int vec, int eb)
{
	return vec * eb > 16 ? 16 : vec * eb;
}
static inline int em_shared_align(int vec, int eb)
{
	int t = vec * eb;
	return vec > 1 && (t == 16 || t == 8 || t == 4 || t == 2) ? t : eb;
}

/* shared-memory race checker (emit_llvm_check.c; jit/rt_race.h): setup in the
 * entry block after the cp.async queue's, one call per access (active: the
 * threads that access, i1 or i8, NULL = all; for writes the vec values
 * written, as stored), barriers, and freeing at return. No-ops unless on. */
static inline int em_mem_bytes(DType d) /* bytes of an element in memory (i1: a byte) */
{
	return dtype_bytes(d) > 0 ? dtype_bytes(d) : 1;
}
void em_race_setup(Em *e);
void em_race_access(Em *e, const TpOp *op, LLVMValueRef active, int bytes, int eb, int kind,
                    const LLVMValueRef *vals, int nvals);
void em_race_barrier(Em *e);
void em_race_fini(Em *e);

/* conversions shared between files (emit_llvm_cast.c) */
LLVMValueRef em_to_f32(Em *e, LLVMValueRef x, DType d);             /* any float dtype -> f32 */
LLVMValueRef em_from_f32(Em *e, LLVMValueRef x, DType d, bool rtz); /* f32 -> float dtype */
LLVMValueRef em_cast(Em *e, LLVMValueRef x, DType from, DType to, bool rtz, LLVMTypeRef to_scalar);

/* emit_llvm_mem.c: whether f has so many global (smem: shared-memory)
 * accesses that their lane loops should be calls into libtile rather than
 * inline (compile time) */
bool em_wants_lane_calls(const TpFunc *f, bool smem);
/* The most conditional branches (switch cases) of M that test one value for
 * equality with a constant (emit_llvm_gvn.c): GVN is quadratic in them. */
size_t em_eq_branch_fanout(LLVMModuleRef M);

/* emit_llvm_backend.c: passes, block splitting, the stack bound and code
 * generation of e->M into out as `what` asks; ice() on invalid IR */
bool em_backend(Em *e, EmitWhat what, DiagSink *diags, EmitResult *out);
void em_verify_module(LLVMModuleRef M, const char *when);

#endif

/* tp.h: the thread program: what ONE thread of a program instance executes.
 *
 * Produced by lowering (src/codegen/lower*.c) from the Tile IR with layouts;
 * printed by the emitters as LLVM IR (CPU, src/codegen/emit_llvm.c) or CUDA C
 * (src/codegen/emit_c.c). Target-neutral except for named intrinsics (MMA,
 * LDMATRIX, CP_ASYNC), which the CPU emitter emulates lane-exactly.
 *
 * - Values are scalars (a tile became an array of per-thread registers during
 *   lowering); indices into TpFunc.vals, 0 = none.
 * - A value is `uniform` when every thread of the program instance holds the
 *   same value (constants, params, program ids, and pure ops over uniform
 *   operands). The CPU emitter keeps uniform values scalar and varying values
 *   as vectors of one element per thread; CUDA ignores the flag.
 * - Control flow is structured and uniform (conditions are always uniform), so
 *   every thread runs every op: there is no divergence to model.
 * - Memory: global pointers (DT_PTR, with the pointee dtype in Type.elem) and
 *   one per-program shared-memory buffer of TpFunc.smem_bytes bytes, addressed
 *   by i32 byte offsets.
 * - Threads: tid = warp * lanes_per_warp + lane; nthreads = num_warps * lanes.
 */
#ifndef TILE_TP_H
#define TILE_TP_H

#include "ir/target.h"
#include "ir/tir.h"
#include "ir/types.h"
#include "util/util.h"

typedef uint32_t TpVal;

/* X(NAME, "name", flags); TF_* flags are shared with the Tile IR. */
#define TP_OPS(X) \
	X(CONST, "const", TF_PURE)          /* attr.i / attr.f (by result dtype) */ \
	X(PARAM, "param", TF_PURE)          /* attr.i = index of the runtime parameter */ \
	X(LANE_ID, "lane_id", TF_PURE) \
	X(WARP_ID, "warp_id", TF_PURE) \
	X(PROGRAM_ID, "program_id", TF_PURE)     /* attr.axis */ \
	X(NUM_PROGRAMS, "num_programs", TF_PURE) /* attr.axis */ \
	X(ADD, "add", TF_PURE) X(SUB, "sub", TF_PURE) X(MUL, "mul", TF_PURE) \
	X(DIV, "div", TF_PURE) X(REM, "rem", TF_PURE) \
	X(AND, "and", TF_PURE) X(OR, "or", TF_PURE) X(XOR, "xor", TF_PURE) \
	X(SHL, "shl", TF_PURE) X(SHR, "shr", TF_PURE) \
	X(MIN, "min", TF_PURE) X(MAX, "max", TF_PURE) X(UMULHI, "umulhi", TF_PURE) \
	X(CMP, "cmp", TF_PURE)              /* attr.pred; i1 result */ \
	X(NEG, "neg", TF_PURE) X(NOT, "not", TF_PURE) \
	X(MATH, "math", TF_PURE)            /* attr.math */ \
	X(FMA, "fma", TF_PURE) \
	X(SELECT, "select", TF_PURE)        /* (cond, a, b) */ \
	X(CAST, "cast", TF_PURE) X(BITCAST, "bitcast", TF_PURE) \
	X(PTR_ADD, "ptr_add", TF_PURE)      /* (ptr, int offset in ELEMENTS of the pointee) */ \
	X(PTR_TO_INT, "ptr_to_int", TF_PURE) X(INT_TO_PTR, "int_to_ptr", TF_PURE) \
	X(LOAD, "load", TF_MEM)             /* (ptr, mask, other[0..vec-1]) -> vec results; attr.i = vec; ptr = first element; elements consecutive */ \
	X(STORE, "store", TF_MEM)           /* (ptr, mask, vals[0..vec-1]); attr.i = vec */ \
	X(ATOMIC, "atomic", TF_MEM)         /* (ptr, val0..valN-1, mask) attr.atomic; N consecutive elements' old values */ \
	X(ATOMIC_CAS, "atomic_cas", TF_MEM) /* (ptr, cmp, val, mask) result old value */ \
	X(SHFL_XOR, "shfl_xor", TF_PURE)    /* (val) attr.i = lane mask: value of lane (lane ^ mask) in the same warp */ \
	X(SHFL_IDX, "shfl_idx", TF_PURE)    /* (val, src_lane i32) value of lane src_lane in the same warp */ \
	X(WARP_XOR, "warp_xor", TF_PURE)    /* (val) attr.i = warp mask: value of the same lane in warp (warp ^ mask); only where a program's warps are one SIMD vector (the native CPU) */ \
	X(UNIFORM, "uniform", TF_PURE)      /* (val) val as a uniform value: thread 0's, which every thread holds (a scalar of the Tile IR, e.g. a full reduction, kept in every thread) */ \
	X(SMEM_LOAD, "smem_load", TF_MEM)   /* (byte_off i32, mask) attr.i = vec, results vec; result dtype = element */ \
	X(SMEM_STORE, "smem_store", TF_MEM) /* (byte_off i32, mask, vals[vec]) attr.i = vec */ \
	X(BARRIER, "barrier", TF_MEM)       /* all threads of the program instance */ \
	X(SREG, "sreg", TF_MEM)             /* attr.i = TirSreg: this thread's special register (globaltimer u64, smid i32) */ \
	X(MMA, "mma", TF_PURE)              /* attr.i = MmaKind; operands a[], b[], c[] (unpacked scalars); results d[] */ \
	X(LDMATRIX, "ldmatrix", TF_MEM)     /* (byte_off i32 of this lane's row) attr.i = number of 8x8 matrices (1,2,4), attr.flags & TP_TRANS; results attr.i 32-bit words as 2 16-bit, 4 8-bit or 1 32-bit values each (TRANS: 16-bit) */ \
	X(CP_ASYNC, "cp_async", TF_MEM)     /* (global ptr, byte_off i32, mask, [pred]) attr.i = bytes (4, 8, 16); copies global->shared, zero-filling when mask is false; with pred false the thread issues nothing; the data lands by the CP_ASYNC_WAIT that covers its group */ \
	X(CP_ASYNC_COMMIT, "cp_async_commit", TF_MEM) \
	X(CP_ASYNC_WAIT, "cp_async_wait", TF_MEM) /* attr.i = groups allowed in flight */ \
	X(PRINT, "print", TF_MEM)           /* (values...) attr.str prefix; prints pid, tid and values; attr.i = k > 0: the first k operands are the element's coordinates (tile print, one op per register), the last the value; attr.i2 = n > 0: it is operand n-1 of a print of several, labelled "(operand n-1)" as Triton does */ \
	X(ASSERT, "assert", TF_MEM)         /* (cond) attr.str = "file:line: message" */ \
	X(FOR, "for", TF_REGION)            /* (lb, ub, step, inits...) region 0 args (iv, iters...); results = iters */ \
	X(IF, "if", TF_REGION)              /* (cond) regions then/else, YIELD results */ \
	X(WHILE, "while", TF_REGION)        /* as in the Tile IR: before (CONDITION), after (YIELD) */ \
	X(YIELD, "yield", TF_TERM) \
	X(CONDITION, "condition", TF_TERM) \
	X(RETURN, "return", TF_TERM)

typedef enum {
#define X(n, s, f) TP_##n,
	TP_OPS(X)
#undef X
	TP_COUNT
} TpOpKind;

/* attr.flags: TP_TRANS on LDMATRIX (.trans); TP_COALESCED on LOAD/STORE (and
 * SMEM_LOAD/SMEM_STORE) when lowering proved that thread t's pointer =
 * thread 0's pointer + t * vec elements for every op (lane, then warp order),
 * so a CPU emitter may use one contiguous vector access instead of a
 * gather/scatter (the mask still applies per element group). On LOAD/STORE,
 * attr.axis = R > 0 narrows that to aligned runs of R threads (thread t's
 * pointer = thread (t - t % R)'s + (t % R) * vec elements): a few vectors. */
enum { /* each meaningful on the op kinds named (a LOAD also carries TIR_VOLATILE, 4) */
	TP_TRANS = 1,
	TP_COALESCED = 2,
	TP_USER = 4,     /* BARRIER: tl.debug_barrier's (tp_drop_barriers keeps it) */
	TP_DISJOINT = 8, /* OR: the operands share no set bit, so ADD gives the same value (lw_coord) */
};

/* mma.sync shapes (operands are listed per lane, in PTX fragment order, unpacked) */
typedef enum {
	MMA_M16N8K16_F16_F32,  /* a: 8 x f16, b: 4 x f16, c/d: 4 x f32 */
	MMA_M16N8K16_BF16_F32, /* a: 8 x bf16, b: 4 x bf16, c/d: 4 x f32 */
	MMA_M16N8K8_TF32_F32,  /* a: 4 x f32 (as tf32), b: 2 x f32, c/d: 4 x f32 */
	MMA_M16N8K32_S8_S32,   /* a: 16 x i8, b: 8 x i8, c/d: 4 x i32 */
	/* fp8 (sm_89+): a: 16 x 8-bit, b: 8 x 8-bit (the s8 fragment layout), c/d: 4 x f32 */
	MMA_M16N8K32_E4M3_E4M3_F32,
	MMA_M16N8K32_E4M3_E5M2_F32, /* a e4m3, b e5m2 */
	MMA_M16N8K32_E5M2_E4M3_F32,
	MMA_M16N8K32_E5M2_E5M2_F32,
	MMA_KIND_COUNT
} MmaKind;

/* The fp8 kinds are E4M3_E4M3 + 2 * (a is e5m2) + (b is e5m2). m16n8k32 kinds
 * share one fragment layout (PTX ISA "Matrix Fragments for mma.m16n8k32"). */
static inline bool mma_kind_is_k32(int k)
{
	return k == MMA_M16N8K32_S8_S32 || (k >= MMA_M16N8K32_E4M3_E4M3_F32 && k < MMA_KIND_COUNT);
}

/* Unpacked a operands per lane of an mma of kind k (b has half as many). */
static inline int mma_kind_na(int k)
{
	return mma_kind_is_k32(k) ? 16 : k == MMA_M16N8K8_TF32_F32 ? 4 : 8;
}

typedef struct TpOp TpOp;
typedef struct TpBlock {
	TpVal *args;
	int nargs;
	TpOp **ops;
	int nops, cap;
	TpOp *parent;
} TpBlock;

struct TpOp {
	uint16_t kind; /* TpOpKind */
	SrcLoc loc;
	TpVal *operands;
	int nin;
	TpVal *results;
	int nout;
	TpBlock *regions;
	int nregions;
	TirAttr attr; /* same attribute record as the Tile IR */
};

typedef struct TpValInfo {
	Type ty;      /* always rank 0 */
	bool uniform;
} TpValInfo;

typedef struct TpParam {
	const char *name;
	Type ty; /* scalar or pointer */
	int spec;
} TpParam;

typedef struct TpFunc {
	Arena *arena;
	const char *name; /* the kernel's name: the symbol the emitters define */
	const char *display; /* the user's name when it differs (Class.name), for listings */
	VEC(TpValInfo) vals;
	TpBlock *body;
	TpParam *params;  /* runtime parameters in order (args[i] in the launch ABI) */
	int nparams;
	int num_warps;
	int lanes_per_warp;
	int smem_bytes;
	bool prefetched; /* tp_prefetch_dot_operands changed a loop */
	bool or_coords;  /* a register coordinate is lane/warp part | constant (lw_coord) */
	bool wide_addr;  /* CompileOptions.wide_addr: CUDA C prints pointer + i32 as mad.wide.s32 */
	bool line_info;  /* emit_c: #line directives and nvrtc -lineinfo */
	bool no_fmad;    /* emit_c: nvrtc --fmad=false (Triton's enable_fp_fusion=False) */
	bool racecheck;  /* emit_llvm: check shared-memory accesses for races (TILE_RACECHECK) */
	TargetDesc target;
} TpFunc;

/* Construction (src/codegen/tp.c). tp_op computes `uniform` for results:
 * uniform iff the op is pure or a load, not LANE_ID, WARP_ID, SHFL_XOR, SHFL_IDX, MMA, LDMATRIX,
 * and all operands are uniform; UNIFORM's result always is. */
TpFunc *tp_func_new(Arena *a, const char *name, const TargetDesc *t, int num_warps);
TpVal tp_new_val(TpFunc *f, Type t, bool uniform);
TpBlock *tp_block_new(TpFunc *f);
TpVal tp_block_add_arg(TpFunc *f, TpBlock *b, Type t, bool uniform);
TpOp *tp_op(TpFunc *f, TpBlock *b, TpOpKind k, SrcLoc loc, const TpVal *in, int nin,
	    const Type *out_types, int nout);
void tp_op_add_regions(TpFunc *f, TpOp *op, int n);
static inline Type tp_type(const TpFunc *f, TpVal v) { return f->vals.data[v].ty; }
static inline bool tp_uniform(const TpFunc *f, TpVal v) { return f->vals.data[v].uniform; }
const char *tp_op_name(TpOpKind k);
int tp_op_flags(TpOpKind k);
/* The most 32-bit registers a loop of b (or a loop nested in it) carries from
 * one iteration to the next: its global pointers (two each) where `pointers`,
 * else its values that are not pointers. */
int tp_loop_carried_words(const TpFunc *f, const TpBlock *b, bool pointers);

/* --emit=thread, and the verifier run after lowering (ice() on failure). */
void tp_print(const TpFunc *f, StrBuf *out);
/* Hoists loop-invariant pure ops out of loops and merges equal pure ops
 * (tp_cse.c). */
void tp_cse_hoist(TpFunc *f);
/* Moves shared-memory loads (ldmatrix, smem_load) down to their first use,
 * past ops that do not write shared memory (tp_sched.c). */
void tp_sink_smem_loads(TpFunc *f);
/* Reads the first k step of a pipelined dot loop's operands one iteration
 * ahead, carried into the next (tp_prefetch.c). */
void tp_prefetch_dot_operands(TpFunc *f);
/* Moves each barrier that ends a phase's shared reads down past the global
 * stores of what was read (tp_barrier.c). Returns how many moved. */
int tp_sink_barriers(TpFunc *f);
/* Removes lowering's barriers that another barrier makes redundant: on every
 * path after one, a barrier comes before any shared-memory access
 * (tp_barrier.c). Returns how many it removed. */
int tp_drop_barriers(TpFunc *f);
void tp_verify(const TpFunc *f);

/* Lowering entry point (src/codegen/lower.c): Tile IR with layouts -> thread program. */
TpFunc *lower_func(Arena *a, DiagSink *diags, const TirFunc *f, const TargetDesc *t,
		   const CompileOptions *o);

#endif

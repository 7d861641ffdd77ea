/* tir.h: the Tile IR.
 *
 * Produced by sema (src/sema/), annotated by src/layout/ (a LinearLayout on
 * every tile value, CONVERT_LAYOUT ops where producer and consumer disagree),
 * consumed by lowering (src/codegen/lower*.c).
 *
 * Shape of the IR (Triton's TTIR/TTGIR, QBE's indices):
 * - SSA values are indices (ValId) into TirFunc.vals; 0 is "no value".
 * - Each value has a Type: a scalar or a tile with a static power-of-two shape.
 * - Ops live in blocks; control flow is structured (FOR/IF/WHILE own regions,
 *   each region is one TirBlock ending in YIELD or CONDITION). No CFG, no phis:
 *   loop-carried values are block arguments, as in scf.for.
 * - All control flow is uniform over a program instance: conditions are
 *   scalars (sema rejects a tile used as a branch condition).
 * - Every op kind is listed once in TIR_OPS; the printer, verifier and purity
 *   flags are generated from that table.
 */
#ifndef TILE_TIR_H
#define TILE_TIR_H

#include "ir/target.h"
#include "ir/types.h"
#include "util/util.h"

struct LinearLayout;

typedef uint32_t ValId;

/* Op flags */
enum { TF_PURE = 1, TF_TERM = 2, TF_REGION = 4, TF_MEM = 8 };

/* X(NAME, "print-name", flags)   -- operands / attributes in the comments */
#define TIR_OPS(X) \
	X(CONST, "const", TF_PURE)             /* attr.i or attr.f; result may be a tile (a splat constant) */ \
	X(PROGRAM_ID, "program_id", TF_PURE)   /* attr.axis; i32 */ \
	X(NUM_PROGRAMS, "num_programs", TF_PURE) /* attr.axis; i32 */ \
	X(ARANGE, "arange", TF_PURE)           /* attr.i = start, attr.i2 = end; <N x i32> */ \
	X(SPLAT, "splat", TF_PURE)             /* (scalar) -> tile */ \
	X(BROADCAST, "broadcast", TF_PURE)     /* (tile) -> tile of the result shape; size-1 dims grow */ \
	X(EXPAND_DIMS, "expand_dims", TF_PURE) /* (tile) attr.axis: inserts a size-1 dim */ \
	X(RESHAPE, "reshape", TF_PURE)         /* (tile) row-major reshape */ \
	X(TRANS, "trans", TF_PURE)             /* (tile) attr.perm[rank]: result dim i = operand dim perm[i] */ \
	X(CONVERT_LAYOUT, "convert_layout", TF_PURE) /* (tile) same type, result->layout differs */ \
	X(ADD, "add", TF_PURE) X(SUB, "sub", TF_PURE) X(MUL, "mul", TF_PURE) \
	X(DIV, "div", TF_PURE)                 /* float: IEEE div (attr.flags & TIR_DIV_RN: round-to-nearest); int: truncating */ \
	X(REM, "rem", TF_PURE)                 /* int: C remainder (sign of dividend); float: fmod */ \
	X(AND, "and", TF_PURE) X(OR, "or", TF_PURE) X(XOR, "xor", TF_PURE) \
	X(SHL, "shl", TF_PURE) X(SHR, "shr", TF_PURE) /* SHR: arithmetic for signed, logical for unsigned */ \
	X(MIN, "min", TF_PURE) X(MAX, "max", TF_PURE) /* floats: attr.flags & TIR_PROPAGATE_NAN */ \
	X(UMULHI, "umulhi", TF_PURE)           /* high half of an unsigned product (Philox) */ \
	X(CMP, "cmp", TF_PURE)                 /* attr.pred (TirPred); result i1; signedness from operand type */ \
	X(NEG, "neg", TF_PURE) \
	X(NOT, "not", TF_PURE)                 /* bitwise not (logical for i1) */ \
	X(MATH, "math", TF_PURE)               /* attr.math (MathFn); 1 or 2 operands */ \
	X(FMA, "fma", TF_PURE)                 /* (a, b, c) = a*b+c, fused */ \
	X(SELECT, "select", TF_PURE)           /* (cond i1, a, b) */ \
	X(CAST, "cast", TF_PURE)               /* value conversion to the result type (fp rounding: attr.flags & TIR_RTZ) */ \
	X(BITCAST, "bitcast", TF_PURE)         /* same bit width */ \
	X(PTR_ADD, "ptr_add", TF_PURE)         /* (ptr, int offset in elements) */ \
	X(PTR_TO_INT, "ptr_to_int", TF_PURE) X(INT_TO_PTR, "int_to_ptr", TF_PURE) \
	X(LOAD, "load", TF_MEM)                /* (ptr, [mask], [other]) attr.flags TIR_HAS_MASK/TIR_HAS_OTHER/TIR_VOLATILE; attr.i = cache hint; after layout assignment attr.i2 = vector width and attr.perm[d] = the run of consecutive addresses along d that axis analysis proves (also STORE, ATOMIC) */ \
	X(STORE, "store", TF_MEM)              /* (ptr, val, [mask]) */ \
	X(ATOMIC, "atomic", TF_MEM)            /* (ptr, val, [mask]) attr.atomic (AtomicOp), attr.i = sem; result = old value */ \
	X(ATOMIC_CAS, "atomic_cas", TF_MEM)    /* (ptr, cmp, val) result = old value */ \
	X(REDUCE, "reduce", TF_REGION)         /* (tiles...) attr.axis; region 0: args (acc..., x...) yields n; results n with the axis removed (a 1-D input gives scalars) */ \
	X(SCAN, "scan", TF_REGION)             /* (tiles...) attr.axis, attr.flags & TIR_REVERSE; region like REDUCE; results same shape */ \
	X(DOT, "dot", TF_PURE)                 /* (a [M,K], b [K,N], acc [M,N]) attr.i = InputPrecision */ \
	X(PRINT, "print", TF_MEM)              /* (values...) attr.str = prefix, attr.flags & TIR_HEX */ \
	X(ASSERT, "assert", TF_MEM)            /* (cond) attr.str = message; loc = the source assert */ \
	X(BARRIER, "barrier", TF_MEM) \
	X(SREG, "sreg", TF_MEM)                /* attr.i = TirSreg; a scalar read anew each time (never merged or moved) */ \
	X(ASYNC_COPY, "async_copy", TF_MEM)    /* (ptr tile, mask i1 tile, slot i32) attr.i = buffer (TirFunc.bufs); attr.i2 = vector width as on LOAD: copies the pointed-to elements into slot `slot`, 0 where mask is false; the data is only there after an ASYNC_WAIT that covers its group and a BARRIER */ \
	X(ASYNC_COMMIT, "async_commit", TF_MEM) /* closes the group of the ASYNC_COPYs issued since the last commit */ \
	X(ASYNC_WAIT, "async_wait", TF_MEM)    /* attr.i = groups allowed to stay in flight (the newest ones) */ \
	X(LOCAL_LOAD, "local_load", TF_MEM)    /* (slot i32) attr.i = buffer -> tile of the buffer's type, any layout */ \
	X(LOCAL_STORE, "local_store", TF_MEM)  /* (tile, slot i32) attr.i = buffer: writes the tile into the slot (readable by other threads after a BARRIER) */ \
	X(FOR, "for", TF_REGION)               /* (lb, ub, step, inits...) region 0 args (iv, iters...); results = iters; attr.i = num_stages (0 = default) */ \
	X(IF, "if", TF_REGION)                 /* (cond) region 0 = then, region 1 = else; results from YIELDs */ \
	X(WHILE, "while", TF_REGION)           /* (inits...) region 0 "before" args = iters, ends CONDITION(cond, vals...); region 1 "after" args = vals, ends YIELD(iters) ; results = vals */ \
	X(YIELD, "yield", TF_TERM) \
	X(CONDITION, "condition", TF_TERM) \
	X(RETURN, "return", TF_TERM)           /* only at the end of the kernel's entry block */

typedef enum {
#define X(n, s, f) TOP_##n,
	TIR_OPS(X)
#undef X
	TOP_COUNT
} TirOpKind;

enum { /* attr.flags */
	TIR_HAS_MASK = 1, TIR_HAS_OTHER = 2, TIR_VOLATILE = 4, TIR_PROPAGATE_NAN = 8,
	TIR_REVERSE = 16, TIR_HEX = 32, TIR_DIV_RN = 64, TIR_RTZ = 128,
	TIR_PIPELINED = 256, /* FOR: software pipelined (layout/pipeline.c); its body reads bufs */
	TIR_HOLDS_BUFS = 4096, /* FOR/WHILE: its body reads bufs written before it (TirSmemBuf.loop) */
	TIR_USER_BARRIER = 8192, /* BARRIER: tl.debug_barrier's, which orders global memory too */
	TIR_NO_LICM = 16384, /* FOR/WHILE: tl.range(..., disable_licm=True) or tl.condition(c, disable_licm=True):
	                        nothing is hoisted out of it (tir_licm.c) */
	/* REDUCE: tl.argmax / tl.argmin, operands (values, the axis iota), the region
	 * Triton's _argmax_combine / _argmin_combine (TIR_TIE_LEFT: tie_break_left),
	 * which lowering may emit in a cheaper exact form (lower_reduce.c) */
	TIR_ARGMAX = 512, TIR_ARGMIN = 1024, TIR_TIE_LEFT = 2048,
};

/* LOAD/STORE attr.i = cache modifier | eviction policy << 8 (added by sema). */
enum { TIR_CACHE_NONE, TIR_CACHE_CA, TIR_CACHE_CG, TIR_CACHE_CV, TIR_CACHE_WB, TIR_CACHE_CS, TIR_CACHE_WT };
enum { TIR_EVICT_NORMAL, TIR_EVICT_FIRST, TIR_EVICT_LAST };
/* ATOMIC/ATOMIC_CAS attr.i = memory semantics | scope << 8 (Triton defaults: acq_rel, gpu). */
enum { TIR_SEM_ACQ_REL, TIR_SEM_RELAXED, TIR_SEM_ACQUIRE, TIR_SEM_RELEASE };
enum { TIR_SCOPE_GPU, TIR_SCOPE_CTA, TIR_SCOPE_SYS };

typedef enum { PRED_EQ, PRED_NE, PRED_LT, PRED_LE, PRED_GT, PRED_GE } TirPred;

#define MATH_FNS(X) \
	X(EXP, "exp", 1) X(EXP2, "exp2", 1) X(LOG, "log", 1) X(LOG2, "log2", 1) \
	X(SQRT, "sqrt", 1) X(RSQRT, "rsqrt", 1) X(SIN, "sin", 1) X(COS, "cos", 1) \
	X(TAN, "tan", 1) X(TANH, "tanh", 1) X(ERF, "erf", 1) X(FLOOR, "floor", 1) \
	X(CEIL, "ceil", 1) X(ABS, "abs", 1) X(POW, "pow", 2) X(ATAN2, "atan2", 2) \
	X(LOG1P, "log1p", 1) X(EXPM1, "expm1", 1) X(ROUND, "round", 1) X(TRUNC, "trunc", 1) \
	X(ASIN, "asin", 1) X(ACOS, "acos", 1) X(ATAN, "atan", 1) X(SINH, "sinh", 1) \
	X(COSH, "cosh", 1) X(FMOD, "fmod", 2) X(CBRT, "cbrt", 1) X(RINT, "rint", 1) \
	X(ISNAN, "isnan", 1) X(ISINF, "isinf", 1) X(SIGNBIT, "signbit", 1) X(FDIM, "fdim", 2) \
	X(HYPOT, "hypot", 2) X(COPYSIGN, "copysign", 2) X(POPC, "popc", 1) X(CLZ, "clz", 1) \
	/* libdevice's, from libm (CPU) and CUDA's math library */ \
	X(LOG10, "log10", 1) X(ACOSH, "acosh", 1) X(ASINH, "asinh", 1) X(ATANH, "atanh", 1) \
	X(ERFC, "erfc", 1) X(LGAMMA, "lgamma", 1) X(TGAMMA, "tgamma", 1) X(LOGB, "logb", 1) \
	X(J0, "j0", 1) X(J1, "j1", 1) X(Y0, "y0", 1) X(Y1, "y1", 1) \
	X(NEXTAFTER, "nextafter", 2) X(REMAINDER, "remainder", 2)

typedef enum {
#define X(n, s, a) MATH_##n,
	MATH_FNS(X)
#undef X
	MATH_COUNT
} MathFn;

typedef enum { ATOM_ADD, ATOM_MAX, ATOM_MIN, ATOM_XCHG, ATOM_AND, ATOM_OR, ATOM_XOR } AtomicOp;
/* SREG: tl.extra.cuda.globaltimer() (u64 nanoseconds: %globaltimer on NVIDIA,
 * the real-time clock on the CPU) and smid() (i32: %smid; the CPU core on the CPU) */
typedef enum { SREG_GLOBALTIMER, SREG_SMID } TirSreg;
/* BF16X3/BF16X6 never reach a DOT: sema splits the operands into bf16 parts
 * (builtins_dot.c); TF32X3 does on targets without tensor cores (as IEEE) */
typedef enum { PREC_IEEE, PREC_TF32, PREC_TF32X3, PREC_BF16X3, PREC_BF16X6 } InputPrecision;

typedef struct TirOp TirOp;
typedef struct TirBlock TirBlock;

typedef struct TirAttr {
	int64_t i, i2;
	double f;
	int axis;
	int pred;   /* TirPred */
	int math;   /* MathFn */
	int atomic; /* AtomicOp */
	int flags;
	int perm[TIR_MAX_RANK];
	const char *str;
} TirAttr;

struct TirBlock {
	ValId *args;
	int nargs;
	TirOp **ops;
	int nops, cap;
	TirOp *parent; /* owning op, NULL for the entry block */
};

struct TirOp {
	uint16_t kind; /* TirOpKind */
	SrcLoc loc;
	ValId *operands;
	int nin;
	ValId *results;
	int nout;
	TirBlock *regions; /* array of nregions blocks */
	int nregions;
	TirAttr attr;
	TirBlock *block; /* containing block */
};

typedef struct TirVal {
	Type ty;
	TirOp *def;       /* defining op, NULL for block arguments */
	int index;        /* result index in def, or argument index in block */
	TirBlock *block;  /* for block arguments: the block */
	const struct LinearLayout *layout; /* set by layout_assign for tiles; NULL for scalars */
	const char *name; /* source variable name, if any (dumps only) */
} TirVal;

/* How a runtime kernel parameter was specialized (Triton's launcher rules). */
enum { SPEC_NONE = 0, SPEC_DIV16 = 1, SPEC_EQ1 = 2,
       /* in KernelArgDesc only: the code accesses memory through this pointer
        * (a CPU launch refuses NULL for it) */
       SPEC_ACCESSED = 4 };

typedef struct TirParam {
	const char *name;
	Type ty;      /* scalar or pointer */
	int spec;     /* SPEC_* : integer divisible by 16 / equal to 1; pointer 16-byte aligned (DIV16) */
	ValId val;    /* the entry block argument */
} TirParam;

/* Axis-analysis hints recorded by sema from tl.multiple_of / tl.max_contiguous /
 * tl.max_constancy (added by sema; read by src/layout/ axis analysis). The
 * hinted value is the operand itself (the builtins emit no op); v[d] is the
 * hint for dim d (v[0] for scalars). Several hints may name one value. */
typedef enum { HINT_MULTIPLE_OF, HINT_MAX_CONTIGUOUS, HINT_MAX_CONSTANCY } TirHintKind;
typedef struct TirHint {
	ValId val;
	int kind; /* TirHintKind */
	int rank;
	int32_t v[TIR_MAX_RANK];
} TirHint;

/* A multi-buffered shared-memory allocation made by software pipelining
 * (src/layout/pipeline.c): nslots slots of slot_bytes bytes starting at byte
 * `base` of the per-program shared memory, each holding one tile of type
 * `tile` laid out by `smem` (a LinearLayout: linear element offset -> tile
 * coordinates) plus padding (`pad`, a PaddedShared; NULL = none); or a
 * one-slot buffer of a loop-invariant dot operand held across a loop
 * (src/layout/hold_smem.c, `loop`). Each pipelined loop's buffers start
 * after those held across it, else at byte 0, over those of the others: only
 * innermost loops are pipelined, so no two are live together (a loop's
 * first copies are issued just before it). Buffers
 * hold bytes [0, TirFunc.smem_reserved); scratch shared memory (conversions,
 * reductions) used inside a pipelined loop starts after them, and elsewhere
 * at offset 0: outside its loop a buffer is dead (the loop ends with
 * wait(0) + barrier, and every scratch phase ends with a barrier before the
 * next loop's first copies). */
typedef struct TirSmemBuf {
	Type tile;
	const struct LinearLayout *smem;
	const struct PaddedShared *pad;
	int64_t base, slot_bytes;
	int nslots;
	/* NULL: a pipelined loop's own buffer. Else a buffer written once in
	 * front of this loop (TIR_HOLDS_BUFS) and read in it: live across the
	 * whole loop, so buffers and scratch of the loops and ops inside it come
	 * after it (layout/hold_smem.c) */
	const struct TirOp *loop;
} TirSmemBuf;

/* The most runtime parameters a kernel may have: the launch ABI's argument
 * arrays (api.h's API_MAX_PARAMS), well under a CUDA kernel's 32764 bytes of
 * parameters (5000 pointers failed inside nvrtc). */
enum { TIR_MAX_RUNTIME_PARAMS = 512 };

typedef struct TirFunc {
	Arena *arena;
	const char *name;    /* the symbol the emitters define */
	const char *display; /* the user's name when it differs (Class.name), for listings and messages */
	VEC(TirVal) vals; /* vals.data[0] is unused ("no value") */
	TirBlock *entry;  /* args = runtime params, in order */
	TirParam *params; /* runtime params only (constexprs are folded away) */
	int nparams;
	int num_warps;    /* from options */
	int num_stages;   /* set by a @triton.heuristics; 0: the options' */
	int smem_bytes;   /* set by layout/smem allocation: max(smem_reserved + scratch in
	                     pipelined loops, scratch elsewhere) */
	int smem_reserved; /* bytes at offset 0 held by bufs: the most one pipelined loop holds */
	SrcLoc smem_loc;  /* the op needing the most scratch (for diagnostics) */
	TirSmemBuf *bufs; /* arena array (software pipelining) */
	int nbufs;
	TirHint *hints;   /* arena array (tir_add_hint) */
	int nhints, cap_hints;
	struct LayoutMemo *layout_memo; /* the layout passes' memo of shared-layout
	                                   choices (layout/smem.c); NULL: none */
} TirFunc;

/* The kernel's name as the user writes it (Class.name), for listings and messages */
static inline const char *tir_func_label(const TirFunc *f) { return f->display ? f->display : f->name; }

/* Construction (src/ir/tir.c) */
TirFunc *tir_func_new(Arena *a, const char *name);
ValId tir_new_val(TirFunc *f, Type t);
TirBlock *tir_block_new(TirFunc *f);
ValId tir_block_add_arg(TirFunc *f, TirBlock *b, Type t);
/* Appends an op to b with the given operands and fresh results of the given types. */
TirOp *tir_op(TirFunc *f, TirBlock *b, TirOpKind k, SrcLoc loc, const ValId *in, int nin,
	      const Type *out_types, int nout);
/* Same, but inserts before position `pos` in b (layout conversions, rematerialization). */
TirOp *tir_op_at(TirFunc *f, TirBlock *b, int pos, TirOpKind k, SrcLoc loc, const ValId *in,
		 int nin, const Type *out_types, int nout);
void tir_op_add_regions(TirFunc *f, TirOp *op, int n); /* regions get parent = op */
/* Moves op out of its block to before position `pos` of `to` (-1: the end). */
void tir_op_move(TirFunc *f, TirOp *op, TirBlock *to, int pos);
/* Moves ops[0..n) of block `from`, in that order, to `to` at pos (one pass over
 * each block, where tir_op_move per op is quadratic in a long block). */
void tir_ops_move(TirFunc *f, TirBlock *from, TirOp **ops, int n, TirBlock *to, int pos);
/* tir_licm.c: moves pure ops of FOR/WHILE regions that read only values
 * from outside the loop in front of it (inner loops first); returns how many
 * ops moved. */
int tir_hoist_invariants(TirFunc *f);
/* The block defining v (an op's block, or the block whose argument v is). */
TirBlock *tir_def_block(const TirFunc *f, ValId v);
/* Whether block b is one of op's regions or nested in one. */
bool tir_block_within(const TirOp *op, const TirBlock *b);
/* Gives an op (created with no results, e.g. an IF whose yields are known
 * only after its regions are built) fresh results of the given types. */
void tir_op_set_results(TirFunc *f, TirOp *op, const Type *out_types, int nout);
void tir_add_hint(TirFunc *f, ValId v, TirHintKind kind, int rank, const int32_t *vals);
static inline TirVal *tir_val(TirFunc *f, ValId v) { return &f->vals.data[v]; }
static inline Type tir_type(TirFunc *f, ValId v) { return f->vals.data[v].ty; }
/* out[i] (nparams entries): pointer parameter i may be read or written
 * through (a load, store, atomic or async copy of an address computed from
 * it, masked or not); false for scalars (tir_access.c). */
void tir_params_accessed(const TirFunc *f, bool *out);
/* Replace every use of `from` (in ops after `after`, or everywhere if NULL) with `to`. */
void tir_replace_uses(TirFunc *f, ValId from, ValId to);
/* uses[v] += number of operands naming v in b and its nested regions. */
void tir_count_uses(const TirBlock *b, uint32_t *uses);
const char *tir_op_name(TirOpKind k);
int tir_op_flags(TirOpKind k);
const char *math_fn_name(MathFn m);
int math_fn_arity(MathFn m);

/* Printing (--emit=tir, --emit=layout: with layouts) and verifying. The
 * verifier checks types, shapes, operand counts, region structure, dominance
 * and (when `layouts`) that every tile value has a layout matching its shape.
 * It reports "internal compiler error in PASS: ..." via ice() on failure. */
void tir_print(const TirFunc *f, StrBuf *out, bool with_layouts);
void tir_verify(const TirFunc *f, const char *after_pass, bool layouts);

#endif

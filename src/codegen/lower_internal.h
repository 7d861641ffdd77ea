/* lower_internal.h: shared state and helpers of the lowering (lower*.c).
 *
 * A tile value with layout L (R register bits, lane bits, warp bits) becomes
 * 2^R thread-program values per thread: register r of thread (lane, warp)
 * holds element L(r, lane, warp). A scalar is one value. Lower keeps the map
 * ValId -> LVal (the register array); each op family has its own file:
 *
 *   lower_elementwise.c  const, program ids, arithmetic, casts, pointers
 *   lower_memory.c       load, store, atomics (vectors, warp predication)
 *   lower_view.c         splat, arange, broadcast, expand_dims, reshape,
 *                        trans, convert_layout (permutes, shuffles, smem)
 *   lower_smem.c         tiles in shared memory: addresses, stores, loads
 *   lower_reduce.c       reduce (and the one-hot gather)
 *   lower_scan.c         scan (lower_red.h: the state the two share)
 *   lower_dot.c          dot: FMA path and mma.sync path
 *   lower_async.c        async_copy, async_commit/wait, local_load (the
 *                        multi-buffered shared tiles of software pipelining)
 *   lower_control.c      for, if, while, yield, condition, print, assert
 *
 * Internal errors (a layout the lowering cannot handle, an IR invariant the
 * layout pass should have established) go through lw_ice(), which names the
 * pass "lower".
 */
#ifndef TILE_CODEGEN_LOWER_INTERNAL_H
#define TILE_CODEGEN_LOWER_INTERNAL_H

#include "codegen/tp.h"
#include "layout/linear.h"

typedef struct LVal {
	TpVal *r; /* registers (n = 1 for scalars) */
	int n;
} LVal;

typedef struct LConst {
	uint8_t dt;
	int64_t bits;
	TpVal v;
	TpOp *op; /* placed at the top of the body when lowering ends */
} LConst;

typedef struct Lower {
	Arena *arena;
	DiagSink *diags;
	const TirFunc *tf;
	TpFunc *f;
	const TargetDesc *t;
	const CompileOptions *o;
	LVal *map;        /* indexed by ValId */
	TpBlock *blk;     /* where ops are appended */
	TpVal lane, warp; /* LANE_ID / WARP_ID at the top of the body */
	int top;          /* insertion point for hoisted constants in the body */
	LConst *consts;   /* arena array (an ice unwinds without leaking) */
	int nconsts, capconsts;
	int *chash, hcap; /* open addressing over consts: index + 1, 0 = empty */
	int smem_top;             /* bytes of scratch shared memory this lowering needs, */
	int smem_top_pipelined;   /* and of that inside software-pipelined loops */
	int in_pipelined_loop;    /* > 0 while lowering the body of one */
	/* between a pipelined loop's first prologue copy and its epilogue's
	 * wait(0): copies may be in flight, so scratch goes after the buffers
	 * (the prologue recomputes masks and addresses, conversions included) */
	bool copies_in_flight;
	/* from the LOCAL_STORE of a buffer held across a loop (hold_smem.c) to
	 * that loop's end: the buffer is live, so scratch goes after the
	 * buffers there too (a conversion of the loop's prologue, before its
	 * copies, would write over the held operand) */
	const TirOp *held_loop;
	int lane_bits, warp_bits; /* log2 of hardware lanes per warp / warps */
} Lower;

NORETURN void lw_ice(const char *fmt, ...) PRINTF_LIKE(1, 2);

/* Is the program's every thread one element of one SIMD vector (the native
 * CPU)? Then values cross warps by vector permutes as they cross lanes, and
 * a thread-program register is a whole vector wide. */
bool lw_simd_program(const Lower *L);

/* ---- emitting ---------------------------------------------------------------- */

/* Appends one op with one result (or none when rt.dt == DT_VOID) to L->blk. */
TpOp *lw_op(Lower *L, TpOpKind k, SrcLoc loc, const TpVal *in, int nin, const Type *out, int nout);
TpVal lw_op1(Lower *L, TpOpKind k, const TpVal *in, int nin, Type rt);
TpVal lw_bin(Lower *L, TpOpKind k, TpVal a, TpVal b); /* result type = a's */
TpVal lw_cmp(Lower *L, TirPred p, TpVal a, TpVal b);
TpVal lw_select(Lower *L, TpVal c, TpVal a, TpVal b);
TpVal lw_cast(Lower *L, TpVal v, Type to); /* no-op when the type is equal */
/* Hoisted, cached constants (placed at the top of the body). */
TpVal lw_const_i(Lower *L, DType dt, int64_t v);
TpVal lw_const_f(Lower *L, DType dt, double v);
TpVal lw_i32(Lower *L, int64_t v);
TpVal lw_true(Lower *L);
TpVal lw_and1(Lower *L, TpVal a, TpVal b); /* i1 AND; a or b may be 0 (= true) */

/* ---- values ------------------------------------------------------------------------ */

LVal lw_get(Lower *L, ValId v);
void lw_set(Lower *L, ValId v, LVal x);
LVal lw_alloc(Lower *L, int n);
const LinearLayout *lw_layout(Lower *L, ValId v); /* ice for a tile without one */
int lw_nregs_of(Lower *L, ValId v);               /* 1 for scalars */
Type lw_elem_type(Lower *L, ValId v);             /* scalar type of the elements */
/* Lower the ops of a TIR block into L->blk (which the caller set). */
void lw_block(Lower *L, const TirBlock *b);
/* Lower a scalar-only region (reduce/scan combine) with args bound to
 * `args` (nargs values); writes the yielded values to out[]. */
void lw_inline_region(Lower *L, const TirBlock *b, const TpVal *args, int nargs, TpVal *out);

/* ---- layouts ----------------------------------------------------------------------- */

int lw_slot(const LinearLayout *l, LLInDim k); /* slot or -1 */
int lw_bits(const LinearLayout *l, LLInDim k); /* 0 if absent */
const int32_t *lw_basis(const LinearLayout *l, LLInDim k, int b);
bool lw_basis_zero(const LinearLayout *l, LLInDim k, int b);
/* Free-variable masks of the register / lane / warp bits; hardware lanes and
 * warps beyond the layout's bits are free too. */
void lw_free(Lower *L, const LinearLayout *l, uint32_t *reg, uint32_t *lane, uint32_t *warp);
/* Coordinate along `dim` of element L(r, lane, warp), emitted as i32. */
TpVal lw_coord(Lower *L, const LinearLayout *l, int r, int dim);
/* The lane/warp part only: XOR over lane and warp bits of basis[dim] (i32). */
TpVal lw_hw_coord(Lower *L, const LinearLayout *l, int dim);
/* XOR-linear function of the lane (and warp) bits: sum of bits[i] where
 * bit i of lane (warp) is set. n* = number of bits. Result i32. */
TpVal lw_linear_lane_warp(Lower *L, const int32_t *lane_img, int nl, const int32_t *warp_img,
                          int nw);
/* Predicate (i1) "this thread is the canonical owner": lane & lane_free == 0
 * and warp & warp_free == 0; 0 (= true) when nothing is free. */
TpVal lw_owner_pred(Lower *L, uint32_t lane_free, uint32_t warp_free);
/* The dim that bit 0 of input dim k steps along by one element, or -1. */
int lw_unit_dim(const LinearLayout *l, LLInDim k);
/* Find a register of `l` holding coords c at lane = warp = 0 (-1 if none). */
int lw_find_reg(const LinearLayout *l, const int32_t c[], uint32_t reg_free);

/* ---- shared memory ------------------------------------------------------------------ */

/* Scratch shared memory for one op (used between a write, a barrier and a
 * read, then released by a barrier): returns the base byte offset, the same
 * for all phases (they share the buffer, as src/layout/smem.c plans it):
 * TirFunc.smem_reserved, after the buffers of software pipelining, inside a
 * pipelined loop; 0 elsewhere, where those buffers are dead (TirSmemBuf). */
int lw_scratch(Lower *L, const TirOp *op, int bytes);
/* Where scratch starts now: after the pipelining buffers while they are live
 * (inside a pipelined loop, or copies in flight), else at 0, over them. */
int lw_scratch_base(const Lower *L);
TpVal lw_barrier(Lower *L);

/* A tile in shared memory (lower_smem.c): shared layout m (linear offset ->
 * tile coordinates) plus padding; element type et of eb bytes. */
typedef struct SmemTile {
	LinearLayout m;
	PaddedShared pad;
	Type et;
	int eb;
} SmemTile;
/* How register layout l reaches shared tile t: w = hardware -> linear offset,
 * vec = registers per vector access, hw = the lane/warp part of the offset,
 * and l's free (redundant) bits. */
typedef struct SmemAccess {
	const SmemTile *t;
	LinearLayout w;
	int vec;
	TpVal hw;
	int32_t hw_bits; /* offset bits the lane/warp part can set */
	uint32_t reg_free, lane_free, warp_free;
} SmemAccess;
void lw_smem_plan(Lower *L, const SmemTile *t, const LinearLayout *l, SmemAccess *a);
/* Byte offset (i32) of register r's element: base (an i32 value; 0 = none) +
 * eb * padded(w(r, lane, warp)). */
TpVal lw_smem_addr(Lower *L, const SmemAccess *a, int r, TpVal base);
/* Store tile v (layout l) into t at byte offset base; only canonical owners
 * write; mask (i1, 0 = true) is ANDed in. No barrier. */
void lw_smem_write(Lower *L, SrcLoc loc, const SmemTile *t, TpVal base, const LinearLayout *l,
                   LVal v, TpVal mask);
/* Load tile t at byte offset base (16-byte aligned) into out (layout l),
 * with ldmatrix where it applies (16-bit elements). No barrier. */
void lw_smem_read(Lower *L, SrcLoc loc, const SmemTile *t, TpVal base, const LinearLayout *l,
                  LVal out);

/* ---- op families ------------------------------------------------------------------------ */

bool lw_elementwise(Lower *L, const TirOp *op);
bool lw_memory(Lower *L, const TirOp *op);
bool lw_view(Lower *L, const TirOp *op);
bool lw_reduce(Lower *L, const TirOp *op);
bool lw_dot(Lower *L, const TirOp *op);
bool lw_async(Lower *L, const TirOp *op);
bool lw_control(Lower *L, const TirOp *op);

/* Is TIR value v (a pointer or int tile) base + arange along `dim` (stride 1),
 * with everything else uniform? (Used for TP_COALESCED.) */
int lw_stride_along(const TirFunc *f, ValId v, int dim);

#endif

/* assign.h: layout assignment on the Tile IR (src/layout/assign.c, axis.c, smem.c).
 *
 * After layout_assign every tile value has TirVal.layout (a distributed
 * LinearLayout over register/lane/warp whose out dims match its shape),
 * CONVERT_LAYOUT ops sit where a consumer needs another layout, every LOAD,
 * STORE and ATOMIC carries in attr.i2 the widest vector (in elements) that
 * axis analysis proves contiguous and aligned, and TirFunc.smem_bytes holds
 * the shared memory that conversions and cross-warp reductions need.
 */
#ifndef TILE_LAYOUT_ASSIGN_H
#define TILE_LAYOUT_ASSIGN_H

#include "ir/tir.h"
#include "layout/linear.h"

typedef struct LayoutCtx {
	Arena *arena;
	DiagSink *diags;
	const TargetDesc *target;
	const CompileOptions *opts;
} LayoutCtx;

bool layout_assign(LayoutCtx *lc, TirFunc *f);

/* ---- details lowering relies on (assign.c, smem.c) ----------------------------
 *
 * - Equal layouts are the same pointer within one function (interned).
 * - LOAD/STORE attr.i2 = vector width in elements (1 for scalar pointers and
 *   for atomics): registers 0..v-1 are contiguous in memory along the
 *   layout's fastest dim and the first one is aligned to v elements.
 * - CONVERT_LAYOUT, REDUCE, SCAN attr.i2 = scratch shared-memory bytes the op
 *   needs (0 = none); every scratch use starts at byte offset 0 of the
 *   per-program buffer (one phase at a time, separated by barriers).
 * - DOT: layout_dot_mma_bits() says which path assign.c chose: 16 (mma.sync
 *   m16n8k16 f16/bf16), 32 (tf32 m16n8k8), 8 (int8 m16n8k32) with the
 *   ll_mma_acc / ll_mma_operand layouts, or 0: the FMA path, where the result
 *   is blocked and the operands keep their producers' layouts (lowering
 *   stages them through shared memory, layout_dot_fma_smem, and loops over
 *   K; DOT attr.i2 = those scratch bytes).
 */
int layout_dot_mma_bits(const TargetDesc *t, const TirFunc *f, const TirOp *dot);
struct LinearLayout;
struct CvtSmemPlan;
struct PaddedShared;
/* How a conversion src -> dst goes through shared memory on t: in chunks of
 * at most layout_cvt_scratch_cap(t) bytes where the layouts allow, each read
 * with ldmatrix where t has it (ll_plan_conversion_smem). smem.c sizes the
 * scratch and lowering emits the conversion from this one plan. f's memo
 * (layout_memo_init) keeps the choices: the chooser tries hundreds of
 * shared layouts, and pipelining, scratch sizing and lowering ask about the
 * same conversions again and again. f may be NULL (no memo). */
void layout_plan_conversion(const TargetDesc *t, const TirFunc *f, const struct LinearLayout *src,
			    const struct LinearLayout *dst, int elem_bytes, struct CvtSmemPlan *plan);
/* The shared layout of a whole (unchunked) conversion src -> dst on t. */
void layout_choose_conversion_smem(const TargetDesc *t, const TirFunc *f,
				   const struct LinearLayout *src, const struct LinearLayout *dst,
				   int elem_bytes, struct LinearLayout *smem, struct PaddedShared *pad);
/* Gives f an empty memo (in f's arena); layout_assign does. */
void layout_memo_init(TirFunc *f);
int64_t layout_cvt_scratch_cap(const TargetDesc *t);
/* Scratch bytes of a conversion src -> dst (0 unless it needs shared memory):
 * one chunk of layout_plan_conversion. */
int64_t layout_convert_smem_bytes(const TargetDesc *t, const TirFunc *f,
				  const struct LinearLayout *src, const struct LinearLayout *dst,
				  int elem_bytes);
/* How a conversion src -> dst moves data on t: ll_conversion_kind, except that
 * a shuffle reading more than a few source registers per result goes through
 * shared memory on GPU targets. Scratch sizing and lowering both ask this. */
CvtKind layout_conversion_kind(const TargetDesc *t, const struct LinearLayout *src,
			       const struct LinearLayout *dst);
/* Can conversions read shared memory with ldmatrix on t (32-lane warps)? */
bool layout_target_ldmatrix(const TargetDesc *t);
/* Scratch bytes of a reduce/scan of a tile with layout `in` over `axis`:
 * (elements per line-set) x (warp groups along axis) x element bytes; 0 when
 * no warp splits the axis. */
int64_t layout_reduce_smem_bytes(const struct LinearLayout *in, int axis, Type elem, bool scan);
/* FMA-path dot staging (lower_dot.c; sized by smem.c): A [batch.., M, K] is
 * stored row-major with each K row padded by *pad_a elements (16 bytes when a
 * row is a multiple of 16 bytes: conflict-free row reads), then B
 * [batch.., K, N] unpadded at byte *off_b (16-byte aligned), each in
 * layout_dot_fma_stage_dt. Returns the total bytes. */
int64_t layout_dot_fma_smem(const TargetDesc *t, Type a, Type b, Type acc, int64_t *pad_a,
			    int64_t *off_b);
/* The dtype an FMA-path operand of dtype `in` is staged in: its own on GPUs
 * and cuda-emu (converted to `acc` when read, as Triton's FMA dot does; fp8
 * and fp16 tiles take a quarter and half the bytes of fp32), the
 * accumulator's on the native CPU (each element converted once, and no 8-
 * or 16-bit gathers in the k loop). */
DType layout_dot_fma_stage_dt(const TargetDesc *t, DType in, DType acc);
/* Shared-memory sizing pass (smem.c), run at the end of layout_assign and
 * again after pipelining. */
bool layout_smem(LayoutCtx *lc, TirFunc *f);
/* The scratch bytes one op needs (0 = none). */
int64_t layout_op_scratch(const LayoutCtx *lc, const TirFunc *f, const TirOp *op);
/* The scratch bytes the ops of b need: *in inside pipelined loops (all of b
 * when in_pipe), *out elsewhere. */
void layout_scratch(LayoutCtx *lc, TirFunc *f, TirBlock *b, bool in_pipe, int64_t *in,
                    int64_t *out);
/* Big loop-invariant dot operands held in shared memory (hold_smem.c), run
 * after layout_assign, before layout_pipeline: each is written once in front
 * of its loop (TIR_HOLDS_BUFS) and read with LOCAL_LOAD at its dots. */
bool layout_hold_smem(LayoutCtx *lc, TirFunc *f);
/* Where a new buffer live across loop starts: after the buffers held across
 * loop or a loop around it; with TILE_SCRATCH_APART, after every buffer, so
 * that no two buffers share a byte (the debug aid's other half). */
int64_t layout_buf_base(const LayoutCtx *lc, const TirFunc *f, const TirOp *loop);
/* Software pipelining (pipeline.c), run after layout_assign on targets with
 * cp.async: loads that feed tl.dot in innermost FOR loops (num_stages >= 2,
 * constant positive step, addresses recomputable for any iteration) become
 * ASYNC_COPYs S-1 iterations ahead into S-slot shared buffers (TirFunc.bufs)
 * read by LOCAL_LOAD; the loops get TIR_PIPELINED. Sets smem_reserved and
 * smem_bytes (layout_smem). */
bool layout_pipeline(LayoutCtx *lc, TirFunc *f);

/* CompileOptions.wide_addr, before layout_assign: a loop-carried pointer tile
 * advanced by a scalar step is carried as its scalar base (ptr_iters.c).
 * Returns how many there are; changes the IR only where `apply`. */
int layout_scalar_ptr_iters(TirFunc *f, bool apply);

#endif

/* linear.h: linear layouts over GF(2), the one representation of every layout.
 *
 * A LinearLayout (LL) maps a hardware location to a tensor element. The
 * hardware location is a few small integers (for a register tile: the
 * register index inside a thread, the lane inside a warp, the warp inside the
 * program; for shared memory: the element offset). The map is linear over
 * GF(2): each input bit contributes a fixed basis vector (a coordinate per
 * tensor dim) and the result is the XOR of the bases of the set bits.
 *
 *     L(x ^ y) = L(x) ^ L(y),   basis[i][b] = L(input i = 1 << b, others 0)
 *
 * The map runs hardware -> tensor, not the reverse, because one element may be
 * held in several places (a zero basis = a "free" bit = a copy). Every layout
 * the compiler uses is built by a constructor below: blocked (coalesced),
 * slice (reduction result), MMA accumulator and operand fragments, swizzled
 * shared memory. Padded shared memory is an LL plus a padding function on the
 * offset (PaddedShared): padding is not linear.
 *
 * Worked example (layouts.md 2.5): a 16x16 tile, sizePerThread [2,2],
 * threadsPerWarp [8,4], warpsPerCTA [1,2], order [1,0] is, as (dim0,dim1):
 *
 *     register: (0,1) (1,0)
 *     lane:     (0,2) (0,4) (2,0) (4,0) (8,0)
 *     warp:     (0,8)
 *
 * Lane 5 = 0b101 holds, in register 3 = 0b11, element
 * (0,2)^(2,0)^(0,1)^(1,0) = (3,3). Put on an 8x16 tensor, lane bit 4 would
 * step past row 7, so its basis becomes (0,0): lanes 16..31 hold copies of
 * lanes 0..15 and only lanes with bit 4 clear should store.
 *
 * Conventions:
 * - All sizes are powers of two; sizes are stored as log2 ("bits").
 * - Output dims are the tensor's dims in numpy order (dim 0 = slowest axis).
 *   An output dim of 0 bits has size 1.
 * - Distributed (register) layouts have n_in = 3, slots REG, LANE, WARP in
 *   that order (a slot may have 0 bits). Shared layouts have n_in = 1 (OFFSET).
 * - Every function is pure, works on caller-owned structs and allocates
 *   nothing. Output pointers may not alias inputs unless stated.
 */
#ifndef TILE_LAYOUT_LINEAR_H
#define TILE_LAYOUT_LINEAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum { LL_MAX_IN = 4, LL_MAX_OUT = 24, LL_MAX_BITS = 24 };
typedef enum { LL_REG, LL_LANE, LL_WARP, LL_BLOCK, LL_OFFSET } LLInDim;

typedef struct LinearLayout {
	uint8_t n_in, n_out;
	uint8_t in_dim[LL_MAX_IN];    /* which LLInDim each input slot is */
	uint8_t in_bits[LL_MAX_IN];   /* log2 of the input size */
	uint8_t out_bits[LL_MAX_OUT]; /* log2 of each tensor dim (dim 0 = slowest) */
	int32_t basis[LL_MAX_IN][LL_MAX_BITS][LL_MAX_OUT]; /* image of input i = 1<<b */
} LinearLayout;

/* ---- builders ------------------------------------------------------------- */

/* No inputs, n_out output dims of size 1. The identity of ll_product. */
void ll_empty(LinearLayout *l, int n_out);
/* n_in = 3 (REG, LANE, WARP), all with 0 bits; n_out dims of size 1. */
void ll_init_hw(LinearLayout *l, int n_out);
/* One input dim `in` of `size` (power of two) mapping x -> x along out_dim. */
void ll_identity_1d(LinearLayout *l, int size, LLInDim in, int out_dim, int n_out);
/* x -> x * stride along out_dim (stride a power of two); out dim sized to fit. */
void ll_strided_1d(LinearLayout *l, int size, int stride, LLInDim in, int out_dim, int n_out);
/* One input dim of `size` mapping everything to 0 (broadcast). */
void ll_zeros_1d(LinearLayout *l, int size, LLInDim in, int n_out);
/* Input slot of kind `in` (added at the end if absent); returns the slot. */
int ll_slot(LinearLayout *l, LLInDim in);
/* Slot of kind `in`, or -1. */
int ll_find_slot(const LinearLayout *l, LLInDim in);
/* Append one basis to input kind `in` (coords[n_out]); grows out dims to fit. */
void ll_push_basis(LinearLayout *l, LLInDim in, const int32_t coords[]);
/* Triton's operator*: inputs concatenated per kind (a's bits first), output
 * dims combined (b's coordinates shifted above a's size in that dim). out may
 * alias a. */
void ll_product(const LinearLayout *a, const LinearLayout *b, LinearLayout *out);

/* ---- evaluation and queries --------------------------------------------- */

void ll_apply(const LinearLayout *l, const uint32_t in[LL_MAX_IN], int32_t out[LL_MAX_OUT]);
/* For distributed layouts (slots REG, LANE, WARP). */
void ll_apply_hw(const LinearLayout *l, uint32_t reg, uint32_t lane, uint32_t warp,
		 int32_t out[LL_MAX_OUT]);
/* Same dims, sizes and bases (unused basis storage is ignored). */
bool ll_equal(const LinearLayout *a, const LinearLayout *b);
/* Every basis coordinate lies inside its out dim. */
bool ll_is_valid(const LinearLayout *l);
int ll_total_in_bits(const LinearLayout *l);
int ll_total_out_bits(const LinearLayout *l);
int ll_in_size(const LinearLayout *l, LLInDim in); /* 1 if absent */
/* Rank of the basis matrix equals the output bits / the input bits. */
bool ll_is_surjective(const LinearLayout *l);
bool ll_is_injective(const LinearLayout *l);

/* Per input slot, the input bits that are free variables. Definition (RREF,
 * as Triton's getFreeVariableMasks): a bit is free when its basis is a linear
 * combination (XOR) of the bases of earlier bits, ordering bits by slot, then
 * by bit index. A zero basis is always free. Setting the free bits of a
 * location to 0 gives a location holding the same element ("canonical owner"),
 * reachable by the pivot bits alone. */
void ll_free_masks(const LinearLayout *l, uint32_t mask[LL_MAX_IN]);

/* Largest power of two v such that registers 0..v-1 map to elements 0..v-1
 * along `dim` (all other coordinates 0): the vector width along dim. */
int ll_num_contig_regs(const LinearLayout *l, int dim);

/* ---- composition ---------------------------------------------------------- */

/* out = outer(inner(x)). inner's output dims must be outer's input slots, in
 * order (inner out dim d feeds outer slot d, inner->out_bits[d] <=
 * outer->in_bits[d]). out has inner's inputs and outer's outputs. */
bool ll_compose(const LinearLayout *inner, const LinearLayout *outer, LinearLayout *out);

/* C with a(x) == b(C(x)) for every x. b must be surjective onto a's image
 * (returns false if some basis of a is outside b's image). C's inputs are a's;
 * C's output dim d is b's input slot d, with out_bits = b->in_bits[d].
 * When b is not injective the smallest preimage is chosen (free variables of
 * b, in the RREF sense above, are 0), except for one broadcast rule (Triton's
 * heuristic): an input bit whose basis is zero in a and whose same kind/bit
 * is zero in b maps to that same bit of b, so matching broadcast bits are the
 * identity (this keeps conversions between two layouts that both broadcast
 * over warps "trivial over warps"). */
bool ll_invert_and_compose(const LinearLayout *a, const LinearLayout *b, LinearLayout *out);

/* ---- printing -------------------------------------------------------------- */

/* Triton's textual form, e.g.
 *   #ttg.linear<{register=[[0,1],[1,0]], lane=[[0,2],[2,0]], warp=[]}>
 * Coordinates in numpy dim order. Returns the length it needed (snprintf). */
int ll_print(const LinearLayout *l, char *buf, size_t n);
void ll_fprint(const LinearLayout *l, FILE *f);
/* Long form with sizes: "[8x16] register=[..] lane=[..] warp=[..]" */
int ll_print_shape(const LinearLayout *l, char *buf, size_t n);

/* ---- structural edits (encodings.c) --------------------------------------- */

/* Drop out dim `axis` (the result of a reduction over it). Lane/warp bases
 * that only moved along axis become zero (free: copies). Register bases that
 * become zero are removed (a thread keeps one register per distinct result,
 * as Triton's slice layout does); register bases already zero in the parent
 * are kept. */
void ll_slice(LinearLayout *out, const LinearLayout *parent, int axis);
/* Insert an out dim of size 1 at `axis`. */
void ll_expand_dims(LinearLayout *out, const LinearLayout *in, int axis);
/* tl.join's result (Triton's join encoding): `in` with an out dim of size 2
 * inserted at `axis`, held by a new register bit 0 (the others move up), so
 * each thread holds both halves of every pair side by side. */
void ll_join_axis(LinearLayout *out, const LinearLayout *in, int axis);
/* The layout the source of a broadcast to `dst` must have so that the
 * broadcast is register-local: dst with the coordinates along every axis with
 * src_shape[d] == 1 set to 0 and out_bits[d] = 0, register bases that became
 * zero removed (the same rule as ll_slice, so that
 * ll_expand_dims(ll_slice(P, ax), ax) == ll_broadcast_source(P, shape[ax]=1)).
 * False if rank differs or a src dim is neither 1 nor dst's size. */
bool ll_broadcast_source(LinearLayout *out, const LinearLayout *dst, int rank,
			 const int32_t src_shape[]);
/* tl.permute / tl.trans: out dim i = in dim perm[i]. */
void ll_permute_outs(LinearLayout *out, const LinearLayout *in, const int perm[]);
/* tl.reshape: flatten coordinates row-major, unflatten into shape[rank].
 * False if the element counts differ or rank > LL_MAX_OUT. */
bool ll_reshape_outs(LinearLayout *out, const LinearLayout *in, int rank, const int32_t shape[]);
/* Fit a layout to a shape as Triton's combineCtaCgaWithShape: for each dim in
 * `order` (fastest first) that is bigger than the layout, extra register bits
 * repeat the layout; then coordinates at or beyond the shape become 0. */
void ll_fit_to_shape(LinearLayout *l, int rank, const int32_t shape[], const int32_t order[]);
/* ll_fit_to_shape for a broadcast's result: replicated lanes and warps take
 * the new bits first, registers the rest. */
void ll_fit_broadcast(LinearLayout *l, int rank, const int32_t shape[], const int32_t order[]);

/* ---- constructors (encodings.c) ------------------------------------------- */

/* Triton's blocked layout (order[0] = fastest dim), fitted to shape. */
void ll_blocked(LinearLayout *l, int rank, const int32_t shape[], const int32_t size_per_thread[],
		const int32_t threads_per_warp[], const int32_t warps_per_cta[],
		const int32_t order[]);
/* Parameters ll_default_blocked picks (Triton's getDefaultBlockedEncoding with
 * size_per_thread = min(vec, shape) along the fastest (last numpy) dim). */
void ll_default_blocked_params(int rank, const int32_t shape[], int num_warps,
			       int lanes_per_warp, int vec, int32_t size_per_thread[],
			       int32_t threads_per_warp[], int32_t warps_per_cta[],
			       int32_t order[]);
void ll_default_blocked(LinearLayout *l, int rank, const int32_t shape[], int num_warps,
			int lanes_per_warp, int vec);
/* The same choice for a given order (order[0] = fastest dim, which gets
 * size_per_thread = min(vec, shape)): Triton's coalesced layout. */
void ll_blocked_params_ordered(int rank, const int32_t shape[], const int32_t order[],
			       int num_warps, int lanes_per_warp, int vec, int32_t size_per_thread[],
			       int32_t threads_per_warp[], int32_t warps_per_cta[]);
void ll_coalesced(LinearLayout *l, int rank, const int32_t shape[], const int32_t order[],
		  int num_warps, int lanes_per_warp, int vec);

/* NVIDIA mma.sync accumulator (m16n8, 32 lanes): per warp a 16x8 tile, lane l
 * holds rows l/4 and l/4+8, cols 2(l%4) and 2(l%4)+1 (register bit 0 =
 * col+1, bit 1 = row+8); warps tiled N-fastest; the tile repeated over shape
 * with extra register bits (N first, then M). shape is [M, N], or [B, M, N]
 * for a batched dot: warps then walk N, M, then the batch, and the batch
 * repeats last (Triton's NvidiaMmaEncoding of rank 3). */
void ll_mma_acc(LinearLayout *l, int rank, const int32_t shape[], const int32_t warps_per_cta[]);
/* mma.sync operand fragments. op_idx 0 = A [M,K], 1 = B [K,N] (with a leading
 * batch dim at rank 3). elem_bits 16: m16n8k16; 32 (tf32): m16n8k8; 8 (int8):
 * m16n8k32. Per warp A covers 16 x (8*kw) and B (8*kw) x 8 with kw =
 * 32/elem_bits elements per 32-bit register. Warps along N are broadcast
 * (zero bases) for A, along M for B; warps along the batch are the
 * accumulator's. Repeats: K first, then M (A) or N (B), then the batch. */
void ll_mma_operand(LinearLayout *l, int op_idx, int rank, const int32_t shape[],
		    const int32_t warps_per_cta[], int elem_bits);

/* Swizzled shared memory (layouts.md 3.1): offset -> element. order[0] is the
 * fastest dim (columns), order[1] the rows. Row r, column c is stored at
 * column ((c/vec) ^ ((r/per_phase) % max_phase)) * vec + c%vec (mod cols).
 * vec = per_phase = max_phase = 1 is plain row-major in `order`. */
void ll_swizzled_shared(LinearLayout *l, int rank, const int32_t shape[], int vec, int per_phase,
			int max_phase, const int32_t order[]);

/* Padding on top of a shared LL: after every interval[k] elements, pad[k]
 * elements are skipped. n = 0: no padding. Powers of two. */
typedef struct PaddedShared {
	int n;
	int32_t interval[4], pad[4];
} PaddedShared;
/* off + sum_k (off >> log2 interval_k) << log2 pad_k */
int64_t ll_padded_offset(const PaddedShared *p, int64_t linear_off);
/* Elements needed to hold n_elems linear offsets (padded offset of the last + 1). */
int64_t ll_padded_size(const PaddedShared *p, int64_t n_elems);

/* ---- shared-memory choice and conversions (smem_choose.c) ----------------- */

/* Worst number of wavefronts (1 = conflict-free) of one warp-wide access
 * phase when the threads of `reg` store to / load from shared memory laid out
 * as `smem` (+ padding when pad is not NULL), 32 banks x 4 bytes. Accesses
 * are vectorized (up to 16 bytes) over the registers that are contiguous in
 * both; 8-byte accesses are served per half warp and 16-byte per quarter warp,
 * as on NVIDIA GPUs. Brute force over every register group and warp.
 * Returns -1 if smem cannot hold reg's elements. */
int ll_bank_conflicts(const LinearLayout *reg, const LinearLayout *smem,
		      const PaddedShared *pad_or_null, int elem_bytes);
/* Total wavefronts of all the warp-wide accesses one warp makes (a cost that
 * also rewards vectorization); -1 as above. */
int64_t ll_smem_access_cost(const LinearLayout *reg, const LinearLayout *smem,
			    const PaddedShared *pad_or_null, int elem_bytes);
/* Vector width (elements) used for reg <-> smem accesses. */
int ll_smem_vec(const LinearLayout *reg, const LinearLayout *smem,
		const PaddedShared *pad_or_null, int elem_bytes);
/* Pick a shared layout for a conversion src -> smem -> dst: the candidate
 * (row-major, swizzles, row padding) with the least total wavefronts for
 * writing with src plus reading with dst; ties go to no padding, then the
 * smaller buffer, then the simpler swizzle. pad_out->n = 0 when not padded. */
void ll_choose_conversion_smem(const LinearLayout *src, const LinearLayout *dst, int elem_bytes,
			       LinearLayout *smem_out, PaddedShared *pad_out);

/* As ll_choose_conversion_smem; with ldmatrix (the target has it and 32-lane
 * warps) dst's reads are costed as the ldmatrix phases lowering will emit
 * wherever ll_ldmatrix_plan applies, and such candidates win ties. */
void ll_choose_conversion_smem_ldm(const LinearLayout *src, const LinearLayout *dst,
				   int elem_bytes, bool ldmatrix, LinearLayout *smem_out,
				   PaddedShared *pad_out);

/* A conversion src -> dst through shared memory in 2^nbits chunks
 * (smem_chunks.c): chunk bit i is register bit src_reg[i] of src and
 * dst_reg[i] of dst, which alone hold one coordinate bit in both layouts, so
 * chunk c is the registers whose those bits spell c. src/dst are one chunk's
 * layouts (those register and coordinate bits removed), smem/pad its shared
 * layout (ll_choose_conversion_smem_ldm of the two). nbits = 0: the whole
 * tile at once. */
typedef struct CvtSmemPlan {
	int nbits;
	int src_reg[LL_MAX_BITS], dst_reg[LL_MAX_BITS];
	LinearLayout src, dst, smem;
	PaddedShared pad;
} CvtSmemPlan;
/* The fewest chunk bits that bring one chunk to at most cap_bytes (as many as
 * there are when that is not possible). */
void ll_plan_conversion_smem(const LinearLayout *src, const LinearLayout *dst, int elem_bytes,
			     bool ldmatrix, int64_t cap_bytes, CvtSmemPlan *plan);
/* The same without the choice of the shared layout (plan->smem and pad are
 * left empty): the caller chooses it for plan->src -> plan->dst. */
void ll_plan_conversion_chunks(const LinearLayout *src, const LinearLayout *dst, int elem_bytes,
			       int64_t cap_bytes, CvtSmemPlan *plan);
/* Bytes of one chunk's buffer (padding included). */
int64_t ll_plan_smem_bytes(const CvtSmemPlan *plan, int elem_bytes);
/* The full register index of register r of a chunk layout in chunk `chunk`:
 * r with chunk bit i inserted at bit chunk_reg[i] (src_reg or dst_reg). */
uint32_t ll_plan_register(const int *chunk_reg, int nbits, uint32_t chunk, uint32_t r);

/* ldmatrix.m8n8[.trans].b16 (NVIDIA, 32-lane warps) loading register layout
 * reg from shared layout smem (+ padding). c = smem^-1 o reg maps (register,
 * lane, warp) to the element offset. An 8x8 matrix of 16-bit values is 8 rows
 * of 16 contiguous, 16-byte aligned bytes; lane l receives the 32-bit word
 * l%4 of row l/4 (.trans: 16-bit values (2(l%4)+j, l/4), j = 0, 1). For
 * elements of e bytes (1, 2 or 4; .trans needs 2) a word holds epr = 4/e of
 * them, on the low log2(epr) register bits. So plain ldmatrix applies when
 * c(those register bits, lane bit 0, lane bit 1) = 1, 2, 4, ... (one row of
 * 16/e elements) and .trans when c(lane bits 2, 3, 4) = 1, 2, 4; in both
 * cases every other basis must be a multiple of a row, and padding must keep
 * rows whole and aligned (interval >= a row, pad * e a multiple of 16). The
 * next two register bits select up to 4 matrices per instruction: results
 * epr*i .. epr*i + epr-1 are registers g + epr*i + (0..epr-1) of register
 * group g. Lane l supplies the address of row l%8 of matrix l/8: offset = XOR
 * of lane_img[b] over the set bits b of l, XOR c(g, 0, warp). */
typedef struct LdmatrixPlan {
	bool trans;
	int nmat;            /* matrices per instruction: 1, 2 or 4 */
	int elems_per_reg;   /* elements in one 32-bit result register: 4/e */
	int32_t lane_img[5]; /* offset contributed by bit b of the address lane */
} LdmatrixPlan;
bool ll_ldmatrix_plan(const LinearLayout *c, const PaddedShared *pad_or_null, int elem_bytes,
		      LdmatrixPlan *plan);
/* Worst wavefronts of one ldmatrix phase (8 lanes, one 16-byte row each:
 * 1 iff the 8 rows fall in distinct 16-byte bank groups modulo 128 bytes)
 * when reg is read from smem (+ padding) with ldmatrix. Brute force over every
 * warp, instruction and matrix. -1 when ldmatrix does not apply. */
int ll_ldmatrix_conflicts(const LinearLayout *reg, const LinearLayout *smem,
			  const PaddedShared *pad_or_null, int elem_bytes);

typedef enum { CVT_NONE, CVT_REGISTERS, CVT_SHUFFLE, CVT_SHARED } CvtKind;
/* How a layout change src -> dst must move data (Triton's minimalCvtLayout):
 * equal layouts: NONE; C = dst^-1 o src trivial over warp and lane (those bits
 * map to themselves and do not mix with the others): REGISTERS; trivial over
 * warp: SHUFFLE (within a warp); otherwise SHARED. */
CvtKind ll_conversion_kind(const LinearLayout *src, const LinearLayout *dst);
/* For a SHUFFLE conversion src -> dst: how many source registers a lane may
 * have to read for one result register (the span cvt_shuffle selects among:
 * one shfl each). 1 is a plain lane permutation. */
int ll_shuffle_sources(const LinearLayout *src, const LinearLayout *dst);
/* Is l (hw -> hw, as produced by ll_invert_and_compose) trivial over the
 * input kinds in `kinds_mask` (bit = 1 << LLInDim)? */
bool ll_is_trivial_over(const LinearLayout *c, unsigned kinds_mask);

#endif

/* axis.h: axis analysis (Triton's AxisInfo) on the Tile IR.
 *
 * For every integer or pointer value (scalar or tile), per dim d:
 * - contig[d]: the values run +1 along d in aligned groups of contig[d]
 *   elements (groups start at indices that are multiples of contig[d]);
 * - div[d]: every group's first value is divisible by div[d] (elements for
 *   integers, BYTES for pointers); with contig[d] == 1 every value is;
 * - cnst[d]: the values are equal in aligned groups of cnst[d] elements.
 * All three are powers of two, at most the dim size (div at most AXIS_MAX_DIV).
 * Scalars use index 0 (contig = cnst = 1). `known` marks a value that is the
 * same compile-time integer everywhere (constants, splats of constants,
 * parameters specialized to 1).
 *
 * Sources of facts: arange, constants, splat/broadcast, add/sub/mul/div/rem/
 * shifts by constants, negation, min/max, comparisons against constant tiles
 * (mask constancy), pointer offsets, integer parameters specialized divisible
 * by 16, pointer parameters 16-byte aligned (SPEC_DIV16) or naturally aligned,
 * and the tl.multiple_of / tl.max_contiguous / tl.max_constancy hints (overrides).
 * Loop-carried values are solved by a small fixpoint (meet = per-dim min).
 */
#ifndef TILE_LAYOUT_AXIS_H
#define TILE_LAYOUT_AXIS_H

#include "ir/tir.h"

enum { AXIS_MAX_DIV = 1 << 30 };

typedef struct AxisInfo {
	int rank;
	int64_t contig[TIR_MAX_RANK], div[TIR_MAX_RANK], cnst[TIR_MAX_RANK];
	bool known;
	int64_t value;
} AxisInfo;

/* One AxisInfo per value (indexed by ValId), allocated in `a`. Values that are
 * neither integers nor pointers get the trivial info (1, 1, 1). */
AxisInfo *axis_analyze(Arena *a, const TirFunc *f);

/* The same without tl.max_contiguous hints: the contiguity the code proves.
 * A kernel may hint more than holds past one 16-byte vector (triton.ops.matmul's
 * `tl.max_contiguous(rm % M, BLOCK_M)`, true only between wrap-arounds that
 * fall on vector boundaries); a GPU relies on the hint only that far, so the
 * CPU's accesses spanning several threads rely on this instead. */
AxisInfo *axis_analyze_proven(Arena *a, const TirFunc *f);

/* Widest vector (elements, power of two) for a load/store of elements of
 * `elem_bytes` through pointer tile `ptr` along dim `dim`: bounded by
 * contiguity, alignment, 16 bytes and (when mask != NULL) the mask's
 * constancy along dim. */
int axis_vector_width(const AxisInfo *ptr, const AxisInfo *mask, int dim, int elem_bytes);

#endif

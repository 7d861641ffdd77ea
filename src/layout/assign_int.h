/* assign_int.h: what assign.c (anchors, the backward pass, clean-up) and
 * assign_forward.c (the forward pass) share; private to src/layout/. */
#ifndef ASSIGN_INT_H
#define ASSIGN_INT_H

#include "layout/assign.h"
#include "layout/axis.h"
#include "layout/linear.h"

typedef struct CvtEntry {
	ValId from;
	const LinearLayout *l;
	const TirBlock *block;
	ValId to;
} CvtEntry;

typedef struct Assign {
	LayoutCtx *lc;
	TirFunc *f;
	AxisInfo *ax;
	AxisInfo *ax_proven; /* native CPU: contiguity without max_contiguous hints */
	size_t nvals0; /* values existing before the pass (axis info, wants) */
	int lanes, warps;
	const LinearLayout **want;
	size_t nwants; /* wants set so far: they are only ever added */
	uint8_t *chained; /* per ValId < nvals0: the dot defining it is chained */
	VEC(const LinearLayout *) interned;
	VEC(CvtEntry) cache;
	/* per value made by the pass (ValId - nvals0): the value before the pass
	 * it copies (a conversion or a rematerialized clone holds the same
	 * elements), so its axis info is that value's; 0 if none */
	VEC(ValId) origin;
	VEC(const TirOp *) mem_ops; /* loads, stores and atomics on pointer tiles */
} Assign;

/* ---- assign.c ---- */

static inline Type vty(const Assign *A, ValId v) { return A->f->vals.data[v].ty; }
static inline bool is_tile(const Assign *A, ValId v) { return v && vty(A, v).rank > 0; }
static inline const LinearLayout *lay(const Assign *A, ValId v) { return A->f->vals.data[v].layout; }
static inline const LinearLayout *wanted(const Assign *A, ValId v)
{
	return v && v < A->nvals0 ? A->want[v] : NULL;
}
static inline const TirOp *terminator(const TirBlock *b) { return b->nops ? b->ops[b->nops - 1] : NULL; }

/* the interned copy of l: equal layouts are one pointer */
const LinearLayout *lay_intern(Assign *A, const LinearLayout *l);
void set_layout(Assign *A, ValId v, const LinearLayout *l);
void set_origin(Assign *A, ValId r, ValId v); /* r, made by the pass, copies v */
void shape_of(const Assign *A, ValId v, int32_t shape[]);
void default_layout(const Assign *A, ValId v, LinearLayout *out); /* blocked, by v's shape */
bool is_elementwise(int k);
bool is_memory(int k);
/* a memory op's vector width in layout l; its runs of consecutive addresses */
int mem_vec(const Assign *A, const TirOp *op, const LinearLayout *l);
void mem_runs(const Assign *A, TirOp *op);
/* the layout operand u of op needs for op's result to be in res_l */
bool operand_layout_for(Assign *A, const TirOp *op, ValId u, const LinearLayout *res_l, LinearLayout *out);
int join_axis(const Assign *A, const TirOp *op, ValId src[2]); /* tl.join's new axis and halves, or -1 */
bool axis_in_registers(const LinearLayout *l, int k); /* no lane or warp moves along axis k */
void access_layout(Assign *A, const TirOp *op, LinearLayout *out); /* coalesced, or a store's own */
/* a dot's operand and accumulator layouts (MMA or FMA) */
bool dot_layouts(Assign *A, const TirOp *op, LinearLayout *la, LinearLayout *lb, LinearLayout *lc);

/* ---- assign_forward.c ---- */

/* whether v (a value before the pass) is cheap to redo in another layout */
bool cheap(const Assign *A, ValId v, int depth);
/* Walk b giving every value a layout; if term_layouts, the terminator's
 * operands get those layouts; skip_term leaves the terminator to the caller. */
void assign_block(Assign *A, TirBlock *b, const LinearLayout *const *term_layouts, int nterm, int skip_term);

#endif

/* lower_red.h: the state of one reduce or scan being lowered and the steps
 * both use (lower_reduce.c defines them; lower_scan.c is the scan). Private to
 * src/codegen. */
#ifndef TILE_LOWER_RED_H
#define TILE_LOWER_RED_H

#include "codegen/lower_internal.h"

typedef struct Red {
	Lower *L;
	const TirOp *op;
	const TirBlock *region;
	int n; /* operands */
	int axis;
	const LinearLayout *l;
	uint32_t rf, lf, wf;
	uint32_t lane_a, warp_a; /* lane / warp bits along the axis */
	Type et[8];
	bool commutative;
	/* tl.argmax / tl.argmin (arg_setup): TIR_ARGMAX or TIR_ARGMIN, else 0 */
	int arg;
	bool tie_left;
	bool regs_apart;  /* the register bits' axis coordinates share no bit with the lane/warp ones */
	bool lanes_ordered, warps_ordered; /* their steps combine lower coordinates on the left */
	bool ordered;     /* the combine now emitted has the lower coordinates on the left */
} Red;

/* R for `op` (a reduce or scan, `what` in messages): operands, layout, axis bits */
void red_init(Red *R, Lower *L, const TirOp *op, const char *what);
/* out = the combine region on a (left) and b (right) */
void red_combine(Red *R, const TpVal *a, const TpVal *b, TpVal *out);
/* the combine with the operand whose `sel_second` is false first */
void red_combine_ordered(Red *R, const TpVal *mine, const TpVal *other, TpVal sel_second, TpVal *out);
/* whether bit b of id is set */
TpVal red_bit_set(Lower *L, TpVal id, int b);
/* elem * eb + base */
TpVal red_byte_off(Lower *L, TpVal elem, int eb, int base);
/* the scan op (lower_scan.c) */
void lw_scan_op(Lower *L, const TirOp *op);

#endif

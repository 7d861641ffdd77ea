/* lower_elementwise.c: constants, program ids and register-wise ops.
 *
 * An elementwise op on tiles works register by register: the layout pass
 * gives all tile operands the result's layout (checked here), so register r
 * of every operand holds the same element. A constant tile is one hoisted
 * (uniform) constant shared by all registers.
 */
#include "codegen/lower_internal.h"

#include <string.h>

static TpOpKind tp_kind_of(TirOpKind k)
{
	switch (k) {
	case TOP_ADD: return TP_ADD;
	case TOP_SUB: return TP_SUB;
	case TOP_MUL: return TP_MUL;
	case TOP_DIV: return TP_DIV;
	case TOP_REM: return TP_REM;
	case TOP_AND: return TP_AND;
	case TOP_OR: return TP_OR;
	case TOP_XOR: return TP_XOR;
	case TOP_SHL: return TP_SHL;
	case TOP_SHR: return TP_SHR;
	case TOP_MIN: return TP_MIN;
	case TOP_MAX: return TP_MAX;
	case TOP_UMULHI: return TP_UMULHI;
	case TOP_CMP: return TP_CMP;
	case TOP_NEG: return TP_NEG;
	case TOP_NOT: return TP_NOT;
	case TOP_MATH: return TP_MATH;
	case TOP_FMA: return TP_FMA;
	case TOP_SELECT: return TP_SELECT;
	case TOP_CAST: return TP_CAST;
	case TOP_BITCAST: return TP_BITCAST;
	case TOP_PTR_ADD: return TP_PTR_ADD;
	case TOP_PTR_TO_INT: return TP_PTR_TO_INT;
	case TOP_INT_TO_PTR: return TP_INT_TO_PTR;
	default: return TP_COUNT;
	}
}

static void lower_const(Lower *L, const TirOp *op)
{
	ValId res = op->results[0];
	Type et = lw_elem_type(L, res);
	TpVal c;
	if (dtype_is_float((DType)et.dt))
		c = lw_const_f(L, (DType)et.dt, op->attr.f);
	else if (et.dt == DT_PTR)
		lw_ice("pointer constants are not supported");
	else
		c = lw_const_i(L, (DType)et.dt, op->attr.i);
	LVal x = lw_alloc(L, lw_nregs_of(L, res));
	for (int i = 0; i < x.n; i++)
		x.r[i] = c;
	lw_set(L, res, x);
}

static void lower_pid(Lower *L, const TirOp *op)
{
	Type t = lw_elem_type(L, op->results[0]);
	TpOp *o = lw_op(L, op->kind == TOP_PROGRAM_ID ? TP_PROGRAM_ID : TP_NUM_PROGRAMS, op->loc,
	                NULL, 0, &t, 1);
	o->attr.axis = op->attr.axis;
	LVal x = lw_alloc(L, 1);
	x.r[0] = o->results[0];
	lw_set(L, op->results[0], x);
}

/* Register-wise op; operands that are scalars next to a tile result are
 * used for every register. */
static void lower_regwise(Lower *L, const TirOp *op, TpOpKind k)
{
	ValId res = op->results[0];
	const LinearLayout *rl = lw_layout(L, res);
	LVal in[4];
	if (op->nin > 4)
		lw_ice("%s: too many operands", tir_op_name((TirOpKind)op->kind));
	for (int i = 0; i < op->nin; i++) {
		in[i] = lw_get(L, op->operands[i]);
		const LinearLayout *ol = lw_layout(L, op->operands[i]);
		if (ol && rl && ol != rl && !ll_equal(ol, rl))
			lw_ice("%s: operand %d has another layout than the result",
			       tir_op_name((TirOpKind)op->kind), i);
		if (ol && !rl)
			lw_ice("%s: tile operand of a scalar op", tir_op_name((TirOpKind)op->kind));
	}
	Type et = lw_elem_type(L, res);
	LVal x = lw_alloc(L, lw_nregs_of(L, res));
	for (int r = 0; r < x.n; r++) {
		TpVal ops[4];
		for (int i = 0; i < op->nin; i++)
			ops[i] = in[i].n == 1 ? in[i].r[0] : in[i].r[r];
		TpOp *o = lw_op(L, k, op->loc, ops, op->nin, &et, 1);
		o->attr = op->attr;
		o->attr.str = NULL;
		x.r[r] = o->results[0];
	}
	lw_set(L, res, x);
}

bool lw_elementwise(Lower *L, const TirOp *op)
{
	switch ((TirOpKind)op->kind) {
	case TOP_CONST: lower_const(L, op); return true;
	case TOP_PROGRAM_ID:
	case TOP_NUM_PROGRAMS: lower_pid(L, op); return true;
	default: break;
	}
	TpOpKind k = tp_kind_of((TirOpKind)op->kind);
	if (k == TP_COUNT)
		return false;
	lower_regwise(L, op, k);
	return true;
}

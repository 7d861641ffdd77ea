/* builtins_shape.c: tl.join, tl.split, tl.interleave, tl.cat and tl.flip,
 * built from existing Tile IR ops (no op of their own):
 *
 *   shape_join_axis(a, b, k)  inserts a new axis k of size 2:
 *                       select(arange(0, 2) == 0 along k, a, b) with a and b
 *                       expanded at k and everything broadcast to the result.
 *   shape_pick_axis(x, k, i)  element i (0 or 1) of an axis k of size 2: a REDUCE over
 *                       k whose combine region yields its left (i = 0) or right
 *                       (i = 1) operand, so the value is moved bit for bit
 *                       (-0.0, NaN payloads, any dtype).
 *
 * join = shape_join_axis(a, b, rank); split = (shape_pick_axis(x, last, 0), shape_pick_axis(x, last, 1));
 * interleave = reshape(join(a, b), [..., 2 * N]); cat = reshape(shape_join_axis(a, b, 0),
 * [2 * N0, ...]) (a true concatenation, which can_reorder=True allows);
 * flip along an axis of size N = 2^k reverses the k bits of the index: for each
 * bit b, x is viewed (row-major reshape) as [P, 2, Q] with Q = 2^b * (elements
 * after the axis) and the two halves of the middle axis are swapped
 * (shape_join_axis(shape_pick_axis(x, 1, 1), shape_pick_axis(x, 1, 0), 1)). Every view has rank 3,
 * so inputs of any rank work. */
#include <string.h>

#include "sema/sema_int.h"

static Type with_shape(Type like, int rank, const int32_t *shape)
{
	return type_tile(type_elem(like), rank, shape);
}

ValId shape_reshape(Sema *s, ValId x, int rank, const int32_t *shape, SrcLoc loc)
{
	Type t = vtype(s, x), r = with_shape(t, rank, shape);
	if (type_eq(r, t)) return x;
	if (t.rank == 0) return emit(s, TOP_SPLAT, loc, &x, 1, r);
	if (rank == 0) { /* a one-element tile to its scalar: the element of a [1] view */
		int32_t one = 1;
		return shape_pick_axis(s, t.rank == 1 ? x : emit(s, TOP_RESHAPE, loc, &x, 1, with_shape(t, 1, &one)), 0, 0, loc);
	}
	return emit(s, TOP_RESHAPE, loc, &x, 1, r);
}

/* a and b: same type; result: a new axis `axis` of size 2 holding a then b. */
ValId shape_join_axis(Sema *s, ValId a, ValId b, int axis, SrcLoc loc)
{
	Type t = vtype(s, a);
	int rank = t.rank + 1;
	int32_t shape[TIR_MAX_RANK], ishape[TIR_MAX_RANK];
	for (int d = 0, k = 0; d < rank; d++) {
		shape[d] = d == axis ? 2 : t.shape[k++];
		ishape[d] = d == axis ? 2 : 1;
	}
	int32_t two = 2;
	TirOp *ar = emit_op(s, TOP_ARANGE, loc, NULL, 0, type_tile(type_scalar(DT_I32), 1, &two));
	ar->attr.i = 0;
	ar->attr.i2 = 2;
	ValId idx = shape_reshape(s, ar->results[0], rank, ishape, loc);
	ValId zero = emit_const(s, type_tile(type_scalar(DT_I32), rank, ishape), 0, 0, loc);
	ValId in[3] = {idx, zero};
	TirOp *cmp = emit_op(s, TOP_CMP, loc, in, 2, type_tile(type_scalar(DT_I1), rank, ishape));
	cmp->attr.pred = PRED_EQ;
	in[0] = broadcast_to_shape(s, cmp->results[0], rank, shape, loc);
	in[1] = broadcast_to_shape(s, sema_expand_dim(s, a, axis, loc), rank, shape, loc);
	in[2] = broadcast_to_shape(s, sema_expand_dim(s, b, axis, loc), rank, shape, loc);
	if (!in[0] || !in[1] || !in[2]) return 0;
	return emit(s, TOP_SELECT, loc, in, 3, with_shape(t, rank, shape));
}

/* Element `which` (0 or 1) of axis `axis` (of size 2) of x. */
ValId shape_pick_axis(Sema *s, ValId x, int axis, int which, SrcLoc loc)
{
	Type t = vtype(s, x), r = t;
	r.rank--;
	for (int d = axis; d < r.rank; d++) r.shape[d] = t.shape[d + 1];
	r.shape[r.rank] = 0;
	TirOp *op = tir_op(s->f, s->blk, TOP_REDUCE, op_loc(s, loc), &x, 1, &r, 1);
	op->attr.axis = axis;
	op->attr.flags = 0;
	tir_op_add_regions(s->f, op, 1);
	TirBlock *reg = &op->regions[0], *outer = s->blk;
	ValId args[2];
	for (int i = 0; i < 2; i++) args[i] = tir_block_add_arg(s->f, reg, type_elem(t));
	s->blk = reg;
	tir_op(s->f, s->blk, TOP_YIELD, op_loc(s, loc), &args[which], 1, NULL, 0);
	s->blk = outer;
	return op->results[0];
}

/* The two operands of join / interleave / cat, broadcast to one shape; a
 * Python number adopts the other operand's dtype. */
static bool two_operands(Sema *s, Call *c, ValId *a, ValId *b)
{
	Value va = c->a[0], vb = c->a[1];
	if (va.kind == V_ERR || vb.kind == V_ERR) return false;
	if (va.kind == V_CONST && vb.kind == V_TENSOR) *a = to_ir(s, va, (DType)vb.ty.dt, c->at[0]);
	else if (!arg_tensor(s, c, 0, a)) return false;
	if (vb.kind == V_CONST && va.kind == V_TENSOR) *b = to_ir(s, vb, (DType)va.ty.dt, c->at[1]);
	else if (!arg_tensor(s, c, 1, b)) return false;
	if (!*a || !*b) return false;
	Type ta = vtype(s, *a), tb = vtype(s, *b);
	if (!type_eq(type_elem(ta), type_elem(tb))) {
		diag_error(s->d, c->loc, "%s needs two tensors of the same dtype, got %s and %s", c->name,
			   dt_name(s, type_elem(ta)), dt_name(s, type_elem(tb)));
		return false;
	}
	return broadcast_pair(s, a, b, c->loc);
}

static bool rank_room(Sema *s, Call *c, int rank)
{
	if (rank < TIR_MAX_RANK) return true;
	diag_error(s->d, c->loc, "%s of a rank-%d tensor would need rank %d (at most %d)", c->name, rank, rank + 1,
		   TIR_MAX_RANK);
	return false;
}

/* join(a, b) along a new last axis; *t gets a's type. 0 after a diagnostic. */
static ValId join_last(Sema *s, Call *c, Type *t)
{
	ValId a, b;
	if (!two_operands(s, c, &a, &b)) return 0;
	*t = vtype(s, a);
	if (!rank_room(s, c, t->rank)) return 0;
	int32_t shape[TIR_MAX_RANK];
	memcpy(shape, t->shape, sizeof shape);
	shape[t->rank] = 2;
	if (!check_tile_shape(s, t->rank + 1, shape, c->loc)) return 0;
	return shape_join_axis(s, a, b, t->rank, c->loc);
}

static Value b_join(Sema *s, Call *c, int extra)
{
	(void)extra;
	Type t;
	ValId r = join_last(s, c, &t);
	return r ? v_tensor(s, r) : v_err();
}

static Value b_interleave(Sema *s, Call *c, int extra)
{
	(void)extra;
	Type t;
	ValId r = join_last(s, c, &t);
	if (!r) return v_err();
	if (t.rank == 0) return v_tensor(s, r);
	int32_t shape[TIR_MAX_RANK];
	memcpy(shape, t.shape, sizeof shape);
	shape[t.rank - 1] *= 2;
	return v_tensor(s, shape_reshape(s, r, t.rank, shape, c->loc));
}

static Value b_cat(Sema *s, Call *c, int extra)
{
	(void)extra;
	bool reorder = false;
	if (c->has[2] && !arg_bool(s, c, 2, &reorder)) return v_err();
	if (!reorder) {
		diag_error(s->d, c->loc, "tl.cat needs can_reorder=True (as in Triton)");
		return v_err();
	}
	ValId a, b;
	if (!two_operands(s, c, &a, &b)) return v_err();
	Type t = vtype(s, a);
	if (t.rank == 0) {
		diag_error(s->d, c->loc, "tl.cat needs tensors of rank 1 or more, got scalars");
		return v_err();
	}
	if (!rank_room(s, c, t.rank)) return v_err();
	int32_t shape[TIR_MAX_RANK];
	memcpy(shape, t.shape, sizeof shape);
	shape[0] *= 2;
	if (!check_tile_shape(s, t.rank, shape, c->loc)) return v_err();
	ValId r = shape_join_axis(s, a, b, 0, c->loc);
	return r ? v_tensor(s, shape_reshape(s, r, t.rank, shape, c->loc)) : v_err();
}

static Value b_split(Sema *s, Call *c, int extra)
{
	(void)extra;
	ValId x;
	if (!arg_tensor(s, c, 0, &x)) return v_err();
	Type t = vtype(s, x);
	if (t.rank == 0 || t.shape[t.rank - 1] != 2) {
		char buf[64];
		shape_str(t, buf, sizeof buf);
		diag_error(s->d, c->at[0], "tl.split needs a tensor whose last dimension is 2, got shape %s", buf);
		return v_err();
	}
	Value items[2] = {v_tensor(s, shape_pick_axis(s, x, t.rank - 1, 0, c->loc)),
			  v_tensor(s, shape_pick_axis(s, x, t.rank - 1, 1, c->loc))};
	return v_tuple(s, items, 2);
}

static Value b_flip(Sema *s, Call *c, int extra)
{
	(void)extra;
	ValId x;
	if (!arg_tensor(s, c, 0, &x)) return v_err();
	Type t = vtype(s, x);
	if (t.rank == 0) {
		diag_error(s->d, c->at[0], "tl.flip needs a tensor, got a scalar");
		return v_err();
	}
	int64_t dim = t.rank - 1;
	if (c->has[1] && !v_is_none(c->a[1]) && !arg_const_int(s, c, 1, &dim)) return v_err();
	int axis = norm_axis(s, dim, t.rank, c->has[1] ? c->at[1] : c->loc);
	if (axis < 0) return v_err();
	int64_t n = t.shape[axis], before = 1, after = 1;
	if (!is_pow2_i64(n)) {
		diag_error(s->d, c->loc, "tl.flip needs a dimension of power-of-two size, got %lld", (long long)n);
		return v_err();
	}
	for (int d = 0; d < axis; d++) before *= t.shape[d];
	for (int d = axis + 1; d < t.rank; d++) after *= t.shape[d];
	for (int64_t half = 1; half < n; half *= 2) {
		int32_t v[3] = {(int32_t)(before * (n / (2 * half))), 2, (int32_t)(half * after)};
		ValId y = shape_reshape(s, x, 3, v, c->loc);
		ValId lo = shape_pick_axis(s, y, 1, 0, c->loc), hi = shape_pick_axis(s, y, 1, 1, c->loc);
		x = shape_join_axis(s, hi, lo, 1, c->loc);
		if (!x) return v_err();
	}
	return v_tensor(s, shape_reshape(s, x, t.rank, t.shape, c->loc));
}

const Builtin builtins_shape[] = {
    {"join", "a,b", b_join, 0, BF_TL},
    {"split", "a", b_split, 0, BF_TL | BF_METHOD},
    {"interleave", "a,b", b_interleave, 0, BF_TL | BF_METHOD},
    {"cat", "input,other,can_reorder=False", b_cat, 0, BF_TL},
    {"flip", "x,dim=None", b_flip, 0, BF_TL | BF_METHOD},
    {NULL, NULL, NULL, 0, 0},
};

/* builtins_core.c: program ids, arange, tile construction and views, casts
 * and hints. The other builtins_*.c hold one family each. */
#include <stdio.h>
#include <string.h>

#include "sema/sema_int.h"

static Type shaped(DType dt, int rank, const int32_t *shape) { return type_tile(type_scalar(dt), rank, shape); }

/* ---- program ids, arange ----------------------------------------------------------- */

static Value b_program_id(Sema *s, Call *c, int extra)
{
	int64_t axis = 0;
	if (c->has[0] && !arg_const_int(s, c, 0, &axis)) return v_err();
	if (axis < 0 || axis > 2) {
		diag_error(s->d, c->at[0], "program axis must be 0, 1 or 2, got %lld", (long long)axis);
		return v_err();
	}
	TirOp *op = emit_op(s, extra ? TOP_NUM_PROGRAMS : TOP_PROGRAM_ID, c->loc, NULL, 0, type_scalar(DT_I32));
	op->attr.axis = (int)axis;
	return v_tensor(s, op->results[0]);
}

static Value b_arange(Sema *s, Call *c, int extra)
{
	(void)extra;
	int64_t lo, hi;
	if (!arg_const_int(s, c, 0, &lo) || !arg_const_int(s, c, 1, &hi)) return v_err();
	if (hi <= lo) {
		diag_error(s->d, c->loc, "tl.arange needs end > start, got start=%lld, end=%lld", (long long)lo, (long long)hi);
		return v_err();
	}
	if (lo < 0 || hi > (int64_t)INT32_MAX + 1) {
		/* Triton: arange must fit in int32, and a negative start does not;
		 * end is exclusive, so 2**31 is the largest (its last value is INT32_MAX) */
		diag_error(s->d, c->loc, "tl.arange's values must be int32s: 0 <= start < end <= 2**31, got start=%lld, end=%lld",
			   (long long)lo, (long long)hi);
		return v_err();
	}
	int64_t n64 = hi - lo; /* up to 2**31: no int32 (arange(0, 2**31) said "length -2147483648") */
	if (!is_pow2_i64(n64)) {
		diag_error(s->d, c->loc, "tl.arange length %lld (end - start) is not a power of two", (long long)n64);
		return v_err();
	}
	if (n64 > TILE_MAX_NUMEL) {
		diag_error(s->d, c->loc, "tile of %lld elements exceeds the limit of %d", (long long)n64, TILE_MAX_NUMEL);
		return v_err();
	}
	int32_t n = (int32_t)n64;
	if (!check_tile_shape(s, 1, &n, c->loc)) return v_err();
	TirOp *op = emit_op(s, TOP_ARANGE, c->loc, NULL, 0, shaped(DT_I32, 1, &n));
	op->attr.i = lo;
	op->attr.i2 = hi;
	return v_tensor(s, op->results[0]);
}

/* ---- construction -------------------------------------------------------------------- */

static Value full_impl(Sema *s, int rank, const int32_t *shape, Value v, Type dt, SrcLoc loc)
{
	if (dt.dt == DT_PTR) {
		diag_error(s->d, loc, "cannot fill a tile with pointers");
		return v_err();
	}
	if (v.kind == V_CONST) {
		if (v.c.kind != CV_INT && v.c.kind != CV_FLOAT && v.c.kind != CV_BOOL) {
			diag_error(s->d, loc, "fill value must be a number, got %s", v_describe(s, v));
			return v_err();
		}
		Type t = shaped((DType)dt.dt, rank, shape);
		double f = const_as_double(v.c);
		int64_t i = v.c.i;
		if (v.c.kind == CV_FLOAT && !dtype_is_int((DType)dt.dt)) {
			i = 0; /* a float tile: only f is used */
		} else if (v.c.kind == CV_FLOAT) {
			/* inf, nan or beyond int64 has no integer value (the C cast is undefined) */
			if (!(f >= -9223372036854775808.0 && f < 9223372036854775808.0)) {
				diag_error(s->d, loc, "cannot fill an integer tile with %g", f);
				return v_err();
			}
			i = dt.dt == DT_I1 ? f != 0 : (int64_t)f;
		}
		if (dt.dt == DT_I1) i = i != 0;
		return v_tensor(s, emit_const(s, t, i, f, loc));
	}
	if (v.kind != V_TENSOR || v.ty.rank) {
		diag_error(s->d, loc, "fill value must be a scalar, got %s", v_describe(s, v));
		return v_err();
	}
	ValId x = cast_val(s, v.id, dt, false, 0, loc);
	if (!x) return v_err();
	return v_tensor(s, broadcast_to_shape(s, x, rank, shape, loc));
}

static Value b_zeros(Sema *s, Call *c, int extra)
{
	int32_t shape[TIR_MAX_RANK];
	int rank;
	Type dt = type_scalar(DT_F32);
	if (!arg_shape(s, c, 0, shape, &rank)) return v_err();
	int di = extra ? 2 : 1; /* full(shape, value, dtype) */
	if (extra && !c->has[di]) {
		diag_error(s->d, c->loc, "'tl.full' is missing argument 'dtype'");
		return v_err();
	}
	/* Triton raises "dtype must be specified when value is not a tensor" */
	if (c->has[di] && v_is_none(c->a[di])) {
		diag_error(s->d, c->at[di], "the dtype of %s must be a dtype (tl.float32, ...), not None",
			   extra ? "tl.full" : "tl.zeros");
		return v_err();
	}
	if (c->has[di] && !arg_dtype(s, c, di, &dt)) return v_err();
	return full_impl(s, rank, shape, extra ? c->a[1] : v_int(0), dt, c->loc);
}

static Value b_zeros_like(Sema *s, Call *c, int extra)
{
	ValId x;
	if (!arg_tensor(s, c, 0, &x)) return v_err();
	Type t = vtype(s, x), dt = type_elem(t);
	if (c->has[1] && !v_is_none(c->a[1]) && !arg_dtype(s, c, 1, &dt)) return v_err();
	Value fill = extra == 2 ? (c->has[2] ? c->a[2] : v_int(0)) : v_int(extra);
	return full_impl(s, t.rank, t.shape, fill, dt, c->loc);
}

/* shape from varargs: f(x, 2, 3) or f(x, (2, 3)) */
static bool rest_shape(Sema *s, Call *c, int32_t *shape, int *rank)
{
	Value v = c->nrest == 1 ? c->rest[0] : v_tuple(s, c->rest, c->nrest);
	Call tmp = {.name = c->name, .loc = c->loc};
	tmp.a[0] = v;
	tmp.has[0] = true;
	tmp.at[0] = c->nrest ? c->rest_at[0] : c->loc;
	tmp.pn[0] = istr(s, "shape");
	return arg_shape(s, &tmp, 0, shape, rank);
}

static Value b_broadcast_to(Sema *s, Call *c, int extra)
{
	(void)extra;
	ValId x;
	int32_t shape[TIR_MAX_RANK];
	int rank;
	if (!arg_tensor(s, c, 0, &x) || !rest_shape(s, c, shape, &rank)) return v_err();
	Type t = vtype(s, x);
	if (t.rank && t.rank != rank) { /* Triton's broadcast_impl_shape: scalars splat, tensors keep their rank */
		char from[96], to[96];
		Type want = t;
		want.rank = rank;
		for (int d = 0; d < rank; d++)
			want.shape[d] = shape[d];
		shape_str(t, from, sizeof from);
		shape_str(want, to, sizeof to);
		diag_error(s->d, c->loc, "cannot broadcast, rank mismatch: %s to %s (expand_dims or reshape first)", from, to);
		return v_err();
	}
	ValId r = broadcast_to_shape(s, x, rank, shape, c->loc);
	return r ? v_tensor(s, r) : v_err();
}

static Value b_broadcast(Sema *s, Call *c, int extra)
{
	(void)extra;
	ValId x, y;
	if (!arg_tensor(s, c, 0, &x) || !arg_tensor(s, c, 1, &y)) return v_err();
	if (!broadcast_pair(s, &x, &y, c->loc)) return v_err();
	Value items[2] = {v_tensor(s, x), v_tensor(s, y)};
	return v_tuple(s, items, 2);
}

static Value reshape_to(Sema *s, ValId x, int rank, const int32_t *shape, SrcLoc loc)
{
	Type t = vtype(s, x);
	Type r = shaped((DType)t.dt, rank, shape);
	r.elem = t.elem;
	if (type_numel(r) != type_numel(t)) {
		char a[64], b[64];
		shape_str(t, a, sizeof a);
		shape_str(r, b, sizeof b);
		diag_error(s->d, loc, "cannot reshape a tile of shape %s to %s: sizes differ", a, b);
		return v_err();
	}
	return v_tensor(s, shape_reshape(s, x, rank, shape, loc));
}

/* x.item(): the element of a one-element tensor, as a scalar */
static Value b_item(Sema *s, Call *c, int extra)
{
	(void)extra;
	ValId x;
	if (!arg_tensor(s, c, 0, &x)) return v_err();
	Type t = vtype(s, x);
	if (type_numel(t) != 1) {
		char a[64];
		shape_str(t, a, sizeof a);
		diag_error(s->d, c->loc, "item() needs a tensor of one element, got shape %s", a);
		return v_err();
	}
	return v_tensor(s, shape_reshape(s, x, 0, NULL, c->loc));
}

static Value b_reshape(Sema *s, Call *c, int extra)
{
	(void)extra;
	ValId x;
	int32_t shape[TIR_MAX_RANK];
	int rank;
	if (!arg_tensor(s, c, 0, &x) || !rest_shape(s, c, shape, &rank)) return v_err();
	return reshape_to(s, x, rank, shape, c->loc);
}

static Value b_ravel(Sema *s, Call *c, int extra)
{
	(void)extra;
	ValId x;
	if (!arg_tensor(s, c, 0, &x)) return v_err();
	int32_t n = (int32_t)type_numel(vtype(s, x));
	return reshape_to(s, x, 1, &n, c->loc);
}

static Value permute_impl(Sema *s, ValId x, const int32_t *perm, int n, SrcLoc loc)
{
	Type t = vtype(s, x);
	if (n != t.rank) {
		diag_error(s->d, loc, "permutation of %d dims for a tensor of rank %d", n, t.rank);
		return v_err();
	}
	unsigned seen = 0;
	Type r = t;
	bool identity = true;
	for (int i = 0; i < n; i++) {
		/* Negative dims are not wrapped: Triton's semantic.permute rejects them. */
		if (perm[i] < 0 || perm[i] >= n || (seen & (1u << perm[i]))) {
			char got[TIR_MAX_RANK * 12 + 4];
			int len = 0;
			for (int j = 0; j < n; j++)
				len += snprintf(got + len, sizeof got - (size_t)len, "%s%d", j ? ", " : "(", (int)perm[j]);
			snprintf(got + len, sizeof got - (size_t)len, "%s)", n == 1 ? "," : "");
			diag_error(s->d, loc, "dims must be a permutation of 0..%d, got %s", n - 1, got);
			return v_err();
		}
		seen |= 1u << perm[i];
		r.shape[i] = t.shape[perm[i]];
		identity &= perm[i] == i;
	}
	if (identity) return v_tensor(s, x);
	TirOp *op = emit_op(s, TOP_TRANS, loc, &x, 1, r);
	for (int i = 0; i < n; i++) op->attr.perm[i] = perm[i];
	return v_tensor(s, op->results[0]);
}

static Value b_trans(Sema *s, Call *c, int extra)
{
	ValId x;
	if (!arg_tensor(s, c, 0, &x)) return v_err();
	Type t = vtype(s, x);
	int32_t perm[TIR_MAX_RANK];
	int n = 0;
	if (c->nrest == 0) {
		if (extra || t.rank != 2) { /* Triton's trans defaults to (1, 0): rank 1 too is an error */
			if (extra) {
				diag_error(s->d, c->loc, "'%s' needs dims", c->name);
				return v_err();
			}
			diag_error(s->d, c->loc, "tl.trans without dims needs a 2-d tensor, got rank %d", t.rank);
			return v_err();
		}
		perm[0] = 1;
		perm[1] = 0;
		n = 2;
	} else {
		Value v = c->nrest == 1 ? c->rest[0] : v_tuple(s, c->rest, c->nrest);
		if (!as_int_list(s, v, c->loc, "dims", perm, TIR_MAX_RANK, &n)) return v_err();
	}
	return permute_impl(s, x, perm, n, c->loc);
}

static Value b_expand_dims(Sema *s, Call *c, int extra)
{
	(void)extra;
	ValId x;
	if (!arg_tensor(s, c, 0, &x)) return v_err();
	int32_t axes[TIR_MAX_RANK];
	int n;
	if (!as_int_list(s, c->a[1], c->at[1], "axis", axes, TIR_MAX_RANK, &n)) return v_err();
	int rank = vtype(s, x).rank + n;
	if (rank > TIR_MAX_RANK) {
		diag_error(s->d, c->loc, "tiles of rank %d are not supported (at most %d)", rank, TIR_MAX_RANK);
		return v_err();
	}
	for (int i = 0; i < n; i++) {
		int a = norm_axis(s, axes[i], rank, c->at[1]);
		if (a < 0) return v_err();
		axes[i] = a;
		for (int j = 0; j < i; j++) /* Triton rejects duplicates, (0, -3) on rank 3 included */
			if (axes[j] == a) {
				diag_error(s->d, c->at[1], "expand_dims received duplicate axes: axis %d appears twice", a);
				return v_err();
			}
	}
	for (int i = 0; i < n; i++) /* sort */
		for (int j = i + 1; j < n; j++)
			if (axes[j] < axes[i]) {
				int32_t t = axes[i];
				axes[i] = axes[j];
				axes[j] = t;
			}
	for (int i = 0; i < n; i++) {
		Type t = vtype(s, x), r = t;
		r.rank++;
		for (int d = r.rank - 1; d > axes[i]; d--) r.shape[d] = t.shape[d - 1];
		r.shape[axes[i]] = 1;
		if (t.rank == 0) {
			x = emit(s, TOP_SPLAT, c->loc, &x, 1, r);
			continue;
		}
		TirOp *op = emit_op(s, TOP_EXPAND_DIMS, c->loc, &x, 1, r);
		op->attr.axis = axes[i];
		x = op->results[0];
	}
	return v_tensor(s, x);
}

static Value b_where(Sema *s, Call *c, int extra)
{
	(void)extra;
	return make_where(s, c->a[0], c->a[1], c->a[2], c->loc);
}

/* ---- casts ------------------------------------------------------------------------------- */

/* fp32 / fp16 to float8e5 rounding toward zero, as Triton's NVIDIA backend does
 * it: to fp16 with rtz, then the high byte (e5m2 is fp16 without its low 8
 * mantissa bits, so dropping them truncates; fp32 past fp16's range gives
 * fp16's largest finite value under rtz, whose high byte is e5m2's, 57344). */
static ValId rtz_to_e5m2(Sema *s, ValId x, SrcLoc loc)
{
	Type t = vtype(s, x);
	ValId v = x;
	if (t.dt != DT_F16)
		v = cast_val(s, x, type_scalar(DT_F16), false, TIR_RTZ, loc);
	Type u16 = type_tile(type_scalar(DT_U16), t.rank, t.shape);
	v = cast_val(s, v, u16, true, 0, loc);
	ValId sh[2] = {v, emit_const(s, u16, 8, 0, loc)};
	v = emit(s, TOP_SHR, loc, sh, 2, u16);
	v = cast_val(s, v, type_scalar(DT_U8), false, 0, loc);
	return cast_val(s, v, type_scalar(DT_F8E5M2), true, 0, loc);
}

/* Triton's cast takes a rounding only for a float narrowing (a bitcast or a cast
 * to the same type ignores it); for any other conversion it is a ValueError */
static bool rounding_fits(Sema *s, Call *c, DType from, DType to)
{
	if (from == to || (dtype_is_float(from) && dtype_is_float(to) && dtype_bits(to) < dtype_bits(from))) return true;
	diag_error(s->d, c->at[2],
		   "fp_downcast_rounding should be set only for truncating fp conversions, not from %s to %s (a ValueError "
		   "in Triton)",
		   dtype_name(from), dtype_name(to));
	return false;
}

static Value b_cast(Sema *s, Call *c, int extra)
{
	(void)extra;
	Type dt;
	if (!arg_dtype(s, c, 1, &dt)) return v_err();
	bool bitcast = false;
	if (c->has[3] && !arg_bool(s, c, 3, &bitcast)) return v_err();
	int flags = 0;
	bool rounding = c->has[2] && !v_is_none(c->a[2]);
	if (rounding) {
		const char *r = arg_str(s, c, 2);
		if (!r) return v_err();
		if (!strcmp(r, "rtz")) flags = TIR_RTZ;
		else if (strcmp(r, "rtne")) {
			diag_error(s->d, c->at[2], "fp_downcast_rounding must be 'rtne' or 'rtz', got '%s'", r);
			return v_err();
		}
	}
	Value v = c->a[0];
	if (rounding && !bitcast && v.kind == V_CONST && (v.c.kind == CV_INT || v.c.kind == CV_FLOAT || v.c.kind == CV_BOOL) &&
	    !rounding_fits(s, c, (DType)const_natural_type(v.c).dt, (DType)dt.dt))
		return v_err();
	if (v.kind == V_CONST && !bitcast && (v.c.kind == CV_INT || v.c.kind == CV_FLOAT || v.c.kind == CV_BOOL) && dt.dt != DT_PTR)
		return v_tensor(s, to_ir(s, v, (DType)dt.dt, c->loc));
	ValId x;
	if (!arg_tensor(s, c, 0, &x)) return v_err();
	DType from = (DType)vtype(s, x).dt;
	if (rounding && !bitcast && !rounding_fits(s, c, from, (DType)dt.dt)) return v_err();
	if (flags == TIR_RTZ && !bitcast && (dt.dt == DT_F8E4M3 || dt.dt == DT_F8E5M2) && dtype_is_float(from) &&
	    from != dt.dt) {
		if (dt.dt == DT_F8E5M2 && (from == DT_F32 || from == DT_F16))
			return v_tensor(s, rtz_to_e5m2(s, x, c->loc));
		/* Triton's NVIDIA backend converts to fp8 with rtz only from fp32 and fp16 to e5m2 */
		diag_error(s->d, c->at[2], "fp_downcast_rounding='rtz' is not supported for a cast from %s to %s (only 'rtne')",
			   dtype_name(from), dtype_name((DType)dt.dt));
		return v_err();
	}
	ValId r = cast_val(s, x, dt, bitcast, flags, c->loc);
	return r ? v_tensor(s, r) : v_err();
}

/* while tl.condition(c, disable_licm=True): the condition c; the hint keeps
 * the loop's invariant ops in it (exec_while_in reads cond_no_licm) */
static Value b_condition(Sema *s, Call *c, int extra)
{
	(void)extra;
	bool no_licm = false;
	if (c->has[1] && !as_const_flag(s, c->a[1], c->at[1], "disable_licm", &no_licm)) return v_err();
	if (no_licm) s->cond_no_licm = true;
	return c->a[0];
}

/* with tl.async_task([0]) / async_task(num_warps=..): the task a block belongs
 * to under Triton's warp specialization; exec_with runs the block in place */
static Value b_async_task(Sema *s, Call *c, int extra)
{
	(void)s;
	(void)c;
	(void)extra;
	return v_none();
}

static Value b_to_tensor(Sema *s, Call *c, int extra)
{
	(void)extra;
	ValId x;
	if (!arg_tensor(s, c, 0, &x)) return v_err();
	return v_tensor(s, x);
}

static Value b_pointer_type(Sema *s, Call *c, int extra)
{
	(void)extra;
	Type dt;
	if (!arg_dtype(s, c, 0, &dt)) return v_err();
	if (dt.dt == DT_PTR) {
		diag_error(s->d, c->at[0], "pointers to pointers are not supported");
		return v_err();
	}
	bool is_const = false;
	if (c->has[2] && !arg_bool(s, c, 2, &is_const)) return v_err();
	Type t = type_ptr((DType)dt.dt);
	t.ptr_const = is_const; /* tl.pointer_type(tl.float16, const=True), as a tl.const parameter's */
	return v_dtype(t);
}

/* tl.block_type(element_ty, shape): the type of a block, as x.type gives it, for
 * comparing with one and for isinstance; checked as Triton's constructor does */
static Value b_block_type(Sema *s, Call *c, int extra)
{
	(void)extra;
	Type dt;
	int32_t shape[TIR_MAX_RANK];
	int n;
	if (!arg_dtype(s, c, 0, &dt) || !as_int_list(s, c->a[1], c->at[1], "shape", shape, TIR_MAX_RANK, &n))
		return v_err();
	if (c->a[0].n > 0) {
		diag_error(s->d, c->at[0], "tl.block_type: the element type must be a scalar type, got a block type");
		return v_err();
	}
	if (n == 0) {
		diag_error(s->d, c->at[1], "tl.block_type: the shape is empty (Triton: 0d block_type is forbidden)");
		return v_err();
	}
	int64_t numel = 1;
	for (int i = 0; i < n; i++) {
		if (shape[i] <= 0) {
			diag_error(s->d, c->at[1], "tl.block_type: dimension %d of the shape is %d; it must be positive", i,
				   (int)shape[i]);
			return v_err();
		}
		numel *= shape[i];
	}
	if (numel > TILE_MAX_NUMEL) {
		diag_error(s->d, c->at[1], "tl.block_type: %lld elements exceed the limit of %d (TRITON_MAX_TENSOR_NUMEL)",
			   (long long)numel, TILE_MAX_NUMEL);
		return v_err();
	}
	Value t = v_dtype(dt); /* the element type, and the shape in items, as x.type of a block */
	t.n = n;
	t.items = ARENA_NEWN(s->a, Value, n);
	for (int i = 0; i < n; i++) t.items[i] = v_int(shape[i]);
	return t;
}

/* ---- hints --------------------------------------------------------------------------------- */

static Value b_hint(Sema *s, Call *c, int extra)
{
	ValId x;
	if (!arg_tensor(s, c, 0, &x)) return v_err();
	int32_t vals[TIR_MAX_RANK];
	int n;
	if (!as_int_list(s, c->a[1], c->at[1], "values", vals, TIR_MAX_RANK, &n)) return v_err();
	int rank = vtype(s, x).rank;
	if (n != (rank ? rank : 1)) {
		diag_error(s->d, c->at[1], "'%s' needs %d value%s for a tensor of rank %d, got %d", c->name, rank ? rank : 1,
			   rank > 1 ? "s" : "", rank, n);
		return v_err();
	}
	for (int i = 0; i < n; i++)
		if (vals[i] <= 0) {
			diag_error(s->d, c->at[1], "'%s' values must be positive", c->name);
			return v_err();
		}
	tir_add_hint(s->f, x, (TirHintKind)extra, n, vals);
	return v_tensor(s, x);
}

const Builtin builtins_core[] = {
    {"program_id", "axis=0", b_program_id, 0, BF_TL},
    {"num_programs", "axis=0", b_program_id, 1, BF_TL},
    {"arange", "start,end", b_arange, 0, BF_TL},
    {"zeros", "shape,dtype", b_zeros, 0, BF_TL},
    {"full", "shape,value,dtype", b_zeros, 1, BF_TL},
    {"zeros_like", "input,dtype=None", b_zeros_like, 0, BF_TL | BF_METHOD},
    {"full_like", "input,dtype=None,value=0", b_zeros_like, 2, BF_TL},
    {"broadcast_to", "input,*shape", b_broadcast_to, 0, BF_TL | BF_METHOD},
    {"broadcast", "input,other", b_broadcast, 0, BF_TL | BF_METHOD},
    {"reshape", "input,*shape,can_reorder=False", b_reshape, 0, BF_TL | BF_METHOD},
    {"view", "input,*shape", b_reshape, 0, BF_TL | BF_METHOD},
    {"ravel", "x,can_reorder=False", b_ravel, 0, BF_TL | BF_METHOD},
    {"item", "self", b_item, 0, BF_METHOD},
    {"trans", "input,*dims", b_trans, 0, BF_TL | BF_METHOD},
    {"permute", "input,*dims", b_trans, 1, BF_TL | BF_METHOD},
    {"expand_dims", "input,axis", b_expand_dims, 0, BF_TL | BF_METHOD},
    {"where", "condition,x,y", b_where, 0, BF_TL},
    {"cast", "input,dtype,fp_downcast_rounding=None,bitcast=False", b_cast, 0, BF_TL | BF_METHOD},
    {"to", "input,dtype,fp_downcast_rounding=None,bitcast=False", b_cast, 0, BF_METHOD},
    {"to_tensor", "x", b_to_tensor, 0, BF_TL},
    {"condition", "arg1,disable_licm=False", b_condition, 0, BF_TL},
    {"async_task", "task_ids=None,num_warps=None,num_regs=None,registers=None,replicate=None", b_async_task, 0, BF_TL},
    {"pointer_type", "element_ty,address_space=1,const=False", b_pointer_type, 0, BF_TL},
    {"block_type", "element_ty,shape", b_block_type, 0, BF_TL},
    {"multiple_of", "input,values", b_hint, HINT_MULTIPLE_OF, BF_TL | BF_METHOD},
    {"max_contiguous", "input,values", b_hint, HINT_MAX_CONTIGUOUS, BF_TL | BF_METHOD},
    {"max_constancy", "input,values", b_hint, HINT_MAX_CONSTANCY, BF_TL | BF_METHOD},
    {NULL, NULL, NULL, 0, 0},
};

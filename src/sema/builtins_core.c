/* builtins_core.c: program ids, arange, tile construction and views, casts,
 * hints, compile-time helpers, prints/asserts, dtype methods, and the Python
 * builtins kernels use (min, max, len, range, ...). */
#include <ctype.h>
#include <math.h>
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
	int32_t n = (int32_t)(hi - lo);
	if (!is_pow2_i64(n)) {
		diag_error(s->d, c->loc, "tl.arange length %d (end - start) is not a power of two", n);
		return v_err();
	}
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

static Value b_cast(Sema *s, Call *c, int extra)
{
	(void)extra;
	Type dt;
	if (!arg_dtype(s, c, 1, &dt)) return v_err();
	bool bitcast = false;
	if (c->has[3] && !arg_bool(s, c, 3, &bitcast)) return v_err();
	int flags = 0;
	if (c->has[2] && !v_is_none(c->a[2])) {
		const char *r = arg_str(s, c, 2);
		if (!r) return v_err();
		if (!strcmp(r, "rtz")) flags = TIR_RTZ;
		else if (strcmp(r, "rtne")) {
			diag_error(s->d, c->at[2], "fp_downcast_rounding must be 'rtne' or 'rtz', got '%s'", r);
			return v_err();
		}
	}
	Value v = c->a[0];
	if (v.kind == V_CONST && !bitcast && (v.c.kind == CV_INT || v.c.kind == CV_FLOAT || v.c.kind == CV_BOOL) && dt.dt != DT_PTR)
		return v_tensor(s, to_ir(s, v, (DType)dt.dt, c->loc));
	ValId x;
	if (!arg_tensor(s, c, 0, &x)) return v_err();
	DType from = (DType)vtype(s, x).dt;
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

/* while tl.condition(c, disable_licm=True): the condition c; the hint is for
 * Triton's loop-invariant code motion, which tile's loops do not need told */
static Value b_condition(Sema *s, Call *c, int extra)
{
	(void)s;
	(void)extra;
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
	return v_dtype(type_ptr((DType)dt.dt));
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

/* ---- compile-time helpers ---------------------------------------------------------------- */

static Value b_constexpr(Sema *s, Call *c, int extra)
{
	(void)s;
	(void)extra;
	return enum_wrap(c->a[0]); /* tl.constexpr(Act.RELU).value is the member */
}

static Value b_static_assert(Sema *s, Call *c, int extra)
{
	(void)extra;
	Value v = c->a[0];
	if (v.kind == V_ERR) return v;
	if (v.kind == V_TENSOR) {
		diag_error(s->d, c->at[0], "tl.static_assert needs a constexpr condition");
		return v_err();
	}
	bool ok = value_truthy(v);
	if (!ok) {
		const char *msg = c->has[1] ? arg_str(s, c, 1) : "";
		if (msg && *msg) diag_error(s->d, c->at[0], "static assertion failed: %s", msg);
		else diag_error(s->d, c->at[0], "static assertion failed");
		return v_err();
	}
	return v_none();
}

/* tl.assume(cond): a promise to the optimizer; tile checks that it is a
 * condition and uses nothing from it (dropping a hint is always correct) */
static Value b_assume(Sema *s, Call *c, int extra)
{
	(void)extra;
	Value v = c->a[0];
	if (v.kind == V_ERR) return v;
	if (v.kind == V_CONST && (v.c.kind == CV_BOOL || v.c.kind == CV_INT)) return v_none();
	if (v.kind != V_TENSOR || v.ty.dt != DT_I1) {
		diag_error(s->d, c->at[0], "tl.assume needs a boolean condition, got %s", v_describe(s, v));
		return v_err();
	}
	return v_none();
}

static Value b_noop(Sema *s, Call *c, int extra)
{
	(void)s;
	(void)c;
	(void)extra;
	return v_none();
}

/* tl.target_info (constexpr functions of the compile target). tile compiles
 * Triton's NVIDIA dialect on every target (inline PTX is translated), so
 * is_cuda() holds everywhere and the is_hip*() queries are False; the CPU
 * targets have the sm_80 feature level they emulate (mma.sync, cp.async). */
static Value b_target_is(Sema *s, Call *c, int cuda)
{
	(void)s;
	(void)c;
	return v_bool(cuda);
}

static Value b_target_cc_geq(Sema *s, Call *c, int extra)
{
	(void)extra;
	int64_t major, minor = 0;
	if (!arg_const_int(s, c, 0, &major) || (c->has[1] && !arg_const_int(s, c, 1, &minor))) return v_err();
	const TargetDesc *t = s->c->target;
	int arch = t && t->kind == TARGET_CUDA && !t->emulate ? t->arch : 80;
	return v_bool(arch >= major * 10 + minor);
}

/* triton.constexpr_function(f), the call form of the decorator (TE wraps
 * core.get_int_dtype with it on Triton 3.5+): f itself, since tile evaluates a call on
 * constexprs at compile time anyway */
static Value b_constexpr_function(Sema *s, Call *c, int extra)
{
	(void)extra;
	Value f = c->a[0];
	if (f.kind == V_ERR || f.kind == V_FUNC || f.kind == V_BUILTIN || f.kind == V_LAMBDA) return f;
	diag_error(s->d, c->at[0], "constexpr_function takes a function, got %s", v_describe(s, f));
	return v_err();
}

/* triton.aggregate / tl.core._aggregate: a class decorator (class_aggregate
 * in sema.c looks for it); called on a class, it gives the class back */
static Value b_aggregate(Sema *s, Call *c, int extra)
{
	(void)extra;
	Value v = c->a[0];
	if (v.kind == V_ERR || (v.kind == V_MODULE && v.mod->cls)) return v;
	diag_error(s->d, c->at[0], "aggregate takes a class, got %s", v_describe(s, v));
	return v_err();
}

/* tl.extra.cuda.num_warps() / num_threads(): the kernel's launch option, a constexpr
 * (a heuristic that sets num_warps has run before the body) */
static Value b_cuda_num_warps(Sema *s, Call *c, int extra)
{
	(void)c;
	return v_int((int64_t)s->f->num_warps * (extra ? 32 : 1));
}

/* tl.extra.cuda.globaltimer() (uint64 nanoseconds) / smid() (int32): read
 * anew at each call, the same value in every thread of the program */
static Value b_cuda_sreg(Sema *s, Call *c, int extra)
{
	TirOp *op = emit_op(s, TOP_SREG, c->loc, NULL, 0, type_scalar(extra == SREG_SMID ? DT_I32 : DT_U64));
	op->attr.i = extra;
	return v_tensor(s, op->results[0]);
}

/* range(...) / tl.static_range(...) outside a for statement: with constexpr
 * bounds, the tuple of its values (comprehensions, tuple(range(4)), len, in). */
static Value b_loop_only(Sema *s, Call *c, int extra)
{
	(void)extra;
	Value v[3] = {v_int(0), v_int(0), v_int(1)};
	bool all_const = c->nrest >= 1 && c->nrest <= 3;
	for (int i = 0; all_const && i < c->nrest; i++) {
		if (c->rest[i].kind == V_ERR) return v_err();
		if (!v_is_intlike(c->rest[i])) all_const = false;
		else {
			v[i] = c->rest[i];
			v[i].c.kind = CV_INT; /* range(True) is range(1) */
		}
	}
	if (all_const) {
		if (c->nrest == 1) {
			v[1] = v[0];
			v[0] = v_int(0);
		}
		if (c->nrest == 3 && v[2].c.i == 0) {
			s->py_errors++;
			diag_error(s->d, c->loc, "'%s' step must not be zero", c->name);
			return v_err();
		}
		uint64_t n = const_range_len(v[0].c, v[1].c, v[2].c);
		if (n > 65536) {
			s->py_errors++;
			diag_error(s->d, c->loc, "'%s' with %llu values is too long to evaluate at compile time", c->name,
				   (unsigned long long)n);
			return v_err();
		}
		/* each item is a tuple item built: charged, so a range re-evaluated in a
		 * nested comprehension cannot fill memory faster than the work limit allows */
		if (!sema_work(s, (int64_t)n, c->loc)) return v_err();
		Value r = v_tuple(s, NULL, 0);
		r.n = (int)n;
		r.items = n ? ARENA_NEWN(s->a, Value, n) : NULL;
		for (uint64_t i = 0; i < n; i++) r.items[i] = i ? const_range_next(r.items[i - 1], v[2]) : v[0];
		return r;
	}
	diag_error(s->d, c->loc, "'%s' can only be used as the iterable of a for loop", c->name);
	return v_err();
}

static Value b_jit(Sema *s, Call *c, int extra)
{
	(void)extra;
	if (c->has[0] && c->a[0].kind == V_FUNC) {
		s->jit_applied++;
		return c->a[0];
	}
	if (c->has[0] && c->a[0].kind != V_ERR) {
		diag_error(s->d, c->at[0], "'%s' expects a function", c->name);
		return v_err();
	}
	return v_builtin(builtin_find("jit", BF_TRITON), NULL);
}

/* triton.Config(kwargs, num_warps=None, num_stages=None, ...): V_CONFIG (checked by
 * @triton.autotune, which knows where each Config is) */
static Value b_config(Sema *s, Call *c, int extra)
{
	(void)extra;
	Value kw = c->a[0];
	if (kw.kind == V_ERR) return kw;
	if (kw.kind != V_DICT) {
		diag_error(s->d, c->at[0], "argument 'kwargs' of 'triton.Config' must be a dict, got %s", v_describe(s, kw));
		return v_err();
	}
	for (int i = 0; i < kw.n; i++) {
		if (!v_is_const(kw.keys[i], CV_STR)) {
			diag_error(s->d, c->at[0], "the keys of a triton.Config must be parameter names (strings)");
			return v_err();
		}
		Value v = kw.items[i];
		if (v.kind != V_CONST && !v_dtype_is_const(v) && !v_is_enum_member(v)) {
			diag_error(s->d, c->at[0], "triton.Config value for '%s' must be a constexpr, got %s", kw.keys[i].c.s,
				   v_describe(s, v));
			return v_err();
		}
	}
	Value items[3] = {kw, v_none(), v_none()}; /* None: the Config does not say */
	for (int k = 1; k <= 2; k++) {
		int64_t n = 0;
		if (!c->has[k] || v_is_none(c->a[k])) continue;
		if (!arg_const_int(s, c, k, &n)) return v_err();
		items[k] = v_int(n);
	}
	Value r = v_tuple(s, items, 3);
	r.kind = V_CONFIG;
	return r;
}

static Value b_cdiv(Sema *s, Call *c, int extra)
{
	(void)extra;
	Value x = c->a[0], d = c->a[1];
	if (x.kind == V_CONST && d.kind == V_CONST) {
		Value t = const_binop(s, OP_ADD, x, d, c->loc);
		t = const_binop(s, OP_SUB, t, v_int(1), c->loc);
		return const_binop(s, OP_FLOORDIV, t, d, c->loc);
	}
	Value t = binop(s, OP_ADD, x, d, c->loc);
	t = binop(s, OP_SUB, t, v_int(1), c->loc);
	return binop(s, OP_FLOORDIV, t, d, c->loc);
}

/* triton.next_power_of_2(n), as Triton computes it (n - 1 with every lower bit
 * set, plus 1): 0 for n <= 0, 2**63 a uint64, past it 2**64 out of range */
static Value b_next_pow2(Sema *s, Call *c, int extra)
{
	(void)extra;
	ConstVal v = c->a[0].c;
	if (c->a[0].kind == V_ERR) return c->a[0];
	if (!v_is_intlike(c->a[0])) {
		diag_error(s->d, c->at[0], "%s needs a constexpr int, got %s", c->name, v_describe(s, c->a[0]));
		return v_err();
	}
	if (!v.u64 && v.i <= 0) return v_int(0);
	uint64_t u = (uint64_t)v.i;
	if (u > (UINT64_C(1) << 63)) {
		diag_error(s->d, c->at[0], "%s(%llu) is 2**64, outside [-2**63, 2**64)", c->name, (unsigned long long)u);
		return v_err();
	}
	uint64_t p = 1;
	while (p < u) p <<= 1;
	return v_uint64(p);
}

/* tl.core.get_int_dtype(bitwidth, signed): the integer dtype of that width
 * (int1 for 1 bit), as Triton's; kernels use it to bitcast to unsigned */
static Value b_get_int_dtype(Sema *s, Call *c, int extra)
{
	(void)extra;
	int64_t bits;
	bool sign;
	if (!arg_const_int(s, c, 0, &bits) || !arg_bool(s, c, 1, &sign)) return v_err();
	DType dt = DT_VOID;
	switch (bits) {
	case 1: dt = DT_I1; break;
	case 8: dt = sign ? DT_I8 : DT_U8; break;
	case 16: dt = sign ? DT_I16 : DT_U16; break;
	case 32: dt = sign ? DT_I32 : DT_U32; break;
	case 64: dt = sign ? DT_I64 : DT_U64; break;
	default:
		diag_error(s->d, c->at[0], "unsupported bitwidth %lld for an integer dtype", (long long)bits);
		return v_err();
	}
	return v_dtype(type_scalar(dt));
}

/* tl.standard._log2(n): log2 of a constexpr power of two (kernels doing their
 * own bitonic sorts use it, as Triton's sort does) */
static Value b_log2_const(Sema *s, Call *c, int extra)
{
	(void)extra;
	int64_t n;
	if (!arg_const_int(s, c, 0, &n)) return v_err();
	if (n <= 0 || (n & (n - 1))) {
		diag_error(s->d, c->at[0], "'%s' needs a positive power of two, got %lld", c->name, (long long)n);
		return v_err();
	}
	int k = 0;
	while ((1LL << k) < n) k++;
	return v_int(k);
}

/* torch.finfo(dtype) / torch.iinfo(dtype): module-level constants in real
 * projects (`FP8_MIN = torch.finfo(torch.float8_e4m3fn).min`). An object
 * whose attributes are min, max, bits (and eps, tiny, smallest_normal,
 * resolution for floats), all exact. */
static Value b_torch_info(Sema *s, Call *c, int is_float)
{
	Type t;
	if (!arg_dtype(s, c, 0, &t)) return v_err();
	DType d = (DType)t.dt;
	static const struct {
		DType dt;
		double max, eps, tiny, res;
	} fl[] = {
	    {DT_F16, 65504.0, 0x1p-10, 0x1p-14, 1e-3},
	    {DT_BF16, 0x1.fep127, 0x1p-7, 0x1p-126, 1e-2},
	    {DT_F32, 0x1.fffffep127, 0x1p-23, 0x1p-126, 1e-6},
	    {DT_F64, 0x1.fffffffffffffp1023, 0x1p-52, 0x1p-1022, 1e-15},
	    {DT_F8E4M3, 448.0, 0x1p-3, 0x1p-6, 1e-1},
	    {DT_F8E5M2, 57344.0, 0x1p-2, 0x1p-14, 1e-1},
	};
	Value keys[10], vals[10];
	int n = 0;
	if (is_float) {
		size_t i = 0;
		while (i < COUNTOF(fl) && fl[i].dt != d) i++;
		if (i == COUNTOF(fl)) {
			diag_error(s->d, c->at[0], "torch.finfo needs a floating-point dtype, got %s", dtype_name(d));
			return v_err();
		}
		const char *names[] = {"min", "max", "eps", "tiny", "smallest_normal", "resolution"};
		double v[] = {-fl[i].max, fl[i].max, fl[i].eps, fl[i].tiny, fl[i].tiny, fl[i].res};
		for (int k = 0; k < 6; k++) keys[n] = v_str(names[k]), vals[n++] = v_float(v[k]);
	} else {
		if (!dtype_is_int(d) || d == DT_I1) {
			diag_error(s->d, c->at[0], "torch.iinfo needs an integer dtype, got %s", dtype_name(d));
			return v_err();
		}
		int bits = dtype_bits(d);
		bool sgn = dtype_is_signed(d);
		int64_t lo = sgn ? (int64_t)(-(1ULL << (bits - 1))) : 0;
		uint64_t hi = sgn ? (1ULL << (bits - 1)) - 1 : bits == 64 ? UINT64_MAX : (1ULL << bits) - 1;
		keys[n] = v_str("min"), vals[n++] = v_int(lo);
		keys[n] = v_str("max"), vals[n++] = v_int((int64_t)hi);
	}
	keys[n] = v_str("bits"), vals[n++] = v_int(dtype_bits(d));
	keys[n] = v_str("dtype"), vals[n++] = v_str(dtype_name(d));
	Value r = v_dict(s, keys, vals, n);
	r.msg = is_float ? "torch.finfo" : "torch.iinfo"; /* an object: attributes are its keys */
	return r;
}


/* Python's math module on constexpr numbers: module constants such as
 * `_kAlpha = math.sqrt(2.0 / math.pi)` or `RCP_LN2 = 1 / math.log(2)`.
 * floor/ceil/trunc give ints, the rest floats, as in Python. */
enum { PM_SQRT, PM_EXP, PM_EXP2, PM_LOG, PM_LOG2, PM_LOG10, PM_LOG1P, PM_POW, PM_FLOOR, PM_CEIL, PM_TRUNC,
       PM_FABS, PM_SIN, PM_COS, PM_TAN, PM_ASIN, PM_ACOS, PM_ATAN, PM_ATAN2, PM_TANH, PM_ERF, PM_ISNAN,
       PM_ISINF, PM_ISFINITE, PM_COPYSIGN };

static bool pymath_arg(Sema *s, Call *c, int i, double *out)
{
	Value v = c->a[i];
	if (v.kind == V_ERR) return false;
	if (v.kind == V_CONST && (v.c.kind == CV_INT || v.c.kind == CV_BOOL)) {
		*out = const_as_double(v.c);
		return true;
	}
	if (v.kind == V_CONST && v.c.kind == CV_FLOAT) {
		*out = v.c.f;
		return true;
	}
	diag_error(s->d, c->at[i], "%s works on constexpr numbers, got %s (use tl.math for tensors)", c->name,
		   v_describe(s, v));
	return false;
}

/* A constexpr number's own Python methods: Triton reads an attribute of a
 * tl.constexpr off the value it wraps, so `ITERS: tl.constexpr = N.bit_length()`
 * is Python's int.bit_length. extra: 0 bit_length, 1 bit_count, 2 is_integer. */
static Value b_pynum(Sema *s, Call *c, int extra)
{
	(void)s;
	ConstVal v = c->a[0].c;
	if (extra == 2) return v_bool(v.kind != CV_FLOAT || (isfinite(v.f) && floor(v.f) == v.f));
	uint64_t m = v.u64 || v.i >= 0 ? (uint64_t)v.i : 0 - (uint64_t)v.i;
	int n = 0;
	for (; m; m >>= 1)
		n += extra == 0 ? 1 : (int)(m & 1);
	return v_int(n);
}

static Value b_pymath(Sema *s, Call *c, int op)
{
	double x, y = 0;
	if (!pymath_arg(s, c, 0, &x)) return v_err();
	bool two = op == PM_POW || op == PM_ATAN2 || op == PM_COPYSIGN || (op == PM_LOG && c->has[1] && !v_is_const(c->a[1], CV_NONE));
	if (two && !pymath_arg(s, c, 1, &y)) return v_err();
	bool domain = false;
	double r = 0;
	switch (op) {
	case PM_SQRT: domain = x < 0, r = sqrt(x); break;
	case PM_EXP: r = exp(x); break;
	case PM_EXP2: r = exp2(x); break;
	case PM_LOG: domain = x <= 0 || (two && (y <= 0 || y == 1)), r = two ? log(x) / log(y) : log(x); break;
	case PM_LOG2: domain = x <= 0, r = log2(x); break;
	case PM_LOG10: domain = x <= 0, r = log10(x); break;
	case PM_LOG1P: domain = x <= -1, r = log1p(x); break;
	case PM_POW: domain = (x == 0 && y < 0) || (x < 0 && isfinite(y) && y != floor(y)), r = pow(x, y); break;
	case PM_FLOOR: case PM_CEIL: case PM_TRUNC: {
		double f = op == PM_FLOOR ? floor(x) : op == PM_CEIL ? ceil(x) : trunc(x);
		if (!isfinite(f) || fabs(f) > 9.2e18) {
			diag_error(s->d, c->loc, "%s of %g does not fit an int", c->name, x);
			return v_err();
		}
		return v_int((int64_t)f);
	}
	case PM_FABS: r = fabs(x); break;
	case PM_SIN: domain = isinf(x), r = sin(x); break;
	case PM_COS: domain = isinf(x), r = cos(x); break;
	case PM_TAN: domain = isinf(x), r = tan(x); break;
	case PM_ASIN: domain = x < -1 || x > 1, r = asin(x); break;
	case PM_ACOS: domain = x < -1 || x > 1, r = acos(x); break;
	case PM_ATAN: r = atan(x); break;
	case PM_ATAN2: r = atan2(x, y); break;
	case PM_TANH: r = tanh(x); break;
	case PM_ERF: r = erf(x); break;
	case PM_ISNAN: return v_bool(isnan(x));
	case PM_ISINF: return v_bool(isinf(x));
	case PM_ISFINITE: return v_bool(isfinite(x));
	case PM_COPYSIGN: r = copysign(x, y); break;
	}
	/* Python raises ValueError out of the domain, OverflowError where finite
	 * arguments give an infinite exp, exp2 or pow */
	if (domain) {
		s->py_errors++;
		diag_error(s->d, c->loc, "%s: math domain error", c->name);
		return v_err();
	}
	if ((op == PM_EXP || op == PM_EXP2 || op == PM_POW) && isinf(r) && isfinite(x) && isfinite(y)) {
		s->py_errors++;
		diag_error(s->d, c->loc, "%s: math range error (the result overflows)", c->name);
		return v_err();
	}
	return v_float(r);
}

/* importlib.util.find_spec(name): tile provides triton, so find_spec("triton") (or a
 * submodule of it) is a module spec, not None; whether anything else is installed
 * on the host is unknown at compile time. */
/* torch.cuda.is_available(): True (see NS_TORCH_CUDA) */
static Value b_cuda_available(Sema *s, Call *c, int extra)
{
	(void)s, (void)c, (void)extra;
	return v_bool(true);
}

static Value b_find_spec(Sema *s, Call *c, int extra)
{
	(void)extra;
	const char *name = arg_str(s, c, 0);
	if (!name) return v_err();
	if (strcmp(name, "triton") && strncmp(name, "triton.", 7)) {
		diag_error(s->d, c->at[0],
			   "importlib.util.find_spec('%s') is not known at compile time (tile knows only that triton is "
			   "importable)",
			   name);
		return v_err();
	}
	Value key = v_str("name"), val = v_str(name);
	Value r = v_dict(s, &key, &val, 1);
	r.msg = "ModuleSpec"; /* an object: attributes are its keys */
	return r;
}

/* packaging.version.parse(s) / Version(s): the PEP 440 versions projects
 * compare with triton.__version__: [v]N(.N)*[{a|b|rc}N][.postN][.devN]. An
 * object with major, minor, micro, release, is_prerelease, is_devrelease,
 * base_version; the hidden _pre, _post and _dev hold packaging's sort key. */
const char VERSION_OBJ[] = "packaging.version.Version";

static bool version_num(const char **p, int64_t *out)
{
	if (!isdigit((unsigned char)**p)) return false;
	int64_t v = 0;
	while (isdigit((unsigned char)**p) && v < INT64_MAX / 10) v = v * 10 + (*(*p)++ - '0');
	*out = v;
	return !isdigit((unsigned char)**p);
}

static Value b_version_parse(Sema *s, Call *c, int extra)
{
	(void)extra;
	const char *str = arg_str(s, c, 0);
	if (!str) return v_err();
	const char *p = str;
	if (*p == 'v' || *p == 'V') p++;
	Value rel[16];
	int n = 0;
	int64_t x, pre = INT64_MAX, post = -1, dev = INT64_MAX;
	bool ok = version_num(&p, &x);
	if (ok) rel[n++] = v_int(x);
	while (ok && *p == '.' && isdigit((unsigned char)p[1]) && n < 16) {
		p++;
		ok = version_num(&p, &x);
		rel[n++] = v_int(x);
	}
	static const char *const pre_kinds[] = {"a", "b", "rc"};
	for (int k = 2; ok && k >= 0; k--) {
		size_t len = strlen(pre_kinds[k]);
		if (strncmp(p, pre_kinds[k], len) || !isdigit((unsigned char)p[len])) continue;
		p += len;
		ok = version_num(&p, &x);
		pre = ((int64_t)k << 40) + x;
		break;
	}
	if (ok && !strncmp(p, ".post", 5)) p += 5, ok = version_num(&p, &post);
	if (ok && !strncmp(p, ".dev", 4)) p += 4, ok = version_num(&p, &dev);
	if (!ok || *p || n == 16) {
		diag_error(s->d, c->at[0],
			   "version '%s' is not one tile compares (N(.N)* with an optional aN/bN/rcN, .postN, .devN)", str);
		return v_err();
	}
	if (pre == INT64_MAX && post < 0 && dev != INT64_MAX) pre = -1; /* 1.0.dev0 sorts before 1.0a0 */
	StrBuf base = {0};
	for (int i = 0; i < n; i++) sb_printf(&base, "%s%lld", i ? "." : "", (long long)rel[i].c.i);
	static const char *const names[] = {"major", "minor", "micro", "release", "is_prerelease", "is_devrelease",
					    "base_version", "_pre", "_post", "_dev"};
	Value keys[10], vals[10];
	for (int i = 0; i < 10; i++) keys[i] = v_str(names[i]);
	for (int i = 0; i < 3; i++) vals[i] = i < n ? rel[i] : v_int(0);
	vals[3] = v_tuple(s, rel, n);
	vals[4] = v_bool((pre != INT64_MAX && pre != -1) || dev != INT64_MAX);
	vals[5] = v_bool(dev != INT64_MAX);
	vals[6] = v_str(arena_strndup(s->a, base.s, base.len));
	sb_free(&base);
	vals[7] = v_int(pre), vals[8] = v_int(post), vals[9] = v_int(dev);
	Value r = v_dict(s, keys, vals, 10);
	r.msg = VERSION_OBJ;
	return r;
}

static Value version_field(Value v, const char *name)
{
	for (int i = 0; i < v.n; i++)
		if (!strcmp(v.keys[i].c.s, name)) return v.items[i];
	return v_int(0);
}

int versions_compare(Value a, Value b)
{
	Value ra = version_field(a, "release"), rb = version_field(b, "release");
	int n = ra.n > rb.n ? ra.n : rb.n;
	for (int i = 0; i < n; i++) { /* trailing zeros do not count: 3.0 == 3.0.0 */
		int64_t x = i < ra.n ? ra.items[i].c.i : 0, y = i < rb.n ? rb.items[i].c.i : 0;
		if (x != y) return x < y ? -1 : 1;
	}
	static const char *const key[] = {"_pre", "_post", "_dev"};
	for (int i = 0; i < 3; i++) {
		int64_t x = version_field(a, key[i]).c.i, y = version_field(b, key[i]).c.i;
		if (x != y) return x < y ? -1 : 1;
	}
	return 0;
}

/* ---- prints and asserts --------------------------------------------------------------------- */

static Value emit_print(Sema *s, Call *c, const char *prefix, const Value *vals, const SrcLoc *at, int n, bool hex)
{
	ValId *ids = ARENA_NEWN(s->a, ValId, n + 1);
	int k = 0;
	StrBuf pre = {0};
	sb_puts(&pre, prefix ? prefix : "");
	for (int i = 0; i < n; i++) {
		Value v = vals[i];
		if (v.kind == V_ERR) {
			sb_free(&pre);
			return v;
		}
		if (v.kind == V_CONST && v.c.kind == CV_STR && k == 0) {
			sb_printf(&pre, "%s%s", pre.len ? " " : "", v.c.s);
			continue;
		}
		if (v.kind == V_CONST && v.c.kind != CV_STR && v.c.kind != CV_NONE && v.c.kind != CV_DTYPE) {
			ids[k++] = to_ir_natural(s, v, at[i]);
			continue;
		}
		if (v.kind != V_TENSOR) {
			diag_error(s->d, at[i], "cannot print %s", v_describe(s, v));
			sb_free(&pre);
			return v_err();
		}
		ids[k++] = v.id;
	}
	/* Triton's semantic.device_print: with values the prefix ends in ": ", and
	 * one longer than 2 starts with a space ("x" -> " x: ", "" -> ": ") */
	if (k && (!pre.len || pre.s[pre.len - 1] != ' '))
		sb_putc(&pre, ' ');
	if (k && (pre.len < 2 || pre.s[pre.len - 2] != ':')) {
		pre.s[pre.len - 1] = ':';
		sb_putc(&pre, ' ');
	}
	const char *p = pre.s ? pre.s : "";
	if (strlen(p) > 2 && p[0] != ' ')
		p = arena_printf(s->a, " %s", p);
	TirOp *op = emit_op(s, TOP_PRINT, c->loc, ids, k, type_scalar(DT_VOID));
	op->attr.str = arena_strdup(s->a, p);
	if (hex) op->attr.flags |= TIR_HEX;
	sb_free(&pre);
	return v_none();
}

static Value b_device_print(Sema *s, Call *c, int extra)
{
	(void)extra;
	/* Triton asserts the prefix is a str of printable ASCII characters */
	if (v_is_none(c->a[0])) {
		diag_error(s->d, c->at[0], "the prefix of tl.device_print must be a string, not None (use '')");
		return v_err();
	}
	const char *prefix = arg_str(s, c, 0);
	if (!prefix) return v_err();
	for (const unsigned char *p = (const unsigned char *)prefix; *p; p++)
		if (*p > 126 || (*p < 32 && !strchr(" \t\n\r\v\f", *p))) {
			diag_error(s->d, c->at[0], "the prefix of tl.device_print must be printable ASCII");
			return v_err();
		}
	bool hex = false; /* slot 2: slot 1 is *args */
	if (c->has[2] && !arg_bool(s, c, 2, &hex)) return v_err();
	return emit_print(s, c, prefix, c->rest, c->rest_at, c->nrest, hex);
}

static Value b_print(Sema *s, Call *c, int extra)
{
	(void)extra;
	return emit_print(s, c, "", c->rest, c->rest_at, c->nrest, false);
}

/* tl.static_print(*values, sep=" "): a note at compile time (Triton prints to
 * stdout when it compiles; the library never prints, so the note goes to the
 * diagnostic callback, which the CLI prints). Constexprs print as str() does,
 * tensors as their type. */

/* One static_print value; a tuple (a tensor's .shape, most often) as Python
 * prints it, its items with strings quoted, where it printed as "tuple".
 * A list prints as one ([1, 2]; Value.list). A tuple that shares
 * its items (t = (t, t) repeated) is exponential when printed: the note stops
 * at 4096 characters. */
static void print_static(Sema *s, StrBuf *b, Value v, int depth)
{
	char buf[256];
	if (b->len > 4096) return;
	if (v_is_enum_member(v)) sb_puts(b, enum_member_str(s, v, depth > 0)); /* str(): SIGNEDNESS.SIGNED */
	else if (v.kind == V_CONST && v.c.kind == CV_STR) sb_puts(b, depth ? py_repr_str(s, v.c.s ? v.c.s : "").c.s : v.c.s);
	else if (v.kind == V_CONST) const_str(v.c, buf, sizeof buf), sb_puts(b, buf);
	else if (v.kind == V_DTYPE) sb_puts(b, dtype_triton_name(s, v.ty));
	else if (v.kind == V_TUPLE) { /* a list as Python prints it: [1, 2], [1] */
		if (v.set && !v.n) {
			sb_puts(b, "set()");
			return;
		}
		sb_putc(b, v.set ? '{' : v.list ? '[' : '(');
		for (int i = 0; i < v.n; i++) {
			if (i) sb_puts(b, ", ");
			if (b->len > 4096) {
				sb_puts(b, "...");
				break;
			}
			print_static(s, b, v.items[i], depth + 1);
		}
		sb_puts(b, v.set ? "}" : v.list ? "]" : v.n == 1 ? ",)" : ")");
	} else if (v.kind == V_DICT && !v.msg) { /* {'a': 1}: a repeated key where it first was, its last value */
		sb_putc(b, '{');
		bool first = true;
		for (int i = 0; i < v.n && b->len <= 4096; i++) {
			bool seen = false;
			for (int j = 0; j < i && !seen; j++) seen = dict_index(v, v.keys[j]) == dict_index(v, v.keys[i]);
			if (seen) continue;
			if (!first) sb_puts(b, ", ");
			first = false;
			print_static(s, b, v.keys[i], depth + 1);
			sb_puts(b, ": ");
			print_static(s, b, v.items[dict_index(v, v.keys[i])], depth + 1);
		}
		sb_puts(b, b->len > 4096 ? "...}" : "}");
	} else sb_puts(b, v_describe(s, v));
}

const char *py_repr_text(Sema *s, Value v)
{
	StrBuf b = {0};
	print_static(s, &b, v, 1);
	const char *r = arena_strdup(s->a, b.s ? b.s : "");
	sb_free(&b);
	return r;
}

static Value b_static_print(Sema *s, Call *c, int extra)
{
	(void)extra;
	const char *sep = c->has[1] && !v_is_none(c->a[1]) ? arg_str(s, c, 1) : " ";
	if (!sep) return v_err();
	StrBuf b = {0};
	for (int i = 0; i < c->nrest; i++) {
		Value v = c->rest[i];
		if (v.kind == V_ERR) {
			sb_free(&b);
			return v;
		}
		if (i) sb_puts(&b, sep);
		print_static(s, &b, v, 0);
	}
	/* its text is kept with the diagnostics: a step per 16 characters */
	if (sema_work(s, (int64_t)(b.len / 16), c->loc)) diag_emit(s->d, DIAG_NOTE, c->loc, "static_print: %s", b.s ? b.s : "");
	sb_free(&b);
	return v_none();
}

static Value b_device_assert(Sema *s, Call *c, int extra)
{
	(void)extra;
	const char *msg = c->has[1] ? arg_str(s, c, 1) : "";
	if (!msg) return v_err();
	Value v = c->a[0];
	ValId cond;
	if (v.kind == V_CONST && v.c.kind != CV_STR) cond = emit_const(s, type_scalar(DT_I1), const_truthy(v.c), 0, c->at[0]);
	else if (!arg_tensor(s, c, 0, &cond)) return v_err();
	cond = to_bool(s, cond, c->at[0]);
	if (c->has[2] && !v_is_none(c->a[2])) {
		/* assert (cond or not mask) */
		ValId m;
		if (!arg_tensor(s, c, 2, &m)) return v_err();
		m = to_bool(s, m, c->at[2]);
		ValId nm = emit(s, TOP_NOT, c->at[2], &m, 1, vtype(s, m));
		if (!broadcast_pair(s, &cond, &nm, c->loc)) return v_err();
		ValId in[2] = {cond, nm};
		cond = emit(s, TOP_OR, c->loc, in, 2, vtype(s, cond));
	}
	TirOp *op = emit_op(s, TOP_ASSERT, c->loc, &cond, 1, type_scalar(DT_VOID));
	op->attr.str = *msg ? msg : "device assertion failed";
	return v_none();
}

static Value b_barrier(Sema *s, Call *c, int extra)
{
	(void)extra;
	emit_op(s, TOP_BARRIER, c->loc, NULL, 0, type_scalar(DT_VOID));
	return v_none();
}

/* ---- dtype methods --------------------------------------------------------------------------- */

#define DTYPE_IS(d) (100 + (int)(d))

/* The Triton names of the fp8 dtypes tile only names (tl.float8e4b15, ...), in the
 * order of their is_* extras 15, 16, 17 */
static const char *const foreign_fp8[] = {"float8e4b15", "float8e4b8", "float8e5b16"};

/* dtype.is_dtype(type_str): a name Triton's dtype lists hold (SINT, UINT, FP, OTHER) */
static bool triton_dtype_name(const char *n)
{
	static const char *const names[] = {"int8",    "int16",   "int32",   "int64", "int1",     "uint8",
	                                    "uint16",  "uint32",  "uint64",  "fp8e4b15", "fp8e4nv", "fp8e4b8",
	                                    "fp8e5",   "fp8e5b16", "fp16",   "bf16",  "fp32",     "fp64", "void"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (!strcmp(n, names[i])) return true;
	return false;
}

static Value b_dtype_is(Sema *s, Call *c, int extra)
{
	Type t;
	if (extra == 13) return v_bool(c->a[0].kind == V_DTYPE && c->a[0].n > 0); /* is_block: x.type of a block */
	if (extra == 18) { /* is_dtype: a staticmethod of a string */
		const char *n = arg_str(s, c, 1);
		return n ? v_bool(triton_dtype_name(n)) : v_err();
	}
	/* tile cannot compute on the pre-Hopper / AMD fp8 dtypes, but their
	 * predicates are plain Python in Triton: fp8, floating, scalar, their own name */
	if (v_is_foreign_dtype(c->a[0])) {
		if (extra == 4 || extra == 5 || extra == 11) return v_bool(true);
		return v_bool(extra >= 15 && extra <= 17 && !strcmp(c->a[0].msg, foreign_fp8[extra - 15]));
	}
	if (!arg_dtype(s, c, 0, &t)) return v_err();
	DType d = (DType)t.dt;
	switch (extra) {
	case 0: return v_bool(d == DT_F16);
	case 1: return v_bool(d == DT_F32);
	case 2: return v_bool(d == DT_BF16);
	case 3: return v_bool(d == DT_F64);
	case 4: return v_bool(d == DT_F8E4M3 || d == DT_F8E5M2);
	case 5: return v_bool(dtype_is_float(d));
	case 6: return v_bool(dtype_is_int(d));
	/* as Triton's dtype: int1 is an unsigned integer type (UINT_TYPES) */
	case 7: return v_bool(dtype_is_int(d) && dtype_is_signed(d));
	case 8: return v_bool(dtype_is_int(d) && !dtype_is_signed(d));
	case 9: return v_bool(d == DT_I1);
	case 10: return v_bool(d == DT_PTR);
	case 11: return v_bool(d != DT_PTR);
	case 12: return v_bool(d == DT_F16 || d == DT_BF16 || d == DT_F32 || d == DT_F64);
	/* is_const: False but for a pointer to const, which tile does not have
	 * (a `tl.const` annotation is accepted and ignored) */
	case 14: return v_bool(false);
	case 15: case 16: case 17: return v_bool(false); /* the fp8 dtypes tile only names */
	default: /* DTYPE_IS(D): is exactly dtype D (DT_COUNT: a type tile does not have) */
		return v_bool(extra >= DTYPE_IS(0) && d == (DType)(extra - DTYPE_IS(0)));
	}
}

/* dtype.is_void(): a staticmethod that raises in Triton 3.6 ("Not implemented") */
static Value b_dtype_is_void(Sema *s, Call *c, int extra)
{
	(void)extra;
	diag_error(s->d, c->loc, "dtype.is_void() raises in Triton (RuntimeError: Not implemented)");
	return v_err();
}

/* dtype.kind(): Triton's dtype.KIND member, BOOLEAN (0), INTEGRAL (1) or FLOATING (2) */
static Value b_dtype_kind(Sema *s, Call *c, int extra)
{
	(void)extra;
	if (v_is_foreign_dtype(c->a[0])) return dtype_enum_member(s, true, 2);
	Type t;
	if (!arg_dtype(s, c, 0, &t)) return v_err();
	DType d = (DType)t.dt;
	if (d == DT_PTR || d == DT_VOID) {
		diag_error(s->d, c->loc, "kind() of %s: not a scalar number type (Triton asserts)", dt_name(s, t));
		return v_err();
	}
	return dtype_enum_member(s, true, d == DT_I1 ? 0 : dtype_is_int(d) ? 1 : 2);
}

/* dtype.codegen_name(): "fp32" -> "float32", "bf16" -> "bfloat16", else the name */
static Value b_dtype_codegen_name(Sema *s, Call *c, int extra)
{
	(void)extra;
	const char *n;
	if (v_is_foreign_dtype(c->a[0])) {
		n = arena_printf(s->a, "fp8%s", c->a[0].msg + strlen("float8"));
	} else {
		Type t;
		if (!arg_dtype(s, c, 0, &t)) return v_err();
		n = dtype_triton_name(s, t);
	}
	if (!strncmp(n, "fp", 2)) return v_str(arena_printf(s->a, "float%s", n + 2));
	if (!strncmp(n, "bf", 2)) return v_str(arena_printf(s->a, "bfloat%s", n + 2));
	return v_str(n);
}

/* dtype.get_int_max_value() / get_int_min_value(): an integer dtype's range
 * (int1 is unsigned, as in Triton's UINT_TYPES); Triton asserts on another */
static Value b_dtype_int_limit(Sema *s, Call *c, int is_max)
{
	Type t;
	if (!arg_dtype(s, c, 0, &t)) return v_err();
	DType d = (DType)t.dt;
	if (!dtype_is_int(d)) {
		diag_error(s->d, c->loc, "'%s' of %s: not an integer dtype", c->name, dt_name(s, t));
		return v_err();
	}
	int bits = dtype_bits(d);
	if (dtype_is_signed(d)) return v_int(is_max ? (int64_t)(UINT64_MAX >> (65 - bits)) : -(int64_t)(UINT64_MAX >> (65 - bits)) - 1);
	return is_max ? v_uint64(UINT64_MAX >> (64 - bits)) : v_int(0);
}

/* ---- Python builtins ------------------------------------------------------------------------------ */

/* Python's min/max(*args, key=None, default=...): one iterable or several
 * values; the first least (greatest) by key wins, as Python's `<` (`>`) picks.
 * A tensor among them makes it tl.minimum/tl.maximum, as Triton maps them. */
static Value py_minmax(Sema *s, Call *c, int is_max)
{
	const Value *vals = c->rest;
	int n = c->nrest;
	bool has_key = c->has[1] && !v_is_const(c->a[1], CV_NONE);
	if (c->has[2] && n > 1) {
		s->py_errors++;
		diag_error(s->d, c->at[2], "Cannot specify a default for %s() with multiple positional arguments (a TypeError in Python)", c->name);
		return v_err();
	}
	if (n == 1) {
		Value it = c->rest[0];
		if (it.kind == V_ERR) return it;
		if (it.kind == V_TUPLE || it.kind == V_DICT || v_is_const(it, CV_STR) || c->has[2] || has_key) {
			if (!const_iter_items(s, it, c->rest_at[0], &vals, &n)) return v_err();
			if (n == 0 && c->has[2]) return c->a[2];
			if (n == 0) {
				s->py_errors++;
				diag_error(s->d, c->loc, "%s() arg is an empty sequence (a ValueError in Python)", c->name);
				return v_err();
			}
		}
	}
	if (n == 0) {
		diag_error(s->d, c->loc, "'%s' expects at least 1 argument, got 0", c->name);
		return v_err();
	}
	Value best = vals[0], best_key = best;
	for (int i = 0; i < n; i++) {
		if (vals[i].kind == V_ERR) return v_err();
		Value key = has_key ? call_value(s, c->fn, c->a[1], &vals[i], 1, NULL, NULL, 0, c->loc, &c->at[1], NULL) : vals[i];
		if (key.kind == V_ERR) return key;
		if (i == 0) {
			best_key = key;
			continue;
		}
		if (!has_key && (vals[i].kind == V_TENSOR || best.kind == V_TENSOR)) {
			/* Triton maps the builtin min/max to tl.minimum/tl.maximum */
			best = best_key = make_minmax(s, is_max, best, vals[i], false, c->loc);
			if (best.kind == V_ERR) return best;
			continue;
		}
		Value lt = is_max ? binop(s, OP_LT, best_key, key, c->loc) : binop(s, OP_LT, key, best_key, c->loc);
		if (lt.kind == V_ERR) return lt;
		if (!v_is_intlike(lt)) {
			diag_error(s->d, c->loc, "'%s' needs constexpr keys to compare, got %s", c->name, v_describe(s, lt));
			return v_err();
		}
		if (lt.c.i) best = vals[i], best_key = key;
	}
	return best;
}

static Value b_py_min(Sema *s, Call *c, int extra) { return py_minmax(s, c, extra); }

static Value b_py_abs(Sema *s, Call *c, int extra)
{
	(void)extra;
	Value v = c->a[0];
	if (v.kind == V_CONST && (v.c.kind == CV_INT || v.c.kind == CV_BOOL)) {
		/* a uint64 value (u64) is never negative; abs(-2**63) is 2**63, a uint64 */
		if (v.c.u64 || v.c.i >= 0) return v.c.kind == CV_BOOL ? v_int(v.c.i) : v;
		return const_unop(s, OP_NEG, v, c->loc);
	}
	if (v.kind == V_CONST && v.c.kind == CV_FLOAT) return v_float(fabs(v.c.f));
	int id = builtin_find("abs", BF_TL);
	return builtin_get(id)->fn(s, c, builtin_get(id)->extra);
}

/* bin(n) / oct(n) / hex(n) (extra: bits per digit 1, 3, 4) of a constexpr integer, with
 * Python's prefix and sign: bin(-5) is '-0b101' */
static Value b_py_radix(Sema *s, Call *c, int extra)
{
	Value v = c->a[0];
	if (v.kind == V_ERR) return v;
	if (!v_is_intlike(v)) {
		diag_error(s->d, c->at[0], "'%s' needs a constexpr integer, got %s", c->name, v_describe(s, v));
		return v_err();
	}
	bool neg = !v.c.u64 && v.c.i < 0;
	uint64_t m = neg ? (uint64_t)0 - (uint64_t)v.c.i : (uint64_t)v.c.i;
	char digits[72], *d = digits + sizeof digits;
	*--d = 0;
	do {
		*--d = "0123456789abcdef"[m & ((1u << extra) - 1)];
		m >>= extra;
	} while (m);
	return v_str(arena_printf(s->a, "%s0%c%s", neg ? "-" : "", extra == 1 ? 'b' : extra == 3 ? 'o' : 'x', d));
}

/* int(text, base) as Python reads it: whitespace around, a sign, digits of
 * the base with single '_' between them; base 0 takes 0x / 0o / 0b prefixes
 * (and refuses leading zeros). A ValueError otherwise; past int64 (uint64
 * for a positive value) an error. */
static Value int_of_str(Sema *s, Call *c, const char *text, int64_t base)
{
	const char *p = text, *end = text + strlen(text);
	while (p < end && strchr(" \t\n\r\v\f", *p)) p++;
	while (end > p && strchr(" \t\n\r\v\f", end[-1])) end--;
	bool neg = p < end && *p == '-';
	if (p < end && (*p == '-' || *p == '+')) p++;
	int b = (int)base;
	if ((b == 0 || b == 16 || b == 8 || b == 2) && end - p > 2 && p[0] == '0') {
		int pb = (p[1] | 32) == 'x' ? 16 : (p[1] | 32) == 'o' ? 8 : (p[1] | 32) == 'b' ? 2 : 0;
		if (pb && (b == 0 || b == pb)) {
			b = pb;
			p += 2;
			if (p < end && *p == '_') p++; /* 0x_ff */
		}
	}
	bool zero_lead = b == 0 && p < end && *p == '0';
	if (b == 0) b = 10;
	uint64_t m = 0;
	bool ok = p < end, over = false, nonzero = false;
	for (const char *q = p; q < end && ok; q++) {
		if (*q == '_' && q > p && q + 1 < end && q[1] != '_') continue;
		int d = *q >= '0' && *q <= '9' ? *q - '0' : (*q | 32) >= 'a' && (*q | 32) <= 'z' ? (*q | 32) - 'a' + 10 : 99;
		ok = d < b;
		nonzero |= d > 0 && ok;
		if (ok && m > (UINT64_MAX - (uint64_t)d) / (uint64_t)b) over = true;
		m = m * (uint64_t)b + (uint64_t)d;
	}
	if (!ok || (zero_lead && nonzero)) {
		s->py_errors++;
		diag_error(s->d, c->at[0], "invalid literal for int() with base %d: %s (a ValueError in Python)", (int)base,
			   py_repr_str(s, text).c.s);
		return v_err();
	}
	if (over || (neg && m > (uint64_t)INT64_MAX + 1)) {
		diag_error(s->d, c->at[0], "int(%s) is outside [-2**63, 2**64)", py_repr_str(s, text).c.s);
		return v_err();
	}
	if (neg) return v_int((int64_t)(0 - m));
	return m > (uint64_t)INT64_MAX ? v_uint64(m) : v_int((int64_t)m);
}

/* Whether p[0..n) is word in any case. */
static bool word_is(const char *p, size_t n, const char *word)
{
	if (strlen(word) != n) return false;
	for (size_t i = 0; i < n; i++)
		if (tolower((unsigned char)p[i]) != word[i]) return false;
	return true;
}

/* float(text) as Python reads it: whitespace around, a sign, then inf,
 * infinity or nan in any case, or decimal digits (single '_' between two
 * digits) with a point and an exponent. A ValueError otherwise: strtod alone
 * took hex ("0x10" was 16.0) and "nan(...)", and refused " 1.5" and "1_0". */
static Value float_of_str(Sema *s, Call *c, const char *text)
{
	const char *p = text, *end = text + strlen(text);
	while (p < end && strchr(" \t\n\r\v\f", *p)) p++;
	while (end > p && strchr(" \t\n\r\v\f", end[-1])) end--;
	const char *num = p;
	if (p < end && (*p == '-' || *p == '+')) p++;
	size_t n = (size_t)(end - p);
	char *buf = arena_alloc(s->a, (size_t)(end - num) + 1), *w = buf;
	bool ok = n > 0;
	if (word_is(p, n, "inf") || word_is(p, n, "infinity") || word_is(p, n, "nan")) {
		double v = (p[0] | 32) == 'n' ? NAN : INFINITY;
		return v_float(num < p && *num == '-' && !isnan(v) ? -v : v); /* float("-nan") is nan */
	}
	for (const char *q = num; q < end && ok; q++) {
		bool digit = *q >= '0' && *q <= '9';
		if (*q == '_')
			ok = q > num && q[-1] >= '0' && q[-1] <= '9' && q + 1 < end && q[1] >= '0' && q[1] <= '9';
		else if (digit || strchr("+-.eE", *q))
			*w++ = *q;
		else
			ok = false;
	}
	*w = 0;
	char *stop;
	double d = ok ? strtod(buf, &stop) : 0;
	if (!ok || stop == buf || *stop) {
		s->py_errors++;
		diag_error(s->d, c->at[0], "could not convert string to float: %s (a ValueError in Python)",
			   py_repr_str(s, text).c.s);
		return v_err();
	}
	return v_float(d);
}

static Value b_py_conv(Sema *s, Call *c, int extra)
{
	Value v = c->a[0];
	if (v.kind == V_ERR) return v;
	if (extra == 0 && (v_is_const(v, CV_STR) || (c->has[1] && !v_is_none(c->a[1])))) { /* int("12"), int("ff", 16) */
		int64_t base = 10;
		if (c->has[1] && !v_is_none(c->a[1]) && !arg_const_int(s, c, 1, &base)) return v_err();
		if (!v_is_const(v, CV_STR) || base == 1 || base < 0 || base > 36) {
			s->py_errors++;
			diag_error(s->d, c->loc, v_is_const(v, CV_STR) ? "int() base must be >= 2 and <= 36, or 0 (a ValueError in Python)"
								       : "int() can't convert non-string with explicit base (a TypeError in Python)");
			return v_err();
		}
		return int_of_str(s, c, v.c.s ? v.c.s : "", base);
	}
	if (v.kind == V_CONST && v.c.kind == CV_STR && extra == 1) return float_of_str(s, c, v.c.s ? v.c.s : "");
	if (v.kind != V_CONST || v.c.kind == CV_STR || v.c.kind == CV_NONE || v.c.kind == CV_DTYPE) {
		if (extra == 2 && v.kind != V_TENSOR) return v_bool(value_truthy(v));
		diag_error(s->d, c->at[0], "'%s' needs a constexpr number, got %s", c->name, v_describe(s, v));
		return v_err();
	}
	double f = const_as_double(v.c);
	switch (extra) {
	case 0:
		if (v.c.kind == CV_INT) return v; /* 2**63 stays 2**63 */
		if (v.c.kind != CV_FLOAT) return v_int(v.c.i);
		if (!isfinite(f)) {
			diag_error(s->d, c->at[0], "cannot convert %g to int", f);
			return v_err();
		}
		/* the constexpr range (the C cast is undefined outside it) */
		if (f >= 9223372036854775808.0 && f < 18446744073709551616.0) return v_uint64((uint64_t)f);
		if (!(f >= -9223372036854775808.0 && f < 9223372036854775808.0)) {
			diag_error(s->d, c->at[0], "int(%g) is outside [-2**63, 2**64)", f);
			return v_err();
		}
		return v_int((int64_t)f);
	case 1: return v_float(f);
	default: return v_bool(const_truthy(v.c));
	}
}

static Value b_len(Sema *s, Call *c, int extra)
{
	(void)extra;
	Value v = c->a[0];
	if (v.kind == V_MODULE && enum_class_items(s, v.mod, &v) && v.kind == V_ERR) return v; /* len(Act) */
	if (enum_flag_items(s, v, &v)) return v_int(v.n); /* len(Perm.R | Perm.W) */
	if ((v.kind == V_TUPLE || v.kind == V_DICT) && !v_is_enum_member(v)) return v_int(v.n);
	if (v.kind == V_CONST && v.c.kind == CV_STR) return v_int(str_length(v.c.s)); /* code points */
	if (v.kind == V_TENSOR && v.ty.rank) return v_int(v.ty.shape[0]);
	if (v.kind != V_ERR) diag_error(s->d, c->at[0], "'len' of %s", v_describe(s, v));
	return v_err();
}

/* getattr(obj, name): Python's, with a constexpr name (test_libdevice's
 * getattr(libdevice, fn)(x)); the default form would need a lookup that fails
 * quietly, which tile does not have. */
static Value b_getattr(Sema *s, Call *c, int extra)
{
	(void)extra;
	const char *name = arg_str(s, c, 1);
	if (!name) return v_err();
	if (c->a[0].kind == V_ERR) return v_err();
	Value v;
	if (c->has[2]) /* getattr(obj, name, default): the default where obj has no such attribute */
		return attr_quiet(s, c->a[0], istr(s, name), c->at[1], &v) ? v : c->a[2];
	return get_attr(s, c->a[0], istr(s, name), c->at[1]);
}

/* tuple(it) / list(it): a constexpr iterable to a tuple (lists are tuples here). */
static Value b_py_tuple(Sema *s, Call *c, int extra)
{
	(void)extra;
	Value r = v_tuple(s, NULL, 0);
	if (c->has[0] && c->a[0].kind == V_TUPLE) { /* its items may be runtime values */
		r = c->a[0];
	} else if (c->has[0]) {
		const Value *items;
		int n;
		if (!const_iter_items(s, c->a[0], c->at[0], &items, &n)) return v_err();
		r = v_tuple(s, items, n);
	}
	r.list = extra; /* list(...) */
	r.set = false;
	return r;
}

/* itertools.product(*iterables, repeat=1) and itertools.chain(*iterables)
 * on constexpr sequences: a list of tuples / of items, as Python iterates
 * them (product varies the last iterable fastest). */
static Value b_itertools(Sema *s, Call *c, int chain)
{
	enum { MAX_SEQS = 16 };
	const Value *items[MAX_SEQS];
	int len[MAX_SEQS], nseq = c->nrest;
	int64_t repeat = 1;
	if (!chain && c->has[1] && !v_is_const(c->a[1], CV_NONE)) { /* slot 0 is *args */
		if (!v_is_const(c->a[1], CV_INT) || c->a[1].c.i < 0 || c->a[1].c.i > MAX_SEQS) {
			diag_error(s->d, c->at[1], "itertools.product: repeat must be a constexpr int from 0 to %d", MAX_SEQS);
			return v_err();
		}
		repeat = c->a[1].c.i;
	}
	if (nseq * repeat > MAX_SEQS) {
		diag_error(s->d, c->loc, "%s of more than %d sequences", c->name, MAX_SEQS);
		return v_err();
	}
	for (int i = 0; i < nseq; i++)
		if (!const_iter_items(s, c->rest[i], c->rest_at[i], &items[i], &len[i])) return v_err();
	int64_t total = chain ? 0 : 1;
	for (int r = 0; r < repeat; r++)
		for (int i = 0; i < nseq; i++) {
			total = chain ? total + len[i] : total * len[i];
			if (total > (1 << 20) || !sema_work(s, total, c->loc)) {
				if (total > (1 << 20)) diag_error(s->d, c->loc, "%s: more than 2^20 items", c->name);
				return v_err();
			}
		}
	Value *out = ARENA_NEWN(s->a, Value, (size_t)total + 1);
	if (chain) {
		int64_t k = 0;
		for (int i = 0; i < nseq; i++)
			for (int j = 0; j < len[i]; j++) out[k++] = items[i][j];
		return v_tuple(s, out, (int)total);
	}
	int ns = (int)(nseq * repeat);
	Value tup[MAX_SEQS];
	for (int64_t t = 0; t < total; t++) {
		int64_t rem = t;
		for (int d = ns - 1; d >= 0; d--) { /* the last sequence varies fastest */
			int i = d % (nseq ? nseq : 1);
			tup[d] = items[i][rem % len[i]];
			rem /= len[i];
		}
		out[t] = v_tuple(s, tup, ns);
	}
	return v_tuple(s, out, (int)total);
}

/* sum(iterable, start=0) on constexprs: Python's left fold with +. */
static Value b_py_sum(Sema *s, Call *c, int extra)
{
	(void)extra;
	const Value *items;
	int n;
	if (!const_iter_items(s, c->a[0], c->at[0], &items, &n)) return v_err();
	Value acc = c->has[1] ? c->a[1] : v_int(0);
	for (int i = 0; i < n && acc.kind != V_ERR; i++) {
		if (acc.kind != V_CONST || items[i].kind != V_CONST) {
			diag_error(s->d, c->at[0], "'sum' needs constexpr numbers, got %s",
				   v_describe(s, acc.kind != V_CONST ? acc : items[i]));
			return v_err();
		}
		acc = const_binop(s, OP_ADD, acc, items[i], c->loc);
	}
	return acc;
}

/* The truth of what a filter/sorted key function returned, which must be known
 * at compile time. */
static bool py_fn_truth(Sema *s, Call *c, Value t, bool *out)
{
	if (t.kind == V_ERR) return false;
	if (t.kind == V_TENSOR || t.kind == V_BLOCKPTR) {
		diag_error(s->d, c->loc, "'%s': the function must return a constexpr, got %s", c->name, v_describe(s, t));
		return false;
	}
	*out = value_truthy(t);
	return true;
}

/* filter(function, iterable) on a constexpr sequence: the items for which the
 * function (None: the item itself) is true, as a list. */
static Value b_py_filter(Sema *s, Call *c, int extra)
{
	(void)extra;
	const Value *items;
	int n;
	if (!const_iter_items(s, c->a[1], c->at[1], &items, &n)) return v_err();
	Value *out = ARENA_NEWN(s->a, Value, (size_t)n + 1);
	int k = 0;
	bool ident = v_is_const(c->a[0], CV_NONE);
	for (int i = 0; i < n; i++) {
		Value t = ident ? items[i] : call_value(s, c->fn, c->a[0], &items[i], 1, NULL, NULL, 0, c->loc, &c->at[1], NULL);
		bool keep;
		if (!py_fn_truth(s, c, t, &keep)) return v_err();
		if (keep) out[k++] = items[i];
	}
	return v_tuple(s, out, k);
}

/* map(function, *iterables) and zip(*iterables) on constexpr sequences: as many
 * items as the shortest sequence has, each the function of the items at that
 * position (zip: their tuple), as a list. */
static Value b_py_mapzip(Sema *s, Call *c, int is_zip)
{
	enum { MAX_SEQS = BMAX_ARGS };
	const Value *items[MAX_SEQS];
	int nseq = c->nrest, n = INT32_MAX;
	if (!is_zip && nseq == 0) {
		diag_error(s->d, c->loc, "'map' needs at least one iterable");
		return v_err();
	}
	if (nseq > MAX_SEQS) {
		diag_error(s->d, c->loc, "'%s' of more than %d sequences", c->name, MAX_SEQS);
		return v_err();
	}
	for (int i = 0; i < nseq; i++) {
		int len;
		if (!const_iter_items(s, c->rest[i], c->rest_at[i], &items[i], &len)) return v_err();
		if (len < n) n = len;
	}
	if (nseq == 0) n = 0;
	bool strict = false;
	if (is_zip && c->has[1] && !arg_bool(s, c, 1, &strict)) return v_err();
	for (int i = 1; strict && i < nseq; i++) { /* zip(strict=True): equal lengths, as Python checks */
		const Value *it;
		int len, len0;
		const_iter_items(s, c->rest[0], c->rest_at[0], &it, &len0);
		const_iter_items(s, c->rest[i], c->rest_at[i], &it, &len);
		if (len != len0) {
			s->py_errors++;
			diag_error(s->d, c->rest_at[i], "zip() argument %d is %s than argument%s%s (a ValueError in Python)", i + 1,
				   len > len0 ? "longer" : "shorter", i > 1 ? "s 1-" : " 1", i > 1 ? arena_printf(s->a, "%d", i) : "");
			return v_err();
		}
	}
	Value *out = ARENA_NEWN(s->a, Value, (size_t)n + 1);
	Value row[MAX_SEQS];
	for (int k = 0; k < n; k++) {
		for (int i = 0; i < nseq; i++) row[i] = items[i][k];
		out[k] = is_zip ? v_tuple(s, row, nseq)
				: call_value(s, c->fn, c->a[0], row, nseq, NULL, NULL, 0, c->loc, c->rest_at, NULL);
		if (out[k].kind == V_ERR) return out[k];
	}
	return v_tuple(s, out, n);
}

/* enumerate(iterable, start=0): (index, item) tuples, as a list */
static Value b_py_enumerate(Sema *s, Call *c, int extra)
{
	(void)extra;
	const Value *items;
	int n;
	if (!const_iter_items(s, c->a[0], c->at[0], &items, &n)) return v_err();
	int64_t start = 0;
	if (c->has[1]) {
		if (!v_is_intlike(c->a[1])) {
			diag_error(s->d, c->at[1], "'enumerate': start must be a constexpr int, got %s", v_describe(s, c->a[1]));
			return v_err();
		}
		start = c->a[1].c.i;
	}
	Value *out = ARENA_NEWN(s->a, Value, (size_t)n + 1);
	for (int i = 0; i < n; i++) {
		Value pair[2] = {v_int(start + i), items[i]};
		out[i] = v_tuple(s, pair, 2);
	}
	return v_tuple(s, out, n);
}

/* reversed(sequence), as a list */
static Value b_py_reversed(Sema *s, Call *c, int extra)
{
	(void)extra;
	const Value *items;
	int n;
	if (!const_iter_items(s, c->a[0], c->at[0], &items, &n)) return v_err();
	Value *out = ARENA_NEWN(s->a, Value, (size_t)n + 1);
	for (int i = 0; i < n; i++) out[i] = items[n - 1 - i];
	return v_tuple(s, out, n);
}

/* sorted(iterable, key=None, reverse=False) on constexprs: a stable sort by `<`
 * of the items (or of key(item)), as Python's. */
static Value b_py_sorted(Sema *s, Call *c, int extra)
{
	(void)extra;
	const Value *items;
	int n;
	if (!const_iter_items(s, c->a[0], c->at[0], &items, &n)) return v_err();
	bool has_key = c->has[1] && !v_is_const(c->a[1], CV_NONE), rev = false;
	if (c->has[2] && !py_fn_truth(s, c, c->a[2], &rev)) return v_err();
	if (!sema_work(s, (int64_t)n * n, c->loc)) return v_err();
	Value *out = ARENA_NEWN(s->a, Value, (size_t)n + 1), *keys = ARENA_NEWN(s->a, Value, (size_t)n + 1);
	for (int i = 0; i < n; i++) {
		Value key = has_key ? call_value(s, c->fn, c->a[1], &items[i], 1, NULL, NULL, 0, c->loc, &c->at[0], NULL) : items[i];
		if (key.kind == V_ERR) return key;
		/* insertion: after every item it is not less than (reverse: not greater
		 * than), which keeps equal items in their order */
		int j = i;
		for (; j > 0; j--) {
			Value lt = rev ? binop(s, OP_LT, keys[j - 1], key, c->loc) : binop(s, OP_LT, key, keys[j - 1], c->loc);
			bool before;
			if (!py_fn_truth(s, c, lt, &before)) return v_err();
			if (!before) break;
			out[j] = out[j - 1];
			keys[j] = keys[j - 1];
		}
		out[j] = items[i];
		keys[j] = key;
	}
	Value r = v_tuple(s, out, n);
	r.list = true; /* sorted() gives a list */
	return r;
}

/* any(it) / all(it) on constexprs. */
static Value b_py_anyall(Sema *s, Call *c, int extra)
{
	const Value *items;
	int n;
	if (!const_iter_items(s, c->a[0], c->at[0], &items, &n)) return v_err();
	for (int i = 0; i < n; i++) {
		bool t = value_truthy(items[i]);
		if (t == (extra == 0)) return v_bool(extra == 0);
	}
	return v_bool(extra != 0);
}

/* isinstance(x, T) for the classes a kernel can name: Python's int, float,
 * bool, str, tuple, list and tl.tensor, tl.constexpr, tl.dtype,
 * tl.tensor_descriptor (tl.tensor_descriptor_base), torch.Tensor; T may be a
 * tuple of them. */
static int isinstance_one(Sema *s, Value x, Value t, SrcLoc loc)
{
	if (t.kind == V_MODULE && class_aggregate(s, t.mod)) /* an @aggregate class, or one derived from it */
		return x.kind == V_AGG && class_derives(s, x.mod, t.mod);
	if (t.kind == V_MODULE && enum_class_kind(s, t.mod) != ENUM_NONE) /* isinstance(ACT, Act) */
		return v_is_enum_member(x) && x.mod && class_derives(s, x.mod, t.mod);
	if (t.kind == V_NS && t.ns >= NS_ENUM_ENUM && t.ns <= NS_ENUM_STRENUM) { /* enum.Enum, IntEnum, ... */
		int k = !v_is_enum_member(x) ? ENUM_NONE : x.mod ? enum_class_kind(s, x.mod) : ENUM_PLAIN;
		switch (t.ns) {
		case NS_ENUM_ENUM: return k != ENUM_NONE;
		case NS_ENUM_INTENUM: return k == ENUM_INT || k == ENUM_INTFLAG;
		case NS_ENUM_FLAG: return k == ENUM_FLAG || k == ENUM_INTFLAG;
		case NS_ENUM_INTFLAG: return k == ENUM_INTFLAG;
		default: return k == ENUM_STR;
		}
	}
	if (t.kind != V_BUILTIN || t.self) {
		diag_error(s->d, loc, "the second argument of isinstance must be a class or a tuple of classes, got %s",
			   v_describe(s, t));
		return -1;
	}
	const char *n = builtin_get(t.builtin)->name;
	if (x.kind == V_RTARG) {
		/* a heuristic's runtime argument: the launcher passes a Python number
		 * for a scalar and the tensor for a pointer */
		DType dt = x.ty.dt;
		if (!strcmp(n, "int")) return dt != DT_PTR && dtype_is_int(dt);
		if (!strcmp(n, "bool")) return dt == DT_I1;
		if (!strcmp(n, "float")) return dtype_is_float(dt);
		if (!strcmp(n, "Tensor")) return dt == DT_PTR;
		return 0;
	}
	bool cst = x.kind == V_CONST;
	if (!strcmp(n, "int")) return cst && (x.c.kind == CV_INT || x.c.kind == CV_BOOL);
	if (!strcmp(n, "float")) return cst && x.c.kind == CV_FLOAT;
	if (!strcmp(n, "bool")) return cst && x.c.kind == CV_BOOL;
	if (!strcmp(n, "str")) return cst && x.c.kind == CV_STR;
	if (!strcmp(n, "tuple") || !strcmp(n, "list")) return x.kind == V_TUPLE;
	if (!strcmp(n, "constexpr")) return cst || (v_is_enum_member(x) && x.ns == ENUM_WRAPPED);
	if (!strcmp(n, "dtype")) return x.kind == V_DTYPE || (cst && x.c.kind == CV_DTYPE);
	if (!strcmp(n, "tensor")) return x.kind == V_TENSOR || (x.kind == V_BLOCKPTR && !x.bp->desc);
	if (!strcmp(n, "tensor_descriptor") || !strcmp(n, "tensor_descriptor_base"))
		return x.kind == V_BLOCKPTR && x.bp->desc;
	if (!strcmp(n, "Tensor")) return 0; /* a kernel's own values are tl.tensors */
	diag_error(s->d, loc, "isinstance with '%s' is not supported", builtin_display(s, t.builtin));
	return -1;
}

static Value b_isinstance(Sema *s, Call *c, int extra)
{
	(void)extra;
	Value x = c->a[0], t = c->a[1];
	if (x.kind == V_ERR || t.kind == V_ERR) return v_err();
	const Value *cls = t.kind == V_TUPLE ? t.items : &t;
	int n = t.kind == V_TUPLE ? t.n : 1;
	bool any = false;
	for (int i = 0; i < n; i++) {
		int r = isinstance_one(s, x, cls[i], c->at[1]);
		if (r < 0) return v_err();
		any |= r;
	}
	return v_bool(any);
}

/* str(x) of a constexpr */
/* whether tuple or dict v holds only compile-time values (keys too) */
static bool all_const(Value v)
{
	for (int i = 0; i < v.n; i++) {
		Value x = v.items[i];
		if (v.kind == V_DICT && v.keys[i].kind != V_CONST) return false;
		if (x.kind == V_TUPLE || x.kind == V_DICT ? !all_const(x) : x.kind != V_CONST && x.kind != V_DTYPE)
			return false;
	}
	return true;
}

/* str(v) (repr false) or repr(v) of a constexpr; repr of a dtype is Triton's
 * `triton.language.fp32` */
Value py_str_value(Sema *s, Value v, bool repr, SrcLoc loc)
{
	if (v.kind == V_ERR) return v;
	/* str(): SIGNEDNESS.SIGNED (an IntEnum's: its int); repr(): <SIGNEDNESS.SIGNED: 0> */
	if (v_is_enum_member(v)) return v_str(enum_member_str(s, v, repr));
	if (v.kind == V_CONST && v.c.kind == CV_STR) /* str('x') is 'x', unquoted */
		return repr ? py_repr_str(s, v.c.s ? v.c.s : "") : v;
	if ((v.kind == V_TUPLE || v.kind == V_DICT) && all_const(v)) /* str([1, 'a']) is its repr */
		return v_str(py_repr_text(s, v));
	if (repr && v.kind == V_DTYPE && v.ty.dt != DT_PTR) {
		Value n = py_str_value(s, v, false, loc);
		return n.kind == V_ERR ? n : v_str(arena_printf(s->a, "triton.language.%s", n.c.s));
	}
	char buf[256];
	/* a dtype's str() is Triton's name, which tl.dtype() takes back */
	if (v.kind == V_DTYPE) return v_str(dtype_triton_name(s, v.ty));
	if (v.kind == V_CONST) const_str(v.c, buf, sizeof buf);
	else {
		diag_error(s->d, loc, "'%s' needs a constexpr, got %s", repr ? "repr" : "str", v_describe(s, v));
		return v_err();
	}
	return v_str(arena_strdup(s->a, buf));
}

static Value b_py_str(Sema *s, Call *c, int extra) { return py_str_value(s, c->a[0], extra, c->at[0]); }

/* tl.tensor, tl.dtype, tl.tensor_descriptor, torch.Tensor: classes for isinstance, not callable */
static Value b_class(Sema *s, Call *c, int extra)
{
	(void)extra;
	diag_error(s->d, c->loc, "'%s' is a class for isinstance and cannot be called in a kernel", c->name);
	return v_err();
}

/* tl.dtype("uint32"): the dtype of one of Triton's names (int1 ... uint64, fp8e4nv,
 * fp8e5, fp16, bf16, fp32, fp64); otherwise a class for isinstance */
static Value b_dtype(Sema *s, Call *c, int extra)
{
	if (c->nrest != 1 || c->rest[0].kind != V_CONST || c->rest[0].c.kind != CV_STR) return b_class(s, c, extra);
	const char *n = c->rest[0].c.s ? c->rest[0].c.s : "";
	for (int d = DT_I1; d < DT_PTR; d++)
		if (!strcmp(n, dtype_is_float((DType)d) ? dtype_short((DType)d) : dtype_name((DType)d)))
			return v_dtype(type_scalar((DType)d));
	diag_error(s->d, c->rest_at[0], "tl.dtype: unknown dtype name '%s'", n);
	return v_err();
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
    {"ravel", "input,can_reorder=False", b_ravel, 0, BF_TL | BF_METHOD},
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
    {"pointer_type", "element_ty,address_space=1", b_pointer_type, 0, BF_TL},
    {"multiple_of", "input,values", b_hint, HINT_MULTIPLE_OF, BF_TL | BF_METHOD},
    {"max_contiguous", "input,values", b_hint, HINT_MAX_CONTIGUOUS, BF_TL | BF_METHOD},
    {"max_constancy", "input,values", b_hint, HINT_MAX_CONSTANCY, BF_TL | BF_METHOD},
    {"constexpr", "value", b_constexpr, 0, BF_TL},
    {"static_assert", "cond,msg=''", b_static_assert, 0, BF_TL},
    {"assume", "cond", b_assume, 0, BF_TL},
    {"static_print", "*values,sep=None,end=None,file=None,flush=False", b_static_print, 0, BF_TL},
    {"device_print", "prefix,*args,hex=False", b_device_print, 0, BF_TL},
    {"device_assert", "cond,msg='',mask=None", b_device_assert, 0, BF_TL},
    {"debug_barrier", "", b_barrier, 0, BF_TL},
    {"_gdc_noop", "", b_noop, 0, BF_TL},
    {"_target_is_cuda", "", b_target_is, 1, BF_TL},
    {"_target_is_hip", "", b_target_is, 0, BF_TL},
    {"_target_is_hip_cdna3", "", b_target_is, 0, BF_TL},
    {"_target_is_hip_cdna4", "", b_target_is, 0, BF_TL},
    {"_target_is_hip_gfx12", "", b_target_is, 0, BF_TL},
    {"_target_is_hip_gfx1250", "", b_target_is, 0, BF_TL},
    {"_target_cuda_capability_geq", "major,minor=0", b_target_cc_geq, 0, BF_TL},
    {"constexpr_function", "fn", b_constexpr_function, 0, BF_TL | BF_TRITON},
    {"_aggregate", "cls", b_aggregate, 0, BF_TL},
    {"aggregate", "cls", b_aggregate, 0, BF_TRITON},
    {"_cuda_num_warps", "", b_cuda_num_warps, 0, BF_TL},
    {"_cuda_num_threads", "", b_cuda_num_warps, 1, BF_TL},
    {"_cuda_globaltimer", "", b_cuda_sreg, SREG_GLOBALTIMER, BF_TL},
    {"_cuda_smid", "", b_cuda_sreg, SREG_SMID, BF_TL},
    {"static_range", "*args", b_loop_only, 0, BF_TL},
    {"range", "*args", b_loop_only, 0, BF_TL | BF_PY},
    {"cdiv", "x,div", b_cdiv, 0, BF_TL | BF_TRITON | BF_MATH | BF_METHOD},
    {"next_power_of_2", "n", b_next_pow2, 0, BF_TRITON},
    {"bit_length", "self", b_pynum, 0, BF_PYNUM},
    {"bit_count", "self", b_pynum, 1, BF_PYNUM},
    {"is_integer", "self", b_pynum, 2, BF_PYNUM},
    {"_log2", "i", b_log2_const, 0, BF_TL},
    {"get_int_dtype", "bitwidth,signed", b_get_int_dtype, 0, BF_TL},
    {"finfo", "type", b_torch_info, 1, BF_TORCH},
    {"iinfo", "type", b_torch_info, 0, BF_TORCH},
    {"sqrt", "x", b_pymath, PM_SQRT, BF_PYMATH},
    {"exp", "x", b_pymath, PM_EXP, BF_PYMATH},
    {"exp2", "x", b_pymath, PM_EXP2, BF_PYMATH},
    {"log", "x,base=None", b_pymath, PM_LOG, BF_PYMATH},
    {"log2", "x", b_pymath, PM_LOG2, BF_PYMATH},
    {"log10", "x", b_pymath, PM_LOG10, BF_PYMATH},
    {"log1p", "x", b_pymath, PM_LOG1P, BF_PYMATH},
    {"pow", "x,y", b_pymath, PM_POW, BF_PYMATH},
    {"floor", "x", b_pymath, PM_FLOOR, BF_PYMATH},
    {"ceil", "x", b_pymath, PM_CEIL, BF_PYMATH},
    {"trunc", "x", b_pymath, PM_TRUNC, BF_PYMATH},
    {"fabs", "x", b_pymath, PM_FABS, BF_PYMATH},
    {"sin", "x", b_pymath, PM_SIN, BF_PYMATH},
    {"cos", "x", b_pymath, PM_COS, BF_PYMATH},
    {"tan", "x", b_pymath, PM_TAN, BF_PYMATH},
    {"asin", "x", b_pymath, PM_ASIN, BF_PYMATH},
    {"acos", "x", b_pymath, PM_ACOS, BF_PYMATH},
    {"atan", "x", b_pymath, PM_ATAN, BF_PYMATH},
    {"atan2", "y,x", b_pymath, PM_ATAN2, BF_PYMATH},
    {"tanh", "x", b_pymath, PM_TANH, BF_PYMATH},
    {"erf", "x", b_pymath, PM_ERF, BF_PYMATH},
    {"isnan", "x", b_pymath, PM_ISNAN, BF_PYMATH},
    {"isinf", "x", b_pymath, PM_ISINF, BF_PYMATH},
    {"isfinite", "x", b_pymath, PM_ISFINITE, BF_PYMATH},
    {"copysign", "x,y", b_pymath, PM_COPYSIGN, BF_PYMATH},
    {"find_spec", "name", b_find_spec, 0, BF_IMPORTLIB},
    {"is_available", "", b_cuda_available, 0, BF_TORCH_CUDA},
    {"parse", "version", b_version_parse, 0, BF_PACKAGING},
    {"Version", "version", b_version_parse, 0, BF_PACKAGING},
    {"jit",
     "fn=None,do_not_specialize=None,do_not_specialize_on_alignment=None,debug=None,noinline=None,repr=None,"
     "launch_metadata=None",
     b_jit, 0,
     BF_TRITON | BF_TL},
    {"autotune", "configs=None,key=None,prune_configs_by=None,reset_to_zero=None,restore_value=None,warmup=None,rep=None",
     b_noop, 0, BF_TRITON},
    {"heuristics", "values", b_noop, 0, BF_TRITON},
    {"Config",
     "kwargs,num_warps=None,num_stages=None,num_ctas=None,maxnreg=None,pre_hook=None,num_buffers_warp_spec=None,"
     "num_consumer_groups=None,reg_dec_producer=None,reg_inc_consumer=None,ir_override=None",
     b_config, 0, BF_TRITON},
    {"is_fp16", "self", b_dtype_is, 0, BF_DTYPE},
    {"is_fp32", "self", b_dtype_is, 1, BF_DTYPE},
    {"is_bf16", "self", b_dtype_is, 2, BF_DTYPE},
    {"is_fp64", "self", b_dtype_is, 3, BF_DTYPE},
    {"is_fp8", "self", b_dtype_is, 4, BF_DTYPE},
    {"is_floating", "self", b_dtype_is, 5, BF_DTYPE},
    {"is_int", "self", b_dtype_is, 6, BF_DTYPE},
    {"is_int_signed", "self", b_dtype_is, 7, BF_DTYPE},
    {"is_int_unsigned", "self", b_dtype_is, 8, BF_DTYPE},
    {"is_bool", "self", b_dtype_is, 9, BF_DTYPE},
    {"is_ptr", "self", b_dtype_is, 10, BF_DTYPE},
    {"is_scalar", "self", b_dtype_is, 11, BF_DTYPE},
    {"is_standard_floating", "self", b_dtype_is, 12, BF_DTYPE},
    {"is_block", "self", b_dtype_is, 13, BF_DTYPE},
    {"is_int1", "self", b_dtype_is, DTYPE_IS(DT_I1), BF_DTYPE},
    {"is_int8", "self", b_dtype_is, DTYPE_IS(DT_I8), BF_DTYPE},
    {"is_int16", "self", b_dtype_is, DTYPE_IS(DT_I16), BF_DTYPE},
    {"is_int32", "self", b_dtype_is, DTYPE_IS(DT_I32), BF_DTYPE},
    {"is_int64", "self", b_dtype_is, DTYPE_IS(DT_I64), BF_DTYPE},
    {"is_uint8", "self", b_dtype_is, DTYPE_IS(DT_U8), BF_DTYPE},
    {"is_uint16", "self", b_dtype_is, DTYPE_IS(DT_U16), BF_DTYPE},
    {"is_uint32", "self", b_dtype_is, DTYPE_IS(DT_U32), BF_DTYPE},
    {"is_uint64", "self", b_dtype_is, DTYPE_IS(DT_U64), BF_DTYPE},
    {"is_fp8e4nv", "self", b_dtype_is, DTYPE_IS(DT_F8E4M3), BF_DTYPE},
    {"is_fp8e5", "self", b_dtype_is, DTYPE_IS(DT_F8E5M2), BF_DTYPE},
    {"is_const", "self", b_dtype_is, 14, BF_DTYPE},
    {"is_fp8e4b15", "self", b_dtype_is, 15, BF_DTYPE},
    {"is_fp8e4b8", "self", b_dtype_is, 16, BF_DTYPE},
    {"is_fp8e5b16", "self", b_dtype_is, 17, BF_DTYPE},
    {"is_dtype", "self,type_str", b_dtype_is, 18, BF_DTYPE},
    {"get_int_max_value", "self", b_dtype_int_limit, 1, BF_DTYPE},
    {"get_int_min_value", "self", b_dtype_int_limit, 0, BF_DTYPE},
    {"is_void", "self=None", b_dtype_is_void, 0, BF_DTYPE},
    {"kind", "self", b_dtype_kind, 0, BF_DTYPE},
    {"codegen_name", "self", b_dtype_codegen_name, 0, BF_DTYPE},
    {"min", "*args,key=None,default=None", b_py_min, 0, BF_PY},
    {"max", "*args,key=None,default=None", b_py_min, 1, BF_PY},
    {"abs", "x", b_py_abs, 0, BF_PY},
    {"int", "x,base=None", b_py_conv, 0, BF_PY},
    {"float", "x", b_py_conv, 1, BF_PY},
    {"bool", "x", b_py_conv, 2, BF_PY},
    {"len", "x", b_len, 0, BF_PY},
    {"getattr", "object,name,default=None", b_getattr, 0, BF_PY},
    {"bin", "x", b_py_radix, 1, BF_PY},
    {"oct", "x", b_py_radix, 3, BF_PY},
    {"hex", "x", b_py_radix, 4, BF_PY},
    {"print", "*args", b_print, 0, BF_PY},
    {"isinstance", "x,t", b_isinstance, 0, BF_PY},
    {"str", "object=''", b_py_str, 0, BF_PY},
    {"repr", "obj", b_py_str, 1, BF_PY},
    {"tensor", "*args", b_class, 0, BF_TL},
    {"dtype", "*args", b_dtype, 0, BF_TL},
    {"tensor_descriptor", "*args", b_class, 0, BF_TL},
    {"tensor_descriptor_base", "*args", b_class, 0, BF_TL},
    {"Tensor", "*args", b_class, 0, BF_TORCH},
    {"tuple", "iterable=None", b_py_tuple, 0, BF_PY},
    {"tuple", "args=None,type=None", b_py_tuple, 0, BF_TL}, /* tl.tuple(iterable) */
    {"list", "iterable=None", b_py_tuple, 1, BF_PY},
    {"product", "*args,repeat=None", b_itertools, 0, BF_ITERTOOLS},
    {"chain", "*args", b_itertools, 1, BF_ITERTOOLS},
    {"sum", "iterable,start=0", b_py_sum, 0, BF_PY},
    {"any", "iterable", b_py_anyall, 0, BF_PY},
    {"all", "iterable", b_py_anyall, 1, BF_PY},
    {"filter", "function,iterable", b_py_filter, 0, BF_PY},
    {"map", "function,*iterables", b_py_mapzip, 0, BF_PY},
    {"zip", "*iterables,strict=False", b_py_mapzip, 1, BF_PY},
    {"enumerate", "iterable,start=0", b_py_enumerate, 0, BF_PY},
    {"reversed", "sequence", b_py_reversed, 0, BF_PY},
    {"sorted", "iterable,key=None,reverse=False", b_py_sorted, 0, BF_PY},
    {NULL, NULL, NULL, 0, 0},
};

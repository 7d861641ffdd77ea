/* builtins_math.c: elementwise math (tl.*, tl.math.*, libdevice.*):
 * unary and binary MathFn ops, abs, fma, fdiv/div_rn, umulhi,
 * minimum/maximum/clamp. Floating functions reject integer inputs, as
 * Triton's do; fp16/bf16 inputs keep their dtype (lowering may compute wider). */
#include <string.h>

#include "sema/sema_int.h"

static Value math_op(Sema *s, MathFn m, const ValId *in, int n, Type out, SrcLoc loc)
{
	TirOp *op = emit_op(s, TOP_MATH, loc, in, n, out);
	op->attr.math = m;
	return v_tensor(s, op->results[0]);
}

static bool float_arg(Sema *s, Call *c, int i, ValId *x)
{
	Value v = c->a[i];
	if (v.kind == V_CONST && (v.c.kind == CV_INT || v.c.kind == CV_BOOL)) v = v_float(const_as_double(v.c));
	c->a[i] = v;
	if (!arg_tensor(s, c, i, x)) return false;
	Type t = vtype(s, *x);
	if (!dtype_is_float((DType)t.dt)) {
		diag_error(s->d, c->at[i], "'%s' expects a floating-point tensor, got %s", c->name, dt_name(s, t));
		return false;
	}
	return true;
}

static Value b_unary(Sema *s, Call *c, int m)
{
	ValId x;
	if (m == MATH_POPC || m == MATH_CLZ) {
		if (!arg_tensor(s, c, 0, &x)) return v_err();
		if (!dtype_is_int((DType)vtype(s, x).dt)) {
			diag_error(s->d, c->at[0], "'%s' expects an integer tensor, got %s", c->name, dt_name(s, vtype(s, x)));
			return v_err();
		}
		/* libdevice's __nv_popcll / __nv_clzll return int32, as Triton types them */
		Value r = math_op(s, (MathFn)m, &x, 1, vtype(s, x), c->loc);
		if (dtype_bits((DType)vtype(s, x).dt) == 64)
			r = v_tensor(s, cast_val(s, r.id, type_scalar(DT_I32), false, 0, c->loc));
		return r;
	}
	if (!float_arg(s, c, 0, &x)) return v_err();
	Type t = vtype(s, x);
	if (m == MATH_ISNAN || m == MATH_ISINF || m == MATH_SIGNBIT) t = type_tile(type_scalar(DT_I1), t.rank, t.shape);
	Value r = math_op(s, (MathFn)m, &x, 1, t, c->loc);
	/* libdevice.signbit is __nv_signbitf/d, an int32 0 or 1 that Triton does
	 * not narrow to int1 (as it does isnan/isinf): signbit(x) + signbit(y)
	 * is 2 for two negatives, not bool addition */
	if (m == MATH_SIGNBIT) r = v_tensor(s, cast_val(s, r.id, type_scalar(DT_I32), false, 0, c->loc));
	return r;
}

/* Promotes two operands to their computation type and broadcasts them. */
static bool binary_operands(Sema *s, Call *c, int i, int j, bool need_float, ValId *x, ValId *y, DType *dtp)
{
	Value a = c->a[i], b = c->a[j];
	if (a.kind == V_ERR || b.kind == V_ERR) return false;
	if (a.kind == V_CONST && b.kind == V_CONST) {
		*x = to_ir_natural(s, a, c->at[i]);
		if (!*x) return false;
		a = v_tensor(s, *x);
	}
	DType dt = computation_dtype(s, a, b, false, c->loc, c->name);
	if (dt == DT_VOID) return false;
	if (need_float && !dtype_is_float(dt)) {
		diag_error(s->d, c->loc, "'%s' expects floating-point operands, got %s", c->name, dtype_name(dt));
		return false;
	}
	*x = to_ir(s, a, dt, c->at[i]);
	*y = to_ir(s, b, dt, c->at[j]);
	if (!*x || !*y || !broadcast_pair(s, x, y, c->loc)) return false;
	if (dtp) *dtp = dt;
	return true;
}

static Value b_binary(Sema *s, Call *c, int m)
{
	ValId x, y;
	if (!binary_operands(s, c, 0, 1, true, &x, &y, NULL)) return v_err();
	ValId in[2] = {x, y};
	return math_op(s, (MathFn)m, in, 2, vtype(s, x), c->loc);
}

static Value b_abs(Sema *s, Call *c, int extra)
{
	(void)extra;
	ValId x;
	if (!arg_tensor(s, c, 0, &x)) return v_err();
	Type t = vtype(s, x);
	if (t.dt == DT_PTR) {
		diag_error(s->d, c->at[0], "'%s' of a pointer", c->name);
		return v_err();
	}
	if (dtype_is_int((DType)t.dt) && !dtype_is_signed((DType)t.dt)) return v_tensor(s, x);
	return math_op(s, MATH_ABS, &x, 1, t, c->loc);
}

static Value b_fdiv(Sema *s, Call *c, int rn)
{
	ValId x, y;
	for (int i = 0; i < 2; i++) {
		Value v = c->a[i];
		bool fl = (v.kind == V_CONST && v.c.kind == CV_FLOAT) || (v.kind == V_TENSOR && dtype_is_float((DType)v.ty.dt));
		if (!fl && v.kind != V_ERR) {
			diag_error(s->d, c->at[i], "both operands of '%s' must be floating-point, got %s", c->name, v_describe(s, v));
			return v_err();
		}
	}
	bool ieee = rn;
	if (!rn && c->has[2] && !arg_bool(s, c, 2, &ieee)) return v_err();
	if (!binary_operands(s, c, 0, 1, true, &x, &y, NULL)) return v_err();
	ValId in[2] = {x, y};
	TirOp *op = emit_op(s, TOP_DIV, c->loc, in, 2, vtype(s, x));
	if (ieee) op->attr.flags |= TIR_DIV_RN;
	return v_tensor(s, op->results[0]);
}

static Value b_fma(Sema *s, Call *c, int extra)
{
	(void)extra;
	ValId x, y, z;
	DType dt;
	if (!binary_operands(s, c, 0, 1, false, &x, &y, &dt)) return v_err();
	c->a[0] = v_tensor(s, x);
	Value zv = c->a[2];
	DType d2 = computation_dtype(s, c->a[0], zv, false, c->loc, c->name);
	if (d2 == DT_VOID) return v_err();
	if (!dtype_is_float(d2)) { /* Triton's math.fma: an MLIR float op */
		diag_error(s->d, c->loc, "'%s' expects floating-point operands, got %s", c->name, dtype_name(d2));
		return v_err();
	}
	x = to_ir(s, v_tensor(s, x), d2, c->loc);
	y = to_ir(s, v_tensor(s, y), d2, c->loc);
	z = to_ir(s, zv, d2, c->at[2]);
	if (!x || !y || !z || !broadcast_pair(s, &x, &z, c->loc) || !broadcast_pair(s, &y, &z, c->loc) ||
	    !broadcast_pair(s, &x, &y, c->loc))
		return v_err();
	ValId in[3] = {x, y, z};
	return v_tensor(s, emit(s, TOP_FMA, c->loc, in, 3, vtype(s, x)));
}

/* tl.add / tl.sub / tl.mul (x, y, sanitize_overflow=True): the operators; tile has
 * no overflow sanitizer (Triton's runs only in debug mode) */
static Value b_arith(Sema *s, Call *c, int extra)
{
	return binop(s, (AstOp)extra, c->a[0], c->a[1], c->loc);
}

/* x.logical_and(y) / x.logical_or(y): elementwise on x != 0 and y != 0 */
static Value b_logical(Sema *s, Call *c, int extra)
{
	ValId x, y;
	if (!arg_tensor(s, c, 0, &x) || !arg_tensor(s, c, 1, &y)) return v_err();
	Value bx = v_tensor(s, to_bool(s, x, c->at[0])), by = v_tensor(s, to_bool(s, y, c->at[1]));
	return binop(s, extra ? OP_BITOR : OP_BITAND, bx, by, c->loc);
}

static Value b_umulhi(Sema *s, Call *c, int extra)
{
	(void)extra;
	ValId x, y;
	DType dt;
	if (!binary_operands(s, c, 0, 1, false, &x, &y, &dt)) return v_err();
	if (!dtype_is_int(dt)) {
		diag_error(s->d, c->loc, "'%s' expects integer operands, got %s", c->name, dtype_name(dt));
		return v_err();
	}
	ValId in[2] = {x, y};
	return v_tensor(s, emit(s, TOP_UMULHI, c->loc, in, 2, vtype(s, x)));
}

static bool nan_flag(Sema *s, Call *c, int i, bool *out)
{
	*out = false;
	if (!c->has[i]) return true;
	Value v = c->a[i];
	if (v.kind == V_CONST && (v.c.kind == CV_INT || v.c.kind == CV_BOOL)) {
		*out = v.c.i != 0;
		return true;
	}
	if (v.kind == V_CONST && v.c.kind == CV_STR) {
		*out = !strcmp(v.c.s, "all") || !strcmp(v.c.s, "ALL");
		return true;
	}
	diag_error(s->d, c->at[i], "propagate_nan must be tl.PropagateNan.ALL or NONE");
	return false;
}

static Value b_minmax(Sema *s, Call *c, int is_max)
{
	bool pn;
	if (!nan_flag(s, c, 2, &pn)) return v_err();
	return make_minmax(s, is_max, c->a[0], c->a[1], pn, c->loc);
}

static Value b_clamp(Sema *s, Call *c, int extra)
{
	(void)extra;
	bool pn;
	if (!nan_flag(s, c, 3, &pn)) return v_err();
	/* Triton's clamp promotes x, min and max together (numbers as tensors of
	 * their own type, bf16 as fp32), as make_minmax does */
	Value x = c->a[0];
	Value m = make_minmax(s, true, x, c->a[1], pn, c->loc);
	return make_minmax(s, false, m, c->a[2], pn, c->loc);
}

static Value b_rcp(Sema *s, Call *c, int extra)
{
	(void)extra;
	ValId x;
	if (!float_arg(s, c, 0, &x)) return v_err();
	Type t = vtype(s, x);
	ValId one = emit_const(s, t, 1, 1.0, c->loc);
	ValId in[2] = {one, x};
	TirOp *op = emit_op(s, TOP_DIV, c->loc, in, 2, t);
	op->attr.flags |= TIR_DIV_RN;
	return v_tensor(s, op->results[0]);
}

static Value b_isfinite(Sema *s, Call *c, int extra)
{
	(void)extra;
	ValId x;
	if (!float_arg(s, c, 0, &x)) return v_err();
	Type t = vtype(s, x), bt = type_tile(type_scalar(DT_I1), t.rank, t.shape);
	Value inf = math_op(s, MATH_ISINF, &x, 1, bt, c->loc);
	Value nan = math_op(s, MATH_ISNAN, &x, 1, bt, c->loc);
	ValId in[2] = {inf.id, nan.id};
	ValId bad = emit(s, TOP_OR, c->loc, in, 2, bt);
	return v_tensor(s, emit(s, TOP_NOT, c->loc, &bad, 1, bt));
}

/* ---- libdevice conversions ---------------------------------------------------------------- */

/* float -> integer as the GPU converts (cvt.rzi and friends): out-of-range
 * values saturate and NaN becomes 0, on every target. x is already rounded
 * to an integral value. */
ValId sat_float_to_int(Sema *s, ValId x, DType to, SrcLoc loc)
{
	Type t = vtype(s, x), dt = type_tile(type_scalar(DT_F64), t.rank, t.shape);
	ValId d = cast_val(s, x, type_scalar(DT_F64), false, 0, loc);
	bool sgn = dtype_is_signed(to);
	int w = dtype_bits(to);
	/* the largest doubles inside the range (2^63 - 1 and 2^64 - 1 round up) */
	double hi = w == 64 ? (sgn ? 9223372036854774784.0 : 18446744073709549568.0)
	                    : (sgn ? (double)((1ull << (w - 1)) - 1) : (double)((1ull << w) - 1));
	double lo = sgn ? (w == 64 ? -9223372036854775808.0 : -hi - 1) : 0;
	ValId in[3] = {d, d};
	TirOp *nan = emit_op(s, TOP_CMP, loc, in, 2, type_tile(type_scalar(DT_I1), t.rank, t.shape));
	nan->attr.pred = PRED_NE;
	Value v = make_minmax(s, false, v_tensor(s, d), v_tensor(s, emit_const(s, dt, 0, hi, loc)), false, loc);
	v = make_minmax(s, true, v, v_tensor(s, emit_const(s, dt, 0, lo, loc)), false, loc);
	in[0] = nan->results[0];
	in[1] = emit_const(s, dt, 0, 0.0, loc);
	in[2] = v.id;
	d = emit(s, TOP_SELECT, loc, in, 3, dt);
	return cast_val(s, d, type_scalar(to), false, 0, loc);
}

enum { RND_N, RND_Z, RND_D, RND_U };
#define CVT(from, to, rnd) ((from) | (to) << 8 | (rnd) << 16)

/* libdevice's float2int_rn, double2ull_rz, int2float_rn, double2float_rz, ...:
 * extra = CVT(source dtype, result dtype, rounding) */
static Value b_convert(Sema *s, Call *c, int extra)
{
	DType from = (DType)(extra & 0xff), to = (DType)((extra >> 8) & 0xff);
	int rnd = extra >> 16;
	ValId x;
	if (!arg_tensor(s, c, 0, &x)) return v_err();
	Type t = vtype(s, x);
	if (dtype_is_float(from) != dtype_is_float((DType)t.dt) || (dtype_is_float(from) && t.dt != from)) {
		diag_error(s->d, c->at[0], "'%s' expects %s, got %s", c->name, dtype_name(from), dt_name(s, t));
		return v_err();
	}
	if (!dtype_is_float(to)) {
		static const MathFn round_fn[] = {MATH_RINT, MATH_TRUNC, MATH_FLOOR, MATH_CEIL};
		x = math_op(s, round_fn[rnd], &x, 1, t, c->loc).id;
		return v_tensor(s, sat_float_to_int(s, x, to, c->loc));
	}
	if (rnd == RND_D || rnd == RND_U) {
		diag_error(s->d, c->loc, "'%s': rounding toward -inf/+inf is not supported", c->name);
		return v_err();
	}
	return v_tensor(s, cast_val(s, x, type_scalar(to), false, rnd == RND_Z ? TIR_RTZ : 0, c->loc));
}

/* int_as_float, float_as_uint, double_as_longlong, ...: extra = CVT(from, to, 0);
 * the source must have the width (any signedness for integers) */
static Value b_reinterpret(Sema *s, Call *c, int extra)
{
	DType from = (DType)(extra & 0xff), to = (DType)((extra >> 8) & 0xff);
	ValId x;
	if (!arg_tensor(s, c, 0, &x)) return v_err();
	Type t = vtype(s, x);
	if (dtype_bits((DType)t.dt) != dtype_bits(from) || dtype_is_float((DType)t.dt) != dtype_is_float(from)) {
		diag_error(s->d, c->at[0], "'%s' expects %s, got %s", c->name, dtype_name(from), dt_name(s, t));
		return v_err();
	}
	return v_tensor(s, cast_val(s, x, type_scalar(to), true, 0, c->loc));
}

#define F2I(name, from, to)                                                                        \
	{name "_rn", "x", b_convert, CVT(from, to, RND_N), BF_MATH},                               \
	    {name "_rz", "x", b_convert, CVT(from, to, RND_Z), BF_MATH},                           \
	    {name "_rd", "x", b_convert, CVT(from, to, RND_D), BF_MATH},                           \
	    {name "_ru", "x", b_convert, CVT(from, to, RND_U), BF_MATH}

#define M1(name, fn) {name, "x", b_unary, MATH_##fn, BF_TL | BF_MATH | BF_METHOD}
#define M2(name, fn) {name, "x,y", b_binary, MATH_##fn, BF_TL | BF_MATH}
#define ML1(name, fn) {name, "x", b_unary, MATH_##fn, BF_MATH}
#define ML2(name, fn) {name, "x,y", b_binary, MATH_##fn, BF_MATH}

const Builtin builtins_math[] = {
    M1("exp", EXP), M1("exp2", EXP2), M1("log", LOG), M1("log2", LOG2), M1("sqrt", SQRT),
    M1("sqrt_rn", SQRT), M1("rsqrt", RSQRT), M1("sin", SIN), M1("cos", COS), M1("tan", TAN),
    M1("tanh", TANH), M1("erf", ERF), M1("floor", FLOOR), M1("ceil", CEIL), M1("log1p", LOG1P),
    M1("expm1", EXPM1), M1("round", ROUND), M1("trunc", TRUNC), M1("asin", ASIN), M1("acos", ACOS),
    M1("atan", ATAN), M1("sinh", SINH), M1("cosh", COSH), M1("cbrt", CBRT), M1("rint", RINT),
    M1("isnan", ISNAN), M1("isinf", ISINF), M1("signbit", SIGNBIT), M1("popc", POPC), M1("clz", CLZ),
    M2("pow", POW), M2("atan2", ATAN2), M2("fmod", FMOD), M2("fdim", FDIM), M2("hypot", HYPOT),
    M2("copysign", COPYSIGN),
    /* libdevice only (tl.extra.cuda.libdevice / tl.math) */
    ML1("log10", LOG10), ML1("acosh", ACOSH), ML1("asinh", ASINH), ML1("atanh", ATANH), ML1("erfc", ERFC),
    ML1("lgamma", LGAMMA), ML1("tgamma", TGAMMA), ML1("logb", LOGB), ML1("j0", J0), ML1("j1", J1),
    ML1("y0", Y0), ML1("y1", Y1), ML2("nextafter", NEXTAFTER), ML2("remainder", REMAINDER),
    {"abs", "x", b_abs, 0, BF_TL | BF_MATH | BF_METHOD},
    {"fdiv", "x,y,ieee_rounding=False", b_fdiv, 0, BF_TL | BF_MATH | BF_METHOD},
    {"div_rn", "x,y", b_fdiv, 1, BF_TL | BF_MATH | BF_METHOD},
    {"fma", "x,y,z", b_fma, 0, BF_TL | BF_MATH | BF_METHOD},
    {"umulhi", "x,y", b_umulhi, 0, BF_TL | BF_MATH | BF_METHOD},
    {"add", "x,y,sanitize_overflow=True", b_arith, OP_ADD, BF_TL},
    {"sub", "x,y,sanitize_overflow=True", b_arith, OP_SUB, BF_TL},
    {"mul", "x,y,sanitize_overflow=True", b_arith, OP_MUL, BF_TL},
    {"logical_and", "self,other", b_logical, 0, BF_METHOD},
    {"logical_or", "self,other", b_logical, 1, BF_METHOD},
    {"minimum", "x,y,propagate_nan=0", b_minmax, 0, BF_TL | BF_MATH},
    {"maximum", "x,y,propagate_nan=0", b_minmax, 1, BF_TL | BF_MATH},
    {"clamp", "x,min,max,propagate_nan=0", b_clamp, 0, BF_TL | BF_MATH},
    {"rcp", "x", b_rcp, 0, BF_MATH},
    {"isfinite", "x", b_isfinite, 0, BF_MATH},
    F2I("float2int", DT_F32, DT_I32), F2I("float2uint", DT_F32, DT_U32),
    F2I("float2ll", DT_F32, DT_I64), F2I("float2ull", DT_F32, DT_U64),
    F2I("double2int", DT_F64, DT_I32), F2I("double2uint", DT_F64, DT_U32),
    F2I("double2ll", DT_F64, DT_I64), F2I("double2ull", DT_F64, DT_U64),
    F2I("double2float", DT_F64, DT_F32), F2I("int2float", DT_I32, DT_F32),
    F2I("uint2float", DT_U32, DT_F32), F2I("ll2float", DT_I64, DT_F32),
    F2I("ull2float", DT_U64, DT_F32), F2I("int2double", DT_I32, DT_F64),
    F2I("uint2double", DT_U32, DT_F64), F2I("ll2double", DT_I64, DT_F64),
    F2I("ull2double", DT_U64, DT_F64),
    {"int_as_float", "x", b_reinterpret, CVT(DT_I32, DT_F32, 0), BF_MATH},
    {"uint_as_float", "x", b_reinterpret, CVT(DT_U32, DT_F32, 0), BF_MATH},
    {"float_as_int", "x", b_reinterpret, CVT(DT_F32, DT_I32, 0), BF_MATH},
    {"float_as_uint", "x", b_reinterpret, CVT(DT_F32, DT_U32, 0), BF_MATH},
    {"longlong_as_double", "x", b_reinterpret, CVT(DT_I64, DT_F64, 0), BF_MATH},
    {"double_as_longlong", "x", b_reinterpret, CVT(DT_F64, DT_I64, 0), BF_MATH},
    {NULL, NULL, NULL, 0, 0},
};

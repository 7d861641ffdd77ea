/* emit_c_arith.c: elementwise ops, comparisons, casts and math as CUDA C.
 *
 * Narrow floats (f16, bf16, fp8) are bit patterns in integer storage; they
 * compute in f32 and round back (exact for + - * / sqrt: f32 has more than
 * twice their precision plus two bits, so the double rounding is harmless).
 * Integer arithmetic is C on the fixed-width typedefs; signed add, sub, mul,
 * shl and negation compute in the unsigned type (wadd, wsub, ...) and results
 * narrower than int are cast back, so they wrap as the Tile IR's do.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/emit_c_internal.h"

static bool is_narrow_float(DType d)
{
	return d == DT_F16 || d == DT_BF16 || d == DT_F8E4M3 || d == DT_F8E5M2;
}

static int int_bits(DType d) { return dtype_bits(d); }

static DType dt_of(const Ec *e, TpVal v) { return (DType)ec_ty(e, v).dt; }

/* ---- host rounding of constants to narrow floats --------------------------------- */

typedef struct MiniFmt {
	int eb, mb;
	bool fn;        /* "finite": no infinities, NaN = all ones (e4m3) */
	bool satfinite; /* overflow gives the largest finite value */
} MiniFmt;

static MiniFmt mini_fmt(DType d)
{
	switch (d) {
	case DT_F16: return (MiniFmt){5, 10, false, false};
	case DT_BF16: return (MiniFmt){8, 7, false, false};
	case DT_F8E4M3: return (MiniFmt){4, 3, true, true};
	default: return (MiniFmt){5, 2, false, true};
	}
}

uint32_t ec_round_minifloat(double x, DType d)
{
	MiniFmt f = mini_fmt(d);
	uint32_t sign = signbit(x) ? 1u << (f.eb + f.mb) : 0;
	uint32_t allexp = ((1u << f.eb) - 1) << f.mb, mmask = (1u << f.mb) - 1;
	uint32_t maxcode = f.fn ? allexp | (mmask - 1) : (allexp - (1u << f.mb)) | mmask;
	uint32_t over = f.satfinite ? maxcode : allexp;
	if (isnan(x))
		return sign | allexp | (f.fn ? mmask : 1u << (f.mb - 1));
	double a = fabs(x);
	if (isinf(a))
		return sign | over;
	if (a == 0)
		return sign;
	int bias = (1 << (f.eb - 1)) - 1, emin = 1 - bias, e2;
	frexp(a, &e2);
	int E = e2 - 1 < emin ? emin : e2 - 1;
	double q = rint(ldexp(a, f.mb - E)); /* round to nearest even */
	if (q >= ldexp(1, f.mb + 1)) {
		q /= 2;
		E++;
	}
	uint64_t m = (uint64_t)q;
	uint64_t code = m < (1u << f.mb) ? m : ((uint64_t)(E + bias) << f.mb) + m - (1u << f.mb);
	if (code > maxcode)
		return sign | over;
	return sign | (uint32_t)code;
}

/* ---- literals -------------------------------------------------------------------------- */

void ec_float_lit(Ec *e, StrBuf *b, DType d, double x)
{
	if (is_narrow_float(d)) {
		sb_printf(b, "(%s)0x%x", ec_ctype(d), ec_round_minifloat(x, d));
		return;
	}
	if (d == DT_F32) {
		float fx = (float)x;
		uint32_t u;
		memcpy(&u, &fx, 4);
		if (!isfinite(fx)) {
			sb_printf(b, "__uint_as_float(0x%08xu)", u);
			return;
		}
		char s[64];
		snprintf(s, sizeof s, "%.9g", fx);
		bool dot = strpbrk(s, ".e") != NULL;
		sb_printf(b, fx < 0 || signbit(fx) ? "(%s%sf)" : "%s%sf", s, dot ? "" : ".0");
		return;
	}
	if (!isfinite(x)) {
		uint64_t u;
		memcpy(&u, &x, 8);
		sb_printf(b, "__longlong_as_double(0x%016llxll)", (unsigned long long)u);
		return;
	}
	char s[64];
	snprintf(s, sizeof s, "%.17g", x);
	bool dot = strpbrk(s, ".e") != NULL;
	sb_printf(b, x < 0 || signbit(x) ? "(%s%s)" : "%s%s", s, dot ? "" : ".0");
}

static void int_lit(StrBuf *b, DType d, int64_t v)
{
	switch (d) {
	case DT_I1: sb_puts(b, v ? "true" : "false"); break;
	case DT_I32:
		if ((int32_t)v == INT32_MIN)
			sb_puts(b, "(-2147483647 - 1)");
		else
			sb_printf(b, "%d", (int32_t)v);
		break;
	case DT_I64:
		if (v == INT64_MIN)
			sb_puts(b, "(-9223372036854775807ll - 1)");
		else
			sb_printf(b, "%lldll", (long long)v);
		break;
	case DT_U32: sb_printf(b, "%uu", (uint32_t)v); break;
	case DT_U64: sb_printf(b, "%lluull", (unsigned long long)v); break;
	case DT_I8: sb_printf(b, "(int8_t)%d", (int8_t)v); break;
	case DT_I16: sb_printf(b, "(int16_t)%d", (int16_t)v); break;
	case DT_U8: sb_printf(b, "(uint8_t)%u", (uint8_t)v); break;
	case DT_U16: sb_printf(b, "(uint16_t)%u", (uint16_t)v); break;
	default: sb_printf(b, "%lld", (long long)v); break;
	}
}

static void emit_const(Ec *e, const TpOp *op)
{
	Type t = ec_ty(e, op->results[0]);
	StrBuf b = {0};
	if (t.dt == DT_PTR) {
		char ty[48];
		ec_type_str(t, ty, sizeof ty);
		sb_printf(&b, "(%s)0x%llxull", ty, (unsigned long long)op->attr.i);
	} else if (dtype_is_float((DType)t.dt)) {
		ec_float_lit(e, &b, (DType)t.dt, op->attr.f);
	} else {
		int_lit(&b, (DType)t.dt, op->attr.i);
	}
	ec_decl(e, op->results[0], "%s", b.s);
	sb_free(&b);
}

/* ---- bits and conversions -------------------------------------------------------------- */

void ec_bits(Ec *e, StrBuf *b, TpVal v, bool wide)
{
	Type t = ec_ty(e, v);
	DType d = (DType)t.dt;
	if (d == DT_F64) {
		sb_printf(b, "(uint64_t)__double_as_longlong(v%u)", v);
		return;
	}
	if (d == DT_PTR || d == DT_I64 || d == DT_U64) {
		sb_printf(b, "(uint64_t)v%u", v);
		return;
	}
	if (wide)
		sb_puts(b, "(uint64_t)");
	if (d == DT_F32)
		sb_printf(b, "__float_as_uint(v%u)", v);
	else if (d == DT_I8)
		sb_printf(b, "(uint32_t)(uint8_t)v%u", v);
	else if (d == DT_I16)
		sb_printf(b, "(uint32_t)(uint16_t)v%u", v);
	else
		sb_printf(b, "(uint32_t)v%u", v);
}

void ec_from_bits(Ec *e, StrBuf *b, DType d, const char *bits)
{
	if (d == DT_F32)
		sb_printf(b, "__uint_as_float(%s)", bits);
	else if (d == DT_F64)
		sb_printf(b, "__longlong_as_double((long long)(%s))", bits);
	else if (d == DT_I1)
		sb_printf(b, "((%s) != 0)", bits);
	else
		sb_printf(b, "(%s)(%s)", ec_ctype(d), bits);
}

static const char *to_f32_fn(Ec *e, DType d)
{
	switch (d) {
	case DT_F16: ec_need(e, H_F16); return "f16_to_f32";
	case DT_BF16: ec_need(e, H_BF16); return "bf16_to_f32";
	case DT_F8E4M3: ec_need(e, H_F8E4M3); return "f8e4m3_to_f32";
	case DT_F8E5M2: ec_need(e, H_F8E5M2); return "f8e5m2_to_f32";
	default: return "";
	}
}

static const char *from_f32_fn(Ec *e, DType d, bool rtz)
{
	switch (d) {
	case DT_F16: ec_need(e, H_F16); return rtz ? "f32_to_f16_rz" : "f32_to_f16";
	case DT_BF16: ec_need(e, H_BF16); return rtz ? "f32_to_bf16_rz" : "f32_to_bf16";
	case DT_F8E4M3: ec_need(e, H_F8E4M3); return "f32_to_f8e4m3";
	case DT_F8E5M2: ec_need(e, H_F8E5M2); return "f32_to_f8e5m2";
	default: return "";
	}
}

/* Expression of x as f32 (narrow floats widened; f32 unchanged). */
static void as_f32(Ec *e, StrBuf *b, const char *x, DType d)
{
	if (is_narrow_float(d))
		sb_printf(b, "%s(%s)", to_f32_fn(e, d), x);
	else if (d == DT_F32)
		sb_puts(b, x);
	else if (d == DT_I1)
		sb_printf(b, "(%s ? 1.0f : 0.0f)", x);
	else
		sb_printf(b, "(float)%s", x);
}

/* a 32- or 64-bit integer as f32 rounded toward zero (libdevice's int2float_rz,
 * cvt.rz.f32.s64 in inline asm): CUDA's __int2float_rz and friends; a plain
 * (float) cast rounds to nearest. False for narrower sources (exact in f32). */
static bool int_to_f32_rz(StrBuf *b, const char *x, DType from)
{
	const char *fn = from == DT_I32 ? "__int2float_rz" : from == DT_U32 ? "__uint2float_rz"
	               : from == DT_I64 ? "__ll2float_rz" : from == DT_U64 ? "__ull2float_rz" : NULL;
	if (fn)
		sb_printf(b, "%s(%s)", fn, x);
	return fn != NULL;
}

static void convert_to(Ec *e, StrBuf *b, const char *x, DType from, DType to, bool rtz)
{
	bool ffrom = dtype_is_float(from), fto = dtype_is_float(to);
	if (from == to) {
		sb_puts(b, x);
	} else if (to == DT_I1) {
		StrBuf t = {0};
		if (is_narrow_float(from))
			as_f32(e, &t, x, from);
		else
			sb_puts(&t, x);
		sb_printf(b, "(%s != 0)", t.s);
		sb_free(&t);
	} else if (!fto) { /* to an integer */
		StrBuf t = {0};
		if (is_narrow_float(from))
			as_f32(e, &t, x, from);
		else
			sb_puts(&t, x);
		int bits = dtype_bits(to);
		if (ffrom && bits < 32) { /* saturated, as the 32-bit conversions are */
			ec_need(e, H_F2I_SAT);
			const char *fn = from == DT_F64 ? "d2" : "f2";
			if (dtype_is_signed(to))
				sb_printf(b, "(%s)%si_sat(%s, %d, %d)", ec_ctype(to), fn, t.s, -(1 << (bits - 1)),
				          (1 << (bits - 1)) - 1);
			else
				sb_printf(b, "(%s)%su_sat(%s, %uu)", ec_ctype(to), fn, t.s, (1u << bits) - 1);
		} else {
			sb_printf(b, "(%s)%s", ec_ctype(to), t.s);
		}
		sb_free(&t);
	} else if (to == DT_F32 && rtz && int_to_f32_rz(b, x, from)) {
		/* printed */
	} else if (to == DT_F64 && rtz && (from == DT_I64 || from == DT_U64)) {
		sb_printf(b, "%s(%s)", from == DT_I64 ? "__ll2double_rz" : "__ull2double_rz", x);
	} else if (to == DT_F32) {
		if (from == DT_F64 && rtz)
			sb_printf(b, "__double2float_rz(%s)", x);
		else if (from == DT_F64)
			sb_printf(b, "(float)%s", x);
		else
			as_f32(e, b, x, from);
	} else if (to == DT_F64) {
		if (from == DT_I1)
			sb_printf(b, "(%s ? 1.0 : 0.0)", x);
		else if (is_narrow_float(from)) {
			sb_puts(b, "(double)");
			as_f32(e, b, x, from);
		} else
			sb_printf(b, "(double)%s", x);
	} else if (to == DT_F16 && (from == DT_F8E4M3 || from == DT_F8E5M2)) {
		bool e4 = from == DT_F8E4M3;
		ec_need(e, e4 ? H_F8E4M3_F16 : H_F8E5M2_F16);
		sb_printf(b, "%s(%s)", e4 ? "f8e4m3_to_f16" : "f8e5m2_to_f16", x);
	} else if (to == DT_F16 && from == DT_F64 && !rtz) {
		ec_need(e, H_F64_F16);
		sb_printf(b, "f64_to_f16(%s)", x);
	} else if (to == DT_BF16 && !rtz &&
	           (from == DT_F64 || from == DT_I32 || from == DT_U32 || from == DT_I64 || from == DT_U64)) {
		ec_need(e, H_BF16);
		ec_need(e, H_TO_BF16);
		if (from == DT_F64)
			sb_printf(b, "f64_to_bf16(%s)", x);
		else if (dtype_is_signed(from))
			sb_printf(b, "i64_to_bf16((int64_t)%s)", x);
		else
			sb_printf(b, "u64_to_bf16((uint64_t)%s)", x);
	} else { /* to a narrow float: through f32 (exact from narrower floats) */
		StrBuf t = {0};
		if (from == DT_F64 && rtz) /* toward zero twice is toward zero once */
			sb_printf(&t, "__double2float_rz(%s)", x);
		else if (from == DT_F64 && (to == DT_F8E4M3 || to == DT_F8E5M2)) {
			ec_need(e, H_F64_ODD); /* to nearest even twice is not once */
			sb_printf(&t, "f64_to_f32_odd(%s)", x);
		} else if (from == DT_F64)
			sb_printf(&t, "(float)%s", x);
		else if (!(rtz && int_to_f32_rz(&t, x, from))) /* toward zero twice is once */
			as_f32(e, &t, x, from);
		sb_printf(b, "%s(%s)", from_f32_fn(e, to, rtz), t.s);
		sb_free(&t);
	}
	(void)ffrom;
}

char *ec_convert(Ec *e, const char *x, DType from, DType to, bool rtz)
{
	StrBuf b = {0};
	convert_to(e, &b, x, from, to, rtz);
	return sb_take(&b);
}

/* ---- binary ops -------------------------------------------------------------------------- */

/* Operand as a compute value: narrow floats as f32. */
static void operand(Ec *e, StrBuf *b, TpVal v)
{
	char x[16];
	snprintf(x, sizeof x, "v%u", v);
	DType d = dt_of(e, v);
	if (is_narrow_float(d))
		as_f32(e, b, x, d);
	else
		sb_puts(b, x);
}

/* Declares result v = expr, rounding back to narrow floats or wrapping
 * narrow integers. `expr` is in compute type (f32 for narrow floats). */
static void result(Ec *e, TpVal v, const char *expr)
{
	DType d = dt_of(e, v);
	if (is_narrow_float(d))
		ec_decl(e, v, "%s(%s)", from_f32_fn(e, d, false), expr);
	else if (d == DT_I8 || d == DT_I16 || d == DT_U8 || d == DT_U16)
		ec_decl(e, v, "(%s)(%s)", ec_ctype(d), expr);
	else
		ec_decl(e, v, "%s", expr);
}

static const char *binop_sym(TpOpKind k)
{
	switch (k) {
	case TP_ADD: return "+";
	case TP_SUB: return "-";
	case TP_MUL: return "*";
	case TP_DIV: return "/";
	case TP_REM: return "%";
	case TP_AND: return "&";
	case TP_OR: return "|";
	case TP_XOR: return "^";
	case TP_SHL: return "<<";
	case TP_SHR: return ">>";
	default: return NULL;
	}
}

static void minmax(Ec *e, StrBuf *b, const TpOp *op, const char *x, const char *y)
{
	DType d = dt_of(e, op->results[0]);
	bool mx = op->kind == TP_MAX;
	if (dtype_is_float(d)) {
		bool nan = op->attr.flags & TIR_PROPAGATE_NAN;
		if (nan)
			ec_need(e, H_FMIN_NAN);
		sb_printf(b, "%s%s%s(%s, %s)", mx ? "fmax" : "fmin", d == DT_F64 ? "" : "f",
		          nan ? "_nan" : "", x, y);
	} else {
		sb_printf(b, "(%s %s %s ? %s : %s)", x, mx ? ">" : "<", y, x, y);
	}
}

/* A constant shift amount below the width needs no clamp. */
static bool shift_in_range(const Ec *e, TpVal amount, DType d)
{
	bool known;
	int64_t n = ec_const_int(e, amount, &known);
	return known && n >= 0 && n < int_bits(d);
}

/* Signed integer add, sub, mul, shl and negation wrap, as the Tile IR's (and
 * Triton's LLVM ops, which have no nsw) do: C leaves signed overflow undefined
 * and NVVM folds on it (x + 2147483647 < x became false). They call wadd, wsub,
 * wmul, wshl and wneg, overloaded on int32_t and int64_t, which compute in the
 * unsigned type; i8 and i16 go through the int32_t ones (C would promote them to
 * int, where a negative value shifted left is undefined too) and are cast back.
 * Returns false for the other types. */
static bool wraps(Ec *e, DType d)
{
	if (d != DT_I8 && d != DT_I16 && d != DT_I32 && d != DT_I64)
		return false;
	if (ec_want_helper(e, "wrap_ops"))
		for (int w = 0; w < 2; w++) {
			const char *t = w ? "int64_t" : "int32_t", *u = w ? "uint64_t" : "uint32_t";
			sb_printf(&e->helpers,
			          "DEVFN %s wadd(%s a, %s b) { return (%s)((%s)a + (%s)b); }\n"
			          "DEVFN %s wsub(%s a, %s b) { return (%s)((%s)a - (%s)b); }\n"
			          "DEVFN %s wmul(%s a, %s b) { return (%s)((%s)a * (%s)b); }\n"
			          "DEVFN %s wshl(%s a, %s b) { return (%s)((%s)a << b); }\n"
			          "DEVFN %s wneg(%s a) { return (%s)(0 - (%s)a); }\n",
			          t, t, t, t, u, u, t, t, t, t, u, u, t, t, t, t, u, u, t, t, t, t, u, t, t, t, u);
		}
	return true;
}

static const char *wrap_fn(TpOpKind k)
{
	switch (k) {
	case TP_ADD: return "wadd";
	case TP_SUB: return "wsub";
	case TP_MUL: return "wmul";
	case TP_SHL: return "wshl";
	default: return NULL;
	}
}

static void emit_binary(Ec *e, const TpOp *op)
{
	TpOpKind k = (TpOpKind)op->kind;
	DType d = dt_of(e, op->results[0]);
	StrBuf x = {0}, y = {0}, b = {0};
	operand(e, &x, op->operands[0]);
	operand(e, &y, op->operands[1]);
	if (k == TP_MIN || k == TP_MAX) {
		minmax(e, &b, op, x.s, y.s);
	} else if (k == TP_DIV && d == DT_F32 && !(op->attr.flags & TIR_DIV_RN)) {
		/* Triton's f32 `/` is div.full.f32 (2 ulp, no slow path); div_rn and
		 * fdiv(ieee_rounding=True) keep IEEE division */
		if (ec_want_helper(e, "div_full_f32"))
			sb_puts(&e->helpers, "DEVFN float div_full_f32(float x, float y)\n{\n"
			                     "\tfloat r;\n"
			                     "\tasm(\"div.full.f32 %0, %1, %2;\" : \"=f\"(r) : \"f\"(x), \"f\"(y));\n"
			                     "\treturn r;\n}\n");
		sb_printf(&b, "div_full_f32(%s, %s)", x.s, y.s);
	} else if (k == TP_REM && dtype_is_float(d)) {
		sb_printf(&b, "%s(%s, %s)", d == DT_F64 ? "fmod" : "fmodf", x.s, y.s);
	} else if (k == TP_UMULHI) {
		bool w = int_bits(d) == 64;
		sb_printf(&b, "(%s)%s((%s)%s, (%s)%s)", ec_ctype(d), w ? "__umul64hi" : "__umulhi",
		          w ? "uint64_t" : "uint32_t", x.s, w ? "uint64_t" : "uint32_t", y.s);
	} else if (d == DT_I1 && (k == TP_ADD || k == TP_SUB)) {
		sb_printf(&b, "%s ^ %s", x.s, y.s); /* i1 arithmetic wraps mod 2 */
	} else if (d == DT_I1 && k == TP_MUL) {
		sb_printf(&b, "%s & %s", x.s, y.s);
	} else if ((k == TP_SHL || k == TP_SHR) && d != DT_I1 && !shift_in_range(e, op->operands[1], d)) {
		/* PTX's shifts: the amount clamped to the width (C leaves it undefined) */
		int w = int_bits(d);
		if (k == TP_SHR && dtype_is_signed(d))
			sb_printf(&b, "%s >> ((uint32_t)%s < %du ? %s : %d)", x.s, y.s, w, y.s, w - 1);
		else if (k == TP_SHL && wraps(e, d))
			sb_printf(&b, "(uint32_t)%s < %du ? (%s)wshl(%s, %s) : (%s)0", y.s, w, ec_ctype(d), x.s,
			          y.s, ec_ctype(d));
		else
			sb_printf(&b, "(uint32_t)%s < %du ? (%s)(%s %s %s) : (%s)0", y.s, w, ec_ctype(d), x.s,
			          binop_sym(k), y.s, ec_ctype(d));
	} else if (wrap_fn(k) && wraps(e, d)) {
		sb_printf(&b, "%s(%s, %s)", wrap_fn(k), x.s, y.s);
	} else {
		sb_printf(&b, "%s %s %s", x.s, binop_sym(k), y.s);
	}
	result(e, op->results[0], b.s);
	sb_free(&x);
	sb_free(&y);
	sb_free(&b);
}

static void emit_cmp(Ec *e, const TpOp *op)
{
	static const char *const sym[] = {"==", "!=", "<", "<=", ">", ">="};
	StrBuf x = {0}, y = {0};
	operand(e, &x, op->operands[0]);
	operand(e, &y, op->operands[1]);
	int p = op->attr.pred >= 0 && op->attr.pred < 6 ? op->attr.pred : 0;
	ec_decl(e, op->results[0], "%s %s %s", x.s, sym[p], y.s);
	sb_free(&x);
	sb_free(&y);
}

static void emit_unary(Ec *e, const TpOp *op)
{
	TpVal a = op->operands[0], r = op->results[0];
	DType d = dt_of(e, r);
	if (op->kind == TP_NOT) {
		if (d == DT_I1)
			ec_decl(e, r, "!v%u", a);
		else
			ec_decl(e, r, "(%s)~v%u", ec_ctype(d), a);
	} else if (is_narrow_float(d)) { /* NEG: flip the sign bit */
		ec_decl(e, r, "(%s)(v%u ^ 0x%x)", ec_ctype(d), a,
		        dtype_bits(d) == 8 ? 0x80 : 0x8000);
	} else if (d == DT_I1) {
		ec_decl(e, r, "v%u", a);
	} else if (dtype_is_float(d)) {
		ec_decl(e, r, "-v%u", a);
	} else if (d == DT_I32 || d == DT_I64) { /* -INT_MIN wraps, as C's signed negation does not */
		wraps(e, d);
		ec_decl(e, r, "wneg(v%u)", a);
	} else {
		ec_decl(e, r, "(%s)-v%u", ec_ctype(d), a);
	}
}

/* ---- math -------------------------------------------------------------------------------- */

static void emit_int_math(Ec *e, const TpOp *op)
{
	TpVal a = op->operands[0], r = op->results[0];
	DType d = dt_of(e, a), rd = dt_of(e, r);
	bool w = int_bits(d) == 64;
	int pad = w ? 0 : 32 - int_bits(d);
	switch (op->attr.math) {
	case MATH_ABS:
		if (dtype_is_signed(d) && wraps(e, d))
			ec_decl(e, r, "(%s)(v%u < 0 ? wneg(v%u) : v%u)", ec_ctype(rd), a, a, a);
		else
			ec_decl(e, r, "v%u", a);
		return;
	case MATH_POPC:
		if (w)
			ec_decl(e, r, "(%s)__popcll((uint64_t)v%u)", ec_ctype(rd), a);
		else
			ec_decl(e, r, "(%s)__popc((uint32_t)(%s)v%u)", ec_ctype(rd),
			        ec_ctype(d == DT_I8    ? DT_U8
			                 : d == DT_I16 ? DT_U16
			                               : DT_U32),
			        a);
		return;
	case MATH_CLZ:
		if (w)
			ec_decl(e, r, "(%s)__clzll((long long)v%u)", ec_ctype(rd), a);
		else if (pad)
			ec_decl(e, r, "(%s)(__clz((int)(uint32_t)(%s)v%u) - %d)", ec_ctype(rd),
			        ec_ctype(d == DT_I8 || d == DT_U8 ? DT_U8 : DT_U16), a, pad);
		else
			ec_decl(e, r, "(%s)__clz((int)v%u)", ec_ctype(rd), a);
		return;
	default:
		ice("emit_cuda", "math function '%s' on an integer",
		    math_fn_name((MathFn)op->attr.math));
	}
}

static void emit_math(Ec *e, const TpOp *op)
{
	MathFn m = (MathFn)op->attr.math;
	if (m < 0 || m >= MATH_COUNT)
		ice("emit_cuda", "bad math function %d", (int)m);
	DType d = dt_of(e, op->operands[0]);
	if (!dtype_is_float(d) || m == MATH_POPC || m == MATH_CLZ) {
		emit_int_math(e, op);
		return;
	}
	StrBuf b = {0};
	ec_math_callee(e, &b, m, d == DT_F64, op->nin);
	sb_putc(&b, '(');
	for (int i = 0; i < op->nin; i++) {
		if (i)
			sb_puts(&b, ", ");
		operand(e, &b, op->operands[i]);
	}
	sb_putc(&b, ')');
	TpVal r = op->results[0];
	if (dt_of(e, r) == DT_I1)
		ec_decl(e, r, "%s", b.s);
	else
		result(e, r, b.s);
	sb_free(&b);
}

/* fma of f16 / bf16 rounded once, as fma.rn.f16 / .bf16 and the CPU targets
 * (emit_llvm_arith.c's fma_narrow) round it: an f32 fma rounded twice (f16
 * 1.25 * 1.001953125 + 2^-24 gave 1.252, not 1.253). a*b is exact in f64; the
 * sum rounded to odd through its Fast2Sum error, then to nearest even. */
static void emit_fma_narrow(Ec *e, const TpOp *op, DType d)
{
	if (ec_want_helper(e, "fma_odd_f64"))
		sb_puts(&e->helpers,
		        "DEVFN double fma_odd_f64(double a, double b, double c)\n{\n"
		        "\tdouble p = __dmul_rn(a, b), s = __dadd_rn(p, c);\n"
		        "\tbool ge = fabs(p) >= fabs(c);\n"
		        "\tdouble err = __dadd_rn(__dsub_rn(ge ? p : c, s), ge ? c : p);\n"
		        "\tlong long u = __double_as_longlong(s);\n"
		        "\tif (!(u & 1) && (err < 0 || err > 0))\n"
		        "\t\tu += (err > 0) == (s > 0) ? 1 : -1;\n"
		        "\treturn __longlong_as_double(u);\n}\n");
	StrBuf b = {0};
	if (d == DT_F16) {
		ec_need(e, H_F64_F16);
		sb_puts(&b, "f64_to_f16(fma_odd_f64(");
	} else {
		ec_need(e, H_BF16);
		ec_need(e, H_TO_BF16);
		sb_puts(&b, "f64_to_bf16(fma_odd_f64(");
	}
	for (int i = 0; i < 3; i++) {
		sb_puts(&b, i ? ", (double)" : "(double)");
		operand(e, &b, op->operands[i]);
	}
	sb_puts(&b, "))");
	ec_decl(e, op->results[0], "%s", b.s);
	sb_free(&b);
}

static void emit_fma(Ec *e, const TpOp *op)
{
	DType d = dt_of(e, op->results[0]);
	if (d == DT_F16 || d == DT_BF16) {
		emit_fma_narrow(e, op, d);
		return;
	}
	StrBuf b = {0};
	sb_puts(&b, d == DT_F64 ? "fma(" : dtype_is_float(d) ? "fmaf(" : "(");
	for (int i = 0; i < 3; i++) {
		if (dtype_is_float(d) && i)
			sb_puts(&b, ", ");
		else if (i)
			sb_puts(&b, i == 1 ? " * " : " + ");
		operand(e, &b, op->operands[i]);
	}
	sb_putc(&b, ')');
	result(e, op->results[0], b.s);
	sb_free(&b);
}

/* ---- casts ---------------------------------------------------------------------------------- */

static void emit_cast(Ec *e, const TpOp *op)
{
	TpVal a = op->operands[0], r = op->results[0];
	Type from = ec_ty(e, a), to = ec_ty(e, r);
	char x[16];
	snprintf(x, sizeof x, "v%u", a);
	if (from.dt == DT_PTR || to.dt == DT_PTR) {
		char ty[48];
		ec_type_str(to, ty, sizeof ty);
		ec_decl(e, r, "(%s)v%u", ty, a);
		return;
	}
	char *s = ec_convert(e, x, (DType)from.dt, (DType)to.dt, op->attr.flags & TIR_RTZ);
	ec_decl(e, r, "%s", s);
	free(s);
}

static void emit_bitcast(Ec *e, const TpOp *op)
{
	TpVal a = op->operands[0], r = op->results[0];
	Type from = ec_ty(e, a), to = ec_ty(e, r);
	if (from.dt == DT_PTR || to.dt == DT_PTR) {
		char ty[48];
		ec_type_str(to, ty, sizeof ty);
		ec_decl(e, r, "(%s)v%u", ty, a);
		return;
	}
	StrBuf b = {0};
	ec_bits(e, &b, a, dtype_bits((DType)to.dt) == 64);
	char *bits = sb_take(&b);
	ec_from_bits(e, &b, (DType)to.dt, bits);
	ec_decl(e, r, "%s", b.s);
	free(bits);
	sb_free(&b);
}

static void emit_ptr_op(Ec *e, const TpOp *op)
{
	TpVal r = op->results[0], a = op->operands[0];
	char ty[48];
	ec_type_str(ec_ty(e, r), ty, sizeof ty);
	switch (op->kind) {
	case TP_PTR_ADD: {
		/* wide_addr (layout/ptr_iters.c): one mad.wide.s32 of the 32-bit
		 * offset, which NVVM cannot split into a 64-bit sext(o) * size
		 * hoisted out of a loop and held per element */
		TpVal o = op->operands[1];
		Type rt = ec_ty(e, r);
		if (e->f->wide_addr && !rt.addrspace && dtype_bits(dt_of(e, o)) == 32) {
			ec_line(e, "%s%sv%u; asm(\"mad.wide.%s32 %%0, %%1, %d, %%2;\" : \"=l\"(v%u) : \"r\"(v%u), \"l\"(v%u));",
			        ty, ty[strlen(ty) - 1] == '*' ? "" : " ", r, dtype_is_signed(dt_of(e, o)) ? "s" : "u",
			        dtype_bytes((DType)rt.elem), r, o, a);
			break;
		}
		ec_decl(e, r, "v%u + v%u", a, o);
		break;
	}
	case TP_PTR_TO_INT: ec_decl(e, r, "(%s)(uint64_t)v%u", ty, a); break;
	default: {
		DType d = dt_of(e, a);
		bool sext = dtype_is_signed(d) && d != DT_I64;
		ec_decl(e, r, "(%s)(uint64_t)%sv%u", ty, sext ? "(int64_t)" : "", a);
	}
	}
}

static void emit_special(Ec *e, const TpOp *op)
{
	static const char axes[] = "xyz";
	TpVal r = op->results[0];
	int axis = op->attr.axis >= 0 && op->attr.axis < 3 ? op->attr.axis : 0;
	switch (op->kind) {
	case TP_LANE_ID: ec_decl(e, r, "(int32_t)(threadIdx.x & 31)"); break;
	case TP_WARP_ID: ec_decl(e, r, "(int32_t)(threadIdx.x >> 5)"); break;
	case TP_PROGRAM_ID: ec_decl(e, r, "(int32_t)blockIdx.%c", axes[axis]); break;
	case TP_NUM_PROGRAMS: ec_decl(e, r, "(int32_t)gridDim.%c", axes[axis]); break;
	default: break;
	}
}

static void emit_param(Ec *e, const TpOp *op)
{
	StrBuf b = {0};
	ec_param_name(e->f, (int)op->attr.i, &b);
	ec_decl(e, op->results[0], "%s", b.s);
	sb_free(&b);
}

bool ec_arith(Ec *e, const TpOp *op)
{
	switch ((TpOpKind)op->kind) {
	case TP_CONST: emit_const(e, op); return true;
	case TP_PARAM: emit_param(e, op); return true;
	case TP_LANE_ID:
	case TP_WARP_ID:
	case TP_PROGRAM_ID:
	case TP_NUM_PROGRAMS: emit_special(e, op); return true;
	case TP_ADD:
	case TP_SUB:
	case TP_MUL:
	case TP_DIV:
	case TP_REM:
	case TP_AND:
	case TP_OR:
	case TP_XOR:
	case TP_SHL:
	case TP_SHR:
	case TP_MIN:
	case TP_MAX:
	case TP_UMULHI: emit_binary(e, op); return true;
	case TP_CMP: emit_cmp(e, op); return true;
	case TP_NEG:
	case TP_NOT: emit_unary(e, op); return true;
	case TP_MATH: emit_math(e, op); return true;
	case TP_FMA: emit_fma(e, op); return true;
	case TP_SELECT:
		ec_decl(e, op->results[0], "v%u ? v%u : v%u", op->operands[0], op->operands[1],
		        op->operands[2]);
		return true;
	case TP_CAST: emit_cast(e, op); return true;
	case TP_BITCAST: emit_bitcast(e, op); return true;
	case TP_UNIFORM: ec_decl(e, op->results[0], "v%u", op->operands[0]); return true; /* every thread holds it */
	case TP_PTR_ADD:
	case TP_PTR_TO_INT:
	case TP_INT_TO_PTR: emit_ptr_op(e, op); return true;
	default: return false;
	}
}

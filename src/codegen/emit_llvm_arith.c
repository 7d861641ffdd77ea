/* emit_llvm_arith.c: elementwise ops, comparisons and math for the CPU
 * emitter. Every function here works on scalars and <T x ty> vectors alike
 * (constants are splatted to the shape of the operand).
 *
 * Float formats and casts are emit_llvm_cast.c; emit_llvm_arith.h is what
 * the two share.
 */
#include "codegen/emit_llvm_arith.h"

#include <llvm/Config/llvm-config.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char PASS[] = "emit_llvm";

/* ---- binary ops ------------------------------------------------------------------ */

static LLVMValueRef safe_divisor(Em *e, LLVMValueRef b)
{
	LLVMValueRef z = LLVMConstNull(LLVMTypeOf(b));
	LLVMValueRef isz = LLVMBuildICmp(e->B, LLVMIntEQ, b, z, "");
	return LLVMBuildSelect(e->B, isz, LLVMConstAllOnes(LLVMTypeOf(b)), b, "");
}

/* Vector division of 8-32 bit integers in double precision: x86 has no vector
 * integer division, so LLVM would split the vector into one idiv per lane
 * (slow to run and, for wide tiles, slow to compile). The quotient is exact:
 * both operands are integers below 2^32, and a correctly rounded a/b lands on
 * the wrong side of an integer only if |a| >= 2^53. Truncation toward zero
 * is C's (and Triton's) rounding; INT_MIN / -1 gives 2^31, which wraps to
 * INT_MIN through the 64-bit conversion. b is already safe (non-zero). */
static LLVMValueRef vec_div_f64(Em *e, bool rem, bool sgn, LLVMValueRef a, LLVMValueRef b)
{
	LLVMBuilderRef B = e->B;
	LLVMTypeRef t = LLVMTypeOf(a), dt = shaped(e, e->t_f64, a), wt = shaped(e, e->t_i64, a);
	LLVMValueRef fa = sgn ? LLVMBuildSIToFP(B, a, dt, "") : LLVMBuildUIToFP(B, a, dt, "");
	LLVMValueRef fb = sgn ? LLVMBuildSIToFP(B, b, dt, "") : LLVMBuildUIToFP(B, b, dt, "");
	LLVMValueRef q = LLVMBuildTrunc(B, LLVMBuildFPToSI(B, LLVMBuildFDiv(B, fa, fb, ""), wt, ""), t, "");
	return rem ? LLVMBuildSub(B, a, LLVMBuildMul(B, q, b, ""), "") : q;
}

/* Integer division without x86 traps: x/0 gives x/-1 (GPUs give an
 * unspecified value, never a trap) and INT_MIN/-1 wraps. Vectors of 8-32 bit
 * integers by a varying divisor divide in double precision (vec_div_f64).
 * Scalar signed 8-32 bit
 * division runs in 64 bits, where INT_MIN/-1 cannot overflow and the
 * truncation wraps as wanted; only 64-bit division needs a select per op
 * (hundreds of cmovs between idivs, both touching EFLAGS, sent LLVM's list
 * scheduler into a 25 s search on attorch's conv kernel). */
static LLVMValueRef int_div(Em *e, bool rem, bool sgn, LLVMValueRef a, LLVMValueRef b)
{
	LLVMBuilderRef B = e->B;
	b = safe_divisor(e, b);
	/* a constant divisor stays integer: LLVM multiplies by its reciprocal */
	if (vec_of(a) && !LLVMIsConstant(b) && LLVMGetIntTypeWidth(LLVMGetElementType(LLVMTypeOf(a))) <= 32)
		return vec_div_f64(e, rem, sgn, a, b);
	if (!sgn)
		return rem ? LLVMBuildURem(B, a, b, "") : LLVMBuildUDiv(B, a, b, "");
	LLVMTypeRef t = LLVMTypeOf(a);
	LLVMTypeRef st = vec_of(a) ? LLVMGetElementType(t) : t;
	if (LLVMGetIntTypeWidth(st) < 64) {
		LLVMTypeRef wt = shaped(e, e->t_i64, a);
		LLVMValueRef wa = LLVMBuildSExt(B, a, wt, ""), wb = LLVMBuildSExt(B, b, wt, "");
		LLVMValueRef w = rem ? LLVMBuildSRem(B, wa, wb, "") : LLVMBuildSDiv(B, wa, wb, "");
		return LLVMBuildTrunc(B, w, t, "");
	}
	LLVMValueRef m1 = LLVMBuildICmp(B, LLVMIntEQ, b, LLVMConstAllOnes(LLVMTypeOf(b)), "");
	LLVMValueRef one = LLVMConstInt(st, 1, 0);
	LLVMValueRef bs = LLVMBuildSelect(B, m1, vec_of(b) ? em_splat(e, one) : one, b, "");
	if (rem) /* x % 1 is already the 0 that x % -1 wants */
		return LLVMBuildSRem(B, a, bs, "");
	LLVMValueRef q = LLVMBuildSDiv(B, a, bs, "");
	return LLVMBuildSelect(B, m1, LLVMBuildNeg(B, a, ""), q, "");
}

static LLVMValueRef fminmax(Em *e, bool max, bool nanprop, LLVMValueRef a, LLVMValueRef b)
{
	LLVMTypeRef t = LLVMTypeOf(a);
	LLVMValueRef ab[2] = {a, b};
	LLVMValueRef r = em_intrinsic(e, max ? "llvm.maxnum" : "llvm.minnum", &t, 1, ab, 2);
	if (nanprop) {
		/* Triton's PropagateNan.ALL is arith.minimumf / maximumf (LLVM's
		 * minimum / maximum, min.NaN on the GPU): NaN wins, and -0.0 is
		 * below +0.0; minnum may give either zero. Equal operands merge
		 * their bits: OR for the minimum (-0.0 of +-0.0), AND for the maximum. */
		LLVMBuilderRef B = e->B;
		LLVMTypeRef s = vec_of(a) ? LLVMGetElementType(t) : t;
		unsigned w = LLVMGetTypeKind(s) == LLVMDoubleTypeKind ? 64
		             : LLVMGetTypeKind(s) == LLVMFloatTypeKind ? 32 : 16;
		LLVMTypeRef it = shaped(e, LLVMIntTypeInContext(e->C, w), a);
		LLVMValueRef ai = LLVMBuildBitCast(B, a, it, ""), bi = LLVMBuildBitCast(B, b, it, "");
		LLVMValueRef zi = max ? LLVMBuildAnd(B, ai, bi, "") : LLVMBuildOr(B, ai, bi, "");
		LLVMValueRef eq = LLVMBuildFCmp(B, LLVMRealOEQ, a, b, "");
		r = LLVMBuildSelect(B, eq, LLVMBuildBitCast(B, zi, t, ""), r, "");
		LLVMValueRef un = LLVMBuildFCmp(B, LLVMRealUNO, a, b, "");
		r = LLVMBuildSelect(B, un, LLVMBuildFAdd(B, a, b, ""), r, "");
	}
	return r;
}

static LLVMValueRef umulhi(Em *e, LLVMValueRef a, LLVMValueRef b)
{
	LLVMTypeRef t = LLVMTypeOf(a);
	LLVMTypeRef s = vec_of(a) ? LLVMGetElementType(t) : t;
	unsigned w = LLVMGetIntTypeWidth(s);
	LLVMTypeRef wt = shaped(e, LLVMIntTypeInContext(e->C, 2 * w), a);
	LLVMValueRef p = LLVMBuildMul(e->B, LLVMBuildZExt(e->B, a, wt, ""),
	                              LLVMBuildZExt(e->B, b, wt, ""), "");
	p = LLVMBuildLShr(e->B, p, em_const_int(e, LLVMIntTypeInContext(e->C, 2 * w), w, vec_of(a)),
	                  "");
	return LLVMBuildTrunc(e->B, p, t, "");
}

/* Shifts as PTX defines them, the amount read as unsigned and clamped to the
 * width: shifting left or logically right by the width or more gives 0, an
 * arithmetic right shift the sign. (LLVM makes such a shift poison: a uint8
 * tile shifted by 8 gave different garbage from run to run.) */
LLVMValueRef em_shift(Em *e, bool left, bool sgn, LLVMValueRef a, LLVMValueRef b)
{
	LLVMBuilderRef B = e->B;
	LLVMTypeRef t = LLVMTypeOf(a);
	LLVMTypeRef st = vec_of(a) ? LLVMGetElementType(t) : t;
	unsigned w = LLVMGetIntTypeWidth(st);
	LLVMValueRef in_range = LLVMBuildICmp(B, LLVMIntULT, b, ci(e, st, w, b), "");
	if (!left && sgn)
		return LLVMBuildAShr(B, a, LLVMBuildSelect(B, in_range, b, ci(e, st, w - 1, b), ""), "");
	LLVMValueRef r = left ? LLVMBuildShl(B, a, b, "") : LLVMBuildLShr(B, a, b, "");
	return LLVMBuildSelect(B, in_range, r, LLVMConstNull(t), "");
}

static LLVMValueRef binop(Em *e, int k, DType d, LLVMValueRef a, LLVMValueRef b, int flags)
{
	LLVMBuilderRef B = e->B;
	if (dtype_is_float(d)) {
		a = em_fin(e, a, d);
		b = em_fin(e, b, d);
		LLVMValueRef r;
		switch (k) {
		case TP_ADD: r = LLVMBuildFAdd(B, a, b, ""); break;
		case TP_SUB: r = LLVMBuildFSub(B, a, b, ""); break;
		case TP_MUL: r = LLVMBuildFMul(B, a, b, ""); break;
		case TP_DIV: r = LLVMBuildFDiv(B, a, b, ""); break;
		case TP_REM: r = LLVMBuildFRem(B, a, b, ""); break;
		case TP_MIN: r = fminmax(e, false, flags & TIR_PROPAGATE_NAN, a, b); break;
		case TP_MAX: r = fminmax(e, true, flags & TIR_PROPAGATE_NAN, a, b); break;
		default: ice(PASS, "%s on float", tp_op_name((TpOpKind)k));
		}
		return em_fout(e, r, d);
	}
	bool sgn = d != DT_I1 && dtype_is_signed(d);
	switch (k) {
	case TP_ADD: return LLVMBuildAdd(B, a, b, "");
	case TP_SUB: return LLVMBuildSub(B, a, b, "");
	case TP_MUL: return LLVMBuildMul(B, a, b, "");
	case TP_DIV: return int_div(e, false, sgn, a, b);
	case TP_REM: return int_div(e, true, sgn, a, b);
	case TP_AND: return LLVMBuildAnd(B, a, b, "");
	case TP_OR: return LLVMBuildOr(B, a, b, "");
	case TP_XOR: return LLVMBuildXor(B, a, b, "");
	case TP_SHL:
	case TP_SHR: return em_shift(e, k == TP_SHL, sgn, a, b);
	case TP_MIN:
	case TP_MAX: {
		LLVMIntPredicate p = k == TP_MIN ? (sgn ? LLVMIntSLT : LLVMIntULT)
		                                 : (sgn ? LLVMIntSGT : LLVMIntUGT);
		return LLVMBuildSelect(B, LLVMBuildICmp(B, p, a, b, ""), a, b, "");
	}
	case TP_UMULHI: return umulhi(e, a, b);
	default: ice(PASS, "bad binary op %s", tp_op_name((TpOpKind)k));
	}
}

/* x / b, x varying and b uniform, for Triton's f32 `/` (div.full.f32 on the
 * GPU, 2 ulp): one scalar reciprocal and multiplies, as softmax divides a
 * whole row by its sum (a vector division per register cost 10% of it). b is
 * scaled by k, a power of two, into the range where 1/b' is a normal float,
 * and the product scaled back: x * (1/(b k)) * k, within 2 ulp of x / b for
 * every b (0, subnormal, huge, inf, NaN). */
static LLVMValueRef div_by_uniform(Em *e, DType d, LLVMValueRef x, LLVMValueRef b)
{
	LLVMBuilderRef B = e->B;
	x = em_fin(e, x, d);
	b = em_fin(e, b, d);
	LLVMValueRef ab = em_intrinsic(e, "llvm.fabs", &e->t_f32, 1, &b, 1);
	LLVMValueRef big = LLVMBuildFCmp(B, LLVMRealOGT, ab, LLVMConstReal(e->t_f32, 0x1p126), "");
	LLVMValueRef small = LLVMBuildFCmp(B, LLVMRealOLT, ab, LLVMConstReal(e->t_f32, 0x1p-126), "");
	LLVMValueRef k = LLVMBuildSelect(B, big, LLVMConstReal(e->t_f32, 0x1p-64),
	                                 LLVMBuildSelect(B, small, LLVMConstReal(e->t_f32, 0x1p64),
	                                                 LLVMConstReal(e->t_f32, 1.0), ""),
	                                 "");
	LLVMValueRef r =
	        LLVMBuildFDiv(B, LLVMConstReal(e->t_f32, 1.0), LLVMBuildFMul(B, b, k, ""), "");
	LLVMValueRef y = LLVMBuildFMul(B, LLVMBuildFMul(B, x, em_splat(e, r), ""), em_splat(e, k), "");
	return em_fout(e, y, d);
}

static LLVMValueRef cmp(Em *e, int pred, DType d, LLVMValueRef a, LLVMValueRef b)
{
	if (dtype_is_float(d)) {
		static const LLVMRealPredicate fp[] = {LLVMRealOEQ, LLVMRealUNE, LLVMRealOLT,
		                                       LLVMRealOLE, LLVMRealOGT, LLVMRealOGE};
		return LLVMBuildFCmp(e->B, fp[pred], em_fin(e, a, d), em_fin(e, b, d), "");
	}
	bool sgn = d != DT_I1 && d != DT_PTR && dtype_is_signed(d);
	static const LLVMIntPredicate sp[] = {LLVMIntEQ,  LLVMIntNE,  LLVMIntSLT,
	                                      LLVMIntSLE, LLVMIntSGT, LLVMIntSGE};
	static const LLVMIntPredicate up[] = {LLVMIntEQ,  LLVMIntNE,  LLVMIntULT,
	                                      LLVMIntULE, LLVMIntUGT, LLVMIntUGE};
	return LLVMBuildICmp(e->B, sgn ? sp[pred] : up[pred], a, b, "");
}

/* ---- math ------------------------------------------------------------------------ */

static LLVMValueRef scalarized_libm(Em *e, const char *name, LLVMTypeRef t, LLVMValueRef *a, int n)
{
	LLVMTypeRef ps[2] = {t, t};
	LLVMValueRef r = LLVMGetUndef(em_vec(e, t));
	for (int i = 0; i < e->T; i++) {
		LLVMValueRef ix = LLVMConstInt(e->t_i32, (unsigned long long)i, 0), s[2];
		for (int j = 0; j < n; j++)
			s[j] = LLVMBuildExtractElement(e->B, a[j], ix, "");
		r = LLVMBuildInsertElement(e->B, r, em_call(e, name, t, ps, n, s), ix, "");
	}
	return r;
}

/* What a vector math helper computes from its parameters (which == the
 * helper's variant: a libm name, or exp vs exp2). */
typedef LLVMValueRef (*HelperBody)(Em *e, LLVMValueRef *params, int n, const void *which);

/* A call of the internal noinline function NAME(a[0..n)) whose body is built
 * once per module by BODY. Vector math goes through such helpers because the
 * body is long (a polynomial, or one libm call per lane): inlined at every
 * use it made a softmax compile 2x slower and a log-heavy kernel at 256 lanes
 * take minutes in instruction selection. pure: no memory access (not true of
 * libm, which may set errno). */
static LLVMValueRef call_helper(Em *e, const char *name, LLVMValueRef *a, int n, bool pure,
                                HelperBody body, const void *which)
{
	LLVMTypeRef vt = LLVMTypeOf(a[0]), ps[2] = {vt, vt};
	LLVMTypeRef fty = LLVMFunctionType(vt, ps, (unsigned)n, 0);
	LLVMValueRef fn = LLVMGetNamedFunction(e->M, name);
	if (!fn) {
		fn = LLVMAddFunction(e->M, name, fty);
		LLVMSetLinkage(fn, LLVMInternalLinkage);
		/* LLVM 16 spells readnone as memory(none): the "memory" enum
		 * attribute with the value 0 */
		static const char *const attrs[] = {"noinline", "nounwind", "willreturn",
#if LLVM_VERSION_MAJOR >= 16
		                                    "memory",
#else
		                                    "readnone",
#endif
		};
		for (size_t i = 0; i < COUNTOF(attrs) - !pure * 2; i++) {
			unsigned k = LLVMGetEnumAttributeKindForName(attrs[i], strlen(attrs[i]));
			LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
			                        LLVMCreateEnumAttribute(e->C, k, 0));
		}
		LLVMBuilderRef saved = e->B;
		e->B = LLVMCreateBuilderInContext(e->C);
		LLVMPositionBuilderAtEnd(e->B, LLVMAppendBasicBlockInContext(e->C, fn, "entry"));
		LLVMValueRef params[2] = {LLVMGetParam(fn, 0), n > 1 ? LLVMGetParam(fn, 1) : NULL};
		LLVMBuildRet(e->B, body(e, params, n, which));
		LLVMDisposeBuilder(e->B);
		e->B = saved;
	}
	return LLVMBuildCall2(e->B, fty, fn, a, (unsigned)n, "");
}

static LLVMValueRef libm_body(Em *e, LLVMValueRef *params, int n, const void *which)
{
	LLVMTypeRef t = LLVMGetElementType(LLVMTypeOf(params[0]));
	return scalarized_libm(e, which, t, params, n);
}

/* libm function per lane; on vectors through a helper */
static LLVMValueRef call_libm(Em *e, const char *base, bool dbl, LLVMValueRef *a, int n)
{
	char name[32], hname[48];
	snprintf(name, sizeof name, dbl ? "%s" : "%sf", base);
	LLVMTypeRef t = dbl ? e->t_f64 : e->t_f32;
	LLVMTypeRef ps[2] = {t, t};
	if (!vec_of(a[0]) && (n < 2 || !vec_of(a[1])))
		return em_call(e, name, t, ps, n, a);
	for (int j = 0; j < n; j++)
		a[j] = em_splat(e, a[j]);
	snprintf(hname, sizeof hname, "tile.v.%s", name);
	return call_helper(e, hname, a, n, false, libm_body, name);
}

static LLVMValueRef int_math(Em *e, int fn, LLVMValueRef x, DType d)
{
	LLVMTypeRef t = LLVMTypeOf(x);
	switch (fn) {
	case MATH_ABS: {
		if (!dtype_is_signed(d))
			return x;
		LLVMValueRef neg = LLVMBuildICmp(e->B, LLVMIntSLT, x, LLVMConstNull(t), "");
		return LLVMBuildSelect(e->B, neg, LLVMBuildNeg(e->B, x, ""), x, "");
	}
	case MATH_POPC: return em_intrinsic(e, "llvm.ctpop", &t, 1, &x, 1);
	case MATH_CLZ: {
		LLVMValueRef a[2] = {x, LLVMConstInt(e->t_i1, 0, 0)};
		return em_intrinsic(e, "llvm.ctlz", &t, 1, a, 2);
	}
	default: ice(PASS, "math %s on an integer", math_fn_name((MathFn)fn));
	}
}

static const char *const intr_name[MATH_COUNT] = {
        [MATH_EXP] = "llvm.exp",     [MATH_EXP2] = "llvm.exp2",   [MATH_LOG] = "llvm.log",
        [MATH_LOG2] = "llvm.log2",   [MATH_SQRT] = "llvm.sqrt",   [MATH_SIN] = "llvm.sin",
        [MATH_COS] = "llvm.cos",     [MATH_FLOOR] = "llvm.floor", [MATH_CEIL] = "llvm.ceil",
        [MATH_ABS] = "llvm.fabs",    [MATH_POW] = "llvm.pow",     [MATH_ROUND] = "llvm.round",
        [MATH_TRUNC] = "llvm.trunc", [MATH_RINT] = "llvm.rint",   [MATH_COPYSIGN] = "llvm.copysign",
};
static const char *const libm_name[MATH_COUNT] = {
        [MATH_TAN] = "tan",     [MATH_TANH] = "tanh",   [MATH_ERF] = "erf",
        [MATH_ATAN2] = "atan2", [MATH_LOG1P] = "log1p", [MATH_EXPM1] = "expm1",
        [MATH_ASIN] = "asin",   [MATH_ACOS] = "acos",   [MATH_ATAN] = "atan",
        [MATH_SINH] = "sinh",   [MATH_COSH] = "cosh",   [MATH_CBRT] = "cbrt",
        [MATH_FDIM] = "fdim",   [MATH_HYPOT] = "hypot", [MATH_LOG10] = "log10",
        [MATH_ACOSH] = "acosh", [MATH_ASINH] = "asinh", [MATH_ATANH] = "atanh",
        [MATH_ERFC] = "erfc",   [MATH_LGAMMA] = "lgamma", [MATH_TGAMMA] = "tgamma",
        [MATH_LOGB] = "logb",   [MATH_J0] = "j0",       [MATH_J1] = "j1",
        [MATH_Y0] = "y0",       [MATH_Y1] = "y1",       [MATH_NEXTAFTER] = "nextafter",
        [MATH_REMAINDER] = "remainder",
};

/* Vector f32 exp/exp2 inline (Cephes expf polynomial, about 1 ulp): LLVM 14
 * scalarizes llvm.exp on vectors into one libm call per lane, which made
 * softmax compile 10x slower and run slower. base2: exp2 instead of exp.
 * Written for few instructions, since softmax-like kernels are bound by it:
 * - the clamp keeps NaN (select of an ordered compare), and the clamped range
 *   makes overflow (inf) and underflow (0, through the subnormals by a
 *   two-step scaling) come out of the arithmetic itself, with no fix-up;
 * - round-to-integer by adding 1.5 * 2^23: the sum's low mantissa bits are
 *   the integer, so no fptosi (poison on NaN in LLVM IR) is needed.
 * Kept at Cephes's accuracy (Cody-Waite reduction) rather than Triton's GPU
 * ex2.approx(x * log2e), which loses bits for large |x|: it costs 2 FMAs. */
static LLVMValueRef vexp_f32(Em *e, LLVMValueRef x, bool base2)
{
	LLVMBuilderRef B = e->B;
	LLVMTypeRef ft = LLVMTypeOf(x), it = em_vec(e, e->t_i32);
#define CF(v) em_const_f(e, e->t_f32, (v), true)
#define CI(v) em_const_int(e, e->t_i32, (v), true)
	/* a*b + c, fused where the CPU has FMA */
#define FMA(a, b, c) (fma3[0] = (a), fma3[1] = (b), fma3[2] = (c), \
		      em_intrinsic(e, "llvm.fmuladd", &ft, 1, fma3, 3))
	LLVMValueRef fma3[3];
	/* exp(88.8) and 2^128 overflow to inf; exp(-104) and 2^-151 round to 0 */
	LLVMValueRef lo = base2 ? CF(-151.0) : CF(-104.0), hi = base2 ? CF(128.0) : CF(88.8);
	LLVMValueRef xc = LLVMBuildSelect(B, LLVMBuildFCmp(B, LLVMRealOLT, x, lo, ""), lo, x, "");
	xc = LLVMBuildSelect(B, LLVMBuildFCmp(B, LLVMRealOGT, xc, hi, ""), hi, xc, "");
	LLVMValueRef q = base2 ? xc : LLVMBuildFMul(B, xc, CF(1.44269504088896341), "");
	LLVMValueRef magic = CF(12582912.0); /* 1.5 * 2^23: |q| < 2^22 rounds to its unit bit */
	LLVMValueRef t = LLVMBuildFAdd(B, q, magic, "");
	LLVMValueRef n = LLVMBuildFSub(B, t, magic, "");
	LLVMValueRef ni = LLVMBuildSub(B, LLVMBuildBitCast(B, t, it, ""), CI(0x4B400000), "");
	LLVMValueRef r;
	if (base2) {
		r = LLVMBuildFMul(B, LLVMBuildFSub(B, xc, n, ""), CF(0.693147180559945309), "");
	} else {
		r = FMA(n, CF(-0.693359375), xc); /* exact: the constant has 9 bits */
		r = FMA(n, CF(2.12194440e-4), r);
	}
	/* e^r = 1 + r (1 + r P(r)), P Cephes's degree-5 polynomial, by Horner */
	static const double c[] = {1.9875691500E-4, 1.3981999507E-3, 8.3334519073E-3,
	                           4.1665795894E-2, 1.6666665459E-1, 5.0000001201E-1};
	LLVMValueRef p = CF(c[0]);
	for (int i = 1; i < 6; i++)
		p = FMA(p, r, CF(c[i]));
	p = FMA(FMA(p, r, CF(1.0)), r, CF(1.0));
	/* p * 2^n as p * 2^n1 * 2^n2, each factor a normal float, so that a
	 * subnormal result is rounded once */
	LLVMValueRef n1 = LLVMBuildAShr(B, ni, CI(1), ""), n2 = LLVMBuildSub(B, ni, n1, "");
	LLVMValueRef s1 = LLVMBuildBitCast(
	        B, LLVMBuildShl(B, LLVMBuildAdd(B, n1, CI(127), ""), CI(23), ""), ft, "");
	LLVMValueRef s2 = LLVMBuildBitCast(
	        B, LLVMBuildShl(B, LLVMBuildAdd(B, n2, CI(127), ""), CI(23), ""), ft, "");
#undef CF
#undef CI
#undef FMA
	return LLVMBuildFMul(B, LLVMBuildFMul(B, p, s1, ""), s2, "");
}

static LLVMValueRef vexp_body(Em *e, LLVMValueRef *params, int n, const void *which)
{
	(void)n;
	return vexp_f32(e, params[0], which != NULL);
}

/* Vector f32 log/log2 inline (Cephes logf polynomial, about 1 ulp), for the
 * same reason as vexp_f32: LLVM 14 scalarizes llvm.log on vectors. The
 * argument is split as 2^k * m with m in [sqrt(1/2), sqrt(2)); subnormals are
 * scaled by 2^23 first. log(0) = -inf, log(x < 0) = NaN, log(inf) = inf. */
static LLVMValueRef vlog_f32(Em *e, LLVMValueRef x, bool base2)
{
	LLVMBuilderRef B = e->B;
	LLVMTypeRef ft = LLVMTypeOf(x), it = em_vec(e, e->t_i32);
#define CF(v) em_const_f(e, e->t_f32, (v), true)
#define CI(v) em_const_int(e, e->t_i32, (v), true)
	LLVMValueRef sub = LLVMBuildFCmp(B, LLVMRealOLT, x, CF(1.17549435e-38), "");
	LLVMValueRef xs = LLVMBuildSelect(B, sub, LLVMBuildFMul(B, x, CF(8388608.0), ""), x, "");
	LLVMValueRef bits = LLVMBuildBitCast(B, xs, it, "");
	LLVMValueRef k = LLVMBuildAnd(B, LLVMBuildLShr(B, bits, CI(23), ""), CI(0xff), "");
	k = LLVMBuildSub(B, k, LLVMBuildSelect(B, sub, CI(126 + 23), CI(126), ""), "");
	LLVMValueRef m = LLVMBuildBitCast(
	        B, LLVMBuildOr(B, LLVMBuildAnd(B, bits, CI(0x007fffff), ""), CI(0x3f000000), ""),
	        ft, "");
	LLVMValueRef small = LLVMBuildFCmp(B, LLVMRealOLT, m, CF(0.707106781186547524), "");
	k = LLVMBuildSub(B, k, LLVMBuildZExt(B, small, it, ""), "");
	m = LLVMBuildFSub(B, LLVMBuildSelect(B, small, LLVMBuildFAdd(B, m, m, ""), m, ""), CF(1.0),
	                  "");
	static const double c[] = {7.0376836292E-2,  -1.1514610310E-1, 1.1676998740E-1,
	                           -1.2420140846E-1, 1.4249322787E-1,  -1.6668057665E-1,
	                           2.0000714765E-1,  -2.4999993993E-1, 3.3333331174E-1};
	LLVMValueRef p = CF(c[0]);
	for (size_t i = 1; i < COUNTOF(c); i++)
		p = LLVMBuildFAdd(B, LLVMBuildFMul(B, p, m, ""), CF(c[i]), "");
	LLVMValueRef z = LLVMBuildFMul(B, m, m, "");
	LLVMValueRef y = LLVMBuildFMul(B, LLVMBuildFMul(B, p, m, ""), z, "");
	LLVMValueRef fk = LLVMBuildSIToFP(B, k, ft, "");
	LLVMValueRef r;
	if (base2) {
		/* log2(1+m) = (m + y) * log2(e), the product split as
		 * (m + y) + (m + y) * (log2(e) - 1) to keep the low bits */
		y = LLVMBuildFSub(B, y, LLVMBuildFMul(B, CF(0.5), z, ""), "");
		LLVMValueRef t = LLVMBuildFMul(B, y, CF(0.44269504088896340736), "");
		t = LLVMBuildFAdd(B, t, LLVMBuildFMul(B, m, CF(0.44269504088896340736), ""), "");
		t = LLVMBuildFAdd(B, t, y, "");
		t = LLVMBuildFAdd(B, t, m, "");
		r = LLVMBuildFAdd(B, t, fk, "");
	} else {
		y = LLVMBuildFAdd(B, y, LLVMBuildFMul(B, fk, CF(-2.12194440e-4), ""), "");
		y = LLVMBuildFSub(B, y, LLVMBuildFMul(B, CF(0.5), z, ""), "");
		r = LLVMBuildFAdd(B, m, y, "");
		r = LLVMBuildFAdd(B, r, LLVMBuildFMul(B, fk, CF(0.693359375), ""), "");
	}
	LLVMValueRef inf = LLVMBuildFCmp(B, LLVMRealOEQ, x, CF(INFINITY), "");
	r = LLVMBuildSelect(B, inf, x, r, "");
	LLVMValueRef zero = LLVMBuildFCmp(B, LLVMRealOEQ, x, CF(0.0), "");
	r = LLVMBuildSelect(B, zero, CF(-INFINITY), r, "");
	LLVMValueRef bad = LLVMBuildFCmp(B, LLVMRealULT, x, CF(0.0), "");
#undef CF
#undef CI
	return LLVMBuildSelect(B, bad, em_const_f(e, e->t_f32, NAN, true), r, "");
}

static LLVMValueRef vlog_body(Em *e, LLVMValueRef *params, int n, const void *which)
{
	(void)n;
	return vlog_f32(e, params[0], which != NULL);
}

/* f: operands in the compute domain; returns a compute-domain value or an i1 */
static LLVMValueRef float_math(Em *e, int fn, LLVMValueRef *a, int n, bool dbl)
{
	LLVMBuilderRef B = e->B;
	LLVMTypeRef t = LLVMTypeOf(a[0]);
	if (n == 2 && vec_of(a[0]) != vec_of(a[1])) {
		a[0] = em_splat(e, a[0]);
		a[1] = em_splat(e, a[1]);
		t = LLVMTypeOf(a[0]);
	}
	if (vec_of(a[0])) {
		/* intrinsics LLVM would expand into a libm call per lane at every use */
		static const char *const helper[MATH_COUNT] = {
		        [MATH_EXP] = "exp", [MATH_EXP2] = "exp2", [MATH_LOG] = "log",
		        [MATH_LOG2] = "log2", [MATH_SIN] = "sin", [MATH_COS] = "cos",
		        [MATH_POW] = "pow"};
		const void *two = "2";
		if (!dbl && (fn == MATH_EXP || fn == MATH_EXP2))
			return call_helper(e, fn == MATH_EXP2 ? "tile.vexp2.f32" : "tile.vexp.f32",
			                   a, 1, true, vexp_body, fn == MATH_EXP2 ? two : NULL);
		if (!dbl && (fn == MATH_LOG || fn == MATH_LOG2))
			return call_helper(e, fn == MATH_LOG2 ? "tile.vlog2.f32" : "tile.vlog.f32",
			                   a, 1, true, vlog_body, fn == MATH_LOG2 ? two : NULL);
		if (helper[fn])
			return call_libm(e, helper[fn], dbl, a, n);
	}
	if (intr_name[fn])
		return em_intrinsic(e, intr_name[fn], &t, 1, a, n);
	if (libm_name[fn])
		return call_libm(e, libm_name[fn], dbl, a, n);
	switch (fn) {
	case MATH_RSQRT: {
		LLVMValueRef s = em_intrinsic(e, "llvm.sqrt", &t, 1, a, 1);
		return LLVMBuildFDiv(B, cf(e, dbl ? e->t_f64 : e->t_f32, 1.0, a[0]), s, "");
	}
	case MATH_FMOD: return LLVMBuildFRem(B, a[0], a[1], "");
	case MATH_ISNAN: return LLVMBuildFCmp(B, LLVMRealUNO, a[0], a[0], "");
	case MATH_ISINF: {
		LLVMValueRef f = em_intrinsic(e, "llvm.fabs", &t, 1, a, 1);
		return LLVMBuildFCmp(B, LLVMRealOEQ, f,
		                     cf(e, dbl ? e->t_f64 : e->t_f32, INFINITY, a[0]), "");
	}
	case MATH_SIGNBIT: {
		LLVMTypeRef it = shaped(e, dbl ? e->t_i64 : e->t_i32, a[0]);
		LLVMValueRef b = LLVMBuildBitCast(B, a[0], it, "");
		return LLVMBuildICmp(B, LLVMIntSLT, b, LLVMConstNull(it), "");
	}
	default: ice(PASS, "math %s not supported on the cpu", math_fn_name((MathFn)fn));
	}
}

static void emit_math(Em *e, const TpOp *op)
{
	TpVal r = op->results[0];
	DType d = (DType)tp_type(e->f, op->operands[0]).dt;
	DType rd = (DType)tp_type(e->f, r).dt;
	LLVMValueRef a[2] = {0};
	int n = op->nin < 2 ? op->nin : 2;
	for (int i = 0; i < n; i++)
		a[i] = em_get(e, op->operands[i]);
	LLVMValueRef v;
	if (dtype_is_int(d)) {
		v = int_math(e, op->attr.math, a[0], d);
		if (rd != d)
			v = em_cast(e, v, d, rd, false, em_scalar_type(e, tp_type(e->f, r)));
	} else {
		bool dbl = d == DT_F64;
		for (int i = 0; i < n; i++)
			a[i] = dbl ? a[i] : em_to_f32(e, a[i], d);
		v = float_math(e, op->attr.math, a, n, dbl);
		LLVMTypeRef vt = LLVMTypeOf(v);
		LLVMTypeRef s = vec_of(v) ? LLVMGetElementType(vt) : vt;
		if (s == e->t_i1) {
			if (rd != DT_I1)
				v = em_cast(e, v, DT_I1, rd, false,
				            em_scalar_type(e, tp_type(e->f, r)));
		} else {
			v = dbl ? v : em_from_f32(e, v, d, false);
			if (rd != d)
				v = em_cast(e, v, d, rd, false,
				            em_scalar_type(e, tp_type(e->f, r)));
		}
	}
	em_set(e, r, v);
}

/* fma of f16 or bf16, rounded once as the GPU's fma.rn.f16 / .bf16 round it
 * (an f32 fma rounds twice: bf16 3 * 119 + 2^-100 gave 356, not 358; f16
 * 1.25 * 1.001953125 + 2^-24 gave 1.252, not 1.253). a*b is exact in f64
 * (at most 22 bits, no underflow); the f64 sum s and its error (Fast2Sum,
 * larger magnitude first) give s rounded to odd: an even s with an error is
 * moved one ulp toward it. Odd at 53, then odd at 24 (em_f64_to_f32_odd), then
 * nearest even at 11 or 8 bits is one rounding to nearest even. */
static LLVMValueRef fma_narrow(Em *e, DType dt, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c)
{
	LLVMBuilderRef B = e->B;
	LLVMValueRef d[3] = {a, b, c};
	for (int i = 0; i < 3; i++)
		d[i] = LLVMBuildFPExt(B, em_to_f32(e, d[i], dt), shaped(e, e->t_f64, d[i]), "");
	LLVMTypeRef ft = LLVMTypeOf(d[0]), it = shaped(e, e->t_i64, d[0]);
	LLVMValueRef p = LLVMBuildFMul(B, d[0], d[1], "");
	LLVMValueRef s = LLVMBuildFAdd(B, p, d[2], "");
	LLVMValueRef ap = em_intrinsic(e, "llvm.fabs", &ft, 1, &p, 1);
	LLVMValueRef ac = em_intrinsic(e, "llvm.fabs", &ft, 1, &d[2], 1);
	LLVMValueRef ge = LLVMBuildFCmp(B, LLVMRealOGE, ap, ac, "");
	LLVMValueRef big = LLVMBuildSelect(B, ge, p, d[2], ""), small = LLVMBuildSelect(B, ge, d[2], p, "");
	LLVMValueRef err = LLVMBuildFAdd(B, LLVMBuildFSub(B, big, s, ""), small, "");
	LLVMValueRef zero = LLVMConstNull(ft);
	LLVMValueRef sb = LLVMBuildBitCast(B, s, it, "");
	LLVMValueRef even = LLVMBuildICmp(B, LLVMIntEQ, LLVMBuildAnd(B, sb, ci(e, e->t_i64, 1, d[0]), ""),
	                                  LLVMConstNull(it), "");
	LLVMValueRef off = LLVMBuildAnd(B, even, LLVMBuildFCmp(B, LLVMRealONE, err, zero, ""), "");
	LLVMValueRef up = LLVMBuildICmp(B, LLVMIntEQ, LLVMBuildFCmp(B, LLVMRealOGT, err, zero, ""),
	                                LLVMBuildFCmp(B, LLVMRealOGT, s, zero, ""), "");
	LLVMValueRef step = LLVMBuildSelect(B, up, ci(e, e->t_i64, 1, d[0]), ci(e, e->t_i64, -1, d[0]), "");
	sb = LLVMBuildSelect(B, off, LLVMBuildAdd(B, sb, step, ""), sb, "");
	return em_from_f32(e, em_f64_to_f32_odd(e, LLVMBuildBitCast(B, sb, ft, "")), dt, false);
}

/* ---- dispatch ---------------------------------------------------------------------- */

static bool varying_result(Em *e, const TpOp *op) { return !tp_uniform(e->f, op->results[0]); }

/* operand i, splatted when the result is varying */
static LLVMValueRef opnd(Em *e, const TpOp *op, int i)
{
	LLVMValueRef x = em_get(e, op->operands[i]);
	return varying_result(e, op) ? em_splat(e, x) : x;
}

/* f16 bits of a double constant, rounded once to nearest even */
static uint16_t f16_bits(double v)
{
	uint16_t s = signbit(v) ? 0x8000 : 0;
	double a = fabs(v);
	if (isnan(v))
		return s | 0x7e00;
	if (a >= 65520.0) /* at or past the midpoint of 65504 and 2^16 */
		return s | 0x7c00;
	if (a < 0x1p-14) /* subnormal: units of 2^-24 (1024: the smallest normal) */
		return s | (uint16_t)nearbyint(a * 0x1p24);
	int ex;
	double q = nearbyint(frexp(a, &ex) * 2048.0); /* a = q * 2^(ex-11), q in [1024, 2048] */
	if (q == 2048.0) {
		q = 1024.0;
		ex++;
	}
	return s | (uint16_t)((ex + 14) << 10 | ((int)q - 1024));
}

static void emit_const(Em *e, const TpOp *op)
{
	TpVal r = op->results[0];
	Type t = tp_type(e->f, r);
	LLVMValueRef v;
	if (t.dt == DT_F16) {
		v = LLVMConstInt(e->t_i16, f16_bits(op->attr.f), 0);
	} else if (dtype_is_float(t.dt)) {
		if (native_float(t.dt)) {
			v = LLVMConstReal(em_scalar_type(e, t), op->attr.f);
		} else {
			v = em_from_f32(e, LLVMConstReal(e->t_f32, op->attr.f), (DType)t.dt, false);
		}
	} else if (t.dt == DT_PTR) {
		v = LLVMConstIntToPtr(LLVMConstInt(e->t_i64, (unsigned long long)op->attr.i, 0),
		                      em_scalar_type(e, t));
	} else {
		v = LLVMConstInt(em_scalar_type(e, t), (unsigned long long)op->attr.i, 1);
	}
	em_set(e, r, v);
}

static void emit_ptr_add(Em *e, const TpOp *op)
{
	Type pt = tp_type(e->f, op->operands[0]);
	Type ot = tp_type(e->f, op->operands[1]);
	LLVMValueRef p = em_get(e, op->operands[0]), o = em_get(e, op->operands[1]);
	LLVMTypeRef it = vec_of(o) ? em_vec(e, e->t_i64) : e->t_i64;
	o = LLVMBuildIntCast2(e->B, o, it, ot.dt != DT_I1 && dtype_is_signed(ot.dt), "");
	if (vec_of(p) && !vec_of(o))
		o = em_splat(e, o);
	LLVMTypeRef el = pt.elem == DT_VOID ? e->t_i8 : em_storage_type(e, (DType)pt.elem);
	em_set(e, op->results[0], LLVMBuildGEP2(e->B, el, p, &o, 1, ""));
}

bool em_arith(Em *e, const TpOp *op)
{
	TpVal r = op->nout ? op->results[0] : 0;
	switch (op->kind) {
	case TP_CONST: emit_const(e, op); return true;
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
	case TP_UMULHI: {
		DType d = (DType)tp_type(e->f, r).dt;
		if (op->kind == TP_DIV && (d == DT_F32 || d == DT_F16 || d == DT_BF16) &&
		    !(op->attr.flags & TIR_DIV_RN) && varying_result(e, op) &&
		    !em_is_vec(em_get(e, op->operands[1]))) {
			em_set(e, r, div_by_uniform(e, d, opnd(e, op, 0), em_get(e, op->operands[1])));
			return true;
		}
		em_set(e, r, binop(e, op->kind, d, opnd(e, op, 0), opnd(e, op, 1), op->attr.flags));
		return true;
	}
	case TP_CMP: {
		DType d = (DType)tp_type(e->f, op->operands[0]).dt;
		if (op->attr.pred < 0 || op->attr.pred > PRED_GE)
			ice(PASS, "bad predicate %d", op->attr.pred);
		em_set(e, r, cmp(e, op->attr.pred, d, opnd(e, op, 0), opnd(e, op, 1)));
		return true;
	}
	case TP_NEG: {
		DType d = (DType)tp_type(e->f, r).dt;
		LLVMValueRef x = opnd(e, op, 0);
		if (d == DT_F16 || d == DT_BF16) /* flip the sign bit: exact, NaNs untouched */
			em_set(e, r, LLVMBuildXor(e->B, x, ci(e, e->t_i16, -0x8000, x), ""));
		else if (dtype_is_float(d))
			em_set(e, r, em_fout(e, LLVMBuildFNeg(e->B, em_fin(e, x, d), ""), d));
		else
			em_set(e, r, LLVMBuildNeg(e->B, x, ""));
		return true;
	}
	case TP_NOT: em_set(e, r, LLVMBuildNot(e->B, opnd(e, op, 0), "")); return true;
	case TP_FMA: {
		DType d = (DType)tp_type(e->f, r).dt;
		if (d == DT_F16 || d == DT_BF16) {
			em_set(e, r, fma_narrow(e, d, opnd(e, op, 0), opnd(e, op, 1), opnd(e, op, 2)));
			return true;
		}
		LLVMValueRef a[3];
		for (int i = 0; i < 3; i++)
			a[i] = em_fin(e, opnd(e, op, i), d);
		LLVMTypeRef t = LLVMTypeOf(a[0]);
		em_set(e, r, em_fout(e, em_intrinsic(e, "llvm.fma", &t, 1, a, 3), d));
		return true;
	}
	case TP_SELECT: {
		LLVMValueRef c = em_get(e, op->operands[0]);
		em_set(e, r, LLVMBuildSelect(e->B, c, opnd(e, op, 1), opnd(e, op, 2), ""));
		return true;
	}
	case TP_CAST:
	case TP_PTR_TO_INT:
	case TP_INT_TO_PTR: {
		Type from = tp_type(e->f, op->operands[0]), to = tp_type(e->f, r);
		em_set(e, r,
		       em_cast(e, opnd(e, op, 0), (DType)from.dt, (DType)to.dt,
		               op->attr.flags & TIR_RTZ, em_scalar_type(e, to)));
		return true;
	}
	case TP_BITCAST: {
		LLVMValueRef x = opnd(e, op, 0);
		em_set(e, r,
		       LLVMBuildBitCast(e->B, x, shaped(e, em_scalar_type(e, tp_type(e->f, r)), x),
		                        ""));
		return true;
	}
	case TP_PTR_ADD: emit_ptr_add(e, op); return true;
	case TP_MATH: emit_math(e, op); return true;
	case TP_UNIFORM: { /* every lane holds the value: lane 0's */
		LLVMValueRef x = em_lane0(e, op->operands[0]);
		if (!x) {
			x = em_get(e, op->operands[0]);
			if (em_is_vec(x)) x = LLVMBuildExtractElement(e->B, x, LLVMConstInt(LLVMInt32TypeInContext(e->C), 0, 0), "");
		}
		em_set(e, r, x);
		return true;
	}
	default: return false;
	}
}

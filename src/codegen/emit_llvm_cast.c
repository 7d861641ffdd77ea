/* emit_llvm_cast.c: float format conversions and casts of the CPU emitter.
 *
 * Float formats without good LLVM 14 support are computed in f32: bf16 is i16
 * storage (widened by a shift, narrowed with round-to-nearest-even), f16 is
 * i16 storage too (LLVM 14 scalarizes wide <N x half> vectors, which made fp16
 * kernels take a minute to compile), fp8 e4m3 (the "fn" variant: no
 * infinities, 0x7f = NaN, saturating) and e5m2 are i8 storage, all converted
 * by explicit bit manipulation, except f16 <-> f32 vectors on x86 hosts with
 * F16C / AVX-512F, which take vcvtps2ph / vcvtph2ps (em_map_x86_chunks). f16 + - * / sqrt computed in f32 and rounded
 * once more are still correctly rounded (24 >= 2*11 + 2 bits); f16 fma and
 * f64 -> narrow casts round to odd first so that the second rounding is the
 * only one that counts.
 */
#include "codegen/emit_llvm_arith.h"

#include <llvm/Config/llvm-config.h>

#include <math.h>
#include <string.h>

enum { X86_MAX_LANES = 1024 }; /* the widest vector em_map_x86_chunks takes */

static const char PASS[] = "emit_llvm";

static LLVMValueRef e4m3_to_f32(Em *e, LLVMValueRef x)
{
	LLVMBuilderRef B = e->B;
	LLVMValueRef w = LLVMBuildZExt(B, x, shaped(e, e->t_i32, x), "");
	LLVMValueRef sign = LLVMBuildShl(B, LLVMBuildAnd(B, w, ci(e, e->t_i32, 0x80, x), ""),
	                                 ci(e, e->t_i32, 24, x), "");
	LLVMValueRef ex = LLVMBuildAnd(B, LLVMBuildLShr(B, w, ci(e, e->t_i32, 3, x), ""),
	                               ci(e, e->t_i32, 15, x), "");
	LLVMValueRef m = LLVMBuildAnd(B, w, ci(e, e->t_i32, 7, x), "");
	LLVMValueRef nb =
	        LLVMBuildOr(B,
	                    LLVMBuildShl(B, LLVMBuildAdd(B, ex, ci(e, e->t_i32, 120, x), ""),
	                                 ci(e, e->t_i32, 23, x), ""),
	                    LLVMBuildShl(B, m, ci(e, e->t_i32, 20, x), ""), "");
	LLVMValueRef sub = LLVMBuildFMul(B, LLVMBuildUIToFP(B, m, shaped(e, e->t_f32, x), ""),
	                                 cf(e, e->t_f32, 1.0 / 512, x), "");
	LLVMValueRef subb = LLVMBuildBitCast(B, sub, shaped(e, e->t_i32, x), "");
	LLVMValueRef isz = LLVMBuildICmp(B, LLVMIntEQ, ex, ci(e, e->t_i32, 0, x), "");
	LLVMValueRef mag = LLVMBuildSelect(B, isz, subb, nb, "");
	LLVMValueRef isnan =
	        LLVMBuildICmp(B, LLVMIntEQ, LLVMBuildAnd(B, w, ci(e, e->t_i32, 0x7f, x), ""),
	                      ci(e, e->t_i32, 0x7f, x), "");
	mag = LLVMBuildSelect(B, isnan, ci(e, e->t_i32, 0x7fc00000, x), mag, "");
	return LLVMBuildBitCast(B, LLVMBuildOr(B, mag, sign, ""), shaped(e, e->t_f32, x), "");
}

static LLVMValueRef f32_to_e4m3(Em *e, LLVMValueRef x)
{
	LLVMBuilderRef B = e->B;
	LLVMTypeRef it = shaped(e, e->t_i32, x);
	LLVMValueRef bits = LLVMBuildBitCast(B, x, it, "");
	LLVMValueRef sign = LLVMBuildAnd(B, LLVMBuildLShr(B, bits, ci(e, e->t_i32, 24, x), ""),
	                                 ci(e, e->t_i32, 0x80, x), "");
	LLVMTypeRef ft = LLVMTypeOf(x);
	LLVMValueRef a = em_intrinsic(e, "llvm.fabs", &ft, 1, &x, 1);
	LLVMValueRef isnan = LLVMBuildFCmp(B, LLVMRealUNO, x, x, "");
	LLVMValueRef mx[2] = {a, cf(e, e->t_f32, 448.0, x)};
	a = em_intrinsic(e, "llvm.minnum", &ft, 1, mx, 2);
	/* subnormal range: code = rint(a * 2^9) (8 becomes the smallest normal, 0x08) */
	LLVMValueRef s = LLVMBuildFMul(B, a, cf(e, e->t_f32, 512.0, x), "");
	s = em_intrinsic(e, "llvm.rint", &ft, 1, &s, 1);
	LLVMValueRef subc = LLVMBuildFPToUI(B, s, it, "");
	LLVMValueRef ab = LLVMBuildBitCast(B, a, it, "");
	LLVMValueRef odd = LLVMBuildAnd(B, LLVMBuildLShr(B, ab, ci(e, e->t_i32, 20, x), ""),
	                                ci(e, e->t_i32, 1, x), "");
	LLVMValueRef r =
	        LLVMBuildAdd(B, ab, LLVMBuildAdd(B, odd, ci(e, e->t_i32, 0x7ffff, x), ""), "");
	LLVMValueRef nc = LLVMBuildSub(B, LLVMBuildLShr(B, r, ci(e, e->t_i32, 20, x), ""),
	                               ci(e, e->t_i32, 960, x), "");
	LLVMValueRef small = LLVMBuildFCmp(B, LLVMRealOLT, a, cf(e, e->t_f32, 1.0 / 64, x), "");
	LLVMValueRef code = LLVMBuildSelect(B, small, subc, nc, "");
	code = LLVMBuildSelect(B, isnan, ci(e, e->t_i32, 0x7f, x), code, "");
	code = LLVMBuildOr(B, code, sign, "");
	return LLVMBuildTrunc(B, code, shaped(e, e->t_i8, x), "");
}

/* x86 conversion intrinsics applied to a vector of any width (a multiple of
 * the intrinsic's w lanes, at most X86_MAX_LANES): chunks of w lanes, each
 * through `name` with the constant arguments `extra` after it, concatenated
 * pairwise. */
LLVMValueRef em_map_x86_chunks(Em *e, LLVMValueRef x, unsigned w, const char *name, LLVMTypeRef out_elem,
                                   LLVMValueRef *extra, unsigned nextra)
{
	LLVMBuilderRef B = e->B;
	unsigned n = LLVMGetVectorSize(LLVMTypeOf(x));
	LLVMTypeRef pt[4] = {LLVMVectorType(LLVMGetElementType(LLVMTypeOf(x)), w)};
	for (unsigned i = 0; i < nextra; i++)
		pt[1 + i] = LLVMTypeOf(extra[i]);
	LLVMTypeRef ft = LLVMFunctionType(LLVMVectorType(out_elem, w), pt, 1 + nextra, 0);
	LLVMValueRef fn = LLVMGetNamedFunction(e->M, name);
	if (!fn)
		fn = LLVMAddFunction(e->M, name, ft);
	LLVMValueRef parts[X86_MAX_LANES / 8], idx[X86_MAX_LANES], args[4];
	unsigned np = n / w;
	for (unsigned p = 0; p < np; p++) {
		for (unsigned i = 0; i < w; i++)
			idx[i] = LLVMConstInt(e->t_i32, p * w + i, 0);
		args[0] = LLVMBuildShuffleVector(B, x, LLVMGetUndef(LLVMTypeOf(x)), LLVMConstVector(idx, w), "");
		for (unsigned i = 0; i < nextra; i++)
			args[1 + i] = extra[i];
		parts[p] = LLVMBuildCall2(B, ft, fn, args, 1 + nextra, "");
	}
	for (unsigned cw = w; np > 1; cw *= 2, np /= 2)
		for (unsigned p = 0; p < np / 2; p++) {
			for (unsigned i = 0; i < 2 * cw; i++)
				idx[i] = LLVMConstInt(e->t_i32, i, 0);
			parts[p] = LLVMBuildShuffleVector(B, parts[2 * p], parts[2 * p + 1], LLVMConstVector(idx, 2 * cw), "");
		}
	return parts[0];
}

static bool x86_chunkable(LLVMValueRef x, unsigned w)
{
	if (!em_is_vec(x))
		return false;
	unsigned n = LLVMGetVectorSize(LLVMTypeOf(x));
	return n % w == 0 && n <= X86_MAX_LANES;
}

/* Hardware f16 <-> f32 on x86, through intrinsics that take and return i16
 * lanes: a half-typed fpext/fptrunc would let instcombine retype the loads,
 * stores and phis around it to <N x half>, which LLVM 14 legalizes lane by
 * lane. Narrowing: vcvtps2ph, immediate 0 (round to nearest even), 16 lanes
 * with AVX-512F, else F16C's 8. Widening: AVX-512F's vcvtph2ps, 16 lanes
 * (F16C's 8-lane form is not an intrinsic in LLVM 14). Both give what the
 * integer versions below give, NaNs quieted with the top of the payload
 * kept. The 16-lane narrowing halves the calls and the shuffles that split
 * and join a wide vector around them: lightllm's token_att2_int8v at
 * BLOCK_N=512 (2048 fp16 registers per thread, 32 threads) had 32768 of
 * them. */
static LLVMValueRef f32_to_f16_x86(Em *e, LLVMValueRef x)
{
	if (e->f16_widen_x86 && x86_chunkable(x, 16)) {
		LLVMValueRef extra[3] = {LLVMConstInt(e->t_i32, 0, 0),
		                         LLVMGetUndef(LLVMVectorType(e->t_i16, 16)),
		                         LLVMConstInt(e->t_i16, 0xffff, 0)}; /* all lanes */
		return em_map_x86_chunks(e, x, 16, "llvm.x86.avx512.mask.vcvtps2ph.512", e->t_i16,
		                      extra, 3);
	}
	LLVMValueRef imm = LLVMConstInt(e->t_i32, 0, 0);
	return em_map_x86_chunks(e, x, 8, "llvm.x86.vcvtps2ph.256", e->t_i16, &imm, 1);
}

static LLVMValueRef f16_to_f32_x86(Em *e, LLVMValueRef x)
{
	LLVMValueRef extra[3] = {LLVMGetUndef(LLVMVectorType(e->t_f32, 16)), LLVMConstInt(e->t_i16, 0xffff, 0),
	                         LLVMConstInt(e->t_i32, 4, 0)}; /* all lanes; the current rounding (exact anyway) */
	return em_map_x86_chunks(e, x, 16, "llvm.x86.avx512.mask.vcvtph2ps.512", e->t_f32, extra, 3);
}

/* f16 bits (i16) -> f32, exact. Subnormals: the integer mantissa m < 2^10
 * converts exactly to float, then the exponent is lowered by 24 (m * 2^-24 is
 * a normal f32). NaNs are quieted, payload kept. */
LLVMValueRef em_f16_to_f32(Em *e, LLVMValueRef x)
{
	LLVMBuilderRef B = e->B;
	if (e->f16_widen_x86 && x86_chunkable(x, 16))
		return f16_to_f32_x86(e, x);
	LLVMTypeRef it = shaped(e, e->t_i32, x);
#define K(v) ci(e, e->t_i32, (v), x)
	LLVMValueRef w = LLVMBuildZExt(B, x, it, "");
	LLVMValueRef sign = LLVMBuildShl(B, LLVMBuildAnd(B, w, K(0x8000), ""), K(16), "");
	LLVMValueRef em = LLVMBuildAnd(B, w, K(0x7fff), "");
	LLVMValueRef sh = LLVMBuildShl(B, em, K(13), "");
	LLVMValueRef norm = LLVMBuildAdd(B, sh, K(0x38000000), ""); /* rebias 15 -> 127 */
	LLVMValueRef infnan = LLVMBuildOr(B, LLVMBuildAdd(B, sh, K(0x70000000), ""),
	                                  LLVMBuildSelect(B,
	                                                  LLVMBuildICmp(B, LLVMIntUGT, em,
	                                                                K(0x7c00), ""),
	                                                  K(0x00400000), K(0), ""),
	                                  "");
	LLVMValueRef mf = LLVMBuildSIToFP(B, em, shaped(e, e->t_f32, x), "");
	LLVMValueRef sub = LLVMBuildSub(B, LLVMBuildBitCast(B, mf, it, ""), K(24 << 23), "");
	LLVMValueRef r = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntUGE, em, K(0x7c00), ""), infnan,
	                                 norm, "");
	r = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntULT, em, K(0x400), ""), sub, r, "");
	r = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntEQ, em, K(0), ""), K(0), r, "");
#undef K
	return LLVMBuildBitCast(B, LLVMBuildOr(B, r, sign, ""), shaped(e, e->t_f32, x), "");
}

/* f32 -> f16 bits (i16) with integer ops only: round to nearest even (or
 * toward zero), subnormals by a variable shift of the 24-bit significand,
 * overflow to inf (RTZ: to the largest finite), NaN quieted with the top of
 * its payload kept. */
LLVMValueRef em_f32_to_f16(Em *e, LLVMValueRef x, bool rtz)
{
	LLVMBuilderRef B = e->B;
	if (e->f16_narrow_x86 && !rtz && x86_chunkable(x, 8))
		return f32_to_f16_x86(e, x);
	LLVMTypeRef it = shaped(e, e->t_i32, x);
#define K(v) ci(e, e->t_i32, (v), x)
	LLVMValueRef b = LLVMBuildBitCast(B, x, it, "");
	LLVMValueRef sign = LLVMBuildAnd(B, LLVMBuildLShr(B, b, K(16), ""), K(0x8000), "");
	LLVMValueRef a = LLVMBuildAnd(B, b, K(0x7fffffff), "");
	/* normal: rebias 127 -> 15 and drop 13 bits; a carry out of the mantissa
	 * correctly bumps the exponent, up to inf */
	LLVMValueRef norm = LLVMBuildSub(B, a, K(0x38000000), "");
	if (!rtz) {
		LLVMValueRef odd = LLVMBuildAnd(B, LLVMBuildLShr(B, a, K(13), ""), K(1), "");
		norm = LLVMBuildAdd(B, norm, LLVMBuildAdd(B, odd, K(0xfff), ""), "");
	}
	norm = LLVMBuildLShr(B, norm, K(13), "");
	/* subnormal (a < 2^-14): significand m (implicit bit unless f32 subnormal)
	 * shifted right by s = 126 - exponent, clamped at 25 (everything is then
	 * below half the smallest subnormal); 1024 is the smallest normal's code */
	LLVMValueRef ex = LLVMBuildLShr(B, a, K(23), "");
	LLVMValueRef m = LLVMBuildOr(B, LLVMBuildAnd(B, a, K(0x7fffff), ""),
	                             LLVMBuildSelect(B,
	                                             LLVMBuildICmp(B, LLVMIntEQ, ex, K(0), ""),
	                                             K(0), K(0x800000), ""),
	                             "");
	LLVMValueRef s = LLVMBuildSub(B, K(126), ex, "");
	s = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSGT, s, K(25), ""), K(25), s, "");
	/* unused on the normal path; kept in range so no shift is poison */
	s = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSLT, s, K(14), ""), K(14), s, "");
	LLVMValueRef sub;
	if (rtz) {
		sub = LLVMBuildLShr(B, m, s, "");
	} else {
		LLVMValueRef odd = LLVMBuildAnd(B, LLVMBuildLShr(B, m, s, ""), K(1), "");
		LLVMValueRef half1 = LLVMBuildShl(B, K(1), LLVMBuildSub(B, s, K(1), ""), "");
		LLVMValueRef half = LLVMBuildSub(B, half1, K(1), ""); /* half an ulp, less one */
		sub = LLVMBuildAdd(B, m, LLVMBuildAdd(B, half, odd, ""), "");
		sub = LLVMBuildLShr(B, sub, s, "");
	}
	LLVMValueRef pay = LLVMBuildAnd(B, LLVMBuildLShr(B, a, K(13), ""), K(0x3ff), "");
	LLVMValueRef nan = LLVMBuildOr(B, pay, K(0x7e00), "");
	LLVMValueRef r = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntULT, a, K(0x38800000), ""), sub,
	                                 norm, "");
	LLVMValueRef big = K(rtz ? 0x7bff : 0x7c00);
	r = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntUGE, a, K(0x47800000), ""), big, r, "");
	r = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntEQ, a, K(0x7f800000), ""), K(0x7c00), r, "");
	r = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntUGT, a, K(0x7f800000), ""), nan, r, "");
#undef K
	return LLVMBuildTrunc(B, LLVMBuildOr(B, r, sign, ""), shaped(e, e->t_i16, x), "");
}

/* f64 -> f32 rounding to odd (truncate, then set the last bit if inexact):
 * a later rounding to a format at least 2 bits narrower is then the same as
 * rounding the f64 directly. */
LLVMValueRef em_f64_to_f32_odd(Em *e, LLVMValueRef x)
{
	LLVMBuilderRef B = e->B;
	LLVMTypeRef it = shaped(e, e->t_i32, x);
	LLVMValueRef f = LLVMBuildFPTrunc(B, x, shaped(e, e->t_f32, x), "");
	LLVMValueRef back = LLVMBuildFPExt(B, f, LLVMTypeOf(x), "");
	LLVMValueRef inexact = LLVMBuildFCmp(B, LLVMRealONE, back, x, "");
	LLVMTypeRef dt = LLVMTypeOf(x);
	LLVMValueRef ab = em_intrinsic(e, "llvm.fabs", &dt, 1, &back, 1);
	LLVMValueRef ax = em_intrinsic(e, "llvm.fabs", &dt, 1, &x, 1);
	LLVMValueRef away = LLVMBuildFCmp(B, LLVMRealOGT, ab, ax, "");
	LLVMValueRef bits = LLVMBuildBitCast(B, f, it, "");
	bits = LLVMBuildSub(B, bits, LLVMBuildZExt(B, away, it, ""), "");
	bits = LLVMBuildOr(B, bits, LLVMBuildZExt(B, inexact, it, ""), "");
	return LLVMBuildBitCast(B, bits, LLVMTypeOf(f), "");
}

static LLVMValueRef e5m2_to_f32(Em *e, LLVMValueRef x)
{
	LLVMValueRef w = LLVMBuildShl(e->B, LLVMBuildZExt(e->B, x, shaped(e, e->t_i16, x), ""),
	                              ci(e, e->t_i16, 8, x), "");
	return em_f16_to_f32(e, w);
}

/* f32 -> e5m2 as PTX's cvt.rn.satfinite: |x| is clamped to 57344, the largest
 * finite e5m2 (infinities too), then rounded to f16 to odd (truncate, set the
 * last bit if inexact) and to e5m2 to nearest even on the 8 dropped bits: 11
 * bits >= 3 + 2, so this is the single correct rounding. NaN stays NaN. */
static LLVMValueRef f32_to_e5m2(Em *e, LLVMValueRef x)
{
	LLVMBuilderRef B = e->B;
	LLVMTypeRef ft = LLVMTypeOf(x), ht = shaped(e, e->t_i16, x);
	LLVMValueRef a = em_intrinsic(e, "llvm.fabs", &ft, 1, &x, 1);
	LLVMValueRef mx[2] = {a, cf(e, e->t_f32, 57344.0, x)};
	LLVMValueRef cs[2] = {em_intrinsic(e, "llvm.minnum", &ft, 1, mx, 2), x};
	LLVMValueRef xc = em_intrinsic(e, "llvm.copysign", &ft, 1, cs, 2);
	LLVMValueRef b = em_f32_to_f16(e, xc, true);
	LLVMValueRef inexact = LLVMBuildFCmp(B, LLVMRealUNE, em_f16_to_f32(e, b), xc, "");
	b = LLVMBuildOr(B, b, LLVMBuildZExt(B, inexact, ht, ""), "");
	LLVMValueRef odd = LLVMBuildAnd(B, LLVMBuildLShr(B, b, ci(e, e->t_i16, 8, x), ""),
	                                ci(e, e->t_i16, 1, x), "");
	LLVMValueRef r = LLVMBuildAdd(B, b, LLVMBuildAdd(B, odd, ci(e, e->t_i16, 0x7f, x), ""), "");
	r = LLVMBuildLShr(B, r, ci(e, e->t_i16, 8, x), "");
	LLVMValueRef isnan = LLVMBuildFCmp(B, LLVMRealUNO, x, x, "");
	LLVMValueRef nan = LLVMBuildOr(B, LLVMBuildAnd(B, r, ci(e, e->t_i16, 0x80, x), ""),
	                               ci(e, e->t_i16, 0x7f, x), "");
	r = LLVMBuildSelect(B, isnan, nan, r, "");
	return LLVMBuildTrunc(B, r, shaped(e, e->t_i8, x), "");
}

static LLVMValueRef bf16_to_f32(Em *e, LLVMValueRef x)
{
	LLVMValueRef w = LLVMBuildZExt(e->B, x, shaped(e, e->t_i32, x), "");
	w = LLVMBuildShl(e->B, w, ci(e, e->t_i32, 16, x), "");
	return LLVMBuildBitCast(e->B, w, shaped(e, e->t_f32, x), "");
}

static LLVMValueRef f32_to_bf16(Em *e, LLVMValueRef x, bool rtz)
{
	LLVMBuilderRef B = e->B;
	LLVMValueRef b = LLVMBuildBitCast(B, x, shaped(e, e->t_i32, x), "");
	LLVMValueRef hi = LLVMBuildLShr(B, b, ci(e, e->t_i32, 16, x), "");
	LLVMValueRef r = hi;
	if (!rtz) {
		LLVMValueRef odd = LLVMBuildAnd(B, hi, ci(e, e->t_i32, 1, x), "");
		r = LLVMBuildAdd(B, b, LLVMBuildAdd(B, odd, ci(e, e->t_i32, 0x7fff, x), ""), "");
		r = LLVMBuildLShr(B, r, ci(e, e->t_i32, 16, x), "");
	}
	LLVMValueRef isnan = LLVMBuildFCmp(B, LLVMRealUNO, x, x, "");
	LLVMValueRef nan = LLVMBuildOr(B, hi, ci(e, e->t_i32, 0x40, x), "");
	r = LLVMBuildSelect(B, isnan, nan, r, "");
	return LLVMBuildTrunc(B, r, shaped(e, e->t_i16, x), "");
}

LLVMValueRef em_to_f32(Em *e, LLVMValueRef x, DType d)
{
	switch (d) {
	case DT_F32: return x;
	case DT_F16: return em_f16_to_f32(e, x);
	case DT_F64: return LLVMBuildFPTrunc(e->B, x, shaped(e, e->t_f32, x), "");
	case DT_BF16: return bf16_to_f32(e, x);
	case DT_F8E4M3: return e4m3_to_f32(e, x);
	case DT_F8E5M2: return e5m2_to_f32(e, x);
	default: ice(PASS, "to_f32 of non-float dtype %d", d);
	}
}

LLVMValueRef em_from_f32(Em *e, LLVMValueRef x, DType d, bool rtz)
{
	switch (d) {
	case DT_F32: return x;
	case DT_F16: return em_f32_to_f16(e, x, rtz);
	case DT_F64: return LLVMBuildFPExt(e->B, x, shaped(e, e->t_f64, x), "");
	case DT_BF16: return f32_to_bf16(e, x, rtz);
	case DT_F8E4M3: return f32_to_e4m3(e, x);
	case DT_F8E5M2: return f32_to_e5m2(e, x);
	default: ice(PASS, "from_f32 to non-float dtype %d", d);
	}
}

/* f64 -> f32 toward zero: the nearest f32, one step toward zero where it is
 * farther from zero than x (overflow to inf becomes the largest finite). */
static LLVMValueRef f64_to_f32_rz(Em *e, LLVMValueRef x)
{
	LLVMBuilderRef B = e->B;
	LLVMTypeRef it = shaped(e, e->t_i32, x), dt = LLVMTypeOf(x);
	LLVMValueRef f = LLVMBuildFPTrunc(B, x, shaped(e, e->t_f32, x), "");
	LLVMValueRef fa = LLVMBuildFPExt(B, f, dt, "");
	LLVMValueRef ax = em_intrinsic(e, "llvm.fabs", &dt, 1, &x, 1);
	fa = em_intrinsic(e, "llvm.fabs", &dt, 1, &fa, 1);
	LLVMValueRef over = LLVMBuildFCmp(B, LLVMRealOGT, fa, ax, "");
	LLVMValueRef bits = LLVMBuildBitCast(B, f, it, "");
	bits = LLVMBuildSub(B, bits, LLVMBuildZExt(B, over, it, ""), "");
	return LLVMBuildBitCast(B, bits, LLVMTypeOf(f), "");
}

/* compute domain of a float dtype: native LLVM type, or f32 */
LLVMValueRef em_fin(Em *e, LLVMValueRef x, DType d)
{
	return native_float(d) ? x : em_to_f32(e, x, d);
}
LLVMValueRef em_fout(Em *e, LLVMValueRef x, DType d)
{
	return native_float(d) ? x : em_from_f32(e, x, d, false);
}

/* float -> int, saturating (NaN -> 0), as llvm.fpto[su]i.sat, spelled as a clamp and a plain
 * conversion: x86 legalizes the .sat intrinsics on wide vectors lane by lane, which made one
 * 8K-element conversion cost LLVM seconds */
static LLVMValueRef fp_to_int_sat(Em *e, LLVMValueRef f, LLVMTypeRef it, bool sgn)
{
	LLVMBuilderRef B = e->B;
	LLVMTypeRef ft = LLVMTypeOf(f), fs = vec_of(f) ? LLVMGetElementType(ft) : ft;
	LLVMTypeRef is = vec_of(f) ? LLVMGetElementType(it) : it;
	int bits = (int)LLVMGetIntTypeWidth(is);
	double hi = ldexp(1.0, sgn ? bits - 1 : bits); /* the first value past the range */
	double below = LLVMGetTypeKind(fs) == LLVMDoubleTypeKind ? nextafter(hi, 0.0) : (double)nextafterf((float)hi, 0.0f);
	LLVMValueRef a[2] = {f, cf(e, fs, sgn ? -hi : 0.0, f)};
	LLVMValueRef c = em_intrinsic(e, "llvm.maxnum", &ft, 1, a, 2);
	a[0] = c, a[1] = cf(e, fs, below, f);
	c = em_intrinsic(e, "llvm.minnum", &ft, 1, a, 2);
	LLVMValueRef r = sgn ? LLVMBuildFPToSI(B, c, it, "") : LLVMBuildFPToUI(B, c, it, "");
	LLVMValueRef top = ci(e, is, sgn ? (int64_t)(~0ull >> (65 - bits)) : -1, f);
	r = LLVMBuildSelect(B, LLVMBuildFCmp(B, LLVMRealOGE, f, cf(e, fs, hi, f), ""), top, r, "");
	return LLVMBuildSelect(B, LLVMBuildFCmp(B, LLVMRealUNO, f, f, ""), LLVMConstNull(it), r, "");
}

/* a 32- or 64-bit integer to a float rounded toward zero (libdevice's
 * int2float_rz, ll2double_rz, ..., PTX's cvt.rz.f32.s64): the magnitude with
 * the bits below its top 24 (f64: 53) significant ones cleared converts
 * exactly; f16/bf16 then round that f32 toward zero too (twice toward zero is
 * once). sitofp alone rounds to nearest: int2float_rz(16777219) was 16777220. */
static LLVMValueRef int_to_float_rz(Em *e, LLVMValueRef x, bool sgn, DType to, LLVMTypeRef dt)
{
	LLVMBuilderRef B = e->B;
	LLVMTypeRef it = shaped(e, e->t_i64, x);
	x = sgn ? LLVMBuildSExt(B, x, it, "") : LLVMBuildZExt(B, x, it, "");
#define K64(v) ci(e, e->t_i64, (v), x)
	LLVMValueRef neg = sgn ? LLVMBuildICmp(B, LLVMIntSLT, x, K64(0), "") : NULL;
	LLVMValueRef m = neg ? LLVMBuildSelect(B, neg, LLVMBuildNeg(B, x, ""), x, "") : x;
	LLVMValueRef a[2] = {m, LLVMConstInt(e->t_i1, 0, 0)};
	LLVMValueRef lz = em_intrinsic(e, "llvm.ctlz", &it, 1, a, 2);
	int p = to == DT_F64 ? 53 : 24;
	LLVMValueRef sh = LLVMBuildSub(B, K64(64 - p), lz, "");
	LLVMValueRef pos = LLVMBuildICmp(B, LLVMIntSGT, sh, K64(0), "");
	sh = LLVMBuildSelect(B, pos, sh, K64(0), "");
	m = LLVMBuildAnd(B, m, LLVMBuildShl(B, K64(-1), sh, ""), "");
#undef K64
	LLVMTypeRef ft = to == DT_F64 ? dt : shaped(e, e->t_f32, x);
	LLVMValueRef f = LLVMBuildUIToFP(B, m, ft, "");
	if (neg) f = LLVMBuildSelect(B, neg, LLVMBuildFNeg(B, f, ""), f, "");
	return to == DT_F64 || to == DT_F32 ? f : em_from_f32(e, f, to, true);
}

LLVMValueRef em_cast(Em *e, LLVMValueRef x, DType from, DType to, bool rtz, LLVMTypeRef to_scalar)
{
	LLVMBuilderRef B = e->B;
	LLVMTypeRef dt = shaped(e, to_scalar, x);
	if (from == DT_PTR || to == DT_PTR) {
		if (from == DT_PTR && to == DT_PTR)
			return LLVMBuildBitCast(B, x, dt, "");
		if (from == DT_PTR)
			return LLVMBuildPtrToInt(B, x, dt, "");
		return LLVMBuildIntToPtr(B, x, dt, "");
	}
	if (from == to)
		return x;
	bool fi = dtype_is_int(from), ti = dtype_is_int(to);
	if (fi && ti) {
		if (to == DT_I1)
			return LLVMBuildICmp(B, LLVMIntNE, x, LLVMConstNull(LLVMTypeOf(x)), "");
		return LLVMBuildIntCast2(B, x, dt, from != DT_I1 && dtype_is_signed(from), "");
	}
	if (!fi && !ti) {
		if (from == DT_F64 && to == DT_F32 && rtz)
			return f64_to_f32_rz(e, x);
		if (native_float(from) && native_float(to))
			return LLVMBuildFPCast(B, x, dt, "");
		LLVMValueRef f = from == DT_F64 ? em_f64_to_f32_odd(e, x) : em_to_f32(e, x, from);
		return em_from_f32(e, f, to, rtz);
	}
	if (!fi) { /* float -> int */
		LLVMValueRef f = em_fin(e, x, from);
		if (to == DT_I1)
			return LLVMBuildFCmp(B, LLVMRealUNE, f, LLVMConstNull(LLVMTypeOf(f)), "");
		return fp_to_int_sat(e, f, dt, dtype_is_signed(to));
	}
	/* int -> float */
	bool sgn = from != DT_I1 && dtype_is_signed(from);
	if (rtz && dtype_bits(from) > 16)
		return int_to_float_rz(e, x, sgn, to, dt);
	if (native_float(to))
		return sgn ? LLVMBuildSIToFP(B, x, dt, "") : LLVMBuildUIToFP(B, x, dt, "");
	LLVMTypeRef ft = shaped(e, e->t_f32, x);
	LLVMValueRef f = sgn ? LLVMBuildSIToFP(B, x, ft, "") : LLVMBuildUIToFP(B, x, ft, "");
	return em_from_f32(e, f, to, rtz);
}


/* emit_llvm_arith.h: what emit_llvm_arith.c (ops, math) and emit_llvm_cast.c
 * (float formats, casts) share. Private to src/codegen. Every function works
 * on scalars and <T x ty> vectors alike; constants take the operand's shape. */
#ifndef TILE_EMIT_LLVM_ARITH_H
#define TILE_EMIT_LLVM_ARITH_H

#include "codegen/emit_llvm_internal.h"

static inline bool vec_of(LLVMValueRef x) { return em_is_vec(x); }
static inline LLVMValueRef ci(Em *e, LLVMTypeRef t, int64_t v, LLVMValueRef shape)
{
	return em_const_int(e, t, v, vec_of(shape));
}
static inline LLVMValueRef cf(Em *e, LLVMTypeRef t, double v, LLVMValueRef shape)
{
	return em_const_f(e, t, v, vec_of(shape));
}
static inline LLVMTypeRef shaped(Em *e, LLVMTypeRef s, LLVMValueRef shape)
{
	return vec_of(shape) ? em_vec(e, s) : s;
}

static inline bool native_float(DType d) { return d == DT_F32 || d == DT_F64; }

/* f16 (i16 storage) <-> f32; rtz: round toward zero instead of to nearest */
LLVMValueRef em_f16_to_f32(Em *e, LLVMValueRef x);
LLVMValueRef em_f32_to_f16(Em *e, LLVMValueRef x, bool rtz);
/* f64 -> f32 rounded to odd, so that a second rounding to a narrower format is exact */
LLVMValueRef em_f64_to_f32_odd(Em *e, LLVMValueRef x);
/* a float dtype's compute domain: its native LLVM type (f32, f64) or f32, and back */
LLVMValueRef em_fin(Em *e, LLVMValueRef x, DType d);
LLVMValueRef em_fout(Em *e, LLVMValueRef x, DType d);
/* an x86 conversion intrinsic over a vector of any width (emit_llvm_cast.c) */
LLVMValueRef em_map_x86_chunks(Em *e, LLVMValueRef x, unsigned w, const char *name, LLVMTypeRef out_elem,
                               LLVMValueRef *extra, unsigned nextra);
/* shifts as PTX defines them (emit_llvm_arith.c) */
LLVMValueRef em_shift(Em *e, bool left, bool sgn, LLVMValueRef a, LLVMValueRef b);

#endif

/* emit_c_internal.h: state shared by the CUDA C emitter's files.
 *
 *   emit_c.c         entry point (emit_cuda), kernel signature, control flow,
 *                    op dispatch, names and types, the prelude, nvrtc
 *   emit_c_arith.c   elementwise ops, comparisons, casts, math functions
 *   emit_c_mem.c     global loads/stores (vector, predicated, inline PTX),
 *                    atomics, shared memory, cp.async
 *   emit_c_intrin.c  warp shuffles, mma.sync, ldmatrix, barriers, print/assert
 *
 * Output shape: one C statement per thread-program op; value N is the C
 * variable vN, declared where it is defined with its C type. No #include:
 * the prelude defines fixed-width typedefs and the helpers the body uses
 * (each helper is printed only when some op needs it, so dumps stay short).
 */
#ifndef TILE_EMIT_C_INTERNAL_H
#define TILE_EMIT_C_INTERNAL_H

#include "codegen/emit.h"
#include "codegen/tp.h"

/* Kernels needing more than this much shared memory get it as dynamic shared
 * memory (`extern __shared__`): the launcher (src/jit/cuda.c) then passes
 * smem_bytes at launch and raises CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES. */
#define EC_STATIC_SMEM_MAX 49152

/* Prelude helpers, printed on demand (bit i = helper i). */
typedef enum {
	H_F16,
	H_BF16,
	H_F8E4M3,
	H_F8E5M2,
	H_F32_F8,
	H_F64_F16,
	H_TO_BF16, /* f64_to_bf16 / i64_to_bf16 / u64_to_bf16: one rounding (needs H_BF16) */
	H_FMIN_NAN,
	H_F2I_SAT, /* f2i_sat / f2u_sat / d2i_sat / d2u_sat: float to a narrow integer, saturated */
	H_TF32,
	H_F8E4M3_F16, /* f8e4m3_to_f16, f8e4m3x2_to_f16x2 (prelude_f8_to_f16: by arch) */
	H_F8E5M2_F16, /* f8e5m2_to_f16, f8e5m2x2_to_f16x2 */
	H_F64_ODD,    /* f64_to_f32_odd: f64 rounded to odd in f32, for one rounding to fp8 */
	H_COUNT
} EcHelper;

/* Helpers whose text depends on parameters (load/store widths, atomics) are
 * kept as a list of names already printed plus their text. */
typedef struct Ec {
	const TpFunc *f;
	StrBuf body;    /* the kernel body */
	StrBuf helpers; /* parameterized helpers, in first-use order */
	VEC(char *) helper_names;
	uint32_t fixed;   /* EcHelper bits */
	int depth;        /* indentation of body statements */
	int arch;         /* 80, 90, ... */
	int ntemps;       /* counter for t<N> temporaries */
	const TpOp **def; /* TpVal -> defining op (NULL for block args / none) */
	bool one_block;   /* declare __launch_bounds__(threads, 1) whatever the kernel */
	bool line_info;   /* each statement preceded by `#line N "file"` (for nvrtc) */
	SrcLoc loc;       /* the source location of the op being emitted */
	uint8_t outlined_math[MATH_COUNT]; /* bit 0 f32, bit 1 f64: called out of line */
} Ec;

/* ---- emit_c.c ---- */
void ec_line(Ec *e, const char *fmt, ...) PRINTF_LIKE(2, 3); /* indented statement + newline */
const char *ec_ctype(DType d);              /* value C type of a scalar dtype ("float", "f16_t") */
const char *ec_storage(DType d);            /* memory type: i1 -> uint8_t */
void ec_type_str(Type t, char *buf, int n); /* value type, pointers included ("float *") */
void ec_decl(Ec *e, TpVal v, const char *fmt, ...) PRINTF_LIKE(3, 4); /* "T vN = <expr>;" */
Type ec_ty(const Ec *e, TpVal v);
int ec_tmp(Ec *e);                        /* fresh temporary number */
bool ec_const_true(const Ec *e, TpVal v); /* v is 0 (absent mask) or the constant true */
int64_t ec_const_int(const Ec *e, TpVal v, bool *known); /* the value of a TP_CONST */
/* Ensures a parameterized helper exists: returns true if `name` is new, in
 * which case the caller appends its text to e->helpers. */
bool ec_want_helper(Ec *e, const char *name);
void ec_need(Ec *e, EcHelper h);
/* The C name of runtime parameter i: arg_NAME, or argI for odd names. */
void ec_param_name(const TpFunc *f, int i, StrBuf *b);

/* ---- emit_c_math.c ---- */
/* Decides which math functions the kernel calls out of line (e->outlined_math). */
void ec_plan_math(Ec *e);
/* Appends the name to call math function m by: the library's, or its
 * out-of-line wrapper's (added to e->helpers on first use). */
void ec_math_callee(Ec *e, StrBuf *b, MathFn m, bool f64, int nargs);

/* ---- emit_c_arith.c ---- */
bool ec_arith(Ec *e, const TpOp *op);
/* C expression converting expression `x` of dtype `from` to dtype `to` (heap). */
char *ec_convert(Ec *e, const char *x, DType from, DType to, bool rtz);
/* Expression of the bits of value v zero-extended to 32 (or 64 when wide) bits. */
void ec_bits(Ec *e, StrBuf *b, TpVal v, bool wide);
/* Expression turning raw bits (a uint32_t / uint64_t expression) into dtype d. */
void ec_from_bits(Ec *e, StrBuf *b, DType d, const char *bits);
/* Float constant literal of dtype d (f32/f64; narrow floats as bit patterns). */
void ec_float_lit(Ec *e, StrBuf *b, DType d, double x);

/* ---- emit_c_mem.c ---- */
bool ec_mem(Ec *e, const TpOp *op);

/* ---- emit_c_intrin.c ---- */
bool ec_intrin(Ec *e, const TpOp *op);

/* host-side rounding of a double to a narrow float format (constants) */
uint32_t ec_round_minifloat(double x, DType d);

#endif

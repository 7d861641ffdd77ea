/* emit_c_math.c: the CUDA math library's names for Tile IR math functions,
 * and which of them a kernel calls out of line.
 *
 * CUDA's math functions are inline: every call site of sinf is a copy of its
 * ~110 PTX instructions, Payne-Hanek slow path included. The thread program
 * repeats an elementwise op for each element a thread owns, so a kernel with a
 * dozen sin/cos on a 1024-element tile holds ~100 copies: a 600 KB cubin and
 * seconds of nvrtc. Past a budget of inline copies, the costliest functions
 * get one `__noinline__` wrapper each and their sites call it: a call costs a
 * few instructions, where the inline copies cost compile time and instruction
 * cache. Cheap functions (exp, exp2, log, sqrt, tanh: softmax's and
 * attention's hot paths) are always inline.
 */
#include <stdio.h>
#include <string.h>

#include "codegen/emit_c_internal.h"

static const char *const math_f32[MATH_COUNT] = {
        [MATH_EXP] = "expf",           [MATH_EXP2] = "exp2f",   [MATH_LOG] = "logf",
        [MATH_LOG2] = "log2f",         [MATH_SQRT] = "sqrtf",   [MATH_RSQRT] = "rsqrtf",
        [MATH_SIN] = "sinf",           [MATH_COS] = "cosf",     [MATH_TAN] = "tanf",
        [MATH_TANH] = "tanhf",         [MATH_ERF] = "erff",     [MATH_FLOOR] = "floorf",
        [MATH_CEIL] = "ceilf",         [MATH_ABS] = "fabsf",    [MATH_POW] = "powf",
        [MATH_ATAN2] = "atan2f",       [MATH_LOG1P] = "log1pf", [MATH_EXPM1] = "expm1f",
        [MATH_ROUND] = "roundf",       [MATH_TRUNC] = "truncf", [MATH_ASIN] = "asinf",
        [MATH_ACOS] = "acosf",         [MATH_ATAN] = "atanf",   [MATH_SINH] = "sinhf",
        [MATH_COSH] = "coshf",         [MATH_FMOD] = "fmodf",   [MATH_CBRT] = "cbrtf",
        [MATH_RINT] = "rintf",         [MATH_ISNAN] = "isnan",  [MATH_ISINF] = "isinf",
        [MATH_SIGNBIT] = "signbit",    [MATH_FDIM] = "fdimf",   [MATH_HYPOT] = "hypotf",
        [MATH_COPYSIGN] = "copysignf", [MATH_LOG10] = "log10f", [MATH_ACOSH] = "acoshf",
        [MATH_ASINH] = "asinhf",       [MATH_ATANH] = "atanhf", [MATH_ERFC] = "erfcf",
        [MATH_LGAMMA] = "lgammaf",     [MATH_TGAMMA] = "tgammaf", [MATH_LOGB] = "logbf",
        [MATH_J0] = "j0f",             [MATH_J1] = "j1f",       [MATH_Y0] = "y0f",
        [MATH_Y1] = "y1f",             [MATH_NEXTAFTER] = "nextafterf",
        [MATH_REMAINDER] = "remainderf",
};

/* PTX instructions one inline call site costs, f32 and f64, as nvcc 13 emits
 * them for sm_90a (a one-call kernel less an empty one's). 0: never outlined,
 * either cheap or not float -> float (isnan, signbit). */
static const unsigned short inline_cost[MATH_COUNT][2] = {
        [MATH_EXP] = {0, 60},     [MATH_EXP2] = {0, 62},    [MATH_LOG] = {0, 81},
        [MATH_LOG2] = {0, 84},    [MATH_SIN] = {112, 209},  [MATH_COS] = {113, 210},
        [MATH_TAN] = {113, 232},  [MATH_TANH] = {0, 81},    [MATH_ERF] = {0, 92},
        [MATH_POW] = {129, 277},  [MATH_ATAN2] = {58, 81},  [MATH_LOG1P] = {0, 114},
        [MATH_EXPM1] = {0, 67},   [MATH_ASIN] = {0, 93},    [MATH_ACOS] = {0, 115},
        [MATH_ATAN] = {0, 58},    [MATH_SINH] = {0, 87},    [MATH_COSH] = {0, 58},
        [MATH_FMOD] = {83, 246},  [MATH_CBRT] = {0, 55},    [MATH_LOG10] = {0, 84},
        [MATH_ACOSH] = {63, 140}, [MATH_ASINH] = {61, 142}, [MATH_ATANH] = {57, 121},
        [MATH_ERFC] = {72, 150},  [MATH_LGAMMA] = {322, 499}, [MATH_TGAMMA] = {216, 701},
        [MATH_J0] = {194, 401},   [MATH_J1] = {196, 401},   [MATH_Y0] = {482, 784},
        [MATH_Y1] = {486, 784},   [MATH_REMAINDER] = {110, 263},
};

/* Inline copies of the costly functions a kernel may hold, in PTX
 * instructions: about 13 sinf, or a 1024-element tl.sin over 4 warps and a
 * cos beside it. nvrtc takes ~15 ms per sinf copy. */
enum { INLINE_MATH_BUDGET = 1600 };

static void count_sites(const Ec *e, const TpBlock *b, unsigned sites[MATH_COUNT][2])
{
	for (int i = 0; i < b->nops; i++) {
		const TpOp *op = b->ops[i];
		if (op->kind == TP_MATH && op->nin > 0 && op->attr.math >= 0 &&
		    op->attr.math < MATH_COUNT) {
			DType d = (DType)ec_ty(e, op->operands[0]).dt;
			if (dtype_is_float(d))
				sites[op->attr.math][d == DT_F64]++;
		}
		for (int r = 0; r < op->nregions; r++)
			count_sites(e, &op->regions[r], sites);
	}
}

void ec_plan_math(Ec *e)
{
	unsigned sites[MATH_COUNT][2] = {{0}};
	count_sites(e, e->f->body, sites);
	unsigned long total = 0;
	for (int m = 0; m < MATH_COUNT; m++)
		for (int w = 0; w < 2; w++)
			total += (unsigned long)sites[m][w] * inline_cost[m][w];
	/* outline the function whose copies cost most until the rest fits */
	while (total > INLINE_MATH_BUDGET) {
		unsigned long worst = 0;
		int wm = -1, ww = 0;
		for (int m = 0; m < MATH_COUNT; m++)
			for (int w = 0; w < 2; w++) {
				unsigned long c = (unsigned long)sites[m][w] * inline_cost[m][w];
				if (c > worst && !(e->outlined_math[m] & (1u << w)))
					worst = c, wm = m, ww = w;
			}
		if (wm < 0)
			break;
		e->outlined_math[wm] |= (uint8_t)(1u << ww);
		total -= worst;
	}
}

/* The f64 spelling drops the trailing 'f' (isnan/isinf/signbit are overloaded). */
static void library_name(StrBuf *b, MathFn m, bool f64)
{
	const char *s = math_f32[m];
	size_t n = strlen(s);
	bool strip = f64 && s[n - 1] == 'f' && m != MATH_ISINF;
	sb_putn(b, s, strip ? n - 1 : n);
}

void ec_math_callee(Ec *e, StrBuf *b, MathFn m, bool f64, int nargs)
{
	if (!(e->outlined_math[m] & (1u << f64))) {
		library_name(b, m, f64);
		return;
	}
	StrBuf lib = {0};
	library_name(&lib, m, f64);
	char name[48];
	snprintf(name, sizeof name, "tile_%s", lib.s);
	if (ec_want_helper(e, name)) {
		const char *t = f64 ? "double" : "float";
		sb_printf(&e->helpers, "static __device__ __noinline__ %s %s(%s a0", t, name, t);
		for (int i = 1; i < nargs; i++)
			sb_printf(&e->helpers, ", %s a%d", t, i);
		sb_printf(&e->helpers, ")\n{\n\treturn %s(a0", lib.s);
		for (int i = 1; i < nargs; i++)
			sb_printf(&e->helpers, ", a%d", i);
		sb_puts(&e->helpers, ");\n}\n");
	}
	sb_puts(b, name);
	sb_free(&lib);
}

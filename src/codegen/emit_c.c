/* emit_c.c: the thread program as CUDA C, compiled by libnvrtc.
 *
 * Requires: a verified TpFunc for a CUDA target (sm_80 or newer).
 * Guarantees: `extern "C" __global__ void NAME(params...)` with
 * __launch_bounds__(num_warps * 32), one statement per thread-program op,
 * structured control flow as for/if/while; no #include, so nvrtc needs no
 * header search path. Shared memory is `__shared__ unsigned char smem[N]`
 * (static up to 48 KiB, `extern __shared__` dynamic above: the launcher then
 * passes smem_bytes at launch). EMIT_PTX / EMIT_BINARY run nvrtc (PTX for
 * compute_XX, a cubin for sm_XX so a cached kernel never needs the driver's
 * PTX JIT). nvrtc errors are internal compiler errors: the generated source
 * is ours, not the user's.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/emit_c_internal.h"
#include "jit/cubin_info.h"
#include "jit/nvrtc.h"

/* ---- names, types, statements -------------------------------------------------- */

const char *ec_ctype(DType d)
{
	switch (d) {
	case DT_I1: return "bool";
	case DT_I8: return "int8_t";
	case DT_I16: return "int16_t";
	case DT_I32: return "int32_t";
	case DT_I64: return "int64_t";
	case DT_U8: return "uint8_t";
	case DT_U16: return "uint16_t";
	case DT_U32: return "uint32_t";
	case DT_U64: return "uint64_t";
	case DT_F8E4M3: return "f8e4m3_t";
	case DT_F8E5M2: return "f8e5m2_t";
	case DT_F16: return "f16_t";
	case DT_BF16: return "bf16_t";
	case DT_F32: return "float";
	case DT_F64: return "double";
	case DT_VOID: return "void";
	default: return "uint64_t";
	}
}

const char *ec_storage(DType d) { return d == DT_I1 ? "uint8_t" : ec_ctype(d); }

void ec_type_str(Type t, char *buf, int n)
{
	if (t.dt == DT_PTR)
		snprintf(buf, (size_t)n, "%s *", ec_storage((DType)t.elem));
	else
		snprintf(buf, (size_t)n, "%s", ec_ctype((DType)t.dt));
}

Type ec_ty(const Ec *e, TpVal v) { return tp_type(e->f, v); }

int ec_tmp(Ec *e) { return e->ntemps++; }

static void indent(StrBuf *b, int depth)
{
	for (int i = 0; i < depth; i++)
		sb_putc(b, '\t');
}

/* `#line N "file.tile"` before a statement of the nvrtc source: nvrtc
 * (-lineinfo) turns them into the PTX's .loc directives, so ncu's source view,
 * compute-sanitizer's reports and cuda-gdb name the kernel's own lines, as
 * Triton's line info does. Every statement gets one (a directive numbers the
 * lines after it); --emit cuda shows the source without them. */
static void line_directive(Ec *e)
{
	if (!e->line_info || !e->loc.file)
		return;
	sb_printf(&e->body, "#line %d \"", e->loc.line);
	for (const unsigned char *p = (const unsigned char *)e->loc.file->name; p && *p; p++) {
		/* nvrtc copies the name into the PTX's .file as \", which ptxas
		 * cannot parse: a quote in a file name is written as ' */
		if (*p == '"')
			sb_putc(&e->body, '\'');
		else if (*p == '\\')
			sb_printf(&e->body, "\\%c", *p);
		else if (*p < 0x20 || *p >= 0x7f)
			sb_printf(&e->body, "\\%03o", *p);
		else
			sb_putc(&e->body, (char)*p);
	}
	sb_puts(&e->body, "\"\n");
}

void ec_line(Ec *e, const char *fmt, ...)
{
	line_directive(e);
	indent(&e->body, e->depth);
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(&e->body, fmt, ap);
	va_end(ap);
	sb_putc(&e->body, '\n');
}

void ec_decl(Ec *e, TpVal v, const char *fmt, ...)
{
	char ty[48];
	ec_type_str(ec_ty(e, v), ty, sizeof ty);
	line_directive(e);
	indent(&e->body, e->depth);
	sb_printf(&e->body, "%s%sv%u = ", ty, ty[strlen(ty) - 1] == '*' ? "" : " ", v);
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(&e->body, fmt, ap);
	va_end(ap);
	sb_puts(&e->body, ";\n");
}

/* "T vN;" with no initializer (multi-result ops, if results). */
static void decl_bare(Ec *e, TpVal v)
{
	char ty[48];
	ec_type_str(ec_ty(e, v), ty, sizeof ty);
	ec_line(e, "%s%sv%u;", ty, ty[strlen(ty) - 1] == '*' ? "" : " ", v);
}

bool ec_const_true(const Ec *e, TpVal v)
{
	if (!v)
		return true;
	const TpOp *d = e->def[v];
	return d && d->kind == TP_CONST && d->attr.i != 0;
}

bool ec_want_helper(Ec *e, const char *name)
{
	for (size_t i = 0; i < e->helper_names.len; i++)
		if (!strcmp(e->helper_names.data[i], name))
			return false;
	vec_push(&e->helper_names, xstrdup(name));
	return true;
}

void ec_need(Ec *e, EcHelper h) { e->fixed |= 1u << h; }

/* ---- the prelude ------------------------------------------------------------------- */

static const char prelude_types[] =
        "typedef signed char int8_t;\n"
        "typedef short int16_t;\n"
        "typedef int int32_t;\n"
        "typedef long long int64_t;\n"
        "typedef unsigned char uint8_t;\n"
        "typedef unsigned short uint16_t;\n"
        "typedef unsigned int uint32_t;\n"
        "typedef unsigned long long uint64_t;\n"
        "typedef unsigned short f16_t;  /* IEEE binary16, as bits */\n"
        "typedef unsigned short bf16_t; /* bfloat16, as bits */\n"
        "typedef unsigned char f8e4m3_t; /* float8 e4m3 (no inf), as bits */\n"
        "typedef unsigned char f8e5m2_t; /* float8 e5m2, as bits */\n"
        "#define DEVFN static __device__ __forceinline__\n";

static const char *const prelude_fixed[H_COUNT] = {
        [H_F16] =
                "DEVFN float f16_to_f32(f16_t x)\n"
                "{ float r; asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(r) : \"h\"(x)); return r; }\n"
                "DEVFN f16_t f32_to_f16(float x)\n"
                "{ f16_t r; asm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(r) : \"f\"(x)); return r; }\n"
                "DEVFN f16_t f32_to_f16_rz(float x)\n"
                "{ f16_t r; asm(\"cvt.rz.f16.f32 %0, %1;\" : \"=h\"(r) : \"f\"(x)); return r; }\n",
        [H_BF16] =
                "DEVFN float bf16_to_f32(bf16_t x) { return __uint_as_float((uint32_t)x << 16); }\n"
                "DEVFN bf16_t f32_to_bf16(float x)\n"
                "{ bf16_t r; asm(\"cvt.rn.bf16.f32 %0, %1;\" : \"=h\"(r) : \"f\"(x)); return r; }\n"
                "DEVFN bf16_t f32_to_bf16_rz(float x)\n"
                "{ bf16_t r; asm(\"cvt.rz.bf16.f32 %0, %1;\" : \"=h\"(r) : \"f\"(x)); return r; "
                "}\n",
        [H_F8E4M3] = "DEVFN float f8e4m3_to_f32(f8e4m3_t x)\n"
                     "{\n"
                     "\tuint32_t s = (uint32_t)(x & 0x80) << 24, e = (x >> 3) & 15, m = x & 7;\n"
                     "\tif (e == 15 && m == 7)\n"
                     "\t\treturn __uint_as_float(s | 0x7fc00000u);\n"
                     "\tif (e == 0)\n"
                     "\t\treturn __uint_as_float(s | __float_as_uint((float)m * 0.001953125f));\n"
                     "\treturn __uint_as_float(s | ((e + 120) << 23) | (m << 20));\n"
                     "}\n",
        [H_F8E5M2] =
                "DEVFN float f8e5m2_to_f32(f8e5m2_t x)\n"
                "{\n"
                "\tuint32_t s = (uint32_t)(x & 0x80) << 24, e = (x >> 2) & 31, m = x & 3;\n"
                "\tif (e == 31)\n"
                "\t\treturn __uint_as_float(s | (m ? 0x7fc00000u : 0x7f800000u));\n"
                "\tif (e == 0)\n"
                "\t\treturn __uint_as_float(s | __float_as_uint((float)m * 0.0000152587890625f));\n"
                "\treturn __uint_as_float(s | ((e + 112) << 23) | (m << 21));\n"
                "}\n",
        /* f32 -> fp8 with round-to-nearest-even and saturation to the largest
         * finite value (PTX's cvt.rn.satfinite); NaN stays NaN. */
        [H_F32_F8] =
                "DEVFN uint8_t f32_to_f8(float f, int mb, int bias, uint32_t maxcode, uint32_t "
                "nan)\n"
                "{\n"
                "\tuint32_t u = __float_as_uint(f), s = (u >> 24) & 0x80u;\n"
                "\tu &= 0x7fffffffu;\n"
                "\tif (u > 0x7f800000u)\n"
                "\t\treturn (uint8_t)(s | nan);\n"
                "\tint e = (int)(u >> 23) - 127, emin = 1 - bias;\n"
                "\tif (e > bias + 1)\n"
                "\t\treturn (uint8_t)(s | maxcode);\n"
                "\tif (e < emin - mb - 1)\n"
                "\t\treturn (uint8_t)s;\n"
                "\tuint32_t mant = (u & 0x7fffffu) | 0x800000u;\n"
                "\tint shift = 23 - mb + (e < emin ? emin - e : 0);\n"
                "\tuint32_t q = mant >> shift, rem = mant & ((1u << shift) - 1u), half = 1u << "
                "(shift - 1);\n"
                "\tif (rem > half || (rem == half && (q & 1u)))\n"
                "\t\tq++;\n"
                "\tuint32_t code = e < emin ? q : ((uint32_t)(e + bias) << mb) + q - (1u << mb);\n"
                "\treturn (uint8_t)(s | (code > maxcode ? maxcode : code));\n"
                "}\n",
        [H_F64_F16] =
                "DEVFN f16_t f64_to_f16(double x)\n"
                "{ f16_t r; asm(\"cvt.rn.f16.f64 %0, %1;\" : \"=h\"(r) : \"d\"(x)); return r; }\n",
        /* f64 and 32/64-bit integers to bf16 rounded once, as the CPU targets
         * and sm_90's cvt.rn.bf16.{f64,s64,...} do: the value rounded toward
         * zero to f32 with a sticky lowest bit when inexact (round to odd keeps
         * the halfway cases apart: 24 bits for bf16's 8), then cvt.rn. Through
         * a plain (float) cast 16809985 (0x1008001) was 16777216, not 16842752. */
        [H_TO_BF16] =
                "DEVFN bf16_t odd_f32_to_bf16(float r, bool inexact)\n"
                "{ return f32_to_bf16(__uint_as_float(__float_as_uint(r) | (inexact ? 1u : 0u))); }\n"
                "DEVFN bf16_t f64_to_bf16(double x)\n"
                "{ float r = __double2float_rz(x); return odd_f32_to_bf16(r, (double)r != x && x == x); }\n"
                "DEVFN bf16_t i64_to_bf16(int64_t x)\n"
                "{ float r = __ll2float_rz(x); return odd_f32_to_bf16(r, (int64_t)r != x); }\n"
                "DEVFN bf16_t u64_to_bf16(uint64_t x)\n"
                "{ float r = __ull2float_rz(x); return odd_f32_to_bf16(r, (uint64_t)r != x); }\n",
        /* f64 -> fp8 rounded once: f64 rounded to odd in f32 (toward zero, the
         * lowest bit set when inexact; 24 bits keep fp8's 2 or 3 apart), then the
         * f32 -> fp8 rounding. Through a plain (float) cast, the f64 just above
         * a midpoint of two fp8 values became the midpoint and rounded to even:
         * 1.0625 + 2^-40 gave 1.0 in e4m3 where the CPU targets give 1.125. */
        [H_F64_ODD] = "DEVFN float f64_to_f32_odd(double x)\n"
                      "{ float r = __double2float_rz(x); "
                      "return __uint_as_float(__float_as_uint(r) | ((double)r != x && x == x ? 1u : 0u)); }\n",
        /* Triton's PropagateNan.ALL (arith.minimumf / maximumf): NaN wins and
         * -0.0 is below +0.0 (equal operands merge their bits: OR for the
         * minimum, AND for the maximum), as the CPU targets compute it */
        [H_FMIN_NAN] = "DEVFN float fminf_nan(float a, float b) { return a != a ? a : b != b ? b : "
                       "a == b ? __int_as_float(__float_as_int(a) | __float_as_int(b)) : fminf(a, b); }\n"
                       "DEVFN float fmaxf_nan(float a, float b) { return a != a ? a : b != b ? b : "
                       "a == b ? __int_as_float(__float_as_int(a) & __float_as_int(b)) : fmaxf(a, b); }\n"
                       "DEVFN double fmin_nan(double a, double b) { return a != a ? a : b != b ? b : a == b "
                       "? __longlong_as_double(__double_as_longlong(a) | __double_as_longlong(b)) : fmin(a, b); }\n"
                       "DEVFN double fmax_nan(double a, double b) { return a != a ? a : b != b ? b : a == b "
                       "? __longlong_as_double(__double_as_longlong(a) & __double_as_longlong(b)) : fmax(a, b); }\n",
        /* float to an 8- or 16-bit integer saturates, as on the CPU targets
         * (fptosi.sat): a C cast wraps the 32-bit conversion (300.5 -> 44);
         * the 32-bit one saturates and gives 0 for NaN */
        [H_F2I_SAT] = "DEVFN int32_t f2i_sat(float x, int32_t lo, int32_t hi)\n"
                      "{ int32_t v = __float2int_rz(x); return v < lo ? lo : v > hi ? hi : v; }\n"
                      "DEVFN uint32_t f2u_sat(float x, uint32_t hi) { uint32_t v = __float2uint_rz(x); return v > hi ? hi : v; }\n"
                      "DEVFN int32_t d2i_sat(double x, int32_t lo, int32_t hi)\n"
                      "{ int32_t v = __double2int_rz(x); return v < lo ? lo : v > hi ? hi : v; }\n"
                      "DEVFN uint32_t d2u_sat(double x, uint32_t hi) { uint32_t v = __double2uint_rz(x); return v > hi ? hi : v; }\n",
        /* f32 -> tf32 bits, round to nearest even; inf and NaN kept */
        [H_TF32] = "DEVFN uint32_t f32_to_tf32(float x)\n"
                   "{\n"
                   "\tuint32_t u = __float_as_uint(x);\n"
                   "\tif ((u & 0x7f800000u) == 0x7f800000u)\n"
                   "\t\treturn u;\n"
                   "\treturn (u + 0xfffu + ((u >> 13) & 1u)) & ~0x1fffu;\n"
                   "}\n",
};

/* fp8 conversions from f32: cvt on sm_89+, the software rounding before. */
static void prelude_f8_from_f32(const Ec *e, StrBuf *o)
{
	static const char *const names[2] = {"e4m3", "e5m2"};
	static const char *const soft[2] = {"3, 7, 0x7eu, 0x7fu", "2, 15, 0x7bu, 0x7fu"};
	for (int i = 0; i < 2; i++) {
		if (!(e->fixed & (1u << (i ? H_F8E5M2 : H_F8E4M3))))
			continue;
		sb_printf(o, "DEVFN f8%s_t f32_to_f8%s(float x)\n{\n", names[i], names[i]);
		if (e->arch >= 89)
			sb_printf(
			        o,
			        "\tuint16_t r;\n"
			        "\tasm(\"cvt.rn.satfinite.%sx2.f32 %%0, %%1, %%2;\" : \"=h\"(r) : "
			        "\"f\"(0.0f), \"f\"(x));\n"
			        "\treturn (f8%s_t)(r & 0xff);\n}\n",
			        names[i], names[i]);
		else
			sb_printf(o, "\treturn f32_to_f8(x, %s);\n}\n", soft[i]);
	}
}

/* fp8 -> f16, exact, one value or a pair packed as f16x2 (an f16 mma
 * register on targets without fp8 mma.sync). e5m2 is the high byte of an
 * f16. e4m3: cvt on sm_89+; before that its bits are moved into an f16
 * (exponent bias 7 read as 15, subnormals too) and scaled by 2^8, with NaN
 * (S.1111.111) put back. */
static void prelude_f8_to_f16(const Ec *e, StrBuf *o)
{
	if (e->fixed & (1u << H_F8E5M2_F16))
		sb_puts(o, "DEVFN f16_t f8e5m2_to_f16(f8e5m2_t x) { return (f16_t)((uint32_t)x << 8); }\n"
		           "DEVFN uint32_t f8e5m2x2_to_f16x2(uint32_t lo, uint32_t hi)\n"
		           "{ return (lo & 0xffu) << 8 | (hi & 0xffu) << 24; }\n");
	if (!(e->fixed & (1u << H_F8E4M3_F16)))
		return;
	if (e->arch >= 89) {
		sb_puts(o, "DEVFN uint32_t f8e4m3x2_to_f16x2(uint32_t lo, uint32_t hi)\n{\n"
		           "\tuint32_t r;\n"
		           "\tasm(\"cvt.rn.f16x2.e4m3x2 %0, %1;\" : \"=r\"(r) : "
		           "\"h\"((uint16_t)((lo & 0xffu) | (hi & 0xffu) << 8)));\n"
		           "\treturn r;\n}\n");
	} else {
		sb_puts(o, "DEVFN uint32_t f8e4m3x2_to_f16x2(uint32_t lo, uint32_t hi)\n{\n"
		           "\tuint32_t w = (lo & 0xffu) | (hi & 0xffu) << 16;\n"
		           "\tuint32_t r = (w & 0x00800080u) << 8 | (w & 0x007f007fu) << 7;\n"
		           "\tasm(\"mul.rn.f16x2 %0, %0, %1;\" : \"+r\"(r) : \"r\"(0x5c005c00u));\n"
		           "\tuint32_t nan = (((w & 0x007f007fu) + 0x00010001u) & 0x00800080u) >> 7;\n"
		           "\tnan *= 0xffffu;\n"
		           "\treturn (r & ~nan) | (0x7e007e00u & nan);\n}\n");
	}
	sb_puts(o, "DEVFN f16_t f8e4m3_to_f16(f8e4m3_t x) { return (f16_t)f8e4m3x2_to_f16x2(x, 0); }\n");
}

static void print_prelude(const Ec *e, StrBuf *o)
{
	const TpFunc *f = e->f;
	sb_printf(o, "// %s: generated by tile for %s, num_warps=%d\n",
	          f->display ? f->display : f->name, f->target.name, f->num_warps);
	sb_puts(o, prelude_types);
	uint32_t fixed = e->fixed;
	if ((fixed & ((1u << H_F8E4M3) | (1u << H_F8E5M2))) && e->arch < 89)
		fixed |= 1u << H_F32_F8;
	for (int h = 0; h < H_COUNT; h++)
		if ((fixed & (1u << h)) && prelude_fixed[h])
			sb_puts(o, prelude_fixed[h]);
	prelude_f8_from_f32(e, o);
	prelude_f8_to_f16(e, o);
	if (e->helpers.len)
		sb_puts(o, e->helpers.s);
}

/* ---- kernel signature --------------------------------------------------------------- */

void ec_param_name(const TpFunc *f, int i, StrBuf *b)
{
	const char *s = f->params[i].name;
	bool ok = s && *s && !(*s >= '0' && *s <= '9');
	for (const char *c = s; ok && *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '_'))
			ok = false;
	if (ok)
		sb_printf(b, "arg_%s", s);
	else
		sb_printf(b, "arg%d", i);
}

/* Loops carrying at least this many registers of values that are not
 * pointers (a pointer tile advanced by a uniform step is strength-reduced by
 * NVVM, and counting it would flag every pipelined matmul), a 128-register
 * accumulator tile and up, are declared to need one block per SM only: left to itself,
 * ptxas gave a 128x256x64 fp16 matmul tile over 8 warps 32 registers and
 * 10 KB of spills per thread (255 and under 1 KB with the minimum). Smaller
 * kernels keep ptxas's own budget, which favours occupancy; when that spills
 * anyway, compile_source tries again with the minimum (spill_retry). */
enum { HEAVY_LOOP_WORDS = 128 };

/* Does the block (or a nested one) address shared memory through PTX
 * (ldmatrix, cp.async), which wants 32-bit shared-window addresses? */
static bool uses_shared_window(const TpBlock *b)
{
	for (int i = 0; i < b->nops; i++) {
		const TpOp *op = b->ops[i];
		if (op->kind == TP_LDMATRIX || op->kind == TP_CP_ASYNC)
			return true;
		for (int r = 0; r < op->nregions; r++)
			if (uses_shared_window(&op->regions[r]))
				return true;
	}
	return false;
}

static void print_signature(const Ec *e, StrBuf *o)
{
	const TpFunc *f = e->f;
	int nthreads = f->num_warps * 32;
	if (e->one_block || tp_loop_carried_words(f, f->body, false) >= HEAVY_LOOP_WORDS)
		sb_printf(o, "\nextern \"C\" __global__ void __launch_bounds__(%d, 1) %s(", nthreads, f->name);
	else
		sb_printf(o, "\nextern \"C\" __global__ void __launch_bounds__(%d) %s(", nthreads, f->name);
	for (int i = 0; i < f->nparams; i++) {
		char ty[48];
		ec_type_str(f->params[i].ty, ty, sizeof ty);
		sb_printf(o, "%s%s%s", i ? ", " : "", ty, ty[strlen(ty) - 1] == '*' ? "" : " ");
		ec_param_name(f, i, o);
	}
	sb_puts(o, ")\n{\n");
	if (f->smem_bytes > EC_STATIC_SMEM_MAX)
		sb_printf(
		        o,
		        "\textern __shared__ __align__(16) unsigned char smem[]; /* %d bytes */\n",
		        f->smem_bytes);
	else if (f->smem_bytes > 0)
		sb_printf(o, "\t__shared__ __align__(16) unsigned char smem[%d];\n", f->smem_bytes);
	/* once, so each access is one 32-bit add (not a 64-bit generic
	 * address converted per access) */
	if (f->smem_bytes > 0 && uses_shared_window(f->body))
		sb_puts(o, "\tconst uint32_t smem_s = (uint32_t)__cvta_generic_to_shared(smem);\n");
}

/* ---- control flow --------------------------------------------------------------------- */

static void emit_op(Ec *e, const TpOp *op);

/* Region arguments are copies of the loop-carried variables `from`. */
static void bind_args(Ec *e, const TpBlock *b, int first, const TpVal *from, int n)
{
	for (int i = 0; i < n && first + i < b->nargs; i++)
		ec_decl(e, b->args[first + i], "v%u", from[i]);
}

/* The body of a region without its terminator; returns the terminator. */
static const TpOp *emit_region_body(Ec *e, const TpBlock *b)
{
	const TpOp *term = NULL;
	for (int i = 0; i < b->nops; i++) {
		const TpOp *op = b->ops[i];
		if (tp_op_flags((TpOpKind)op->kind) & TF_TERM) {
			term = op;
			break;
		}
		emit_op(e, op);
	}
	return term;
}

/* vals[i] = yield operands (from operand `first` on). */
static void assign_from(Ec *e, const TpVal *dst, int n, const TpOp *term, int first)
{
	for (int i = 0; i < n && term && first + i < term->nin; i++)
		if (dst[i] != term->operands[first + i])
			ec_line(e, "v%u = v%u;", dst[i], term->operands[first + i]);
}

int64_t ec_const_int(const Ec *e, TpVal v, bool *known)
{
	const TpOp *d = e->def[v];
	*known = d && d->kind == TP_CONST;
	return *known ? d->attr.i : 0;
}

static void emit_for(Ec *e, const TpOp *op)
{
	int n = op->nout;
	for (int i = 0; i < n; i++)
		ec_decl(e, op->results[i], "v%u", op->operands[3 + i]);
	const TpBlock *b = &op->regions[0];
	TpVal iv = b->args[0];
	bool known;
	int64_t step = ec_const_int(e, op->operands[2], &known);
	char ty[48];
	ec_type_str(ec_ty(e, iv), ty, sizeof ty);
	ec_line(e, "for (%s v%u = v%u; v%u %s v%u; v%u += v%u) {", ty, iv, op->operands[0], iv,
	        known && step < 0 ? ">" : "<", op->operands[1], iv, op->operands[2]);
	e->depth++;
	bind_args(e, b, 1, op->results, n);
	const TpOp *term = emit_region_body(e, b);
	assign_from(e, op->results, n, term, 0);
	e->depth--;
	ec_line(e, "}");
}

static void emit_if(Ec *e, const TpOp *op)
{
	for (int i = 0; i < op->nout; i++)
		decl_bare(e, op->results[i]);
	ec_line(e, "if (v%u) {", op->operands[0]);
	for (int r = 0; r < op->nregions; r++) {
		if (r == 1) {
			if (!op->nout && op->regions[1].nops <= 1)
				break; /* an empty else */
			ec_line(e, "} else {");
		}
		e->depth++;
		const TpOp *term = emit_region_body(e, &op->regions[r]);
		assign_from(e, op->results, op->nout, term, 0);
		e->depth--;
	}
	ec_line(e, "}");
}

static void emit_while(Ec *e, const TpOp *op)
{
	const TpBlock *before = &op->regions[0], *after = &op->regions[1];
	for (int i = 0; i < before->nargs; i++)
		ec_decl(e, before->args[i], "v%u", op->operands[i]);
	for (int i = 0; i < op->nout; i++)
		decl_bare(e, op->results[i]);
	ec_line(e, "for (;;) {");
	e->depth++;
	const TpOp *cond = emit_region_body(e, before);
	assign_from(e, op->results, op->nout, cond, 1);
	if (cond)
		ec_line(e, "if (!v%u)", cond->operands[0]);
	ec_line(e, "\tbreak;");
	bind_args(e, after, 0, op->results, op->nout);
	const TpOp *term = emit_region_body(e, after);
	assign_from(e, before->args, before->nargs, term, 0);
	e->depth--;
	ec_line(e, "}");
}

/* ---- dispatch ---------------------------------------------------------------------------- */

static void emit_op(Ec *e, const TpOp *op)
{
	if (op->loc.file && op->loc.line > 0)
		e->loc = op->loc;
	switch ((TpOpKind)op->kind) {
	case TP_FOR: emit_for(e, op); return;
	case TP_IF: emit_if(e, op); return;
	case TP_WHILE: emit_while(e, op); return;
	case TP_YIELD:
	case TP_CONDITION:
	case TP_RETURN: return;
	default: break;
	}
	if (ec_arith(e, op) || ec_mem(e, op) || ec_intrin(e, op))
		return;
	ice("emit_cuda", "unsupported thread-program op '%s'", tp_op_name((TpOpKind)op->kind));
}

static void emit_block(Ec *e, const TpBlock *b)
{
	for (int i = 0; i < b->nops; i++)
		emit_op(e, b->ops[i]);
}

static void index_defs(Ec *e, const TpBlock *b)
{
	for (int i = 0; i < b->nops; i++) {
		const TpOp *op = b->ops[i];
		for (int r = 0; r < op->nout; r++)
			e->def[op->results[r]] = op;
		for (int r = 0; r < op->nregions; r++)
			index_defs(e, &op->regions[r]);
	}
}

/* The whole translation unit (heap string). one_block: declare one block
 * per SM in the launch bounds even for a light kernel; line_info: #line
 * directives naming the kernel's source (line_directive). */
static char *emit_source(const TpFunc *f, bool one_block, bool line_info)
{
	Ec e = {0};
	e.f = f;
	e.one_block = one_block;
	e.line_info = line_info;
	e.arch = f->target.arch ? f->target.arch : 80;
	e.depth = 1;
	e.def = xcalloc(f->vals.len + 1, sizeof *e.def);
	index_defs(&e, f->body);
	ec_plan_math(&e);
	emit_block(&e, f->body);
	/* the closing brace (the exit) on the last statement's line, not on the
	 * line after it, which may be blank or another function's */
	line_directive(&e);

	StrBuf out = {0};
	print_prelude(&e, &out);
	print_signature(&e, &out);
	if (e.body.len)
		sb_puts(&out, e.body.s);
	sb_puts(&out, "}\n");

	sb_free(&e.body);
	sb_free(&e.helpers);
	for (size_t i = 0; i < e.helper_names.len; i++)
		free(e.helper_names.data[i]);
	vec_free(&e.helper_names);
	free(e.def);
	return sb_take(&out);
}

/* ---- nvrtc ------------------------------------------------------------------------------------
 */

/* "internal compiler error in emit_cuda: nvrtc: ..." with the log's first lines. */
static void report_nvrtc(DiagSink *diags, const char *err, const char *log)
{
	StrBuf b = {0};
	sb_printf(&b, "internal compiler error in emit_cuda: %s", err);
	int lines = 0;
	for (const char *p = log; p && *p && lines < 8; lines++) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		if (n) {
			sb_puts(&b, "\n  ");
			sb_putn(&b, p, n);
		}
		p = nl ? nl + 1 : p + n;
	}
	SrcLoc none = {0};
	diag_error(diags, none, "%s", b.s);
	sb_free(&b);
}

/* Spill bytes (stores) ptxas reported in a `-v` log, summed over the
 * functions it lists (the kernel and its noinline helpers); -1 when it says
 * none. */
static long log_spill_bytes(const char *log)
{
	long sum = -1;
	for (const char *p = log ? strstr(log, " bytes spill stores") : NULL; p;
	     p = strstr(p + 1, " bytes spill stores")) {
		const char *q = p;
		while (q > log && q[-1] >= '0' && q[-1] <= '9')
			q--;
		if (q < p)
			sum = (sum < 0 ? 0 : sum) + strtol(q, NULL, 10);
	}
	return sum;
}

/* Registers per thread ptxas reported in a `-v` log ("Used N registers"); -1
 * when it says none. */
static int log_registers(const char *log)
{
	const char *p = log ? strstr(log, "Used ") : NULL;
	if (!p)
		return -1;
	char *end;
	long n = strtol(p + 5, &end, 10);
	return end > p + 5 && strncmp(end, " registers", 10) == 0 ? (int)n : -1;
}

/* A kernel's registers and local memory (stack frame: spills) per thread, as
 * the cubin records them; ptxas's `-v` log is the fallback. nvrtc leaves the
 * log empty when it serves the cubin from its cache (CUDA 12.9+ with a
 * driver), which made a spilling kernel look spill free. A frame with no
 * spill store in the log is local arrays, not spills (cosf/sinf's slow-path
 * argument reduction keeps 28 bytes each): 0, so the report says none and no
 * variant is compiled to remove it. */
static void cubin_usage(const TpFunc *f, const NvrtcOutput *o, int *regs, long *spill)
{
	int r, frame;
	long logged = log_spill_bytes(o->log);
	if (o->code && cubin_resources(o->code, o->code_len, f->name, &r, &frame)) {
		*regs = r;
		*spill = logged == 0 ? 0 : frame;
		return;
	}
	*regs = log_registers(o->log);
	*spill = logged;
	if (*spill < 0 && o->log && strstr(o->log, "registers"))
		*spill = 0;
}

/* What nvrtc is asked for f: the file name shown in its log, the options
 * (their count without the last, --ptxas-options=-v, which is dropped on a
 * retry) and the architecture's suffix. */
static int nvrtc_request(const TpFunc *f, char file[160], const char *opts[3], const char **suffix)
{
	const char *name = f->target.name;
	size_t len = strlen(name);
	*suffix = len && name[len - 1] == 'a' ? "a" : "";
	snprintf(file, 160, "%s.cu", f->name);
	/* -lineinfo: the source's #line directives become the PTX's .loc lines;
	 * --fmad=false: no a * b + c contracted into an fma (Triton's
	 * enable_fp_fusion=False). */
	int nopts = 0;
	if (f->line_info)
		opts[nopts++] = "-lineinfo";
	if (f->no_fmad)
		opts[nopts++] = "--fmad=false";
	opts[nopts] = "--ptxas-options=-v";
	return nopts;
}

/* One nvrtc run of src; for a cubin, its registers and local memory bytes
 * in *regs and *spill when asked (-1 when unknown). */
static bool run_nvrtc(const Nvrtc *nv, const TpFunc *f, const char *src, NvrtcWant want,
                      int *regs, long *spill, NvrtcOutput *o, char *err, size_t errlen)
{
	char file[160];
	const char *opts[3];
	const char *suffix;
	int nopts = nvrtc_request(f, file, opts, &suffix);
	bool ok = nvrtc_compile(nv, src, file, f->target.arch, suffix, want, opts,
	                        nopts + (spill ? 1 : 0), o, err, errlen);
	if (!ok && spill) { /* an nvrtc without --ptxas-options: compile as before */
		nvrtc_output_free(o);
		ok = nvrtc_compile(nv, src, file, f->target.arch, suffix, want, opts, nopts, o,
		                   err, errlen);
	}
	if (spill) {
		*regs = -1;
		*spill = -1;
		if (ok && want != NVRTC_PTX)
			cubin_usage(f, o, regs, spill);
	}
	return ok;
}

/* ptxas budgets registers for occupancy unless the launch bounds ask for one
 * block per SM, and where that budget spills it can do far worse than a
 * full register file: an unrolled fp8 GEMM got 32 registers and 17 KB of
 * spills per thread (255 and 4.5 KB with one block). So a cubin that spills
 * is compiled again with __launch_bounds__(threads, 1), and that one is
 * kept if it spills at least a tenth less. PTX is chosen the same way, so
 * --emit ptx shows what the cubin was built from. When it is kept, *o is
 * its cubin (the first one freed).
 *
 * A first cubin that already has the whole register file (255 a thread)
 * cannot get more from the bounds; only ptxas's scheduling changes, which
 * moved a few words (SLA's attention forward: 72 -> 64 bytes, 40 -> 8) but
 * never a bigger spill in the upstream configs of corpora 33-34 (88, 336,
 * 408, 1008, 1240, 1384 bytes: the same or within a tenth). Those are the
 * big programs whose ptxas runs cost seconds (an elementwise kernel at 128
 * elements a thread: 1.5 s a run), so past SMALL_SPILL_BYTES at 255
 * registers there is no retry. */
enum { MAX_THREAD_REGISTERS = 255, SMALL_SPILL_BYTES = 128 };

static bool spill_retry(const Nvrtc *nv, const TpFunc *f, char **src, int regs, long spill,
                        NvrtcWant want, NvrtcOutput *o, double *secs, char *err, size_t errlen)
{
	if (spill <= 0 || (regs >= MAX_THREAD_REGISTERS && spill > SMALL_SPILL_BYTES) ||
	    tp_loop_carried_words(f, f->body, false) >= HEAVY_LOOP_WORDS)
		return false;
	char *alt = emit_source(f, true, f->line_info);
	NvrtcOutput o1;
	int regs1;
	long spill1 = -1;
	bool ok = run_nvrtc(nv, f, alt, want, &regs1, &spill1, &o1, err, errlen);
	*secs += o1.seconds;
	if (!ok || spill1 < 0 || spill1 * 10 > spill * 9) {
		nvrtc_output_free(&o1);
		free(alt);
		return false;
	}
	nvrtc_output_free(o);
	*o = o1;
	free(*src);
	*src = alt;
	return true;
}

static bool compile_source(const TpFunc *f, char **src, bool want_ptx, NvrtcMemo *memo,
                           DiagSink *diags, EmitResult *out)
{
	Nvrtc nv;
	char err[512];
	SrcLoc none = {0};
	if (!nvrtc_open(&nv, err, sizeof err)) {
		diag_error(diags, none, "%s", err);
		return false;
	}
	nv.memo = memo;
	char known[256];
	if (!nvrtc_supports_arch(&nv, f->target.arch, known, sizeof known)) {
		diag_error(diags, none, "target '%s': nvrtc %d.%d does not compile for it (it knows %s)",
		           f->target.name, nv.major, nv.minor, known);
		nvrtc_close(&nv);
		return false;
	}
	NvrtcOutput o;
	int regs = -1;
	long spill = -1;
	/* PTX: decide the launch bounds on a cubin first; the compilation that
	 * made it gives its PTX too */
	NvrtcWant want = want_ptx ? NVRTC_CUBIN_PTX : NVRTC_CUBIN;
	bool ok = run_nvrtc(&nv, f, *src, want, &regs, &spill, &o, err, sizeof err);
	out->seconds_codegen += o.seconds;
	if (ok)
		spill_retry(&nv, f, src, regs, spill, want, &o, &out->seconds_codegen, err, sizeof err);
	if (ok) { /* the cubin kept (or the PTX is chosen on) */
		long sp;
		cubin_usage(f, &o, &out->registers, &sp);
		out->spill_bytes = sp >= 0 && sp <= INT32_MAX ? (int)sp : -1;
	}
	if (want_ptx && !ok) { /* PTX of the source chosen, even where ptxas failed: it shows why */
		nvrtc_output_free(&o);
		ok = run_nvrtc(&nv, f, *src, NVRTC_PTX, NULL, NULL, &o, err, sizeof err);
		out->seconds_codegen += o.seconds;
		if (ok) { /* the front end passed, ptxas did not: the PTX, without registers */
			o.ptx = o.code;
			o.code = NULL;
		}
	}
	if (!ok) {
		report_nvrtc(diags, err, o.log);
	} else if (want_ptx) {
		out->text = o.ptx;
		o.ptx = NULL;
	} else {
		out->binary = o.code;
		out->binary_len = o.code_len;
		o.code = NULL;
	}
	nvrtc_output_free(&o);
	nvrtc_close(&nv);
	return ok;
}

bool emit_cuda_ahead(const TpFunc *f, NvrtcMemo *memo)
{
	if (f->target.kind != TARGET_CUDA || f->target.arch < 80 || f->lanes_per_warp != 32)
		return false;
	char *src = emit_source(f, false, f->line_info);
	char file[160];
	const char *opts[3];
	const char *suffix;
	int nopts = nvrtc_request(f, file, opts, &suffix);
	bool started = nvrtc_memo_start(memo, src, file, f->target.arch, suffix, NVRTC_CUBIN, opts,
	                                nopts + 1);
	free(src);
	return started;
}

bool emit_cuda(const TpFunc *f, EmitWhat what, NvrtcMemo *memo, DiagSink *diags,
               EmitResult *out)
{
	memset(out, 0, sizeof *out);
	out->registers = out->spill_bytes = -1;
	SrcLoc none = {0};
	if (what == EMIT_LLVM_IR) {
		diag_error(diags, none, "--emit=llvm is not available for CUDA targets");
		return false;
	}
	if (f->target.kind != TARGET_CUDA || f->target.arch < 80) {
		diag_error(diags, none,
		           "target '%s' is not a CUDA architecture tile supports (sm_80 "
		           "or newer)",
		           f->target.name);
		return false;
	}
	if (f->lanes_per_warp != 32)
		ice("emit_cuda", "CUDA needs 32 lanes per warp, the thread program has %d",
		    f->lanes_per_warp);
	char *src = emit_source(f, false, f->line_info && what != EMIT_CUDA_SRC);
	if (what == EMIT_CUDA_SRC) {
		out->text = src;
		return true;
	}
	bool ok = compile_source(f, &src, what == EMIT_PTX || what == EMIT_ASM, memo, diags, out);
	free(src);
	return ok;
}

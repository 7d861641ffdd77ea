/* target.c: the named targets (target.h). */
#include "ir/target.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void set_name(TargetDesc *t, const char *name)
{
	snprintf(t->name, sizeof t->name, "%s", name);
}

const char *options_problem(int num_warps, int num_stages, char *buf, size_t n)
{
	if (num_warps < 1 || num_warps > 32 || (num_warps & (num_warps - 1)))
		snprintf(buf, n, "num_warps must be a power of two between 1 and 32, got %d", num_warps);
	else if (num_stages < 1 || num_stages > 8)
		snprintf(buf, n, "num_stages must be between 1 and 8, got %d", num_stages);
	else
		return NULL;
	return buf;
}

bool target_from_name(const char *name, TargetDesc *t)
{
	if (!name || !t) return false;
	memset(t, 0, sizeof *t);
	if (!strcmp(name, "cpu")) {
		t->kind = TARGET_CPU;
		set_name(t, "cpu");
		t->lanes_per_warp = 8; /* 8 x fp32 SIMD */
		t->max_threads = 1024;
		t->max_shared_bytes = 1 << 20;
		return true;
	}
	if (!strcmp(name, "cuda-emu")) {
		t->kind = TARGET_CPU;
		set_name(t, "cuda-emu");
		t->lanes_per_warp = 32;
		t->max_threads = 1024;
		t->max_shared_bytes = 227 * 1024;
		t->emulate = true;
		t->has_mma_sync = t->has_ldmatrix = t->has_cp_async = true;
		t->has_mma_fp8 = true; /* runs the thread program of sm_90a */
		t->has_vector_atomics = true;
		return true;
	}
	if (!strncmp(name, "sm_", 3)) {
		const char *p = name + 3;
		char *end;
		long arch = strtol(p, &end, 10);
		if (end == p || arch < 80 || arch > 999 || (*end && strcmp(end, "a") != 0)) return false;
		if (strlen(name) >= sizeof t->name) return false;
		t->kind = TARGET_CUDA;
		set_name(t, name);
		t->arch = (int)arch;
		t->lanes_per_warp = 32;
		t->max_threads = 1024;
		if (arch >= 90) t->max_shared_bytes = 227 * 1024;
		else if (arch == 80 || arch == 87) t->max_shared_bytes = 163 * 1024;
		else t->max_shared_bytes = 99 * 1024;
		t->has_mma_sync = t->has_ldmatrix = t->has_cp_async = true;
		t->has_mma_fp8 = arch >= 89;
		t->has_vector_atomics = arch >= 90;
		return true;
	}
	return false;
}

static bool in_list(const char *name, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(name, list[i]))
			return true;
	return false;
}

static bool starts_with(const char *s, const char *p) { return !strncmp(s, p, strlen(p)); }

/* f32_to_f16, bf16_to_f32, f8e4m3_to_f32, ...: emit_c's conversion helpers */
static bool conversion_helper(const char *name)
{
	static const char *const from[] = {"f16_", "bf16_", "f32_", "f64_", "f8", "tf32_"};
	for (size_t i = 0; i < sizeof from / sizeof from[0]; i++)
		if (starts_with(name, from[i]) && strstr(name, "_to_"))
			return true;
	return false;
}

bool target_symbol_reserved(const char *name)
{
	static const char *const words[] = {
	        /* C and C++ keywords and alternative tokens a Python name can spell */
	        "alignas", "alignof", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "case",
	        "catch", "char", "char8_t", "char16_t", "char32_t", "compl", "concept", "const",
	        "consteval", "constexpr", "constinit", "const_cast", "decltype", "default",
	        "delete", "do", "double", "dynamic_cast", "enum", "explicit", "export", "extern",
	        "float", "friend", "goto", "inline", "int", "long", "mutable", "namespace", "new",
	        "noexcept", "not_eq", "nullptr", "operator", "or_eq", "private", "protected",
	        "public", "register", "reinterpret_cast", "requires", "restrict", "short", "signed",
	        "sizeof", "static", "static_assert", "static_cast", "struct", "switch", "template",
	        "this", "thread_local", "throw", "typedef", "typeid", "typename", "union",
	        "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "xor", "xor_eq",
	        "true", "false", "main", "std",
	        /* CUDA (and nvrtc's predefined macros, C-linkage builtins and PTX's WARP_SZ) */
	        "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "half", "dim3",
	        "uint3", "DEVFN", "smem", "smem_s", "WARP_SZ", "clock64", "NULL",
	        "va_list", "va_start", "va_end", "va_arg", "va_copy",
	        /* C library */
	        "printf", "malloc", "calloc", "realloc", "free", "memcpy", "memset", "memmove",
	        "memcmp", "strlen", "abort", "exit", "assert", "atexit", "puts", "vprintf",
	        /* math (each also with an f suffix, below) */
	        "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
	        "asinh", "acosh", "atanh", "exp", "exp2", "exp10", "expm1", "log", "log2", "log10",
	        "log1p", "logb", "ilogb", "pow", "sqrt", "rsqrt", "cbrt", "rcbrt", "hypot", "erf",
	        "erfc", "erfinv", "erfcinv", "erfcx", "lgamma", "tgamma", "floor", "ceil", "trunc",
	        "round", "rint", "nearbyint", "lrint", "llrint", "lround", "llround", "fabs", "abs",
	        "labs", "llabs", "fmod", "remainder", "remquo", "fmin", "fmax", "min", "max", "fdim",
	        "fma", "copysign", "nextafter", "frexp", "ldexp", "modf", "scalbn", "scalbln",
	        "j0", "j1", "jn", "y0", "y1", "yn", "nan", "isnan", "isinf", "isfinite", "signbit",
	        "sincos", "sincospi", "sinpi", "cospi", "normcdf", "normcdfinv", "norm3d", "rhypot",
	        "saturate", "umin", "umax", "llmin", "llmax", "ullmin", "ullmax",
	};
	size_t n = strlen(name);
	if (in_list(name, words, sizeof words / sizeof words[0]))
		return true;
	if (n > 1 && name[n - 1] == 'f') { /* sinf, expf, ... */
		char base[64];
		if (n - 1 < sizeof base) {
			memcpy(base, name, n - 1);
			base[n - 1] = 0;
			if (in_list(base, words, sizeof words / sizeof words[0]))
				return true;
		}
	}
	/* the CUDA runtime's names nvrtc declares: macros (CUDART_VERSION,
	 * cudaArrayDefault), enumerators (cudaSuccess), functions */
	if ((starts_with(name, "cuda") && isupper((unsigned char)name[4])) ||
	    (starts_with(name, "CUDA") && (isupper((unsigned char)name[4]) || name[4] == '_')) ||
	    starts_with(name, "CU_"))
		return true;
	/* reserved to the implementation in C and C++; POSIX types; emit_c's helpers;
	 * `_` alone, which is no PTX identifier (one starting with _ needs another
	 * character: ptxas's syntax error) */
	return !strcmp(name, "_") || starts_with(name, "__") || (name[0] == '_' && name[1] >= 'A' && name[1] <= 'Z') ||
	       (n > 2 && !strcmp(name + n - 2, "_t")) || starts_with(name, "tile_rt") ||
	       starts_with(name, "ld_global") || starts_with(name, "st_global") ||
	       starts_with(name, "atom_") || starts_with(name, "atomic_") ||
	       starts_with(name, "cp_async") || starts_with(name, "div_full") || conversion_helper(name) ||
	       (strstr(name, "_nan") && (starts_with(name, "fmax") || starts_with(name, "fmin")));
}

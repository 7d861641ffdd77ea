/* builtins_dtype.c: the methods of dtype values (is_fp16, is_floating, kind,
 * get_int_max_value, ...). */
#include <string.h>

#include "sema/sema_int.h"

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
		bool is_void = !strcmp(c->a[0].msg, "void"); /* tl.void: none of the number predicates */
		if (extra == 11 || ((extra == 4 || extra == 5) && !is_void)) return v_bool(true);
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
	case 14: return v_bool(d == DT_PTR && t.ptr_const); /* a `tl.const` parameter's pointer */
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
		n = dtype_value_name(s, c->a[0]);
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

/* block_type.get_block_shapes(): its shape (a scalar dtype has no such method in Triton) */
static Value b_dtype_block_shapes(Sema *s, Call *c, int extra)
{
	(void)extra;
	Value t = c->a[0];
	if (t.kind != V_DTYPE || t.n == 0) {
		diag_error(s->d, c->loc, "'get_block_shapes' of %s: not a block type (x.type of a block)",
			   t.kind == V_DTYPE ? dtype_triton_name(s, t.ty) : v_describe(s, t));
		return v_err();
	}
	return v_tuple(s, t.items, t.n);
}

/* dtype.with_element_ty(t): t; block_type's: a block type of t with its shape */
static Value b_dtype_with_element_ty(Sema *s, Call *c, int extra)
{
	(void)extra;
	Type t;
	if (!arg_dtype(s, c, 1, &t)) return v_err();
	Value r = v_dtype(t), self = c->a[0];
	if (self.kind == V_DTYPE && self.n > 0) {
		r.items = self.items;
		r.n = self.n;
	}
	return r;
}

const Builtin builtins_dtype[] = {
    {"with_element_ty", "self,element_ty", b_dtype_with_element_ty, 0, BF_DTYPE},
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
    {"get_block_shapes", "self", b_dtype_block_shapes, 0, BF_DTYPE},
    {NULL, NULL, NULL, 0, 0},
};

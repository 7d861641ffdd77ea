/* sema_attr.c: attribute lookup: obj.name on tensors, dtypes, constexprs, tuples, modules and the other values sema knows. */
#include <stdio.h>
#include <string.h>

#include "sema/sema_int.h"

/* ---- attributes ----------------------------------------------------------------- */

static Value shape_tuple(Sema *s, Type t)
{
	Value items[TIR_MAX_RANK];
	for (int i = 0; i < t.rank; i++) items[i] = v_int(t.shape[i]);
	return v_tuple(s, items, t.rank);
}

static Value tensor_attr(Sema *s, Value obj, const char *name, SrcLoc loc)
{
	if (!strcmp(name, "dtype")) return v_dtype(obj.ty);
	/* x.type: a block's type is Triton's block_type (element_ty, shape, scalar), a scalar's its dtype */
	if (!strcmp(name, "type")) {
		Value t = v_dtype(obj.ty);
		if (obj.ty.rank > 0) {
			Value shape = shape_tuple(s, obj.ty);
			t.n = shape.n;
			t.items = shape.items;
		}
		return t;
	}
	if (!strcmp(name, "shape")) return shape_tuple(s, obj.ty);
	if (!strcmp(name, "numel")) return v_int(type_numel(obj.ty));
	if (!strcmp(name, "ndim")) return v_int(obj.ty.rank);
	if (!strcmp(name, "T")) {
		Value *self = ARENA_NEW(s->a, Value);
		*self = obj;
		int id = builtin_find("trans", BF_METHOD);
		Call c = {.name = "tl.trans", .loc = loc};
		c.a[0] = obj;
		c.has[0] = true;
		c.at[0] = loc;
		return builtin_get(id)->fn(s, &c, builtin_get(id)->extra);
	}
	int id = builtin_find(name, BF_METHOD);
	if (id >= 0) {
		Value *self = ARENA_NEW(s->a, Value);
		*self = obj;
		return v_builtin(id, self);
	}
	diag_error(s->d, loc, "tensor has no attribute '%s'", name);
	return v_err();
}

/* What Triton's dtype answers in plain Python for the fp8 dtypes tile only names
 * (tl.float8e4b15, float8e4b8, float8e5b16): its name, sizes, format and predicates */
static Value foreign_dtype_attr(Sema *s, Value obj, const char *name, SrcLoc loc)
{
	const char *fp8 = obj.msg + strlen("float8"); /* e4b15, e4b8, e5b16 */
	bool is_void = !strcmp(obj.msg, "void"); /* tl.void: 0 bits, no float format */
	if (!strcmp(name, "name")) return v_str(dtype_value_name(s, obj));
	if (!strcmp(name, "primitive_bitwidth")) return v_int(is_void ? 0 : 8);
	if (!strcmp(name, "itemsize")) return v_int(is_void ? 0 : 1);
	if (!strcmp(name, "scalar") || !strcmp(name, "value")) return obj;
	if (!strcmp(name, "fp_mantissa_width") && !is_void) return v_int(fp8[1] == '4' ? 3 : 2);
	if (!strcmp(name, "exponent_bias") && !is_void) return v_int(atoi(fp8 + 3));
	if (is_void && !strcmp(name, "kind")) { /* Triton asserts is_floating() */
		diag_error(s->d, loc, "kind() of void: not a scalar number type (Triton asserts)");
		return v_err();
	}
	int id = builtin_find(name, BF_DTYPE);
	if (id >= 0 && (!strncmp(name, "is_", 3) || !strcmp(name, "kind") || !strcmp(name, "codegen_name"))) {
		Value *self = ARENA_NEW(s->a, Value);
		*self = obj;
		return v_builtin(id, self);
	}
	return foreign_dtype_error(s, obj, loc);
}

static Value dtype_attr(Sema *s, Value obj, const char *name, SrcLoc loc)
{
	if (v_is_foreign_dtype(obj)) return foreign_dtype_attr(s, obj, name, loc);
	if (obj.n > 0) { /* a block type (x.type of a block x): its element type and shape */
		if (!strcmp(name, "element_ty") || !strcmp(name, "scalar")) return v_dtype(obj.ty);
		if (!strcmp(name, "shape")) return v_tuple(s, obj.items, obj.n);
		if (!strcmp(name, "numel") || !strcmp(name, "nbytes")) {
			int64_t numel = 1;
			for (int i = 0; i < obj.n; i++) numel *= obj.items[i].c.i;
			/* nbytes as Triton's: numel * (primitive_bitwidth // 8) */
			return v_int(strcmp(name, "nbytes") ? numel : numel * (dtype_bits((DType)obj.ty.dt) / 8));
		}
	}
	/* pointer_type's address_space (global memory, 1) and const */
	if (obj.ty.dt == DT_PTR && obj.n == 0 && !strcmp(name, "address_space")) return v_int(1);
	if (obj.ty.dt == DT_PTR && obj.n == 0 && !strcmp(name, "const")) return v_bool(obj.ty.ptr_const);
	if (!strcmp(name, "element_ty")) {
		if (obj.ty.dt != DT_PTR) {
			diag_error(s->d, loc, "'element_ty' of %s: not a pointer type", dt_name(s, obj.ty));
			return v_err();
		}
		return v_dtype(type_scalar((DType)obj.ty.elem));
	}
	DType d = (DType)obj.ty.dt;
	/* int_bitwidth and int_signedness are set for integer dtypes only (int1 is
	 * unsigned); int_signedness is a dtype.SIGNEDNESS member */
	if (!strcmp(name, "int_bitwidth") || !strcmp(name, "int_signedness")) {
		if (!dtype_is_int(d) || d == DT_PTR) {
			diag_error(s->d, loc, "'%s' of %s: not an integer dtype (an AttributeError in Triton)", name,
				   dt_name(s, obj.ty));
			return v_err();
		}
		if (name[4] == 'b') return v_int(dtype_bits(d));
		return dtype_enum_member(s, false, !dtype_is_signed(d) || d == DT_I1);
	}
	if (!strcmp(name, "primitive_bitwidth")) return v_int(dtype_bits(d));
	if (!strcmp(name, "itemsize")) return v_int(dtype_bytes((DType)obj.ty.dt));
	if (!strcmp(name, "scalar")) return obj;
	if (!strcmp(name, "name")) return v_str(dtype_value_name(s, obj));
	if (dtype_is_float(d) && (!strcmp(name, "fp_mantissa_width") || !strcmp(name, "exponent_bias"))) {
		/* e4m3 (fn) 3/7, e5m2 2/15, fp16 10/15, bf16 7/127, fp32 23/127, fp64 52/1023 */
		static const int mant[] = {[DT_F8E4M3] = 3, [DT_F8E5M2] = 2, [DT_F16] = 10, [DT_BF16] = 7, [DT_F32] = 23, [DT_F64] = 52};
		static const int bias[] = {[DT_F8E4M3] = 7, [DT_F8E5M2] = 15, [DT_F16] = 15, [DT_BF16] = 127, [DT_F32] = 127, [DT_F64] = 1023};
		return v_int(name[0] == 'f' ? mant[d] : bias[d]);
	}
	if (!strcmp(name, "value")) return obj;
	int id = builtin_find(name, BF_DTYPE);
	if (id >= 0) {
		Value *self = ARENA_NEW(s->a, Value);
		*self = obj;
		return v_builtin(id, self);
	}
	diag_error(s->d, loc, "dtype has no attribute '%s'", name);
	return v_err();
}

/* tl.dtype.SIGNEDNESS / KIND, Enum classes of Triton's dtype. A member is an
 * object (a V_DICT whose msg is its class, by address) with the attributes
 * `name` and `value`; it equals only itself, never its int value, as a Python
 * Enum member. The class is an object whose attributes are the members. */
const char ENUM_SIGNEDNESS[] = "SIGNEDNESS", ENUM_KIND[] = "KIND";
static const char *const sign_names[] = {"SIGNED", "UNSIGNED"}, *const kind_names[] = {"BOOLEAN", "INTEGRAL", "FLOATING"};

Value dtype_enum_member(Sema *s, bool kind, int i)
{
	Value *keys = ARENA_NEWN(s->a, Value, 2), *vals = ARENA_NEWN(s->a, Value, 2);
	keys[0] = v_str("name");
	vals[0] = v_str(kind ? kind_names[i] : sign_names[i]);
	keys[1] = v_str("value");
	vals[1] = v_int(i);
	Value d = v_dict(s, keys, vals, 2);
	d.msg = kind ? ENUM_KIND : ENUM_SIGNEDNESS;
	return d;
}


static Value dtype_enum(Sema *s, const char *name)
{
	bool k = name[0] == 'K';
	int n = k ? 3 : 2;
	Value *keys = ARENA_NEWN(s->a, Value, n), *vals = ARENA_NEWN(s->a, Value, n);
	for (int i = 0; i < n; i++) {
		keys[i] = v_str(k ? kind_names[i] : sign_names[i]);
		vals[i] = dtype_enum_member(s, k, i);
	}
	Value d = v_dict(s, keys, vals, n);
	d.msg = k ? "dtype.KIND" : "dtype.SIGNEDNESS";
	return d;
}

/* a tuple of constexprs only (nested tuples too): what tl.constexpr can wrap */
static bool tuple_is_const(Value v)
{
	for (int i = 0; i < v.n; i++) {
		Value x = v.items[i];
		if (x.kind == V_TUPLE ? !tuple_is_const(x) : x.kind != V_CONST && x.kind != V_DTYPE) return false;
	}
	return true;
}

Value get_attr(Sema *s, Value obj, const char *name, SrcLoc loc)
{
	Value ev;
	if (enum_member_attr(s, obj, name, loc, &ev)) return ev; /* Act.RELU.name, .value */
	switch (obj.kind) {
	case V_ERR: return obj;
	case V_NS: return ns_attr(s, obj.ns, name, loc);
	case V_MODULE: return module_attr(s, obj.mod, name, loc);
	case V_TENSOR: return tensor_attr(s, obj, name, loc);
	case V_DTYPE: return dtype_attr(s, obj, name, loc);
	case V_CONST:
		if (!strcmp(name, "value")) return obj;
		/* Triton's constexpr.type: constexpr_type(value) (a number bound to a plain
		 * local is a tensor there, whose .type is its dtype: tile keeps it a constant) */
		if (!strcmp(name, "type")) return v_constexpr_type(s, obj);
		if (builtin_find(name, BF_CONSTEXPR) >= 0) { /* N.logical_and(x): Python's `and` */
			Value *self = ARENA_NEW(s->a, Value);
			*self = obj;
			return v_builtin(builtin_find(name, BF_CONSTEXPR), self);
		}
		if (obj.c.kind == CV_STR) { /* S.upper(), S.split(","): builtins_str.c */
			int id = builtin_find(name, BF_PYSTR);
			if (id >= 0) {
				Value *self = ARENA_NEW(s->a, Value);
				*self = obj;
				return v_builtin(id, self);
			}
		}
		/* a number's own Python methods (int.bit_length, float.is_integer) */
		if (obj.c.kind == CV_INT || obj.c.kind == CV_FLOAT || obj.c.kind == CV_BOOL) {
			int id = builtin_find(name, BF_PYNUM);
			/* bit_length and bit_count are int's (bool's) only; is_integer is both's */
			if (id >= 0 && (obj.c.kind != CV_FLOAT || builtin_get(id)->extra == 2)) {
				Value *self = ARENA_NEW(s->a, Value);
				*self = obj;
				return v_builtin(id, self);
			}
		}
		/* a number bound to a local is a tensor in Triton: it has a dtype */
		if (!strcmp(name, "dtype") && (obj.c.kind == CV_INT || obj.c.kind == CV_FLOAT || obj.c.kind == CV_BOOL))
			return v_dtype(const_natural_type(obj.c));
		/* ... and its methods: `n = BLOCK; n.to(tl.uint32)` (the natural type's scalar) */
		if ((obj.c.kind == CV_INT || obj.c.kind == CV_FLOAT || obj.c.kind == CV_BOOL) &&
		    builtin_find(name, BF_METHOD) >= 0) {
			ValId id;
			if (!value_as_ir(s, obj, loc, &id)) return v_err();
			return tensor_attr(s, v_tensor(s, id), name, loc);
		}
		if (obj.c.kind == CV_DTYPE) return dtype_attr(s, v_dtype(type_scalar(obj.c.dtype)), name, loc);
		break;
	case V_FUNC:
		if (!strcmp(name, "fn")) return obj;
		break;
	case V_TUPLE:
		if (obj.mod) return nt_attr(s, obj, name, loc);
		if (obj.set && builtin_find(name, BF_PYSET) >= 0) { /* s.union(t), s.add(x): builtins_set.c */
			Value *self = ARENA_NEW(s->a, Value);
			*self = obj;
			return v_builtin(builtin_find(name, BF_PYSET), self);
		}
		/* a constexpr_function's tuple result is a tl.constexpr: .value is the tuple */
		if (!strcmp(name, "value") && tuple_is_const(obj)) return obj;
		if (!strcmp(name, "type")) return value_type(s, obj, loc); /* tl.tuple_type of its items' */
		diag_error(s->d, loc, "tuple has no attribute '%s' (a NamedTuple given to a kernel arrives as a plain "
			   "tuple, without its field names: index it, or annotate the parameter with its class, "
			   "'p: Pair')", name);
		return v_err();
	case V_BLOCKPTR:
		if (obj.bp->desc) return desc_attr(s, obj, name, loc);
		/* p.dtype.element_ty: FLA's spelling of the element type before a store */
		if (!strcmp(name, "dtype") || !strcmp(name, "type")) return v_dtype(obj.bp->base.ty);
		/* the tensor member functions that take a block pointer: p.advance(offs), p.store(v) */
		if (!strcmp(name, "advance") || !strcmp(name, "store")) {
			Value *self = ARENA_NEW(s->a, Value);
			*self = obj;
			return v_builtin(builtin_find(name, BF_METHOD), self);
		}
		break;
	case V_DICT:
		if (obj.msg) { /* torch.finfo / iinfo: an object whose attributes are the keys */
			for (int i = 0; i < obj.n; i++)
				if (v_is_const(obj.keys[i], CV_STR) && !strcmp(obj.keys[i].c.s, name)) return obj.items[i];
			diag_error(s->d, loc, "%s has no attribute '%s'", obj.msg, name);
			return v_err();
		}
		if (builtin_find(name, BF_PYDICT) >= 0) { /* d.get(k), d.items(): builtins_dict.c */
			Value *self = ARENA_NEW(s->a, Value);
			*self = obj;
			return v_builtin(builtin_find(name, BF_PYDICT), self);
		}
		break;
	case V_CONFIG:
		/* what config pruners and builders read (triton.Config's defaults:
		 * num_warps 4, num_stages 3, num_ctas 1) */
		if (!strcmp(name, "kwargs")) return obj.items[0];
		if (!strcmp(name, "num_warps")) return v_is_none(obj.items[1]) ? v_int(4) : obj.items[1];
		if (!strcmp(name, "num_stages")) return v_is_none(obj.items[2]) ? v_int(3) : obj.items[2];
		if (!strcmp(name, "num_ctas")) return v_int(1);
		if (!strcmp(name, "maxnreg") || !strcmp(name, "pre_hook")) return v_none();
		break;
	case V_AGG: return agg_attr(s, obj, name, loc);
	case V_BUILTIN:
		if (!obj.self && (!strcmp(name, "__name__") || !strcmp(name, "__qualname__"))) /* type(x).__name__ */
			return v_str(builtin_get(obj.builtin)->name);
		/* the staticmethods of Triton's dtype class: tl.dtype.is_dtype('fp16'),
		 * tl.dtype.is_ptr() (False: the class's own answer, which only a
		 * pointer or block type overrides); bound to a placeholder self */
		if (!obj.self && obj.builtin == builtin_find("dtype", BF_TL) &&
		    (!strcmp(name, "SIGNEDNESS") || !strcmp(name, "KIND")))
			return dtype_enum(s, name);
		if (!obj.self && obj.builtin == builtin_find("dtype", BF_TL) &&
		    (!strcmp(name, "is_dtype") || !strcmp(name, "is_block") || !strcmp(name, "is_ptr") ||
		     !strcmp(name, "is_const") || !strcmp(name, "is_void"))) {
			Value *self = ARENA_NEW(s->a, Value);
			*self = v_dtype(type_scalar(DT_VOID));
			return v_builtin(builtin_find(name, BF_DTYPE), self);
		}
		break;
	case V_RTARG:
		if (!strcmp(name, "dtype"))
			return v_dtype(obj.ty.dt == DT_PTR ? type_scalar((DType)obj.ty.elem) : obj.ty);
		/* a tensor's element size (x.itemsize, x.element_size()) follows from its dtype */
		if (obj.ty.dt == DT_PTR && !strcmp(name, "itemsize")) return v_int(dtype_bytes((DType)obj.ty.elem));
		if (obj.ty.dt == DT_PTR && (!strcmp(name, "shape") || !strcmp(name, "ndim"))) {
			if (!obj.depth) return tensorarg_shape_needed(s, obj, "the shape", loc);
			return name[0] == 's' ? v_tuple(s, obj.items, obj.n) : v_int(obj.n);
		}
		if (obj.ty.dt == DT_PTR && builtin_find(name, BF_TENSORARG) >= 0) {
			Value *self = ARENA_NEW(s->a, Value);
			*self = obj;
			return v_builtin(builtin_find(name, BF_TENSORARG), self);
		}
		return rtarg_needed(s, obj, loc);
	default: break;
	}
	diag_error(s->d, loc, "%s has no attribute '%s'", v_describe(s, obj), name);
	return v_err();
}

/* builtins_pytype.c: Triton's type objects that are plain Python in a kernel:
 * tl.constexpr_type (a constexpr's .type), tl.tuple_type (a tuple's) and
 * tl.slice, and tl.constexpr's own methods (logical_and, logical_or).
 *
 * Each is an object (a V_DICT whose msg names its class, by address) whose
 * attributes are its keys, as torch.finfo's are: constexpr_type(v).value is v;
 * tl.slice(a, b, c) has start, stop and step; a tuple_type's keys are 0..n-1,
 * so tt[i] and len(tt) are its element types'. They compare, print and answer
 * isinstance as Triton's classes do (core.py): two constexpr_types are equal
 * when their values are; a slice is compared by identity only. */
#include <string.h>

#include "sema/sema_int.h"

const char CONSTEXPR_TYPE_OBJ[] = "constexpr_type", SLICE_OBJ[] = "slice", TUPLE_TYPE_OBJ[] = "tuple_type";

bool v_is_pyobj(Value v, const char *cls) { return v.kind == V_DICT && v.msg == cls; }

Value v_constexpr_type(Sema *s, Value v)
{
	Value *keys = ARENA_NEWN(s->a, Value, 1), *vals = ARENA_NEWN(s->a, Value, 1);
	keys[0] = v_str("value");
	vals[0] = v;
	Value d = v_dict(s, keys, vals, 1);
	d.msg = CONSTEXPR_TYPE_OBJ;
	return d;
}

/* tl.constexpr_type(value): the type of a constexpr of that value. A tensor
 * is no compile-time value (Triton would build a type no constexpr has). */
static Value b_constexpr_type(Sema *s, Call *c, int extra)
{
	(void)extra;
	Value v = c->a[0];
	if (v.kind == V_ERR) return v;
	if (v.kind == V_TENSOR || v.kind == V_BLOCKPTR) {
		diag_error(s->d, c->at[0], "tl.constexpr_type takes a compile-time value, got %s", v_describe(s, v));
		return v_err();
	}
	return v_constexpr_type(s, v);
}

static Value v_tuple_type(Sema *s, const Value *types, int n)
{
	Value *keys = ARENA_NEWN(s->a, Value, (size_t)n + 1), *vals = ARENA_NEWN(s->a, Value, (size_t)n + 1);
	for (int i = 0; i < n; i++) keys[i] = v_int(i), vals[i] = types[i];
	Value d = v_dict(s, keys, vals, n);
	d.msg = TUPLE_TYPE_OBJ;
	return d;
}

/* Triton's v.type: a constant's (a dtype too: a tuple holds it as a constexpr) is
 * constexpr_type(v), a tuple's tuple_type of its items' types, a tensor's its dtype
 * or block type */
Value value_type(Sema *s, Value v, SrcLoc loc)
{
	if (v.kind == V_CONST || v.kind == V_DTYPE || v_is_enum_member(v)) return v_constexpr_type(s, v);
	if (v.kind != V_TUPLE || v.mod) return get_attr(s, v, "type", loc);
	Value *types = ARENA_NEWN(s->a, Value, (size_t)v.n + 1);
	for (int i = 0; i < v.n; i++)
		if ((types[i] = value_type(s, v.items[i], loc)).kind == V_ERR) return types[i];
	return v_tuple_type(s, types, v.n);
}

/* tl.tuple_type(types): named fields (fields=) are not supported */
static Value b_tuple_type(Sema *s, Call *c, int extra)
{
	(void)extra;
	Value t = c->a[0];
	if (t.kind == V_ERR) return t;
	if (c->has[1] && !v_is_none(c->a[1])) {
		diag_error(s->d, c->at[1], "tl.tuple_type with field names is not supported");
		return v_err();
	}
	if (t.kind != V_TUPLE || t.mod) {
		diag_error(s->d, c->at[0], "tl.tuple_type takes a list of types, got %s", v_describe(s, t));
		return v_err();
	}
	return v_tuple_type(s, t.items, t.n);
}

/* N.logical_and(x) / N.logical_or(x) of a constexpr: Python's `N and x` / `N or x` */
static Value b_logical(Sema *s, Call *c, int is_or)
{
	(void)s;
	Value a = c->a[0], b = c->a[1];
	if (a.kind == V_ERR || b.kind == V_ERR) return v_err();
	return value_truthy(a) == (bool)is_or ? a : b;
}

/* tl.slice(start, stop, step): the object Triton makes of `a:b:c`; a tensor
 * index takes it where all three are None (':'), as Triton's __getitem__ */
static Value b_slice(Sema *s, Call *c, int extra)
{
	(void)extra;
	static const char *const names[3] = {"start", "stop", "step"};
	Value *keys = ARENA_NEWN(s->a, Value, 3), *vals = ARENA_NEWN(s->a, Value, 3);
	for (int i = 0; i < 3; i++) {
		if (c->a[i].kind == V_ERR) return c->a[i];
		keys[i] = v_str(names[i]);
		vals[i] = c->a[i];
	}
	Value d = v_dict(s, keys, vals, 3);
	d.msg = SLICE_OBJ;
	return d;
}

bool pytype_full_slice(Value v)
{
	return v_is_pyobj(v, SLICE_OBJ) && v_is_none(v.items[0]) && v_is_none(v.items[1]) && v_is_none(v.items[2]);
}

static bool is_type_obj(Value v) { return v_is_pyobj(v, CONSTEXPR_TYPE_OBJ) || v_is_pyobj(v, TUPLE_TYPE_OBJ); }

/* a == b / a != b where either is a constexpr_type or a tuple_type: Triton's
 * __eq__ is `isinstance(other, constexpr_type) and self.value == other.value`,
 * and for tuple_type its element types, in order */
bool pytype_compare(Sema *s, AstOp op, Value a, Value b, SrcLoc loc, Value *out)
{
	if (!(is_type_obj(a) || is_type_obj(b)) || (op != OP_EQ && op != OP_NE)) return false;
	bool eq = a.kind == V_DICT && b.kind == V_DICT && a.msg == b.msg && a.n == b.n;
	for (int i = 0; eq && i < a.n; i++) {
		Value r = compare_one(s, OP_EQ, a.items[i], b.items[i], loc);
		if (r.kind == V_ERR) {
			*out = r;
			return true;
		}
		eq = r.kind == V_CONST && const_truthy(r.c);
	}
	*out = v_bool(op == OP_EQ ? eq : !eq);
	return true;
}

/* str() or repr() of a part: a constant as Python prints it, anything else described */
static const char *part_str(Sema *s, Value v, bool repr, SrcLoc loc)
{
	if (v.kind != V_CONST && v.kind != V_DTYPE && !v_is_enum_member(v)) return v_describe(s, v);
	Value r = py_str_value(s, v, repr, loc);
	return r.kind == V_ERR ? "?" : r.c.s;
}

/* str() / repr() of one: constexpr_type[4], slice(0, 8, None); NULL for another value */
const char *pytype_str(Sema *s, Value v, SrcLoc loc)
{
	if (v_is_pyobj(v, CONSTEXPR_TYPE_OBJ)) return arena_printf(s->a, "constexpr_type[%s]", part_str(s, v.items[0], false, loc));
	if (v_is_pyobj(v, TUPLE_TYPE_OBJ)) { /* [constexpr_type[0], fp32] */
		StrBuf b = {0};
		sb_putc(&b, '[');
		for (int i = 0; i < v.n; i++) {
			const char *item = pytype_str(s, v.items[i], loc);
			sb_puts(&b, i ? ", " : "");
			sb_puts(&b, item ? item : part_str(s, v.items[i], false, loc));
		}
		sb_putc(&b, ']');
		const char *str = arena_strdup(s->a, b.s);
		sb_free(&b);
		return str;
	}
	if (v_is_pyobj(v, SLICE_OBJ))
		return arena_printf(s->a, "slice(%s, %s, %s)", part_str(s, v.items[0], true, loc),
				    part_str(s, v.items[1], true, loc), part_str(s, v.items[2], true, loc));
	return NULL;
}

const Builtin builtins_pytype[] = {
    {"constexpr_type", "value", b_constexpr_type, 0, BF_TL},
    {"slice", "start,stop,step", b_slice, 0, BF_TL},
    {"tuple_type", "types,fields=None", b_tuple_type, 0, BF_TL},
    {"logical_and", "self,other", b_logical, 0, BF_CONSTEXPR},
    {"logical_or", "self,other", b_logical, 1, BF_CONSTEXPR},
    {NULL, NULL, NULL, 0, 0},
};

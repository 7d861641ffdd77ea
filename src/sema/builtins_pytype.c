/* builtins_pytype.c: Triton's type objects that are plain Python in a kernel:
 * tl.constexpr_type (a constexpr's .type) and tl.slice.
 *
 * Each is an object (a V_DICT whose msg names its class, by address) whose
 * attributes are its keys, as torch.finfo's are: constexpr_type(v).value is v;
 * tl.slice(a, b, c) has start, stop and step. They compare, print and answer
 * isinstance as Triton's classes do (core.py): two constexpr_types are equal
 * when their values are; a slice is compared by identity only. */
#include <string.h>

#include "sema/sema_int.h"

const char CONSTEXPR_TYPE_OBJ[] = "constexpr_type", SLICE_OBJ[] = "slice";

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

/* a == b / a != b where either is a constexpr_type: Triton's __eq__ is
 * `isinstance(other, constexpr_type) and self.value == other.value` */
bool pytype_compare(Sema *s, AstOp op, Value a, Value b, SrcLoc loc, Value *out)
{
	bool ta = v_is_pyobj(a, CONSTEXPR_TYPE_OBJ), tb = v_is_pyobj(b, CONSTEXPR_TYPE_OBJ);
	if (!(ta || tb) || (op != OP_EQ && op != OP_NE)) return false;
	bool eq = false;
	if (ta && tb) {
		Value r = compare_one(s, OP_EQ, a.items[0], b.items[0], loc);
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
	if (v_is_pyobj(v, SLICE_OBJ))
		return arena_printf(s->a, "slice(%s, %s, %s)", part_str(s, v.items[0], true, loc),
				    part_str(s, v.items[1], true, loc), part_str(s, v.items[2], true, loc));
	return NULL;
}

const Builtin builtins_pytype[] = {
    {"constexpr_type", "value", b_constexpr_type, 0, BF_TL},
    {"slice", "start,stop,step", b_slice, 0, BF_TL},
    {NULL, NULL, NULL, 0, 0},
};

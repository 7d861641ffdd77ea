/* sema_agg.c: Triton's @aggregate classes (triton.aggregate,
 * tl.core._aggregate). An aggregate is a value type: its annotated names
 * are its fields (an aggregate base's first), an instance is a V_AGG
 * holding one value per field, and it travels like a tuple does (function
 * arguments and results, loop-carried values, if branches: sema_stmt.c
 * flattens it into its IR leaves). `Cls(args)` runs the class's __init__
 * as Python (Triton calls it with the instance under construction: the
 * only place fields may be assigned), or, without one, binds the arguments
 * to the fields in order (a field's default is its class attribute).
 * Methods take the instance as `self`; @jit ones are inlined as any
 * helper, the others run as Python (constexpr arithmetic). Fields are read
 * with `.name`; an instance is immutable once built.
 *
 * Requires: class_aggregate (sema.c) for the fields. */
#include <string.h>

#include "sema/sema_int.h"

Value v_agg(Sema *s, ModScope *cls, const Value *items, int n, int ns)
{
	Value v = {.kind = V_AGG, .mod = cls, .n = n, .depth = 1, .ns = ns};
	v.items = n ? arena_dup(s->a, items, sizeof(Value) * (size_t)n) : NULL;
	for (int i = 0; i < n; i++)
		if (value_nesting(items[i]) >= v.depth) v.depth = value_nesting(items[i]) + 1;
	return v;
}

const char *agg_describe(Sema *s, Value v) { return arena_printf(s->a, "aggregate '%s'", v.mod->name); }

static int field_index(const AggInfo *ai, const char *name)
{
	for (int i = 0; i < ai->n; i++)
		if (!strcmp(ai->fields[i].name, name)) return i;
	return -1;
}

/* The last name of an annotation: `tl.constexpr` -> "constexpr" (also
 * written as a string, "tl.constexpr") */
const char *agg_ann_name(const Expr *e)
{
	if (!e) return NULL;
	if (e->kind == EX_NAME) return e->name;
	if (e->kind == EX_ATTR) return e->attr;
	if (e->kind == EX_STR) {
		const char *dot = strrchr(e->str, '.');
		return dot ? dot + 1 : e->str;
	}
	return NULL;
}

static bool holds_ir(Value v)
{
	if (v.kind == V_TENSOR || v.kind == V_BLOCKPTR) return true;
	if (v.kind == V_TUPLE || v.kind == V_AGG)
		for (int i = 0; i < v.n; i++)
			if (holds_ir(v.items[i])) return true;
	return false;
}

/* Triton checks each assigned field against its annotation (isinstance):
 * a tl.constexpr field takes compile-time values, a tl.tensor field a
 * tensor (a number is one here: a constant scalar), a tuple field a tuple,
 * a field annotated with an aggregate class an instance of an aggregate. */
static bool check_field(Sema *s, ModScope *cls, const AggField *f, Value v, SrcLoc loc)
{
	if (v.kind == V_ERR) return false;
	const char *an = agg_ann_name(f->ann), *want = NULL;
	bool ok = true;
	if (!an) return true;
	if (!strcmp(an, "constexpr")) {
		ok = !holds_ir(v);
		want = "a tl.constexpr";
	} else if (!strcmp(an, "tensor")) {
		ok = v.kind == V_TENSOR ||
		     (v.kind == V_CONST && (v.c.kind == CV_INT || v.c.kind == CV_FLOAT || v.c.kind == CV_BOOL));
		want = "a tl.tensor";
	} else if (!strcmp(an, "tuple")) {
		ok = v.kind == V_TUPLE;
		want = "a tuple";
	} else {
		const AggInfo *sub = NULL;
		bool found = false;
		if (f->ann->kind == EX_NAME) {
			Value c = class_member(s, f->owner, f->ann->name, loc, &found);
			if (found && c.kind == V_MODULE) sub = class_aggregate(s, c.mod);
		}
		if (sub) {
			ok = v.kind == V_AGG;
			want = arena_printf(s->a, "an aggregate ('%s')", f->ann->name);
		}
	}
	if (!ok)
		diag_error(s->d, loc, "field '%s' of aggregate '%s' is %s, got %s", f->name, cls->name, want,
			   v_describe(s, v));
	return ok;
}

/* Cls(args) without an __init__, and a NamedTuple's Cls(args): the
 * arguments are the fields, in order or by name; an omitted field takes its
 * default. A NamedTuple's fields are not checked against their annotations
 * (Python does not). */
static Value auto_init(Sema *s, ModScope *cls, const AggInfo *ai, const Value *args, int nargs, const char **kwn,
		       const Value *kw, int nkw, SrcLoc loc)
{
	bool named = cls->agg_state == 3;
	const char *what = named ? "namedtuple" : "aggregate";
	if (nargs > ai->n) {
		diag_error(s->d, loc, "%s '%s' has %d field%s, got %d arguments", what, cls->name, ai->n,
			   ai->n == 1 ? "" : "s", nargs);
		return v_err();
	}
	Value *items = ARENA_NEWN(s->a, Value, ai->n + 1);
	bool *set = ARENA_NEWN(s->a, bool, ai->n + 1);
	for (int i = 0; i < nargs; i++) {
		items[i] = args[i];
		set[i] = true;
	}
	for (int k = 0; k < nkw; k++) {
		int i = field_index(ai, kwn[k]);
		if (i < 0) {
			diag_error(s->d, loc, "%s '%s' has no field '%s'", what, cls->name, kwn[k]);
			return v_err();
		}
		if (set[i]) {
			diag_error(s->d, loc, "'%s' got multiple values for field '%s'", cls->name, kwn[k]);
			return v_err();
		}
		items[i] = kw[k];
		set[i] = true;
	}
	bool ok = true;
	for (int i = 0; i < ai->n; i++) {
		const AggField *f = &ai->fields[i];
		if (!set[i]) {
			bool found = false;
			if (f->has_default) items[i] = class_member(s, cls, f->name, loc, &found);
			if (!found) {
				diag_error(s->d, loc, "'%s' is missing a value for field '%s'", cls->name, f->name);
				return v_err();
			}
		}
		if (!named) ok &= check_field(s, cls, f, items[i], loc);
	}
	if (!ok) return v_err();
	if (!named) return v_agg(s, cls, items, ai->n, 0);
	Value t = v_tuple(s, items, ai->n);
	t.mod = cls;
	return t;
}

/* The class checks Python makes when it creates a NamedTuple class */
static bool nt_class_ok(Sema *s, ModScope *cls, const AggInfo *ai, SrcLoc loc)
{
	for (int i = 0; i < ai->n; i++) {
		const AggField *f = &ai->fields[i];
		if (f->name[0] == '_') {
			diag_error(s->d, loc, "namedtuple '%s': field names cannot start with an underscore ('%s')",
				   cls->name, f->name);
			return false;
		}
		if (i > 0 && ai->fields[i - 1].has_default && !f->has_default) {
			diag_error(s->d, loc, "namedtuple '%s': field '%s' without a default follows field '%s' with one",
				   cls->name, f->name, ai->fields[i - 1].name);
			return false;
		}
	}
	return true;
}

Value nt_construct(Sema *s, ModScope *cls, const Value *args, int nargs, const char **kwn, const Value *kw, int nkw,
		   SrcLoc loc)
{
	const AggInfo *ai = class_namedtuple(s, cls);
	if (!nt_class_ok(s, cls, ai, loc)) return v_err();
	return auto_init(s, cls, ai, args, nargs, kwn, kw, nkw, loc);
}

Value nt_fields(Sema *s, const AggInfo *ai)
{
	Value *names = ARENA_NEWN(s->a, Value, ai->n + 1);
	for (int k = 0; k < ai->n; k++) names[k] = v_str(ai->fields[k].name);
	return v_tuple(s, names, ai->n);
}

/* t.name of a NamedTuple instance: its field, or _fields (the names) */
Value nt_attr(Sema *s, Value obj, const char *name, SrcLoc loc)
{
	const AggInfo *ai = class_namedtuple(s, obj.mod);
	int i = ai ? field_index(ai, name) : -1;
	if (i >= 0 && i < obj.n) return obj.items[i];
	if (ai && !strcmp(name, "_fields")) return nt_fields(s, ai);
	/* Triton's tl.tuple looks its fields up and nothing else, so an instance
	 * has none of its class's methods or attributes: the class does */
	bool found = false;
	Value m = class_member(s, obj.mod, name, loc, &found);
	if (found && m.kind == V_ERR) return m;
	if (found && (m.kind == V_FUNC || m.kind == V_POISON))
		diag_error(s->d, loc,
			   "namedtuple '%s' has no attribute '%s': in a kernel an instance is a tuple of its fields (Triton's "
			   "tl.tuple) without the class's methods; call a @triton.jit method on the class, '%s.%s(instance, ...)'",
			   obj.mod->name, name, obj.mod->name, name);
	else if (found)
		diag_error(s->d, loc,
			   "namedtuple '%s' has no attribute '%s': in a kernel an instance is a tuple of its fields (Triton's "
			   "tl.tuple); read the class attribute as '%s.%s'",
			   obj.mod->name, name, obj.mod->name, name);
	else
		diag_error(s->d, loc, "namedtuple '%s' has no attribute '%s'", obj.mod->name, name);
	return v_err();
}

bool agg_item_const(Value v, int i)
{
	return v.mod->agg_state == 2 && i < v.mod->agg.n && v.mod->agg.fields[i].is_const;
}

Value agg_construct(Sema *s, ModScope *cls, const Value *args, int nargs, const char **kwn, const Value *kw, int nkw,
		    SrcLoc loc)
{
	const AggInfo *ai = class_aggregate(s, cls);
	bool found = false;
	Value init = class_member(s, cls, "__init__", loc, &found);
	if (!found) return auto_init(s, cls, ai, args, nargs, kwn, kw, nkw, loc);
	if (init.kind == V_ERR) return init;
	if (init.kind != V_FUNC) {
		diag_error(s->d, loc, "'%s.__init__' is %s, not a function", cls->name, v_describe(s, init));
		return v_err();
	}
	if (sema_is_jit(s, init.fn)) {
		diag_error(s->d, loc, "'%s.__init__' cannot be a @triton.jit function (Triton runs it as Python)",
			   cls->name);
		return v_err();
	}
	init.ns = VF_HOST;
	init.msg = NULL;
	Value *items = ARENA_NEWN(s->a, Value, ai->n + 1);
	for (int i = 0; i < ai->n; i++) items[i] = (Value){.kind = V_POISON, .msg = ai->fields[i].name};
	int errors = s->d->nerrors;
	Value out = call_init(s, init, v_agg(s, cls, items, ai->n, AGG_BUILDING), args, nargs, kwn, kw, nkw, loc);
	if (out.kind == V_ERR || s->d->nerrors > errors) return v_err();
	if (out.kind != V_AGG || out.mod != cls || out.ns != AGG_BUILDING) {
		diag_error(s->d, loc, "'%s.__init__' rebinds its 'self' parameter", cls->name);
		return v_err();
	}
	for (int i = 0; i < ai->n; i++)
		if (out.items[i].kind == V_POISON) {
			diag_error(s->d, loc, "'%s.__init__' does not assign field '%s'", cls->name, ai->fields[i].name);
			return v_err();
		}
	out.ns = 0;
	return out;
}

Value agg_attr(Sema *s, Value obj, const char *name, SrcLoc loc)
{
	const AggInfo *ai = class_aggregate(s, obj.mod);
	int k = field_index(ai, name);
	if (k >= 0) {
		Value v = obj.items[k];
		if (v.kind == V_POISON) {
			diag_error(s->d, loc, "field '%s' of aggregate '%s' is read before __init__ assigns it", name,
				   obj.mod->name);
			return v_err();
		}
		return v;
	}
	bool found = false;
	Value m = class_member(s, obj.mod, name, loc, &found);
	if (!found) {
		diag_error(s->d, loc, "aggregate '%s' has no attribute '%s'", obj.mod->name, name);
		return v_err();
	}
	if (m.kind == V_FUNC && !m.self && !has_decorator(m.fn, "staticmethod")) { /* a method: bound to the instance */
		Value *self = ARENA_NEW(s->a, Value);
		*self = obj;
		m.self = self;
	}
	return m;
}

void agg_assign_field(Sema *s, Fn *fn, const Expr *t, Value v, SrcLoc loc)
{
	Value *cur = t->obj->kind == EX_NAME ? env_find(&fn->env, t->obj->name) : NULL;
	Value obj = cur ? *cur : eval(s, fn, t->obj);
	if (obj.kind == V_ERR || v.kind == V_ERR) return;
	if (obj.kind == V_TUPLE && obj.mod) {
		diag_error(s->d, t->loc, "cannot assign to field '%s' of namedtuple '%s': a tuple is immutable (build a new one)",
			   t->attr, obj.mod->name);
		return;
	}
	if (obj.kind != V_AGG) {
		diag_error(s->d, t->loc, "assignment to an attribute is not supported");
		return;
	}
	const AggInfo *ai = class_aggregate(s, obj.mod);
	int k = field_index(ai, t->attr);
	if (k < 0) {
		diag_error(s->d, t->loc, "aggregate '%s' has no field '%s'", obj.mod->name, t->attr);
		return;
	}
	if (!cur || obj.ns != AGG_BUILDING) {
		diag_error(s->d, t->loc,
			   "cannot assign to field '%s' of aggregate '%s': an aggregate is immutable once its __init__ "
			   "returns (build a new one)",
			   t->attr, obj.mod->name);
		return;
	}
	if (!check_field(s, obj.mod, &ai->fields[k], v, loc)) return;
	Value *items = ARENA_NEWN(s->a, Value, obj.n + 1);
	memcpy(items, obj.items, sizeof(Value) * (size_t)obj.n);
	items[k] = v;
	env_set(&fn->env, t->obj->name, v_agg(s, obj.mod, items, obj.n, AGG_BUILDING));
}

/* sema_value.c: Value constructors and predicates, the compile-time work
 * limit, the set of item arrays a walk over nested values has seen. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sema/sema_int.h"

/* ---- values ------------------------------------------------------------------ */

Value v_err(void) { return (Value){.kind = V_ERR}; }
Value v_int(int64_t i) { return (Value){.kind = V_CONST, .c = {.kind = CV_INT, .i = i}}; }
Value v_uint64(uint64_t u)
{
	return (Value){.kind = V_CONST, .c = {.kind = CV_INT, .i = (int64_t)u, .u64 = u > (uint64_t)INT64_MAX}};
}
Value v_float(double f) { return (Value){.kind = V_CONST, .c = {.kind = CV_FLOAT, .f = f}}; }

bool v_int_of_double(double f, Value *out)
{
	if (f >= 0x1p63 && f < 0x1p64) {
		*out = v_uint64((uint64_t)f);
		return true;
	}
	if (!(f >= -0x1p63 && f < 0x1p63)) return false; /* NaN too: the C cast is undefined there */
	*out = v_int((int64_t)f);
	return true;
}
Value v_bool(bool b) { return (Value){.kind = V_CONST, .c = {.kind = CV_BOOL, .i = b}}; }
Value v_none(void) { return (Value){.kind = V_CONST, .c = {.kind = CV_NONE}}; }
Value v_str(const char *str) { return (Value){.kind = V_CONST, .c = {.kind = CV_STR, .s = str}}; }
Value v_dtype(Type t) { return (Value){.kind = V_DTYPE, .ty = type_elem(t)}; }
Value v_foreign_dtype(const char *name) { return (Value){.kind = V_DTYPE, .ty = type_scalar(DT_VOID), .msg = name}; }
Value foreign_dtype_error(Sema *s, Value v, SrcLoc loc)
{
	if (!strcmp(v.msg, "void")) /* Triton's dtype('void'): the type of what returns nothing */
		diag_error(s->d, loc, "'tl.void' is the type of no value: it may only be named, compared and queried (its "
				      "name, primitive_bitwidth, is_*())");
	else diag_error(s->d, loc, "'tl.%s' is a Triton dtype tile does not support (it may only be named, compared and queried: its name, sizes, is_*())",
		   v.msg);
	return v_err();
}
Value v_tensor(Sema *s, ValId id) { return (Value){.kind = V_TENSOR, .id = id, .ty = tir_type(s->f, id)}; }
Value v_builtin(int id, Value *self) { return (Value){.kind = V_BUILTIN, .builtin = id, .self = self}; }

int value_nesting(Value v)
{
	return v.kind == V_TUPLE || v.kind == V_DICT || v.kind == V_CONFIG || v.kind == V_AGG ? v.depth : 0;
}

Value v_tuple(Sema *s, const Value *items, int n)
{
	Value v = {.kind = V_TUPLE, .n = n, .depth = 1};
	v.items = n ? arena_dup(s->a, items, sizeof(Value) * (size_t)n) : NULL;
	for (int i = 0; i < n; i++)
		if (value_nesting(items[i]) >= v.depth) v.depth = value_nesting(items[i]) + 1;
	return v;
}

/* The buffer of a tuple tuple_grow built: items[0..used) are taken by the longest
 * tuple over it; a tuple of that length may grow into the rest in place. */
struct TupleBuf {
	Value *items;
	int used, cap;
};

Value tuple_grow(Sema *s, Value t, const Value *add, int k, SrcLoc loc)
{
	int64_t n = (int64_t)t.n + k;
	if (n > TUPLE_MAX_ITEMS) {
		s->py_errors++;
		diag_error(s->d, loc, "a list built at compile time grows past %d items", TUPLE_MAX_ITEMS);
		return v_err();
	}
	struct TupleBuf *b = t.buf;
	if (b && b->items == t.items && b->used == t.n && n <= b->cap) {
		if (!sema_work(s, k, loc)) return v_err();
	} else { /* a copy, with room to grow */
		if (!sema_work(s, n, loc)) return v_err();
		int cap = n < 4 ? 8 : 2 * (int)n > TUPLE_MAX_ITEMS ? TUPLE_MAX_ITEMS : 2 * (int)n;
		b = ARENA_NEW(s->a, struct TupleBuf);
		b->items = ARENA_NEWN(s->a, Value, (size_t)cap);
		b->cap = cap;
		if (t.n) memcpy(b->items, t.items, sizeof(Value) * (size_t)t.n);
	}
	if (k) memcpy(b->items + t.n, add, sizeof(Value) * (size_t)k);
	b->used = (int)n;
	Value v = {.kind = V_TUPLE, .n = (int)n, .depth = t.kind == V_TUPLE ? t.depth : 1, .items = b->items, .buf = b,
		   .list = t.kind == V_TUPLE && t.list};
	if (v.depth < 1) v.depth = 1;
	for (int i = 0; i < k; i++)
		if (value_nesting(add[i]) >= v.depth) v.depth = value_nesting(add[i]) + 1;
	return v;
}

/* Keeps the report just made of a limit sema stops at (s->limit_diag) */
void sema_note_limit(Sema *s)
{
	if (s->limit_diag || !s->d->diags.len) return;
	Diag *d = ARENA_NEW(s->a, Diag);
	*d = s->d->diags.data[s->d->diags.len - 1];
	d->msg = arena_strdup(s->a, d->msg);
	d->rendered = d->rendered ? arena_strdup(s->a, d->rendered) : NULL;
	s->limit_diag = d;
}

bool sema_work(Sema *s, int64_t n, SrcLoc loc)
{
	if (s->too_big) return false; /* past the value limit (reported): no point going on */
	s->work += n;
	if (s->work <= SEMA_MAX_WORK) return true;
	if (!s->too_much_work) {
		s->too_much_work = true;
		diag_error(s->d, loc,
			   "compile-time evaluation takes more than %d steps (statements, unrolled tl.static_range "
			   "iterations, inlined calls, comprehension items, tuple items and strings built; nested loops multiply)",
			   SEMA_MAX_WORK);
		sema_note_limit(s);
	}
	return false;
}

bool v_is_const(Value v, ConstKind k) { return v.kind == V_CONST && v.c.kind == k; }
bool v_is_none(Value v) { return v_is_const(v, CV_NONE); }

/* Python's truth value of a compile-time value: constants as Python has them,
 * empty tuples and dicts false, anything else (functions, dtypes...) true. */
bool value_truthy(Value v)
{
	if (v.kind == V_CONST) return const_truthy(v.c);
	if (v_is_enum_member(v)) return enum_member_truthy(v); /* `if mode & Perm.R:` */
	if (v.kind == V_TUPLE || v.kind == V_DICT) return v.n > 0;
	return true;
}
bool v_is_intlike(Value v) { return v.kind == V_CONST && (v.c.kind == CV_INT || v.c.kind == CV_BOOL); }

const char *v_describe(Sema *s, Value v)
{
	char buf[128];
	if (v_is_enum_member(v)) return arena_printf(s->a, "Enum member %s", enum_member_str(s, v, true));
	switch (v.kind) {
	case V_CONST:
		switch (v.c.kind) {
		case CV_INT: return "int";
		case CV_FLOAT: return "float";
		case CV_BOOL: return "bool";
		case CV_STR: return "str";
		case CV_NONE: return "None";
		case CV_DTYPE: return "dtype";
		case CV_NAME: return "name";
		}
		return "constexpr";
	case V_DTYPE: return "dtype";
	case V_TENSOR: type_name(v.ty, buf, sizeof buf); return arena_strdup(s->a, buf);
	case V_FUNC: return "function";
	case V_BUILTIN: return "builtin function";
	case V_NS: return "module";
	case V_MODULE: return v.mod->cls ? "class" : "module";
	case V_BLOCKPTR: return v.bp->desc ? "tensor descriptor" : "block pointer";
	case V_TUPLE: return v.set ? "set" : "tuple";
	case V_DICT: return v.msg == CONSTEXPR_TYPE_OBJ || v.msg == SLICE_OBJ || v.msg == TUPLE_TYPE_OBJ ? v.msg : "dict";
	case V_LAMBDA: return "lambda";
	case V_RTARG: return arena_printf(s->a, "runtime argument '%s'", v.msg);
	case V_CONFIG: return "triton.Config";
	case V_AGG: return agg_describe(s, v);
	case V_POISON:
	case V_ERR: return "error";
	}
	return "value";
}

const char *istr(Sema *s, const char *str) { return intern_cstr(s->c->names, str); }


/* ---- item arrays already walked -------------------------------------------------------------- */

/* open addressing on the array's address; cap stays a power of two, at most
 * half full */
bool items_seen(const ItemsSeen *w, const Value *items)
{
	if (!w->cap) return false;
	for (size_t h = ((uintptr_t)items >> 4) & (w->cap - 1);; h = (h + 1) & (w->cap - 1)) {
		if (!w->slot[h]) return false;
		if (w->slot[h] == items) return true;
	}
}

void items_seen_add(ItemsSeen *w, const Value *items)
{
	if (2 * (w->n + 1) > w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 16;
		ItemsSeen g = {xcalloc(cap, sizeof *g.slot), 0, cap};
		for (size_t i = 0; i < w->cap; i++)
			if (w->slot[i]) items_seen_add(&g, w->slot[i]);
		free(w->slot);
		*w = g;
	}
	size_t h = ((uintptr_t)items >> 4) & (w->cap - 1);
	while (w->slot[h]) h = (h + 1) & (w->cap - 1);
	w->slot[h] = items;
	w->n++;
}

void items_seen_free(ItemsSeen *w)
{
	free(w->slot);
	*w = (ItemsSeen){0};
}

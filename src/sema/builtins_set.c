/* builtins_set.c: Python's sets of compile-time values, in host code and on a
 * kernel's constexprs: displays {a, b}, set() / frozenset(), comprehensions,
 * the operators & | - ^ and the subset comparisons, `in`, len, iteration,
 * and the methods (union, issubset, ...; add, discard, update, ... rebind the
 * name, as dict methods do: sets are values here).
 *
 * A set is a V_TUPLE flagged `set` whose items are distinct (hashable: what
 * may be a dict key). It iterates and prints in insertion order, where
 * CPython's order is its hash table's; sorted(s) is the same in both. */
#include <string.h>

#include "sema/sema_int.h"

static bool has(Value set, Value x)
{
	for (int i = 0; i < set.n; i++)
		if (dict_key_eq(set.items[i], x)) return true;
	return false;
}

/* a set of items (repeats dropped); an item that is not hashable is an error */
Value v_set(Sema *s, const Value *items, int n, SrcLoc loc)
{
	Value *out = ARENA_NEWN(s->a, Value, (size_t)n + 1);
	Value r = v_tuple(s, NULL, 0);
	r.items = out;
	r.set = true;
	for (int i = 0; i < n; i++) {
		if (items[i].kind == V_ERR) return items[i];
		if (!dict_key_ok(items[i])) {
			s->py_errors += items[i].kind == V_TUPLE || items[i].kind == V_DICT;
			diag_error(s->d, loc, "a set item must be hashable (a constant or a tuple of them), not %s",
				   items[i].kind == V_TUPLE && items[i].list ? "a list" : v_describe(s, items[i]));
			return v_err();
		}
		if (!has(r, items[i])) out[r.n++] = items[i];
	}
	r.depth = 1;
	for (int i = 0; i < r.n; i++)
		if (out[i].kind == V_TUPLE && out[i].depth + 1 > r.depth) r.depth = out[i].depth + 1;
	return r;
}

static bool iter_of(Sema *s, Value v, SrcLoc loc, const Value **items, int *n)
{
	if (v.kind == V_ERR) return false;
	return const_iter_items(s, v, loc, items, n);
}

/* a & b, a | b, a - b, a ^ b of two sets (b any iterable for the methods) */
static Value set_combine(Sema *s, AstOp op, Value a, const Value *bi, int bn, SrcLoc loc)
{
	Value b = v_set(s, bi, bn, loc);
	if (b.kind == V_ERR) return b;
	Value *out = ARENA_NEWN(s->a, Value, (size_t)(a.n + b.n) + 1);
	int n = 0;
	for (int i = 0; i < a.n; i++) {
		bool in_b = has(b, a.items[i]);
		if (op == OP_BITAND ? in_b : !in_b || op == OP_BITOR) out[n++] = a.items[i];
	}
	for (int i = 0; op != OP_BITAND && op != OP_SUB && i < b.n; i++)
		if (!has(a, b.items[i])) out[n++] = b.items[i];
	return v_set(s, out, n, loc);
}

/* set op set: & | - ^, == != and the subset orders <= < >= > */
Value set_binop(Sema *s, AstOp op, Value a, Value b, SrcLoc loc)
{
	bool both = a.kind == V_TUPLE && a.set && b.kind == V_TUPLE && b.set;
	if (both && (op == OP_BITAND || op == OP_BITOR || op == OP_SUB || op == OP_BITXOR))
		return set_combine(s, op, a, b.items, b.n, loc);
	if (op == OP_EQ || op == OP_NE) { /* a set equals only a set of the same items */
		bool eq = both && a.n == b.n;
		for (int i = 0; eq && i < a.n; i++) eq = has(b, a.items[i]);
		return v_bool((op == OP_EQ) == eq);
	}
	if (both && op >= OP_LT && op <= OP_GE) {
		Value x = op == OP_LT || op == OP_LE ? a : b, y = op == OP_LT || op == OP_LE ? b : a;
		bool sub = x.n <= y.n;
		for (int i = 0; sub && i < x.n; i++) sub = has(y, x.items[i]);
		return v_bool(sub && (op == OP_LE || op == OP_GE || x.n < y.n));
	}
	s->py_errors++;
	diag_error(s->d, loc, "unsupported operand types for a set: %s and %s (a TypeError in Python)", v_describe(s, a),
		   v_describe(s, b));
	return v_err();
}

/* set(iterable=()), frozenset(iterable=()) */
static Value b_set_new(Sema *s, Call *c, int extra)
{
	(void)extra;
	const Value *items = NULL;
	int n = 0;
	if (c->has[0] && !iter_of(s, c->a[0], c->at[0], &items, &n)) return v_err();
	return v_set(s, items, n, c->at[0]);
}

enum { SM_UNION, SM_INTERSECTION, SM_DIFFERENCE, SM_SYMDIFF, SM_ISSUBSET, SM_ISSUPERSET, SM_ISDISJOINT, SM_COPY,
       SM_ADD, SM_DISCARD, SM_REMOVE, SM_UPDATE, SM_CLEAR, SM_POP };

static Value changed(Sema *s, Value set, Value result)
{
	s->dict_changed = true; /* the call rebinds the name, as for a dict */
	s->dict_new = set;
	return result;
}

static Value b_set_method(Sema *s, Call *c, int op)
{
	static const AstOp ops[] = {[SM_UNION] = OP_BITOR, [SM_INTERSECTION] = OP_BITAND, [SM_DIFFERENCE] = OP_SUB,
				    [SM_SYMDIFF] = OP_BITXOR, [SM_UPDATE] = OP_BITOR};
	Value a = c->a[0], r = a;
	const Value *items;
	int n;
	switch (op) {
	case SM_UNION:
	case SM_INTERSECTION:
	case SM_DIFFERENCE:
	case SM_UPDATE:
		for (int i = 0; i < c->nrest && r.kind != V_ERR; i++) {
			if (!iter_of(s, c->rest[i], c->rest_at[i], &items, &n)) return v_err();
			r = set_combine(s, ops[op], r, items, n, c->loc);
		}
		return op == SM_UPDATE && r.kind != V_ERR ? changed(s, r, v_none()) : r;
	case SM_SYMDIFF:
	case SM_ISSUBSET:
	case SM_ISSUPERSET:
	case SM_ISDISJOINT: {
		if (!iter_of(s, c->a[1], c->at[1], &items, &n)) return v_err();
		if (op == SM_SYMDIFF) return set_combine(s, OP_BITXOR, a, items, n, c->loc);
		Value b = v_set(s, items, n, c->at[1]);
		if (b.kind == V_ERR) return b;
		if (op == SM_ISDISJOINT) return v_bool(set_combine(s, OP_BITAND, a, b.items, b.n, c->loc).n == 0);
		return set_binop(s, op == SM_ISSUBSET ? OP_LE : OP_GE, a, b, c->loc);
	}
	case SM_COPY: return a;
	case SM_ADD:
		r = set_combine(s, OP_BITOR, a, &c->a[1], 1, c->loc);
		return r.kind == V_ERR ? r : changed(s, r, v_none());
	case SM_DISCARD:
	case SM_REMOVE:
		if (!dict_key_ok(c->a[1])) return v_set(s, &c->a[1], 1, c->at[1]); /* its error */
		if (op == SM_REMOVE && !has(a, c->a[1])) {
			Value t = py_str_value(s, c->a[1], true, c->at[1]);
			s->py_errors++;
			diag_error(s->d, c->at[1], "%s (a KeyError in Python)", t.kind == V_ERR ? "item" : t.c.s);
			return v_err();
		}
		return changed(s, set_combine(s, OP_SUB, a, &c->a[1], 1, c->loc), v_none());
	case SM_CLEAR: return changed(s, v_set(s, NULL, 0, c->loc), v_none());
	case SM_POP:
		if (!a.n) {
			s->py_errors++;
			diag_error(s->d, c->loc, "'pop from an empty set' (a KeyError in Python)");
			return v_err();
		}
		return changed(s, v_set(s, a.items + 1, a.n - 1, c->loc), a.items[0]);
	}
	return v_err();
}

const Builtin builtins_set[] = {
    {"set", "iterable=None", b_set_new, 0, BF_PY},
    {"frozenset", "iterable=None", b_set_new, 1, BF_PY},
    {"union", "self,*others", b_set_method, SM_UNION, BF_PYSET},
    {"intersection", "self,*others", b_set_method, SM_INTERSECTION, BF_PYSET},
    {"difference", "self,*others", b_set_method, SM_DIFFERENCE, BF_PYSET},
    {"symmetric_difference", "self,other", b_set_method, SM_SYMDIFF, BF_PYSET},
    {"issubset", "self,other", b_set_method, SM_ISSUBSET, BF_PYSET},
    {"issuperset", "self,other", b_set_method, SM_ISSUPERSET, BF_PYSET},
    {"isdisjoint", "self,other", b_set_method, SM_ISDISJOINT, BF_PYSET},
    {"copy", "self", b_set_method, SM_COPY, BF_PYSET},
    {"add", "self,elem", b_set_method, SM_ADD, BF_PYSET},
    {"discard", "self,elem", b_set_method, SM_DISCARD, BF_PYSET},
    {"remove", "self,elem", b_set_method, SM_REMOVE, BF_PYSET},
    {"update", "self,*others", b_set_method, SM_UPDATE, BF_PYSET},
    {"clear", "self", b_set_method, SM_CLEAR, BF_PYSET},
    {"pop", "self", b_set_method, SM_POP, BF_PYSET},
    {NULL, NULL, NULL, 0, 0},
};

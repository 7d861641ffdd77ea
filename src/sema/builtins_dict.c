/* builtins_dict.c: Python's dict methods on compile-time dicts, in host code
 * and on a kernel's constexprs: d.get(k, default), keys(), values(), items(),
 * copy(), and the ones that change the dict, update(), setdefault(), pop(),
 * popitem(), clear().
 *
 * tile's dicts are values, not objects: a method that changes its dict leaves
 * the new one in Sema.dict_new, and the call (eval_call) rebinds the name it
 * was called on, which is Python's result unless the dict is also reachable
 * under another name. keys()/values()/items() are lists, not views. */
#include <string.h>

#include "sema/sema_int.h"

enum { D_GET, D_KEYS, D_VALUES, D_ITEMS, D_COPY, D_UPDATE, D_SETDEFAULT, D_POP, D_POPITEM, D_CLEAR };

static bool need_key(Sema *s, Value k, SrcLoc loc)
{
	if (k.kind == V_ERR) return false;
	if (dict_key_ok(k)) return true;
	s->py_errors += k.kind == V_TUPLE && k.list;
	diag_error(s->d, loc, "a dict key must be a constant, not %s", k.kind == V_TUPLE && k.list ? "a list" : v_describe(s, k));
	return false;
}

/* d with d[k] = v (a new dict; the key keeps its place if present) */
Value dict_with(Sema *s, Value d, Value k, Value v)
{
	int at = dict_index(d, k), n = d.n + (at < 0);
	Value *keys = ARENA_NEWN(s->a, Value, (size_t)n + 1), *vals = ARENA_NEWN(s->a, Value, (size_t)n + 1);
	if (d.n) {
		memcpy(keys, d.keys, sizeof(Value) * (size_t)d.n);
		memcpy(vals, d.items, sizeof(Value) * (size_t)d.n);
	}
	if (at < 0) at = n - 1;
	keys[at] = k;
	vals[at] = v;
	return v_dict_adopt(keys, vals, n);
}

/* d without the item at index i */
static Value dict_drop(Sema *s, Value d, int i)
{
	Value *keys = ARENA_NEWN(s->a, Value, (size_t)d.n), *vals = ARENA_NEWN(s->a, Value, (size_t)d.n);
	int n = 0;
	for (int j = 0; j < d.n; j++)
		if (j != i && dict_index(d, d.keys[j]) == j) keys[n] = d.keys[j], vals[n++] = d.items[j];
	return v_dict_adopt(keys, vals, n);
}

static Value changed(Sema *s, Value d, Value result)
{
	s->dict_changed = true;
	s->dict_new = d;
	return result;
}

/* d updated by argument 1 of c (a dict or an iterable of pairs; absent or
 * None: nothing) and by c's **kwargs, as d.update(...) and dict(...) do */
static Value dict_update(Sema *s, Call *c, Value d)
{
	if (c->has[1] && !v_is_none(c->a[1])) {
		Value o = c->a[1];
		if (o.kind == V_ERR) return o;
		const Value *items;
		int n;
		if (o.kind == V_DICT && !v_is_enum_member(o)) {
			for (int i = 0; i < o.n; i++)
				if (dict_index(o, o.keys[i]) == i) d = dict_with(s, d, o.keys[i], o.items[i]);
		} else {
			if (!const_iter_items(s, o, c->at[1], &items, &n)) return v_err();
			for (int i = 0; i < n; i++) {
				if (items[i].kind != V_TUPLE || items[i].n != 2) {
					s->py_errors++;
					diag_error(s->d, c->at[1], "dictionary update sequence element #%d is not a pair (a %s in Python)", i,
						   items[i].kind == V_TUPLE ? "ValueError" : "TypeError");
					return v_err();
				}
				if (!need_key(s, items[i].items[0], c->at[1])) return v_err();
				d = dict_with(s, d, items[i].items[0], items[i].items[1]);
			}
		}
	}
	for (int i = 0; i < c->nkw; i++) d = dict_with(s, d, v_str(c->kwn[i]), c->kwv[i]);
	return d;
}

/* dict(iterable_or_mapping=None, **kwargs) */
static Value b_dict_new(Sema *s, Call *c, int extra)
{
	(void)extra;
	Call shifted = *c; /* dict_update reads argument 1 */
	shifted.a[1] = c->a[0];
	shifted.has[1] = c->has[0];
	shifted.at[1] = c->at[0];
	return dict_update(s, &shifted, v_dict(s, NULL, NULL, 0));
}

static Value b_dict(Sema *s, Call *c, int op)
{
	Value d = c->a[0], out;
	int n = d.n;
	switch (op) {
	case D_GET:
		if (!need_key(s, c->a[1], c->at[1])) return v_err();
		return dict_get(d, c->a[1], &out) ? out : c->has[2] ? c->a[2] : v_none();
	case D_KEYS:
	case D_VALUES:
	case D_ITEMS: {
		Value *items = ARENA_NEWN(s->a, Value, (size_t)n + 1);
		int k = 0;
		for (int i = 0; i < n; i++) {
			if (dict_index(d, d.keys[i]) != i) continue; /* a repeated key's last value is its value */
			Value pair[2] = {d.keys[i], d.items[dict_index(d, d.keys[i])]};
			items[k++] = op == D_KEYS ? pair[0] : op == D_VALUES ? pair[1] : v_tuple(s, pair, 2);
		}
		Value r = v_tuple(s, items, k);
		r.list = true;
		return r;
	}
	case D_COPY: return v_dict(s, d.keys, d.items, n);
	case D_UPDATE:
		out = dict_update(s, c, d);
		return out.kind == V_ERR ? out : changed(s, out, v_none());
	case D_SETDEFAULT:
		if (!need_key(s, c->a[1], c->at[1])) return v_err();
		if (dict_get(d, c->a[1], &out)) return out;
		out = c->has[2] ? c->a[2] : v_none();
		return changed(s, dict_with(s, d, c->a[1], out), out);
	case D_POP: {
		if (!need_key(s, c->a[1], c->at[1])) return v_err();
		int i = dict_index(d, c->a[1]);
		if (i >= 0) return changed(s, dict_drop(s, d, i), d.items[i]);
		if (c->has[2]) return c->a[2];
		Value r = py_str_value(s, c->a[1], true, c->at[1]);
		s->py_errors++;
		diag_error(s->d, c->at[1], "%s (a KeyError in Python)", r.kind == V_ERR ? "key" : r.c.s);
		return v_err();
	}
	case D_POPITEM: {
		for (int i = n; i-- > 0;)
			if (dict_index(d, d.keys[i]) == i) {
				Value pair[2] = {d.keys[i], d.items[i]};
				return changed(s, dict_drop(s, d, i), v_tuple(s, pair, 2));
			}
		s->py_errors++;
		diag_error(s->d, c->loc, "'popitem(): dictionary is empty' (a KeyError in Python)");
		return v_err();
	}
	case D_CLEAR: return changed(s, v_dict(s, NULL, NULL, 0), v_none());
	}
	return v_err();
}

const Builtin builtins_dict[] = {
    {"get", "self,key,default=None", b_dict, D_GET, BF_PYDICT},
    {"keys", "self", b_dict, D_KEYS, BF_PYDICT},
    {"values", "self", b_dict, D_VALUES, BF_PYDICT},
    {"items", "self", b_dict, D_ITEMS, BF_PYDICT},
    {"copy", "self", b_dict, D_COPY, BF_PYDICT},
    {"update", "self,other=None,**kwargs", b_dict, D_UPDATE, BF_PYDICT},
    {"setdefault", "self,key,default=None", b_dict, D_SETDEFAULT, BF_PYDICT},
    {"pop", "self,key,default=None", b_dict, D_POP, BF_PYDICT},
    {"popitem", "self", b_dict, D_POPITEM, BF_PYDICT},
    {"clear", "self", b_dict, D_CLEAR, BF_PYDICT},
    {"dict", "iterable=None,**kwargs", b_dict_new, 0, BF_PY},
    {NULL, NULL, NULL, 0, 0},
};

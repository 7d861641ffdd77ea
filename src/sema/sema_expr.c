/* sema_expr.c: expressions: names, literals, subscripts, calls, operators (attributes are in sema_attr.c). */
#include <stdio.h>
#include <string.h>

#include "sema/sema_int.h"

/* ---- constexpr helpers ---------------------------------------------------------------- */

bool as_const_int(Sema *s, Value v, SrcLoc loc, const char *what, int64_t *out)
{
	if (v.kind == V_ERR) return false;
	if (v_is_intlike(v) && v.c.u64) { /* its int64 would be negative */
		diag_error(s->d, loc, "%s is out of range: %llu", what, (unsigned long long)(uint64_t)v.c.i);
		return false;
	}
	if (v_is_intlike(v)) {
		*out = v.c.i;
		return true;
	}
	diag_error(s->d, loc, "%s must be a constexpr int, got %s", what, v_describe(s, v));
	return false;
}

/* A compile-time flag (a loop hint): a constexpr's truth, None false; a
 * runtime value is an error, as Triton reads it in Python before any code runs. */
bool as_const_flag(Sema *s, Value v, SrcLoc loc, const char *what, bool *out)
{
	if (v.kind == V_ERR) return false;
	if (v.kind == V_CONST || v_is_enum_member(v)) {
		*out = value_truthy(v);
		return true;
	}
	diag_error(s->d, loc, "%s must be a constexpr bool, got %s", what, v_describe(s, v));
	return false;
}

bool as_int_list(Sema *s, Value v, SrcLoc loc, const char *what, int32_t *out, int max, int *n)
{
	if (v.kind == V_ERR) return false;
	if (v_is_intlike(v)) {
		if (v.c.u64 || v.c.i < INT32_MIN || v.c.i > INT32_MAX) {
			char num[32];
			const_str(v.c, num, sizeof num);
			diag_error(s->d, loc, "%s: %s is out of range", what, num);
			return false;
		}
		out[0] = (int32_t)v.c.i;
		*n = 1;
		return true;
	}
	if (v.kind != V_TUPLE) {
		diag_error(s->d, loc, "%s must be a tuple of constexpr ints, got %s", what, v_describe(s, v));
		return false;
	}
	if (v.n > max) {
		diag_error(s->d, loc, "%s has %d entries (at most %d)", what, v.n, max);
		return false;
	}
	for (int i = 0; i < v.n; i++) {
		if (!v_is_intlike(v.items[i])) {
			diag_error(s->d, loc, "%s must be a tuple of constexpr ints, got %s", what, v_describe(s, v.items[i]));
			return false;
		}
		if (v.items[i].c.u64 || v.items[i].c.i < INT32_MIN || v.items[i].c.i > INT32_MAX) {
			char num[32];
			const_str(v.items[i].c, num, sizeof num);
			diag_error(s->d, loc, "%s: %s is out of range", what, num);
			return false;
		}
		out[i] = (int32_t)v.items[i].c.i;
	}
	*n = v.n;
	return true;
}

bool eval_const(Sema *s, Fn *fn, const Expr *e, const char *what, ConstVal *out)
{
	Value v = eval(s, fn, e);
	if (v.kind == V_ERR) return false;
	if (v_is_foreign_dtype(v)) {
		foreign_dtype_error(s, v, e->loc);
		return false;
	}
	if (v_dtype_is_const(v)) {
		*out = (ConstVal){.kind = CV_DTYPE, .dtype = (DType)v.ty.dt};
		return true;
	}
	if (v.kind != V_CONST) {
		diag_error(s->d, e->loc, "'%s' must be a constexpr here", what);
		return false;
	}
	*out = v.c;
	return true;
}

bool eval_const_int(Sema *s, Fn *fn, const Expr *e, const char *what, int64_t *out)
{
	Value v = eval(s, fn, e);
	return as_const_int(s, v, e->loc, what, out);
}

/* ---- dicts, lambdas, heuristic arguments ------------------------------------------------- */

Value v_dict(Sema *s, const Value *keys, const Value *vals, int n)
{
	return v_dict_adopt(n ? arena_dup(s->a, keys, sizeof(Value) * (size_t)n) : NULL,
			    n ? arena_dup(s->a, vals, sizeof(Value) * (size_t)n) : NULL, n);
}

Value v_dict_adopt(Value *keys, Value *vals, int n)
{
	Value v = {.kind = V_DICT, .n = n, .depth = 1, .keys = n ? keys : NULL, .items = n ? vals : NULL};
	for (int i = 0; i < n; i++)
		if (value_nesting(vals[i]) >= v.depth) v.depth = value_nesting(vals[i]) + 1;
	return v;
}

static bool key_eq(Value a, Value b)
{
	if (a.kind == V_CONST && b.kind == V_CONST) {
		if (a.c.kind == CV_STR || b.c.kind == CV_STR)
			return a.c.kind == b.c.kind && !strcmp(a.c.s, b.c.s);
		return const_eq(a.c, b.c);
	}
	if (a.kind == V_TUPLE && b.kind == V_TUPLE && !a.list && !b.list) { /* (1, 'a'): equal items */
		if (a.n != b.n) return false;
		if (a.items == b.items) return true; /* t = (t, t) repeated shares them: 2^n leaves */
		for (int i = 0; i < a.n; i++)
			if (!key_eq(a.items[i], b.items[i])) return false;
		return true;
	}
	return values_identical(a, b);
}

bool dict_key_eq(Value a, Value b) { return key_eq(a, b); }

int dict_index(Value d, Value key)
{
	for (int i = d.n; i-- > 0;) /* the last of repeated keys wins, as in Python */
		if (key_eq(d.keys[i], key)) return i;
	return -1;
}

bool dict_get(Value d, Value key, Value *out)
{
	int i = dict_index(d, key);
	if (i >= 0) *out = d.items[i];
	return i >= 0;
}

/* each item array once: a tuple sharing its items (t = (t, t) repeated) has
 * 2^n leaves */
static bool key_ok_walk(ItemsSeen *w, Value v)
{
	if (v.kind == V_TUPLE && !v.list) {
		if (!v.n || items_seen(w, v.items)) return true;
		for (int i = 0; i < v.n; i++)
			if (!key_ok_walk(w, v.items[i])) return false;
		items_seen_add(w, v.items);
		return true;
	}
	return v.kind == V_CONST || v.kind == V_DTYPE || v_is_enum_member(v);
}

/* a hashable compile-time value: a constant, a dtype, an Enum member, a tuple of them */
bool dict_key_ok(Value v)
{
	if (v.kind != V_TUPLE || v.list) return key_ok_walk(NULL, v);
	ItemsSeen w = {0};
	bool ok = key_ok_walk(&w, v);
	items_seen_free(&w);
	return ok;
}

/* d with each key once, at its first place with its last value, as Python's
 * dict has it (a display keeps repeated keys, the last winning on lookup) */
static Value dict_items_once(Sema *s, Value d)
{
	Value r = v_dict(s, NULL, NULL, 0);
	for (int j = 0; j < d.n; j++) r = dict_with(s, r, d.keys[j], d.items[j]);
	return r;
}

/* {**m, k: v, ...}: the items in Python's order, a later key replacing an
 * earlier one in its place; m must be a dict (a mapping in Python) */
static Value eval_dict_unpack(Sema *s, Fn *fn, const Expr *e)
{
	Value d = v_dict(s, NULL, NULL, 0);
	for (int i = 0; i < e->nkeys; i++) {
		if (e->keys[i]) {
			Value k = eval(s, fn, e->keys[i]);
			if (k.kind == V_ERR) return k;
			if (!dict_key_ok(k)) {
				diag_error(s->d, e->keys[i]->loc, "dict keys must be constexprs, got %s", v_describe(s, k));
				return v_err();
			}
			Value v = eval(s, fn, e->values[i]);
			if (v.kind == V_ERR) return v;
			d = dict_with(s, d, k, v);
			continue;
		}
		Value m = eval(s, fn, e->values[i]);
		if (m.kind == V_ERR) return m;
		if (m.kind != V_DICT || v_is_enum_member(m)) {
			s->py_errors++;
			diag_error(s->d, e->values[i]->loc, "'**' in a dict display needs a dict, got %s (a TypeError in Python)",
				   v_describe(s, m));
			return v_err();
		}
		for (int j = 0; j < m.n; j++) d = dict_with(s, d, m.keys[j], m.items[j]); /* a repeated key: in its first place */
	}
	return d;
}

static Value eval_dict(Sema *s, Fn *fn, const Expr *e)
{
	for (int i = 0; i < e->nkeys; i++)
		if (!e->keys[i]) return eval_dict_unpack(s, fn, e);
	Value *keys = ARENA_NEWN(s->a, Value, e->nkeys + 1), *vals = ARENA_NEWN(s->a, Value, e->nkeys + 1);
	for (int i = 0; i < e->nkeys; i++) {
		keys[i] = eval(s, fn, e->keys[i]);
		if (keys[i].kind == V_ERR) return keys[i];
		if (!dict_key_ok(keys[i])) {
			diag_error(s->d, e->keys[i]->loc, "dict keys must be constexprs, got %s", v_describe(s, keys[i]));
			return v_err();
		}
		vals[i] = eval(s, fn, e->values[i]);
		if (vals[i].kind == V_ERR) return vals[i];
	}
	return v_dict(s, keys, vals, e->nkeys);
}

/* ---- comprehensions (compile-time only) ------------------------------------------------------ */

enum { COMP_MAX_ITEMS = 1 << 16 };

/* each item array once, as key_ok_walk */
static bool runtime_walk(ItemsSeen *w, Value v)
{
	if (v.kind == V_TENSOR || v.kind == V_BLOCKPTR) return true;
	if ((v.kind == V_TUPLE || v.kind == V_CONFIG || v.kind == V_DICT) && v.n && !items_seen(w, v.items)) {
		for (int i = 0; i < v.n; i++)
			if (runtime_walk(w, v.items[i])) return true;
		items_seen_add(w, v.items);
	}
	return false;
}

static bool comp_runtime(Value v)
{
	ItemsSeen w = {0};
	bool r = runtime_walk(&w, v);
	items_seen_free(&w);
	return r;
}

static Value comp_runtime_err(Sema *s, SrcLoc loc)
{
	diag_error(s->d, loc, "comprehensions are only supported on compile-time values");
	return v_err();
}

/* The items an iterable constexpr yields: tuples and lists (range() of constants is
 * a tuple), a dict's keys. */
bool const_iter_items(Sema *s, Value v, SrcLoc loc, const Value **items, int *n)
{
	Value members;
	if ((v.kind == V_MODULE && enum_class_items(s, v.mod, &members)) /* for m in Act */
	    || enum_flag_items(s, v, &members)) { /* for m in Perm.R | Perm.W */
		if (members.kind == V_ERR) return false;
		v = members;
	}
	if (v_is_const(v, CV_STR)) v = str_chars(s, v.c.s ? v.c.s : "", loc); /* for ch in S */
	if (v.kind == V_ERR) return false;
	if ((v.kind == V_TUPLE || v.kind == V_DICT) && !v_is_enum_member(v)) {
		if (v.kind == V_TUPLE && comp_runtime(v)) {
			comp_runtime_err(s, loc);
			return false;
		}
		*items = v.kind == V_TUPLE ? v.items : v.keys;
		*n = v.n;
		return true;
	}
	if (v.kind == V_TENSOR || v.kind == V_BLOCKPTR) comp_runtime_err(s, loc);
	else if (v.kind != V_ERR) diag_error(s->d, loc, "cannot iterate over %s at compile time", v_describe(s, v));
	return false;
}

typedef VEC(Value) ValueVec;

static bool comp_clause(Sema *s, Fn *fn, const Expr *e, int ci, ValueVec *out, int errs0)
{
	if (ci == e->ncomps) {
		Value v = eval(s, fn, e->elt);
		if (v.kind == V_ERR || !sema_work(s, 1, e->loc)) return false;
		if (out->len >= COMP_MAX_ITEMS) {
			s->py_errors++;
			diag_error(s->d, e->loc, "comprehension yields more than %d items", COMP_MAX_ITEMS);
			return false;
		}
		vec_push(out, v);
		return true;
	}
	const CompClause *c = &e->comps[ci];
	const Value *items;
	int n;
	Value it = eval(s, fn, c->iter);
	if (it.kind == V_TUPLE) { /* unrolled: its items may be runtime values, as in Triton */
		items = it.items;
		n = it.n;
	} else if (!const_iter_items(s, it, c->iter->loc, &items, &n)) {
		return false;
	}
	for (int k = 0; k < n; k++) {
		assign_target(s, fn, c->target, items[k], c->loc);
		if (s->d->nerrors > errs0) return false;
		bool keep = true;
		for (int j = 0; j < c->nifs && keep; j++) {
			Value cv = eval(s, fn, c->ifs[j]);
			if (cv.kind == V_ERR) return false;
			if (cv.kind == V_RTARG) {
				rtarg_needed(s, cv, c->ifs[j]->loc);
				return false;
			}
			if (cv.kind == V_TENSOR || cv.kind == V_BLOCKPTR) {
				comp_runtime_err(s, c->ifs[j]->loc);
				return false;
			}
			keep = value_truthy(cv);
		}
		if (keep && !comp_clause(s, fn, e, ci + 1, out, errs0)) return false;
	}
	return true;
}

/* [elt for ...] and (elt for ...): unrolled at compile time to a tuple (the
 * iterables are constexprs or tuples, the conditions constexprs; the items may
 * be runtime values). The targets are local to the comprehension, as in Python 3. */
static Value eval_listcomp(Sema *s, Fn *fn, const Expr *e)
{
	if ((e->is_dict || e->is_set) && !s->host_fn) { /* as Triton's code generator; host code has them */
		diag_error(s->d, e->loc, "%s comprehensions are not supported in a @jit function (Triton has none; host "
			   "code does)", e->is_dict ? "dict" : "set");
		return v_err();
	}
	Env saved = {0};
	env_copy(&saved, &fn->env);
	ValueVec out = {0};
	bool ok = comp_clause(s, fn, e, 0, &out, s->d->nerrors);
	env_copy(&fn->env, &saved);
	env_free(&saved);
	Value r = ok ? v_tuple(s, out.data, (int)out.len) : v_err();
	r.list = ok && !e->is_gen;
	vec_free(&out);
	if (ok && e->is_set) return v_set(s, r.items, r.n, e->elt->loc);
	if (ok && e->is_dict) { /* {k: v for ...}: the pairs as a dict, a repeated key's last value winning */
		Value *keys = ARENA_NEWN(s->a, Value, (size_t)r.n + 1), *vals = ARENA_NEWN(s->a, Value, (size_t)r.n + 1);
		for (int i = 0; i < r.n; i++) {
			keys[i] = r.items[i].items[0];
			vals[i] = r.items[i].items[1];
			if (!dict_key_ok(keys[i])) {
				diag_error(s->d, e->elt->loc, "a dict key must be a constant, not %s", v_describe(s, keys[i]));
				return v_err();
			}
		}
		return v_dict_adopt(keys, vals, r.n);
	}
	return r;
}

Value rtarg_needed(Sema *s, Value v, SrcLoc loc)
{
	if (s->heuristic)
		diag_error(s->d, loc, "heuristic for '%s' needs the value of runtime argument '%s'", s->heuristic, v.msg);
	else
		diag_error(s->d, loc, "the value of runtime argument '%s' is not known at compile time", v.msg);
	return v_err();
}

/* What specialization knows about a runtime argument: `x % d` is 0 when x is
 * specialized divisible by 16 and d divides 16. */
static Value rtarg_binop(Sema *s, AstOp op, Value a, Value b, SrcLoc loc)
{
	if (a.kind == V_ERR || b.kind == V_ERR) return v_err();
	if (op == OP_MOD && a.kind == V_RTARG && v_is_intlike(b) && b.c.i > 0 && 16 % b.c.i == 0 &&
	    (a.c.i & SPEC_DIV16) && a.ty.dt != DT_PTR)
		return v_int(0);
	return rtarg_needed(s, a.kind == V_RTARG ? a : b, loc);
}

static Value eval_lambda(Sema *s, Fn *fn, const Expr *e)
{
	Value v = {.kind = V_LAMBDA, .lam = e, .mod = fn->mod, .made_in = fn->serial};
	v.ncap = (int)fn->env.len;
	v.cap = v.ncap ? arena_dup(s->a, fn->env.data, sizeof(Binding) * fn->env.len) : NULL;
	return v;
}

enum { LAMBDA_DEPTH_LIMIT = 64 };

Value call_lambda(Sema *s, Value lam, const Value *args, int nargs, const char **kwn, const Value *kw, int nkw,
		  SrcLoc loc)
{
	return call_lambda_late(s, lam, NULL, args, nargs, kwn, kw, nkw, loc);
}

/* late: the bindings of the activation that made the lambda as they are now
 * (NULL: its captured ones), which its body sees; defaults were evaluated
 * when it was made in Python, so they see the captured ones. */
Value call_lambda_late(Sema *s, Value lam, const Env *late, const Value *args, int nargs, const char **kwn,
		       const Value *kw, int nkw, SrcLoc loc)
{
	const Expr *e = lam.lam;
	if (!sema_work(s, SEMA_CALL_WORK, loc)) return v_err();
	if (s->depth > LAMBDA_DEPTH_LIMIT) {
		diag_error(s->d, loc, "lambda calls nested more than %d deep", LAMBDA_DEPTH_LIMIT);
		return v_err();
	}
	int npos = e->lnpos;
	if (nargs > npos && !e->lstar) {
		diag_error(s->d, loc, "lambda takes %d positional argument%s, got %d", npos, npos == 1 ? "" : "s", nargs);
		return v_err();
	}
	Fn f;
	fn_init(s, &f, NULL, lam.mod, false);
	for (int i = 0; i < lam.ncap; i++) vec_push(&f.env, lam.cap[i]);
	Value *vals = ARENA_NEWN(s->a, Value, e->nlparams + 1);
	bool *bound = ARENA_NEWN(s->a, bool, e->nlparams + 1);
	/* what *args and **kwargs collect */
	Value *keys = ARENA_NEWN(s->a, Value, nkw + 1), *extra = ARENA_NEWN(s->a, Value, nkw + 1);
	int nextra = 0;
	bool ok = true;
	for (int i = 0; i < nargs && i < npos; i++) vals[i] = args[i], bound[i] = true;
	for (int k = 0; k < nkw && ok; k++) {
		int slot = -1;
		for (int i = 0; i < e->nlparams; i++)
			if (!strcmp(e->lparams[i].name, kwn[k])) slot = i;
		if (slot < 0 && e->lkwstar) {
			keys[nextra] = v_str(kwn[k]);
			extra[nextra++] = kw[k];
		} else if (slot < 0 || bound[slot]) {
			diag_error(s->d, loc, slot < 0 ? "unexpected keyword argument '%s' for lambda"
							: "lambda got multiple values for argument '%s'",
				   kwn[k]);
			ok = false;
		} else {
			vals[slot] = kw[k];
			bound[slot] = true;
		}
	}
	for (int i = 0; i < e->nlparams && ok; i++) {
		if (!bound[i] && !e->lparams[i].default_val) {
			diag_error(s->d, loc, "missing %sargument '%s' in call to lambda", i >= npos ? "keyword-only " : "",
				   e->lparams[i].name);
			ok = false;
		} else if (!bound[i]) {
			vals[i] = eval(s, &f, e->lparams[i].default_val);
			ok = vals[i].kind != V_ERR;
		}
	}
	for (size_t i = 0; late && i < late->len; i++) vec_push(&f.env, late->data[i]);
	for (int i = 0; i < e->nlparams && ok; i++) env_set(&f.env, e->lparams[i].name, vals[i]);
	if (ok && e->lstar) env_set(&f.env, e->lstar, v_tuple(s, nargs > npos ? args + npos : NULL, nargs > npos ? nargs - npos : 0));
	if (ok && e->lkwstar) env_set(&f.env, e->lkwstar, v_dict(s, keys, extra, nextra));
	Value r = v_err();
	if (ok) {
		s->depth++;
		r = eval(s, &f, e->lbody);
		s->depth--;
	}
	fn_free(&f);
	return r;
}

/* ---- subscripts ------------------------------------------------------------------------- */

static bool is_full_slice(const Expr *e) { return e->kind == EX_SLICE && !e->lo && !e->hi && !e->step; }

/* Triton's tensor.__getitem__: the index at position d is None (expand_dims at axis d) or
 * ':' (nothing: Triton never checks it against the rank, so x[:, None] of a scalar is a
 * 1-element tile, as splat inserts the new dimension where Python's list.insert would). */
static Value subscript_tensor(Sema *s, Fn *fn, Value base, const Expr *e)
{
	bool *none = ARENA_NEWN(s->a, bool, (size_t)e->nindex);
	for (int i = 0; i < e->nindex; i++) {
		const Expr *ix = e->index[i];
		bool ok = ix->kind == EX_NONE || is_full_slice(ix);
		none[i] = ix->kind == EX_NONE;
		if (!ok && ix->kind != EX_SLICE) { /* a name bound to None or to tl.slice(None, None, None) */
			Value v = eval(s, fn, ix);
			if (v.kind == V_ERR) return v;
			none[i] = v_is_none(v);
			ok = none[i] || pytype_full_slice(v);
		}
		if (!ok) {
			diag_error(s->d, ix->loc, "only None and ':' are supported in tensor indices");
			return v_err();
		}
	}
	ValId x = base.id;
	for (int dst = 0; dst < e->nindex; dst++) {
		const Expr *ix = e->index[dst];
		if (!none[dst]) continue;
		Type cur = vtype(s, x);
		if (cur.rank > 0 && dst > cur.rank) {
			diag_error(s->d, e->loc, "too many indices for a tensor of rank %d", base.ty.rank);
			return v_err();
		}
		if (cur.rank + 1 > TIR_MAX_RANK) {
			diag_error(s->d, ix->loc, "tiles of rank %d are not supported", cur.rank + 1);
			return v_err();
		}
		int axis = dst < cur.rank ? dst : cur.rank;
		Type r = cur;
		r.rank++;
		for (int d = r.rank - 1; d > axis; d--) r.shape[d] = cur.shape[d - 1];
		r.shape[axis] = 1;
		if (cur.rank == 0) {
			x = emit(s, TOP_SPLAT, ix->loc, &x, 1, r);
		} else {
			TirOp *op = emit_op(s, TOP_EXPAND_DIMS, ix->loc, &x, 1, r);
			op->attr.axis = axis;
			x = op->results[0];
		}
	}
	return v_tensor(s, x);
}

/* The start, stop and step of slice ix: each NULL where absent or None, else
 * a constexpr int in buf (past int64: the largest, which a slice clamps anyway) */
static bool slice_parts(Sema *s, Fn *fn, const Expr *ix, int64_t buf[3], const int64_t *part[3])
{
	const Expr *es[3] = {ix->lo, ix->hi, ix->step};
	static const char *const what[3] = {"slice start", "slice end", "slice step"};
	for (int k = 0; k < 3; k++) {
		part[k] = NULL;
		if (!es[k]) continue;
		Value v = eval(s, fn, es[k]);
		if (v.kind == V_ERR) return false;
		if (v_is_none(v)) continue;
		if (!v_is_intlike(v)) {
			diag_error(s->d, es[k]->loc, "%s must be a constexpr int or None, got %s", what[k], v_describe(s, v));
			return false;
		}
		buf[k] = v.c.u64 && v.c.i < 0 ? INT64_MAX : v.c.i;
		part[k] = &buf[k];
	}
	return true;
}

static Value subscript(Sema *s, Fn *fn, const Expr *e)
{
	Value base = eval(s, fn, e->base);
	if (base.kind == V_ERR) return base;
	if (base.kind == V_TENSOR) return subscript_tensor(s, fn, base, e);
	if (base.kind == V_RTARG) return rtarg_needed(s, base, e->loc);
	if (base.kind == V_MODULE && e->nindex == 1 && enum_class_kind(s, base.mod) != ENUM_NONE)
		return enum_by_name(s, base.mod, eval(s, fn, e->index[0]), e->loc); /* Act['RELU'] */
	if (base.kind == V_DICT && e->nindex >= 1 && !v_is_enum_member(base)) {
		Value k = eval(s, fn, e->index[0]), out;
		if (e->nindex > 1) { /* d[1, 'a'] is d[(1, 'a')] */
			Value *items = ARENA_NEWN(s->a, Value, (size_t)e->nindex);
			for (int i = 0; i < e->nindex; i++)
				if ((items[i] = i ? eval(s, fn, e->index[i]) : k).kind == V_ERR) return items[i];
			k = v_tuple(s, items, e->nindex);
		}
		if (k.kind == V_ERR) return k;
		if (dict_get(base, k, &out)) return out;
		char buf[96];
		if (k.kind == V_CONST) const_str(k.c, buf, sizeof buf);
		else snprintf(buf, sizeof buf, "%s", v_describe(s, k));
		if (s->heuristic)
			diag_error(s->d, e->index[0]->loc,
				   "heuristic for '%s': no argument %s (not a kernel parameter, or not bound before this heuristic)",
				   s->heuristic, buf);
		else
			diag_error(s->d, e->index[0]->loc, "key %s is not in the dict", buf);
		return v_err();
	}
	if (base.kind == V_AGG && e->nindex == 1) { /* its __getitem__ method */
		Value m = agg_attr(s, base, "__getitem__", e->loc);
		Value ix = eval(s, fn, e->index[0]);
		if (m.kind == V_ERR || ix.kind == V_ERR) return v_err();
		return call_value(s, fn, m, &ix, 1, NULL, NULL, 0, e->loc, &e->index[0]->loc,
				  (const Expr *const *)e->index);
	}
	if (v_is_const(base, CV_STR) && e->nindex == 1) { /* S[i], S[a:b:c]: code points */
		const Expr *ix = e->index[0];
		const char *str = base.c.s ? base.c.s : "";
		if (ix->kind == EX_SLICE) {
			int64_t buf[3];
			const int64_t *part[3];
			if (!slice_parts(s, fn, ix, buf, part)) return v_err();
			return str_slice(s, str, part[0], part[1], part[2], ix->loc);
		}
		int64_t i;
		if (!eval_const_int(s, fn, ix, "string index", &i)) return v_err();
		return str_index(s, str, i, ix->loc);
	}
	if (base.kind == V_TUPLE && e->nindex == 1) {
		const Expr *ix = e->index[0];
		if (ix->kind == EX_SLICE) { /* Python's slice.indices: any step, None parts */
			int64_t buf[3], first, by, count;
			const int64_t *part[3];
			if (!slice_parts(s, fn, ix, buf, part)) return v_err();
			if (!slice_indices(base.n, part[0], part[1], part[2], &first, &by, &count)) {
				s->py_errors++;
				diag_error(s->d, ix->loc, "slice step cannot be zero (a ValueError in Python)");
				return v_err();
			}
			if (!sema_work(s, count, ix->loc)) return v_err();
			Value *items = ARENA_NEWN(s->a, Value, count + 1);
			for (int64_t k = 0; k < count; k++) items[k] = base.items[first + k * by]; /* k * by: within the tuple */
			Value r = v_tuple(s, items, (int)count);
			r.list = base.list;
			return r;
		}
		int64_t i;
		if (!eval_const_int(s, fn, ix, "tuple index", &i)) return v_err();
		if (i < -(int64_t)base.n || i >= base.n) {
			s->py_errors++;
			diag_error(s->d, ix->loc, "tuple index %lld out of range (size %d)", (long long)i, base.n);
			return v_err();
		}
		return base.items[i < 0 ? i + base.n : i];
	}
	diag_error(s->d, e->loc, "%s is not subscriptable", v_describe(s, base));
	return v_err();
}

/* ---- calls --------------------------------------------------------------------------------- */

/* The argument arrays live for the call only, so they are on the heap, not in the
 * arena (every callee copies what it keeps): a call in an unrolled loop left
 * about 2 KB per iteration there, most of a big kernel's memory. */

static int cmp_str_ptr(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* A name that names[0..n) holds twice, or NULL (sorted: n may be 65536) */
static const char *repeated_name(const char **names, int n)
{
	const char **sorted = xmalloc(sizeof(const char *) * (size_t)(n + 1));
	memcpy(sorted, names, sizeof(const char *) * (size_t)n);
	qsort(sorted, (size_t)n, sizeof *sorted, cmp_str_ptr);
	const char *twice = NULL;
	for (int i = 1; i < n && !twice; i++)
		if (!strcmp(sorted[i - 1], sorted[i])) twice = sorted[i];
	free(sorted);
	return twice;
}
/* The callee as written (tl.advance, bp.advance, helper), for messages */
static const char *callee_text(Sema *s, const Expr *e)
{
	if (e->kind == EX_NAME) return e->name;
	if (e->kind == EX_ATTR) return arena_printf(s->a, "%s.%s", callee_text(s, e->obj), e->attr);
	return "the call";
}

/* Triton's @must_use_result(note) on a function: the decorator, bare or called,
 * spelled must_use_result, triton.must_use_result or tl.core.must_use_result */
static const Expr *must_use_decorator(const FuncDef *def)
{
	for (int i = 0; i < def->ndecorators; i++) {
		const Expr *d = def->decorators[i];
		const Expr *n = d->kind == EX_CALL ? d->func : d;
		const char *name = n->kind == EX_NAME ? n->name : n->kind == EX_ATTR ? n->attr : NULL;
		if (name && !strcmp(name, "must_use_result")) return d;
	}
	return NULL;
}

/* Whether an expression statement may drop the result of calling callee: not for
 * what Triton marks @must_use_result (tl.advance has no side effect), its
 * CompilationError */
static bool result_may_drop(Sema *s, Value callee, const Expr *e)
{
	const char *note = NULL;
	if (callee.kind == V_BUILTIN && !strcmp(builtin_get(callee.builtin)->name, "advance") &&
	    builtin_get(callee.builtin)->flags & BF_TL)
		note = "Note that tl.advance does not have any side effects. To move the block pointer, you need to "
		       "assign the result of tl.advance to a variable.";
	else if (callee.kind == V_FUNC && callee.fn) {
		const Expr *d = must_use_decorator(callee.fn);
		if (!d) return true;
		note = d->kind == EX_CALL && d->nargs == 1 && d->args[0]->kind == EX_STR ? d->args[0]->str : "";
	}
	if (!note) return true;
	diag_error(s->d, e->loc, "The result of %s is not used.%s%s", callee_text(s, e->func), *note ? " " : "", note);
	return false;
}

static Value eval_call(Sema *s, Fn *fn, const Expr *e)
{
	bool dropped = e == s->unused_call && !s->host_fn;
	s->unused_call = NULL; /* calls in its arguments are used */
	Value callee = eval(s, fn, e->func);
	if (callee.kind == V_ERR) return callee;
	if (dropped && !result_may_drop(s, callee, e)) return v_err();
	int nk = e->nkwargs;
	/* positionals first: a `*t` argument stands for the items of tuple t */
	Value *pos = xmalloc(sizeof(Value) * (size_t)(e->nargs + 1));
	int na = 0;
	bool bad = false;
	for (int i = 0; i < e->nargs; i++) {
		const Expr *x = e->args[i];
		pos[i] = eval(s, fn, x->kind == EX_STARRED ? x->lhs : x);
		bad |= pos[i].kind == V_ERR;
		if (x->kind != EX_STARRED || pos[i].kind == V_ERR) {
			na++;
		} else if (pos[i].kind != V_TUPLE) {
			diag_error(s->d, x->loc, "'*' unpacks a tuple, got %s", v_describe(s, pos[i]));
			bad = true;
		} else {
			na += pos[i].n;
		}
	}
	if (bad) {
		free(pos);
		return v_err();
	}
	/* f(**d) (host Python, a decorator wrapper's get()(*args, **kwargs)): the
	 * dict's string keys become keywords */
	Value *kv = xmalloc(sizeof(Value) * (size_t)(nk + 1));
	int nkx = 0, nsplat = 0;
	for (int i = 0; i < nk; i++) {
		kv[i] = eval(s, fn, e->kwargs[i].value);
		bad |= kv[i].kind == V_ERR;
		if (strcmp(e->kwargs[i].name, "**")) {
			nkx++;
			continue;
		}
		if (kv[i].kind != V_DICT) {
			if (kv[i].kind != V_ERR)
				diag_error(s->d, e->kwargs[i].loc, "'**' unpacks a dict, got %s", v_describe(s, kv[i]));
			bad = true;
			continue;
		}
		for (int k = 0; k < kv[i].n; k++)
			if (kv[i].keys[k].kind != V_CONST || kv[i].keys[k].c.kind != CV_STR) {
				diag_error(s->d, e->kwargs[i].loc, "'**' needs a dict with string keys");
				bad = true;
				break;
			}
		if (!bad && kv[i].n > 1) { /* {"A": 1, "A": 3} (a display keeps both) is one keyword A = 3 */
			const char **names = xmalloc(sizeof(const char *) * (size_t)kv[i].n);
			for (int k = 0; k < kv[i].n; k++) names[k] = kv[i].keys[k].c.s;
			if (repeated_name(names, kv[i].n)) kv[i] = dict_items_once(s, kv[i]);
			free(names);
		}
		nkx += kv[i].n;
		nsplat++;
		/* a dict grown by f(**d, k=v) in a host loop: bounded as a list is
		 * (tuple_grow); its copy is a step per key and per value (the
		 * values a tuple's copy builds), so `while True:` stops */
		if (!bad && nkx > TUPLE_MAX_ITEMS) {
			s->py_errors++;
			diag_error(s->d, e->kwargs[i].loc, "a dict built at compile time grows past %d items",
				   TUPLE_MAX_ITEMS);
			bad = true;
		}
		bad = bad || !sema_work(s, 2 * (int64_t)kv[i].n, e->kwargs[i].loc);
	}
	if (bad) {
		free(pos);
		free(kv);
		return v_err();
	}
	size_t nall = (size_t)(na + nkx + 1);
	Value *args = xmalloc(sizeof(Value) * nall); /* positionals, then keywords */
	Value *kw = args + na;
	SrcLoc *locs = xmalloc(sizeof(SrcLoc) * nall);
	const Expr **exs = xmalloc(sizeof(const Expr *) * nall);
	const char **kwn = xmalloc(sizeof(const char *) * nall);
	for (int i = 0, j = 0; i < e->nargs; i++) {
		const Expr *x = e->args[i];
		int n = x->kind == EX_STARRED ? pos[i].n : 1;
		for (int k = 0; k < n; k++, j++) {
			args[j] = x->kind == EX_STARRED ? pos[i].items[k] : pos[i];
			locs[j] = x->loc;
			exs[j] = x->kind == EX_STARRED ? NULL : x;
		}
	}
	free(pos);
	for (int i = 0, j = 0; i < nk; i++) {
		bool splat = !strcmp(e->kwargs[i].name, "**");
		for (int k = 0; k < (splat ? kv[i].n : 1); k++, j++) {
			kw[j] = splat ? kv[i].items[k] : kv[i];
			kwn[j] = splat ? kv[i].keys[k].c.s : e->kwargs[i].name;
			locs[na + j] = e->kwargs[i].loc;
			exs[na + j] = splat ? NULL : e->kwargs[i].value;
		}
	}
	free(kv);
	if (nsplat) { /* f(**d, **d): a keyword given twice is Python's TypeError */
		const char *twice = repeated_name(kwn, nkx);
		if (twice) {
			s->py_errors++;
			diag_error(s->d, e->loc, "got multiple values for keyword argument '%s' (Triton: TypeError)", twice);
			bad = true;
		}
	}
	nk = nkx;
	Value r = v_err();
	/* isinstance(args['x'], torch.Tensor) asks only what the argument is */
	bool kind_only = callee.kind == V_BUILTIN && !callee.self && (builtin_get(callee.builtin)->flags & BF_PY) &&
			 !strcmp(builtin_get(callee.builtin)->name, "isinstance");
	for (int i = 0; !bad && !kind_only && i < na + nk; i++)
		if (args[i].kind == V_RTARG) {
			r = rtarg_needed(s, args[i], locs[i]);
			bad = true;
		}
	if (!bad) r = call_value(s, fn, callee, args, na, kwn, kw, nk, e->loc, locs, exs);
	if (s->dict_changed) { /* d.update(...) made a new dict: the name d is rebound to it */
		s->dict_changed = false;
		const Expr *obj = e->func->kind == EX_ATTR ? e->func->obj : NULL;
		Value *bound = obj && obj->kind == EX_NAME ? env_find(&fn->env, obj->name) : NULL;
		bool temp = obj && (obj->kind == EX_DICT || obj->kind == EX_SET || obj->kind == EX_CALL); /* {..}.pop(k): nothing else sees it */
		if (bound && (bound->kind == V_DICT || (bound->kind == V_TUPLE && bound->set))) {
			env_set(&fn->env, obj->name, s->dict_new);
		} else if (r.kind != V_ERR && !temp) {
			diag_error(s->d, e->loc, "'%s' changes its dict or set, which tile supports on a local name (d.%s(...)): "
				   "its dicts and sets are values, not shared objects", e->func->kind == EX_ATTR ? e->func->attr : "?",
				   e->func->kind == EX_ATTR ? e->func->attr : "?");
			r = v_err();
		}
	}
	free(args);
	free(locs);
	free(exs);
	free(kwn);
	return r;
}

/* ---- boolean operators ------------------------------------------------------------------------ */

/* `a and b` / `a or b` on runtime values: Triton's logical_and / logical_or,
 * elementwise on truth values (x != 0), broadcast like '&' (no short circuit). */
static Value logical(Sema *s, AstOp op, Value a, Value b, SrcLoc loc)
{
	if (a.kind == V_ERR || b.kind == V_ERR) return v_err();
	ValId x = to_ir_natural(s, a, loc), y = to_ir_natural(s, b, loc);
	if (!x || !y) return v_err();
	Value xb = v_tensor(s, to_bool(s, x, loc)), yb = v_tensor(s, to_bool(s, y, loc));
	return binop(s, op == OP_AND ? OP_BITAND : OP_BITOR, xb, yb, loc);
}

static Value eval_boolop(Sema *s, Fn *fn, const Expr *e)
{
	Value acc = eval(s, fn, e->items[0]);
	for (int i = 1; i < e->nitems; i++) {
		if (acc.kind == V_ERR) return acc;
		if (acc.kind == V_RTARG) return rtarg_needed(s, acc, e->items[i - 1]->loc);
		if (acc.kind != V_TENSOR) {
			bool t = value_truthy(acc);
			if (e->bool_op == OP_AND ? !t : t) return acc; /* short circuit, Python-style */
			acc = eval(s, fn, e->items[i]);
			continue;
		}
		Value b = eval(s, fn, e->items[i]);
		if (b.kind == V_CONST) {
			/* x and True -> bool(x); x and False -> False; x or True -> True; x or False -> bool(x) */
			bool t = const_truthy(b.c);
			if (e->bool_op == OP_AND ? !t : t) acc = v_bool(t);
			else acc = logical(s, e->bool_op, acc, v_bool(e->bool_op == OP_AND), e->loc);
			continue;
		}
		acc = logical(s, e->bool_op, acc, b, e->loc);
	}
	return acc;
}

Value compare_one(Sema *s, AstOp op, Value a, Value b, SrcLoc loc)
{
	if (((a.kind == V_TUPLE && a.set) || (b.kind == V_TUPLE && b.set)) && op >= OP_LT && op <= OP_NE)
		return set_binop(s, op, a, b, loc); /* {1, 2} == {2, 1}, subsets */
	Value typed;
	if (pytype_compare(s, op, a, b, loc, &typed)) return typed; /* x.type == tl.constexpr_type(4) */
	if (a.kind == V_RTARG || b.kind == V_RTARG) {
		/* a runtime argument is never None: Triton specializes None as a constant */
		if ((op == OP_IS || op == OP_ISNOT) && (v_is_none(a) || v_is_none(b))) return v_bool(op == OP_ISNOT);
		return rtarg_needed(s, a.kind == V_RTARG ? a : b, loc);
	}
	/* an Enum member equals only itself; an IntEnum's is its int, but `is` only itself */
	if ((v_is_enum_member(a) || v_is_enum_member(b)) &&
	    (op == OP_IS || op == OP_ISNOT || ((op == OP_EQ || op == OP_NE) && (a.kind == V_DICT || b.kind == V_DICT)))) {
		bool same = values_identical(a, b);
		return v_bool(op == OP_EQ || op == OP_IS ? same : !same);
	}
	if ((op == OP_IN || op == OP_NOTIN) && b.kind == V_DICT && !v_is_enum_member(b)) {
		Value out;
		bool found = dict_get(b, a, &out);
		return v_bool(op == OP_IN ? found : !found);
	}
	Value in_flag;
	if ((op == OP_IN || op == OP_NOTIN) && enum_flag_contains(s, a, b, loc, &in_flag)) /* Perm.R in mode */
		return in_flag.kind == V_ERR || op == OP_IN ? in_flag : v_bool(!in_flag.c.i);
	if ((op == OP_IN || op == OP_NOTIN) && v_is_const(b, CV_STR)) { /* "lo" in S */
		Value r = str_contains(s, a, b.c.s ? b.c.s : "", loc);
		return r.kind == V_ERR || op == OP_IN ? r : v_bool(!r.c.i);
	}
	bool in_enum;
	if ((op == OP_IN || op == OP_NOTIN) && b.kind == V_MODULE && enum_class_contains(s, b.mod, a, &in_enum))
		return v_bool(op == OP_IN ? in_enum : !in_enum); /* Act.RELU in Act */
	if (op == OP_IN || op == OP_NOTIN) {
		if (b.kind != V_TUPLE) {
			diag_error(s->d, loc, "'in' needs a constexpr tuple on the right, got %s", v_describe(s, b));
			return v_err();
		}
		bool found = false;
		for (int i = 0; i < b.n && !found; i++) {
			if (values_identical(a, b.items[i])) found = true;
			else if ((a.kind == V_CONST || a.kind == V_DTYPE) && (b.items[i].kind == V_CONST || b.items[i].kind == V_DTYPE)) {
				Value eq = const_binop(s, OP_EQ, a, b.items[i], loc);
				found = eq.kind == V_CONST && eq.c.i;
			}
		}
		return v_bool(op == OP_IN ? found : !found);
	}
	if (a.kind == V_DICT && b.kind == V_DICT && a.msg == VERSION_OBJ && b.msg == VERSION_OBJ &&
	    (op == OP_LT || op == OP_LE || op == OP_GT || op == OP_GE || op == OP_EQ || op == OP_NE)) {
		int r = versions_compare(a, b);
		bool t = op == OP_LT ? r < 0 : op == OP_LE ? r <= 0 : op == OP_GT ? r > 0 : op == OP_GE ? r >= 0
		       : op == OP_EQ ? r == 0 : r != 0;
		return v_bool(t);
	}
	if ((op == OP_EQ || op == OP_NE) && a.kind == V_TUPLE && b.kind == V_TUPLE) {
		/* each item compared is a step: tuples that share their items
		 * (t = (t, t) in a static_range) are exponentially large */
		if (!sema_work(s, a.n, loc)) return v_err();
		if (a.n == b.n && a.items == b.items && a.n && a.list == b.list) /* the same items, as Python's identity shortcut */
			return v_bool(op == OP_EQ);
		bool eq = a.n == b.n;
		for (int i = 0; eq && i < a.n; i++) {
			Value r = compare_one(s, OP_EQ, a.items[i], b.items[i], loc);
			if (r.kind == V_ERR) return r;
			if (r.kind != V_CONST) {
				diag_error(s->d, loc, "tuples of tensors cannot be compared");
				return v_err();
			}
			eq = r.c.i != 0;
		}
		return v_bool(op == OP_EQ ? eq : !eq);
	}
	return binop(s, op, a, b, loc);
}

static Value eval_compare(Sema *s, Fn *fn, const Expr *e)
{
	Value lhs = eval(s, fn, e->operands[0]);
	Value acc = v_bool(true);
	for (int i = 0; i < e->ncmp; i++) {
		const Expr *re = e->operands[i + 1];
		Value rhs;
		if (re->kind == EX_SET && (e->cmp_ops[i] == OP_IN || e->cmp_ops[i] == OP_NOTIN)) {
			Value *items = ARENA_NEWN(s->a, Value, re->nitems + 1);
			for (int k = 0; k < re->nitems; k++)
				if ((items[k] = eval(s, fn, re->items[k])).kind == V_ERR) return v_err();
			rhs = v_tuple(s, items, re->nitems);
		} else {
			rhs = eval(s, fn, re);
		}
		Value r = compare_one(s, e->cmp_ops[i], lhs, rhs, e->operands[i]->loc);
		if (r.kind == V_ERR) return r;
		if (i == 0) acc = r;
		else if (acc.kind == V_CONST && r.kind == V_CONST) acc = v_bool(const_truthy(acc.c) && const_truthy(r.c));
		else if (acc.kind == V_CONST) acc = const_truthy(acc.c) ? r : acc;
		else if (r.kind == V_CONST) acc = const_truthy(r.c) ? acc : r;
		else acc = binop(s, OP_BITAND, acc, r, e->loc);
		if (acc.kind == V_CONST && !const_truthy(acc.c)) return acc;
		lhs = rhs;
	}
	return acc;
}

static Value eval_ifexp(Sema *s, Fn *fn, const Expr *e)
{
	Value c = eval(s, fn, e->cond);
	if (c.kind == V_ERR) return c;
	if (c.kind == V_RTARG) return rtarg_needed(s, c, e->cond->loc);
	if (c.kind != V_TENSOR) {
		bool t = value_truthy(c);
		return eval(s, fn, t ? e->then_e : e->else_e);
	}
	if (c.ty.rank) {
		diag_error(s->d, e->cond->loc, "a tile cannot be used as a condition; use tl.where");
		return v_err();
	}
	Value a = eval(s, fn, e->then_e), b = eval(s, fn, e->else_e);
	return make_where(s, c, a, b, e->loc);
}

Value eval(Sema *s, Fn *fn, const Expr *e)
{
	switch (e->kind) {
	case EX_NAME: return lookup_name(s, fn, e->name, e->loc);
	case EX_INT: return e->ival_u64 ? v_uint64((uint64_t)e->ival) : v_int(e->ival);
	case EX_FLOAT: return v_float(e->fval);
	case EX_STR:
		/* sema's strings end at a NUL: "a\0b" would compare equal to "a" */
		if (memchr(e->str, 0, e->slen)) {
			diag_error(s->d, e->loc, "a string with a NUL character (\\0, \\x00) is not supported");
			return v_err();
		}
		return v_str(arena_strndup(s->a, e->str, e->slen));
	case EX_BOOL: return v_bool(e->ival != 0);
	case EX_NONE: return v_none();
	case EX_ATTR: {
		Value obj = eval(s, fn, e->obj);
		return get_attr(s, obj, e->attr, e->loc);
	}
	case EX_CALL: return eval_call(s, fn, e);
	case EX_SUBSCRIPT: return subscript(s, fn, e);
	case EX_BINOP: {
		Value a = eval(s, fn, e->lhs);
		Value b = eval(s, fn, e->rhs);
		if (a.kind == V_RTARG || b.kind == V_RTARG) return rtarg_binop(s, e->op, a, b, e->loc);
		return binop(s, e->op, a, b, e->loc);
	}
	case EX_UNOP: {
		Value a = eval(s, fn, e->lhs);
		if (a.kind == V_RTARG) {
			if (e->op == OP_NOT) return rtarg_needed(s, a, e->lhs->loc);
			return rtarg_needed(s, a, e->loc);
		}
		return unop(s, e->op, a, e->loc);
	}
	case EX_COMPARE: return eval_compare(s, fn, e);
	case EX_BOOLOP: return eval_boolop(s, fn, e);
	case EX_IFEXP: return eval_ifexp(s, fn, e);
	case EX_TUPLE:
	case EX_LIST: {
		Value *items = ARENA_NEWN(s->a, Value, e->nitems + 1);
		for (int i = 0; i < e->nitems; i++) {
			items[i] = eval(s, fn, e->items[i]);
			if (items[i].kind == V_ERR) return v_err();
		}
		Value r = v_tuple(s, items, e->nitems);
		r.list = e->kind == EX_LIST;
		return r;
	}
	case EX_SLICE: diag_error(s->d, e->loc, "a slice is only allowed inside []"); return v_err();
	case EX_ELLIPSIS: diag_error(s->d, e->loc, "'...' is not supported here"); return v_err();
	case EX_DICT: return eval_dict(s, fn, e);
	case EX_LAMBDA: return eval_lambda(s, fn, e);
	case EX_LISTCOMP: return eval_listcomp(s, fn, e);
	case EX_SET: {
		if (!s->host_fn) { /* Triton's code generator has no sets; host code does */
			diag_error(s->d, e->loc, "set displays are only supported on the right of 'in' (use a tuple)");
			return v_err();
		}
		Value *items = ARENA_NEWN(s->a, Value, (size_t)e->nitems + 1);
		for (int k = 0; k < e->nitems; k++)
			if ((items[k] = eval(s, fn, e->items[k])).kind == V_ERR) return items[k];
		return v_set(s, items, e->nitems, e->loc);
	}
	case EX_STARRED: diag_error(s->d, e->loc, "unpacking ('*') is host Python that tile does not evaluate"); return v_err();
	case EX_NAMEDEXPR: { /* name := value: an assignment that is also the value */
		Value v = eval(s, fn, e->rhs);
		assign_target(s, fn, e->lhs, v, e->loc);
		return v;
	}
	}
	diag_error(s->d, e->loc, "unsupported expression");
	return v_err();
}

/* sema_expr.c: expressions: names, literals, attributes, subscripts, operators. */
#include <stdio.h>
#include <string.h>

#include "sema/sema_int.h"

/* ---- attributes ----------------------------------------------------------------- */

static Value tensor_attr(Sema *s, Value obj, const char *name, SrcLoc loc)
{
	if (!strcmp(name, "dtype") || !strcmp(name, "type")) return v_dtype(obj.ty);
	if (!strcmp(name, "shape")) {
		Value items[TIR_MAX_RANK];
		for (int i = 0; i < obj.ty.rank; i++) items[i] = v_int(obj.ty.shape[i]);
		return v_tuple(s, items, obj.ty.rank);
	}
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

static Value dtype_attr(Sema *s, Value obj, const char *name, SrcLoc loc)
{
	if (!strcmp(name, "element_ty")) {
		if (obj.ty.dt != DT_PTR) {
			diag_error(s->d, loc, "'element_ty' of %s: not a pointer type", dt_name(s, obj.ty));
			return v_err();
		}
		return v_dtype(type_scalar((DType)obj.ty.elem));
	}
	if (!strcmp(name, "primitive_bitwidth") || !strcmp(name, "int_bitwidth")) return v_int(dtype_bits((DType)obj.ty.dt));
	if (!strcmp(name, "itemsize")) return v_int(dtype_bytes((DType)obj.ty.dt));
	if (!strcmp(name, "scalar")) return obj;
	if (!strcmp(name, "name")) return v_str(dtype_name((DType)obj.ty.dt));
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

Value get_attr(Sema *s, Value obj, const char *name, SrcLoc loc)
{
	switch (obj.kind) {
	case V_ERR: return obj;
	case V_NS: return ns_attr(s, obj.ns, name, loc);
	case V_MODULE: return module_attr(s, obj.mod, name, loc);
	case V_TENSOR: return tensor_attr(s, obj, name, loc);
	case V_DTYPE: return dtype_attr(s, obj, name, loc);
	case V_CONST:
		if (!strcmp(name, "value")) return obj;
		if (obj.c.kind == CV_DTYPE) return dtype_attr(s, v_dtype(type_scalar(obj.c.dtype)), name, loc);
		break;
	case V_FUNC:
		if (!strcmp(name, "fn")) return obj;
		break;
	default: break;
	}
	diag_error(s->d, loc, "%s has no attribute '%s'", v_describe(s, obj), name);
	return v_err();
}

/* ---- constexpr helpers ---------------------------------------------------------------- */

bool as_const_int(Sema *s, Value v, SrcLoc loc, const char *what, int64_t *out)
{
	if (v.kind == V_ERR) return false;
	if (v_is_intlike(v)) {
		*out = v.c.i;
		return true;
	}
	diag_error(s->d, loc, "%s must be a constexpr int, got %s", what, v_describe(s, v));
	return false;
}

bool as_int_list(Sema *s, Value v, SrcLoc loc, const char *what, int32_t *out, int max, int *n)
{
	if (v.kind == V_ERR) return false;
	if (v_is_intlike(v)) {
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
		out[i] = (int32_t)v.items[i].c.i;
	}
	*n = v.n;
	return true;
}

bool eval_const(Sema *s, Fn *fn, const Expr *e, const char *what, ConstVal *out)
{
	Value v = eval(s, fn, e);
	if (v.kind == V_ERR) return false;
	if (v.kind == V_DTYPE && v.ty.dt != DT_PTR) {
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

/* ---- subscripts ------------------------------------------------------------------------- */

static bool is_full_slice(const Expr *e) { return e->kind == EX_SLICE && !e->lo && !e->hi && !e->step; }

static Value subscript_tensor(Sema *s, Value base, const Expr *e)
{
	Type t = base.ty;
	int nkeep = 0;
	for (int i = 0; i < e->nindex; i++) {
		const Expr *ix = e->index[i];
		if (ix->kind == EX_NONE) continue;
		if (is_full_slice(ix)) {
			nkeep++;
			continue;
		}
		diag_error(s->d, ix->loc, "only None and ':' are supported in tensor indices");
		return v_err();
	}
	if (nkeep > t.rank) {
		diag_error(s->d, e->loc, "too many indices for a tensor of rank %d", t.rank);
		return v_err();
	}
	ValId x = base.id;
	int src = 0, dst = 0;
	for (int i = 0; i < e->nindex; i++) {
		const Expr *ix = e->index[i];
		if (ix->kind == EX_NONE) {
			Type cur = vtype(s, x);
			if (cur.rank + 1 > TIR_MAX_RANK) {
				diag_error(s->d, ix->loc, "tiles of rank %d are not supported", cur.rank + 1);
				return v_err();
			}
			Type r = cur;
			r.rank++;
			for (int d = r.rank - 1; d > dst; d--) r.shape[d] = cur.shape[d - 1];
			r.shape[dst] = 1;
			TirOp *op = emit_op(s, TOP_EXPAND_DIMS, ix->loc, &x, 1, r);
			op->attr.axis = dst;
			x = op->results[0];
			dst++;
		} else {
			src++;
			dst++;
		}
	}
	(void)src;
	return v_tensor(s, x);
}

static Value subscript(Sema *s, Fn *fn, const Expr *e)
{
	Value base = eval(s, fn, e->base);
	if (base.kind == V_ERR) return base;
	if (base.kind == V_TENSOR) return subscript_tensor(s, base, e);
	if (base.kind == V_TUPLE && e->nindex == 1) {
		const Expr *ix = e->index[0];
		if (ix->kind == EX_SLICE) {
			int64_t lo = 0, hi = base.n, step = 1;
			if (ix->lo && !eval_const_int(s, fn, ix->lo, "slice start", &lo)) return v_err();
			if (ix->hi && !eval_const_int(s, fn, ix->hi, "slice end", &hi)) return v_err();
			if (ix->step && !eval_const_int(s, fn, ix->step, "slice step", &step)) return v_err();
			if (step <= 0) {
				diag_error(s->d, ix->loc, "tuple slices need a positive step");
				return v_err();
			}
			if (lo < 0) lo += base.n;
			if (hi < 0) hi += base.n;
			lo = lo < 0 ? 0 : lo > base.n ? base.n : lo;
			hi = hi < 0 ? 0 : hi > base.n ? base.n : hi;
			Value items[64];
			int n = 0;
			for (int64_t i = lo; i < hi && n < 64; i += step) items[n++] = base.items[i];
			return v_tuple(s, items, n);
		}
		int64_t i;
		if (!eval_const_int(s, fn, ix, "tuple index", &i)) return v_err();
		if (i < 0) i += base.n;
		if (i < 0 || i >= base.n) {
			diag_error(s->d, ix->loc, "tuple index %lld out of range (size %d)", (long long)i, base.n);
			return v_err();
		}
		return base.items[i];
	}
	diag_error(s->d, e->loc, "%s is not subscriptable", v_describe(s, base));
	return v_err();
}

/* ---- calls --------------------------------------------------------------------------------- */

static Value eval_call(Sema *s, Fn *fn, const Expr *e)
{
	Value callee = eval(s, fn, e->func);
	if (callee.kind == V_ERR) return callee;
	int na = e->nargs, nk = e->nkwargs;
	Value *args = ARENA_NEWN(s->a, Value, na + 1);
	SrcLoc *locs = ARENA_NEWN(s->a, SrcLoc, na + nk + 1);
	Value *kw = ARENA_NEWN(s->a, Value, nk + 1);
	const Expr **exs = ARENA_NEWN(s->a, const Expr *, na + nk + 1);
	const char **kwn = ARENA_NEWN(s->a, const char *, nk + 1);
	bool bad = false;
	for (int i = 0; i < na; i++) {
		args[i] = eval(s, fn, e->args[i]);
		locs[i] = e->args[i]->loc;
		exs[i] = e->args[i];
		bad |= args[i].kind == V_ERR;
	}
	for (int i = 0; i < nk; i++) {
		kw[i] = eval(s, fn, e->kwargs[i].value);
		kwn[i] = e->kwargs[i].name;
		locs[na + i] = e->kwargs[i].loc;
		exs[na + i] = e->kwargs[i].value;
		bad |= kw[i].kind == V_ERR;
	}
	if (bad) return v_err();
	return call_value(s, fn, callee, args, na, kwn, kw, nk, e->loc, locs, exs);
}

/* ---- boolean operators ------------------------------------------------------------------------ */

static Value logical(Sema *s, AstOp op, Value a, Value b, SrcLoc loc)
{
	if (a.kind == V_ERR || b.kind == V_ERR) return v_err();
	if ((a.kind == V_TENSOR && a.ty.rank) || (b.kind == V_TENSOR && b.ty.rank)) {
		diag_error(s->d, loc, "'%s' is not supported on tiles; use '%s'", op == OP_AND ? "and" : "or",
			   op == OP_AND ? "&" : "|");
		return v_err();
	}
	ValId x = to_ir_natural(s, a, loc), y = to_ir_natural(s, b, loc);
	if (!x || !y) return v_err();
	x = to_bool(s, x, loc);
	y = to_bool(s, y, loc);
	ValId in[2] = {x, y};
	return v_tensor(s, emit(s, op == OP_AND ? TOP_AND : TOP_OR, loc, in, 2, type_scalar(DT_I1)));
}

static Value eval_boolop(Sema *s, Fn *fn, const Expr *e)
{
	Value acc = eval(s, fn, e->items[0]);
	for (int i = 1; i < e->nitems; i++) {
		if (acc.kind == V_ERR) return acc;
		if (acc.kind != V_TENSOR) {
			bool t = acc.kind == V_CONST ? const_truthy(acc.c) : true;
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

static Value compare_one(Sema *s, AstOp op, Value a, Value b, SrcLoc loc)
{
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
	if ((op == OP_EQ || op == OP_NE) && a.kind == V_TUPLE && b.kind == V_TUPLE) {
		bool eq = a.n == b.n;
		for (int i = 0; eq && i < a.n; i++) {
			Value r = compare_one(s, OP_EQ, a.items[i], b.items[i], loc);
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
		Value rhs = eval(s, fn, e->operands[i + 1]);
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
	if (c.kind != V_TENSOR) {
		bool t = c.kind == V_CONST ? const_truthy(c.c) : true;
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
	case EX_INT: return v_int(e->ival);
	case EX_FLOAT: return v_float(e->fval);
	case EX_STR: return v_str(arena_strndup(s->a, e->str, e->slen));
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
		return binop(s, e->op, a, b, e->loc);
	}
	case EX_UNOP: {
		Value a = eval(s, fn, e->lhs);
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
		return v_tuple(s, items, e->nitems);
	}
	case EX_SLICE: diag_error(s->d, e->loc, "a slice is only allowed inside []"); return v_err();
	case EX_ELLIPSIS: diag_error(s->d, e->loc, "'...' is not supported here"); return v_err();
	}
	diag_error(s->d, e->loc, "unsupported expression");
	return v_err();
}

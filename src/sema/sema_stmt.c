/* sema_stmt.c: statements and structured control flow.
 *
 * Variables are SSA by environment: an assignment rebinds a name in Fn.env.
 * - if with a constexpr condition: only the taken branch is analyzed, and it
 *   continues with the statements after the if (so an early return inside
 *   it sees the rest of the function).
 * - if with a runtime scalar condition: an IF op; names bound differently by
 *   the two branches are yielded (flattened into IR leaves: tuples and block
 *   pointers become several values).
 * - returns under a runtime if: the statements after the if are moved into
 *   every branch that does not always return, so each branch ends the
 *   function; the IF then yields the (flattened) return value. This covers
 *   `if pid >= n: return` in kernels and helpers returning from both branches.
 * - for over range/tl.range: a FOR op whose iter args are the names assigned
 *   in the body that exist before the loop; tl.static_range unrolls.
 * - while: a WHILE op with the same iter-arg rule.
 * The loops are sema_loop.c's; sema_stmt_int.h is what the two share.
 */
#include <stdio.h>
#include <string.h>

#include "sema/sema_int.h"
#include "sema/sema_stmt_int.h"

typedef struct Seq {
	const StmtList *sl;
	int start;
	const struct Seq *next;
} Seq;

/* Where a statement tile does not run is, for its error: a kernel, or host
 * Python tile runs at compile time (a heuristic, a decorator's helper, a
 * @constexpr_function), named by its function. */
static const char *stmt_where(Sema *s, const Fn *fn)
{
	if (!s->host_fn) return "in kernels";
	const char *name = fn->def ? fn->def->name : NULL;
	const char *what = s->heuristic ? arena_printf(s->a, "the heuristic for '%s'", s->heuristic)
				       : "host Python";
	if (!name) return arena_printf(s->a, "in %s that tile runs at compile time", what);
	return arena_printf(s->a, "in '%s' (%s that tile runs at compile time)", name, what);
}

static Flow exec_seq(Sema *s, Fn *fn, const Seq *q, bool tail);

/* ---- syntactic helpers ------------------------------------------------------------ */

static bool always_returns(const StmtList *l)
{
	for (int i = 0; i < l->n; i++) {
		const Stmt *st = l->items[i];
		if (st->kind == ST_RETURN) return true;
		if (st->kind == ST_IF && always_returns(&st->body) && always_returns(&st->orelse)) return true;
	}
	return false;
}

bool contains_return(const StmtList *l)
{
	for (int i = 0; i < l->n; i++) {
		const Stmt *st = l->items[i];
		if (st->kind == ST_RETURN) return true;
		if (st->kind == ST_IF && (contains_return(&st->body) || contains_return(&st->orelse))) return true;
		if (st->kind == ST_FOR && contains_return(&st->for_body)) return true;
		if ((st->kind == ST_WHILE || st->kind == ST_WITH) && contains_return(&st->body)) return true;
	}
	return false;
}


static void add_name(NameVec *v, const char *n)
{
	for (size_t i = 0; i < v->len; i++)
		if (v->data[i] == n) return;
	vec_push(v, n);
}

void target_names(const Expr *t, NameVec *out)
{
	while (t->kind == EX_SUBSCRIPT) t = t->base; /* d[k] = v rebinds d (host code) */
	if (t->kind == EX_NAME) add_name(out, t->name);
	else if (t->kind == EX_TUPLE || t->kind == EX_LIST)
		for (int i = 0; i < t->nitems; i++) target_names(t->items[i], out);
}


static void named_expr_targets_n(Expr *const *v, int n, NameVec *out)
{
	for (int i = 0; i < n; i++) named_expr_targets(v[i], out);
}

/* The names `name := value` binds anywhere inside e (a lambda's body binds
 * its own locals, as in Python; comprehensions' targets stay local). */
void named_expr_targets(const Expr *e, NameVec *out)
{
	if (!e) return;
	switch (e->kind) {
	case EX_NAMEDEXPR:
		add_name(out, e->lhs->name);
		named_expr_targets(e->rhs, out);
		break;
	case EX_ATTR: named_expr_targets(e->obj, out); break;
	case EX_CALL:
		named_expr_targets(e->func, out);
		named_expr_targets_n(e->args, e->nargs, out);
		for (int i = 0; i < e->nkwargs; i++) named_expr_targets(e->kwargs[i].value, out);
		break;
	case EX_SUBSCRIPT:
		named_expr_targets(e->base, out);
		named_expr_targets_n(e->index, e->nindex, out);
		break;
	case EX_SLICE:
		named_expr_targets(e->lo, out);
		named_expr_targets(e->hi, out);
		named_expr_targets(e->step, out);
		break;
	case EX_BINOP:
	case EX_UNOP:
	case EX_STARRED:
		named_expr_targets(e->lhs, out);
		named_expr_targets(e->rhs, out);
		break;
	case EX_COMPARE: named_expr_targets_n(e->operands, e->ncmp + 1, out); break;
	case EX_BOOLOP:
	case EX_TUPLE:
	case EX_LIST:
	case EX_SET: named_expr_targets_n(e->items, e->nitems, out); break;
	case EX_IFEXP:
		named_expr_targets(e->cond, out);
		named_expr_targets(e->then_e, out);
		named_expr_targets(e->else_e, out);
		break;
	case EX_DICT:
		named_expr_targets_n(e->keys, e->nkeys, out);
		named_expr_targets_n(e->values, e->nkeys, out);
		break;
	case EX_LISTCOMP:
		named_expr_targets(e->elt, out);
		for (int i = 0; i < e->ncomps; i++) {
			named_expr_targets(e->comps[i].iter, out);
			named_expr_targets_n(e->comps[i].ifs, e->comps[i].nifs, out);
		}
		break;
	default: break;
	}
}

bool has_named_expr(const Expr *e)
{
	NameVec v = {0};
	named_expr_targets(e, &v);
	bool any = v.len > 0;
	vec_free(&v);
	return any;
}

void assigned_names(const StmtList *l, NameVec *out)
{
	for (int i = 0; i < l->n; i++) {
		const Stmt *st = l->items[i];
		switch (st->kind) {
		case ST_EXPR:
		case ST_RETURN: named_expr_targets(st->value, out); break;
		case ST_ASSIGN:
			for (int k = 0; k < st->ntargets; k++) target_names(st->targets[k], out);
			named_expr_targets(st->assign_value, out);
			break;
		case ST_ANNASSIGN:
			target_names(st->ann_target, out);
			named_expr_targets(st->ann_value, out);
			break;
		case ST_AUGASSIGN:
			target_names(st->aug_target, out);
			named_expr_targets(st->aug_value, out);
			break;
		case ST_ASSERT:
			named_expr_targets(st->test, out);
			named_expr_targets(st->msg, out);
			break;
		case ST_IF:
		case ST_WHILE:
		case ST_WITH:
			named_expr_targets(st->cond, out);
			if (st->kind == ST_WITH && st->with_as) target_names(st->with_as, out);
			assigned_names(&st->body, out);
			assigned_names(&st->orelse, out);
			break;
		case ST_FOR:
			target_names(st->for_target, out);
			named_expr_targets(st->iter, out);
			assigned_names(&st->for_body, out);
			assigned_names(&st->for_orelse, out);
			break;
		default: break;
		}
	}
}

/* NAME.append(...), NAME.update(...): a call that rebinds NAME (lists and
 * dicts are values here) */
bool is_list_method_call(const Expr *e)
{
	static const char *const names[] = {"append", "extend", "update", "setdefault", "pop", "popitem", "clear",
					    "add", "discard", "remove"};
	if (!e || e->kind != EX_CALL || e->func->kind != EX_ATTR || e->func->obj->kind != EX_NAME) return false;
	for (size_t i = 0; i < COUNTOF(names); i++)
		if (!strcmp(e->func->attr, names[i])) return true;
	return false;
}

static void push_unique(NameList *out, const char *n)
{
	for (size_t k = 0; k < out->len; k++)
		if (out->data[k] == n) return;
	vec_push(out, n);
}

void host_bound_names(const StmtList *l, NameList *out)
{
	NameVec v = {0};
	assigned_names(l, &v);
	for (size_t i = 0; i < v.len; i++) push_unique(out, v.data[i]);
	vec_free(&v);
	for (int i = 0; i < l->n; i++) {
		const Stmt *st = l->items[i];
		const StmtList *sub[2] = {NULL, NULL};
		if (st->kind == ST_EXPR && is_list_method_call(st->value)) {
			push_unique(out, st->value->func->obj->name);
		} else if (st->kind == ST_ASSIGN && is_list_method_call(st->assign_value)) { /* v = d.pop(k) */
			push_unique(out, st->assign_value->func->obj->name);
		} else if (st->kind == ST_IF || st->kind == ST_WHILE || st->kind == ST_WITH) {
			sub[0] = &st->body, sub[1] = &st->orelse;
		} else if (st->kind == ST_FOR) {
			sub[0] = &st->for_body, sub[1] = &st->for_orelse;
		}
		for (int k = 0; k < 2; k++)
			if (sub[k]) host_bound_names(sub[k], out);
	}
}

/* ---- assignment ----------------------------------------------------------------------------- */

enum { HOST_DICT_ITEMS_LIMIT = 65536 }; /* as host lists: a runaway loop stops here */

/* `d[k] = v` / `xs[i] = v` in host Python (a heuristic, a constexpr_function,
 * module-level code): the container with that item set or added, bound again
 * to what t->base names. Compile-time containers are values: `b = a; b[0] = 1`
 * leaves a as it was (Python changes both). */
static void host_setitem(Sema *s, Fn *fn, const Expr *t, Value v, SrcLoc loc)
{
	Value base = eval(s, fn, t->base);
	if (base.kind == V_ERR) return;
	if (t->nindex != 1 || t->index[0]->kind == EX_SLICE) {
		diag_error(s->d, t->loc, "assignment to a slice or several indices of %s is not supported",
			   v_describe(s, base));
		return;
	}
	Value k = eval(s, fn, t->index[0]);
	if (k.kind == V_ERR) return;
	Value out = base;
	if (base.kind == V_DICT && !v_is_enum_member(base)) {
		if (!dict_key_ok(k)) {
			diag_error(s->d, t->index[0]->loc, "a dict key must be a constant, not %s",
				   k.kind == V_TUPLE && k.list ? "a list" : v_describe(s, k));
			return;
		}
		int at = dict_index(base, k);
		if (at < 0 && base.n >= HOST_DICT_ITEMS_LIMIT) {
			s->py_errors++;
			diag_error(s->d, t->loc, "a compile-time dict is limited to %d items", HOST_DICT_ITEMS_LIMIT);
			return;
		}
		int n = base.n + (at < 0);
		out.keys = ARENA_NEWN(s->a, Value, n);
		out.items = ARENA_NEWN(s->a, Value, n);
		if (base.n) { /* {} has no arrays */
			memcpy(out.keys, base.keys, sizeof(Value) * (size_t)base.n);
			memcpy(out.items, base.items, sizeof(Value) * (size_t)base.n);
		}
		if (at < 0) at = n - 1;
		out.keys[at] = k;
		out.items[at] = v;
		out.n = n;
	} else if (base.kind == V_TUPLE && base.list) {
		if (k.kind != V_CONST || (k.c.kind != CV_INT && k.c.kind != CV_BOOL)) {
			diag_error(s->d, t->index[0]->loc, "list indices must be integers, not %s", v_describe(s, k));
			return;
		}
		int64_t i = k.c.i < 0 ? k.c.i + base.n : k.c.i;
		if (i < 0 || i >= base.n) {
			s->py_errors++;
			diag_error(s->d, t->index[0]->loc, "list assignment index %lld out of range (%d items)",
				   (long long)k.c.i, base.n);
			return;
		}
		out.items = ARENA_NEWN(s->a, Value, base.n);
		memcpy(out.items, base.items, sizeof(Value) * (size_t)base.n);
		out.items[i] = v;
		out.buf = NULL; /* a copy: the grown buffer stays its owner's */
	} else {
		if (base.kind == V_TUPLE) s->py_errors++; /* Python's TypeError, at import */
		diag_error(s->d, t->loc, "%s does not support item assignment%s", v_describe(s, base),
			   base.kind == V_TENSOR ? " (tensors are values)" : "");
		return;
	}
	out.depth = value_nesting(out);
	assign_target(s, fn, t->base, out, loc);
}

void assign_target(Sema *s, Fn *fn, const Expr *t, Value v, SrcLoc loc)
{
	switch (t->kind) {
	case EX_NAME:
		if (value_nesting(v) > TUPLE_DEPTH_LIMIT) { /* t = (t,) in a loop: values are walked recursively */
			diag_error(s->d, loc, "'%s' would hold tuples nested more than %d deep", t->name, TUPLE_DEPTH_LIMIT);
			v = v_err();
		}
		if (v.kind == V_TENSOR && !tir_val(s->f, v.id)->name) tir_val(s->f, v.id)->name = t->name;
		env_set(&fn->env, t->name, v);
		return;
	case EX_TUPLE:
	case EX_LIST:
		if (v.kind == V_ERR) {
			for (int i = 0; i < t->nitems; i++) assign_target(s, fn, t->items[i], v, loc);
			return;
		}
		if (v.kind != V_TUPLE || v.n != t->nitems) {
			if (v.kind == V_TUPLE)
				diag_error(s->d, t->loc, "cannot unpack a tuple of %d values into %d targets", v.n, t->nitems);
			else diag_error(s->d, t->loc, "cannot unpack %s into %d targets", v_describe(s, v), t->nitems);
			for (int i = 0; i < t->nitems; i++) assign_target(s, fn, t->items[i], v_err(), loc);
			return;
		}
		for (int i = 0; i < t->nitems; i++) assign_target(s, fn, t->items[i], v.items[i], loc);
		return;
	case EX_SUBSCRIPT:
		if (s->host_fn) host_setitem(s, fn, t, v, loc);
		else diag_error(s->d, t->loc, "assignment to a subscript is not supported (tensors are values)");
		return;
	case EX_ATTR: agg_assign_field(s, fn, t, v, loc); return;
	default: diag_error(s->d, t->loc, "cannot assign to this expression"); return;
	}
}

/* ---- if ------------------------------------------------------------------------------------ */


static bool in_loop(Fn *fn)
{
	for (size_t i = 0; i < fn->ctx.len; i++)
		if (fn->ctx.data[i] != CTX_RT_IF) return true;
	return false;
}

/* Python's return from compile-time loops: a constexpr_function's loops all unroll */
static bool in_static_loops_only(Sema *s, Fn *fn)
{
	for (size_t i = 0; i < fn->ctx.len; i++)
		if (fn->ctx.data[i] != CTX_STATIC_LOOP) return false;
	return s->host_fn > 0;
}

typedef struct Merge {
	const char *name;
	Value tmpl;
	int start, n;
} Merge;

/* Merges the environments of the two branches of `op` into fn->env. */
static void merge_if_envs(Sema *s, Fn *fn, TirOp *op, Env *et, Env *ee, SrcLoc loc)
{
	IdVec yt = {0}, ye = {0};
	VEC(Merge) ms = {0};
	Env out = {0};
	NameVec names = {0};
	for (size_t i = 0; i < et->len; i++) add_name(&names, et->data[i].name);
	for (size_t i = 0; i < ee->len; i++) add_name(&names, ee->data[i].name);
	for (size_t i = 0; i < names.len; i++) {
		const char *n = names.data[i];
		Value *vt = env_find(et, n), *ve = env_find(ee, n);
		if (!vt || !ve) {
			Value p = {.kind = V_POISON, .msg = arena_printf(s->a, "'%s' is defined in only one branch of an if", n)};
			vec_push(&out, ((Binding){n, p}));
			continue;
		}
		if (values_identical(*vt, *ve) || vt->kind == V_ERR || ve->kind == V_ERR) {
			vec_push(&out, ((Binding){n, vt->kind == V_ERR ? *vt : *ve}));
			continue;
		}
		bool ok = same_template(s, *vt, *ve);
		size_t t0 = yt.len, e0 = ye.len;
		if (ok) {
			s->blk = &op->regions[0];
			ok = flatten_value(s, *vt, &yt, true, loc);
			s->blk = &op->regions[1];
			ok = ok && flatten_value(s, *ve, &ye, true, loc);
			ok = ok && yt.len - t0 == ye.len - e0;
			for (size_t k = 0; ok && k < yt.len - t0; k++)
				ok = type_eq(vtype(s, yt.data[t0 + k]), vtype(s, ye.data[e0 + k]));
		}
		if (!ok) {
			yt.len = t0;
			ye.len = e0;
			Value p = {.kind = V_POISON,
				   .msg = arena_printf(s->a, "'%s' is %s in one branch of an if and %s in the other", n,
						       value_kind_str(s, *vt), other_kind_str(s, value_kind_str(s, *vt), *ve))};
			vec_push(&out, ((Binding){n, p}));
			continue;
		}
		vec_push(&ms, ((Merge){n, *vt, (int)t0, (int)(yt.len - t0)}));
		vec_push(&out, ((Binding){n, v_err()}));
	}
	s->blk = &op->regions[0];
	tir_op(s->f, s->blk, TOP_YIELD, op_loc(s, loc), yt.data, (int)yt.len, NULL, 0);
	s->blk = &op->regions[1];
	tir_op(s->f, s->blk, TOP_YIELD, op_loc(s, loc), ye.data, (int)ye.len, NULL, 0);
	s->blk = op->block;
	Type *types = ARENA_NEWN(s->a, Type, yt.len + 1);
	for (size_t k = 0; k < yt.len; k++) types[k] = vtype(s, yt.data[k]);
	tir_op_set_results(s->f, op, types, (int)yt.len);
	for (size_t i = 0; i < ms.len; i++) {
		int pos = ms.data[i].start;
		Value v = unflatten_value(s, ms.data[i].tmpl, op->results, &pos);
		*env_find(&out, ms.data[i].name) = v;
	}
	env_copy(&fn->env, &out);
	env_free(&out);
	vec_free(&yt);
	vec_free(&ye);
	vec_free(&ms);
	vec_free(&names);
}

/* Runtime ifs and loops nest their regions, and every later pass walks them
 * recursively: an early return under a runtime if nests the rest of the
 * function inside it, so 5000 of them in a row overflowed the stack. */
bool nest_enter(Sema *s, SrcLoc loc)
{
	if (s->nest >= NEST_LIMIT) {
		diag_error(s->d, loc,
			   "control flow nested more than %d deep (an early return under a runtime if "
			   "nests the rest of the function inside it)",
			   NEST_LIMIT);
		return false;
	}
	s->nest++;
	return true;
}

static Flow exec_branch(Sema *s, Fn *fn, TirBlock *blk, const StmtList *body, const Seq *rest, bool tail)
{
	s->blk = blk;
	Seq q = {body, 0, rest};
	return exec_seq(s, fn, &q, tail);
}

/* Both branches end the function: yield the return value. */
static Flow rt_if_returning(Sema *s, Fn *fn, const Stmt *st, TirOp *op, const Seq *rest, const Env *env0)
{
	Value rv[2];
	bool then_ret = always_returns(&st->body), else_ret = always_returns(&st->orelse);
	for (int b = 0; b < 2; b++) {
		env_copy(&fn->env, env0);
		fn->has_ret = false;
		fn->retval = v_none();
		const StmtList *body = b == 0 ? &st->body : &st->orelse;
		bool ret = b == 0 ? then_ret : else_ret;
		exec_branch(s, fn, &op->regions[b], body, ret ? NULL : rest, true);
		rv[b] = fn->has_ret ? fn->retval : v_none();
	}
	IdVec yt = {0}, ye = {0};
	bool ok = rv[0].kind != V_ERR && rv[1].kind != V_ERR;
	if (ok && !values_identical(rv[0], rv[1])) {
		ok = same_template(s, rv[0], rv[1]);
		s->blk = &op->regions[0];
		ok = ok && flatten_value(s, rv[0], &yt, true, st->loc);
		s->blk = &op->regions[1];
		ok = ok && flatten_value(s, rv[1], &ye, true, st->loc);
		ok = ok && yt.len == ye.len;
		for (size_t k = 0; ok && k < yt.len; k++) ok = type_eq(vtype(s, yt.data[k]), vtype(s, ye.data[k]));
		if (!ok)
			diag_error(s->d, st->loc, "the branches of this if return different kinds of values: %s and %s",
				   value_kind_str(s, rv[0]), value_kind_str(s, rv[1]));
	}
	s->blk = &op->regions[0];
	tir_op(s->f, s->blk, TOP_YIELD, op_loc(s, st->loc), yt.data, (int)yt.len, NULL, 0);
	s->blk = &op->regions[1];
	tir_op(s->f, s->blk, TOP_YIELD, op_loc(s, st->loc), ye.data, (int)ye.len, NULL, 0);
	s->blk = op->block;
	Type *types = ARENA_NEWN(s->a, Type, yt.len + 1);
	for (size_t k = 0; k < yt.len; k++) types[k] = vtype(s, yt.data[k]);
	if (ok) tir_op_set_results(s->f, op, types, (int)yt.len);
	fn->has_ret = true;
	if (!ok) fn->retval = v_err();
	else if (yt.len == 0) fn->retval = rv[0];
	else {
		int pos = 0;
		fn->retval = unflatten_value(s, rv[0], op->results, &pos);
	}
	vec_free(&yt);
	vec_free(&ye);
	return FLOW_RETURN;
}

static Flow exec_rt_if_in(Sema *s, Fn *fn, const Stmt *st, ValId cond, const Seq *rest, bool tail, bool *consumed)
{
	TirOp *op = tir_op(s->f, s->blk, TOP_IF, op_loc(s, st->loc), &cond, 1, NULL, 0);
	tir_op_add_regions(s->f, op, 2);
	TirBlock *outer = s->blk;
	Env env0 = {0};
	env_copy(&env0, &fn->env);
	ctx_push(fn, CTX_RT_IF);
	Flow flow = FLOW_NEXT;
	if (contains_return(&st->body) || contains_return(&st->orelse)) {
		*consumed = true;
		if (!tail || in_loop(fn)) {
			diag_error(s->d, st->loc, "return inside a runtime branch is not supported here");
			flow = FLOW_NEXT;
			s->blk = &op->regions[0];
			tir_op(s->f, s->blk, TOP_YIELD, op_loc(s, st->loc), NULL, 0, NULL, 0);
			s->blk = &op->regions[1];
			tir_op(s->f, s->blk, TOP_YIELD, op_loc(s, st->loc), NULL, 0, NULL, 0);
		} else {
			flow = rt_if_returning(s, fn, st, op, rest, &env0);
		}
	} else {
		Env et = {0};
		exec_branch(s, fn, &op->regions[0], &st->body, NULL, false);
		env_copy(&et, &fn->env);
		env_copy(&fn->env, &env0);
		exec_branch(s, fn, &op->regions[1], &st->orelse, NULL, false);
		Env ee = {0};
		env_copy(&ee, &fn->env);
		merge_if_envs(s, fn, op, &et, &ee, st->loc);
		env_free(&et);
		env_free(&ee);
	}
	ctx_pop(fn);
	s->blk = outer;
	env_free(&env0);
	return flow;
}

static Flow exec_rt_if(Sema *s, Fn *fn, const Stmt *st, ValId cond, const Seq *rest, bool tail, bool *consumed)
{
	if (!nest_enter(s, st->loc)) return FLOW_NEXT;
	Flow f = exec_rt_if_in(s, fn, st, cond, rest, tail, consumed);
	s->nest--;
	return f;
}

/* ---- ifs on an element, inside tl.map_elementwise's function (builtins_map.c) ---- */

/* what runs the function, for errors */
const char *elementwise_fn(const Sema *s)
{
	return s->combine_depth ? "combine_fn" : "tl.map_elementwise";
}

/* Both branches of an if-converted if run for every element: a memory access
 * (or a print, an assert) under one would happen where the branch is not taken. */
static bool map_branch_pure(Sema *s, const TirBlock *b, int from, SrcLoc loc)
{
	for (int i = from; i < b->nops; i++) {
		const TirOp *op = b->ops[i];
		if (tir_op_flags((TirOpKind)op->kind) & TF_MEM) {
			diag_error(s->d, op->loc.line ? op->loc : loc,
				   "%s: '%s' under an if on the element is not supported (tile runs both branches "
				   "for every element)",
				   elementwise_fn(s), tir_op_name((TirOpKind)op->kind));
			return false;
		}
		for (int r = 0; r < op->nregions; r++)
			if (!map_branch_pure(s, &op->regions[r], 0, loc)) return false;
	}
	return true;
}

/* where(cond, a, b), item by item for tuples */
static Value map_merge(Sema *s, ValId cond, Value a, Value b, const char *name, SrcLoc loc)
{
	if (a.kind == V_ERR || b.kind == V_ERR) return v_err();
	if (values_identical(a, b)) return a;
	if (a.kind == b.kind && (a.kind == V_TUPLE || (a.kind == V_AGG && a.mod == b.mod)) && a.n == b.n) {
		Value *items = ARENA_NEWN(s->a, Value, a.n + 1);
		for (int i = 0; i < a.n; i++) {
			items[i] = map_merge(s, cond, a.items[i], b.items[i], name, loc);
			if (items[i].kind == V_ERR) return v_err();
		}
		if (a.kind == V_AGG) return v_agg(s, a.mod, items, a.n, a.ns);
		Value r = v_tuple(s, items, a.n);
		r.mod = a.mod == b.mod ? a.mod : NULL; /* a NamedTuple's class */
		return r;
	}
	bool na = a.kind == V_TENSOR || (a.kind == V_CONST && a.c.kind != CV_STR && a.c.kind != CV_NONE);
	bool nb = b.kind == V_TENSOR || (b.kind == V_CONST && b.c.kind != CV_STR && b.c.kind != CV_NONE);
	if (!na || !nb) {
		diag_error(s->d, loc, "%s: %s is %s in one branch of this if and %s in the other", elementwise_fn(s),
			   name, v_describe(s, a), v_describe(s, b));
		return v_err();
	}
	return make_where(s, v_tensor(s, cond), a, b, loc);
}

static Flow exec_map_if(Sema *s, Fn *fn, const Stmt *st, ValId cond, const Seq *rest, bool tail, bool *consumed)
{
	TirBlock *blk = s->blk;
	int op0 = blk->nops;
	Env env0 = {0};
	env_copy(&env0, &fn->env);
	Flow flow = FLOW_NEXT;
	if (contains_return(&st->body) || contains_return(&st->orelse)) {
		*consumed = true;
		if (!tail || in_loop(fn)) {
			diag_error(s->d, st->loc, "return inside a runtime branch is not supported here");
		} else {
			Value rv[2];
			for (int b = 0; b < 2; b++) {
				env_copy(&fn->env, &env0);
				fn->has_ret = false;
				fn->retval = v_none();
				const StmtList *body = b == 0 ? &st->body : &st->orelse;
				Seq q = {body, 0, always_returns(body) ? NULL : rest};
				s->blk = blk;
				exec_seq(s, fn, &q, true);
				rv[b] = fn->has_ret ? fn->retval : v_none();
			}
			s->blk = blk;
			fn->has_ret = true;
			fn->retval = map_merge(s, cond, rv[0], rv[1], "the return value", st->loc);
			flow = FLOW_RETURN;
		}
	} else {
		Env et = {0}, out = {0};
		NameVec names = {0};
		Seq q = {&st->body, 0, NULL};
		exec_seq(s, fn, &q, false);
		env_copy(&et, &fn->env);
		env_copy(&fn->env, &env0);
		q = (Seq){&st->orelse, 0, NULL};
		s->blk = blk;
		exec_seq(s, fn, &q, false);
		s->blk = blk;
		for (size_t i = 0; i < et.len; i++) add_name(&names, et.data[i].name);
		for (size_t i = 0; i < fn->env.len; i++) add_name(&names, fn->env.data[i].name);
		for (size_t i = 0; i < names.len; i++) {
			const char *n = names.data[i];
			Value *vt = env_find(&et, n), *ve = env_find(&fn->env, n);
			Value v;
			if (!vt || !ve)
				v = (Value){.kind = V_POISON, .msg = arena_printf(s->a, "'%s' is defined in only one branch of an if", n)};
			else
				v = map_merge(s, cond, *vt, *ve, arena_printf(s->a, "'%s'", n), st->loc);
			vec_push(&out, ((Binding){n, v}));
		}
		env_copy(&fn->env, &out);
		env_free(&et);
		env_free(&out);
		vec_free(&names);
	}
	s->blk = blk;
	map_branch_pure(s, blk, op0, st->loc);
	env_free(&env0);
	return flow;
}

/* An if whose condition was an error runs neither branch: the names they would
 * bind read as errors, which are silent, so later uses do not add 'unknown name'
 * reports to the one that matters (Triton stops at the first error). */
static void bind_branch_names_err(Fn *fn, const Stmt *st)
{
	NameVec names = {0};
	assigned_names(&st->body, &names);
	assigned_names(&st->orelse, &names);
	for (size_t i = 0; i < names.len; i++)
		if (!env_find(&fn->env, names.data[i])) env_set(&fn->env, names.data[i], v_err());
	vec_free(&names);
}

static Flow exec_if(Sema *s, Fn *fn, const Stmt *st, const Seq *rest, bool tail, bool *consumed)
{
	Value c = eval(s, fn, st->cond);
	if (c.kind == V_ERR) {
		bind_branch_names_err(fn, st);
		return FLOW_NEXT;
	}
	if (c.kind == V_TENSOR) {
		if ((c.ty.rank && s->map_depth) || s->combine_depth) {
			ValId cond = to_bool(s, c.id, st->cond->loc);
			if (!nest_enter(s, st->loc)) return FLOW_NEXT;
			Flow f = exec_map_if(s, fn, st, cond, rest, tail, consumed);
			s->nest--;
			return f;
		}
		/* Triton unsplats a one-element tile used as an if's condition (it warns
		 * "please use .item()"); trident's argmax writes `if peak > output:` on
		 * shape (1,) values. */
		if (c.ty.rank && type_numel(c.ty) == 1) c = v_tensor(s, shape_reshape(s, c.id, 0, NULL, st->cond->loc));
		if (c.ty.rank) {
			diag_error(s->d, st->cond->loc, "a tile cannot be used as a branch condition; use tl.where");
			bind_branch_names_err(fn, st);
			return FLOW_NEXT;
		}
		ValId cond = to_bool(s, c.id, st->cond->loc);
		return exec_rt_if(s, fn, st, cond, rest, tail, consumed);
	}
	bool t = value_truthy(c);
	*consumed = true;
	Seq q = {t ? &st->body : &st->orelse, 0, rest};
	return exec_seq(s, fn, &q, tail);
}

/* ---- with ---------------------------------------------------------------------------------- */

/* `with tl.async_task(...):` (Triton's warp-specialization hint, and Meta's
 * TLX fork's) runs its body in place, as Triton does without warp
 * specialization: tile schedules warps itself. Other context managers have
 * no meaning in a kernel; Triton rejects a return inside a with. */
static Flow exec_with(Sema *s, Fn *fn, const Stmt *st, const Seq *rest, bool tail, bool *consumed)
{
	const Expr *e = st->cond;
	Value callee = e->kind == EX_CALL ? eval(s, fn, e->func) : v_err();
	if (callee.kind == V_ERR && e->kind == EX_CALL) return FLOW_NEXT;
	if (callee.kind != V_BUILTIN || strcmp(builtin_get(callee.builtin)->name, "async_task")) {
		diag_error(s->d, e->loc, "a with statement in a kernel takes tl.async_task(...) only");
		return FLOW_NEXT;
	}
	if (eval(s, fn, e).kind == V_ERR) return FLOW_NEXT;
	if (st->with_as) {
		diag_error(s->d, st->with_as->loc, "'with tl.async_task(...) as' binds nothing in Triton");
		return FLOW_NEXT;
	}
	if (contains_return(&st->body)) {
		diag_error(s->d, st->loc, "a return inside a with statement is not supported (Triton rejects it too)");
		return FLOW_NEXT;
	}
	*consumed = true;
	Seq q = {&st->body, 0, rest};
	return exec_seq(s, fn, &q, tail);
}

/* ---- simple statements ---------------------------------------------------------------------- */

static void exec_assert(Sema *s, Fn *fn, const Stmt *st)
{
	Value c = eval(s, fn, st->test);
	const char *msg = NULL;
	if (st->msg) {
		Value m = eval(s, fn, st->msg);
		if (m.kind == V_CONST && m.c.kind == CV_STR) msg = m.c.s;
		else if (m.kind == V_CONST) {
			char buf[128];
			const_str(m.c, buf, sizeof buf);
			msg = arena_strdup(s->a, buf);
		}
	}
	if (c.kind == V_ERR) return;
	/* a constant condition that is false where the statement surely runs
	 * (not inside a runtime if or loop; in a @constexpr_function, Python's
	 * assert) fails at compile time; in a branch the program may never
	 * take (`else: assert False, "unknown mode"`) it is a device assert, as
	 * in Triton, whose visit_Assert makes every assert one */
	if (c.kind != V_TENSOR && (s->host_fn || s->nest == 0)) {
		if (!value_truthy(c)) {
			s->py_errors++;
			if (msg) diag_error(s->d, st->test->loc, "assertion failed: %s", msg);
			else diag_error(s->d, st->test->loc, "assertion failed");
		}
		return;
	}
	if (!s->debug) return; /* dropped, as Triton's semantic drops device asserts without debug */
	ValId b = c.kind == V_TENSOR ? to_bool(s, c.id, st->test->loc)
				     : emit_const(s, type_scalar(DT_I1), value_truthy(c), 0, st->test->loc);
	TirOp *op = emit_op(s, TOP_ASSERT, st->loc, &b, 1, type_scalar(DT_VOID));
	op->attr.str = msg ? msg : "assertion failed";
}

static Flow exec_break(Sema *s, Fn *fn, const Stmt *st)
{
	const char *what = st->kind == ST_BREAK ? "break" : "continue";
	if (fn->ctx.len && vec_last(&fn->ctx) == CTX_STATIC_LOOP) return st->kind == ST_BREAK ? FLOW_BREAK : FLOW_CONTINUE;
	if (!fn->ctx.len) diag_error(s->d, st->loc, "'%s' outside a loop", what);
	else diag_error(s->d, st->loc, "%s is not supported in this loop", what);
	return FLOW_NEXT;
}

static void exec_local_import(Sema *s, Fn *fn, const Stmt *st)
{
	if (st->kind == ST_IMPORTFROM && st->nnames == 1 && !strcmp(st->names[0].name, "*")) {
		diag_error(s->d, st->loc, "'import *' is only allowed at module level");
		return;
	}
	for (int k = 0; k < st->nnames; k++) {
		const ImportName *in = &st->names[k];
		Value v;
		const char *bind;
		if (st->kind == ST_IMPORT) {
			const char *path = in->name;
			bind = in->asname;
			if (!bind) {
				const char *dot = strchr(path, '.');
				bind = dot ? intern(s->c->names, path, (size_t)(dot - path)) : path;
				path = bind;
			}
			v = resolve_module_path(s, fn->mod, path, 0, in->loc);
		} else {
			bind = in->asname ? in->asname : in->name;
			if (!st->module) v = resolve_module_path(s, fn->mod, in->name, st->level, in->loc);
			else {
				Value m = resolve_module_path(s, fn->mod, st->module, st->level, in->loc);
				v = get_attr(s, m, in->name, in->loc);
			}
		}
		env_set(&fn->env, bind, v);
	}
}

/* `xs.append(v)` / `xs.extend(seq)` on a local list: lists are tuples here
 * (immutable values), so the name is rebound to the longer one. That is
 * Python's result whenever the list is not also reachable under another
 * name, as in the autotune config builders of real projects
 * (`configs = []`, `for ...: configs.append(triton.Config(...))`). False
 * when e is not such a call. */
static bool exec_list_method(Sema *s, Fn *fn, const Expr *e)
{
	if (e->kind != EX_CALL || e->func->kind != EX_ATTR || e->func->obj->kind != EX_NAME || e->nkwargs ||
	    (strcmp(e->func->attr, "append") && strcmp(e->func->attr, "extend")))
		return false;
	const Expr *name = e->func->obj;
	const Value *bound = env_find(&fn->env, name->name);
	if (!bound || bound->kind != V_TUPLE)
		return false;
	Value cur = *bound;
	bool append = !strcmp(e->func->attr, "append");
	if (e->nargs != 1) {
		diag_error(s->d, e->loc, "list.%s takes one argument, got %d", e->func->attr, e->nargs);
		return true;
	}
	Value arg = eval(s, fn, e->args[0]);
	if (arg.kind == V_ERR) return true;
	if (!append && arg.kind != V_TUPLE) {
		diag_error(s->d, e->args[0]->loc, "list.extend takes a list or tuple here, got %s", v_describe(s, arg));
		return true;
	}
	Value r = append ? tuple_grow(s, cur, &arg, 1, e->loc) : tuple_grow(s, cur, arg.items, arg.n, e->loc);
	if (r.kind != V_ERR) assign_target(s, fn, name, r, e->loc);
	return true;
}

/* `def f(...)` inside a host function (a kernel factory: `def make(v): shared =
 * tl.constexpr(v); @triton.jit def child(): return shared; return child`) binds f
 * to a closure over the bindings visible there, as a lambda is; a @jit function
 * or kernel cannot define one, as in Triton. */
static void exec_nested_def(Sema *s, Fn *fn, const Stmt *st)
{
	if (fn->is_kernel || !fn->def || sema_is_jit(s, fn->def)) {
		diag_error(s->d, st->loc, "nested function definitions are not supported");
		env_set(&fn->env, st->func->name, v_err()); /* its calls say nothing more */
		return;
	}
	Value v = {.kind = V_FUNC, .fn = st->func, .mod = fn->mod};
	v.ncap = (int)fn->env.len;
	v.cap = v.ncap ? arena_dup(s->a, fn->env.data, sizeof(Binding) * fn->env.len) : NULL;
	env_set(&fn->env, st->func->name, v);
}

static Flow exec_stmt(Sema *s, Fn *fn, const Stmt *st, const Seq *rest, bool tail, bool *consumed)
{
	if (!sema_work(s, 1, st->loc)) return FLOW_NEXT; /* also bounds code an early return duplicates */
	switch (st->kind) {
	case ST_EXPR:
		if (st->value->kind != EX_STR && !exec_list_method(s, fn, st->value)) {
			const Expr *outer = s->unused_call;
			s->unused_call = st->value->kind == EX_CALL ? st->value : NULL;
			(void)eval(s, fn, st->value);
			s->unused_call = outer;
		}
		return FLOW_NEXT;
	case ST_ASSIGN: {
		Value v = eval(s, fn, st->assign_value);
		for (int i = 0; i < st->ntargets; i++) assign_target(s, fn, st->targets[i], v, st->loc);
		return FLOW_NEXT;
	}
	case ST_ANNASSIGN:
		if (st->ann_value) assign_target(s, fn, st->ann_target, eval(s, fn, st->ann_value), st->loc);
		return FLOW_NEXT;
	case ST_AUGASSIGN: {
		if (st->aug_target->kind != EX_NAME && st->aug_target->kind != EX_ATTR) {
			diag_error(s->d, st->aug_target->loc, "augmented assignment needs a plain name");
			return FLOW_NEXT;
		}
		Value cur = eval(s, fn, st->aug_target);
		Value rhs = eval(s, fn, st->aug_value);
		assign_target(s, fn, st->aug_target, binop(s, st->aug_op, cur, rhs, st->loc), st->loc);
		return FLOW_NEXT;
	}
	case ST_RETURN:
		if (in_loop(fn) && !in_static_loops_only(s, fn)) {
			diag_error(s->d, st->loc, "return inside a loop is not supported");
			return FLOW_NEXT;
		}
		fn->retval = st->value ? eval(s, fn, st->value) : v_none();
		if (fn->is_kernel && st->value && fn->retval.kind != V_ERR && !v_is_none(fn->retval)) {
			diag_error(s->d, st->value->loc, "a kernel cannot return a value");
			fn->retval = v_none();
		}
		fn->has_ret = true;
		return FLOW_RETURN;
	case ST_IF: return exec_if(s, fn, st, rest, tail, consumed);
	case ST_WITH: return exec_with(s, fn, st, rest, tail, consumed);
	case ST_FOR: return exec_for(s, fn, st);
	case ST_WHILE: return exec_while(s, fn, st);
	case ST_BREAK:
	case ST_CONTINUE: return exec_break(s, fn, st);
	case ST_PASS: return FLOW_NEXT;
	case ST_ASSERT: exec_assert(s, fn, st); return FLOW_NEXT;
	case ST_FUNCDEF: exec_nested_def(s, fn, st); return FLOW_NEXT;
	case ST_IMPORT:
	case ST_IMPORTFROM: exec_local_import(s, fn, st); return FLOW_NEXT;
	case ST_GLOBAL:
		diag_error(s->d, st->loc, "'global' and 'nonlocal' are not supported %s", stmt_where(s, fn));
		return FLOW_NEXT;
	case ST_UNSUPPORTED:
		diag_error(s->d, st->loc, "%s is not supported %s", st->what ? st->what : "this statement", stmt_where(s, fn));
		return FLOW_NEXT;
	case ST_TRY:
		if (s->host_fn) { /* host Python (a decorator wrapper): the body, else and
				     * finally run; a handler is never taken, an error fails the call */
			Flow f = exec_body(s, fn, &st->try_body, false);
			if (f == FLOW_NEXT) f = exec_body(s, fn, &st->try_else, false);
			Flow g = exec_body(s, fn, &st->try_final, false);
			return g != FLOW_NEXT ? g : f;
		}
		diag_error(s->d, st->loc, "try statement is not supported in kernels");
		return FLOW_NEXT;
	case ST_CLASS: diag_error(s->d, st->loc, "class definition is not supported %s", stmt_where(s, fn)); return FLOW_NEXT;
	}
	return FLOW_NEXT;
}

static Flow exec_seq(Sema *s, Fn *fn, const Seq *q, bool tail)
{
	for (; q; q = q->next) {
		for (int i = q->start; i < q->sl->n; i++) {
			Seq rest = {q->sl, i + 1, q->next};
			bool consumed = false;
			Flow f = exec_stmt(s, fn, q->sl->items[i], &rest, tail, &consumed);
			if (consumed || f != FLOW_NEXT) return f;
		}
	}
	return FLOW_NEXT;
}

Flow exec_body(Sema *s, Fn *fn, const StmtList *body, bool tail)
{
	Seq q = {body, 0, NULL};
	return exec_seq(s, fn, &q, tail);
}

/* sema_loop.c: for and while loops in kernels (FOR / WHILE ops whose iter
 * args are the names the body assigns that exist before the loop; a
 * tl.static_range unrolls) and while loops in host Python tile runs at
 * compile time. Statements in general are sema_stmt.c's. */
#include <stdio.h>
#include <string.h>

#include "sema/sema_int.h"
#include "sema/sema_stmt_int.h"
/* ---- loops ---------------------------------------------------------------------------------- */

typedef struct Carried {
	const char *name;
	Value tmpl;
	int start, n;
} Carried;

typedef struct LoopState {
	VEC(Carried) vars;
	IdVec inits;
	Type *types;
} LoopState;

/* Names assigned in `body` that exist before the loop become iter args. */
/* The names a loop assigns: in its body, and with := in a while's condition
 * (evaluated on every iteration, so they are carried too). */
static void loop_assigned_names(const StmtList *body, const Expr *cond, NameVec *out)
{
	assigned_names(body, out);
	named_expr_targets(cond, out);
}

static void loop_collect(Sema *s, Fn *fn, const StmtList *body, const Expr *cond, const Expr *target, LoopState *ls,
			 SrcLoc loc)
{
	NameVec names = {0}, tnames = {0};
	loop_assigned_names(body, cond, &names);
	if (target) target_names(target, &tnames);
	for (size_t i = 0; i < names.len; i++) {
		const char *n = names.data[i];
		bool is_target = false;
		for (size_t k = 0; k < tnames.len; k++) is_target |= tnames.data[k] == n;
		Value *v = env_find(&fn->env, n);
		if (is_target || !v || v->kind == V_ERR || v->kind == V_POISON) continue;
		size_t start = ls->inits.len;
		if (!flatten_value(s, *v, &ls->inits, true, loc)) {
			ls->inits.len = start;
			continue;
		}
		vec_push(&ls->vars, ((Carried){n, *v, (int)start, (int)(ls->inits.len - start)}));
	}
	ls->types = ARENA_NEWN(s->a, Type, ls->inits.len + 1);
	for (size_t k = 0; k < ls->inits.len; k++) ls->types[k] = vtype(s, ls->inits.data[k]);
	vec_free(&names);
	vec_free(&tnames);
}

static void loop_bind(Sema *s, Fn *fn, LoopState *ls, const ValId *ids)
{
	for (size_t i = 0; i < ls->vars.len; i++) {
		int pos = ls->vars.data[i].start;
		env_set(&fn->env, ls->vars.data[i].name, unflatten_value(s, ls->vars.data[i].tmpl, ids, &pos));
	}
}

/* Flattens the carried names at the end of a loop body; `fallback` on a mismatch. */
static void loop_yield_values(Sema *s, Fn *fn, LoopState *ls, const ValId *fallback, IdVec *out, SrcLoc loc)
{
	for (size_t i = 0; i < ls->vars.len; i++) {
		Carried *c = &ls->vars.data[i];
		Value *v = env_find(&fn->env, c->name);
		if (v && v->kind != V_ERR &&
		    flatten_matching(s, c->tmpl, *v, ls->types + c->start, c->n, out, loc))
			continue;
		if (v && v->kind != V_ERR && v->kind != V_POISON)
			diag_error(s->d, loc, "loop-carried variable '%s' changes from %s to %s inside the loop", c->name,
				   value_kind_str(s, c->tmpl), other_kind_str(s, value_kind_str(s, c->tmpl), *v));
		for (int k = 0; k < c->n; k++) vec_push(out, fallback[c->start + k]);
	}
}

static void loop_after(Sema *s, Fn *fn, LoopState *ls, const Env *before, const ValId *results, const StmtList *body,
		       const Expr *cond, const Expr *target)
{
	env_copy(&fn->env, before);
	loop_bind(s, fn, ls, results);
	NameVec names = {0};
	loop_assigned_names(body, cond, &names);
	if (target) target_names(target, &names);
	for (size_t i = 0; i < names.len; i++) {
		if (env_find(&fn->env, names.data[i])) continue;
		Value p = {.kind = V_POISON,
			   .msg = arena_printf(s->a, "'%s' is only defined inside the loop", names.data[i])};
		env_set(&fn->env, names.data[i], p);
	}
	vec_free(&names);
}

static void loop_free(LoopState *ls)
{
	vec_free(&ls->vars);
	vec_free(&ls->inits);
}

/* lo, hi, step: constexpr ints (step != 0). In host code (a constexpr_function,
 * module-level statements) the loop is Python's: only the work limit bounds it. */
static Flow exec_unrolled(Sema *s, Fn *fn, const Stmt *st, Value lo, Value hi, Value step)
{
	uint64_t n = const_range_len(lo.c, hi.c, step.c);
	if (n > 4096 && !s->host_fn) {
		diag_error(s->d, st->iter->loc, "static_range with %llu iterations exceeds the unroll limit of 4096",
			   (unsigned long long)n);
		return FLOW_NEXT;
	}
	int errs = s->d->nerrors;
	ctx_push(fn, CTX_STATIC_LOOP);
	Value item = lo;
	bool broke = false;
	for (uint64_t k = 0; k < n && !broke; k++) {
		if (!sema_work(s, 1, st->iter->loc)) break;
		if (k) item = const_range_next(item, step);
		assign_target(s, fn, st->for_target, item, st->loc);
		Flow f = exec_body(s, fn, &st->for_body, false);
		broke = f == FLOW_BREAK;
		if (f == FLOW_RETURN) {
			ctx_pop(fn);
			return f;
		}
		if (s->d->nerrors > errs) break; /* one report, not one per iteration */
	}
	ctx_pop(fn);
	if (broke || s->d->nerrors > errs) return FLOW_NEXT;
	return exec_body(s, fn, &st->for_orelse, false); /* for ... else: run when no break ended the loop */
}

/* A loop's num_stages: None (Triton's default) is the kernel's (0 here); 0
 * and 1 do not pipeline, as in Triton; above that the kernel option's limit
 * of 8, so a stray 1000 or 2**32 + 2 is neither a pipeline of hundreds of
 * stages nor cut to an int (2). */
static bool loop_stages(Sema *s, Fn *fn, const Expr *e, int64_t *stages)
{
	Value v = eval(s, fn, e);
	if (v_is_none(v)) return true;
	if (!as_const_int(s, v, e->loc, "num_stages", stages)) return false;
	if (*stages >= 0 && *stages <= 8) {
		*stages = *stages ? *stages : 1;
		return true;
	}
	diag_error(s->d, e->loc, "num_stages must be between 0 and 8, got %lld", (long long)*stages);
	return false;
}

/* A loop bound given by keyword: Triton's tl.range(arg1, arg2=None,
 * step=None, ...) and static_range take them so (lightllm writes
 * tl.range(0, n, step=1, num_stages=3)); the slot, or -1. */
static int range_kwarg_slot(const char *k)
{
	return !strcmp(k, "arg1") ? 0 : !strcmp(k, "arg2") ? 1 : !strcmp(k, "step") ? 2 : -1;
}

/* The bounds as positions: *nb is 1 (end), 2 (start, end) or 3 (start, end,
 * step); arg2 or step given as None is absent, as in Triton. */
static void range_bounds(const Value *arg, const SrcLoc *at, bool *have, Value *bounds, SrcLoc *locs, int *nb)
{
	for (int i = 1; i < 3; i++)
		if (have[i] && v_is_none(arg[i])) have[i] = false;
	if (!have[1] && !have[2]) {
		*nb = 1;
		bounds[0] = arg[0];
		locs[0] = at[0];
		return;
	}
	*nb = have[2] ? 3 : 2;
	bounds[0] = have[1] ? arg[0] : v_int(0);
	bounds[1] = have[1] ? arg[1] : arg[0];
	bounds[2] = arg[2];
	locs[0] = at[0];
	locs[1] = have[1] ? at[1] : at[0];
	locs[2] = at[2];
}

/* What tl.range's keywords ask of a runtime loop. */
typedef struct LoopHints {
	int64_t stages; /* num_stages, 0: the kernel's */
	bool no_licm;   /* disable_licm=True: nothing is hoisted out of it (ir/tir_licm.c) */
} LoopHints;

static bool iter_call(Sema *s, Fn *fn, const Expr *it, const char **kind, Value *bounds, SrcLoc *locs, int *nb,
		      LoopHints *hints)
{
	if (it->kind != EX_CALL) return false;
	Value callee = eval(s, fn, it->func);
	if (callee.kind != V_BUILTIN) return false;
	const char *name = builtin_get(callee.builtin)->name;
	if (strcmp(name, "range") && strcmp(name, "static_range")) return false;
	*kind = name;
	*nb = 0;
	int nkw_bounds = 0;
	for (int i = 0; i < it->nkwargs; i++) nkw_bounds += range_kwarg_slot(it->kwargs[i].name) >= 0;
	if (it->nargs > 3 || it->nargs + nkw_bounds < 1) {
		diag_error(s->d, it->loc, "'%s' expects 1 to 3 arguments, got %d", name, it->nargs + nkw_bounds);
		*nb = -1;
		return true;
	}
	Value arg[3];
	SrcLoc at[3] = {it->loc, it->loc, it->loc};
	bool have[3] = {false, false, false};
	for (int i = 0; i < it->nargs; i++) {
		arg[i] = eval(s, fn, it->args[i]);
		at[i] = it->args[i]->loc;
		have[i] = true;
	}
	hints->stages = 0;
	hints->no_licm = false;
	for (int i = 0; i < it->nkwargs; i++) {
		const char *k = it->kwargs[i].name;
		int slot = range_kwarg_slot(k);
		if (slot >= 0) {
			if (have[slot]) {
				diag_error(s->d, it->kwargs[i].loc, "'%s' got multiple values for argument '%s'", name, k);
				*nb = -1;
				continue;
			}
			arg[slot] = eval(s, fn, it->kwargs[i].value);
			at[slot] = it->kwargs[i].loc;
			have[slot] = true;
		} else if (!strcmp(k, "num_stages")) {
			if (!loop_stages(s, fn, it->kwargs[i].value, &hints->stages)) *nb = -1;
		} else if (!strcmp(k, "disable_licm")) {
			if (!as_const_flag(s, eval(s, fn, it->kwargs[i].value), it->kwargs[i].value->loc, "disable_licm",
					   &hints->no_licm))
				*nb = -1;
		} else if (!strcmp(k, "loop_unroll_factor") || !strcmp(k, "warp_specialize") || !strcmp(k, "flatten") ||
			   !strcmp(k, "disallow_acc_multi_buffer")) {
			(void)eval(s, fn, it->kwargs[i].value);
		} else {
			diag_error(s->d, it->kwargs[i].loc, "unexpected keyword argument '%s' for '%s'", k, name);
			*nb = -1;
		}
	}
	if (*nb < 0) return true;
	if (!have[0]) {
		diag_error(s->d, it->loc, "'%s' missing required argument 'arg1'", name);
		*nb = -1;
		return true;
	}
	range_bounds(arg, at, have, bounds, locs, nb);
	return true;
}

/* With constant bounds and a positive step, whether the induction variable's
 * step past the last iteration leaves dt (range(2**31 - 2048, 2**31 - 1, 1024)
 * in i32): it would wrap below hi and the loop never end, where Python's range
 * has a trip count (*trips). Such a loop counts its trips instead. */
static bool const_step_wraps(Value lo, Value hi, Value step, DType dt, int64_t *trips)
{
	if (!v_is_intlike(lo) || !v_is_intlike(hi) || !v_is_intlike(step) || step.c.i <= 0 || hi.c.i <= lo.c.i)
		return false;
	uint64_t diff = (uint64_t)hi.c.i - (uint64_t)lo.c.i; /* hi > lo: fits */
	uint64_t n = (diff - 1) / (uint64_t)step.c.i + 1;
	__int128 past = (__int128)lo.c.i + (__int128)n * step.c.i;
	*trips = (int64_t)n; /* step >= 2 where it wraps: n <= 2**63 */
	return past > (dt == DT_I64 ? (__int128)INT64_MAX : (__int128)INT32_MAX);
}

static Flow exec_rt_for_in(Sema *s, Fn *fn, const Stmt *st, Value *b, int nb, const LoopHints *hints)
{
	Value lo = nb >= 2 ? b[0] : v_int(0), hi = nb >= 2 ? b[1] : b[0], step = nb == 3 ? b[2] : v_int(1);
	Value vs[3] = {lo, hi, step};
	/* the variable's type is Triton's: the bounds and step promoted, a number
	 * as int32 (so range(n) with n uint32 counts in uint32), at least 32 bits
	 * wide; a number past int32 makes it int64 */
	DType dt = DT_I32, iv_dt = DT_VOID;
	for (int i = 0; i < 3; i++) {
		DType t = vs[i].kind == V_TENSOR && !vs[i].ty.rank && dtype_is_int((DType)vs[i].ty.dt) ? (DType)vs[i].ty.dt : DT_I32;
		iv_dt = iv_dt == DT_VOID ? t : integer_promote(iv_dt, t);
	}
	for (int i = 0; i < 3; i++) {
		if (vs[i].kind == V_ERR) return FLOW_NEXT;
		if (vs[i].kind == V_TENSOR) {
			if (vs[i].ty.rank || !dtype_is_int((DType)vs[i].ty.dt)) {
				diag_error(s->d, st->iter->loc, "range bounds must be integer scalars, got %s", v_describe(s, vs[i]));
				return FLOW_NEXT;
			}
			if (s->combine_depth) { /* one element's bound, not the program's */
				diag_error(s->d, st->iter->loc, "%s: a loop whose bounds depend on the element is not supported",
					   elementwise_fn(s));
				return FLOW_NEXT;
			}
			if (dtype_bits((DType)vs[i].ty.dt) == 64) dt = DT_I64;
		} else if (!v_is_intlike(vs[i])) {
			diag_error(s->d, st->iter->loc, "range bounds must be integers, got %s", v_describe(s, vs[i]));
			return FLOW_NEXT;
		} else if (vs[i].c.u64 || (i == 2 && vs[i].c.i == INT64_MIN)) {
			/* the loop counts in int64, and a negative step is negated */
			char num[32];
			const_str(vs[i].c, num, sizeof num);
			if (vs[i].c.u64)
				diag_error(s->d, st->iter->loc, "range %s %s is out of range for a loop: it counts in int64",
					   i == 2 ? "step" : "bound", num);
			else diag_error(s->d, st->iter->loc, "range step -2**63 is not supported: a negative step is negated in int64");
			return FLOW_NEXT;
		} else if (!const_fits(vs[i].c, DT_I32)) dt = DT_I64;
	}
	/* an unsigned variable where Triton has one (a number past int32 keeps
	 * int64; a constant negative step counts down in the signed type) */
	if (!dtype_is_signed(iv_dt) && iv_dt != DT_I1 && dtype_bits(iv_dt) >= 32 && !(v_is_intlike(step) && step.c.i < 0))
		dt = dtype_bits(iv_dt) == 64 ? DT_U64 : dt == DT_I64 ? DT_I64 : DT_U32;
	if (v_is_intlike(step) && step.c.i == 0) {
		diag_error(s->d, st->iter->loc, "range step must not be zero");
		return FLOW_NEXT;
	}
	const TirOp *step_def = step.kind == V_TENSOR ? tir_val(s->f, step.id)->def : NULL;
	if (step.kind == V_TENSOR && !s->combine_depth && !(step_def && step_def->kind == TOP_NUM_PROGRAMS)) {
		/* a runtime step of 0 over a range that is not empty loops forever
		 * (Triton's scf.for hangs the GPU): a failed check at run time
		 * instead, on every target and with or without debug (not for
		 * tl.num_programs, the persistent loops' step, never 0) */
		Value nz = binop(s, OP_NE, step, v_int(0), st->iter->loc);
		Value empty = nz.kind == V_ERR ? nz : binop(s, OP_GE, lo, hi, st->iter->loc);
		Value ok = empty.kind == V_ERR ? empty : binop(s, OP_BITOR, nz, empty, st->iter->loc);
		if (ok.kind != V_TENSOR) return FLOW_NEXT;
		TirOp *chk = emit_op(s, TOP_ASSERT, st->iter->loc, &ok.id, 1, type_scalar(DT_VOID));
		chk->attr.str = "range step is 0: the loop would never end";
	}
	/* a constant negative step counts t = 0, 1, ... up to the trip count
	 * cdiv(lo - hi, -step) and binds lo + t * step: loops stay ascending */
	Value down_lo = v_none(), down_step = v_none();
	int64_t ntrips;
	if (const_step_wraps(lo, hi, step, dt, &ntrips)) { /* counted the same way */
		down_lo = lo;
		down_step = step;
		vs[0] = v_int(0);
		vs[1] = v_int(ntrips);
		vs[2] = v_int(1);
		if (!const_fits(vs[1].c, dt)) dt = DT_I64;
	} else if (v_is_intlike(step) && step.c.i < 0) {
		Value neg = v_int(-step.c.i);
		Value diff = binop(s, OP_SUB, lo, hi, st->iter->loc);
		Value trips = binop(s, OP_ADD, diff, v_int(-step.c.i - 1), st->iter->loc);
		if (trips.kind == V_CONST) trips = const_binop(s, OP_FLOORDIV, trips, neg, st->iter->loc);
		else trips = binop(s, OP_FLOORDIV, trips, neg, st->iter->loc); /* truncates; <= 0 runs nothing */
		if (trips.kind == V_ERR) return FLOW_NEXT;
		if (v_is_intlike(trips) && !const_fits(trips.c, dt)) /* range(2**31 - 1, -2**31, -1): 2**32 - 1 */
			dt = DT_I64;
		down_lo = lo;
		down_step = step;
		vs[0] = v_int(0);
		vs[1] = trips;
		vs[2] = v_int(1);
	}
	if (st->for_orelse.n) {
		diag_error(s->d, st->loc, "'for ... else' is not supported");
		return FLOW_NEXT;
	}
	ValId in3[3];
	for (int i = 0; i < 3; i++)
		if (!(in3[i] = to_ir(s, vs[i], dt, st->iter->loc))) return FLOW_NEXT;
	LoopState ls = {0};
	loop_collect(s, fn, &st->for_body, NULL, st->for_target, &ls, st->loc);
	IdVec ops = {0};
	for (int i = 0; i < 3; i++) vec_push(&ops, in3[i]);
	for (size_t i = 0; i < ls.inits.len; i++) vec_push(&ops, ls.inits.data[i]);
	TirOp *op = tir_op(s->f, s->blk, TOP_FOR, op_loc(s, st->loc), ops.data, (int)ops.len, ls.types,
			   (int)ls.inits.len);
	op->attr.i = hints->stages;
	if (hints->no_licm) op->attr.flags |= TIR_NO_LICM;
	tir_op_add_regions(s->f, op, 1);
	TirBlock *body = &op->regions[0], *outer = s->blk;
	ValId iv = tir_block_add_arg(s->f, body, type_scalar(dt));
	ValId *args = ARENA_NEWN(s->a, ValId, ls.inits.len + 1);
	for (size_t i = 0; i < ls.inits.len; i++) args[i] = tir_block_add_arg(s->f, body, ls.types[i]);
	Env before = {0};
	env_copy(&before, &fn->env);
	s->blk = body;
	Value target = v_tensor(s, iv);
	if (!v_is_none(down_step))
		target = binop(s, OP_ADD, down_lo, binop(s, OP_MUL, target, down_step, st->iter->loc), st->iter->loc);
	assign_target(s, fn, st->for_target, target, st->loc);
	loop_bind(s, fn, &ls, args);
	ctx_push(fn, CTX_RT_LOOP);
	exec_body(s, fn, &st->for_body, false);
	ctx_pop(fn);
	IdVec ys = {0};
	loop_yield_values(s, fn, &ls, args, &ys, st->loc);
	tir_op(s->f, s->blk, TOP_YIELD, op_loc(s, st->loc), ys.data, (int)ys.len, NULL, 0);
	s->blk = outer;
	loop_after(s, fn, &ls, &before, op->results, &st->for_body, NULL, st->for_target);
	env_free(&before);
	vec_free(&ys);
	vec_free(&ops);
	loop_free(&ls);
	return FLOW_NEXT;
}

static Flow exec_rt_for(Sema *s, Fn *fn, const Stmt *st, Value *b, int nb, const LoopHints *hints)
{
	if (!nest_enter(s, st->loc)) return FLOW_NEXT;
	Flow f = exec_rt_for_in(s, fn, st, b, nb, hints);
	s->nest--;
	return f;
}

Flow exec_for(Sema *s, Fn *fn, const Stmt *st)
{
	const char *kind = NULL;
	Value b[3];
	SrcLoc bl[3];
	int nb = 0;
	LoopHints hints = {0};
	if (iter_call(s, fn, st->iter, &kind, b, bl, &nb, &hints)) {
		if (nb < 0) return FLOW_NEXT;
		/* a constexpr_function is Python: its range loops run at compile time */
		bool host_range = s->host_fn > 0 && !strcmp(kind, "range");
		for (int i = 0; i < nb && host_range; i++) host_range = v_is_intlike(b[i]);
		if (!strcmp(kind, "static_range") || host_range) {
			Value v[3] = {v_int(0), v_int(0), v_int(1)};
			for (int i = 0; i < nb; i++) {
				if (b[i].kind == V_ERR) return FLOW_NEXT;
				if (!v_is_intlike(b[i])) { /* a uint64 bound is fine: the range counts exactly */
					diag_error(s->d, bl[i], "static_range bound must be a constexpr int, got %s",
						   v_describe(s, b[i]));
					return FLOW_NEXT;
				}
				v[i] = b[i];
				v[i].c.kind = CV_INT; /* static_range(True) is static_range(1) */
			}
			if (nb == 1) {
				v[1] = v[0];
				v[0] = v_int(0);
			}
			if (v[2].c.i == 0) {
				diag_error(s->d, st->iter->loc, "static_range step must not be zero");
				return FLOW_NEXT;
			}
			return exec_unrolled(s, fn, st, v[0], v[1], v[2]);
		}
		return exec_rt_for(s, fn, st, b, nb, &hints);
	}
	/* for x in (a, b, c): unrolled over a constexpr tuple */
	Value it = eval(s, fn, st->iter), members;
	if ((it.kind == V_MODULE && enum_class_items(s, it.mod, &members)) /* for m in Color */
	    || enum_flag_items(s, it, &members)) /* for m in Perm.R | Perm.W */
		it = members;
	else if (v_is_const(it, CV_STR)) it = str_chars(s, it.c.s ? it.c.s : "", st->iter->loc); /* for ch in S */
	if (it.kind == V_ERR) return FLOW_NEXT;
	if (it.kind != V_TUPLE) {
		diag_error(s->d, st->iter->loc, "only range, tl.range, tl.static_range and tuples can be iterated over");
		return FLOW_NEXT;
	}
	int errs = s->d->nerrors;
	ctx_push(fn, CTX_STATIC_LOOP);
	bool broke = false;
	for (int k = 0; k < it.n && !broke; k++) {
		assign_target(s, fn, st->for_target, it.items[k], st->loc);
		Flow f = exec_body(s, fn, &st->for_body, false);
		broke = f == FLOW_BREAK;
		if (f == FLOW_RETURN) {
			ctx_pop(fn);
			return f;
		}
	}
	ctx_pop(fn);
	if (broke || s->d->nerrors > errs) return FLOW_NEXT;
	return exec_body(s, fn, &st->for_orelse, false);
}

/* A while loop in host code (a constexpr_function, module-level statements)
 * is Python run at compile time, as Triton's host runs it: the condition must
 * be a constexpr each time; the work limit bounds a loop that never ends. */
static Flow exec_host_while(Sema *s, Fn *fn, const Stmt *st)
{
	int errs = s->d->nerrors;
	ctx_push(fn, CTX_STATIC_LOOP);
	for (;;) {
		if (!sema_work(s, 1, st->loc)) break;
		Value c = eval(s, fn, st->cond);
		if (c.kind == V_ERR) break;
		if (c.kind == V_TENSOR || c.kind == V_BLOCKPTR) {
			diag_error(s->d, st->cond->loc, "the condition of a while loop in host code must be a constexpr, got %s",
				   v_describe(s, c));
			break;
		}
		if (!value_truthy(c)) {
			ctx_pop(fn);
			return exec_body(s, fn, &st->orelse, false); /* while ... else: the condition ended the loop */
		}
		Flow f = exec_body(s, fn, &st->body, false);
		if (f == FLOW_BREAK) break;
		if (f == FLOW_RETURN) {
			ctx_pop(fn);
			return f;
		}
		if (s->d->nerrors > errs) break; /* one report, not one per iteration */
	}
	ctx_pop(fn);
	return FLOW_NEXT;
}

/* A name a while's condition binds with := and that has no value before the
 * loop is not carried (its type is unknown when the loop starts). */
static void poison_cond_only_names(Sema *s, Fn *fn, const Expr *cond)
{
	NameVec names = {0};
	named_expr_targets(cond, &names);
	for (size_t i = 0; i < names.len; i++) {
		if (env_find(&fn->env, names.data[i])) continue;
		Value p = {.kind = V_POISON,
			   .msg = arena_printf(s->a, "'%s' is bound by := in the while condition only: assign it before "
					      "the loop so that the loop carries it", names.data[i])};
		env_set(&fn->env, names.data[i], p);
	}
	vec_free(&names);
}

static Flow exec_while_in(Sema *s, Fn *fn, const Stmt *st)
{
	if (st->orelse.n) {
		diag_error(s->d, st->loc, "'while ... else' is not supported");
		return FLOW_NEXT;
	}
	LoopState ls = {0};
	loop_collect(s, fn, &st->body, st->cond, NULL, &ls, st->loc);
	int n = (int)ls.inits.len;
	TirOp *op = tir_op(s->f, s->blk, TOP_WHILE, op_loc(s, st->loc), ls.inits.data, n, ls.types, n);
	tir_op_add_regions(s->f, op, 2);
	TirBlock *outer = s->blk;
	Env before = {0};
	env_copy(&before, &fn->env);
	/* before: the condition */
	TirBlock *bb = &op->regions[0];
	ValId *bargs = ARENA_NEWN(s->a, ValId, n + 1);
	for (int i = 0; i < n; i++) bargs[i] = tir_block_add_arg(s->f, bb, ls.types[i]);
	s->blk = bb;
	loop_bind(s, fn, &ls, bargs);
	bool outer_no_licm = s->cond_no_licm;
	s->cond_no_licm = false;
	Value c = eval(s, fn, st->cond);
	if (s->cond_no_licm) op->attr.flags |= TIR_NO_LICM;
	s->cond_no_licm = outer_no_licm;
	ValId cond = 0;
	if (c.kind == V_TENSOR && (c.ty.rank || s->combine_depth))
		diag_error(s->d, st->cond->loc,
			   s->map_depth || s->combine_depth
				   ? "%s: a loop whose condition depends on the element is not supported"
				   : "a tile cannot be used as a loop condition",
			   elementwise_fn(s));
	else if (c.kind == V_TENSOR) cond = to_bool(s, c.id, st->cond->loc);
	else if (c.kind == V_CONST) {
		cond = emit_const(s, type_scalar(DT_I1), const_truthy(c.c), 0, st->cond->loc);
		/* nothing the body assigns reaches the condition, and a runtime loop has
		 * no break: a program that gets here never ends (tile run hung) */
		if (const_truthy(c.c) && !contains_return(&st->body))
			diag_emit(s->d, DIAG_WARNING, st->cond->loc,
				  "this while loop never ends: its condition is always true (nothing the loop "
				  "assigns changes it); a program that reaches it hangs");
	}
	else if (c.kind != V_ERR) diag_error(s->d, st->cond->loc, "bad loop condition: %s", v_describe(s, c));
	if (!cond) cond = emit_const(s, type_scalar(DT_I1), 0, 0, st->cond->loc);
	IdVec cv = {0};
	vec_push(&cv, cond);
	/* the carried values as the condition leaves them (`while (i := i + 1) < n`) */
	loop_yield_values(s, fn, &ls, bargs, &cv, st->cond->loc);
	tir_op(s->f, s->blk, TOP_CONDITION, op_loc(s, st->cond->loc), cv.data, (int)cv.len, NULL, 0);
	/* after: the body */
	TirBlock *ab = &op->regions[1];
	ValId *aargs = ARENA_NEWN(s->a, ValId, n + 1);
	for (int i = 0; i < n; i++) aargs[i] = tir_block_add_arg(s->f, ab, ls.types[i]);
	s->blk = ab;
	env_copy(&fn->env, &before);
	loop_bind(s, fn, &ls, aargs);
	poison_cond_only_names(s, fn, st->cond);
	ctx_push(fn, CTX_RT_LOOP);
	exec_body(s, fn, &st->body, false);
	ctx_pop(fn);
	IdVec ys = {0};
	loop_yield_values(s, fn, &ls, aargs, &ys, st->loc);
	tir_op(s->f, s->blk, TOP_YIELD, op_loc(s, st->loc), ys.data, (int)ys.len, NULL, 0);
	s->blk = outer;
	loop_after(s, fn, &ls, &before, op->results, &st->body, st->cond, NULL);
	env_free(&before);
	vec_free(&ys);
	vec_free(&cv);
	loop_free(&ls);
	return FLOW_NEXT;
}

Flow exec_while(Sema *s, Fn *fn, const Stmt *st)
{
	if (!nest_enter(s, st->loc)) return FLOW_NEXT;
	Flow f = s->host_fn ? exec_host_while(s, fn, st) : exec_while_in(s, fn, st);
	s->nest--;
	return f;
}


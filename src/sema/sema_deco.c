/* sema_deco.c: what makes a def a kernel (@jit and its aliases, wrappers and
 * factories) and its decorators' arguments: @triton.autotune configs,
 * prune_configs_by, @triton.heuristics. */
#include <string.h>

#include "sema/sema_int.h"
#include "sema/sema_kernel.h"

/* ---- kernels ------------------------------------------------------------------------ */

const char *expr_last_name(const Expr *e)
{
	if (!e) return NULL;
	if (e->kind == EX_CALL) return expr_last_name(e->func);
	if (e->kind == EX_NAME) return e->name;
	if (e->kind == EX_ATTR) return e->attr;
	return NULL;
}

/* `a.b.c` as text when e is a name or a chain of attributes on one, else NULL:
 * how a host names a module-level object (a @jit function, an Enum member). */
const char *dotted_name_text(Arena *a, const Expr *e)
{
	if (e->kind == EX_NAME) return e->name;
	if (e->kind != EX_ATTR) return NULL;
	const char *obj = dotted_name_text(a, e->obj);
	return obj ? arena_printf(a, "%s.%s", obj, e->attr) : NULL;
}

/* The builtin a decorator names, if it resolves to one (an alias such as
 * `my_jit = triton.jit`), evaluated quietly in module ms; else NULL. */
static const char *deco_builtin_in(Sema *s, ModScope *ms, const Expr *d)
{
	if (!ms) return NULL;
	if (d->kind == EX_CALL) d = d->func;
	if (d->kind != EX_NAME && d->kind != EX_ATTR) return NULL;
	return quiet_builtin_name(s, ms, d);
}

Value quiet_module_eval(Sema *s, ModScope *ms, const Expr *e, bool *failed)
{
	Quiet q;
	quiet_begin(s, &q);
	Fn tmp;
	fn_init(s, &tmp, NULL, ms, false);
	Value v = eval(s, &tmp, e);
	fn_free(&tmp);
	*failed = quiet_end(s, &q, NULL);
	return v;
}

const char *quiet_builtin_name(Sema *s, ModScope *ms, const Expr *e)
{
	bool failed;
	Value v = quiet_module_eval(s, ms, e, &failed);
	return !failed && v.kind == V_BUILTIN && !v.self ? builtin_get(v.builtin)->name : NULL;
}

/* the same, in the main module */
static const char *deco_builtin(Sema *s, const Expr *d)
{
	return deco_builtin_in(s, s->main_mod, d);
}

bool is_kernel_decorator_name(const char *n)
{
	return n && (!strcmp(n, "jit") || !strcmp(n, "autotune") || !strcmp(n, "heuristics"));
}

static bool binds_name(const Stmt *st, const char *name)
{
	return (st->kind == ST_FUNCDEF && !strcmp(st->func->name, name)) ||
	       (st->kind == ST_ASSIGN && st->ntargets == 1 && st->targets[0]->kind == EX_NAME &&
		!strcmp(st->targets[0]->name, name));
}

/* Whether every return of `body` (at least one, in its ifs too) is
 * triton.jit: `return triton.jit(**kwargs)` */
static bool returns_jit(Sema *s, StmtList body, int *nret)
{
	for (int i = 0; i < body.n; i++) {
		const Stmt *st = body.items[i];
		if (st->kind == ST_RETURN) {
			const char *n = st->value ? deco_builtin(s, st->value) : NULL;
			if (!n || strcmp(n, "jit")) return false;
			(*nret)++;
		} else if (st->kind == ST_IF && (!returns_jit(s, st->body, nret) || !returns_jit(s, st->orelse, nret)))
			return false;
	}
	return true;
}

/* A decorator factory: `@_jit(c_cache=True)` where the main module's
 * `def _jit(**kwargs)` returns triton.jit(**kwargs) (tritonbench's wrapper
 * that drops the keywords an older Triton lacks): the kernel is jitted, its
 * keywords are the host's. */
static bool is_jit_factory(Sema *s, const Expr *d)
{
	if (!s->main_mod || d->kind != EX_CALL || d->func->kind != EX_NAME) return false;
	const FuncDef *f = NULL; /* the name's last binding, if a def */
	const StmtList *body = &s->main_mod->ast->body;
	for (int i = 0; i < body->n; i++) {
		const Stmt *st = body->items[i];
		if (st->kind == ST_UNSUPPORTED && st->host_name && !strcmp(st->host_name, d->func->name))
			f = st->host_def;
		else if (binds_name(st, d->func->name))
			f = st->kind == ST_FUNCDEF ? st->func : NULL;
	}
	int nret = 0;
	return f && f->ndecorators == 0 && returns_jit(s, f->body, &nret) && nret > 0;
}

/* A decorator that is a host function wrapping triton.jit: `@my_jit` where
 * `def my_jit(fn): return triton.jit(fn)`, or `@make_jit()` returning such a
 * closure. Run quietly in the main module on fn itself: it is a kernel when
 * the wrapper returns fn having applied triton.jit to it. */
static bool is_jit_wrapper(Sema *s, const FuncDef *fn, const Expr *d)
{
	if (!s->main_mod || (d->kind != EX_NAME && d->kind != EX_ATTR && d->kind != EX_CALL)) return false;
	Quiet q;
	quiet_begin(s, &q);
	Fn tmp;
	fn_init(s, &tmp, NULL, s->main_mod, false);
	s->host_fn++;
	Value w = eval(s, &tmp, d); /* @make_jit(): the factory runs as host Python */
	s->host_fn--;
	bool ok = false;
	if (w.kind == V_FUNC || w.kind == V_LAMBDA) {
		Value arg = {.kind = V_FUNC, .fn = fn, .mod = s->main_mod};
		int before = s->jit_applied;
		s->host_fn++; /* the wrapper is host Python (a try in it runs) */
		Value r = call_value(s, &tmp, w, &arg, 1, NULL, NULL, 0, d->loc, NULL, NULL);
		s->host_fn--;
		ok = r.kind == V_FUNC && r.fn == fn && s->jit_applied > before;
	}
	fn_free(&tmp);
	return !quiet_end(s, &q, NULL) && ok;
}

bool sema_is_jit(Sema *s, const FuncDef *fn)
{
	for (int i = 0; i < fn->ndecorators; i++)
		if (is_kernel_decorator_name(expr_last_name(fn->decorators[i]))) return true;
	for (int i = 0; i < fn->ndecorators; i++)
		if (is_kernel_decorator_name(deco_builtin(s, fn->decorators[i])) || is_jit_factory(s, fn->decorators[i]))
			return true;
	if (!fn->ndecorators || !s->main_mod) return false;
	for (size_t i = 0; i < s->jit_wrap_seen.len; i++) /* the wrapper runs once per function */
		if (s->jit_wrap_seen.data[i] == fn) return s->jit_wrapped.data[i];
	vec_push(&s->jit_wrap_seen, fn);
	vec_push(&s->jit_wrapped, false);
	bool found = false;
	for (int i = 0; i < fn->ndecorators && !found; i++) found = is_jit_wrapper(s, fn, fn->decorators[i]);
	for (size_t i = 0; i < s->jit_wrap_seen.len; i++)
		if (s->jit_wrap_seen.data[i] == fn) s->jit_wrapped.data[i] = found;
	return found;
}

/* A decorator written as a name bound at module level to a decorator call,
 * `my_autotune = triton.autotune(configs=[...], key=[...])` then `@my_autotune` or
 * `k = my_autotune(k)` (sglang's rmsnorm_autotune): that call; else d itself. */
const Expr *deco_alias(const Module *m, const Expr *d)
{
	for (int depth = 0; m && d->kind == EX_NAME && depth < 8; depth++) {
		const Stmt *st = NULL; /* the name's last binding */
		for (int i = 0; i < m->body.n; i++)
			if (binds_name(m->body.items[i], d->name)) st = m->body.items[i];
		if (!st || st->kind != ST_ASSIGN) break;
		const Expr *v = st->assign_value;
		if (v->kind == EX_NAME && st->ntargets == 1) { /* `my_tune = my_autotune`: an alias of the alias */
			d = v;
			continue;
		}
		if (v->kind != EX_CALL) break;
		const char *n = expr_last_name(v->func);
		if (!is_kernel_decorator_name(n) || v->nargs > 0) break;
		d = v;
	}
	return d;
}

/* ---- @triton.autotune / @triton.heuristics ------------------------------------------- */

/* The argument of a decorator, evaluated with its diagnostics collected
 * aside: V_ERR and *why set when host Python makes it unevaluable. */
static Value eval_deco_arg(Sema *s, Fn *tmp, const Expr *e, const char *deco, const char **why)
{
	Quiet q;
	Diag first;
	quiet_begin(s, &q);
	Value v = eval(s, tmp, e);
	if (quiet_end(s, &q, &first) || v.kind == V_ERR) {
		const char *msg = first.msg ? first.msg : "it is not a compile-time value";
		*why = arena_printf(s->a, "the %s at line %d could not be evaluated (%s)", deco, e->loc.line, msg);
		v = v_err();
	}
	return v;
}

/* num_warps / num_stages / ...: launch options a heuristic may set */
bool is_launch_option(const char *name)
{
	return !strcmp(name, "num_warps") || !strcmp(name, "num_stages") || !strcmp(name, "num_ctas") ||
	       !strcmp(name, "maxnreg");
}

/* the options Triton's backends read from a launch's keywords (CUDAOptions,
 * HIPOptions): a Config's kwargs may hold them, as test_override_ttir does */
static bool is_compile_option(const char *name)
{
	static const char *const opts[] = {
	    "num_warps", "num_stages", "num_ctas", "maxnreg", "ir_override", "enable_fp_fusion",
	    "launch_cooperative_grid", "launch_pdl", "debug", "sanitize_overflow", "cluster_dims",
	    "ptx_options", "extern_libs", "waves_per_eu", "matrix_instr_nonkdim", "kpack",
	    "instruction_sched_variant", "num_buffers_warp_spec", "num_consumer_groups",
	    "reg_dec_producer", "reg_inc_consumer", "minRegAutoWS", "maxRegAutoWS", "pingpongAutoWS"};
	for (size_t i = 0; i < sizeof opts / sizeof *opts; i++)
		if (!strcmp(name, opts[i])) return true;
	return false;
}

static const Expr *deco_arg(const Expr *d, const char *kw, int pos)
{
	if (d->kind != EX_CALL) return NULL;
	for (int k = 0; k < d->nkwargs; k++)
		if (!strcmp(d->kwargs[k].name, kw)) return d->kwargs[k].value;
	return pos >= 0 && pos < d->nargs ? d->args[pos] : NULL;
}

/* Where triton.Config number i of n sets a launch option: the keyword's value
 * when the configs are a list of Config(...) calls in the source, else the list. */
static SrcLoc config_opt_loc(const Expr *ce, int n, int i, const char *kw, int pos)
{
	if ((ce->kind != EX_LIST && ce->kind != EX_TUPLE) || ce->nitems != n || ce->items[i]->kind != EX_CALL)
		return ce->loc;
	const Expr *call = ce->items[i];
	for (int k = 0; k < call->nkwargs; k++)
		if (!strcmp(call->kwargs[k].name, kw)) return call->kwargs[k].value->loc;
	return pos < call->nargs ? call->args[pos]->loc : call->loc;
}

/* A Config's num_warps and num_stages, checked as Triton's backend does: the
 * launch has num_warps * 32 threads, a power of two. More warps than a target
 * runs (num_warps=128) are out of resources only where the config is used:
 * Triton's autotuner then skips it (test_autotuner.py's test_exceed_threads). */
static bool config_launch_opts(Sema *s, const Expr *ce, int n, int i, Value c, KernelConfig *cf)
{
	cf->num_warps = v_is_none(c.items[1]) ? 0 : (int)c.items[1].c.i;
	cf->num_stages = v_is_none(c.items[2]) ? 0 : (int)c.items[2].c.i;
	int64_t w = v_is_none(c.items[1]) ? 4 : c.items[1].c.i, st = v_is_none(c.items[2]) ? 3 : c.items[2].c.i;
	if (w < 1 || w > (1 << 20) || (w & (w - 1))) {
		diag_error(s->d, config_opt_loc(ce, n, i, "num_warps", 1),
			   "num_warps of a triton.Config must be a power of two, got %lld", (long long)w);
		return false;
	}
	if (st < 0) {
		diag_error(s->d, config_opt_loc(ce, n, i, "num_stages", 2),
			   "num_stages of a triton.Config must not be negative, got %lld", (long long)st);
		return false;
	}
	return true;
}

int param_index(const FuncDef *def, const char *name)
{
	for (int i = 0; i < def->nparams; i++)
		if (!strcmp(def->params[i].name, name)) return i;
	return -1;
}

static bool value_to_const(Value v, ConstVal *out)
{
	if (v.kind == V_CONST) {
		*out = v.c;
		return true;
	}
	if (v_dtype_is_const(v)) {
		*out = (ConstVal){.kind = CV_DTYPE, .dtype = (DType)v.ty.dt};
		return true;
	}
	return false;
}

static bool deco_autotune(Sema *s, Fn *tmp, const FuncDef *def, const Expr *d, KDeco *out)
{
	const Expr *ce = deco_arg(d, "configs", 0);
	if (!ce && !deco_builtin(s, d)) {
		/* another library's autotune (triton_dejavu's, with config_space=): its tuning
		 * space is host code tile does not run, so the decorator sets nothing */
		if (!out->unevaluated)
			out->unevaluated = arena_printf(s->a, "the autotune decorator at line %d has no configs= tile can read",
							d->loc.line);
		return true;
	}
	if (!ce) {
		diag_error(s->d, d->loc, "@triton.autotune needs configs=[triton.Config(...), ...]");
		return false;
	}
	if (out->configs) {
		diag_error(s->d, d->loc, "kernel '%s' has more than one @triton.autotune", def->name);
		return false;
	}
	/* Triton's Autotuner calls prune_configs_by.get(...) when it is truthy: any
	 * other value raises there (a dict of host functions tile cannot evaluate is
	 * left alone, as it is ignored) */
	const Expr *pe = deco_arg(d, "prune_configs_by", 2);
	if (pe) {
		const char *why = NULL;
		Value pv = eval_deco_arg(s, tmp, pe, "@triton.autotune prune_configs_by", &why);
		if (pv.kind == V_ERR) {
			out->prune_why = why;
			out->prune_loc = pe->loc;
		}
		if (pv.kind != V_ERR && pv.kind != V_DICT && value_truthy(pv)) {
			diag_error(s->d, pe->loc,
				   "prune_configs_by of @triton.autotune must be a dict (perf_model, top_k, "
				   "early_config_prune), got %s",
				   v_describe(s, pv));
			return false;
		}
		for (int k = 0; pv.kind == V_DICT && k < pv.n; k++) {
			const char *key = v_is_const(pv.keys[k], CV_STR) ? pv.keys[k].c.s : "";
			Value it = pv.items[k];
			out->prune_loc = pe->loc;
			if (!strcmp(key, "early_config_prune") && value_truthy(it)) out->prune = it;
			if (!strcmp(key, "perf_model") && value_truthy(it)) out->perf = it;
			if (!strcmp(key, "top_k")) out->topk = it;
		}
	}
	Value v = eval_deco_arg(s, tmp, ce, "@triton.autotune configs", &out->unevaluated);
	if (v.kind == V_ERR) return true;
	if (v.kind == V_CONFIG) v = v_tuple(s, &v, 1);
	if (v.kind == V_TUPLE && v.n == 0) {
		/* Triton's Autotuner takes no configs as one Config({}) (configs=[] was
		 * an error here that read "got tuple") */
		Value items[3] = {v_dict(s, NULL, NULL, 0), v_none(), v_none()};
		Value c = v_tuple(s, items, 3);
		c.kind = V_CONFIG;
		v = v_tuple(s, &c, 1);
	}
	if (v.kind != V_TUPLE) {
		diag_error(s->d, ce->loc, "configs of @triton.autotune must be a list of triton.Config, got %s",
			   v_describe(s, v));
		return false;
	}
	KernelConfig *cf = ARENA_NEWN(s->a, KernelConfig, v.n);
	for (int i = 0; i < v.n; i++) {
		Value c = v.items[i];
		if (c.kind != V_CONFIG) {
			diag_error(s->d, ce->loc, "configs of @triton.autotune must be triton.Config objects, got %s",
				   v_describe(s, c));
			return false;
		}
		Value kw = c.items[0];
		cf[i].loc = ce->loc;
		if (!config_launch_opts(s, ce, v.n, i, c, &cf[i])) return false;
		cf[i].kwargs = ARENA_NEWN(s->a, KernelConfigArg, kw.n + 1);
		int nk = 0;
		for (int k = 0; k < kw.n; k++) {
			const char *name = istr(s, kw.keys[k].c.s);
			if (param_index(def, name) < 0 && is_compile_option(name)) {
				/* Triton passes a Config's kwargs to the launch, where the
				 * backend takes its options (ir_override) from them */
				Value o = kw.items[k];
				if (!strcmp(name, "num_warps") && !cf[i].num_warps && v_is_intlike(o)) cf[i].num_warps = (int)o.c.i;
				if (!strcmp(name, "num_stages") && !cf[i].num_stages && v_is_intlike(o)) cf[i].num_stages = (int)o.c.i;
				if (!strcmp(name, "enable_fp_fusion") && o.kind == V_CONST && !value_truthy(o)) cf[i].no_fp_fusion = true;
				continue;
			}
			if (param_index(def, name) < 0) {
				diag_error(s->d, ce->loc, "triton.Config sets '%s', which is not a parameter of '%s'", name,
					   def->name);
				return false;
			}
			cf[i].kwargs[nk].name = name;
			/* an Enum member as its name (an IntEnum's as its int if the module
			 * does not bind its class), which binds the member itself */
			if (!enum_member_name(s, tmp->mod, kw.items[k], &cf[i].kwargs[nk].val) &&
			    !value_to_const(kw.items[k], &cf[i].kwargs[nk].val)) {
				diag_error(s->d, ce->loc,
					   "triton.Config value for '%s' is %s, whose class the kernel's module does "
					   "not bind by its name",
					   name, v_describe(s, kw.items[k]));
				return false;
			}
			nk++;
		}
		cf[i].nkwargs = nk;
	}
	out->configs = cf;
	out->nconfigs = v.n;
	out->cfgs = v;
	return true;
}

static bool deco_heuristics(Sema *s, Fn *tmp, const FuncDef *def, const Expr *d, HeurVec *hs, const char **why)
{
	const Expr *ve = deco_arg(d, "values", 0);
	if (!ve) {
		diag_error(s->d, d->loc, "@triton.heuristics needs a dict of parameter name -> function of args");
		return false;
	}
	Value v = eval_deco_arg(s, tmp, ve, "@triton.heuristics dict", why);
	if (v.kind == V_ERR) return true;
	if (v.kind != V_DICT) {
		diag_error(s->d, ve->loc, "@triton.heuristics takes a dict of parameter name -> function, got %s",
			   v_describe(s, v));
		return false;
	}
	const Expr *ve_items = ve->kind == EX_DICT ? ve : NULL;
	for (int i = 0; i < v.n; i++) {
		SrcLoc at = ve_items && i < ve_items->nkeys && ve_items->keys[i] ? ve_items->keys[i]->loc : ve->loc;
		if (!v_is_const(v.keys[i], CV_STR)) {
			diag_error(s->d, at, "the keys of @triton.heuristics must be parameter names (strings)");
			return false;
		}
		const char *name = istr(s, v.keys[i].c.s);
		if (param_index(def, name) < 0 && !is_launch_option(name)) {
			diag_error(s->d, at, "@triton.heuristics sets '%s', which is not a parameter of '%s'", name, def->name);
			return false;
		}
		Value f = v.items[i];
		if (f.kind != V_LAMBDA && f.kind != V_FUNC && f.kind != V_BUILTIN) {
			diag_error(s->d, at, "@triton.heuristics value for '%s' must be a function of args, got %s", name,
				   v_describe(s, f));
			return false;
		}
		vec_push(hs, ((Heur){name, f, at}));
	}
	return true;
}

/* A decorator factory: `@conv_heuristics()` where the module's `def
 * conv_heuristics()` builds configs in its body and ends with `return
 * triton.autotune(configs, key, ...)` (or triton.heuristics): that return's
 * call, *fdef the factory. Its other statements must not return. */
static bool has_return(const StmtList *b)
{
	for (int i = 0; i < b->n; i++) {
		const Stmt *st = b->items[i];
		if (st->kind == ST_RETURN) return true;
		if ((st->kind == ST_IF || st->kind == ST_WHILE || st->kind == ST_WITH) &&
		    (has_return(&st->body) || has_return(&st->orelse)))
			return true;
		if (st->kind == ST_FOR && (has_return(&st->for_body) || has_return(&st->for_orelse))) return true;
	}
	return false;
}

static const Expr *deco_factory(const Module *m, const Expr *d, const FuncDef **fdef)
{
	if (!m || d->kind != EX_CALL || d->func->kind != EX_NAME) return NULL;
	const FuncDef *f = NULL; /* the name's last binding, if a def */
	for (int i = 0; i < m->body.n; i++) {
		const Stmt *st = m->body.items[i];
		if (st->kind == ST_UNSUPPORTED && st->host_name && !strcmp(st->host_name, d->func->name))
			f = st->host_def;
		else if (binds_name(st, d->func->name))
			f = st->kind == ST_FUNCDEF ? st->func : NULL;
	}
	if (!f || f->ndecorators || f->variadic || f->body.n == 0) return NULL;
	const Stmt *last = f->body.items[f->body.n - 1];
	if (last->kind != ST_RETURN || !last->value || last->value->kind != EX_CALL) return NULL;
	const char *n = expr_last_name(last->value);
	if (!n || (strcmp(n, "autotune") && strcmp(n, "heuristics"))) return NULL;
	StmtList head = {f->body.items, f->body.n - 1};
	if (has_return(&head)) return NULL;
	*fdef = f;
	return last->value;
}

/* Runs the factory up to its return, with the decorator call's arguments bound,
 * in *ffn (which the caller frees); false with *why set when host Python the
 * factory runs cannot be evaluated. A `name = value` tile cannot evaluate
 * (`{"perf_model": estimate_conv_time}`, a host function tile cannot parse)
 * poisons the name, which is an error only where the decorator reads it. */
static bool run_deco_factory(Sema *s, Fn *tmp, ModScope *ms, const Expr *d, const FuncDef *f, Fn *ffn,
			     const char **why)
{
	fn_init(s, ffn, f, ms, false);
	Quiet q;
	Diag first = {0};
	quiet_begin(s, &q);
	int npos = f->nparams - f->nkwonly;
	bool ok = d->nargs <= npos || f->star;
	for (int i = 0; i < f->nparams && ok; i++) {
		const Param *p = &f->params[i];
		const Expr *a = i < npos && i < d->nargs ? d->args[i] : NULL;
		for (int k = 0; k < d->nkwargs && !a; k++)
			if (!strcmp(d->kwargs[k].name, p->name)) a = d->kwargs[k].value;
		Value v = a ? eval(s, tmp, a) : p->default_val ? eval(s, ffn, p->default_val) : v_err();
		ok = v.kind != V_ERR;
		env_set(&ffn->env, p->name, v);
	}
	/* a variadic factory (`def tuned(*args, **kwargs)`): the rest of the
	 * call's positionals as a tuple, its other keywords as a dict */
	if (ok && f->star) {
		int n = d->nargs > npos ? d->nargs - npos : 0;
		Value *items = ARENA_NEWN(s->a, Value, n + 1);
		for (int i = 0; i < n && ok; i++) ok = (items[i] = eval(s, tmp, d->args[npos + i])).kind != V_ERR;
		env_set(&ffn->env, f->star, v_tuple(s, items, n));
	}
	if (ok) {
		Value *keys = ARENA_NEWN(s->a, Value, d->nkwargs + 1), *vals = ARENA_NEWN(s->a, Value, d->nkwargs + 1);
		int n = 0;
		for (int k = 0; k < d->nkwargs && ok; k++) {
			bool param = d->kwargs[k].name[0] == '*';
			for (int i = 0; i < f->nparams && !param; i++) param = !strcmp(d->kwargs[k].name, f->params[i].name);
			if (param) continue;
			ok = f->kwstar != NULL; /* Python's "unexpected keyword argument" */
			keys[n] = v_str(d->kwargs[k].name);
			if (ok) ok = (vals[n++] = eval(s, tmp, d->kwargs[k].value)).kind != V_ERR;
		}
		if (ok && f->kwstar) env_set(&ffn->env, f->kwstar, v_dict(s, keys, vals, n));
	}
	ok = !quiet_end(s, &q, &first) && ok;
	s->host_fn++;
	for (int i = 0; ok && i < f->body.n - 1; i++) {
		const Stmt *st = f->body.items[i];
		StmtList one = {&f->body.items[i], 1};
		quiet_begin(s, &q);
		exec_body(s, ffn, &one, false);
		if (quiet_end(s, &q, &first)) {
			ok = st->kind == ST_ASSIGN && st->ntargets == 1 && st->targets[0]->kind == EX_NAME;
			if (ok)
				env_set(&ffn->env, st->targets[0]->name,
					(Value){.kind = V_POISON, .msg = first.msg ? first.msg : "it could not be evaluated"});
		}
	}
	s->host_fn--;
	if (!ok) {
		*why = arena_printf(s->a, "the decorator factory '%s' at line %d could not be evaluated (%s)", f->name,
				    d->loc.line, first.msg ? first.msg : "its arguments do not match its parameters");
		return false;
	}
	return true;
}

/* The factory's returned call with its `*args` / `**kwargs` spliced in
 * (`return triton.autotune(*args, **kwargs)`), as Python passes them: each
 * item a fresh local of ffn, so that the decorator's arguments read as
 * written out. The call itself when there is nothing to splice or a splat is
 * not a tuple / dict of strings. */
static const Expr *splice_deco_call(Sema *s, Fn *ffn, const Expr *c)
{
	bool any = false;
	for (int i = 0; i < c->nargs; i++) any |= c->args[i]->kind == EX_STARRED;
	for (int k = 0; k < c->nkwargs; k++) any |= !strcmp(c->kwargs[k].name, "**");
	if (!any) return c;
	VEC(Expr *) args = {0};
	VEC(Keyword) kws = {0};
	bool ok = true;
	Quiet q;
	quiet_begin(s, &q);
	for (int i = 0; i < c->nargs && ok; i++) {
		if (c->args[i]->kind != EX_STARRED) {
			vec_push(&args, c->args[i]);
			continue;
		}
		Value t = eval(s, ffn, c->args[i]->lhs);
		ok = t.kind == V_TUPLE;
		for (int j = 0; ok && j < t.n; j++) {
			Expr *e = ARENA_NEW(s->a, Expr);
			*e = (Expr){.kind = EX_NAME, .loc = c->args[i]->loc,
				    .name = istr(s, arena_printf(s->a, "*%d.%d", i, j))}; /* no Python name */
			env_set(&ffn->env, e->name, t.items[j]);
			vec_push(&args, e);
		}
	}
	for (int k = 0; k < c->nkwargs && ok; k++) {
		if (strcmp(c->kwargs[k].name, "**")) {
			vec_push(&kws, c->kwargs[k]);
			continue;
		}
		Value dv = eval(s, ffn, c->kwargs[k].value);
		ok = dv.kind == V_DICT;
		for (int j = 0; ok && j < dv.n; j++) {
			ok = v_is_const(dv.keys[j], CV_STR);
			if (!ok) break;
			Expr *e = ARENA_NEW(s->a, Expr);
			*e = (Expr){.kind = EX_NAME, .loc = c->kwargs[k].loc,
				    .name = istr(s, arena_printf(s->a, "**%d.%d", k, j))};
			env_set(&ffn->env, e->name, dv.items[j]);
			vec_push(&kws, ((Keyword){istr(s, dv.keys[j].c.s), e, c->kwargs[k].loc}));
		}
	}
	ok = !quiet_end(s, &q, NULL) && ok;
	Expr *r = NULL;
	if (ok) {
		r = ARENA_NEW(s->a, Expr);
		*r = *c;
		r->nargs = (int)args.len;
		r->args = args.len ? vec_to_arena(s->a, &args) : NULL;
		r->nkwargs = (int)kws.len;
		r->kwargs = kws.len ? vec_to_arena(s->a, &kws) : NULL;
	}
	vec_free(&args);
	vec_free(&kws);
	return r ? r : c;
}

/* Whether keyword `kw` is one of names[] (NULL-terminated). */
static bool kw_known(const char *kw, const char *const *names)
{
	for (; *names; names++)
		if (!strcmp(kw, *names)) return true;
	return false;
}

/* A keyword of a triton decorator call that the Python function does not
 * take: Python's TypeError, where Triton's decorator runs. */
static bool deco_keywords(Sema *s, const Expr *d, const char *deco, const char *const *names)
{
	for (int k = 0; k < d->nkwargs; k++) {
		const char *kw = d->kwargs[k].name;
		if (kw[0] == '*' || kw_known(kw, names)) continue;
		StrBuf all = {0};
		for (const char *const *n = names; *n; n++) sb_printf(&all, "%s%s", n == names ? "" : ", ", *n);
		diag_error(s->d, d->kwargs[k].loc, "@triton.%s got an unexpected keyword argument '%s' (it takes %s)", deco, kw,
			   all.s);
		sb_free(&all);
		return false;
	}
	return true;
}

/* Each name a decorator's list argument `kw` gives (do_not_specialize,
 * reset_to_zero, ...) must be a parameter: Triton looks each one up (a
 * ValueError or KeyError there). Returns the first that is not, or NULL;
 * a list tile cannot evaluate (host code) is not checked. */
static const char *unknown_param_in(Sema *s, Fn *tmp, const FuncDef *def, const Expr *d, const char *kw, int pos,
				    SrcLoc *at)
{
	const Expr *e = deco_arg(d, kw, pos);
	if (!e) return NULL;
	const char *why = NULL;
	Value v = eval_deco_arg(s, tmp, e, kw, &why);
	if (v.kind == V_CONST && v.c.kind == CV_STR) v = v_tuple(s, &v, 1); /* key='N' */
	for (int i = 0; v.kind == V_TUPLE && i < v.n; i++)
		if (v_is_const(v.items[i], CV_STR) && param_index(def, v.items[i].c.s) < 0) {
			*at = (e->kind == EX_LIST || e->kind == EX_TUPLE) && e->nitems == v.n ? e->items[i]->loc : e->loc;
			return v.items[i].c.s;
		}
	return NULL;
}

/* @triton.jit(...): checked as Python calls triton.jit. A positional argument
 * is the function itself (triton.jit(5) fails Triton's assert callable(fn)). */
static bool deco_jit(Sema *s, Fn *tmp, const FuncDef *def, const Expr *d, KDeco *out)
{
	static const char *const names[] = {"version", "repr", "launch_metadata", "do_not_specialize",
					    "do_not_specialize_on_alignment", "debug", "noinline", "interpret", NULL};
	if (d->nargs > 0 && d->args[0]->kind != EX_NONE) {
		diag_error(s->d, d->args[0]->loc,
			   "@triton.jit(...) takes keyword arguments only (do_not_specialize=[...], ...); a positional "
			   "argument would be the function to compile");
		return false;
	}
	if (!deco_keywords(s, d, "jit", names)) return false;
	static const char *const lists[] = {"do_not_specialize", "do_not_specialize_on_alignment"};
	for (int i = 0; i < 2; i++) {
		SrcLoc at;
		const char *bad = unknown_param_in(s, tmp, def, d, lists[i], -1, &at);
		if (bad) {
			diag_error(s->d, at, "%s names '%s', which is not a parameter of '%s'", lists[i], bad, def->name);
			return false;
		}
	}
	const Expr *dbg = deco_arg(d, "debug", -1);
	if (dbg) { /* keeps the kernel's device_asserts */
		const char *why = NULL;
		Value v = eval_deco_arg(s, tmp, dbg, "debug", &why);
		out->debug |= v.kind == V_CONST && const_truthy(v.c);
	}
	return true;
}

/* @triton.autotune's keywords, key= (required, as in Python) and the names
 * reset_to_zero / restore_value give: Triton's autotuner indexes the
 * arguments by them when it benchmarks (more than one config), a KeyError
 * there. A key that names no parameter Triton ignores: *bad_key for a warning. */
static bool deco_autotune_args(Sema *s, Fn *tmp, const FuncDef *def, const Expr *d, KDeco *out)
{
	static const char *const names[] = {"configs", "key", "prune_configs_by", "reset_to_zero", "restore_value",
					    "pre_hook", "post_hook", "warmup", "rep", "use_cuda_graph", "do_bench",
					    "cache_results", NULL};
	if (!deco_keywords(s, d, "autotune", names)) return false;
	bool splat = false;
	for (int k = 0; k < d->nkwargs; k++) splat |= d->kwargs[k].name[0] == '*';
	for (int i = 0; i < d->nargs; i++) splat |= d->args[i]->kind == EX_STARRED;
	if (!splat && !deco_arg(d, "key", 1)) {
		diag_error(s->d, d->loc, "@triton.autotune needs key=[...], the names of the parameters whose values "
					 "select a config ([] for none)");
		return false;
	}
	static const char *const lists[] = {"reset_to_zero", "restore_value"};
	for (int i = 0; i < 2 && out->nconfigs > 1; i++) {
		SrcLoc at;
		const char *bad = unknown_param_in(s, tmp, def, d, lists[i], i + 3, &at);
		if (bad) {
			diag_error(s->d, at, "%s of @triton.autotune names '%s', which is not a parameter of '%s'",
				   lists[i], bad, def->name);
			return false;
		}
	}
	out->bad_key = unknown_param_in(s, tmp, def, d, "key", 1, &out->bad_key_loc);
	return true;
}

/* Reads the decorators of a kernel (outermost first). Unknown decorators are ignored. */
bool kernel_decorators(Sema *s, ModScope *ms, const FuncDef *def, KDeco *out)
{
	memset(out, 0, sizeof *out);
	HeurVec hs = {0};
	bool ok = true;
	Fn tmp;
	fn_init(s, &tmp, NULL, ms, false);
	/* decorator arguments are host Python: their loops run here, and
	 * nothing they do may land in the kernel's code */
	s->host_fn++;
	size_t limit = limit_to_def(ms, def);
	int nops = s->blk ? s->blk->nops : 0;
	for (int i = 0; i < def->ndecorators && ok; i++) {
		const Expr *d = def->decorators[i];
		for (ModScope *sc = ms; sc && d == def->decorators[i]; sc = sc->cls ? sc->parent : NULL)
			d = deco_alias(sc->ast, d); /* in a class: the class's names, then the module's */
		const FuncDef *fdef = NULL;
		const Expr *fd = deco_factory(ms->ast, d, &fdef);
		Fn ffn, *env = &tmp;
		if (fd) { /* the factory's return, evaluated among the factory's locals */
			if (!run_deco_factory(s, &tmp, ms, d, fdef, &ffn, &out->unevaluated)) {
				fn_free(&ffn);
				continue;
			}
			d = splice_deco_call(s, &ffn, fd);
			env = &ffn;
		}
		const char *n = expr_last_name(d);
		if (d->kind == EX_CALL && !is_kernel_decorator_name(n))
			n = deco_builtin_in(s, ms, d); /* `tune = triton.autotune` then `@tune(configs=...)` */
		const char *builtin = d->kind == EX_CALL ? deco_builtin_in(s, ms, d) : NULL; /* triton's own */
		if (n && !strcmp(n, "autotune")) {
			ok = deco_autotune(s, env, def, d, out);
			if (ok && builtin && !strcmp(builtin, "autotune")) ok = deco_autotune_args(s, env, def, d, out);
		} else if (builtin && !strcmp(builtin, "jit"))
			ok = deco_jit(s, env, def, d, out);
		else if (n && !strcmp(n, "heuristics")) ok = deco_heuristics(s, env, def, d, &hs, &out->unevaluated);
		if (fd) fn_free(&ffn);
		if (ok && s->blk && s->blk->nops != nops) {
			diag_error(s->d, def->decorators[i]->loc,
				   "this decorator's arguments run kernel code (tensor operations); they are host "
				   "Python, run before the kernel");
			ok = false;
		}
	}
	ms->limit = limit;
	s->host_fn--;
	fn_free(&tmp);
	out->nheurs = (int)hs.len;
	out->heurs = hs.len ? vec_to_arena(s->a, &hs) : NULL;
	vec_free(&hs);
	return ok;
}

const Heur *find_heur(const KDeco *kd, const char *name)
{
	for (int i = 0; i < kd->nheurs; i++)
		if (!strcmp(kd->heurs[i].name, name)) return &kd->heurs[i];
	return NULL;
}

const KernelConfigArg *find_config_arg(const KDeco *kd, const char *name)
{
	for (int c = 0; c < kd->nconfigs; c++) /* the first config that sets it */
		for (int k = 0; k < kd->configs[c].nkwargs; k++)
			if (!strcmp(kd->configs[c].kwargs[k].name, name)) return &kd->configs[c].kwargs[k];
	return NULL;
}

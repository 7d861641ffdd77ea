/* sema.c: entry points (sema.h): binding a specialization's arguments to a
 * kernel's parameters, running its heuristics and config pruning, and
 * sema_kernel.
 *
 * Module-level names are recorded when a module is first seen and evaluated
 * lazily on first use (sema_scope.c). */
#include <string.h>

#include "sema/sema_int.h"
#include "sema/sema_kernel.h"

void sema_setup(Sema *s, SemaCtx *c)
{
	memset(s, 0, sizeof *s);
	s->c = c;
	s->a = c->arena;
	s->d = c->diags;
	s->s_constexpr = istr(s, "constexpr");
}

/* Module scopes live in the arena, but their globals are a heap VEC: free them
 * (every scope, the prelude and imported modules included, is on s->mods). */
void sema_teardown(Sema *s)
{
	vec_free(&s->callstack);
	vec_free(&s->jit_wrap_seen);
	vec_free(&s->jit_wrapped);
	vec_free(&s->tma_descs);
	for (ModScope *m = s->mods; m; m = m->next) {
		vec_free(&m->globals);
		vec_free(&m->def_at);
	}
	s->mods = NULL;
	s->prelude = NULL;
}

static Value const_to_value(ConstVal cv)
{
	if (cv.kind == CV_DTYPE) return v_dtype(type_scalar(cv.dtype));
	return (Value){.kind = V_CONST, .c = cv};
}

/* The value a specialization binds parameter p to: a constant, or for CV_NAME the
 * object that name (`Dtype.FP32`) denotes in the kernel's module, as the host's
 * Python passes it. */
static Value spec_const_value(Sema *s, Fn *fn, const Param *p, ConstVal cv)
{
	if (cv.kind != CV_NAME) return const_to_value(cv);
	const char *dot = strchr(cv.s, '.');
	const char *head = istr(s, dot ? arena_strndup(s->a, cv.s, (size_t)(dot - cv.s)) : cv.s);
	bool found;
	Value v = global_get(s, fn->mod, head, p->loc, &found);
	if (!found) v = python_builtin(s, head, &found);
	if (!found) {
		if (param_is_constexpr(s, fn->mod, p->annotation))
			diag_error(s->d, p->loc,
				   "'%s' given for constexpr parameter '%s' is neither a constant nor a name "
				   "of the kernel's module",
				   cv.s, p->name);
		else
			diag_error(s->d, p->loc,
				   "'%s' given for parameter '%s' is neither a type (like i32 or *fp32:16), a "
				   "constant nor a name of the kernel's module",
				   cv.s, p->name);
		return v_err();
	}
	while (dot && v.kind != V_ERR) {
		const char *name = dot + 1;
		dot = strchr(name, '.');
		v = get_attr(s, v, istr(s, dot ? arena_strndup(s->a, name, (size_t)(dot - name)) : name), p->loc);
	}
	return v;
}

/* Runs the @triton.heuristics whose parameters the caller left unbound, in
 * order, each seeing the parameters bound so far as a dict `args`. */
/* The arguments dict Triton's launcher gives heuristics and pruners: each bound
 * parameter (skip[i]: left out), a runtime one as its actual value when the
 * caller gave it, else as what its specialization knows (V_RTARG); room is
 * left after its items for `spare` more (args_append). */
static Value launch_args_dict(Sema *s, Fn *fn, const FuncDef *def, const bool *skip, const int *specs,
			      const SpecArg *bound, int nbound, int spare)
{
	Value *keys = ARENA_NEWN(s->a, Value, def->nparams + spare + 1);
	Value *vals = ARENA_NEWN(s->a, Value, def->nparams + spare + 1);
	int n = 0;
	for (int i = 0; i < def->nparams; i++) {
		Value *b = env_find(&fn->env, def->params[i].name);
		if (!b || (skip && skip[i])) continue;
		Value v = *b;
		if (v.kind == V_TENSOR && i < nbound && bound[i].has_value) {
			v = const_to_value(bound[i].value); /* the caller's actual argument */
		} else if (v.kind == V_TENSOR) {
			Value r = {.kind = V_RTARG, .msg = def->params[i].name, .ty = v.ty};
			r.c.i = specs[i];
			if (i < nbound && bound[i].has_shape && v.ty.dt == DT_PTR) {
				const SpecArg *t = &bound[i];
				r.depth = 1;
				r.n = t->ndim;
				r.items = ARENA_NEWN(s->a, Value, t->ndim + 1);
				r.keys = ARENA_NEWN(s->a, Value, t->ndim + 1);
				for (int d = 0; d < t->ndim; d++) {
					r.items[d] = v_int(t->shape[d]);
					r.keys[d] = v_int(t->strides[d]);
				}
			}
			v = r;
		}
		keys[n] = v_str(def->params[i].name);
		vals[n++] = v;
	}
	Value d = v_dict_adopt(keys, vals, n);
	d.keys = keys, d.items = vals; /* an empty one too: the room args_append fills */
	return d;
}

/* args with name: v added last, as Triton's launcher adds each heuristic's
 * value to the kwargs the next heuristic sees. The new dict shares args'
 * arrays (launch_args_dict left room; a dict is never written in place, an
 * update makes a new one), so H heuristics over P parameters take O(H + P)
 * memory and time here, not O(H * P): 3000 of each took 5 GB. */
static Value args_append(Value args, const char *name, Value v)
{
	args.keys[args.n] = v_str(name);
	args.items[args.n++] = v;
	if (value_nesting(v) >= args.depth) args.depth = value_nesting(v) + 1;
	return args;
}

/* @triton.autotune's early_config_prune(configs, named_args), run where the
 * caller binds none of the configs' parameters, as Triton's Autotuner runs it
 * before it benchmarks: tile takes the first config it keeps (there is no
 * benchmark) and binds that config's parameters; s->pruned is the config, for
 * the launch options. named_args holds the parameters the caller gave (Triton's
 * self.nargs). A pruner tile cannot evaluate (one asking the CUDA driver for
 * the device's shared memory) leaves the first config, with a warning. */
/* The estimate perf_model(**named_args, **config.all_kwargs()) gives config c,
 * in *t; false (with the error in *first) when it cannot be evaluated. */
static bool perf_estimate(Sema *s, Fn *fn, const KDeco *kd, Value named, Value c, double *t, Diag *first)
{
	Value kw = c.items[0];
	int n = named.n + kw.n + 3, k = 0;
	const char **kwn = ARENA_NEWN(s->a, const char *, n);
	Value *kwv = ARENA_NEWN(s->a, Value, n);
	for (int i = 0; i < named.n; i++, k++) kwn[k] = named.keys[i].c.s, kwv[k] = named.items[i];
	for (int i = 0; i < kw.n; i++)
		if (v_is_const(kw.keys[i], CV_STR)) kwn[k] = kw.keys[i].c.s, kwv[k++] = kw.items[i];
	/* Config.all_kwargs(): Triton's defaults where the Config does not say */
	kwn[k] = "num_warps", kwv[k++] = v_is_none(c.items[1]) ? v_int(4) : c.items[1];
	kwn[k] = "num_ctas", kwv[k++] = v_int(1);
	kwn[k] = "num_stages", kwv[k++] = v_is_none(c.items[2]) ? v_int(3) : c.items[2];
	Quiet q;
	quiet_begin(s, &q);
	Value r = call_value(s, fn, kd->perf, NULL, 0, kwn, kwv, k, kd->prune_loc, NULL, NULL);
	bool failed = quiet_end(s, &q, first) || r.kind == V_ERR;
	if (failed) return false;
	if (r.kind != V_CONST || (r.c.kind != CV_INT && r.c.kind != CV_FLOAT && r.c.kind != CV_BOOL)) {
		first->msg = arena_printf(s->a, "it returned %s, not a number", v_describe(s, r));
		return false;
	}
	*t = const_as_double(r.c);
	return true;
}

/* prune_configs_by's perf_model and top_k, as Triton's Autotuner.prune_configs
 * applies them: where more configs are left than top_k, they are sorted by the
 * model's estimate (stable) and the top_k first kept. Triton benchmarks those;
 * tile takes the first, the best estimate. A model tile cannot evaluate (one
 * asking the driver for the device's clock) leaves the list early_config_prune
 * kept (without one, None: nothing to bind), with a warning. */
static bool rank_configs(Sema *s, Fn *fn, const KDeco *kd, Value named, Value *list)
{
	int n = list->n;
	int64_t k;
	Value tk = kd->topk.kind ? kd->topk : v_float(1.0);
	if (v_is_const(tk, CV_FLOAT) && tk.c.f <= 1.0) {
		k = (int64_t)(n * tk.c.f);
		if (k < 1) k = 1;
	} else if (v_is_intlike(tk)) {
		k = tk.c.i;
	} else {
		diag_error(s->d, kd->prune_loc,
			   "top_k of @triton.autotune's prune_configs_by must be a float <= 1.0 or an int, got %s "
			   "(Triton: TypeError)", v_describe(s, tk));
		return false;
	}
	if (n <= k) return true;
	double *est = ARENA_NEWN(s->a, double, n);
	for (int i = 0; i < n; i++) {
		Diag first = {0};
		if (!perf_estimate(s, fn, kd, named, list->items[i], &est[i], &first)) {
			/* the first config early_config_prune kept; without one, nothing is bound */
			if (!kd->prune.kind) *list = v_none();
			if (!s->prune_only)
				diag_emit(s->d, DIAG_WARNING, kd->prune_loc,
					  "perf_model of @triton.autotune could not be evaluated (%s): the first config is used",
					  first.msg ? first.msg : "it is not a compile-time function");
			return true;
		}
	}
	int keep = (int)(k < 0 ? (n + k > 0 ? n + k : 0) : k); /* Python's [:top_k] */
	if (keep == 0) {
		diag_error(s->d, kd->prune_loc, "top_k of @triton.autotune's prune_configs_by keeps no config");
		return false;
	}
	Value *items = arena_dup(s->a, list->items, sizeof(Value) * (size_t)n);
	for (int i = 1; i < n; i++) /* insertion sort: stable, as Python's sorted */
		for (int j = i; j > 0 && est[j] < est[j - 1]; j--) {
			double t = est[j];
			est[j] = est[j - 1], est[j - 1] = t;
			Value v = items[j];
			items[j] = items[j - 1], items[j - 1] = v;
		}
	*list = v_tuple(s, items, keep);
	return true;
}

static bool prune_configs(Sema *s, Fn *fn, const FuncDef *def, const KDeco *kd, const int *specs,
			  const SpecArg *bound, int nbound)
{
	bool *skip = ARENA_NEWN(s->a, bool, def->nparams + 1);
	for (int i = 0; i < def->nparams; i++) {
		bool given = i < nbound && !bound[i].use_default;
		if (find_config_arg(kd, def->params[i].name)) {
			if (given) return true; /* the caller picked the config's values */
			skip[i] = true;
		}
	}
	if (kd->prune_why) {
		if (s->prune_only) return true;
		diag_emit(s->d, DIAG_WARNING, kd->prune_loc, "%s: the configs are not pruned, the first is used",
			  kd->prune_why);
		return true;
	}
	Value fargs[2] = {kd->cfgs, launch_args_dict(s, fn, def, skip, specs, bound, nbound, 0)};
	Value r = kd->cfgs;
	if (kd->prune.kind) {
		Quiet q;
		Diag first = {0};
		quiet_begin(s, &q);
		r = call_value(s, fn, kd->prune, fargs, 2, NULL, NULL, 0, kd->prune_loc, NULL, NULL);
		bool failed = quiet_end(s, &q, &first) || r.kind == V_ERR;
		if (!failed && (r.kind != V_TUPLE || (r.n > 0 && r.items[0].kind != V_CONFIG))) {
			diag_error(s->d, kd->prune_loc,
				   "early_config_prune of @triton.autotune must return a list of triton.Config, got %s",
				   v_describe(s, r));
			return false;
		}
		if (failed) {
			if (s->prune_only) return true;
			diag_emit(s->d, DIAG_WARNING, kd->prune_loc,
				  "early_config_prune of @triton.autotune could not be evaluated (%s): the first config is used",
				  first.msg ? first.msg : "it is not a compile-time function");
			return true;
		}
		if (r.n == 0) {
			diag_error(s->d, kd->prune_loc, "early_config_prune of @triton.autotune kept no config (Triton: \"No valid "
				   "autotuner configs after pruning\")");
			return false;
		}
	}
	if (kd->perf.kind && !rank_configs(s, fn, kd, fargs[1], &r)) return false;
	if (r.kind != V_TUPLE) return true; /* perf_model could not be evaluated: nothing to bind */
	Value c = r.items[0], kw = c.items[0];
	for (int k = 0; k < kw.n; k++) {
		int pi = v_is_const(kw.keys[k], CV_STR) ? param_index(def, kw.keys[k].c.s) : -1;
		if (pi >= 0) env_set(&fn->env, def->params[pi].name, kw.items[k]);
	}
	s->pruned = ARENA_NEW(s->a, Value);
	*s->pruned = c;
	return true;
}

static bool run_heuristics(Sema *s, Fn *fn, const FuncDef *def, const KDeco *kd, const bool *pending,
			   const int *specs, const SpecArg *bound, int nbound)
{
	Value args = {0};
	for (int h = 0; h < kd->nheurs; h++) {
		const Heur *hr = &kd->heurs[h];
		int pi = param_index(def, hr->name);
		bool launch = pi < 0 && is_launch_option(hr->name);
		if (!launch && (pi < 0 || !pending[pi])) continue;
		if (args.kind != V_DICT) args = launch_args_dict(s, fn, def, NULL, specs, bound, nbound, kd->nheurs - h);
		s->heuristic = hr->name;
		Quiet q;
		if (launch) quiet_begin(s, &q);
		/* host Python, as Triton's launcher runs it: its loops run here
		 * (a `while True` is the step limit, not a loop in the kernel) */
		int nops = s->blk ? s->blk->nops : 0, errs = s->d->nerrors;
		s->host_fn++;
		Value r = call_value(s, fn, hr->fn, &args, 1, NULL, NULL, 0, hr->loc, &hr->loc, NULL);
		s->host_fn--;
		s->heuristic = NULL;
		if (s->d->nerrors > errs) r = v_err(); /* its None after a failed statement is no value */
		if (r.kind != V_ERR && s->blk && s->blk->nops != nops) {
			if (launch) quiet_end(s, &q, NULL);
			diag_error(s->d, hr->loc,
				   "heuristic for '%s' runs kernel code (tensor operations); a heuristic is host Python, "
				   "run before the kernel", hr->name);
			return false;
		}
		/* a launch option computed from runtime values (num_warps from N) cannot be
		 * known here: the caller's option stands, as if there were no heuristic */
		if (launch && (quiet_end(s, &q, NULL) || r.kind == V_ERR || r.kind == V_RTARG || v_is_none(r))) continue;
		if (r.kind == V_ERR) return false;
		if (r.kind == V_RTARG) {
			s->heuristic = hr->name;
			rtarg_needed(s, r, hr->loc);
			s->heuristic = NULL;
			return false;
		}
		if (r.kind != V_CONST && !(r.kind == V_DTYPE && r.ty.dt != DT_PTR) && !v_is_enum_member(r)) {
			diag_error(s->d, hr->loc, "heuristic for '%s' must give a constexpr, got %s", hr->name,
				   v_describe(s, r));
			return false;
		}
		if (launch) {
			/* as in Triton, the heuristic's launch option wins over the caller's */
			int64_t opt = v_is_intlike(r) ? r.c.i : -1;
			if (strcmp(hr->name, "num_warps") && strcmp(hr->name, "num_stages")) continue; /* num_ctas, maxnreg: ignored */
			if (opt < 1 || opt > 32 || (!strcmp(hr->name, "num_warps") && (opt & (opt - 1)))) {
				diag_error(s->d, hr->loc, "heuristic for '%s' gave %s; it must be %s", hr->name, py_repr_text(s, r),
					   hr->name[4] == 'w' ? "a power of two from 1 to 32" : "an integer from 1 to 32");
				return false;
			}
			if (hr->name[4] == 'w') s->f->num_warps = (int)opt;
			else s->f->num_stages = (int)opt;
			continue;
		}
		/* a parameter a Config bound is in args already: build them again */
		if (env_find(&fn->env, def->params[pi].name)) args = v_err();
		else args = args_append(args, def->params[pi].name, enum_wrap(r));
		env_set(&fn->env, def->params[pi].name, enum_wrap(r)); /* a member arrives in a constexpr */
	}
	return true;
}

typedef VEC(TirParam) ParamVec;

/* A host tensor descriptor parameter: runtime arguments NAME (the base
 * pointer), NAME.shape<i> (i32) and NAME.stride<i> (i64, all but the last).
 * The last shape is a multiple of 16 where the specialization says so, and
 * the launch checks it as it checks an `i32:16`. */
static Value bind_desc_param(Sema *s, const Param *p, const SpecArg *a, void *pv)
{
	ParamVec *params = pv;
	int r = a->desc_rank;
	ValId base = tir_block_add_arg(s->f, s->f->entry, a->ty);
	tir_val(s->f, base)->name = p->name;
	vec_push(params, ((TirParam){.name = p->name, .ty = a->ty, .spec = SPEC_DIV16, .val = base}));
	Value shape[TIR_MAX_RANK], strides[TIR_MAX_RANK];
	for (int k = 0; k < 2 * r - 1; k++) {
		bool sh = k < r;
		Type t = type_scalar(sh ? DT_I32 : DT_I64);
		ValId id = tir_block_add_arg(s->f, s->f->entry, t);
		const char *nm = arena_printf(s->a, "%s.%s%d", p->name, sh ? "shape" : "stride", sh ? k : k - r);
		tir_val(s->f, id)->name = nm;
		int spec = sh && k == r - 1 && a->desc_last16 ? SPEC_DIV16 : SPEC_NONE;
		vec_push(params, ((TirParam){.name = nm, .ty = t, .spec = spec, .val = id}));
		if (sh) shape[k] = v_tensor(s, id);
		else strides[k - r] = v_tensor(s, id);
	}
	return desc_param(s, v_tensor(s, base), shape, strides, a->desc_block, r, p->loc);
}

/* A runtime scalar or pointer argument named `name`: a block argument of the entry. */
static Value bind_scalar_param(Sema *s, const char *name, const SpecArg *a, ParamVec *params)
{
	Type t = a->ty;
	ValId id = tir_block_add_arg(s->f, s->f->entry, type_elem(t));
	tir_val(s->f, id)->name = name;
	vec_push(params, ((TirParam){.name = name, .ty = type_elem(t), .spec = a->spec, .val = id}));
	if ((a->spec & SPEC_EQ1) && dtype_is_int((DType)t.dt))
		return v_int(1);
	return v_tensor(s, id);
}

/* A tuple parameter: a tuple of its elements, the runtime ones bound to the runtime
 * arguments NAME.0, NAME.1, NAME.2.0, ... in order (Triton flattens tuples, nested
 * ones too, the same way). */
static Value bind_tuple_param(Sema *s, Fn *fn, const Param *p, const char *name, const SpecArg *a,
			      ParamVec *params)
{
	Value *items = ARENA_NEWN(s->a, Value, a->tuple_len);
	for (int j = 0; j < a->tuple_len; j++) {
		const SpecArg *e = &a->tuple[j];
		const char *en = arena_printf(s->a, "%s.%d", name, j);
		items[j] = e->tuple_len    ? bind_tuple_param(s, fn, p, en, e, params)
			   : e->empty_tuple ? v_tuple(s, NULL, 0)
			   : e->is_const    ? spec_const_value(s, fn, p, e->cval)
					    : bind_scalar_param(s, en, e, params);
	}
	return v_tuple(s, items, a->tuple_len);
}

/* A tuple parameter annotated with a NamedTuple class of the module (`p: Pair`)
 * is an instance of it, with its field names: Triton's launcher keeps a
 * NamedTuple argument's type, which the host's tuple does not carry here. */
static bool name_tuple_param(Sema *s, Fn *fn, const Param *p, Value *t)
{
	const Expr *ann = p->annotation;
	if (!ann || (ann->kind != EX_NAME && ann->kind != EX_ATTR)) return true;
	Quiet q;
	quiet_begin(s, &q);
	Value c = eval(s, fn, ann);
	quiet_end(s, &q, NULL);
	const AggInfo *ai = c.kind == V_MODULE ? class_namedtuple(s, c.mod) : NULL;
	if (!ai) return true;
	if (ai->n != t->n) {
		diag_error(s->d, p->loc, "parameter '%s' is annotated '%s', a NamedTuple of %d field%s; got a tuple of %d",
			   p->name, c.mod->name, ai->n, ai->n == 1 ? "" : "s", t->n);
		return false;
	}
	t->mod = c.mod;
	return true;
}

static bool bind_kernel_params(Sema *s, Fn *fn, const FuncDef *def, const SpecArg *args, int nargs, const KDeco *kd)
{
	bool ok = true;
	bool *pending = ARENA_NEWN(s->a, bool, def->nparams + 1);
	int *specs = ARENA_NEWN(s->a, int, def->nparams + 1);
	ParamVec params = {0};
	if (def->star || def->kwstar) { /* Triton's launcher binds a kernel's parameters one by one */
		diag_error(s->d, def->nparams ? def->params[0].loc : (SrcLoc){0},
			   "kernel '%s' has a %s%s parameter: only the functions a kernel calls take one", def->name,
			   def->star ? "*" : "**", def->star ? def->star : def->kwstar);
		return false;
	}
	if (nargs > def->nparams) {
		SrcLoc at = def->nparams ? def->params[0].loc : (SrcLoc){0};
		diag_error(s->d, at, "kernel '%s' takes %d arguments, got %d", def->name, def->nparams, nargs);
		return false;
	}
	for (int i = 0; i < def->nparams; i++) {
		const Param *p = &def->params[i];
		bool cexpr = param_is_constexpr(s, fn->mod, p->annotation);
		bool heur = find_heur(kd, p->name) != NULL;
		const KernelConfigArg *ca = find_config_arg(kd, p->name);
		Value v;
		bool given = i < nargs && !args[i].use_default; /* else left out: its default */
		if (heur && (!given || (args[i].is_const && args[i].cval.kind == CV_NONE))) {
			pending[i] = true; /* computed below, once the other parameters are bound */
			/* a Config sets it too: the heuristic sees the config's value
			 * (Triton's Autotuner passes it in) and its result wins */
			v = ca && !given ? spec_const_value(s, fn, p, ca->val) : v_err();
			if (v.kind != V_ERR) env_set(&fn->env, p->name, enum_wrap(v));
			continue;
		} else if (given && args[i].is_const) {
			v = args[i].empty_tuple ? v_tuple(s, NULL, 0) : spec_const_value(s, fn, p, args[i].cval);
			if (v.kind == V_ERR) {
				ok = false;
				continue;
			}
		} else if (given) {
			/* a tuple of constants is a constexpr (Triton's `shape: tl.constexpr` given x.shape) */
			bool const_tuple = args[i].tuple_len > 0;
			for (int j = 0; j < args[i].tuple_len; j++) const_tuple &= args[i].tuple[j].is_const;
			if (cexpr && !const_tuple) {
				diag_error(s->d, p->loc, "'%s' is a constexpr parameter but got a runtime argument", p->name);
				ok = false;
				continue;
			}
			if (args[i].desc_rank) {
				v = bind_desc_param(s, p, &args[i], &params);
				if (v.kind == V_ERR) ok = false;
				env_set(&fn->env, p->name, v);
				continue;
			}
			if (args[i].tuple_len) {
				Value t = bind_tuple_param(s, fn, p, p->name, &args[i], &params);
				if (!name_tuple_param(s, fn, p, &t)) ok = false;
				env_set(&fn->env, p->name, t);
				continue;
			}
			specs[i] = args[i].spec;
			v = bind_scalar_param(s, p->name, &args[i], &params);
			if (v.kind == V_TENSOR && v.ty.dt == DT_PTR && param_is_const_pointer(p->annotation))
				v.ty.ptr_const = tir_val(s->f, v.id)->ty.ptr_const = 1; /* what is computed from it keeps it */
		} else if (ca) {
			v = spec_const_value(s, fn, p, ca->val); /* @triton.autotune: the first config */
		} else if (p->default_val) {
			/* a default is host Python, run when the def runs: a helper it
			 * calls runs here, and no kernel code may come of it */
			int nops = s->blk ? s->blk->nops : 0;
			s->host_fn++;
			v = eval_default(s, fn, def, p->default_val);
			s->host_fn--;
			if (v.kind != V_ERR && s->blk && s->blk->nops != nops) {
				diag_error(s->d, p->default_val->loc,
					   "the default of '%s' runs kernel code (tensor operations); a default is host "
					   "Python, run when the kernel is defined", p->name);
				v = v_err();
			}
			if (v.kind != V_CONST && v.kind != V_DTYPE && v.kind != V_ERR && v.kind != V_LAMBDA &&
			    v.kind != V_FUNC && v.kind != V_BUILTIN && v.kind != V_TUPLE && v.kind != V_DICT) {
				diag_error(s->d, p->default_val->loc, "the default of '%s' must be a constexpr", p->name);
				v = v_err();
			}
			if (v.kind == V_ERR) ok = false;
		} else {
			if (kd->unevaluated)
				diag_error(s->d, p->loc, "missing argument for parameter '%s' of kernel '%s'; %s, so bind it",
					   p->name, def->name, kd->unevaluated);
			else
				diag_error(s->d, p->loc, "missing argument for parameter '%s' of kernel '%s'", p->name, def->name);
			ok = false;
			continue;
		}
		env_set(&fn->env, p->name, enum_wrap(v)); /* a member arrives in Triton's constexpr */
	}
	/* configs tile could not evaluate (built by host Python) are the caller's to bind: nothing to prune */
	if (ok && s->run_prune && (kd->prune.kind || kd->perf.kind || kd->prune_why) && kd->cfgs.kind == V_TUPLE)
		ok = prune_configs(s, fn, def, kd, specs, args, nargs);
	if (ok && kd->nheurs && !s->prune_only) ok = run_heuristics(s, fn, def, kd, pending, specs, args, nargs);
	if (ok && kd->nheurs && s->prune_only && s->pruned) {
		/* a heuristic may read a parameter the kept config set: its result
		 * is what the compile needs (one that needs a runtime value leaves
		 * the heuristics to the compile, which reports it) */
		Quiet q;
		int nw = s->f->num_warps, ns = s->f->num_stages;
		quiet_begin(s, &q);
		bool done = run_heuristics(s, fn, def, kd, pending, specs, args, nargs);
		s->heurs_done = !quiet_end(s, &q, NULL) && done;
		if (!s->heurs_done) s->f->num_warps = nw, s->f->num_stages = ns;
	}
	s->f->nparams = (int)params.len;
	s->f->params = params.len ? vec_to_arena(s->a, &params) : NULL;
	vec_free(&params);
	return ok;
}

/* Sets up s for kernel `kernel` of m: its definition (NULL if there is none)
 * and in *ms the module scope (or class) it is defined in. */
static const FuncDef *open_kernel(Sema *s, SemaCtx *c, const Module *m, const char *kernel, ModScope **ms)
{
	sema_setup(s, c);
	*ms = modscope_new(s, m, "__main__");
	s->main_mod = *ms;
	Flat flat;
	flatten_module(s, *ms, m, &flat);
	return find_kernel(s, &flat, kernel, ms);
}

bool sema_heuristic_values(SemaCtx *c, const Module *m, const char *kernel, const SpecArg *args, int nargs,
			   ConstVal *out, bool *set, int nparams, HeurLaunch *launch)
{
	Sema s;
	int errs0 = c->diags->nerrors;
	ModScope *ms;
	const FuncDef *def = open_kernel(&s, c, m, kernel, &ms);
	bool ok = def && def->nparams == nparams;
	if (ok) { /* binds the parameters, as sema_kernel does, without the body */
		s.f = tir_func_new(c->arena, def->name);
		s.f->num_warps = 0; /* 0: no heuristic set it */
		s.blk = s.f->entry;
		Fn fn;
		fn_init(&s, &fn, def, ms->cls ? ms->parent : ms, true);
		vec_push(&s.callstack, def);
		KDeco kd;
		s.run_prune = true;
		s.prune_only = launch->prune_only;
		ok = kernel_decorators(&s, ms, def, &kd) && bind_kernel_params(&s, &fn, def, args, nargs, &kd);
		*launch = (HeurLaunch){s.prune_only, ok ? s.f->num_warps : 0, ok ? s.f->num_stages : 0, 0, 0, false};
		if (ok && s.pruned) { /* the kept config's own launch options */
			const Value *kept = s.pruned->items;
			launch->cfg_num_warps = v_is_intlike(kept[1]) ? (int)kept[1].c.i : 0;
			launch->cfg_num_stages = v_is_intlike(kept[2]) ? (int)kept[2].c.i : 0;
			for (int k = 0; k < kept[0].n; k++)
				if (v_is_const(kept[0].keys[k], CV_STR) && !strcmp(kept[0].keys[k].c.s, "enable_fp_fusion") &&
				    kept[0].items[k].kind == V_CONST && !value_truthy(kept[0].items[k]))
					launch->cfg_no_fp_fusion = true;
		}
		for (int i = 0; ok && i < def->nparams; i++) {
			bool unbound = i >= nargs || args[i].use_default || (args[i].is_const && args[i].cval.kind == CV_NONE);
			bool pruned = s.pruned && unbound && find_config_arg(&kd, def->params[i].name);
			/* a heuristic's parameter is the heuristic's to set: pruning
			 * alone leaves it unbound, whatever value a config gave it
			 * (bound, the heuristic would not run) */
			bool heur = find_heur(&kd, def->params[i].name);
			Value *v = (heur ? !s.prune_only || s.heurs_done : pruned) && unbound
			                   ? env_find(&fn.env, def->params[i].name) : NULL;
			if (v && v->kind == V_CONST) {
				out[i] = v->c;
				set[i] = true;
			} else if (v && v_dtype_is_const(*v)) {
				out[i] = (ConstVal){.kind = CV_DTYPE, .dtype = (DType)v->ty.dt};
				set[i] = true;
			}
		}
		fn_free(&fn);
	}
	sema_teardown(&s);
	return ok && c->diags->nerrors == errs0;
}

/* The kernel's (dotted) name as a C and PTX identifier: '.' as '_', and a name
 * with letters beyond ASCII (PEP 3131: `缩放`, `σ_scale`) as tile_u_ followed by
 * the name with each of those as uHEX_ (tile_u_u7F29_u653E_), since PTX and
 * assemblers take ASCII names only. */
static char *kernel_symbol(Arena *a, const char *name)
{
	StrBuf b = {0};
	bool ascii = true;
	for (const char *q = name; *q; q++) ascii &= !(*q & 0x80);
	if (!ascii) sb_puts(&b, "tile_u_");
	for (const unsigned char *q = (const unsigned char *)name; *q;) {
		if (*q < 0x80) {
			sb_putc(&b, *q == '.' ? '_' : (char)*q);
			q++;
			continue;
		}
		/* the lexer took only valid UTF-8 */
		int n = *q >= 0xf0 ? 4 : *q >= 0xe0 ? 3 : 2;
		uint32_t cp = *q & (0x7f >> n);
		for (int i = 1; i < n && q[i]; i++) cp = cp << 6 | (q[i] & 0x3f);
		sb_printf(&b, "u%X_", (unsigned)cp);
		q += n;
	}
	char *sym = arena_strdup(a, b.s ? b.s : "");
	sb_free(&b);
	return sym;
}

/* The module's top-level `assert cond, msg` statements, which Python runs at
 * import: one whose condition tile evaluates to false is an error (the module
 * would not import). A condition tile cannot evaluate (host data such as
 * torch's) is left alone, as are asserts inside a module-level if/try. */
static bool run_module_asserts(Sema *s, ModScope *m)
{
	bool ok = true;
	if (!m->ast) return ok;
	for (int i = 0; i < m->ast->body.n; i++) {
		const Stmt *st = m->ast->body.items[i];
		if (st->kind != ST_ASSERT) continue;
		bool failed;
		Value v = module_expr_quiet(s, m, st->test, &failed);
		if (failed || v.kind != V_CONST || const_truthy(v.c)) continue;
		Value msg = st->msg ? module_expr_quiet(s, m, st->msg, &failed) : v_none();
		if (st->msg && !failed) msg = py_str_value(s, msg, false, st->loc);
		s->py_errors++;
		ok = false;
		diag_error(s->d, st->loc, "module-level assertion failed%s%s (an AssertionError in Python, at import)",
			   st->msg && !failed && msg.kind == V_CONST ? ": " : "",
			   st->msg && !failed && msg.kind == V_CONST && msg.c.s ? msg.c.s : "");
	}
	return ok;
}

TirFunc *sema_kernel(SemaCtx *c, const Module *m, const char *kernel, const SpecArg *args, int nargs)
{
	Sema s;
	int errs0 = c->diags->nerrors;
	ModScope *ms;
	const FuncDef *def = open_kernel(&s, c, m, kernel, &ms);
	if (!def) {
		SrcLoc top = {.file = m->file, .line = 1, .col = 1};
		diag_error(c->diags, top, "no kernel named '%s'", kernel);
		sema_teardown(&s);
		return NULL;
	}
	/* the symbol: Class.name (a kernel defined in a class) as Class_name, and
	 * tile_k_NAME for a name the generated code or its libraries use (int, sinf) */
	char *sym = kernel_symbol(c->arena, def->name);
	if (target_symbol_reserved(sym)) sym = arena_printf(c->arena, "tile_k_%s", sym);
	s.f = tir_func_new(c->arena, sym);
	if (strcmp(sym, def->name)) s.f->display = def->name;
	if (c->opts && c->opts->num_warps > 0) s.f->num_warps = c->opts->num_warps;
	s.blk = s.f->entry;
	Fn fn;
	/* a class's kernel: its decorators see the class's names, its body the module's */
	fn_init(&s, &fn, def, ms->cls ? ms->parent : ms, true);
	vec_push(&s.callstack, def);
	KDeco kd;
	bool deco_ok = run_module_asserts(&s, ms->cls ? ms->parent : ms) && kernel_decorators(&s, ms, def, &kd);
	if (deco_ok && kd.bad_key)
		diag_emit(s.d, DIAG_WARNING, kd.bad_key_loc,
			  "key of @triton.autotune names '%s', which is not a parameter of '%s'; Triton ignores it", kd.bad_key,
			  def->name);
	s.debug = (c->opts && c->opts->debug) || (deco_ok && kd.debug);
	if (deco_ok && bind_kernel_params(&s, &fn, def, args, nargs, &kd))
		exec_body(&s, &fn, &def->body, true);
	fn_free(&fn);
	SrcLoc end = {0};
	tir_op(s.f, s.f->entry, TOP_RETURN, end, NULL, 0, NULL, 0);
	sema_teardown(&s);
	if (c->diags->nerrors > errs0) return NULL;
	tir_verify(s.f, "sema", false);
	sema_cleanup(s.f);
	tir_verify(s.f, "sema cleanup", false);
	return s.f;
}

/* sema_call.c: calls. Builtins get their arguments bound to named slots
 * (Triton's parameter names and keywords); @jit helpers are inlined into the
 * caller (a fresh environment, the callee's module scope), with a recursion
 * check and an inline depth limit of 64. */
#include <stdio.h>
#include <string.h>

#include "sema/sema_int.h"

enum { INLINE_DEPTH_LIMIT = 64 };

void fn_init(Sema *s, Fn *fn, const FuncDef *def, ModScope *mod, bool is_kernel)
{
	memset(fn, 0, sizeof *fn);
	fn->serial = ++s->fn_serial;
	fn->def = def;
	fn->mod = mod;
	fn->is_kernel = is_kernel;
	fn->retval = v_none();
}

void fn_free(Fn *fn)
{
	env_free(&fn->env);
	vec_free(&fn->ctx);
}

/* ---- the builtin registry ------------------------------------------------------------- */

const Builtin *const builtin_tables[] = {builtins_core, builtins_compile, builtins_print, builtins_dtype, builtins_python, builtins_math,    builtins_mem,      builtins_reduce,
					 builtins_dot,  builtins_prelude, builtins_blockptr, builtins_shape, builtins_map,
					 builtins_asm,  builtins_tensorarg, builtins_str,
					 builtins_pyround, builtins_format, builtins_dict, builtins_pyhost,
					 builtins_set, builtins_pytype, NULL};

const Builtin *builtin_get(int id) { return &builtin_tables[id >> 8][id & 255]; }

int builtin_find(const char *name, unsigned flag)
{
	for (int t = 0; builtin_tables[t]; t++)
		for (int i = 0; builtin_tables[t][i].name; i++)
			if ((builtin_tables[t][i].flags & flag) && !strcmp(builtin_tables[t][i].name, name)) return t << 8 | i;
	return -1;
}

/* Interned: it names every builtin call (messages), so one copy per builtin,
 * not one per call of an unrolled loop. */
const char *builtin_display(Sema *s, int id)
{
	const Builtin *b = builtin_get(id);
	const char *prefix = b->flags & BF_PY                ? NULL
	                     : b->flags & (BF_TL | BF_METHOD) ? "tl"
	                     : b->flags & BF_MATH             ? "libdevice" /* libdevice-only */
	                     : b->flags & BF_TRITON           ? "triton"
	                     : b->flags & BF_DTYPE            ? "dtype"
	                     : b->flags & BF_DESC             ? "tensor_descriptor"
	                     : b->flags & BF_PYMATH           ? "math"
	                     : b->flags & BF_PACKAGING        ? "packaging.version"
	                     : b->flags & BF_PYSTR            ? "str"
	                     : b->flags & BF_PYDICT           ? "dict"
	                     : b->flags & BF_PYSET            ? "set"
	                                                      : NULL;
	if (!prefix) return b->name;
	char buf[128];
	snprintf(buf, sizeof buf, "%s.%s", prefix, b->name);
	return istr(s, buf);
}

/* ---- binding builtin arguments -------------------------------------------------------- */

typedef struct PSpec {
	char name[32];
	bool required, vararg, kwvar; /* kwvar: **kwargs */
} PSpec;

static int parse_spec(const char *spec, PSpec *out)
{
	int n = 0;
	const char *p = spec;
	while (p && *p && n < BMAX_ARGS) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		PSpec *ps = &out[n++];
		memset(ps, 0, sizeof *ps);
		const char *eq = memchr(p, '=', len);
		size_t nlen = eq ? (size_t)(eq - p) : len;
		if (p[0] == '*' && p[1] == '*') {
			ps->kwvar = true;
			p += 2;
			nlen -= 2;
			len -= 2;
		} else if (*p == '*') {
			ps->vararg = true;
			p++;
			nlen--;
			len--;
		}
		snprintf(ps->name, sizeof ps->name, "%.*s", (int)nlen, p);
		ps->required = !eq && !ps->vararg && !ps->kwvar;
		p = end ? end + 1 : NULL;
	}
	return n;
}

static bool bind_builtin(Sema *s, int id, Call *c, const Value *self, const Value *args, int nargs, const char **kwn,
			 const Value *kw, int nkw, const SrcLoc *locs, const Expr *const *exs)
{
	const Builtin *b = builtin_get(id);
	PSpec ps[BMAX_ARGS];
	int np = parse_spec(b->params, ps);
	int vararg = -1, kwvar = -1, nreq = 0;
	for (int i = 0; i < np; i++) {
		c->pn[i] = istr(s, ps[i].name);
		if (ps[i].vararg) vararg = i;
		if (ps[i].kwvar) kwvar = i;
		if (ps[i].required) nreq++;
	}
	/* positional: receiver first */
	int total = nargs + (self ? 1 : 0);
	int npos_slots = vararg >= 0 ? vararg : kwvar >= 0 ? kwvar : np;
	VEC(Value) rest = {0};
	VEC(SrcLoc) rest_at = {0};
	for (int k = 0; k < total; k++) {
		const Value *v = self ? (k == 0 ? self : &args[k - 1]) : &args[k];
		SrcLoc at = self && k == 0 ? c->loc : (locs ? locs[self ? k - 1 : k] : c->loc);
		const Expr *ex = self && k == 0 ? NULL : (exs ? exs[self ? k - 1 : k] : NULL);
		if (k < npos_slots) {
			c->a[k] = *v;
			c->has[k] = true;
			c->at[k] = at;
			c->ex[k] = ex;
		} else if (vararg >= 0) {
			vec_push(&rest, *v);
			vec_push(&rest_at, at);
		} else {
			if (nreq == np) diag_error(s->d, c->loc, "'%s' expects %d argument%s, got %d", c->name, np, np == 1 ? "" : "s", total);
			else diag_error(s->d, c->loc, "'%s' expects at most %d arguments, got %d", c->name, np, total);
			vec_free(&rest);
			vec_free(&rest_at);
			return false;
		}
	}
	if (vararg >= 0) {
		c->nrest = (int)rest.len;
		c->rest = rest.len ? vec_to_arena(s->a, &rest) : NULL;
		c->rest_at = rest.len ? vec_to_arena(s->a, &rest_at) : NULL;
	}
	vec_free(&rest);
	vec_free(&rest_at);
	for (int k = 0; k < nkw; k++) {
		int slot = -1;
		/* Triton's builtins take the code generator's state as keywords,
		 * which Python code (an aggregate's __init__) passes along */
		if (!strcmp(kwn[k], "_semantic") || !strcmp(kwn[k], "_generator") || !strcmp(kwn[k], "_builder"))
			continue;
		for (int i = 0; i < np; i++)
			if (!ps[i].vararg && !ps[i].kwvar && !strcmp(ps[i].name, kwn[k])) slot = i;
		SrcLoc at = locs ? locs[nargs + k] : c->loc;
		if (slot < 0 && kwvar >= 0) { /* **kwargs collects it */
			if (!c->kwn) {
				c->kwn = ARENA_NEWN(s->a, const char *, nkw);
				c->kwv = ARENA_NEWN(s->a, Value, nkw);
			}
			c->kwn[c->nkw] = kwn[k];
			c->kwv[c->nkw++] = kw[k];
			continue;
		}
		if (slot < 0) {
			diag_error(s->d, at, "unexpected keyword argument '%s' for '%s'", kwn[k], c->name);
			return false;
		}
		if (c->has[slot]) {
			diag_error(s->d, at, "'%s' got multiple values for argument '%s'", c->name, kwn[k]);
			return false;
		}
		c->a[slot] = kw[k];
		c->has[slot] = true;
		c->at[slot] = at;
		c->ex[slot] = exs ? exs[nargs + k] : NULL;
	}
	for (int i = 0; i < np; i++) {
		if (!ps[i].required || c->has[i]) continue;
		if (nreq == np)
			diag_error(s->d, c->loc, "'%s' expects %d argument%s, got %d: '%s' is missing", c->name, np,
				   np == 1 ? "" : "s", total + nkw, ps[i].name);
		else diag_error(s->d, c->loc, "'%s' is missing argument '%s'", c->name, ps[i].name);
		return false;
	}
	return true;
}

/* ---- user functions --------------------------------------------------------------------- */

bool has_decorator(const FuncDef *def, const char *name)
{
	for (int i = 0; i < def->ndecorators; i++) {
		const Expr *d = def->decorators[i];
		if (d->kind == EX_CALL) d = d->func;
		const char *n = d->kind == EX_NAME ? d->name : d->kind == EX_ATTR ? d->attr : NULL;
		if (n && !strcmp(n, name)) return true;
	}
	return false;
}

/* @triton.constexpr_function / @tl.constexpr_function: a function Triton runs as Python */
static bool is_constexpr_function(const FuncDef *def) { return has_decorator(def, "constexpr_function"); }

/* Inlines callee's body with args bound to its parameters; *self_out (when
 * given): the first parameter's binding at the end (an aggregate's __init__
 * builds `self`). */
static Value call_user_impl(Sema *s, Value callee, const Value *args, int nargs, const char **kwn, const Value *kw,
			    int nkw, SrcLoc loc, Value *self_out)
{
	const FuncDef *def = callee.fn;
	if (callee.self) { /* a method bound to its aggregate: self comes first */
		Value *all = ARENA_NEWN(s->a, Value, nargs + 2);
		all[0] = *callee.self;
		for (int i = 0; i < nargs; i++) all[i + 1] = args[i];
		args = all;
		nargs++;
		callee.self = NULL;
	}
	if (!sema_work(s, SEMA_CALL_WORK, loc)) return v_err(); /* f calling g twice, g calling h twice, ... */
	if (def->variadic) {
		diag_error(s->d, loc, "'%s' has a positional-only marker ('/'), which is not supported", def->name);
		return v_err();
	}
	if (s->callstack.len > INLINE_DEPTH_LIMIT) {
		/* Recursion is inlined like any call, as Triton specializes it (on
		 * shapes and constexprs, test_frontend's recursive_reduce): it must
		 * end on a compile-time condition. */
		bool recursive = false;
		for (size_t i = 0; i < s->callstack.len; i++)
			recursive |= s->callstack.data[i] == def;
		if (recursive)
			diag_error(s->d, loc,
				   "recursive call to '%s' nested more than %d deep: recursion must end on a constexpr "
				   "condition (inline depth limit)", def->name, INLINE_DEPTH_LIMIT);
		else
			diag_error(s->d, loc, "calls nested more than %d deep (inline depth limit)", INLINE_DEPTH_LIMIT);
		/* stop there: each caller up the chain may call again (f calling
		 * f twice would otherwise take 2^64 tries, one error each) */
		s->too_much_work = true;
		s->work = (int64_t)SEMA_MAX_WORK + 1;
		/* kept, so that host code tried quietly (a decorator factory's
		 * helper) still fails the compile instead of leaving it empty */
		sema_note_limit(s);
		return v_err();
	}
	int npos = def->nparams - def->nkwonly; /* the rest are keyword-only */
	if (nargs > npos && !def->star) {
		diag_error(s->d, loc, "'%s' takes %d positional argument%s, got %d", def->name, npos, npos == 1 ? "" : "s",
			   nargs);
		return v_err();
	}
	Fn fn;
	fn_init(s, &fn, def, callee.mod, false);
	for (int i = 0; i < callee.ncap; i++) /* a closure (a def in a host function): what it sees there */
		vec_push(&fn.env, callee.cap[i]);
	bool *bound = ARENA_NEWN(s->a, bool, def->nparams + 1);
	Value *vals = ARENA_NEWN(s->a, Value, def->nparams + 1);
	/* what a host def's **kwargs collects */
	Value *xkeys = ARENA_NEWN(s->a, Value, nkw + 1), *xvals = ARENA_NEWN(s->a, Value, nkw + 1);
	int nextra = 0;
	bool ok = true;
	for (int i = 0; i < nargs && i < npos; i++) {
		vals[i] = args[i];
		bound[i] = true;
	}
	if (def->star) /* Triton's *args: the extra positional arguments, as a tuple */
		env_set(&fn.env, def->star, v_tuple(s, nargs > npos ? args + npos : NULL, nargs > npos ? nargs - npos : 0));
	for (int k = 0; k < nkw && ok; k++) {
		int slot = -1;
		for (int i = 0; i < def->nparams; i++)
			if (def->params[i].name == kwn[k] || !strcmp(def->params[i].name, kwn[k])) slot = i;
		if (slot < 0 && def->kwstar) {
			xkeys[nextra] = v_str(kwn[k]);
			xvals[nextra++] = kw[k];
		} else if (slot < 0) {
			diag_error(s->d, loc, "unexpected keyword argument '%s' for '%s'", kwn[k], def->name);
			ok = false;
		} else if (bound[slot]) {
			diag_error(s->d, loc, "'%s' got multiple values for argument '%s'", def->name, kwn[k]);
			ok = false;
		} else {
			vals[slot] = kw[k];
			bound[slot] = true;
		}
	}
	for (int i = 0; i < def->nparams && ok; i++) {
		const Param *p = &def->params[i];
		if (!bound[i]) {
			if (!p->default_val) {
				diag_error(s->d, loc, "missing argument '%s' in call to '%s'", p->name, def->name);
				ok = false;
				break;
			}
			/* host Python, run when the def ran (as the kernel's own defaults) */
			int nops = s->blk ? s->blk->nops : 0;
			s->host_fn++;
			vals[i] = eval_default(s, &fn, def, p->default_val);
			s->host_fn--;
			if (vals[i].kind != V_ERR && s->blk && s->blk->nops != nops) {
				diag_error(s->d, p->default_val->loc,
					   "the default of '%s' runs kernel code (tensor operations); a default is host "
					   "Python, run when '%s' is defined", p->name, def->name);
				vals[i] = v_err();
			}
		}
		/* A tl.constexpr annotation on a helper's parameter does not reject a
		 * tensor: Triton inlines helpers and its tutorial 06 passes offs_m
		 * (a tensor) to `offs_m: tl.constexpr`. */
		if (vals[i].kind == V_ERR) ok = false;
		env_set(&fn.env, p->name, vals[i]);
	}
	if (ok && def->kwstar) env_set(&fn.env, def->kwstar, v_dict_adopt(xkeys, xvals, nextra));
	Value r = v_err();
	if (ok) {
		bool host = is_constexpr_function(def) || callee.ns == VF_HOST;
		s->host_fn += host;
		vec_push(&s->callstack, def);
		size_t d0 = s->d->diags.len;
		int e0 = s->d->nerrors;
		SrcLoc outer = s->user_call;
		if (loc.file != prelude_file_of(s)) s->user_call = loc;
		exec_body(s, &fn, &def->body, true);
		s->user_call = outer;
		s->callstack.len--;
		/* an error inside the inlined body: where it was called from, as
		 * Triton reports both (not for calls inside tile's own prelude) */
		if (s->d->nerrors > e0 && !(s->prelude && s->prelude->ast && loc.file == s->prelude->ast->file))
			diag_note_last_error(s->d, d0, loc, "in '%s', called here", def->name);
		s->host_fn -= host;
		r = fn.has_ret ? fn.retval : v_none();
		if (self_out) {
			Value *v = def->nparams ? env_find(&fn.env, def->params[0].name) : NULL;
			*self_out = v ? *v : v_err();
		}
	}
	fn_free(&fn);
	return r;
}

Value call_user(Sema *s, Value callee, const Value *args, int nargs, const char **kwn, const Value *kw, int nkw,
		SrcLoc loc)
{
	return call_user_impl(s, callee, args, nargs, kwn, kw, nkw, loc, NULL);
}

Value call_init(Sema *s, Value init, Value self, const Value *args, int nargs, const char **kwn, const Value *kw,
		int nkw, SrcLoc loc)
{
	Value out = v_err();
	Value *all = ARENA_NEWN(s->a, Value, nargs + 2);
	all[0] = self;
	for (int i = 0; i < nargs; i++) all[i + 1] = args[i];
	if (!init.fn->nparams) {
		diag_error(s->d, loc, "'__init__' of '%s' takes no 'self' parameter", agg_describe(s, self));
		return v_err();
	}
	Value r = call_user_impl(s, init, all, nargs + 1, kwn, kw, nkw, loc, &out);
	if (r.kind == V_ERR) return r;
	return out;
}

Value prelude_function(Sema *s, int id, SrcLoc loc)
{
	const Builtin *b = builtin_get(id);
	ModScope *p = prelude_scope(s);
	if (!p) return v_err();
	bool found;
	Value f = global_get(s, p, istr(s, b->params[0] == '@' ? b->params + 1 : b->name), loc, &found);
	if (!found || f.kind != V_FUNC) ice("sema", "prelude function '%s' is missing", b->name);
	return f;
}

static Value call_prelude(Sema *s, int id, const Value *self, const Value *args, int nargs, const char **kwn,
			  const Value *kw, int nkw, SrcLoc loc)
{
	const Builtin *b = builtin_get(id);
	Value f = prelude_function(s, id, loc);
	if (f.kind == V_ERR) return f;
	Value *all = ARENA_NEWN(s->a, Value, nargs + 2);
	int n = 0;
	if (self) all[n++] = *self;
	for (int i = 0; i < nargs; i++) all[n++] = args[i];
	if (b->fn) {
		/* a checker runs first (argument kinds, with the user's locations) */
		Call c = {.name = builtin_display(s, id), .loc = loc};
		for (int i = 0; i < n && i < BMAX_ARGS; i++) {
			c.a[i] = all[i];
			c.has[i] = true;
			c.at[i] = loc;
		}
		Value chk = b->fn(s, &c, n);
		if (chk.kind == V_ERR) return chk;
	}
	/* A diagnostic inside the prelude (a static_assert on the arguments) is
	 * about the user's call: it is reported there, not at prelude text, and
	 * only the first error (what follows it inside the prelude is fallout). */
	DiagSink aside, *real = s->d;
	diag_init(&aside);
	aside.max_errors = real->max_errors;
	s->d = &aside;
	Value r = call_user(s, f, all, n, kwn, kw, nkw, loc);
	s->d = real;
	bool seen_error = false;
	for (size_t i = 0; i < aside.diags.len; i++) {
		const Diag *d = &aside.diags.data[i];
		if (d->level == DIAG_ERROR && seen_error) break;
		seen_error |= d->level == DIAG_ERROR;
		bool inside = d->loc.file && d->loc.file == prelude_file_of(s);
		diag_emit(real, d->level, inside ? loc : d->loc, "%s", d->msg);
	}
	diag_free(&aside);
	return r;
}

Value call_value(Sema *s, Fn *fn, Value callee, const Value *args, int nargs, const char **kwn, const Value *kw,
		 int nkw, SrcLoc loc, const SrcLoc *locs, const Expr *const *exs)
{
	switch (callee.kind) {
	case V_ERR: return callee;
	case V_FUNC:
		if (callee.msg && fn && fn->def && sema_is_jit(s, fn->def)) {
			diag_error(s->d, loc, "'%s' is a method without @triton.jit: host code, which a kernel cannot call",
				   callee.msg);
			return v_err();
		}
		return call_user(s, callee, args, nargs, kwn, kw, nkw, loc);
	case V_LAMBDA:
		/* called in the activation that made it: its body reads its free names
		 * as they are bound now, as Python's closures do (a lambda made in a
		 * loop and called after it saw its own iteration's variable) */
		if (fn && callee.made_in == fn->serial)
			return call_lambda_late(s, callee, &fn->env, args, nargs, kwn, kw, nkw, loc);
		return call_lambda(s, callee, args, nargs, kwn, kw, nkw, loc);
	case V_BUILTIN: {
		const Builtin *b = builtin_get(callee.builtin);
		if (b->flags & BF_PRELUDE) return call_prelude(s, callee.builtin, callee.self, args, nargs, kwn, kw, nkw, loc);
		Call c = {.name = builtin_display(s, callee.builtin), .loc = loc, .fn = fn};
		if (!bind_builtin(s, callee.builtin, &c, callee.self, args, nargs, kwn, kw, nkw, locs, exs)) return v_err();
		return b->fn(s, &c, b->extra);
	}
	default:
		if (callee.kind == V_MODULE && class_aggregate(s, callee.mod))
			return agg_construct(s, callee.mod, args, nargs, kwn, kw, nkw, loc);
		if (callee.kind == V_MODULE && class_namedtuple(s, callee.mod))
			return nt_construct(s, callee.mod, args, nargs, kwn, kw, nkw, loc);
		if (callee.kind == V_MODULE && enum_class_kind(s, callee.mod) != ENUM_NONE) { /* Act(1) */
			if (nargs != 1 || nkw) {
				diag_error(s->d, loc, "Enum class '%s' takes one value: '%s(value)'", callee.mod->name,
					   callee.mod->name);
				return v_err();
			}
			return enum_by_value(s, callee.mod, args[0], loc);
		}
		if (callee.kind == V_NS && callee.ns == NS_TYPING_NAMEDTUPLE) {
			diag_error(s->d, loc, "typing.NamedTuple is a class base here: write 'class Name(NamedTuple):' "
				   "with annotated fields");
			return v_err();
		}
		if (callee.kind == V_MODULE && callee.mod->cls)
			diag_error(s->d, loc, "class '%s' cannot be instantiated in a kernel (its @triton.jit functions are "
				   "called as '%s.name(...)')", callee.mod->name, callee.mod->name);
		else
			diag_error(s->d, loc, "%s is not callable", v_describe(s, callee));
		return v_err();
	}
}

/* ---- argument helpers for builtins --------------------------------------------------------- */

static const char *arg_desc(Sema *s, Call *c, int i)
{
	return arena_printf(s->a, "argument '%s' of '%s'", c->pn[i] ? c->pn[i] : "?", c->name);
}

bool arg_tensor(Sema *s, Call *c, int i, ValId *out)
{
	Value v = c->a[i];
	if (v.kind == V_ERR) return false;
	if (v.kind == V_TENSOR) {
		*out = v.id;
		return true;
	}
	if (v.kind == V_CONST && (v.c.kind == CV_INT || v.c.kind == CV_FLOAT || v.c.kind == CV_BOOL)) {
		*out = to_ir_natural(s, v, c->at[i]);
		return *out != 0;
	}
	diag_error(s->d, c->at[i], "%s must be a tensor, got %s", arg_desc(s, c, i), v_describe(s, v));
	return false;
}

static void not_constexpr(Sema *s, Call *c, int i, const char *what)
{
	const Expr *e = c->ex[i];
	if (e && e->kind == EX_NAME && c->a[i].kind == V_TENSOR) diag_error(s->d, c->at[i], "'%s' must be a constexpr here", e->name);
	else diag_error(s->d, c->at[i], "%s must be a constexpr %s, got %s", arg_desc(s, c, i), what, v_describe(s, c->a[i]));
}

bool arg_const_int(Sema *s, Call *c, int i, int64_t *out)
{
	Value v = c->a[i];
	if (v.kind == V_ERR) return false;
	if (v_is_intlike(v) && v.c.u64) { /* its int64 would be negative */
		diag_error(s->d, c->at[i], "%s is out of range: %llu", arg_desc(s, c, i), (unsigned long long)(uint64_t)v.c.i);
		return false;
	}
	if (v_is_intlike(v)) {
		*out = v.c.i;
		return true;
	}
	not_constexpr(s, c, i, "int");
	return false;
}

bool arg_bool(Sema *s, Call *c, int i, bool *out)
{
	Value v = c->a[i];
	if (v.kind == V_ERR) return false;
	if (v.kind == V_CONST) {
		*out = const_truthy(v.c);
		return true;
	}
	not_constexpr(s, c, i, "bool");
	return false;
}

bool arg_dtype(Sema *s, Call *c, int i, Type *out)
{
	Value v = c->a[i];
	if (v.kind == V_ERR) return false;
	if (v_is_foreign_dtype(v)) {
		foreign_dtype_error(s, v, c->at[i]);
		return false;
	}
	if (v.kind == V_DTYPE) {
		*out = v.ty;
		return true;
	}
	if (v.kind == V_CONST && v.c.kind == CV_DTYPE) {
		*out = type_scalar(v.c.dtype);
		return true;
	}
	if (v.kind == V_CONST && v.c.kind == CV_STR) {
		DType d;
		if (dtype_from_name(v.c.s, &d)) {
			*out = type_scalar(d);
			return true;
		}
	}
	diag_error(s->d, c->at[i], "%s must be a dtype, got %s", arg_desc(s, c, i), v_describe(s, v));
	return false;
}

/* A shape entry, before it is narrowed to int32 (1 << 32 is not 0). */
static bool shape_dim(Sema *s, ConstVal x, SrcLoc loc, int32_t *out)
{
	if (x.u64 || x.i < INT32_MIN || x.i > INT32_MAX) {
		char num[32];
		const_str(x, num, sizeof num);
		diag_error(s->d, loc, "tile dimension %s is out of range", num);
		return false;
	}
	*out = (int32_t)x.i;
	return true;
}

bool arg_shape(Sema *s, Call *c, int i, int32_t *shape, int *rank)
{
	Value v = c->a[i];
	if (v.kind == V_ERR) return false;
	if (v.kind == V_TUPLE) {
		if (v.n > TIR_MAX_RANK) {
			diag_error(s->d, c->at[i], "tiles of rank %d are not supported (at most %d)", v.n, TIR_MAX_RANK);
			return false;
		}
		for (int k = 0; k < v.n; k++) {
			if (!v_is_intlike(v.items[k])) {
				diag_error(s->d, c->at[i], "%s must be a tuple of constexpr ints, got an entry of type %s",
					   arg_desc(s, c, i), v_describe(s, v.items[k]));
				return false;
			}
			if (!shape_dim(s, v.items[k].c, c->at[i], &shape[k]))
				return false;
		}
		*rank = v.n;
	} else if (v_is_intlike(v)) {
		if (!shape_dim(s, v.c, c->at[i], &shape[0]))
			return false;
		*rank = 1;
	} else {
		not_constexpr(s, c, i, "shape");
		return false;
	}
	return check_tile_shape(s, *rank, shape, c->at[i]);
}

const char *arg_str(Sema *s, Call *c, int i)
{
	Value v = c->a[i];
	if (v.kind == V_CONST && v.c.kind == CV_STR) return v.c.s;
	if (v.kind == V_CONST && v.c.kind == CV_NONE) return "";
	if (v.kind != V_ERR) diag_error(s->d, c->at[i], "%s must be a string, got %s", arg_desc(s, c, i), v_describe(s, v));
	return NULL;
}

int norm_axis(Sema *s, int64_t axis, int rank, SrcLoc loc)
{
	int64_t a = axis < 0 ? axis + rank : axis;
	if (a < 0 || a >= rank) {
		diag_error(s->d, loc, "axis %lld is out of range for a tensor of rank %d", (long long)axis, rank);
		return -1;
	}
	return (int)a;
}

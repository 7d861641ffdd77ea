/* sema_flat.c: a module's kernels: the statements they can be defined in
 * (module-level if/try branches, host functions, classes) flattened in source
 * order, the call forms of the decorators, and sema_list_kernels. */
#include <stdlib.h>
#include <string.h>

#include "sema/sema_int.h"
#include "sema/sema_kernel.h"

/* Whether an annotation's last name is `name`: `tl.constexpr`, or written as a
 * string, `BLOCK: "tl.constexpr"`, which Triton reads as text */
static bool annotation_names(const Expr *ann, const char *name)
{
	const char *n = ann && ann->kind == EX_STR ? agg_ann_name(ann) : expr_last_name(ann);
	return ann && ann->kind != EX_CALL && n && !strcmp(n, name);
}

static bool is_constexpr_annotation(const Expr *ann) { return annotation_names(ann, "constexpr"); }

/* A kernel parameter's annotation naming tl.constexpr through an alias
 * (Fast-LLM's `n_cols: tl_constexpr`, `tl_constexpr = tl.constexpr` in another
 * module): Triton reads the evaluated annotation, so tile evaluates a name it
 * does not read as constexpr, quietly, in the kernel's module. */
bool param_is_constexpr(Sema *s, ModScope *ms, const Expr *ann)
{
	if (is_constexpr_annotation(ann)) return true;
	if (!ann || !ms || (ann->kind != EX_NAME && ann->kind != EX_ATTR)) return false;
	const char *n = quiet_builtin_name(s, ms, ann);
	return n && !strcmp(n, "constexpr");
}

/* `x_ptr: tl.const` (or "tl.const"): a pointer to const, which Triton's launcher
 * types `*k...` and its store and atomics refuse */
bool param_is_const_pointer(const Expr *ann) { return annotation_names(ann, "const"); }

/* `s: tl.int64` (or "tl.int64"): the scalar dtype that Triton's launcher gives
 * the argument whatever its value; only the explicit widths and bool (u1), as
 * Triton's KernelParam.annotation_type, so `n: int` stays typed by the value.
 * A name that is no dtype's (npbench's `z_real: tl_float`, `tl_float =
 * tl.float64` in another module) is evaluated quietly in the kernel's module, as
 * Triton reads the evaluated annotation, the dtype object itself. */
static DType runtime_annotation_dtype(Sema *s, ModScope *ms, const Expr *ann)
{
	const char *n = !ann || ann->kind == EX_CALL ? NULL
	                : ann->kind == EX_STR         ? agg_ann_name(ann)
	                                              : expr_last_name(ann);
	DType d;
	if (n && dtype_from_name(n, &d))
		return d != DT_F8E4M3 && d != DT_F8E5M2 && (strcmp(n, dtype_name(d)) == 0 || strcmp(n, "bool") == 0)
		               ? d
		               : DT_VOID;
	if (!n || !ms || (ann->kind != EX_NAME && ann->kind != EX_ATTR)) return DT_VOID;
	bool failed;
	Value v = quiet_module_eval(s, ms, ann, &failed);
	if (failed || v.kind != V_DTYPE || v.n > 0 || v_is_foreign_dtype(v)) return DT_VOID;
	d = v.ty.dt;
	return d == DT_VOID || d == DT_PTR || d == DT_F8E4M3 || d == DT_F8E5M2 ? DT_VOID : d;
}

/* The call forms of the decorators: `k = triton.jit(f)`, `k =
 * triton.heuristics(...)(triton.jit(f))`, `k = triton.autotune(...)(f)`, with f
 * a def above. Returns f as a FuncDef named k whose decorators are the calls'
 * (outermost first, then f's own), so it is a kernel like a decorated def;
 * NULL when st is not such an assignment. */
static const FuncDef *call_form_kernel(Sema *s, const Module *m, int idx)
{
	const Stmt *st = m->body.items[idx];
	if (st->kind != ST_ASSIGN || st->ntargets != 1 || st->targets[0]->kind != EX_NAME) return NULL;
	VEC(Expr *) decos = {0};
	const Expr *e = st->assign_value;
	while (e->kind == EX_CALL && e->nargs >= 1) {
		if (e->func->kind == EX_CALL && e->nargs == 1 && !e->nkwargs) {
			vec_push(&decos, e->func); /* heuristics(d)(x): the decorator is the inner call */
		} else if (e->func->kind == EX_NAME && e->nargs == 1 && !e->nkwargs && deco_alias(m, e->func) != e->func) {
			vec_push(&decos, (Expr *)deco_alias(m, e->func)); /* my_autotune(f) */
		} else if ((e->func->kind == EX_NAME || e->func->kind == EX_ATTR) && !strcmp(expr_last_name(e->func), "jit") &&
			   e->nargs == 1) {
			Expr *d = e->func; /* jit(f, do_not_specialize=...) is @jit(do_not_specialize=...) */
			if (e->nkwargs) {
				d = ARENA_NEW(s->a, Expr);
				*d = *e;
				d->nargs = 0;
			}
			vec_push(&decos, d);
		} else {
			break;
		}
		e = e->args[0];
	}
	/* the latest binding of the name: a def, or an earlier call form (unsloth
	 * writes `k = triton.jit(k)` and then `k = triton.heuristics(...)(k)`) */
	const FuncDef *f = NULL;
	for (int i = idx - 1; e->kind == EX_NAME && i >= 0 && !f; i--) {
		const Stmt *b = m->body.items[i];
		if (b->kind == ST_FUNCDEF && !strcmp(b->func->name, e->name)) f = b->func;
		else if (b->kind == ST_ASSIGN && b->ntargets == 1 && b->targets[0]->kind == EX_NAME &&
			 !strcmp(b->targets[0]->name, e->name))
			f = call_form_kernel(s, m, i);
	}
	FuncDef *k = NULL;
	if (f && decos.len) {
		k = ARENA_NEW(s->a, FuncDef);
		*k = *f;
		k->name = st->targets[0]->name;
		k->ndecorators = (int)decos.len + f->ndecorators;
		k->decorators = ARENA_NEWN(s->a, Expr *, k->ndecorators);
		memcpy(k->decorators, decos.data, sizeof(Expr *) * decos.len);
		if (f->ndecorators) memcpy(k->decorators + decos.len, f->decorators, sizeof(Expr *) * (size_t)f->ndecorators);
		if (!sema_is_jit(s, k)) k = NULL;
	}
	vec_free(&decos);
	return k;
}

/* The kernel (a @jit/@autotune/@heuristics def or a call form) that module
 * statement idx defines, or NULL. */
static const FuncDef *kernel_at(Sema *s, const Module *m, int idx)
{
	const Stmt *st = m->body.items[idx];
	if (st->kind == ST_FUNCDEF) return sema_is_jit(s, st->func) ? st->func : NULL;
	return call_form_kernel(s, m, idx);
}

typedef VEC(Stmt *) StmtVec;
typedef VEC(int) IntVec;
typedef VEC(ModScope *) ScopeVec;

typedef struct FlatBuild {
	StmtVec st;
	IntVec g, b;
	ScopeVec sc;
} FlatBuild;

static void flat_push(FlatBuild *fb, Stmt *x, int grp, int br, ModScope *sc)
{
	vec_push(&fb->st, x);
	vec_push(&fb->g, grp);
	vec_push(&fb->b, br);
	vec_push(&fb->sc, sc);
}

/* 1 or 0 when a module-level condition is a constexpr, -1 when it is host
 * Python that sema cannot evaluate */
static int module_cond(Sema *s, ModScope *ms, const Expr *cond)
{
	Quiet q;
	quiet_begin(s, &q);
	Value c = eval_module_expr(s, ms, cond);
	bool known = !quiet_end(s, &q, NULL) && c.kind == V_CONST;
	return known ? const_truthy(c.c) : -1;
}

static bool kernel_def_syntax(const FuncDef *f)
{
	for (int i = 0; i < f->ndecorators; i++)
		if (is_kernel_decorator_name(expr_last_name(f->decorators[i]))) return true;
	return false;
}

/* whether a kernel is defined anywhere in body (a def decorated @jit,
 * @autotune or @heuristics, in nested blocks too) */
static bool defines_kernel(StmtList body)
{
	for (int i = 0; i < body.n; i++) {
		const Stmt *x = body.items[i];
		switch (x->kind) {
		case ST_FUNCDEF:
			if (kernel_def_syntax(x->func) || defines_kernel(x->func->body)) return true;
			break;
		case ST_IF:
		case ST_WHILE:
		case ST_WITH:
			if (defines_kernel(x->body) || defines_kernel(x->orelse)) return true;
			break;
		case ST_FOR:
			if (defines_kernel(x->for_body) || defines_kernel(x->for_orelse)) return true;
			break;
		case ST_TRY:
			if (defines_kernel(x->try_body) || defines_kernel(x->try_else) || defines_kernel(x->try_final))
				return true;
			for (int h = 0; h < x->nhandlers; h++)
				if (defines_kernel(x->handlers[h])) return true;
			break;
		default: break;
		}
	}
	return false;
}

static void flatten_stmts(Sema *s, ModScope *ms, Flat *f, StmtList body, int grp, int br, FlatBuild *fb);

/* The kernels defined in host function def (its other statements bind only
 * its locals): each is its own alternative, resolving names in a scope of
 * the function's locals whose parent is the enclosing scope. */
static void flatten_host_def(Sema *s, ModScope *ms, Flat *f, const FuncDef *def, FlatBuild *fb)
{
	if (!defines_kernel(def->body)) return;
	Module *m = ARENA_NEW(s->a, Module);
	m->file = ms->ast ? ms->ast->file : NULL;
	m->body = def->body;
	ModScope *fs = modscope_new(s, m, def->name);
	fs->parent = ms;
	fs->importer = ms->importer;
	FlatBuild inner = {0};
	Flat tmp = *f;
	flatten_stmts(s, fs, &tmp, def->body, 0, 0, &inner);
	f->ngrp = tmp.ngrp;
	f->nbr = tmp.nbr;
	for (size_t i = 0; i < inner.st.len; i++) {
		Stmt *x = inner.st.data[i];
		if (x->kind == ST_FUNCDEF && kernel_def_syntax(x->func))
			flat_push(fb, x, ++f->ngrp, ++f->nbr, inner.sc.data[i]);
	}
	vec_free(&inner.st);
	vec_free(&inner.g);
	vec_free(&inner.b);
	vec_free(&inner.sc);
}

/* The class scope that module statement st (an ST_CLASS) made */
static ModScope *class_scope_of(ModScope *ms, const Stmt *st)
{
	for (size_t i = 0; i < ms->globals.len; i++) {
		const Global *g = &ms->globals.data[i];
		if (g->stmt == st && g->kind == GB_VALUE && g->val.kind == V_MODULE) return g->val.mod;
	}
	return NULL;
}

typedef VEC(const char *) NameVec;

/* The kernels of class `cls` that class scope c (cls or one of its bases,
 * in MRO order) defines, those of a name seen before left out: each as a
 * def named Class.name, its names resolving in c. */
static void flatten_class(Sema *s, ModScope *cls, ModScope *c, int grp, int br, FlatBuild *fb, NameVec *seen, int depth)
{
	if (depth > 16 || c->mro_busy) return;
	for (size_t i = 0; i < c->globals.len; i++) {
		const Global *g = &c->globals.data[i];
		bool dup = false;
		for (size_t k = 0; k < seen->len && !dup; k++) dup = seen->data[k] == g->name;
		for (size_t k = i + 1; k < c->globals.len && !dup; k++) dup = c->globals.data[k].name == g->name;
		if (dup) continue;
		vec_push(seen, g->name);
		if (g->kind != GB_FUNC || !sema_is_jit(s, g->fn)) continue;
		FuncDef *fn = ARENA_NEW(s->a, FuncDef);
		*fn = *g->fn;
		fn->name = istr(s, arena_printf(s->a, "%s.%s", cls->name, g->fn->name));
		Stmt *x = ARENA_NEW(s->a, Stmt);
		*x = *g->stmt;
		x->func = fn;
		flat_push(fb, x, grp, br, c);
	}
	ModScope *bases[16];
	int n = class_bases(s, c, bases, 16);
	c->mro_busy = true;
	for (int i = 0; i < n; i++) flatten_class(s, cls, bases[i], grp, br, fb, seen, depth + 1);
	c->mro_busy = false;
}

/* The kernels defined in the host methods of a module-level class (a unittest
 * TestCase's method defining its kernels, as tritonparse's GPU tests do): as
 * for a host function, each resolves names in the method's locals, then the
 * module's (ms), not the class's, as a method body sees them in Python. The
 * class's own @jit functions are flatten_class's; nested classes stay host code. */
static void flatten_class_methods(Sema *s, ModScope *ms, Flat *f, StmtList body, FlatBuild *fb)
{
	for (int i = 0; i < body.n; i++) {
		const Stmt *x = body.items[i];
		if (x->kind == ST_FUNCDEF && !kernel_def_syntax(x->func)) flatten_host_def(s, ms, f, x->func, fb);
		else if (x->kind == ST_UNSUPPORTED && x->host_def) flatten_host_def(s, ms, f, x->host_def, fb);
	}
}

static void flatten_stmts(Sema *s, ModScope *ms, Flat *f, StmtList body, int grp, int br, FlatBuild *fb)
{
	for (int i = 0; i < body.n; i++) {
		Stmt *x = body.items[i];
		int xg = grp ? grp : ++f->ngrp;
		if (x->kind == ST_IF) {
			int t = module_cond(s, ms, x->cond);
			int bthen = ++f->nbr, belse = ++f->nbr;
			if (t != 0) flatten_stmts(s, ms, f, x->body, xg, bthen, fb);
			if (t != 1) flatten_stmts(s, ms, f, x->orelse, xg, belse, fb);
		} else if (x->kind == ST_TRY) {
			int bt = ++f->nbr;
			flatten_stmts(s, ms, f, x->try_body, xg, bt, fb);
			flatten_stmts(s, ms, f, x->try_else, xg, bt, fb);
			for (int h = 0; h < x->nhandlers; h++) flatten_stmts(s, ms, f, x->handlers[h], xg, ++f->nbr, fb);
			flatten_stmts(s, ms, f, x->try_final, grp, br, fb);
		} else {
			flat_push(fb, x, grp, br, ms);
			if (x->kind == ST_FUNCDEF && !kernel_def_syntax(x->func)) flatten_host_def(s, ms, f, x->func, fb);
			else if (x->kind == ST_UNSUPPORTED && x->host_def) flatten_host_def(s, ms, f, x->host_def, fb);
			ModScope *cs = x->kind == ST_CLASS ? class_scope_of(ms, x) : NULL;
			if (cs) {
				NameVec seen = {0};
				flatten_class(s, cs, cs, grp, br, fb, &seen, 0);
				vec_free(&seen);
			}
			if (x->kind == ST_CLASS)
				flatten_class_methods(s, ms, f, x->cls->body, fb);
		}
	}
}

static int cmp_name_at(const void *a, const void *b)
{
	const NameAt *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

/* What binds_name tests: the one name a def or a plain assignment binds. */
static const char *bound_name(const Stmt *st)
{
	if (st->kind == ST_FUNCDEF) return st->func->name;
	if (st->kind == ST_ASSIGN && st->ntargets == 1 && st->targets[0]->kind == EX_NAME) return st->targets[0]->name;
	return NULL;
}

/* f->binds, so that last_binding looks at the statements binding its name only
 * (scanning all of them for each kernel was quadratic: 200k kernels in one
 * file took minutes to list) */
static void index_bindings(Sema *s, Flat *f)
{
	f->binds = ARENA_NEWN(s->a, NameAt, f->mod.body.n + 1);
	f->nbinds = 0;
	for (int i = 0; i < f->mod.body.n; i++) {
		const char *n = bound_name(f->mod.body.items[i]);
		if (n) f->binds[f->nbinds++] = (NameAt){n, i};
	}
	qsort(f->binds, (size_t)f->nbinds, sizeof *f->binds, cmp_name_at);
}

void flatten_module(Sema *s, ModScope *ms, const Module *m, Flat *f)
{
	memset(f, 0, sizeof *f);
	FlatBuild fb = {0};
	flatten_stmts(s, ms, f, m->body, 0, 0, &fb);
	f->mod.file = m->file;
	f->mod.body.n = (int)fb.st.len;
	f->mod.body.items = fb.st.len ? vec_to_arena(s->a, &fb.st) : NULL;
	f->grp = fb.g.len ? vec_to_arena(s->a, &fb.g) : NULL;
	f->br = fb.b.len ? vec_to_arena(s->a, &fb.b) : NULL;
	f->scope = fb.sc.len ? vec_to_arena(s->a, &fb.sc) : NULL;
	vec_free(&fb.st);
	vec_free(&fb.g);
	vec_free(&fb.b);
	vec_free(&fb.sc);
	index_bindings(s, f);
}

/* Index of the statement that binds `name` for good (a def or an assignment
 * to it), or -1: the last one, except that a binding in a branch of a
 * module-level if/try does not displace a kernel when it is an alternative
 * to it (the branches of one if/try: the first branch that makes the name a
 * kernel wins, `if HAS_TRITON: @triton.jit def k ... else: def k: <stub>`)
 * or when it is no kernel itself (`if HAS_X: k = torch.compile(k)`, the
 * kernel before the if stands), as Python takes one branch and tile takes
 * the one that compiles. A branch that rebinds the kernel to a kernel
 * (`if not _is_cpu: k = my_autotune(k)`) displaces it. */
static int last_binding(Sema *s, const Flat *f, const char *name)
{
	int lo = 0, hi = f->nbinds, found = -1;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (strcmp(f->binds[mid].name, name) < 0) lo = mid + 1;
		else hi = mid;
	}
	for (int k = lo; k < f->nbinds && !strcmp(f->binds[k].name, name); k++) {
		int i = f->binds[k].idx;
		if (found >= 0 && f->grp[i] && kernel_at(s, &f->mod, found) &&
		    ((f->grp[i] == f->grp[found] && f->br[i] != f->br[found]) || !kernel_at(s, &f->mod, i)))
			continue;
		found = i;
	}
	return found;
}

const FuncDef *find_kernel(Sema *s, const Flat *f, const char *name, ModScope **scope)
{
	int i = last_binding(s, f, name);
	if (i < 0) return NULL;
	const Stmt *st = f->mod.body.items[i];
	*scope = f->scope[i];
	return st->kind == ST_FUNCDEF ? st->func : kernel_at(s, &f->mod, i);
}

static void do_not_specialize_list(Sema *s, const FuncDef *fn, KernelParamInfo *ps, int n)
{
	(void)s;
	for (int i = 0; i < fn->ndecorators; i++) {
		const Expr *d = fn->decorators[i];
		if (d->kind != EX_CALL) continue;
		for (int k = 0; k < d->nkwargs; k++) {
			bool align = !strcmp(d->kwargs[k].name, "do_not_specialize_on_alignment");
			if (!align && strcmp(d->kwargs[k].name, "do_not_specialize")) continue;
			const Expr *l = d->kwargs[k].value;
			if (l->kind != EX_LIST && l->kind != EX_TUPLE) continue;
			for (int j = 0; j < l->nitems; j++) {
				const Expr *it = l->items[j];
				for (int p = 0; p < n; p++) {
					if ((it->kind == EX_STR && !strcmp(it->str, ps[p].name)) || (it->kind == EX_INT && it->ival == p)) {
						if (align) ps[p].no_align_spec = true;
						else ps[p].do_not_specialize = true;
					}
				}
			}
		}
	}
}

/* The names bound in scope sc and the scopes around it (a class body, a host
 * function, the module), for KernelInfo.scope_names; kernels of one scope share
 * the list (*last caches the previous scope's). */
typedef struct ScopeNames {
	const ModScope *sc;
	const char **names;
	int n;
} ScopeNames;

static void scope_names(SemaCtx *c, const ModScope *sc, KernelInfo *k, ScopeNames *last)
{
	if (last->sc != sc) {
		size_t n = 0;
		for (const ModScope *p = sc; p; p = p->parent) n += p->globals.len;
		const char **names = ARENA_NEWN(c->arena, const char *, n + 1);
		int j = 0;
		for (const ModScope *p = sc; p; p = p->parent)
			for (size_t g = 0; g < p->globals.len; g++)
				if (strcmp(p->globals.data[g].name, "*")) names[j++] = p->globals.data[g].name;
		*last = (ScopeNames){sc, names, j};
	}
	k->scope_names = last->names;
	k->nscope_names = last->n;
}

int sema_list_kernels(SemaCtx *c, const Module *m, KernelInfo **out)
{
	Sema s;
	sema_setup(&s, c);
	s.f = tir_func_new(c->arena, "scratch");
	s.blk = s.f->entry;
	ModScope *ms = modscope_new(&s, m, "__main__");
	s.main_mod = ms;
	Flat flat;
	flatten_module(&s, ms, m, &flat);
	VEC(KernelInfo) ks = {0};
	ScopeNames last_names = {0};
	for (int i = 0; i < flat.mod.body.n; i++) {
		const Stmt *st = flat.mod.body.items[i];
		const FuncDef *fn = kernel_at(&s, &flat.mod, i);
		if (!fn || last_binding(&s, &flat, fn->name) != i) continue; /* rebound later: the last one counts */
		KernelInfo k = {.name = fn->name, .nparams = fn->nparams, .loc = st->loc};
		scope_names(c, flat.scope[i], &k, &last_names);
		k.params = ARENA_NEWN(c->arena, KernelParamInfo, fn->nparams ? fn->nparams : 1);
		for (int p = 0; p < fn->nparams; p++) {
			KernelParamInfo *pi = &k.params[p];
			pi->name = fn->params[p].name;
			pi->loc = fn->params[p].loc;
			pi->is_constexpr = param_is_constexpr(&s, flat.scope[i], fn->params[p].annotation);
			if (!pi->is_constexpr)
				pi->ann_dt = (uint8_t)runtime_annotation_dtype(&s, flat.scope[i], fn->params[p].annotation);
			if (fn->params[p].default_val) {
				/* quietly: a default built by host Python (torch.finfo(...).min)
				 * matters only if the caller leaves the parameter unbound, and
				 * then sema reports it when it specializes */
				Fn tmp;
				fn_init(&s, &tmp, NULL, flat.scope[i], false);
				Quiet q;
				quiet_begin(&s, &q);
				s.host_fn++; /* host Python, as when the def runs */
				Value v = eval_default(&s, &tmp, fn, fn->params[p].default_val);
				s.host_fn--;
				bool failed = quiet_end(&s, &q, NULL);
				fn_free(&tmp);
				size_t nerr = (size_t)c->diags->nerrors;
				if (failed || v.kind == V_ERR) { /* V_ERR: a global that failed before, silently */
					pi->has_default = true;
					pi->default_val = (ConstVal){.kind = CV_NONE};
				} else if (v.kind == V_CONST && !v_is_enum_member(v)) {
					pi->has_default = true;
					pi->default_val = v.c;
				} else if (v_dtype_is_const(v)) {
					pi->has_default = true;
					pi->default_val = (ConstVal){.kind = CV_DTYPE, .dtype = (DType)v.ty.dt};
				} else if (v.kind == V_LAMBDA || v.kind == V_FUNC || v.kind == V_BUILTIN || v.kind == V_TUPLE ||
					   v.kind == V_DICT || v_is_enum_member(v)) {
					/* a compile-time default that is no ConstVal: sema evaluates it
					 * when the parameter is left out; a host can name it only when
					 * it is a name of the module */
					pi->has_default = true;
					pi->default_object = true;
					const char *name = dotted_name_text(c->arena, fn->params[p].default_val);
					pi->default_val = name ? (ConstVal){.kind = CV_NAME, .s = name} : (ConstVal){.kind = CV_NONE};
				} else if ((size_t)c->diags->nerrors == nerr) {
					diag_error(c->diags, fn->params[p].default_val->loc, "the default of '%s' must be a constexpr",
						   pi->name);
				}
			}
		}
		do_not_specialize_list(&s, fn, k.params, fn->nparams);
		/* another kernel's decorator must not stop this one: errors in
		 * decorators are reported when that kernel is compiled */
		KDeco kd;
		Quiet q;
		Diag first;
		quiet_begin(&s, &q);
		bool deco_ok = kernel_decorators(&s, flat.scope[i], fn, &kd);
		if (quiet_end(&s, &q, &first)) {
			deco_ok = false;
			k.deco_error = first.rendered ? first.rendered
						      : arena_printf(c->arena, "%s:%d:%d: error: %s\n",
								     first.loc.file ? first.loc.file->name : "?",
								     first.loc.line, first.loc.col,
								     first.msg ? first.msg : "error");
		}
		k.deco_note = kd.unevaluated;
		if (deco_ok) {
			k.nconfigs = kd.nconfigs;
			k.configs = kd.configs;
			for (int h = 0; h < kd.nheurs; h++)
				k.launch_heuristic |= param_index(fn, kd.heurs[h].name) < 0 && is_launch_option(kd.heurs[h].name);
			k.prunes = kd.prune.kind != 0 || kd.perf.kind != 0 || kd.prune_why;
			for (int p = 0; p < fn->nparams; p++) {
				KernelParamInfo *pi = &k.params[p];
				const KernelConfigArg *ca = find_config_arg(&kd, pi->name);
				if (find_heur(&kd, pi->name)) {
					pi->heuristic = true;
					pi->has_default = true;
					pi->default_val = (ConstVal){.kind = CV_NONE};
				} else if (ca) {
					pi->autotuned = true;
					pi->has_default = true;
					pi->default_val = ca->val;
				}
			}
		}
		vec_push(&ks, k);
	}
	int n = (int)ks.len;
	*out = n ? vec_to_arena(c->arena, &ks) : NULL;
	vec_free(&ks);
	sema_teardown(&s);
	return n;
}

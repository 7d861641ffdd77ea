/* sema_scope.c: module scopes, name resolution.
 *
 * Module-level names are recorded when a module is first seen and evaluated
 * lazily on first use (a .py file may hold host code that a kernel never
 * touches: `import torch` only fails if the kernel uses `torch`). Evaluating
 * global k sees only the bindings before it, as Python's top-to-bottom
 * execution would (`fn = triton.jit(fn)` refers to the def above it).
 */
#include <stdlib.h>
#include <string.h>

#include "sema/sema_int.h"

/* ---- module scopes --------------------------------------------------------------- */


static const char *root_of(Sema *s, const char *dotted)
{
	const char *dot = strchr(dotted, '.');
	if (!dot) return dotted;
	return intern(s->c->names, dotted, (size_t)(dot - dotted));
}

/* Module-level if/try: the bindings in their branches are alternatives (one
 * group per outermost if/try). A name bound there is looked up by trying
 * the alternatives in source order, skipping an if-branch whose conditions
 * evaluate to constexprs that rule it out, and taking the first that
 * evaluates: the usual `try: from A import f / except: from B import f` and
 * `if version >= ...:` import idioms resolve as they would in Python, with
 * host-only conditions (version checks) treated as unknown. */
typedef struct Scan {
	int alt;            /* 0 outside module-level if/try */
	const Guard *guards; /* conditions on the way to this branch */
	int nguards;
	const TryBody *try_body; /* the innermost try body on the way */
} Scan;

static void add_binding(Sema *s, ModScope *m, const Scan *sc, Global g)
{
	g.alt = sc->alt;
	g.guards = sc->guards;
	g.nguards = sc->nguards;
	g.try_body = sc->try_body;
	vec_push(&m->globals, g);
}

/* `NAME = value`, and the unpacking `A, B = 0.9, 0.999` (or `A, B = f()`:
 * each name is bound to value[i]) */
static void scan_assign_target(Sema *s, ModScope *m, const Scan *sc, const Stmt *st, const Expr *t, const Expr *value)
{
	if (t->kind == EX_NAME) {
		add_binding(s, m, sc, (Global){.name = t->name, .kind = GB_EXPR, .stmt = st, .expr = value, .loc = t->loc});
		return;
	}
	if (t->kind == EX_ATTR && t->obj->kind == EX_NAME && !sc->alt && !sc->nguards) {
		/* Cfg.BLOCK = 64, helpers.SCALE = tl.constexpr(4): not a binding of
		 * this scope, but of what Cfg names, looked up when it is read */
		AttrSet *a = ARENA_NEW(s->a, AttrSet);
		*a = (AttrSet){m, t, value, s->attr_sets};
		s->attr_sets = a;
		return;
	}
	if (t->kind != EX_TUPLE && t->kind != EX_LIST) return;
	bool literal = (value->kind == EX_TUPLE || value->kind == EX_LIST) && value->nitems == t->nitems;
	for (int i = 0; i < t->nitems; i++) {
		const Expr *v = literal ? value->items[i] : NULL;
		if (!v) {
			Expr *idx = ARENA_NEW(s->a, Expr);
			*idx = (Expr){.kind = EX_INT, .loc = t->items[i]->loc, .ival = i};
			Expr *sub = ARENA_NEW(s->a, Expr);
			*sub = (Expr){.kind = EX_SUBSCRIPT, .loc = t->items[i]->loc, .base = (Expr *)value, .nindex = 1};
			sub->index = ARENA_NEWN(s->a, Expr *, 1);
			sub->index[0] = idx;
			v = sub;
		}
		scan_assign_target(s, m, sc, st, t->items[i], v);
	}
}

static void scan_stmts(Sema *s, ModScope *m, const Scan *sc, StmtList body);

/* A top-level statement Python runs at import that rebinds names: a `for`
 * loop building a config list, `configs += [...]`, `configs.append(...)`,
 * `table[k] = v`.
 * Each name it binds gets a GB_STMT binding. Inside a module-level if/try
 * such statements stay unrun: a branch whose host-only condition sema cannot
 * decide would append configs Python might not. */
static void scan_host_stmt(Sema *s, ModScope *m, const Scan *sc, const Stmt *st)
{
	if (sc->alt || m->cls) return;
	NameList names = {0};
	StmtList one = {.n = 1, .items = (Stmt **)&st};
	host_bound_names(&one, &names);
	for (size_t i = 0; i < names.len; i++)
		add_binding(s, m, sc, (Global){.name = names.data[i], .kind = GB_STMT, .stmt = st, .loc = st->loc});
	vec_free(&names);
}

/* A class defined at module level: a scope of its own for its body (the
 * class value is a V_MODULE of that scope). A class nested in a class is
 * host code kernels cannot use. */
static void scan_class(Sema *s, ModScope *m, const Scan *sc, const Stmt *st)
{
	const ClassDef *cd = st->cls;
	if (m->cls) {
		Value pv = {.kind = V_POISON,
			    .msg = arena_printf(s->a, "'%s.%s' is a class nested in class '%s': host code, which kernels "
					      "cannot use", m->name, cd->name, m->name)};
		add_binding(s, m, sc, (Global){.name = cd->name, .kind = GB_VALUE, .stmt = st, .val = pv, .loc = st->loc});
		return;
	}
	Module *body = ARENA_NEW(s->a, Module);
	body->file = m->ast ? m->ast->file : NULL;
	body->body = cd->body;
	ModScope *cs = ARENA_NEW(s->a, ModScope);
	cs->ast = body;
	cs->name = cd->name;
	cs->cls = cd;
	cs->parent = m;
	cs->importer = m->importer;
	Scan top = {0, NULL, 0, NULL};
	scan_stmts(s, cs, &top, cd->body);
	cs->next = s->mods;
	s->mods = cs;
	Value v = {.kind = V_MODULE, .mod = cs};
	add_binding(s, m, sc, (Global){.name = cd->name, .kind = GB_VALUE, .stmt = st, .val = v, .loc = st->loc});
}

/* The branches of an if/elif/else chain, each with its guards */
static void scan_if(Sema *s, ModScope *m, const Scan *sc, const Stmt *st)
{
	Guard *g = ARENA_NEWN(s->a, Guard, sc->nguards + 1);
	if (sc->nguards) memcpy(g, sc->guards, sizeof(Guard) * (size_t)sc->nguards);
	g[sc->nguards] = (Guard){st->cond, true, m->globals.len};
	Scan in = {sc->alt, g, sc->nguards + 1, sc->try_body};
	scan_stmts(s, m, &in, st->body);
	Guard *ge = ARENA_NEWN(s->a, Guard, sc->nguards + 1);
	memcpy(ge, g, sizeof(Guard) * (size_t)(sc->nguards + 1));
	ge[sc->nguards].want = false;
	Scan el = {sc->alt, ge, sc->nguards + 1, sc->try_body};
	scan_stmts(s, m, &el, st->orelse);
}

static void scan_stmts(Sema *s, ModScope *m, const Scan *sc, StmtList body)
{
	for (int i = 0; i < body.n; i++) {
		const Stmt *st = body.items[i];
		Scan nested = *sc;
		if (!nested.alt && (st->kind == ST_IF || st->kind == ST_TRY)) nested.alt = ++m->nalts;
		switch (st->kind) {
		case ST_FUNCDEF:
			add_binding(s, m, sc, (Global){.name = st->func->name, .kind = GB_FUNC, .stmt = st, .fn = st->func, .loc = st->loc});
			break;
		case ST_ASSIGN: {
			bool item = false; /* D[k] = v: a host statement that rebinds D */
			for (int k = 0; k < st->ntargets; k++) item |= st->targets[k]->kind == EX_SUBSCRIPT;
			item |= is_list_method_call(st->assign_value); /* v = d.pop(k) rebinds d too */
			item |= has_named_expr(st->assign_value);      /* X = (T := 5) + 1 binds T too */
			if (item) scan_host_stmt(s, m, sc, st);
			else
				for (int k = 0; k < st->ntargets; k++)
					scan_assign_target(s, m, sc, st, st->targets[k], st->assign_value);
			break;
		}
		case ST_ANNASSIGN:
			if (st->ann_value && has_named_expr(st->ann_value)) scan_host_stmt(s, m, sc, st);
			else if (st->ann_value) scan_assign_target(s, m, sc, st, st->ann_target, st->ann_value);
			break;
		case ST_IMPORT:
			for (int k = 0; k < st->nnames; k++) {
				const ImportName *in = &st->names[k];
				Global g = {.kind = GB_IMPORT, .stmt = st, .modname = in->name, .loc = in->loc, .is_import = true};
				if (in->asname) g.name = in->asname;
				else {
					g.name = root_of(s, in->name);
					g.bind_root = true;
				}
				add_binding(s, m, sc, g);
			}
			break;
		case ST_IMPORTFROM:
			if (st->nnames == 1 && !strcmp(st->names[0].name, "*")) {
				add_binding(s, m, sc, (Global){.name = istr(s, "*"), .kind = GB_STAR, .stmt = st,
							      .modname = st->module, .level = st->level, .loc = st->names[0].loc});
				break;
			}
			for (int k = 0; k < st->nnames; k++) {
				const ImportName *in = &st->names[k];
				add_binding(s, m, sc, (Global){.name = in->asname ? in->asname : in->name, .kind = GB_FROM, .stmt = st,
							      .modname = st->module, .attr = in->name, .level = st->level, .loc = in->loc,
							      .is_import = true});
			}
			break;
		case ST_UNSUPPORTED:
			if (st->host_name) {
				bool del = !strcmp(st->what, "del statement");
				Value pv = {.kind = V_POISON,
					    .msg = arena_printf(s->a, "'%s%s%s' is %s %s%s", m->cls ? m->name : "",
							       m->cls ? "." : "", st->host_name, del ? "deleted by the" : "defined by",
							       st->what, del ? arena_printf(s->a, " at line %d", st->loc.line) : "")};
				add_binding(s, m, sc, (Global){.name = st->host_name, .kind = GB_VALUE, .stmt = st, .val = pv,
							      .fn = st->host_def, .loc = st->loc});
			}
			break;
		case ST_AUGASSIGN:
			if (st->aug_target->kind == EX_ATTR) { /* Cfg.X += 3 is Cfg.X = Cfg.X + 3 */
				Expr *v = ARENA_NEW(s->a, Expr);
				*v = (Expr){.kind = EX_BINOP, .loc = st->loc, .op = st->aug_op, .lhs = st->aug_target,
					    .rhs = st->aug_value};
				scan_assign_target(s, m, sc, st, st->aug_target, v);
				break;
			}
			scan_host_stmt(s, m, sc, st);
			break;
		case ST_FOR:
		case ST_WHILE:
		case ST_EXPR: scan_host_stmt(s, m, sc, st); break;
		case ST_IF: scan_if(s, m, &nested, st); break;
		case ST_CLASS: scan_class(s, m, sc, st); break;
		case ST_TRY: {
			/* the body (and its else) first, then each handler; finally binds for all */
			TryBody *tb = ARENA_NEW(s->a, TryBody);
			*tb = (TryBody){.first = m->globals.len, .nguards = sc->nguards, .outer = sc->try_body};
			Scan in_body = nested;
			in_body.try_body = tb;
			scan_stmts(s, m, &in_body, st->try_body);
			scan_stmts(s, m, &in_body, st->try_else);
			tb->end = m->globals.len;
			for (int h = 0; h < st->nhandlers; h++) scan_stmts(s, m, &nested, st->handlers[h]);
			tb->handlers_end = m->globals.len;
			scan_stmts(s, m, sc, st->try_final);
			break;
		}
		default: break;
		}
	}
}

ModScope *modscope_new(Sema *s, const Module *ast, const char *name)
{
	ModScope *m = ARENA_NEW(s->a, ModScope);
	m->ast = ast;
	m->name = name;
	Scan top = {0, NULL, 0, NULL};
	if (ast) scan_stmts(s, m, &top, ast->body);
	m->next = s->mods;
	s->mods = m;
	return m;
}


/* What `import a.b.c` binds: a, a module (a.py, a/__init__.py) or, when a
 * is only a directory, a package scope through which a.b.c resolves. */
static Value import_root(Sema *s, ModScope *m, const char *dotted, SrcLoc loc)
{
	const char *root = root_of(s, dotted);
	if (root == dotted || !strcmp(root, "triton") || !strcmp(root, "tile") || !strcmp(root, "importlib"))
		return resolve_module_path(s, m, root, 0, loc);
	ModScope *r = find_user_module(s, m, root, loc, true);
	if (r) return (Value){.kind = V_MODULE, .mod = r};
	if (!find_user_module(s, m, dotted, loc, false)) return v_err();
	return (Value){.kind = V_MODULE, .mod = package_scope(s, m, root)};
}

/* Module-level code runs at import time, outside every kernel: whatever IR it
 * builds goes to a scratch function of its own, never into the kernel being
 * compiled (which may not exist yet, or be inside a branch of it). */
typedef struct ModuleCode {
	TirFunc *f;    /* where IR went before */
	TirBlock *blk;
	Fn fn;         /* the host code's locals */
} ModuleCode;

static void module_code_begin(Sema *s, ModScope *m, ModuleCode *mc)
{
	mc->f = s->f;
	mc->blk = s->blk;
	if (!s->module_scratch) s->module_scratch = tir_func_new(s->a, "<module>");
	s->f = s->module_scratch;
	s->blk = s->f->entry;
	fn_init(s, &mc->fn, NULL, m, false);
}

static void module_code_end(Sema *s, ModuleCode *mc)
{
	fn_free(&mc->fn);
	s->f = mc->f;
	s->blk = mc->blk;
}

Value eval_module_expr(Sema *s, ModScope *m, const Expr *e)
{
	ModuleCode mc;
	module_code_begin(s, m, &mc);
	s->host_fn++; /* module-level code is host Python: it may call host defs */
	Value v = eval(s, &mc.fn, e);
	s->host_fn--;
	module_code_end(s, &mc);
	return v;
}

/* Diagnostics collected aside while sema tries something that may fail
 * (host Python in decorators and defaults, module-level alternatives). */
void quiet_begin(Sema *s, Quiet *q)
{
	diag_init(&q->sink);
	q->saved = s->d;
	q->limit = s->limit_diag;
	s->d = &q->sink;
}

/* Restores the real sink; true if anything failed, *first (if given) the
 * first diagnostic, in the arena. */
bool quiet_end(Sema *s, Quiet *q, Diag *first)
{
	s->d = q->saved;
	bool failed = q->sink.nerrors > 0;
	/* a limit passed in here stops all further work: reported, not set aside */
	if (s->limit_diag != q->limit) diag_emit(s->d, DIAG_ERROR, s->limit_diag->loc, "%s", s->limit_diag->msg);
	if (first) {
		*first = (Diag){0};
		if (q->sink.diags.len) {
			*first = q->sink.diags.data[0];
			first->msg = arena_strdup(s->a, first->msg);
			first->rendered = first->rendered ? arena_strdup(s->a, first->rendered) : NULL;
		}
	}
	diag_free(&q->sink);
	return failed;
}

/* obj.name if it has it (hasattr, getattr with a default); nothing reported */
bool attr_quiet(Sema *s, Value obj, const char *name, SrcLoc loc, Value *out)
{
	Quiet q;
	unsigned pe = s->py_errors;
	quiet_begin(s, &q);
	*out = get_attr(s, obj, name, loc);
	bool failed = quiet_end(s, &q, NULL) || out->kind == V_ERR || out->kind == V_POISON;
	s->py_errors = pe;
	return !failed;
}

Value module_expr_quiet(Sema *s, ModScope *m, const Expr *e, bool *failed)
{
	Quiet q;
	quiet_begin(s, &q);
	Value v = eval_module_expr(s, m, e);
	*failed = quiet_end(s, &q, NULL);
	return v;
}

/* A GB_STMT binding of `name`: st run as host Python (in the module's
 * scratch function, as eval_module_expr) on the values its names had before
 * it; what name is bound to afterwards. Diagnostics go to the caller's sink. */
static Value exec_module_stmt(Sema *s, ModScope *m, const Stmt *st, const char *name)
{
	ModuleCode mc;
	module_code_begin(s, m, &mc);
	Fn *fn = &mc.fn;
	NameList names = {0};
	StmtList one = {.n = 1, .items = (Stmt **)&st};
	host_bound_names(&one, &names);
	for (size_t i = 0; i < names.len; i++) { /* one that fails (unused, or a loop target) stays unbound */
		bool found = false;
		Quiet q;
		quiet_begin(s, &q);
		Value before = global_get(s, m, names.data[i], st->loc, &found);
		if (!quiet_end(s, &q, NULL) && found && before.kind != V_ERR) env_set(&fn->env, names.data[i], before);
	}
	vec_free(&names);
	int errs = s->d->nerrors;
	s->host_fn++;
	exec_body(s, fn, &one, false);
	s->host_fn--;
	const Value *after = env_find(&fn->env, name);
	Value v = after ? *after : v_err();
	if (!after && s->d->nerrors == errs) /* `for x in []:` leaves x unbound, as in Python */
		diag_error(s->d, st->loc, "name '%s' is not defined: this statement did not bind it", name);
	module_code_end(s, &mc);
	return v;
}

/* whether v is or holds a runtime value (a tensor, a block pointer) */
static bool value_holds_ir(Value v)
{
	if (v.kind == V_TENSOR || v.kind == V_BLOCKPTR) return true;
	if (v.kind == V_TUPLE || v.kind == V_DICT || v.kind == V_CONFIG || v.kind == V_AGG)
		for (int i = 0; i < v.n; i++)
			if (value_holds_ir(v.items[i])) return true;
	return false;
}


/* A function defined in a class body: its body sees the module's names (not
 * the class's), as in Python. One without @jit is a host method: host code
 * may call it (`@triton.autotune(configs(), ...)` in the class body), a
 * kernel may not (msg names it for call_value). */
static Value class_func(Sema *s, ModScope *m, const Global *g)
{
	Value v = {.kind = V_FUNC, .fn = g->fn, .mod = m->parent};
	if (sema_is_jit(s, g->fn)) return v;
	/* an aggregate's methods without @jit are Python that Triton runs when a
	 * kernel calls them (constexpr arithmetic, building the aggregate) */
	if (class_aggregate(s, m)) v.ns = VF_HOST;
	/* so are an Enum's (Color.RED.label(), Color.first()): its members are constexprs */
	else if (enum_class_kind(s, m) != ENUM_NONE) v.ns = VF_HOST;
	else v.msg = arena_printf(s->a, "%s.%s", m->name, g->name);
	if (has_decorator(g->fn, "classmethod")) { /* bound to its class, as Python binds it */
		Value *cls = ARENA_NEW(s->a, Value);
		*cls = (Value){.kind = V_MODULE, .mod = m};
		v.self = cls;
	}
	return v;
}

static Value eval_stmt_binding(Sema *s, ModScope *m, size_t idx);

static Value eval_global(Sema *s, ModScope *m, size_t idx, SrcLoc use)
{
	Global *g = &m->globals.data[idx];
	switch (g->kind) {
	case GB_VALUE:
		if (g->val.kind == V_POISON && g->fn && s->host_fn)
			/* a host def only host-mode parsing reads (try, **kwargs): host
			 * Python (module-level code, a decorator wrapper) may call it */
			return (Value){.kind = V_FUNC, .fn = g->fn, .mod = m, .ns = VF_HOST};
		if (g->val.kind == V_POISON) {
			if (g->val.ns == POISON_PY) s->py_errors++;
			diag_error(s->d, use, "%s", g->val.msg);
			return v_err();
		}
		return g->val;
	case GB_BUSY: diag_error(s->d, use, "'%s' is defined in terms of itself", g->name); return v_err();
	case GB_FUNC: return m->cls ? class_func(s, m, g) : (Value){.kind = V_FUNC, .fn = g->fn, .mod = m};
	default: break;
	}
	/* each name a module-level definition uses is evaluated (lazily) inside
	 * it: a long chain A1 = A0 + 1, A2 = A1 + 1, ... must end in an error,
	 * not in a stack overflow */
	if (s->global_depth >= GLOBAL_DEPTH_LIMIT) {
		diag_error(s->d, use, "module-level names are defined in terms of each other more than %d deep "
			   "(evaluating '%s')", GLOBAL_DEPTH_LIMIT, g->name);
		return v_err();
	}
	GlobalKind kind = g->kind;
	g->kind = GB_BUSY;
	s->global_depth++;
	size_t ndiags = s->d->diags.len;
	unsigned py_errors = s->py_errors;
	size_t saved_limit = m->limit;
	/* a statement's names bound so far are not seen: it evaluates from the
	 * names before it (X, Y = Y, X swaps; a loop rebinding X and Y runs once) */
	size_t first = idx;
	while (first > 0 && g->stmt && m->globals.data[first - 1].stmt == g->stmt) first--;
	m->limit = first ? first : (size_t)-1;
	Value v = v_err();
	if (kind == GB_IMPORT) {
		v = g->bind_root ? import_root(s, m, g->modname, g->loc) : resolve_module_path(s, m, g->modname, 0, g->loc);
	} else if (kind == GB_FROM) {
		/* a submodule (from pkg import sub) first, then an attribute */
		StrBuf b = {0};
		for (int i = 0; i < g->level; i++) sb_putc(&b, '.');
		if (g->modname) sb_printf(&b, "%s.", g->modname);
		sb_puts(&b, g->attr);
		ModScope *sub = find_user_module(s, m, istr(s, b.s), g->loc, true);
		sb_free(&b);
		if (sub) v = (Value){.kind = V_MODULE, .mod = sub};
		else if (!g->modname) v = resolve_module_path(s, m, g->attr, g->level, g->loc);
		else {
			Value mod = resolve_module_path(s, m, g->modname, g->level, g->loc);
			ModScope *from_mod = s->attr_from_mod;
			SrcLoc from_loc = s->attr_from_loc;
			s->attr_from_mod = m;
			s->attr_from_loc = g->loc;
			if (mod.kind != V_ERR) v = get_attr(s, mod, g->attr, g->loc);
			s->attr_from_mod = from_mod;
			s->attr_from_loc = from_loc;
		}
	} else if (kind == GB_STMT) {
		v = eval_stmt_binding(s, m, idx);
	} else {
		v = eval_module_expr(s, m, g->expr);
		if (value_holds_ir(v)) {
			diag_error(s->d, g->expr->loc, "module-level '%s' must be a constexpr", g->name);
			v = v_err();
		}
	}
	s->global_depth--;
	m->limit = saved_limit;
	g = &m->globals.data[idx];
	g->kind = GB_VALUE;
	g->val = v;
	if (v.kind == V_ERR) {
		/* Python would have raised here, at import: every later use fails
		 * alike, so host code tried quietly (a decorator's configs=f(),
		 * where f tests the name) sees the failure, not a silent V_ERR that
		 * an `if` skips, letting f return None */
		const char *why = s->d->diags.len > ndiags ? s->d->diags.data[ndiags].msg : "an error";
		g->val = (Value){.kind = V_POISON,
				 .ns = s->py_errors != py_errors ? POISON_PY : 0,
				 .msg = arena_printf(s->a, "'%s' could not be evaluated: %s", g->name, why)};
	}
	return v;
}

/* eval_global with diagnostics collected aside: *ok says whether it worked */
static Value eval_global_quiet(Sema *s, ModScope *m, size_t idx, SrcLoc use, bool *ok)
{
	Quiet q;
	quiet_begin(s, &q);
	Value v = eval_global(s, m, idx, use);
	*ok = !quiet_end(s, &q, NULL) && v.kind != V_ERR;
	return v;
}

/* A GB_STMT binding (m->limit already hides it and what follows). Host code
 * sema cannot run (a loop over os.environ, a call into torch) leaves the
 * name as it was before the statement, as it was read before statements
 * were run at all; with no earlier binding, the failure is reported. So is
 * an error Python raises too (a NameError, 1 / 0), where importing the module
 * fails, and a size limit of compile-time values, where Python goes on
 * (Sema.py_errors): either way the earlier value is not what Python has. */
static Value eval_stmt_binding(Sema *s, ModScope *m, size_t idx)
{
	const Global g = m->globals.data[idx];
	Quiet q;
	quiet_begin(s, &q);
	unsigned py_errors = s->py_errors;
	Value v = exec_module_stmt(s, m, g.stmt, g.name);
	bool failed = quiet_end(s, &q, NULL) || v.kind == V_ERR;
	if (!failed && value_holds_ir(v)) failed = true;
	if (!failed) return v;
	if (s->py_errors != py_errors) {
		exec_module_stmt(s, m, g.stmt, g.name); /* again, reporting why */
		return v_err();
	}
	bool found = false;
	Quiet q2;
	quiet_begin(s, &q2);
	Value before = global_get(s, m, g.name, g.loc, &found);
	bool before_failed = quiet_end(s, &q2, NULL);
	if (found && !before_failed && before.kind != V_ERR) return before;
	v = exec_module_stmt(s, m, g.stmt, g.name); /* again, reporting why */
	if (v.kind != V_ERR) /* it ran: what it bound holds a tensor */
		diag_error(s->d, g.loc, "module-level '%s' must be a constexpr", g.name);
	return v_err();
}

/* false when a guard evaluates to a constexpr of the wrong truth; a guard
 * sema cannot evaluate (host Python) does not rule the branch out. A guard
 * sees the names bound before its if, as Python evaluates it: `if X: X = ...`
 * must not look at the X its own branch binds (an endless recursion). */
static bool guards_allow(Sema *s, ModScope *m, const Global *g)
{
	const Guard *gs = g->guards;
	for (int i = 0; i < g->nguards; i++) {
		size_t saved_limit = m->limit;
		m->limit = gs[i].before ? gs[i].before : (size_t)-1;
		Quiet q;
		quiet_begin(s, &q);
		Value c = eval_module_expr(s, m, gs[i].cond);
		bool known = !quiet_end(s, &q, NULL) && c.kind == V_CONST;
		m->limit = saved_limit;
		if (known && const_truthy(c.c) != gs[i].want) return false;
	}
	return true;
}

/* Whether an import fails in Python as it fails in tile: a module or name of
 * triton that tile does not have, a file of the project that is not there, a
 * package tile cannot find. Python's standard library imports in Python
 * (tile models few of its modules). */
static bool import_fails(Sema *s, ModScope *m, size_t idx, SrcLoc loc)
{
	bool ok;
	eval_global_quiet(s, m, idx, loc, &ok);
	if (ok) return false;
	const Global *g = &m->globals.data[idx];
	if (g->level || !g->modname) return true; /* relative: the project's own */
	return !py_stdlib_module(root_of(s, g->modname));
}

/* false when Python does not keep the binding of its try body: an import
 * statement of the body (or of a body it is in) before it fails, as in
 * `try: import torch_npu; HAS_NPU = True / except ImportError: HAS_NPU =
 * False`, or one after it fails and a handler binds the name again. Imports
 * in an if or a try inside the body are not looked at. */
static bool try_body_kept(Sema *s, ModScope *m, size_t idx, SrcLoc loc)
{
	const Global *me = &m->globals.data[idx];
	const char *name = me->name;
	const Stmt *stmt = me->stmt;
	for (const TryBody *tb = me->try_body; tb; tb = tb->outer) {
		bool rebound = false; /* by a handler of this try */
		for (size_t i = tb->end; i < tb->handlers_end && !rebound; i++) rebound = m->globals.data[i].name == name;
		size_t end = rebound ? tb->end : idx;
		for (size_t i = tb->first; i < end; i++) {
			const Global *g = &m->globals.data[i];
			if (g->is_import && g->try_body == tb && g->nguards == tb->nguards && g->stmt != stmt &&
			    import_fails(s, m, i, loc))
				return false;
		}
	}
	return true;
}

/* The alternatives of a module-level if/try bound to the same name, in
 * source order: the first allowed one that evaluates; errors are reported
 * for the last one tried; with every one ruled out, the binding before the
 * if/try. */
static Value eval_alternatives(Sema *s, ModScope *m, size_t last, SrcLoc loc)
{
	Global *g = &m->globals.data[last];
	if (g->alt_done) return g->alt_val; /* resolved before: every use of the name asks */
	const char *name = g->name;
	const TryBody *in_try = g->try_body;
	int alt = g->alt;
	size_t first = last;
	while (first > 0 && m->globals.data[first - 1].alt == alt) first--;
	VEC(size_t) cand = {0};
	for (size_t i = first; i <= last; i++)
		if (m->globals.data[i].name == name && guards_allow(s, m, &m->globals.data[i]) &&
		    try_body_kept(s, m, i, loc))
			vec_push(&cand, i);
	Value v = v_err();
	bool ok = false;
	for (size_t k = 0; k + 1 < cand.len && !ok; k++) v = eval_global_quiet(s, m, cand.data[k], loc, &ok);
	if (!ok && cand.len) v = eval_global(s, m, cand.data[cand.len - 1], loc); /* reports why, if it fails */
	else if (!cand.len) {
		/* every branch that binds the name is ruled out (`if not HAVE_TRITON:
		 * tl = MagicMock()`): as in Python, the name keeps what it was bound
		 * to before the if */
		size_t saved_limit = m->limit;
		m->limit = first ? first : (size_t)-1;
		bool found = false;
		v = global_get(s, m, name, loc, &found);
		m->limit = saved_limit;
		if (!found && in_try)
			diag_error(s->d, loc, "'%s' is bound only in a module-level try body, after an import that fails", name);
		else if (!found)
			diag_error(s->d, loc, "'%s' is bound only in branches of a module-level 'if' that are not taken", name);
	}
	vec_free(&cand);
	g = &m->globals.data[last]; /* evaluation may have grown the vector */
	g->alt_done = v.kind != V_ERR;
	g->alt_val = v;
	return v;
}

static Value star_lookup(Sema *s, ModScope *m, size_t idx, const char *name, SrcLoc loc, bool *found);

static bool loc_before(SrcLoc a, SrcLoc b) { return a.line < b.line || (a.line == b.line && a.col < b.col); }

/* `name` of scope m as a module-level `X.name = value` somewhere set it (X
 * naming m: a class of the module, an imported module): Python runs the
 * statement at import, so the kernel, compiled after, reads the value (the
 * last such statement of one module; statements in two modules are an error,
 * their order being the imports'). False where none does. */
static bool attr_set_get(Sema *s, ModScope *m, const char *name, SrcLoc loc, Value *out)
{
	const AttrSet *hit = NULL, *upto = s->attr_set_upto;
	bool two = false;
	s->attr_set_busy = true;
	unsigned pe = s->py_errors;
	for (const AttrSet *a = s->attr_sets; a; a = a->next) {
		if (a->target->attr != name) continue;
		/* in the value of `Cfg.X = Cfg.X * 2`: the sets of that module before it */
		if (upto && (a->in != upto->in || !loc_before(a->target->loc, upto->target->loc))) continue;
		if (a->in == s->attr_from_mod && !loc_before(a->target->loc, s->attr_from_loc)) continue;
		bool failed;
		Value base = module_expr_quiet(s, a->in, a->target->obj, &failed);
		if (failed || base.kind != V_MODULE || base.mod != m) continue;
		if (hit && hit->in != a->in) two = true;
		else if (!hit || loc_before(hit->target->loc, a->target->loc)) hit = a;
	}
	s->py_errors = pe;
	s->attr_set_busy = false;
	if (hit && two) {
		diag_error(s->d, loc, "'%s' is set by module-level '%s.%s = ...' statements in more than one module, which "
				      "tile does not order (Python runs them in import order)",
			   name, hit->target->obj->name, name);
		*out = v_err();
	} else if (hit) {
		s->attr_set_upto = hit;
		*out = eval_module_expr(s, hit->in, hit->value);
		s->attr_set_upto = upto;
	}
	return hit != NULL;
}

/* `name` bound in scope m itself (its enclosing scopes not asked) */
Value scope_get(Sema *s, ModScope *m, const char *name, SrcLoc loc, bool *found)
{
	*found = false;
	if (s->attr_sets && !s->attr_set_busy) {
		Value v;
		if (attr_set_get(s, m, name, loc, &v)) {
			*found = true;
			return v;
		}
	}
	size_t end = m->limit == (size_t)-1 ? 0 : m->limit ? m->limit : m->globals.len;
	for (size_t i = end; i-- > 0;) {
		if (m->globals.data[i].kind == GB_STAR) {
			Value v = star_lookup(s, m, i, name, loc, found);
			if (*found) return v;
			continue;
		}
		if (m->globals.data[i].name != name) continue;
		*found = true;
		if (m->globals.data[i].alt) return eval_alternatives(s, m, i, loc);
		return eval_global(s, m, i, loc);
	}
	return v_err();
}

Value global_get(Sema *s, ModScope *m, const char *name, SrcLoc loc, bool *found)
{
	Value v = scope_get(s, m, name, loc, found);
	if (*found) return v;
	/* a kernel defined in a host function sees that function's locals (its
	 * lazily imported triton), then the module's names, as Triton's capture
	 * scope (globals and nonlocals) has them */
	if (m->parent) return global_get(s, m->parent, name, loc, found);
	return v_err();
}

/* Whether `from M import *` binds `name`: M's __all__ if it has one (a list
 * or tuple of strings), else every name of M not starting with '_' */
static bool star_exports(Sema *s, ModScope *sub, const char *name, SrcLoc loc)
{
	const char *all = istr(s, "__all__");
	bool has_all = false;
	for (size_t i = 0; i < sub->globals.len && !has_all; i++) has_all = sub->globals.data[i].name == all;
	if (!has_all) return name[0] != '_';
	Quiet q;
	quiet_begin(s, &q);
	bool found;
	Value v = global_get(s, sub, all, loc, &found);
	bool failed = quiet_end(s, &q, NULL);
	if (failed || v.kind != V_TUPLE) return name[0] != '_'; /* __all__ built by host code */
	for (int i = 0; i < v.n; i++)
		if (v_is_const(v.items[i], CV_STR) && !strcmp(v.items[i].c.s, name)) return true;
	return false;
}

/* `name` through the `from M import *` at globals[idx]; M may be a user
 * module or a builtin namespace (triton.language). A module tile cannot find
 * binds nothing here: its names are unknown, as any other host name. */
static Value star_lookup(Sema *s, ModScope *m, size_t idx, const char *name, SrcLoc loc, bool *found)
{
	*found = false;
	Global *g = &m->globals.data[idx];
	if (g->star_busy || !g->modname) return v_err(); /* a cycle; `from . import *` binds nothing */
	if (g->val.kind == V_POISON) return v_err(); /* its module was not found before */
	if (g->val.kind != V_MODULE) {
		Quiet q;
		quiet_begin(s, &q);
		Value mv = resolve_module_path(s, m, g->modname, g->level, g->loc);
		bool failed = quiet_end(s, &q, NULL);
		g = &m->globals.data[idx];
		if (failed || (mv.kind != V_NS && (mv.kind != V_MODULE || !mv.mod->ast))) {
			g->val = (Value){.kind = V_POISON, .msg = "unresolved import *"};
			return v_err();
		}
		g->val = mv;
	}
	if (g->val.kind == V_NS) { /* from triton.language import *: its public attributes */
		if (name[0] == '_') return v_err();
		Quiet q;
		quiet_begin(s, &q);
		Value v = get_attr(s, g->val, name, loc);
		bool failed = quiet_end(s, &q, NULL);
		*found = !failed && v.kind != V_ERR;
		return v;
	}
	ModScope *sub = g->val.mod;
	g->star_busy = true;
	Value v = v_err();
	if (star_exports(s, sub, name, loc)) v = global_get(s, sub, name, loc, found);
	m->globals.data[idx].star_busy = false;
	return v;
}

/* whether m or a scope around it has a `from M import *` of a module tile
 * could not read (star_lookup poisons it when a lookup passes through) */
static bool unresolved_star(const ModScope *m)
{
	for (; m; m = m->parent)
		for (size_t i = 0; i < m->globals.len; i++) {
			const Global *g = &m->globals.data[i];
			if (g->kind == GB_STAR && (!g->modname || g->val.kind == V_POISON)) return true;
		}
	return false;
}

Value python_builtin(Sema *s, const char *name, bool *found)
{
	int id = builtin_find(name, BF_PY);
	*found = id >= 0;
	(void)s;
	return *found ? v_builtin(id, NULL) : v_err();
}

static int by_def(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const DefAt *)a)->def, y = (uintptr_t)((const DefAt *)b)->def;
	return x < y ? -1 : x > y;
}

/* Where def is bound among m's globals; false when it is not (a call form's
 * copy). Sorted once, as a module of 100000 kernels asks for each. */
static bool def_index(ModScope *m, const FuncDef *def, size_t *idx)
{
	if (m->def_at_len != m->globals.len) {
		m->def_at.len = 0;
		for (size_t i = 0; i < m->globals.len; i++) {
			const Stmt *st = m->globals.data[i].stmt;
			if (st && st->kind == ST_FUNCDEF) vec_push(&m->def_at, ((DefAt){st->func, i}));
		}
		if (m->def_at.len) qsort(m->def_at.data, m->def_at.len, sizeof(DefAt), by_def);
		m->def_at_len = m->globals.len;
	}
	DefAt key = {def, 0};
	const DefAt *hit = m->def_at.len ? bsearch(&key, m->def_at.data, m->def_at.len, sizeof(DefAt), by_def) : NULL;
	if (hit) *idx = hit->idx;
	return hit != NULL;
}

size_t limit_to_def(ModScope *m, const FuncDef *def)
{
	size_t saved = m ? m->limit : 0, i;
	if (m && def && def_index(m, def, &i)) {
		size_t end = saved == (size_t)-1 ? 0 : saved ? saved : m->globals.len;
		if (i < end) m->limit = i ? i : (size_t)-1;
	}
	return saved;
}

Value eval_default(Sema *s, Fn *fn, const FuncDef *def, const Expr *e)
{
	size_t saved = limit_to_def(fn->mod, def);
	Value v = eval(s, fn, e);
	if (fn->mod) fn->mod->limit = saved;
	return v;
}

/* The import that binds a name kernels use by convention, for the message when
 * it is missing (a REPL session or a file starts with no names bound) */
static const char *missing_import(const char *name)
{
	static const char *const known[][2] = {
	    {"tl", "import triton.language as tl"},
	    {"triton", "import triton"},
	    {"libdevice", "from triton.language.extra import libdevice"},
	    {"math", "import math"},
	};
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (!strcmp(name, known[i][0])) return known[i][1];
	return NULL;
}

Value lookup_name(Sema *s, Fn *fn, const char *name, SrcLoc loc)
{
	Value *p = env_find(&fn->env, name);
	if (p) {
		if (p->kind == V_POISON) {
			diag_error(s->d, loc, "%s", p->msg);
			return v_err();
		}
		return *p;
	}
	bool found;
	Value v = global_get(s, fn->mod, name, loc, &found);
	if (found) return v;
	v = python_builtin(s, name, &found);
	if (found) return v;
	if (!unresolved_star(fn->mod)) s->py_errors++; /* the name may come from that module */
	const char *import = missing_import(name);
	if (import) diag_error(s->d, loc, "unknown name '%s' (is `%s` missing?)", name, import);
	else diag_error(s->d, loc, "unknown name '%s'", name);
	return v_err();
}

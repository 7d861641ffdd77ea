/* sema.c: entry points (sema.h), module scopes, name resolution, imports.
 *
 * Module-level names are recorded when a module is first seen and evaluated
 * lazily on first use (a .py file may hold host code that a kernel never
 * touches: `import torch` only fails if the kernel uses `torch`). Evaluating
 * global k sees only the bindings before it, as Python's top-to-bottom
 * execution would (`fn = triton.jit(fn)` refers to the def above it).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sema/sema_int.h"

/* ---- values ------------------------------------------------------------------ */

Value v_err(void) { return (Value){.kind = V_ERR}; }
Value v_int(int64_t i) { return (Value){.kind = V_CONST, .c = {.kind = CV_INT, .i = i}}; }
Value v_uint64(uint64_t u)
{
	return (Value){.kind = V_CONST, .c = {.kind = CV_INT, .i = (int64_t)u, .u64 = u > (uint64_t)INT64_MAX}};
}
Value v_float(double f) { return (Value){.kind = V_CONST, .c = {.kind = CV_FLOAT, .f = f}}; }
Value v_bool(bool b) { return (Value){.kind = V_CONST, .c = {.kind = CV_BOOL, .i = b}}; }
Value v_none(void) { return (Value){.kind = V_CONST, .c = {.kind = CV_NONE}}; }
Value v_str(const char *str) { return (Value){.kind = V_CONST, .c = {.kind = CV_STR, .s = str}}; }
Value v_dtype(Type t) { return (Value){.kind = V_DTYPE, .ty = type_elem(t)}; }
Value v_foreign_dtype(const char *name) { return (Value){.kind = V_DTYPE, .ty = type_scalar(DT_VOID), .msg = name}; }
Value foreign_dtype_error(Sema *s, Value v, SrcLoc loc)
{
	diag_error(s->d, loc, "'tl.%s' is a Triton dtype tile does not support (it may only be named, compared and queried: its name, sizes, is_*())",
		   v.msg);
	return v_err();
}
Value v_tensor(Sema *s, ValId id) { return (Value){.kind = V_TENSOR, .id = id, .ty = tir_type(s->f, id)}; }
Value v_builtin(int id, Value *self) { return (Value){.kind = V_BUILTIN, .builtin = id, .self = self}; }

int value_nesting(Value v)
{
	return v.kind == V_TUPLE || v.kind == V_DICT || v.kind == V_CONFIG || v.kind == V_AGG ? v.depth : 0;
}

Value v_tuple(Sema *s, const Value *items, int n)
{
	Value v = {.kind = V_TUPLE, .n = n, .depth = 1};
	v.items = n ? arena_dup(s->a, items, sizeof(Value) * (size_t)n) : NULL;
	for (int i = 0; i < n; i++)
		if (value_nesting(items[i]) >= v.depth) v.depth = value_nesting(items[i]) + 1;
	return v;
}

/* The buffer of a tuple tuple_grow built: items[0..used) are taken by the longest
 * tuple over it; a tuple of that length may grow into the rest in place. */
struct TupleBuf {
	Value *items;
	int used, cap;
};

Value tuple_grow(Sema *s, Value t, const Value *add, int k, SrcLoc loc)
{
	int64_t n = (int64_t)t.n + k;
	if (n > TUPLE_MAX_ITEMS) {
		s->py_errors++;
		diag_error(s->d, loc, "a list built at compile time grows past %d items", TUPLE_MAX_ITEMS);
		return v_err();
	}
	struct TupleBuf *b = t.buf;
	if (b && b->items == t.items && b->used == t.n && n <= b->cap) {
		if (!sema_work(s, k, loc)) return v_err();
	} else { /* a copy, with room to grow */
		if (!sema_work(s, n, loc)) return v_err();
		int cap = n < 4 ? 8 : 2 * (int)n > TUPLE_MAX_ITEMS ? TUPLE_MAX_ITEMS : 2 * (int)n;
		b = ARENA_NEW(s->a, struct TupleBuf);
		b->items = ARENA_NEWN(s->a, Value, (size_t)cap);
		b->cap = cap;
		if (t.n) memcpy(b->items, t.items, sizeof(Value) * (size_t)t.n);
	}
	if (k) memcpy(b->items + t.n, add, sizeof(Value) * (size_t)k);
	b->used = (int)n;
	Value v = {.kind = V_TUPLE, .n = (int)n, .depth = t.kind == V_TUPLE ? t.depth : 1, .items = b->items, .buf = b,
		   .list = t.kind == V_TUPLE && t.list};
	if (v.depth < 1) v.depth = 1;
	for (int i = 0; i < k; i++)
		if (value_nesting(add[i]) >= v.depth) v.depth = value_nesting(add[i]) + 1;
	return v;
}

/* Keeps the report just made of a limit sema stops at (s->limit_diag) */
void sema_note_limit(Sema *s)
{
	if (s->limit_diag || !s->d->diags.len) return;
	Diag *d = ARENA_NEW(s->a, Diag);
	*d = s->d->diags.data[s->d->diags.len - 1];
	d->msg = arena_strdup(s->a, d->msg);
	d->rendered = d->rendered ? arena_strdup(s->a, d->rendered) : NULL;
	s->limit_diag = d;
}

bool sema_work(Sema *s, int64_t n, SrcLoc loc)
{
	if (s->too_big) return false; /* past the value limit (reported): no point going on */
	s->work += n;
	if (s->work <= SEMA_MAX_WORK) return true;
	if (!s->too_much_work) {
		s->too_much_work = true;
		diag_error(s->d, loc,
			   "compile-time evaluation takes more than %d steps (statements, unrolled tl.static_range "
			   "iterations, inlined calls, comprehension items, tuple items and strings built; nested loops multiply)",
			   SEMA_MAX_WORK);
		sema_note_limit(s);
	}
	return false;
}

bool v_is_const(Value v, ConstKind k) { return v.kind == V_CONST && v.c.kind == k; }
bool v_is_none(Value v) { return v_is_const(v, CV_NONE); }

/* Python's truth value of a compile-time value: constants as Python has them,
 * empty tuples and dicts false, anything else (functions, dtypes...) true. */
bool value_truthy(Value v)
{
	if (v.kind == V_CONST) return const_truthy(v.c);
	if (v_is_enum_member(v)) return enum_member_truthy(v); /* `if mode & Perm.R:` */
	if (v.kind == V_TUPLE || v.kind == V_DICT) return v.n > 0;
	return true;
}
bool v_is_intlike(Value v) { return v.kind == V_CONST && (v.c.kind == CV_INT || v.c.kind == CV_BOOL); }

const char *v_describe(Sema *s, Value v)
{
	char buf[128];
	if (v_is_enum_member(v)) return arena_printf(s->a, "Enum member %s", enum_member_str(s, v, true));
	switch (v.kind) {
	case V_CONST:
		switch (v.c.kind) {
		case CV_INT: return "int";
		case CV_FLOAT: return "float";
		case CV_BOOL: return "bool";
		case CV_STR: return "str";
		case CV_NONE: return "None";
		case CV_DTYPE: return "dtype";
		case CV_NAME: return "name";
		}
		return "constexpr";
	case V_DTYPE: return "dtype";
	case V_TENSOR: type_name(v.ty, buf, sizeof buf); return arena_strdup(s->a, buf);
	case V_FUNC: return "function";
	case V_BUILTIN: return "builtin function";
	case V_NS: return "module";
	case V_MODULE: return v.mod->cls ? "class" : "module";
	case V_BLOCKPTR: return v.bp->desc ? "tensor descriptor" : "block pointer";
	case V_TUPLE: return v.set ? "set" : "tuple";
	case V_DICT: return "dict";
	case V_LAMBDA: return "lambda";
	case V_RTARG: return arena_printf(s->a, "runtime argument '%s'", v.msg);
	case V_CONFIG: return "triton.Config";
	case V_AGG: return agg_describe(s, v);
	case V_POISON:
	case V_ERR: return "error";
	}
	return "value";
}

const char *istr(Sema *s, const char *str) { return intern_cstr(s->c->names, str); }

/* ---- environments -------------------------------------------------------------- */

Value *env_find(Env *e, const char *name)
{
	for (size_t i = e->len; i-- > 0;)
		if (e->data[i].name == name) return &e->data[i].v;
	return NULL;
}

void env_set(Env *e, const char *name, Value v)
{
	Value *p = env_find(e, name);
	if (p) *p = v;
	else vec_push(e, ((Binding){name, v}));
}

void env_copy(Env *dst, const Env *src)
{
	dst->len = 0;
	for (size_t i = 0; i < src->len; i++) vec_push(dst, src->data[i]);
}

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
} Scan;

static void add_binding(Sema *s, ModScope *m, const Scan *sc, Global g)
{
	g.alt = sc->alt;
	g.guards = sc->guards;
	g.nguards = sc->nguards;
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
	Scan top = {0, NULL, 0};
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
	Scan in = {sc->alt, g, sc->nguards + 1};
	scan_stmts(s, m, &in, st->body);
	Guard *ge = ARENA_NEWN(s->a, Guard, sc->nguards + 1);
	memcpy(ge, g, sizeof(Guard) * (size_t)(sc->nguards + 1));
	ge[sc->nguards].want = false;
	Scan el = {sc->alt, ge, sc->nguards + 1};
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
				Global g = {.kind = GB_IMPORT, .stmt = st, .modname = in->name, .loc = in->loc};
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
							      .modname = st->module, .attr = in->name, .level = st->level, .loc = in->loc});
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
		case ST_FOR:
		case ST_WHILE:
		case ST_AUGASSIGN:
		case ST_EXPR: scan_host_stmt(s, m, sc, st); break;
		case ST_IF: scan_if(s, m, &nested, st); break;
		case ST_CLASS: scan_class(s, m, sc, st); break;
		case ST_TRY:
			/* the body (and its else) first, then each handler; finally binds for all */
			scan_stmts(s, m, &nested, st->try_body);
			scan_stmts(s, m, &nested, st->try_else);
			for (int h = 0; h < st->nhandlers; h++) scan_stmts(s, m, &nested, st->handlers[h]);
			scan_stmts(s, m, sc, st->try_final);
			break;
		default: break;
		}
	}
}

ModScope *modscope_new(Sema *s, const Module *ast, const char *name)
{
	ModScope *m = ARENA_NEW(s->a, ModScope);
	m->ast = ast;
	m->name = name;
	Scan top = {0, NULL, 0};
	if (ast) scan_stmts(s, m, &top, ast->body);
	m->next = s->mods;
	s->mods = m;
	return m;
}

static ModScope *find_user_module(Sema *s, ModScope *from, const char *name, SrcLoc loc, bool quiet);
static ModScope *package_scope(Sema *s, ModScope *from, const char *name);

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

static Value eval_module_expr(Sema *s, ModScope *m, const Expr *e)
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
typedef struct Quiet {
	DiagSink sink, *saved;
	const Diag *limit; /* s->limit_diag at the start */
} Quiet;

static void quiet_begin(Sema *s, Quiet *q)
{
	diag_init(&q->sink);
	q->saved = s->d;
	q->limit = s->limit_diag;
	s->d = &q->sink;
}

/* Restores the real sink; true if anything failed, *first (if given) the
 * first diagnostic, in the arena. */
static bool quiet_end(Sema *s, Quiet *q, Diag *first)
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

static bool is_jit_decorated(Sema *s, const FuncDef *fn);
bool sema_is_jit(Sema *s, const FuncDef *fn) { return is_jit_decorated(s, fn); }

/* A function defined in a class body: its body sees the module's names (not
 * the class's), as in Python. One without @jit is a host method: host code
 * may call it (`@triton.autotune(configs(), ...)` in the class body), a
 * kernel may not (msg names it for call_value). */
static Value class_func(Sema *s, ModScope *m, const Global *g)
{
	Value v = {.kind = V_FUNC, .fn = g->fn, .mod = m->parent};
	if (is_jit_decorated(s, g->fn)) return v;
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
	m->limit = idx ? idx : (size_t)-1;
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
			if (mod.kind != V_ERR) v = get_attr(s, mod, g->attr, g->loc);
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

/* The alternatives of a module-level if/try bound to the same name, in
 * source order: the first allowed one that evaluates; errors are reported
 * for the last one tried; with every one ruled out, the binding before the
 * if/try. */
static Value eval_alternatives(Sema *s, ModScope *m, size_t last, SrcLoc loc)
{
	Global *g = &m->globals.data[last];
	if (g->alt_done) return g->alt_val; /* resolved before: every use of the name asks */
	const char *name = g->name;
	int alt = g->alt;
	size_t first = last;
	while (first > 0 && m->globals.data[first - 1].alt == alt) first--;
	VEC(size_t) cand = {0};
	for (size_t i = first; i <= last; i++)
		if (m->globals.data[i].name == name && guards_allow(s, m, &m->globals.data[i])) vec_push(&cand, i);
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
		if (!found)
			diag_error(s->d, loc, "'%s' is bound only in branches of a module-level 'if' that are not taken",
				   name);
	}
	vec_free(&cand);
	g = &m->globals.data[last]; /* evaluation may have grown the vector */
	g->alt_done = v.kind != V_ERR;
	g->alt_val = v;
	return v;
}

static Value star_lookup(Sema *s, ModScope *m, size_t idx, const char *name, SrcLoc loc, bool *found);

/* `name` bound in scope m itself (its enclosing scopes not asked) */
static Value scope_get(Sema *s, ModScope *m, const char *name, SrcLoc loc, bool *found)
{
	*found = false;
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

static Value python_builtin(Sema *s, const char *name, bool *found)
{
	int id = builtin_find(name, BF_PY);
	*found = id >= 0;
	(void)s;
	return *found ? v_builtin(id, NULL) : v_err();
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
	diag_error(s->d, loc, "unknown name '%s'", name);
	return v_err();
}

/* ---- modules and namespaces ------------------------------------------------------- */

/* The module `name` (dotted; leading dots: relative) imported from `from`, or
 * NULL (without a diagnostic when quiet). One ModScope per file. */
/* Says where an absolute import was looked for (source.c resolve_import). */
static void unknown_module(Sema *s, SrcLoc loc, const char *name)
{
	if (name[0] == '.') {
		diag_error(s->d, loc, "unknown module '%s'", name);
		return;
	}
	char *path = arena_strdup(s->a, name);
	for (char *q = path; *q; q++)
		if (*q == '.') *q = '/';
	diag_error(s->d, loc,
		   "unknown module '%s': no %s.py (or .tile, or %s/__init__.py) beside the importing "
		   "file, in a directory above it or on the module path (TILE_PATH)",
		   name, path, path);
}

static ModScope *find_user_module(Sema *s, ModScope *from, const char *name, SrcLoc loc, bool quiet)
{
	if (!s->c->load_module) {
		if (!quiet) diag_error(s->d, loc, "unknown module '%s'", name);
		return NULL;
	}
	Module *ast = s->c->load_module(s->c->loader_user, from ? from->ast : NULL, name, loc);
	if (!ast) {
		if (!quiet && s->d->nerrors == 0) unknown_module(s, loc, name);
		return NULL;
	}
	for (ModScope *m = s->mods; m; m = m->next)
		if (m->ast == ast && !m->is_prelude) return m;
	ModScope *m = modscope_new(s, ast, istr(s, name));
	m->importer = from;
	return m;
}

/* A package with no file of its own (`import a.b` binds `a`, and a/ has no
 * __init__.py): attributes are its submodules. */
static ModScope *package_scope(Sema *s, ModScope *from, const char *name)
{
	for (ModScope *m = s->mods; m; m = m->next)
		if (!m->ast && m->importer == from && !strcmp(m->name, name)) return m;
	ModScope *m = modscope_new(s, NULL, istr(s, name));
	m->importer = from;
	return m;
}

/* A relative import that names no file, in a module whose package the driver
 * knows (triton/ops/matmul.py: `from .. import language as tl`), is the
 * absolute import of the same name: *out is what that resolves to. */
static bool relative_in_package(Sema *s, ModScope *from, const char *rel, int level, SrcLoc loc, Value *out)
{
	if (!s->c->package_name || !from || !from->ast) return false;
	char *pkg = s->c->package_name(s->c->loader_user, from->ast, level);
	if (!pkg) return false;
	const char *abs = istr(s, *rel ? arena_printf(s->a, "%s.%s", pkg, rel) : pkg);
	free(pkg);
	*out = resolve_module_path(s, from, abs, 0, loc);
	return true;
}

/* Modules sema provides itself. whole: only the module, not its submodules
 * (`import torch`, not `torch.cuda`); user_may_shadow: a project file of
 * that name wins. */
typedef struct HostModule {
	const char *name;
	Namespace ns;
	bool whole, user_may_shadow;
} HostModule;

static const HostModule host_modules[] = {
        {"triton", NS_TRITON, false, false},
        {"tile", NS_TILE, false, false},
        /* projects test whether triton is installed: find_spec("triton") */
        {"importlib", NS_IMPORTLIB, false, true},
        /* no torch here, but module constants use its dtypes and finfo/iinfo */
        {"torch", NS_TORCH, true, true},
        /* autotune config builders: itertools.product(BLOCKS, WARPS) */
        {"itertools", NS_ITERTOOLS, true, true},
        /* version checks: version.parse(triton.__version__) >= version.parse("3.0") */
        {"packaging", NS_PACKAGING, false, true},
        /* functools.reduce, operator.mul: config arithmetic in host code */
        {"functools", NS_FUNCTOOLS, true, true},
        {"operator", NS_OPERATOR, true, true},
        /* Python's math: module constants such as math.sqrt(2.0 / math.pi) */
        {"math", NS_PYMATH, true, true},
        /* class T(NamedTuple): value classes of kernels (Triton's test_tuple) */
        {"typing", NS_TYPING, true, true},
        /* class Act(Enum): a module's Enum classes (sema_enum.c) */
        {"enum", NS_ENUM, true, true},
};

Value resolve_module_path(Sema *s, ModScope *from, const char *dotted, int level, SrcLoc loc)
{
	StrBuf full = {0};
	for (int i = 0; i < level; i++) sb_putc(&full, '.');
	sb_puts(&full, dotted);
	const char *name = istr(s, full.s ? full.s : "");
	sb_free(&full);
	const char *rel = name + level;
	size_t rootlen = strcspn(rel, ".");
	Value cur;
	const char *rest;
	const HostModule *hm = NULL;
	for (size_t i = 0; !level && i < COUNTOF(host_modules) && !hm; i++) {
		const HostModule *h = &host_modules[i];
		if (strlen(h->name) == rootlen && !strncmp(rel, h->name, rootlen) && (!h->whole || !rel[rootlen]) &&
		    (!h->user_may_shadow || !find_user_module(s, from, istr(s, h->name), loc, true)))
			hm = h;
	}
	if (hm) {
		cur = (Value){.kind = V_NS, .ns = hm->ns};
		rest = rel + rootlen;
	} else {
		/* the longest prefix that is a module; the rest are attributes */
		size_t n = strlen(name);
		ModScope *m = NULL;
		for (size_t k = n; k > (size_t)level && !m; k--) {
			if (k < n && name[k] != '.') continue;
			m = find_user_module(s, from, istr(s, arena_strndup(s->a, name, k)), loc, true);
			rest = name + k;
		}
		if (!m) {
			/* a package directory without __init__: a.b resolves through it */
			if (!level && rel[rootlen]) {
				/* a.b.c with no file for any prefix is simply unknown (the
				 * attribute chain would blame the wrong component) */
				bool any = false;
				for (size_t k = rootlen + 1; k <= n && !any; k++)
					if (k == n || name[k] == '.')
						any = find_user_module(s, from, istr(s, arena_strndup(s->a, name, k)), loc, true) != NULL;
				if (!any) {
					unknown_module(s, loc, name);
					return v_err();
				}
				m = package_scope(s, from, istr(s, arena_strndup(s->a, rel, rootlen)));
				rest = rel + rootlen;
			} else if (level && relative_in_package(s, from, rel, level, loc, &cur)) {
				return cur;
			} else {
				find_user_module(s, from, name, loc, false); /* reports it */
				return v_err();
			}
		}
		cur = (Value){.kind = V_MODULE, .mod = m};
	}
	while (*rest == '.') {
		rest++;
		size_t len = strcspn(rest, ".");
		cur = get_attr(s, cur, istr(s, arena_strndup(s->a, rest, len)), loc);
		if (cur.kind == V_ERR) return cur;
		rest += len;
	}
	return cur;
}

/* The base classes of class scope c that are classes tile knows (a base
 * from host code, torch.autograd.Function, is left out): *out, at most max. */
static int class_bases(Sema *s, ModScope *c, ModScope **out, int max)
{
	int n = 0;
	for (int i = 0; i < c->cls->nbases && n < max; i++) {
		Quiet q;
		quiet_begin(s, &q);
		Value b = eval_module_expr(s, c->parent, c->cls->bases[i]);
		bool failed = quiet_end(s, &q, NULL);
		if (!failed && b.kind == V_MODULE && b.mod->cls && b.mod != c) out[n++] = b.mod;
	}
	return n;
}

/* `name` of class scope c: bound in its body, else in its bases, depth
 * first from the left (Python's MRO for single inheritance and for base
 * classes that share no ancestor) */
static Value class_get(Sema *s, ModScope *c, const char *name, SrcLoc loc, bool *found)
{
	Value v = scope_get(s, c, name, loc, found);
	if (*found || c->mro_busy) return v;
	ModScope *bases[16];
	int n = class_bases(s, c, bases, 16);
	c->mro_busy = true;
	for (int i = 0; i < n && !*found; i++) v = class_get(s, bases[i], name, loc, found);
	c->mro_busy = false;
	return v;
}

bool class_derives(Sema *s, ModScope *c, ModScope *base)
{
	if (c == base) return true;
	if (c->mro_busy) return false;
	ModScope *bases[16];
	int n = class_bases(s, c, bases, 16);
	bool r = false;
	c->mro_busy = true;
	for (int i = 0; i < n && !r; i++) r = class_derives(s, bases[i], base);
	c->mro_busy = false;
	return r;
}

Value class_member(Sema *s, ModScope *c, const char *name, SrcLoc loc, bool *found)
{
	*found = false;
	return class_get(s, c, istr(s, name), loc, found);
}

/* whether decorator d of class c is triton.aggregate / tl.core._aggregate */
static bool is_aggregate_decorator(Sema *s, ModScope *c, const Expr *d)
{
	Quiet q;
	quiet_begin(s, &q);
	Value v = eval_module_expr(s, c->parent, d);
	bool failed = quiet_end(s, &q, NULL);
	if (failed || v.kind != V_BUILTIN) return false;
	return builtin_get(v.builtin)->fn == builtin_get(builtin_find("_aggregate", BF_TL))->fn;
}

/* whether class c derives from typing.NamedTuple (a direct base, as Python
 * allows no other way to make one) */
static bool is_namedtuple_class(Sema *s, ModScope *c)
{
	for (int i = 0; i < c->cls->nbases; i++) {
		Quiet q;
		quiet_begin(s, &q);
		Value b = eval_module_expr(s, c->parent, c->cls->bases[i]);
		bool failed = quiet_end(s, &q, NULL);
		if (!failed && b.kind == V_NS && b.ns == NS_TYPING_NAMEDTUPLE) return true;
	}
	return false;
}

/* Adds the annotated names of class c (after those of its aggregate bases). */
typedef VEC(AggField) AggFieldVec;

static void agg_collect(Sema *s, ModScope *c, AggFieldVec *out, int depth)
{
	ModScope *bases[16];
	int nb = depth < 16 ? class_bases(s, c, bases, 16) : 0;
	for (int i = 0; i < nb; i++)
		if (class_aggregate(s, bases[i])) agg_collect(s, bases[i], out, depth + 1);
	for (int i = 0; i < c->cls->body.n; i++) {
		const Stmt *st = c->cls->body.items[i];
		if (st->kind != ST_ANNASSIGN || st->ann_target->kind != EX_NAME) continue;
		const char *an = agg_ann_name(st->annotation);
		AggField f = {.name = st->ann_target->name, .ann = st->annotation, .has_default = st->ann_value != NULL,
			      .is_const = an && !strcmp(an, "constexpr"), .owner = c};
		size_t k = 0;
		while (k < out->len && out->data[k].name != f.name) k++;
		if (k < out->len) out->data[k] = f; /* redeclared: keeps its place, as a dataclass's field */
		else vec_push(out, f);
	}
}

/* Classifies class c once (agg_state) and collects its fields. */
static void classify_class(Sema *s, ModScope *c)
{
	if (c->agg_state == 0) {
		c->agg_state = 1;
		for (int i = 0; i < c->cls->ndecorators; i++)
			if (is_aggregate_decorator(s, c, c->cls->decorators[i])) c->agg_state = 2;
		if (c->agg_state == 1 && is_namedtuple_class(s, c)) c->agg_state = 3;
		if (c->agg_state >= 2) {
			AggFieldVec fs = {0};
			agg_collect(s, c, &fs, 0);
			c->agg.n = (int)fs.len;
			c->agg.fields = fs.len ? vec_to_arena(s->a, &fs) : NULL;
			vec_free(&fs);
		}
	}
}

const AggInfo *class_aggregate(Sema *s, ModScope *c)
{
	if (!c->cls) return NULL;
	classify_class(s, c);
	return c->agg_state == 2 ? &c->agg : NULL;
}

const AggInfo *class_namedtuple(Sema *s, ModScope *c)
{
	if (!c || !c->cls) return NULL;
	classify_class(s, c);
	return c->agg_state == 3 ? &c->agg : NULL;
}

Value module_attr(Sema *s, ModScope *m, const char *name, SrcLoc loc)
{
	bool found = false;
	if (m->cls) {
		Value v;
		if (enum_lookup(s, m, name, loc, &v)) return v; /* Act.RELU: an Enum member */
		v = class_get(s, m, name, loc, &found);
		if (found) return v;
		const AggInfo *nt = class_namedtuple(s, m);
		if (nt && !strcmp(name, "_fields")) return nt_fields(s, nt);
		diag_error(s->d, loc, "class '%s' has no attribute '%s'", m->name, name);
		return v_err();
	}
	Value v = m->ast ? global_get(s, m, name, loc, &found) : v_err();
	if (found) return v;
	/* a submodule: pkg.sub imported by the module that imported pkg */
	ModScope *sub = find_user_module(s, m->importer, arena_printf(s->a, "%s.%s", m->name, name), loc, true);
	if (sub) return (Value){.kind = V_MODULE, .mod = sub};
	diag_error(s->d, loc, "module '%s' has no attribute '%s'", m->name ? m->name : "?", name);
	return v_err();
}

static const char *ns_prefix(int ns)
{
	switch (ns) {
	case NS_TRITON: return "triton";
	case NS_MATH: return "tl.math";
	case NS_EXTRA: return "tl.extra";
	case NS_EXTRA_CUDA: return "tl.extra.cuda";
	case NS_LIBDEVICE: return "libdevice";
	case NS_TILE: return "tile";
	case NS_TORCH: return "torch";
	case NS_TORCH_VERSION: return "torch.version";
	case NS_TORCH_CUDA: return "torch.cuda";
	case NS_TORCH_VERSION_CUDA: return "torch.version.cuda";
	case NS_PYMATH: return "math";
	case NS_IMPORTLIB: return "importlib";
	case NS_IMPORTLIB_UTIL: return "importlib.util";
	case NS_ITERTOOLS: return "itertools";
	case NS_FUNCTOOLS: return "functools";
	case NS_OPERATOR: return "operator";
	case NS_TARGET_INFO: return "tl.target_info";
	case NS_PACKAGING: return "packaging";
	case NS_PACKAGING_VERSION: return "packaging.version";
	case NS_TYPING: return "typing";
	case NS_TYPING_NAMEDTUPLE: return "typing.NamedTuple";
	case NS_ENUM: return "enum";
	case NS_ENUM_ENUM: return "enum.Enum";
	case NS_ENUM_INTENUM: return "enum.IntEnum";
	case NS_ENUM_FLAG: return "enum.Flag";
	case NS_ENUM_INTFLAG: return "enum.IntFlag";
	case NS_ENUM_STRENUM: return "enum.StrEnum";
	case NS_ENUM_AUTO: return "enum.auto";
	case NS_ENUM_UNIQUE: return "enum.unique";
	default: return "tl";
	}
}

/* libdevice spellings that are not our builtin names */
static const char *libdevice_alias(const char *n)
{
	static const char *tab[][2] = {
	    {"fast_expf", "exp"},     {"fast_exp2f", "exp2"}, {"fast_logf", "log"},   {"fast_log2f", "log2"},
	    {"fast_sinf", "sin"},     {"fast_cosf", "cos"},   {"fast_tanf", "tan"},   {"fast_powf", "pow"},
	    {"fast_dividef", "fdiv"}, {"fabs", "abs"},        {"fmax", "maximum"},    {"fmin", "minimum"},
	    {"nearbyint", "rint"},    {"isnan", "isnan"},     {"isinf", "isinf"},
	    {"fast_log10f", "log10"}, {"fast_exp10f", "exp10"}, {"frsqrt_rn", "rsqrt"}, {"add_rn", "_add_rn"},
	    {"sub_rn", "_sub_rn"},    {"mul_rn", "_mul_rn"},  {"fma_rn", "fma"},      {"fsub_rn", "_sub_rn"},
	    {"fadd_rn", "_add_rn"},   {"fmul_rn", "_mul_rn"},  {"dadd_rn", "_add_rn"}, {"dmul_rn", "_mul_rn"},
	    {"isfinited", "isfinite"}, {"finitef", "isfinite"}, {"max", "maximum"},   {"min", "minimum"},
	    {"sqrt_rn", "sqrt_rn"},   {"div_rn", "div_rn"},   {"exp10", "exp10"},     {"rcp_rn", "rcp"},
	};
	for (size_t i = 0; i < COUNTOF(tab); i++)
		if (!strcmp(n, tab[i][0])) return tab[i][1];
	return n;
}

Value ns_attr(Sema *s, int ns, const char *name, SrcLoc loc)
{
	int id;
	DType dt;
	switch (ns) {
	case NS_TRITON:
	case NS_TILE:
		if (!strcmp(name, "language")) return (Value){.kind = V_NS, .ns = NS_TL};
		if ((id = builtin_find(name, BF_TRITON)) >= 0) return v_builtin(id, NULL);
		if (ns == NS_TILE) return ns_attr(s, NS_TL, name, loc);
		/* the Triton whose language tile implements, for version checks */
		if (!strcmp(name, "__version__")) return v_str(TILE_TRITON_VERSION);
		diag_error(s->d, loc, "'triton.%s' is not supported", name);
		return v_err();
	case NS_TL:
	case NS_TL_CORE:
		if (!strcmp(name, "math")) return (Value){.kind = V_NS, .ns = NS_MATH};
		if (!strcmp(name, "extra")) return (Value){.kind = V_NS, .ns = NS_EXTRA};
		if (!strcmp(name, "core") || !strcmp(name, "standard") || !strcmp(name, "language") || !strcmp(name, "random"))
			return (Value){.kind = V_NS, .ns = NS_TL};
		if (!strcmp(name, "libdevice")) return (Value){.kind = V_NS, .ns = NS_LIBDEVICE};
		if (!strcmp(name, "PropagateNan")) return (Value){.kind = V_NS, .ns = NS_PROPNAN};
		if (!strcmp(name, "target_info")) return (Value){.kind = V_NS, .ns = NS_TARGET_INFO};
		if (!strcmp(name, "float8e4b15") || !strcmp(name, "float8e4b8") || !strcmp(name, "float8e5b16"))
			return v_foreign_dtype(name); /* pre-Hopper and AMD fnuz fp8 */
		if (strcmp(name, "pointer") && dtype_from_name(name, &dt) && strcmp(name, "int") && strcmp(name, "float") &&
		    strcmp(name, "double") && strcmp(name, "half"))
			return v_dtype(type_scalar(dt));
		if ((id = builtin_find(name, BF_TL)) >= 0) return v_builtin(id, NULL);
		if (!strncmp(name, "_experimental_descriptor_", 25))
			diag_error(s->d, loc,
				   "'tl.%s' (Triton 3.2's access through TMA descriptor bytes the host fills, removed in "
				   "Triton 3.4) is not supported: pass a tensordesc parameter or use tl.make_tensor_descriptor",
				   name);
		else
			diag_error(s->d, loc, "'tl.%s' is not a supported builtin", name);
		return v_err();
	case NS_TORCH: {
		static const char *const alias[][2] = {{"half", "float16"}, {"float", "float32"}, {"double", "float64"},
						       {"short", "int16"}, {"int", "int32"}, {"long", "int64"},
						       {"float8_e4m3fn", "float8e4nv"}, {"float8_e5m2", "float8e5"}};
		const char *n = name;
		for (size_t i = 0; i < COUNTOF(alias); i++)
			if (!strcmp(name, alias[i][0])) n = alias[i][1];
		if (dtype_from_name(n, &dt) && strcmp(n, "pointer")) return v_dtype(type_scalar(dt));
		if ((id = builtin_find(name, BF_TORCH)) >= 0) return v_builtin(id, NULL);
		if (!strcmp(name, "version")) return (Value){.kind = V_NS, .ns = NS_TORCH_VERSION};
		if (!strcmp(name, "cuda")) return (Value){.kind = V_NS, .ns = NS_TORCH_CUDA};
		diag_error(s->d, loc, "'torch.%s' is not available: kernels see torch's dtypes, finfo/iinfo and Tensor (for isinstance) only", name);
		return v_err();
	}
	case NS_TORCH_VERSION:
		/* `torch.version.hip is not None` picks AMD code paths; what tile
		 * compiles is never for ROCm. The CUDA version is the host's. */
		if (!strcmp(name, "hip")) return (Value){.kind = V_CONST, .c = {.kind = CV_NONE}};
		/* `torch.version.cuda is not None` (tritonbench's is_cuda()) picks the
		 * CUDA paths, which tile takes on every target; the string itself is
		 * the host's, so nothing else may read it */
		if (!strcmp(name, "cuda")) return (Value){.kind = V_NS, .ns = NS_TORCH_VERSION_CUDA};
		diag_error(s->d, loc,
			   "'torch.version.%s' is not available: kernels see torch.version.hip (None) and .cuda (not None) only",
			   name);
		return v_err();
	case NS_TORCH_VERSION_CUDA:
		diag_error(s->d, loc, "torch.version.cuda is the host's CUDA version: a kernel may only test it against None");
		return v_err();
	case NS_TORCH_CUDA:
		/* host code picks its Triton path with `if torch.cuda.is_available():`
		 * (Fast-LLM's tl_arange = tl.arange): the kernels tile compiles are
		 * Triton's, which run where CUDA does */
		if ((id = builtin_find(name, BF_TORCH_CUDA)) >= 0) return v_builtin(id, NULL);
		diag_error(s->d, loc, "'torch.cuda.%s' is not available: kernels see torch.cuda.is_available() (True) only",
			   name);
		return v_err();
	case NS_PYMATH: {
		static const struct {
			const char *name;
			double v;
		} k[] = {{"pi", 3.141592653589793}, {"e", 2.718281828459045}, {"tau", 6.283185307179586},
			 {"inf", INFINITY}, {"nan", NAN}};
		for (size_t i = 0; i < COUNTOF(k); i++)
			if (!strcmp(name, k[i].name)) return v_float(k[i].v);
		if ((id = builtin_find(name, BF_PYMATH)) >= 0) return v_builtin(id, NULL);
		diag_error(s->d, loc, "'math.%s' is not supported (math functions work on constexpr numbers)", name);
		return v_err();
	}
	case NS_IMPORTLIB:
		if (!strcmp(name, "util")) return (Value){.kind = V_NS, .ns = NS_IMPORTLIB_UTIL};
		break;
	case NS_IMPORTLIB_UTIL:
		if ((id = builtin_find(name, BF_IMPORTLIB)) >= 0) return v_builtin(id, NULL);
		break;
	case NS_FUNCTOOLS:
	case NS_OPERATOR:
		if ((id = builtin_find(name, ns == NS_FUNCTOOLS ? BF_FUNCTOOLS : BF_OPERATOR)) >= 0 && name[0] != '_')
			return v_builtin(id, NULL);
		diag_error(s->d, loc, "'%s.%s' is not supported", ns == NS_FUNCTOOLS ? "functools" : "operator", name);
		return v_err();
	case NS_ITERTOOLS:
		if ((id = builtin_find(name, BF_ITERTOOLS)) >= 0) return v_builtin(id, NULL);
		diag_error(s->d, loc, "'itertools.%s' is not supported (product and chain are)", name);
		return v_err();
	case NS_TARGET_INFO:
		if ((id = builtin_find(arena_printf(s->a, "_target_%s", name), BF_TL)) >= 0) return v_builtin(id, NULL);
		break;
	case NS_TYPING:
		if (!strcmp(name, "NamedTuple")) return (Value){.kind = V_NS, .ns = NS_TYPING_NAMEDTUPLE};
		diag_error(s->d, loc, "'typing.%s' is not supported in kernels (typing.NamedTuple is)", name);
		return v_err();
	case NS_ENUM: {
		static const char *const names[] = {"Enum", "IntEnum", "Flag", "IntFlag", "StrEnum", "auto", "unique"};
		for (size_t i = 0; i < COUNTOF(names); i++)
			if (!strcmp(name, names[i])) return (Value){.kind = V_NS, .ns = NS_ENUM_ENUM + (int)i};
		diag_error(s->d, loc, "'enum.%s' is not supported (Enum, IntEnum, Flag, IntFlag, StrEnum, auto and unique are)",
			   name);
		return v_err();
	}
	case NS_PACKAGING:
		if (!strcmp(name, "version")) return (Value){.kind = V_NS, .ns = NS_PACKAGING_VERSION};
		diag_error(s->d, loc, "'packaging.%s' is not supported (packaging.version is)", name);
		return v_err();
	case NS_PACKAGING_VERSION:
		if ((id = builtin_find(name, BF_PACKAGING)) >= 0) return v_builtin(id, NULL);
		diag_error(s->d, loc, "'packaging.version.%s' is not supported (parse and Version are)", name);
		return v_err();
	case NS_PROPNAN:
		if (!strcmp(name, "ALL")) return v_int(0xffff);
		if (!strcmp(name, "NONE")) return v_int(0);
		break;
	case NS_EXTRA:
		if (!strcmp(name, "cuda") || !strcmp(name, "intel") || !strcmp(name, "hip"))
			return (Value){.kind = V_NS, .ns = NS_EXTRA_CUDA};
		if (!strcmp(name, "libdevice")) return (Value){.kind = V_NS, .ns = NS_LIBDEVICE};
		break;
	case NS_EXTRA_CUDA:
		if (!strcmp(name, "libdevice")) return (Value){.kind = V_NS, .ns = NS_LIBDEVICE};
		/* programmatic dependent launch: tile does not launch with it, so waiting
		 * for the previous grid and releasing the next are no-ops */
		if (!strcmp(name, "gdc_wait") || !strcmp(name, "gdc_launch_dependents"))
			return v_builtin(builtin_find("_gdc_noop", BF_TL), NULL);
		/* num_warps, num_threads, min/max_nan_xorsign_abs_f32 */
		if ((id = builtin_find(arena_printf(s->a, "_cuda_%s", name), BF_TL)) >= 0) return v_builtin(id, NULL);
		break;
	case NS_MATH:
	case NS_LIBDEVICE: {
		/* Triton 2.1/2.2's tl.math.max/min(x, y[, propagate_nan]) are the
		 * elementwise maximum/minimum (Inductor of that time emits them) */
		const char *n = name;
		if (ns == NS_LIBDEVICE || !strcmp(name, "max") || !strcmp(name, "min"))
			n = libdevice_alias(name);
		if ((id = builtin_find(n, BF_MATH)) >= 0) return v_builtin(id, NULL);
		/* Triton 2.1's tl.math was libdevice (trident writes tl.math.fast_expf):
		 * a name tl.math lacks is looked up as libdevice's */
		if (ns == NS_MATH && (id = builtin_find(n = libdevice_alias(name), BF_MATH)) >= 0) return v_builtin(id, NULL);
		/* libdevice's float variants: expf, sqrtf, ... */
		size_t len = strlen(n);
		if (len > 1 && n[len - 1] == 'f') {
			char buf[64];
			snprintf(buf, sizeof buf, "%.*s", (int)(len - 1), n);
			if ((id = builtin_find(libdevice_alias(buf), BF_MATH)) >= 0) return v_builtin(id, NULL);
		}
		if (len > 3 && (!strcmp(n + len - 3, "_rz") || !strcmp(n + len - 3, "_rd") || !strcmp(n + len - 3, "_ru")))
			diag_error(s->d, loc, "'%s.%s' is not supported: tile has no arithmetic with directed rounding "
				   "(the _rn variant is)", ns_prefix(ns), name);
		else
			diag_error(s->d, loc, "'%s.%s' is not a supported builtin", ns_prefix(ns), name);
		return v_err();
	}
	}
	diag_error(s->d, loc, "unknown attribute '%s' of '%s'", name, ns_prefix(ns));
	return v_err();
}

/* ---- kernels ------------------------------------------------------------------------ */

static const char *expr_last_name(const Expr *e)
{
	if (!e) return NULL;
	if (e->kind == EX_CALL) return expr_last_name(e->func);
	if (e->kind == EX_NAME) return e->name;
	if (e->kind == EX_ATTR) return e->attr;
	return NULL;
}

/* `a.b.c` as text when e is a name or a chain of attributes on one, else NULL:
 * how a host names a module-level object (a @jit function, an Enum member). */
static const char *dotted_name_text(Arena *a, const Expr *e)
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
	Quiet q;
	quiet_begin(s, &q);
	Fn tmp;
	fn_init(s, &tmp, NULL, ms, false);
	Value v = eval(s, &tmp, d);
	fn_free(&tmp);
	quiet_end(s, &q, NULL);
	return v.kind == V_BUILTIN && !v.self ? builtin_get(v.builtin)->name : NULL;
}

/* the same, in the main module */
static const char *deco_builtin(Sema *s, const Expr *d)
{
	return deco_builtin_in(s, s->main_mod, d);
}

static bool is_kernel_decorator_name(const char *n)
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

static bool is_jit_decorated(Sema *s, const FuncDef *fn)
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
static const Expr *deco_alias(const Module *m, const Expr *d)
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

typedef struct Heur {
	const char *name; /* the parameter it sets */
	Value fn;         /* lambda (or function) of `args` */
	SrcLoc loc;
} Heur;

typedef VEC(Heur) HeurVec;

typedef struct KDeco {
	KernelConfig *configs;
	int nconfigs;
	Heur *heurs; /* in evaluation order: outermost decorator first, then dict order */
	int nheurs;
	/* a decorator argument built by host Python tile cannot evaluate
	 * (configs=get_configs(), a dict from a YAML file): why, for the error
	 * a missing parameter then gets; the host binds what it would set */
	const char *unevaluated;
	/* prune_configs_by={'early_config_prune': fn}: fn, which
	 * sema_heuristic_values runs on the actual arguments (kind 0 when none),
	 * and the configs as the decorator built them, fn's first argument */
	Value prune, cfgs;
	SrcLoc prune_loc;
	/* prune_configs_by's perf_model (kind 0 when none) and top_k (kind 0: Triton's 1.0) */
	Value perf, topk;
	/* a prune_configs_by tile cannot evaluate: why, for a warning where it would run */
	const char *prune_why;
} KDeco;

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
static bool is_launch_option(const char *name)
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
	return pos < d->nargs ? d->args[pos] : NULL;
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

static int param_index(const FuncDef *def, const char *name)
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
		SrcLoc at = ve_items && i < ve_items->nkeys ? ve_items->keys[i]->loc : ve->loc;
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

/* Reads the decorators of a kernel (outermost first). Unknown decorators are ignored. */
static bool kernel_decorators(Sema *s, ModScope *ms, const FuncDef *def, KDeco *out)
{
	memset(out, 0, sizeof *out);
	HeurVec hs = {0};
	bool ok = true;
	Fn tmp;
	fn_init(s, &tmp, NULL, ms, false);
	/* decorator arguments are host Python: their loops run here, and
	 * nothing they do may land in the kernel's code */
	s->host_fn++;
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
		if (n && !strcmp(n, "autotune")) ok = deco_autotune(s, env, def, d, out);
		else if (n && !strcmp(n, "heuristics")) ok = deco_heuristics(s, env, def, d, &hs, &out->unevaluated);
		if (fd) fn_free(&ffn);
		if (ok && s->blk && s->blk->nops != nops) {
			diag_error(s->d, def->decorators[i]->loc,
				   "this decorator's arguments run kernel code (tensor operations); they are host "
				   "Python, run before the kernel");
			ok = false;
		}
	}
	s->host_fn--;
	fn_free(&tmp);
	out->nheurs = (int)hs.len;
	out->heurs = hs.len ? vec_to_arena(s->a, &hs) : NULL;
	vec_free(&hs);
	return ok;
}

static const Heur *find_heur(const KDeco *kd, const char *name)
{
	for (int i = 0; i < kd->nheurs; i++)
		if (!strcmp(kd->heurs[i].name, name)) return &kd->heurs[i];
	return NULL;
}

static const KernelConfigArg *find_config_arg(const KDeco *kd, const char *name)
{
	for (int c = 0; c < kd->nconfigs; c++) /* the first config that sets it */
		for (int k = 0; k < kd->configs[c].nkwargs; k++)
			if (!strcmp(kd->configs[c].kwargs[k].name, name)) return &kd->configs[c].kwargs[k];
	return NULL;
}

static bool is_constexpr_annotation(const Expr *ann)
{
	/* also written as a string, `BLOCK: "tl.constexpr"`, which Triton reads as text */
	const char *n = ann && ann->kind == EX_STR ? agg_ann_name(ann) : expr_last_name(ann);
	return ann && ann->kind != EX_CALL && n && !strcmp(n, "constexpr");
}

/* A kernel parameter's annotation naming tl.constexpr through an alias
 * (Fast-LLM's `n_cols: tl_constexpr`, `tl_constexpr = tl.constexpr` in another
 * module): Triton reads the evaluated annotation, so tile evaluates a name it
 * does not read as constexpr, quietly, in the kernel's module. */
static bool param_is_constexpr(Sema *s, ModScope *ms, const Expr *ann)
{
	if (is_constexpr_annotation(ann)) return true;
	if (!ann || !ms || (ann->kind != EX_NAME && ann->kind != EX_ATTR)) return false;
	Quiet q;
	quiet_begin(s, &q);
	Fn tmp;
	fn_init(s, &tmp, NULL, ms, false);
	Value v = eval(s, &tmp, ann);
	fn_free(&tmp);
	bool failed = quiet_end(s, &q, NULL);
	return !failed && v.kind == V_BUILTIN && !v.self && !strcmp(builtin_get(v.builtin)->name, "constexpr");
}

/* `s: tl.int64` (or "tl.int64"): the scalar dtype that Triton's launcher gives
 * the argument whatever its value; only the explicit widths and bool (u1), as
 * Triton's KernelParam.annotation_type, so `n: int` stays typed by the value. */
static DType runtime_annotation_dtype(const Expr *ann)
{
	const char *n = !ann || ann->kind == EX_CALL ? NULL
	                : ann->kind == EX_STR         ? agg_ann_name(ann)
	                                              : expr_last_name(ann);
	DType d;
	if (!n || !dtype_from_name(n, &d) || d == DT_F8E4M3 || d == DT_F8E5M2)
		return DT_VOID;
	return strcmp(n, dtype_name(d)) == 0 || strcmp(n, "bool") == 0 ? d : DT_VOID;
}

static void sema_setup(Sema *s, SemaCtx *c)
{
	memset(s, 0, sizeof *s);
	s->c = c;
	s->a = c->arena;
	s->d = c->diags;
	s->s_constexpr = istr(s, "constexpr");
}

/* Module scopes live in the arena, but their globals are a heap VEC: free them
 * (every scope, the prelude and imported modules included, is on s->mods). */
static void sema_teardown(Sema *s)
{
	vec_free(&s->callstack);
	vec_free(&s->jit_wrap_seen);
	vec_free(&s->jit_wrapped);
	vec_free(&s->tma_descs);
	for (ModScope *m = s->mods; m; m = m->next) vec_free(&m->globals);
	s->mods = NULL;
	s->prelude = NULL;
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
		if (!is_jit_decorated(s, k)) k = NULL;
	}
	vec_free(&decos);
	return k;
}

/* The kernel (a @jit/@autotune/@heuristics def or a call form) that module
 * statement idx defines, or NULL. */
static const FuncDef *kernel_at(Sema *s, const Module *m, int idx)
{
	const Stmt *st = m->body.items[idx];
	if (st->kind == ST_FUNCDEF) return is_jit_decorated(s, st->func) ? st->func : NULL;
	return call_form_kernel(s, m, idx);
}

/* The module's statements where kernels may be defined, in source order:
 * the top level, the branches of module-level if/try spliced in
 * (bitsandbytes defines its kernels under `if not is_triton_available():
 * <host stubs> else: <kernels>`), and the kernels defined in host functions
 * (torchao builds its kernels in a function that imports triton lazily).
 * A branch whose condition is a constexpr that rules it out is left out.
 * grp: 0 at the top level, else the outermost if/try the statement is in;
 * br: the branch it is in; scope: where its names resolve (a host
 * function's locals, then the module, for a kernel defined in one). */
typedef struct NameAt {
	const char *name;
	int idx;
} NameAt;

typedef struct Flat {
	Module mod;
	int *grp, *br;
	ModScope **scope;
	int ngrp, nbr;
	NameAt *binds; /* the statements that bind a name, by name then index */
	int nbinds;
} Flat;

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
		if (g->kind != GB_FUNC || !is_jit_decorated(s, g->fn)) continue;
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

static void flatten_module(Sema *s, ModScope *ms, const Module *m, Flat *f)
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

static const FuncDef *find_kernel(Sema *s, const Flat *f, const char *name, ModScope **scope)
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
				pi->ann_dt = (uint8_t)runtime_annotation_dtype(fn->params[p].annotation);
			if (fn->params[p].default_val) {
				/* quietly: a default built by host Python (torch.finfo(...).min)
				 * matters only if the caller leaves the parameter unbound, and
				 * then sema reports it when it specializes */
				Fn tmp;
				fn_init(&s, &tmp, NULL, flat.scope[i], false);
				Quiet q;
				quiet_begin(&s, &q);
				s.host_fn++; /* host Python, as when the def runs */
				Value v = eval(&s, &tmp, fn->params[p].default_val);
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
 * caller gave it, else as what its specialization knows (V_RTARG) */
static Value launch_args_dict(Sema *s, Fn *fn, const FuncDef *def, const bool *skip, const int *specs,
			      const SpecArg *bound, int nbound)
{
	Value *keys = ARENA_NEWN(s->a, Value, def->nparams + 1), *vals = ARENA_NEWN(s->a, Value, def->nparams + 1);
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
	return v_dict(s, keys, vals, n);
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
	Value fargs[2] = {kd->cfgs, launch_args_dict(s, fn, def, skip, specs, bound, nbound)};
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
	for (int h = 0; h < kd->nheurs; h++) {
		const Heur *hr = &kd->heurs[h];
		int pi = param_index(def, hr->name);
		bool launch = pi < 0 && is_launch_option(hr->name);
		if (!launch && (pi < 0 || !pending[pi])) continue;
		Value args = launch_args_dict(s, fn, def, NULL, specs, bound, nbound);
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
				diag_error(s->d, hr->loc, "heuristic for '%s' gave %s; it must be %s", hr->name, v_describe(s, r),
					   hr->name[4] == 'w' ? "a power of two from 1 to 32" : "an integer from 1 to 32");
				return false;
			}
			if (hr->name[4] == 'w') s->f->num_warps = (int)opt;
			else s->f->num_stages = (int)opt;
			continue;
		}
		env_set(&fn->env, def->params[pi].name, enum_wrap(r)); /* a member arrives in a constexpr */
	}
	return true;
}

typedef VEC(TirParam) ParamVec;

/* A host tensor descriptor parameter: runtime arguments NAME (the base
 * pointer), NAME.shape<i> (i32) and NAME.stride<i> (i64, all but the last). */
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
		vec_push(params, ((TirParam){.name = nm, .ty = t, .spec = SPEC_NONE, .val = id}));
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
		} else if (ca) {
			v = spec_const_value(s, fn, p, ca->val); /* @triton.autotune: the first config */
		} else if (p->default_val) {
			/* a default is host Python, run when the def runs: a helper it
			 * calls runs here, and no kernel code may come of it */
			int nops = s->blk ? s->blk->nops : 0;
			s->host_fn++;
			v = eval(s, fn, p->default_val);
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
			Value *v = (find_heur(&kd, def->params[i].name) || pruned) && unbound
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
	if (run_module_asserts(&s, ms->cls ? ms->parent : ms) && kernel_decorators(&s, ms, def, &kd) && bind_kernel_params(&s, &fn, def, args, nargs, &kd))
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

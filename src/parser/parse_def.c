/* parse_def.c: function definitions (parameters, defaults, annotations,
 * the kernel's own rules), classes, and decorators. */
#include "parser/parse_impl.h"

#include <string.h>

static size_t name_slot(const NameSet *s, const char *name)
{
	size_t i = (size_t)(((uintptr_t)name >> 3) * 0x9e3779b97f4a7c15ull) & (s->cap - 1);
	while (s->slots[i] && s->slots[i] != name)
		i = (i + 1) & (s->cap - 1);
	return i;
}

bool ps_nameset_add(Arena *a, NameSet *s, const char *name)
{
	if (2 * (s->n + 1) > s->cap) {
		NameSet t = {ARENA_NEWN(a, const char *, s->cap ? s->cap * 2 : 16),
		             s->cap ? s->cap * 2 : 16, 0};
		for (size_t i = 0; i < s->cap; i++)
			if (s->slots[i])
				t.slots[name_slot(&t, s->slots[i])] = s->slots[i], t.n++;
		*s = t;
	}
	size_t i = name_slot(s, name);
	if (s->slots[i])
		return false;
	s->slots[i] = name;
	s->n++;
	return true;
}

static bool reject_param_marker(Parser *p)
{
	TokKind k = kind(p);
	if (k == TK_SLASH)
		ps_err_unsupported(p, "positional-only parameters ('/') are not supported");
	else
		return false;
	return true;
}

/* Whether a decorator of f is `jit` (`@triton.jit`, `@jit(...)`): such a def
 * takes no **kwargs, as Triton's code generator refuses them */
static bool jit_decorated(const FuncDef *f)
{
	for (int i = 0; i < f->ndecorators; i++) {
		const Expr *d = f->decorators[i];
		if (d->kind == EX_CALL)
			d = d->func;
		const char *n = d->kind == EX_NAME ? d->name : d->kind == EX_ATTR ? d->attr : NULL;
		if (n && !strcmp(n, "jit"))
			return true;
	}
	return false;
}

/* `*args` or a bare `*` in a def: what follows is keyword-only (Python's
 * rules: one star, and a bare one needs a named parameter after it).
 * Returns false after an error. */
static bool parse_star_param(Parser *p, FuncDef *f, NameSet *seen, bool *seen_star)
{
	Token star = ps_advance(p);
	if (*seen_star) {
		ps_err_at(p, star.loc, "* argument may appear only once");
		return false;
	}
	*seen_star = true;
	if (at(p, TK_NAME)) {
		SrcLoc loc = here(p);
		f->star = ps_expect_name(p);
		if (!ps_nameset_add(p->arena, seen, f->star))
			ps_err_at(p, loc, "duplicate argument '%s' in function definition", f->star);
		if (ps_accept(p, TK_COLON))
			ps_expr(p); /* an annotation on *args says nothing tile uses */
	} else if (!at(p, TK_COMMA) || ps_peek(p, 1)->kind == TK_RPAR) {
		ps_err_at(p, star.loc, "named arguments must follow bare *");
		return false;
	}
	return true;
}

static void parse_params(Parser *p, FuncDef *f)
{
	AVEC(Param) v = {0};
	bool seen_default = false;
	NameSet seen = {0};
	bool seen_star = false;
	ps_expect(p, TK_LPAR);
	while (!at(p, TK_RPAR) && !p->failed) {
		if (p->host_mode && at(p, TK_SLASH)) {
			/* a host def is only looked into (the kernels it defines, the
			 * decorator it returns): '/' leaves it uncallable */
			f->variadic = true;
			ps_advance(p);
			if (!ps_accept(p, TK_COMMA)) break;
			continue;
		}
		if (reject_param_marker(p)) break;
		if (at(p, TK_POW) && jit_decorated(f)) {
			ps_err_unsupported(p, "variadic keyword parameters (**kwargs) are not supported in @jit "
			                      "functions, as in Triton");
			break;
		}
		if (at(p, TK_POW)) { /* **kwargs of a plain def (host code: a config pruner, a decorator wrapper) */
			ps_advance(p);
			SrcLoc loc = here(p);
			f->kwstar = ps_expect_name(p);
			if (f->kwstar && !ps_nameset_add(p->arena, &seen, f->kwstar))
				ps_err_at(p, loc, "duplicate argument '%s' in function definition", f->kwstar);
			if (ps_accept(p, TK_COLON))
				ps_expr(p); /* an annotation on **kwargs says nothing tile uses */
			ps_accept(p, TK_COMMA);
			if (!at(p, TK_RPAR))
				ps_err_at(p, here(p), "a parameter cannot follow **%s", f->kwstar ? f->kwstar : "");
			break;
		}
		if (at(p, TK_STAR)) {
			if (!parse_star_param(p, f, &seen, &seen_star) || !ps_accept(p, TK_COMMA))
				break;
			continue;
		}
		Param prm = {.loc = here(p)};
		prm.name = ps_expect_name(p);
		if (!ps_nameset_add(p->arena, &seen, prm.name))
			ps_err_at(p, prm.loc, "duplicate argument '%s' in function definition",
			          prm.name);
		if (ps_accept(p, TK_COLON))
			prm.annotation = ps_expr(p);
		if (ps_accept(p, TK_ASSIGN))
			prm.default_val = ps_expr(p);
		else if (seen_default && !seen_star)
			ps_err_at(p, prm.loc,
			          "parameter without a default follows parameter with a default");
		seen_default = prm.default_val != NULL;
		f->nkwonly += seen_star;
		avec_push(p, &v, prm);
		if (!ps_accept(p, TK_COMMA))
			break;
	}
	ps_expect(p, TK_RPAR);
	f->params = v.items;
	f->nparams = v.n;
}

/* PEP 695 type parameters after a def's or class's name (`def div[T](x: T,
 * y: T)`, `class Registry[K, V](Base[K, V])`, Python 3.12) or a type alias's:
 * host generics say nothing tile uses, so the list is read and dropped. Each
 * is NAME, *NAME or **NAME with an optional bound (`T: int`, a NAME only) and
 * default (`T = int`, `*Ts = *tuple[int]`), as Python checks them. */
void ps_skip_type_params(Parser *p)
{
	if (!ps_accept(p, TK_LSQB))
		return;
	if (at(p, TK_RSQB)) { /* Python's SyntaxError; `def f[]()` was taken */
		ps_unexpected(p, "type parameter list cannot be empty");
		return;
	}
	while (!at(p, TK_RSQB) && !p->failed) {
		const char *star = ps_accept(p, TK_STAR) ? "TypeVarTuple"
		                   : ps_accept(p, TK_POW) ? "ParamSpec" : NULL;
		ps_expect_name(p);
		SrcLoc colon = here(p);
		if (ps_accept(p, TK_COLON)) {
			Expr *bound = ps_expr(p);
			if (star && !p->failed) { /* `def f[*T: int]()` was taken */
				ps_err_at(p, colon, "cannot use %s with %s",
				          bound && bound->kind == EX_TUPLE ? "constraints" : "bound", star);
				return;
			}
		}
		if (ps_accept(p, TK_ASSIGN)) {
			if (star && star[0] == 'T')
				ps_accept(p, TK_STAR);
			ps_expr(p);
		}
		if (!ps_accept(p, TK_COMMA))
			break;
	}
	ps_expect(p, TK_RSQB);
}

Stmt *ps_funcdef(Parser *p, ExprVec *decorators)
{
	Token kw = ps_advance(p);
	Stmt *s = ps_new_stmt(p, ST_FUNCDEF, kw.loc);
	FuncDef *f = s->func = ARENA_NEW(p->arena, FuncDef);
	f->name = ps_expect_name(p);
	ps_skip_type_params(p);
	f->decorators = decorators->items;
	f->ndecorators = decorators->n;
	parse_params(p, f);
	if (ps_accept(p, TK_ARROW))
		f->returns = ps_expr(p);
	int saved_loops = p->loop_depth;
	p->loop_depth = 0;
	p->func_depth++;
	f->body = ps_block(p, "function definition", kw.loc.line);
	p->func_depth--;
	p->loop_depth = saved_loops;
	if (f->body.n > 0 && f->body.items[0]->kind == ST_EXPR &&
	    f->body.items[0]->value->kind == EX_STR)
		f->docstring = f->body.items[0]->value->str;
	return s;
}

/* class NAME[(bases, keyword=value...)]: body, at module level (classes hold
 * kernels as static methods); inside a function a class is skipped. */
Stmt *ps_class(Parser *p, ExprVec *decorators)
{
	Token kw = ps_advance(p);
	Stmt *s = ps_new_stmt(p, ST_CLASS, kw.loc);
	ClassDef *c = s->cls = ARENA_NEW(p->arena, ClassDef);
	c->name = ps_expect_name(p);
	ps_skip_type_params(p);
	ExprVec bases = {0};
	if (ps_accept(p, TK_LPAR)) {
		while (!at(p, TK_RPAR) && !p->failed) {
			if (at(p, TK_NAME) && ps_peek(p, 1)->kind == TK_ASSIGN) { /* metaclass=...: host only */
				ps_advance(p);
				ps_advance(p);
				ps_expr(p);
			} else {
				avec_push(p, &bases, ps_expr(p));
			}
			if (!ps_accept(p, TK_COMMA))
				break;
		}
		ps_expect(p, TK_RPAR);
	}
	c->bases = bases.items;
	c->nbases = bases.n;
	c->decorators = decorators->items;
	c->ndecorators = decorators->n;
	c->body = ps_block(p, "class definition", kw.loc.line);
	return s;
}

bool ps_class_allowed(const Parser *p) { return p->func_depth == 0 && p->loop_depth == 0; }

/* class/with/try/match/async: recorded as ST_UNSUPPORTED; the header line
 * and its block (and a try's except/else/finally clauses) are skipped. */
Stmt *ps_skip_compound(Parser *p, const char *what)
{
	Token first = *cur(p);
	Stmt *s = ps_new_stmt(p, ST_UNSUPPORTED, first.loc);
	s->what = what;
	for (;;) {
		Token kw = *cur(p), last = kw;
		while (!at(p, TK_NEWLINE) && !at(p, TK_EOF) && !at(p, TK_ERROR))
			last = ps_advance(p);
		ps_expect(p, TK_NEWLINE);
		if (last.kind == TK_COLON && !at(p, TK_INDENT))
			ps_unexpected(p, "expected an indented block after %s on line %d", what,
			              kw.loc.line);
		for (int depth = 0; at(p, TK_INDENT) || depth > 0;) {
			if (at(p, TK_ERROR) || at(p, TK_EOF)) {
				ps_unexpected(p, "invalid syntax");
				return s;
			}
			TokKind k = ps_advance(p).kind;
			depth += k == TK_INDENT ? 1 : k == TK_DEDENT ? -1 : 0;
		}
		TokKind k = kind(p);
		if (first.kind != TK_TRY || (k != TK_EXCEPT && k != TK_FINALLY && k != TK_ELSE))
			return s;
	}
}

/* `@eval('''triton.heuristics({...})''')`: Python evaluates the string as an
 * expression (stable-fast writes its multi-line heuristics so), so the
 * decorator is that expression, parsed from a file named "<string>" as Python
 * names it; leading spaces and tabs are dropped, as eval drops them. A string
 * that is no expression tile parses leaves the call as it was. */
static Expr *eval_decorator(Parser *p, Expr *d)
{
	if (!d || d->kind != EX_CALL || d->func->kind != EX_NAME || strcmp(d->func->name, "eval") ||
	    d->nargs != 1 || d->nkwargs || d->args[0]->kind != EX_STR)
		return d;
	const char *str = d->args[0]->str;
	size_t len = d->args[0]->slen;
	while (len && (*str == ' ' || *str == '\t'))
		str++, len--;
	if (memchr(str, 0, len))
		return d;
	SrcFile *f = ARENA_NEW(p->arena, SrcFile);
	*f = (SrcFile){"<string>", arena_strndup(p->arena, str, len), len};
	Parser *sp = ps_sub_parser(p, f);
	sp->in_decorator = true;
	Expr *e = ps_expr(sp);
	ps_accept(sp, TK_NEWLINE);
	return sp->failed || !at(sp, TK_EOF) ? d : e;
}

Stmt *ps_decorated(Parser *p)
{
	ExprVec decos = {0};
	while (ps_accept(p, TK_AT)) {
		p->in_decorator = true;
		avec_push(p, &decos, eval_decorator(p, ps_expr(p)));
		p->in_decorator = false;
		ps_expect(p, TK_NEWLINE);
	}
	if (at(p, TK_DEF))
		return ps_funcdef(p, &decos);
	if (at(p, TK_CLASS))
		return ps_class_allowed(p) ? ps_class(p, &decos) : ps_skip_compound(p, "class definition");
	if (at(p, TK_ASYNC)) {
		for (int i = 0; i < decos.n; i++) { /* skipped, the kernel was "not found" */
			const Expr *d = decos.items[i];
			if (d && d->kind == EX_CALL) d = d->func;
			const char *n = !d ? NULL : d->kind == EX_ATTR ? d->attr : d->kind == EX_NAME ? d->name : NULL;
			if (n && !strcmp(n, "jit")) {
				ps_unexpected(p, "a kernel cannot be an async function: @jit takes a plain def");
				return ps_new_stmt(p, ST_PASS, here(p));
			}
		}
		return ps_skip_compound(p, "async function");
	}
	ps_unexpected(p, "invalid syntax");
	return ps_new_stmt(p, ST_PASS, here(p));
}

/* `match x:` (a soft keyword): a name "match" followed by what can only
 * start a subject. */

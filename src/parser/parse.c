/* parse.c: recursive-descent parser for the Python subset of .tile files:
 * the token cursor, error reporting and statements (expressions are in
 * parse_expr.c; def, class and decorators in parse_def.c).
 *
 * Requires: the token stream of lex.c.
 * Guarantees: parse_module() returns a Module whose every node is in the
 * arena and carries a location, or NULL after exactly one diagnostic (the
 * first syntax error in source order, as CPython reports it; a generic
 * "invalid syntax" gives way to a later "'(' was never closed", which is what
 * usually caused it). Never crashes on any input: nesting is bounded (the
 * lexer limits brackets and indentation, the parser limits its recursion,
 * the height of expression trees and the length of elif chains), so code
 * that walks the AST can recurse.
 *
 * Constructs outside the subset: class/with/try/del/raise/match/async become
 * ST_UNSUPPORTED (sema names them); yield, await, starred
 * expressions, comprehensions, dict unpacking, walrus, f-strings and
 * star-args and double-star-args in calls or parameters are reported here.
 */
#include "parser/parse_impl.h"

#include <string.h>

void ps_avec_grow_(Arena *a, void **items, int *cap, int n, size_t elem)
{
	if (n < *cap)
		return;
	int nc = *cap ? *cap * 2 : 4;
	void *ni = arena_alloc(a, (size_t)nc * elem);
	if (n)
		memcpy(ni, *items, (size_t)n * elem);
	*items = ni;
	*cap = nc;
}

/* ---- tokens -------------------------------------------------------------------- */

Token *ps_peek(Parser *p, int n)
{
	if (p->failed)
		return &p->eof;
	while (p->nla <= n)
		p->la[p->nla++] = lex_next(&p->lx);
	return &p->la[n];
}

Token ps_advance(Parser *p)
{
	Token t = *cur(p);
	if (!p->failed) {
		memmove(&p->la[0], &p->la[1], sizeof(Token) * (size_t)(p->nla - 1));
		p->nla--;
	}
	return t;
}

bool ps_accept(Parser *p, TokKind k)
{
	if (!at(p, k))
		return false;
	ps_advance(p);
	return true;
}

/* ---- errors --------------------------------------------------------------------- */

static void record_error(Parser *p, SrcLoc loc, bool generic, const char *fmt, va_list ap)
{
	if (p->failed)
		return;
	StrBuf b = {0};
	sb_vprintf(&b, fmt, ap);
	p->err_msg = arena_strdup(p->arena, b.s ? b.s : "");
	sb_free(&b);
	p->err_loc = loc;
	p->err_generic = generic;
	p->failed = true;
	p->eof = (Token){.kind = TK_EOF, .loc = loc};
}

/* An error at an explicit location (about a construct already parsed). */
void ps_err_at(Parser *p, SrcLoc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	record_error(p, loc, false, fmt, ap);
	va_end(ap);
}

/* An error at the current token; if that token is the lexer's error, the
 * lexer's message wins. */
static void err_tok_v(Parser *p, bool generic, const char *fmt, va_list ap)
{
	if (p->failed)
		return;
	Token *t = cur(p);
	if (t->kind == TK_ERROR) {
		ps_err_at(p, p->lx.errloc, "%s", p->lx.errmsg);
		return;
	}
	if (t->kind == TK_INDENT) {
		ps_err_at(p, t->loc, "unexpected indent");
		return;
	}
	record_error(p, t->loc, generic, fmt, ap);
}

void ps_err_tok(Parser *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	err_tok_v(p, false, fmt, ap);
	va_end(ap);
}

void ps_err_unsupported(Parser *p, const char *fmt, ...)
{
	bool first = !p->failed;
	va_list ap;
	va_start(ap, fmt);
	err_tok_v(p, false, fmt, ap);
	va_end(ap);
	if (first && cur(p)->kind != TK_ERROR && cur(p)->kind != TK_INDENT)
		p->err_unsupported = true;
}

/* The current token is not what the grammar allows here. */
void ps_unexpected(Parser *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	err_tok_v(p, true, fmt, ap);
	va_end(ap);
}

void ps_expect(Parser *p, TokKind k)
{
	if (ps_accept(p, k))
		return;
	if (k == TK_NEWLINE || k == TK_RPAR || k == TK_RSQB)
		ps_unexpected(p, "invalid syntax");
	else
		ps_unexpected(p, "expected '%s'", tok_kind_str(k));
}

const char *ps_expect_name(Parser *p)
{
	if (at(p, TK_NAME))
		return ps_advance(p).name;
	ps_unexpected(p, "invalid syntax");
	return intern_cstr(p->names, "<error>");
}

/* Emits the one diagnostic of a failed parse. */
static void report(Parser *p)
{
	if (!p->failed)
		return;
	if (p->err_generic) {
		while (!p->lx.err) {
			Token t = lex_next(&p->lx);
			if (t.kind == TK_EOF)
				break;
		}
		if (p->lx.err == LEXERR_UNCLOSED && p->lx.errloc.line < p->err_loc.line) {
			p->err_loc = p->lx.errloc;
			p->err_msg = p->lx.errmsg;
		}
	}
	diag_error(p->diags, p->err_loc, "%s", p->err_msg);
}

Stmt *ps_new_stmt(Parser *p, StmtKind k, SrcLoc loc)
{
	Stmt *s = ARENA_NEW(p->arena, Stmt);
	s->kind = k;
	s->loc = loc;
	return s;
}

/* ---- targets ---------------------------------------------------------------------- */

const char *ps_expr_desc(const Expr *e)
{
	switch (e->kind) {
	case EX_CALL: return "function call";
	case EX_INT:
	case EX_FLOAT:
	case EX_STR:
	case EX_ELLIPSIS: return "literal";
	case EX_BOOL: return e->ival ? "True" : "False";
	case EX_NONE: return "None";
	case EX_COMPARE: return "comparison";
	case EX_IFEXP: return "conditional expression";
	case EX_NAMEDEXPR: return "named expression";
	case EX_ATTR: return "attribute";
	case EX_SUBSCRIPT: return "subscript";
	case EX_TUPLE: return "tuple";
	case EX_LIST: return "list";
	case EX_SLICE: return "slice";
	case EX_DICT: return "dict literal";
	case EX_SET: return "set display";
	case EX_LAMBDA: return "lambda";
	case EX_LISTCOMP: return e->is_gen ? "generator expression" : e->is_dict ? "dict comprehension" : e->is_set ? "set comprehension" : "list comprehension";
	default: return "expression";
	}
}

static bool is_single_target(const Expr *e)
{
	return e->kind == EX_NAME || e->kind == EX_ATTR || e->kind == EX_SUBSCRIPT;
}

static void check_target(Parser *p, const Expr *e)
{
	if (is_single_target(e))
		return;
	if (e->kind == EX_TUPLE || e->kind == EX_LIST) {
		for (int i = 0; i < e->nitems; i++)
			check_target(p, e->items[i]);
		return;
	}
	ps_err_at(p, e->loc, "cannot assign to %s", ps_expr_desc(e));
}

/* ---- simple statements ------------------------------------------------------------- */

static bool aug_op(TokKind k, AstOp *op)
{
	static const struct {
		TokKind tk;
		AstOp op;
	} ops[] = {
	        {TK_PLUSEQ, OP_ADD},     {TK_MINUSEQ, OP_SUB},         {TK_STAREQ, OP_MUL},
	        {TK_SLASHEQ, OP_DIV},    {TK_FLOORDIVEQ, OP_FLOORDIV}, {TK_PERCENTEQ, OP_MOD},
	        {TK_POWEQ, OP_POW},      {TK_AMPEQ, OP_BITAND},        {TK_PIPEEQ, OP_BITOR},
	        {TK_CARETEQ, OP_BITXOR}, {TK_LSHIFTEQ, OP_LSHIFT},     {TK_RSHIFTEQ, OP_RSHIFT},
	        {TK_ATEQ, OP_MATMUL},
	};
	for (size_t i = 0; i < COUNTOF(ops); i++)
		if (ops[i].tk == k) {
			*op = ops[i].op;
			return true;
		}
	return false;
}

static Stmt *parse_annassign(Parser *p, SrcLoc loc, Expr *target)
{
	if (target->kind == EX_TUPLE || target->kind == EX_LIST)
		ps_err_at(p, target->loc, "only single target (not %s) can be annotated",
		          ps_expr_desc(target));
	else if (!is_single_target(target))
		ps_err_at(p, target->loc, "illegal target for annotation");
	ps_advance(p);
	Stmt *s = ps_new_stmt(p, ST_ANNASSIGN, loc);
	s->ann_target = target;
	s->annotation = ps_expr(p);
	if (ps_accept(p, TK_ASSIGN))
		s->ann_value = ps_testlist(p);
	return s;
}

static Stmt *parse_assign(Parser *p, SrcLoc loc, Expr *first)
{
	ExprVec targets = {0};
	Expr *value = first;
	while (ps_accept(p, TK_ASSIGN)) {
		check_target(p, value);
		avec_push(p, &targets, value);
		value = ps_testlist(p);
	}
	Stmt *s = ps_new_stmt(p, ST_ASSIGN, loc);
	s->targets = targets.items;
	s->ntargets = targets.n;
	s->assign_value = value;
	return s;
}

static Stmt *parse_expr_stmt(Parser *p)
{
	SrcLoc loc = here(p);
	Expr *lhs = ps_testlist(p);
	AstOp op;
	if (at(p, TK_COLON))
		return parse_annassign(p, loc, lhs);
	if (at(p, TK_ASSIGN))
		return parse_assign(p, loc, lhs);
	if (aug_op(kind(p), &op)) {
		if (!is_single_target(lhs))
			ps_err_at(p, lhs->loc,
			          "'%s' is an illegal expression for augmented assignment",
			          ps_expr_desc(lhs));
		ps_advance(p);
		Stmt *s = ps_new_stmt(p, ST_AUGASSIGN, loc);
		s->aug_target = lhs;
		s->aug_op = op;
		s->aug_value = ps_testlist(p);
		return s;
	}
	Stmt *s = ps_new_stmt(p, ST_EXPR, loc);
	s->value = lhs;
	return s;
}

/* a.b.c as one interned string */
static const char *parse_dotted(Parser *p)
{
	StrBuf b = {0};
	sb_puts(&b, ps_expect_name(p));
	while (ps_accept(p, TK_DOT))
		sb_puts(&b, "."), sb_puts(&b, ps_expect_name(p));
	const char *s = intern(p->names, b.s, b.len);
	sb_free(&b);
	return s;
}

static void finish_import(Stmt *s, ImportVec *v)
{
	s->names = v->items;
	s->nnames = v->n;
}

static Stmt *parse_import(Parser *p)
{
	Stmt *s = ps_new_stmt(p, ST_IMPORT, ps_advance(p).loc);
	ImportVec v = {0};
	do {
		ImportName in = {.loc = here(p)};
		in.name = parse_dotted(p);
		if (ps_accept(p, TK_AS))
			in.asname = ps_expect_name(p);
		avec_push(p, &v, in);
	} while (ps_accept(p, TK_COMMA));
	finish_import(s, &v);
	return s;
}

static void parse_from_names(Parser *p, Stmt *s)
{
	ImportVec v = {0};
	if (at(p, TK_STAR)) { /* from M import *: the one name "*" */
		ImportName in = {.loc = here(p), .name = "*"};
		ps_advance(p);
		avec_push(p, &v, in);
		finish_import(s, &v);
		return;
	}
	bool paren = ps_accept(p, TK_LPAR);
	do {
		if (paren && at(p, TK_RPAR) && v.n > 0)
			break;
		if (!paren && at(p, TK_NEWLINE) && v.n > 0)
			ps_err_tok(p, "trailing comma not allowed without surrounding parentheses");
		ImportName in = {.loc = here(p)};
		in.name = ps_expect_name(p);
		if (ps_accept(p, TK_AS))
			in.asname = ps_expect_name(p);
		avec_push(p, &v, in);
	} while (ps_accept(p, TK_COMMA));
	if (paren)
		ps_expect(p, TK_RPAR);
	finish_import(s, &v);
}

static Stmt *parse_from(Parser *p)
{
	Stmt *s = ps_new_stmt(p, ST_IMPORTFROM, ps_advance(p).loc);
	for (;;) {
		if (ps_accept(p, TK_DOT))
			s->level++;
		else if (ps_accept(p, TK_ELLIPSIS))
			s->level += 3;
		else
			break;
	}
	if (at(p, TK_NAME) || s->level == 0)
		s->module = parse_dotted(p);
	ps_expect(p, TK_IMPORT);
	parse_from_names(p, s);
	return s;
}

static Stmt *parse_global(Parser *p)
{
	Stmt *s = ps_new_stmt(p, ST_GLOBAL, ps_advance(p).loc);
	AVEC(const char *) v = {0};
	do
		avec_push(p, &v, ps_expect_name(p));
	while (ps_accept(p, TK_COMMA));
	s->gnames = v.items;
	s->ngnames = v.n;
	return s;
}

/* del/raise: recorded as unsupported, the rest of the statement skipped.
 * `del NAME` unbinds NAME: host_name says which (a module-level use after it
 * is an error, as Python's NameError). */
static Stmt *skip_simple(Parser *p, const char *what)
{
	Stmt *s = ps_new_stmt(p, ST_UNSUPPORTED, ps_advance(p).loc);
	s->what = what;
	TokKind next = ps_peek(p, 1)->kind;
	if (!strcmp(what, "del statement") && at(p, TK_NAME) &&
	    (next == TK_NEWLINE || next == TK_SEMI || next == TK_EOF))
		s->host_name = cur(p)->name;
	while (!at(p, TK_NEWLINE) && !at(p, TK_SEMI) && !at(p, TK_EOF) && !at(p, TK_ERROR))
		ps_advance(p);
	if (at(p, TK_ERROR))
		ps_unexpected(p, "invalid syntax");
	return s;
}

static Stmt *parse_keyword_stmt(Parser *p, StmtKind k, bool ok, const char *msg)
{
	Token t = ps_advance(p);
	if (!ok)
		ps_err_at(p, t.loc, "%s", msg);
	return ps_new_stmt(p, k, t.loc);
}

static Stmt *parse_return(Parser *p)
{
	Stmt *s = parse_keyword_stmt(p, ST_RETURN, p->func_depth > 0, "'return' outside function");
	if (ps_starts_expr(kind(p)))
		s->value = ps_testlist(p);
	return s;
}

static Stmt *parse_assert(Parser *p)
{
	Stmt *s = ps_new_stmt(p, ST_ASSERT, ps_advance(p).loc);
	s->test = ps_expr(p);
	if (ps_accept(p, TK_COMMA))
		s->msg = ps_expr(p);
	return s;
}

static Stmt *parse_simple(Parser *p)
{
	switch (kind(p)) {
	case TK_PASS: return parse_keyword_stmt(p, ST_PASS, true, "");
	case TK_BREAK:
		return parse_keyword_stmt(p, ST_BREAK, p->loop_depth > 0, "'break' outside loop");
	case TK_CONTINUE:
		return parse_keyword_stmt(p, ST_CONTINUE, p->loop_depth > 0,
		                          "'continue' not properly in loop");
	case TK_RETURN: return parse_return(p);
	case TK_ASSERT: return parse_assert(p);
	case TK_IMPORT: return parse_import(p);
	case TK_FROM: return parse_from(p);
	case TK_GLOBAL:
	case TK_NONLOCAL: return parse_global(p);
	case TK_DEL: return skip_simple(p, "del statement");
	case TK_RAISE: return skip_simple(p, "raise statement");
	default: return parse_expr_stmt(p);
	}
}

static void parse_simple_stmts(Parser *p, StmtVec *out)
{
	for (;;) {
		avec_push(p, out, parse_simple(p));
		if (!ps_accept(p, TK_SEMI) || at(p, TK_NEWLINE))
			break;
	}
	ps_expect(p, TK_NEWLINE);
}

/* ---- compound statements ---------------------------------------------------------- */

static void parse_statement(Parser *p, StmtVec *out);
static void parse_toplevel(Parser *p, StmtVec *out);

static StmtList to_list(StmtVec *v) { return (StmtList){v->items, v->n}; }

/* ':' then an indented block, or simple statements on the same line. */
StmtList ps_block(Parser *p, const char *after, int line)
{
	StmtVec v = {0};
	ps_expect(p, TK_COLON);
	if (!ps_accept(p, TK_NEWLINE)) {
		if (!p->failed)
			parse_simple_stmts(p, &v);
		return to_list(&v);
	}
	if (!ps_accept(p, TK_INDENT)) {
		ps_unexpected(p, "expected an indented block after %s on line %d", after, line);
		return to_list(&v);
	}
	/* the branches of a module-level if/try are module level too, and the
	 * body of a host function parsed again for the kernels inside it: host
	 * code there is skipped statement by statement, as at the top */
	bool module_level = (p->func_depth == 0 && p->loop_depth == 0) || p->host_mode;
	while (!at(p, TK_DEDENT) && !at(p, TK_EOF)) {
		if (module_level)
			parse_toplevel(p, &v);
		else
			parse_statement(p, &v);
	}
	ps_accept(p, TK_DEDENT);
	return to_list(&v);
}

static StmtList single(Parser *p, Stmt *s)
{
	StmtVec v = {0};
	avec_push(p, &v, s);
	return to_list(&v);
}

/* if/elif/else: elif chains are built iteratively (each an ST_IF alone in
 * the previous orelse). */
static Stmt *parse_if(Parser *p)
{
	Token kw = ps_advance(p);
	Stmt *top = ps_new_stmt(p, ST_IF, kw.loc), *s = top;
	const char *what = "'if' statement";
	for (int n = 0;; n++) {
		s->cond = ps_expr(p);
		s->body = ps_block(p, what, kw.loc.line);
		if (at(p, TK_ELIF) && n >= MAX_ELIF) {
			ps_err_tok(p, "too many 'elif' branches");
		} else if (at(p, TK_ELIF)) {
			kw = ps_advance(p);
			what = "'elif' statement";
			Stmt *e = ps_new_stmt(p, ST_IF, kw.loc);
			s->orelse = single(p, e);
			s = e;
			continue;
		} else if (at(p, TK_ELSE)) {
			kw = ps_advance(p);
			s->orelse = ps_block(p, "'else' statement", kw.loc.line);
		}
		return top;
	}
}

static StmtList parse_loop_body(Parser *p, const char *what, int line)
{
	p->loop_depth++;
	StmtList body = ps_block(p, what, line);
	p->loop_depth--;
	return body;
}

static StmtList parse_else(Parser *p)
{
	if (!at(p, TK_ELSE))
		return (StmtList){NULL, 0};
	Token kw = ps_advance(p);
	return ps_block(p, "'else' statement", kw.loc.line);
}

static Stmt *parse_for(Parser *p)
{
	Token kw = ps_advance(p);
	Stmt *s = ps_new_stmt(p, ST_FOR, kw.loc);
	s->for_target = ps_target(p);
	check_target(p, s->for_target);
	ps_expect(p, TK_IN);
	s->iter = ps_testlist(p);
	s->for_body = parse_loop_body(p, "'for' statement", kw.loc.line);
	s->for_orelse = parse_else(p);
	return s;
}

/* try/except/else/finally. The exception types are parsed and dropped: sema
 * uses a module-level try only to pick, among its bodies, the first whose
 * names evaluate (see sema.c); in kernels it is an error. */
static Stmt *parse_try(Parser *p)
{
	Token kw = ps_advance(p);
	Stmt *s = ps_new_stmt(p, ST_TRY, kw.loc);
	s->try_body = ps_block(p, "'try' statement", kw.loc.line);
	AVEC(StmtList) hs = {0};
	while (at(p, TK_EXCEPT) && !p->failed) {
		Token ex = ps_advance(p);
		if (!at(p, TK_COLON)) {
			ps_expr(p);
			if (ps_accept(p, TK_AS))
				ps_expect_name(p);
		}
		avec_push(p, &hs, ps_block(p, "'except' statement", ex.loc.line));
	}
	s->handlers = hs.items;
	s->nhandlers = hs.n;
	if (hs.n)
		s->try_else = parse_else(p);
	if (at(p, TK_FINALLY)) {
		Token fin = ps_advance(p);
		s->try_final = ps_block(p, "'finally' statement", fin.loc.line);
	} else if (!hs.n) {
		ps_unexpected(p, "expected 'except' or 'finally' block");
	}
	return s;
}


/* `with item [as target], ...: body` in a function (tl.async_task, a hint
 * sema runs as a plain block); several items nest. Module-level and host-mode
 * withs, and Python 3.10's parenthesized items, stay skipped host code. */
static Stmt *parse_with_items(Parser *p, Token kw)
{
	Stmt *s = ps_new_stmt(p, ST_WITH, kw.loc);
	s->cond = ps_expr(p);
	if (ps_accept(p, TK_AS)) {
		s->with_as = ps_target1(p);
		check_target(p, s->with_as);
	}
	if (ps_accept(p, TK_COMMA)) {
		Stmt *inner = parse_with_items(p, kw);
		StmtVec v = {0};
		avec_push(p, &v, inner);
		s->body = to_list(&v);
		return s;
	}
	s->body = ps_block(p, "'with' statement", kw.loc.line);
	return s;
}

static Stmt *parse_with(Parser *p)
{
	if (p->func_depth == 0 || p->host_mode || ps_peek(p, 1)->kind == TK_LPAR)
		return ps_skip_compound(p, "with statement");
	Token kw = ps_advance(p);
	return parse_with_items(p, kw);
}

static Stmt *parse_while(Parser *p)
{
	Token kw = ps_advance(p);
	Stmt *s = ps_new_stmt(p, ST_WHILE, kw.loc);
	s->cond = ps_expr(p);
	s->body = parse_loop_body(p, "'while' statement", kw.loc.line);
	s->orelse = parse_else(p);
	return s;
}

static bool is_match_stmt(Parser *p)
{
	if (cur(p)->name != p->s_match)
		return false;
	switch (ps_peek(p, 1)->kind) {
	case TK_NAME:
	case TK_INT:
	case TK_FLOAT:
	case TK_STRING:
	case TK_TRUE:
	case TK_FALSE:
	case TK_NONE:
	case TK_LBRACE: return true;
	default: return false;
	}
}

/* `type X = ...`, `type X[T] = ...` (PEP 695, a soft keyword): a type alias,
 * host code tile has no use for, skipped as one statement. */
static bool is_type_alias(Parser *p)
{
	TokKind k = ps_peek(p, 2)->kind;
	return cur(p)->name == p->s_type && ps_peek(p, 1)->kind == TK_NAME &&
	       (k == TK_ASSIGN || k == TK_LSQB);
}

/* A type alias, skipped after the checks Python makes: its parameter list
 * as a def's, and a value (`type X =` and `type X[] = int` were taken). */
static Stmt *skip_type_alias(Parser *p)
{
	SrcLoc loc = here(p);
	ps_advance(p); /* type */
	ps_advance(p); /* its name */
	ps_skip_type_params(p);
	ps_expect(p, TK_ASSIGN);
	if (at(p, TK_NEWLINE) || at(p, TK_EOF))
		ps_unexpected(p, "invalid syntax");
	Stmt *s = ps_skip_compound(p, "type alias");
	s->loc = loc;
	return s;
}

static Stmt *parse_compound(Parser *p)
{
	switch (kind(p)) {
	case TK_DEF:
	case TK_AT: {
		ExprVec none = {0};
		return at(p, TK_DEF) ? ps_funcdef(p, &none) : ps_decorated(p);
	}
	case TK_IF: return parse_if(p);
	case TK_FOR: return parse_for(p);
	case TK_WHILE: return parse_while(p);
	case TK_CLASS: {
		ExprVec none = {0};
		return ps_class_allowed(p) ? ps_class(p, &none) : ps_skip_compound(p, "class definition");
	}
	case TK_WITH: return parse_with(p);
	case TK_TRY: return parse_try(p);
	case TK_ASYNC:
		return ps_skip_compound(p, ps_peek(p, 1)->kind == TK_DEF ? "async function"
		                                                      : "async statement");
	default: return NULL;
	}
}

static void parse_statement(Parser *p, StmtVec *out)
{
	if (at(p, TK_INDENT) || at(p, TK_DEDENT)) {
		ps_unexpected(p, "invalid syntax");
		return;
	}
	Stmt *s = parse_compound(p);
	if (!s && at(p, TK_NAME) && is_match_stmt(p))
		s = ps_skip_compound(p, "match statement");
	if (!s && at(p, TK_NAME) && is_type_alias(p))
		s = skip_type_alias(p);
	if (s)
		avec_push(p, out, s);
	else
		parse_simple_stmts(p, out);
}

/* ---- host code around the kernels ------------------------------------------------ */

/* A .py file holds the host program too (wrappers with **kwargs, f-strings,
 * classes, ...). At module level (in the branches of a module-level if/try too), a statement that uses valid Python outside
 * the subset and is not a @jit/@autotune/@heuristics function is skipped and
 * recorded: sema reports it only if a kernel uses the name it defines.
 * Syntax errors are still errors. */

/* Whether the statement at the cursor is decorated with jit, autotune or
 * heuristics (scans a copy of the parser). */
static bool kernel_ahead(const Parser *p)
{
	Parser q = *p;
	while (at(&q, TK_AT)) {
		ps_advance(&q);
		for (; !at(&q, TK_NEWLINE) && !at(&q, TK_EOF) && !at(&q, TK_ERROR); ps_advance(&q)) {
			const char *n = kind(&q) == TK_NAME ? cur(&q)->name : NULL;
			if (n && (!strcmp(n, "jit") || !strcmp(n, "autotune") || !strcmp(n, "heuristics")))
				return true;
		}
		ps_advance(&q);
	}
	return false;
}

/* Skips one statement from the cursor: its decorators, its logical line and
 * indented block, and the clauses that continue a compound statement. */
static Stmt *skip_host(Parser *p, const char *err, SrcLoc errloc)
{
	Stmt *s = ps_new_stmt(p, ST_UNSUPPORTED, here(p));
	s->what = arena_printf(p->arena, "Python that tile cannot parse (line %d, column %d: %s)", errloc.line,
			       errloc.col, err);
	while (at(p, TK_AT)) {
		while (!at(p, TK_NEWLINE) && !at(p, TK_EOF) && !at(p, TK_ERROR))
			ps_advance(p);
		ps_accept(p, TK_NEWLINE);
	}
	int k = at(p, TK_ASYNC) ? 1 : 0;
	if ((ps_peek(p, k)->kind == TK_DEF || ps_peek(p, k)->kind == TK_CLASS) && ps_peek(p, k + 1)->kind == TK_NAME)
		s->host_name = ps_peek(p, k + 1)->name;
	else if (at(p, TK_NAME) && (ps_peek(p, 1)->kind == TK_ASSIGN || ps_peek(p, 1)->kind == TK_COLON))
		s->host_name = cur(p)->name;
	for (;;) {
		while (!at(p, TK_NEWLINE) && !at(p, TK_EOF) && !at(p, TK_ERROR))
			ps_advance(p);
		if (!ps_accept(p, TK_NEWLINE))
			break;
		for (int depth = 0; at(p, TK_INDENT) || depth > 0;) {
			if (at(p, TK_ERROR) || at(p, TK_EOF))
				break;
			TokKind t = ps_advance(p).kind;
			depth += t == TK_INDENT ? 1 : t == TK_DEDENT ? -1 : 0;
		}
		TokKind t = kind(p);
		if (t != TK_ELIF && t != TK_ELSE && t != TK_EXCEPT && t != TK_FINALLY)
			break;
	}
	if (at(p, TK_ERROR))
		ps_unexpected(p, "invalid syntax");
	return s;
}

/* A host def (skipped for host code in it) parsed again in host mode, so
 * that the kernels defined inside it are seen (torchao builds its kernels
 * in a function that imports triton lazily); NULL if that fails too. */
static FuncDef *reparse_host_def(Parser *snap)
{
	int k = at(snap, TK_ASYNC) ? 1 : 0;
	if (!at(snap, TK_AT) && ps_peek(snap, k)->kind != TK_DEF)
		return NULL;
	Parser q = *snap;
	q.host_mode = true;
	StmtVec v = {0};
	parse_statement(&q, &v);
	return !q.failed && v.n == 1 && v.items[0]->kind == ST_FUNCDEF ? v.items[0]->func : NULL;
}

static void parse_toplevel(Parser *p, StmtVec *out)
{
	Parser snap = *p;
	int n = out->n;
	bool kernel = kernel_ahead(&snap);
	if (kernel) {
		p->host_mode = false; /* a kernel's body is never host code */
		p->in_kernel = true;
	}
	parse_statement(p, out);
	p->host_mode = snap.host_mode;
	p->in_kernel = snap.in_kernel;
	p->err_kernel |= p->failed && kernel;
	if (!p->failed || !p->err_unsupported || p->err_kernel)
		return;
	const char *err = p->err_msg ? p->err_msg : "invalid syntax";
	SrcLoc errloc = p->err_loc;
	*p = snap;
	out->n = n;
	FuncDef *host_def = reparse_host_def(&snap);
	Stmt *s = skip_host(p, err, errloc);
	s->host_def = host_def;
	avec_push(p, out, s);
}

static Parser *new_parser(Arena *arena, Interner *names, DiagSink *diags, const SrcFile *file)
{
	Parser *p = ARENA_NEW(arena, Parser);
	p->arena = arena;
	p->names = names;
	p->diags = diags;
	p->s_match = intern_cstr(names, "match");
	p->s_type = intern_cstr(names, "type");
	lex_init(&p->lx, arena, names, file);
	return p;
}

Parser *ps_sub_parser(Parser *p, const SrcFile *file)
{
	Parser *sp = new_parser(p->arena, p->names, p->diags, file);
	sp->depth = p->depth;
	return sp;
}

Module *parse_module(Arena *arena, Interner *names, DiagSink *diags, const SrcFile *file)
{
	Parser *p = new_parser(arena, names, diags, file);
	StmtVec body = {0};
	while (!at(p, TK_EOF))
		parse_toplevel(p, &body);
	report(p);
	if (p->failed)
		return NULL;
	Module *m = ARENA_NEW(arena, Module);
	m->file = file;
	m->body = to_list(&body);
	return m;
}

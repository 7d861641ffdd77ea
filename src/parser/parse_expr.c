/* parse_expr.c: expressions, with Python's precedence.
 *
 * Requires: the cursor and error helpers of parse.c (parse_impl.h).
 * Guarantees: every expression parser returns a node (a stand-in EX_NONE
 * after an error) and leaves its tree height in p->h; trees are at most
 * MAX_HEIGHT tall and recursion at most MAX_DEPTH deep.
 *
 * Lowest to highest: ternary, or, and, not, comparisons (one flat
 * EX_COMPARE per chain), |, ^, &, << >>, + -, * / // % @, unary + - ~,
 * ** (right-associative; its right operand may be unary: 2 ** -1), await,
 * then atoms with .attr, (call) and [subscript] trailers.
 */
#include "parser/parse_impl.h"

#include <string.h>

/* ---- nodes ----------------------------------------------------------------------- */

/* Heights: every expression parser leaves the height of the tree it returns
 * in p->h (a leaf is 1, a node 1 + its tallest child). kid() folds a child's
 * height into a running maximum; done() finishes a node and enforces
 * MAX_HEIGHT, so everything downstream can recurse over an AST. */
static Expr *kid(Parser *p, int *h, Expr *e)
{
	*h = MAXOF(*h, p->h);
	return e;
}

static Expr *done(Parser *p, Expr *e, int child_h)
{
	p->h = child_h + 1;
	if (p->h > MAX_HEIGHT)
		ps_err_at(p, e->loc, "expression is too deeply nested");
	return e;
}

Expr *ps_new_expr(Parser *p, ExprKind k, SrcLoc loc)
{
	Expr *e = ARENA_NEW(p->arena, Expr);
	e->kind = k;
	e->loc = loc;
	p->h = 1;
	return e;
}

/* Stand-in after an error (parsing unwinds with it; the module is dropped). */
static Expr *dummy(Parser *p) { return ps_new_expr(p, EX_NONE, here(p)); }

/* Guards C recursion (unary chains, nested expressions). */
static bool enter(Parser *p)
{
	if (++p->depth <= MAX_DEPTH)
		return true;
	ps_err_tok(p, "expression is too deeply nested");
	return false;
}

static void leave(Parser *p) { p->depth--; }

bool ps_starts_expr(TokKind k)
{
	switch (k) {
	case TK_NAME:
	case TK_INT:
	case TK_FLOAT:
	case TK_STRING:
	case TK_TRUE:
	case TK_FALSE:
	case TK_NONE:
	case TK_LPAR:
	case TK_LSQB:
	case TK_LBRACE:
	case TK_MINUS:
	case TK_PLUS:
	case TK_TILDE:
	case TK_NOT:
	case TK_ELLIPSIS:
	case TK_LAMBDA:
	case TK_AWAIT:
	case TK_YIELD:
	case TK_STAR: return true;
	default: return false;
	}
}

/* ---- expressions ------------------------------------------------------------------ */

static Expr *parse_factor(Parser *p);
static Expr *parse_bitor(Parser *p);

/* ---- strings and f-strings -------------------------------------------------------
 * Adjacent literals concatenate. An f-string is desugared to
 * "lit" + str(expr) + "lit" ..., as Triton evaluates one (its values must be
 * constexprs); each {expr} is parsed from the source text by a parser over the
 * braces; {expr!r} is repr(expr), {expr:spec} format(expr, spec), as Python. */

/* Appends the decoded literal text [a, b) of an f-string (escapes, {{ and }}). */
static bool fstr_literal(Parser *p, SrcLoc loc, const char *a, const char *b, bool raw, StrBuf *out)
{
	for (const char *q = a; q < b; q++) {
		if ((*q == '{' || *q == '}') && q + 1 < b && q[1] == *q) {
			sb_putc(out, *q++);
			continue;
		}
		if (*q == '}') {
			ps_err_at(p, loc, "f-string: single '}' is not allowed");
			return false;
		}
		if (*q != '\\' || raw) {
			sb_putc(out, *q);
			continue;
		}
		static const char esc[] = "\\\\''\"\"n\nt\tr\r0\0";
		const char *e = q + 1 < b ? memchr(esc, q[1], sizeof esc - 1) : NULL;
		if (!e || (e - esc) % 2) {
			ps_err_at(p, loc, "f-string: this escape sequence is not supported");
			p->err_unsupported = true;
			return false;
		}
		sb_putc(out, e[1]);
		q++;
	}
	return true;
}

/* Where the {expr} starting at q ends: the '}' (or '!', ':', at bracket depth 0). */
static const char *fstr_expr_end(const char *q, const char *b)
{
	int depth = 0;
	for (; q < b; q++) {
		char c = *q;
		if (c == '\'' || c == '"') {
			const char *r = q + 1;
			while (r < b && *r != c)
				r += *r == '\\' ? 2 : 1;
			q = r;
		} else if (c == '(' || c == '[' || c == '{') {
			depth++;
		} else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
			depth--;
		} else if (depth == 0 && (c == '}' || c == ':' || (c == '!' && (q + 1 >= b || q[1] != '=')))) {
			return q;
		}
	}
	return b;
}

/* Parses the expression source [a, b) of the file with a parser of its own. */
static Expr *fstr_expr(Parser *p, Token t, const char *a, const char *b)
{
	const SrcFile *f = p->lx.file;
	Parser *sp = ARENA_NEW(p->arena, Parser);
	sp->arena = p->arena;
	sp->names = p->names;
	sp->diags = p->diags;
	sp->s_match = p->s_match;
	lex_init(&sp->lx, p->arena, p->names, f);
	const char *tok = f->text + t.loc.offset;
	sp->lx.line = t.loc.line;
	sp->lx.line_start = tok - (t.loc.col - 1);
	for (const char *q = tok; q < a; q++)
		if (*q == '\n') {
			sp->lx.line++;
			sp->lx.line_start = q + 1;
		}
	sp->lx.p = a;
	sp->lx.end = b;
	sp->lx.at_bol = false;
	sp->depth = p->depth;
	Expr *e = ps_expr(sp);
	if (!sp->failed && !at(sp, TK_NEWLINE) && !at(sp, TK_EOF))
		ps_unexpected(sp, "f-string: expecting '}'");
	if (sp->failed) {
		/* the lexer took the f-string, so this is Python tile does not parse */
		if (!p->failed) {
			ps_err_at(p, sp->err_loc, "%s", sp->err_msg);
			p->err_unsupported = true;
		}
		return NULL;
	}
	return e;
}

static Expr *str_expr(Parser *p, SrcLoc loc, const char *str, size_t len)
{
	Expr *e = ps_new_expr(p, EX_STR, loc);
	e->str = str;
	e->slen = len;
	return e;
}

static Expr *join_strings(Parser *p, SrcLoc loc, Expr **parts, int n, int *h);

/* name(args[0], ..., args[n-1]), a call of the builtin the f-string needs */
static Expr *fstr_call(Parser *p, SrcLoc loc, const char *name, Expr **args, int n)
{
	Expr *call = ps_new_expr(p, EX_CALL, loc);
	call->func = ps_new_expr(p, EX_NAME, loc);
	call->func->name = intern_cstr(p->names, name);
	call->args = ARENA_NEWN(p->arena, Expr *, n);
	memcpy(call->args, args, sizeof *args * (size_t)n);
	call->nargs = n;
	return call;
}

/* Where the format spec starting at q ends: the '}' closing its field (nested
 * {fields} in the spec, `{x:{w}.{p}f}`, have their own braces). */
static const char *fstr_spec_end(const char *q, const char *b)
{
	int depth = 0;
	for (; q < b; q++) {
		if (*q == '{') depth++;
		else if (*q == '}' && depth-- == 0) return q;
	}
	return b;
}

static bool fstr_body(Parser *p, Token t, const char *q, const char *b, bool raw, int nest, ExprVec *parts);

/* One {expr[=][!conv][:spec]} field starting at open; *next is past its '}'.
 * `expr=` is the expression's text, then its repr (its format() with a spec);
 * a spec makes the value format(value, spec), the spec's own fields joined. */
static bool fstr_field(Parser *p, Token t, const char *open, const char *b, bool raw, int nest, ExprVec *parts,
		       const char **next)
{
	const char *xe = fstr_expr_end(open + 1, b);
	const char *te = xe;
	while (te > open + 1 && (te[-1] == ' ' || te[-1] == '\t'))
		te--;
	bool self_doc = te > open + 1 && te[-1] == '=' && !(te - 2 > open && strchr("=!<>", te[-2]));
	const char *close = xe;
	char conv = 0;
	if (close < b && *close == '!') {
		conv = close + 1 < b ? close[1] : '?';
		close += 2;
	}
	const char *spec = NULL;
	if (close < b && *close == ':' && nest < 2) {
		spec = close + 1;
		close = fstr_spec_end(spec, b);
	}
	if (close >= b || *close != '}' || (conv && !strchr("rsa", conv))) {
		ps_err_at(p, t.loc, close < b && *close == ':' ? "f-string: expressions nested too deeply"
		                    : conv && !strchr("rsa", conv)
		                          ? "f-string: invalid conversion character: expected 's', 'r', or 'a'"
		                          : "f-string: expecting '}'");
		return false;
	}
	if (!conv && !spec)
		conv = self_doc ? 'r' : 's';
	if (self_doc)
		avec_push(p, parts, str_expr(p, t.loc, arena_strndup(p->arena, open + 1, (size_t)(xe - open - 1)),
		                             (size_t)(xe - open - 1)));
	Expr *x = fstr_expr(p, t, open + 1, self_doc ? te - 1 : xe);
	if (!x)
		return false;
	if (conv)
		x = fstr_call(p, x->loc, conv == 's' ? "str" : conv == 'r' ? "repr" : "ascii", &x, 1);
	if (spec) {
		ExprVec sp = {0};
		if (!fstr_body(p, t, spec, close, raw, nest + 1, &sp))
			return false;
		int h = 0;
		Expr *args[2] = {x, sp.n ? join_strings(p, t.loc, sp.items, sp.n, &h) : str_expr(p, t.loc, "", 0)};
		x = fstr_call(p, x->loc, "format", args, 2);
	}
	avec_push(p, parts, x);
	*next = close + 1;
	return true;
}

/* The parts of the f-string text [q, b) (literals as EX_STR, fields as
 * str(expr) or format(expr, spec)); nest counts enclosing format specs. */
static bool fstr_body(Parser *p, Token t, const char *q, const char *b, bool raw, int nest, ExprVec *parts)
{
	while (q < b) {
		const char *open = q;
		while (open < b && !(*open == '{' && !(open + 1 < b && open[1] == '{')))
			open += *open == '{' ? 2 : 1;
		if (open > q) {
			StrBuf lit = {0};
			bool ok = fstr_literal(p, t.loc, q, open, raw, &lit);
			if (ok)
				avec_push(p, parts, str_expr(p, t.loc, arena_strndup(p->arena, lit.s ? lit.s : "", lit.len), lit.len));
			sb_free(&lit);
			if (!ok)
				return false;
		}
		if (open >= b)
			break;
		if (!fstr_field(p, t, open, b, raw, nest, parts, &q))
			return false;
	}
	return true;
}

/* The parts of f-string token t. */
static bool fstr_parts(Parser *p, Token t, ExprVec *parts)
{
	const char *src = p->lx.file->text + t.loc.offset, *end = src + t.len, *q = src;
	bool raw = false;
	for (; *q != '\'' && *q != '"'; q++)
		raw |= (*q | 0x20) == 'r';
	int nq = end - q >= 6 && q[1] == *q && q[2] == *q ? 3 : 1;
	return fstr_body(p, t, q + nq, end - nq, raw, 0, parts);
}

/* parts[0] + ... + parts[n-1] as a balanced tree of '+' (string + is
 * associative): thousands of adjacent f-strings must not nest thousands deep */
static Expr *join_strings(Parser *p, SrcLoc loc, Expr **parts, int n, int *h)
{
	if (n == 1)
		return parts[0];
	int hl = 0, hr = 0;
	Expr *add = ps_new_expr(p, EX_BINOP, loc);
	add->op = OP_ADD;
	add->lhs = join_strings(p, loc, parts, n / 2, &hl);
	add->rhs = join_strings(p, loc, parts + n / 2, n - n / 2, &hr);
	*h = MAXOF(hl, hr) + 1;
	return add;
}

static Expr *parse_strings(Parser *p)
{
	SrcLoc loc = here(p);
	ExprVec parts = {0};
	while (at(p, TK_STRING)) {
		Token t = *cur(p);
		if (t.strkind == TOKSTR_BYTES) {
			ps_err_unsupported(p, "bytes literals are not supported");
			return str_expr(p, loc, "", 0);
		}
		if (t.strkind == TOKSTR_FSTRING) {
			if (!fstr_parts(p, t, &parts))
				return str_expr(p, loc, "", 0);
		} else {
			avec_push(p, &parts, str_expr(p, t.loc, t.str, t.slen));
		}
		ps_advance(p);
	}
	/* adjacent literals merge, each run copied once (100000 of them were
	 * quadratic: gigabytes); the rest joins with + */
	int n = 0;
	for (int i = 0; i < parts.n; i++) {
		Expr *e = parts.items[i];
		if (e->kind == EX_STR && i + 1 < parts.n && parts.items[i + 1]->kind == EX_STR) {
			size_t len = 0;
			int j = i;
			for (; j < parts.n && parts.items[j]->kind == EX_STR; j++)
				len += parts.items[j]->slen;
			char *buf = arena_alloc(p->arena, len + 1), *o = buf;
			for (int k = i; k < j; k++) {
				memcpy(o, parts.items[k]->str, parts.items[k]->slen);
				o += parts.items[k]->slen;
			}
			*o = 0;
			e = str_expr(p, e->loc, buf, len);
			i = j - 1;
		}
		parts.items[n++] = e;
	}
	if (!n)
		return str_expr(p, loc, "", 0);
	if (parts.items[0]->kind != EX_STR) { /* the result is a str even for f"{x}" alone */
		avec_push(p, &parts, NULL);
		memmove(&parts.items[1], &parts.items[0], sizeof(Expr *) * (size_t)n);
		parts.items[0] = str_expr(p, loc, "", 0);
		n++;
	}
	int h = 0; /* a lone literal: height 1, as any atom */
	Expr *r = join_strings(p, loc, parts.items, n, &h);
	return done(p, r, h);
}

static Expr *finish_seq(Parser *p, ExprKind k, SrcLoc loc, ExprVec *v, int h)
{
	Expr *e = ps_new_expr(p, k, loc);
	e->items = v->items;
	e->nitems = v->n;
	return done(p, e, h);
}

/* Items of a tuple or list display after the first, up to `close`. */
static void parse_items(Parser *p, ExprVec *v, TokKind close, int *h)
{
	while (ps_accept(p, TK_COMMA) && !at(p, close))
		avec_push(p, v, kid(p, h, ps_expr(p)));
}

static Expr *parse_or(Parser *p);

/* elt comp_for+: the `for target in iter (if cond)*` clauses after the element
 * of a comprehension (the cursor is on the first 'for'); Python's grammar:
 * the iterable and the conditions are disjunctions (no bare ternary). */
static Expr *parse_comp(Parser *p, SrcLoc loc, Expr *elt, bool is_gen, int h)
{
	AVEC(CompClause) cs = {0};
	while (at(p, TK_FOR) && !p->failed) {
		CompClause c = {.loc = ps_advance(p).loc};
		c.target = kid(p, &h, ps_target(p));
		if (!ps_accept(p, TK_IN)) {
			ps_unexpected(p, "expected 'in' in comprehension");
			break;
		}
		c.iter = kid(p, &h, parse_or(p));
		ExprVec ifs = {0};
		while (ps_accept(p, TK_IF) && !p->failed)
			avec_push(p, &ifs, kid(p, &h, parse_or(p)));
		c.ifs = ifs.items;
		c.nifs = ifs.n;
		avec_push(p, &cs, c);
	}
	Expr *e = ps_new_expr(p, EX_LISTCOMP, loc);
	e->elt = elt;
	e->comps = cs.items;
	e->ncomps = cs.n;
	e->is_gen = is_gen;
	return done(p, e, h);
}

static Expr *parse_paren(Parser *p)
{
	SrcLoc loc = ps_advance(p).loc;
	ExprVec v = {0};
	int h = 0;
	if (ps_accept(p, TK_RPAR))
		return finish_seq(p, EX_TUPLE, loc, &v, h);
	Expr *e = kid(p, &h, ps_expr(p));
	if (at(p, TK_FOR)) {
		e = parse_comp(p, loc, e, true, h);
		ps_expect(p, TK_RPAR);
		return e;
	}
	if (at(p, TK_COMMA)) {
		avec_push(p, &v, e);
		parse_items(p, &v, TK_RPAR, &h);
		e = finish_seq(p, EX_TUPLE, loc, &v, h);
	}
	ps_expect(p, TK_RPAR);
	return e;
}

static Expr *parse_list(Parser *p)
{
	SrcLoc loc = ps_advance(p).loc;
	ExprVec v = {0};
	int h = 0;
	if (!at(p, TK_RSQB)) {
		Expr *first = kid(p, &h, ps_expr(p));
		if (at(p, TK_FOR)) {
			Expr *e = parse_comp(p, loc, first, false, h);
			ps_expect(p, TK_RSQB);
			return e;
		}
		avec_push(p, &v, first);
		parse_items(p, &v, TK_RSQB, &h);
	}
	ps_expect(p, TK_RSQB);
	return finish_seq(p, EX_LIST, loc, &v, h);
}

/* {} / {k: v, ...} / {a, b, ...}: dicts and sets (sema decides where it can use them). */
static Expr *parse_brace(Parser *p)
{
	SrcLoc loc = ps_advance(p).loc;
	int h = 0;
	if (ps_accept(p, TK_RBRACE)) {
		Expr *e = ps_new_expr(p, EX_DICT, loc);
		return done(p, e, h);
	}
	if (at(p, TK_POW)) {
		ps_err_unsupported(p, "dict unpacking ('**') is not supported");
		return dummy(p);
	}
	Expr *first = kid(p, &h, ps_expr(p));
	if (!ps_accept(p, TK_COLON)) {
		/* a set display */
		if (at(p, TK_FOR)) { /* {x for ...} */
			Expr *e = parse_comp(p, loc, first, false, h);
			e->is_set = true;
			ps_expect(p, TK_RBRACE);
			return e;
		}
		ExprVec v = {0};
		avec_push(p, &v, first);
		parse_items(p, &v, TK_RBRACE, &h);
		ps_expect(p, TK_RBRACE);
		return finish_seq(p, EX_SET, loc, &v, h);
	}
	ExprVec keys = {0}, vals = {0};
	avec_push(p, &keys, first);
	avec_push(p, &vals, kid(p, &h, ps_expr(p)));
	if (at(p, TK_FOR)) { /* {k: v for ...}: a comprehension of (k, v) pairs */
		ExprVec kv = {0};
		avec_push(p, &kv, keys.items[0]);
		avec_push(p, &kv, vals.items[0]);
		Expr *pair = finish_seq(p, EX_TUPLE, keys.items[0]->loc, &kv, h);
		Expr *e = parse_comp(p, loc, pair, false, h);
		e->is_dict = true;
		ps_expect(p, TK_RBRACE);
		return e;
	}
	while (ps_accept(p, TK_COMMA) && !at(p, TK_RBRACE) && !p->failed) {
		if (at(p, TK_POW)) {
			ps_err_unsupported(p, "dict unpacking ('**') is not supported");
			break;
		}
		avec_push(p, &keys, kid(p, &h, ps_expr(p)));
		ps_expect(p, TK_COLON);
		avec_push(p, &vals, kid(p, &h, ps_expr(p)));
	}
	ps_expect(p, TK_RBRACE);
	Expr *e = ps_new_expr(p, EX_DICT, loc);
	e->keys = keys.items;
	e->values = vals.items;
	e->nkeys = keys.n;
	return done(p, e, h);
}

static Expr *literal(Parser *p, ExprKind k)
{
	Token t = ps_advance(p);
	Expr *e = ps_new_expr(p, k, t.loc);
	if (k == EX_NAME)
		e->name = t.name;
	else if (k == EX_INT) {
		e->ival = t.ival;
		e->ival_u64 = t.iu64;
	} else if (k == EX_FLOAT)
		e->fval = t.fval;
	else if (k == EX_BOOL)
		e->ival = t.kind == TK_TRUE;
	return e;
}

static Expr *parse_atom(Parser *p)
{
	switch (kind(p)) {
	case TK_NAME: return literal(p, EX_NAME);
	case TK_INT: return literal(p, EX_INT);
	case TK_FLOAT: return literal(p, EX_FLOAT);
	case TK_TRUE:
	case TK_FALSE: return literal(p, EX_BOOL);
	case TK_NONE: return literal(p, EX_NONE);
	case TK_ELLIPSIS: return literal(p, EX_ELLIPSIS);
	case TK_STRING: return parse_strings(p);
	case TK_LPAR: return parse_paren(p);
	case TK_LSQB: return parse_list(p);
	case TK_LBRACE: return parse_brace(p);
	case TK_STAR:
		if (p->in_decorator) {
			/* @triton.autotune(configs=[..., *get_configs()]): host Python
			 * sema does not evaluate; kept so the decorator parses */
			Expr *e = ps_new_expr(p, EX_STARRED, ps_advance(p).loc);
			int h = 0;
			e->lhs = kid(p, &h, enter(p) ? parse_bitor(p) : dummy(p));
			leave(p);
			return done(p, e, h);
		}
		ps_err_unsupported(p, "starred expressions are not supported");
		break;
	case TK_YIELD: ps_err_unsupported(p, "yield is not supported"); break;
	case TK_AWAIT: ps_err_unsupported(p, "await is not supported"); break;
	case TK_LAMBDA: ps_unexpected(p, "invalid syntax"); break;
	default: ps_unexpected(p, "invalid syntax"); break;
	}
	return dummy(p);
}

/* One argument of a call: positional (pushed on args) or keyword. */
static void parse_arg(Parser *p, ExprVec *args, KwVec *kws, NameSet *seen, int *h)
{
	if ((at(p, TK_STAR) && p->in_decorator) || (at(p, TK_POW) && (p->in_decorator || p->host_mode))) {
		/* @triton.autotune(configs=..., **cache_kwargs): host options sema never
		 * reads; kept as a keyword named "*" or "**" so the decorator parses
		 * (and a host def's `return triton.jit(**kwargs)`); a call sema does
		 * evaluate rejects the keyword. A host call's `*x` stays positional:
		 * `a.new_empty(*shape, N, dtype=t)` goes on with positionals. */
		Token t = ps_advance(p);
		Keyword kw = {intern_cstr(p->names, t.kind == TK_STAR ? "*" : "**"), kid(p, h, ps_expr(p)), t.loc};
		avec_push(p, kws, kw);
		return;
	}
	if (at(p, TK_STAR)) {
		/* f(x, *args): sema splices the tuple's items in, as Triton's
		 * visit_Starred does; Python allows it after keywords too */
		Expr *st = ps_new_expr(p, EX_STARRED, ps_advance(p).loc);
		st->lhs = kid(p, h, ps_expr(p));
		avec_push(p, args, st);
		return;
	}
	if (at(p, TK_POW)) {
		ps_err_unsupported(p, "argument unpacking ('**') is not supported");
		return;
	}
	if (at(p, TK_NAME) && ps_peek(p, 1)->kind == TK_ASSIGN) {
		Token t = ps_advance(p);
		ps_advance(p);
		if (!ps_nameset_add(p->arena, seen, t.name))
			ps_err_at(p, t.loc, "keyword argument repeated: %s", t.name);
		Keyword kw = {t.name, kid(p, h, ps_expr(p)), t.loc};
		avec_push(p, kws, kw);
		return;
	}
	if (kws->n > 0)
		ps_err_tok(p, "positional argument follows keyword argument");
	SrcLoc start = here(p);
	Expr *e = kid(p, h, ps_expr(p));
	if (at(p, TK_FOR)) {
		/* f(x for x in xs): a generator as the only argument */
		if (args->n > 0 || kws->n > 0) {
			ps_err_tok(p, "Generator expression must be parenthesized");
			return;
		}
		e = kid(p, h, parse_comp(p, start, e, true, p->h));
		if (!at(p, TK_RPAR)) {
			ps_err_at(p, start, "Generator expression must be parenthesized");
			return;
		}
	}
	if (at(p, TK_ASSIGN))
		ps_err_tok(p, "expression cannot contain assignment, perhaps you meant \"==\"?");
	avec_push(p, args, e);
}

static Expr *parse_call(Parser *p, Expr *func, int h)
{
	ps_advance(p);
	ExprVec args = {0};
	KwVec kws = {0};
	NameSet seen = {0};
	while (!at(p, TK_RPAR) && !p->failed) {
		parse_arg(p, &args, &kws, &seen, &h);
		if (!ps_accept(p, TK_COMMA))
			break;
	}
	ps_expect(p, TK_RPAR);
	Expr *e = ps_new_expr(p, EX_CALL, func->loc);
	e->func = func;
	e->args = args.items;
	e->nargs = args.n;
	e->kwargs = kws.items;
	e->nkwargs = kws.n;
	return done(p, e, h);
}

static bool ends_slice_part(Parser *p)
{
	return at(p, TK_COLON) || at(p, TK_COMMA) || at(p, TK_RSQB);
}

static Expr *parse_slice_item(Parser *p)
{
	Expr *lo = NULL;
	int h = 0;
	if (!at(p, TK_COLON)) {
		lo = kid(p, &h, ps_expr(p));
		if (!at(p, TK_COLON))
			return lo;
	}
	Expr *e = ps_new_expr(p, EX_SLICE, lo ? lo->loc : here(p));
	ps_advance(p);
	e->lo = lo;
	if (!ends_slice_part(p))
		e->hi = kid(p, &h, ps_expr(p));
	if (ps_accept(p, TK_COLON) && !ends_slice_part(p))
		e->step = kid(p, &h, ps_expr(p));
	return done(p, e, h);
}

static Expr *parse_subscript(Parser *p, Expr *base, int h)
{
	ps_advance(p);
	ExprVec v = {0};
	do {
		if (at(p, TK_RSQB) && v.n > 0)
			break;
		avec_push(p, &v, kid(p, &h, parse_slice_item(p)));
	} while (ps_accept(p, TK_COMMA));
	ps_expect(p, TK_RSQB);
	Expr *e = ps_new_expr(p, EX_SUBSCRIPT, base->loc);
	e->base = base;
	e->index = v.items;
	e->nindex = v.n;
	return done(p, e, h);
}

/* atom followed by .name, (args) and [index] trailers */
static Expr *parse_primary(Parser *p)
{
	Expr *e = parse_atom(p);
	for (;;) {
		TokKind k = kind(p);
		int h = p->h;
		if (k == TK_DOT) {
			ps_advance(p);
			Expr *a = ps_new_expr(p, EX_ATTR, e->loc);
			a->obj = e;
			a->attr = ps_expect_name(p);
			e = done(p, a, h);
		} else if (k == TK_LPAR) {
			e = parse_call(p, e, h);
		} else if (k == TK_LSQB) {
			e = parse_subscript(p, e, h);
		} else {
			return e;
		}
	}
}

static Expr *new_binop(Parser *p, SrcLoc loc, AstOp op, Expr *lhs)
{
	Expr *e = ps_new_expr(p, EX_BINOP, loc);
	e->op = op;
	e->lhs = lhs;
	return e;
}

static Expr *parse_power(Parser *p)
{
	if (at(p, TK_AWAIT)) {
		ps_err_unsupported(p, "await is not supported");
		return dummy(p);
	}
	Expr *e = parse_primary(p);
	if (!at(p, TK_POW))
		return e;
	int h = p->h;
	Expr *b = new_binop(p, ps_advance(p).loc, OP_POW, e);
	b->rhs = kid(p, &h, enter(p) ? parse_factor(p) : dummy(p));
	leave(p);
	return done(p, b, h);
}

static Expr *parse_factor(Parser *p)
{
	TokKind k = kind(p);
	if (k != TK_MINUS && k != TK_PLUS && k != TK_TILDE)
		return parse_power(p);
	Expr *e = ps_new_expr(p, EX_UNOP, ps_advance(p).loc);
	e->op = k == TK_MINUS ? OP_NEG : k == TK_PLUS ? OP_POS : OP_INVERT;
	int h = 0;
	e->lhs = kid(p, &h, enter(p) ? parse_factor(p) : dummy(p));
	leave(p);
	return done(p, e, h);
}

/* Binary operator levels from | (0) to * / // % @ (5). */
static bool binop_at(Parser *p, int level, AstOp *op)
{
	static const struct {
		TokKind tk;
		AstOp op;
		int level;
	} ops[] = {
	        {TK_PIPE, OP_BITOR, 0},        {TK_CARET, OP_BITXOR, 1},  {TK_AMP, OP_BITAND, 2},
	        {TK_LSHIFT, OP_LSHIFT, 3},     {TK_RSHIFT, OP_RSHIFT, 3}, {TK_PLUS, OP_ADD, 4},
	        {TK_MINUS, OP_SUB, 4},         {TK_STAR, OP_MUL, 5},      {TK_SLASH, OP_DIV, 5},
	        {TK_FLOORDIV, OP_FLOORDIV, 5}, {TK_PERCENT, OP_MOD, 5},   {TK_AT, OP_MATMUL, 5},
	};
	TokKind k = kind(p);
	for (size_t i = 0; i < COUNTOF(ops); i++)
		if (ops[i].tk == k && ops[i].level == level) {
			*op = ops[i].op;
			return true;
		}
	return false;
}

/* Left-associative: a - b - c is (a - b) - c. */
static Expr *parse_binary(Parser *p, int level)
{
	if (level > 5)
		return parse_factor(p);
	Expr *e = parse_binary(p, level + 1);
	AstOp op;
	while (binop_at(p, level, &op) && !p->failed) {
		int h = p->h;
		Expr *b = new_binop(p, ps_advance(p).loc, op, e);
		b->rhs = kid(p, &h, parse_binary(p, level + 1));
		e = done(p, b, h);
	}
	return e;
}

static Expr *parse_bitor(Parser *p) { return parse_binary(p, 0); }

/* Consumes a comparison operator (two tokens for "not in", "is not"). */
static bool cmp_op(Parser *p, AstOp *op)
{
	static const struct {
		TokKind tk;
		AstOp op;
	} ops[] = {
	        {TK_LT, OP_LT},   {TK_LE, OP_LE}, {TK_GT, OP_GT}, {TK_GE, OP_GE},
	        {TK_EQEQ, OP_EQ}, {TK_NE, OP_NE}, {TK_IN, OP_IN},
	};
	TokKind k = kind(p);
	if (k == TK_NOT && ps_peek(p, 1)->kind == TK_IN) {
		ps_advance(p);
		ps_advance(p);
		*op = OP_NOTIN;
		return true;
	}
	if (k == TK_IS) {
		ps_advance(p);
		*op = ps_accept(p, TK_NOT) ? OP_ISNOT : OP_IS;
		return true;
	}
	for (size_t i = 0; i < COUNTOF(ops); i++)
		if (ops[i].tk == k) {
			ps_advance(p);
			*op = ops[i].op;
			return true;
		}
	return false;
}

/* a < b <= c: one flat node (Python's chained comparison). */
static Expr *parse_comparison(Parser *p)
{
	Expr *first = parse_bitor(p);
	SrcLoc loc = here(p);
	AstOp op;
	int h = p->h;
	if (!cmp_op(p, &op))
		return first;
	ExprVec operands = {0};
	AVEC(AstOp) ops = {0};
	avec_push(p, &operands, first);
	do {
		avec_push(p, &ops, op);
		avec_push(p, &operands, kid(p, &h, parse_bitor(p)));
	} while (cmp_op(p, &op));
	Expr *e = ps_new_expr(p, EX_COMPARE, loc);
	e->operands = operands.items;
	e->cmp_ops = ops.items;
	e->ncmp = ops.n;
	return done(p, e, h);
}

static Expr *parse_not(Parser *p)
{
	if (!at(p, TK_NOT))
		return parse_comparison(p);
	Expr *e = ps_new_expr(p, EX_UNOP, ps_advance(p).loc);
	e->op = OP_NOT;
	int h = 0;
	e->lhs = kid(p, &h, enter(p) ? parse_not(p) : dummy(p));
	leave(p);
	return done(p, e, h);
}

static Expr *parse_boolop(Parser *p, TokKind tk, AstOp op, Expr *(*sub)(Parser *))
{
	Expr *first = sub(p);
	if (!at(p, tk))
		return first;
	SrcLoc loc = here(p);
	ExprVec v = {0};
	int h = p->h;
	avec_push(p, &v, first);
	while (ps_accept(p, tk))
		avec_push(p, &v, kid(p, &h, sub(p)));
	Expr *e = finish_seq(p, EX_BOOLOP, loc, &v, h);
	e->bool_op = op;
	return e;
}

static Expr *parse_and(Parser *p) { return parse_boolop(p, TK_AND, OP_AND, parse_not); }
static Expr *parse_or(Parser *p) { return parse_boolop(p, TK_OR, OP_OR, parse_and); }

/* then_e 'if' cond 'else' else_e */
static Expr *parse_ifexp(Parser *p, Expr *then_e)
{
	int h = p->h;
	ps_advance(p);
	Expr *c = ps_new_expr(p, EX_IFEXP, then_e->loc);
	c->then_e = then_e;
	c->cond = kid(p, &h, parse_or(p));
	if (!ps_accept(p, TK_ELSE))
		ps_unexpected(p, "expected 'else' after 'if' expression");
	c->else_e = kid(p, &h, ps_expr(p));
	return done(p, c, h);
}

/* 'lambda' [params] ':' expression. Parameters are names with optional
 * defaults (no annotations), then optionally *args (or a bare '*') followed by
 * keyword-only parameters, then optionally **kwargs, as in Python: Triton's
 * heuristics are often written `lambda args, **meta: ...`. */
static Expr *parse_lambda(Parser *p)
{
	Expr *e = ps_new_expr(p, EX_LAMBDA, ps_advance(p).loc);
	AVEC(Param) v = {0};
	NameSet seen = {0};
	bool seen_default = false, star = false, bare_star = false;
	SrcLoc star_loc = e->loc;
	int npos = -1;
	int h = 0;
	while (!at(p, TK_COLON) && !p->failed) {
		TokKind k = kind(p);
		if (k == TK_SLASH) {
			ps_err_unsupported(p, "positional-only parameters ('/') are not supported");
			break;
		}
		if (e->lkwstar) {
			ps_err_at(p, here(p), "arguments cannot follow var-keyword argument");
			break;
		}
		if (k == TK_STAR || k == TK_POW) {
			SrcLoc at_star = here(p);
			ps_advance(p);
			if (k == TK_STAR && star) {
				ps_err_at(p, at_star, "* argument may appear only once");
				break;
			}
			const char *name = NULL;
			if (k == TK_POW || kind(p) == TK_NAME) {
				SrcLoc nloc = here(p);
				name = ps_expect_name(p);
				if (p->failed)
					break;
				if (!ps_nameset_add(p->arena, &seen, name))
					ps_err_at(p, nloc, "duplicate argument '%s' in function definition", name);
			}
			if (k == TK_STAR) {
				star = true;
				bare_star = name == NULL;
				star_loc = at_star;
				npos = v.n;
				e->lstar = name;
			} else {
				e->lkwstar = name;
			}
			if (!ps_accept(p, TK_COMMA))
				break;
			continue;
		}
		Param prm = {.loc = here(p)};
		prm.name = ps_expect_name(p);
		if (p->failed)
			break;
		if (!ps_nameset_add(p->arena, &seen, prm.name))
			ps_err_at(p, prm.loc, "duplicate argument '%s' in function definition",
			          prm.name);
		if (ps_accept(p, TK_ASSIGN))
			prm.default_val = kid(p, &h, ps_expr(p));
		else if (seen_default && !star)
			ps_err_at(p, prm.loc,
			          "parameter without a default follows parameter with a default");
		seen_default = prm.default_val != NULL;
		bare_star = false;
		avec_push(p, &v, prm);
		if (!ps_accept(p, TK_COMMA))
			break;
	}
	if (bare_star && !p->failed)
		ps_err_at(p, star_loc, "named arguments must follow bare *");
	ps_expect(p, TK_COLON);
	e->lparams = v.items;
	e->nlparams = v.n;
	e->lnpos = npos < 0 ? v.n : npos;
	e->lbody = kid(p, &h, ps_expr(p));
	return done(p, e, h);
}

/* expression: disjunction ['if' disjunction 'else' expression] | lambda */
Expr *ps_expr(Parser *p)
{
	Expr *e;
	if (!enter(p)) {
		e = dummy(p);
	} else if (at(p, TK_LAMBDA)) {
		e = parse_lambda(p);
	} else if (at(p, TK_YIELD)) {
		ps_err_unsupported(p, "%s is not supported", tok_kind_str(kind(p)));
		e = dummy(p);
	} else {
		e = parse_or(p);
		if (at(p, TK_IF))
			e = parse_ifexp(p, e);
	}
	if (at(p, TK_WALRUS)) {
		/* Python's named expression `name := value` (also where Python
		 * wants parentheses around it: tile is not stricter) */
		Token w = ps_advance(p);
		if (e->kind != EX_NAME) {
			ps_err_at(p, e->loc, "cannot use assignment expressions with %s", ps_expr_desc(e));
		} else {
			Expr *n = ps_new_expr(p, EX_NAMEDEXPR, w.loc);
			n->lhs = e;
			n->rhs = ps_expr(p);
			e = n;
		}
	}
	leave(p);
	return e;
}

/* item (',' item)* [','] with `item` an expression (or a target): a tuple if
 * there is a comma. */
static Expr *parse_list_of(Parser *p, Expr *(*item)(Parser *))
{
	Expr *e = item(p);
	if (!at(p, TK_COMMA))
		return e;
	ExprVec v = {0};
	int h = p->h;
	avec_push(p, &v, e);
	while (ps_accept(p, TK_COMMA) && ps_starts_expr(kind(p)))
		avec_push(p, &v, kid(p, &h, item(p)));
	return finish_seq(p, EX_TUPLE, e->loc, &v, h);
}

Expr *ps_testlist(Parser *p) { return parse_list_of(p, ps_expr); }

/* A for-loop target: `in` must not be read as a comparison. */
Expr *ps_target(Parser *p) { return parse_list_of(p, parse_bitor); }

/* One target, no bare tuple: `with a as b, c:` has two items. */
Expr *ps_target1(Parser *p) { return parse_bitor(p); }

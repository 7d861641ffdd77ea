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
 * height into a running maximum; ps_done_expr() finishes a node and enforces
 * MAX_HEIGHT, so everything downstream can recurse over an AST. */
static Expr *kid(Parser *p, int *h, Expr *e)
{
	*h = MAXOF(*h, p->h);
	return e;
}

Expr *ps_done_expr(Parser *p, Expr *e, int child_h)
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

static Expr *finish_seq(Parser *p, ExprKind k, SrcLoc loc, ExprVec *v, int h)
{
	Expr *e = ps_new_expr(p, k, loc);
	e->items = v->items;
	e->nitems = v->n;
	return ps_done_expr(p, e, h);
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
	return ps_done_expr(p, e, h);
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

/* `**m` in a dict display outside a @jit function: a NULL key, m the value
 * (sema merges m's items there, as Python's {**base, "k": v} does) */
static bool dict_unpack(Parser *p, ExprVec *keys, ExprVec *vals, int *h)
{
	if (p->in_kernel && !p->in_decorator) { /* a syntax error in a @jit function's body, as in Triton */
		ps_err_unsupported(p, "dict unpacking ('**') is not supported");
		return false;
	}
	ps_advance(p);
	avec_push(p, keys, NULL);
	avec_push(p, vals, kid(p, h, enter(p) ? parse_bitor(p) : dummy(p)));
	leave(p);
	return true;
}

/* {} / {k: v, ...} / {**m, k: v} / {a, b, ...}: dicts and sets (sema decides where it can use them). */
static Expr *parse_brace(Parser *p)
{
	SrcLoc loc = ps_advance(p).loc;
	int h = 0;
	if (ps_accept(p, TK_RBRACE)) {
		Expr *e = ps_new_expr(p, EX_DICT, loc);
		return ps_done_expr(p, e, h);
	}
	ExprVec keys = {0}, vals = {0};
	if (at(p, TK_POW)) { /* {**base, ...}: a dict display */
		if (!dict_unpack(p, &keys, &vals, &h)) return dummy(p);
		goto rest;
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
rest:
	while (ps_accept(p, TK_COMMA) && !at(p, TK_RBRACE) && !p->failed) {
		if (at(p, TK_POW)) {
			if (!dict_unpack(p, &keys, &vals, &h)) break;
			continue;
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
	return ps_done_expr(p, e, h);
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
	case TK_STRING: return ps_strings(p);
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
			return ps_done_expr(p, e, h);
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
	if ((at(p, TK_STAR) && p->in_decorator) || (at(p, TK_POW) && (p->in_decorator || p->host_mode || !p->in_kernel))) {
		/* @triton.autotune(configs=..., **cache_kwargs): host options sema never
		 * reads; kept as a keyword named "*" or "**" so the decorator parses
		 * (and a host def's `return triton.jit(**kwargs)`, a module-level
		 * `triton.Config({...}, **base)`); sema splices a dict of strings in
		 * where it evaluates the call. A host call's `*x` stays positional:
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
	return ps_done_expr(p, e, h);
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
	return ps_done_expr(p, e, h);
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
	return ps_done_expr(p, e, h);
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
			e = ps_done_expr(p, a, h);
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
	return ps_done_expr(p, b, h);
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
	return ps_done_expr(p, e, h);
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
		e = ps_done_expr(p, b, h);
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
	return ps_done_expr(p, e, h);
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
	return ps_done_expr(p, e, h);
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
	return ps_done_expr(p, c, h);
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
	return ps_done_expr(p, e, h);
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

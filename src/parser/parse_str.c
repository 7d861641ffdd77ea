/* parse_str.c: string literals and f-strings (part of the expression parser).
 *
 * Requires: the cursor and error helpers of parse.c and ps_expr,
 * ps_new_expr and ps_done_expr of parse_expr.c (parse_impl.h).
 * Guarantees: ps_strings returns an EX_STR or a balanced tree of '+' over
 * literals and str()/repr()/format() calls, with its height in p->h.
 */
#include "parser/parse_impl.h"
#include "parser/lex.h"

#include <string.h>

/* Adjacent literals concatenate. An f-string is desugared to
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
		if (*q == '\r') { /* a line break in the source reads as \n, as in any string */
			sb_putc(out, '\n');
			q += q + 1 < b && q[1] == '\n';
			continue;
		}
		if (*q == '\\' && !raw && q + 1 < b && (q[1] == '\n' || q[1] == '\r')) {
			q += 1 + (q[1] == '\r' && q + 2 < b && q[2] == '\n'); /* a continued line */
			continue;
		}
		if (*q != '\\' || raw) {
			sb_putc(out, *q);
			continue;
		}
		/* every escape of a string literal (\x41, \u00e9, \101 were
		 * "not supported" here) */
		if (q + 1 == b) { /* f'\\{x}': before a field, the backslash stays */
			sb_putc(out, '\\');
			continue;
		}
		char buf[8], *o = buf;
		const char *err = NULL, *r = lex_decode_escape(q + 1, b, &o, &err);
		if (!r) {
			ps_err_at(p, loc, "f-string: %s", err);
			p->err_unsupported = q[1] == 'N'; /* \N{...}: tile lacks it, the input is fine */
			return false;
		}
		for (const char *w = buf; w < o; w++)
			sb_putc(out, *w);
		q = r - 1;
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
	Parser *sp = ps_sub_parser(p, f);
	const char *tok = f->text + t.loc.offset;
	sp->lx.line = t.loc.line;
	sp->lx.line_start = tok - (t.loc.col - 1);
	for (const char *q = tok; q < a; q++)
		if (*q == '\n' || (*q == '\r' && q[1] != '\n')) { /* \n, \r\n or a lone \r */
			sp->lx.line++;
			sp->lx.line_start = q + 1;
		}
	sp->lx.p = a;
	sp->lx.end = b;
	sp->lx.at_bol = false;
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

Expr *ps_strings(Parser *p)
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
	return ps_done_expr(p, r, h);
}

/* ast_dump.c: the deterministic S-expression dump behind `--emit=ast`.
 *
 * One statement per line, `(kind LINE:COL ...)`, children indented by two
 * spaces; a compound statement's closing parenthesis ends its last line.
 * Expressions are inline: names and literals bare (strings quoted with C
 * escapes, floats in their shortest round-trip form), everything else
 * `(head operands...)`: (. obj attr), (call f args k=v), (sub x i j),
 * (slice lo hi step) with _ for an absent part, (+ a b), (- x), (not x),
 * (cmp a < b <= c), (and a b), (ifexp cond then else), (tuple ...), (list ...),
 * (set ...), (dict (k v) ...), (lambda (x y=default) body).
 */
#include "parser/ast.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *op_str(AstOp op)
{
	static const char *const s[] = {
	        [OP_ADD] = "+",        [OP_SUB] = "-",     [OP_MUL] = "*",        [OP_DIV] = "/",
	        [OP_FLOORDIV] = "//",  [OP_MOD] = "%",     [OP_POW] = "**",       [OP_MATMUL] = "@",
	        [OP_LSHIFT] = "<<",    [OP_RSHIFT] = ">>", [OP_BITAND] = "&",     [OP_BITOR] = "|",
	        [OP_BITXOR] = "^",     [OP_NEG] = "-",     [OP_POS] = "+",        [OP_INVERT] = "~",
	        [OP_NOT] = "not",      [OP_LT] = "<",      [OP_LE] = "<=",        [OP_GT] = ">",
	        [OP_GE] = ">=",        [OP_EQ] = "==",     [OP_NE] = "!=",        [OP_IS] = "is",
	        [OP_ISNOT] = "is not", [OP_IN] = "in",     [OP_NOTIN] = "not in", [OP_AND] = "and",
	        [OP_OR] = "or",
	};
	return (unsigned)op < COUNTOF(s) && s[op] ? s[op] : "?";
}

static void put_str(StrBuf *b, const char *s, size_t n)
{
	sb_putc(b, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			sb_putc(b, '\\'), sb_putc(b, (char)c);
		else if (c == '\n')
			sb_puts(b, "\\n");
		else if (c == '\t')
			sb_puts(b, "\\t");
		else if (c < 0x20 || c == 0x7f)
			sb_printf(b, "\\x%02x", c);
		else
			sb_putc(b, (char)c);
	}
	sb_putc(b, '"');
}

static void put_float(StrBuf *b, double v)
{
	char buf[64];
	if (isnan(v)) {
		sb_puts(b, "nan");
		return;
	}
	if (isinf(v)) {
		sb_puts(b, v < 0 ? "-inf" : "inf");
		return;
	}
	/* Python's repr: the fewest digits that read back exactly, positional
	 * notation for exponents in [-4, 16), else scientific. */
	int digits = 1;
	for (; digits < 17; digits++) {
		snprintf(buf, sizeof buf, "%.*e", digits - 1, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	snprintf(buf, sizeof buf, "%.*e", digits - 1, v);
	int exp10 = atoi(strchr(buf, 'e') + 1);
	if (exp10 >= -4 && exp10 < 16)
		snprintf(buf, sizeof buf, "%.*f", MAXOF(digits - 1 - exp10, 1), v);
	sb_puts(b, buf);
}

static void dump_expr(StrBuf *b, const Expr *e);

static void dump_opt(StrBuf *b, const Expr *e)
{
	if (e)
		dump_expr(b, e);
	else
		sb_putc(b, '_');
}

static void dump_list(StrBuf *b, const char *head, Expr *const *xs, int n)
{
	sb_printf(b, "(%s", head);
	for (int i = 0; i < n; i++) {
		sb_putc(b, ' ');
		dump_expr(b, xs[i]);
	}
	sb_putc(b, ')');
}

static void dump_call(StrBuf *b, const Expr *e)
{
	sb_puts(b, "(call ");
	dump_expr(b, e->func);
	for (int i = 0; i < e->nargs; i++) {
		sb_putc(b, ' ');
		dump_expr(b, e->args[i]);
	}
	for (int i = 0; i < e->nkwargs; i++) {
		sb_printf(b, " %s=", e->kwargs[i].name);
		dump_expr(b, e->kwargs[i].value);
	}
	sb_putc(b, ')');
}

static void dump_compare(StrBuf *b, const Expr *e)
{
	sb_puts(b, "(cmp ");
	dump_expr(b, e->operands[0]);
	for (int i = 0; i < e->ncmp; i++) {
		sb_printf(b, " %s ", op_str(e->cmp_ops[i]));
		dump_expr(b, e->operands[i + 1]);
	}
	sb_putc(b, ')');
}

static void dump_expr(StrBuf *b, const Expr *e)
{
	switch (e->kind) {
	case EX_NAME: sb_puts(b, e->name); break;
	case EX_INT:
		if (e->ival_u64) sb_printf(b, "%llu", (unsigned long long)e->ival);
		else sb_printf(b, "%lld", (long long)e->ival);
		break;
	case EX_FLOAT: put_float(b, e->fval); break;
	case EX_STR: put_str(b, e->str, e->slen); break;
	case EX_BOOL: sb_puts(b, e->ival ? "True" : "False"); break;
	case EX_NONE: sb_puts(b, "None"); break;
	case EX_ELLIPSIS: sb_puts(b, "..."); break;
	case EX_STARRED:
		sb_puts(b, "(* ");
		dump_expr(b, e->lhs);
		sb_putc(b, ')');
		break;
	case EX_NAMEDEXPR:
		sb_puts(b, "(:= ");
		dump_expr(b, e->lhs);
		sb_putc(b, ' ');
		dump_expr(b, e->rhs);
		sb_putc(b, ')');
		break;
	case EX_ATTR:
		sb_puts(b, "(. ");
		dump_expr(b, e->obj);
		sb_printf(b, " %s)", e->attr);
		break;
	case EX_CALL: dump_call(b, e); break;
	case EX_SUBSCRIPT:
		sb_puts(b, "(sub ");
		dump_expr(b, e->base);
		for (int i = 0; i < e->nindex; i++)
			sb_putc(b, ' '), dump_expr(b, e->index[i]);
		sb_putc(b, ')');
		break;
	case EX_SLICE:
		sb_puts(b, "(slice ");
		dump_opt(b, e->lo);
		sb_putc(b, ' ');
		dump_opt(b, e->hi);
		sb_putc(b, ' ');
		dump_opt(b, e->step);
		sb_putc(b, ')');
		break;
	case EX_BINOP:
		sb_printf(b, "(%s ", op_str(e->op));
		dump_expr(b, e->lhs);
		sb_putc(b, ' ');
		dump_expr(b, e->rhs);
		sb_putc(b, ')');
		break;
	case EX_UNOP:
		sb_printf(b, "(%s ", op_str(e->op));
		dump_expr(b, e->lhs);
		sb_putc(b, ')');
		break;
	case EX_COMPARE: dump_compare(b, e); break;
	case EX_BOOLOP: dump_list(b, op_str(e->bool_op), e->items, e->nitems); break;
	case EX_IFEXP:
		sb_puts(b, "(ifexp ");
		dump_expr(b, e->cond);
		sb_putc(b, ' ');
		dump_expr(b, e->then_e);
		sb_putc(b, ' ');
		dump_expr(b, e->else_e);
		sb_putc(b, ')');
		break;
	case EX_TUPLE: dump_list(b, "tuple", e->items, e->nitems); break;
	case EX_LIST: dump_list(b, "list", e->items, e->nitems); break;
	case EX_SET: dump_list(b, "set", e->items, e->nitems); break;
	case EX_DICT:
		sb_puts(b, "(dict");
		for (int i = 0; i < e->nkeys; i++) {
			sb_puts(b, " (");
			if (e->keys[i])
				dump_expr(b, e->keys[i]);
			else
				sb_puts(b, "**");
			sb_putc(b, ' ');
			dump_expr(b, e->values[i]);
			sb_putc(b, ')');
		}
		sb_putc(b, ')');
		break;
	case EX_LISTCOMP:
		sb_puts(b, e->is_gen ? "(genexp " : e->is_dict ? "(dictcomp " : e->is_set ? "(setcomp " : "(listcomp ");
		dump_expr(b, e->elt);
		for (int i = 0; i < e->ncomps; i++) {
			const CompClause *c = &e->comps[i];
			sb_puts(b, " (for ");
			dump_expr(b, c->target);
			sb_puts(b, " in ");
			dump_expr(b, c->iter);
			for (int k = 0; k < c->nifs; k++) {
				sb_puts(b, " if ");
				dump_expr(b, c->ifs[k]);
			}
			sb_putc(b, ')');
		}
		sb_putc(b, ')');
		break;
	case EX_LAMBDA:
		sb_puts(b, "(lambda (");
		for (int i = 0; i <= e->nlparams; i++) {
			if (i == e->lnpos && (e->lstar || e->lnpos < e->nlparams))
				sb_printf(b, "%s*%s", i ? " " : "", e->lstar ? e->lstar : "");
			if (i == e->nlparams)
				break;
			sb_printf(b, "%s%s", i || (i == e->lnpos && (e->lstar || e->lnpos < e->nlparams)) ? " " : "",
				  e->lparams[i].name);
			if (e->lparams[i].default_val)
				sb_putc(b, '='), dump_expr(b, e->lparams[i].default_val);
		}
		if (e->lkwstar)
			sb_printf(b, "%s**%s", e->nlparams || e->lstar ? " " : "", e->lkwstar);
		sb_puts(b, ") ");
		dump_expr(b, e->lbody);
		sb_putc(b, ')');
		break;
	}
}

/* ---- statements ------------------------------------------------------------------ */

static void dump_stmt(StrBuf *b, const Stmt *s, int ind);

static void indent(StrBuf *b, int ind)
{
	for (int i = 0; i < ind; i++)
		sb_puts(b, "  ");
}

static void open_stmt(StrBuf *b, const char *head, SrcLoc loc, int ind)
{
	indent(b, ind);
	sb_printf(b, "(%s %d:%d", head, loc.line, loc.col);
}

/* Puts ')' at the end of the last line (before its newline). */
static void close_line(StrBuf *b)
{
	if (b->len > 0 && b->s[b->len - 1] == '\n') {
		b->s[b->len - 1] = ')';
		sb_putc(b, '\n');
	} else {
		sb_puts(b, ")\n");
	}
}

static void dump_body(StrBuf *b, StmtList l, int ind)
{
	for (int i = 0; i < l.n; i++)
		dump_stmt(b, l.items[i], ind);
}

static void dump_clause(StrBuf *b, const char *what, StmtList l, int ind)
{
	if (l.n == 0)
		return;
	indent(b, ind);
	sb_printf(b, "(%s\n", what);
	dump_body(b, l, ind + 1);
	close_line(b);
}

static void dump_else(StrBuf *b, StmtList l, int ind) { dump_clause(b, "else", l, ind); }

static void dump_star_param(StrBuf *b, const FuncDef *f, int ind)
{
	indent(b, ind);
	sb_printf(b, "(param *%s)\n", f->star ? f->star : "");
}

static void dump_funcdef(StrBuf *b, const Stmt *s, int ind)
{
	const FuncDef *f = s->func;
	open_stmt(b, "def", s->loc, ind);
	sb_printf(b, " %s\n", f->name);
	for (int i = 0; i < f->ndecorators; i++) {
		indent(b, ind + 1);
		sb_puts(b, "(decorator ");
		dump_expr(b, f->decorators[i]);
		sb_puts(b, ")\n");
	}
	for (int i = 0; i < f->nparams; i++) {
		const Param *prm = &f->params[i];
		if (i == f->nparams - f->nkwonly) /* keyword-only from here */
			dump_star_param(b, f, ind + 1);
		indent(b, ind + 1);
		sb_printf(b, "(param %s", prm->name);
		if (prm->annotation)
			sb_puts(b, " : "), dump_expr(b, prm->annotation);
		if (prm->default_val)
			sb_puts(b, " = "), dump_expr(b, prm->default_val);
		sb_puts(b, ")\n");
	}
	if (f->star && !f->nkwonly)
		dump_star_param(b, f, ind + 1);
	if (f->kwstar) {
		indent(b, ind + 1);
		sb_printf(b, "(param **%s)\n", f->kwstar);
	}
	if (f->returns) {
		indent(b, ind + 1);
		sb_puts(b, "(returns ");
		dump_expr(b, f->returns);
		sb_puts(b, ")\n");
	}
	if (f->docstring) {
		indent(b, ind + 1);
		sb_puts(b, "(docstring ");
		put_str(b, f->docstring, strlen(f->docstring));
		sb_puts(b, ")\n");
	}
	dump_body(b, f->body, ind + 1);
	close_line(b);
}

static void dump_import(StrBuf *b, const Stmt *s)
{
	if (s->kind == ST_IMPORTFROM) {
		sb_putc(b, ' ');
		for (int i = 0; i < s->level; i++)
			sb_putc(b, '.');
		sb_puts(b, s->module ? s->module : "");
		sb_puts(b, " import");
	}
	for (int i = 0; i < s->nnames; i++) {
		const ImportName *n = &s->names[i];
		if (n->asname)
			sb_printf(b, " (%s as %s)", n->name, n->asname);
		else
			sb_printf(b, " %s", n->name);
	}
}

static void dump_simple(StrBuf *b, const Stmt *s)
{
	switch (s->kind) {
	case ST_EXPR:
	case ST_RETURN:
		if (s->value)
			sb_putc(b, ' '), dump_expr(b, s->value);
		break;
	case ST_ASSIGN:
		for (int i = 0; i < s->ntargets; i++)
			sb_putc(b, ' '), dump_expr(b, s->targets[i]), sb_puts(b, " =");
		sb_putc(b, ' ');
		dump_expr(b, s->assign_value);
		break;
	case ST_ANNASSIGN:
		sb_putc(b, ' ');
		dump_expr(b, s->ann_target);
		sb_puts(b, " : ");
		dump_expr(b, s->annotation);
		if (s->ann_value)
			sb_puts(b, " = "), dump_expr(b, s->ann_value);
		break;
	case ST_AUGASSIGN:
		sb_putc(b, ' ');
		dump_expr(b, s->aug_target);
		sb_printf(b, " %s= ", op_str(s->aug_op));
		dump_expr(b, s->aug_value);
		break;
	case ST_ASSERT:
		sb_putc(b, ' ');
		dump_expr(b, s->test);
		if (s->msg)
			sb_putc(b, ' '), dump_expr(b, s->msg);
		break;
	case ST_IMPORT:
	case ST_IMPORTFROM: dump_import(b, s); break;
	case ST_GLOBAL:
		for (int i = 0; i < s->ngnames; i++)
			sb_printf(b, " %s", s->gnames[i]);
		break;
	case ST_UNSUPPORTED:
		sb_putc(b, ' ');
		put_str(b, s->what, strlen(s->what));
		break;
	default: break;
	}
	sb_puts(b, ")\n");
}

static const char *stmt_head(StmtKind k)
{
	static const char *const h[] = {
	        [ST_EXPR] = "expr",
	        [ST_ASSIGN] = "assign",
	        [ST_ANNASSIGN] = "annassign",
	        [ST_AUGASSIGN] = "augassign",
	        [ST_RETURN] = "return",
	        [ST_IF] = "if",
	        [ST_FOR] = "for",
	        [ST_WHILE] = "while",
	        [ST_BREAK] = "break",
	        [ST_CONTINUE] = "continue",
	        [ST_PASS] = "pass",
	        [ST_ASSERT] = "assert",
	        [ST_FUNCDEF] = "def",
	        [ST_IMPORT] = "import",
	        [ST_IMPORTFROM] = "from",
	        [ST_GLOBAL] = "global",
	        [ST_TRY] = "try",
	        [ST_UNSUPPORTED] = "unsupported",
	        [ST_CLASS] = "class",
	        [ST_WITH] = "with",
	};
	return (unsigned)k < COUNTOF(h) && h[k] ? h[k] : "?";
}

static void dump_stmt(StrBuf *b, const Stmt *s, int ind)
{
	switch (s->kind) {
	case ST_FUNCDEF: dump_funcdef(b, s, ind); return;
	case ST_IF:
	case ST_WHILE:
		open_stmt(b, stmt_head(s->kind), s->loc, ind);
		sb_putc(b, ' ');
		dump_expr(b, s->cond);
		sb_putc(b, '\n');
		dump_body(b, s->body, ind + 1);
		dump_else(b, s->orelse, ind + 1);
		close_line(b);
		return;
	case ST_WITH:
		open_stmt(b, "with", s->loc, ind);
		sb_putc(b, ' ');
		dump_expr(b, s->cond);
		if (s->with_as) {
			sb_puts(b, " as ");
			dump_expr(b, s->with_as);
		}
		sb_putc(b, '\n');
		dump_body(b, s->body, ind + 1);
		close_line(b);
		return;
	case ST_FOR:
		open_stmt(b, "for", s->loc, ind);
		sb_putc(b, ' ');
		dump_expr(b, s->for_target);
		sb_putc(b, ' ');
		dump_expr(b, s->iter);
		sb_putc(b, '\n');
		dump_body(b, s->for_body, ind + 1);
		dump_else(b, s->for_orelse, ind + 1);
		close_line(b);
		return;
	case ST_CLASS:
		open_stmt(b, "class", s->loc, ind);
		sb_printf(b, " %s", s->cls->name);
		for (int i = 0; i < s->cls->nbases; i++) {
			sb_putc(b, ' ');
			dump_expr(b, s->cls->bases[i]);
		}
		sb_putc(b, '\n');
		dump_body(b, s->cls->body, ind + 1);
		close_line(b);
		return;
	case ST_TRY:
		open_stmt(b, "try", s->loc, ind);
		sb_putc(b, '\n');
		dump_body(b, s->try_body, ind + 1);
		for (int i = 0; i < s->nhandlers; i++)
			dump_clause(b, "except", s->handlers[i], ind + 1);
		dump_else(b, s->try_else, ind + 1);
		dump_clause(b, "finally", s->try_final, ind + 1);
		close_line(b);
		return;
	default: open_stmt(b, stmt_head(s->kind), s->loc, ind); dump_simple(b, s);
	}
}

void ast_dump(const Module *m, StrBuf *out)
{
	sb_puts(out, "(module\n");
	dump_body(out, m->body, 1);
	close_line(out);
}

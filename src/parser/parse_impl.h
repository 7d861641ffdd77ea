/* parse_impl.h: what the two halves of the parser share (internal).
 *
 * parse.c holds the token cursor, error reporting and the statements;
 * parse_expr.c the expressions. Not a public interface: only src/parser/
 * includes it. Every ps_* function takes the Parser it works on.
 */
#ifndef TILE_PARSE_IMPL_H
#define TILE_PARSE_IMPL_H

#include "parser/ast.h"
#include "parser/lex.h"

#define MAX_DEPTH  300  /* nested expression recursion */
#define MAX_HEIGHT 1000 /* height of an expression tree (a + b + c ... is left-deep) */
#define MAX_ELIF   1000 /* elif branches (each nests one ST_IF deeper) */

/* Arena-backed growable array. */
#define AVEC(T)                                                                                    \
	struct {                                                                                   \
		T *items;                                                                          \
		int n, cap;                                                                        \
	}
#define avec_push(p, v, x)                                                                         \
	(ps_avec_grow_((p)->arena, (void **)&(v)->items, &(v)->cap, (v)->n, sizeof(*(v)->items)),  \
	 (v)->items[(v)->n++] = (x))
void ps_avec_grow_(Arena *a, void **items, int *cap, int n, size_t elem);

typedef AVEC(Expr *) ExprVec;
typedef AVEC(Stmt *) StmtVec;
typedef AVEC(Keyword) KwVec;
typedef AVEC(ImportName) ImportVec;

/* A set of interned names (duplicate parameters and keywords), so that a
 * call with 100k keyword arguments is not quadratic. Arena-backed. */
typedef struct NameSet {
	const char **slots;
	size_t cap, n;
} NameSet;
/* Adds `name`; false if it was already there. */
bool ps_nameset_add(Arena *a, NameSet *s, const char *name);

typedef struct Parser {
	Arena *arena;
	Interner *names;
	DiagSink *diags;
	Lexer lx;
	Token la[3]; /* lookahead */
	int nla;
	Token eof; /* what the parser sees after an error */
	bool failed, err_generic;
	bool err_unsupported; /* the error is valid Python outside the subset */
	bool err_kernel;      /* the error is in a @jit function (a class holding it is not skipped) */
	bool in_decorator;    /* parsing a decorator: `**kwargs` arguments are kept, unread */
	bool host_mode;       /* in a host function: host code is skipped per statement */
	bool in_kernel;       /* in a @jit function: f(**d) is an error there, as Triton's visit_Call has no splat */
	SrcLoc err_loc;
	const char *err_msg;
	int depth, func_depth, loop_depth;
	int h; /* height of the expression just parsed (see parse_expr.c) */
	const char *s_match;
	const char *s_type; /* the soft keyword of PEP 695 type aliases */
} Parser;

/* ---- the token cursor (parse.c) ---- */
Token *ps_peek(Parser *p, int n); /* n-th token ahead; EOF forever after an error */
Token ps_advance(Parser *p);
bool ps_accept(Parser *p, TokKind k);
void ps_expect(Parser *p, TokKind k);
const char *ps_expect_name(Parser *p);
static inline Token *cur(Parser *p) { return ps_peek(p, 0); }
static inline TokKind kind(Parser *p) { return cur(p)->kind; }
static inline bool at(Parser *p, TokKind k) { return kind(p) == k; }
static inline SrcLoc here(Parser *p) { return cur(p)->loc; }

/* A parser of its own over file (an f-string field, an eval'd string) with
 * p's arena, names, diagnostics and recursion depth (parse.c). */
Parser *ps_sub_parser(Parser *p, const SrcFile *file);

/* ---- errors (parse.c): the first one wins, the parse then unwinds ---- */
void ps_err_at(Parser *p, SrcLoc loc, const char *fmt, ...) PRINTF_LIKE(3, 4);
void ps_err_tok(Parser *p, const char *fmt, ...) PRINTF_LIKE(2, 3);
/* ps_err_tok for valid Python that tile does not support (host code around
 * the kernels may use it: see parse_toplevel) */
void ps_err_unsupported(Parser *p, const char *fmt, ...) PRINTF_LIKE(2, 3);
/* "function call", "literal", ...: what an expression is, for messages */
const char *ps_expr_desc(const Expr *e);
void ps_unexpected(Parser *p, const char *fmt, ...) PRINTF_LIKE(2, 3);

/* ---- expressions (parse_expr.c) ---- */
Expr *ps_new_expr(Parser *p, ExprKind k, SrcLoc loc);
/* Finishes node e over children of height child_h: sets p->h, enforces MAX_HEIGHT. */
Expr *ps_done_expr(Parser *p, Expr *e, int child_h);
bool ps_starts_expr(TokKind k);
Expr *ps_expr(Parser *p);     /* expression (ternary level, no tuple) */
Expr *ps_testlist(Parser *p); /* expressions with commas: a tuple if any */
Expr *ps_target(Parser *p);   /* a for-loop target list */
Expr *ps_target1(Parser *p);  /* one target (a with item's `as`) */

/* ---- string literals and f-strings (parse_str.c) ---- */
Expr *ps_strings(Parser *p); /* adjacent literals at the cursor, concatenated */

/* ---- statements (parse.c) ---- */
Stmt *ps_new_stmt(Parser *p, StmtKind k, SrcLoc loc);
/* An indented block after a ':' (`after` names the statement, for errors). */
StmtList ps_block(Parser *p, const char *after, int line);

/* ---- definitions (parse_def.c) ---- */
/* A compound statement outside the subset, skipped whole as ST_UNSUPPORTED. */
Stmt *ps_skip_compound(Parser *p, const char *what);
/* PEP 695 type parameters `[T, *Ts, **P]` at the cursor, if any, read and
 * dropped after Python's checks */
void ps_skip_type_params(Parser *p);
Stmt *ps_funcdef(Parser *p, ExprVec *decorators);
Stmt *ps_class(Parser *p, ExprVec *decorators);
Stmt *ps_decorated(Parser *p); /* decorators, then the def or class they decorate */
bool ps_class_allowed(const Parser *p); /* a class at module level only */

#endif

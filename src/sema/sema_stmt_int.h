/* sema_stmt_int.h: what sema_stmt.c (statements) and sema_loop.c (loops)
 * share: name collection over statement lists, the control context stack. */
#ifndef TILE_SEMA_STMT_INT_H
#define TILE_SEMA_STMT_INT_H

#include "sema/sema_int.h"

typedef VEC(const char *) NameVec;

/* names (sema_stmt.c) */
bool contains_return(const StmtList *l);
void target_names(const Expr *t, NameVec *out);       /* the names an assignment target binds */
void named_expr_targets(const Expr *e, NameVec *out); /* the names bound by := in e */
void assigned_names(const StmtList *l, NameVec *out); /* the names the statements bind */

/* flattening a value into IR leaves against a template, with errors that say how they differ */
const char *value_kind_str(Sema *s, Value v);
const char *other_kind_str(Sema *s, const char *a, Value b);
bool flatten_matching(Sema *s, Value tmpl, Value v, const Type *want, int nwant, IdVec *out, SrcLoc loc);

/* the control context: what a break, continue or return is inside */
static inline void ctx_push(Fn *fn, CtxKind k) { vec_push(&fn->ctx, (int)k); }
static inline void ctx_pop(Fn *fn) { fn->ctx.len--; }
bool nest_enter(Sema *s, SrcLoc loc);      /* one region deeper; false (reported) past NEST_LIMIT */
const char *elementwise_fn(const Sema *s); /* what runs an element's function, for errors: combine_fn or tl.map_elementwise */

/* loops (sema_loop.c) */
Flow exec_for(Sema *s, Fn *fn, const Stmt *st);
Flow exec_while(Sema *s, Fn *fn, const Stmt *st);

#endif

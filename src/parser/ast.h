/* ast.h: the syntax tree of a .tile file (the Python subset Triton kernels use).
 *
 * Produced by parse_module() (src/parser/parse.c), consumed by sema. Every node
 * is arena-allocated and carries the location of its first token. Names are
 * interned (compare with ==). The tree is a faithful picture of the source: no
 * desugaring here (sema decides what `x[:, None]` or `tl.arange` mean).
 *
 * Locations: a node's loc is its first token, except binary-operator nodes
 * (EX_BINOP, EX_COMPARE, EX_BOOLOP), whose loc is their (first) operator, so a
 * diagnostic about `x + y` puts its caret on the `+`. A parenthesized tuple
 * starts at its '('.
 */
#ifndef TILE_AST_H
#define TILE_AST_H

#include "util/util.h"

typedef struct Expr Expr;
typedef struct Stmt Stmt;

typedef enum {
	EX_NAME,      /* name */
	EX_INT,       /* ival (Python int literal below 2**64; ival_u64: ival as uint64, >= 2**63) */
	EX_FLOAT,     /* fval */
	EX_STR,       /* str (decoded, may contain NUL: strlen not used; slen) */
	EX_BOOL,      /* ival 0/1 */
	EX_NONE,
	EX_ATTR,      /* obj.name */
	EX_CALL,      /* func(args..., kw=...) */
	EX_SUBSCRIPT, /* obj[items...]: one item per comma-separated index */
	EX_SLICE,     /* lo:hi:step inside a subscript; each may be NULL */
	EX_BINOP,     /* lhs op rhs */
	EX_UNOP,      /* op operand */
	EX_COMPARE,   /* a < b <= c: operands[n+1], cmp_ops[n] (Python chains) */
	EX_BOOLOP,    /* a and b and c / a or b: items[] */
	EX_IFEXP,     /* body if cond else orelse */
	EX_TUPLE,     /* (a, b) or a, b: items[] */
	EX_LIST,      /* [a, b]: items[] */
	EX_ELLIPSIS,  /* ... */
	EX_DICT,      /* {k: v, ...}: keys[nkeys], values[nkeys] */
	EX_LAMBDA,    /* lambda params: body: lparams[nlparams] (no annotations), lbody;
	               * the first lnpos params are positional, the rest keyword-only;
	               * lstar / lkwstar name *args / **kwargs (NULL when absent) */
	EX_SET,       /* {a, b}: items[] (sema decides where it can use one) */
	EX_LISTCOMP,  /* [elt for t in it if c ...] / (elt for ...): elt, comps[ncomps]; is_gen for a generator */
	EX_STARRED,   /* *lhs: a call's `*args`; in decorators (configs=[..., *more()]) host Python */
	EX_NAMEDEXPR, /* lhs := rhs (lhs an EX_NAME): assigns, and is the value */
} ExprKind;

typedef enum {
	OP_ADD, OP_SUB, OP_MUL, OP_DIV /* / */, OP_FLOORDIV /* // */, OP_MOD, OP_POW,
	OP_MATMUL /* @ */, OP_LSHIFT, OP_RSHIFT, OP_BITAND, OP_BITOR, OP_BITXOR,
	/* unary */
	OP_NEG, OP_POS, OP_INVERT /* ~ */, OP_NOT,
	/* comparisons */
	OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE, OP_IS, OP_ISNOT, OP_IN, OP_NOTIN,
	/* boolean */
	OP_AND, OP_OR,
} AstOp;

typedef struct Param Param;

/* One `for target in iter if cond if cond ...` clause of a comprehension. */
typedef struct CompClause {
	Expr *target; /* a name or a tuple of targets */
	Expr *iter;
	Expr **ifs;
	int nifs;
	SrcLoc loc;   /* the 'for' */
} CompClause;

typedef struct Keyword {
	const char *name; /* interned */
	Expr *value;
	SrcLoc loc;
} Keyword;

struct Expr {
	ExprKind kind;
	SrcLoc loc;
	bool ival_u64; /* EX_INT: ival is a uint64 in [2**63, 2**64) */
	union {
		const char *name; /* EX_NAME (interned) */
		int64_t ival;     /* EX_INT, EX_BOOL */
		double fval;      /* EX_FLOAT */
		struct { const char *str; size_t slen; };
		struct { Expr *obj; const char *attr; };                /* EX_ATTR (attr interned) */
		struct { Expr *func; Expr **args; int nargs; Keyword *kwargs; int nkwargs; }; /* EX_CALL */
		struct { Expr *base; Expr **index; int nindex; };       /* EX_SUBSCRIPT */
		struct { Expr *lo, *hi, *step; };                       /* EX_SLICE */
		struct { AstOp op; Expr *lhs, *rhs; };                  /* EX_BINOP; EX_UNOP uses op+lhs */
		struct { Expr **operands; AstOp *cmp_ops; int ncmp; };  /* EX_COMPARE: ncmp ops, ncmp+1 operands */
		struct { AstOp bool_op; Expr **items; int nitems; };    /* EX_BOOLOP, EX_TUPLE, EX_LIST, EX_SET */
		struct { Expr *cond, *then_e, *else_e; };               /* EX_IFEXP */
		struct { Expr **keys, **values; int nkeys; };           /* EX_DICT */
		struct { Param *lparams; int nlparams, lnpos; Expr *lbody; const char *lstar, *lkwstar; }; /* EX_LAMBDA */
		struct { Expr *elt; CompClause *comps; int ncomps; bool is_gen, is_dict, is_set; }; /* EX_LISTCOMP; is_dict: {k: v for ...}, elt the (k, v) tuple */
	};
};

typedef enum {
	ST_EXPR,      /* value (docstrings are ST_EXPR of EX_STR) */
	ST_ASSIGN,    /* targets[ntargets] = value  (a = b = v has two targets) */
	ST_ANNASSIGN, /* target: annotation [= value] */
	ST_AUGASSIGN, /* target op= value */
	ST_RETURN,    /* value may be NULL */
	ST_IF,        /* cond, body, orelse (elif is an ST_IF alone in orelse) */
	ST_FOR,       /* for target in iter: body [else: orelse] */
	ST_WHILE,     /* while cond: body [else: orelse] */
	ST_BREAK,
	ST_CONTINUE,
	ST_PASS,
	ST_ASSERT,    /* assert cond[, msg] */
	ST_FUNCDEF,   /* def name(params) [-> returns]: body; decorators */
	ST_IMPORT,    /* import a.b.c [as x], ... */
	ST_IMPORTFROM,/* from a.b import x [as y], ... (level = number of leading dots) */
	ST_GLOBAL,    /* global/nonlocal names (rejected by sema) */
	ST_TRY,       /* try: body; except [E [as n]]: handlers[i]; else: try_else; finally: try_final */
	ST_UNSUPPORTED, /* class/with/lambda/...: parsed enough to report; what names it */
	ST_CLASS,     /* class name(bases): body (at module level; elsewhere ST_UNSUPPORTED) */
	ST_WITH,      /* with cond [as with_as]: body, in a function (`with a, b:` nests); elsewhere ST_UNSUPPORTED */
} StmtKind;

typedef struct StmtList {
	Stmt **items;
	int n;
} StmtList;

struct Param {
	const char *name;  /* interned */
	Expr *annotation;  /* may be NULL; e.g. tl.constexpr */
	Expr *default_val; /* may be NULL */
	SrcLoc loc;
};

typedef struct ImportName {
	const char *name;   /* dotted, interned: "triton.language" */
	const char *asname; /* interned or NULL */
	SrcLoc loc;
} ImportName;

typedef struct FuncDef {
	const char *name;
	Param *params;
	int nparams;
	Expr *returns;     /* -> annotation, may be NULL */
	Expr **decorators; /* @triton.jit, @triton.jit(do_not_specialize=[...]), ... */
	int ndecorators;
	StmtList body;
	const char *docstring; /* first statement's string, if any, else NULL */
	bool variadic;         /* a host def with '/' (left out of params) */
	/* A @jit def's `*args` (Triton passes the extra positional arguments as a
	 * tuple): its name, NULL when absent. The last nkwonly params follow
	 * `*args` or a bare `*`: keyword-only. */
	const char *star;
	/* `**kwargs` of a def without @jit (host code such as Triton's
	 * early_config_prune(configs, named_args, **kwargs), or a decorator
	 * wrapper's): its name, NULL when absent; the keyword arguments no
	 * parameter takes, as a dict */
	const char *kwstar;
	int nkwonly;
} FuncDef;

/* A module-level class: its body is module-level code (host statements the
 * parser cannot read are skipped one by one, as at the top); the keyword
 * arguments of its header (metaclass=...) are dropped. */
typedef struct ClassDef {
	const char *name;
	Expr **bases; /* the positional expressions in the header's parentheses */
	int nbases;
	Expr **decorators; /* @aggregate makes it a value type; others are host code */
	int ndecorators;
	StmtList body;
} ClassDef;

struct Stmt {
	StmtKind kind;
	SrcLoc loc;
	union {
		Expr *value;                                            /* ST_EXPR, ST_RETURN */
		struct { Expr **targets; int ntargets; Expr *assign_value; };  /* ST_ASSIGN */
		struct { Expr *ann_target, *annotation, *ann_value; };         /* ST_ANNASSIGN */
		struct { Expr *aug_target; AstOp aug_op; Expr *aug_value; };   /* ST_AUGASSIGN */
		struct { Expr *cond; StmtList body, orelse; Expr *with_as; }; /* ST_IF, ST_WHILE, ST_WITH */
		struct { Expr *for_target, *iter; StmtList for_body, for_orelse; }; /* ST_FOR */
		struct { Expr *test, *msg; };                           /* ST_ASSERT */
		FuncDef *func;                                          /* ST_FUNCDEF */
		ClassDef *cls;                                          /* ST_CLASS */
		struct { StmtList try_body, *handlers, try_else, try_final; int nhandlers; }; /* ST_TRY */
		struct { const char *module; int level; ImportName *names; int nnames; }; /* ST_IMPORT(FROM); module NULL for ST_IMPORT; `from M import *`: the one name "*" */
		struct { const char **gnames; int ngnames; };           /* ST_GLOBAL */
		/* ST_UNSUPPORTED: what = "class definition", "with statement", ...; at module
		 * level also Python the parser skipped (host code), host_name = the name
		 * it defines, if it is a def, class or assignment, else NULL; host_def:
		 * a skipped def parsed again with the host code in its body skipped
		 * statement by statement, for the kernels defined inside it */
		struct { const char *what, *host_name; FuncDef *host_def; };
	};
};

typedef struct Module {
	const SrcFile *file;
	StmtList body;
} Module;

/* Parse a whole file. Syntax and indentation errors go to `diags`; returns
 * NULL if any error was reported. The SrcFile must outlive the Module. */
Module *parse_module(Arena *arena, Interner *names, DiagSink *diags, const SrcFile *file);

/* Deterministic S-expression-like dump for `tile compile --emit=ast` and golden tests. */
void ast_dump(const Module *m, StrBuf *out);

#endif

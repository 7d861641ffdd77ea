/* sema_int.h: what the files of src/sema/ share (not a public interface).
 *
 *   sema.c            entry points, module scopes, name resolution, imports
 *   sema_const.c      constexpr values: Python arithmetic, truthiness, equality
 *   sema_types.c      promotion (Triton's semantic.py), casts, broadcasting, emit helpers
 *   sema_expr.c       expressions
 *   sema_stmt.c       statements and structured control flow (if/for/while, returns)
 *   sema_call.c       calls: argument binding for builtins, inlining of @jit helpers
 *   builtins_*.c      the tl.* builtins by family; builtins_prelude.c holds the
 *                     ones written in the kernel language itself (random, sigmoid, ...)
 *   builtins_shape.c  tl.join / split / interleave / cat / flip (from existing ops)
 *   builtins_asm.c    tl.inline_asm_elementwise: the PTX translated into Tile IR ops
 *   blockptr.c        make_block_ptr / advance / block-pointer loads and stores;
 *                     make_tensor_descriptor and descriptor loads, stores, atomics
 *   sema_agg.c        @aggregate classes: construction, fields, bound methods
 *
 * A sema Value is a tagged union: a constexpr (ConstVal), a dtype, an IR value
 * (tensor or scalar), a function, a builtin (maybe bound to a receiver), a
 * namespace or module, a block pointer, a tuple, an aggregate. V_ERR propagates silently
 * after a diagnostic, so one mistake yields one message.
 */
#ifndef TILE_SEMA_INT_H
#define TILE_SEMA_INT_H

#include <stdlib.h>

#include "sema/sema.h"

typedef struct Value Value;
typedef struct ModScope ModScope;
typedef struct Sema Sema;
typedef struct Fn Fn;

typedef enum {
	V_ERR,      /* an error was reported; propagate silently */
	V_CONST,    /* constexpr: c */
	V_DTYPE,    /* dtype object: ty (scalar type; DT_PTR with elem for pointer types); n > 0: a block
	               type of element type ty and shape items[n] (x.type of a block x) */
	V_TENSOR,   /* IR value: id, ty (rank 0 = scalar) */
	V_FUNC,     /* user function: fn, mod; msg: "Class.name" for a method without @jit;
		     * self: the bound receiver of an aggregate's method; ns == VF_HOST:
		     * an aggregate's method without @jit, which runs as Python does;
		     * cap[ncap]: a def in a host function, the bindings it closes over */
	V_BUILTIN,  /* builtin: builtin id, self (bound receiver, may be NULL) */
	V_NS,       /* builtin namespace: ns */
	V_MODULE,   /* user module: mod */
	V_BLOCKPTR, /* bp */
	V_TUPLE,    /* items[n] */
	V_POISON,   /* a name that may not be used: msg */
	V_DICT,     /* constexpr dict: keys[n] -> items[n] */
	V_LAMBDA,   /* lambda: lam (EX_LAMBDA), mod, captured bindings cap[ncap] */
	V_RTARG,    /* a runtime kernel argument seen by a heuristic: msg = name, ty, c.i = SPEC_*;
		     * depth 1: a tensor whose shape (items[n]) and strides (keys[n]) the host gave */
	V_CONFIG,   /* triton.Config: items[0] = dict of kwargs, items[1] num_warps, items[2] num_stages (None: not given) */
	V_AGG,      /* an instance of an @aggregate class: mod = the class, items[n] = its fields in
		     * declaration order (V_POISON: not assigned yet); ns == AGG_BUILDING while its
		     * __init__ runs, the only time its fields may be assigned */
} VKind;

enum { VF_HOST = 1 };      /* V_FUNC.ns */
enum { POISON_PY = 1 };    /* V_POISON.ns: the name failed on an error Python raises too (Sema.py_errors) */
enum { AGG_BUILDING = 1 }; /* V_AGG.ns */

typedef enum {
	NS_TRITON, NS_TL, NS_MATH, NS_EXTRA, NS_EXTRA_CUDA, NS_LIBDEVICE, NS_TILE, NS_TL_CORE, NS_PROPNAN,
	NS_TORCH, /* torch's dtypes and finfo/iinfo, for module-level constants */
	NS_TORCH_VERSION, /* torch.version.hip: None, tile targets no ROCm */
	NS_TORCH_CUDA, /* torch.cuda.is_available(): True, a Triton kernel runs where CUDA does */
	NS_TORCH_VERSION_CUDA, /* torch.version.cuda: not None (a CUDA build), its string the host's */
	NS_PYMATH, /* Python's math module, on constexpr numbers */
	NS_IMPORTLIB, NS_IMPORTLIB_UTIL, /* importlib.util.find_spec, for "is triton installed" */
	NS_ITERTOOLS, /* Python's itertools (product, chain), on constexpr lists: config builders */
	NS_FUNCTOOLS, NS_OPERATOR, /* functools.reduce, operator.add ... (builtins_pyhost.c) */
	NS_TARGET_INFO, /* tl.target_info: is_cuda(), cuda_capability_geq(), is_hip*() */
	NS_PACKAGING, NS_PACKAGING_VERSION, /* packaging.version: parse/Version, for triton.__version__ checks */
	NS_TYPING, /* Python's typing: NamedTuple, a base of kernel value classes */
	NS_TYPING_NAMEDTUPLE, /* typing.NamedTuple itself (a class base, never called) */
	NS_ENUM, /* Python's enum: the bases of a module's Enum classes (sema_enum.c) */
	NS_ENUM_ENUM, NS_ENUM_INTENUM, NS_ENUM_FLAG, NS_ENUM_INTFLAG, NS_ENUM_STRENUM, NS_ENUM_AUTO, NS_ENUM_UNIQUE,
} Namespace;

typedef struct BlockPtr BlockPtr;
typedef struct Binding Binding;

struct Value {
	VKind kind;
	ConstVal c;
	Type ty;
	ValId id;
	const FuncDef *fn;
	ModScope *mod;
	int builtin;
	int ns;
	Value *self;
	BlockPtr *bp;
	Value *items;
	int n;
	const char *msg;
	Value *keys;       /* V_DICT */
	int depth;         /* V_TUPLE, V_DICT, V_CONFIG: how deeply they nest (1: no tuple inside) */
	const Expr *lam;   /* V_LAMBDA */
	Binding *cap;      /* V_LAMBDA, V_FUNC (a closure) */
	int ncap;
	unsigned made_in;  /* V_LAMBDA: the serial of the Fn activation that made it */
	struct TupleBuf *buf; /* V_TUPLE grown by append / + (tuple_grow): the buffer of its items */
	bool set;  /* V_TUPLE: a Python set, its items distinct (builtins_set.c) */
	bool list; /* V_TUPLE: a Python list ([...], list(), a list comprehension and what grows
		      from them), which prints as one; otherwise a list is a tuple */
};

struct BlockPtr {
	Value base; /* V_TENSOR scalar pointer */
	int rank;
	Value shape[TIR_MAX_RANK], strides[TIR_MAX_RANK], offsets[TIR_MAX_RANK]; /* V_CONST or scalar V_TENSOR */
	int32_t block[TIR_MAX_RANK];
	int order[TIR_MAX_RANK];
	bool desc;    /* a tensor descriptor: offsets (all 0 here) come with each access */
	bool pad_nan; /* descriptor padding_option "nan" (else "zero") */
};

/* A condition on the way to a module-level if-branch: cond must be `want`. */
typedef struct Guard {
	const Expr *cond;
	bool want;
	size_t before; /* the module's names bound before the if: those cond sees */
} Guard;

/* The body (with its else) of a module-level try: Python leaves it at the
 * first import that raises, so what the body binds after one is not bound */
typedef struct TryBody {
	size_t first, end;           /* the module's names bound in it: [first, end) */
	size_t handlers_end;         /* and in its except handlers: [end, handlers_end) */
	int nguards;                 /* the if-conditions around the try */
	const struct TryBody *outer; /* the try body this try is in, if any */
} TryBody;

/* A module-level name: evaluated lazily on first use. */
/* GB_STAR: `from M import *` (name "*"): binds, at its place, M's public names.
 * GB_STMT: a top-level statement that rebinds the name when run as Python
 * (a `for` loop, `NAME += ...`, `NAME.append(...)`): the name's value is
 * what running stmt leaves, starting from the names bound before it. */
typedef enum { GB_FUNC, GB_EXPR, GB_IMPORT, GB_FROM, GB_VALUE, GB_BUSY, GB_STAR, GB_STMT } GlobalKind;
typedef struct Global {
	const char *name;
	GlobalKind kind;
	const Stmt *stmt;
	const FuncDef *fn;
	const Expr *expr;       /* GB_EXPR */
	const char *modname;    /* GB_IMPORT: dotted module; GB_FROM: module */
	const char *attr;       /* GB_FROM: imported name */
	int level;
	bool bind_root;         /* `import a.b` binds `a` */
	Value val;              /* GB_VALUE */
	SrcLoc loc;
	int alt;                /* > 0: an alternative binding inside module-level if/try group `alt` */
	const Guard *guards;    /* the if-conditions that lead to it */
	int nguards;
	const TryBody *try_body; /* the innermost module-level try body it is in */
	bool is_import;         /* bound by an import statement */
	bool alt_done;          /* on the last binding of a name in a group: alt_val is the answer */
	bool star_busy;         /* GB_STAR: a lookup through it is under way (import * cycles) */
	Value alt_val;
} Global;

/* A module-level `X.attr = value` (X a name): Python sets attr of what X is,
 * a module or a class, which later reads of it see (sema_scope.c attr_set_get) */
typedef struct AttrSet {
	ModScope *in;        /* the scope the statement is in */
	const Expr *target;  /* EX_ATTR on an EX_NAME */
	const Expr *value;
	struct AttrSet *next;
} AttrSet;

/* The fields of an @aggregate class: its annotated names (`x: tl.tensor`,
 * `n: tl.constexpr = 4`), those of its aggregate bases first. */
typedef struct AggField {
	const char *name;
	const Expr *ann;
	bool has_default; /* `name: ann = value`: the class attribute `name` is the default */
	bool is_const;    /* annotated tl.constexpr: part of the type, never a runtime value */
	ModScope *owner;  /* the class that declares it */
} AggField;
typedef struct AggInfo {
	AggField *fields;
	int n;
} AggInfo;

/* A def bound at index idx of a scope's globals (limit_to_def's lookup). */
typedef struct DefAt {
	const FuncDef *def;
	size_t idx;
} DefAt;

struct ModScope {
	const Module *ast;
	const char *name;
	VEC(Global) globals;
	ModScope *next; /* list of loaded modules */
	ModScope *importer; /* the module whose import loaded it (names resolve from its file) */
	ModScope *parent;   /* a host function's locals, for kernels defined in it: its module;
			     * a class body: the module that defines the class */
	const ClassDef *cls; /* a class body (a V_MODULE value is then the class): its names
			      * resolve there, then in parent; the bodies of its functions see
			      * parent's names only, as Python's do */
	bool mro_busy;       /* a lookup through its bases is under way (class A(A)) */
	signed char agg_state; /* 0: not known yet, 1: a plain class, 2: an @aggregate (agg),
	                        * 3: a typing.NamedTuple (agg: its fields) */
	AggInfo agg;
	signed char enum_kind; /* 0: not known yet, else an EnumKind (sema_enum.c) */
	int enum_n;            /* its members (enum_m), once known; -1: they failed */
	struct EnumMember *enum_m;
	size_t limit;   /* while evaluating global k: only globals before k are visible (0 = all) */
	/* the defs among globals, sorted by address (built for def_at_len globals) */
	VEC(DefAt) def_at;
	size_t def_at_len;
	int nalts;      /* module-level if/try groups so far */
	bool is_prelude;
};

struct Binding {
	const char *name;
	Value v;
};
/* a function's bindings; ix: a hash index over data[0, ix_len) (sema_env.c) */
typedef struct Env {
	Binding *data;
	size_t len, cap;
	uint32_t *ix;
	size_t ix_cap, ix_len;
} Env;

/* Enclosing constructs, for break/continue/return checks. */
typedef enum { CTX_STATIC_LOOP, CTX_RT_LOOP, CTX_RT_IF } CtxKind;

struct Fn {
	const FuncDef *def;
	ModScope *mod;
	Env env;
	bool is_kernel;
	bool has_ret;
	Value retval;
	VEC(int) ctx; /* CtxKind stack */
	Fn *caller;
	unsigned serial; /* this activation's, unique per Sema (Sema.fn_serial) */
};

/* A TMA descriptor a kernel builds in memory with Triton 3.2's
 * tl.extra.cuda.experimental_device_tensormap_create1d/2d: the pointer it was
 * written at (desc_ptr) names it for tl._experimental_descriptor_load/_store,
 * which read it back as the tensor descriptor it describes (blockptr.c). */
typedef struct {
	ValId at;       /* desc_ptr */
	TirFunc *f;     /* the kernel being compiled */
	TirBlock *blk;  /* the region it was made in: uses must be inside it */
	Value desc;     /* V_BLOCKPTR, a tensor descriptor */
} TmaDesc;

struct Sema {
	SemaCtx *c;
	Arena *a;
	DiagSink *d;
	TirFunc *f;
	TirBlock *blk;
	TirFunc *module_scratch; /* where module-level code puts its IR (eval_module_expr) */
	ModScope *mods;
	ModScope *prelude;
	VEC(const FuncDef *) callstack;
	/* the innermost call made from the user's code: ops of tile's prelude
	 * (tl.sigmoid, tl.sort, ...) take its location (op_loc), as the prelude
	 * has no file a debugger or profiler could show */
	SrcLoc user_call;
	/* the call an expression statement makes (its result dropped): Triton's
	 * @must_use_result functions (tl.advance) refuse to be called so */
	const Expr *unused_call;
	VEC(TmaDesc) tma_descs; /* device-made TMA descriptors, newest last */
	int depth;
	unsigned fn_serial; /* the last Fn activation's serial (fn_init) */
	int global_depth; /* module-level names being evaluated, one inside the other */
	int nest;         /* runtime ifs and loops open around the current statement */
	/* inside tl.map_elementwise's function (builtins_map.c): an if on a tile is
	 * if-converted (sema_stmt.c) */
	int map_depth;
	/* inside a tl.reduce / tl.associative_scan combine_fn (builtins_reduce.c):
	 * its values are one element each, so an if on one is if-converted too
	 * (a runtime if there would branch on one thread's element for all) */
	int combine_depth;
	/* tl.condition(c, disable_licm=True) was evaluated: the while loop whose
	 * condition it is keeps its invariant ops (TIR_NO_LICM) */
	bool cond_no_licm;
	/* device_assert and `assert` are kept (CompileOptions.debug, or the
	 * kernel's @triton.jit(debug=True)); else dropped, as Triton's semantic
	 * drops them without debug */
	bool debug;
	int host_fn;      /* > 0 inside a @constexpr_function: Python, its range loops run at compile time */
	int jit_applied;  /* triton.jit(f) calls evaluated (a host decorator wrapper applying it) */
	/* functions whose decorator is a host function wrapping triton.jit, asked
	 * before (jit_wrapped: its answer) */
	VEC(const FuncDef *) jit_wrap_seen;
	VEC(bool) jit_wrapped;
	/* interned spellings used everywhere */
	const char *s_constexpr;
	ModScope *main_mod; /* the module whose kernels are listed or compiled */
	/* while evaluating a @triton.heuristics function: the parameter it sets */
	const char *heuristic;
	/* sema_heuristic_values: run @triton.autotune's early_config_prune, whose
	 * kept config is then *pruned */
	bool run_prune;
	bool prune_only; /* HeurLaunch.prune_only */
	Value *pruned;
	/* prune_only: the heuristics, run quietly on the pruned config, all gave
	 * a value (a heuristic setting a parameter the configs set too) */
	bool heurs_done;
	bool too_big; /* the kernel passed SEMA_MAX_VALUES (reported once) */
	int64_t work; /* compile-time evaluation done so far (sema_work) */
	bool too_much_work;
	/* the first report of too_big or too_much_work: a limit passed while
	 * diagnostics were set aside (host code tried quietly) still fails the
	 * compile, since sema stops doing work past it */
	const Diag *limit_diag;
	/* errors after which a statement's result in Python is surely not the
	 * value its names had before it, counted even when set aside: ones Python
	 * raises too (NameError, a TypeError or ZeroDivisionError of constants,
	 * IndexError, a failed assert) and the size limits of compile-time values
	 * (a 2**64 integer, a string of more than STR_MAX_LEN characters, a long
	 * range), where Python goes on. Host data sema cannot see (os.environ,
	 * torch.cuda) is none of these. */
	unsigned py_errors;
	/* a dict method that changes its dict (d.update(...)) leaves the new dict
	 * here for the call to rebind the name: tile's dicts are values */
	bool dict_changed;
	Value dict_new;
	AttrSet *attr_sets;  /* every loaded module's module-level `X.attr = v`, newest first */
	bool attr_set_busy;  /* resolving the object of one: reads see the names as bound */
	const AttrSet *attr_set_upto; /* evaluating its value: only the sets before it count */
	/* evaluating `from M import X` in module attr_from_mod: its sets of M.X
	 * after the import statement (attr_from_loc) do not count, the name being
	 * bound to what M.X was then */
	ModScope *attr_from_mod;
	SrcLoc attr_from_loc;
};

/* Values a kernel may have after inlining and unrolling: nested
 * tl.static_range loops multiply, and 2^60 iterations must be an error, not
 * an out-of-memory. Real kernels have thousands. */
enum { SEMA_MAX_VALUES = 1 << 19 };

/* Module-level names evaluated one inside another (eval_global recurses):
 * a bound well inside the stack of any thread that compiles. */
enum { GLOBAL_DEPTH_LIMIT = 256 };

/* Runtime ifs and loops nested inside each other (regions of regions). */
enum { NEST_LIMIT = 256 };

/* Compile-time evaluation a kernel may do: statements executed (unrolled
 * and inlined ones included), unrolled tl.static_range iterations, inlined
 * calls, comprehension items and the items of tuples built by + and *, all
 * counted together. Nested loops multiply (and so do
 * functions that call the next one twice), and 4096^3 empty iterations or
 * 2^40 inlined calls must be an error, not a hang (real kernels do
 * thousands). */
enum { SEMA_MAX_WORK = 1 << 21 };
void sema_note_limit(Sema *s); /* the report just made of too_big / too_much_work is kept */
enum { SEMA_CALL_WORK = 8 }; /* an inlined call: an environment and its arguments, ~1 KB */
/* Adds n to the work done; false (after one report) past SEMA_MAX_WORK. */
bool sema_work(Sema *s, int64_t n, SrcLoc loc);
/* false (reported once) past SEMA_MAX_VALUES values */
bool sema_values_fit(Sema *s, size_t n, SrcLoc loc);

/* Tuples (and dicts) nested inside each other: the values are walked
 * recursively, so a tuple grown as t = (t,) in a loop is an error past this. */
enum { TUPLE_DEPTH_LIMIT = 256 };
/* constexpr strings (names, messages) built by + at compile time */
enum { STR_MAX_LEN = 1 << 20 };
/* the most elements a tile may have: Triton's TRITON_MAX_TENSOR_NUMEL */
enum { TILE_MAX_NUMEL_LOG2 = 20, TILE_MAX_NUMEL = 1 << TILE_MAX_NUMEL_LOG2 };
int value_nesting(Value v);

/* ---- sema_scope.c, sema_module.c: names and modules ---- */
ModScope *modscope_new(Sema *s, const Module *m, const char *name);
/* x with a new size-1 axis at `axis` (a scalar becomes a 1-element tile). */
ValId sema_expand_dim(Sema *s, ValId x, int axis, SrcLoc loc);
Value lookup_name(Sema *s, Fn *fn, const char *name, SrcLoc loc);
Value global_get(Sema *s, ModScope *m, const char *name, SrcLoc loc, bool *found);
Value ns_attr(Sema *s, int ns, const char *name, SrcLoc loc);
Value module_attr(Sema *s, ModScope *m, const char *name, SrcLoc loc);
/* whether class c is base or derives from it (Python's issubclass) */
bool class_derives(Sema *s, ModScope *c, ModScope *base);
/* `name` of class c, through its bases (found: whether it is there) */
Value class_member(Sema *s, ModScope *c, const char *name, SrcLoc loc, bool *found);
/* The fields of class c if it is an @aggregate (decorated with
 * triton.aggregate / tl.core._aggregate), else NULL. */
const AggInfo *class_aggregate(Sema *s, ModScope *c);
/* whether def has a decorator named `name` (staticmethod, constexpr_function) */
bool has_decorator(const FuncDef *def, const char *name);
bool sema_is_jit(Sema *s, const FuncDef *fn); /* decorated @jit/@autotune/@heuristics (or an alias) */
Value resolve_module_path(Sema *s, ModScope *from, const char *dotted, int level, SrcLoc loc);
bool py_stdlib_module(const char *root); /* py_stdlib.c: "os", "warnings": Python's own modules */
Value *env_find(Env *e, const char *name);
bool has_named_expr(const Expr *e); /* e holds a walrus (x := v), which binds x */
bool is_list_method_call(const Expr *e); /* NAME.append(...), NAME.update(...): rebinds NAME */
void env_set(Env *e, const char *name, Value v);
void env_copy(Env *dst, const Env *src);
void env_drop_index(Env *e);
void env_free(Env *e); /* the bindings and the index */
const char *istr(Sema *s, const char *str);

/* Diagnostics collected aside while sema tries something that may fail
 * (host Python in decorators and defaults, module-level alternatives):
 * quiet_end restores the real sink and says whether anything failed, with
 * the first diagnostic in *first (if given), in the arena. */
typedef struct Quiet {
	DiagSink sink, *saved;
	const Diag *limit; /* s->limit_diag at the start */
} Quiet;
void quiet_begin(Sema *s, Quiet *q);
bool quiet_end(Sema *s, Quiet *q, Diag *first);
/* Python evaluates a def's defaults and decorators when the def runs: while
 * sema does, of module m only the names bound before the def are visible
 * (not a later X = ...). Returns m's limit to restore afterwards; a def that
 * is no binding of m (a call form's copy, one in a class or host function
 * seen from the module) leaves the limit alone. */
size_t limit_to_def(ModScope *m, const FuncDef *def);
/* e, a default of def's parameter, evaluated under limit_to_def */
Value eval_default(Sema *s, Fn *fn, const FuncDef *def, const Expr *e);
/* e evaluated as module m's host code (a module-level expression) */
Value eval_module_expr(Sema *s, ModScope *m, const Expr *e);
/* `name` in scope m alone (not the scopes around it) */
Value scope_get(Sema *s, ModScope *m, const char *name, SrcLoc loc, bool *found);
/* Python's builtins that sema knows (len, range, min ...) */
Value python_builtin(Sema *s, const char *name, bool *found);
/* the project module `name` imported from `from`, or NULL (reported unless quiet) */
ModScope *find_user_module(Sema *s, ModScope *from, const char *name, SrcLoc loc, bool quiet);
/* a package directory with no __init__.py: its attributes are its submodules */
ModScope *package_scope(Sema *s, ModScope *from, const char *name);
/* class c's base classes that are classes of the project, at most max */
int class_bases(Sema *s, ModScope *c, ModScope **out, int max);

/* ---- values ---- */
Value v_err(void);
Value v_int(int64_t i);
Value v_uint64(uint64_t u); /* a Python int in [0, 2**64) */
/* f (integer-valued) as an int in the constexpr range [-2**63, 2**64), a
 * uint64 above INT64_MAX; false outside it (int(), round(), math.floor...) */
bool v_int_of_double(double f, Value *out);
Value v_float(double f);
Value v_bool(bool b);
Value v_none(void);
Value v_str(const char *str);
Value v_dtype(Type t);
/* tl.float8e4b15, tl.float8e4b8, tl.float8e5b16: Triton dtypes tile has no type for.
 * They are V_DTYPE values of DT_VOID named by msg, so a kernel may name and
 * compare them (`if dtype == tl.float8e4b8:` in a chain that never takes that
 * branch); any use as a type is an error (foreign_dtype_error). */
Value v_foreign_dtype(const char *name);
static inline bool v_is_foreign_dtype(Value v) { return v.kind == V_DTYPE && v.ty.dt == DT_VOID && v.msg; }
/* A dtype value a ConstVal (CV_DTYPE) can hold: not a pointer type, not a foreign one. */
static inline bool v_dtype_is_const(Value v) { return v.kind == V_DTYPE && v.ty.dt != DT_PTR && v.ty.dt != DT_VOID; }
Value foreign_dtype_error(Sema *s, Value v, SrcLoc loc);
Value v_tensor(Sema *s, ValId id);
Value v_tuple(Sema *s, const Value *items, int n);
/* A list built at compile time (xs.append, xs + ys) is at most this long: host
 * code growing one without end stops here, not at the work limit (GBs later). */
enum { TUPLE_MAX_ITEMS = 1 << 16 };
/* t with the k items of add after its own (Python's list append / extend / +); in
 * place where t's buffer has room that no longer tuple uses, so that a loop of
 * appends is linear; V_ERR (reported) past TUPLE_MAX_ITEMS or the work limit. */
Value tuple_grow(Sema *s, Value t, const Value *add, int k, SrcLoc loc);
bool v_is_const(Value v, ConstKind k);
bool v_is_none(Value v);
bool value_truthy(Value v); /* Python truth of a non-tensor value */
bool v_is_intlike(Value v); /* CV_INT or CV_BOOL */
const char *v_describe(Sema *s, Value v); /* "int32 scalar", "<128xfp32> tile", "constexpr 3", ... */

/* ---- sema_const.c ---- */
bool const_truthy(ConstVal c);
bool const_eq(ConstVal a, ConstVal b);
/* A number constant's value as a double: an int in [2**63, 2**64) (u64) as
 * that, not as its negative int64 bits. */
double const_as_double(ConstVal c);
/* Python semantics on two constexprs (ints, floats, bools, dtypes, None, str).
 * Returns V_ERR after a diagnostic. */
Value const_binop(Sema *s, AstOp op, Value a, Value b, SrcLoc loc);
void py_float_repr(double x, char *buf, size_t n); /* repr(0.1) == '0.1', str(2.0) == '2.0' */
void py_float_divmod(double a, double b, double *div, double *mod); /* Python's divmod of floats */
Value const_unop(Sema *s, AstOp op, Value a, SrcLoc loc);
uint64_t const_range_len(ConstVal lo, ConstVal hi, ConstVal step); /* Python's len(range(...)), saturated */
Value const_range_next(Value v, Value step); /* v + step, for a range's items */
bool values_identical(Value a, Value b);
void const_str(ConstVal c, char *buf, size_t n);
Value py_str_value(Sema *s, Value v, bool repr, SrcLoc loc);
const char *py_repr_text(Sema *s, Value v); /* repr() of any compile-time value, as static_print shows it */
Value py_repr_whole(Sema *s, Value v, const char *what, SrcLoc loc); /* repr() of a tuple/list/dict, uncut */
Value str_percent(Sema *s, const char *fmt, Value args, SrcLoc loc);
/* format(v, spec): Python's format-spec mini-language (builtins_format.c) */
Value py_format(Sema *s, Value v, const char *spec, SrcLoc loc);
bool attr_quiet(Sema *s, Value obj, const char *name, SrcLoc loc, Value *out); /* hasattr */
Value py_ascii_value(Sema *s, Value v, SrcLoc loc); /* ascii(v) */

/* ---- sema_types.c ---- */
ValId emit(Sema *s, TirOpKind k, SrcLoc loc, const ValId *in, int nin, Type out);
TirOp *emit_op(Sema *s, TirOpKind k, SrcLoc loc, const ValId *in, int nin, Type out);
/* Where an op made at loc is said to be: loc, or inside the prelude, the
 * user's call that led there. */
SrcLoc op_loc(const Sema *s, SrcLoc loc);
ValId emit_const(Sema *s, Type t, int64_t i, double f, SrcLoc loc);
Type vtype(Sema *s, ValId v);
void shape_str(Type t, char *buf, size_t n);   /* "[128,64]" */
void type_name(Type t, char *buf, size_t n);  /* "float32" / "<128x64xfp32>" */
const char *dt_name(Sema *s, Type t);          /* "float32", "pointer<float16>" */
const char *dtype_triton_name(Sema *s, Type t); /* "fp32", "pointer<fp16>": str() and .name */
const char *dtype_value_name(Sema *s, Value v); /* as above; a block type's "<(16,), fp32>" */
bool check_tile_shape(Sema *s, int rank, const int32_t *shape, SrcLoc loc);
Type const_natural_type(ConstVal c); /* int -> i32/u32/i64/u64, float -> f32, bool -> i1 */
bool const_fits(ConstVal c, DType dt);
/* To an IR value of scalar dtype `dt` (shape kept); consts are materialized. */
ValId to_ir(Sema *s, Value v, DType dt, SrcLoc loc);
ValId to_ir_natural(Sema *s, Value v, SrcLoc loc); /* const -> its natural type */
ValId cast_val(Sema *s, ValId x, Type dst_scalar, bool bitcast, int rounding_flags, SrcLoc loc);
ValId broadcast_to_shape(Sema *s, ValId x, int rank, const int32_t *shape, SrcLoc loc);
ValId splat_to(Sema *s, ValId x, Type like, SrcLoc loc);
/* NumPy broadcasting of two IR values; false after a diagnostic. */
bool broadcast_pair(Sema *s, ValId *a, ValId *b, SrcLoc loc);
/* Triton's integer_promote_impl: the wider type; of two as wide, the unsigned one */
DType integer_promote(DType a, DType b);
/* Triton's computation type for an arithmetic binop; DT_VOID after an error. */
DType computation_dtype(Sema *s, Value a, Value b, bool div_or_mod, SrcLoc loc, const char *opname);
Value binop(Sema *s, AstOp op, Value a, Value b, SrcLoc loc);
Value compare_one(Sema *s, AstOp op, Value a, Value b, SrcLoc loc); /* a op b of Python's comparisons (in, is, ==) */
Value unop(Sema *s, AstOp op, Value a, SrcLoc loc);
ValId to_bool(Sema *s, ValId x, SrcLoc loc); /* x != 0 */
bool value_as_ir(Sema *s, Value v, SrcLoc loc, ValId *out); /* tensor or const (natural type) */
/* Elementwise ops with Triton's type checking (used by builtins). */
Value make_where(Sema *s, Value c, Value a, Value b, SrcLoc loc);
Value make_minmax(Sema *s, bool is_max, Value a, Value b, bool propagate_nan, SrcLoc loc);

/* ---- sema_expr.c ---- */
Value eval(Sema *s, Fn *fn, const Expr *e);
/* Evaluates and requires a constexpr; `what` names it in the message. */
bool eval_const(Sema *s, Fn *fn, const Expr *e, const char *what, ConstVal *out);
bool eval_const_int(Sema *s, Fn *fn, const Expr *e, const char *what, int64_t *out);
Value get_attr(Sema *s, Value obj, const char *name, SrcLoc loc);
bool as_const_int(Sema *s, Value v, SrcLoc loc, const char *what, int64_t *out);
bool as_int_list(Sema *s, Value v, SrcLoc loc, const char *what, int32_t *out, int max, int *n);
bool as_const_flag(Sema *s, Value v, SrcLoc loc, const char *what, bool *out);

/* ---- sema_stmt.c ---- */
typedef enum { FLOW_NEXT, FLOW_RETURN, FLOW_BREAK, FLOW_CONTINUE } Flow;
Flow exec_body(Sema *s, Fn *fn, const StmtList *body, bool tail);
typedef VEC(const char *) NameList;
/* The names running l as host Python binds or rebinds: assignment and loop
 * targets, and NAME of `NAME.append(...)` / `NAME.extend(...)` (which
 * exec_body runs by rebinding NAME to the longer list). */
void host_bound_names(const StmtList *l, NameList *out);
void assign_target(Sema *s, Fn *fn, const Expr *target, Value v, SrcLoc loc);
/* Flattening structured values (tuples, block pointers) into IR leaves. */
typedef VEC(ValId) IdVec;
bool flatten_value(Sema *s, Value v, IdVec *out, bool materialize, SrcLoc loc);
Value unflatten_value(Sema *s, Value tmpl, const ValId *ids, int *pos);
bool same_template(Sema *s, Value a, Value b);

/* ---- sema_expr.c: dicts, lambdas, heuristic arguments ---- */
Value v_dict(Sema *s, const Value *keys, const Value *vals, int n);
/* A dict over keys and vals as they are (arena arrays the caller gives up) */
Value v_dict_adopt(Value *keys, Value *vals, int n);
Value dict_with(Sema *s, Value d, Value k, Value v);
/* The Triton whose language tile implements: triton.__version__, for the version
 * checks projects make with packaging.version. */
#define TILE_TRITON_VERSION "3.6.0"
/* tl.dtype.SIGNEDNESS / KIND members (sema_expr.c): V_DICTs {name, value}
 * whose msg is ENUM_SIGNEDNESS or ENUM_KIND; i is the member's value */
extern const char ENUM_SIGNEDNESS[], ENUM_KIND[];
Value dtype_enum_member(Sema *s, bool kind, int i);
/* A module's Enum classes (sema_enum.c). A member is a V_DICT {name, value}
 * (Enum, Flag; also the dtype ones above) or a V_CONST whose mod is its class
 * and msg its name (IntEnum, IntFlag, StrEnum); ns ENUM_WRAPPED: a constexpr
 * parameter's, whose .value is the member itself. */
enum { ENUM_NONE = 1, ENUM_PLAIN, ENUM_FLAG, ENUM_INT, ENUM_INTFLAG, ENUM_STR, ENUM_MIXIN_INT, ENUM_MIXIN_STR };
enum { ENUM_WRAPPED = 1 };
int enum_class_kind(Sema *s, ModScope *c);
bool enum_lookup(Sema *s, ModScope *c, const char *name, SrcLoc loc, Value *out);
bool v_is_enum_member(Value v);
Value enum_wrap(Value v);
bool enum_member_attr(Sema *s, Value v, const char *name, SrcLoc loc, Value *out);
const char *enum_member_str(Sema *s, Value v, bool repr);
bool enum_members_identical(Value a, Value b);
bool enum_flag_op(Sema *s, AstOp op, Value a, Value b, Value *out);
bool enum_flag_invert(Sema *s, Value a, Value *out);
bool enum_flag_items(Sema *s, Value v, Value *out); /* list(Perm.R | Perm.W); false: no flag member */ /* ~Perm.R; false: a is no flag member */
/* `a in b` with b a Flag / IntFlag member (false if it is none) */
bool enum_flag_contains(Sema *s, Value a, Value b, SrcLoc loc, Value *out);
bool enum_member_truthy(Value v); /* of a V_DICT member */
bool enum_class_items(Sema *s, ModScope *c, Value *out);
Value enum_by_value(Sema *s, ModScope *c, Value v, SrcLoc loc);
Value enum_by_name(Sema *s, ModScope *c, Value key, SrcLoc loc);
/* A member as the dotted name (CV_NAME "Act.RELU") module m resolves to it; false if
 * m binds no class of that name, or another one */
bool enum_member_name(Sema *s, ModScope *m, Value v, ConstVal *out);
bool enum_class_contains(Sema *s, ModScope *c, Value v, bool *out); /* false: c is no enum class */
/* e evaluated as module-level code of m, its diagnostics dropped (*failed: there were some) */
Value module_expr_quiet(Sema *s, ModScope *m, const Expr *e, bool *failed);
/* A packaging.version.Version object (a V_DICT with this msg): versions_compare
 * orders two as packaging does (release, then pre-, post- and dev-release). */
extern const char VERSION_OBJ[];
/* builtins_pytype.c: tl.constexpr_type and tl.slice objects (V_DICT, msg the class) */
extern const char CONSTEXPR_TYPE_OBJ[], SLICE_OBJ[], TUPLE_TYPE_OBJ[];
Value value_type(Sema *s, Value v, SrcLoc loc); /* Triton's v.type: constexpr_type, tuple_type, dtype */
bool v_is_pyobj(Value v, const char *cls);
Value v_constexpr_type(Sema *s, Value v); /* a constexpr's .type */
bool pytype_full_slice(Value v);          /* tl.slice(None, None, None): ':' in a tensor index */
/* a == b, a != b with a constexpr_type: true and *out set; false for other operands */
bool pytype_compare(Sema *s, AstOp op, Value a, Value b, SrcLoc loc, Value *out);
const char *pytype_str(Sema *s, Value v, SrcLoc loc); /* str(); NULL if v is neither (or on an error) */
int versions_compare(Value a, Value b);
/* d[key]; false (no diagnostic) when absent */
bool dict_get(Value d, Value key, Value *out);
int dict_index(Value d, Value key); /* the item key selects, or -1 */
bool dict_key_eq(Value a, Value b); /* equal as keys of a dict or set */
Value v_set(Sema *s, const Value *items, int n, SrcLoc loc); /* a set (repeats dropped) */
Value set_binop(Sema *s, AstOp op, Value a, Value b, SrcLoc loc); /* & | - ^ == != <= < >= > */
bool dict_key_ok(Value v);         /* hashable: a constant, dtype, Enum member or tuple of them */

/* The item arrays (Value.items) a walk over nested values has been through:
 * t = (t, t) repeated n times shares them and has 2^n leaves, so a walk that
 * asks about leaves visits each array once. Zeroed to start; freed after. */
typedef struct {
	const Value **slot;
	size_t n, cap;
} ItemsSeen;
bool items_seen(const ItemsSeen *w, const Value *items);
void items_seen_add(ItemsSeen *w, const Value *items);
void items_seen_free(ItemsSeen *w);
/* The error for a heuristic that needs a runtime argument's value (V_ERR). */
Value rtarg_needed(Sema *s, Value v, SrcLoc loc);
/* builtins_tensorarg.c: the error for a tensor argument's shape or strides (`what`) the host did not give */
Value tensorarg_shape_needed(Sema *s, Value v, const char *what, SrcLoc loc);
/* The items a constexpr iterable yields (tuple/list, dict keys); false after a diagnostic. */
bool const_iter_items(Sema *s, Value v, SrcLoc loc, const Value **items, int *n);
Value call_lambda(Sema *s, Value lam, const Value *args, int nargs, const char **kwn, const Value *kw, int nkw,
		  SrcLoc loc);
Value call_lambda_late(Sema *s, Value lam, const Env *late, const Value *args, int nargs, const char **kwn,
		       const Value *kw, int nkw, SrcLoc loc);

/* ---- sema_agg.c: @aggregate classes ---- */
Value v_agg(Sema *s, ModScope *cls, const Value *items, int n, int ns);
/* cls(args...): runs its __init__ (as Python) or binds the fields in order */
/* typing.NamedTuple classes (sema_agg.c): an instance is a V_TUPLE whose mod
 * is the class, so that it is a tuple everywhere and its fields have names */
const AggInfo *class_namedtuple(Sema *s, ModScope *c);
Value nt_construct(Sema *s, ModScope *cls, const Value *args, int nargs, const char **kwn, const Value *kw, int nkw,
		   SrcLoc loc);
Value nt_attr(Sema *s, Value obj, const char *name, SrcLoc loc);
Value nt_fields(Sema *s, const AggInfo *ai); /* Cls._fields: the names, a tuple of str */
Value agg_construct(Sema *s, ModScope *cls, const Value *args, int nargs, const char **kwn, const Value *kw, int nkw,
		    SrcLoc loc);
Value agg_attr(Sema *s, Value obj, const char *name, SrcLoc loc);
/* `target.name = v` in a function whose local `target` holds an aggregate */
void agg_assign_field(Sema *s, Fn *fn, const Expr *t, Value v, SrcLoc loc);
const char *agg_describe(Sema *s, Value v);
const char *agg_ann_name(const Expr *ann); /* `tl.constexpr` -> "constexpr" */
/* whether item i of v (a V_AGG) is a constexpr field, which stays a constexpr when carried */
bool agg_item_const(Value v, int i);

/* ---- sema_cleanup.c ---- */
void sema_cleanup(TirFunc *f);

/* ---- sema_call.c ---- */
/* arglocs/argexprs: positional then keyword arguments (either may be NULL). */
Value call_value(Sema *s, Fn *fn, Value callee, const Value *args, int nargs, const char **kwnames,
		 const Value *kwargs, int nkw, SrcLoc loc, const SrcLoc *arglocs, const Expr *const *argexprs);
Value call_user(Sema *s, Value callee, const Value *args, int nargs, const char **kwnames, const Value *kwargs,
		int nkw, SrcLoc loc);
/* An aggregate's __init__ on `self` (under construction): the `self` it leaves */
Value call_init(Sema *s, Value init, Value self, const Value *args, int nargs, const char **kwn, const Value *kw,
		int nkw, SrcLoc loc);
void fn_init(Sema *s, Fn *fn, const FuncDef *def, ModScope *mod, bool is_kernel);
void fn_free(Fn *fn);

/* ---- builtins ---- */
enum { BMAX_ARGS = 16 };
typedef struct Call {
	const char *name; /* "tl.sum" for messages */
	SrcLoc loc;
	Value a[BMAX_ARGS];
	bool has[BMAX_ARGS];
	SrcLoc at[BMAX_ARGS];
	const char *pn[BMAX_ARGS];   /* parameter names */
	const Expr *ex[BMAX_ARGS];   /* argument expressions (NULL when unknown) */
	Value *rest; /* varargs (*args) */
	int nrest;
	SrcLoc *rest_at;
	const char **kwn; /* **kwargs: the keywords no parameter takes */
	Value *kwv;
	int nkw;
	Fn *fn;
} Call;
typedef Value (*BuiltinFn)(Sema *s, Call *c, int extra);
typedef struct Builtin {
	const char *name;   /* "sum" */
	const char *params; /* "input,axis=None,keep_dims=False,dtype=None"; "*args" varargs */
	BuiltinFn fn;
	int extra;          /* passed to fn (a MathFn, an AtomicOp, ...) */
	unsigned flags;
} Builtin;
enum {
	BF_TL = 1,       /* tl.NAME */
	BF_METHOD = 2,   /* tensor.NAME(...) */
	BF_MATH = 4,     /* tl.math.NAME / libdevice.NAME */
	BF_PY = 8,       /* Python builtin (min, max, range, ...) */
	BF_TRITON = 16,  /* triton.NAME (cdiv, next_power_of_2, jit) */
	BF_DTYPE = 32,   /* dtype.NAME() */
	BF_PRELUDE = 64, /* implemented in the prelude (fn == NULL) */
	BF_DESC = 128,   /* tensor_descriptor.NAME(...) */
	BF_TORCH = 256,  /* torch.NAME (finfo, iinfo) */
	BF_PYMATH = 512, /* Python's math.NAME (sqrt, log2, ...) on constexprs */
	BF_IMPORTLIB = 1024, /* importlib.util.NAME (find_spec) */
	BF_ITERTOOLS = 2048, /* itertools.NAME (product, chain) */
	BF_PACKAGING = 4096, /* packaging.version.NAME (parse, Version) */
	BF_PYNUM = 8192, /* a constexpr number's Python methods (N.bit_length()) */
	BF_TENSORARG = 16384, /* a heuristic's tensor argument's methods (args['x'].element_size()) */
	BF_TORCH_CUDA = 32768, /* torch.cuda.NAME (is_available) */
	BF_PYSTR = 65536, /* a constexpr string's Python methods (S.upper(), builtins_str.c) */
	BF_PYDICT = 131072, /* a constexpr dict's Python methods (d.get(k), builtins_dict.c) */
	BF_FUNCTOOLS = 262144, /* functools.NAME (reduce) */
	BF_OPERATOR = 524288, /* operator.NAME (add, mul, itemgetter, ...) */
	BF_PYSET = 1048576, /* a compile-time set's Python methods (s.union(t), builtins_set.c) */
	BF_CONSTEXPR = 2097152, /* tl.constexpr's own methods (N.logical_and(x), builtins_pytype.c) */
};
extern const Builtin *const builtin_tables[];
const Builtin *builtin_get(int id);
int builtin_find(const char *name, unsigned flag); /* -1 if none */
const char *builtin_display(Sema *s, int id); /* "tl.sum" */
Value v_builtin(int id, Value *self);

/* builtin family tables (each NULL-terminated) */
extern const Builtin builtins_core[], builtins_compile[], builtins_print[], builtins_dtype[], builtins_python[],
    builtins_math[], builtins_mem[], builtins_reduce[], builtins_dot[],
    builtins_prelude[], builtins_blockptr[], builtins_shape[], builtins_asm[], builtins_map[],
    builtins_tensorarg[], builtins_str[], builtins_pyround[],
    builtins_format[], builtins_dict[], builtins_pyhost[], builtins_set[], builtins_pytype[];
/* builtins_str.c: Python's str (code points, as Python counts them) */
int64_t str_length(const char *str);
Value str_index(Sema *s, const char *str, int64_t i, SrcLoc loc);
Value str_slice(Sema *s, const char *str, const int64_t *lo, const int64_t *hi, const int64_t *step, SrcLoc loc);
Value str_contains(Sema *s, Value needle, const char *hay, SrcLoc loc); /* needle in hay */
Value str_chars(Sema *s, const char *str, SrcLoc loc); /* a tuple of its characters (V_ERR past the list limit) */
Value py_repr_str(Sema *s, const char *str);
/* Python's slice.indices for a sequence of len items (a part absent: NULL):
 * the first index, the step and the count; false for a zero step */
bool slice_indices(int64_t len, const int64_t *start, const int64_t *stop, const int64_t *step, int64_t *first,
		   int64_t *by, int64_t *count);
/* builtins_shape.c: the view ops join/split are built from (also used by builtins_asm.c) */
ValId shape_reshape(Sema *s, ValId x, int rank, const int32_t *shape, SrcLoc loc); /* row-major */
ValId shape_join_axis(Sema *s, ValId a, ValId b, int axis, SrcLoc loc); /* new axis of size 2: a, b */
ValId shape_pick_axis(Sema *s, ValId x, int axis, int which, SrcLoc loc); /* element 0/1 of a size-2 axis */
ModScope *prelude_scope(Sema *s);
/* The prelude's function behind builtin `id` (a BF_PRELUDE builtin), as a V_FUNC. */
Value prelude_function(Sema *s, int id, SrcLoc loc);
const SrcFile *prelude_file_of(const Sema *s);
/* blockptr.c: tl.load / tl.store on a block pointer (slots as in tl.load / tl.store) */
Value bp_load(Sema *s, Call *c);
Value bp_store(Sema *s, Call *c);
/* blockptr.c: a host tensor descriptor parameter from its runtime parts (the
 * last stride is 1) */
Value desc_param(Sema *s, Value base, const Value *shape, const Value *strides, const int32_t *block, int rank,
		 SrcLoc loc);
/* blockptr.c: attributes and methods of a tensor descriptor */
Value desc_attr(Sema *s, Value desc, const char *name, SrcLoc loc);
/* builtins_math.c: an integral-valued float to an integer dtype as the GPU
 * converts (saturating, NaN to 0) */
ValId sat_float_to_int(Sema *s, ValId x, DType to, SrcLoc loc);
/* builtins_mem.c: cache modifier / eviction policy strings to TIR_CACHE_* | TIR_EVICT_* << 8 */
bool mem_hints(Sema *s, Call *c, int cache_slot, int evict_slot, bool is_store, int64_t *out);

/* helpers for builtin implementations */
bool arg_tensor(Sema *s, Call *c, int i, ValId *out); /* requires an IR value (consts materialized) */
bool arg_const_int(Sema *s, Call *c, int i, int64_t *out);
bool arg_dtype(Sema *s, Call *c, int i, Type *out);
bool arg_shape(Sema *s, Call *c, int i, int32_t *shape, int *rank);
bool arg_bool(Sema *s, Call *c, int i, bool *out);
const char *arg_str(Sema *s, Call *c, int i);
int norm_axis(Sema *s, int64_t axis, int rank, SrcLoc loc);

#endif

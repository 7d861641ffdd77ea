/* sema_kernel.h: what sema_deco.c, sema_flat.c and sema.c share about kernels
 * and their decorators (private to src/sema/). */
#ifndef SEMA_KERNEL_H
#define SEMA_KERNEL_H

#include "sema/sema_int.h"

/* ---- sema_deco.c: @jit, @triton.autotune, @triton.heuristics ---- */

typedef struct Heur {
	const char *name; /* the parameter it sets */
	Value fn;         /* lambda (or function) of `args` */
	SrcLoc loc;
} Heur;

typedef VEC(Heur) HeurVec;

typedef struct KDeco {
	KernelConfig *configs;
	int nconfigs;
	Heur *heurs; /* in evaluation order: outermost decorator first, then dict order */
	int nheurs;
	/* a decorator argument built by host Python tile cannot evaluate
	 * (configs=get_configs(), a dict from a YAML file): why, for the error
	 * a missing parameter then gets; the host binds what it would set */
	const char *unevaluated;
	/* prune_configs_by={'early_config_prune': fn}: fn, which
	 * sema_heuristic_values runs on the actual arguments (kind 0 when none),
	 * and the configs as the decorator built them, fn's first argument */
	Value prune, cfgs;
	SrcLoc prune_loc;
	/* prune_configs_by's perf_model (kind 0 when none) and top_k (kind 0: Triton's 1.0) */
	Value perf, topk;
	/* a prune_configs_by tile cannot evaluate: why, for a warning where it would run */
	const char *prune_why;
	/* a name in @triton.autotune's key= that is no parameter (Triton ignores
	 * it; a warning where the kernel is compiled), else NULL */
	const char *bad_key;
	SrcLoc bad_key_loc;
	bool debug; /* @triton.jit(debug=True) */
} KDeco;

/* The last name of e (`c` of `a.b.c`, of a call's callee), or NULL. */
const char *expr_last_name(const Expr *e);
/* `a.b.c` as text when e is a name or a chain of attributes on one, else NULL. */
const char *dotted_name_text(Arena *a, const Expr *e);
bool is_kernel_decorator_name(const char *n); /* jit, autotune, heuristics */
/* The builtin e names (tl.constexpr, an alias of triton.jit), evaluated
 * quietly in module ms; NULL when it names none or fails. */
const char *quiet_builtin_name(Sema *s, ModScope *ms, const Expr *e);
/* e evaluated in module ms with diagnostics held back; *failed: it reported one. */
Value quiet_module_eval(Sema *s, ModScope *ms, const Expr *e, bool *failed);
/* a decorator name bound to a decorator call at module level: that call, else d */
const Expr *deco_alias(const Module *m, const Expr *d);
bool is_launch_option(const char *name); /* num_warps, num_stages, ... */
int param_index(const FuncDef *def, const char *name); /* -1 when absent */
/* Reads the decorators of a kernel (outermost first); false on an error. */
bool kernel_decorators(Sema *s, ModScope *ms, const FuncDef *def, KDeco *out);
const Heur *find_heur(const KDeco *kd, const char *name);
const KernelConfigArg *find_config_arg(const KDeco *kd, const char *name); /* the first config's */

/* ---- sema_flat.c: where a module's kernels are ---- */

/* The module's statements where kernels may be defined, in source order:
 * the top level, the branches of module-level if/try spliced in
 * (bitsandbytes defines its kernels under `if not is_triton_available():
 * <host stubs> else: <kernels>`), and the kernels defined in host functions
 * (torchao builds its kernels in a function that imports triton lazily).
 * A branch whose condition is a constexpr that rules it out is left out.
 * grp: 0 at the top level, else the outermost if/try the statement is in;
 * br: the branch it is in; scope: where its names resolve (a host
 * function's locals, then the module, for a kernel defined in one). */
typedef struct NameAt {
	const char *name;
	int idx;
} NameAt;

typedef struct Flat {
	Module mod;
	int *grp, *br;
	ModScope **scope;
	int ngrp, nbr;
	NameAt *binds; /* the statements that bind a name, by name then index */
	int nbinds;
} Flat;

void flatten_module(Sema *s, ModScope *ms, const Module *m, Flat *f);
/* The kernel `name` as the module's last binding of it defines it, and the
 * scope its names resolve in; NULL when it is not one. */
const FuncDef *find_kernel(Sema *s, const Flat *f, const char *name, ModScope **scope);
/* whether a parameter annotation names tl.constexpr (through an alias too) */
bool param_is_constexpr(Sema *s, ModScope *ms, const Expr *ann);
bool param_is_const_pointer(const Expr *ann);

/* ---- sema.c ---- */

void sema_setup(Sema *s, SemaCtx *c);
void sema_teardown(Sema *s);

#endif

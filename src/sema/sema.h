/* sema.h: from the AST of a module to the Tile IR of one specialized kernel.
 *
 * Name resolution (tl.*, triton.language.*, imports, module globals),
 * constexpr evaluation, specialization, inlining of @jit helpers, type and
 * shape inference with Triton's promotion/broadcast rules, and the builtins.
 * Every user mistake is a diagnostic with a location; sema never crashes.
 */
#ifndef TILE_SEMA_H
#define TILE_SEMA_H

#include "ir/tir.h"
#include "parser/ast.h"

/* A compile-time value: what a constexpr parameter is bound to. */
/* CV_NAME: a name of the kernel's module, dotted for attributes (`Dtype.FP32`, an
 * Enum member): the host's way to bind a constexpr to a Python object of the
 * module, which sema looks up when it binds the parameter; s is the text. */
typedef enum { CV_INT, CV_FLOAT, CV_BOOL, CV_STR, CV_NONE, CV_DTYPE, CV_NAME } ConstKind;
typedef struct ConstVal {
	ConstKind kind;
	int64_t i;     /* CV_INT, CV_BOOL */
	bool u64;      /* CV_INT: i is a uint64 in [2**63, 2**64) (a Python int Triton types uint64) */
	double f;      /* CV_FLOAT */
	const char *s; /* CV_STR, CV_NAME */
	DType dtype;   /* CV_DTYPE */
} ConstVal;

/* How one kernel parameter is bound for a specialization. A runtime parameter
 * may also be bound to a constant: Triton specializes `None` pointers and
 * integers equal to 1 that way (SPEC_EQ1 keeps the param but folds the value). */
typedef struct SpecArg {
	bool is_const;  /* true: folded as the constant cval (constexpr, or None) */
	ConstVal cval;
	bool empty_tuple; /* is_const: the empty tuple `()` (Triton's `fn_args=()`), not cval */
	Type ty;        /* runtime: scalar or pointer type */
	int spec;       /* SPEC_* flags for runtime args */
	/* > 0: a host tensor descriptor (`tensordesc<fp16[64,64]>`) of this rank; ty is the
	 * pointer to its elements. It is passed as 2 * desc_rank runtime arguments: the
	 * base pointer, the shape (i32 each) and the strides but the last (i64 each; the
	 * last is 1) */
	int desc_rank;
	int32_t desc_block[TIR_MAX_RANK];
	/* the descriptor's last dimension is a multiple of 16 elements
	 * (`tensordesc<fp16[64,64]>:16`): its bound check is then the same for 16
	 * elements in a row, so the accesses along it vectorize */
	bool desc_last16;
	/* > 0: a tuple parameter (Triton's launcher takes `x.stride()` as one argument) of
	 * this many elements, each a SpecArg of its own: a runtime scalar or pointer, or a
	 * constant. Its runtime elements are passed as consecutive runtime arguments. */
	int tuple_len;
	const struct SpecArg *tuple;
	/* is_const: bound to the parameter's default as if left out (a default no
	 * ConstVal holds, like a @jit function, is evaluated by sema) */
	bool use_default;
	/* a runtime scalar whose actual value the caller knows (tile_kernel_get_typed):
	 * @triton.heuristics see it, as they see the launcher's arguments in Triton */
	bool has_value;
	ConstVal value;
	/* a pointer whose tensor the caller gave (a DLTensor, an .npy array): its shape
	 * and strides (elements), which heuristics and early_config_prune read as
	 * args['x'].shape / .stride(0) / .numel(), as Triton's launcher passes them
	 * the tensor */
	bool has_shape;
	int ndim;
	const int64_t *shape, *strides;
} SpecArg;

/* What the host needs to know about a kernel before specializing it. */
typedef struct KernelParamInfo {
	const char *name;
	bool is_constexpr;      /* annotated tl.constexpr */
	bool has_default;
	ConstVal default_val;   /* when has_default and the default is a constant */
	bool default_object;    /* has_default, but the default is a compile-time object no ConstVal holds (a
	                           @jit function, a lambda, a tuple): default_val is CV_NAME when the default is
	                           a (dotted) name of the module, else CV_NONE; sema evaluates the default */
	bool do_not_specialize; /* listed in @jit(do_not_specialize=...) */
	bool no_align_spec;     /* listed in @jit(do_not_specialize_on_alignment=...): == 1 is still
	                           folded, but no :16 (divisibility, pointer alignment) */
	bool autotuned;         /* a key of the @triton.autotune configs (has_default: the first config's value) */
	bool heuristic;         /* set by @triton.heuristics: has_default with default_val None, which means
	                           "compute it"; binding any other constant overrides the heuristic */
	uint8_t ann_dt;         /* DType of a runtime parameter's dtype annotation (`s: tl.int64`), DT_VOID
	                           if none: Triton's launcher types such an argument by it, not by its value */
	SrcLoc loc;
} KernelParamInfo;

/* One triton.Config of @triton.autotune: constexpr bindings plus launch options. */
typedef struct KernelConfigArg {
	const char *name; /* a kernel parameter */
	ConstVal val;
} KernelConfigArg;
typedef struct KernelConfig {
	KernelConfigArg *kwargs;
	int nkwargs;
	int num_warps;  /* 0 when the Config does not say */
	int num_stages; /* 0 when the Config does not say */
	bool no_fp_fusion; /* its kwargs say enable_fp_fusion=False (a launch option in Triton) */
	SrcLoc loc;
} KernelConfig;

typedef struct KernelInfo {
	const char *name;
	KernelParamInfo *params;
	int nparams;
	SrcLoc loc;
	/* @triton.autotune configs in source order. tile does not benchmark: a
	 * constexpr that the caller leaves unbound takes the FIRST config's value,
	 * and a caller that binds none of its kwargs gets its num_warps /
	 * num_stages too (api_make_request); a host that wants another config
	 * binds its kwargs (and passes its num_warps / num_stages as options). */
	int nconfigs;
	KernelConfig *configs;
	/* why a decorator argument could not be evaluated (host Python), or NULL:
	 * the parameters it would set must then be bound by the caller */
	const char *deco_note;
	/* an error in the kernel's decorators, rendered ("file:line:col: error:
	 * message\n", source line, caret), reported when this kernel is
	 * specialized (not when another one is), or NULL */
	const char *deco_error;
	/* the names the kernel's module (and any class or host function around the
	 * kernel) binds: a bare name given for a constexpr must be one of them */
	const char *const *scope_names;
	int nscope_names;
	/* a @triton.heuristics sets num_warps or num_stages: the host runs it on
	 * the actual arguments (sema_heuristic_values), as Triton's launcher does */
	bool launch_heuristic;
	bool prunes; /* @triton.autotune(prune_configs_by={'early_config_prune': fn}) */
} KernelInfo;

/* The launch options @triton.heuristics computed; 0 where none did. */
typedef struct HeurLaunch {
	/* in: from a signature (no actual arguments): run only early_config_prune /
	 * perf_model, quietly; one that reads what the signature does not say (a
	 * runtime argument's value) keeps the first config, binding nothing */
	bool prune_only;
	int num_warps, num_stages;
	/* the Config early_config_prune kept (0: none, or it does not say) */
	int cfg_num_warps, cfg_num_stages;
	bool cfg_no_fp_fusion; /* its kwargs say enable_fp_fusion=False */
} HeurLaunch;

/* Finds `import NAME` modules: the driver looks for NAME.tile / NAME.py beside
 * the importing file, parses it and returns it (NULL after a diagnostic). */
typedef Module *(*ModuleLoader)(void *user, const Module *importer, const char *name, SrcLoc loc);

/* The absolute dotted name of the package `level` dots above `importer`, when
 * the driver can tell it (a module of triton's own package, triton/ops/x.py,
 * is in "triton.ops"), as a heap string the caller frees; NULL otherwise. */
typedef char *(*PackageNamer)(void *user, const Module *importer, int level);

typedef struct SemaCtx {
	Arena *arena;
	Interner *names;
	DiagSink *diags;
	const TargetDesc *target;
	const CompileOptions *opts;
	ModuleLoader load_module;
	void *loader_user;
	PackageNamer package_name; /* may be NULL (also gets loader_user) */
} SemaCtx;

/* The @jit functions of a module (kernels and helpers), in source order. */
int sema_list_kernels(SemaCtx *c, const Module *m, KernelInfo **out);

/* Runs the @triton.heuristics of `kernel` that args leave unbound (seeing the
 * runtime values args carry) and stores each result in out[i] (set[i] true),
 * i indexing the kernel's parameters (nparams entries), and the num_warps /
 * num_stages they set in *launch. False on an error. */
bool sema_heuristic_values(SemaCtx *c, const Module *m, const char *kernel, const SpecArg *args, int nargs,
			   ConstVal *out, bool *set, int nparams, HeurLaunch *launch);

/* Specializes and lowers `kernel` to the Tile IR. args[i] binds the kernel's
 * i-th parameter; nargs may be smaller than the parameter count when the rest
 * have defaults. Returns NULL if a diagnostic was reported. */
TirFunc *sema_kernel(SemaCtx *c, const Module *m, const char *kernel, const SpecArg *args,
		     int nargs);

#endif

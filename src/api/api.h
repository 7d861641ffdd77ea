/* api.h: the internals behind include/tile.h, shared by the src/api files and the
 * `tile` command (which links libtile statically and may look inside).
 *
 *   context.c  contexts, targets, errors, the diagnostics bridge
 *   module.c   modules, kernel lookup, specialization table, tile_kernel_get*
 *   heur_memo.c what heuristics / early_config_prune computed, per input
 *   launch.c   argument checking and tile_launch (the hot path)
 *   thunk.c    libffi closures with the kernel's C signature
 *   buffer.c   tile_buffer, tile_synchronize
 *   backend.c  the only file that talks to the JIT engines (ORC, CUDA driver)
 *   misc.c     versions, status strings, dtypes, tile_arg constructors
 */
#ifndef TILE_API_INTERNAL_H
#define TILE_API_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>

#include "driver/driver.h"
#include "jit/cache.h"
#include "jit/cpu_launch.h"
#include "tile.h"

/* Runtime parameters a kernel may have (thunks, launch). TorchInductor's
 * fused kernels take dozens of pointers and its foreach kernels up to 250; a
 * CUDA launch passes at most 4 KB of parameters before CUDA 12.1 (32 KB since),
 * which 512 pointers fill. */
enum { API_MAX_PARAMS = TIR_MAX_RUNTIME_PARAMS };

typedef struct Backend Backend; /* backend.c */

struct tile_context {
	/* 1 while the host holds it (until tile_context_destroy), plus one per live
	 * module, kernel and buffer: the context is freed with the last of them, so
	 * objects may be destroyed in any order (sqlite3_close_v2's "zombie"). */
	_Atomic int refs;
	/* 1 while a compiling call (module load, kernel get) runs: they share
	 * diags, the cache and the modules' tables, so another one meanwhile (on
	 * another thread, or from a callback of the first) is refused (api_enter) */
	_Atomic int busy;
	TargetDesc target; /* the default target, resolved ("auto" -> cpu or sm_XX) */
	int num_warps, num_stages;
	bool no_mma_prefetch; /* TILE_MMA_PREFETCH=0 when the context was made */
	bool no_value_load_pipelining; /* TILE_PIPELINE_VALUE_LOADS=0, likewise */
	bool no_hold_smem;             /* TILE_HOLD_SMEM=0, likewise */
	bool no_hoist;                 /* TILE_HOIST=0, likewise */
	bool add_coords;               /* TILE_COORD_ADD=1 when the context was made */
	bool wide_addr;                /* TILE_WIDE_ADDR=1, likewise */
	bool scratch_apart;            /* TILE_SCRATCH_APART=1, likewise */
	bool no_line_info;    /* TILE_DISABLE_LINE_INFO=1 when the context was made */
	bool racecheck;       /* TILE_RACECHECK=1 when the context was made */
	bool debug;           /* TRITON_DEBUG=1 (or TILE_DEBUG=1): every kernel's debug */
	int variant_threads;  /* TILE_COMPILE_THREADS (CompileOptions.variant_threads) */
	bool cache_enabled;
	Cache cache;
	DiagSink diags; /* reused by every compile; cleared first */
	tile_diag_fn on_diag;
	void *diag_user;
	tile_print_fn on_print;
	void *print_user;
	pthread_mutex_t err_mu; /* launches may fail concurrently */
	char *errmsg;           /* heap; NULL = "" */
	int err_offset;
	CpuPool *pool;
	Backend *be;
	char *module_path; /* ':'-separated import directories after the importer's ancestors, or NULL */
};

/* One declared parameter of a specialized kernel. */
typedef struct ApiParam {
	char *name;
	bool runtime;  /* has a slot in the launch ABI */
	int slot;      /* index among runtime args when runtime (the first, for a descriptor) */
	int desc_rank; /* > 0: a host tensor descriptor, 2 * desc_rank slots (base, shapes, strides) */
	int32_t desc_block[TIR_MAX_RANK]; /* its block shape */
	bool tuple;    /* a tuple parameter: one slot per runtime element */
	int tuple_len; /* its elements, */
	/* and its shape in preorder: n >= 0 a tuple of n items (the first node: the
	 * parameter's own), -1 a runtime element (one slot), -2 a constant (none),
	 * -3 the empty tuple `()` (none) */
	int *tnodes;
	ConstVal *tconsts; /* per node: a -2 node's value, which a launch checks (.s heap) */
	int ntnodes;
	int nslots;    /* slots it takes when runtime */
	ConstVal cval; /* when !runtime: the value it was specialized to (cval.s heap) */
	bool heuristic; /* set by @triton.heuristics: None at launch means "what it computed" */
	bool empty_tuple; /* when !runtime: specialized to `()` (cval unused) */
} ApiParam;

/* What a launch needs, laid out for the hot path. */
typedef struct ApiSlot {
	uint8_t dt, elem, spec;
	int param; /* index into params */
} ApiSlot;

typedef struct ApiThunk ApiThunk; /* thunk.c */

struct tile_kernel {
	tile_context *ctx;
	int refs;
	CompiledKernel ck;
	char name[128]; /* as the user names it (Class.name), for messages; ck.name is its symbol */
	char *key;   /* the specialization key in the module's table */
	int nparams; /* declared */
	ApiParam *params;
	bool has_desc; /* a runtime host descriptor parameter: the launch checks its strides */
	int nslots; /* runtime args */
	ApiSlot *slots;
	/* loaded code */
	bool is_cuda;
	void (*cpu_fn)(void **, const int32_t *, const int32_t *, void *, void *);
	void *cuda_fn;  /* CUfunction */
	void *cuda_mod; /* module handle for unloading */
	void *rt;       /* runtime hooks passed to CPU kernels */
	int registers;  /* per thread on a GPU, -1 when unknown */
	_Atomic(ApiThunk *) thunk; /* made by the first tile_kernel_thunk, of any thread */
};

typedef struct SpecEntry {
	char *key;
	tile_kernel *k;
} SpecEntry;

/* One remembered run of a kernel's heuristics / pruner (heur_memo.c). */
typedef struct HeurMemo {
	char *key;
	uint64_t hash;
	bool ok;
	ConstVal *vals; /* nparams each, as source_heuristic_values gave them */
	bool *set;
	HeurLaunch launch;
} HeurMemo;

struct tile_module {
	tile_context *ctx;
	SourceModule *src;
	KernelInfo *kernels;
	int nkernels;
	tile_param_info **pinfo; /* per kernel, lazily built */
	VEC(SpecEntry) specs;
	VEC(HeurMemo) memo;
	size_t memo_next;    /* the entry a full memo replaces next */
	uint64_t heur_passes; /* sema passes heur_memo.c ran (tests count them) */
	/* MOD_BUSY while a kernel get compiles from it, MOD_DOOMED once destroyed:
	 * a destroy from a callback of that get (on_diagnostic) frees it when the
	 * get returns, not under it */
	_Atomic int state;
};

enum { MOD_BUSY = 1, MOD_DOOMED = 2 };

struct tile_buffer {
	tile_context *ctx;
	void *ptr; /* host pointer (CPU) or device pointer (CUDA) */
	size_t size;
	bool device;
};

/* ---- context.c ---- */
/* A reference for a module, kernel or buffer made from ctx; released with it. */
void api_ctx_retain(tile_context *ctx);
void api_ctx_release(tile_context *ctx);
/* Enters a compiling call on ctx (call: its name, for the message); false with
 * the error set when another one is running. api_leave ends it. */
bool api_enter(tile_context *ctx, const char *call);
void api_leave(tile_context *ctx);
tile_status api_fail(tile_context *ctx, tile_status st, const char *fmt, ...) PRINTF_LIKE(3, 4);
/* Records the rendered diagnostics of ctx->diags as the error. */
tile_status api_fail_diags(tile_context *ctx, tile_status st);
void api_clear_error(tile_context *ctx);
/* Resolves a target name ("auto", "cpu", "cuda", "cuda-emu", "sm_80"...). */
tile_status api_resolve_target(tile_context *ctx, const char *name, TargetDesc *t);

/* ---- module.c ---- */
/* A kernel get's entry and exit: the context's compile lock, and the module
 * kept while it runs (a destroy meanwhile frees it at the exit). */
bool api_module_enter(tile_module *m, const char *call);
tile_status api_module_leave(tile_module *m, tile_status st);
/* The error for a kernel name m does not have (a plain def of that name is
 * said to be no kernel). */
tile_status api_kernel_not_found(tile_module *m, const char *name);
const KernelInfo *api_find_kernel(const tile_module *m, const char *name);
/* Compiles or looks up a specialization given as SpecArgs (nargs may be less
 * than the kernel's parameters; sema fills defaults); launch (may be NULL):
 * the num_warps / num_stages heuristics computed from the runtime values. */
tile_status api_get_spec(tile_module *m, const KernelInfo *ki, const SpecArg *args, int nargs,
                         const tile_kernel_options *opt, const HeurLaunch *launch, tile_kernel **out);
/* Applies to req the launch options a pruned config or a heuristic gave (launch may be NULL). */
void api_apply_launch(CompileRequest *req, const tile_kernel_options *opt, const HeurLaunch *launch);
/* From a signature: runs early_config_prune / perf_model where what they read is
 * known, binding the config they keep in *specp (extended, in a); *launch gets its options. */
tile_status api_signature_prune(tile_module *m, const KernelInfo *ki, SpecArg **specp, int *nargs, Arena *a,
                                HeurLaunch *launch);
/* A full compile request for the CLI's dumps: fills req from options. */
tile_status api_make_request(tile_module *m, const char *kernel, const SpecArg *args, int nargs,
                             const tile_kernel_options *opt, CompileRequest *req);
/* Converts one typed argument to a SpecArg the way Triton's launcher does. */
tile_status api_spec_from_arg(tile_context *ctx, const KernelParamInfo *p, const tile_arg *a,
                              Arena *arena, SpecArg *out);

/* The specialization key's text for one argument / constant. */
void api_key_spec(StrBuf *b, const SpecArg *a);
void api_key_const(StrBuf *b, const ConstVal *v);

/* ---- heur_memo.c ---- */
/* source_heuristic_values for kernel ki of m (out / set: ki->nparams each),
 * run once per distinct input: args (their values and shapes included) and
 * launch->prune_only. Errors are in m->ctx->diags, not remembered. */
bool api_heuristic_values(tile_module *m, const KernelInfo *ki, const SpecArg *args, int nargs,
                          ConstVal *out, bool *set, HeurLaunch *launch);
void api_heur_memo_free(tile_module *m);

/* ---- launch.c ---- */
tile_status api_launch_argv(tile_kernel *k, const uint32_t grid[3], void **argv, void *stream);
void api_kernel_free(tile_kernel *k);

/* ---- thunk.c ---- */
void api_thunk_free(ApiThunk *t);

/* ---- misc.c ---- */
bool api_dtype_to_dt(tile_dtype d, DType *out);
tile_dtype api_dt_to_dtype(DType d);
tile_dtype api_dtype_from_dlpack(DLDataType t);
/* NULL if t is a consistent DLTensor (shape, dtype, data, and device: for a
 * kernel on the GPU if cuda > 0, on the host if 0, unchecked if < 0); else
 * what is wrong, one phrase. */
/* The most dimensions a DLTensor may have (NumPy's NPY_MAXDIMS) */
#define API_MAX_DLTENSOR_NDIM 64
const char *api_dltensor_problem(const DLTensor *t, int cuda);
/* NULL when a descriptor's element type (d->dtype, when given) is as wide as
 * its tensor's elements; else why not, written into buf. */
const char *api_desc_elem_problem(const tile_tensordesc *d, char *buf, size_t n);
/* data + byte_offset, computed on addresses: data may be NULL for an empty tensor. */
void *api_dltensor_data(const DLTensor *t);

/* ---- backend.c ---- */
Backend *
backend_create(tile_context *ctx); /* never fails: missing engines are reported when used */
void backend_destroy(Backend *b);
/* True when a CUDA driver with a device is present; target = "sm_90a"... */
bool backend_cuda_present(Backend *b, char *target, size_t n);
const char *backend_cuda_reason(const Backend *b); /* why it is not present */
tile_status backend_load(tile_context *ctx, tile_kernel *k);
/* The error of a CPU launch whose instances failed a device_assert, or
 * reported faults the CPU emulation of a GPU detected (shared-memory races,
 * misaligned accesses; jit/orc.h TileRuntimeHooks.fault). */
tile_status backend_assert_report(tile_kernel *k, const CpuLaunchNotes *notes);
tile_status backend_fault_report(tile_kernel *k, const CpuLaunchNotes *notes);
void backend_unload(tile_kernel *k);
tile_status backend_cuda_launch(tile_kernel *k, const uint32_t grid[3], void **argv, void *stream);
tile_status backend_cuda_alloc(tile_context *ctx, size_t bytes, void **ptr);
void backend_cuda_free(tile_context *ctx, void *ptr);
tile_status backend_cuda_copy(tile_context *ctx, void *dst, const void *src, size_t n,
                              bool to_device);
tile_status backend_cuda_sync(tile_context *ctx);

#endif

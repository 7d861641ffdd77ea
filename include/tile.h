/* tile.h: the public C API of tile, a JIT compiler for Triton's kernel language.
 *
 * One header, opaque handles, a status from every call (Lua, SQLite, zstd):
 *
 *     tile_context *ctx;
 *     tile_module *mod;
 *     tile_kernel *k;
 *     if (tile_context_create(&ctx, NULL) != TILE_OK) ...;
 *     if (tile_module_load_file(ctx, "vector_add.tile", &mod) != TILE_OK)
 *         fprintf(stderr, "%s", tile_errmsg(ctx));        // rendered diagnostics
 *     tile_kernel_get(mod, "add_kernel", "*fp32:16,*fp32:16,*fp32:16,i32,1024", NULL, &k);
 *     tile_arg args[] = { tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(y, TILE_FP32),
 *                         tile_arg_ptr(out, TILE_FP32), tile_arg_i32(n) };
 *     uint32_t grid[3] = { (n + 1023) / 1024, 1, 1 };
 *     tile_launch(k, grid, args, 4, NULL);
 *     tile_kernel_destroy(k); tile_module_destroy(mod); tile_context_destroy(ctx);
 *
 * Errors. Every call returns a tile_status. When it is not TILE_OK the context
 * keeps a message (tile_errmsg) and, for errors in kernel source, the byte
 * offset into the source (tile_error_offset). Compile errors are rendered as
 *     file:line:col: error: message
 *        12 |     y = x + tl.trans(x)
 *           |           ^
 * The library never prints, never exits and never aborts. Diagnostics are also
 * passed, one by one, to the diagnostics callback when one is set.
 *
 * Thread safety. A context, and the modules and buffers created from it, may be
 * used by one thread at a time. Distinct contexts are independent and may be
 * used concurrently. A tile_kernel may be launched (tile_launch, its thunk)
 * from several threads at once while nothing else uses its context; on the CPU
 * concurrent launches share the context's worker threads (a launch that finds
 * them busy runs its grid on the calling thread). A kernel stays valid after
 * its module is destroyed, until tile_kernel_destroy. A compiling call
 * (tile_module_load_*, tile_kernel_get*) made while another one runs on the
 * same context, from another thread or from a callback of that call, fails
 * with TILE_ERROR_INVALID_ARGUMENT instead of sharing its state; a module
 * destroyed in such a callback is freed when the call compiling from it
 * returns. Other overlapping use is not detected.
 *
 * Lifetimes. Objects may be destroyed in any order: a context destroyed while
 * modules, kernels or buffers made from it live is only marked, and freed with
 * the last of them (which keep working until then). Using an object after
 * destroying it is undefined (a kernel the module's table still holds may
 * even seem to work); tile cannot detect it.
 *
 * Targets. "cpu" (the host, through LLVM), "cuda-emu" (the CPU running the
 * 32-lane thread program a GPU would run), "cuda" (the current device's
 * architecture), "sm_80", "sm_90", ... and "auto" (default): cuda when a CUDA
 * driver and a device are present, else cpu. The environment variable
 * TILE_TARGET overrides "auto".
 */
#ifndef TILE_H
#define TILE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define TILE_API
#elif defined(__GNUC__)
#define TILE_API __attribute__((visibility("default")))
#else
#define TILE_API
#endif

/* ---- version ------------------------------------------------------------- */

#define TILE_VERSION_MAJOR 0
#define TILE_VERSION_MINOR 1
#define TILE_VERSION_PATCH 0
/* MAJOR * 10000 + MINOR * 100 + PATCH */
#define TILE_VERSION_NUMBER 100
#define TILE_VERSION_STRING "0.1.0"

/* The version of the library actually linked ("0.1.0"). */
TILE_API const char *tile_version(void);
TILE_API unsigned tile_version_number(void);

/* ---- status -------------------------------------------------------------- */

typedef enum tile_status {
	TILE_OK = 0,
	TILE_ERROR_INVALID_ARGUMENT, /* a bad argument to an API call (message names it) */
	TILE_ERROR_COMPILE,          /* an error in the kernel source: see tile_errmsg */
	TILE_ERROR_NOT_FOUND,        /* no such kernel / file */
	TILE_ERROR_IO,               /* a file could not be read or written */
	TILE_ERROR_TARGET,           /* target unknown, no driver, or not supported here */
	TILE_ERROR_LAUNCH,           /* the driver refused or failed the launch */
	TILE_ERROR_RESOURCES,        /* too much shared memory, too many threads/registers */
	TILE_ERROR_INTERNAL,         /* an internal compiler error (a bug in tile) */
	TILE_ERROR_NOMEM             /* out of memory */
} tile_status;

/* "ok", "invalid argument", "compile error", ...; never NULL. */
TILE_API const char *tile_status_string(tile_status s);

/* ---- DLPack (a minimal, ABI-compatible subset of dlpack.h v0.8; v1.1's dtype codes) */

#ifndef DLPACK_VERSION
#define DLPACK_VERSION     80
#define DLPACK_ABI_VERSION 1
typedef enum {
	kDLCPU = 1,
	kDLCUDA = 2,
	kDLCUDAHost = 3,
	kDLOpenCL = 4,
	kDLVulkan = 7,
	kDLMetal = 8,
	kDLVPI = 9,
	kDLROCM = 10,
	kDLROCMHost = 11,
	kDLExtDev = 12,
	kDLCUDAManaged = 13,
	kDLOneAPI = 14,
	kDLWebGPU = 15,
	kDLHexagon = 16
} DLDeviceType;
typedef struct {
	DLDeviceType device_type;
	int32_t device_id;
} DLDevice;
typedef enum {
	kDLInt = 0U,
	kDLUInt = 1U,
	kDLFloat = 2U,
	kDLOpaqueHandle = 3U,
	kDLBfloat = 4U,
	kDLComplex = 5U,
	kDLBool = 6U,
	/* DLPack 1.1's narrow floats: tile takes kDLFloat8_e4m3fn (Triton's
	 * fp8e4nv) and kDLFloat8_e5m2 (fp8e5), 8 bits each */
	kDLFloat8_e3m4 = 7U,
	kDLFloat8_e4m3 = 8U,
	kDLFloat8_e4m3b11fnuz = 9U,
	kDLFloat8_e4m3fn = 10U,
	kDLFloat8_e4m3fnuz = 11U,
	kDLFloat8_e5m2 = 12U,
	kDLFloat8_e5m2fnuz = 13U,
	kDLFloat8_e8m0fnu = 14U,
	kDLFloat6_e2m3fn = 15U,
	kDLFloat6_e3m2fn = 16U,
	kDLFloat4_e2m1fn = 17U
} DLDataTypeCode;
typedef struct {
	uint8_t code;
	uint8_t bits;
	uint16_t lanes;
} DLDataType;
typedef struct {
	void *data;
	DLDevice device;
	int32_t ndim;
	DLDataType dtype;
	int64_t *shape;
	int64_t *strides;
	uint64_t byte_offset;
} DLTensor;
#endif

/* ---- handles, dtypes and options ------------------------------------------ */

typedef struct tile_context tile_context;
typedef struct tile_module tile_module;
typedef struct tile_kernel tile_kernel;
typedef struct tile_buffer tile_buffer;

/* Element types (the pointee of pointer arguments, dtype constants). */
typedef enum tile_dtype {
	TILE_DTYPE_UNSPECIFIED = 0, /* pointer argument: do not check the pointee */
	TILE_BOOL,                  /* int1, stored as one byte */
	TILE_I8,
	TILE_I16,
	TILE_I32,
	TILE_I64,
	TILE_U8,
	TILE_U16,
	TILE_U32,
	TILE_U64,
	TILE_FP8E4M3,
	TILE_FP8E5M2,
	TILE_FP16,
	TILE_BF16,
	TILE_FP32,
	TILE_FP64
} tile_dtype;

/* "fp32", "i32", "bf16"... (Triton's signature spelling); "?" if unknown. */
TILE_API const char *tile_dtype_name(tile_dtype d);

typedef enum tile_diag_level { TILE_DIAG_ERROR, TILE_DIAG_WARNING, TILE_DIAG_NOTE } tile_diag_level;

/* One diagnostic, valid during the callback only. */
typedef struct tile_diagnostic {
	tile_diag_level level;
	const char *file;     /* NULL when it has no location */
	int line, col;        /* 1-based; 0 when no location */
	int offset;           /* byte offset into the source, -1 when no location */
	const char *message;  /* "shape mismatch: [128,64] vs [64,128]" */
	const char *rendered; /* "file:line:col: error: ...\n" + source line + caret */
} tile_diagnostic;

/* Callbacks run while the context is in use (during a compile or a launch):
 * they must not call tile functions on that context, nor on what was made
 * from it. */
typedef void (*tile_diag_fn)(void *user, const tile_diagnostic *d);
/* device_print output: text (not NUL-terminated) of len bytes. */
typedef void (*tile_print_fn)(void *user, const char *text, size_t len);

typedef struct tile_context_options {
	const char *target;         /* NULL or "auto": see "Targets" above */
	int num_warps;              /* default for kernels; 0 = 4; a power of two <= 32 */
	int num_stages;             /* default for kernels; 0 = 3 (as Triton); 1 to 8 */
	const char *cache_dir;      /* NULL: $TILE_CACHE_DIR, $XDG_CACHE_HOME/tile (absolute), ~/.cache/tile */
	int disable_cache;          /* nonzero: never read or write the disk cache */
	int num_threads;            /* CPU worker threads; 0 = the number of cores */
	tile_diag_fn on_diagnostic; /* every diagnostic as it is reported; tile_errmsg then
	                             * repeats only a failure's errors. NULL: all of them
	                             * reach tile_errmsg only */
	void *diagnostic_user;
	tile_print_fn on_print; /* NULL: device_print writes to stdout */
	void *print_user;
	char *errbuf;       /* when not NULL: why tile_context_create failed (there is */
	size_t errbuf_size; /* no context to keep the message on), NUL-terminated */
	/* NULL: $TILE_PATH. Directories, ':'-separated, where `import a.b` looks for
	 * a/b.py (.tile, a/b/__init__.py) after the importing file's directory and
	 * its ancestors, as Python's sys.path; "" searches none. */
	const char *module_path;
} tile_context_options;

typedef struct tile_kernel_options {
	int num_warps;      /* 0 = the context's default */
	int num_stages;     /* 0 = the context's default */
	const char *target; /* NULL = the context's target */
	/* nonzero: Triton's debug=True: tl.device_assert and a kernel's runtime
	 * `assert` are checked (else dropped, as Triton drops them), and the IR
	 * is verified after every pass. Also on for every kernel of a context
	 * made with TRITON_DEBUG=1 (or TILE_DEBUG=1) in the environment, and for
	 * a kernel decorated @triton.jit(debug=True). */
	int debug;
	/* nonzero: Triton's enable_fp_fusion=False: a * b + c stays a rounded
	 * multiply and a rounded add (nvrtc --fmad=false); the CPU targets never
	 * fuse them. tl.fma and the math library's own fmas are kept. */
	int disable_fp_fusion;
} tile_kernel_options;

/* ---- context ----------------------------------------------------------------- */

/* *out is set to NULL on failure; opt->errbuf, when given, receives the reason
 * ("unknown target 'x' ...", "no CUDA driver found ..."). opt may be NULL. */
TILE_API tile_status tile_context_create(tile_context **out, const tile_context_options *opt);
/* NULL: no-op. What was made from ctx stays valid (see "Lifetimes"). */
TILE_API void tile_context_destroy(tile_context *ctx);
/* The message of the last failed call on ctx ("" if none). Valid until the
 * next call on ctx. tile_errmsg(NULL) returns a generic message. */
TILE_API const char *tile_errmsg(const tile_context *ctx);
/* Byte offset into the kernel source of the last error, or -1. */
TILE_API int tile_error_offset(const tile_context *ctx);
/* The target the context compiles for ("cpu", "sm_80", ...). */
TILE_API const char *tile_context_target(const tile_context *ctx);

/* ---- modules -------------------------------------------------------------------- */

TILE_API tile_status tile_module_load_file(tile_context *ctx, const char *path, tile_module **out);
/* name is used in diagnostics ("<inline>" if NULL); len may be (size_t)-1 for
 * a NUL-terminated src. Imports are resolved relative to the current directory. */
TILE_API tile_status tile_module_load_source(tile_context *ctx, const char *name, const char *src,
                                             size_t len, tile_module **out);
TILE_API void tile_module_destroy(tile_module *mod); /* NULL: no-op */

typedef struct tile_param_info {
	const char *name;
	int is_constexpr; /* annotated tl.constexpr */
	int has_default;
} tile_param_info;

/* The @jit functions of a module, in source order. */
TILE_API int tile_module_num_kernels(const tile_module *mod);
TILE_API const char *tile_module_kernel_name(const tile_module *mod,
                                             int i); /* NULL if out of range */
/* Parameters of a kernel, in declaration order; *params stays valid until
 * the module is destroyed. TILE_ERROR_NOT_FOUND if there is no such kernel. */
TILE_API tile_status tile_module_kernel_params(tile_module *mod, const char *kernel,
                                               const tile_param_info **params, int *nparams);

/* ---- arguments ------------------------------------------------------------------ */

typedef enum tile_arg_kind {
	TILE_ARG_PTR, /* ptr (host pointer on CPU, device pointer on GPU), dtype = pointee */
	TILE_ARG_I32,
	TILE_ARG_I64,
	TILE_ARG_U32,
	TILE_ARG_U64,
	TILE_ARG_F32,
	TILE_ARG_F64,
	TILE_ARG_BOOL,    /* b */
	TILE_ARG_NONE,    /* Python's None (specializes a pointer away, as Triton does) */
	TILE_ARG_STR,     /* str: a constexpr string */
	TILE_ARG_DTYPE,   /* dtype: a constexpr dtype (tl.float16) */
	TILE_ARG_DLTENSOR, /* dl: data + byte_offset, dtype from the tensor */
	TILE_ARG_TENSORDESC, /* desc: a host tensor descriptor (Triton's TensorDescriptor) */
	TILE_ARG_TUPLE,   /* tuple: a tuple parameter's elements (Triton's launcher takes
	                     x.stride() as one argument) */
	TILE_ARG_NAME     /* str: a constexpr bound to the object a (dotted) name of the
	                     kernel's module denotes: a @jit function (`relu`), an Enum
	                     member (`Dtype.FP32`), as the host's Python passes it */
} tile_arg_kind;

/* A host tensor descriptor: a tensor (contiguous last dimension, 16-byte
 * aligned base, leading strides of whole 16 bytes) and the block shape the
 * kernel moves (powers of two), as Triton's TensorDescriptor(base, shape,
 * strides, block_shape). dtype, when not TILE_DTYPE_UNSPECIFIED, is the
 * element type, overriding the tensor's, of the same width (fp8 data held as
 * uint8; a wider or narrower one is an error). The kernel
 * is specialized on the block shape and the element type. */
#define TILE_MAX_DESC_RANK 5
typedef struct tile_tensordesc {
	const DLTensor *tensor;
	tile_dtype dtype;
	int block_rank;
	int32_t block_shape[TILE_MAX_DESC_RANK];
} tile_tensordesc;

struct tile_arg;
/* The elements of a tuple argument, each a scalar, pointer, None, string,
 * dtype or tuple (up to 8 deep) argument of its own. */
typedef struct tile_tuple {
	const struct tile_arg *elems;
	size_t len;
} tile_tuple;

typedef struct tile_arg {
	tile_arg_kind kind;
	tile_dtype dtype; /* the pointee for TILE_ARG_PTR; the value for TILE_ARG_DTYPE */
	union {
		void *ptr;
		int32_t i32;
		int64_t i64;
		uint32_t u32;
		uint64_t u64;
		float f32;
		double f64;
		int b;
		const char *str;
		const DLTensor *dl;
		const tile_tensordesc *desc;
		const tile_tuple *tuple;
	}; /* anonymous (C11) */
} tile_arg;

TILE_API tile_arg tile_arg_ptr(void *p, tile_dtype pointee);
TILE_API tile_arg tile_arg_i32(int32_t v);
TILE_API tile_arg tile_arg_i64(int64_t v);
TILE_API tile_arg tile_arg_u32(uint32_t v);
TILE_API tile_arg tile_arg_u64(uint64_t v);
TILE_API tile_arg tile_arg_f32(float v);
TILE_API tile_arg tile_arg_f64(double v);
TILE_API tile_arg tile_arg_bool(int v);
TILE_API tile_arg tile_arg_none(void);
TILE_API tile_arg tile_arg_str(const char *s); /* not NULL: None is tile_arg_none() */
TILE_API tile_arg tile_arg_dtype(tile_dtype d);
TILE_API tile_arg tile_arg_name(const char *name); /* TILE_ARG_NAME; name must outlive the call */
TILE_API tile_arg tile_arg_dltensor(const DLTensor *t);
TILE_API tile_arg tile_arg_tensordesc(const tile_tensordesc *d); /* d must outlive the call */
/* A tuple parameter's argument: tile_kernel_get_typed specializes each
 * element as a parameter of its own, and the all-parameters form of
 * tile_launch passes its runtime elements in order (t and its elements must
 * outlive the call). */
TILE_API tile_arg tile_arg_tuple(const tile_tuple *t);

/* ---- kernels --------------------------------------------------------------------- */

/* Compiles (or finds in the module's table, then the disk cache) the
 * specialization of `name` described by a Triton signature string, one entry
 * per parameter in declaration order: "*fp32:16" (pointer to fp32, 16-byte
 * aligned), "i32", "i32:16" (divisible by 16), "i64:1" (equal to 1), or a
 * constant for constexpr parameters and specialized values: "1024", "0.5",
 * "True", "None", "'str'", "tl.float16". Trailing parameters with defaults may
 * be left out. opt may be NULL. Release the kernel with tile_kernel_destroy. */
TILE_API tile_status tile_kernel_get(tile_module *mod, const char *name, const char *signature,
                                     const tile_kernel_options *opt, tile_kernel **out);
/* The same, deriving the specialization from actual arguments the way
 * Triton's launcher does: pointers 16-byte aligned -> :16, integers divisible by
 * 16 -> :16, integers equal to 1 -> :1 (except do_not_specialize parameters),
 * None -> a constant, constexpr parameters -> the argument's value. Heuristics
 * and early_config_prune see runtime scalars' values and a DLTensor's shape and
 * strides (args['x'].shape); a plain pointer gives them only its dtype. */
TILE_API tile_status tile_kernel_get_typed(tile_module *mod, const char *name, const tile_arg *args,
                                           size_t nargs, const tile_kernel_options *opt,
                                           tile_kernel **out);
TILE_API void tile_kernel_destroy(tile_kernel *k); /* NULL: no-op */

typedef struct tile_kernel_info {
	const char *name;     /* the symbol in the binary: Class_name for a kernel Class.name */
	const char *target;   /* "cpu", "sm_80", ... */
	int num_params;       /* declared parameters, constexprs included */
	int num_runtime_args; /* what the launch ABI / thunk takes */
	int num_warps;
	int threads;      /* per program instance */
	int shared_bytes; /* per program instance */
	int registers;    /* per thread on a GPU; -1 when unknown or on the CPU */
	int from_cache;   /* the binary came from the disk cache */
	double compile_seconds;
	int spill_bytes;  /* local memory per thread on a GPU: the stack frame ptxas gave the
	                     kernel (spilled registers), as the cubin records it (the driver's
	                     CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES); 0 where ptxas's log shows no
	                     spill store (the frame is local arrays: sin/cos's slow path);
	                     -1 when unknown or on the CPU */
} tile_kernel_info;

TILE_API tile_status tile_kernel_get_info(const tile_kernel *k, tile_kernel_info *out);
/* Name of declared parameter i, and whether it is a runtime argument. */
TILE_API const char *tile_kernel_param_name(const tile_kernel *k, int i);
TILE_API int tile_kernel_param_is_runtime(const tile_kernel *k, int i);

/* ---- launching --------------------------------------------------------------- */

/* Runs the kernel over grid[0] x grid[1] x grid[2] program instances. args are
 * either ALL declared parameters in order (constexpr and specialized ones are
 * then checked against the specialization; a tuple parameter takes a
 * tile_arg_tuple) or only the runtime ones (a tuple's runtime elements one by
 * one, in order); the count decides, and a tile_arg_tuple or a whole
 * descriptor given for such a parameter means all of them. Each argument is checked against the specialization (kind, pointee
 * dtype, :16 alignment/divisibility, :1) and a mismatch is reported naming the
 * parameter. On the CPU the call returns when the grid has run; on a GPU the
 * launch is queued on `stream` (a CUstream, NULL = the default stream). A grid
 * with a 0 dimension runs nothing (as Triton's launcher); one beyond the
 * target's limits is TILE_ERROR_LAUNCH (cuda-emu has a GPU's: y and z at most
 * 65535). On the CPU a NULL pointer is refused for a parameter the kernel
 * reads or writes through (masked or not) and taken for one it never accesses.
 * A DLTensor must be in memory the
 * kernel can address: kDLCPU, kDLCUDAHost, kDLCUDAManaged or kDLROCMHost on
 * the CPU; kDLCUDA, kDLCUDAHost or kDLCUDAManaged on a GPU (a device_type
 * of 0, a DLDevice left zero-initialized, is not checked). tile runs kernels on
 * CUDA device 0 (CUDA_VISIBLE_DEVICES picks it), so kDLCUDA memory must have
 * device_id 0; pinned and managed memory may have any. */
TILE_API tile_status tile_launch(tile_kernel *k, const uint32_t grid[3], const tile_arg *args,
                                 size_t nargs, void *stream);

/* A C function with the kernel's own signature that launches it:
 *     int fn(RUNTIME PARAMS..., uint32_t grid_x, uint32_t grid_y, uint32_t grid_z, void *stream);
 * runtime parameters in order, as C types: pointers void *, i1 uint8_t, i8..i64
 * int8_t..int64_t, u8..u64 uint8_t..uint64_t, fp16/bf16 uint16_t (the bits),
 * fp32 float, fp64 double. It returns a tile_status (callers may ignore it;
 * the message is on the context). Cast *fn to that type before calling. The
 * function lives as long as the kernel; asking twice, also from several
 * threads at once, gives the same function. */
TILE_API tile_status tile_kernel_thunk(tile_kernel *k, void (**fn)(void));

/* ---- buffers ------------------------------------------------------------------ */

/* Memory the context's target can use: device memory for a GPU target,
 * 64-byte-aligned host memory on the CPU. tile_buffer_ptr gives the pointer
 * to pass as a TILE_ARG_PTR. */
TILE_API tile_status tile_buffer_alloc(tile_context *ctx, size_t bytes, tile_buffer **out);
TILE_API void tile_buffer_free(tile_buffer *buf); /* NULL: no-op */
TILE_API void *tile_buffer_ptr(const tile_buffer *buf);
TILE_API size_t tile_buffer_size(const tile_buffer *buf);
TILE_API tile_status tile_buffer_upload(tile_buffer *buf, size_t offset, const void *src,
                                        size_t bytes);
TILE_API tile_status tile_buffer_download(const tile_buffer *buf, size_t offset, void *dst,
                                          size_t bytes);
/* Waits for all work queued on the context's device (no-op on the CPU). */
TILE_API tile_status tile_synchronize(tile_context *ctx);

#ifdef __cplusplus
}
#endif

#endif /* TILE_H */

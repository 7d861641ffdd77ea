/* driver.h: the compile pipeline as a table, and what it hands the runtime.
 *
 *   parse -> sema -> verify -> layout_assign -> verify -> lower -> verify -> emit
 *
 * The driver (src/driver/compile.c) owns one arena per compilation, runs the
 * stages in order under an ice_protect boundary, checks the disk cache, and
 * returns a CompiledKernel: the binary (ELF object / cubin) plus the metadata
 * the launcher needs. Nothing in a CompiledKernel points into the arena.
 */
#ifndef TILE_DRIVER_H
#define TILE_DRIVER_H

#include "codegen/emit.h"
#include "ir/target.h"
#include "sema/sema.h"

/* A parsed source file and the modules it imports (kept by the context so
 * several kernels of one file compile without re-reading it). */
typedef struct SourceModule {
	Arena arena;
	Interner names;
	SrcFile file;
	Module *ast;
	char *dir;       /* directory of the file, for `import other` */
	char *search;    /* the module path: ':'-separated directories searched after dir's ancestors, or NULL */
	uint8_t closure_hash[32]; /* root: hash of its name and text and every imported file's */
	VEC(struct SourceModule *) imports; /* the modules this file imports (not owned) */
	VEC(struct SourceModule *) loaded;  /* root: every imported file, once, in load order (owned) */
} SourceModule;

/* The runtime parameter list of a compiled kernel (its launch ABI). */
typedef struct KernelArgDesc {
	char name[64];
	uint8_t dt;   /* DType; DT_PTR for pointers */
	uint8_t elem; /* pointee dtype for pointers */
	uint8_t spec; /* SPEC_* assumed by the code: the launcher checks it */
} KernelArgDesc;

typedef struct CompiledKernel {
	char *name; /* the symbol (heap): a Python name has no length limit */
	TargetDesc target;
	int num_warps;
	int threads;       /* num_warps * lanes_per_warp */
	int smem_bytes;
	uint64_t stack_bytes; /* CPU: an upper bound of one program instance's stack */
	int registers;        /* GPU: per thread, from ptxas at compile time; -1 unknown */
	int spill_bytes;      /* GPU: spill stores per thread (ptxas); -1 unknown */
	int nargs;
	KernelArgDesc *args;
	void *binary;
	size_t binary_len;
	bool from_cache;
	/* timings of the stages that ran (seconds), for --time and the benchmarks */
	double t_parse, t_sema, t_layout, t_lower, t_codegen, t_total;
} CompiledKernel;

/* Which intermediate form to print instead of (or as well as) compiling. */
typedef enum {
	DUMP_NONE, DUMP_AST, DUMP_TIR, DUMP_LAYOUT, DUMP_THREAD, DUMP_LLVM, DUMP_ASM,
	DUMP_CUDA, DUMP_PTX, DUMP_CUBIN,
} DumpKind;

typedef struct CompileRequest {
	SourceModule *src;
	const char *kernel;
	const SpecArg *args;
	int nargs;
	TargetDesc target;
	CompileOptions opts;
	DumpKind dump;      /* when set, *dump_text receives the form and compilation stops there */
	struct Cache *cache; /* may be NULL: no caching */
} CompileRequest;

/* Parses a file (or an in-memory source with a display name). Diagnostics go
 * to `diags`; returns NULL on a syntax error. */
/* search: the module path (':'-separated directories, as sys.path) or NULL */
SourceModule *source_load_file(const char *path, const char *search, DiagSink *diags);
SourceModule *source_load_text(const char *name, const char *text, size_t len, const char *search, DiagSink *diags);
void source_free(SourceModule *m);

/* Compiles one specialization. Returns 0 and fills *out, or -1 with
 * diagnostics (user errors) or an "internal compiler error" diagnostic. */
int compile_kernel(const CompileRequest *req, DiagSink *diags, CompiledKernel *out,
		   char **dump_text);
void compiled_kernel_free(CompiledKernel *k);

/* A host descriptor's block dimension: a power of two from 1 to 2^20
 * (`tensordesc<fp16[64, 64]>` and tile_tensordesc alike). */
bool desc_block_dim_ok(int64_t v);
/* Parses a Triton signature string ("*fp32:16,*fp32:16,i32,1024") against
 * the kernel's parameters into SpecArgs (constexpr entries are constants). */
int parse_signature(const char *sig, const KernelInfo *k, Arena *a, SpecArg **out, int *nout,
		    char *err, size_t errlen);
/* The same, reporting an error on d at the parameter its entry is for (the
 * kernel's def for the signature as a whole): file:line:col and the caret. */
int parse_signature_diag(const char *sig, const KernelInfo *k, Arena *a, SpecArg **out, int *nout,
			 DiagSink *d);

/* A Python literal as a constant: 12, 0x10, 0.5, True, None, "s", 'relu',
 * tl.float16. Used for signature entries and `tile run NAME=VALUE`. */
bool parse_const_literal(const char *text, Arena *a, ConstVal *out);

/* The ModuleLoader given to sema (user = the root SourceModule). */
Module *source_find_import(void *user, const Module *importer, const char *name, SrcLoc loc);

/* The PackageNamer given to sema: a module inside a directory named triton
 * (triton's own package) is in "triton.<dirs below it>"; NULL elsewhere. */
char *source_package_name(void *user, const Module *importer, int level);

/* The kernels of a loaded file (uses a scratch SemaCtx; arena = the module's). */
int source_list_kernels(SourceModule *m, DiagSink *diags, KernelInfo **out);
/* sema_heuristic_values on the module: the unbound @triton.heuristics of kernel,
 * computed from args (and the runtime values they carry); strings live in m. */
bool source_heuristic_values(SourceModule *m, DiagSink *diags, const char *kernel, const SpecArg *args,
                             int nargs, ConstVal *out, bool *set, int nparams, HeurLaunch *launch);

#endif

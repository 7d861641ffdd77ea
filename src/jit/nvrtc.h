/* nvrtc.h: libnvrtc (the CUDA runtime compiler), loaded with dlopen.
 *
 * libtile never links against the CUDA toolkit: the few nvrtc types and
 * entry points it needs are declared here and resolved at run time, so the
 * library builds, and runs on the CPU, with no CUDA installed.
 *
 * Search order: libnvrtc.so, libnvrtc.so.13, .12, .11 (the dynamic linker's
 * path, LD_LIBRARY_PATH included), then /usr/local/cuda/lib64/libnvrtc.so*.
 * The library is opened with RTLD_NODELETE, so nvrtc_close() followed by a
 * later nvrtc_open() is cheap (the code stays mapped; no mutable globals).
 *
 * Thread safety: an Nvrtc is used by one thread at a time; nvrtc itself
 * allows concurrent compilations of different programs, so each compiling
 * thread opens its own Nvrtc.
 */
#ifndef TILE_NVRTC_H
#define TILE_NVRTC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef int NvrtcResult; /* nvrtcResult; 0 = NVRTC_SUCCESS */
typedef struct NvrtcProgram_ *NvrtcProgram;
typedef struct NvrtcMemo NvrtcMemo;

typedef struct Nvrtc {
	void *handle;     /* dlopen handle */
	char path[256];   /* the library that was loaded */
	int major, minor; /* nvrtcVersion() */
	NvrtcResult (*CreateProgram)(NvrtcProgram *prog, const char *src, const char *name,
	                             int nheaders, const char *const *headers,
	                             const char *const *include_names);
	NvrtcResult (*CompileProgram)(NvrtcProgram prog, int nopts, const char *const *opts);
	NvrtcResult (*GetCUBINSize)(NvrtcProgram prog, size_t *n);
	NvrtcResult (*GetCUBIN)(NvrtcProgram prog, char *cubin);
	NvrtcResult (*GetPTXSize)(NvrtcProgram prog, size_t *n);
	NvrtcResult (*GetPTX)(NvrtcProgram prog, char *ptx);
	NvrtcResult (*GetProgramLogSize)(NvrtcProgram prog, size_t *n);
	NvrtcResult (*GetProgramLog)(NvrtcProgram prog, char *log);
	NvrtcResult (*DestroyProgram)(NvrtcProgram *prog);
	NvrtcResult (*Version)(int *major, int *minor);
	const char *(*GetErrorString)(NvrtcResult r);
	/* optional (CUDA 11.2+): NULL when this libnvrtc lacks them */
	NvrtcResult (*GetNumSupportedArchs)(int *n);
	NvrtcResult (*GetSupportedArchs)(int *archs);
	/* NULL, or the compilations of this kernel's compile so far: a repeat
	 * is copied from there (nvrtc_memo.c). Set by the caller after open. */
	NvrtcMemo *memo;
} Nvrtc;

/* The message used when no libnvrtc can be loaded. */
#define NVRTC_NOT_FOUND_MSG                                                                        \
	"libnvrtc not found: install the CUDA toolkit's nvrtc (libnvrtc.so) or put it on "         \
	"LD_LIBRARY_PATH"

/* Loads libnvrtc and resolves its entry points. On failure returns false with
 * a one-sentence reason in err (NVRTC_NOT_FOUND_MSG when nothing was found). */
bool nvrtc_open(Nvrtc *nv, char *err, size_t errlen);
void nvrtc_close(Nvrtc *nv); /* no-op on a zeroed or closed Nvrtc */

/* The version of the libnvrtc that nvrtc_open would load (for `tile
 * --version` and the cache key). False when there is none. */
bool nvrtc_version(int *major, int *minor);

/* Whether nv compiles for sm_<sm>: true when it does, or cannot say (an nvrtc
 * older than 11.2); else false with the ones it does in `known` ("sm_75, sm_80, ..."). */
bool nvrtc_supports_arch(const Nvrtc *nv, int sm, char *known, size_t knownlen);

/* What a compilation gives: a cubin (sm_XX), PTX (compute_XX), or both from
 * one sm_XX compilation, whose PTX is the compute_XX one (nvrtc keeps the PTX
 * it gave ptxas), so --emit ptx need not run the front end twice. */
typedef enum NvrtcWant { NVRTC_CUBIN, NVRTC_PTX, NVRTC_CUBIN_PTX } NvrtcWant;

/* The outcome of one compilation. */
typedef struct NvrtcOutput {
	char *code;      /* cubin (binary) or PTX (NUL-terminated), heap; NULL on failure */
	size_t code_len; /* bytes of the cubin; strlen for PTX */
	char *ptx;       /* NVRTC_CUBIN_PTX: the PTX (heap), with code the cubin */
	char *log;       /* nvrtc's log (heap, possibly empty), or NULL */
	double seconds;  /* time spent in nvrtcCompileProgram */
} NvrtcOutput;

/* Compiles CUDA C `src` (whose main file is shown as `name` in the log) for
 * arch `sm` (80, 86, 89, 90, ...; `arch_suffix` "a" for sm_90a, or "").
 * want: what to give (NvrtcWant). `extra_opts` (may be
 * NULL) are appended to the fixed options. Returns false and sets err on
 * failure; out->log holds the compile log when there is one. */
bool nvrtc_compile(const Nvrtc *nv, const char *src, const char *name, int sm,
                   const char *arch_suffix, NvrtcWant want, const char *const *extra_opts,
                   int nextra, NvrtcOutput *out, char *err, size_t errlen);
void nvrtc_output_free(NvrtcOutput *o);

/* nvrtc_compile without its memo and log: one run of nvrtc. */
bool nvrtc_run(const Nvrtc *nv, const char *src, const char *name, int sm, const char *arch_suffix,
               NvrtcWant want, const char *const *extra_opts, int nextra, NvrtcOutput *out,
               char *err, size_t errlen);

/* nvrtc_memo.c: the outputs of compilations made or started, by source,
 * name and options; a hit is a copy with seconds 0 (waiting for one still
 * compiling). One memo per compile; nvrtc_memo_start compiles on a thread of
 * its own, which nvrtc_memo_free joins. */
NvrtcMemo *nvrtc_memo_new(void);
void nvrtc_memo_free(NvrtcMemo *m); /* NULL is fine */
/* The key of nvrtc_compile's request (with a memo: a cubin with its PTX). */
void nvrtc_request_key(const char *src, const char *name, int sm, const char *arch_suffix,
                       NvrtcWant want, const char *const *extra_opts, int nextra, uint8_t key[32]);
void nvrtc_memo_key(const char *src, const char *name, const char *const *opts, int nopts,
                    NvrtcWant want, uint8_t key[32]);
/* *ahead (may be NULL): the output was compiled ahead (nvrtc_memo_start). */
bool nvrtc_memo_find(NvrtcMemo *m, const uint8_t key[32], NvrtcOutput *out, bool *ok, bool *ahead,
                     char *err, size_t errlen);
void nvrtc_memo_add(NvrtcMemo *m, const uint8_t key[32], const NvrtcOutput *out, bool ok,
                    const char *err);
/* Starts the compilation nvrtc_compile(src, ...) would make on a new thread;
 * false where it is known already or no thread could start. */
bool nvrtc_memo_start(NvrtcMemo *m, const char *src, const char *name, int sm,
                      const char *arch_suffix, NvrtcWant want, const char *const *extra_opts,
                      int nextra);

#endif

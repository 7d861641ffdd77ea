/* nvrtc.c: dlopen of libnvrtc and one-call compilation (see nvrtc.h). */
#include "jit/nvrtc.h"

#include <dlfcn.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

static void *open_path(const char *path)
{
	return dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
}

/* Tries the names the dynamic linker knows, then the toolkit's default
 * location (newest soname first: glob sorts, so walk backwards). */
static void *open_any(char *path, size_t pathlen)
{
	static const char *const names[] = {
	        "libnvrtc.so",      "libnvrtc.so.13", "libnvrtc.so.12",
	        "libnvrtc.so.11.2", "libnvrtc.so.11",
	};
	for (size_t i = 0; i < COUNTOF(names); i++) {
		void *h = open_path(names[i]);
		if (h) {
			snprintf(path, pathlen, "%s", names[i]);
			return h;
		}
	}
	glob_t g;
	void *h = NULL;
	if (glob("/usr/local/cuda/lib64/libnvrtc.so*", 0, NULL, &g) == 0) {
		for (size_t i = g.gl_pathc; i-- > 0 && !h;) {
			if (strstr(g.gl_pathv[i], "alt"))
				continue;
			h = open_path(g.gl_pathv[i]);
			if (h)
				snprintf(path, pathlen, "%s", g.gl_pathv[i]);
		}
		globfree(&g);
	}
	return h;
}

static bool resolve(Nvrtc *nv, char *err, size_t errlen)
{
	struct {
		const char *name;
		void **slot;
	} syms[] = {
	        {"nvrtcCreateProgram", (void **)&nv->CreateProgram},
	        {"nvrtcCompileProgram", (void **)&nv->CompileProgram},
	        {"nvrtcGetCUBINSize", (void **)&nv->GetCUBINSize},
	        {"nvrtcGetCUBIN", (void **)&nv->GetCUBIN},
	        {"nvrtcGetPTXSize", (void **)&nv->GetPTXSize},
	        {"nvrtcGetPTX", (void **)&nv->GetPTX},
	        {"nvrtcGetProgramLogSize", (void **)&nv->GetProgramLogSize},
	        {"nvrtcGetProgramLog", (void **)&nv->GetProgramLog},
	        {"nvrtcDestroyProgram", (void **)&nv->DestroyProgram},
	        {"nvrtcVersion", (void **)&nv->Version},
	        {"nvrtcGetErrorString", (void **)&nv->GetErrorString},
	};
	for (size_t i = 0; i < COUNTOF(syms); i++) {
		*syms[i].slot = dlsym(nv->handle, syms[i].name);
		if (!*syms[i].slot) {
			snprintf(err, errlen, "%s lacks %s: it is too old or damaged", nv->path,
			         syms[i].name);
			return false;
		}
	}
	*(void **)&nv->GetNumSupportedArchs = dlsym(nv->handle, "nvrtcGetNumSupportedArchs");
	*(void **)&nv->GetSupportedArchs = dlsym(nv->handle, "nvrtcGetSupportedArchs");
	return true;
}

bool nvrtc_supports_arch(const Nvrtc *nv, int sm, char *known, size_t knownlen)
{
	int n = 0;
	if (!nv->GetNumSupportedArchs || !nv->GetSupportedArchs ||
	    nv->GetNumSupportedArchs(&n) != 0 || n <= 0 || n > 1024)
		return true;
	int *archs = xmalloc(sizeof(int) * (size_t)n);
	bool found = nv->GetSupportedArchs(archs) != 0; /* cannot say: as if found */
	size_t at = 0;
	if (knownlen)
		known[0] = 0;
	for (int i = 0; i < n && !found; i++) {
		found = archs[i] == sm;
		if (at < knownlen) {
			int w = snprintf(known + at, knownlen - at, "%ssm_%d", i ? ", " : "", archs[i]);
			at += w > 0 ? (size_t)w : 0;
		}
	}
	free(archs);
	return found;
}

bool nvrtc_open(Nvrtc *nv, char *err, size_t errlen)
{
	memset(nv, 0, sizeof *nv);
	if (errlen)
		err[0] = 0;
	nv->handle = open_any(nv->path, sizeof nv->path);
	if (!nv->handle) {
		snprintf(err, errlen, "%s", NVRTC_NOT_FOUND_MSG);
		return false;
	}
	if (!resolve(nv, err, errlen) || nv->Version(&nv->major, &nv->minor) != 0) {
		if (!err[0])
			snprintf(err, errlen, "%s: nvrtcVersion failed", nv->path);
		nvrtc_close(nv);
		return false;
	}
	return true;
}

void nvrtc_close(Nvrtc *nv)
{
	if (nv->handle)
		dlclose(nv->handle);
	memset(nv, 0, sizeof *nv);
}

bool nvrtc_version(int *major, int *minor)
{
	Nvrtc nv;
	char err[256] = "";
	if (!nvrtc_open(&nv, err, sizeof err))
		return false;
	*major = nv.major;
	*minor = nv.minor;
	nvrtc_close(&nv);
	return true;
}

void nvrtc_output_free(NvrtcOutput *o)
{
	free(o->code);
	free(o->ptx);
	free(o->log);
	memset(o, 0, sizeof *o);
}

static char *take_log(const Nvrtc *nv, NvrtcProgram prog)
{
	size_t n = 0;
	if (nv->GetProgramLogSize(prog, &n) != 0 || n == 0)
		return xstrdup("");
	char *log = xmalloc(n + 1);
	if (nv->GetProgramLog(prog, log) != 0)
		log[0] = 0;
	log[n] = 0;
	return log;
}

/* Copies the PTX or cubin out of a compiled program into out->code. */
static bool take_code(const Nvrtc *nv, NvrtcProgram prog, bool want_ptx, NvrtcOutput *out,
                      char *err, size_t errlen)
{
	size_t n = 0;
	out->code = NULL;
	NvrtcResult r = want_ptx ? nv->GetPTXSize(prog, &n) : nv->GetCUBINSize(prog, &n);
	if (r != 0 || n == 0) {
		snprintf(err, errlen, "nvrtc returned no %s: %s", want_ptx ? "PTX" : "cubin",
		         r ? nv->GetErrorString(r) : "empty output");
		return false;
	}
	out->code = xmalloc(n + 1);
	r = want_ptx ? nv->GetPTX(prog, out->code) : nv->GetCUBIN(prog, out->code);
	if (r != 0) {
		snprintf(err, errlen, "nvrtc: %s", nv->GetErrorString(r));
		free(out->code);
		out->code = NULL;
		return false;
	}
	out->code[n] = 0;
	out->code_len = want_ptx ? strlen(out->code) : n;
	return true;
}

/* One nvrtc compilation of src with the options given in full. */
static bool compile_program(const Nvrtc *nv, const char *src, const char *name, NvrtcWant want,
                            const char *const *opts, int nopts, NvrtcOutput *out, char *err,
                            size_t errlen)
{
	NvrtcProgram prog = NULL;
	NvrtcResult r = nv->CreateProgram(&prog, src, name, 0, NULL, NULL);
	if (r != 0) {
		snprintf(err, errlen, "nvrtcCreateProgram: %s", nv->GetErrorString(r));
		return false;
	}
	double t0 = now_seconds();
	r = nv->CompileProgram(prog, nopts, opts);
	out->seconds = now_seconds() - t0;
	out->log = take_log(nv, prog);
	bool ok = false;
	if (r != 0)
		snprintf(err, errlen, "nvrtc: %s", nv->GetErrorString(r));
	else if (want == NVRTC_CUBIN_PTX) { /* the PTX first: take_code leaves the cubin in code */
		ok = take_code(nv, prog, true, out, err, errlen);
		out->ptx = out->code;
		ok = ok && take_code(nv, prog, false, out, err, errlen);
	} else
		ok = take_code(nv, prog, want == NVRTC_PTX, out, err, errlen);
	nv->DestroyProgram(&prog);
	return ok;
}

/* The options nvrtc gets for a request: the architecture (compute_XX for
 * PTX alone), the fixed ones, then extra_opts; their count. */
static int request_opts(char arch[64], const char *opts[32], int sm, const char *arch_suffix,
                        NvrtcWant want, const char *const *extra_opts, int nextra)
{
	snprintf(arch, 64, "--gpu-architecture=%s_%d%s", want == NVRTC_PTX ? "compute" : "sm", sm,
	         arch_suffix ? arch_suffix : "");
	/* -w: the source is generated; its warnings are noise in error reports */
	const char *fixed[] = {arch, "-default-device", "--std=c++17", "-w"};
	int n = 0;
	for (size_t i = 0; i < COUNTOF(fixed); i++)
		opts[n++] = fixed[i];
	for (int i = 0; i < nextra && n < 32; i++)
		opts[n++] = extra_opts[i];
	return n;
}

/* With a memo a cubin comes with its PTX, so that --emit ptx of the program
 * the variant search kept reuses the search's compilation. */
static NvrtcWant memo_want(NvrtcWant want) { return want == NVRTC_CUBIN ? NVRTC_CUBIN_PTX : want; }

void nvrtc_request_key(const char *src, const char *name, int sm, const char *arch_suffix,
                       NvrtcWant want, const char *const *extra_opts, int nextra, uint8_t key[32])
{
	char arch[64];
	const char *opts[32];
	want = memo_want(want);
	int nopts = request_opts(arch, opts, sm, arch_suffix, want, extra_opts, nextra);
	nvrtc_memo_key(src, name, opts, nopts, want, key);
}

bool nvrtc_run(const Nvrtc *nv, const char *src, const char *name, int sm, const char *arch_suffix,
               NvrtcWant want, const char *const *extra_opts, int nextra, NvrtcOutput *out,
               char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	char arch[64];
	const char *opts[32];
	int nopts = request_opts(arch, opts, sm, arch_suffix, want, extra_opts, nextra);
	return compile_program(nv, src, name, want, opts, nopts, out, err, errlen);
}

bool nvrtc_compile(const Nvrtc *nv, const char *src, const char *name, int sm,
                   const char *arch_suffix, NvrtcWant want, const char *const *extra_opts,
                   int nextra, NvrtcOutput *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	NvrtcWant run = nv->memo ? memo_want(want) : want;
	uint8_t key[32];
	bool ok = false, reused = false, ahead = false;
	if (nv->memo) {
		nvrtc_request_key(src, name, sm, arch_suffix, want, extra_opts, nextra, key);
		reused = nvrtc_memo_find(nv->memo, key, out, &ok, &ahead, err, errlen);
	}
	if (!reused) {
		ok = nvrtc_run(nv, src, name, sm, arch_suffix, run, extra_opts, nextra, out, err, errlen);
		if (nv->memo)
			nvrtc_memo_add(nv->memo, key, out, ok, err);
	}
	if (run != want) {
		free(out->ptx);
		out->ptx = NULL;
	}
	if (getenv("TILE_NVRTC_LOG")) { /* a diagnosis aid: what nvrtc was asked and said */
		char arch[64];
		const char *opts[32];
		int nopts = request_opts(arch, opts, sm, arch_suffix, run, extra_opts, nextra);
		fprintf(stderr, "tile: nvrtc %s%s:", name,
		        ahead    ? " (compiled ahead on another thread)"
		        : reused ? " (the same as an earlier compilation: reused)"
		                 : "");
		for (int i = 0; i < nopts; i++)
			fprintf(stderr, " %s", opts[i]);
		bool empty = !out->log || !*out->log;
		/* nvrtc (12.9+, with a driver) serves repeated compilations from
		 * the driver's cache and then says nothing, ptxas's -v report included */
		fprintf(stderr, ": %s\n%s%s", ok ? "ok" : err,
		        !empty ? out->log
		        : ok   ? "(empty log: nvrtc may have taken the result from its cache; "
		                 "CUDA_CACHE_DISABLE=1 makes it compile again)\n"
		               : "(no log)\n",
		        !empty && out->log[strlen(out->log) - 1] != '\n' ? "\n" : "");
	}
	return ok;
}

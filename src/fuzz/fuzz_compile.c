/* fuzz_compile.c: libFuzzer target for the whole compiler short of machine code.
 *
 * Any bytes are parsed; every @jit function found (4 at most) is specialized
 * with a signature guessed from its parameters (constexprs get 16, parameters
 * with defaults at the end are left to them, names ending in "ptr" or starting
 * with an upper-case letter are pointers: to i32 when the name says indices,
 * else to the run's float type; the rest i32) and compiled three ways:
 *   cpu       fp32  through emission: LLVM IR built, verified and optimized
 *                   (no instruction selection, which is LLVM's and slow)
 *   cuda-emu  fp16  to the thread program (32 lanes, mma, cp.async pipelining)
 *   sm_90a    fp16  through emission: the CUDA C text (nvrtc is not run: the
 *                   first program, no spill variants weighed by ptxas)
 * The only acceptable outcomes are success or diagnostics: a crash, a hang, a
 * leak or an "internal compiler error" aborts. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/driver.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool is_pointer_name(const char *n)
{
	size_t len = strlen(n);
	return (len >= 3 && strcmp(n + len - 3, "ptr") == 0) || isupper((unsigned char)n[0]);
}

static bool is_index_name(const char *n)
{
	static const char *const words[] = {"idx", "index", "indices", "offs", "seqlen", "lens", "count"};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strstr(n, words[i]))
			return true;
	return false;
}

static void guess_signature(const KernelInfo *k, const char *fdt, StrBuf *sig)
{
	int n = k->nparams;
	while (n > 0 && k->params[n - 1].has_default)
		n--;
	for (int i = 0; i < n; i++) {
		const KernelParamInfo *p = &k->params[i];
		if (i)
			sb_putc(sig, ',');
		if (p->is_constexpr)
			sb_puts(sig, "16");
		else if (!is_pointer_name(p->name))
			sb_puts(sig, "i32");
		else
			sb_printf(sig, "*%s:16", is_index_name(p->name) ? "i32" : fdt);
	}
}

static bool has_ice(const DiagSink *d)
{
	for (size_t i = 0; i < d->diags.len; i++)
		if (!strncmp(d->diags.data[i].msg, "internal compiler error", 23)) /* not in user text */
			return true;
	return false;
}

typedef struct Way {
	const char *target, *fdt;
	DumpKind dump;
} Way;

static const Way ways[] = {
	{"cpu", "fp32", DUMP_LLVM},
	{"cuda-emu", "fp16", DUMP_THREAD},
	{"sm_90a", "fp16", DUMP_CUDA},
};

static void compile_one(SourceModule *m, const KernelInfo *k, const Way *w)
{
	DiagSink d;
	diag_init(&d);
	Arena a;
	arena_init(&a);
	StrBuf sig = {0};
	guess_signature(k, w->fdt, &sig);
	SpecArg *args = NULL;
	int nargs = 0;
	char err[256];
	if (parse_signature(sig.s ? sig.s : "", k, &a, &args, &nargs, err, sizeof err) == 0) {
		CompileRequest r = {0};
		r.src = m;
		r.kernel = k->name;
		r.args = args;
		r.nargs = nargs;
		target_from_name(w->target, &r.target);
		r.opts.num_warps = 4;
		r.opts.num_stages = 3; /* the default */
		r.opts.first_program = true; /* no nvrtc to weigh spill variants */
		r.dump = w->dump;
		CompiledKernel out;
		char *text = NULL;
		compile_kernel(&r, &d, &out, &text);
		free(text);
		compiled_kernel_free(&out);
		if (has_ice(&d)) {
			fprintf(stderr, "%s", diag_render_all(&d));
			abort();
		}
	}
	sb_free(&sig);
	arena_free(&a);
	diag_free(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	DiagSink d;
	diag_init(&d);
	SourceModule *m = source_load_text("fuzz.tile", (const char *)data, size, NULL, &d);
	if (m) {
		KernelInfo *ks = NULL;
		int n = source_list_kernels(m, &d, &ks);
		for (int i = 0; i < n && i < 4; i++)
			for (size_t j = 0; j < sizeof ways / sizeof ways[0]; j++)
				compile_one(m, &ks[i], &ways[j]);
	}
	source_free(m);
	diag_free(&d);
	return 0;
}

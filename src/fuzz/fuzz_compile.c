/* fuzz_compile.c: libFuzzer target for the front half of the compiler.
 *
 * Any bytes are parsed; every @jit function found is specialized with a
 * signature guessed from its parameters (constexprs get 16, names ending in
 * "ptr" or starting with an upper-case letter get *fp32:16, the rest i32) and
 * compiled through sema, layout and lowering to the thread program, for the
 * native CPU and for the 32-lane emulation target (stopping before LLVM, which
 * is slow and not ours to fuzz). The only acceptable outcomes are success or
 * diagnostics: a crash, a hang, a leak or an "internal compiler error" aborts. */
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

static void guess_signature(const KernelInfo *k, StrBuf *sig)
{
	for (int i = 0; i < k->nparams; i++) {
		const KernelParamInfo *p = &k->params[i];
		if (i)
			sb_putc(sig, ',');
		if (p->is_constexpr)
			sb_puts(sig, "16");
		else
			sb_puts(sig, is_pointer_name(p->name) ? "*fp32:16" : "i32");
	}
}

static bool has_ice(const DiagSink *d)
{
	for (size_t i = 0; i < d->diags.len; i++)
		if (!strncmp(d->diags.data[i].msg, "internal compiler error", 23)) /* not in user text */
			return true;
	return false;
}

static void compile_one(SourceModule *m, const KernelInfo *k, const char *target)
{
	DiagSink d;
	diag_init(&d);
	Arena a;
	arena_init(&a);
	StrBuf sig = {0};
	guess_signature(k, &sig);
	SpecArg *args = NULL;
	int nargs = 0;
	char err[256];
	if (parse_signature(sig.s ? sig.s : "", k, &a, &args, &nargs, err, sizeof err) == 0) {
		CompileRequest r = {0};
		r.src = m;
		r.kernel = k->name;
		r.args = args;
		r.nargs = nargs;
		target_from_name(target, &r.target);
		r.opts.num_warps = 4;
		r.opts.num_stages = 3; /* the default */
		r.dump = DUMP_THREAD;
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
		for (int i = 0; i < n && i < 4; i++) {
			compile_one(m, &ks[i], "cpu");
			compile_one(m, &ks[i], "cuda-emu");
		}
	}
	source_free(m);
	diag_free(&d);
	return 0;
}

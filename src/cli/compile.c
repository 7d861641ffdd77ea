/* compile.c: `tile compile`: compile one specialization, or print one of the
 * compiler's intermediate forms (--emit), through the driver directly.
 *
 * The specialization is a Triton signature (--signature), with --const
 * NAME=V filling constexpr (or specialized) parameters by name: the entries
 * of --signature go, in order, to the parameters that no --const names.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"

static const struct {
	const char *name;
	DumpKind kind;
} emit_kinds[] = {
        {"ast", DUMP_AST},       {"tir", DUMP_TIR},   {"layout", DUMP_LAYOUT},
        {"thread", DUMP_THREAD}, {"llvm", DUMP_LLVM}, {"asm", DUMP_ASM},
        {"cuda", DUMP_CUDA},     {"ptx", DUMP_PTX},   {"cubin", DUMP_CUBIN},
};

static bool emit_kind(const char *s, DumpKind *k)
{
	for (size_t i = 0; i < COUNTOF(emit_kinds); i++)
		if (strcmp(emit_kinds[i].name, s) == 0) {
			*k = emit_kinds[i].kind;
			return true;
		}
	return false;
}

/* Without --target (or TILE_TARGET), the form asked for picks the kind of
 * target: LLVM IR and assembly exist only for the CPU, CUDA C, PTX and cubins
 * only for a GPU (the one here; without one, the user must name the
 * architecture). */
static int target_for_emit(CommonOpts *co, const char *emit)
{
	DumpKind k;
	const char *env = getenv("TILE_TARGET");
	bool named = (co->target && strcmp(co->target, "auto") != 0) ||
	             (!co->target && env && *env && strcmp(env, "auto") != 0);
	if (named || co->emulate_cuda || !emit || !emit_kind(emit, &k))
		return 0;
	if (k == DUMP_LLVM || k == DUMP_ASM) {
		co->target = "cpu";
		return 0;
	}
	if (k != DUMP_CUDA && k != DUMP_PTX && k != DUMP_CUBIN)
		return 0;
	tile_context *probe = NULL;
	tile_context_options opt = {0};
	opt.target = "cuda";
	if (tile_context_create(&probe, &opt) != TILE_OK) {
		fprintf(stderr, "tile: error: --emit %s without --target compiles for this machine's "
		        "GPU, and it has none: name an architecture, e.g. --target sm_90a\n", emit);
		return EXIT_USER;
	}
	tile_context_destroy(probe);
	co->target = "cuda";
	return 0;
}

/* ---- the default kernel ----------------------------------------------------------------- */

static bool is_ident(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* True when the text before b (spaces skipped) ends with word, a whole
 * identifier. */
static bool ends_with_word(const char *text, const char *b, const char *word)
{
	size_t w = strlen(word);
	while (b > text && (b[-1] == ' ' || b[-1] == '\t'))
		b--;
	return (size_t)(b - text) >= w && strncmp(b - w, word, w) == 0 &&
	       ((size_t)(b - text) == w || !is_ident(*(b - w - 1)));
}

/* Whether the identifier ending at b (spaces skipped) names a decorator:
 * jit, or ends in autotune or heuristics (`cce_forward_autotune`). */
static bool names_decorator(const char *text, const char *b)
{
	while (b > text && (b[-1] == ' ' || b[-1] == '\t'))
		b--;
	const char *e = b;
	while (b > text && is_ident(b[-1]))
		b--;
	size_t n = (size_t)(e - b);
	return (n == 3 && strncmp(b, "jit", 3) == 0) ||
	       (n >= 8 && strncmp(e - 8, "autotune", 8) == 0) ||
	       (n >= 10 && strncmp(e - 10, "heuristics", 10) == 0);
}

/* Whether the name at p is the argument of a decorator written as a call,
 * `k = triton.jit(k)` or `k = triton.heuristics({...})(k)`: the kernel
 * itself, not a use of it (cut-cross-entropy's kernels are made so). */
static bool is_decorated_by_call(const char *text, const char *p)
{
	const char *b = p;
	while (b > text && (b[-1] == ' ' || b[-1] == '\t'))
		b--;
	if (b == text || b[-1] != '(')
		return false;
	b--;
	while (b > text && (b[-1] == ' ' || b[-1] == '\t'))
		b--;
	if (b > text && b[-1] == ')') { /* f(...)(name): f must name a decorator */
		int depth = 0;
		for (b--; b > text; b--) {
			depth += *b == ')' ? 1 : *b == '(' ? -1 : 0;
			if (depth == 0)
				break;
		}
		if (depth != 0)
			return false;
	}
	return names_decorator(text, b);
}

/* True when name is used in text other than in `def name(`: called
 * (`name(`), launched (`name[`) or passed as a value (`name,` or `name)`,
 * as a combine_fn is): such a function is not the kernel to default to. */
static bool is_called(const char *text, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
		if (p > text && is_ident(p[-1]))
			continue;
		const char *q = p + n;
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q != '(' && *q != '[' && *q != ',' && *q != ')')
			continue;
		if (ends_with_word(text, p, "def") || (*q == ')' && is_decorated_by_call(text, p)))
			continue;
		return true;
	}
	return false;
}

const char *cli_default_kernel(tile_module *mod)
{
	const char *found = NULL;
	int count = 0;
	StrBuf all = {0};
	for (int i = 0; i < tile_module_num_kernels(mod); i++) {
		const char *k = tile_module_kernel_name(mod, i);
		sb_printf(&all, "%s%s", all.len ? ", " : "", k);
		if (!is_called(mod->src->file.text, k)) {
			found = k;
			count++;
		}
	}
	if (count != 1) {
		cli_usage_error("%s: name the kernel to use (@jit functions: %s)",
		                mod->src->file.name, all.len ? all.s : "none");
		found = NULL;
	}
	sb_free(&all);
	return found;
}

/* ---- the signature ------------------------------------------------------------------------ */

/* Splits at top-level commas (quotes respected); entries are trimmed heap strings. */
static int split_sig(const char *sig, char ***out)
{
	VEC(char *) v = {0};
	const char *start = sig;
	char quote = 0;
	int depth = 0; /* inside tensordesc<fp16[64, 64]> or a tuple (i32, i32) */
	for (const char *p = sig;; p++) {
		if (quote) {
			if (*p == quote)
				quote = 0;
			if (*p)
				continue;
		}
		if (*p == '\'' || *p == '"') {
			quote = *p;
			continue;
		}
		if (*p == '<' || *p == '[' || *p == '(')
			depth++;
		else if ((*p == '>' || *p == ']' || *p == ')') && depth > 0)
			depth--;
		if ((*p == ',' && depth == 0) || *p == 0) {
			const char *a = start, *b = p;
			while (a < b && isspace((unsigned char)*a))
				a++;
			while (b > a && isspace((unsigned char)b[-1]))
				b--;
			char *e = xmalloc((size_t)(b - a) + 1);
			memcpy(e, a, (size_t)(b - a));
			e[b - a] = 0;
			vec_push(&v, e);
			start = p + 1;
			if (!*p)
				break;
		}
	}
	if (v.len == 1 && !v.data[0][0]) { /* empty signature */
		free(v.data[0]);
		v.len = 0;
	}
	*out = v.data;
	return (int)v.len;
}

static const char *const_for(const char **consts, int n, const char *name)
{
	size_t len = strlen(name);
	for (int i = 0; i < n; i++)
		if (strncmp(consts[i], name, len) == 0 && consts[i][len] == '=')
			return consts[i] + len + 1;
	return NULL;
}

static int check_consts(const KernelInfo *ki, const char **consts, int nconsts)
{
	for (int c = 0; c < nconsts; c++) {
		const char *eq = strchr(consts[c], '=');
		bool ok = false;
		for (int i = 0; eq && i < ki->nparams; i++)
			if (strlen(ki->params[i].name) == (size_t)(eq - consts[c]) &&
			    strncmp(ki->params[i].name, consts[c], (size_t)(eq - consts[c])) == 0)
				ok = true;
		if (!eq) {
			cli_usage_error("--const takes NAME=VALUE, got '%s'", consts[c]);
			return EXIT_USAGE;
		}
		if (!ok) {
			fprintf(stderr,
			        "tile: error: --const %s: kernel '%s' has no parameter '%.*s'\n",
			        consts[c], ki->name, (int)(eq - consts[c]), consts[c]);
			return EXIT_USER;
		}
		for (int d = 0; d < c; d++)
			if (strncmp(consts[d], consts[c], (size_t)(eq - consts[c]) + 1) == 0) {
				fprintf(stderr, "tile: error: --const %s: parameter '%.*s' is given twice\n",
				        consts[c], (int)(eq - consts[c]), consts[c]);
				return EXIT_USER;
			}
	}
	return 0;
}

/* The full signature: --const values in their positions, --signature entries elsewhere.
 * A parameter before the last one that gets an entry, that has neither and has a
 * default (an autotuned or heuristic parameter included), gets a placeholder entry
 * and is marked in `dflt`: the caller binds it to its default after parsing. Errors
 * about a parameter go to d at that parameter, about the whole signature at the def. */
static int merge_signature(const KernelInfo *ki, const char *sig, const char **consts, int nconsts,
                           StrBuf *out, bool *dflt, DiagSink *d)
{
	int rc = check_consts(ki, consts, nconsts);
	if (rc)
		return rc;
	if (!sig) {
		for (int i = 0; i < ki->nparams; i++)
			if (!const_for(consts, nconsts, ki->params[i].name) && !ki->params[i].has_default) {
				diag_error(d, ki->params[i].loc,
				           "parameter '%s' of '%s' needs a type: give --signature "
				           "with one entry per parameter that --const does not set (like "
				           "'*fp32:16,i32')",
				           ki->params[i].name, ki->name);
				return EXIT_USER;
			}
	}
	char **entries;
	int ne = split_sig(sig ? sig : "", &entries), next = 0;
	int last = 0; /* entries up to the last parameter that gets one */
	for (int i = 0; i < ki->nparams; i++)
		if (const_for(consts, nconsts, ki->params[i].name) || next < ne) {
			if (!const_for(consts, nconsts, ki->params[i].name))
				next++;
			last = i + 1;
		}
	next = 0;
	for (int i = 0; i < last && !rc; i++) {
		const char *v = const_for(consts, nconsts, ki->params[i].name);
		if (!v && next < ne)
			v = entries[next++];
		if (!v && ki->params[i].has_default) {
			v = "None";
			dflt[i] = true;
		}
		if (!v) {
			/* deco_note: why a decorator that would set it could not be read */
			diag_error(d, ki->params[i].loc,
			           "parameter '%s' of '%s' has no entry: give its type in --signature "
			           "(like *fp32:16 or i32) or its value with --const %s=V%s%s",
			           ki->params[i].name, ki->name, ki->params[i].name,
			           ki->deco_note ? "; " : "", ki->deco_note ? ki->deco_note : "");
			rc = EXIT_USER;
		}
		sb_printf(out, "%s%s", i ? "," : "", v ? v : "");
	}
	if (!rc && next < ne) {
		diag_error(d, ki->loc,
		           "--signature has %d entries but only %d parameters of '%s' are left after "
		           "--const",
		           ne, next, ki->name);
		rc = EXIT_USER;
	}
	for (int i = 0; i < ne; i++)
		free(entries[i]);
	free(entries);
	if (!out->s)
		sb_puts(out, "");
	return rc;
}

/* ---- compiling ----------------------------------------------------------------------------- */

static int write_out(const char *path, const void *data, size_t len)
{
	if (!path || strcmp(path, "-") == 0) {
		fwrite(data, 1, len, stdout);
		return 0;
	}
	FilePart part = {data, len}; /* a failed write leaves an existing OUT as it was */
	if (write_file_parts(path, &part, 1) != 0) {
		fprintf(stderr, "tile: error: cannot write '%s': %s\n", path, strerror(errno));
		return EXIT_USER;
	}
	return 0;
}

static void print_times(FILE *to, const CompiledKernel *ck)
{
	fprintf(to, "time: sema %.2f ms, layout %.2f ms, lower %.2f ms, codegen %.2f ms, total %.2f "
	       "ms%s\n",
	       ck->t_sema * 1e3, ck->t_layout * 1e3, ck->t_lower * 1e3, ck->t_codegen * 1e3,
	       ck->t_total * 1e3, ck->from_cache ? " (from cache)" : "");
}

/* name: the kernel as the user wrote it (Class.name; ck->name is its symbol) */
static int report_result(const CompiledKernel *ck, const char *name, DumpKind kind, const char *dump,
                         const char *out_path, bool timing)
{
	int rc = 0;
	/* the binary on stdout (-o -): the report goes to stderr, not into the binary */
	FILE *report = out_path && strcmp(out_path, "-") == 0 ? stderr : stdout;
	if (kind == DUMP_CUBIN || kind == DUMP_NONE) {
		if (kind == DUMP_CUBIN && !out_path && !dump) {
			cli_usage_error("--emit cubin writes a binary: give -o FILE");
			return EXIT_USAGE;
		}
		if (dump)
			rc = write_out(out_path, dump, strlen(dump));
		else if (out_path)
			rc = write_out(out_path, ck->binary, ck->binary_len);
		if (kind == DUMP_NONE && !rc) {
			char regs[64] = "";
			if (ck->registers >= 0)
				snprintf(regs, sizeof regs, ", %d registers, %d bytes spilled per thread",
				         ck->registers, ck->spill_bytes);
			fprintf(report, "compiled %s for %s: %zu bytes, %d threads, %d bytes of shared "
			        "memory%s%s\n",
			        name, ck->target.name, ck->binary_len, ck->threads, ck->smem_bytes, regs,
			        ck->from_cache ? " (cached)" : "");
		}
	} else if (dump) {
		rc = write_out(out_path, dump, strlen(dump));
	}
	/* with --emit the dump may be on stdout: the times go to stderr */
	if (timing && !rc)
		print_times(kind == DUMP_NONE ? report : stderr, ck);
	return rc;
}

int cli_dump(tile_context *ctx, tile_module *mod, const char *kernel, const char *emit,
             const char *signature, const char **consts, int nconsts, const CommonOpts *o,
             const char *out_path, bool timing)
{
	DumpKind kind = DUMP_NONE;
	if (emit && !emit_kind(emit, &kind)) {
		cli_usage_error(
		        "unknown --emit form '%s' (ast tir layout thread llvm asm cuda ptx cubin)",
		        emit);
		return EXIT_USAGE;
	}
	const KernelInfo *ki = kernel ? api_find_kernel(mod, kernel) : NULL;
	if (kind != DUMP_AST && !ki) {
		const tile_param_info *p;
		int n;
		tile_module_kernel_params(mod, kernel ? kernel : "", &p, &n);
		cli_report(ctx);
		return EXIT_USER;
	}
	StrBuf sig = {0};
	Arena a;
	arena_init(&a);
	SpecArg *args = NULL;
	int nargs = 0, rc = 0;
	bool *dflt = ki ? ARENA_NEWN(&a, bool, ki->nparams + 1) : NULL;
	if (ki && ki->deco_error) { /* before the signature, whose meaning it changes */
		fputs(ki->deco_error, stderr);
		rc = EXIT_USER;
	}
	if (!rc && ki) {
		diag_clear(&ctx->diags);
		rc = merge_signature(ki, signature, consts, nconsts, &sig, dflt, &ctx->diags);
		if (!rc && parse_signature_diag(sig.s, ki, &a, &args, &nargs, &ctx->diags) != 0)
			rc = EXIT_USER;
		if (rc && ctx->diags.nerrors) {
			api_fail_diags(ctx, TILE_ERROR_INVALID_ARGUMENT);
			cli_report(ctx);
		}
	}
	for (int i = 0; !rc && ki && i < nargs; i++)
		if (dflt[i]) { /* bound to its default, as if left out */
			args[i] = (SpecArg){.is_const = true, .use_default = true, .cval = ki->params[i].default_val};
		}
	tile_kernel_options kopt = {.num_warps = o->num_warps, .num_stages = o->num_stages,
	                            .disable_fp_fusion = o->no_fp_fusion, .debug = o->debug};
	CompileRequest req;
	HeurLaunch launch = {0};
	if (!rc && ki && api_signature_prune(mod, ki, &args, &nargs, &a, &launch) != TILE_OK) {
		cli_report(ctx);
		rc = EXIT_USER;
	}
	if (!rc && api_make_request(mod, ki ? ki->name : "", args, nargs, &kopt, &req) != TILE_OK) {
		cli_report(ctx);
		rc = EXIT_USER;
	}
	if (!rc)
		api_apply_launch(&req, &kopt, &launch);
	if (!rc) {
		req.dump = kind;
		CompiledKernel ck;
		char *dump = NULL;
		diag_clear(&ctx->diags);
		if (compile_kernel(&req, &ctx->diags, &ck, &dump) != 0) {
			api_fail_diags(ctx, TILE_ERROR_COMPILE);
			cli_report(ctx);
			rc = EXIT_USER;
		} else {
			rc = report_result(&ck, ki ? ki->name : ck.name, kind, dump, out_path, timing);
			compiled_kernel_free(&ck);
		}
		free(dump);
	}
	arena_free(&a);
	sb_free(&sig);
	return rc;
}

/* An option that takes one value: given twice is a usage error, not "the last wins". */
static int once(const char *name, const char **slot, const char *v)
{
	if (*slot) {
		cli_usage_error("%s is given twice ('%s' and '%s')", name, *slot, v);
		return EXIT_USAGE;
	}
	*slot = v;
	return 0;
}

/* Whether a and b name one existing file (through links, ./, ..): -o onto the
 * source would replace the kernel with its own binary or dump. */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

const char *cli_source_at(const tile_module *mod, const char *path)
{
	if (same_file(mod->src->file.name, path))
		return mod->src->file.name;
	for (size_t i = 0; i < mod->src->loaded.len; i++)
		if (same_file(mod->src->loaded.data[i]->file.name, path))
			return mod->src->loaded.data[i]->file.name;
	return NULL;
}

/* FILE, then KERNEL */
static int compile_operand(const char *a, const char **file, const char **kernel)
{
	if (!*file)
		*file = a;
	else if (!*kernel)
		*kernel = a;
	else {
		cli_usage_error("compile: unexpected argument '%s'", a);
		return EXIT_USAGE;
	}
	return 0;
}

int cmd_compile(int argc, char **argv)
{
	CommonOpts co = {0};
	const char *file = NULL, *kernel = NULL, *emit = NULL, *sig = NULL, *out = NULL;
	const char **consts = xcalloc((size_t)argc + 1, sizeof *consts);
	int nconsts = 0, rc = 0;
	bool timing = false, operands = false; /* after "--" none is an option: a FILE named -k.py */
	for (int i = 0; i < argc && !rc; i++) {
		const char *v;
		int r;
		if (!operands && strcmp(argv[i], "--") == 0)
			operands = true;
		else if (operands)
			rc = compile_operand(argv[i], &file, &kernel);
		else if ((r = cli_common_opt(argc, argv, &i, &co)) != 0)
			rc = r < 0 ? EXIT_USAGE : 0;
		else if ((r = cli_opt_value(argc, argv, &i, "--emit", &v)) != 0)
			rc = r < 0 ? EXIT_USAGE : once("--emit", &emit, v);
		else if ((r = cli_opt_value(argc, argv, &i, "--signature", &v)) != 0)
			rc = r < 0 ? EXIT_USAGE : once("--signature", &sig, v);
		else if ((r = cli_opt_value(argc, argv, &i, "--const", &v)) != 0)
			rc = r < 0 ? EXIT_USAGE : (consts[nconsts++] = v, 0);
		else if ((r = cli_opt_value(argc, argv, &i, "-o", &v)) != 0)
			rc = r < 0 ? EXIT_USAGE : once("-o", &out, v);
		else if (strcmp(argv[i], "--time") == 0)
			timing = true;
		else if (argv[i][0] == '-') {
			cli_usage_error("compile: unknown option '%s'%s", argv[i],
			                strchr(argv[i], '.') ? " (a FILE whose name starts with '-': put '--' before it)"
			                                     : "");
			rc = EXIT_USAGE;
		} else
			rc = compile_operand(argv[i], &file, &kernel);
	}
	if (!rc && !file) {
		cli_usage_error("compile: missing FILE.tile");
		rc = EXIT_USAGE;
	}
	if (!rc && out && strcmp(out, "-") != 0 && same_file(file, out)) {
		fprintf(stderr, "tile: error: -o '%s' is the kernel's source file '%s'; name another output file\n",
		        out, file);
		rc = EXIT_USER;
	}
	if (!rc)
		rc = target_for_emit(&co, emit);
	tile_context *ctx = NULL;
	tile_module *mod = NULL;
	if (!rc && cli_context(&co, &ctx) != TILE_OK)
		rc = EXIT_USER;
	if (!rc && tile_module_load_file(ctx, file, &mod) != TILE_OK) {
		cli_report(ctx);
		rc = EXIT_USER;
	}
	/* the files it imports are sources too: -o over one loses it */
	const char *dep = !rc && out && strcmp(out, "-") != 0 ? cli_source_at(mod, out) : NULL;
	if (dep) {
		fprintf(stderr, "tile: error: -o '%s' is '%s', a module the kernel's file imports; name another "
		        "output file\n", out, dep);
		rc = EXIT_USER;
	}
	bool need_kernel = !emit || strcmp(emit, "ast") != 0;
	if (!rc && need_kernel && !kernel && !(kernel = cli_default_kernel(mod)))
		rc = EXIT_USAGE;
	if (!rc)
		rc = cli_dump(ctx, mod, kernel, emit, sig, consts, nconsts, &co, out, timing);
	tile_module_destroy(mod);
	tile_context_destroy(ctx);
	free(consts);
	return rc;
}

/* run_cmd.c: `tile run FILE KERNEL ...`: its arguments sorted into the target's options,
 * FILE and KERNEL (also after "--") and the rest, which cli_run_kernel (run.c) parses and
 * runs. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "util/util.h"

/* An option of tile run after the target's (cli_run_kernel parses them) */
static bool run_option(const char *a)
{
	static const char *const opts[] = {"--print", "--no-fp-fusion", "--debug", "--grid", "--out-dir",
	                                   "--num-warps", "--num-stages"};
	for (size_t i = 0; i < COUNTOF(opts); i++) {
		size_t n = strlen(opts[i]);
		if (strncmp(a, opts[i], n) == 0 && (a[n] == 0 || (a[n] == '=' && i >= 3)))
			return true;
	}
	return false;
}

int cmd_run(int argc, char **argv)
{
	CommonOpts co = {0};
	const char *file = NULL, *kernel = NULL;
	char **rest = xcalloc((size_t)argc + 1, sizeof *rest);
	int nrest = 0, rc = 0;
	bool operands = false; /* after "--" none is an option: a FILE named -k.py */
	for (int i = 0; i < argc && !rc; i++) {
		const char *a = argv[i];
		int r;
		if (!operands && strcmp(a, "--") == 0) {
			operands = true;
		} else if (operands && file && kernel && a[0] == '-') {
			cli_usage_error("run: '%s' after '--' is no NAME=VALUE (options go before '--')", a);
			rc = EXIT_USAGE;
		} else if (operands && file && kernel) {
			rest[nrest++] = argv[i];
		} else if (operands) {
			*(file ? &kernel : &file) = a;
		} else if (strcmp(a, "--target") == 0 || strncmp(a, "--target=", 9) == 0 ||
		    strncmp(a, "--emulate", 9) == 0) {
			r = cli_common_opt(argc, argv, &i, &co);
			rc = r < 0 ? EXIT_USAGE : 0;
		} else if (strcmp(a, "--print") == 0) {
			rest[nrest++] = argv[i];
		} else if (strcmp(a, "--grid") == 0 || strcmp(a, "--out-dir") == 0 ||
		           strcmp(a, "--num-warps") == 0 || strcmp(a, "--num-stages") == 0) {
			rest[nrest++] = argv[i];
			if (i + 1 < argc)
				rest[nrest++] = argv[++i];
		} else if (a[0] == '-' && !run_option(a)) {
			/* said now: `tile run -k.py k` said "cannot open 'k'" */
			cli_usage_error("run: unknown option '%s'%s", a,
			                strchr(a, '.') ? " (a FILE whose name starts with '-': put '--' before it)" : "");
			rc = EXIT_USAGE;
		} else if (a[0] == '-' || strchr(a, '=')) {
			rest[nrest++] = argv[i];
		} else if (!file) {
			file = a;
		} else if (!kernel) {
			kernel = a;
		} else {
			cli_usage_error("unexpected argument '%s' (arguments are NAME=VALUE)", a);
			rc = EXIT_USAGE;
		}
	}
	if (!rc && !file) {
		cli_usage_error("run: missing FILE.tile");
		rc = EXIT_USAGE;
	}
	tile_context *ctx = NULL;
	tile_module *mod = NULL;
	if (!rc && cli_context(&co, &ctx) != TILE_OK)
		rc = EXIT_USER;
	if (!rc && tile_module_load_file(ctx, file, &mod) != TILE_OK) {
		cli_report(ctx);
		rc = EXIT_USER;
	}
	if (!rc && !kernel && !(kernel = cli_default_kernel(mod)))
		rc = EXIT_USAGE;
	if (!rc)
		rc = cli_run_kernel(ctx, mod, kernel, nrest, rest, &co, false);
	tile_module_destroy(mod);
	tile_context_destroy(ctx);
	free(rest);
	return rc;
}

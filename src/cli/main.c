/* main.c: the `tile` command: dispatch, --help, --version, shared helpers. */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "config.h"
#include "jit/cuda.h"
#include "jit/nvrtc.h"

static const char usage_text[] =
        "usage: tile COMMAND [ARGS]\n"
        "\n"
        "commands:\n"
        "  compile FILE.tile [KERNEL] [--signature SIG] [--const NAME=V]... [--emit FORM]\n"
        "          [-o OUT] [--time] [--target T] [--num-warps N] [--num-stages N] "
        "[--emulate=cuda]\n"
        "          [--no-fp-fusion] [--debug]\n"
        "      compile a kernel (KERNEL may be left out when the file has one entry point);\n"
        "      FORM: ast tir layout thread llvm asm cuda ptx cubin (ast needs no kernel)\n"
        "  run FILE.tile KERNEL --grid X[,Y[,Z]] [--out-dir DIR] [--print] [--target T] [--num-warps N]\n"
        "          [--num-stages N] [--emulate=cuda] [--no-fp-fusion] [--debug] NAME=VALUE...\n"
        "      run a kernel; every parameter is bound by name: NAME=@file.npy for pointers\n"
        "      (NAME=@file.npy:bf16 views the array's bits as another dtype of the same size),\n"
        "      Python literals for scalars and constexprs (123, 0.5, True, None, 'str', "
        "tl.float16);\n"
        "      --out-dir writes every pointer argument back as DIR/NAME.npy; --print prints them\n"
        "  cache ls | cache clear\n"
        "      list or empty the kernel cache ($TILE_CACHE_DIR, $XDG_CACHE_HOME/tile, "
        "~/.cache/tile)\n"
        "  repl\n"
        "      interactive: type kernel source, a blank line to define it, then\n"
        "      :run KERNEL --grid N ARGS..., :emit FORM [KERNEL] [--signature SIG], :quit\n"
        "\n"
        "  --help      show this message\n"
        "  --version   show the versions of tile, LLVM, nvrtc and the CUDA driver\n"
        "\n"
        "environment: TILE_TARGET (cpu, cuda, cuda-emu, sm_80...), TILE_CACHE_DIR,\n"
        "             TILE_PATH (':'-separated directories searched for imported modules)\n"
        "exit status: 0 success, 1 error in the kernel or its arguments, 2 usage error\n";

/* ---- helpers ---------------------------------------------------------------------- */

void cli_usage_error(const char *fmt, ...)
{
	va_list ap;
	fputs("tile: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n(run 'tile --help' for usage)\n", stderr);
}

int cli_opt_value(int argc, char **argv, int *i, const char *name, const char **val)
{
	const char *a = argv[*i];
	size_t n = strlen(name);
	if (strncmp(a, name, n) != 0)
		return 0;
	if (a[n] == '=') {
		*val = a + n + 1;
		return 1;
	}
	if (a[n] != 0)
		return 0;
	if (*i + 1 >= argc) {
		cli_usage_error("option '%s' needs a value", name);
		return -1;
	}
	*val = argv[++*i];
	return 1;
}

bool cli_parse_int(const char *s, int *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < -2147483647L || v > 2147483647L)
		return false;
	*out = (int)v;
	return true;
}

static int int_opt(const char *name, const char *v, int *out)
{
	int n;
	if (!cli_parse_int(v, &n) || n <= 0) {
		cli_usage_error("%s needs a positive integer, got '%s'", name, v);
		return -1;
	}
	if (*out) { /* not "the last wins", as for every other option */
		cli_usage_error("%s is given twice (%d and %d)", name, *out, n);
		return -1;
	}
	*out = n;
	return 1;
}

/* A flag without a value: 1 when arg is it (set now), -1 when it was given
 * before (a usage error), 0 when arg is another option. */
static int flag_opt(const char *arg, const char *name, bool *seen)
{
	if (strcmp(arg, name) != 0)
		return 0;
	if (*seen) {
		cli_usage_error("%s is given twice", name);
		return -1;
	}
	*seen = true;
	return 1;
}

int cli_common_opt(int argc, char **argv, int *i, CommonOpts *o)
{
	const char *v;
	int r;
	if (strcmp(argv[*i], "--emulate=cuda") == 0) {
		/* it names the target cuda-emu: with --target it was taken over that one */
		if (o->emulate_cuda || o->target) {
			if (o->emulate_cuda)
				cli_usage_error("--emulate=cuda is given twice");
			else
				cli_usage_error("--emulate=cuda is given with --target %s (it is --target cuda-emu)",
				                o->target);
			return -1;
		}
		o->emulate_cuda = true;
		return 1;
	}
	if ((r = flag_opt(argv[*i], "--no-fp-fusion", &o->no_fp_fusion)) != 0 ||
	    (r = flag_opt(argv[*i], "--debug", &o->debug)) != 0)
		return r;
	if (strncmp(argv[*i], "--emulate", 9) == 0) {
		cli_usage_error("--emulate takes 'cuda' (--emulate=cuda)");
		return -1;
	}
	if ((r = cli_opt_value(argc, argv, i, "--target", &v)) != 0) {
		if (r > 0 && o->target) {
			cli_usage_error("--target is given twice ('%s' and '%s')", o->target, v);
			return -1;
		}
		if (r > 0 && o->emulate_cuda) {
			cli_usage_error("--target %s is given with --emulate=cuda (which is --target cuda-emu)", v);
			return -1;
		}
		if (r > 0)
			o->target = v;
		return r;
	}
	if ((r = cli_opt_value(argc, argv, i, "--num-warps", &v)) != 0)
		return r < 0 ? r : int_opt("--num-warps", v, &o->num_warps);
	if ((r = cli_opt_value(argc, argv, i, "--num-stages", &v)) != 0)
		return r < 0 ? r : int_opt("--num-stages", v, &o->num_stages);
	return 0;
}

void cli_report(tile_context *ctx)
{
	const char *msg = tile_errmsg(ctx);
	size_t n = strlen(msg);
	if (n && msg[n - 1] == '\n')
		fputs(msg, stderr);
	else
		fprintf(stderr, "tile: error: %s\n", n ? msg : "unknown error");
}

static void print_warning(void *user, const tile_diagnostic *d)
{
	(void)user;
	if (d->level != TILE_DIAG_ERROR) /* errors are reported once, from tile_errmsg */
		fputs(d->rendered, stderr);
}

tile_status cli_context(const CommonOpts *o, tile_context **ctx)
{
	tile_context_options opt = {0};
	opt.target = o->emulate_cuda ? "cuda-emu" : o->target;
	opt.num_warps = o->num_warps;
	opt.num_stages = o->num_stages;
	opt.on_diagnostic = print_warning;
	char why[512] = "";
	opt.errbuf = why;
	opt.errbuf_size = sizeof why;
	tile_status st = tile_context_create(ctx, &opt);
	if (st != TILE_OK)
		fprintf(stderr, "tile: error: %s\n", why[0] ? why : tile_status_string(st));
	return st;
}

/* ---- --version ---------------------------------------------------------------------- */

static void print_driver_version(void)
{
	static const char *const libs[] = {"libcuda.so.1", "libcuda.so"};
	for (size_t i = 0; i < COUNTOF(libs); i++) {
		void *h = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);
		if (!h)
			continue;
		int (*get)(int *) = NULL;
		void *sym = dlsym(h, "cuDriverGetVersion");
		memcpy(&get, &sym, sizeof sym);
		int v = 0;
		if (get && get(&v) == 0) {
			printf("CUDA driver: %d.%d\n", v / 1000, (v % 1000) / 10);
			dlclose(h);
			return;
		}
		dlclose(h);
	}
	printf("CUDA driver: no driver\n");
}

/* The device --target auto compiles for, with the architecture that goes into
 * cache keys (sm_90a on Hopper). */
static void print_gpu(void)
{
	CudaDriver d;
	char err[512];
	if (!cuda_open(&d, err, sizeof err)) {
		printf("GPU: none (%s)\n", err);
		return;
	}
	char arch[16];
	int major, minor;
	cuda_target_name(&d, arch, sizeof arch);
	cuda_device_arch(&d, &major, &minor);
	printf("GPU: %s (%s, compute capability %d.%d)\n", d.device_name, arch, major, minor);
	cuda_close(&d);
}

static int print_version(void)
{
	printf("tile %s\n", tile_version());
	printf("LLVM %s\n", TILE_LLVM_VERSION);
	int maj, min;
	if (nvrtc_version(&maj, &min))
		printf("nvrtc: %d.%d\n", maj, min);
	else
		printf("nvrtc: not found\n");
	print_driver_version();
	print_gpu();
	return 0;
}

static int run_command(int argc, char **argv)
{
	if (argc < 2) {
		fputs(usage_text, stderr);
		return EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0)
		return print_version();
	for (int i = 2; i < argc; i++) /* `tile run --help`: the usage, not "missing FILE" */
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(usage_text, stdout);
			return 0;
		}
	if (strcmp(cmd, "compile") == 0)
		return cmd_compile(argc - 2, argv + 2);
	if (strcmp(cmd, "run") == 0)
		return cmd_run(argc - 2, argv + 2);
	if (strcmp(cmd, "repl") == 0)
		return cmd_repl(argc - 2, argv + 2);
	if (strcmp(cmd, "cache") == 0)
		return cmd_cache(argc - 2, argv + 2);
	cli_usage_error("unknown command '%s'", cmd);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	/* as CPython: a write past the file size limit (ulimit -f) fails with
	 * EFBIG, which is reported, instead of SIGXFSZ killing the run with its
	 * results unwritten */
	signal(SIGXFSZ, SIG_IGN);
	int rc = run_command(argc, argv);
	/* output that could not be written (a full disk, a closed pipe) is an error,
	 * not a success with the dump or the binary lost */
	errno = 0;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "tile: error: cannot write the output: %s\n",
		        strerror(errno ? errno : EIO));
		return rc ? rc : EXIT_USER;
	}
	return rc;
}

/* cli.h: the `tile` command.
 *
 *   main.c     dispatch, --help, --version, option scanning helpers
 *   compile.c  tile compile (dumps and binaries, through the driver)
 *   run.c      tile run, and argument binding shared with the REPL
 *   run_guard.c  host arrays in guarded mappings (tile run on cpu and cuda-emu)
 *   repl.c     tile repl
 *   cache_cmd.c tile cache ls|clear
 *   print_array.c  arrays as NumPy prints them (tile run --print, :run)
 *   inline_array.c arrays written in an argument: zeros(8), [1, 2], rand((4, 4), fp16)
 *
 * Exit status: 0 success, 1 user error (diagnostics, bad arguments or data),
 * 2 usage error (unknown option, missing operand).
 */
#ifndef TILE_CLI_H
#define TILE_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "api/api.h"
#include "tile.h"
#include "util/npy.h"

enum { EXIT_USER = 1, EXIT_USAGE = 2 };

/* Options every command that compiles understands. */
typedef struct CommonOpts {
	const char *target; /* NULL = auto */
	int num_warps, num_stages;
	bool emulate_cuda;
	bool no_fp_fusion; /* --no-fp-fusion: Triton's enable_fp_fusion=False */
	bool debug;        /* --debug: Triton's debug=True (device_assert kept) */
} CommonOpts;

/* Option scanning: matches "--name VALUE" and "--name=VALUE"; advances *i.
 * Returns 1 if matched (with *val set), 0 if not this option, -1 on a missing value. */
int cli_opt_value(int argc, char **argv, int *i, const char *name, const char **val);
/* Parses --target/--num-warps/--num-stages/--emulate=cuda/--no-fp-fusion at argv[*i]:
 * 1 consumed, 0 not one of them, -1 usage error (message printed). */
int cli_common_opt(int argc, char **argv, int *i, CommonOpts *o);
bool cli_parse_int(const char *s, int *out);
void cli_usage_error(const char *fmt, ...);
/* Prints the context's last error to stderr: rendered diagnostics verbatim,
 * other messages as "tile: error: MSG". */
void cli_report(tile_context *ctx);
/* A context for the CLI: warnings to stderr, device_print to stdout. */
tile_status cli_context(const CommonOpts *o, tile_context **ctx);

/* Runs KERNEL of mod with the tile-run arguments in argv[0..argc): --grid,
 * --num-warps, --num-stages, --out-dir, --print and NAME=VALUE bindings;
 * print: as if --print were given. Returns an exit status. */
int cli_run_kernel(tile_context *ctx, tile_module *mod, const char *kernel, int argc, char **argv,
                   const CommonOpts *base, bool print);
/* a as NumPy prints it, after a "NAME: dtype[shape]" line (print_array.c);
 * view: the dtype the kernel saw its elements as */
void cli_print_array(FILE *out, const char *name, const NpyArray *a, tile_dtype view);
/* Whether an argument value is an inline array (zeros(...), [...], ...). */
bool cli_is_inline_array(const char *value);
/* Makes the array an inline-array value describes (inline_array.c). 0, or -1
 * with a one-sentence message in err. *view: bf16/fp8 for arrays stored as
 * unsigned integers of that width, else TILE_DTYPE_UNSPECIFIED. */
int cli_inline_array(const char *name, const char *value, NpyArray *out, tile_dtype *view,
                     char *err, size_t errlen);
/* Compiles or dumps: the work behind `tile compile` after option parsing. */
int cli_dump(tile_context *ctx, tile_module *mod, const char *kernel, const char *emit,
             const char *signature, const char **consts, int nconsts, const CommonOpts *o,
             const char *out_path, bool timing);
/* The kernel to use when none is named: the only @jit function that no other
 * function calls. NULL (with a message) when that is ambiguous. */
const char *cli_default_kernel(tile_module *mod);
/* The name of mod's file, or of a file it imports, that path is the same file as
 * (through links); NULL if none. An output there would lose a source. */
const char *cli_source_at(const tile_module *mod, const char *path);

int cmd_compile(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_repl(int argc, char **argv);
int cmd_cache(int argc, char **argv);

#endif

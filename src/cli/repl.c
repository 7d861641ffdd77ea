/* repl.c: `tile repl`, a small interactive loop.
 *
 * Kernel source is typed as is; a blank line (or a command) ends a definition, which is
 * added to everything defined so far (so helpers stay visible). Commands:
 *   :run KERNEL --grid X[,Y[,Z]] [--out-dir DIR] NAME=VALUE...   (as tile run --print)
 *   :emit FORM [KERNEL] [--signature SIG] [--const NAME=V]...    (as tile compile --emit)
 *   :kernels   :source   :reset   :help   :quit
 * Reads stdin to its end (prompts only on a terminal). Exits 0, or 1 when
 * any definition or command failed (useful when it is fed a script).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"

typedef struct Repl {
	tile_context *ctx;
	tile_module *mod;
	StrBuf source;  /* everything defined so far */
	StrBuf pending; /* the definition being typed */
	CommonOpts co;
	bool tty;
	int failures;
} Repl;

static const char repl_help[] = "type kernel source, then a blank line to define it; commands:\n"
                                "  :run KERNEL --grid X[,Y[,Z]] [--out-dir DIR] NAME=VALUE...   (prints the arrays after;\n"
                                "       an array: @file.npy, zeros(8), arange(8, fp16), rand((4, 4)), [1, 2, 3])\n"
                                "  :emit FORM [KERNEL] [--signature SIG] [--const NAME=V]...   "
                                "FORM: ast tir layout thread llvm asm cuda ptx\n"
                                "  :kernels   :source   :reset   :help   :quit\n";

/* Splits at blanks; quotes, parentheses and brackets keep blanks inside a
 * token (x=zeros((2, 4), fp16)) and are kept in it. Returns -1 when there are
 * more than max tokens, -2 when a quote is not closed (a shell refuses that
 * line; here it took the rest of the line into one word), with *open_quote
 * the word it opens in. */
static int tokenize(char *s, char **tok, int max, char **open_quote)
{
	int n = 0;
	while (*s) {
		while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
			s++;
		if (!*s)
			break;
		if (n == max)
			return -1;
		tok[n++] = s;
		char quote = 0;
		int depth = 0;
		for (; *s; s++) {
			if (quote) {
				if (*s == quote)
					quote = 0;
			} else if (*s == '\'' || *s == '"') {
				quote = *s;
			} else if (*s == '(' || *s == '[') {
				depth++;
			} else if ((*s == ')' || *s == ']') && depth > 0) {
				depth--;
			} else if (depth == 0 && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')) {
				break;
			}
		}
		if (quote) {
			while (s > tok[n - 1] && (s[-1] == '\n' || s[-1] == '\r'))
				*--s = 0;
			*open_quote = tok[n - 1];
			return -2;
		}
		if (*s)
			*s++ = 0;
	}
	return n;
}

static void define(Repl *r)
{
	StrBuf all = {0};
	sb_putn(&all, r->source.s ? r->source.s : "", r->source.len);
	sb_putn(&all, r->pending.s, r->pending.len); /* with any NUL byte, for the lexer to report */
	tile_module *m = NULL;
	if (tile_module_load_source(r->ctx, "<repl>", all.s, all.len, &m) != TILE_OK) {
		cli_report(r->ctx);
		r->failures++;
		sb_free(&all);
	} else {
		tile_module_destroy(r->mod);
		r->mod = m;
		sb_free(&r->source);
		r->source = all;
		if (r->tty) {
			printf("defined:");
			for (int i = 0; i < tile_module_num_kernels(m); i++)
				printf(" %s", tile_module_kernel_name(m, i));
			printf("\n");
		}
	}
	sb_free(&r->pending);
}

/* A value quoted as a shell would ('*fp32,i32' typed as in `tile compile`):
 * the quotes go, unless the value holds other quotes of that kind ('a',i32,'b'). */
static char *unquote(char *v)
{
	size_t n = strlen(v);
	if (n >= 2 && (v[0] == '\'' || v[0] == '"') && v[n - 1] == v[0] &&
	    !memchr(v + 1, v[0], n - 2)) {
		v[n - 1] = 0;
		return v + 1;
	}
	return v;
}

static int cmd_emit(Repl *r, char **tok, int n)
{
	const char *kernel = NULL, *sig = NULL;
	const char *consts[64];
	int nconsts = 0;
	for (int i = 2; i < n; i++) {
		const char *v;
		int k;
		if ((k = cli_opt_value(n, tok, &i, "--signature", &v)) != 0) {
			if (k < 0)
				return EXIT_USAGE;
			if (sig) {
				cli_usage_error(":emit: --signature is given twice");
				return EXIT_USAGE;
			}
			sig = unquote((char *)v);
		} else if ((k = cli_opt_value(n, tok, &i, "--const", &v)) != 0) {
			if (k < 0)
				return EXIT_USAGE;
			if (nconsts == (int)COUNTOF(consts)) {
				cli_usage_error(":emit: more than %d --const options", (int)COUNTOF(consts));
				return EXIT_USAGE;
			}
			consts[nconsts++] = unquote((char *)v);
		} else if (tok[i][0] != '-' && !kernel) {
			kernel = tok[i];
		} else {
			cli_usage_error(":emit: unexpected argument '%s'", tok[i]);
			return EXIT_USAGE;
		}
	}
	if (strcmp(tok[1], "ast") != 0 && !kernel && !(kernel = cli_default_kernel(r->mod)))
		return EXIT_USAGE;
	return cli_dump(r->ctx, r->mod, kernel, tok[1], sig, consts, nconsts, &r->co, NULL, false);
}

static bool host_target(tile_context *ctx)
{
	const char *t = tile_context_target(ctx);
	return t && (!strcmp(t, "cpu") || !strcmp(t, "cuda-emu"));
}

/* :run on the CPU targets runs in a child process: a kernel that faults (an
 * offset past every array) ends tile run's process, and would end the
 * session with everything typed in it; Ctrl-C stops a kernel that never
 * ends and not the session. The session's context never launches (only
 * children do), so its CPU workers never start and a child has no threads
 * to miss; compiled kernels reach later runs through the disk cache. */
static int run_in_child(Repl *r, char **tok, int n)
{
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) /* no process to spare: run here */
		return cli_run_kernel(r->ctx, r->mod, tok[1], n - 2, tok + 2, &r->co, true);
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		int rc = cli_run_kernel(r->ctx, r->mod, tok[1], n - 2, tok + 2, &r->co, true);
		if (rc == 0 && r->tty)
			printf("ok\n");
		fflush(stdout);
		fflush(stderr);
		_exit(rc);
	}
	struct sigaction ign, old;
	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &old);
	int st = 0;
	pid_t w;
	while ((w = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
		;
	sigaction(SIGINT, &old, NULL);
	if (w < 0)
		return EXIT_USER;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		fprintf(stderr, "tile: error: the run of '%s' ended by signal %d (%s); the session goes on\n", tok[1],
		        WTERMSIG(st), strsignal(WTERMSIG(st)));
	return EXIT_USER;
}

/* Returns false on :quit. */
/* A line naming one of the commands: ':' then a command word. Only these end a
 * pending definition, since a line of source may start with ':' too (a slice
 * or a dict continued from the line before). */
static bool is_command(const char *line)
{
	static const char *const names[] = {"quit", "q", "exit", "help", "source", "reset", "kernels", "run", "emit"};
	if (line[0] != ':') return false;
	size_t n = strcspn(line + 1, " \t\r\n");
	for (size_t i = 0; i < COUNTOF(names); i++)
		if (strlen(names[i]) == n && !strncmp(line + 1, names[i], n)) return true;
	return false;
}

static bool command(Repl *r, char *line)
{
	char *tok[1024];
	char *open_quote = NULL;
	int n = tokenize(line, tok, (int)COUNTOF(tok), &open_quote);
	if (n == -2) {
		fprintf(stderr, "tile: error: unterminated quote in '%s': close it\n", open_quote);
		r->failures++;
		return true;
	}
	if (n < 0) {
		fprintf(stderr, "tile: error: a command of more than %d words\n", (int)COUNTOF(tok));
		r->failures++;
		return true;
	}
	if (n == 0)
		return true;
	const char *c = tok[0];
	int rc = 0;
	/* the commands that take nothing refuse what follows instead of dropping
	 * it: ':reset now' reset the session, ':quit now' ended it */
	static const char *const bare[] = {":quit", ":q", ":exit", ":help", ":source", ":reset", ":kernels"};
	for (size_t i = 0; n > 1 && i < COUNTOF(bare); i++) {
		if (strcmp(c, bare[i]) == 0) {
			fprintf(stderr, "tile: '%s' takes no arguments, got '%s' (:help lists the commands)\n", c, tok[1]);
			r->failures++;
			return true;
		}
	}
	if (strcmp(c, ":quit") == 0 || strcmp(c, ":q") == 0 || strcmp(c, ":exit") == 0)
		return false;
	if (strcmp(c, ":help") == 0) {
		fputs(repl_help, stdout);
	} else if (strcmp(c, ":source") == 0) {
		fputs(r->source.s ? r->source.s : "", stdout);
	} else if (strcmp(c, ":reset") == 0) {
		sb_free(&r->source);
		tile_module_destroy(r->mod);
		r->mod = NULL;
	} else if (!r->mod && (strcmp(c, ":kernels") == 0 || strcmp(c, ":run") == 0 ||
	                       strcmp(c, ":emit") == 0)) {
		fprintf(stderr,
		        "tile: error: nothing is defined yet (type a kernel, then a blank line)\n");
		rc = EXIT_USER;
	} else if (strcmp(c, ":kernels") == 0) {
		for (int i = 0; i < tile_module_num_kernels(r->mod); i++)
			printf("%s\n", tile_module_kernel_name(r->mod, i));
	} else if (strcmp(c, ":run") == 0) {
		if (n < 2) {
			cli_usage_error(":run KERNEL --grid X ARGS...");
			rc = EXIT_USAGE;
		} else if (host_target(r->ctx)) {
			rc = run_in_child(r, tok, n);
		} else if ((rc = cli_run_kernel(r->ctx, r->mod, tok[1], n - 2, tok + 2, &r->co, true)) ==
		                   0 &&
		           r->tty) {
			printf("ok\n");
		}
	} else if (strcmp(c, ":emit") == 0) {
		if (n < 2) {
			cli_usage_error(":emit FORM [KERNEL] [--signature SIG]");
			rc = EXIT_USAGE;
		} else {
			rc = cmd_emit(r, tok, n);
		}
	} else {
		fprintf(stderr, "tile: unknown command '%s' (:help lists them)\n", c);
		rc = EXIT_USAGE;
	}
	if (rc)
		r->failures++;
	fflush(stdout);
	return true;
}

static bool blank(const char *s)
{
	for (; *s; s++)
		if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
			return false;
	return true;
}
/* One line of the input, as getline reads it, ended by \n, \r\n or a lone \r
 * (a script with CR line ends, which Python reads as lines, was one line);
 * its end is stored as \n. *after_cr carries a line's ending \r to the next
 * call, which skips a \n right after it: no read waits for the byte after a
 * \r (a terminal would wait for another key). */
static ssize_t read_line(char **line, size_t *cap, FILE *in, bool *after_cr)
{
	size_t n = 0;
	for (int c; (c = getc(in)) != EOF;) {
		bool skip = *after_cr && n == 0 && c == '\n';
		*after_cr = false;
		if (skip)
			continue;
		if (n + 2 > *cap) {
			size_t nc = *cap ? *cap * 2 : 128;
			char *p = realloc(*line, nc);
			if (!p) {
				errno = ENOMEM;
				return -1;
			}
			*line = p;
			*cap = nc;
		}
		*after_cr = c == '\r';
		(*line)[n++] = c == '\r' ? '\n' : (char)c;
		if (c == '\n' || c == '\r')
			break;
	}
	if (n == 0)
		return -1;
	(*line)[n] = 0;
	return (ssize_t)n;
}


int cmd_repl(int argc, char **argv)
{
	Repl r = {0};
	for (int i = 0; i < argc; i++) {
		int k = cli_common_opt(argc, argv, &i, &r.co);
		if (k <= 0) {
			if (k == 0)
				cli_usage_error("repl: unexpected argument '%s'", argv[i]);
			return EXIT_USAGE;
		}
	}
	if (cli_context(&r.co, &r.ctx) != TILE_OK)
		return EXIT_USER;
	r.tty = isatty(0) && isatty(1);
	if (r.tty)
		printf("tile %s (%s); :help for commands\n", tile_version(),
		       tile_context_target(r.ctx));
	char *line = NULL;
	size_t cap = 0;
	bool after_cr = false;
	for (;;) {
		if (r.tty) {
			fputs(r.pending.len ? "...> " : "tile> ", stdout);
			fflush(stdout);
		}
		errno = 0;
		ssize_t len = read_line(&line, &cap, stdin, &after_cr);
		if (len < 0) {
			if (ferror(stdin)) { /* not the end of the input: it could not be read */
				fprintf(stderr, "tile: error: cannot read the input: %s\n",
				        strerror(errno ? errno : EIO));
				r.failures++;
			}
			break;
		}
		bool nul = memchr(line, 0, (size_t)len) != NULL;
		if (r.pending.len && !nul && is_command(line))
			define(&r); /* a command right after a definition ends it, as a blank line does */
		if (r.pending.len == 0 && line[0] == ':') {
			if (nul) { /* the words after it would be lost */
				fprintf(stderr, "tile: error: a NUL byte in the command\n");
				r.failures++;
			} else if (!command(&r, line)) {
				break;
			}
		} else if (blank(line) && !nul) {
			if (r.pending.len)
				define(&r);
		} else {
			sb_putn(&r.pending, line, (size_t)len); /* a NUL too: the lexer reports it */
		}
	}
	if (r.pending.len)
		define(&r);
	free(line);
	sb_free(&r.source);
	sb_free(&r.pending);
	tile_module_destroy(r.mod);
	tile_context_destroy(r.ctx);
	return r.failures ? EXIT_USER : 0;
}

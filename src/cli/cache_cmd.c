/* cache_cmd.c: `tile cache ls` and `tile cache clear`. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"

typedef struct ListState {
	int count;
	uint64_t bytes;
} ListState;

static void print_entry(void *user, const char *name, size_t bytes, double mtime)
{
	ListState *s = user;
	char when[32] = "?";
	time_t t = (time_t)mtime;
	struct tm tm;
	if (localtime_r(&t, &tm))
		strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
	printf("%-70s %10zu  %s\n", name, bytes, when);
	s->count++;
	s->bytes += bytes;
}

static void print_diag(void *user, const Diag *d)
{
	(void)user;
	char *r = diag_render(d);
	fputs(r, stderr);
	free(r);
}

int cmd_cache(int argc, char **argv)
{
	if (argc != 1 || (strcmp(argv[0], "ls") != 0 && strcmp(argv[0], "clear") != 0)) {
		cli_usage_error("usage: tile cache ls | tile cache clear");
		return EXIT_USAGE;
	}
	DiagSink diags;
	diag_init(&diags);
	diags.callback = print_diag;
	Cache c;
	/* not "compiling without a cache" (nothing compiles here): the error
	 * below gives the reason */
	cache_open_existing(&c, NULL, NULL); /* listing or clearing creates nothing */
	c.diags = &diags;
	int rc = 0;
	/* an absent directory has nothing to list or remove */
	bool absent = c.dir && access(c.dir, F_OK) != 0 && errno == ENOENT;
	if (!c.dir) {
		fprintf(stderr, "tile: error: no cache directory (set TILE_CACHE_DIR or HOME)\n");
		rc = EXIT_USER;
	} else if (strcmp(argv[0], "ls") == 0) {
		ListState s = {0};
		if (!absent && cache_list(&c, print_entry, &s) < 0) {
			fprintf(stderr, "tile: error: cannot read the cache directory '%s': %s\n",
			        c.dir, strerror(errno));
			rc = EXIT_USER;
		} else {
			printf("%d entr%s, %llu bytes in %s\n", s.count, s.count == 1 ? "y" : "ies",
			       (unsigned long long)s.bytes, c.dir);
		}
	} else {
		int n = absent ? 0 : cache_clear(&c);
		if (n < 0) {
			fprintf(stderr, "tile: error: cannot clear the cache directory '%s': %s\n",
			        c.dir, strerror(errno));
			rc = EXIT_USER;
		} else {
			printf("removed %d entr%s from %s\n", n, n == 1 ? "y" : "ies", c.dir);
		}
	}
	cache_close(&c);
	diag_free(&diags);
	return rc;
}

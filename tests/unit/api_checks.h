/* api_checks.h: the CHECK macros of the C API tests. The including file
 * defines `static int failures;` and, for CHECK_ST/CHECK_MSG, a
 * `tile_context *ctx` in scope. */
#ifndef TILE_TESTS_API_CHECKS_H
#define TILE_TESTS_API_CHECKS_H

#include <stdio.h>
#include <string.h>

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);   \
			failures++;                                                                \
		}                                                                                  \
	} while (0)
#define CHECK_ST(expr, want)                                                                       \
	do {                                                                                       \
		tile_status st_ = (expr);                                                          \
		if (st_ != (want)) {                                                               \
			fprintf(stderr, "%s:%d: %s gave '%s', expected '%s'\n  errmsg: %s\n",      \
			        __FILE__, __LINE__, #expr, tile_status_string(st_),                \
			        tile_status_string(want), ctx ? tile_errmsg(ctx) : "");            \
			failures++;                                                                \
		}                                                                                  \
	} while (0)
#define CHECK_MSG(needle)                                                                          \
	do {                                                                                       \
		if (!strstr(tile_errmsg(ctx), (needle))) {                                         \
			fprintf(stderr, "%s:%d: errmsg lacks '%s': %s\n", __FILE__, __LINE__,      \
			        (needle), tile_errmsg(ctx));                                       \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

#endif

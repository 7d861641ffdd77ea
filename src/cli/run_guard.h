/* run_guard.h: guarded host arrays for `tile run` (run_guard.c). */
#ifndef TILE_CLI_RUN_GUARD_H
#define TILE_CLI_RUN_GUARD_H

#include <stdbool.h>
#include <stddef.h>

#include "api/api.h"

enum { RUN_MAX_GUARDS = API_MAX_PARAMS };

/* Room for the array of the argument called name, guarded (the caller fills
 * it); NULL when the table is full or the mapping fails. */
void *run_guard_alloc(const char *name, size_t bytes);
/* Whether no slot is free for another array. */
bool run_guard_full(void);
/* Brackets a launch on a host target: a fault far from every array is then
 * the kernel's, reported as such. */
void run_guard_launch(bool on);
/* After a launch: whether the kernel left the bytes around every array
 * untouched; else prints an error naming the argument. */
bool run_guard_check(void);
void run_guard_free(void *p);

#endif

/* run_guard.c: the host arrays of `tile run` and the REPL's :run, each in a
 * guarded mapping.
 *
 * On host targets (cpu, cuda-emu) every array lives in its own mapping with
 * inaccessible pages on both sides, its end (rounded up to 64 bytes) at the
 * end of its pages: a kernel that indexes past an array (a grid or size too
 * big for the data) faults at once, and the handler names the argument,
 * instead of the kernel reading or corrupting other memory silently. The
 * accessible bytes of the mapping around the array (before it in its first
 * page, and the rounding after it) hold GUARD_FILL: a write there is lost
 * data no fault reports, so run_guard_check looks for it after the launch. The
 * CLI is single-kernel and exits, so the table is a plain static. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/run_guard.h"

enum { GUARD_FILL = 0xa5 };

typedef struct Guard {
	char *map;
	size_t maplen, bytes;
	const char *name; /* the argument's */
	char *data; /* the array; [map + page, data) and [data + bytes, map + maplen - page) hold GUARD_FILL */
	char *msg; /* heap, whole: a long parameter name cut a fixed buffer's message */
	size_t msglen;
} Guard;

static Guard guards[RUN_MAX_GUARDS];
static volatile sig_atomic_t nguards;
/* set while a kernel runs on a host target: a fault then is the kernel's,
 * even far from every argument (an offset of millions of elements) */
static volatile sig_atomic_t in_launch;
static const char wild_msg[] = "tile: error: the kernel accessed memory outside all of its arguments; "
                               "check its offsets and masks, --grid and the sizes passed\n";

/* Whether address a lies in g's mapping (an emptied slot has none). Compared as
 * integers: the addresses belong to different objects, and map may be NULL. */
static bool in_guard(const Guard *g, uintptr_t a)
{
	uintptr_t lo = (uintptr_t)g->map;
	return lo && a >= lo && a - lo < g->maplen;
}

static void on_fault(int sig, siginfo_t *si, void *uctx)
{
	(void)uctx;
	uintptr_t a = (uintptr_t)si->si_addr;
	for (int i = 0; i < nguards; i++)
		if (in_guard(&guards[i], a)) {
			ssize_t w = write(2, guards[i].msg, guards[i].msglen);
			(void)w;
			_exit(EXIT_USER);
		}
	if (in_launch) {
		ssize_t w = write(2, wild_msg, sizeof wild_msg - 1);
		(void)w;
		_exit(EXIT_USER);
	}
	signal(sig, SIG_DFL); /* not ours: the default action when it re-faults */
}

void *run_guard_alloc(const char *name, size_t bytes)
{
	int slot = 0;
	while (slot < nguards && guards[slot].map)
		slot++; /* a slot run_guard_free emptied (the REPL runs many kernels) */
	if (slot == RUN_MAX_GUARDS)
		return NULL;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t cap = (bytes + 63) & ~(size_t)63;
	size_t pages = (cap + page - 1) / page;
	if (cap < bytes || pages > (SIZE_MAX - 2 * page) / page)
		return NULL;
	size_t len = (pages + 2) * page;
	char *map = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		return NULL;
	if (pages && mprotect(map + page, pages * page, PROT_READ | PROT_WRITE) != 0) {
		munmap(map, len);
		return NULL;
	}
	static bool handler_set;
	if (!handler_set) {
		handler_set = true;
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = on_fault;
		sa.sa_flags = SA_SIGINFO;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGSEGV, &sa, NULL);
		sigaction(SIGBUS, &sa, NULL);
	}
	Guard *g = &guards[slot];
	g->map = NULL; /* filled in before the handler can see it */
	g->maplen = len;
	g->bytes = bytes;
	StrBuf m = {0};
	sb_printf(&m,
	          "tile: error: the kernel accessed memory outside argument '%s' (%zu bytes); "
	          "check --grid and the sizes passed\n",
	          name, bytes);
	free(g->msg); /* a slot run_guard_free emptied */
	g->msglen = m.len;
	g->msg = sb_take(&m);
	g->name = name;
	g->data = map + page + pages * page - cap;
	if (pages)
		memset(map + page, GUARD_FILL, pages * page);
	g->map = map;
	if (slot == nguards)
		nguards++;
	return g->data;
}

/* After a launch: whether the kernel left the bytes around every array as
 * run_guard_alloc filled them; else an error naming the argument (the write
 * landed outside the array but inside its mapping, where nothing faults,
 * and would be lost, or on a GPU corrupt other memory). */
bool run_guard_check(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	for (int i = 0; i < nguards; i++) {
		const Guard *g = &guards[i];
		if (!g->map || g->maplen <= 2 * page)
			continue;
		const unsigned char *lo = (const unsigned char *)g->map + page, *hi = lo + g->maplen - 2 * page;
		const unsigned char *d = (const unsigned char *)g->data, *e = d + g->bytes;
		for (const unsigned char *q = lo; q < hi; q++) {
			if (q == d)
				q = e;
			if (q < hi && *q != GUARD_FILL) {
				fprintf(stderr,
				        "tile: error: the kernel wrote outside argument '%s' (%zu bytes), at byte offset "
				        "%td; check --grid and the sizes passed\n",
				        g->name, g->bytes, q - d);
				return false;
			}
		}
	}
	return true;
}

void run_guard_free(void *p)
{
	for (int i = 0; i < nguards; i++)
		if (in_guard(&guards[i], (uintptr_t)p)) {
			munmap(guards[i].map, guards[i].maplen);
			guards[i].map = NULL;
			guards[i].maplen = 0;
			free(guards[i].msg);
			guards[i].msg = NULL;
		}
}

bool run_guard_full(void)
{
	for (int i = 0; i < nguards; i++)
		if (!guards[i].map)
			return false;
	return nguards == RUN_MAX_GUARDS;
}

void run_guard_launch(bool on) { in_launch = on && nguards > 0; }

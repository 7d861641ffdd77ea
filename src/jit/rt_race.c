/* rt_race.c: the shared-memory race checker of one CPU program instance (see
 * rt_race.h for the rules). Nothing here is shared between instances: the
 * header is in the kernel's frame, the shadow on the heap. */
#include "jit/rt_race.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/orc.h"

/* What the checker knows of one byte of shared memory. Epochs count the
 * barriers passed (from 1; 0 = never touched); w_ep = IN_FLIGHT while a
 * cp.async to the byte has not landed. */
typedef struct Shadow {
	int32_t w_ep, r_ep;
	int16_t w_thr, r_thr; /* r_thr = MANY: several threads read it in r_ep */
	uint8_t w_val;        /* the byte last written (same-value writes are benign) */
	uint8_t w_async;      /* written by a cp.async */
	const char *w_where, *r_where;
} Shadow;

enum { IN_FLIGHT = -1, MANY = -2 };

typedef struct RaceState {
	Shadow *sh; /* smem_bytes records, NULL until the first access */
	TileRuntimeHooks *rt;
	int32_t pid[3];
	int32_t smem_bytes, lanes, epoch;
	int32_t reported; /* an instance reports its first race only */
} RaceState;

_Static_assert(sizeof(RaceState) <= TILE_RACE_STATE_BYTES &&
                       _Alignof(RaceState) <= TILE_RACE_STATE_ALIGN,
               "the emitter's stack slot must hold the state");

void tile_rt_race_init(void *state, void *rt, const int32_t *pid, int32_t smem_bytes,
                       int32_t lanes)
{
	RaceState *s = state;
	memset(s, 0, sizeof *s);
	s->rt = rt;
	memcpy(s->pid, pid, sizeof s->pid);
	s->smem_bytes = smem_bytes > 0 ? smem_bytes : 0;
	s->lanes = lanes > 0 ? lanes : 32;
	s->epoch = 1;
}

static bool shadow(RaceState *s)
{
	if (!s->sh && s->smem_bytes)
		s->sh = calloc((size_t)s->smem_bytes, sizeof *s->sh);
	return s->sh != NULL;
}

static int who(const RaceState *s, char *buf, size_t n, int thr)
{
	if (thr == MANY)
		return snprintf(buf, n, "other threads");
	return snprintf(buf, n, "thread %d (warp %d, lane %d)", thr, thr / s->lanes, thr % s->lanes);
}

/* Reports the first race of the instance: thread t's `what` of byte b at
 * `where` conflicts with thread u's `prev` of it at `prev_where` (a copy in
 * flight when in_flight, else an access since the last barrier). */
static void report(RaceState *s, int t, const char *what, int32_t b, const char *where, int u,
                   const char *prev, const char *prev_where, bool in_flight)
{
	if (s->reported++ || !s->rt)
		return;
	__atomic_fetch_add(&s->rt->fault_count, 1, __ATOMIC_SEQ_CST);
	if (!s->rt->fault)
		return;
	char a[64], c[64], msg[768];
	who(s, a, sizeof a, t);
	who(s, c, sizeof c, u);
	snprintf(msg, sizeof msg,
	         "shared-memory race (TILE_RACECHECK): %s %s shared-memory byte %d at %s, which %s %s at "
	         "%s, %s (program (%d, %d, %d))",
	         a, what, (int)b, where ? where : "?", c, prev, prev_where ? prev_where : "?",
	         in_flight ? "and no cp.async wait has retired the copy yet" : "with no barrier between",
	         s->pid[0], s->pid[1], s->pid[2]);
	s->rt->fault(s->rt->user, msg);
}

/* A read of a byte no thread of the instance wrote: garbage on a GPU (here,
 * whatever the previous instance on this worker left). */
static void report_unwritten(RaceState *s, int t, int32_t b, const char *where)
{
	if (s->reported++ || !s->rt)
		return;
	__atomic_fetch_add(&s->rt->fault_count, 1, __ATOMIC_SEQ_CST);
	if (!s->rt->fault)
		return;
	char a[64], msg[512];
	who(s, a, sizeof a, t);
	snprintf(msg, sizeof msg,
	         "shared-memory race (TILE_RACECHECK): %s reads shared-memory byte %d at %s, which no "
	         "thread of the program wrote "
	         "(program (%d, %d, %d))",
	         a, (int)b, where ? where : "?", s->pid[0], s->pid[1], s->pid[2]);
	s->rt->fault(s->rt->user, msg);
}

static void read_byte(RaceState *s, Shadow *h, int32_t b, int t, const char *where)
{
	int32_t e = s->epoch;
	if (h->w_ep == 0)
		report_unwritten(s, t, b, where);
	else if (h->w_ep == IN_FLIGHT)
		report(s, t, "reads", b, where, h->w_thr, "copies into", h->w_where, true);
	else if (h->w_ep == e && h->w_thr != t)
		report(s, t, "reads", b, where, h->w_thr, h->w_async ? "copied (cp.async) into" : "wrote",
		       h->w_where, false);
	if (h->r_ep == e && h->r_thr != t)
		h->r_thr = MANY;
	else
		h->r_thr = (int16_t)t;
	h->r_ep = e;
	h->r_where = where;
}

static void write_byte(RaceState *s, Shadow *h, int32_t b, int t, int val, bool async,
                       const char *where)
{
	int32_t e = s->epoch;
	if (h->w_ep == IN_FLIGHT)
		report(s, t, "writes", b, where, h->w_thr, "copies into", h->w_where, true);
	/* another thread's write of the same value is benign (val < 0: unknown) */
	else if (h->w_ep == e && h->w_thr != t && (async || h->w_async || val < 0 || val != h->w_val))
		report(s, t, "writes", b, where, h->w_thr, h->w_async ? "copied (cp.async) into" : "wrote",
		       h->w_where, false);
	if (h->r_ep == e && h->r_thr != t)
		report(s, t, "writes", b, where, h->r_thr, "read", h->r_where, false);
	h->w_ep = async ? IN_FLIGHT : e;
	h->w_thr = (int16_t)t;
	h->w_val = val < 0 ? 0 : (uint8_t)val;
	h->w_async = async;
	h->w_where = where;
}

void tile_rt_race_access(void *state, const int32_t *off, const uint8_t *active,
                         const uint8_t *vals, int32_t nthreads, int32_t bytes, int32_t eb,
                         int32_t kind, const char *where)
{
	RaceState *s = state;
	if (!shadow(s) || bytes <= 0)
		return;
	if (eb <= 0)
		eb = bytes;
	for (int32_t t = 0; t < nthreads; t++) {
		if (active && !active[t])
			continue;
		int64_t o = off[t];
		if (o < 0 || o + bytes > s->smem_bytes)
			continue; /* out of bounds: not the checker's to report */
		for (int32_t j = 0; j < bytes; j++) {
			Shadow *h = &s->sh[o + j];
			if (kind == TILE_RACE_READ) {
				read_byte(s, h, (int32_t)(o + j), t, where);
				continue;
			}
			int val = -1;
			if (kind == TILE_RACE_WRITE && vals)
				val = vals[((int64_t)(j / eb) * nthreads + t) * eb + j % eb];
			write_byte(s, h, (int32_t)(o + j), t, val, kind == TILE_RACE_ASYNC, where);
		}
	}
}

void tile_rt_race_barrier(void *state)
{
	RaceState *s = state;
	s->epoch++;
}

void tile_rt_race_land(void *state, int32_t off, int32_t bytes, int32_t thread)
{
	RaceState *s = state;
	if (!s || !s->sh || off < 0 || bytes <= 0 || off + bytes > s->smem_bytes)
		return;
	for (int32_t j = 0; j < bytes; j++) {
		Shadow *h = &s->sh[off + j];
		if (h->w_ep == IN_FLIGHT && h->w_thr == thread)
			h->w_ep = s->epoch;
	}
}

void tile_rt_race_fini(void *state)
{
	RaceState *s = state;
	free(s->sh);
	s->sh = NULL;
}

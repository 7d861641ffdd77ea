/* rt_async.c: the cp.async queue of one CPU program instance (see
 * rt_async.h for the model). Entries are kept in issue order, so group ids
 * never decrease along the queue and a wait retires a prefix. Nothing here
 * is shared between program instances: the header is in the kernel's frame.
 */
#include "jit/rt_async.h"
#include "jit/rt_race.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct CpEntry {
	uint8_t *dst;
	int32_t off, thread; /* for the race checker */
	uint32_t group; /* id of the group it joined (= commits before its issue) */
	uint32_t bytes;
	uint8_t data[16]; /* read at issue */
} CpEntry;

typedef struct CpQueue {
	CpEntry *e; /* heap, NULL until the first issue */
	uint32_t n, cap;
	uint32_t open; /* id of the open group = commit_group calls so far */
	void *race;    /* the instance's race checker state, or NULL */
} CpQueue;

_Static_assert(sizeof(CpQueue) <= TILE_CP_ASYNC_QUEUE_BYTES &&
                       _Alignof(CpQueue) <= TILE_CP_ASYNC_QUEUE_ALIGN,
               "the emitter's stack slot must hold the queue header");

static bool grow(CpQueue *q, uint32_t need)
{
	if (need <= q->cap)
		return true;
	uint32_t cap = q->cap ? q->cap : 256;
	while (cap < need)
		cap *= 2;
	CpEntry *e = realloc(q->e, sizeof(CpEntry) * cap);
	if (!e)
		return false;
	q->e = e;
	q->cap = cap;
	return true;
}

void tile_rt_cp_async_issue(void *queue, uint8_t *smem, const int32_t *off, const void *const *src,
                            const uint8_t *flags, int32_t nthreads, int32_t bytes)
{
	CpQueue *q = queue;
	if (bytes < 0 || bytes > 16)
		bytes = 16;
	/* out of memory: the copies land now (less strict, still correct data) */
	bool queued = grow(q, q->n + (uint32_t)nthreads);
	for (int32_t t = 0; t < nthreads; t++) {
		if (!(flags[t] & TILE_CP_ISSUE))
			continue;
		uint8_t data[16] = {0};
		if (flags[t] & TILE_CP_READ)
			memcpy(data, src[t], (size_t)bytes);
		uint8_t *dst = smem + off[t];
		if (!queued) {
			memcpy(dst, data, (size_t)bytes);
			if (q->race)
				tile_rt_race_land(q->race, off[t], bytes, t);
			continue;
		}
		CpEntry *e = &q->e[q->n++];
		e->dst = dst;
		e->off = off[t];
		e->thread = t;
		e->group = q->open;
		e->bytes = (uint32_t)bytes;
		memcpy(e->data, data, sizeof data);
	}
}

void tile_rt_cp_async_commit(void *queue)
{
	CpQueue *q = queue;
	q->open++;
}

/* writes the first k entries to shared memory in issue order and drops them */
static void retire(CpQueue *q, uint32_t k)
{
	for (uint32_t i = 0; i < k; i++) {
		memcpy(q->e[i].dst, q->e[i].data, q->e[i].bytes);
		if (q->race)
			tile_rt_race_land(q->race, q->e[i].off, (int32_t)q->e[i].bytes, q->e[i].thread);
	}
	if (k < q->n)
		memmove(q->e, q->e + k, sizeof(CpEntry) * (q->n - k));
	q->n -= k;
}

void tile_rt_cp_async_wait(void *queue, int32_t n)
{
	CpQueue *q = queue;
	uint32_t keep = n > 0 ? (uint32_t)n : 0, k = 0;
	/* age = committed groups since the entry's group was opened; the open
	 * group has age 0 and never retires here */
	while (k < q->n && q->open - q->e[k].group > keep)
		k++;
	if (k)
		retire(q, k);
}

void tile_rt_cp_async_race(void *queue, void *race_state)
{
	CpQueue *q = queue;
	q->race = race_state;
}

void tile_rt_cp_async_fini(void *queue)
{
	CpQueue *q = queue;
	retire(q, q->n);
	free(q->e);
	memset(q, 0, sizeof *q);
}

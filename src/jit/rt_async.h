/* rt_async.h: cp.async emulation for CPU kernels (rt_async.c), called by the
 * code emit_llvm_mem.c emits for TP_CP_ASYNC / _COMMIT / _WAIT.
 *
 * Strict model: the global data is read when a thread issues the copy (on a
 * GPU the read happens at some time before completion; a kernel that writes
 * its own source before the wait races there too), and shared memory is
 * written only when a wait retires the copy's group, or when the kernel
 * returns (everything retires). A missing or too weak wait therefore reads
 * stale shared memory here, as it may on a GPU.
 *
 * The queue is per program instance: the emitted function keeps its header
 * in a stack slot of TILE_CP_ASYNC_QUEUE_BYTES (zeroed at entry) and passes
 * it to every call, so concurrent program instances share nothing. Entries
 * live on the heap, grown as needed and freed by tile_rt_cp_async_fini.
 */
#ifndef TILE_JIT_RT_ASYNC_H
#define TILE_JIT_RT_ASYNC_H

#include <stdint.h>

enum { TILE_CP_ASYNC_QUEUE_BYTES = 32, TILE_CP_ASYNC_QUEUE_ALIGN = 8 };

/* Flags per thread for tile_rt_cp_async_issue. */
enum {
	TILE_CP_ISSUE = 1, /* pred: the thread issues a copy */
	TILE_CP_READ = 2,  /* mask: copy from src (otherwise zero-fill) */
};

/* One cp.async op for all nthreads threads: thread t with TILE_CP_ISSUE in
 * flags[t] queues `bytes` (4, 8 or 16) bytes for smem + off[t], read now
 * from src[t] when TILE_CP_READ is set and zeros otherwise. The copies join
 * the open (not yet committed) group. */
void tile_rt_cp_async_issue(void *queue, uint8_t *smem, const int32_t *off, const void *const *src,
                            const uint8_t *flags, int32_t nthreads, int32_t bytes);
/* cp.async.commit_group: closes the open group (an empty group counts too). */
void tile_rt_cp_async_commit(void *queue);
/* cp.async.wait_group n: retires, in issue order, every committed group but
 * the newest n. Copies not yet committed stay in flight. */
void tile_rt_cp_async_wait(void *queue, int32_t n);
/* TILE_RACECHECK: copies tell the race checker (rt_race.h) when they land. */
void tile_rt_cp_async_race(void *queue, void *race_state);
/* At return: retires everything still queued, then frees the entries. */
void tile_rt_cp_async_fini(void *queue);

#endif

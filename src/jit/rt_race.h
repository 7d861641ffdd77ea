/* rt_race.h: the shared-memory race checker of CPU kernels (TILE_RACECHECK=1),
 * called by the code emit_llvm emits around shared-memory accesses and
 * barriers when TpFunc.racecheck is set.
 *
 * Why: the CPU runs a program's threads in lock-step, so a thread program
 * that lacks a barrier between one thread's write and another thread's read
 * of shared memory gives right answers here and wrong ones on a GPU. The
 * checker replays the GPU's rule instead: between two barriers, a byte that
 * one thread writes may not be read or written by another thread (nor by
 * the same warp's lanes: without a barrier a GPU orders nothing between
 * them), except that threads writing the same value to it is benign, as
 * compute-sanitizer's racecheck counts it. A cp.async's bytes belong to the
 * issuing thread and are in flight until the wait that retires them: any
 * access before then is a race, and reading them in another thread needs a
 * barrier after the wait. Reading a byte that no thread of the program
 * instance wrote is reported too (a GPU reads garbage there).
 *
 * State is per program instance: the emitted function keeps the header in a
 * stack slot of TILE_RACE_STATE_BYTES (zeroed at entry) and passes it to every
 * call; the shadow of shared memory (a record per byte) lives on the heap
 * from the first access to tile_rt_race_fini. The first race of an instance
 * is reported to the runtime hooks (TileRuntimeHooks.fault), which fail the
 * launch.
 */
#ifndef TILE_JIT_RT_RACE_H
#define TILE_JIT_RT_RACE_H

#include <stdint.h>

enum { TILE_RACE_STATE_BYTES = 64, TILE_RACE_STATE_ALIGN = 8 };

/* What an access does to its bytes (tile_rt_race_access's kind). */
enum {
	TILE_RACE_READ,
	TILE_RACE_WRITE,
	TILE_RACE_ASYNC, /* cp.async issue: written when its wait retires it */
};

/* At entry: rt is the launcher's TileRuntimeHooks (or NULL), pid the program
 * id, smem_bytes the instance's shared memory, lanes the threads per warp. */
void tile_rt_race_init(void *state, void *rt, const int32_t *pid, int32_t smem_bytes,
                       int32_t lanes);
/* One shared-memory op for all nthreads threads: thread t with active[t]
 * set touches `bytes` bytes from off[t]. For TILE_RACE_WRITE, vals holds the
 * values written, element k of thread t at vals + (k * nthreads + t) * eb
 * (bytes / eb elements); NULL compares nothing. `where` names the op
 * ("file:line:col (smem_store)") and must outlive the launch. */
void tile_rt_race_access(void *state, const int32_t *off, const uint8_t *active,
                         const uint8_t *vals, int32_t nthreads, int32_t bytes, int32_t eb,
                         int32_t kind, const char *where);
/* A barrier: every access before it happens before every access after. */
void tile_rt_race_barrier(void *state);
/* A cp.async copy of thread `thread` landed at byte off (rt_async.c, when its
 * wait retires it): its bytes are written now, by that thread. */
void tile_rt_race_land(void *state, int32_t off, int32_t bytes, int32_t thread);
/* At return: frees the shadow. */
void tile_rt_race_fini(void *state);

#endif

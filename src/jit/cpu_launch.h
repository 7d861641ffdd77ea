/* cpu_launch.h: running a grid of program instances on the host CPU.
 *
 * A CpuPool is a set of worker threads (pthreads) owned by one context. The
 * threads are started lazily, by the first launch with more than one program
 * instance, and sized to the cores. Each worker (and the launching thread,
 * which takes part) owns a 16-byte-aligned shared-memory buffer, grown when a
 * kernel needs more; a program instance gets one for its whole run.
 *
 * Instances are numbered with x fastest (then y, then z) and split into a
 * few chunks a thread; a thread claims a chunk, then its instances one by
 * one, and at the end takes the instances of others' chunks not started yet,
 * so a grid of any shape balances.
 * A grid of one instance runs inline on the calling thread without waking the
 * workers. A launch can be stopped early (a failed assert, cpu_launch_note).
 * Nothing is allocated per launch once the buffers are big enough, but the
 * first message an instance reports.
 *
 * Stacks: every launch passes an upper bound of the stack one instance needs
 * (CompiledKernel.stack_bytes, from emit_llvm_backend.c). Up to 1 MB, instances run
 * as above, on the caller too, so a launching thread needs 1 MB of free stack
 * (the main thread and glibc's default threads have 8 MB). A kernel that
 * needs more (a big kernel compiled at -O0 gives every spilled value its own
 * slot: frames of many MB) never runs on the caller: the workers run its
 * whole grid, a grid of one included, while the caller waits. Workers have
 * a 16 MB stack, or the kernel's need plus a quarter plus 1 MB (for the
 * runtime and library functions it calls) when that is more: the pool then
 * restarts them with that stack, which they keep. A pool without workers (one core) starts
 * one for such kernels. A thread stack is reserved address space: only the
 * pages a kernel touches cost memory.
 *
 * Instances that wait for one another: a GPU runs at once all the instances
 * it can hold, and kernels rely on it (a grid-wide spin barrier, a program
 * waiting for a flag another program sets). Here an instance runs to its end
 * on its thread, so the compiled code of every while loop that reads what
 * other programs write (an atomic, a volatile load) calls cpu_launch_spin
 * (through the runtime hooks) every few hundred iterations:
 * when no instance of the launch has started for a while (2 ms, or 4 times
 * an instance's mean time once some have finished) and some are left, one
 * more thread is started for the launch (up to 1024 and 2 GB of stacks and
 * shared memory), which runs the lowest instance not started. The caller
 * joins them before returning.
 *
 * Concurrency: launches from several threads on one pool are safe. The first
 * to arrive uses the workers; a launch that finds them busy runs its grid on
 * its own thread, with a temporary shared-memory buffer (a deep-stack kernel:
 * on a new thread with the stack it needs), and gets threads as above when
 * it stalls, as a launch without a pool does.
 */
#ifndef TILE_JIT_CPU_LAUNCH_H
#define TILE_JIT_CPU_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

/* The CPU launch ABI (codegen/emit.h): one program instance. */
typedef void (*CpuKernelFn)(void **args, const int32_t pid[3], const int32_t nprog[3], void *smem,
                            void *rt);

typedef struct CpuPool CpuPool;

/* nthreads: total threads including the caller; 0 = the number of cores.
 * Returns NULL only when out of memory (no thread is started here). */
CpuPool *cpu_pool_create(int nthreads);
void cpu_pool_destroy(CpuPool *p); /* NULL: no-op; joins the workers */
int cpu_pool_threads(const CpuPool *p);

/* Called by an instance of a kernel that has spun in a while loop for a
 * while (jit/rt_hooks.c tile_rt_spin): adds a thread to the launch this
 * thread runs an instance of if it is stalled (a launch is looked at once
 * per 0.2 ms, whoever calls), and yields the core while the launch has such
 * threads. Returns whether the launch was stopped (a failed assert,
 * cpu_launch_note): the caller's instance then ends, as one waiting for an instance
 * that will not start would spin forever. On a thread that runs no
 * instance: 0. */
int cpu_launch_spin(void);

/* What the instances of one launch reported through cpu_launch_note. */
typedef struct CpuLaunchNotes {
	int asserts;      /* threads whose device_assert failed */
	int faults;       /* emulated GPU faults (a shared-memory race, a misaligned access) */
	char *assert_msg; /* the first message of each kind (malloc'd: the caller */
	char *fault_msg;  /* frees them), or NULL */
} CpuLaunchNotes;

typedef enum { CPU_NOTE_ASSERT, CPU_NOTE_FAULT } CpuNoteKind;

/* Called by an instance (through the runtime hooks): records a failed
 * device_assert or a fault on the launch this thread runs an instance of,
 * keeping a copy of the first message of each kind. A failed assert stops
 * the launch: no instance starts after it (those running finish), as a GPU's
 * trap ends the whole grid. Launches made at once from several threads each
 * get only their own. Returns 0 (nothing recorded) on a thread that runs no
 * instance. */
int cpu_launch_note(CpuNoteKind kind, const char *msg);

/* Runs fn over grid[0] x grid[1] x grid[2] instances and returns when all have
 * run (or the launch was stopped); each instance gets smem_bytes of shared
 * memory and may use stack_bytes of stack. Returns 0, -1 if a dimension
 * exceeds INT32_MAX, -2 when out of memory, or -3 when no thread with a deep
 * enough stack can be started. notes (may be NULL): what the instances
 * reported, filled in whatever the result. */
int cpu_launch(CpuPool *p, CpuKernelFn fn, void **args, const uint32_t grid[3], size_t smem_bytes,
               uint64_t stack_bytes, void *rt, CpuLaunchNotes *notes);

#endif

/* cpu_launch.c: the CPU grid runner (see cpu_launch.h).
 *
 * Protocol between the launching thread ("caller") and the workers:
 * - The caller holds launch_mu for the whole launch, so one job is in flight.
 * - It publishes the job, then one atomic word `state` = generation << 16 |
 *   number of workers wanted. Reading both from one word means a worker can
 *   never pair a new generation with a stale worker count.
 * - Worker i < wanted runs chunks of the job, then decrements `active`; the
 *   caller runs chunks too, then waits for active == 0 before returning (the
 *   job lives on its stack). Workers i >= wanted only note the generation.
 * - Waiting is a short spin, then a condition variable: back-to-back launches
 *   find the workers still spinning and pay no wake-up.
 */
#include "jit/cpu_launch.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
	SPIN_ITERS = 256,        /* polls with a pause instruction before yielding */
	YIELD_ITERS = 64,        /* polls with sched_yield before sleeping */
	WORKER_STACK = 16 << 20, /* the least stack a worker gets */
	CALLER_STACK_MAX = 1 << 20, /* a kernel that needs more never runs on the caller */
	STACK_MARGIN = 1 << 20,  /* beyond a kernel's need: the functions it calls, the worker's */
	MAX_THREADS = 256,
	SMEM_ALIGN = 64,
};

typedef struct CpuJob {
	CpuKernelFn fn;
	void **args;
	int32_t grid[3];
	int64_t total;
	int64_t chunk;
	void *rt;
	const int *stop; /* NULL, or a counter: a change from stop0 ends the launch */
	int stop0;
	atomic_llong next;
} CpuJob;

typedef struct Worker {
	pthread_t th;
	pthread_cond_t wake;
	struct CpuPool *pool;
	int id;
	uint64_t gen0; /* the generation when it started: jobs before it are not its own */
	void *smem;
} Worker;

struct CpuPool {
	int nthreads; /* including the caller */
	pthread_mutex_t launch_mu;
	pthread_mutex_t mu;
	pthread_cond_t done;
	bool started, stop;
	atomic_ullong state; /* gen << 16 | wanted */
	atomic_int active;
	CpuJob *job;
	Worker *workers;
	int nworkers;
	size_t worker_stack; /* every worker has a stack of this many bytes */
	size_t smem_cap; /* every worker buffer and caller_smem have this many bytes */
	void *caller_smem;
};

/* Polling step i: a pause while i < SPIN_ITERS, then sched_yield (so an
 * oversubscribed machine runs whoever has work). */
static inline void cpu_relax(int i)
{
	if (i >= SPIN_ITERS) {
		sched_yield();
		return;
	}
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

static int count_cores(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		n = 1;
	return n > MAX_THREADS ? MAX_THREADS : (int)n;
}

CpuPool *cpu_pool_create(int nthreads)
{
	CpuPool *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->nthreads =
	        nthreads > 0 ? (nthreads > MAX_THREADS ? MAX_THREADS : nthreads) : count_cores();
	pthread_mutex_init(&p->launch_mu, NULL);
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->done, NULL);
	atomic_init(&p->state, 0);
	atomic_init(&p->active, 0);
	return p;
}

int cpu_pool_threads(const CpuPool *p) { return p ? p->nthreads : 1; }

/* ---- running instances ------------------------------------------------------- */

/* A failed device_assert (the stop counter moved): no instance starts after it. */
static bool job_stopped(const CpuJob *j)
{
	return j->stop && __atomic_load_n(j->stop, __ATOMIC_ACQUIRE) != j->stop0;
}

static void run_range(CpuJob *j, int64_t lo, int64_t hi, void *smem)
{
	const int32_t gx = j->grid[0], gy = j->grid[1];
	int32_t pid[3];
	pid[0] = (int32_t)(lo % gx);
	pid[1] = (int32_t)((lo / gx) % gy);
	pid[2] = (int32_t)(lo / ((int64_t)gx * gy));
	for (int64_t i = lo; i < hi; i++) {
		if (job_stopped(j)) { /* the other threads' next chunk is past the end too */
			atomic_store_explicit(&j->next, j->total, memory_order_relaxed);
			return;
		}
		j->fn(j->args, pid, j->grid, smem, j->rt);
		if (++pid[0] == gx) {
			pid[0] = 0;
			if (++pid[1] == gy) {
				pid[1] = 0;
				pid[2]++;
			}
		}
	}
}

static void run_chunks(CpuJob *j, void *smem)
{
	for (;;) {
		int64_t lo = atomic_fetch_add_explicit(&j->next, j->chunk, memory_order_relaxed);
		if (lo >= j->total)
			return;
		int64_t hi = lo + j->chunk < j->total ? lo + j->chunk : j->total;
		run_range(j, lo, hi, smem);
	}
}

/* ---- workers ------------------------------------------------------------------ */

static uint64_t wait_new_state(Worker *w, uint64_t seen_gen)
{
	CpuPool *p = w->pool;
	for (int i = 0; i < SPIN_ITERS + YIELD_ITERS; i++) {
		uint64_t s = atomic_load_explicit(&p->state, memory_order_acquire);
		if ((s >> 16) != seen_gen)
			return s;
		cpu_relax(i);
	}
	pthread_mutex_lock(&p->mu);
	uint64_t s;
	while ((s = atomic_load_explicit(&p->state, memory_order_acquire)) >> 16 == seen_gen &&
	       !p->stop)
		pthread_cond_wait(&w->wake, &p->mu);
	pthread_mutex_unlock(&p->mu);
	return s;
}

static void *worker_main(void *arg)
{
	Worker *w = arg;
	CpuPool *p = w->pool;
	uint64_t seen_gen = w->gen0;
	for (;;) {
		uint64_t s = wait_new_state(w, seen_gen);
		if ((s >> 16) == seen_gen) /* woken for stop */
			break;
		seen_gen = s >> 16;
		if (w->id >= (int)(s & 0xffff))
			continue;
		run_chunks(p->job, w->smem);
		if (atomic_fetch_sub_explicit(&p->active, 1, memory_order_acq_rel) == 1) {
			pthread_mutex_lock(&p->mu);
			pthread_cond_signal(&p->done);
			pthread_mutex_unlock(&p->mu);
		}
	}
	return NULL;
}

/* Starts `want` workers with `stack` bytes of stack (launch_mu held, none
 * running). Fewer than asked is fine. */
static void start_workers(CpuPool *p, int want, size_t stack)
{
	p->started = true;
	if (want <= 0)
		return;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	p->workers = calloc((size_t)want, sizeof *p->workers);
	if (!p->workers || pthread_attr_setstacksize(&attr, stack) != 0) {
		pthread_attr_destroy(&attr);
		return;
	}
	p->worker_stack = stack;
	uint64_t gen = atomic_load_explicit(&p->state, memory_order_relaxed) >> 16;
	for (int i = 0; i < want; i++) {
		Worker *w = &p->workers[i];
		w->pool = p;
		w->id = i;
		w->gen0 = gen;
		if (p->smem_cap) {
			w->smem = aligned_alloc(SMEM_ALIGN, p->smem_cap);
			if (!w->smem)
				break;
		}
		pthread_cond_init(&w->wake, NULL);
		if (pthread_create(&w->th, &attr, worker_main, w) != 0) {
			pthread_cond_destroy(&w->wake);
			free(w->smem);
			w->smem = NULL;
			break;
		}
		p->nworkers++;
	}
	pthread_attr_destroy(&attr);
}

/* Joins and frees the workers (launch_mu held, no job running). */
static void stop_workers(CpuPool *p)
{
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	for (int i = 0; i < p->nworkers; i++)
		pthread_cond_signal(&p->workers[i].wake);
	pthread_mutex_unlock(&p->mu);
	for (int i = 0; i < p->nworkers; i++) {
		pthread_join(p->workers[i].th, NULL);
		pthread_cond_destroy(&p->workers[i].wake);
		free(p->workers[i].smem);
	}
	free(p->workers);
	p->workers = NULL;
	p->nworkers = 0;
	p->stop = false;
}

/* Grows every shared-memory buffer to `need` bytes (launch_mu held, workers idle). */
static bool grow_smem(CpuPool *p, size_t need)
{
	if (need <= p->smem_cap)
		return true;
	size_t cap = (need + SMEM_ALIGN - 1) & ~(size_t)(SMEM_ALIGN - 1);
	void *c = aligned_alloc(SMEM_ALIGN, cap);
	if (!c)
		return false;
	for (int i = 0; i < p->nworkers; i++) {
		void *b = aligned_alloc(SMEM_ALIGN, cap);
		if (!b) {
			free(c);
			return false;
		}
		free(p->workers[i].smem);
		p->workers[i].smem = b;
	}
	free(p->caller_smem);
	p->caller_smem = c;
	p->smem_cap = cap;
	return true;
}

void cpu_pool_destroy(CpuPool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->launch_mu);
	stop_workers(p);
	pthread_mutex_unlock(&p->launch_mu);
	free(p->caller_smem);
	pthread_cond_destroy(&p->done);
	pthread_mutex_destroy(&p->mu);
	pthread_mutex_destroy(&p->launch_mu);
	free(p);
}

/* ---- launching ---------------------------------------------------------------- */

/* The pool is busy with another thread's launch: run everything here. */
static int run_alone(CpuJob *j, size_t smem_bytes)
{
	void *smem = NULL;
	if (smem_bytes) {
		smem = aligned_alloc(SMEM_ALIGN,
		                     (smem_bytes + SMEM_ALIGN - 1) & ~(size_t)(SMEM_ALIGN - 1));
		if (!smem)
			return -2;
	}
	run_range(j, 0, j->total, smem);
	free(smem);
	return 0;
}

static void wait_done(CpuPool *p)
{
	for (int i = 0; i < SPIN_ITERS + YIELD_ITERS; i++) {
		if (atomic_load_explicit(&p->active, memory_order_acquire) == 0)
			return;
		cpu_relax(i);
	}
	pthread_mutex_lock(&p->mu);
	while (atomic_load_explicit(&p->active, memory_order_acquire) != 0)
		pthread_cond_wait(&p->done, &p->mu);
	pthread_mutex_unlock(&p->mu);
}

/* Runs j with the workers (launch_mu held), and on the caller too when
 * caller_helps; returns when all instances have run. */
static void run_parallel(CpuPool *p, CpuJob *j, bool caller_helps)
{
	int64_t parts = (int64_t)(p->nworkers + caller_helps) * 4;
	j->chunk = j->total / parts > 0 ? j->total / parts : 1;
	int wanted = p->nworkers;
	if ((int64_t)wanted > j->total - caller_helps)
		wanted = (int)(j->total - caller_helps);
	p->job = j;
	atomic_store_explicit(&p->active, wanted, memory_order_relaxed);
	pthread_mutex_lock(&p->mu);
	uint64_t gen = (atomic_load_explicit(&p->state, memory_order_relaxed) >> 16) + 1;
	atomic_store_explicit(&p->state, gen << 16 | (uint64_t)wanted, memory_order_release);
	for (int i = 0; i < wanted; i++)
		pthread_cond_signal(&p->workers[i].wake);
	pthread_mutex_unlock(&p->mu);
	if (caller_helps)
		run_chunks(j, p->caller_smem);
	wait_done(p);
}

/* ---- kernels with a deep stack ----------------------------------------------- */

/* The stack of a thread that runs a kernel that needs `need` bytes: a
 * quarter more, for stack temporaries of code generation that the bound
 * does not know of (a newer LLVM, another host), and STACK_MARGIN; 0 if
 * that does not fit a size_t. */
static size_t deep_stack(uint64_t need)
{
	const uint64_t round = 1 << 16;
	if (need > (SIZE_MAX - STACK_MARGIN - round) / 5 * 4)
		return 0;
	uint64_t n = (need + need / 4 + STACK_MARGIN + round - 1) & ~(round - 1);
	return n > WORKER_STACK ? (size_t)n : WORKER_STACK;
}

typedef struct AloneJob {
	CpuJob *j;
	size_t smem_bytes;
	int rc;
} AloneJob;

static void *alone_main(void *arg)
{
	AloneJob *a = arg;
	a->rc = run_alone(a->j, a->smem_bytes);
	return NULL;
}

/* The whole grid on a thread of its own with `stack` bytes of stack: for a
 * launch without a pool, or one that finds the pool busy. */
static int run_alone_deep(CpuJob *j, size_t smem_bytes, size_t stack)
{
	AloneJob a = {j, smem_bytes, 0};
	pthread_attr_t attr;
	pthread_t th;
	pthread_attr_init(&attr);
	int err = pthread_attr_setstacksize(&attr, stack) ||
	          pthread_create(&th, &attr, alone_main, &a);
	pthread_attr_destroy(&attr);
	if (err)
		return -3;
	pthread_join(th, NULL);
	return a.rc;
}

/* Workers with at least `stack` bytes of stack, at least one (launch_mu
 * held): the running ones if their stack is deep enough, else new ones. */
static bool deep_workers(CpuPool *p, size_t stack)
{
	if (p->nworkers > 0 && p->worker_stack >= stack)
		return true;
	stop_workers(p);
	start_workers(p, p->nthreads > 1 ? p->nthreads - 1 : 1, stack);
	return p->nworkers > 0;
}

/* A kernel that needs more than CALLER_STACK_MAX bytes of stack runs on the
 * workers only, or on a thread of its own; never on the caller. */
static int launch_deep(CpuPool *p, CpuJob *j, size_t smem_bytes, uint64_t need)
{
	size_t stack = deep_stack(need);
	if (!stack)
		return -3;
	if (!p || pthread_mutex_trylock(&p->launch_mu) != 0)
		return run_alone_deep(j, smem_bytes, stack);
	int rc = 0;
	if (!grow_smem(p, smem_bytes))
		rc = -2;
	else if (!deep_workers(p, stack))
		rc = -3;
	else
		run_parallel(p, j, false);
	pthread_mutex_unlock(&p->launch_mu);
	return rc;
}

/* ---- the entry point ---------------------------------------------------------- */

int cpu_launch(CpuPool *p, CpuKernelFn fn, void **args, const uint32_t grid[3], size_t smem_bytes,
               uint64_t stack_bytes, void *rt, const int *stop)
{
	for (int d = 0; d < 3; d++)
		if (grid[d] > INT32_MAX)
			return -1;
	if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0)
		return 0;
	CpuJob j = {.fn = fn, .args = args, .rt = rt, .stop = stop};
	if (stop)
		j.stop0 = __atomic_load_n(stop, __ATOMIC_ACQUIRE);
	for (int d = 0; d < 3; d++)
		j.grid[d] = (int32_t)grid[d];
	if ((int64_t)grid[0] * grid[1] > INT64_MAX / grid[2])
		return -1;
	j.total = (int64_t)grid[0] * grid[1] * grid[2];
	atomic_init(&j.next, 0);
	if (stack_bytes > CALLER_STACK_MAX)
		return launch_deep(p, &j, smem_bytes, stack_bytes);
	if (j.total == 1 && smem_bytes == 0) { /* the common tiny launch: a direct call */
		static const int32_t zero[3] = {0, 0, 0};
		fn(args, zero, j.grid, NULL, rt);
		return 0;
	}
	if (!p || pthread_mutex_trylock(&p->launch_mu) != 0)
		return run_alone(&j, smem_bytes);
	int rc = 0;
	if (!grow_smem(p, smem_bytes)) {
		rc = -2;
	} else if (j.total == 1 || p->nthreads <= 1) {
		run_range(&j, 0, j.total, p->caller_smem);
	} else {
		if (!p->started)
			start_workers(p, p->nthreads - 1, WORKER_STACK);
		if (p->nworkers == 0)
			run_range(&j, 0, j.total, p->caller_smem);
		else
			run_parallel(p, &j, true);
	}
	pthread_mutex_unlock(&p->launch_mu);
	return rc;
}

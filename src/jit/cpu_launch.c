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
 *
 * Instances are split into chunks of consecutive numbers, each with its own
 * counter: a thread claims a chunk, then its instances one at a time, and
 * when no chunk is left takes the instances others have not started yet.
 * So every instance not yet started can be taken by any thread, lowest
 * first; that is what a stalled launch needs (below).
 *
 * Stalls: instances may wait for one another (a grid-wide spin barrier, a
 * program waiting for a flag another sets), which a GPU allows as long as
 * they are resident at once. Here each runs to its end on its thread, so
 * when all threads wait for instances not yet started, nothing moves. A
 * kernel's while loop with an atomic or a volatile load (one that may wait)
 * calls cpu_launch_spin every SPIN_CHECK_ITERS
 * iterations; when no instance has started for the stall period and some
 * are left, it starts one more thread (a "rescuer") for the launch, which
 * takes the lowest instance not started. The caller joins the rescuers
 * before it returns. Every launch can be rescued: the one on the workers
 * and one that found them busy and runs on its caller alone. A thread knows
 * the launch it runs an instance of (current_job), as the spin call comes
 * from compiled code that has no handle on the launch.
 */
#include "jit/cpu_launch.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum {
	SPIN_ITERS = 256,        /* polls with a pause instruction before yielding */
	YIELD_ITERS = 64,        /* polls with sched_yield before sleeping */
	WORKER_STACK = 16 << 20, /* the least stack a worker gets */
	CALLER_STACK_MAX = 1 << 20, /* a kernel that needs more never runs on the caller */
	STACK_MARGIN = 1 << 20,  /* beyond a kernel's need: the functions it calls, the worker's */
	MAX_THREADS = 256,
	CHUNKS_PER_THREAD = 4,   /* chunks a launch is split into, per thread running it */
	MAX_RESCUERS = 1024,     /* threads a stalled launch may add (a GPU keeps ~2k blocks resident) */
	SMEM_ALIGN = 64,
};

/* No instance started for this long while one waits: a stall. Or for 4
 * times an instance's mean time so far, if longer: a launch of long
 * instances whose while loops only compute gets no threads it does not need. */
#define STALL_NS 2000000
#define CHECK_NS 200000 /* cpu_launch_spin takes a job's lock at most this often */
#define RESCUE_BYTES ((uint64_t)2 << 30) /* stack and shared memory rescuers may hold */

/* A chunk's counter: the next instance of the chunk to start. On a cache
 * line of its own, as its owner bumps it for every instance. */
typedef struct Chunk {
	_Alignas(64) atomic_llong next;
} Chunk;

typedef struct CpuJob {
	CpuKernelFn fn;
	void **args;
	int32_t grid[3];
	int64_t total;
	int64_t chunk;   /* instances a chunk (the last may have fewer) */
	int64_t nchunks;
	Chunk *chunks;   /* the pool's, or the one of a job run alone */
	atomic_llong next_chunk;
	void *rt;
	/* what its instances reported (cpu_launch_note): a failed assert stops it */
	atomic_int asserts, faults;
	_Atomic(char *) assert_msg, fault_msg;
	uint64_t stack_need; /* bytes of stack an instance may use */
	size_t smem_bytes;   /* each rescuer's shared memory (rounded up) */
	size_t rescue_stack; /* each rescuer's stack */
	/* stall detection (mu held): when the job began, the threads running it
	 * (rescuers apart), instances started when last looked, and when */
	pthread_mutex_t mu;
	int64_t start_ns;
	int threads;
	int64_t seen_started;
	int64_t seen_ns;
	/* the threads added to it (mu held); once ended, none is added */
	struct Rescuer **rescuers;
	int nrescuers, rescuers_cap;
	bool ended;
	atomic_bool crowded;        /* it has rescuers: spinners yield */
	atomic_llong next_check_ns; /* cpu_launch_spin looks at it no sooner */
} CpuJob;

/* A thread added to a stalled launch. */
typedef struct Rescuer {
	pthread_t th;
	CpuJob *job;
	void *smem;
} Rescuer;

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
	Chunk *chunks; /* for the job on the workers */
	int nchunks_cap;
};

/* The job whose instance this thread runs, NULL between them: what a spin
 * call from compiled code belongs to. Saved and restored around each run,
 * so a launch made from inside an instance (a print hook) nests. */
static _Thread_local CpuJob *current_job;

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
	/* threads running a job: nthreads, or a deep-stack kernel's worker on a
	 * pool of one and the caller after it */
	p->nchunks_cap = CHUNKS_PER_THREAD * (p->nthreads + 1);
	p->chunks = aligned_alloc(_Alignof(Chunk), sizeof(Chunk) * (size_t)p->nchunks_cap);
	if (!p->chunks) {
		free(p);
		return NULL;
	}
	pthread_mutex_init(&p->launch_mu, NULL);
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->done, NULL);
	atomic_init(&p->state, 0);
	atomic_init(&p->active, 0);
	return p;
}

int cpu_pool_threads(const CpuPool *p) { return p ? p->nthreads : 1; }

/* ---- running instances ------------------------------------------------------- */

/* A failed device_assert: no instance starts after it. */
static bool job_stopped(CpuJob *j)
{
	return atomic_load_explicit(&j->asserts, memory_order_acquire) != 0;
}

int cpu_launch_note(CpuNoteKind kind, const char *msg)
{
	CpuJob *j = current_job;
	if (!j)
		return 0;
	_Atomic(char *) *first = kind == CPU_NOTE_ASSERT ? &j->assert_msg : &j->fault_msg;
	if (!atomic_load_explicit(first, memory_order_acquire)) {
		char *copy = strdup(msg ? msg : ""), *none = NULL;
		if (copy && !atomic_compare_exchange_strong(first, &none, copy))
			free(copy); /* another thread's came first */
	}
	atomic_fetch_add_explicit(kind == CPU_NOTE_ASSERT ? &j->asserts : &j->faults, 1,
	                          memory_order_acq_rel);
	return 1;
}

static void pid_of(const CpuJob *j, int64_t i, int32_t pid[3])
{
	const int32_t gx = j->grid[0], gy = j->grid[1];
	pid[0] = (int32_t)(i % gx);
	pid[1] = (int32_t)((i / gx) % gy);
	pid[2] = (int32_t)(i / ((int64_t)gx * gy));
}

/* The next pid in x-fastest order. */
static void pid_step(const CpuJob *j, int32_t pid[3])
{
	if (++pid[0] == j->grid[0]) {
		pid[0] = 0;
		if (++pid[1] == j->grid[1]) {
			pid[1] = 0;
			pid[2]++;
		}
	}
}

/* Instances lo..hi-1 in order on this thread (a job without chunks). */
static void run_range(CpuJob *j, int64_t lo, int64_t hi, void *smem)
{
	int32_t pid[3];
	pid_of(j, lo, pid);
	for (int64_t i = lo; i < hi; i++) {
		if (job_stopped(j))
			return;
		j->fn(j->args, pid, j->grid, smem, j->rt);
		pid_step(j, pid);
	}
}

static int64_t chunk_end(const CpuJob *j, int64_t k)
{
	return k + 1 < j->nchunks ? (k + 1) * j->chunk : j->total;
}

/* Runs the instances of chunk k not started yet, one claim at a time. */
static void drain_chunk(CpuJob *j, int64_t k, void *smem)
{
	atomic_llong *next = &j->chunks[k].next;
	const int64_t end = chunk_end(j, k);
	int64_t prev = -2; /* no instance yet: i == prev + 1 never holds */
	int32_t pid[3];
	while (!job_stopped(j)) {
		int64_t i = atomic_fetch_add_explicit(next, 1, memory_order_relaxed);
		if (i >= end)
			return;
		if (i == prev + 1)
			pid_step(j, pid);
		else
			pid_of(j, i, pid);
		j->fn(j->args, pid, j->grid, smem, j->rt);
		prev = i;
	}
	/* stopped: the other threads claim no chunk after this either */
	atomic_store_explicit(&j->next_chunk, j->nchunks, memory_order_relaxed);
}

/* The instances of chunks other threads claimed but have not started,
 * lowest first (a load first: most are done, and a load does not take the
 * line from its owner). */
static void take_leftovers(CpuJob *j, void *smem)
{
	int64_t claimed = atomic_load_explicit(&j->next_chunk, memory_order_relaxed);
	if (claimed > j->nchunks)
		claimed = j->nchunks;
	for (int64_t k = 0; k < claimed; k++)
		if (atomic_load_explicit(&j->chunks[k].next, memory_order_relaxed) < chunk_end(j, k))
			drain_chunk(j, k, smem);
}

static void run_chunks(CpuJob *j, void *smem)
{
	for (;;) {
		int64_t k = atomic_fetch_add_explicit(&j->next_chunk, 1, memory_order_relaxed);
		if (k >= j->nchunks)
			break;
		drain_chunk(j, k, smem);
	}
	take_leftovers(j, smem);
}

/* This thread's part of j: the instances others claimed but have not
 * started first when leftovers_first (a rescuer's: the lowest are what a
 * stall waits for), then chunks as they come. */
static void run_here(CpuJob *j, void *smem, bool leftovers_first)
{
	CpuJob *outer = current_job;
	current_job = j;
	if (leftovers_first)
		take_leftovers(j, smem);
	run_chunks(j, smem);
	current_job = outer;
}

/* ---- workers ------------------------------------------------------------------ */

/* A worker has run out of instances: the last wakes the caller. */
static void job_part_done(CpuPool *p)
{
	if (atomic_fetch_sub_explicit(&p->active, 1, memory_order_acq_rel) == 1) {
		pthread_mutex_lock(&p->mu);
		pthread_cond_signal(&p->done);
		pthread_mutex_unlock(&p->mu);
	}
}

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
		run_here(p->job, w->smem, false);
		job_part_done(p);
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
	free(p->chunks);
	pthread_cond_destroy(&p->done);
	pthread_mutex_destroy(&p->mu);
	pthread_mutex_destroy(&p->launch_mu);
	free(p);
}

/* ---- stalls ------------------------------------------------------------------- */

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t instances_started(const CpuJob *j)
{
	int64_t n = 0;
	for (int64_t k = 0; k < j->nchunks; k++) {
		int64_t next = atomic_load_explicit(&j->chunks[k].next, memory_order_relaxed);
		int64_t end = chunk_end(j, k);
		n += (next < end ? next : end) - k * j->chunk;
	}
	return n;
}

/* Whether j, run by `threads` threads, has instances left and none started
 * for the stall period (j's mu held); a yes restarts the clock, so a
 * stall adds one thread a period. An instance's mean time is bounded from
 * above by the threads' time over the instances surely finished (started
 * ones, less one a thread). */
static bool stalled(CpuJob *j, int threads)
{
	int64_t started = instances_started(j), now = now_ns();
	if (started != j->seen_started) {
		j->seen_started = started;
		j->seen_ns = now;
		return false;
	}
	if (started >= j->total || job_stopped(j))
		return false;
	int64_t period = STALL_NS, finished = started - threads;
	if (finished > 0) {
		double mean = (double)(now - j->start_ns) * threads / (double)finished;
		if (4 * mean > (double)period)
			period = 4 * mean < 1e12 ? (int64_t)(4 * mean) : (int64_t)1e12;
	}
	if (now - j->seen_ns < period)
		return false;
	j->seen_ns = now;
	return true;
}

static void *rescuer_main(void *arg)
{
	Rescuer *r = arg;
	run_here(r->job, r->smem, true); /* the lowest instances first */
	return NULL;
}

/* Starts one more thread for j (j's mu held). The job's owner joins it; a
 * thread that cannot be started is no error (the next period tries again). */
static void add_rescuer(CpuJob *j)
{
	uint64_t each = j->stack_need + j->smem_bytes + (64 << 10); /* bounded by deep_stack */
	if (j->nrescuers >= MAX_RESCUERS || j->nrescuers >= j->total ||
	    each > RESCUE_BYTES / (uint64_t)(j->nrescuers + 1))
		return;
	if (j->nrescuers == j->rescuers_cap) {
		int cap = j->rescuers_cap ? 2 * j->rescuers_cap : 16;
		Rescuer **grown = realloc(j->rescuers, (size_t)cap * sizeof *grown);
		if (!grown)
			return;
		j->rescuers = grown;
		j->rescuers_cap = cap;
	}
	Rescuer *r = calloc(1, sizeof *r);
	if (!r)
		return;
	r->job = j;
	if (j->smem_bytes && !(r->smem = aligned_alloc(SMEM_ALIGN, j->smem_bytes))) {
		free(r);
		return;
	}
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	if (pthread_attr_setstacksize(&attr, j->rescue_stack) != 0 ||
	    pthread_create(&r->th, &attr, rescuer_main, r) != 0) {
		free(r->smem);
		free(r);
	} else {
		j->rescuers[j->nrescuers++] = r;
	}
	pthread_attr_destroy(&attr);
}

int cpu_launch_spin(void)
{
	CpuJob *j = current_job;
	if (!j)
		return 0;
	if (j->total == 1) /* nothing to wait for; a direct call's job has no more */
		return job_stopped(j);
	/* more threads than cores: whoever this instance waits for may need
	 * this one's (not otherwise: on a loaded machine a yield can cost a
	 * whole time slice) */
	if (atomic_load_explicit(&j->crowded, memory_order_relaxed))
		sched_yield();
	if (job_stopped(j))
		return 1;
	/* the job is looked at once per CHECK_NS, whoever calls: a waiting
	 * loop calls this every few microseconds, from every waiting thread */
	int64_t now = now_ns();
	if (now < atomic_load_explicit(&j->next_check_ns, memory_order_relaxed))
		return 0;
	atomic_store_explicit(&j->next_check_ns, now + CHECK_NS, memory_order_relaxed);
	pthread_mutex_lock(&j->mu);
	if (!j->ended && stalled(j, j->threads + j->nrescuers)) {
		add_rescuer(j);
		atomic_store_explicit(&j->crowded, j->nrescuers > 0, memory_order_relaxed);
	}
	pthread_mutex_unlock(&j->mu);
	return 0;
}

/* ---- launching ---------------------------------------------------------------- */

/* Before j's instances run on `threads` threads (rescuers apart). */
static void begin_job(CpuJob *j, int threads)
{
	pthread_mutex_init(&j->mu, NULL);
	j->threads = threads;
	j->seen_started = 0;
	j->start_ns = j->seen_ns = now_ns();
	atomic_init(&j->crowded, false);
	atomic_init(&j->next_check_ns, 0);
}

/* After every instance of j has started: no thread is added any more; joins
 * those that were. */
static void end_job(CpuJob *j)
{
	pthread_mutex_lock(&j->mu);
	j->ended = true;
	pthread_mutex_unlock(&j->mu);
	for (int i = 0; i < j->nrescuers; i++) {
		pthread_join(j->rescuers[i]->th, NULL);
		free(j->rescuers[i]->smem);
		free(j->rescuers[i]);
	}
	free(j->rescuers);
	pthread_mutex_destroy(&j->mu);
}

/* No pool, or it is busy with another thread's launch: the whole grid on
 * this thread, as one chunk, which rescuers share if the launch stalls. */
static int run_alone(CpuJob *j)
{
	void *smem = NULL;
	if (j->smem_bytes && !(smem = aligned_alloc(SMEM_ALIGN, j->smem_bytes)))
		return -2;
	Chunk one;
	atomic_init(&one.next, 0);
	j->chunks = &one;
	j->nchunks = 1;
	j->chunk = j->total;
	begin_job(j, 1);
	run_here(j, smem, false);
	end_job(j);
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
	int64_t runners = p->nworkers + caller_helps;
	j->nchunks = runners * CHUNKS_PER_THREAD < j->total ? runners * CHUNKS_PER_THREAD : j->total;
	if (j->nchunks > p->nchunks_cap)
		j->nchunks = p->nchunks_cap;
	j->chunk = (j->total + j->nchunks - 1) / j->nchunks;
	j->nchunks = (j->total + j->chunk - 1) / j->chunk;
	j->chunks = p->chunks;
	for (int64_t k = 0; k < j->nchunks; k++)
		atomic_store_explicit(&j->chunks[k].next, k * j->chunk, memory_order_relaxed);
	atomic_store_explicit(&j->next_chunk, 0, memory_order_relaxed);
	int wanted = p->nworkers;
	if ((int64_t)wanted > j->total - caller_helps)
		wanted = (int)(j->total - caller_helps);
	begin_job(j, wanted + caller_helps);
	p->job = j;
	atomic_store_explicit(&p->active, wanted, memory_order_relaxed);
	pthread_mutex_lock(&p->mu);
	uint64_t gen = (atomic_load_explicit(&p->state, memory_order_relaxed) >> 16) + 1;
	atomic_store_explicit(&p->state, gen << 16 | (uint64_t)wanted, memory_order_release);
	for (int i = 0; i < wanted; i++)
		pthread_cond_signal(&p->workers[i].wake);
	pthread_mutex_unlock(&p->mu);
	if (caller_helps)
		run_here(j, p->caller_smem, false);
	wait_done(p);
	end_job(j);
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
	int rc;
} AloneJob;

static void *alone_main(void *arg)
{
	AloneJob *a = arg;
	a->rc = run_alone(a->j);
	return NULL;
}

/* The whole grid on a thread of its own with the rescuers' stack: for a
 * launch without a pool, or one that finds the pool busy. */
static int run_alone_deep(CpuJob *j)
{
	AloneJob a = {j, 0};
	pthread_attr_t attr;
	pthread_t th;
	pthread_attr_init(&attr);
	int err = pthread_attr_setstacksize(&attr, j->rescue_stack) ||
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
static int launch_deep(CpuPool *p, CpuJob *j, size_t smem_bytes)
{
	if (!p || pthread_mutex_trylock(&p->launch_mu) != 0)
		return run_alone_deep(j);
	int rc = 0;
	if (!grow_smem(p, smem_bytes))
		rc = -2;
	else if (!deep_workers(p, j->rescue_stack))
		rc = -3;
	else
		run_parallel(p, j, false);
	pthread_mutex_unlock(&p->launch_mu);
	return rc;
}

/* ---- the entry point ---------------------------------------------------------- */

/* Runs j (set up but for its chunks) where it can: on the pool, on a thread
 * of its own, or on the caller. */
static int launch_job(CpuPool *p, CpuJob *j, size_t smem_bytes)
{
	if (j->stack_need > CALLER_STACK_MAX) {
		if (!(j->rescue_stack = deep_stack(j->stack_need)))
			return -3;
		return launch_deep(p, j, smem_bytes);
	}
	j->rescue_stack = WORKER_STACK;
	if (!p || pthread_mutex_trylock(&p->launch_mu) != 0)
		return run_alone(j);
	int rc = 0;
	if (!grow_smem(p, smem_bytes)) {
		rc = -2;
	} else if (j->total == 1) {
		CpuJob *outer = current_job;
		current_job = j;
		run_range(j, 0, 1, p->caller_smem);
		current_job = outer;
	} else {
		if (!p->started && p->nthreads > 1)
			start_workers(p, p->nthreads - 1, WORKER_STACK);
		run_parallel(p, j, true); /* with no workers too: a stall can add threads */
	}
	pthread_mutex_unlock(&p->launch_mu);
	return rc;
}

int cpu_launch(CpuPool *p, CpuKernelFn fn, void **args, const uint32_t grid[3], size_t smem_bytes,
               uint64_t stack_bytes, void *rt, CpuLaunchNotes *notes)
{
	if (notes)
		*notes = (CpuLaunchNotes){0};
	for (int d = 0; d < 3; d++)
		if (grid[d] > INT32_MAX)
			return -1;
	if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0)
		return 0;
	if ((int64_t)grid[0] * grid[1] > INT64_MAX / grid[2])
		return -1;
	if (smem_bytes > SIZE_MAX - SMEM_ALIGN)
		return -2;
	int64_t total = (int64_t)grid[0] * grid[1] * grid[2];
	CpuJob j; /* only what the launch uses is set: tiny launches are common */
	j.total = total;
	atomic_init(&j.asserts, 0);
	atomic_init(&j.faults, 0);
	atomic_init(&j.assert_msg, NULL);
	atomic_init(&j.fault_msg, NULL);
	int rc = 0;
	if (total == 1 && smem_bytes == 0 && stack_bytes <= CALLER_STACK_MAX) {
		/* the common tiny launch: a direct call (cpu_launch_spin asks
		 * nothing else of a job of one instance) */
		static const int32_t zero[3] = {0, 0, 0};
		const int32_t one[3] = {1, 1, 1};
		CpuJob *outer = current_job;
		current_job = &j;
		fn(args, zero, one, NULL, rt);
		current_job = outer;
	} else {
		j = (CpuJob){.fn = fn, .args = args, .rt = rt, .stack_need = stack_bytes, .total = total};
		for (int d = 0; d < 3; d++)
			j.grid[d] = (int32_t)grid[d];
		j.smem_bytes = (smem_bytes + SMEM_ALIGN - 1) & ~(size_t)(SMEM_ALIGN - 1);
		atomic_init(&j.next_chunk, 0);
		atomic_init(&j.asserts, 0);
		atomic_init(&j.faults, 0);
		atomic_init(&j.assert_msg, NULL);
		atomic_init(&j.fault_msg, NULL);
		rc = launch_job(p, &j, smem_bytes);
	}
	char *assert_msg = atomic_load_explicit(&j.assert_msg, memory_order_acquire);
	char *fault_msg = atomic_load_explicit(&j.fault_msg, memory_order_acquire);
	if (notes) {
		notes->asserts = atomic_load_explicit(&j.asserts, memory_order_relaxed);
		notes->faults = atomic_load_explicit(&j.faults, memory_order_relaxed);
		notes->assert_msg = assert_msg;
		notes->fault_msg = fault_msg;
	} else {
		free(assert_msg);
		free(fault_msg);
	}
	return rc;
}

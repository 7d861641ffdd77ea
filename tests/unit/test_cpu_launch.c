/* test_cpu_launch.c: the CPU grid runner (src/jit/cpu_launch.c).
 *
 * Every program instance runs exactly once with the right pid and nprog,
 * shared memory is 16-byte aligned, private to an instance while it runs and
 * big enough; grids of one instance run inline on the caller; launches from
 * several threads on one pool are all completed. A kernel that needs a deep
 * stack runs only on threads that have it, never on the caller. Instances
 * that wait for instances not started get threads (cpu_pool_spin). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jit/cpu_launch.h"

static int failures;
#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);      \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

typedef struct Grid {
	int32_t nx, ny, nz;
	atomic_int *hits; /* one counter per instance */
	atomic_int bad;   /* wrong nprog, misaligned smem, smem clobbered */
	size_t smem;
	pthread_t caller;
	atomic_int on_caller;
} Grid;

static void kernel(void **args, const int32_t pid[3], const int32_t nprog[3], void *smem, void *rt)
{
	Grid *g = args[0];
	(void)rt;
	if (nprog[0] != g->nx || nprog[1] != g->ny || nprog[2] != g->nz)
		atomic_fetch_add(&g->bad, 1);
	if (pid[0] < 0 || pid[0] >= g->nx || pid[1] < 0 || pid[1] >= g->ny || pid[2] < 0 ||
	    pid[2] >= g->nz) {
		atomic_fetch_add(&g->bad, 1);
		return;
	}
	if (g->smem) {
		if (!smem || (uintptr_t)smem % 16 != 0) {
			atomic_fetch_add(&g->bad, 1);
		} else {
			/* fill with this instance's id, then check nobody else wrote */
			int32_t id = pid[0] + g->nx * (pid[1] + g->ny * pid[2]);
			int32_t *s = smem;
			size_t n = g->smem / 4;
			for (size_t i = 0; i < n; i++)
				s[i] = id;
			for (size_t i = 0; i < n; i++)
				if (s[i] != id)
					atomic_fetch_add(&g->bad, 1);
		}
	}
	if (pthread_equal(pthread_self(), g->caller))
		atomic_fetch_add(&g->on_caller, 1);
	atomic_fetch_add(&g->hits[pid[0] + g->nx * (pid[1] + g->ny * pid[2])], 1);
}

static void run_grid(CpuPool *p, int32_t nx, int32_t ny, int32_t nz, size_t smem)
{
	Grid g = {.nx = nx, .ny = ny, .nz = nz, .smem = smem, .caller = pthread_self()};
	size_t total = (size_t)nx * ny * nz;
	g.hits = calloc(total ? total : 1, sizeof *g.hits);
	void *args[1] = {&g};
	uint32_t grid[3] = {(uint32_t)nx, (uint32_t)ny, (uint32_t)nz};
	CHECK(cpu_launch(p, kernel, args, grid, smem, 0, NULL, NULL) == 0);
	for (size_t i = 0; i < total; i++)
		if (atomic_load(&g.hits[i]) != 1) {
			fprintf(stderr, "grid %dx%dx%d smem %zu: instance %zu ran %d times\n", nx,
			        ny, nz, smem, i, atomic_load(&g.hits[i]));
			failures++;
			break;
		}
	CHECK(atomic_load(&g.bad) == 0);
	if (total == 1)
		CHECK(atomic_load(&g.on_caller) == 1); /* inline */
	free(g.hits);
}

static void *concurrent(void *arg)
{
	CpuPool *p = arg;
	for (int r = 0; r < 30; r++)
		run_grid(p, 17, 3, 2, r % 2 ? 256 : 0);
	return NULL;
}

/* ---- stopping a grid ------------------------------------------------------------- */

typedef struct Stop {
	CpuPool *pool; /* for concurrent_stop */
	int fail_at;   /* the instance that "fails a device_assert", or -1 */
	atomic_int runs;
	CpuLaunchNotes notes;
} Stop;

static void stop_kernel(void **args, const int32_t pid[3], const int32_t nprog[3], void *smem,
                        void *rt)
{
	Stop *s = args[0];
	(void)nprog, (void)smem, (void)rt;
	atomic_fetch_add(&s->runs, 1);
	if (pid[0] == s->fail_at) {
		char msg[32];
		snprintf(msg, sizeof msg, "instance %d", pid[0]);
		CHECK(cpu_launch_note(CPU_NOTE_ASSERT, msg) == 1);
		CHECK(cpu_launch_note(CPU_NOTE_FAULT, "a fault") == 1);
	}
}

static void launch_stop(CpuPool *p, Stop *s, uint32_t n, size_t smem)
{
	void *args[1] = {s};
	uint32_t grid[3] = {n, 1, 1};
	CHECK(cpu_launch(p, stop_kernel, args, grid, smem, 0, NULL, &s->notes) == 0);
	bool failed = s->fail_at >= 0 && (uint32_t)s->fail_at < n;
	CHECK(s->notes.asserts == failed && s->notes.faults == failed);
	char want[32];
	snprintf(want, sizeof want, "instance %d", s->fail_at);
	CHECK(failed ? s->notes.assert_msg && strcmp(s->notes.assert_msg, want) == 0 &&
	                       s->notes.fault_msg && strcmp(s->notes.fault_msg, "a fault") == 0
	             : !s->notes.assert_msg && !s->notes.fault_msg);
	free(s->notes.assert_msg);
	free(s->notes.fault_msg);
}

static void *concurrent_stop(void *arg)
{
	Stop *s = arg;
	launch_stop(s->pool, s, 5000, 0);
	return NULL;
}

/* Once an instance has failed a device_assert, no further instance starts,
 * as a GPU's trap ends the whole grid; those already running finish. The
 * launch reports it with its first message; launches made at once from
 * other threads report none of it and run whole. */
static void test_stop(void)
{
	CpuPool *one = cpu_pool_create(1);
	Stop s = {.fail_at = 3};
	launch_stop(one, &s, 1000, 0);
	CHECK(atomic_load(&s.runs) == 4); /* in order on one thread: 0..3 ran */
	Stop first = {.fail_at = 0}; /* a grid of one: the direct call */
	launch_stop(one, &first, 1, 0);
	launch_stop(one, &first, 1, 16);
	cpu_pool_destroy(one);
	CHECK(cpu_launch_note(CPU_NOTE_ASSERT, "x") == 0); /* not in an instance */

	CpuPool *p = cpu_pool_create(4);
	Stop m = {.fail_at = 0};
	launch_stop(p, &m, 100000, 64);
	CHECK(atomic_load(&m.runs) < 100000);
	Stop none = {.fail_at = -1}; /* nothing fails: the whole grid runs */
	launch_stop(p, &none, 100000, 0);
	CHECK(atomic_load(&none.runs) == 100000);
	Stop alone = {.fail_at = 2}; /* no pool: the grid on the caller */
	launch_stop(NULL, &alone, 1000, 0);
	CHECK(atomic_load(&alone.runs) == 3);

	enum { T = 6 };
	Stop at_once[T];
	pthread_t th[T];
	for (int t = 0; t < T; t++) /* even: instance 4000 fails; odd: none (1: without a pool) */
		at_once[t] = (Stop){.pool = t == 1 ? NULL : p, .fail_at = t % 2 ? -1 : 4000};
	for (int t = 0; t < T; t++)
		pthread_create(&th[t], NULL, concurrent_stop, &at_once[t]);
	for (int t = 0; t < T; t++)
		pthread_join(th[t], NULL);
	for (int t = 0; t < T; t++)
		if (at_once[t].fail_at < 0)
			CHECK(atomic_load(&at_once[t].runs) == 5000);
	cpu_pool_destroy(p);
}

/* ---- instances waiting for one another ------------------------------------------- */

typedef struct Wait {
	CpuPool *pool;
	int32_t total;
	int fail_at; /* the instance that "fails a device_assert", or -1 */
	atomic_int arrived, passed, gave_up;
} Wait;

/* A grid-wide barrier, spinning as a compiled while loop does: cpu_pool_spin
 * every 256 polls, ending the instance when it says the launch stopped. */
static void wait_kernel(void **args, const int32_t pid[3], const int32_t nprog[3], void *smem,
                        void *rt)
{
	Wait *w = args[0];
	(void)nprog, (void)smem, (void)rt;
	if (pid[0] == w->fail_at) {
		cpu_launch_note(CPU_NOTE_ASSERT, "the barrier fails");
		return;
	}
	atomic_fetch_add(&w->arrived, 1);
	time_t give_up = time(NULL) + 30; /* a failure, not a hang, without the threads */
	for (long i = 1; atomic_load(&w->arrived) < w->total; i++)
		if (i % 256 == 0 && (cpu_launch_spin() || time(NULL) > give_up)) {
			atomic_fetch_add(&w->gave_up, 1);
			return;
		}
	atomic_fetch_add(&w->passed, 1);
}

/* Instances that only compute for a while in a loop that calls
 * cpu_pool_spin (a long while loop): once some have finished, the pool
 * knows an instance's time and adds no thread for gaps shorter than that. */
typedef struct Busy {
	CpuPool *pool;
	pthread_mutex_t mu;
	pthread_t seen[1100];
	int nseen;
} Busy;

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void busy_kernel(void **args, const int32_t pid[3], const int32_t nprog[3], void *smem,
                        void *rt)
{
	Busy *b = args[0];
	(void)pid, (void)nprog, (void)smem, (void)rt;
	pthread_mutex_lock(&b->mu);
	int i = 0;
	while (i < b->nseen && !pthread_equal(b->seen[i], pthread_self()))
		i++;
	if (i == b->nseen && b->nseen < 1100)
		b->seen[b->nseen++] = pthread_self();
	pthread_mutex_unlock(&b->mu);
	int64_t end = mono_ns() + 6000000; /* 6 ms */
	for (long k = 1; mono_ns() < end; k++)
		if (k % 256 == 0)
			cpu_launch_spin();
}

static void run_wait(CpuPool *p, int32_t n, uint64_t stack, int fail_at)
{
	Wait w = {.pool = p, .total = n, .fail_at = fail_at};
	void *args[1] = {&w};
	uint32_t grid[3] = {(uint32_t)n, 1, 1};
	CpuLaunchNotes notes;
	CHECK(cpu_launch(p, wait_kernel, args, grid, 64, stack, NULL, &notes) == 0);
	CHECK(notes.asserts == (fail_at >= 0));
	free(notes.assert_msg);
	if (fail_at < 0)
		CHECK(atomic_load(&w.passed) == n && atomic_load(&w.gave_up) == 0);
	else /* the barrier never completes: every instance that started gives up */
		CHECK(atomic_load(&w.passed) == 0 && atomic_load(&w.arrived) == atomic_load(&w.gave_up));
}

typedef struct WaitLaunch {
	CpuPool *pool;
	int32_t n;
	uint64_t stack;
} WaitLaunch;

static void *concurrent_wait(void *arg)
{
	WaitLaunch *l = arg;
	run_wait(l->pool, l->n, l->stack, -1);
	return NULL;
}

/* Barrier launches from several threads at once: those that find the pool
 * busy run alone on their thread and are rescued too (each its own launch:
 * a spin adds threads to the launch of the instance that spins). */
static void test_wait_concurrent(CpuPool *p)
{
	WaitLaunch l[4] = {{p, 40, 0}, {p, 25, 0}, {p, 9, 2 << 20}, {p, 60, 0}};
	pthread_t th[4];
	for (int t = 0; t < 4; t++)
		pthread_create(&th[t], NULL, concurrent_wait, &l[t]);
	for (int t = 0; t < 4; t++)
		pthread_join(th[t], NULL);
}

/* More instances wait at a barrier than the pool has threads: stalls add
 * threads until all have arrived (on the caller's pool of one too, without
 * a pool, for a kernel with a deep stack, and for launches made at once from
 * several threads); a stopped launch ends its waiting instances. */
static void test_wait(void)
{
	CpuPool *one = cpu_pool_create(1), *two = cpu_pool_create(2);
	run_wait(one, 6, 0, -1);
	run_wait(two, 40, 0, -1);
	run_wait(two, 300, 0, -1);
	run_wait(two, 9, 2 << 20, -1); /* rescuers get the workers' deep stack */
	run_grid(two, 100, 1, 1, 64); /* the pool works as before after rescues */
	run_wait(two, 50, 0, 7);
	run_wait(one, 5, 0, 0);
	run_wait(NULL, 12, 0, -1);
	run_wait(NULL, 5, 2 << 20, -1);
	run_wait(NULL, 30, 0, 4);
	test_wait_concurrent(two);
	test_wait_concurrent(one);
	Busy b = {.pool = two};
	pthread_mutex_init(&b.mu, NULL);
	void *args[1] = {&b};
	uint32_t grid[3] = {150, 1, 1};
	CHECK(cpu_launch(two, busy_kernel, args, grid, 0, 0, NULL, NULL) == 0);
	CHECK(b.nseen <= 8); /* 2 to 4 here; 14 to 18 with a fixed 2 ms period */
	pthread_mutex_destroy(&b.mu);
	cpu_pool_destroy(one);
	cpu_pool_destroy(two);
	CHECK(cpu_launch_spin() == 0); /* not an instance: nothing to rescue */
}

/* ---- kernels with a deep stack ---------------------------------------------------- */

typedef struct Deep {
	uint64_t need;   /* the stack_bytes passed to cpu_launch */
	size_t use;      /* bytes of stack each instance really touches */
	pthread_t caller;
	atomic_int runs, on_caller, shallow;
} Deep;

/* Touches `n` bytes of this thread's stack, one byte per page. */
static __attribute__((noinline)) int touch_stack(size_t n)
{
	volatile char buf[n];
	for (size_t i = 0; i < n; i += 4096)
		buf[i] = (char)i;
	return buf[0] + buf[n - 1];
}

/* the size of the calling thread's stack, 0 when unknown */
static size_t own_stack(void)
{
	size_t n = 0;
	pthread_attr_t a;
	if (pthread_getattr_np(pthread_self(), &a) == 0) {
		pthread_attr_getstacksize(&a, &n);
		pthread_attr_destroy(&a);
	}
	return n;
}

static void deep_kernel(void **args, const int32_t pid[3], const int32_t nprog[3], void *smem,
                        void *rt)
{
	Deep *d = args[0];
	(void)pid, (void)nprog, (void)smem, (void)rt;
	if (pthread_equal(pthread_self(), d->caller))
		atomic_fetch_add(&d->on_caller, 1);
	else if (own_stack() < d->need)
		atomic_fetch_add(&d->shallow, 1);
	else if (d->use)
		touch_stack(d->use);
	atomic_fetch_add(&d->runs, 1);
}

/* Launches deep_kernel over nx instances; each runs once, on a thread with
 * at least `need` bytes of stack other than the caller. */
static void run_deep(CpuPool *p, int32_t nx, uint64_t need, size_t use)
{
	Deep d = {.need = need, .use = use, .caller = pthread_self()};
	void *args[1] = {&d};
	uint32_t grid[3] = {(uint32_t)nx, 1, 1};
	CHECK(cpu_launch(p, deep_kernel, args, grid, 64, need, NULL, NULL) == 0);
	CHECK(atomic_load(&d.runs) == nx);
	CHECK(atomic_load(&d.on_caller) == 0);
	CHECK(atomic_load(&d.shallow) == 0);
}

static void *concurrent_deep(void *arg)
{
	CpuPool *p = arg;
	for (int r = 0; r < 10; r++) {
		run_deep(p, 1 + r % 4, 3 << 20, 0);
		run_grid(p, 5, 2, 1, 32);
	}
	return NULL;
}

static void test_deep(void)
{
	CpuPool *p = cpu_pool_create(3);
	run_grid(p, 4, 1, 1, 0);     /* workers with the usual stack */
	run_deep(p, 1, 2 << 20, 1 << 20); /* a grid of one: still not on the caller */
	run_deep(p, 1, 24 << 20, 23 << 20); /* deeper than the workers' and main's stack */
	run_deep(p, 9, 2 << 20, 1 << 20);
	run_grid(p, 1, 1, 1, 0); /* small kernels: as before, inline for a grid of one */
	run_grid(p, 30, 2, 1, 128);
	uint32_t one[3] = {1, 1, 1};
	CHECK(cpu_launch(p, deep_kernel, NULL, one, 0, UINT64_MAX, NULL, NULL) == -3); /* no such stack */
	pthread_t th[3];
	for (int t = 0; t < 3; t++) /* some find the pool busy: a thread of their own */
		pthread_create(&th[t], NULL, concurrent_deep, p);
	for (int t = 0; t < 3; t++)
		pthread_join(th[t], NULL);
	cpu_pool_destroy(p);

	CpuPool *one_core = cpu_pool_create(1); /* no workers: one is started for it */
	run_deep(one_core, 3, 2 << 20, 1 << 20);
	run_grid(one_core, 4, 1, 1, 16);
	run_grid(one_core, 100, 1, 1, 16); /* the deep kernel's worker and the caller: 2 threads on a pool of 1 */
	cpu_pool_destroy(one_core);
	run_deep(NULL, 2, 2 << 20, 1 << 20); /* no pool: a thread of its own */
}

int main(void)
{
	CpuPool *p = cpu_pool_create(0);
	CHECK(p != NULL && cpu_pool_threads(p) >= 1);
	run_grid(p, 1, 1, 1, 0);
	run_grid(p, 1, 1, 1, 128);
	run_grid(p, 2, 1, 1, 0);
	run_grid(p, 1000, 1, 1, 0);
	run_grid(p, 7, 5, 3, 64);
	run_grid(p, 3, 1, 9, 4096);
	for (int r = 0; r < 200; r++) /* back-to-back launches, small and varied */
		run_grid(p, 1 + r % 13, 1 + r % 3, 1, (size_t)(r % 4) * 48);
	uint32_t zero[3] = {0, 4, 4};
	CHECK(cpu_launch(p, kernel, NULL, zero, 0, 0, NULL, NULL) == 0); /* nothing runs */
	uint32_t huge[3] = {0x80000000u, 1, 1};
	CHECK(cpu_launch(p, kernel, NULL, huge, 0, 0, NULL, NULL) == -1);
	pthread_t th[3];
	for (int t = 0; t < 3; t++)
		pthread_create(&th[t], NULL, concurrent, p);
	for (int t = 0; t < 3; t++)
		pthread_join(th[t], NULL);
	cpu_pool_destroy(p);
	cpu_pool_destroy(NULL);

	CpuPool *one = cpu_pool_create(1); /* no workers: everything on the caller */
	run_grid(one, 9, 2, 1, 32);
	cpu_pool_destroy(one);
	test_deep();
	test_stop();
	test_wait();
	if (failures)
		fprintf(stderr, "test_cpu_launch: %d failure(s)\n", failures);
	return failures ? 1 : 0;
}

/* nvrtc_memo.c: compilations one kernel's compile has made or started.
 *
 * A kernel whose cubin spills is compiled again without each register
 * choice in turn (driver/compile.c, try_variants), and where turning a choice
 * off changes nothing the CUDA C is the same text: chipmunk's fp8 GEMM at
 * 128x128x128, 4 warps, made 10 nvrtc runs of ~5 s, 4 of them of a source
 * already compiled. nvrtc_compile answers those from here: the same source,
 * name and options give the same output, so it is copied, not recomputed.
 * Keyed by SHA-256 of all three (nvrtc_request_key).
 *
 * The search's next programs can also be compiled ahead, each on its own
 * thread (nvrtc_memo_start): nvrtc compiles different programs at once, and
 * the search, which weighs one program at a time, then finds them here,
 * waiting for one still running. nvrtc_memo_free joins those threads. */
#include "jit/nvrtc.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/sha256.h"
#include "util/util.h"

/* as much as the main thread of a process usually has */
enum { AHEAD_STACK_BYTES = 8 << 20 };

typedef struct MemoEntry {
	uint8_t key[32];
	bool pending; /* being compiled ahead: out, ok and err are not set yet */
	bool ahead;   /* compiled ahead (TILE_NVRTC_LOG says so) */
	bool asked;   /* found by nvrtc_memo_find */
	bool ok;
	char *err; /* heap, when !ok */
	NvrtcOutput out;
} MemoEntry;

/* What a thread compiling ahead needs; it owns the copies. */
typedef struct AheadJob {
	NvrtcMemo *memo;
	int entry;
	char *src, *name, *suffix;
	char **opts;
	int nopts, sm;
	NvrtcWant want;
	bool locked; /* run_job holds memo->lock (for compile_ahead's unwinding) */
} AheadJob;

struct NvrtcMemo {
	pthread_mutex_t lock;
	pthread_cond_t done; /* an entry stopped pending */
	MemoEntry *entries;  /* by index: the array moves as it grows */
	int n, cap;
	pthread_t *threads;
	int nthreads;
};

NvrtcMemo *nvrtc_memo_new(void)
{
	NvrtcMemo *m = xcalloc(1, sizeof(NvrtcMemo));
	pthread_mutex_init(&m->lock, NULL);
	pthread_cond_init(&m->done, NULL);
	return m;
}

void nvrtc_memo_free(NvrtcMemo *m)
{
	if (!m)
		return;
	for (int i = 0; i < m->nthreads; i++)
		pthread_join(m->threads[i], NULL);
	int unasked = 0;
	for (int i = 0; i < m->n; i++)
		unasked += m->entries[i].ahead && !m->entries[i].asked;
	if (unasked && getenv("TILE_NVRTC_LOG"))
		fprintf(stderr, "tile: nvrtc: %d of %d compilations made ahead were not asked for\n", unasked,
		        m->nthreads);
	for (int i = 0; i < m->n; i++) {
		free(m->entries[i].err);
		nvrtc_output_free(&m->entries[i].out);
	}
	free(m->entries);
	free(m->threads);
	pthread_cond_destroy(&m->done);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

/* Each string with its NUL, so ("ab", "c") and ("a", "bc") differ. */
void nvrtc_memo_key(const char *src, const char *name, const char *const *opts, int nopts,
                    NvrtcWant want, uint8_t key[32])
{
	Sha256 s;
	sha256_init(&s);
	unsigned char w = (unsigned char)want;
	sha256_update(&s, &w, 1);
	sha256_update(&s, name, strlen(name) + 1);
	for (int i = 0; i < nopts; i++)
		sha256_update(&s, opts[i], strlen(opts[i]) + 1);
	sha256_update(&s, src, strlen(src) + 1);
	sha256_final(&s, key);
}

static char *dup_bytes(const char *p, size_t n)
{
	if (!p)
		return NULL;
	char *q = xmalloc(n + 1);
	memcpy(q, p, n);
	q[n] = 0;
	return q;
}

static void copy_output(NvrtcOutput *to, const NvrtcOutput *from)
{
	to->code = dup_bytes(from->code, from->code_len);
	to->code_len = from->code_len;
	to->ptx = from->ptx ? xstrdup(from->ptx) : NULL;
	to->log = from->log ? xstrdup(from->log) : NULL;
	to->seconds = 0; /* nothing was compiled for this caller */
}

static int find_locked(const NvrtcMemo *m, const uint8_t key[32])
{
	for (int i = 0; i < m->n; i++)
		if (!memcmp(m->entries[i].key, key, 32))
			return i;
	return -1;
}

/* Appends an entry (pending) for key; its index. */
static int append_locked(NvrtcMemo *m, const uint8_t key[32])
{
	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 8;
		m->entries = xrealloc(m->entries, (size_t)m->cap * sizeof *m->entries);
	}
	MemoEntry *e = &m->entries[m->n];
	memset(e, 0, sizeof *e);
	memcpy(e->key, key, 32);
	e->pending = true;
	return m->n++;
}

static void settle_locked(NvrtcMemo *m, int i, const NvrtcOutput *out, bool ok, const char *err)
{
	MemoEntry *e = &m->entries[i];
	e->ok = ok;
	e->err = ok ? NULL : xstrdup(err ? err : "");
	copy_output(&e->out, out);
	e->out.seconds = out->seconds;
	e->pending = false;
	pthread_cond_broadcast(&m->done);
}

bool nvrtc_memo_find(NvrtcMemo *m, const uint8_t key[32], NvrtcOutput *out, bool *ok,
                     bool *ahead, char *err, size_t errlen)
{
	if (!m)
		return false;
	pthread_mutex_lock(&m->lock);
	int i = find_locked(m, key);
	while (i >= 0 && m->entries[i].pending)
		pthread_cond_wait(&m->done, &m->lock);
	if (i >= 0) {
		MemoEntry *e = &m->entries[i];
		e->asked = true;
		copy_output(out, &e->out);
		*ok = e->ok;
		if (ahead)
			*ahead = e->ahead;
		if (!e->ok && errlen)
			snprintf(err, errlen, "%s", e->err ? e->err : "");
	}
	pthread_mutex_unlock(&m->lock);
	return i >= 0;
}

void nvrtc_memo_add(NvrtcMemo *m, const uint8_t key[32], const NvrtcOutput *out, bool ok,
                    const char *err)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	if (find_locked(m, key) < 0) /* compiled ahead meanwhile: the same output */
		settle_locked(m, append_locked(m, key), out, ok, err);
	pthread_mutex_unlock(&m->lock);
}

static void free_job(AheadJob *j)
{
	for (int i = 0; i < j->nopts; i++)
		free(j->opts[i]);
	free(j->opts);
	free(j->src);
	free(j->name);
	free(j->suffix);
	free(j);
}

static void run_job(void *arg)
{
	AheadJob *j = arg;
	NvrtcOutput out;
	memset(&out, 0, sizeof out);
	char err[512] = "";
	Nvrtc nv;
	bool ok = nvrtc_open(&nv, err, sizeof err);
	if (ok)
		ok = nvrtc_run(&nv, j->src, j->name, j->sm, j->suffix, j->want,
		               (const char *const *)j->opts, j->nopts, &out, err, sizeof err);
	nvrtc_close(&nv);
	pthread_mutex_lock(&j->memo->lock);
	j->locked = true;
	settle_locked(j->memo, j->entry, &out, ok, err);
	j->locked = false;
	pthread_mutex_unlock(&j->memo->lock);
	nvrtc_output_free(&out);
}

static void *compile_ahead(void *arg)
{
	AheadJob *j = arg;
	/* out of memory here ends this compilation, not the process: the
	 * entry fails with no output, and the search's request for it fails */
	char *ice_msg = NULL;
	if (ice_protect(run_job, j, &ice_msg) != 0) {
		NvrtcMemo *m = j->memo;
		if (!j->locked) /* else it ended inside settle_locked, holding the lock */
			pthread_mutex_lock(&m->lock);
		MemoEntry *e = &m->entries[j->entry];
		if (e->pending) { /* what settle_locked may have copied is left, not freed */
			memset(&e->out, 0, sizeof e->out);
			e->ok = false;
			e->err = ice_msg;
			ice_msg = NULL;
			e->pending = false;
			pthread_cond_broadcast(&m->done);
		}
		pthread_mutex_unlock(&m->lock);
		free(ice_msg);
	}
	free_job(j);
	return NULL;
}

bool nvrtc_memo_start(NvrtcMemo *m, const char *src, const char *name, int sm,
                      const char *arch_suffix, NvrtcWant want, const char *const *extra_opts,
                      int nextra)
{
	if (!m)
		return false;
	uint8_t key[32];
	nvrtc_request_key(src, name, sm, arch_suffix, want, extra_opts, nextra, key);
	if (want == NVRTC_CUBIN) /* as nvrtc_compile asks with a memo */
		want = NVRTC_CUBIN_PTX;
	pthread_mutex_lock(&m->lock);
	bool started = false;
	if (find_locked(m, key) < 0) {
		AheadJob *j = xcalloc(1, sizeof *j);
		j->memo = m;
		j->src = xstrdup(src);
		j->name = xstrdup(name);
		j->suffix = xstrdup(arch_suffix ? arch_suffix : "");
		j->sm = sm;
		j->want = want;
		j->nopts = nextra;
		j->opts = xcalloc((size_t)(nextra > 0 ? nextra : 1), sizeof *j->opts);
		for (int i = 0; i < nextra; i++)
			j->opts[i] = xstrdup(extra_opts[i]);
		j->entry = append_locked(m, key);
		m->entries[j->entry].ahead = true;
		m->threads = xrealloc(m->threads, (size_t)(m->nthreads + 1) * sizeof *m->threads);
		/* nvrtc's own stack, not the platform's default for new threads
		 * (glibc's is the stack limit, musl's 128 KiB) */
		pthread_attr_t attr;
		started = !pthread_attr_init(&attr);
		if (started) {
			pthread_attr_setstacksize(&attr, AHEAD_STACK_BYTES);
			started = !pthread_create(&m->threads[m->nthreads], &attr, compile_ahead, j);
			pthread_attr_destroy(&attr);
		}
		if (started) {
			m->nthreads++;
		} else { /* no thread: the entry goes, the search compiles it itself */
			m->n--;
			free_job(j);
		}
	}
	pthread_mutex_unlock(&m->lock);
	return started;
}

/* nvrtc_memo.c: compilations one kernel's compile has already made.
 *
 * A kernel whose cubin spills is compiled again without each register
 * choice in turn (driver/compile.c, try_variants), and where turning a choice
 * off changes nothing the CUDA C is the same text: chipmunk's fp8 GEMM at
 * 128x128x128, 4 warps, made 10 nvrtc runs of ~5 s, 4 of them of a source
 * already compiled. nvrtc_compile answers those from here: the same source,
 * name and options give the same output, so it is copied, not recomputed.
 * Keyed by SHA-256 of all three; one memo serves one compile (one thread). */
#include "jit/nvrtc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/sha256.h"
#include "util/util.h"

typedef struct MemoEntry {
	uint8_t key[32];
	bool ok;
	char *err; /* heap, when !ok */
	NvrtcOutput out;
} MemoEntry;

struct NvrtcMemo {
	MemoEntry *entries;
	int n, cap;
};

NvrtcMemo *nvrtc_memo_new(void) { return xcalloc(1, sizeof(NvrtcMemo)); }

void nvrtc_memo_free(NvrtcMemo *m)
{
	if (!m)
		return;
	for (int i = 0; i < m->n; i++) {
		free(m->entries[i].err);
		nvrtc_output_free(&m->entries[i].out);
	}
	free(m->entries);
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
	to->seconds = 0; /* nothing was compiled this time */
}

bool nvrtc_memo_find(const NvrtcMemo *m, const uint8_t key[32], NvrtcOutput *out, bool *ok,
                     char *err, size_t errlen)
{
	for (int i = 0; m && i < m->n; i++) {
		const MemoEntry *e = &m->entries[i];
		if (memcmp(e->key, key, 32))
			continue;
		copy_output(out, &e->out);
		*ok = e->ok;
		if (!e->ok && errlen)
			snprintf(err, errlen, "%s", e->err ? e->err : "");
		return true;
	}
	return false;
}

void nvrtc_memo_add(NvrtcMemo *m, const uint8_t key[32], const NvrtcOutput *out, bool ok,
                    const char *err)
{
	if (!m)
		return;
	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 8;
		m->entries = xrealloc(m->entries, (size_t)m->cap * sizeof *m->entries);
	}
	MemoEntry *e = &m->entries[m->n++];
	memcpy(e->key, key, 32);
	e->ok = ok;
	e->err = ok ? NULL : xstrdup(err ? err : "");
	copy_output(&e->out, out);
	e->out.seconds = out->seconds;
}

/* kernel_blob.c: (de)serialization of compiled kernels.
 *
 * Layout, little-endian: "TKRN" u32 version | name | TargetDesc fields |
 * num_warps threads smem | u64 stack | nargs | nargs x (name, dt, elem, spec) |
 * u64 len | binary.
 * Strings are u32 length + bytes. Decoding checks every length against the
 * remaining bytes, so a damaged payload is rejected, never over-read.
 */
#include <stdlib.h>
#include <string.h>

#include "driver/kernel_blob.h"

enum { BLOB_VERSION = 3 };

typedef struct Reader {
	const uint8_t *p, *end;
	bool bad;
} Reader;

static void put(StrBuf *b, const void *p, size_t n) { sb_putn(b, p, n); }
static void put_u32(StrBuf *b, uint32_t v) { put(b, &v, 4); }
static void put_str(StrBuf *b, const char *s)
{
	put_u32(b, (uint32_t)strlen(s));
	put(b, s, strlen(s));
}

static void get(Reader *r, void *out, size_t n)
{
	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = true;
		memset(out, 0, n);
		return;
	}
	memcpy(out, r->p, n);
	r->p += n;
}
static uint32_t get_u32(Reader *r)
{
	uint32_t v;
	get(r, &v, 4);
	return v;
}
static void get_str(Reader *r, char *buf, size_t cap)
{
	uint32_t n = get_u32(r);
	if (n >= cap) {
		r->bad = true;
		buf[0] = 0;
		return;
	}
	get(r, buf, n);
	buf[r->bad ? 0 : n] = 0;
}
/* A string of any length the data holds (heap; "" when damaged). */
static char *get_str_dup(Reader *r)
{
	uint32_t n = get_u32(r);
	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = true;
		return xstrdup("");
	}
	char *s = xmalloc((size_t)n + 1);
	get(r, s, n);
	s[n] = 0;
	return s;
}

void *kernel_blob_encode(const CompiledKernel *k, size_t *len)
{
	StrBuf b = {0};
	put(&b, "TKRN", 4);
	put_u32(&b, BLOB_VERSION);
	put_str(&b, k->name);
	put_u32(&b, (uint32_t)k->target.kind);
	put_str(&b, k->target.name);
	put_u32(&b, (uint32_t)k->target.arch);
	put_u32(&b, (uint32_t)k->target.lanes_per_warp);
	put_u32(&b, (uint32_t)k->target.max_threads);
	put_u32(&b, (uint32_t)k->target.max_shared_bytes);
	put_u32(&b, (uint32_t)(k->target.emulate | k->target.has_mma_sync << 1 |
			       k->target.has_ldmatrix << 2 | k->target.has_cp_async << 3 |
			       k->target.has_mma_fp8 << 4 | k->target.has_vector_atomics << 5));
	put_u32(&b, (uint32_t)k->num_warps);
	put_u32(&b, (uint32_t)k->threads);
	put_u32(&b, (uint32_t)k->smem_bytes);
	put(&b, &k->stack_bytes, 8);
	put_u32(&b, (uint32_t)k->registers);
	put_u32(&b, (uint32_t)k->spill_bytes);
	put_u32(&b, (uint32_t)k->nargs);
	for (int i = 0; i < k->nargs; i++) {
		put_str(&b, k->args[i].name);
		uint8_t f[3] = {k->args[i].dt, k->args[i].elem, k->args[i].spec};
		put(&b, f, 3);
	}
	uint64_t n = k->binary_len;
	put(&b, &n, 8);
	put(&b, k->binary, k->binary_len);
	*len = b.len;
	return sb_take(&b);
}

int kernel_blob_decode(const void *data, size_t len, CompiledKernel *out)
{
	Reader r = {data, (const uint8_t *)data + len, false};
	memset(out, 0, sizeof *out);
	char magic[4];
	get(&r, magic, 4);
	if (r.bad || memcmp(magic, "TKRN", 4) != 0 || get_u32(&r) != BLOB_VERSION)
		return -1;
	out->name = get_str_dup(&r);
	out->target.kind = (TargetKind)get_u32(&r);
	get_str(&r, out->target.name, sizeof out->target.name);
	out->target.arch = (int)get_u32(&r);
	out->target.lanes_per_warp = (int)get_u32(&r);
	out->target.max_threads = (int)get_u32(&r);
	out->target.max_shared_bytes = (int)get_u32(&r);
	uint32_t flags = get_u32(&r);
	out->target.emulate = flags & 1;
	out->target.has_mma_sync = flags >> 1 & 1;
	out->target.has_ldmatrix = flags >> 2 & 1;
	out->target.has_cp_async = flags >> 3 & 1;
	out->target.has_mma_fp8 = flags >> 4 & 1;
	out->target.has_vector_atomics = flags >> 5 & 1;
	out->num_warps = (int)get_u32(&r);
	out->threads = (int)get_u32(&r);
	out->smem_bytes = (int)get_u32(&r);
	get(&r, &out->stack_bytes, 8);
	out->registers = (int)get_u32(&r);
	out->spill_bytes = (int)get_u32(&r);
	uint32_t nargs = get_u32(&r);
	/* a launch sizes its threads and shared memory from these: a negative one
	 * (a flipped sign bit) is damage, not a request for 2^64 bytes */
	if (r.bad || nargs > 4096 || out->num_warps < 1 || out->threads < 1 || out->smem_bytes < 0 ||
	    out->registers < -1 || out->spill_bytes < -1) {
		free(out->name);
		memset(out, 0, sizeof *out);
		return -1;
	}
	out->nargs = (int)nargs;
	out->args = xcalloc(nargs ? nargs : 1, sizeof *out->args);
	for (uint32_t i = 0; i < nargs && !r.bad; i++) {
		get_str(&r, out->args[i].name, sizeof out->args[i].name);
		uint8_t f[3];
		get(&r, f, 3);
		out->args[i].dt = f[0];
		out->args[i].elem = f[1];
		out->args[i].spec = f[2];
	}
	uint64_t n = 0;
	get(&r, &n, 8);
	if (r.bad || n != (uint64_t)(r.end - r.p)) {
		free(out->name);
		free(out->args);
		memset(out, 0, sizeof *out);
		return -1;
	}
	out->binary = xmalloc(n ? n : 1);
	memcpy(out->binary, r.p, n);
	out->binary_len = n;
	return 0;
}

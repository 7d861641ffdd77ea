/* cache.c: the on-disk kernel cache (see cache.h for the format and rules).
 * Every failure here degrades to "no cache"; nothing is fatal. */
#include "jit/cache.h"
#include "util/checksum.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static const char magic[8] = {'T', 'I', 'L', 'E', 'C', 'A', 'C', 'H'};

enum { TMP_STALE_SECONDS = 3600 };
#define TMP_PREFIX ".tmp."

/* ---- keys ------------------------------------------------------------------------- */

static void put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

void cache_key_begin(CacheKey *k)
{
	sha256_init(&k->sha);
	sha256_update(&k->sha, "tile-cache-key", 14);
}

static void key_field(CacheKey *k, uint8_t tag, const void *p, size_t n)
{
	uint8_t hdr[9];
	hdr[0] = tag;
	put_le(hdr + 1, n, 8);
	sha256_update(&k->sha, hdr, sizeof hdr);
	if (n)
		sha256_update(&k->sha, p, n);
}

void cache_key_add_bytes(CacheKey *k, const void *p, size_t n) { key_field(k, 'b', p, n); }

void cache_key_add_str(CacheKey *k, const char *s)
{
	if (s)
		key_field(k, 's', s, strlen(s));
	else
		key_field(k, 'n', NULL, 0);
}

void cache_key_add_u64(CacheKey *k, uint64_t v)
{
	uint8_t b[8];
	put_le(b, v, 8);
	key_field(k, 'u', b, 8);
}

void cache_key_end(CacheKey *k, uint8_t key[32]) { sha256_final(&k->sha, key); }

/* ---- warnings ---------------------------------------------------------------------- */

static void warn_dir(Cache *c, const char *dir, const char *reason)
{
	c->enabled = false;
	if (c->warned_dir || !c->diags)
		return;
	c->warned_dir = true;
	diag_emit(c->diags, DIAG_WARNING, (SrcLoc){0},
	          "cannot write cache directory %s: %s; compiling without a cache", dir, reason);
}

/* A warning about entry `name`, the first time only. */
static void PRINTF_LIKE(3, 4) warn_once(Cache *c, const char *name, const char *fmt, ...)
{
	for (size_t i = 0; i < c->warned.len; i++)
		if (strcmp(c->warned.data[i], name) == 0)
			return;
	vec_push(&c->warned, xstrdup(name));
	if (!c->diags)
		return;
	StrBuf msg = {0};
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(&msg, fmt, ap);
	va_end(ap);
	diag_emit(c->diags, DIAG_WARNING, (SrcLoc){0}, "%s", msg.s);
	sb_free(&msg);
}

static void warn_damaged(Cache *c, const char *path, const char *name)
{
	warn_once(c, name, "cache entry %s is damaged; rebuilding", path);
}

/* ---- open / close ----------------------------------------------------------------- */

/* mkdir -p; 0 or -1 with errno. */
static int mkdir_p(const char *path)
{
	char *p = xstrdup(path);
	int r = 0;
	for (char *s = p + 1;; s++) {
		if (*s != '/' && *s != 0)
			continue;
		char saved = *s;
		*s = 0;
		if (mkdir(p, 0755) != 0 && errno != EEXIST) {
			r = -1;
			break;
		}
		*s = saved;
		if (!saved)
			break;
	}
	int e = errno;
	free(p);
	if (r == 0) {
		struct stat st;
		if (stat(path, &st) != 0)
			return -1;
		if (!S_ISDIR(st.st_mode)) {
			errno = ENOTDIR;
			return -1;
		}
	} else {
		errno = e;
	}
	return r;
}

static char *default_dir(void)
{
	const char *e = getenv("TILE_CACHE_DIR");
	if (e && *e)
		return xstrdup(e);
	StrBuf b = {0};
	e = getenv("XDG_CACHE_HOME");
	if (e && *e == '/') { /* a relative one is invalid (the XDG spec): it would put
	                        caches in whatever directory tile runs from */
		sb_printf(&b, "%s/tile", e);
		return sb_take(&b);
	}
	e = getenv("HOME");
	if (!e || *e != '/') { /* unset, empty or relative (the cache would follow the
	                          current directory, as a relative XDG_CACHE_HOME) */
		struct passwd *pw = getpwuid(getuid());
		e = pw ? pw->pw_dir : NULL;
	}
	if (!e || !*e)
		return NULL;
	sb_printf(&b, "%s/.cache/tile", e);
	return sb_take(&b);
}

/* *bad set when s is given but is no size */
static uint64_t parse_size(const char *s, uint64_t dflt, bool *bad)
{
	*bad = false;
	if (!s || !*s)
		return dflt;
	*bad = true;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || strchr(s, '-')) /* strtoull takes "-1" as 2^64 - 1 */
		return dflt;
	int shift = 0;
	switch (*end) {
	case 'k':
	case 'K': shift = 10; break;
	case 'm':
	case 'M': shift = 20; break;
	case 'g':
	case 'G': shift = 30; break;
	default: break;
	}
	if (shift) {
		end++;
		v = v > (UINT64_MAX >> shift) ? UINT64_MAX : v << shift; /* never wraps to a tiny cap */
	}
	if (*end == 'i')
		end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end)
		return dflt;
	*bad = false;
	return (uint64_t)v;
}

static void open_at(Cache *c, const char *dir_or_null, DiagSink *diags, bool create)
{
	memset(c, 0, sizeof *c);
	c->diags = diags;
	const char *cap = getenv("TILE_CACHE_MAX_BYTES");
	bool bad_cap;
	c->max_bytes = parse_size(cap, (uint64_t)1 << 30, &bad_cap);
	if (bad_cap && diags) /* a typo would otherwise leave the 1 GiB default unnoticed */
		diag_emit(diags, DIAG_WARNING, (SrcLoc){0},
		          "TILE_CACHE_MAX_BYTES='%s' is not a size (bytes, or a number with K, M or G "
		          "such as 512M); using 1G",
		          cap);
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	c->rng = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)ts.tv_sec ^
	         (uint64_t)getpid() << 32 ^ (uint64_t)(uintptr_t)c;
	if (!c->rng)
		c->rng = 1;
	c->dir = dir_or_null && *dir_or_null ? xstrdup(dir_or_null) : default_dir();
	if (!c->dir) {
		warn_dir(c, "~/.cache/tile", "HOME is not set");
		return;
	}
	size_t n = strlen(c->dir);
	while (n > 1 && c->dir[n - 1] == '/')
		c->dir[--n] = 0;
	if (create ? mkdir_p(c->dir) != 0 : access(c->dir, F_OK) != 0) {
		if (!create && errno == ENOENT)
			return; /* nothing there yet: disabled, quietly, and the dir stays absent */
		warn_dir(c, c->dir, strerror(errno));
		return;
	}
	if (access(c->dir, W_OK | X_OK) != 0) {
		int e = errno;
		/* entries another user or an image put there can still be used */
		if ((e == EACCES || e == EROFS) && access(c->dir, R_OK | X_OK) == 0) {
			c->enabled = c->read_only = true;
			return;
		}
		warn_dir(c, c->dir, strerror(e));
		return;
	}
	c->enabled = true;
}

void cache_open(Cache *c, const char *dir_or_null, DiagSink *diags) { open_at(c, dir_or_null, diags, true); }

void cache_open_existing(Cache *c, const char *dir_or_null, DiagSink *diags)
{
	open_at(c, dir_or_null, diags, false);
}

void cache_close(Cache *c)
{
	for (size_t i = 0; i < c->warned.len; i++)
		free(c->warned.data[i]);
	vec_free(&c->warned);
	free(c->dir);
	c->dir = NULL;
	c->enabled = false;
}

bool cache_entry_path(const Cache *c, const uint8_t key[32], char *buf, size_t cap)
{
	if (!c->dir)
		return false;
	char hex[65];
	sha256_hex(key, hex);
	int n = snprintf(buf, cap, "%s/%s.tc", c->dir, hex);
	return n > 0 && (size_t)n < cap;
}

static char *entry_path(const Cache *c, const uint8_t key[32])
{
	size_t cap = strlen(c->dir) + 72;
	char *p = xmalloc(cap);
	cache_entry_path(c, key, p, cap);
	return p;
}

/* ---- get --------------------------------------------------------------------------- */

static bool read_all(int fd, void *buf, size_t n)
{
	char *p = buf;
	while (n) {
		ssize_t r = read(fd, p, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		p += r;
		n -= (size_t)r;
	}
	return true;
}

/* The entry's check: the payload's checksum128, seeded with the key, and
 * the key's first 16 bytes, so that an entry copied or renamed to another
 * key's file name (or a shared directory mixing them up) is damaged, never
 * another kernel's code run in place of this one. */
static void entry_sum(const uint8_t key[32], const void *payload, size_t n, uint8_t out[32])
{
	uint64_t seed = 0;
	for (int i = 0; i < 4; i++)
		seed = (seed << 17 | seed >> 47) ^ get_le(key + 8 * i, 8);
	checksum128(payload, n, seed, out);
	memcpy(out + 16, key, 16);
}

/* 1 = valid (payload returned), 0 = absent or another format version,
 * -1 = damaged, -2 = a directory (which unlink cannot remove, and which
 * cache_put cannot rename a file over). */

static int read_entry(const char *path, const uint8_t key[32], void **payload, size_t *len)
{
	/* O_NONBLOCK: a FIFO in the entry's place opens without waiting for a
	 * writer, and is then rejected as not a regular file */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return 0;
	struct stat st;
	uint8_t hdr[CACHE_HEADER_SIZE];
	int r = -1;
	void *buf = NULL;
	if (fstat(fd, &st) != 0)
		goto out;
	if (S_ISDIR(st.st_mode)) {
		r = -2;
		goto out;
	}
	if (!S_ISREG(st.st_mode) || st.st_size < CACHE_HEADER_SIZE ||
	    !read_all(fd, hdr, sizeof hdr) || memcmp(hdr, magic, 8) != 0)
		goto out;
	if (get_le(hdr + 8, 4) != CACHE_FORMAT_VERSION) {
		r = 0; /* written by another version of tile: a plain miss */
		goto out;
	}
	uint64_t n = get_le(hdr + 12, 8);
	if (n != (uint64_t)st.st_size - CACHE_HEADER_SIZE)
		goto out;
	buf = malloc(n ? (size_t)n : 1);
	if (!buf || !read_all(fd, buf, (size_t)n))
		goto out;
	uint8_t sum[32];
	entry_sum(key, buf, (size_t)n, sum);
	if (memcmp(sum, hdr + 20, 32) != 0)
		goto out;
	*payload = buf;
	*len = (size_t)n;
	buf = NULL;
	r = 1;
out:
	free(buf);
	close(fd);
	return r;
}

bool cache_get(Cache *c, const uint8_t key[32], void **payload, size_t *len)
{
	*payload = NULL;
	*len = 0;
	if (!c->enabled) {
		c->misses++;
		return false;
	}
	char *path = entry_path(c, key);
	int r = read_entry(path, key, payload, len);
	if (r == -2) {
		/* an empty one is removed (the kernel is then cached as usual);
		 * another stays, and the kernel is compiled without the cache */
		if (rmdir(path) != 0)
			warn_once(c, strrchr(path, '/') + 1, "cache entry %s is a directory, not a file: "
			          "compiling this kernel without caching it (remove the directory to cache "
			          "it again)", path);
	} else if (r < 0) {
		warn_damaged(c, path, strrchr(path, '/') + 1);
		unlink(path);
	} else if (r > 0) {
		utimensat(AT_FDCWD, path, NULL, 0); /* refresh for LRU eviction */
	}
	free(path);
	if (r > 0)
		c->hits++;
	else
		c->misses++;
	return r > 0;
}

void cache_discard(Cache *c, const uint8_t key[32])
{
	if (!c->enabled)
		return;
	char *path = entry_path(c, key);
	warn_damaged(c, path, strrchr(path, '/') + 1);
	unlink(path);
	free(path);
}

/* ---- put ---------------------------------------------------------------------------- */

static uint64_t next_random(Cache *c)
{
	uint64_t x = c->rng; /* xorshift64 */
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	c->rng = x;
	return x;
}

static bool write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	while (n) {
		ssize_t r = write(fd, p, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0)
				errno = ENOSPC;
			return false;
		}
		p += r;
		n -= (size_t)r;
	}
	return true;
}

static void evict(Cache *c, const char *keep);

bool cache_put(Cache *c, const uint8_t key[32], const void *payload, size_t len)
{
	if (!c->enabled)
		return false;
	if (c->read_only) {
		if (!c->warned_dir && c->diags)
			diag_emit(c->diags, DIAG_WARNING, (SrcLoc){0},
			          "cache directory %s is read-only: kernels are taken from it but not added", c->dir);
		c->warned_dir = true;
		return false;
	}
	/* A file past the process's size limit (ulimit -f) kills it with
	 * SIGXFSZ, unless ignored, halfway through the entry: the run was lost
	 * for a cache entry. Such an entry is not written. */
	struct rlimit fsz;
	if (getrlimit(RLIMIT_FSIZE, &fsz) == 0 && fsz.rlim_cur != RLIM_INFINITY &&
	    (uint64_t)fsz.rlim_cur < (uint64_t)CACHE_HEADER_SIZE + len) {
		if (!c->warned_fsize && c->diags)
			diag_emit(c->diags, DIAG_WARNING, (SrcLoc){0},
			          "a cache entry of %llu bytes is over the file size limit (ulimit -f: %llu bytes): "
			          "not added to %s", (unsigned long long)(CACHE_HEADER_SIZE + len),
			          (unsigned long long)fsz.rlim_cur, c->dir);
		c->warned_fsize = true;
		return false;
	}
	uint8_t hdr[CACHE_HEADER_SIZE];
	memcpy(hdr, magic, 8);
	put_le(hdr + 8, CACHE_FORMAT_VERSION, 4);
	put_le(hdr + 12, len, 8);
	entry_sum(key, payload, len, hdr + 20);

	StrBuf tmp = {0};
	sb_printf(&tmp, "%s/" TMP_PREFIX "%ld.%016llx.%u", c->dir, (long)getpid(),
	          (unsigned long long)next_random(c), c->counter++);
	char *path = entry_path(c, key);
	bool ok = false;
	int fd = open(tmp.s, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		warn_dir(c, c->dir, strerror(errno));
		goto out;
	}
	ok = write_all(fd, hdr, sizeof hdr) && (len == 0 || write_all(fd, payload, len));
	int e = errno;
	if (close(fd) != 0 && ok) {
		ok = false;
		e = errno;
	}
	if (ok && rename(tmp.s, path) != 0) {
		ok = false;
		e = errno;
	}
	if (!ok) {
		unlink(tmp.s);
		if (e == ENOSPC || e == EDQUOT || e == EROFS || e == EACCES || e == EPERM || e == EFBIG)
			warn_dir(c, c->dir, strerror(e));
		goto out;
	}
	c->puts++;
	if (c->max_bytes)
		evict(c, strrchr(path, '/') + 1);
out:
	free(path);
	sb_free(&tmp);
	return ok;
}

/* ---- listing, eviction, clearing ---------------------------------------------------- */

typedef struct Entry {
	char *name;
	uint64_t bytes;
	double mtime;
} Entry;

typedef VEC(Entry) Entries;

/* Names are matched exactly, as the directory may hold other files (a
 * TILE_CACHE_DIR set to a project's folder): clear and eviction delete only
 * what the cache wrote. */
static size_t hex_run(const char *s)
{
	size_t n = 0;
	while ((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f'))
		n++;
	return n;
}

static size_t digit_run(const char *s)
{
	size_t n = 0;
	while (s[n] >= '0' && s[n] <= '9')
		n++;
	return n;
}

/* HEX(key).tc: 64 lowercase hex digits */
static bool is_entry_name(const char *n) { return hex_run(n) == 64 && strcmp(n + 64, ".tc") == 0; }

/* .tmp.PID.RANDOM.COUNTER as cache_put names them (RANDOM: 16 hex digits) */
static bool is_tmp_name(const char *n)
{
	size_t k;
	if (strncmp(n, TMP_PREFIX, strlen(TMP_PREFIX)) != 0)
		return false;
	n += strlen(TMP_PREFIX);
	if (!(k = digit_run(n)) || n[k] != '.')
		return false;
	n += k + 1;
	if (hex_run(n) != 16 || n[16] != '.')
		return false;
	n += 17;
	return (k = digit_run(n)) && n[k] == 0;
}

/* Reads the entries (and, with tmps, the temporary files) of the directory. */
static int scan(Cache *c, Entries *out, bool tmps)
{
	if (!c->dir)
		return -1;
	DIR *d = opendir(c->dir);
	if (!d)
		return -1;
	struct dirent *de;
	StrBuf p = {0};
	while ((de = readdir(d))) {
		bool tmp = is_tmp_name(de->d_name);
		if (!is_entry_name(de->d_name) && !(tmps && tmp))
			continue;
		p.len = 0;
		sb_printf(&p, "%s/%s", c->dir, de->d_name);
		struct stat st;
		if (lstat(p.s, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		Entry e = {xstrdup(de->d_name), (uint64_t)st.st_size,
		           (double)st.st_mtim.tv_sec + (double)st.st_mtim.tv_nsec * 1e-9};
		vec_push(out, e);
	}
	sb_free(&p);
	closedir(d);
	return 0;
}

static void entries_free(Entries *es)
{
	for (size_t i = 0; i < es->len; i++)
		free(es->data[i].name);
	vec_free(es);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const Entry *)a)->name, ((const Entry *)b)->name);
}

static int by_age(const void *a, const void *b)
{
	const Entry *x = a, *y = b;
	if (x->mtime != y->mtime)
		return x->mtime < y->mtime ? -1 : 1;
	return strcmp(x->name, y->name);
}

static bool remove_named(Cache *c, const char *name)
{
	StrBuf p = {0};
	sb_printf(&p, "%s/%s", c->dir, name);
	bool ok = unlink(p.s) == 0 || errno == ENOENT;
	sb_free(&p);
	return ok;
}

static void evict(Cache *c, const char *keep)
{
	Entries es = {0};
	if (scan(c, &es, false) != 0)
		return;
	uint64_t total = 0;
	for (size_t i = 0; i < es.len; i++)
		total += es.data[i].bytes;
	if (total > c->max_bytes) {
		uint64_t target = c->max_bytes / 10 * 9;
		qsort(es.data, es.len, sizeof *es.data, by_age);
		for (size_t i = 0; i < es.len && total > target; i++) {
			if (strcmp(es.data[i].name, keep) == 0)
				continue;
			if (remove_named(c, es.data[i].name)) {
				total -= es.data[i].bytes;
				c->evictions++;
			}
		}
	}
	entries_free(&es);
}

int64_t cache_total_bytes(Cache *c)
{
	Entries es = {0};
	if (scan(c, &es, false) != 0)
		return -1;
	int64_t total = 0;
	for (size_t i = 0; i < es.len; i++)
		total += (int64_t)es.data[i].bytes;
	entries_free(&es);
	return total;
}

int cache_list(Cache *c, void (*fn)(void *user, const char *name, size_t bytes, double mtime),
               void *user)
{
	Entries es = {0};
	if (scan(c, &es, false) != 0)
		return -1;
	if (es.len)
		qsort(es.data, es.len, sizeof *es.data, by_name);
	for (size_t i = 0; i < es.len; i++)
		fn(user, es.data[i].name, (size_t)es.data[i].bytes, es.data[i].mtime);
	int n = (int)es.len;
	entries_free(&es);
	return n;
}

int cache_clear(Cache *c)
{
	Entries es = {0};
	if (scan(c, &es, true) != 0)
		return -1;
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	int n = 0;
	bool failed = false;
	for (size_t i = 0; i < es.len; i++) {
		const Entry *e = &es.data[i];
		bool tmp = is_tmp_name(e->name);
		if (tmp && (double)now.tv_sec - e->mtime < TMP_STALE_SECONDS)
			continue; /* another process may be writing it right now */
		if (remove_named(c, e->name))
			n += !tmp;
		else
			failed = true; /* a read-only directory: not "removed 0 entries" */
	}
	entries_free(&es);
	return failed ? -1 : n;
}

/* test_cache.c: the on-disk kernel cache: round trips, damaged entries,
 * unusable directories, size cap eviction, listing and clearing. */
#include "jit/cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int failures;
#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);      \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

static char root[] = "/tmp/tile-test-cache-XXXXXX";

static void key_of(const char *s, uint8_t key[32])
{
	CacheKey k;
	cache_key_begin(&k);
	cache_key_add_str(&k, s);
	cache_key_end(&k, key);
}

static int count_warnings(const DiagSink *d, const char *needle)
{
	int n = 0;
	for (size_t i = 0; i < d->diags.len; i++)
		if (d->diags.data[i].level == DIAG_WARNING && strstr(d->diags.data[i].msg, needle))
			n++;
	return n;
}

static char *subdir(const char *name)
{
	static char buf[512];
	snprintf(buf, sizeof buf, "%s/%s", root, name);
	return buf;
}

/* Every directory entry except . and .. (temporary files included). */
static int count_files(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			n++;
	if (d)
		closedir(d);
	return n;
}

static void test_keys(void)
{
	uint8_t a[32], b[32];
	CacheKey k;
	cache_key_begin(&k);
	cache_key_add_str(&k, "ab");
	cache_key_add_str(&k, "c");
	cache_key_end(&k, a);
	cache_key_begin(&k);
	cache_key_add_str(&k, "a");
	cache_key_add_str(&k, "bc");
	cache_key_end(&k, b);
	CHECK(memcmp(a, b, 32) != 0);
	cache_key_begin(&k);
	cache_key_add_str(&k, NULL);
	cache_key_end(&k, a);
	cache_key_begin(&k);
	cache_key_add_str(&k, "");
	cache_key_end(&k, b);
	CHECK(memcmp(a, b, 32) != 0);
	cache_key_begin(&k);
	cache_key_add_u64(&k, 1);
	cache_key_add_bytes(&k, "xy", 2);
	cache_key_end(&k, a);
	cache_key_begin(&k);
	cache_key_add_u64(&k, 1);
	cache_key_add_bytes(&k, "xy", 2);
	cache_key_end(&k, b);
	CHECK(memcmp(a, b, 32) == 0);
}

static void test_roundtrip(void)
{
	DiagSink d;
	diag_init(&d);
	Cache c;
	cache_open(&c, subdir("rt/nested"), &d); /* created, parents too */
	CHECK(c.enabled && d.diags.len == 0);
	uint8_t k1[32], k2[32];
	key_of("one", k1);
	key_of("two", k2);
	void *p;
	size_t n;
	CHECK(!cache_get(&c, k1, &p, &n) && p == NULL);
	const char *payload = "compiled kernel bytes";
	CHECK(cache_put(&c, k1, payload, strlen(payload)));
	CHECK(cache_put(&c, k2, "", 0));
	CHECK(cache_get(&c, k1, &p, &n) && n == strlen(payload) && memcmp(p, payload, n) == 0);
	free(p);
	CHECK(cache_get(&c, k2, &p, &n) && n == 0);
	free(p);
	/* overwrite */
	CHECK(cache_put(&c, k1, "v2", 2));
	CHECK(cache_get(&c, k1, &p, &n) && n == 2 && memcmp(p, "v2", 2) == 0);
	free(p);
	/* a second Cache on the same directory sees the entries */
	Cache c2;
	cache_open(&c2, subdir("rt/nested"), &d);
	CHECK(cache_get(&c2, k2, &p, &n));
	free(p);
	cache_close(&c2);
	/* no temporary files left behind; exactly two entries */
	CHECK(count_files(c.dir) == 2);
	CHECK(cache_total_bytes(&c) == 2 * CACHE_HEADER_SIZE + 2);
	CHECK(d.diags.len == 0);
	CHECK(c.hits == 3 && c.puts == 3 && c.misses == 1);
	cache_close(&c);
	diag_free(&d);
}

static int nlisted;
static size_t listed_bytes;
static void list_cb(void *user, const char *name, size_t bytes, double mtime)
{
	(void)user;
	CHECK(strlen(name) == 67 && strcmp(name + 64, ".tc") == 0 && mtime > 0);
	nlisted++;
	listed_bytes += bytes;
}

static void test_list_clear(void)
{
	DiagSink d;
	diag_init(&d);
	Cache c;
	cache_open(&c, subdir("lc"), &d);
	char name[16];
	uint8_t k[32];
	for (int i = 0; i < 5; i++) {
		snprintf(name, sizeof name, "k%d", i);
		key_of(name, k);
		CHECK(cache_put(&c, k, name, strlen(name)));
	}
	/* a stale temp file (old mtime) and a fresh one (maybe another writer's) */
	char path[600];
	snprintf(path, sizeof path, "%s/.tmp.1.00000000000dead0.0", c.dir);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f)
		fclose(f);
	struct timespec old[2] = {{1000000000, 0}, {1000000000, 0}};
	utimensat(AT_FDCWD, path, old, 0);
	snprintf(path, sizeof path, "%s/.tmp.2.00000000000001ae.0", c.dir);
	f = fopen(path, "w");
	if (f)
		fclose(f);
	/* files the cache did not write, old ones too: never listed, evicted or cleared */
	static const char *const foreign[] = {"notes.tc", "ABCDEF.tc", ".tmp.mine", ".tmp.1.dead.0",
	                                      "unrelated.txt"};
	for (size_t i = 0; i < sizeof foreign / sizeof *foreign; i++) {
		snprintf(path, sizeof path, "%s/%s", c.dir, foreign[i]);
		f = fopen(path, "w");
		if (f) {
			fputs("user data", f);
			fclose(f);
		}
		utimensat(AT_FDCWD, path, old, 0);
	}
	nlisted = 0;
	listed_bytes = 0;
	CHECK(cache_list(&c, list_cb, NULL) == 5 && nlisted == 5);
	CHECK(listed_bytes == 5 * (CACHE_HEADER_SIZE + 2));
	CHECK(cache_total_bytes(&c) == (int64_t)listed_bytes);
	CHECK(cache_clear(&c) == 5);
	CHECK(cache_list(&c, list_cb, NULL) == 0);
	for (size_t i = 0; i < sizeof foreign / sizeof *foreign; i++) { /* only entries and stale temps removed */
		snprintf(path, sizeof path, "%s/%s", c.dir, foreign[i]);
		CHECK(access(path, F_OK) == 0);
	}
	c.max_bytes = 1; /* every put evicts all it can */
	key_of("evictor", k);
	CHECK(cache_put(&c, k, "x", 1) && cache_put(&c, k, "y", 1));
	for (size_t i = 0; i < sizeof foreign / sizeof *foreign; i++) {
		snprintf(path, sizeof path, "%s/%s", c.dir, foreign[i]);
		CHECK(access(path, F_OK) == 0);
	}
	CHECK(cache_clear(&c) == 1);
	snprintf(path, sizeof path, "%s/.tmp.1.00000000000dead0.0", c.dir);
	CHECK(access(path, F_OK) != 0);
	snprintf(path, sizeof path, "%s/.tmp.2.00000000000001ae.0", c.dir);
	CHECK(access(path, F_OK) == 0);
	CHECK(d.diags.len == 0);
	cache_close(&c);
	diag_free(&d);
}

static void damage(Cache *c, const uint8_t key[32], int how)
{
	char path[600];
	CHECK(cache_entry_path(c, key, path, sizeof path));
	struct stat st;
	CHECK(stat(path, &st) == 0);
	if (how == 0) { /* truncate */
		CHECK(truncate(path, st.st_size - 3) == 0);
	} else if (how == 1) { /* flip one payload byte */
		int fd = open(path, O_RDWR);
		unsigned char b;
		CHECK(pread(fd, &b, 1, st.st_size - 1) == 1);
		b ^= 0x40;
		CHECK(pwrite(fd, &b, 1, st.st_size - 1) == 1);
		close(fd);
	} else if (how == 2) { /* shorter than a header */
		CHECK(truncate(path, 10) == 0);
	} else if (how == 3) { /* bad magic */
		int fd = open(path, O_RDWR);
		CHECK(pwrite(fd, "XILE", 4, 0) == 4);
		close(fd);
	} else if (how == 4) { /* a FIFO in its place: reading it must not wait for a writer */
		CHECK(unlink(path) == 0 && mkfifo(path, 0644) == 0);
	} else { /* another key's whole, well-formed entry in its place */
		uint8_t other[32];
		key_of("another kernel", other);
		CHECK(cache_put(c, other, "other code", 10));
		char opath[600];
		CHECK(cache_entry_path(c, other, opath, sizeof opath));
		CHECK(rename(opath, path) == 0);
	}
}

static void test_damaged(void)
{
	alarm(10); /* a hang is a failure, not a stuck test */
	for (int how = 0; how < 6; how++) {
		DiagSink d;
		diag_init(&d);
		Cache c;
		cache_open(&c, subdir("dmg"), &d);
		uint8_t k[32];
		key_of("victim", k);
		char payload[1000];
		memset(payload, 'p', sizeof payload);
		CHECK(cache_put(&c, k, payload, sizeof payload));
		damage(&c, k, how);
		void *p = (void *)1;
		size_t n;
		CHECK(!cache_get(&c, k, &p, &n) && p == NULL);
		CHECK(count_warnings(&d, "is damaged; rebuilding") == 1);
		char path[600];
		cache_entry_path(&c, k, path, sizeof path);
		CHECK(access(path, F_OK) != 0); /* deleted */
		CHECK(d.diags.len > 0 && strstr(d.diags.data[0].rendered, "tile: warning: cache entry ") ==
		                                 d.diags.data[0].rendered);
		/* a second miss does not warn again; a rebuild works */
		CHECK(!cache_get(&c, k, &p, &n));
		CHECK(count_warnings(&d, "damaged") == 1);
		CHECK(cache_put(&c, k, payload, sizeof payload));
		CHECK(cache_get(&c, k, &p, &n) && n == sizeof payload);
		free(p);
		CHECK(d.nerrors == 0);
		cache_clear(&c);
		cache_close(&c);
		diag_free(&d);
	}
	alarm(0);
	/* a different format version is a quiet miss */
	DiagSink d;
	diag_init(&d);
	Cache c;
	cache_open(&c, subdir("ver"), &d);
	uint8_t k[32];
	key_of("v", k);
	CHECK(cache_put(&c, k, "abc", 3));
	char path[600];
	cache_entry_path(&c, k, path, sizeof path);
	int fd = open(path, O_RDWR);
	CHECK(pwrite(fd, "\x63", 1, 8) == 1);
	close(fd);
	void *p;
	size_t n;
	CHECK(!cache_get(&c, k, &p, &n) && d.diags.len == 0);
	cache_close(&c);
	diag_free(&d);
}

/* A directory in an entry's place: unlink cannot remove it and no entry
 * can be renamed over it. An empty one is removed quietly and the kernel
 * cached again; another is one warning saying so, and the kernel is
 * compiled without the cache (it was "damaged; rebuilding" at every get,
 * and never rebuilt). */
static void test_dir_entry(void)
{
	DiagSink d;
	diag_init(&d);
	Cache c;
	cache_open(&c, subdir("direntry"), &d);
	uint8_t k[32];
	key_of("in a directory's place", k);
	char path[600], inner[700];
	CHECK(cache_entry_path(&c, k, path, sizeof path));
	void *p = (void *)1;
	size_t n;
	CHECK(mkdir(path, 0755) == 0);
	CHECK(!cache_get(&c, k, &p, &n) && p == NULL);
	CHECK(d.diags.len == 0);
	CHECK(access(path, F_OK) != 0); /* removed */
	CHECK(cache_put(&c, k, "code", 4));
	CHECK(cache_get(&c, k, &p, &n) && n == 4);
	free(p);
	/* one that holds something stays: one warning, every time the same key misses */
	CHECK(unlink(path) == 0 && mkdir(path, 0755) == 0);
	snprintf(inner, sizeof inner, "%s/keep", path);
	FILE *f = fopen(inner, "w");
	CHECK(f && fclose(f) == 0);
	for (int i = 0; i < 3; i++) {
		CHECK(!cache_get(&c, k, &p, &n) && p == NULL);
		CHECK(!cache_put(&c, k, "code", 4));
	}
	CHECK(count_warnings(&d, "is a directory, not a file") == 1);
	CHECK(count_warnings(&d, "damaged") == 0);
	CHECK(access(inner, F_OK) == 0);
	CHECK(d.nerrors == 0 && d.diags.len == 1);
	/* the other entries are cached as usual */
	uint8_t k2[32];
	key_of("a neighbour", k2);
	CHECK(cache_put(&c, k2, "more", 4));
	CHECK(cache_get(&c, k2, &p, &n) && n == 4);
	free(p);
	CHECK(unlink(inner) == 0 && rmdir(path) == 0);
	cache_close(&c);
	diag_free(&d);
}

static void test_unwritable(void)
{
	uint8_t k[32];
	key_of("x", k);
	void *p;
	size_t n;
	/* a path under a regular file can never be a directory, even for root */
	char file[600];
	snprintf(file, sizeof file, "%s/plainfile", root);
	FILE *f = fopen(file, "w");
	CHECK(f != NULL);
	if (f)
		fclose(f);
	char dir[700];
	snprintf(dir, sizeof dir, "%s/sub/cache", file);
	DiagSink d;
	diag_init(&d);
	Cache c;
	cache_open(&c, dir, &d);
	CHECK(!c.enabled);
	CHECK(count_warnings(&d, "cannot write cache directory") == 1);
	CHECK(d.diags.len == 1 && strstr(d.diags.data[0].msg, "compiling without a cache"));
	CHECK(!cache_put(&c, k, "a", 1));
	CHECK(!cache_get(&c, k, &p, &n));
	CHECK(cache_list(&c, list_cb, NULL) == -1 && cache_clear(&c) == -1);
	CHECK(d.diags.len == 1 && d.nerrors == 0); /* warned once */
	cache_close(&c);
	diag_free(&d);

	/* the cache "directory" is itself a regular file */
	diag_init(&d);
	cache_open(&c, file, &d);
	CHECK(!c.enabled && count_warnings(&d, "cannot write cache directory") == 1);
	cache_close(&c);
	diag_free(&d);

	/* chmod 0500: only meaningful when not root */
	if (geteuid() != 0) {
		char *ro = subdir("readonly");
		CHECK(mkdir(ro, 0755) == 0);
		CHECK(chmod(ro, 0500) == 0);
		diag_init(&d);
		cache_open(&c, ro, &d);
		CHECK(!cache_put(&c, k, "a", 1));
		CHECK(!cache_put(&c, k, "a", 1));
		CHECK(count_warnings(&d, "is read-only") == 1); /* readable: see test_read_only */
		cache_close(&c);
		diag_free(&d);
		chmod(ro, 0700);
	}
}

/* The checks of test_read_only, run by a user who cannot write dir. */
static void read_only_checks(const char *dir, const uint8_t k[32])
{
	DiagSink d;
	diag_init(&d);
	Cache c;
	cache_open(&c, dir, &d);
	void *p = NULL;
	size_t n = 0;
	CHECK(c.enabled && c.read_only && d.diags.len == 0);
	CHECK(cache_get(&c, k, &p, &n) && n == 5 && memcmp(p, "entry", 5) == 0); /* a hit */
	free(p);
	uint8_t k2[32];
	key_of("ro-new", k2);
	CHECK(!cache_put(&c, k2, "new", 3) && !cache_put(&c, k2, "new", 3));
	CHECK(count_warnings(&d, "is read-only: kernels are taken from it but not added") == 1);
	CHECK(!cache_get(&c, k2, &p, &n));
	CHECK(cache_clear(&c) == -1); /* not "removed 0 entries" */
	CHECK(cache_get(&c, k, &p, &n)); /* still there */
	free(p);
	CHECK(d.nerrors == 0);
	cache_close(&c);
	diag_free(&d);
}

/* A directory that can be read but not written (a shared or prebuilt
 * cache) still serves its entries; it was disabled as a whole. As root, the
 * checks run in a child that has become nobody. */
static void test_read_only(void)
{
	char *dir = subdir("ro");
	CHECK(mkdir(dir, 0755) == 0);
	Cache c;
	cache_open(&c, dir, NULL);
	uint8_t k[32];
	key_of("ro-entry", k);
	CHECK(cache_put(&c, k, "entry", 5));
	cache_close(&c);
	CHECK(chmod(root, 0755) == 0 && chmod(dir, 0555) == 0);
	if (geteuid() != 0) {
		read_only_checks(dir, k);
	} else {
		pid_t pid = fork();
		if (pid == 0) {
			failures = 0;
			if (setgid(65534) != 0 || setuid(65534) != 0)
				_exit(77);
			read_only_checks(dir, k);
			_exit(failures ? 1 : 0);
		}
		int st = 0;
		CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st));
		CHECK(WEXITSTATUS(st) == 0 || WEXITSTATUS(st) == 77); /* 77: could not drop root */
	}
	chmod(dir, 0755);
	chmod(root, 0700);
}

static void test_eviction(void)
{
	DiagSink d;
	diag_init(&d);
	Cache c;
	cache_open(&c, subdir("cap"), &d);
	const size_t esz = CACHE_HEADER_SIZE + 948; /* 1000 bytes per entry */
	char payload[948];
	memset(payload, 'e', sizeof payload);
	c.max_bytes = 0; /* fill without a cap, with increasing mtimes */
	uint8_t keys[10][32];
	char name[16];
	for (int i = 0; i < 10; i++) {
		snprintf(name, sizeof name, "e%d", i);
		key_of(name, keys[i]);
		CHECK(cache_put(&c, keys[i], payload, sizeof payload));
		char path[600];
		cache_entry_path(&c, keys[i], path, sizeof path);
		struct timespec t[2] = {{1600000000 + i, 0}, {1600000000 + i, 0}};
		CHECK(utimensat(AT_FDCWD, path, t, 0) == 0);
	}
	CHECK(cache_total_bytes(&c) == (int64_t)(10 * esz));
	/* a hit refreshes e0, so it is the most recently used */
	void *p;
	size_t n;
	CHECK(cache_get(&c, keys[0], &p, &n));
	free(p);
	/* cap 10000: one more entry makes 11000 > cap: evict down to 9000 */
	c.max_bytes = 10000;
	uint8_t knew[32];
	key_of("new", knew);
	CHECK(cache_put(&c, knew, payload, sizeof payload));
	CHECK(cache_total_bytes(&c) <= 9000);
	CHECK(cache_total_bytes(&c) == 9000);
	CHECK(c.evictions == 2);
	CHECK(cache_get(&c, knew, &p, &n));
	free(p);
	CHECK(cache_get(&c, keys[0], &p, &n)); /* recently used: kept */
	free(p);
	CHECK(!cache_get(&c, keys[1], &p, &n)); /* the two oldest went */
	CHECK(!cache_get(&c, keys[2], &p, &n));
	CHECK(cache_get(&c, keys[3], &p, &n));
	free(p);
	CHECK(d.diags.len == 0);
	cache_close(&c);
	diag_free(&d);

	/* the cap comes from TILE_CACHE_MAX_BYTES */
	setenv("TILE_CACHE_MAX_BYTES", "2M", 1);
	cache_open(&c, subdir("cap"), NULL);
	CHECK(c.max_bytes == 2u << 20);
	cache_close(&c);
	/* a size too large for 64 bits saturates (it wrapped to a cap of 0 or a few
	 * bytes); a negative one is ignored */
	setenv("TILE_CACHE_MAX_BYTES", "17179869184G", 1);
	cache_open(&c, subdir("cap"), NULL);
	CHECK(c.max_bytes == UINT64_MAX);
	cache_close(&c);
	setenv("TILE_CACHE_MAX_BYTES", "17179869185G", 1);
	cache_open(&c, subdir("cap"), NULL);
	CHECK(c.max_bytes == UINT64_MAX);
	cache_close(&c);
	setenv("TILE_CACHE_MAX_BYTES", "-5", 1);
	cache_open(&c, subdir("cap"), NULL);
	CHECK(c.max_bytes == 1u << 30);
	cache_close(&c);
	/* a value that is no size is named in a warning, not dropped silently */
	static const char *const not_sizes[] = {"-5", "12X", "1.5G", "G", "abc", "10MiBs"};
	for (size_t i = 0; i < sizeof not_sizes / sizeof *not_sizes; i++) {
		setenv("TILE_CACHE_MAX_BYTES", not_sizes[i], 1);
		diag_init(&d);
		cache_open(&c, subdir("cap"), &d);
		CHECK(c.max_bytes == 1u << 30 && count_warnings(&d, "is not a size") == 1 && d.nerrors == 0);
		cache_close(&c);
		diag_free(&d);
	}
	static const char *const sizes[] = {"12345", "2M", "2MB", "2MiB", "3k", "0"};
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		setenv("TILE_CACHE_MAX_BYTES", sizes[i], 1);
		diag_init(&d);
		cache_open(&c, subdir("cap"), &d);
		CHECK(d.diags.len == 0);
		cache_close(&c);
		diag_free(&d);
	}
	setenv("TILE_CACHE_MAX_BYTES", "12345", 1);
	cache_open(&c, subdir("cap"), NULL);
	CHECK(c.max_bytes == 12345);
	cache_close(&c);
	unsetenv("TILE_CACHE_MAX_BYTES");
	cache_open(&c, subdir("cap"), NULL);
	CHECK(c.max_bytes == 1u << 30);
	cache_clear(&c);
	cache_close(&c);
}

static void test_default_dir(void)
{
	Cache c;
	setenv("TILE_CACHE_DIR", subdir("env"), 1);
	cache_open(&c, NULL, NULL);
	CHECK(c.enabled && strcmp(c.dir, subdir("env")) == 0);
	cache_close(&c);
	unsetenv("TILE_CACHE_DIR");
	setenv("XDG_CACHE_HOME", subdir("xdg"), 1);
	cache_open(&c, NULL, NULL);
	char want[600];
	snprintf(want, sizeof want, "%s/tile", subdir("xdg"));
	CHECK(c.enabled && strcmp(c.dir, want) == 0);
	cache_close(&c);
	unsetenv("XDG_CACHE_HOME");
	setenv("HOME", subdir("home"), 1);
	cache_open(&c, NULL, NULL);
	snprintf(want, sizeof want, "%s/.cache/tile", subdir("home"));
	CHECK(c.enabled && strcmp(c.dir, want) == 0);
	cache_close(&c);
	/* a relative XDG_CACHE_HOME is invalid, as the XDG spec says: ignored, not
	 * a cache made in the current directory */
	char cwd[600];
	CHECK(getcwd(cwd, sizeof cwd) != NULL && chdir(root) == 0);
	setenv("XDG_CACHE_HOME", "relative-xdg", 1);
	cache_open(&c, NULL, NULL);
	CHECK(c.enabled && strcmp(c.dir, want) == 0);
	CHECK(access("relative-xdg", F_OK) != 0);
	cache_close(&c);
	unsetenv("XDG_CACHE_HOME");
	/* a relative HOME too: the password database's home, as for none */
	setenv("HOME", "relative-home", 1);
	cache_open(&c, NULL, NULL);
	CHECK(!c.enabled || c.dir[0] == '/');
	CHECK(access("relative-home", F_OK) != 0);
	cache_close(&c);
	setenv("HOME", subdir("home"), 1);
	CHECK(chdir(cwd) == 0);
}

static void rm_rf(const char *path)
{
	char cmd[700];
	snprintf(cmd, sizeof cmd, "chmod -R u+rwx '%s' 2>/dev/null; rm -rf '%s'", path, path);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", path);
}

int main(void)
{
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 1;
	}
	test_keys();
	test_roundtrip();
	test_list_clear();
	test_damaged();
	test_dir_entry();
	test_unwritable();
	test_read_only();
	test_eviction();
	test_default_dir();
	rm_rf(root);
	if (failures) {
		printf("%d checks failed\n", failures);
		return 1;
	}
	return 0;
}

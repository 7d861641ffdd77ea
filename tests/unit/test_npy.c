/* test_npy.c: .npy round trips, a header written the way numpy writes it,
 * and malformed files (which must be errors, never crashes). */
#include "util/npy.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static int failures;
#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);      \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

static char dir[] = "/tmp/tile-test-npy-XXXXXX";
static char path[256];

static void write_bytes(const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	CHECK(f != NULL);
	if (!f)
		return;
	CHECK(fwrite(p, 1, n, f) == n);
	fclose(f);
}

static unsigned char *slurp(size_t *n)
{
	FILE *f = fopen(path, "rb");
	static unsigned char buf[1 << 16];
	*n = f ? fread(buf, 1, sizeof buf, f) : 0;
	if (f)
		fclose(f);
	return buf;
}

static void test_roundtrip(void)
{
	static const char *dts[] = {"<f2", "<f4", "<f8", "|i1", "<i2", "<i4",
	                            "<i8", "|u1", "<u2", "<u4", "<u8", "|b1"};
	char err[256];
	for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++) {
		NpyArray a = {0};
		strcpy(a.dtype, dts[k]);
		a.ndim = 3;
		a.shape[0] = 2;
		a.shape[1] = 3;
		a.shape[2] = 5;
		int es = npy_dtype_size(a.dtype);
		CHECK(es > 0);
		a.nbytes = 30 * (size_t)es;
		a.data = malloc(a.nbytes);
		for (size_t i = 0; i < a.nbytes; i++)
			((unsigned char *)a.data)[i] = (unsigned char)(i * 7 + k);
		CHECK(npy_write(path, &a, err, sizeof err) == 0);
		size_t n;
		unsigned char *raw = slurp(&n);
		CHECK(n > a.nbytes && (n - a.nbytes) % 64 == 0); /* header padded to 64 */
		CHECK(raw[n - a.nbytes - 1] == '\n');
		NpyArray b;
		CHECK(npy_read(path, &b, err, sizeof err) == 0);
		CHECK(strcmp(b.dtype, a.dtype) == 0 && b.elem_size == es && b.ndim == 3);
		CHECK(b.shape[0] == 2 && b.shape[1] == 3 && b.shape[2] == 5 && !b.fortran_order);
		CHECK(b.nbytes == a.nbytes && memcmp(a.data, b.data, a.nbytes) == 0);
		npy_free(&b);
		free(a.data);
	}
	/* scalar and 1-d (numpy writes "(7,)") */
	NpyArray s = {.dtype = "<f4", .ndim = 0};
	float v = 2.5f;
	s.data = &v;
	CHECK(npy_write(path, &s, err, sizeof err) == 0);
	NpyArray r;
	CHECK(npy_read(path, &r, err, sizeof err) == 0);
	CHECK(r.ndim == 0 && r.nbytes == 4 && *(float *)r.data == 2.5f);
	npy_free(&r);
	float xs[7] = {1, 2, 3, 4, 5, 6, 7};
	NpyArray one = {.dtype = "<f4", .ndim = 1, .shape = {7}, .data = xs};
	CHECK(npy_write(path, &one, err, sizeof err) == 0);
	size_t n;
	unsigned char *raw = slurp(&n);
	CHECK(memmem(raw, n, "'shape': (7,), }", 16) != NULL);
	CHECK(npy_read(path, &r, err, sizeof err) == 0);
	CHECK(r.ndim == 1 && r.shape[0] == 7 && ((float *)r.data)[6] == 7);
	npy_free(&r);
	/* empty array */
	NpyArray e = {.dtype = "<i4", .ndim = 2, .shape = {0, 3}};
	CHECK(npy_write(path, &e, err, sizeof err) == 0);
	CHECK(npy_read(path, &r, err, sizeof err) == 0 && r.nbytes == 0 && r.shape[1] == 3);
	npy_free(&r);
	/* bad writes */
	NpyArray bad = {.dtype = "<c8", .ndim = 1, .shape = {1}, .data = xs};
	CHECK(npy_write(path, &bad, err, sizeof err) == -1 && strstr(err, "<c8"));
	NpyArray wrong = {.dtype = "<f4", .ndim = 1, .shape = {3}, .data = xs, .nbytes = 8};
	CHECK(npy_write(path, &wrong, err, sizeof err) == -1);
}

/* Builds a v1.0 file the way numpy does: header padded to 64 with spaces. */
static size_t numpy_file(unsigned char *buf, const char *dict, const void *data, size_t n,
                         int major)
{
	size_t pre = major == 1 ? 10 : 12;
	size_t dl = strlen(dict);
	size_t total = (pre + dl + 1 + 63) / 64 * 64;
	size_t hlen = total - pre;
	memcpy(buf, "\x93NUMPY", 6);
	buf[6] = (unsigned char)major;
	buf[7] = 0;
	buf[8] = (unsigned char)(hlen & 0xff);
	buf[9] = (unsigned char)(hlen >> 8);
	if (major != 1)
		buf[10] = buf[11] = 0;
	memcpy(buf + pre, dict, dl);
	memset(buf + pre + dl, ' ', hlen - dl - 1);
	buf[total - 1] = '\n';
	memcpy(buf + total, data, n);
	return total + n;
}

static void test_handwritten(void)
{
	unsigned char buf[4096];
	float data[12];
	for (int i = 0; i < 12; i++)
		data[i] = (float)i * 0.5f;
	const char *dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }";
	size_t n = numpy_file(buf, dict, data, sizeof data, 1);
	CHECK(n == 128 + sizeof data); /* as numpy writes it */
	write_bytes(buf, n);
	char err[256];
	NpyArray a;
	CHECK(npy_read(path, &a, err, sizeof err) == 0);
	CHECK(strcmp(a.dtype, "<f4") == 0 && a.ndim == 2 && a.shape[0] == 3 && a.shape[1] == 4);
	CHECK(a.nbytes == sizeof data && memcmp(a.data, data, sizeof data) == 0);
	npy_free(&a);

	/* version 2.0, double quotes, keys in another order */
	n = numpy_file(buf, "{\"shape\": (12,), \"fortran_order\": False, \"descr\": \"<f4\"}",
	               data, sizeof data, 2);
	write_bytes(buf, n);
	CHECK(npy_read(path, &a, err, sizeof err) == 0 && a.ndim == 1 && a.shape[0] == 12);
	npy_free(&a);

	/* '<u1' normalized to '|u1' */
	n = numpy_file(buf, "{'descr': '<u1', 'fortran_order': False, 'shape': (4,), }", "abcd", 4,
	               1);
	write_bytes(buf, n);
	CHECK(npy_read(path, &a, err, sizeof err) == 0 && strcmp(a.dtype, "|u1") == 0);
	npy_free(&a);

	/* Fortran order where it lays the bytes out as C order does: 0-d, 1-d,
	 * one dimension over 1, no elements; read as they are (and written back
	 * in C order) */
	static const struct {
		const char *dict;
		size_t bytes;
	} same[] = {
	        {"{'descr': '<f4', 'fortran_order': True, 'shape': (12,), }", 48},
	        {"{'descr': '<f4', 'fortran_order': True, 'shape': (), }", 4},
	        {"{'descr': '<f4', 'fortran_order': True, 'shape': (1, 12, 1), }", 48},
	        {"{'descr': '<f4', 'fortran_order': True, 'shape': (0, 5), }", 0},
	};
	for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
		n = numpy_file(buf, same[i].dict, data, same[i].bytes, 1);
		write_bytes(buf, n);
		err[0] = 0;
		CHECK(npy_read(path, &a, err, sizeof err) == 0 && !a.fortran_order);
		if (err[0])
			fprintf(stderr, "refused %s: %s\n", same[i].dict, err);
		CHECK(a.nbytes == same[i].bytes && (!a.nbytes || memcmp(a.data, data, a.nbytes) == 0));
		CHECK(npy_write(path, &a, err, sizeof err) == 0);
		npy_free(&a);
	}

	/* errors: each gives -1 and a message, and leaves the array empty */
	static const char *bad[] = {
	        "{'descr': '<f4', 'fortran_order': True, 'shape': (3, 4), }",
	        "{'descr': '<f4', 'fortran_order': True, 'shape': (1, 3, 1, 4), }",
	        "{'descr': '>f4', 'fortran_order': False, 'shape': (3, 4), }",
	        "{'descr': '<c8', 'fortran_order': False, 'shape': (3, 4), }",
	        "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 40), }", /* short data */
	        "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 3), }",  /* data left over */
	        "{'descr': '<f4', 'fortran_order': False, 'shape': (0,), }",    /* all of it */
	        "{'descr': '<f4', 'fortran_order': False, 'shape': (-3, 4), }",
	        "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 99999999999, "
	        "99999999999), }",
	        "{'descr': '<f4', 'fortran_order': False, }",
	        "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (3, 4), }",
	        "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (3, 4), }",
	        "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), 'x': 1}",
	        "{'descr': '<f4', 'fortran_order': False, 'shape': (1,2,3,4,5,6,7,8,9), }",
	        "{'descr': '<f4' 'fortran_order': False, 'shape': (3, 4), }",
	        "['descr', '<f4']",
	        "",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		n = numpy_file(buf, bad[i], data, sizeof data, 1);
		write_bytes(buf, n);
		err[0] = 0;
		a.data = (void *)1;
		int r = npy_read(path, &a, err, sizeof err);
		CHECK(r == -1 && err[0] != 0 && a.data == NULL);
		if (r == 0) {
			fprintf(stderr, "accepted bad header %zu: %s\n", i, bad[i]);
			npy_free(&a);
		}
	}
	n = numpy_file(buf, bad[0], data, sizeof data, 1);
	write_bytes(buf, n);
	npy_read(path, &a, err, sizeof err);
	CHECK(strstr(err, "Fortran order") != NULL);
	n = numpy_file(buf, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, -4), }", data, sizeof data, 1);
	write_bytes(buf, n);
	npy_read(path, &a, err, sizeof err);
	CHECK(strstr(err, "shape has a negative dimension") != NULL); /* was "a non-integer dimension" */
	/* each refusal says what to save instead */
	static const struct {
		const char *descr, *want;
	} why[] = {
	        {"'>f4'", "big-endian; save it little-endian (a.astype('<f4'))"},
	        {"'>i8'", "(a.astype('<i8'))"},
	        {"'|O'", "object array"},
	        {"'<c8'", "unsupported dtype '<c8' (supported: "},
	        {"[('a', '<f4'), ('b', '<i4')]", "save each field as an array of its own"},
	};
	for (size_t i = 0; i < sizeof why / sizeof why[0]; i++) {
		char dict2[160];
		snprintf(dict2, sizeof dict2, "{'descr': %s, 'fortran_order': False, 'shape': (3, 4), }",
		         why[i].descr);
		n = numpy_file(buf, dict2, data, sizeof data, 1);
		write_bytes(buf, n);
		err[0] = 0;
		CHECK(npy_read(path, &a, err, sizeof err) == -1 && strstr(err, why[i].want) != NULL);
		if (!strstr(err, why[i].want))
			fprintf(stderr, "  %s: %s\n", why[i].descr, err);
	}
	/* A NUL byte in the header (in a string, or in the padding after the
	 * dictionary) is refused with its offset, as numpy's literal_eval refuses
	 * it; C string functions would otherwise read "'<f4\0junk'" as '<f4'. */
	static const char *const nul_at[] = {"'<f4", "False,", "}"};
	for (size_t i = 0; i < sizeof nul_at / sizeof nul_at[0]; i++) {
		const char *d = "{'descr': '<f4x', 'fortran_order': False, 'shape': (3, 4), }";
		n = numpy_file(buf, d, data, sizeof data, 1);
		size_t off = (size_t)(strstr(d, nul_at[i]) - d) + strlen(nul_at[i]);
		buf[10 + off] = 0;
		write_bytes(buf, n);
		err[0] = 0;
		a.data = (void *)1;
		CHECK(npy_read(path, &a, err, sizeof err) == -1 && a.data == NULL);
		CHECK(strstr(err, "NUL byte") != NULL);
		if (!strstr(err, "NUL byte"))
			fprintf(stderr, "  NUL after %s: %s\n", nul_at[i], err);
	}
	/* anything but whitespace after the dictionary is malformed */
	n = numpy_file(buf, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), } x", data,
	               sizeof data, 1);
	write_bytes(buf, n);
	CHECK(npy_read(path, &a, err, sizeof err) == -1);
	/* a one-byte dtype has no byte order: '>u1' is '|u1' */
	n = numpy_file(buf, "{'descr': '>u1', 'fortran_order': False, 'shape': (4,), }", "abcd", 4, 1);
	write_bytes(buf, n);
	CHECK(npy_read(path, &a, err, sizeof err) == 0 && strcmp(a.dtype, "|u1") == 0);
	npy_free(&a);

	/* every truncation of a valid file is an error */
	n = numpy_file(buf, dict, data, sizeof data, 1);
	for (size_t k = 0; k < n; k++) {
		write_bytes(buf, k);
		CHECK(npy_read(path, &a, err, sizeof err) == -1);
	}
	/* garbage: bad magic, bad version, random bytes */
	write_bytes("PK\3\4 this is a zip", 19);
	CHECK(npy_read(path, &a, err, sizeof err) == -1 && strstr(err, "not a .npy"));
	memcpy(buf, "\x93NUMPY\x09\x00", 8);
	write_bytes(buf, 64);
	CHECK(npy_read(path, &a, err, sizeof err) == -1 && strstr(err, "version"));
	srand(1);
	for (int trial = 0; trial < 2000; trial++) {
		n = numpy_file(buf, dict, data, sizeof data, 1);
		int flips = 1 + rand() % 4;
		for (int j = 0; j < flips; j++)
			buf[rand() % 64] = (unsigned char)rand();
		write_bytes(buf, n);
		if (npy_read(path, &a, err, sizeof err) == 0) {
			CHECK(a.nbytes <= n);
			npy_free(&a);
		}
	}
	CHECK(npy_read(dir, &a, err, sizeof err) == -1 && strstr(err, "Is a directory"));
	CHECK(npy_read("/nonexistent/x.npy", &a, err, sizeof err) == -1 &&
	      strstr(err, "cannot open"));
}

/* A write that fails part way (here: past a file-size limit, as a full disk
 * would) leaves the file it replaces as it was, and no temporary file. */
static void test_failed_write(void)
{
	char err[256];
	float small[4] = {1, 2, 3, 4};
	NpyArray a = {.dtype = "<f4", .ndim = 1, .shape = {4}, .nbytes = sizeof small, .data = small};
	CHECK(npy_write(path, &a, err, sizeof err) == 0);
	size_t n0;
	unsigned char before[256];
	const unsigned char *was = slurp(&n0);
	CHECK(n0 <= sizeof before);
	memcpy(before, was, n0 < sizeof before ? n0 : sizeof before);
	static float big[4096];
	NpyArray b = {.dtype = "<f4", .ndim = 1, .shape = {4096}, .nbytes = sizeof big, .data = big};
	struct rlimit old, lim;
	getrlimit(RLIMIT_FSIZE, &old);
	lim = old;
	lim.rlim_cur = 1024;
	void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
	CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0);
	int r = npy_write(path, &b, err, sizeof err);
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, prev);
	CHECK(r == -1 && strstr(err, "cannot write"));
	size_t n1;
	unsigned char *after = slurp(&n1);
	CHECK(n1 == n0 && memcmp(after, before, n0) == 0);
	int files = 0;
	DIR *d = opendir(dir);
	for (struct dirent *e; d && (e = readdir(d));)
		files += e->d_name[0] != '.';
	if (d)
		closedir(d);
	CHECK(files == 1);
	/* a symlink is written through, not replaced by a file */
	char link[300];
	snprintf(link, sizeof link, "%s/link.npy", dir);
	CHECK(symlink(path, link) == 0);
	CHECK(npy_write(link, &a, err, sizeof err) == 0);
	struct stat st;
	CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
	unlink(link);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(path, sizeof path, "%s/a.npy", dir);
	test_roundtrip();
	test_handwritten();
	test_failed_write();
	unlink(path);
	rmdir(dir);
	if (failures) {
		printf("%d checks failed\n", failures);
		return 1;
	}
	return 0;
}

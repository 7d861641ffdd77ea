/* test_util.c: arena, vectors, string buffers, interning, diagnostics,
 * ice unwinding, read_file, SHA-256 vectors, checksum128, py_number. */
#include "util/checksum.h"
#include "util/py_number.h"
#include "util/sha256.h"
#include "util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures;
#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);      \
			failures++;                                                                \
		}                                                                                  \
	} while (0)
#define CHECK_STR(a, b)                                                                            \
	do {                                                                                       \
		const char *a_ = (a), *b_ = (b);                                                   \
		if (strcmp(a_, b_) != 0) {                                                         \
			fprintf(stderr, "%s:%d: got\n%s\nwanted\n%s\n", __FILE__, __LINE__, a_,    \
			        b_);                                                               \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

static void test_arena(void)
{
	Arena a;
	arena_init(&a);
	for (int i = 0; i < 10000; i++) {
		size_t n = (size_t)(i % 97) + 1;
		unsigned char *p = arena_alloc(&a, n);
		CHECK(((uintptr_t)p & 15) == 0);
		for (size_t j = 0; j < n; j++)
			CHECK(p[j] == 0);
		memset(p, 0xab, n);
	}
	unsigned char *big = arena_alloc(&a, 1 << 20);
	CHECK(((uintptr_t)big & 15) == 0);
	CHECK(big[0] == 0 && big[(1 << 20) - 1] == 0);
	unsigned char *small = arena_alloc(&a, 8);
	CHECK(small[0] == 0);
	CHECK(arena_alloc(&a, 0) != NULL);
	CHECK_STR(arena_strdup(&a, "hello"), "hello");
	CHECK_STR(arena_strndup(&a, "hello", 3), "hel");
	CHECK_STR(arena_printf(&a, "%d-%s", 42, "x"), "42-x");
	char longs[600];
	memset(longs, 'y', sizeof longs - 1);
	longs[sizeof longs - 1] = 0;
	CHECK_STR(arena_printf(&a, "%s", longs), longs);
	int xs[3] = {1, 2, 3};
	int *ys = arena_dup(&a, xs, sizeof xs);
	CHECK(ys[2] == 3);
	CHECK(a.used_total >= (1 << 20));
	int *t = ARENA_NEWN(&a, int, 5);
	CHECK(t[4] == 0);
	arena_free(&a);
	CHECK(a.head == NULL);
}

static void test_vec_sb(void)
{
	VEC(int) v = {0};
	for (int i = 0; i < 1000; i++)
		vec_push(&v, i * 2);
	CHECK(v.len == 1000 && v.data[999] == 1998 && vec_last(&v) == 1998);
	CHECK(vec_pop(&v) == 1998 && v.len == 999);
	vec_free(&v);
	CHECK(v.data == NULL && v.len == 0);

	StrBuf b = {0};
	sb_putc(&b, 'a');
	sb_puts(&b, "bc");
	sb_putn(&b, "defgh", 2);
	sb_printf(&b, "[%d]", 7);
	for (int i = 0; i < 100; i++)
		sb_printf(&b, "%s", "0123456789");
	CHECK(b.len == 8 + 1000);
	CHECK(strncmp(b.s, "abcde[7]0123", 12) == 0);
	char *s = sb_take(&b);
	CHECK(b.s == NULL && b.len == 0);
	free(s);
	s = sb_take(&b);
	CHECK_STR(s, "");
	free(s);
	sb_free(&b);
}

static void test_intern(void)
{
	Arena a;
	arena_init(&a);
	Interner in;
	interner_init(&in, &a);
	const char *x = intern_cstr(&in, "x");
	CHECK(intern(&in, "xyz", 1) == x);
	CHECK(intern_cstr(&in, "xy") != x);
	char buf[32];
	const char *ptrs[2000];
	for (int i = 0; i < 2000; i++) {
		snprintf(buf, sizeof buf, "name%d", i);
		ptrs[i] = intern_cstr(&in, buf);
	}
	for (int i = 0; i < 2000; i++) {
		snprintf(buf, sizeof buf, "name%d", i);
		CHECK(intern_cstr(&in, buf) == ptrs[i]);
		CHECK_STR(ptrs[i], buf);
	}
	CHECK(intern_cstr(&in, "x") == x);
	CHECK(in.count == 2002);
	interner_free(&in);
	arena_free(&a);
}

static int ncallbacks;
static void count_cb(void *user, const Diag *d)
{
	(void)d;
	ncallbacks++;
	CHECK(user == (void *)&ncallbacks);
}

static void test_diag(void)
{
	const char *text = "def f(x):\n"
	                   "    return x\n"
	                   "\ty = x + tl.trans(x)\r\n";
	SrcFile f = {.name = "softmax.tile", .text = text, .len = strlen(text)};
	DiagSink s;
	diag_init(&s);
	s.callback = count_cb;
	s.user = &ncallbacks;
	char src12[512];
	/* Build a 12-line file whose line 12 is the example in the style guide. */
	strcpy(src12, "");
	for (int i = 1; i < 12; i++)
		strcat(src12, "#\n");
	strcat(src12, "    y = x + tl.trans(x)\n");
	SrcFile g = {.name = "softmax.tile", .text = src12, .len = strlen(src12)};
	diag_error(&s, ((SrcLoc){.file = &g, .line = 12, .col = 9}),
	           "shape mismatch: [%d,%d] vs [%d,%d]", 128, 64, 64, 128);
	CHECK(s.nerrors == 1 && s.diags.len == 1 && ncallbacks == 1);
	CHECK_STR(s.diags.data[0].msg, "shape mismatch: [128,64] vs [64,128]");
	CHECK_STR(s.diags.data[0].rendered,
	          "softmax.tile:12:9: error: shape mismatch: [128,64] vs [64,128]\n"
	          "   12 |     y = x + tl.trans(x)\n"
	          "      |         ^\n");
	/* tabs in the source are copied into the caret padding; CR dropped */
	diag_emit(&s, DIAG_WARNING, ((SrcLoc){.file = &f, .line = 3, .col = 6}), "unused %s", "y");
	CHECK_STR(s.diags.data[1].rendered, "softmax.tile:3:6: warning: unused y\n"
	                                    "    3 | \ty = x + tl.trans(x)\n"
	                                    "      | \t    ^\n");
	diag_emit(&s, DIAG_NOTE, ((SrcLoc){0}), "see %s", "here");
	CHECK_STR(s.diags.data[2].rendered, "tile: note: see here\n");
	CHECK(s.nerrors == 1);
	char *all = diag_render_all(&s);
	CHECK(strlen(all) == strlen(s.diags.data[0].rendered) + strlen(s.diags.data[1].rendered) +
	                             strlen(s.diags.data[2].rendered));
	free(all);
	/* a line past the end of the file: header only */
	diag_error(&s, ((SrcLoc){.file = &f, .line = 99, .col = 1}), "eof");
	CHECK_STR(s.diags.data[3].rendered, "softmax.tile:99:1: error: eof\n");
	diag_clear(&s);
	CHECK(s.diags.len == 0 && s.nerrors == 0);

	/* lines end at \n, \r\n or a lone \r, as the lexer counts them: a file
	 * with CR line ends showed no source line past line 1, and all of it
	 * there */
	SrcFile cr = {.name = "cr.py", .text = "a = 1\rb = 2\r\nc = q\rd\n", .len = 21};
	diag_error(&s, ((SrcLoc){.file = &cr, .line = 3, .col = 5}), "unknown name 'q'");
	CHECK_STR(s.diags.data[0].rendered, "cr.py:3:5: error: unknown name 'q'\n"
	                                    "    3 | c = q\n"
	                                    "      |     ^\n");
	diag_error(&s, ((SrcLoc){.file = &cr, .line = 1, .col = 1}), "one");
	CHECK_STR(s.diags.data[1].rendered, "cr.py:1:1: error: one\n"
	                                    "    1 | a = 1\n"
	                                    "      | ^\n");
	diag_clear(&s);
	/* a line over 1024 bytes shows 400 of them around the caret: a 1 MB
	 * line was printed whole, and a caret line as long */
	{
		enum { LONG = 5000 };
		char *ltext = malloc(LONG + 2);
		memset(ltext, 'x', LONG);
		memcpy(ltext + 3000, "\xe2\x82\xac", 3); /* a character the cut must not split */
		ltext[LONG] = '\n';
		ltext[LONG + 1] = 0;
		SrcFile lf = {.name = "long.py", .text = ltext, .len = LONG + 1};
		diag_error(&s, ((SrcLoc){.file = &lf, .line = 1, .col = 3201}), "here");
		const char *r = s.diags.data[0].rendered;
		const char *l2 = strchr(r, '\n') + 1, *l3 = strchr(l2, '\n') + 1;
		CHECK(strlen(r) < 1000);
		CHECK(!strncmp(l2, "    1 | ...", 11) && !strncmp(l3 - 4, "...\n", 4));
		CHECK(strstr(l2, "\xe2\x82\xac") != NULL);
		/* the caret stands under column 3201: 200 columns into the window */
		CHECK(strlen(l3) == strlen("      | ...") + 200 + 2 && l3[strlen(l3) - 2] == '^');
		diag_error(&s, ((SrcLoc){.file = &lf, .line = 1, .col = 10}), "start");
		r = s.diags.data[1].rendered;
		l2 = strchr(r, '\n') + 1;
		CHECK(!strncmp(l2, "    1 | xxx", 11) && strlen(r) < 1000);
		diag_clear(&s);
		free(ltext);
	}

	/* max_errors: default 20; further errors counted, not stored */
	for (int i = 0; i < 30; i++)
		diag_error(&s, ((SrcLoc){0}), "e%d", i);
	CHECK(s.nerrors == 30 && s.diags.len == 20);
	diag_clear(&s);
	s.max_errors = 3;
	for (int i = 0; i < 5; i++)
		diag_error(&s, ((SrcLoc){0}), "e%d", i);
	CHECK(s.nerrors == 5 && s.diags.len == 3);
	diag_free(&s);
}

static void raise_ice(void *arg) { ice((const char *)arg, "bad value %d", 7); }

static void nested(void *arg)
{
	char *msg = NULL;
	int *out = arg;
	out[0] = ice_protect(raise_ice, "inner", &msg);
	CHECK(msg && strcmp(msg, "internal compiler error in inner: bad value 7") == 0);
	free(msg);
	ice("outer", "after %s", "inner");
}

static void ok_fn(void *arg) { *(int *)arg = 5; }

static void test_ice(void)
{
	char *msg = (char *)1;
	int v = 0;
	CHECK(ice_protect(ok_fn, &v, &msg) == 0 && v == 5 && msg == NULL);
	CHECK(ice_protect(raise_ice, "layout", &msg) == -1);
	CHECK_STR(msg, "internal compiler error in layout: bad value 7");
	free(msg);
	int r[1] = {0};
	CHECK(ice_protect(nested, r, &msg) == -1 && r[0] == -1);
	CHECK_STR(msg, "internal compiler error in outer: after inner");
	free(msg);
	CHECK(ice_protect(raise_ice, "x", NULL) == -1);
}

static void test_files(void)
{
	char path[] = "/tmp/tile-test-util-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	char data[10000];
	for (size_t i = 0; i < sizeof data; i++)
		data[i] = (char)('a' + i % 26);
	CHECK(write(fd, data, sizeof data) == (ssize_t)sizeof data);
	close(fd);
	size_t n = 0;
	char *s = read_file(path, &n);
	CHECK(s && n == sizeof data && memcmp(s, data, n) == 0 && s[n] == 0);
	free(s);
	unlink(path);
	CHECK(read_file(path, &n) == NULL);
	double t0 = now_seconds(), t1 = now_seconds();
	CHECK(t0 > 0 && t1 >= t0);
}

static void sha_check(const void *msg, size_t n, const char *want)
{
	uint8_t d[32];
	char hex[65];
	sha256(msg, n, d);
	sha256_hex(d, hex);
	CHECK_STR(hex, want);
	/* the same digest fed one byte at a time */
	Sha256 s;
	sha256_init(&s);
	for (size_t i = 0; i < n; i++)
		sha256_update(&s, (const char *)msg + i, 1);
	sha256_final(&s, d);
	sha256_hex(d, hex);
	CHECK_STR(hex, want);
}

static void test_sha256(void)
{
	sha_check("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	sha_check("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	sha_check(m, strlen(m), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	const char *m2 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
	                 "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
	sha_check(m2, strlen(m2),
	          "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
	static char million[1000000];
	memset(million, 'a', sizeof million);
	sha_check(million, sizeof million,
	          "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* checksum128 (cache entries): pinned values, so that a change of the
 * function is a deliberate format change (CACHE_FORMAT_VERSION), and every
 * damage a cache entry can suffer changes it: each bit flip of a 1000-byte
 * buffer, each truncation, and the seed */
static void test_checksum(void)
{
	static unsigned char buf[1000];
	for (int i = 0; i < 1000; i++)
		buf[i] = (unsigned char)(i * 131 + 7);
	static const struct {
		size_t n;
		uint64_t seed;
		const char *hex;
	} kat[] = {{0, 0, "14fc59b73a1de1514a6bf2430b4c3fb1"},    {7, 0, "c8e24911eef93e0b4aee3421b245d73e"},
	           {33, 0, "c561dafd768cec741f0911a7477336ca"},   {1000, 0, "300f3ac44f36f8e9ab2709a7b6e38b28"},
	           {1000, 42, "c0e8bbea2fb0523106523bc17494749b"}};
	for (size_t k = 0; k < sizeof kat / sizeof *kat; k++) {
		uint8_t o[16];
		char hex[33];
		checksum128(buf, kat[k].n, kat[k].seed, o);
		for (int i = 0; i < 16; i++)
			snprintf(hex + 2 * i, 3, "%02x", o[i]);
		CHECK_STR(hex, kat[k].hex);
	}
	uint8_t ref[16], o[16];
	checksum128(buf, sizeof buf, 0, ref);
	int same = 0;
	for (size_t bit = 0; bit < 8 * sizeof buf; bit++) {
		buf[bit / 8] ^= (unsigned char)(1u << (bit % 8));
		checksum128(buf, sizeof buf, 0, o);
		same += memcmp(o, ref, 16) == 0;
		buf[bit / 8] ^= (unsigned char)(1u << (bit % 8));
	}
	for (size_t n = 0; n < sizeof buf; n++) {
		checksum128(buf, n, 0, o);
		same += memcmp(o, ref, 16) == 0;
	}
	checksum128(buf, sizeof buf, 1, o);
	same += memcmp(o, ref, 16) == 0;
	CHECK(same == 0);
}

/* numbers as Python reads the literals: tile run and signatures share this */
static void test_py_number(void)
{
	static const struct {
		const char *s;
		PyNumKind k;
		double v; /* the value, for INT, U64 and FLOAT */
	} cases[] = {
	        {"0", PYNUM_INT, 0},          {"00", PYNUM_INT, 0},        {"-7", PYNUM_INT, -7},
	        {"+7", PYNUM_INT, 7},         {"1_000", PYNUM_INT, 1000},  {"0x_ff", PYNUM_INT, 255},
	        {"0o17", PYNUM_INT, 15},      {"0b101", PYNUM_INT, 5},     {"-0x10", PYNUM_INT, -16},
	        {"9223372036854775808", PYNUM_U64, 9223372036854775808.0},
	        {"18446744073709551615", PYNUM_U64, 18446744073709551615.0},
	        {"18446744073709551616", PYNUM_BIG, 0},
	        {"-9223372036854775809", PYNUM_BIG, 0},
	        {"1e5", PYNUM_FLOAT, 1e5},    {".5", PYNUM_FLOAT, 0.5},    {"1_0.5", PYNUM_FLOAT, 10.5},
	        {"010", PYNUM_NONE, 0},       {"0_1", PYNUM_NONE, 0},      {"1__0", PYNUM_NONE, 0},
	        {"_1", PYNUM_NONE, 0},        {"1_", PYNUM_NONE, 0},       {"0x", PYNUM_NONE, 0},
	        {"0x1p3", PYNUM_NONE, 0},     {" 5", PYNUM_NONE, 0},       {"5 ", PYNUM_NONE, 0},
	        {"--5", PYNUM_NONE, 0},       {"0b2", PYNUM_NONE, 0},      {"", PYNUM_NONE, 0},
	        {"5j", PYNUM_NONE, 0},
	};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		int64_t i = 0;
		uint64_t u = 0;
		double f = 0;
		PyNumKind k = py_number(cases[c].s, &i, &u, &f);
		double v = k == PYNUM_INT ? (double)i : k == PYNUM_U64 ? (double)u : k == PYNUM_FLOAT ? f : 0;
		if (k != cases[c].k || v != cases[c].v) {
			fprintf(stderr, "%s:%d: py_number('%s') gave kind %d value %g\n", __FILE__, __LINE__, cases[c].s,
			        (int)k, v);
			failures++;
		}
	}
	double f = 0;
	int64_t i;
	uint64_t u;
	CHECK(py_number("1e999", &i, &u, &f) == PYNUM_FLOAT && f > 1e308);
}

int main(void)
{
	test_arena();
	test_vec_sb();
	test_intern();
	test_diag();
	test_ice();
	test_files();
	test_sha256();
	test_checksum();
	test_py_number();
	if (failures) {
		printf("%d checks failed\n", failures);
		return 1;
	}
	return 0;
}

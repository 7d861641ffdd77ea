/* util.c: memory, arenas, vectors, string buffers, interning, diagnostics,
 * internal-error unwinding, files and clocks (see util.h).
 *
 * The one mutable global in the library lives here: the thread-local pointer
 * to the innermost ice_protect() boundary. It is per-thread and only used to
 * unwind, so concurrent compiles on different threads stay independent.
 */
#include "util/util.h"

#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- internal errors -------------------------------------------------------- */

struct IceBoundary {
	jmp_buf jb;
	char *msg;
	IceBoundary *prev;
};

static _Thread_local IceBoundary *ice_current;

void ice(const char *pass, const char *fmt, ...)
{
	char body[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(body, sizeof body, fmt, ap);
	va_end(ap);
	const char *prefix = "internal compiler error in ";
	size_t n = strlen(prefix) + strlen(pass) + 2 + strlen(body) + 1;
	char *msg = malloc(n); /* not xmalloc: we may be here because it failed */
	if (msg)
		snprintf(msg, n, "%s%s: %s", prefix, pass, body);
	IceBoundary *b = ice_current;
	if (!b) {
		fprintf(stderr, "tile: %s%s: %s\n", prefix, pass, body);
		abort();
	}
	b->msg = msg;
	longjmp(b->jb, 1);
}

int ice_protect(void (*fn)(void *), void *arg, char **msg)
{
	IceBoundary b;
	b.msg = NULL;
	b.prev = ice_current;
	ice_current = &b;
	if (setjmp(b.jb) == 0) {
		fn(arg);
		ice_current = b.prev;
		if (msg)
			*msg = NULL;
		return 0;
	}
	ice_current = b.prev;
	char *m = b.msg;
	if (!m)
		m = strdup("internal compiler error in memory: out of memory");
	if (msg)
		*msg = m;
	else
		free(m);
	return -1;
}

/* ---- memory --------------------------------------------------------------- */

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		ice("memory", "out of memory");
	return p;
}

void *xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);
	if (!p)
		ice("memory", "out of memory");
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		ice("memory", "out of memory");
	return q;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(xmalloc(n), s, n);
}

/* ---- arena ------------------------------------------------------------------ */

enum { ARENA_CHUNK = 64 * 1024, ARENA_ALIGN = 16 };

struct ArenaChunk {
	ArenaChunk *next;
	size_t size, used;
	_Alignas(16) unsigned char data[];
};

static ArenaChunk *chunk_new(size_t size)
{
	ArenaChunk *c = xcalloc(1, sizeof(ArenaChunk) + size);
	c->size = size;
	return c;
}

void arena_init(Arena *a)
{
	a->head = NULL;
	a->used_total = 0;
}

void arena_free(Arena *a)
{
	ArenaChunk *c = a->head;
	while (c) {
		ArenaChunk *next = c->next;
		free(c);
		c = next;
	}
	a->head = NULL;
	a->used_total = 0;
}

void *arena_alloc(Arena *a, size_t n)
{
	if (n > SIZE_MAX - 2 * ARENA_ALIGN - sizeof(ArenaChunk))
		ice("memory", "arena allocation of %zu bytes is too large", n);
	n = (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
	if (n == 0)
		n = ARENA_ALIGN;
	a->used_total += n;
	if (n > ARENA_CHUNK / 4) {
		/* Large: its own chunk, linked behind the head so the head keeps
		 * serving small allocations. */
		ArenaChunk *c = chunk_new(n);
		c->used = n;
		if (a->head) {
			c->next = a->head->next;
			a->head->next = c;
		} else {
			a->head = c;
		}
		return c->data;
	}
	ArenaChunk *h = a->head;
	if (!h || h->size - h->used < n) {
		h = chunk_new(ARENA_CHUNK);
		h->next = a->head;
		a->head = h;
	}
	void *p = h->data + h->used;
	h->used += n;
	return p;
}

void *arena_dup(Arena *a, const void *p, size_t n)
{
	void *q = arena_alloc(a, n);
	if (n)
		memcpy(q, p, n);
	return q;
}

char *arena_strndup(Arena *a, const char *s, size_t n)
{
	char *q = arena_alloc(a, n + 1);
	memcpy(q, s, n);
	q[n] = 0;
	return q;
}

char *arena_strdup(Arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }

char *arena_printf(Arena *a, const char *fmt, ...)
{
	char buf[256];
	va_list ap, ap2;
	va_start(ap, fmt);
	va_copy(ap2, ap);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	char *q = arena_alloc(a, (size_t)n + 1);
	if ((size_t)n < sizeof buf)
		memcpy(q, buf, (size_t)n + 1);
	else
		vsnprintf(q, (size_t)n + 1, fmt, ap2);
	va_end(ap2);
	return q;
}

/* ---- vectors and string buffers --------------------------------------------- */

void vec_grow_(void **data, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return;
	size_t c = *cap ? *cap * 2 : 8;
	while (c < need)
		c *= 2;
	if (elem && c > SIZE_MAX / elem)
		ice("memory", "vector of %zu elements is too large", c);
	*data = xrealloc(*data, c * elem);
	*cap = c;
}

static void sb_reserve(StrBuf *b, size_t extra)
{
	size_t need = b->len + extra + 1;
	if (need <= b->cap)
		return;
	size_t c = b->cap ? b->cap * 2 : 64;
	while (c < need)
		c *= 2;
	b->s = xrealloc(b->s, c);
	b->cap = c;
}

void sb_putn(StrBuf *b, const char *s, size_t n)
{
	sb_reserve(b, n);
	if (n)
		memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = 0;
}

/* writes code point cp (< 0x110000) as UTF-8 at o; returns the end */
char *utf8_put(char *o, uint32_t cp)
{
	if (cp < 0x80) {
		*o++ = (char)cp;
	} else if (cp < 0x800) {
		*o++ = (char)(0xc0 | (cp >> 6));
		*o++ = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		*o++ = (char)(0xe0 | (cp >> 12));
		*o++ = (char)(0x80 | ((cp >> 6) & 0x3f));
		*o++ = (char)(0x80 | (cp & 0x3f));
	} else {
		*o++ = (char)(0xf0 | (cp >> 18));
		*o++ = (char)(0x80 | ((cp >> 12) & 0x3f));
		*o++ = (char)(0x80 | ((cp >> 6) & 0x3f));
		*o++ = (char)(0x80 | (cp & 0x3f));
	}
	return o;
}

void sb_putc(StrBuf *b, char c) { sb_putn(b, &c, 1); }

void sb_puts(StrBuf *b, const char *s) { sb_putn(b, s, strlen(s)); }

void sb_vprintf(StrBuf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	sb_reserve(b, 64);
	size_t room = b->cap - b->len;
	int n = vsnprintf(b->s + b->len, room, fmt, ap);
	if (n < 0) {
		va_end(ap2);
		b->s[b->len] = 0;
		return;
	}
	if ((size_t)n >= room) {
		sb_reserve(b, (size_t)n);
		vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap2);
	}
	va_end(ap2);
	b->len += (size_t)n;
}

void sb_printf(StrBuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(b, fmt, ap);
	va_end(ap);
}

void sb_free(StrBuf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

char *sb_take(StrBuf *b)
{
	char *s = b->s ? b->s : xstrdup("");
	b->s = NULL;
	b->len = b->cap = 0;
	return s;
}

/* ---- interned strings ------------------------------------------------------ */

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h;
}

void interner_init(Interner *in, Arena *a)
{
	in->arena = a;
	in->nslots = 256;
	in->count = 0;
	in->slots = xcalloc(in->nslots, sizeof(*in->slots));
}

void interner_free(Interner *in)
{
	free(in->slots);
	in->slots = NULL;
	in->nslots = in->count = 0;
}

static void interner_grow(Interner *in)
{
	size_t n = in->nslots * 2;
	const char **slots = xcalloc(n, sizeof(*slots));
	for (size_t i = 0; i < in->nslots; i++) {
		const char *s = in->slots[i];
		if (!s)
			continue;
		size_t j = hash_bytes(s, strlen(s)) & (n - 1);
		while (slots[j])
			j = (j + 1) & (n - 1);
		slots[j] = s;
	}
	free(in->slots);
	in->slots = slots;
	in->nslots = n;
}

const char *intern(Interner *in, const char *s, size_t n)
{
	if (!in->slots)
		interner_init(in, in->arena);
	if ((in->count + 1) * 2 > in->nslots)
		interner_grow(in);
	size_t mask = in->nslots - 1;
	size_t i = hash_bytes(s, n) & mask;
	for (;;) {
		const char *t = in->slots[i];
		if (!t)
			break;
		if (strncmp(t, s, n) == 0 && t[n] == 0)
			return t;
		i = (i + 1) & mask;
	}
	const char *t = arena_strndup(in->arena, s, n);
	in->slots[i] = t;
	in->count++;
	return t;
}

const char *intern_cstr(Interner *in, const char *s) { return intern(in, s, strlen(s)); }

/* ---- diagnostics ------------------------------------------------------------- */

void diag_init(DiagSink *s) { memset(s, 0, sizeof *s); }

void diag_clear(DiagSink *s)
{
	for (size_t i = 0; i < s->diags.len; i++) {
		free(s->diags.data[i].msg);
		free(s->diags.data[i].rendered);
	}
	s->diags.len = 0;
	s->nerrors = 0;
}

void diag_free(DiagSink *s)
{
	diag_clear(s);
	vec_free(&s->diags);
}

static const char *level_name(DiagLevel l)
{
	switch (l) {
	case DIAG_ERROR: return "error";
	case DIAG_WARNING: return "warning";
	case DIAG_NOTE: return "note";
	}
	return "error";
}

/* Finds line `line` (1-based) of f; returns its start and sets *len. Lines
 * end as the lexer ends them: \n, \r\n or a lone \r (a file with CR line
 * ends showed no line past the first, and the whole file as line 1). */
static const char *find_line(const SrcFile *f, int line, size_t *len)
{
	if (!f->text || line < 1)
		return NULL;
	const char *p = f->text, *end = f->text + f->len;
	for (int l = 1; l < line; l++) {
		while (p < end && *p != '\n' && *p != '\r')
			p++;
		if (p == end)
			return NULL;
		p += *p == '\r' && p + 1 < end && p[1] == '\n' ? 2 : 1;
	}
	const char *q = p;
	while (q < end && *q != '\n' && *q != '\r')
		q++;
	*len = (size_t)(q - p);
	return p;
}

/* A line longer than this shows only the part around the caret, with "..."
 * for what is left out: a megabyte line was printed whole, with a caret line
 * as long. */
enum { LINE_SHOW_MAX = 1024, LINE_SHOW_BEFORE = 200, LINE_SHOW_WINDOW = 400 };

char *diag_render(const Diag *d)
{
	StrBuf b = {0};
	const SrcFile *f = d->loc.file;
	const char *lvl = level_name(d->level);
	if (!f) {
		sb_printf(&b, "tile: %s: %s\n", lvl, d->msg ? d->msg : "");
		return sb_take(&b);
	}
	if (d->loc.line > 0)
		sb_printf(&b, "%s:%d:%d: %s: %s\n", f->name, d->loc.line,
		          d->loc.col > 0 ? d->loc.col : 1, lvl, d->msg ? d->msg : "");
	else
		sb_printf(&b, "%s: %s: %s\n", f->name, lvl, d->msg ? d->msg : "");
	size_t n = 0;
	const char *src = d->loc.line > 0 ? find_line(f, d->loc.line, &n) : NULL;
	if (!src)
		return sb_take(&b);
	size_t caret = d->loc.col > 1 ? (size_t)d->loc.col - 1 : 0, from = 0, to = n;
	if (n > LINE_SHOW_MAX) { /* cut at UTF-8 character starts */
		from = caret > LINE_SHOW_BEFORE ? caret - LINE_SHOW_BEFORE : 0;
		from = from < n ? from : n;
		while (from > 0 && ((unsigned char)src[from] & 0xc0) == 0x80)
			from--;
		to = from + LINE_SHOW_WINDOW < n ? from + LINE_SHOW_WINDOW : n;
		while (to < n && ((unsigned char)src[to] & 0xc0) == 0x80)
			to++;
	}
	sb_printf(&b, "%5d | %s", d->loc.line, from ? "..." : "");
	/* control bytes (a NUL would end the message early) show as '?' */
	for (size_t i = from; i < to; i++)
		sb_putc(&b, (unsigned char)src[i] < 0x20 && src[i] != '\t' ? '?' : src[i]);
	sb_printf(&b, "%s\n      | %s", to < n ? "..." : "", from ? "   " : "");
	for (size_t i = from; i < caret && (n <= LINE_SHOW_MAX || i <= to); i++)
		sb_putc(&b, i < n && src[i] == '\t' ? '\t' : ' ');
	sb_puts(&b, "^\n");
	return sb_take(&b);
}

char *diag_render_all(const DiagSink *s)
{
	StrBuf b = {0};
	for (size_t i = 0; i < s->diags.len; i++)
		sb_puts(&b, s->diags.data[i].rendered);
	return sb_take(&b);
}

void diag_vemit(DiagSink *s, DiagLevel lvl, SrcLoc loc, const char *fmt, va_list ap)
{
	int max = s->max_errors > 0 ? s->max_errors : 20;
	if (lvl == DIAG_ERROR)
		s->nerrors++;
	/* Past the limit: count errors, store nothing (notes and warnings that
	 * follow a dropped error are dropped with it). */
	if (s->nerrors > max)
		return;
	StrBuf b = {0};
	sb_vprintf(&b, fmt, ap);
	Diag d = {.level = lvl, .loc = loc, .msg = sb_take(&b)};
	d.rendered = diag_render(&d);
	vec_push(&s->diags, d);
	if (s->callback)
		s->callback(s->user, &vec_last(&s->diags));
}

void diag_emit(DiagSink *s, DiagLevel lvl, SrcLoc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_vemit(s, lvl, loc, fmt, ap);
	va_end(ap);
}

void diag_note_last_error(DiagSink *s, size_t first, SrcLoc loc, const char *fmt, ...)
{
	Diag *err = NULL;
	for (size_t i = first; i < s->diags.len; i++)
		if (s->diags.data[i].level == DIAG_ERROR)
			err = &s->diags.data[i];
	if (!err)
		return;
	StrBuf b = {0};
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(&b, fmt, ap);
	va_end(ap);
	Diag note = {.level = DIAG_NOTE, .loc = loc, .msg = sb_take(&b)};
	char *r = diag_render(&note);
	if (!strstr(err->rendered, r)) { /* a recursion's calls repeat one site */
		sb_puts(&b, err->rendered);
		sb_puts(&b, r);
		free(err->rendered);
		err->rendered = sb_take(&b);
	}
	free(r);
	free(note.msg);
}

/* ---- misc ------------------------------------------------------------------- */

char *read_file(const char *path, size_t *len) { return read_file_max(path, SIZE_MAX - 1, len); }

static int write_parts(FILE *f, const FilePart *parts, int n)
{
	errno = 0;
	bool ok = true;
	for (int i = 0; ok && i < n; i++)
		ok = parts[i].len == 0 || fwrite(parts[i].data, 1, parts[i].len, f) == parts[i].len;
	int e = errno;
	if (fclose(f) != 0 && ok) {
		ok = false;
		e = errno;
	}
	errno = ok ? 0 : e ? e : EIO;
	return ok ? 0 : -1;
}

int write_file_parts(const char *path, const FilePart *parts, int n)
{
	struct stat st;
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* /dev/null, a FIFO, a symlink: written through, never replaced */
		FILE *f = fopen(path, "wb");
		return f ? write_parts(f, parts, n) : -1;
	}
	size_t plen = strlen(path);
	char *tmp = xmalloc(plen + 32);
	snprintf(tmp, plen + 32, "%s.tmp.%ld", path, (long)getpid());
	FILE *f = fopen(tmp, "wb");
	if (!f) {
		int e = errno;
		free(tmp);
		errno = e;
		return -1;
	}
	bool ok = write_parts(f, parts, n) == 0;
	int e = errno;
	if (ok && rename(tmp, path) != 0) {
		ok = false;
		e = errno;
	}
	if (!ok)
		unlink(tmp);
	free(tmp);
	errno = ok ? 0 : e ? e : EIO;
	return ok ? 0 : -1;
}

char *read_file_max(const char *path, size_t max, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0;
	char *buf = xmalloc(cap);
	for (;;) {
		if (n > max) { /* a huge file, or an endless one like /dev/zero */
			fclose(f);
			free(buf);
			errno = EFBIG;
			return NULL;
		}
		if (cap - n < 2) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		size_t r = fread(buf + n, 1, cap - n - 1, f);
		n += r;
		if (r == 0)
			break;
	}
	if (ferror(f)) {
		int e = errno ? errno : EIO;
		fclose(f);
		free(buf);
		errno = e;
		return NULL;
	}
	fclose(f);
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

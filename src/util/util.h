/* util.h: the small toolkit every stage uses.
 *
 * - Arena: bump allocator; one per compilation. Everything in the AST, the Tile
 *   IR, layouts and the thread program lives in it and is freed together.
 * - Vec: growable arrays of any element type (macros, arena- or heap-backed).
 * - Diag: user-facing diagnostics "file:line:col: error: msg" + source line +
 *   caret, collected on a DiagSink that the host (CLI or library user) renders.
 * - Str: interned strings (pointer equality) hanging off an Interner.
 *
 * No globals: every function takes the object it works on.
 */
#ifndef TILE_UTIL_H
#define TILE_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define COUNTOF(a) (sizeof(a) / sizeof((a)[0]))
#define MAXOF(a, b) ((a) > (b) ? (a) : (b))
#define MINOF(a, b) ((a) < (b) ? (a) : (b))

#if defined(__GNUC__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#define NORETURN __attribute__((noreturn))
#else
#define PRINTF_LIKE(f, a)
#define NORETURN
#endif

/* ---- memory --------------------------------------------------------------- */

/* Out-of-memory in the library unwinds (longjmp) to the compile boundary set
 * up by the driver; these never return NULL. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

typedef struct ArenaChunk ArenaChunk;
typedef struct Arena {
	ArenaChunk *head;
	size_t used_total; /* bytes handed out, for statistics */
} Arena;

void arena_init(Arena *a);
void arena_free(Arena *a);
void *arena_alloc(Arena *a, size_t n);              /* zeroed, 16-byte aligned */
void *arena_dup(Arena *a, const void *p, size_t n);
char *arena_strdup(Arena *a, const char *s);
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_printf(Arena *a, const char *fmt, ...) PRINTF_LIKE(2, 3);
#define ARENA_NEW(a, T) ((T *)arena_alloc((a), sizeof(T)))
#define ARENA_NEWN(a, T, n) ((T *)arena_alloc((a), sizeof(T) * (size_t)(n)))

/* Growable array: declare `VEC(int) xs = {0};`, push with vec_push(&xs, v),
 * free with vec_free(&xs). Heap-backed (use for scratch, or copy into the
 * arena with vec_to_arena when the IR must keep it). */
#define VEC(T) struct { T *data; size_t len, cap; }
#define vec_push(v, x) \
	(vec_grow_((void **)&(v)->data, &(v)->cap, (v)->len + 1, sizeof(*(v)->data)), \
	 (v)->data[(v)->len++] = (x))
#define vec_pop(v) ((v)->data[--(v)->len])
#define vec_last(v) ((v)->data[(v)->len - 1])
#define vec_free(v) (free((v)->data), (v)->data = NULL, (v)->len = (v)->cap = 0)
#define vec_to_arena(a, v) arena_dup((a), (v)->data, (v)->len * sizeof(*(v)->data))
void vec_grow_(void **data, size_t *cap, size_t need, size_t elem);

/* Growable string buffer (heap). */
typedef struct StrBuf {
	char *s;
	size_t len, cap;
} StrBuf;
void sb_putc(StrBuf *b, char c);
void sb_puts(StrBuf *b, const char *s);
void sb_putn(StrBuf *b, const char *s, size_t n);
void sb_printf(StrBuf *b, const char *fmt, ...) PRINTF_LIKE(2, 3);
void sb_vprintf(StrBuf *b, const char *fmt, va_list ap);
void sb_free(StrBuf *b);
char *sb_take(StrBuf *b); /* returns the heap string (never NULL), resets b */
char *utf8_put(char *o, uint32_t cp); /* cp < 0x110000 as UTF-8 (1 to 4 bytes); returns the end */

/* ---- interned strings ------------------------------------------------------ */

typedef struct Interner {
	Arena *arena;
	const char **slots; /* open addressing, power-of-two size */
	size_t nslots, count;
} Interner;
void interner_init(Interner *in, Arena *a);
void interner_free(Interner *in);
const char *intern(Interner *in, const char *s, size_t n);
const char *intern_cstr(Interner *in, const char *s);

/* ---- source locations and diagnostics -------------------------------------- */

/* A source file known to the diagnostics engine (text kept for carets). */
typedef struct SrcFile {
	const char *name; /* as given by the user, e.g. "kernels/softmax.tile" */
	const char *text; /* NUL-terminated contents */
	size_t len;
} SrcFile;

typedef struct SrcLoc {
	const SrcFile *file; /* NULL for "no location" */
	int line, col;       /* 1-based; col counts bytes */
	uint32_t offset;     /* byte offset into file->text */
} SrcLoc;

typedef enum { DIAG_ERROR, DIAG_WARNING, DIAG_NOTE } DiagLevel;

typedef struct Diag {
	DiagLevel level;
	SrcLoc loc;
	char *msg;      /* the one-line message, lowercase, no trailing period */
	char *rendered; /* "file:line:col: error: msg\n  12 | src\n     |   ^\n" */
} Diag;

/* Where diagnostics go. The library never prints: it records diagnostics here
 * and calls `callback` (if set) as each arrives. */
typedef void (*DiagCallback)(void *user, const Diag *d);
typedef struct DiagSink {
	VEC(Diag) diags;
	int nerrors;
	int max_errors; /* stop collecting after this many (0 = 20) */
	DiagCallback callback;
	void *user;
} DiagSink;

void diag_init(DiagSink *s);
void diag_free(DiagSink *s);
void diag_clear(DiagSink *s);
void diag_emit(DiagSink *s, DiagLevel lvl, SrcLoc loc, const char *fmt, ...) PRINTF_LIKE(4, 5);
void diag_vemit(DiagSink *s, DiagLevel lvl, SrcLoc loc, const char *fmt, va_list ap);
#define diag_error(s, loc, ...) diag_emit((s), DIAG_ERROR, (loc), __VA_ARGS__)
/* Appends a note (rendered like a diagnostic) to the rendered text of the
 * last error among diagnostics [first, end), so that it prints with it: the
 * calls an error inside an inlined function came through. Nothing when they
 * hold no error or the error already has this note; the diagnostic callback
 * has already seen the error alone. */
void diag_note_last_error(DiagSink *s, size_t first, SrcLoc loc, const char *fmt, ...) PRINTF_LIKE(4, 5);
/* Render one diagnostic (cproc prefix + chibicc caret) into a heap string. */
char *diag_render(const Diag *d);
/* Concatenation of every rendered diagnostic so far (heap string). */
char *diag_render_all(const DiagSink *s);

/* ---- internal errors -------------------------------------------------------- */

/* An internal compiler error or out-of-memory unwinds to the nearest boundary
 * (Lua's luaD_rawrunprotected). ice() formats "internal compiler error in
 * PASS: msg". Outside any boundary it prints and aborts (a bug in the driver). */
typedef struct IceBoundary IceBoundary;
NORETURN void ice(const char *pass, const char *fmt, ...) PRINTF_LIKE(2, 3);
/* Runs fn(arg) under a boundary. Returns 0, or -1 with *msg (heap) set. The
 * boundary is per-thread (thread-local pointer), so concurrent compiles on
 * different threads are independent. */
int ice_protect(void (*fn)(void *), void *arg, char **msg);

/* ---- misc ------------------------------------------------------------------- */

static inline bool is_pow2_i64(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }
static inline int log2_i64(int64_t x) { int n = 0; while ((1LL << n) < x) n++; return n; }
char *read_file(const char *path, size_t *len); /* heap, NUL-terminated; NULL on error (errno set) */
char *read_file_max(const char *path, size_t max, size_t *len); /* same; EFBIG past max bytes */
/* Writes the n parts, in order, to a file beside path and renames it over
 * path: a failed write (a full disk) leaves what path held as it was. A path
 * that exists and is no regular file (/dev/null, a FIFO, a symlink) is written
 * through instead. 0, or -1 with errno set. */
typedef struct FilePart { const void *data; size_t len; } FilePart;
int write_file_parts(const char *path, const FilePart *parts, int n);
double now_seconds(void);                        /* monotonic clock */

#endif

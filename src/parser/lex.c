/* lex.c: the tokenizer (see lex.h).
 *
 * Requires: a SrcFile whose text is NUL-terminated at text[len].
 * Guarantees: every token has a 1-based line/col (bytes) and an offset; the
 * token stream is Python's (NEWLINE ends a logical line that had tokens,
 * INDENT/DEDENT balance, EOF comes last); the first error stops the lexer.
 */
#include "parser/lex.h"
#include "util/unicode_ident.h"
#include "util/unicode_nfkc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const tok_strs[] = {
#define TILE_TOK_STR(k, s) s,
        TILE_TOKENS(TILE_TOK_STR)
#undef TILE_TOK_STR
};

const char *tok_kind_str(TokKind k) { return (unsigned)k < COUNTOF(tok_strs) ? tok_strs[k] : "?"; }

/* The byte at q, or 0 at or past the end (text[len] is NUL, so q[1] reads
 * are safe only through this). */
static int ch(const Lexer *lx, const char *q) { return q < lx->end ? (unsigned char)*q : 0; }

static SrcLoc loc_at(const Lexer *lx, const char *q)
{
	SrcLoc l = {lx->file, lx->line, (int)(q - lx->line_start) + 1,
	            (uint32_t)(q - lx->file->text)};
	return l;
}

static void fail(Lexer *lx, LexErrKind kind, SrcLoc loc, const char *fmt, ...) PRINTF_LIKE(4, 5);
static void fail(Lexer *lx, LexErrKind kind, SrcLoc loc, const char *fmt, ...)
{
	if (lx->err)
		return;
	StrBuf b = {0};
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(&b, fmt, ap);
	va_end(ap);
	lx->errmsg = arena_strdup(lx->arena, b.s ? b.s : "");
	sb_free(&b);
	lx->err = kind;
	lx->errloc = loc;
}

static Token tok_at(TokKind k, SrcLoc loc, size_t len)
{
	Token t;
	memset(&t, 0, sizeof t);
	t.kind = k;
	t.loc = loc;
	t.len = (uint32_t)len;
	return t;
}

static Token error_tok(Lexer *lx) { return tok_at(TK_ERROR, lx->errloc, 0); }

/* The location of byte z, counted from the start of the file (the lexer's
 * own line count has not got there yet). */
static SrcLoc loc_from_start(const Lexer *lx, const char *z)
{
	int line = 1;
	const char *ls = lx->file->text;
	for (const char *q = lx->file->text; q < z; q++)
		if (*q == '\n' || (*q == '\r' && q[1] != '\n')) {
			line++;
			ls = q + 1;
		}
	SrcLoc l = {lx->file, line, (int)(z - ls) + 1, (uint32_t)(z - lx->file->text)};
	return l;
}

/* Finds the first NUL byte: CPython rejects such files outright. */
static void check_nul(Lexer *lx)
{
	const char *z = memchr(lx->file->text, 0, lx->file->len);
	if (z)
		fail(lx, LEXERR_GENERIC, loc_from_start(lx, z), "source code cannot contain null bytes");
}

static int utf8_decode(const Lexer *lx, const char *q, uint32_t *cp);

/* The encoding line 1 or 2 declares (PEP 263's "coding[:=] name" in a
 * comment), normalized as Python's codec lookup does it (lowercase, '-', ' '
 * and '.' as '_'), into name[32]; "" if none. */
static void declared_coding(const char *q, const char *end, char name[32], const char **at)
{
	name[0] = 0;
	for (int line = 0; line < 2 && q < end; line++) {
		const char *e = q;
		while (e < end && *e != '\n' && *e != '\r')
			e++;
		const char *h = q;
		while (h < e && (*h == ' ' || *h == '\t' || *h == '\f'))
			h++;
		if (h < e && *h == '#')
			for (const char *c = h; c + 7 < e; c++) {
				if (memcmp(c, "coding", 6) || (c[6] != ':' && c[6] != '='))
					continue;
				const char *n = c + 7;
				while (n < e && (*n == ' ' || *n == '\t'))
					n++;
				if (at)
					*at = n;
				size_t k = 0;
				for (; n < e && k + 1 < 32 && (isalnum((unsigned char)*n) || strchr("-_.", *n)); n++)
					name[k++] = isalnum((unsigned char)*n) ? (char)tolower((unsigned char)*n) : '_';
				name[k] = 0;
				return;
			}
		if (h < e && *h != '#')
			return; /* code on line 1: a declaration on line 2 does not count */
		q = e < end && *e == '\r' && e + 1 < end && e[1] == '\n' ? e + 2 : e + 1;
	}
}

#include "lex_codecs.inc"

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* name in a sorted list (lex_codecs.inc's) */
static bool name_known(const char *name, const char *const *list, size_t n)
{
	return bsearch(&name, list, n, sizeof *list, cmp_name) != NULL;
}

static bool name_in(const char *name, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(name, list[i]))
			return true;
	return false;
}

LexCoding lex_coding(const char *text, size_t len, char name[32])
{
	/* Python's aliases of its utf_8 and latin_1 codecs, and the prefixes its
	 * tokenizer folds into them (get_normal_name: utf-8-*, latin-1-*, ...) */
	static const char *const utf8[] = {"utf_8", "utf8", "u8", "utf", "cp65001", "utf8_ucs2", "utf8_ucs4"};
	static const char *const latin1[] = {"latin_1", "latin1", "latin", "l1", "iso8859_1", "iso_8859_1",
	                                     "8859", "cp819", "ibm819", "iso_ir_100", "csisolatin1",
	                                     "iso_8859_1_1987", "iso_latin_1"};
	const char *end = text + len;
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		text += 3;
	declared_coding(text, end, name, NULL);
	if (!name[0] || name_in(name, utf8, COUNTOF(utf8)) || !strncmp(name, "utf_8_", 6))
		return LEX_CODING_UTF8;
	if (name_in(name, latin1, COUNTOF(latin1)) || !strncmp(name, "latin_1_", 8) ||
	    !strncmp(name, "iso_8859_1_", 11) || !strncmp(name, "iso_latin_1_", 12))
		return LEX_CODING_LATIN1;
	return LEX_CODING_OTHER;
}

char *lex_latin1_to_utf8(const char *text, size_t len, size_t *out_len)
{
	size_t n = len;
	for (size_t i = 0; i < len; i++)
		n += (unsigned char)text[i] >> 7;
	char *u = xmalloc(n + 1), *w = u;
	for (size_t i = 0; i < len; i++) {
		unsigned c = (unsigned char)text[i];
		if (c < 0x80) {
			*w++ = (char)c;
		} else {
			*w++ = (char)(0xc0 | c >> 6);
			*w++ = (char)(0x80 | (c & 0x3f));
		}
	}
	*w = 0;
	*out_len = n;
	return u;
}

/* Python reads a source file as UTF-8 (PEP 3120), or as the encoding it
 * declares: an invalid sequence is an error wherever it is, in a comment or a
 * string too, where the tokens alone would pass it on. A Latin-1 file comes
 * here as UTF-8 (source.c converts it); another declared encoding is taken
 * for a file that is all ASCII, where it reads the same, and refused past
 * that: its bytes read as UTF-8 were other strings than Python's. */
static void check_utf8(Lexer *lx)
{
	char coding[32];
	LexCoding k = lex_coding(lx->file->text, lx->file->len, coding);
	if (k != LEX_CODING_UTF8 && lx->p != lx->file->text) {
		fail(lx, LEXERR_GENERIC, loc_from_start(lx, lx->file->text),
		     "encoding problem: %s with BOM (a UTF-8 byte order mark, and line 1 or 2 declares another "
		     "encoding)", coding);
		return;
	}
	if (k == LEX_CODING_OTHER && !name_known(coding, codecs_ascii, COUNTOF(codecs_ascii))) {
		/* Python: "unknown encoding: klingon", or a codec it cannot read source
		 * in (UTF-16, base64) or that reads ASCII bytes as other text (UTF-7's
		 * '+', EBCDIC): the file's ASCII is not the code tile would read */
		const char *at = lx->p;
		char ignored[32];
		declared_coding(lx->p, lx->end, ignored, &at);
		if (name_known(coding, codecs_other, COUNTOF(codecs_other)))
			fail(lx, LEXERR_GENERIC, loc_from_start(lx, at),
			     "encoding problem: '%s' does not read ASCII bytes as ASCII: tile reads UTF-8 and "
			     "Latin-1 source only (save the file as UTF-8)", coding);
		else
			fail(lx, LEXERR_GENERIC, loc_from_start(lx, at), "unknown encoding: %s", coding);
		return;
	}
	for (const char *q = lx->p; q < lx->end;) {
		if (!(*q & 0x80)) {
			q++;
			continue;
		}
		uint32_t cp;
		int n = k == LEX_CODING_OTHER ? 0 : utf8_decode(lx, q, &cp);
		if (!n) {
			if (k == LEX_CODING_OTHER)
				fail(lx, LEXERR_GENERIC, loc_from_start(lx, q),
				     "byte 0x%02x in a file that declares the encoding '%s': tile reads UTF-8 and "
				     "Latin-1 source only (save the file as UTF-8)", (unsigned)ch(lx, q), coding);
			else
				fail(lx, LEXERR_GENERIC, loc_from_start(lx, q),
				     "invalid utf-8 byte 0x%02x (source files are UTF-8)", (unsigned)ch(lx, q));
			return;
		}
		q += n;
	}
}

void lex_init(Lexer *lx, Arena *arena, Interner *names, const SrcFile *file)
{
	memset(lx, 0, sizeof *lx);
	lx->arena = arena;
	lx->names = names;
	lx->file = file;
	lx->p = file->text;
	lx->end = file->text + file->len;
	lx->line_start = file->text;
	lx->line = 1;
	lx->at_bol = true;
	if (file->len >= 3 && memcmp(file->text, "\xef\xbb\xbf", 3) == 0)
		lx->p += 3; /* UTF-8 byte order mark */
	check_nul(lx);
	check_utf8(lx);
}

/* ---- lines and indentation --------------------------------------------------- */

static bool is_eol(int c) { return c == '\n' || c == '\r'; }

/* Consumes one end of line (\n, \r\n or \r) at q; returns the byte after. */
static const char *eat_eol(Lexer *lx, const char *q)
{
	if (ch(lx, q) == '\r' && ch(lx, q + 1) == '\n')
		q++;
	q++;
	lx->line++;
	lx->line_start = q;
	return q;
}

static void skip_comment(Lexer *lx)
{
	while (lx->p < lx->end && !is_eol(*lx->p))
		lx->p++;
}

static Token pending_tok(Lexer *lx)
{
	if (lx->pending > 0) {
		lx->pending--;
		return tok_at(TK_INDENT, lx->pending_loc, 0);
	}
	lx->pending++;
	return tok_at(TK_DEDENT, lx->pending_loc, 0);
}

static void push_indent(Lexer *lx, int col, int altcol, SrcLoc loc)
{
	if (altcol <= lx->altindent[lx->nindent]) {
		fail(lx, LEXERR_GENERIC, loc, "inconsistent use of tabs and spaces in indentation");
		return;
	}
	if (lx->nindent >= LEX_MAX_INDENT) {
		fail(lx, LEXERR_GENERIC, loc, "too many levels of indentation");
		return;
	}
	lx->nindent++;
	lx->indent[lx->nindent] = col;
	lx->altindent[lx->nindent] = altcol;
	lx->pending = 1;
}

static void pop_indents(Lexer *lx, int col, int altcol, SrcLoc loc)
{
	while (lx->nindent > 0 && col < lx->indent[lx->nindent]) {
		lx->nindent--;
		lx->pending--;
	}
	if (col != lx->indent[lx->nindent])
		fail(lx, LEXERR_GENERIC, loc,
		     "unindent does not match any outer indentation level");
	else if (altcol != lx->altindent[lx->nindent])
		fail(lx, LEXERR_GENERIC, loc, "inconsistent use of tabs and spaces in indentation");
}

/* At the start of a logical line: measures its indentation, skipping blank
 * and comment-only lines, and queues INDENT/DEDENT tokens. */
static void do_indent(Lexer *lx)
{
	for (;;) {
		int col = 0, altcol = 0;
		const char *q = lx->p;
		for (;; q++) {
			int c = ch(lx, q);
			if (c == ' ') {
				col++;
				altcol++;
			} else if (c == '\t') {
				col = (col / 8 + 1) * 8;
				altcol++;
			} else if (c == '\f') {
				col = altcol = 0;
			} else {
				break;
			}
		}
		lx->p = q;
		if (q >= lx->end)
			break;
		if (*q == '#') {
			skip_comment(lx);
			if (lx->p >= lx->end)
				break;
		}
		if (is_eol(*lx->p)) {
			lx->p = eat_eol(lx, lx->p);
			continue;
		}
		SrcLoc loc = loc_at(lx, q);
		lx->pending_loc = loc;
		int top = lx->indent[lx->nindent];
		if (col > top)
			push_indent(lx, col, altcol, loc);
		else if (col < top)
			pop_indents(lx, col, altcol, loc);
		else if (altcol != lx->altindent[lx->nindent])
			fail(lx, LEXERR_GENERIC, loc,
			     "inconsistent use of tabs and spaces in indentation");
		break;
	}
	lx->at_bol = false;
}

static Token eof_tok(Lexer *lx)
{
	if (lx->nparens > 0) {
		int i = lx->nparens - 1;
		fail(lx, LEXERR_UNCLOSED, lx->paren_loc[i], "'%c' was never closed", lx->parens[i]);
		return error_tok(lx);
	}
	SrcLoc here = loc_at(lx, lx->end);
	if (lx->line_has_tokens) {
		lx->line_has_tokens = false;
		return tok_at(TK_NEWLINE, lx->last_end, 0);
	}
	if (lx->nindent > 0) {
		lx->nindent--;
		return tok_at(TK_DEDENT, here, 0);
	}
	return tok_at(TK_EOF, here, 0);
}

/* ---- identifiers, keywords, invalid characters --------------------------------- */

static bool is_ident_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static bool is_digit(int c) { return c >= '0' && c <= '9'; }
static bool is_ident_char(int c) { return is_ident_start(c) || is_digit(c); }

/* Decodes one UTF-8 sequence; returns its length, or 0 if invalid. */
static int utf8_decode(const Lexer *lx, const char *q, uint32_t *cp);

/* The bytes of the identifier character at q (first: one that may begin an
 * identifier), 0 if there is none: ASCII letters, digits and '_', and beyond
 * ASCII the XID_Start / XID_Continue characters Python takes (PEP 3131). */
static int ident_char_len(const Lexer *lx, const char *q, bool first)
{
	int c = ch(lx, q);
	if (c < 0x80)
		return (first ? is_ident_start(c) : is_ident_char(c)) ? 1 : 0;
	uint32_t cp;
	int n = utf8_decode(lx, q, &cp);
	return n && (first ? unicode_xid_start(cp) : unicode_xid_continue(cp)) ? n : 0;
}

static int utf8_decode(const Lexer *lx, const char *q, uint32_t *cp)
{
	int c = ch(lx, q), n;
	if (c < 0x80) {
		*cp = (uint32_t)c;
		return 1;
	}
	if ((c & 0xe0) == 0xc0)
		n = 2, *cp = (uint32_t)(c & 0x1f);
	else if ((c & 0xf0) == 0xe0)
		n = 3, *cp = (uint32_t)(c & 0x0f);
	else if ((c & 0xf8) == 0xf0)
		n = 4, *cp = (uint32_t)(c & 0x07);
	else
		return 0;
	for (int i = 1; i < n; i++) {
		int d = ch(lx, q + i);
		if ((d & 0xc0) != 0x80)
			return 0;
		*cp = (*cp << 6) | (uint32_t)(d & 0x3f);
	}
	/* strict, as Python's decoder: no overlong forms (0xc0 0x80 is not NUL),
	 * no surrogates, nothing past U+10FFFF */
	static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
	if (*cp < least[n] || (*cp >= 0xd800 && *cp <= 0xdfff) || *cp > 0x10ffff)
		return 0;
	return n;
}

static void invalid_char(Lexer *lx, const char *q)
{
	uint32_t cp = 0;
	int n = utf8_decode(lx, q, &cp);
	SrcLoc loc = loc_at(lx, q);
	if (n == 0)
		fail(lx, LEXERR_GENERIC, loc, "invalid utf-8 byte 0x%02x", (unsigned)ch(lx, q));
	else if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && !unicode_printable(cp)))
		fail(lx, LEXERR_GENERIC, loc, "invalid non-printable character U+%04X",
		     (unsigned)cp);
	else
		fail(lx, LEXERR_GENERIC, loc, "invalid character '%.*s' (U+%04X)", n, q,
		     (unsigned)cp);
}

static TokKind keyword_kind(const char *s, size_t n)
{
	for (int k = TK_FIRST_KEYWORD; k <= TK_LAST_KEYWORD; k++) {
		const char *kw = tok_strs[k];
		if (strlen(kw) == n && memcmp(kw, s, n) == 0)
			return (TokKind)k;
	}
	return TK_NAME;
}

/* ---- numbers ------------------------------------------------------------------ */

static int digit_val(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

/* Digits of `base` with single underscores between them. Sets *bad on a
 * misplaced underscore. Returns the end. */
static const char *scan_digits(const Lexer *lx, const char *q, int base, bool *bad)
{
	if (digit_val(ch(lx, q)) >= base)
		return q;
	for (;;) {
		int c = ch(lx, q);
		if (digit_val(c) < base) {
			q++;
		} else if (c == '_') {
			if (digit_val(ch(lx, q + 1)) >= base) {
				*bad = true;
				return q;
			}
			q++;
		} else {
			return q;
		}
	}
}

/* Value of the digits in [s, e) (underscores skipped) into t (ival, and iu64
 * for [2**63, 2**64), which Triton types uint64); false past 2**64 - 1. */
static bool int_value(const char *s, const char *e, int base, Token *t)
{
	uint64_t v = 0;
	for (; s < e; s++) {
		if (*s == '_')
			continue;
		uint64_t d = (uint64_t)digit_val((unsigned char)*s);
		if (v > (UINT64_MAX - d) / (uint64_t)base)
			return false;
		v = v * (uint64_t)base + d;
	}
	t->ival = (int64_t)v;
	t->iu64 = v > (uint64_t)INT64_MAX;
	return true;
}

static Token lex_prefixed_int(Lexer *lx, const char *start)
{
	static const char *const names[] = {"", "", "binary", "", "", "", "", "",           "octal",
	                                    "", "", "",       "", "", "", "", "hexadecimal"};
	int x = ch(lx, start + 1) | 0x20;
	int base = x == 'x' ? 16 : x == 'o' ? 8 : 2;
	bool bad = false;
	const char *ds = start + 2;
	if (ch(lx, ds) == '_')
		ds++;
	const char *q = scan_digits(lx, ds, base, &bad);
	SrcLoc loc = loc_at(lx, start);
	if (!bad && is_digit(ch(lx, q))) {
		fail(lx, LEXERR_GENERIC, loc, "invalid digit '%c' in %s literal", ch(lx, q),
		     names[base]);
		return error_tok(lx);
	}
	if (bad || q == ds || is_ident_char(ch(lx, q))) {
		fail(lx, LEXERR_GENERIC, loc, "invalid %s literal", names[base]);
		return error_tok(lx);
	}
	Token t = tok_at(TK_INT, loc, (size_t)(q - start));
	if (!int_value(ds, q, base, &t)) {
		fail(lx, LEXERR_GENERIC, loc, "integer literal is too large");
		return error_tok(lx);
	}
	lx->p = q;
	return t;
}

/* Decimal int or float; `start` is a digit or a '.' followed by a digit. */
static const char *scan_decimal(Lexer *lx, const char *start, bool *is_float, bool *bad)
{
	const char *q = scan_digits(lx, start, 10, bad);
	if (ch(lx, q) == '.' && !*bad) {
		*is_float = true;
		q = scan_digits(lx, q + 1, 10, bad);
	}
	if ((ch(lx, q) | 0x20) == 'e' && !*bad) {
		const char *e = q + 1;
		if (ch(lx, e) == '+' || ch(lx, e) == '-')
			e++;
		if (!is_digit(ch(lx, e))) {
			*bad = true;
			return q;
		}
		*is_float = true;
		q = scan_digits(lx, e, 10, bad);
	}
	return q;
}

static bool has_leading_zero(const char *s, const char *e)
{
	if (*s != '0')
		return false;
	for (; s < e; s++)
		if (*s != '0' && *s != '_')
			return true;
	return false;
}

static double float_value(Lexer *lx, const char *s, const char *e)
{
	size_t n = (size_t)(e - s);
	char small[128];
	char *buf = n < sizeof small ? small : arena_alloc(lx->arena, n + 1);
	size_t k = 0;
	for (; s < e; s++)
		if (*s != '_')
			buf[k++] = *s;
	buf[k] = 0;
	return strtod(buf, NULL);
}

static Token lex_number(Lexer *lx, const char *start)
{
	int x = ch(lx, start + 1) | 0x20;
	if (*start == '0' && (x == 'x' || x == 'o' || x == 'b'))
		return lex_prefixed_int(lx, start);
	bool is_float = false, bad = false;
	const char *q = scan_decimal(lx, start, &is_float, &bad);
	SrcLoc loc = loc_at(lx, start);
	int c = ch(lx, q);
	if (!bad && (c == 'j' || c == 'J')) {
		fail(lx, LEXERR_GENERIC, loc, "complex literals are not supported");
		return error_tok(lx);
	}
	if (bad || is_ident_char(c)) {
		fail(lx, LEXERR_GENERIC, loc, "invalid decimal literal");
		return error_tok(lx);
	}
	if (!is_float && has_leading_zero(start, q)) {
		fail(lx, LEXERR_GENERIC, loc,
		     "leading zeros in decimal integer literals are not permitted; "
		     "use an 0o prefix for octal integers");
		return error_tok(lx);
	}
	Token t = tok_at(is_float ? TK_FLOAT : TK_INT, loc, (size_t)(q - start));
	if (is_float) {
		t.fval = float_value(lx, start, q);
	} else if (!int_value(start, q, 10, &t)) {
		fail(lx, LEXERR_GENERIC, loc, "integer literal is too large");
		return error_tok(lx);
	}
	lx->p = q;
	return t;
}

/* ---- strings ------------------------------------------------------------------ */

static const char *scan_fstr_field(Lexer *lx, const char *q, SrcLoc start, int nest);

/* Finds the closing quote of a string whose body starts at q; NULL (after an
 * error) if unterminated. Updates the line count for newlines inside. nest >= 0
 * reads an f-string nested that deep: '{{' is a brace, '{' opens a field. */
static const char *scan_string(Lexer *lx, const char *q, char quote, bool triple, SrcLoc start, int nest)
{
	for (;;) {
		int c = ch(lx, q);
		if (q >= lx->end || (is_eol(c) && !triple)) {
			/* at the end of a file that ends in a line break, Python's
			 * last line is the one that break ends */
			bool after_eol = q >= lx->end && q > lx->file->text && is_eol(q[-1]);
			fail(lx, triple ? LEXERR_EOF : LEXERR_GENERIC, start,
			     "unterminated %sstring literal (detected at line %d)",
			     triple ? "triple-quoted " : "", lx->line - after_eol);
			return NULL;
		}
		if (c == '\\' && q + 1 < lx->end) {
			q = is_eol(ch(lx, q + 1)) ? eat_eol(lx, q + 1) : q + 2;
		} else if (is_eol(c)) {
			q = eat_eol(lx, q);
		} else if (c == quote &&
		           (!triple || (ch(lx, q + 1) == quote && ch(lx, q + 2) == quote))) {
			return q;
		} else if (nest >= 0 && c == '{' && ch(lx, q + 1) != '{') {
			q = scan_fstr_field(lx, q + 1, start, nest);
			if (!q)
				return NULL;
			q++;
		} else {
			q += nest >= 0 && c == '{' ? 2 : 1;
		}
	}
}

/* Reads exactly n hex digits at *q; -1 if there are fewer. */
static long hex_n(const char *q, const char *e, int n)
{
	long v = 0;
	for (int i = 0; i < n; i++) {
		if (q + i >= e || digit_val((unsigned char)q[i]) >= 16)
			return -1;
		v = v * 16 + digit_val((unsigned char)q[i]);
	}
	return v;
}

static char simple_escape(int c)
{
	switch (c) {
	case '\\': return '\\';
	case '\'': return '\'';
	case '"': return '"';
	case 'a': return '\a';
	case 'b': return '\b';
	case 'f': return '\f';
	case 'n': return '\n';
	case 'r': return '\r';
	case 't': return '\t';
	case 'v': return '\v';
	default: return 0;
	}
}

const char *lex_decode_escape(const char *q, const char *e, char **o, const char **err)
{
	int c = (unsigned char)*q;
	char s = simple_escape(c);
	if (s) {
		*(*o)++ = s;
		return q + 1;
	}
	if (c >= '0' && c <= '7') {
		uint32_t v = 0;
		int n = 0;
		for (; n < 3 && q < e && *q >= '0' && *q <= '7'; n++, q++)
			v = v * 8 + (uint32_t)(*q - '0');
		*o = utf8_put(*o, v);
		return q;
	}
	int n = c == 'x' ? 2 : c == 'u' ? 4 : c == 'U' ? 8 : 0;
	if (n) {
		long v = hex_n(q + 1, e, n);
		if (v < 0 || v > 0x10ffff) {
			*err = v < 0 ? (c == 'x'   ? "truncated \\xXX escape"
			                : c == 'u' ? "truncated \\uXXXX escape"
			                           : "truncated \\UXXXXXXXX escape")
			             : "illegal Unicode character in \\U escape";
			return NULL;
		}
		*o = utf8_put(*o, (uint32_t)v);
		return q + 1 + n;
	}
	if (c == 'N') {
		*err = "\\N{...} escapes are not supported";
		return NULL;
	}
	*(*o)++ = '\\'; /* unknown escape: kept, as Python does */
	return q;
}

/* Decodes [s, e) into the arena; NULL (after an error at `loc`) on a bad escape. */
static char *decode_string(Lexer *lx, const char *s, const char *e, bool raw, SrcLoc loc,
                           size_t *len)
{
	char *buf = arena_alloc(lx->arena, (size_t)(e - s) + 1), *o = buf;
	while (s < e) {
		if (*s == '\r') { /* newlines in the source read as \n */
			*o++ = '\n';
			s += (s + 1 < e && s[1] == '\n') ? 2 : 1;
		} else if (*s != '\\' || raw) {
			*o++ = *s++;
			if (raw && s[-1] == '\\' && s < e)
				*o++ = *s++;
		} else if (s + 1 < e && is_eol((unsigned char)s[1])) {
			s += (s[1] == '\r' && s + 2 < e && s[2] == '\n') ? 3 : 2;
		} else {
			const char *err = NULL;
			s = lex_decode_escape(s + 1, e, &o, &err);
			if (!s) {
				fail(lx, LEXERR_GENERIC, loc, "%s", err);
				return NULL;
			}
		}
	}
	*o = 0;
	*len = (size_t)(o - buf);
	return buf;
}

/* q points at the opening quote; prefix flags from the letters before it. */
static Token lex_string(Lexer *lx, const char *start, const char *q, bool raw, bool fstr)
{
	SrcLoc loc = loc_at(lx, start);
	char quote = *q;
	bool triple = ch(lx, q + 1) == quote && ch(lx, q + 2) == quote;
	const char *body = q + (triple ? 3 : 1);
	const char *close = scan_string(lx, body, quote, triple, loc, fstr ? 0 : -1);
	if (!close)
		return error_tok(lx);
	Token t = tok_at(TK_STRING, loc, 0);
	t.str = decode_string(lx, body, close, raw, loc, &t.slen);
	if (!t.str)
		return error_tok(lx);
	lx->p = close + (triple ? 3 : 1);
	t.len = (uint32_t)(lx->p - lx->file->text - loc.offset);
	return t;
}

/* A string prefix ("r", "b", "rb", "f", ...) of length n, or false. */
static bool string_prefix(const char *s, size_t n, bool *raw, bool *bytes, bool *fstr)
{
	if (n == 0 || n > 2)
		return false;
	int seen = 0;
	for (size_t i = 0; i < n; i++) {
		int c = s[i] | 0x20, bit = c == 'r'   ? 1
		                           : c == 'b' ? 2
		                           : c == 'f' ? 4
		                           : c == 'u' ? 8
		                                      : 0;
		if (!bit || (seen & bit))
			return false;
		seen |= bit;
	}
	if ((seen & 8) && n > 1)
		return false; /* u cannot combine */
	if ((seen & 6) == 6)
		return false; /* bf */
	*raw = seen & 1;
	*bytes = seen & 2;
	*fstr = seen & 4;
	return true;
}

/* A name as Python's parser takes it: one with a character beyond ASCII is
 * normalized to NFKC (PEP 3131), so `ﬁ` and `fi` are one name, as are the
 * Angstrom sign and `Å` */
static const char *name_of(Lexer *lx, const char *start, size_t n)
{
	size_t i = 0;
	while (i < n && (unsigned char)start[i] < 0x80) i++;
	if (i == n) return intern(lx->names, start, n);
	size_t m;
	char *norm = unicode_nfkc(start, n, &m);
	if (!norm) {
		fail(lx, LEXERR_GENERIC, loc_at(lx, start), "out of memory");
		return intern(lx->names, start, n);
	}
	const char *r = intern(lx->names, norm, m);
	free(norm);
	return r;
}

/* ---- f-strings: where the literal ends (PEP 701) ---------------------------- */

/* Python 3.12 reads an f-string's {fields} as code, so a field may hold
 * strings with the f-string's own quote (`f"{".".join(keys)}"`), nested
 * f-strings and, in any f-string, line breaks. scan_string skips the fields
 * with these; the parser takes them apart from the source text. */
#define FSTRING_MAX_NEST 32

/* A string literal inside a field starting at q (its prefix letters, if any,
 * already read into [w, q)); returns the position after its closing quote. */
static const char *scan_nested_string(Lexer *lx, const char *w, const char *q, SrcLoc start, int nest)
{
	bool raw = false, bytes = false, fstr = false;
	if (q > w && !string_prefix(w, (size_t)(q - w), &raw, &bytes, &fstr))
		return q; /* a name, not a prefix: the quote is read next */
	char quote = *q;
	bool triple = ch(lx, q + 1) == quote && ch(lx, q + 2) == quote;
	const char *body = q + (triple ? 3 : 1);
	const char *close = scan_string(lx, body, quote, triple, start, fstr ? nest + 1 : -1);
	return close ? close + (triple ? 3 : 1) : NULL;
}

/* A format spec from q (past the ':'): literal text and {fields} up to the
 * '}' closing the field, which is returned. */
static const char *scan_fstr_spec(Lexer *lx, const char *q, SrcLoc start, int nest)
{
	while (q && q < lx->end && *q != '}') {
		if (*q == '{')
			q = scan_fstr_field(lx, q + 1, start, nest + 1);
		if (q)
			q = is_eol(*q) ? eat_eol(lx, q) : q + 1;
	}
	if (q && q >= lx->end) { /* the text ended inside the spec */
		fail(lx, LEXERR_EOF, start, "f-string: expecting '}'");
		return NULL;
	}
	return q;
}

/* The field whose '{' is just before q: code (with its own brackets and
 * strings) up to the '}' at bracket depth 0, which is returned. */
static const char *scan_fstr_field(Lexer *lx, const char *q, SrcLoc start, int nest)
{
	if (nest > FSTRING_MAX_NEST) {
		fail(lx, LEXERR_GENERIC, start, "f-string: expressions nested too deeply");
		return NULL;
	}
	/* a field with no expression (f"{}", f"{ !r}", f"{:>4}") is Python's
	 * SyntaxError; in host code around the kernels it was taken */
	const char *e = q;
	while (e < lx->end && (*e == ' ' || *e == '\t' || *e == '\f' || is_eol(*e)))
		e++;
	if (e < lx->end && (*e == '}' || *e == ':' || *e == '!' || *e == '=')) {
		fail(lx, LEXERR_GENERIC, start, "f-string: valid expression required before '%c'", *e);
		return NULL;
	}
	/* so is one that starts with a bare lambda, whose ':' would begin the
	 * format spec (f"{lambda x: x}"; f"{(lambda x: x)}" is fine) */
	if (lx->end - e >= 6 && memcmp(e, "lambda", 6) == 0 && ident_char_len(lx, e + 6, false) <= 0) {
		fail(lx, LEXERR_GENERIC, start,
		     "f-string: lambda expressions are not allowed without parentheses");
		return NULL;
	}
	for (int depth = 0; q;) {
		int c = ch(lx, q);
		if (q >= lx->end) {
			fail(lx, LEXERR_EOF, start, "f-string: expecting '}'");
			return NULL;
		}
		if (ident_char_len(lx, q, true) > 0) {
			const char *w = q;
			for (int k; (k = ident_char_len(lx, q, false)) > 0;)
				q += k;
			if (ch(lx, q) == '\'' || ch(lx, q) == '"')
				q = scan_nested_string(lx, w, q, start, nest);
		} else if (c == '\'' || c == '"') {
			q = scan_nested_string(lx, q, q, start, nest);
		} else if (c == '(' || c == '[' || c == '{') {
			depth++, q++;
		} else if (c == ')' || c == ']' || (c == '}' && depth > 0)) {
			depth -= depth > 0, q++;
		} else if (c == '}') {
			return q;
		} else if (c == ':' && depth == 0) {
			return scan_fstr_spec(lx, q + 1, start, nest);
		} else {
			q = is_eol(c) ? eat_eol(lx, q) : q + 1;
		}
	}
	return NULL;
}

static Token lex_word(Lexer *lx, const char *start)
{
	const char *q = start;
	for (int k; (k = ident_char_len(lx, q, false)) > 0;)
		q += k;
	size_t n = (size_t)(q - start);
	int c = ch(lx, q);
	bool raw, bytes, fstr;
	if ((c == '\'' || c == '"') && string_prefix(start, n, &raw, &bytes, &fstr)) {
		/* f-strings and bytes: tokens the parser rejects in code it must
		 * understand, and skips in host code around the kernels */
		Token t = lex_string(lx, start, q, raw, fstr);
		if (t.kind == TK_STRING)
			t.strkind = fstr ? TOKSTR_FSTRING : bytes ? TOKSTR_BYTES : TOKSTR_PLAIN;
		return t;
	}
	if (c >= 0x80) {
		invalid_char(lx, q);
		return error_tok(lx);
	}
	Token t = tok_at(keyword_kind(start, n), loc_at(lx, start), n);
	if (t.kind == TK_NAME)
		t.name = name_of(lx, start, n);
	lx->p = q;
	return t;
}

/* ---- operators and brackets -------------------------------------------------- */

static void open_paren(Lexer *lx, char c, SrcLoc loc)
{
	if (lx->nparens >= LEX_MAX_PARENS) {
		fail(lx, LEXERR_GENERIC, loc, "too many nested parentheses");
		return;
	}
	lx->parens[lx->nparens] = c;
	lx->paren_loc[lx->nparens++] = loc;
}

static void close_paren(Lexer *lx, char c, SrcLoc loc)
{
	if (lx->nparens == 0) {
		fail(lx, LEXERR_GENERIC, loc, "unmatched '%c'", c);
		return;
	}
	char o = lx->parens[lx->nparens - 1];
	SrcLoc ol = lx->paren_loc[lx->nparens - 1];
	char want = o == '(' ? ')' : o == '[' ? ']' : '}';
	if (c == want) {
		lx->nparens--;
	} else if (ol.line != loc.line) {
		fail(lx, LEXERR_GENERIC, loc,
		     "closing parenthesis '%c' does not match opening parenthesis '%c' on line %d",
		     c, o, ol.line);
	} else {
		fail(lx, LEXERR_GENERIC, loc,
		     "closing parenthesis '%c' does not match opening parenthesis '%c'", c, o);
	}
}

static Token lex_op(Lexer *lx, const char *start)
{
	SrcLoc loc = loc_at(lx, start);
	for (int k = TK_FIRST_OP; k < TK_COUNT_; k++) {
		const char *s = tok_strs[k];
		size_t n = strlen(s);
		if ((size_t)(lx->end - start) < n || memcmp(start, s, n) != 0)
			continue;
		if (n == 1 && strchr("([{", *s))
			open_paren(lx, *s, loc);
		else if (n == 1 && strchr(")]}", *s))
			close_paren(lx, *s, loc);
		if (lx->err)
			return error_tok(lx);
		lx->p = start + n;
		return tok_at((TokKind)k, loc, n);
	}
	invalid_char(lx, start);
	return error_tok(lx);
}

/* ---- the main loop ----------------------------------------------------------- */

static Token lex_token(Lexer *lx)
{
	const char *q = lx->p;
	int c = ch(lx, q);
	if (ident_char_len(lx, q, true))
		return lex_word(lx, q);
	if (is_digit(c) || (c == '.' && is_digit(ch(lx, q + 1))))
		return lex_number(lx, q);
	if (c == '\'' || c == '"')
		return lex_string(lx, q, q, false, false);
	if (c >= 0x80) {
		invalid_char(lx, q);
		return error_tok(lx);
	}
	return lex_op(lx, q);
}

/* A backslash outside a string: must end the line. */
static void continuation(Lexer *lx)
{
	const char *q = lx->p;
	if (q + 1 >= lx->end)
		fail(lx, LEXERR_EOF, loc_at(lx, q),
		     "unexpected end of file after line continuation character");
	else if (!is_eol(ch(lx, q + 1)))
		fail(lx, LEXERR_GENERIC, loc_at(lx, q),
		     "unexpected character after line continuation character");
	else
		lx->p = eat_eol(lx, q + 1);
	if (!lx->err && lx->p >= lx->end)
		fail(lx, LEXERR_EOF, loc_at(lx, lx->p),
		     "unexpected end of file after line continuation character");
}

Token lex_next(Lexer *lx)
{
	for (;;) {
		if (lx->err)
			return error_tok(lx);
		if (lx->pending)
			return pending_tok(lx);
		if (lx->at_bol && lx->nparens == 0) {
			do_indent(lx);
			continue;
		}
		while (lx->p < lx->end && (*lx->p == ' ' || *lx->p == '\t' || *lx->p == '\f'))
			lx->p++;
		if (lx->p >= lx->end)
			return eof_tok(lx);
		int c = (unsigned char)*lx->p;
		if (c == '#') {
			skip_comment(lx);
		} else if (c == '\\') {
			continuation(lx);
		} else if (is_eol(c)) {
			lx->p = eat_eol(lx, lx->p);
			if (lx->nparens > 0)
				continue;
			lx->at_bol = true;
			if (lx->line_has_tokens) {
				lx->line_has_tokens = false;
				return tok_at(TK_NEWLINE, lx->last_end, 0);
			}
		} else {
			Token t = lex_token(lx);
			if (t.kind != TK_ERROR) {
				lx->line_has_tokens = true;
				lx->last_end = loc_at(lx, lx->p);
			}
			return t;
		}
	}
}

/* ---- REPL support ------------------------------------------------------------ */

static bool ends_with_blank_line(const char *text, size_t len)
{
	size_t i = len, nl = 0;
	while (i > 0 && strchr(" \t\f\r\n", text[i - 1])) {
		if (text[i - 1] == '\n')
			nl++;
		i--;
	}
	return nl >= 2;
}

bool lex_input_incomplete(const char *text, size_t len)
{
	Arena a;
	Interner in;
	arena_init(&a);
	interner_init(&in, &a);
	SrcFile f = {"<input>", text, len};
	Lexer lx;
	lex_init(&lx, &a, &in, &f);
	TokKind last = TK_EOF, first = TK_EOF;
	bool line_start = true;
	int open_blocks = 0;
	for (;;) {
		Token t = lex_next(&lx);
		if (t.kind == TK_EOF || t.kind == TK_ERROR)
			break;
		if (t.kind == TK_NEWLINE) {
			line_start = true;
			open_blocks = lx.nindent;
			continue;
		}
		if (t.kind == TK_INDENT || t.kind == TK_DEDENT)
			continue;
		if (line_start)
			first = t.kind;
		line_start = false;
		last = t.kind;
	}
	bool more = lx.err == LEXERR_UNCLOSED || lx.err == LEXERR_EOF;
	if (!lx.err)
		more = last == TK_COLON || first == TK_AT ||
		       (open_blocks > 0 && !ends_with_blank_line(text, len));
	interner_free(&in);
	arena_free(&a);
	return more;
}

/* lex.h: the tokenizer for the Python-syntax subset of .tile files.
 *
 * Produces Python's token stream on demand: NEWLINE/INDENT/DEDENT from an
 * indentation stack (tabs advance to the next multiple of 8; a tab/space mix
 * that is ambiguous is an error, as in CPython), implicit line joining inside
 * (), [] and {}, explicit `\` continuation, comments, int/float/string
 * literals (strings decoded into the arena), operators and keywords.
 *
 * The lexer never reports diagnostics itself: the first problem it meets is
 * recorded (message + location) and every later call returns TK_ERROR. The
 * parser turns that into the diagnostic, so the first error in source order
 * is the one the user sees. No globals; all state lives in the Lexer.
 */
#ifndef TILE_LEX_H
#define TILE_LEX_H

#include "util/util.h"

/* X(kind, spelling): spelling is the source text of keywords and operators,
 * a description for the others (used in "expected ..." messages). Keywords
 * are listed between TK_FALSE and TK_YIELD, operators after TK_LPAR. */
#define TILE_TOKENS(X)                                                                             \
	X(TK_EOF, "end of file")                                                                   \
	X(TK_ERROR, "invalid token")                                                               \
	X(TK_NEWLINE, "newline")                                                                   \
	X(TK_INDENT, "indent")                                                                     \
	X(TK_DEDENT, "dedent")                                                                     \
	X(TK_NAME, "name")                                                                         \
	X(TK_INT, "integer literal")                                                               \
	X(TK_FLOAT, "float literal")                                                               \
	X(TK_STRING, "string literal")                                                             \
	X(TK_FALSE, "False")                                                                       \
	X(TK_NONE, "None")                                                                         \
	X(TK_TRUE, "True")                                                                         \
	X(TK_AND, "and")                                                                           \
	X(TK_AS, "as")                                                                             \
	X(TK_ASSERT, "assert")                                                                     \
	X(TK_ASYNC, "async")                                                                       \
	X(TK_AWAIT, "await")                                                                       \
	X(TK_BREAK, "break")                                                                       \
	X(TK_CLASS, "class")                                                                       \
	X(TK_CONTINUE, "continue")                                                                 \
	X(TK_DEF, "def")                                                                           \
	X(TK_DEL, "del")                                                                           \
	X(TK_ELIF, "elif")                                                                         \
	X(TK_ELSE, "else")                                                                         \
	X(TK_EXCEPT, "except")                                                                     \
	X(TK_FINALLY, "finally")                                                                   \
	X(TK_FOR, "for")                                                                           \
	X(TK_FROM, "from")                                                                         \
	X(TK_GLOBAL, "global")                                                                     \
	X(TK_IF, "if")                                                                             \
	X(TK_IMPORT, "import")                                                                     \
	X(TK_IN, "in")                                                                             \
	X(TK_IS, "is")                                                                             \
	X(TK_LAMBDA, "lambda")                                                                     \
	X(TK_NONLOCAL, "nonlocal")                                                                 \
	X(TK_NOT, "not")                                                                           \
	X(TK_OR, "or")                                                                             \
	X(TK_PASS, "pass")                                                                         \
	X(TK_RAISE, "raise")                                                                       \
	X(TK_RETURN, "return")                                                                     \
	X(TK_TRY, "try")                                                                           \
	X(TK_WHILE, "while")                                                                       \
	X(TK_WITH, "with")                                                                         \
	X(TK_YIELD, "yield")                                                                       \
	X(TK_LPAR, "(")                                                                            \
	X(TK_RPAR, ")")                                                                            \
	X(TK_LSQB, "[")                                                                            \
	X(TK_RSQB, "]")                                                                            \
	X(TK_LBRACE, "{")                                                                          \
	X(TK_RBRACE, "}")                                                                          \
	X(TK_ELLIPSIS, "...")                                                                      \
	X(TK_POWEQ, "**=")                                                                         \
	X(TK_FLOORDIVEQ, "//=")                                                                    \
	X(TK_LSHIFTEQ, "<<=")                                                                      \
	X(TK_RSHIFTEQ, ">>=")                                                                      \
	X(TK_POW, "**")                                                                            \
	X(TK_FLOORDIV, "//")                                                                       \
	X(TK_LSHIFT, "<<")                                                                         \
	X(TK_RSHIFT, ">>")                                                                         \
	X(TK_LE, "<=")                                                                             \
	X(TK_GE, ">=")                                                                             \
	X(TK_EQEQ, "==")                                                                           \
	X(TK_NE, "!=")                                                                             \
	X(TK_ARROW, "->")                                                                          \
	X(TK_WALRUS, ":=")                                                                         \
	X(TK_PLUSEQ, "+=")                                                                         \
	X(TK_MINUSEQ, "-=")                                                                        \
	X(TK_STAREQ, "*=")                                                                         \
	X(TK_SLASHEQ, "/=")                                                                        \
	X(TK_PERCENTEQ, "%=")                                                                      \
	X(TK_AMPEQ, "&=")                                                                          \
	X(TK_PIPEEQ, "|=")                                                                         \
	X(TK_CARETEQ, "^=")                                                                        \
	X(TK_ATEQ, "@=")                                                                           \
	X(TK_COLON, ":")                                                                           \
	X(TK_COMMA, ",")                                                                           \
	X(TK_SEMI, ";")                                                                            \
	X(TK_PLUS, "+")                                                                            \
	X(TK_MINUS, "-")                                                                           \
	X(TK_STAR, "*")                                                                            \
	X(TK_SLASH, "/")                                                                           \
	X(TK_PERCENT, "%")                                                                         \
	X(TK_PIPE, "|")                                                                            \
	X(TK_AMP, "&")                                                                             \
	X(TK_CARET, "^")                                                                           \
	X(TK_TILDE, "~")                                                                           \
	X(TK_LT, "<")                                                                              \
	X(TK_GT, ">")                                                                              \
	X(TK_ASSIGN, "=")                                                                          \
	X(TK_DOT, ".")                                                                             \
	X(TK_AT, "@")

typedef enum {
#define TILE_TOK_ENUM(k, s) k,
	TILE_TOKENS(TILE_TOK_ENUM)
#undef TILE_TOK_ENUM
	        TK_COUNT_
} TokKind;

#define TK_FIRST_KEYWORD TK_FALSE
#define TK_LAST_KEYWORD  TK_YIELD
#define TK_FIRST_OP      TK_LPAR

enum { TOKSTR_PLAIN, TOKSTR_FSTRING, TOKSTR_BYTES };

typedef struct Token {
	TokKind kind;
	SrcLoc loc;   /* first byte of the token */
	uint32_t len; /* bytes of source text (0 for NEWLINE at EOF, INDENT, DEDENT) */
	uint8_t strkind; /* TK_STRING: TOKSTR_PLAIN, or an f-string or bytes literal (lexed, not supported) */
	bool iu64;       /* TK_INT: the value is ival as uint64, in [2**63, 2**64) */
	union {
		const char *name; /* TK_NAME: interned */
		int64_t ival;     /* TK_INT */
		double fval;      /* TK_FLOAT */
		struct {
			const char *str; /* TK_STRING: decoded, NUL-terminated, in the arena */
			size_t slen;
		};
	};
} Token;

/* Limits (CPython's): bracket nesting and indentation depth. */
#define LEX_MAX_PARENS 200
#define LEX_MAX_INDENT 100

typedef enum {
	LEXERR_NONE,
	LEXERR_GENERIC,
	LEXERR_UNCLOSED, /* "'(' was never closed": wins over a later parse error */
	LEXERR_EOF,      /* input ended inside a triple-quoted string or after `\` */
} LexErrKind;

typedef struct Lexer {
	Arena *arena;
	Interner *names;
	const SrcFile *file;
	const char *p, *end; /* cursor; end = text + len */
	const char *line_start;
	int line;
	int indent[LEX_MAX_INDENT + 1], altindent[LEX_MAX_INDENT + 1];
	int nindent; /* entries in indent[] beyond the base level 0 */
	int pending; /* > 0: INDENTs to emit; < 0: DEDENTs to emit */
	SrcLoc pending_loc;
	char parens[LEX_MAX_PARENS];
	SrcLoc paren_loc[LEX_MAX_PARENS];
	int nparens;
	bool at_bol;          /* at the start of a logical line */
	bool line_has_tokens; /* a token was produced on this logical line */
	bool eof_newline_done;
	SrcLoc last_end; /* just past the last token: where NEWLINE points */
	LexErrKind err;
	const char *errmsg; /* arena */
	SrcLoc errloc;
} Lexer;

void lex_init(Lexer *lx, Arena *arena, Interner *names, const SrcFile *file);

/* One string escape at q (just past the backslash, q < e), as Python reads
 * it: writes its UTF-8 (4 bytes at most) to *o and returns the input position
 * after it, or NULL with *err set. */
const char *lex_decode_escape(const char *q, const char *e, char **o, const char **err);

/* The encoding a source text declares (PEP 263: a `coding: NAME` comment on
 * line 1 or 2; none is UTF-8). name[32] gets the name as Python's codec
 * lookup spells it. A Latin-1 text is read through lex_latin1_to_utf8
 * (malloc'd, NUL-terminated); another encoding is taken only for ASCII. */
typedef enum { LEX_CODING_UTF8, LEX_CODING_LATIN1, LEX_CODING_OTHER } LexCoding;
LexCoding lex_coding(const char *text, size_t len, char name[32]);
char *lex_latin1_to_utf8(const char *text, size_t len, size_t *out_len);
/* The next token; after an error, TK_ERROR forever (see lx->errmsg). */
Token lex_next(Lexer *lx);
/* Spelling of a keyword/operator, or a description of the token kind. */
const char *tok_kind_str(TokKind k);

/* For a REPL: true if `text` cannot be a complete input yet (an open bracket,
 * an unterminated triple-quoted string, a trailing `\`, or a last line that
 * ends with ':' or starts an indented block that has not been closed by an
 * empty line). Lexing errors other than these count as complete, so the
 * parser reports them. */
bool lex_input_incomplete(const char *text, size_t len);

#endif

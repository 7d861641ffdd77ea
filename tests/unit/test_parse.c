/* test_parse.c: lexer and parser. AST dumps of small programs, the exact
 * diagnostic (location + message) of syntax errors, expression locations,
 * resource limits (deep nesting, huge inputs), the REPL completeness check,
 * and a deterministic mutation smoke test: every .tile in tests/golden/parse
 * (plus built-in samples) mutated a few thousand times must parse or fail
 * cleanly, never crash. */
#include "parser/ast.h"
#include "parser/lex.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);      \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

/* Parses src; returns the dump, or "error: L:C: msg" for the first
 * diagnostic (heap string); *used (when given) gets the arena's bytes. */
static char *parse_result_used(const char *src, size_t len, size_t *used)
{
	SrcFile f = {"t.tile", src, len};
	Arena a;
	Interner in;
	DiagSink d;
	arena_init(&a);
	interner_init(&in, &a);
	diag_init(&d);
	Module *m = parse_module(&a, &in, &d, &f);
	StrBuf b = {0};
	if (m && d.nerrors == 0)
		ast_dump(m, &b);
	else if (!m && d.diags.len == 1)
		sb_printf(&b, "error: %d:%d: %s", d.diags.data[0].loc.line, d.diags.data[0].loc.col,
		          d.diags.data[0].msg);
	else
		sb_printf(&b, "bad: module %p with %zu diagnostics", (void *)m, d.diags.len);
	if (used)
		*used = a.used_total;
	diag_free(&d);
	interner_free(&in);
	arena_free(&a);
	return sb_take(&b);
}

static char *parse_result(const char *src, size_t len) { return parse_result_used(src, len, NULL); }

static void expect_result(const char *file, int line, const char *src, const char *want)
{
	char *got = parse_result(src, strlen(src));
	if (strcmp(got, want) != 0) {
		fprintf(stderr, "%s:%d: for source\n%s\ngot\n%s\nwanted\n%s\n", file, line, src,
		        got, want);
		failures++;
	}
	free(got);
}
#define EXPECT(src, want) expect_result(__FILE__, __LINE__, src, want)

/* Valid Python outside the subset: an error inside a @triton.jit function
 * (first line of src as its body, or src itself when it is a def), and
 * recorded as skipped host code at module level. */
static void expect_unsupported(const char *file, int line, const char *src, int l, int c, const char *msg)
{
	char want[512], kernel[512];
	snprintf(want, sizeof want,
		 "(module\n  (unsupported 1:1 \"Python that tile cannot parse (line %d, column %d: %s)\"))\n", l, c, msg);
	expect_result(file, line, src, want);
	bool def = strncmp(src, "def ", 4) == 0;
	snprintf(kernel, sizeof kernel, def ? "@triton.jit\n%s" : "@triton.jit\ndef k():\n    %s", src);
	snprintf(want, sizeof want, "error: %d:%d: %s", l + (def ? 1 : 2), c + (def ? 0 : 4), msg);
	expect_result(file, line, kernel, want);
}
#define EXPECT_UNSUPPORTED(src, l, c, msg) expect_unsupported(__FILE__, __LINE__, src, l, c, msg)

/* ---- dumps ------------------------------------------------------------------------- */

static void test_dumps(void)
{
	EXPECT("", "(module)\n");
	EXPECT("\n\n# only a comment\n   \n", "(module)\n");
	EXPECT("x = 1", "(module\n  (assign 1:1 x = 1))\n");
	EXPECT("a = b = f(x)[0]\n", "(module\n  (assign 1:1 a = b = (sub (call f x) 0)))\n");
	EXPECT("a, b = b, a\n", "(module\n  (assign 1:1 (tuple a b) = (tuple b a)))\n");
	EXPECT("(a, b) = c\n[d, e] = c\n",
	       "(module\n  (assign 1:1 (tuple a b) = c)\n  (assign 2:1 (list d e) = c))\n");
	EXPECT("x: int\ny: tl.constexpr = 3\n",
	       "(module\n  (annassign 1:1 x : int)\n  (annassign 2:1 y : (. tl constexpr) = 3))\n");
	EXPECT("x += 1; x -= 2; x *= 3; x /= 4; x //= 5; x %= 6\n",
	       "(module\n  (augassign 1:1 x += 1)\n  (augassign 1:9 x -= 2)\n"
	       "  (augassign 1:17 x *= 3)\n  (augassign 1:25 x /= 4)\n"
	       "  (augassign 1:33 x //= 5)\n  (augassign 1:42 x %= 6))\n");
	EXPECT("x **= 1; x &= 2; x |= 3; x ^= 4; x <<= 5; x >>= 6; x @= y;\n",
	       "(module\n  (augassign 1:1 x **= 1)\n  (augassign 1:10 x &= 2)\n"
	       "  (augassign 1:18 x |= 3)\n  (augassign 1:26 x ^= 4)\n"
	       "  (augassign 1:34 x <<= 5)\n  (augassign 1:43 x >>= 6)\n"
	       "  (augassign 1:52 x @= y))\n");
	EXPECT("-x ** 2\n", "(module\n  (expr 1:1 (- (** x 2))))\n");
	EXPECT("2 ** -1\n", "(module\n  (expr 1:1 (** 2 (- 1))))\n");
	EXPECT("a ** b ** c\n", "(module\n  (expr 1:1 (** a (** b c))))\n");
	EXPECT("a - b - c\n", "(module\n  (expr 1:1 (- (- a b) c)))\n");
	EXPECT("a | b ^ c & d << e + f * g\n",
	       "(module\n  (expr 1:1 (| a (^ b (& c (<< d (+ e (* f g))))))))\n");
	EXPECT("a // b % c @ d / e\n", "(module\n  (expr 1:1 (/ (@ (% (// a b) c) d) e)))\n");
	EXPECT("~a >> +b\n", "(module\n  (expr 1:1 (>> (~ a) (+ b))))\n");
	EXPECT("not a == b or c and d\n",
	       "(module\n  (expr 1:1 (or (not (cmp a == b)) (and c d))))\n");
	EXPECT("a < b != c >= d > e in f not in g is h is not i <= j\n",
	       "(module\n  (expr 1:1 (cmp a < b != c >= d > e in f not in g is h is not i <= "
	       "j)))\n");
	EXPECT("a if b else c if d else e\n", "(module\n  (expr 1:1 (ifexp b a (ifexp d c e))))\n");
	EXPECT("x[:, None], x[None, :], x[1:3:2], x[...], x[::2], x[a:], x[:b]\n",
	       "(module\n  (expr 1:1 (tuple (sub x (slice _ _ _) None) (sub x None (slice _ _ _)) "
	       "(sub x (slice 1 3 2)) (sub x ...) (sub x (slice _ _ 2)) (sub x (slice a _ _)) "
	       "(sub x (slice _ b _)))))\n");
	EXPECT("x[a,]\nx[()]\n",
	       "(module\n  (expr 1:1 (sub x a))\n  (expr 2:1 (sub x (tuple))))\n");
	EXPECT("f(a, b=1, c=(2, 3),)\n", "(module\n  (expr 1:1 (call f a b=1 c=(tuple 2 3))))\n");
	EXPECT("(1,)\n()\n[]\n[1, 2,]\n(x)\n",
	       "(module\n  (expr 1:1 (tuple 1))\n  (expr 2:1 (tuple))\n  (expr 3:1 (list))\n"
	       "  (expr 4:1 (list 1 2))\n  (expr 5:1 x))\n");
	EXPECT("True, False, None, ...\n", "(module\n  (expr 1:1 (tuple True False None ...)))\n");
	EXPECT("x = 1,\n", "(module\n  (assign 1:1 x = (tuple 1)))\n");
	EXPECT("a.b.c(d).e\n", "(module\n  (expr 1:1 (. (call (. (. a b) c) d) e)))\n");
	EXPECT("import a.b as c, d\nfrom . import x\nfrom ..p.q import (y as z, w,)\n",
	       "(module\n  (import 1:1 (a.b as c) d)\n  (from 2:1 . import x)\n"
	       "  (from 3:1 ..p.q import (y as z) w))\n");
	EXPECT("from ... import x\n", "(module\n  (from 1:1 ... import x))\n");
	EXPECT("from .a.b import *\n", "(module\n  (from 1:1 .a.b import *))\n");
	EXPECT("global a, b\nnonlocal c\n", "(module\n  (global 1:1 a b)\n  (global 2:1 c))\n");
	EXPECT("del x\nraise E()\n", "(module\n  (unsupported 1:1 \"del statement\")\n"
	                             "  (unsupported 2:1 \"raise statement\"))\n");
	EXPECT("class A(B):\n    def f(self):\n        pass\nx = 1\n",
	       "(module\n  (class 1:1 A B\n    (def 2:5 f\n      (param self)\n      (pass 3:9)))\n"
	       "  (assign 4:1 x = 1))\n");
	EXPECT("def g():\n    class A:\n        pass\n",
	       "(module\n  (def 1:1 g\n    (unsupported 2:5 \"class definition\")))\n");
	EXPECT("with a as b:\n    pass\ntry:\n    x\nexcept E:\n    y\nelse:\n    z\nfinally:\n"
	       "    w\nclass C: pass\n",
	       "(module\n  (unsupported 1:1 \"with statement\")\n"
	       "  (try 3:1\n    (expr 4:5 x)\n    (except\n      (expr 6:5 y))\n    (else\n      (expr 8:5 z))\n"
	       "    (finally\n      (expr 10:5 w)))\n  (class 11:1 C\n    (pass 11:10)))\n");
	EXPECT("try:\n    x\n", "error: 3:1: expected 'except' or 'finally' block");
	/* in a function a with is parsed (sema runs tl.async_task's body); items
	 * nest, `as` takes one target; parenthesized items stay unsupported */
	EXPECT("def f():\n    with a as b, c:\n        pass\n    with (a, b):\n        pass\n",
	       "(module\n  (def 1:1 f\n    (with 2:5 a as b\n      (with 2:5 c\n        (pass 3:9)))\n"
	       "    (unsupported 4:5 \"with statement\")))\n");
	EXPECT("match x:\n    case 1:\n        pass\nmatch = 3\nmatch(x)\n",
	       "(module\n  (unsupported 1:1 \"match statement\")\n  (assign 4:1 match = 3)\n"
	       "  (expr 5:1 (call match x)))\n");
	EXPECT("async def f():\n    pass\n", "(module\n  (unsupported 1:1 \"async function\"))\n");
	EXPECT("@a\n@b.c(d=[\"n\"])\nclass K:\n    pass\n",
	       "(module\n  (class 3:1 K\n    (pass 4:5)))\n");
	/* an error in a @jit function of a class is reported, not skipped with the class */
	EXPECT("class K:\n    @triton.jit\n    def f(x):\n        return {**x}\n",
	       "error: 4:17: dict unpacking ('**') is not supported");
	EXPECT("class K:\n    @triton.jit\n    def f(x):\n        return g(**x)\n",
	       "error: 4:18: argument unpacking ('**') is not supported");
}

static void test_dump_defs(void)
{
	EXPECT("@triton.jit(do_not_specialize=[\"n\"])\n"
	       "def k(a, b: tl.constexpr, c=4, d: tl.constexpr = 8) -> None:\n"
	       "    '''Doc.\n    more'''\n"
	       "    return a\n",
	       "(module\n  (def 2:1 k\n"
	       "    (decorator (call (. triton jit) do_not_specialize=(list \"n\")))\n"
	       "    (param a)\n    (param b : (. tl constexpr))\n    (param c = 4)\n"
	       "    (param d : (. tl constexpr) = 8)\n    (returns None)\n"
	       "    (docstring \"Doc.\\n    more\")\n    (expr 3:5 \"Doc.\\n    more\")\n"
	       "    (return 5:5 a)))\n");
	EXPECT("def f(): return 1; pass\n",
	       "(module\n  (def 1:1 f\n    (return 1:10 1)\n    (pass 1:20)))\n");
	EXPECT("fn = triton.jit(fn)\n", "(module\n  (assign 1:1 fn = (call (. triton jit) fn)))\n");
	EXPECT("if a:\n  pass\nelif b:\n  pass\nelif c: pass\nelse:\n  pass\n",
	       "(module\n  (if 1:1 a\n    (pass 2:3)\n    (else\n      (if 3:1 b\n        (pass "
	       "4:3)\n"
	       "        (else\n          (if 5:1 c\n            (pass 5:9)\n            (else\n"
	       "              (pass 7:3))))))))\n");
	EXPECT("while x:\n  break\nelse:\n  continue_ = 1\n",
	       "(module\n  (while 1:1 x\n    (break 2:3)\n    (else\n"
	       "      (assign 4:3 continue_ = 1))))\n");
	EXPECT("for i, (j, k) in a, b:\n  continue\n",
	       "(module\n  (for 1:1 (tuple i (tuple j k)) (tuple a b)\n    (continue 2:3)))\n");
	EXPECT("def f():\n  for i in x:\n    def g():\n      return\n    break\n",
	       "(module\n  (def 1:1 f\n    (for 2:3 i x\n      (def 3:5 g\n        (return 4:7))\n"
	       "      (break 5:5))))\n");
}

static void test_literals(void)
{
	EXPECT("0x_ff, 0o17, 0b1010, 1_000, 0, 00, 9223372036854775807\n",
	       "(module\n  (expr 1:1 (tuple 255 15 10 1000 0 0 9223372036854775807)))\n");
	EXPECT("1., .5, 1e-3, 1_000.0, 1E+10, 0.1, 3.14159, 1e400, 0e0, 010.5\n",
	       "(module\n  (expr 1:1 (tuple 1.0 0.5 0.001 1000.0 10000000000.0 0.1 3.14159 inf 0.0 "
	       "10.5)))\n");
	EXPECT("'a' \"b\" '''c\nd''' \"\"\"e\"\"\" r'\\n' R\"\\q\" u'x'\n",
	       "(module\n  (expr 1:1 \"abc\\nde\\\\n\\\\qx\"))\n");
	EXPECT("'\\n\\t\\\\\\'\\\"\\x41\\101\\u00e9\\q\\0'\n",
	       "(module\n  (expr 1:1 \"\\n\\t\\\\'\\\"AAé\\\\q\\x00\"))\n");
	EXPECT("'a\\\nb'\n", "(module\n  (expr 1:1 \"ab\"))\n");
	EXPECT("x = 1 + \\\n    2\n", "(module\n  (assign 1:1 x = (+ 1 2)))\n");
	EXPECT("x = (1 +\n# c\n  2)\ny = [\n]\n",
	       "(module\n  (assign 1:1 x = (+ 1 2))\n  (assign 4:1 y = (list)))\n");
	EXPECT("if x:\n\tif y:\n\t\tpass\n\tz\n",
	       "(module\n  (if 1:1 x\n    (if 2:2 y\n      (pass 3:3))\n    (expr 4:2 z)))\n");
	EXPECT("if x:\r\n  y\r\n", "(module\n  (if 1:1 x\n    (expr 2:3 y)))\n");
	EXPECT("\xef\xbb\xbfx\n", "(module\n  (expr 1:4 x))\n");
	EXPECT("if x:\n    pass\n  # odd comment\n\n", "(module\n  (if 1:1 x\n    (pass 2:5)))\n");
	EXPECT("x\n    # indented comment at end", "(module\n  (expr 1:1 x))\n");
}

/* ---- errors -------------------------------------------------------------------------- */

static void test_lex_errors(void)
{
	EXPECT("x = 'abc\n", "error: 1:5: unterminated string literal (detected at line 1)");
	EXPECT("x = '''abc\n\n",
	       "error: 1:5: unterminated triple-quoted string literal (detected at line 2)");
	EXPECT("x = $\n", "error: 1:5: invalid character '$' (U+0024)");
	EXPECT("x = a ? b\n", "error: 1:7: invalid character '?' (U+003F)");
	EXPECT("x = \xe2\x82\xac\n", "error: 1:5: invalid character '\xe2\x82\xac' (U+20AC)");
	/* names beyond ASCII as Python takes them (PEP 3131): XID_Start, then
	 * XID_Continue; U+0663 (ARABIC-INDIC THREE) continues a name but cannot
	 * begin one, and U+00B2 (superscript two) is neither */
	EXPECT("\xce\xb1 = 0.5\n", "(module\n  (assign 1:1 \xce\xb1 = 0.5))\n");
	EXPECT("\xe7\xbc\xa9\xe6\x94\xbe_x\xd9\xa3 = a\xc2\xb7" "b\n",
	       "(module\n  (assign 1:1 \xe7\xbc\xa9\xe6\x94\xbe_x\xd9\xa3 = a\xc2\xb7" "b))\n");
	EXPECT("\xd9\xa3x = 1\n", "error: 1:1: invalid character '\xd9\xa3' (U+0663)");
	EXPECT("\xcf\x83\xc2\xb2 = 1\n", "error: 1:3: invalid character '\xc2\xb2' (U+00B2)");
	EXPECT("x = 1\xce\xb1\n", "error: 1:6: invalid syntax");
	/* a name beyond ASCII is normalized to NFKC, as Python's parser does: the
	 * ligature fi is "fi", x + subscript i "xi", the Angstrom sign and the
	 * micro sign the letters, fullwidth "tl" is tl; e + combining acute
	 * composes, a dot below is ordered before the acute (by combining class)
	 * and composes with e first, Hangul jamo L + V make a syllable. These
	 * were other names than the ones Python binds ("fi = 1; \ufb01 = 2" left
	 * fi 1) */
	EXPECT("\xef\xac\x81 = x\xe1\xb5\xa2\n", "(module\n  (assign 1:1 fi = xi))\n");
	EXPECT("\xe2\x84\xab = \xc2\xb5\n", "(module\n  (assign 1:1 \xc3\x85 = \xce\xbc))\n");
	EXPECT("\xef\xbd\x94\xef\xbd\x8c.x\n", "(module\n  (expr 1:1 (. tl x)))\n");
	EXPECT("e\xcc\x81 = \xc3\xa9\xcc\xa3\n", "(module\n  (assign 1:1 \xc3\xa9 = \xe1\xba\xb9\xcc\x81))\n");
	EXPECT("\xe1\x84\x80\xe1\x85\xa1 = 1\n", "(module\n  (assign 1:1 \xea\xb0\x80 = 1))\n");
	EXPECT("x = \xff\n", "error: 1:5: invalid utf-8 byte 0xff (source files are UTF-8)");
	/* the whole file is UTF-8, as Python reads it: comments and strings were
	 * passed on, and the decoder took overlong forms (0xc0 0x80 was NUL),
	 * surrogates and a sequence cut off at the end */
	EXPECT("x = 1\n# caf\xe9\n", "error: 2:6: invalid utf-8 byte 0xe9 (source files are UTF-8)");
	EXPECT("x = 'caf\xe9'\n", "error: 1:9: invalid utf-8 byte 0xe9 (source files are UTF-8)");
	EXPECT("x = \xc0\x80\n", "error: 1:5: invalid utf-8 byte 0xc0 (source files are UTF-8)");
	EXPECT("# \xed\xa0\x80\nx\n", "error: 1:3: invalid utf-8 byte 0xed (source files are UTF-8)");
	EXPECT("x\r# \xf4\x90\x80\x80\n", "error: 2:3: invalid utf-8 byte 0xf4 (source files are UTF-8)");
	EXPECT("x\n# \xe2\x82", "error: 2:3: invalid utf-8 byte 0xe2 (source files are UTF-8)");
	/* PEP 263: a Latin-1 file reaches the parser as UTF-8 (source.c reads it
	 * through lex_latin1_to_utf8); another declared encoding is taken while
	 * the file is ASCII, and refused past that (its bytes were left alone and
	 * read as UTF-8: 'caf\xe9' was another string than Python's) */
	EXPECT("# -*- coding: latin-1 -*-\n# caf\xc3\xa9\nx\n", "(module\n  (expr 3:1 x))\n");
	EXPECT("#!/usr/bin/python\n# vim: set fileencoding=iso-8859-15 :\nx  # \xe9\n",
	       "error: 3:6: byte 0xe9 in a file that declares the encoding 'iso_8859_15': tile reads UTF-8 and "
	       "Latin-1 source only (save the file as UTF-8)");
	EXPECT("#!/usr/bin/python\n# vim: set fileencoding=iso-8859-15 :\nx  # e\n", "(module\n  (expr 3:1 x))\n");
	/* an encoding Python does not know is its "unknown encoding" (it was
	 * taken while the file was ASCII), and one that reads ASCII bytes as other
	 * text (UTF-16, UTF-7's '+', EBCDIC) or is no text encoding (rot13) is
	 * refused: the code Python runs is not the ASCII tile reads */
	EXPECT("# coding: klingon\nx\n", "error: 1:11: unknown encoding: klingon");
	EXPECT("#!/usr/bin/python\n# -*- coding: UTF-16 -*-\nx\n",
	       "error: 2:15: encoding problem: 'utf_16' does not read ASCII bytes as ASCII: tile reads UTF-8 and "
	       "Latin-1 source only (save the file as UTF-8)");
	EXPECT("# coding=rot13\nx\n",
	       "error: 1:10: encoding problem: 'rot13' does not read ASCII bytes as ASCII: tile reads UTF-8 and "
	       "Latin-1 source only (save the file as UTF-8)");
	EXPECT("# coding: cp037\nx\n",
	       "error: 1:11: encoding problem: 'cp037' does not read ASCII bytes as ASCII: tile reads UTF-8 and "
	       "Latin-1 source only (save the file as UTF-8)");
	EXPECT("# coding: EUC-JP\nx\n", "(module\n  (expr 2:1 x))\n");
	EXPECT("# coding: us-ascii\nx\n", "(module\n  (expr 2:1 x))\n");
	EXPECT("\xef\xbb\xbf# coding: latin-1\nx\n",
	       "error: 1:1: encoding problem: latin_1 with BOM (a UTF-8 byte order mark, and line 1 or 2 declares "
	       "another encoding)");
	{
		char name[32];
		CHECK(lex_coding("# coding: ISO_8859-1\n", 21, name) == LEX_CODING_LATIN1);
		CHECK(lex_coding("# coding=l1\n", 12, name) == LEX_CODING_LATIN1);
		CHECK(lex_coding("#!x\n# -*- coding: latin-1-foo -*-\n", 34, name) == LEX_CODING_LATIN1);
		CHECK(lex_coding("# coding: utf-8-sig\n", 20, name) == LEX_CODING_UTF8);
		CHECK(lex_coding("# coding: UTF8\n", 15, name) == LEX_CODING_UTF8);
		CHECK(lex_coding("x\n# coding: latin-1\n", 20, name) == LEX_CODING_UTF8);
		CHECK(lex_coding("# coding: cp1252\n", 17, name) == LEX_CODING_OTHER && !strcmp(name, "cp1252"));
		size_t n;
		char *u = lex_latin1_to_utf8("caf\xe9\xff", 5, &n);
		CHECK(n == 7 && !strcmp(u, "caf\xc3\xa9\xc3\xbf"));
		free(u);
	}
	EXPECT("# coding: utf-8\n# caf\xe9\n", "error: 2:6: invalid utf-8 byte 0xe9 (source files are UTF-8)");
	EXPECT("x\n# coding: latin-1\n# caf\xe9\n", "error: 3:6: invalid utf-8 byte 0xe9 (source files are UTF-8)");
	EXPECT("x = 1\x01\n", "error: 1:6: invalid non-printable character U+0001");
	/* so is one past ASCII that Python does not print (a bidi override, a
	 * zero-width space, a no-break space, U+2028, a BOM past the start): the
	 * message quoted it, reordering or hiding the rest of the line */
	EXPECT("x = 1\xe2\x80\xae\n", "error: 1:6: invalid non-printable character U+202E");
	EXPECT("x = 1\xe2\x80\x8b\n", "error: 1:6: invalid non-printable character U+200B");
	EXPECT("x =\xc2\xa0" "1\n", "error: 1:4: invalid non-printable character U+00A0");
	EXPECT("x = 1\xe2\x80\xa8\n", "error: 1:6: invalid non-printable character U+2028");
	EXPECT("x = \xef\xbb\xbf" "1\n", "error: 1:5: invalid non-printable character U+FEFF");
	EXPECT("x = 1 \xe2\x82\xac\n", "error: 1:7: invalid character '\xe2\x82\xac' (U+20AC)");
	EXPECT("x = f'{a}'\n", "(module\n  (assign 1:1 x = (+ \"\" (call str a))))\n");
	EXPECT("x = f'{a:3}'\n", "(module\n  (assign 1:1 x = (+ \"\" (call format a \"3\"))))\n");
	EXPECT("x = f'{a!r:>{w}}'\n", "(module\n  (assign 1:1 x = (+ \"\" (call format (call repr a) (+ \">\" (call str w))))))\n");
	EXPECT("x = f'{a!r}'\n", "(module\n  (assign 1:1 x = (+ \"\" (call repr a))))\n");
	EXPECT("x = f'{a = }'\n", "(module\n  (assign 1:1 x = (+ \"a = \" (call repr a))))\n");
	EXPECT("x = f'{a==b}'\n", "(module\n  (assign 1:1 x = (+ \"\" (call str (cmp a == b)))))\n");
	EXPECT_UNSUPPORTED("x = f'{a +}'\n", 1, 11, "invalid syntax");
	EXPECT_UNSUPPORTED("x = b'a'\n", 1, 5, "bytes literals are not supported");
	EXPECT("x = 99999999999999999999\n", "error: 1:5: integer literal is too large");
	EXPECT("x = 18446744073709551616\n", "error: 1:5: integer literal is too large");
	EXPECT("x = 18446744073709551615\n", "(module\n  (assign 1:1 x = 18446744073709551615))\n");
	EXPECT("x = 0x1_0000_0000_0000_0000\n", "error: 1:5: integer literal is too large");
	EXPECT("x = 0x\n", "error: 1:5: invalid hexadecimal literal");
	EXPECT("x = 0o8\n", "error: 1:5: invalid digit '8' in octal literal");
	EXPECT("x = 0b12\n", "error: 1:5: invalid digit '2' in binary literal");
	EXPECT("x = 1__0\n", "error: 1:5: invalid decimal literal");
	EXPECT("x = 1_\n", "error: 1:5: invalid decimal literal");
	EXPECT("x = 1abc\n", "error: 1:5: invalid decimal literal");
	EXPECT("x = 1e\n", "error: 1:5: invalid decimal literal");
	EXPECT("x = 1j\n", "error: 1:5: complex literals are not supported");
	EXPECT("x = 0123\n",
	       "error: 1:5: leading zeros in decimal integer literals are not permitted; "
	       "use an 0o prefix for octal integers");
	EXPECT("x = '\\x4'\n", "error: 1:5: truncated \\xXX escape");
	EXPECT("x = '\\N{DASH}'\n", "error: 1:5: \\N{...} escapes are not supported");
	EXPECT("x = 1 \\ 2\n",
	       "error: 1:7: unexpected character after line continuation character");
	EXPECT("x = 1 \\", "error: 1:7: unexpected end of file after line continuation character");
	EXPECT("x = (1,\n 2\n", "error: 1:5: '(' was never closed");
	EXPECT("x = [1, (2\n", "error: 1:9: '(' was never closed");
	EXPECT("x = 1)\n", "error: 1:6: unmatched ')'");
	EXPECT("x = }\n", "error: 1:5: unmatched '}'");
	EXPECT("x = [1, 2)\n",
	       "error: 1:10: closing parenthesis ')' does not match opening parenthesis '['");
	EXPECT("x = [1,\n2)\n", "error: 2:2: closing parenthesis ')' does not match opening "
	                        "parenthesis '[' on line 1");
	EXPECT("if x:\n    a\n  b\n",
	       "error: 3:3: unindent does not match any outer indentation level");
	EXPECT("if x:\n        a\n\tb\n",
	       "error: 3:2: inconsistent use of tabs and spaces in indentation");
	char *nul = parse_result("x = 1\0\n", 7);
	CHECK(strcmp(nul, "error: 1:6: source code cannot contain null bytes") == 0);
	free(nul);
}

static void test_parse_errors(void)
{
	EXPECT("  x = 1\n", "error: 1:3: unexpected indent");
	EXPECT("x = 1\n    y = 2\n", "error: 2:5: unexpected indent");
	EXPECT("for i in x:\ny = 1\n",
	       "error: 2:1: expected an indented block after 'for' statement on line 1");
	EXPECT("def f():\n",
	       "error: 2:1: expected an indented block after function definition on line 1");
	EXPECT("if x:\n  pass\nelse:\npass\n",
	       "error: 4:1: expected an indented block after 'else' statement on line 3");
	EXPECT("if x\n  pass\n", "error: 1:5: expected ':'");
	EXPECT("def f()\n  pass\n", "error: 1:8: expected ':'");
	EXPECT("def f:\n  pass\n", "error: 1:6: expected '('");
	EXPECT("for x y:\n  pass\n", "error: 1:7: expected 'in'");
	EXPECT("x = 1 +\n", "error: 1:8: invalid syntax");
	EXPECT("x = (1 + 2\ny = 3\n", "error: 1:5: '(' was never closed");
	EXPECT("f(a b)\n", "error: 1:5: invalid syntax");
	EXPECT("x y\n", "error: 1:3: invalid syntax");
	EXPECT("x[]\n", "error: 1:3: invalid syntax");
	EXPECT("else:\n  pass\n", "error: 1:1: invalid syntax");
	EXPECT("a if b\n", "error: 1:7: expected 'else' after 'if' expression");
	EXPECT("f() = 3\n", "error: 1:1: cannot assign to function call");
	EXPECT("1 = x\n", "error: 1:1: cannot assign to literal");
	EXPECT("a + b = x\n", "error: 1:3: cannot assign to expression");
	EXPECT("a, f() = x\n", "error: 1:4: cannot assign to function call");
	EXPECT("None = 1\n", "error: 1:1: cannot assign to None");
	EXPECT("for f() in x:\n  pass\n", "error: 1:5: cannot assign to function call");
	EXPECT("a, b += 1\n",
	       "error: 1:1: 'tuple' is an illegal expression for augmented assignment");
	EXPECT("a, b: int\n", "error: 1:1: only single target (not tuple) can be annotated");
	EXPECT("f(): int\n", "error: 1:1: illegal target for annotation");
	EXPECT("x = lambda y: y\n", "(module\n  (assign 1:1 x = (lambda (y) y)))\n");
	EXPECT("f(lambda: 0)\n", "(module\n  (expr 1:1 (call f (lambda () 0))))\n");
	EXPECT("x = lambda *a, **k: a\n", "(module\n  (assign 1:1 x = (lambda (*a **k) a)))\n");
	EXPECT("x = lambda *a, *b: a\n", "error: 1:16: * argument may appear only once");
	EXPECT("x = lambda a, **k, **j: a\n", "error: 1:20: arguments cannot follow var-keyword argument");
	EXPECT("x = lambda a, **a: a\n", "error: 1:17: duplicate argument 'a' in function definition");
	EXPECT_UNSUPPORTED("x = lambda a, /: a\n", 1, 15, "positional-only parameters ('/') are not supported");
	EXPECT("x = lambda a, a: a\n", "error: 1:15: duplicate argument 'a' in function definition");
	EXPECT("x = -lambda: 0\n", "error: 1:6: invalid syntax");
	EXPECT("lambda: 0 = 1\n", "error: 1:1: cannot assign to lambda");
	EXPECT_UNSUPPORTED("x = yield 1\n", 1, 5, "yield is not supported");
	EXPECT_UNSUPPORTED("x = await y\n", 1, 5, "await is not supported");
	EXPECT("x = (a := 3)\n", "(module\n  (assign 1:1 x = (:= a 3)))\n");
	EXPECT("if (n := f(y)) > 5:\n  pass\n", "(module\n  (if 1:1 (cmp (:= n (call f y)) > 5)\n    (pass 2:3)))\n");
	EXPECT("x = (a.b := 3)\n", "error: 1:6: cannot use assignment expressions with attribute");
	EXPECT_UNSUPPORTED("*a, b = x\n", 1, 1, "starred expressions are not supported");
	EXPECT("f(*a)\n", "(module\n  (expr 1:1 (call f (* a))))\n");
	/* f(**d) outside a @jit function: host Python sema evaluates (Config(kw, **opts)) */
	EXPECT("f(**a)\n", "(module\n  (expr 1:1 (call f **=a)))\n");
	EXPECT("def h(a):\n    return f(1, **a, b=2)\n",
	       "(module\n  (def 1:1 h\n    (param a)\n    (return 2:5 (call f 1 **=a b=2))))\n");
	EXPECT("@triton.jit\ndef k(a):\n    f(**a)\n", "error: 3:7: argument unpacking ('**') is not supported");
	EXPECT("f(a=1, b)\n", "error: 1:8: positional argument follows keyword argument");
	EXPECT("f(a=1, a=2)\n", "error: 1:8: keyword argument repeated: a");
	EXPECT("f(a.b=1)\n",
	       "error: 1:6: expression cannot contain assignment, perhaps you meant \"==\"?");
	EXPECT("x = {}\n", "(module\n  (assign 1:1 x = (dict)))\n");
	EXPECT("x = {1: 2, 'a': b,}\n", "(module\n  (assign 1:1 x = (dict (1 2) (\"a\" b))))\n");
	EXPECT("x = {1, 2}\n", "(module\n  (assign 1:1 x = (set 1 2)))\n");
	EXPECT("x = {1: 2, 3}\n", "error: 1:13: expected ':'");
	EXPECT("x = {**a}\n", "(module\n  (assign 1:1 x = (dict (** a))))\n");
	EXPECT("x = {1: 2, **a, **b(c), 3: 4,}\n",
	       "(module\n  (assign 1:1 x = (dict (1 2) (** a) (** (call b c)) (3 4))))\n");
	EXPECT("x = {**a for a in b}\n", "error: 1:10: expected '}'");
	EXPECT("x = {**a: 1}\n", "error: 1:9: expected '}'");
	EXPECT("x = {k: v for k in y if v}\n", "(module\n  (assign 1:1 x = (dictcomp (tuple k v) (for k in y if v))))\n");
	EXPECT("{1: 2} = x\n", "error: 1:1: cannot assign to dict literal");
	EXPECT("x = [i for i in y]\n", "(module\n  (assign 1:1 x = (listcomp i (for i in y))))\n");
	EXPECT("x = [i * j for i in y if i for j in z if j if i < j]\n",
	       "(module\n  (assign 1:1 x = (listcomp (* i j) (for i in y if i) (for j in z if j if (cmp i < j)))))\n");
	EXPECT("x = [(a, b) for a, b in y]\n",
	       "(module\n  (assign 1:1 x = (listcomp (tuple a b) (for (tuple a b) in y))))\n");
	EXPECT("x = [a if c else b for a in y]\n",
	       "(module\n  (assign 1:1 x = (listcomp (ifexp c a b) (for a in y))))\n");
	EXPECT("f(i for i in y)\n", "(module\n  (expr 1:1 (call f (genexp i (for i in y)))))\n");
	EXPECT("x = (i for i in y)\n", "(module\n  (assign 1:1 x = (genexp i (for i in y))))\n");
	EXPECT("f(a, i for i in y)\n", "error: 1:8: Generator expression must be parenthesized");
	EXPECT("f(i for i in y, a)\n", "error: 1:3: Generator expression must be parenthesized");
	EXPECT("x = [i for i y]\n", "error: 1:14: expected 'in' in comprehension");
	EXPECT("x = {i for i in y}\n", "(module\n  (assign 1:1 x = (setcomp i (for i in y))))\n");
	EXPECT("def f(a, *, b):\n  pass\n",
	       "(module\n  (def 1:1 f\n    (param a)\n    (param *)\n    (param b)\n    (pass 2:3)))\n");
	EXPECT("def f(a, *args, b=1, c):\n  pass\n",
	       "(module\n  (def 1:1 f\n    (param a)\n    (param *args)\n    (param b = 1)\n    (param c)\n"
	       "    (pass 2:3)))\n");
	EXPECT("def f(*args):\n  pass\n", "(module\n  (def 1:1 f\n    (param *args)\n    (pass 2:3)))\n");
	EXPECT("def f(a, *):\n  pass\n", "error: 1:10: named arguments must follow bare *");
	EXPECT("def f(*a, *b):\n  pass\n", "error: 1:11: * argument may appear only once");
	EXPECT("def f(a, *a):\n  pass\n", "error: 1:11: duplicate argument 'a' in function definition");
	EXPECT("def f(a, **kw):\n  pass\n", "(module\n  (def 1:1 f\n    (param a)\n    (param **kw)\n    (pass 2:3)))\n");
	EXPECT("def f(**kw, b):\n  pass\n", "error: 1:13: a parameter cannot follow **kw");
	EXPECT("@triton.jit\ndef f(**kw):\n  pass\n",
	       "error: 2:7: variadic keyword parameters (**kwargs) are not supported in @jit functions, as in Triton");
	EXPECT("def f(kw, **kw):\n  pass\n", "error: 1:13: duplicate argument 'kw' in function definition");
	EXPECT_UNSUPPORTED("def f(a, /):\n  pass\n", 1, 10, "positional-only parameters ('/') are not supported");
	EXPECT("def f(a, a):\n  pass\n",
	       "error: 1:10: duplicate argument 'a' in function definition");
	EXPECT("def f(a=1, b):\n  pass\n",
	       "error: 1:12: parameter without a default follows parameter with a default");
	EXPECT("return 1\n", "error: 1:1: 'return' outside function");
	EXPECT("break\n", "error: 1:1: 'break' outside loop");
	EXPECT("while x:\n  def f():\n    continue\n",
	       "error: 3:5: 'continue' not properly in loop");
	EXPECT("for x in y:\n  pass\nelse:\n  break\n", "error: 4:3: 'break' outside loop");
	EXPECT("from a import (*)\n", "error: 1:16: invalid syntax");
	EXPECT("from a import b,\n",
	       "error: 1:17: trailing comma not allowed without surrounding parentheses");
	EXPECT("import\n", "error: 1:7: invalid syntax");
	EXPECT("@dec\nx = 1\n", "error: 2:1: invalid syntax");
	EXPECT("class A:\nx = 1\n",
	       "error: 2:1: expected an indented block after class definition on line 1");
	EXPECT("x = 1 +\ny = $\n", "error: 1:8: invalid syntax");
	EXPECT("x = (1 +\ny = $\n", "error: 2:3: invalid syntax");
	EXPECT("x = (1 $\n", "error: 1:8: invalid character '$' (U+0024)");
	EXPECT("f(a b\n", "error: 1:5: invalid syntax");
	EXPECT("f(a,\n  b c\n", "error: 1:2: '(' was never closed");
}

/* Expression locations (first token; operators for binary nodes). */
static void test_locations(void)
{
	const char *src = "y = x + tl.trans(x)\nz = a < b\n";
	SrcFile f = {"t.tile", src, strlen(src)};
	Arena a;
	Interner in;
	DiagSink d;
	arena_init(&a);
	interner_init(&in, &a);
	diag_init(&d);
	Module *m = parse_module(&a, &in, &d, &f);
	CHECK(m && m->body.n == 2);
	if (m && m->body.n == 2) {
		Expr *v = m->body.items[0]->assign_value;
		CHECK(v->kind == EX_BINOP && v->loc.col == 7 && v->loc.offset == 6);
		CHECK(v->lhs->loc.col == 5);
		CHECK(v->rhs->kind == EX_CALL && v->rhs->loc.col == 9);
		CHECK(v->rhs->args[0]->loc.col == 18);
		CHECK(m->body.items[0]->targets[0]->loc.col == 1);
		Expr *c = m->body.items[1]->assign_value;
		CHECK(c->kind == EX_COMPARE && c->loc.line == 2 && c->loc.col == 7);
		CHECK(c->loc.file == &f);
		CHECK(m->body.items[0]->targets[0]->name == intern_cstr(&in, "y"));
	}
	diag_free(&d);
	interner_free(&in);
	arena_free(&a);
}

/* ---- limits ------------------------------------------------------------------------ */

static char *repeat(const char *pre, const char *unit, int n, const char *post, size_t *len)
{
	StrBuf b = {0};
	sb_puts(&b, pre);
	for (int i = 0; i < n; i++)
		sb_puts(&b, unit);
	sb_puts(&b, post);
	*len = b.len;
	return sb_take(&b);
}

static void expect_prefix(int line, char *src, size_t len, const char *want)
{
	char *got = parse_result(src, len);
	if (strncmp(got, want, strlen(want)) != 0) {
		fprintf(stderr, "%s:%d: got %.200s\nwanted prefix %s\n", __FILE__, line, got, want);
		failures++;
	}
	free(got);
	free(src);
}

static void test_limits(void)
{
	size_t n;
	char *s = repeat("x = ", "(", 10000, "1", &n);
	expect_prefix(__LINE__, s, n, "error: 1:205: too many nested parentheses");
	s = repeat("x = ", "[", 10000, "", &n);
	expect_prefix(__LINE__, s, n, "error: 1:205: too many nested parentheses");
	s = repeat("x = ", "-", 100000, "1\n", &n);
	expect_prefix(__LINE__, s, n, "error: 1:");
	s = repeat("x = ", "not ", 100000, "1\n", &n);
	expect_prefix(__LINE__, s, n, "error: 1:");
	s = repeat("x = 1", " ** 1", 100000, "\n", &n);
	expect_prefix(__LINE__, s, n, "error: 1:");
	s = repeat("x = 1", " if 1 else 1", 100000, "\n", &n);
	expect_prefix(__LINE__, s, n, "error: 1:");
	s = repeat("x = 1", " + 1", 500000, "\n", &n); /* 2 MB, one line */
	expect_prefix(__LINE__, s, n, "error: 1:");
	s = repeat("x = a", ".b", 100000, "\n", &n);
	expect_prefix(__LINE__, s, n, "error: 1:");
	s = repeat("x = a", "(1)", 100000, "\n", &n);
	expect_prefix(__LINE__, s, n, "error: 1:");
	s = repeat("x = 1", " < 1", 100000, "\n", &n); /* flat: fine */
	expect_prefix(__LINE__, s, n, "(module\n  (assign 1:1 x = (cmp 1 < 1");
	s = repeat("x = 1", " and 1", 100000, "\n", &n);
	expect_prefix(__LINE__, s, n, "(module\n  (assign 1:1 x = (and 1 1");
	s = repeat("x = ''", " ''", 300000, "\n", &n);
	expect_prefix(__LINE__, s, n, "(module\n  (assign 1:1 x = \"\"))");
	{ /* adjacent literals merge in linear memory (each merge copied all before
	   * it: 100000 of 'abc' took 17 GB), adjacent f-strings join as a shallow tree */
		s = repeat("x = ''", " 'abc'", 20000, "\n", &n);
		size_t used = 0;
		char *dump = parse_result_used(s, n, &used);
		CHECK(strncmp(dump, "(module", 7) == 0 && used < (64u << 20));
		free(dump);
		free(s);
		s = repeat("x = ''", " f'{a}'", 5000, "\n", &n);
		dump = parse_result(s, n);
		CHECK(strncmp(dump, "(module\n  (assign 1:1 x = (+ ", 29) == 0);
		CHECK(!strstr(dump, "(+ (+ (+ (+ (+ (+ (+ (+ (+ (+ (+ (+ (+ (+ (+ (+ "));
		free(dump);
		free(s);
	}
	s = repeat("if x:\n  pass\n", "elif y:\n  pass\n", 5000, "", &n);
	expect_prefix(__LINE__, s, n, "error: ");
	s = repeat("", "x = [1, 2.5, 'abc', f(y, z=3)]  # comment\n", 50000, "", &n); /* 2 MB */
	expect_prefix(__LINE__, s, n, "(module\n  (assign 1:1 x = (list 1 2.5 \"abc\"");
	s = repeat("x = 1", " + 1", 998, "\n", &n); /* height 999: fine */
	expect_prefix(__LINE__, s, n, "(module\n  (assign 1:1 x = (+ (+ (+");
	s = repeat("x = 1", " + 1", 1000, "\n", &n);
	expect_prefix(__LINE__, s, n, "error: 1:4003: expression is too deeply nested");
	StrBuf b = {0};
	sb_puts(&b, "f(");
	for (int i = 0; i < 100000; i++) /* not quadratic in the keyword count */
		sb_printf(&b, "a%d=1, ", i);
	sb_puts(&b, "a7=2)\n");
	n = b.len;
	s = sb_take(&b);
	expect_prefix(__LINE__, s, n, "error: 1:988893: keyword argument repeated: a7");
	sb_puts(&b, "def f(");
	for (int i = 0; i < 100000; i++)
		sb_printf(&b, "a%d, ", i);
	sb_puts(&b, "):\n  pass\n");
	n = b.len;
	s = sb_take(&b);
	expect_prefix(__LINE__, s, n, "(module\n  (def 1:1 f\n    (param a0)\n");
	sb_puts(&b, "x = ");
	for (int i = 0; i < 150; i++)
		sb_putc(&b, '(');
	sb_putc(&b, '1');
	for (int i = 0; i < 150; i++) { /* ((1 + 1 ... ) + 1 ...): tall, not deep */
		for (int j = 0; j < 500; j++)
			sb_puts(&b, " + 1");
		sb_putc(&b, ')');
	}
	n = b.len;
	s = sb_take(&b);
	expect_prefix(__LINE__, s, n, "error: 1:");
	for (int i = 0; i < 150; i++) {
		for (int j = 0; j < i; j++)
			sb_putc(&b, ' ');
		sb_puts(&b, "if x:\n");
	}
	s = sb_take(&b);
	expect_prefix(__LINE__, s, strlen(s), "error: 102:102: too many levels of indentation");
	s = repeat("x = '", "a", 2000000, "", &n);
	expect_prefix(__LINE__, s, n, "error: 1:5: unterminated string literal");
}

static void test_incomplete(void)
{
	const struct {
		const char *src;
		bool more;
	} cases[] = {
	        {"x = 1\n", false},
	        {"x = (1,\n", true},
	        {"def f():\n", true},
	        {"def f():\n    return 1\n", true},
	        {"def f():\n    return 1\n\n", false},
	        {"s = '''abc\n", true},
	        {"x = 1 + \\\n", true},
	        {"@triton.jit\n", true},
	        {"x = $\n", false},
	        {"x = )\n", false},
	        {"", false},
	        {"if x: pass\n", false},
	};
	for (size_t i = 0; i < COUNTOF(cases); i++) {
		bool got = lex_input_incomplete(cases[i].src, strlen(cases[i].src));
		if (got != cases[i].more) {
			fprintf(stderr, "%s:%d: lex_input_incomplete(%s) = %d\n", __FILE__,
			        __LINE__, cases[i].src, got);
			failures++;
		}
	}
}

/* ---- mutation smoke ----------------------------------------------------------------- */

static const char *const samples[] = {
        "import triton\nimport triton.language as tl\n\n@triton.jit\n"
        "def k(x_ptr, n, BLOCK: tl.constexpr = 128):\n    \"\"\"doc\"\"\"\n"
        "    pid = tl.program_id(0)\n    offs = pid * BLOCK + tl.arange(0, BLOCK)\n"
        "    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)\n"
        "    for i in range(0, 4):\n        if i % 2 == 0:\n            x += 1\n"
        "        elif i > 2: x = -x ** 2\n        else:\n            continue\n"
        "    a, b = x[:, None], x[None, :]\n    tl.store(x_ptr + offs, x, mask=offs < n)\n",
        "x = (1, [2, {3}], '''a\nb''', r'\\d', 0x1f, 1_0.5e-3) # c\nwhile not x: break\n",
};

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void mutate(StrBuf *b, uint64_t *rng)
{
	static const char bytes[] = "()[]{}:,.\n\n  \t\\'\"#=+-*@!$0x1e_ajfbr\r\xff\xc3";
	int nmut = 1 + (int)(rng_next(rng) % 4);
	for (int m = 0; m < nmut && b->len > 0; m++) {
		size_t pos = rng_next(rng) % b->len;
		char c = bytes[rng_next(rng) % (sizeof bytes - 1)];
		switch (rng_next(rng) % 5) {
		case 0: b->s[pos] = c; break;
		case 1: /* insert */
			sb_putc(b, 0);
			memmove(b->s + pos + 1, b->s + pos, b->len - pos - 1);
			b->s[pos] = c;
			break;
		case 2: /* delete */
			memmove(b->s + pos, b->s + pos + 1, b->len - pos - 1);
			b->len--;
			break;
		case 3: b->len = pos; break; /* truncate */
		default: {                   /* duplicate a chunk */
			size_t r = rng_next(rng) % 64, n = MINOF(r, b->len - pos);
			char tmp[64];
			memcpy(tmp, b->s + pos, n);
			sb_putn(b, tmp, n);
		}
		}
		b->s[b->len] = 0;
	}
}

static int mutate_and_parse(const char *text, size_t len, int iters, uint64_t seed)
{
	int parsed = 0;
	uint64_t rng = seed | 1;
	for (int it = 0; it < iters; it++) {
		StrBuf b = {0};
		sb_putn(&b, text, len);
		mutate(&b, &rng);
		char *r = parse_result(b.s ? b.s : "", b.len);
		if (strncmp(r, "bad:", 4) == 0) {
			fprintf(stderr, "%s:%d: %s for input:\n%s\n", __FILE__, __LINE__, r, b.s);
			failures++;
		}
		parsed += r[0] == '(';
		free(r);
		sb_free(&b);
	}
	return parsed;
}

static void test_mutations(void)
{
	int files = 0, parsed = 0;
	for (size_t i = 0; i < COUNTOF(samples); i++)
		parsed += mutate_and_parse(samples[i], strlen(samples[i]), 2000, 1234 + i);
	const char *dir = "tests/golden/parse";
	DIR *d = opendir(dir);
	for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
		size_t n = strlen(e->d_name);
		if (n < 6 || strcmp(e->d_name + n - 5, ".tile") != 0)
			continue;
		char path[512];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		size_t len;
		char *text = read_file(path, &len);
		if (!text)
			continue;
		uint64_t seed = 0x9e3779b97f4a7c15ull;
		for (size_t k = 0; k < n; k++)
			seed = seed * 31 + (unsigned char)e->d_name[k];
		parsed += mutate_and_parse(text, len, 2000, seed);
		files++;
		free(text);
	}
	if (d)
		closedir(d);
	printf("mutation smoke: %d golden files + %zu samples, %d mutants parsed cleanly\n", files,
	       COUNTOF(samples), parsed);
}

int main(void)
{
	test_dumps();
	test_dump_defs();
	test_literals();
	test_lex_errors();
	test_parse_errors();
	test_locations();
	test_limits();
	test_incomplete();
	test_mutations();
	if (failures) {
		printf("%d failures\n", failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}

/* fuzz_parse.c: libFuzzer target for the lexer and parser (`make fuzz`).
 *
 * Any bytes: parse_module() must return a module (then ast_dump() must work
 * on it) or NULL with exactly one diagnostic; never crash, leak or hang. The
 * input is also run through lex_input_incomplete(), the REPL's check. */
#include "parser/ast.h"
#include "parser/lex.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	SrcFile f = {"fuzz.tile", text, size};
	Arena a;
	Interner in;
	DiagSink d;
	arena_init(&a);
	interner_init(&in, &a);
	diag_init(&d);
	Module *m = parse_module(&a, &in, &d, &f);
	if (m) {
		if (d.nerrors != 0)
			abort();
		StrBuf b = {0};
		ast_dump(m, &b);
		sb_free(&b);
	} else if (d.nerrors != 1) {
		abort();
	}
	(void)lex_input_incomplete(text, size);
	diag_free(&d);
	interner_free(&in);
	arena_free(&a);
	free(text);
	return 0;
}

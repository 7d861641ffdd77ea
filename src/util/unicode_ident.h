/* unicode_ident.h: Python identifiers beyond ASCII (PEP 3131).
 *
 *   unicode_ident.c  the XID_Start / XID_Continue tables (generated from Python)
 *   py_name.c        whole names: `relu`, `Dtype.FP32`, `缩放`
 */
#ifndef TILE_UNICODE_IDENT_H
#define TILE_UNICODE_IDENT_H

#include <stdbool.h>
#include <stdint.h>

/* Whether code point cp (>= 0x80) may begin an identifier (XID_Start). */
bool unicode_xid_start(uint32_t cp);
/* Whether it may follow the first character (XID_Continue). */
bool unicode_xid_continue(uint32_t cp);

/* Whether Python prints code point cp (>= 0x80) in a message (as
 * str.isprintable(); unassigned ones count as printable here): a bidi
 * override, a zero-width space or U+2028 in an error is "U+202E" alone. */
bool unicode_printable(uint32_t cp);

/* Whether s (UTF-8) is Python identifiers joined by at least min_dots dots, as
 * the lexer reads them (a host's name is taken as given: not normalized to
 * NFKC, as the lexer's names are; unicode_nfkc.h). */
bool py_dotted_name(const char *s, int min_dots);

#endif

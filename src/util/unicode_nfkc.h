/* unicode_nfkc.h: Python's NFKC normalization of names (PEP 3131: its parser
 * normalizes every identifier that is not ASCII, so `ﬁ` and `fi`, or `Å`
 * (U+212B) and `Å` (U+00C5), are one name).
 *
 *   unicode_nfkc.c         decompose, reorder, compose (UAX #15)
 *   unicode_nfkc_tables.c  the data, generated from python3's unicodedata
 */
#ifndef TILE_UNICODE_NFKC_H
#define TILE_UNICODE_NFKC_H

#include <stddef.h>
#include <stdint.h>

/* unicodedata.normalize('NFKC', s) for the n bytes of UTF-8 at s (valid
 * UTF-8, as the lexer has checked): a malloc'd NUL-terminated string whose
 * length goes to *out_n, or NULL when out of memory. */
char *unicode_nfkc(const char *s, size_t n, size_t *out_n);

/* the tables (unicode_nfkc_tables.c) */
extern const size_t nfkd_count, ccc_count, compose_count;
extern const uint32_t nfkd_key[];
extern const uint16_t nfkd_off[];
extern const uint32_t nfkd_pool[];
extern const uint32_t ccc_ranges[][3];
extern const uint32_t compose_pairs[][3];

#endif

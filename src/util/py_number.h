/* py_number.h: a number the host writes (`tile run n=1_000`, a signature's
 * `--const BLOCK=64`) read as Python reads the literal, so both read it alike. */
#ifndef TILE_PY_NUMBER_H
#define TILE_PY_NUMBER_H

#include <stdint.h>

typedef enum PyNumKind {
	PYNUM_NONE,  /* not a number literal */
	PYNUM_INT,   /* *i: fits in int64 */
	PYNUM_U64,   /* *u: in [2**63, 2**64), which Triton's launcher passes as uint64 */
	PYNUM_BIG,   /* an integer outside [-2**63, 2**64): Python's, not 64 bits */
	PYNUM_FLOAT, /* *f: a float (one too big for a double is inf) */
} PyNumKind;

/* s, with an optional sign: underscores between digits, 0x/0o/0b prefixes, no
 * leading zero on a decimal int (010 is no literal), floats as strtod reads
 * them in decimal (inf and nan too). */
PyNumKind py_number(const char *s, int64_t *i, uint64_t *u, double *f);

#endif

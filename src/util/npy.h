/* npy.h: read and write NumPy .npy files (format versions 1.0, 2.0 and 3.0).
 *
 * Little-endian, C-order arrays only (a Fortran-order one whose layout is C
 * order's, 0-d or 1-d, is read as C order). Supported dtypes (numpy descr strings):
 *   <f2 <f4 <f8  <i1 <i2 <i4 <i8  <u1 <u2 <u4 <u8  |b1 |i1 |u1
 * One-byte types are reported with the '|' prefix numpy writes ("|i1", "|u1",
 * "|b1"); "<i1"/"<u1" are accepted on input and normalized.
 */
#ifndef TILE_NPY_H
#define TILE_NPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NPY_MAX_DIMS 8

typedef struct NpyArray {
	char dtype[8]; /* numpy descr, e.g. "<f4" */
	int elem_size; /* bytes per element */
	int ndim;      /* 0 for a scalar (one element) */
	int64_t shape[NPY_MAX_DIMS];
	bool fortran_order; /* always false after a successful npy_read */
	void *data;         /* heap (npy_read), nbytes long */
	size_t nbytes;
} NpyArray;

/* Reads path into *out. Returns 0, or -1 with a one-sentence message in err
 * (and *out zeroed). Truncated or malformed files are errors, never crashes. */
int npy_read(const char *path, NpyArray *out, char *err, size_t errlen);
/* Writes a (dtype, ndim, shape, data) to path. Returns 0 or -1 with err. */
int npy_write(const char *path, const NpyArray *a, char *err, size_t errlen);
void npy_free(NpyArray *a);

/* Parses a header dictionary ("{'descr': '<f4', 'fortran_order': False,
 * 'shape': (3, 4), }") into a (data fields untouched). 0 or -1 with err. */
int npy_parse_header(const char *hdr, size_t len, NpyArray *a, char *err, size_t errlen);
/* Element size of a supported dtype, or 0 if it is not supported. */
int npy_dtype_size(const char *dtype);
/* Number of elements (product of the shape; 1 for a scalar). */
int64_t npy_count(const NpyArray *a);

#endif

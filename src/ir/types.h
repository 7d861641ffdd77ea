/* types.h: scalar dtypes and (tile) types shared by the Tile IR and the
 * thread program. A Type is a small value (compare with type_eq): a dtype, the
 * pointee dtype for pointers, and a static shape (rank 0 = scalar). */
#ifndef TILE_TYPES_H
#define TILE_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#define DTYPES(X) \
	X(VOID, "void", 0) \
	X(I1, "int1", 1) \
	X(I8, "int8", 8) X(I16, "int16", 16) X(I32, "int32", 32) X(I64, "int64", 64) \
	X(U8, "uint8", 8) X(U16, "uint16", 16) X(U32, "uint32", 32) X(U64, "uint64", 64) \
	X(F8E4M3, "float8e4nv", 8) X(F8E5M2, "float8e5", 8) \
	X(F16, "float16", 16) X(BF16, "bfloat16", 16) X(F32, "float32", 32) X(F64, "float64", 64) \
	X(PTR, "pointer", 64)

typedef enum {
#define X(n, s, b) DT_##n,
	DTYPES(X)
#undef X
	DT_COUNT
} DType;

enum { TIR_MAX_RANK = 24 };

typedef struct Type {
	uint8_t dt;   /* DType */
	uint8_t elem; /* pointee DType when dt == DT_PTR (pointers to pointers are not supported) */
	uint8_t rank; /* 0 = scalar */
	uint8_t addrspace; /* 0 = global; 3 = shared (thread program only) */
	uint8_t ptr_const; /* DT_PTR: points to const (a `tl.const` kernel parameter and what is
	                    * computed from it): sema refuses stores through it; type_eq ignores it,
	                    * as the IR treats both pointers alike */
	int32_t shape[TIR_MAX_RANK];
} Type;

const char *dtype_name(DType d);      /* "float32" */
const char *dtype_short(DType d);     /* Triton signature spelling: "fp32", "i32", "u8", "i1", "bf16", "fp8e4nv" ... */
int dtype_bits(DType d);              /* storage bits; 64 for pointers */
int dtype_bytes(DType d);             /* storage bytes (i1 is stored as 1 byte) */
bool dtype_is_float(DType d);         /* f8/f16/bf16/f32/f64 */
bool dtype_is_int(DType d);           /* i1..u64 */
bool dtype_is_signed(DType d);        /* i8..i64 (i1 is unsigned) */
bool dtype_from_name(const char *s, DType *out); /* accepts both "float32" and "fp32", "int32"/"i32", "bool" ... */

static inline Type type_scalar(DType d) { Type t = {0}; t.dt = (uint8_t)d; return t; }
static inline Type type_ptr(DType elem) { Type t = {0}; t.dt = DT_PTR; t.elem = (uint8_t)elem; return t; }
Type type_tile(Type scalar, int rank, const int32_t *shape);
Type type_elem(Type t);               /* same dtype, rank 0 */
bool type_eq(Type a, Type b);
int64_t type_numel(Type t);           /* 1 for scalars */
/* "fp32", "*fp16", "<128x64xfp32>", "<64x*fp16>" for dumps and messages */
void type_str(Type t, char *buf, int n);

#endif

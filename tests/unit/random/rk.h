/* rk.h: random kernels for test_random_kernels.c. rk_gen.c writes a random,
 * well-typed Triton kernel (an expression tree stored through a mask) with its
 * inputs; rk_eval.c computes what Triton gives for each node of the tree, in C,
 * with no part of tile: values rounded to the node's dtype as Triton rounds
 * them, and a bound on how far a correct compiler's result may lie from it. */
#ifndef RK_H
#define RK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { RK_MAX_RANK = 3, RK_MAX_NUMEL = 4096, RK_MAX_PARAMS = 48 };

/* version 5 adds the integers after RK_BOOL (earlier versions' tables stay as
 * they were); int64 values stay within +-2^53, where a double holds them */
typedef enum { RK_F32, RK_F16, RK_BF16, RK_I32, RK_I8, RK_U8, RK_BOOL, RK_I16, RK_U16, RK_U32, RK_I64 } rk_dtype;

typedef struct {
	int rank;
	int d[RK_MAX_RANK];
} rk_shape;

/* A tensor's reference: v[i] as Triton computes it, e[i] a bound on how far
 * a correct result may be from v[i] (0: exactly v[i], whatever the order of
 * operations or the fusion a compiler picks). Rank 0 is a scalar. */
typedef struct {
	rk_shape s;
	rk_dtype t;
	double *v;
	double *e;
} rk_val;

/* ---- rk_eval.c, rk_eval_dtype.c, rk_eval_move.c: Triton's semantics on reference values ---------- */

size_t rk_numel(const rk_shape *s);
bool rk_is_float(rk_dtype t);
bool rk_is_unsigned(rk_dtype t);
size_t rk_size(rk_dtype t); /* bytes per element */
const char *rk_tl_name(rk_dtype t);  /* "tl.float16" */
const char *rk_sig_name(rk_dtype t); /* "fp16" */
/* x rounded to t (floats to nearest even, integers wrapped) */
double rk_round(rk_dtype t, double x);
/* Triton's type of an op on integers of two types (C's usual conversions) */
rk_dtype rk_int_promote(rk_dtype a, rk_dtype b);
int rk_bits(rk_dtype t);
/* rk_eval_dtype.c: u's low bits as a value of the integer type t; t's
 * smallest value; a float type's mantissa bits and smallest normal exponent */
double rk_wrap(rk_dtype t, uint64_t u);
double rk_int_min(rk_dtype t);
int rk_mant_bits(rk_dtype t);
int rk_min_exp(rk_dtype t);
/* the spacing of t's values at x (0 for integers) */
double rk_ulp(rk_dtype t, double x);
void rk_put(rk_dtype t, void *base, size_t i, double x); /* x must be a value of t */
double rk_get(rk_dtype t, const void *base, size_t i);

/* Each op fills *out (allocating v and e) and returns true, or returns false
 * (out untouched) where the result is not certain: a comparison, cast to an
 * integer or argmax that a rounding within the error bounds could flip, a
 * value out of range, a division by zero. */
bool rk_alloc(rk_val *out, const rk_shape *s, rk_dtype t);
void rk_free(rk_val *v);
bool rk_broadcast_shape(const rk_shape *a, const rk_shape *b, rk_shape *out);
/* op: '+', '-', '*', '/', 'f' (//), '%', '&', '|', '^', '<' (<<), '>' (>>:
 * arithmetic for signed, logical for unsigned), 'M' (maximum),
 * 'm' (minimum); a and b broadcast; floats of different widths meet in fp32,
 * and so do narrow floats under '/' (Triton's computation_type_impl) */
bool rk_binary(rk_val *out, int op, const rk_val *a, const rk_val *b);
/* op: '<', 'l' (<=), '>', 'g' (>=), '=', '!'; a bool result */
bool rk_compare(rk_val *out, int op, const rk_val *a, const rk_val *b);
bool rk_where(rk_val *out, const rk_val *c, const rk_val *a, const rk_val *b);
/* op: '-' (neg), 'a' (abs), 'e' (exp), 's' (sqrt) */
bool rk_unary(rk_val *out, int op, const rk_val *a);
bool rk_cast(rk_val *out, const rk_val *a, rk_dtype t);
/* version 5: an integer to a float, correctly rounded to fp32 (exact: sitofp,
 * uitofp), big values too (only finite ones) */
bool rk_cast_int(rk_val *out, const rk_val *a, rk_dtype t);
/* kind: 's' sum, 'M' max, 'm' min, 'A' argmax, 'a' argmin (tie to the left) */
bool rk_reduce(rk_val *out, int kind, const rk_val *a, int axis, bool keep_dims);
bool rk_cumsum(rk_val *out, const rk_val *a, int axis, bool reverse);
bool rk_permute(rk_val *out, const rk_val *a, const int *perm);
bool rk_reshape(rk_val *out, const rk_val *a, const rk_shape *s);
bool rk_expand_dims(rk_val *out, const rk_val *a, int axis);
bool rk_broadcast_to(rk_val *out, const rk_val *a, const rk_shape *s);
bool rk_join(rk_val *out, const rk_val *a, const rk_val *b);
bool rk_split(rk_val *out, const rk_val *a, int which);
/* along the last dim */
bool rk_flip(rk_val *out, const rk_val *a);
bool rk_sort(rk_val *out, const rk_val *a, bool descending);
/* the k largest along the last dim, largest first */
bool rk_topk(rk_val *out, const rk_val *a, int k);
/* rk_eval_dot.c: a [M,K] @ b [K,N] (or batched, [B,M,K] @ [B,K,N]) summed in fp32 (acc
 * NULL or [M,N] fp32), or for int8 inputs in int32; in_rel: how far (relative)
 * an input may be rounded first (tf32 and the like; 0 for ieee) */
bool rk_dot(rk_val *out, const rk_val *a, const rk_val *b, const rk_val *acc, double in_rel);
/* version 6: fp16 inputs, out_dtype=tl.float16 (acc NULL or fp16) */
bool rk_dot_f16(rk_val *out, const rk_val *a, const rk_val *b, const rk_val *acc);
/* rk_eval_attn.c (version 7): one query tile's flash attention, q [M, D]
 * against keys k [iters * BN, D] and values v [iters * BN, DV] (rows past nkv
 * zeros), block by block as rk_gen_attn.c's loop: key j is seen by row r
 * where j < nkv and, causal, j <= r + off; p cast to pt (v's dtype). fp32
 * [M, DV]. */
typedef struct {
	int M, D, DV, BN, iters, nkv;
	bool causal;
	int off;
	double scale;
	rk_dtype pt;
} rk_attn_spec;
bool rk_attn(rk_val *out, const rk_attn_spec *a, const rk_val *q, const rk_val *k, const rk_val *v);
/* rk_check_attn.c: whether rk_attn's bounds tell p.to(fp16) from p in fp32 */
bool rk_attn_check(void);
/* along dim 0, in order */
bool rk_cat(rk_val *out, const rk_val *a, const rk_val *b);
/* the last dims of a and b interleaved (join, then the last two dims merged) */
bool rk_interleave(rk_val *out, const rk_val *a, const rk_val *b);
/* out[..i..] = src[..idx[..i..]..] along axis; idx's values in range */
bool rk_gather(rk_val *out, const rk_val *src, const rk_val *idx, int axis);
/* counts of x's values (in [0, bins)) where mask (NULL: everywhere) is set */
bool rk_histogram(rk_val *out, const rk_val *x, const rk_val *mask, int bins);
/* a cast to float8 (fmt 4: e4m3 "float8e4nv", 5: e5m2 "float8e5") and back
 * to t: to nearest even, saturating to the largest finite (infinities too) */
bool rk_fp8(rk_val *out, const rk_val *a, int fmt, rk_dtype t);
/* the final memory of atomics: op ('+', 'M', 'm', '&', '|', '^') folds
 * vals[0..n) into init in any order; each an [numel] tile of init's dtype */
bool rk_atomic_fold(rk_val *out, int op, const rk_val *init, const rk_val *vals, int n);

/* rk_eval.c: the index of each dim of s's element at a flat index; the
 * element of `in` (broadcast to out, aligned right) at out's flat index */
void rk_unflatten(const rk_shape *s, size_t flat, int *idx);
size_t rk_bidx(const rk_shape *out, size_t flat, const rk_shape *in);
/* rk_eval.c: keeps *o if its floats are in the range every target computes
 * alike (finite, far from overflow, no fp32/bf16 subnormals), else frees it */
bool rk_finish(rk_val *o);
/* rk_eval.c: whether every order of summing n values (stride apart) in t is
 * exact; a bound on the rounding of such a sum, the magnitudes adding to asum */
bool rk_exact_sum(rk_dtype t, const double *vals, size_t n, size_t stride);
double rk_sum_error(rk_dtype t, double asum, size_t n);

/* ---- rk_eval_scan.c: tl.reduce / tl.associative_scan with a combine_fn ----------- */

/* op: '+', '*', '^', '&', '|' (integers, wrapping in a's dtype), 'M', 'm';
 * '+' of floats too, in any order (a bound as a sum's) */
bool rk_combine_reduce(rk_val *out, int op, const rk_val *a, int axis, bool keep_dims);
bool rk_combine_scan(rk_val *out, int op, const rk_val *a, int axis, bool reverse);
/* (value, index along axis) pairs combined argmax-style (op 'M') or argmin
 * ('m'), ties to the lower index (tie_low) or the higher; refused where a
 * rounding could reorder a line */
bool rk_arg_reduce(rk_val *val, rk_val *idx, int op, bool tie_low, const rk_val *a, int axis, bool keep_dims);
bool rk_arg_scan(rk_val *val, rk_val *idx, int op, bool tie_low, const rk_val *a, int axis, bool reverse);

/* ---- rk_eval_math.c: tl.math, clamp, umulhi, bitcast ----------------------------- */

/* fp32: '2' exp2, 'l' log2, 'n' log, 'r' rsqrt, 'E' erf, 'S' sin, 'C' cos,
 * 'q' sqrt_rn, 'f' floor, 'c' ceil */
bool rk_math1(rk_val *out, int op, const rk_val *a);
/* fp32, same shapes: 'd' div_rn(a, b), 'F' fma(a, b, c) */
bool rk_math3(rk_val *out, int op, const rk_val *a, const rk_val *b, const rk_val *c);
/* lo and hi: x's shape or scalars */
bool rk_clamp(rk_val *out, const rk_val *x, const rk_val *lo, const rk_val *hi);
bool rk_umulhi(rk_val *out, const rk_val *a, const rk_val *b);
bool rk_bitcast(rk_val *out, const rk_val *a, rk_dtype t);

/* rk_eval_math.c: NaN through maximum/minimum (all: propagate_nan=ALL),
 * max/min reductions (to dtype ot), and tl.where(x != x, fill, x), the only
 * op that takes NaN out again (the others leave it to rk_nan_fill) */
bool rk_nan_minmax(rk_val *out, int op, bool all, const rk_val *a, const rk_val *b);
bool rk_nan_reduce(rk_val *out, int op, bool all, const rk_val *a, int axis, rk_dtype ot);
bool rk_nan_fill(rk_val *out, const rk_val *a, double x);

/* ---- rk_gen.c: the random kernel ------------------------------------------------ */

/* scalars: RK_P_I32 of t int32/int8/uint8 (i), RK_P_F32 of t fp32/fp16/bf16 (f) */
typedef enum { RK_P_PTR, RK_P_I32, RK_P_F32 } rk_param_kind;

typedef struct {
	char name[16];
	rk_param_kind kind;
	rk_dtype t;   /* a pointer's element type */
	void *data;   /* a pointer's buffer */
	size_t count; /* its elements */
	int32_t i;
	float f;
	/* a scalar of a dtype tiles here do not have ("i64", "u32", "i16", "u16",
	 * "i1": wi; "fp64": wf), else NULL */
	const char *wide;
	int64_t wi;
	double wf;
} rk_param;

typedef struct {
	char *src;        /* the module's source; the kernel is "kern" */
	char sig[512];    /* tile's signature string */
	int nparams;
	rk_param params[RK_MAX_PARAMS];
	int out_param;    /* the output pointer's index in params */
	rk_val want;      /* the stored value's reference */
	bool *stored;     /* want's elements the store writes (its mask) */
	size_t *out_at;   /* where each of want's elements lies in the output */
	int nodes;        /* ops in the tree */
	int grid;         /* programs (0: 1) */
	int grid3[3];     /* a 3-D grid instead (grid3[0] 0: none) */
	bool out_init;    /* the output starts as its params[].data (atomics) */
	uint64_t features; /* RK_F_* the kernel reaches */
} rk_kernel;

/* forms a kernel reaches, for the fixed list's coverage: bits of a uint64_t
 * (version 6 passed 31 of them) */
#define RK_F(bit) (UINT64_C(1) << (bit))
#define RK_F_DOT3D RK_F(0) /* a batched [B,M,K] @ [B,K,N] dot */
#define RK_F_DOT_TF32 RK_F(1) /* input_precision tf32/tf32x3/bf16x3/bf16x6/default */
#define RK_F_DOT_I8 RK_F(2)
#define RK_F_CAT RK_F(3)
#define RK_F_INTERLEAVE RK_F(4)
#define RK_F_GATHER RK_F(5)
#define RK_F_HISTOGRAM RK_F(6)
#define RK_F_FP8 RK_F(7)
#define RK_F_ATOMIC RK_F(8) /* any atomic root on a grid */
#define RK_F_XCHG_CAS RK_F(9)
#define RK_F_WHILE RK_F(10)
#define RK_F_STAGES RK_F(11) /* tl.range(..., num_stages=) */
#define RK_F_KLOOP RK_F(12) /* a canonical K loop of tl.dot (rk_gen.c's op_kloop) */
/* version 3's forms */
#define RK_F_COMBINE RK_F(13) /* tl.reduce with a combine_fn of the kernel's own */
#define RK_F_ARGPAIR RK_F(14) /* (value, index) pairs reduced or scanned argmax-style */
#define RK_F_SCAN RK_F(15) /* tl.associative_scan with a combine_fn, tl.cumprod */
#define RK_F_MATH RK_F(16) /* exp2/log2/rsqrt/erf/sin/div_rn/sqrt_rn/fma/clamp/floor */
#define RK_F_INTBITS RK_F(17) /* tl.umulhi, bitcasts */
#define RK_F_STATIC RK_F(18) /* a tl.static_range loop */
#define RK_F_RETURN RK_F(19) /* an early return */
#define RK_F_SCALAR RK_F(20) /* a scalar argument of fp16/bf16/int8/uint8/i16/u16/u32/i64/fp64/i1 */
#define RK_F_GRID3 RK_F(21) /* program_id/num_programs on a 3-D grid */
#define RK_F_CACHE RK_F(22) /* cache_modifier / eviction_policy on a load or store */
/* version 4's forms */
#define RK_F_KIDX RK_F(23) /* a K loop whose B rows come through an index load (paged) */
/* version 5's forms */
#define RK_F_INT16 RK_F(24) /* int16/uint16 tiles */
#define RK_F_U32 RK_F(25) /* uint32 tiles */
#define RK_F_I64 RK_F(26) /* int64 tiles */
#define RK_F_NAN RK_F(27) /* NaNs through maximum/minimum/max/min, propagate_nan */
#define RK_F_FADD RK_F(28) /* tl.reduce / associative_scan with a float + */
#define RK_F_TOPK RK_F(29) /* tl.topk */
#define RK_F_MASK2 RK_F(30) /* a loop load masked on two dims, other a runtime scalar */
/* version 6's forms */
#define RK_F_BLOCKPTR RK_F(31)   /* tl.make_block_ptr (tl.advance, boundary_check, padding_option) */
#define RK_F_DESC RK_F(32)       /* tl.make_tensor_descriptor, .load / .store */
#define RK_F_PADNAN RK_F(33)     /* padding_option="nan" */
#define RK_F_BLOCKSTORE RK_F(34) /* the root stored through a block pointer or descriptor */
#define RK_F_KLOOP_BP RK_F(35)   /* a K loop through block pointers or descriptors */
#define RK_F_TUPLE RK_F(36)      /* @jit helpers returning tuples (constexpr args), loop-carried tuples */
#define RK_F_DOT_F16 RK_F(37)    /* tl.dot(..., out_dtype=tl.float16) */
#define RK_F_SEM RK_F(38)        /* atomics with sem= acquire/release/acq_rel, scope="sys" */
/* version 7's forms */
#define RK_F_ATTN RK_F(39)       /* flash attention: exp2(s - rowmax).to(dt) the A of a second dot in a loop */
#define RK_F_ATTN_TRANS RK_F(40) /* its scores as tl.dot(q, tl.trans(k)) / tl.permute(k, (1, 0)) */
#define RK_F_CAUSAL RK_F(41)     /* its scores masked causally (key <= row + off) */
#define RK_F_LOOP2 RK_F(42)      /* two pipelined dot loops one after another */
#define RK_F_NESTED RK_F(43)     /* a dot loop nested in a loop over tiles */
#define RK_F_DOT_MADE RK_F(44)   /* a loop's dot operand computed, not loaded (V from indices, Q scaled) */
#define RK_F_DOT_REDUCE RK_F(45) /* a dot's result straight into a reduction, scan or permute */
enum { RK_F_COUNT = 46 };
extern const char *const rk_feature_names[RK_F_COUNT];

/* A kernel from seed: deterministic for a seed and version. Version 2 is the
 * generator before the forms of RK_F_COMBINE on (its kernels are those of
 * the fixed seeds picked then); version 3 adds them; version 4 adds K loops
 * through an index load (RK_F_KIDX); version 5 the forms from RK_F_INT16 on;
 * version 6 those from RK_F_BLOCKPTR on; version 7 those from RK_F_ATTN on. */
enum { RK_GEN_V2 = 2, RK_GEN_V3 = 3, RK_GEN_V4 = 4, RK_GEN_V5 = 5, RK_GEN_V6 = 6, RK_GEN_V7 = 7, RK_GEN_LATEST = RK_GEN_V7 };
void rk_generate(rk_kernel *k, uint64_t seed, int version);
void rk_kernel_free(rk_kernel *k);

#endif

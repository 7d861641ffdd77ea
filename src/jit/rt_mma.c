/* rt_mma.c: lane-exact mma.sync and ldmatrix emulation for CPU kernels
 * (cuda-emu), called by the code emit_llvm_intrin.c emits.
 *
 * Operand layout: every per-thread operand register is one row of T values
 * (T = threads per program instance, a multiple of 32), row i of an operand
 * holding fragment register i of every thread: x[i * T + t]. Warps are the
 * consecutive groups of 32 threads.
 *
 * MMA: per warp, the A (16 x K) and B (K x 8) tiles are gathered from the
 * fragments (PTX ISA "Matrix Fragments for mma.m16n8k16" / "m16n8k8" (.tf32) /
 * "m16n8k32" (.s8, .e4m3, .e5m2)), then D[r][c] = C[r][c] + A[r][0]*B[0][c] +
 * ... in k order, each product and sum rounded to fp32 (products of f16 /
 * bf16 / tf32 / fp8 values are exact in fp32, so an fma would give the same
 * bits) or wrapping int32. tf32 inputs are rounded to 10 mantissa bits,
 * nearest even (inf/nan kept). fp8 inputs are decoded exactly: e4m3 ("fn":
 * no infinities, 0x7f/0xff are NaN, subnormals m * 2^-9) and e5m2 (IEEE-like:
 * exponent 31 is inf/NaN, subnormals m * 2^-16).
 *
 * Rounding order: the PTX ISA leaves the order and internal precision of the
 * k sum of one mma to the hardware (fp8 tensor cores are known to add with
 * fewer than fp32's bits before the result is rounded). The emulation adds
 * in k order in fp32, so results agree with a GPU exactly only when the
 * partial sums are exact (as in the tests); otherwise to within the
 * accumulation error of a length-K fp32 dot.
 */
#include "jit/orc.h"

#include <string.h>

/* = MmaKind order (codegen/tp.h); the fp8 kinds are K_E4M3_E4M3 + 2 * (a is
 * e5m2) + (b is e5m2) */
enum { K_F16, K_BF16, K_TF32, K_S8, K_E4M3_E4M3, K_E4M3_E5M2, K_E5M2_E4M3, K_E5M2_E5M2 };

static void frag_a(int kind, int l, int i, int *r, int *c)
{
	int g = l >> 2, t = l & 3;
	switch (kind) {
	case K_TF32:
		*r = g + ((i & 1) ? 8 : 0);
		*c = t + (i >= 2 ? 4 : 0);
		return;
	case K_S8:
	case K_E4M3_E4M3:
	case K_E4M3_E5M2:
	case K_E5M2_E4M3:
	case K_E5M2_E5M2:
		*r = g + (((i >> 2) & 1) ? 8 : 0);
		*c = t * 4 + (i & 3) + (i >= 8 ? 16 : 0);
		return;
	default: /* m16n8k16 f16/bf16 */
		*r = g + (((i >> 1) & 1) ? 8 : 0);
		*c = t * 2 + (i & 1) + (i >= 4 ? 8 : 0);
		return;
	}
}

static void frag_b(int kind, int l, int i, int *r, int *c)
{
	int g = l >> 2, t = l & 3;
	*c = g;
	switch (kind) {
	case K_TF32: *r = t + (i >= 1 ? 4 : 0); return;
	case K_S8:
	case K_E4M3_E4M3:
	case K_E4M3_E5M2:
	case K_E5M2_E4M3:
	case K_E5M2_E5M2: *r = t * 4 + (i & 3) + (i >= 4 ? 16 : 0); return;
	default: *r = t * 2 + (i & 1) + (i >= 2 ? 8 : 0); return;
	}
}

static void frag_c(int l, int i, int *r, int *c)
{
	*r = (l >> 2) + (i >= 2 ? 8 : 0);
	*c = (l & 3) * 2 + (i & 1);
}

static float bits_f32(uint32_t u)
{
	float f;
	memcpy(&f, &u, 4);
	return f;
}

static float f16_to_f32(uint16_t h)
{
	uint32_t s = (uint32_t)(h & 0x8000) << 16, ex = (h >> 10) & 0x1f, m = h & 0x3ff;
	if (ex == 0x1f) /* inf / nan (quieted, as hardware conversions do) */
		return bits_f32(s | 0x7f800000u | (m << 13) | (m ? 0x400000u : 0));
	if (ex == 0) {
		if (!m)
			return bits_f32(s);
		float v = (float)m * 0x1p-24f; /* subnormal: exact */
		return s ? -v : v;
	}
	return bits_f32(s | ((ex + 112) << 23) | (m << 13));
}

static float bf16_to_f32(uint16_t h)
{
	return bits_f32((uint32_t)h << 16);
}

static float to_tf32(float x)
{
	uint32_t u;
	memcpy(&u, &x, 4);
	if ((u & 0x7f800000u) != 0x7f800000u)
		u = (u + 0xfffu + ((u >> 13) & 1)) & ~0x1fffu;
	return bits_f32(u);
}

/* float8 e4m3fn: bias 7, no infinities, S.1111.111 is NaN */
static float e4m3_to_f32(uint8_t x)
{
	uint32_t s = (uint32_t)(x & 0x80) << 24, ex = (x >> 3) & 15, m = x & 7;
	if (ex == 15 && m == 7)
		return bits_f32(s | 0x7fc00000u);
	if (ex == 0) {
		float v = (float)m * 0x1p-9f; /* subnormal: exact */
		return s ? -v : v;
	}
	return bits_f32(s | ((ex + 120) << 23) | (m << 20));
}

/* float8 e5m2: bias 15, IEEE-like (exponent 31: inf if m == 0, else NaN) */
static float e5m2_to_f32(uint8_t x)
{
	return f16_to_f32((uint16_t)((uint16_t)x << 8));
}

/* element `at` of operand side (0: a, 1: b) of an mma of `kind`, as f32 */
static float in_f(int kind, int side, const void *p, size_t at)
{
	switch (kind) {
	case K_F16: return f16_to_f32(((const uint16_t *)p)[at]);
	case K_BF16: return bf16_to_f32(((const uint16_t *)p)[at]);
	case K_TF32: return to_tf32(((const float *)p)[at]);
	default: { /* fp8 */
		uint8_t x = ((const uint8_t *)p)[at];
		return ((kind - K_E4M3_E4M3) >> (1 - side)) & 1 ? e5m2_to_f32(x) : e4m3_to_f32(x);
	}
	}
}

static void mma_float(int kind, float *d, const void *a, const void *b, const float *c, int T)
{
	int na = kind == K_TF32 ? 4 : kind >= K_E4M3_E4M3 ? 16 : 8, nb = na / 2, K = 2 * na;
	float A[16][32], B[32][8];
	for (int w = 0; w + 32 <= T; w += 32) {
		for (int l = 0; l < 32; l++) {
			int r, cc;
			for (int i = 0; i < na; i++) {
				frag_a(kind, l, i, &r, &cc);
				A[r][cc] = in_f(kind, 0, a, (size_t)i * (size_t)T + (size_t)(w + l));
			}
			for (int i = 0; i < nb; i++) {
				frag_b(kind, l, i, &r, &cc);
				B[r][cc] = in_f(kind, 1, b, (size_t)i * (size_t)T + (size_t)(w + l));
			}
		}
		for (int i = 0; i < 4; i++)
			for (int l = 0; l < 32; l++) {
				int r, cc;
				size_t at = (size_t)i * (size_t)T + (size_t)(w + l);
				frag_c(l, i, &r, &cc);
				float acc = c[at];
				for (int k = 0; k < K; k++) {
					float p = A[r][k] * B[k][cc];
					acc = acc + p;
				}
				d[at] = acc;
			}
	}
}

void tile_rt_mma_f16_f32(float *d, const uint16_t *a, const uint16_t *b, const float *c,
                         int32_t nthreads)
{
	mma_float(K_F16, d, a, b, c, nthreads);
}

void tile_rt_mma_bf16_f32(float *d, const uint16_t *a, const uint16_t *b, const float *c,
                          int32_t nthreads)
{
	mma_float(K_BF16, d, a, b, c, nthreads);
}

void tile_rt_mma_tf32_f32(float *d, const float *a, const float *b, const float *c,
                          int32_t nthreads)
{
	mma_float(K_TF32, d, a, b, c, nthreads);
}

void tile_rt_mma_e4m3_e4m3_f32(float *d, const uint8_t *a, const uint8_t *b, const float *c,
                               int32_t nthreads)
{
	mma_float(K_E4M3_E4M3, d, a, b, c, nthreads);
}

void tile_rt_mma_e4m3_e5m2_f32(float *d, const uint8_t *a, const uint8_t *b, const float *c,
                               int32_t nthreads)
{
	mma_float(K_E4M3_E5M2, d, a, b, c, nthreads);
}

void tile_rt_mma_e5m2_e4m3_f32(float *d, const uint8_t *a, const uint8_t *b, const float *c,
                               int32_t nthreads)
{
	mma_float(K_E5M2_E4M3, d, a, b, c, nthreads);
}

void tile_rt_mma_e5m2_e5m2_f32(float *d, const uint8_t *a, const uint8_t *b, const float *c,
                               int32_t nthreads)
{
	mma_float(K_E5M2_E5M2, d, a, b, c, nthreads);
}

void tile_rt_mma_s8_s32(int32_t *d, const int8_t *a, const int8_t *b, const int32_t *c,
                        int32_t nthreads)
{
	int T = nthreads;
	int32_t A[16][32], B[32][8];
	for (int w = 0; w + 32 <= T; w += 32) {
		for (int l = 0; l < 32; l++) {
			int r, cc;
			for (int i = 0; i < 16; i++) {
				frag_a(K_S8, l, i, &r, &cc);
				A[r][cc] = a[(size_t)i * (size_t)T + (size_t)(w + l)];
			}
			for (int i = 0; i < 8; i++) {
				frag_b(K_S8, l, i, &r, &cc);
				B[r][cc] = b[(size_t)i * (size_t)T + (size_t)(w + l)];
			}
		}
		for (int i = 0; i < 4; i++)
			for (int l = 0; l < 32; l++) {
				int r, cc;
				size_t at = (size_t)i * (size_t)T + (size_t)(w + l);
				frag_c(l, i, &r, &cc);
				uint32_t acc = (uint32_t)c[at];
				for (int k = 0; k < 32; k++)
					acc += (uint32_t)(A[r][k] * B[k][cc]); /* |product| <= 2^14 */
				d[at] = (int32_t)acc;
			}
	}
}

/* ldmatrix.x{nm}[.trans].b16: thread t of a warp supplies the byte offset of
 * row (t % 8) of matrix (t / 8); lane l receives the 32-bit word l%4 of row
 * l/4 of each matrix, split into 4/eb results of eb bytes (lowest first);
 * transposed (eb = 2), result j is 16-bit element (2*(l%4)+j, l/4). Result
 * j of matrix m is row (4/eb)*m + j of out, eb bytes per thread. */
void tile_rt_ldmatrix(uint8_t *out, const uint8_t *smem, const int32_t *off, int32_t nm,
                      int32_t trans, int32_t eb, int32_t nthreads)
{
	int T = nthreads, epr = 4 / eb;
	for (int w = 0; w + 32 <= T; w += 32)
		for (int m = 0; m < nm; m++)
			for (int j = 0; j < epr; j++)
				for (int l = 0; l < 32; l++) {
					int r = trans ? 2 * (l % 4) + j : l / 4;
					int c = trans ? 2 * (l / 4) : 4 * (l % 4) + eb * j; /* bytes */
					uint32_t o = (uint32_t)off[w + m * 8 + r] + (uint32_t)c;
					size_t row = (size_t)(epr * m + j) * (size_t)T;
					memcpy(out + (row + (size_t)(w + l)) * (size_t)eb, smem + o,
					       (size_t)eb);
				}
}

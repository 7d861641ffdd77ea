/* test_lower.c: lowering (Tile IR with layouts -> thread program), checked by
 * running the thread program in a small interpreter that executes every
 * thread of a program instance in lock-step: lane/warp ids, shuffles, shared
 * memory with a race detector (a barrier starts a new epoch; reading a byte
 * another thread wrote in the same epoch, or writing one another thread read
 * or wrote, is a race), global loads/stores into host arrays (stores are
 * counted per address: warp predication means exactly one write each) and
 * mma.sync fragments implemented from the PTX ISA tables.
 *
 * The interpreter is a test tool only. */
#include "codegen/tp.h"
#include "layout/linear.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures, checks;

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		checks++;                                                                          \
		if (!(cond)) {                                                                     \
			failures++;                                                                \
			if (failures < 40) {                                                       \
				fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__,   \
				        #cond);                                                    \
				fprintf(stderr, __VA_ARGS__);                                      \
				fputc('\n', stderr);                                               \
			}                                                                          \
		}                                                                                  \
	} while (0)

/* ---- interpreter ------------------------------------------------------------------ */

typedef union Cell {
	int64_t i;
	double f;
} Cell;

typedef struct Region {
	char *lo, *hi;
	int *writes; /* per element */
	int eb;
} Region;

typedef struct Interp {
	const TpFunc *f;
	int nt, lanes;
	Cell *v;
	uint8_t *smem;
	int nsmem;
	int *w_thr, *w_ep, *r_thr, *r_ep, epoch;
	void **args;
	int pid[3], nprog[3];
	Region regions[8];
	int nregions;
	int races, oob, asserts;
	int bad_coalesced; /* TP_COALESCED accesses whose addresses are not t * vec apart */
	int n_shfl, n_smem_ops, n_barriers, n_vec_loads, n_coalesced;
	int n_smem_loads, n_ldmatrix, n_ldmatrix_trans;
} Interp;

#define V(I, x, t) ((I)->v[(size_t)(x) * (size_t)(I)->nt + (size_t)(t)])

static DType dt_of(const Interp *I, TpVal x) { return (DType)I->f->vals.data[x].ty.dt; }

static int64_t norm(DType dt, int64_t x)
{
	switch (dt) {
	case DT_I1: return x & 1;
	case DT_I8: return (int8_t)x;
	case DT_I16: return (int16_t)x;
	case DT_I32: return (int32_t)x;
	case DT_U8: return (uint8_t)x;
	case DT_U16: return (uint16_t)x;
	case DT_U32: return (uint32_t)x;
	default: return x;
	}
}

static double fnorm(DType dt, double x)
{
	if (dt == DT_F32)
		return (float)x;
	return x;
}

static bool isf(DType dt) { return dtype_is_float(dt); }

static Region *region_of(Interp *I, int64_t addr)
{
	for (int i = 0; i < I->nregions; i++)
		if ((char *)addr >= I->regions[i].lo && (char *)addr < I->regions[i].hi)
			return &I->regions[i];
	return NULL;
}

/* A TP_COALESCED global access: thread t's pointer is the first thread's of
 * its run (attr.axis threads; all of them when 0) plus its place in the run
 * times the bytes each thread moves. */
static void check_coalesced(Interp *I, const TpOp *op, int t, int bytes)
{
	if (!(op->attr.flags & TP_COALESCED))
		return;
	int run = op->attr.axis > 0 ? (int)op->attr.axis : I->nt;
	int t0 = t - t % run;
	if (V(I, op->operands[0], t).i != V(I, op->operands[0], t0).i + (int64_t)(t - t0) * bytes)
		I->bad_coalesced++;
}

static Cell mem_read(Interp *I, int64_t addr, DType dt)
{
	Cell c = {0};
	if (!region_of(I, addr)) {
		I->oob++;
		return c;
	}
	void *p = (void *)addr;
	switch (dt) {
	case DT_F32: c.f = *(float *)p; break;
	case DT_F64: c.f = *(double *)p; break;
	case DT_I32: c.i = *(int32_t *)p; break;
	case DT_U32: c.i = *(uint32_t *)p; break;
	case DT_I64:
	case DT_U64:
	case DT_PTR: c.i = *(int64_t *)p; break;
	case DT_I8: c.i = *(int8_t *)p; break;
	case DT_I1:
	case DT_U8: c.i = *(uint8_t *)p; break;
	case DT_I16: c.i = *(int16_t *)p; break;
	default: c.i = 0; break;
	}
	return c;
}

static void mem_write(Interp *I, int64_t addr, DType dt, Cell c)
{
	Region *r = region_of(I, addr);
	if (!r) {
		I->oob++;
		return;
	}
	r->writes[((char *)addr - r->lo) / r->eb]++;
	void *p = (void *)addr;
	switch (dt) {
	case DT_F32: *(float *)p = (float)c.f; break;
	case DT_F64: *(double *)p = c.f; break;
	case DT_I32:
	case DT_U32: *(int32_t *)p = (int32_t)c.i; break;
	case DT_I64:
	case DT_U64: *(int64_t *)p = c.i; break;
	case DT_I8:
	case DT_U8:
	case DT_I1: *(int8_t *)p = (int8_t)c.i; break;
	case DT_I16: *(int16_t *)p = (int16_t)c.i; break;
	default: break;
	}
}

static int smem_bytes_of(DType dt) { return dtype_bytes(dt) ? dtype_bytes(dt) : 1; }

/* f16 / bf16 values are doubles in registers and their bit patterns in
 * shared memory (round to nearest even; the tests use exact values). */
static uint16_t f16_bits(double d)
{
	float x = (float)d;
	uint32_t u;
	memcpy(&u, &x, 4);
	uint32_t sign = (u >> 16) & 0x8000u, ax = u & 0x7fffffffu;
	if (ax >= 0x7f800000u)
		return (uint16_t)(sign | 0x7c00u | (ax > 0x7f800000u ? 0x200u : 0));
	if (ax >= 0x477ff000u)
		return (uint16_t)(sign | 0x7c00u);
	if (ax < 0x38800000u) /* subnormal or zero */
		return (uint16_t)(sign | (uint32_t)nearbyintf(fabsf(x) * 0x1p24f));
	uint32_t r = ax + 0xfffu + ((ax >> 13) & 1);
	return (uint16_t)(sign | ((r - 0x38000000u) >> 13));
}

static double f16_value(uint16_t h)
{
	int e = (h >> 10) & 0x1f, m = h & 0x3ff;
	double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m | 0x400, e - 25);
	return h & 0x8000 ? -v : v;
}

static uint16_t bf16_bits(double d)
{
	float x = (float)d;
	uint32_t u;
	memcpy(&u, &x, 4);
	return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1)) >> 16);
}

static double bf16_value(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float x;
	memcpy(&x, &u, 4);
	return x;
}

static void smem_access(Interp *I, int t, int64_t off, int n, bool write)
{
	if (off < 0 || off + n > I->nsmem) {
		I->oob++;
		return;
	}
	for (int k = 0; k < n; k++) {
		int64_t b = off + k;
		if (I->w_ep[b] == I->epoch && I->w_thr[b] != t)
			I->races++;
		if (write) {
			if (I->r_ep[b] == I->epoch && I->r_thr[b] != t)
				I->races++;
			I->w_ep[b] = I->epoch;
			I->w_thr[b] = t;
		} else {
			if (I->r_ep[b] == I->epoch && I->r_thr[b] != t)
				I->r_thr[b] = -2; /* several readers */
			else
				I->r_thr[b] = t;
			I->r_ep[b] = I->epoch;
		}
	}
}

static Cell smem_rd(Interp *I, int64_t off, DType dt)
{
	Cell c = {0};
	if (off < 0 || off + smem_bytes_of(dt) > I->nsmem)
		return c;
	void *p = I->smem + off;
	switch (dt) {
	case DT_F32: c.f = *(float *)p; break;
	case DT_F64: c.f = *(double *)p; break;
	case DT_I32: c.i = *(int32_t *)p; break;
	case DT_I64:
	case DT_PTR: c.i = *(int64_t *)p; break;
	case DT_I1:
	case DT_U8: c.i = *(uint8_t *)p; break;
	case DT_I8: c.i = *(int8_t *)p; break;
	case DT_F16: c.f = f16_value(*(uint16_t *)p); break;
	case DT_BF16: c.f = bf16_value(*(uint16_t *)p); break;
	default: memcpy(&c.i, p, (size_t)smem_bytes_of(dt)); break;
	}
	return c;
}

static void smem_wr(Interp *I, int64_t off, DType dt, Cell c)
{
	if (off < 0 || off + smem_bytes_of(dt) > I->nsmem)
		return;
	void *p = I->smem + off;
	switch (dt) {
	case DT_F32: *(float *)p = (float)c.f; break;
	case DT_F64: *(double *)p = c.f; break;
	case DT_I32: *(int32_t *)p = (int32_t)c.i; break;
	case DT_I64:
	case DT_PTR: *(int64_t *)p = c.i; break;
	case DT_I1:
	case DT_U8:
	case DT_I8: *(int8_t *)p = (int8_t)c.i; break;
	case DT_F16: *(uint16_t *)p = f16_bits(c.f); break;
	case DT_BF16: *(uint16_t *)p = bf16_bits(c.f); break;
	default: memcpy(p, &c.i, (size_t)smem_bytes_of(dt)); break;
	}
}

static Cell arith(TpOpKind k, DType dt, Cell a, Cell b)
{
	Cell r = {0};
	if (isf(dt)) {
		switch (k) {
		case TP_ADD: r.f = a.f + b.f; break;
		case TP_SUB: r.f = a.f - b.f; break;
		case TP_MUL: r.f = a.f * b.f; break;
		case TP_DIV: r.f = a.f / b.f; break;
		case TP_REM: r.f = fmod(a.f, b.f); break;
		case TP_MIN: r.f = fmin(a.f, b.f); break;
		case TP_MAX: r.f = fmax(a.f, b.f); break;
		default: break;
		}
		r.f = fnorm(dt, r.f);
		return r;
	}
	bool sg = dtype_is_signed(dt);
	uint64_t ua = (uint64_t)a.i, ub = (uint64_t)b.i;
	switch (k) {
	case TP_ADD: r.i = (int64_t)(ua + ub); break;
	case TP_SUB: r.i = (int64_t)(ua - ub); break;
	case TP_MUL: r.i = (int64_t)(ua * ub); break;
	case TP_DIV: r.i = b.i ? (sg ? a.i / b.i : (int64_t)(ua / ub)) : 0; break;
	case TP_REM: r.i = b.i ? (sg ? a.i % b.i : (int64_t)(ua % ub)) : 0; break;
	case TP_AND: r.i = a.i & b.i; break;
	case TP_OR: r.i = a.i | b.i; break;
	case TP_XOR: r.i = a.i ^ b.i; break;
	case TP_SHL: r.i = (int64_t)(ua << (b.i & 63)); break;
	case TP_SHR: r.i = sg ? a.i >> (b.i & 63) : (int64_t)(ua >> (b.i & 63)); break;
	case TP_MIN: r.i = sg ? (a.i < b.i ? a.i : b.i) : (ua < ub ? a.i : b.i); break;
	case TP_MAX: r.i = sg ? (a.i > b.i ? a.i : b.i) : (ua > ub ? a.i : b.i); break;
	case TP_UMULHI: r.i = (int64_t)(((uint64_t)(uint32_t)a.i * (uint32_t)b.i) >> 32); break;
	default: break;
	}
	r.i = norm(dt, r.i);
	return r;
}

static bool compare(int pred, DType dt, Cell a, Cell b)
{
	int c;
	if (isf(dt))
		c = a.f < b.f ? -1 : a.f > b.f ? 1 : 0;
	else if (dtype_is_signed(dt))
		c = a.i < b.i ? -1 : a.i > b.i ? 1 : 0;
	else
		c = (uint64_t)a.i < (uint64_t)b.i ? -1 : (uint64_t)a.i > (uint64_t)b.i ? 1 : 0;
	switch (pred) {
	case PRED_EQ: return c == 0;
	case PRED_NE: return c != 0;
	case PRED_LT: return c < 0;
	case PRED_LE: return c <= 0;
	case PRED_GT: return c > 0;
	default: return c >= 0;
	}
}

static Cell cast(DType from, DType to, Cell a)
{
	Cell r = {0};
	if (isf(to)) {
		if (isf(from))
			r.f = a.f;
		else if (dtype_is_signed(from) || from == DT_I1)
			r.f = (double)a.i;
		else
			r.f = (double)(uint64_t)a.i;
		r.f = fnorm(to, r.f);
	} else if (to == DT_I1) {
		r.i = isf(from) ? a.f != 0 : a.i != 0;
	} else {
		r.i = isf(from) ? (int64_t)a.f : a.i;
		r.i = norm(to, r.i);
	}
	return r;
}

/* mma.sync m16n8kK from the PTX ISA fragment tables (groupID = lane >> 2,
 * threadID_in_group = lane % 4). */
static void mma_a_pos(MmaKind k, int lane, int i, int *row, int *col)
{
	int g = lane >> 2, t = lane % 4;
	switch (k) {
	case MMA_M16N8K8_TF32_F32: /* a0:(g,t) a1:(g+8,t) a2:(g,t+4) a3:(g+8,t+4) */
		*row = (i == 0 || i == 2) ? g : g + 8;
		*col = i < 2 ? t : t + 4;
		break;
	case MMA_M16N8K32_S8_S32: /* ai for i<4: row g, col t*4+i; <8: g+8; <12: g, +16; g+8, +16 */
		*row = (i < 4 || (i >= 8 && i < 12)) ? g : g + 8;
		*col = t * 4 + (i & 3) + (i >= 8 ? 16 : 0);
		break;
	default: /* f16/bf16: a0,a1,a4,a5 rows g; others g+8; col t*2 + (i&1) (+8 for i>=4) */
		*row = (i < 2 || i == 4 || i == 5) ? g : g + 8;
		*col = t * 2 + (i & 1) + (i >= 4 ? 8 : 0);
		break;
	}
}

static void mma_b_pos(MmaKind k, int lane, int i, int *row, int *col)
{
	int g = lane >> 2, t = lane % 4;
	*col = g;
	switch (k) {
	case MMA_M16N8K8_TF32_F32: *row = i == 0 ? t : t + 4; break;
	case MMA_M16N8K32_S8_S32: *row = t * 4 + (i & 3) + (i >= 4 ? 16 : 0); break;
	default: *row = t * 2 + (i & 1) + (i >= 2 ? 8 : 0); break;
	}
}

static void mma_c_pos(int lane, int i, int *row, int *col)
{
	int g = lane >> 2, t = lane % 4;
	*row = i < 2 ? g : g + 8;
	*col = t * 2 + (i & 1);
}

static void exec_mma(Interp *I, const TpOp *op)
{
	MmaKind k = (MmaKind)op->attr.i;
	int na = k == MMA_M16N8K8_TF32_F32 ? 4 : k == MMA_M16N8K32_S8_S32 ? 16 : 8;
	int nb = na / 2;
	int K = k == MMA_M16N8K8_TF32_F32 ? 8 : k == MMA_M16N8K32_S8_S32 ? 32 : 16;
	bool is_int = k == MMA_M16N8K32_S8_S32;
	for (int w = 0; w < I->nt / 32; w++) {
		double A[16][32], B[32][8], C[16][8];
		for (int lane = 0; lane < 32; lane++) {
			int t = w * 32 + lane, r, c;
			for (int i = 0; i < na; i++) {
				mma_a_pos(k, lane, i, &r, &c);
				Cell x = V(I, op->operands[i], t);
				A[r][c] = is_int ? (double)x.i : x.f;
			}
			for (int i = 0; i < nb; i++) {
				mma_b_pos(k, lane, i, &r, &c);
				Cell x = V(I, op->operands[na + i], t);
				B[r][c] = is_int ? (double)x.i : x.f;
			}
			for (int i = 0; i < 4; i++) {
				mma_c_pos(lane, i, &r, &c);
				Cell x = V(I, op->operands[na + nb + i], t);
				C[r][c] = is_int ? (double)x.i : x.f;
			}
		}
		for (int lane = 0; lane < 32; lane++) {
			int t = w * 32 + lane;
			for (int i = 0; i < 4; i++) {
				int r, c;
				mma_c_pos(lane, i, &r, &c);
				double s = C[r][c];
				for (int kk = 0; kk < K; kk++)
					s += A[r][kk] * B[kk][c];
				Cell o;
				if (is_int)
					o.i = (int32_t)(int64_t)s;
				else
					o.f = (float)s;
				V(I, op->results[i], t) = o;
			}
		}
	}
}

/* ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].b16, from the PTX ISA: each
 * warp loads nm 8x8 matrices of 16-bit elements; row r of matrix m is the
 * 16 bytes at the address thread m*8 + r of the warp gives. Without .trans,
 * thread l receives in its result pair of matrix m the elements (l/4,
 * 2*(l%4)) and (l/4, 2*(l%4)+1); with .trans the matrix is transposed on the
 * way: (2*(l%4), l/4) and (2*(l%4)+1, l/4). */
/* ldmatrix from the PTX definition: 8 rows of 16 bytes per matrix, lane l
 * receives the 32-bit word l%4 of row l/4 as 4/eb values (.trans, 16-bit:
 * element (2(l%4)+j, l/4) of the 8x8 matrix) */
static void exec_ldmatrix(Interp *I, const TpOp *op)
{
	int nm = (int)op->attr.i;
	bool trans = op->attr.flags & TP_TRANS;
	DType rt = dt_of(I, op->results[0]);
	int eb = dtype_bytes(rt), epr = 4 / eb, per_row = 16 / eb;
	for (int w = 0; w < I->nt / 32; w++)
		for (int m = 0; m < nm; m++) {
			Cell mat[8][16];
			for (int r = 0; r < 8; r++) {
				int t = w * 32 + m * 8 + r;
				int64_t row = V(I, op->operands[0], t).i;
				if (row % 16)
					I->oob++; /* rows must be 16-byte aligned */
				smem_access(I, t, row, 16, false);
				for (int c = 0; c < per_row; c++)
					mat[r][c] = smem_rd(I, row + eb * c, rt);
			}
			for (int l = 0; l < 32; l++)
				for (int j = 0; j < epr; j++)
					V(I, op->results[epr * m + j], w * 32 + l) =
					        trans ? mat[2 * (l % 4) + j][l / 4]
					              : mat[l / 4][epr * (l % 4) + j];
		}
}

static const TpOp *run_block(Interp *I, const TpBlock *b);

static void run_region_op(Interp *I, const TpOp *op)
{
	int nt = I->nt;
	if (op->kind == TP_IF) {
		const TpBlock *r = &op->regions[V(I, op->operands[0], 0).i ? 0 : 1];
		const TpOp *y = run_block(I, r);
		for (int i = 0; i < op->nout; i++)
			for (int t = 0; t < nt; t++)
				V(I, op->results[i], t) = V(I, y->operands[i], t);
		return;
	}
	if (op->kind == TP_FOR) {
		const TpBlock *body = &op->regions[0];
		int n = op->nin - 3;
		Cell *cur = calloc((size_t)(n + 1) * (size_t)nt, sizeof(Cell));
		for (int i = 0; i < n; i++)
			for (int t = 0; t < nt; t++)
				cur[i * nt + t] = V(I, op->operands[3 + i], t);
		int64_t lb = V(I, op->operands[0], 0).i, ub = V(I, op->operands[1], 0).i;
		int64_t st = V(I, op->operands[2], 0).i;
		for (int64_t iv = lb; iv < ub; iv += st) {
			for (int t = 0; t < nt; t++)
				V(I, body->args[0], t).i = iv;
			for (int i = 0; i < n; i++)
				for (int t = 0; t < nt; t++)
					V(I, body->args[1 + i], t) = cur[i * nt + t];
			const TpOp *y = run_block(I, body);
			for (int i = 0; i < n; i++)
				for (int t = 0; t < nt; t++)
					cur[i * nt + t] = V(I, y->operands[i], t);
		}
		for (int i = 0; i < n; i++)
			for (int t = 0; t < nt; t++)
				V(I, op->results[i], t) = cur[i * nt + t];
		free(cur);
		return;
	}
	if (op->kind == TP_WHILE) {
		const TpBlock *bf = &op->regions[0], *af = &op->regions[1];
		for (int i = 0; i < op->nin; i++)
			for (int t = 0; t < nt; t++)
				V(I, bf->args[i], t) = V(I, op->operands[i], t);
		for (;;) {
			const TpOp *c = run_block(I, bf);
			if (!V(I, c->operands[0], 0).i) {
				for (int i = 0; i < op->nout; i++)
					for (int t = 0; t < nt; t++)
						V(I, op->results[i], t) =
						        V(I, c->operands[1 + i], t);
				return;
			}
			for (int i = 0; i < af->nargs; i++)
				for (int t = 0; t < nt; t++)
					V(I, af->args[i], t) = V(I, c->operands[1 + i], t);
			const TpOp *y = run_block(I, af);
			for (int i = 0; i < op->nin; i++)
				for (int t = 0; t < nt; t++)
					V(I, bf->args[i], t) = V(I, y->operands[i], t);
		}
	}
}

static void exec_op(Interp *I, const TpOp *op)
{
	int nt = I->nt;
	TpOpKind k = (TpOpKind)op->kind;
	DType rt = op->nout ? dt_of(I, op->results[0]) : DT_VOID;
	for (int t = 0; t < nt; t++) {
		Cell r = {0};
		int lane = t % I->lanes, warp = t / I->lanes;
#define IN(j) V(I, op->operands[j], t)
		switch (k) {
		case TP_CONST:
			if (isf(rt))
				r.f = fnorm(rt, op->attr.f);
			else
				r.i = norm(rt, op->attr.i);
			break;
		case TP_PARAM: {
			void *p = I->args[op->attr.i];
			Type pt = I->f->params[op->attr.i].ty;
			if (pt.dt == DT_PTR)
				r.i = (int64_t) * (void **)p;
			else if (isf((DType)pt.dt))
				r.f = pt.dt == DT_F32 ? *(float *)p : *(double *)p;
			else if (pt.dt == DT_I64)
				r.i = *(int64_t *)p;
			else
				r.i = *(int32_t *)p;
			break;
		}
		case TP_LANE_ID: r.i = lane; break;
		case TP_WARP_ID: r.i = warp; break;
		case TP_PROGRAM_ID: r.i = I->pid[op->attr.axis]; break;
		case TP_NUM_PROGRAMS: r.i = I->nprog[op->attr.axis]; break;
		case TP_ADD:
		case TP_SUB:
		case TP_MUL:
		case TP_DIV:
		case TP_REM:
		case TP_AND:
		case TP_OR:
		case TP_XOR:
		case TP_SHL:
		case TP_SHR:
		case TP_MIN:
		case TP_MAX:
		case TP_UMULHI: r = arith(k, rt, IN(0), IN(1)); break;
		case TP_CMP:
			r.i = compare(op->attr.pred, dt_of(I, op->operands[0]), IN(0), IN(1));
			break;
		case TP_NEG:
			if (isf(rt))
				r.f = -IN(0).f;
			else
				r.i = norm(rt, -IN(0).i);
			break;
		case TP_NOT: r.i = norm(rt, ~IN(0).i); break;
		case TP_FMA:
			if (rt == DT_F32)
				r.f = fmaf((float)IN(0).f, (float)IN(1).f, (float)IN(2).f);
			else
				r.f = fma(IN(0).f, IN(1).f, IN(2).f);
			break;
		case TP_MATH:
			switch (op->attr.math) {
			case MATH_EXP: r.f = exp(IN(0).f); break;
			case MATH_SQRT: r.f = sqrt(IN(0).f); break;
			case MATH_ABS: r.f = fabs(IN(0).f); break;
			default: r.f = IN(0).f; break;
			}
			r.f = fnorm(rt, r.f);
			break;
		case TP_SELECT: r = IN(0).i ? IN(1) : IN(2); break;
		case TP_CAST: r = cast(dt_of(I, op->operands[0]), rt, IN(0)); break;
		case TP_BITCAST:
		case TP_PTR_TO_INT:
		case TP_INT_TO_PTR: r = IN(0); break;
		case TP_PTR_ADD: {
			int eb = dtype_bytes((DType)I->f->vals.data[op->results[0]].ty.elem);
			r.i = IN(0).i + IN(1).i * eb;
			break;
		}
		case TP_LOAD: {
			int v = (int)op->attr.i;
			DType et = rt;
			check_coalesced(I, op, t, v * dtype_bytes(et));
			for (int j = 0; j < v; j++)
				V(I, op->results[j], t) =
				        IN(1).i ? mem_read(I, IN(0).i + j * dtype_bytes(et), et)
				                : IN(2 + j);
			continue;
		}
		case TP_STORE: {
			int v = (int)op->attr.i;
			DType et = dt_of(I, op->operands[2]);
			check_coalesced(I, op, t, v * dtype_bytes(et));
			if (IN(1).i)
				for (int j = 0; j < v; j++)
					mem_write(I, IN(0).i + j * dtype_bytes(et), et, IN(2 + j));
			continue;
		}
		case TP_ATOMIC: {
			if (IN(2).i) {
				Cell old = mem_read(I, IN(0).i, rt);
				Cell nv = op->attr.atomic == ATOM_ADD
				                  ? arith(TP_ADD, rt, old, IN(1))
				          : op->attr.atomic == ATOM_MAX
				                  ? arith(TP_MAX, rt, old, IN(1))
				                  : IN(1);
				mem_write(I, IN(0).i, rt, nv);
				r = old;
			}
			break;
		}
		case TP_SHFL_XOR: {
			int src = warp * I->lanes + ((lane ^ (int)op->attr.i) & (I->lanes - 1));
			r = V(I, op->operands[0], src);
			break;
		}
		case TP_WARP_XOR: {
			int src = (warp ^ (int)op->attr.i) * I->lanes + lane;
			r = V(I, op->operands[0], src);
			break;
		}
		case TP_SHFL_IDX: {
			int src = warp * I->lanes + (int)(IN(1).i & (I->lanes - 1));
			r = V(I, op->operands[0], src);
			break;
		}
		case TP_SMEM_LOAD: {
			int v = (int)op->attr.i, eb = smem_bytes_of(rt);
			if (IN(0).i % (v * eb))
				I->oob++; /* misaligned vector */
			if ((op->attr.flags & TP_COALESCED) &&
			    IN(0).i != V(I, op->operands[0], 0).i + (int64_t)t * v * eb)
				I->bad_coalesced++;
			if (IN(1).i) {
				smem_access(I, t, IN(0).i, v * eb, false);
				for (int j = 0; j < v; j++)
					V(I, op->results[j], t) = smem_rd(I, IN(0).i + j * eb, rt);
			}
			continue;
		}
		case TP_SMEM_STORE: {
			int v = (int)op->attr.i;
			DType et = dt_of(I, op->operands[2]);
			int eb = smem_bytes_of(et);
			if (IN(0).i % (v * eb))
				I->oob++;
			if ((op->attr.flags & TP_COALESCED) &&
			    IN(0).i != V(I, op->operands[0], 0).i + (int64_t)t * v * eb)
				I->bad_coalesced++;
			if (IN(1).i) {
				smem_access(I, t, IN(0).i, v * eb, true);
				for (int j = 0; j < v; j++)
					smem_wr(I, IN(0).i + j * eb, et, IN(2 + j));
			}
			continue;
		}
		case TP_ASSERT:
			if (!IN(0).i)
				I->asserts++;
			continue;
		default: continue;
		}
#undef IN
		if (op->nout)
			V(I, op->results[0], t) = r;
	}
	switch (k) {
	case TP_SHFL_XOR:
	case TP_SHFL_IDX:
	case TP_WARP_XOR: I->n_shfl++; break;
	case TP_SMEM_LOAD: I->n_smem_loads++; /* fall through */
	case TP_SMEM_STORE: I->n_smem_ops++; break;
	case TP_LDMATRIX:
		exec_ldmatrix(I, op);
		I->n_smem_ops++;
		I->n_ldmatrix++;
		I->n_ldmatrix_trans += (op->attr.flags & TP_TRANS) != 0;
		break;
	case TP_BARRIER:
		I->n_barriers++;
		I->epoch++;
		break;
	case TP_LOAD:
		if (op->attr.i > 1)
			I->n_vec_loads++;
		if (op->attr.flags & TP_COALESCED)
			I->n_coalesced++;
		break;
	case TP_MMA: exec_mma(I, op); break;
	default: break;
	}
}

static const TpOp *run_block(Interp *I, const TpBlock *b)
{
	for (int i = 0; i < b->nops; i++) {
		const TpOp *op = b->ops[i];
		if (tp_op_flags((TpOpKind)op->kind) & TF_TERM)
			return op;
		if (op->nregions)
			run_region_op(I, op);
		else
			exec_op(I, op);
	}
	return NULL;
}

static void interp_init(Interp *I, const TpFunc *f, void **args)
{
	memset(I, 0, sizeof *I);
	I->f = f;
	I->lanes = f->lanes_per_warp;
	I->nt = f->num_warps * f->lanes_per_warp;
	I->v = calloc(f->vals.len * (size_t)I->nt, sizeof(Cell));
	I->nsmem = f->smem_bytes;
	I->smem = calloc((size_t)I->nsmem + 16, 1);
	I->w_thr = calloc((size_t)I->nsmem + 16, sizeof(int));
	I->w_ep = calloc((size_t)I->nsmem + 16, sizeof(int));
	I->r_thr = calloc((size_t)I->nsmem + 16, sizeof(int));
	I->r_ep = calloc((size_t)I->nsmem + 16, sizeof(int));
	I->epoch = 1;
	I->args = args;
	I->nprog[0] = I->nprog[1] = I->nprog[2] = 1;
}

static void interp_region(Interp *I, void *p, int n, int eb)
{
	Region *r = &I->regions[I->nregions++];
	r->lo = p;
	r->hi = (char *)p + (size_t)n * (size_t)eb;
	r->eb = eb;
	r->writes = calloc((size_t)n, sizeof(int));
}

static void interp_run(Interp *I) { run_block(I, I->f->body); }

static void interp_free(Interp *I)
{
	free(I->v);
	free(I->smem);
	free(I->w_thr);
	free(I->w_ep);
	free(I->r_thr);
	free(I->r_ep);
	for (int i = 0; i < I->nregions; i++)
		free(I->regions[i].writes);
}

/* ---- building Tile IR by hand --------------------------------------------------------- */

typedef struct B {
	Arena *a;
	TirFunc *f;
	TirBlock *b;
	int nparams;
} B;

static const SrcLoc noloc;

static void b_init(B *b, Arena *a, int num_warps)
{
	memset(b, 0, sizeof *b);
	b->a = a;
	b->f = tir_func_new(a, "k");
	b->f->num_warps = num_warps;
	b->b = b->f->entry;
	b->f->params = ARENA_NEWN(a, TirParam, 8);
}

static ValId param(B *b, Type t)
{
	ValId v = tir_block_add_arg(b->f, b->f->entry, t);
	TirParam *p = &b->f->params[b->f->nparams++];
	p->name = arena_printf(b->a, "p%d", b->f->nparams - 1);
	p->ty = t;
	p->val = v;
	return v;
}

static LinearLayout *lay(B *b, const LinearLayout *l) { return arena_dup(b->a, l, sizeof *l); }

static Type tile_t(DType dt, int rank, const int32_t *shape)
{
	return type_tile(type_scalar(dt), rank, shape);
}

static Type ptile_t(DType elem, int rank, const int32_t *shape)
{
	return type_tile(type_ptr(elem), rank, shape);
}

static TirOp *opn(B *b, TirOpKind k, const ValId *in, int nin, Type rt, const LinearLayout *l)
{
	TirOp *op = tir_op(b->f, b->b, k, noloc, in, nin, &rt, rt.dt == DT_VOID ? 0 : 1);
	if (op->nout)
		tir_val(b->f, op->results[0])->layout = rt.rank ? l : NULL;
	return op;
}

static ValId op1(B *b, TirOpKind k, ValId x, Type rt, const LinearLayout *l)
{
	return opn(b, k, &x, 1, rt, l)->results[0];
}

static ValId op2(B *b, TirOpKind k, ValId x, ValId y, Type rt, const LinearLayout *l)
{
	ValId in[2] = {x, y};
	return opn(b, k, in, 2, rt, l)->results[0];
}

static ValId cint(B *b, Type t, int64_t v, const LinearLayout *l)
{
	TirOp *op = opn(b, TOP_CONST, NULL, 0, t, l);
	op->attr.i = v;
	op->attr.f = (double)v;
	return op->results[0];
}

static ValId arange(B *b, int n, const LinearLayout *l)
{
	int32_t s[1] = {n};
	TirOp *op = opn(b, TOP_ARANGE, NULL, 0, tile_t(DT_I32, 1, s), l);
	op->attr.i = 0;
	op->attr.i2 = n;
	return op->results[0];
}

/* Offsets i*s0 + j*s1 over a 2-D tile with layout l (via slice/expand/broadcast). */
static ValId index2d(B *b, const LinearLayout *l, const int32_t shape[2], int s0, int s1)
{
	ValId acc = 0;
	for (int d = 0; d < 2; d++) {
		LinearLayout sl, el;
		ll_slice(&sl, l, 1 - d);
		ll_expand_dims(&el, &sl, 1 - d);
		ValId r = arange(b, shape[d], lay(b, &sl));
		int32_t es[2] = {d == 0 ? shape[0] : 1, d == 0 ? 1 : shape[1]};
		TirOp *e = opn(b, TOP_EXPAND_DIMS, &r, 1, tile_t(DT_I32, 2, es), lay(b, &el));
		e->attr.axis = 1 - d;
		ValId bc = op1(b, TOP_BROADCAST, e->results[0], tile_t(DT_I32, 2, shape), l);
		ValId m = op2(b, TOP_MUL, bc, cint(b, tile_t(DT_I32, 2, shape), d ? s1 : s0, l),
		              tile_t(DT_I32, 2, shape), l);
		acc = acc ? op2(b, TOP_ADD, acc, m, tile_t(DT_I32, 2, shape), l) : m;
	}
	return acc;
}

static ValId ptrs(B *b, ValId base, ValId offs, DType elem, int rank, const int32_t *shape,
                  const LinearLayout *l)
{
	ValId sp = op1(b, TOP_SPLAT, base, ptile_t(elem, rank, shape), l);
	return op2(b, TOP_PTR_ADD, sp, offs, ptile_t(elem, rank, shape), l);
}

static ValId load(B *b, ValId p, ValId mask, DType et, int rank, const int32_t *shape,
                  const LinearLayout *l, int vec)
{
	ValId in[2] = {p, mask};
	TirOp *op = opn(b, TOP_LOAD, in, mask ? 2 : 1, tile_t(et, rank, shape), l);
	op->attr.flags = mask ? TIR_HAS_MASK : 0;
	op->attr.i2 = vec;
	return op->results[0];
}

static TirOp *store(B *b, ValId p, ValId v, ValId mask, int vec)
{
	ValId in[3] = {p, v, mask};
	TirOp *op = opn(b, TOP_STORE, in, mask ? 3 : 2, type_scalar(DT_VOID), NULL);
	op->attr.flags = mask ? TIR_HAS_MASK : 0;
	op->attr.i2 = vec;
	return op;
}

/* Combine region (acc..., x...) for n operands of type et using `k`. */
static void add_combine(B *b, TirOp *op, int n, Type et, TirOpKind k)
{
	tir_op_add_regions(b->f, op, 1);
	TirBlock *r = &op->regions[0];
	ValId args[8];
	for (int i = 0; i < 2 * n; i++)
		args[i] = tir_block_add_arg(b->f, r, et);
	TirBlock *save = b->b;
	b->b = r;
	ValId y[4];
	for (int i = 0; i < n; i++)
		y[i] = op2(b, k, args[i], args[n + i], et, NULL);
	opn(b, TOP_YIELD, y, n, type_scalar(DT_VOID), NULL);
	b->b = save;
}

static void ret(B *b) { opn(b, TOP_RETURN, NULL, 0, type_scalar(DT_VOID), NULL); }

/* ---- running -------------------------------------------------------------------------- */

typedef struct LowerJob {
	Arena *a;
	TirFunc *f;
	TargetDesc t;
	TpFunc *out;
} LowerJob;

static void lower_job(void *p)
{
	LowerJob *j = p;
	CompileOptions o = {.num_warps = j->f->num_warps, .num_stages = 1};
	DiagSink d;
	diag_init(&d);
	j->out = lower_func(j->a, &d, j->f, &j->t, &o);
	diag_free(&d);
}

static TpFunc *do_lower(B *b, const char *target, const char *name)
{
	LowerJob j = {b->a, b->f, {0}, NULL};
	/* "cuda-emu-nofp8": the emulation of a GPU without fp8 mma (sm_80) */
	bool nofp8 = !strcmp(target, "cuda-emu-nofp8");
	target_from_name(nofp8 ? "cuda-emu" : target, &j.t);
	if (nofp8)
		j.t.has_mma_fp8 = false;
	char *msg = NULL;
	if (ice_protect(lower_job, &j, &msg)) {
		CHECK(0, "%s: lowering failed: %s", name, msg);
		free(msg);
		return NULL;
	}
	if (getenv("TEST_LOWER_DUMP")) {
		StrBuf sb = {0};
		tp_print(j.out, &sb);
		fprintf(stderr, "---- %s\n%s", name, sb.s);
		sb_free(&sb);
	}
	return j.out;
}

static void check_clean(Interp *I, const char *name)
{
	CHECK(I->races == 0, "%s: %d shared-memory races", name, I->races);
	CHECK(I->oob == 0, "%s: %d out-of-bounds or misaligned accesses", name, I->oob);
	CHECK(I->bad_coalesced == 0, "%s: %d coalesced accesses not consecutive", name,
	      I->bad_coalesced);
}

/* Runs a kernel f(in, out) that copies n f32 values through some layout
 * change, with in[i] = fill(i); checks every value arrived and every output
 * address was written exactly once, and leaves the interpreter in *I (the
 * caller frees it) for checks of what the copy used. */
static void run_copy(TpFunc *f, const char *name, int n, float (*fill)(int), Interp *I)
{
	float *in = calloc((size_t)n, 4), *out = calloc((size_t)n, 4);
	for (int i = 0; i < n; i++)
		in[i] = fill(i);
	void *args[2] = {&in, &out};
	interp_init(I, f, args);
	interp_region(I, in, n, 4);
	interp_region(I, out, n, 4);
	interp_run(I);
	check_clean(I, name);
	int bad = 0, badw = 0;
	for (int i = 0; i < n; i++) {
		bad += out[i] != in[i];
		badw += I->regions[1].writes[i] != 1;
	}
	CHECK(bad == 0, "%s: %d wrong values", name, bad);
	CHECK(badw == 0, "%s: %d addresses not written exactly once", name, badw);
	free(in);
	free(out);
}

static float fill_quarter(int i) { return (float)i + 0.25f; }
/* small integers: exact in f16 and bf16 */
static float fill_small(int i) { return (float)((i * 37) % 251 - 125); }

/* ---- tests ------------------------------------------------------------------------------- */

/* Region of a two-value reduce/scan combining affine maps x -> a*x + b:
 * (a1, b1) then (a2, b2) gives (a1*a2, b1*a2 + b2), associative but not
 * commutative. */
static void affine_combine(B *b, TirBlock *r, Type st)
{
	ValId a1 = tir_block_add_arg(b->f, r, st), b1 = tir_block_add_arg(b->f, r, st);
	ValId a2 = tir_block_add_arg(b->f, r, st), b2 = tir_block_add_arg(b->f, r, st);
	TirBlock *save = b->b;
	b->b = r;
	ValId y[2];
	y[0] = op2(b, TOP_MUL, a1, a2, st, NULL);
	y[1] = op2(b, TOP_ADD, op2(b, TOP_MUL, b1, a2, st, NULL), b2, st, NULL);
	opn(b, TOP_YIELD, y, 2, type_scalar(DT_VOID), NULL);
	b->b = save;
}


static void blocked(LinearLayout *l, int rank, const int32_t *shape, const int32_t *spt,
                    const int32_t *tpw, const int32_t *wpc, const int32_t *order)
{
	ll_blocked(l, rank, shape, spt, tpw, wpc, order);
}

/* out[i] = in[i] * 2 + 1 for i < n, 1-D tile of `size` with a layout that
 * holds copies (size < threads) or several registers per thread. */
static void test_elementwise_1d(const char *target, int num_warps, int size, int spt, int vec,
                                int n)
{
	Arena a;
	arena_init(&a);
	B b;
	b_init(&b, &a, num_warps);
	TargetDesc td;
	target_from_name(target, &td);
	int32_t shape[1] = {size}, s1[1] = {spt}, tpw[1] = {td.lanes_per_warp},
	        wpc[1] = {num_warps}, ord[1] = {0};
	LinearLayout l0;
	blocked(&l0, 1, shape, s1, tpw, wpc, ord);
	LinearLayout *l = lay(&b, &l0);
	ValId pin = param(&b, type_ptr(DT_F32)), pout = param(&b, type_ptr(DT_F32));
	ValId pn = param(&b, type_scalar(DT_I32));
	ValId idx = arange(&b, size, l);
	ValId nsp = op1(&b, TOP_SPLAT, pn, tile_t(DT_I32, 1, shape), l);
	ValId mask = op2(&b, TOP_CMP, idx, nsp, tile_t(DT_I1, 1, shape), l);
	tir_val(b.f, mask)->def->attr.pred = PRED_LT;
	ValId x = load(&b, ptrs(&b, pin, idx, DT_F32, 1, shape, l), mask, DT_F32, 1, shape, l, vec);
	Type ft = tile_t(DT_F32, 1, shape);
	TirOp *c2 = opn(&b, TOP_CONST, NULL, 0, ft, l);
	c2->attr.f = 2.0;
	TirOp *c1 = opn(&b, TOP_CONST, NULL, 0, ft, l);
	c1->attr.f = 1.0;
	ValId y =
	        op2(&b, TOP_ADD, op2(&b, TOP_MUL, x, c2->results[0], ft, l), c1->results[0], ft, l);
	store(&b, ptrs(&b, pout, idx, DT_F32, 1, shape, l), y, mask, vec);
	ret(&b);
	char name[128];
	snprintf(name, sizeof name, "elementwise_1d(%s, warps %d, size %d, spt %d, vec %d)", target,
	         num_warps, size, spt, vec);
	TpFunc *f = do_lower(&b, target, name);
	if (f) {
		float *in = calloc((size_t)size, sizeof(float)),
		      *out = calloc((size_t)size, sizeof(float));
		for (int i = 0; i < size; i++) {
			in[i] = (float)i * 0.5f - 3;
			out[i] = -99;
		}
		void *args[3] = {&in, &out, &n};
		Interp I;
		interp_init(&I, f, args);
		interp_region(&I, in, size, 4);
		interp_region(&I, out, size, 4);
		interp_run(&I);
		check_clean(&I, name);
		int bad = 0, badw = 0;
		for (int i = 0; i < size; i++) {
			float want = i < n ? in[i] * 2 + 1 : -99;
			if (out[i] != want)
				bad++;
			if (I.regions[1].writes[i] != (i < n ? 1 : 0))
				badw++;
		}
		CHECK(bad == 0, "%s: %d wrong values", name, bad);
		CHECK(badw == 0, "%s: %d addresses not written exactly once", name, badw);
		if (vec > 1 && spt >= vec)
			CHECK(I.n_vec_loads > 0, "%s: no vector load", name);
		/* thread t's group at thread 0's + t * vec: also with one element
		 * per thread (no register bit steps by one element) and with
		 * several register groups per thread */
		if (spt == vec && spt * 4 <= 16 && size % (spt * td.lanes_per_warp * num_warps) == 0)
			CHECK(I.n_coalesced > 0, "%s: load not marked coalesced", name);
		interp_free(&I);
		free(in);
		free(out);
	}
	arena_free(&a);
}

/* 2-D: out[i, j] = in[i, j] + i*1000 + j, with a layout (worked example of
 * linear.h) that broadcasts over lanes on an 8x16 tile. */
static void test_elementwise_2d(const char *target, int num_warps, const int32_t *shape,
                                const int32_t *spt, const int32_t *tpw, const int32_t *wpc,
                                const int32_t *order)
{
	Arena a;
	arena_init(&a);
	B b;
	b_init(&b, &a, num_warps);
	LinearLayout l0;
	blocked(&l0, 2, shape, spt, tpw, wpc, order);
	LinearLayout *l = lay(&b, &l0);
	ValId pin = param(&b, type_ptr(DT_I32)), pout = param(&b, type_ptr(DT_I32));
	ValId offs = index2d(&b, l, shape, shape[1], 1);
	ValId x = load(&b, ptrs(&b, pin, offs, DT_I32, 2, shape, l), 0, DT_I32, 2, shape, l, 1);
	ValId ij = index2d(&b, l, shape, 1000, 1);
	Type it = tile_t(DT_I32, 2, shape);
	ValId y = op2(&b, TOP_ADD, x, ij, it, l);
	store(&b, ptrs(&b, pout, offs, DT_I32, 2, shape, l), y, 0, 1);
	ret(&b);
	char name[128];
	snprintf(name, sizeof name, "elementwise_2d(%dx%d, warps %d)", shape[0], shape[1],
	         num_warps);
	TpFunc *f = do_lower(&b, target, name);
	if (f) {
		int n = shape[0] * shape[1];
		int32_t *in = calloc((size_t)n, 4), *out = calloc((size_t)n, 4);
		for (int i = 0; i < n; i++)
			in[i] = i * 7;
		void *args[2] = {&in, &out};
		Interp I;
		interp_init(&I, f, args);
		interp_region(&I, in, n, 4);
		interp_region(&I, out, n, 4);
		interp_run(&I);
		check_clean(&I, name);
		int bad = 0, badw = 0;
		for (int i = 0; i < shape[0]; i++)
			for (int j = 0; j < shape[1]; j++) {
				int e = i * shape[1] + j;
				if (out[e] != in[e] + i * 1000 + j)
					bad++;
				if (I.regions[1].writes[e] != 1)
					badw++;
			}
		CHECK(bad == 0, "%s: %d wrong values", name, bad);
		CHECK(badw == 0, "%s: %d addresses not written exactly once", name, badw);
		interp_free(&I);
		free(in);
		free(out);
	}
	arena_free(&a);
}

/* Reduce a [M, N] int tile along `axis` with `kind` (ADD or MAX). */
static void test_reduce(const char *name, int num_warps, const int32_t *shape,
                        const LinearLayout *l0, int axis, TirOpKind kind)
{
	Arena a;
	arena_init(&a);
	B b;
	b_init(&b, &a, num_warps);
	LinearLayout *l = lay(&b, l0);
	ValId pin = param(&b, type_ptr(DT_I32)), pout = param(&b, type_ptr(DT_I32));
	ValId offs = index2d(&b, l, shape, shape[1], 1);
	ValId x = load(&b, ptrs(&b, pin, offs, DT_I32, 2, shape, l), 0, DT_I32, 2, shape, l, 1);
	LinearLayout sl0;
	ll_slice(&sl0, l, axis);
	LinearLayout *sl = lay(&b, &sl0);
	int32_t rs[1] = {shape[1 - axis]};
	TirOp *red = opn(&b, TOP_REDUCE, &x, 1, tile_t(DT_I32, 1, rs), sl);
	red->attr.axis = axis;
	add_combine(&b, red, 1, type_scalar(DT_I32), kind);
	ValId ri = arange(&b, rs[0], sl);
	store(&b, ptrs(&b, pout, ri, DT_I32, 1, rs, sl), red->results[0], 0, 1);
	/* and the full reduction of the row/column results to a scalar */
	TirOp *all = opn(&b, TOP_REDUCE, &red->results[0], 1, type_scalar(DT_I32), NULL);
	all->attr.axis = 0;
	add_combine(&b, all, 1, type_scalar(DT_I32), kind);
	ValId p1 = param(&b, type_ptr(DT_I32));
	store(&b, p1, all->results[0], 0, 1);
	ret(&b);
	TpFunc *f = do_lower(&b, "cuda-emu", name);
	if (f) {
		int n = shape[0] * shape[1];
		int32_t *in = calloc((size_t)n, 4), *out = calloc((size_t)rs[0], 4), tot = 0;
		for (int i = 0; i < n; i++)
			in[i] = (i * 37 + 11) % 101 - 50;
		void *args[3] = {&in, &out, &(int32_t *){&tot}};
		int32_t *totp = &tot;
		args[2] = &totp;
		Interp I;
		interp_init(&I, f, args);
		interp_region(&I, in, n, 4);
		interp_region(&I, out, rs[0], 4);
		interp_region(&I, &tot, 1, 4);
		interp_run(&I);
		check_clean(&I, name);
		int bad = 0, badw = 0;
		int32_t want_all = kind == TOP_ADD ? 0 : INT32_MIN;
		for (int k = 0; k < rs[0]; k++) {
			int32_t acc = kind == TOP_ADD ? 0 : INT32_MIN;
			for (int m = 0; m < shape[axis]; m++) {
				int32_t v = axis == 0 ? in[m * shape[1] + k] : in[k * shape[1] + m];
				acc = kind == TOP_ADD ? acc + v : (v > acc ? v : acc);
			}
			want_all = kind == TOP_ADD ? want_all + acc
			                           : (acc > want_all ? acc : want_all);
			if (out[k] != acc)
				bad++;
			if (I.regions[1].writes[k] != 1)
				badw++;
		}
		CHECK(bad == 0, "%s: %d wrong results", name, bad);
		CHECK(badw == 0, "%s: %d results not written exactly once", name, badw);
		CHECK(tot == want_all, "%s: scalar %d, want %d", name, tot, want_all);
		CHECK(I.regions[2].writes[0] == 1, "%s: scalar written %d times", name,
		      I.regions[2].writes[0]);
		interp_free(&I);
		free(in);
		free(out);
	}
	arena_free(&a);
}

/* 1-D scans of a linear recurrence (a non-commutative associative combine):
 * (a1, b1) . (a2, b2) = (a1 * a2, b1 * a2 + b2), plus a plain cumsum. */
static void test_scan(const char *name, const char *target, int num_warps, int size,
                      const LinearLayout *l0, bool rev)
{
	Arena a;
	arena_init(&a);
	B b;
	b_init(&b, &a, num_warps);
	LinearLayout *l = lay(&b, l0);
	int32_t shape[1] = {size};
	Type it = tile_t(DT_I32, 1, shape), st = type_scalar(DT_I32);
	ValId pa = param(&b, type_ptr(DT_I32)), pb = param(&b, type_ptr(DT_I32));
	ValId poa = param(&b, type_ptr(DT_I32)), pob = param(&b, type_ptr(DT_I32));
	ValId pc = param(&b, type_ptr(DT_I32));
	ValId idx = arange(&b, size, l);
	ValId xa = load(&b, ptrs(&b, pa, idx, DT_I32, 1, shape, l), 0, DT_I32, 1, shape, l, 1);
	ValId xb = load(&b, ptrs(&b, pb, idx, DT_I32, 1, shape, l), 0, DT_I32, 1, shape, l, 1);
	ValId in[2] = {xa, xb};
	Type rts[2] = {it, it};
	TirOp *sc = tir_op(b.f, b.b, TOP_SCAN, noloc, in, 2, rts, 2);
	tir_val(b.f, sc->results[0])->layout = l;
	tir_val(b.f, sc->results[1])->layout = l;
	sc->attr.axis = 0;
	sc->attr.flags = rev ? TIR_REVERSE : 0;
	tir_op_add_regions(b.f, sc, 1);
	affine_combine(&b, &sc->regions[0], st);
	store(&b, ptrs(&b, poa, idx, DT_I32, 1, shape, l), sc->results[0], 0, 1);
	store(&b, ptrs(&b, pob, idx, DT_I32, 1, shape, l), sc->results[1], 0, 1);
	TirOp *cs = opn(&b, TOP_SCAN, &xb, 1, it, l);
	cs->attr.axis = 0;
	cs->attr.flags = rev ? TIR_REVERSE : 0;
	add_combine(&b, cs, 1, st, TOP_ADD);
	store(&b, ptrs(&b, pc, idx, DT_I32, 1, shape, l), cs->results[0], 0, 1);
	ret(&b);
	TpFunc *f = do_lower(&b, target, name);
	if (f) {
		int32_t *A = calloc((size_t)size, 4), *Bv = calloc((size_t)size, 4);
		int32_t *OA = calloc((size_t)size, 4), *OB = calloc((size_t)size, 4);
		int32_t *C = calloc((size_t)size, 4);
		for (int i = 0; i < size; i++) {
			A[i] = (i * 5 + 3) % 7 - 3;
			Bv[i] = (i * 11 + 1) % 13 - 6;
		}
		void *args[5] = {&A, &Bv, &OA, &OB, &C};
		Interp I;
		interp_init(&I, f, args);
		interp_region(&I, A, size, 4);
		interp_region(&I, Bv, size, 4);
		interp_region(&I, OA, size, 4);
		interp_region(&I, OB, size, 4);
		interp_region(&I, C, size, 4);
		interp_run(&I);
		check_clean(&I, name);
		int bad = 0;
		uint32_t ca = 1, cb = 0, sum = 0;
		for (int s = 0; s < size; s++) {
			int i = rev ? size - 1 - s : s;
			if (s == 0) {
				ca = (uint32_t)A[i];
				cb = (uint32_t)Bv[i];
			} else {
				cb = cb * (uint32_t)A[i] + (uint32_t)Bv[i];
				ca = ca * (uint32_t)A[i];
			}
			sum += (uint32_t)Bv[i];
			if ((uint32_t)OA[i] != ca || (uint32_t)OB[i] != cb || (uint32_t)C[i] != sum)
				bad++;
		}
		CHECK(bad == 0, "%s: %d wrong elements", name, bad);
		interp_free(&I);
		free(A);
		free(Bv);
		free(OA);
		free(OB);
		free(C);
	}
	arena_free(&a);
}

/* Do l's register axis bits lie below its lane axis bits, and those below
 * its warp axis bits? Only then does a reduce keep a non-commutative
 * combine's order (lower_reduce.c; Triton requires commutative ones). */
static bool axis_bits_ordered(const LinearLayout *l)
{
	int32_t top[3] = {0, 0, 0}, low[3] = {INT32_MAX, INT32_MAX, INT32_MAX};
	for (int i = 0; i < l->n_in; i++)
		for (int b = 0; b < l->in_bits[i]; b++) {
			int32_t v = l->basis[i][b][0];
			int k = l->in_dim[i] == LL_REG ? 0 : l->in_dim[i] == LL_LANE ? 1 : 2;
			if (!v)
				continue;
			top[k] = MAXOF(top[k], v);
			low[k] = v < low[k] ? v : low[k];
		}
	return (low[1] == INT32_MAX || top[0] < low[1]) && (low[2] == INT32_MAX || top[0] < low[2]) &&
	       (low[2] == INT32_MAX || top[1] < low[2]);
}

/* A 1-D layout whose nbits coordinate bits go, in a random order, to
 * register, lbits lane and wbits warp bits (lane and warp bits left over
 * replicate). */
static void random_axis_layout(LinearLayout *l, uint32_t *seed, int nbits, int lbits, int wbits)
{
	int regs = MAXOF(0, nbits - lbits - wbits);
	LLInDim who[40];
	int nwho = 0;
	for (int i = 0; i < regs; i++)
		who[nwho++] = LL_REG;
	for (int i = 0; i < lbits; i++)
		who[nwho++] = LL_LANE;
	for (int i = 0; i < wbits; i++)
		who[nwho++] = LL_WARP;
	for (int i = nwho - 1; i > 0; i--) {
		*seed = *seed * 1103515245u + 12345u;
		int k = (int)((*seed >> 16) % (uint32_t)(i + 1));
		LLInDim t = who[i];
		who[i] = who[k];
		who[k] = t;
	}
	ll_init_hw(l, 1);
	for (int i = 0, bit = 0; i < nwho; i++) {
		int32_t v[1] = {bit < nbits ? 1 << bit : 0};
		ll_push_basis(l, who[i], v);
		if (bit < nbits)
			bit++;
	}
}

/* 1-D REDUCE of the linear recurrence above (non-commutative, associative)
 * to a scalar: the in-thread pairwise tree must keep the lower-coordinate
 * partial on the left, so the result is the left-to-right fold. */
static void test_reduce_nc(const char *name, const char *target, int num_warps, int size,
                           const LinearLayout *l0, bool ordered)
{
	Arena a;
	arena_init(&a);
	B b;
	b_init(&b, &a, num_warps);
	LinearLayout *l = lay(&b, l0);
	int32_t shape[1] = {size};
	Type st = type_scalar(DT_I32);
	ValId pa = param(&b, type_ptr(DT_I32)), pb = param(&b, type_ptr(DT_I32));
	ValId pout = param(&b, type_ptr(DT_I32)), pout2 = param(&b, type_ptr(DT_I32));
	ValId idx = arange(&b, size, l);
	ValId xa = load(&b, ptrs(&b, pa, idx, DT_I32, 1, shape, l), 0, DT_I32, 1, shape, l, 1);
	ValId xb = load(&b, ptrs(&b, pb, idx, DT_I32, 1, shape, l), 0, DT_I32, 1, shape, l, 1);
	ValId in[2] = {xa, xb};
	Type rts[2] = {st, st};
	TirOp *rd = tir_op(b.f, b.b, TOP_REDUCE, noloc, in, 2, rts, 2);
	rd->attr.axis = 0;
	tir_op_add_regions(b.f, rd, 1);
	affine_combine(&b, &rd->regions[0], st);
	store(&b, pout, rd->results[0], 0, 1);
	store(&b, pout2, rd->results[1], 0, 1);
	ret(&b);
	TpFunc *f = do_lower(&b, target, name);
	if (f) {
		int32_t *A = calloc((size_t)size, 4), *Bv = calloc((size_t)size, 4);
		int32_t out[2] = {0, 0};
		for (int i = 0; i < size; i++) {
			A[i] = (i * 5 + 3) % 7 - 3;
			if (A[i] == 0)
				A[i] = 2;
			Bv[i] = (i * 11 + 1) % 13 - 6;
		}
		int32_t *O = out, *O2 = out + 1;
		void *args[4] = {&A, &Bv, &O, &O2};
		Interp I;
		interp_init(&I, f, args);
		interp_region(&I, A, size, 4);
		interp_region(&I, Bv, size, 4);
		interp_region(&I, out, 1, 4);
		interp_region(&I, out + 1, 1, 4);
		interp_run(&I);
		check_clean(&I, name);
		uint32_t ca = (uint32_t)A[0], cb = (uint32_t)Bv[0];
		for (int i = 1; i < size; i++) {
			cb = cb * (uint32_t)A[i] + (uint32_t)Bv[i];
			ca = ca * (uint32_t)A[i];
		}
		/* the products commute: exact in any order; the sums only in order */
		CHECK((uint32_t)out[0] == ca && (!ordered || (uint32_t)out[1] == cb),
		      "%s: got (%d, %d), want (%d, %d)", name, out[0], out[1], (int32_t)ca,
		      (int32_t)cb);
		interp_free(&I);
		free(A);
		free(Bv);
	}
	arena_free(&a);
}

/* The kernel of the conversion tests, lowered for `target` (cuda-emu when
 * NULL): an [M, N] f32 tile loaded with s0, converted to d0, stored with d0.
 * *sl / *dl: the two layouts as the function holds them. */
static TpFunc *lower_convert_copy_on(B *b, const char *target, const char *name,
                                     const int32_t *shape, const LinearLayout *s0,
                                     const LinearLayout *d0, LinearLayout **slp,
                                     LinearLayout **dlp)
{
	LinearLayout *sl = lay(b, s0), *dl = lay(b, d0);
	ValId pin = param(b, type_ptr(DT_F32)), pout = param(b, type_ptr(DT_F32));
	ValId offs = index2d(b, sl, shape, shape[1], 1);
	ValId x = load(b, ptrs(b, pin, offs, DT_F32, 2, shape, sl), 0, DT_F32, 2, shape, sl, 1);
	ValId y = op1(b, TOP_CONVERT_LAYOUT, x, tile_t(DT_F32, 2, shape), dl);
	ValId offd = index2d(b, dl, shape, shape[1], 1);
	store(b, ptrs(b, pout, offd, DT_F32, 2, shape, dl), y, 0, 1);
	ret(b);
	*slp = sl;
	*dlp = dl;
	return do_lower(b, target ? target : "cuda-emu", name);
}

static TpFunc *lower_convert_copy(B *b, const char *name, const int32_t *shape,
                                  const LinearLayout *s0, const LinearLayout *d0,
                                  LinearLayout **slp, LinearLayout **dlp)
{
	return lower_convert_copy_on(b, NULL, name, shape, s0, d0, slp, dlp);
}

/* On the native CPU (8 lanes, threads one SIMD vector) a conversion through
 * shared memory takes the writer's order: every store is one vector over the
 * threads (TP_COALESCED, which the interpreter checks), the reads gather. */
static void test_convert_cpu(const char *name, int num_warps, const int32_t *shape,
                             const LinearLayout *s0, const LinearLayout *d0)
{
	Arena a;
	arena_init(&a);
	B b;
	b_init(&b, &a, num_warps);
	LinearLayout *sl, *dl;
	TpFunc *f = lower_convert_copy_on(&b, "cpu", name, shape, s0, d0, &sl, &dl);
	if (f) {
		Interp I;
		run_copy(f, name, shape[0] * shape[1], fill_quarter, &I);
		int stores = 0, coal = 0;
		for (int i = 0; i < f->body->nops; i++) {
			const TpOp *op = f->body->ops[i];
			stores += op->kind == TP_SMEM_STORE;
			coal += op->kind == TP_SMEM_STORE && (op->attr.flags & TP_COALESCED);
		}
		CHECK(stores > 0 && coal == stores, "%s: %d of %d shared stores coalesced", name,
		      coal, stores);
		interp_free(&I);
	}
	arena_free(&a);
}

/* convert_layout src -> dst on a [M, N] f32 tile: load with src, convert,
 * store with dst. Checks the values, the mechanism used and (for shared
 * memory) that both sides of the chosen buffer are conflict-free. */
static void test_convert(const char *name, int num_warps, const int32_t *shape,
                         const LinearLayout *s0, const LinearLayout *d0,
                         int want /* 0 regs, 1 shfl, 2 smem */)
{
	Arena a;
	arena_init(&a);
	B b;
	b_init(&b, &a, num_warps);
	LinearLayout *sl, *dl;
	TpFunc *f = lower_convert_copy(&b, name, shape, s0, d0, &sl, &dl);
	if (f) {
		Interp I;
		run_copy(f, name, shape[0] * shape[1], fill_quarter, &I);
		if (want == 0)
			CHECK(I.n_shfl == 0 && I.n_smem_ops == 0,
			      "%s: expected a register permutation", name);
		if (want == 1)
			CHECK(I.n_shfl > 0 && I.n_smem_ops == 0, "%s: expected shuffles", name);
		if (want == 2) {
			/* write, barrier, read: the trailing barrier guards nothing
			 * before the kernel's end (tp_barrier.c) */
			CHECK(I.n_smem_ops > 0 && I.n_barriers >= 1, "%s: expected shared memory",
			      name);
			LinearLayout m;
			PaddedShared pad;
			ll_choose_conversion_smem(sl, dl, 4, &m, &pad);
			int cw = ll_bank_conflicts(sl, &m, &pad, 4),
			    cr = ll_bank_conflicts(dl, &m, &pad, 4);
			CHECK(cw == 1 && cr == 1, "%s: bank conflicts write %d read %d", name, cw,
			      cr);
		}
		interp_free(&I);
	}
	arena_free(&a);
}

/* A conversion bigger than the scratch cap (64 KB) goes through shared memory
 * in `chunks` pieces: every value arrives, the barriers pair up per chunk
 * (but the last chunk's trailing one, which guards nothing: tp_barrier.c),
 * the interpreter sees no race between one chunk's reads and the next one's
 * writes, the scratch is one chunk, and each chunk's accesses are free of
 * bank conflicts. chunks = 0: whatever the plan says (random layouts). */
static void test_convert_chunked(const char *name, int num_warps, const int32_t *shape,
                                 const LinearLayout *s0, const LinearLayout *d0, int chunks)
{
	Arena a;
	arena_init(&a);
	B b;
	b_init(&b, &a, num_warps);
	LinearLayout *sl, *dl;
	TpFunc *f = lower_convert_copy(&b, name, shape, s0, d0, &sl, &dl);
	if (f) {
		Interp I;
		run_copy(f, name, shape[0] * shape[1], fill_quarter, &I);
		int64_t whole = (int64_t)shape[0] * shape[1] * 4;
		CvtSmemPlan *p = malloc(sizeof *p);
		ll_plan_conversion_smem(sl, dl, 4, true, 64 * 1024, p);
		int n = 1 << p->nbits;
		CHECK(I.n_barriers == 2 * n - 1 && f->smem_bytes == ll_plan_smem_bytes(p, 4) &&
		      f->smem_bytes * n >= whole,
		      "%s: %d barriers, %d bytes of scratch for %lld in %d chunks", name,
		      I.n_barriers, f->smem_bytes, (long long)whole, n);
		if (chunks > 0) {
			int cw = ll_bank_conflicts(&p->src, &p->smem, &p->pad, 4),
			    cr = ll_bank_conflicts(&p->dst, &p->smem, &p->pad, 4);
			CHECK(n == chunks && f->smem_bytes <= 64 * 1024 && cw == 1 && cr == 1,
			      "%s: %d chunks, bank conflicts write %d read %d", name, n, cw, cr);
		}
		free(p);
		interp_free(&I);
	}
	arena_free(&a);
}

/* A 16-bit tile (f16/bf16, cast from f32) converted s0 -> d0 through shared
 * memory. ldm: 0 = read with smem loads only, 1 = ldmatrix, 2 = ldmatrix.trans
 * (no smem loads then), with worst write + ldmatrix phase wavefronts at most
 * `waves` (2 = both conflict-free). The result is stored with d0; when d0 is
 * injective every register of every thread is stored, so every register is
 * checked. */
static void test_convert16(const char *name, int num_warps, const int32_t *shape,
                           const LinearLayout *s0, const LinearLayout *d0, DType dt, int ldm,
                           int waves)
{
	Arena a;
	arena_init(&a);
	B b;
	b_init(&b, &a, num_warps);
	LinearLayout *sl = lay(&b, s0), *dl = lay(&b, d0);
	ValId pin = param(&b, type_ptr(DT_F32)), pout = param(&b, type_ptr(DT_F32));
	ValId offs = index2d(&b, sl, shape, shape[1], 1);
	ValId x = load(&b, ptrs(&b, pin, offs, DT_F32, 2, shape, sl), 0, DT_F32, 2, shape, sl, 1);
	ValId xh = op1(&b, TOP_CAST, x, tile_t(dt, 2, shape), sl);
	ValId y = op1(&b, TOP_CONVERT_LAYOUT, xh, tile_t(dt, 2, shape), dl);
	ValId yf = op1(&b, TOP_CAST, y, tile_t(DT_F32, 2, shape), dl);
	ValId offd = index2d(&b, dl, shape, shape[1], 1);
	store(&b, ptrs(&b, pout, offd, DT_F32, 2, shape, dl), yf, 0, 1);
	ret(&b);
	TpFunc *f = do_lower(&b, "cuda-emu", name);
	if (f) {
		Interp I;
		run_copy(f, name, shape[0] * shape[1], fill_small, &I);
		int nregs = 1 << dl->in_bits[LL_REG], eb = dtype_bytes(dt);
		int per_x4 = 4 * (4 / eb); /* registers one ldmatrix.x4 fills */
		if (ldm) {
			CHECK(I.n_smem_loads == 0, "%s: %d smem loads besides ldmatrix", name,
			      I.n_smem_loads);
			CHECK(I.n_ldmatrix == (nregs >= per_x4 ? nregs / per_x4 : 1),
			      "%s: %d ldmatrix for %d registers", name, I.n_ldmatrix, nregs);
			CHECK(I.n_ldmatrix_trans == (ldm == 2 ? I.n_ldmatrix : 0),
			      "%s: %d of %d ldmatrix are .trans", name, I.n_ldmatrix_trans,
			      I.n_ldmatrix);
			LinearLayout m;
			PaddedShared pad;
			ll_choose_conversion_smem_ldm(sl, dl, eb, true, &m, &pad);
			int cw = ll_bank_conflicts(sl, &m, &pad, eb),
			    cr = ll_ldmatrix_conflicts(dl, &m, &pad, eb);
			CHECK(cw >= 1 && cr >= 1 && cw + cr <= waves,
			      "%s: bank conflicts write %d ldmatrix read %d", name, cw, cr);
		} else {
			CHECK(I.n_ldmatrix == 0 && I.n_smem_loads > 0, "%s: %d ldmatrix, %d smem loads",
			      name, I.n_ldmatrix, I.n_smem_loads);
		}
		interp_free(&I);
	}
	arena_free(&a);
}

static void test_convert_ldmatrix(void)
{
	static const DType dts[2] = {DT_F16, DT_BF16};
	int32_t sa[2] = {64, 32}, sb[2] = {32, 64}, row[2] = {1, 0}, col[2] = {0, 1};
	int32_t wm[2] = {4, 1}, wn[2] = {1, 4}, w22[2] = {2, 2};
	int32_t spt_r[2] = {1, 8}, spt_c[2] = {8, 1}, spt1[2] = {1, 1};
	int32_t t84[2] = {8, 4}, t48[2] = {4, 8}, t2_16[2] = {2, 16}, t32_1[2] = {32, 1};
	int32_t w4r[2] = {4, 1}, w4c[2] = {1, 4};
	LinearLayout opa, opb, opa22, a_row, a_col, b_row, b_col, plain;
	ll_mma_operand(&opa, 0, 2, sa, wm, 16);
	ll_mma_operand(&opb, 1, 2, sb, wn, 16);
	ll_mma_operand(&opa22, 0, 2, sa, w22, 16);
	CHECK(ll_is_injective(&opa) && ll_is_injective(&opb), "operand layouts without copies");
	/* 16-byte vectors along the contiguous dim; 8 lanes cover 128 bytes of
	 * it where the dim is that long, so the writes can be conflict-free */
	blocked(&a_row, 2, sa, spt_r, t84, w4r, row);   /* K contiguous */
	blocked(&a_col, 2, sa, spt_c, t84, w4c, col);   /* M contiguous */
	blocked(&b_row, 2, sb, spt_r, t48, w4r, row);   /* N contiguous */
	blocked(&b_col, 2, sb, spt_c, t2_16, w4c, col); /* K contiguous */
	/* lanes down the rows, one element each: no 8x8-matrix structure */
	blocked(&plain, 2, sa, spt1, t32_1, w4c, row);
	for (int i = 0; i < 2; i++) {
		char name[96];
		const char *dn = i ? "bf16" : "f16";
		snprintf(name, sizeof name, "ldmatrix %s: A from K-contiguous", dn);
		test_convert16(name, 4, sa, &a_row, &opa, dts[i], 1, 2);
		snprintf(name, sizeof name, "ldmatrix %s: A from M-contiguous (.trans)", dn);
		test_convert16(name, 4, sa, &a_col, &opa, dts[i], 2, 2);
		snprintf(name, sizeof name, "ldmatrix %s: B from N-contiguous (.trans)", dn);
		test_convert16(name, 4, sb, &b_row, &opb, dts[i], 2, 2);
		/* 64-byte rows written 4 rows x 32 bytes per phase: no swizzle of
		 * the (vec, per_phase, max_phase) family frees both sides */
		snprintf(name, sizeof name, "ldmatrix %s: B from K-contiguous", dn);
		test_convert16(name, 4, sb, &b_col, &opb, dts[i], 1, 3);
		snprintf(name, sizeof name, "ldmatrix %s: A broadcast over warps", dn);
		test_convert16(name, 4, sa, &a_row, &opa22, dts[i], 1, 2);
		snprintf(name, sizeof name, "no ldmatrix %s: lanes down the rows", dn);
		test_convert16(name, 4, sa, &a_row, &plain, dts[i], 0, 0);
	}
	/* 8-bit operands (int8 m16n8k32): A and a K-contiguous B with ldmatrix,
	 * 4 values per word; an N-contiguous B has no byte transpose */
	int32_t s8[2] = {64, 64}, spt16_r[2] = {1, 16}, spt16_c[2] = {16, 1};
	LinearLayout opa8, opb8, a8_row, b8_col, b8_row;
	ll_mma_operand(&opa8, 0, 2, s8, wm, 8);
	ll_mma_operand(&opb8, 1, 2, s8, wn, 8);
	blocked(&a8_row, 2, s8, spt16_r, t84, w4r, row); /* K contiguous */
	blocked(&b8_col, 2, s8, spt16_c, t2_16, w4c, col); /* K contiguous */
	blocked(&b8_row, 2, s8, spt16_r, t84, w4r, row); /* N contiguous */
	test_convert16("ldmatrix int8: A from K-contiguous", 4, s8, &a8_row, &opa8, DT_I8, 1, 2);
	test_convert16("ldmatrix int8: B from K-contiguous", 4, s8, &b8_col, &opb8, DT_I8, 1, 3);
	test_convert16("no ldmatrix int8: B from N-contiguous", 4, s8, &b8_row, &opb8, DT_I8, 0, 0);
	/* 32-bit elements (a tf32 operand): ldmatrix, one value per word */
	LinearLayout ta;
	ll_mma_operand(&ta, 0, 2, sa, wm, 32);
	test_convert("ldmatrix: f32 to tf32 operand", 4, sa, &a_row, &ta, 2);
}

/* C = A @ B + C0 with A [M,K], B [K,N] given layouts; f32, or f16 operands
 * (loaded as f32 and cast) for mma. */
static void test_dot(const char *name, const char *target, int num_warps, int M, int N, int K,
                     const LinearLayout *la0, const LinearLayout *lb0, const LinearLayout *lc0,
                     DType opdt, int prec, bool want_mma)
{
	Arena a;
	arena_init(&a);
	B b;
	b_init(&b, &a, num_warps);
	LinearLayout *la = lay(&b, la0), *lb = lay(&b, lb0), *lc = lay(&b, lc0);
	int32_t sa[2] = {M, K}, sb[2] = {K, N}, sc[2] = {M, N};
	ValId pa = param(&b, type_ptr(DT_F32)), pb = param(&b, type_ptr(DT_F32));
	ValId pc = param(&b, type_ptr(DT_F32)), po = param(&b, type_ptr(DT_F32));
	ValId xa = load(&b, ptrs(&b, pa, index2d(&b, la, sa, K, 1), DT_F32, 2, sa, la), 0, DT_F32,
	                2, sa, la, 1);
	ValId xb = load(&b, ptrs(&b, pb, index2d(&b, lb, sb, N, 1), DT_F32, 2, sb, lb), 0, DT_F32,
	                2, sb, lb, 1);
	ValId oc = index2d(&b, lc, sc, N, 1);
	ValId xc = load(&b, ptrs(&b, pc, oc, DT_F32, 2, sc, lc), 0, DT_F32, 2, sc, lc, 1);
	if (opdt != DT_F32) {
		xa = op1(&b, TOP_CAST, xa, tile_t(opdt, 2, sa), la);
		xb = op1(&b, TOP_CAST, xb, tile_t(opdt, 2, sb), lb);
	}
	ValId in[3] = {xa, xb, xc};
	TirOp *d = opn(&b, TOP_DOT, in, 3, tile_t(DT_F32, 2, sc), lc);
	d->attr.i = prec;
	store(&b, ptrs(&b, po, oc, DT_F32, 2, sc, lc), d->results[0], 0, 1);
	ret(&b);
	TpFunc *f = do_lower(&b, target, name);
	if (f) {
		float *A = calloc((size_t)(M * K), 4), *Bm = calloc((size_t)(K * N), 4);
		float *C = calloc((size_t)(M * N), 4), *O = calloc((size_t)(M * N), 4);
		for (int i = 0; i < M * K; i++)
			A[i] = (float)((i * 7 + 3) % 9 - 4) * 0.5f;
		for (int i = 0; i < K * N; i++)
			Bm[i] = (float)((i * 5 + 1) % 11 - 5) * 0.25f;
		for (int i = 0; i < M * N; i++)
			C[i] = (float)(i % 3);
		void *args[4] = {&A, &Bm, &C, &O};
		Interp I;
		interp_init(&I, f, args);
		interp_region(&I, A, M * K, 4);
		interp_region(&I, Bm, K * N, 4);
		interp_region(&I, C, M * N, 4);
		interp_region(&I, O, M * N, 4);
		interp_run(&I);
		check_clean(&I, name);
		int bad = 0, badw = 0, nmma = 0;
		for (int i = 0; i < M; i++)
			for (int j = 0; j < N; j++) {
				double s = C[i * N + j];
				for (int k = 0; k < K; k++)
					s += (double)A[i * K + k] * Bm[k * N + j];
				bad += fabs(s - O[i * N + j]) > 1e-3;
				badw += I.regions[3].writes[i * N + j] != 1;
			}
		for (int i = 0; i < f->body->nops; i++)
			nmma += f->body->ops[i]->kind == TP_MMA;
		CHECK(bad == 0, "%s: %d wrong values", name, bad);
		CHECK(badw == 0, "%s: %d addresses not written exactly once", name, badw);
		int kstep = opdt == DT_F32 ? 8 : 16;
		CHECK(want_mma ? nmma == (M / 16) * (N / 8) * (K / kstep) / num_warps : nmma == 0,
		      "%s: %d mma ops", name, nmma);
		if (!want_mma) { /* FMA: K is a loop, not unrolled into registers */
			int nfor = 0, nfma = 0;
			for (int i = 0; i < f->body->nops; i++) {
				nfor += f->body->ops[i]->kind == TP_FOR;
				nfma += f->body->ops[i]->kind == TP_FMA;
			}
			/* the CPU takes the accumulators a few vector registers'
			 * worth at a time (lower_dot.c fma_group), one loop each */
			bool cpu = !strcmp(target, "cpu");
			CHECK(K <= 8 || ((cpu ? nfor >= 1 : nfor == 1) && nfma == 0),
			      "%s: %d for, %d top-level fma", name, nfor, nfma);
		}
		interp_free(&I);
		free(A);
		free(Bm);
		free(C);
		free(O);
	}
	arena_free(&a);
}

/* FMA operand layouts for an accumulator layout C: A keeps C's m
 * coordinates (n zeroed), with K in registers; B likewise with n. */
static void fma_operand(LinearLayout *out, const LinearLayout *c, int op_idx, int K)
{
	LinearLayout r;
	ll_init_hw(&r, 2);
	int keep = op_idx == 0 ? 0 : 1, kdim = op_idx == 0 ? 1 : 0;
	for (int b = 0; (1 << b) < K; b++) {
		int32_t v[LL_MAX_OUT] = {0};
		v[kdim] = 1 << b;
		ll_push_basis(&r, LL_REG, v);
	}
	for (int s = 0; s < c->n_in; s++)
		for (int b = 0; b < c->in_bits[s]; b++) {
			int32_t v[LL_MAX_OUT] = {0};
			v[keep] = c->basis[s][b][keep];
			ll_push_basis(&r, (LLInDim)c->in_dim[s], v);
		}
	r.out_bits[keep] = c->out_bits[keep];
	r.out_bits[kdim] = 0;
	while ((1 << r.out_bits[kdim]) < K)
		r.out_bits[kdim]++;
	*out = r;
}

/* A loop carrying a tile: acc += x, 3 times, then stored; also an if. */
static void test_control(void)
{
	Arena a;
	arena_init(&a);
	B b;
	b_init(&b, &a, 2);
	int32_t shape[1] = {128}, spt[1] = {2}, tpw[1] = {32}, wpc[1] = {2}, ord[1] = {0};
	LinearLayout l0;
	blocked(&l0, 1, shape, spt, tpw, wpc, ord);
	LinearLayout *l = lay(&b, &l0);
	Type it = tile_t(DT_I32, 1, shape), st = type_scalar(DT_I32);
	ValId pout = param(&b, type_ptr(DT_I32));
	ValId idx = arange(&b, 128, l);
	ValId zero = cint(&b, it, 0, l);
	ValId lb = cint(&b, st, 0, NULL), ub = cint(&b, st, 3, NULL), step = cint(&b, st, 1, NULL);
	ValId in[4] = {lb, ub, step, zero};
	TirOp *fo = opn(&b, TOP_FOR, in, 4, it, l);
	tir_op_add_regions(b.f, fo, 1);
	TirBlock *body = &fo->regions[0];
	ValId iv = tir_block_add_arg(b.f, body, st);
	ValId acc = tir_block_add_arg(b.f, body, it);
	tir_val(b.f, acc)->layout = l;
	TirBlock *save = b.b;
	b.b = body;
	ValId ivs = op1(&b, TOP_SPLAT, iv, it, l);
	ValId t = op2(&b, TOP_ADD, acc, op2(&b, TOP_ADD, idx, ivs, it, l), it, l);
	opn(&b, TOP_YIELD, &t, 1, type_scalar(DT_VOID), NULL);
	b.b = save;
	store(&b, ptrs(&b, pout, idx, DT_I32, 1, shape, l), fo->results[0], 0, 1);
	ret(&b);
	TpFunc *f = do_lower(&b, "cuda-emu", "control");
	if (f) {
		int32_t out[128];
		int32_t *op = out;
		void *args[1] = {&op};
		Interp I;
		interp_init(&I, f, args);
		interp_region(&I, out, 128, 4);
		interp_run(&I);
		int bad = 0;
		for (int i = 0; i < 128; i++)
			bad += out[i] != 3 * i + 3;
		CHECK(bad == 0, "control: %d wrong values", bad);
		StrBuf sb = {0};
		tp_print(f, &sb);
		CHECK(strstr(sb.s, "for ") != NULL && strstr(sb.s, "lane_id") != NULL,
		      "control: printer output lacks ops");
		StrBuf sb2 = {0};
		tp_print(f, &sb2);
		CHECK(!strcmp(sb.s, sb2.s), "control: printer is not deterministic");
		sb_free(&sb);
		sb_free(&sb2);
		interp_free(&I);
	}
	arena_free(&a);
}

/* Atomic add on a tile that holds copies (each element must be added once)
 * and on a scalar (thread 0 only; everyone sees the old value). */
static void test_atomics(void)
{
	Arena a;
	arena_init(&a);
	B b;
	b_init(&b, &a, 4);
	int32_t shape[1] = {64}, spt[1] = {1}, tpw[1] = {32}, wpc[1] = {4}, ord[1] = {0};
	LinearLayout l0;
	blocked(&l0, 1, shape, spt, tpw, wpc, ord);
	LinearLayout *l = lay(&b, &l0);
	Type it = tile_t(DT_I32, 1, shape), st = type_scalar(DT_I32);
	ValId pcnt = param(&b, type_ptr(DT_I32)), pold = param(&b, type_ptr(DT_I32));
	ValId pscal = param(&b, type_ptr(DT_I32)), pso = param(&b, type_ptr(DT_I32));
	ValId idx = arange(&b, 64, l);
	ValId bucket = op2(&b, TOP_REM, idx, cint(&b, it, 8, l), it, l);
	ValId one = cint(&b, it, 1, l);
	ValId in[3] = {ptrs(&b, pcnt, bucket, DT_I32, 1, shape, l), one, 0};
	TirOp *at = opn(&b, TOP_ATOMIC, in, 2, it, l);
	at->attr.atomic = ATOM_ADD;
	store(&b, ptrs(&b, pold, idx, DT_I32, 1, shape, l), at->results[0], 0, 1);
	ValId sin[2] = {pscal, cint(&b, st, 5, NULL)};
	TirOp *sat = opn(&b, TOP_ATOMIC, sin, 2, st, NULL);
	sat->attr.atomic = ATOM_ADD;
	/* old + 0 per element, as a tile, to see every thread got it */
	ValId sp = op1(&b, TOP_SPLAT, sat->results[0], it, l);
	store(&b, ptrs(&b, pso, idx, DT_I32, 1, shape, l), sp, 0, 1);
	ret(&b);
	TpFunc *f = do_lower(&b, "cuda-emu", "atomics");
	if (f) {
		/* the scalar (thread 0's) acq_rel atomic waits for every thread's
		 * earlier memory ops: the last memory op before it is a barrier */
		const TpBlock *eb = f->body;
		int last = -1;
		for (int i = 0; i < eb->nops; i++)
			if (eb->ops[i]->kind == TP_ATOMIC)
				last = i;
		int j = last - 1;
		while (j >= 0 && !(tp_op_flags((TpOpKind)eb->ops[j]->kind) & TF_MEM))
			j--;
		CHECK(last > 0 && j >= 0 && eb->ops[j]->kind == TP_BARRIER,
		      "atomics: no barrier before the scalar release (%s)", j >= 0 ? tp_op_name((TpOpKind)eb->ops[j]->kind) : "-");
		int32_t cnt[8] = {0}, old[64], scal = 100, so[64];
		int32_t *p0 = cnt, *p1 = old, *p2 = &scal, *p3 = so;
		void *args[4] = {&p0, &p1, &p2, &p3};
		Interp I;
		interp_init(&I, f, args);
		interp_region(&I, cnt, 8, 4);
		interp_region(&I, old, 64, 4);
		interp_region(&I, &scal, 1, 4);
		interp_region(&I, so, 64, 4);
		interp_run(&I);
		check_clean(&I, "atomics");
		int bad = 0;
		for (int k = 0; k < 8; k++) {
			bad += cnt[k] != 8;
			int seen = 0;
			for (int i = k; i < 64; i += 8)
				if (old[i] >= 0 && old[i] < 8)
					seen |= 1 << old[i];
			bad += seen != 0xff;
		}
		CHECK(bad == 0, "atomics: tile atomic counts/old values wrong (%d)", bad);
		CHECK(scal == 105, "atomics: scalar atomic applied %d times", (scal - 100) / 5);
		int bads = 0;
		for (int i = 0; i < 64; i++)
			bads += so[i] != 100;
		CHECK(bads == 0, "atomics: %d threads did not see the scalar's old value", bads);
		interp_free(&I);
	}
	arena_free(&a);
}

/* if / while with tiles carried through. */
static void test_if_while(void)
{
	Arena a;
	arena_init(&a);
	B b;
	b_init(&b, &a, 1);
	int32_t shape[1] = {32}, spt[1] = {1}, tpw[1] = {32}, wpc[1] = {1}, ord[1] = {0};
	LinearLayout l0;
	blocked(&l0, 1, shape, spt, tpw, wpc, ord);
	LinearLayout *l = lay(&b, &l0);
	Type it = tile_t(DT_I32, 1, shape), st = type_scalar(DT_I32), bt = type_scalar(DT_I1);
	ValId pout = param(&b, type_ptr(DT_I32)), pn = param(&b, type_ptr(DT_I32));
	(void)pn;
	ValId idx = arange(&b, 32, l);
	/* while (i < 4) { x = x + idx; i = i + 1 } */
	ValId i0 = cint(&b, st, 0, NULL);
	ValId win[2] = {i0, idx};
	Type wrt[2] = {st, it};
	TirOp *w = tir_op(b.f, b.b, TOP_WHILE, noloc, win, 2, wrt, 2);
	tir_val(b.f, w->results[1])->layout = l;
	tir_op_add_regions(b.f, w, 2);
	TirBlock *save = b.b;
	{
		TirBlock *bf = &w->regions[0];
		ValId ia = tir_block_add_arg(b.f, bf, st), xa = tir_block_add_arg(b.f, bf, it);
		tir_val(b.f, xa)->layout = l;
		b.b = bf;
		ValId c = op2(&b, TOP_CMP, ia, cint(&b, st, 4, NULL), bt, NULL);
		tir_val(b.f, c)->def->attr.pred = PRED_LT;
		ValId cin[3] = {c, ia, xa};
		opn(&b, TOP_CONDITION, cin, 3, type_scalar(DT_VOID), NULL);
		TirBlock *af = &w->regions[1];
		ValId ib = tir_block_add_arg(b.f, af, st), xb = tir_block_add_arg(b.f, af, it);
		tir_val(b.f, xb)->layout = l;
		b.b = af;
		ValId y[2] = {op2(&b, TOP_ADD, ib, cint(&b, st, 1, NULL), st, NULL),
		              op2(&b, TOP_ADD, xb, idx, it, l)};
		opn(&b, TOP_YIELD, y, 2, type_scalar(DT_VOID), NULL);
	}
	b.b = save;
	/* if (i == 4) r = x * 2 else r = x */
	ValId c = op2(&b, TOP_CMP, w->results[0], cint(&b, st, 4, NULL), bt, NULL);
	TirOp *iff = opn(&b, TOP_IF, &c, 1, it, l);
	tir_op_add_regions(b.f, iff, 2);
	b.b = &iff->regions[0];
	ValId t2 = op2(&b, TOP_MUL, w->results[1], cint(&b, it, 2, l), it, l);
	opn(&b, TOP_YIELD, &t2, 1, type_scalar(DT_VOID), NULL);
	b.b = &iff->regions[1];
	opn(&b, TOP_YIELD, &w->results[1], 1, type_scalar(DT_VOID), NULL);
	b.b = save;
	store(&b, ptrs(&b, pout, idx, DT_I32, 1, shape, l), iff->results[0], 0, 1);
	ret(&b);
	TpFunc *f = do_lower(&b, "cuda-emu", "if/while");
	if (f) {
		int32_t out[32], *p0 = out, dummy = 0, *p1 = &dummy;
		void *args[2] = {&p0, &p1};
		Interp I;
		interp_init(&I, f, args);
		interp_region(&I, out, 32, 4);
		interp_run(&I);
		int bad = 0;
		for (int i = 0; i < 32; i++)
			bad += out[i] != 10 * i;
		CHECK(bad == 0, "if/while: %d wrong values", bad);
		interp_free(&I);
	}
	arena_free(&a);
}

static void verify_job(void *p) { tp_verify(p); }

/* The verifier rejects a use before definition and a uniform result of a
 * varying operand; accepts a well-formed program. */
static void test_verifier(void)
{
	Arena a;
	arena_init(&a);
	TargetDesc t;
	target_from_name("cuda-emu", &t);
	TpFunc *f = tp_func_new(&a, "v", &t, 1);
	Type i32 = type_scalar(DT_I32);
	TpOp *lane = tp_op(f, f->body, TP_LANE_ID, noloc, NULL, 0, &i32, 1);
	TpOp *c = tp_op(f, f->body, TP_CONST, noloc, NULL, 0, &i32, 1);
	TpVal in[2] = {lane->results[0], c->results[0]};
	TpOp *add = tp_op(f, f->body, TP_ADD, noloc, in, 2, &i32, 1);
	CHECK(!tp_uniform(f, add->results[0]) && tp_uniform(f, c->results[0]), "uniform flags");
	tp_op(f, f->body, TP_RETURN, noloc, NULL, 0, NULL, 0);
	char *msg = NULL;
	CHECK(ice_protect(verify_job, f, &msg) == 0, "good program rejected: %s", msg ? msg : "");
	free(msg);
	f->vals.data[add->results[0]].uniform = true;
	CHECK(ice_protect(verify_job, f, &msg) != 0, "uniform add of lane id accepted");
	free(msg);
	f->vals.data[add->results[0]].uniform = false;
	add->operands[1] = add->results[0]; /* use of itself before it is defined */
	CHECK(ice_protect(verify_job, f, &msg) != 0, "use before definition accepted");
	free(msg);
	arena_free(&a);
}

/* tp_cse_hoist: in `for i: x = lane << 3; y = lane << 3; z = x + i; w = 7 / c`
 * x moves in front of the loop, y merges into it, z (uses i) and the integer
 * division (it may not be speculated) stay; the program still verifies. */
static void test_cse_hoist(void)
{
	Arena a;
	arena_init(&a);
	TargetDesc t;
	target_from_name("cpu", &t);
	TpFunc *f = tp_func_new(&a, "h", &t, 1);
	Type i32 = type_scalar(DT_I32);
	TpVal lane = tp_op(f, f->body, TP_LANE_ID, noloc, NULL, 0, &i32, 1)->results[0];
	TpOp *c3 = tp_op(f, f->body, TP_CONST, noloc, NULL, 0, &i32, 1);
	c3->attr.i = 3;
	TpOp *c0 = tp_op(f, f->body, TP_CONST, noloc, NULL, 0, &i32, 1);
	TpOp *c1 = tp_op(f, f->body, TP_CONST, noloc, NULL, 0, &i32, 1);
	c1->attr.i = 1;
	TpVal lb[3] = {c0->results[0], c3->results[0], c1->results[0]};
	TpOp *loop = tp_op(f, f->body, TP_FOR, noloc, lb, 3, NULL, 0);
	tp_op_add_regions(f, loop, 1);
	TpBlock *body = &loop->regions[0];
	TpVal iv = tp_block_add_arg(f, body, i32, true);
	TpVal sh[2] = {lane, c3->results[0]};
	TpOp *x = tp_op(f, body, TP_SHL, noloc, sh, 2, &i32, 1);
	TpOp *y = tp_op(f, body, TP_SHL, noloc, sh, 2, &i32, 1);
	TpVal zin[2] = {y->results[0], iv};
	TpOp *z = tp_op(f, body, TP_ADD, noloc, zin, 2, &i32, 1);
	TpVal din[2] = {c3->results[0], c1->results[0]};
	TpOp *d = tp_op(f, body, TP_DIV, noloc, din, 2, &i32, 1);
	tp_op(f, body, TP_YIELD, noloc, NULL, 0, NULL, 0);
	tp_op(f, f->body, TP_RETURN, noloc, NULL, 0, NULL, 0);
	tp_cse_hoist(f);
	int at_x = -1, at_loop = -1;
	for (int i = 0; i < f->body->nops; i++) {
		if (f->body->ops[i] == x) at_x = i;
		if (f->body->ops[i] == loop) at_loop = i;
	}
	CHECK(at_x >= 0 && at_x < at_loop, "invariant shl not hoisted in front of the loop (%d, %d)", at_x, at_loop);
	CHECK(body->nops == 3 && body->ops[0] == z && body->ops[1] == d, "loop body: %d ops", body->nops);
	CHECK(z->operands[0] == x->results[0], "duplicate shl not merged");
	char *msg = NULL;
	CHECK(ice_protect(verify_job, f, &msg) == 0, "program rejected after tp_cse_hoist: %s", msg ? msg : "");
	free(msg);
	arena_free(&a);
}

int main(void)
{
	/* elementwise + load/store with warp predication and vectors */
	test_elementwise_1d("cuda-emu", 4, 64, 1, 1, 50);     /* lanes/warps hold copies */
	test_elementwise_1d("cuda-emu", 4, 1024, 4, 4, 1000); /* vectorized */
	test_elementwise_1d("cuda-emu", 2, 512, 8, 4, 512);   /* 2 vector groups per thread */
	test_elementwise_1d("cpu", 4, 16, 1, 1, 16);          /* 8-lane CPU warps, copies */
	test_elementwise_1d("cpu", 1, 64, 8, 8, 60);
	test_elementwise_1d("cpu", 4, 1024, 1, 1, 1000);      /* CPU layout: lanes contiguous */
	test_elementwise_1d("cuda-emu", 4, 256, 1, 1, 200);   /* one element per thread */
	{
		int32_t sh[2] = {8, 16}, spt[2] = {2, 2}, tpw[2] = {8, 4}, wpc[2] = {1, 2},
		        ord[2] = {1, 0};
		test_elementwise_2d("cuda-emu", 2, sh, spt, tpw, wpc, ord);
		int32_t sh2[2] = {32, 64}, spt2[2] = {1, 4}, tpw2[2] = {4, 8}, wpc2[2] = {4, 1};
		test_elementwise_2d("cuda-emu", 4, sh2, spt2, tpw2, wpc2, ord);
		int32_t sh3[2] = {2, 8}, spt3[2] = {1, 1}, tpw3[2] = {4, 8}, wpc3[2] = {2, 2};
		test_elementwise_2d("cuda-emu", 4, sh3, spt3, tpw3, wpc3, ord);
	}
	/* reduce over each axis with several layouts */
	{
		struct {
			int32_t sh[2], spt[2], tpw[2], wpc[2], ord[2];
			int nw;
		} cases[] = {
		        {{32, 64}, {1, 4}, {4, 8}, {4, 1}, {1, 0}, 4}, /* warps along dim 0 */
		        {{32, 64}, {1, 4}, {4, 8}, {1, 4}, {1, 0}, 4}, /* warps along dim 1 */
		        {{16, 16}, {2, 2}, {8, 4}, {2, 2}, {1, 0}, 4}, /* both */
		        {{64, 8}, {4, 1}, {8, 4}, {2, 2}, {0, 1}, 4},  /* column-major */
		        {{4, 8}, {1, 1}, {8, 4}, {2, 2}, {1, 0}, 4}, /* copies in lanes and warps */
		        {{128, 128}, {4, 4}, {8, 4}, {4, 2}, {1, 0}, 8},
		};
		for (size_t c = 0; c < COUNTOF(cases); c++) {
			LinearLayout l;
			blocked(&l, 2, cases[c].sh, cases[c].spt, cases[c].tpw, cases[c].wpc,
			        cases[c].ord);
			for (int axis = 0; axis < 2; axis++)
				for (int k = 0; k < 2; k++) {
					char name[96];
					snprintf(name, sizeof name, "reduce case %zu axis %d %s", c,
					         axis, k ? "max" : "sum");
					test_reduce(name, cases[c].nw, cases[c].sh, &l, axis,
					            k ? TOP_MAX : TOP_ADD);
				}
		}
		/* mma accumulator layout */
		int32_t sh[2] = {32, 32}, w[2] = {2, 2};
		LinearLayout l;
		ll_mma_acc(&l, 2, sh, w);
		test_reduce("reduce mma acc axis 0", 4, sh, &l, 0, TOP_ADD);
		test_reduce("reduce mma acc axis 1", 4, sh, &l, 1, TOP_MAX);
	}
	/* scans: axis bits in registers, lanes, warps, and interleaved */
	{
		struct {
			int size, spt, nw;
		} cases[] = {{16, 16, 1}, {128, 4, 1},   {256, 2, 4},  {1024, 4, 4}, {64, 1, 4},
		             {32, 4, 4},  {8192, 4, 8}, {1024, 1, 8}, {512, 1, 16}, {4096, 2, 16}};
		for (size_t c = 0; c < COUNTOF(cases); c++) {
			int32_t sh[1] = {cases[c].size}, spt[1] = {cases[c].spt}, tpw[1] = {32},
			        wpc[1] = {cases[c].nw}, ord[1] = {0};
			LinearLayout l;
			blocked(&l, 1, sh, spt, tpw, wpc, ord);
			for (int rev = 0; rev < 2; rev++) {
				char name[64];
				snprintf(name, sizeof name, "scan case %zu%s", c,
				         rev ? " reverse" : "");
				test_scan(name, "cuda-emu", cases[c].nw, cases[c].size, &l, rev);
			}
		}
	}
	/* scans and non-commutative reduces over random assignments of the axis
	 * bits to registers, lanes and warps (runs of register bits low,
	 * between, and above lane and warp bits; replicated lanes and warps
	 * where the axis is short), on a GPU (shuffles, shared memory) and on
	 * the CPU (8 lanes; warps exchange by WARP_XOR) */
	{
		uint32_t seed = 12345;
		for (int c = 0; c < 64; c++) {
			bool cpu = c >= 32;
			const char *target = cpu ? "cpu" : "cuda-emu";
			/* up to 16 warps on cuda-emu: runs of 2-4 warp bits are
			 * one shared-memory round (lower_scan.c) */
			int lbits = cpu ? 3 : 5, wbits = cpu ? c % 3 + c % 2 : c % 5, nw = 1 << wbits;
			int nbits = 3 + c % 8; /* 8 .. 1024 elements */
			LinearLayout l;
			random_axis_layout(&l, &seed, nbits, lbits, wbits);
			for (int rev = 0; rev < 2; rev++) {
				char name[64];
				snprintf(name, sizeof name, "scan random %d%s", c, rev ? " reverse" : "");
				test_scan(name, target, nw, 1 << nbits, &l, rev);
			}
			char name[64];
			snprintf(name, sizeof name, "reduce nc random %d", c);
			test_reduce_nc(name, target, nw, 1 << nbits, &l, axis_bits_ordered(&l));
		}
	}
	/* non-commutative reduce: 8 (and 16) registers along the axis in each
	 * thread, in register order and with the register bases permuted */
	{
		struct {
			int size, spt, nw;
		} cases[] = {{8, 8, 1}, {256, 8, 1}, {1024, 8, 4}, {512, 16, 1}};
		for (size_t c = 0; c < COUNTOF(cases); c++) {
			int32_t sh[1] = {cases[c].size}, spt[1] = {cases[c].spt}, tpw[1] = {32},
			        wpc[1] = {cases[c].nw}, ord[1] = {0};
			LinearLayout l;
			blocked(&l, 1, sh, spt, tpw, wpc, ord);
			char name[64];
			snprintf(name, sizeof name, "reduce non-commutative case %zu", c);
			test_reduce_nc(name, "cuda-emu", cases[c].nw, cases[c].size, &l, true);
			/* registers 0..2 hold coordinates 4, 1, 2: the tree must
			 * follow axis order, not register order */
			int32_t tmp[LL_MAX_OUT];
			memcpy(tmp, l.basis[LL_REG][0], sizeof tmp);
			memcpy(l.basis[LL_REG][0], l.basis[LL_REG][2], sizeof tmp);
			memcpy(l.basis[LL_REG][2], tmp, sizeof tmp);
			snprintf(name, sizeof name, "reduce non-commutative case %zu permuted", c);
			test_reduce_nc(name, "cuda-emu", cases[c].nw, cases[c].size, &l, true);
		}
	}
	/* convert_layout: registers, shuffles, shared memory */
	{
		int32_t sh[2] = {32, 32}, ord_r[2] = {1, 0}, ord_c[2] = {0, 1};
		int32_t spt[2] = {1, 4}, tpw[2] = {4, 8}, wpc[2] = {4, 1};
		int32_t spt2[2] = {4, 1}, tpw2[2] = {8, 4}, wpc2[2] = {1, 4};
		LinearLayout s, d;
		blocked(&s, 2, sh, spt, tpw, wpc, ord_r);
		blocked(&d, 2, sh, spt2, tpw2, wpc2, ord_c);
		test_convert("convert via shared memory", 4, sh, &s, &d, 2);
		test_convert("convert via shared memory back", 4, sh, &d, &s, 2);
		/* the same on the CPU's 8 lanes: rows <-> columns */
		int32_t tpw_c[2] = {1, 8}, tpw_c2[2] = {8, 1}, one[2] = {1, 1};
		LinearLayout cs, cd;
		blocked(&cs, 2, sh, one, tpw_c, wpc, ord_r);
		blocked(&cd, 2, sh, one, tpw_c2, wpc2, ord_c);
		test_convert_cpu("cpu convert rows to columns", 4, sh, &cs, &cd);
		test_convert_cpu("cpu convert columns to rows", 4, sh, &cd, &cs);
		/* lanes permuted within each warp: shuffles */
		int32_t tpw3[2] = {8, 4};
		int32_t spt3[2] = {2, 2};
		LinearLayout s3, d3;
		blocked(&s3, 2, sh, spt, tpw3, wpc, ord_r);
		blocked(&d3, 2, sh, spt3, tpw, wpc, ord_r);
		test_convert("convert via shuffles", 4, sh, &s3, &d3, 1);
		/* a register bit and a lane bit swap: the source register depends on the lane */
		{
			int32_t sh5[2] = {2, 32};
			LinearLayout s5, d5;
			ll_init_hw(&s5, 2);
			ll_init_hw(&d5, 2);
			int32_t r1[2] = {0, 1}, r2[2] = {0, 2}, l4[2] = {0, 4}, l8[2] = {0, 8},
			        l16[2] = {0, 16}, row[2] = {1, 0};
			ll_push_basis(&s5, LL_REG, r1);
			ll_push_basis(&d5, LL_REG, r2);
			ll_push_basis(&s5, LL_LANE, r2);
			ll_push_basis(&d5, LL_LANE, r1);
			const int32_t *rest[4] = {l4, l8, l16, row};
			for (int i = 0; i < 4; i++) {
				ll_push_basis(&s5, LL_LANE, rest[i]);
				ll_push_basis(&d5, LL_LANE, rest[i]);
			}
			test_convert("convert via shuffles, lane-dependent register", 1, sh5, &s5,
			             &d5, 1);
		}
		/* register order only */
		LinearLayout s4 = s;
		int32_t tmp[LL_MAX_OUT];
		memcpy(tmp, s4.basis[0][0], sizeof tmp);
		memcpy(s4.basis[0][0], s4.basis[0][1], sizeof tmp);
		memcpy(s4.basis[0][1], tmp, sizeof tmp);
		test_convert("convert registers", 4, sh, &s4, &s, 0);
		/* mma accumulator to blocked */
		int32_t w[2] = {2, 2};
		LinearLayout m;
		ll_mma_acc(&m, 2, sh, w);
		test_convert("convert mma -> blocked", 4, sh, &m, &s, 2);
		/* too big for one buffer: 128 KB and 256 KB accumulators (the
		 * epilogue of a 256x256 matmul tile), and two blocked layouts
		 * that both repeat over registers */
		int32_t big[2] = {256, 128}, huge[2] = {256, 256}, w8[2] = {4, 2};
		int32_t bspt[2] = {1, 4}, btpw[2] = {4, 8}, bwpc[2] = {8, 1};
		int32_t cspt[2] = {4, 1}, ctpw[2] = {8, 4}, cwpc[2] = {1, 8};
		LinearLayout mb, bb, cb;
		ll_mma_acc(&mb, 2, big, w8);
		blocked(&bb, 2, big, bspt, btpw, bwpc, ord_r);
		blocked(&cb, 2, big, cspt, ctpw, cwpc, ord_c);
		test_convert_chunked("convert mma -> blocked, 128 KB in chunks", 8, big, &mb, &bb, 2);
		test_convert_chunked("convert row -> column blocked, 128 KB in chunks", 8, big, &bb,
		                     &cb, 2);
		ll_mma_acc(&mb, 2, huge, w8);
		blocked(&bb, 2, huge, bspt, btpw, bwpc, ord_r);
		test_convert_chunked("convert mma -> blocked, 256 KB in chunks", 8, huge, &mb, &bb, 4);
		/* random blocked pairs (replicated lanes/warps and registers included:
		 * 16 is narrower than some layouts' lanes and warps) */
		uint32_t seed = 12345;
		int32_t tall[2] = {2048, 16}, wide[2] = {16, 2048};
		for (int c = 0; c < 36; c++) {
			int32_t *shp = c < 24 ? big : c < 30 ? tall : wide;
			int32_t rs[2], rt[2], rw[2], ro[2], ds[2], dt[2], dw[2], dor[2];
			int nw = 4 << (c & 1);
			int32_t *ps[2] = {rs, ds}, *pt[2] = {rt, dt}, *pw[2] = {rw, dw}, *po[2] = {ro, dor};
			for (int l = 0; l < 2; l++) {
				seed = seed * 1103515245u + 12345u;
				int t0 = (int)(seed >> 16) % 6, w0 = (int)(seed >> 20) % 4;
				int s0 = (int)(seed >> 24) % 4, s1 = (int)(seed >> 27) % 4;
				ps[l][0] = 1 << s0, ps[l][1] = 1 << s1;
				pt[l][0] = 1 << t0, pt[l][1] = 32 >> t0;
				pw[l][0] = 1 << (w0 < (c & 1) + 2 ? w0 : 0);
				pw[l][1] = nw / pw[l][0];
				po[l][0] = (seed >> 30) & 1, po[l][1] = !po[l][0];
			}
			LinearLayout rl, dl2;
			blocked(&rl, 2, shp, rs, rt, rw, ro);
			blocked(&dl2, 2, shp, ds, dt, dw, dor);
			if (ll_conversion_kind(&rl, &dl2) != CVT_SHARED)
				continue;
			char name[80];
			snprintf(name, sizeof name, "convert random blocked pair %d (%dx%d) in chunks", c,
			         shp[0], shp[1]);
			test_convert_chunked(name, nw, shp, &rl, &dl2, 0);
		}
	}
	/* dot: FMA and mma.sync */
	{
		int32_t sc[2] = {16, 16}, spt[2] = {2, 2}, tpw[2] = {4, 8}, wpc[2] = {2, 1},
		        ord[2] = {1, 0};
		LinearLayout c, la, lb;
		blocked(&c, 2, sc, spt, tpw, wpc, ord);
		fma_operand(&la, &c, 0, 8);
		fma_operand(&lb, &c, 1, 8);
		test_dot("dot fma", "cuda-emu", 2, 16, 16, 8, &la, &lb, &c, DT_F32, PREC_IEEE,
		         false);
		/* FMA with the operands in their producers' (load) layouts: staged
		 * through shared memory, k loop (K = 32 > unroll) */
		{
			int32_t sa3[2] = {16, 32}, sb3[2] = {32, 16};
			int32_t spa[2] = {1, 4}, tpa[2] = {4, 8}, wpa[2] = {2, 1};
			int32_t spb[2] = {2, 1}, tpb[2] = {8, 4}, wpb[2] = {1, 2}, ordb[2] = {0, 1};
			LinearLayout pa, pb;
			blocked(&pa, 2, sa3, spa, tpa, wpa, ord);
			blocked(&pb, 2, sb3, spb, tpb, wpb, ordb);
			test_dot("dot fma producer layouts", "cuda-emu", 2, 16, 16, 32, &pa, &pb, &c,
			         DT_F32, PREC_IEEE, false);
			test_dot("dot fma producer layouts f16", "cuda-emu", 2, 16, 16, 32, &pa, &pb,
			         &c, DT_F16, PREC_IEEE, false);
			/* cpu: 8 lanes per warp */
			int32_t tc8[2] = {2, 4}, ta8[2] = {2, 4}, tb8[2] = {4, 2};
			LinearLayout c8, pa8, pb8;
			blocked(&c8, 2, sc, spt, tc8, wpc, ord);
			blocked(&pa8, 2, sa3, spa, ta8, wpa, ord);
			blocked(&pb8, 2, sb3, spb, tb8, wpb, ordb);
			test_dot("dot fma producer layouts cpu", "cpu", 2, 16, 16, 32, &pa8, &pb8, &c8,
			         DT_F32, PREC_IEEE, false);
			test_dot("dot fma producer layouts cpu f16", "cpu", 2, 16, 16, 32, &pa8, &pb8,
			         &c8, DT_F16, PREC_IEEE, false);
		}
		int32_t sc2[2] = {64, 32}, wm[2] = {2, 2};
		int M = 64, N = 32, K = 32;
		int32_t sa2[2] = {M, K}, sb2[2] = {K, N};
		LinearLayout mc, ma, mb;
		ll_mma_acc(&mc, 2, sc2, wm);
		ll_mma_operand(&ma, 0, 2, sa2, wm, 16);
		ll_mma_operand(&mb, 1, 2, sb2, wm, 16);
		test_dot("dot mma f16", "cuda-emu", 4, M, N, K, &ma, &mb, &mc, DT_F16, PREC_IEEE,
		         true);
		test_dot("dot mma bf16", "cuda-emu", 4, M, N, K, &ma, &mb, &mc, DT_BF16, PREC_IEEE,
		         true);
		/* fp8 without fp8 mma (sm_80): f16 mma on operands converted exactly */
		test_dot("dot mma fp8 as f16", "cuda-emu-nofp8", 4, M, N, K, &ma, &mb, &mc,
		         DT_F8E4M3, PREC_IEEE, true);
		test_dot("dot mma fp8e5 as f16", "cuda-emu-nofp8", 4, M, N, K, &ma, &mb, &mc,
		         DT_F8E5M2, PREC_IEEE, true);
		LinearLayout ta, tb;
		ll_mma_operand(&ta, 0, 2, sa2, wm, 32);
		ll_mma_operand(&tb, 1, 2, sb2, wm, 32);
		test_dot("dot mma tf32", "cuda-emu", 4, M, N, K, &ta, &tb, &mc, DT_F32, PREC_TF32,
		         true);
		/* ieee f32 has no mma: the FMA path with mma-shaped operands and
		 * accumulator (any layouts work now) */
		test_dot("dot fma on mma layouts", "cuda-emu", 4, M, N, K, &ta, &tb, &mc, DT_F32,
		         PREC_IEEE, false);
		/* one warp, 16x8 tile, several k steps */
		int32_t s1c[2] = {16, 8}, s1a[2] = {16, 64}, s1b[2] = {64, 8}, w1[2] = {1, 1};
		LinearLayout c1, a1, b1;
		ll_mma_acc(&c1, 2, s1c, w1);
		ll_mma_operand(&a1, 0, 2, s1a, w1, 16);
		ll_mma_operand(&b1, 1, 2, s1b, w1, 16);
		test_dot("dot mma f16 1 warp", "cuda-emu", 1, 16, 8, 64, &a1, &b1, &c1, DT_F16,
		         PREC_IEEE, true);
	}
	test_convert_ldmatrix();
	test_control();
	test_atomics();
	test_verifier();
	test_cse_hoist();
	test_if_while();
	printf("%d checks, %d failures\n", checks, failures);
	return failures ? 1 : 0;
}

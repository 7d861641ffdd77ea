/* test_emit_c.c: hand-built thread programs through the CUDA C emitter and
 * nvrtc. Without a GPU: every kernel compiles to a cubin for sm_80 and
 * sm_90a, and the PTX holds the instructions the emitter meant to use. With
 * a GPU (cuda_open succeeds): the kernels also run and are checked against C.
 * Exits 77 ("skip: no libnvrtc") when libnvrtc is absent. */
#include "api/api.h"
#include "codegen/emit.h"
#include "codegen/emit_c_internal.h"
#include "codegen/tp.h"
#include "driver/driver.h"
#include "jit/cuda.h"
#include "jit/nvrtc.h"
#include "src_kernels.h"

#include <dlfcn.h>
#include <math.h>
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

static const SrcLoc L0;
static CudaDriver gpu; /* opened when a GPU is present */
static bool have_gpu;

/* ---- builder shorthands ------------------------------------------------------------ */

typedef struct B {
	Arena arena;
	TpFunc *f;
	TpBlock *b;
} B;

static void b_init(B *b, const char *name, const char *target, int num_warps)
{
	arena_init(&b->arena);
	TargetDesc t;
	if (!target_from_name(target, &t)) {
		fprintf(stderr, "unknown target %s\n", target);
		exit(1);
	}
	b->f = tp_func_new(&b->arena, name, &t, num_warps);
	b->b = b->f->body;
}

static void b_params(B *b, int n, const Type *tys, const char *const *names)
{
	b->f->params = ARENA_NEWN(&b->arena, TpParam, n);
	b->f->nparams = n;
	for (int i = 0; i < n; i++) {
		b->f->params[i].name = names[i];
		b->f->params[i].ty = tys[i];
	}
}

static TpOp *op(B *b, TpOpKind k, const TpVal *in, int nin, Type out, int nout)
{
	Type outs[16] = {{0}};
	for (int i = 0; i < nout; i++)
		outs[i] = out;
	return tp_op(b->f, b->b, k, L0, in, nin, outs, nout);
}

static TpVal op1(B *b, TpOpKind k, const TpVal *in, int nin, Type out)
{
	return op(b, k, in, nin, out, 1)->results[0];
}

static TpVal cint(B *b, DType d, int64_t v)
{
	TpOp *o = op(b, TP_CONST, NULL, 0, type_scalar(d), 1);
	o->attr.i = v;
	return o->results[0];
}

static TpVal cflt(B *b, DType d, double v)
{
	TpOp *o = op(b, TP_CONST, NULL, 0, type_scalar(d), 1);
	o->attr.f = v;
	return o->results[0];
}

static TpVal ctrue(B *b) { return cint(b, DT_I1, 1); }

static TpVal param(B *b, int i)
{
	TpOp *o = op(b, TP_PARAM, NULL, 0, b->f->params[i].ty, 1);
	o->attr.i = i;
	return o->results[0];
}

static TpVal bin(B *b, TpOpKind k, TpVal x, TpVal y)
{
	TpVal in[2] = {x, y};
	return op1(b, k, in, 2, tp_type(b->f, x));
}

static TpVal cmpv(B *b, int pred, TpVal x, TpVal y)
{
	TpVal in[2] = {x, y};
	TpOp *o = op(b, TP_CMP, in, 2, type_scalar(DT_I1), 1);
	o->attr.pred = pred;
	return o->results[0];
}

static TpVal lane_id(B *b) { return op1(b, TP_LANE_ID, NULL, 0, type_scalar(DT_I32)); }

static TpVal tid(B *b)
{
	TpVal l = lane_id(b);
	TpVal w = op1(b, TP_WARP_ID, NULL, 0, type_scalar(DT_I32));
	return bin(b, TP_ADD, bin(b, TP_MUL, w, cint(b, DT_I32, 32)), l);
}

static TpVal ptr_add(B *b, TpVal p, TpVal off)
{
	TpVal in[2] = {p, off};
	return op1(b, TP_PTR_ADD, in, 2, tp_type(b->f, p));
}

static TpVal cast(B *b, TpVal x, DType to) { return op1(b, TP_CAST, &x, 1, type_scalar(to)); }

static void load(B *b, TpVal p, TpVal mask, const TpVal *other, int vec, TpVal *out)
{
	TpVal in[18] = {p, mask};
	Type et = type_scalar((DType)tp_type(b->f, p).elem);
	TpVal zero = other ? 0 : dtype_is_float(et.dt) ? cflt(b, et.dt, 0) : cint(b, et.dt, 0);
	for (int k = 0; k < vec; k++)
		in[2 + k] = other ? other[k] : zero;
	TpOp *o = op(b, TP_LOAD, in, 2 + vec, et, vec);
	o->attr.i = vec;
	for (int k = 0; k < vec; k++)
		out[k] = o->results[k];
}

static TpVal ld1(B *b, TpVal p, TpVal mask)
{
	TpVal v;
	load(b, p, mask, NULL, 1, &v);
	return v;
}

static void store(B *b, TpVal p, TpVal mask, const TpVal *vals, int vec)
{
	TpVal in[18] = {p, mask};
	for (int k = 0; k < vec; k++)
		in[2 + k] = vals[k];
	TpOp *o = op(b, TP_STORE, in, 2 + vec, type_scalar(DT_VOID), 0);
	o->attr.i = vec;
}

static void st1(B *b, TpVal p, TpVal mask, TpVal v) { store(b, p, mask, &v, 1); }

static void ret(B *b) { op(b, TP_RETURN, NULL, 0, type_scalar(DT_VOID), 0); }

/* ---- compiling ------------------------------------------------------------------------ */

static char *emit_text(B *b, EmitWhat what)
{
	DiagSink ds;
	diag_init(&ds);
	EmitResult r;
	char *text = NULL;
	if (!emit_cuda(b->f, what, NULL, &ds, &r)) {
		char *s = diag_render_all(&ds);
		fprintf(stderr, "emit_cuda(%s, %s) failed:\n%s\n", b->f->name, b->f->target.name,
		        s);
		free(s);
		failures++;
	} else {
		text = r.text;
		r.text = NULL;
	}
	emit_result_free(&r);
	diag_free(&ds);
	return text;
}

/* Compiles b for `target` (re-targeting the function) into a cubin; checks
 * its ELF magic. Returns the cubin (heap) or NULL. */
static void *cubin_for(B *b, const char *target, size_t *len)
{
	TargetDesc t;
	target_from_name(target, &t);
	b->f->target = t;
	DiagSink ds;
	diag_init(&ds);
	EmitResult r;
	void *bin = NULL;
	if (!emit_cuda(b->f, EMIT_BINARY, NULL, &ds, &r)) {
		char *s = diag_render_all(&ds);
		fprintf(stderr, "emit_cuda(%s, %s) failed:\n%s\n", b->f->name, target, s);
		if (getenv("TILE_TEST_VERBOSE")) {
			char *src = emit_text(b, EMIT_CUDA_SRC);
			fprintf(stderr, "%s\n", src ? src : "");
			free(src);
		}
		free(s);
		failures++;
	} else {
		CHECK(r.binary_len > 4 && memcmp(r.binary, "\177ELF", 4) == 0);
		CHECK(r.seconds_codegen > 0);
		bin = r.binary;
		*len = r.binary_len;
		r.binary = NULL;
	}
	emit_result_free(&r);
	diag_free(&ds);
	return bin;
}

/* Source + PTX (sm_80) checks, cubins for sm_80 and sm_90a; returns the cubin
 * for the GPU present (or NULL). `ptx_has` is a NULL-terminated list. */
static void *check_kernel(B *b, const char *const *src_has, const char *const *ptx_has, size_t *len)
{
	tp_verify(b->f);
	char *src = emit_text(b, EMIT_CUDA_SRC);
	if (src) {
		for (const char *const *s = src_has; s && *s; s++)
			if (!strstr(src, *s)) {
				fprintf(stderr, "%s: CUDA source lacks '%s'\n", b->f->name, *s);
				failures++;
			}
		CHECK(!strstr(src, "#include"));
		if (getenv("TILE_TEST_VERBOSE"))
			fprintf(stderr, "%s\n", src);
	}
	free(src);
	TargetDesc t80;
	target_from_name("sm_80", &t80);
	b->f->target = t80;
	char *ptx = emit_text(b, EMIT_PTX);
	if (ptx) {
		CHECK(strstr(ptx, ".target sm_80") != NULL);
		for (const char *const *s = ptx_has; s && *s; s++)
			if (!strstr(ptx, *s)) {
				fprintf(stderr, "%s: PTX lacks '%s'\n", b->f->name, *s);
				failures++;
			}
	}
	free(ptx);
	size_t n80 = 0, n90 = 0;
	void *c80 = cubin_for(b, "sm_80", &n80);
	void *c90 = cubin_for(b, "sm_90a", &n90);
	void *keep = NULL;
	if (have_gpu) {
		bool hopper = gpu.cc_major >= 9;
		keep = hopper ? c90 : c80;
		*len = hopper ? n90 : n80;
	}
	if (keep != c80)
		free(c80);
	if (keep != c90)
		free(c90);
	return keep;
}

/* Runs a cubin on the GPU: buffers bufs[i] (host copies, sizes[i] bytes) are
 * copied in, scalars follow; results copied back into bufs. */
static void run_gpu(void *cubin, size_t len, const char *name, int nbufs, void **bufs,
                    const size_t *sizes, void **scalars, int nscalars, uint32_t grid, int threads)
{
	char err[512];
	CudaFunction fn;
	if (!cuda_load_module(&gpu, cubin, len, name, &fn, err, sizeof err)) {
		fprintf(stderr, "%s\n", err);
		failures++;
		return;
	}
	CUdeviceptr_ dp[8] = {0};
	void *args[16];
	for (int i = 0; i < nbufs; i++) {
		CHECK(cuda_alloc(&gpu, sizes[i], &dp[i], err, sizeof err));
		CHECK(cuda_copy_htod(&gpu, dp[i], bufs[i], sizes[i], err, sizeof err));
		args[i] = &dp[i];
	}
	for (int i = 0; i < nscalars; i++)
		args[nbufs + i] = scalars[i];
	uint32_t g[3] = {grid, 1, 1};
	if (!cuda_launch(&gpu, &fn, g, threads, 0, NULL, args, err, sizeof err) ||
	    !cuda_stream_sync(&gpu, NULL, name, err, sizeof err)) {
		fprintf(stderr, "%s\n", err);
		failures++;
	}
	for (int i = 0; i < nbufs; i++) {
		CHECK(cuda_copy_dtoh(&gpu, bufs[i], dp[i], sizes[i], err, sizeof err));
		cuda_free(&gpu, dp[i]);
	}
	cuda_unload(&gpu, &fn);
}

/* ---- vector add: v4 loads and stores, masked tail ---------------------------------------- */

static void test_vadd(void)
{
	B b;
	b_init(&b, "add_kernel", "sm_80", 4);
	Type ts[4] = {type_ptr(DT_F32), type_ptr(DT_F32), type_ptr(DT_F32), type_scalar(DT_I32)};
	const char *names[4] = {"x_ptr", "y_ptr", "out_ptr", "n"};
	b_params(&b, 4, ts, names);
	TpVal x = param(&b, 0), y = param(&b, 1), out = param(&b, 2), n = param(&b, 3);
	TpVal pid = op1(&b, TP_PROGRAM_ID, NULL, 0, type_scalar(DT_I32));
	TpVal base = bin(&b, TP_MUL, pid, cint(&b, DT_I32, 512));
	TpVal off = bin(&b, TP_ADD, base, bin(&b, TP_MUL, tid(&b), cint(&b, DT_I32, 4)));
	TpVal mask = cmpv(&b, PRED_LT, off, n);
	TpVal vx[4], vy[4], vs[4];
	TpVal one = cflt(&b, DT_F32, 1.0), others[4] = {one, one, one, one};
	load(&b, ptr_add(&b, x, off), mask, others, 4, vx);
	b.b->ops[b.b->nops - 1]->attr.i2 = TIR_CACHE_CG;
	load(&b, ptr_add(&b, y, off), mask, NULL, 4, vy);
	b.b->ops[b.b->nops - 1]->attr.i2 = TIR_EVICT_LAST << 8;
	for (int k = 0; k < 4; k++)
		vs[k] = bin(&b, TP_ADD, vx[k], vy[k]);
	store(&b, ptr_add(&b, out, off), mask, vs, 4);
	b.b->ops[b.b->nops - 1]->attr.i2 = TIR_CACHE_CS;
	ret(&b);
	const char *src[] = {"extern \"C\" __global__ void __launch_bounds__(128) add_kernel(",
	                     "float *arg_x_ptr",
	                     "int32_t arg_n",
	                     "ld_global_cg_b32x4(",
	                     "1.0f",
	                     "ld_global_evict_last_b32x4(",
	                     "st_global_cs_b32x4(",
	                     "blockIdx.x",
	                     NULL};
	const char *ptx[] = {"ld.global.cg.v4.b32", "ld.global.L1::evict_last.v4.b32",
	                     "st.global.cs.v4.b32", NULL};
	size_t len = 0;
	void *cubin = check_kernel(&b, src, ptx, &len);
	if (cubin) {
		enum { N = 1000, NP = 1024 };
		float *xs = calloc(NP, 4), *ys = calloc(NP, 4), *os = calloc(NP, 4);
		for (int i = 0; i < N; i++)
			xs[i] = (float)i, ys[i] = 0.5f * (float)i;
		int32_t nn = N;
		void *bufs[3] = {xs, ys, os}, *sc[1] = {&nn};
		size_t sizes[3] = {NP * 4, NP * 4, NP * 4};
		run_gpu(cubin, len, "add_kernel", 3, bufs, sizes, sc, 1, 2, 128);
		for (int i = 0; i < NP; i++)
			CHECK(os[i] == (i < N ? 1.5f * (float)i : 0.0f));
		free(xs), free(ys), free(os);
	}
	free(cubin);
	arena_free(&b.arena);
}

/* ---- warp reduction with shuffles -------------------------------------------------------- */

static void test_shfl_reduce(void)
{
	B b;
	b_init(&b, "warp_sum", "sm_80", 1);
	Type ts[2] = {type_ptr(DT_F32), type_ptr(DT_F32)};
	const char *names[2] = {"x", "out"};
	b_params(&b, 2, ts, names);
	TpVal x = param(&b, 0), out = param(&b, 1);
	TpVal lane = lane_id(&b);
	TpVal v = ld1(&b, ptr_add(&b, x, lane), ctrue(&b));
	for (int m = 16; m >= 1; m /= 2) {
		TpOp *s = op(&b, TP_SHFL_XOR, &v, 1, type_scalar(DT_F32), 1);
		s->attr.i = m;
		v = bin(&b, TP_ADD, v, s->results[0]);
	}
	/* also move a 16-bit and a 64-bit value across lanes */
	TpVal h = cast(&b, v, DT_F16);
	TpVal in2[2] = {h, cint(&b, DT_I32, 0)};
	TpVal h0 = op1(&b, TP_SHFL_IDX, in2, 2, type_scalar(DT_F16));
	TpVal d = cast(&b, h0, DT_F64);
	TpOp *sd = op(&b, TP_SHFL_XOR, &d, 1, type_scalar(DT_F64), 1);
	sd->attr.i = 1;
	TpVal is0 = cmpv(&b, PRED_EQ, lane, cint(&b, DT_I32, 0));
	st1(&b, out, is0, v);
	st1(&b, ptr_add(&b, out, cint(&b, DT_I32, 1)), is0, cast(&b, sd->results[0], DT_F32));
	ret(&b);
	const char *src[] = {"__shfl_xor_sync(0xffffffffu, v", "__shfl_sync(0xffffffffu, (int)v",
	                     "f32_to_f16(", NULL};
	const char *ptx[] = {"shfl.sync.bfly.b32", "shfl.sync.idx.b32", NULL};
	size_t len = 0;
	void *cubin = check_kernel(&b, src, ptx, &len);
	if (cubin) {
		float xs[32], os[2] = {0, 0};
		float want = 0;
		for (int i = 0; i < 32; i++)
			xs[i] = (float)(i % 7), want += xs[i];
		void *bufs[2] = {xs, os};
		size_t sizes[2] = {sizeof xs, sizeof os};
		run_gpu(cubin, len, "warp_sum", 2, bufs, sizes, NULL, 0, 1, 32);
		CHECK(os[0] == want);
		CHECK(os[1] == want);
	}
	free(cubin);
	arena_free(&b.arena);
}

/* ---- shared memory round trip ------------------------------------------------------------- */

static void test_smem(void)
{
	B b;
	b_init(&b, "smem_rev", "sm_80", 2);
	b.f->smem_bytes = 64 * 16;
	Type ts[2] = {type_ptr(DT_I32), type_ptr(DT_I32)};
	const char *names[2] = {"x", "out"};
	b_params(&b, 2, ts, names);
	TpVal x = param(&b, 0), out = param(&b, 1);
	TpVal t = tid(&b);
	TpVal e4 = bin(&b, TP_MUL, t, cint(&b, DT_I32, 4));
	TpVal v[4];
	load(&b, ptr_add(&b, x, e4), ctrue(&b), NULL, 4, v);
	TpVal in[6] = {bin(&b, TP_MUL, t, cint(&b, DT_I32, 16)), ctrue(&b), v[0], v[1], v[2], v[3]};
	TpOp *ss = op(&b, TP_SMEM_STORE, in, 6, type_scalar(DT_VOID), 0);
	ss->attr.i = 4;
	op(&b, TP_BARRIER, NULL, 0, type_scalar(DT_VOID), 0);
	/* read thread (63 - t)'s vector back, as v4 and as 4 scalars */
	TpVal rt = bin(&b, TP_SUB, cint(&b, DT_I32, 63), t);
	TpVal roff = bin(&b, TP_MUL, rt, cint(&b, DT_I32, 16));
	TpVal lin[2] = {roff, cmpv(&b, PRED_LT, t, cint(&b, DT_I32, 64))};
	TpOp *sl = op(&b, TP_SMEM_LOAD, lin, 2, type_scalar(DT_I32), 4);
	sl->attr.i = 4;
	TpVal lin1[2] = {bin(&b, TP_ADD, roff, cint(&b, DT_I32, 4)), ctrue(&b)};
	TpOp *s1 = op(&b, TP_SMEM_LOAD, lin1, 2, type_scalar(DT_I32), 1);
	s1->attr.i = 1;
	CHECK(s1->results[0] != 0);
	store(&b, ptr_add(&b, out, e4), ctrue(&b), sl->results, 4);
	ret(&b);
	const char *src[] = {"__shared__ __align__(16) unsigned char smem[1024];",
	                     "*(uint4 *)(smem + v", "__syncthreads();", "*(const uint4 *)(smem + v",
	                     NULL};
	const char *ptx[] = {"st.shared.v4", "ld.shared.v4", "bar.sync", NULL};
	size_t len = 0;
	void *cubin = check_kernel(&b, src, ptx, &len);
	if (cubin) {
		int32_t xs[256], os[256];
		for (int i = 0; i < 256; i++)
			xs[i] = i * 3 + 1;
		void *bufs[2] = {xs, os};
		size_t sizes[2] = {sizeof xs, sizeof os};
		run_gpu(cubin, len, "smem_rev", 2, bufs, sizes, NULL, 0, 1, 64);
		for (int t2 = 0; t2 < 64; t2++)
			for (int k = 0; k < 4; k++)
				CHECK(os[t2 * 4 + k] == xs[(63 - t2) * 4 + k]);
	}
	free(cubin);
	arena_free(&b.arena);

	/* more than 48 KiB: dynamic shared memory */
	b_init(&b, "big_smem", "sm_90a", 1);
	b.f->smem_bytes = 100 * 1024;
	b_params(&b, 0, NULL, NULL);
	TpVal sin[3] = {cint(&b, DT_I32, 0), ctrue(&b), cint(&b, DT_I32, 7)};
	TpOp *s2 = op(&b, TP_SMEM_STORE, sin, 3, type_scalar(DT_VOID), 0);
	s2->attr.i = 1;
	ret(&b);
	char *text = emit_text(&b, EMIT_CUDA_SRC);
	CHECK(text && strstr(text, "extern __shared__ __align__(16) unsigned char smem[];"));
	free(text);
	size_t n90 = 0;
	free(cubin_for(&b, "sm_90a", &n90));
	arena_free(&b.arena);
}

/* ---- control flow: for with carried values, if with results, while ------------------------- */

static void test_loops(void)
{
	B b;
	b_init(&b, "loops", "sm_80", 1);
	Type ts[2] = {type_ptr(DT_F32), type_scalar(DT_I32)};
	const char *names[2] = {"out", "n"};
	b_params(&b, 2, ts, names);
	TpVal out = param(&b, 0), n = param(&b, 1);
	TpVal lane = lane_id(&b);
	/* acc = sum_{i < n} i * lane (f32), cnt = n (i32) */
	TpVal fin[5] = {cint(&b, DT_I32, 0), n, cint(&b, DT_I32, 1), cflt(&b, DT_F32, 0),
	                cint(&b, DT_I32, 0)};
	Type rt[2] = {type_scalar(DT_F32), type_scalar(DT_I32)};
	TpOp *fo = tp_op(b.f, b.b, TP_FOR, L0, fin, 5, rt, 2);
	tp_op_add_regions(b.f, fo, 1);
	TpBlock *body = &fo->regions[0];
	TpVal iv = tp_block_add_arg(b.f, body, type_scalar(DT_I32), true);
	TpVal acc = tp_block_add_arg(b.f, body, type_scalar(DT_F32), false);
	TpVal cnt = tp_block_add_arg(b.f, body, type_scalar(DT_I32), true);
	b.b = body;
	TpVal prod = cast(&b, bin(&b, TP_MUL, iv, lane), DT_F32);
	TpVal y[2] = {bin(&b, TP_ADD, acc, prod), bin(&b, TP_ADD, cnt, cint(&b, DT_I32, 1))};
	op(&b, TP_YIELD, y, 2, type_scalar(DT_VOID), 0);
	b.b = b.f->body;
	/* if (n > 3) r = acc * 2 else r = -acc (conditions are uniform) */
	TpVal c = cmpv(&b, PRED_GT, n, cint(&b, DT_I32, 3));
	TpOp *io = tp_op(b.f, b.b, TP_IF, L0, &c, 1, rt, 1);
	tp_op_add_regions(b.f, io, 2);
	b.b = &io->regions[0];
	TpVal r1 = bin(&b, TP_MUL, fo->results[0], cflt(&b, DT_F32, 2.0));
	op(&b, TP_YIELD, &r1, 1, type_scalar(DT_VOID), 0);
	b.b = &io->regions[1];
	TpVal r2 = op1(&b, TP_NEG, &fo->results[0], 1, type_scalar(DT_F32));
	op(&b, TP_YIELD, &r2, 1, type_scalar(DT_VOID), 0);
	b.b = b.f->body;
	/* while (k < 100) k = k * 3 + 1 */
	TpVal k0 = cint(&b, DT_I32, 1);
	TpOp *wo = tp_op(b.f, b.b, TP_WHILE, L0, &k0, 1, rt + 1, 1);
	tp_op_add_regions(b.f, wo, 2);
	TpVal wk = tp_block_add_arg(b.f, &wo->regions[0], type_scalar(DT_I32), true);
	b.b = &wo->regions[0];
	TpVal cin[2] = {cmpv(&b, PRED_LT, wk, cint(&b, DT_I32, 100)), wk};
	op(&b, TP_CONDITION, cin, 2, type_scalar(DT_VOID), 0);
	TpVal wa = tp_block_add_arg(b.f, &wo->regions[1], type_scalar(DT_I32), true);
	b.b = &wo->regions[1];
	TpVal nk = bin(&b, TP_ADD, bin(&b, TP_MUL, wa, cint(&b, DT_I32, 3)), cint(&b, DT_I32, 1));
	op(&b, TP_YIELD, &nk, 1, type_scalar(DT_VOID), 0);
	b.b = b.f->body;
	TpVal res = bin(&b, TP_ADD, io->results[0], cast(&b, wo->results[0], DT_F32));
	st1(&b, ptr_add(&b, out, lane), ctrue(&b), res);
	ret(&b);
	const char *src[] = {"for (int32_t v", "if (v", "} else {", "for (;;) {", "break;", NULL};
	size_t len = 0;
	void *cubin = check_kernel(&b, src, NULL, &len);
	if (cubin) {
		float os[32];
		int32_t nn = 5;
		void *bufs[1] = {os}, *sc[1] = {&nn};
		size_t sizes[1] = {sizeof os};
		run_gpu(cubin, len, "loops", 1, bufs, sizes, sc, 1, 1, 32);
		for (int l = 0; l < 32;
		     l++) /* sum i*l for i<5 = 10l; cnt 5 > 3; k: 1,4,13,40,121 */
			CHECK(os[l] == 20.0f * (float)l + 121.0f);
	}
	free(cubin);
	arena_free(&b.arena);
}

/* ---- mma.sync f16 with cp.async and ldmatrix ------------------------------------------------ */

/* D[16x8] = A[16x16] (row-major) x B[16x8] (row-major) with one warp. */
static void test_mma_f16(void)
{
	B b;
	b_init(&b, "mma16816", "sm_80", 1);
	b.f->smem_bytes = 768;
	Type ts[3] = {type_ptr(DT_F16), type_ptr(DT_F16), type_ptr(DT_F32)};
	const char *names[3] = {"a", "b", "d"};
	b_params(&b, 3, ts, names);
	TpVal pa = param(&b, 0), pb = param(&b, 1), pd = param(&b, 2);
	TpVal l = lane_id(&b);
	TpVal i16 = cint(&b, DT_I32, 16);
	/* A: 512 bytes, 16 per lane; B: 256 bytes, lanes 0..15 */
	TpVal ca[3] = {ptr_add(&b, pa, bin(&b, TP_MUL, l, cint(&b, DT_I32, 8))),
	               bin(&b, TP_MUL, l, i16), ctrue(&b)};
	op(&b, TP_CP_ASYNC, ca, 3, type_scalar(DT_VOID), 0)->attr.i = 16;
	/* lanes 16..31 issue nothing (pred): a false mask would still write 16
	 * zero bytes, past the 768 bytes of shared memory */
	TpVal cb[4] = {ptr_add(&b, pb, bin(&b, TP_MUL, l, cint(&b, DT_I32, 8))),
	               bin(&b, TP_ADD, cint(&b, DT_I32, 512), bin(&b, TP_MUL, l, i16)), ctrue(&b),
	               cmpv(&b, PRED_LT, l, i16)};
	op(&b, TP_CP_ASYNC, cb, 4, type_scalar(DT_VOID), 0)->attr.i = 16;
	op(&b, TP_CP_ASYNC_COMMIT, NULL, 0, type_scalar(DT_VOID), 0);
	op(&b, TP_CP_ASYNC_WAIT, NULL, 0, type_scalar(DT_VOID), 0)->attr.i = 0;
	op(&b, TP_BARRIER, NULL, 0, type_scalar(DT_VOID), 0);
	TpVal row = bin(&b, TP_REM, l, i16), half = bin(&b, TP_DIV, l, i16);
	TpVal aoff = bin(&b, TP_ADD, bin(&b, TP_MUL, row, cint(&b, DT_I32, 32)),
	                 bin(&b, TP_MUL, half, i16));
	TpOp *la = op(&b, TP_LDMATRIX, &aoff, 1, type_scalar(DT_F16), 8);
	la->attr.i = 4;
	TpVal boff = bin(&b, TP_ADD, cint(&b, DT_I32, 512), bin(&b, TP_MUL, row, i16));
	TpOp *lb = op(&b, TP_LDMATRIX, &boff, 1, type_scalar(DT_F16), 4);
	lb->attr.i = 2;
	lb->attr.flags = TP_TRANS;
	TpVal in[16];
	for (int i = 0; i < 8; i++)
		in[i] = la->results[i];
	for (int i = 0; i < 4; i++)
		in[8 + i] = lb->results[i];
	TpVal z = cflt(&b, DT_F32, 0);
	for (int i = 0; i < 4; i++)
		in[12 + i] = z;
	TpOp *m = op(&b, TP_MMA, in, 16, type_scalar(DT_F32), 4);
	m->attr.i = MMA_M16N8K16_F16_F32;
	TpVal g = bin(&b, TP_SHR, l, cint(&b, DT_I32, 2)),
	      t = bin(&b, TP_AND, l, cint(&b, DT_I32, 3));
	TpVal o0 = bin(&b, TP_ADD, bin(&b, TP_MUL, g, cint(&b, DT_I32, 8)),
	               bin(&b, TP_MUL, t, cint(&b, DT_I32, 2)));
	TpVal o1 = bin(&b, TP_ADD, o0, cint(&b, DT_I32, 64));
	store(&b, ptr_add(&b, pd, o0), ctrue(&b), m->results, 2);
	store(&b, ptr_add(&b, pd, o1), ctrue(&b), m->results + 2, 2);
	ret(&b);
	const char *src[] = {"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
	                     "ldmatrix.sync.aligned.m8n8.x4.shared.b16",
	                     "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16",
	                     "cp_async_cg16(",
	                     "cp.async.commit_group",
	                     "cp.async.wait_group 0",
	                     NULL};
	const char *ptx[] = {"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
	                     "ldmatrix.sync.aligned.m8n8.x4.shared.b16",
	                     "cp.async.cg.shared.global",
	                     "cp.async.wait_group",
	                     "st.global.v2.b32",
	                     NULL};
	size_t len = 0;
	void *cubin = check_kernel(&b, src, ptx, &len);
	if (cubin) {
		uint16_t A[256], Bm[128];
		float fa[256], fb[128], D[128], want[128];
		for (int i = 0; i < 256; i++) {
			fa[i] = (float)((i * 7) % 11 - 5) * 0.25f;
			A[i] = (uint16_t)ec_round_minifloat(fa[i], DT_F16);
		}
		for (int i = 0; i < 128; i++) {
			fb[i] = (float)((i * 5) % 9 - 4) * 0.5f;
			Bm[i] = (uint16_t)ec_round_minifloat(fb[i], DT_F16);
		}
		for (int r = 0; r < 16; r++)
			for (int c = 0; c < 8; c++) {
				float s = 0;
				for (int k = 0; k < 16; k++)
					s += fa[r * 16 + k] * fb[k * 8 + c];
				want[r * 8 + c] = s;
			}
		void *bufs[3] = {A, Bm, D};
		size_t sizes[3] = {sizeof A, sizeof Bm, sizeof D};
		run_gpu(cubin, len, "mma16816", 3, bufs, sizes, NULL, 0, 1, 32);
		for (int i = 0; i < 128; i++)
			CHECK(D[i] == want[i]);
	}
	free(cubin);
	arena_free(&b.arena);
}

/* ---- cp.async with pred: 4, 8 and 16 bytes -------------------------------------------------- */

/* Thread t: mask = !(t & 1) (else zero-fill), pred = !(t & 2) (else nothing
 * issued, the sentinel stays). Region of `bytes` per thread for each size. */
static void test_cp_async_pred(void)
{
	enum { OLD = 0x55555555 };
	static const int sizes[3] = {4, 8, 16};
	B b;
	b_init(&b, "cp_async_pred", "sm_80", 1);
	b.f->smem_bytes = 32 * (4 + 8 + 16);
	Type ts[2] = {type_ptr(DT_I32), type_ptr(DT_I32)};
	const char *names[2] = {"x", "out"};
	b_params(&b, 2, ts, names);
	TpVal x = param(&b, 0), out = param(&b, 1), t = lane_id(&b), z = cint(&b, DT_I32, 0);
	TpVal mask = cmpv(&b, PRED_EQ, bin(&b, TP_AND, t, cint(&b, DT_I32, 1)), z);
	TpVal pred = cmpv(&b, PRED_EQ, bin(&b, TP_AND, t, cint(&b, DT_I32, 2)), z);
	TpVal off[3];
	int base = 0;
	for (int i = 0; i < 3; i++) {
		off[i] = bin(&b, TP_ADD, cint(&b, DT_I32, base),
		             bin(&b, TP_MUL, t, cint(&b, DT_I32, sizes[i])));
		TpVal old = cint(&b, DT_I32, OLD);
		TpVal in[6] = {off[i], ctrue(&b), old, old, old, old};
		op(&b, TP_SMEM_STORE, in, 2 + sizes[i] / 4, type_scalar(DT_VOID), 0)->attr.i =
		        sizes[i] / 4;
		base += 32 * sizes[i];
	}
	op(&b, TP_BARRIER, NULL, 0, type_scalar(DT_VOID), 0);
	for (int i = 0; i < 3; i++) {
		TpVal src = ptr_add(&b, x, bin(&b, TP_MUL, t, cint(&b, DT_I32, sizes[i] / 4)));
		TpVal in[4] = {src, off[i], mask, pred};
		op(&b, TP_CP_ASYNC, in, 4, type_scalar(DT_VOID), 0)->attr.i = sizes[i];
	}
	op(&b, TP_CP_ASYNC_COMMIT, NULL, 0, type_scalar(DT_VOID), 0);
	op(&b, TP_CP_ASYNC_WAIT, NULL, 0, type_scalar(DT_VOID), 0)->attr.i = 0;
	op(&b, TP_BARRIER, NULL, 0, type_scalar(DT_VOID), 0);
	base = 0;
	for (int i = 0; i < 3; i++) {
		int w = sizes[i] / 4;
		TpVal in[2] = {off[i], ctrue(&b)};
		TpOp *l = op(&b, TP_SMEM_LOAD, in, 2, type_scalar(DT_I32), w);
		l->attr.i = w;
		TpVal o = bin(&b, TP_ADD, cint(&b, DT_I32, base / 4), bin(&b, TP_MUL, t, cint(&b, DT_I32, w)));
		store(&b, ptr_add(&b, out, o), ctrue(&b), l->results, w);
		base += 32 * sizes[i];
	}
	ret(&b);
	char guard[3][48];
	static const char *fn[3] = {"cp_async_ca4(", "cp_async_ca8(", "cp_async_cg16("};
	for (int i = 0; i < 3; i++)
		snprintf(guard[i], sizeof guard[i], "if (v%u) %s", pred, fn[i]);
	const char *src[] = {guard[0], guard[1], guard[2], NULL};
	const char *ptx[] = {"cp.async.ca.shared.global", "cp.async.cg.shared.global", NULL};
	size_t len = 0;
	void *cubin = check_kernel(&b, src, ptx, &len);
	if (cubin) {
		int32_t xs[128], os[224];
		for (int i = 0; i < 128; i++)
			xs[i] = 1000 + i;
		void *bufs[2] = {xs, os};
		size_t bs[2] = {sizeof xs, sizeof os};
		run_gpu(cubin, len, "cp_async_pred", 2, bufs, bs, NULL, 0, 1, 32);
		base = 0;
		for (int i = 0; i < 3; i++) {
			int w = sizes[i] / 4;
			for (int k = 0; k < 32 * w; k++) {
				int tt = k / w;
				CHECK(os[base + k] == (tt % 4 == 0 ? xs[k] : tt % 4 == 1 ? 0 : OLD));
			}
			base += 32 * w;
		}
	}
	free(cubin);
	arena_free(&b.arena);
}

/* The other mma shapes compile (operands from lane ids: no data needed). */
static void test_mma_kinds(void)
{
	static const struct {
		int kind, na, nb;
		DType in, acc;
		const char *ptx;
	} k[] = {
	        {MMA_M16N8K16_BF16_F32, 8, 4, DT_BF16, DT_F32,
	         "m16n8k16.row.col.f32.bf16.bf16.f32"},
	        {MMA_M16N8K8_TF32_F32, 4, 2, DT_F32, DT_F32, "m16n8k8.row.col.f32.tf32.tf32.f32"},
	        {MMA_M16N8K32_S8_S32, 16, 8, DT_I8, DT_I32, "m16n8k32.row.col.s32.s8.s8.s32"},
	};
	for (size_t i = 0; i < COUNTOF(k); i++) {
		B b;
		b_init(&b, "mma_kind", "sm_80", 1);
		Type ts[1] = {type_ptr(k[i].acc)};
		const char *names[1] = {"d"};
		b_params(&b, 1, ts, names);
		TpVal pd = param(&b, 0), l = lane_id(&b);
		TpVal x = cast(&b, l, k[i].in), c = cast(&b, l, k[i].acc);
		TpVal in[28];
		int n = 0;
		for (int j = 0; j < k[i].na + k[i].nb; j++)
			in[n++] = x;
		for (int j = 0; j < 4; j++)
			in[n++] = c;
		TpOp *m = op(&b, TP_MMA, in, n, type_scalar(k[i].acc), 4);
		m->attr.i = k[i].kind;
		store(&b, ptr_add(&b, pd, bin(&b, TP_MUL, l, cint(&b, DT_I32, 4))), ctrue(&b),
		      m->results, 4);
		ret(&b);
		const char *ptx[] = {k[i].ptx, NULL};
		size_t len;
		free(check_kernel(&b, NULL, ptx, &len));
		arena_free(&b.arena);
	}
}

/* ---- atomics ------------------------------------------------------------------------------ */

static void test_atomics(void)
{
	static const struct {
		DType d;
		int op;
	} a[] = {
	        {DT_F32, ATOM_ADD},  {DT_F16, ATOM_ADD}, {DT_BF16, ATOM_ADD}, {DT_F64, ATOM_ADD},
	        {DT_I32, ATOM_MAX},  {DT_U64, ATOM_MIN}, {DT_F32, ATOM_MAX},  {DT_I8, ATOM_ADD},
	        {DT_I16, ATOM_XCHG}, {DT_U32, ATOM_OR},  {DT_F32, ATOM_XCHG},
	};
	B b;
	b_init(&b, "atomics", "sm_80", 1);
	Type ts[COUNTOF(a)];
	const char *names[COUNTOF(a)];
	for (size_t i = 0; i < COUNTOF(a); i++) {
		ts[i] = type_ptr(a[i].d);
		names[i] = arena_printf(&b.arena, "%s_%zu", dtype_short(a[i].d), i);
	}
	b_params(&b, (int)COUNTOF(a), ts, names);
	TpVal l = lane_id(&b), m = cmpv(&b, PRED_LT, l, cint(&b, DT_I32, 20));
	for (size_t i = 0; i < COUNTOF(a); i++) {
		TpVal p = param(&b, (int)i);
		TpVal in[3] = {p, cast(&b, l, a[i].d), m};
		TpOp *o = op(&b, TP_ATOMIC, in, 3, type_scalar(a[i].d), 1);
		o->attr.atomic = a[i].op;
		o->attr.i = i % 2 ? TIR_SEM_RELAXED : TIR_SEM_ACQ_REL;
		if (i == 3)
			o->attr.i = TIR_SEM_RELEASE | TIR_SCOPE_CTA << 8;
	}
	TpVal p32 = param(&b, 4);
	TpVal cin[4] = {p32, cint(&b, DT_I32, 0), l, ctrue(&b)};
	op(&b, TP_ATOMIC_CAS, cin, 4, type_scalar(DT_I32), 1);
	ret(&b);
	const char *src[] = {"atom.acq_rel.gpu.global.add.f32", "atom_cas_b16_", "atom_cas_b32_",
	                     "atom.relaxed.gpu.global.add.noftz.f16", NULL};
	const char *ptx[] = {
	        "atom.acq_rel.gpu.global.add.f32", "atom.acq_rel.gpu.global.cas.b32",
	        "atom.release.cta.global.add.f64", "atom.relaxed.gpu.global.add.noftz.f16",
	        "atom.acq_rel.gpu.global.cas.b16", NULL};
	size_t len;
	free(check_kernel(&b, src, ptx, &len));
	/* Hopper adds bf16 natively */
	TargetDesc t90;
	target_from_name("sm_90a", &t90);
	b.f->target = t90;
	char *s = emit_text(&b, EMIT_CUDA_SRC);
	CHECK(s && strstr(s, "add.noftz.bf16"));
	free(s);
	arena_free(&b.arena);
}

/* ---- casts, math, print, assert ------------------------------------------------------------ */

static void test_elementwise(void)
{
	B b;
	b_init(&b, "elementwise", "sm_80", 2);
	Type ts[3] = {type_ptr(DT_F16), type_ptr(DT_BF16), type_ptr(DT_F32)};
	const char *names[3] = {"h", "bf", "out"};
	b_params(&b, 3, ts, names);
	TpVal ph = param(&b, 0), pbf = param(&b, 1), po = param(&b, 2), t = tid(&b);
	TpVal h[2], bf[8];
	TpVal e2 = bin(&b, TP_MUL, t, cint(&b, DT_I32, 2)),
	      e8 = bin(&b, TP_MUL, t, cint(&b, DT_I32, 8));
	load(&b, ptr_add(&b, ph, e2), ctrue(&b), NULL, 2, h);
	b.b->ops[b.b->nops - 1]->attr.flags = TIR_VOLATILE;
	load(&b, ptr_add(&b, pbf, e8), ctrue(&b), NULL, 8, bf);
	TpVal x = bin(&b, TP_ADD, cast(&b, h[0], DT_F32), cast(&b, bf[7], DT_F32));
	TpVal hs = bin(&b, TP_MUL, h[0], h[1]); /* f16 arithmetic */
	x = bin(&b, TP_ADD, x, cast(&b, hs, DT_F32));
	for (int m = 0; m < MATH_COUNT; m++) {
		int ar = math_fn_arity((MathFn)m);
		if (m == MATH_POPC || m == MATH_CLZ)
			continue;
		TpVal in[2] = {x, x};
		bool pred = m == MATH_ISNAN || m == MATH_ISINF || m == MATH_SIGNBIT;
		TpOp *o = op(&b, TP_MATH, in, ar, type_scalar(pred ? DT_I1 : DT_F32), 1);
		o->attr.math = m;
		TpVal r = o->results[0];
		if (pred)
			r = cast(&b, r, DT_F32);
		x = bin(&b, TP_ADD, x, r);
	}
	/* f64 and f16 math, fp8 and integer casts, min/max with NaN, fma, select */
	TpVal d = cast(&b, x, DT_F64);
	TpOp *md = op(&b, TP_MATH, &d, 1, type_scalar(DT_F64), 1);
	md->attr.math = MATH_EXP;
	TpVal hx = cast(&b, x, DT_F16);
	TpOp *mh = op(&b, TP_MATH, &hx, 1, type_scalar(DT_F16), 1);
	mh->attr.math = MATH_SQRT;
	TpVal f8a = cast(&b, x, DT_F8E4M3), f8b = cast(&b, x, DT_F8E5M2);
	TpVal back = bin(&b, TP_ADD, cast(&b, f8a, DT_F32), cast(&b, f8b, DT_F32));
	back = bin(&b, TP_ADD, back, cast(&b, cast(&b, back, DT_BF16), DT_F32));
	TpVal i8 = cast(&b, x, DT_I8), u64 = cast(&b, x, DT_U64);
	TpOp *pc = op(&b, TP_MATH, &u64, 1, type_scalar(DT_I32), 1);
	pc->attr.math = MATH_POPC;
	TpOp *cz = op(&b, TP_MATH, &i8, 1, type_scalar(DT_I32), 1);
	cz->attr.math = MATH_CLZ;
	TpVal mn[2] = {x, back};
	TpOp *mx = op(&b, TP_MAX, mn, 2, type_scalar(DT_F32), 1);
	mx->attr.flags = TIR_PROPAGATE_NAN;
	TpVal fin[3] = {mx->results[0], cast(&b, md->results[0], DT_F32),
	                cast(&b, mh->results[0], DT_F32)};
	TpVal f = op1(&b, TP_FMA, fin, 3, type_scalar(DT_F32));
	TpVal sel[3] = {cmpv(&b, PRED_NE, pc->results[0], cz->results[0]), f,
	                cflt(&b, DT_F32, -0.0)};
	f = op1(&b, TP_SELECT, sel, 3, type_scalar(DT_F32));
	TpVal bits = op1(&b, TP_BITCAST, &f, 1, type_scalar(DT_I32));
	TpVal uh = bin(&b, TP_UMULHI, bits, cint(&b, DT_I32, -7));
	f = bin(&b, TP_ADD, f, op1(&b, TP_BITCAST, &uh, 1, type_scalar(DT_F32)));
	TpVal ninf = cflt(&b, DT_F32, -INFINITY);
	f = bin(&b, TP_ADD, f, ninf);
	TpOp *pr = op(&b, TP_PRINT, &f, 1, type_scalar(DT_VOID), 0);
	pr->attr.str = " f \"%\": "; /* sema's form of Triton's prefix */
	TpVal ok = cmpv(&b, PRED_EQ, f, f);
	TpOp *as = op(&b, TP_ASSERT, &ok, 1, type_scalar(DT_VOID), 0);
	static const SrcFile xf = {"kernels/x.tile", "", 0};
	as->loc = (SrcLoc){.file = &xf, .line = 12, .col = 5};
	as->attr.str = "kernels/x.tile:12: f == f"; /* lower_assert's, from the loc */
	st1(&b, ptr_add(&b, po, t), ctrue(&b), f);
	ret(&b);
	const char *src[] = {"f16_to_f32(",
	                     "bf16_to_f32(",
	                     "f32_to_f8e4m3(",
	                     "expf(",
	                     "erff(",
	                     "exp(",
	                     "fmaxf_nan(",
	                     "__assertfail(\"f == f\", \"kernels/x.tile\", 12",
	                     "printf(\"pid (%d, %d, %d) idx () f \\\"%%\\\": %f\\n\"",
	                     "__uint_as_float(0xff800000u)",
	                     "ld_global_b32x4(",
	                     /* f32 -> i8 saturates as on the CPU (a C cast wrapped: 300.5 -> 44) */
	                     "(int8_t)f2i_sat(",
	                     ", -128, 127)",
	                     NULL};
	const char *ptx[] = {
	        "cvt.rn.f16.f32",         "cvt.rn.bf16.f32",  "vprintf", "__assertfail",
	        "ld.volatile.global.b32", "ld.global.v4.b32", "max.s32", NULL};
	size_t len;
	free(check_kernel(&b, src, ptx, &len));
	/* sm_90a converts to fp8 with cvt */
	TargetDesc t90;
	target_from_name("sm_90a", &t90);
	b.f->target = t90;
	char *s = emit_text(&b, EMIT_CUDA_SRC);
	CHECK(s && strstr(s, "cvt.rn.satfinite.e4m3x2.f32"));
	free(s);
	arena_free(&b.arena);
}

/* Atomic adds of consecutive elements in one instruction (lower_memory.c
 * groups them as assign.c's atomic_vec allows): f16 pairs as f16x2 on every
 * target, Hopper's .v2/.v4 vectors of f32 and of f16/bf16 pairs; each old
 * value comes back as its own result. */
static void test_vector_atomics(void)
{
	static const struct {
		const char *target;
		DType d;
		int n;
		const char *ptx;
	} v[] = {
	        {"sm_80", DT_F16, 2, "atom.acq_rel.gpu.global.add.noftz.f16x2"},
	        {"sm_90a", DT_F16, 2, "atom.acq_rel.gpu.global.add.noftz.f16x2"},
	        {"sm_90a", DT_BF16, 2, "atom.acq_rel.gpu.global.add.noftz.bf16x2"},
	        {"sm_90a", DT_F32, 2, "atom.acq_rel.gpu.global.add.v2.f32"},
	        {"sm_90a", DT_F32, 4, "atom.acq_rel.gpu.global.add.v4.f32"},
	        {"sm_90a", DT_F16, 8, "atom.relaxed.cta.global.add.noftz.v4.f16x2"},
	        {"sm_90a", DT_BF16, 4, "atom.acq_rel.gpu.global.add.noftz.v2.bf16x2"},
	};
	for (size_t i = 0; i < COUNTOF(v); i++) {
		B b;
		b_init(&b, "vatomic", v[i].target, 1);
		Type ts[2] = {type_ptr(v[i].d), type_ptr(v[i].d)};
		const char *names[2] = {"acc", "old"};
		b_params(&b, 2, ts, names);
		TpVal acc = param(&b, 0), old = param(&b, 1);
		TpVal l = lane_id(&b), m = cmpv(&b, PRED_LT, l, cint(&b, DT_I32, 20));
		TpVal at = ptr_add(&b, acc, bin(&b, TP_MUL, l, cint(&b, DT_I32, v[i].n)));
		TpVal in[2 + 16];
		in[0] = at;
		for (int j = 0; j < v[i].n; j++)
			in[1 + j] = cast(&b, bin(&b, TP_ADD, l, cint(&b, DT_I32, j)), v[i].d);
		in[1 + v[i].n] = m;
		TpOp *o = op(&b, TP_ATOMIC, in, 2 + v[i].n, type_scalar(v[i].d), v[i].n);
		o->attr.atomic = ATOM_ADD;
		o->attr.i = v[i].n == 8 ? TIR_SEM_RELAXED | TIR_SCOPE_CTA << 8 : TIR_SEM_ACQ_REL;
		TpVal out = ptr_add(&b, old, bin(&b, TP_MUL, l, cint(&b, DT_I32, v[i].n)));
		store(&b, out, m, o->results, v[i].n);
		ret(&b);
		tp_verify(b.f);
		char *ptx = emit_text(&b, EMIT_PTX);
		if (ptx && !strstr(ptx, v[i].ptx)) {
			fprintf(stderr, "vector atomic %zu: PTX lacks '%s'\n", i, v[i].ptx);
			failures++;
		}
		free(ptx);
		size_t n = 0;
		free(cubin_for(&b, v[i].target, &n)); /* ptxas takes it */
		arena_free(&b.arena);
	}
}

/* ---- host rounding, diagnostics, the driver ------------------------------------------------ */

static void test_minifloat(void)
{
	CHECK(ec_round_minifloat(1.0, DT_F16) == 0x3c00);
	CHECK(ec_round_minifloat(-2.0, DT_F16) == 0xc000);
	CHECK(ec_round_minifloat(65504.0, DT_F16) == 0x7bff);
	CHECK(ec_round_minifloat(65520.0, DT_F16) == 0x7c00);       /* rounds up to inf */
	CHECK(ec_round_minifloat(0x1p-24, DT_F16) == 0x0001);       /* smallest subnormal */
	CHECK(ec_round_minifloat(0x1p-25, DT_F16) == 0x0000);       /* tie to even: 0 */
	CHECK(ec_round_minifloat(1.0 + 0x1p-11, DT_F16) == 0x3c00); /* tie to even */
	CHECK(ec_round_minifloat(NAN, DT_F16) == 0x7e00);
	CHECK(ec_round_minifloat(1.0, DT_BF16) == 0x3f80);
	CHECK(ec_round_minifloat(3.0e38, DT_BF16) == 0x7f62);
	CHECK(ec_round_minifloat(448.0, DT_F8E4M3) == 0x7e);
	CHECK(ec_round_minifloat(1000.0, DT_F8E4M3) == 0x7e); /* satfinite */
	CHECK(ec_round_minifloat(-INFINITY, DT_F8E4M3) == 0xfe);
	CHECK(ec_round_minifloat(0x1p-9, DT_F8E4M3) == 0x01);
	CHECK(ec_round_minifloat(NAN, DT_F8E4M3) == 0x7f);
	CHECK(ec_round_minifloat(57344.0, DT_F8E5M2) == 0x7b);
	CHECK(ec_round_minifloat(1e9, DT_F8E5M2) == 0x7b);
	CHECK(ec_round_minifloat(1.5, DT_F8E5M2) == 0x3e);
}

/* nvrtc's errors come back with the log; a PTX request gives PTX text. */
static void test_nvrtc_direct(void)
{
	Nvrtc nv;
	char err[512];
	if (!nvrtc_open(&nv, err, sizeof err))
		return;
	NvrtcOutput o;
	CHECK(!nvrtc_compile(&nv, "extern \"C\" __global__ void k() { undefined_thing(); }", "bad.cu",
			     80, "", false, NULL, 0, &o, err, sizeof err));
	CHECK(strstr(err, "NVRTC_ERROR_COMPILATION") != NULL);
	CHECK(o.log && strstr(o.log, "undefined_thing"));
	CHECK(o.code == NULL);
	nvrtc_output_free(&o);
	CHECK(nvrtc_compile(&nv, "extern \"C\" __global__ void k(int *p) { *p = 1; }", "ok.cu", 90,
			    "a", true, NULL, 0, &o, err, sizeof err));
	CHECK(o.code && strstr(o.code, ".target sm_90a") && o.code_len == strlen(o.code));
	nvrtc_output_free(&o);
	nvrtc_close(&nv);
	nvrtc_close(&nv); /* twice is a no-op */
}

static void test_llvm_rejected(void)
{
	B b;
	b_init(&b, "k", "sm_80", 1);
	ret(&b);
	DiagSink ds;
	diag_init(&ds);
	EmitResult r;
	CHECK(!emit_cuda(b.f, EMIT_LLVM_IR, NULL, &ds, &r));
	CHECK(ds.nerrors == 1);
	emit_result_free(&r);
	diag_free(&ds);
	arena_free(&b.arena);
}

static void test_driver(void)
{
	char err[512];
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	CudaDriver d;
	bool ok = cuda_open(&d, err, sizeof err);
	if (!h) {
		CHECK(!ok);
		CHECK(!strcmp(err, CUDA_NO_DRIVER_MSG));
		CHECK(!strcmp(err,
		              "no CUDA driver found (libcuda.so.1): install the NVIDIA driver, "
		              "or use --target cpu"));
	} else {
		dlclose(h);
		if (ok) {
			char name[32];
			cuda_target_name(&d, name, sizeof name);
			printf("GPU: %s (%s), driver %d\n", d.device_name, name, d.driver_version);
			CHECK(d.max_threads_per_block >= 1024);
			cuda_close(&d);
		} else {
			printf("libcuda present but unusable: %s\n", err);
		}
	}
	cuda_close(&d); /* closing twice / a zeroed driver is a no-op */
	int maj = 0, min = 0;
	CHECK(nvrtc_version(&maj, &min) && maj >= 11);
}

/* ---- tp_sink_smem_loads: shared loads move to their first use, never past a barrier ------ */

static int op_index(const TpBlock *b, const TpOp *o)
{
	for (int i = 0; i < b->nops; i++)
		if (b->ops[i] == o)
			return i;
	return -1;
}

static void test_sink_loads(void)
{
	B b;
	b_init(&b, "sink", "sm_80", 1);
	Type ts[1] = {type_scalar(DT_I32)};
	const char *names[1] = {"n"};
	b_params(&b, 1, ts, names);
	TpVal n = param(&b, 0), off = cint(&b, DT_I32, 0), t = ctrue(&b);
	Type f16 = type_scalar(DT_F16), f32 = type_scalar(DT_F32);
	/* a: smem load, then an unrelated add whose use comes later: a sinks
	 * to its use (the store st), the add toward its own */
	TpVal in2[2] = {off, t};
	TpOp *la = op(&b, TP_SMEM_LOAD, in2, 2, f32, 1);
	la->attr.i = 1;
	TpOp *add1 = op(&b, TP_ADD, (TpVal[]){n, n}, 2, type_scalar(DT_I32), 1);
	/* p: pure math on the ldmatrix results, computed early, used late */
	TpOp *lm0 = NULL;
	/* m: ldmatrix, then a shared store (an ldmatrix may pass it), then its use */
	TpOp *lm = op(&b, TP_LDMATRIX, &off, 1, f16, 2);
	lm->attr.i = 1;
	lm0 = op(&b, TP_MUL, (TpVal[]){lm->results[0], lm->results[1]}, 2, f16, 1);
	TpOp *st = op(&b, TP_SMEM_STORE, (TpVal[]){off, t, la->results[0]}, 3, type_scalar(DT_VOID), 0);
	st->attr.i = 1;
	/* s: smem load, then a shared store: s may not pass it */
	TpOp *ls = op(&b, TP_SMEM_LOAD, in2, 2, f32, 1);
	ls->attr.i = 1;
	TpOp *st2 = op(&b, TP_SMEM_STORE, (TpVal[]){off, t, la->results[0]}, 3, type_scalar(DT_VOID), 0);
	st2->attr.i = 1;
	TpOp *use_m = op(&b, TP_SMEM_STORE, (TpVal[]){off, t, lm0->results[0]}, 3, type_scalar(DT_VOID), 0);
	use_m->attr.i = 1;
	/* l: smem load, a barrier, its use: l stays above the barrier */
	TpOp *ll = op(&b, TP_SMEM_LOAD, in2, 2, f32, 1);
	ll->attr.i = 1;
	TpOp *bar = op(&b, TP_BARRIER, NULL, 0, type_scalar(DT_VOID), 0);
	TpOp *use_l = op(&b, TP_ADD, (TpVal[]){ll->results[0], ls->results[0]}, 2, f32, 1);
	/* n is still used here, so the add frees nothing where it stands and sinks */
	TpOp *use_add = op(&b, TP_SMEM_STORE, (TpVal[]){n, t, add1->results[0]}, 3, type_scalar(DT_VOID), 0);
	use_add->attr.i = 1;
	ret(&b);
	tp_sink_smem_loads(b.f);
	tp_verify(b.f);
	const TpBlock *bb = b.f->body;
	CHECK(op_index(bb, la) == op_index(bb, st) - 1);
	/* the add sinks past the barrier (loads do not) to its use */
	CHECK(op_index(bb, add1) == op_index(bb, use_add) - 1 && op_index(bb, add1) > op_index(bb, bar));
	CHECK(op_index(bb, lm) > op_index(bb, st2) && op_index(bb, lm) == op_index(bb, lm0) - 1 &&
	      op_index(bb, lm0) == op_index(bb, use_m) - 1);
	CHECK(op_index(bb, ls) < op_index(bb, st2));
	CHECK(op_index(bb, ll) < op_index(bb, bar));
	/* use_l is the last use of two loaded values: sinking it would keep two
	 * registers live instead of one, so it stays right after the barrier */
	CHECK(op_index(bb, use_l) == op_index(bb, bar) + 1);
	arena_free(&b.arena);
}

/* ---- source kernels: pointer tiles through shared memory, float atomics --------------- */

static const char src_kernels[] = SRC_KERNELS_SMEM_TILES
                                  "\n"
                                  "@triton.jit\n"
                                  "def minmax(X, V, R, n, B: tl.constexpr):\n"
                                  "    o = tl.arange(0, B)\n"
                                  "    m = o < n\n"
                                  "    r = tl.atomic_max(X + o, tl.load(V + o), mask=m)\n"
                                  "    r2 = tl.atomic_min(X + o, tl.load(V + o), mask=m)\n"
                                  "    r3 = tl.atomic_add(X + o, tl.load(V + o), mask=m)\n"
                                  "    tl.store(R + o, r + r2 + r3, mask=m)\n"
                                  "\n"
                                  "@triton.jit\n"
                                  "def mm_loop(A, Bm, C, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):\n"
                                  "    rm = tl.arange(0, BM)\n"
                                  "    rn = tl.arange(0, BN)\n"
                                  "    rk = tl.arange(0, BK)\n"
                                  "    acc = tl.zeros((BM, BN), tl.float32)\n"
                                  "    for k in range(0, K, BK):\n"
                                  "        x = tl.load(A + rm[:, None] * K + (k + rk)[None, :])\n"
                                  "        y = tl.load(Bm + (k + rk)[:, None] * BN + rn[None, :])\n"
                                  "        acc += tl.dot(x, y)\n"
                                  "    tl.store(C + rm[:, None] * BN + rn[None, :], acc)\n"
                                  "\n"
                                  "@triton.jit\n"
                                  "def mm_kmajor(A, Bt, C, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):\n"
                                  "    rm = tl.arange(0, BM)\n"
                                  "    rn = tl.arange(0, BN)\n"
                                  "    rk = tl.arange(0, BK)\n"
                                  "    acc = tl.zeros((BM, BN), tl.float32)\n"
                                  "    for k in range(0, K, BK):\n"
                                  "        x = tl.load(A + rm[:, None] * K + (k + rk)[None, :])\n"
                                  "        y = tl.load(Bt + rn[None, :] * K + (k + rk)[:, None])\n"
                                  "        acc += tl.dot(x, y)\n"
                                  "    tl.store(C + rm[:, None] * BN + rn[None, :], acc)\n"
                                  "\n"
                                  "@triton.jit\n"
                                  "def mm_masked(A, Bm, C, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):\n"
                                  "    rm = tl.arange(0, BM)\n"
                                  "    rn = tl.arange(0, BN)\n"
                                  "    rk = tl.arange(0, BK)\n"
                                  "    acc = tl.zeros((BM, BN), tl.float32)\n"
                                  "    for _ in range(0, tl.cdiv(K, BK)):\n"
                                  "        in_k = rk < K\n"
                                  "        x = tl.load(A + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & in_k[None, :], other=0.0)\n"
                                  "        y = tl.load(Bm + rk[:, None] * N + rn[None, :], mask=in_k[:, None] & (rn[None, :] < N), other=0.0)\n"
                                  "        acc = tl.dot(x, y, acc)\n"
                                  "        rk += BK\n"
                                  "    tl.store(C + rm[:, None] * N + rn[None, :], acc)\n"
                                  "\n"
                                  "@triton.jit\n"
                                  "def divs(X, Y, Q, R, B: tl.constexpr):\n"
                                  "    o = tl.arange(0, B)\n"
                                  "    x = tl.load(X + o)\n"
                                  "    y = tl.load(Y + o)\n"
                                  "    tl.store(Q + o, x / y)\n"
                                  "    tl.store(R + o, tl.div_rn(x, y))\n"
                                  "\n"
                                  "@triton.jit\n"
                                  "def sregs(Out, NS):\n"
                                  "    t0 = tl.extra.cuda.globaltimer()\n"
                                  "    while tl.extra.cuda.globaltimer() - t0 < NS:\n"
                                  "        pass\n"
                                  "    tl.store(Out, tl.extra.cuda.smid())\n";

/* Compiles a kernel of src_kernels through the driver to `dump` (CUDA C or
 * PTX; DUMP_NONE: a cubin) for `target`; returns the text (heap) or NULL
 * after reporting why; *regs and *spill (when given) get what ptxas said of
 * the cubin. */
static char *src_compile(tile_module *m, const char *kernel, const char *sig, const char *target,
                         DumpKind dump, int *regs, int *spill)
{
	const KernelInfo *ki = api_find_kernel(m, kernel);
	CHECK(ki != NULL);
	if (!ki)
		return NULL;
	Arena a;
	arena_init(&a);
	SpecArg *args = NULL;
	int nargs = 0;
	char err[256], *text = NULL;
	tile_kernel_options ko = {0};
	ko.target = target;
	CompileRequest req;
	if (parse_signature(sig, ki, &a, &args, &nargs, err, sizeof err) != 0 ||
	    api_make_request(m, kernel, args, nargs, &ko, &req) != TILE_OK) {
		fprintf(stderr, "%s %s: bad request\n", kernel, sig);
		failures++;
	} else {
		req.dump = dump;
		req.cache = NULL;
		DiagSink ds;
		diag_init(&ds);
		CompiledKernel ck;
		if (compile_kernel(&req, &ds, &ck, &text) != 0) {
			char *s = diag_render_all(&ds);
			fprintf(stderr, "%s %s on %s:\n%s\n", kernel, sig, target, s);
			free(s);
			failures++;
		} else {
			if (regs)
				*regs = ck.registers;
			if (spill)
				*spill = ck.spill_bytes;
			compiled_kernel_free(&ck);
		}
		diag_free(&ds);
	}
	arena_free(&a);
	return text;
}

static char *src_dump(tile_module *m, const char *kernel, const char *sig, const char *target,
                      DumpKind dump)
{
	return src_compile(m, kernel, sig, target, dump, NULL, NULL);
}

/* A cpu context (no cache) and the module of `src`; *m is NULL on failure. */
static void load_module(const char *name, const char *src, tile_context **ctx, tile_module **m)
{
	tile_context_options o = {0};
	o.target = "cpu";
	o.disable_cache = 1;
	*ctx = NULL;
	*m = NULL;
	CHECK(tile_context_create(ctx, &o) == TILE_OK);
	if (*ctx)
		CHECK(tile_module_load_source(*ctx, name, src, (size_t)-1, m) == TILE_OK);
}

static void test_source_kernels(void)
{
	tile_context *ctx;
	tile_module *m;
	load_module("k.tile", src_kernels, &ctx, &m);
	static const struct {
		const char *kernel, *sig, *has; /* has: in the CUDA C */
	} ks[] = {
	        /* a pointer tile through shared memory moves as uint64_t, cast back */
	        {"hist", "*i32:16,*i64:16,256", "(int32_t *)("},
	        {"flip", "*fp32:16,*fp32:16,32", NULL},
	        {"minmax", "*fp32:16,*fp32:16,*fp32:16,i32,16", "atom_fmax_f32"},
	        {"minmax", "*fp64:16,*fp64:16,*fp64:16,i32,16", "atom_fmin_f64"},
	        /* a loop carrying a 128-register accumulator asks for all the
	         * registers one block per SM allows; a 32-register one does not */
	        {"mm_loop", "*fp16:16,*fp16:16,*fp32:16,i32:16,128,128,32", "__launch_bounds__(128, 1)"},
	        {"mm_loop", "*fp16:16,*fp16:16,*fp32:16,i32:16,64,64,32", "__launch_bounds__(128) "},
	        /* 8-bit mma operands (4 consecutive k per register), A and a
	         * K-major B, come out of shared memory with ldmatrix, 4 values
	         * per word (int8: both targets have its mma) */
	        {"mm_kmajor", "*i8:16,*i8:16,*i32:16,i32:16,64,64,64", "ldmatrix.sync.aligned.m8n8.x4.shared.b16"},
	        {"mm_kmajor", "*i8:16,*i8:16,*i32:16,i32:16,64,64,64", "(int8_t)(t0[3] >> 24)"},
	        /* the operand masks of a masked K loop reach the mma layouts by
	         * ldmatrix of booleans, a byte each: each tests its own byte */
	        {"mm_masked", "*fp16:16,*fp16:16,*fp32:16,i32,i32:16,i32:16,16,16,32", "] >> 8) & 0xffu) != 0)"},
	        /* f32 `/` is div.full.f32 as in Triton; div_rn stays IEEE */
	        {"divs", "*fp32:16,*fp32:16,*fp32:16,*fp32:16,128", "div.full.f32"},
	        {"divs", "*fp32:16,*fp32:16,*fp32:16,*fp32:16,128", "= v13 / v15;"},
	        /* special registers: volatile reads, a fresh one per call */
	        {"sregs", "*i32:16,u64", "asm volatile(\"mov.u64 %0, %%globaltimer;\""},
	        {"sregs", "*i32:16,u64", "asm volatile(\"mov.u32 %0, %%smid;\""},
	};
	static const char *const targets[] = {"sm_80", "sm_90a"};
	for (int i = 0; m && i < (int)COUNTOF(ks); i++)
		for (int t = 0; t < 2; t++) {
			char *c = src_dump(m, ks[i].kernel, ks[i].sig, targets[t], DUMP_CUDA);
			if (c && ks[i].has && !strstr(c, ks[i].has)) {
				fprintf(stderr, "%s %s: no '%s' in the CUDA C\n", ks[i].kernel,
				        ks[i].sig, ks[i].has);
				failures++;
			}
			free(c);
			char *p = src_dump(m, ks[i].kernel, ks[i].sig, targets[t], DUMP_PTX);
			CHECK(p && strstr(p, ".entry"));
			free(p);
		}
	/* fp8 dots: m16n8k32 where the target has it (sm_89+), else f16 mma on
	 * operands converted a register (two values) at a time */
	static const char *const f8sig = "*fp8e4nv:16,*fp8e5:16,*fp32:16,i32:16,64,64,64";
	char *c80 = m ? src_dump(m, "mm_kmajor", f8sig, "sm_80", DUMP_CUDA) : NULL;
	char *c90 = m ? src_dump(m, "mm_kmajor", f8sig, "sm_90a", DUMP_CUDA) : NULL;
	CHECK(c80 && strstr(c80, "m16n8k16.row.col.f32.f16.f16.f32") &&
	      strstr(c80, "f8e4m3x2_to_f16x2((uint32_t)v") && strstr(c80, "f8e5m2x2_to_f16x2((uint32_t)v") &&
	      strstr(c80, "mul.rn.f16x2") && !strstr(c80, "e4m3.e5m2"));
	CHECK(c90 && strstr(c90, "m16n8k32.row.col.f32.e4m3.e5m2.f32") && !strstr(c90, "f16x2("));
	free(c80);
	free(c90);
	tile_module_destroy(m);
	tile_context_destroy(ctx);
}

/* A kernel whose default launch bounds make ptxas spill (four dots per
 * iteration, 128x128x32: ptxas chose 32 registers and 7 KB of spills per
 * thread; at 64x128 it no longer spills under its own budget) is
 * compiled again with one block per SM, and its PTX says so; kernels that
 * do not spill keep ptxas's budget. */
static const char spill_kernels[] =
	"import triton\n"
	"import triton.language as tl\n"
	"@triton.jit\n"
	"def mm4(A, B, C, S, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):\n"
	"    rm = tl.arange(0, BM)\n"
	"    rn = tl.arange(0, BN)\n"
	"    rk = tl.arange(0, BK)\n"
	"    acc = tl.zeros((BM, BN), tl.float32)\n"
	"    a_ptrs = A + rm[:, None] * K + rk[None, :]\n"
	"    b_ptrs = B + rk[:, None] + rn[None, :] * K\n"
	"    for k in range(0, K, 4 * BK):\n"
	"        for i in tl.static_range(4):\n"
	"            s = tl.load(S + k + i * BK + rn)\n"
	"            acc += tl.dot(tl.load(a_ptrs), tl.load(b_ptrs)) * s[None, :]\n"
	"            a_ptrs += BK\n"
	"            b_ptrs += BK\n"
	"    tl.store(C + rm[:, None] * BN + rn[None, :], acc)\n"
	"@triton.jit\n"
	"def flip(X, Y, B: tl.constexpr):\n"
	"    o = tl.arange(0, B)\n"
	"    tl.store(Y + B - 1 - o, tl.load(X + o))\n";

static void test_spill_retry(void)
{
	tile_context *ctx;
	tile_module *m;
	load_module("s.tile", spill_kernels, &ctx, &m);
	if (m) {
		char *p = src_dump(m, "mm4", "*fp16:16,*fp16:16,*fp32:16,*fp32:16,i32:16,128,128,32",
		                   "sm_90a", DUMP_PTX);
		CHECK(p && strstr(p, ".minnctapersm 1")); /* mm4 was compiled again with one block */
		free(p);
		/* the cubin's registers and spills as ptxas reported them (tile
		 * compile's report, tile_kernel_info): the retry's, 7 KB of spills
		 * under ptxas's own budget of 32 registers */
		int regs = -1, spill = -1;
		free(src_compile(m, "mm4", "*fp16:16,*fp16:16,*fp32:16,*fp32:16,i32:16,128,128,32", "sm_90a",
		                 DUMP_NONE, &regs, &spill));
		CHECK(regs > 128 && regs <= 255 && spill >= 0 && spill < 7000);
		free(src_compile(m, "flip", "*fp32:16,*fp32:16,128", "sm_90a", DUMP_NONE, &regs, &spill));
		CHECK(regs > 0 && regs < 64 && spill == 0);
		p = src_dump(m, "flip", "*fp32:16,*fp32:16,128", "sm_90a", DUMP_PTX);
		CHECK(p && strstr(p, ".entry") && !strstr(p, ".minnctapersm"));
		free(p);
	}
	tile_module_destroy(m);
	tile_context_destroy(ctx);
}

int main(void)
{
	Nvrtc nv;
	char err[512];
	test_minifloat();
	test_driver();
	if (!nvrtc_open(&nv, err, sizeof err)) {
		CHECK(!strcmp(err, NVRTC_NOT_FOUND_MSG));
		printf("skip: no libnvrtc\n");
		return failures ? 1 : 77;
	}
	nvrtc_close(&nv);
	have_gpu = cuda_open(&gpu, err, sizeof err);
	test_nvrtc_direct();
	test_llvm_rejected();
	test_vadd();
	test_shfl_reduce();
	test_smem();
	test_loops();
	test_mma_f16();
	test_mma_kinds();
	test_cp_async_pred();
	test_atomics();
	test_vector_atomics();
	test_elementwise();
	test_source_kernels();
	test_spill_retry();
	test_sink_loads();
	if (have_gpu)
		cuda_close(&gpu);
	else
		printf("no GPU: compiled only (%s)\n", err);
	if (failures) {
		fprintf(stderr, "%d failure(s)\n", failures);
		return 1;
	}
	return 0;
}

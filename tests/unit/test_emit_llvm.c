/* test_emit_llvm.c: hand-built thread programs through the CPU emitter and
 * ORC: emit an object, load it, call it on real buffers, compare with C. */
#include "codegen/emit.h"
#include "codegen/tp.h"
#include "jit/orc.h"
#include "tile.h"
#include "src_kernels.h"

#include <math.h>
#include <pthread.h>
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

typedef void (*KernelFn)(void **args, const int32_t pid[3], const int32_t nprog[3], void *smem,
                         void *rt);

static OrcJit *jit;
static const SrcLoc L0;

/* ---- builder shorthands ------------------------------------------------------------ */

typedef struct B {
	Arena arena;
	TpFunc *f;
	TpBlock *b; /* current block */
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

static void b_params(B *b, int n, const Type *tys)
{
	b->f->params = ARENA_NEWN(&b->arena, TpParam, n);
	b->f->nparams = n;
	for (int i = 0; i < n; i++) {
		b->f->params[i].name = arena_printf(&b->arena, "p%d", i);
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

static TpVal tid(B *b) /* warp * lanes + lane */
{
	TpVal l = op1(b, TP_LANE_ID, NULL, 0, type_scalar(DT_I32));
	TpVal w = op1(b, TP_WARP_ID, NULL, 0, type_scalar(DT_I32));
	return bin(b, TP_ADD, bin(b, TP_MUL, w, cint(b, DT_I32, b->f->lanes_per_warp)), l);
}

static TpVal ptr_add(B *b, TpVal p, TpVal off)
{
	TpVal in[2] = {p, off};
	return op1(b, TP_PTR_ADD, in, 2, tp_type(b->f, p));
}

static void load(B *b, TpVal p, TpVal mask, const TpVal *other, int vec, int flags, TpVal *out)
{
	TpVal in[18] = {p, mask};
	Type et = type_scalar((DType)tp_type(b->f, p).elem);
	TpVal zero = other ? 0 : (dtype_is_float(et.dt) ? cflt(b, et.dt, 0) : cint(b, et.dt, 0));
	for (int k = 0; k < vec; k++)
		in[2 + k] = other ? other[k] : zero;
	TpOp *o = op(b, TP_LOAD, in, 2 + vec, et, vec);
	o->attr.i = vec;
	o->attr.flags = flags;
	for (int k = 0; k < vec; k++)
		out[k] = o->results[k];
}

static void store(B *b, TpVal p, TpVal mask, const TpVal *vals, int vec, int flags)
{
	TpVal in[18] = {p, mask};
	for (int k = 0; k < vec; k++)
		in[2 + k] = vals[k];
	TpOp *o = op(b, TP_STORE, in, 2 + vec, type_scalar(DT_VOID), 0);
	o->attr.i = vec;
	o->attr.flags = flags;
}

static void ret(B *b) { op(b, TP_RETURN, NULL, 0, type_scalar(DT_VOID), 0); }

static KernelFn compile_with(B *b, const EmitCpuOptions *o, double *secs)
{
	tp_verify(b->f);
	DiagSink ds;
	diag_init(&ds);
	EmitResult r;
	KernelFn fn = NULL;
	if (!emit_llvm_with(b->f, EMIT_BINARY, o, &ds, &r)) {
		char *s = diag_render_all(&ds);
		fprintf(stderr, "emit_llvm(%s) failed:\n%s\n", b->f->name, s);
		free(s);
		failures++;
	} else {
		char err[512];
		fn = (KernelFn)orc_load(jit, r.binary, r.binary_len, b->f->name, err, sizeof err);
		if (!fn) {
			fprintf(stderr, "orc_load(%s): %s\n", b->f->name, err);
			failures++;
		}
		if (secs)
			*secs = r.seconds_codegen;
		emit_result_free(&r);
	}
	diag_free(&ds);
	return fn;
}

static KernelFn compile(B *b, double *secs) { return compile_with(b, NULL, secs); }

static void run_grid(KernelFn fn, void **args, int nx, void *smem, void *rt)
{
	int32_t np[3] = {nx, 1, 1};
	for (int i = 0; i < nx; i++) {
		int32_t pid[3] = {i, 0, 0};
		fn(args, pid, np, smem, rt);
	}
}

/* ---- vector add: BLOCK = T*vec per program, coalesced, masked tail ----------------- */

static void build_vadd(B *b, int vec, int flags)
{
	Type ts[4] = {type_ptr(DT_F32), type_ptr(DT_F32), type_ptr(DT_F32), type_scalar(DT_I32)};
	b_params(b, 4, ts);
	int T = b->f->num_warps * b->f->lanes_per_warp;
	TpVal x = param(b, 0), y = param(b, 1), out = param(b, 2), n = param(b, 3);
	TpVal pid = op1(b, TP_PROGRAM_ID, NULL, 0, type_scalar(DT_I32));
	TpVal base = bin(b, TP_MUL, pid, cint(b, DT_I32, T * vec));
	TpVal off = bin(b, TP_ADD, base, bin(b, TP_MUL, tid(b), cint(b, DT_I32, vec)));
	TpVal mask = cmpv(b, PRED_LT, off, n); /* n is a multiple of vec in the test */
	TpVal px = ptr_add(b, x, off), py = ptr_add(b, y, off), po = ptr_add(b, out, off);
	TpVal vx[8], vy[8], vs[8];
	load(b, px, mask, NULL, vec, flags, vx);
	load(b, py, mask, NULL, vec, flags, vy);
	for (int k = 0; k < vec; k++)
		vs[k] = bin(b, TP_ADD, vx[k], vy[k]);
	store(b, po, mask, vs, vec, flags);
	ret(b);
}

static void test_vadd(const char *target, int warps, int vec, int flags)
{
	B b;
	b_init(&b, "vadd", target, warps);
	build_vadd(&b, vec, flags);
	double secs = 0;
	KernelFn fn = compile(&b, &secs);
	if (fn) {
		int T = warps * b.f->lanes_per_warp, blk = T * vec;
		int n = 3 * blk + 5 * vec;
		int grid = (n + blk - 1) / blk, cap = grid * blk + 16;
		float *x = calloc((size_t)cap, 4), *y = calloc((size_t)cap, 4),
		      *o = calloc((size_t)cap, 4);
		for (int i = 0; i < cap; i++) {
			x[i] = (float)i * 0.5f;
			y[i] = 1000.0f - (float)i;
			o[i] = -7.0f;
		}
		void *args[4] = {&x, &y, &o, &n};
		run_grid(fn, args, grid, NULL, NULL);
		int bad = 0;
		for (int i = 0; i < cap; i++) {
			float want = i < n ? x[i] + y[i] : -7.0f;
			if (o[i] != want && bad++ < 5)
				fprintf(stderr, "vadd[%s w%d v%d f%d] o[%d] = %g, want %g\n",
				        target, warps, vec, flags, i, o[i], want);
		}
		CHECK(bad == 0);
		free(x);
		free(y);
		free(o);
	}
	printf("vadd %s warps=%d vec=%d %s: codegen %.2f ms\n", target, warps, vec,
	       flags & TP_COALESCED ? "coalesced" : "gather", secs * 1e3);
	arena_free(&b.arena);
}

/* ---- more builder shorthands ---------------------------------------------------------- */

static TpVal un(B *b, TpOpKind k, TpVal x, Type t) { return op1(b, k, &x, 1, t); }

static void set_uniform(B *b, TpVal v, bool u) { b->f->vals.data[v].uniform = u; }

static TpVal yield_op(B *b, const TpVal *v, int n)
{
	op(b, TP_YIELD, v, n, type_scalar(DT_VOID), 0);
	return 0;
}

static TpVal ld1(B *b, TpVal p, TpVal mask, int flags)
{
	TpVal r;
	load(b, p, mask, NULL, 1, flags, &r);
	return r;
}

static void st1(B *b, TpVal p, TpVal mask, TpVal v, int flags) { store(b, p, mask, &v, 1, flags); }

static TpVal ctrue(B *b) { return cint(b, DT_I1, 1); }

/* ---- gather load with `other`, reversed index ------------------------------------------- */

static void test_gather(void)
{
	B b;
	b_init(&b, "gather", "cpu", 2);
	Type ts[3] = {type_ptr(DT_I32), type_ptr(DT_I32), type_scalar(DT_I32)};
	b_params(&b, 3, ts);
	int T = 16;
	TpVal x = param(&b, 0), out = param(&b, 1), n = param(&b, 2);
	TpVal t = tid(&b);
	TpVal src = bin(&b, TP_SUB, bin(&b, TP_SUB, n, cint(&b, DT_I32, 1)), t); /* n-1-t */
	TpVal mask = cmpv(&b, PRED_GE, src, cint(&b, DT_I32, 0));
	TpVal other = cint(&b, DT_I32, -1), v;
	load(&b, ptr_add(&b, x, src), mask, &other, 1, 0, &v);
	st1(&b, ptr_add(&b, out, t), ctrue(&b), v, TP_COALESCED);
	ret(&b);
	KernelFn fn = compile(&b, NULL);
	if (fn) {
		int32_t xs[16], o[16];
		for (int i = 0; i < 16; i++)
			xs[i] = 100 + i;
		int nn = 11;
		int32_t *px = xs, *po = o;
		void *args[3] = {&px, &po, &nn};
		run_grid(fn, args, 1, NULL, NULL);
		for (int i = 0; i < T; i++)
			CHECK(o[i] == (nn - 1 - i >= 0 ? 100 + nn - 1 - i : -1));
	}
	arena_free(&b.arena);
}

/* ---- lane loops: masked 16-bit vec-2 gather with `other`, scatter with overlapping
 * addresses (last lane wins), shared-memory round trip. At 128 lanes these are lane
 * loops; with `pad` more masked gathers (past LANE_CALLS_OVER) the loops run in
 * libtile (rt_lanes.c), and with `spad` more shared-memory gathers those do (counted
 * apart from the global ones); at 16 lanes the 16-bit accesses under a runtime mask
 * take lane loops rather than LLVM's per-lane expansion. -------------------------------- */

static void test_lane_loop(const char *target, int warps, int pad, int spad)
{
	B b;
	b_init(&b, "lane_loop", target, warps);
	int T = warps * b.f->lanes_per_warp, L = T / 2 + 3; /* lanes 0..L are enabled */
	b.f->smem_bytes = T * 4;
	Type ts[5] = {type_ptr(DT_I16), type_ptr(DT_I16), type_ptr(DT_I32), type_ptr(DT_I32),
	              type_ptr(DT_I32)};
	b_params(&b, 5, ts);
	TpVal x = param(&b, 0), out = param(&b, 1), sc = param(&b, 2), o2 = param(&b, 3),
	      o3 = param(&b, 4);
	TpVal t = tid(&b), two = cint(&b, DT_I32, 2);
	TpVal src = bin(&b, TP_SUB, cint(&b, DT_I32, L), t); /* L-t */
	TpVal mask = cmpv(&b, PRED_GE, src, cint(&b, DT_I32, 0));
	TpVal other[2] = {cint(&b, DT_I16, -1), cint(&b, DT_I16, -2)}, v[2];
	load(&b, ptr_add(&b, x, bin(&b, TP_MUL, src, two)), mask, other, 2, 0, v);
	store(&b, ptr_add(&b, out, bin(&b, TP_MUL, t, two)), ctrue(&b), v, 2, TP_COALESCED);
	/* sc[t % 8] = t for t <= L */
	TpVal mL = cmpv(&b, PRED_LE, t, cint(&b, DT_I32, L));
	st1(&b, ptr_add(&b, sc, bin(&b, TP_REM, t, cint(&b, DT_I32, 8))), mL, t, 0);
	/* o3[t] = sum over j < pad of (t <= L ? x[(7t + j) % 200] : 0) */
	TpVal acc = cint(&b, DT_I32, 0), z16 = cint(&b, DT_I16, 0);
	for (int j = 0; j < pad; j++) {
		TpVal i = bin(&b, TP_REM, bin(&b, TP_ADD, bin(&b, TP_MUL, t, cint(&b, DT_I32, 7)),
		                              cint(&b, DT_I32, j)),
		              cint(&b, DT_I32, 200));
		TpVal xv;
		load(&b, ptr_add(&b, x, i), mL, &z16, 1, 0, &xv);
		acc = bin(&b, TP_ADD, acc, un(&b, TP_CAST, xv, type_scalar(DT_I32)));
	}
	st1(&b, ptr_add(&b, o3, t), ctrue(&b), acc, TP_COALESCED);
	/* smem[T-1 - t] = t * 3; barrier; o2[t] = smem[t] (word offsets * 4) */
	TpVal four = cint(&b, DT_I32, 4);
	TpVal rev = bin(&b, TP_SUB, cint(&b, DT_I32, T - 1), t);
	TpVal in[3] = {bin(&b, TP_MUL, rev, four), ctrue(&b), bin(&b, TP_MUL, t, cint(&b, DT_I32, 3))};
	TpOp *so = op(&b, TP_SMEM_STORE, in, 3, type_scalar(DT_VOID), 0);
	so->attr.i = 1;
	op(&b, TP_BARRIER, NULL, 0, type_scalar(DT_VOID), 0);
	TpVal in2[2] = {bin(&b, TP_MUL, t, four), ctrue(&b)};
	TpOp *lo = op(&b, TP_SMEM_LOAD, in2, 2, type_scalar(DT_I32), 1);
	lo->attr.i = 1;
	/* + sum over j < spad of smem[(t + j) % T] */
	TpVal sacc = lo->results[0];
	for (int j = 0; j < spad; j++) {
		TpVal w = bin(&b, TP_REM, bin(&b, TP_ADD, t, cint(&b, DT_I32, j)), cint(&b, DT_I32, T));
		TpVal in3[2] = {bin(&b, TP_MUL, w, four), ctrue(&b)};
		TpOp *lj = op(&b, TP_SMEM_LOAD, in3, 2, type_scalar(DT_I32), 1);
		lj->attr.i = 1;
		sacc = bin(&b, TP_ADD, sacc, lj->results[0]);
	}
	st1(&b, ptr_add(&b, o2, t), ctrue(&b), sacc, TP_COALESCED);
	ret(&b);
	KernelFn fn = compile(&b, NULL);
	if (fn) {
		int16_t xs[256], o[256];
		int32_t s[8], r[128], q[128];
		for (int i = 0; i < 256; i++)
			xs[i] = (int16_t)(1000 + i);
		for (int i = 0; i < 8; i++)
			s[i] = -5;
		_Alignas(16) unsigned char smem[512];
		int16_t *px = xs, *po = o;
		int32_t *ps = s, *pr = r, *pq = q;
		void *args[5] = {&px, &po, &ps, &pr, &pq};
		run_grid(fn, args, 1, smem, NULL);
		for (int i = 0; i < T; i++)
			for (int k = 0; k < 2; k++) {
				int want = L - i >= 0 ? 1000 + 2 * (L - i) + k : -1 - k;
				if (o[2 * i + k] != want)
					fprintf(stderr, "lane_loop[%s] o[%d] = %d, want %d\n", target,
					        2 * i + k, o[2 * i + k], want);
				CHECK(o[2 * i + k] == want);
			}
		for (int j = 0; j < 8; j++)
			CHECK(s[j] == j + 8 * ((L - j) / 8));
		for (int i = 0; i < T; i++) {
			int32_t rw = (T - 1 - i) * 3;
			for (int j = 0; j < spad; j++)
				rw += (T - 1 - (i + j) % T) * 3;
			CHECK(r[i] == rw);
			int32_t want = 0;
			for (int j = 0; j < pad && i <= L; j++)
				want += xs[(7 * i + j) % 200];
			CHECK(q[i] == want);
		}
	}
	arena_free(&b.arena);
}

/* ---- warp shuffles: butterfly sum with shfl_xor, rotation with shfl_idx ------------------ */

static void test_shfl(void)
{
	B b;
	b_init(&b, "shfl", "cuda-emu", 2);
	Type ts[3] = {type_ptr(DT_F32), type_ptr(DT_F32), type_ptr(DT_F32)};
	b_params(&b, 3, ts);
	TpVal x = param(&b, 0), o1 = param(&b, 1), o2 = param(&b, 2);
	TpVal t = tid(&b);
	TpVal v = ld1(&b, ptr_add(&b, x, t), ctrue(&b), TP_COALESCED), s = v;
	for (int m = 16; m >= 1; m /= 2) {
		TpOp *o = op(&b, TP_SHFL_XOR, &s, 1, type_scalar(DT_F32), 1);
		o->attr.i = m;
		s = bin(&b, TP_ADD, s, o->results[0]);
	}
	st1(&b, ptr_add(&b, o1, t), ctrue(&b), s, TP_COALESCED);
	TpVal lane = op1(&b, TP_LANE_ID, NULL, 0, type_scalar(DT_I32));
	TpVal srcl = bin(&b, TP_ADD, lane, cint(&b, DT_I32, 1)); /* wraps: & 31 in the op */
	TpVal in[2] = {v, srcl};
	TpVal r = op1(&b, TP_SHFL_IDX, in, 2, type_scalar(DT_F32));
	st1(&b, ptr_add(&b, o2, t), ctrue(&b), r, TP_COALESCED);
	ret(&b);
	KernelFn fn = compile(&b, NULL);
	if (fn) {
		float xs[64], a[64], c[64];
		for (int i = 0; i < 64; i++)
			xs[i] = (float)(i * i % 37);
		float *px = xs, *pa = a, *pc = c;
		void *args[3] = {&px, &pa, &pc};
		run_grid(fn, args, 1, NULL, NULL);
		for (int w = 0; w < 2; w++) {
			float sum = 0;
			for (int l = 0; l < 32; l++)
				sum += xs[w * 32 + l];
			for (int l = 0; l < 32; l++) {
				CHECK(a[w * 32 + l] == sum);
				CHECK(c[w * 32 + l] == xs[w * 32 + (l + 1) % 32]);
			}
		}
	}
	arena_free(&b.arena);
}

/* ---- shared memory round trip (vec 2), reversed across warps ------------------------------ */

static void test_smem(void)
{
	B b;
	b_init(&b, "smem", "cpu", 4);
	b.f->smem_bytes = 32 * 8;
	Type ts[2] = {type_ptr(DT_I32), type_ptr(DT_I32)};
	b_params(&b, 2, ts);
	TpVal x = param(&b, 0), out = param(&b, 1);
	TpVal t = tid(&b);
	TpVal two = cint(&b, DT_I32, 2);
	TpVal v[2];
	load(&b, ptr_add(&b, x, bin(&b, TP_MUL, t, two)), ctrue(&b), NULL, 2, TP_COALESCED, v);
	TpVal off = bin(&b, TP_MUL, t, cint(&b, DT_I32, 8));
	TpVal in[4] = {off, ctrue(&b), v[0], v[1]};
	TpOp *so = op(&b, TP_SMEM_STORE, in, 4, type_scalar(DT_VOID), 0);
	so->attr.i = 2;
	op(&b, TP_BARRIER, NULL, 0, type_scalar(DT_VOID), 0);
	TpVal rt = bin(&b, TP_SUB, cint(&b, DT_I32, 31), t);
	TpVal in2[2] = {bin(&b, TP_MUL, rt, cint(&b, DT_I32, 8)), ctrue(&b)};
	TpOp *lo = op(&b, TP_SMEM_LOAD, in2, 2, type_scalar(DT_I32), 2);
	lo->attr.i = 2;
	TpVal r[2] = {lo->results[0], lo->results[1]};
	store(&b, ptr_add(&b, out, bin(&b, TP_MUL, t, two)), ctrue(&b), r, 2, TP_COALESCED);
	/* uniform smem access: word 0 read back by everyone, stored at out[64] */
	TpVal in3[2] = {cint(&b, DT_I32, 0), ctrue(&b)};
	TpOp *lu = op(&b, TP_SMEM_LOAD, in3, 2, type_scalar(DT_I32), 1);
	lu->attr.i = 1;
	st1(&b, ptr_add(&b, out, cint(&b, DT_I32, 64)), ctrue(&b), lu->results[0], 0);
	ret(&b);
	KernelFn fn = compile(&b, NULL);
	if (fn) {
		int32_t xs[64], o[65];
		for (int i = 0; i < 64; i++)
			xs[i] = i * 3 + 1;
		_Alignas(16) unsigned char smem[256];
		int32_t *px = xs, *po = o;
		void *args[2] = {&px, &po};
		run_grid(fn, args, 1, smem, NULL);
		for (int i = 0; i < 32; i++)
			for (int k = 0; k < 2; k++)
				CHECK(o[2 * i + k] == xs[2 * (31 - i) + k]);
		CHECK(o[64] == xs[0]);
	}
	arena_free(&b.arena);
}

/* ---- for loop with a varying and a uniform iter arg; if; while --------------------------- */

static void test_control(void)
{
	B b;
	b_init(&b, "control", "cpu", 1);
	Type ts[3] = {type_ptr(DT_F32), type_ptr(DT_F32), type_scalar(DT_I32)};
	b_params(&b, 3, ts);
	TpVal x = param(&b, 0), out = param(&b, 1), n = param(&b, 2);
	TpVal t = tid(&b);
	TpVal zero = cflt(&b, DT_F32, 0), z32 = cint(&b, DT_I32, 0);
	TpVal fin[5] = {z32, n, cint(&b, DT_I32, 1), zero, z32};
	TpOp *fo = op(&b, TP_FOR, fin, 5, type_scalar(DT_F32), 0);
	fo->nout = 2;
	fo->results = ARENA_NEWN(&b.arena, TpVal, 2);
	fo->results[0] = tp_new_val(b.f, type_scalar(DT_F32), false);
	fo->results[1] = tp_new_val(b.f, type_scalar(DT_I32), true);
	tp_op_add_regions(b.f, fo, 1);
	TpBlock *body = &fo->regions[0];
	TpVal iv = tp_block_add_arg(b.f, body, type_scalar(DT_I32), true);
	TpVal acc = tp_block_add_arg(b.f, body, type_scalar(DT_F32), false);
	TpVal cnt = tp_block_add_arg(b.f, body, type_scalar(DT_I32), true);
	TpBlock *save = b.b;
	b.b = body;
	TpVal idx = bin(&b, TP_ADD, bin(&b, TP_MUL, iv, cint(&b, DT_I32, 8)), t);
	TpVal v = ld1(&b, ptr_add(&b, x, idx), ctrue(&b), TP_COALESCED);
	TpVal ys[2] = {bin(&b, TP_ADD, acc, v), bin(&b, TP_ADD, cnt, cint(&b, DT_I32, 2))};
	yield_op(&b, ys, 2);
	b.b = save;
	TpVal sum = fo->results[0], count = fo->results[1];
	/* if (count > 4) r = sum * 2 else r = sum + 1000 */
	TpVal c = cmpv(&b, PRED_GT, count, cint(&b, DT_I32, 4));
	TpOp *io = op(&b, TP_IF, &c, 1, type_scalar(DT_F32), 1);
	set_uniform(&b, io->results[0], false);
	tp_op_add_regions(b.f, io, 2);
	b.b = &io->regions[0];
	TpVal r1 = bin(&b, TP_MUL, sum, cflt(&b, DT_F32, 2));
	yield_op(&b, &r1, 1);
	b.b = &io->regions[1];
	TpVal r2 = bin(&b, TP_ADD, sum, cflt(&b, DT_F32, 1000));
	yield_op(&b, &r2, 1);
	b.b = save;
	st1(&b, ptr_add(&b, out, t), ctrue(&b), io->results[0], TP_COALESCED);
	/* while (i < n*5) i += 3 ; out[8] = i (uniform store) */
	TpOp *wo = op(&b, TP_WHILE, &z32, 1, type_scalar(DT_I32), 1);
	set_uniform(&b, wo->results[0], true);
	tp_op_add_regions(b.f, wo, 2);
	TpVal wi = tp_block_add_arg(b.f, &wo->regions[0], type_scalar(DT_I32), true);
	b.b = &wo->regions[0];
	TpVal wc = cmpv(&b, PRED_LT, wi, bin(&b, TP_MUL, n, cint(&b, DT_I32, 5)));
	TpVal cin[2] = {wc, wi};
	op(&b, TP_CONDITION, cin, 2, type_scalar(DT_VOID), 0);
	TpVal wa = tp_block_add_arg(b.f, &wo->regions[1], type_scalar(DT_I32), true);
	b.b = &wo->regions[1];
	TpVal wn = bin(&b, TP_ADD, wa, cint(&b, DT_I32, 3));
	yield_op(&b, &wn, 1);
	b.b = save;
	TpVal fw = un(&b, TP_CAST, wo->results[0], type_scalar(DT_F32));
	st1(&b, ptr_add(&b, out, cint(&b, DT_I32, 8)), ctrue(&b), fw, 0);
	ret(&b);
	KernelFn fn = compile(&b, NULL);
	for (int nn = 1; fn && nn <= 4; nn++) {
		float xs[32], o[9];
		for (int i = 0; i < 32; i++)
			xs[i] = (float)i;
		float *px = xs, *po = o;
		void *args[3] = {&px, &po, &nn};
		run_grid(fn, args, 1, NULL, NULL);
		for (int l = 0; l < 8; l++) {
			float s = 0;
			for (int i = 0; i < nn; i++)
				s += xs[i * 8 + l];
			CHECK(o[l] == (2 * nn > 4 ? s * 2 : s + 1000));
		}
		int w = 0;
		while (w < nn * 5)
			w += 3;
		CHECK(o[8] == (float)w);
	}
	arena_free(&b.arena);
}

/* ---- a block too long for machine code in one piece ------------------------------------ */

/* split_big_blocks cuts straight-line code into chunks; here the long block
 * is a loop body whose value is carried around the back edge, so the loop's
 * phi must be retargeted to the last chunk. */
static void test_long_block(void)
{
	enum { STEPS = 6000, TRIPS = 3 }; /* ~12k instructions: several chunks */
	B b;
	b_init(&b, "long_block", "cpu", 1);
	Type ts[2] = {type_ptr(DT_I32), type_ptr(DT_I32)};
	b_params(&b, 2, ts);
	TpVal x = param(&b, 0), out = param(&b, 1);
	TpVal t = tid(&b);
	TpVal v0 = ld1(&b, ptr_add(&b, x, t), ctrue(&b), TP_COALESCED);
	TpVal fin[4] = {cint(&b, DT_I32, 0), cint(&b, DT_I32, TRIPS), cint(&b, DT_I32, 1), v0};
	TpOp *fo = op(&b, TP_FOR, fin, 4, type_scalar(DT_I32), 1);
	set_uniform(&b, fo->results[0], false);
	tp_op_add_regions(b.f, fo, 1);
	TpBlock *body = &fo->regions[0];
	tp_block_add_arg(b.f, body, type_scalar(DT_I32), true);
	TpVal acc = tp_block_add_arg(b.f, body, type_scalar(DT_I32), false);
	TpBlock *save = b.b;
	b.b = body;
	for (int j = 0; j < STEPS; j++) /* nothing LLVM can fold: v = (v * 3) ^ j */
		acc = bin(&b, TP_XOR, bin(&b, TP_MUL, acc, cint(&b, DT_I32, 3)), cint(&b, DT_I32, j));
	yield_op(&b, &acc, 1);
	b.b = save;
	st1(&b, ptr_add(&b, out, t), ctrue(&b), fo->results[0], TP_COALESCED);
	ret(&b);
	KernelFn fn = compile(&b, NULL);
	if (fn) {
		int32_t xs[8], o[8];
		for (int i = 0; i < 8; i++)
			xs[i] = 11 * i - 5;
		int32_t *px = xs, *po = o;
		void *args[2] = {&px, &po};
		run_grid(fn, args, 1, NULL, NULL);
		for (int l = 0; l < 8; l++) {
			uint32_t v = (uint32_t)xs[l];
			for (int k = 0; k < TRIPS; k++)
				for (int j = 0; j < STEPS; j++)
					v = (v * 3u) ^ (uint32_t)j;
			CHECK(o[l] == (int32_t)v);
		}
	}
	arena_free(&b.arena);
}

/* ---- mma.sync emulation vs a plain C matmul ----------------------------------------------- */

/* PTX ISA fragment layouts, written out as the ISA text states them. */
static void ref_a(int kind, int lane, int i, int *r, int *c)
{
	int g = lane / 4, t = lane % 4;
	if (kind == MMA_M16N8K8_TF32_F32) {
		*r = (i == 0 || i == 2) ? g : g + 8;
		*c = (i == 0 || i == 1) ? t : t + 4;
	} else if (kind == MMA_M16N8K32_S8_S32 || kind >= MMA_M16N8K32_E4M3_E4M3_F32) {
		/* m16n8k32 .s8/.u8/.e4m3/.e5m2 */
		*r = (i < 4 || (i >= 8 && i < 12)) ? g : g + 8;
		*c = i < 8 ? t * 4 + (i & 3) : t * 4 + (i & 3) + 16;
	} else {
		*r = (i < 2 || (i >= 4 && i < 6)) ? g : g + 8;
		*c = i < 4 ? t * 2 + (i & 1) : t * 2 + (i & 1) + 8;
	}
}

static void ref_b(int kind, int lane, int i, int *r, int *c)
{
	int g = lane / 4, t = lane % 4;
	*c = g;
	if (kind == MMA_M16N8K8_TF32_F32)
		*r = i == 0 ? t : t + 4;
	else if (kind == MMA_M16N8K32_S8_S32 || kind >= MMA_M16N8K32_E4M3_E4M3_F32)
		*r = i < 4 ? t * 4 + (i & 3) : t * 4 + (i & 3) + 16;
	else
		*r = i < 2 ? t * 2 + (i & 1) : t * 2 + (i & 1) + 8;
}

static uint16_t f32_to_f16_bits(float f)
{
	_Float16 h = (_Float16)f;
	uint16_t u;
	memcpy(&u, &h, 2);
	return u;
}

static uint16_t f32_to_bf16_bits(float f) /* exact for the small integers used here */
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return (uint16_t)(u >> 16);
}

/* float8 value of code x (e5m2 or e4m3fn), straight from the formats' definitions */
static double f8_ref(unsigned x, bool e5)
{
	int eb = e5 ? 5 : 4, mb = 7 - eb, bias = e5 ? 15 : 7;
	unsigned e = (x >> mb) & ((1u << eb) - 1), m = x & ((1u << mb) - 1);
	double mag = e ? ldexp(1.0 + (double)m / (1 << mb), (int)e - bias)
	               : ldexp((double)m / (1 << mb), 1 - bias);
	return (x & 0x80) ? -mag : mag;
}

/* the float8 code of a value it represents exactly */
static uint8_t f8_code(double v, bool e5)
{
	for (unsigned x = 0; x < 256; x++)
		if (f8_ref(x, e5) == v)
			return (uint8_t)x;
	return 0xff;
}

static void test_mma(int kind)
{
	static const int NA[] = {8, 8, 4, 16, 16, 16, 16, 16}, NB[] = {4, 4, 2, 8, 8, 8, 8, 8},
	                 KK[] = {16, 16, 8, 32, 32, 32, 32, 32};
	static const DType IN[] = {DT_F16,    DT_BF16,   DT_F32,    DT_I8,
	                           DT_F8E4M3, DT_F8E4M3, DT_F8E5M2, DT_F8E5M2},
	                   INB[] = {DT_F16,    DT_BF16,   DT_F32,    DT_I8,
	                            DT_F8E4M3, DT_F8E5M2, DT_F8E4M3, DT_F8E5M2};
	int na = NA[kind], nb = NB[kind], K = KK[kind], W = 2, T = 64;
	DType in = IN[kind], inb = INB[kind], acc = kind == MMA_M16N8K32_S8_S32 ? DT_I32 : DT_F32;
	B b;
	b_init(&b, "mma", "cuda-emu", W);
	Type ts[4] = {type_ptr(in), type_ptr(inb), type_ptr(acc), type_ptr(acc)};
	b_params(&b, 4, ts);
	TpVal pa = param(&b, 0), pb = param(&b, 1), pc = param(&b, 2), pd = param(&b, 3);
	TpVal t = tid(&b), ops[32];
	int n = 0;
	for (int i = 0; i < na; i++)
		ops[n++] = ld1(&b, ptr_add(&b, pa, bin(&b, TP_ADD, t, cint(&b, DT_I32, i * T))),
		               ctrue(&b), TP_COALESCED);
	for (int i = 0; i < nb; i++)
		ops[n++] = ld1(&b, ptr_add(&b, pb, bin(&b, TP_ADD, t, cint(&b, DT_I32, i * T))),
		               ctrue(&b), TP_COALESCED);
	for (int i = 0; i < 4; i++)
		ops[n++] = ld1(&b, ptr_add(&b, pc, bin(&b, TP_ADD, t, cint(&b, DT_I32, i * T))),
		               ctrue(&b), TP_COALESCED);
	TpOp *m = op(&b, TP_MMA, ops, n, type_scalar(acc), 4);
	m->attr.i = kind;
	for (int i = 0; i < 4; i++)
		st1(&b, ptr_add(&b, pd, bin(&b, TP_ADD, t, cint(&b, DT_I32, i * T))), ctrue(&b),
		    m->results[i], TP_COALESCED);
	ret(&b);
	double secs = 0;
	KernelFn fn = compile(&b, &secs);
	printf("mma kind %d (2 warps): codegen %.2f ms\n", kind, secs * 1e3);
	if (fn) {
		double A[2][16][32], Bm[2][32][8], C[2][16][8];
		unsigned char abuf[16 * 64 * 4], bbuf[8 * 64 * 4];
		float cf[4 * 64], df[4 * 64];
		int32_t *ci_ = (int32_t *)cf, *di = (int32_t *)df;
		for (int w = 0; w < W; w++) {
			for (int r = 0; r < 16; r++)
				for (int k = 0; k < K; k++)
					A[w][r][k] = ldexp((double)((r * 7 + k * 3 + w * 5) % 9 - 4),
					                   kind >= MMA_M16N8K32_E4M3_E4M3_F32 ? -(k % 4) : 0);
			for (int k = 0; k < K; k++)
				for (int c = 0; c < 8; c++)
					Bm[w][k][c] = (double)((k * 5 + c * 11 + w) % 7 - 3);
			for (int r = 0; r < 16; r++)
				for (int c = 0; c < 8; c++)
					C[w][r][c] = (double)(r - c + w * 10);
		}
		for (int w = 0; w < W; w++)
			for (int l = 0; l < 32; l++) {
				int tt = w * 32 + l, r, c;
				for (int i = 0; i < na; i++) {
					ref_a(kind, l, i, &r, &c);
					float v = (float)A[w][r][c];
					int at = i * T + tt;
					if (in == DT_F16)
						((uint16_t *)abuf)[at] = f32_to_f16_bits(v);
					else if (in == DT_BF16)
						((uint16_t *)abuf)[at] = f32_to_bf16_bits(v);
					else if (in == DT_F32)
						((float *)abuf)[at] = v;
					else if (in == DT_I8)
						((int8_t *)abuf)[at] = (int8_t)v;
					else
						abuf[at] = f8_code(v, in == DT_F8E5M2);
				}
				for (int i = 0; i < nb; i++) {
					ref_b(kind, l, i, &r, &c);
					float v = (float)Bm[w][r][c];
					int at = i * T + tt;
					if (in == DT_F16)
						((uint16_t *)bbuf)[at] = f32_to_f16_bits(v);
					else if (in == DT_BF16)
						((uint16_t *)bbuf)[at] = f32_to_bf16_bits(v);
					else if (in == DT_F32)
						((float *)bbuf)[at] = v;
					else if (inb == DT_I8)
						((int8_t *)bbuf)[at] = (int8_t)v;
					else
						bbuf[at] = f8_code(v, inb == DT_F8E5M2);
				}
				for (int i = 0; i < 4; i++) {
					r = l / 4 + (i >= 2 ? 8 : 0);
					c = (l % 4) * 2 + (i & 1);
					if (acc == DT_I32)
						ci_[i * T + tt] = (int32_t)C[w][r][c];
					else
						cf[i * T + tt] = (float)C[w][r][c];
				}
			}
		void *pA = abuf, *pB = bbuf, *pC = cf, *pD = df;
		void *args[4] = {&pA, &pB, &pC, &pD};
		run_grid(fn, args, 1, NULL, NULL);
		int bad = 0;
		for (int w = 0; w < W; w++)
			for (int l = 0; l < 32; l++)
				for (int i = 0; i < 4; i++) {
					int r = l / 4 + (i >= 2 ? 8 : 0), c = (l % 4) * 2 + (i & 1);
					double want = C[w][r][c];
					for (int k = 0; k < K; k++)
						want += A[w][r][k] * Bm[w][k][c];
					double got = acc == DT_I32 ? di[i * T + w * 32 + l]
					                           : df[i * T + w * 32 + l];
					if (got != want && bad++ < 4)
						fprintf(stderr,
						        "mma kind %d: warp %d D[%d][%d] = %g, want "
						        "%g\n",
						        kind, w, r, c, got, want);
				}
		CHECK(bad == 0);
	}
	arena_free(&b.arena);
}

/* tf32 rounding: inputs with more than 10 mantissa bits are rounded first */
static void test_mma_tf32_rounding(void)
{
	B b;
	b_init(&b, "mma_tf32", "cuda-emu", 1);
	Type ts[2] = {type_ptr(DT_F32), type_ptr(DT_F32)};
	b_params(&b, 2, ts);
	TpVal px = param(&b, 0), pd = param(&b, 1);
	TpVal t = tid(&b);
	TpVal x = ld1(&b, ptr_add(&b, px, t), ctrue(&b), TP_COALESCED);
	TpVal one = cflt(&b, DT_F32, 1.0), zero = cflt(&b, DT_F32, 0.0);
	/* A = x everywhere, B = 1 in row 0 only (lane 0..3 b0 hold rows 0..3) */
	TpVal lane = op1(&b, TP_LANE_ID, NULL, 0, type_scalar(DT_I32));
	TpVal isr0 =
	        cmpv(&b, PRED_EQ, bin(&b, TP_REM, lane, cint(&b, DT_I32, 4)), cint(&b, DT_I32, 0));
	TpVal sin_[3] = {isr0, one, zero};
	TpVal b0 = op1(&b, TP_SELECT, sin_, 3, type_scalar(DT_F32));
	TpVal ops[10] = {x, x, x, x, b0, zero, zero, zero, zero, zero};
	TpOp *m = op(&b, TP_MMA, ops, 10, type_scalar(DT_F32), 4);
	m->attr.i = MMA_M16N8K8_TF32_F32;
	st1(&b, ptr_add(&b, pd, t), ctrue(&b), m->results[0], TP_COALESCED);
	ret(&b);
	KernelFn fn = compile(&b, NULL);
	if (fn) {
		float xs[32], d[32];
		for (int i = 0; i < 32; i++)
			xs[i] = 1.0f + (float)(i + 1) * 0x1p-13f; /* below tf32 precision */
		float *p0 = xs, *p1 = d;
		void *args[2] = {&p0, &p1};
		run_grid(fn, args, 1, NULL, NULL);
		for (int l = 0; l < 32; l++) {
			/* D[g][c] = A[g][0] = a0 of lane g*4 */
			float a = xs[(l / 4) * 4];
			uint32_t u;
			memcpy(&u, &a, 4);
			u = (u + 0xfff + ((u >> 13) & 1)) & ~0x1fffu;
			float want;
			memcpy(&want, &u, 4);
			CHECK(d[l] == want);
		}
	}
	arena_free(&b.arena);
}

/* ---- ldmatrix emulation ---------------------------------------------------------------------- */

static void test_ldmatrix(int nm, bool trans, int eb)
{
	B b;
	b_init(&b, "ldmatrix", "cuda-emu", 1);
	b.f->smem_bytes = 4 * 128;
	DType dt = eb == 1 ? DT_I8 : eb == 2 ? DT_I16 : DT_I32;
	int epr = 4 / eb;
	Type ts[1] = {type_ptr(dt)};
	b_params(&b, 1, ts);
	TpVal out = param(&b, 0);
	TpVal lane = op1(&b, TP_LANE_ID, NULL, 0, type_scalar(DT_I32));
	/* lane l gives row (l % 8) of matrix (l / 8); matrices of 16-byte rows
	 * stored at a 128-byte stride, rows in reverse order to make addresses
	 * non-trivial */
	TpVal mat = bin(&b, TP_DIV, lane, cint(&b, DT_I32, 8));
	TpVal row =
	        bin(&b, TP_SUB, cint(&b, DT_I32, 7), bin(&b, TP_REM, lane, cint(&b, DT_I32, 8)));
	TpVal off = bin(&b, TP_ADD, bin(&b, TP_MUL, mat, cint(&b, DT_I32, 128)),
	                bin(&b, TP_MUL, row, cint(&b, DT_I32, 16)));
	TpOp *m = op(&b, TP_LDMATRIX, &off, 1, type_scalar(dt), epr * nm);
	m->attr.i = nm;
	m->attr.flags = trans ? TP_TRANS : 0;
	for (int j = 0; j < epr * nm; j++)
		st1(&b, ptr_add(&b, out, bin(&b, TP_ADD, lane, cint(&b, DT_I32, 32 * j))),
		    ctrue(&b), m->results[j], TP_COALESCED);
	ret(&b);
	KernelFn fn = compile(&b, NULL);
	if (fn) {
		_Alignas(16) uint8_t smem[4 * 128];
		for (int i = 0; i < 4 * 128; i++)
			smem[i] = (uint8_t)(i * 7 + 1);
		_Alignas(16) uint8_t o[16 * 32 * 4];
		uint8_t *po = o;
		void *args[1] = {&po};
		run_grid(fn, args, 1, smem, NULL);
		for (int mm = 0; mm < nm; mm++)
			for (int l = 0; l < 32; l++)
				for (int j = 0; j < epr; j++) {
					/* row r, byte c of matrix mm: row r supplied by lane
					 * mm*8+r, which points at stored row 7 - r; lane l
					 * holds word l%4 of row l/4 (.trans: 16-bit element
					 * (2(l%4)+j, l/4)) */
					int r = trans ? 2 * (l % 4) + j : l / 4,
					    c = trans ? 2 * (l / 4) : 4 * (l % 4) + eb * j;
					const uint8_t *want = smem + mm * 128 + (7 - r) * 16 + c;
					const uint8_t *got = o + ((epr * mm + j) * 32 + l) * eb;
					CHECK(!memcmp(got, want, (size_t)eb));
				}
	}
	arena_free(&b.arena);
}

/* ---- print / assert through the runtime hooks --------------------------------------------- */

typedef struct PrintLog {
	int lines;
	char first[128], last[128];
	int asserts_seen, last_tid;
	char msg[64];
} PrintLog;

static void on_print(void *user, const char *line)
{
	PrintLog *l = user;
	if (!l->lines++)
		snprintf(l->first, sizeof l->first, "%s", line);
	snprintf(l->last, sizeof l->last, "%s", line);
}

static void on_assert(void *user, const char *msg, const int32_t pid[3], int32_t t)
{
	PrintLog *l = user;
	l->asserts_seen++;
	l->last_tid = t + 1000 * pid[0];
	snprintf(l->msg, sizeof l->msg, "%s", msg);
}

static void test_print_assert(void)
{
	B b;
	b_init(&b, "dbg", "cpu", 1);
	Type ts[1] = {type_ptr(DT_F32)};
	b_params(&b, 1, ts);
	TpVal x = param(&b, 0);
	TpVal t = tid(&b);
	TpVal v = ld1(&b, ptr_add(&b, x, t), ctrue(&b), TP_COALESCED);
	TpVal pv[2] = {t, v};
	TpOp *p = op(&b, TP_PRINT, pv, 2, type_scalar(DT_VOID), 0);
	p->attr.str = " x: "; /* sema's form of Triton's prefix */
	TpVal ok = cmpv(&b, PRED_NE, t, cint(&b, DT_I32, 5));
	TpOp *as = op(&b, TP_ASSERT, &ok, 1, type_scalar(DT_VOID), 0);
	as->attr.str = "k.tile:3: t != 5";
	ret(&b);
	KernelFn fn = compile(&b, NULL);
	if (fn) {
		float xs[8] = {0.5f, 1, 2, 3, 4, 5, 6, 7.25f};
		float *px = xs;
		void *args[1] = {&px};
		PrintLog log = {0};
		TileRuntimeHooks h = {.print = on_print, .assert_fail = on_assert, .user = &log};
		int32_t pid[3] = {2, 0, 0}, np[3] = {3, 1, 1};
		fn(args, pid, np, NULL, &h);
		CHECK(log.lines == 16);
		CHECK(strcmp(log.first, "pid (2, 0, 0) idx () x: 0\n") == 0);
		CHECK(strcmp(log.last, "pid (2, 0, 0) idx () x: 7.250000\n") == 0);
		CHECK(h.assert_count == 1 && log.asserts_seen == 1 && log.last_tid == 2005);
		CHECK(strcmp(log.msg, "k.tile:3: t != 5") == 0);
		fn(args, pid, np, NULL, NULL); /* rt = NULL: silent */
	}
	arena_free(&b.arena);
}

/* ---- atomics: varying pointers in lane order, CAS, uniform --------------------------------- */

static void test_atomics(void)
{
	B b;
	b_init(&b, "atomics", "cpu", 2);
	Type ts[3] = {type_ptr(DT_I32), type_ptr(DT_I32), type_ptr(DT_F32)};
	b_params(&b, 3, ts);
	TpVal cnt = param(&b, 0), old = param(&b, 1), fsum = param(&b, 2);
	TpVal t = tid(&b);
	TpVal slot = bin(&b, TP_REM, t, cint(&b, DT_I32, 4));
	TpVal mask = cmpv(&b, PRED_NE, t, cint(&b, DT_I32, 13));
	TpVal in[3] = {ptr_add(&b, cnt, slot), cint(&b, DT_I32, 1), mask};
	TpOp *a = op(&b, TP_ATOMIC, in, 3, type_scalar(DT_I32), 1);
	a->attr.atomic = ATOM_ADD;
	st1(&b, ptr_add(&b, old, t), ctrue(&b), a->results[0], TP_COALESCED);
	/* CAS on cnt[4]: only the first lane whose cmp matches swaps */
	TpVal cin[4] = {ptr_add(&b, cnt, cint(&b, DT_I32, 4)), cint(&b, DT_I32, 0),
	                bin(&b, TP_ADD, t, cint(&b, DT_I32, 100)), ctrue(&b)};
	TpOp *c = op(&b, TP_ATOMIC_CAS, cin, 4, type_scalar(DT_I32), 1);
	st1(&b, ptr_add(&b, old, bin(&b, TP_ADD, t, cint(&b, DT_I32, 16))), ctrue(&b),
	    c->results[0], TP_COALESCED);
	/* uniform float add: once per program instance */
	TpVal fin_[3] = {fsum, cflt(&b, DT_F32, 1.5), ctrue(&b)};
	TpOp *f = op(&b, TP_ATOMIC, fin_, 3, type_scalar(DT_F32), 1);
	f->attr.atomic = ATOM_ADD;
	ret(&b);
	KernelFn fn = compile(&b, NULL);
	if (fn) {
		int32_t cs[5] = {0}, os[32];
		float fs = 0;
		int32_t *p0 = cs, *p1 = os;
		float *p2 = &fs;
		void *args[3] = {&p0, &p1, &p2};
		run_grid(fn, args, 1, NULL, NULL);
		CHECK(cs[0] == 4 && cs[1] == 3 && cs[2] == 4 && cs[3] == 4);
		for (int i = 0; i < 16; i++)
			if (i != 13)
				CHECK(os[i] == i / 4); /* earlier unmasked lanes on the same slot */
		CHECK(cs[4] == 100);
		CHECK(os[16] == 0);
		for (int i = 1; i < 16; i++)
			CHECK(os[16 + i] == 100);
		CHECK(fs == 1.5f);
	}
	arena_free(&b.arena);
}

/* ---- casts: bf16 / fp8 / f16 / int <-> float; math ------------------------------------------- */

static float bf16_ref(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	u = (u + 0x7fff + ((u >> 16) & 1)) & 0xffff0000u;
	memcpy(&f, &u, 4);
	return f;
}

/* every finite e4m3fn value, by decoding, then round-to-nearest-even by search */
static float e4m3_decode(int c)
{
	int s = c >> 7, e = (c >> 3) & 15, m = c & 7;
	if ((c & 0x7f) == 0x7f)
		return NAN;
	float v = e ? ldexpf(1.0f + (float)m / 8, e - 7) : ldexpf((float)m, -9);
	return s ? -v : v;
}

static float e4m3_ref(float f)
{
	if (isnan(f))
		return NAN;
	float a = fabsf(f) > 448 ? 448 : fabsf(f), best = 0;
	int bc = 0;
	for (int c = 0; c < 0x7f; c++) {
		float v = e4m3_decode(c), d = fabsf(v - a), bd = fabsf(best - a);
		if (d < bd || (d == bd && (c & 1) == 0 && (bc & 1))) {
			best = v;
			bc = c;
		}
	}
	return f < 0 ? -best : best;
}

static float e5m2_ref(float f)
{
	if (isnan(f))
		return f;
	f = fmaxf(-57344.0f, fminf(f, 57344.0f)); /* cvt.rn.satfinite */
	_Float16 h = (_Float16)f;
	uint16_t u;
	memcpy(&u, &h, 2);
	if ((float)h != f) { /* f32 -> f16 rounding to odd, so that the RNE below is the only rounding */
		if (fabsf((float)h) > fabsf(f))
			u--;
		u |= 1;
	}
	uint16_t r = (uint16_t)((u + 0x7f + ((u >> 8) & 1)) >> 8) << 8;
	memcpy(&h, &r, 2);
	return (float)h;
}

/* f16 <-> f32, both ways the emitter converts: x86 instructions where the host
 * has them (vcvtps2ph: 16 lanes with AVX-512F, else 8 with F16C; vcvtph2ps
 * with AVX-512F), and integer ops (soft_f16). Every f16 code widens
 * exactly; f32 values at the rounding edges (ties to even, the subnormal
 * range and its bottom, overflow, infinities, NaN) narrow as C's _Float16
 * does. */
static void test_f16_conversions(void)
{
	enum { N = 65536 };
	static float xs[N], back[N];
	static uint16_t codes[N], got[N];
	for (int i = 0; i < N; i++)
		codes[i] = (uint16_t)i;
	uint32_t seed = 5;
	for (int i = 0; i < N; i++) { /* f32 bit patterns around every f16 code and far away */
		seed = seed * 1664525u + 1013904223u;
		uint32_t u;
		if (i % 4 == 3) {
			u = seed;
		} else {
			_Float16 h;
			uint16_t c = (uint16_t)(i >> 2);
			memcpy(&h, &c, 2);
			float f = (float)h;
			memcpy(&u, &f, 4);
			if ((c & 0x7c00) != 0x7c00) /* exactly halfway (i%4 == 1) or just above it (2) */
				u += i % 4 == 1 ? 0x1000u : i % 4 == 2 ? 0x1001u : 0;
		}
		memcpy(&xs[i], &u, 4);
	}
	for (int soft = 0; soft < 2; soft++) {
		EmitCpuOptions o = {.soft_f16 = soft};
		for (int dir = 0; dir < 2; dir++) { /* 0: f16 -> f32, 1: f32 -> f16 */
			B b;
			b_init(&b, dir ? "f32_to_f16" : "f16_to_f32", "cpu", 4); /* 32 lanes: both x86 widths */
			DType from = dir ? DT_F32 : DT_F16, to = dir ? DT_F16 : DT_F32;
			Type ts[2] = {type_ptr(from), type_ptr(to)};
			b_params(&b, 2, ts);
			TpVal pid = op1(&b, TP_PROGRAM_ID, NULL, 0, type_scalar(DT_I32));
			TpVal off = bin(&b, TP_ADD, bin(&b, TP_MUL, pid, cint(&b, DT_I32, 32)), tid(&b));
			TpVal v = ld1(&b, ptr_add(&b, param(&b, 0), off), ctrue(&b), TP_COALESCED);
			st1(&b, ptr_add(&b, param(&b, 1), off), ctrue(&b), un(&b, TP_CAST, v, type_scalar(to)),
			    TP_COALESCED);
			ret(&b);
			KernelFn fn = compile_with(&b, &o, NULL);
			arena_free(&b.arena); /* the kernel lives on in the JIT */
			if (!fn)
				continue;
			void *p0 = dir ? (void *)xs : (void *)codes, *p1 = dir ? (void *)got : (void *)back;
			void *args[2] = {&p0, &p1};
			run_grid(fn, args, N / 32, NULL, NULL);
			int bad = 0;
			for (int i = 0; i < N; i++) {
				_Float16 h;
				if (dir == 0) {
					memcpy(&h, &codes[i], 2);
					float want = (float)h;
					bool ok = isnan(want) ? isnan(back[i]) : memcmp(&want, &back[i], 4) == 0;
					if (!ok && bad++ < 3)
						fprintf(stderr, "f16 0x%04x -> f32 %a, want %a (soft %d)\n", codes[i],
						        back[i], want, soft);
				} else {
					h = (_Float16)xs[i];
					uint16_t want;
					memcpy(&want, &h, 2);
					bool nan = isnan(xs[i]);
					bool ok = nan ? (got[i] & 0x7c00) == 0x7c00 && (got[i] & 0x3ff)
					              : got[i] == want;
					if (!ok && bad++ < 3)
						fprintf(stderr, "f32 %a -> f16 0x%04x, want 0x%04x (soft %d)\n", xs[i],
						        got[i], want, soft);
				}
			}
			CHECK(bad == 0);
		}
	}
}

static void test_casts(void)
{
	static const DType mids[] = {DT_BF16, DT_F8E4M3, DT_F8E5M2, DT_F16, DT_I32, DT_U8};
	enum { N = 64 };
	float xs[N];
	for (int i = 0; i < N; i++)
		xs[i] = (i % 2 ? -1.0f : 1.0f) * (float)(i * i) * 0.37f + (float)i * 0.013f;
	xs[1] = 1000.0f;                   /* fp8 e4m3 saturates */
	xs[3] = 0.0015f;                   /* fp8 subnormal */
	xs[5] = 1.0f + 0x1p-8f + 0x1p-20f; /* bf16 rounds up */
	xs[7] = -2.5f;                     /* float -> int truncates toward zero */
	for (size_t m = 0; m < COUNTOF(mids); m++) {
		B b;
		b_init(&b, "casts", "cpu", 1);
		Type ts[2] = {type_ptr(DT_F32), type_ptr(DT_F32)};
		b_params(&b, 2, ts);
		TpVal x = param(&b, 0), out = param(&b, 1);
		TpVal pid = op1(&b, TP_PROGRAM_ID, NULL, 0, type_scalar(DT_I32));
		TpVal off = bin(&b, TP_ADD, bin(&b, TP_MUL, pid, cint(&b, DT_I32, 8)), tid(&b));
		TpVal v = ld1(&b, ptr_add(&b, x, off), ctrue(&b), TP_COALESCED);
		TpVal c = un(&b, TP_CAST, v, type_scalar(mids[m]));
		TpVal back = un(&b, TP_CAST, c, type_scalar(DT_F32));
		st1(&b, ptr_add(&b, out, off), ctrue(&b), back, TP_COALESCED);
		ret(&b);
		KernelFn fn = compile(&b, NULL);
		if (fn) {
			float o[N];
			float *p0 = xs, *p1 = o;
			void *args[2] = {&p0, &p1};
			run_grid(fn, args, N / 8, NULL, NULL);
			int bad = 0;
			for (int i = 0; i < N; i++) {
				float want;
				switch (mids[m]) {
				case DT_BF16: want = bf16_ref(xs[i]); break;
				case DT_F8E4M3: want = e4m3_ref(xs[i]); break;
				case DT_F8E5M2: want = e5m2_ref(xs[i]); break;
				case DT_F16: want = (float)(_Float16)xs[i]; break;
				case DT_I32: want = (float)(int32_t)xs[i]; break;
				default:
					want = xs[i] <= 0     ? 0
					       : xs[i] >= 255 ? 255
					                      : (float)(uint8_t)xs[i];
					break;
				}
				if (o[i] != want && bad++ < 3)
					fprintf(stderr, "cast via %s: %.9g -> %.9g, want %.9g\n",
					        dtype_name(mids[m]), xs[i], o[i], want);
			}
			CHECK(bad == 0);
		}
		arena_free(&b.arena);
	}
}

static void test_math(void)
{
	static const int fns[] = {MATH_EXP,  MATH_TANH, MATH_SQRT, MATH_RSQRT,
	                          MATH_LOG2, MATH_ERF,  MATH_FLOOR};
	for (size_t k = 0; k < COUNTOF(fns); k++) {
		for (int dt = 0; dt < 2; dt++) {
			DType d = dt ? DT_BF16 : DT_F32;
			B b;
			b_init(&b, "math", "cpu", 1);
			Type ts[2] = {type_ptr(DT_F32), type_ptr(DT_F32)};
			b_params(&b, 2, ts);
			TpVal x = param(&b, 0), out = param(&b, 1), t = tid(&b);
			TpVal v = ld1(&b, ptr_add(&b, x, t), ctrue(&b), TP_COALESCED);
			if (d != DT_F32)
				v = un(&b, TP_CAST, v, type_scalar(d));
			TpOp *mo = op(&b, TP_MATH, &v, 1, type_scalar(d), 1);
			mo->attr.math = fns[k];
			TpVal r = mo->results[0];
			if (d != DT_F32)
				r = un(&b, TP_CAST, r, type_scalar(DT_F32));
			st1(&b, ptr_add(&b, out, t), ctrue(&b), r, TP_COALESCED);
			ret(&b);
			KernelFn fn = compile(&b, NULL);
			if (fn) {
				float xs[8] = {0.25f, 0.5f, 1, 1.5f, 2, 3.75f, 7, 0.125f}, o[8];
				float *p0 = xs, *p1 = o;
				void *args[2] = {&p0, &p1};
				run_grid(fn, args, 1, NULL, NULL);
				for (int i = 0; i < 8; i++) {
					float a = d == DT_F32 ? xs[i] : bf16_ref(xs[i]), w;
					switch (fns[k]) {
					case MATH_EXP: w = expf(a); break;
					case MATH_TANH: w = tanhf(a); break;
					case MATH_SQRT: w = sqrtf(a); break;
					case MATH_RSQRT: w = 1.0f / sqrtf(a); break;
					case MATH_LOG2: w = log2f(a); break;
					case MATH_ERF: w = erff(a); break;
					default: w = floorf(a); break;
					}
					if (d != DT_F32)
						w = bf16_ref(w);
					CHECK(fabsf(o[i] - w) <= 2e-6f * fabsf(w) + 1e-30f);
				}
			}
			arena_free(&b.arena);
		}
	}
}

/* ulps between two floats of the same sign class (inf/NaN handled by callers) */
static long ulp_diff(float a, float b)
{
	int32_t ia, ib;
	memcpy(&ia, &a, 4);
	memcpy(&ib, &b, 4);
	ia = ia < 0 ? INT32_MIN - ia : ia;
	ib = ib < 0 ? INT32_MIN - ib : ib;
	return labs((long)ia - (long)ib);
}

/* Vector exp/exp2/log/log2 are our own polynomials (LLVM would call libm per
 * lane); sin/cos go through a per-module helper. Swept over magnitudes from
 * subnormal to huge, both signs, and the specials, against libm. */
static void test_vector_math(void)
{
	static const int fns[] = {MATH_EXP, MATH_EXP2, MATH_LOG, MATH_LOG2, MATH_SIN, MATH_COS};
	enum { N = 4096 };
	static float xs[N], o[N];
	uint32_t seed = 12345;
	for (int i = 0; i < N; i++) {
		seed = seed * 1664525u + 1013904223u;
		/* exponents -149..+127 over the sweep, random mantissa and sign */
		float m = 1.0f + (float)(seed >> 9) / 8388608.0f;
		xs[i] = ldexpf(m, -149 + (int)((long)i * 277 / N)) * ((seed & 1) ? -1 : 1);
	}
	static const float special[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1.0f, 2.0f,
	                                0.5f, 1e-45f, 88.7f, -103.0f, 0.70710677f, 1.4142135f,
	                                /* exp/exp2 at the edges of overflow and of the subnormals */
	                                88.72283f, 88.722839f, 88.72284f, 89.0f, -87.34f, -103.97f,
	                                -103.972f, -104.0f, -104.5f, 127.99999f, 128.0f, -126.5f,
	                                -149.0f, -149.5f, -150.0f, -150.5f, -151.0f};
	for (size_t i = 0; i < COUNTOF(special); i++)
		xs[i * 7] = special[i];
	for (size_t k = 0; k < COUNTOF(fns); k++) {
		B b;
		b_init(&b, "vmath", "cpu", 1);
		Type ts[2] = {type_ptr(DT_F32), type_ptr(DT_F32)};
		b_params(&b, 2, ts);
		TpVal x = param(&b, 0), out = param(&b, 1);
		TpVal pid = op1(&b, TP_PROGRAM_ID, NULL, 0, type_scalar(DT_I32));
		TpVal t = bin(&b, TP_ADD, tid(&b), bin(&b, TP_MUL, pid, cint(&b, DT_I32, 8)));
		TpVal v = ld1(&b, ptr_add(&b, x, t), ctrue(&b), TP_COALESCED);
		TpOp *mo = op(&b, TP_MATH, &v, 1, type_scalar(DT_F32), 1);
		mo->attr.math = fns[k];
		st1(&b, ptr_add(&b, out, t), ctrue(&b), mo->results[0], TP_COALESCED);
		ret(&b);
		KernelFn fn = compile(&b, NULL);
		if (fn) {
			float *p0 = xs, *p1 = o;
			void *args[2] = {&p0, &p1};
			run_grid(fn, args, N / 8, NULL, NULL);
			int bad = 0;
			for (int i = 0; i < N; i++) {
				float a = xs[i], w;
				switch (fns[k]) {
				case MATH_EXP: w = expf(a); break;
				case MATH_EXP2: w = exp2f(a); break;
				case MATH_LOG: w = logf(a); break;
				case MATH_LOG2: w = log2f(a); break;
				case MATH_SIN: w = sinf(a); break;
				default: w = cosf(a); break;
				}
				/* exp and exp2: within 1 ulp everywhere, subnormal results included, and
				 * exactly inf or 0 where libm rounds to them */
				bool expish = fns[k] == MATH_EXP || fns[k] == MATH_EXP2;
				bool ok = expish     ? (isnan(w) ? isnan(o[i])
				                                 : ulp_diff(o[i], w) <= 1 && isinf(w) == isinf(o[i]) &&
				                                           (w == 0) == (o[i] == 0))
				          : isnan(w) ? isnan(o[i])
				          : isinf(w) ? o[i] == w
				          : w == 0   ? fabsf(o[i]) < 1e-37f
				                     : (signbit(w) == signbit(o[i]) && ulp_diff(o[i], w) <= 2) ||
				                               fabsf(w) < 1e-37f;
				if (!ok && bad++ < 3)
					fprintf(stderr, "vector %s(%.9g) = %.9g, want %.9g\n",
					        math_fn_name((MathFn)fns[k]), a, o[i], w);
			}
			CHECK(bad == 0);
		}
		arena_free(&b.arena);
	}
}

/* ---- ORC: load time, loading one kernel name twice, text outputs ---------------------------- */

static void test_orc_and_text(void)
{
	B b;
	b_init(&b, "vadd", "cpu", 4);
	build_vadd(&b, 4, TP_COALESCED);
	DiagSink ds;
	diag_init(&ds);
	EmitResult r, ir, as;
	CHECK(emit_llvm(b.f, EMIT_BINARY, &ds, &r));
	CHECK(emit_llvm(b.f, EMIT_LLVM_IR, &ds, &ir));
	CHECK(emit_llvm(b.f, EMIT_ASM, &ds, &as));
	CHECK(ir.text && strstr(ir.text, "define void @vadd("));
	CHECK(as.text && strstr(as.text, "vadd:"));
	/* the stack bound: small for a small kernel (it keeps running inline on
	 * the launching thread, see cpu_launch.h) and no less than the frame the
	 * machine code sets up */
	CHECK(r.stack_bytes > 0 && r.stack_bytes < 64 * 1024);
	CHECK(as.stack_bytes == r.stack_bytes);
	const char *sub = as.text ? strstr(as.text, "subq\t$") : NULL;
	if (sub)
		CHECK(strtoull(sub + 6, NULL, 10) <= r.stack_bytes);
	if (r.binary) {
		char err[256];
		enum { LOADS = 20 };
		void *fns[LOADS];
		double total = 0, best = 1e9;
		for (int i = 0; i < LOADS; i++) {
			double t0 = now_seconds();
			fns[i] = orc_load(jit, r.binary, r.binary_len, "vadd", err, sizeof err);
			double dt = now_seconds() - t0;
			total += dt;
			best = dt < best ? dt : best;
		}
		printf("orc_load: %.3f ms mean, %.3f ms best (object %zu bytes)\n",
		       total / LOADS * 1e3, best * 1e3, r.binary_len);
		CHECK(best < 1e-3);
		for (int i = 0; i < LOADS; i++)
			CHECK(fns[i] != NULL);
		CHECK(fns[0] != fns[1]);
		float x[128], y[128], o[128];
		for (int i = 0; i < 128; i++)
			x[i] = (float)i, y[i] = 1;
		int n = 128;
		float *px = x, *py = y, *po = o;
		void *args[4] = {&px, &py, &po, &n};
		run_grid((KernelFn)fns[LOADS - 1], args, 1, NULL, NULL);
		CHECK(o[0] == 1 && o[127] == 128);
		CHECK(orc_load(jit, r.binary, r.binary_len, "no_such_symbol", err, sizeof err) ==
		      NULL);
		CHECK(strstr(err, "no_such_symbol") != NULL);
	}
	emit_result_free(&r);
	emit_result_free(&ir);
	emit_result_free(&as);
	diag_free(&ds);
	arena_free(&b.arena);
}

/* ---- cp.async: global -> smem with zero-fill, landing at the wait ------------------------- */

static void test_cp_async(void)
{
	B b;
	b_init(&b, "cp_async", "cpu", 1);
	b.f->smem_bytes = 8 * 16;
	Type ts[2] = {type_ptr(DT_I32), type_ptr(DT_I32)};
	b_params(&b, 2, ts);
	TpVal x = param(&b, 0), out = param(&b, 1), t = tid(&b);
	TpVal four = cint(&b, DT_I32, 4);
	TpVal src = ptr_add(&b, x, bin(&b, TP_MUL, t, four));
	TpVal off = bin(&b, TP_MUL, t, cint(&b, DT_I32, 16));
	TpVal in[3] = {src, off, cmpv(&b, PRED_NE, t, cint(&b, DT_I32, 3))};
	TpOp *c = op(&b, TP_CP_ASYNC, in, 3, type_scalar(DT_VOID), 0);
	c->attr.i = 16;
	op(&b, TP_CP_ASYNC_COMMIT, NULL, 0, type_scalar(DT_VOID), 0);
	op(&b, TP_CP_ASYNC_WAIT, NULL, 0, type_scalar(DT_VOID), 0);
	op(&b, TP_BARRIER, NULL, 0, type_scalar(DT_VOID), 0);
	TpVal in2[2] = {off, ctrue(&b)};
	TpOp *l = op(&b, TP_SMEM_LOAD, in2, 2, type_scalar(DT_I32), 4);
	l->attr.i = 4;
	store(&b, ptr_add(&b, out, bin(&b, TP_MUL, t, four)), ctrue(&b), l->results, 4,
	      TP_COALESCED);
	ret(&b);
	KernelFn fn = compile(&b, NULL);
	if (fn) {
		int32_t xs[32], o[32];
		for (int i = 0; i < 32; i++)
			xs[i] = i + 1;
		_Alignas(16) unsigned char smem[128];
		memset(smem, 0x55, sizeof smem);
		int32_t *p0 = xs, *p1 = o;
		void *args[2] = {&p0, &p1};
		run_grid(fn, args, 1, smem, NULL);
		for (int i = 0; i < 32; i++)
			CHECK(o[i] == (i / 4 == 3 ? 0 : xs[i]));
	}
	arena_free(&b.arena);
}

/* ---- cp.async is strict: data lands only when a wait retires its group --------------------- */

enum { CP_OLD = 0x55555555 }; /* smem contents before any copy lands */

static void cp_async_op(B *b, TpVal src, TpVal off, TpVal mask, TpVal pred, int bytes)
{
	TpVal in[4] = {src, off, mask, pred};
	op(b, TP_CP_ASYNC, in, pred ? 4 : 3, type_scalar(DT_VOID), 0)->attr.i = bytes;
}

static void cp_commit(B *b) { op(b, TP_CP_ASYNC_COMMIT, NULL, 0, type_scalar(DT_VOID), 0); }

static void cp_wait(B *b, int n)
{
	op(b, TP_CP_ASYNC_WAIT, NULL, 0, type_scalar(DT_VOID), 0)->attr.i = n;
}

static int threads(const B *b) { return b->f->num_warps * b->f->lanes_per_warp; }

/* out[base + t*words + k] = smem word k at byte offset off of thread t */
static void smem_to_out(B *b, TpVal off, TpVal out, TpVal t, int words, int base)
{
	TpVal in[2] = {off, ctrue(b)};
	TpOp *l = op(b, TP_SMEM_LOAD, in, 2, type_scalar(DT_I32), words);
	l->attr.i = words;
	TpVal i = bin(b, TP_ADD, bin(b, TP_MUL, t, cint(b, DT_I32, words)), cint(b, DT_I32, base));
	store(b, ptr_add(b, out, i), ctrue(b), l->results, words, TP_COALESCED);
}

/* (a), (b): thread t copies `bytes` with mask = !(t & 1), pred = !(t & 2): t%4 == 0
 * copies, 1 zero-fills, 2 and 3 issue nothing. Shared memory read after the
 * issue but before the wait still holds the old contents; after WAIT 0 the
 * copies have landed. */
static void test_cp_async_strict(const char *target, int bytes)
{
	B b;
	b_init(&b, "cp_async_strict", target, 1);
	int T = threads(&b), w = bytes / 4;
	b.f->smem_bytes = T * bytes;
	Type ts[2] = {type_ptr(DT_I32), type_ptr(DT_I32)};
	b_params(&b, 2, ts);
	TpVal x = param(&b, 0), out = param(&b, 1), t = tid(&b), z = cint(&b, DT_I32, 0);
	TpVal src = ptr_add(&b, x, bin(&b, TP_MUL, t, cint(&b, DT_I32, w)));
	TpVal off = bin(&b, TP_MUL, t, cint(&b, DT_I32, bytes));
	TpVal mask = cmpv(&b, PRED_EQ, bin(&b, TP_AND, t, cint(&b, DT_I32, 1)), z);
	TpVal pred = cmpv(&b, PRED_EQ, bin(&b, TP_AND, t, cint(&b, DT_I32, 2)), z);
	cp_async_op(&b, src, off, mask, pred, bytes);
	cp_commit(&b);
	smem_to_out(&b, off, out, t, w, 0);
	cp_wait(&b, 0);
	smem_to_out(&b, off, out, t, w, T * w);
	ret(&b);
	KernelFn fn = compile(&b, NULL);
	if (fn) {
		int32_t *xs = malloc(sizeof(int32_t) * (size_t)(T * w));
		int32_t *o = malloc(sizeof(int32_t) * (size_t)(2 * T * w));
		_Alignas(16) int32_t smem[32 * 4];
		for (int i = 0; i < T * w; i++)
			xs[i] = 1000 + i;
		memset(smem, 0x55, sizeof smem);
		void *args[2] = {&xs, &o};
		run_grid(fn, args, 1, smem, NULL);
		int bad = 0;
		for (int i = 0; i < T * w; i++) {
			int tt = i / w;
			int32_t want = tt % 4 == 0 ? xs[i] : tt % 4 == 1 ? 0 : CP_OLD;
			bad += o[i] != CP_OLD || o[T * w + i] != want || smem[i] != want;
		}
		if (bad)
			fprintf(stderr, "cp.async %s %d bytes: %d wrong words\n", target, bytes, bad);
		CHECK(bad == 0);
		free(xs);
		free(o);
	}
	arena_free(&b.arena);
}

/* (c), (d): groups A (x) and B (y) committed, WAIT 1 retires A only; C (z) is
 * issued but never committed, so WAIT 0 retires B and not C; C lands at
 * return. */
static void build_cp_async_groups(B *b, const char *target)
{
	b_init(b, "cp_async_groups", target, 2);
	int T = threads(b);
	b->f->smem_bytes = 3 * T * 4;
	Type ts[4] = {type_ptr(DT_I32), type_ptr(DT_I32), type_ptr(DT_I32), type_ptr(DT_I32)};
	b_params(b, 4, ts);
	TpVal t = tid(b), out = param(b, 3), four = cint(b, DT_I32, 4), off[3];
	for (int g = 0; g < 3; g++)
		off[g] = bin(b, TP_MUL, bin(b, TP_ADD, t, cint(b, DT_I32, g * T)), four);
	cp_async_op(b, ptr_add(b, param(b, 0), t), off[0], ctrue(b), 0, 4);
	cp_commit(b);
	cp_async_op(b, ptr_add(b, param(b, 1), t), off[1], ctrue(b), ctrue(b), 4);
	cp_commit(b);
	cp_wait(b, 1);
	smem_to_out(b, off[0], out, t, 1, 0);
	smem_to_out(b, off[1], out, t, 1, T);
	cp_async_op(b, ptr_add(b, param(b, 2), t), off[2], ctrue(b), 0, 4);
	cp_wait(b, 0);
	smem_to_out(b, off[1], out, t, 1, 2 * T);
	smem_to_out(b, off[2], out, t, 1, 3 * T);
	ret(b);
}

typedef struct CpRun {
	KernelFn fn;
	int T, bad;
} CpRun;

static void *cp_groups_run(void *arg)
{
	CpRun *r = arg;
	int T = r->T;
	for (int rep = 0; rep < 20; rep++) {
		int32_t xs[64], ys[64], zs[64], o[4 * 64], smem[3 * 64];
		for (int i = 0; i < T; i++)
			xs[i] = i + 1, ys[i] = 100 + i, zs[i] = 200 + i + rep;
		memset(smem, 0x55, sizeof smem);
		int32_t *p[4] = {xs, ys, zs, o};
		void *args[4] = {&p[0], &p[1], &p[2], &p[3]};
		run_grid(r->fn, args, 1, smem, NULL);
		for (int i = 0; i < T; i++)
			r->bad += o[i] != xs[i] || o[T + i] != CP_OLD || o[2 * T + i] != ys[i] ||
			          o[3 * T + i] != CP_OLD || smem[i] != xs[i] || smem[T + i] != ys[i] ||
			          smem[2 * T + i] != zs[i];
	}
	return NULL;
}

static void test_cp_async_groups(const char *target)
{
	B b;
	build_cp_async_groups(&b, target);
	KernelFn fn = compile(&b, NULL);
	if (fn) {
		/* program instances run concurrently: each has its own queue */
		enum { NT = 4 };
		pthread_t th[NT];
		CpRun runs[NT];
		for (int i = 0; i < NT; i++) {
			runs[i] = (CpRun){fn, threads(&b), 0};
			CHECK(pthread_create(&th[i], NULL, cp_groups_run, &runs[i]) == 0);
		}
		for (int i = 0; i < NT; i++) {
			pthread_join(th[i], NULL);
			CHECK(runs[i].bad == 0);
		}
	}
	arena_free(&b.arena);
}

/* cp.async inside a loop: 4 groups committed, WAIT 2 retires the older two;
 * the rest land at return. A kernel with commit/wait but no cp.async calls
 * nothing. */
static void test_cp_async_loop(void)
{
	B b;
	b_init(&b, "cp_async_loop", "cuda-emu", 1);
	int T = threads(&b);
	b.f->smem_bytes = 4 * T * 4;
	Type ts[2] = {type_ptr(DT_I32), type_ptr(DT_I32)};
	b_params(&b, 2, ts);
	TpVal x = param(&b, 0), out = param(&b, 1), t = tid(&b), four = cint(&b, DT_I32, 4);
	TpVal fin[3] = {cint(&b, DT_I32, 0), cint(&b, DT_I32, 4), cint(&b, DT_I32, 1)};
	TpOp *fo = op(&b, TP_FOR, fin, 3, type_scalar(DT_VOID), 0);
	tp_op_add_regions(b.f, fo, 1);
	TpVal iv = tp_block_add_arg(b.f, &fo->regions[0], type_scalar(DT_I32), true);
	TpBlock *save = b.b;
	b.b = &fo->regions[0];
	TpVal i = bin(&b, TP_ADD, bin(&b, TP_MUL, iv, cint(&b, DT_I32, T)), t);
	cp_async_op(&b, ptr_add(&b, x, i), bin(&b, TP_MUL, i, four), ctrue(&b), 0, 4);
	cp_commit(&b);
	yield_op(&b, NULL, 0);
	b.b = save;
	cp_wait(&b, 2);
	for (int s = 0; s < 4; s++) {
		TpVal off = bin(&b, TP_MUL, bin(&b, TP_ADD, t, cint(&b, DT_I32, s * T)), four);
		smem_to_out(&b, off, out, t, 1, s * T);
	}
	ret(&b);
	KernelFn fn = compile(&b, NULL);
	if (fn) {
		int32_t xs[4 * 32], o[4 * 32], smem[4 * 32];
		for (int k = 0; k < 4 * T; k++)
			xs[k] = 7 * k + 3;
		memset(smem, 0x55, sizeof smem);
		int32_t *px = xs, *po = o;
		void *args[2] = {&px, &po};
		run_grid(fn, args, 1, smem, NULL);
		int bad = 0;
		for (int k = 0; k < 4 * T; k++)
			bad += o[k] != (k < 2 * T ? xs[k] : CP_OLD) || smem[k] != xs[k];
		CHECK(bad == 0);
	}
	arena_free(&b.arena);

	B n;
	b_init(&n, "no_cp_async", "cpu", 1);
	cp_commit(&n);
	cp_wait(&n, 0);
	ret(&n);
	DiagSink ds;
	diag_init(&ds);
	EmitResult r;
	CHECK(emit_llvm(n.f, EMIT_LLVM_IR, &ds, &r));
	CHECK(r.text && !strstr(r.text, "tile_rt_cp_async"));
	emit_result_free(&r);
	diag_free(&ds);
	arena_free(&n.arena);
}

/* ---- softmax-shaped program: compile time and result --------------------------------------- */

/* reduce v across the program: warp butterfly, then through smem across warps */
static TpVal block_reduce(B *b, TpVal v, TpOpKind k, int smem_base)
{
	int L = b->f->lanes_per_warp, W = b->f->num_warps;
	for (int m = L / 2; m >= 1; m /= 2) {
		TpOp *o = op(b, TP_SHFL_XOR, &v, 1, type_scalar(DT_F32), 1);
		o->attr.i = m;
		v = bin(b, k, v, o->results[0]);
	}
	TpVal lane = op1(b, TP_LANE_ID, NULL, 0, type_scalar(DT_I32));
	TpVal warp = op1(b, TP_WARP_ID, NULL, 0, type_scalar(DT_I32));
	TpVal in[3] = {bin(b, TP_ADD, bin(b, TP_MUL, warp, cint(b, DT_I32, 4)),
	                   cint(b, DT_I32, smem_base)),
	               cmpv(b, PRED_EQ, lane, cint(b, DT_I32, 0)), v};
	TpOp *so = op(b, TP_SMEM_STORE, in, 3, type_scalar(DT_VOID), 0);
	so->attr.i = 1;
	op(b, TP_BARRIER, NULL, 0, type_scalar(DT_VOID), 0);
	TpVal in2[2] = {cint(b, DT_I32, smem_base), ctrue(b)};
	TpOp *lo = op(b, TP_SMEM_LOAD, in2, 2, type_scalar(DT_F32), W);
	lo->attr.i = W;
	TpVal r = lo->results[0];
	for (int w = 1; w < W; w++)
		r = bin(b, k, r, lo->results[w]);
	return r;
}

static void test_softmax(void)
{
	enum { W = 4, VEC = 4, BLOCK = 1024 };
	B b;
	b_init(&b, "softmax", "cpu", W);
	b.f->smem_bytes = 64;
	int T = W * b.f->lanes_per_warp, G = BLOCK / (T * VEC);
	Type ts[4] = {type_ptr(DT_F32), type_ptr(DT_F32), type_scalar(DT_I32), type_scalar(DT_I32)};
	b_params(&b, 4, ts);
	TpVal x = param(&b, 0), out = param(&b, 1), stride = param(&b, 2), ncols = param(&b, 3);
	TpVal pid = op1(&b, TP_PROGRAM_ID, NULL, 0, type_scalar(DT_I32));
	TpVal rowoff = bin(&b, TP_MUL, pid, stride);
	TpVal xr = ptr_add(&b, x, rowoff), orow = ptr_add(&b, out, rowoff);
	TpVal t4 = bin(&b, TP_MUL, tid(&b), cint(&b, DT_I32, VEC));
	TpVal vals[BLOCK / 32][VEC], masks[BLOCK / 32], ptrs[BLOCK / 32];
	TpVal ninf = cflt(&b, DT_F32, -INFINITY), mx = ninf;
	for (int g = 0; g < G; g++) {
		TpVal col = bin(&b, TP_ADD, t4, cint(&b, DT_I32, g * T * VEC));
		masks[g] = cmpv(&b, PRED_LT, col, ncols);
		ptrs[g] = col;
		TpVal oth[VEC] = {ninf, ninf, ninf, ninf};
		load(&b, ptr_add(&b, xr, col), masks[g], oth, VEC, TP_COALESCED, vals[g]);
		for (int k = 0; k < VEC; k++)
			mx = bin(&b, TP_MAX, mx, vals[g][k]);
	}
	mx = block_reduce(&b, mx, TP_MAX, 0);
	TpVal sum = cflt(&b, DT_F32, 0);
	for (int g = 0; g < G; g++)
		for (int k = 0; k < VEC; k++) {
			TpVal d = bin(&b, TP_SUB, vals[g][k], mx);
			TpOp *e = op(&b, TP_MATH, &d, 1, type_scalar(DT_F32), 1);
			e->attr.math = MATH_EXP;
			vals[g][k] = e->results[0];
			sum = bin(&b, TP_ADD, sum, vals[g][k]);
		}
	sum = block_reduce(&b, sum, TP_ADD, 32);
	for (int g = 0; g < G; g++) {
		TpVal y[VEC];
		for (int k = 0; k < VEC; k++)
			y[k] = bin(&b, TP_DIV, vals[g][k], sum);
		store(&b, ptr_add(&b, orow, ptrs[g]), masks[g], y, VEC, TP_COALESCED);
	}
	ret(&b);
	double best = 1e9;
	KernelFn fn = NULL;
	for (int rep = 0; rep < 3; rep++) {
		double secs = 0;
		double t0 = now_seconds();
		fn = compile(&b, &secs);
		double all = now_seconds() - t0;
		if (all < best)
			best = all;
		if (rep == 2)
			printf("softmax (1024 cols, %d threads): emit_llvm %.2f ms, emit+load %.2f "
			       "ms (best of 3)\n",
			       T, secs * 1e3, best * 1e3);
	}
	/* the target is well under 50 ms on an idle machine; only a sanity bound
	 * here, since make check may run on a loaded one */
	CHECK(best < 0.5);
	if (fn) {
		enum { ROWS = 3, NC = 1000 };
		float *xs = malloc(sizeof(float) * ROWS * BLOCK),
		      *o = malloc(sizeof(float) * ROWS * BLOCK);
		for (int i = 0; i < ROWS * BLOCK; i++)
			xs[i] = sinf((float)i * 0.1f) * 3, o[i] = -1;
		int stride_ = BLOCK, nc = NC;
		void *args[4] = {&xs, &o, &stride_, &nc};
		_Alignas(16) unsigned char smem[64];
		run_grid(fn, args, ROWS, smem, NULL);
		int bad = 0;
		for (int r = 0; r < ROWS; r++) {
			double m = -INFINITY, s = 0;
			for (int c = 0; c < NC; c++)
				m = fmax(m, xs[r * BLOCK + c]);
			for (int c = 0; c < NC; c++)
				s += exp(xs[r * BLOCK + c] - m);
			for (int c = 0; c < BLOCK; c++) {
				double want = c < NC ? exp(xs[r * BLOCK + c] - m) / s : -1;
				if (fabs(o[r * BLOCK + c] - want) > 1e-6 && bad++ < 3)
					fprintf(stderr, "softmax[%d][%d] = %g, want %g\n", r, c,
					        o[r * BLOCK + c], want);
			}
		}
		CHECK(bad == 0);
		free(xs);
		free(o);
	}
	arena_free(&b.arena);
}
/* ---- f16 as i16 bits: exhaustive / dense conversion and arithmetic checks -------------------- */

/* C references, independent of the emitter: decode by formula, encode by
 * searching the sorted table of non-negative f16 values (0x7c00 standing for
 * 2^16, so the search itself rounds to infinity past 65520). */
static double f16_tab[0x7c01];

static void f16_tab_init(void)
{
	for (int h = 0; h < 0x7c00; h++) {
		int ex = h >> 10, m = h & 0x3ff;
		f16_tab[h] = ex ? ldexp(1024 + m, ex - 25) : ldexp(m, -24);
	}
	f16_tab[0x7c00] = 65536.0;
}

/* f16 bits -> f32 bits: exact; NaNs quieted with their payload kept */
static uint32_t ref_f16_to_f32(uint16_t h)
{
	uint32_t s = (uint32_t)(h & 0x8000) << 16, em = h & 0x7fffu;
	if (em >= 0x7c00)
		return s | 0x7f800000u | (em & 0x3ff) << 13 | (em > 0x7c00 ? 0x400000u : 0);
	float f = (float)f16_tab[em];
	uint32_t u;
	memcpy(&u, &f, 4);
	return s | u;
}

/* a >= 0, not NaN, in a type where every f16 value and midpoint is exact */
#define REF_ROUND(NAME, T)                                                                         \
	static uint16_t NAME(T a, bool rtz)                                                        \
	{                                                                                          \
		if (a >= (T)65536.0)                                                               \
			return rtz && a != (T)INFINITY ? 0x7bff : 0x7c00;                          \
		int lo = 0, hi = 0x7c00; /* tab[lo] <= a < tab[hi] */                              \
		while (hi - lo > 1) {                                                              \
			int mid = (lo + hi) / 2;                                                   \
			if ((T)f16_tab[mid] <= a)                                                  \
				lo = mid;                                                          \
			else                                                                       \
				hi = mid;                                                          \
		}                                                                                  \
		if (rtz)                                                                           \
			return (uint16_t)(lo == 0x7c00 ? 0x7bff : lo);                             \
		T dl = a - (T)f16_tab[lo], dh = (T)f16_tab[hi] - a;                                \
		return (uint16_t)(dl < dh || (dl == dh && !(lo & 1)) ? lo : hi);                   \
	}
REF_ROUND(ref_round_d, double)
REF_ROUND(ref_round_q, _Float128)

static uint16_t ref_f64_to_f16(double x, bool rtz)
{
	uint16_t s = signbit(x) ? 0x8000 : 0;
	if (isnan(x)) {
		uint64_t u;
		memcpy(&u, &x, 8);
		return s | 0x7e00 | (uint16_t)((u >> 42) & 0x3ff);
	}
	return s | ref_round_d(fabs(x), rtz);
}

static uint16_t ref_f32_to_f16(float x, bool rtz)
{
	if (isnan(x)) {
		uint32_t u;
		memcpy(&u, &x, 4);
		return (uint16_t)((u >> 16 & 0x8000) | 0x7e00 | (u >> 13 & 0x3ff));
	}
	return ref_f64_to_f16(x, rtz);
}

static float bits_f32(uint32_t u)
{
	float f;
	memcpy(&f, &u, 4);
	return f;
}

static uint32_t f32_bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static bool f16_isnan(uint16_t h) { return (h & 0x7fff) > 0x7c00; }

/* out[i] = OP(in0[i], in1[i], in2[i]) over n elements (n a multiple of T):
 * kind is TP_CAST (to `to`, flags = TIR_RTZ or 0), a binary op, TP_FMA or
 * TP_MATH (attr.math = flags) */
static bool run_f16_kernel(const char *target, int kind, int flags, int nin, DType from, DType to,
                           void *const *in, void *out, int n)
{
	B b;
	b_init(&b, "f16k", target, 4);
	Type ts[4] = {type_ptr(from), type_ptr(from), type_ptr(from), type_ptr(to)};
	ts[nin] = type_ptr(to);
	b_params(&b, nin + 1, ts);
	int T = b.f->num_warps * b.f->lanes_per_warp;
	TpVal pid = op1(&b, TP_PROGRAM_ID, NULL, 0, type_scalar(DT_I32));
	TpVal off = bin(&b, TP_ADD, bin(&b, TP_MUL, pid, cint(&b, DT_I32, T)), tid(&b));
	TpVal v[3];
	for (int i = 0; i < nin; i++)
		v[i] = ld1(&b, ptr_add(&b, param(&b, i), off), ctrue(&b), TP_COALESCED);
	TpOp *o = op(&b, (TpOpKind)kind, v, nin, type_scalar(to), 1);
	if (kind == TP_MATH)
		o->attr.math = flags;
	else
		o->attr.flags = flags;
	st1(&b, ptr_add(&b, param(&b, nin), off), ctrue(&b), o->results[0], TP_COALESCED);
	ret(&b);
	KernelFn fn = compile(&b, NULL);
	if (fn) {
		void *p[4] = {0}, *args[4];
		for (int i = 0; i < nin; i++)
			p[i] = in[i];
		p[nin] = out;
		for (int i = 0; i <= nin; i++)
			args[i] = &p[i];
		run_grid(fn, args, n / T, NULL, NULL);
	}
	arena_free(&b.arena);
	return fn != NULL;
}

static void f16_exhaustive(const char *target)
{
	enum { N = 65536 };
	uint16_t *h = malloc(N * 2), *h2 = malloc(N * 2);
	uint32_t *f = malloc(N * 4);
	for (int i = 0; i < N; i++)
		h[i] = (uint16_t)i;
	void *in[1] = {h};
	if (run_f16_kernel(target, TP_CAST, 0, 1, DT_F16, DT_F32, in, f, N)) {
		int bad = 0;
		for (int i = 0; i < N; i++)
			if (f[i] != ref_f16_to_f32(h[i]) && bad++ < 5)
				fprintf(stderr, "f16->f32 [%s] %04x -> %08x, want %08x\n", target, i,
				        f[i], ref_f16_to_f32(h[i]));
		CHECK(bad == 0);
	}
	in[0] = f;
	if (run_f16_kernel(target, TP_CAST, 0, 1, DT_F32, DT_F16, in, h2, N)) {
		int bad = 0;
		for (int i = 0; i < N; i++) {
			uint16_t want = (uint16_t)(f16_isnan((uint16_t)i) ? i | 0x200 : i);
			if (h2[i] != want && bad++ < 5)
				fprintf(stderr, "f16->f32->f16 [%s] %04x -> %04x, want %04x\n", target,
				        i, h2[i], want);
		}
		CHECK(bad == 0);
	}
	free(h);
	free(h2);
	free(f);
}

/* f32 values around every f16 value and midpoint, a strided sweep over the
 * exponents that matter, and specials */
static int f32_samples(float *xs, int cap)
{
	int n = 0;
#define ADD(v)                                                                                     \
	do {                                                                                       \
		if (n < cap)                                                                       \
			xs[n++] = (v);                                                             \
	} while (0)
	for (int k = 0; k < 0x7c00; k++) {
		float v = (float)f16_tab[k], m = (float)((f16_tab[k] + f16_tab[k + 1]) / 2);
		float c[6] = {v, nextafterf(v, INFINITY), nextafterf(v, 0), m,
		              nextafterf(m, INFINITY), nextafterf(m, 0)};
		for (int j = 0; j < 6; j++) {
			ADD(c[j]);
			ADD(-c[j]);
		}
	}
	for (uint32_t u = 90u << 23; u < 145u << 23; u += 97)
		ADD(bits_f32(u ^ (u & 64 ? 0x80000000u : 0)));
	static const uint32_t sp[] = {0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000,
	                              0xffc00000, 0x7f800001, 0x7fa00000, 0xffbfffff, 0x7f7fffff,
	                              0x00000001, 0x80000001, 0x007fffff, 0x00800000, 0x477fe000,
	                              0x477fefff, 0x477ff000, 0x477ff001, 0x47800000, 0x33000000,
	                              0x33000001, 0x32ffffff, 0x33400000, 0x387fe000, 0x387ff000};
	for (size_t i = 0; i < COUNTOF(sp); i++)
		ADD(bits_f32(sp[i]));
#undef ADD
	return n;
}

static void f16_from_wide(void)
{
	enum { CAP = 1 << 23 };
	float *xs = malloc(CAP * 4);
	int n = f32_samples(xs, CAP);
	CHECK(n < CAP);
	for (; n % 32; n++) /* whole programs of 32 threads */
		xs[n] = 0;
	uint16_t *o = malloc((size_t)n * 2);
	double *ds = malloc((size_t)n * 8);
	for (int rtz = 0; rtz < 2; rtz++) {
		void *in[1] = {xs};
		if (!run_f16_kernel("cpu", TP_CAST, rtz ? TIR_RTZ : 0, 1, DT_F32, DT_F16, in, o, n))
			continue;
		int bad = 0;
		for (int i = 0; i < n; i++) {
			uint16_t want = ref_f32_to_f16(xs[i], rtz);
			if (o[i] != want && bad++ < 5)
				fprintf(stderr, "f32->f16%s %08x (%.9g) -> %04x, want %04x\n",
				        rtz ? " rtz" : "", f32_bits(xs[i]), xs[i], o[i], want);
		}
		CHECK(bad == 0);
	}
	/* f64 -> f16 rounds once: values a hair off an f16 midpoint, which a
	 * conversion through f32 would round onto it */
	for (int i = 0; i < n; i++) {
		int k = (i / 4) % 0x7c00;
		double m = (f16_tab[k] + f16_tab[k + 1]) / 2, t = ldexp(m, -40);
		ds[i] = (i & 1 ? -1 : 1) * (i & 2 ? m + t : m - t);
		if (i % 7 == 0)
			ds[i] = xs[i];
	}
	void *in[1] = {ds};
	if (run_f16_kernel("cpu", TP_CAST, 0, 1, DT_F64, DT_F16, in, o, n)) {
		int bad = 0;
		for (int i = 0; i < n; i++) {
			uint16_t want = ref_f64_to_f16(ds[i], false);
			if (o[i] != want && bad++ < 5)
				fprintf(stderr, "f64->f16 %.17g -> %04x, want %04x\n", ds[i], o[i],
				        want);
		}
		CHECK(bad == 0);
	}
	free(xs);
	free(o);
	free(ds);
}

/* f16 <-> f64 and int, all 65536 patterns */
static void f16_other_casts(void)
{
	enum { N = 65536 };
	uint16_t *h = malloc(N * 2), *h2 = malloc(N * 2);
	double *d = malloc(N * 8);
	int32_t *iv = malloc(N * 4);
	for (int i = 0; i < N; i++)
		h[i] = (uint16_t)i;
	void *in[1] = {h};
	if (run_f16_kernel("cpu", TP_CAST, 0, 1, DT_F16, DT_F64, in, d, N)) {
		int bad = 0;
		for (int i = 0; i < N; i++) {
			double want = bits_f32(ref_f16_to_f32(h[i]));
			bool ok = isnan(want) ? isnan(d[i]) && !signbit(d[i]) == !signbit(want)
			                      : d[i] == want && !signbit(d[i]) == !signbit(want);
			if (!ok && bad++ < 5)
				fprintf(stderr, "f16->f64 %04x -> %.17g, want %.17g\n", i, d[i], want);
		}
		CHECK(bad == 0);
	}
	if (run_f16_kernel("cpu", TP_CAST, 0, 1, DT_F16, DT_I32, in, iv, N)) {
		int bad = 0;
		for (int i = 0; i < N; i++) {
			float v = bits_f32(ref_f16_to_f32(h[i]));
			int32_t want = isnan(v)            ? 0
			               : v >= 2147483648.0f ? INT32_MAX
			               : v <= -2147483648.0f ? INT32_MIN
			                                     : (int32_t)v;
			if (iv[i] != want && bad++ < 5)
				fprintf(stderr, "f16->i32 %04x -> %d, want %d\n", i, iv[i], want);
		}
		CHECK(bad == 0);
	}
	for (int i = 0; i < N; i++)
		iv[i] = (i - N / 2) * 3 + (i & 1 ? 100000 : 0);
	in[0] = iv;
	if (run_f16_kernel("cpu", TP_CAST, 0, 1, DT_I32, DT_F16, in, h2, N)) {
		int bad = 0;
		for (int i = 0; i < N; i++) {
			uint16_t want = ref_f64_to_f16((double)iv[i], false);
			if (h2[i] != want && bad++ < 5)
				fprintf(stderr, "i32->f16 %d -> %04x, want %04x\n", iv[i], h2[i], want);
		}
		CHECK(bad == 0);
	}
	free(h);
	free(h2);
	free(d);
	free(iv);
}

/* + - * / fma sqrt on f16 operands: one rounding of the exact result */
static void f16_arith(void)
{
	enum { N = 1 << 17 };
	uint16_t *a[3], *o = malloc(N * 2);
	uint64_t s = 0x9e3779b97f4a7c15ull;
	for (int j = 0; j < 3; j++) {
		a[j] = malloc(N * 2);
		for (int i = 0; i < N; i++) {
			s = s * 6364136223846793005ull + 1442695040888963407ull;
			uint16_t r = (uint16_t)(s >> 40);
			/* mostly values of similar magnitude (cancellation, ties),
			 * some of every kind */
			uint16_t near1 = (uint16_t)((r & 0x83ff) | (0x3800 + ((r >> 10) & 7) * 0x400));
			a[j][i] = i & 3 ? near1 : r;
		}
	}
	static const int ops[] = {TP_ADD, TP_SUB, TP_MUL, TP_DIV, TP_FMA, TP_MATH};
	for (size_t k = 0; k < COUNTOF(ops); k++) {
		int nin = ops[k] == TP_FMA ? 3 : ops[k] == TP_MATH ? 1 : 2;
		void *in[3] = {a[0], a[1], a[2]};
		if (!run_f16_kernel("cpu", ops[k], ops[k] == TP_MATH ? MATH_SQRT : 0, nin, DT_F16,
		                    DT_F16, in, o, N))
			continue;
		int bad = 0;
		for (int i = 0; i < N; i++) {
			_Float128 x = bits_f32(ref_f16_to_f32(a[0][i]));
			_Float128 y = bits_f32(ref_f16_to_f32(a[1][i]));
			_Float128 z = bits_f32(ref_f16_to_f32(a[2][i]));
			_Float128 r;
			switch (ops[k]) {
			case TP_ADD: r = x + y; break;
			case TP_SUB: r = x - y; break;
			case TP_MUL: r = x * y; break;
			case TP_DIV: r = x / y; break;
			case TP_FMA: r = x * y + z; break;
			default: r = sqrt((double)x); break; /* exact enough: 53 >= 2*11+2 */
			}
			bool neg = signbit((double)r);
			uint16_t want = r != r ? 0x7e00
			                       : (uint16_t)((neg ? 0x8000 : 0) |
			                                    ref_round_q(neg ? -r : r, false));
			bool ok = f16_isnan(want) ? f16_isnan(o[i]) : o[i] == want;
			if (!ok && bad++ < 5)
				fprintf(stderr, "f16 %s %04x %04x %04x -> %04x, want %04x\n",
				        tp_op_name((TpOpKind)ops[k]), a[0][i], a[1][i], a[2][i], o[i],
				        want);
		}
		CHECK(bad == 0);
	}
	for (int j = 0; j < 3; j++)
		free(a[j]);
	free(o);
}

static void test_f16(void)
{
	f16_tab_init();
	f16_exhaustive("cpu");
	f16_exhaustive("cuda-emu");
	f16_from_wide();
	f16_other_casts();
	f16_arith();
}

/* ---- source kernels through the public API (cpu and cuda-emu) ---------------------- */

static const char gems_src[] = SRC_KERNELS_SMEM_TILES
                               "\n"
                               "@triton.jit\n"
                               "def amin(X, V, R, n, B: tl.constexpr):\n"
                               "    o = tl.arange(0, B)\n"
                               "    m = o < n\n"
                               "    r = tl.atomic_min(X + o, tl.load(V + o), mask=m)\n"
                               "    tl.store(R + o, r, mask=m)\n"
                               "\n"
                               "@triton.jit\n"
                               "def amax(X, V, R, n, B: tl.constexpr):\n"
                               "    o = tl.arange(0, B)\n"
                               "    m = o < n\n"
                               "    r = tl.atomic_max(X + o, tl.load(V + o), mask=m)\n"
                               "    tl.store(R + o, r, mask=m)\n"
                               "\n"
                               "@triton.jit\n"
                               "def aadd(X, V, R, n, B: tl.constexpr):\n"
                               "    o = tl.arange(0, B)\n"
                               "    m = o < n\n"
                               "    r = tl.atomic_add(X + o, tl.load(V + o), mask=m)\n"
                               "    tl.store(R + o, r, mask=m)\n"
                               "\n"
                               "@triton.jit\n"
                               "def acont(X, V, B: tl.constexpr):\n"
                               "    o = tl.arange(0, B)\n"
                               "    tl.atomic_add(X + o % 4, tl.load(V + o))\n";

static tile_kernel *src_kernel(tile_module *m, const char *name, const char *sig,
                               const char *target)
{
	tile_kernel_options ko = {0};
	ko.target = target;
	tile_kernel *k = NULL;
	tile_status st = tile_kernel_get(m, name, sig, &ko, &k);
	if (st != TILE_OK)
		fprintf(stderr, "%s on %s: %s\n", name, target, tile_status_string(st));
	CHECK(st == TILE_OK);
	return k;
}

static bool launch1(tile_kernel *k, int grid, const tile_arg *a, int n)
{
	uint32_t g[3] = {(uint32_t)grid, 1, 1};
	return k && tile_launch(k, g, a, (size_t)n, NULL) == TILE_OK;
}

/* A pointer tile and a bool tile through shared memory (layout conversions). */
static void test_src_smem_ptr_bool(tile_module *m, const char *target)
{
	tile_kernel *k = src_kernel(m, "hist", "*i32:16,*i64:16,256", target);
	_Alignas(16) int32_t cnt[16] = {0};
	_Alignas(16) int64_t idx[256];
	for (int i = 0; i < 256; i++)
		idx[i] = (i * 7 + i / 16) % 16;
	tile_arg a[2] = {tile_arg_ptr(cnt, TILE_I32), tile_arg_ptr(idx, TILE_I64)};
	CHECK(launch1(k, 1, a, 2));
	int want[16] = {0};
	for (int i = 0; i < 256; i++)
		want[idx[i]]++;
	for (int b = 0; b < 16; b++)
		CHECK(cnt[b] == want[b]);
	tile_kernel_destroy(k);

	k = src_kernel(m, "flip", "*fp32:16,*fp32:16,32", target);
	static _Alignas(16) float x[32 * 32], y[32 * 32];
	for (int i = 0; i < 32 * 32; i++)
		x[i] = (float)((i * 37) % 11) - 5.0f;
	tile_arg b[2] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(y, TILE_FP32)};
	CHECK(launch1(k, 1, b, 2));
	int bad = 0;
	for (int i = 0; i < 32; i++)
		for (int j = 0; j < 32; j++)
			bad += y[i * 32 + j] !=
			       (x[j * 32 + i] > 0 ? x[i * 32 + j] : -x[i * 32 + j]);
	CHECK(bad == 0);
	tile_kernel_destroy(k);
}

static uint32_t fbits(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

/* Triton's float atomic_max/min (semantic.py): max of the signed bits for a
 * value with the sign bit clear, umin of the unsigned bits for one with it set
 * (min the other way round), written out as those two integer atomics. It
 * orders -NaN < -inf < -0.0 < +0.0 < +inf < +NaN: a +NaN wins a max and
 * stays, a -NaN wins a min (a NaN operand was ignored, a stored NaN replaced). */
static float ref_fminmax(float a, float v, bool mx)
{
	uint32_t ua = fbits(a), uv = fbits(v), r;
	if (!(uv >> 31))
		r = mx ? ((int32_t)ua > (int32_t)uv ? ua : uv) : ((int32_t)ua < (int32_t)uv ? ua : uv);
	else
		r = mx ? (ua < uv ? ua : uv) : (ua > uv ? ua : uv);
	float f;
	memcpy(&f, &r, 4);
	return f;
}

static bool same_f32(float a, float b) { return isnan(a) ? isnan(b) : fbits(a) == fbits(b); }

/* fp32 atomic_min/max: signed zeros, NaN operands, masked lanes, old values. */
static void test_src_atomic_f32(tile_module *m, const char *target)
{
	static const float xs[12] = {1, -2, 0.0f, -0.0f, 5, -5, 3, NAN, 2, -1, -NAN, -NAN};
	static const float vs[12] = {2, -3, -0.0f, 0.0f, -5, 5, -NAN, -1, NAN, -0.0f, 1, -3};
	for (int mx = 0; mx < 2; mx++) {
		tile_kernel *k = src_kernel(m, mx ? "amax" : "amin",
		                            "*fp32:16,*fp32:16,*fp32:16,i32,16", target);
		_Alignas(16) float x[16], v[16], r[16];
		for (int i = 0; i < 16; i++) {
			x[i] = i < 12 ? xs[i] : 7.0f;
			v[i] = i < 12 ? vs[i] : 100.0f;
			r[i] = 42.0f;
		}
		tile_arg a[4] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(v, TILE_FP32),
		                 tile_arg_ptr(r, TILE_FP32), tile_arg_i32(12)};
		CHECK(launch1(k, 1, a, 4));
		for (int i = 0; i < 16; i++) {
			float want = i < 12 ? ref_fminmax(xs[i], vs[i], mx) : 7.0f;
			float old = i < 12 ? xs[i] : 42.0f;
			if (!same_f32(x[i], want) || !same_f32(r[i], old)) {
				fprintf(stderr,
				        "%s %s lane %d: got %g (old %g), want %g (old %g)\n",
				        target, mx ? "amax" : "amin", i, x[i], r[i], want, old);
				failures++;
			}
		}
		tile_kernel_destroy(k);
	}
}

typedef struct Case16 {
	uint16_t x, v, want;
} Case16;

/* One 16-bit float atomic over 8 lanes, lanes 5..7 masked off. */
static void run16(tile_module *m, const char *target, const char *kname, const char *sig,
                  tile_dtype dt, const Case16 *c, int nc)
{
	tile_kernel *k = src_kernel(m, kname, sig, target);
	_Alignas(16) uint16_t x[8], v[8], r[8];
	for (int i = 0; i < 8; i++) {
		x[i] = i < nc ? c[i].x : 0x1234;
		v[i] = i < nc ? c[i].v : 0x3c00;
		r[i] = 0x7777;
	}
	tile_arg a[4] = {tile_arg_ptr(x, dt), tile_arg_ptr(v, dt), tile_arg_ptr(r, dt),
	                 tile_arg_i32(nc)};
	CHECK(launch1(k, 1, a, 4));
	for (int i = 0; i < 8; i++) {
		uint16_t want = i < nc ? c[i].want : 0x1234, old = i < nc ? c[i].x : 0x7777;
		if (x[i] != want || r[i] != old) {
			fprintf(stderr,
			        "%s %s %s lane %d: got %04x (old %04x), want %04x (old %04x)\n",
			        target, kname, tile_dtype_name(dt), i, x[i], r[i], want, old);
			failures++;
		}
	}
	tile_kernel_destroy(k);
}

static void test_src_atomic_16(tile_module *m, const char *target)
{
	static const char sig16[] = "*fp16:16,*fp16:16,*fp16:16,i32,8";
	static const char sigbf[] = "*bf16:16,*bf16:16,*bf16:16,i32,8";
	/* fp16: 1 = 3c00, 2 = 4000, 3 = 4200, .5 = 3800, .25 = 3400, .75 = 3a00, -1 = bc00 */
	static const Case16 add16[] = {{0x3c00, 0x4000, 0x4200},
	                               {0x3800, 0x3400, 0x3a00},
	                               {0xc000, 0x3c00, 0xbc00},
	                               {0x3e00, 0x3e00, 0x4200},
	                               {0x8000, 0x8000, 0x8000}};
	/* bf16: 1 = 3f80, 2 = 4000, 3 = 4040, .5 = 3f00, .25 = 3e80, .75 = 3f40, -1 = bf80 */
	static const Case16 addbf[] = {{0x3f80, 0x4000, 0x4040},
	                               {0x3f00, 0x3e80, 0x3f40},
	                               {0xc000, 0x3f80, 0xbf80},
	                               {0x3fc0, 0x3fc0, 0x4040},
	                               {0x8000, 0x8000, 0x8000}};
	run16(m, target, "aadd", sig16, TILE_FP16, add16, 5);
	run16(m, target, "aadd", sigbf, TILE_BF16, addbf, 5);

	/* contention: 8 programs x 64 lanes add 1.0 into 4 words (CAS retries) */
	static const struct {
		const char *sig;
		tile_dtype dt;
		uint16_t one, want; /* 1.0 and 128.0 */
	} cont[] = {{"*fp16:16,*fp16:16,64", TILE_FP16, 0x3c00, 0x5800},
	            {"*bf16:16,*bf16:16,64", TILE_BF16, 0x3f80, 0x4300}};
	for (int t = 0; t < 2; t++) {
		tile_kernel *k = src_kernel(m, "acont", cont[t].sig, target);
		_Alignas(16) uint16_t x[8] = {0}, v[64];
		for (int i = 0; i < 64; i++)
			v[i] = cont[t].one;
		tile_arg a[2] = {tile_arg_ptr(x, cont[t].dt), tile_arg_ptr(v, cont[t].dt)};
		CHECK(launch1(k, 8, a, 2));
		for (int i = 0; i < 4; i++)
			CHECK(x[i] == cont[t].want);
		CHECK(x[4] == 0);
		tile_kernel_destroy(k);
	}
}

static void test_source_kernels(void)
{
	static const char *const targets[] = {"cpu", "cuda-emu"};
	for (int t = 0; t < 2; t++) {
		tile_context_options o = {0};
		o.target = "cpu";
		o.disable_cache = 1;
		tile_context *ctx = NULL;
		tile_module *m = NULL;
		CHECK(tile_context_create(&ctx, &o) == TILE_OK);
		if (ctx)
			CHECK(tile_module_load_source(ctx, "gems.tile", gems_src, (size_t)-1, &m) ==
			      TILE_OK);
		if (m) {
			test_src_smem_ptr_bool(m, targets[t]);
			test_src_atomic_f32(m, targets[t]);
			test_src_atomic_16(m, targets[t]);
		} else if (ctx) {
			fprintf(stderr, "load: %s\n", tile_errmsg(ctx));
		}
		tile_module_destroy(m);
		tile_context_destroy(ctx);
	}
}


/* ---- TILE_RACECHECK: shared-memory races by the GPU's barrier rules ----------------------
 * The CPU runs threads in lock-step, so each program below computes the same
 * thing with or without its barrier; the checker (jit/rt_race.c) must tell
 * the racy ones apart, by thread and op, and stay quiet on the rest. */

typedef enum {
	RC_RAW,         /* smem[t] = t; read smem[t ^ 1] */
	RC_RAW_BARRIER, /* the same with a barrier between: clean */
	RC_WAR,         /* smem[t] = t; barrier; read smem[t ^ 1]; smem[t] = t + 1 */
	RC_SAME_VALUE,  /* every thread writes 7 to word 0, barrier, reads it: clean */
	RC_WAW,         /* every thread writes its id to word 0 */
	RC_MASKED,      /* only thread 0 writes and reads word 1: clean */
	RC_ASYNC,       /* cp.async into slot t, wait, read slot t ^ 1: needs a barrier */
	RC_ASYNC_BARRIER, /* the same with the barrier: clean */
	RC_IN_FLIGHT,   /* cp.async into slot t, barrier, thread t ^ 1 writes slot t, wait */
	RC_UNWRITTEN,   /* read smem[t], which nothing wrote */
	RC_COUNT
} RaceCase;

typedef struct FaultLog {
	int n;
	char msg[768];
} FaultLog;

static void on_fault(void *user, const char *msg)
{
	FaultLog *l = user;
	if (!l->n++)
		snprintf(l->msg, sizeof l->msg, "%s", msg);
}

static void smem_st(B *b, TpVal off, TpVal mask, TpVal v)
{
	TpVal in[3] = {off, mask, v};
	op(b, TP_SMEM_STORE, in, 3, type_scalar(DT_VOID), 0)->attr.i = 1;
}

static TpVal smem_ld(B *b, TpVal off, TpVal mask)
{
	TpVal in[2] = {off, mask};
	TpOp *o = op(b, TP_SMEM_LOAD, in, 2, type_scalar(DT_I32), 1);
	o->attr.i = 1;
	return o->results[0];
}

static void test_racecheck(const char *target, RaceCase rc, bool on)
{
	B b;
	b_init(&b, "racecheck", target, 2);
	b.f->racecheck = on;
	int T = threads(&b);
	b.f->smem_bytes = T * 16;
	Type ts[2] = {type_ptr(DT_I32), type_ptr(DT_I32)};
	b_params(&b, 2, ts);
	TpVal x = param(&b, 0), out = param(&b, 1), t = tid(&b);
	TpVal four = cint(&b, DT_I32, 4), sixteen = cint(&b, DT_I32, 16), all = ctrue(&b);
	TpVal mine = bin(&b, TP_MUL, t, four);
	TpVal other = bin(&b, TP_MUL, bin(&b, TP_XOR, t, cint(&b, DT_I32, 1)), four);
	TpVal zero = cint(&b, DT_I32, 0), v = t;
	switch (rc) {
	case RC_RAW:
	case RC_RAW_BARRIER:
		smem_st(&b, mine, all, t);
		if (rc == RC_RAW_BARRIER)
			op(&b, TP_BARRIER, NULL, 0, type_scalar(DT_VOID), 0);
		v = smem_ld(&b, other, all);
		break;
	case RC_WAR:
		smem_st(&b, mine, all, t);
		op(&b, TP_BARRIER, NULL, 0, type_scalar(DT_VOID), 0);
		v = smem_ld(&b, other, all);
		smem_st(&b, mine, all, bin(&b, TP_ADD, t, cint(&b, DT_I32, 1)));
		break;
	case RC_UNWRITTEN: v = smem_ld(&b, mine, all); break;
	case RC_SAME_VALUE:
	case RC_WAW:
		smem_st(&b, zero, all, rc == RC_WAW ? t : cint(&b, DT_I32, 7));
		op(&b, TP_BARRIER, NULL, 0, type_scalar(DT_VOID), 0);
		v = smem_ld(&b, zero, all);
		break;
	case RC_MASKED: {
		TpVal t0 = cmpv(&b, PRED_EQ, t, zero);
		smem_st(&b, four, t0, cint(&b, DT_I32, 5));
		v = smem_ld(&b, four, t0);
		break;
	}
	case RC_ASYNC:
	case RC_ASYNC_BARRIER:
	case RC_IN_FLIGHT: {
		TpVal slot = bin(&b, TP_MUL, t, sixteen);
		TpVal oslot = bin(&b, TP_MUL, bin(&b, TP_XOR, t, cint(&b, DT_I32, 1)), sixteen);
		cp_async_op(&b, ptr_add(&b, x, mine), slot, all, 0, 16);
		cp_commit(&b);
		if (rc == RC_IN_FLIGHT) {
			op(&b, TP_BARRIER, NULL, 0, type_scalar(DT_VOID), 0);
			smem_st(&b, oslot, all, t);
		}
		cp_wait(&b, 0);
		if (rc == RC_ASYNC_BARRIER)
			op(&b, TP_BARRIER, NULL, 0, type_scalar(DT_VOID), 0);
		v = smem_ld(&b, rc == RC_IN_FLIGHT ? slot : oslot, all);
		break;
	}
	default: break;
	}
	st1(&b, ptr_add(&b, out, t), all, v, TP_COALESCED);
	ret(&b);
	KernelFn fn = compile(&b, NULL);
	if (fn) {
		int32_t xs[4 * 64 + 4], o[64];
		for (int i = 0; i < 4 * 64 + 4; i++)
			xs[i] = i;
		_Alignas(16) unsigned char smem[64 * 16];
		int32_t *p0 = xs, *p1 = o;
		void *args[2] = {&p0, &p1};
		FaultLog log = {0};
		TileRuntimeHooks h = {.fault = on_fault, .user = &log};
		run_grid(fn, args, 3, smem, &h);
		bool racy = on && (rc == RC_RAW || rc == RC_WAR || rc == RC_WAW || rc == RC_ASYNC ||
		                   rc == RC_IN_FLIGHT || rc == RC_UNWRITTEN);
		/* one report per program instance, the first race of each */
		if ((log.n == 3 * racy && h.fault_count == 3 * racy) == 0)
			fprintf(stderr, "racecheck[%s] case %d on=%d: %d reports (%s)\n", target, (int)rc,
			        (int)on, log.n, log.msg);
		CHECK(log.n == 3 * racy && h.fault_count == 3 * racy);
		static const char *const want[RC_COUNT] = {
		        [RC_RAW] = "thread 0 (warp 0, lane 0) reads shared-memory byte 4 at (smem_load), "
		                   "which thread 1 (warp 0, lane 1) wrote at (smem_store), with no barrier between "
		                   "(program (0, 0, 0))",
		        [RC_WAR] = "thread 0 (warp 0, lane 0) writes shared-memory byte 0 at (smem_store), "
		                   "which thread 1 (warp 0, lane 1) read at (smem_load)",
		        [RC_WAW] = "thread 1 (warp 0, lane 1) writes shared-memory byte 0 at (smem_store), "
		                   "which thread 0 (warp 0, lane 0) wrote",
		        [RC_ASYNC] = "thread 0 (warp 0, lane 0) reads shared-memory byte 16 at (smem_load), "
		                     "which thread 1 (warp 0, lane 1) copied (cp.async) into at (cp_async)",
		        [RC_IN_FLIGHT] = "thread 0 (warp 0, lane 0) writes shared-memory byte 16 at (smem_store), "
		                         "which thread 1 (warp 0, lane 1) copies into at (cp_async), and no "
		                         "cp.async wait has retired the copy yet (program (0, 0, 0))",
		        [RC_UNWRITTEN] = "thread 0 (warp 0, lane 0) reads shared-memory byte 0 at (smem_load), "
		                         "which no thread of the program wrote (program (0, 0, 0))"};
		if (racy && !strstr(log.msg, want[rc])) {
			fprintf(stderr, "racecheck[%s] case %d: got\n  %s\nwant it to contain\n  %s\n", target,
			        (int)rc, log.msg, want[rc]);
			failures++;
		}
		/* the answers do not depend on the checker */
		for (int i = 0; i < T; i++) {
			int want_v = rc == RC_RAW || rc == RC_RAW_BARRIER || rc == RC_WAR   ? i ^ 1
			             : rc == RC_SAME_VALUE                                  ? 7
			             : rc == RC_WAW                                         ? T - 1
			             : rc == RC_MASKED                                      ? (i == 0 ? 5 : 0)
			             : rc == RC_IN_FLIGHT                                   ? 4 * i
			                                                                    : 4 * (i ^ 1);
			if (rc != RC_UNWRITTEN) /* that one reads what the previous instance left */
				CHECK(o[i] == want_v);
		}
	}
	arena_free(&b.arena);
}


/* ---- cuda-emu faults where a GPU does on a misaligned vector access --------------------
 * out[t*4 .. t*4+3] = x[t*4 + shift ..] as one 16-byte load (global), then the same
 * through shared memory at byte offset t*32 + sshift; only threads < active access. */
static void test_misaligned(const char *target, int shift, int sshift, int active, const char *want)
{
	B b;
	b_init(&b, "misaligned", target, 1);
	int T = threads(&b);
	b.f->smem_bytes = T * 32;
	Type ts[2] = {type_ptr(DT_I32), type_ptr(DT_I32)};
	b_params(&b, 2, ts);
	TpVal x = param(&b, 0), out = param(&b, 1), t = tid(&b);
	TpVal four = cint(&b, DT_I32, 4), on = cmpv(&b, PRED_LT, t, cint(&b, DT_I32, active));
	TpVal v[4], z = cint(&b, DT_I32, 0), zs[4] = {z, z, z, z};
	load(&b, ptr_add(&b, x, bin(&b, TP_ADD, bin(&b, TP_MUL, t, four), cint(&b, DT_I32, shift))), on,
	     zs, 4, 0, v);
	TpVal off = bin(&b, TP_ADD, bin(&b, TP_MUL, t, cint(&b, DT_I32, 32)), cint(&b, DT_I32, sshift));
	TpVal in[6] = {off, on, v[0], v[1], v[2], v[3]};
	op(&b, TP_SMEM_STORE, in, 6, type_scalar(DT_VOID), 0)->attr.i = 4;
	TpVal in2[2] = {off, on};
	TpOp *l = op(&b, TP_SMEM_LOAD, in2, 2, type_scalar(DT_I32), 4);
	l->attr.i = 4;
	store(&b, ptr_add(&b, out, bin(&b, TP_MUL, t, four)), ctrue(&b), l->results, 4, 0);
	ret(&b);
	KernelFn fn = compile(&b, NULL);
	if (fn) {
		_Alignas(16) int32_t xs[4 * 32 + 8], o[4 * 32];
		for (int i = 0; i < 4 * 32 + 8; i++)
			xs[i] = i;
		_Alignas(16) unsigned char smem[32 * 32];
		int32_t *p0 = xs, *p1 = o;
		void *args[2] = {&p0, &p1};
		FaultLog log = {0};
		TileRuntimeHooks h = {.fault = on_fault, .user = &log};
		run_grid(fn, args, 1, smem, &h);
		if (want ? !strstr(log.msg, want) : log.n != 0) {
			fprintf(stderr, "misaligned[%s] shift %d sshift %d active %d: %d reports (%s), want %s\n",
			        target, shift, sshift, active, log.n, log.msg, want ? want : "none");
			failures++;
		}
		int bad = 0, first = -1;
		for (int i = 0; i < (active < T ? active : T) * 4; i++) /* the CPU reads it anyway */
			if (o[i] != i + shift && !bad++)
				first = i;
		if (bad)
			fprintf(stderr, "misaligned[%s] %d %d: o[%d] = %d\n", target, shift, sshift, first,
			        o[first]);
		CHECK(bad == 0);
	}
	arena_free(&b.arena);
}

int main(void)
{
	char err[256];
	jit = orc_create(err, sizeof err);
	if (!jit) {
		fprintf(stderr, "orc_create: %s\n", err);
		return 1;
	}
	test_vadd("cpu", 4, 4, TP_COALESCED);
	test_vadd("cpu", 4, 4, 0);
	test_vadd("cpu", 2, 1, TP_COALESCED);
	test_vadd("cuda-emu", 4, 2, TP_COALESCED);
	test_vadd("cuda-emu", 4, 2, 0);
	test_gather();
	test_lane_loop("cuda-emu", 4, 0, 0);
	test_lane_loop("cuda-emu", 4, 1030, 0);
	test_lane_loop("cuda-emu", 4, 0, 1030);
	test_lane_loop("cpu", 2, 4, 0);
	test_shfl();
	test_smem();
	test_control();
	test_long_block();
	for (int k = 0; k < MMA_KIND_COUNT; k++)
		test_mma(k);
	test_mma_tf32_rounding();
	test_ldmatrix(1, false, 2);
	test_ldmatrix(2, true, 2);
	test_ldmatrix(4, false, 2);
	test_ldmatrix(4, true, 2);
	test_ldmatrix(4, false, 1);
	test_ldmatrix(2, false, 4);
	test_print_assert();
	test_atomics();
	test_casts();
	test_f16_conversions();
	test_f16();
	test_math();
	test_vector_math();
	test_orc_and_text();
	test_cp_async();
	for (int bytes = 4; bytes <= 16; bytes *= 2) {
		test_cp_async_strict("cpu", bytes);
		test_cp_async_strict("cuda-emu", bytes);
	}
	test_cp_async_groups("cpu");
	test_cp_async_groups("cuda-emu");
	test_cp_async_loop();
	for (int rc = 0; rc < RC_COUNT; rc++) {
		test_racecheck("cuda-emu", (RaceCase)rc, true);
		test_racecheck("cuda-emu", (RaceCase)rc, false);
	}
	test_racecheck("cpu", RC_RAW, true);
	test_misaligned("cuda-emu", 0, 0, 32, NULL);
	test_misaligned("cuda-emu", 1, 0, 32,
	                "misaligned address: thread 0 (warp 0, lane 0) accesses 16 bytes at global address 0x");
	test_misaligned("cuda-emu", 0, 8, 32,
	                "misaligned address: thread 0 (warp 0, lane 0) accesses 16 bytes at shared-memory "
	                "offset 0x8, which a GPU needs 16-byte aligned, at (smem_store) (program (0, 0, 0))");
	test_misaligned("cuda-emu", 0, 8, 0, NULL); /* no thread accesses */
	test_misaligned("cpu", 1, 8, 32, NULL);     /* the CPU target has no such rule */
	test_racecheck("cpu", RC_ASYNC, true);
	test_softmax();
	test_source_kernels();
	orc_destroy(jit);
	if (failures) {
		fprintf(stderr, "%d failure(s)\n", failures);
		return 1;
	}
	return 0;
}

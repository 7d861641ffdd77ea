/* test_layout_assign.c: axis analysis and layout assignment on hand-built
 * Tile IR (vector add, transpose, reduction + broadcast, dot in a loop). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/tir.h"
#include "layout/assign.h"
#include "layout/axis.h"
#include "layout/linear.h"

static int failures, checks;

#define CHECK(cond, ...)                                                              \
	do {                                                                           \
		checks++;                                                              \
		if (!(cond)) {                                                         \
			failures++;                                                    \
			fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                                  \
			fputc('\n', stderr);                                           \
		}                                                                      \
	} while (0)

/* ---- IR building helpers ---------------------------------------------------- */

typedef struct B {
	TirFunc *f;
	TirBlock *b;
} B;

static const SrcLoc noloc;

static ValId op1(B *x, TirOpKind k, Type t, ValId a, ValId b2, ValId c)
{
	ValId in[3] = {a, b2, c};
	int n = c ? 3 : b2 ? 2 : a ? 1 : 0;
	TirOp *op = tir_op(x->f, x->b, k, noloc, in, n, &t, 1);
	return op->results[0];
}

static Type tile(DType dt, int rank, int32_t d0, int32_t d1)
{
	int32_t s[2] = {d0, d1};
	return type_tile(type_scalar(dt), rank, s);
}

static ValId cst(B *x, Type t, int64_t v)
{
	TirOp *op = tir_op(x->f, x->b, TOP_CONST, noloc, NULL, 0, &t, 1);
	op->attr.i = v;
	return op->results[0];
}

static ValId arange(B *x, int n)
{
	Type t = tile(DT_I32, 1, n, 0);
	TirOp *op = tir_op(x->f, x->b, TOP_ARANGE, noloc, NULL, 0, &t, 1);
	op->attr.i = 0;
	op->attr.i2 = n;
	return op->results[0];
}

static ValId expand(B *x, ValId v, int axis)
{
	Type t = tir_type(x->f, v);
	int32_t s[2];
	int k = 0;
	for (int d = 0; d < 2; d++)
		s[d] = d == axis ? 1 : t.shape[k++];
	Type r = type_tile(type_elem(t), 2, s);
	TirOp *op = tir_op(x->f, x->b, TOP_EXPAND_DIMS, noloc, &v, 1, &r, 1);
	op->attr.axis = axis;
	return op->results[0];
}

static ValId param(B *x, Type t, int spec)
{
	TirFunc *f = x->f;
	ValId v = tir_block_add_arg(f, f->entry, t);
	TirParam *np = arena_alloc(f->arena, sizeof(TirParam) * (size_t)(f->nparams + 1));
	if (f->nparams)
		memcpy(np, f->params, sizeof(TirParam) * (size_t)f->nparams);
	np[f->nparams].name = "p";
	np[f->nparams].ty = t;
	np[f->nparams].spec = spec;
	np[f->nparams].val = v;
	f->params = np;
	f->nparams++;
	return v;
}

static void ret(B *x)
{
	tir_op(x->f, x->b, TOP_RETURN, noloc, NULL, 0, NULL, 0);
}

typedef struct Counts {
	int cvt, cvt_shared, ops;
} Counts;

static void count(const TirFunc *f, const TirBlock *b, Counts *c)
{
	for (int i = 0; i < b->nops; i++) {
		const TirOp *op = b->ops[i];
		c->ops++;
		if (op->kind == TOP_CONVERT_LAYOUT) {
			c->cvt++;
			if (ll_conversion_kind(f->vals.data[op->operands[0]].layout,
					       f->vals.data[op->results[0]].layout) == CVT_SHARED)
				c->cvt_shared++;
		}
		for (int k = 0; k < op->nregions; k++)
			count(f, &op->regions[k], c);
	}
}

static const TirOp *find_op(const TirBlock *b, TirOpKind k, int nth)
{
	for (int i = 0; i < b->nops; i++) {
		if (b->ops[i]->kind == k && nth-- == 0)
			return b->ops[i];
		for (int r = 0; r < b->ops[i]->nregions; r++) {
			const TirOp *o = find_op(&b->ops[i]->regions[r], k, nth);
			if (o)
				return o;
		}
	}
	return NULL;
}

static bool dump_enabled(void)
{
	const char *e = getenv("TEST_LAYOUT_DUMP");
	return e && *e;
}

static bool run_assign(TirFunc *f, Arena *a, const char *target, int warps)
{
	TargetDesc t;
	CompileOptions o;
	DiagSink d;
	memset(&t, 0, sizeof t);
	memset(&o, 0, sizeof o);
	target_from_name(target, &t);
	o.num_warps = warps;
	diag_init(&d);
	f->num_warps = warps;
	LayoutCtx lc = {a, &d, &t, &o};
	tir_verify(f, "test-build", false);
	bool ok = layout_assign(&lc, f);
	if (ok)
		tir_verify(f, "layout", true);
	if (dump_enabled()) {
		StrBuf sb = {0};
		tir_print(f, &sb, true);
		fprintf(stderr, "---- %s on %s\n%s\n", f->name, target, sb.s ? sb.s : "");
		sb_free(&sb);
	}
	diag_free(&d);
	return ok;
}

static ValId splat(B *x, ValId s, Type t)
{
	return op1(x, TOP_SPLAT, t, s, 0, 0);
}

static ValId bcast(B *x, ValId v, int32_t m, int32_t n)
{
	Type t = tir_type(x->f, v);
	return op1(x, TOP_BROADCAST, tile((DType)t.dt, 2, m, n), v, 0, 0);
}

/* r * sr + c * sc as an [m, n] i32 tile, Triton style */
static ValId offs2d(B *x, int32_t m, int32_t n, int64_t sr, int64_t sc)
{
	ValId r = expand(x, arange(x, m), 1), c = expand(x, arange(x, n), 0);
	if (sr != 1)
		r = op1(x, TOP_MUL, tile(DT_I32, 2, m, 1), r, cst(x, tile(DT_I32, 2, m, 1), sr), 0);
	if (sc != 1)
		c = op1(x, TOP_MUL, tile(DT_I32, 2, 1, n), c, cst(x, tile(DT_I32, 2, 1, n), sc), 0);
	return op1(x, TOP_ADD, tile(DT_I32, 2, m, n), bcast(x, r, m, n), bcast(x, c, m, n), 0);
}

static ValId ptrs(B *x, ValId base, ValId offs)
{
	Type ot = tir_type(x->f, offs), bt = tir_type(x->f, base);
	Type pt = type_tile(bt, ot.rank, ot.shape);
	return op1(x, TOP_PTR_ADD, pt, splat(x, base, pt), offs, 0);
}

static ValId load(B *x, ValId p, ValId mask)
{
	Type pt = tir_type(x->f, p);
	Type t = type_tile(type_scalar((DType)pt.elem), pt.rank, pt.shape);
	ValId in[2] = {p, mask};
	TirOp *op = tir_op(x->f, x->b, TOP_LOAD, noloc, in, mask ? 2 : 1, &t, 1);
	if (mask)
		op->attr.flags |= TIR_HAS_MASK;
	return op->results[0];
}

static void store(B *x, ValId p, ValId v, ValId mask)
{
	ValId in[3] = {p, v, mask};
	TirOp *op = tir_op(x->f, x->b, TOP_STORE, noloc, in, mask ? 3 : 2, NULL, 0);
	if (mask)
		op->attr.flags |= TIR_HAS_MASK;
}

/* ---- kernels ------------------------------------------------------------------ */

static bool is_native_cpu(const char *target) { return strcmp(target, "cpu") == 0; }

/* Lane bit b steps 2^b elements along dim (and nothing else). */
static bool lanes_contiguous(const LinearLayout *l, int dim)
{
	int s = ll_find_slot(l, LL_LANE);
	if (s < 0)
		return false;
	for (int b = 0; b < l->in_bits[s]; b++)
		for (int d = 0; d < l->n_out; d++)
			if (l->basis[s][b][d] != (d == dim ? 1 << b : 0))
				return false;
	return true;
}

/* Triton's vector-add indexing: offs = pid * 1024 + arange(1024), mask =
 * offs < n; *base = pid * 1024 */
static ValId block_offsets(B *x, ValId n, ValId *mask, ValId *base)
{
	Type ti = tile(DT_I32, 1, 1024, 0);
	ValId pid = op1(x, TOP_PROGRAM_ID, type_scalar(DT_I32), 0, 0, 0);
	*base = op1(x, TOP_MUL, type_scalar(DT_I32), pid, cst(x, type_scalar(DT_I32), 1024), 0);
	ValId offs = op1(x, TOP_ADD, ti, splat(x, *base, ti), arange(x, 1024), 0);
	*mask = op1(x, TOP_CMP, tile(DT_I1, 1, 1024, 0), offs, splat(x, n, ti), 0);
	x->f->entry->ops[x->f->entry->nops - 1]->attr.pred = PRED_LT;
	return offs;
}

static void test_vector_add(const char *target, int warps)
{
	Arena a;
	arena_init(&a);
	TirFunc *f = tir_func_new(&a, "add");
	B x = {f, f->entry};
	ValId px = param(&x, type_ptr(DT_F32), SPEC_DIV16), py = param(&x, type_ptr(DT_F32), SPEC_DIV16);
	ValId po = param(&x, type_ptr(DT_F32), SPEC_DIV16), n = param(&x, type_scalar(DT_I32), SPEC_DIV16);
	ValId mask, base, offs = block_offsets(&x, n, &mask, &base);
	ValId xv = load(&x, ptrs(&x, px, offs), mask), yv = load(&x, ptrs(&x, py, offs), mask);
	ValId s = op1(&x, TOP_ADD, tile(DT_F32, 1, 1024, 0), xv, yv, 0);
	store(&x, ptrs(&x, po, offs), s, mask);
	ret(&x);

	AxisInfo *ax = axis_analyze(&a, f);
	CHECK(ax[offs].contig[0] == 1024 && ax[offs].div[0] == 1024 && ax[offs].cnst[0] == 1,
	      "offs: contig %lld div %lld", (long long)ax[offs].contig[0], (long long)ax[offs].div[0]);
	CHECK(ax[mask].cnst[0] == 16, "mask constancy %lld", (long long)ax[mask].cnst[0]);
	CHECK(ax[base].div[0] == 1024, "pid * 1024 divisible by 1024");

	CHECK(run_assign(f, &a, target, warps), "assign %s", target);
	Counts c = {0};
	count(f, f->entry, &c);
	CHECK(c.cvt == 0, "vector add needs no conversion (%d)", c.cvt);
	const TirOp *ld = find_op(f->entry, TOP_LOAD, 0), *st = find_op(f->entry, TOP_STORE, 0);
	const LinearLayout *l = f->vals.data[ld->results[0]].layout;
	if (is_native_cpu(target)) {
		/* SIMD lanes: one element per thread, consecutive threads on
		 * consecutive elements (one wide vector access per register) */
		CHECK(ld && ld->attr.i2 == 1 && st && st->attr.i2 == 1, "cpu: vec 1 (%lld)",
		      ld ? (long long)ld->attr.i2 : -1LL);
		CHECK(lanes_contiguous(l, 0), "cpu: lanes along the contiguous dim");
	} else {
		CHECK(ld && ld->attr.i2 == 4 && st && st->attr.i2 == 4, "vec4 loads/stores (%lld)",
		      ld ? (long long)ld->attr.i2 : -1LL);
		CHECK(ll_num_contig_regs(l, 0) == 4, "4 contiguous registers");
	}
	CHECK(f->smem_bytes == 0, "no shared memory");
	arena_free(&a);
}

static void test_transpose(const char *target, int warps)
{
	Arena a;
	arena_init(&a);
	TirFunc *f = tir_func_new(&a, "transpose");
	B x = {f, f->entry};
	ValId px = param(&x, type_ptr(DT_F32), SPEC_DIV16), po = param(&x, type_ptr(DT_F32), SPEC_DIV16);
	ValId oin = offs2d(&x, 32, 64, 64, 1);
	ValId v = load(&x, ptrs(&x, px, oin), 0);
	ValId oout = offs2d(&x, 32, 64, 1, 32);
	store(&x, ptrs(&x, po, oout), v, 0);
	ret(&x);
	AxisInfo *ax = axis_analyze(&a, f);
	CHECK(ax[oin].contig[1] == 64 && ax[oin].contig[0] == 1 && ax[oin].div[1] == 64,
	      "row offsets contiguous along dim 1");
	CHECK(ax[oout].contig[0] == 32 && ax[oout].contig[1] == 1, "column offsets along dim 0");
	CHECK(run_assign(f, &a, target, warps), "assign");
	Counts c = {0};
	count(f, f->entry, &c);
	/* across warps through shared memory; with one warp (CPU) a shuffle */
	CHECK(c.cvt == 1 && c.cvt_shared == (warps > 1), "one conversion (%d, %d shared)", c.cvt,
	      c.cvt_shared);
	const TirOp *ld = find_op(f->entry, TOP_LOAD, 0), *st = find_op(f->entry, TOP_STORE, 0);
	if (is_native_cpu(target))
		CHECK(lanes_contiguous(f->vals.data[ld->results[0]].layout, 1) &&
		              lanes_contiguous(f->vals.data[st->operands[1]].layout, 0),
		      "cpu: lanes contiguous both ways");
	else
		CHECK(ld->attr.i2 == 4 && st->attr.i2 == 4, "vectorized both ways (%lld %lld)",
		      (long long)ld->attr.i2, (long long)st->attr.i2);
	const TirOp *cv = find_op(f->entry, TOP_CONVERT_LAYOUT, 0);
	CHECK(cv && cv->operands[0] == ld->results[0], "the loaded value is converted");
	if (warps > 1)
		CHECK(f->smem_bytes >= 32 * 64 * 4 && cv && cv->attr.i2 == f->smem_bytes,
		      "smem %d", f->smem_bytes);
	else
		CHECK(f->smem_bytes == 0 && cv && ll_conversion_kind(f->vals.data[cv->operands[0]].layout,
			f->vals.data[cv->results[0]].layout) == CVT_SHUFFLE, "one warp: shuffle");
	arena_free(&a);
}

static void test_reduce_broadcast(const char *target, int warps)
{
	Arena a;
	arena_init(&a);
	TirFunc *f = tir_func_new(&a, "softmaxish");
	B x = {f, f->entry};
	ValId px = param(&x, type_ptr(DT_F32), SPEC_DIV16), po = param(&x, type_ptr(DT_F32), SPEC_DIV16);
	ValId offs = offs2d(&x, 32, 64, 64, 1);
	ValId v = load(&x, ptrs(&x, px, offs), 0);
	Type rt = tile(DT_F32, 1, 32, 0);
	TirOp *red = tir_op(f, x.b, TOP_REDUCE, noloc, &v, 1, &rt, 1);
	red->attr.axis = 1;
	tir_op_add_regions(f, red, 1);
	TirBlock *rb = &red->regions[0];
	ValId r0 = tir_block_add_arg(f, rb, type_scalar(DT_F32));
	ValId r1 = tir_block_add_arg(f, rb, type_scalar(DT_F32));
	B xr = {f, rb};
	ValId mx = op1(&xr, TOP_MAX, type_scalar(DT_F32), r0, r1, 0);
	tir_op(f, rb, TOP_YIELD, noloc, &mx, 1, NULL, 0);
	ValId m = red->results[0];
	ValId mb = bcast(&x, expand(&x, m, 1), 32, 64);
	ValId y = op1(&x, TOP_SUB, tile(DT_F32, 2, 32, 64), v, mb, 0);
	store(&x, ptrs(&x, po, offs), y, 0);
	ret(&x);
	CHECK(run_assign(f, &a, target, warps), "assign");
	Counts c = {0};
	count(f, f->entry, &c);
	CHECK(c.cvt == 0, "reduce + broadcast back needs no conversion (%d)", c.cvt);
	const LinearLayout *vl = f->vals.data[v].layout, *ml = f->vals.data[m].layout;
	LinearLayout s;
	ll_slice(&s, vl, 1);
	CHECK(ml && ll_equal(ml, &s), "reduce result is the slice");
	/* smem only when warps split the row */
	int wsplit = 0, ws = ll_find_slot(vl, LL_WARP);
	for (int b = 0; ws >= 0 && b < vl->in_bits[ws]; b++)
		wsplit |= vl->basis[ws][b][1] != 0;
	CHECK((f->smem_bytes > 0) == (wsplit != 0), "reduce scratch %d", f->smem_bytes);
	arena_free(&a);
}

static void test_dot_loop(const char *target, int warps, bool expect_mma)
{
	Arena a;
	arena_init(&a);
	TirFunc *f = tir_func_new(&a, "matmul");
	B x = {f, f->entry};
	ValId pa = param(&x, type_ptr(DT_F16), SPEC_DIV16), pb = param(&x, type_ptr(DT_F16), SPEC_DIV16);
	ValId pc = param(&x, type_ptr(DT_F32), SPEC_DIV16), kdim = param(&x, type_scalar(DT_I32), SPEC_DIV16);
	Type acct = tile(DT_F32, 2, 64, 64);
	ValId zero = cst(&x, acct, 0);
	ValId lb = cst(&x, type_scalar(DT_I32), 0), step = cst(&x, type_scalar(DT_I32), 32);
	ValId in[4] = {lb, kdim, step, zero};
	TirOp *loop = tir_op(f, x.b, TOP_FOR, noloc, in, 4, &acct, 1);
	tir_op_add_regions(f, loop, 1);
	TirBlock *body = &loop->regions[0];
	tir_block_add_arg(f, body, type_scalar(DT_I32));
	ValId acc = tir_block_add_arg(f, body, acct);
	B xb = {f, body};
	ValId av = load(&xb, ptrs(&xb, pa, offs2d(&xb, 64, 32, 32, 1)), 0);
	ValId bv = load(&xb, ptrs(&xb, pb, offs2d(&xb, 32, 64, 64, 1)), 0);
	ValId din[3] = {av, bv, acc};
	TirOp *dot = tir_op(f, body, TOP_DOT, noloc, din, 3, &acct, 1);
	ValId nacc = dot->results[0];
	tir_op(f, body, TOP_YIELD, noloc, &nacc, 1, NULL, 0);
	store(&x, ptrs(&x, pc, offs2d(&x, 64, 64, 64, 1)), loop->results[0], 0);
	ret(&x);
	CHECK(run_assign(f, &a, target, warps), "assign");
	const LinearLayout *accl = f->vals.data[loop->results[0]].layout;
	LinearLayout mma;
	int32_t shape[2] = {64, 64}, w[2] = {2, 2};
	ll_mma_acc(&mma, 2, shape, w);
	CHECK(ll_equal(accl, &mma) == expect_mma, "accumulator layout is%s mma",
	      expect_mma ? "" : " not");
	CHECK(f->vals.data[zero].layout == accl, "zeros created in the accumulator layout");
	Counts c = {0};
	count(f, f->entry, &c);
	/* mma: a, b converted inside the loop, the result once for the store.
	 * FMA: the operands keep their load layouts (lowering stages them in
	 * shared memory) and on the CPU the FMA result layout is the store's
	 * coalesced layout: no conversions at all */
	CHECK(c.cvt == (expect_mma ? 3 : 0), "conversions: %d", c.cvt);
	const TirOp *d = find_op(f->entry, TOP_DOT, 0);
	const LinearLayout *al = f->vals.data[d->operands[0]].layout;
	if (expect_mma) {
		LinearLayout ma;
		int32_t sa[2] = {64, 32};
		ll_mma_operand(&ma, 0, 2, sa, w, 16);
		CHECK(ll_equal(al, &ma), "A operand layout");
		CHECK((f->smem_bytes > 0) == (warps > 1), "conversions need shared memory: %d",
		      f->smem_bytes);
	} else {
		CHECK(d->operands[0] == av && d->operands[1] == bv, "FMA operands are the loads");
		/* A [64, 32 + 4 pad] + B [32, 64], staged as f32 */
		TargetDesc td;
		target_from_name(target, &td);
		int64_t need = layout_dot_fma_smem(&td, f->vals.data[av].ty, f->vals.data[bv].ty, acct,
		                                   NULL, NULL);
		CHECK(need == (64 * 36 + 32 * 64) * 4 && f->smem_bytes >= need,
		      "dot staging in smem_bytes: %d (need %lld)", f->smem_bytes, (long long)need);
	}
	arena_free(&a);
}

/* One warp feeding mma a [16,128] x [128,64] fp16 product (flash-attention
 * decode runs num_warps=1): turning the coalesced loads into operand fragments
 * within the warp would take up to 32 shuffles per fragment register (a 2.4 MB
 * cubin, 2.5 KB of spills on sm_90a), so those go through shared memory; a
 * conversion reading a few source registers stays a shuffle. */
static void test_one_warp_operands(const char *target)
{
	Arena a;
	arena_init(&a);
	TirFunc *f = tir_func_new(&a, "decode");
	B x = {f, f->entry};
	ValId pa = param(&x, type_ptr(DT_F16), SPEC_DIV16), pb = param(&x, type_ptr(DT_F16), SPEC_DIV16);
	ValId pc = param(&x, type_ptr(DT_F32), SPEC_DIV16);
	Type acct = tile(DT_F32, 2, 16, 64);
	ValId av = load(&x, ptrs(&x, pa, offs2d(&x, 16, 128, 128, 1)), 0);
	ValId bv = load(&x, ptrs(&x, pb, offs2d(&x, 128, 64, 64, 1)), 0);
	ValId din[3] = {av, bv, cst(&x, acct, 0)};
	TirOp *dot = tir_op(f, x.b, TOP_DOT, noloc, din, 3, &acct, 1);
	store(&x, ptrs(&x, pc, offs2d(&x, 16, 64, 64, 1)), dot->results[0], 0);
	ret(&x);
	CHECK(run_assign(f, &a, target, 1), "assign");
	TargetDesc t;
	memset(&t, 0, sizeof t);
	target_from_name(target, &t);
	int shared = 0, big_shuffles = 0;
	for (int i = 0;; i++) {
		const TirOp *cv = find_op(f->entry, TOP_CONVERT_LAYOUT, i);
		if (!cv)
			break;
		const LinearLayout *sl = f->vals.data[cv->operands[0]].layout,
				   *dl = f->vals.data[cv->results[0]].layout;
		CvtKind k = layout_conversion_kind(&t, sl, dl);
		shared += k == CVT_SHARED;
		big_shuffles += k == CVT_SHUFFLE && ll_shuffle_sources(sl, dl) > 4;
	}
	CHECK(shared > 0 && f->smem_bytes > 0, "operands through shared memory (%d, %d bytes)", shared,
	      f->smem_bytes);
	CHECK(big_shuffles == 0, "%d shuffles reading more than 4 sources", big_shuffles);
	arena_free(&a);
}

/* Hints, unspecialized params and a pointer tile carried through a loop. */
static void test_axis_loop_hints(void)
{
	Arena a;
	arena_init(&a);
	TirFunc *f = tir_func_new(&a, "loop");
	B x = {f, f->entry};
	ValId px = param(&x, type_ptr(DT_F32), SPEC_DIV16), n = param(&x, type_scalar(DT_I32), 0);
	ValId stride = param(&x, type_scalar(DT_I32), 0);
	int32_t h = 8;
	tir_add_hint(f, stride, HINT_MULTIPLE_OF, 1, &h);
	Type ti = tile(DT_I32, 1, 128, 0);
	ValId offs = arange(&x, 128);
	ValId p0 = ptrs(&x, px, offs);
	Type pt = tir_type(f, p0);
	ValId lb = cst(&x, type_scalar(DT_I32), 0), step = cst(&x, type_scalar(DT_I32), 1);
	ValId in[4] = {lb, n, step, p0};
	TirOp *loop = tir_op(f, x.b, TOP_FOR, noloc, in, 4, &pt, 1);
	tir_op_add_regions(f, loop, 1);
	TirBlock *body = &loop->regions[0];
	tir_block_add_arg(f, body, type_scalar(DT_I32));
	ValId parg = tir_block_add_arg(f, body, pt);
	B xb = {f, body};
	ValId v = load(&xb, parg, 0);
	store(&xb, parg, op1(&xb, TOP_ADD, tile(DT_F32, 1, 128, 0), v, v, 0), 0);
	ValId pn = op1(&xb, TOP_PTR_ADD, pt, parg, splat(&xb, stride, ti), 0);
	tir_op(f, body, TOP_YIELD, noloc, &pn, 1, NULL, 0);
	ValId unal = op1(&x, TOP_ADD, type_scalar(DT_I32), n, cst(&x, type_scalar(DT_I32), 0), 0);
	ret(&x);
	AxisInfo *ax = axis_analyze(&a, f);
	CHECK(ax[stride].div[0] == 8, "multiple_of hint");
	CHECK(ax[n].div[0] == 1 && ax[unal].div[0] == 1, "unspecialized int");
	/* p0: 16-byte aligned, contiguous; the loop adds 8 floats = 32 bytes */
	CHECK(ax[parg].contig[0] == 128 && ax[parg].div[0] == 16, "carried pointer: contig %lld div %lld",
	      (long long)ax[parg].contig[0], (long long)ax[parg].div[0]);
	CHECK(run_assign(f, &a, "sm_80", 4), "assign");
	const TirOp *ld = find_op(f->entry, TOP_LOAD, 0);
	CHECK(ld && ld->attr.i2 == 1, "128 elements over 128 threads: one per thread (%lld)",
	      ld ? (long long)ld->attr.i2 : -1LL);
	CHECK(run_assign(f, &a, "cpu", 1), "assign cpu");
	Counts c = {0};
	count(f, f->entry, &c);
	CHECK(c.cvt == 0, "no conversions in the loop");
	arena_free(&a);
}

/* x % n keeps runs of x that start at multiples of the divisor's alignment
 * (the matmul tutorial's `(pid * BN + arange) % N`); a varying divisor or
 * an unaligned one does not. */
static void test_axis_rem(void)
{
	Arena a;
	arena_init(&a);
	TirFunc *f = tir_func_new(&a, "rem");
	B x = {f, f->entry};
	ValId ph = param(&x, type_ptr(DT_F16), SPEC_DIV16);
	ValId n16 = param(&x, type_scalar(DT_I32), SPEC_DIV16), n1 = param(&x, type_scalar(DT_I32), 0);
	Type ti = tile(DT_I32, 1, 1024, 0);
	ValId pid = op1(&x, TOP_PROGRAM_ID, type_scalar(DT_I32), 0, 0, 0);
	ValId base = op1(&x, TOP_MUL, type_scalar(DT_I32), pid, cst(&x, type_scalar(DT_I32), 1024), 0);
	ValId offs = op1(&x, TOP_ADD, ti, splat(&x, base, ti), arange(&x, 1024), 0);
	ValId r16 = op1(&x, TOP_REM, ti, offs, splat(&x, n16, ti), 0);
	ValId r1 = op1(&x, TOP_REM, ti, offs, splat(&x, n1, ti), 0);
	ValId r1000 = op1(&x, TOP_REM, ti, offs, cst(&x, ti, 1000), 0);
	ValId r64 = op1(&x, TOP_REM, ti, offs, cst(&x, ti, 64), 0);
	ValId rvar = op1(&x, TOP_REM, ti, offs, arange(&x, 1024), 0);
	ValId odd = op1(&x, TOP_ADD, ti, offs, cst(&x, ti, 4), 0);
	ValId rodd = op1(&x, TOP_REM, ti, odd, splat(&x, n16, ti), 0);
	ValId gt = op1(&x, TOP_CMP, tile(DT_I1, 1, 1024, 0), offs, splat(&x, n16, ti), 0);
	f->entry->ops[f->entry->nops - 1]->attr.pred = PRED_GT;
	ValId ge = op1(&x, TOP_CMP, tile(DT_I1, 1, 1024, 0), offs, splat(&x, n16, ti), 0);
	f->entry->ops[f->entry->nops - 1]->attr.pred = PRED_GE;
	ValId nlt = op1(&x, TOP_CMP, tile(DT_I1, 1, 1024, 0), splat(&x, n16, ti), offs, 0);
	f->entry->ops[f->entry->nops - 1]->attr.pred = PRED_LT;
	ValId ngt = op1(&x, TOP_CMP, tile(DT_I1, 1, 1024, 0), splat(&x, n16, ti), offs, 0);
	f->entry->ops[f->entry->nops - 1]->attr.pred = PRED_GT;
	ValId q768 = op1(&x, TOP_DIV, ti, offs, cst(&x, ti, 768), 0);
	ValId qn = op1(&x, TOP_DIV, ti, offs, splat(&x, n16, ti), 0);
	ValId pairs = op1(&x, TOP_MUL, ti, op1(&x, TOP_DIV, ti, arange(&x, 1024), cst(&x, ti, 2), 0),
	                  cst(&x, ti, 32), 0);
	ValId split = op1(&x, TOP_ADD, ti, offs, pairs, 0);
	ValId v = load(&x, ptrs(&x, ph, r16), 0);
	store(&x, ptrs(&x, ph, offs), v, 0);
	ret(&x);
	AxisInfo *ax = axis_analyze(&a, f);
#define RUN(v, c, d) CHECK(ax[v].contig[0] == (c) && ax[v].div[0] == (d), #v ": contig %lld div %lld", \
                           (long long)ax[v].contig[0], (long long)ax[v].div[0])
	RUN(r16, 16, 16);
	RUN(r1, 1, 1);
	RUN(r1000, 8, 8);
	RUN(r64, 64, 64);
	RUN(rvar, 1, 1);
	RUN(rodd, 4, 4); /* runs of 4 from x = 4 (mod 8) on, each a multiple of 4 */
#undef RUN
	/* offs >= n and n > offs hold from n on, in whole groups; offs > n and
	 * n < offs change inside the group that starts at n */
	CHECK(ax[ge].cnst[0] == 16 && ax[ngt].cnst[0] == 16, "ge/ngt constancy %lld %lld",
	      (long long)ax[ge].cnst[0], (long long)ax[ngt].cnst[0]);
	CHECK(ax[gt].cnst[0] == 1 && ax[nlt].cnst[0] == 1, "gt/nlt constancy %lld %lld",
	      (long long)ax[gt].cnst[0], (long long)ax[nlt].cnst[0]);
	CHECK(ax[q768].cnst[0] == 256 && ax[qn].cnst[0] == 16, "x // n constancy %lld %lld",
	      (long long)ax[q768].cnst[0], (long long)ax[qn].cnst[0]);
	/* [0, 1, 34, 35, 68, ...]: pairs, whose starts are only even */
	CHECK(ax[split].contig[0] == 2 && ax[split].div[0] == 2, "split runs: contig %lld div %lld",
	      (long long)ax[split].contig[0], (long long)ax[split].div[0]);
	CHECK(run_assign(f, &a, "sm_80", 4), "assign");
	const TirOp *ld = find_op(f->entry, TOP_LOAD, 0);
	CHECK(ld && ld->attr.i2 == 8, "fp16 load through x %% N: 16 bytes (vec %lld)",
	      ld ? (long long)ld->attr.i2 : -1LL);
	arena_free(&a);
}

/* -n keeps n's divisibility (`ptr -= n` is ptr + (-n)); min/max of two
 * operands is their meet; both fold known values (unsigned compares for
 * unsigned types). Before: trivial info, so an fp16 load through
 * base + arange - n16 was 2-byte aligned, one element per access. */
static void test_axis_neg_minmax(void)
{
	Arena a;
	arena_init(&a);
	TirFunc *f = tir_func_new(&a, "negmin");
	B x = {f, f->entry};
	Type i32 = type_scalar(DT_I32), u32 = type_scalar(DT_U32), ti = tile(DT_I32, 1, 256, 0);
	ValId ph = param(&x, type_ptr(DT_F16), SPEC_DIV16);
	ValId n16 = param(&x, i32, SPEC_DIV16), m16 = param(&x, i32, SPEC_DIV16), n1 = param(&x, i32, 0);
	ValId neg = op1(&x, TOP_NEG, i32, n16, 0, 0);
	ValId negr = op1(&x, TOP_NEG, ti, arange(&x, 256), 0, 0);
	ValId mn = op1(&x, TOP_MIN, i32, n16, m16, 0), mn1 = op1(&x, TOP_MIN, i32, n16, n1, 0);
	ValId runs = op1(&x, TOP_MAX, ti, arange(&x, 256), op1(&x, TOP_ADD, ti, arange(&x, 256), splat(&x, n16, ti), 0), 0);
	ValId kneg = op1(&x, TOP_NEG, i32, cst(&x, i32, 48), 0, 0);
	ValId kmin = op1(&x, TOP_MIN, i32, cst(&x, i32, -3), cst(&x, i32, 5), 0);
	ValId kumax = op1(&x, TOP_MAX, u32, cst(&x, u32, 0xFFFFFFF0), cst(&x, u32, 7), 0);
	ValId mask = op1(&x, TOP_CMP, tile(DT_I1, 1, 256, 0), arange(&x, 256), splat(&x, mn, ti), 0);
	f->entry->ops[f->entry->nops - 1]->attr.pred = PRED_LT;
	ValId p = op1(&x, TOP_PTR_ADD, type_tile(type_ptr(DT_F16), 1, (int32_t[]){256}), ptrs(&x, ph, arange(&x, 256)),
		      splat(&x, neg, ti), 0);
	store(&x, ptrs(&x, ph, arange(&x, 256)), load(&x, p, mask), 0);
	ret(&x);
	AxisInfo *ax = axis_analyze(&a, f);
	CHECK(ax[neg].div[0] == 16 && ax[mn].div[0] == 16 && ax[mn1].div[0] == 1, "div: -n %lld, min %lld, min with n1 %lld",
	      (long long)ax[neg].div[0], (long long)ax[mn].div[0], (long long)ax[mn1].div[0]);
	CHECK(ax[negr].contig[0] == 1 && ax[negr].div[0] == 1, "-arange: contig %lld div %lld",
	      (long long)ax[negr].contig[0], (long long)ax[negr].div[0]);
	CHECK(ax[runs].contig[0] == 256 && ax[runs].div[0] == 16, "max of runs: contig %lld div %lld",
	      (long long)ax[runs].contig[0], (long long)ax[runs].div[0]);
	CHECK(ax[mask].cnst[0] == 16, "arange < min(n, m): constancy %lld", (long long)ax[mask].cnst[0]);
	CHECK(ax[kneg].known && ax[kneg].value == -48 && ax[kmin].known && ax[kmin].value == -3 && ax[kumax].known &&
	      ax[kumax].value == 0xFFFFFFF0, "known: %lld %lld %lld", (long long)ax[kneg].value, (long long)ax[kmin].value,
	      (long long)ax[kumax].value);
	CHECK(run_assign(f, &a, "sm_80", 1), "assign");
	const TirOp *ld = find_op(f->entry, TOP_LOAD, 0);
	CHECK(ld && ld->attr.i2 == 8, "fp16 load through base + arange - n: 16 bytes (vec %lld)", ld ? (long long)ld->attr.i2 : -1LL);
	arena_free(&a);
}

/* known constants fold as the machine computes them: wrapped to the result
 * type, never a signed overflow in the analysis itself */
static void test_axis_wrap(void)
{
	Arena a;
	arena_init(&a);
	TirFunc *f = tir_func_new(&a, "wrap");
	B x = {f, f->entry};
	Type i32 = type_scalar(DT_I32), i64 = type_scalar(DT_I64), u8 = type_scalar(DT_U8);
	ValId sq = op1(&x, TOP_MUL, i32, cst(&x, i32, 65536), cst(&x, i32, 65536), 0);
	ValId inc = op1(&x, TOP_ADD, i32, cst(&x, i32, INT32_MAX), cst(&x, i32, 1), 0);
	ValId big = op1(&x, TOP_MUL, i64, cst(&x, i64, INT64_MAX), cst(&x, i64, 7), 0);
	ValId dec = op1(&x, TOP_SUB, i64, cst(&x, i64, INT64_MIN), cst(&x, i64, 1), 0);
	ValId byte = op1(&x, TOP_ADD, u8, cst(&x, u8, 255), cst(&x, u8, 2), 0);
	ValId narrow = op1(&x, TOP_CAST, i32, cst(&x, i64, ((int64_t)1 << 32) + 5), 0, 0);
	ret(&x);
	AxisInfo *ax = axis_analyze(&a, f);
#define KNOWN(v, want) CHECK(ax[v].known && ax[v].value == (want), #v ": known %d value %lld", ax[v].known, \
			     (long long)ax[v].value)
	KNOWN(sq, 0);
	KNOWN(inc, INT32_MIN);
	KNOWN(big, INT64_MAX - 6); /* 7 * (2**63 - 1) mod 2**64 */
	KNOWN(dec, INT64_MAX);
	KNOWN(byte, 1);
	KNOWN(narrow, 5);
#undef KNOWN
	arena_free(&a);
}

/* An fp16 load and an fp32 store sharing offsets and mask want different
 * layouts (8 and 4 elements per thread: 16 bytes each); the one whose
 * pointer and mask are rematerialized in its layout keeps their axis info,
 * so both stay 16-byte accesses (the copy had none: 2-byte loads). */
static void test_mixed_widths(const char *target)
{
	Arena a;
	arena_init(&a);
	TirFunc *f = tir_func_new(&a, "widen");
	B x = {f, f->entry};
	ValId px = param(&x, type_ptr(DT_F16), SPEC_DIV16), po = param(&x, type_ptr(DT_F32), SPEC_DIV16);
	ValId n = param(&x, type_scalar(DT_I32), SPEC_DIV16);
	ValId mask, base, offs = block_offsets(&x, n, &mask, &base);
	ValId xv = load(&x, ptrs(&x, px, offs), mask);
	ValId w = op1(&x, TOP_CAST, tile(DT_F32, 1, 1024, 0), xv, 0, 0);
	store(&x, ptrs(&x, po, offs), w, mask);
	ret(&x);
	CHECK(run_assign(f, &a, target, 4), "assign %s", target);
	const TirOp *ld = find_op(f->entry, TOP_LOAD, 0), *st = find_op(f->entry, TOP_STORE, 0);
	CHECK(ld && ld->attr.i2 == 8, "%s: fp16 load of 16 bytes (vec %lld)", target,
	      ld ? (long long)ld->attr.i2 : -1LL);
	CHECK(st && st->attr.i2 == 4, "%s: fp32 store of 16 bytes (vec %lld)", target,
	      st ? (long long)st->attr.i2 : -1LL);
	arena_free(&a);
}

/* fp8 loaded 16 per thread, widened, scaled and narrowed to bf16 for a store
 * of 8 per thread (DeepSeek's weight_dequant): the layouts differ, and the
 * conversion moves the fp8 tile (1 byte an element) with the chain redone
 * after it, not the bf16 result (2 bytes). */
static void test_hoisted_conversion(void)
{
	Arena a;
	arena_init(&a);
	TirFunc *f = tir_func_new(&a, "dequant");
	B x = {f, f->entry};
	ValId px = param(&x, type_ptr(DT_F8E4M3), SPEC_DIV16), py = param(&x, type_ptr(DT_BF16), SPEC_DIV16);
	ValId sc = param(&x, type_scalar(DT_F32), 0);
	Type tf = tile(DT_F32, 2, 64, 64);
	ValId offs = offs2d(&x, 64, 64, 64, 1);
	ValId v = load(&x, ptrs(&x, px, offs), 0);
	ValId w = op1(&x, TOP_CAST, tf, v, 0, 0);
	ValId s2 = op1(&x, TOP_MUL, tf, w, splat(&x, sc, tf), 0);
	ValId out = op1(&x, TOP_CAST, tile(DT_BF16, 2, 64, 64), s2, 0, 0);
	store(&x, ptrs(&x, py, offs), out, 0);
	ret(&x);
	CHECK(run_assign(f, &a, "sm_90a", 4), "assign");
	int cvts = 0;
	bool fp8 = true;
	for (int i = 0; i < f->entry->nops; i++) {
		const TirOp *op = f->entry->ops[i];
		if (op->kind != TOP_CONVERT_LAYOUT)
			continue;
		cvts++;
		fp8 &= f->vals.data[op->results[0]].ty.dt == DT_F8E4M3;
	}
	const TirOp *ld = find_op(f->entry, TOP_LOAD, 0), *st = find_op(f->entry, TOP_STORE, 0);
	CHECK(ld && ld->attr.i2 == 16 && st && st->attr.i2 == 8, "vec %lld / %lld", ld ? (long long)ld->attr.i2 : -1LL,
	      st ? (long long)st->attr.i2 : -1LL);
	CHECK(cvts == 1 && fp8, "%d conversions, of fp8: %d", cvts, fp8);
	arena_free(&a);
}

/* A row of fp16 x, a row of fp32 weights, x * w stored as fp16 (layer norm's
 * shape): the weight load takes the 8 elements per thread of the fp16
 * accesses (Triton's Coalesce: a load groups as widely as the memory ops of
 * its shape and order), as two 16-byte loads, so nothing is converted. */
static void test_load_shares_grouping(void)
{
	Arena a;
	arena_init(&a);
	TirFunc *f = tir_func_new(&a, "row");
	B x = {f, f->entry};
	ValId px = param(&x, type_ptr(DT_F16), SPEC_DIV16), pw = param(&x, type_ptr(DT_F32), SPEC_DIV16);
	ValId py = param(&x, type_ptr(DT_F16), SPEC_DIV16);
	ValId c = arange(&x, 1024);
	Type tf = tile(DT_F32, 1, 1024, 0);
	ValId xv = op1(&x, TOP_CAST, tf, load(&x, ptrs(&x, px, c), 0), 0, 0);
	ValId wv = load(&x, ptrs(&x, pw, c), 0);
	ValId y = op1(&x, TOP_MUL, tf, xv, wv, 0);
	store(&x, ptrs(&x, py, c), op1(&x, TOP_CAST, tile(DT_F16, 1, 1024, 0), y, 0, 0), 0);
	ret(&x);
	CHECK(run_assign(f, &a, "sm_90a", 4), "assign");
	Counts n = {0};
	count(f, f->entry, &n);
	const TirOp *lw = find_op(f->entry, TOP_LOAD, 1);
	const LinearLayout *l = lw ? f->vals.data[lw->results[0]].layout : NULL;
	CHECK(n.cvt == 0, "%d conversions", n.cvt);
	CHECK(l && ll_num_contig_regs(l, 0) == 8 && lw->attr.i2 == 4, "weights: %d per thread, vec %lld",
	      l ? ll_num_contig_regs(l, 0) : -1, lw ? (long long)lw->attr.i2 : -1LL);
	arena_free(&a);
}

/* A per-row value loaded as 64 elements on 128 threads (attention
 * backward's delta) and used as d[:, None] against a [64, 128] tile is read
 * again in the tile's row layout rather than converted (Triton's cheap
 * loads). Not when a store between the load and the use may have changed
 * what it read. */
static void test_small_load_redone(bool store_between)
{
	Arena a;
	arena_init(&a);
	TirFunc *f = tir_func_new(&a, "rows");
	B x = {f, f->entry};
	ValId px = param(&x, type_ptr(DT_F32), SPEC_DIV16), pd = param(&x, type_ptr(DT_F32), SPEC_DIV16);
	ValId po = param(&x, type_ptr(DT_F32), SPEC_DIV16);
	ValId offs = offs2d(&x, 64, 128, 128, 1);
	ValId xv = load(&x, ptrs(&x, px, offs), 0);
	ValId r = arange(&x, 64);
	ValId d = load(&x, ptrs(&x, pd, r), 0);
	if (store_between)
		store(&x, ptrs(&x, pd, r), op1(&x, TOP_ADD, tile(DT_F32, 1, 64, 0), d, d, 0), 0);
	ValId db = bcast(&x, expand(&x, d, 1), 64, 128);
	ValId y = op1(&x, TOP_SUB, tile(DT_F32, 2, 64, 128), xv, db, 0);
	store(&x, ptrs(&x, po, offs), y, 0);
	ret(&x);
	CHECK(run_assign(f, &a, "sm_90a", 4), "assign");
	Counts n = {0};
	count(f, f->entry, &n);
	CHECK(n.cvt == (store_between ? 1 : 0), "store between: %d, %d conversions", store_between, n.cvt);
	arena_free(&a);
}

/* A small load through a loop-carried pointer tile (the per-row scales of
 * DeepSeek's fp8_gemm: a_s_ptrs += 1 each step) is converted after loading,
 * not redone: redoing it would convert the 64-bit pointers each iteration
 * (their chain starts at the loop's argument, which stays in its layout). */
static void test_small_load_loop_pointer(void)
{
	Arena a;
	arena_init(&a);
	TirFunc *f = tir_func_new(&a, "scales");
	B x = {f, f->entry};
	ValId px = param(&x, type_ptr(DT_F32), SPEC_DIV16), ps = param(&x, type_ptr(DT_F32), SPEC_DIV16);
	ValId po = param(&x, type_ptr(DT_F32), SPEC_DIV16), n = param(&x, type_scalar(DT_I32), 0);
	Type acct = tile(DT_F32, 2, 64, 128);
	ValId p0 = ptrs(&x, ps, arange(&x, 64));
	Type pt = tir_type(f, p0);
	ValId lb = cst(&x, type_scalar(DT_I32), 0), step = cst(&x, type_scalar(DT_I32), 1);
	ValId in[5] = {lb, n, step, cst(&x, acct, 0), p0};
	Type outs[2] = {acct, pt};
	TirOp *loop = tir_op(f, x.b, TOP_FOR, noloc, in, 5, outs, 2);
	tir_op_add_regions(f, loop, 1);
	TirBlock *body = &loop->regions[0];
	tir_block_add_arg(f, body, type_scalar(DT_I32));
	ValId acc = tir_block_add_arg(f, body, acct), p = tir_block_add_arg(f, body, pt);
	B xb = {f, body};
	ValId xv = load(&xb, ptrs(&xb, px, offs2d(&xb, 64, 128, 128, 1)), 0);
	ValId sv = load(&xb, p, 0);
	ValId sb = bcast(&xb, expand(&xb, sv, 1), 64, 128);
	ValId nacc = op1(&xb, TOP_ADD, acct, acc, op1(&xb, TOP_MUL, acct, xv, sb, 0), 0);
	ValId np = op1(&xb, TOP_PTR_ADD, pt, p, cst(&xb, tile(DT_I32, 1, 64, 0), 1), 0);
	ValId yin[2] = {nacc, np};
	tir_op(f, body, TOP_YIELD, noloc, yin, 2, NULL, 0);
	store(&x, ptrs(&x, po, offs2d(&x, 64, 128, 128, 1)), loop->results[0], 0);
	ret(&x);
	CHECK(run_assign(f, &a, "sm_90a", 8), "assign");
	int ptr_cvts = 0;
	for (int i = 0; i < body->nops; i++) {
		const TirOp *op = body->ops[i];
		if (op->kind == TOP_CONVERT_LAYOUT && tir_type(f, op->operands[0]).dt == DT_PTR)
			ptr_cvts++;
	}
	CHECK(ptr_cvts == 0, "pointer tiles converted in the loop: %d", ptr_cvts);
	arena_free(&a);
}

/* tl.join of two halves unpacked from a loaded int32 tile, reshaped into a dot
 * operand (lmdeploy's AWQ dequant: w = join(lo, hi).reshape(K, 2N)): the join
 * keeps its sources' layout with the new axis on register bit 0, so each thread
 * unpacks its own words once and the fp16 result is converted for the mma.
 * Following the operand's want put the new axis on lanes (every lane unpacked
 * the same word) and converted the int32 tile to a replicated layout. */
static ValId join_last(B *x, ValId lo, ValId hi)
{
	Type t = tir_type(x->f, lo);
	int32_t one[3] = {1, 1, 2}, full[3] = {t.shape[0], t.shape[1], 2}, ex[3] = {t.shape[0], t.shape[1], 1};
	Type it = type_tile(type_scalar(DT_I32), 3, one), ct = type_tile(type_scalar(DT_I1), 3, one);
	ValId idx = op1(x, TOP_RESHAPE, it, arange(x, 2), 0, 0);
	TirOp *cmp = tir_op(x->f, x->b, TOP_CMP, noloc, (ValId[]){idx, cst(x, it, 0)}, 2, &ct, 1);
	cmp->attr.pred = PRED_EQ;
	ValId sel[3] = {op1(x, TOP_BROADCAST, type_tile(type_scalar(DT_I1), 3, full), cmp->results[0], 0, 0)};
	for (int i = 0; i < 2; i++) {
		Type et = type_tile(type_elem(t), 3, ex);
		TirOp *e = tir_op(x->f, x->b, TOP_EXPAND_DIMS, noloc, i ? &hi : &lo, 1, &et, 1);
		e->attr.axis = 2;
		sel[i + 1] = op1(x, TOP_BROADCAST, type_tile(type_elem(t), 3, full), e->results[0], 0, 0);
	}
	return op1(x, TOP_SELECT, type_tile(type_elem(t), 3, full), sel[0], sel[1], sel[2]);
}

static void test_join_unpack(const char *target)
{
	Arena a;
	arena_init(&a);
	TirFunc *f = tir_func_new(&a, "join_unpack");
	B x = {f, f->entry};
	ValId pq = param(&x, type_ptr(DT_I32), SPEC_DIV16), pa = param(&x, type_ptr(DT_F16), SPEC_DIV16);
	ValId pc = param(&x, type_ptr(DT_F32), SPEC_DIV16);
	Type qt = tile(DT_I32, 2, 32, 8), ht = tile(DT_F16, 2, 32, 8), acct = tile(DT_F32, 2, 16, 16);
	ValId qw = load(&x, ptrs(&x, pq, offs2d(&x, 32, 8, 8, 1)), 0);
	ValId lo = op1(&x, TOP_CAST, ht, op1(&x, TOP_AND, qt, qw, cst(&x, qt, 15), 0), 0, 0);
	ValId hi = op1(&x, TOP_CAST, ht, op1(&x, TOP_SHR, qt, qw, cst(&x, qt, 4), 0), 0, 0);
	ValId j = join_last(&x, lo, hi);
	ValId w = op1(&x, TOP_RESHAPE, tile(DT_F16, 2, 32, 16), j, 0, 0);
	ValId av = load(&x, ptrs(&x, pa, offs2d(&x, 16, 32, 32, 1)), 0);
	ValId din[3] = {av, w, cst(&x, acct, 0)};
	TirOp *dot = tir_op(f, x.b, TOP_DOT, noloc, din, 3, &acct, 1);
	store(&x, ptrs(&x, pc, offs2d(&x, 16, 16, 16, 1)), dot->results[0], 0);
	ret(&x);
	CHECK(run_assign(f, &a, target, 4), "assign");
	const TirOp *sel = find_op(f->entry, TOP_SELECT, 0);
	const LinearLayout *jl = sel ? f->vals.data[sel->results[0]].layout : NULL;
	const LinearLayout *ql = f->vals.data[qw].layout;
	LinearLayout want;
	if (ql)
		ll_join_axis(&want, ql, 2);
	CHECK(jl && ql && ll_equal(jl, &want), "join: the load's layout with the new axis on register bit 0");
	CHECK(jl && jl->basis[0][0][2] == 1 && jl->basis[0][0][0] == 0 && jl->basis[0][0][1] == 0,
	      "join: register bit 0 holds the new axis");
	int int_cvts = 0, half_cvts = 0;
	for (int i = 0; i < f->entry->nops; i++) {
		const TirOp *op = f->entry->ops[i];
		if (op->kind != TOP_CONVERT_LAYOUT)
			continue;
		DType dt = (DType)tir_type(f, op->operands[0]).dt;
		int_cvts += dt == DT_I32;
		half_cvts += dt == DT_F16 && tir_type(f, op->operands[0]).shape[1] == 16;
	}
	CHECK(int_cvts == 0, "the packed int32 tile is converted %d times", int_cvts);
	CHECK(half_cvts == 1, "the unpacked operand is converted for the dot once (%d)", half_cvts);
	arena_free(&a);
}

int main(void)
{
	test_axis_wrap();
	test_axis_loop_hints();
	test_axis_rem();
	test_axis_neg_minmax();
	test_vector_add("cpu", 1);
	test_vector_add("sm_80", 4);
	test_mixed_widths("sm_80");
	test_mixed_widths("cuda-emu");
	test_hoisted_conversion();
	test_load_shares_grouping();
	test_small_load_redone(false);
	test_small_load_redone(true);
	test_small_load_loop_pointer();
	test_join_unpack("sm_80");
	test_join_unpack("sm_90a");
	test_transpose("cpu", 1);
	test_transpose("sm_80", 4);
	test_reduce_broadcast("cpu", 1);
	test_reduce_broadcast("sm_80", 4);
	test_reduce_broadcast("sm_80", 8);
	test_dot_loop("sm_80", 4, true);
	test_dot_loop("cuda-emu", 4, true);
	test_dot_loop("cpu", 1, false);
	test_one_warp_operands("sm_80");
	test_one_warp_operands("cuda-emu");
	printf("test_layout_assign: %d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}

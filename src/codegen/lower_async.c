/* lower_async.c: async_copy, async_commit, async_wait, local_load,
 * local_store (the shared buffers of software pipelining,
 * src/layout/pipeline.c, and of loop-invariant dot operands,
 * src/layout/hold_smem.c).
 *
 * A buffer (TirSmemBuf) is a shared tile (SmemTile: its layout and padding)
 * repeated nslots times from byte `base`; slot s starts at base + s *
 * slot_bytes. LOCAL_LOAD reads a slot with lw_smem_read into any register
 * layout. ASYNC_COPY writes a slot from global memory with cp.async, one per
 * group of v registers that are consecutive both in global memory (attr.i2)
 * and in the shared tile, v * elem bytes = 4, 8 or 16; only the canonical
 * owner of an element issues its copy (the `pred` operand), so a broadcast
 * element is written once. When no such group exists (e.g. fp16 with one
 * element per group) the copy is done synchronously, a plain load and shared
 * store: an async copy that lands early is still a correct one.
 */
#include "codegen/lower_internal.h"

#include <string.h>

static const TirSmemBuf *buf_of(Lower *L, const TirOp *op)
{
	if (op->attr.i < 0 || op->attr.i >= L->tf->nbufs)
		lw_ice("%s names buffer %lld of %d", tir_op_name((TirOpKind)op->kind),
		       (long long)op->attr.i, L->tf->nbufs);
	return &L->tf->bufs[op->attr.i];
}

static void buf_tile(const TirSmemBuf *b, SmemTile *t)
{
	memset(t, 0, sizeof *t);
	t->m = *b->smem;
	if (b->pad)
		t->pad = *b->pad;
	t->et = type_elem(b->tile);
	t->eb = MAXOF(1, dtype_bytes((DType)t->et.dt));
}

/* Byte offset (i32) of slot `slot` of buffer b. */
static TpVal slot_base(Lower *L, const TirSmemBuf *b, TpVal slot)
{
	TpVal off = lw_bin(L, TP_MUL, slot, lw_i32(L, b->slot_bytes));
	return b->base ? lw_bin(L, TP_ADD, off, lw_i32(L, b->base)) : off;
}

static void lower_local_load(Lower *L, const TirOp *op)
{
	const TirSmemBuf *b = buf_of(L, op);
	SmemTile t;
	buf_tile(b, &t);
	ValId res = op->results[0];
	LVal out = lw_alloc(L, lw_nregs_of(L, res));
	TpVal base = slot_base(L, b, lw_get(L, op->operands[0]).r[0]);
	lw_smem_read(L, op->loc, &t, base, lw_layout(L, res), out);
	lw_set(L, res, out);
}

/* A buffer held across a loop (layout/hold_smem.c) is written once from
 * registers; only canonical owners write. */
static void lower_local_store(Lower *L, const TirOp *op)
{
	const TirSmemBuf *b = buf_of(L, op);
	SmemTile t;
	buf_tile(b, &t);
	ValId v = op->operands[0];
	TpVal base = slot_base(L, b, lw_get(L, op->operands[1]).r[0]);
	lw_smem_write(L, op->loc, &t, base, lw_layout(L, v), lw_get(L, v), 0);
	if (b->loop && !L->held_loop)
		L->held_loop = b->loop; /* live until that loop ends (lower_control.c) */
}

/* Every aligned group of v registers is v consecutive elements along dim:
 * no basis but registers 0..log2(v)-1 touches the low bits of the coordinate. */
static bool groups_contiguous(const LinearLayout *l, int dim, int v)
{
	int vb = 0;
	while ((1 << vb) < v)
		vb++;
	if (ll_num_contig_regs(l, dim) < v)
		return false;
	for (int b = vb; b < lw_bits(l, LL_REG); b++)
		if (lw_basis(l, LL_REG, b)[dim] & (v - 1))
			return false;
	for (int b = 0; b < lw_bits(l, LL_LANE); b++)
		if (lw_basis(l, LL_LANE, b)[dim] & (v - 1))
			return false;
	for (int b = 0; b < lw_bits(l, LL_WARP); b++)
		if (lw_basis(l, LL_WARP, b)[dim] & (v - 1))
			return false;
	return true;
}

/* Registers per copy: consecutive in global memory (attr.i2, the layout) and
 * in shared memory (the plan), at most 16 bytes. */
static int copy_vec(const TirOp *op, const LinearLayout *l, const SmemAccess *a, int eb)
{
	int v = MINOF((int)MAXOF(op->attr.i2, 1), a->vec);
	v = MINOF(v, MAXOF(1, 16 / eb));
	int dim = lw_unit_dim(l, LL_REG);
	if (dim < 0)
		return 1;
	while (v > 1 && !groups_contiguous(l, dim, v))
		v /= 2;
	return v;
}

static void lower_async_copy(Lower *L, const TirOp *op)
{
	const TirSmemBuf *b = buf_of(L, op);
	SmemTile t;
	buf_tile(b, &t);
	ValId ptr = op->operands[0];
	LVal p = lw_get(L, ptr), m = lw_get(L, op->operands[1]);
	const LinearLayout *l = lw_layout(L, ptr);
	if (lw_layout(L, op->operands[1]) != l && !ll_equal(lw_layout(L, op->operands[1]), l))
		lw_ice("async_copy: the mask's layout differs from the pointer's");
	SmemAccess a;
	lw_smem_plan(L, &t, l, &a);
	TpVal base = slot_base(L, b, lw_get(L, op->operands[2]).r[0]);
	int v = copy_vec(op, l, &a, t.eb);
	TpVal own = lw_owner_pred(L, a.lane_free, a.warp_free);
	TpVal pred = own ? own : lw_true(L);
	bool async = v * t.eb == 4 || v * t.eb == 8 || v * t.eb == 16;
	Type outs[16];
	for (int j = 0; j < v; j++)
		outs[j] = t.et;
	TpVal zero = dtype_is_float((DType)t.et.dt) ? lw_const_f(L, (DType)t.et.dt, 0.0)
						    : lw_const_i(L, (DType)t.et.dt, 0);
	for (int g = 0; g < p.n; g += v) {
		if (g & (int)a.reg_free)
			continue;
		TpVal off = lw_smem_addr(L, &a, g, base);
		if (async) {
			TpVal in[4] = {p.r[g], off, m.r[g], pred};
			lw_op(L, TP_CP_ASYNC, op->loc, in, 4, NULL, 0)->attr.i = v * t.eb;
			continue;
		}
		TpVal in[2 + 16];
		in[0] = p.r[g];
		in[1] = lw_and1(L, m.r[g], own);
		for (int j = 0; j < v; j++)
			in[2 + j] = zero;
		TpOp *ld = lw_op(L, TP_LOAD, op->loc, in, 2 + v, outs, v);
		ld->attr.i = v;
		in[0] = off;
		in[1] = pred;
		for (int j = 0; j < v; j++)
			in[2 + j] = ld->results[j];
		lw_op(L, TP_SMEM_STORE, op->loc, in, 2 + v, NULL, 0)->attr.i = v;
	}
}

bool lw_async(Lower *L, const TirOp *op)
{
	switch ((TirOpKind)op->kind) {
	case TOP_LOCAL_LOAD: lower_local_load(L, op); return true;
	case TOP_LOCAL_STORE: lower_local_store(L, op); return true;
	case TOP_ASYNC_COPY:
		lower_async_copy(L, op);
		L->copies_in_flight = true;
		return true;
	case TOP_ASYNC_COMMIT: lw_op(L, TP_CP_ASYNC_COMMIT, op->loc, NULL, 0, NULL, 0); return true;
	case TOP_ASYNC_WAIT:
		lw_op(L, TP_CP_ASYNC_WAIT, op->loc, NULL, 0, NULL, 0)->attr.i = op->attr.i;
		if (op->attr.i == 0)
			L->copies_in_flight = false; /* the epilogue (or a 2-stage body's wait) */
		return true;
	default: return false;
	}
}

/* emit_llvm_intrin.c: warp shuffles, lane-exact mma.sync / ldmatrix
 * emulation and the device print/assert hooks for the CPU emitter.
 *
 * Warps are the consecutive groups of `lanes` vector elements, so a shuffle
 * within each warp is a shufflevector with a constant permutation (SHFL_XOR,
 * MMA, LDMATRIX) or a gather from a stack copy (SHFL_IDX, variable source).
 *
 * MMA: for output fragment i and reduction step k, the A element a lane needs
 * sits in the same fragment register of some other lane of its warp for every
 * lane (true of every PTX m16n8 layout), so D_i = C_i + sum_k
 * shuffle(A_ia) * shuffle(B_ib): straight-line vector code, no memory.
 * Fragment layouts follow the PTX ISA ("Matrix Fragments for mma.m16n8k16",
 * "... m16n8k8" (.tf32), "... m16n8k32" (.s8)).
 */
#include "codegen/emit_llvm_internal.h"
#include "jit/orc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char PASS[] = "emit_llvm";

static LLVMValueRef ci32(Em *e, int64_t v)
{
	return LLVMConstInt(e->t_i32, (unsigned long long)v, 0);
}

/* shufflevector of x (<T x ty>) with src[t] = source lane of lane t */
static LLVMValueRef permute(Em *e, LLVMValueRef x, const int *src)
{
	LLVMValueRef *el = malloc(sizeof(LLVMValueRef) * (size_t)e->T);
	bool ident = true;
	for (int t = 0; t < e->T; t++) {
		el[t] = ci32(e, src[t]);
		ident &= src[t] == t;
	}
	LLVMValueRef r = ident ? x
	                       : LLVMBuildShuffleVector(e->B, x, LLVMGetUndef(LLVMTypeOf(x)),
	                                                LLVMConstVector(el, (unsigned)e->T), "");
	free(el);
	return r;
}

static LLVMValueRef entry_alloca(Em *e, LLVMTypeRef t)
{
	LLVMBuilderRef b = LLVMCreateBuilderInContext(e->C);
	LLVMValueRef first = LLVMGetFirstInstruction(e->entry);
	if (first)
		LLVMPositionBuilderBefore(b, first);
	else
		LLVMPositionBuilderAtEnd(b, e->entry);
	LLVMValueRef a = LLVMBuildAlloca(b, t, "");
	LLVMSetAlignment(a, 64);
	LLVMDisposeBuilder(b);
	return a;
}

/* ---- shuffles ------------------------------------------------------------------------ */

static void emit_shfl_xor(Em *e, const TpOp *op)
{
	LLVMValueRef x = em_getv(e, op->operands[0]);
	int L = e->lanes, m = (int)op->attr.i;
	int *src = malloc(sizeof(int) * (size_t)e->T);
	for (int t = 0; t < e->T; t++)
		src[t] = (t / L) * L + (((t % L) ^ m) & (L - 1));
	em_set(e, op->results[0], permute(e, x, src));
	free(src);
}

static void emit_shfl_idx(Em *e, const TpOp *op)
{
	LLVMBuilderRef B = e->B;
	LLVMValueRef x = em_getv(e, op->operands[0]);
	LLVMTypeRef vt = LLVMTypeOf(x), st = LLVMGetElementType(vt);
	bool i1 = st == e->t_i1;
	if (i1) {
		st = e->t_i8;
		x = LLVMBuildZExt(B, x, em_vec(e, st), "");
	}
	LLVMValueRef slot = entry_alloca(e, em_vec(e, st));
	LLVMBuildStore(B, x, slot);
	LLVMValueRef src = em_getv(e, op->operands[1]);
	src = LLVMBuildIntCast2(B, src, em_vec(e, e->t_i32), 0, "");
	LLVMValueRef lm = em_const_int(e, e->t_i32, e->lanes - 1, true);
	LLVMValueRef wb = LLVMBuildMul(
	        B, LLVMBuildUDiv(B, em_lane_vec(e), em_const_int(e, e->t_i32, e->lanes, true), ""),
	        em_const_int(e, e->t_i32, e->lanes, true), "");
	LLVMValueRef idx = LLVMBuildAdd(B, wb, LLVMBuildAnd(B, src, lm, ""), "");
	LLVMValueRef base = LLVMBuildBitCast(B, slot, LLVMPointerType(st, 0), "");
	LLVMValueRef ptrs = LLVMBuildGEP2(B, st, base, &idx, 1, "");
	LLVMValueRef args[4] = {ptrs, ci32(e, 1), LLVMConstAllOnes(em_vec(e, e->t_i1)),
	                        LLVMGetUndef(em_vec(e, st))};
	LLVMTypeRef ovl[2] = {em_vec(e, st), LLVMTypeOf(ptrs)};
	LLVMValueRef r = em_intrinsic(e, "llvm.masked.gather", ovl, 2, args, 4);
	if (i1)
		r = LLVMBuildICmp(B, LLVMIntNE, r, LLVMConstNull(LLVMTypeOf(r)), "");
	em_set(e, op->results[0], r);
}

/* ---- mma.sync --------------------------------------------------------------------------- */

typedef struct MmaShape {
	int m, n, k, na, nb;
	DType in;
	bool integer;
} MmaShape;

static MmaShape mma_shape(int kind)
{
	switch (kind) {
	case MMA_M16N8K16_F16_F32: return (MmaShape){16, 8, 16, 8, 4, DT_F16, false};
	case MMA_M16N8K16_BF16_F32: return (MmaShape){16, 8, 16, 8, 4, DT_BF16, false};
	case MMA_M16N8K8_TF32_F32: return (MmaShape){16, 8, 8, 4, 2, DT_F32, false};
	case MMA_M16N8K32_S8_S32: return (MmaShape){16, 8, 32, 16, 8, DT_I8, true};
	default: ice(PASS, "bad mma kind %d", kind);
	}
}

/* PTX fragment layouts: (row, col) of fragment element i held by lane l. */
static void frag_a(int kind, int l, int i, int *r, int *c)
{
	int g = l >> 2, t = l & 3;
	switch (kind) {
	case MMA_M16N8K8_TF32_F32:
		*r = g + ((i & 1) ? 8 : 0);
		*c = t + (i >= 2 ? 4 : 0);
		return;
	case MMA_M16N8K32_S8_S32:
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
	case MMA_M16N8K8_TF32_F32: *r = t + (i >= 1 ? 4 : 0); return;
	case MMA_M16N8K32_S8_S32: *r = t * 4 + (i & 3) + (i >= 4 ? 16 : 0); return;
	default: *r = t * 2 + (i & 1) + (i >= 2 ? 8 : 0); return;
	}
}

static void frag_c(int l, int i, int *r, int *c)
{
	*r = (l >> 2) + (i >= 2 ? 8 : 0);
	*c = (l & 3) * 2 + (i & 1);
}

/* round an f32 to tf32 (10 mantissa bits, nearest even); inf/nan kept */
static LLVMValueRef to_tf32(Em *e, LLVMValueRef x)
{
	LLVMBuilderRef B = e->B;
	LLVMTypeRef it = em_vec(e, e->t_i32);
	LLVMValueRef b = LLVMBuildBitCast(B, x, it, "");
	LLVMValueRef odd =
	        LLVMBuildAnd(B, LLVMBuildLShr(B, b, em_const_int(e, e->t_i32, 13, true), ""),
	                     em_const_int(e, e->t_i32, 1, true), "");
	LLVMValueRef r = LLVMBuildAdd(
	        B, b, LLVMBuildAdd(B, odd, em_const_int(e, e->t_i32, 0xfff, true), ""), "");
	r = LLVMBuildAnd(B, r, em_const_int(e, e->t_i32, ~0x1fff, true), "");
	LLVMValueRef ex = LLVMBuildAnd(B, b, em_const_int(e, e->t_i32, 0x7f800000, true), "");
	LLVMValueRef special =
	        LLVMBuildICmp(B, LLVMIntEQ, ex, em_const_int(e, e->t_i32, 0x7f800000, true), "");
	r = LLVMBuildSelect(B, special, b, r, "");
	return LLVMBuildBitCast(B, r, LLVMTypeOf(x), "");
}

static LLVMValueRef mma_in(Em *e, const MmaShape *s, int kind, TpVal v)
{
	LLVMValueRef x = em_getv(e, v);
	if (s->integer)
		return LLVMBuildSExt(e->B, x, em_vec(e, e->t_i32), "");
	x = em_to_f32(e, x, (DType)tp_type(e->f, v).dt);
	return kind == MMA_M16N8K8_TF32_F32 ? to_tf32(e, x) : x;
}

/* D = A*B + C on compute-domain vectors (f32 or i32), straight-line. */
static void mma_core(Em *e, int kind, const MmaShape *s, LLVMValueRef *A, LLVMValueRef *Bv,
                     LLVMValueRef *C, LLVMValueRef *D)
{
	/* inverse maps: which (lane, frag) holds A[r][k] / B[k][c] */
	int alane[16][32], aidx[16][32], blane[32][8], bidx[32][8];
	for (int l = 0; l < 32; l++) {
		int r, c;
		for (int i = 0; i < s->na; i++) {
			frag_a(kind, l, i, &r, &c);
			alane[r][c] = l, aidx[r][c] = i;
		}
		for (int i = 0; i < s->nb; i++) {
			frag_b(kind, l, i, &r, &c);
			blane[r][c] = l, bidx[r][c] = i;
		}
	}
	int *pa = malloc(sizeof(int) * (size_t)e->T), *pb = malloc(sizeof(int) * (size_t)e->T);
	for (int i = 0; i < 4; i++) {
		LLVMValueRef acc = C[i];
		for (int k = 0; k < s->k; k++) {
			int ia = -1, ib = -1;
			for (int t = 0; t < e->T; t++) {
				int r, c, l = t % 32, w = t - l;
				frag_c(l, i, &r, &c);
				if ((ia >= 0 && ia != aidx[r][k]) || (ib >= 0 && ib != bidx[k][c]))
					ice(PASS, "mma fragment layout is not register-uniform");
				ia = aidx[r][k], ib = bidx[k][c];
				pa[t] = w + alane[r][k];
				pb[t] = w + blane[k][c];
			}
			LLVMValueRef x = permute(e, A[ia], pa), y = permute(e, Bv[ib], pb);
			if (s->integer)
				acc = LLVMBuildAdd(e->B, acc, LLVMBuildMul(e->B, x, y, ""), "");
			else
				acc = LLVMBuildFAdd(e->B, acc, LLVMBuildFMul(e->B, x, y, ""), "");
		}
		D[i] = acc;
	}
	free(pa);
	free(pb);
}

/* One internal noinline helper per mma kind and module, returning {D0..D3}:
 * a GEMM loop issues many mma ops, and inlining each one costs codegen time. */
static LLVMValueRef mma_helper(Em *e, int kind, const MmaShape *s, LLVMTypeRef vt)
{
	char name[32];
	snprintf(name, sizeof name, "tile.mma.%d", kind);
	LLVMValueRef fn = LLVMGetNamedFunction(e->M, name);
	if (fn)
		return fn;
	int np = s->na + s->nb + 4;
	LLVMTypeRef ps[28], rs[4] = {vt, vt, vt, vt};
	for (int i = 0; i < np; i++)
		ps[i] = vt;
	LLVMTypeRef st = LLVMStructTypeInContext(e->C, rs, 4, 0);
	fn = LLVMAddFunction(e->M, name, LLVMFunctionType(st, ps, (unsigned)np, 0));
	LLVMSetLinkage(fn, LLVMInternalLinkage);
	static const char *const attrs[] = {"noinline", "nounwind", "readnone", "willreturn"};
	for (size_t i = 0; i < COUNTOF(attrs); i++) {
		unsigned k = LLVMGetEnumAttributeKindForName(attrs[i], strlen(attrs[i]));
		LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
		                        LLVMCreateEnumAttribute(e->C, k, 0));
	}
	LLVMBuilderRef saved = e->B;
	e->B = LLVMCreateBuilderInContext(e->C);
	LLVMPositionBuilderAtEnd(e->B, LLVMAppendBasicBlockInContext(e->C, fn, "entry"));
	LLVMValueRef A[16], Bv[8], C[4], D[4];
	for (int i = 0; i < s->na; i++)
		A[i] = LLVMGetParam(fn, (unsigned)i);
	for (int i = 0; i < s->nb; i++)
		Bv[i] = LLVMGetParam(fn, (unsigned)(s->na + i));
	for (int i = 0; i < 4; i++)
		C[i] = LLVMGetParam(fn, (unsigned)(s->na + s->nb + i));
	mma_core(e, kind, s, A, Bv, C, D);
	LLVMValueRef agg = LLVMGetUndef(st);
	for (int i = 0; i < 4; i++)
		agg = LLVMBuildInsertValue(e->B, agg, D[i], (unsigned)i, "");
	LLVMBuildRet(e->B, agg);
	LLVMDisposeBuilder(e->B);
	e->B = saved;
	return fn;
}

static void emit_mma(Em *e, const TpOp *op)
{
	int kind = (int)op->attr.i;
	MmaShape s = mma_shape(kind);
	if (e->lanes != 32)
		ice(PASS, "mma emulation needs 32-lane warps (got %d)", e->lanes);
	int np = s.na + s.nb + 4;
	if (op->nin != np || op->nout != 4)
		ice(PASS, "mma kind %d needs %d operands and 4 results", kind, np);
	LLVMValueRef args[28];
	for (int i = 0; i < s.na + s.nb; i++)
		args[i] = mma_in(e, &s, kind, op->operands[i]);
	for (int i = 0; i < 4; i++)
		args[s.na + s.nb + i] = em_getv(e, op->operands[s.na + s.nb + i]);
	LLVMTypeRef vt = em_vec(e, s.integer ? e->t_i32 : e->t_f32);
	LLVMValueRef fn = mma_helper(e, kind, &s, vt);
	LLVMTypeRef fty = LLVMGlobalGetValueType(fn);
	LLVMValueRef r = LLVMBuildCall2(e->B, fty, fn, args, (unsigned)np, "");
	for (int i = 0; i < 4; i++)
		em_set(e, op->results[i], LLVMBuildExtractValue(e->B, r, (unsigned)i, ""));
}

/* ---- ldmatrix ------------------------------------------------------------------------------ */

static void emit_ldmatrix(Em *e, const TpOp *op)
{
	LLVMBuilderRef B = e->B;
	int nm = (int)op->attr.i;
	bool trans = op->attr.flags & TP_TRANS;
	if (e->lanes != 32)
		ice(PASS, "ldmatrix emulation needs 32-lane warps (got %d)", e->lanes);
	if (op->nout != 2 * nm)
		ice(PASS, "ldmatrix.x%d needs %d results", nm, 2 * nm);
	LLVMValueRef off = em_getv(e, op->operands[0]);
	Type rt = tp_type(e->f, op->results[0]);
	LLVMTypeRef st = em_storage_type(e, (DType)rt.dt);
	int *src = malloc(sizeof(int) * (size_t)e->T);
	LLVMValueRef *col = malloc(sizeof(LLVMValueRef) * (size_t)e->T);
	for (int m = 0; m < nm; m++) {
		for (int j = 0; j < 2; j++) {
			for (int t = 0; t < e->T; t++) {
				int l = t % 32, w = t - l;
				int r = trans ? 2 * (l % 4) + j : l / 4;
				int c = trans ? l / 4 : 2 * (l % 4) + j;
				src[t] = w + m * 8 + r;
				col[t] = ci32(e, 2 * c);
			}
			LLVMValueRef a = LLVMBuildAdd(B, permute(e, off, src),
			                              LLVMConstVector(col, (unsigned)e->T), "");
			LLVMValueRef o = LLVMBuildZExt(B, a, em_vec(e, e->t_i64), "");
			LLVMValueRef p = LLVMBuildGEP2(B, e->t_i8, e->a_smem, &o, 1, "");
			p = LLVMBuildBitCast(B, p, em_vec(e, LLVMPointerType(st, 0)), "");
			LLVMValueRef args[4] = {p, ci32(e, 2), LLVMConstAllOnes(em_vec(e, e->t_i1)),
			                        LLVMGetUndef(em_vec(e, st))};
			LLVMTypeRef ovl[2] = {em_vec(e, st), LLVMTypeOf(p)};
			em_set(e, op->results[2 * m + j],
			       em_intrinsic(e, "llvm.masked.gather", ovl, 2, args, 4));
		}
	}
	free(src);
	free(col);
}

/* ---- print / assert -------------------------------------------------------------------------- */

typedef struct LaneLoop {
	LLVMBasicBlockRef pre, head, exit;
	LLVMValueRef i;
} LaneLoop;

static void lane_loop_begin(Em *e, LaneLoop *lp)
{
	lp->pre = LLVMGetInsertBlock(e->B);
	lp->head = LLVMAppendBasicBlockInContext(e->C, e->fn, "lane");
	lp->exit = LLVMAppendBasicBlockInContext(e->C, e->fn, "lane.exit");
	LLVMBuildBr(e->B, lp->head);
	LLVMPositionBuilderAtEnd(e->B, lp->head);
	lp->i = LLVMBuildPhi(e->B, e->t_i32, "");
}

static void lane_loop_end(Em *e, LaneLoop *lp)
{
	LLVMValueRef n = LLVMBuildAdd(e->B, lp->i, ci32(e, 1), "");
	LLVMBasicBlockRef latch = LLVMGetInsertBlock(e->B);
	LLVMBuildCondBr(e->B, LLVMBuildICmp(e->B, LLVMIntULT, n, ci32(e, e->T), ""), lp->head,
	                lp->exit);
	LLVMValueRef in[2] = {ci32(e, 0), n};
	LLVMBasicBlockRef bb[2] = {lp->pre, latch};
	LLVMAddIncoming(lp->i, in, bb, 2);
	LLVMPositionBuilderAtEnd(e->B, lp->exit);
}

static LLVMValueRef lane_value(Em *e, LLVMValueRef x, LLVMValueRef i)
{
	return em_is_vec(x) ? LLVMBuildExtractElement(e->B, x, i, "") : x;
}

static void load_pids(Em *e, LLVMValueRef pid[3])
{
	for (int a = 0; a < 3; a++) {
		LLVMValueRef ix = LLVMConstInt(e->t_i64, (unsigned long long)a, 0);
		LLVMValueRef p = LLVMBuildGEP2(e->B, e->t_i32, e->a_pid, &ix, 1, "");
		pid[a] = LLVMBuildLoad2(e->B, e->t_i32, p, "");
	}
}

static void print_one(Em *e, const TpOp *op, TpVal v, LLVMValueRef x, LLVMValueRef *pre_args)
{
	LLVMBuilderRef B = e->B;
	Type t = tp_type(e->f, v);
	int kind;
	LLVMValueRef iv = LLVMConstInt(e->t_i64, 0, 0), fv = LLVMConstReal(e->t_f64, 0);
	if (dtype_is_float(t.dt)) {
		kind = RT_PRINT_FLOAT;
		fv = t.dt == DT_F64 ? x
		                    : LLVMBuildFPExt(B, em_to_f32(e, x, (DType)t.dt), e->t_f64, "");
	} else if (t.dt == DT_PTR) {
		kind = RT_PRINT_PTR;
		iv = LLVMBuildPtrToInt(B, x, e->t_i64, "");
	} else {
		bool sg = t.dt != DT_I1 && dtype_is_signed(t.dt);
		kind = (op->attr.flags & TIR_HEX) ? RT_PRINT_HEX
		       : sg                       ? RT_PRINT_INT
		                                  : RT_PRINT_UINT;
		iv = LLVMBuildIntCast2(B, x, e->t_i64, sg, "");
	}
	LLVMTypeRef ps[9] = {e->t_i8p, e->t_i32, e->t_i32, e->t_i32, e->t_i32,
	                     e->t_i8p, e->t_i32, e->t_i64, e->t_f64};
	LLVMValueRef args[9];
	memcpy(args, pre_args, sizeof(LLVMValueRef) * 6);
	args[6] = ci32(e, kind);
	args[7] = iv;
	args[8] = fv;
	em_call(e, "tile_rt_print", e->t_void, ps, 9, args);
}

static void emit_print(Em *e, const TpOp *op)
{
	LLVMValueRef pid[3];
	load_pids(e, pid);
	LLVMValueRef prefix = LLVMBuildGlobalStringPtr(e->B, op->attr.str ? op->attr.str : "", "");
	LaneLoop lp;
	lane_loop_begin(e, &lp);
	LLVMValueRef pre[6] = {e->a_rt, pid[0], pid[1], pid[2], lp.i, prefix};
	for (int i = 0; i < op->nin; i++) {
		TpVal v = op->operands[i];
		if (v)
			print_one(e, op, v, lane_value(e, em_get(e, v), lp.i), pre);
	}
	lane_loop_end(e, &lp);
}

static void emit_assert(Em *e, const TpOp *op)
{
	LLVMBuilderRef B = e->B;
	LLVMValueRef pid[3];
	load_pids(e, pid);
	LLVMValueRef msg =
	        LLVMBuildGlobalStringPtr(B, op->attr.str ? op->attr.str : "assertion failed", "");
	LLVMValueRef c = em_get(e, op->operands[0]);
	LaneLoop lp;
	lane_loop_begin(e, &lp);
	LLVMValueRef ok = lane_value(e, c, lp.i);
	LLVMBasicBlockRef fail = LLVMAppendBasicBlockInContext(e->C, e->fn, "assert.fail");
	LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(e->C, e->fn, "assert.next");
	LLVMBuildCondBr(B, ok, next, fail);
	LLVMPositionBuilderAtEnd(B, fail);
	LLVMTypeRef ps[6] = {e->t_i8p, e->t_i8p, e->t_i32, e->t_i32, e->t_i32, e->t_i32};
	LLVMValueRef args[6] = {e->a_rt, msg, pid[0], pid[1], pid[2], lp.i};
	em_call(e, "tile_rt_assert", e->t_void, ps, 6, args);
	LLVMBuildBr(B, next);
	LLVMPositionBuilderAtEnd(B, next);
	lane_loop_end(e, &lp);
}

bool em_intrin(Em *e, const TpOp *op)
{
	switch (op->kind) {
	case TP_SHFL_XOR: emit_shfl_xor(e, op); return true;
	case TP_SHFL_IDX: emit_shfl_idx(e, op); return true;
	case TP_MMA: emit_mma(e, op); return true;
	case TP_LDMATRIX: emit_ldmatrix(e, op); return true;
	case TP_PRINT: emit_print(e, op); return true;
	case TP_ASSERT: emit_assert(e, op); return true;
	default: return false;
	}
}

/* emit_llvm_intrin.c: warp shuffles, mma.sync / ldmatrix emulation and the
 * device print/assert hooks for the CPU emitter.
 *
 * Warps are the consecutive groups of `lanes` vector elements, so a shuffle
 * within each warp is a shufflevector with a constant permutation (SHFL_XOR)
 * or a gather from a stack copy (SHFL_IDX, variable source), and so is an
 * exchange between warps (WARP_XOR).
 *
 * MMA and LDMATRIX are lane-exact calls into libtile (jit/rt_mma.c), resolved
 * by ORC like tile_rt_print: operands go through stack scratch, one row of T
 * values per fragment register. Fragment layouts follow the PTX ISA
 * ("Matrix Fragments for mma.m16n8k16", "... m16n8k8" (.tf32), "... m16n8k32"
 * (.s8, .e4m3, .e5m2)).
 */
#include "codegen/emit_llvm_internal.h"
#include "jit/rt_race.h"
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

/* Warps are consecutive groups of `lanes` elements of the one vector. */
static void emit_warp_xor(Em *e, const TpOp *op)
{
	LLVMValueRef x = em_getv(e, op->operands[0]);
	int L = e->lanes, m = (int)op->attr.i, W = e->T / L;
	int *src = malloc(sizeof(int) * (size_t)e->T);
	for (int t = 0; t < e->T; t++)
		src[t] = (((t / L) ^ m) & (W - 1)) * L + t % L;
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
	LLVMValueRef slot = em_entry_alloca(e, em_vec(e, st), 64);
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

/* ---- mma.sync / ldmatrix ----------------------------------------------------------------- */

/* Both run in libtile (jit/rt_mma.c: tile_rt_mma_*, tile_rt_ldmatrix): the
 * operand registers are stored row-wise into stack scratch (x[i*T + t]), the
 * helper computes per warp, and the results are loaded back. Emitting the
 * lane permutations inline as shufflevector networks made LLVM take minutes
 * on a GEMM loop. */

enum { SCRATCH_BYTES_PER_THREAD = 16 }; /* largest operand: a (16 B/thread), c/d, ldmatrix.x4 */

/* Scratch slot `k` (16*T bytes, 64-aligned) of the current function: one
 * alloca per slot in the entry block, found again by name. */
static LLVMValueRef scratch(Em *e, int k)
{
	char name[32];
	snprintf(name, sizeof name, "tile.scratch.%d", k);
	size_t len = strlen(name);
	for (LLVMValueRef i = LLVMGetFirstInstruction(e->entry); i && LLVMIsAAllocaInst(i);
	     i = LLVMGetNextInstruction(i)) {
		size_t n = 0;
		const char *nm = LLVMGetValueName2(i, &n);
		if (n == len && !memcmp(nm, name, len))
			return i;
	}
	LLVMValueRef a = em_entry_alloca(
	        e, LLVMArrayType(e->t_i8, (unsigned)(SCRATCH_BYTES_PER_THREAD * e->T)), 64);
	LLVMSetValueName2(a, name, len);
	return a;
}

/* pointer to register row i (elements of `st`) in scratch slot p */
static LLVMValueRef scratch_row(Em *e, LLVMValueRef p, LLVMTypeRef st, int i)
{
	LLVMValueRef base = LLVMBuildBitCast(e->B, p, LLVMPointerType(st, 0), "");
	LLVMValueRef ix = LLVMConstInt(e->t_i64, (unsigned long long)i * (unsigned long long)e->T, 0);
	LLVMValueRef r = LLVMBuildGEP2(e->B, st, base, &ix, 1, "");
	return LLVMBuildBitCast(e->B, r, LLVMPointerType(em_vec(e, st), 0), "");
}

static void scratch_store(Em *e, LLVMValueRef p, int i, LLVMValueRef x)
{
	LLVMTypeRef st = LLVMGetElementType(LLVMTypeOf(x));
	LLVMSetAlignment(LLVMBuildStore(e->B, x, scratch_row(e, p, st, i)), 16);
}

static LLVMValueRef scratch_load(Em *e, LLVMValueRef p, LLVMTypeRef st, int i)
{
	LLVMValueRef r = LLVMBuildLoad2(e->B, em_vec(e, st), scratch_row(e, p, st, i), "");
	LLVMSetAlignment(r, 16);
	return r;
}

static LLVMValueRef as_i8p(Em *e, LLVMValueRef p)
{
	return LLVMBuildBitCast(e->B, p, e->t_i8p, "");
}

/* The fp8 element type of operand `b_side` (0: a, 1: b) of an fp8 kind. */
static DType mma_fp8_type(int kind, int b_side)
{
	int bits = kind - MMA_M16N8K32_E4M3_E4M3_F32; /* 2 * (a is e5m2) + (b is e5m2) */
	return (bits >> (1 - b_side)) & 1 ? DT_F8E5M2 : DT_F8E4M3;
}

/* operand v (of side b_side) of an mma in the helper's input representation */
static LLVMValueRef mma_operand(Em *e, int kind, TpVal v, int b_side)
{
	LLVMValueRef x = em_getv(e, v);
	DType d = (DType)tp_type(e->f, v).dt;
	switch (kind) {
	case MMA_M16N8K16_F16_F32:
		return d == DT_F16 ? x : em_from_f32(e, em_to_f32(e, x, d), DT_F16, false);
	case MMA_M16N8K16_BF16_F32:
		return d == DT_BF16 ? x : em_from_f32(e, em_to_f32(e, x, d), DT_BF16, false);
	case MMA_M16N8K8_TF32_F32: return em_to_f32(e, x, d);
	case MMA_M16N8K32_S8_S32: return LLVMBuildIntCast2(e->B, x, em_vec(e, e->t_i8), 1, "");
	default: { /* fp8: the bits (carried as i8) */
		DType want = mma_fp8_type(kind, b_side);
		return d == want ? x : em_from_f32(e, em_to_f32(e, x, d), want, false);
	}
	}
}

static void emit_mma(Em *e, const TpOp *op)
{
	static const char *const FN[] = {
	        "tile_rt_mma_f16_f32",       "tile_rt_mma_bf16_f32",      "tile_rt_mma_tf32_f32",
	        "tile_rt_mma_s8_s32",        "tile_rt_mma_e4m3_e4m3_f32", "tile_rt_mma_e4m3_e5m2_f32",
	        "tile_rt_mma_e5m2_e4m3_f32", "tile_rt_mma_e5m2_e5m2_f32"};
	_Static_assert(sizeof FN / sizeof *FN == MMA_KIND_COUNT, "one helper per MmaKind");
	int kind = (int)op->attr.i;
	if (kind < 0 || kind >= MMA_KIND_COUNT)
		ice(PASS, "bad mma kind %d", kind);
	if (e->lanes != 32)
		ice(PASS, "mma emulation needs 32-lane warps (got %d)", e->lanes);
	int na = mma_kind_na(kind), nb = na / 2, np = na + nb + 4;
	if (op->nin != np || op->nout != 4)
		ice(PASS, "mma kind %d needs %d operands and 4 results", kind, np);
	bool integer = kind == MMA_M16N8K32_S8_S32;
	LLVMTypeRef acc = integer ? e->t_i32 : e->t_f32;
	LLVMValueRef pa = scratch(e, 0), pb = scratch(e, 1), pc = scratch(e, 2), pd = scratch(e, 3);
	for (int i = 0; i < na; i++)
		scratch_store(e, pa, i, mma_operand(e, kind, op->operands[i], 0));
	for (int i = 0; i < nb; i++)
		scratch_store(e, pb, i, mma_operand(e, kind, op->operands[na + i], 1));
	for (int i = 0; i < 4; i++) {
		LLVMValueRef c = em_getv(e, op->operands[na + nb + i]);
		if (LLVMGetElementType(LLVMTypeOf(c)) != acc)
			ice(PASS, "mma accumulator type mismatch");
		scratch_store(e, pc, i, c);
	}
	LLVMTypeRef ps[5] = {e->t_i8p, e->t_i8p, e->t_i8p, e->t_i8p, e->t_i32};
	LLVMValueRef args[5] = {as_i8p(e, pd), as_i8p(e, pa), as_i8p(e, pb), as_i8p(e, pc),
	                        ci32(e, e->T)};
	em_call(e, FN[kind], e->t_void, ps, 5, args);
	for (int i = 0; i < 4; i++)
		em_set(e, op->results[i], scratch_load(e, pd, acc, i));
}

static void emit_ldmatrix(Em *e, const TpOp *op)
{
	int nm = (int)op->attr.i;
	bool trans = op->attr.flags & TP_TRANS;
	if (e->lanes != 32)
		ice(PASS, "ldmatrix emulation needs 32-lane warps (got %d)", e->lanes);
	Type rt = tp_type(e->f, op->results[0]);
	int eb = dtype_bytes((DType)rt.dt), epr = eb >= 1 && eb <= 4 ? 4 / eb : 0;
	if (nm < 1 || nm > 4 || !epr || op->nout != epr * nm)
		ice(PASS, "ldmatrix.x%d of %d-byte values has %d results", nm, eb, op->nout);
	LLVMValueRef off = LLVMBuildIntCast2(e->B, em_getv(e, op->operands[0]),
	                                     em_vec(e, e->t_i32), 1, "");
	LLVMTypeRef st = em_storage_type(e, (DType)rt.dt);
	{ /* lanes 0 .. 8 * nm - 1 of each warp give a 16-byte row each */
		LLVMValueRef *act = malloc(sizeof(LLVMValueRef) * (size_t)e->T);
		for (int t = 0; t < e->T; t++)
			act[t] = LLVMConstInt(e->t_i8, t % e->lanes < 8 * nm, 0);
		LLVMValueRef rows = LLVMConstVector(act, (unsigned)e->T);
		free(act);
		em_race_access(e, op, rows, 16, 0, TILE_RACE_READ, NULL, 0);
		em_align_check(e, op, off, rows, 16, true);
	}
	LLVMValueRef po = scratch(e, 0), poff = scratch(e, 1);
	scratch_store(e, poff, 0, off);
	LLVMTypeRef ps[7] = {e->t_i8p, e->t_i8p, e->t_i8p, e->t_i32, e->t_i32, e->t_i32, e->t_i32};
	LLVMValueRef args[7] = {as_i8p(e, po), as_i8p(e, e->a_smem), as_i8p(e, poff), ci32(e, nm),
	                        ci32(e, trans), ci32(e, eb), ci32(e, e->T)};
	em_call(e, "tile_rt_ldmatrix", e->t_void, ps, 7, args);
	for (int j = 0; j < op->nout; j++) {
		LLVMValueRef v = scratch_load(e, po, st, j);
		if (rt.dt == DT_I1) /* a byte in memory (em_storage_type): its truth */
			v = LLVMBuildICmp(e->B, LLVMIntNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
		em_set(e, op->results[j], v);
	}
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
		kind = (op->attr.flags & TIR_HEX) ? RT_PRINT_HEX | ((dtype_bits((DType)t.dt) + 3) / 4) << 8
		       : sg                       ? RT_PRINT_INT
		                                  : RT_PRINT_UINT;
		iv = LLVMBuildIntCast2(B, x, e->t_i64, sg, "");
	}
	LLVMTypeRef ps[12] = {e->t_i8p, e->t_i32, e->t_i32, e->t_i32, e->t_i32, e->t_i8p,
	                      e->t_i32, e->t_i8p, e->t_i32, e->t_i32, e->t_i64, e->t_f64};
	LLVMValueRef args[12];
	memcpy(args, pre_args, sizeof(LLVMValueRef) * 8);
	args[8] = ci32(e, op->attr.i2 > 0 ? (int)op->attr.i2 - 1 : -1);
	args[9] = ci32(e, kind);
	args[10] = iv;
	args[11] = fv;
	em_call(e, "tile_rt_print", e->t_void, ps, 12, args);
}

/* attr.i > 0: the first attr.i operands are the element's coordinates in its
 * tile (padded to attr.perm[d] digits) and the last is its value (one line,
 * "idx (i, j)"); otherwise each operand is a line of its own, "idx ()"; no
 * operands: "pid (x, y, z)PREFIX" alone. */
static void emit_print(Em *e, const TpOp *op)
{
	LLVMValueRef pid[3];
	load_pids(e, pid);
	LLVMValueRef prefix = LLVMBuildGlobalStringPtr(e->B, op->attr.str ? op->attr.str : "", "");
	int nc = op->attr.i > 0 && op->attr.i < op->nin ? (int)op->attr.i : 0;
	LLVMTypeRef at = LLVMArrayType(e->t_i32, (unsigned)(2 * nc));
	LLVMValueRef idx = nc ? em_entry_alloca(e, at, 4) : LLVMConstNull(e->t_i8p);
	LaneLoop lp;
	lane_loop_begin(e, &lp);
	for (int d = 0; d < nc; d++) {
		LLVMValueRef gi[2] = {ci32(e, 0), ci32(e, d)};
		LLVMValueRef p = LLVMBuildGEP2(e->B, at, idx, gi, 2, "");
		LLVMValueRef c = lane_value(e, em_get(e, op->operands[d]), lp.i);
		LLVMBuildStore(e->B, LLVMBuildIntCast2(e->B, c, e->t_i32, 1, ""), p);
		LLVMValueRef gw[2] = {ci32(e, 0), ci32(e, nc + d)};
		LLVMBuildStore(e->B, ci32(e, d < TIR_MAX_RANK ? op->attr.perm[d] : 0),
		               LLVMBuildGEP2(e->B, at, idx, gw, 2, ""));
	}
	LLVMValueRef pre[8] = {e->a_rt, pid[0], pid[1], pid[2], lp.i,
	                       nc ? LLVMBuildBitCast(e->B, idx, e->t_i8p, "") : idx, ci32(e, op->nin ? nc : -1), prefix};
	if (op->nin == 0) {
		LLVMTypeRef ps[12] = {e->t_i8p, e->t_i32, e->t_i32, e->t_i32, e->t_i32, e->t_i8p,
		                      e->t_i32, e->t_i8p, e->t_i32, e->t_i32, e->t_i64, e->t_f64};
		LLVMValueRef args[12];
		memcpy(args, pre, sizeof pre);
		args[8] = ci32(e, -1);
		args[9] = ci32(e, RT_PRINT_NONE);
		args[10] = LLVMConstInt(e->t_i64, 0, 0);
		args[11] = LLVMConstReal(e->t_f64, 0);
		em_call(e, "tile_rt_print", e->t_void, ps, 12, args);
	}
	for (int i = nc; i < op->nin; i++) {
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
	/* Every failing thread was reported; now the instance stops, as a GPU's
	 * __assertfail traps: going on ran past the assert, and a kernel whose
	 * only way out of a spin loop is the assert (a timeout) never ended. */
	LLVMValueRef all = c;
	if (em_is_vec(c)) {
		LLVMTypeRef vt = LLVMTypeOf(c);
		all = em_intrinsic(e, "llvm.vector.reduce.and", &vt, 1, &c, 1);
	}
	LLVMBasicBlockRef pass = LLVMAppendBasicBlockInContext(e->C, e->fn, "assert.ok");
	LLVMBuildCondBr(B, all, pass, em_abort_block(e));
	LLVMPositionBuilderAtEnd(B, pass);
}

bool em_intrin(Em *e, const TpOp *op)
{
	switch (op->kind) {
	case TP_SHFL_XOR: emit_shfl_xor(e, op); return true;
	case TP_WARP_XOR: emit_warp_xor(e, op); return true;
	case TP_SHFL_IDX: emit_shfl_idx(e, op); return true;
	case TP_MMA: emit_mma(e, op); return true;
	case TP_LDMATRIX: emit_ldmatrix(e, op); return true;
	case TP_PRINT: emit_print(e, op); return true;
	case TP_ASSERT: emit_assert(e, op); return true;
	default: return false;
	}
}

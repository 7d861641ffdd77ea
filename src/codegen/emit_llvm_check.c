/* emit_llvm_check.c: what a GPU would fault on and the CPU does not, checked
 * by the CPU emulation.
 *
 * Races (TpFunc.racecheck, TILE_RACECHECK=1): calls into the shared-memory
 * race checker (jit/rt_race.h) around every shared-memory access and barrier.
 * The CPU runs a program's threads in lock-step, so a missing barrier does
 * not change its results; the checker tells instead, by the GPU's rules, so
 * cuda-emu catches what only compute-sanitizer's racecheck would on a GPU.
 * Per access: the threads' byte offsets and activity as stack arrays (and
 * the values a store writes, to let same-value writes pass), and a string
 * naming the op and its source location for the report.
 *
 * Alignment (cuda-emu, always): a vector access whose address is not a
 * multiple of its width faults on a GPU ("misaligned address"); the CPU would
 * read it happily, so a wrong alignment proof of axis analysis would pass
 * every test here. Each access checks its active threads' addresses with
 * vector ops and calls tile_rt_misaligned (jit/rt_hooks.c) only when one is
 * off.
 */
#include "codegen/emit_llvm_internal.h"
#include "jit/rt_race.h"

#include <stdio.h>

static LLVMValueRef ci32(Em *e, int64_t v)
{
	return LLVMConstInt(e->t_i32, (unsigned long long)v, 0);
}

/* Largest number of bytes one thread stores in one SMEM_STORE of b. */
static int max_store_bytes(const TpFunc *f, const TpBlock *b)
{
	int m = 0;
	for (int i = 0; i < b->nops; i++) {
		const TpOp *op = b->ops[i];
		if (op->kind == TP_SMEM_STORE && op->nin > 2) {
			int n = (op->nin - 2) * em_mem_bytes((DType)tp_type(f, op->operands[2]).dt);
			m = n > m ? n : m;
		}
		for (int r = 0; r < op->nregions; r++) {
			int n = max_store_bytes(f, &op->regions[r]);
			m = n > m ? n : m;
		}
	}
	return m;
}

void em_race_setup(Em *e)
{
	if (!e->f->racecheck || e->f->smem_bytes <= 0)
		return;
	LLVMTypeRef st = LLVMArrayType(e->t_i64, TILE_RACE_STATE_BYTES / 8);
	LLVMValueRef s = em_entry_alloca(e, st, TILE_RACE_STATE_ALIGN);
	e->race = LLVMBuildBitCast(e->B, s, e->t_i8p, "race");
	LLVMTypeRef ps[5] = {e->t_i8p, e->t_i8p, LLVMPointerType(e->t_i32, 0), e->t_i32, e->t_i32};
	LLVMValueRef a[5] = {e->race, e->a_rt, e->a_pid, ci32(e, e->f->smem_bytes), ci32(e, e->lanes)};
	em_call(e, "tile_rt_race_init", e->t_void, ps, 5, a);
	int vb = max_store_bytes(e->f, e->f->body);
	if (vb > 0)
		e->race_vals = em_entry_alloca(e, LLVMArrayType(e->t_i8, (unsigned)(vb * e->T)), 16);
	if (e->cpa_q) {
		LLVMTypeRef qs[2] = {e->t_i8p, e->t_i8p};
		LLVMValueRef qa[2] = {e->cpa_q, e->race};
		em_call(e, "tile_rt_cp_async_race", e->t_void, qs, 2, qa);
	}
}

void em_race_barrier(Em *e)
{
	if (e->race)
		em_call(e, "tile_rt_race_barrier", e->t_void, &e->t_i8p, 1, &e->race);
}

void em_race_fini(Em *e)
{
	if (e->race)
		em_call(e, "tile_rt_race_fini", e->t_void, &e->t_i8p, 1, &e->race);
}

/* Stores vector x (<T x ty>) into the [T x ty] stack array *slot, created on
 * first use; returns the array as i8*. */
static LLVMValueRef spill(Em *e, LLVMValueRef *slot, LLVMValueRef x)
{
	LLVMTypeRef vt = LLVMTypeOf(x);
	if (!*slot)
		*slot = em_entry_alloca(e, LLVMArrayType(LLVMGetElementType(vt), (unsigned)e->T), 16);
	LLVMValueRef p = LLVMBuildBitCast(e->B, *slot, LLVMPointerType(vt, 0), "");
	LLVMSetAlignment(LLVMBuildStore(e->B, x, p), 4);
	return LLVMBuildBitCast(e->B, *slot, e->t_i8p, "");
}

/* "file:line:col (smem_store)" as a constant string of the module */
static LLVMValueRef where(Em *e, const TpOp *op)
{
	char buf[320];
	const SrcLoc *l = &op->loc;
	if (l->file)
		snprintf(buf, sizeof buf, "%.256s:%d:%d (%s)", l->file->name, l->line, l->col,
		         tp_op_name((TpOpKind)op->kind));
	else
		snprintf(buf, sizeof buf, "(%s)", tp_op_name((TpOpKind)op->kind));
	return LLVMBuildGlobalStringPtr(e->B, buf, "");
}

void em_align_check(Em *e, const TpOp *op, LLVMValueRef addr, LLVMValueRef active, int align,
                    bool shared)
{
	if (!e->f->target.emulate || align <= 1 || !addr)
		return;
	LLVMBuilderRef B = e->B;
	LLVMTypeRef i64v = em_vec(e, e->t_i64);
	addr = em_match(e, addr, true);
	LLVMTypeRef et = LLVMGetElementType(LLVMTypeOf(addr));
	LLVMValueRef a = LLVMGetTypeKind(et) == LLVMPointerTypeKind
	                         ? LLVMBuildPtrToInt(B, addr, i64v, "")
	                         : LLVMBuildZExt(B, addr, i64v, "");
	LLVMValueRef low = LLVMBuildAnd(B, a, em_const_int(e, e->t_i64, align - 1, true), "");
	LLVMValueRef bad = LLVMBuildICmp(B, LLVMIntNE, low, em_const_int(e, e->t_i64, 0, true), "");
	if (active) {
		active = em_match(e, active, true);
		if (LLVMGetElementType(LLVMTypeOf(active)) != e->t_i1)
			active = LLVMBuildICmp(B, LLVMIntNE, active, LLVMConstNull(LLVMTypeOf(active)), "");
		bad = LLVMBuildAnd(B, bad, active, "");
	}
	LLVMValueRef bits = LLVMBuildBitCast(B, bad, LLVMIntTypeInContext(e->C, (unsigned)e->T), "");
	LLVMValueRef any = LLVMBuildICmp(B, LLVMIntNE, bits, LLVMConstNull(LLVMTypeOf(bits)), "");
	LLVMBasicBlockRef fail = LLVMAppendBasicBlockInContext(e->C, e->fn, "misaligned");
	LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(e->C, e->fn, "aligned");
	LLVMBuildCondBr(B, any, fail, next);
	LLVMPositionBuilderAtEnd(B, fail);
	LLVMValueRef pa = spill(e, &e->chk_addr, a);
	LLVMValueRef pb = spill(e, &e->chk_bad, LLVMBuildZExt(B, bad, em_vec(e, e->t_i8), ""));
	LLVMTypeRef ps[9] = {e->t_i8p, LLVMPointerType(e->t_i32, 0), e->t_i8p, e->t_i8p, e->t_i32,
	                     e->t_i32, e->t_i32, e->t_i32, e->t_i8p};
	LLVMValueRef args[9] = {e->a_rt,        e->a_pid,          pa,
	                        pb,             ci32(e, e->T),     ci32(e, e->lanes),
	                        ci32(e, align), ci32(e, shared),   where(e, op)};
	em_call(e, "tile_rt_misaligned", e->t_void, ps, 9, args);
	LLVMBuildBr(B, next);
	LLVMPositionBuilderAtEnd(B, next);
}

void em_race_access(Em *e, const TpOp *op, LLVMValueRef active, int bytes, int eb, int kind,
                    const LLVMValueRef *vals, int nvals)
{
	if (!e->race)
		return;
	LLVMBuilderRef B = e->B;
	LLVMValueRef off = LLVMBuildIntCast2(B, em_getv(e, op->operands[kind == TILE_RACE_ASYNC]),
	                                     em_vec(e, e->t_i32), 1, "");
	LLVMValueRef act = LLVMConstNull(e->t_i8p);
	if (active) {
		active = em_match(e, active, true);
		if (LLVMGetElementType(LLVMTypeOf(active)) != e->t_i8)
			active = LLVMBuildZExt(B, active, em_vec(e, e->t_i8), "");
		act = spill(e, &e->race_act, active);
	}
	LLVMValueRef pv = LLVMConstNull(e->t_i8p);
	if (nvals > 0 && e->race_vals) {
		for (int k = 0; k < nvals; k++) {
			LLVMValueRef v = em_match(e, vals[k], true);
			LLVMValueRef ix = ci32(e, (int64_t)k * e->T * eb);
			LLVMValueRef p = LLVMBuildGEP2(B, e->t_i8, LLVMBuildBitCast(B, e->race_vals, e->t_i8p, ""),
			                               &ix, 1, "");
			p = LLVMBuildBitCast(B, p, LLVMPointerType(LLVMTypeOf(v), 0), "");
			LLVMSetAlignment(LLVMBuildStore(B, v, p), 1);
		}
		pv = LLVMBuildBitCast(B, e->race_vals, e->t_i8p, "");
	}
	LLVMTypeRef ps[9] = {e->t_i8p, e->t_i8p, e->t_i8p, e->t_i8p, e->t_i32,
	                     e->t_i32, e->t_i32, e->t_i32, e->t_i8p};
	LLVMValueRef a[9] = {e->race,       spill(e, &e->race_off, off), act,
	                     pv,            ci32(e, e->T),               ci32(e, bytes),
	                     ci32(e, eb),   ci32(e, kind),               where(e, op)};
	em_call(e, "tile_rt_race_access", e->t_void, ps, 9, a);
}

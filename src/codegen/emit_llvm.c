/* emit_llvm.c: thread program -> LLVM IR -> host object (the CPU target).
 *
 * Requires: a verified TpFunc (structured, uniform control flow).
 * Guarantees: an ELF object defining
 *     void NAME(void **args, const int32_t pid[3], const int32_t nprog[3],
 *               void *smem, void *rt)
 * (see emit.h) that runs one program instance with all threads as SIMD lanes,
 * or the optimized IR / assembly text. One LLVMContext per call: concurrent
 * compiles on different threads share nothing.
 *
 * This file: setup, values, control flow (FOR/IF/WHILE as basic blocks with
 * phis), dispatch to the op-family files; emit_llvm_backend.c then verifies,
 * optimizes and generates code for the host CPU.
 */
#include "codegen/emit_llvm_internal.h"
#include "util/llvm_targets.h"

#include <llvm-c/TargetMachine.h>

#include <stdlib.h>
#include <string.h>

static const char PASS[] = "emit_llvm";

/* ---- types and values ------------------------------------------------------ */

LLVMTypeRef em_storage_type(Em *e, DType d)
{
	switch (d) {
	case DT_I1:
	case DT_I8:
	case DT_U8:
	case DT_F8E4M3:
	case DT_F8E5M2: return e->t_i8;
	case DT_I16:
	case DT_U16:
	case DT_F16: /* bits: LLVM 14 scalarizes wide <N x half> (emit_llvm_arith.c) */
	case DT_BF16: return e->t_i16;
	case DT_I32:
	case DT_U32: return e->t_i32;
	case DT_I64:
	case DT_U64: return e->t_i64;
	case DT_F32: return e->t_f32;
	case DT_F64: return e->t_f64;
	case DT_PTR: return e->t_i8p;
	default: ice(PASS, "no storage type for dtype %d", d);
	}
}

LLVMTypeRef em_scalar_type(Em *e, Type t)
{
	if (t.dt == DT_I1)
		return e->t_i1;
	if (t.dt == DT_PTR) {
		LLVMTypeRef el = t.elem == DT_VOID ? e->t_i8 : em_storage_type(e, t.elem);
		return LLVMPointerType(el, 0);
	}
	return em_storage_type(e, t.dt);
}

LLVMTypeRef em_vec(Em *e, LLVMTypeRef s) { return LLVMVectorType(s, (unsigned)e->T); }

LLVMTypeRef em_val_type(Em *e, TpVal v)
{
	LLVMTypeRef s = em_scalar_type(e, tp_type(e->f, v));
	return tp_uniform(e->f, v) ? s : em_vec(e, s);
}

bool em_is_vec(LLVMValueRef v) { return LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMVectorTypeKind; }

LLVMValueRef em_splat(Em *e, LLVMValueRef s)
{
	if (em_is_vec(s))
		return s;
	LLVMTypeRef vt = em_vec(e, LLVMTypeOf(s));
	if (LLVMIsConstant(s) && !LLVMIsAConstantExpr(s)) {
		LLVMValueRef *el = malloc(sizeof(LLVMValueRef) * (size_t)e->T);
		for (int i = 0; i < e->T; i++)
			el[i] = s;
		LLVMValueRef r = LLVMConstVector(el, (unsigned)e->T);
		free(el);
		return r;
	}
	LLVMValueRef ins =
	        LLVMBuildInsertElement(e->B, LLVMGetUndef(vt), s, LLVMConstInt(e->t_i32, 0, 0), "");
	LLVMValueRef zero = LLVMConstNull(LLVMVectorType(e->t_i32, (unsigned)e->T));
	return LLVMBuildShuffleVector(e->B, ins, LLVMGetUndef(vt), zero, "");
}

LLVMValueRef em_match(Em *e, LLVMValueRef x, bool want_vec)
{
	if (want_vec)
		return em_splat(e, x);
	if (em_is_vec(x))
		ice(PASS, "varying value where a uniform one is required");
	return x;
}

LLVMValueRef em_get(Em *e, TpVal v)
{
	if (v == 0 || v >= e->f->vals.len || !e->vals[v])
		ice(PASS, "use of undefined value %%%u", v);
	return e->vals[v];
}

LLVMValueRef em_getv(Em *e, TpVal v) { return em_splat(e, em_get(e, v)); }

void em_set(Em *e, TpVal v, LLVMValueRef x) { e->vals[v] = em_match(e, x, !tp_uniform(e->f, v)); }

LLVMValueRef em_const_int(Em *e, LLVMTypeRef ty, int64_t v, bool vec)
{
	LLVMValueRef c = LLVMConstInt(ty, (unsigned long long)v, 1);
	return vec ? em_splat(e, c) : c;
}

LLVMValueRef em_const_f(Em *e, LLVMTypeRef ty, double v, bool vec)
{
	LLVMValueRef c = LLVMConstReal(ty, v);
	return vec ? em_splat(e, c) : c;
}

LLVMValueRef em_lane_vec(Em *e) { return e->tid_vec; }

LLVMBasicBlockRef em_abort_block(Em *e)
{
	if (!e->abort_bb)
		e->abort_bb = LLVMAppendBasicBlockInContext(e->C, e->fn, "abort");
	return e->abort_bb;
}

LLVMValueRef em_entry_alloca(Em *e, LLVMTypeRef t, unsigned align)
{
	LLVMBuilderRef b = LLVMCreateBuilderInContext(e->C);
	LLVMValueRef first = LLVMGetFirstInstruction(e->entry);
	if (first)
		LLVMPositionBuilderBefore(b, first);
	else
		LLVMPositionBuilderAtEnd(b, e->entry);
	LLVMValueRef a = LLVMBuildAlloca(b, t, "");
	LLVMSetAlignment(a, align);
	LLVMDisposeBuilder(b);
	return a;
}

static LLVMValueRef get_fn(Em *e, const char *name, LLVMTypeRef fty)
{
	LLVMValueRef fn = LLVMGetNamedFunction(e->M, name);
	if (!fn)
		fn = LLVMAddFunction(e->M, name, fty);
	return fn;
}

LLVMValueRef em_call(Em *e, const char *name, LLVMTypeRef ret, LLVMTypeRef *params, int nparams,
                     LLVMValueRef *args)
{
	LLVMTypeRef fty = LLVMFunctionType(ret, params, (unsigned)nparams, 0);
	LLVMValueRef fn = get_fn(e, name, fty);
	return LLVMBuildCall2(e->B, fty, fn, args, (unsigned)nparams, "");
}

LLVMValueRef em_intrinsic(Em *e, const char *name, LLVMTypeRef *ovl, int novl, LLVMValueRef *args,
                          int nargs)
{
	unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
	if (!id)
		ice(PASS, "unknown intrinsic %s", name);
	LLVMValueRef fn = LLVMGetIntrinsicDeclaration(e->M, id, ovl, (size_t)novl);
	LLVMTypeRef fty = LLVMIntrinsicGetType(e->C, id, ovl, (size_t)novl);
	return LLVMBuildCall2(e->B, fty, fn, args, (unsigned)nargs, "");
}

/* ---- blocks and control flow ------------------------------------------------ */

static const TpOp *emit_block(Em *e, const TpBlock *b);

/* Makes phis for block args at the current (empty) basic block. */
static void make_phis(Em *e, const TpBlock *b, int first, LLVMValueRef *phis)
{
	for (int i = first; i < b->nargs; i++) {
		phis[i - first] = LLVMBuildPhi(e->B, em_val_type(e, b->args[i]), "");
		e->vals[b->args[i]] = phis[i - first];
	}
}

static LLVMValueRef conv_to(Em *e, TpVal dst, LLVMValueRef x)
{
	return em_match(e, x, !tp_uniform(e->f, dst));
}

static void add_incoming(LLVMValueRef phi, LLVMValueRef v, LLVMBasicBlockRef bb)
{
	LLVMAddIncoming(phi, &v, &bb, 1);
}

static LLVMBasicBlockRef new_bb(Em *e, const char *name)
{
	return LLVMAppendBasicBlockInContext(e->C, e->fn, name);
}

static void expect_term(const TpOp *t, TpOpKind k)
{
	if (!t || t->kind != k)
		ice(PASS, "region must end in %s", tp_op_name(k));
}

static void emit_for(Em *e, const TpOp *op)
{
	int niter = op->nin - 3;
	const TpBlock *body = &op->regions[0];
	LLVMValueRef lb = em_get(e, op->operands[0]), ub = em_get(e, op->operands[1]);
	LLVMValueRef step = em_get(e, op->operands[2]);
	if (em_is_vec(lb) || em_is_vec(ub) || em_is_vec(step))
		ice(PASS, "for bounds must be uniform");
	bool sgn = dtype_is_signed((DType)tp_type(e->f, op->operands[0]).dt);
	LLVMValueRef inits[niter > 0 ? niter : 1];
	for (int i = 0; i < niter; i++)
		inits[i] = conv_to(e, body->args[i + 1], em_get(e, op->operands[3 + i]));
	LLVMBasicBlockRef pre = LLVMGetInsertBlock(e->B);
	LLVMBasicBlockRef head = new_bb(e, "for.head"), bbody = new_bb(e, "for.body");
	LLVMBasicBlockRef exit = new_bb(e, "for.exit");
	LLVMBuildBr(e->B, head);
	LLVMPositionBuilderAtEnd(e->B, head);
	LLVMValueRef phis[body->nargs];
	make_phis(e, body, 0, phis);
	add_incoming(phis[0], lb, pre);
	for (int i = 0; i < niter; i++)
		add_incoming(phis[i + 1], inits[i], pre);
	/* iv < ub whatever a runtime step's sign, as Triton's scf.for and the
	 * CUDA C (emit_c.c emit_for): sema makes a constexpr negative step an
	 * ascending count, and a runtime step is assumed positive, so
	 * range(10, 0, s) with s = -1 at run time runs no iteration on every
	 * target; iv > ub only for a step known negative here, as emit_c */
	LLVMValueRef iv = phis[0];
	bool down = sgn && LLVMIsAConstantInt(step) && LLVMConstIntGetSExtValue(step) < 0;
	LLVMValueRef cond = LLVMBuildICmp(e->B, down ? LLVMIntSGT : sgn ? LLVMIntSLT : LLVMIntULT, iv, ub, "");
	LLVMBuildCondBr(e->B, cond, bbody, exit);
	LLVMPositionBuilderAtEnd(e->B, bbody);
	const TpOp *y = emit_block(e, body);
	expect_term(y, TP_YIELD);
	LLVMValueRef next = LLVMBuildAdd(e->B, iv, step, "");
	LLVMValueRef ys[niter > 0 ? niter : 1];
	for (int i = 0; i < niter; i++)
		ys[i] = conv_to(e, body->args[i + 1], em_get(e, y->operands[i]));
	LLVMBasicBlockRef latch = LLVMGetInsertBlock(e->B);
	LLVMBuildBr(e->B, head);
	add_incoming(phis[0], next, latch);
	for (int i = 0; i < niter; i++)
		add_incoming(phis[i + 1], ys[i], latch);
	LLVMPositionBuilderAtEnd(e->B, exit);
	for (int i = 0; i < op->nout && i < niter; i++)
		em_set(e, op->results[i], phis[i + 1]);
}

static void emit_if(Em *e, const TpOp *op)
{
	LLVMValueRef c = em_get(e, op->operands[0]);
	if (em_is_vec(c))
		ice(PASS, "if condition must be uniform");
	LLVMBasicBlockRef bt = new_bb(e, "if.then"), bf = new_bb(e, "if.else");
	LLVMBasicBlockRef bj = new_bb(e, "if.end");
	LLVMBuildCondBr(e->B, c, bt, bf);
	LLVMValueRef vt[op->nout > 0 ? op->nout : 1], vf[op->nout > 0 ? op->nout : 1];
	LLVMBasicBlockRef et = bt, ef = bf;
	for (int r = 0; r < 2; r++) {
		LLVMPositionBuilderAtEnd(e->B, r ? bf : bt);
		LLVMValueRef *dst = r ? vf : vt;
		if (r < op->nregions) {
			const TpOp *y = emit_block(e, &op->regions[r]);
			if (op->nout)
				expect_term(y, TP_YIELD);
			for (int i = 0; i < op->nout; i++)
				dst[i] = conv_to(e, op->results[i], em_get(e, y->operands[i]));
		} else if (op->nout) {
			ice(PASS, "if with results needs an else region");
		}
		*(r ? &ef : &et) = LLVMGetInsertBlock(e->B);
		LLVMBuildBr(e->B, bj);
	}
	LLVMPositionBuilderAtEnd(e->B, bj);
	for (int i = 0; i < op->nout; i++) {
		LLVMValueRef phi = LLVMBuildPhi(e->B, em_val_type(e, op->results[i]), "");
		add_incoming(phi, vt[i], et);
		add_incoming(phi, vf[i], ef);
		e->vals[op->results[i]] = phi;
	}
}

/* Whether a loop with this region may wait for another program instance:
 * it reads memory another program may write while it runs (an atomic, a
 * volatile load), in any op or region. A plain load is not such a read: LLVM
 * may hoist it, and Triton's GPU backends may cache it. */
static bool may_wait(const TpBlock *b)
{
	for (int i = 0; i < b->nops; i++) {
		const TpOp *op = b->ops[i];
		if (op->kind == TP_ATOMIC || op->kind == TP_ATOMIC_CAS ||
		    (op->kind == TP_LOAD && (op->attr.flags & TIR_VOLATILE)))
			return true;
		for (int r = 0; r < op->nregions; r++)
			if (may_wait(&op->regions[r]))
				return true;
	}
	return false;
}

static void emit_while(Em *e, const TpOp *op)
{
	const TpBlock *before = &op->regions[0], *after = &op->regions[1];
	int n = op->nin;
	LLVMValueRef inits[n > 0 ? n : 1];
	for (int i = 0; i < n; i++)
		inits[i] = conv_to(e, before->args[i], em_get(e, op->operands[i]));
	LLVMBasicBlockRef pre = LLVMGetInsertBlock(e->B);
	LLVMBasicBlockRef bb = new_bb(e, "while.before"), ba = new_bb(e, "while.after");
	LLVMBasicBlockRef bx = new_bb(e, "while.exit");
	LLVMBuildBr(e->B, bb);
	LLVMPositionBuilderAtEnd(e->B, bb);
	LLVMValueRef phis[before->nargs > 0 ? before->nargs : 1];
	make_phis(e, before, 0, phis);
	for (int i = 0; i < n; i++)
		add_incoming(phis[i], inits[i], pre);
	/* iterations, for calling tile_rt_spin every SPIN_CHECK_ITERS: a loop
	 * waiting for another instance may wait for one not started (emit.h) */
	bool spin = may_wait(before) || may_wait(after);
	LLVMValueRef spins = NULL, zero = LLVMConstInt(e->t_i32, 0, 0);
	if (spin) {
		spins = LLVMBuildPhi(e->B, e->t_i32, "spins");
		LLVMAddIncoming(spins, &zero, &pre, 1);
	}
	const TpOp *c = emit_block(e, before);
	expect_term(c, TP_CONDITION);
	LLVMValueRef cond = em_get(e, c->operands[0]);
	if (em_is_vec(cond))
		ice(PASS, "while condition must be uniform");
	for (int i = 0; i < after->nargs; i++)
		e->vals[after->args[i]] = conv_to(e, after->args[i], em_get(e, c->operands[1 + i]));
	LLVMValueRef outs[op->nout > 0 ? op->nout : 1];
	for (int i = 0; i < op->nout; i++)
		outs[i] = conv_to(e, op->results[i], em_get(e, c->operands[1 + i]));
	LLVMBuildCondBr(e->B, cond, ba, bx);
	LLVMPositionBuilderAtEnd(e->B, ba);
	const TpOp *y = emit_block(e, after);
	expect_term(y, TP_YIELD);
	LLVMValueRef ys[n > 0 ? n : 1];
	for (int i = 0; i < n; i++)
		ys[i] = conv_to(e, before->args[i], em_get(e, y->operands[i]));
	LLVMBasicBlockRef latch = LLVMGetInsertBlock(e->B);
	if (spin) {
		LLVMValueRef spins1 = LLVMBuildAdd(e->B, spins, LLVMConstInt(e->t_i32, 1, 0), "");
		LLVMValueRef low = LLVMBuildAnd(e->B, spins1, LLVMConstInt(e->t_i32, SPIN_CHECK_ITERS - 1, 0), "");
		LLVMValueRef due = LLVMBuildICmp(e->B, LLVMIntEQ, low, zero, "");
		LLVMBasicBlockRef bs = new_bb(e, "while.spin");
		latch = new_bb(e, "while.latch");
		LLVMBuildCondBr(e->B, due, bs, latch);
		LLVMPositionBuilderAtEnd(e->B, bs);
		/* nonzero: a failed device_assert stopped the launch; this
		 * instance ends too (it may wait for one that will never start),
		 * as a trap ends a GPU's grid */
		LLVMValueRef stopped = em_call(e, "tile_rt_spin", e->t_i32, &e->t_i8p, 1, &e->a_rt);
		LLVMBuildCondBr(e->B, LLVMBuildICmp(e->B, LLVMIntNE, stopped, zero, ""), em_abort_block(e), latch);
		LLVMPositionBuilderAtEnd(e->B, latch);
		LLVMAddIncoming(spins, &spins1, &latch, 1);
	}
	LLVMBuildBr(e->B, bb);
	for (int i = 0; i < n; i++)
		add_incoming(phis[i], ys[i], latch);
	LLVMPositionBuilderAtEnd(e->B, bx);
	for (int i = 0; i < op->nout; i++)
		e->vals[op->results[i]] = outs[i];
}

/* ---- simple ops --------------------------------------------------------------- */

static bool emit_basic(Em *e, const TpOp *op)
{
	LLVMValueRef idx[1];
	switch (op->kind) {
	case TP_PARAM: {
		TpVal r = op->results[0];
		int64_t i = op->attr.i;
		if (i < 0 || i >= e->f->nparams)
			ice(PASS, "param index %lld out of range", (long long)i);
		idx[0] = LLVMConstInt(e->t_i64, (unsigned long long)i, 0);
		LLVMValueRef slot = LLVMBuildGEP2(e->B, e->t_i8p, e->a_args, idx, 1, "");
		LLVMValueRef p = LLVMBuildLoad2(e->B, e->t_i8p, slot, "");
		Type t = tp_type(e->f, r);
		LLVMTypeRef mt = t.dt == DT_I1 ? e->t_i8 : em_scalar_type(e, t);
		p = LLVMBuildBitCast(e->B, p, LLVMPointerType(mt, 0), "");
		LLVMValueRef v = LLVMBuildLoad2(e->B, mt, p, e->f->params[i].name);
		if (t.dt == DT_I1)
			v = LLVMBuildICmp(e->B, LLVMIntNE, v, LLVMConstNull(e->t_i8), "");
		em_set(e, r, v);
		return true;
	}
	case TP_PROGRAM_ID:
	case TP_NUM_PROGRAMS: {
		int ax = op->attr.axis;
		if (ax < 0 || ax > 2)
			ice(PASS, "bad axis %d", ax);
		idx[0] = LLVMConstInt(e->t_i64, (unsigned long long)ax, 0);
		LLVMValueRef base = op->kind == TP_PROGRAM_ID ? e->a_pid : e->a_nprog;
		LLVMValueRef p = LLVMBuildGEP2(e->B, e->t_i32, base, idx, 1, "");
		em_set(e, op->results[0], LLVMBuildLoad2(e->B, e->t_i32, p, ""));
		return true;
	}
	case TP_LANE_ID:
	case TP_WARP_ID: {
		LLVMValueRef l = em_const_int(e, e->t_i32, e->lanes, true);
		LLVMValueRef v = op->kind == TP_LANE_ID ? LLVMBuildURem(e->B, e->tid_vec, l, "")
		                                        : LLVMBuildUDiv(e->B, e->tid_vec, l, "");
		LLVMTypeRef rt = em_scalar_type(e, tp_type(e->f, op->results[0]));
		if (rt != e->t_i32)
			v = LLVMBuildIntCast2(e->B, v, em_vec(e, rt), 0, "");
		em_set(e, op->results[0], v);
		return true;
	}
	case TP_BARRIER: /* lock-step: ops already run in program order for all lanes */
		em_race_barrier(e);
		return true;
	case TP_SREG: { /* one reading for the program's lanes (rt_hooks.c) */
		LLVMTypeRef ps[1] = {e->t_i32};
		LLVMValueRef a[1] = {em_const_int(e, e->t_i32, op->attr.i, false)};
		LLVMValueRef v = em_call(e, "tile_rt_sreg", e->t_i64, ps, 1, a);
		LLVMTypeRef rt = em_scalar_type(e, tp_type(e->f, op->results[0]));
		if (rt != e->t_i64)
			v = LLVMBuildTrunc(e->B, v, rt, "");
		em_set(e, op->results[0], em_splat(e, v));
		return true;
	}
	case TP_CP_ASYNC_COMMIT:
	case TP_CP_ASYNC_WAIT: em_cp_async_sync(e, op); return true;
	case TP_FOR: emit_for(e, op); return true;
	case TP_IF: emit_if(e, op); return true;
	case TP_WHILE: emit_while(e, op); return true;
	default: return false;
	}
}

LLVMValueRef em_lane0(Em *e, TpVal v)
{
	if (!v)
		return NULL;
	if (tp_uniform(e->f, v)) {
		LLVMValueRef x = em_get(e, v);
		return x && !em_is_vec(x) ? x : NULL;
	}
	return e->lane0[v];
}

/* Thread 0's value of a varying integer/pointer result, as scalar ops (so a
 * coalesced access gets its base address without vector arithmetic and an
 * extractelement, which LLVM does not scalarize when the vector has other
 * uses). Unused shadows are removed by O2. */
static void shadow_lane0(Em *e, const TpOp *op)
{
	if (op->nout != 1 || tp_uniform(e->f, op->results[0]))
		return;
	TpVal r = op->results[0];
	Type rt = tp_type(e->f, r);
	if (rt.dt == DT_I1 || !(rt.dt == DT_PTR || dtype_is_int((DType)rt.dt)))
		return;
	LLVMBuilderRef B = e->B;
	LLVMValueRef a = op->nin > 0 ? em_lane0(e, op->operands[0]) : NULL;
	LLVMValueRef b = op->nin > 1 ? em_lane0(e, op->operands[1]) : NULL;
	LLVMValueRef x = NULL;
	switch (op->kind) {
	case TP_LANE_ID:
	case TP_WARP_ID: x = LLVMConstNull(em_scalar_type(e, rt)); break;
	case TP_ADD: x = a && b ? LLVMBuildAdd(B, a, b, "") : NULL; break;
	case TP_SUB: x = a && b ? LLVMBuildSub(B, a, b, "") : NULL; break;
	case TP_MUL: x = a && b ? LLVMBuildMul(B, a, b, "") : NULL; break;
	case TP_AND: x = a && b ? LLVMBuildAnd(B, a, b, "") : NULL; break;
	case TP_OR: x = a && b ? LLVMBuildOr(B, a, b, "") : NULL; break;
	case TP_XOR: x = a && b ? LLVMBuildXor(B, a, b, "") : NULL; break;
	case TP_SHL: x = a && b && LLVMTypeOf(a) == LLVMTypeOf(b) ? LLVMBuildShl(B, a, b, "") : NULL; break;
	case TP_CAST: {
		Type ft = tp_type(e->f, op->operands[0]);
		if (a && rt.dt != DT_PTR && ft.dt != DT_I1 && dtype_is_int((DType)ft.dt))
			x = LLVMBuildIntCast2(B, a, em_scalar_type(e, rt), dtype_is_signed((DType)ft.dt), "");
		break;
	}
	case TP_PTR_ADD: {
		Type pt = tp_type(e->f, op->operands[0]), ot = tp_type(e->f, op->operands[1]);
		if (!a || !b || ot.dt == DT_I1)
			break;
		LLVMValueRef o = LLVMBuildIntCast2(B, b, e->t_i64, dtype_is_signed((DType)ot.dt), "");
		LLVMTypeRef el = pt.elem == DT_VOID ? e->t_i8 : em_storage_type(e, (DType)pt.elem);
		x = LLVMBuildGEP2(B, el, a, &o, 1, "");
		break;
	}
	default: break;
	}
	if (x && LLVMTypeOf(x) == em_scalar_type(e, rt))
		e->lane0[r] = x;
}

static void emit_op(Em *e, const TpOp *op)
{
	if (emit_basic(e, op) || em_arith(e, op) || em_mem(e, op) || em_intrin(e, op)) {
		shadow_lane0(e, op);
		return;
	}
	ice(PASS, "cannot emit op %s", tp_op_name((TpOpKind)op->kind));
}

/* Emits every op of b but its terminator, which it returns (NULL if none). */
static const TpOp *emit_block(Em *e, const TpBlock *b)
{
	for (int i = 0; i < b->nops; i++) {
		const TpOp *op = b->ops[i];
		if (tp_op_flags((TpOpKind)op->kind) & TF_TERM)
			return op;
		emit_op(e, op);
	}
	return NULL;
}

/* ---- module setup -------------------------------------------------------------- */

static void init_types(Em *e)
{
	e->t_void = LLVMVoidTypeInContext(e->C);
	e->t_i1 = LLVMInt1TypeInContext(e->C);
	e->t_i8 = LLVMInt8TypeInContext(e->C);
	e->t_i16 = LLVMInt16TypeInContext(e->C);
	e->t_i32 = LLVMInt32TypeInContext(e->C);
	e->t_i64 = LLVMInt64TypeInContext(e->C);
	e->t_f32 = LLVMFloatTypeInContext(e->C);
	e->t_f64 = LLVMDoubleTypeInContext(e->C);
	e->t_i8p = LLVMPointerType(e->t_i8, 0);
}

static void add_attr(Em *e, LLVMValueRef fn, unsigned idx, const char *name)
{
	unsigned k = LLVMGetEnumAttributeKindForName(name, strlen(name));
	LLVMAddAttributeAtIndex(fn, idx, LLVMCreateEnumAttribute(e->C, k, 0));
}

static void build_function(Em *e)
{
	const TpFunc *f = e->f;
	LLVMTypeRef i32p = LLVMPointerType(e->t_i32, 0);
	LLVMTypeRef ps[5] = {LLVMPointerType(e->t_i8p, 0), i32p, i32p, e->t_i8p, e->t_i8p};
	LLVMTypeRef fty = LLVMFunctionType(e->t_void, ps, 5, 0);
	e->fn = LLVMAddFunction(e->M, f->name, fty);
	add_attr(e, e->fn, LLVMAttributeFunctionIndex, "nounwind");
	for (unsigned i = 1; i <= 3; i++)
		add_attr(e, e->fn, i, "nocapture");
	e->a_args = LLVMGetParam(e->fn, 0);
	e->a_pid = LLVMGetParam(e->fn, 1);
	e->a_nprog = LLVMGetParam(e->fn, 2);
	e->a_smem = LLVMGetParam(e->fn, 3);
	e->a_rt = LLVMGetParam(e->fn, 4);
	e->entry = new_bb(e, "entry");
	LLVMPositionBuilderAtEnd(e->B, e->entry);
	LLVMValueRef *el = malloc(sizeof(LLVMValueRef) * (size_t)e->T);
	for (int i = 0; i < e->T; i++)
		el[i] = LLVMConstInt(e->t_i32, (unsigned long long)i, 0);
	/* tid = iota + an opaque zero: with constant lane ids LLVM folds every
	 * register's coordinates into a distinct constant vector, and the code
	 * generator's constant pool is searched linearly for each one (60% of
	 * the compile time of a 16384-wide row kernel); this way they stay
	 * splats added to one vector. */
	LLVMTypeRef zty = LLVMFunctionType(e->t_i32, &e->t_i32, 1, 0);
	LLVMValueRef zasm = LLVMGetInlineAsm(zty, "", 0, "=r,0", 4, 0, 0,
	                                     LLVMInlineAsmDialectATT, 0);
	LLVMValueRef zarg = LLVMConstInt(e->t_i32, 0, 0);
	LLVMValueRef zero = LLVMBuildCall2(e->B, zty, zasm, &zarg, 1, "tile.opaque0");
	e->tid_vec = LLVMBuildAdd(e->B, LLVMConstVector(el, (unsigned)e->T), em_splat(e, zero), "tid");
	free(el);
	em_cp_async_setup(e);
	em_race_setup(e);
	const TpOp *t = emit_block(e, f->body);
	if (t && t->kind != TP_RETURN)
		ice(PASS, "kernel body must end in return");
	if (e->abort_bb) { /* the end and a failed assert share the exit */
		LLVMBuildBr(e->B, e->abort_bb);
		LLVMPositionBuilderAtEnd(e->B, e->abort_bb);
	}
	em_cp_async_fini(e); /* the one exit: copies still in flight land, the queue is freed */
	em_race_fini(e);     /* after the copies landed */
	LLVMBuildRetVoid(e->B);
}

typedef struct EmitJob {
	Em *e;
	EmitWhat what;
	DiagSink *diags;
	EmitResult *out;
	bool ok;
} EmitJob;

static void emit_job(void *arg)
{
	EmitJob *j = arg;
	Em *e = j->e;
	build_function(e);
	em_verify_module(e->M, "as built");
	j->ok = em_backend(e, j->what, j->diags, j->out);
}

bool emit_llvm(const TpFunc *f, EmitWhat what, DiagSink *diags, EmitResult *out)
{
	return emit_llvm_with(f, what, NULL, diags, out);
}

bool emit_llvm_with(const TpFunc *f, EmitWhat what, const EmitCpuOptions *o, DiagSink *diags,
                    EmitResult *out)
{
	memset(out, 0, sizeof *out);
	out->registers = out->spill_bytes = -1;
	if (what != EMIT_BINARY && what != EMIT_LLVM_IR && what != EMIT_ASM) {
		diag_error(diags, (SrcLoc){0}, "the cpu target cannot emit this form");
		return false;
	}
	llvm_targets_init();
	Em e = {0};
	e.f = f;
	e.lanes = f->lanes_per_warp > 0 ? f->lanes_per_warp : 1;
	e.T = (f->num_warps > 0 ? f->num_warps : 1) * e.lanes;
	e.lane_calls = em_wants_lane_calls(f, false);
	e.smem_lane_calls = em_wants_lane_calls(f, true);
	char *feat = LLVMGetHostCPUFeatures();
	e.native_scatter = feat && strstr(feat, "+avx512f");
	bool soft = o && o->soft_f16;
	e.f16_narrow_x86 = !soft && feat && strstr(feat, "+f16c");
	e.f16_widen_x86 = !soft && e.native_scatter;
	LLVMDisposeMessage(feat);
	double t0 = now_seconds();
	e.C = LLVMContextCreate();
	e.M = LLVMModuleCreateWithNameInContext(f->name, e.C);
	e.B = LLVMCreateBuilderInContext(e.C);
	e.vals = xcalloc(f->vals.len + 1, sizeof(LLVMValueRef));
	e.lane0 = xcalloc(f->vals.len + 1, sizeof(LLVMValueRef));
	init_types(&e);
	EmitJob job = {&e, what, diags, out, false};
	char *msg = NULL;
	int rc = ice_protect(emit_job, &job, &msg);
	free(e.vals);
	free(e.lane0);
	LLVMDisposeBuilder(e.B);
	LLVMDisposeModule(e.M);
	LLVMContextDispose(e.C);
	if (rc) {
		diag_error(diags, (SrcLoc){0}, "%s",
		           msg ? msg : "internal compiler error in emit_llvm");
		free(msg);
		emit_result_free(out);
		return false;
	}
	/* seconds_codegen: the whole backend: IR construction, O2, code generation */
	out->seconds_codegen = now_seconds() - t0;
	return job.ok;
}

/* Shared by every emitter (declared in emit.h); lives here because the CPU
 * emitter is always built. */
void emit_result_free(EmitResult *r)
{
	if (!r)
		return;
	free(r->binary);
	free(r->text);
	r->binary = NULL;
	r->text = NULL;
	r->binary_len = 0;
}

/* emit_llvm_atomic.c: atomics of the CPU emitter. Atomics on varying pointers
 * run lane by lane in lane order; float atomics that LLVM has no atomicrmw for
 * (min/max, 16-bit floats) are compare-and-swap loops.
 */
#include "codegen/emit_llvm_internal.h"

static const char PASS[] = "emit_llvm";

/* New value of a float read-modify-write from old `a` and operand `v`, both
 * f32 (f16/bf16 widened: exact, and f32 then f16 rounding of a sum is
 * correctly rounded) or f64. min/max are Triton's: it lowers a float
 * atomic_max to atomic_max of the signed bits for a v with the sign bit clear
 * and atomic_umin of the unsigned bits for one with it set (semantic.py), which
 * orders the values by their bits as -NaN < -inf < ... < -0.0 < +0.0 < ... <
 * +inf < +NaN: here the bits turned into a key that orders so as a signed
 * integer (the magnitude bits of a negative value flipped), compared. */
static LLVMValueRef float_rmw(Em *e, AtomicOp op, LLVMValueRef a, LLVMValueRef v)
{
	LLVMBuilderRef B = e->B;
	if (op == ATOM_ADD)
		return LLVMBuildFAdd(B, a, v, "");
	bool mx = op == ATOM_MAX;
	unsigned w = LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMDoubleTypeKind ? 64 : 32;
	LLVMTypeRef it = LLVMIntTypeInContext(e->C, w);
	LLVMValueRef k[2], x[2] = {a, v};
	for (int i = 0; i < 2; i++) {
		LLVMValueRef b = LLVMBuildBitCast(B, x[i], it, "");
		LLVMValueRef s = LLVMBuildAShr(B, b, LLVMConstInt(it, w - 1, 0), "");
		LLVMValueRef m = LLVMBuildAnd(B, s, LLVMConstInt(it, w == 64 ? INT64_MAX : INT32_MAX, 0), "");
		k[i] = LLVMBuildXor(B, b, m, "");
	}
	LLVMValueRef take = LLVMBuildICmp(B, mx ? LLVMIntSGT : LLVMIntSLT, k[1], k[0], "");
	return LLVMBuildSelect(B, take, v, a, "");
}

/* A float RMW that LLVM has no atomicrmw for (min/max, 16-bit floats): a
 * compare-and-swap loop on the integer bits. Returns the old value. */
static LLVMValueRef float_cas_loop(Em *e, AtomicOp op, DType d, LLVMValueRef p, LLVMValueRef v)
{
	LLVMBuilderRef B = e->B;
	int bits = dtype_bits(d);
	LLVMTypeRef it = LLVMIntTypeInContext(e->C, (unsigned)bits);
	LLVMTypeRef ft = d == DT_F64 ? e->t_f64 : e->t_f32;
	bool narrow = d != DT_F32 && d != DT_F64; /* carried as i16, computed in f32 */
	p = LLVMBuildBitCast(B, p, LLVMPointerType(it, 0), "");
	LLVMValueRef vf = narrow ? em_to_f32(e, v, d) : v;
	LLVMValueRef first = LLVMBuildLoad2(B, it, p, "");
	LLVMSetOrdering(first, LLVMAtomicOrderingMonotonic);
	LLVMSetAlignment(first, (unsigned)bits / 8);
	LLVMBasicBlockRef pre = LLVMGetInsertBlock(B);
	LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(e->C, e->fn, "at.cas");
	LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(e->C, e->fn, "at.casend");
	LLVMBuildBr(B, loop);
	LLVMPositionBuilderAtEnd(B, loop);
	LLVMValueRef cur = LLVMBuildPhi(B, it, "");
	LLVMValueRef af = narrow ? em_to_f32(e, cur, d) : LLVMBuildBitCast(B, cur, ft, "");
	LLVMValueRef n = float_rmw(e, op, af, vf);
	LLVMValueRef nb = narrow ? em_from_f32(e, n, d, false) : LLVMBuildBitCast(B, n, it, "");
	LLVMValueRef x =
	        LLVMBuildAtomicCmpXchg(B, p, cur, nb, LLVMAtomicOrderingSequentiallyConsistent,
	                               LLVMAtomicOrderingSequentiallyConsistent, 0);
	LLVMValueRef got = LLVMBuildExtractValue(B, x, 0, "");
	LLVMBuildCondBr(B, LLVMBuildExtractValue(B, x, 1, ""), done, loop);
	LLVMValueRef in[2] = {first, got};
	LLVMBasicBlockRef bb[2] = {pre, loop};
	LLVMAddIncoming(cur, in, bb, 2);
	LLVMPositionBuilderAtEnd(B, done);
	return narrow ? cur : LLVMBuildBitCast(B, cur, ft, "");
}

/* One atomic on a scalar pointer; may end in a new block (CAS loops). */
static LLVMValueRef atomic_one(Em *e, const TpOp *op, DType d, LLVMValueRef p, LLVMValueRef v,
                               LLVMValueRef c)
{
	LLVMBuilderRef B = e->B;
	if (op->kind == TP_ATOMIC_CAS) {
		LLVMTypeRef it = LLVMIntTypeInContext(e->C, (unsigned)dtype_bits(d));
		bool fl = dtype_is_float(d);
		if (fl) {
			p = LLVMBuildBitCast(B, p, LLVMPointerType(it, 0), "");
			v = LLVMBuildBitCast(B, v, it, "");
			c = LLVMBuildBitCast(B, c, it, "");
		}
		LLVMValueRef x =
		        LLVMBuildAtomicCmpXchg(B, p, c, v, LLVMAtomicOrderingSequentiallyConsistent,
		                               LLVMAtomicOrderingSequentiallyConsistent, 0);
		LLVMValueRef old = LLVMBuildExtractValue(B, x, 0, "");
		return fl ? LLVMBuildBitCast(B, old, em_storage_type(e, d), "") : old;
	}
	LLVMAtomicRMWBinOp bop;
	AtomicOp a = (AtomicOp)op->attr.atomic;
	bool fl = dtype_is_float(d), sg = dtype_is_signed(d);
	switch (a) {
	case ATOM_ADD: bop = fl ? LLVMAtomicRMWBinOpFAdd : LLVMAtomicRMWBinOpAdd; break;
	case ATOM_MAX: bop = sg ? LLVMAtomicRMWBinOpMax : LLVMAtomicRMWBinOpUMax; break;
	case ATOM_MIN: bop = sg ? LLVMAtomicRMWBinOpMin : LLVMAtomicRMWBinOpUMin; break;
	case ATOM_XCHG: bop = LLVMAtomicRMWBinOpXchg; break;
	case ATOM_AND: bop = LLVMAtomicRMWBinOpAnd; break;
	case ATOM_OR: bop = LLVMAtomicRMWBinOpOr; break;
	case ATOM_XOR: bop = LLVMAtomicRMWBinOpXor; break;
	default: ice(PASS, "bad atomic op %d", op->attr.atomic);
	}
	if (fl && a != ATOM_XCHG &&
	    (a == ATOM_MAX || a == ATOM_MIN || (d != DT_F32 && d != DT_F64))) {
		if (a != ATOM_ADD && a != ATOM_MAX && a != ATOM_MIN)
			ice(PASS, "bitwise atomic on %s", dtype_name(d));
		if (dtype_bits(d) < 16)
			ice(PASS, "atomics on %s are not supported on the cpu yet", dtype_name(d));
		return float_cas_loop(e, a, d, p, v);
	}
	/* xchg of f16/bf16 moves the i16 bits */
	return LLVMBuildAtomicRMW(B, bop, p, v, LLVMAtomicOrderingSequentiallyConsistent, 0);
}

/* Result j of an atomic: element j of the group at p, value v (and
 * compare value c), under the op's mask. */
static void emit_atomic_elem(Em *e, const TpOp *op, int j, LLVMValueRef p, LLVMValueRef v,
                             LLVMValueRef c)
{
	LLVMBuilderRef B = e->B;
	TpVal r = op->results[j];
	DType d = (DType)tp_type(e->f, r).dt;
	LLVMTypeRef st = em_storage_type(e, d);
	TpVal mask = op->operands[op->nin - 1];
	if (em_all_uniform(e, op->operands, op->nin)) {
		LLVMValueRef m = mask ? em_get(e, mask) : NULL;
		if (!m || em_is_true_const(m)) {
			em_set(e, r, atomic_one(e, op, d, p, v, c));
			return;
		}
		LLVMBasicBlockRef pre = LLVMGetInsertBlock(B);
		LLVMBasicBlockRef bt = LLVMAppendBasicBlockInContext(e->C, e->fn, "at.then");
		LLVMBasicBlockRef bj = LLVMAppendBasicBlockInContext(e->C, e->fn, "at.end");
		LLVMBuildCondBr(B, m, bt, bj);
		LLVMPositionBuilderAtEnd(B, bt);
		LLVMValueRef old = atomic_one(e, op, d, p, v, c);
		LLVMBasicBlockRef bt_end = LLVMGetInsertBlock(B);
		LLVMBuildBr(B, bj);
		LLVMPositionBuilderAtEnd(B, bj);
		LLVMValueRef phi = LLVMBuildPhi(B, st, "");
		LLVMValueRef in[2] = {old, LLVMConstNull(st)};
		LLVMBasicBlockRef bb[2] = {bt_end, pre};
		LLVMAddIncoming(phi, in, bb, 2);
		em_set(e, r, phi);
		return;
	}
	/* lane loop: for (i = 0; i < T; i++) if (mask[i]) res[i] = atomic(p[i], v[i]) */
	p = em_splat(e, p);
	v = em_splat(e, v);
	c = c ? em_splat(e, c) : NULL;
	LLVMValueRef m = em_mask_vec(e, mask);
	LLVMBasicBlockRef pre = LLVMGetInsertBlock(B);
	LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(e->C, e->fn, "at.lane");
	LLVMBasicBlockRef doit = LLVMAppendBasicBlockInContext(e->C, e->fn, "at.do");
	LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(e->C, e->fn, "at.next");
	LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(e->C, e->fn, "at.exit");
	LLVMBuildBr(B, head);
	LLVMPositionBuilderAtEnd(B, head);
	LLVMValueRef i = LLVMBuildPhi(B, e->t_i32, "");
	LLVMValueRef res = LLVMBuildPhi(B, em_vec(e, st), "");
	LLVMValueRef on = m ? LLVMBuildExtractElement(B, m, i, "") : LLVMConstInt(e->t_i1, 1, 0);
	LLVMBuildCondBr(B, on, doit, next);
	LLVMPositionBuilderAtEnd(B, doit);
	LLVMValueRef old = atomic_one(e, op, d, LLVMBuildExtractElement(B, p, i, ""),
	                              LLVMBuildExtractElement(B, v, i, ""),
	                              c ? LLVMBuildExtractElement(B, c, i, "") : NULL);
	LLVMValueRef res2 = LLVMBuildInsertElement(B, res, old, i, "");
	LLVMBasicBlockRef doit_end = LLVMGetInsertBlock(B);
	LLVMBuildBr(B, next);
	LLVMPositionBuilderAtEnd(B, next);
	LLVMValueRef rn = LLVMBuildPhi(B, em_vec(e, st), "");
	LLVMValueRef rin[2] = {res2, res};
	LLVMBasicBlockRef rbb[2] = {doit_end, head};
	LLVMAddIncoming(rn, rin, rbb, 2);
	LLVMValueRef i2 = LLVMBuildAdd(B, i, em_const_int(e, e->t_i32, 1, false), "");
	LLVMValueRef more = LLVMBuildICmp(B, LLVMIntULT, i2, em_const_int(e, e->t_i32, e->T, false), "");
	LLVMBuildCondBr(B, more, head, exit);
	LLVMValueRef iin[2] = {em_const_int(e, e->t_i32, 0, false), i2}, resin[2] = {LLVMConstNull(em_vec(e, st)), rn};
	LLVMBasicBlockRef ibb[2] = {pre, next};
	LLVMAddIncoming(i, iin, ibb, 2);
	LLVMAddIncoming(res, resin, ibb, 2);
	LLVMPositionBuilderAtEnd(B, exit);
	em_set(e, r, rn);
}

/* operands: ATOMIC (ptr, val0..valN-1, mask), N consecutive elements, one
 * atomic each (the GPU's vector atom is atomic per element too);
 * ATOMIC_CAS (ptr, cmp, val, mask) */
void em_atomic(Em *e, const TpOp *op)
{
	bool cas = op->kind == TP_ATOMIC_CAS;
	LLVMValueRef p = em_get(e, op->operands[0]);
	if (cas) {
		emit_atomic_elem(e, op, 0, p, em_get(e, op->operands[2]), em_get(e, op->operands[1]));
		return;
	}
	DType d = (DType)tp_type(e->f, op->results[0]).dt;
	for (int j = 0; j < op->nout; j++) {
		LLVMValueRef pj = p;
		if (j) {
			LLVMValueRef o = LLVMConstInt(e->t_i64, (unsigned long long)j, 0);
			pj = LLVMBuildGEP2(e->B, em_storage_type(e, d), p, &o, 1, "");
		}
		emit_atomic_elem(e, op, j, pj, em_get(e, op->operands[1 + j]), NULL);
	}
}

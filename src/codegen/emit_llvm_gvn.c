/* emit_llvm_gvn.c: whether a module is too branchy for LLVM's GVN.
 *
 * GVN propagates the equality an edge implies (`if n == 7:` makes n 7 in the
 * then block): for each such edge it visits every use of n and asks the
 * dominator tree whether the edge dominates it. Over k branches that test
 * the same value that is k^2 queries: a kernel of 5000 `if n == i:` spent
 * 45 of its 46 CPU seconds of passes in GVN (2000: 2.4 s), where EarlyCSE,
 * which merges what GVN would except partial redundancies, takes 0.2 s.
 * em_backend() (emit_llvm_backend.c) runs EarlyCSE in GVN's place past
 * GVN_EQ_BRANCHES such branches on one value. */
#include "codegen/emit_llvm_internal.h"

#include <stdint.h>
#include <stdlib.h>

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t) * (void *const *)a, y = (uintptr_t) * (void *const *)b;
	return x < y ? -1 : x > y;
}

/* The value a branch or switch tests for equality with a constant, or NULL. */
static LLVMValueRef eq_tested(LLVMValueRef term)
{
	LLVMOpcode op = LLVMGetInstructionOpcode(term);
	if (op == LLVMSwitch)
		return LLVMGetOperand(term, 0);
	if (op != LLVMBr || !LLVMIsConditional(term))
		return NULL;
	LLVMValueRef c = LLVMGetCondition(term);
	if (!LLVMIsAICmpInst(c))
		return NULL;
	LLVMIntPredicate p = LLVMGetICmpPredicate(c);
	if (p != LLVMIntEQ && p != LLVMIntNE)
		return NULL;
	LLVMValueRef a = LLVMGetOperand(c, 0), b = LLVMGetOperand(c, 1);
	return LLVMIsConstant(b) ? a : LLVMIsConstant(a) ? b : NULL;
}

size_t em_eq_branch_fanout(LLVMModuleRef M)
{
	LLVMValueRef *v = NULL;
	size_t n = 0, cap = 0, best = 0;
	for (LLVMValueRef f = LLVMGetFirstFunction(M); f; f = LLVMGetNextFunction(f))
		for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b)) {
			LLVMValueRef t = LLVMGetBasicBlockTerminator(b), x = t ? eq_tested(t) : NULL;
			if (!x || LLVMIsConstant(x))
				continue;
			/* a switch: one equality edge per case */
			unsigned k = LLVMGetInstructionOpcode(t) == LLVMSwitch ? LLVMGetNumSuccessors(t) - 1 : 1;
			for (unsigned i = 0; i < k; i++) {
				if (n == cap) {
					cap = cap ? 2 * cap : 256;
					v = xrealloc(v, cap * sizeof *v);
				}
				v[n++] = x;
			}
		}
	if (n)
		qsort(v, n, sizeof *v, cmp_ptr);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && v[j] == v[i]; j++) {}
		if (j - i > best)
			best = j - i;
	}
	free(v);
	return best;
}

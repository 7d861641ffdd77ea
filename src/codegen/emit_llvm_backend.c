/* emit_llvm_backend.c: the CPU emitter's module -> optimized IR, assembly or
 * a host object.
 *
 * Requires: a module built by emit_llvm.c (one kernel function, already
 * vectorized over the threads).
 * Guarantees: em_backend runs our pass list (lighter ones for big kernels),
 * splits huge blocks, bounds the stack frame, and generates code at -O2 or,
 * past a size, -O0; em_verify_module turns invalid IR into an ice().
 */
#include "codegen/emit_llvm_internal.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <stdlib.h>
#include <string.h>

static const char PASS[] = "emit_llvm";

static LLVMTargetMachineRef host_tm(LLVMCodeGenOptLevel level, char **err)
{
	char *triple = LLVMGetDefaultTargetTriple();
	LLVMTargetRef tgt;
	LLVMTargetMachineRef tm = NULL;
	if (!LLVMGetTargetFromTriple(triple, &tgt, err)) {
		char *cpu = LLVMGetHostCPUName(), *feat = LLVMGetHostCPUFeatures();
		tm = LLVMCreateTargetMachine(tgt, triple, cpu, feat, level, LLVMRelocPIC,
		                             LLVMCodeModelDefault);
		LLVMDisposeMessage(cpu);
		LLVMDisposeMessage(feat);
	}
	LLVMDisposeMessage(triple);
	return tm;
}

/* The IR we build is already vectorized (one vector element per thread),
 * unrolled where it matters (lowering unrolls register loops and the FMA
 * k-loop) and has one kernel function, so most of default<O2> (loop and SLP
 * vectorizers, full unrolling, the whole CGSCC simplification pipeline) only
 * costs time: O2 took 1.6 s for a 32x32x32 fp32 matmul and minutes for fp16
 * flash attention, this list 0.5 s and 16 s. Measured with callgrind: softmax
 * and vector add execute the same number of instructions as under O2; the fp32
 * matmul (FMA path) about 45% more, because the lane loops of its gathers are
 * not fully unrolled; adding loop-unroll gets that back but makes its compile
 * 4x slower. What the list keeps: inlining of our helpers, scalar replacement
 * of the lane-loop arrays, CSE, instcombine, loop-invariant hoisting of
 * address arithmetic, GVN, dead code and store elimination. */
#define CPU_PASSES_GVN(gvn)                                                               \
	"cgscc(inline),function(sroa,early-cse<memssa>,simplifycfg,instcombine,"            \
	"loop-mssa(licm)," gvn ",instcombine,simplifycfg,dse,adce)"
#define CPU_PASSES CPU_PASSES_GVN("gvn")

/* For a kernel over BIG_KERNEL_INSTRS machine operations before the passes,
 * GVN leaves loads alone (no memory dependence analysis): its non-local
 * queries translate every address through the predecessors (PHITransAddr),
 * scanning the uses of the address's operands, which is quadratic when
 * thousands of loads share a base. early-cse<memssa> before it still removes
 * the redundant loads within a block, which is where ours are. Measured on 2
 * cores: triton_kernels' _compute_writeback_idx at BLOCK_M=512 (1.1M
 * operations) 13.9 s -> 8.4 s, lightllm's token_att2_int8v at BLOCK_N=512
 * (460k) 5.0 s -> 3.4 s, both with the same object code size. */
#define CPU_PASSES_BIG CPU_PASSES_GVN("gvn<no-memdep>")

/* Past this many branches testing one value for equality, EarlyCSE instead
 * of GVN, which is quadratic in them (emit_llvm_gvn.c). */
enum { GVN_EQ_BRANCHES = 256 };
#define CPU_PASSES_NO_GVN CPU_PASSES_GVN("early-cse")

/* Over BIG_KERNEL_INSTRS machine operations (IR instructions, a vector
 * counted once per 8 lanes) the passes are the lighter list (above). */
enum { BIG_KERNEL_INSTRS = 50000 };

/* Over this many machine operations after the passes the machine code is
 * generated at -O0 (FastISel and the fast register allocator): the greedy
 * allocator's spill placement is superlinear in the values live across the
 * kernel. CPU seconds at -O2 / -O0 (user time, 2 cores), sglang kernels:
 * 13.6k ops 0.38 / 0.14, 21k 0.96 / 0.25, 34k 2.6 / 0.43, 44k 4.1 / 0.51,
 * a LoRA shrink of 42k 8.1 / 0.47; Liger's jsd (137k) 19.6 / 2.7 s wall. The
 * -O0 code runs about 2x slower (an fp16 matmul of 64x64x32 tiles, 23k: 0.84
 * vs 0.38 s at 1536^3), which the CPU target, there to develop and check
 * kernels, takes for compiles that stay near a second. */
enum { FAST_CODEGEN_INSTRS = 16000 };

/* About how many machine instructions one IR instruction of this result type
 * becomes: a vector wider than 8 lanes is split into 8-lane pieces. */
static size_t machine_ops(LLVMTypeRef t)
{
	if (LLVMGetTypeKind(t) != LLVMVectorTypeKind)
		return 1;
	unsigned lanes = LLVMGetVectorSize(t);
	return lanes > 8 ? lanes / 8 : 1;
}

static size_t count_instructions(LLVMModuleRef M)
{
	size_t n = 0;
	for (LLVMValueRef f = LLVMGetFirstFunction(M); f; f = LLVMGetNextFunction(f))
		for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
			for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i))
				n += machine_ops(LLVMTypeOf(i));
	return n;
}

/* Straight-line code longer than this (in machine operations: a vector
 * counts once per 8 lanes) is cut into blocks of about SPLIT_CHUNK before
 * machine code generation: instruction selection works one block at a time
 * and both register allocators are superlinear in block size. A kernel
 * unrolled over its registers is one block of up to ~100k instructions
 * (lightllm's fp16 rotary: 88k, 24 s of llc -O0, half of it in the fast
 * register allocator). */
enum { SPLIT_OVER = 4000, SPLIT_CHUNK = 1500 };

/* successors' phis name `from` as a predecessor: rebuild them with `to` (the C
 * API cannot change a phi's incoming block) */
static void retarget_phis(LLVMBuilderRef B, LLVMBasicBlockRef succ, LLVMBasicBlockRef from,
                          LLVMBasicBlockRef to)
{
	LLVMValueRef i = LLVMGetFirstInstruction(succ);
	while (i && LLVMGetInstructionOpcode(i) == LLVMPHI) {
		LLVMValueRef next = LLVMGetNextInstruction(i);
		unsigned n = LLVMCountIncoming(i);
		bool hit = false;
		for (unsigned k = 0; k < n; k++)
			hit |= LLVMGetIncomingBlock(i, k) == from;
		if (hit) {
			LLVMPositionBuilderBefore(B, i);
			LLVMValueRef phi = LLVMBuildPhi(B, LLVMTypeOf(i), "");
			for (unsigned k = 0; k < n; k++) {
				LLVMValueRef v = LLVMGetIncomingValue(i, k);
				LLVMBasicBlockRef b = LLVMGetIncomingBlock(i, k);
				if (b == from)
					b = to;
				LLVMAddIncoming(phi, &v, &b, 1);
			}
			LLVMReplaceAllUsesWith(i, phi);
			LLVMInstructionEraseFromParent(i);
		}
		i = next;
	}
}

/* ice() with the message and the module's tail if M is not valid IR */
void em_verify_module(LLVMModuleRef M, const char *when)
{
	char *msg = NULL;
	if (LLVMVerifyModule(M, LLVMReturnStatusAction, &msg)) {
		char *ir = LLVMPrintModuleToString(M);
		size_t n = strlen(ir);
		char *keep = xstrdup(n > 4000 ? ir + n - 4000 : ir);
		LLVMDisposeMessage(ir);
		ice(PASS, "invalid LLVM module %s: %s\n%s", when, msg, keep);
	}
	LLVMDisposeMessage(msg);
}

/* returns whether any block was split */
static bool split_big_blocks(LLVMContextRef C, LLVMModuleRef M)
{
	bool split = false;
	LLVMBuilderRef B = LLVMCreateBuilderInContext(C);
	for (LLVMValueRef f = LLVMGetFirstFunction(M); f; f = LLVMGetNextFunction(f)) {
		LLVMBasicBlockRef entry = LLVMCountBasicBlocks(f) ? LLVMGetEntryBasicBlock(f) : NULL;
		for (LLVMBasicBlockRef bb = entry; bb; bb = LLVMGetNextBasicBlock(bb)) {
			/* machine operations after the last phi/alloca, and the first
			 * instruction there */
			size_t n = 0;
			LLVMValueRef at = NULL;
			for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
				LLVMOpcode o = LLVMGetInstructionOpcode(i);
				if (o == LLVMPHI || o == LLVMAlloca) {
					n = 0;
					at = NULL;
				} else {
					n += machine_ops(LLVMTypeOf(i));
					if (!at)
						at = i;
				}
			}

			if (n <= SPLIT_OVER)
				continue;
			/* every chunk after bb's own first moves once, in order, into
			 * a new block that the previous one branches to (moving the
			 * whole tail again per chunk was quadratic) */
			for (size_t k = 0; k < SPLIT_CHUNK; at = LLVMGetNextInstruction(at))
				k += machine_ops(LLVMTypeOf(at));
			LLVMBasicBlockRef last = bb;
			while (at) {
				LLVMBasicBlockRef blk = LLVMAppendBasicBlockInContext(C, f, "");
				LLVMMoveBasicBlockAfter(blk, last);
				LLVMPositionBuilderAtEnd(B, blk);
				for (size_t k = 0; at && k < SPLIT_CHUNK;) {
					LLVMValueRef next = LLVMGetNextInstruction(at);
					k += machine_ops(LLVMTypeOf(at));
					LLVMInstructionRemoveFromParent(at);
					LLVMInsertIntoBuilder(B, at);
					at = next;
				}
				last = blk;
			}
			/* chain them once all have moved (a branch added earlier would
			 * sit behind the instructions still to move) */
			for (LLVMBasicBlockRef q = bb; q != last; q = LLVMGetNextBasicBlock(q)) {
				LLVMPositionBuilderAtEnd(B, q);
				LLVMBuildBr(B, LLVMGetNextBasicBlock(q));
			}
			LLVMValueRef term = LLVMGetBasicBlockTerminator(last);
			for (unsigned k = 0; term && k < LLVMGetNumSuccessors(term); k++)
				retarget_phis(B, LLVMGetSuccessor(term, k), bb, last);
			bb = last;
			split = true;
		}
	}
	LLVMDisposeBuilder(B);
	return split;
}

/* ---- the stack bound ---------------------------------------------------------- */

/* Bytes of the stack slots one IR value can take in machine code: a scalar
 * lives in one general or scalar floating-point register (8 bytes, or its
 * size if bigger); a vector is split into register-sized parts (no bigger
 * in total) or widened to a 16-byte register, a lane of an i1 vector (a
 * comparison result) may be as wide as the compared elements (8 bytes at
 * most) and a half or bfloat lane is computed as a float. */
static uint64_t slot_bytes(LLVMTargetDataRef td, LLVMTypeRef t)
{
	LLVMTypeKind k = LLVMGetTypeKind(t);
	if (k == LLVMVoidTypeKind || k == LLVMLabelTypeKind || k == LLVMTokenTypeKind ||
	    k == LLVMMetadataTypeKind)
		return 0;
	if (k != LLVMVectorTypeKind) {
		uint64_t n = LLVMStoreSizeOfType(td, t);
		return n > 8 ? n : 8;
	}
	LLVMTypeRef el = LLVMGetElementType(t);
	LLVMTypeKind ek = LLVMGetTypeKind(el);
	uint64_t lane = LLVMStoreSizeOfType(td, el);
	if (ek == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(el) == 1)
		lane = 8;
	else if (ek == LLVMHalfTypeKind || ek == LLVMBFloatTypeKind)
		lane = 4;
	uint64_t n = (uint64_t)LLVMGetVectorSize(t) * lane;
	return n > 16 ? n : 16;
}

/* the stack temporary of a call argument or result of type t when it is
 * passed in memory (vectors wider than the vector registers, aggregates) */
static uint64_t by_memory_bytes(LLVMTargetDataRef td, LLVMTypeRef t)
{
	LLVMTypeKind k = LLVMGetTypeKind(t);
	return k == LLVMVectorTypeKind || k == LLVMStructTypeKind || k == LLVMArrayTypeKind
	               ? slot_bytes(td, t)
	               : 0;
}

/* Bytes of stack slots that lowering instruction i (opcode op) may add
 * beyond the slot of its result. A phi gets a second value after PHI
 * elimination, the one the copies in its predecessors define (the per-lane
 * code of a masked load is a phi and an insert per lane, each the whole
 * vector). Instruction selection stores to the stack a vector that
 * extractelement/insertelement index with a variable, or that a bitcast
 * reinterprets. A call may pass a vector or aggregate argument or result
 * through memory (x86-64 without AVX-512 passes a 64-byte vector by
 * reference; intrinsics are expanded in place). An atomic may become a
 * compare-exchange loop with a few values of its type. */
static uint64_t temp_bytes(LLVMTargetDataRef td, LLVMValueRef i, LLVMOpcode op)
{
	LLVMTypeRef t0 = LLVMGetNumOperands(i) > 0 ? LLVMTypeOf(LLVMGetOperand(i, 0)) : NULL;
	switch (op) {
	case LLVMExtractElement:
		return LLVMIsAConstantInt(LLVMGetOperand(i, 1)) ? 0 : slot_bytes(td, t0);
	case LLVMInsertElement:
		return LLVMIsAConstantInt(LLVMGetOperand(i, 2)) ? 0 : slot_bytes(td, t0);
	case LLVMBitCast:
		return LLVMGetTypeKind(LLVMTypeOf(i)) == LLVMVectorTypeKind ||
		                       LLVMGetTypeKind(t0) == LLVMVectorTypeKind
		               ? slot_bytes(td, t0)
		               : 0;
	case LLVMPHI: return slot_bytes(td, LLVMTypeOf(i));
	case LLVMAtomicRMW:
	case LLVMAtomicCmpXchg: return 4 * slot_bytes(td, LLVMTypeOf(LLVMGetOperand(i, 1)));
	case LLVMCall: {
		LLVMValueRef callee = LLVMGetCalledValue(i);
		size_t len = 0;
		const char *name = LLVMIsAFunction(callee) ? LLVMGetValueName2(callee, &len) : "";
		if (len >= 5 && !strncmp(name, "llvm.", 5))
			return 0;
		uint64_t n = by_memory_bytes(td, LLVMTypeOf(i));
		for (unsigned k = 0, na = LLVMGetNumArgOperands(i); k < na; k++)
			n += by_memory_bytes(td, LLVMTypeOf(LLVMGetOperand(i, k)));
		return n;
	}
	default: return 0;
	}
}

/* An upper bound of the stack one call of the kernel takes, its own frame
 * and those of the functions of M it calls (library and runtime functions
 * are the launcher's margin: see cpu_launch.h). Computed on the module as
 * code generation receives it (masked memory intrinsics the host has no
 * instruction for already expanded per lane), without looking at machine
 * code: every parameter and instruction result may get its own spill slot
 * (the -O0 fast register allocator gives each value it spills one, and
 * spills every value live across a call or a block boundary), every alloca
 * its own object, and some instructions more (temp_bytes). Summed over all
 * functions, as none recurses. */
static uint64_t stack_bound(LLVMModuleRef M, LLVMTargetDataRef td)
{
	uint64_t n = 0;
	for (LLVMValueRef f = LLVMGetFirstFunction(M); f; f = LLVMGetNextFunction(f)) {
		if (LLVMIsDeclaration(f))
			continue;
		n += 256; /* return address, saved registers, alignment */
		for (LLVMValueRef a = LLVMGetFirstParam(f); a; a = LLVMGetNextParam(a))
			n += slot_bytes(td, LLVMTypeOf(a));
		for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
			for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
				LLVMOpcode op = LLVMGetInstructionOpcode(i);
				if (op == LLVMAlloca) {
					LLVMValueRef cnt = LLVMGetOperand(i, 0);
					if (!LLVMIsAConstantInt(cnt))
						ice(PASS, "alloca of a variable size");
					n += LLVMABISizeOfType(td, LLVMGetAllocatedType(i)) *
					             LLVMConstIntGetZExtValue(cnt) +
					     LLVMGetAlignment(i);
				}
				n += slot_bytes(td, LLVMTypeOf(i)) + temp_bytes(td, i, op);
			}
	}
	return n;
}

/* false with a diagnostic when LLVM rejects the pipeline */
static bool run_passes(LLVMModuleRef M, const char *passes, LLVMTargetMachineRef tm,
                       DiagSink *diags)
{
	LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
	LLVMErrorRef perr = LLVMRunPasses(M, passes, tm, po);
	LLVMDisposePassBuilderOptions(po);
	if (!perr)
		return true;
	char *m = LLVMGetErrorMessage(perr);
	diag_error(diags, (SrcLoc){0}, "llvm: optimization failed: %s", m);
	LLVMDisposeErrorMessage(m);
	return false;
}

bool em_backend(Em *e, EmitWhat what, DiagSink *diags, EmitResult *out)
{
	char *err = NULL;
	LLVMTargetMachineRef tm = host_tm(LLVMCodeGenLevelDefault, &err);
	if (!tm) {
		diag_error(diags, (SrcLoc){0}, "llvm: no host target: %s", err ? err : "?");
		LLVMDisposeMessage(err);
		return false;
	}
	char *triple = LLVMGetTargetMachineTriple(tm);
	LLVMSetTarget(e->M, triple);
	LLVMDisposeMessage(triple);
	LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
	char *dl = LLVMCopyStringRepOfTargetData(td);
	LLVMSetDataLayout(e->M, dl);
	LLVMDisposeMessage(dl);
	LLVMDisposeTargetData(td);
	const char *passes = em_eq_branch_fanout(e->M) > GVN_EQ_BRANCHES ? CPU_PASSES_NO_GVN
	                     : count_instructions(e->M) > BIG_KERNEL_INSTRS ? CPU_PASSES_BIG
	                                                                    : CPU_PASSES;
	if (!run_passes(e->M, passes, tm, diags)) {
		LLVMDisposeTargetMachine(tm);
		return false;
	}
	if (what != EMIT_LLVM_IR && split_big_blocks(e->C, e->M))
		em_verify_module(e->M, "after block splitting");
	if (what != EMIT_LLVM_IR && count_instructions(e->M) > FAST_CODEGEN_INSTRS) {
		LLVMTargetMachineRef fast = host_tm(LLVMCodeGenLevelNone, &err);
		if (fast) {
			LLVMDisposeTargetMachine(tm);
			tm = fast;
		}
	}
	if (what != EMIT_LLVM_IR) {
		/* what code generation does first, done here so that the stack
		 * bound sees the per-lane code (a masked load of 64 i16 on AVX2:
		 * 64 blocks, 16 KB of frame at -O0) */
		if (!run_passes(e->M, "function(scalarize-masked-mem-intrin)", tm, diags)) {
			LLVMDisposeTargetMachine(tm);
			return false;
		}
		out->stack_bytes = stack_bound(e->M, LLVMGetModuleDataLayout(e->M));
	}
	bool ok = true;
	if (what == EMIT_LLVM_IR) {
		char *s = LLVMPrintModuleToString(e->M);
		out->text = xstrdup(s);
		LLVMDisposeMessage(s);
	} else {
		LLVMMemoryBufferRef mb = NULL;
		LLVMCodeGenFileType ft = what == EMIT_ASM ? LLVMAssemblyFile : LLVMObjectFile;
		if (LLVMTargetMachineEmitToMemoryBuffer(tm, e->M, ft, &err, &mb)) {
			diag_error(diags, (SrcLoc){0}, "llvm: code generation failed: %s", err);
			LLVMDisposeMessage(err);
			ok = false;
		} else {
			size_t n = LLVMGetBufferSize(mb);
			const char *p = LLVMGetBufferStart(mb);
			if (what == EMIT_ASM) {
				out->text = xmalloc(n + 1);
				memcpy(out->text, p, n);
				out->text[n] = 0;
			} else {
				out->binary = xmalloc(n ? n : 1);
				memcpy(out->binary, p, n);
				out->binary_len = n;
			}
			LLVMDisposeMemoryBuffer(mb);
		}
	}
	LLVMDisposeTargetMachine(tm);
	return ok;
}

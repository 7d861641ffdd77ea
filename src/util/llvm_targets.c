/* llvm_targets.c: the process's one registration of LLVM's native target. */
#include "util/llvm_targets.h"

#include <llvm-c/Target.h>
#include <pthread.h>

static pthread_once_t targets_once = PTHREAD_ONCE_INIT;

static void register_targets(void)
{
	LLVMInitializeNativeTarget();
	LLVMInitializeNativeAsmPrinter();
	LLVMInitializeNativeAsmParser();
}

void llvm_targets_init(void) { pthread_once(&targets_once, register_targets); }

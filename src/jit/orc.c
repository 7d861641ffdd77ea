/* orc.c: ORC LLJIT loading of CPU kernel objects (see orc.h for the model).
 *
 * Each load: a fresh LLJIT (LLVM 14's C API only looks up symbols in an
 * LLJIT's main JITDylib, so "one JITDylib per load" means one LLJIT per load),
 * absolute definitions for the runtime hooks and libm/libc entry points, a
 * process-symbol generator as fallback, then the object, then the lookup.
 */
#include "jit/orc.h"

#include "jit/rt_async.h"
#include "jit/rt_race.h"
#include "util/llvm_targets.h"
#include "util/util.h"

#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <llvm/Config/llvm-config.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct OrcJit {
	pthread_mutex_t mu;
	VEC(LLVMOrcLLJITRef) jits; /* one per loaded object; alive until orc_destroy */
	unsigned loads;
};

static void set_err(char *err, size_t n, const char *what, LLVMErrorRef e)
{
	char *m = e ? LLVMGetErrorMessage(e) : NULL;
	if (err && n)
		snprintf(err, n, "%s%s%s", what, m ? ": " : "", m ? m : "");
	if (m)
		LLVMDisposeErrorMessage(m);
}

OrcJit *orc_create(char *err, size_t n)
{
	llvm_targets_init();
	OrcJit *j = calloc(1, sizeof *j);
	if (!j) {
		if (err && n)
			snprintf(err, n, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&j->mu, NULL);
	return j;
}

void orc_destroy(OrcJit *j)
{
	if (!j)
		return;
	pthread_mutex_lock(&j->mu);
	for (size_t i = 0; i < j->jits.len; i++) {
		LLVMErrorRef e = LLVMOrcDisposeLLJIT(j->jits.data[i]);
		if (e)
			LLVMConsumeError(e);
	}
	vec_free(&j->jits);
	pthread_mutex_unlock(&j->mu);
	pthread_mutex_destroy(&j->mu);
	free(j);
}

/* ---- symbols the emitted code may call ------------------------------------------ */

typedef struct HostSym {
	const char *name;
	void *addr;
} HostSym;

#define F1(n)                                                                                      \
	{#n "f", (void *)(float (*)(float))n##f}, { #n, (void *)(double (*)(double))n }
#define F2(n)                                                                                      \
	{#n "f", (void *)(float (*)(float, float))n##f},                                           \
	{                                                                                          \
#n, (void *)(double (*)(double, double))n                                          \
	}

static const HostSym host_syms[] = {
        {"tile_rt_print", (void *)tile_rt_print},
        {"tile_rt_assert", (void *)tile_rt_assert},
        {"tile_rt_sreg", (void *)tile_rt_sreg},
        {"tile_rt_spin", (void *)tile_rt_spin},
        {"tile_rt_mma_f16_f32", (void *)tile_rt_mma_f16_f32},
        {"tile_rt_mma_bf16_f32", (void *)tile_rt_mma_bf16_f32},
        {"tile_rt_mma_tf32_f32", (void *)tile_rt_mma_tf32_f32},
        {"tile_rt_mma_s8_s32", (void *)tile_rt_mma_s8_s32},
        {"tile_rt_mma_e4m3_e4m3_f32", (void *)tile_rt_mma_e4m3_e4m3_f32},
        {"tile_rt_mma_e4m3_e5m2_f32", (void *)tile_rt_mma_e4m3_e5m2_f32},
        {"tile_rt_mma_e5m2_e4m3_f32", (void *)tile_rt_mma_e5m2_e4m3_f32},
        {"tile_rt_mma_e5m2_e5m2_f32", (void *)tile_rt_mma_e5m2_e5m2_f32},
        {"tile_rt_ldmatrix", (void *)tile_rt_ldmatrix},
        {"tile_rt_lanes_load", (void *)tile_rt_lanes_load},
        {"tile_rt_lanes_store", (void *)tile_rt_lanes_store},
        {"tile_rt_cp_async_issue", (void *)tile_rt_cp_async_issue},
        {"tile_rt_cp_async_commit", (void *)tile_rt_cp_async_commit},
        {"tile_rt_cp_async_wait", (void *)tile_rt_cp_async_wait},
        {"tile_rt_cp_async_fini", (void *)tile_rt_cp_async_fini},
        {"tile_rt_cp_async_race", (void *)tile_rt_cp_async_race},
        {"tile_rt_misaligned", (void *)tile_rt_misaligned},
        {"tile_rt_race_init", (void *)tile_rt_race_init},
        {"tile_rt_race_access", (void *)tile_rt_race_access},
        {"tile_rt_race_barrier", (void *)tile_rt_race_barrier},
        {"tile_rt_race_fini", (void *)tile_rt_race_fini},
        {"memcpy", (void *)memcpy},
        {"memmove", (void *)memmove},
        {"memset", (void *)memset},
        F1(exp),
        F1(exp2),
        F1(log),
        F1(log2),
        F1(log10),
        F1(sqrt),
        F1(sin),
        F1(cos),
        F1(tan),
        F1(tanh),
        F1(erf),
        F1(floor),
        F1(ceil),
        F1(fabs),
        F1(log1p),
        F1(expm1),
        F1(round),
        F1(trunc),
        F1(rint),
        F1(nearbyint),
        F1(asin),
        F1(acos),
        F1(atan),
        F1(sinh),
        F1(cosh),
        F1(cbrt),
        F2(pow),
        F2(atan2),
        F2(fmod),
        F2(fdim),
        F2(hypot),
        F2(copysign),
        F2(fmin),
        F2(fmax),
};

/* LLVM 16 renamed the symbol-map pair type of the ORC C API. */
#if LLVM_VERSION_MAJOR >= 16
typedef LLVMOrcCSymbolMapPair SymbolMapPair;
#else
typedef LLVMJITCSymbolMapPair SymbolMapPair;
#endif

static LLVMErrorRef define_host_syms(LLVMOrcLLJITRef J, LLVMOrcJITDylibRef jd)
{
	size_t n = COUNTOF(host_syms);
	SymbolMapPair pairs[COUNTOF(host_syms)];
	for (size_t i = 0; i < n; i++) {
		pairs[i].Name = LLVMOrcLLJITMangleAndIntern(J, host_syms[i].name);
		pairs[i].Sym.Address = (LLVMOrcJITTargetAddress)(uintptr_t)host_syms[i].addr;
		pairs[i].Sym.Flags.GenericFlags =
		        LLVMJITSymbolGenericFlagsExported | LLVMJITSymbolGenericFlagsCallable;
		pairs[i].Sym.Flags.TargetFlags = 0;
	}
	return LLVMOrcJITDylibDefine(jd, LLVMOrcAbsoluteSymbols(pairs, n));
}

static LLVMOrcLLJITRef new_jit(char *err, size_t n)
{
	LLVMOrcLLJITRef J = NULL;
	LLVMErrorRef e = LLVMOrcCreateLLJIT(&J, NULL);
	if (e) {
		set_err(err, n, "orc: cannot create LLJIT", e);
		return NULL;
	}
	LLVMOrcJITDylibRef jd = LLVMOrcLLJITGetMainJITDylib(J);
	e = define_host_syms(J, jd);
	LLVMOrcDefinitionGeneratorRef gen = NULL;
	if (!e)
		e = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
		        &gen, LLVMOrcLLJITGetGlobalPrefix(J), NULL, NULL);
	if (e) {
		set_err(err, n, "orc: cannot define runtime symbols", e);
		LLVMConsumeError(LLVMOrcDisposeLLJIT(J));
		return NULL;
	}
	LLVMOrcJITDylibAddGenerator(jd, gen);
	return J;
}

void *orc_load(OrcJit *j, const void *obj, size_t len, const char *symbol, char *err, size_t n)
{
	if (!j || !obj || !symbol) {
		if (err && n)
			snprintf(err, n, "orc: bad arguments");
		return NULL;
	}
	pthread_mutex_lock(&j->mu);
	void *fn = NULL;
	LLVMOrcLLJITRef J = new_jit(err, n);
	if (!J)
		goto out;
	char name[32];
	snprintf(name, sizeof name, "tile_obj_%u", j->loads++);
	LLVMMemoryBufferRef mb = LLVMCreateMemoryBufferWithMemoryRangeCopy(obj, len, name);
	LLVMErrorRef e = LLVMOrcLLJITAddObjectFile(J, LLVMOrcLLJITGetMainJITDylib(J), mb);
	LLVMOrcJITTargetAddress addr = 0;
	if (!e)
		e = LLVMOrcLLJITLookup(J, &addr, symbol);
	if (e || !addr) {
		set_err(err, n, "orc: cannot load kernel object", e);
		LLVMConsumeError(LLVMOrcDisposeLLJIT(J));
		goto out;
	}
	vec_push(&j->jits, J);
	fn = (void *)(uintptr_t)addr;
out:
	pthread_mutex_unlock(&j->mu);
	return fn;
}

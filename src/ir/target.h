/* target.h: the one description of a compilation target. Every limit and
 * capability check reads it (lessons.md, "Portability"): layout choice, the
 * lowering of dots, the pre-launch resource checks and the emitters. */
#ifndef TILE_TARGET_H
#define TILE_TARGET_H

#include <stdbool.h>
#include <stddef.h>

typedef enum { TARGET_CPU, TARGET_CUDA, TARGET_HIP } TargetKind;

typedef struct TargetDesc {
	TargetKind kind;
	char name[24];          /* "cpu", "sm_80", "sm_90a", "gfx90a" */
	int arch;               /* 80, 90 for CUDA; 0 for CPU */
	int lanes_per_warp;     /* 32 on NVIDIA and in CUDA emulation; SIMD width on the native CPU */
	int max_threads;        /* per program instance (block) */
	int max_shared_bytes;   /* per program instance */
	bool emulate;           /* CPU target executing GPU-shaped layouts (--emulate=cuda) */
	bool has_mma_sync;      /* mma.sync m16n8k16 (sm_80+, and its lane-exact emulation) */
	bool has_mma_fp8;       /* mma.sync m16n8k32 on e4m3/e5m2 (sm_89+, PTX 8.4; cuda-emu) */
	bool has_ldmatrix;
	bool has_cp_async;
	/* atom.global.add on vectors: .v2/.v4 of f32, .v2-.v8 of f16/bf16
	 * (sm_90+; cuda-emu). Without it only f16 adds pack, two as f16x2. */
	bool has_vector_atomics;
} TargetDesc;

/* Options that change the generated code (all are part of the cache key). */
typedef struct CompileOptions {
	int num_warps;  /* threads per program = num_warps * lanes_per_warp */
	int num_stages; /* software pipelining depth for loops feeding tl.dot (1 = off) */
	bool debug;     /* keep device_assert, verify after every pass */
	/* TILE_MMA_PREFETCH=0 in the environment: dot loops do not read their
	 * operands one iteration ahead (src/codegen/tp_prefetch.c); to measure it */
	bool no_mma_prefetch;
	/* TILE_PIPELINE_VALUE_LOADS=0: software pipelining buffers only the loads
	 * that are dot operands, not those reaching a dot through other ops
	 * (src/layout/pipeline.c); to measure it */
	bool no_value_load_pipelining;
	/* TILE_HOLD_SMEM=0: big loop-invariant dot operands stay in registers
	 * across their loop instead of a shared buffer (src/layout/hold_smem.c);
	 * to measure it */
	bool no_hold_smem;
	/* TILE_HOIST=0: pure ops of loops that read only values from outside
	 * the loop stay in it (ir/tir_licm.c); driver/compile.c sets it for a
	 * variant of a kernel whose cubin spills */
	bool no_hoist;
	/* TILE_DISABLE_LINE_INFO=1 (Triton's TRITON_DISABLE_LINE_INFO): no #line
	 * directives and no nvrtc -lineinfo, so the PTX and cubin carry no .loc */
	bool no_line_info;
	/* Triton's enable_fp_fusion=False: no contraction of a * b + c into an fma
	 * (nvrtc --fmad=false; emit_llvm never contracts) */
	bool no_fp_fusion;
	/* TILE_RACECHECK=1: CPU kernels (cuda-emu above all) check every
	 * shared-memory access against the GPU's barrier rules and fail the
	 * launch on a race (jit/rt_race.h); nothing changes on GPU targets */
	bool racecheck;
	/* TILE_COORD_ADD=1: register coordinates are lane/warp part + constant,
	 * not | (codegen/lower.c, lw_coord), from the start; driver/compile.c
	 * sets it for a variant of a kernel whose cubin spills */
	bool add_coords;
	/* TILE_WIDE_ADDR=1: loop-carried pointer tiles advanced by a scalar step
	 * are carried as their scalar base (layout/ptr_iters.c), and CUDA C prints
	 * pointer + 32-bit offset as mad.wide.s32 (codegen/emit_c_arith.c);
	 * driver/compile.c sets it for a variant of a kernel whose cubin spills */
	bool wide_addr;
	/* TILE_SCRATCH_APART=1 (a debug aid): shared-memory scratch always starts
	 * after every buffer (codegen/lower.c, lw_scratch) instead of over buffers
	 * thought dead, so a run that differs from the default's names a scratch
	 * placement that overwrote a live buffer, which the race check cannot see */
	bool scratch_apart;
	/* the program as first lowered, with no variants weighed by ptxas's
	 * spills (driver/compile.c, try_variants), so --emit cuda/thread runs no
	 * nvrtc: for the fuzzer, which checks emission and must stay fast */
	bool first_program;
	/* TILE_COMPILE_THREADS: how many variants of a kernel whose cubin spills
	 * are compiled ahead at once on threads of their own (driver/compile.c,
	 * start_single_variants): 0 as many as there are processors, -1 none.
	 * Not in the cache key: the kept program is the same either way. */
	int variant_threads;
} CompileOptions;

/* Fill `t` for a named target: "cpu", "cuda-emu" (CPU running 32-lane warps),
 * "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", ... Returns false if unknown. */
bool target_from_name(const char *name, TargetDesc *t);

/* Whether a kernel named `name` would clash, as the symbol of its function in
 * LLVM IR or CUDA C, with a C/C++ keyword, a CUDA builtin, a C library or math
 * function that the generated code calls or the JIT resolves (int, main,
 * threadIdx, sinf, memcpy), a name nvrtc or the CUDA runtime declares (NULL,
 * cudaSuccess, CUDART_VERSION), one that is no PTX identifier (_, WARP_SZ),
 * or a helper the CUDA C emitter defines (f32_to_f16, st_global_b32:
 * emit_c*.c). Such a kernel's symbol is tile_k_NAME. */
bool target_symbol_reserved(const char *name);
/* Triton's rules for the launch options: num_warps a power of two from 1 to
 * 32, num_stages from 1 to 8. NULL when both hold, else the message, in buf. */
const char *options_problem(int num_warps, int num_stages, char *buf, size_t n);

#endif

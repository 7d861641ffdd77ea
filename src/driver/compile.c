/* compile.c: the pipeline, as a table (QBE main.c style).
 *
 *   sema -> layout -> lower -> emit
 *
 * Each stage reads the previous stage's output from the Compilation and
 * writes its own; the IR verifier runs after every stage that builds or
 * mutates IR. The whole pipeline runs under one ice_protect boundary: an
 * internal error or out-of-memory anywhere becomes one "internal compiler
 * error in STAGE" diagnostic instead of a crash. User mistakes are ordinary
 * diagnostics and stop the pipeline after the stage that found them.
 *
 * Requires: a parsed SourceModule (imports loaded), a concrete TargetDesc.
 * Guarantees: on success a CompiledKernel that owns its binary and metadata.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build_id.h"
#include "config.h"
#include "driver/driver.h"
#include "driver/kernel_blob.h"
#include "jit/cache.h"
#include "jit/nvrtc.h"
#include "layout/assign.h"
#include "layout/linear.h"

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

typedef struct Compilation {
	const CompileRequest *req;
	DiagSink *diags;
	Arena *arena;     /* the top compilation's: its variants (try_variant) allocate there too */
	SemaCtx sema;
	TirFunc *tir;
	TpFunc *tp;
	EmitResult emitted;
	char *dump;       /* heap: the requested intermediate form */
	bool stop;        /* the requested dump is done */
	const char *stage;
	double t_stage[4];
	CompileOptions opts; /* the request's, with what the kernel sets (a heuristic's num_warps) */
	/* A variant (try_variant) emits `what`, keeps its text in `emitted` and
	 * weighs no choices itself. */
	bool variant;
	bool ahead; /* a variant only started compiling (emit_cuda_ahead) */
	bool ahead_started;
	EmitWhat what;
	unsigned off; /* the choices (bits) the kept program was compiled without */
	uint32_t tried; /* bit `off` for each set of choices compiled without (try_variant) */
	int hoisted;  /* ops moved out of loops (tir_hoist_invariants) */
	int ptr_iters; /* loop-carried pointer tiles wide_addr carries as a scalar base */
	NvrtcMemo *memo; /* the top compilation's (CUDA): nvrtc runs its variants may repeat */
} Compilation;

typedef bool (*StageFn)(Compilation *c);

static bool stage_sema(Compilation *c);
static bool stage_layout(Compilation *c);
static bool check_resources(const CompileRequest *r, const TirFunc *f, const TpFunc *tp,
			    DiagSink *diags);
static bool check_size(const TargetDesc *t, const TirFunc *f, DiagSink *diags);
static bool stage_lower(Compilation *c);
static bool final_program_after_ptxas(const Compilation *c);
static bool stage_emit(Compilation *c);

static const struct {
	const char *name;
	StageFn run;
} stages[] = {
	{"sema", stage_sema},
	{"layout", stage_layout},
	{"lower", stage_lower},
	{"emit", stage_emit},
};

static bool stage_sema(Compilation *c)
{
	const CompileRequest *r = c->req;
	c->tir = sema_kernel(&c->sema, r->src->ast, r->kernel, r->args, r->nargs);
	if (!c->tir)
		return false;
	if (c->tir->nparams > TIR_MAX_RUNTIME_PARAMS) { /* found before the kernel is built */
		diag_error(c->diags, (SrcLoc){0}, "kernel '%s' has %d runtime parameters; tile allows at most %d",
			   tir_func_label(c->tir), c->tir->nparams, TIR_MAX_RUNTIME_PARAMS);
		return false;
	}
	/* sema starts from the options; a @triton.heuristics may have set them */
	c->opts = r->opts;
	if (c->tir->num_warps > 0)
		c->opts.num_warps = c->tir->num_warps;
	if (c->tir->num_stages > 0)
		c->opts.num_stages = c->tir->num_stages;
	c->tir->num_warps = c->opts.num_warps;
	tir_verify(c->tir, "sema", false);
	if (!c->opts.no_hoist && (c->hoisted = tir_hoist_invariants(c->tir)) > 0)
		tir_verify(c->tir, "hoist", false);
	if (r->dump == DUMP_TIR) {
		StrBuf b = {0};
		tir_print(c->tir, &b, false);
		c->dump = sb_take(&b);
		c->stop = true;
	}
	return true;
}

static bool stage_layout(Compilation *c)
{
	LayoutCtx lc = {c->arena, c->diags, &c->req->target, &c->opts};
	c->ptr_iters = layout_scalar_ptr_iters(c->tir, c->opts.wide_addr);
	if (c->opts.wide_addr && c->ptr_iters)
		tir_verify(c->tir, "scalar_ptr_iters", false);
	if (!layout_assign(&lc, c->tir))
		return false;
	tir_verify(c->tir, "layout", true);
	if (!layout_hold_smem(&lc, c->tir))
		return false;
	tir_verify(c->tir, "hold_smem", true);
	if (!layout_pipeline(&lc, c->tir))
		return false;
	tir_verify(c->tir, "pipeline", true);
	/* The layout's estimate is a lower bound of what lowering needs: a kernel
	 * over the target's limit stops here, before lowering a huge tile. */
	if (!check_resources(c->req, c->tir, NULL, c->diags) || !check_size(&c->req->target, c->tir, c->diags))
		return false;
	if (c->req->dump == DUMP_LAYOUT) {
		StrBuf b = {0};
		tir_print(c->tir, &b, true);
		c->dump = sb_take(&b);
		c->stop = true;
	}
	return true;
}

static bool stage_lower(Compilation *c)
{
	c->tp = lower_func(c->arena, c->diags, c->tir, &c->req->target, &c->opts);
	if (!c->tp)
		return false;
	tp_verify(c->tp);
	if (c->req->dump == DUMP_THREAD && !final_program_after_ptxas(c)) {
		StrBuf b = {0};
		tp_print(c->tp, &b);
		c->dump = sb_take(&b);
		c->stop = true;
	}
	return true;
}

/* ---- choices weighed by ptxas's spills --------------------------------------- *
 *
 * Some choices trade registers in ways only ptxas can weigh. The operand
 * prefetch of dot loops (tp_prefetch.c) keeps a k step of fragments live
 * across the loop's back edge (an fp16 matmul of 128x128x32 tiles with K not
 * a multiple of 16: 60 bytes of spills with it, none without). A held
 * operand (hold_smem.c) frees the registers of a loop-invariant one, but
 * costs shared memory and adds ldmatrix reads whose addresses and fragments
 * ptxas schedules at 255 registers (flash_attn_triton's forward, d64 with a
 * matrix bias: 1000 bytes of spills held, 888 in registers). Register
 * coordinates as lane/warp part | constant or + constant (lw_coord): the +
 * form lets ptxas see each element's address as a base plus a constant
 * (lucidrains' ring attention forward, d128 w8: 1552 -> 0 bytes), but made
 * others spill more (the tutorial's attention 128x128 d128 w8: 0 -> 56).
 * Loop-invariant ops hoisted in front of their loop (ir/tir_licm.c) save
 * each iteration a reduction's shuffles and barriers, but their results
 * stay live across the loop (Megatron's unpermute-add: 16 row ids a thread
 * for each of 8 experts, 456 bytes of spills hoisted, 16 in the loop).
 * Where the cubin spills, the kernel is compiled again without each choice
 * in turn (from sema on: a held operand changes the IR), on top of those
 * already dropped, and the program that spills less is kept; as many spills
 * in less shared memory win too. So a kernel that spills is compiled at most
 * once more per choice. The choice is a function of the cache key, and the
 * cubin cached is the one kept. --emit thread and --emit cuda build the
 * cubin first to show the program that is kept
 * (keep_program_without_spills); --emit layout shows the first one. */
static bool uses_prefetch(const Compilation *c) { return c->tp && c->tp->prefetched; }
static bool uses_held(const Compilation *c)
{
	for (int i = 0; c->tir && i < c->tir->nbufs; i++)
		if (c->tir->bufs[i].loop)
			return true;
	return false;
}
static bool uses_or_coords(const Compilation *c) { return c->tp && c->tp->or_coords; }
static bool uses_hoisted(const Compilation *c) { return c->hoisted > 0; }
/* Loop-carried pointer tiles that wide_addr would carry as a scalar base, and
 * big in registers: one pointer per element or so (strides not :16, loads of
 * one element). Where they are vectors (cp.async of 16 bytes: a few pointers
 * a thread) a scalar base frees little, and the variant is one more ptxas run
 * of a kernel that spills, seconds for big ones. */
enum { WIDE_ADDR_MIN_WORDS = 64 };
static bool uses_ptr_iters(const Compilation *c)
{
	return c->req->target.kind == TARGET_CUDA && !c->opts.wide_addr && c->ptr_iters > 0 && c->tp &&
	       tp_loop_carried_words(c->tp, c->tp->body, true) >= WIDE_ADDR_MIN_WORDS;
}

static void no_prefetch(CompileOptions *o) { o->no_mma_prefetch = true; }
static void no_hold(CompileOptions *o) { o->no_hold_smem = true; }
static void add_coords(CompileOptions *o) { o->add_coords = true; }
static void no_hoist(CompileOptions *o) { o->no_hoist = true; }
static void wide_addr(CompileOptions *o) { o->wide_addr = true; }

static const struct {
	bool (*used)(const Compilation *c);
	void (*turn_off)(CompileOptions *o);
} choices[] = {
	{uses_or_coords, add_coords},
	{uses_prefetch, no_prefetch},
	{uses_held, no_hold},
	{uses_hoisted, no_hoist},
	{uses_ptr_iters, wide_addr},
};

static void compilation_init(Compilation *c, const CompileRequest *req, DiagSink *diags,
			     Arena *arena);
static void run_stages(void *arg);

static int smem_of(const Compilation *c)
{
	return c->tp && c->tp->smem_bytes > c->tir->smem_bytes ? c->tp->smem_bytes : c->tir->smem_bytes;
}

/* Whether the search weighed the set `off` already (0: the first program). */
static bool weighed(const Compilation *c, unsigned off)
{
	_Static_assert(COUNTOF(choices) <= 5, "tried has a bit for each set of choices");
	return (c->tried | 1u) >> off & 1u;
}

/* *alt: c's kernel without the choices in `off`, a quiet variant that emits
 * `what`, allocating in `arena`; *r and *quiet must outlive it. */
static void variant_init(Compilation *alt, const Compilation *c, unsigned off, EmitWhat what,
                         CompileRequest *r, DiagSink *quiet, Arena *arena)
{
	*r = *c->req;
	for (size_t k = 0; k < COUNTOF(choices); k++)
		if (off & 1u << k)
			choices[k].turn_off(&r->opts);
	r->dump = DUMP_NONE;
	diag_init(quiet);
	compilation_init(alt, r, quiet, arena);
	alt->memo = c->memo;
	alt->variant = true;
	alt->what = what;
}

/* Compiles c's kernel without the choices in `off`, quietly, into c's arena,
 * and keeps it where it spills less (or as much in less shared memory). */
static void try_variant(Compilation *c, EmitWhat what, unsigned off)
{
	/* the search may come back to a set it weighed (the others again on top
	 * of kept wide addresses): the same program, not compiled twice */
	if (weighed(c, off))
		return;
	c->tried |= 1u << off;
	CompileRequest r;
	DiagSink quiet;
	Compilation alt;
	variant_init(&alt, c, off, what, &r, &quiet, c->arena);
	run_stages(&alt);
	double secs = c->emitted.seconds_codegen + alt.emitted.seconds_codegen;
	int s = alt.emitted.spill_bytes;
	bool built = !quiet.nerrors && (alt.emitted.binary || alt.emitted.text);
	if (built && s >= 0 &&
	    (s < c->emitted.spill_bytes || (s == c->emitted.spill_bytes && smem_of(&alt) < smem_of(c)))) {
		EmitResult e = c->emitted;
		c->emitted = alt.emitted;
		alt.emitted = e;
		c->tir = alt.tir;
		c->tp = alt.tp;
		c->opts = alt.opts;
		c->off = off;
	}
	c->emitted.seconds_codegen = secs;
	emit_result_free(&alt.emitted);
	free(alt.dump);
	diag_free(&quiet);
}

/* The variants without one choice each, the first the search weighs in
 * turn, compiled ahead on other threads, as many as there are processors:
 * the search then finds them in the memo (the CUDA C is emitted here, on
 * this thread; nvrtc takes the time). Of the programs the search weighed
 * in corpus kernels that spill (chipmunk's fp8 GEMM, mm_unaligned of
 * tests/spills.sh, a batched fp32 GEMM), every one-choice variant was one. */
static void start_single_variants(Compilation *c)
{
	long most = c->req->opts.variant_threads;
	if (most == 0)
		most = sysconf(_SC_NPROCESSORS_ONLN);
	int started = 0;
	for (size_t i = 0; i < COUNTOF(choices) && started < most; i++) {
		if (!choices[i].used(c) || weighed(c, 1u << i))
			continue;
		Arena scratch; /* only the source outlives the stages */
		arena_init(&scratch);
		CompileRequest r;
		DiagSink quiet;
		Compilation alt;
		variant_init(&alt, c, 1u << i, EMIT_BINARY, &r, &quiet, &scratch);
		alt.ahead = true;
		run_stages(&alt);
		started += alt.ahead_started;
		emit_result_free(&alt.emitted);
		free(alt.dump);
		diag_free(&quiet);
		arena_free(&scratch);
	}
}

/* c->emitted: c's program compiled to `what`. Each choice is turned off on
 * top of those the kept program dropped; where that is not kept after an
 * earlier one was, it is also tried alone, since the choices interact (paged
 * attention 128x32 d128: dropping the held operand after adding coordinates
 * spilled 40 B, dropping it alone 32 B in a third less shared memory). */
static void try_variants(Compilation *c, EmitWhat what)
{
	if (!c->variant && !c->req->opts.first_program && c->memo && c->emitted.spill_bytes > 0)
		start_single_variants(c);
	for (int i = 0; !c->variant && !c->req->opts.first_program && i < (int)COUNTOF(choices); i++)
		if (c->emitted.spill_bytes > 0 && choices[i].used(c)) {
			unsigned before = c->off;
			try_variant(c, what, before | 1u << i);
			/* wide addresses change every address the other choices were
			 * weighed with: also tried alone where kept on top of them.
			 * Tried last (and the others again on top, below), so that a
			 * choice dropped by the environment (TILE_MMA_PREFETCH=0) finds
			 * no better program than the search does: tried first, the
			 * prefetch was weighed without them (matmul 128x128x32, M, N,
			 * K not :16: 16 bytes, 8 with TILE_MMA_PREFETCH=0;
			 * pipeline_prefetch.sh). */
			bool alone = before && c->emitted.spill_bytes > 0 &&
			             (c->off == before || choices[i].turn_off == wide_addr);
			if (alone)
				try_variant(c, what, 1u << i);
		}
	/* kept wide addresses: the other choices again, on top of them
	 * (1504 -> 1136 -> 784 bytes in the fp8 GEMM, 1128 -> 216 -> 16 in
	 * ns_line_2) */
	int w = (int)COUNTOF(choices) - 1;
	if (c->variant || c->req->opts.first_program || !(c->off & 1u << w))
		return;
	for (int i = 0; i < w; i++)
		if (c->emitted.spill_bytes > 0 && !(c->off & 1u << i) && choices[i].used(c))
			try_variant(c, what, c->off | 1u << i);
}

/* Whether the program to show (--emit thread, --emit cuda) is only known once
 * ptxas has seen the first one (try_variants). */
static bool final_program_after_ptxas(const Compilation *c)
{
	const CompileRequest *r = c->req;
	if (r->target.kind != TARGET_CUDA || !c->tp || (r->dump != DUMP_THREAD && r->dump != DUMP_CUDA) ||
	    r->opts.first_program)
		return false;
	for (size_t i = 0; i < COUNTOF(choices); i++)
		if (choices[i].used(c))
			return true;
	return false;
}

/* Builds the cubin quietly and keeps in c->tp the program it was made from.
 * Without nvrtc (--emit cuda works without it) the first one stays. */
static void keep_program_without_spills(Compilation *c)
{
	DiagSink quiet;
	diag_init(&quiet);
	if (emit_cuda(c->tp, EMIT_BINARY, c->memo, &quiet, &c->emitted))
		try_variants(c, EMIT_BINARY);
	emit_result_free(&c->emitted);
	memset(&c->emitted, 0, sizeof c->emitted);
	diag_free(&quiet);
}

static bool stage_emit(Compilation *c)
{
	const CompileRequest *r = c->req;
	EmitWhat what = c->variant ? c->what : EMIT_BINARY;
	switch (r->dump) {
	case DUMP_LLVM: what = EMIT_LLVM_IR; break;
	case DUMP_ASM: what = EMIT_ASM; break;
	case DUMP_CUDA: what = EMIT_CUDA_SRC; break;
	case DUMP_PTX: what = EMIT_PTX; break;
	default: break;
	}
	bool cpu = r->target.kind == TARGET_CPU;
	if ((cpu && (what == EMIT_CUDA_SRC || what == EMIT_PTX || r->dump == DUMP_CUBIN)) ||
	    (!cpu && (what == EMIT_LLVM_IR || what == EMIT_ASM))) {
		SrcLoc none = {0};
		diag_error(c->diags, none, "--emit=%s is not available for target '%s'",
			   r->dump == DUMP_CUBIN ? "cubin" : what == EMIT_CUDA_SRC ? "cuda" : what == EMIT_PTX ? "ptx"
			   : what == EMIT_LLVM_IR ? "llvm" : "asm", r->target.name);
		return false;
	}
	bool ok;
	if (r->target.kind == TARGET_CPU)
		ok = emit_llvm(c->tp, what, c->diags, &c->emitted);
	else if (r->target.kind == TARGET_CUDA && c->ahead) {
		c->ahead_started = emit_cuda_ahead(c->tp, c->memo);
		c->stop = true;
		return true;
	} else if (r->target.kind == TARGET_CUDA) {
		if (final_program_after_ptxas(c)) {
			keep_program_without_spills(c);
			if (r->dump == DUMP_THREAD) {
				StrBuf b = {0};
				tp_print(c->tp, &b);
				c->dump = sb_take(&b);
				c->stop = true;
				return true;
			}
		}
		ok = emit_cuda(c->tp, what, c->memo, c->diags, &c->emitted);
		if (ok)
			try_variants(c, what);
	} else {
		SrcLoc none = {0};
		diag_error(c->diags, none, "target '%s' is not supported yet", r->target.name);
		return false;
	}
	if (ok && c->emitted.text && !c->variant) {
		c->dump = c->emitted.text;
		c->emitted.text = NULL;
		c->stop = true;
	}
	return ok;
}

static void run_stages(void *arg)
{
	Compilation *c = arg;
	for (size_t i = 0; i < COUNTOF(stages) && !c->stop; i++) {
		c->stage = stages[i].name;
		double t0 = now_seconds();
		bool ok = stages[i].run(c);
		c->t_stage[i] = now_seconds() - t0;
		if (!ok || c->diags->nerrors) {
			if (!c->diags->nerrors) {
				SrcLoc none = {0};
				diag_error(c->diags, none, "internal compiler error in %s: failed without a diagnostic",
					   c->stage);
			}
			c->stop = true;
			c->stage = NULL;
		}
	}
}

/* ---- checks that belong to no stage: what the target can launch -------------- */

static bool check_options(const CompileRequest *r, DiagSink *diags)
{
	SrcLoc none = {0};
	const CompileOptions *o = &r->opts;
	char why[96];
	if (options_problem(o->num_warps, o->num_stages, why, sizeof why)) {
		diag_error(diags, none, "%s", why);
		return false;
	}
	int threads = o->num_warps * r->target.lanes_per_warp;
	if (r->target.kind != TARGET_CPU && threads > r->target.max_threads) {
		diag_error(diags, none,
			   "num_warps=%d gives %d threads per program; target '%s' allows at most %d",
			   o->num_warps, threads, r->target.name, r->target.max_threads);
		return false;
	}
	return true;
}

/* The thread program's size is authoritative: lowering may need more scratch
 * (cross-warp scans) than the layout pass estimated. */
static bool check_resources(const CompileRequest *r, const TirFunc *f, const TpFunc *tp,
			    DiagSink *diags)
{
	int smem = tp && tp->smem_bytes > f->smem_bytes ? tp->smem_bytes : f->smem_bytes;
	if (smem > r->target.max_shared_bytes) {
		diag_error(diags, f->smem_loc,
			   "kernel '%s' needs %d bytes of shared memory; target '%s' allows %d "
			   "(use smaller blocks, fewer stages or fewer warps)",
			   tir_func_label(f), smem, r->target.name, r->target.max_shared_bytes);
		return false;
	}
	return true;
}

/* The thread program is unrolled over each thread's registers: every tile value
 * becomes 2^(its layout's register bits) values per thread, about 600 bytes of
 * compiler memory each, and far more LLVM or nvrtc time. The largest real
 * kernels we compile have under 300k (a bitonic top-k on the CPU); a kernel over
 * the limit (3000 ops on 16384-element tiles: 10 s and 3.6 GB just to lower,
 * a 65536-element version over 14 GB) is an error here, before lowering.
 *
 * An mma.sync dot is unrolled too, into (accumulator registers / 4) x (K / the
 * instruction's k) mma instructions per thread: 256 for a 256x256x64 tile on 8
 * warps. A 256x256x256 dot on 4 warps (2048) takes nvrtc about a minute and a
 * 512x512x512 one (16384) more than ten, so over MAX_MMA_PER_THREAD is an
 * error too. */
enum { MAX_THREAD_REGS = 1 << 21, MAX_MMA_PER_THREAD = 8192 };

static int64_t regs_of(const TirVal *tv)
{
	int s = tv->layout ? ll_find_slot(tv->layout, LL_REG) : -1;
	return (int64_t)1 << (s < 0 ? 0 : tv->layout->in_bits[s]);
}

/* mma instructions one thread issues for the dots of b (and nested blocks) */
static int64_t mma_per_thread(const TargetDesc *t, const TirFunc *f, const TirBlock *b,
			      SrcLoc *at, int64_t *most)
{
	int64_t n = 0;
	for (int i = 0; i < b->nops; i++) {
		const TirOp *op = b->ops[i];
		int bits = op->kind == TOP_DOT ? layout_dot_mma_bits(t, f, op) : 0;
		if (bits) {
			const TirVal *a = &f->vals.data[op->operands[0]];
			int64_t k = a->ty.shape[a->ty.rank - 1], kinst = 256 / bits;
			int64_t c = regs_of(&f->vals.data[op->results[0]]) / 4 * (k / kinst);
			n += c;
			if (c > *most) {
				*most = c;
				*at = op->loc;
			}
		}
		for (int r = 0; r < op->nregions; r++)
			n += mma_per_thread(t, f, &op->regions[r], at, most);
	}
	return n;
}

static bool check_size(const TargetDesc *t, const TirFunc *f, DiagSink *diags)
{
	int64_t total = 0, most = 0;
	SrcLoc at = {0}; /* the first of the largest tiles */
	for (size_t v = 1; v < f->vals.len; v++) {
		const TirVal *tv = &f->vals.data[v];
		int64_t regs = regs_of(tv);
		total += regs;
		if (regs > most && tv->def) {
			most = regs;
			at = tv->def->loc;
		}
	}
	if (total > MAX_THREAD_REGS) {
		diag_error(diags, at,
			   "kernel '%s' is too large: its tile values need %lld registers per thread "
			   "in all, more than %d (use smaller blocks or more warps)",
			   f->name, (long long)total, MAX_THREAD_REGS);
		return false;
	}
	int64_t mma_most = 0;
	SrcLoc mma_at = {0};
	int64_t mma = f->entry ? mma_per_thread(t, f, f->entry, &mma_at, &mma_most) : 0;
	if (mma > MAX_MMA_PER_THREAD) {
		diag_error(diags, mma_at,
			   "kernel '%s' is too large: its dots unroll into %lld mma instructions per "
			   "thread, more than %d (use smaller blocks, a K loop or more warps)",
			   f->name, (long long)mma, MAX_MMA_PER_THREAD);
		return false;
	}
	return true;
}

/* ---- the cache key: everything that changes the output --------------------- */

static void key_add_const(CacheKey *k, const ConstVal *v)
{
	cache_key_add_u64(k, (uint64_t)v->kind | (uint64_t)v->u64 << 8);
	cache_key_add_u64(k, (uint64_t)v->i);
	uint64_t fbits;
	memcpy(&fbits, &v->f, sizeof fbits);
	cache_key_add_u64(k, fbits);
	cache_key_add_str(k, v->kind == CV_STR || v->kind == CV_NAME ? v->s : NULL);
	cache_key_add_u64(k, (uint64_t)v->dtype);
}

/* The host CPU's name and features, asked of LLVM once per process (they
 * cannot change while it runs; asking took a fifth of a CPU cache hit) and
 * never written again. */
static pthread_once_t host_cpu_once = PTHREAD_ONCE_INIT;
static char *host_cpu_name, *host_cpu_features;
static void host_cpu_init(void)
{
	host_cpu_name = LLVMGetHostCPUName();
	host_cpu_features = LLVMGetHostCPUFeatures();
}

static void key_add_backend(CacheKey *k, const TargetDesc *t)
{
	if (t->kind == TARGET_CPU) {
		cache_key_add_str(k, "llvm " TILE_LLVM_VERSION);
		pthread_once(&host_cpu_once, host_cpu_init);
		cache_key_add_str(k, host_cpu_name);
		cache_key_add_str(k, host_cpu_features);
	} else {
		int maj = 0, min = 0;
		if (nvrtc_version(&maj, &min))
			cache_key_add_u64(k, ((uint64_t)maj << 16) | (uint64_t)min);
	}
}

static void key_add_spec(CacheKey *k, const SpecArg *a)
{
	cache_key_add_u64(k, a->is_const | (uint64_t)a->empty_tuple << 1 | (uint64_t)a->use_default << 2);
	if (a->is_const)
		key_add_const(k, &a->cval);
	cache_key_add_u64(k, ((uint64_t)a->ty.dt << 8) | a->ty.elem);
	cache_key_add_u64(k, (uint64_t)a->spec);
	cache_key_add_u64(k, (uint64_t)a->desc_rank | (uint64_t)a->desc_last16 << 8);
	for (int d = 0; d < a->desc_rank; d++)
		cache_key_add_u64(k, (uint64_t)a->desc_block[d]);
	cache_key_add_u64(k, (uint64_t)a->tuple_len);
	for (int j = 0; j < a->tuple_len; j++)
		key_add_spec(k, &a->tuple[j]);
}

static void compute_key(const CompileRequest *r, uint8_t key[32])
{
	CacheKey k;
	cache_key_begin(&k);
	cache_key_add_str(&k, "tile " TILE_VERSION " " TILE_BUILD_ID);
	cache_key_add_bytes(&k, r->src->closure_hash, 32);
	cache_key_add_str(&k, r->kernel);
	cache_key_add_u64(&k, (uint64_t)r->nargs);
	for (int i = 0; i < r->nargs; i++)
		key_add_spec(&k, &r->args[i]);
	const TargetDesc *t = &r->target;
	cache_key_add_u64(&k, (uint64_t)t->kind);
	cache_key_add_str(&k, t->name);
	cache_key_add_u64(&k, (uint64_t)t->arch);
	cache_key_add_u64(&k, (uint64_t)t->lanes_per_warp);
	cache_key_add_u64(&k, ((uint64_t)t->has_vector_atomics << 5) | ((uint64_t)t->has_mma_fp8 << 4) | ((uint64_t)t->emulate << 3) | ((uint64_t)t->has_mma_sync << 2) |
				      ((uint64_t)t->has_ldmatrix << 1) | t->has_cp_async);
	cache_key_add_u64(&k, (uint64_t)t->max_shared_bytes);
	cache_key_add_u64(&k, (uint64_t)r->opts.num_warps);
	cache_key_add_u64(&k, (uint64_t)r->opts.num_stages);
	cache_key_add_u64(&k, (uint64_t)r->opts.debug);
	cache_key_add_u64(&k, (uint64_t)r->opts.no_mma_prefetch);
	cache_key_add_u64(&k, (uint64_t)r->opts.no_value_load_pipelining);
	cache_key_add_u64(&k, (uint64_t)r->opts.no_hold_smem);
	cache_key_add_u64(&k, (uint64_t)r->opts.no_hoist);
	cache_key_add_u64(&k, (uint64_t)r->opts.add_coords);
	cache_key_add_u64(&k, (uint64_t)r->opts.wide_addr);
	cache_key_add_u64(&k, (uint64_t)r->opts.scratch_apart);
	cache_key_add_u64(&k, (uint64_t)r->opts.first_program);
	cache_key_add_u64(&k, (uint64_t)r->opts.no_line_info);
	cache_key_add_u64(&k, (uint64_t)r->opts.no_fp_fusion);
	cache_key_add_u64(&k, (uint64_t)r->opts.racecheck);
	key_add_backend(&k, t);
	cache_key_end(&k, key);
}

/* ---- the result --------------------------------------------------------------- */

static void fill_result(const Compilation *c, CompiledKernel *out)
{
	const TirFunc *f = c->tir;
	memset(out, 0, sizeof *out);
	out->name = xstrdup(f->name);
	out->target = c->req->target;
	out->num_warps = c->opts.num_warps;
	out->threads = out->num_warps * c->req->target.lanes_per_warp;
	out->smem_bytes = c->tp ? c->tp->smem_bytes : f->smem_bytes;
	out->nargs = f->nparams;
	out->args = xcalloc((size_t)(f->nparams > 0 ? f->nparams : 1), sizeof *out->args);
	bool *accessed = xcalloc((size_t)(f->nparams > 0 ? f->nparams : 1), sizeof *accessed);
	tir_params_accessed(f, accessed);
	for (int i = 0; i < f->nparams; i++) {
		KernelArgDesc *a = &out->args[i];
		snprintf(a->name, sizeof a->name, "%s", f->params[i].name);
		a->dt = f->params[i].ty.dt;
		a->elem = f->params[i].ty.elem;
		a->spec = (uint8_t)(f->params[i].spec | (accessed[i] ? SPEC_ACCESSED : 0));
	}
	free(accessed);
	out->binary = c->emitted.binary;
	out->binary_len = c->emitted.binary_len;
	out->stack_bytes = c->emitted.stack_bytes;
	out->registers = c->emitted.binary ? c->emitted.registers : -1;
	out->spill_bytes = c->emitted.binary ? c->emitted.spill_bytes : -1;
	out->t_sema = c->t_stage[0];
	out->t_layout = c->t_stage[1];
	out->t_lower = c->t_stage[2];
	out->t_codegen = c->t_stage[3];
}

static void compilation_init(Compilation *c, const CompileRequest *req, DiagSink *diags,
			     Arena *arena)
{
	memset(c, 0, sizeof *c);
	c->req = req;
	c->diags = diags;
	c->arena = arena;
	c->sema.arena = arena;
	c->sema.names = &req->src->names;
	c->sema.diags = diags;
	c->sema.target = &req->target;
	c->sema.opts = &req->opts;
	c->sema.load_module = source_find_import;
	c->sema.package_name = source_package_name;
	c->sema.loader_user = req->src;
}

static int dump_ast(const CompileRequest *req, char **dump_text)
{
	StrBuf b = {0};
	ast_dump(req->src->ast, &b);
	*dump_text = sb_take(&b);
	return 0;
}

/* The checksum shows a cache entry is whole, not that it holds this target's
 * code: an entry of another target in this key's file (copied or renamed
 * there, or written by a tile whose key missed a field) would be loaded as
 * the wrong kind of binary. */
static bool blob_fits(const CompileRequest *req, const CompiledKernel *k)
{
	return k->target.kind == req->target.kind && k->target.arch == req->target.arch &&
	       k->target.emulate == req->target.emulate && !strcmp(k->target.name, req->target.name);
}

int compile_kernel(const CompileRequest *req, DiagSink *diags, CompiledKernel *out,
		   char **dump_text)
{
	double t0 = now_seconds();
	if (dump_text)
		*dump_text = NULL;
	memset(out, 0, sizeof *out);
	if (req->dump == DUMP_AST)
		return dump_ast(req, dump_text);
	if (!check_options(req, diags))
		return -1;
	uint8_t key[32];
	bool use_cache = req->cache && req->dump == DUMP_NONE;
	if (use_cache) {
		compute_key(req, key);
		void *payload;
		size_t len;
		if (cache_get(req->cache, key, &payload, &len)) {
			int rc = kernel_blob_decode(payload, len, out);
			free(payload);
			if (rc == 0 && blob_fits(req, out)) {
				out->from_cache = true;
				out->t_total = now_seconds() - t0;
				return 0;
			}
			compiled_kernel_free(out);
			cache_discard(req->cache, key);
		}
	}
	Arena arena;
	arena_init(&arena);
	Compilation c;
	compilation_init(&c, req, diags, &arena);
	if (req->target.kind == TARGET_CUDA)
		c.memo = nvrtc_memo_new();
	char *ice_msg = NULL;
	int rc = ice_protect(run_stages, &c, &ice_msg);
	if (rc != 0) {
		SrcLoc none = {0};
		diag_error(diags, none, "%s", ice_msg);
		free(ice_msg);
	}
	bool ok = rc == 0 && diags->nerrors == 0;
	if (ok && c.tir && !check_resources(req, c.tir, c.tp, diags))
		ok = false;
	if (ok && dump_text && c.dump) {
		*dump_text = c.dump;
		c.dump = NULL;
	}
	if (ok) { /* the stages that ran (a dump may stop early), for --time */
		out->t_sema = c.t_stage[0];
		out->t_layout = c.t_stage[1];
		out->t_lower = c.t_stage[2];
		out->t_codegen = c.t_stage[3];
		out->t_total = now_seconds() - t0;
	}
	if (ok && (req->dump == DUMP_NONE || req->dump == DUMP_CUBIN)) {
		fill_result(&c, out);
		c.emitted.binary = NULL;
		out->t_total = now_seconds() - t0;
		if (use_cache) {
			size_t len;
			void *blob = kernel_blob_encode(out, &len);
			cache_put(req->cache, key, blob, len);
			free(blob);
		}
	}
	free(c.dump);
	emit_result_free(&c.emitted);
	nvrtc_memo_free(c.memo);
	arena_free(&arena);
	return ok ? 0 : -1;
}

void compiled_kernel_free(CompiledKernel *k)
{
	if (!k)
		return;
	free(k->name);
	free(k->args);
	free(k->binary);
	memset(k, 0, sizeof *k);
}

bool source_heuristic_values(SourceModule *m, DiagSink *diags, const char *kernel, const SpecArg *args,
                             int nargs, ConstVal *out, bool *set, int nparams, HeurLaunch *launch)
{
	Arena a; /* the pass's IR is thrown away */
	arena_init(&a);
	SemaCtx sc = {0};
	sc.arena = &a;
	sc.names = &m->names;
	sc.diags = diags;
	sc.load_module = source_find_import;
	sc.package_name = source_package_name;
	sc.loader_user = m;
	bool ok = sema_heuristic_values(&sc, m->ast, kernel, args, nargs, out, set, nparams, launch);
	for (int i = 0; ok && i < nparams; i++)
		if (set[i] && (out[i].kind == CV_STR || out[i].kind == CV_NAME))
			out[i].s = arena_strdup(&m->arena, out[i].s);
	arena_free(&a);
	return ok;
}

int source_list_kernels(SourceModule *m, DiagSink *diags, KernelInfo **out)
{
	SemaCtx sc = {0};
	sc.arena = &m->arena;
	sc.names = &m->names;
	sc.diags = diags;
	sc.load_module = source_find_import;
	sc.package_name = source_package_name;
	sc.loader_user = m;
	return sema_list_kernels(&sc, m->ast, out);
}

/* test_random_kernels.c: differential testing on random kernels. Each
 * kernel (random/rk_gen.c: a random expression tree of loads, arithmetic,
 * where, casts, reductions, scans, trans/permute, reshape, expand_dims,
 * broadcast_to, join/split and dot, stored through a mask; version 3 adds
 * combine_fns, scans, tl.math, bit ops, static_range, early returns, scalar
 * arguments of every tile dtype and 3-D grids; version 5 int16/uint16/
 * uint32/int64 tiles, mixed integer types, NaNs through max/min, float +
 * combine_fns, topk, 2-D masked loop loads; version 6 block pointers and
 * tensor descriptors at edges (loads, the store, K loops), @jit helpers
 * returning tuples in loops, fp16 dots, atomics' sem/scope; version 7 flash
 * attention, dot loops one after another and nested, dots into reductions)
 * runs on the cpu and
 * cuda-emu targets at several num_warps, and what it stores is compared with
 * the tree's value computed in C (random/rk_eval.c, no part of tile).
 *
 *   TILE_RANDOM_KERNELS=N   N kernels (default: the fixed list below)
 *   TILE_RANDOM_SEED=S      seeds S, S+1, ... instead of the fixed list
 *   TILE_RANDOM_WARPS=1,8   the num_warps to run (default 1,2,4,8 on cuda-emu,
 *                           half of them per kernel for the fixed list; one of
 *                           them per kernel in turn on cpu)
 *   TILE_RANDOM_DUMP_DIR=D  write every kernel to D/SEED.tile (+ D/list:
 *                           "SEED SIGNATURE") to compile them elsewhere
 *   TILE_RANDOM_VERBOSE=1   print each seed (and the forms it reaches) before
 *                           running it
 *   TILE_RANDOM_GEN=2       the generator's version 2 (default: the latest, 7;
 *                           rk.h's RK_GEN_*)
 *   TILE_RANDOM_ONLY=NAME   run only kernels that reach the form NAME (a part of
 *                           one of rk_feature_names: "fp8", "atomic", "while";
 *                           several, comma-separated: any of them)
 *   TILE_RANDOM_APART=1     run every kernel on cuda-emu a second time with
 *                           scratch_apart (TILE_SCRATCH_APART=1) and compare the
 *                           two outputs bit for bit (not with float atomics;
 *                           the fixed list's version 7 kernels always do)
 *
 * A failure prints the seed, the kernel and the first wrong element, and
 * writes $TMPDIR/tile-random-SEED/ (kern.tile, the inputs as .npy, run.sh: the
 * `tile run` line that reproduces it). */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "random/rk.h"
#include "tile.h"

/* The seeds `make check` runs. Version 2 kernels (about 29 s of CPU): 1..24,
 * 40, 2049 and 2426 reach every op and every form of rk_feature_names up to
 * kloop; 60, 315, 337, 995, 1241, 1399, 2357 and 2578 are small kernels for
 * what those miss (<<, input_precision tf32 and tf32x3, atomic_cas/xor/or/
 * and/add); 954 and 1045 are small K loops of tl.dot (kloop: pipelined on
 * cuda-emu, a value load through a chain); the ones after are kernels that
 * once found a bug. Version 3 kernels (rk.h's RK_GEN_V3, about 3 s): small
 * ones picked so that each of its forms shows up (every combine_fn, argmax/
 * argmin pairs with either tie rule, cumprod, reverse scans, each tl.math
 * function, clamp, propagate_nan, umulhi, each bitcast, static_range, both
 * early returns, scalars of fp16/bf16/int8/uint8/i16/u16/u32/i64/fp64/i1,
 * 3-D grids, cache/eviction/volatile hints), then kernels that found a bug. */
static const uint64_t fixed_seeds[] = {
	1,  2,  3,  4,  5,  6,  7,  8,  9,   10,   11,   12,   13,   14,   15,   16,   17,   18,   19,
	20, 21, 22, 23, 24, 40, 2049, 2426, 60, 315, 337, 995, 1241, 1399, 2357, 2578, 954, 1045,
};
static const uint64_t fixed_seeds3[] = {
	2815, 553, 2664, 920, 3871, 3631, 1875, 2209, 3225, 2909, 2613, 286,
	2271, 3511, 2916, 1531, 250, 3438, 1710, 3279, 3184, 1835, 2348,
};
/* Version 4 (RK_GEN_V4): K loops whose B rows come through an index load,
 * with more iterations than stages; both fail when the carried index is one
 * iteration behind (pipeline.c's index loads). */
static const uint64_t fixed_seeds4[] = {42, 295};
/* Version 5 (RK_GEN_V5): small kernels for each of its forms: int16/uint16,
 * uint32 and int64 tiles (shifts, //, sums and cumsums widening, bitcasts,
 * big integers to fp32, gather indices of other types, topk, 2-D masked loop
 * loads with a runtime other, atomics on uint32/int64 and fp16), NaNs
 * through clamp, tl.max/min, maximum and a propagating tl.reduce, float +
 * in tl.reduce and associative_scan, return_indices and tie_break_left. */
static const uint64_t fixed_seeds5[] = {265,  82,   716,  2007, 2923, 2956, 4961, 7115, 1901,
					2821, 2437, 6380, 1451, 110,  5661, 4433, 4404, 3744};
/* Version 6 (RK_GEN_V6): small kernels for each of its forms: loads with a
 * NaN padding at negative offsets through a tensor descriptor (1824) and an
 * advanced block pointer (2159), the store through a descriptor at a
 * negative offset (2647) and a block pointer (72), K loops through
 * descriptors (630), block pointers made at each iteration's offsets (2166)
 * and advanced ones (727), a helper returning a tuple in a tl.range loop
 * (241) and a tl.static_range one (1069), an fp16 out_dtype dot (1125), an
 * atomic with sem= (1433). */
static const uint64_t fixed_seeds6[] = {1824, 2159, 2647, 72, 630, 2166, 727, 241, 1069, 1125, 1433};
/* Version 7 (RK_GEN_V7): small kernels for each of its forms: flash
 * attention through tl.trans(k) in a loop over tiles (35), with V computed
 * from indices (783), causal with Q scaled in the kernel (357), two K loops
 * one after another (535), a dot into a reduction or scan (901). */
static const uint64_t fixed_seeds7[] = {35, 783, 357, 535, 901};

static const char *numpy_descr(rk_dtype t)
{
	switch (t) {
	case RK_F32:
		return "<f4";
	case RK_F16:
		return "<f2";
	case RK_BF16:
		return "<u2"; /* viewed as bf16 by `NAME=@file.npy:bf16` */
	case RK_I32:
		return "<i4";
	case RK_I8:
		return "|i1";
	case RK_I16:
		return "<i2";
	case RK_U16:
		return "<u2";
	case RK_U32:
		return "<u4";
	case RK_I64:
		return "<i8";
	default:
		return "|u1";
	}
}

static void write_npy(const char *path, rk_dtype t, const void *data, size_t count)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return;
	char hdr[128];
	int n = snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': False, 'shape': (%zu,), }", numpy_descr(t),
			 count);
	int total = 10 + n + 1, pad = (64 - total % 64) % 64;
	fwrite("\x93NUMPY\x01\x00", 1, 8, f);
	uint16_t hl = (uint16_t)(n + pad + 1);
	fputc(hl & 0xff, f);
	fputc(hl >> 8, f);
	fputs(hdr, f);
	for (int i = 0; i < pad; i++)
		fputc(' ', f);
	fputc('\n', f);
	fwrite(data, rk_size(t), count, f);
	fclose(f);
}

/* writes the kernel, its inputs and the `tile run` line that reproduces a failure */
static void write_repro(const rk_kernel *k, uint64_t seed, const char *target, int nw)
{
	const char *tmp = getenv("TMPDIR");
	char dir[512], path[700];
	snprintf(dir, sizeof dir, "%s/tile-random-%llu", tmp && *tmp ? tmp : "/tmp", (unsigned long long)seed);
	if (mkdir(dir, 0777) != 0 && errno != EEXIST)
		return;
	snprintf(path, sizeof path, "%s/kern.tile", dir);
	FILE *f = fopen(path, "w");
	if (!f)
		return;
	fputs(k->src, f);
	fclose(f);
	snprintf(path, sizeof path, "%s/run.sh", dir);
	f = fopen(path, "w");
	if (!f)
		return;
	char grid[48];
	if (k->grid3[0])
		snprintf(grid, sizeof grid, "%d,%d,%d", k->grid3[0], k->grid3[1], k->grid3[2]);
	else
		snprintf(grid, sizeof grid, "%d", k->grid > 1 ? k->grid : 1);
	fprintf(f, "# seed %llu; signature %s\nbuild/tile run %s/kern.tile kern --grid %s --target %s --num-warps %d",
		(unsigned long long)seed, k->sig, dir, grid, target, nw);
	for (int i = 0; i < k->nparams; i++) {
		const rk_param *p = &k->params[i];
		if (p->kind == RK_P_PTR) {
			snprintf(path, sizeof path, "%s/%s.npy", dir, p->name);
			if (i == k->out_param && !k->out_init) {
				void *zero = calloc(p->count, rk_size(p->t));
				write_npy(path, p->t, zero, p->count);
				free(zero);
			} else {
				write_npy(path, p->t, p->data, p->count);
			}
			fprintf(f, " %s=@%s%s", p->name, path, p->t == RK_BF16 ? ":bf16" : "");
		} else if (p->wide) {
			if (p->wide[0] == 'f')
				fprintf(f, " %s=%.17g", p->name, p->wf);
			else
				fprintf(f, " %s=%lld", p->name, (long long)p->wi);
		} else if (p->kind == RK_P_I32) {
			fprintf(f, " %s=%d", p->name, p->i);
		} else {
			fprintf(f, " %s=%.9g", p->name, (double)p->f);
		}
	}
	fprintf(f, " --out-dir %s/out\n", dir);
	fclose(f);
	fprintf(stderr, "  reproduce: sh %s/run.sh (out.npy against the reference above)\n", dir);
}

static void report(const rk_kernel *k, uint64_t seed, const char *target, int nw, const char *what)
{
	fprintf(stderr, "test_random_kernels: seed %llu [%s, num_warps=%d]: %s\n--- kernel (signature %s)\n%s---\n",
		(unsigned long long)seed, target, nw, what, k->sig, k->src);
	write_repro(k, seed, target, nw);
}

enum { SENTINEL = 0xA5 };

/* compiles (m) and runs k at num_warps nw on ctx's target; false after
 * reporting. keep: where to leave a copy of the output buffer (or NULL). */
static bool run_one(tile_context *ctx, tile_module *m, const rk_kernel *k, int nw, uint64_t seed, unsigned char **keep)
{
	const char *target = tile_context_target(ctx);
	tile_kernel_options opt = {0};
	opt.num_warps = nw;
	tile_kernel *kern = NULL;
	char what[1024];
	if (tile_kernel_get(m, "kern", k->sig, &opt, &kern) != TILE_OK) {
		snprintf(what, sizeof what, "compile error: %s", tile_errmsg(ctx));
		report(k, seed, target, nw, what);
		return false;
	}
	tile_arg args[RK_MAX_PARAMS];
	void *bufs[RK_MAX_PARAMS] = {0};
	for (int i = 0; i < k->nparams; i++) {
		const rk_param *p = &k->params[i];
		if (p->kind == RK_P_PTR) {
			size_t bytes = p->count * rk_size(p->t);
			bufs[i] = malloc(bytes ? bytes : 1); /* version 7 has inputs of 0 elements (data NULL) */
			if (i == k->out_param && !k->out_init)
				memset(bufs[i], SENTINEL, bytes);
			else if (bytes)
				memcpy(bufs[i], p->data, bytes);
			/* tile_dtype of the pointee: rk's dtypes map onto tile's */
			static const tile_dtype map[] = {TILE_FP32, TILE_FP16, TILE_BF16, TILE_I32, TILE_I8, TILE_U8,
							 TILE_U8,   TILE_I16,  TILE_U16,  TILE_U32, TILE_I64};
			args[i] = tile_arg_ptr(bufs[i], map[p->t]);
		} else if (p->wide) {
			args[i] = p->wide[0] == 'f' ? tile_arg_f64(p->wf) : tile_arg_i64(p->wi);
		} else if (p->kind == RK_P_I32) {
			args[i] = tile_arg_i32(p->i); /* int8/uint8 too: a value that fits */
		} else {
			args[i] = tile_arg_f32(p->f);
		}
	}
	uint32_t grid[3] = {k->grid > 1 ? (uint32_t)k->grid : 1, 1, 1};
	if (k->grid3[0])
		for (int d = 0; d < 3; d++)
			grid[d] = (uint32_t)k->grid3[d];
	bool ok = true;
	if (tile_launch(kern, grid, args, (size_t)k->nparams, NULL) != TILE_OK) {
		snprintf(what, sizeof what, "launch error: %s", tile_errmsg(ctx));
		report(k, seed, target, nw, what);
		ok = false;
	}
	const rk_param *out = &k->params[k->out_param];
	const unsigned char *ob = bufs[k->out_param];
	size_t n = out->count, es = rk_size(out->t);
	for (size_t i = 0; ok && i < n; i++) {
		size_t at = k->out_at[i];
		if (!k->stored[i]) {
			for (size_t b = 0; b < es; b++)
				if (ob[at * es + b] != SENTINEL) {
					snprintf(what, sizeof what, "element %zu is masked off but was written", i);
					report(k, seed, target, nw, what);
					ok = false;
					break;
				}
			continue;
		}
		double got = rk_get(out->t, ob, at), want = k->want.v[i], e = k->want.e[i];
		bool good = e == 0 ? got == want : fabs(got - want) <= 2 * e;
		if (!good) {
			snprintf(what, sizeof what, "element %zu: got %.17g, want %.17g (tolerance %.3g)", i, got, want,
				 2 * e);
			report(k, seed, target, nw, what);
			ok = false;
		}
	}
	if (keep) {
		*keep = malloc(n * es);
		memcpy(*keep, ob, n * es);
	}
	for (int i = 0; i < k->nparams; i++)
		free(bufs[i]);
	tile_kernel_destroy(kern);
	return ok;
}

static void dump(const rk_kernel *k, uint64_t seed, const char *dir)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%llu.tile", dir, (unsigned long long)seed);
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(k->src, f);
		fclose(f);
	}
	snprintf(path, sizeof path, "%s/list", dir);
	f = fopen(path, "a");
	if (f) {
		fprintf(f, "%llu %s\n", (unsigned long long)seed, k->sig);
		fclose(f);
	}
}

int main(void)
{
	/* shared-memory races fail the launch (jit/rt_race.h), as in test_lang */
	setenv("TILE_RACECHECK", "1", 0);
	const char *env_n = getenv("TILE_RANDOM_KERNELS"), *env_seed = getenv("TILE_RANDOM_SEED");
	const char *env_warps = getenv("TILE_RANDOM_WARPS"), *dump_dir = getenv("TILE_RANDOM_DUMP_DIR");
	bool verbose = getenv("TILE_RANDOM_VERBOSE") && *getenv("TILE_RANDOM_VERBOSE");
	const char *only = getenv("TILE_RANDOM_ONLY");
	uint64_t only_mask = 0;
	/* comma-separated parts of names */
	for (const char *p = only; p && *p;) {
		size_t len = strcspn(p, ",");
		for (int f = 0; f < RK_F_COUNT; f++)
			for (const char *q = rk_feature_names[f]; len && *q; q++)
				if (strncmp(q, p, len) == 0) {
					only_mask |= RK_F(f);
					break;
				}
		p += len;
		p += *p == ',';
	}
	size_t nfixed2 = sizeof fixed_seeds / sizeof *fixed_seeds;
	size_t nfixed3 = nfixed2 + sizeof fixed_seeds3 / sizeof *fixed_seeds3;
	size_t nfixed4 = nfixed3 + sizeof fixed_seeds4 / sizeof *fixed_seeds4;
	size_t nfixed5 = nfixed4 + sizeof fixed_seeds5 / sizeof *fixed_seeds5;
	size_t nfixed6 = nfixed5 + sizeof fixed_seeds6 / sizeof *fixed_seeds6;
	size_t nfixed = nfixed6 + sizeof fixed_seeds7 / sizeof *fixed_seeds7;
	const char *env_gen = getenv("TILE_RANDOM_GEN");
	int version = env_gen && *env_gen ? atoi(env_gen) : RK_GEN_LATEST;
	size_t count = env_n && *env_n ? strtoull(env_n, NULL, 10) : nfixed;
	bool fixed = !(env_seed && *env_seed);
	uint64_t first = fixed ? 0 : strtoull(env_seed, NULL, 10);
	if (fixed && count > nfixed)
		count = nfixed;
	int warps[8] = {1, 2, 4, 8}, nwarps = 4;
	if (env_warps && *env_warps) {
		nwarps = 0;
		for (const char *p = env_warps; *p && nwarps < 8;) {
			warps[nwarps++] = atoi(p);
			p += strcspn(p, ",");
			p += *p == ',';
		}
	}

	/* TILE_RANDOM_APART=1: a third context, cuda-emu with scratch_apart
	 * (read from the environment when a context is made) */
	const char *env_apart = getenv("TILE_RANDOM_APART");
	bool apart = env_apart && *env_apart && strcmp(env_apart, "0") != 0;
	/* the fixed list's version 7 kernels always run it */
	bool apart_ctx = apart || fixed;
	static const char *const targets[] = {"cpu", "cuda-emu", "cuda-emu"};
	tile_context *ctx[3] = {0};
	int nctx = apart_ctx ? 3 : 2;
	for (int t = 0; t < nctx; t++) {
		tile_context_options o = {0};
		o.target = targets[t];
		o.disable_cache = 1;
		o.num_threads = 1;
		const char *was = getenv("TILE_SCRATCH_APART");
		char *saved = was ? strdup(was) : NULL;
		if (t == 2)
			setenv("TILE_SCRATCH_APART", "1", 1);
		tile_status st = tile_context_create(&ctx[t], &o);
		if (t == 2 && saved)
			setenv("TILE_SCRATCH_APART", saved, 1);
		else if (t == 2)
			unsetenv("TILE_SCRATCH_APART");
		free(saved);
		if (st != TILE_OK) {
			fprintf(stderr, "test_random_kernels: no %s context\n", targets[t]);
			return 1;
		}
	}
	int failed = 0, runs = 0, nodes = 0, kernels = 0;
	uint64_t features = 0;
	for (size_t i = 0; i < count; i++) {
		uint64_t seed = !fixed ? first + i
			      : i < nfixed2 ? fixed_seeds[i]
			      : i < nfixed3 ? fixed_seeds3[i - nfixed2]
			      : i < nfixed4 ? fixed_seeds4[i - nfixed3]
			      : i < nfixed5 ? fixed_seeds5[i - nfixed4]
			      : i < nfixed6 ? fixed_seeds6[i - nfixed5]
					    : fixed_seeds7[i - nfixed6];
		int ver = !fixed ? version
			: i < nfixed2 ? RK_GEN_V2
			: i < nfixed3 ? RK_GEN_V3
			: i < nfixed4 ? RK_GEN_V4
			: i < nfixed5 ? RK_GEN_V5
			: i < nfixed6 ? RK_GEN_V6
				      : RK_GEN_V7;
		rk_kernel k;
		rk_generate(&k, seed, ver);
		if (only_mask && !(k.features & only_mask)) {
			rk_kernel_free(&k);
			continue;
		}
		nodes += k.nodes;
		features |= k.features;
		if (verbose) {
			fprintf(stderr, "seed %llu (%d ops", (unsigned long long)seed, k.nodes);
			for (int f = 0; f < RK_F_COUNT; f++)
				if (k.features & RK_F(f))
					fprintf(stderr, "; %s", rk_feature_names[f]);
			fprintf(stderr, ")\n");
		}
		if (dump_dir && *dump_dir)
			dump(&k, seed, dump_dir);
		bool ok = true;
		/* the apart differential compares bits: not where float atomics' order shows */
		const rk_param *outp = &k.params[k.out_param];
		bool differ = (apart || (fixed && ver >= RK_GEN_V7)) && !(k.out_init && rk_is_float(outp->t));
		tile_module *ma = NULL;
		if (differ && tile_module_load_source(ctx[2], "random.py", k.src, strlen(k.src), &ma) != TILE_OK) {
			report(&k, seed, "cuda-emu apart", 0, tile_errmsg(ctx[2]));
			ok = false;
		}
		for (int t = 0; t < 2 && ok; t++) {
			tile_module *m = NULL;
			if (tile_module_load_source(ctx[t], "random.py", k.src, strlen(k.src), &m) != TILE_OK) {
				report(&k, seed, targets[t], 0, tile_errmsg(ctx[t]));
				ok = false;
				break;
			}
			/* the cpu target runs one num_warps per kernel, in turn; cuda-emu
			 * all of them, or in the fixed list (time) every other one */
			for (int w = 0; w < nwarps && ok; w++) {
				int turn = (w + nwarps - (int)(i % (size_t)nwarps)) % nwarps;
				if (turn != 0 && (t == 0 || (fixed && !env_warps && turn % 2)))
					continue;
				unsigned char *got = NULL, *got_apart = NULL;
				bool twice = t == 1 && differ;
				ok = run_one(ctx[t], m, &k, warps[w], seed, twice ? &got : NULL);
				runs++;
				if (ok && twice) {
					/* scratch placed apart: the same bits, or a live buffer was overwritten */
					ok = run_one(ctx[2], ma, &k, warps[w], seed, &got_apart);
					runs++;
					size_t es = rk_size(outp->t);
					for (size_t j = 0; ok && j < outp->count; j++)
						if (memcmp(got + j * es, got_apart + j * es, es) != 0) {
							char what[160];
							snprintf(what, sizeof what,
								 "TILE_SCRATCH_APART=1 changes output element %zu: %.9g, apart %.9g", j,
								 rk_get(outp->t, got, j), rk_get(outp->t, got_apart, j));
							report(&k, seed, "cuda-emu", warps[w], what);
							ok = false;
						}
				}
				free(got);
				free(got_apart);
			}
			tile_module_destroy(m);
		}
		tile_module_destroy(ma);
		failed += !ok;
		kernels++;
		rk_kernel_free(&k);
	}
	for (int t = 0; t < nctx; t++)
		tile_context_destroy(ctx[t]);
	/* version 7's attention references must be tight enough to see a dropped cast */
	if (fixed && !rk_attn_check())
		failed++;
	printf("test_random_kernels: %d kernels (%d ops), %d runs, %d failed\n", kernels, nodes, runs, failed);
	/* the fixed list must reach every form (a change to the generator
	 * changes its kernels: pick seeds again with TILE_RANDOM_VERBOSE) */
	bool missing = false;
	for (int f = 0; f < RK_F_COUNT; f++)
		if (!(features & RK_F(f)) && (fixed || verbose)) {
			fprintf(stderr, "test_random_kernels: no kernel reaches %s\n", rk_feature_names[f]);
			missing |= fixed && count == nfixed;
		}
	return failed || missing ? 1 : 0;
}

/* rk_gen.c: a random, well-typed Triton kernel for test_random_kernels.c.
 *
 * The kernel is an expression tree built top-down: a node is asked for a
 * shape and a dtype and picks an op that gives them (elementwise arithmetic
 * with broadcasting, where/compare, casts, reductions, scans, trans/permute,
 * reshape, expand_dims, broadcast_to, join/split, dot), asking its operands
 * for the shapes and dtypes that op needs; leaves are masked loads, tl.full and
 * tl.arange. Each node's reference (rk_eval.c) is computed as the node is
 * made, so an op whose result the reference cannot pin down (a comparison of
 * values within rounding of each other, an out-of-range cast) is dropped for
 * another. The root is a masked store.
 *
 * This file holds the op table and the kernel around the tree (its
 * parameters, the masked store or the atomics the root goes to); the ops
 * are in rk_gen_leaf.c (leaves), rk_gen_expr.c (elementwise), rk_gen_reduce.c
 * (reductions, scans, sort, topk), rk_gen_view.c (views and data movement),
 * rk_gen_dot.c (dots and loops), rk_gen_attn.c (attention, loops of dots
 * one after another and nested, dots into reductions), rk_gen_scan.c (combine_fns), rk_gen_math.c
 * (tl.math, bit casts), rk_gen_nan.c (NaNs), rk_gen_block.c (block pointers
 * and tensor descriptors) and rk_gen_tuple.c (helpers returning tuples),
 * their shared state in rk_gen.h. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk_gen.h"

void rg_sb_printf(sbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (b->len + (size_t)n + 1 > b->cap) {
		size_t cap = (b->cap ? b->cap * 2 : 1024) + (size_t)n;
		char *p = realloc(b->p, cap);
		if (!p)
			abort();
		b->p = p;
		b->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

const char *const rk_feature_names[RK_F_COUNT] = {
	"batched dot", "tf32-family dot", "int8 dot", "cat", "interleave", "gather", "histogram",
	"fp8 round trip", "atomics on a grid", "atomic_xchg/cas", "while loop", "tl.range num_stages",
	"kloop (pipelinable K loop)", "tl.reduce with a combine_fn", "(value, index) argmax pairs",
	"associative_scan/cumprod", "tl.math functions", "umulhi/bitcast", "tl.static_range",
	"early return", "scalar argument of another dtype", "3-D grid", "cache/eviction modifiers",
	"kloop through an index load", "int16/uint16 tiles", "uint32 tiles", "int64 tiles",
	"NaN through max/min", "float + combine_fn", "tl.topk", "2-D masked loop load", "block pointer",
	"tensor descriptor", "padding_option nan", "store through a block pointer/descriptor",
	"kloop through block pointers/descriptors", "jit helper returning a tuple", "fp16 out_dtype dot",
	"atomic sem/scope", "flash attention (dot of exp2 scores)", "attention's tl.trans(k)",
	"causal mask", "two dot loops one after another", "dot loop nested in a loop", "computed dot operand in a loop",
	"dot into a reduction/scan/permute"};

node *rg_new_node(gen *g, const rk_val *v, const char *name)
{
	node *n = calloc(1, sizeof *n);
	if (!n)
		abort();
	n->v = *v;
	/* version 5's integer types (no earlier version makes them) */
	n->feat = v->t == RK_I16 || v->t == RK_U16 ? RK_F_INT16 : v->t == RK_U32 ? RK_F_U32 : v->t == RK_I64 ? RK_F_I64 : 0;
	snprintf(n->name, sizeof n->name, "%s", name);
	n->next = g->nodes;
	g->nodes = n;
	return n;
}

/* a fresh variable name */
const char *rg_var(gen *g, char *buf)
{
	snprintf(buf, 32, "v%d", g->nvar++);
	return buf;
}

rk_param *rg_add_param(gen *g, rk_param_kind kind, rk_dtype t)
{
	rk_kernel *k = g->k;
	/* the last slot is the output's */
	if (k->nparams >= RK_MAX_PARAMS - (kind == RK_P_PTR && g->out_made ? 0 : 1))
		return NULL;
	rk_param *p = &k->params[k->nparams++];
	memset(p, 0, sizeof *p);
	p->kind = kind;
	p->t = t;
	if (kind == RK_P_PTR)
		snprintf(p->name, sizeof p->name, "x%d", g->nptr++);
	else if (kind == RK_P_I32)
		snprintf(p->name, sizeof p->name, "n%d", g->nint++);
	else
		snprintf(p->name, sizeof p->name, "f%d", g->nflt++);
	return p;
}

void rg_shape_text(const rk_shape *s, char *buf, size_t size)
{
	size_t n = (size_t)snprintf(buf, size, "(");
	for (int k = 0; k < s->rank; k++)
		n += (size_t)snprintf(buf + n, size - n, "%s%d", k ? ", " : "", s->d[k]);
	snprintf(buf + n, size - n, s->rank == 1 ? ",)" : ")");
}

/* x[:, None]-style index that puts a 1-D tile on dim k of a rank-r tile */
const char *rg_place(int r, int k)
{
	static const char *const t[4][3] = {{""},
					    {""},
					    {"[:, None]", "[None, :]"},
					    {"[:, None, None]", "[None, :, None]", "[None, None, :]"}};
	return t[r][k];
}

int rg_log2i(int x)
{
	int l = 0;
	while ((1 << l) < x)
		l++;
	return l;
}

rk_shape rg_random_shape(gen *g, int rank)
{
	rk_shape s = {rank, {0}};
	for (int k = 0; k < rank; k++)
		s.d[k] = chance(g, 20) ? 1 << below(g, 2) : 1 << below(g, rank == 1 ? 13 : 9);
	while (rk_numel(&s) > RK_MAX_NUMEL) {
		int big = 0;
		for (int k = 1; k < rank; k++)
			big = s.d[k] > s.d[big] ? k : big;
		s.d[big] /= 2;
	}
	return s;
}

rk_dtype rg_random_dtype(gen *g)
{
	static const rk_dtype pick[] = {RK_F32, RK_F32, RK_F32, RK_F16, RK_F16, RK_BF16,
					RK_I32, RK_I32, RK_I32, RK_I8,  RK_U8};
	/* version 5: the other integers too */
	static const rk_dtype pick5[] = {RK_F32, RK_F32, RK_F32, RK_F16, RK_F16, RK_BF16, RK_I32, RK_I32,
					 RK_I8,  RK_U8,  RK_I16, RK_U16, RK_U32, RK_U32, RK_I64, RK_I64};
	if (g->v5)
		return pick5[below(g, (int)(sizeof pick5 / sizeof *pick5))];
	return pick[below(g, (int)(sizeof pick / sizeof *pick))];
}

/* the features of the nodes whose variables `text` names */
uint64_t rg_feat_of_text(gen *g, const char *text)
{
	uint64_t f = 0;
	for (const char *p = text; *p;) {
		if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))) {
			p++;
			continue;
		}
		size_t len = 1;
		while (p[len] == '_' || (p[len] >= 'a' && p[len] <= 'z') || (p[len] >= 'A' && p[len] <= 'Z') ||
		       (p[len] >= '0' && p[len] <= '9'))
			len++;
		for (node *n = g->nodes; n; n = n->next)
			if (strlen(n->name) == len && memcmp(n->name, p, len) == 0)
				f |= n->feat;
		p += len;
	}
	return f;
}

/* commits an op's result under a new variable defined by `expr` */
node *rg_emit(gen *g, rk_val *v, const char *expr)
{
	char name[32];
	rg_var(g, name);
	rg_sb_printf(&g->body, "    %s = %s\n", name, expr);
	uint64_t f = rg_feat_of_text(g, expr);
	node *n = rg_new_node(g, v, name);
	n->feat |= f;
	return n;
}

/* version 6: ".to(t)" after tl.maximum/minimum/clamp where Triton's result
 * may not be t (bf16 is computed in fp32, Python numbers are int32/fp32
 * tensors there: tl.maximum(x_fp16, 0.5) is fp32, tl.maximum(x_int8, 3)
 * int32); the value is the same, a value of t. Versions 2-5 leave it out
 * (their kernels from tile's weak-scalar days stay as they were). */
const char *rg_minmax_to(gen *g, rk_dtype t)
{
	static const char *const to[] = {[RK_F16] = ".to(tl.float16)", [RK_BF16] = ".to(tl.bfloat16)",
					 [RK_I8] = ".to(tl.int8)",      [RK_U8] = ".to(tl.uint8)",
					 [RK_I16] = ".to(tl.int16)",    [RK_U16] = ".to(tl.uint16)"};
	return g->v6 && (size_t)t < sizeof to / sizeof *to && to[t] ? to[t] : "";
}

typedef node *(*op_fn)(gen *, const rk_shape *, rk_dtype, int);

node *gen_node(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	/* ver: the version that adds the op, weight 0 before it (so that the
	 * earlier versions' streams stay as they were) */
	static const struct {
		op_fn fn;
		int weight;
		int ver;
	} ops[] = {{op_binary, 30, 2}, {op_unary, 6, 2},  {op_where, 10, 2}, {op_cast, 8, 2},
		   {op_reduce, 12, 2}, {op_cumsum, 4, 2}, {op_permute, 6, 2}, {op_reshape, 5, 2},
		   {op_expand, 6, 2},  {op_broadcast, 4, 2}, {op_join, 4, 2}, {op_split, 4, 2}, {op_dot, 8, 2},
		   {op_rowwise, 6, 2}, {op_loop, 8, 2}, {op_order, 4, 2}, {op_gather, 4, 2}, {op_histogram, 3, 2},
		   {op_interleave, 3, 2}, {op_sort_cat, 2, 2}, {op_fp8, 4, 2},
		   {op_combine, 6, 3}, {op_scan, 5, 3}, {op_math, 8, 3}, {op_intbits, 4, 3},
		   {op_wide, 4, 3}, {op_nan, 5, 5}, {op_topk, 3, 5}, {op_maxidx, 4, 5}, {op_tuple, 5, 6},
		   {op_attn, 6, 7}, {op_loops2, 3, 7}, {op_dotred, 6, 7}};
	enum { NOPS = sizeof ops / sizeof *ops };
	/* sometimes a tile made before, used twice */
	if (chance(g, 8))
		for (node *n = g->nodes; n; n = n->next)
			if (n->v.t == t && n->v.s.rank == s->rank && n->name[0] == 'v' &&
			    memcmp(n->v.s.d, s->d, sizeof(int) * (size_t)s->rank) == 0)
				return n;
	bool root = g->root;
	g->root = false;
	if (depth <= 0 || g->budget <= 0 || (!root && chance(g, 8)))
		return rg_leaf(g, s, t);
	g->budget--;
	/* a dot fits few shapes: try it first where it does */
	if ((t == RK_F32 || t == RK_I32 || (g->v6 && t == RK_F16)) && dot_shape(s) && chance(g, 30)) {
		/* version 7: sometimes flash attention's two dots in a loop (or two
		 * such loops one after another) */
		node *n = g->v7 && s->rank == 2 && (t == RK_F32 || t == RK_F16) && chance(g, 40)
			    ? (t == RK_F32 && chance(g, 25) ? op_loops2 : op_attn)(g, s, t, depth) : NULL;
		/* or a K loop of dots, pipelined on cuda-emu */
		if (!n)
			n = t == RK_F32 && s->rank == 2 && chance(g, 40) ? op_kloop(g, s, 2 + below(g, 3)) : NULL;
		if (!n)
			n = op_dot(g, s, t, depth);
		if (n) {
			g->k->nodes++;
			return n;
		}
	}
	int total = 0, weight[NOPS], have = g->v7 ? 7 : g->v6 ? 6 : g->v5 ? 5 : g->v3 ? 3 : 2;
	for (int i = 0; i < NOPS; i++)
		total += weight[i] = ops[i].ver > have ? 0 : ops[i].weight;
	for (int attempt = 0; attempt < 6; attempt++) {
		int w = below(g, total), i = 0;
		while (w >= weight[i])
			w -= weight[i++];
		node *n = ops[i].fn(g, s, t, depth);
		if (n) {
			g->k->nodes++;
			return n;
		}
	}
	return rg_leaf(g, s, t);
}

/* ---- the root given to atomics from a grid of programs ------------------------- */

/* the final memory is the same in any order of the programs: add/max/min/
 * and/or/xor of root + pid into every element the mask lets through; xchg of
 * root + pid by the one program that owns an element (its offset % grid);
 * cas(cmp, root) by all, which sets exactly the elements that held cmp */
static bool atomic_root(gen *g, const node *root, rk_param *out, const char *off, const char *mask)
{
	rk_kernel *k = g->k;
	rk_dtype t = root->v.t;
	const rk_shape *s = &root->v.s;
	/* fp16/bf16 (version 5) have atomic_add only */
	const char *ops = t == RK_F32 ? "+Mmxc" : rk_is_float(t) ? "+" : "+Mm&|^xc";
	int op = ops[below(g, (int)strlen(ops))], G = 2 + below(g, 3);
	size_t n = rk_numel(s);
	node *cmp = op == 'c' ? rg_leaf_load(g, s, t) : NULL;
	if (op == 'c' && !cmp)
		return false;
	rk_val vals[4], init, fold;
	memset(vals, 0, sizeof vals);
	bool ok = true;
	for (int p = 0; p < G && ok; p++) {
		rk_val pv;
		rk_shape s0 = {0, {0}};
		rk_alloc(&pv, &s0, RK_I32);
		pv.v[0] = op == 'c' ? 0 : p;
		ok = rk_binary(&vals[p], '+', &root->v, &pv);
		rk_free(&pv);
		if (ok && vals[p].t != t) {
			/* fp16/bf16 + pid: cast back (bf16 + int32 is fp32) */
			rk_val c;
			ok = rk_cast(&c, &vals[p], t);
			rk_free(&vals[p]);
			if (ok)
				vals[p] = c;
		}
	}
	rk_alloc(&init, s, t);
	bool exact = chance(g, 70);
	for (size_t i = 0; i < n; i++) {
		double x = rg_random_value(g, t, exact);
		if (cmp && chance(g, 50))
			x = cmp->v.v[i];
		rk_put(t, out->data, k->out_at[i], x);
		init.v[i] = rk_get(t, out->data, k->out_at[i]);
	}
	bool bitwise = op == '+' || op == 'M' || op == 'm' || op == '&' || op == '|' || op == '^';
	ok = ok && (!bitwise || rk_atomic_fold(&fold, op, &init, vals, G));
	if (ok) {
		rk_free(&k->want);
		rk_alloc(&k->want, s, t);
		for (size_t i = 0; i < n; i++) {
			int owner = (int)(k->out_at[i] % (size_t)G);
			bool in = op == 'c' || (k->stored[i] && (op != 'x' || owner >= 0));
			const rk_val *w = !in ? &init : bitwise ? &fold : op == 'x' ? &vals[owner]
					: init.v[i] == cmp->v.v[i] ? &vals[0] : &init;
			k->want.v[i] = w->v[i];
			k->want.e[i] = w->e[i];
			k->stored[i] = true;
		}
		if (bitwise)
			rk_free(&fold);
		static const char *const names[] = {"add", "max", "min", "and", "or", "xor", "xchg", "cas"};
		const char *name = names[strchr("+Mm&|^xc", op) - "+Mm&|^xc"];
		char full_mask[400];
		if (op == 'x')
			snprintf(full_mask, sizeof full_mask, "%s%s((%s) %% %d == pid)", mask, mask[0] ? " & " : "", off, G);
		else
			snprintf(full_mask, sizeof full_mask, "%s", mask);
		rg_sb_printf(&g->body, chance(g, 50) ? "    pid = tl.program_id(0)\n" : "    pid = tl.program_id(axis=0)\n");
		if (op != 'c' && rk_is_float(t) && t != RK_F32)
			rg_sb_printf(&g->body, "    val = (%s + pid).to(%s)\n", root->name, rk_tl_name(t));
		else if (op != 'c')
			rg_sb_printf(&g->body, "    val = %s + pid\n", root->name);
		/* version 6: every sem, scope="sys" (not "cta": the programs share the memory) */
		static const char *const sems[] = {", sem=\"acquire\"", ", sem=\"release\"", ", sem=\"acq_rel\"",
						   ", sem=\"relaxed\", scope=\"sys\"", ", scope=\"gpu\", sem=\"acq_rel\""};
		int si = g->v6 && chance(g, 40) ? below(g, 5) : -1;
		const char *sem = si >= 0 ? sems[si] : chance(g, 30) ? ", sem=\"relaxed\"" : chance(g, 20) ? ", scope=\"gpu\"" : "";
		k->features |= si >= 0 ? RK_F_SEM : 0;
		bool method = chance(g, 25);
		if (op == 'c')
			rg_sb_printf(&g->body, method ? "    (out + (%s)).atomic_cas(%s, %s%s)\n" : "    tl.atomic_cas(out + (%s), %s, %s%s)\n",
				  off, cmp->name, root->name, sem);
		else if (method)
			rg_sb_printf(&g->body, "    (out + (%s)).atomic_%s(val%s%s%s)\n", off, name, full_mask[0] ? ", mask=" : "",
				  full_mask, sem);
		else
			rg_sb_printf(&g->body, "    tl.atomic_%s(out + (%s), val%s%s%s)\n", name, off, full_mask[0] ? ", mask=" : "",
				  full_mask, sem);
		k->grid = G;
		k->out_init = true;
		k->features |= RK_F_ATOMIC | (op == 'x' || op == 'c' ? RK_F_XCHG_CAS : 0) | (cmp ? cmp->feat : 0);
	}
	for (int p = 0; p < G; p++)
		rk_free(&vals[p]);
	rk_free(&init);
	return ok;
}

/* the root stored through the mask; in version 3 sometimes by every program
 * of a 3-D grid into its own copy of the output, after an early return that
 * one program (or, on one program, the kernel) may take, with cache and
 * eviction hints */
static void plain_store(gen *g, const node *root, rk_param *out, const char *off, const char *mask)
{
	rk_kernel *k = g->k;
	size_t n = rk_numel(&root->v.s);
	bool grid3 = g->v3 && chance(g, 12), ret = g->v3 && chance(g, 10);
	const char *hint = g->v3 && chance(g, 12) ? (chance(g, 50) ? ", cache_modifier=\".cs\"" : ", eviction_policy=\"evict_first\"") : "";
	char pidoff[64] = "", val[32];
	snprintf(val, sizeof val, "%s", root->name);
	int G = 1;
	if (grid3) {
		for (int d = 0; d < 3; d++)
			G *= k->grid3[d] = 1 + below(g, 2);
		/* every program stores a copy: out[pid * n + off], pid linear over the grid */
		rg_sb_printf(&g->body, "    pid = tl.program_id(0) + tl.num_programs(0) * (tl.program_id(1) + "
				       "tl.num_programs(1) * tl.program_id(axis=2))\n");
		snprintf(pidoff, sizeof pidoff, "pid * %zu + ", n);
		snprintf(val, sizeof val, "val");
		/* each copy + its pid, so that a program that stores another's copy shows */
		rg_sb_printf(&g->body, "    val = (%s + pid).to(%s)\n", root->name, rk_tl_name(root->v.t));
		out->count = n * (size_t)G;
		free(out->data);
		out->data = calloc(out->count, rk_size(out->t));
		rk_val want;
		rk_shape ws = {1, {(int)(n * (size_t)G)}};
		rk_alloc(&want, &ws, k->want.t);
		bool *stored = calloc(out->count, sizeof(bool));
		size_t *at = calloc(out->count, sizeof(size_t));
		for (size_t i = 0; i < out->count; i++) {
			/* x + pid in x's dtype (an int32 pid meeting floats is a float) */
			double x = k->want.v[i % n], r = rk_round(k->want.t, x + (double)(i / n));
			want.v[i] = r;
			bool rounds = rk_is_float(k->want.t) && (r != x + (double)(i / n) || k->want.e[i % n] > 0);
			want.e[i] = k->want.e[i % n] + (rounds ? rk_ulp(k->want.t, r) : 0);
			stored[i] = k->stored[i % n];
			at[i] = (i / n) * n + k->out_at[i % n];
		}
		rk_free(&k->want);
		free(k->stored);
		free(k->out_at);
		k->want = want, k->stored = stored, k->out_at = at;
		k->features |= RK_F_GRID3;
	}
	if (ret) {
		/* returns on program r of the grid (or, with one program, when r is 1) */
		rk_param *rp = rg_add_param(g, RK_P_I32, RK_I32);
		if (rp) {
			rp->i = below(g, G + 1);
			if (grid3)
				rg_sb_printf(&g->body, "    if pid == %s:\n        return\n", rp->name);
			else
				rg_sb_printf(&g->body, "    if %s == 1:\n        return\n", rp->name);
			for (size_t i = 0; i < out->count; i++)
				if (grid3 ? (int)(i / n) == rp->i : rp->i == 1)
					k->stored[i] = false;
			k->features |= RK_F_RETURN;
		}
	}
	if (hint[0])
		k->features |= RK_F_CACHE;
	if (mask[0])
		rg_sb_printf(&g->body, "    tl.store(out + %s(%s), %s, mask=%s%s)\n", pidoff, off, val, mask, hint);
	else
		rg_sb_printf(&g->body, "    tl.store(out + %s(%s), %s%s)\n", pidoff, off, val, hint);
}

/* ---- the kernel ------------------------------------------------------------------- */

void rk_generate(rk_kernel *k, uint64_t seed, int version)
{
	memset(k, 0, sizeof *k);
	gen g = {0};
	g.rng = seed * UINT64_C(0x2545f4914f6cdd1d) + 1;
	g.k = k;
	g.v3 = version >= RK_GEN_V3;
	g.v4 = version >= RK_GEN_V4;
	g.v5 = version >= RK_GEN_V5;
	g.v6 = version >= RK_GEN_V6;
	g.v7 = version >= RK_GEN_V7;
	g.budget = 5 + below(&g, 14);
	int r = below(&g, 100);
	rk_shape s = rg_random_shape(&g, r < 30 ? 1 : r < 85 ? 2 : 3);
	rk_dtype t = rg_random_dtype(&g);
	if (chance(&g, 15)) {
		/* a matmul-shaped root, where dots go (batched: [B, M, N]) */
		s = (rk_shape){2, {16 << below(&g, 3), 16 << below(&g, 3)}};
		if (chance(&g, 25))
			s = (rk_shape){3, {1 << below(&g, 3), 16 << below(&g, 2), 16 << below(&g, 2)}};
		t = chance(&g, 80) ? RK_F32 : RK_I32;
	} else if (g.v7 && chance(&g, 20)) {
		/* version 7: an attention-shaped root [M, DV] (fp32, or fp16 as stored) */
		s = (rk_shape){2, {16 << below(&g, 3), 16 << below(&g, 3)}};
		t = chance(&g, 80) ? RK_F32 : RK_F16;
	}
	/* sometimes given to atomics from a grid of programs instead of stored */
	bool atomic = chance(&g, 12);
	bool atomic_t = t == RK_F32 || t == RK_I32 || (g.v5 && (t == RK_U32 || t == RK_I64 || t == RK_F16 || t == RK_BF16));
	if (atomic && !atomic_t)
		t = chance(&g, 50) ? RK_F32 : RK_I32;
	g.root = true;
	node *root = gen_node(&g, &s, t, 4 + below(&g, 4));

	g.out_made = true;
	rk_param *out = rg_add_param(&g, RK_P_PTR, t);
	snprintf(out->name, sizeof out->name, "out");
	k->out_param = (int)(out - k->params);
	size_t n = rk_numel(&s);
	out->count = n;
	out->data = malloc(n * rk_size(t));
	char off[256] = "", mask[256] = "";
	int bound[RK_MAX_RANK];
	/* dense, its dims sometimes in another order (a transposed store) */
	int order[RK_MAX_RANK] = {0, 1, 2};
	if (s.rank > 1 && chance(&g, 25))
		for (int d = s.rank - 1; d > 0; d--) {
			int j = below(&g, d + 1), tmp = order[d];
			order[d] = order[j], order[j] = tmp;
		}
	long stride[RK_MAX_RANK], st = 1;
	for (int d = s.rank - 1; d >= 0; d--) {
		stride[order[d]] = st;
		st *= s.d[order[d]];
	}
	for (int d = 0; d < s.rank; d++) {
		rg_sb_printf(&g.body, "    so%d = tl.arange(0, %d)\n", d, s.d[d]);
		bound[d] = s.d[d];
		size_t ol = strlen(off);
		if (stride[d] == 1)
			snprintf(off + ol, sizeof off - ol, "%sso%d%s", d ? " + " : "", d, rg_place(s.rank, d));
		else
			snprintf(off + ol, sizeof off - ol, "%sso%d%s * %ld", d ? " + " : "", d, rg_place(s.rank, d), stride[d]);
		if (chance(&g, 50)) {
			rk_param *np = rg_add_param(&g, RK_P_I32, RK_I32);
			if (np) {
				np->i = bound[d] = 1 + below(&g, s.d[d]);
				size_t ml = strlen(mask);
				snprintf(mask + ml, sizeof mask - ml, "%s(so%d%s < %s)", ml ? " & " : "", d, rg_place(s.rank, d),
					 np->name);
			}
		}
	}
	k->stored = calloc(n, sizeof(bool));
	k->out_at = calloc(n, sizeof(size_t));
	for (size_t i = 0; i < n; i++) {
		size_t f = i, at = 0;
		bool in = true;
		for (int d = s.rank - 1; d >= 0; d--) {
			int idx = (int)(f % (size_t)s.d[d]);
			in &= idx < bound[d];
			at += (size_t)idx * (size_t)stride[d];
			f /= (size_t)s.d[d];
		}
		k->stored[i] = in;
		k->out_at[i] = at;
	}
	rk_alloc(&k->want, &s, t);
	memcpy(k->want.v, root->v.v, n * sizeof(double));
	memcpy(k->want.e, root->v.e, n * sizeof(double));
	k->features = root->feat;
	/* version 6: sometimes through a block pointer or a descriptor */
	if (!(atomic && atomic_root(&g, root, out, off, mask)) && !(g.v6 && chance(&g, 15) && rg_block_store(&g, root, out)))
		plain_store(&g, root, out, off, mask);

	sbuf src = {0};
	rg_sb_printf(&src, "import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef kern(");
	size_t sl = 0;
	for (int i = 0; i < k->nparams; i++) {
		rk_param *p = &k->params[i];
		rg_sb_printf(&src, "%s%s", i ? ", " : "", p->name);
		sl += (size_t)snprintf(k->sig + sl, sizeof k->sig - sl, "%s%s%s", i ? "," : "",
				       p->kind == RK_P_PTR ? "*" : "", p->wide ? p->wide : rk_sig_name(p->t));
	}
	rg_sb_printf(&src, "):\n%s", g.body.p);
	if (g.pre.p) {
		/* the combine_fns go before the kernel */
		sbuf all = {0};
		rg_sb_printf(&all, "import triton\nimport triton.language as tl\n\n%s%s", g.pre.p,
			     src.p + strlen("import triton\nimport triton.language as tl\n\n"));
		free(src.p);
		src = all;
		free(g.pre.p);
	}
	k->src = src.p;
	free(g.body.p);
	for (node *nd = g.nodes, *next; nd; nd = next) {
		next = nd->next;
		rk_free(&nd->v);
		free(nd);
	}
}

void rk_kernel_free(rk_kernel *k)
{
	for (int i = 0; i < k->nparams; i++)
		free(k->params[i].data);
	free(k->src);
	free(k->stored);
	free(k->out_at);
	rk_free(&k->want);
}

/* rk_gen_attn.c (version 7): the shapes of real kernels around tl.dot that
 * the other ops lack: flash attention (q loaded once before the loop, a held
 * operand; K and V blocks loaded per iteration of a pipelined loop; the
 * scores scaled, masked on the key edge or causally, exp2 of the row max's
 * difference, the row sum carried, p cast to V's dtype as the A of a second
 * dot; the epilogue dividing by the row sum), maybe inside a loop over tiles;
 * two dot loops one after another; and a dot's result straight into a
 * reduction, scan or permute (3-D ones too). References in rk_eval_attn.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk_gen.h"

/* the scores' scale: powers of two, and log2(e) / 8 as attention's sm_scale
 * folded with exp2's base */
static const double attn_scales[] = {0.125, 0.0625, 0.25, 0.5, 0.18033688011112042};

/* fills a buffer of count values of t; the reference reads them back */
static void fill(gen *g, rk_param *p, size_t count)
{
	bool exact = chance(g, 60);
	p->count = count;
	p->data = calloc(count, rk_size(p->t));
	for (size_t i = 0; i < count; i++)
		rk_put(p->t, p->data, i, rg_random_value(g, p->t, exact));
}

/* one query tile's attention [M, DV] of fp32 (t fp16: cast at the end),
 * maybe summed over T tiles of an outer loop */
node *op_attn(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	(void)depth;
	if (!g->v7 || s->rank != 2 || (t != RK_F32 && t != RK_F16) || s->d[0] < 16 || s->d[1] < 16 ||
	    g->k->nparams + 8 > RK_MAX_PARAMS - 1)
		return NULL;
	int M = s->d[0], DV = s->d[1], D = 16 << below(g, 3), BN = 16 << below(g, 3);
	while (D > 16 && (M * D > RK_MAX_NUMEL || BN * D > RK_MAX_NUMEL))
		D /= 2;
	while (BN > 16 && (BN * D > RK_MAX_NUMEL || BN * DV > RK_MAX_NUMEL || M * BN > RK_MAX_NUMEL))
		BN /= 2;
	if (M * D > RK_MAX_NUMEL || BN * D > RK_MAX_NUMEL || BN * DV > RK_MAX_NUMEL || M * BN > RK_MAX_NUMEL)
		return NULL;
	int iters = 1 + below(g, 3), rag = chance(g, 40) ? 1 + below(g, BN - 1) : 0, nkv = iters * BN - rag;
	int T = chance(g, 20) ? 2 + below(g, 2) : 1;
	rk_dtype dt = chance(g, 70) ? RK_F16 : RK_BF16;
	/* k's form: [BN, D] through tl.trans / tl.permute, or loaded as [D, BN] */
	int kform = below(g, 3);
	bool causal = chance(g, 40), nomask = !causal && !rag && chance(g, 50);
	int off = causal ? below(g, M) : 0;
	int sci = below(g, 5), loop = below(g, 4), stages = 1 + below(g, 4);
	bool vmade = chance(g, 20), qmade = chance(g, 20), accdot = chance(g, 50);
	int va = 1 + 2 * below(g, 3), vb = 1 + below(g, 7), qc = below(g, 3);
	static const double qcs[] = {0.5, 2.0, -1.0};
	static const char *const qct[] = {"0.5", "2.0", "(-1.0)"};

	rk_param *xq = rg_add_param(g, RK_P_PTR, dt), *xk = rg_add_param(g, RK_P_PTR, dt);
	rk_param *xv = vmade ? NULL : rg_add_param(g, RK_P_PTR, dt);
	rk_param *np = chance(g, 70) ? rg_add_param(g, RK_P_I32, RK_I32) : NULL;
	rk_param *sp = chance(g, 40) ? rg_add_param(g, RK_P_F32, RK_F32) : NULL;
	rk_param *op = causal && chance(g, 50) ? rg_add_param(g, RK_P_I32, RK_I32) : NULL;
	double scale = sp ? (double)(float)attn_scales[sci] : attn_scales[sci];
	char ntext[16], stext[32], otext[16];
	if (np)
		np->i = nkv, snprintf(ntext, sizeof ntext, "%s", np->name);
	else
		snprintf(ntext, sizeof ntext, "%d", nkv);
	if (sp)
		sp->f = (float)scale, snprintf(stext, sizeof stext, "%s", sp->name);
	else
		snprintf(stext, sizeof stext, "%.17g", scale);
	if (op)
		op->i = off, snprintf(otext, sizeof otext, "%s", op->name);
	else
		snprintf(otext, sizeof otext, "%d", off);
	fill(g, xq, (size_t)T * M * D);
	fill(g, xk, (size_t)T * nkv * D);
	if (xv)
		fill(g, xv, (size_t)T * nkv * DV);

	char qm[32], qd[32], vd[32], kn[32], h[32], tot[32], q[32], mi[32], li[32], acc[32], st[32], kc[32], k[32];
	char sc[32], mn[32], al[32], p[32], v[32], res[32];
	rg_var(g, qm), rg_var(g, qd), rg_var(g, vd), rg_var(g, kn), rg_var(g, h), rg_var(g, tot), rg_var(g, q);
	rg_var(g, mi), rg_var(g, li), rg_var(g, acc), rg_var(g, st), rg_var(g, kc), rg_var(g, k), rg_var(g, sc);
	rg_var(g, mn), rg_var(g, al), rg_var(g, p), rg_var(g, v), rg_var(g, res);
	sbuf *b = &g->body;
	rg_sb_printf(b, "    %s = tl.arange(0, %d)\n    %s = tl.arange(0, %d)\n", qm, M, qd, D);
	rg_sb_printf(b, "    %s = tl.arange(0, %d)\n    %s = tl.arange(0, %d)\n", vd, DV, kn, BN);
	const char *i1 = T > 1 ? "        " : "    ", *i2 = T > 1 ? "            " : "        ";
	/* each tile's offsets into the buffers */
	char qo[96] = "", ko[96] = "", vo[96] = "";
	if (T > 1) {
		rg_sb_printf(b, "    %s = tl.zeros((%d, %d), tl.float32)\n", tot, M, DV);
		rg_sb_printf(b, chance(g, 50) ? "    for %s in range(%d):\n" : "    for %s in tl.range(0, %d):\n", h, T);
		snprintf(qo, sizeof qo, "%s * %d + ", h, M * D);
		if (np) {
			snprintf(ko, sizeof ko, "%s * %s * %d + ", h, ntext, D);
			snprintf(vo, sizeof vo, "%s * %s * %d + ", h, ntext, DV);
		} else {
			snprintf(ko, sizeof ko, "%s * %d + ", h, nkv * D);
			snprintf(vo, sizeof vo, "%s * %d + ", h, nkv * DV);
		}
	}
	rg_sb_printf(b, "%s%s = tl.load(%s + %s%s[:, None] * %d + %s[None, :])\n", i1, q, xq->name, qo, qm, D, qd);
	if (qmade)
		rg_sb_printf(b, "%s%s = (%s * %s).to(%s)\n", i1, q, q, qct[qc], rk_tl_name(dt));
	rg_sb_printf(b, chance(g, 50) ? "%s%s = tl.full((%d,), float(\"-inf\"), tl.float32)\n"
				      : "%s%s = tl.zeros((%d,), dtype=tl.float32) - float(\"inf\")\n",
		     i1, mi, M);
	rg_sb_printf(b, "%s%s = tl.zeros((%d,), tl.float32)\n%s%s = tl.zeros((%d, %d), dtype=tl.float32)\n", i1, li, M,
		     i1, acc, M, DV);
	if (loop == 0)
		rg_sb_printf(b, "%sfor %s in range(0, %s, %d):\n", i1, st, ntext, BN);
	else if (loop == 1)
		rg_sb_printf(b, "%sfor %s in tl.range(0, %s, %d):\n", i1, st, ntext, BN);
	else
		rg_sb_printf(b, "%sfor %s in tl.range(0, %s, %d, num_stages=%d):\n", i1, st, ntext, BN, stages);
	rg_sb_printf(b, "%s%s = %s + %s\n", i2, kc, st, kn);
	char lmask[128] = "", lmaskt[128] = "";
	if (rag || (!nomask && chance(g, 50))) {
		snprintf(lmask, sizeof lmask, ", mask=%s[:, None] < %s, other=0.0", kc, ntext);
		snprintf(lmaskt, sizeof lmaskt, ", mask=%s[None, :] < %s, other=0.0", kc, ntext);
	}
	if (kform == 2) {
		rg_sb_printf(b, "%s%s = tl.load(%s + %s%s[None, :] * %d + %s[:, None]%s)\n", i2, k, xk->name, ko, kc, D, qd,
			     lmaskt);
		rg_sb_printf(b, "%s%s = tl.dot(%s, %s)\n", i2, sc, q, k);
	} else {
		rg_sb_printf(b, "%s%s = tl.load(%s + %s%s[:, None] * %d + %s[None, :]%s)\n", i2, k, xk->name, ko, kc, D, qd,
			     lmask);
		rg_sb_printf(b, kform ? "%s%s = tl.dot(%s, tl.permute(%s, (1, 0)))\n" : "%s%s = tl.dot(%s, tl.trans(%s))\n", i2,
			     sc, q, k);
	}
	rg_sb_printf(b, "%s%s = %s * %s\n", i2, sc, sc, stext);
	if (!nomask) {
		char cm[256];
		if (causal && rag)
			snprintf(cm, sizeof cm, "(%s[None, :] < %s) & (%s[None, :] <= %s[:, None] + %s)", kc, ntext, kc, qm, otext);
		else if (causal)
			snprintf(cm, sizeof cm, "%s[None, :] <= %s[:, None] + %s", kc, qm, otext);
		else
			snprintf(cm, sizeof cm, "%s[None, :] < %s", kc, ntext);
		rg_sb_printf(b, "%s%s = tl.where(%s, %s, float(\"-inf\"))\n", i2, sc, cm, sc);
	}
	const char *ex2 = chance(g, 50) ? "tl.math.exp2" : "tl.exp2";
	rg_sb_printf(b, "%s%s = tl.maximum(%s, tl.max(%s, 1))\n", i2, mn, mi, sc);
	rg_sb_printf(b, "%s%s = %s(%s - %s)\n", i2, al, ex2, mi, mn);
	rg_sb_printf(b, "%s%s = %s(%s - %s[:, None])\n", i2, p, ex2, sc, mn);
	rg_sb_printf(b, "%s%s = %s * %s + tl.sum(%s, 1)\n", i2, li, li, al, p);
	if (vmade)
		rg_sb_printf(b, "%s%s = ((%s[:, None] * %d + %s[None, :] * %d) %% 9 - 4).to(%s)\n", i2, v, kc, va, vd, vb,
			     rk_tl_name(dt));
	else
		rg_sb_printf(b, "%s%s = tl.load(%s + %s%s[:, None] * %d + %s[None, :]%s)\n", i2, v, xv->name, vo, kc, DV, vd,
			     lmask);
	char pc[96];
	if (chance(g, 50))
		snprintf(pc, sizeof pc, "%s.to(%s.dtype)", p, v);
	else
		snprintf(pc, sizeof pc, "%s.to(%s)", p, rk_tl_name(dt));
	if (accdot)
		rg_sb_printf(b, "%s%s = tl.dot(%s, %s, %s * %s[:, None])\n", i2, acc, pc, v, acc, al);
	else
		rg_sb_printf(b, "%s%s = %s * %s[:, None] + tl.dot(%s, %s)\n", i2, acc, acc, al, pc, v);
	rg_sb_printf(b, "%s%s = %s\n", i2, mi, mn);
	rg_sb_printf(b, "%s%s = %s / %s[:, None]\n", i1, res, acc, li);
	if (T > 1 && chance(g, 50))
		rg_sb_printf(b, "%s%s += %s\n", i1, tot, res);
	else if (T > 1)
		rg_sb_printf(b, "%s%s = %s + %s\n", i1, tot, tot, res);

	/* the reference, tile by tile */
	rk_attn_spec a = {M, D, DV, BN, iters, nkv, causal, off, scale, dt};
	rk_shape qs = {2, {M, D}}, ks = {2, {iters * BN, D}}, vs = {2, {iters * BN, DV}};
	rk_val sum = {0};
	bool ok = true;
	for (int ti = 0; ok && ti < T; ti++) {
		rk_val qv, kv, vv, o;
		rk_alloc(&qv, &qs, dt);
		rk_alloc(&kv, &ks, dt);
		rk_alloc(&vv, &vs, dt);
		for (size_t i = 0; i < (size_t)M * D; i++) {
			double x = rk_get(dt, xq->data, (size_t)ti * M * D + i);
			qv.v[i] = qmade ? rk_round(dt, x * qcs[qc]) : x;
		}
		for (int key = 0; key < nkv; key++)
			for (int d = 0; d < D; d++)
				kv.v[key * D + d] = rk_get(dt, xk->data, ((size_t)ti * nkv + key) * D + d);
		for (int key = 0; key < iters * BN; key++)
			for (int d = 0; d < DV; d++)
				vv.v[key * DV + d] = vmade ? (double)((key * va + d * vb) % 9 - 4)
					: key < nkv ? rk_get(dt, xv->data, ((size_t)ti * nkv + key) * DV + d) : 0;
		ok = rk_attn(&o, &a, &qv, &kv, &vv);
		rk_free(&qv), rk_free(&kv), rk_free(&vv);
		if (ok && ti == 0) {
			sum = o;
		} else if (ok) {
			rk_val n2;
			ok = rk_binary(&n2, '+', &sum, &o);
			rk_free(&o);
			rk_free(&sum);
			if (ok)
				sum = n2;
		}
	}
	if (!ok) {
		rk_free(&sum);
		return NULL;
	}
	uint64_t f = RK_F_ATTN | (kform < 2 ? RK_F_ATTN_TRANS : 0) | (causal ? RK_F_CAUSAL : 0) | (T > 1 ? RK_F_NESTED : 0) |
		     (vmade || qmade ? RK_F_DOT_MADE : 0) | (loop == 3 ? RK_F_STAGES : 0);
	const char *fin = T > 1 ? tot : res;
	node *n;
	if (t == RK_F16) {
		rk_val c;
		ok = rk_cast(&c, &sum, RK_F16);
		rk_free(&sum);
		if (!ok)
			return NULL;
		char ex[48];
		snprintf(ex, sizeof ex, "%s.to(tl.float16)", fin);
		n = rg_emit(g, &c, ex);
	} else {
		n = rg_new_node(g, &sum, fin);
	}
	n->feat |= f;
	return n;
}

/* two dot loops one after another (attention or K loops), their results
 * added or subtracted: the second loop's buffers may reuse the first's */
node *op_loops2(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	if (!g->v7 || t != RK_F32 || s->rank != 2 || s->d[0] < 16 || s->d[1] < 16)
		return NULL;
	node *x[2];
	for (int i = 0; i < 2; i++) {
		x[i] = chance(g, 50) ? op_attn(g, s, t, depth) : op_kloop(g, s, 1 + below(g, 4));
		if (!x[i])
			return NULL;
	}
	int op = chance(g, 50) ? '+' : '-';
	rk_val v;
	if (!rk_binary(&v, op, &x[0]->v, &x[1]->v))
		return NULL;
	char expr[80];
	snprintf(expr, sizeof expr, "%s %c %s", x[0]->name, op, x[1]->name);
	node *n = rg_emit(g, &v, expr);
	n->feat |= RK_F_LOOP2;
	return n;
}

/* a dot's result straight into tl.sum/max/min along any axis, tl.cumsum,
 * or tl.permute / tl.trans: [M, N] or batched [B, M, N] dots, so 3-D tiles
 * reduce, scan and permute on every axis */
node *op_dotred(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	if (!g->v7 || (t != RK_F32 && t != RK_I32) || s->rank < 1 || s->rank > 3)
		return NULL;
	int kind = below(g, 3); /* 0: reduce, 1: cumsum, 2: permute */
	rk_shape ds = *s;
	int axis = 0, perm[RK_MAX_RANK] = {0, 1, 2};
	if (kind == 0) {
		if (s->rank == 3)
			return NULL;
		/* s with a dim inserted at axis */
		axis = below(g, s->rank + 1);
		ds.rank = s->rank + 1;
		for (int i = 0, j = 0; i < ds.rank; i++)
			ds.d[i] = i == axis ? 16 << below(g, 3) : s->d[j++];
		if (ds.rank == 3 && axis == 0)
			ds.d[0] = 1 << below(g, 4);
	} else if (kind == 1) {
		axis = below(g, s->rank);
	} else {
		if (s->rank < 2)
			return NULL;
		for (int i = s->rank - 1; i > 0; i--) {
			int j = below(g, i + 1), x = perm[i];
			perm[i] = perm[j], perm[j] = x;
		}
		if (s->rank == 2) /* tl.trans */
			perm[0] = 1, perm[1] = 0;
		/* ds[perm[i]] = s[i] */
		for (int i = 0; i < s->rank; i++)
			ds.d[perm[i]] = s->d[i];
	}
	if (!dot_shape(&ds))
		return NULL;
	while (rk_numel(&ds) > RK_MAX_NUMEL && kind == 0 && ds.d[axis] > (ds.rank == 3 && axis == 0 ? 1 : 16))
		ds.d[axis] /= 2;
	if (rk_numel(&ds) > RK_MAX_NUMEL)
		return NULL;
	int r = ds.rank, B = r == 3 ? ds.d[0] : 1, M = ds.d[r - 2], N = ds.d[r - 1];
	int kmin = t == RK_I32 ? 32 : 16, K = kmin << below(g, 2);
	while (K > kmin && (B * M * K > RK_MAX_NUMEL || B * K * N > RK_MAX_NUMEL))
		K /= 2;
	if (B * M * K > RK_MAX_NUMEL || B * K * N > RK_MAX_NUMEL)
		return NULL;
	static const rk_dtype in[] = {RK_F16, RK_BF16, RK_F32};
	rk_dtype it = t == RK_I32 ? RK_I8 : in[below(g, 3)];
	rk_shape as = {r, {B, M, K}}, bs = {r, {B, K, N}};
	if (r == 2)
		as = (rk_shape){2, {M, K}}, bs = (rk_shape){2, {K, N}};
	node *a = gen_node(g, &as, it, depth - 1), *b = gen_node(g, &bs, it, depth - 1);
	rk_val d, v;
	if (!rk_dot(&d, &a->v, &b->v, NULL, 0))
		return NULL;
	int red = "sMm"[below(g, 3)];
	bool rev = chance(g, 30), ok;
	if (kind == 0)
		ok = rk_reduce(&v, red, &d, axis, false);
	else if (kind == 1)
		ok = rk_cumsum(&v, &d, axis, rev);
	else
		ok = rk_permute(&v, &d, perm);
	rk_free(&d);
	if (!ok)
		return NULL;
	char dot[128], expr[256];
	snprintf(dot, sizeof dot, "tl.dot(%s, %s%s)", a->name, b->name, it == RK_F32 ? ", input_precision=\"ieee\"" : "");
	if (kind == 0)
		snprintf(expr, sizeof expr, "tl.%s(%s, axis=%d)", red == 's' ? "sum" : red == 'M' ? "max" : "min", dot, axis);
	else if (kind == 1)
		snprintf(expr, sizeof expr, "tl.cumsum(%s, axis=%d%s)", dot, axis, rev ? ", reverse=True" : "");
	else if (r == 2)
		snprintf(expr, sizeof expr, "tl.trans(%s)", dot);
	else
		snprintf(expr, sizeof expr, "tl.permute(%s, (%d, %d, %d))", dot, perm[0], perm[1], perm[2]);
	node *n = rg_emit(g, &v, expr);
	n->feat |= RK_F_DOT_REDUCE | (r == 3 ? RK_F_DOT3D : 0) | (it == RK_I8 ? RK_F_DOT_I8 : 0);
	return n;
}

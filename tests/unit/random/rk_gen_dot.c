/* rk_gen_dot.c: tl.dot nodes (2-D and batched, every input_precision, int8)
 * and loops carrying an accumulator: range / tl.range(num_stages) / while,
 * and canonical K loops of tl.dot that software pipelining transforms. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk_gen.h"

/* a shape a dot gives: [M, N] or [B, M, N], M and N at least 16 */
bool dot_shape(const rk_shape *s)
{
	return (s->rank == 2 || s->rank == 3) && s->d[s->rank - 2] >= 16 && s->d[s->rank - 1] >= 16;
}

/* fp32 dots' input_precision (NULL: the default, tf32 on cuda-emu) and how far
 * (relative) each rounds an input: tf32 keeps 10 bits, tf32x3 and bf16x6 about
 * fp32's, bf16x3 about 16; the CPU target is IEEE whatever the precision */
static const char *const dot_prec[] = {NULL, "ieee", "tf32", "tf32x3", "bf16x3", "bf16x6"};
static const double dot_prec_rel[] = {0x1p-10, 0, 0x1p-10, 0x1p-19, 0x1p-14, 0x1p-19};

node *op_dot(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	/* version 6: fp16 with out_dtype=tl.float16 */
	bool f16 = g->v6 && t == RK_F16;
	if ((t != RK_F32 && t != RK_I32 && !f16) || !dot_shape(s))
		return NULL;
	/* int8 x int8 -> int32 needs K >= 32 */
	int r = s->rank, B = r == 3 ? s->d[0] : 1, M = s->d[r - 2], N = s->d[r - 1];
	int kmin = t == RK_I32 ? 32 : 16, K = chance(g, 30) ? kmin : kmin << below(g, t == RK_I32 ? 2 : 3);
	while (K > kmin && (B * M * K > RK_MAX_NUMEL || B * K * N > RK_MAX_NUMEL))
		K /= 2;
	if (B * M * K > RK_MAX_NUMEL || B * K * N > RK_MAX_NUMEL)
		return NULL;
	static const rk_dtype in[] = {RK_F16, RK_F16, RK_BF16, RK_F32, RK_F32};
	rk_dtype it = t == RK_I32 ? RK_I8 : in[below(g, 5)];
	if (f16)
		it = RK_F16;
	rk_shape as = {r, {B, M, K}}, bs = {r, {B, K, N}};
	if (r == 2)
		as = (rk_shape){2, {M, K}}, bs = (rk_shape){2, {K, N}};
	node *a = gen_node(g, &as, it, depth - 1), *b = gen_node(g, &bs, it, depth - 1);
	node *acc = chance(g, 30) ? gen_node(g, s, t, depth - 1) : NULL;
	int prec = it == RK_F32 ? below(g, 6) : 1;
	rk_val v;
	if (f16 ? !rk_dot_f16(&v, &a->v, &b->v, acc ? &acc->v : NULL)
		: !rk_dot(&v, &a->v, &b->v, acc ? &acc->v : NULL, dot_prec_rel[prec]))
		return NULL;
	char expr[192];
	size_t n = (size_t)snprintf(expr, sizeof expr, "tl.dot(%s, %s", a->name, b->name);
	if (acc)
		n += (size_t)snprintf(expr + n, sizeof expr - n, chance(g, 50) ? ", acc=%s" : ", %s", acc->name);
	if (it == RK_F32 && dot_prec[prec])
		n += (size_t)snprintf(expr + n, sizeof expr - n, ", input_precision=\"%s\"", dot_prec[prec]);
	if (it == RK_I8 && chance(g, 30))
		n += (size_t)snprintf(expr + n, sizeof expr - n, ", out_dtype=tl.int32");
	if (f16)
		n += (size_t)snprintf(expr + n, sizeof expr - n, ", out_dtype=tl.float16");
	snprintf(expr + n, sizeof expr - n, ")");
	node *d = rg_emit(g, &v, expr);
	if (!acc && it != RK_I8 && !f16)
		d->dot_a = a, d->dot_b = b, d->dot_rel = dot_prec_rel[prec];
	d->feat |= (r == 3 ? RK_F_DOT3D : 0) | (it == RK_I8 ? RK_F_DOT_I8 : 0) | (prec != 1 ? RK_F_DOT_TF32 : 0) |
		   (f16 ? RK_F_DOT_F16 : 0);
	return d;
}

bool loop_operand_make(gen *g, const rk_shape *s, rk_dtype t, int depth, int iters, const char *ivar,
			      sbuf *body, loop_operand *o)
{
	memset(o, 0, sizeof *o);
	if (chance(g, 50)) {
		node *n = gen_node(g, s, t, depth - 1);
		o->made = n;
		snprintf(o->name, sizeof o->name, "%s", n->name);
		for (int i = 0; i < iters; i++)
			o->vals[i] = n->v;
		return true;
	}
	rk_param *p = rg_add_param(g, RK_P_PTR, t);
	if (!p)
		return false;
	char off[256] = "", base[32];
	rg_var(g, base);
	int r = s->rank;
	long stride = 1;
	for (int k = r - 1; k >= 0; k--) {
		rg_sb_printf(&g->body, "    %s_%d = tl.arange(0, %d)\n", base, k, s->d[k]);
		char term[128];
		if (stride == 1)
			snprintf(term, sizeof term, "%s_%d%s", base, k, rg_place(r, k));
		else
			snprintf(term, sizeof term, "%s_%d%s * %ld", base, k, rg_place(r, k), stride);
		size_t ol = strlen(off);
		snprintf(off + ol, sizeof off - ol, "%s%s", ol ? " + " : "", term);
		stride *= s->d[k];
	}
	int bound = s->d[0], bound2 = s->d[r - 1];
	rk_param *np = chance(g, 40) ? rg_add_param(g, RK_P_I32, RK_I32) : NULL;
	/* version 5: masked on the last dim too, other maybe a runtime scalar
	 * (an fp32 or int32 argument, cast to t as the load casts it) */
	rk_param *np2 = g->v5 && r > 1 && chance(g, 40) ? rg_add_param(g, RK_P_I32, RK_I32) : NULL;
	bool fl = rk_is_float(t);
	rk_param *op = g->v5 && (np || np2) && chance(g, 50) ? rg_add_param(g, fl ? RK_P_F32 : RK_P_I32, fl ? RK_F32 : RK_I32) : NULL;
	node *other = (np || np2) && !op ? rg_literal(g, t, false) : NULL;
	double other_v = other ? other->v.v[0] : 0;
	char other_text[32] = "";
	if (other)
		snprintf(other_text, sizeof other_text, "%s", other->name);
	if (op) {
		snprintf(other_text, sizeof other_text, "%s", op->name);
		if (fl) {
			op->f = (float)((below(g, 33) - 16) * 0.25);
			other_v = op->f;
		} else {
			op->i = below(g, 2001) - 1000;
			other_v = rk_round(t, op->i);
		}
	}
	if (np)
		np->i = bound = 1 + below(g, s->d[0]);
	o->feat = np2 || op ? RK_F_MASK2 : 0;
	if (np2)
		np2->i = bound2 = 1 + below(g, s->d[r - 1]);
	size_t n = rk_numel(s);
	p->count = n * (size_t)(iters ? iters : 1);
	p->data = calloc(p->count, rk_size(t));
	bool exact = chance(g, 60);
	for (size_t i = 0; i < p->count; i++)
		rk_put(t, p->data, i, rg_random_value(g, t, exact));
	size_t row = n / (size_t)s->d[0];
	for (int it = 0; it < iters; it++) {
		rk_alloc(&o->vals[it], s, t);
		for (size_t j = 0; j < n; j++) {
			bool in = (int)(j / row) < bound && (int)(j % (size_t)s->d[r - 1]) < bound2;
			o->vals[it].v[j] = in ? rk_get(t, p->data, (size_t)it * n + j) : other_v;
		}
	}
	o->owned = true;
	rg_var(g, o->name);
	char mask[128] = "";
	if (np)
		snprintf(mask, sizeof mask, "%s_0%s < %s", base, rg_place(r, 0), np->name);
	if (np && np2)
		snprintf(mask, sizeof mask, "(%s_0%s < %s) & (%s_%d%s < %s)", base, rg_place(r, 0), np->name, base, r - 1,
			 rg_place(r, r - 1), np2->name);
	else if (np2)
		snprintf(mask, sizeof mask, "%s_%d%s < %s", base, r - 1, rg_place(r, r - 1), np2->name);
	if (np || np2)
		rg_sb_printf(body, "        %s = tl.load(%s + %s * %zu + (%s), mask=%s, other=%s)\n", o->name, p->name,
			  ivar, n, off, mask, other_text);
	else
		rg_sb_printf(body, "        %s = tl.load(%s + %s * %zu + (%s))\n", o->name, p->name, ivar, n, off);
	return true;
}

void loop_operand_free(loop_operand *o)
{
	if (o->owned)
		for (int i = 0; i < MAX_ITERS; i++)
			rk_free(&o->vals[i]);
}

/* a canonical K loop: acc = zeros; for k in tl.range(0, K, BK, num_stages=S):
 * load A [M, BK] and B [BK, N] through pointer tiles advanced each iteration
 * or addressed with k (masked on a ragged K edge), maybe one of them through
 * a cast / scale / add chain, acc = tl.dot(a, b, acc) or acc += tl.dot(a, b);
 * what software pipelining (src/layout/pipeline.c) transforms */
node *op_kloop(gen *g, const rk_shape *s, int stages)
{
	int M = s->d[0], N = s->d[1];
	if (g->k->nparams + 8 > RK_MAX_PARAMS - 1)
		return NULL;
	int BK = 16 << below(g, 2);
	while (BK > 16 && (M * BK > RK_MAX_NUMEL || BK * N > RK_MAX_NUMEL))
		BK /= 2;
	if (M * BK > RK_MAX_NUMEL || BK * N > RK_MAX_NUMEL)
		return NULL;
	int nk = 1 + below(g, 3);
	bool ragged = chance(g, 40);
	int rag = ragged ? 1 + below(g, BK - 1) : 0;
	int K = nk * BK - rag;
	bool masked = ragged || chance(g, 30);
	static const rk_dtype dts[] = {RK_F16, RK_F16, RK_BF16, RK_F32};
	rk_dtype dt = dts[below(g, 4)];
	/* which operand goes through a chain (0 none, 1 A, 2 B) and what it loads */
	int chain = below(g, 3);
	static const rk_dtype lds[] = {RK_I8, RK_F16, RK_BF16, RK_F32};
	rk_dtype ldt = chain ? lds[below(g, 4)] : dt;
	bool advance = chance(g, 60), plus = chance(g, 40);
	/* version 4: B's rows through an index load (a paged cache's kv_indices):
	 * row kk of the K loop is row perm[kk] of B */
	bool kidx = g->v4 && !advance && chance(g, 40);
	if (kidx) { /* more iterations than stages: the carried index shows */
		nk += 2 + below(g, 3);
		K = nk * BK - rag;
	}
	/* version 6: A and B through block pointers (advanced, or made at the
	 * iteration's offsets) or tensor descriptors, their rows past Mb and
	 * columns past Nb outside the tensor (zeros) */
	int via = g->v6 && !kidx ? below(g, 3) : 0, Mb = M, Nb = N;
	if (via) {
		Mb = chance(g, 30) ? 1 + below(g, M) : M;
		Nb = chance(g, 30) ? 1 + below(g, N) : N;
		masked |= chance(g, 50);
	}
	char acc[32], kv[32], pa[32], pb[32], rm[32], rn[32], rkk[32], ap[32], bp[32], sc[32] = "";
	rg_var(g, acc), rg_var(g, kv), rg_var(g, rm), rg_var(g, rn), rg_var(g, rkk), rg_var(g, ap), rg_var(g, bp);
	rk_param *xa = rg_add_param(g, RK_P_PTR, chain == 1 ? ldt : dt);
	rk_param *xb = rg_add_param(g, RK_P_PTR, chain == 2 ? ldt : dt);
	rk_param *kp = chance(g, 70) ? rg_add_param(g, RK_P_I32, RK_I32) : NULL;
	rk_param *sap = chance(g, 50) ? rg_add_param(g, RK_P_I32, RK_I32) : NULL;
	rk_param *sbp = chance(g, 50) ? rg_add_param(g, RK_P_I32, RK_I32) : NULL;
	snprintf(pa, sizeof pa, "%s", xa->name);
	snprintf(pb, sizeof pb, "%s", xb->name);
	char ktext[16], satext[16], sbtext[16];
	if (kp)
		kp->i = K, snprintf(ktext, sizeof ktext, "%s", kp->name);
	else
		snprintf(ktext, sizeof ktext, "%d", K);
	int pitch = K;
	if (via == 2) {
		int per16 = 16 / (int)rk_size(xa->t);
		pitch = (K + per16 - 1) / per16 * per16;
	}
	if (sap)
		sap->i = pitch, snprintf(satext, sizeof satext, "%s", sap->name);
	else
		snprintf(satext, sizeof satext, "%d", pitch);
	if (sbp)
		sbp->i = N, snprintf(sbtext, sizeof sbtext, "%s", sbp->name);
	else
		snprintf(sbtext, sizeof sbtext, "%d", N);
	/* the buffers: A [M, K], B [K, N], row-major */
	xa->count = (size_t)Mb * (size_t)pitch;
	xb->count = (size_t)K * (size_t)N;
	bool exa = chance(g, 60), exb = chance(g, 60);
	xa->data = calloc(xa->count, rk_size(xa->t));
	xb->data = calloc(xb->count, rk_size(xb->t));
	rk_param *kip = NULL;
	char ix[32] = "";
	if (kidx) {
		kip = rg_add_param(g, RK_P_PTR, RK_I32);
		kip->count = (size_t)K;
		kip->data = calloc((size_t)K, sizeof(int32_t));
		int32_t *perm = kip->data;
		for (int i = 0; i < K; i++)
			perm[i] = i;
		for (int i = K - 1; i > 0; i--) {
			int j = below(g, i + 1), x = perm[i];
			perm[i] = perm[j], perm[j] = x;
		}
		rg_var(g, ix);
	}
	for (size_t i = 0; i < xa->count; i++)
		rk_put(xa->t, xa->data, i, rg_random_value(g, xa->t, exa));
	for (size_t i = 0; i < xb->count; i++)
		rk_put(xb->t, xb->data, i, rg_random_value(g, xb->t, exb));
	/* the chain: up to 3 steps after a cast to fp32 (forced from int8) */
	int steps[3], nsteps = 1 + below(g, 3);
	bool tofp32 = ldt == RK_I8 || chance(g, 50);
	node *lit[3] = {0};
	rk_param *scp = NULL;
	rk_val scale = {0};
	int R = chain == 1 ? M : N; /* the scale vector runs along the non-K dim */
	for (int i = 0; i < nsteps; i++) {
		steps[i] = "s+*"[below(g, 3)];
		if (steps[i] == 's' && !scp) {
			scp = rg_add_param(g, RK_P_PTR, RK_F32);
			scp->count = (size_t)R;
			scp->data = calloc((size_t)R, sizeof(float));
			rk_shape vs = {2, {chain == 1 ? R : 1, chain == 1 ? 1 : R}};
			rk_alloc(&scale, &vs, RK_F32);
			for (int j = 0; j < R; j++) {
				double x = rg_random_value(g, RK_F32, true);
				rk_put(RK_F32, scp->data, (size_t)j, x);
				scale.v[j] = x;
			}
			rg_var(g, sc);
		} else if (steps[i] == 's') {
			steps[i] = '*';
		}
		if (steps[i] != 's')
			lit[i] = rg_literal(g, tofp32 ? RK_F32 : ldt, false);
	}
	if (!chain)
		nsteps = 0;
	/* the text before the loop */
	rg_sb_printf(&g->body, "    %s = tl.arange(0, %d)\n    %s = tl.arange(0, %d)\n    %s = tl.arange(0, %d)\n", rm, M,
		  rn, N, rkk, BK);
	if (scp)
		rg_sb_printf(&g->body, "    %s = tl.load(%s + %s)%s\n", sc, scp->name, chain == 1 ? rm : rn,
			  chain == 1 ? "[:, None]" : "[None, :]");
	rg_sb_printf(&g->body, "    %s = tl.zeros((%d, %d), tl.float32)\n", acc, M, N);
	char aaddr[256], baddr[256];
	if (via) {
		rg_kloop_via(g, via == 2, advance, (int[]){M, N, BK, Mb, Nb}, masked || Mb < M || Nb < N,
			     (const char *[]){pa, pb, satext, sbtext, ktext, ap, bp, kv}, aaddr, baddr);
	} else if (advance) {
		rg_sb_printf(&g->body, "    %s = %s + %s[:, None] * %s + %s[None, :]\n", ap, pa, rm, satext, rkk);
		rg_sb_printf(&g->body, "    %s = %s + %s[:, None] * %s + %s[None, :]\n", bp, pb, rkk, sbtext, rn);
		snprintf(aaddr, sizeof aaddr, "%s", ap);
		snprintf(baddr, sizeof baddr, "%s", bp);
	} else {
		snprintf(aaddr, sizeof aaddr, "%s + %s[:, None] * %s + (%s + %s[None, :])", pa, rm, satext, kv, rkk);
		if (kidx)
			snprintf(baddr, sizeof baddr, "%s + %s[:, None] * %s + %s[None, :]", pb, ix, sbtext, rn);
		else
			snprintf(baddr, sizeof baddr, "%s + (%s + %s[:, None]) * %s + %s[None, :]", pb, kv, rkk, sbtext, rn);
	}
	rg_sb_printf(&g->body, "    for %s in tl.range(0, %s, %d, num_stages=%d):\n", kv, ktext, BK, stages);
	char an[32], bn[32];
	rg_var(g, an), rg_var(g, bn);
	if (kidx && masked)
		rg_sb_printf(&g->body, "        %s = tl.load(%s + %s + %s, mask=%s + %s < %s, other=0)\n", ix, kip->name,
			     kv, rkk, kv, rkk, ktext);
	else if (kidx)
		rg_sb_printf(&g->body, "        %s = tl.load(%s + %s + %s)\n", ix, kip->name, kv, rkk);
	if (via) {
		rg_sb_printf(&g->body, "        %s = %s\n        %s = %s\n", an, aaddr, bn, baddr);
	} else if (masked) {
		rg_sb_printf(&g->body, "        %s = tl.load(%s, mask=%s + %s[None, :] < %s, other=0)\n", an, aaddr, kv, rkk,
			  ktext);
		rg_sb_printf(&g->body, "        %s = tl.load(%s, mask=%s + %s[:, None] < %s, other=0)\n", bn, baddr, kv, rkk,
			  ktext);
	} else {
		rg_sb_printf(&g->body, "        %s = tl.load(%s)\n", an, aaddr);
		rg_sb_printf(&g->body, "        %s = tl.load(%s)\n", bn, baddr);
	}
	if (chain) {
		char *cn = chain == 1 ? an : bn;
		sbuf e = {0};
		rg_sb_printf(&e, "%s", cn);
		if (tofp32)
			rg_sb_printf(&e, ".to(tl.float32)");
		for (int i = 0; i < nsteps; i++) {
			char *old = e.p;
			e.p = NULL, e.len = e.cap = 0;
			if (steps[i] == 's')
				rg_sb_printf(&e, "(%s) * %s", old, sc);
			else
				rg_sb_printf(&e, "(%s) %c %s", old, steps[i], lit[i]->name);
			free(old);
		}
		rg_sb_printf(&g->body, "        %s = (%s).to(%s)\n", cn, e.p, rk_tl_name(dt));
		free(e.p);
	}
	const char *prec = dt == RK_F32 ? ", input_precision=\"ieee\"" : "";
	if (plus)
		rg_sb_printf(&g->body, "        %s += tl.dot(%s, %s%s)\n", acc, an, bn, prec);
	else
		rg_sb_printf(&g->body, "        %s = tl.dot(%s, %s, %s%s)\n", acc, an, bn, acc, prec);
	if (advance && via == 1) {
		rg_sb_printf(&g->body, "        %s = tl.advance(%s, (0, %d))\n        %s = tl.advance(%s, [%d, 0])\n", ap, ap,
			     BK, bp, bp, BK);
	} else if (advance && !via) {
		rg_sb_printf(&g->body, "        %s += %d\n", ap, BK);
		if (sbp)
			rg_sb_printf(&g->body, "        %s += %d * %s\n", bp, BK, sbtext);
		else
			rg_sb_printf(&g->body, "        %s += %d\n", bp, BK * N);
	}
	/* the reference, iteration by iteration */
	rk_val cur;
	rk_alloc(&cur, s, RK_F32);
	bool ok = true;
	rk_shape ash = {2, {M, BK}}, bsh = {2, {BK, N}};
	for (int it = 0; ok && it * BK < K; it++) {
		rk_val a, b;
		rk_alloc(&a, &ash, xa->t);
		rk_alloc(&b, &bsh, xb->t);
		for (int m = 0; m < M; m++)
			for (int j = 0; j < BK; j++) {
				int kk = it * BK + j;
				a.v[m * BK + j] = kk < K && m < Mb ? rk_get(xa->t, xa->data, (size_t)m * (size_t)pitch + (size_t)kk) : 0;
			}
		for (int j = 0; j < BK; j++)
			for (int n = 0; n < N; n++) {
				int kk = it * BK + j;
				size_t row = kk < K && kip ? (size_t)((int32_t *)kip->data)[kk] : (size_t)kk;
				b.v[j * N + n] = kk < K && n < Nb ? rk_get(xb->t, xb->data, row * (size_t)N + (size_t)n) : 0;
			}
		if (chain) {
			rk_val *x = chain == 1 ? &a : &b, y;
			if (tofp32) {
				ok = ok && rk_cast(&y, x, RK_F32);
				if (ok)
					rk_free(x), *x = y;
			}
			for (int i = 0; ok && i < nsteps; i++) {
				ok = rk_binary(&y, steps[i] == 's' ? '*' : steps[i], x, steps[i] == 's' ? &scale : &lit[i]->v);
				if (ok)
					rk_free(x), *x = y;
			}
			ok = ok && rk_cast(&y, x, dt);
			if (ok)
				rk_free(x), *x = y;
		}
		rk_val next;
		ok = ok && rk_dot(&next, &a, &b, &cur, 0);
		if (ok)
			rk_free(&cur), cur = next;
		rk_free(&a);
		rk_free(&b);
	}
	if (scp)
		rk_free(&scale);
	if (!ok) {
		rk_free(&cur);
		return NULL;
	}
	node *res = rg_new_node(g, &cur, acc);
	res->feat |= RK_F_STAGES | RK_F_KLOOP | (kidx ? RK_F_KIDX : 0) | (via ? RK_F_KLOOP_BP : 0) |
		     (via == 1 ? RK_F_BLOCKPTR : via == 2 ? RK_F_DESC : 0);
	return res;
}

/* acc carried through a loop: acc = acc + x, maximum(acc, x), acc + x + i, or
 * tl.dot(a, b, acc), with x loaded per iteration or made before the loop */
node *op_loop(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	int iters = below(g, MAX_ITERS + 1);
	char acc[32], ivar[32], range[64];
	rg_var(g, acc);
	rg_var(g, ivar);
	/* version 3: sometimes unrolled by tl.static_range (a literal trip count) */
	bool stat = g->v3 && chance(g, 15);
	rk_param *np = !stat && chance(g, 60) ? rg_add_param(g, RK_P_I32, RK_I32) : NULL;
	char limit[16];
	if (np)
		np->i = iters;
	if (np)
		snprintf(limit, sizeof limit, "%s", np->name);
	else
		snprintf(limit, sizeof limit, "%d", iters);
	/* a for over range / tl.range (num_stages: pipelined on cuda-emu) or a while */
	int form = below(g, 10), stages = 1 + below(g, 4);
	if (stat)
		form = 0;
	uint64_t loop_feat = stat ? RK_F_STATIC : form >= 7 ? RK_F_WHILE : form >= 4 ? RK_F_STAGES : 0;
	if (form >= 4 && form < 7 && t == RK_F32 && s->rank == 2 && s->d[0] >= 16 && s->d[1] >= 16 &&
	    chance(g, 50)) {
		node *kl = op_kloop(g, s, 2 + below(g, 3));
		if (kl)
			return kl;
	}
	if (stat)
		snprintf(range, sizeof range, chance(g, 50) ? "tl.static_range(%s)" : "tl.static_range(0, %s)", limit);
	else if (form < 2)
		snprintf(range, sizeof range, np ? "range(0, %s)" : "range(%s)", limit);
	else if (form < 4)
		snprintf(range, sizeof range, "tl.range(0, %s)", limit);
	else if (form < 7)
		snprintf(range, sizeof range, chance(g, 50) ? "tl.range(0, %s, num_stages=%d)" : "tl.range(0, %s, 1, num_stages=%d)",
			 limit, stages);
	bool dot = t == RK_F32 && s->rank == 2 && s->d[0] >= 16 && s->d[1] >= 16 && chance(g, 40);
	int kind = dot ? 'd' : "+M+i"[below(g, 4)];
	if (kind == 'i' && t != RK_I32 && t != RK_F32)
		kind = '+';
	node *init = chance(g, 40) ? NULL : gen_node(g, s, t, depth - 1);
	sbuf body = {0};
	loop_operand a, b;
	memset(&b, 0, sizeof b);
	int K = 16 << below(g, 2);
	rk_dtype it = chance(g, 70) ? RK_F16 : RK_F32;
	rk_shape as = {2, {s->d[0], K}}, bs = {2, {K, s->d[1]}};
	bool ok = dot ? loop_operand_make(g, &as, it, depth, iters, ivar, &body, &a) &&
				loop_operand_make(g, &bs, it, depth, iters, ivar, &body, &b)
		      : loop_operand_make(g, s, t, depth, iters, ivar, &body, &a);
	rk_val cur;
	rk_alloc(&cur, s, t);
	if (init) {
		memcpy(cur.v, init->v.v, rk_numel(s) * sizeof(double));
		memcpy(cur.e, init->v.e, rk_numel(s) * sizeof(double));
	}
	for (int i = 0; ok && i < iters; i++) {
		rk_val next;
		if (kind == 'd') {
			ok = rk_dot(&next, &a.vals[i], &b.vals[i], &cur, 0);
		} else if (kind == 'i') {
			rk_val x, iv;
			rk_shape s0 = {0, {0}};
			rk_alloc(&iv, &s0, t);
			iv.v[0] = i;
			bool folded = false;
			ok = t != RK_F32 || !a.made || dot_add(a.made, &cur, &x, &folded);
			ok = ok && (folded || rk_binary(&x, '+', &cur, &a.vals[i]));
			if (ok) {
				ok = rk_binary(&next, '+', &x, &iv);
				rk_free(&x);
			}
			rk_free(&iv);
		} else {
			/* acc + x, x a dot made before the loop: a dot into acc */
			bool folded = false;
			ok = kind != '+' || t != RK_F32 || !a.made || dot_add(a.made, &cur, &next, &folded);
			ok = ok && (folded || rk_binary(&next, kind, &cur, &a.vals[i]));
		}
		if (ok) {
			rk_free(&cur);
			cur = next;
		}
	}
	if (ok) {
		char sh[64];
		rg_shape_text(s, sh, sizeof sh);
		if (init)
			rg_sb_printf(&g->body, "    %s = %s\n", acc, init->name);
		else
			rg_sb_printf(&g->body, "    %s = tl.zeros(%s, %s)\n", acc, sh, rk_tl_name(t));
		if (form >= 7)
			rg_sb_printf(&g->body, "    %s = 0\n    while %s < %s:\n%s", ivar, ivar, limit, body.p ? body.p : "");
		else
			rg_sb_printf(&g->body, "    for %s in %s:\n%s", ivar, range, body.p ? body.p : "");
		if (kind == 'd')
			rg_sb_printf(&g->body, "        %s = tl.dot(%s, %s, %s%s)\n", acc, a.name, b.name, acc,
				  it == RK_F32 ? ", input_precision=\"ieee\"" : "");
		else if (kind == 'M')
			rg_sb_printf(&g->body, "        %s = tl.maximum(%s, %s)%s\n", acc, acc, a.name, rg_minmax_to(g, t));
		else
			rg_sb_printf(&g->body, "        %s = %s + %s%s%s\n", acc, acc, a.name, kind == 'i' ? " + " : "",
				  kind == 'i' ? ivar : "");
		if (form >= 7)
			rg_sb_printf(&g->body, "        %s += 1\n", ivar);
		loop_feat |= rg_feat_of_text(g, body.p ? body.p : "") | (init ? init->feat : 0) |
			     rg_feat_of_text(g, a.name) | rg_feat_of_text(g, b.name) | a.feat | b.feat;
	}
	free(body.p);
	loop_operand_free(&a);
	loop_operand_free(&b);
	if (!ok) {
		rk_free(&cur);
		return NULL;
	}
	node *res = rg_new_node(g, &cur, acc);
	res->feat |= loop_feat;
	return res;
}

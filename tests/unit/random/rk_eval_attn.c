/* rk_eval_attn.c: the reference of one query tile's flash attention
 * (version 7, rk_gen_attn.c): per block of keys, s = q @ k^T (fp32), scaled,
 * masked to -inf, the running row max m, alpha = exp2(m_old - m_new),
 * p = exp2(s - m_new), the running row sum l = l * alpha + sum(p), and
 * acc = acc * alpha + p.to(dt) @ v; then acc / l. Computed in double with a
 * bound per element as rk_eval.c's ops (exp2 is the GPU's approximation, and
 * a product may be fused into the next add, so every fp32 step gets an ulp);
 * -inf and exp2's zeros are exact, which rk_eval.c's ops refuse. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rk.h"

/* exp2 of x (within ex) in fp32: tl.math.exp2's accuracy as rk_math1's, and
 * an absolute floor for the fp32 subnormals a GPU flushes */
static double exp2_bound(double x, double ex, double *e)
{
	if (x == -INFINITY) {
		*e = 0;
		return 0;
	}
	double r = rk_round(RK_F32, exp2(x));
	*e = r * expm1(ex * M_LN2) + ldexp(r, -21) + rk_ulp(RK_F32, r) + 0x1p-120;
	return r;
}

/* a value of t within e of x, small ones taken as zero (within e + |x|):
 * the GPU may flush them, and rk_dot refuses the tiny results they give */
static void put_flushed(rk_val *o, size_t i, rk_dtype t, double x, double e)
{
	double r = rk_round(t, x);
	/* rounding is monotone: where x - 2e and x + 2e (the tester's window)
	 * round to r, so does x's value, and r adds no ulp (as rk_fp8) */
	if (!(e > 0 && rk_round(t, x - 2 * e) == r && rk_round(t, x + 2 * e) == r))
		e = e > 0 || r != x ? e + rk_ulp(t, fabs(r) + e) : 0;
	if (r != 0 && fabs(r) < 0x1p-60)
		e += fabs(r), r = 0;
	o->v[i] = r;
	o->e[i] = e;
}

bool rk_attn(rk_val *out, const rk_attn_spec *a, const rk_val *q, const rk_val *k, const rk_val *v)
{
	int M = a->M, D = a->D, DV = a->DV, BN = a->BN;
	size_t nrow = (size_t)M;
	double *m = malloc(nrow * sizeof(double)), *em = calloc(nrow, sizeof(double));
	double *l = calloc(nrow, sizeof(double)), *el = calloc(nrow, sizeof(double));
	double *mn = malloc(nrow * sizeof(double)), *emn = calloc(nrow, sizeof(double));
	double *al = malloc(nrow * sizeof(double)), *eal = malloc(nrow * sizeof(double));
	double *x = malloc((size_t)M * BN * sizeof(double)), *ex = malloc((size_t)M * BN * sizeof(double));
	rk_shape accs = {2, {M, DV}}, kts = {2, {D, BN}}, vs = {2, {BN, DV}}, ps = {2, {M, BN}};
	rk_val acc;
	rk_alloc(&acc, &accs, RK_F32);
	bool ok = true;
	for (int r = 0; r < M; r++)
		m[r] = -INFINITY;
	for (int it = 0; ok && it < a->iters; it++) {
		rk_val kt, vb, s, p16, sc, next;
		rk_alloc(&kt, &kts, k->t);
		rk_alloc(&vb, &vs, v->t);
		for (int j = 0; j < BN; j++) {
			size_t key = (size_t)it * BN + (size_t)j;
			for (int d = 0; d < D; d++)
				kt.v[d * BN + j] = k->v[key * D + d];
			for (int d = 0; d < DV; d++)
				vb.v[j * DV + d] = v->v[key * DV + d];
		}
		ok = rk_dot(&s, q, &kt, NULL, 0);
		rk_free(&kt);
		if (!ok) {
			rk_free(&vb);
			break;
		}
		/* scaled and masked; the row max */
		for (int r = 0; r < M; r++) {
			mn[r] = m[r], emn[r] = em[r];
			for (int j = 0; j < BN; j++) {
				int key = it * BN + j;
				size_t i = (size_t)r * BN + j;
				if (key >= a->nkv || (a->causal && key > r + a->off)) {
					x[i] = -INFINITY, ex[i] = 0;
					continue;
				}
				double y = s.v[i] * a->scale;
				x[i] = rk_round(RK_F32, y);
				ex[i] = s.e[i] * fabs(a->scale) + (x[i] != y ? rk_ulp(RK_F32, x[i]) : 0);
				if (x[i] > mn[r])
					mn[r] = x[i];
				if (ex[i] > emn[r])
					emn[r] = ex[i];
			}
			/* every row sees key 0 in the first block (the generator's masks) */
			if (mn[r] == -INFINITY)
				ok = false;
		}
		rk_free(&s);
		rk_alloc(&p16, &ps, a->pt);
		rk_alloc(&sc, &accs, RK_F32);
		for (int r = 0; ok && r < M; r++) {
			/* alpha = exp2(m_old - m_new): 0 while m_old is -inf */
			double d = m[r] == -INFINITY ? -INFINITY : rk_round(RK_F32, m[r] - mn[r]);
			double ed = em[r] + emn[r] + rk_ulp(RK_F32, d == -INFINITY ? 0 : d);
			al[r] = exp2_bound(d, ed, &eal[r]);
			double psum = 0, pabs = 0, pe = 0;
			for (int j = 0; j < BN; j++) {
				size_t i = (size_t)r * BN + j;
				double pd = x[i] == -INFINITY ? -INFINITY : rk_round(RK_F32, x[i] - mn[r]), ep;
				double pv = exp2_bound(pd, ex[i] + emn[r] + rk_ulp(RK_F32, pd == -INFINITY ? 0 : pd), &ep);
				psum += pv, pabs += pv, pe += ep;
				put_flushed(&p16, i, a->pt, pv, ep);
			}
			double la = rk_round(RK_F32, l[r] * al[r]), rs = rk_round(RK_F32, psum);
			double ln = rk_round(RK_F32, la + rs);
			el[r] = el[r] * al[r] + l[r] * eal[r] + el[r] * eal[r] + rk_ulp(RK_F32, la) + pe +
				rk_sum_error(RK_F32, pabs, (size_t)BN) + rk_ulp(RK_F32, rs) + rk_ulp(RK_F32, ln);
			l[r] = ln;
			for (int c = 0; c < DV; c++) {
				size_t i = (size_t)r * DV + c;
				double y = acc.v[i] * al[r];
				double e = acc.e[i] * al[r] + fabs(acc.v[i]) * eal[r] + acc.e[i] * eal[r];
				put_flushed(&sc, i, RK_F32, y, e + rk_ulp(RK_F32, y));
			}
		}
		/* acc * alpha + p @ v, summed in any order (the dot's accumulator or an add after it) */
		ok = ok && rk_dot(&next, &p16, &vb, &sc, 0);
		if (ok) {
			rk_free(&acc);
			acc = next;
		}
		rk_free(&p16);
		rk_free(&sc);
		rk_free(&vb);
		memcpy(m, mn, nrow * sizeof(double));
		memcpy(em, emn, nrow * sizeof(double));
	}
	/* acc / l (l >= 1 - its bound: the row max's own term) */
	if (ok && rk_alloc(out, &accs, RK_F32)) {
		for (int r = 0; ok && r < M; r++) {
			if (l[r] <= 4 * el[r] || l[r] < 0.5)
				ok = false;
			for (int c = 0; ok && c < DV; c++) {
				size_t i = (size_t)r * DV + c;
				double y = acc.v[i] / l[r], o = rk_round(RK_F32, y);
				out->v[i] = o;
				out->e[i] = acc.e[i] + el[r] == 0 && o == y
						    ? 0
						    : (acc.e[i] + fabs(y) * el[r]) / (l[r] - el[r]) + 2 * rk_ulp(RK_F32, o);
			}
		}
		ok = ok ? rk_finish(out) : (rk_free(out), false);
	}
	rk_free(&acc);
	free(m), free(em), free(l), free(el), free(mn), free(emn), free(al), free(eal), free(x), free(ex);
	return ok;
}

/* rk_gen_tuple.c (version 6): @triton.jit helpers of the kernel that take a
 * tuple and a constexpr and return a tuple, called once or in a loop that
 * carries the tuple (range, tl.range with num_stages, tl.static_range):
 *   def _t0(acc, x, i, C: tl.constexpr):
 *       a, b = acc
 *       return a + x * C, tl.maximum(b, x)
 *   v3 = (v1, v2)
 *   for v4 in range(n0):
 *       v5 = tl.load(...)
 *       v3 = _t0(v3, v5, v4, 2)
 *   v6, v7 = v3                                                            */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk_gen.h"

/* (p op1 q) op2 r */
static bool bin2(rk_val *out, int op1, const rk_val *p, const rk_val *q, int op2, const rk_val *r)
{
	rk_val tmp;
	if (!rk_binary(&tmp, op1, p, q))
		return false;
	bool ok = rk_binary(out, op2, &tmp, r);
	rk_free(&tmp);
	return ok;
}

/* one step: (a, b) of the tuple, x the operand, i the iteration, C the constexpr */
static bool step(int f1, int f2, const rk_val *a, const rk_val *b, const rk_val *x, int i, int C, rk_val *na,
		 rk_val *nb)
{
	rk_val cv, iv;
	rk_shape s0 = {0, {0}};
	rk_alloc(&cv, &s0, x->t);
	rk_alloc(&iv, &s0, x->t);
	cv.v[0] = C, iv.v[0] = i;
	bool ok = f1 == 'p' ? bin2(na, '*', x, &cv, '+', a) : bin2(na, '*', a, &cv, '+', x);
	if (ok) {
		ok = f2 == 'M' ? rk_binary(nb, 'M', b, x) : f2 == 'i' ? bin2(nb, '+', b, x, '+', &iv) : rk_binary(nb, '-', b, x);
		if (!ok)
			rk_free(na);
	}
	rk_free(&cv);
	rk_free(&iv);
	return ok;
}

node *op_tuple(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	if (t != RK_F32 && t != RK_I32 && t != RK_F16)
		return NULL;
	int f1 = chance(g, 50) ? 'p' : 'q', f2 = "Mi-"[below(g, 3)];
	static const int cs[] = {1, 2, 3, -1};
	int C = cs[below(g, 4)];
	/* 0: called once; 1 range, 2 tl.range, 3 tl.range(num_stages), 4 static_range */
	int form = below(g, 5), iters = form ? below(g, MAX_ITERS + 1) : 1;
	char ivar[32], acc[32];
	rg_var(g, ivar);
	rg_var(g, acc);
	node *ia = chance(g, 30) ? NULL : gen_node(g, s, t, depth - 1);
	node *ib = chance(g, 30) ? NULL : gen_node(g, s, t, depth - 1);
	sbuf body = {0};
	loop_operand x;
	if (!loop_operand_make(g, s, t, depth, form ? iters : 1, form ? ivar : "0", &body, &x)) {
		free(body.p);
		return NULL;
	}
	rk_val a, b;
	rk_alloc(&a, s, t);
	rk_alloc(&b, s, t);
	size_t n = rk_numel(s);
	if (ia)
		memcpy(a.v, ia->v.v, n * sizeof(double)), memcpy(a.e, ia->v.e, n * sizeof(double));
	if (ib)
		memcpy(b.v, ib->v.v, n * sizeof(double)), memcpy(b.e, ib->v.e, n * sizeof(double));
	bool ok = true;
	for (int i = 0; ok && i < (form ? iters : 1); i++) {
		rk_val na = {0}, nb = {0};
		ok = step(f1, f2, &a, &b, &x.vals[i], i, C, &na, &nb);
		if (ok) {
			rk_free(&a), rk_free(&b);
			a = na, b = nb;
		}
	}
	uint64_t feat = x.feat | rg_feat_of_text(g, body.p ? body.p : "") | rg_feat_of_text(g, x.name) |
			(ia ? ia->feat : 0) | (ib ? ib->feat : 0) | RK_F_TUPLE;
	loop_operand_free(&x);
	if (!ok) {
		free(body.p);
		rk_free(&a), rk_free(&b);
		return NULL;
	}
	/* the helper */
	char fn[32], sh[64], ia_text[32], ib_text[32], call[160], ctext[24];
	snprintf(fn, sizeof fn, "_t%d", g->nvar++);
	rg_sb_printf(&g->pre, "@triton.jit\ndef %s(acc, x, i, C: tl.constexpr):\n    a, b = acc\n", fn);
	rg_sb_printf(&g->pre, "    return %s, ", f1 == 'p' ? "a + x * C" : "a * C + x");
	if (f2 == 'M')
		rg_sb_printf(&g->pre, "tl.maximum(b, x)%s\n\n\n", rg_minmax_to(g, t));
	else
		rg_sb_printf(&g->pre, "%s\n\n\n", f2 == 'i' ? "b + x + i" : "b - x");
	rg_shape_text(s, sh, sizeof sh);
	snprintf(ia_text, sizeof ia_text, "%s", ia ? ia->name : "");
	snprintf(ib_text, sizeof ib_text, "%s", ib ? ib->name : "");
	if (!ia)
		rg_sb_printf(&g->body, "    %s = tl.zeros(%s, %s)\n", rg_var(g, ia_text), sh, rk_tl_name(t));
	if (!ib)
		rg_sb_printf(&g->body, "    %s = tl.zeros(%s, %s)\n", rg_var(g, ib_text), sh, rk_tl_name(t));
	snprintf(ctext, sizeof ctext, chance(g, 50) ? "%d" : "C=%d", C);
	rg_sb_printf(&g->body, "    %s = (%s, %s)\n", acc, ia_text, ib_text);
	char limit[16];
	rk_param *np = form && form != 4 && chance(g, 60) ? rg_add_param(g, RK_P_I32, RK_I32) : NULL;
	if (np)
		np->i = iters, snprintf(limit, sizeof limit, "%s", np->name);
	else
		snprintf(limit, sizeof limit, "%d", iters);
	if (form == 0) {
		/* the operand's lines, outdented */
		for (char *p = body.p; p && *p;) {
			char *e = strchr(p, '\n');
			rg_sb_printf(&g->body, "%.*s\n", (int)(e - p) - 4, p + 4);
			p = e + 1;
		}
		snprintf(call, sizeof call, "%s(%s, %s, 0, %s)", fn, acc, x.name, ctext);
		rg_sb_printf(&g->body, "    %s = %s\n", acc, call);
	} else {
		if (form == 1)
			rg_sb_printf(&g->body, "    for %s in range(%s):\n", ivar, limit);
		else if (form == 2)
			rg_sb_printf(&g->body, "    for %s in tl.range(0, %s):\n", ivar, limit);
		else if (form == 3)
			rg_sb_printf(&g->body, "    for %s in tl.range(0, %s, num_stages=%d):\n", ivar, limit, 1 + below(g, 3));
		else
			rg_sb_printf(&g->body, "    for %s in tl.static_range(%s):\n", ivar, limit);
		rg_sb_printf(&g->body, "%s        %s = %s(%s, %s, %s, %s)\n", body.p ? body.p : "", acc, fn, acc, x.name, ivar,
			     ctext);
	}
	free(body.p);
	char n0[32], n1[32];
	rg_var(g, n0), rg_var(g, n1);
	rg_sb_printf(&g->body, "    %s, %s = %s\n", n0, n1, acc);
	node *r0 = rg_new_node(g, &a, n0), *r1 = rg_new_node(g, &b, n1);
	r0->feat |= feat, r1->feat |= feat;
	return chance(g, 50) ? r0 : r1;
}

/* rk_gen_leaf.c: the leaves of rk_gen.c's trees (masked loads from padded,
 * strided or transposed boxes, tl.full, tl.arange, literals, scalar
 * arguments), operands that broadcast, and index tiles for gather/histogram. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk_gen.h"

/* a literal of t (a Python number, weakly typed: it takes the tile's dtype) */
node *rg_literal(gen *g, rk_dtype t, bool nonzero)
{
	static const double fl[] = {0.5, 1.0, 1.5, 2.0, 3.0, -1.0, -0.5, 0.25, -2.5, 4.0, 0.0};
	static const int si[] = {1, 2, 3, 5, 7, -1, -3, -4, 0};
	double x;
	char name[32];
	if (rk_is_float(t)) {
		x = fl[below(g, nonzero ? 10 : 11)];
		snprintf(name, sizeof name, x < 0 ? "(%.2f)" : "%.2f", x);
	} else {
		bool u = t == RK_U8 || t == RK_U16 || t == RK_U32; /* no negative literal: it would promote */
		x = u ? below(g, nonzero ? 7 : 8) + (nonzero ? 1 : 0) : si[below(g, nonzero ? 8 : 9)];
		snprintf(name, sizeof name, x < 0 ? "(%.0f)" : "%.0f", x);
	}
	rk_val v;
	rk_shape s = {0, {0}};
	rk_alloc(&v, &s, t);
	v.v[0] = rk_round(t, x);
	return rg_new_node(g, &v, name);
}

/* a scalar kernel argument of t (fp32 or int32), a reduced tile, or a literal */
node *rg_scalar(gen *g, rk_dtype t, bool nonzero)
{
	if (g->v3 && t != RK_F32 && t != RK_I32 && t != RK_BOOL && chance(g, 30)) {
		/* version 3: an argument of t itself (a rank-0 tensor of t: t op t stays t) */
		rk_param *p = rg_add_param(g, rk_is_float(t) ? RK_P_F32 : RK_P_I32, t);
		if (p) {
			rk_val v;
			rk_shape s = {0, {0}};
			rk_alloc(&v, &s, t);
			if (rk_is_float(t)) {
				p->f = (float)((below(g, 33) - 16) * 0.375);
				if (nonzero && p->f == 0)
					p->f = 1.5f;
				v.v[0] = p->f;
			} else if (rk_size(t) > 1) {
				/* version 5's integers: passed as 64-bit numbers */
				p->wide = rk_sig_name(t);
				p->wi = (int64_t)rg_random_value(g, t, false);
				if (nonzero && p->wi == 0)
					p->wi = 3;
				v.v[0] = (double)p->wi;
			} else {
				p->i = t == RK_U8 ? below(g, 256) : below(g, 256) - 128;
				if (nonzero && p->i == 0)
					p->i = 3;
				v.v[0] = p->i;
			}
			node *n = rg_new_node(g, &v, p->name);
			n->feat |= RK_F_SCALAR;
			return n;
		}
	}
	if ((t == RK_F32 || t == RK_I32) && chance(g, 20)) {
		node *n = full_reduce(g, t);
		if (n)
			return n;
	}
	if ((t != RK_F32 && t != RK_I32) || chance(g, 50))
		return rg_literal(g, t, nonzero);
	rk_param *p = rg_add_param(g, t == RK_F32 ? RK_P_F32 : RK_P_I32, t);
	if (!p)
		return rg_literal(g, t, nonzero);
	rk_val v;
	rk_shape s = {0, {0}};
	rk_alloc(&v, &s, t);
	if (t == RK_F32) {
		p->f = chance(g, 50) ? (float)(below(g, 16) - 8) * 0.25f : (float)((double)below(g, 1 << 20) / (1 << 18) - 2.0);
		if (nonzero && p->f == 0)
			p->f = 1.5f;
		v.v[0] = p->f;
	} else {
		p->i = below(g, 41) - 20;
		if (nonzero && p->i == 0)
			p->i = 3;
		v.v[0] = p->i;
	}
	return rg_new_node(g, &v, p->name);
}

double rg_random_value(gen *g, rk_dtype t, bool exact)
{
	switch (t) {
	case RK_I32:
		return chance(g, 10) ? (double)(int32_t)(uint32_t)rnd(g) : below(g, 2001) - 1000;
	case RK_I8:
		return below(g, 256) - 128;
	case RK_U8:
		return below(g, 256);
	/* version 5: often small, sometimes anywhere in range (int64: within +-2^52) */
	case RK_I16:
		return chance(g, 30) ? below(g, 65536) - 32768 : below(g, 2001) - 1000;
	case RK_U16:
		return chance(g, 30) ? below(g, 65536) : below(g, 2001);
	case RK_U32:
		return chance(g, 30) ? (double)(uint32_t)rnd(g) : below(g, 2001);
	case RK_I64:
		return chance(g, 20) ? (double)((int64_t)(rnd(g) >> 11) - (INT64_C(1) << 52))
		       : chance(g, 20) ? (double)(int32_t)(uint32_t)rnd(g) : below(g, 2001) - 1000;
	default:
		if (exact)
			return (below(g, 17) - 8) * 0.5;
		return rk_round(t, ((double)below(g, 1 << 24) / (1 << 24) - 0.5) * 6.0);
	}
}

node *rg_leaf_load(gen *g, const rk_shape *s, rk_dtype t)
{
	rk_param *p = rg_add_param(g, RK_P_PTR, t);
	if (!p)
		return NULL;
	char name[32], o[RK_MAX_RANK][48], off[256] = "", mask[256] = "";
	rg_var(g, name);
	int r = s->rank;
	/* memory: a padded box, its dims in a random order (inner stride not always 1) */
	int order[RK_MAX_RANK] = {0, 1, 2}, box[RK_MAX_RANK], bound[RK_MAX_RANK];
	long stride[RK_MAX_RANK];
	if (r > 1 && chance(g, 30))
		for (int k = r - 1; k > 0; k--) {
			int j = below(g, k + 1), tmp = order[k];
			order[k] = order[j], order[j] = tmp;
		}
	long st = 1;
	for (int k = r - 1; k >= 0; k--) {
		int dim = order[k];
		box[dim] = s->d[dim] + (chance(g, 30) ? below(g, 4) : 0);
		stride[dim] = st;
		st *= box[dim];
	}
	bool masked = false;
	for (int k = 0; k < r; k++) {
		snprintf(o[k], sizeof o[k], "%s_%d", name, k);
		rg_sb_printf(&g->body, "    %s = tl.arange(0, %d)\n", o[k], s->d[k]);
		bound[k] = s->d[k];
		if (chance(g, 45)) {
			rk_param *n = rg_add_param(g, RK_P_I32, RK_I32);
			if (n) {
				n->i = bound[k] = 1 + below(g, s->d[k]);
				if (chance(g, 25))
					n->i = bound[k] = s->d[k];
				size_t ml = strlen(mask);
				snprintf(mask + ml, sizeof mask - ml, "%s(%s%s < %s)", masked ? " & " : "", o[k], rg_place(r, k),
					 n->name);
				masked = true;
			}
		}
		size_t ol = strlen(off);
		if (stride[k] == 1) {
			snprintf(off + ol, sizeof off - ol, "%s%s%s", k ? " + " : "", o[k], rg_place(r, k));
		} else if (chance(g, 50)) {
			rk_param *n = rg_add_param(g, RK_P_I32, RK_I32);
			if (!n)
				return NULL;
			n->i = (int32_t)stride[k];
			snprintf(off + ol, sizeof off - ol, "%s%s%s * %s", k ? " + " : "", o[k], rg_place(r, k), n->name);
		} else {
			snprintf(off + ol, sizeof off - ol, "%s%s%s * %ld", k ? " + " : "", o[k], rg_place(r, k), stride[k]);
		}
	}
	node *other = masked ? rg_literal(g, t, false) : NULL;
	bool exact = chance(g, 60);
	rk_val v;
	rk_alloc(&v, s, t);
	size_t n = rk_numel(s), count = 1;
	for (size_t i = 0; i < n; i++) {
		int idx[RK_MAX_RANK];
		size_t f = i;
		for (int k = r - 1; k >= 0; k--)
			idx[k] = (int)(f % (size_t)s->d[k]), f /= (size_t)s->d[k];
		bool in = true;
		size_t at = 0;
		for (int k = 0; k < r; k++)
			in &= idx[k] < bound[k], at += (size_t)idx[k] * (size_t)stride[k];
		if (in && at + 1 > count)
			count = at + 1;
	}
	/* exactly the elements the mask lets through: a load past them is a bug */
	p->count = count;
	p->data = calloc(count, rk_size(t));
	for (size_t i = 0; i < count; i++)
		rk_put(t, p->data, i, rg_random_value(g, t, exact));
	for (size_t i = 0; i < n; i++) {
		int idx[RK_MAX_RANK];
		size_t f = i;
		for (int k = r - 1; k >= 0; k--)
			idx[k] = (int)(f % (size_t)s->d[k]), f /= (size_t)s->d[k];
		bool in = true;
		size_t at = 0;
		for (int k = 0; k < r; k++)
			in &= idx[k] < bound[k], at += (size_t)idx[k] * (size_t)stride[k];
		v.v[i] = in ? rk_get(t, p->data, at) : other->v.v[0];
	}
	/* version 3: cache and eviction hints, which change nothing */
	static const char *const hints[] = {", cache_modifier=\".cg\"", ", cache_modifier=\".ca\"",
					    ", eviction_policy=\"evict_last\"", ", volatile=True",
					    ", cache_modifier=\".cg\", eviction_policy=\"evict_first\""};
	const char *hint = g->v3 && chance(g, 15) ? hints[below(g, 5)] : "";
	if (masked)
		rg_sb_printf(&g->body, "    %s = tl.load(%s + (%s), mask=%s, other=%s%s)\n", name, p->name, off, mask,
			  other->name, hint);
	else
		rg_sb_printf(&g->body, "    %s = tl.load(%s + (%s)%s)\n", name, p->name, off, hint);
	node *res = rg_new_node(g, &v, name);
	res->feat |= hint[0] ? RK_F_CACHE : 0;
	return res;
}

node *rg_leaf(gen *g, const rk_shape *s, rk_dtype t)
{
	char name[32], sh[64];
	int c = below(g, 100);
	if (c < 10) {
		node *lit = rg_literal(g, t, false);
		rg_shape_text(s, sh, sizeof sh);
		rg_var(g, name);
		rg_sb_printf(&g->body, "    %s = tl.full(%s, %s, %s)\n", name, sh, lit->name, rk_tl_name(t));
		rk_val v;
		rk_alloc(&v, s, t);
		for (size_t i = 0; i < rk_numel(s); i++)
			v.v[i] = lit->v.v[0];
		return rg_new_node(g, &v, name);
	}
	if (c < 22 && t == RK_I32 && s->rank == 1) {
		rg_var(g, name);
		rg_sb_printf(&g->body, "    %s = tl.arange(0, %d)\n", name, s->d[0]);
		rk_val v;
		rk_alloc(&v, s, t);
		for (int i = 0; i < s->d[0]; i++)
			v.v[i] = i;
		return rg_new_node(g, &v, name);
	}
	/* version 6: through a block pointer or a tensor descriptor */
	node *n = g->v6 && chance(g, 20) ? rg_leaf_block(g, s, t) : NULL;
	if (!n)
		n = rg_leaf_load(g, s, t);
	if (n)
		return n;
	/* out of parameters: zeros */
	rg_shape_text(s, sh, sizeof sh);
	rg_var(g, name);
	rg_sb_printf(&g->body, "    %s = tl.zeros(%s, %s)\n", name, sh, rk_tl_name(t));
	rk_val v;
	rk_alloc(&v, s, t);
	return rg_new_node(g, &v, name);
}

/* s with some dims set to 1 and maybe leading dims dropped: broadcasts to s */
rk_shape rg_broadcastable(gen *g, const rk_shape *s)
{
	rk_shape b = *s;
	for (int k = 0; k < b.rank; k++)
		if (chance(g, 40))
			b.d[k] = 1;
	int drop = b.rank > 1 && chance(g, 30) ? 1 + below(g, b.rank - 1) : 0;
	if (drop) {
		for (int k = 0; k + drop < b.rank; k++)
			b.d[k] = b.d[k + drop];
		b.rank -= drop;
	}
	return b;
}

/* an operand of shape s or one broadcasting to it, or a scalar */
node *rg_operand(gen *g, const rk_shape *s, rk_dtype t, int depth, bool nonzero)
{
	int c = below(g, 100);
	if (c < 18)
		return rg_scalar(g, t, nonzero);
	if (c < 40) {
		rk_shape b = rg_broadcastable(g, s);
		return gen_node(g, &b, t, depth);
	}
	return gen_node(g, s, t, depth);
}

/* version 5: sometimes an index tile cast to another integer type (a value
 * that does not fit wraps, and the op's reference refuses it) */
node *index_retype(gen *g, node *idx)
{
	static const rk_dtype ts[] = {RK_I64, RK_U32, RK_I16, RK_U16, RK_U8, RK_I8};
	if (!g->v5 || !chance(g, 30))
		return idx;
	rk_dtype t = ts[below(g, 6)];
	rk_val v;
	if (!rk_cast(&v, &idx->v, t))
		return idx;
	char expr[64];
	snprintf(expr, sizeof expr, "%s.to(%s)", idx->name, rk_tl_name(t));
	return rg_emit(g, &v, expr);
}

/* an int32 index tile of shape s, its values in [0, range): a load (masked
 * on dim 0, other=0) or, 1-D, (arange * P + Q) % range */
node *index_tile(gen *g, const rk_shape *s, int range)
{
	rk_val v;
	char name[32];
	int r = s->rank;
	if (r == 1 && chance(g, 30)) {
		int P = 1 + 2 * below(g, 4), Q = below(g, range);
		rk_alloc(&v, s, RK_I32);
		for (int i = 0; i < s->d[0]; i++)
			v.v[i] = (double)((i * P + Q) % range);
		char expr[96];
		snprintf(expr, sizeof expr, "(tl.arange(0, %d) * %d + %d) %% %d", s->d[0], P, Q, range);
		return rg_emit(g, &v, expr);
	}
	rk_param *p = rg_add_param(g, RK_P_PTR, RK_I32);
	if (!p)
		return NULL;
	size_t n = rk_numel(s);
	p->count = n;
	p->data = calloc(n, sizeof(int32_t));
	for (size_t i = 0; i < n; i++)
		((int32_t *)p->data)[i] = below(g, range);
	rg_var(g, name);
	char off[160] = "";
	long stride = 1;
	for (int k = r - 1; k >= 0; k--) {
		rg_sb_printf(&g->body, "    %s_%d = tl.arange(0, %d)\n", name, k, s->d[k]);
		size_t ol = strlen(off);
		snprintf(off + ol, sizeof off - ol, "%s%s_%d%s * %ld", ol ? " + " : "", name, k, rg_place(r, k), stride);
		stride *= s->d[k];
	}
	rk_param *np = chance(g, 40) ? rg_add_param(g, RK_P_I32, RK_I32) : NULL;
	int bound = s->d[0];
	if (np)
		np->i = bound = 1 + below(g, s->d[0]);
	rk_alloc(&v, s, RK_I32);
	size_t row = n / (size_t)s->d[0];
	for (size_t i = 0; i < n; i++)
		v.v[i] = (int)(i / row) < bound ? ((int32_t *)p->data)[i] : 0;
	if (np)
		rg_sb_printf(&g->body, "    %s = tl.load(%s + (%s), mask=%s_0%s < %s, other=0)\n", name, p->name, off, name,
			  rg_place(r, 0), np->name);
	else
		rg_sb_printf(&g->body, "    %s = tl.load(%s + (%s))\n", name, p->name, off);
	return rg_new_node(g, &v, name);
}

/* rk_gen_view.c: nodes that move elements without arithmetic: trans/permute,
 * reshape, expand_dims, broadcast_to, join/split, gather, interleave. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk_gen.h"

node *op_permute(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	if (s->rank < 2)
		return NULL;
	int p[RK_MAX_RANK] = {0, 1, 2};
	if (s->rank == 2) {
		p[0] = 1, p[1] = 0;
	} else {
		do {
			for (int k = 2; k > 0; k--) {
				int j = below(g, k + 1), tmp = p[k];
				p[k] = p[j], p[j] = tmp;
			}
		} while (p[0] == 0 && p[1] == 1);
	}
	rk_shape cs = *s;
	for (int k = 0; k < s->rank; k++)
		cs.d[p[k]] = s->d[k];
	node *a = gen_node(g, &cs, t, depth - 1);
	rk_val v;
	if (!rk_permute(&v, &a->v, p))
		return NULL;
	char expr[128];
	int c = below(g, 3);
	if (s->rank == 2)
		snprintf(expr, sizeof expr, c == 0 ? "tl.trans(%s)" : c == 1 ? "%s.T" : "tl.permute(%s, (1, 0))",
			 a->name);
	else
		snprintf(expr, sizeof expr, "tl.%s(%s, (%d, %d, %d))", c ? "permute" : "trans", a->name, p[0], p[1],
			 p[2]);
	return rg_emit(g, &v, expr);
}

node *op_reshape(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	int total = rg_log2i((int)rk_numel(s));
	rk_shape cs = {1 + below(g, 3), {0}};
	int left = total;
	for (int k = 0; k < cs.rank; k++) {
		int e = k == cs.rank - 1 ? left : below(g, (left < 8 ? left : 8) + 1);
		if (e > 8)
			return NULL;
		cs.d[k] = 1 << e;
		left -= e;
	}
	if (cs.rank == s->rank && memcmp(cs.d, s->d, sizeof(int) * (size_t)cs.rank) == 0)
		return NULL;
	node *a = gen_node(g, &cs, t, depth - 1);
	rk_val v;
	if (!rk_reshape(&v, &a->v, s))
		return NULL;
	char expr[128], sh[64];
	rg_shape_text(s, sh, sizeof sh);
	snprintf(expr, sizeof expr, "tl.reshape(%s, %s)", a->name, sh);
	return rg_emit(g, &v, expr);
}

node *op_expand(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	int ones[RK_MAX_RANK], nones = 0;
	for (int k = 0; k < s->rank; k++)
		if (s->d[k] == 1)
			ones[nones++] = k;
	if (!nones || s->rank < 2)
		return NULL;
	int axis = ones[below(g, nones)];
	rk_shape cs = {s->rank - 1, {0}};
	for (int k = 0, j = 0; k < s->rank; k++)
		if (k != axis)
			cs.d[j++] = s->d[k];
	node *a = gen_node(g, &cs, t, depth - 1);
	rk_val v;
	if (!rk_expand_dims(&v, &a->v, axis))
		return NULL;
	char expr[128];
	if (chance(g, 50)) {
		snprintf(expr, sizeof expr, "tl.expand_dims(%s, %d)", a->name, axis);
	} else {
		size_t n = (size_t)snprintf(expr, sizeof expr, "%s[", a->name);
		for (int k = 0; k < s->rank; k++)
			n += (size_t)snprintf(expr + n, sizeof expr - n, "%s%s", k ? ", " : "", k == axis ? "None" : ":");
		snprintf(expr + n, sizeof expr - n, "]");
	}
	return rg_emit(g, &v, expr);
}

node *op_broadcast(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	rk_shape cs = *s;
	bool any = false;
	for (int k = 0; k < s->rank; k++)
		if (s->d[k] > 1 && chance(g, 50))
			cs.d[k] = 1, any = true;
	if (!any)
		return NULL;
	node *a = gen_node(g, &cs, t, depth - 1);
	rk_val v;
	if (!rk_broadcast_to(&v, &a->v, s))
		return NULL;
	char expr[128], sh[64];
	rg_shape_text(s, sh, sizeof sh);
	snprintf(expr, sizeof expr, "tl.broadcast_to(%s, %s)", a->name, sh);
	return rg_emit(g, &v, expr);
}

node *op_join(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	if (s->rank < 2 || s->d[s->rank - 1] != 2)
		return NULL;
	rk_shape cs = *s;
	cs.rank--;
	node *a = gen_node(g, &cs, t, depth - 1), *b = gen_node(g, &cs, t, depth - 1);
	rk_val v;
	if (!rk_join(&v, &a->v, &b->v))
		return NULL;
	char expr[128];
	snprintf(expr, sizeof expr, "tl.join(%s, %s)", a->name, b->name);
	return rg_emit(g, &v, expr);
}

node *op_split(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	if (s->rank >= RK_MAX_RANK)
		return NULL;
	rk_shape cs = *s;
	cs.d[cs.rank++] = 2;
	if (rk_numel(&cs) > RK_MAX_NUMEL)
		return NULL;
	node *a = gen_node(g, &cs, t, depth - 1);
	int which = below(g, 2);
	rk_val v;
	if (!rk_split(&v, &a->v, which))
		return NULL;
	char n0[32], n1[32];
	rg_var(g, n0);
	rg_var(g, n1);
	rg_sb_printf(&g->body, "    %s, %s = tl.split(%s)\n", n0, n1, a->name);
	node *r = rg_new_node(g, &v, which ? n1 : n0);
	r->feat |= a->feat;
	return r;
}

/* tl.gather(src, index, axis): 1-D and 2-D */
node *op_gather(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	if (s->rank < 1 || s->rank > 2)
		return NULL;
	int axis = below(g, s->rank);
	rk_shape ss = *s;
	int room = rg_log2i((int)(65536 / rk_numel(s)));
	ss.d[axis] = 1 << below(g, (room < 7 ? room : 7) + 1);
	if (rk_numel(&ss) > RK_MAX_NUMEL)
		return NULL;
	node *src = gen_node(g, &ss, t, depth - 1), *idx = index_tile(g, s, ss.d[axis]);
	rk_val v;
	if (idx)
		idx = index_retype(g, idx);
	if (!idx || !rk_gather(&v, &src->v, &idx->v, axis))
		return NULL;
	char expr[128];
	snprintf(expr, sizeof expr, chance(g, 50) ? "tl.gather(%s, %s, %d)" : "tl.gather(%s, %s, axis=%d)", src->name,
		 idx->name, axis);
	node *n = rg_emit(g, &v, expr);
	n->feat |= RK_F_GATHER;
	return n;
}

node *op_interleave(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	if (s->rank < 1 || s->d[s->rank - 1] < 2)
		return NULL;
	rk_shape cs = *s;
	cs.d[cs.rank - 1] /= 2;
	node *a = gen_node(g, &cs, t, depth - 1), *b = gen_node(g, &cs, t, depth - 1);
	rk_val v;
	if (!rk_interleave(&v, &a->v, &b->v))
		return NULL;
	char expr[128];
	snprintf(expr, sizeof expr, "tl.interleave(%s, %s)", a->name, b->name);
	node *n = rg_emit(g, &v, expr);
	n->feat |= RK_F_INTERLEAVE;
	return n;
}

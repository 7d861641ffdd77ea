/* rk_gen_block.c (version 6): tiles loaded and stored through block pointers
 * (tl.make_block_ptr, tl.advance, boundary_check, padding_option "zero" and
 * "nan") and tensor descriptors (tl.make_tensor_descriptor, .load, .store),
 * placed at edges: offsets that may be negative or run past the tensor's
 * shape, runtime shapes, strides and offsets, transposed memory. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk_gen.h"

/* A block of shape d placed at offsets off in a tensor of shape shape (the
 * make_block_ptr/descriptor argument) whose memory is ext elements per dim
 * at stride; checked: the dims boundary_check covers (a descriptor's: all).
 * An unchecked dim lies inside the tensor. */
typedef struct {
	int r;
	int d[RK_MAX_RANK], off[RK_MAX_RANK], shape[RK_MAX_RANK], ext[RK_MAX_RANK];
	long stride[RK_MAX_RANK];
	bool checked[RK_MAX_RANK];
	bool desc;
} place;

/* x as a literal or, pct percent of the time, a runtime int32 argument */
static void int_text(gen *g, int x, int pct, char *buf, size_t size)
{
	rk_param *p = chance(g, pct) ? rg_add_param(g, RK_P_I32, RK_I32) : NULL;
	if (p) {
		p->i = x;
		snprintf(buf, size, "%s", p->name);
	} else {
		snprintf(buf, size, "%d", x);
	}
}

/* "(a, b)" or "[a, b]" of n texts ("(a,)" for one in parentheses) */
static void tuple_text(char *buf, size_t size, char (*items)[16], int n, bool list)
{
	size_t l = (size_t)snprintf(buf, size, "%c", list ? '[' : '(');
	for (int k = 0; k < n; k++)
		l += (size_t)snprintf(buf + l, size - l, "%s%s", k ? ", " : "", items[k]);
	snprintf(buf + l, size - l, "%s", list ? "]" : n == 1 ? ",)" : ")");
}

/* memory strides: row-major over ext, dims in a random order for a block
 * pointer (a descriptor's last dim is contiguous and its rows a multiple of
 * 16 bytes); the elements the memory spans */
static size_t place_strides(gen *g, place *p, rk_dtype t)
{
	int order[RK_MAX_RANK] = {0, 1, 2};
	if (!p->desc && p->r > 1 && chance(g, 30))
		for (int k = p->r - 1; k > 0; k--) {
			int j = below(g, k + 1), tmp = order[k];
			order[k] = order[j], order[j] = tmp;
		}
	long st = 1;
	for (int k = p->r - 1; k >= 0; k--) {
		int dim = order[k];
		p->stride[dim] = st;
		long e = p->ext[dim];
		if (k == p->r - 1 && p->desc) {
			long per16 = 16 / (long)rk_size(t);
			e = (e + per16 - 1) / per16 * per16;
		} else if (k == p->r - 1 && chance(g, 30)) {
			e += below(g, 4); /* a padded pitch */
		}
		st *= e;
	}
	return (size_t)st;
}

/* whether element idx of the block lies inside the tensor; its address */
static bool place_at(const place *p, const int *idx, size_t *at)
{
	bool in = true;
	long a = 0;
	for (int k = 0; k < p->r; k++) {
		int x = p->off[k] + idx[k];
		in &= x >= 0 && x < p->shape[k];
		a += (long)x * p->stride[k];
	}
	*at = in ? (size_t)a : 0;
	return in;
}

/* the texts of make_block_ptr's or make_tensor_descriptor's arguments */
typedef struct {
	char shape[96], strides[96], offsets[96], block[64], order[32], check[32];
} place_text;

static void place_texts(gen *g, const place *p, place_text *pt)
{
	char sh[RK_MAX_RANK][16], st[RK_MAX_RANK][16], of[RK_MAX_RANK][16], bl[RK_MAX_RANK][16], ord[RK_MAX_RANK][16],
		ck[RK_MAX_RANK][16];
	int nck = 0;
	for (int k = 0; k < p->r; k++) {
		int_text(g, p->shape[k], 30, sh[k], sizeof sh[k]);
		if (p->desc && k == p->r - 1)
			snprintf(st[k], sizeof st[k], "1");
		else
			int_text(g, (int)p->stride[k], 30, st[k], sizeof st[k]);
		int_text(g, p->off[k], 35, of[k], sizeof of[k]);
		snprintf(bl[k], sizeof bl[k], "%d", p->d[k]);
	}
	/* order: the dims from the fastest-varying (the compiler's hint) */
	bool used[RK_MAX_RANK] = {0};
	for (int i = 0; i < p->r; i++) {
		int best = -1;
		for (int k = 0; k < p->r; k++)
			if (!used[k] && (best < 0 || p->stride[k] < p->stride[best]))
				best = k;
		used[best] = true;
		snprintf(ord[i], sizeof ord[i], "%d", best);
	}
	/* boundary_check's dims in a random order */
	int start = below(g, p->r);
	for (int i = 0; i < p->r; i++) {
		int k = (start + i) % p->r;
		if (p->checked[k])
			snprintf(ck[nck++], sizeof ck[0], "%d", k);
	}
	tuple_text(pt->shape, sizeof pt->shape, sh, p->r, p->desc);
	tuple_text(pt->strides, sizeof pt->strides, st, p->r, p->desc);
	tuple_text(pt->offsets, sizeof pt->offsets, of, p->r, p->desc);
	tuple_text(pt->block, sizeof pt->block, bl, p->r, p->desc);
	tuple_text(pt->order, sizeof pt->order, ord, p->r, false);
	tuple_text(pt->check, sizeof pt->check, ck, nck, false);
}

/* the make_block_ptr line of p into name, maybe made at other offsets and
 * moved by tl.advance; check[32]: the boundary_check tuple */
static void block_ptr_lines(gen *g, const place *p, const char *base, const char *name, char *check)
{
	place q = *p;
	bool adv = chance(g, 35);
	int delta[RK_MAX_RANK];
	for (int k = 0; k < p->r; k++) {
		delta[k] = adv ? below(g, 5) - 2 : 0;
		q.off[k] = p->off[k] - delta[k];
	}
	place_text pt;
	place_texts(g, &q, &pt);
	snprintf(check, 32, "%s", pt.check);
	if (chance(g, 50))
		rg_sb_printf(&g->body, "    %s = tl.make_block_ptr(%s, shape=%s, strides=%s, offsets=%s, block_shape=%s, order=%s)\n",
			     name, base, pt.shape, pt.strides, pt.offsets, pt.block, pt.order);
	else
		rg_sb_printf(&g->body, "    %s = tl.make_block_ptr(%s, %s, %s, %s, %s, %s)\n", name, base, pt.shape,
			     pt.strides, pt.offsets, pt.block, pt.order);
	if (adv) {
		char dl[RK_MAX_RANK][16], text[96];
		for (int k = 0; k < p->r; k++)
			int_text(g, delta[k], 20, dl[k], sizeof dl[k]);
		tuple_text(text, sizeof text, dl, p->r, false);
		rg_sb_printf(&g->body, "    %s = tl.advance(%s, %s)\n", name, name, text);
	}
}

/* a block of shape s placed at random edges of a tensor */
static void place_random(gen *g, place *p, const rk_shape *s, bool desc)
{
	memset(p, 0, sizeof *p);
	p->r = s->rank;
	p->desc = desc;
	for (int k = 0; k < p->r; k++) {
		int d = p->d[k] = s->d[k];
		p->checked[k] = desc || chance(g, 65);
		if (p->checked[k]) {
			int c = below(g, 100);
			p->off[k] = c < 15 ? -(1 + below(g, d < 4 ? d : 4)) : c < 55 ? 0 : 1 + below(g, d);
			p->shape[k] = 1 + below(g, d + 4);
			p->ext[k] = p->shape[k];
		} else {
			p->off[k] = below(g, 3);
			p->ext[k] = p->shape[k] = p->off[k] + d;
		}
	}
}

/* version 6: a tile loaded through a block pointer or a tensor descriptor,
 * elements outside the tensor reading as the padding (a NaN padding is
 * replaced right after by a literal, as NaN goes nowhere else) */
node *rg_leaf_block(gen *g, const rk_shape *s, rk_dtype t)
{
	if (s->rank < 1 || t == RK_BOOL || g->k->nparams + 16 > RK_MAX_PARAMS - 1)
		return NULL;
	bool desc = (size_t)s->d[s->rank - 1] * rk_size(t) >= 16 && chance(g, 45);
	place p;
	place_random(g, &p, s, desc);
	rk_param *x = rg_add_param(g, RK_P_PTR, t);
	if (!x)
		return NULL;
	size_t n = rk_numel(s), count = 1;
	place_strides(g, &p, t);
	/* exactly the elements inside the tensor: a load past them is a bug */
	bool any_out = false;
	for (size_t i = 0; i < n; i++) {
		int idx[RK_MAX_RANK];
		size_t at;
		rk_unflatten(s, i, idx);
		if (place_at(&p, idx, &at))
			count = at + 1 > count ? at + 1 : count;
		else
			any_out = true;
	}
	x->count = count;
	x->data = calloc(count, rk_size(t));
	bool exact = chance(g, 60);
	for (size_t i = 0; i < count; i++)
		rk_put(t, x->data, i, rg_random_value(g, t, exact));
	/* padding: "zero", "nan" (floats), or none where nothing is outside */
	int pad = rk_is_float(t) && chance(g, 35) ? 2 : !any_out && !desc && chance(g, 40) ? 0 : 1;
	rk_val v;
	rk_alloc(&v, s, t);
	for (size_t i = 0; i < n; i++) {
		int idx[RK_MAX_RANK];
		size_t at;
		rk_unflatten(s, i, idx);
		v.v[i] = place_at(&p, idx, &at) ? rk_get(t, x->data, at) : pad == 2 ? NAN : 0;
	}
	char name[32], ptr[32];
	snprintf(name, sizeof name, "q%d", g->nvar++); /* no node: NaN may be in it */
	snprintf(ptr, sizeof ptr, "q%d", g->nvar++);
	static const char *const pads[] = {"", ", padding_option=\"zero\"", ", padding_option=\"nan\""};
	if (desc) {
		place_text pt;
		place_texts(g, &p, &pt);
		rg_sb_printf(&g->body, "    %s = tl.make_tensor_descriptor(%s, shape=%s, strides=%s, block_shape=%s%s)\n", ptr,
			     x->name, pt.shape, pt.strides, pt.block, pad == 2 || chance(g, 30) ? pads[pad] : "");
		rg_sb_printf(&g->body, chance(g, 50) ? "    %s = %s.load(%s)\n" : "    %s = %s.load(offsets=%s)\n", name, ptr,
			     pt.offsets);
	} else {
		char check[32];
		block_ptr_lines(g, &p, x->name, ptr, check);
		/* none at times where nothing is outside */
		if (strcmp(check, "()") && (any_out || chance(g, 70)))
			rg_sb_printf(&g->body, "    %s = tl.load(%s, boundary_check=%s%s)\n", name, ptr, check, pads[pad]);
		else
			rg_sb_printf(&g->body, "    %s = tl.load(%s%s)\n", name, ptr, pad == 2 ? pads[pad] : "");
	}
	uint64_t feat = (desc ? RK_F_DESC : RK_F_BLOCKPTR) | (pad == 2 && any_out ? RK_F_PADNAN : 0);
	if (pad != 2) {
		node *res = rg_emit(g, &v, name);
		res->feat |= feat;
		return res;
	}
	/* NaN out: a literal in its place */
	node *fill = rg_literal(g, t, false);
	rk_val out;
	bool ok = rk_nan_fill(&out, &v, fill->v.v[0]);
	rk_free(&v);
	if (!ok)
		return NULL;
	char expr[192];
	snprintf(expr, sizeof expr, "tl.where(%s != %s, %s, %s)", name, name, fill->name, name);
	node *res = rg_emit(g, &out, expr);
	res->feat |= feat;
	return res;
}

/* version 6: the root stored through a block pointer (boundary_check) or a
 * tensor descriptor placed at edges of the output; every element of the
 * output's memory is checked (those outside the tensor keep the sentinel).
 * False where it does not fit. */
bool rg_block_store(gen *g, const node *root, rk_param *out)
{
	rk_kernel *k = g->k;
	const rk_shape *s = &root->v.s;
	rk_dtype t = root->v.t;
	if (s->rank < 1 || k->nparams + 16 > RK_MAX_PARAMS)
		return false;
	bool desc = (size_t)s->d[s->rank - 1] * rk_size(t) >= 16 && chance(g, 45);
	place p;
	place_random(g, &p, s, desc);
	/* memory past the shape, where the block reaches: it must not be written */
	for (int d = 0; d < p.r; d++)
		if (p.off[d] + p.d[d] > p.ext[d])
			p.ext[d] = p.off[d] + p.d[d];
	size_t span = place_strides(g, &p, t), n = rk_numel(s);
	free(out->data);
	out->count = span;
	out->data = calloc(span, rk_size(t));
	rk_val want;
	rk_shape ws = {1, {(int)span}};
	rk_alloc(&want, &ws, t);
	free(k->stored);
	free(k->out_at);
	k->stored = calloc(span, sizeof(bool));
	k->out_at = calloc(span, sizeof(size_t));
	for (size_t i = 0; i < span; i++)
		k->out_at[i] = i;
	for (size_t i = 0; i < n; i++) {
		int idx[RK_MAX_RANK];
		size_t at;
		rk_unflatten(s, i, idx);
		if (place_at(&p, idx, &at)) {
			k->stored[at] = true;
			want.v[at] = root->v.v[i];
			want.e[at] = root->v.e[i];
		}
	}
	rk_free(&k->want);
	k->want = want;
	char ptr[32];
	snprintf(ptr, sizeof ptr, "q%d", g->nvar++);
	if (desc) {
		place_text pt;
		place_texts(g, &p, &pt);
		rg_sb_printf(&g->body, "    %s = tl.make_tensor_descriptor(out, %s, %s, %s)\n", ptr, pt.shape, pt.strides,
			     pt.block);
		rg_sb_printf(&g->body, chance(g, 50) ? "    %s.store(%s, %s)\n" : "    %s.store(offsets=%s, value=%s)\n", ptr,
			     pt.offsets, root->name);
	} else {
		char check[32];
		block_ptr_lines(g, &p, "out", ptr, check);
		if (strcmp(check, "()"))
			rg_sb_printf(&g->body, "    tl.store(%s, %s, boundary_check=%s)\n", ptr, root->name, check);
		else
			rg_sb_printf(&g->body, "    tl.store(%s, %s)\n", ptr, root->name);
	}
	k->features |= RK_F_BLOCKSTORE | (desc ? RK_F_DESC : RK_F_BLOCKPTR);
	return true;
}

/* version 6: the addresses of op_kloop's A [Mb, K] (row pitch sa) and B
 * [K, Nb] (row pitch sb) blocks [M, BK] and [BK, N] at k: block pointers
 * made before the loop and advanced after the dot (advance; the caller
 * writes tl.advance) or made at the iteration's offsets, or tensor
 * descriptors (desc). dims: M, N, BK, Mb, Nb; names: xa, xb, sa, sb, K, the
 * pointer variables, the loop variable; aload, bload[256]: the loads. */
void rg_kloop_via(gen *g, bool desc, bool advance, const int *dims, bool edge, const char *const *names, char *aload,
		  char *bload)
{
	int M = dims[0], N = dims[1], BK = dims[2], Mb = dims[3], Nb = dims[4];
	const char *xa = names[0], *xb = names[1], *sa = names[2], *sb = names[3], *K = names[4], *ap = names[5],
		   *bp = names[6], *kv = names[7];
	char mb[16], nb[16];
	int_text(g, Mb, 40, mb, sizeof mb);
	int_text(g, Nb, 40, nb, sizeof nb);
	if (desc) {
		rg_sb_printf(&g->body, "    %s = tl.make_tensor_descriptor(%s, [%s, %s], [%s, 1], [%d, %d])\n", ap, xa, mb, K, sa,
			     M, BK);
		rg_sb_printf(&g->body, "    %s = tl.make_tensor_descriptor(%s, shape=[%s, %s], strides=[%s, 1], block_shape=[%d, %d])\n",
			     bp, xb, K, nb, sb, BK, N);
		snprintf(aload, 256, "%s.load([0, %s])", ap, kv);
		snprintf(bload, 256, "%s.load([%s, 0])", bp, kv);
		return;
	}
	const char *check = edge ? ", boundary_check=(0, 1), padding_option=\"zero\"" : chance(g, 30) ? ", boundary_check=(1,)" : "";
	char a[200], b[200];
	snprintf(a, sizeof a, "tl.make_block_ptr(%s, (%s, %s), (%s, 1), (0, %s), (%d, %d), (1, 0))", xa, mb, K, sa,
		 advance ? "0" : kv, M, BK);
	snprintf(b, sizeof b, "tl.make_block_ptr(base=%s, shape=(%s, %s), strides=(%s, 1), offsets=(%s, 0), block_shape=(%d, %d), order=(1, 0))",
		 xb, K, nb, sb, advance ? "0" : kv, BK, N);
	if (advance) {
		rg_sb_printf(&g->body, "    %s = %s\n    %s = %s\n", ap, a, bp, b);
		snprintf(aload, 256, "tl.load(%s%s)", ap, check);
		snprintf(bload, 256, "tl.load(%s%s)", bp, check);
	} else {
		snprintf(aload, 256, "tl.load(%s%s)", a, check);
		snprintf(bload, 256, "tl.load(%s%s)", b, check);
	}
}

/* rk_eval_move.c: reference values of the ops that move elements without
 * arithmetic (rk.h): permute, reshape, expand_dims, broadcast_to, join,
 * split, cat, interleave, gather, histogram, flip and sort. */
#include <stdlib.h>
#include <string.h>

#include "rk.h"

bool rk_permute(rk_val *out, const rk_val *a, const int *perm)
{
	rk_shape s = {a->s.rank, {0}};
	for (int k = 0; k < s.rank; k++)
		s.d[k] = a->s.d[perm[k]];
	if (!rk_alloc(out, &s, a->t))
		return false;
	size_t n = rk_numel(&s);
	for (size_t i = 0; i < n; i++) {
		int idx[RK_MAX_RANK], src[RK_MAX_RANK];
		rk_unflatten(&s, i, idx);
		for (int k = 0; k < s.rank; k++)
			src[perm[k]] = idx[k];
		size_t f = 0;
		for (int k = 0; k < s.rank; k++)
			f = f * (size_t)a->s.d[k] + (size_t)src[k];
		out->v[i] = a->v[f];
		out->e[i] = a->e[f];
	}
	return true;
}

static bool copy_as(rk_val *out, const rk_val *a, const rk_shape *s)
{
	size_t n = rk_numel(s);
	if (n != rk_numel(&a->s) || !rk_alloc(out, s, a->t))
		return false;
	memcpy(out->v, a->v, n * sizeof(double));
	memcpy(out->e, a->e, n * sizeof(double));
	return true;
}

bool rk_reshape(rk_val *out, const rk_val *a, const rk_shape *s)
{
	return copy_as(out, a, s);
}

bool rk_expand_dims(rk_val *out, const rk_val *a, int axis)
{
	if (a->s.rank >= RK_MAX_RANK || axis < 0 || axis > a->s.rank)
		return false;
	rk_shape s = {a->s.rank + 1, {0}};
	for (int k = 0, j = 0; k < s.rank; k++)
		s.d[k] = k == axis ? 1 : a->s.d[j++];
	return copy_as(out, a, &s);
}

bool rk_broadcast_to(rk_val *out, const rk_val *a, const rk_shape *s)
{
	rk_shape chk;
	if (!rk_broadcast_shape(&a->s, s, &chk) || rk_numel(&chk) != rk_numel(s) || !rk_alloc(out, s, a->t))
		return false;
	size_t n = rk_numel(s);
	for (size_t i = 0; i < n; i++) {
		size_t j = rk_bidx(s, i, &a->s);
		out->v[i] = a->v[j];
		out->e[i] = a->e[j];
	}
	return true;
}

bool rk_join(rk_val *out, const rk_val *a, const rk_val *b)
{
	if (a->t != b->t || a->s.rank != b->s.rank || a->s.rank >= RK_MAX_RANK ||
	    memcmp(a->s.d, b->s.d, sizeof(int) * (size_t)a->s.rank) != 0)
		return false;
	rk_shape s = a->s;
	s.d[s.rank++] = 2;
	if (!rk_alloc(out, &s, a->t))
		return false;
	size_t n = rk_numel(&a->s);
	for (size_t i = 0; i < n; i++) {
		out->v[2 * i] = a->v[i], out->e[2 * i] = a->e[i];
		out->v[2 * i + 1] = b->v[i], out->e[2 * i + 1] = b->e[i];
	}
	return true;
}

bool rk_split(rk_val *out, const rk_val *a, int which)
{
	if (a->s.rank < 1 || a->s.d[a->s.rank - 1] != 2)
		return false;
	rk_shape s = a->s;
	s.rank--;
	if (!rk_alloc(out, &s, a->t))
		return false;
	size_t n = rk_numel(&s);
	for (size_t i = 0; i < n; i++)
		out->v[i] = a->v[2 * i + (size_t)which], out->e[i] = a->e[2 * i + (size_t)which];
	return true;
}

bool rk_cat(rk_val *out, const rk_val *a, const rk_val *b)
{
	if (a->t != b->t || a->s.rank < 1 || a->s.rank != b->s.rank ||
	    memcmp(a->s.d + 1, b->s.d + 1, sizeof(int) * (size_t)(a->s.rank - 1)) != 0)
		return false;
	rk_shape s = a->s;
	s.d[0] += b->s.d[0];
	if (!rk_alloc(out, &s, a->t))
		return false;
	size_t na = rk_numel(&a->s), nb = rk_numel(&b->s);
	memcpy(out->v, a->v, na * sizeof(double));
	memcpy(out->e, a->e, na * sizeof(double));
	memcpy(out->v + na, b->v, nb * sizeof(double));
	memcpy(out->e + na, b->e, nb * sizeof(double));
	return true;
}

bool rk_interleave(rk_val *out, const rk_val *a, const rk_val *b)
{
	rk_val j;
	if (!rk_join(&j, a, b))
		return false;
	rk_shape s = a->s;
	s.d[s.rank - 1] *= 2;
	bool ok = copy_as(out, &j, &s);
	rk_free(&j);
	return ok;
}

bool rk_gather(rk_val *out, const rk_val *src, const rk_val *idx, int axis)
{
	int r = src->s.rank;
	if (idx->s.rank != r || axis < 0 || axis >= r || rk_is_float(idx->t))
		return false;
	for (int k = 0; k < r; k++)
		if (k != axis && idx->s.d[k] != src->s.d[k])
			return false;
	if (!rk_alloc(out, &idx->s, src->t))
		return false;
	size_t n = rk_numel(&idx->s);
	for (size_t i = 0; i < n; i++) {
		int at[RK_MAX_RANK];
		rk_unflatten(&idx->s, i, at);
		double x = idx->v[i];
		if (x < 0 || x >= src->s.d[axis]) {
			rk_free(out);
			return false;
		}
		at[axis] = (int)x;
		size_t f = 0;
		for (int k = 0; k < r; k++)
			f = f * (size_t)src->s.d[k] + (size_t)at[k];
		out->v[i] = src->v[f];
		out->e[i] = src->e[f];
	}
	return true;
}

bool rk_histogram(rk_val *out, const rk_val *x, const rk_val *mask, int bins)
{
	rk_shape s = {1, {bins}};
	if (x->s.rank != 1 || rk_is_float(x->t) || (mask && rk_numel(&mask->s) != rk_numel(&x->s)) ||
	    !rk_alloc(out, &s, RK_I32))
		return false;
	for (int i = 0; i < x->s.d[0]; i++) {
		double v = x->v[i];
		if (mask && mask->v[i] == 0)
			continue;
		if (v < 0 || v >= bins) {
			rk_free(out);
			return false;
		}
		out->v[(int)v] += 1;
	}
	return true;
}

/* flip and sort move values along the last dim; a sorted value's bound is
 * its row's largest (sorting is 1-Lipschitz in the max norm) */
bool rk_flip(rk_val *out, const rk_val *a)
{
	if (a->s.rank < 1 || !rk_alloc(out, &a->s, a->t))
		return false;
	size_t L = (size_t)a->s.d[a->s.rank - 1], n = rk_numel(&a->s);
	for (size_t i = 0; i < n; i++) {
		size_t j = i - i % L + (L - 1 - i % L);
		out->v[i] = a->v[j];
		out->e[i] = a->e[j];
	}
	return true;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

bool rk_sort(rk_val *out, const rk_val *a, bool descending)
{
	if (a->s.rank < 1 || !rk_alloc(out, &a->s, a->t))
		return false;
	size_t L = (size_t)a->s.d[a->s.rank - 1], n = rk_numel(&a->s);
	for (size_t r = 0; r < n; r += L) {
		double emax = 0;
		memcpy(out->v + r, a->v + r, L * sizeof(double));
		qsort(out->v + r, L, sizeof(double), cmp_double);
		for (size_t i = 0; i < L; i++)
			emax = a->e[r + i] > emax ? a->e[r + i] : emax;
		for (size_t i = 0; i < L; i++)
			out->e[r + i] = emax;
		if (descending)
			for (size_t i = 0; i < L / 2; i++) {
				double tmp = out->v[r + i];
				out->v[r + i] = out->v[r + L - 1 - i];
				out->v[r + L - 1 - i] = tmp;
			}
	}
	return true;
}

/* tl.topk: the k largest along the last dim, largest first */
bool rk_topk(rk_val *out, const rk_val *a, int k)
{
	rk_val sorted;
	int r = a->s.rank;
	if (r < 1 || k < 1 || k > a->s.d[r - 1] || !rk_sort(&sorted, a, true))
		return false;
	rk_shape s = a->s;
	s.d[r - 1] = k;
	size_t L = (size_t)a->s.d[r - 1], rows = rk_numel(&a->s) / L;
	bool ok = rk_alloc(out, &s, a->t);
	for (size_t i = 0; ok && i < rows; i++)
		for (size_t j = 0; j < (size_t)k; j++) {
			out->v[i * (size_t)k + j] = sorted.v[i * L + j];
			out->e[i * (size_t)k + j] = sorted.e[i * L + j];
		}
	rk_free(&sorted);
	return ok;
}

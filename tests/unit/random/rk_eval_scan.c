/* rk_eval_scan.c: reference values of tl.reduce and tl.associative_scan with
 * a combine_fn of the kernel's own (rk_gen_scan.c), and of (value, index)
 * pairs combined argmax-style, ties broken by the index. Triton's reduce and
 * scan give the combine_fn's dtype (no widening, unlike tl.sum), and may
 * combine in any tree order: the integer combines here are associative and
 * commutative in wrapping arithmetic, max/min exact, so the result is one
 * value whatever the order. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rk.h"

static size_t stride_of(const rk_shape *s, int axis)
{
	size_t st = 1;
	for (int k = s->rank - 1; k > axis; k--)
		st *= (size_t)s->d[k];
	return st;
}

static bool reduced_shape(const rk_shape *in, int axis, bool keep_dims, rk_shape *out)
{
	if (axis < 0 || axis >= in->rank)
		return false;
	*out = *in;
	if (keep_dims) {
		out->d[axis] = 1;
	} else {
		for (int k = axis; k + 1 < out->rank; k++)
			out->d[k] = out->d[k + 1];
		out->rank--;
	}
	return true;
}

/* x op y of a float t (max, min) */
static double combine_float(int op, double x, double y)
{
	return op == 'M' ? (x > y ? x : y) : (x < y ? x : y);
}

/* p op q of an integer t, both sign-extended to 64 bits, and so the result:
 * carried in 64 bits because an int64 partial result past 2^53 would round
 * in a double (integers wrap: the ring ops commute with wrapping) */
static uint64_t combine_int(int op, rk_dtype t, uint64_t p, uint64_t q)
{
	uint64_t r;
	switch (op) {
	case '+':
		r = p + q;
		break;
	case '*':
		r = p * q;
		break;
	case '^':
		r = p ^ q;
		break;
	case '&':
		r = p & q;
		break;
	case '|':
		r = p | q;
		break;
	case 'M':
		r = (int64_t)p > (int64_t)q ? p : q;
		break;
	default:
		r = (int64_t)p < (int64_t)q ? p : q;
	}
	return rk_bits(t) == 64 ? r : (uint64_t)(int64_t)rk_wrap(t, r);
}

/* the line's element as combine_int takes it */
static uint64_t int_bits(double x) { return (uint64_t)(int64_t)x; }

static bool combine_ok(int op, rk_dtype t)
{
	return op == 'M' || op == 'm' || (!rk_is_float(t) && strchr("+*^&|", op)) || (rk_is_float(t) && op == '+');
}

/* a float sum of the line's first j + 1 elements (the scan's order: at[0..j]),
 * which a combine tree may add in any order, rounding each partial sum to t:
 * exact where the whole line sums exactly in every order */
static void float_sum(const rk_val *a, const size_t *at, size_t j, size_t R, bool line_exact, double *v, double *e)
{
	double sum = 0, asum = 0, esum = 0;
	for (size_t k = 0; k <= j; k++)
		sum += a->v[at[k]], asum += fabs(a->v[at[k]]), esum += a->e[at[k]];
	*v = rk_round(a->t, sum);
	*e = esum == 0 && line_exact ? 0 : esum + rk_sum_error(a->t, asum, R) + rk_ulp(a->t, *v);
}

/* the flat indices of a line (reversed: from its end) and whether it sums exactly */
static bool line_of(const rk_val *a, size_t base, size_t R, size_t st, bool reverse, size_t *at, double *vals)
{
	for (size_t j = 0; j < R; j++) {
		at[j] = base + (reverse ? R - 1 - j : j) * st;
		vals[j] = a->v[at[j]];
	}
	return rk_exact_sum(a->t, vals, R, 1);
}

bool rk_combine_reduce(rk_val *out, int op, const rk_val *a, int axis, bool keep_dims)
{
	rk_shape s;
	if (!combine_ok(op, a->t) || !reduced_shape(&a->s, axis, keep_dims, &s) || !rk_alloc(out, &s, a->t))
		return false;
	size_t R = (size_t)a->s.d[axis], st = stride_of(&a->s, axis), n = rk_numel(&s);
	size_t *at = malloc(R * sizeof *at);
	double *vals = malloc(R * sizeof *vals);
	for (size_t i = 0; i < n; i++) {
		size_t base = (i / st) * st * R + i % st;
		if (rk_is_float(a->t) && op == '+') {
			bool exact = line_of(a, base, R, st, false, at, vals);
			float_sum(a, at, R - 1, R, exact, &out->v[i], &out->e[i]);
			continue;
		}
		bool fl = rk_is_float(a->t);
		double acc = a->v[base], emax = a->e[base];
		uint64_t iacc = int_bits(acc);
		for (size_t r = 1; r < R; r++) {
			double x = a->v[base + r * st];
			if (fl)
				acc = combine_float(op, acc, x);
			else
				iacc = combine_int(op, a->t, iacc, int_bits(x));
			emax = fmax(emax, a->e[base + r * st]);
		}
		out->v[i] = fl ? acc : (double)(int64_t)iacc;
		out->e[i] = emax;
	}
	free(at);
	free(vals);
	return rk_finish(out);
}

bool rk_combine_scan(rk_val *out, int op, const rk_val *a, int axis, bool reverse)
{
	if (!combine_ok(op, a->t) || axis < 0 || axis >= a->s.rank || !rk_alloc(out, &a->s, a->t))
		return false;
	size_t R = (size_t)a->s.d[axis], st = stride_of(&a->s, axis), n = rk_numel(&a->s) / R;
	size_t *at = malloc(R * sizeof *at);
	double *vals = malloc(R * sizeof *vals);
	for (size_t i = 0; i < n; i++) {
		size_t base = (i / st) * st * R + i % st;
		bool exact = line_of(a, base, R, st, reverse, at, vals);
		bool fl = rk_is_float(a->t);
		double acc = 0, emax = 0;
		uint64_t iacc = 0;
		for (size_t j = 0; j < R; j++) {
			if (fl && op == '+') {
				float_sum(a, at, j, R, exact, &out->v[at[j]], &out->e[at[j]]);
				continue;
			}
			double x = a->v[at[j]];
			if (fl)
				acc = j ? combine_float(op, acc, x) : x;
			else
				iacc = j ? combine_int(op, a->t, iacc, int_bits(x)) : int_bits(x);
			emax = fmax(emax, a->e[at[j]]);
			out->v[at[j]] = fl ? acc : (double)(int64_t)iacc;
			out->e[at[j]] = emax;
		}
	}
	free(at);
	free(vals);
	return rk_finish(out);
}

/* whether element r beats element b of a line (values x, indices their
 * positions): the larger (op 'M') or smaller value, on a tie the lower index
 * (tie_low) or the higher */
static bool beats(int op, bool tie_low, double xr, size_t r, double xb, size_t b)
{
	if (xr != xb)
		return op == 'M' ? xr > xb : xr < xb;
	return tie_low ? r < b : r > b;
}

/* a line whose order a rounding within the bounds could change: refused */
static bool line_certain(const rk_val *a, size_t base, size_t R, size_t st)
{
	for (size_t r = 0; r < R; r++)
		for (size_t q = r + 1; q < R; q++) {
			double err = a->e[base + r * st] + a->e[base + q * st];
			if (err > 0 && fabs(a->v[base + r * st] - a->v[base + q * st]) <= 2 * err)
				return false;
		}
	return true;
}

bool rk_arg_reduce(rk_val *val, rk_val *idx, int op, bool tie_low, const rk_val *a, int axis, bool keep_dims)
{
	rk_shape s;
	if (!reduced_shape(&a->s, axis, keep_dims, &s) || !rk_alloc(val, &s, a->t))
		return false;
	rk_alloc(idx, &s, RK_I32);
	size_t R = (size_t)a->s.d[axis], st = stride_of(&a->s, axis), n = rk_numel(&s);
	for (size_t i = 0; i < n; i++) {
		size_t base = (i / st) * st * R + i % st, best = 0;
		if (!line_certain(a, base, R, st)) {
			rk_free(val);
			rk_free(idx);
			return false;
		}
		for (size_t r = 1; r < R; r++)
			if (beats(op, tie_low, a->v[base + r * st], r, a->v[base + best * st], best))
				best = r;
		val->v[i] = a->v[base + best * st];
		val->e[i] = a->e[base + best * st];
		idx->v[i] = (double)best;
	}
	return true;
}

bool rk_arg_scan(rk_val *val, rk_val *idx, int op, bool tie_low, const rk_val *a, int axis, bool reverse)
{
	if (axis < 0 || axis >= a->s.rank || !rk_alloc(val, &a->s, a->t))
		return false;
	rk_alloc(idx, &a->s, RK_I32);
	size_t R = (size_t)a->s.d[axis], st = stride_of(&a->s, axis), n = rk_numel(&a->s) / R;
	for (size_t i = 0; i < n; i++) {
		size_t base = (i / st) * st * R + i % st, best = 0;
		if (!line_certain(a, base, R, st)) {
			rk_free(val);
			rk_free(idx);
			return false;
		}
		for (size_t j = 0; j < R; j++) {
			size_t r = reverse ? R - 1 - j : j;
			if (j == 0 || beats(op, tie_low, a->v[base + r * st], r, a->v[base + best * st], best))
				best = r;
			val->v[base + r * st] = a->v[base + best * st];
			val->e[base + r * st] = a->e[base + best * st];
			idx->v[base + r * st] = (double)best;
		}
	}
	return true;
}

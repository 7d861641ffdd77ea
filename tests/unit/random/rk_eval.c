/* rk_eval.c: Triton's semantics for the ops of rk_gen.c's kernels, on
 * reference values (see rk.h). Float math runs in double and is rounded to
 * the node's dtype where Triton rounds; each element carries a bound on its
 * distance from the exact result, so that a result is compared exactly where
 * every correct evaluation order gives the same bits, and within the bound
 * elsewhere. Ops whose result a rounding could flip (comparisons, casts to
 * integers, argmax) are refused when the bounds leave them uncertain. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rk.h"

size_t rk_numel(const rk_shape *s)
{
	size_t n = 1;
	for (int i = 0; i < s->rank; i++)
		n *= (size_t)s->d[i];
	return n;
}

bool rk_alloc(rk_val *out, const rk_shape *s, rk_dtype t)
{
	size_t n = rk_numel(s);
	out->s = *s;
	out->t = t;
	out->v = calloc(n ? n : 1, sizeof(double));
	out->e = calloc(n ? n : 1, sizeof(double));
	return out->v && out->e;
}

void rk_free(rk_val *v)
{
	free(v->v);
	free(v->e);
	v->v = v->e = NULL;
}

/* a float result within the range where every target computes it alike: no
 * inf or NaN, far from overflow, and no fp32/bf16 subnormals (which some
 * instructions flush); an int64 one within +-2^53 */
static bool float_ok(const rk_val *o)
{
	if (o->t == RK_I64) {
		/* int64 only where a double holds it exactly */
		for (size_t i = 0; i < rk_numel(&o->s); i++)
			if (fabs(o->v[i]) >= 0x1p53)
				return false;
		return true;
	}
	if (!rk_is_float(o->t))
		return true;
	double max = o->t == RK_F16 ? 16384.0 : 1e6;
	double tiny = o->t == RK_F16 ? 0 : 1e-30;
	size_t n = rk_numel(&o->s);
	for (size_t i = 0; i < n; i++) {
		double v = fabs(o->v[i]);
		if (!isfinite(v) || v > max || (v != 0 && v < tiny) || !isfinite(o->e[i]))
			return false;
	}
	return true;
}

/* keeps *o if its floats are in range, else frees it */
static bool finish(rk_val *o)
{
	if (float_ok(o))
		return true;
	rk_free(o);
	return false;
}

bool rk_finish(rk_val *o)
{
	return finish(o);
}

void rk_unflatten(const rk_shape *s, size_t flat, int *idx)
{
	for (int k = s->rank - 1; k >= 0; k--) {
		idx[k] = (int)(flat % (size_t)s->d[k]);
		flat /= (size_t)s->d[k];
	}
}

/* the element of `in` (broadcast to `out`, aligned right) at out's flat index */
size_t rk_bidx(const rk_shape *out, size_t flat, const rk_shape *in)
{
	int idx[RK_MAX_RANK] = {0};
	rk_unflatten(out, flat, idx);
	size_t f = 0;
	int off = out->rank - in->rank;
	for (int k = 0; k < in->rank; k++)
		f = f * (size_t)in->d[k] + (size_t)(in->d[k] == 1 ? 0 : idx[k + off]);
	return f;
}

bool rk_broadcast_shape(const rk_shape *a, const rk_shape *b, rk_shape *out)
{
	int r = a->rank > b->rank ? a->rank : b->rank;
	out->rank = r;
	for (int k = 0; k < r; k++) {
		int ka = k - (r - a->rank), kb = k - (r - b->rank);
		int da = ka >= 0 ? a->d[ka] : 1, db = kb >= 0 ? b->d[kb] : 1;
		if (da != db && da != 1 && db != 1)
			return false;
		out->d[k] = da > db ? da : db;
	}
	return true;
}

bool rk_binary(rk_val *out, int op, const rk_val *a, const rk_val *b)
{
	rk_shape s;
	if (!rk_broadcast_shape(&a->s, &b->s, &s))
		return false;
	bool fl = rk_is_float(a->t);
	/* floats of two widths meet in fp32, and Triton's `/` is fp32 for narrow
	 * floats too; integers of two types meet in their promotion */
	rk_dtype t = a->t == b->t && !(fl && op == '/') ? a->t : RK_F32;
	if (a->t != b->t && !fl && !rk_is_float(b->t))
		t = rk_int_promote(a->t, b->t);
	rk_val o;
	if (!rk_alloc(&o, &s, t))
		return false;
	size_t n = rk_numel(&s);
	for (size_t i = 0; i < n; i++) {
		size_t ia = rk_bidx(&s, i, &a->s), ib = rk_bidx(&s, i, &b->s);
		double x = a->v[ia], y = b->v[ib], ex = a->e[ia], ey = b->e[ib], r = 0, ep = 0;
		if (fl) {
			switch (op) {
			case '+':
			case '-':
				r = op == '+' ? x + y : x - y;
				ep = ex + ey;
				break;
			case '*':
				r = x * y;
				ep = fabs(x) * ey + fabs(y) * ex + ex * ey;
				break;
			case '/':
				/* a divisor well away from 0; `/` is div.full (2 ulp of fp32) */
				if (fabs(y) < 0.125 || fabs(y) <= 4 * ey)
					goto refuse;
				r = x / y;
				ep = (ex + fabs(r) * ey) / (fabs(y) - ey) + ldexp(fabs(r), -21);
				break;
			case 'M':
			case 'm':
				r = op == 'M' ? fmax(x, y) : fmin(x, y);
				ep = ex > ey ? ex : ey;
				break;
			default:
				goto refuse;
			}
			double rr = rk_round(t, r);
			o.v[i] = rr;
			o.e[i] = ep + (rr != r || op == '/' ? rk_ulp(t, rr) : 0);
		} else {
			x = rk_round(t, x), y = rk_round(t, y);
			int64_t p = (int64_t)x, q = (int64_t)y;
			/* + - * wrap in 64 bits, then to t: a result past 2^53 would round in a double */
			switch (op) {
			case '+':
				r = rk_wrap(t, (uint64_t)p + (uint64_t)q);
				break;
			case '-':
				r = rk_wrap(t, (uint64_t)p - (uint64_t)q);
				break;
			case '*':
				r = rk_wrap(t, (uint64_t)p * (uint64_t)q);
				break;
			case 'f':
			case '%':
				/* C semantics (Triton's sdiv/srem, udiv/urem); no /0, no MIN / -1 */
				if (q == 0 || (x == rk_int_min(t) && q == -1))
					goto refuse;
				r = (double)(op == 'f' ? p / q : p % q);
				break;
			case '<':
			case '>': {
				/* shifts past the width are undefined (LLVM poison): refused */
				if (q < 0 || q >= rk_bits(t))
					goto refuse;
				r = op == '<' ? rk_wrap(t, (uint64_t)p << q) : (double)(p >> q);
				break;
			}
			case '&':
				r = (double)(p & q);
				break;
			case '|':
				r = (double)(p | q);
				break;
			case '^':
				r = (double)(p ^ q);
				break;
			case 'M':
				r = x > y ? x : y;
				break;
			case 'm':
				r = x < y ? x : y;
				break;
			default:
				goto refuse;
			}
			o.v[i] = rk_round(t, r);
		}
	}
	*out = o;
	return finish(out);
refuse:
	rk_free(&o);
	return false;
}

bool rk_compare(rk_val *out, int op, const rk_val *a, const rk_val *b)
{
	rk_shape s;
	if (!rk_broadcast_shape(&a->s, &b->s, &s))
		return false;
	rk_val o;
	if (!rk_alloc(&o, &s, RK_BOOL))
		return false;
	size_t n = rk_numel(&s);
	for (size_t i = 0; i < n; i++) {
		size_t ia = rk_bidx(&s, i, &a->s), ib = rk_bidx(&s, i, &b->s);
		double x = a->v[ia], y = b->v[ib], err = a->e[ia] + b->e[ib];
		if (a->t != b->t && !rk_is_float(a->t) && !rk_is_float(b->t)) {
			/* integers of two types compare in their promotion (-1 < 0u is false) */
			rk_dtype t = rk_int_promote(a->t, b->t);
			x = rk_round(t, x), y = rk_round(t, y);
		}
		if (err > 0 && fabs(x - y) <= 2 * err) {
			rk_free(&o);
			return false;
		}
		bool r = op == '<' ? x < y : op == 'l' ? x <= y : op == '>' ? x > y : op == 'g' ? x >= y
			: op == '=' ? x == y : x != y;
		o.v[i] = r;
	}
	*out = o;
	return true;
}

bool rk_where(rk_val *out, const rk_val *c, const rk_val *a, const rk_val *b)
{
	rk_shape s0, s;
	/* integers of two types meet in their promotion */
	bool ints = !rk_is_float(a->t) && !rk_is_float(b->t);
	rk_dtype t = a->t == b->t ? a->t : rk_int_promote(a->t, b->t);
	if ((a->t != b->t && !ints) || !rk_broadcast_shape(&a->s, &b->s, &s0) || !rk_broadcast_shape(&c->s, &s0, &s))
		return false;
	if (!rk_alloc(out, &s, t))
		return false;
	size_t n = rk_numel(&s);
	for (size_t i = 0; i < n; i++) {
		const rk_val *p = c->v[rk_bidx(&s, i, &c->s)] != 0 ? a : b;
		size_t j = rk_bidx(&s, i, &p->s);
		out->v[i] = p->t == t ? p->v[j] : rk_round(t, p->v[j]);
		out->e[i] = p->e[j];
	}
	return true;
}

bool rk_unary(rk_val *out, int op, const rk_val *a)
{
	rk_val o;
	if (!rk_alloc(&o, &a->s, a->t))
		return false;
	size_t n = rk_numel(&a->s);
	bool fl = rk_is_float(a->t);
	for (size_t i = 0; i < n; i++) {
		double x = a->v[i], ex = a->e[i], r;
		switch (op) {
		case '-':
			o.v[i] = rk_round(a->t, -x);
			o.e[i] = ex;
			break;
		case 'a':
			if (!fl && !rk_is_unsigned(a->t) && x == rk_int_min(a->t))
				goto refuse;
			o.v[i] = fabs(x);
			o.e[i] = ex;
			break;
		case 'e':
			/* exp is ex2.approx of x * log2(e) in fp32: a few ulp, more for large x */
			if (!fl || fabs(x) > 8)
				goto refuse;
			r = exp(x);
			o.v[i] = rk_round(a->t, r);
			o.e[i] = r * expm1(ex) + ldexp(r * (2 + fabs(x)), -21) + rk_ulp(a->t, o.v[i]);
			break;
		case 's':
			/* sqrt is sqrt.approx in fp32; refused near 0 where the bound blows up */
			if (!fl || x < 0 || (x != 0 && x <= 4 * ex) || (x == 0 && ex != 0))
				goto refuse;
			r = sqrt(x);
			o.v[i] = rk_round(a->t, r);
			o.e[i] = x == 0 ? 0 : ex / (2 * sqrt(x - ex)) + ldexp(r, -21) + rk_ulp(a->t, o.v[i]);
			break;
		default:
			goto refuse;
		}
	}
	*out = o;
	return finish(out);
refuse:
	rk_free(&o);
	return false;
}

bool rk_cast_int(rk_val *out, const rk_val *a, rk_dtype t)
{
	if (rk_is_float(a->t) || !rk_is_float(t) || !rk_alloc(out, &a->s, t))
		return false;
	size_t n = rk_numel(&a->s);
	for (size_t i = 0; i < n; i++) {
		double r = rk_round(t, a->v[i]);
		/* fp16/bf16 may be reached through fp32 (two roundings) */
		out->v[i] = r;
		out->e[i] = a->e[i] + (r != a->v[i] && t != RK_F32 ? rk_ulp(t, r) : 0);
		if (!isfinite(r) || (t == RK_BF16 && r != 0 && fabs(r) < 1e-30)) {
			rk_free(out);
			return false;
		}
	}
	return true;
}

bool rk_cast(rk_val *out, const rk_val *a, rk_dtype t)
{
	rk_val o;
	if (t == RK_BOOL || !rk_alloc(&o, &a->s, t))
		return false;
	size_t n = rk_numel(&a->s);
	for (size_t i = 0; i < n; i++) {
		double x = a->v[i], ex = a->e[i];
		if (rk_is_float(t)) {
			double r = rk_round(t, x);
			o.v[i] = r;
			o.e[i] = ex + (r != x ? rk_ulp(t, r) : 0);
		} else if (rk_is_float(a->t)) {
			/* fptosi/fptoui truncate; out of range is undefined, refused */
			double lo = trunc(x - 2 * ex), hi = trunc(x + 2 * ex), r = trunc(x);
			double min = rk_int_min(t), max = ldexp(1.0, rk_bits(t) - !rk_is_unsigned(t)) - 1;
			if (lo != hi || r < min || r > max) {
				rk_free(&o);
				return false;
			}
			o.v[i] = r + 0.0; /* no -0 */
		} else {
			o.v[i] = rk_round(t, x);
		}
	}
	*out = o;
	return finish(out);
}

/* true where every order of summing vals[0], vals[stride], ... (n of them)
 * in t gives the exact sum: all are multiples of some power of two q (no
 * finer than t's smallest subnormal) and their magnitudes add to less than
 * 2^(mantissa bits + 1) q, so every partial sum is a value of t */
bool rk_exact_sum(rk_dtype t, const double *vals, size_t n, size_t stride)
{
	double total = 0;
	int qe = INT32_MAX;
	for (size_t i = 0; i < n; i++) {
		double v = vals[i * stride];
		if (v == 0)
			continue;
		total += fabs(v);
		int fe;
		double m = frexp(fabs(v), &fe);
		uint64_t bits = (uint64_t)ldexp(m, 53);
		int tz = 0;
		while (!(bits & 1)) {
			bits >>= 1;
			tz++;
		}
		int e = fe - 53 + tz;
		if (e < qe)
			qe = e;
	}
	return total == 0 || (qe >= rk_min_exp(t) - rk_mant_bits(t) && total < ldexp(1.0, rk_mant_bits(t) + 1 + qe));
}

/* a bound on the rounding of a sum of n terms of magnitudes adding to asum, in t */
double rk_sum_error(rk_dtype t, double asum, size_t n)
{
	return ldexp(asum * (double)n, -rk_mant_bits(t));
}

/* the line of `a` along axis through the element at flat index base (with
 * axis index 0): its first element and its stride */
static size_t axis_stride(const rk_shape *s, int axis)
{
	size_t st = 1;
	for (int k = s->rank - 1; k > axis; k--)
		st *= (size_t)s->d[k];
	return st;
}

/* Triton's result dtype: sum keeps floats (fp16 sums in fp16) and widens
 * integers narrower than 32 bits to int32, or uint32 when unsigned; max/min
 * widen narrow floats to fp32 and narrow integers to int32; argmax/argmin
 * give int32 */
static rk_dtype reduced(int kind, rk_dtype t)
{
	if (kind == 'A' || kind == 'a')
		return RK_I32;
	if (rk_is_float(t))
		return kind == 's' ? t : RK_F32;
	if (rk_bits(t) >= 32)
		return t;
	return kind == 's' && rk_is_unsigned(t) ? RK_U32 : RK_I32;
}

bool rk_reduce(rk_val *out, int kind, const rk_val *a, int axis, bool keep_dims)
{
	if (axis < 0 || axis >= a->s.rank)
		return false;
	rk_shape s = a->s;
	if (keep_dims) {
		s.d[axis] = 1;
	} else {
		for (int k = axis; k + 1 < s.rank; k++)
			s.d[k] = s.d[k + 1];
		s.rank--;
	}
	rk_val o;
	if (!rk_alloc(&o, &s, reduced(kind, a->t)))
		return false;
	size_t R = (size_t)a->s.d[axis], st = axis_stride(&a->s, axis), n = rk_numel(&s);
	double *line = malloc(R * sizeof(double));
	for (size_t i = 0; i < n; i++) {
		/* out's i-th element: outer index i / st, inner i % st (same either way) */
		size_t base = (i / st) * st * R + i % st;
		for (size_t r = 0; r < R; r++)
			line[r] = a->v[base + r * st];
		double esum = 0, emax = 0, asum = 0, sum = 0;
		uint64_t isum = 0; /* an integer sum, wrapping: a double's loses bits past 2^53 */
		size_t best = 0;
		for (size_t r = 0; r < R; r++) {
			double e = a->e[base + r * st];
			esum += e;
			emax = e > emax ? e : emax;
			asum += fabs(line[r]);
			sum += line[r];
			isum += (uint64_t)(int64_t)line[r];
			bool better = kind == 'M' || kind == 'A' ? line[r] > line[best] : line[r] < line[best];
			if (better)
				best = r;
		}
		switch (kind) {
		case 's':
			if (!rk_is_float(a->t)) {
				o.v[i] = rk_wrap(o.t, isum);
			} else {
				o.v[i] = rk_round(o.t, sum);
				o.e[i] = esum == 0 && rk_exact_sum(o.t, line, R, 1)
						 ? 0
						 : esum + rk_sum_error(o.t, asum, R) + rk_ulp(o.t, o.v[i]);
			}
			break;
		case 'M':
		case 'm':
			o.v[i] = line[best];
			o.e[i] = emax;
			break;
		default: {
			/* argmax/argmin: the first extreme index, refused if a rounding
			 * could move it */
			double eb = a->e[base + best * st];
			for (size_t r = 0; r < R; r++) {
				if (r == best)
					continue;
				double d = kind == 'A' ? line[best] - line[r] : line[r] - line[best];
				double err = eb + a->e[base + r * st];
				if (err > 0 ? d <= 2 * err : (d < 0 || (d == 0 && r < best))) {
					free(line);
					rk_free(&o);
					return false;
				}
			}
			o.v[i] = (double)best;
		}
		}
	}
	free(line);
	*out = o;
	return finish(out);
}

bool rk_cumsum(rk_val *out, const rk_val *a, int axis, bool reverse)
{
	if (axis < 0 || axis >= a->s.rank)
		return false;
	/* Triton's cumsum: bf16 in fp32, fp16 in fp16, narrow integers in int32 */
	rk_val o;
	if (!rk_alloc(&o, &a->s, a->t == RK_BF16 ? RK_F32 : reduced('s', a->t)))
		return false;
	size_t R = (size_t)a->s.d[axis], st = axis_stride(&a->s, axis), n = rk_numel(&a->s) / R;
	bool fl = rk_is_float(a->t);
	for (size_t i = 0; i < n; i++) {
		size_t base = (i / st) * st * R + i % st;
		double sum = 0, esum = 0, asum = 0;
		uint64_t isum = 0; /* as in rk_reduce */
		for (size_t j = 0; j < R; j++) {
			size_t r = reverse ? R - 1 - j : j, at = base + r * st;
			sum += a->v[at];
			esum += a->e[at];
			asum += fabs(a->v[at]);
			isum += (uint64_t)(int64_t)a->v[at];
			if (!fl) {
				o.v[at] = rk_wrap(o.t, isum);
				continue;
			}
			o.v[at] = rk_round(o.t, sum);
			/* exact when the whole line sums exactly (every prefix does too) */
			bool exact = esum == 0 && rk_exact_sum(o.t, a->v + base, R, st);
			o.e[at] = exact ? 0 : esum + rk_sum_error(o.t, asum, R) + rk_ulp(o.t, o.v[at]);
		}
	}
	*out = o;
	return finish(out);
}

bool rk_atomic_fold(rk_val *out, int op, const rk_val *init, const rk_val *vals, int n)
{
	size_t m = rk_numel(&init->s);
	rk_dtype t = init->t;
	bool fl = rk_is_float(t);
	if ((fl && op != '+' && op != 'M' && op != 'm') || !rk_alloc(out, &init->s, t))
		return false;
	double *terms = malloc(((size_t)n + 1) * sizeof(double));
	for (size_t i = 0; i < m; i++) {
		double acc = init->v[i], esum = init->e[i], emax = init->e[i], asum = fabs(acc);
		uint64_t isum = (uint64_t)(int64_t)acc; /* integer '+', as in rk_reduce */
		terms[0] = acc;
		for (int p = 0; p < n; p++) {
			double x = vals[p].v[i], e = vals[p].e[i];
			terms[p + 1] = x;
			esum += e, emax = e > emax ? e : emax, asum += fabs(x);
			int64_t q = (int64_t)acc, y = (int64_t)x;
			switch (op) {
			case '+':
				acc += x;
				isum += (uint64_t)y;
				break;
			case 'M':
				acc = acc > x ? acc : x;
				break;
			case 'm':
				acc = acc < x ? acc : x;
				break;
			case '&':
				acc = (double)(q & y);
				break;
			case '|':
				acc = (double)(q | y);
				break;
			default:
				acc = (double)(q ^ y);
			}
		}
		if (!fl) {
			out->v[i] = op == '+' ? rk_wrap(t, isum) : rk_round(t, acc);
		} else if (op == '+') {
			double r = rk_round(t, acc);
			out->v[i] = r;
			out->e[i] = esum == 0 && rk_exact_sum(t, terms, (size_t)n + 1, 1)
					    ? 0
					    : esum + rk_sum_error(t, asum, (size_t)n + 1) + rk_ulp(t, r);
		} else {
			out->v[i] = acc;
			out->e[i] = emax;
		}
	}
	free(terms);
	return finish(out);
}

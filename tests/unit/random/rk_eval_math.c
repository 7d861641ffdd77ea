/* rk_eval_math.c: reference values of tl.math functions (fp32), tl.clamp,
 * tl.umulhi and bitcasts (rk_gen_math.c). The approximate functions get a
 * bound from Triton's documented accuracy, generous where the GPU's approx
 * instructions are allowed (exp2, log2, rsqrt: about 2^-21 relative or
 * absolute); the _rn ones and fma are correctly rounded, so an exact input
 * has one right answer (a double computes x / y and sqrt(x) of floats with
 * an innocuous second rounding; fmaf is fused). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rk.h"

static double ulp32(double x)
{
	return rk_ulp(RK_F32, x);
}

bool rk_math1(rk_val *out, int op, const rk_val *a)
{
	if (a->t != RK_F32 || !rk_alloc(out, &a->s, RK_F32))
		return false;
	size_t n = rk_numel(&a->s);
	for (size_t i = 0; i < n; i++) {
		double x = a->v[i], ex = a->e[i], r, e;
		switch (op) {
		case '2': /* exp2 */
			if (fabs(x) > 16)
				goto refuse;
			r = exp2(x);
			e = r * expm1(ex * M_LN2) + ldexp(r, -21);
			break;
		case 'l': /* log2 */
		case 'n': /* log */
			if (x < 0x1p-10 || x <= 4 * ex)
				goto refuse;
			r = op == 'l' ? log2(x) : log(x);
			e = (ex / (x - ex)) / (op == 'l' ? M_LN2 : 1) + ldexp(fabs(r), -21) + 0x1p-21;
			break;
		case 'r': /* rsqrt */
			if (x < 0x1p-10 || x <= 4 * ex)
				goto refuse;
			r = 1 / sqrt(x);
			e = 0.5 * ex * pow(x - ex, -1.5) + ldexp(r, -21);
			break;
		case 'E': /* erf */
			r = erf(x);
			e = 1.13 * ex + 0x1p-21;
			break;
		case 'S':
		case 'C':
			if (fabs(x) > 8)
				goto refuse;
			r = op == 'S' ? sin(x) : cos(x);
			e = ex + 0x1p-20;
			break;
		case 'q': /* sqrt_rn: correctly rounded */
			if (x < 0 || (ex > 0 && x <= 4 * ex))
				goto refuse;
			r = sqrt(x);
			e = ex > 0 ? ex / (2 * sqrt(x - ex)) : 0;
			break;
		case 'f': /* floor, ceil: exact, refused where a rounding could cross an integer */
		case 'c':
			r = op == 'f' ? floor(x) : ceil(x);
			if ((op == 'f' ? floor(x - 2 * ex) != floor(x + 2 * ex) : ceil(x - 2 * ex) != ceil(x + 2 * ex)))
				goto refuse;
			e = 0;
			break;
		default:
			goto refuse;
		}
		double rr = rk_round(RK_F32, r);
		out->v[i] = rr + 0.0;
		/* the correctly rounded ones are exact for an exact input */
		out->e[i] = e == 0 && (op == 'q' || op == 'f' || op == 'c') ? 0 : e + ulp32(rr);
	}
	return rk_finish(out);
refuse:
	rk_free(out);
	return false;
}

/* div_rn ('d') or fma ('F', c the addend): fp32, correctly rounded */
bool rk_math3(rk_val *out, int op, const rk_val *a, const rk_val *b, const rk_val *c)
{
	if (a->t != RK_F32 || b->t != RK_F32 || (c && c->t != RK_F32))
		return false;
	if ((a->s.rank != b->s.rank || rk_numel(&a->s) != rk_numel(&b->s)) ||
	    (c && (c->s.rank != a->s.rank || rk_numel(&c->s) != rk_numel(&a->s))))
		return false;
	if (!rk_alloc(out, &a->s, RK_F32))
		return false;
	size_t n = rk_numel(&a->s);
	for (size_t i = 0; i < n; i++) {
		double x = a->v[i], y = b->v[i], ex = a->e[i], ey = b->e[i], r, e;
		if (op == 'd') {
			if (fabs(y) < 0.125 || fabs(y) <= 4 * ey)
				goto refuse;
			r = rk_round(RK_F32, x / y);
			e = ex + ey > 0 ? (ex + fabs(x / y) * ey) / (fabs(y) - ey) + ulp32(r) : 0;
		} else {
			double z = c->v[i], ez = c->e[i];
			r = fmaf((float)x, (float)y, (float)z);
			e = ex + ey + ez > 0 ? fabs(x) * ey + fabs(y) * ex + ex * ey + ez + ulp32(r) : 0;
		}
		out->v[i] = r;
		out->e[i] = e;
	}
	return rk_finish(out);
refuse:
	rk_free(out);
	return false;
}

/* min(max(x, lo), hi), lo <= hi certain everywhere (else Triton leaves it open) */
bool rk_clamp(rk_val *out, const rk_val *x, const rk_val *lo, const rk_val *hi)
{
	if (lo->t != x->t || hi->t != x->t || !rk_alloc(out, &x->s, x->t))
		return false;
	size_t n = rk_numel(&x->s);
	for (size_t i = 0; i < n; i++) {
		size_t il = rk_numel(&lo->s) == 1 ? 0 : i, ih = rk_numel(&hi->s) == 1 ? 0 : i;
		double l = lo->v[il], h = hi->v[ih], v = x->v[i];
		if (l > h || (lo->e[il] + hi->e[ih] > 0 && h - l <= 2 * (lo->e[il] + hi->e[ih]))) {
			rk_free(out);
			return false;
		}
		const rk_val *w = v < l ? lo : v > h ? hi : x;
		size_t j = w == lo ? il : w == hi ? ih : i;
		out->v[i] = w->v[j];
		out->e[i] = fmax(x->e[i], fmax(lo->e[il], hi->e[ih]));
	}
	return true;
}

/* int32: the high 32 bits of the product of a and b as unsigned 32-bit
 * numbers (Triton's umulhi is __nv_umulhi on the GPU) */
bool rk_umulhi(rk_val *out, const rk_val *a, const rk_val *b)
{
	if (a->t != RK_I32 || b->t != RK_I32 || rk_numel(&a->s) != rk_numel(&b->s) || !rk_alloc(out, &a->s, RK_I32))
		return false;
	size_t n = rk_numel(&a->s);
	for (size_t i = 0; i < n; i++) {
		uint64_t p = (uint64_t)(uint32_t)(int32_t)a->v[i] * (uint64_t)(uint32_t)(int32_t)b->v[i];
		out->v[i] = (double)(int32_t)(uint32_t)(p >> 32);
	}
	return true;
}

/* x.to(t, bitcast=True): fp32 <-> int32, int8 <-> uint8; a float must be exact */
bool rk_bitcast(rk_val *out, const rk_val *a, rk_dtype t)
{
	if (rk_size(a->t) != rk_size(t) || a->t == t || !rk_alloc(out, &a->s, t))
		return false;
	size_t n = rk_numel(&a->s);
	for (size_t i = 0; i < n; i++) {
		if (a->e[i] != 0) {
			rk_free(out);
			return false;
		}
		unsigned char bits[4];
		rk_put(a->t, bits, 0, a->v[i]);
		out->v[i] = rk_get(t, bits, 0);
	}
	return rk_finish(out);
}

/* ---- NaN (rk_gen_nan.c): values may hold NaN here, never past rk_nan_fill ---- */

/* maximum ('M') / minimum of a and b (broadcast): with propagate_nan=ALL a
 * NaN operand gives NaN, else (maxnum, Triton's NONE) the other operand */
bool rk_nan_minmax(rk_val *out, int op, bool all, const rk_val *a, const rk_val *b)
{
	rk_shape s;
	if (a->t != b->t || !rk_broadcast_shape(&a->s, &b->s, &s) || !rk_alloc(out, &s, a->t))
		return false;
	size_t n = rk_numel(&s);
	for (size_t i = 0; i < n; i++) {
		size_t ia = rk_bidx(&s, i, &a->s), ib = rk_bidx(&s, i, &b->s);
		double x = a->v[ia], y = b->v[ib];
		if (all && (isnan(x) || isnan(y)))
			out->v[i] = NAN;
		else
			out->v[i] = op == 'M' ? fmax(x, y) : fmin(x, y);
		out->e[i] = fmax(isnan(x) ? 0 : a->e[ia], isnan(y) ? 0 : b->e[ib]);
	}
	return true;
}

/* max/min along axis in dtype ot (fp32 widens exactly): tl.max's maxnum
 * ignores NaNs unless a line has nothing else; a combine_fn of maximum(...,
 * propagate_nan=ALL) gives NaN for a line with any */
bool rk_nan_reduce(rk_val *out, int op, bool all, const rk_val *a, int axis, rk_dtype ot)
{
	if (axis < 0 || axis >= a->s.rank)
		return false;
	rk_shape s = a->s;
	for (int k = axis; k + 1 < s.rank; k++)
		s.d[k] = s.d[k + 1];
	s.rank--;
	if (!rk_alloc(out, &s, ot))
		return false;
	size_t R = (size_t)a->s.d[axis], st = 1, n = rk_numel(&s);
	for (int k = a->s.rank - 1; k > axis; k--)
		st *= (size_t)a->s.d[k];
	for (size_t i = 0; i < n; i++) {
		size_t base = (i / st) * st * R + i % st;
		double acc = NAN, emax = 0;
		bool any_nan = false;
		for (size_t r = 0; r < R; r++) {
			double x = a->v[base + r * st];
			any_nan |= isnan(x) != 0;
			acc = op == 'M' ? fmax(acc, x) : fmin(acc, x);
			emax = isnan(x) ? emax : fmax(emax, a->e[base + r * st]);
		}
		out->v[i] = all && any_nan ? NAN : acc;
		out->e[i] = emax;
	}
	return true;
}

/* tl.where(a != a, x, a): NaN (unordered, so != holds) replaced by x */
bool rk_nan_fill(rk_val *out, const rk_val *a, double x)
{
	if (!rk_alloc(out, &a->s, a->t))
		return false;
	size_t n = rk_numel(&a->s);
	for (size_t i = 0; i < n; i++) {
		out->v[i] = isnan(a->v[i]) ? rk_round(a->t, x) : a->v[i];
		out->e[i] = isnan(a->v[i]) ? 0 : a->e[i];
	}
	return rk_finish(out);
}

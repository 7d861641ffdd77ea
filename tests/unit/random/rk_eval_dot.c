/* rk_eval_dot.c: reference values of tl.dot (fp32 sums of exact products, or
 * int32 for int8, with the rounding a tf32-style input_precision allows) and
 * of float8 round trips (rk.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rk.h"

/* ot: int32 (int8 inputs), fp32, or fp16 (out_dtype=tl.float16: summed in
 * fp16 or in fp32 and rounded once, a bound covers both) */
static bool dot_to(rk_val *out, const rk_val *a, const rk_val *b, const rk_val *acc, double in_rel, rk_dtype ot)
{
	int r = a->s.rank;
	if (r < 2 || r > 3 || b->s.rank != r || a->s.d[r - 1] != b->s.d[r - 2] || a->t != b->t ||
	    (r == 3 && a->s.d[0] != b->s.d[0]))
		return false;
	int B = r == 3 ? a->s.d[0] : 1, M = a->s.d[r - 2], K = a->s.d[r - 1], N = b->s.d[r - 1];
	rk_shape s = r == 3 ? (rk_shape){3, {B, M, N}} : (rk_shape){2, {M, N}};
	if (acc && (acc->s.rank != r || memcmp(acc->s.d, s.d, sizeof(int) * (size_t)r) != 0 || acc->t != ot))
		return false;
	if (!rk_is_float(a->t) && a->t != RK_I8)
		return false;
	rk_val o;
	if (!rk_alloc(&o, &s, ot))
		return false;
	double *prod = malloc(((size_t)K + 1) * sizeof(double));
	for (int bt = 0; bt < B; bt++)
		for (int i = 0; i < M; i++)
			for (int j = 0; j < N; j++) {
				const double *av = a->v + (size_t)bt * M * K, *ae = a->e + (size_t)bt * M * K;
				const double *bv = b->v + (size_t)bt * K * N, *be = b->e + (size_t)bt * K * N;
				size_t at = (size_t)bt * M * N + (size_t)i * N + (size_t)j;
				double sum = 0, asum = 0, ep = 0;
				int np = 0;
				if (acc) {
					prod[np++] = acc->v[at];
					ep += acc->e[at];
				}
				for (int k = 0; k < K; k++) {
					double x = av[i * K + k], y = bv[k * N + j];
					/* an input rounded first (tf32) lies within in_rel of it */
					double ex = ae[i * K + k] + in_rel * fabs(x), ey = be[k * N + j] + in_rel * fabs(y);
					ex += in_rel * ae[i * K + k], ey += in_rel * be[k * N + j];
					prod[np++] = x * y;
					ep += fabs(x) * ey + fabs(y) * ex + ex * ey;
				}
				for (int k = 0; k < np; k++)
					sum += prod[k], asum += fabs(prod[k]);
				if (ot == RK_I32) {
					o.v[at] = rk_round(RK_I32, sum);
					continue;
				}
				double rr = rk_round(ot, sum);
				o.v[at] = rr;
				/* products exact in fp32 (fma for fp32 inputs), summed in some order */
				o.e[at] = ep == 0 && rk_exact_sum(ot, prod, (size_t)np, 1)
						  ? 0
						  : ep + rk_sum_error(ot, asum, (size_t)np) + rk_ulp(ot, rr);
			}
	free(prod);
	*out = o;
	return rk_finish(out);
}

bool rk_dot(rk_val *out, const rk_val *a, const rk_val *b, const rk_val *acc, double in_rel)
{
	/* int8 inputs sum exactly in int32 (wrapping); floats in fp32 */
	return dot_to(out, a, b, acc, in_rel, a->t == RK_I8 ? RK_I32 : RK_F32);
}

bool rk_dot_f16(rk_val *out, const rk_val *a, const rk_val *b, const rk_val *acc)
{
	return a->t == RK_F16 && dot_to(out, a, b, acc, 0, RK_F16);
}

/* x to float8 (fmt 4: e4m3, 5: e5m2), to nearest even, saturating */
static double fp8_round(int fmt, double x)
{
	int mant = fmt == 4 ? 3 : 2, emin = fmt == 4 ? -6 : -14;
	double max = fmt == 4 ? 448.0 : 57344.0;
	if (isnan(x))
		return x;
	if (fabs(x) >= max)
		return copysign(max, x);
	if (x == 0)
		return x;
	int fe;
	frexp(fabs(x), &fe);
	int e = fe - 1 < emin ? emin : fe - 1;
	double u = ldexp(1.0, e - mant), r = nearbyint(x / u) * u;
	return fabs(r) > max ? copysign(max, x) : r;
}

bool rk_fp8(rk_val *out, const rk_val *a, int fmt, rk_dtype t)
{
	if (!rk_is_float(a->t) || !rk_is_float(t) || !rk_alloc(out, &a->s, t))
		return false;
	size_t n = rk_numel(&a->s);
	for (size_t i = 0; i < n; i++) {
		double x = a->v[i], ex = a->e[i], r = fp8_round(fmt, x);
		out->v[i] = r; /* every float8 value is one of fp16, bf16 and fp32 */
		if (ex == 0)
			continue;
		/* x within ex: its float8 lies between those of x - ex and x + ex */
		double lo = fp8_round(fmt, x - 2 * ex), hi = fp8_round(fmt, x + 2 * ex);
		out->e[i] = fmax(fabs(hi - r), fabs(r - lo)) / 2 + ex;
	}
	return rk_finish(out);
}

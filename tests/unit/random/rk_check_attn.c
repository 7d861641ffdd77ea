/* rk_check_attn.c: a check of rk_attn's own bounds (version 7): they must be
 * tight enough to tell flash attention with p.to(v.dtype) from the same
 * attention with p kept in fp32 (a kernel that drops the cast). */
#include <math.h>
#include <stdio.h>

#include "rk.h"

/* q, k and v of small quarters (exact in fp16 and fp32), in dtype t */
static void fill(rk_val *x, const rk_shape *s, rk_dtype t, int mul)
{
	rk_alloc(x, s, t);
	for (size_t i = 0; i < rk_numel(s); i++)
		x->v[i] = (double)((int)((i * (size_t)mul + 1) % 17) - 8) / 4;
}

static bool attn_in(rk_val *out, rk_dtype t)
{
	rk_attn_spec a = {16, 16, 16, 16, 2, 32, false, 0, 0.25, t};
	rk_shape qs = {2, {16, 16}}, kvs = {2, {32, 16}};
	rk_val q, k, v;
	fill(&q, &qs, t, 5);
	fill(&k, &kvs, t, 7);
	fill(&v, &kvs, t, 3);
	bool ok = rk_attn(out, &a, &q, &k, &v);
	rk_free(&q), rk_free(&k), rk_free(&v);
	return ok;
}

bool rk_attn_check(void)
{
	rk_val o16, o32;
	if (!attn_in(&o16, RK_F16))
		return false;
	if (!attn_in(&o32, RK_F32)) {
		rk_free(&o16);
		return false;
	}
	/* the tester accepts what lies within 2e of the reference */
	size_t outside = 0, n = rk_numel(&o16.s);
	for (size_t i = 0; i < n; i++)
		outside += fabs(o32.v[i] - o16.v[i]) > 2 * o16.e[i];
	rk_free(&o16), rk_free(&o32);
	if (outside == 0)
		fprintf(stderr, "rk_attn_check: p kept in fp32 lies within the fp16 reference's bounds\n");
	return outside > 0;
}

/* rk_eval_dtype.c: the dtypes of rk.h's reference values: names, sizes,
 * rounding to a dtype (floats to nearest even, integers wrapped), Triton's
 * integer promotion, and reading and writing elements of a buffer. */
#include <math.h>
#include <string.h>

#include "rk.h"

bool rk_is_float(rk_dtype t)
{
	return t == RK_F32 || t == RK_F16 || t == RK_BF16;
}

bool rk_is_unsigned(rk_dtype t)
{
	return t == RK_U8 || t == RK_BOOL || t == RK_U16 || t == RK_U32;
}

size_t rk_size(rk_dtype t)
{
	switch (t) {
	case RK_F32:
	case RK_I32:
	case RK_U32:
		return 4;
	case RK_F16:
	case RK_BF16:
	case RK_I16:
	case RK_U16:
		return 2;
	case RK_I64:
		return 8;
	default:
		return 1;
	}
}

int rk_bits(rk_dtype t)
{
	return t == RK_BOOL ? 1 : 8 * (int)rk_size(t);
}

const char *rk_tl_name(rk_dtype t)
{
	static const char *const names[] = {"tl.float32", "tl.float16", "tl.bfloat16", "tl.int32", "tl.int8", "tl.uint8",
					    "tl.int1",    "tl.int16",   "tl.uint16",   "tl.uint32", "tl.int64"};
	return names[t];
}

const char *rk_sig_name(rk_dtype t)
{
	static const char *const names[] = {"fp32", "fp16", "bf16", "i32", "i8", "u8", "i1", "i16", "u16", "u32", "i64"};
	return names[t];
}

int rk_mant_bits(rk_dtype t)
{
	return t == RK_F32 ? 23 : t == RK_F16 ? 10 : 7;
}

int rk_min_exp(rk_dtype t)
{
	return t == RK_F16 ? -14 : -126;
}

double rk_int_min(rk_dtype t)
{
	return rk_is_unsigned(t) ? 0 : -ldexp(1.0, rk_bits(t) - 1);
}

double rk_ulp(rk_dtype t, double x)
{
	if (!rk_is_float(t))
		return 0;
	int e = rk_min_exp(t);
	if (x != 0) {
		int fe;
		frexp(fabs(x), &fe);
		if (fe - 1 > e)
			e = fe - 1;
	}
	return ldexp(1.0, e - rk_mant_bits(t));
}

double rk_wrap(rk_dtype t, uint64_t u)
{
	int bits = rk_bits(t);
	if (bits < 64)
		u &= (UINT64_C(1) << bits) - 1;
	if (bits < 64 && !rk_is_unsigned(t) && (u >> (bits - 1)))
		return (double)((int64_t)u - (int64_t)(UINT64_C(1) << bits));
	return bits == 64 ? (double)(int64_t)u : (double)u;
}

double rk_round(rk_dtype t, double x)
{
	switch (t) {
	case RK_F32:
		return (double)(float)x;
	case RK_F16:
	case RK_BF16: {
		if (x == 0 || !isfinite(x))
			return x;
		double u = rk_ulp(t, x), r = nearbyint(x / u) * u;
		double max = t == RK_F16 ? 65504.0 : 3.3895313892515355e38;
		return fabs(r) > max ? copysign(INFINITY, x) : r;
	}
	case RK_BOOL:
		return x != 0;
	default:
		/* past 2^63 (a uint32 product's double) wraps as well */
		return rk_wrap(t, fabs(x) < 0x1p63 ? (uint64_t)(int64_t)x : (uint64_t)fmod(x, 0x1p64));
	}
}

rk_dtype rk_int_promote(rk_dtype a, rk_dtype b)
{
	int ra = rk_bits(a), rb = rk_bits(b);
	bool sa = !rk_is_unsigned(a) || a == RK_BOOL, sb = !rk_is_unsigned(b) || b == RK_BOOL;
	if (sa == sb)
		return ra > rb ? a : b;
	if (!sa)
		return ra >= rb ? a : b;
	return rb >= ra ? b : a;
}

static uint16_t half_bits(double x)
{
	uint16_t s = signbit(x) ? 0x8000 : 0;
	x = fabs(x);
	if (x == 0)
		return s;
	if (isinf(x))
		return s | 0x7c00;
	if (isnan(x))
		return s | 0x7e00;
	int fe;
	frexp(x, &fe);
	int e = fe - 1;
	if (e < -14) /* subnormal: a multiple of 2^-24 */
		return s | (uint16_t)ldexp(x, 24);
	return s | (uint16_t)((e + 15) << 10) | (uint16_t)(ldexp(x, 10 - e) - 1024);
}

static double half_value(uint16_t h)
{
	int e = (h >> 10) & 31, m = h & 1023;
	double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(1024 + m, e - 25);
	return h & 0x8000 ? -v : v;
}

void rk_put(rk_dtype t, void *base, size_t i, double x)
{
	switch (t) {
	case RK_F32:
		((float *)base)[i] = (float)x;
		break;
	case RK_F16:
		((uint16_t *)base)[i] = half_bits(x);
		break;
	case RK_BF16: {
		float f = (float)x;
		uint32_t b;
		memcpy(&b, &f, 4);
		((uint16_t *)base)[i] = (uint16_t)(b >> 16);
		break;
	}
	case RK_I32:
		((int32_t *)base)[i] = (int32_t)x;
		break;
	case RK_I8:
		((int8_t *)base)[i] = (int8_t)x;
		break;
	case RK_U8:
	case RK_BOOL:
		((uint8_t *)base)[i] = (uint8_t)x;
		break;
	case RK_I16:
		((int16_t *)base)[i] = (int16_t)x;
		break;
	case RK_U16:
		((uint16_t *)base)[i] = (uint16_t)x;
		break;
	case RK_U32:
		((uint32_t *)base)[i] = (uint32_t)x;
		break;
	case RK_I64:
		((int64_t *)base)[i] = (int64_t)x;
		break;
	}
}

double rk_get(rk_dtype t, const void *base, size_t i)
{
	switch (t) {
	case RK_F32:
		return ((const float *)base)[i];
	case RK_F16:
		return half_value(((const uint16_t *)base)[i]);
	case RK_BF16: {
		uint32_t b = (uint32_t)((const uint16_t *)base)[i] << 16;
		float f;
		memcpy(&f, &b, 4);
		return f;
	}
	case RK_I32:
		return ((const int32_t *)base)[i];
	case RK_I8:
		return ((const int8_t *)base)[i];
	case RK_U8:
	case RK_BOOL:
		return ((const uint8_t *)base)[i];
	case RK_I16:
		return ((const int16_t *)base)[i];
	case RK_U16:
		return ((const uint16_t *)base)[i];
	case RK_U32:
		return ((const uint32_t *)base)[i];
	case RK_I64:
		return (double)((const int64_t *)base)[i];
	}
	return 0;
}

/* builtins_pyround.c: Python's round() and divmod() on constexpr numbers,
 * with Python's rules: round() halves to even (round(2.5) == 2), gives an
 * int without ndigits and the argument's type with it; round(x, n) of a
 * float is the float nearest the exactly rounded decimal (round(2.675, 2)
 * is 2.67: the double is below 2.675). divmod's quotient is floored and its
 * remainder has the divisor's sign, ints exactly, floats as CPython does. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sema/sema_int.h"

static bool num_arg(Sema *s, Call *c, int i)
{
	Value v = c->a[i];
	if (v.kind == V_ERR) return false;
	if (v.kind == V_CONST && (v.c.kind == CV_INT || v.c.kind == CV_BOOL || v.c.kind == CV_FLOAT)) return true;
	diag_error(s->d, c->at[i], "'%s' needs a constexpr number, got %s", c->name, v_describe(s, v));
	return false;
}

/* round(n, nd) of an int, nd < 0: the nearest multiple of 10**-nd, ties to even */
static Value round_int(Sema *s, Call *c, int64_t x, int64_t nd)
{
	if (nd <= -19) return v_int(0); /* 10**19 is past every int64 */
	int64_t p = 1;
	for (int64_t i = 0; i < -nd; i++) p *= 10;
	int64_t q = x / p, r = x % p; /* C truncates: make r >= 0 */
	if (r < 0) r += p, q--;
	if (2 * r > p || (2 * r == p && (q & 1))) q++; /* 2 * r < 2 * 10**18: no overflow */
	if ((q > 0 && q > INT64_MAX / p) || (q < 0 && q < INT64_MIN / p)) {
		diag_error(s->d, c->loc, "round() gives an integer outside int64");
		return v_err();
	}
	return v_int(q * p);
}

/* round(x, nd) of a float: printf's exact decimal rounding (ties to even on
 * the exact binary value), read back */
static double round_float(double x, int64_t nd)
{
	if (!isfinite(x) || x == 0.0) return x;
	if (nd > 330) return x; /* finer than any double's digits */
	char buf[400];
	if (nd >= 0) {
		snprintf(buf, sizeof buf, "%.*f", (int)nd, x);
		return strtod(buf, NULL);
	}
	if (nd < -330) return copysign(0.0, x);
	double p = pow(10.0, (double)-nd), y = nearbyint(x / p) * p; /* ties to even, as rint */
	return y == 0.0 ? copysign(0.0, x) : y;
}

static Value b_round(Sema *s, Call *c, int extra)
{
	(void)extra;
	if (!num_arg(s, c, 0)) return v_err();
	ConstVal x = c->a[0].c;
	bool has_nd = c->has[1] && !v_is_none(c->a[1]);
	int64_t nd = 0;
	if (has_nd && !arg_const_int(s, c, 1, &nd)) return v_err();
	if (x.kind != CV_FLOAT) { /* an int (a bool's is its int) */
		if (!has_nd || nd >= 0) return x.kind == CV_BOOL ? v_int(x.i) : c->a[0];
		if (x.u64 && x.i < 0) {
			diag_error(s->d, c->loc, "round() of an integer past int64 is not supported");
			return v_err();
		}
		return round_int(s, c, x.i, nd);
	}
	if (has_nd) return v_float(round_float(x.f, nd));
	if (isnan(x.f) || isinf(x.f)) {
		s->py_errors++;
		diag_error(s->d, c->loc, "cannot convert float %s to integer (a%s in Python)", isnan(x.f) ? "NaN" : "infinity",
			   isnan(x.f) ? " ValueError" : "n OverflowError");
		return v_err();
	}
	Value r; /* nearbyint: the default rounding mode, ties to even */
	if (!v_int_of_double(nearbyint(x.f), &r)) {
		diag_error(s->d, c->loc, "round(%g) is outside [-2**63, 2**64)", x.f);
		return v_err();
	}
	return r;
}

static Value b_divmod(Sema *s, Call *c, int extra)
{
	(void)extra;
	if (!num_arg(s, c, 0) || !num_arg(s, c, 1)) return v_err();
	Value a = c->a[0], b = c->a[1], r[2];
	if (a.c.kind == CV_FLOAT || b.c.kind == CV_FLOAT) {
		double x = const_as_double(a.c);
		double y = const_as_double(b.c);
		if (y == 0.0) {
			s->py_errors++;
			diag_error(s->d, c->loc, "float divmod() by zero (a ZeroDivisionError in Python)");
			return v_err();
		}
		double d, m;
		py_float_divmod(x, y, &d, &m);
		r[0] = v_float(d), r[1] = v_float(m);
	} else { /* ints: exactly, as // and % compute them */
		r[0] = const_binop(s, OP_FLOORDIV, a, b, c->loc);
		if (r[0].kind == V_ERR) return r[0];
		r[1] = const_binop(s, OP_MOD, a, b, c->loc);
		if (r[1].kind == V_ERR) return r[1];
	}
	return v_tuple(s, r, 2);
}

const Builtin builtins_pyround[] = {
    {"round", "number,ndigits=None", b_round, 0, BF_PY},
    {"divmod", "a,b", b_divmod, 0, BF_PY},
    {NULL, NULL, NULL, 0, 0},
};

/* asm_insn.c: tl.inline_asm_elementwise's PTX, one instruction at a time,
 * into Tile IR ops on register values (the model is at the top of
 * builtins_asm.c); scopes, declarations and comments of the text. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "sema/asm_int.h"

/* ---- one instruction ----------------------------------------------------------------------- */

typedef struct {
	char base[16];
	const char *mods[8]; /* non-type modifiers, in order */
	int nmods;
	const PtxType *types[3];
	int ntypes;
	char *opnd[ASM_MAX_OPNDS];
	int nopnd;
	char guard[ASM_NAME]; /* "@p" predicate name, or "" */
	bool guard_neg;
} Insn;

static bool has_mod(const Insn *in, const char *m)
{
	for (int i = 0; i < in->nmods; i++)
		if (!strcmp(in->mods[i], m)) return true;
	return false;
}

/* splits "{a, b}" into its items (in place); false if t is not a vector */
static int vector_items(char *t, char **items, int max)
{
	size_t n = strlen(t);
	if (n < 2 || t[0] != '{' || t[n - 1] != '}') return 0;
	t[n - 1] = 0;
	int k = 0;
	for (char *p = strtok(t + 1, ","); p && k < max; p = strtok(NULL, ",")) {
		while (isspace((unsigned char)*p)) p++;
		char *e = p + strlen(p);
		while (e > p && isspace((unsigned char)e[-1])) *--e = 0;
		items[k++] = p;
	}
	return k;
}

typedef enum { F_NONE, F_ADD, F_SUB, F_MUL, F_DIV, F_MIN, F_MAX, F_FMA, F_NEG, F_ABS } FloatOp;

/* float result clamped to [0, 1] (.sat), NaN to 0 (the lower bound first:
 * a NaN fails x > 0 and becomes 0; the other order made it 1) */
static ValId saturate(Asm *a, ValId x)
{
	DType d = (DType)vtype(a->s, x).dt;
	ValId lo = asm_k_flt(a, d, 0.0), hi = asm_k_flt(a, d, 1.0);
	ValId c = asm_sel(a, asm_cmp(a, PRED_GT, x, lo), x, lo);
	c = asm_sel(a, asm_cmp(a, PRED_LT, c, hi), c, hi);
	return c;
}

/* add.sat.s32 / sub.sat.s32: in 64 bits, clamped to [INT32_MIN, INT32_MAX] */
static ValId sat_addsub(Asm *a, const Insn *in, DType dt, ValId *x)
{
	if (dt != DT_I32)
		return asm_error(a, "'%s': .sat on integers is only 'add.sat.s32' / 'sub.sat.s32'", a->insn), 0;
	ValId r = asm_op2(a, in->base[0] == 'a' ? TOP_ADD : TOP_SUB, asm_conv(a, x[0], DT_I64, 0), asm_conv(a, x[1], DT_I64, 0));
	ValId lo = asm_k_int(a, DT_I64, INT32_MIN), hi = asm_k_int(a, DT_I64, INT32_MAX);
	r = asm_sel(a, asm_cmp(a, PRED_LT, r, lo), lo, r);
	r = asm_sel(a, asm_cmp(a, PRED_GT, r, hi), hi, r);
	return asm_conv(a, r, DT_I32, 0);
}

/* An arithmetic op of one type on every lane; 0 after an error. */
static ValId lanewise(Asm *a, const Insn *in, const PtxType *ty, int first, int nsrc,
                      ValId (*fn)(Asm *, const Insn *, DType, ValId *))
{
	ValId out[2];
	for (int l = 0; l < ty->lanes; l++) {
		ValId x[4];
		for (int i = 0; i < nsrc; i++)
			if (!(x[i] = asm_read_lane(a, in->opnd[first + i], ty, l))) return 0;
		if (!(out[l] = fn(a, in, ty->dt, x))) return 0;
		if (dtype_is_float(ty->dt) && has_mod(in, "sat")) out[l] = saturate(a, out[l]);
	}
	return asm_join_lanes(a, out, ty->lanes);
}

/* shifts clamp their amount as PTX does: past the width, shl gives 0 and shr
 * gives 0 or the sign */
static ValId shift(Asm *a, bool left, DType dt, ValId x, ValId amount)
{
	int w = dtype_bits(dt);
	ValId n = asm_conv(a, amount, dt, 0);
	ValId big = asm_cmp(a, PRED_GE, asm_conv(a, amount, DT_U32, 0), asm_k_int(a, DT_U32, w));
	ValId safe = asm_sel(a, big, asm_k_int(a, dt, w - 1), n);
	ValId r = asm_op2(a, left ? TOP_SHL : TOP_SHR, x, safe);
	if (left || !dtype_is_signed(dt)) r = asm_sel(a, big, asm_k_int(a, dt, 0), r);
	return r;
}

/* min/max, with .NaN (a NaN operand gives NaN, not the other operand) and
 * .xorsign.abs (of |x| and |y|, the result's sign the xor of theirs) */
static ValId minmax(Asm *a, const Insn *in, bool is_max, DType dt, ValId *x)
{
	bool xs = dtype_is_float(dt) && has_mod(in, "xorsign");
	ValId in2[2] = {xs ? asm_math1(a, MATH_ABS, x[0]) : x[0], xs ? asm_math1(a, MATH_ABS, x[1]) : x[1]};
	TirOp *op = emit_op(a->s, is_max ? TOP_MAX : TOP_MIN, a->loc, in2, 2, vtype(a->s, x[0]));
	if (dtype_is_float(dt) && has_mod(in, "NaN")) op->attr.flags |= TIR_PROPAGATE_NAN;
	ValId r = op->results[0];
	if (!xs) return r;
	DType it = dtype_bits(dt) == 64 ? DT_U64 : dtype_bits(dt) == 32 ? DT_U32 : DT_U16;
	ValId sign = asm_op2(a, TOP_AND, asm_op2(a, TOP_XOR, asm_bitc(a, x[0], it), asm_bitc(a, x[1], it)),
			 asm_k_int(a, it, (int64_t)1 << (dtype_bits(dt) - 1)));
	return asm_bitc(a, asm_op2(a, TOP_OR, asm_bitc(a, r, it), sign), dt);
}

static ValId arith(Asm *a, const Insn *in, DType dt, ValId *x)
{
	const char *b = in->base;
	bool fl = dtype_is_float(dt);
	if (!fl && (!strcmp(b, "add") || !strcmp(b, "sub")) && has_mod(in, "sat")) return sat_addsub(a, in, dt, x);
	if (!strcmp(b, "add")) return asm_op2(a, TOP_ADD, x[0], x[1]);
	if (!strcmp(b, "sub")) return asm_op2(a, TOP_SUB, x[0], x[1]);
	if (!strcmp(b, "mul") && (fl || has_mod(in, "lo"))) return asm_op2(a, TOP_MUL, x[0], x[1]);
	if (!strcmp(b, "min") || !strcmp(b, "max")) return minmax(a, in, b[1] == 'a', dt, x);
	if (!strcmp(b, "neg")) return asm_op1(a, TOP_NEG, x[0]);
	if (!strcmp(b, "abs")) return asm_math1(a, MATH_ABS, x[0]);
	if (!strcmp(b, "and")) return asm_op2(a, TOP_AND, x[0], x[1]);
	if (!strcmp(b, "or")) return asm_op2(a, TOP_OR, x[0], x[1]);
	if (!strcmp(b, "xor")) return asm_op2(a, TOP_XOR, x[0], x[1]);
	if (!strcmp(b, "not")) return asm_op1(a, TOP_NOT, x[0]);
	if (!strcmp(b, "mov")) return x[0];
	if (!strcmp(b, "cnot")) return asm_conv(a, asm_cmp(a, PRED_EQ, x[0], asm_k_int(a, dt, 0)), dt, 0);
	if (!strcmp(b, "rem") && !fl) return asm_op2(a, TOP_REM, x[0], x[1]);
	if (!strcmp(b, "div")) {
		ValId in2[2] = {x[0], x[1]};
		TirOp *op = emit_op(a->s, TOP_DIV, a->loc, in2, 2, vtype(a->s, x[0]));
		if (fl && !has_mod(in, "approx") && !has_mod(in, "full")) op->attr.flags |= TIR_DIV_RN;
		return op->results[0];
	}
	if ((!strcmp(b, "fma") || !strcmp(b, "mad")) && fl) {
		ValId in3[3] = {x[0], x[1], x[2]};
		return emit(a->s, TOP_FMA, a->loc, in3, 3, vtype(a->s, x[0]));
	}
	if (!strcmp(b, "mad") && has_mod(in, "lo")) return asm_op2(a, TOP_ADD, asm_op2(a, TOP_MUL, x[0], x[1]), x[2]);
	if (fl) {
		static const struct { const char *name; MathFn fn; } m[] = {
		    {"sqrt", MATH_SQRT}, {"rsqrt", MATH_RSQRT}, {"ex2", MATH_EXP2}, {"lg2", MATH_LOG2},
		    {"sin", MATH_SIN},   {"cos", MATH_COS},     {"tanh", MATH_TANH},
		};
		for (size_t i = 0; i < COUNTOF(m); i++)
			if (!strcmp(b, m[i].name)) return asm_math1(a, m[i].fn, x[0]);
		if (!strcmp(b, "rcp")) {
			ValId in2[2] = {asm_k_flt(a, dt, 1.0), x[0]};
			TirOp *op = emit_op(a->s, TOP_DIV, a->loc, in2, 2, vtype(a->s, x[0]));
			if (!has_mod(in, "approx")) op->attr.flags |= TIR_DIV_RN;
			return op->results[0];
		}
		if (!strcmp(b, "copysign")) { /* d = b with the sign of a */
			ValId in2[2] = {x[1], x[0]};
			TirOp *op = emit_op(a->s, TOP_MATH, a->loc, in2, 2, vtype(a->s, x[0]));
			op->attr.math = MATH_COPYSIGN;
			return op->results[0];
		}
	} else {
		if (!strcmp(b, "shl")) return shift(a, true, dt, x[0], x[1]);
		if (!strcmp(b, "shr")) return shift(a, false, dt, x[0], x[1]);
		if (!strcmp(b, "popc") || !strcmp(b, "clz"))
			return asm_conv(a, asm_math1(a, b[0] == 'p' ? MATH_POPC : MATH_CLZ, x[0]), DT_U32, 0);
	}
	asm_error(a, "'%s' is not among the PTX instructions tile translates (docs/language.md lists them)", a->insn);
	return 0;
}

/* mul.hi / mul.wide / mad.hi / mad.wide: the product in twice the width */
static bool wide_mul(Asm *a, const Insn *in, const PtxType *ty)
{
	int w = dtype_bits(ty->dt);
	bool sgn = dtype_is_signed(ty->dt), hi = has_mod(in, "hi"), mad = in->base[1] == 'a';
	if (w > 32) {
		if (!hi || sgn) return asm_error(a, "'%s': 64-bit wide or signed high products are not translated", a->insn);
		ValId x = asm_read_lane(a, in->opnd[1], ty, 0), y = asm_read_lane(a, in->opnd[2], ty, 0);
		if (!x || !y) return false;
		ValId r = asm_op2(a, TOP_UMULHI, x, y);
		if (mad) {
			ValId c = asm_read_lane(a, in->opnd[3], ty, 0);
			if (!c) return false;
			r = asm_op2(a, TOP_ADD, r, c);
		}
		return asm_write_bits(a, in->opnd[0], r);
	}
	DType wd = sgn ? (w == 32 ? DT_I64 : w == 16 ? DT_I32 : DT_I16) : asm_uint_of(2 * w);
	ValId x = asm_read_lane(a, in->opnd[1], ty, 0), y = asm_read_lane(a, in->opnd[2], ty, 0);
	if (!x || !y) return false;
	ValId p = asm_op2(a, TOP_MUL, asm_conv(a, x, wd, 0), asm_conv(a, y, wd, 0));
	if (hi) p = asm_conv(a, asm_op2(a, TOP_SHR, p, asm_k_int(a, wd, w)), ty->dt, 0);
	if (mad && has_mod(in, "sat")) return asm_error(a, "'%s': mad.hi.sat is not translated", a->insn);
	if (mad) {
		PtxType cty = {NULL, hi ? ty->dt : wd, 1};
		ValId c = asm_read_lane(a, in->opnd[3], &cty, 0);
		if (!c) return false;
		p = asm_op2(a, TOP_ADD, p, c);
	}
	return asm_write_bits(a, in->opnd[0], p);
}

/* cvt's rounding to an integral value (.rni/.rzi/.rmi/.rpi), if asked for */
static ValId round_integral(Asm *a, const Insn *in, ValId x)
{
	static const struct { const char *mod; MathFn fn; } rnd[] = {
	    {"rni", MATH_RINT}, {"rzi", MATH_TRUNC}, {"rmi", MATH_FLOOR}, {"rpi", MATH_CEIL}};
	for (size_t i = 0; i < COUNTOF(rnd); i++)
		if (has_mod(in, rnd[i].mod)) x = asm_math1(a, rnd[i].fn, x);
	return x;
}

static ValId float_to_int(Asm *a, const Insn *in, ValId x, DType to)
{
	/* PTX saturates; NaN becomes 0 */
	return sat_float_to_int(a->s, round_integral(a, in, x), to, a->loc);
}

/* rounds toward zero where asked (.rz); .rm/.rp are not translated */
static bool float_rounding(Asm *a, const Insn *in, int *flags)
{
	*flags = has_mod(in, "rz") ? TIR_RTZ : 0;
	if (has_mod(in, "rm") || has_mod(in, "rp"))
		return asm_error(a, "'%s': rounding toward -inf/+inf is not translated", a->insn);
	if (has_mod(in, "rs")) /* sm_100a's random-bits operand form (cvt.rs ... e2m1x4, rbits) */
		return asm_error(a, "'%s': stochastic rounding (.rs) is not translated", a->insn);
	return true;
}

static ValId to_float(Asm *a, const Insn *in, ValId x, DType to, int flags)
{
	if (has_mod(in, "relu")) x = asm_sel(a, asm_cmp(a, PRED_GT, x, asm_k_flt(a, (DType)vtype(a->s, x).dt, 0)), x,
	                                 asm_k_flt(a, (DType)vtype(a->s, x).dt, 0));
	if (has_mod(in, "satfinite") && (to == DT_F8E4M3 || to == DT_F8E5M2 || to == DT_F16 || to == DT_BF16)) {
		double m = to == DT_F8E4M3 ? 448.0 : to == DT_F8E5M2 ? 57344.0 : to == DT_F16 ? 65504.0 : 3.3895313892515355e38;
		DType sd = (DType)vtype(a->s, x).dt;
		ValId hi = asm_k_flt(a, sd, m), lo = asm_k_flt(a, sd, -m);
		x = asm_sel(a, asm_cmp(a, PRED_GT, x, hi), hi, x);
		x = asm_sel(a, asm_cmp(a, PRED_LT, x, lo), lo, x);
	}
	return asm_conv(a, x, to, flags);
}

/* The e2m1 (fp4) code in the low 4 bits of the u8 tile nib as an f32: sign, 2
 * exponent bits (bias 1) and 1 mantissa bit, so the magnitudes 0 0.5 1 1.5 2 3 4 6. */
static ValId e2m1_decode(Asm *a, ValId nib)
{
	ValId mag = asm_op2(a, TOP_AND, nib, asm_k_int(a, DT_U8, 7));
	ValId e = asm_op2(a, TOP_SHR, mag, asm_k_int(a, DT_U8, 1)), m = asm_op2(a, TOP_AND, mag, asm_k_int(a, DT_U8, 1));
	ValId sub = asm_cmp(a, PRED_EQ, e, asm_k_int(a, DT_U8, 0));
	/* twice the magnitude: m for a subnormal, else (2 + m) << (e - 1) */
	ValId sh = asm_sel(a, sub, asm_k_int(a, DT_U8, 0), asm_op2(a, TOP_SUB, e, asm_k_int(a, DT_U8, 1)));
	ValId q = asm_sel(a, sub, m, asm_op2(a, TOP_SHL, asm_op2(a, TOP_ADD, m, asm_k_int(a, DT_U8, 2)), sh));
	ValId f = asm_op2(a, TOP_MUL, asm_conv(a, q, DT_F32, 0), asm_k_flt(a, DT_F32, 0.5));
	ValId neg = asm_cmp(a, PRED_NE, asm_op2(a, TOP_AND, nib, asm_k_int(a, DT_U8, 8)), asm_k_int(a, DT_U8, 0));
	return asm_sel(a, neg, asm_op2(a, TOP_MUL, f, asm_k_flt(a, DT_F32, -1.0)), f);
}

/* The f32 tile x as an e2m1 code (u8, low 4 bits), rounded to nearest even and
 * saturated to +-6 (.satfinite); the format has no NaN, so NaN gives +6. */
static ValId e2m1_encode(Asm *a, const Insn *in, ValId x)
{
	if (has_mod(in, "relu")) x = asm_sel(a, asm_cmp(a, PRED_GT, x, asm_k_flt(a, DT_F32, 0)), x, asm_k_flt(a, DT_F32, 0));
	ValId ax = asm_math1(a, MATH_ABS, x);
	/* the halfway points between neighbouring codes; a tie goes to the even code */
	static const struct { double at; bool tie_up; } step[] = {
	    {0.25, false}, {0.75, true}, {1.25, false}, {1.75, true}, {2.5, false}, {3.5, true}, {5.0, false}};
	ValId c = asm_k_int(a, DT_U8, 0);
	for (size_t i = 0; i < COUNTOF(step); i++) {
		ValId up = asm_cmp(a, step[i].tie_up ? PRED_GE : PRED_GT, ax, asm_k_flt(a, DT_F32, step[i].at));
		c = asm_op2(a, TOP_ADD, c, asm_conv(a, up, DT_U8, 0));
	}
	ValId sign = asm_conv(a, asm_op2(a, TOP_SHR, asm_bitc(a, x, DT_U32), asm_k_int(a, DT_U32, 31)), DT_U8, 0);
	c = asm_op2(a, TOP_OR, c, asm_op2(a, TOP_SHL, sign, asm_k_int(a, DT_U8, 3)));
	Type bt = vtype(a->s, x);
	TirOp *nan = emit_op(a->s, TOP_MATH, a->loc, &x, 1, type_tile(type_scalar(DT_I1), bt.rank, bt.shape));
	nan->attr.math = MATH_ISNAN;
	return asm_sel(a, nan->results[0], asm_k_int(a, DT_U8, 7), c);
}

/* cvt.rn{.relu}.f16x2.e2m1x2 d, a  and  cvt.rn.satfinite{.relu}.e2m1x2.f32 d, a, b:
 * lane 0 is the low half (of a for the first, of d for the second, from b) */
static bool insn_cvt_e2m1(Asm *a, const Insn *in, const PtxType *dt, const PtxType *st)
{
	ValId out[2];
	if (asm_is_fp4(st)) {
		if (asm_is_fp4(dt) || dt->dt != DT_F16 || dt->lanes != 2 || in->nopnd != 2)
			return asm_error(a, "'%s': only 'cvt.rn.f16x2.e2m1x2 d, a' is translated from e2m1x2", a->insn);
		ValId x = asm_read_bits(a, in->opnd[1], st);
		if (!x) return false;
		for (int l = 0; l < 2; l++) {
			ValId nib = l ? asm_op2(a, TOP_SHR, x, asm_k_int(a, DT_U8, 4)) : x;
			out[l] = to_float(a, in, e2m1_decode(a, asm_op2(a, TOP_AND, nib, asm_k_int(a, DT_U8, 15))), DT_F16, 0);
		}
		return asm_write_bits(a, in->opnd[0], asm_join_lanes(a, out, 2));
	}
	if (st->dt != DT_F32 || st->lanes != 1 || in->nopnd != 3 || !has_mod(in, "satfinite"))
		return asm_error(a, "'%s': only 'cvt.rn.satfinite.e2m1x2.f32 d, a, b' is translated to e2m1x2", a->insn);
	for (int l = 0; l < 2; l++) {
		ValId x = asm_read_lane(a, in->opnd[2 - l], st, 0);
		if (!x) return false;
		out[l] = e2m1_encode(a, in, x);
	}
	return asm_write_bits(a, in->opnd[0], asm_op2(a, TOP_OR, out[0], asm_op2(a, TOP_SHL, out[1], asm_k_int(a, DT_U8, 4))));
}

static bool insn_cvt(Asm *a, const Insn *in)
{
	int flags;
	/* the rounding first: an untranslated mode is the reason, not the types it comes with */
	if (!float_rounding(a, in, &flags)) return false;
	if (in->ntypes != 2) return asm_error(a, "'%s' needs a destination and a source type", a->insn);
	const PtxType *dt = in->types[0], *st = in->types[1];
	if (asm_is_fp4(dt) || asm_is_fp4(st)) return insn_cvt_e2m1(a, in, dt, st);
	bool df = dtype_is_float(dt->dt), sf = dtype_is_float(st->dt);
	ValId out[2];
	if (dt->lanes == 2 && st->lanes == 1) { /* cvt.rn.f16x2.f32 d, hi, lo */
		if (in->nopnd != 3) return asm_error(a, "'%s' takes a destination and two sources", a->insn);
		for (int l = 0; l < 2; l++) {
			ValId x = asm_read_lane(a, in->opnd[2 - l], st, 0);
			if (!x) return false;
			out[l] = df && sf ? to_float(a, in, x, dt->dt, flags) : asm_conv(a, x, dt->dt, 0);
		}
		return asm_write_bits(a, in->opnd[0], asm_join_lanes(a, out, 2));
	}
	if (in->nopnd != 2) return asm_error(a, "'%s' takes a destination and a source", a->insn);
	if (dt->lanes != st->lanes) return asm_error(a, "'%s': these packed types are not translated", a->insn);
	for (int l = 0; l < dt->lanes; l++) {
		ValId x = asm_read_lane(a, in->opnd[1], st, l);
		if (!x) return false;
		if (df && sf && dt->dt == st->dt) {
			out[l] = round_integral(a, in, x);
		} else if (df) {
			out[l] = to_float(a, in, x, dt->dt, flags); /* .rz from an integer too */
		} else if (sf) {
			out[l] = float_to_int(a, in, x, dt->dt);
		} else {
			if (has_mod(in, "sat")) return asm_error(a, "'%s': saturating integer conversion is not translated", a->insn);
			out[l] = asm_conv(a, x, dt->dt, 0);
		}
		if (df && has_mod(in, "sat")) out[l] = saturate(a, out[l]);
	}
	/* one lane as its own dtype: a signed one sign-extends into a wider register */
	return asm_write_bits(a, in->opnd[0], dt->lanes == 1 ? out[0] : asm_join_lanes(a, out, dt->lanes));
}

static bool insn_setp(Asm *a, const Insn *in)
{
	static const struct { const char *name; TirPred p; int kind; } cmps[] = {
	    /* kind: 0 ordered/int, 1 unsigned-int spelling, 2 float unordered-or */
	    {"eq", PRED_EQ, 0},  {"ne", PRED_NE, 0},  {"lt", PRED_LT, 0},  {"le", PRED_LE, 0},
	    {"gt", PRED_GT, 0},  {"ge", PRED_GE, 0},  {"lo", PRED_LT, 1},  {"ls", PRED_LE, 1},
	    {"hi", PRED_GT, 1},  {"hs", PRED_GE, 1},  {"equ", PRED_EQ, 2}, {"neu", PRED_NE, 2},
	    {"ltu", PRED_LT, 2}, {"leu", PRED_LE, 2}, {"gtu", PRED_GT, 2}, {"geu", PRED_GE, 2},
	};
	if (in->ntypes != 1 || in->types[0]->lanes != 1 || in->nopnd != 3)
		return asm_error(a, "'%s': only 'setp.CMP.TYPE p, a, b' is translated", a->insn);
	const PtxType *ty = in->types[0];
	int which = -1;
	for (size_t i = 0; i < COUNTOF(cmps) && which < 0; i++)
		if (has_mod(in, cmps[i].name)) which = (int)i;
	bool num = has_mod(in, "num"), nan_cmp = has_mod(in, "nan");
	if (which < 0 && !num && !nan_cmp) return asm_error(a, "'%s': unknown comparison", a->insn);
	ValId x = asm_read_lane(a, in->opnd[1], ty, 0), y = asm_read_lane(a, in->opnd[2], ty, 0);
	if (!x || !y) return false;
	ValId r;
	if (dtype_is_float(ty->dt)) {
		ValId un = asm_op2(a, TOP_OR, asm_cmp(a, PRED_NE, x, x), asm_cmp(a, PRED_NE, y, y));
		if (num || nan_cmp) {
			r = num ? asm_op1(a, TOP_NOT, un) : un;
		} else {
			r = asm_cmp(a, cmps[which].p, x, y); /* ordered, except NE which is unordered */
			if (cmps[which].kind == 2) r = asm_op2(a, TOP_OR, r, un);
			else if (cmps[which].p == PRED_NE) r = asm_op2(a, TOP_AND, r, asm_op1(a, TOP_NOT, un));
		}
	} else {
		if (which < 0) return asm_error(a, "'%s': unknown comparison", a->insn);
		if (cmps[which].kind == 1) {
			x = asm_bitc(a, x, asm_uint_of(dtype_bits(ty->dt)));
			y = asm_bitc(a, y, asm_uint_of(dtype_bits(ty->dt)));
		}
		r = asm_cmp(a, cmps[which].p, x, y);
	}
	return asm_write_bits(a, in->opnd[0], r);
}

/* prmt.b32 d, a, b, sel: byte i of d is byte (sel >> 4i) & 7 of {b, a}
 * (a in bytes 0-3), replicated sign when bit 3 of the nibble is set */
static bool insn_prmt(Asm *a, const Insn *in)
{
	if (in->nmods) return asm_error(a, "'%s': only the default prmt mode is translated", a->insn);
	PtxType b32 = {"b32", DT_U32, 1};
	int64_t s;
	if (in->nopnd != 4 || !asm_int_literal(in->opnd[3], &s))
		return asm_error(a, "'%s': prmt's selector must be a literal", a->insn);
	ValId x = asm_read_bits(a, in->opnd[1], &b32), y = asm_read_bits(a, in->opnd[2], &b32);
	if (!x || !y) return false;
	ValId src = asm_join_lanes(a, (ValId[]){x, y}, 2); /* u64: a low, b high */
	ValId r = 0;
	for (int i = 0; i < 4; i++) {
		int nib = (int)(s >> (4 * i)) & 0xf, idx = nib & 7;
		ValId byte = asm_conv(a, asm_op2(a, TOP_SHR, src, asm_k_int(a, DT_U64, 8 * idx)), DT_U8, 0);
		if (nib & 8) { /* the byte's sign, replicated */
			ValId neg = asm_cmp(a, PRED_GE, byte, asm_k_int(a, DT_U8, 0x80));
			byte = asm_sel(a, neg, asm_k_int(a, DT_U8, 0xff), asm_k_int(a, DT_U8, 0));
		}
		ValId w = asm_conv(a, byte, DT_U32, 0);
		if (i) w = asm_op2(a, TOP_SHL, w, asm_k_int(a, DT_U32, 8 * i));
		r = r ? asm_op2(a, TOP_OR, r, w) : w;
	}
	return asm_write_bits(a, in->opnd[0], r);
}

/* lop3.b32 d, a, b, c, lut: bit k of d = bit (a_k*4 + b_k*2 + c_k) of lut */
static bool insn_lop3(Asm *a, const Insn *in)
{
	int64_t lut;
	if (in->nopnd != 5 || !asm_int_literal(in->opnd[4], &lut))
		return asm_error(a, "'%s': lop3's lookup table must be a literal", a->insn);
	PtxType b32 = {"b32", DT_U32, 1};
	ValId v[3], nv[3];
	for (int i = 0; i < 3; i++) {
		if (!(v[i] = asm_read_bits(a, in->opnd[1 + i], &b32))) return false;
		nv[i] = asm_op1(a, TOP_NOT, v[i]);
	}
	ValId r = asm_k_int(a, DT_U32, 0);
	for (int m = 0; m < 8; m++) {
		if (!((lut >> m) & 1)) continue;
		ValId t = asm_op2(a, TOP_AND, (m & 4) ? v[0] : nv[0], (m & 2) ? v[1] : nv[1]);
		r = asm_op2(a, TOP_OR, r, asm_op2(a, TOP_AND, t, (m & 1) ? v[2] : nv[2]));
	}
	return asm_write_bits(a, in->opnd[0], r);
}

/* mov with vector operands: mov.b32 d, {x, y} packs, mov.b32 {x, y}, d unpacks */
static bool insn_mov_vector(Asm *a, const Insn *in, const PtxType *ty)
{
	char *items[4];
	int n;
	int bits = asm_type_bits(ty);
	int nv = in->opnd[0][0] == '{' ? vector_items(in->opnd[0], items, 4) : vector_items(in->opnd[1], items, 4);
	if (nv < 2 || bits % nv || (bits / nv != 8 && bits / nv != 16 && bits / nv != 32))
		return asm_error(a, "'%s': a vector operand must split the register into 2 or 4 equal parts", a->insn);
	if (in->opnd[1][0] == '{' && (n = nv) > 0) {
		ValId part[4];
		PtxType pt = {NULL, asm_uint_of(bits / n), 1};
		for (int i = 0; i < n; i++)
			if (!(part[i] = asm_read_bits(a, items[i], &pt))) return false;
		return asm_write_bits(a, in->opnd[0], asm_join_lanes(a, part, n));
	}
	if ((n = nv) > 0) {
		ValId x = asm_read_bits(a, in->opnd[1], ty);
		if (!x) return false;
		for (int i = 0; i < n; i++)
			if (strcmp(items[i], "_") && !asm_write_bits(a, items[i], asm_lane_of(a, x, n, i, asm_uint_of(bits / n))))
				return false;
		return true;
	}
	return asm_error(a, "'%s': malformed vector operand", a->insn);
}

/* bfe/bfi's bit field: literal position and length, operands i and i + 1 of n */
static bool field_args(Asm *a, const Insn *in, int n, int i, int64_t *pos, int64_t *len)
{
	if (in->nopnd != n || !asm_int_literal(in->opnd[i], pos) || !asm_int_literal(in->opnd[i + 1], len))
		return asm_error(a, "'%s': the bit field's position and length must be literals", a->insn);
	if (*pos < 0 || *len < 0) return asm_error(a, "'%s': negative bit position or length", a->insn);
	return true;
}

/* bfe.{u,s}{32,64} d, a, pos, len */
static bool insn_bfe(Asm *a, const Insn *in, const PtxType *ty)
{
	int64_t pos, len;
	if (!field_args(a, in, 4, 2, &pos, &len)) return false;
	int w = dtype_bits(ty->dt);
	ValId x = asm_read_lane(a, in->opnd[1], ty, 0);
	if (!x) return false;
	if (pos >= w) pos = w;
	if (len <= 0) return asm_write_bits(a, in->opnd[0], asm_k_int(a, ty->dt, 0));
	if (pos + len > w) len = w - pos;
	if (len <= 0) return asm_write_bits(a, in->opnd[0], asm_k_int(a, ty->dt, 0));
	/* shift the field to the top, then back down (arithmetic for .s) */
	ValId r = x;
	if (w - pos - len) r = asm_op2(a, TOP_SHL, r, asm_k_int(a, ty->dt, w - pos - len));
	if (w - len) r = asm_op2(a, TOP_SHR, r, asm_k_int(a, ty->dt, w - len));
	return asm_write_bits(a, in->opnd[0], r);
}

/* bfi.b{32,64} d, f, b, pos, len */
static bool insn_bfi(Asm *a, const Insn *in, const PtxType *ty)
{
	int64_t pos, len;
	if (!field_args(a, in, 5, 3, &pos, &len)) return false;
	int w = dtype_bits(ty->dt);
	ValId f = asm_read_lane(a, in->opnd[1], ty, 0), b = asm_read_lane(a, in->opnd[2], ty, 0);
	if (!f || !b) return false;
	if (pos >= w || len <= 0) return asm_write_bits(a, in->opnd[0], b);
	if (pos + len > w) len = w - pos;
	uint64_t mask = (len >= 64 ? ~0ull : ((1ull << len) - 1)) << pos;
	if (w < 64) mask &= (1ull << w) - 1;
	ValId m = asm_k_int(a, ty->dt, (int64_t)mask);
	ValId r = asm_op2(a, TOP_OR, asm_op2(a, TOP_AND, b, asm_op1(a, TOP_NOT, m)),
	              asm_op2(a, TOP_AND, pos ? asm_op2(a, TOP_SHL, f, asm_k_int(a, ty->dt, pos)) : f, m));
	return asm_write_bits(a, in->opnd[0], r);
}

/* shf.{l,r}.{wrap,clamp}.b32 d, a, b, c: the funnel shift of the 64 bits
 * {b:a} by c (mod 32 for .wrap, at most 32 for .clamp); .l keeps the upper
 * word, .r the lower */
static bool insn_shf(Asm *a, const Insn *in, const PtxType *ty)
{
	bool left = has_mod(in, "l"), wrap = has_mod(in, "wrap");
	if (left == has_mod(in, "r") || wrap == has_mod(in, "clamp") || in->ntypes != 1 || strcmp(ty->name, "b32"))
		return asm_error(a, "'%s': shf is shf.{l,r}.{wrap,clamp}.b32", a->insn);
	if (in->nopnd != 4) return asm_error(a, "wrong number of operands for '%s'", in->base);
	PtxType u32 = {"u32", DT_U32, 1};
	ValId lo = asm_read_lane(a, in->opnd[1], &u32, 0), hi = asm_read_lane(a, in->opnd[2], &u32, 0);
	ValId n = asm_read_lane(a, in->opnd[3], &u32, 0);
	if (!lo || !hi || !n) return false;
	if (wrap) n = asm_op2(a, TOP_AND, n, asm_k_int(a, DT_U32, 31));
	else n = asm_sel(a, asm_cmp(a, PRED_GT, n, asm_k_int(a, DT_U32, 32)), asm_k_int(a, DT_U32, 32), n);
	ValId v = asm_op2(a, TOP_OR, asm_op2(a, TOP_SHL, asm_conv(a, hi, DT_U64, 0), asm_k_int(a, DT_U64, 32)),
	                  asm_conv(a, lo, DT_U64, 0));
	ValId n64 = asm_conv(a, n, DT_U64, 0);
	ValId r = left ? asm_op2(a, TOP_SHR, asm_op2(a, TOP_SHL, v, n64), asm_k_int(a, DT_U64, 32))
	               : asm_op2(a, TOP_SHR, v, n64);
	return asm_write_bits(a, in->opnd[0], asm_conv(a, r, DT_U32, 0));
}

/* Splits "add.rn.f32 $0, $1, $2" into an Insn (text modified in place). */
static bool parse_insn(Asm *a, char *t, Insn *in)
{
	memset(in, 0, sizeof *in);
	if (*t == '@') {
		t++;
		if (*t == '!') in->guard_neg = true, t++;
		size_t n = strcspn(t, " \t");
		if (!n || n >= ASM_NAME) return asm_error(a, "bad guard predicate%s", "");
		memcpy(in->guard, t, n);
		t += n;
		while (isspace((unsigned char)*t)) t++;
	}
	char *op = t;
	size_t n = strcspn(t, " \t");
	char *rest = t + n;
	if (*rest) *rest++ = 0;
	char *save = NULL;
	char *part = strtok_r(op, ".", &save);
	if (!part || strlen(part) >= sizeof in->base) return asm_error(a, "'%s' is not a PTX instruction", op);
	snprintf(in->base, sizeof in->base, "%s", part);
	while ((part = strtok_r(NULL, ".", &save))) {
		const PtxType *ty = asm_ptx_type(part);
		if (ty && in->ntypes < 3) in->types[in->ntypes++] = ty;
		else if (in->nmods < 8) in->mods[in->nmods++] = part;
	}
	/* operands: split at top-level commas */
	int depth = 0;
	char *start = rest;
	for (char *p = rest;; p++) {
		if (*p == '{') depth++;
		if (*p == '}') depth--;
		if ((*p == ',' && depth == 0) || !*p) {
			bool end = !*p;
			*p = 0;
			while (isspace((unsigned char)*start)) start++;
			char *e = start + strlen(start);
			while (e > start && isspace((unsigned char)e[-1])) *--e = 0;
			if (*start) {
				if (in->nopnd == ASM_MAX_OPNDS) return asm_error(a, "too many operands%s", "");
				in->opnd[in->nopnd++] = start;
			}
			if (end) break;
			start = p + 1;
		}
	}
	return true;
}

static bool declare_regs(Asm *a, char *t)
{
	/* .reg .TYPE name[, name...]  or  .reg .TYPE name<N> */
	char *p = t + 4;
	while (isspace((unsigned char)*p)) p++;
	if (*p != '.') return asm_error(a, "'.reg' needs a type%s", "");
	size_t n = strcspn(p + 1, " \t");
	char tn[16] = {0};
	if (n >= sizeof tn) return asm_error(a, "unknown register type%s", "");
	memcpy(tn, p + 1, n);
	const PtxType *ty = asm_ptx_type(tn);
	if (!ty) return asm_error(a, "unknown register type '.%s'", tn);
	char *save = NULL;
	for (char *name = strtok_r(p + 1 + n, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		while (isspace((unsigned char)*name)) name++;
		char *e = name + strlen(name);
		while (e > name && isspace((unsigned char)e[-1])) *--e = 0;
		char *lt = strchr(name, '<');
		if (lt) {
			int count = atoi(lt + 1);
			*lt = 0;
			if (count <= 0 || count > 64) return asm_error(a, "bad register count in '%s'", name);
			for (int i = 0; i < count; i++) {
				char nm[ASM_NAME + 8];
				snprintf(nm, sizeof nm, "%s%d", name, i);
				if (!asm_reg_declare(a, nm, asm_type_bits(ty))) return false;
			}
		} else if (*name && !asm_reg_declare(a, name, asm_type_bits(ty))) {
			return false;
		}
	}
	return true;
}

static bool translate(Asm *a, char *t)
{
	snprintf(a->insn, sizeof a->insn, "%s", t);
	if (!strncmp(t, ".reg", 4) && isspace((unsigned char)t[4])) return declare_regs(a, t);
	if (t[0] == '.') return asm_error(a, "directive '%s' is not translated", t);
	Insn in;
	if (!parse_insn(a, t, &in)) return false;
	if (strchr(in.base, ':')) return asm_error(a, "labels and branches are not translated%s", "");
	ValId old = 0;
	AsmReg *dst = NULL;
	if (in.guard[0]) {
		/* @p insn: the destination keeps its old value where p is false. A
		 * register not written yet holds unspecified bits in PTX; zero here, so
		 * complementary guards (@p mov $0, ..; @!p ex2 $0, ..) define it. */
		if (in.nopnd == 0 || !(dst = asm_reg_find(a, in.opnd[0])))
			return asm_error(a, "a guarded instruction must write a register declared here%s", "");
		old = dst->v ? dst->v : asm_k_int(a, asm_uint_of(dst->bits), 0);
	}
	const PtxType *ty = in.ntypes ? in.types[0] : NULL;
	const char *b = in.base;
	bool ok;
	for (int i = 0; i < in.ntypes; i++)
		if (asm_is_fp4(in.types[i]) && strcmp(b, "cvt"))
			return asm_error(a, "'%s': e2m1x2 is translated only in cvt", a->insn);
	if (!strcmp(b, "cvt")) ok = insn_cvt(a, &in);
	else if (!strcmp(b, "setp")) ok = insn_setp(a, &in);
	else if (!strcmp(b, "prmt")) ok = insn_prmt(a, &in);
	else if (!strcmp(b, "lop3")) ok = insn_lop3(a, &in);
	else if (!ty) return asm_error(a, "'%s' is not a PTX instruction tile translates (no type suffix)", in.base);
	else if (!strcmp(b, "mov") && in.nopnd == 2 && (in.opnd[0][0] == '{' || in.opnd[1][0] == '{'))
		ok = insn_mov_vector(a, &in, ty);
	else if (!strcmp(b, "bfe")) ok = insn_bfe(a, &in, ty);
	else if (!strcmp(b, "bfi")) ok = insn_bfi(a, &in, ty);
	else if (!strcmp(b, "shf")) ok = insn_shf(a, &in, ty);
	else if (!strcmp(b, "selp")) {
		PtxType pred = {"pred", DT_I1, 1};
		if (in.nopnd != 4) return asm_error(a, "'%s' takes four operands", a->insn);
		ValId c = asm_read_bits(a, in.opnd[3], &pred);
		ValId x = asm_read_bits(a, in.opnd[1], ty), y = asm_read_bits(a, in.opnd[2], ty);
		ok = c && x && y && asm_write_bits(a, in.opnd[0], asm_sel(a, c, x, y));
	} else if ((!strcmp(b, "mul") || !strcmp(b, "mad")) && !dtype_is_float(ty->dt) && !has_mod(&in, "lo"))
		ok = wide_mul(a, &in, ty);
	else {
		static const struct { const char *name; int nsrc; } arity[] = {
		    {"add", 2},  {"sub", 2},   {"mul", 2},  {"div", 2},  {"rem", 2},   {"min", 2},  {"max", 2},
		    {"and", 2},  {"or", 2},    {"xor", 2},  {"shl", 2},  {"shr", 2},   {"copysign", 2},
		    {"fma", 3},  {"mad", 3},   {"neg", 1},  {"abs", 1},  {"not", 1},   {"cnot", 1}, {"mov", 1},
		    {"sqrt", 1}, {"rsqrt", 1}, {"rcp", 1},  {"ex2", 1},  {"lg2", 1},   {"sin", 1},  {"cos", 1},
		    {"tanh", 1}, {"popc", 1},  {"clz", 1},
		};
		int nsrc = -1;
		for (size_t i = 0; i < COUNTOF(arity); i++)
			if (!strcmp(arity[i].name, b)) nsrc = arity[i].nsrc;
		if (nsrc < 0) return asm_error(a, "'%s' is not among the PTX instructions tile translates (docs/language.md lists them)", in.base);
		if (in.nopnd != nsrc + 1)
			return asm_error(a, "wrong number of operands for '%s'", in.base);
		if ((!strcmp(b, "shl") || !strcmp(b, "shr"))) {
			/* the shift amount is a .u32 */
			PtxType u32 = {"u32", DT_U32, 1};
			ValId x = asm_read_lane(a, in.opnd[1], ty, 0), n = asm_read_lane(a, in.opnd[2], &u32, 0);
			ok = x && n && asm_write_bits(a, in.opnd[0], shift(a, b[2] == 'l', ty->dt, x, n));
		} else if (!strcmp(b, "popc") || !strcmp(b, "clz")) {
			ValId x = asm_read_lane(a, in.opnd[1], ty, 0), r = x ? arith(a, &in, ty->dt, &x) : 0;
			ok = r && asm_write_bits(a, in.opnd[0], r);
		} else {
			ValId r = lanewise(a, &in, ty, 1, nsrc, arith);
			ok = r && asm_write_bits(a, in.opnd[0], r);
		}
	}
	if (!ok) return false;
	if (in.guard[0]) {
		PtxType pred = {"pred", DT_I1, 1};
		ValId p = asm_read_bits(a, in.guard, &pred);
		if (!p) return false;
		dst->v = in.guard_neg ? asm_sel(a, p, old, dst->v) : asm_sel(a, p, dst->v, old);
	}
	return true;
}

/* Strips comments; true if text remains. */
static void strip_comments(char *t)
{
	for (char *p = t; *p; p++) {
		if (p[0] == '/' && p[1] == '/') {
			char *e = strchr(p, '\n');
			size_t n = e ? (size_t)(e - p) : strlen(p);
			memset(p, ' ', n);
		} else if (p[0] == '/' && p[1] == '*') {
			char *e = strstr(p + 2, "*/");
			size_t n = e ? (size_t)(e + 2 - p) : strlen(p);
			memset(p, ' ', n);
		}
	}
}

/* '}' ends the innermost scope: its registers are gone */
static bool close_scope(Asm *a)
{
	if (!a->depth) return asm_error(a, "'}' closes no '{'%s (ptxas: syntax error)", "");
	while (a->nregs && a->regs[a->nregs - 1].depth == a->depth) a->nregs--;
	a->depth--;
	return true;
}

/* Statements, each ended by ';', in { } scopes that may nest: what ptxas
 * would reject (a brace without its pair, a '}' right after an instruction,
 * a register used outside its scope) is an error here too. */
bool asm_translate_all(Asm *a, const char *text)
{
	char *buf = xstrdup(text);
	strip_comments(buf);
	bool ok = true;
	char *save = NULL;
	for (char *st = strtok_r(buf, ";", &save); st && ok; st = strtok_r(NULL, ";", &save)) {
		for (char *p = st; *p; p++)
			if (*p == '\n' || *p == '\t' || *p == '\r') *p = ' ';
		for (;; st++) { /* the braces before the statement open and close scopes */
			while (isspace((unsigned char)*st)) st++;
			snprintf(a->insn, sizeof a->insn, "%s", st);
			if (*st == '{') a->depth++;
			else if (*st != '}') break;
			else if (!(ok = close_scope(a))) goto out;
		}
		char *e = st + strlen(st);
		while (e > st && isspace((unsigned char)e[-1])) *--e = 0;
		/* the rest's braces are a vector operand's, {a, b} */
		int open = 0;
		for (char *p = st; *p && open >= 0; p++) open += (*p == '{') - (*p == '}');
		if (open) {
			ok = asm_error(a, open < 0 ? "'}' needs a ';' before it%s (ptxas: syntax error)"
						   : "'{' without its '}' in a statement%s",
				       "");
			break;
		}
		if (*st) ok = translate(a, st);
	}
	if (ok && a->depth) {
		snprintf(a->insn, sizeof a->insn, "%s", text);
		ok = asm_error(a, "'{' without its '}'%s (ptxas: syntax error)", "");
	}
out:
	a->depth = 0;
	free(buf);
	return ok;
}

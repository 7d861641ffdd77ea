/* asm_regs.c: tl.inline_asm_elementwise's PTX types, registers and
 * operands, and the small IR helpers the instructions are written with (the
 * model is at the top of builtins_asm.c). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "sema/asm_int.h"

/* ---- types ------------------------------------------------------------------ */

static const PtxType ptx_types[] = {
    {"f32", DT_F32, 1},   {"f64", DT_F64, 1},   {"f16", DT_F16, 1},       {"bf16", DT_BF16, 1},
    {"f16x2", DT_F16, 2}, {"bf16x2", DT_BF16, 2}, {"e4m3x2", DT_F8E4M3, 2}, {"e5m2x2", DT_F8E5M2, 2},
    {"s8", DT_I8, 1},     {"s16", DT_I16, 1},   {"s32", DT_I32, 1},       {"s64", DT_I64, 1},
    {"u8", DT_U8, 1},     {"u16", DT_U16, 1},   {"u32", DT_U32, 1},       {"u64", DT_U64, 1},
    {"b8", DT_U8, 1},     {"b16", DT_U16, 1},   {"b32", DT_U32, 1},       {"b64", DT_U64, 1},
    {"pred", DT_I1, 1},   {"e2m1x2", DT_U8, 2},
};

const PtxType *asm_ptx_type(const char *name)
{
	for (size_t i = 0; i < COUNTOF(ptx_types); i++)
		if (!strcmp(ptx_types[i].name, name)) return &ptx_types[i];
	return NULL;
}

/* e2m1x2: two 4-bit e2m1 (fp4) lanes in a byte, which no dtype holds (dt is unused) */
bool asm_is_fp4(const PtxType *t) { return t->name && !strcmp(t->name, "e2m1x2"); }

int asm_type_bits(const PtxType *t)
{
	return asm_is_fp4(t) ? 4 * t->lanes : t->dt == DT_I1 ? 1 : dtype_bits(t->dt) * t->lanes;
}

DType asm_uint_of(int bits)
{
	switch (bits) {
	case 1: return DT_I1;
	case 8: return DT_U8;
	case 16: return DT_U16;
	case 32: return DT_U32;
	default: return DT_U64;
	}
}

Type asm_tile_of(Asm *a, DType dt) { return type_tile(type_scalar(dt), a->rank, a->shape); }

bool asm_error(Asm *a, const char *fmt, const char *arg)
{
	char msg[256];
	snprintf(msg, sizeof msg, fmt, arg);
	if (strstr(msg, a->insn)) diag_error(a->s->d, a->loc, "inline_asm_elementwise: %s", msg);
	else diag_error(a->s->d, a->loc, "inline_asm_elementwise: %s (in '%s')", msg, a->insn);
	return false;
}

/* ---- small IR helpers on register-shaped values ------------------------------------------- */

ValId asm_k_int(Asm *a, DType dt, int64_t v) { return emit_const(a->s, asm_tile_of(a, dt), v, (double)v, a->loc); }
ValId asm_k_flt(Asm *a, DType dt, double v) { return emit_const(a->s, asm_tile_of(a, dt), 0, v, a->loc); }

ValId asm_op2(Asm *a, TirOpKind k, ValId x, ValId y)
{
	ValId in[2] = {x, y};
	return emit(a->s, k, a->loc, in, 2, vtype(a->s, x));
}

ValId asm_op1(Asm *a, TirOpKind k, ValId x) { return emit(a->s, k, a->loc, &x, 1, vtype(a->s, x)); }

ValId asm_math1(Asm *a, MathFn m, ValId x)
{
	TirOp *op = emit_op(a->s, TOP_MATH, a->loc, &x, 1, vtype(a->s, x));
	op->attr.math = m;
	return op->results[0];
}

ValId asm_cmp(Asm *a, TirPred p, ValId x, ValId y)
{
	ValId in[2] = {x, y};
	Type t = vtype(a->s, x);
	TirOp *op = emit_op(a->s, TOP_CMP, a->loc, in, 2, type_tile(type_scalar(DT_I1), t.rank, t.shape));
	op->attr.pred = p;
	return op->results[0];
}

ValId asm_sel(Asm *a, ValId c, ValId x, ValId y)
{
	ValId in[3] = {c, x, y};
	return emit(a->s, TOP_SELECT, a->loc, in, 3, vtype(a->s, x));
}

ValId asm_conv(Asm *a, ValId x, DType dt, int flags)
{
	Type t = vtype(a->s, x);
	if (t.dt == dt) return x;
	TirOp *op = emit_op(a->s, TOP_CAST, a->loc, &x, 1, type_tile(type_scalar(dt), t.rank, t.shape));
	op->attr.flags = flags;
	return op->results[0];
}

ValId asm_bitc(Asm *a, ValId x, DType dt)
{
	Type t = vtype(a->s, x);
	if (t.dt == dt) return x;
	if (dt == DT_I1) return asm_cmp(a, PRED_NE, x, asm_k_int(a, (DType)t.dt, 0));
	if (t.dt == DT_I1) return asm_conv(a, x, dt, 0);
	TirVal *v = tir_val(a->s->f, x);
	if (v->def && v->def->kind == TOP_BITCAST && vtype(a->s, v->def->operands[0]).dt == dt)
		return v->def->operands[0]; /* the bits back as they were */
	return emit(a->s, TOP_BITCAST, a->loc, &x, 1, type_tile(type_scalar(dt), t.rank, t.shape));
}

/* the unsigned integer of `bits` bits of x (zero-extended or truncated) */
ValId asm_resize(Asm *a, ValId x, int bits)
{
	Type t = vtype(a->s, x);
	DType u = asm_uint_of(dtype_bits((DType)t.dt));
	x = asm_bitc(a, x, u);
	return asm_conv(a, x, asm_uint_of(bits), 0);
}

/* lane i of the `lanes` equal parts of the bits x, as dtype dt */
ValId asm_lane_of(Asm *a, ValId x, int lanes, int i, DType dt)
{
	if (lanes == 1) return asm_bitc(a, x, dt);
	int w = dtype_bits(dt);
	DType u = (DType)vtype(a->s, x).dt;
	if (i) x = asm_op2(a, TOP_SHR, x, asm_k_int(a, u, (int64_t)i * w));
	return asm_bitc(a, asm_conv(a, x, asm_uint_of(w), 0), dt);
}

/* the bits of lanes v[0..n) put together, v[0] lowest */
ValId asm_join_lanes(Asm *a, const ValId *v, int n)
{
	if (n == 1) return asm_resize(a, v[0], dtype_bits((DType)vtype(a->s, v[0]).dt));
	int w = dtype_bits((DType)vtype(a->s, v[0]).dt);
	DType u = asm_uint_of(w * n);
	ValId r = 0;
	for (int i = 0; i < n; i++) {
		ValId b = asm_resize(a, v[i], w * n);
		if (i) b = asm_op2(a, TOP_SHL, b, asm_k_int(a, u, (int64_t)i * w));
		r = r ? asm_op2(a, TOP_OR, r, b) : b;
	}
	return r;
}

/* ---- registers and operands ------------------------------------------------------------------ */

/* the innermost register of that name in the scopes open */
AsmReg *asm_reg_find(Asm *a, const char *name)
{
	for (int i = a->nregs; i-- > 0;)
		if (!strcmp(a->regs[i].name, name)) return &a->regs[i];
	return NULL;
}

/* A name declared twice in one scope is ptxas's "Duplicate definition"; in
 * an inner scope it shadows the outer register until the scope's '}'. */
bool asm_reg_declare(Asm *a, const char *name, int bits)
{
	if (strlen(name) >= ASM_NAME) return asm_error(a, "register name '%s' is too long", name);
	if (a->nregs == ASM_MAX_REGS) return asm_error(a, "more than %s registers", "96");
	AsmReg *r = asm_reg_find(a, name);
	if (r && r->depth == a->depth)
		return asm_error(a, "register '%s' is declared twice in one scope (ptxas: duplicate definition)", name);
	r = &a->regs[a->nregs++];
	snprintf(r->name, sizeof r->name, "%s", name);
	r->bits = bits;
	r->v = 0;
	r->depth = a->depth;
	return true;
}

/* The digits of base `base` at p, up to *end: false when there are none or
 * the value passes 64 bits (ptxas: "Constant overflow"). strtoull would take
 * a sign or white space after 0x and saturate. */
static bool parse_digits(const char *p, int base, uint64_t *v, const char **end)
{
	uint64_t r = 0;
	const char *q = p;
	for (;; q++) {
		int c = (unsigned char)*q;
		int d = isdigit(c) ? c - '0' : isxdigit(c) ? tolower(c) - 'a' + 10 : -1;
		if (d < 0 || d >= base) break;
		if (r > (UINT64_MAX - (uint64_t)d) / (uint64_t)base) return false;
		r = r * (uint64_t)base + (uint64_t)d;
	}
	*v = r;
	*end = q;
	return q > p;
}

/* Parses a PTX integer or float literal: *is_float, and the value (a float
 * literal, 0f and 8 hex digits or 0d and 16, gives its bits in *bits).
 * Integers are PTX's: 0x hex, 0b binary, 0 and octal digits (010 is 8), else
 * decimal, with an optional U. */
static bool parse_literal(const char *t, int64_t *iv, double *fv, bool *is_float, uint64_t *bits, int *lit_bits)
{
	*lit_bits = 0;
	*is_float = false;
	const char *p = t;
	bool neg = *p == '-';
	if (neg) p++;
	if ((p[0] == '0') && (p[1] == 'f' || p[1] == 'F' || p[1] == 'd' || p[1] == 'D')) {
		const char *end;
		uint64_t v;
		bool dbl = p[1] == 'd' || p[1] == 'D';
		if (!parse_digits(p + 2, 16, &v, &end) || *end || (size_t)(end - (p + 2)) != (dbl ? 16u : 8u))
			return false;
		*is_float = true;
		*lit_bits = dbl ? 64 : 32;
		*bits = v;
		if (dbl) {
			double d;
			memcpy(&d, &v, 8);
			*fv = neg ? -d : d;
		} else {
			uint32_t b = (uint32_t)v;
			float f;
			memcpy(&f, &b, 4);
			*fv = neg ? -(double)f : (double)f;
		}
		if (neg) *bits ^= dbl ? 0x8000000000000000ull : 0x80000000ull;
		return true;
	}
	if (!isdigit((unsigned char)*p)) return false;
	const char *end;
	size_t ndec = strspn(p, "0123456789");
	if (p[ndec] == '.' || p[ndec] == 'e' || p[ndec] == 'E') {
		char *fend;
		*fv = strtod(p, &fend);
		*iv = 0;
		*is_float = true;
		end = fend;
	} else {
		int base = 10;
		const char *d = p;
		if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) base = 16, d = p + 2;
		else if (p[0] == '0' && (p[1] == 'b' || p[1] == 'B')) base = 2, d = p + 2;
		else if (p[0] == '0' && isdigit((unsigned char)p[1])) base = 8, d = p + 1;
		uint64_t u;
		if (!parse_digits(d, base, &u, &end)) return false;
		*iv = (int64_t)u;
	}
	if (*end == 'U' || *end == 'u') end++;
	if (*end) return false;
	if (neg) *iv = (int64_t)(0 - (uint64_t)*iv), *fv = -*fv; /* -0x8000000000000000 too */
	if (!*is_float) *fv = (double)*iv;
	return true;
}

/* an integer literal operand (a selector, a lookup table, a bit field) */
bool asm_int_literal(const char *t, int64_t *out)
{
	double fv;
	bool isf;
	int lb;
	uint64_t fb;
	return parse_literal(t, out, &fv, &isf, &fb, &lb) && !isf;
}

/* `%0`: an operand in GCC's spelling, which Triton's inline asm (LLVM's)
 * writes $0; PTX has no register of that name */
static bool gcc_operand(Asm *a, const char *t)
{
	if (t[0] != '%' || !isdigit((unsigned char)t[1])) return false;
	for (const char *p = t + 1; *p; p++)
		if (!isdigit((unsigned char)*p)) return false;
	asm_error(a, "'%s' names no register: the operands of inline_asm_elementwise are $0, $1, ... (LLVM's "
		     "spelling, as in Triton)", t);
	return true;
}

/* The operand text read as `bits` raw bits (an unsigned integer value, or an
 * i1 for a predicate); float literals need the type to be a float one. */
ValId asm_read_bits(Asm *a, const char *t, const PtxType *ty)
{
	int bits = asm_type_bits(ty);
	AsmReg *r = asm_reg_find(a, t);
	if (r) {
		if (!r->v) {
			asm_error(a, "register '%s' is read before it is written", t);
			return 0;
		}
		if (r->bits == 1 || bits == 1) {
			if ((r->bits == 1) != (bits == 1)) {
				asm_error(a, "'%s' mixes a predicate and a data register", t);
				return 0;
			}
			return r->v;
		}
		return asm_resize(a, r->v, bits);
	}
	if (gcc_operand(a, t)) return 0;
	if (t[0] == '%') {
		asm_error(a, "'%s' is a special register, which has no value outside a GPU thread", t);
		return 0;
	}
	int64_t iv = 0;
	double fv = 0;
	bool is_float;
	int lit_bits;
	uint64_t fbits = 0;
	if (!parse_literal(t, &iv, &fv, &is_float, &fbits, &lit_bits)) {
		asm_error(a, "'%s' is not a register declared here or a literal", t);
		return 0;
	}
	if (bits == 1) return asm_k_int(a, DT_I1, iv != 0);
	if (lit_bits == bits) /* 0f/0d literal of the register's width: its bits */
		return asm_k_int(a, asm_uint_of(bits), (int64_t)fbits);
	if (dtype_is_float(ty->dt) && ty->lanes == 1)
		return asm_bitc(a, asm_k_flt(a, ty->dt, fv), asm_uint_of(bits));
	if (is_float) {
		asm_error(a, "float literal '%s' used as an integer", t);
		return 0;
	}
	return asm_k_int(a, asm_uint_of(bits), iv);
}

/* the operand as lane i of type ty (its dtype) */
ValId asm_read_lane(Asm *a, const char *t, const PtxType *ty, int i)
{
	ValId b = asm_read_bits(a, t, ty);
	return b ? asm_lane_of(a, b, ty->lanes, i, ty->dt) : 0;
}

bool asm_write_bits(Asm *a, const char *t, ValId v)
{
	AsmReg *r = asm_reg_find(a, t);
	if (!r && gcc_operand(a, t)) return false;
	if (!r) return asm_error(a, "'%s' is not a register declared here", t);
	int bits = r->bits;
	DType vd = (DType)vtype(a->s, v).dt;
	/* a signed integer result in a wider register is sign-extended, as PTX
	 * does for a destination wider than the instruction type (cvt.rni.sat.s8.f32
	 * of -2 into a .b32 register is 0xfffffffe, not 0xfe) */
	if (bits > 1 && dtype_is_int(vd) && dtype_is_signed(vd) && dtype_bits(vd) < bits)
		v = asm_conv(a, v, bits == 16 ? DT_I16 : bits == 32 ? DT_I32 : DT_I64, 0);
	r->v = bits == 1 ? asm_bitc(a, v, DT_I1) : asm_resize(a, v, bits);
	return true;
}

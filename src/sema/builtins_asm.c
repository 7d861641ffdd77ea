/* builtins_asm.c: tl.inline_asm_elementwise, by translating the PTX.
 *
 * Kernels use inline PTX for single instructions C has no spelling for
 * (tanh.approx.f32, cvt.rn.f16x2.f32, prmt.b32, lop3.b32, div.rn.f32, ...).
 * tile runs a kernel on the CPU and on NVIDIA GPUs from one Tile IR, so
 * instead of pasting the text into the CUDA C it translates each instruction
 * into Tile IR ops here, once: the kernel then runs (and is checked) the same
 * on every target. An instruction outside the translated set is an error that
 * names it; nothing is passed through unchecked.
 *
 * The model: every PTX register ($N operands and .reg temporaries) is an IR
 * value of the packed shape holding the register's bits as an unsigned
 * integer (a predicate is an i1). An instruction reads its operands as the
 * type its suffix names (bitcast), computes with ordinary ops and writes the
 * bits back. .f16x2-style types run the op on each half. With pack = P, the
 * operands' last axis is cut into groups of P consecutive elements, and each
 * group is one register (element 0 in the low bits), as Triton packs a
 * thread's consecutive registers.
 *
 * Approximate instructions (.approx, .ftz) are computed exactly: the results
 * are at least as accurate as the hardware's. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "sema/sema_int.h"

enum { ASM_MAX_REGS = 96, ASM_MAX_OPNDS = 8, ASM_NAME = 32 };

typedef struct {
	char name[ASM_NAME]; /* "$0", "tmp", "%r3" */
	int bits;            /* 1 for .pred */
	ValId v;             /* the register's bits; 0 until written */
	int depth;           /* the { } scope that declared it (0: the operands') */
} AsmReg;

typedef struct {
	Sema *s;
	SrcLoc loc;
	int rank;                     /* the packed shape of every register value */
	int32_t shape[TIR_MAX_RANK];
	AsmReg regs[ASM_MAX_REGS]; /* in declaration order: an inner scope's last */
	int nregs;
	int depth;                    /* { } scopes open */
	char insn[96];                /* the instruction being translated, for messages */
} Asm;

/* ---- types ------------------------------------------------------------------ */

typedef struct {
	const char *name;
	DType dt;  /* one lane's dtype */
	int lanes; /* 2 for the packed x2 types */
} PtxType;

static const PtxType ptx_types[] = {
    {"f32", DT_F32, 1},   {"f64", DT_F64, 1},   {"f16", DT_F16, 1},       {"bf16", DT_BF16, 1},
    {"f16x2", DT_F16, 2}, {"bf16x2", DT_BF16, 2}, {"e4m3x2", DT_F8E4M3, 2}, {"e5m2x2", DT_F8E5M2, 2},
    {"s8", DT_I8, 1},     {"s16", DT_I16, 1},   {"s32", DT_I32, 1},       {"s64", DT_I64, 1},
    {"u8", DT_U8, 1},     {"u16", DT_U16, 1},   {"u32", DT_U32, 1},       {"u64", DT_U64, 1},
    {"b8", DT_U8, 1},     {"b16", DT_U16, 1},   {"b32", DT_U32, 1},       {"b64", DT_U64, 1},
    {"pred", DT_I1, 1},   {"e2m1x2", DT_U8, 2},
};

static const PtxType *ptx_type(const char *name)
{
	for (size_t i = 0; i < COUNTOF(ptx_types); i++)
		if (!strcmp(ptx_types[i].name, name)) return &ptx_types[i];
	return NULL;
}

/* e2m1x2: two 4-bit e2m1 (fp4) lanes in a byte, which no dtype holds (dt is unused) */
static bool is_fp4(const PtxType *t) { return t->name && !strcmp(t->name, "e2m1x2"); }

static int type_bits(const PtxType *t)
{
	return is_fp4(t) ? 4 * t->lanes : t->dt == DT_I1 ? 1 : dtype_bits(t->dt) * t->lanes;
}

static DType uint_of(int bits)
{
	switch (bits) {
	case 1: return DT_I1;
	case 8: return DT_U8;
	case 16: return DT_U16;
	case 32: return DT_U32;
	default: return DT_U64;
	}
}

static Type tile_of(Asm *a, DType dt) { return type_tile(type_scalar(dt), a->rank, a->shape); }

static bool asm_error(Asm *a, const char *fmt, const char *arg)
{
	char msg[256];
	snprintf(msg, sizeof msg, fmt, arg);
	if (strstr(msg, a->insn)) diag_error(a->s->d, a->loc, "inline_asm_elementwise: %s", msg);
	else diag_error(a->s->d, a->loc, "inline_asm_elementwise: %s (in '%s')", msg, a->insn);
	return false;
}

/* ---- small IR helpers on register-shaped values ------------------------------------------- */

static ValId k_int(Asm *a, DType dt, int64_t v) { return emit_const(a->s, tile_of(a, dt), v, (double)v, a->loc); }
static ValId k_flt(Asm *a, DType dt, double v) { return emit_const(a->s, tile_of(a, dt), 0, v, a->loc); }

static ValId op2(Asm *a, TirOpKind k, ValId x, ValId y)
{
	ValId in[2] = {x, y};
	return emit(a->s, k, a->loc, in, 2, vtype(a->s, x));
}

static ValId op1(Asm *a, TirOpKind k, ValId x) { return emit(a->s, k, a->loc, &x, 1, vtype(a->s, x)); }

static ValId math1(Asm *a, MathFn m, ValId x)
{
	TirOp *op = emit_op(a->s, TOP_MATH, a->loc, &x, 1, vtype(a->s, x));
	op->attr.math = m;
	return op->results[0];
}

static ValId cmp(Asm *a, TirPred p, ValId x, ValId y)
{
	ValId in[2] = {x, y};
	Type t = vtype(a->s, x);
	TirOp *op = emit_op(a->s, TOP_CMP, a->loc, in, 2, type_tile(type_scalar(DT_I1), t.rank, t.shape));
	op->attr.pred = p;
	return op->results[0];
}

static ValId sel(Asm *a, ValId c, ValId x, ValId y)
{
	ValId in[3] = {c, x, y};
	return emit(a->s, TOP_SELECT, a->loc, in, 3, vtype(a->s, x));
}

static ValId conv(Asm *a, ValId x, DType dt, int flags)
{
	Type t = vtype(a->s, x);
	if (t.dt == dt) return x;
	TirOp *op = emit_op(a->s, TOP_CAST, a->loc, &x, 1, type_tile(type_scalar(dt), t.rank, t.shape));
	op->attr.flags = flags;
	return op->results[0];
}

static ValId bitc(Asm *a, ValId x, DType dt)
{
	Type t = vtype(a->s, x);
	if (t.dt == dt) return x;
	if (dt == DT_I1) return cmp(a, PRED_NE, x, k_int(a, (DType)t.dt, 0));
	if (t.dt == DT_I1) return conv(a, x, dt, 0);
	TirVal *v = tir_val(a->s->f, x);
	if (v->def && v->def->kind == TOP_BITCAST && vtype(a->s, v->def->operands[0]).dt == dt)
		return v->def->operands[0]; /* the bits back as they were */
	return emit(a->s, TOP_BITCAST, a->loc, &x, 1, type_tile(type_scalar(dt), t.rank, t.shape));
}

/* the unsigned integer of `bits` bits of x (zero-extended or truncated) */
static ValId resize(Asm *a, ValId x, int bits)
{
	Type t = vtype(a->s, x);
	DType u = uint_of(dtype_bits((DType)t.dt));
	x = bitc(a, x, u);
	return conv(a, x, uint_of(bits), 0);
}

/* lane i of the `lanes` equal parts of the bits x, as dtype dt */
static ValId lane_of(Asm *a, ValId x, int lanes, int i, DType dt)
{
	if (lanes == 1) return bitc(a, x, dt);
	int w = dtype_bits(dt);
	DType u = (DType)vtype(a->s, x).dt;
	if (i) x = op2(a, TOP_SHR, x, k_int(a, u, (int64_t)i * w));
	return bitc(a, conv(a, x, uint_of(w), 0), dt);
}

/* the bits of lanes v[0..n) put together, v[0] lowest */
static ValId join_lanes(Asm *a, const ValId *v, int n)
{
	if (n == 1) return resize(a, v[0], dtype_bits((DType)vtype(a->s, v[0]).dt));
	int w = dtype_bits((DType)vtype(a->s, v[0]).dt);
	DType u = uint_of(w * n);
	ValId r = 0;
	for (int i = 0; i < n; i++) {
		ValId b = resize(a, v[i], w * n);
		if (i) b = op2(a, TOP_SHL, b, k_int(a, u, (int64_t)i * w));
		r = r ? op2(a, TOP_OR, r, b) : b;
	}
	return r;
}

/* ---- registers and operands ------------------------------------------------------------------ */

/* the innermost register of that name in the scopes open */
static AsmReg *reg_find(Asm *a, const char *name)
{
	for (int i = a->nregs; i-- > 0;)
		if (!strcmp(a->regs[i].name, name)) return &a->regs[i];
	return NULL;
}

/* A name declared twice in one scope is ptxas's "Duplicate definition"; in
 * an inner scope it shadows the outer register until the scope's '}'. */
static bool reg_declare(Asm *a, const char *name, int bits)
{
	if (strlen(name) >= ASM_NAME) return asm_error(a, "register name '%s' is too long", name);
	if (a->nregs == ASM_MAX_REGS) return asm_error(a, "more than %s registers", "96");
	AsmReg *r = reg_find(a, name);
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
static bool int_literal(const char *t, int64_t *out)
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
static ValId read_bits(Asm *a, const char *t, const PtxType *ty)
{
	int bits = type_bits(ty);
	AsmReg *r = reg_find(a, t);
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
		return resize(a, r->v, bits);
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
	if (bits == 1) return k_int(a, DT_I1, iv != 0);
	if (lit_bits == bits) /* 0f/0d literal of the register's width: its bits */
		return k_int(a, uint_of(bits), (int64_t)fbits);
	if (dtype_is_float(ty->dt) && ty->lanes == 1)
		return bitc(a, k_flt(a, ty->dt, fv), uint_of(bits));
	if (is_float) {
		asm_error(a, "float literal '%s' used as an integer", t);
		return 0;
	}
	return k_int(a, uint_of(bits), iv);
}

/* the operand as lane i of type ty (its dtype) */
static ValId read_lane(Asm *a, const char *t, const PtxType *ty, int i)
{
	ValId b = read_bits(a, t, ty);
	return b ? lane_of(a, b, ty->lanes, i, ty->dt) : 0;
}

static bool write_bits(Asm *a, const char *t, ValId v)
{
	AsmReg *r = reg_find(a, t);
	if (!r && gcc_operand(a, t)) return false;
	if (!r) return asm_error(a, "'%s' is not a register declared here", t);
	int bits = r->bits;
	r->v = bits == 1 ? bitc(a, v, DT_I1) : resize(a, v, bits);
	return true;
}

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

/* float result clamped to [0, 1] (.sat), NaN to 0 */
static ValId saturate(Asm *a, ValId x)
{
	DType d = (DType)vtype(a->s, x).dt;
	ValId lo = k_flt(a, d, 0.0), hi = k_flt(a, d, 1.0);
	ValId c = sel(a, cmp(a, PRED_LT, x, hi), x, hi);
	c = sel(a, cmp(a, PRED_GT, c, lo), c, lo);
	return c;
}

/* An arithmetic op of one type on every lane; 0 after an error. */
static ValId lanewise(Asm *a, const Insn *in, const PtxType *ty, int first, int nsrc,
                      ValId (*fn)(Asm *, const Insn *, DType, ValId *))
{
	ValId out[2];
	for (int l = 0; l < ty->lanes; l++) {
		ValId x[4];
		for (int i = 0; i < nsrc; i++)
			if (!(x[i] = read_lane(a, in->opnd[first + i], ty, l))) return 0;
		if (!(out[l] = fn(a, in, ty->dt, x))) return 0;
		if (dtype_is_float(ty->dt) && has_mod(in, "sat")) out[l] = saturate(a, out[l]);
	}
	return join_lanes(a, out, ty->lanes);
}

/* shifts clamp their amount as PTX does: past the width, shl gives 0 and shr
 * gives 0 or the sign */
static ValId shift(Asm *a, bool left, DType dt, ValId x, ValId amount)
{
	int w = dtype_bits(dt);
	ValId n = conv(a, amount, dt, 0);
	ValId big = cmp(a, PRED_GE, conv(a, amount, DT_U32, 0), k_int(a, DT_U32, w));
	ValId safe = sel(a, big, k_int(a, dt, w - 1), n);
	ValId r = op2(a, left ? TOP_SHL : TOP_SHR, x, safe);
	if (left || !dtype_is_signed(dt)) r = sel(a, big, k_int(a, dt, 0), r);
	return r;
}

/* min/max, with .NaN (a NaN operand gives NaN, not the other operand) and
 * .xorsign.abs (of |x| and |y|, the result's sign the xor of theirs) */
static ValId minmax(Asm *a, const Insn *in, bool is_max, DType dt, ValId *x)
{
	bool xs = dtype_is_float(dt) && has_mod(in, "xorsign");
	ValId in2[2] = {xs ? math1(a, MATH_ABS, x[0]) : x[0], xs ? math1(a, MATH_ABS, x[1]) : x[1]};
	TirOp *op = emit_op(a->s, is_max ? TOP_MAX : TOP_MIN, a->loc, in2, 2, vtype(a->s, x[0]));
	if (dtype_is_float(dt) && has_mod(in, "NaN")) op->attr.flags |= TIR_PROPAGATE_NAN;
	ValId r = op->results[0];
	if (!xs) return r;
	DType it = dtype_bits(dt) == 64 ? DT_U64 : dtype_bits(dt) == 32 ? DT_U32 : DT_U16;
	ValId sign = op2(a, TOP_AND, op2(a, TOP_XOR, bitc(a, x[0], it), bitc(a, x[1], it)),
			 k_int(a, it, (int64_t)1 << (dtype_bits(dt) - 1)));
	return bitc(a, op2(a, TOP_OR, bitc(a, r, it), sign), dt);
}

static ValId arith(Asm *a, const Insn *in, DType dt, ValId *x)
{
	const char *b = in->base;
	bool fl = dtype_is_float(dt);
	if (!strcmp(b, "add")) return op2(a, TOP_ADD, x[0], x[1]);
	if (!strcmp(b, "sub")) return op2(a, TOP_SUB, x[0], x[1]);
	if (!strcmp(b, "mul") && (fl || has_mod(in, "lo"))) return op2(a, TOP_MUL, x[0], x[1]);
	if (!strcmp(b, "min") || !strcmp(b, "max")) return minmax(a, in, b[1] == 'a', dt, x);
	if (!strcmp(b, "neg")) return op1(a, TOP_NEG, x[0]);
	if (!strcmp(b, "abs")) return math1(a, MATH_ABS, x[0]);
	if (!strcmp(b, "and")) return op2(a, TOP_AND, x[0], x[1]);
	if (!strcmp(b, "or")) return op2(a, TOP_OR, x[0], x[1]);
	if (!strcmp(b, "xor")) return op2(a, TOP_XOR, x[0], x[1]);
	if (!strcmp(b, "not")) return op1(a, TOP_NOT, x[0]);
	if (!strcmp(b, "mov")) return x[0];
	if (!strcmp(b, "cnot")) return conv(a, cmp(a, PRED_EQ, x[0], k_int(a, dt, 0)), dt, 0);
	if (!strcmp(b, "rem") && !fl) return op2(a, TOP_REM, x[0], x[1]);
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
	if (!strcmp(b, "mad") && has_mod(in, "lo")) return op2(a, TOP_ADD, op2(a, TOP_MUL, x[0], x[1]), x[2]);
	if (fl) {
		static const struct { const char *name; MathFn fn; } m[] = {
		    {"sqrt", MATH_SQRT}, {"rsqrt", MATH_RSQRT}, {"ex2", MATH_EXP2}, {"lg2", MATH_LOG2},
		    {"sin", MATH_SIN},   {"cos", MATH_COS},     {"tanh", MATH_TANH},
		};
		for (size_t i = 0; i < COUNTOF(m); i++)
			if (!strcmp(b, m[i].name)) return math1(a, m[i].fn, x[0]);
		if (!strcmp(b, "rcp")) {
			ValId in2[2] = {k_flt(a, dt, 1.0), x[0]};
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
			return conv(a, math1(a, b[0] == 'p' ? MATH_POPC : MATH_CLZ, x[0]), DT_U32, 0);
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
		ValId x = read_lane(a, in->opnd[1], ty, 0), y = read_lane(a, in->opnd[2], ty, 0);
		if (!x || !y) return false;
		ValId r = op2(a, TOP_UMULHI, x, y);
		if (mad) {
			ValId c = read_lane(a, in->opnd[3], ty, 0);
			if (!c) return false;
			r = op2(a, TOP_ADD, r, c);
		}
		return write_bits(a, in->opnd[0], r);
	}
	DType wd = sgn ? (w == 32 ? DT_I64 : w == 16 ? DT_I32 : DT_I16) : uint_of(2 * w);
	ValId x = read_lane(a, in->opnd[1], ty, 0), y = read_lane(a, in->opnd[2], ty, 0);
	if (!x || !y) return false;
	ValId p = op2(a, TOP_MUL, conv(a, x, wd, 0), conv(a, y, wd, 0));
	if (hi) p = conv(a, op2(a, TOP_SHR, p, k_int(a, wd, w)), ty->dt, 0);
	if (mad) {
		PtxType cty = {NULL, hi ? ty->dt : wd, 1};
		ValId c = read_lane(a, in->opnd[3], &cty, 0);
		if (!c) return false;
		p = op2(a, TOP_ADD, p, c);
	}
	return write_bits(a, in->opnd[0], p);
}

/* cvt's rounding to an integral value (.rni/.rzi/.rmi/.rpi), if asked for */
static ValId round_integral(Asm *a, const Insn *in, ValId x)
{
	static const struct { const char *mod; MathFn fn; } rnd[] = {
	    {"rni", MATH_RINT}, {"rzi", MATH_TRUNC}, {"rmi", MATH_FLOOR}, {"rpi", MATH_CEIL}};
	for (size_t i = 0; i < COUNTOF(rnd); i++)
		if (has_mod(in, rnd[i].mod)) x = math1(a, rnd[i].fn, x);
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
	if (has_mod(in, "relu")) x = sel(a, cmp(a, PRED_GT, x, k_flt(a, (DType)vtype(a->s, x).dt, 0)), x,
	                                 k_flt(a, (DType)vtype(a->s, x).dt, 0));
	if (has_mod(in, "satfinite") && (to == DT_F8E4M3 || to == DT_F8E5M2 || to == DT_F16 || to == DT_BF16)) {
		double m = to == DT_F8E4M3 ? 448.0 : to == DT_F8E5M2 ? 57344.0 : to == DT_F16 ? 65504.0 : 3.3895313892515355e38;
		DType sd = (DType)vtype(a->s, x).dt;
		ValId hi = k_flt(a, sd, m), lo = k_flt(a, sd, -m);
		x = sel(a, cmp(a, PRED_GT, x, hi), hi, x);
		x = sel(a, cmp(a, PRED_LT, x, lo), lo, x);
	}
	return conv(a, x, to, flags);
}

/* The e2m1 (fp4) code in the low 4 bits of the u8 tile nib as an f32: sign, 2
 * exponent bits (bias 1) and 1 mantissa bit, so the magnitudes 0 0.5 1 1.5 2 3 4 6. */
static ValId e2m1_decode(Asm *a, ValId nib)
{
	ValId mag = op2(a, TOP_AND, nib, k_int(a, DT_U8, 7));
	ValId e = op2(a, TOP_SHR, mag, k_int(a, DT_U8, 1)), m = op2(a, TOP_AND, mag, k_int(a, DT_U8, 1));
	ValId sub = cmp(a, PRED_EQ, e, k_int(a, DT_U8, 0));
	/* twice the magnitude: m for a subnormal, else (2 + m) << (e - 1) */
	ValId sh = sel(a, sub, k_int(a, DT_U8, 0), op2(a, TOP_SUB, e, k_int(a, DT_U8, 1)));
	ValId q = sel(a, sub, m, op2(a, TOP_SHL, op2(a, TOP_ADD, m, k_int(a, DT_U8, 2)), sh));
	ValId f = op2(a, TOP_MUL, conv(a, q, DT_F32, 0), k_flt(a, DT_F32, 0.5));
	ValId neg = cmp(a, PRED_NE, op2(a, TOP_AND, nib, k_int(a, DT_U8, 8)), k_int(a, DT_U8, 0));
	return sel(a, neg, op2(a, TOP_MUL, f, k_flt(a, DT_F32, -1.0)), f);
}

/* The f32 tile x as an e2m1 code (u8, low 4 bits), rounded to nearest even and
 * saturated to +-6 (.satfinite); the format has no NaN, so NaN gives +6. */
static ValId e2m1_encode(Asm *a, const Insn *in, ValId x)
{
	if (has_mod(in, "relu")) x = sel(a, cmp(a, PRED_GT, x, k_flt(a, DT_F32, 0)), x, k_flt(a, DT_F32, 0));
	ValId ax = math1(a, MATH_ABS, x);
	/* the halfway points between neighbouring codes; a tie goes to the even code */
	static const struct { double at; bool tie_up; } step[] = {
	    {0.25, false}, {0.75, true}, {1.25, false}, {1.75, true}, {2.5, false}, {3.5, true}, {5.0, false}};
	ValId c = k_int(a, DT_U8, 0);
	for (size_t i = 0; i < COUNTOF(step); i++) {
		ValId up = cmp(a, step[i].tie_up ? PRED_GE : PRED_GT, ax, k_flt(a, DT_F32, step[i].at));
		c = op2(a, TOP_ADD, c, conv(a, up, DT_U8, 0));
	}
	ValId sign = conv(a, op2(a, TOP_SHR, bitc(a, x, DT_U32), k_int(a, DT_U32, 31)), DT_U8, 0);
	c = op2(a, TOP_OR, c, op2(a, TOP_SHL, sign, k_int(a, DT_U8, 3)));
	Type bt = vtype(a->s, x);
	TirOp *nan = emit_op(a->s, TOP_MATH, a->loc, &x, 1, type_tile(type_scalar(DT_I1), bt.rank, bt.shape));
	nan->attr.math = MATH_ISNAN;
	return sel(a, nan->results[0], k_int(a, DT_U8, 7), c);
}

/* cvt.rn{.relu}.f16x2.e2m1x2 d, a  and  cvt.rn.satfinite{.relu}.e2m1x2.f32 d, a, b:
 * lane 0 is the low half (of a for the first, of d for the second, from b) */
static bool insn_cvt_e2m1(Asm *a, const Insn *in, const PtxType *dt, const PtxType *st)
{
	ValId out[2];
	if (is_fp4(st)) {
		if (is_fp4(dt) || dt->dt != DT_F16 || dt->lanes != 2 || in->nopnd != 2)
			return asm_error(a, "'%s': only 'cvt.rn.f16x2.e2m1x2 d, a' is translated from e2m1x2", a->insn);
		ValId x = read_bits(a, in->opnd[1], st);
		if (!x) return false;
		for (int l = 0; l < 2; l++) {
			ValId nib = l ? op2(a, TOP_SHR, x, k_int(a, DT_U8, 4)) : x;
			out[l] = to_float(a, in, e2m1_decode(a, op2(a, TOP_AND, nib, k_int(a, DT_U8, 15))), DT_F16, 0);
		}
		return write_bits(a, in->opnd[0], join_lanes(a, out, 2));
	}
	if (st->dt != DT_F32 || st->lanes != 1 || in->nopnd != 3 || !has_mod(in, "satfinite"))
		return asm_error(a, "'%s': only 'cvt.rn.satfinite.e2m1x2.f32 d, a, b' is translated to e2m1x2", a->insn);
	for (int l = 0; l < 2; l++) {
		ValId x = read_lane(a, in->opnd[2 - l], st, 0);
		if (!x) return false;
		out[l] = e2m1_encode(a, in, x);
	}
	return write_bits(a, in->opnd[0], op2(a, TOP_OR, out[0], op2(a, TOP_SHL, out[1], k_int(a, DT_U8, 4))));
}

static bool insn_cvt(Asm *a, const Insn *in)
{
	int flags;
	/* the rounding first: an untranslated mode is the reason, not the types it comes with */
	if (!float_rounding(a, in, &flags)) return false;
	if (in->ntypes != 2) return asm_error(a, "'%s' needs a destination and a source type", a->insn);
	const PtxType *dt = in->types[0], *st = in->types[1];
	if (is_fp4(dt) || is_fp4(st)) return insn_cvt_e2m1(a, in, dt, st);
	bool df = dtype_is_float(dt->dt), sf = dtype_is_float(st->dt);
	ValId out[2];
	if (dt->lanes == 2 && st->lanes == 1) { /* cvt.rn.f16x2.f32 d, hi, lo */
		if (in->nopnd != 3) return asm_error(a, "'%s' takes a destination and two sources", a->insn);
		for (int l = 0; l < 2; l++) {
			ValId x = read_lane(a, in->opnd[2 - l], st, 0);
			if (!x) return false;
			out[l] = df && sf ? to_float(a, in, x, dt->dt, flags) : conv(a, x, dt->dt, 0);
		}
		return write_bits(a, in->opnd[0], join_lanes(a, out, 2));
	}
	if (in->nopnd != 2) return asm_error(a, "'%s' takes a destination and a source", a->insn);
	if (dt->lanes != st->lanes) return asm_error(a, "'%s': these packed types are not translated", a->insn);
	for (int l = 0; l < dt->lanes; l++) {
		ValId x = read_lane(a, in->opnd[1], st, l);
		if (!x) return false;
		if (df && sf && dt->dt == st->dt) {
			out[l] = round_integral(a, in, x);
		} else if (df) {
			out[l] = to_float(a, in, x, dt->dt, sf ? flags : 0);
		} else if (sf) {
			out[l] = float_to_int(a, in, x, dt->dt);
		} else {
			if (has_mod(in, "sat")) return asm_error(a, "'%s': saturating integer conversion is not translated", a->insn);
			out[l] = conv(a, x, dt->dt, 0);
		}
		if (df && has_mod(in, "sat")) out[l] = saturate(a, out[l]);
	}
	return write_bits(a, in->opnd[0], join_lanes(a, out, dt->lanes));
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
	ValId x = read_lane(a, in->opnd[1], ty, 0), y = read_lane(a, in->opnd[2], ty, 0);
	if (!x || !y) return false;
	ValId r;
	if (dtype_is_float(ty->dt)) {
		ValId un = op2(a, TOP_OR, cmp(a, PRED_NE, x, x), cmp(a, PRED_NE, y, y));
		if (num || nan_cmp) {
			r = num ? op1(a, TOP_NOT, un) : un;
		} else {
			r = cmp(a, cmps[which].p, x, y); /* ordered, except NE which is unordered */
			if (cmps[which].kind == 2) r = op2(a, TOP_OR, r, un);
			else if (cmps[which].p == PRED_NE) r = op2(a, TOP_AND, r, op1(a, TOP_NOT, un));
		}
	} else {
		if (which < 0) return asm_error(a, "'%s': unknown comparison", a->insn);
		if (cmps[which].kind == 1) {
			x = bitc(a, x, uint_of(dtype_bits(ty->dt)));
			y = bitc(a, y, uint_of(dtype_bits(ty->dt)));
		}
		r = cmp(a, cmps[which].p, x, y);
	}
	return write_bits(a, in->opnd[0], r);
}

/* prmt.b32 d, a, b, sel: byte i of d is byte (sel >> 4i) & 7 of {b, a}
 * (a in bytes 0-3), replicated sign when bit 3 of the nibble is set */
static bool insn_prmt(Asm *a, const Insn *in)
{
	if (in->nmods) return asm_error(a, "'%s': only the default prmt mode is translated", a->insn);
	PtxType b32 = {"b32", DT_U32, 1};
	int64_t s;
	if (in->nopnd != 4 || !int_literal(in->opnd[3], &s))
		return asm_error(a, "'%s': prmt's selector must be a literal", a->insn);
	ValId x = read_bits(a, in->opnd[1], &b32), y = read_bits(a, in->opnd[2], &b32);
	if (!x || !y) return false;
	ValId src = join_lanes(a, (ValId[]){x, y}, 2); /* u64: a low, b high */
	ValId r = 0;
	for (int i = 0; i < 4; i++) {
		int nib = (int)(s >> (4 * i)) & 0xf, idx = nib & 7;
		ValId byte = conv(a, op2(a, TOP_SHR, src, k_int(a, DT_U64, 8 * idx)), DT_U8, 0);
		if (nib & 8) { /* the byte's sign, replicated */
			ValId neg = cmp(a, PRED_GE, byte, k_int(a, DT_U8, 0x80));
			byte = sel(a, neg, k_int(a, DT_U8, 0xff), k_int(a, DT_U8, 0));
		}
		ValId w = conv(a, byte, DT_U32, 0);
		if (i) w = op2(a, TOP_SHL, w, k_int(a, DT_U32, 8 * i));
		r = r ? op2(a, TOP_OR, r, w) : w;
	}
	return write_bits(a, in->opnd[0], r);
}

/* lop3.b32 d, a, b, c, lut: bit k of d = bit (a_k*4 + b_k*2 + c_k) of lut */
static bool insn_lop3(Asm *a, const Insn *in)
{
	int64_t lut;
	if (in->nopnd != 5 || !int_literal(in->opnd[4], &lut))
		return asm_error(a, "'%s': lop3's lookup table must be a literal", a->insn);
	PtxType b32 = {"b32", DT_U32, 1};
	ValId v[3], nv[3];
	for (int i = 0; i < 3; i++) {
		if (!(v[i] = read_bits(a, in->opnd[1 + i], &b32))) return false;
		nv[i] = op1(a, TOP_NOT, v[i]);
	}
	ValId r = k_int(a, DT_U32, 0);
	for (int m = 0; m < 8; m++) {
		if (!((lut >> m) & 1)) continue;
		ValId t = op2(a, TOP_AND, (m & 4) ? v[0] : nv[0], (m & 2) ? v[1] : nv[1]);
		r = op2(a, TOP_OR, r, op2(a, TOP_AND, t, (m & 1) ? v[2] : nv[2]));
	}
	return write_bits(a, in->opnd[0], r);
}

/* mov with vector operands: mov.b32 d, {x, y} packs, mov.b32 {x, y}, d unpacks */
static bool insn_mov_vector(Asm *a, const Insn *in, const PtxType *ty)
{
	char *items[4];
	int n;
	int bits = type_bits(ty);
	int nv = in->opnd[0][0] == '{' ? vector_items(in->opnd[0], items, 4) : vector_items(in->opnd[1], items, 4);
	if (nv < 2 || bits % nv || (bits / nv != 8 && bits / nv != 16 && bits / nv != 32))
		return asm_error(a, "'%s': a vector operand must split the register into 2 or 4 equal parts", a->insn);
	if (in->opnd[1][0] == '{' && (n = nv) > 0) {
		ValId part[4];
		PtxType pt = {NULL, uint_of(bits / n), 1};
		for (int i = 0; i < n; i++)
			if (!(part[i] = read_bits(a, items[i], &pt))) return false;
		return write_bits(a, in->opnd[0], join_lanes(a, part, n));
	}
	if ((n = nv) > 0) {
		ValId x = read_bits(a, in->opnd[1], ty);
		if (!x) return false;
		for (int i = 0; i < n; i++)
			if (strcmp(items[i], "_") && !write_bits(a, items[i], lane_of(a, x, n, i, uint_of(bits / n))))
				return false;
		return true;
	}
	return asm_error(a, "'%s': malformed vector operand", a->insn);
}

/* bfe/bfi's bit field: literal position and length, operands i and i + 1 of n */
static bool field_args(Asm *a, const Insn *in, int n, int i, int64_t *pos, int64_t *len)
{
	if (in->nopnd != n || !int_literal(in->opnd[i], pos) || !int_literal(in->opnd[i + 1], len))
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
	ValId x = read_lane(a, in->opnd[1], ty, 0);
	if (!x) return false;
	if (pos >= w) pos = w;
	if (len <= 0) return write_bits(a, in->opnd[0], k_int(a, ty->dt, 0));
	if (pos + len > w) len = w - pos;
	if (len <= 0) return write_bits(a, in->opnd[0], k_int(a, ty->dt, 0));
	/* shift the field to the top, then back down (arithmetic for .s) */
	ValId r = x;
	if (w - pos - len) r = op2(a, TOP_SHL, r, k_int(a, ty->dt, w - pos - len));
	if (w - len) r = op2(a, TOP_SHR, r, k_int(a, ty->dt, w - len));
	return write_bits(a, in->opnd[0], r);
}

/* bfi.b{32,64} d, f, b, pos, len */
static bool insn_bfi(Asm *a, const Insn *in, const PtxType *ty)
{
	int64_t pos, len;
	if (!field_args(a, in, 5, 3, &pos, &len)) return false;
	int w = dtype_bits(ty->dt);
	ValId f = read_lane(a, in->opnd[1], ty, 0), b = read_lane(a, in->opnd[2], ty, 0);
	if (!f || !b) return false;
	if (pos >= w || len <= 0) return write_bits(a, in->opnd[0], b);
	if (pos + len > w) len = w - pos;
	uint64_t mask = (len >= 64 ? ~0ull : ((1ull << len) - 1)) << pos;
	if (w < 64) mask &= (1ull << w) - 1;
	ValId m = k_int(a, ty->dt, (int64_t)mask);
	ValId r = op2(a, TOP_OR, op2(a, TOP_AND, b, op1(a, TOP_NOT, m)),
	              op2(a, TOP_AND, pos ? op2(a, TOP_SHL, f, k_int(a, ty->dt, pos)) : f, m));
	return write_bits(a, in->opnd[0], r);
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
		const PtxType *ty = ptx_type(part);
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
	const PtxType *ty = ptx_type(tn);
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
				if (!reg_declare(a, nm, type_bits(ty))) return false;
			}
		} else if (*name && !reg_declare(a, name, type_bits(ty))) {
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
		/* @p insn: the destination keeps its old value where p is false */
		if (in.nopnd == 0 || !(dst = reg_find(a, in.opnd[0])) || !dst->v)
			return asm_error(a, "a guarded instruction must write a register that already has a value%s", "");
		old = dst->v;
	}
	const PtxType *ty = in.ntypes ? in.types[0] : NULL;
	const char *b = in.base;
	bool ok;
	for (int i = 0; i < in.ntypes; i++)
		if (is_fp4(in.types[i]) && strcmp(b, "cvt"))
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
	else if (!strcmp(b, "selp")) {
		PtxType pred = {"pred", DT_I1, 1};
		if (in.nopnd != 4) return asm_error(a, "'%s' takes four operands", a->insn);
		ValId c = read_bits(a, in.opnd[3], &pred);
		ValId x = read_bits(a, in.opnd[1], ty), y = read_bits(a, in.opnd[2], ty);
		ok = c && x && y && write_bits(a, in.opnd[0], sel(a, c, x, y));
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
			ValId x = read_lane(a, in.opnd[1], ty, 0), n = read_lane(a, in.opnd[2], &u32, 0);
			ok = x && n && write_bits(a, in.opnd[0], shift(a, b[2] == 'l', ty->dt, x, n));
		} else if (!strcmp(b, "popc") || !strcmp(b, "clz")) {
			ValId x = read_lane(a, in.opnd[1], ty, 0), r = x ? arith(a, &in, ty->dt, &x) : 0;
			ok = r && write_bits(a, in.opnd[0], r);
		} else {
			ValId r = lanewise(a, &in, ty, 1, nsrc, arith);
			ok = r && write_bits(a, in.opnd[0], r);
		}
	}
	if (!ok) return false;
	if (in.guard[0]) {
		PtxType pred = {"pred", DT_I1, 1};
		ValId p = read_bits(a, in.guard, &pred);
		if (!p) return false;
		dst->v = in.guard_neg ? sel(a, p, old, dst->v) : sel(a, p, dst->v, old);
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
static bool translate_all(Asm *a, const char *text)
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

/* ---- packing operands into registers ----------------------------------------------------- */

/* x's last axis cut in groups of p: the p tiles of element k of each group */
static void ungroup(Sema *s, ValId x, int p, ValId *out, SrcLoc loc)
{
	if (p == 1) {
		out[0] = x;
		return;
	}
	Type t = vtype(s, x);
	int32_t shape[TIR_MAX_RANK];
	memcpy(shape, t.shape, sizeof shape);
	shape[t.rank - 1] /= 2;
	shape[t.rank] = 2;
	ValId v = shape_reshape(s, x, t.rank + 1, shape, loc);
	ValId half[2];
	for (int b = 0; b < 2; b++) half[b] = shape_pick_axis(s, v, t.rank, b, loc);
	ValId sub[2][8];
	for (int b = 0; b < 2; b++) ungroup(s, half[b], p / 2, sub[b], loc);
	for (int k = 0; k < p; k++) out[k] = sub[k & 1][k >> 1];
}

/* the inverse of ungroup */
static ValId regroup(Sema *s, const ValId *parts, int p, SrcLoc loc)
{
	if (p == 1) return parts[0];
	ValId sub[2][8], half[2];
	for (int k = 0; k < p; k++) sub[k & 1][k >> 1] = parts[k];
	for (int b = 0; b < 2; b++) half[b] = regroup(s, sub[b], p / 2, loc);
	Type t = vtype(s, half[0]);
	ValId j = shape_join_axis(s, half[0], half[1], t.rank, loc);
	int32_t shape[TIR_MAX_RANK];
	memcpy(shape, t.shape, sizeof shape);
	shape[t.rank - 1] *= 2;
	return shape_reshape(s, j, t.rank, shape, loc);
}

static int constraint_bits(char c)
{
	switch (c) {
	case 'h': return 16;
	case 'r': case 'f': return 32;
	case 'l': case 'd': return 64;
	case 'b': return 1;
	case 'c': return 8;
	default: return 0;
	}
}

static Value b_inline_asm(Sema *s, Call *c, int extra)
{
	(void)extra;
	for (int i = 0; i < 6; i++)
		if (c->a[i].kind == V_ERR) return v_err();
	if (!v_is_const(c->a[0], CV_STR) || !v_is_const(c->a[1], CV_STR)) {
		diag_error(s->d, c->loc, "%s: asm and constraints must be constexpr strings", c->name);
		return v_err();
	}
	/* result dtypes */
	Type rt[ASM_MAX_OPNDS];
	int nout = 0;
	Value dv = c->a[3];
	const Value *ditems = &dv;
	int nd = 1;
	if (dv.kind == V_TUPLE) ditems = dv.items, nd = dv.n;
	for (int i = 0; i < nd; i++) {
		Call one = *c;
		one.a[3] = ditems[i];
		if (nout == ASM_MAX_OPNDS || !arg_dtype(s, &one, 3, &rt[nout])) {
			if (nout == ASM_MAX_OPNDS) diag_error(s->d, c->at[3], "%s: too many results", c->name);
			return v_err();
		}
		nout++;
	}
	int64_t pack;
	if (!arg_const_int(s, c, 5, &pack)) return v_err();
	if (pack != 1 && pack != 2 && pack != 4 && pack != 8) {
		diag_error(s->d, c->at[5], "%s: pack must be 1, 2, 4 or 8, got %lld", c->name, (long long)pack);
		return v_err();
	}
	/* arguments, broadcast to one shape */
	Value av = c->a[2];
	const Value *aitems = &av;
	int na = 1;
	if (av.kind == V_TUPLE) aitems = av.items, na = av.n;
	if (na > ASM_MAX_OPNDS) {
		diag_error(s->d, c->at[2], "%s: at most %d arguments", c->name, ASM_MAX_OPNDS);
		return v_err();
	}
	ValId args[ASM_MAX_OPNDS];
	for (int i = 0; i < na; i++) {
		Call one = *c;
		one.a[2] = aitems[i];
		if (!arg_tensor(s, &one, 2, &args[i])) return v_err();
	}
	for (int i = 1; i < na; i++)
		if (!broadcast_pair(s, &args[0], &args[i], c->loc)) return v_err();
	for (int i = 1; i < na; i++)
		if (!broadcast_pair(s, &args[i], &args[0], c->loc)) return v_err();
	Type shape = na ? vtype(s, args[0]) : type_scalar(DT_I32);
	if (pack > 1 && (shape.rank == 0 || shape.shape[shape.rank - 1] % pack)) {
		diag_error(s->d, c->at[5], "%s: pack=%lld needs the arguments' last dimension to be a multiple of it",
			   c->name, (long long)pack);
		return v_err();
	}
	if (pack > 1 && shape.rank == TIR_MAX_RANK) {
		diag_error(s->d, c->at[5], "%s: pack > 1 on a rank-%d tensor is not supported", c->name, TIR_MAX_RANK);
		return v_err();
	}
	/* constraints: outputs "=r", then one per argument */
	char cons[64][8];
	int ncons = 0;
	{
		char *buf = xstrdup(c->a[1].c.s), *save = NULL;
		for (char *p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
			while (isspace((unsigned char)*p)) p++;
			char *e = p + strlen(p);
			while (e > p && isspace((unsigned char)e[-1])) *--e = 0;
			if (ncons == (int)COUNTOF(cons) || strlen(p) >= sizeof cons[0]) {
				free(buf);
				diag_error(s->d, c->at[1], "%s: bad constraint string \"%s\"", c->name, c->a[1].c.s);
				return v_err();
			}
			snprintf(cons[ncons++], sizeof cons[0], "%s", p);
		}
		free(buf);
	}
	/* Each result and argument takes pack / per registers of per elements,
	 * per = min(max(32 / bits, 1), pack): elements under 32 bits share a
	 * 32-bit register, as Triton packs them. */
	int per[ASM_MAX_OPNDS * 2], nregs = 0;
	Type et[ASM_MAX_OPNDS * 2];
	for (int i = 0; i < nout + na; i++) {
		et[i] = i < nout ? rt[i] : type_elem(vtype(s, args[i - nout]));
		int bits = et[i].dt == DT_I1 ? 32 : dtype_bits((DType)et[i].dt);
		per[i] = bits >= 32 ? 1 : (int)(32 / bits < pack ? 32 / bits : pack);
		nregs += (int)pack / per[i];
	}
	if (ncons != nregs) {
		diag_error(s->d, c->at[1], "%s: %d constraints, but the %d result%s and %d argument%s with pack=%lld take %d registers",
			   c->name, ncons, nout, nout == 1 ? "" : "s", na, na == 1 ? "" : "s", (long long)pack, nregs);
		return v_err();
	}
	Asm *a = xcalloc(1, sizeof *a);
	a->s = s;
	a->loc = c->loc;
	a->rank = shape.rank;
	memcpy(a->shape, shape.shape, sizeof a->shape);
	if (a->rank) a->shape[a->rank - 1] /= (int32_t)pack;
	Value result = v_err();
	snprintf(a->insn, sizeof a->insn, "%s", c->a[1].c.s);
	int first_reg[ASM_MAX_OPNDS * 2];
	bool is_imm[64] = {false};
	uint64_t imm_val[64];
	for (int i = 0, ci = 0; i < nout + na; i++) {
		bool out = i < nout;
		DType d = (DType)et[i].dt;
		int ebits = d == DT_I1 ? 1 : dtype_bits(d), width = d == DT_I1 ? 1 : ebits * per[i];
		ValId parts[8] = {0};
		if (!out) {
			ungroup(s, args[i - nout], (int)pack, parts, c->loc);
			for (int k = 0; k < pack; k++)
				if (d != DT_I1) parts[k] = bitc(a, parts[k], uint_of(ebits));
		}
		first_reg[i] = a->nregs;
		for (int j = 0; j < pack / per[i]; j++, ci++) {
			const char *k = cons[ci] + (cons[ci][0] == '=');
			/* "n": an immediate, from a constexpr integer argument */
			bool imm = !out && !strcmp(k, "n");
			int bits = imm ? (width > 32 ? 64 : 32) : strlen(k) == 1 ? constraint_bits(k[0]) : 0;
			if (out != (cons[ci][0] == '=') || !bits) {
				diag_error(s->d, c->at[1],
					   "%s: constraint \"%s\" is not one of =r =h =l =f =d =b (results, first) or r h l f d b n",
					   c->name, cons[ci]);
				goto done;
			}
			if (imm && (aitems[i - nout].kind != V_CONST || !v_is_intlike(aitems[i - nout]))) {
				diag_error(s->d, c->at[2], "%s: argument %d has constraint \"n\" (an immediate), so it must be a constexpr integer",
					   c->name, i - nout);
				goto done;
			}
			if (bits < width || (bits == 1) != (width == 1)) {
				diag_error(s->d, c->at[1], "%s: constraint \"%s\" is a %d-bit register, but it must hold %d %s (%d bits)",
					   c->name, cons[ci], bits, per[i], dt_name(s, et[i]), width);
				goto done;
			}
			if (imm) { /* substituted into the text as a literal, below */
				is_imm[ci] = true;
				imm_val[ci] = (uint64_t)aitems[i - nout].c.i & (bits == 64 ? ~0ull : 0xffffffffull);
				continue;
			}
			char name[16];
			snprintf(name, sizeof name, "$%d", ci);
			reg_declare(a, name, bits);
			if (!out) {
				ValId v = d == DT_I1 ? parts[j] : join_lanes(a, parts + j * per[i], per[i]);
				a->regs[a->nregs - 1].v = d == DT_I1 ? v : resize(a, v, bits);
			}
		}
	}
	StrBuf text = {0};
	for (const char *q = c->a[0].c.s; *q;) {
		char *e;
		long n = *q == '$' && isdigit((unsigned char)q[1]) ? strtol(q + 1, &e, 10) : -1;
		if (n >= 0 && n < ncons && is_imm[n]) {
			sb_printf(&text, "0x%llx", (unsigned long long)imm_val[n]);
			q = e;
		} else {
			sb_putc(&text, *q++);
		}
	}
	bool translated = translate_all(a, text.s ? text.s : "");
	sb_free(&text);
	if (!translated) goto done;
	Value outs[ASM_MAX_OPNDS];
	for (int i = 0; i < nout; i++) {
		DType d = (DType)rt[i].dt;
		ValId parts[8];
		for (int j = 0; j < pack / per[i]; j++) {
			AsmReg *r = &a->regs[first_reg[i] + j];
			if (!r->v) {
				diag_error(s->d, c->loc, "%s: result register %s is never written by the asm", c->name, r->name);
				goto done;
			}
			for (int l = 0; l < per[i]; l++)
				parts[j * per[i] + l] = d == DT_I1 ? r->v
				                        : lane_of(a, resize(a, r->v, dtype_bits(d) * per[i]), per[i], l, d);
		}
		outs[i] = v_tensor(s, regroup(s, parts, (int)pack, c->loc));
	}
	result = nd == 1 && dv.kind != V_TUPLE ? outs[0] : v_tuple(s, outs, nout);
done:
	free(a);
	return result;
}

const Builtin builtins_asm[] = {
    {"inline_asm_elementwise", "asm,constraints,args,dtype,is_pure,pack", b_inline_asm, 0, BF_TL},
    {NULL, NULL, NULL, 0, 0},
};

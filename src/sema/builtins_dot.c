/* builtins_dot.c: tl.dot (and `a @ b`), with Triton's result dtype rules:
 * int8 x int8 -> int32; fp32/bf16 -> fp32; fp16 and fp8 -> out_dtype
 * (fp32 default, fp16 allowed); fp64 -> fp64. Shapes as Triton's NVIDIA backend
 * allows them (min_dot_size): any M and N, K >= 16 (32 for 8-bit inputs, 4 for
 * fp64); shapes the tensor-core layouts do not fit take the FMA path. */
#include <string.h>

#include "sema/sema_int.h"

static bool is_fp8(DType d) { return d == DT_F8E4M3 || d == DT_F8E5M2; }

static ValId emit_dot(Sema *s, ValId a, ValId b, ValId acc, int prec, SrcLoc loc)
{
	TirOp *op = emit_op(s, TOP_DOT, loc, (ValId[]){a, b, acc}, 3, vtype(s, acc));
	op->attr.i = prec;
	return op->results[0];
}

static bool tensor_core_target(Sema *s)
{
	return s->c->target && (s->c->target->kind == TARGET_CUDA || s->c->target->emulate);
}

/* Triton pads small M and N onto the tensor cores; only K has a lower bound. */
static bool check_k(Sema *s, Call *c, DType in, int32_t M, int32_t N, int32_t K)
{
	int bits = dtype_bits(in);
	int kmin = bits == 8 ? 32 : bits == 64 ? 4 : 16;
	if (K >= kmin)
		return true;
	diag_error(s->d, c->loc, "'%s' needs K >= %d for %d-bit inputs, got M=%d, N=%d, K=%d", c->name, kmin, bits,
		   M, N, K);
	return false;
}

static bool precision(Sema *s, Call *c, DType in, int *out)
{
	*out = in == DT_F32 && tensor_core_target(s) ? PREC_TF32 : PREC_IEEE;
	bool has_p = c->has[3] && !v_is_none(c->a[3]);
	bool has_a = c->has[4] && !v_is_none(c->a[4]);
	if (has_p && has_a) {
		diag_error(s->d, c->at[4], "only one of input_precision and allow_tf32 can be given to '%s'", c->name);
		return false;
	}
	if (has_p) {
		const char *p = arg_str(s, c, 3);
		if (!p) return false;
		if (!strcmp(p, "tf32")) *out = PREC_TF32;
		else if (!strcmp(p, "tf32x3")) *out = PREC_TF32X3;
		else if (!strcmp(p, "bf16x3")) *out = PREC_BF16X3;
		else if (!strcmp(p, "bf16x6")) *out = PREC_BF16X6;
		else if (!strcmp(p, "ieee")) *out = PREC_IEEE;
		else {
			diag_error(s->d, c->at[3],
				   "input_precision must be 'tf32', 'tf32x3', 'bf16x3', 'bf16x6' or 'ieee', got '%s'", p);
			return false;
		}
	} else if (has_a) {
		bool t;
		if (!arg_bool(s, c, 4, &t)) return false;
		*out = t ? PREC_TF32 : PREC_IEEE;
	}
	if (in != DT_F32 || (*out >= PREC_BF16X3 && !tensor_core_target(s))) *out = PREC_IEEE;
	return true;
}

/* x rounded to tf32 (cvt.rna.tf32.f32: nearest, ties away from zero), as f32. */
static Value tf32_big(Sema *s, ValId x, SrcLoc loc)
{
	Value u = v_tensor(s, cast_val(s, x, type_scalar(DT_U32), true, 0, loc));
	u = binop(s, OP_BITAND, binop(s, OP_ADD, u, v_int(0x1000), loc), v_uint64(0xffffe000u), loc);
	if (u.kind != V_TENSOR) return u;
	return v_tensor(s, cast_val(s, u.id, type_scalar(DT_F32), true, 0, loc));
}

/* input_precision="tf32x3" on tensor cores, as Triton's F32DotTC pass rewrites it
 * (the 3xTF32 trick): with x = big(x) + small(x), big the tf32 rounding,
 * a @ b = small(a) @ big(b) + big(a) @ small(b) + big(a) @ big(b), each a tf32
 * dot, the small products first; NaNs of the small products are zeroed, so an
 * infinite operand times a zero small part does not poison the result. */
static Value dot_tf32x3(Sema *s, ValId a, ValId b, ValId acc, SrcLoc loc)
{
	Value ab = tf32_big(s, a, loc), bb = tf32_big(s, b, loc);
	if (ab.kind != V_TENSOR || bb.kind != V_TENSOR) return v_err();
	Value as = binop(s, OP_SUB, v_tensor(s, a), ab, loc), bs = binop(s, OP_SUB, v_tensor(s, b), bb, loc);
	if (as.kind != V_TENSOR || bs.kind != V_TENSOR) return v_err();
	ValId zero = emit_const(s, vtype(s, acc), 0, 0.0, loc);
	ValId d = emit_dot(s, as.id, bb.id, zero, PREC_TF32, loc);
	Value small = v_tensor(s, emit_dot(s, ab.id, bs.id, d, PREC_TF32, loc));
	small = make_where(s, binop(s, OP_NE, small, small, loc), v_float(0.0), small, loc);
	if (small.kind != V_TENSOR) return v_err();
	Value big = v_tensor(s, emit_dot(s, ab.id, bb.id, small.id, PREC_TF32, loc));
	return binop(s, OP_ADD, big, v_tensor(s, acc), loc);
}

/* x as the sum of n bf16 parts, largest first (each the nearest bf16 to what the
 * ones before it leave), as f32 -> bf16 -> f32 round trips */
static bool bf16_parts(Sema *s, ValId x, int n, ValId *parts, SrcLoc loc)
{
	Value rest = v_tensor(s, x);
	for (int i = 0; i < n; i++) {
		parts[i] = cast_val(s, rest.id, type_scalar(DT_BF16), false, 0, loc);
		if (!parts[i]) return false;
		if (i + 1 < n) {
			rest = binop(s, OP_SUB, rest, v_tensor(s, cast_val(s, parts[i], type_scalar(DT_F32), false, 0, loc)), loc);
			if (rest.kind != V_TENSOR) return false;
		}
	}
	return true;
}

/* input_precision="bf16x3" / "bf16x6" on tensor cores, as Triton's NVIDIA backend
 * emulates an fp32 dot: each operand split into 2 (3) bf16 parts and the 3 (6)
 * most significant products summed by bf16 dots with fp32 accumulation, the
 * small ones first; NaNs of the small products are zeroed as for tf32x3. */
static Value dot_bf16xn(Sema *s, ValId a, ValId b, ValId acc, bool six, SrcLoc loc)
{
	ValId ap[3], bp[3];
	int n = six ? 3 : 2;
	if (!bf16_parts(s, a, n, ap, loc) || !bf16_parts(s, b, n, bp, loc)) return v_err();
	static const int t3[][2] = {{1, 0}, {0, 1}}, t6[][2] = {{2, 0}, {1, 1}, {0, 2}, {1, 0}, {0, 1}};
	const int(*t)[2] = six ? t6 : t3;
	int nt = six ? 5 : 2;
	ValId d = emit_const(s, vtype(s, acc), 0, 0.0, loc);
	for (int i = 0; i < nt; i++) d = emit_dot(s, ap[t[i][0]], bp[t[i][1]], d, PREC_IEEE, loc);
	Value small = v_tensor(s, d);
	small = make_where(s, binop(s, OP_NE, small, small, loc), v_float(0.0), small, loc);
	if (small.kind != V_TENSOR) return v_err();
	Value big = v_tensor(s, emit_dot(s, ap[0], bp[0], small.id, PREC_IEEE, loc));
	return binop(s, OP_ADD, big, v_tensor(s, acc), loc);
}

/* acc + a @ b in precision prec: one TIR dot (2-D, or 3-D for a batched
 * tl.dot, lowered per batch by lower_dot.c), or the sums of tf32x3 / bf16x3 /
 * bf16x6 */
static Value dot_prec(Sema *s, ValId a, ValId b, ValId acc, int prec, SrcLoc loc)
{
	if (prec == PREC_TF32X3 && tensor_core_target(s))
		return dot_tf32x3(s, a, b, acc, loc);
	if (prec == PREC_BF16X3 || prec == PREC_BF16X6)
		return dot_bf16xn(s, a, b, acc, prec == PREC_BF16X6, loc);
	return v_tensor(s, emit_dot(s, a, b, acc, prec, loc));
}

/* A batched dot's accumulator that is not exactly [B, M, N] of the result's
 * dtype (one that broadcasts, or of another dtype) is added to the dot's
 * result, cast to its dtype, as the per-batch dots of earlier versions did. */
static bool batched_acc_fits(Sema *s, Call *c, DType in, DType ret, const int32_t bmn[3])
{
	Value v = c->a[2];
	if (v.kind != V_TENSOR) return false;
	Type t = vtype(s, v.id);
	DType dc = (DType)t.dt;
	if ((in == DT_F16 || is_fp8(in)) && (dc == DT_F16 || dc == DT_F32)) ret = dc;
	return t.rank == 3 && dc == ret && t.shape[0] == bmn[0] && t.shape[1] == bmn[1] && t.shape[2] == bmn[2];
}

static Value batched_acc_add(Sema *s, Call *c, ValId a, ValId b, DType ret, int prec, const int32_t bmn[3])
{
	ValId zero = emit_const(s, type_tile(type_scalar(ret), 3, bmn), 0, 0.0, c->loc);
	Value out = dot_prec(s, a, b, zero, prec, c->loc);
	if (out.kind != V_TENSOR) return out;
	Value acc = c->a[2];
	if (acc.kind == V_TENSOR && acc.ty.dt != out.ty.dt)
		out = v_tensor(s, cast_val(s, out.id, type_scalar((DType)acc.ty.dt), false, 0, c->loc));
	out = binop(s, OP_ADD, acc, out, c->loc);
	if (out.kind != V_TENSOR) return out;
	Type want = vtype(s, out.id);
	if (want.rank != 3 || want.shape[0] != bmn[0] || want.shape[1] != bmn[1] || want.shape[2] != bmn[2]) {
		diag_error(s->d, c->at[2], "the accumulator of '%s' must be [%d, %d, %d]", c->name, bmn[0], bmn[1], bmn[2]);
		return v_err();
	}
	return out;
}

/* Triton 2.0's tl.dot(input, other, trans_a=False, trans_b=False, ...) transposes
 * an operand first; the keywords (not positions: those are acc and
 * input_precision now) are accepted so kernels written for it keep working. */
static bool legacy_trans(Sema *s, Call *c, int i, ValId *x)
{
	bool t = false;
	if (!c->has[7 + i] || v_is_none(c->a[7 + i])) return true;
	if (!arg_bool(s, c, 7 + i, &t)) return false;
	if (!t) return true;
	if (vtype(s, *x).rank != 2) {
		diag_error(s->d, c->at[7 + i], "'%s' with %s=True needs a 2-d tile", c->name, i ? "trans_b" : "trans_a");
		return false;
	}
	int id = builtin_find("trans", BF_METHOD);
	Call tc = {.name = "tl.trans", .loc = c->at[7 + i]};
	tc.a[0] = v_tensor(s, *x);
	tc.has[0] = true;
	tc.at[0] = c->at[i];
	Value r = builtin_get(id)->fn(s, &tc, builtin_get(id)->extra);
	if (r.kind != V_TENSOR) return false;
	*x = r.id;
	return true;
}

static Value b_dot(Sema *s, Call *c, int extra);

/* A dot of rank 4 or more: the batch dims flattened to one, the 3-d dot, its
 * result given the batch dims back, as Triton's core.dot does (3.5+); tile
 * refused it. The accumulator, if any, must have the result's shape. */
static Value dot_rank4(Sema *s, Call *c, ValId a, ValId b, int extra)
{
	Type ta = vtype(s, a), tb = vtype(s, b);
	int r = ta.rank;
	int32_t batch = 1;
	for (int d = 0; d < r - 2; d++) {
		if (ta.shape[d] != tb.shape[d]) {
			char sa[64], sb[64];
			shape_str(ta, sa, sizeof sa);
			shape_str(tb, sb, sizeof sb);
			diag_error(s->d, c->loc, "shape mismatch in '%s': %s vs %s (the batch dims differ)", c->name, sa, sb);
			return v_err();
		}
		batch *= ta.shape[d];
	}
	int32_t M = ta.shape[r - 2], K = ta.shape[r - 1], N = tb.shape[r - 1];
	int32_t sa3[3] = {batch, M, K}, sb3[3] = {batch, tb.shape[r - 2], N}, sc3[3] = {batch, M, N};
	Call c3 = *c;
	c3.a[0] = v_tensor(s, shape_reshape(s, a, 3, sa3, c->loc));
	c3.a[1] = v_tensor(s, shape_reshape(s, b, 3, sb3, c->loc));
	c3.has[7] = c3.has[8] = false; /* trans_a/trans_b were applied to a and b */
	int32_t out_shape[TIR_MAX_RANK];
	for (int d = 0; d < r - 2; d++)
		out_shape[d] = ta.shape[d];
	out_shape[r - 2] = M, out_shape[r - 1] = N;
	if (c->has[2] && !v_is_none(c->a[2])) {
		ValId acc;
		if (!arg_tensor(s, c, 2, &acc)) return v_err();
		Type tc = vtype(s, acc);
		bool same = tc.rank == r;
		for (int d = 0; same && d < r; d++)
			same = tc.shape[d] == out_shape[d];
		if (!same) {
			char sc[64];
			shape_str(tc, sc, sizeof sc);
			diag_error(s->d, c->at[2], "the accumulator of '%s' must have the result's shape, got %s", c->name, sc);
			return v_err();
		}
		c3.a[2] = v_tensor(s, shape_reshape(s, acc, 3, sc3, c->loc));
	}
	Value out = b_dot(s, &c3, extra);
	if (out.kind != V_TENSOR) return out;
	return v_tensor(s, shape_reshape(s, out.id, r, out_shape, c->loc));
}

static Value b_dot(Sema *s, Call *c, int extra)
{
	(void)extra;
	ValId a, b;
	if (!arg_tensor(s, c, 0, &a) || !arg_tensor(s, c, 1, &b)) return v_err();
	if (!legacy_trans(s, c, 0, &a) || !legacy_trans(s, c, 1, &b)) return v_err();
	Type ta = vtype(s, a), tb = vtype(s, b);
	char sa[64], sb[64];
	shape_str(ta, sa, sizeof sa);
	shape_str(tb, sb, sizeof sb);
	if (ta.rank >= 4 && ta.rank == tb.rank)
		return dot_rank4(s, c, a, b, extra);
	bool batched = ta.rank == 3 && tb.rank == 3;
	if (!batched && (ta.rank != 2 || tb.rank != 2)) {
		diag_error(s->d, c->loc, "'%s' expects 2-d (or batched: 3-d or more, of equal ranks) tiles, got shapes %s and %s", c->name, sa, sb);
		return v_err();
	}
	int rank = ta.rank;
	if (batched && (ta.shape[0] != tb.shape[0] || ta.shape[2] != tb.shape[1])) {
		diag_error(s->d, c->loc, "shape mismatch in '%s': %s vs %s (the batch or K differs)", c->name, sa, sb);
		return v_err();
	}
	if (ta.shape[rank - 1] != tb.shape[rank - 2]) {
		diag_error(s->d, c->loc, "shape mismatch in '%s': %s vs %s (K differs)", c->name, sa, sb);
		return v_err();
	}
	int32_t M = ta.shape[rank - 2], N = tb.shape[rank - 1], K = ta.shape[rank - 1];
	DType da = (DType)ta.dt, db = (DType)tb.dt;
	if (da != db && !(is_fp8(da) && is_fp8(db))) {
		diag_error(s->d, c->loc, "dtype mismatch in '%s': %s vs %s", c->name, dtype_name(da), dtype_name(db));
		return v_err();
	}
	if (!check_k(s, c, da, M, N, K))
		return v_err();
	if (c->has[5] && !v_is_none(c->a[5])) {
		/* fp8 products summed in lower precision before each fp32 add: at most K
		 * of them (Triton's check; tile's dots accumulate in fp32 throughout) */
		int64_t imprecise;
		if (!arg_const_int(s, c, 5, &imprecise)) return v_err();
		if (is_fp8(da) && is_fp8(db) && imprecise > K) {
			diag_error(s->d, c->at[5], "max_num_imprecise_acc (%lld) must be <= K (%d)", (long long)imprecise, K);
			return v_err();
		}
	}
	Type out_dt = type_scalar(DT_F32);
	if (c->has[6] && !v_is_none(c->a[6]) && !arg_dtype(s, c, 6, &out_dt)) return v_err();
	DType ret;
	if (da == DT_I8) ret = DT_I32;
	else if (out_dt.dt == DT_BF16) {
		diag_error(s->d, c->at[6], "out_dtype=bfloat16 is not supported by '%s'; use float32 and cast", c->name);
		return v_err();
	} else if (da == DT_F32 || da == DT_BF16) ret = DT_F32;
	else if (da == DT_F16 || is_fp8(da)) {
		if (out_dt.dt != DT_F32 && out_dt.dt != DT_F16) {
			diag_error(s->d, c->at[6], "out_dtype of '%s' must be float32 or float16, got %s", c->name,
				   dtype_name((DType)out_dt.dt));
			return v_err();
		}
		ret = (DType)out_dt.dt;
	} else if (da == DT_F64) ret = DT_F64;
	else {
		diag_error(s->d, c->loc, "'%s' does not support %s inputs", c->name, dtype_name(da));
		return v_err();
	}
	int prec;
	if (!precision(s, c, da, &prec)) return v_err();
	/* [B,] M, N */
	int32_t mn[3] = {batched ? ta.shape[0] : M, batched ? M : N, N};
	/* the result is a new tile, M x N: [4096, 16] x [16, 4096] is 16M elements */
	if (!check_tile_shape(s, rank, mn, c->loc)) return v_err();
	ValId acc;
	if (batched && c->has[2] && !v_is_none(c->a[2]) && !batched_acc_fits(s, c, da, ret, mn))
		return batched_acc_add(s, c, a, b, ret, prec, mn);
	if (c->has[2] && !v_is_none(c->a[2])) {
		if (!arg_tensor(s, c, 2, &acc)) return v_err();
		Type tc = vtype(s, acc);
		DType dc = (DType)tc.dt;
		/* fp16/fp8 inputs accumulate in the accumulator's dtype; an out_dtype
		 * given that differs is refused, as Triton asserts acc.dtype ==
		 * out_dtype (it was ignored: out_dtype=tl.float32 gave fp16) */
		bool given = c->has[6] && !v_is_none(c->a[6]);
		if ((da == DT_F16 || is_fp8(da)) && (dc == DT_F16 || dc == DT_F32) && given && dc != out_dt.dt) {
			diag_error(s->d, c->at[6], "out_dtype of '%s' is %s but its accumulator is %s: give both the same dtype",
				   c->name, dtype_name((DType)out_dt.dt), dtype_name(dc));
			return v_err();
		}
		if ((da == DT_F16 || is_fp8(da)) && (dc == DT_F16 || dc == DT_F32)) ret = dc;
		Type want = type_tile(type_scalar(ret), rank, mn);
		if (!type_eq(tc, want)) {
			char w[64], g[64];
			type_str(want, w, sizeof w);
			type_str(tc, g, sizeof g);
			diag_error(s->d, c->at[2], "the accumulator of '%s' must be %s, got %s", c->name, w, g);
			return v_err();
		}
	} else {
		acc = emit_const(s, type_tile(type_scalar(ret), rank, mn), 0, 0.0, c->loc);
	}
	return dot_prec(s, a, b, acc, prec, c->loc);
}

const Builtin builtins_dot[] = {
    {"dot", "input,other,acc=None,input_precision=None,allow_tf32=None,max_num_imprecise_acc=None,out_dtype=float32,"
     "trans_a=None,trans_b=None",
     b_dot, 0, BF_TL | BF_METHOD},
    {NULL, NULL, NULL, 0, 0},
};

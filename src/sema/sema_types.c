/* sema_types.c: Triton's type rules (python/triton/language/semantic.py):
 * computation types with weakly typed Python scalars, integer promotion,
 * casts, NumPy broadcasting made explicit (SPLAT / EXPAND_DIMS / BROADCAST),
 * and the arithmetic, comparison and pointer binops built on them. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sema/sema_int.h"

/* ---- emitting ------------------------------------------------------------------ */

SrcLoc op_loc(const Sema *s, SrcLoc loc)
{
	if (loc.file && s->user_call.file && loc.file == prelude_file_of(s)) return s->user_call;
	return loc;
}

bool sema_values_fit(Sema *s, size_t n, SrcLoc loc)
{
	if (n <= SEMA_MAX_VALUES) return true;
	if (!s->too_big) {
		s->too_big = true;
		diag_error(s->d, loc, "kernel '%s' is too large: more than %d values after inlining and unrolling",
			   tir_func_label(s->f), SEMA_MAX_VALUES);
		sema_note_limit(s);
	}
	return false;
}

TirOp *emit_op(Sema *s, TirOpKind k, SrcLoc loc, const ValId *in, int nin, Type out)
{
	bool has_out = out.dt != DT_VOID;
	sema_values_fit(s, s->f->vals.len, loc);
	return tir_op(s->f, s->blk, k, op_loc(s, loc), in, nin, &out, has_out ? 1 : 0);
}

ValId emit(Sema *s, TirOpKind k, SrcLoc loc, const ValId *in, int nin, Type out)
{
	TirOp *op = emit_op(s, k, loc, in, nin, out);
	return op->nout ? op->results[0] : 0;
}

ValId emit_const(Sema *s, Type t, int64_t i, double f, SrcLoc loc)
{
	TirOp *op = emit_op(s, TOP_CONST, loc, NULL, 0, t);
	DType dt = (DType)t.dt;
	if (dtype_is_float(dt)) {
		op->attr.f = f;
	} else {
		int bits = dtype_bits(dt);
		uint64_t u = (uint64_t)i;
		if (bits < 64) {
			u &= (1ULL << bits) - 1;
			if (dtype_is_signed(dt) && (u >> (bits - 1)) & 1) u |= ~((1ULL << bits) - 1);
		}
		op->attr.i = (int64_t)u;
	}
	return op->results[0];
}

Type vtype(Sema *s, ValId v) { return tir_type(s->f, v); }

void shape_str(Type t, char *buf, size_t n)
{
	size_t len = (size_t)snprintf(buf, n, "[");
	for (int i = 0; i < t.rank && len < n; i++) len += (size_t)snprintf(buf + len, n - len, "%s%d", i ? "," : "", (int)t.shape[i]);
	if (len < n) snprintf(buf + len, n - len, "]");
}

void type_name(Type t, char *buf, size_t n)
{
	if (t.rank == 0) {
		if (t.dt == DT_PTR) snprintf(buf, n, "pointer<%s>", dtype_name((DType)t.elem));
		else snprintf(buf, n, "%s", dtype_name((DType)t.dt));
	} else {
		type_str(t, buf, (int)n);
	}
}

/* Triton's name of a dtype (its str() and .name): fp32, bf16, fp8e4nv, int32,
 * pointer<fp16> */
const char *dtype_triton_name(Sema *s, Type t)
{
	DType e = (DType)(t.dt == DT_PTR ? t.elem : t.dt);
	const char *tn = dtype_is_float(e) ? dtype_short(e) : dtype_name(e);
	if (t.dt != DT_PTR) return tn;
	char buf[64];
	snprintf(buf, sizeof buf, "pointer<%s>", tn);
	return arena_strdup(s->a, buf);
}

/* The str() and .name of a dtype value: a block type (x.type of a block) is
 * Triton's "<(16, 32), fp32>", its shape a tuple; any other as dtype_triton_name */
const char *dtype_value_name(Sema *s, Value v)
{
	if (v_is_foreign_dtype(v)) /* tl.void, or tl.float8e4b15 whose name is fp8e4b15 */
		return strcmp(v.msg, "void") ? arena_printf(s->a, "fp8%s", v.msg + strlen("float8")) : "void";
	const char *elem = dtype_triton_name(s, v.ty);
	if (v.n == 0) return elem;
	StrBuf b = {0};
	sb_puts(&b, "<(");
	for (int i = 0; i < v.n; i++) sb_printf(&b, i ? ", %lld" : "%lld", (long long)v.items[i].c.i);
	sb_printf(&b, "%s), %s>", v.n == 1 ? "," : "", elem);
	const char *name = arena_strdup(s->a, b.s);
	sb_free(&b);
	return name;
}

const char *dt_name(Sema *s, Type t)
{
	char buf[64];
	type_name(type_elem(t), buf, sizeof buf);
	return arena_strdup(s->a, buf);
}

bool check_tile_shape(Sema *s, int rank, const int32_t *shape, SrcLoc loc)
{
	Type t = {.rank = (uint8_t)(rank > TIR_MAX_RANK ? TIR_MAX_RANK : rank)};
	for (int i = 0; i < t.rank; i++) t.shape[i] = shape[i];
	char buf[96];
	if (rank > TIR_MAX_RANK) {
		diag_error(s->d, loc, "tiles of rank %d are not supported (at most %d)", rank, TIR_MAX_RANK);
		return false;
	}
	int log2n = 0;
	for (int i = 0; i < rank; i++) {
		if (!is_pow2_i64(shape[i])) {
			shape_str(t, buf, sizeof buf);
			diag_error(s->d, loc, "tile shape %s is not a power of two", buf);
			return false;
		}
		log2n += __builtin_ctzll((unsigned long long)shape[i]);
	}
	/* summed as log2 (every extent is a power of two): the product of a few
	 * 2^16 extents would overflow int64 (2^64 wraps to 0 and passed) */
	if (log2n > TILE_MAX_NUMEL_LOG2) {
		if (log2n < 63)
			diag_error(s->d, loc, "tile of %lld elements exceeds the limit of %d", 1LL << log2n, TILE_MAX_NUMEL);
		else
			diag_error(s->d, loc, "tile of 2**%d elements exceeds the limit of %d", log2n, TILE_MAX_NUMEL);
		return false;
	}
	return true;
}

/* ---- constants ------------------------------------------------------------------- */

Type const_natural_type(ConstVal c)
{
	switch (c.kind) {
	case CV_BOOL: return type_scalar(DT_I1);
	case CV_FLOAT: return type_scalar(DT_F32);
	case CV_INT:
		if (c.u64) return type_scalar(DT_U64);
		if (c.i >= INT32_MIN && c.i <= INT32_MAX) return type_scalar(DT_I32);
		if (c.i > 0 && c.i <= (int64_t)UINT32_MAX) return type_scalar(DT_U32);
		return type_scalar(DT_I64);
	default: return type_scalar(DT_VOID);
	}
}

bool const_fits(ConstVal c, DType dt)
{
	if (dtype_is_float(dt)) return true;
	if (c.kind == CV_FLOAT) return false;
	if (c.kind == CV_BOOL) return dtype_is_int(dt);
	if (c.kind != CV_INT || !dtype_is_int(dt)) return false;
	if (c.u64) return dt == DT_U64;
	int bits = dtype_bits(dt);
	if (dt == DT_I1) return c.i == 0 || c.i == 1;
	if (bits == 64) return dtype_is_signed(dt) || c.i >= 0;
	if (dtype_is_signed(dt)) return c.i >= -(1LL << (bits - 1)) && c.i < (1LL << (bits - 1));
	return c.i >= 0 && c.i < (1LL << bits);
}

static ValId const_to_ir(Sema *s, ConstVal c, DType dt, SrcLoc loc)
{
	Type t = type_scalar(dt);
	if (dtype_is_float(dt)) return emit_const(s, t, 0, const_as_double(c), loc);
	/* to int1 is x != 0 (0.5 is True, as bool(0.5)), not the integer truncation */
	if (dt == DT_I1) return emit_const(s, t, c.kind == CV_FLOAT ? c.f != 0 : c.i != 0, 0, loc);
	if (c.kind == CV_FLOAT) return emit_const(s, t, (int64_t)c.f, 0, loc);
	return emit_const(s, t, c.i, 0, loc);
}

ValId to_ir(Sema *s, Value v, DType dt, SrcLoc loc)
{
	if (v.kind == V_CONST && (v.c.kind == CV_INT || v.c.kind == CV_BOOL || v.c.kind == CV_FLOAT)) {
		if (dt == DT_PTR) {
			diag_error(s->d, loc, "cannot use a constant as a pointer");
			return 0;
		}
		return const_to_ir(s, v.c, dt, loc);
	}
	if (v.kind == V_TENSOR) {
		Type t = v.ty;
		if (t.dt == dt) return v.id;
		return cast_val(s, v.id, type_scalar(dt), false, 0, loc);
	}
	if (v.kind != V_ERR) diag_error(s->d, loc, "expected a tensor or a number, got %s", v_describe(s, v));
	return 0;
}

ValId to_ir_natural(Sema *s, Value v, SrcLoc loc)
{
	if (v.kind == V_TENSOR) return v.id;
	if (v.kind == V_CONST) {
		Type t = const_natural_type(v.c);
		if (t.dt != DT_VOID) return const_to_ir(s, v.c, (DType)t.dt, loc);
	}
	if (v.kind != V_ERR) diag_error(s->d, loc, "expected a tensor or a number, got %s", v_describe(s, v));
	return 0;
}

bool value_as_ir(Sema *s, Value v, SrcLoc loc, ValId *out)
{
	*out = to_ir_natural(s, v, loc);
	return *out != 0;
}

/* ---- casts ------------------------------------------------------------------------ */

static Type with_shape(Type scalar, Type like) { return type_tile(scalar, like.rank, like.shape); }

ValId to_bool(Sema *s, ValId x, SrcLoc loc)
{
	Type t = vtype(s, x);
	if (t.dt == DT_I1) return x;
	ValId z;
	if (t.dt == DT_PTR) {
		x = emit(s, TOP_PTR_TO_INT, loc, &x, 1, with_shape(type_scalar(DT_I64), t));
		t = vtype(s, x);
	}
	z = emit_const(s, t, 0, 0.0, loc);
	ValId in[2] = {x, z};
	TirOp *op = emit_op(s, TOP_CMP, loc, in, 2, with_shape(type_scalar(DT_I1), t));
	op->attr.pred = PRED_NE;
	return op->results[0];
}

ValId cast_val(Sema *s, ValId x, Type dst, bool bitcast, int flags, SrcLoc loc)
{
	Type src = vtype(s, x);
	Type out = with_shape(type_elem(dst), src);
	if (type_eq(type_elem(src), type_elem(dst)) && src.ptr_const == dst.ptr_const) return x;
	DType sd = (DType)src.dt, dd = (DType)dst.dt;
	if (bitcast && sd != DT_PTR && dd != DT_PTR) { /* with a pointer: a cast, as Triton's bitcast */
		if (dtype_bits(sd) != dtype_bits(dd)) {
			diag_error(s->d, loc, "cannot bitcast %s to %s: they differ in bit width", dt_name(s, src), dt_name(s, dst));
			return 0;
		}
		return emit(s, TOP_BITCAST, loc, &x, 1, out);
	}
	if (sd == DT_PTR && dd == DT_PTR) return emit(s, TOP_BITCAST, loc, &x, 1, out);
	if (sd == DT_PTR) {
		if (!dtype_is_int(dd)) {
			diag_error(s->d, loc, "cannot cast %s to %s", dt_name(s, src), dt_name(s, dst));
			return 0;
		}
		if (dd == DT_I1) return to_bool(s, x, loc);
		/* Triton's semantic.cast turns a pointer only into a 64-bit integer or int1: a
		 * narrower integer would keep the low bits of the address. */
		if (dtype_bits(dd) != 64) {
			diag_error(s->d, loc, "cannot cast %s to %s: a pointer casts only to int64, uint64, int1 or another pointer",
				   dt_name(s, src), dt_name(s, dst));
			return 0;
		}
		ValId i = emit(s, TOP_PTR_TO_INT, loc, &x, 1, with_shape(type_scalar(DT_I64), src));
		return dd == DT_I64 ? i : cast_val(s, i, dst, false, 0, loc);
	}
	if (dd == DT_PTR) {
		if (!dtype_is_int(sd)) {
			diag_error(s->d, loc, "cannot cast %s to %s", dt_name(s, src), dt_name(s, dst));
			return 0;
		}
		return emit(s, TOP_INT_TO_PTR, loc, &x, 1, out);
	}
	if (dd == DT_I1) return to_bool(s, x, loc);
	TirOp *op = emit_op(s, TOP_CAST, loc, &x, 1, out);
	op->attr.flags = flags;
	return op->results[0];
}

/* ---- broadcasting ---------------------------------------------------------------- */

/* A splat of a scalar constant is a tile constant. */
static ValId splat_scalar(Sema *s, ValId x, Type to, SrcLoc loc)
{
	TirVal *v = tir_val(s->f, x);
	if (v->def && v->def->kind == TOP_CONST) {
		TirOp *op = emit_op(s, TOP_CONST, loc, NULL, 0, to);
		op->attr = v->def->attr;
		return op->results[0];
	}
	return emit(s, TOP_SPLAT, loc, &x, 1, to);
}

ValId splat_to(Sema *s, ValId x, Type like, SrcLoc loc)
{
	Type t = vtype(s, x);
	if (t.rank) return x;
	return splat_scalar(s, x, with_shape(t, like), loc);
}

static ValId expand_front(Sema *s, ValId x, int rank, SrcLoc loc)
{
	while (vtype(s, x).rank < rank) {
		Type t = vtype(s, x);
		Type r = t;
		r.rank = (uint8_t)(t.rank + 1);
		r.shape[0] = 1;
		for (int i = 0; i < t.rank; i++) r.shape[i + 1] = t.shape[i];
		TirOp *op = emit_op(s, TOP_EXPAND_DIMS, loc, &x, 1, r);
		op->attr.axis = 0;
		x = op->results[0];
	}
	return x;
}

static void mismatch(Sema *s, Type a, Type b, SrcLoc loc)
{
	char x[96], y[96];
	shape_str(a, x, sizeof x);
	shape_str(b, y, sizeof y);
	diag_error(s->d, loc, "shape mismatch: %s vs %s", x, y);
}

ValId broadcast_to_shape(Sema *s, ValId x, int rank, const int32_t *shape, SrcLoc loc)
{
	Type t = vtype(s, x);
	Type want = type_tile(type_elem(t), rank, shape);
	if (type_eq(t, want)) return x;
	if (t.rank == 0) return rank ? splat_scalar(s, x, want, loc) : x;
	if (t.rank > rank) {
		mismatch(s, t, want, loc);
		return 0;
	}
	for (int i = 0; i < t.rank; i++) {
		int32_t have = t.shape[i], need = shape[rank - t.rank + i];
		if (have != need && have != 1) {
			mismatch(s, t, want, loc);
			return 0;
		}
	}
	x = expand_front(s, x, rank, loc);
	if (type_eq(vtype(s, x), want)) return x;
	return emit(s, TOP_BROADCAST, loc, &x, 1, want);
}

bool broadcast_pair(Sema *s, ValId *a, ValId *b, SrcLoc loc)
{
	Type ta = vtype(s, *a), tb = vtype(s, *b);
	if (ta.rank == 0 && tb.rank == 0) return true;
	if (ta.rank == 0) {
		*a = splat_to(s, *a, tb, loc);
		return true;
	}
	if (tb.rank == 0) {
		*b = splat_to(s, *b, ta, loc);
		return true;
	}
	int rank = MAXOF(ta.rank, tb.rank);
	int32_t shape[TIR_MAX_RANK];
	for (int i = 0; i < rank; i++) {
		int ia = i - (rank - ta.rank), ib = i - (rank - tb.rank);
		int32_t da = ia >= 0 ? ta.shape[ia] : 1, db = ib >= 0 ? tb.shape[ib] : 1;
		if (da != db && da != 1 && db != 1) {
			mismatch(s, ta, tb, loc);
			return false;
		}
		shape[i] = da == 1 ? db : da;
	}
	if (!check_tile_shape(s, rank, shape, loc)) return false;
	*a = broadcast_to_shape(s, *a, rank, shape, loc);
	*b = broadcast_to_shape(s, *b, rank, shape, loc);
	return *a && *b;
}

/* ---- computation types ------------------------------------------------------------ */

/* Triton's dtype.kind(): bool < integer < floating; signed and unsigned
 * integers are the same kind, so a weak int constant next to an unsigned
 * tensor takes the tensor's type (x_u8 % 3 is a uint8 op). */
static int kind_rank(DType d)
{
	if (d == DT_I1) return 0;
	if (dtype_is_int(d)) return 1;
	return 2;
}

DType integer_promote(DType a, DType b)
{
	int ra = dtype_bits(a), rb = dtype_bits(b);
	bool sa = dtype_is_signed(a) || a == DT_I1, sb = dtype_is_signed(b) || b == DT_I1;
	if (sa == sb) return ra > rb ? a : b;
	if (!sa) return ra >= rb ? a : b;
	return rb >= ra ? b : a;
}

static bool is_fp8(DType d) { return d == DT_F8E4M3 || d == DT_F8E5M2; }

DType computation_dtype(Sema *s, Value a, Value b, bool div_or_mod, SrcLoc loc, const char *opname)
{
	bool wa = a.kind == V_CONST, wb = b.kind == V_CONST;
	DType ta = wa ? (DType)const_natural_type(a.c).dt : (DType)a.ty.dt;
	DType tb = wb ? (DType)const_natural_type(b.c).dt : (DType)b.ty.dt;
	if (ta == DT_VOID || tb == DT_VOID || ta == DT_PTR || tb == DT_PTR) {
		diag_error(s->d, loc, "unsupported operand types for %s: %s and %s", opname, v_describe(s, a), v_describe(s, b));
		return DT_VOID;
	}
	if (wa != wb) {
		Value sc = wa ? a : b;
		DType st = wa ? ta : tb, tt = wa ? tb : ta;
		if (kind_rank(st) <= kind_rank(tt) && (!dtype_is_int(tt) || const_fits(sc.c, tt))) {
			if (div_or_mod && (tt == DT_F16 || tt == DT_BF16)) return DT_F32;
			return tt;
		}
	}
	if (ta == DT_F64 || tb == DT_F64) return DT_F64;
	if (ta == DT_F32 || tb == DT_F32) return DT_F32;
	/* Triton's order: fp16 with anything below fp32 (bf16 too) is fp16; bf16 stays
	 * bf16 only with bf16, and is fp32 with anything else (fp8, integers) */
	if (ta == DT_F16 || tb == DT_F16) return div_or_mod ? DT_F32 : DT_F16;
	if (ta == DT_BF16 && tb == DT_BF16) return div_or_mod ? DT_F32 : DT_BF16;
	if (ta == DT_BF16 || tb == DT_BF16) return DT_F32;
	if (is_fp8(ta) && is_fp8(tb)) return ta == tb ? ta : DT_F16;
	if (is_fp8(ta) || is_fp8(tb)) return is_fp8(ta) ? ta : tb;
	if (div_or_mod && dtype_is_signed(ta) != dtype_is_signed(tb) && ta != DT_I1 && tb != DT_I1) {
		diag_error(s->d, loc,
			   "cannot use /, // or %% with %s and %s because they have different signedness; cast them to the same "
			   "signedness",
			   dtype_name(ta), dtype_name(tb));
		return DT_VOID;
	}
	return integer_promote(ta, tb);
}

/* ---- binops ------------------------------------------------------------------------ */

static const char *opname(AstOp op)
{
	switch (op) {
	case OP_ADD: return "+";
	case OP_SUB: return "-";
	case OP_MUL: return "*";
	case OP_DIV: return "/";
	case OP_FLOORDIV: return "//";
	case OP_MOD: return "%";
	case OP_POW: return "**";
	case OP_LSHIFT: return "<<";
	case OP_RSHIFT: return ">>";
	case OP_BITAND: return "&";
	case OP_BITOR: return "|";
	case OP_BITXOR: return "^";
	case OP_LT: return "<";
	case OP_LE: return "<=";
	case OP_GT: return ">";
	case OP_GE: return ">=";
	case OP_EQ: return "==";
	case OP_NE: return "!=";
	default: return "?";
	}
}

static bool is_const_like(Value v) { return v.kind == V_CONST || v.kind == V_DTYPE; }
static bool is_num_const(Value v)
{
	return v.kind == V_CONST && (v.c.kind == CV_INT || v.c.kind == CV_BOOL || v.c.kind == CV_FLOAT);
}
static bool is_ptr(Value v) { return v.kind == V_TENSOR && v.ty.dt == DT_PTR; }

static Value emit_binary(Sema *s, TirOpKind k, ValId x, ValId y, SrcLoc loc, int flags)
{
	if (!broadcast_pair(s, &x, &y, loc)) return v_err();
	ValId in[2] = {x, y};
	TirOp *op = emit_op(s, k, loc, in, 2, vtype(s, x));
	op->attr.flags = flags;
	return v_tensor(s, op->results[0]);
}

static Value emit_cmp(Sema *s, TirPred p, ValId x, ValId y, SrcLoc loc)
{
	if (!broadcast_pair(s, &x, &y, loc)) return v_err();
	ValId in[2] = {x, y};
	TirOp *op = emit_op(s, TOP_CMP, loc, in, 2, with_shape(type_scalar(DT_I1), vtype(s, x)));
	op->attr.pred = p;
	return v_tensor(s, op->results[0]);
}

static Value ptr_binop(Sema *s, AstOp op, Value a, Value b, SrcLoc loc)
{
	if (op == OP_ADD && !is_ptr(a)) {
		Value t = a;
		a = b;
		b = t;
	}
	if (op == OP_ADD || op == OP_SUB) {
		if (is_ptr(a) && is_ptr(b)) {
			diag_error(s->d, loc, "cannot %s pointer and pointer", op == OP_ADD ? "add" : "subtract");
			return v_err();
		}
		if (!is_ptr(a)) goto bad;
		ValId off;
		if (is_num_const(b) && b.c.kind != CV_FLOAT) off = to_ir_natural(s, b, loc);
		else if (b.kind == V_TENSOR && dtype_is_int((DType)b.ty.dt)) off = b.id;
		else goto bad;
		if (!off) return v_err();
		if (op == OP_SUB) off = emit(s, TOP_NEG, loc, &off, 1, vtype(s, off));
		ValId p = a.id;
		if (!broadcast_pair(s, &p, &off, loc)) return v_err();
		ValId in[2] = {p, off};
		return v_tensor(s, emit(s, TOP_PTR_ADD, loc, in, 2, vtype(s, p)));
	}
	if (op >= OP_LT && op <= OP_NE && is_ptr(a) && is_ptr(b)) {
		static const TirPred preds[] = {[OP_LT] = PRED_LT, [OP_LE] = PRED_LE, [OP_GT] = PRED_GT,
						[OP_GE] = PRED_GE, [OP_EQ] = PRED_EQ, [OP_NE] = PRED_NE};
		ValId x = cast_val(s, a.id, type_scalar(DT_I64), false, 0, loc);
		ValId y = cast_val(s, b.id, type_scalar(DT_I64), false, 0, loc);
		return emit_cmp(s, preds[op], x, y, loc);
	}
bad:
	diag_error(s->d, loc, "unsupported operand types for %s: %s and %s", opname(op), v_describe(s, a), v_describe(s, b));
	return v_err();
}

/* (1, 'b') < (1, 'c'): Python's lexicographic order of sequences (the first
 * items that differ decide, else the shorter is less), on constexpr items */
static Value tuple_order(Sema *s, AstOp op, Value a, Value b, SrcLoc loc)
{
	if (a.list != b.list) {
		s->py_errors++;
		diag_error(s->d, loc, "'%s' not supported between instances of '%s' and '%s' (a TypeError in Python)",
			   opname(op), a.list ? "list" : "tuple", b.list ? "list" : "tuple");
		return v_err();
	}
	int i = 0;
	for (; i < a.n && i < b.n; i++) {
		/* == as a comparison says it (tuples of tuples), not binop: nested
		 * tuples were 'unsupported operand types for ==' */
		Value eq = compare_one(s, OP_EQ, a.items[i], b.items[i], loc);
		if (eq.kind == V_ERR) return eq;
		if (!v_is_intlike(eq)) break; /* a tensor: its own comparison says */
		if (!eq.c.i) return compare_one(s, op, a.items[i], b.items[i], loc);
	}
	if (i < a.n && i < b.n) {
		diag_error(s->d, loc, "'%s' of tuples compares their items at compile time: they must be constexprs", opname(op));
		return v_err();
	}
	int64_t d = (int64_t)a.n - b.n;
	return v_bool(op == OP_LT ? d < 0 : op == OP_LE ? d <= 0 : op == OP_GT ? d > 0 : d >= 0);
}

Value binop(Sema *s, AstOp op, Value a, Value b, SrcLoc loc)
{
	if (a.kind == V_ERR || b.kind == V_ERR) return v_err();
	Value flag;
	if (enum_flag_op(s, op, a, b, &flag)) return flag; /* Perm.R | Perm.W */
	if (op == OP_IS || op == OP_ISNOT) {
		if (is_const_like(a) && is_const_like(b)) return const_binop(s, op, a, b, loc);
		bool same = values_identical(a, b);
		return v_bool(op == OP_IS ? same : !same);
	}
	if (op == OP_MOD && a.kind == V_CONST && a.c.kind == CV_STR) return str_percent(s, a.c.s ? a.c.s : "", b, loc);
	if ((a.kind == V_TUPLE && a.set) || (b.kind == V_TUPLE && b.set)) return set_binop(s, op, a, b, loc);
	if (a.kind == V_TUPLE && b.kind == V_TUPLE && op >= OP_LT && op <= OP_GE) return tuple_order(s, op, a, b, loc);
	if (is_const_like(a) && is_const_like(b)) return const_binop(s, op, a, b, loc);
	if (a.kind == V_TUPLE && b.kind == V_TUPLE && op == OP_ADD) return tuple_grow(s, a, b.items, b.n, loc);
	if (op == OP_MUL && (a.kind == V_TUPLE || b.kind == V_TUPLE)) {
		/* Python's sequence repetition: [1] * n, n * (a, b); a count <= 0 gives () */
		Value t = a.kind == V_TUPLE ? a : b, c = a.kind == V_TUPLE ? b : a;
		if (c.kind != V_CONST || (c.c.kind != CV_INT && c.c.kind != CV_BOOL)) {
			diag_error(s->d, loc, "can't multiply a tuple by %s: the count must be a constexpr integer",
				   v_describe(s, c));
			return v_err();
		}
		int64_t n = c.c.u64 ? INT64_MAX : c.c.i < 0 ? 0 : c.c.i;
		if (!t.n) return t;
		if (n > 4096 / t.n) {
			s->py_errors++;
			diag_error(s->d, loc, "tuple repetition gives %lld items, more than 4096", (long long)n * t.n);
			return v_err();
		}
		int len = (int)n * t.n;
		if (!sema_work(s, len, loc)) return v_err();
		Value *items = ARENA_NEWN(s->a, Value, len + 1);
		for (int i = 0; i < (int)n; i++)
			memcpy(items + (size_t)i * (size_t)t.n, t.items, sizeof(Value) * (size_t)t.n);
		Value r = v_tuple(s, items, len);
		r.list = t.list;
		return r;
	}
	if (op == OP_MATMUL) {
		int id = builtin_find("dot", BF_TL);
		Call c = {.name = "tl.dot", .loc = loc};
		c.a[0] = a;
		c.a[1] = b;
		c.has[0] = c.has[1] = true;
		c.at[0] = c.at[1] = loc;
		return builtin_get(id)->fn(s, &c, 0);
	}
	bool ok_a = a.kind == V_TENSOR || is_num_const(a), ok_b = b.kind == V_TENSOR || is_num_const(b);
	if (!ok_a || !ok_b) {
		diag_error(s->d, loc, "unsupported operand types for %s: %s and %s", opname(op), v_describe(s, a), v_describe(s, b));
		return v_err();
	}
	if (is_ptr(a) || is_ptr(b)) return ptr_binop(s, op, a, b, loc);
	if (op == OP_POW) {
		diag_error(s->d, loc, "'**' is not supported on tensors; use tl.math.pow");
		return v_err();
	}
	bool divmod = op == OP_DIV || op == OP_FLOORDIV || op == OP_MOD;
	DType dt = computation_dtype(s, a, b, divmod, loc, opname(op));
	if (dt == DT_VOID) return v_err();
	switch (op) {
	case OP_DIV:
		if (dtype_is_int(dt)) dt = DT_F32;
		break;
	case OP_LSHIFT:
	case OP_RSHIFT:
	case OP_BITAND:
	case OP_BITOR:
	case OP_BITXOR:
		if (!dtype_is_int(dt)) {
			diag_error(s->d, loc, "unsupported operand types for %s: %s and %s (bitwise operators need integers)",
				   opname(op), v_describe(s, a), v_describe(s, b));
			return v_err();
		}
		break;
	default: break;
	}
	/* x * 1, x + 0, x - 0 (a weak constant that leaves the tensor's type alone) */
	if (is_num_const(b) && a.kind == V_TENSOR && a.ty.dt == dt && b.c.kind != CV_FLOAT) {
		if ((op == OP_MUL && b.c.i == 1) || ((op == OP_ADD || op == OP_SUB) && b.c.i == 0)) return a;
	}
	if (is_num_const(a) && b.kind == V_TENSOR && b.ty.dt == dt && a.c.kind != CV_FLOAT) {
		if ((op == OP_MUL && a.c.i == 1) || (op == OP_ADD && a.c.i == 0)) return b;
	}
	ValId x = to_ir(s, a, dt, loc), y = to_ir(s, b, dt, loc);
	if (!x || !y) return v_err();
	switch (op) {
	case OP_ADD: return emit_binary(s, TOP_ADD, x, y, loc, 0);
	case OP_SUB: return emit_binary(s, TOP_SUB, x, y, loc, 0);
	case OP_MUL: return emit_binary(s, TOP_MUL, x, y, loc, 0);
	case OP_DIV: return emit_binary(s, TOP_DIV, x, y, loc, 0);
	case OP_MOD: return emit_binary(s, TOP_REM, x, y, loc, 0);
	case OP_FLOORDIV: {
		Value q = emit_binary(s, TOP_DIV, x, y, loc, 0);
		if (q.kind == V_ERR || dtype_is_int(dt)) return q;
		TirOp *op2 = emit_op(s, TOP_MATH, loc, &q.id, 1, q.ty);
		op2->attr.math = MATH_FLOOR;
		return v_tensor(s, op2->results[0]);
	}
	case OP_LSHIFT: return emit_binary(s, TOP_SHL, x, y, loc, 0);
	case OP_RSHIFT: {
		/* Triton picks ashr or lshr from the tensor operand's own dtype (the
		 * left one, else the right one), before promotion: int8 >> uint8
		 * shifts the uint8 bits arithmetically. */
		DType own = (DType)(a.kind == V_TENSOR ? a.ty.dt : b.ty.dt);
		if (own == DT_I1 || dtype_is_signed(own) == dtype_is_signed(dt))
			return emit_binary(s, TOP_SHR, x, y, loc, 0);
		static const DType flip[][2] = {{DT_I8, DT_U8}, {DT_I16, DT_U16}, {DT_I32, DT_U32}, {DT_I64, DT_U64}};
		DType sd = dt;
		for (int i = 0; i < 4; i++)
			if (flip[i][0] == dt || flip[i][1] == dt) sd = flip[i][0] == dt ? flip[i][1] : flip[i][0];
		x = cast_val(s, x, type_scalar(sd), true, 0, loc);
		y = cast_val(s, y, type_scalar(sd), true, 0, loc);
		if (!x || !y) return v_err();
		Value r = emit_binary(s, TOP_SHR, x, y, loc, 0);
		if (r.kind == V_ERR) return r;
		return v_tensor(s, cast_val(s, r.id, type_scalar(dt), true, 0, loc));
	}
	case OP_BITAND: return emit_binary(s, TOP_AND, x, y, loc, 0);
	case OP_BITOR: return emit_binary(s, TOP_OR, x, y, loc, 0);
	case OP_BITXOR: return emit_binary(s, TOP_XOR, x, y, loc, 0);
	case OP_LT: return emit_cmp(s, PRED_LT, x, y, loc);
	case OP_LE: return emit_cmp(s, PRED_LE, x, y, loc);
	case OP_GT: return emit_cmp(s, PRED_GT, x, y, loc);
	case OP_GE: return emit_cmp(s, PRED_GE, x, y, loc);
	case OP_EQ: return emit_cmp(s, PRED_EQ, x, y, loc);
	case OP_NE: return emit_cmp(s, PRED_NE, x, y, loc);
	default: break;
	}
	diag_error(s->d, loc, "unsupported operator %s on tensors", opname(op));
	return v_err();
}

Value unop(Sema *s, AstOp op, Value a, SrcLoc loc)
{
	if (a.kind == V_ERR) return a;
	Value flag;
	if (op == OP_INVERT && enum_flag_invert(s, a, &flag)) return flag; /* ~Perm.R */
	if (a.kind == V_CONST) return const_unop(s, op, a, loc);
	if (op == OP_NOT && a.kind != V_TENSOR) return v_bool(a.kind == V_POISON || !value_truthy(a));
	if (a.kind != V_TENSOR) {
		const char *sp = op == OP_INVERT ? "~" : op == OP_NEG ? "-" : op == OP_POS ? "+" : "operator";
		diag_error(s->d, loc, "bad operand type for unary %s: %s", sp, v_describe(s, a));
		return v_err();
	}
	DType dt = (DType)a.ty.dt;
	if (dt == DT_PTR) {
		diag_error(s->d, loc, "bad operand type for unary operator: %s", v_describe(s, a));
		return v_err();
	}
	switch (op) {
	case OP_POS: return a;
	case OP_NEG: return v_tensor(s, emit(s, TOP_NEG, loc, &a.id, 1, a.ty));
	case OP_INVERT:
		if (!dtype_is_int(dt)) {
			diag_error(s->d, loc, "bad operand type for ~: %s (needs an integer)", v_describe(s, a));
			return v_err();
		}
		return v_tensor(s, emit(s, TOP_NOT, loc, &a.id, 1, a.ty));
	case OP_NOT: {
		ValId z = emit_const(s, a.ty, 0, 0.0, loc);
		ValId in[2] = {a.id, z};
		TirOp *o = emit_op(s, TOP_CMP, loc, in, 2, with_shape(type_scalar(DT_I1), a.ty));
		o->attr.pred = PRED_EQ;
		return v_tensor(s, o->results[0]);
	}
	default: break;
	}
	diag_error(s->d, loc, "unsupported unary operator");
	return v_err();
}

/* ---- where / minimum / maximum ---------------------------------------------------- */

Value make_where(Sema *s, Value c, Value a, Value b, SrcLoc loc)
{
	if (c.kind == V_ERR || a.kind == V_ERR || b.kind == V_ERR) return v_err();
	ValId cond = to_ir_natural(s, c, loc);
	if (!cond) return v_err();
	cond = to_bool(s, cond, loc);
	DType dt;
	if (is_ptr(a) || is_ptr(b)) {
		if (!is_ptr(a) || !is_ptr(b) || a.ty.elem != b.ty.elem) {
			diag_error(s->d, loc, "dtype mismatch in tl.where: %s vs %s", dt_name(s, a.kind == V_TENSOR ? a.ty : const_natural_type(a.c)),
				   dt_name(s, b.kind == V_TENSOR ? b.ty : const_natural_type(b.c)));
			return v_err();
		}
		dt = DT_PTR;
	} else if (a.kind == V_CONST && b.kind == V_CONST) {
		if (!is_num_const(a) || !is_num_const(b)) {
			diag_error(s->d, loc, "tl.where needs numbers or tensors, got %s and %s", v_describe(s, a), v_describe(s, b));
			return v_err();
		}
		Type ta = const_natural_type(a.c), tb = const_natural_type(b.c);
		dt = computation_dtype(s, (Value){.kind = V_TENSOR, .ty = ta}, (Value){.kind = V_TENSOR, .ty = tb}, false, loc,
				       "tl.where");
	} else {
		dt = computation_dtype(s, a, b, false, loc, "tl.where");
	}
	if (dt == DT_VOID) return v_err();
	ValId x = dt == DT_PTR ? a.id : to_ir(s, a, dt, loc);
	ValId y = dt == DT_PTR ? b.id : to_ir(s, b, dt, loc);
	if (!x || !y) return v_err();
	if (!broadcast_pair(s, &x, &y, loc) || !broadcast_pair(s, &cond, &x, loc) || !broadcast_pair(s, &x, &y, loc) ||
	    !broadcast_pair(s, &cond, &y, loc))
		return v_err();
	ValId in[3] = {cond, x, y};
	return v_tensor(s, emit(s, TOP_SELECT, loc, in, 3, vtype(s, x)));
}

/* tl.maximum / tl.minimum / tl.clamp (and Python's max / min of tensors,
 * which Triton maps to them) make Python numbers tensors of their own type
 * first (core.py to_tensor: an int is int32, a float fp32) and bf16 fp32, so
 * no operand is weak: tl.maximum(x_fp16, 0.0) is fp32, as in Triton. */
static Value minmax_operand(Sema *s, Value v, SrcLoc loc)
{
	if (is_num_const(v)) {
		ValId id = to_ir_natural(s, v, loc);
		if (!id) return v_err();
		v = v_tensor(s, id);
	}
	if (v.kind == V_TENSOR && v.ty.dt == DT_BF16) {
		ValId id = cast_val(s, v.id, type_scalar(DT_F32), false, 0, loc);
		if (!id) return v_err();
		v = v_tensor(s, id);
	}
	return v;
}

Value make_minmax(Sema *s, bool is_max, Value a, Value b, bool propagate_nan, SrcLoc loc)
{
	if (a.kind == V_ERR || b.kind == V_ERR) return v_err();
	if (is_num_const(a) && is_num_const(b)) {
		Value lt = const_binop(s, OP_LT, a, b, loc);
		return (lt.c.i != 0) == is_max ? b : a;
	}
	a = minmax_operand(s, a, loc);
	b = minmax_operand(s, b, loc);
	if (a.kind == V_ERR || b.kind == V_ERR) return v_err();
	DType dt = computation_dtype(s, a, b, false, loc, is_max ? "tl.maximum" : "tl.minimum");
	if (dt == DT_VOID) return v_err();
	ValId x = to_ir(s, a, dt, loc), y = to_ir(s, b, dt, loc);
	if (!x || !y) return v_err();
	return emit_binary(s, is_max ? TOP_MAX : TOP_MIN, x, y, loc,
			   propagate_nan && dtype_is_float(dt) ? TIR_PROPAGATE_NAN : 0);
}

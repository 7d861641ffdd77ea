/* builtins_reduce.c: reductions and scans. Each becomes one REDUCE / SCAN op
 * whose region combines two scalars (acc..., x...): built-in combiners are
 * emitted directly, a user @jit combine_fn is inlined into the region.
 * Dtype rules follow triton/language/standard.py: sum/cumsum widen ints
 * below 32 bits; max/min widen below 32 bits (bf16/fp16 -> fp32, ints ->
 * int32) unless indices are returned; argmax/argmin carry an int32 index. */
#include <string.h>

#include "sema/sema_int.h"

typedef enum { CMB_ADD, CMB_MUL, CMB_MAX, CMB_MIN, CMB_XOR, CMB_OR, CMB_ARGMAX, CMB_ARGMIN, CMB_USER } Combiner;

typedef struct Comb {
	Combiner kind;
	bool tie_left;
	Value user;
	const char *op; /* the builtin's name ("tl.reduce"), for CMB_USER's errors */
} Comb;

static ValId bin(Sema *s, TirOpKind k, ValId a, ValId b, SrcLoc loc)
{
	ValId in[2] = {a, b};
	return emit(s, k, loc, in, 2, vtype(s, a));
}

static ValId cmp(Sema *s, TirPred p, ValId a, ValId b, SrcLoc loc)
{
	ValId in[2] = {a, b};
	Type t = vtype(s, a);
	TirOp *op = emit_op(s, TOP_CMP, loc, in, 2, type_tile(type_scalar(DT_I1), t.rank, t.shape));
	op->attr.pred = p;
	return op->results[0];
}

static ValId sel(Sema *s, ValId c, ValId a, ValId b, SrcLoc loc)
{
	ValId in[3] = {c, a, b};
	return emit(s, TOP_SELECT, loc, in, 3, vtype(s, a));
}

/* Fills the combine region (current block): returns false after an error. */
static bool combine_body(Sema *s, const Comb *cb, const ValId *args, int n, ValId *out, SrcLoc loc)
{
	const ValId *acc = args, *x = args + n;
	switch (cb->kind) {
	case CMB_ADD: out[0] = bin(s, TOP_ADD, acc[0], x[0], loc); return true;
	case CMB_MUL: out[0] = bin(s, TOP_MUL, acc[0], x[0], loc); return true;
	case CMB_MAX: out[0] = bin(s, TOP_MAX, acc[0], x[0], loc); return true;
	case CMB_MIN: out[0] = bin(s, TOP_MIN, acc[0], x[0], loc); return true;
	case CMB_XOR: out[0] = bin(s, TOP_XOR, acc[0], x[0], loc); return true;
	case CMB_OR: out[0] = bin(s, TOP_OR, acc[0], x[0], loc); return true;
	case CMB_ARGMAX:
	case CMB_ARGMIN: {
		ValId better = cmp(s, cb->kind == CMB_ARGMAX ? PRED_GT : PRED_LT, acc[0], x[0], loc);
		if (cb->tie_left) {
			ValId eq = cmp(s, PRED_EQ, acc[0], x[0], loc);
			ValId lt = cmp(s, PRED_LT, acc[1], x[1], loc);
			better = bin(s, TOP_OR, better, bin(s, TOP_AND, eq, lt, loc), loc);
		}
		out[0] = sel(s, better, acc[0], x[0], loc);
		out[1] = sel(s, better, acc[1], x[1], loc);
		return true;
	}
	case CMB_USER: {
		Value *vs = ARENA_NEWN(s->a, Value, 2 * n);
		for (int i = 0; i < 2 * n; i++) vs[i] = v_tensor(s, args[i]);
		s->combine_depth++;
		Value r = cb->user.kind == V_LAMBDA ? call_lambda(s, cb->user, vs, 2 * n, NULL, NULL, 0, loc)
						     : call_user(s, cb->user, vs, 2 * n, NULL, NULL, 0, loc);
		s->combine_depth--;
		if (r.kind == V_ERR) return false;
		const Value *items = r.kind == V_TUPLE ? r.items : &r;
		int nr = r.kind == V_TUPLE ? r.n : 1;
		if (nr != n) {
			diag_error(s->d, loc, "combine_fn returned %d value%s, expected %d", nr, nr == 1 ? "" : "s", n);
			return false;
		}
		for (int i = 0; i < n; i++) {
			Type want = vtype(s, args[i]);
			if (items[i].kind == V_TENSOR && items[i].ty.rank) {
				diag_error(s->d, loc, "combine_fn must return scalars, got %s", v_describe(s, items[i]));
				return false;
			}
			/* Triton yields the returned values as they are (a number
			 * as its natural type) and its verifier rejects a type that
			 * is not the input's, so no cast is inserted here. */
			Type got = items[i].kind == V_TENSOR ? items[i].ty
				   : items[i].kind == V_CONST ? const_natural_type(items[i].c)
							      : type_scalar(DT_VOID);
			if (got.dt != DT_VOID && got.dt != want.dt) {
				const char *fname = cb->user.kind == V_FUNC ? cb->user.fn->name : "<lambda>";
				diag_error(s->d, loc,
					   "combine_fn '%s' of '%s' returned %s for an input of %s%s; Triton requires "
					   "the input's dtype (cast the result with .to(...))",
					   fname, cb->op, dt_name(s, got), dt_name(s, want),
					   items[i].kind == V_CONST ? " (a number is its natural type)" : "");
				return false;
			}
			out[i] = to_ir(s, items[i], (DType)want.dt, loc);
			if (!out[i]) return false;
		}
		return true;
	}
	}
	return false;
}

static Type drop_axis(Type t, int axis)
{
	Type r = t;
	r.rank = (uint8_t)(t.rank - 1);
	for (int d = axis; d < r.rank; d++) r.shape[d] = t.shape[d + 1];
	r.shape[r.rank] = 0;
	return r;
}

/* One REDUCE (or SCAN) op over `axis` of n same-shape tiles. */
static bool build(Sema *s, TirOpKind kind, const ValId *ins, int n, int axis, int flags, const Comb *cb, SrcLoc loc,
		  ValId *res)
{
	Type *types = ARENA_NEWN(s->a, Type, n);
	for (int i = 0; i < n; i++) types[i] = kind == TOP_REDUCE ? drop_axis(vtype(s, ins[i]), axis) : vtype(s, ins[i]);
	TirOp *op = tir_op(s->f, s->blk, kind, op_loc(s, loc), ins, n, types, n);
	op->attr.axis = axis;
	op->attr.flags = flags;
	if (kind == TOP_REDUCE && (cb->kind == CMB_ARGMAX || cb->kind == CMB_ARGMIN))
		op->attr.flags |= (cb->kind == CMB_ARGMAX ? TIR_ARGMAX : TIR_ARGMIN) | (cb->tie_left ? TIR_TIE_LEFT : 0);
	tir_op_add_regions(s->f, op, 1);
	TirBlock *r = &op->regions[0], *outer = s->blk;
	ValId *args = ARENA_NEWN(s->a, ValId, 2 * n);
	for (int i = 0; i < 2 * n; i++) args[i] = tir_block_add_arg(s->f, r, type_elem(vtype(s, ins[i % n])));
	s->blk = r;
	ValId *out = ARENA_NEWN(s->a, ValId, n);
	bool ok = combine_body(s, cb, args, n, out, loc);
	if (!ok)
		for (int i = 0; i < n; i++) out[i] = args[i];
	tir_op(s->f, s->blk, TOP_YIELD, op_loc(s, loc), out, n, NULL, 0);
	s->blk = outer;
	for (int i = 0; i < n; i++) res[i] = op->results[i];
	return ok;
}

ValId sema_expand_dim(Sema *s, ValId x, int axis, SrcLoc loc)
{
	Type t = vtype(s, x), r = t;
	r.rank++;
	for (int d = r.rank - 1; d > axis; d--) r.shape[d] = t.shape[d - 1];
	r.shape[axis] = 1;
	if (t.rank == 0) return emit(s, TOP_SPLAT, loc, &x, 1, r);
	TirOp *op = emit_op(s, TOP_EXPAND_DIMS, loc, &x, 1, r);
	op->attr.axis = axis;
	return op->results[0];
}

static bool get_inputs(Sema *s, Value input, SrcLoc loc, const char *name, ValId *ins, int *n)
{
	const Value *items = input.kind == V_TUPLE ? input.items : &input;
	int cnt = input.kind == V_TUPLE ? input.n : 1;
	if (cnt < 1 || cnt > 8) {
		diag_error(s->d, loc, "'%s' takes 1 to 8 tensors, got %d", name, cnt);
		return false;
	}
	for (int i = 0; i < cnt; i++) {
		if (items[i].kind == V_ERR) return false;
		if (items[i].kind != V_TENSOR || items[i].ty.rank == 0) {
			diag_error(s->d, loc, "'%s' expects a tile, got %s", name, v_describe(s, items[i]));
			return false;
		}
		ins[i] = items[i].id;
		if (i && !type_eq(type_tile(type_scalar(DT_I1), vtype(s, ins[i]).rank, vtype(s, ins[i]).shape),
				  type_tile(type_scalar(DT_I1), vtype(s, ins[0]).rank, vtype(s, ins[0]).shape))) {
			diag_error(s->d, loc, "the tensors of '%s' must have the same shape", name);
			return false;
		}
	}
	*n = cnt;
	return true;
}

static Value pack(Sema *s, const ValId *r, int n)
{
	if (n == 1) return v_tensor(s, r[0]);
	Value items[8];
	for (int i = 0; i < n; i++) items[i] = v_tensor(s, r[i]);
	return v_tuple(s, items, n);
}

static Value reduce_with(Sema *s, ValId *ins, int n, bool axis_none, int64_t axis_in, bool keep_dims, const Comb *cb,
			 SrcLoc loc, SrcLoc axis_loc)
{
	int rank = vtype(s, ins[0]).rank;
	ValId res[8];
	if (axis_none) {
		/* reduce every dim, last first */
		for (int i = 0; i < n; i++) res[i] = ins[i];
		for (int d = rank - 1; d >= 0; d--) {
			ValId tmp[8];
			if (!build(s, TOP_REDUCE, res, n, d, 0, cb, loc, tmp)) return v_err();
			memcpy(res, tmp, sizeof(ValId) * (size_t)n);
		}
		if (keep_dims)
			for (int i = 0; i < n; i++) {
				int32_t ones[TIR_MAX_RANK] = {1, 1, 1, 1};
				res[i] = emit(s, TOP_SPLAT, loc, &res[i], 1, type_tile(vtype(s, res[i]), rank, ones));
			}
		return pack(s, res, n);
	}
	int axis = norm_axis(s, axis_in, rank, axis_loc);
	if (axis < 0) return v_err();
	if (!build(s, TOP_REDUCE, ins, n, axis, 0, cb, loc, res)) return v_err();
	if (keep_dims)
		for (int i = 0; i < n; i++) res[i] = sema_expand_dim(s, res[i], axis, loc);
	return pack(s, res, n);
}

static bool axis_arg(Sema *s, Call *c, int i, bool *none, int64_t *axis)
{
	*none = !c->has[i] || v_is_none(c->a[i]);
	if (*none) return true;
	return arg_const_int(s, c, i, axis);
}

static ValId widen(Sema *s, ValId x, bool for_sum, SrcLoc loc)
{
	DType d = (DType)vtype(s, x).dt;
	DType to = d;
	if (for_sum) { /* Triton's _pick_sum_dtype: int1 is unsigned (UINT_TYPES), so a sum of bools is uint32 */
		if (dtype_is_signed(d) && dtype_bits(d) < 32) to = DT_I32;
		else if (dtype_is_int(d) && dtype_bits(d) < 32) to = DT_U32;
	} else if (dtype_bits(d) < 32) { /* tl.max / tl.min: Triton widens every narrow integer to int32 */
		to = dtype_is_float(d) ? DT_F32 : DT_I32;
	}
	return to == d ? x : cast_val(s, x, type_scalar(to), false, 0, loc);
}

static Value b_sum(Sema *s, Call *c, int kind)
{
	ValId x;
	bool none, keep = false;
	int64_t axis = 0;
	if (!arg_tensor(s, c, 0, &x) || !axis_arg(s, c, 1, &none, &axis)) return v_err();
	if (c->has[2] && !arg_bool(s, c, 2, &keep)) return v_err();
	if (vtype(s, x).rank == 0 && none) { /* axis=None reduces the [numel] view, as Triton: a scalar too */
		int32_t one = 1;
		x = shape_reshape(s, x, 1, &one, c->at[0]);
	}
	if (vtype(s, x).rank == 0) {
		diag_error(s->d, c->at[0], "'%s' expects a tile, got a scalar", c->name);
		return v_err();
	}
	DType d = (DType)vtype(s, x).dt;
	if (d == DT_PTR) {
		diag_error(s->d, c->at[0], "'%s' of pointers", c->name);
		return v_err();
	}
	Comb cb = {.kind = (Combiner)kind};
	if (kind == CMB_ADD) {
		if (c->has[3] && !v_is_none(c->a[3])) {
			Type dt;
			if (!arg_dtype(s, c, 3, &dt)) return v_err();
			x = cast_val(s, x, dt, false, 0, c->loc);
		} else {
			x = widen(s, x, true, c->loc);
		}
	} else if (kind == CMB_XOR || kind == CMB_OR) {
		if (!dtype_is_int(d)) {
			diag_error(s->d, c->at[0], "'%s' is only supported for integers, got %s", c->name, dtype_name(d));
			return v_err();
		}
	}
	return reduce_with(s, &x, 1, none, axis, keep, &cb, c->loc, c->at[1]);
}

/* max/min(input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False) */
static Value b_max(Sema *s, Call *c, int is_max)
{
	ValId x;
	bool none, keep = false, ret_idx = false, tie_left = true;
	int64_t axis = 0;
	if (!arg_tensor(s, c, 0, &x) || !axis_arg(s, c, 1, &none, &axis)) return v_err();
	if ((c->has[2] && !arg_bool(s, c, 2, &ret_idx)) || (c->has[3] && !arg_bool(s, c, 3, &tie_left)) ||
	    (c->has[4] && !arg_bool(s, c, 4, &keep)))
		return v_err();
	Type t = vtype(s, x);
	if (t.rank == 0) {
		diag_error(s->d, c->at[0], "'%s' expects a tile, got a scalar", c->name);
		return v_err();
	}
	if (t.dt == DT_PTR) {
		diag_error(s->d, c->at[0], "'%s' of pointers", c->name);
		return v_err();
	}
	if (t.dt == DT_BF16) x = cast_val(s, x, type_scalar(DT_F32), false, 0, c->loc);
	if (!ret_idx) {
		x = widen(s, x, false, c->loc);
		Comb cb = {.kind = is_max ? CMB_MAX : CMB_MIN};
		return reduce_with(s, &x, 1, none, axis, keep, &cb, c->loc, c->at[1]);
	}
	Comb cb = {.kind = is_max ? CMB_ARGMAX : CMB_ARGMIN, .tie_left = tie_left};
	t = vtype(s, x);
	int ax;
	if (none) {
		int32_t n = (int32_t)type_numel(t);
		if (t.rank != 1) x = emit(s, TOP_RESHAPE, c->loc, &x, 1, type_tile(type_elem(t), 1, &n));
		t = vtype(s, x);
		ax = 0;
	} else {
		ax = norm_axis(s, axis, t.rank, c->at[1]);
		if (ax < 0) return v_err();
	}
	int32_t len = t.shape[ax];
	TirOp *ar = emit_op(s, TOP_ARANGE, c->loc, NULL, 0, type_tile(type_scalar(DT_I32), 1, &len));
	ar->attr.i = 0;
	ar->attr.i2 = len;
	ValId idx = ar->results[0];
	for (int d = 0; d < t.rank; d++) {
		if (d == ax) continue;
		idx = sema_expand_dim(s, idx, d, c->loc);
	}
	idx = broadcast_to_shape(s, idx, t.rank, t.shape, c->loc);
	ValId ins[2] = {x, idx};
	Value r = reduce_with(s, ins, 2, false, ax, keep && !none, &cb, c->loc, c->at[1]);
	if (r.kind == V_ERR || !none || !keep) return r;
	/* keep_dims with axis=None: shape [1]*rank */
	int32_t ones[TIR_MAX_RANK] = {1, 1, 1, 1};
	int rank = vtype(s, x).rank;
	Value items[2];
	for (int i = 0; i < 2; i++)
		items[i] = v_tensor(s, emit(s, TOP_SPLAT, c->loc, &r.items[i].id, 1, type_tile(r.items[i].ty, rank, ones)));
	return v_tuple(s, items, 2);
}

/* argmax/argmin(input, axis, tie_break_left=True, keep_dims=False) */
static Value b_argmax(Sema *s, Call *c, int is_max)
{
	Call m = *c;
	memset(m.has, 0, sizeof m.has);
	m.a[0] = c->a[0];
	m.has[0] = true;
	m.at[0] = c->at[0];
	m.a[1] = c->a[1];
	m.has[1] = c->has[1];
	m.at[1] = c->at[1];
	m.a[2] = v_bool(true);
	m.has[2] = true;
	if (c->has[2]) {
		m.a[3] = c->a[2];
		m.has[3] = true;
		m.at[3] = c->at[2];
	}
	if (c->has[3]) {
		m.a[4] = c->a[3];
		m.has[4] = true;
		m.at[4] = c->at[3];
	}
	Value r = b_max(s, &m, is_max);
	if (r.kind != V_TUPLE) return r;
	return r.items[1];
}

/* Whether v holds a value of the running program (a tensor, a runtime argument, a
 * block pointer), which a combine region cannot see. */
static bool holds_runtime(Value v)
{
	switch (v.kind) {
	case V_TENSOR:
	case V_RTARG:
	case V_BLOCKPTR: return true;
	case V_TUPLE:
	case V_AGG:
		for (int i = 0; i < v.n; i++)
			if (holds_runtime(v.items[i])) return true;
		return false;
	default: return false;
	}
}

/* As Triton, a lambda combine_fn may capture constexpr values only: its captured
 * runtime values become names that may not be used. */
static Value combine_lambda(Sema *s, Call *c, Value f)
{
	Binding *cap = f.ncap ? ARENA_NEWN(s->a, Binding, f.ncap) : NULL;
	for (int k = 0; k < f.ncap; k++) {
		cap[k] = f.cap[k];
		if (holds_runtime(cap[k].v))
			cap[k].v = (Value){.kind = V_POISON,
					   .msg = arena_printf(s->a,
							       "a lambda used as combine_fn of '%s' can only capture "
							       "constexpr values; '%s' is %s",
							       c->name, cap[k].name, v_describe(s, cap[k].v))};
	}
	f.cap = cap;
	return f;
}

static bool combine_arg(Sema *s, Call *c, int i, Value *out)
{
	Value f = c->a[i];
	if (f.kind == V_ERR) return false;
	if (f.kind == V_LAMBDA) {
		*out = combine_lambda(s, c, f);
		return true;
	}
	/* standard.py's combine functions (_sum_combine, ...) are @jit functions
	 * there and prelude functions here */
	if (f.kind == V_BUILTIN && !f.self && (builtin_get(f.builtin)->flags & BF_PRELUDE))
		f = prelude_function(s, f.builtin, c->at[i]);
	if (f.kind == V_ERR) return false;
	if (f.kind != V_FUNC) {
		diag_error(s->d, c->at[i], "combine_fn of '%s' must be a @jit function, got %s", c->name, v_describe(s, f));
		return false;
	}
	*out = f;
	return true;
}

/* As Triton, a reduction or scan of a tuple of tensors gives a tuple, also
 * of one (`tmp3, = tl.associative_scan((tmp2,), 1, combine)`); of a bare
 * tensor, a tensor. */
static Value as_input_was(Sema *s, Value input, Value r)
{
	if (input.kind != V_TUPLE || r.kind == V_TUPLE || r.kind == V_ERR) return r;
	return v_tuple(s, &r, 1);
}

/* reduce(input, axis, combine_fn, keep_dims=False) */
static Value b_reduce(Sema *s, Call *c, int extra)
{
	(void)extra;
	ValId ins[8];
	int n;
	bool none, keep = false;
	int64_t axis = 0;
	Comb cb = {.kind = CMB_USER, .op = c->name};
	if (!get_inputs(s, c->a[0], c->at[0], c->name, ins, &n) || !axis_arg(s, c, 1, &none, &axis) ||
	    !combine_arg(s, c, 2, &cb.user))
		return v_err();
	if (c->has[3] && !arg_bool(s, c, 3, &keep)) return v_err();
	return as_input_was(s, c->a[0], reduce_with(s, ins, n, none, axis, keep, &cb, c->loc, c->at[1]));
}

static Value scan_with(Sema *s, Call *c, ValId *ins, int n, int64_t axis, bool reverse, const Comb *cb)
{
	int ax = norm_axis(s, axis, vtype(s, ins[0]).rank, c->at[1]);
	if (ax < 0) return v_err();
	ValId res[8];
	if (!build(s, TOP_SCAN, ins, n, ax, reverse ? TIR_REVERSE : 0, cb, c->loc, res)) return v_err();
	return pack(s, res, n);
}

/* cumsum/cumprod(input, axis=0, reverse=False, dtype=None) */
static Value b_cumsum(Sema *s, Call *c, int kind)
{
	ValId x;
	int64_t axis = 0;
	bool reverse = false;
	if (!arg_tensor(s, c, 0, &x) || (c->has[1] && !arg_const_int(s, c, 1, &axis)) ||
	    (c->has[2] && !arg_bool(s, c, 2, &reverse)))
		return v_err();
	if (vtype(s, x).rank == 0 || vtype(s, x).dt == DT_PTR) {
		diag_error(s->d, c->at[0], "'%s' expects a tile of numbers, got %s", c->name, v_describe(s, c->a[0]));
		return v_err();
	}
	if (vtype(s, x).dt == DT_BF16) x = cast_val(s, x, type_scalar(DT_F32), false, 0, c->loc);
	if (c->has[3] && !v_is_none(c->a[3])) {
		Type dt;
		if (!arg_dtype(s, c, 3, &dt)) return v_err();
		x = cast_val(s, x, dt, false, 0, c->loc);
	} else if (kind == CMB_ADD) {
		x = widen(s, x, true, c->loc);
	}
	Comb cb = {.kind = (Combiner)kind};
	return scan_with(s, c, &x, 1, axis, reverse, &cb);
}

/* associative_scan(input, axis, combine_fn, reverse=False) */
static Value b_assoc_scan(Sema *s, Call *c, int extra)
{
	(void)extra;
	ValId ins[8];
	int n;
	int64_t axis;
	bool reverse = false;
	Comb cb = {.kind = CMB_USER, .op = c->name};
	if (!get_inputs(s, c->a[0], c->at[0], c->name, ins, &n) || !arg_const_int(s, c, 1, &axis) ||
	    !combine_arg(s, c, 2, &cb.user))
		return v_err();
	if (c->has[3] && !arg_bool(s, c, 3, &reverse)) return v_err();
	return as_input_was(s, c->a[0], scan_with(s, c, ins, n, axis, reverse, &cb));
}

const Builtin builtins_reduce[] = {
    {"sum", "input,axis=None,keep_dims=False,dtype=None", b_sum, CMB_ADD, BF_TL | BF_METHOD},
    {"xor_sum", "input,axis=None,keep_dims=False", b_sum, CMB_XOR, BF_TL | BF_METHOD},
    {"reduce_or", "input,axis,keep_dims=False", b_sum, CMB_OR, BF_TL | BF_METHOD},
    {"max", "input,axis=None,return_indices=False,return_indices_tie_break_left=True,keep_dims=False", b_max, 1,
     BF_TL | BF_METHOD},
    {"min", "input,axis=None,return_indices=False,return_indices_tie_break_left=True,keep_dims=False", b_max, 0,
     BF_TL | BF_METHOD},
    {"argmax", "input,axis,tie_break_left=True,keep_dims=False", b_argmax, 1, BF_TL | BF_METHOD},
    {"argmin", "input,axis,tie_break_left=True,keep_dims=False", b_argmax, 0, BF_TL | BF_METHOD},
    {"reduce", "input,axis,combine_fn,keep_dims=False", b_reduce, 0, BF_TL | BF_METHOD},
    {"cumsum", "input,axis=0,reverse=False,dtype=None", b_cumsum, CMB_ADD, BF_TL | BF_METHOD},
    {"cumprod", "input,axis=0,reverse=False,dtype=None", b_cumsum, CMB_MUL, BF_TL | BF_METHOD},
    {"associative_scan", "input,axis,combine_fn,reverse=False", b_assoc_scan, 0, BF_TL | BF_METHOD},
    {NULL, NULL, NULL, 0, 0},
};

/* blockptr.c: block pointers (tl.make_block_ptr, tl.advance) and tensor
 * descriptors (tl.make_tensor_descriptor) lowered in sema
 * to tensors of pointers plus masks:
 *   idx_d = offset_d + arange(0, block_d)                (int32)
 *   ptrs  = base + sum_d idx_d[..., None, ...] * stride_d (broadcast)
 *   mask  = AND over boundary_check dims of (0 <= idx_d) & (idx_d < shape_d)
 * Offsets are int32 (as in Triton); the index arithmetic uses int32 unless a
 * stride or shape is an int64 value. padding_option "zero" / "nan" becomes
 * the load's `other`.
 *
 * A tensor descriptor is a block pointer whose offsets come with each access:
 * desc.load([i, j]) reads the block at (i, j) with every dimension checked,
 * elements outside the tensor reading as the padding; desc.store and the
 * descriptor atomics touch only elements inside it. Triton uses TMA for these
 * on Hopper; here they are ordinary masked (vectorized) accesses with the same
 * results. */
#include <math.h>
#include <string.h>

#include "sema/sema_int.h"

static bool int_scalar(Sema *s, Value v, SrcLoc loc, const char *what)
{
	if (v.kind == V_ERR) return false;
	if (v_is_intlike(v)) return true;
	if (v.kind == V_TENSOR && v.ty.rank == 0 && dtype_is_int((DType)v.ty.dt)) return true;
	diag_error(s->d, loc, "%s must be integer scalars, got %s", what, v_describe(s, v));
	return false;
}

static bool tuple_arg(Sema *s, Call *c, int i, int rank, Value *out, const char *what)
{
	Value v = c->a[i];
	if (v.kind == V_ERR) return false;
	const Value *items = v.kind == V_TUPLE ? v.items : &v;
	int n = v.kind == V_TUPLE ? v.n : 1;
	if (n != rank) {
		diag_error(s->d, c->at[i], "'%s' of '%s' has %d entr%s, expected %d (the rank of block_shape)", what, c->name, n,
			   n == 1 ? "y" : "ies", rank);
		return false;
	}
	for (int k = 0; k < n; k++) {
		if (!int_scalar(s, items[k], c->at[i], what)) return false;
		out[k] = items[k];
	}
	return true;
}

/* A block pointer (or descriptor) on the call's scalar pointer argument 0, or NULL. */
static BlockPtr *new_block_ptr(Sema *s, Call *c)
{
	Value base = c->a[0];
	if (base.kind == V_ERR) return NULL;
	if (base.kind != V_TENSOR || base.ty.dt != DT_PTR || base.ty.rank) {
		diag_error(s->d, c->at[0], "the base of '%s' must be a scalar pointer, got %s", c->name, v_describe(s, base));
		return NULL;
	}
	BlockPtr *bp = ARENA_NEW(s->a, BlockPtr);
	bp->base = base;
	return bp;
}

static Value b_make_block_ptr(Sema *s, Call *c, int extra)
{
	(void)extra;
	BlockPtr *bp = new_block_ptr(s, c);
	if (!bp) return v_err();
	int32_t order[TIR_MAX_RANK];
	int rank, nord;
	if (!arg_shape(s, c, 4, bp->block, &rank)) return v_err();
	bp->rank = rank;
	if (!tuple_arg(s, c, 1, rank, bp->shape, "shape") || !tuple_arg(s, c, 2, rank, bp->strides, "strides") ||
	    !tuple_arg(s, c, 3, rank, bp->offsets, "offsets"))
		return v_err();
	if (!as_int_list(s, c->a[5], c->at[5], "order", order, TIR_MAX_RANK, &nord)) return v_err();
	unsigned seen = 0;
	bool ok = nord == rank;
	for (int i = 0; ok && i < nord; i++) {
		ok = order[i] >= 0 && order[i] < rank && !(seen & (1u << order[i]));
		seen |= 1u << (order[i] & 31);
		bp->order[i] = order[i];
	}
	if (!ok) {
		diag_error(s->d, c->at[5], "order of '%s' must be a permutation of 0..%d", c->name, rank - 1);
		return v_err();
	}
	for (int i = 0; i < rank; i++) {
		if (bp->offsets[i].kind == V_TENSOR && bp->offsets[i].ty.dt != DT_I32)
			bp->offsets[i] = v_tensor(s, cast_val(s, bp->offsets[i].id, type_scalar(DT_I32), false, 0, c->at[3]));
	}
	return (Value){.kind = V_BLOCKPTR, .bp = bp};
}

static Value b_advance(Sema *s, Call *c, int extra)
{
	(void)extra;
	if (c->a[0].kind == V_ERR) return c->a[0];
	if (c->a[0].kind != V_BLOCKPTR) {
		diag_error(s->d, c->at[0], "'%s' expects a block pointer, got %s", c->name, v_describe(s, c->a[0]));
		return v_err();
	}
	const BlockPtr *old = c->a[0].bp;
	Value d[TIR_MAX_RANK];
	if (!tuple_arg(s, c, 1, old->rank, d, "offsets")) return v_err();
	BlockPtr *bp = ARENA_NEW(s->a, BlockPtr);
	*bp = *old;
	for (int i = 0; i < bp->rank; i++) {
		if (v_is_intlike(d[i]) && d[i].c.i == 0) continue;
		Value delta = d[i];
		if (delta.kind == V_TENSOR && delta.ty.dt != DT_I32)
			delta = v_tensor(s, cast_val(s, delta.id, type_scalar(DT_I32), false, 0, c->at[1]));
		Value sum = binop(s, OP_ADD, bp->offsets[i], delta, c->loc);
		if (sum.kind == V_ERR) return sum;
		if (sum.kind == V_TENSOR && sum.ty.dt != DT_I32)
			sum = v_tensor(s, cast_val(s, sum.id, type_scalar(DT_I32), false, 0, c->loc));
		bp->offsets[i] = sum;
	}
	return (Value){.kind = V_BLOCKPTR, .bp = bp};
}

/* idx_d as a rank-r tile with size block_d in dim d and 1 elsewhere. */
static ValId dim_index(Sema *s, const BlockPtr *bp, int d, SrcLoc loc)
{
	int32_t n = bp->block[d];
	TirOp *ar = emit_op(s, TOP_ARANGE, loc, NULL, 0, type_tile(type_scalar(DT_I32), 1, &n));
	ar->attr.i = 0;
	ar->attr.i2 = n;
	Value idx = v_tensor(s, ar->results[0]);
	if (!(v_is_intlike(bp->offsets[d]) && bp->offsets[d].c.i == 0)) idx = binop(s, OP_ADD, idx, bp->offsets[d], loc);
	ValId x = idx.id;
	for (int k = 0; k < bp->rank; k++) {
		if (k == d) continue;
		Type t = vtype(s, x), r = t;
		r.rank++;
		for (int j = r.rank - 1; j > k; j--) r.shape[j] = t.shape[j - 1];
		r.shape[k] = 1;
		TirOp *op = emit_op(s, TOP_EXPAND_DIMS, loc, &x, 1, r);
		op->attr.axis = k;
		x = op->results[0];
	}
	return x;
}

static bool bp_pointers(Sema *s, const BlockPtr *bp, const Value *check, int ncheck, SrcLoc loc, SrcLoc check_loc,
			ValId *ptrs, ValId *mask)
{
	bool checked[TIR_MAX_RANK] = {0};
	for (int i = 0; i < ncheck; i++) {
		int64_t d;
		if (!as_const_int(s, check[i], check_loc, "boundary_check", &d)) return false;
		if (d < 0 || d >= bp->rank) {
			diag_error(s->d, check_loc, "boundary_check dim %lld is out of range for a block of rank %d", (long long)d,
				   bp->rank);
			return false;
		}
		if (checked[d]) { /* Triton's assert "Duplicate dimension in `boundary_check`" */
			diag_error(s->d, check_loc, "boundary_check names dim %lld twice", (long long)d);
			return false;
		}
		checked[d] = true;
	}
	Value off = v_int(0), m = v_bool(true);
	for (int d = 0; d < bp->rank; d++) {
		Value idx = v_tensor(s, dim_index(s, bp, d, loc));
		Value term = binop(s, OP_MUL, idx, bp->strides[d], loc);
		off = v_is_intlike(off) && off.c.i == 0 ? term : binop(s, OP_ADD, off, term, loc);
		if (off.kind == V_ERR) return false;
		if (checked[d]) {
			Value lo = binop(s, OP_GE, idx, v_int(0), loc);
			Value hi = binop(s, OP_LT, idx, bp->shape[d], loc);
			Value both = binop(s, OP_BITAND, lo, hi, loc);
			m = m.kind == V_CONST ? both : binop(s, OP_BITAND, m, both, loc);
			if (m.kind == V_ERR) return false;
		}
	}
	Value p = binop(s, OP_ADD, bp->base, off, loc);
	if (p.kind == V_ERR) return false;
	*ptrs = p.id;
	*mask = 0;
	if (m.kind == V_TENSOR) {
		Type pt = vtype(s, p.id);
		*mask = broadcast_to_shape(s, m.id, pt.rank, pt.shape, loc);
	}
	return true;
}

static bool check_list(Sema *s, Call *c, int i, const Value **items, int *n)
{
	*items = NULL;
	*n = 0;
	if (!c->has[i]) return true;
	Value v = c->a[i];
	if (v.kind == V_ERR) return false;
	if (v.kind == V_TUPLE) {
		*items = v.items;
		*n = v.n;
		return true;
	}
	if (v_is_intlike(v)) {
		*items = &c->a[i];
		*n = 1;
		return true;
	}
	diag_error(s->d, c->at[i], "boundary_check must be a tuple of dims, got %s", v_describe(s, v));
	return false;
}

Value bp_load(Sema *s, Call *c)
{
	const BlockPtr *bp = c->a[0].bp;
	if ((c->has[1] && !v_is_none(c->a[1])) || (c->has[2] && !v_is_none(c->a[2]))) {
		diag_error(s->d, c->loc, "mask and other are not supported with block pointers; use boundary_check and padding_option");
		return v_err();
	}
	const Value *chk;
	int nchk;
	if (!check_list(s, c, 3, &chk, &nchk)) return v_err();
	const char *pad = c->has[4] ? arg_str(s, c, 4) : "";
	if (!pad) return v_err();
	if (*pad && strcmp(pad, "zero") && strcmp(pad, "nan")) { /* checked with or without boundary_check */
		diag_error(s->d, c->at[4], "padding_option must be '', 'zero' or 'nan', got '%s'", pad);
		return v_err();
	}
	ValId ptrs, mask;
	if (!bp_pointers(s, bp, chk, nchk, c->loc, c->at[3], &ptrs, &mask)) return v_err();
	Call l = *c;
	memset(l.has, 0, sizeof l.has);
	l.a[0] = v_tensor(s, ptrs);
	l.has[0] = true;
	for (int i = 5; i <= 7; i++) l.has[i] = c->has[i];
	DType elem = (DType)bp->base.ty.elem;
	if (mask) {
		l.a[1] = v_tensor(s, mask);
		l.has[1] = true;
		if (!strcmp(pad, "zero")) {
			l.a[2] = v_int(0);
			l.has[2] = true;
		} else if (!strcmp(pad, "nan")) {
			if (!dtype_is_float(elem)) {
				diag_error(s->d, c->at[4], "padding_option 'nan' needs a floating-point block, got %s", dtype_name(elem));
				return v_err();
			}
			l.a[2] = v_float(NAN);
			l.has[2] = true;
		}
	}
	int id = builtin_find("load", BF_TL);
	return builtin_get(id)->fn(s, &l, 0);
}

/* A tile stored through a block pointer or descriptor has its block's shape. */
static bool block_shaped(Sema *s, Value v, const BlockPtr *bp, SrcLoc at, const char *what)
{
	if (v.kind != V_TENSOR || !v.ty.rank) return true;
	Type want = type_tile(type_elem(v.ty), bp->rank, bp->block);
	if (type_eq(type_tile(type_elem(v.ty), v.ty.rank, v.ty.shape), want)) return true;
	char a[64], b[64];
	shape_str(v.ty, a, sizeof a);
	shape_str(want, b, sizeof b);
	diag_error(s->d, at, "shape mismatch: %s vs %s (%s)", a, b, what);
	return false;
}

Value bp_store(Sema *s, Call *c)
{
	const BlockPtr *bp = c->a[0].bp;
	if (c->has[2] && !v_is_none(c->a[2])) {
		diag_error(s->d, c->at[2], "mask is not supported with block pointers; use boundary_check");
		return v_err();
	}
	const Value *chk;
	int nchk;
	if (!check_list(s, c, 3, &chk, &nchk)) return v_err();
	Value v = c->a[1];
	if (!block_shaped(s, v, bp, c->at[1], "the value stored through a block pointer")) return v_err();
	ValId ptrs, mask;
	if (!bp_pointers(s, bp, chk, nchk, c->loc, c->at[3], &ptrs, &mask)) return v_err();
	Call l = *c;
	memset(l.has, 0, sizeof l.has);
	l.a[0] = v_tensor(s, ptrs);
	l.has[0] = l.has[1] = true;
	l.a[1] = v;
	if (mask) {
		l.a[2] = v_tensor(s, mask);
		l.has[2] = true;
	}
	l.has[4] = c->has[4];
	l.has[5] = c->has[5];
	int id = builtin_find("store", BF_TL);
	return builtin_get(id)->fn(s, &l, 0);
}

/* ---- tensor descriptors ------------------------------------------------------------ */

/* The checks and hints every descriptor gets, made in the kernel or passed
 * by the host; bp has base, rank, block, shape and strides. at_strides /
 * at_block locate errors. */
static Value finish_descriptor(Sema *s, BlockPtr *bp, SrcLoc at_strides, SrcLoc at_block)
{
	int rank = bp->rank;
	bp->desc = true;
	/* TMA's (and Triton's) range; a 0-d block has no last stride to check */
	if (rank < 1 || rank > 5) {
		diag_error(s->d, at_block, "a tensor descriptor has 1 to 5 dimensions, got %d", rank);
		return v_err();
	}
	Value last = bp->strides[rank - 1];
	if (!(v_is_intlike(last) && last.c.i == 1)) {
		diag_error(s->d, at_strides,
			   "the last stride of a tensor descriptor must be the constant 1 (the last dimension contiguous), got %s",
			   v_describe(s, last));
		return v_err();
	}
	DType elem = (DType)bp->base.ty.elem;
	int64_t row_bytes = (int64_t)bp->block[rank - 1] * (dtype_bits(elem) / 8);
	if (row_bytes < 16) {
		diag_error(s->d, at_block,
			   "the last dimension of a tensor descriptor's block must span at least 16 bytes, got %d %s elements",
			   (int)bp->block[rank - 1], dtype_name(elem));
		return v_err();
	}
	for (int i = 0; i < rank; i++) {
		bp->offsets[i] = v_int(0);
		bp->order[i] = rank - 1 - i;
	}
	/* The descriptor contract (TMA's): a 16-byte aligned base and leading
	 * strides that are multiples of 16 bytes. Axis analysis may vectorize on it. */
	int32_t align = 16;
	tir_add_hint(s->f, bp->base.id, HINT_MULTIPLE_OF, 1, &align);
	int32_t per16 = 16 / (dtype_bits(elem) / 8 ? dtype_bits(elem) / 8 : 1);
	for (int i = 0; i + 1 < rank && per16 > 1; i++)
		if (bp->strides[i].kind == V_TENSOR) tir_add_hint(s->f, bp->strides[i].id, HINT_MULTIPLE_OF, 1, &per16);
	return (Value){.kind = V_BLOCKPTR, .bp = bp};
}

static Value b_make_tensor_descriptor(Sema *s, Call *c, int extra)
{
	(void)extra;
	BlockPtr *bp = new_block_ptr(s, c);
	if (!bp) return v_err();
	int rank;
	if (!arg_shape(s, c, 3, bp->block, &rank)) return v_err();
	bp->rank = rank;
	if (!tuple_arg(s, c, 1, rank, bp->shape, "shape") || !tuple_arg(s, c, 2, rank, bp->strides, "strides"))
		return v_err();
	DType elem = (DType)bp->base.ty.elem;
	const char *pad = c->has[4] ? arg_str(s, c, 4) : "zero";
	if (!pad) return v_err();
	if (!strcmp(pad, "nan")) {
		if (!dtype_is_float(elem)) {
			diag_error(s->d, c->at[4], "padding_option 'nan' needs a floating-point tensor, got %s", dtype_name(elem));
			return v_err();
		}
		bp->pad_nan = true;
	} else if (strcmp(pad, "zero")) {
		diag_error(s->d, c->at[4], "padding_option of a tensor descriptor must be 'zero' or 'nan', got '%s'", pad);
		return v_err();
	}
	return finish_descriptor(s, bp, c->at[2], c->at[3]);
}

Value desc_param(Sema *s, Value base, const Value *shape, const Value *strides, const int32_t *block, int rank,
		 SrcLoc loc)
{
	BlockPtr *bp = ARENA_NEW(s->a, BlockPtr);
	bp->base = base;
	bp->rank = rank;
	for (int i = 0; i < rank; i++) {
		bp->block[i] = block[i];
		bp->shape[i] = shape[i];
		bp->strides[i] = i + 1 < rank ? strides[i] : v_int(1);
	}
	if (!check_tile_shape(s, rank, block, loc)) return v_err();
	return finish_descriptor(s, bp, loc, loc);
}

/* The descriptor of c->a[0] placed at the offsets in c->a[1], as pointers and
 * a mask over every dimension. */
static bool desc_at(Sema *s, Call *c, ValId *ptrs, ValId *mask)
{
	if (c->a[0].kind != V_BLOCKPTR || !c->a[0].bp->desc) {
		diag_error(s->d, c->loc, "'%s' needs a tensor descriptor, got %s", c->name, v_describe(s, c->a[0]));
		return false;
	}
	BlockPtr bp = *c->a[0].bp;
	if (!tuple_arg(s, c, 1, bp.rank, bp.offsets, "offsets")) return false;
	for (int i = 0; i < bp.rank; i++)
		if (bp.offsets[i].kind == V_TENSOR && bp.offsets[i].ty.dt != DT_I32)
			bp.offsets[i] = v_tensor(s, cast_val(s, bp.offsets[i].id, type_scalar(DT_I32), false, 0, c->at[1]));
	Value all[TIR_MAX_RANK];
	for (int d = 0; d < bp.rank; d++) all[d] = v_int(d);
	return bp_pointers(s, &bp, all, bp.rank, c->loc, c->at[1], ptrs, mask);
}

static Value b_desc_load(Sema *s, Call *c, int extra)
{
	(void)extra;
	ValId ptrs, mask;
	if (!desc_at(s, c, &ptrs, &mask)) return v_err();
	Call l = *c;
	memset(l.has, 0, sizeof l.has);
	l.a[0] = v_tensor(s, ptrs);
	l.has[0] = true;
	if (mask) {
		l.a[1] = v_tensor(s, mask);
		l.a[2] = c->a[0].bp->pad_nan ? v_float(NAN) : v_int(0);
		l.has[1] = l.has[2] = true;
	}
	int id = builtin_find("load", BF_TL);
	return builtin_get(id)->fn(s, &l, 0);
}

/* desc.store (extra < 0) and the descriptor atomics (extra = the tl.atomic_* name index) */
static const char *const desc_atomic_names[] = {"atomic_add", "atomic_min", "atomic_max", "atomic_and", "atomic_or",
						"atomic_xor"};

/* Triton's descriptor_atomic_* take what TMA's reductions do, not what
 * tl.atomic_* takes: add of 32-bit ints, u64, fp32, fp16 and bf16; min/max
 * of 32- and 64-bit ints (and fp16/bf16 on Hopper, which tile's atomics do
 * not have: they fail in tl.atomic_*'s check); and/or/xor of 32- and 64-bit
 * ints. */
static bool desc_atomic_dtype_ok(Sema *s, const Call *c, int extra, DType e)
{
	bool int32_64 = e == DT_I32 || e == DT_U32 || e == DT_U64;
	bool ok = extra == 0 ? int32_64 || e == DT_F32 || e == DT_F16 || e == DT_BF16
	                     : int32_64 || e == DT_I64 || ((extra == 1 || extra == 2) && (e == DT_F16 || e == DT_BF16));
	if (!ok) diag_error(s->d, c->loc, "'%s' does not support %s", c->name, dtype_name(e));
	return ok;
}

static Value b_desc_store(Sema *s, Call *c, int extra)
{
	Value v = c->a[2];
	if (v.kind == V_ERR) return v;
	if (c->a[0].kind == V_BLOCKPTR && !block_shaped(s, v, c->a[0].bp, c->at[2], "the block of the tensor descriptor"))
		return v_err();
	ValId ptrs, mask;
	if (!desc_at(s, c, &ptrs, &mask)) return v_err();
	if (extra >= 0 && !desc_atomic_dtype_ok(s, c, extra, (DType)vtype(s, ptrs).elem)) return v_err();
	Call l = *c;
	memset(l.has, 0, sizeof l.has);
	l.a[0] = v_tensor(s, ptrs);
	l.a[1] = v;
	l.has[0] = l.has[1] = true;
	if (mask) {
		l.a[2] = v_tensor(s, mask);
		l.has[2] = true;
	}
	const char *name = extra < 0 ? "store" : desc_atomic_names[extra];
	int id = builtin_find(name, BF_TL);
	Value r = builtin_get(id)->fn(s, &l, builtin_get(id)->extra);
	return r.kind == V_ERR ? r : v_none();
}

/* ---- Triton 3.2's device-made TMA descriptors ---------------------------------------
 * tl.extra.cuda.experimental_device_tensormap_create1d/2d(desc_ptr, global_address,
 * load_size, global_size, element_ty) fills the TMA descriptor at desc_ptr for a
 * row-major tensor at global_address of dims global_size (each row
 * global_size[-1] elements); tl._experimental_descriptor_load(desc_ptr, offsets,
 * shape, dtype) and _store(desc_ptr, value, offsets) then access blocks of it
 * through desc_ptr, elements outside the tensor reading as zero and not written.
 * Here the descriptor is the tensor descriptor it describes, found again by the
 * pointer it was made at (no bytes are written at desc_ptr), so an access
 * through a pointer no create call of this kernel wrote is reported: it reads
 * bytes the host filled (Triton 3.2's create_2d_tma_descriptor), which tile
 * cannot interpret. */

/* The name the kernel wrote: tl.extra.cuda.NAME for the builtins registered as _cuda_NAME. */
static const char *tma_name(Sema *s, const Call *c)
{
	return !strncmp(c->name, "tl._cuda_", 9) ? arena_printf(s->a, "tl.extra.cuda.%s", c->name + 9) : c->name;
}

static bool scalar_pointer(Sema *s, Call *c, int i, const char *what)
{
	Value v = c->a[i];
	if (v.kind == V_ERR) return false;
	if (v.kind == V_TENSOR && v.ty.dt == DT_PTR && !v.ty.rank) return true;
	diag_error(s->d, c->at[i], "%s of '%s' must be a scalar pointer, got %s", what, tma_name(s, c), v_describe(s, v));
	return false;
}

/* Is `inner` the block `outer` or one nested in it? */
static bool block_within(const TirBlock *inner, const TirBlock *outer)
{
	for (const TirBlock *b = inner; b; b = b->parent ? b->parent->block : NULL)
		if (b == outer) return true;
	return false;
}

static Value b_tensormap_create(Sema *s, Call *c, int rank)
{
	if (!scalar_pointer(s, c, 0, "desc_ptr") || !scalar_pointer(s, c, 1, "global_address")) return v_err();
	BlockPtr *bp = ARENA_NEW(s->a, BlockPtr);
	bp->base = c->a[1];
	Value et = c->a[4];
	if (et.kind == V_ERR) return et;
	if (et.kind != V_DTYPE || et.n || et.ty.dt == DT_PTR) {
		diag_error(s->d, c->at[4], "element_ty of '%s' must be a dtype, got %s", tma_name(s, c), v_describe(s, et));
		return v_err();
	}
	if (et.ty.dt != bp->base.ty.elem) {
		diag_error(s->d, c->at[4], "element_ty %s of '%s' differs from the element type of global_address (%s)",
			   dtype_name((DType)et.ty.dt), tma_name(s, c), dtype_name((DType)bp->base.ty.elem));
		return v_err();
	}
	int n;
	if (!arg_shape(s, c, 2, bp->block, &n)) return v_err();
	if (n != rank) {
		diag_error(s->d, c->at[2], "load_size of '%s' has %d entr%s, expected %d", tma_name(s, c), n,
			   n == 1 ? "y" : "ies", rank);
		return v_err();
	}
	bp->rank = rank;
	if (!tuple_arg(s, c, 3, rank, bp->shape, "global_size")) return v_err();
	/* rows of global_size[-1] elements, one after the other */
	bp->strides[rank - 1] = v_int(1);
	if (rank == 2) bp->strides[0] = bp->shape[1];
	Value d = finish_descriptor(s, bp, c->at[3], c->at[2]);
	if (d.kind == V_ERR) return d;
	TmaDesc t = {.at = c->a[0].id, .f = s->f, .blk = s->blk, .desc = d};
	vec_push(&s->tma_descs, t);
	return v_none();
}

static Value b_tensormap_fence(Sema *s, Call *c, int extra)
{
	(void)extra;
	return scalar_pointer(s, c, 0, "desc_ptr") ? v_none() : v_err();
}

/* The descriptor made at the pointer c->a[0], or an error. */
static bool tma_desc_at(Sema *s, Call *c, Value *desc)
{
	if (!scalar_pointer(s, c, 0, "the descriptor pointer")) return false;
	for (size_t i = s->tma_descs.len; i-- > 0;) {
		const TmaDesc *t = &s->tma_descs.data[i];
		if (t->at != c->a[0].id || t->f != s->f) continue;
		if (!block_within(s->blk, t->blk)) {
			diag_error(s->d, c->loc,
				   "'%s' outside the runtime if or loop that made its TMA descriptor "
				   "(experimental_device_tensormap_create*)",
				   c->name);
			return false;
		}
		*desc = t->desc;
		return true;
	}
	diag_error(s->d, c->loc,
		   "'%s' (Triton 3.2's access through TMA descriptor bytes the host fills, removed in Triton 3.4) is not "
		   "supported: pass a tensordesc parameter or use tl.make_tensor_descriptor",
		   c->name);
	return false;
}

static Value b_exp_desc_load(Sema *s, Call *c, int extra)
{
	(void)extra;
	Value desc;
	if (!tma_desc_at(s, c, &desc)) return v_err();
	const BlockPtr *bp = desc.bp;
	int32_t shape[TIR_MAX_RANK];
	int rank;
	if (!arg_shape(s, c, 2, shape, &rank)) return v_err();
	bool same = rank == bp->rank;
	for (int i = 0; same && i < rank; i++) same = shape[i] == bp->block[i];
	if (!same) {
		diag_error(s->d, c->at[2], "shape of '%s' differs from the load_size its descriptor was made with", c->name);
		return v_err();
	}
	Value dt = c->a[3];
	if (dt.kind == V_ERR) return dt;
	if (dt.kind != V_DTYPE || dt.n || dt.ty.dt != bp->base.ty.elem) {
		diag_error(s->d, c->at[3], "dtype of '%s' must be the descriptor's element type %s, got %s", c->name,
			   dtype_name((DType)bp->base.ty.elem),
			   dt.kind == V_DTYPE && !dt.n ? dtype_name((DType)dt.ty.dt) : v_describe(s, dt));
		return v_err();
	}
	Call l = *c;
	memset(l.has, 0, sizeof l.has);
	l.a[0] = desc;
	l.a[1] = c->a[1];
	l.at[1] = c->at[1];
	l.has[0] = l.has[1] = true;
	return b_desc_load(s, &l, 0);
}

static Value b_exp_desc_store(Sema *s, Call *c, int extra)
{
	(void)extra;
	Value desc;
	if (!tma_desc_at(s, c, &desc)) return v_err();
	Call l = *c;
	memset(l.has, 0, sizeof l.has);
	l.a[0] = desc;
	l.a[1] = c->a[2];
	l.at[1] = c->at[2];
	l.a[2] = c->a[1];
	l.at[2] = c->at[1];
	l.has[0] = l.has[1] = l.has[2] = true;
	return b_desc_store(s, &l, -1);
}

static Value b_desc_unsupported(Sema *s, Call *c, int extra)
{
	(void)extra;
	diag_error(s->d, c->loc, "'%s' (Blackwell TMA gather/scatter) is not supported", c->name);
	return v_err();
}

Value desc_attr(Sema *s, Value desc, const char *name, SrcLoc loc)
{
	const BlockPtr *bp = desc.bp;
	Value items[TIR_MAX_RANK];
	if (!strcmp(name, "block_shape")) {
		for (int i = 0; i < bp->rank; i++) items[i] = v_int(bp->block[i]);
		return v_tuple(s, items, bp->rank);
	}
	if (!strcmp(name, "shape") || !strcmp(name, "strides")) {
		for (int i = 0; i < bp->rank; i++) items[i] = name[1] == 'h' ? bp->shape[i] : bp->strides[i];
		return v_tuple(s, items, bp->rank);
	}
	if (!strcmp(name, "dtype")) return v_dtype(type_scalar((DType)bp->base.ty.elem));
	if (!strcmp(name, "block_type"))
		return v_dtype(type_tile(type_scalar((DType)bp->base.ty.elem), bp->rank, bp->block));
	if (!strcmp(name, "padding")) return v_str(bp->pad_nan ? "nan" : "zero");
	int id = builtin_find(name, BF_DESC);
	if (id >= 0) {
		Value *self = ARENA_NEW(s->a, Value);
		*self = desc;
		return v_builtin(id, self);
	}
	diag_error(s->d, loc, "tensor descriptor has no attribute '%s'", name);
	return v_err();
}


const Builtin builtins_blockptr[] = {
    {"make_block_ptr", "base,shape,strides,offsets,block_shape,order", b_make_block_ptr, 0, BF_TL},
    {"advance", "base,offsets", b_advance, 0, BF_TL | BF_METHOD},
    {"make_tensor_descriptor", "base,shape,strides,block_shape,padding_option='zero'", b_make_tensor_descriptor, 0, BF_TL},
    {"_experimental_make_tensor_descriptor", "base,shape,strides,block_shape,padding_option='zero'",
     b_make_tensor_descriptor, 0, BF_TL},
    {"load_tensor_descriptor", "desc,offsets", b_desc_load, 0, BF_TL},
    {"store_tensor_descriptor", "desc,offsets,value", b_desc_store, -1, BF_TL},
    {"load", "self,offsets", b_desc_load, 0, BF_DESC},
    {"store", "self,offsets,value", b_desc_store, -1, BF_DESC},
    {"atomic_add", "self,offsets,value", b_desc_store, 0, BF_DESC},
    {"atomic_min", "self,offsets,value", b_desc_store, 1, BF_DESC},
    {"atomic_max", "self,offsets,value", b_desc_store, 2, BF_DESC},
    {"atomic_and", "self,offsets,value", b_desc_store, 3, BF_DESC},
    {"atomic_or", "self,offsets,value", b_desc_store, 4, BF_DESC},
    {"atomic_xor", "self,offsets,value", b_desc_store, 5, BF_DESC},
    {"_cuda_experimental_device_tensormap_create1d", "desc_ptr,global_address,load_size,global_size,element_ty",
     b_tensormap_create, 1, BF_TL},
    {"_cuda_experimental_device_tensormap_create2d", "desc_ptr,global_address,load_size,global_size,element_ty",
     b_tensormap_create, 2, BF_TL},
    {"_cuda_experimental_tensormap_fenceproxy_acquire", "desc_ptr", b_tensormap_fence, 0, BF_TL},
    {"_experimental_descriptor_load", "desc_pointer,offsets,shape,dtype", b_exp_desc_load, 0, BF_TL},
    {"_experimental_descriptor_store", "desc_pointer,value,offsets", b_exp_desc_store, 0, BF_TL},
    {"gather", "self,*args", b_desc_unsupported, 0, BF_DESC},
    {"scatter", "self,*args", b_desc_unsupported, 0, BF_DESC},
    {NULL, NULL, NULL, 0, 0},
};

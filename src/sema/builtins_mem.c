/* builtins_mem.c: tl.load, tl.store and the atomics on tensors of pointers
 * (Triton's semantic.load/store/atomic_*: mask and other are broadcast to
 * the pointer's shape, values are cast to the pointee type, pointers to int1
 * are accessed as int8). Block pointers are handled in blockptr.c. */
#include <string.h>

#include "sema/sema_int.h"

bool mem_hints(Sema *s, Call *c, int cache_slot, int evict_slot, bool is_store, int64_t *out)
{
	static const char *load_cache[] = {"", ".ca", ".cg", ".cv"};
	static const int load_code[] = {TIR_CACHE_NONE, TIR_CACHE_CA, TIR_CACHE_CG, TIR_CACHE_CV};
	static const char *store_cache[] = {"", ".wb", ".cg", ".cs", ".wt"};
	static const int store_code[] = {TIR_CACHE_NONE, TIR_CACHE_WB, TIR_CACHE_CG, TIR_CACHE_CS, TIR_CACHE_WT};
	int cache = 0, evict = 0;
	if (c->has[cache_slot]) {
		const char *m = arg_str(s, c, cache_slot);
		if (!m) return false;
		const char **tab = is_store ? store_cache : load_cache;
		const int *code = is_store ? store_code : load_code;
		int n = is_store ? 5 : 4, k;
		for (k = 0; k < n && strcmp(tab[k], m); k++) {}
		if (k == n) {
			diag_error(s->d, c->at[cache_slot], "unsupported cache modifier '%s' for '%s'", m, c->name);
			return false;
		}
		cache = code[k];
	}
	if (c->has[evict_slot]) {
		const char *e = arg_str(s, c, evict_slot);
		if (!e) return false;
		if (!*e || !strcmp(e, "evict_normal")) evict = TIR_EVICT_NORMAL;
		else if (!strcmp(e, "evict_first")) evict = TIR_EVICT_FIRST;
		else if (!strcmp(e, "evict_last")) evict = TIR_EVICT_LAST;
		else {
			diag_error(s->d, c->at[evict_slot], "unsupported eviction policy '%s' for '%s'", e, c->name);
			return false;
		}
	}
	*out = cache | evict << 8;
	return true;
}

static bool pointer_arg(Sema *s, Call *c, int i, ValId *out)
{
	Value v = c->a[i];
	if (v.kind == V_ERR) return false;
	if (v.kind != V_TENSOR || v.ty.dt != DT_PTR) {
		diag_error(s->d, c->at[i], "'%s' expects a pointer, got %s", c->name, v_describe(s, v));
		return false;
	}
	*out = v.id;
	return true;
}

/* x (argument i, the `what` of the call) broadcast to the pointer's shape.
 * A store or an atomic never takes more addresses than its pointer has, as in
 * Triton (broadcast_impl_shape to the pointer's shape): a mask or value that
 * grew the pointer would write each address several times, which for an atomic
 * adds the value several times and for a store leaves one of several values. */
static ValId fit_to_pointer(Sema *s, Call *c, int i, const char *what, ValId ptr, ValId x)
{
	Type pt = vtype(s, ptr), t = vtype(s, x);
	if (pt.rank == 0 && t.rank) {
		diag_error(s->d, c->at[i], "the %s of '%s' cannot be a tile when the pointer is a scalar", what, c->name);
		return 0;
	}
	bool fits = t.rank <= pt.rank;
	for (int d = 0; fits && d < t.rank; d++) {
		int32_t have = t.shape[d], need = pt.shape[pt.rank - t.rank + d];
		fits = have == need || have == 1;
	}
	if (!fits) {
		char a[96], b[96];
		shape_str(t, a, sizeof a);
		shape_str(pt, b, sizeof b);
		diag_error(s->d, c->at[i], "the %s of '%s' has shape %s, which does not broadcast to the pointer's shape %s",
			   what, c->name, a, b);
		return 0;
	}
	return broadcast_to_shape(s, x, pt.rank, pt.shape, c->at[i]);
}

/* a load's mask may broadcast the pointer with it (Triton's
 * broadcast_impl_value: duplicate reads are harmless); a store's or an
 * atomic's must fit the pointer (grow_ptr false) */
static bool mask_arg(Sema *s, Call *c, int i, ValId *ptr, ValId *mask, bool grow_ptr)
{
	*mask = 0;
	if (!c->has[i] || v_is_none(c->a[i])) return true;
	if (!arg_tensor(s, c, i, mask)) return false;
	Type m = vtype(s, *mask);
	if (m.dt != DT_I1) {
		diag_error(s->d, c->at[i], "the mask of '%s' must be a boolean (int1) tensor, got %s", c->name, dt_name(s, m));
		return false;
	}
	if (!grow_ptr) return (*mask = fit_to_pointer(s, c, i, "mask", *ptr, *mask)) != 0;
	if (vtype(s, *ptr).rank == 0 && m.rank) {
		diag_error(s->d, c->at[i], "the mask of '%s' cannot be a tile when the pointer is a scalar", c->name);
		return false;
	}
	return broadcast_pair(s, ptr, mask, c->at[i]);
}

/* int1 is stored as int8 */
static ValId as_i8_ptr(Sema *s, ValId ptr, SrcLoc loc)
{
	Type t = vtype(s, ptr);
	if (t.elem != DT_I1) return ptr;
	Type r = t;
	r.elem = DT_I8;
	return emit(s, TOP_BITCAST, loc, &ptr, 1, r);
}

/* v as the element type elem of a pointer, in the type it is held in memory (an
 * int1 element is a byte): converted to elem first, as Triton's store casts a
 * value to the pointer's element type, so a float or int stored through an
 * int1 pointer is x != 0 (a byte 0 or 1), not x truncated to int8. */
static ValId to_memory(Sema *s, Value v, DType elem, SrcLoc loc)
{
	ValId x = to_ir(s, v, elem, loc);
	if (!x || elem != DT_I1) return x;
	return cast_val(s, x, type_scalar(DT_I8), false, 0, loc);
}

static Value b_load(Sema *s, Call *c, int extra)
{
	(void)extra;
	if (c->a[0].kind == V_BLOCKPTR) return bp_load(s, c);
	ValId ptr, mask, other = 0;
	if (!pointer_arg(s, c, 0, &ptr)) return v_err();
	if (c->has[3] && c->a[3].kind == V_TUPLE && c->a[3].n > 0) {
		diag_error(s->d, c->at[3], "boundary_check is only supported for block pointers");
		return v_err();
	}
	if (c->has[4]) {
		const char *p = arg_str(s, c, 4);
		if (!p) return v_err();
		if (*p) {
			diag_error(s->d, c->at[4], "padding_option is only supported for block pointers");
			return v_err();
		}
	}
	if (!mask_arg(s, c, 1, &ptr, &mask, true)) return v_err();
	bool vol = false;
	int64_t hints;
	if ((c->has[7] && !arg_bool(s, c, 7, &vol)) || !mem_hints(s, c, 5, 6, false, &hints)) return v_err();
	Type pt = vtype(s, ptr);
	DType elem = (DType)pt.elem == DT_I1 ? DT_I8 : (DType)pt.elem;
	if (c->has[2] && !v_is_none(c->a[2])) {
		if (!mask) {
			diag_error(s->d, c->at[2], "'other' needs a 'mask' in '%s'", c->name);
			return v_err();
		}
		other = to_memory(s, c->a[2], (DType)pt.elem, c->at[2]);
		if (!other) return v_err();
		other = broadcast_to_shape(s, other, pt.rank, pt.shape, c->at[2]);
		if (!other) return v_err();
	}
	ptr = as_i8_ptr(s, ptr, c->loc);
	ValId in[3] = {ptr, 0, 0};
	int n = 1, flags = 0;
	if (mask) {
		in[n++] = mask;
		flags |= TIR_HAS_MASK;
	}
	if (other) {
		in[n++] = other;
		flags |= TIR_HAS_OTHER;
	}
	if (vol) flags |= TIR_VOLATILE;
	TirOp *op = emit_op(s, TOP_LOAD, c->loc, in, n, type_tile(type_scalar(elem), pt.rank, pt.shape));
	op->attr.flags = flags;
	op->attr.i = hints;
	ValId r = op->results[0];
	if ((DType)pt.elem == DT_I1) r = to_bool(s, r, c->loc);
	return v_tensor(s, r);
}

/* Triton's "Cannot store to a constant pointer": a store or atomic through a
 * `tl.const` kernel parameter's pointer (atomic_cas is not checked, as in Triton) */
static bool writable_pointer(Sema *s, Call *c, ValId ptr)
{
	if (!vtype(s, ptr).ptr_const) return true;
	diag_error(s->d, c->at[0], "%s writes through a pointer to const (one computed from a parameter annotated "
		   "tl.const, or cast to tl.pointer_type(..., const=True))", c->name);
	return false;
}

static Value b_store(Sema *s, Call *c, int extra)
{
	(void)extra;
	if (c->a[0].kind == V_BLOCKPTR) return bp_store(s, c);
	ValId ptr, mask;
	if (!pointer_arg(s, c, 0, &ptr) || !writable_pointer(s, c, ptr)) return v_err();
	if (c->has[3] && c->a[3].kind == V_TUPLE && c->a[3].n > 0) {
		diag_error(s->d, c->at[3], "boundary_check is only supported for block pointers");
		return v_err();
	}
	int64_t hints;
	if (!mem_hints(s, c, 4, 5, true, &hints)) return v_err();
	Value v = c->a[1];
	if (v.kind == V_TENSOR && v.ty.rank && vtype(s, ptr).rank == 0) {
		diag_error(s->d, c->at[1], "cannot store a tile through a scalar pointer");
		return v_err();
	}
	if (!mask_arg(s, c, 2, &ptr, &mask, false)) return v_err();
	Type pt = vtype(s, ptr);
	if (v.kind == V_TENSOR && v.ty.dt == DT_PTR) {
		diag_error(s->d, c->at[1], "cannot store pointers");
		return v_err();
	}
	ValId val = to_memory(s, v, (DType)pt.elem, c->at[1]);
	if (!val) return v_err();
	val = broadcast_to_shape(s, val, pt.rank, pt.shape, c->at[1]);
	if (!val) return v_err();
	ptr = as_i8_ptr(s, ptr, c->loc);
	ValId in[3] = {ptr, val, mask};
	TirOp *op = emit_op(s, TOP_STORE, c->loc, in, mask ? 3 : 2, type_scalar(DT_VOID));
	op->attr.flags = mask ? TIR_HAS_MASK : 0;
	op->attr.i = hints;
	return v_none();
}

static bool sem_scope(Sema *s, Call *c, int si, int ci, int64_t *out)
{
	int sem = TIR_SEM_ACQ_REL, scope = TIR_SCOPE_GPU;
	if (c->has[si] && !v_is_none(c->a[si])) {
		const char *m = arg_str(s, c, si);
		if (!m) return false;
		if (!strcmp(m, "acq_rel")) sem = TIR_SEM_ACQ_REL;
		else if (!strcmp(m, "relaxed")) sem = TIR_SEM_RELAXED;
		else if (!strcmp(m, "acquire")) sem = TIR_SEM_ACQUIRE;
		else if (!strcmp(m, "release")) sem = TIR_SEM_RELEASE;
		else {
			diag_error(s->d, c->at[si], "unsupported memory semantics '%s' (acq_rel, relaxed, acquire, release)", m);
			return false;
		}
	}
	if (c->has[ci] && !v_is_none(c->a[ci])) {
		const char *m = arg_str(s, c, ci);
		if (!m) return false;
		if (!strcmp(m, "gpu")) scope = TIR_SCOPE_GPU;
		else if (!strcmp(m, "cta")) scope = TIR_SCOPE_CTA;
		else if (!strcmp(m, "sys")) scope = TIR_SCOPE_SYS;
		else {
			diag_error(s->d, c->at[ci], "unsupported scope '%s' (gpu, cta, sys)", m);
			return false;
		}
	}
	*out = sem | scope << 8;
	return true;
}

/* Triton's atom_red_typechecking_impl: fp16 and bf16 only for atomic_add,
 * no 16-bit integers and nothing narrower than 16 bits; atomic_min/max of a
 * float only for fp32 and fp64, the bitwise ones only for integers. */
static bool atomic_dtype_ok(Sema *s, Call *c, AtomicOp op, DType e)
{
	bool ok;
	if ((e == DT_F16 || e == DT_BF16) && op != ATOM_ADD) ok = false;
	else if (dtype_bits(e) < 32) ok = e == DT_F16 || e == DT_BF16;
	else if (op == ATOM_AND || op == ATOM_OR || op == ATOM_XOR) ok = dtype_is_int(e);
	else ok = dtype_is_int(e) || e == DT_F32 || e == DT_F64;
	if (!ok) diag_error(s->d, c->loc, "'%s' does not support %s", c->name, dtype_name(e));
	return ok;
}

static Value b_atomic(Sema *s, Call *c, int aop)
{
	ValId ptr, mask;
	int64_t sem;
	if (!pointer_arg(s, c, 0, &ptr) || !writable_pointer(s, c, ptr) || !sem_scope(s, c, 3, 4, &sem))
		return v_err();
	DType e = (DType)vtype(s, ptr).elem;
	if (!atomic_dtype_ok(s, c, (AtomicOp)aop, e)) return v_err();
	ValId val = to_ir(s, c->a[1], e, c->at[1]);
	if (!val || !(val = fit_to_pointer(s, c, 1, "value", ptr, val))) return v_err();
	if (!mask_arg(s, c, 2, &ptr, &mask, false)) return v_err();
	ValId in[3] = {ptr, val, mask};
	TirOp *op = emit_op(s, TOP_ATOMIC, c->loc, in, mask ? 3 : 2, vtype(s, val));
	op->attr.atomic = aop;
	op->attr.i = sem;
	op->attr.flags = mask ? TIR_HAS_MASK : 0;
	return v_tensor(s, op->results[0]);
}

static Value b_atomic_cas(Sema *s, Call *c, int extra)
{
	(void)extra;
	ValId ptr;
	int64_t sem;
	if (!pointer_arg(s, c, 0, &ptr) || !sem_scope(s, c, 3, 4, &sem)) return v_err();
	DType e = (DType)vtype(s, ptr).elem;
	if (!(dtype_bits(e) == 16 || dtype_bits(e) == 32 || dtype_bits(e) == 64)) {
		diag_error(s->d, c->loc, "'%s' does not support %s", c->name, dtype_name(e));
		return v_err();
	}
	ValId cmp = to_ir(s, c->a[1], e, c->at[1]), val = to_ir(s, c->a[2], e, c->at[2]);
	if (!cmp || !val || !(cmp = fit_to_pointer(s, c, 1, "cmp", ptr, cmp)) ||
	    !(val = fit_to_pointer(s, c, 2, "value", ptr, val)))
		return v_err();
	ValId in[3] = {ptr, cmp, val};
	TirOp *op = emit_op(s, TOP_ATOMIC_CAS, c->loc, in, 3, vtype(s, val));
	op->attr.i = sem;
	return v_tensor(s, op->results[0]);
}

/* also methods of a pointer tile, as in Triton: (ptr + offs).atomic_add(v) */
#define ATOMIC(name, op) {name, "pointer,val,mask=None,sem=None,scope=None", b_atomic, op, BF_TL | BF_METHOD}

const Builtin builtins_mem[] = {
    {"load",
     "pointer,mask=None,other=None,boundary_check=(),padding_option='',cache_modifier='',eviction_policy='',"
     "volatile=False",
     b_load, 0, BF_TL},
    {"store", "pointer,value,mask=None,boundary_check=(),cache_modifier='',eviction_policy=''", b_store, 0,
     BF_TL | BF_METHOD},
    ATOMIC("atomic_add", ATOM_ADD),
    ATOMIC("atomic_max", ATOM_MAX),
    ATOMIC("atomic_min", ATOM_MIN),
    ATOMIC("atomic_xchg", ATOM_XCHG),
    ATOMIC("atomic_and", ATOM_AND),
    ATOMIC("atomic_or", ATOM_OR),
    ATOMIC("atomic_xor", ATOM_XOR),
    {"atomic_cas", "pointer,cmp,val,sem=None,scope=None", b_atomic_cas, 0, BF_TL | BF_METHOD},
    {NULL, NULL, NULL, 0, 0},
};

/* builtins_tensorarg.c: the torch.Tensor methods a heuristic or an
 * early_config_prune calls on a kernel's tensor argument (args['x']), as
 * Triton's launcher passes them the tensors. The element type is known from
 * the specialization; the shape and strides only where the host gave the
 * tensor (a DLTensor to tile_kernel_get_typed, an .npy array to `tile run`):
 * V_RTARG.items / .keys, depth 1. Elsewhere they are an error that says so. */
#include "sema/sema_int.h"

Value tensorarg_shape_needed(Sema *s, Value v, const char *what, SrcLoc loc)
{
	const char *why = "known only where the host passes the tensor (a DLTensor to tile_kernel_get_typed, an "
			  ".npy array to tile run), not from a plain pointer or a signature";
	if (s->heuristic)
		diag_error(s->d, loc, "heuristic for '%s' needs %s of tensor argument '%s': %s", s->heuristic, what, v.msg,
			   why);
	else
		diag_error(s->d, loc, "%s of tensor argument '%s' is %s", what, v.msg, why);
	return v_err();
}

static bool has_shape(Sema *s, Call *c, const char *what)
{
	if (c->a[0].depth) return true;
	tensorarg_shape_needed(s, c->a[0], what, c->loc);
	return false;
}

/* x.element_size(): the bytes of its element type, known without the tensor */
static Value b_element_size(Sema *s, Call *c, int extra)
{
	(void)s, (void)extra;
	return v_int(dtype_bytes((DType)c->a[0].ty.elem));
}

/* x.numel() / x.nelement() */
static Value b_numel(Sema *s, Call *c, int extra)
{
	(void)extra;
	if (!has_shape(s, c, "the shape")) return v_err();
	int64_t n = 1;
	for (int d = 0; d < c->a[0].n; d++) n *= c->a[0].items[d].c.i;
	return v_int(n);
}

/* x.dim() / x.ndimension() */
static Value b_dim(Sema *s, Call *c, int extra)
{
	(void)extra;
	if (!has_shape(s, c, "the shape")) return v_err();
	return v_int(c->a[0].n);
}

/* x.size(dim=None) (extra 0) and x.stride(dim=None) (extra 1): the tuple, or one
 * entry with Python's negative indices */
static Value b_size_stride(Sema *s, Call *c, int extra)
{
	Value x = c->a[0];
	if (!has_shape(s, c, extra ? "the strides" : "the shape")) return v_err();
	const Value *vals = extra ? x.keys : x.items;
	if (!c->has[1] || v_is_none(c->a[1])) return v_tuple(s, vals, x.n);
	int64_t d;
	if (!arg_const_int(s, c, 1, &d)) return v_err();
	if (d < -x.n || d >= x.n) {
		diag_error(s->d, c->at[1], "dimension out of range (expected to be in range of [%d, %d], but got %lld)",
			   -x.n, x.n - 1, (long long)d);
		return v_err();
	}
	return vals[d < 0 ? d + x.n : d];
}

/* x.is_contiguous(): strides of a row-major tensor (a dimension of size 1 may
 * have any); an empty tensor is contiguous whatever its strides, as torch's */
static Value b_is_contiguous(Sema *s, Call *c, int extra)
{
	(void)extra;
	Value x = c->a[0];
	if (!has_shape(s, c, "the strides")) return v_err();
	for (int d = 0; d < x.n; d++)
		if (x.items[d].c.i == 0) return v_bool(true);
	int64_t want = 1; /* the element count fits in 64 bits (api_dltensor_problem) */
	for (int d = x.n - 1; d >= 0; d--) {
		int64_t n = x.items[d].c.i;
		if (n != 1 && x.keys[d].c.i != want) return v_bool(false);
		want *= n;
	}
	return v_bool(true);
}

const Builtin builtins_tensorarg[] = {
    {"element_size", "self", b_element_size, 0, BF_TENSORARG},
    {"numel", "self", b_numel, 0, BF_TENSORARG},
    {"nelement", "self", b_numel, 0, BF_TENSORARG},
    {"dim", "self", b_dim, 0, BF_TENSORARG},
    {"ndimension", "self", b_dim, 0, BF_TENSORARG},
    {"size", "self,dim=None", b_size_stride, 0, BF_TENSORARG},
    {"stride", "self,dim=None", b_size_stride, 1, BF_TENSORARG},
    {"is_contiguous", "self", b_is_contiguous, 0, BF_TENSORARG},
    {NULL, NULL, NULL, 0, 0},
};

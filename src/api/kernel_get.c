/* kernel_get.c: tile_kernel_get and tile_kernel_get_typed: a kernel's
 * specialization from a signature string or from typed arguments, converted
 * the way Triton's launcher does (integers, pointers' alignment, tensor
 * descriptors, tuples), with heuristics and autotune pruning applied, then
 * looked up or built by module.c (api_get_spec).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "util/unicode_ident.h"

/* The kernel's decorators failed: their diagnostic, already rendered, is the
 * error (before any argument, whose meaning the decorators decide). */
static tile_status deco_failed(tile_module *m, const KernelInfo *ki)
{
	return api_fail(m->ctx, TILE_ERROR_COMPILE, "%s", ki->deco_error);
}

tile_status tile_kernel_get(tile_module *m, const char *name, const char *signature,
                            const tile_kernel_options *opt, tile_kernel **out)
{
	if (out)
		*out = NULL;
	if (!m || !name || !out)
		return api_fail(m ? m->ctx : NULL, TILE_ERROR_INVALID_ARGUMENT,
		                "tile_kernel_get: module, name and out must not be NULL");
	const KernelInfo *ki = api_find_kernel(m, name);
	if (!ki)
		return api_kernel_not_found(m, name);
	if (ki->deco_error)
		return deco_failed(m, ki);
	if (!api_module_enter(m, "tile_kernel_get"))
		return TILE_ERROR_INVALID_ARGUMENT;
	Arena a;
	arena_init(&a);
	SpecArg *args = NULL;
	int nargs = 0;
	tile_status st;
	diag_clear(&m->ctx->diags);
	HeurLaunch launch;
	if (parse_signature_diag(signature ? signature : "", ki, &a, &args, &nargs, &m->ctx->diags) != 0)
		st = api_fail_diags(m->ctx, TILE_ERROR_INVALID_ARGUMENT);
	else if ((st = api_signature_prune(m, ki, &args, &nargs, &a, &launch)) == TILE_OK)
		st = api_get_spec(m, ki, args, nargs, opt, &launch, out);
	arena_free(&a);
	return api_module_leave(m, st);
}

static bool int_arg(const tile_arg *a, int64_t *v, DType *dt)
{
	switch (a->kind) {
	case TILE_ARG_I32:
		*v = a->i32;
		*dt = DT_I32;
		return true;
	case TILE_ARG_I64:
		*v = a->i64;
		*dt = DT_I64;
		return true;
	case TILE_ARG_U32:
		*v = a->u32;
		*dt = DT_U32;
		return true;
	case TILE_ARG_U64:
		*v = (int64_t)a->u64;
		*dt = DT_U64;
		return true;
	default: return false;
	}
}

/* `name` or `a.b.c`: Python identifiers joined by dots. */
static bool is_dotted_identifier(const char *s) { return s && py_dotted_name(s, 0); }

static tile_status const_from_arg(tile_context *ctx, const KernelParamInfo *p, const tile_arg *a,
                                  Arena *arena, ConstVal *cv)
{
	int64_t iv;
	DType dt;
	memset(cv, 0, sizeof *cv);
	if (int_arg(a, &iv, &dt)) {
		cv->kind = CV_INT;
		cv->i = iv;
		cv->u64 = a->kind == TILE_ARG_U64 && a->u64 > INT64_MAX; /* a Python int Triton types uint64 */
		return TILE_OK;
	}
	switch (a->kind) {
	case TILE_ARG_F32:
		cv->kind = CV_FLOAT;
		cv->f = a->f32;
		return TILE_OK;
	case TILE_ARG_F64:
		cv->kind = CV_FLOAT;
		cv->f = a->f64;
		return TILE_OK;
	case TILE_ARG_BOOL:
		cv->kind = CV_BOOL;
		cv->i = a->b != 0;
		return TILE_OK;
	case TILE_ARG_NONE: cv->kind = CV_NONE; return TILE_OK;
	case TILE_ARG_STR:
		cv->kind = CV_STR;
		cv->s = arena_strdup(arena, a->str);
		return TILE_OK;
	case TILE_ARG_NAME:
		if (!is_dotted_identifier(a->str))
			return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT,
			                "constexpr parameter '%s': '%s' is not a (dotted) name", p->name, a->str);
		cv->kind = CV_NAME; /* sema resolves it in the kernel's module */
		cv->s = arena_strdup(arena, a->str);
		return TILE_OK;
	case TILE_ARG_DTYPE:
		cv->kind = CV_DTYPE;
		if (!api_dtype_to_dt(a->dtype, &cv->dtype))
			return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT,
			                "constexpr parameter '%s': unknown dtype %d", p->name,
			                (int)a->dtype);
		return TILE_OK;
	default:
		return api_fail(
		        ctx, TILE_ERROR_INVALID_ARGUMENT,
		        "constexpr parameter '%s' needs a constant (int, float, bool, None, str "
		        "or dtype), not a %s",
		        p->name,
		        a->kind == TILE_ARG_DLTENSOR     ? "DLTensor"
		        : a->kind == TILE_ARG_TENSORDESC ? "tensor descriptor"
		                                         : "pointer");
	}
}

static tile_status ptr_spec(tile_context *ctx, const KernelParamInfo *p, const void *ptr,
                            tile_dtype d, SpecArg *out)
{
	DType dt;
	if (d != TILE_DTYPE_UNSPECIFIED && !api_dtype_to_dt(d, &dt))
		return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT,
		                "pointer argument '%s': its pointee dtype %d is no tile_dtype", p->name, (int)d);
	if (d == TILE_DTYPE_UNSPECIFIED)
		return api_fail(
		        ctx, TILE_ERROR_INVALID_ARGUMENT,
		        "pointer argument '%s' needs a pointee dtype to specialize the kernel",
		        p->name);
	out->ty = type_ptr(dt);
	if (!p->do_not_specialize && !p->no_align_spec && (uintptr_t)ptr % 16 == 0)
		out->spec = SPEC_DIV16;
	return TILE_OK;
}

/* A host tensor descriptor argument: the signature entry
 * tensordesc<dtype[block_shape]> (checked here; the tensor itself at launch). */
static tile_status desc_spec(tile_context *ctx, const KernelParamInfo *p, const tile_tensordesc *d,
                             SpecArg *out)
{
	if (!d || !d->tensor)
		return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT,
		                "argument '%s': a tensor descriptor needs a tensor", p->name);
	if (d->block_rank < 1 || d->block_rank > TILE_MAX_DESC_RANK ||
	    d->block_rank != d->tensor->ndim)
		return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT,
		                "argument '%s': the descriptor's block has %d dimensions, its tensor %d "
		                "(they must agree, 1 to %d)",
		                p->name, d->block_rank, d->tensor->ndim, TILE_MAX_DESC_RANK);
	for (int i = 0; i < d->block_rank; i++) {
		int32_t b = d->block_shape[i];
		if (!desc_block_dim_ok(b))
			return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT,
			                "argument '%s': block dimension %d is %d; it must be a power "
			                "of two from 1 to 2^20",
			                p->name, i, (int)b);
	}
	tile_dtype td = d->dtype != TILE_DTYPE_UNSPECIFIED ? d->dtype
	                                                  : api_dtype_from_dlpack(d->tensor->dtype);
	DType dt;
	if (td == TILE_DTYPE_UNSPECIFIED || !api_dtype_to_dt(td, &dt) || dt == DT_I1)
		return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT,
		                "argument '%s': the descriptor's element type is not one tile supports",
		                p->name);
	char why[160];
	if (api_desc_elem_problem(d, why, sizeof why))
		return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT, "argument '%s': %s", p->name, why);
	out->ty = type_ptr(dt);
	out->spec = SPEC_DIV16; /* the descriptor contract: a 16-byte aligned base */
	/* as an int32 size divisible by 16 would be specialized `:16` */
	out->desc_last16 = !p->do_not_specialize && !p->no_align_spec &&
	                   d->tensor->shape && d->tensor->shape[d->block_rank - 1] % 16 == 0;
	out->desc_rank = d->block_rank;
	for (int i = 0; i < d->block_rank; i++)
		out->desc_block[i] = d->block_shape[i];
	return TILE_OK;
}

/* A tuple argument: each element specialized as a runtime parameter of its own
 * (`(i32:16, i32:1)` in a signature), None, strings and dtypes as constants;
 * for a constexpr parameter (Triton's `shape: tl.constexpr` given x.shape)
 * every element is a constant. */
static tile_status tuple_spec(tile_context *ctx, const KernelParamInfo *p, const tile_tuple *t,
                              Arena *arena, SpecArg *out, int depth)
{
	enum { MAX_ELEMS = 64, MAX_DEPTH = 8 }; /* as the signature parser */
	memset(out, 0, sizeof *out);
	if (depth >= MAX_DEPTH)
		return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT,
		                "argument '%s': the tuple nests deeper than %d", p->name, MAX_DEPTH);
	if (!t || (t->len && !t->elems))
		return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT,
		                "argument '%s': a tuple argument needs its tile_tuple and elements",
		                p->name);
	if (t->len == 0) { /* `()`: no runtime element, a constant */
		out->is_const = true;
		out->empty_tuple = true;
		return TILE_OK;
	}
	if (t->len > MAX_ELEMS)
		return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT,
		                "argument '%s': a tuple of %zu elements (at most %d)", p->name,
		                t->len, MAX_ELEMS);
	SpecArg *items = ARENA_NEWN(arena, SpecArg, t->len);
	KernelParamInfo elem = *p;
	/* Triton specializes a tuple's elements whatever do_not_specialize says */
	elem.do_not_specialize = elem.no_align_spec = false;
	for (size_t j = 0; j < t->len; j++) {
		const tile_arg *e = &t->elems[j];
		if (e->kind == TILE_ARG_TENSORDESC)
			return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT,
			                "argument '%s': element %zu of the tuple is a tensor descriptor; "
			                "elements are scalars, pointers, None, strings, dtypes or tuples",
			                p->name, j + 1);
		bool constant = p->is_constexpr || e->kind == TILE_ARG_STR || e->kind == TILE_ARG_DTYPE;
		/* a bad tensor is named by its element, as the launch names it */
		const char *why = e->kind == TILE_ARG_DLTENSOR && !constant ? api_dltensor_problem(e->dl, -1) : NULL;
		if (why)
			return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT, "argument '%s': element %zu of the tuple: %s",
			                p->name, j + 1, why);
		elem.is_constexpr = constant;
		tile_status st = e->kind == TILE_ARG_TUPLE /* nested, as Triton's launcher takes them */
		                         ? tuple_spec(ctx, &elem, e->tuple, arena, &items[j], depth + 1)
		                         : api_spec_from_arg(ctx, &elem, e, arena, &items[j]);
		if (st != TILE_OK)
			return st;
	}
	out->tuple_len = (int)t->len;
	out->tuple = items;
	return TILE_OK;
}

tile_status api_spec_from_arg(tile_context *ctx, const KernelParamInfo *p, const tile_arg *a,
                              Arena *arena, SpecArg *out)
{
	memset(out, 0, sizeof *out);
	/* a tile_arg not made by a constructor: a kind past the enum was called a
	 * dtype or a pointer, a NULL string bound as '' */
	if ((unsigned)a->kind > TILE_ARG_NAME)
		return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT,
		                "argument '%s' has kind %d, which is no tile_arg_kind (make it with a tile_arg_* function)",
		                p->name, (int)a->kind);
	if ((a->kind == TILE_ARG_STR || a->kind == TILE_ARG_NAME) && !a->str)
		return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT, "argument '%s': the %s is NULL%s", p->name,
		                a->kind == TILE_ARG_STR ? "string" : "name",
		                a->kind == TILE_ARG_STR ? " (tile_arg_none() passes None)" : "");
	if (a->kind == TILE_ARG_TUPLE)
		return tuple_spec(ctx, p, a->tuple, arena, out, 0);
	if (p->is_constexpr || a->kind == TILE_ARG_NONE) {
		out->is_const = true;
		return const_from_arg(ctx, p, a, arena, &out->cval);
	}
	int64_t iv;
	DType dt;
	DType ann = (DType)p->ann_dt;
	if (int_arg(a, &iv, &dt)) {
		/* `s: tl.int64` is i64 whatever the value, as Triton's binder types it
		 * (the launch checks that the value fits); a bool annotation (u1) is
		 * not specialized there. Nor is an annotated integer equal to 1 folded:
		 * the binder's ("i32",) + ("constexpr", 1)[1:] is a runtime i32 whose
		 * attribute 1 is no string, so no specialization (jit.py,
		 * create_function_from_signature): `2147483647 + s` wraps */
		bool annotated = dtype_is_int(ann);
		if (annotated)
			dt = ann;
		out->ty = type_scalar(dt);
		if (!p->do_not_specialize && dt != DT_I1)
			out->spec = iv == 1 ? (annotated ? SPEC_NONE : SPEC_EQ1)
			                    : (iv % 16 == 0 && !p->no_align_spec ? SPEC_DIV16 : SPEC_NONE);
		return TILE_OK;
	}
	switch (a->kind) {
	case TILE_ARG_PTR: return ptr_spec(ctx, p, a->ptr, a->dtype, out);
	case TILE_ARG_DLTENSOR: {
		const char *why = api_dltensor_problem(a->dl, -1); /* the device: at launch */
		if (why)
			return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT, "argument '%s': %s", p->name, why);
		return ptr_spec(ctx, p, api_dltensor_data(a->dl),
		                api_dtype_from_dlpack(a->dl->dtype), out);
	}
	case TILE_ARG_TENSORDESC: return desc_spec(ctx, p, a->desc, out);
	case TILE_ARG_F32:
	case TILE_ARG_F64: /* `eps: tl.float64` is fp64 whatever the caller's width */
		if (dtype_is_int(ann)) /* Triton's launcher cannot pack it (a TypeError): it was taken as fp32 */
			return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT,
			                "argument '%s' is a float, but the parameter is annotated tl.%s: pass %s",
			                p->name, dtype_name(ann), ann == DT_I1 ? "True or False" : "an integer");
		out->ty = type_scalar(dtype_is_float(ann) ? ann : a->kind == TILE_ARG_F32 ? DT_F32 : DT_F64);
		return TILE_OK;
	case TILE_ARG_BOOL: out->ty = type_scalar(DT_I1); return TILE_OK;
	default:
		return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT,
		                "parameter '%s' is not tl.constexpr: it cannot take a %s", p->name,
		                a->kind == TILE_ARG_STR ? "string" : a->kind == TILE_ARG_NAME ? "name" : "dtype");
	}
}

/* The Python value of a runtime scalar argument, as Triton's heuristics see it. */
static bool scalar_value(const tile_arg *a, ConstVal *v)
{
	int64_t iv;
	DType dt;
	if (a->kind == TILE_ARG_U64 && a->u64 > INT64_MAX)
		return false;
	if (int_arg(a, &iv, &dt)) {
		*v = (ConstVal){.kind = CV_INT, .i = iv};
		return true;
	}
	switch (a->kind) {
	case TILE_ARG_F32: *v = (ConstVal){.kind = CV_FLOAT, .f = a->f32}; return true;
	case TILE_ARG_F64: *v = (ConstVal){.kind = CV_FLOAT, .f = a->f64}; return true;
	case TILE_ARG_BOOL: *v = (ConstVal){.kind = CV_BOOL, .i = a->b != 0}; return true;
	default: return false;
	}
}

/* Binds, as constants, the parameters sema_heuristic_values set (set[i]) in the
 * specialization *specp of *nargs arguments (extended, past `last` too, with
 * the defaults of those left out). */
static void bind_results(const KernelInfo *ki, const ConstVal *vals, const bool *set, int last,
                         SpecArg **specp, int *nargs, Arena *a)
{
	int n = *nargs;
	for (int i = 0; i < ki->nparams; i++) /* a config early_config_prune kept binds its parameters */
		if (set[i] && i > last)
			last = i;
	int nn = last + 1 > n ? last + 1 : n;
	SpecArg *out = ARENA_NEWN(a, SpecArg, nn + 1);
	for (int i = 0; i < nn; i++) {
		if (set[i])
			out[i] = (SpecArg){.is_const = true, .cval = vals[i]};
		else if (i < n)
			out[i] = (*specp)[i];
		else
			out[i] = (SpecArg){.is_const = true, .use_default = true, .cval = ki->params[i].default_val};
	}
	*nargs = nn;
	*specp = out;
}

/* The shape and strides (in elements; a NULL strides is row-major) of a DLTensor
 * argument, which heuristics read as Triton's see the tensor (args['x'].shape).
 * Row-major strides count a dimension of size 0 as 1, as torch's and NumPy's
 * (torch.empty(3, 0, 4).stride() is (4, 4, 1)); false when one of them does
 * not fit in 64 bits (possible only with a 0 dimension: the element count fits). */
static bool tensor_shape(const DLTensor *t, Arena *a, SpecArg *out)
{
	int64_t *strides = ARENA_NEWN(a, int64_t, t->ndim + 1), st = 1;
	bool over = false;
	for (int d = t->ndim - 1; d >= 0; d--) {
		if (!t->strides && over)
			return false;
		strides[d] = t->strides ? t->strides[d] : st;
		over = over || __builtin_mul_overflow(st, t->shape[d] > 1 ? t->shape[d] : 1, &st);
	}
	out->has_shape = true;
	out->ndim = t->ndim;
	out->shape = t->shape;
	out->strides = strides;
	return true;
}

/* Triton's launcher runs a kernel's @triton.heuristics on the actual arguments
 * (EVEN_K from K's value): the ones the caller leaves unbound are computed here
 * from the values and bound as constants, so the specialization and its key
 * hold their results. One this cannot compute is left to sema, which reports it. */
static tile_status with_heuristics(tile_module *m, const KernelInfo *ki, const tile_arg *args,
                                   SpecArg **specp, int *nargs, Arena *a, HeurLaunch *launch)
{
	SpecArg *spec = *specp;
	int n = *nargs, np = ki->nparams, last = -1;
	for (int i = 0; i < np; i++)
		if (ki->params[i].heuristic &&
		    (i >= n || (spec[i].is_const && spec[i].cval.kind == CV_NONE)))
			last = i;
	if (last < 0 && !ki->launch_heuristic && !ki->prunes)
		return TILE_OK;
	bool any_value = false;
	SpecArg *probe = ARENA_NEWN(a, SpecArg, n ? n : 1);
	for (int i = 0; i < n; i++) {
		probe[i] = spec[i];
		if (!spec[i].is_const && !spec[i].tuple_len && !spec[i].desc_rank &&
		    scalar_value(&args[i], &probe[i].value))
			any_value = probe[i].has_value = true;
		if (!spec[i].is_const && args[i].kind == TILE_ARG_DLTENSOR) {
			if (!tensor_shape(args[i].dl, a, &probe[i]))
				return api_fail(m->ctx, TILE_ERROR_INVALID_ARGUMENT,
				                "argument '%s': a row-major stride of the DLTensor (strides "
				                "NULL) does not fit in 64 bits",
				                ki->params[i].name);
			any_value = true;
		}
	}
	if (!any_value && !ki->prunes)
		return TILE_OK; /* nothing the specialization does not already say */
	ConstVal *vals = ARENA_NEWN(a, ConstVal, np);
	bool *set = ARENA_NEWN(a, bool, np);
	/* an error here is reported as it is: the compile without the values
	 * would only say "needs the value of runtime argument 'n'" where the
	 * heuristic divided by n == 0 or shifted by a huge n */
	diag_clear(&m->ctx->diags);
	bool ok = api_heuristic_values(m, ki, probe, n, vals, set, launch);
	if (m->ctx->diags.nerrors > 0)
		return api_fail_diags(m->ctx, TILE_ERROR_COMPILE);
	if (!ok)
		return TILE_OK;
	bind_results(ki, vals, set, last, specp, nargs, a);
	return TILE_OK;
}

/* Compiling from a signature, Triton's Autotuner would still prune the configs
 * before it benchmarks: early_config_prune and perf_model are run on what the
 * signature says (constants by value, pointers' dtypes), and the first config
 * they keep is bound; one that reads what it does not say (a runtime argument's
 * value) leaves the first config, as without them. */
tile_status api_signature_prune(tile_module *m, const KernelInfo *ki, SpecArg **specp, int *nargs, Arena *a,
                                HeurLaunch *launch)
{
	*launch = (HeurLaunch){.prune_only = true};
	if (!ki->prunes)
		return TILE_OK;
	int np = ki->nparams;
	for (int i = 0; i < *nargs; i++)
		if ((*specp)[i].tuple_len)
			return TILE_OK; /* the sema pass takes no tuple elements (as with_heuristics) */
	ConstVal *vals = ARENA_NEWN(a, ConstVal, np + 1);
	bool *set = ARENA_NEWN(a, bool, np + 1);
	diag_clear(&m->ctx->diags);
	bool ok = api_heuristic_values(m, ki, *specp, *nargs, vals, set, launch);
	if (m->ctx->diags.nerrors > 0)
		return api_fail_diags(m->ctx, TILE_ERROR_COMPILE);
	if (ok)
		bind_results(ki, vals, set, -1, specp, nargs, a);
	return TILE_OK;
}

tile_status tile_kernel_get_typed(tile_module *m, const char *name, const tile_arg *args,
                                  size_t nargs, const tile_kernel_options *opt, tile_kernel **out)
{
	if (out)
		*out = NULL;
	if (!m || !name || !out || (nargs && !args))
		return api_fail(
		        m ? m->ctx : NULL, TILE_ERROR_INVALID_ARGUMENT,
		        "tile_kernel_get_typed: module, name, args and out must not be NULL");
	const KernelInfo *ki = api_find_kernel(m, name);
	if (!ki)
		return api_kernel_not_found(m, name);
	if (ki->deco_error)
		return deco_failed(m, ki);
	if (nargs > (size_t)ki->nparams)
		return api_fail(m->ctx, TILE_ERROR_INVALID_ARGUMENT,
		                "kernel '%s' takes %d parameters, got %zu arguments", name,
		                ki->nparams, nargs);
	for (size_t i = nargs; i < (size_t)ki->nparams; i++)
		if (!ki->params[i].has_default)
			return api_fail(m->ctx, TILE_ERROR_INVALID_ARGUMENT,
			                "kernel '%s': no argument for parameter '%s'", name,
			                ki->params[i].name);
	if (!api_module_enter(m, "tile_kernel_get_typed"))
		return TILE_ERROR_INVALID_ARGUMENT;
	Arena a;
	arena_init(&a);
	SpecArg *spec = ARENA_NEWN(&a, SpecArg, nargs ? nargs : 1);
	tile_status st = TILE_OK;
	for (size_t i = 0; i < nargs && st == TILE_OK; i++)
		st = api_spec_from_arg(m->ctx, &ki->params[i], &args[i], &a, &spec[i]);
	int n = (int)nargs;
	HeurLaunch launch = {0};
	if (st == TILE_OK)
		st = with_heuristics(m, ki, args, &spec, &n, &a, &launch);
	if (st == TILE_OK)
		st = api_get_spec(m, ki, spec, n, opt, &launch, out);
	arena_free(&a);
	return api_module_leave(m, st);
}

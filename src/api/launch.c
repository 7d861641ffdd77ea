/* launch.c: tile_launch, the hot path.
 *
 * A launch converts the typed arguments into the launch ABI (an array of
 * pointers to values, on the stack), checks each against the specialization
 * (kind, pointee dtype, :16, :1) and runs the grid. No hashing, no allocation,
 * no lock except the worker pool's. Errors name the parameter.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"

typedef union ArgVal {
	void *p;
	int8_t i8;
	int16_t i16;
	int32_t i32;
	int64_t i64;
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;
	float f32;
	double f64;
} ArgVal;

static const char *kind_name(tile_arg_kind k)
{
	static const char *const names[] = {"pointer", "i32",   "i64",      "u32",
	                                    "u64",     "f32",   "f64",      "bool",
	                                    "None",    "str",   "dtype",    "DLTensor",
	                                    "tensor descriptor", "tuple", "name"};
	return (unsigned)k < COUNTOF(names) ? names[k] : "unknown kind";
}

static tile_status bad(const tile_kernel *k, int slot, const char *fmt, const char *a,
                       const char *b)
{
	const char *pname = k->params[k->slots[slot].param].name;
	char msg[256];
	snprintf(msg, sizeof msg, fmt, a, b);
	return api_fail(k->ctx, TILE_ERROR_INVALID_ARGUMENT, "kernel '%s', argument '%s': %s",
	                k->name, pname, msg);
}

/* ---- half-precision conversions (round to nearest even) -------------------------- */

static uint16_t f32_to_bf16(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	if ((u & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((u >> 16) | 0x40);
	u += 0x7fffu + ((u >> 16) & 1);
	return (uint16_t)(u >> 16);
}

static uint16_t f32_to_f16(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	uint32_t sign = (u >> 16) & 0x8000u;
	uint32_t a = u & 0x7fffffffu;
	if (a > 0x7f800000u)
		return (uint16_t)(sign | 0x7e00u);
	if (a >= 0x477ff000u) /* rounds to >= 65520: inf */
		return (uint16_t)(sign | 0x7c00u);
	if (a < 0x38800000u) { /* subnormal half */
		float af;
		memcpy(&af, &a, 4);
		return (uint16_t)(sign | (uint32_t)lrintf(af * 16777216.0f));
	}
	uint32_t r = a - 0x38000000u; /* rebias exponent 127 -> 15 (in place) */
	r += 0xfffu + ((r >> 13) & 1);
	return (uint16_t)(sign | (r >> 13));
}

/* ---- conversion of one runtime argument ------------------------------------------- */

/* A pointer of pointee d for slot s. raw: given as a bare pointer, where a
 * NULL is no empty tensor's (a DLTensor with no elements may have NULL data). */
static tile_status check_ptr(const tile_kernel *k, int s, void *p, tile_dtype d, bool raw,
                             ArgVal *out)
{
	const ApiSlot *sl = &k->slots[s];
	DType dt;
	if (d != TILE_DTYPE_UNSPECIFIED && !api_dtype_to_dt(d, &dt)) { /* never an unchecked pointer */
		char num[16];
		snprintf(num, sizeof num, "%d", (int)d);
		return bad(k, s, "unknown pointee dtype %s (a tile_dtype, or TILE_DTYPE_UNSPECIFIED%s)", num,
		           " not to check it");
	}
	if (d != TILE_DTYPE_UNSPECIFIED && dt != sl->elem)
		return bad(k, s, "expected a pointer to %s, got a pointer to %s",
		           dtype_short(sl->elem), dtype_short(dt));
	/* on the host a load through NULL would kill the process (a GPU reports
	 * the fault instead); the kernel may still take NULL where it never
	 * dereferences the pointer */
	if (!p && raw && !k->is_cuda && (sl->spec & SPEC_ACCESSED))
		return bad(k, s, "the pointer is NULL, but the kernel reads or writes through it%s%s",
		           " (pass memory, or specialize the parameter to None:",
		           " tile_arg_none(), 'None' in a signature)");
	if ((sl->spec & SPEC_DIV16) && (uintptr_t)p % 16 != 0)
		return bad(
		        k, s,
		        "pointer is not 16-byte aligned, but the kernel was specialized for %s%s",
		        "*", ":16 (pass an aligned pointer or get a kernel without :16)");
	out->p = p;
	return TILE_OK;
}

static tile_status conv_ptr(const tile_kernel *k, int s, const tile_arg *a, ArgVal *out)
{
	const ApiSlot *sl = &k->slots[s];
	if (a->kind == TILE_ARG_PTR)
		return check_ptr(k, s, a->ptr, a->dtype, true, out);
	if (a->kind == TILE_ARG_DLTENSOR) {
		const char *why = api_dltensor_problem(a->dl, k->is_cuda);
		if (why)
			return bad(k, s, "%s%s", why, "");
		return check_ptr(k, s, api_dltensor_data(a->dl), api_dtype_from_dlpack(a->dl->dtype),
		                 false, out);
	}
	return bad(k, s, "expected a pointer to %s, got %s", dtype_short(sl->elem),
	           kind_name(a->kind));
}

static bool get_int(const tile_arg *a, int64_t *v, uint64_t *uv, bool *is_unsigned)
{
	*is_unsigned = false;
	switch (a->kind) {
	case TILE_ARG_I32: *v = a->i32; break;
	case TILE_ARG_I64: *v = a->i64; break;
	case TILE_ARG_U32: *v = a->u32; break;
	case TILE_ARG_BOOL: *v = a->b != 0; break;
	case TILE_ARG_U64:
		*uv = a->u64;
		*v = (int64_t)a->u64;
		*is_unsigned = true;
		return true;
	default: return false;
	}
	*uv = (uint64_t)*v;
	return true;
}

static bool int_fits(DType dt, int64_t v, uint64_t uv, bool is_unsigned)
{
	if (is_unsigned && uv > INT64_MAX)
		return dt == DT_U64;
	switch (dt) {
	case DT_I1: return v == 0 || v == 1;
	case DT_I8: return v >= INT8_MIN && v <= INT8_MAX;
	case DT_I16: return v >= INT16_MIN && v <= INT16_MAX;
	case DT_I32: return v >= INT32_MIN && v <= INT32_MAX;
	case DT_I64: return true;
	case DT_U8: return v >= 0 && v <= UINT8_MAX;
	case DT_U16: return v >= 0 && v <= UINT16_MAX;
	case DT_U32: return v >= 0 && v <= UINT32_MAX;
	case DT_U64: return v >= 0;
	default: return false;
	}
}

static tile_status conv_int(const tile_kernel *k, int s, const tile_arg *a, ArgVal *out)
{
	const ApiSlot *sl = &k->slots[s];
	int64_t v;
	uint64_t uv;
	bool is_unsigned;
	if (!get_int(a, &v, &uv, &is_unsigned))
		return bad(k, s, "expected %s, got %s", dtype_short(sl->dt), kind_name(a->kind));
	if (!int_fits(sl->dt, v, uv, is_unsigned))
		return bad(k, s, "value does not fit in %s%s", dtype_short(sl->dt), "");
	if ((sl->spec & SPEC_DIV16) && v % 16 != 0)
		return bad(k, s,
		           "value is not divisible by 16, but the kernel was specialized for %s%s",
		           dtype_short(sl->dt), ":16");
	if ((sl->spec & SPEC_EQ1) && v != 1)
		return bad(k, s, "value is not 1, but the kernel was specialized for %s%s",
		           dtype_short(sl->dt), ":1");
	out->u64 = 0;
	switch (dtype_bytes(sl->dt)) {
	case 1: out->u8 = (uint8_t)v; break;
	case 2: out->u16 = (uint16_t)v; break;
	case 4: out->u32 = (uint32_t)v; break;
	default: out->u64 = (uint64_t)v; break;
	}
	return TILE_OK;
}

static tile_status conv_float(const tile_kernel *k, int s, const tile_arg *a, ArgVal *out)
{
	const ApiSlot *sl = &k->slots[s];
	double v;
	if (a->kind == TILE_ARG_F32)
		v = a->f32;
	else if (a->kind == TILE_ARG_F64)
		v = a->f64;
	else
		return bad(k, s, "expected %s, got %s", dtype_short(sl->dt), kind_name(a->kind));
	out->u64 = 0;
	switch (sl->dt) {
	case DT_F32: out->f32 = (float)v; break;
	case DT_F64: out->f64 = v; break;
	case DT_F16: out->u16 = f32_to_f16((float)v); break;
	case DT_BF16: out->u16 = f32_to_bf16((float)v); break;
	default:
		return bad(k, s, "scalar arguments of type %s are not supported%s",
		           dtype_short(sl->dt), "");
	}
	return TILE_OK;
}

static tile_status conv_slot(const tile_kernel *k, int s, const tile_arg *a, ArgVal *out)
{
	DType dt = k->slots[s].dt;
	if (dt == DT_PTR)
		return conv_ptr(k, s, a, out);
	if (dtype_is_int(dt))
		return conv_int(k, s, a, out);
	return conv_float(k, s, a, out);
}

/* ---- constants given in all-parameters mode --------------------------------------- */

static bool const_matches(const ConstVal *c, const tile_arg *a)
{
	int64_t v;
	uint64_t uv;
	bool is_unsigned;
	switch (c->kind) {
	case CV_INT:
		return a->kind != TILE_ARG_BOOL && get_int(a, &v, &uv, &is_unsigned) &&
		       !(is_unsigned && uv > INT64_MAX) && v == c->i;
	case CV_BOOL: return (a->kind == TILE_ARG_BOOL && (a->b != 0) == (c->i != 0));
	case CV_FLOAT:
		return (a->kind == TILE_ARG_F32 && (double)a->f32 == (double)(float)c->f) ||
		       (a->kind == TILE_ARG_F64 && a->f64 == c->f);
	case CV_NONE: return a->kind == TILE_ARG_NONE;
	case CV_STR: return a->kind == TILE_ARG_STR && a->str && strcmp(a->str, c->s) == 0;
	case CV_NAME: return a->kind == TILE_ARG_NAME && a->str && strcmp(a->str, c->s) == 0;
	case CV_DTYPE: {
		DType dt;
		return a->kind == TILE_ARG_DTYPE && api_dtype_to_dt(a->dtype, &dt) &&
		       dt == c->dtype;
	}
	}
	return false;
}

static void const_str(const ConstVal *c, char *buf, size_t n)
{
	switch (c->kind) {
	case CV_INT: snprintf(buf, n, "%" PRId64, c->i); break;
	case CV_BOOL: snprintf(buf, n, "%s", c->i ? "True" : "False"); break;
	case CV_FLOAT: snprintf(buf, n, "%g", c->f); break;
	case CV_NONE: snprintf(buf, n, "None"); break;
	case CV_STR: snprintf(buf, n, "'%s'", c->s); break;
	case CV_DTYPE: snprintf(buf, n, "tl.%s", dtype_name(c->dtype)); break;
	case CV_NAME: snprintf(buf, n, "%s", c->s); break;
	}
}

/* A host tensor descriptor parameter from a DLTensor: its slots are the base
 * pointer, the shape (i32) and the strides but the last (i64, elements). The
 * descriptor contract is checked: rank, element type, a contiguous last
 * dimension, a 16-byte aligned base and leading strides of whole 16 bytes. */
/* A tuple argument (all-parameters form): its runtime elements, nested tuples'
 * included, fill the parameter's slots in order (*s the next); its constant
 * elements were specialized away. *node walks ApiParam.tnodes. */
static tile_status conv_tuple_at(const tile_kernel *k, const ApiParam *p, const tile_arg *a, int *node, int *s,
                                 ArgVal *vals)
{
	bool nested = *node > 0;
	int n = p->tnodes[(*node)++];
	if (a->kind != TILE_ARG_TUPLE || !a->tuple || (a->tuple->len && !a->tuple->elems) ||
	    a->tuple->len != (size_t)n)
		return api_fail(k->ctx, TILE_ERROR_INVALID_ARGUMENT,
		                "kernel '%s': parameter '%s' is a tuple of %d elements%s; pass "
		                "tile_arg_tuple with that many",
		                k->name, p->name, n, *node > 1 ? " there" : "");
	for (int j = 0; j < n; j++) {
		const tile_arg *e = &a->tuple->elems[j];
		int kind = p->tnodes[*node];
		tile_status st = TILE_OK;
		if (kind >= 0) {
			st = conv_tuple_at(k, p, e, node, s, vals);
		} else if (kind == -1) {
			(*node)++;
			const char *why = e->kind == TILE_ARG_DLTENSOR ? api_dltensor_problem(e->dl, k->is_cuda) : NULL;
			if (why) /* named by its element: the parameter alone does not say which */
				return api_fail(k->ctx, TILE_ERROR_INVALID_ARGUMENT,
				                "kernel '%s', argument '%s': element %d of %s: %s", k->name, p->name,
				                j + 1, nested ? "a nested tuple" : "the tuple", why);
			st = conv_slot(k, *s, e, &vals[*s]);
			(*s)++;
		} else { /* a constant the kernel was specialized to: the same again */
			const ConstVal *c = &p->tconsts[(*node)++];
			bool same = kind == -3 ? e->kind == TILE_ARG_TUPLE && e->tuple && e->tuple->len == 0
			                       : const_matches(c, e);
			if (!same) {
				char want[96] = "()";
				if (kind == -2)
					const_str(c, want, sizeof want);
				return api_fail(k->ctx, TILE_ERROR_INVALID_ARGUMENT,
				                "kernel '%s', argument '%s': element %d of %s was specialized "
				                "as %s; got a different %s (get another specialization for it)",
				                k->name, p->name, j + 1, nested ? "a nested tuple" : "the tuple",
				                want, kind_name(e->kind));
			}
		}
		if (st != TILE_OK)
			return st;
	}
	return TILE_OK;
}

static tile_status conv_tuple(const tile_kernel *k, const ApiParam *p, const tile_arg *a, ArgVal *vals)
{
	int node = 0, s = p->slot;
	return conv_tuple_at(k, p, a, &node, &s, vals);
}

static tile_status conv_desc(const tile_kernel *k, const ApiParam *p, const tile_arg *a, ArgVal *vals)
{
	int s = p->slot, r = p->desc_rank;
	tile_arg as_dl;
	tile_dtype elem = TILE_DTYPE_UNSPECIFIED; /* the tensor's */
	const tile_tensordesc *a_desc = NULL;
	if (a->kind == TILE_ARG_TENSORDESC) { /* its tensor, with the element type it names */
		const tile_tensordesc *td = a_desc = a->desc;
		if (!td || !td->tensor)
			return bad(k, s, "the tensor descriptor has no tensor%s%s", "", "");
		bool same = td->block_rank == r;
		for (int d = 0; same && d < r; d++)
			same = td->block_shape[d] == p->desc_block[d];
		if (!same)
			return bad(k, s, "the descriptor's block shape is not the one the kernel was "
			                 "specialized for%s%s", "", "");
		as_dl = tile_arg_dltensor(td->tensor);
		elem = td->dtype;
		a = &as_dl;
	}
	if (a->kind != TILE_ARG_DLTENSOR)
		return bad(k, s, "expected a DLTensor for this tensor descriptor, got %s%s", kind_name(a->kind), "");
	const char *why = api_dltensor_problem(a->dl, k->is_cuda);
	if (why)
		return bad(k, s, "%s%s", why, "");
	char view[160];
	if (elem != TILE_DTYPE_UNSPECIFIED && (why = api_desc_elem_problem(a_desc, view, sizeof view)))
		return bad(k, s, "%s%s", why, "");
	const DLTensor *t = a->dl;
	char want[16];
	snprintf(want, sizeof want, "%d", r);
	if (t->ndim != r)
		return bad(k, s, "the descriptor has rank %s, the DLTensor %s", want,
		           t->ndim == 1 ? "1 dimension" : "another number of dimensions");
	tile_status st = check_ptr(k, s, api_dltensor_data(t),
	                           elem != TILE_DTYPE_UNSPECIFIED ? elem : api_dtype_from_dlpack(t->dtype),
	                           false, &vals[s]);
	if (st != TILE_OK)
		return st;
	size_t es = (size_t)(dtype_bits((DType)k->slots[s].elem) / 8);
	for (int d = 0; d < r; d++) {
		int64_t n = t->shape[d];
		if (n < 0 || n > INT32_MAX)
			return bad(k, s, "a dimension of the DLTensor is %s (the descriptor takes int32 sizes)%s",
			           n < 0 ? "negative" : "too large", "");
		if ((k->slots[s + 1 + d].spec & SPEC_DIV16) && n % 16 != 0)
			return bad(k, s, "the DLTensor's last dimension is not a multiple of 16, but the kernel "
			                 "was specialized for one (tensordesc<...>:16)%s%s", "", "");
		vals[s + 1 + d].i32 = (int32_t)n;
	}
	int64_t stride = 1; /* of a contiguous tensor, while it fits (shapes are < 2^31) */
	for (int d = r - 1; d >= 0; d--) {
		int64_t sd = t->strides ? t->strides[d] : stride;
		stride = t->shape[d] && stride > INT64_MAX / t->shape[d] ? INT64_MAX : stride * t->shape[d];
		if (d == r - 1) {
			if (sd != 1)
				return bad(k, s, "the last dimension of the DLTensor is not contiguous (stride %s)%s",
				           sd == 0 ? "0" : "not 1", "");
			continue;
		}
		if (sd < 0 || sd > INT64_MAX / 16)
			return bad(k, s, "a leading stride of the DLTensor is %s%s",
			           sd < 0 ? "negative (tensor descriptors take strides >= 0)" : "too large", "");
		if ((sd * (int64_t)es) % 16 != 0)
			return bad(k, s, "a leading stride of the DLTensor is not a multiple of 16 bytes%s%s",
			           " (tensor descriptors require it)", "");
		vals[s + 1 + r + d].i64 = sd;
	}
	return TILE_OK;
}

static tile_status check_const(const tile_kernel *k, int i, const tile_arg *a)
{
	const ApiParam *p = &k->params[i];
	if (p->empty_tuple) { /* `()`: no slots; the same empty tuple again */
		if (a->kind == TILE_ARG_TUPLE && a->tuple && a->tuple->len == 0)
			return TILE_OK;
	} else if (const_matches(&p->cval, a) || (p->heuristic && a->kind == TILE_ARG_NONE)) {
		return TILE_OK;
	}
	char want[96];
	if (p->empty_tuple)
		snprintf(want, sizeof want, "()");
	else
		const_str(&p->cval, want, sizeof want);
	return api_fail(k->ctx, TILE_ERROR_INVALID_ARGUMENT,
	                "kernel '%s', argument '%s': the kernel was specialized with %s=%s; got a "
	                "different %s (get another specialization for it)",
	                k->name, p->name, p->name, want, kind_name(a->kind));
}

/* ---- launching ---------------------------------------------------------------------- */

/* The leading strides of each host descriptor, as the launch ABI passes them
 * (slots base, shapes, strides): whole 16 bytes and not negative, the
 * contract conv_desc checks on a DLTensor. Given as separate runtime
 * arguments (tile_launch's runtime form, the thunk) they were not checked,
 * and a row of 260 bytes read through 16-byte vectors faulted on a GPU
 * (misaligned address). */
static tile_status check_desc_strides(const tile_kernel *k, void **argv)
{
	for (int i = 0; i < k->nparams; i++) {
		const ApiParam *p = &k->params[i];
		if (!p->runtime || !p->desc_rank)
			continue;
		int64_t es = dtype_bits((DType)k->slots[p->slot].elem) / 8;
		for (int d = 0; d + 1 < p->desc_rank; d++) {
			int s = p->slot + 1 + p->desc_rank + d;
			int64_t v = *(const int64_t *)argv[s];
			if (v >= 0 && v <= INT64_MAX / 16 && (v * es) % 16 == 0)
				continue;
			return api_fail(k->ctx, TILE_ERROR_INVALID_ARGUMENT,
			                "kernel '%s', argument '%s': leading stride %d of the tensor "
			                "descriptor is %" PRId64 " elements, %s (tensor descriptors "
			                "require strides >= 0 of whole 16 bytes)",
			                k->name, p->name, d, v,
			                v < 0 ? "negative" : v > INT64_MAX / 16 ? "too large" : "not a multiple of 16 bytes");
		}
	}
	return TILE_OK;
}

tile_status api_launch_argv(tile_kernel *k, const uint32_t grid[3], void **argv, void *stream)
{
	tile_status st = k->has_desc ? check_desc_strides(k, argv) : TILE_OK; /* off the common path */
	if (st != TILE_OK)
		return st;
	if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0)
		return TILE_OK; /* an empty grid runs nothing, as Triton's launcher does */
	if (k->is_cuda)
		return backend_cuda_launch(k, grid, argv, stream);
	/* cuda-emu runs what a GPU would, so it refuses the grids a GPU refuses */
	static const uint32_t gpu_max[3] = {0x7fffffffu, 65535, 65535};
	for (int d = 0; k->ck.target.emulate && d < 3; d++)
		if (grid[d] > gpu_max[d])
			return api_fail(k->ctx, TILE_ERROR_LAUNCH,
			                "kernel '%s': grid %c dimension %" PRIu32
			                " is out of range (1 to %" PRIu32 " on a GPU)",
			                k->name, "xyz"[d], grid[d], gpu_max[d]);
	CpuLaunchNotes notes;
	int rc = cpu_launch(k->ctx->pool, k->cpu_fn, argv, grid, (size_t)k->ck.smem_bytes,
	                    k->ck.stack_bytes, k->rt, &notes);
	if (rc == 0 && notes.faults)
		st = backend_fault_report(k, &notes);
	else if (rc == 0 && notes.asserts)
		st = backend_assert_report(k, &notes);
	free(notes.assert_msg);
	free(notes.fault_msg);
	if (st != TILE_OK)
		return st;
	if (rc == -1)
		return api_fail(k->ctx, TILE_ERROR_LAUNCH,
		                "kernel '%s': grid %" PRIu32 "x%" PRIu32 "x%" PRIu32
		                " is too large",
		                k->name, grid[0], grid[1], grid[2]);
	if (rc == -3)
		return api_fail(k->ctx, TILE_ERROR_NOMEM,
		                "kernel '%s': cannot start a thread with %" PRIu64
		                " bytes of stack for it",
		                k->name, k->ck.stack_bytes);
	if (rc != 0)
		return api_fail(
		        k->ctx, TILE_ERROR_NOMEM,
		        "kernel '%s': out of memory for %d bytes of shared memory per worker",
		        k->name, k->ck.smem_bytes);
	return TILE_OK;
}

tile_status tile_launch(tile_kernel *k, const uint32_t grid[3], const tile_arg *args, size_t nargs,
                        void *stream)
{
	if (!k || !grid || (nargs && !args))
		return api_fail(k ? k->ctx : NULL, TILE_ERROR_INVALID_ARGUMENT,
		                "tile_launch: kernel, grid and args must not be NULL");
	ArgVal vals[API_MAX_PARAMS];
	void *argv[API_MAX_PARAMS];
	tile_status st;
	/* as many runtime slots as parameters: a descriptor given as a whole
	 * (DLTensor or tile_tensordesc) or a tuple argument says which */
	bool whole_desc = false;
	for (int i = 0; nargs == (size_t)k->nparams && i < k->nparams; i++)
		whole_desc = whole_desc || (k->params[i].desc_rank && (args[i].kind == TILE_ARG_DLTENSOR ||
		                                                       args[i].kind == TILE_ARG_TENSORDESC)) ||
		             (k->params[i].tuple && args[i].kind == TILE_ARG_TUPLE);
	if (nargs == (size_t)k->nslots && !whole_desc) {
		for (int s = 0; s < k->nslots; s++) {
			if ((st = conv_slot(k, s, &args[s], &vals[s])) != TILE_OK)
				return st;
			argv[s] = &vals[s];
		}
	} else if (nargs == (size_t)k->nparams) {
		for (int i = 0; i < k->nparams; i++) {
			const ApiParam *p = &k->params[i];
			st = p->tuple     ? conv_tuple(k, p, &args[i], vals)
			     : p->desc_rank ? conv_desc(k, p, &args[i], vals)
			     : p->runtime ? conv_slot(k, p->slot, &args[i], &vals[p->slot])
			                  : check_const(k, i, &args[i]);
			if (st != TILE_OK)
				return st;
			for (int j = 0; p->runtime && j < p->nslots; j++)
				argv[p->slot + j] = &vals[p->slot + j];
		}
	} else {
		return api_fail(
		        k->ctx, TILE_ERROR_INVALID_ARGUMENT,
		        "kernel '%s' takes %d runtime arguments (or all %d parameters), got %zu",
		        k->name, k->nslots, k->nparams, nargs);
	}
	return api_launch_argv(k, grid, argv, stream);
}

/* ---- kernel lifetime and queries ------------------------------------------------------- */

void api_kernel_free(tile_kernel *k)
{
	api_thunk_free(k->thunk);
	backend_unload(k);
	for (int i = 0; i < k->nparams; i++) {
		free(k->params[i].name);
		free(k->params[i].tnodes);
		for (int j = 0; j < k->params[i].ntnodes; j++)
			if (k->params[i].tconsts[j].kind == CV_STR || k->params[i].tconsts[j].kind == CV_NAME)
				free((char *)k->params[i].tconsts[j].s);
		free(k->params[i].tconsts);
		if (k->params[i].cval.kind == CV_STR || k->params[i].cval.kind == CV_NAME)
			free((char *)k->params[i].cval.s);
	}
	free(k->params);
	free(k->slots);
	free(k->key);
	compiled_kernel_free(&k->ck);
	api_ctx_release(k->ctx);
	free(k);
}

void tile_kernel_destroy(tile_kernel *k)
{
	if (k && --k->refs == 0)
		api_kernel_free(k);
}

tile_status tile_kernel_get_info(const tile_kernel *k, tile_kernel_info *out)
{
	if (!k || !out) /* the message, where there is a context: else tile_errmsg showed an older one */
		return api_fail(k ? k->ctx : NULL, TILE_ERROR_INVALID_ARGUMENT,
		                "tile_kernel_get_info: kernel and out must not be NULL");
	memset(out, 0, sizeof *out);
	out->name = k->ck.name;
	out->target = k->ck.target.name;
	out->num_params = k->nparams;
	out->num_runtime_args = k->nslots;
	out->num_warps = k->ck.num_warps;
	out->threads = k->ck.threads;
	out->shared_bytes = k->ck.smem_bytes;
	out->registers = k->registers >= 0 ? k->registers : k->ck.registers; /* the driver's, else ptxas's */
	out->spill_bytes = k->ck.spill_bytes;
	out->from_cache = k->ck.from_cache;
	out->compile_seconds = k->ck.t_total;
	return TILE_OK;
}

const char *tile_kernel_param_name(const tile_kernel *k, int i)
{
	return k && i >= 0 && i < k->nparams ? k->params[i].name : NULL;
}

int tile_kernel_param_is_runtime(const tile_kernel *k, int i)
{
	return k && i >= 0 && i < k->nparams && k->params[i].runtime;
}

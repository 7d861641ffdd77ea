/* thunk.c: a kernel as a plain C function (libffi closure).
 *
 *   int fn(RUNTIME PARAMS..., uint32_t gx, uint32_t gy, uint32_t gz, void *stream);
 *
 * The ffi_cif is prepared once, when the thunk is created. When the closure
 * is called, libffi hands the handler an array of pointers to the argument
 * values: the first nslots of them are exactly the launch ABI (args[i] points
 * at parameter i's value), so the handler checks the specialization flags and
 * launches with no copy and no allocation.
 */
#include <ffi.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"

struct ApiThunk {
	ffi_cif cif;
	ffi_type *types[API_MAX_PARAMS + 4];
	ffi_closure *closure;
	void *code;
};

static ffi_type *ffi_type_of(DType dt)
{
	switch (dt) {
	case DT_PTR: return &ffi_type_pointer;
	case DT_I1: return &ffi_type_uint8;
	case DT_I8: return &ffi_type_sint8;
	case DT_I16: return &ffi_type_sint16;
	case DT_I32: return &ffi_type_sint32;
	case DT_I64: return &ffi_type_sint64;
	case DT_U8: return &ffi_type_uint8;
	case DT_U16: return &ffi_type_uint16;
	case DT_U32: return &ffi_type_uint32;
	case DT_U64: return &ffi_type_uint64;
	case DT_F16:
	case DT_BF16: return &ffi_type_uint16;
	case DT_F32: return &ffi_type_float;
	case DT_F64: return &ffi_type_double;
	default: return NULL;
	}
}

/* The specialization promises (:16, :1) checked on the raw values, and no
 * NULL for a pointer the kernel accesses on the host (launch.c's check_ptr). */
static tile_status check_spec(tile_kernel *k, void **argv)
{
	for (int s = 0; s < k->nslots; s++) {
		const ApiSlot *sl = &k->slots[s];
		if (!sl->spec)
			continue;
		int64_t v;
		switch (dtype_bytes(sl->dt)) {
		case 1:
			v = dtype_is_signed(sl->dt) ? (int64_t) * (int8_t *)argv[s]
			                            : (int64_t) * (uint8_t *)argv[s];
			break;
		case 2:
			v = dtype_is_signed(sl->dt) ? (int64_t) * (int16_t *)argv[s]
			                            : (int64_t) * (uint16_t *)argv[s];
			break;
		case 4:
			v = dtype_is_signed(sl->dt) ? (int64_t) * (int32_t *)argv[s]
			                            : (int64_t) * (uint32_t *)argv[s];
			break;
		default:
			v = sl->dt == DT_PTR ? (int64_t)(uintptr_t) * (void **)argv[s]
			                     : *(int64_t *)argv[s];
		}
		const char *name = k->params[sl->param].name;
		if (sl->dt == DT_PTR && v == 0 && (sl->spec & SPEC_ACCESSED) && !k->is_cuda)
			return api_fail(k->ctx, TILE_ERROR_INVALID_ARGUMENT,
			                "kernel '%s', argument '%s': the pointer is NULL, but the kernel "
			                "reads or writes through it (pass memory, or specialize the "
			                "parameter to None: 'None' in a signature)",
			                k->name, name);
		if ((sl->spec & SPEC_DIV16) && v % 16 != 0)
			return api_fail(k->ctx, TILE_ERROR_INVALID_ARGUMENT,
			                "kernel '%s', argument '%s': %s, but the kernel was "
			                "specialized for :16",
			                k->name, name,
			                sl->dt == DT_PTR ? "pointer is not 16-byte aligned"
			                                 : "value is not divisible by 16");
		if ((sl->spec & SPEC_EQ1) && v != 1)
			return api_fail(
			        k->ctx, TILE_ERROR_INVALID_ARGUMENT,
			        "kernel '%s', argument '%s': value is not 1, but the kernel was "
			        "specialized for :1",
			        k->name, name);
	}
	return TILE_OK;
}

static void thunk_handler(ffi_cif *cif, void *ret, void **args, void *user)
{
	(void)cif;
	tile_kernel *k = user;
	int n = k->nslots;
	uint32_t grid[3] = {*(uint32_t *)args[n], *(uint32_t *)args[n + 1],
	                    *(uint32_t *)args[n + 2]};
	void *stream = *(void **)args[n + 3];
	tile_status st = check_spec(k, args);
	if (st == TILE_OK)
		st = api_launch_argv(k, grid, args, stream);
	*(ffi_sarg *)ret = (ffi_sarg)st;
}

void api_thunk_free(ApiThunk *t)
{
	if (!t)
		return;
	if (t->closure)
		ffi_closure_free(t->closure);
	free(t);
}

static tile_status thunk_create(tile_kernel *k, ApiThunk **out)
{
	ApiThunk *t = calloc(1, sizeof *t);
	if (!t)
		return api_fail(k->ctx, TILE_ERROR_NOMEM, "out of memory");
	int n = k->nslots;
	for (int s = 0; s < n; s++) {
		t->types[s] = ffi_type_of(k->slots[s].dt);
		if (!t->types[s]) {
			free(t);
			return api_fail(
			        k->ctx, TILE_ERROR_INVALID_ARGUMENT,
			        "kernel '%s': parameter '%s' has a type with no C equivalent",
			        k->name, k->params[k->slots[s].param].name);
		}
	}
	t->types[n] = t->types[n + 1] = t->types[n + 2] = &ffi_type_uint32;
	t->types[n + 3] = &ffi_type_pointer;
	if (ffi_prep_cif(&t->cif, FFI_DEFAULT_ABI, (unsigned)n + 4, &ffi_type_sint, t->types) !=
	    FFI_OK) {
		free(t);
		return api_fail(k->ctx, TILE_ERROR_INTERNAL, "ffi_prep_cif failed for kernel '%s'",
		                k->name);
	}
	t->closure = ffi_closure_alloc(sizeof(ffi_closure), &t->code);
	if (!t->closure ||
	    ffi_prep_closure_loc(t->closure, &t->cif, thunk_handler, k, t->code) != FFI_OK) {
		api_thunk_free(t);
		return api_fail(k->ctx, TILE_ERROR_RESOURCES,
		                "cannot create a libffi closure for kernel '%s'", k->name);
	}
	*out = t;
	return TILE_OK;
}

tile_status tile_kernel_thunk(tile_kernel *k, void (**fn)(void))
{
	if (!k || !fn)
		return api_fail(k ? k->ctx : NULL, TILE_ERROR_INVALID_ARGUMENT,
		                "tile_kernel_thunk: kernel and fn must not be NULL");
	*fn = NULL;
	ApiThunk *t = atomic_load(&k->thunk);
	if (!t) {
		tile_status st = thunk_create(k, &t);
		if (st != TILE_OK)
			return st;
		/* threads asking at once: one closure is kept, the same for all (each
		 * stored its own, and all but the last leaked) */
		ApiThunk *none = NULL;
		if (!atomic_compare_exchange_strong(&k->thunk, &none, t)) {
			api_thunk_free(t);
			t = none;
		}
	}
	/* The closure's code address, as a function pointer (POSIX allows the cast). */
	void *code = t->code;
	memcpy(fn, &code, sizeof code);
	return TILE_OK;
}

/* misc.c: versions, status strings, dtypes and the tile_arg constructors. */
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "config.h"

_Static_assert(TILE_VERSION_NUMBER ==
                       TILE_VERSION_MAJOR * 10000 + TILE_VERSION_MINOR * 100 + TILE_VERSION_PATCH,
               "tile.h: TILE_VERSION_NUMBER disagrees with MAJOR/MINOR/PATCH");

const char *tile_version(void) { return TILE_VERSION_STRING; }
unsigned tile_version_number(void) { return TILE_VERSION_NUMBER; }

const char *tile_status_string(tile_status s)
{
	switch (s) {
	case TILE_OK: return "ok";
	case TILE_ERROR_INVALID_ARGUMENT: return "invalid argument";
	case TILE_ERROR_COMPILE: return "compile error";
	case TILE_ERROR_NOT_FOUND: return "not found";
	case TILE_ERROR_IO: return "i/o error";
	case TILE_ERROR_TARGET: return "target not available";
	case TILE_ERROR_LAUNCH: return "launch failed";
	case TILE_ERROR_RESOURCES: return "out of resources";
	case TILE_ERROR_INTERNAL: return "internal error";
	case TILE_ERROR_NOMEM: return "out of memory";
	}
	return "unknown status";
}

/* ---- dtypes ------------------------------------------------------------------------ */

static const struct {
	tile_dtype d;
	DType dt;
} dtype_map[] = {
        {TILE_BOOL, DT_I1},        {TILE_I8, DT_I8},          {TILE_I16, DT_I16},
        {TILE_I32, DT_I32},        {TILE_I64, DT_I64},        {TILE_U8, DT_U8},
        {TILE_U16, DT_U16},        {TILE_U32, DT_U32},        {TILE_U64, DT_U64},
        {TILE_FP8E4M3, DT_F8E4M3}, {TILE_FP8E5M2, DT_F8E5M2}, {TILE_FP16, DT_F16},
        {TILE_BF16, DT_BF16},      {TILE_FP32, DT_F32},       {TILE_FP64, DT_F64},
};

bool api_dtype_to_dt(tile_dtype d, DType *out)
{
	for (size_t i = 0; i < COUNTOF(dtype_map); i++)
		if (dtype_map[i].d == d) {
			*out = dtype_map[i].dt;
			return true;
		}
	return false;
}

tile_dtype api_dt_to_dtype(DType dt)
{
	for (size_t i = 0; i < COUNTOF(dtype_map); i++)
		if (dtype_map[i].dt == dt)
			return dtype_map[i].d;
	return TILE_DTYPE_UNSPECIFIED;
}

const char *tile_dtype_name(tile_dtype d)
{
	DType dt;
	return api_dtype_to_dt(d, &dt) ? dtype_short(dt) : "?";
}

/* Memory a kernel on the host can address: host memory, pinned or managed.
 * 0 is no device type at all (a zero-initialized DLDevice): not checked. */
static bool device_on_host(DLDeviceType d)
{
	return d == 0 || d == kDLCPU || d == kDLCUDAHost || d == kDLCUDAManaged || d == kDLROCMHost;
}

/* Memory a kernel on an NVIDIA GPU can address (pinned host memory is mapped). */
static bool device_on_gpu(DLDeviceType d)
{
	return d == 0 || d == kDLCUDA || d == kDLCUDAHost || d == kDLCUDAManaged;
}

/* Why a DLPack dtype has no tile dtype: DLPack 1.1's narrow float formats are
 * named, as tile has two of them */
static const char *dlpack_dtype_problem(DLDataType t)
{
#define NARROW(c) \
	[c] = "the DLTensor's dtype is " #c ", a format tile has no type for (it has " \
	      "kDLFloat8_e4m3fn, Triton's fp8e4nv, and kDLFloat8_e5m2, fp8e5); pass its bytes as uint8"
	static const char *const msgs[] = {
	        NARROW(kDLFloat8_e3m4),     NARROW(kDLFloat8_e4m3),     NARROW(kDLFloat8_e4m3b11fnuz),
	        NARROW(kDLFloat8_e4m3fnuz), NARROW(kDLFloat8_e5m2fnuz), NARROW(kDLFloat8_e8m0fnu),
	        NARROW(kDLFloat6_e2m3fn),   NARROW(kDLFloat6_e3m2fn),   NARROW(kDLFloat4_e2m1fn),
	};
#undef NARROW
	if (t.code < sizeof msgs / sizeof msgs[0] && msgs[t.code])
		return msgs[t.code];
	if (t.lanes != 1) /* said apart: the code and bits may be right */
		return "the DLTensor's dtype has lanes != 1 (a vector type), but tile takes scalar elements "
		       "(lanes 1): describe the tensor by its scalar type, with a longer last dimension";
	return "the DLTensor's dtype (code, bits, lanes) is not one tile supports";
}

/* The element type a descriptor names views the tensor's bits (fp8 held as
 * uint8), so it must be as wide: fp64 over an fp32 tensor read and wrote
 * twice the tensor's bytes, past its end. */
const char *api_desc_elem_problem(const tile_tensordesc *d, char *buf, size_t n)
{
	DType dt;
	tile_dtype own = api_dtype_from_dlpack(d->tensor->dtype);
	if (d->dtype == TILE_DTYPE_UNSPECIFIED || own == TILE_DTYPE_UNSPECIFIED || !api_dtype_to_dt(d->dtype, &dt))
		return NULL; /* no view, or a dtype reported elsewhere */
	int bits = d->tensor->dtype.bits * d->tensor->dtype.lanes;
	if (dtype_bits(dt) == bits)
		return NULL;
	snprintf(buf, n, "the descriptor's element type %s is %d bits, its tensor's elements (%s) %d: a view must keep the width",
	         tile_dtype_name(d->dtype), dtype_bits(dt), tile_dtype_name(own), bits);
	return buf;
}

const char *api_dltensor_problem(const DLTensor *t, int cuda)
{
	if (!t)
		return "the DLTensor is NULL";
	if (t->ndim < 0)
		return "the DLTensor has a negative ndim";
	/* NumPy's NPY_MAXDIMS: an ndim past it is garbage (an uninitialized DLTensor),
	 * and reading that many dimensions ran off the shape array */
	if (t->ndim > API_MAX_DLTENSOR_NDIM)
		return "the DLTensor has more than 64 dimensions (ndim is uninitialized?)";
	if (t->ndim > 0 && !t->shape)
		return "the DLTensor has ndim > 0 but no shape";
	/* a dimension of 0 makes the tensor empty wherever it is: no product to overflow */
	bool empty = false;
	for (int d = 0; d < t->ndim; d++) {
		if (t->shape[d] < 0)
			return "the DLTensor has a negative dimension";
		empty |= t->shape[d] == 0;
	}
	int64_t n = empty ? 0 : 1;
	for (int d = 0; d < t->ndim && !empty; d++) {
		if (n > INT64_MAX / t->shape[d])
			return "the DLTensor has more elements than fit in 64 bits";
		n *= t->shape[d];
	}
	if (api_dtype_from_dlpack(t->dtype) == TILE_DTYPE_UNSPECIFIED)
		return dlpack_dtype_problem(t->dtype);
	if (n > 0 && !t->data)
		return "the DLTensor has elements but its data is NULL";
	if (t->byte_offset > UINTPTR_MAX - (uintptr_t)t->data)
		return "the DLTensor's data + byte_offset is beyond the address space";
	if (cuda > 0 && !device_on_gpu(t->device.device_type))
		return t->device.device_type == kDLCPU
		               ? "the DLTensor is in host memory (kDLCPU) but the kernel runs on the GPU"
		               : "the DLTensor is on a device the CUDA GPU cannot address (kDLCUDA, "
		                 "kDLCUDAHost and kDLCUDAManaged can be)";
	/* the context runs kernels on CUDA device 0 (cuda.c) and enables no peer
	 * access: another GPU's memory faults there. Pinned and managed memory
	 * are addressable from every device, whatever their device_id. */
	if (cuda > 0 && t->device.device_type == kDLCUDA && t->device.device_id != 0)
		return "the DLTensor is in the memory of CUDA device_id != 0, but tile runs kernels on "
		       "device 0 (CUDA_VISIBLE_DEVICES picks which GPU that is)";
	if (cuda == 0 && !device_on_host(t->device.device_type))
		return t->device.device_type == kDLCUDA
		               ? "the DLTensor is in GPU memory (kDLCUDA) but the kernel runs on the host"
		               : "the DLTensor is on a device the host cannot address (kDLCPU, "
		                 "kDLCUDAHost, kDLCUDAManaged and kDLROCMHost can be)";
	return NULL;
}

void *api_dltensor_data(const DLTensor *t)
{
	return (void *)((uintptr_t)t->data + (uintptr_t)t->byte_offset);
}

tile_dtype api_dtype_from_dlpack(DLDataType t)
{
	if (t.lanes != 1)
		return TILE_DTYPE_UNSPECIFIED;
	switch (t.code) {
	case kDLBool: return t.bits == 8 ? TILE_BOOL : TILE_DTYPE_UNSPECIFIED;
	case kDLInt:
		switch (t.bits) {
		case 8: return TILE_I8;
		case 16: return TILE_I16;
		case 32: return TILE_I32;
		case 64: return TILE_I64;
		}
		break;
	case kDLUInt:
		switch (t.bits) {
		case 1: return TILE_BOOL;
		case 8: return TILE_U8;
		case 16: return TILE_U16;
		case 32: return TILE_U32;
		case 64: return TILE_U64;
		}
		break;
	case kDLFloat:
		switch (t.bits) {
		case 16: return TILE_FP16;
		case 32: return TILE_FP32;
		case 64: return TILE_FP64;
		}
		break;
	case kDLBfloat: return t.bits == 16 ? TILE_BF16 : TILE_DTYPE_UNSPECIFIED;
	case kDLFloat8_e4m3fn: return t.bits == 8 ? TILE_FP8E4M3 : TILE_DTYPE_UNSPECIFIED;
	case kDLFloat8_e5m2: return t.bits == 8 ? TILE_FP8E5M2 : TILE_DTYPE_UNSPECIFIED;
	}
	return TILE_DTYPE_UNSPECIFIED;
}

/* ---- tile_arg constructors ---------------------------------------------------------- */

tile_arg tile_arg_ptr(void *p, tile_dtype pointee)
{
	tile_arg a = {.kind = TILE_ARG_PTR, .dtype = pointee};
	a.ptr = p;
	return a;
}
#define SCALAR_CTOR(fn, T, K, field)                                                               \
	tile_arg fn(T v)                                                                           \
	{                                                                                          \
		tile_arg a = {.kind = K};                                                          \
		a.field = v;                                                                       \
		return a;                                                                          \
	}
SCALAR_CTOR(tile_arg_i32, int32_t, TILE_ARG_I32, i32)
SCALAR_CTOR(tile_arg_i64, int64_t, TILE_ARG_I64, i64)
SCALAR_CTOR(tile_arg_u32, uint32_t, TILE_ARG_U32, u32)
SCALAR_CTOR(tile_arg_u64, uint64_t, TILE_ARG_U64, u64)
SCALAR_CTOR(tile_arg_f32, float, TILE_ARG_F32, f32)
SCALAR_CTOR(tile_arg_f64, double, TILE_ARG_F64, f64)
SCALAR_CTOR(tile_arg_bool, int, TILE_ARG_BOOL, b)
SCALAR_CTOR(tile_arg_str, const char *, TILE_ARG_STR, str)
SCALAR_CTOR(tile_arg_name, const char *, TILE_ARG_NAME, str)
SCALAR_CTOR(tile_arg_dltensor, const DLTensor *, TILE_ARG_DLTENSOR, dl)
SCALAR_CTOR(tile_arg_tensordesc, const tile_tensordesc *, TILE_ARG_TENSORDESC, desc)
SCALAR_CTOR(tile_arg_tuple, const tile_tuple *, TILE_ARG_TUPLE, tuple)
#undef SCALAR_CTOR

tile_arg tile_arg_none(void)
{
	tile_arg a = {.kind = TILE_ARG_NONE};
	a.ptr = NULL;
	return a;
}

tile_arg tile_arg_dtype(tile_dtype d)
{
	tile_arg a = {.kind = TILE_ARG_DTYPE, .dtype = d};
	a.ptr = NULL;
	return a;
}

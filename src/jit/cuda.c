/* cuda.c: dlopen of the NVIDIA driver API and the few calls the runtime
 * makes: device query, module load, resource checks, launch, memory. */
#include "jit/cuda.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "util/util.h"

/* Driver enum values we use (cuda.h), declared here so we need no headers. */
enum {
	ATTR_MAX_THREADS_PER_BLOCK = 1,
	ATTR_MAX_GRID_DIM_X = 5,
	ATTR_MAX_SHARED_MEMORY_PER_BLOCK = 8,
	ATTR_MULTIPROCESSOR_COUNT = 16,
	ATTR_COMPUTE_CAPABILITY_MAJOR = 75,
	ATTR_COMPUTE_CAPABILITY_MINOR = 76,
	ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
	FUNC_MAX_THREADS_PER_BLOCK = 0,
	FUNC_SHARED_SIZE_BYTES = 1,
	FUNC_LOCAL_SIZE_BYTES = 3,
	FUNC_NUM_REGS = 4,
	FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
	CUDA_ERROR_NO_DEVICE = 100,
};

void cuda_error_text(const CudaDriver *d, CUresult_ r, char *buf, size_t n)
{
	const char *name = NULL, *str = NULL;
	if (d->GetErrorName)
		d->GetErrorName(r, &name);
	if (d->GetErrorString)
		d->GetErrorString(r, &str);
	if (str && name)
		snprintf(buf, n, "%s (%s)", str, name);
	else
		snprintf(buf, n, "CUDA error %d", r);
}

/* "WHAT: <error text>" into err; returns false for `return fail(...)`. */
static bool fail(const CudaDriver *d, CUresult_ r, char *err, size_t errlen, const char *fmt, ...)
        PRINTF_LIKE(5, 6);
static bool fail(const CudaDriver *d, CUresult_ r, char *err, size_t errlen, const char *fmt, ...)
{
	char what[256], text[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	cuda_error_text(d, r, text, sizeof text);
	snprintf(err, errlen, "%s: %s", what, text);
	return false;
}

static bool resolve(CudaDriver *d, char *err, size_t errlen)
{
	struct {
		const char *name;
		void **slot;
	} syms[] = {
	        {"cuInit", (void **)&d->Init},
	        {"cuDriverGetVersion", (void **)&d->DriverGetVersion},
	        {"cuDeviceGetCount", (void **)&d->DeviceGetCount},
	        {"cuDeviceGet", (void **)&d->DeviceGet},
	        {"cuDeviceGetAttribute", (void **)&d->DeviceGetAttribute},
	        {"cuDeviceGetName", (void **)&d->DeviceGetName},
	        {"cuDevicePrimaryCtxRetain", (void **)&d->DevicePrimaryCtxRetain},
	        {"cuDevicePrimaryCtxRelease_v2", (void **)&d->DevicePrimaryCtxRelease},
	        {"cuCtxSetCurrent", (void **)&d->CtxSetCurrent},
	        {"cuCtxGetCurrent", (void **)&d->CtxGetCurrent},
	        {"cuCtxSynchronize", (void **)&d->CtxSynchronize},
	        {"cuModuleLoadData", (void **)&d->ModuleLoadData},
	        {"cuModuleUnload", (void **)&d->ModuleUnload},
	        {"cuModuleGetFunction", (void **)&d->ModuleGetFunction},
	        {"cuFuncGetAttribute", (void **)&d->FuncGetAttribute},
	        {"cuFuncSetAttribute", (void **)&d->FuncSetAttribute},
	        {"cuLaunchKernel", (void **)&d->LaunchKernel},
	        {"cuMemAlloc_v2", (void **)&d->MemAlloc},
	        {"cuMemFree_v2", (void **)&d->MemFree},
	        {"cuMemcpyHtoD_v2", (void **)&d->MemcpyHtoD},
	        {"cuMemcpyDtoH_v2", (void **)&d->MemcpyDtoH},
	        {"cuMemcpyDtoD_v2", (void **)&d->MemcpyDtoD},
	        {"cuMemsetD8_v2", (void **)&d->MemsetD8},
	        {"cuStreamCreate", (void **)&d->StreamCreate},
	        {"cuStreamSynchronize", (void **)&d->StreamSynchronize},
	        {"cuStreamDestroy_v2", (void **)&d->StreamDestroy},
	        {"cuGetErrorName", (void **)&d->GetErrorName},
	        {"cuGetErrorString", (void **)&d->GetErrorString},
	};
	for (size_t i = 0; i < COUNTOF(syms); i++) {
		*syms[i].slot = dlsym(d->handle, syms[i].name);
		if (!*syms[i].slot) {
			snprintf(err, errlen,
			         "the NVIDIA driver is too old (libcuda.so.1 lacks %s): tile needs "
			         "a driver for CUDA %d.%d or newer",
			         syms[i].name, CUDA_MIN_DRIVER_VERSION / 1000,
			         CUDA_MIN_DRIVER_VERSION % 1000 / 10);
			return false;
		}
	}
	return true;
}

static int dev_attr(const CudaDriver *d, int attr)
{
	int v = 0;
	if (d->DeviceGetAttribute(&v, attr, d->device) != 0)
		return 0;
	return v;
}

static bool open_device(CudaDriver *d, char *err, size_t errlen)
{
	int n = 0;
	CUresult_ r = d->Init(0);
	if (r == CUDA_ERROR_NO_DEVICE || (r == 0 && (d->DeviceGetCount(&n), n == 0))) {
		snprintf(err, errlen, "the NVIDIA driver is installed but sees no CUDA device");
		return false;
	}
	if (r != 0)
		return fail(d, r, err, errlen, "the CUDA driver failed to initialize");
	if ((r = d->DeviceGet(&d->device, 0)) != 0)
		return fail(d, r, err, errlen, "no CUDA device 0");
	if (d->DeviceGetName(d->device_name, sizeof d->device_name, d->device) != 0)
		snprintf(d->device_name, sizeof d->device_name, "CUDA device 0");
	d->cc_major = dev_attr(d, ATTR_COMPUTE_CAPABILITY_MAJOR);
	d->cc_minor = dev_attr(d, ATTR_COMPUTE_CAPABILITY_MINOR);
	d->sm_count = dev_attr(d, ATTR_MULTIPROCESSOR_COUNT);
	d->max_threads_per_block = dev_attr(d, ATTR_MAX_THREADS_PER_BLOCK);
	d->max_smem_per_block = dev_attr(d, ATTR_MAX_SHARED_MEMORY_PER_BLOCK);
	d->max_smem_per_block_optin = dev_attr(d, ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
	if (d->max_smem_per_block_optin < d->max_smem_per_block)
		d->max_smem_per_block_optin = d->max_smem_per_block;
	for (int i = 0; i < 3; i++)
		d->max_grid[i] = dev_attr(d, ATTR_MAX_GRID_DIM_X + i);
	if ((r = d->DevicePrimaryCtxRetain(&d->ctx, d->device)) != 0)
		return fail(d, r, err, errlen, "cannot create a context on %s", d->device_name);
	if ((r = d->CtxSetCurrent(d->ctx)) != 0)
		return fail(d, r, err, errlen, "cannot use the context on %s", d->device_name);
	return true;
}

bool cuda_open(CudaDriver *d, char *err, size_t errlen)
{
	memset(d, 0, sizeof *d);
	if (errlen)
		err[0] = 0;
	d->handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!d->handle)
		d->handle = dlopen("libcuda.so", RTLD_NOW | RTLD_LOCAL);
	if (!d->handle) {
		snprintf(err, errlen, "%s", CUDA_NO_DRIVER_MSG);
		return false;
	}
	bool ok = resolve(d, err, errlen);
	if (ok && d->DriverGetVersion(&d->driver_version) == 0 &&
	    d->driver_version < CUDA_MIN_DRIVER_VERSION) {
		snprintf(err, errlen,
		         "the NVIDIA driver supports CUDA %d.%d, tile needs CUDA %d.%d or newer: "
		         "update the driver",
		         d->driver_version / 1000, d->driver_version % 1000 / 10,
		         CUDA_MIN_DRIVER_VERSION / 1000, CUDA_MIN_DRIVER_VERSION % 1000 / 10);
		ok = false;
	}
	if (ok)
		ok = open_device(d, err, errlen);
	if (!ok)
		cuda_close(d);
	return ok;
}

void cuda_close(CudaDriver *d)
{
	if (d->ctx && d->DevicePrimaryCtxRelease)
		d->DevicePrimaryCtxRelease(d->device);
	if (d->handle)
		dlclose(d->handle);
	memset(d, 0, sizeof *d);
}

bool cuda_check_toolkit(const CudaDriver *d, int nvrtc_major, int nvrtc_minor, char *err,
                        size_t errlen)
{
	int need = nvrtc_major * 1000; /* minor version compatibility within a major */
	if (d->driver_version >= need)
		return true;
	snprintf(err, errlen,
	         "the NVIDIA driver supports CUDA %d.%d but libnvrtc is from CUDA %d.%d: update "
	         "the driver, or put an nvrtc from CUDA %d.x on LD_LIBRARY_PATH",
	         d->driver_version / 1000, d->driver_version % 1000 / 10, nvrtc_major, nvrtc_minor,
	         d->driver_version / 1000);
	return false;
}

void cuda_device_arch(const CudaDriver *d, int *major, int *minor)
{
	*major = d->cc_major;
	*minor = d->cc_minor;
}

void cuda_target_name(const CudaDriver *d, char *buf, size_t n)
{
	/* sm_90a unlocks wgmma/setmaxnreg on Hopper; later majors keep plain names */
	bool a = d->cc_major == 9 && d->cc_minor == 0;
	snprintf(buf, n, "sm_%d%d%s", d->cc_major, d->cc_minor, a ? "a" : "");
}

bool cuda_make_current(const CudaDriver *d, char *err, size_t errlen)
{
	CUcontext_ cur = NULL;
	if (d->CtxGetCurrent(&cur) == 0 && cur == d->ctx)
		return true;
	CUresult_ r = d->CtxSetCurrent(d->ctx);
	return r == 0 || fail(d, r, err, errlen, "cannot use the context on %s", d->device_name);
}

static int func_attr(const CudaDriver *d, CUfunction_ f, int attr)
{
	int v = 0;
	if (d->FuncGetAttribute(&v, attr, f) != 0)
		return 0;
	return v;
}

bool cuda_load_module(const CudaDriver *d, const void *cubin, size_t len, const char *name,
                      CudaFunction *fn, char *err, size_t errlen)
{
	memset(fn, 0, sizeof *fn);
	snprintf(fn->name, sizeof fn->name, "%s", name);
	if (len < 4 || memcmp(cubin, "\177ELF", 4) != 0) {
		snprintf(err, errlen, "kernel '%s': the cached binary is not a cubin", name);
		return false;
	}
	if (!cuda_make_current(d, err, errlen))
		return false;
	CUresult_ r = d->ModuleLoadData(&fn->module, cubin);
	if (r != 0)
		return fail(d, r, err, errlen, "kernel '%s': cannot load its cubin on %s", name,
		            d->device_name);
	if ((r = d->ModuleGetFunction(&fn->fn, fn->module, name)) != 0) {
		d->ModuleUnload(fn->module);
		fn->module = NULL;
		return fail(d, r, err, errlen, "kernel '%s': not found in its cubin", name);
	}
	fn->num_regs = func_attr(d, fn->fn, FUNC_NUM_REGS);
	fn->spill_bytes = func_attr(d, fn->fn, FUNC_LOCAL_SIZE_BYTES);
	fn->static_smem = func_attr(d, fn->fn, FUNC_SHARED_SIZE_BYTES);
	fn->max_threads = func_attr(d, fn->fn, FUNC_MAX_THREADS_PER_BLOCK);
	fn->dyn_smem_limit = func_attr(d, fn->fn, FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES);
	return true;
}

void cuda_unload(const CudaDriver *d, CudaFunction *fn)
{
	if (fn->module)
		d->ModuleUnload(fn->module);
	memset(fn, 0, sizeof *fn);
}

void cuda_func_resources(const CudaFunction *fn, int *regs, int *spills, int *static_smem)
{
	*regs = fn->num_regs;
	*spills = fn->spill_bytes;
	*static_smem = fn->static_smem;
}

/* Threads, shared memory and grid against the device's and kernel's limits. */
static bool check_launch(const CudaDriver *d, CudaFunction *fn, const uint32_t grid[3], int threads,
                         int smem, char *err, size_t errlen)
{
	if (threads < 1 || threads > fn->max_threads) {
		if (fn->max_threads < d->max_threads_per_block)
			snprintf(err, errlen,
			         "kernel '%s': needs %d threads per block, the device allows %d "
			         "with its %d registers per thread (use fewer warps)",
			         fn->name, threads, fn->max_threads, fn->num_regs);
		else
			snprintf(err, errlen,
			         "kernel '%s': needs %d threads per block, the device allows %d",
			         fn->name, threads, fn->max_threads);
		return false;
	}
	long total = (long)fn->static_smem + smem;
	if (total > d->max_smem_per_block_optin) {
		snprintf(err, errlen,
		         "kernel '%s': needs %ld bytes of shared memory, the device allows %d",
		         fn->name, total, d->max_smem_per_block_optin);
		return false;
	}
	static const char axes[] = "xyz";
	for (int i = 0; i < 3; i++) {
		if (grid[i] < 1 || (d->max_grid[i] > 0 && grid[i] > (uint32_t)d->max_grid[i])) {
			snprintf(err, errlen,
			         "kernel '%s': grid %c dimension %u is out of range (1 to %d)",
			         fn->name, axes[i], grid[i], d->max_grid[i]);
			return false;
		}
	}
	if (smem > fn->dyn_smem_limit) {
		CUresult_ r = d->FuncSetAttribute(fn->fn, FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem);
		if (r != 0)
			return fail(d, r, err, errlen,
			            "kernel '%s': cannot allow %d bytes of dynamic shared memory",
			            fn->name, smem);
		fn->dyn_smem_limit = smem;
	}
	return true;
}

bool cuda_launch(const CudaDriver *d, CudaFunction *fn, const uint32_t grid[3], int threads,
                 int smem, CUstream_ stream, void **args, char *err, size_t errlen)
{
	if (!cuda_make_current(d, err, errlen) ||
	    !check_launch(d, fn, grid, threads, smem, err, errlen))
		return false;
	CUresult_ r = d->LaunchKernel(fn->fn, grid[0], grid[1], grid[2], (unsigned)threads, 1, 1,
	                              (unsigned)smem, stream, args, NULL);
	return r == 0 || fail(d, r, err, errlen, "kernel '%s'", fn->name);
}

bool cuda_stream_sync(const CudaDriver *d, CUstream_ stream, const char *what, char *err,
                      size_t errlen)
{
	if (!cuda_make_current(d, err, errlen))
		return false;
	CUresult_ r = d->StreamSynchronize(stream);
	return r == 0 || fail(d, r, err, errlen, "%s", what ? what : "CUDA stream");
}

bool cuda_stream_create(const CudaDriver *d, CUstream_ *s, char *err, size_t errlen)
{
	if (!cuda_make_current(d, err, errlen))
		return false;
	CUresult_ r = d->StreamCreate(s, 0);
	return r == 0 || fail(d, r, err, errlen, "cannot create a CUDA stream");
}

void cuda_stream_destroy(const CudaDriver *d, CUstream_ s)
{
	if (s)
		d->StreamDestroy(s);
}

bool cuda_alloc(const CudaDriver *d, size_t n, CUdeviceptr_ *p, char *err, size_t errlen)
{
	*p = 0;
	if (!cuda_make_current(d, err, errlen))
		return false;
	CUresult_ r = d->MemAlloc(p, n ? n : 1);
	return r == 0 ||
	       fail(d, r, err, errlen, "cannot allocate %zu bytes on %s", n, d->device_name);
}

void cuda_free(const CudaDriver *d, CUdeviceptr_ p)
{
	if (p)
		d->MemFree(p);
}

bool cuda_memset(const CudaDriver *d, CUdeviceptr_ p, unsigned char v, size_t n, char *err,
                 size_t errlen)
{
	CUresult_ r = d->MemsetD8(p, v, n);
	return r == 0 || fail(d, r, err, errlen, "cannot set %zu bytes of device memory", n);
}

bool cuda_copy_htod(const CudaDriver *d, CUdeviceptr_ dst, const void *src, size_t n, char *err,
                    size_t errlen)
{
	if (!cuda_make_current(d, err, errlen))
		return false;
	CUresult_ r = d->MemcpyHtoD(dst, src, n);
	return r == 0 || fail(d, r, err, errlen, "cannot copy %zu bytes to the device", n);
}

bool cuda_copy_dtoh(const CudaDriver *d, void *dst, CUdeviceptr_ src, size_t n, char *err,
                    size_t errlen)
{
	if (!cuda_make_current(d, err, errlen))
		return false;
	CUresult_ r = d->MemcpyDtoH(dst, src, n);
	return r == 0 || fail(d, r, err, errlen, "cannot copy %zu bytes from the device", n);
}

bool cuda_copy_dtod(const CudaDriver *d, CUdeviceptr_ dst, CUdeviceptr_ src, size_t n, char *err,
                    size_t errlen)
{
	if (!cuda_make_current(d, err, errlen))
		return false;
	CUresult_ r = d->MemcpyDtoD(dst, src, n);
	return r == 0 || fail(d, r, err, errlen, "cannot copy %zu bytes on the device", n);
}

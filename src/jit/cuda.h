/* cuda.h: the NVIDIA driver API (libcuda.so.1), loaded with dlopen.
 *
 * libtile never links against libcuda: the few driver types and entry points
 * it uses are declared here and resolved at run time, so the library runs on
 * machines with no NVIDIA driver (where cuda_open fails with one sentence).
 *
 * One CudaDriver per process is the normal use: cuda_open loads the library,
 * initializes the driver, picks device 0 (CUDA_VISIBLE_DEVICES applies) and
 * retains its primary context. Every call that needs the context makes it
 * current on the calling thread first, so any thread may load and launch.
 * The CudaDriver itself is not locked: calls on one CudaDriver from several
 * threads must be serialized by the caller (the driver API itself is
 * thread-safe; only our cached device limits are plain fields, written once
 * by cuda_open).
 *
 * Errors: every function returns false with one plain sentence in err that
 * names the kernel (where there is one) and the cause, e.g.
 *   kernel 'matmul': needs 180224 bytes of shared memory, the device allows 101376
 *   kernel 'add': an illegal memory access was encountered (CUDA_ERROR_ILLEGAL_ADDRESS)
 */
#ifndef TILE_CUDA_H
#define TILE_CUDA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef int CUresult_;
typedef int CUdevice_;
typedef struct CUctx_st_ *CUcontext_;
typedef struct CUmod_st_ *CUmodule_;
typedef struct CUfunc_st_ *CUfunction_;
typedef struct CUstream_st_ *CUstream_;
typedef unsigned long long CUdeviceptr_;

/* The oldest driver we run on: CUDA 12.0. */
#define CUDA_MIN_DRIVER_VERSION 12000

/* The message when libcuda.so.1 cannot be loaded. */
#define CUDA_NO_DRIVER_MSG                                                                         \
	"no CUDA driver found (libcuda.so.1): install the NVIDIA driver, or use --target cpu"

/* Kernels using more static shared memory than this are emitted with dynamic
 * shared memory (emit_c.c's EC_STATIC_SMEM_MAX): launch them with
 * smem = their smem_bytes; cuda_launch raises the function's limit. */
#define CUDA_STATIC_SMEM_MAX 49152

typedef struct CudaDriver {
	void *handle;
	int driver_version; /* 12040 = CUDA 12.4 */
	CUdevice_ device;
	CUcontext_ ctx; /* the retained primary context */
	char device_name[128];
	int cc_major, cc_minor;
	int sm_count;
	int max_threads_per_block;
	int max_smem_per_block;       /* default limit (48 KiB) */
	int max_smem_per_block_optin; /* with the opt-in attribute (e.g. 232448 on H100) */
	int max_grid[3];

	CUresult_ (*Init)(unsigned flags);
	CUresult_ (*DriverGetVersion)(int *v);
	CUresult_ (*DeviceGetCount)(int *n);
	CUresult_ (*DeviceGet)(CUdevice_ *d, int ordinal);
	CUresult_ (*DeviceGetAttribute)(int *v, int attr, CUdevice_ d);
	CUresult_ (*DeviceGetName)(char *name, int len, CUdevice_ d);
	CUresult_ (*DevicePrimaryCtxRetain)(CUcontext_ *c, CUdevice_ d);
	CUresult_ (*DevicePrimaryCtxRelease)(CUdevice_ d);
	CUresult_ (*CtxSetCurrent)(CUcontext_ c);
	CUresult_ (*CtxGetCurrent)(CUcontext_ *c);
	CUresult_ (*CtxSynchronize)(void);
	CUresult_ (*ModuleLoadData)(CUmodule_ *m, const void *image);
	CUresult_ (*ModuleUnload)(CUmodule_ m);
	CUresult_ (*ModuleGetFunction)(CUfunction_ *f, CUmodule_ m, const char *name);
	CUresult_ (*FuncGetAttribute)(int *v, int attr, CUfunction_ f);
	CUresult_ (*FuncSetAttribute)(CUfunction_ f, int attr, int v);
	CUresult_ (*LaunchKernel)(CUfunction_ f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
	                          unsigned by, unsigned bz, unsigned smem, CUstream_ s,
	                          void **params, void **extra);
	CUresult_ (*MemAlloc)(CUdeviceptr_ *p, size_t n);
	CUresult_ (*MemFree)(CUdeviceptr_ p);
	CUresult_ (*MemcpyHtoD)(CUdeviceptr_ dst, const void *src, size_t n);
	CUresult_ (*MemcpyDtoH)(void *dst, CUdeviceptr_ src, size_t n);
	CUresult_ (*MemcpyDtoD)(CUdeviceptr_ dst, CUdeviceptr_ src, size_t n);
	CUresult_ (*MemsetD8)(CUdeviceptr_ p, unsigned char v, size_t n);
	CUresult_ (*StreamCreate)(CUstream_ *s, unsigned flags);
	CUresult_ (*StreamSynchronize)(CUstream_ s);
	CUresult_ (*StreamDestroy)(CUstream_ s);
	CUresult_ (*GetErrorName)(CUresult_ r, const char **s);
	CUresult_ (*GetErrorString)(CUresult_ r, const char **s);
} CudaDriver;

/* A kernel loaded from a cubin, with what the launcher checks. */
typedef struct CudaFunction {
	CUmodule_ module;
	CUfunction_ fn;
	char name[128];
	int num_regs;       /* registers per thread */
	int spill_bytes;    /* local memory per thread (spills, local arrays) */
	int static_smem;    /* bytes of static shared memory */
	int max_threads;    /* threads per block this kernel can launch with */
	int dyn_smem_limit; /* current MAX_DYNAMIC_SHARED_SIZE_BYTES */
} CudaFunction;

/* Loads libcuda.so.1, initializes the driver and device 0 and retains its
 * primary context. False with one sentence in err: no driver
 * (CUDA_NO_DRIVER_MSG), a driver older than CUDA_MIN_DRIVER_VERSION (both
 * versions named), or no device. */
bool cuda_open(CudaDriver *d, char *err, size_t errlen);
void cuda_close(CudaDriver *d); /* no-op on a zeroed CudaDriver */

/* False (both versions named in err) when the driver is older than the
 * toolkit the kernels were compiled with (nvrtc major.minor): its cubins
 * and PTX would be rejected. */
bool cuda_check_toolkit(const CudaDriver *d, int nvrtc_major, int nvrtc_minor, char *err,
                        size_t errlen);

/* Compute capability of the device (9, 0 for H100). */
void cuda_device_arch(const CudaDriver *d, int *major, int *minor);
/* "sm_90a" for Hopper-class devices, "sm_80" ... (the target name to compile for). */
void cuda_target_name(const CudaDriver *d, char *buf, size_t n);

/* Makes the driver's context current on the calling thread. */
bool cuda_make_current(const CudaDriver *d, char *err, size_t errlen);

/* Loads a cubin and finds kernel `name` in it; fills fn (its resources
 * included). */
bool cuda_load_module(const CudaDriver *d, const void *cubin, size_t len, const char *name,
                      CudaFunction *fn, char *err, size_t errlen);
void cuda_unload(const CudaDriver *d, CudaFunction *fn);
/* Registers, spilled bytes per thread and static shared memory. */
void cuda_func_resources(const CudaFunction *fn, int *regs, int *spills, int *static_smem);

/* Launches fn on grid[0..2] blocks of `threads` threads with `smem` bytes
 * of dynamic shared memory (0 unless the kernel's smem_bytes exceed
 * CUDA_STATIC_SMEM_MAX). args[i] points at parameter i. Checks threads,
 * shared memory and grid limits first and names the kernel on failure. The
 * launch is asynchronous: errors while the kernel runs surface at
 * cuda_stream_sync. */
bool cuda_launch(const CudaDriver *d, CudaFunction *fn, const uint32_t grid[3], int threads,
                 int smem, CUstream_ stream, void **args, char *err, size_t errlen);

/* Waits for a stream (NULL = the default stream); `what` names the work in
 * the message ("kernel 'add'"), may be NULL. */
bool cuda_stream_sync(const CudaDriver *d, CUstream_ stream, const char *what, char *err,
                      size_t errlen);
bool cuda_stream_create(const CudaDriver *d, CUstream_ *s, char *err, size_t errlen);
void cuda_stream_destroy(const CudaDriver *d, CUstream_ s);

bool cuda_alloc(const CudaDriver *d, size_t n, CUdeviceptr_ *p, char *err, size_t errlen);
void cuda_free(const CudaDriver *d, CUdeviceptr_ p);
bool cuda_memset(const CudaDriver *d, CUdeviceptr_ p, unsigned char v, size_t n, char *err,
                 size_t errlen);
bool cuda_copy_htod(const CudaDriver *d, CUdeviceptr_ dst, const void *src, size_t n, char *err,
                    size_t errlen);
bool cuda_copy_dtoh(const CudaDriver *d, void *dst, CUdeviceptr_ src, size_t n, char *err,
                    size_t errlen);
bool cuda_copy_dtod(const CudaDriver *d, CUdeviceptr_ dst, CUdeviceptr_ src, size_t n, char *err,
                    size_t errlen);

/* "an illegal memory access was encountered (CUDA_ERROR_ILLEGAL_ADDRESS)" */
void cuda_error_text(const CudaDriver *d, CUresult_ r, char *buf, size_t n);

#endif

#!/usr/bin/env python3
"""GPU benchmarks of tile against torch, cuBLAS and Triton on the same GPU.

Run from the repository root on a machine with an NVIDIA GPU, torch and triton,
and libtile (a build, or the devpack: see bench/gpu/README.md):

    python3 bench/gpu/bench_gpu.py                 # every comparison, one process each
    python3 bench/gpu/bench_gpu.py --only matmul   # comparisons whose name contains "matmul"
    python3 bench/gpu/bench_gpu.py --quick         # fewer sizes and samples (script check)

Each comparison runs in its own process (`--one NAME --json FILE`), so one that
crashes or leaks GPU memory cannot disturb the others. The parent prints a table
and writes bench/results/gpu-YYYY-MM-DD.md.

Our kernels are launched through libtile with ctypes: tile_module_load_file,
tile_kernel_get_typed (the same specialization Triton's launcher would pick),
tile_launch with device pointers from torch tensors' data_ptr() on torch's
current stream. libtile must therefore use the device's primary CUDA context
(the one torch uses); every comparison checks its results against torch first.

Timing: every sample is one call between two CUDA events, after an L2 flush (a
256 MiB memset issued just before, which also hides the host-side launch cost
of whichever launcher is measured); the median of the samples is reported.
"""
import argparse
import ctypes
import ctypes.util
import datetime
import glob
import json
import os
import platform
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
KERNELS = os.path.join(ROOT, "kernels")
STORE_ONE = os.path.join(ROOT, "bench", "kernels", "store_one.tile")

# ---------------------------------------------------------------------------
# libtile through ctypes (mirrors include/tile.h)
# ---------------------------------------------------------------------------

TILE_OK = 0
# tile_dtype
DT = dict(unspecified=0, bool=1, i8=2, i16=3, i32=4, i64=5, u8=6, u16=7, u32=8, u64=9,
          fp8e4m3=10, fp8e5m2=11, fp16=12, bf16=13, fp32=14, fp64=15)
# tile_arg_kind
ARG_PTR, ARG_I32, ARG_I64, ARG_U32, ARG_U64, ARG_F32, ARG_F64, ARG_BOOL, ARG_NONE, ARG_STR, \
    ARG_DTYPE, ARG_DLTENSOR = range(12)


class ContextOptions(ctypes.Structure):
    _fields_ = [("target", ctypes.c_char_p), ("num_warps", ctypes.c_int),
                ("num_stages", ctypes.c_int), ("cache_dir", ctypes.c_char_p),
                ("disable_cache", ctypes.c_int), ("num_threads", ctypes.c_int),
                ("on_diagnostic", ctypes.c_void_p), ("diagnostic_user", ctypes.c_void_p),
                ("on_print", ctypes.c_void_p), ("print_user", ctypes.c_void_p),
                ("errbuf", ctypes.c_char_p), ("errbuf_size", ctypes.c_size_t),
                ("module_path", ctypes.c_char_p)]


class KernelOptions(ctypes.Structure):
    _fields_ = [("num_warps", ctypes.c_int), ("num_stages", ctypes.c_int),
                ("target", ctypes.c_char_p), ("debug", ctypes.c_int)]


class ArgValue(ctypes.Union):
    _fields_ = [("ptr", ctypes.c_void_p), ("i32", ctypes.c_int32), ("i64", ctypes.c_int64),
                ("u32", ctypes.c_uint32), ("u64", ctypes.c_uint64), ("f32", ctypes.c_float),
                ("f64", ctypes.c_double), ("b", ctypes.c_int), ("str", ctypes.c_char_p),
                ("dl", ctypes.c_void_p)]


class Arg(ctypes.Structure):
    _anonymous_ = ("v",)
    _fields_ = [("kind", ctypes.c_int), ("dtype", ctypes.c_int), ("v", ArgValue)]


class KernelInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("target", ctypes.c_char_p),
                ("num_params", ctypes.c_int), ("num_runtime_args", ctypes.c_int),
                ("num_warps", ctypes.c_int), ("threads", ctypes.c_int),
                ("shared_bytes", ctypes.c_int), ("registers", ctypes.c_int),
                ("from_cache", ctypes.c_int), ("compile_seconds", ctypes.c_double),
                ("spill_bytes", ctypes.c_int)]


def find_libtile(explicit=None):
    cands = [explicit, os.environ.get("TILE_LIB"), os.path.join(ROOT, "build", "libtile.so")]
    for d in os.environ.get("LD_LIBRARY_PATH", "").split(":"):  # the devpack's bin/ and lib/
        if d:
            cands.append(os.path.join(d, "libtile.so"))
    cands.append(ctypes.util.find_library("tile"))
    for c in cands:
        if c and os.path.exists(c):
            return c
    sys.exit("bench_gpu: libtile.so not found: build it (make), source the devpack's env.sh, "
             "or pass --lib PATH / set TILE_LIB")


class TileError(RuntimeError):
    pass


class Tile:
    def __init__(self, path):
        self.path = path
        L = self.lib = ctypes.CDLL(path)
        vp, cp, i, sz = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_size_t
        L.tile_version.restype = cp
        L.tile_status_string.restype = cp
        L.tile_status_string.argtypes = [i]
        L.tile_context_create.argtypes = [ctypes.POINTER(vp), ctypes.POINTER(ContextOptions)]
        L.tile_context_destroy.argtypes = [vp]
        L.tile_context_destroy.restype = None
        L.tile_errmsg.argtypes = [vp]
        L.tile_errmsg.restype = cp
        L.tile_context_target.argtypes = [vp]
        L.tile_context_target.restype = cp
        L.tile_module_load_file.argtypes = [vp, cp, ctypes.POINTER(vp)]
        L.tile_module_destroy.argtypes = [vp]
        L.tile_module_destroy.restype = None
        L.tile_kernel_get.argtypes = [vp, cp, cp, ctypes.POINTER(KernelOptions), ctypes.POINTER(vp)]
        L.tile_kernel_get_typed.argtypes = [vp, cp, ctypes.POINTER(Arg), sz,
                                            ctypes.POINTER(KernelOptions), ctypes.POINTER(vp)]
        L.tile_kernel_destroy.argtypes = [vp]
        L.tile_kernel_destroy.restype = None
        L.tile_kernel_get_info.argtypes = [vp, ctypes.POINTER(KernelInfo)]
        L.tile_launch.argtypes = [vp, ctypes.POINTER(ctypes.c_uint32), ctypes.POINTER(Arg), sz, vp]
        L.tile_kernel_thunk.argtypes = [vp, ctypes.POINTER(vp)]
        L.tile_synchronize.argtypes = [vp]
        for f in ("tile_context_create", "tile_module_load_file", "tile_kernel_get",
                  "tile_kernel_get_typed", "tile_kernel_get_info", "tile_launch",
                  "tile_kernel_thunk", "tile_synchronize"):
            getattr(L, f).restype = i

    def version(self):
        return self.lib.tile_version().decode()

    def check(self, st, ctx, what):
        if st != TILE_OK:
            msg = self.lib.tile_errmsg(ctx).decode(errors="replace") if ctx else ""
            raise TileError("%s: %s\n%s" % (what, self.lib.tile_status_string(st).decode(), msg))

    def context(self, target="cuda", cache_dir=None, disable_cache=False):
        o = ContextOptions()
        o.target = target.encode()
        o.cache_dir = cache_dir.encode() if cache_dir else None
        o.disable_cache = 1 if disable_cache else 0
        ctx = ctypes.c_void_p()
        self.check(self.lib.tile_context_create(ctypes.byref(ctx), ctypes.byref(o)), None,
                   "tile_context_create(target=%s)" % target)
        return ctx

    def load(self, ctx, path):
        mod = ctypes.c_void_p()
        self.check(self.lib.tile_module_load_file(ctx, path.encode(), ctypes.byref(mod)), ctx,
                   "tile_module_load_file(%s)" % path)
        return mod

    def get(self, ctx, mod, name, signature, num_warps=0, num_stages=0):
        ko = KernelOptions(num_warps, num_stages, None, 0)
        k = ctypes.c_void_p()
        self.check(self.lib.tile_kernel_get(mod, name.encode(), signature.encode(), ctypes.byref(ko),
                                            ctypes.byref(k)), ctx, "tile_kernel_get(%s)" % name)
        return k

    def get_typed(self, ctx, mod, name, args, num_warps=0, num_stages=0):
        ko = KernelOptions(num_warps, num_stages, None, 0)
        k = ctypes.c_void_p()
        self.check(self.lib.tile_kernel_get_typed(mod, name.encode(), args, len(args), ctypes.byref(ko),
                                                  ctypes.byref(k)), ctx,
                   "tile_kernel_get_typed(%s)" % name)
        return k

    def info(self, k):
        inf = KernelInfo()
        self.lib.tile_kernel_get_info(k, ctypes.byref(inf))
        return inf


def args_array(spec):
    """spec: list of (kind, value[, dtype]); torch tensors become pointer arguments."""
    arr = (Arg * len(spec))()
    keep = []
    for i, s in enumerate(spec):
        kind, val = s[0], s[1]
        a = arr[i]
        a.kind = kind
        if kind == ARG_PTR:
            a.dtype = DT[s[2]]
            a.ptr = val.data_ptr() if hasattr(val, "data_ptr") else val
        elif kind == ARG_I32:
            a.i32 = val
        elif kind == ARG_I64:
            a.i64 = val
        elif kind == ARG_F32:
            a.f32 = val
        elif kind == ARG_STR:
            b = val.encode()
            keep.append(b)
            a.str = b
        else:
            raise ValueError(kind)
    arr._keep = keep
    return arr


def grid3(gx, gy=1, gz=1):
    return (ctypes.c_uint32 * 3)(gx, gy, gz)


# ---------------------------------------------------------------------------
# timing
# ---------------------------------------------------------------------------

_flush = None


def bench(fn, reps=50, warmup=10):
    """Median milliseconds of fn() on the GPU (CUDA events, L2 flushed before each)."""
    import torch
    global _flush
    if _flush is None:
        _flush = torch.empty(256 << 20, dtype=torch.int8, device="cuda")
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        _flush.zero_()
        s = torch.cuda.Event(enable_timing=True)
        e = torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        torch.cuda.synchronize()
        times.append(s.elapsed_time(e))
    return statistics.median(times)


def stream_handle():
    import torch
    return ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)


def load_tile_file_as_python(path, modname):
    """The .tile kernels are Triton-syntax Python: import one with real Triton."""
    import importlib.machinery
    import importlib.util
    loader = importlib.machinery.SourceFileLoader(modname, path)
    spec = importlib.util.spec_from_loader(modname, loader)
    m = importlib.util.module_from_spec(spec)
    sys.modules[modname] = m
    loader.exec_module(m)
    return m


class Report:
    def __init__(self, name):
        self.name = name
        self.rows = []   # dicts: metric, value, unit, baseline_name, baseline, ratio
        self.notes = []

    def row(self, metric, value, unit, baseline_name=None, baseline=None, higher_is_better=True):
        ratio = None
        if baseline_name and baseline and value is not None:
            ratio = value / baseline if higher_is_better else baseline / value
        self.rows.append(dict(metric=metric, value=value, unit=unit, baseline_name=baseline_name,
                              baseline=baseline, ratio=ratio))

    def note(self, text):
        self.notes.append(text)


def copy_gbps(nbytes_traffic, reps):
    """torch device-to-device copy moving the same traffic (half read, half written)."""
    import torch
    n = nbytes_traffic // 2
    src = torch.empty(n, dtype=torch.uint8, device="cuda").fill_(1)
    dst = torch.empty_like(src)
    ms = bench(lambda: dst.copy_(src), reps)
    del src, dst
    return nbytes_traffic / (ms * 1e-3) / 1e9


def next_pow2(n):
    return 1 << (n - 1).bit_length()


# ---------------------------------------------------------------------------
# comparisons (each runs in its own process)
# ---------------------------------------------------------------------------

def cmp_vector_add(T, rep, quick):
    import torch
    reps = 10 if quick else 50
    ctx = T.context("cuda")
    mod = T.load(ctx, os.path.join(KERNELS, "vector_add.tile"))
    try:
        tri = load_tile_file_as_python(os.path.join(KERNELS, "vector_add.tile"), "tile_vadd_triton")
    except Exception as e:  # noqa: BLE001
        tri = None
        rep.note("Triton run of kernels/vector_add.tile unavailable: %s" % e)
    for n in ([1 << 24] if quick else [1 << 24, 1 << 26, 1 << 28]):
        x = torch.rand(n, device="cuda")
        y = torch.rand(n, device="cuda")
        z = torch.empty_like(x)
        args = args_array([(ARG_PTR, x, "fp32"), (ARG_PTR, y, "fp32"), (ARG_PTR, z, "fp32"),
                           (ARG_I32, n), (ARG_I32, 1024)])
        k = T.get_typed(ctx, mod, "add_kernel", args, num_warps=4)
        g = grid3((n + 1023) // 1024)
        st = stream_handle()
        T.check(T.lib.tile_launch(k, g, args, len(args), st), ctx, "tile_launch")
        torch.cuda.synchronize()
        if not torch.equal(z, x + y):
            rep.note("n=%d: WRONG RESULT from tile add_kernel" % n)
            continue
        nbytes = 12 * n
        ms = bench(lambda: T.lib.tile_launch(k, g, args, len(args), st), reps)
        gb = nbytes / (ms * 1e-3) / 1e9
        cp = copy_gbps(nbytes, reps)
        rep.row("tile add_kernel n=%d (GB/s)" % n, gb, "GB/s", "torch d2d copy", cp)
        if tri is not None:
            fn = lambda: tri.add_kernel[((n + 1023) // 1024,)](x, y, z, n, BLOCK_SIZE=1024)  # noqa: E731
            tms = bench(fn, reps)
            rep.row("Triton add_kernel n=%d (GB/s)" % n, nbytes / (tms * 1e-3) / 1e9, "GB/s",
                    "torch d2d copy", cp)
        rep.row("torch x+y n=%d (GB/s)" % n, nbytes / (bench(lambda: torch.add(x, y, out=z), reps)
                                                   * 1e-3) / 1e9, "GB/s", "torch d2d copy", cp)
        T.lib.tile_kernel_destroy(k)
        del x, y, z


def cmp_softmax(T, rep, quick):
    import torch
    reps = 10 if quick else 50
    ctx = T.context("cuda")
    mod = T.load(ctx, os.path.join(KERNELS, "softmax.tile"))
    try:
        tri = load_tile_file_as_python(os.path.join(KERNELS, "softmax.tile"), "tile_softmax_triton")
    except Exception as e:  # noqa: BLE001
        tri = None
        rep.note("Triton run of kernels/softmax.tile unavailable: %s" % e)
    rows = 4096
    for cols in ([1024] if quick else [1024, 4096, 16384]):
        x = torch.randn(rows, cols, device="cuda")
        y = torch.empty_like(x)
        block = next_pow2(cols)
        nw = 4 if block < 2048 else 8 if block < 4096 else 16  # Triton tutorial 02's choice
        args = args_array([(ARG_PTR, y, "fp32"), (ARG_PTR, x, "fp32"), (ARG_I32, x.stride(0)),
                           (ARG_I32, y.stride(0)), (ARG_I32, rows), (ARG_I32, cols), (ARG_I32, block)])
        k = T.get_typed(ctx, mod, "softmax_kernel", args, num_warps=nw)
        g = grid3(rows)
        st = stream_handle()
        T.check(T.lib.tile_launch(k, g, args, len(args), st), ctx, "tile_launch")
        torch.cuda.synchronize()
        err = (y - torch.softmax(x, dim=1)).abs().max().item()
        if not err < 1e-5:
            rep.note("cols=%d: WRONG RESULT from tile softmax_kernel (max abs err %g)" % (cols, err))
            continue
        nbytes = 8 * rows * cols
        cp = copy_gbps(nbytes, reps)
        ms = bench(lambda: T.lib.tile_launch(k, g, args, len(args), st), reps)
        rep.row("tile softmax %dx%d (GB/s)" % (rows, cols), nbytes / (ms * 1e-3) / 1e9, "GB/s",
                "torch d2d copy", cp)
        if tri is not None:
            fn = lambda: tri.softmax_kernel[(rows,)](y, x, x.stride(0), y.stride(0), rows, cols,  # noqa: E731
                                                     BLOCK_SIZE=block, num_warps=nw)
            rep.row("Triton softmax %dx%d (GB/s)" % (rows, cols),
                    nbytes / (bench(fn, reps) * 1e-3) / 1e9, "GB/s", "torch d2d copy", cp)
        rep.row("torch.softmax %dx%d (GB/s)" % (rows, cols),
                nbytes / (bench(lambda: torch.softmax(x, dim=1), reps) * 1e-3) / 1e9,
                "GB/s", "torch d2d copy", cp)
        T.lib.tile_kernel_destroy(k)


def cmp_layer_norm(T, rep, quick):
    import torch
    reps = 10 if quick else 50
    ctx = T.context("cuda")
    mod = T.load(ctx, os.path.join(KERNELS, "layer_norm.tile"))
    try:
        tri = load_tile_file_as_python(os.path.join(KERNELS, "layer_norm.tile"), "tile_ln_triton")
    except Exception as e:  # noqa: BLE001
        tri = None
        rep.note("Triton run of kernels/layer_norm.tile unavailable: %s" % e)
    M, eps = 4096, 1e-5
    for N in ([1024] if quick else [1024, 4096, 8192]):
        dt = torch.float16  # as in Triton tutorial 05
        x = torch.randn(M, N, device="cuda", dtype=dt)
        w = torch.rand(N, device="cuda", dtype=dt)
        b = torch.rand(N, device="cuda", dtype=dt)
        y = torch.empty_like(x)
        mean = torch.empty(M, device="cuda", dtype=torch.float32)
        rstd = torch.empty(M, device="cuda", dtype=torch.float32)
        block = min(65536 // x.element_size(), next_pow2(N))
        nw = min(max(block // 256, 1), 8)
        args = args_array([(ARG_PTR, x, "fp16"), (ARG_PTR, y, "fp16"), (ARG_PTR, w, "fp16"),
                           (ARG_PTR, b, "fp16"), (ARG_PTR, mean, "fp32"), (ARG_PTR, rstd, "fp32"),
                           (ARG_I32, x.stride(0)), (ARG_I32, N), (ARG_F32, eps), (ARG_I32, block)])
        k = T.get_typed(ctx, mod, "layer_norm_fwd", args, num_warps=nw)
        g = grid3(M)
        st = stream_handle()
        T.check(T.lib.tile_launch(k, g, args, len(args), st), ctx, "tile_launch")
        torch.cuda.synchronize()
        ref = torch.nn.functional.layer_norm(x, (N,), w, b, eps)
        err = (y.float() - ref.float()).abs().max().item()
        if not err < 1e-2:
            rep.note("N=%d: WRONG RESULT from tile layer_norm_fwd (max abs err %g)" % (N, err))
            continue
        nbytes = 2 * M * N * x.element_size() + 2 * N * x.element_size() + 8 * M
        cp = copy_gbps(nbytes, reps)
        ms = bench(lambda: T.lib.tile_launch(k, g, args, len(args), st), reps)
        rep.row("tile layer_norm fp16 %dx%d (GB/s)" % (M, N), nbytes / (ms * 1e-3) / 1e9, "GB/s",
                "torch d2d copy", cp)
        if tri is not None:
            fn = lambda: tri.layer_norm_fwd[(M,)](x, y, w, b, mean, rstd, x.stride(0), N, eps,  # noqa: E731
                                                  BLOCK_SIZE=block, num_warps=nw)
            rep.row("Triton layer_norm fp16 %dx%d (GB/s)" % (M, N),
                    nbytes / (bench(fn, reps) * 1e-3) / 1e9, "GB/s", "torch d2d copy", cp)
        fn = lambda: torch.nn.functional.layer_norm(x, (N,), w, b, eps)  # noqa: E731
        rep.row("torch layer_norm fp16 %dx%d (GB/s)" % (M, N),
                nbytes / (bench(fn, reps) * 1e-3) / 1e9, "GB/s", "torch d2d copy", cp)
        T.lib.tile_kernel_destroy(k)


# Triton tutorial 03, verbatim apart from the names (the CUDA autotune configs).
TRITON_MATMUL_CONFIGS = [
    # (BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, num_stages, num_warps)
    (128, 256, 64, 8, 3, 8),
    (64, 256, 32, 8, 4, 4),
    (128, 128, 32, 8, 4, 4),
    (128, 64, 32, 8, 4, 4),
    (64, 128, 32, 8, 4, 4),
    (128, 32, 32, 8, 4, 4),
    (64, 32, 32, 8, 5, 2),
    (32, 64, 32, 8, 5, 2),
]


def triton_tutorial_matmul():
    import triton
    import triton.language as tl

    @triton.autotune(
        configs=[triton.Config({"BLOCK_SIZE_M": m, "BLOCK_SIZE_N": n, "BLOCK_SIZE_K": k,
                                "GROUP_SIZE_M": g}, num_stages=s, num_warps=w)
                 for (m, n, k, g, s, w) in TRITON_MATMUL_CONFIGS],
        key=["M", "N", "K"],
    )
    @triton.jit
    def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                      stride_cm, stride_cn, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                      BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr):
        pid = tl.program_id(axis=0)
        num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
        num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
        num_pid_in_group = GROUP_SIZE_M * num_pid_n
        group_id = pid // num_pid_in_group
        first_pid_m = group_id * GROUP_SIZE_M
        group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
        pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
        pid_n = (pid % num_pid_in_group) // group_size_m
        offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
        offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
        offs_k = tl.arange(0, BLOCK_SIZE_K)
        a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
        b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
        accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
            a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
            accumulator = tl.dot(a, b, accumulator)
            a_ptrs += BLOCK_SIZE_K * stride_ak
            b_ptrs += BLOCK_SIZE_K * stride_bk
        c = accumulator.to(c_ptr.dtype.element_ty)
        offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
        offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
        c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
        c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
        tl.store(c_ptrs, c, mask=c_mask)

    def run(a, b, c):
        M, K = a.shape
        _, N = b.shape
        grid = lambda META: (triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"]),)  # noqa: E731
        matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                            c.stride(0), c.stride(1))
    return run


# Configurations beyond the tutorial's, for tile alone (matmul_fp16_sweep): deeper
# pipelines and the transposed 256x128 tile, which the 60%-of-cuBLAS target may want.
SWEEP_MATMUL_CONFIGS = TRITON_MATMUL_CONFIGS + [
    (128, 256, 64, 8, 4, 8),
    (256, 128, 64, 8, 3, 8),
    (256, 128, 64, 8, 4, 8),
    (128, 256, 32, 8, 4, 8),
    (128, 256, 32, 8, 5, 8),
    (128, 128, 64, 8, 3, 4),
    (128, 128, 64, 8, 4, 8),
    (128, 256, 64, 16, 3, 8),
]


def cmp_matmul(T, rep, quick, dtype_name, variant="", configs=None, sizes=None):
    import torch
    dt = {"fp16": torch.float16, "bf16": torch.bfloat16}[dtype_name]
    reps = 10 if quick else 30
    ctx = T.context("cuda")
    mod = T.load(ctx, os.path.join(KERNELS, "matmul.tile"))
    tri = triton_tutorial_matmul()
    sizes = sizes or ([1024] if quick else [1024, 2048, 4096, 8192])
    configs = configs or TRITON_MATMUL_CONFIGS
    for S in sizes:
        M = N = K = S
        a = torch.randn(M, K, device="cuda", dtype=dt)
        b = torch.randn(K, N, device="cuda", dtype=dt)
        c = torch.empty(M, N, device="cuda", dtype=dt)
        ref = torch.matmul(a, b)
        flops = 2.0 * M * N * K
        tfl = lambda ms: flops / (ms * 1e-3) / 1e12  # noqa: E731
        t_cublas = tfl(bench(lambda: torch.matmul(a, b), reps))
        # ours: the tutorial's configs tried one by one, the best kept (what autotune does)
        best, best_cfg, failures = None, None, []
        st = stream_handle()
        for (bm, bn, bk, gm, ns, nw) in configs:
            args = args_array([(ARG_PTR, a, dtype_name), (ARG_PTR, b, dtype_name), (ARG_PTR, c, dtype_name),
                               (ARG_I32, M), (ARG_I32, N), (ARG_I32, K),
                               (ARG_I32, a.stride(0)), (ARG_I32, a.stride(1)),
                               (ARG_I32, b.stride(0)), (ARG_I32, b.stride(1)),
                               (ARG_I32, c.stride(0)), (ARG_I32, c.stride(1)),
                               (ARG_I32, bm), (ARG_I32, bn), (ARG_I32, bk), (ARG_I32, gm),
                               (ARG_STR, "")])
            cfg = "%dx%dx%d g%d s%d w%d" % (bm, bn, bk, gm, ns, nw)
            try:
                k = T.get_typed(ctx, mod, "matmul_kernel", args, num_warps=nw, num_stages=ns)
            except TileError as e:
                failures.append("%s: %s" % (cfg, str(e).splitlines()[0]))
                continue
            g = grid3(((M + bm - 1) // bm) * ((N + bn - 1) // bn))
            c.zero_()
            stt = T.lib.tile_launch(k, g, args, len(args), st)
            torch.cuda.synchronize()
            if stt != TILE_OK:
                failures.append("%s: launch: %s" % (cfg, T.lib.tile_errmsg(ctx).decode(errors="replace")))
                continue
            if not torch.allclose(c.float(), ref.float(), atol=1e-1 * (K / 1024) ** 0.5, rtol=2e-2):
                failures.append("%s: WRONG RESULT (max abs err %g)" %
                                (cfg, (c.float() - ref.float()).abs().max().item()))
                continue
            t = tfl(bench(lambda: T.lib.tile_launch(k, g, args, len(args), st), reps))
            if best is None or t > best:
                best, best_cfg = t, cfg
        for f in failures:
            rep.note("%s %d^3: %s" % (dtype_name, S, f))
        tri(a, b, c)  # autotunes
        torch.cuda.synchronize()
        t_tri = tfl(bench(lambda: tri(a, b, c), reps))
        if best is not None:
            rep.row("tile%s matmul %s %d^3 (TFLOP/s) [%s]" % (variant, dtype_name, S, best_cfg), best,
                    "TFLOP/s", "cuBLAS", t_cublas)
            rep.row("tile%s matmul %s %d^3 vs Triton tutorial" % (variant, dtype_name, S), best, "TFLOP/s",
                    "Triton tutorial", t_tri)
        else:
            rep.row("tile%s matmul %s %d^3 (TFLOP/s)" % (variant, dtype_name, S), None, "TFLOP/s")
        rep.row("cuBLAS torch.matmul %s %d^3 (TFLOP/s)" % (dtype_name, S), t_cublas, "TFLOP/s")
        rep.row("Triton tutorial matmul %s %d^3 (TFLOP/s)" % (dtype_name, S), t_tri, "TFLOP/s",
                "cuBLAS", t_cublas)
        del a, b, c, ref


def cmp_matmul_fp16(T, rep, quick):
    cmp_matmul(T, rep, quick, "fp16")


def cmp_matmul_bf16(T, rep, quick):
    cmp_matmul(T, rep, quick, "bf16")


def cmp_matmul_fp16_noprefetch(T, rep, quick):
    """The same, with the first k step's operands not read ahead (TILE_MMA_PREFETCH=0,
    read by libtile when it compiles: this comparison has its own process)."""
    os.environ["TILE_MMA_PREFETCH"] = "0"
    cmp_matmul(T, rep, quick, "fp16", " (no prefetch)")


def cmp_matmul_fp16_sweep(T, rep, quick):
    """tile's matmul over SWEEP_MATMUL_CONFIGS at 4096^3 and 8192^3 (the Triton rows
    still autotune over the tutorial's own list). Not run by default: --only sweep."""
    cmp_matmul(T, rep, quick, "fp16", " (sweep)", SWEEP_MATMUL_CONFIGS, [4096] if quick else [4096, 8192])
    rep.note("tile tried %d configurations; Triton's tutorial its %d" %
             (len(SWEEP_MATMUL_CONFIGS), len(TRITON_MATMUL_CONFIGS)))


def cmp_mixed(T, rep, quick):
    """Mixed dtypes and atomics (session 17's layout and atomic changes): layer norm with fp16
    rows and fp32 weights (one layout for both loads and the store, no conversion through shared
    memory), and accumulation by atomic_add in fp32 and fp16 (grouped: Hopper's vector atom,
    f16x2 pairs). tile beside Triton on the same kernels and tensors. Not run by default:
    --only mixed."""
    import torch
    reps = 10 if quick else 50
    ctx = T.context("cuda")
    st = stream_handle()
    mod = T.load(ctx, os.path.join(KERNELS, "layer_norm.tile"))
    acc = T.load(ctx, os.path.join(ROOT, "bench", "gpu", "accumulate.tile"))
    try:
        tri = load_tile_file_as_python(os.path.join(KERNELS, "layer_norm.tile"), "tile_ln_mixed_triton")
        tacc = load_tile_file_as_python(os.path.join(ROOT, "bench", "gpu", "accumulate.tile"), "tile_acc_triton")
    except Exception as e:  # noqa: BLE001
        tri = tacc = None
        rep.note("Triton runs unavailable: %s" % e)
    M, eps = 4096, 1e-5
    for N in ([4096] if quick else [1024, 4096, 8192]):
        x = torch.randn(M, N, device="cuda", dtype=torch.float16)
        w = torch.rand(N, device="cuda", dtype=torch.float32)
        b = torch.rand(N, device="cuda", dtype=torch.float32)
        y = torch.empty_like(x)
        mean = torch.empty(M, device="cuda", dtype=torch.float32)
        rstd = torch.empty(M, device="cuda", dtype=torch.float32)
        block = min(65536 // x.element_size(), next_pow2(N))
        nw = min(max(block // 256, 1), 8)
        args = args_array([(ARG_PTR, x, "fp16"), (ARG_PTR, y, "fp16"), (ARG_PTR, w, "fp32"),
                           (ARG_PTR, b, "fp32"), (ARG_PTR, mean, "fp32"), (ARG_PTR, rstd, "fp32"),
                           (ARG_I32, x.stride(0)), (ARG_I32, N), (ARG_F32, eps), (ARG_I32, block)])
        k = T.get_typed(ctx, mod, "layer_norm_fwd", args, num_warps=nw)
        g = grid3(M)
        T.check(T.lib.tile_launch(k, g, args, len(args), st), ctx, "tile_launch")
        torch.cuda.synchronize()
        ref = torch.nn.functional.layer_norm(x.float(), (N,), w, b, eps)
        err = (y.float() - ref).abs().max().item()
        if not err < 1e-2:
            rep.note("N=%d: WRONG RESULT from tile layer_norm_fwd, fp32 weights (max abs err %g)" % (N, err))
        else:
            nbytes = 2 * M * N * 2 + 2 * N * 4 + 8 * M
            cp = copy_gbps(nbytes, reps)
            ms = bench(lambda: T.lib.tile_launch(k, g, args, len(args), st), reps)
            rep.row("tile layer_norm fp16, fp32 weights %dx%d (GB/s)" % (M, N), nbytes / (ms * 1e-3) / 1e9,
                    "GB/s", "torch d2d copy", cp)
            if tri is not None:
                fn = lambda: tri.layer_norm_fwd[(M,)](x, y, w, b, mean, rstd, x.stride(0), N, eps,  # noqa: E731
                                                      BLOCK_SIZE=block, num_warps=nw)
                rep.row("Triton layer_norm fp16, fp32 weights %dx%d (GB/s)" % (M, N),
                        nbytes / (bench(fn, reps) * 1e-3) / 1e9, "GB/s", "torch d2d copy", cp)
        T.lib.tile_kernel_destroy(k)
    rows, N, per = (1024, 4096, 8) if quick else (4096, 8192, 8)
    for dt, name in ((torch.float32, "fp32"), (torch.float16, "fp16")):
        # small integers: every sum exact whatever the order
        x = torch.randint(-4, 5, (rows, N), device="cuda").to(dt)
        out = torch.zeros(rows // per, N, device="cuda", dtype=dt)
        block = 1024
        args = args_array([(ARG_PTR, x, name), (ARG_PTR, out, name), (ARG_I32, N), (ARG_I32, per), (ARG_I32, block)])
        k = T.get_typed(ctx, acc, "accumulate_kernel", args, num_warps=4)
        g = grid3(rows, (N + block - 1) // block)
        T.check(T.lib.tile_launch(k, g, args, len(args), st), ctx, "tile_launch")
        torch.cuda.synchronize()
        want = x.float().reshape(rows // per, per, N).sum(1)
        if not torch.equal(out.float(), want):
            rep.note("%s: WRONG RESULT from tile accumulate_kernel" % name)
            T.lib.tile_kernel_destroy(k)
            continue
        nbytes = rows * N * x.element_size() + 2 * (rows // per) * N * x.element_size()
        ms = bench(lambda: T.lib.tile_launch(k, g, args, len(args), st), reps)
        tms = None
        if tacc is not None:
            fn = lambda: tacc.accumulate_kernel[(rows, (N + block - 1) // block)](  # noqa: E731
                x, out, N, per, BLOCK=block, num_warps=4)
            tms = bench(fn, reps)
        rep.row("tile atomic_add accumulate %s %dx%d (GB/s)" % (name, rows, N), nbytes / (ms * 1e-3) / 1e9,
                "GB/s", "Triton" if tms else None, nbytes / (tms * 1e-3) / 1e9 if tms else None)
        T.lib.tile_kernel_destroy(k)


W8_CONFIGS = [
    # (BLOCK_M, BLOCK_N, BLOCK_K, num_stages, num_warps)
    (128, 128, 64, 3, 4),
    (64, 128, 64, 4, 4),
    (128, 256, 64, 3, 8),
    (64, 64, 128, 4, 4),
]


def cmp_w8(T, rep, quick):
    """Weight-only int8 matmul (kernels/matmul_w8.tile: int8 weights cast and scaled before the
    dot), whose int8 load software pipelining buffers as a value load (session 19, weighed by
    ptxas alone until now). Per size, the best of W8_CONFIGS for: tile, tile with
    TILE_PIPELINE_VALUE_LOADS=0 (a second context: libtile reads the variable when a context is
    made), Triton on the same file; cuBLAS on the dequantized fp16 weights as the reference.
    Not run by default: --only w8."""
    import torch
    reps = 10 if quick else 30
    ctxs = [("tile", T.context("cuda"))]
    os.environ["TILE_PIPELINE_VALUE_LOADS"] = "0"
    ctxs.append(("tile (value loads not pipelined)", T.context("cuda")))
    del os.environ["TILE_PIPELINE_VALUE_LOADS"]
    path = os.path.join(KERNELS, "matmul_w8.tile")
    try:
        tri = load_tile_file_as_python(path, "tile_w8_triton")
    except Exception as e:  # noqa: BLE001
        tri = None
        rep.note("Triton run of kernels/matmul_w8.tile unavailable: %s" % e)
    st = stream_handle()
    for (M, N, K) in ([(1024, 4096, 4096)] if quick else [(256, 4096, 4096), (1024, 8192, 8192),
                                                         (4096, 4096, 4096)]):
        a = torch.randn(M, K, device="cuda", dtype=torch.float16)
        b = torch.randint(-127, 128, (K, N), device="cuda", dtype=torch.int8)
        s = (torch.rand(N, device="cuda") * 0.02 + 0.01).half()
        c = torch.empty(M, N, device="cuda", dtype=torch.float32)
        w = b.half() * s[None, :]
        ref = torch.matmul(a.float(), w.float())
        flops = 2.0 * M * N * K
        tfl = lambda ms: flops / (ms * 1e-3) / 1e12  # noqa: E731
        t_cublas = tfl(bench(lambda: torch.matmul(a, w), reps))
        shape = "%dx%dx%d" % (M, N, K)
        tol = 2e-2 * (K / 1024) ** 0.5
        for label, ctx in ctxs:
            mod = T.load(ctx, path)
            best, best_cfg = None, None
            for (bm, bn, bk, ns, nw) in W8_CONFIGS:
                args = args_array([(ARG_PTR, a, "fp16"), (ARG_PTR, b, "i8"), (ARG_PTR, s, "fp16"),
                                   (ARG_PTR, c, "fp32"), (ARG_I32, M), (ARG_I32, N), (ARG_I32, K),
                                   (ARG_I32, a.stride(0)), (ARG_I32, a.stride(1)),
                                   (ARG_I32, b.stride(0)), (ARG_I32, b.stride(1)),
                                   (ARG_I32, c.stride(0)), (ARG_I32, c.stride(1)),
                                   (ARG_I32, bm), (ARG_I32, bn), (ARG_I32, bk)])
                cfg = "%dx%dx%d s%d w%d" % (bm, bn, bk, ns, nw)
                try:
                    k = T.get_typed(ctx, mod, "matmul_w8_kernel", args, num_warps=nw, num_stages=ns)
                except TileError as e:
                    rep.note("%s %s %s: %s" % (label, shape, cfg, str(e).splitlines()[0]))
                    continue
                g = grid3((M + bm - 1) // bm, (N + bn - 1) // bn)
                c.zero_()
                T.check(T.lib.tile_launch(k, g, args, len(args), st), ctx, "tile_launch")
                torch.cuda.synchronize()
                err = (c - ref).abs().max().item()
                if not err < tol * ref.abs().max().item():
                    rep.note("%s %s %s: WRONG RESULT (max abs err %g)" % (label, shape, cfg, err))
                    T.lib.tile_kernel_destroy(k)
                    continue
                t = tfl(bench(lambda: T.lib.tile_launch(k, g, args, len(args), st), reps))
                if best is None or t > best:
                    best, best_cfg = t, cfg
                T.lib.tile_kernel_destroy(k)
            rep.row("%s matmul_w8 %s (TFLOP/s) [%s]" % (label, shape, best_cfg), best, "TFLOP/s",
                    "cuBLAS fp16", t_cublas)
        if tri is not None:
            best, best_cfg = None, None
            for (bm, bn, bk, ns, nw) in W8_CONFIGS:
                g = ((M + bm - 1) // bm, (N + bn - 1) // bn)
                fn = lambda: tri.matmul_w8_kernel[g](  # noqa: E731
                    a, b, s, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                    c.stride(0), c.stride(1), BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk,
                    num_stages=ns, num_warps=nw)
                fn()
                torch.cuda.synchronize()
                t = tfl(bench(fn, reps))
                if best is None or t > best:
                    best, best_cfg = t, "%dx%dx%d s%d w%d" % (bm, bn, bk, ns, nw)
            rep.row("Triton matmul_w8 %s (TFLOP/s) [%s]" % (shape, best_cfg), best, "TFLOP/s",
                    "cuBLAS fp16", t_cublas)
        rep.row("cuBLAS fp16 on dequantized weights %s (TFLOP/s)" % shape, t_cublas, "TFLOP/s")
        del a, b, c, w, ref


PAGED_CONFIGS = [  # (BLOCK_M, BLOCK_N, num_warps, num_stages)
    (128, 64, 4, 3), (128, 64, 8, 3), (64, 64, 4, 3), (128, 32, 4, 4),
]


def cmp_paged(T, rep, quick):
    """Attention over a paged KV cache (kernels/paged_attention.tile: K/V rows through
    kv_indices, a shuffled slot table), whose index loads software pipelining carries an
    iteration ahead (session 20, checked on cuda-emu only until now). Per head dim, the best of
    PAGED_CONFIGS for: tile paged, Triton on the same file, and tile's contiguous attention
    (kernels/attention.tile, the same keys in order) as the reference. Not run by default:
    --only paged."""
    import torch
    reps = 10 if quick else 30
    ctx = T.context("cuda")
    try:
        tri = load_tile_file_as_python(os.path.join(KERNELS, "paged_attention.tile"), "tile_paged_triton")
    except Exception as e:  # noqa: BLE001
        tri = None
        rep.note("Triton run of kernels/paged_attention.tile unavailable: %s" % e)
    st = stream_handle()
    H, L = 16, 4096
    for d in ((64,) if quick else (64, 128)):
        slots = L + 1000
        q = torch.randn(H, L, d, device="cuda", dtype=torch.float16)
        kc = torch.randn(slots, H, d, device="cuda", dtype=torch.float16)
        vc = torch.randn(slots, H, d, device="cuda", dtype=torch.float16)
        idx = torch.randperm(slots, device="cuda")[:L].to(torch.int32).contiguous()
        kk = kc[idx.long()].transpose(0, 1).contiguous()  # [H, L, d], keys in order
        vv = vc[idx.long()].transpose(0, 1).contiguous()
        o = torch.empty(H, L, d, device="cuda", dtype=torch.float16)
        ref = torch.nn.functional.scaled_dot_product_attention(q, kk, vv, scale=0.125)
        flops = 4.0 * H * L * L * d
        tfl = lambda ms: flops / (ms * 1e-3) / 1e12  # noqa: E731
        shape = "H%d L%d d%d" % (H, L, d)
        tol = 2e-2 * ref.abs().max().item()  # outputs are means over 4096 values: small
        for label, fname, kname in (("tile paged", "paged_attention.tile", "paged_attention_kernel"),
                                    ("tile contiguous", "attention.tile", "attention_fwd_kernel")):
            mod = T.load(ctx, os.path.join(KERNELS, fname))
            best, best_cfg = None, None
            for (bm, bn, nw, ns) in PAGED_CONFIGS:
                if kname == "paged_attention_kernel":
                    ptrs = [(ARG_PTR, q, "fp16"), (ARG_PTR, kc, "fp16"), (ARG_PTR, vc, "fp16"),
                            (ARG_PTR, idx, "i32"), (ARG_PTR, o, "fp16")]
                    strides = [L * d, d, H * d, d, H * d, d, L * d, d]
                else:
                    ptrs = [(ARG_PTR, q, "fp16"), (ARG_PTR, kk, "fp16"), (ARG_PTR, vv, "fp16"),
                            (ARG_PTR, o, "fp16")]
                    strides = [L * d, d] * 4
                args = args_array(ptrs + [(ARG_I32, L), (ARG_F32, 0.125)] +
                                  [(ARG_I32, x) for x in strides] +
                                  [(ARG_I32, d), (ARG_I32, bm), (ARG_I32, bn)])
                cfg = "%dx%d s%d w%d" % (bm, bn, ns, nw)
                try:
                    k = T.get_typed(ctx, mod, kname, args, num_warps=nw, num_stages=ns)
                except TileError as e:
                    rep.note("%s %s %s: %s" % (label, shape, cfg, str(e).splitlines()[0]))
                    continue
                g = grid3(L // bm, H)
                o.zero_()
                T.check(T.lib.tile_launch(k, g, args, len(args), st), ctx, "tile_launch")
                torch.cuda.synchronize()
                err = (o.float() - ref.float()).abs().max().item()
                if not err < tol:
                    rep.note("%s %s %s: WRONG RESULT (max abs err %g)" % (label, shape, cfg, err))
                    T.lib.tile_kernel_destroy(k)
                    continue
                t = tfl(bench(lambda: T.lib.tile_launch(k, g, args, len(args), st), reps))
                if best is None or t > best:
                    best, best_cfg = t, cfg
                T.lib.tile_kernel_destroy(k)
            rep.row("%s attention %s (TFLOP/s) [%s]" % (label, shape, best_cfg), best, "TFLOP/s")
        if tri is not None:
            best, best_cfg = None, None
            for (bm, bn, nw, ns) in PAGED_CONFIGS:
                fn = lambda: tri.paged_attention_kernel[(L // bm, H)](  # noqa: E731
                    q, kc, vc, idx, o, L, 0.125, L * d, d, H * d, d, H * d, d, L * d, d,
                    HEAD_DIM=d, BLOCK_M=bm, BLOCK_N=bn, num_warps=nw, num_stages=ns)
                fn()
                torch.cuda.synchronize()
                err = (o.float() - ref.float()).abs().max().item()
                if not err < tol:
                    rep.note("Triton paged %s: WRONG RESULT (max abs err %g)" % (shape, err))
                    continue
                t = tfl(bench(fn, reps))
                if best is None or t > best:
                    best, best_cfg = t, "%dx%d s%d w%d" % (bm, bn, ns, nw)
            rep.row("Triton paged attention %s (TFLOP/s) [%s]" % (shape, best_cfg), best, "TFLOP/s")
        del q, kc, vc, kk, vv, o, ref


def triton_regs(jitfn, args, grid, num_warps, num_stages, **consts):
    """Registers and spilled bytes per thread of Triton's compilation of jitfn for these
    arguments (compiled, not run: JITFunction.warmup)."""
    ck = jitfn.warmup(*args, grid=grid, num_warps=num_warps, num_stages=num_stages, **consts)
    if hasattr(ck, "_init_handles"):
        ck._init_handles()  # n_regs / n_spills are read when the binary is loaded
    return ck.n_regs, ck.n_spills


def cmp_registers(T, rep, quick):
    """Registers and spills per thread, tile vs Triton, for the same kernels, arguments and
    configurations (kernels/matmul.tile at the tutorial's configs, kernels/attention.tile at
    the flash-attention configs): ptxas's figures, no timing. Spills cost local-memory traffic
    in the inner loop; this row shows where tile's register allocation differs from Triton's."""
    import torch
    ctx = T.context("cuda")
    tri_mm = tri_att = None
    try:
        tri_mm = load_tile_file_as_python(os.path.join(KERNELS, "matmul.tile"), "tile_mm_regs")
        tri_att = load_tile_file_as_python(os.path.join(KERNELS, "attention.tile"), "tile_att_regs")
    except Exception as e:  # noqa: BLE001
        rep.note("Triton import of kernels/*.tile failed: %s" % e)

    def row(what, k, tri):
        inf = T.info(k)
        rep.row("tile %s: registers" % what, inf.registers, "regs")
        rep.row("tile %s: spilled bytes per thread" % what, inf.spill_bytes, "B")
        if tri is not None:
            rep.row("Triton %s: registers" % what, tri[0], "regs")
            rep.row("Triton %s: spilled bytes per thread" % what, tri[1], "B")

    def compare(what, mod, name, args, nw, ns, tri_fn, tri_args, **consts):
        """tile's compilation of mod.name for args, beside Triton's of tri_fn (None: none)."""
        try:
            k = T.get_typed(ctx, mod, name, args, num_warps=nw, num_stages=ns)
        except TileError as e:
            rep.note("%s: %s" % (what, str(e).splitlines()[0]))
            return
        tri = None
        if tri_fn is not None:
            try:
                tri = triton_regs(tri_fn, tri_args, (1,), nw, ns, **consts)
            except Exception as e:  # noqa: BLE001
                rep.note("Triton %s: %s" % (what, e))
        row(what, k, tri)
        T.lib.tile_kernel_destroy(k)

    mod = T.load(ctx, os.path.join(KERNELS, "matmul.tile"))
    S = 4096
    a = torch.randn(S, S, device="cuda", dtype=torch.float16)
    b = torch.randn(S, S, device="cuda", dtype=torch.float16)
    c = torch.empty(S, S, device="cuda", dtype=torch.float16)
    for (bm, bn, bk, gm, ns, nw) in (TRITON_MATMUL_CONFIGS[:3] if quick else SWEEP_MATMUL_CONFIGS):
        what = "matmul fp16 %dx%dx%d s%d w%d" % (bm, bn, bk, ns, nw)
        args = args_array([(ARG_PTR, a, "fp16"), (ARG_PTR, b, "fp16"), (ARG_PTR, c, "fp16"),
                           (ARG_I32, S), (ARG_I32, S), (ARG_I32, S),
                           (ARG_I32, S), (ARG_I32, 1), (ARG_I32, S), (ARG_I32, 1),
                           (ARG_I32, S), (ARG_I32, 1),
                           (ARG_I32, bm), (ARG_I32, bn), (ARG_I32, bk), (ARG_I32, gm),
                           (ARG_STR, "")])
        compare(what, mod, "matmul_kernel", args, nw, ns, tri_mm and tri_mm.matmul_kernel,
                (a, b, c, S, S, S, S, 1, S, 1, S, 1), BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn,
                BLOCK_SIZE_K=bk, GROUP_SIZE_M=gm, ACTIVATION="")

    mod = T.load(ctx, os.path.join(KERNELS, "attention.tile"))
    H, L = 4, 4096
    for (bm, bn, d, nw, ns) in ((128, 64, 64, 4, 3), (128, 64, 128, 8, 3), (64, 64, 128, 4, 3),
                                (128, 128, 64, 8, 2), (128, 64, 128, 4, 2)):
        what = "attention fwd fp16 %dx%d d%d s%d w%d" % (bm, bn, d, ns, nw)
        q, kk, v, o = (torch.randn(H, L, d, device="cuda", dtype=torch.float16) for _ in range(4))
        st = [L * d, d]
        args = args_array([(ARG_PTR, q, "fp16"), (ARG_PTR, kk, "fp16"), (ARG_PTR, v, "fp16"),
                           (ARG_PTR, o, "fp16"), (ARG_I32, L), (ARG_F32, 0.125)] +
                          [(ARG_I32, x) for x in st * 4] +
                          [(ARG_I32, d), (ARG_I32, bm), (ARG_I32, bn)])
        compare(what, mod, "attention_fwd_kernel", args, nw, ns,
                tri_att and tri_att.attention_fwd_kernel, (q, kk, v, o, L, 0.125, *(st * 4)),
                HEAD_DIM=d, BLOCK_M=bm, BLOCK_N=bn)
        del q, kk, v, o


def cmp_compile(T, rep, quick):
    """Cold compile (cache disabled) and cache hit to callable, on the cuda target."""
    import torch
    torch.cuda.init()
    n = 5 if quick else 15
    cases = [("softmax.tile", "softmax_kernel", "*fp32:16,*fp32:16,i32,i32,i32,i32,1024", 4, 2),
             ("matmul.tile", "matmul_kernel",
              "*fp16:16,*fp16:16,*fp16:16,i32:16,i32:16,i32:16,i32:16,i32:1,i32:16,i32:1,i32:16,i32:1,"
              "128,128,32,8,''", 4, 4)]
    for fname, kname, sig, nw, ns in cases:
        path = os.path.join(KERNELS, fname)
        cold, cs = [], []
        for _ in range(n):
            ctx = T.context("cuda", disable_cache=True)
            t0 = time.perf_counter()
            mod = T.load(ctx, path)
            k = T.get(ctx, mod, kname, sig, nw, ns)
            cold.append(time.perf_counter() - t0)
            cs.append(T.info(k).compile_seconds)
            T.lib.tile_kernel_destroy(k)
            T.lib.tile_module_destroy(mod)
            T.lib.tile_context_destroy(ctx)
        rep.row("cold compile %s, median (ms)" % kname, statistics.median(cold) * 1e3, "ms")
        rep.row("  info.compile_seconds %s, median (ms)" % kname, statistics.median(cs) * 1e3, "ms")
        tmp = tempfile.mkdtemp(prefix="tile-bench-gpu-cache-")
        try:
            ctx = T.context("cuda", cache_dir=tmp)
            mod = T.load(ctx, path)
            k = T.get(ctx, mod, kname, sig, nw, ns)
            T.lib.tile_kernel_destroy(k)
            T.lib.tile_module_destroy(mod)
            T.lib.tile_context_destroy(ctx)
            hit, nhit = [], 0
            for _ in range(n):
                ctx = T.context("cuda", cache_dir=tmp)
                t0 = time.perf_counter()
                mod = T.load(ctx, path)
                k = T.get(ctx, mod, kname, sig, nw, ns)
                hit.append(time.perf_counter() - t0)
                nhit += T.info(k).from_cache
                T.lib.tile_kernel_destroy(k)
                T.lib.tile_module_destroy(mod)
                T.lib.tile_context_destroy(ctx)
            rep.row("cache hit to callable %s, median (ms)" % kname, statistics.median(hit) * 1e3, "ms")
            if nhit != n:
                rep.note("%s: only %d of %d cache lookups reported from_cache" % (kname, nhit, n))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


# ---- raw cuLaunchKernel on the same cubin -----------------------------------------

def parse_cache_entry(path):
    """A cache entry (src/jit/cache.h) holding a kernel blob (src/driver/kernel_blob.c)."""
    data = open(path, "rb").read()
    if data[:8] != b"TILECACH":
        raise ValueError("not a tile cache entry: %s" % path)
    (plen,) = struct.unpack_from("<Q", data, 12)
    p = data[52:52 + plen]
    off = 0

    def u32():
        nonlocal off
        (v,) = struct.unpack_from("<I", p, off)
        off += 4
        return v

    def sstr():
        nonlocal off
        n = u32()
        s = p[off:off + n].decode()
        off += n
        return s
    if p[:4] != b"TKRN":
        raise ValueError("not a kernel blob")
    off = 4
    ver = u32()
    if ver != 3:
        raise ValueError("kernel blob version %d; this parser reads version 3" % ver)
    name = sstr()
    u32()       # target kind
    tname = sstr()
    for _ in range(5):  # arch, lanes, max_threads, max_shared, flags
        u32()
    num_warps, threads, smem = u32(), u32(), u32()
    off += 8    # stack bytes (u64)
    u32()       # registers (ptxas; -1 unknown)
    u32()       # spill bytes
    nargs = u32()
    for _ in range(nargs):
        sstr()
        off += 3
    (blen,) = struct.unpack_from("<Q", p, off)
    off += 8
    return dict(version=ver, name=name, target=tname, num_warps=num_warps, threads=threads,
                smem=smem, binary=p[off:off + blen])


def elf_function_names(binary):
    """Global function symbols of an ELF (cubin) file."""
    if binary[:4] != b"\x7fELF" or binary[4] != 2:
        return []
    shoff, = struct.unpack_from("<Q", binary, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", binary, 0x3A)
    secs = [struct.unpack_from("<IIQQQQIIQQ", binary, shoff + i * shentsize) for i in range(shnum)]
    out = []
    for s in secs:
        if s[1] != 2:  # SHT_SYMTAB
            continue
        strtab = secs[s[6]]
        for j in range(s[5] // 24):
            st_name, st_info = struct.unpack_from("<IB", binary, s[4] + j * 24)
            if st_info & 0xF == 2 and st_info >> 4 == 1:  # STT_FUNC, STB_GLOBAL
                o = strtab[4] + st_name
                out.append(binary[o:binary.index(b"\0", o)].decode())
    return out


def cmp_launch(T, rep, quick):
    """Host-side cost per launch of a trivial kernel (grid 1x1x1): thunk vs tile_launch vs raw
    cuLaunchKernel on the same cubin, all three called through ctypes."""
    import torch
    torch.cuda.init()
    out = torch.zeros(16, device="cuda", dtype=torch.float32)
    tmp = tempfile.mkdtemp(prefix="tile-bench-gpu-launch-")
    try:
        ctx = T.context("cuda", cache_dir=tmp)
        mod = T.load(ctx, STORE_ONE)
        k = T.get(ctx, mod, "store_one", "*fp32:16,fp32")
        st = stream_handle()
        # (a) the thunk: int fn(void *out, float value, u32 gx, u32 gy, u32 gz, void *stream)
        fp = ctypes.c_void_p()
        T.check(T.lib.tile_kernel_thunk(k, ctypes.byref(fp)), ctx, "tile_kernel_thunk")
        thunk = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_float, ctypes.c_uint32,
                                 ctypes.c_uint32, ctypes.c_uint32, ctypes.c_void_p)(fp.value)
        # (b) tile_launch
        args = args_array([(ARG_PTR, out, "fp32"), (ARG_F32, 3.0)])
        g = grid3(1)
        # (c) cuLaunchKernel on the cubin libtile produced (read back from its cache entry)
        entries = glob.glob(os.path.join(tmp, "**", "*.tc"), recursive=True)
        raw = None
        if len(entries) != 1:
            rep.note("expected one cache entry in %s, found %d: raw cuLaunchKernel skipped"
                     % (tmp, len(entries)))
        else:
            e = parse_cache_entry(entries[0])
            cu = ctypes.CDLL("libcuda.so.1")
            cumod, fn = ctypes.c_void_p(), ctypes.c_void_p()
            buf = ctypes.create_string_buffer(e["binary"], len(e["binary"]) + 1)
            r = cu.cuModuleLoadData(ctypes.byref(cumod), buf)
            names = [e["name"]] + [n for n in elf_function_names(e["binary"]) if n != e["name"]]
            r2 = -1
            for nm in names:
                r2 = cu.cuModuleGetFunction(ctypes.byref(fn), cumod, nm.encode())
                if r2 == 0:
                    break
            if r != 0 or r2 != 0:
                rep.note("cuModuleLoadData/cuModuleGetFunction failed (%d, %d): raw launch skipped"
                         % (r, r2))
            else:
                p_out = ctypes.c_uint64(out.data_ptr())
                p_val = ctypes.c_float(3.0)
                params = (ctypes.c_void_p * 2)(ctypes.cast(ctypes.byref(p_out), ctypes.c_void_p),
                                               ctypes.cast(ctypes.byref(p_val), ctypes.c_void_p))
                cu.cuLaunchKernel.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 7 + \
                    [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
                threads = e["threads"] or 128
                pparams = ctypes.cast(params, ctypes.c_void_p)
                raw = lambda: cu.cuLaunchKernel(fn, 1, 1, 1, threads, 1, 1, 0, st, pparams, None)  # noqa: E731
        floor = lambda: T.lib.tile_status_string(0)  # noqa: E731  the ctypes call itself
        optr = out.data_ptr()
        methods = [("ctypes floor (tile_status_string)", floor),
                   ("thunk", lambda: thunk(optr, 3.0, 1, 1, 1, st)),
                   ("tile_launch", lambda: T.lib.tile_launch(k, g, args, 2, st))]
        if raw:
            methods.append(("raw cuLaunchKernel", raw))
        # correctness of each launcher before timing
        for nm, f in methods[1:]:
            out.zero_()
            rc = f()
            torch.cuda.synchronize()
            if rc != 0 or out[0].item() != 3.0:
                rep.note("%s: returned %s and stored %g (expected 0 and 3.0)" % (nm, rc, out[0].item()))
        batch, rounds = 256, (20 if quick else 200)
        res = {}
        for nm, f in methods:
            samples = []
            for r in range(rounds + 5):
                torch.cuda.synchronize()
                t0 = time.perf_counter_ns()
                for _ in range(batch):
                    f()
                t1 = time.perf_counter_ns()
                if r >= 5:
                    samples.append((t1 - t0) / batch / 1e3)
            torch.cuda.synchronize()
            res[nm] = statistics.median(samples)
            rep.row("%s (us/launch, host)" % nm, res[nm], "us")
        if raw:
            rep.row("thunk - raw cuLaunchKernel (us)", res["thunk"] - res["raw cuLaunchKernel"], "us")
            rep.row("tile_launch - raw cuLaunchKernel (us)",
                    res["tile_launch"] - res["raw cuLaunchKernel"], "us")
        rep.row("thunk - tile_launch (us)", res["thunk"] - res["tile_launch"], "us")
        rep.note("launch: every launcher is called through ctypes; the 'ctypes floor' row is the "
                 "cost of a ctypes call that does nothing, included in every number above.")
        T.lib.tile_kernel_destroy(k)
        T.lib.tile_module_destroy(mod)
        T.lib.tile_context_destroy(ctx)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


COMPARISONS = [
    ("vector_add", cmp_vector_add),
    ("softmax", cmp_softmax),
    ("layer_norm", cmp_layer_norm),
    ("matmul_fp16", cmp_matmul_fp16),
    ("matmul_bf16", cmp_matmul_bf16),
    ("matmul_fp16_noprefetch", cmp_matmul_fp16_noprefetch),
    ("compile", cmp_compile),
    ("launch", cmp_launch),
]
# Run only when named by --only (they repeat a default comparison more widely).
EXTRA_COMPARISONS = [
    ("matmul_fp16_sweep", cmp_matmul_fp16_sweep),
    ("registers", cmp_registers),
    ("mixed", cmp_mixed),
    ("w8", cmp_w8),
    ("paged", cmp_paged),
]


def run_one(name, lib, quick, json_path):
    T = Tile(lib)
    rep = Report(name)
    fn = dict(COMPARISONS + EXTRA_COMPARISONS)[name]
    status = "ok"
    try:
        fn(T, rep, quick)
    except Exception as e:  # noqa: BLE001  reported, not hidden
        import traceback
        status = "error"
        rep.note("ERROR: %s" % e)
        traceback.print_exc()
    with open(json_path, "w") as f:
        json.dump(dict(name=name, status=status, rows=rep.rows, notes=rep.notes), f)
    return 0 if status == "ok" else 1


def selftest_cpu(lib):
    """Checks the ctypes mirror of tile.h, the thunk call and the cache-entry parser on the
    CPU target (no GPU, torch or triton needed): `bench_gpu.py --selftest-cpu`."""
    T = Tile(lib)
    tmp = tempfile.mkdtemp(prefix="tile-bench-selftest-")
    try:
        ctx = T.context("cpu", cache_dir=tmp)
        mod = T.load(ctx, os.path.join(KERNELS, "vector_add.tile"))
        n = 3000
        x = (ctypes.c_float * n)(*[float(i) for i in range(n)])
        y = (ctypes.c_float * n)(*[2.0] * n)
        z = (ctypes.c_float * n)()
        args = args_array([(ARG_PTR, ctypes.addressof(x), "fp32"), (ARG_PTR, ctypes.addressof(y), "fp32"),
                           (ARG_PTR, ctypes.addressof(z), "fp32"), (ARG_I32, n), (ARG_I32, 1024)])
        k = T.get_typed(ctx, mod, "add_kernel", args)
        inf = T.info(k)
        T.check(T.lib.tile_launch(k, grid3((n + 1023) // 1024), args, len(args), None), ctx, "tile_launch")
        bad = sum(1 for i in range(n) if z[i] != x[i] + y[i])
        print("add_kernel via ctypes: %s (target %s, %d runtime args, compile %.1f ms)" % (
            "ok" if bad == 0 else "%d WRONG" % bad, inf.target.decode(), inf.num_runtime_args,
            inf.compile_seconds * 1e3))
        mod2 = T.load(ctx, STORE_ONE)
        k2 = T.get(ctx, mod2, "store_one", "*fp32:16,fp32")
        fp = ctypes.c_void_p()
        T.check(T.lib.tile_kernel_thunk(k2, ctypes.byref(fp)), ctx, "tile_kernel_thunk")
        thunk = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_float, ctypes.c_uint32,
                                 ctypes.c_uint32, ctypes.c_uint32, ctypes.c_void_p)(fp.value)
        rc = thunk(ctypes.addressof(z), 42.0, 1, 1, 1, None)
        print("store_one thunk via ctypes: %s" % ("ok" if rc == 0 and z[0] == 42.0 else
                                                  "WRONG (rc %d, value %g)" % (rc, z[0])))
        entries = glob.glob(os.path.join(tmp, "**", "*.tc"), recursive=True)
        for e in entries:
            d = parse_cache_entry(e)
            print("cache entry %s: kernel %s, target %s, %d threads, %d-byte binary, ELF functions %s"
                  % (os.path.basename(e)[:12], d["name"], d["target"], d["threads"], len(d["binary"]),
                     elf_function_names(d["binary"])))
        ok = bad == 0 and rc == 0 and z[0] == 42.0 and len(entries) == 2
        if len(entries) != 2:
            print("expected 2 cache entries, found %d" % len(entries))
        T.lib.tile_kernel_destroy(k)
        T.lib.tile_kernel_destroy(k2)
        T.lib.tile_module_destroy(mod)
        T.lib.tile_module_destroy(mod2)
        T.lib.tile_context_destroy(ctx)
        print("selftest: %s" % ("ok" if ok else "FAILED"))
        return 0 if ok else 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def machine_info():
    lines = ["- host: `%s`" % " ".join(platform.uname())]
    try:
        smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total,clocks.max.sm",
                              "--format=csv,noheader"], capture_output=True, text=True, timeout=30)
        lines.append("- GPU: %s" % smi.stdout.strip().replace("\n", "; "))
    except Exception:  # noqa: BLE001
        lines.append("- GPU: (nvidia-smi not available)")
    try:
        import torch
        import triton
        lines.append("- torch %s (CUDA %s), triton %s, python %s" % (
            torch.__version__, torch.version.cuda, triton.__version__, platform.python_version()))
        lines.append("- device: %s" % torch.cuda.get_device_name(0))
    except Exception as e:  # noqa: BLE001
        lines.append("- torch/triton: %s" % e)
    return lines


def fmt(v):
    return "-" if v is None else "%.3g" % v if abs(v) < 100 else "%.1f" % v


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lib", help="path to libtile.so")
    ap.add_argument("--only", help="run the comparisons whose name contains this")
    ap.add_argument("--quick", action="store_true", help="fewer sizes and samples")
    ap.add_argument("--out", help="results file (default bench/results/gpu-YYYY-MM-DD.md)")
    ap.add_argument("--selftest-cpu", action="store_true",
                    help="check the ctypes bindings on the CPU target (no GPU needed)")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--json", help=argparse.SUPPRESS)
    a = ap.parse_args()
    lib = find_libtile(a.lib)
    if a.selftest_cpu:
        return selftest_cpu(lib)
    if a.one:
        return run_one(a.one, lib, a.quick, a.json)

    T = Tile(lib)
    print("tile %s (%s), GPU benchmarks" % (T.version(), lib), flush=True)
    results = []
    tmpdir = tempfile.mkdtemp(prefix="tile-bench-gpu-")
    try:
        extra = set(name for name, _ in EXTRA_COMPARISONS)
        for name, _ in COMPARISONS + EXTRA_COMPARISONS:
            if (a.only not in name) if a.only else (name in extra):
                continue
            jp = os.path.join(tmpdir, name + ".json")
            cmd = [sys.executable, os.path.abspath(__file__), "--one", name, "--json", jp, "--lib", lib]
            if a.quick:
                cmd.append("--quick")
            print("== %s" % name, flush=True)
            t0 = time.time()
            p = subprocess.run(cmd)
            if os.path.exists(jp):
                r = json.load(open(jp))
            else:
                r = dict(name=name, status="crashed (exit %d)" % p.returncode, rows=[], notes=[])
            r["seconds"] = time.time() - t0
            results.append(r)
            for row in r["rows"]:
                ratio = "" if row["ratio"] is None else "%6.0f%% of %s" % (100 * row["ratio"],
                                                                         row["baseline_name"])
                print("  %-58s %10s %-8s %s" % (row["metric"], fmt(row["value"]), row["unit"], ratio))
            for n in r["notes"]:
                print("  note: %s" % n)
            if r["status"] != "ok":
                print("  status: %s" % r["status"])
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)

    day = datetime.date.today().isoformat()
    out = a.out or os.path.join(ROOT, "bench", "results", "gpu-%s.md" % day)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        f.write("# tile GPU benchmarks, %s\n\n" % day)
        f.write("Produced by `python3 bench/gpu/bench_gpu.py%s%s` (libtile %s at %s).\n\n" % (
            " --quick" if a.quick else "", " --only " + a.only if a.only else "", T.version(), lib))
        f.write("\n".join(machine_info()) + "\n\n")
        f.write("Each comparison ran in its own process; medians of CUDA-event timings after an L2 "
                "flush. Ratios: ours / baseline (higher is better for GB/s and TFLOP/s).\n\n")
        for r in results:
            f.write("## %s (%s, %.0f s)\n\n" % (r["name"], r["status"], r["seconds"]))
            if r["rows"]:
                f.write("| benchmark | value | unit | baseline | baseline value | ratio |\n"
                        "|---|---:|---|---|---:|---:|\n")
                for row in r["rows"]:
                    f.write("| %s | %s | %s | %s | %s | %s |\n" % (
                        row["metric"], fmt(row["value"]), row["unit"], row["baseline_name"] or "",
                        fmt(row["baseline"]) if row["baseline"] else "",
                        "" if row["ratio"] is None else "%.0f%%" % (100 * row["ratio"])))
                f.write("\n")
            for n in r["notes"]:
                f.write("- %s\n" % n)
            f.write("\n")
    print("wrote %s" % out)
    return 0 if all(r["status"] == "ok" for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())

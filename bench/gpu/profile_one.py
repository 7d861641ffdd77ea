"""Launches one of our kernels (and Triton's on the same data) a few times, for a
profiler to look at: run it under ncu, e.g.

    ncu --section SpeedOfLight --section WarpStateStats -k regex:matmul python3 \
        bench/gpu/profile_one.py matmul 4096 128 128 32 4 4

Kernels: `softmax COLS [NUM_WARPS]` (4096 rows, fp32) and
`matmul SIZE BM BN BK NUM_WARPS NUM_STAGES` (fp16, row-major A and B). Our
kernel runs first, then Triton's (the same .tile file for softmax, tutorial
03's kernel with the same configuration for matmul), each after one warm-up.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_gpu as B  # noqa: E402


def main():
    import torch
    import triton
    T = B.Tile(B.find_libtile(os.environ.get("TILE_LIB")))
    ctx = T.context("cuda")
    st = B.stream_handle()
    what = sys.argv[1]
    if what == "softmax":
        cols = int(sys.argv[2])
        block = B.next_pow2(cols)
        nw = int(sys.argv[3]) if len(sys.argv) > 3 else (4 if block < 2048 else 8 if block < 4096 else 16)
        x = torch.randn(4096, cols, device="cuda")
        y = torch.empty_like(x)
        mod = T.load(ctx, os.path.join(B.KERNELS, "softmax.tile"))
        args = B.args_array([(B.ARG_PTR, y, "fp32"), (B.ARG_PTR, x, "fp32"), (B.ARG_I32, x.stride(0)),
                             (B.ARG_I32, y.stride(0)), (B.ARG_I32, 4096), (B.ARG_I32, cols),
                             (B.ARG_I32, block)])
        k = T.get_typed(ctx, mod, "softmax_kernel", args, num_warps=nw)
        print("ours:", T.info(k).registers, "registers")
        for _ in range(2):
            T.check(T.lib.tile_launch(k, B.grid3(4096), args, len(args), st), ctx, "tile_launch")
        tri = B.load_tile_file_as_python(os.path.join(B.KERNELS, "softmax.tile"), "tile_softmax_triton")
        for _ in range(2):
            tri.softmax_kernel[(4096,)](y, x, x.stride(0), y.stride(0), 4096, cols, BLOCK_SIZE=block,
                                        num_warps=nw)
    elif what == "matmul":
        S, bm, bn, bk, nw, ns = (int(v) for v in sys.argv[2:8])
        a = torch.randn(S, S, device="cuda", dtype=torch.float16)
        b = torch.randn(S, S, device="cuda", dtype=torch.float16)
        c = torch.empty(S, S, device="cuda", dtype=torch.float16)
        mod = T.load(ctx, os.path.join(B.KERNELS, "matmul.tile"))
        args = B.args_array([(B.ARG_PTR, a, "fp16"), (B.ARG_PTR, b, "fp16"), (B.ARG_PTR, c, "fp16"),
                             (B.ARG_I32, S), (B.ARG_I32, S), (B.ARG_I32, S),
                             (B.ARG_I32, S), (B.ARG_I32, 1), (B.ARG_I32, S), (B.ARG_I32, 1),
                             (B.ARG_I32, S), (B.ARG_I32, 1), (B.ARG_I32, bm), (B.ARG_I32, bn),
                             (B.ARG_I32, bk), (B.ARG_I32, 8), (B.ARG_STR, "")])
        k = T.get_typed(ctx, mod, "matmul_kernel", args, num_warps=nw, num_stages=ns)
        print("ours:", T.info(k).registers, "registers")
        g = B.grid3(((S + bm - 1) // bm) * ((S + bn - 1) // bn))
        for _ in range(2):
            T.check(T.lib.tile_launch(k, g, args, len(args), st), ctx, "tile_launch")
        B.TRITON_MATMUL_CONFIGS[:] = [(bm, bn, bk, 8, ns, nw)]  # autotune over this one only
        tri = B.triton_tutorial_matmul()
        for _ in range(2):
            tri(a, b, c)
    else:
        sys.exit("profile_one.py: softmax COLS [NUM_WARPS] | matmul SIZE BM BN BK NUM_WARPS NUM_STAGES")
    torch.cuda.synchronize()
    print("triton", triton.__version__, "done")


if __name__ == "__main__":
    main()

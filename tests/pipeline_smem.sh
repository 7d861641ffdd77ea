#!/bin/sh
# pipeline_smem.sh: scratch shared memory used outside a software-pipelined
# loop (the matmul epilogue's layout conversion) lies over the loop's buffers,
# which are dead there (TirSmemBuf in src/ir/tir.h): the budget that picks the
# stage count counts only the scratch live beside the buffers, as Triton's
# allocator does. An fp16 128x256x64 tile over 8 warps, 3 stages: 144 KiB of
# buffers + a 64 KiB epilogue used to exceed sm_80's 163 KiB and fall back to
# 2 stages. Results: test_lang (scratch_over_pipeline_buffers) and the kernel
# suite on cuda-emu.
. "$(dirname "$0")/cli_lib.sh"

sig="*fp16:16,*fp16:16,*fp16:16,i32:16,i32:16,i32:16,i32:16,i32:1,i32:16,i32:1,i32:16,i32:1,128,256,64,8,''"
expect 0 $TILE compile kernels/matmul.tile matmul_kernel --signature "$sig" --target sm_80 \
	--num-warps 8 --num-stages 3 --emit layout
has "$tmp/out" "buf0: <128x64xfp16> x 3 slots"
has "$tmp/out" "buf1: <64x256xfp16> x 3 slots"
has "$tmp/out" "smem=147456}"
# 4 stages on sm_90a (227 KiB): 192 KiB of buffers, the epilogue over them
expect 0 $TILE compile kernels/matmul.tile matmul_kernel --signature "$sig" --target sm_90a \
	--num-warps 8 --num-stages 4 --emit layout
has "$tmp/out" "x 4 slots"
has "$tmp/out" "smem=196608}"

# Two pipelined loops one after the other (lightllm's prefill attention runs an
# unmasked and a causal K/V loop): never live together, so both loops' buffers
# start at 0. A 128x128x64 fp16 tile, 3 stages: 96 KiB per loop. Stacked they
# took 192 KiB on sm_90a, and on sm_80 the second loop fell to 2 stages.
cat >"$tmp/two_loops.py" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def two_loops(A, B, C, D, Out, K1, K2, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, K1, BK, num_stages=3):
        a = tl.load(A + rm[:, None] * K1 + (k + rk)[None, :])
        b = tl.load(B + (k + rk)[:, None] * BN + rn[None, :])
        acc = tl.dot(a, b, acc)
    acc2 = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, K2, BK, num_stages=3):
        c = tl.load(C + rm[:, None] * K2 + (k + rk)[None, :])
        d = tl.load(D + (k + rk)[:, None] * BN + rn[None, :])
        acc2 = tl.dot(c, d, acc2)
    tl.store(Out + rm[:, None] * BN + rn[None, :], acc + acc2)
EOF
sig2="*fp16:16,*fp16:16,*fp16:16,*fp16:16,*fp32:16,i32:16,i32:16,128,128,64"
for target in sm_80 sm_90a; do
	expect 0 $TILE compile "$tmp/two_loops.py" two_loops --signature "$sig2" --target $target \
		--num-warps 8 --emit layout
	has "$tmp/out" "buf2: <128x64xfp16> x 3 slots of 16384 bytes at 0,"
	has "$tmp/out" "buf3: <64x128xfp16> x 3 slots of 16384 bytes at 49152,"
	has "$tmp/out" "smem_reserved=98304"
done
# the second loop's copies land where the first loop's buffers were: all ones,
# K1 = 128 and K2 = 192 give 320.0 everywhere (on cuda-emu, with the race check)
npy_arr "$tmp/a.npy" '<f2' 24576 '\000\074' "128, 192"
npy_f32 "$tmp/o.npy" 16384 '\000\000\000\000'
expect 0 env TILE_RACECHECK=1 $TILE run "$tmp/two_loops.py" two_loops --grid 1 --emulate=cuda --num-warps 8 \
	--out-dir "$tmp/res" A=@"$tmp/a.npy" B=@"$tmp/a.npy" C=@"$tmp/a.npy" D=@"$tmp/a.npy" Out=@"$tmp/o.npy" \
	K1=128 K2=192 BM=128 BN=128 BK=64
f32_pattern 16384 '\000\000\240\103' >"$tmp/want"
tail -c 65536 "$tmp/res/Out.npy" | cmp -s - "$tmp/want" || fail "two pipelined loops: wrong results on cuda-emu"
finish

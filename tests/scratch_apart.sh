#!/bin/sh
# scratch_apart.sh: TILE_SCRATCH_APART=1 (a debug aid) places every
# shared-memory scratch phase after the buffers (codegen/lower.c,
# lw_scratch_base) instead of over buffers it takes to be dead, and every
# buffer after the others (layout_buf_base) where loops one after another
# would share bytes. A run whose
# results differ from the default's then names a scratch placement that
# overwrote a live buffer: the bug class of hold_smem.sh, which the race check
# cannot see (it is an ordered overwrite, not a race).
. "$(dirname "$0")/cli_lib.sh"

sig="*fp16:16,*fp16:16,*fp16:16,*fp16:16,i32,fp32,i32:16,i32:16,i32:16,i32:16,i32:16,i32:16,i32:16,i32:16,64,64,32"
# attention's epilogue converts the accumulator through scratch after the loop
# whose K/V buffers it overlaps by default (24576 B); apart, it starts after them
expect 0 $TILE compile kernels/attention.tile attention_fwd_kernel --signature "$sig" --target sm_90a --emit cuda
has "$tmp/out" "smem[24576]"
TILE_SCRATCH_APART=1 expect 0 $TILE compile kernels/attention.tile attention_fwd_kernel --signature "$sig" \
	--target sm_90a --emit cuda
has "$tmp/out" "smem[32768]"

# the same results, bit for bit, on cuda-emu (ragged seq_len: masked rows and
# keys) and on the CPU, where scratch apart changes nothing
for target in cuda-emu cpu; do
	for apart in 0 1; do
		rm -rf "$tmp/res$apart"
		TILE_SCRATCH_APART=$apart TILE_RACECHECK=1 expect 0 $TILE run kernels/attention.tile attention_fwd_kernel \
			--grid 2,2 --target $target --out-dir "$tmp/res$apart" 'q_ptr=randn((2, 100, 32), fp16)' \
			'k_ptr=randn((2, 100, 32), fp16)' 'v_ptr=randn((2, 100, 32), fp16)' 'o_ptr=zeros((2, 100, 32), fp16)' \
			seq_len=100 sm_scale=0.125 stride_qh=3200 stride_qm=32 stride_kh=3200 stride_kn=32 stride_vh=3200 \
			stride_vn=32 stride_oh=3200 stride_om=32 HEAD_DIM=32 BLOCK_M=64 BLOCK_N=64
	done
	cmp -s "$tmp/res0/o_ptr.npy" "$tmp/res1/o_ptr.npy" || fail "$target: TILE_SCRATCH_APART=1 changed attention's output"
	# and not all zeros: the kernel ran
	tail -c 12800 "$tmp/res0/o_ptr.npy" | od -An -tx1 | grep -q '[1-9a-f]' || fail "$target: output is all zeros"
done

# two pipelined dot loops one after the other: by default the second loop's
# buffers reuse the first's bytes (both start at 0); apart, they follow them
cat >"$tmp/two.py" <<'PY'
import triton
import triton.language as tl


@triton.jit
def two_loops(A, B, C, D, Out, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(A + rm[:, None] * K + (k0 + rk)[None, :], mask=(k0 + rk)[None, :] < K, other=0.0)
        b = tl.load(B + (k0 + rk)[:, None] * BN + rn[None, :], mask=(k0 + rk)[:, None] < K, other=0.0)
        acc += tl.dot(a, b)
    acc2 = tl.zeros((BM, BN), tl.float32)
    for k0 in range(0, K, BK):
        c = tl.load(C + rm[:, None] * K + (k0 + rk)[None, :], mask=(k0 + rk)[None, :] < K, other=0.0)
        d = tl.load(D + (k0 + rk)[:, None] * BN + rn[None, :], mask=(k0 + rk)[:, None] < K, other=0.0)
        acc2 += tl.dot(c, d)
    tl.store(Out + rm[:, None] * BN + rn[None, :], acc - acc2)
PY
sig="*fp16:16,*fp16:16,*fp16:16,*fp16:16,*fp32:16,i32,64,32,32"
expect 0 $TILE compile "$tmp/two.py" two_loops --signature "$sig" --target sm_90a --emit layout
has "$tmp/out" "buf2: <64x32xfp16> x 3 slots of 4096 bytes at 0,"
TILE_SCRATCH_APART=1 expect 0 $TILE compile "$tmp/two.py" two_loops --signature "$sig" --target sm_90a --emit layout
has "$tmp/out" "buf2: <64x32xfp16> x 3 slots of 4096 bytes at 18432,"
# K = 100: a masked tail; every output is 100 * 2 - 100 * 3 = -100 (0xc2c80000)
f32_pattern 2048 '\000\000\310\302' >"$tmp/want.bin"
for apart in 0 1; do
	rm -rf "$tmp/two$apart"
	TILE_SCRATCH_APART=$apart TILE_RACECHECK=1 expect 0 $TILE run "$tmp/two.py" two_loops --grid 1 --target cuda-emu \
		--out-dir "$tmp/two$apart" 'A=ones((64, 100), fp16)' 'B=full((100, 32), 2, fp16)' \
		'C=full((64, 100), 3, fp16)' 'D=ones((100, 32), fp16)' 'Out=zeros((64, 32))' K=100 BM=64 BN=32 BK=32
	tail -c 8192 "$tmp/two$apart/Out.npy" | cmp -s - "$tmp/want.bin" || fail "two loops (apart=$apart): Out is not -100"
done

finish

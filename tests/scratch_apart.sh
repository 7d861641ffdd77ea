#!/bin/sh
# scratch_apart.sh: TILE_SCRATCH_APART=1 (a debug aid) places every
# shared-memory scratch phase after the buffers (codegen/lower.c,
# lw_scratch_base) instead of over buffers it takes to be dead. A run whose
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

finish

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
finish

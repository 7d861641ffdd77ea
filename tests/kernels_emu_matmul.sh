#!/bin/sh
# Kernels of kernels/ on the CPU running GPU-shaped layouts (cuda-emu: 32-lane
# warps, mma.sync/ldmatrix emulated lane by lane), against the C references in
# tests/unit/test_kernels.c. Groups: matmul, matmul_block_ptr and matmul_descriptor (fp32 and fp16),
# matmul_w8 (int8 weights: its int8 load is pipelined as a value load), attention
# (with paged_attention: K/V addressed through indices loaded in the loop).
# Each at num_stages 1 (no pipelining) to 4 (cp.async multi-buffering), and at 3
# without the operand prefetch (TILE_MMA_PREFETCH=0: the program the GPU keeps when
# ptxas spills with it, driver/compile.c), all under test_kernels' race checker.
set -u
[ -x build/tests/test_kernels ] || { echo "skip: build/tests/test_kernels not built"; exit 77; }
for group in "matmul fp32" "matmul fp16" "matmul_block_ptr fp32" "matmul_block_ptr fp16" \
	"matmul_descriptor fp32" "matmul_descriptor fp16" "matmul_w8" "attention"; do
	TILE_TEST_TARGETS=cuda-emu TILE_TEST_NUM_STAGES=${TILE_TEST_NUM_STAGES:-1,2,3,4} TILE_TEST_ONLY="$group" build/tests/test_kernels || exit 1
done
for group in "matmul fp16" "attention"; do
	TILE_MMA_PREFETCH=0 TILE_TEST_TARGETS=cuda-emu TILE_TEST_NUM_STAGES=3 TILE_TEST_ONLY="$group" build/tests/test_kernels || exit 1
done

#!/bin/sh
# pipeline_value_loads.sh: software pipelining (src/layout/pipeline.c) also
# multi-buffers a load whose value reaches a dot through other ops (here the
# int8 weights of kernels/matmul_w8.tile, cast and scaled before the dot), as
# Triton's pipeliner does walking back from the dot; it is read back in its
# own layout where it was loaded, and its conversion to the dot's layout
# stays. It never costs the operand loads a stage: where both do not fit, the
# value load stays a plain load. Results: test_kernels (matmul_w8) on cpu and
# cuda-emu, num_stages 1-4 (kernels_emu_matmul.sh).
. "$(dirname "$0")/cli_lib.sh"

sig="*fp16:16,*i8:16,*fp16:16,*fp32:16,i32,i32:16,i32:16,i32:16,i32:1,i32:16,i32:1,i32:16,i32:1"

# 128x128x64, 3 stages: A (an operand load) and B (a value load) both buffered
expect 0 $TILE compile kernels/matmul_w8.tile matmul_w8_kernel --signature "$sig,128,128,64" \
	--target sm_80 --num-stages 3 --emit layout
has "$tmp/out" "buf0: <128x64xfp16> x 3 slots"
has "$tmp/out" "buf1: <64x128xi8> x 3 slots"
# B's read: in the load's own layout (16 consecutive int8 per thread), then converted
grep -F "local_load" "$tmp/out" | grep -F "{buf=1} : <64x128xi8>" |
	grep -qF "register=[[0, 1], [0, 2], [0, 4], [0, 8]," || fail "int8 tile not read in its load's layout"
awk '/ = for /{inside=1} inside' "$tmp/out" | grep -q " = load .*<64x128xi8>" &&
	fail "the int8 load is still a plain load in the loop"
awk '/ = for /{inside=1} inside' "$tmp/out" | grep -q "convert_layout .*<64x128xi8>" ||
	fail "the int8 tile's conversion to the dot's layout is gone"

# TILE_PIPELINE_VALUE_LOADS=0 (for measuring): only the operand load is buffered
expect 0 env TILE_PIPELINE_VALUE_LOADS=0 $TILE compile kernels/matmul_w8.tile matmul_w8_kernel \
	--signature "$sig,128,128,64" --target sm_80 --num-stages 3 --emit layout
has "$tmp/out" "buf0: <128x64xfp16> x 3 slots"
grep -qF "buf1:" "$tmp/out" && fail "TILE_PIPELINE_VALUE_LOADS=0 still buffered the value load"

# 256x128x64 over 8 warps, 4 stages: A alone fills sm_80's 163 KiB with 4 x 32 KiB;
# B beside it would cost A a stage, so B stays a plain load
expect 0 $TILE compile kernels/matmul_w8.tile matmul_w8_kernel --signature "$sig,256,128,64" \
	--target sm_80 --num-warps 8 --num-stages 4 --emit layout
has "$tmp/out" "buf0: <256x64xfp16> x 4 slots"
grep -qF "buf1:" "$tmp/out" && fail "the value load took shared memory from the operand load"

# 16x16x16: 2 int8 per thread, under cp.async's 4 bytes: not buffered
expect 0 $TILE compile kernels/matmul_w8.tile matmul_w8_kernel --signature "$sig,16,16,16" \
	--target sm_80 --num-stages 3 --emit layout
grep -qF "buf1:" "$tmp/out" && fail "a 2-byte value load was buffered"
has "$tmp/out" "buf0: <16x16xfp16> x 3 slots"
finish

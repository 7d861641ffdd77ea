#!/bin/sh
# Kernels of kernels/ on the CPU running GPU-shaped layouts (cuda-emu: 32-lane
# warps, mma.sync/ldmatrix emulated lane by lane), against the C references in
# tests/unit/test_kernels.c. Groups: rms_norm
set -u
[ -x build/tests/test_kernels ] || { echo "skip: build/tests/test_kernels not built"; exit 77; }
for group in "rms_norm" ; do
	TILE_TEST_TARGETS=cuda-emu TILE_TEST_ONLY="$group" build/tests/test_kernels || exit 1
done

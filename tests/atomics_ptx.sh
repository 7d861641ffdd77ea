#!/bin/sh
# Atomic adds from source to PTX (bench/gpu/accumulate.tile, a split
# reduction): consecutive elements go in one instruction as Triton lowers
# them: f16 pairs as f16x2 everywhere, Hopper's atom.global.add vectors of
# f32 and of f16/bf16 pairs; other cases one element an instruction.
set -u
tile=build/tile
[ -x "$tile" ] || { echo "skip: build/tile not built"; exit 77; }
if $tile --version 2>&1 | grep -q "nvrtc: not found"; then
	echo "skip: no libnvrtc"
	exit 77
fi
fail=0
# check ARCH DTYPE EXPECTED [UNEXPECTED]
check() {
	ptx=$($tile compile bench/gpu/accumulate.tile accumulate_kernel --target "$1" --emit ptx \
		--signature "*$2:16,*$2:16,i32:16,i32,1024" 2>&1) || { echo "FAIL: $1 $2: $ptx"; fail=1; return; }
	if ! printf '%s\n' "$ptx" | grep -q -- "$3"; then
		echo "FAIL: $1 $2: no '$3' in the PTX:"
		printf '%s\n' "$ptx" | grep atom
		fail=1
	fi
	if [ -n "${4:-}" ] && printf '%s\n' "$ptx" | grep -q -- "$4"; then
		echo "FAIL: $1 $2: '$4' in the PTX"
		fail=1
	fi
}
check sm_80 fp16 "atom.acq_rel.gpu.global.add.noftz.f16x2" "cas"
check sm_80 fp32 "atom.acq_rel.gpu.global.add.f32" "add.v"
check sm_90a fp32 "atom.acq_rel.gpu.global.add.v4.f32"
check sm_90a fp16 "atom.acq_rel.gpu.global.add.noftz.v4.f16x2"
check sm_90a bf16 "atom.acq_rel.gpu.global.add.noftz.v4.bf16x2"
# a row length not known to be a multiple of 16: masks per element, no groups
ptx=$($tile compile bench/gpu/accumulate.tile accumulate_kernel --target sm_90a --emit ptx \
	--signature "*fp32:16,*fp32:16,i32,i32,1024" 2>&1)
if printf '%s\n' "$ptx" | grep -q "add.v"; then
	echo "FAIL: sm_90a fp32 with an unaligned N grouped its atomics"
	fail=1
fi
[ $fail = 0 ] && echo "ok: grouped atomic adds on sm_80 and sm_90a"
exit $fail

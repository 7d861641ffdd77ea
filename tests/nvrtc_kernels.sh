#!/bin/sh
# Every kernel in kernels/ compiles through libnvrtc to a cubin for sm_80 and
# sm_90a (issue: "NVIDIA backend", tests without a GPU). Skipped, visibly, when
# libnvrtc cannot be loaded.
set -u
tile=build/tile
[ -x "$tile" ] || { echo "skip: build/tile not built"; exit 77; }
if $tile --version 2>&1 | grep -q "nvrtc: not found"; then
	echo "skip: no libnvrtc"
	exit 77
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0
# file kernel signature (one specialization per kernel, with fp16 where it has one)
while read -r file kernel sig; do
	[ -n "$file" ] || continue
	for arch in sm_80 sm_90a; do
		cubin="$out/$kernel.$arch.cubin"
		if ! $tile compile "kernels/$file" "$kernel" --signature "$sig" --target "$arch" \
			--emit cubin -o "$cubin" >"$out/log" 2>&1; then
			echo "FAIL: $file $kernel for $arch:"
			cat "$out/log"
			fail=1
			continue
		fi
		magic=$(od -An -c -N4 "$cubin" | tr -d ' ')
		if [ "$magic" != "177ELF" ]; then
			echo "FAIL: $file $kernel for $arch: output is not an ELF cubin ($magic)"
			fail=1
		fi
	done
done <<'LIST'
vector_add.tile add_kernel *fp16:16,*fp16:16,*fp16:16,i32,1024
softmax.tile softmax_kernel *fp32:16,*fp32:16,i32,i32,i32,i32,1024
layer_norm.tile layer_norm_fwd *fp32:16,*fp32:16,*fp32:16,*fp32:16,*fp32:16,*fp32:16,i32,i32,fp32,1024
rms_norm.tile rms_norm_kernel *bf16:16,*bf16:16,*bf16:16,i32,i32,fp32,1024
matmul.tile matmul_kernel *fp16:16,*fp16:16,*fp16:16,i32,i32,i32,i32:16,i32:1,i32:16,i32:1,i32:16,i32:1,128,128,32,8,'leaky_relu'
matmul_block_ptr.tile matmul_block_ptr_kernel *bf16:16,*bf16:16,*fp32:16,i32,i32,i32,i32,i32:1,i32,i32:1,i32,i32:1,64,64,32
matmul_descriptor.tile matmul_descriptor_kernel *fp16:16,*fp16:16,*fp32:16,i32,i32:16,i32:16,i32:16,i32:16,i32:16,64,64,32
matmul_w8.tile matmul_w8_kernel *fp16:16,*i8:16,*fp16:16,*fp32:16,i32,i32:16,i32:16,i32:16,i32:1,i32:16,i32:1,i32:16,i32:1,128,128,64
attention.tile attention_fwd_kernel *fp16:16,*fp16:16,*fp16:16,*fp16:16,i32,fp32,i32:16,i32:16,i32:16,i32:16,i32:16,i32:16,i32:16,i32:16,64,64,32
paged_attention.tile paged_attention_kernel *fp16:16,*fp16:16,*fp16:16,*i32:16,*fp16:16,i32,fp32,i32:16,i32:16,i32:16,i32:16,i32:16,i32:16,i32:16,i32:16,64,64,32
dropout.tile dropout_kernel *fp32:16,*fp32:16,i32,fp32,i32,1024
row_reduce.tile row_reduce_kernel *fp32:16,*fp32:16,*fp32:16,*i32:16,i32,i32,i32,4,256
cumsum.tile cumsum_kernel *i32:16,*i32:16,i32,i32,1024
swiglu.tile swiglu_kernel *bf16:16,*bf16:16,*bf16:16,i32,1024
LIST
# Software pipelining on sm_80: the matmul's loads become cp.async copies
# (K divisible by 16 makes A's mask constant over 8 fp16: 16-byte copies).
sig="*fp16:16,*fp16:16,*fp16:16,i32,i32,i32:16,i32:16,i32:1,i32:16,i32:1,i32:16,i32:1,128,128,32,8,''"
if ! $tile compile kernels/matmul.tile matmul_kernel --signature "$sig" --target sm_80 \
	--num-stages 3 --emit ptx -o "$out/matmul.ptx" >"$out/log" 2>&1; then
	echo "FAIL: matmul.tile to PTX with num_stages=3:"
	cat "$out/log"
	fail=1
elif ! grep -q "cp\.async\.c[ag]\.shared\.global" "$out/matmul.ptx" ||
	! grep -q "cp\.async\.wait_group 1" "$out/matmul.ptx"; then
	echo "FAIL: the sm_80 PTX of matmul.tile (num_stages=3) has no cp.async copies or wait_group 1"
	fail=1
fi
# fp8 tl.dot (e4m3 x e5m2, fp32 accumulator): mma.sync m16n8k32 on sm_90a (PTX 8.4,
# sm_89+), the FMA path on sm_80; both to cubins.
cat >"$out/fp8.py" <<'EOF'
import triton
import triton.language as tl
@triton.jit
def fp8_dot(A, B, C, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(A + rm[:, None] * K + (k0 + rk)[None, :])
        b = tl.load(B + (k0 + rk)[:, None] * BN + rn[None, :])
        acc += tl.dot(a, b)
    tl.store(C + rm[:, None] * BN + rn[None, :], acc)
EOF
sig="*fp8e4nv:16,*fp8e5:16,*fp32:16,i32:16,64,64,128"
for arch in sm_80 sm_90a; do
	if ! $tile compile "$out/fp8.py" fp8_dot --signature "$sig" --target "$arch" \
		--emit cubin -o "$out/fp8.$arch.cubin" >"$out/log" 2>&1; then
		echo "FAIL: fp8 tl.dot for $arch:"
		cat "$out/log"
		fail=1
	fi
done
if ! $tile compile "$out/fp8.py" fp8_dot --signature "$sig" --target sm_90a --emit ptx \
	-o "$out/fp8.ptx" >"$out/log" 2>&1 ||
	! grep -q "mma\.sync\.aligned\.m16n8k32\.row\.col\.f32\.e4m3\.e5m2\.f32" "$out/fp8.ptx"; then
	echo "FAIL: the sm_90a PTX of an fp8 tl.dot has no mma.sync m16n8k32 .e4m3.e5m2"
	fail=1
fi
exit $fail

#!/bin/sh
# Layout decisions that only show as speed on a GPU, checked on the layout
# dump (no GPU or nvrtc needed):
# - flash attention's loop carries m_i and l_i in the slice of the dot's
#   layout, so its body has no layout conversion (each would be a trip
#   through shared memory and a barrier per iteration);
# - the matmul tutorial's B tile, indexed with (off + arange) % N, is copied
#   16 bytes at a time (axis analysis keeps the run through % N);
# - a W8A16 matmul's scale row, broadcast inside the loop (`scale[None, :]`)
#   and converted to the dequantized tile's layout, is converted once before
#   the loop (the broadcast's ops move out with it, as Triton's LICM does).
set -u
tile=build/tile
[ -x "$tile" ] || { echo "skip: build/tile not built"; exit 77; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0

# the ops between a `for` and its closing brace at the same indentation
loop_body() {
	awk '/= for / && !inloop { inloop = 1; match($0, /^ */); ind = RLENGTH; next }
	     inloop { match($0, /^ */); if (RLENGTH == ind && $0 ~ /^ *}/) exit; print }' "$1"
}

att_sig="*fp16:16,*fp16:16,*fp16:16,*fp16:16,i32:16,fp32,i32:16,i32:16,i32:16,i32:16,i32:16,i32:16,i32:16,i32:16"
for cfg in "sm_80 64,128,64 4" "sm_90a 64,64,64 4" "sm_90a 64,64,128 4" "sm_90a 128,128,64 8"; do
	set -- $cfg
	if ! $tile compile kernels/attention.tile attention_fwd_kernel --signature "$att_sig,$2" \
		--num-warps "$3" --target "$1" --emit layout -o "$out/att.txt" >"$out/log" 2>&1; then
		echo "FAIL: attention $2 on $1:"; cat "$out/log"; fail=1; continue
	fi
	n=$(loop_body "$out/att.txt" | grep -c "convert_layout")
	if [ "$n" != 0 ]; then
		echo "FAIL: attention (HEAD_DIM,BLOCK_M,BLOCK_N = $2, $3 warps, $1): $n layout conversions in the loop"
		loop_body "$out/att.txt" | grep "convert_layout" | cut -c1-160
		fail=1
	fi
done

mm_sig="*fp16:16,*fp16:16,*fp16:16,i32:16,i32:16,i32:16,i32:16,1,i32:16,1,i32:16,1,128,256,64,8,''"
if ! $tile compile kernels/matmul.tile matmul_kernel --signature "$mm_sig" --num-warps 8 \
	--num-stages 3 --target sm_90a --emit layout -o "$out/mm.txt" >"$out/log" 2>&1; then
	echo "FAIL: matmul 128x256x64:"; cat "$out/log"; fail=1
else
	n=$(loop_body "$out/mm.txt" | grep -c "async_copy .*vec=8")
	if [ "$n" != 2 ]; then
		echo "FAIL: matmul 128x256x64: $n of the 2 tile copies in the loop are 16-byte cp.async"
		loop_body "$out/mm.txt" | grep -E "async_copy|= load" | cut -c1-120
		fail=1
	fi
fi
w8_sig="*fp16:16,*i8:16,*fp16:16,*fp32:16,i32,i32:16,i32:16,i32:16,i32:1,i32:16,i32:1,i32:16,i32:1,128,128,64"
if ! $tile compile kernels/matmul_w8.tile matmul_w8_kernel --signature "$w8_sig" --num-stages 3 \
	--target sm_80 --emit layout -o "$out/w8.txt" >"$out/log" 2>&1; then
	echo "FAIL: matmul_w8 128x128x64:"; cat "$out/log"; fail=1
else
	n=$(loop_body "$out/w8.txt" | grep -c "convert_layout .*<1x128xfp16>")
	if [ "$n" != 0 ]; then
		echo "FAIL: matmul_w8 128x128x64: the scale row is converted in the loop ($n)"
		fail=1
	fi
	grep -q "convert_layout .*<1x128xfp16>" "$out/w8.txt" ||
		{ echo "FAIL: matmul_w8 128x128x64: no conversion of the scale row before the loop"; fail=1; }
fi
[ $fail = 0 ] && echo "ok"
exit $fail

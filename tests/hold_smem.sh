#!/bin/sh
# hold_smem.sh: a big loop-invariant dot operand held in a shared buffer
# (src/layout/hold_smem.c) stays intact from its write in front of the loop
# to the loop's end. A paged decode step (q: 16 x 128 fp16 on 2 warps, 32
# registers a thread, held): the pipeline's prologue, between the held
# buffer's write and the loop, converts the first K block's token offsets
# through shared memory; that scratch went to offset 0, over the held q, and
# the cuda-emu (GPU) program returned wrong sums with no race reported.
. "$(dirname "$0")/cli_lib.sh"

cat >"$tmp/decode.py" <<'PY'
import triton
import triton.language as tl


@triton.jit
def held_decode(Q, K, V, Table, Lens, Out, stride_table, stride_kv, group, H: tl.constexpr, D: tl.constexpr,
                BLOCK: tl.constexpr, BN: tl.constexpr):
    b = tl.program_id(0)
    kvh = tl.program_id(1)
    blk = tl.program_id(2)
    heads = kvh * group + tl.arange(0, H)
    offs_d = tl.arange(0, D)
    seq_len = tl.load(Lens + b)
    lo = blk * BLOCK
    hi = tl.minimum(seq_len, lo + BLOCK)
    nblocks = tl.where(hi - lo <= 0, 0, hi - lo + BN - 1) // BN
    offs_n = lo + tl.arange(0, BN)
    hmask = heads[:, None] < (kvh + 1) * group
    q = tl.load(Q + b * H * D + heads[:, None] * D + offs_d[None, :], mask=hmask, other=0.0)
    acc = tl.zeros([H, D], tl.float32)
    for j in range(0, nblocks, 1):
        offs = j * BN + offs_n
        loc = tl.load(Table + stride_table * b + offs, mask=offs < hi, other=0)
        off_k = loc[None, :] * stride_kv + kvh * D + offs_d[:, None]
        k = tl.load(K + off_k, mask=offs[None, :] < hi, other=0.0)
        s = tl.dot(q, k)
        s = tl.where(offs[None, :] < hi, s, 0.0)
        v = tl.load(V + loc[:, None] * stride_kv + kvh * D + offs_d[None, :], mask=offs[:, None] < hi, other=0.0)
        acc += tl.dot(s.to(v.dtype), v)
    tl.store(Out + b * H * D + heads[:, None] * D + offs_d[None, :], acc, mask=hmask)
PY

sig="*fp16:16,*fp16:16,*fp16:16,*i32:16,*i32:16,*fp32:16,i32,i32:16,i32,16,128,64,16"
expect 0 $TILE compile "$tmp/decode.py" held_decode --signature "$sig" --num-warps 2 --num-stages 2 \
	--target sm_90a --emit layout
has "$tmp/out" "held across a loop"
# the prologue's conversion sits between the held write and the loop
awk '/local_store/{on=1} on && /convert_layout/{print "prologue convert"; exit} / = for /{exit}' "$tmp/out" >"$tmp/order"
has "$tmp/order" "prologue convert"

# all ones: each score is 128, each output 128 x the valid tokens (50 in
# batch 0, 64 in batch 1) for the 4 heads of each of the 2 KV heads; the
# other 8 rows of each batch are masked and stay 0
{
	f32_pattern 1024 '\000\000\310\105' # 6400.0
	f32_pattern 1024 '\000\000\000\000'
	f32_pattern 1024 '\000\000\000\106' # 8192.0
	f32_pattern 1024 '\000\000\000\000'
} >"$tmp/want.bin"
for target in cuda-emu cpu; do
	rm -rf "$tmp/res"
	TILE_RACECHECK=1 expect 0 $TILE run "$tmp/decode.py" held_decode --grid 2,2,1 --num-warps 2 --num-stages 2 \
		--target $target --out-dir "$tmp/res" 'Q=ones((2, 16, 128), fp16)' 'K=ones((128, 256), fp16)' \
		'V=ones((128, 256), fp16)' 'Table=arange(128, i32)' 'Lens=[50, 64]' 'Out=zeros((2, 16, 128), fp32)' \
		stride_table=64 stride_kv=256 group=4 H=16 D=128 BLOCK=64 BN=16
	tail -c 16384 "$tmp/res/Out.npy" | cmp -s - "$tmp/want.bin" || fail "$target: Out is not 6400/8192 in the unmasked rows"
done

finish

#!/bin/sh
# pipeline_no_dot.sh: a loop with no tl.dot whose num_stages the source names
# (`tl.range(..., num_stages=3)`) has its loads software-pipelined as value
# loads (src/layout/pipeline.c), as Triton's pipeliner does for such loops;
# a load's `other` other than 0 is selected in after the read (cp.async
# zero-fills); a plain `range` is left alone, and so is a load through a parameter the
# body also writes through (a later iteration's prefetch could read what an
# earlier one has not yet written).
. "$(dirname "$0")/cli_lib.sh"

cat >"$tmp/nd.tile" <<'K'
import triton
import triton.language as tl

@triton.jit
def row_sum(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in tl.range(0, n, BLOCK, num_stages=3):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * n + offs, mask=offs < n, other=0.0)
    tl.store(y_ptr + row, tl.sum(acc))

@triton.jit
def scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    for start in tl.range(0, n, BLOCK, num_stages=3):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
        tl.store(y_ptr + offs, x * 2, mask=offs < n)

@triton.jit
def in_place(x_ptr, n, BLOCK: tl.constexpr):
    for start in tl.range(0, n, BLOCK, num_stages=3):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
        tl.store(x_ptr + offs, x * 2, mask=offs < n)

@triton.jit
def row_max(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.full((BLOCK,), float('-inf'), tl.float32)
    for start in tl.range(0, n, BLOCK, num_stages=3):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n + offs, mask=offs < n, other=float('-inf'))
        acc = tl.maximum(acc, x)
    tl.store(y_ptr + row, tl.max(acc))

@triton.jit
def gather_sum(x_ptr, ind_ptr, y_ptr, n, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), tl.float32)
    for s in tl.range(0, n, BLOCK, num_stages=3):
        offs = s + tl.arange(0, BLOCK)
        idx = tl.load(ind_ptr + offs, mask=offs < n, other=0)
        acc += tl.load(x_ptr + idx, mask=offs < n, other=0.0)
    tl.store(y_ptr + tl.arange(0, BLOCK), acc)

@triton.jit
def plain(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(y_ptr + tl.arange(0, BLOCK), acc)
K
sig="*fp32:16,*fp32:16,i32,256"
# layout KERNEL SIG [ENV...]: the kernel's --emit layout dump in $tmp/out
layout() {
	k=$1 s=$2
	shift 2
	expect 0 env "$@" $TILE compile "$tmp/nd.tile" "$k" --signature "$s" --target sm_80 --emit layout
}
inside() { awk '/^  (%.* = )?for %/{inside=1} inside' "$tmp/out"; }

for k in row_sum scale row_max; do
	layout $k "$sig"
	has "$tmp/out" "buf0: <256xfp32> x 3 slots"
	inside | grep -q " = load " && fail "$k: a plain load is left in the loop"
done
# the index load is carried, not buffered beside the gather it addresses
# (buffered, the copies' addresses read its slot: an internal error)
layout gather_sum "*fp32:16,*i32:16,*fp32:16,i32,128"
has "$tmp/out" "buf0: <128xfp32> x 3 slots"
grep -qF "buf1:" "$tmp/out" && fail "gather_sum: the index load was buffered too"
layout plain "$sig"
grep -qF "buf0:" "$tmp/out" && fail "plain: a loop over range() was pipelined"
layout in_place "*fp32:16,i32,256"
grep -qF "buf0:" "$tmp/out" && fail "in_place: a load of what the loop stores was pipelined"
layout row_sum "$sig" TILE_PIPELINE_VALUE_LOADS=0
grep -qF "buf0:" "$tmp/out" && fail "TILE_PIPELINE_VALUE_LOADS=0: row_sum still pipelined"

# results: 1000 elements in 4 blocks of 256 (the last one masked)
for tgt in cuda-emu cpu; do
	expect 0 env TILE_RACECHECK=1 $TILE run "$tmp/nd.tile" scale --target $tgt --grid 1 --print \
		"x_ptr=arange(1000, fp32)" "y_ptr=zeros(1000)" n=1000 BLOCK=256
	sed -n '/^y_ptr/,$p' "$tmp/out" | sed 1d | tr -d '[] \n' | tr ',' '\n' | awk -v tgt=$tgt '
		$1 + 0 != 2 * (NR - 1) { bad++ }
		END { if (NR != 1000 || bad) print "FAIL: scale on " tgt ": " bad + 0 " wrong of " NR }' |
		grep FAIL && nfail=$((nfail + 1))
	expect 0 env TILE_RACECHECK=1 $TILE run "$tmp/nd.tile" row_sum --target $tgt --grid 3 --print \
		"x_ptr=ones(3000)" "y_ptr=zeros(3)" n=1000 BLOCK=256
	grep -A1 "^y_ptr" "$tmp/out" | tail -n 1 | grep -qF "[1000., 1000., 1000.]" ||
		fail "row_sum on $tgt: $(grep -A1 '^y_ptr' "$tmp/out" | tail -n 1)"
	# all -2.5: a masked-off element read as the copy's 0 would be the maximum
	expect 0 env TILE_RACECHECK=1 $TILE run "$tmp/nd.tile" row_max --target $tgt --grid 2 --print \
		"x_ptr=full(2000, -2.5)" "y_ptr=zeros(2)" n=1000 BLOCK=256
	grep -A1 "^y_ptr" "$tmp/out" | tail -n 1 | grep -qF "[-2.5, -2.5]" ||
		fail "row_max on $tgt: $(grep -A1 '^y_ptr' "$tmp/out" | tail -n 1)"
	# y[j] = x[j] + x[128 + j] + x[256 + j] (the last where < 300), x = indices = arange
	expect 0 env TILE_RACECHECK=1 $TILE run "$tmp/nd.tile" gather_sum --target $tgt --grid 1 --print \
		"x_ptr=arange(300, fp32)" "ind_ptr=arange(300, i32)" "y_ptr=zeros(128)" n=300 BLOCK=128
	sed -n '/^y_ptr/,$p' "$tmp/out" | sed 1d | tr -d '[] \n' | tr ',' '\n' | awk -v tgt=$tgt '
		{ j = NR - 1; want = j < 44 ? 3 * j + 384 : 2 * j + 128; if ($1 + 0 != want) bad++ }
		END { if (NR != 128 || bad) print "FAIL: gather_sum on " tgt ": " bad + 0 " wrong of " NR }' |
		grep FAIL && nfail=$((nfail + 1))
done
finish

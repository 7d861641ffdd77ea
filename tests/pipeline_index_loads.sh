#!/bin/sh
# pipeline_index_loads.sh: a pipelined load whose address comes from another
# load of the loop (an index load: kv_indices, a page table, GPTQ's g_idx) is
# software-pipelined too (src/layout/pipeline.c): the index load is issued an
# iteration ahead of the copies it addresses and carried by the loop, masked
# off past the loop's end. Results against a C reference: test_kernels
# (paged_attention) on cpu and cuda-emu at num_stages 1-4
# (kernels_emu_matmul.sh, group "attention").
. "$(dirname "$0")/cli_lib.sh"

# inside the loop of a --emit layout dump
body() { awk '/ = for /{inside=1} inside' "$tmp/out"; }

sig="*fp16:16,*fp16:16,*fp16:16,*i32:16,*fp32:16,i32,fp32,i32:16,i32:16,i32:16,i32:16,i32:16,i32:16,i32:16,i32:16"
expect 0 $TILE compile kernels/paged_attention.tile paged_attention_kernel --signature "$sig,64,64,32" \
	--target sm_80 --num-stages 3 --emit layout
has "$tmp/out" "buf0: <32x64xfp16> x 3 slots"
has "$tmp/out" "buf1: <32x64xfp16> x 3 slots"
body | grep -q " = load .*xfp16>" && fail "paged K/V: a plain K or V load is left in the loop"
# the index loads (kv_indices in the two layouts K and V want) are issued after
# the iteration's copies, for a later iteration, and masked
n=$(body | awk '/async_commit/{c=1} / = load .*xi32>/{ if (!c) early++; else late++ } END {print early+0, late+0}')
[ "$n" = "0 2" ] || fail "paged K/V: index loads before/after the copies: $n (want 0 2)"
body | grep " = load .*xi32>" | grep -qv " = load %[0-9]*, %[0-9]*, %[0-9]* " &&
	fail "paged K/V: an index load in the loop is not masked"

# a page table read as a scalar (vLLM's block_tables): `start_n // PAGE` holds
# a constant divisor, the load has no mask of its own
cat >"$tmp/bt.tile" <<'K'
import triton
import triton.language as tl

@triton.jit
def pages(x_ptr, w_ptr, table, out_ptr, n, PAGE: tl.constexpr, D: tl.constexpr):
    offs_p = tl.arange(0, PAGE)
    offs_d = tl.arange(0, D)
    x = tl.load(x_ptr + offs_d[:, None] * D + offs_d[None, :])
    acc = tl.zeros((D, PAGE), tl.float32)
    for start in tl.range(0, n, PAGE, num_stages=3):
        page = tl.load(table + start // PAGE)
        w = tl.load(w_ptr + page * PAGE * D + offs_d[:, None] + offs_p[None, :] * D)
        acc += tl.dot(x, w)
    tl.store(out_ptr + offs_d[:, None] * PAGE + offs_p[None, :], acc)
K
bsig="*fp16:16,*fp16:16,*i32:16,*fp32:16,i32,16,16"
expect 0 $TILE compile "$tmp/bt.tile" pages --signature "$bsig" --target sm_80 --emit layout
has "$tmp/out" "buf0: <16x16xfp16> x 3 slots"
body | grep -q " = load .*xfp16>" && fail "page table: the page's load is left in the loop"
body | grep " = load .*: i32$" | grep -q " = load %[0-9]*, %[0-9]* " ||
	fail "page table: no masked scalar index load in the loop"
# 5 pages of 16x16 weights (page p holds p+1 on its diagonal), 3 read through
# the table [4, 3, 2]; x = identity: out = 5 + 4 + 3 on the diagonal, 0
# elsewhere. The prefetches past the loop's end, which would read table[3]
# and table[4], are masked off (above).
eye="[" w="["
for r in $(seq 0 15); do
	row="[" ; for c in $(seq 0 15); do [ $r = $c ] && row="$row 1," || row="$row 0,"; done
	eye="$eye$row],"
done
eye="$eye]"
for p in 0 1 2 3 4; do
	for r in $(seq 0 15); do
		row="[" ; for c in $(seq 0 15); do [ $r = $c ] && row="$row $((p + 1))," || row="$row 0,"; done
		w="$w$row],"
	done
done
w="$w]"
for tgt in cuda-emu cpu; do
	expect 0 env TILE_RACECHECK=1 $TILE run "$tmp/bt.tile" pages --target $tgt --grid 1 --print \
		"x_ptr=$eye:fp16" "w_ptr=$w:fp16" "table=[4, 3, 2]:i32" "out_ptr=zeros(256)" n=48 PAGE=16 D=16
	# the diagonal of out: pages 4, 3 and 2 hold 5, 4 and 3
	grep -A1 "^out_ptr" "$tmp/out" | tail -n 1 | tr -d '[] ' | tr ',' '\n' | awk -v tgt=$tgt '
		{ want = (NR - 1) % 17 == 0 ? 12 : 0; if ($1 + 0 != want) bad++ }
		END { if (NR != 256 || bad) print "FAIL: page table on " tgt ": " bad + 0 " wrong of " NR }' |
		grep FAIL && nfail=$((nfail + 1))
done
finish

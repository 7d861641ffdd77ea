#!/bin/sh
# pipeline_prefetch.sh: a pipelined dot loop reads its first k step's operands
# one iteration ahead (src/codegen/tp_prefetch.c): in the thread program the
# loop body starts with the mmas of that step, and ends with the wait, the
# barrier and the next iteration's ldmatrix ops; TILE_MMA_PREFETCH=0 keeps the
# wait and barrier at the top. Results: kernels_emu_matmul.sh (both ways here).
. "$(dirname "$0")/cli_lib.sh"

cat >"$tmp/mm.tile" <<'EOT'
import triton
import triton.language as tl


@triton.jit
def mm(a_ptr, b_ptr, c_ptr, K):
    rm = tl.arange(0, 16)
    rn = tl.arange(0, 16)
    rk = tl.arange(0, 32)
    a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * 16 + rn[None, :]
    acc = tl.zeros((16, 16), dtype=tl.float32)
    for k in tl.range(0, K, 32, num_stages=3):
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
        a_ptrs += 32
        b_ptrs += 32 * 16
    tl.store(c_ptr + rm[:, None] * 16 + rn[None, :], acc)
EOT
SIG='*fp16:16,*fp16:16,*fp32:16,i32:16'

# the loop body's ops, one name per line ("for" ... its "yield")
body() {
	awk '/ = for /{inside=1; next} inside && /yield/{print "yield"; exit}
	     inside {for (i = 1; i <= NF; i++) if ($i ~ /^(mma|ldmatrix|barrier|cp_async_wait|cp_async)$/) {print $i; break}}' "$1"
}

expect 0 $TILE compile "$tmp/mm.tile" mm --signature "$SIG" --target sm_80 --num-warps 1 --emit thread
body "$tmp/out" | uniq >"$tmp/on"
# the second k step's A operand is still read in the body, after the first's mmas
printf 'cp_async\nmma\nldmatrix\nmma\ncp_async_wait\nbarrier\nldmatrix\nyield\n' >"$tmp/want"
cmp -s "$tmp/on" "$tmp/want" || { fail "prefetched loop body"; sed 's/^/    /' "$tmp/on"; }
# before the loop: the first iteration's wait, barrier and ldmatrix ops
awk '/ = for /{exit} {print}' "$tmp/out" | grep -q "ldmatrix" || fail "no ldmatrix before the loop"

# 0, and the other ways to say off (=off kept the prefetch)
printf 'cp_async_wait\nbarrier\ncp_async\nldmatrix\nmma\nldmatrix\nmma\nldmatrix\nmma\nyield\n' >"$tmp/want"
for v in 0 false OFF No; do
	expect 0 env TILE_MMA_PREFETCH=$v $TILE compile "$tmp/mm.tile" mm --signature "$SIG" --target sm_80 \
		--num-warps 1 --emit thread
	body "$tmp/out" | uniq >"$tmp/off"
	cmp -s "$tmp/off" "$tmp/want" || { fail "loop body with TILE_MMA_PREFETCH=$v"; sed 's/^/    /' "$tmp/off"; }
done
# anything else leaves it on
expect 0 env TILE_MMA_PREFETCH=1 $TILE compile "$tmp/mm.tile" mm --signature "$SIG" --target sm_80 \
	--num-warps 1 --emit thread
body "$tmp/out" | uniq >"$tmp/on1"
cmp -s "$tmp/on1" "$tmp/on" || fail "TILE_MMA_PREFETCH=1 changed the loop body"

# where the prefetch makes ptxas spill, the program is lowered again without
# it and the one that spills less is kept: never more spills than without
if $TILE --version | grep -q "^nvrtc: [0-9]"; then
	msig="*fp16:16,*fp16:16,*fp16:16,i32,i32,i32,i32:16,i32:1,i32:16,i32:1,i32:16,i32:1,128,128,32,8,''"
	spills() { sed -n 's/.*registers, \([0-9]*\) bytes spilled.*/\1/p' "$tmp/out"; }
	expect 0 env TILE_MMA_PREFETCH=0 $TILE compile kernels/matmul.tile matmul_kernel --signature "$msig" \
		--target sm_90a
	off=$(spills)
	expect 0 $TILE compile kernels/matmul.tile matmul_kernel --signature "$msig" --target sm_90a
	on=$(spills)
	[ -n "$on" ] && [ -n "$off" ] && [ "$on" -le "$off" ] ||
		fail "spills with the prefetch ($on) above those without ($off)"
	# --emit cuda and --emit thread show the program the cubin was made from:
	# the one without the prefetch exactly when the cubins are the same
	expect 0 $TILE compile kernels/matmul.tile matmul_kernel --signature "$msig" --target sm_90a \
		--emit cubin -o "$tmp/on.cubin"
	expect 0 env TILE_MMA_PREFETCH=0 $TILE compile kernels/matmul.tile matmul_kernel --signature "$msig" \
		--target sm_90a --emit cubin -o "$tmp/off.cubin"
	cmp -s "$tmp/on.cubin" "$tmp/off.cubin" && fell_back=1 || fell_back=0
	for form in cuda thread; do
		expect 0 $TILE compile kernels/matmul.tile matmul_kernel --signature "$msig" --target sm_90a --emit $form
		mv "$tmp/out" "$tmp/on.$form"
		expect 0 env TILE_MMA_PREFETCH=0 $TILE compile kernels/matmul.tile matmul_kernel --signature "$msig" \
			--target sm_90a --emit $form
		cmp -s "$tmp/on.$form" "$tmp/out" && same=1 || same=0
		[ $same = $fell_back ] || fail "--emit $form does not show the program of the cubin (fell back: $fell_back)"
	done
fi

# both ways compute the same product on the CPU running the GPU's program
[ -x build/tests/test_kernels ] || { echo "skip: build/tests/test_kernels is not built"; exit 77; }
for pf in 1 0; do
	TILE_MMA_PREFETCH=$pf TILE_TEST_TARGETS=cuda-emu TILE_TEST_NUM_STAGES=3 TILE_TEST_ONLY="matmul fp16" \
		build/tests/test_kernels >"$tmp/k.out" 2>&1 || { fail "matmul fp16, TILE_MMA_PREFETCH=$pf"; tail -n 5 "$tmp/k.out"; }
done
finish

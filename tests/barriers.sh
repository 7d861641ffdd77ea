#!/bin/sh
# barriers.sh: tp_drop_barriers (src/codegen/tp_barrier.c) removes a barrier
# lowering placed when another barrier comes before any shared-memory access
# on every path after it, and keeps tl.debug_barrier's.
# A dequantizing dot loop (int4 weights unpacked, scaled, converted to the B
# operand through shared memory): each iteration was wait + barrier, the
# copies, the conversion's write, barrier, its read, barrier, the mma. The
# last barrier orders nothing: the next shared-memory access is the next
# iteration's, after its own barrier. Two barriers an iteration remain, and
# the kernel runs race-free on cuda-emu (TILE_RACECHECK) with exact results.
# Scans across warps: one round of barriers per run of warp bits.
. "$(dirname "$0")/cli_lib.sh"

cat >"$tmp/w4.py" <<'PY'
import triton
import triton.language as tl


@triton.jit
def w4mm(A, B, S, C, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros([BM, BN], tl.float32)
    s = tl.load(S + rn)
    for k in range(0, K, BK):
        a = tl.load(A + rm[:, None] * K + (k + rk)[None, :])
        q = tl.load(B + ((k + rk) // 8)[:, None] * N + rn[None, :])
        w = ((q >> (((k + rk) % 8) * 4)[:, None]) & 0xF).to(tl.float16) - 8.0
        acc += tl.dot(a, (w * s[None, :]).to(tl.float16))
    tl.store(C + rm[:, None] * N + rn[None, :], acc)


@triton.jit
def user_barriers(X):
    x = tl.load(X + tl.arange(0, 32))
    tl.debug_barrier()
    tl.debug_barrier()
    tl.store(X + tl.arange(0, 32), x + 1)
PY

sig="*fp16:16,*i32:16,*fp16:16,*fp32:16,i32:16,i32:16,i32:16,64,64,64"
expect 0 $TILE compile "$tmp/w4.py" w4mm --signature "$sig" --target sm_90a --num-stages 3 --emit thread
# the loop body: from its `for` to the first line that closes a block at its depth
awk '/ = for /{on=1} on{print} on && /^  }/{exit}' "$tmp/out" >"$tmp/loop"
n=$(grep -c '^ *barrier$' "$tmp/loop")
[ "$n" = 2 ] || fail "the dequantizing loop has $n barriers an iteration (expected 2)"
has "$tmp/loop" "cp_async_wait"

# exact: A is ones, every packed word 0x76543210 (nibbles 0..7, weights -8..-1),
# scales 1: each output is 16 * (0 + 1 + ... + 7 - 64) = -576
for target in cuda-emu cpu; do
	TILE_RACECHECK=1 expect 0 $TILE run "$tmp/w4.py" w4mm --grid 1,1 --target $target --num-stages 3 --print \
		'A=ones((64, 128), fp16)' 'B=full((16, 64), 0x76543210, i32)' 'S=ones(64, fp16)' \
		'C=zeros((64, 64), fp32)' M=64 N=64 K=128 BM=64 BN=64 BK=64
	has "$tmp/out" "C: fp32[64, 64]"
	vals=$(grep -A8 '^C:' "$tmp/out" | grep -v '^C:' | grep -o -- '-*[0-9][0-9.]*' | sort -u | tr '\n' ' ')
	[ "$vals" = "-576. " ] || fail "$target: C holds $vals(expected only -576.)"
done

# A scan whose axis 8 (16) warps split merges their totals in one round:
# each block's total is stored, one barrier, and every block folds the
# totals of the superblocks before its own (lower_scan.c, scan_warp_run),
# where one round per warp bit took two barriers each (5 left of 6 on 8
# warps). Results of a non-commutative combine (first minimum and its
# index), forward and reverse, race-free on cuda-emu and equal to numpy's.
cat >"$tmp/scan.py" <<'PY'
import triton
import triton.language as tl


@triton.jit
def _first_min(a, ai, b, bi):
    t = b < a
    return tl.where(t, b, a), tl.where(t, bi, ai)


@triton.jit
def scan_min(X, V, I, C, BLOCK: tl.constexpr, REV: tl.constexpr):
    o = tl.arange(0, BLOCK)
    x = tl.load(X + o)
    v, i = tl.associative_scan((x, o), 0, _first_min, reverse=REV)
    tl.store(V + o, v)
    tl.store(I + o, i)
    tl.store(C + o, tl.cumsum(x, 0, reverse=REV))
PY
for w in 8 16; do
	expect 0 $TILE compile "$tmp/scan.py" scan_min --signature "*i32:16,*i32:16,*i32:16,*i32:16,4096,False" \
		--num-warps $w --target sm_90a --emit thread
	n=$(grep -c '^ *barrier$' "$tmp/out")
	[ "$n" = 3 ] || fail "two scans over $w warps have $n barriers (expected 3: one each, one between)"
done
have_numpy=0
for py in python3 /usr/bin/python3; do
	"$py" -c "import numpy" 2>/dev/null && { have_numpy=1; break; }
done
if [ $have_numpy = 1 ]; then
	"$py" - "$tmp" <<'P' || fail "scan_min: could not write the inputs"
import sys, numpy as np
np.save(sys.argv[1] + "/sx.npy", np.random.default_rng(30).integers(-50, 50, 4096).astype(np.int32))
np.save(sys.argv[1] + "/sz.npy", np.zeros(4096, np.int32))
P
	for target in cpu cuda-emu; do
		for w in 4 8 16; do
			for rev in False True; do
				rm -rf "$tmp/res"
				TILE_RACECHECK=1 expect 0 $TILE run "$tmp/scan.py" scan_min --grid 1 --target $target \
					--num-warps $w --out-dir "$tmp/res" X=@"$tmp/sx.npy" V=@"$tmp/sz.npy" \
					I=@"$tmp/sz.npy" C=@"$tmp/sz.npy" BLOCK=4096 REV=$rev
				"$py" - "$tmp" $rev <<'P' || fail "scan_min: wrong results on $target, $w warps, reverse=$rev"
import sys, numpy as np
d, rev = sys.argv[1], sys.argv[2] == "True"
x = np.load(d + "/sx.npy").astype(np.int64)
order = np.arange(x.size)[::-1] if rev else np.arange(x.size)
v = np.empty_like(x); i = np.empty_like(x); c = np.empty_like(x)
best, at, s = None, None, 0
for k in order:
    if best is None or x[k] < best:
        best, at = x[k], k
    s += x[k]
    v[k], i[k], c[k] = best, at, s
ok = all(np.array_equal(np.load(d + "/res/%s.npy" % n), r) for n, r in (("V", v), ("I", i), ("C", c)))
sys.exit(0 if ok else 1)
P
			done
		done
	done
else
	echo "skip: no python3 with numpy: scan results not checked"
fi

# tl.debug_barrier orders global memory too: both stay, though no shared
# memory is touched
expect 0 $TILE compile "$tmp/w4.py" user_barriers --signature "*fp32:16" --target sm_90a --emit thread
n=$(grep -c '^ *barrier$' "$tmp/out")
[ "$n" = 2 ] || fail "user_barriers has $n barriers (expected tl.debug_barrier's 2)"

finish

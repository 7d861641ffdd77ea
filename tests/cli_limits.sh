#!/bin/sh
# cli_limits.sh: kernels that hit a compile-time limit fail with its error in
# bounded memory (an address-space limit of 800 MB, LLVM's mappings included),
# not with "out of memory" or a swapping machine.
. "$(dirname "$0")/cli_lib.sh"

if ldd "$TILE" 2>/dev/null | grep -q 'libasan'; then
	echo "skip: a sanitizer build reserves too much address space for ulimit -v"
	exit 77
fi

# limited FILE KERNEL SIG: compile under the limit; status 1 expected
limited() {
	(ulimit -v 800000 && exec $TILE compile "$1" "$2" --signature "$3" --target cpu -o /dev/null) \
		>"$tmp/out" 2>"$tmp/err"
	st=$?
	[ "$st" = 1 ] || fail "exit status $st (expected 1): $1"
}

# 524288 IR values from an unrolled store: each call's argument arrays used to
# stay in the arena (about 800 MB at the limit)
limited tests/golden/sema/err_too_big_unrolled.tile k '*fp32'
has "$tmp/err" "is too large: more than 524288 values"
# a range() rebuilt for every item of a comprehension
limited tests/golden/sema/err_range_work.tile k '*i32'
has "$tmp/err" "compile-time evaluation takes more than"
# a 1 MB string built 4000 times (4 GB): strings cost work by their length,
# as a concatenation did ("internal compiler error in memory: out of memory")
cat >"$tmp/strs.tile" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def k(Y):
    for i in tl.static_range(4000):
        u = "a".center(1000000 - i)
    tl.store(Y, 1)
EOF
limited "$tmp/strs.tile" k '*i32'
has "$tmp/err" "strs.tile:8:13: error: compile-time evaluation takes more than"

# str.replace of '' puts the new text before every character: 100k characters
# each given 100k was built whole before its length was checked (43 s, 9.8 GB)
cat >"$tmp/repl.tile" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def k(Y):
    u = ("x" * 100000).replace("", "y" * 100000)
    tl.store(Y, 1)
EOF
limited "$tmp/repl.tile" k '*i32'
has "$tmp/err" "repl.tile:7:14: error: 'str.replace' gives more than 1048576 characters"

# a tuple sharing its items (t = (t, t), 2^100 leaves) carried by a loop: its
# leaves were listed before the value limit was checked (17 s, then "internal
# compiler error in memory: out of memory"; 14 GB without a limit)
cat >"$tmp/shared.tile" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def k(Y):
    t = (tl.load(Y),)
    for i in tl.static_range(100):
        t = (t, t)
    for j in range(3):
        t = (t[0], t[1])
    tl.store(Y, 1)
EOF
limited "$tmp/shared.tile" k '*i32'
has "$tmp/err" "shared.tile:10:5: error: kernel 'k' is too large: more than 524288 values"

# a module with 100000 kernels: finding each one's last binding scanned every
# statement, so listing them was quadratic (minutes; now about a second)
awk 'BEGIN { print "import triton"; print "import triton.language as tl";
	for (i = 0; i < 100000; i++) printf "@triton.jit\ndef f%d(X):\n    tl.store(X, %d)\n", i, i }' \
	>"$tmp/many.py"
if command -v timeout >/dev/null 2>&1; then
	expect 0 timeout 30 $TILE compile "$tmp/many.py" f99999 --signature '*i32' --target cpu --emit tir
	has "$tmp/out" "store"
fi

# 3000 heuristics over 3000 parameters: each heuristic's args dict looked every
# parameter up in a list of bindings and was a new copy of them all (23 s and
# 5 GB; now a hash index and one shared dict, well under a second)
awk 'BEGIN { print "import triton"; print "import triton.language as tl"; n = 3000;
	print "@triton.heuristics({";
	for (i = 0; i < n; i++) printf "    \"H%d\": lambda args: args[\"B\"] + %d,\n", i, i;
	print "})"; print "@triton.jit"; printf "def k(X, B: tl.constexpr";
	for (i = 0; i < n; i++) printf ", H%d: tl.constexpr", i;
	print "):"; printf "    tl.store(X, H%d)\n", n - 1 }' >"$tmp/heurs.py"
if command -v timeout >/dev/null 2>&1; then
	(ulimit -v 800000 && exec timeout 30 $TILE compile "$tmp/heurs.py" k --signature '*i32,7' --target cpu \
		--emit tir) >"$tmp/out" 2>"$tmp/err" || fail "3000 heuristics: $(head -c 300 "$tmp/err")"
	has "$tmp/out" "3006"
fi

# 8000 `if n == i:` on one runtime value: LLVM's GVN propagates each equality
# to every use of n, quadratic in the branches (5000 took 45 s in GVN alone);
# past 256 such branches EarlyCSE runs in its place (a few seconds)
awk 'BEGIN { print "import triton"; print "import triton.language as tl"; print "@triton.jit";
	print "def k(X, n, B: tl.constexpr):"; print "    o = tl.arange(0, B)"; print "    v = tl.load(X + o)";
	for (i = 0; i < 8000; i++) printf "    if n == %d:\n        tl.store(X + o, v + %d)\n", i, i }' >"$tmp/eqifs.py"
if command -v timeout >/dev/null 2>&1; then
	expect 0 timeout 60 $TILE compile "$tmp/eqifs.py" k --signature '*fp32,i32,128' --target cpu -o /dev/null
fi

# tl.histogram of 256 values into 1024 bins: one 256 x 1024 one-hot tile unrolled
# into 1.7 MB of CUDA C, which nvrtc compiled for minutes and in GBs (aborted
# under this limit); the bins now go a chunk per loop iteration (about 60 KB)
cat >"$tmp/hist.tile" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, h_ptr, n):
    o = tl.arange(0, 256)
    x = tl.load(x_ptr + o, mask=o < n, other=0)
    tl.store(h_ptr + tl.arange(0, 1024), tl.histogram(x, 1024, mask=o < n))
EOF
expect 0 $TILE compile "$tmp/hist.tile" k --signature '*i32,*i32,i32' --target sm_90a --emit cuda
size=$(wc -c <"$tmp/out")
[ "$size" -lt 300000 ] || fail "histogram into 1024 bins: $size bytes of CUDA C (expected < 300000)"

# tl.sort of 4096 elements: each compare-and-swap step takes the partner with
# one xor over the pair (50k thread-program operations per thread with two
# masked sums, about 32k now; nvrtc's time grows faster than the size)
cat >"$tmp/sort.tile" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, y_ptr):
    o = tl.arange(0, 4096)
    tl.store(y_ptr + o, tl.sort(tl.load(x_ptr + o)))
EOF
expect 0 $TILE compile "$tmp/sort.tile" k --signature '*fp32,*fp32' --target sm_90a --emit thread
ops=$(wc -l <"$tmp/out")
[ "$ops" -lt 36000 ] || fail "tl.sort of 4096: $ops thread-program lines (expected < 36000)"

# tl.topk of 4096 -> 16: a whole sort then the first 16 (31.9k thread-program
# operations per thread); as Triton's bitonic top-k, rounds keep the larger of
# each pair k apart and halve the tile (about 10k)
cat >"$tmp/topk.tile" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, y_ptr):
    tl.store(y_ptr + tl.arange(0, 16), tl.topk(tl.load(x_ptr + tl.arange(0, 4096)), 16))
EOF
expect 0 $TILE compile "$tmp/topk.tile" k --signature '*fp32,*fp32' --target sm_90a --emit thread
ops=$(wc -l <"$tmp/out")
[ "$ops" -lt 14000 ] || fail "tl.topk of 4096 -> 16: $ops thread-program lines (expected < 14000)"

# tl.gather of 1024 indices from 2048 entries: its 2^21-element one-hot tile
# passed the tile limit ('exceeds the limit of 1048576', where Triton takes
# it); the source now goes a chunk per loop iteration (about 63 KB of CUDA C)
cat >"$tmp/gather.tile" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, i_ptr, y_ptr):
    src = tl.load(x_ptr + tl.arange(0, 2048))
    o = tl.arange(0, 1024)
    tl.store(y_ptr + o, tl.gather(src, tl.load(i_ptr + o), 0))
EOF
expect 0 $TILE compile "$tmp/gather.tile" k --signature '*fp32,*i32,*fp32' --target sm_90a --emit cuda
size=$(wc -c <"$tmp/out")
[ "$size" -lt 150000 ] || fail "gather of 1024 from 2048: $size bytes of CUDA C (expected < 150000)"

# a batched tl.dot of 4 x 64x64x64 fp16: the sum of its [B, M, K, N] broadcast
# product had K over lanes, a butterfly per output element (11.6 MB of CUDA C);
# one 2-D dot per batch was about 290 KB, one 3-D dot (a warp per batch) is
# about 230 KB, and 16 x 64x64x64 (over the 2^20 elements that product could
# have) compiles
cat >"$tmp/bdot.tile" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def k(a_ptr, b_ptr, c_ptr, B: tl.constexpr):
    ob = tl.arange(0, B)[:, None, None] * 4096
    o = ob + tl.arange(0, 64)[None, :, None] * 64 + tl.arange(0, 64)[None, None, :]
    tl.store(c_ptr + o, tl.dot(tl.load(a_ptr + o), tl.load(b_ptr + o)))
EOF
expect 0 $TILE compile "$tmp/bdot.tile" k --signature '*fp16,*fp16,*fp32,4' --target sm_90a --emit cuda
size=$(wc -c <"$tmp/out")
[ "$size" -lt 260000 ] || fail "batched dot 4 x 64^3: $size bytes of CUDA C (expected < 260000)"
expect 0 $TILE compile "$tmp/bdot.tile" k --signature '*fp16,*fp16,*fp32,16' --target sm_90a --emit thread

# a 64 x 1024 cumsum along its rows (warps, then registers along the axis):
# every register's carry went to shared memory, 256 KB, over sm_90a's 227 KB;
# one carry per 32-element block is 8 KB
cat >"$tmp/scan.tile" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, y_ptr):
    o = tl.arange(0, 64)[:, None] * 1024 + tl.arange(0, 1024)[None, :]
    tl.store(y_ptr + o, tl.cumsum(tl.load(x_ptr + o), 1))
EOF
expect 0 $TILE compile "$tmp/scan.tile" k --signature '*fp32,*fp32' --target sm_90a --emit thread
has "$tmp/out" "smem=8192 {"
# ... and with 16-byte aligned pointers (4 contiguous elements per register
# block) its cross-thread steps run once per block, not once per element:
# 6120 lines of thread program, 20164 before
expect 0 $TILE compile "$tmp/scan.tile" k --signature '*fp32:16,*fp32:16' --target sm_90a --emit thread
lines=$(wc -l <"$tmp/out")
[ "$lines" -lt 9000 ] || fail "64 x 1024 cumsum: $lines lines of thread program (expected < 9000)"

# a 1-D cumsum of 8192 on 4 warps: 16 blocks of 4 per thread, 4 register
# bits above the warps merged by one carry (880 lines; 2898 with a merge per
# element and bit)
cat >"$tmp/scan1.tile" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, y_ptr):
    o = tl.arange(0, 8192)
    tl.store(y_ptr + o, tl.cumsum(tl.load(x_ptr + o), 0, reverse=True))
EOF
expect 0 $TILE compile "$tmp/scan1.tile" k --signature '*fp32:16,*fp32:16' --target sm_90a --emit thread
lines=$(wc -l <"$tmp/out")
[ "$lines" -lt 1300 ] || fail "1-D cumsum of 8192: $lines lines of thread program (expected < 1300)"

# a 2^20-element copy in 8 stores: every store (not a pure op) scanned all
# the pending sinkable ops of its block for shared loads to flush, quadratic
# in the block's size (tp_sched.c; 4 stores: 28 s of lowering, now 0.35 s)
cat >"$tmp/copy8.tile" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, y_ptr, B: tl.constexpr):
    o = tl.arange(0, B)
    a = tl.load(x_ptr + o)
    b = tl.load(x_ptr + B + o)
    for i in tl.static_range(4):
        tl.store(y_ptr + (2 * i) * B + o, a * i)
        tl.store(y_ptr + (2 * i + 1) * B + o, b + i)
EOF
if command -v timeout >/dev/null 2>&1; then
	expect 0 timeout 30 $TILE compile "$tmp/copy8.tile" k --signature '*fp32:16,*fp32:16,1048576' \
		--target cpu --emit thread -o /dev/null
fi

# 100000 adds in one block: the dot-add folding looked up where both operands
# of every add were defined, scanning the block each time (sema_cleanup.c;
# about 20 s of sema, now well under 1 s)
{
	printf 'import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef k(y_ptr, n):\n    x = n\n'
	yes '    x = x + 1' | head -n 100000
	printf '    tl.store(y_ptr, x)\n'
} >"$tmp/adds.tile"
if command -v timeout >/dev/null 2>&1; then
	expect 0 timeout 10 $TILE compile "$tmp/adds.tile" k --signature '*i32,i32' --target cpu --emit tir -o /dev/null
fi

[ "$nfail" = 0 ]

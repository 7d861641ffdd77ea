#!/bin/sh
# big_thread_program.sh: a per-thread program with many register coordinates
# prints them as lane/warp part + constant from the start (lower.c,
# coords_as_adds_when_many): NVVM's alias analysis cannot split the | form
# into a base and an offset, and its time grows with the square of the
# accesses so addressed (a 2^20-element store over 4 warps took over 120 s to
# compile for sm_90a). A small program keeps the | form. The big one's
# results are checked on cuda-emu, which runs the GPU's thread program.
. "$(dirname "$0")/cli_lib.sh"

have_numpy=0
for py in python3 /usr/bin/python3; do
	"$py" -c "import numpy" 2>/dev/null && { have_numpy=1; break; }
done
[ $have_numpy = 1 ] || echo "skip: no python3 with numpy: results not checked"

cat >"$tmp/iota.tile" <<'K'
import triton
import triton.language as tl


@triton.jit
def iota(out, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out + o, o * 3 + 1, mask=o < n)
K

# thread BLOCK ADD: the sm_90a thread program of BLOCK elements over 4 warps
# (an unaligned pointer: one store per element; nothing spills, so the
# | form is not weighed against +) with TILE_COORD_ADD=ADD
thread() {
	expect 0 env TILE_COORD_ADD=$2 $TILE compile "$tmp/iota.tile" iota --signature "*i32,i32,$1" \
		--target sm_90a --emit thread -o "$tmp/thread_$1_$2"
}
for block in 1024 65536; do
	thread $block 0
	thread $block 1
done
# 8 elements a thread: the | form stays, so the default differs from the + form
cmp -s "$tmp/thread_1024_0" "$tmp/thread_1024_1" &&
	fail "BLOCK 1024: the default thread program is the + form (expected lane/warp part | constant)"
grep -q " = or " "$tmp/thread_1024_0" || fail "BLOCK 1024: no or in the thread program"
# 512 elements a thread: the default is the + form
cmp -s "$tmp/thread_65536_0" "$tmp/thread_65536_1" ||
	fail "BLOCK 65536: the default thread program is not the + form (TILE_COORD_ADD=1's)"

if [ $have_numpy = 1 ]; then
	"$py" -c "import numpy as np; np.save('$tmp/o.npy', np.full(2 * 65536, 7, np.int32))" ||
		fail "could not write the input"
	# two programs, the second masked from element 100000 on
	for target in cpu cuda-emu; do
		rm -rf "$tmp/res"
		expect 0 env TILE_RACECHECK=1 $TILE run "$tmp/iota.tile" iota --grid 2 --target $target \
			--out-dir "$tmp/res" out=@"$tmp/o.npy" n=100000 BLOCK=65536
		"$py" - "$tmp" <<'P' || fail "BLOCK 65536: wrong results on $target"
import sys, numpy as np
got = np.load(sys.argv[1] + "/res/out.npy")
n = 100000
want = np.full(2 * 65536, 7, np.int32)
want[:n] = np.arange(n) * 3 + 1
sys.exit(0 if np.array_equal(got, want) else 1)
P
	done
fi

finish

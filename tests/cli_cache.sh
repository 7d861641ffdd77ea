#!/bin/sh
# cli_cache.sh: `tile cache ls|clear` against a private cache directory, and
# a second compile of the same kernel coming from the cache.
. "$(dirname "$0")/cli_lib.sh"

TILE_CACHE_DIR=$tmp/private-cache
export TILE_CACHE_DIR
K=kernels/vector_add.tile
SIG='*fp32:16,*fp32:16,*fp32:16,i32,1024'

expect 0 $TILE cache clear
expect 0 $TILE cache ls
has "$tmp/out" "0 entries"
expect 0 $TILE compile $K add_kernel --signature "$SIG"
expect 0 $TILE compile $K add_kernel --signature "$SIG"
has "$tmp/out" "(cached)"
expect 0 $TILE cache ls
has "$tmp/out" "1 entry"
has "$tmp/out" "$TILE_CACHE_DIR"
expect 0 $TILE cache clear
has "$tmp/out" "removed 1 entry"
expect 0 $TILE cache ls
has "$tmp/out" "0 entries"
# listing or clearing an absent directory creates nothing (ls created it)
for cmd in ls clear; do
	expect 0 env TILE_CACHE_DIR="$tmp/absent/cache" $TILE cache $cmd
	[ -e "$tmp/absent" ] && fail "cache $cmd created the cache directory"
done
expect 0 env TILE_CACHE_DIR="$tmp/absent/cache" $TILE cache ls
has "$tmp/out" "0 entries, 0 bytes in $tmp/absent/cache"
expect 2 $TILE cache
expect 2 $TILE cache frob

# a copy of a file under another name is compiled anew: the name is in the
# kernel (device_assert's file:line, the line info), and the copy reported the
# first file's name from the cache
mkdir -p "$tmp/n1" "$tmp/n2"
cat >"$tmp/n1/first.tile" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def k(X):
    x = tl.load(X + tl.arange(0, 16))
    tl.device_assert(x < 0, "x must be negative")
EOF
cp "$tmp/n1/first.tile" "$tmp/n2/second.tile"
for f in n1/first n2/second; do
	expect 1 env TRITON_DEBUG=1 $TILE run "$tmp/$f.tile" k --grid 1 --target cpu "X=zeros(16, fp32)"
	has "$tmp/err" "$tmp/$f.tile:8: x must be negative"
done
# and a change in an imported module is seen
cat >"$tmp/n1/helper.py" <<'EOF'
import triton


@triton.jit
def bump(x):
    return x + 1
EOF
cat >"$tmp/n1/main.tile" <<'EOF'
import triton
import triton.language as tl
from helper import bump


@triton.jit
def k(X):
    tl.store(X + tl.arange(0, 4), bump(tl.load(X + tl.arange(0, 4))))
EOF
expect 0 $TILE run "$tmp/n1/main.tile" k --grid 1 --target cpu "X=[1.0, 2.0, 3.0, 4.0]" --print
has "$tmp/out" "2., 3., 4., 5."
sed 's/x + 1/x + 100/' "$tmp/n1/helper.py" >"$tmp/n1/h" && mv "$tmp/n1/h" "$tmp/n1/helper.py"
expect 0 $TILE run "$tmp/n1/main.tile" k --grid 1 --target cpu "X=[1.0, 2.0, 3.0, 4.0]" --print
has "$tmp/out" "101., 102., 103., 104."

# a cache directory that is a file: one error with the reason (it said
# "compiling without a cache", which nothing here does, then gave none)
: >"$tmp/file"
for cmd in ls clear; do
	expect 1 env TILE_CACHE_DIR="$tmp/file" $TILE cache $cmd
	has "$tmp/err" "cache directory '$tmp/file': Not a directory"
	grep -q "compiling" "$tmp/err" && fail "cache $cmd: says it is compiling"
	[ "$(wc -l <"$tmp/err")" = 1 ] || fail "cache $cmd: more than one line: $(cat "$tmp/err")"
done

# a file size limit (ulimit -f) under a cache entry's size: the entry is not
# written (one warning) and the run's results are; SIGXFSZ killed the run
# halfway through the entry, leaving a temporary file and no results. An
# output over the limit is an error that names it (File too large).
printf 'import triton\nimport triton.language as tl\n@triton.jit\ndef k(X, Y):\n    o = tl.arange(0, 1024)\n    tl.store(Y + o, tl.exp(tl.load(X + o)))\n' >"$tmp/fsz.py"
npy_f32 "$tmp/fx.npy" 1024 '\000\000\000\000'
npy_f32 "$tmp/fy.npy" 1024 '\000\000\000\000'
mkdir -p "$tmp/fszc"
# ulimit -f counts 512-byte blocks in dash, 1024-byte ones in bash: limit 5120 bytes
sh -c 'ulimit -f 10 && head -c 6000 /dev/zero >"$0"' "$tmp/bs" 2>/dev/null
blocks=10
[ "$(wc -c <"$tmp/bs")" -gt 5120 ] && blocks=5
expect 0 sh -c "ulimit -f $blocks && TILE_CACHE_DIR='$tmp/fszc' $TILE run '$tmp/fsz.py' k --grid 1 --target cpu X=@'$tmp/fx.npy' Y=@'$tmp/fy.npy' --out-dir '$tmp/fszo'"
has "$tmp/err" "is over the file size limit (ulimit -f: 5120 bytes): not added to $tmp/fszc"
[ -z "$(ls -A "$tmp/fszc")" ] || fail "ulimit -f: the cache holds $(ls -A "$tmp/fszc")"
od -An -tx1 -j 4124 -N 4 "$tmp/fszo/Y.npy" | grep -q "00 00 80 3f" || fail "ulimit -f: Y is not exp(0)"
expect 1 sh -c "ulimit -f 1 && TILE_CACHE_DIR='$tmp/fszc' $TILE run '$tmp/fsz.py' k --grid 1 --target cpu X=@'$tmp/fx.npy' Y=@'$tmp/fy.npy' --out-dir '$tmp/fszo2'"
has "$tmp/err" "cannot write $tmp/fszo2/X.npy: File too large"

finish

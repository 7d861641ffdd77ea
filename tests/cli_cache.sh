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

# a cache directory that is a file: one error with the reason (it said
# "compiling without a cache", which nothing here does, then gave none)
: >"$tmp/file"
for cmd in ls clear; do
	expect 1 env TILE_CACHE_DIR="$tmp/file" $TILE cache $cmd
	has "$tmp/err" "cache directory '$tmp/file': Not a directory"
	grep -q "compiling" "$tmp/err" && fail "cache $cmd: says it is compiling"
	[ "$(wc -l <"$tmp/err")" = 1 ] || fail "cache $cmd: more than one line: $(cat "$tmp/err")"
done

finish

#!/bin/sh
# cli_compile.sh: `tile compile`: signatures with --const, the default
# kernel, --emit forms, -o, --time, and how errors are reported.
. "$(dirname "$0")/cli_lib.sh"

K=kernels/vector_add.tile
SIG='*fp32:16,*fp32:16,*fp32:16,i32'

expect 0 $TILE compile $K add_kernel --signature "$SIG" --const BLOCK_SIZE=1024
has "$tmp/out" "compiled add_kernel"
# the whole signature, constexpr included; and the kernel left out
expect 0 $TILE compile $K --signature "$SIG,1024"
has "$tmp/out" "compiled add_kernel"
expect 0 $TILE compile $K add_kernel --signature "$SIG" --const BLOCK_SIZE=256 --time
has "$tmp/out" "time:"
expect 0 $TILE compile $K add_kernel --signature "$SIG" --const BLOCK_SIZE=256 -o "$tmp/k.o"
[ -s "$tmp/k.o" ] || fail "-o wrote nothing"

expect 0 $TILE compile $K --emit ast
[ -s "$tmp/out" ] || fail "--emit ast printed nothing"
expect 0 $TILE compile $K add_kernel --emit=tir --signature "$SIG" --const BLOCK_SIZE=256
[ -s "$tmp/out" ] || fail "--emit tir printed nothing"
expect 0 $TILE compile $K add_kernel --emit llvm --signature "$SIG" --const BLOCK_SIZE=256 -o "$tmp/k.ll"
[ -s "$tmp/k.ll" ] || fail "--emit llvm -o wrote nothing"

# user errors: exit 1
printf 'import triton.language as tl\n@triton.jit\ndef k(x):\n    y = = 1\n' >"$tmp/bad.tile"
expect 1 $TILE compile "$tmp/bad.tile" --emit ast
has "$tmp/err" "bad.tile:4:"
has "$tmp/err" "error:"
expect 1 $TILE compile $K add_kernel --signature '*fp32:16,*fp32:16'
has "$tmp/err" "output_ptr"
expect 1 $TILE compile $K add_kernel --signature "$SIG" --const NOPE=1
has "$tmp/err" "NOPE"
expect 1 $TILE compile $K no_such_kernel --signature "$SIG,1024"
has "$tmp/err" "no_such_kernel"
expect 1 $TILE compile "$tmp/absent.tile"
has "$tmp/err" "absent.tile"

# usage errors: exit 2
expect 2 $TILE compile
expect 2 $TILE compile $K --emit nonsense
expect 2 $TILE compile $K --bogus-option
expect 2 $TILE compile $K add_kernel --num-warps x

finish

#!/bin/sh
# cli_version.sh: `tile --version`, `tile --help` and command-line usage errors.
. "$(dirname "$0")/cli_lib.sh"

expect 0 $TILE --version
has "$tmp/out" "tile 0.1.0"
has "$tmp/out" "LLVM "
has "$tmp/out" "nvrtc"
has "$tmp/out" "CUDA driver"
has "$tmp/out" "GPU: " # the device and its architecture, or "none (why)"
expect 0 $TILE --help
has "$tmp/out" "usage: tile"
has "$tmp/out" "compile"
has "$tmp/out" "repl"
# --help after a command shows the usage too (not "missing FILE.tile")
for cmd in compile run repl cache; do
	expect 0 $TILE $cmd --help
	has "$tmp/out" "usage: tile"
done
expect 2 $TILE
expect 2 $TILE frobnicate
has "$tmp/err" "frobnicate"

finish

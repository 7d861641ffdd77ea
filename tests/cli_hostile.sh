#!/bin/sh
# cli_hostile.sh: files that are not what they seem, met by the `tile` command:
# each is an error that names it (or is skipped as Python would), never a hang.
. "$(dirname "$0")/cli_lib.sh"

TO=
if command -v timeout >/dev/null 2>&1; then TO="timeout 60"; fi

# a module found by import that is a FIFO, a directory or a symlink loop is no
# module (Python's importer takes only regular files): opening the FIFO used
# to wait forever for a writer
mkdir -p "$tmp/imp/dirmod.py"
mkfifo "$tmp/imp/fifomod.py"
ln -s loopmod.py "$tmp/imp/loopmod.py"
for m in fifomod dirmod loopmod; do
	printf 'import triton\nimport triton.language as tl\nimport %s\n\n\n@triton.jit\ndef k(X):\n    tl.store(X, %s.x)\n' \
		"$m" "$m" >"$tmp/imp/use_$m.py"
	expect 1 $TO $TILE compile "$tmp/imp/use_$m.py" k --signature '*i32' --target cpu -o /dev/null
	has "$tmp/err" "unknown module '$m'"
done

finish

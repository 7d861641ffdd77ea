#!/bin/sh
# cli_repl.sh: `tile repl` fed a script on stdin: a definition, :emit, :run
# with --out-dir and printing its arrays, an error that does not end the
# session, :quit.
. "$(dirname "$0")/cli_lib.sh"

npy_f32 "$tmp/x.npy" 64 '\000\000\200\077'
npy_f32 "$tmp/o.npy" 64 '\000\000\000\000'
cat >"$tmp/script" <<EOT
import triton
import triton.language as tl

@triton.jit
def double(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) * 2.0, mask=m)

:kernels
:emit tir double --signature *fp32:16,*fp32:16,i32,32
:run double --grid 2 x_ptr=@$tmp/x.npy out_ptr=@$tmp/o.npy n=64 BLOCK=32 --out-dir $tmp/res
:run double --grid 2 x_ptr=@$tmp/x.npy
:run double --grid 1 x_ptr=@$tmp/x.npy out_ptr=@$tmp/o.npy n=3 BLOCK=32
:quit
EOT
# one :run fails (missing arguments): exit 1, but the session goes on
expect 1 $TILE repl <"$tmp/script"
has "$tmp/out" "double"
has "$tmp/err" "out_ptr"
# :run prints the arrays after the run (a fresh o.npy each time: 3 doubled)
has "$tmp/out" "out_ptr: fp32[64]"
has "$tmp/out" "[2., 2., 2., 0., 0.,"
if [ -f "$tmp/res/out_ptr.npy" ]; then
	printf '\000\000\000\100%.0s' $(seq 1 64) >"$tmp/want.bin"
	tail -c 256 "$tmp/res/out_ptr.npy" | cmp -s - "$tmp/want.bin" || fail "out_ptr.npy has the wrong data"
else
	fail ":run --out-dir wrote no out_ptr.npy"
fi
printf ':run nothing --grid 1\n:quit\n' >"$tmp/s2"
expect 1 $TILE repl <"$tmp/s2"
has "$tmp/err" "nothing is defined"

# a signature quoted as in a shell is the same signature
{ sed -n '1,9p' "$tmp/script"; echo ":emit tir double --signature '*fp32:16,*fp32:16,i32,32'"; } >"$tmp/s3"
expect 0 $TILE repl <"$tmp/s3"
has "$tmp/out" "arange {start=0, end=32}"
# a NUL byte is never dropped silently: in source the lexer reports it, a
# command with one is refused; so is a command of too many words
printf 'import triton\n@triton.jit\ndef k(x):\000\n    pass\n\n' >"$tmp/s4"
expect 1 $TILE repl <"$tmp/s4"
has "$tmp/err" "cannot contain null bytes"
printf ':help\000 more\n' >"$tmp/s5"
expect 1 $TILE repl <"$tmp/s5"
has "$tmp/err" "a NUL byte in the command"
{ printf ':run double --grid 1'; for i in $(seq 1 1100); do printf ' A%d=1' "$i"; done; echo; } >"$tmp/s6"
expect 1 $TILE repl <"$tmp/s6"
has "$tmp/err" "more than 1024 words"
# input that cannot be read is an error, not an empty session
expect 1 sh -c "$TILE repl </"
has "$tmp/err" "cannot read the input"

# a kernel that faults (past its array, and far from every array) is
# reported and the session goes on: the fault ended the whole session
cat >"$tmp/s7" <<EOT
import triton
import triton.language as tl

@triton.jit
def far(X, STEP: tl.constexpr):
    tl.store(X + tl.arange(0, 64) * STEP, 1.0)

:run far --grid 2 X=zeros(4) STEP=1
:run far --grid 1 X=zeros(4) STEP=1000000
:run far --grid 2 X=zeros(64) STEP=1
:kernels
EOT
for t in cpu cuda-emu; do
	expect 1 $TILE repl --target $t <"$tmp/s7"
	has "$tmp/err" "the kernel accessed memory outside argument 'X' (16 bytes)"
	has "$tmp/err" "the kernel accessed memory outside all of its arguments"
	has "$tmp/out" "X: fp32[64]"
	has "$tmp/out" "far"
done

# a command right after a definition (no blank line) ends it: it was taken as
# a line of source, a syntax error; a line of source starting with ':' that
# names no command stays source
cat >"$tmp/s8" <<EOT
import triton
import triton.language as tl
@triton.jit
def iota(o):
    tl.store(o + tl.arange(0, 4), tl.arange(0, 4))
:run iota --grid 1 o=zeros((4,), i32)
@triton.jit
def halves(o):
    t = (tl.arange(0, 4), tl.arange(0, 4) * 2)[0
:1]
    tl.store(o + tl.arange(0, 4), t[0] + 1)
:run halves --grid 1 o=zeros((4,), i32)
EOT
expect 0 $TILE repl <"$tmp/s8"
has "$tmp/out" "[0, 1, 2, 3]"
has "$tmp/out" "[1, 2, 3, 4]"

# a session starts with no names bound: a kernel that uses tl without the
# import is told which import is missing
cat >"$tmp/s9" <<EOT
@triton.jit
def noimport(o):
    tl.store(o, 1)

:emit tir noimport --signature *i32
EOT
expect 1 $TILE repl <"$tmp/s9"
has "$tmp/err" "unknown name 'tl' (is \`import triton.language as tl\` missing?)"

# a quote left open is an error naming the word: it took the rest of the line
# into that word (--signature '*fp32 --const B=4 was one signature), and an
# open quote in an array argument ran the kernel with the words after it lost
cat >"$tmp/s10" <<EOT
import triton
import triton.language as tl
@triton.jit
def two(o, B: tl.constexpr):
    tl.store(o + tl.arange(0, 4), 2.0)

:emit tir two --signature '*fp32 --const B=4
:run two --grid 1 o=zeros(4) s="a b B=4
:emit tir two --signature '*fp32' --const "B=4"
EOT
expect 1 $TILE repl <"$tmp/s10"
has "$tmp/err" "unterminated quote in ''*fp32 --const B=4': close it"
has "$tmp/err" "unterminated quote in 's=\"a b B=4': close it"
has "$tmp/out" "func @two"


# a command that takes nothing refuses words after it: ':reset now' reset the
# session and ':quit now' ended it, the words dropped; the session goes on
# with what was defined
cat >"$tmp/s11" <<EOT
import triton
import triton.language as tl
@triton.jit
def one(o):
    tl.store(o, 1.0)

:reset now
:quit please
:kernels all
:kernels
EOT
expect 1 $TILE repl <"$tmp/s11"
has "$tmp/err" "':reset' takes no arguments, got 'now'"
has "$tmp/err" "':quit' takes no arguments, got 'please'"
has "$tmp/err" "':kernels' takes no arguments, got 'all'"
has "$tmp/out" "one"

# a script with CR line ends is read line by line, as Python reads one (it was
# one line: "<repl>:7:1: error: invalid syntax"); CRLF too
for eol in '\r' '\r\n'; do
	printf "import triton${eol}import triton.language as tl${eol}@triton.jit${eol}def k(X):${eol}    tl.store(X, 7.0)${eol}${eol}:run k --grid 1 X=zeros(1)${eol}:kernels${eol}" >"$tmp/s12"
	expect 0 $TILE repl <"$tmp/s12"
	has "$tmp/out" "[7.]"
done

finish

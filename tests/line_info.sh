#!/bin/sh
# line_info.sh: the PTX's .loc lines name the kernel's own source lines, as
# Triton's test_line_info.py checks for its cubins (kernel_single, kernel_call,
# kernel_call_noinline, kernel_autotune, kernel_dot_combine, kernel_cdiv).
# Triton disassembles the cubin with nvdisasm -g; we read the .loc directives
# of `--emit ptx` (what nvrtc -lineinfo turns into the cubin's line table).
# Differences: tile inlines a noinline=True helper, so its call site has no
# instruction of its own (Triton's has the call); an inlined helper's
# instructions are its own lines, Triton's leaf location; kernel_autotune's
# SIZE is a runtime value here (Triton's constexpr SIZE == BLOCK makes a
# one-trip loop, whose `for` line no instruction is left with). Skipped
# without nvrtc.
. "$(dirname "$0")/cli_lib.sh"

if ! $TILE --version | grep -q "^nvrtc: [0-9]"; then
	echo "skip: no libnvrtc"
	exit 77
fi

# The line numbers below are those of this file (the `# NN` comments).
cat >"$tmp/li.py" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def kernel_single(X, Y, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))  # 7
    tl.store(Y + tl.arange(0, BLOCK), x)  # 8


@triton.jit
def device_inline(x):
    return x + x  # 13


@triton.jit
def kernel_call(X, Y, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))  # 18
    y = device_inline(x)
    tl.store(Y + tl.arange(0, BLOCK), y)  # 20


@triton.jit(noinline=True)
def device_noinline(X, Y, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))  # 25
    y = x + x  # 26
    tl.store(Y + tl.arange(0, BLOCK), y)  # 27


@triton.jit
def kernel_call_noinline(X, Y, BLOCK: tl.constexpr):
    device_noinline(X, Y, BLOCK)


@triton.autotune(configs=[triton.Config({"BLOCK": 128}, num_warps=4)], key=[])
@triton.jit
def kernel_autotune(X, Y, SIZE, BLOCK: tl.constexpr):
    for i in range(0, SIZE, BLOCK):  # 38
        x = tl.load(X + i + tl.arange(0, BLOCK))  # 39
        tl.store(Y + i + tl.arange(0, BLOCK), x)  # 40


@triton.jit
def kernel_dot_combine(x):
    c = tl.full((32, 32), 4, dtype=tl.int8)
    a = (tl.arange(0, 32)[:, None] + tl.arange(0, 32)[None, :]).to(tl.int8)
    d = tl.dot(a, a)  # 47
    d = d + c  # 48: folded into the dot's accumulator, as Triton's combine
    tl.device_print("", d)


@triton.jit
def kernel_cdiv(x):
    c = tl.full((32, 32), 4, dtype=tl.int8)
    d = tl.cdiv(c, 4)
    tl.device_print("", d)  # 56


@triton.jit
def kernel_prelude(X, Y, n, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    b = tl.sigmoid(x)  # 62
    c = tl.softmax(b)  # 63
    s = tl.sort(c + tl.rand(n, tl.arange(0, BLOCK)))  # 64
    tl.store(Y + tl.arange(0, BLOCK), s)


@triton.jit
def kernel_while(X, n, BLOCK: tl.constexpr):
    i = 0
    while i < n:  # 71
        x = tl.load(X + i + tl.arange(0, BLOCK))  # 72
        if n > 4:
            x = x * 2  # 74
        else:
            x = x + 1  # 76
        tl.store(X + i + tl.arange(0, BLOCK), x)  # 77
        i += BLOCK
EOF
for n in 7 8 13 18 20 25 26 27 38 39 40 47 48 56 62 63 64 71 72 74 76 77; do
	grep -q "# $n\b" "$tmp/li.py" || fail "li.py: line $n is not where the checks expect it"
	[ "$(sed -n "${n}p" "$tmp/li.py" | grep -c "# $n\b")" = 1 ] || fail "li.py: the '# $n' comment is not on line $n"
done

# lines KERNEL SIG: the source lines of li.py that the PTX's .loc names
# (sorted, one per line, in $tmp/lines); the PTX in $tmp/ptx
lines() {
	expect 0 $TILE compile "$tmp/li.py" "$1" --signature "$2" --target sm_90a --emit ptx
	cp "$tmp/out" "$tmp/ptx"
	fno=$(sed -n 's/^[[:space:]]*\.file[[:space:]]*\([0-9]*\) ".*li\.py".*/\1/p' "$tmp/ptx")
	[ -n "$fno" ] || fail "$1: the PTX has no .file for li.py"
	sed -n "s/^[[:space:]]*\.loc[[:space:]]*$fno \([0-9]*\) .*/\1/p" "$tmp/ptx" | sort -n -u >"$tmp/lines"
}
# want KERNEL LINE...: each line is named; absent KERNEL LINE...: none is
want() {
	k=$1
	shift
	for n in "$@"; do
		grep -qx "$n" "$tmp/lines" || fail "$k: no .loc for line $n (has: $(tr '\n' ' ' <"$tmp/lines"))"
	done
}
absent() {
	k=$1
	shift
	for n in "$@"; do
		grep -qx "$n" "$tmp/lines" && fail "$k: a .loc names line $n (has: $(tr '\n' ' ' <"$tmp/lines"))"
	done
}

lines kernel_single '*fp32,*fp32,128'
want kernel_single 7 8
# the exit is the last statement's line, not the blank line after it
absent kernel_single 9
lines kernel_call '*fp32,*fp32,128'
want kernel_call 18 20 13
absent kernel_call 21
lines kernel_call_noinline '*fp32,*fp32,128'
want kernel_call_noinline 25 26 27
# a loop with a runtime bound: its own line and the lines inside it
lines kernel_autotune '*fp32,*fp32,i32,128'
want kernel_autotune 38 39 40
absent kernel_autotune 41
lines kernel_dot_combine 'i32'
want kernel_dot_combine 47
absent kernel_dot_combine 48
lines kernel_cdiv 'i32'
want kernel_cdiv 56
# tile's prelude (sigmoid, softmax, sort, rand are written in the kernel
# language) has no file: its instructions are the user's calls
lines kernel_prelude '*fp32,*fp32,i32,128'
want kernel_prelude 62 63 64
grep '^[[:space:]]*\.file' "$tmp/ptx" | grep -v 'li\.py"' | grep -v '/kernel_prelude\.cu"' >"$tmp/files"
[ -s "$tmp/files" ] && fail "kernel_prelude: the PTX names another file: $(cat "$tmp/files")"
lines kernel_while '*fp32,i32,128'
want kernel_while 71 72 74 76 77

# TILE_DISABLE_LINE_INFO=1 (Triton's TRITON_DISABLE_LINE_INFO, test_line_info_env):
# no line info at all, in the PTX and in the cubin; a cubin compiled before
# with line info is not what the cache gives back
expect 0 env TILE_DISABLE_LINE_INFO=0 $TILE compile "$tmp/li.py" kernel_single --signature '*fp32,*fp32,128' \
	--target sm_90a -o "$tmp/with.cubin"
grep -q "li\.py" "$tmp/with.cubin" || fail "the cubin names no li.py with line info"
expect 0 env TILE_DISABLE_LINE_INFO=1 $TILE compile "$tmp/li.py" kernel_single --signature '*fp32,*fp32,128' \
	--target sm_90a --emit ptx
grep -q '^[[:space:]]*\.\(loc\|file\)' "$tmp/out" && fail "TILE_DISABLE_LINE_INFO=1: the PTX has .loc or .file lines"
expect 0 env TILE_DISABLE_LINE_INFO=1 $TILE compile "$tmp/li.py" kernel_single --signature '*fp32,*fp32,128' \
	--target sm_90a -o "$tmp/without.cubin"
grep -q "li\.py" "$tmp/without.cubin" && fail "TILE_DISABLE_LINE_INFO=1: the cubin names li.py"
# Triton's switches take true and on too, in any case (=True was ignored: line info stayed)
expect 0 env TILE_DISABLE_LINE_INFO=True $TILE compile "$tmp/li.py" kernel_single --signature '*fp32,*fp32,128' \
	--target sm_90a --emit ptx
grep -q '^[[:space:]]*\.\(loc\|file\)' "$tmp/out" && fail "TILE_DISABLE_LINE_INFO=True: the PTX has .loc or .file lines"
expect 0 env TILE_DISABLE_LINE_INFO=no $TILE compile "$tmp/li.py" kernel_single --signature '*fp32,*fp32,128' \
	--target sm_90a --emit ptx
grep -q '^[[:space:]]*\.loc' "$tmp/out" || fail "TILE_DISABLE_LINE_INFO=no: the PTX has no .loc lines"

# a source file whose name has a quote, a backslash or a newline: nvrtc wrote
# the quote into the PTX's .file as \", which ptxas cannot parse (nvrtc error)
for name in 'we"ird.py' 'back\slash.py' 'new
line.py'; do
	# a text of its own, so that the cache (keyed on the text) gives no other file's cubin
	{ cat "$tmp/li.py"; echo "# $(printf '%s' "$name" | od -An -c | tr -d ' \n')"; } >"$tmp/$name"
	expect 0 $TILE compile "$tmp/$name" kernel_single --signature '*fp32,*fp32,128' --target sm_90a -o "$tmp/q.cubin"
	expect 0 $TILE compile "$tmp/$name" kernel_single --signature '*fp32,*fp32,128' --target sm_90a --emit ptx
	grep -q '^[[:space:]]*\.loc' "$tmp/out" || fail "$name: the PTX has no .loc lines"
done
expect 0 $TILE compile "$tmp/we\"ird.py" kernel_single --signature '*fp32,*fp32,128' --target sm_90a --emit ptx
has "$tmp/out" "we'ird.py\""

finish

#!/bin/sh
# cli_inline_arrays.sh: arrays written in a `tile run` argument (zeros(8),
# [1, 2], rand((4, 4), fp16), ...: src/cli/inline_array.c) and in the REPL's
# :run: their values, dtypes and shapes, the results written back, and errors
# that name the argument and what is wrong.
. "$(dirname "$0")/cli_lib.sh"

cat >"$tmp/k.py" <<'EOF2'
import triton
import triton.language as tl


@triton.jit
def axpy(x_ptr, y_ptr, out_ptr, a, n, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    m = o < n
    tl.store(out_ptr + o, a * tl.load(x_ptr + o, mask=m) + tl.load(y_ptr + o, mask=m), mask=m)


@triton.jit
def rows(x_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)[:, None]
    c = tl.arange(0, C)[None, :]
    tl.store(out_ptr + tl.arange(0, R), tl.sum(tl.load(x_ptr + r * C + c), axis=1))
EOF2

# values of each constructor, the default dtypes (fp32; i32 for arange and
# integer lists) and a masked tail left alone
for target in cpu cuda-emu; do
	expect 0 $TILE run "$tmp/k.py" axpy --target $target --grid 1 --print 'x_ptr=arange(6, fp32)' \
		'y_ptr=[1, 2, 3, 4, 5, 6.5]' 'out_ptr=full(6, -1)' a=2 n=5 BLOCK=8
	printf 'x_ptr: fp32[6]\n[0., 1., 2., 3., 4., 5.]\ny_ptr: fp32[6]\n[1., 2., 3., 4., 5., 6.5]\n' >"$tmp/want"
	printf 'out_ptr: fp32[6]\n[1., 4., 7., 10., 13., -1.]\n' >>"$tmp/want"
	cmp -s "$tmp/want" "$tmp/out" || { fail "$target: axpy on inline arrays"; sed 's/^/    /' "$tmp/out"; }
done

# bf16 and fp8 are stored as same-width integers viewed as that dtype; fp16 is
# NumPy's; values are rounded to nearest-even (fp16 2049 -> 2048, bf16 257 -> 256)
expect 0 $TILE run "$tmp/k.py" axpy --grid 1 --print 'x_ptr=ones(4, bf16)' 'y_ptr=[1, 2, 257, 4]:bf16' \
	'out_ptr=zeros(4, dtype=tl.bfloat16)' a=2 n=4 BLOCK=4
has "$tmp/out" "y_ptr: bf16[4]"
has "$tmp/out" "[1., 2., 256., 4.]"
has "$tmp/out" "[3., 4., 258., 6.]"
expect 0 $TILE run "$tmp/k.py" axpy --grid 1 --print 'x_ptr=[2049, 0.1, 65504, 1e-7]:fp16' \
	'y_ptr=zeros(4, fp16)' 'out_ptr=zeros(4, fp16)' a=1 n=4 BLOCK=4
has "$tmp/out" "[2048., 0.09998, 6.55e+04, 1.192e-07]"
expect 0 $TILE run "$tmp/k.py" axpy --grid 1 --print 'x_ptr=[0.5, 448, -3.3, 0.001]:fp8e4nv' \
	'y_ptr=[0.5, 57344, -3.3, 1e-5]:fp8e5' 'out_ptr=zeros(4)' a=1 n=0 BLOCK=4
has "$tmp/out" "x_ptr: fp8e4nv[4]"
has "$tmp/out" "[0.5, 448., -3.25, 0.001953]" # 0.001: the smallest subnormal, 2^-9
has "$tmp/out" "[0.5, 5.734e+04, -3.5, 1.526e-05]"

# nested lists are 2-d; rand and randn repeat from run to run (seeded by the
# parameter's name) and stay in range
expect 0 $TILE run "$tmp/k.py" rows --grid 1 --print 'x_ptr=[[1, 2], [3, 4], [5, 6], [7, 8]]:fp32' \
	'out_ptr=zeros(4)' R=4 C=2
has "$tmp/out" "x_ptr: fp32[4, 2]"
has "$tmp/out" "[3., 7., 11., 15.]"
expect 0 $TILE run "$tmp/k.py" rows --grid 1 --print 'x_ptr=rand((64, 16))' 'out_ptr=zeros(64)' R=64 C=16
cp "$tmp/out" "$tmp/rand1"
grep -q 'e+0[1-9]\|-[0-9]' "$tmp/rand1" && fail "rand: a value outside [0, 1) or a negative sum"
expect 0 $TILE run "$tmp/k.py" rows --grid 1 --print 'x_ptr=rand((64, 16))' 'out_ptr=zeros(64)' R=64 C=16
cmp -s "$tmp/rand1" "$tmp/out" || fail "rand: two runs differ"
expect 0 $TILE run "$tmp/k.py" rows --grid 1 --print 'x_ptr=randn((64, 16), fp64)' 'out_ptr=zeros(64, fp64)' \
	R=64 C=16
has "$tmp/out" "x_ptr: fp64[64, 16]"
grep -q -- '-' "$tmp/out" || fail "randn: no negative value among 1024"

# --out-dir writes inline arrays back as .npy like any other
expect 0 $TILE run "$tmp/k.py" axpy --grid 1 'x_ptr=ones(3)' 'y_ptr=ones(3)' 'out_ptr=zeros(3)' a=2 n=3 \
	BLOCK=4 --out-dir "$tmp/res"
[ -f "$tmp/res/out_ptr.npy" ] || fail "--out-dir did not write out_ptr.npy"
tail -c 12 "$tmp/res/out_ptr.npy" | od -An -tf4 | tr -s ' ' >"$tmp/got"
echo " 3 3 3" | cmp -s - "$tmp/got" || fail "out_ptr.npy: $(cat "$tmp/got")"

# errors: one sentence naming the argument
bad() { # bad VALUE TEXT
	expect 1 $TILE run "$tmp/k.py" axpy --grid 1 "x_ptr=$1" 'y_ptr=zeros(4)' 'out_ptr=zeros(4)' a=1 \
		n=4 BLOCK=4
	has "$tmp/err" "argument 'x_ptr': $2"
}
bad 'zeros(' 'expected a size (an integer >= 0) at the end'
bad 'zeros(4, fp99)' "'fp99' is not a dtype"
bad 'zeros(-1)' 'expected a size'
bad 'zeros((100000, 100000, 100000))' 'the array is larger than 1024 MiB'
bad '[[1, 2], [3]]' 'the lists are not rectangular'
bad '[1, [2]]' 'a list mixes numbers and lists'
bad '[1, 2' "expected ',' or ']' at the end"
bad '[1.5]:i32' '1.5 is not a whole number, as i32 needs'
bad '[300]:u8' '300 is outside the range of u8'
bad '[500]:fp8e4nv' '500 does not fit in fp8e4nv'
bad 'rand(4, i32)' 'rand makes floats'
bad 'arange(2.5)' 'arange takes integers'
bad 'full(4)' 'full takes a shape and a value'
bad 'ones(4) x' "unexpected 'x' after the array"
# a ':DTYPE' after a constructor (as a list takes one) says the dtype goes inside
bad 'zeros(4, u8):fp8e4nv' "unexpected ':fp8e4nv' after the array: the dtype goes inside, zeros(SHAPE, DTYPE)"
bad 'arange(4):fp32' "unexpected ':fp32' after the array: the dtype goes inside, arange(STOP, DTYPE)"
bad 'full(4, 2):fp16' "unexpected ':fp16' after the array: the dtype goes inside, full(SHAPE, VALUE, DTYPE)"
# numbers are read as Python reads the literals (and tile run a scalar): 010
# was taken as 10 (a signature took it as 8), 1_000, 0x4 and 0o4 were refused,
# and a first argument of arange that is no number left the message unset
bad '[010, 1]' '010 is no Python literal'
bad 'zeros(010)' '010 is no Python literal'
bad 'full(4, 007)' '007 is no Python literal'
bad '[99999999999999999999]' 'the integer 99999999999999999999 does not fit in 64 bits'
bad 'arange(abc)' "expected a number at 'abc)'"
bad 'zeros(1e3)' "expected a size (an integer >= 0) at '1e3)'"
expect 0 $TILE run "$tmp/k.py" axpy --grid 1 --print 'x_ptr=[1_000, 0x10, -0o7, 0b1]' 'y_ptr=arange(0o4)' \
	'out_ptr=zeros(0x4)' a=1 n=4 BLOCK=4
has "$tmp/out" "[1000, 16, -7, 1]"
has "$tmp/out" "[1000., 17., -5., 4.]"

# the REPL's :run takes them too, blanks inside parentheses included
printf '%s\n' 'import triton' 'import triton.language as tl' '@triton.jit' \
	'def k(x_ptr, n, B: tl.constexpr):' '    o = tl.arange(0, B)' \
	'    tl.store(x_ptr + o, o * 2, mask=o < n)' '' \
	':run k --grid 1 x_ptr=full((2, 4), 7, i64) n=3 B=8' >"$tmp/repl.in"
expect 0 $TILE repl <"$tmp/repl.in"
has "$tmp/out" "x_ptr: i64[2, 4]"
has "$tmp/out" "[[0, 2, 4, 7],"

finish

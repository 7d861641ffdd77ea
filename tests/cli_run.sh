#!/bin/sh
# cli_run.sh: `tile run` on kernels/vector_add.tile with .npy files: results,
# --out-dir, masking of the tail, and errors that name the argument.
. "$(dirname "$0")/cli_lib.sh"

ONE='\000\000\200\077'   # 1.0f
TWO='\000\000\000\100'   # 2.0f
THREE='\000\000\100\100' # 3.0f
ZERO='\000\000\000\000'
npy_f32 "$tmp/x.npy" 1024 "$ONE"
npy_f32 "$tmp/y.npy" 1024 "$TWO"
npy_f32 "$tmp/o.npy" 1024 "$ZERO"
K=kernels/vector_add.tile

# 1000 of 1024 elements: the last 24 must stay 0 (the mask)
expect 0 $TILE run $K add_kernel --grid 4 x_ptr=@"$tmp/x.npy" y_ptr=@"$tmp/y.npy" \
	output_ptr=@"$tmp/o.npy" n_elements=1000 BLOCK_SIZE=256 --out-dir "$tmp/res"
{ f32_pattern 1000 "$THREE"; f32_pattern 24 "$ZERO"; } >"$tmp/want.bin"
if [ -f "$tmp/res/output_ptr.npy" ]; then
	tail -c 4096 "$tmp/res/output_ptr.npy" >"$tmp/got.bin"
	cmp -s "$tmp/want.bin" "$tmp/got.bin" || fail "output_ptr.npy has the wrong data"
	[ -f "$tmp/res/x_ptr.npy" ] || fail "--out-dir did not write x_ptr.npy"
	f32_pattern 1024 "$ONE" >"$tmp/x.bin"
	tail -c 4096 "$tmp/res/x_ptr.npy" | cmp -s - "$tmp/x.bin" || fail "x_ptr.npy changed"
else
	fail "--out-dir did not write output_ptr.npy"
fi

# --print: every array after the run, as NumPy prints it (past 1000
# elements, the first and last 3)
expect 0 $TILE run $K add_kernel --grid 4 --print x_ptr=@"$tmp/x.npy" y_ptr=@"$tmp/y.npy" \
	output_ptr=@"$tmp/o.npy" n_elements=1000 BLOCK_SIZE=256
printf 'x_ptr: fp32[1024]\n[1., 1., 1., ..., 1., 1., 1.]\n' >"$tmp/want.txt"
printf 'y_ptr: fp32[1024]\n[2., 2., 2., ..., 2., 2., 2.]\n' >>"$tmp/want.txt"
printf 'output_ptr: fp32[1024]\n[3., 3., 3., ..., 0., 0., 0.]\n' >>"$tmp/want.txt"
cmp -s "$tmp/want.txt" "$tmp/out" || { fail "--print of 1024 elements"; sed 's/^/    /' "$tmp/out"; }
npy_f32 "$tmp/x4.npy" 4 "$ONE"
npy_f32 "$tmp/o4.npy" 4 "$ZERO"
expect 0 $TILE run $K add_kernel --grid 1 --print x_ptr=@"$tmp/x4.npy" y_ptr=@"$tmp/x4.npy" \
	output_ptr=@"$tmp/o4.npy" n_elements=3 BLOCK_SIZE=4
has "$tmp/out" "output_ptr: fp32[4]"
has "$tmp/out" "[2., 2., 2., 0.]"

# a tuple parameter (Triton's launcher takes x.stride() as one argument):
# NAME=(1000, 3.0), each element specialized as a parameter of its own
cat >"$tmp/tup.tile" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def scale_n(X, Y, t, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    tl.store(Y + o, tl.load(X + o, mask=o < t[0]) * t[1], mask=o < t[0])
EOF
expect 0 $TILE run "$tmp/tup.tile" scale_n --grid 1 X=@"$tmp/x.npy" Y=@"$tmp/o.npy" 't=(1000, 3.0)' \
	BLOCK=1024 --out-dir "$tmp/rest"
tail -c 4096 "$tmp/rest/Y.npy" 2>/dev/null | cmp -s - "$tmp/want.bin" || fail "tuple argument: Y.npy has the wrong data"
expect 1 $TILE run "$tmp/tup.tile" scale_n --grid 1 X=@"$tmp/x.npy" Y=@"$tmp/o.npy" "t=(1000, @$tmp/x.npy)" BLOCK=1024
has "$tmp/err" "argument 't': tuple element 2"
# an empty tuple (a 0-d tensor's strides) is specialized away and launched as
# itself (it was "the kernel was specialized with t=0; got a different tuple")
cat >"$tmp/tup0.tile" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def tup0(X, t, S: tl.constexpr):
    tl.store(X + tl.arange(0, 4), len(t) + len(S) + 2.0)
EOF
expect 0 $TILE run "$tmp/tup0.tile" tup0 X=@"$tmp/x4.npy" 't=()' 'S=()' --print
has "$tmp/out" "[2., 2., 2., 2.]"
# a constexpr tuple: its elements are constants (tl.arange takes them)
cat >"$tmp/tupc.tile" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def tupc(X, S: tl.constexpr):
    o = tl.arange(0, S[0])[:, None] * S[1] + tl.arange(0, S[1])[None, :]
    tl.store(X + o, o.to(tl.float32) + len(S))
EOF
expect 0 $TILE run "$tmp/tupc.tile" tupc X=@"$tmp/x4.npy" 'S=(2, 2)' --print
has "$tmp/out" "[2., 3., 4., 5.]"
expect 1 $TILE run "$tmp/tupc.tile" tupc X=@"$tmp/x4.npy" 'S=(2, 3.5)' --print
has "$tmp/err" "argument 'end' of 'tl.arange' must be a constexpr int, got float"
expect 1 $TILE run "$tmp/tup.tile" scale_n --grid 1 X=@"$tmp/x.npy" Y=@"$tmp/o.npy" 't=(1000, 3.0' BLOCK=1024
has "$tmp/err" "has no closing ')'"
expect 1 $TILE run "$tmp/tup.tile" scale_n --grid 1 X=@"$tmp/x.npy" Y=@"$tmp/o.npy" 't=(1000,)' BLOCK=1024
has "$tmp/err" "tuple index 1 out of range"

# a constexpr takes a name of the kernel's module (a @jit function, as --const), and
# one whose default is a @jit function may be left out, also before a bound one
cat >"$tmp/act.tile" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def twice(x):
    return x * 2


@triton.jit
def plus2(x):
    return x + 2


@triton.jit
def act(X, Y, ACT: tl.constexpr = twice, K: tl.constexpr = 1, F: tl.constexpr = lambda v: v,
        Z: tl.constexpr = 0):
    o = tl.arange(0, 1024)
    tl.store(Y + o, F(ACT(tl.load(X + o)) * K))
EOF
SIX='\000\000\300\100' # 6.0f
f32_pattern 1024 "$TWO" >"$tmp/two.bin"
f32_pattern 1024 "$THREE" >"$tmp/three.bin"
f32_pattern 1024 "$SIX" >"$tmp/six.bin"
expect 0 $TILE run "$tmp/act.tile" act X=@"$tmp/x.npy" Y=@"$tmp/o.npy" --out-dir "$tmp/ra"
tail -c 4096 "$tmp/ra/Y.npy" 2>/dev/null | cmp -s - "$tmp/two.bin" || fail "a @jit default left out: Y.npy has the wrong data"
expect 0 $TILE run "$tmp/act.tile" act X=@"$tmp/x.npy" Y=@"$tmp/o.npy" K=3 --out-dir "$tmp/rb"
tail -c 4096 "$tmp/rb/Y.npy" 2>/dev/null | cmp -s - "$tmp/six.bin" || fail "a @jit default before a bound parameter: Y.npy has the wrong data"
expect 0 $TILE run "$tmp/act.tile" act X=@"$tmp/x.npy" Y=@"$tmp/o.npy" ACT=plus2 --out-dir "$tmp/rc"
tail -c 4096 "$tmp/rc/Y.npy" 2>/dev/null | cmp -s - "$tmp/three.bin" || fail "ACT=plus2: Y.npy has the wrong data"
expect 1 $TILE run "$tmp/act.tile" act X=@"$tmp/x.npy" Y=@"$tmp/o.npy" ACT=nosuch
has "$tmp/err" "'nosuch' given for constexpr parameter 'ACT' is neither a constant nor a name"
expect 1 $TILE run "$tmp/act.tile" act X=plus2 Y=@"$tmp/o.npy"
has "$tmp/err" "argument 'X': cannot parse 'plus2'"
# a lambda default has no name to pass: the parameters after it must be left out too
expect 1 $TILE run "$tmp/act.tile" act X=@"$tmp/x.npy" Y=@"$tmp/o.npy" Z=1
has "$tmp/err" "parameter 'F' of kernel 'act' is left to its default, which no argument can stand for"

# @triton.heuristics see the runtime arguments' values, as Triton's launcher
# passes them (it was "heuristic for 'EVEN' needs the value of runtime argument 'n'")
cat >"$tmp/heur.tile" <<'EOF'
import triton
import triton.language as tl


@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0,
                    "SCALE2": lambda args: args["s"] > 1.0})
@triton.jit
def heur(X, Y, n, s, BLOCK: tl.constexpr, EVEN: tl.constexpr, SCALE2: tl.constexpr):
    o = tl.arange(0, BLOCK)
    if EVEN:
        x = tl.load(X + o)
    else:
        x = tl.load(X + o, mask=o < n, other=0.0) + 1.0
    if SCALE2:
        x = x * 2.0
    tl.store(Y + o, x, mask=o < n)
EOF
FOUR='\000\000\200\100' # 4.0f
expect 0 $TILE run "$tmp/heur.tile" heur X=@"$tmp/x.npy" Y=@"$tmp/o.npy" n=1024 s=0.5 BLOCK=1024 --out-dir "$tmp/rh1"
f32_pattern 1024 "$ONE" >"$tmp/one.bin"
tail -c 4096 "$tmp/rh1/Y.npy" 2>/dev/null | cmp -s - "$tmp/one.bin" || fail "heuristics on n=1024, s=0.5: Y.npy has the wrong data"
expect 0 $TILE run "$tmp/heur.tile" heur X=@"$tmp/x.npy" Y=@"$tmp/o.npy" n=1000 s=1.5 BLOCK=1024 --out-dir "$tmp/rh2"
{ f32_pattern 1000 "$FOUR"; f32_pattern 24 "$ZERO"; } >"$tmp/four.bin"
tail -c 4096 "$tmp/rh2/Y.npy" 2>/dev/null | cmp -s - "$tmp/four.bin" || fail "heuristics on n=1000, s=1.5: Y.npy has the wrong data"
# bound by the caller, a heuristic's parameter is not computed
expect 0 $TILE run "$tmp/heur.tile" heur X=@"$tmp/x.npy" Y=@"$tmp/o.npy" n=1024 s=0.5 BLOCK=1024 EVEN=False SCALE2=True --out-dir "$tmp/rh3"
f32_pattern 1024 "$FOUR" >"$tmp/four1024.bin"
tail -c 4096 "$tmp/rh3/Y.npy" 2>/dev/null | cmp -s - "$tmp/four1024.bin" || fail "bound heuristic parameters: Y.npy has the wrong data"
# a heuristic is host Python: its while loop on n's value runs at compile time
# (BLOCK = 1024 for n=1000; it was a runtime loop: "must give a constexpr, got int32")
cat >"$tmp/heur_loop.tile" <<'EOF'
import triton
import triton.language as tl


def next_pow2(args):
    b = 1
    while b < args["n"]:
        b *= 2
    return b


@triton.heuristics({"BLOCK": next_pow2})
@triton.jit
def heur_loop(X, Y, n, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    tl.store(Y + o, tl.load(X + o, mask=o < n, other=0.0) * 4.0, mask=o < n)
EOF
expect 0 $TILE run "$tmp/heur_loop.tile" heur_loop X=@"$tmp/x.npy" Y=@"$tmp/o.npy" n=1000 --out-dir "$tmp/rh4"
tail -c 4096 "$tmp/rh4/Y.npy" 2>/dev/null | cmp -s - "$tmp/four.bin" || fail "heuristic with a while loop: Y.npy has the wrong data"
# a heuristic that fails on the arguments' values says why, where (it was
# "needs the value of runtime argument 'n'", n being given)
cat >"$tmp/heurbad.tile" <<'EOF'
import triton
import triton.language as tl


@triton.heuristics({"Q": lambda args: 1024 // args["n"], "S": lambda args: 1 << args["k"]})
@triton.jit
def heurbad(X, n, k, Q: tl.constexpr, S: tl.constexpr):
    tl.store(X, Q + S)
EOF
expect 1 $TILE run "$tmp/heurbad.tile" heurbad X=@"$tmp/x.npy" n=0 k=1
has "$tmp/err" "heurbad.tile:5:44: error: division by zero"
expect 1 $TILE run "$tmp/heurbad.tile" heurbad X=@"$tmp/x.npy" n=4 k=-1
has "$tmp/err" "heurbad.tile:5:78: error: negative shift count"
expect 1 $TILE run "$tmp/heurbad.tile" heurbad X=@"$tmp/x.npy" n=4 k=100
has "$tmp/err" "heurbad.tile:5:78: error: integer overflow in <<"
expect 0 $TILE run "$tmp/heurbad.tile" heurbad X=@"$tmp/x.npy" n=4 k=2 --out-dir "$tmp/rhb"

# bf16 has no NumPy dtype: its bits saved as uint16 are bound with @FILE.npy:bf16
cat >"$tmp/dbl.tile" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def dbl(X, Y, N: tl.constexpr):
    o = tl.arange(0, N)
    tl.store(Y + o, tl.load(X + o) * 2)
EOF
npy_arr "$tmp/xb.npy" '<u2' 16 '\200\077'   # bf16 1.0
npy_arr "$tmp/yb.npy" '<u2' 16 '\000\000'
expect 0 $TILE run "$tmp/dbl.tile" dbl --grid 1 X=@"$tmp/xb.npy":bf16 Y=@"$tmp/yb.npy":tl.bfloat16 N=16 \
	--out-dir "$tmp/resb"
printf '\000\100%.0s' $(seq 1 16) >"$tmp/wantb.bin"  # bf16 2.0
tail -c 32 "$tmp/resb/Y.npy" 2>/dev/null | cmp -s - "$tmp/wantb.bin" || fail "bf16 view: Y.npy has the wrong data"
expect 1 $TILE run "$tmp/dbl.tile" dbl --grid 1 X=@"$tmp/x.npy":bf16 Y=@"$tmp/yb.npy":bf16 N=16
has "$tmp/err" "viewing them as bf16 needs 2-byte ones (save the bits as uint16)"
# a suffix that names no dtype says so (it was "cannot open FILE.npy:fp8e4b15")
expect 1 $TILE run "$tmp/dbl.tile" dbl --grid 1 X=@"$tmp/xb.npy":fp8e4b15 Y=@"$tmp/yb.npy":bf16 N=16
has "$tmp/err" "argument 'X': 'fp8e4b15' after ':' is not a dtype to view the array as"
# --print reads the elements in the view's dtype (a :fp16 or :i16 view of a
# uint16 array printed the uint16 values under an fp16[4] header)
npy_arr "$tmp/xh.npy" '<u2' 4 '\000\274'   # fp16 -1.0; Y = X * 2 as i16 is -2
expect 0 $TILE run "$tmp/dbl.tile" dbl --grid 1 X=@"$tmp/xh.npy":fp16 Y=@"$tmp/xh.npy":i16 N=4 --print
printf 'X: fp16[4]\n[-1., -1., -1., -1.]\nY: i16[4]\n[-2, -2, -2, -2]\n' >"$tmp/want.txt"
cmp -s "$tmp/want.txt" "$tmp/out" || { fail "--print of :fp16 / :i16 views"; sed 's/^/    /' "$tmp/out"; }

# a host tensor descriptor over an array: NAME=@FILE.npy:desc[BLOCK]; loads past
# the array's end read zeros (40 elements, blocks of 32)
cat >"$tmp/desc.tile" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def dbl_desc(D, Y, B: tl.constexpr):
    pid = tl.program_id(0)
    x = D.load([pid * B])
    tl.store(Y + pid * B + tl.arange(0, B), x * 2)
EOF
npy_f32 "$tmp/d.npy" 40 "$ONE"
npy_f32 "$tmp/yd.npy" 64 "$ZERO"
for t in cpu cuda-emu; do
	expect 0 $TILE run "$tmp/desc.tile" dbl_desc --target $t --grid 2 D=@"$tmp/d.npy":desc[32] \
		Y=@"$tmp/yd.npy" B=32 --out-dir "$tmp/resd_$t"
	{ f32_pattern 40 "$TWO"; f32_pattern 24 "$ZERO"; } >"$tmp/wantd.bin"
	tail -c 256 "$tmp/resd_$t/Y.npy" 2>/dev/null | cmp -s - "$tmp/wantd.bin" ||
		fail "descriptor on $t: Y.npy has the wrong data"
done
expect 1 $TILE run "$tmp/desc.tile" dbl_desc --grid 2 D=@"$tmp/d.npy":desc[24] Y=@"$tmp/yd.npy" B=32
has "$tmp/err" "power of two"
expect 1 $TILE run "$tmp/desc.tile" dbl_desc --grid 2 D=@"$tmp/d.npy":desc[32,32] Y=@"$tmp/yd.npy" B=32
has "$tmp/err" "the descriptor's block has 2 dimensions but the array has 1"
npy_arr "$tmp/d2.npy" '<f4' 64 '\000\000\000\000' '2, 32'
expect 1 $TILE run "$tmp/desc.tile" dbl_desc --grid 2 D=@"$tmp/d2.npy":desc[32] Y=@"$tmp/yd.npy" B=32
has "$tmp/err" "the descriptor's block has 1 dimension but the array has 2"
expect 1 $TILE run "$tmp/desc.tile" dbl_desc --grid 2 D=@"$tmp/d.npy":desc[32 Y=@"$tmp/yd.npy" B=32
has "$tmp/err" "bad descriptor block shape"

# `tensordesc<...>:16`: the last dimension a multiple of 16, so the bound check
# is the same for each vector and the load vectorizes (4 fp32 a thread here);
# tile run specializes so from an array of 144 elements, whose second block
# (128..255) is cut at 144
expect 0 $TILE compile "$tmp/desc.tile" dbl_desc --signature 'tensordesc<fp32[512]>:16,*fp32:16,512' \
	--target sm_90a --emit layout
grep -q "load .*{vec=4}" "$tmp/out" || fail "tensordesc<...>:16: the descriptor load is not vectorized"
expect 0 $TILE compile "$tmp/desc.tile" dbl_desc --signature 'tensordesc<fp32[512]>,*fp32:16,512' \
	--target sm_90a --emit layout
grep -q "load .*{vec=1}" "$tmp/out" || fail "tensordesc<...> without :16: the load's bound check is per element"
expect 1 $TILE compile "$tmp/desc.tile" dbl_desc --signature 'tensordesc<fp32[512]>:8,*fp32:16,512' --target cpu
has "$tmp/err" "signature entry 'tensordesc<fp32[512]>:8' for parameter 'D' is not a tensor descriptor type: a descriptor takes only the specialization :16"
npy_f32 "$tmp/d144.npy" 144 "$ONE"
npy_f32 "$tmp/y256.npy" 256 "$ZERO"
for t in cpu cuda-emu; do
	expect 0 env TILE_RACECHECK=1 $TILE run "$tmp/desc.tile" dbl_desc --target $t --grid 2 --num-warps 1 \
		D=@"$tmp/d144.npy":desc[128] Y=@"$tmp/y256.npy" B=128 --out-dir "$tmp/res16_$t"
	{ f32_pattern 144 "$TWO"; f32_pattern 112 "$ZERO"; } >"$tmp/want16.bin"
	tail -c 1024 "$tmp/res16_$t/Y.npy" 2>/dev/null | cmp -s - "$tmp/want16.bin" ||
		fail "descriptor with a last dimension of 144 on $t: Y.npy has the wrong data"
done

# Python number literals: underscores, base prefixes, a float that overflows
# to inf; 010 is no Python literal
cat >"$tmp/lit.tile" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def lit(Y, a, b: tl.constexpr):
    tl.store(Y + tl.arange(0, 4), tl.full((4,), a, tl.float32) + b)
EOF
npy_f32 "$tmp/y4.npy" 4 "$ZERO"
expect 0 $TILE run "$tmp/lit.tile" lit --grid 1 Y=@"$tmp/y4.npy" a=1_000 b=0b10 --out-dir "$tmp/resl"
f32_pattern 4 '\000\200\172\104' >"$tmp/wantl.bin" # 1002.0
tail -c 16 "$tmp/resl/Y.npy" 2>/dev/null | cmp -s - "$tmp/wantl.bin" || fail "1_000 + 0b10 is not 1002"
expect 0 $TILE run "$tmp/lit.tile" lit --grid 1 Y=@"$tmp/y4.npy" a=1e999 b=0x_0 --out-dir "$tmp/resi"
f32_pattern 4 '\000\000\200\177' >"$tmp/wanti.bin" # inf
tail -c 16 "$tmp/resi/Y.npy" 2>/dev/null | cmp -s - "$tmp/wanti.bin" || fail "1e999 is not inf"
expect 1 $TILE run "$tmp/lit.tile" lit --grid 1 Y=@"$tmp/y4.npy" a=010 b=1
has "$tmp/err" "cannot parse '010'"
expect 1 $TILE run "$tmp/lit.tile" lit --grid 1 Y=@"$tmp/y4.npy" a=1__0 b=1
has "$tmp/err" "cannot parse '1__0'"

# a 2-D grid spelling and a num-warps option are accepted
expect 0 $TILE run $K add_kernel --grid 4,1,1 --num-warps 2 x_ptr=@"$tmp/x.npy" \
	y_ptr=@"$tmp/y.npy" output_ptr=@"$tmp/o.npy" n_elements=1024 BLOCK_SIZE=256

# missing, unknown, ill-typed, duplicated arguments: exit 1, named
expect 1 $TILE run $K add_kernel --grid 4 x_ptr=@"$tmp/x.npy" y_ptr=@"$tmp/y.npy" \
	output_ptr=@"$tmp/o.npy" BLOCK_SIZE=256
has "$tmp/err" "n_elements"
expect 1 $TILE run $K add_kernel --grid 4 x_ptr=@"$tmp/x.npy" y_ptr=@"$tmp/y.npy" \
	output_ptr=@"$tmp/o.npy" n_elements=1000 BLOCK_SIZE=256 bogus=3
has "$tmp/err" "bogus"
expect 1 $TILE run $K add_kernel --grid 4 x_ptr=@"$tmp/x.npy" y_ptr=@"$tmp/y.npy" \
	output_ptr=@"$tmp/o.npy" n_elements=abc BLOCK_SIZE=256
has "$tmp/err" "n_elements"
expect 1 $TILE run $K add_kernel --grid 4 x_ptr=@"$tmp/nope.npy" y_ptr=@"$tmp/y.npy" \
	output_ptr=@"$tmp/o.npy" n_elements=1000 BLOCK_SIZE=256
has "$tmp/err" "x_ptr"
expect 1 $TILE run $K add_kernel --grid 4 x_ptr=@"$tmp/x.npy" x_ptr=@"$tmp/x.npy" \
	y_ptr=@"$tmp/y.npy" output_ptr=@"$tmp/o.npy" n_elements=1000 BLOCK_SIZE=256
has "$tmp/err" "x_ptr"
expect 1 $TILE run $K add_kernel --grid 4 x_ptr=@"$tmp/x.npy" y_ptr=@"$tmp/y.npy" \
	output_ptr=@"$tmp/o.npy" n_elements=99999999999999999999 BLOCK_SIZE=256
has "$tmp/err" "integer 99999999999999999999 does not fit in 64 bits"
# nested tuples, as Triton's launcher takes them (test_jit_paths.py)
cat >"$tmp/nest.tile" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def nest(X, t):
    tl.static_assert(len(t[1][2]) == 0 and t[1][1] == ')')
    tl.store(X + tl.arange(0, 4), t[0][0] + t[0][1] * 10 + t[1][0] * 100 + 0.0)
EOF
expect 0 $TILE run "$tmp/nest.tile" nest X=@"$tmp/x4.npy" "t=((1, 2), (3, ')', ()))" --print
has "$tmp/out" "[321., 321., 321., 321.]"
expect 1 $TILE run "$tmp/nest.tile" nest X=@"$tmp/x4.npy" 't=((1, 2), (3, 4)'
has "$tmp/err" "has no closing ')'"
# 2^63 .. 2^64-1 are u64, as Triton's launcher types them (test_specialize.py)
cat >"$tmp/u64.tile" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def top(X, n):
    tl.store(X + tl.arange(0, 4), (n >> 60).to(tl.float32))
EOF
expect 0 $TILE run "$tmp/u64.tile" top X=@"$tmp/x4.npy" n=18446744073709551615 --print
has "$tmp/out" "[15., 15., 15., 15.]"
expect 0 $TILE run "$tmp/u64.tile" top X=@"$tmp/x4.npy" n=0x8000_0000_0000_0000 --print
has "$tmp/out" "[8., 8., 8., 8.]"
expect 1 $TILE run "$tmp/u64.tile" top X=@"$tmp/x4.npy" n=-9223372036854775809
has "$tmp/err" "integer -9223372036854775809 does not fit in 64 bits"
# a constexpr 2^64-1 is a uint64 too (it was refused), and it is not the
# constexpr -1 of the same bits: -1 >> 62 is -1, (2^64-1) >> 62 is 3; the
# second run must not take the first's kernel from the cache
cat >"$tmp/u64c.tile" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def topc(X, V: tl.constexpr):
    tl.store(X + tl.arange(0, 4), (V >> 62) + 0.0)
EOF
expect 0 $TILE run "$tmp/u64c.tile" topc X=@"$tmp/x4.npy" V=-1 --print
has "$tmp/out" "[-1., -1., -1., -1.]"
expect 0 $TILE run "$tmp/u64c.tile" topc X=@"$tmp/x4.npy" V=18446744073709551615 --print
has "$tmp/out" "[3., 3., 3., 3.]"
expect 0 $TILE compile "$tmp/u64c.tile" topc --signature '*fp32,18446744073709551615' --emit tir
has "$tmp/out" "const 3.0"
expect 1 $TILE compile "$tmp/u64c.tile" topc --signature '*fp32,18446744073709551616'
has "$tmp/err" "signature entry '18446744073709551616' for parameter 'V': the integer does not fit in 64 bits"
# a dtype annotation types a runtime argument whatever its value, as Triton's
# binder does (triton_kernels' reduce.py: stride_xr: tl.int64): s * 1000000
# must not wrap in 32 bits, and a value past u32 does not fit
cat >"$tmp/ann.tile" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def ann(X, s: tl.int64, u: "tl.uint32", n: int):
    v = (s * 1000000) // 1000000000 + (u >> 31) + n
    tl.store(X + tl.arange(0, 4), v.to(tl.float32))
EOF
expect 0 $TILE run "$tmp/ann.tile" ann X=@"$tmp/x4.npy" s=5000000 u=4294967295 n=2 --print
has "$tmp/out" "[5003., 5003., 5003., 5003.]"
expect 1 $TILE run "$tmp/ann.tile" ann X=@"$tmp/x4.npy" s=1 u=4294967296 n=2
has "$tmp/err" "argument 'u': value does not fit in u32"
expect 1 $TILE run $K no_such_kernel --grid 1
has "$tmp/err" "no_such_kernel"
expect 1 $TILE run "$tmp/missing.tile" add_kernel --grid 1
has "$tmp/err" "missing.tile"

# an array too small for the grid: on host targets the access past its end is
# caught and named, not a silent read of other memory or a crash
npy_f32 "$tmp/small.npy" 10 "$ONE"
for t in cpu cuda-emu; do
	expect 1 $TILE run $K add_kernel --target $t --grid 4 x_ptr=@"$tmp/small.npy" \
		y_ptr=@"$tmp/y.npy" output_ptr=@"$tmp/o.npy" n_elements=1024 BLOCK_SIZE=256
	has "$tmp/err" "outside argument 'x_ptr' (40 bytes)"
	expect 1 $TILE run $K add_kernel --target $t --grid 4 x_ptr=@"$tmp/x.npy" \
		y_ptr=@"$tmp/y.npy" output_ptr=@"$tmp/small.npy" n_elements=1024 BLOCK_SIZE=256
	has "$tmp/err" "outside argument 'output_ptr'"
	# masked lanes past the end are not accesses
	expect 0 $TILE run $K add_kernel --target $t --grid 1 x_ptr=@"$tmp/small.npy" \
		y_ptr=@"$tmp/small.npy" output_ptr=@"$tmp/small.npy" n_elements=10 BLOCK_SIZE=256
done

# an access far from every argument (an offset of 10^8 elements) is the
# kernel's fault too: an error, not a segfault of tile
printf 'import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef k(X, off):\n    o = tl.arange(0, 16)\n    tl.store(X + o, tl.load(X + o + off))\n' >"$tmp/far.tile"
for t in cpu cuda-emu; do
	expect 1 $TILE run "$tmp/far.tile" k --target $t --grid 1 X=@"$tmp/x.npy" off=100000000
	has "$tmp/err" "the kernel accessed memory outside all of its arguments"
done

# a write just past an array's end or just before its start lands in its
# mapping's accessible slack (no fault): still an error naming the argument,
# not data silently lost when the array is written back
printf 'import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef k(X, off, n):\n    o = tl.arange(0, 16)\n    tl.store(X + o + off, 2.0, mask=o < n)\n' >"$tmp/slack.tile"
npy_f32 "$tmp/three.npy" 3 "$ONE"
for t in cpu cuda-emu; do
	expect 1 $TILE run "$tmp/slack.tile" k --target $t --grid 1 X=@"$tmp/three.npy" off=0 n=4
	has "$tmp/err" "the kernel wrote outside argument 'X' (12 bytes), at byte offset 12"
	expect 1 $TILE run "$tmp/slack.tile" k --target $t --grid 1 X=@"$tmp/three.npy" off=-1 n=3
	has "$tmp/err" "the kernel wrote outside argument 'X' (12 bytes), at byte offset -4"
	expect 0 $TILE run "$tmp/slack.tile" k --target $t --grid 1 X=@"$tmp/three.npy" off=0 n=3
done

# usage errors: exit 2
expect 2 $TILE run $K add_kernel --grid
# a float literal is a Python float: a constexpr keeps its double value (0.1,
# not fp32's 0.100000001...), a runtime parameter gets fp32
cat >"$tmp/cf.py" <<'EOF'
import triton
import triton.language as tl
@triton.jit
def k(out_ptr, s, SCALE: tl.constexpr, OFF: tl.constexpr = 0.1):
    tl.store(out_ptr + tl.arange(0, 2), tl.full([2], SCALE, tl.float64) + tl.full([2], OFF, tl.float64) + s)
EOF
npy_arr "$tmp/z8.npy" '<f8' 2 '\000\000\000\000\000\000\000\000'
expect 0 $TILE run "$tmp/cf.py" k --target cpu out_ptr=@"$tmp/z8.npy" s=0.0 SCALE=0.1 --out-dir "$tmp/cf"
printf '\232\231\231\231\231\231\311\077%.0s' 1 2 >"$tmp/want.bin" # 0.1 + 0.1 in doubles
tail -c 16 "$tmp/cf/out_ptr.npy" | cmp -s - "$tmp/want.bin" || fail "a constexpr float lost its double precision"
# a runtime parameter annotated tl.float64 gets the double itself, as Triton's
# launcher types it by the annotation (0.1, not fp32's 0.100000001...); an
# unannotated one still gets fp32
cat >"$tmp/f64p.py" <<'EOF'
import triton
import triton.language as tl
@triton.jit
def k(out_ptr, x: tl.float64, y):
    tl.store(out_ptr, x)
    tl.store(out_ptr + 1, y.to(tl.float64))
EOF
printf '\232\231\231\231\231\231\271\077\000\000\000\240\231\231\271\077' >"$tmp/want64.bin"
for t in cpu cuda-emu; do
	expect 0 $TILE run "$tmp/f64p.py" k --target $t out_ptr=@"$tmp/z8.npy" x=0.1 y=0.1 --out-dir "$tmp/f64p$t"
	tail -c 16 "$tmp/f64p$t/out_ptr.npy" | cmp -s - "$tmp/want64.bin" ||
		fail "$t: x: tl.float64 = 0.1 lost its double precision (or y was not fp32)"
done
# the same through a name bound to the dtype in another module (npbench's
# contour_integral: `z_real: tl_float`, tl_float = tl.float64 in
# triton_framework.py; Triton reads the evaluated annotation, the dtype itself),
# and an int alias: s * 1000000 must not wrap in 32 bits
mkdir -p "$tmp/annmod"
printf 'import triton.language as tl\ntl_float = tl.float64\nwide = tl.int64\n' >"$tmp/annmod/fw.py"
cat >"$tmp/annmod/k.py" <<'EOF'
import triton
import triton.language as tl
from fw import tl_float
import fw


@triton.jit(do_not_specialize=["x"])
def k(out_ptr, x: tl_float, y, s: fw.wide):
    tl.store(out_ptr, x)
    tl.store(out_ptr + 1, y.to(tl.float64) + ((s * 1000000) // 1000000000000).to(tl.float64))
EOF
for t in cpu cuda-emu; do
	expect 0 $TILE run "$tmp/annmod/k.py" k --target $t out_ptr=@"$tmp/z8.npy" x=0.1 y=0.1 s=5 --out-dir "$tmp/annmod$t"
	tail -c 16 "$tmp/annmod$t/out_ptr.npy" | cmp -s - "$tmp/want64.bin" ||
		fail "$t: x: tl_float (tl_float = tl.float64) = 0.1 lost its double precision (or y was not fp32)"
done
expect 0 $TILE run "$tmp/annmod/k.py" k out_ptr=@"$tmp/z8.npy" x=0.1 y=0.0 s=5000000 --print
has "$tmp/out" "5."

expect 2 $TILE run $K add_kernel --grid 0 n_elements=1
expect 2 $TILE run $K add_kernel --grid 1 --frobnicate
# an unusable --out-dir is found before the kernel runs, not after (when the
# run's results were lost): here the grid is too big for the data, so a run
# would fail on its own
: >"$tmp/plain"
expect 1 $TILE run $K add_kernel --grid 99 x_ptr=@"$tmp/x.npy" y_ptr=@"$tmp/y.npy" \
	output_ptr=@"$tmp/o.npy" n_elements=99999 BLOCK_SIZE=256 --out-dir "$tmp/plain/sub"
has "$tmp/err" "--out-dir: cannot create '$tmp/plain/sub'"
expect 1 $TILE run $K add_kernel --grid 99 x_ptr=@"$tmp/x.npy" y_ptr=@"$tmp/y.npy" \
	output_ptr=@"$tmp/o.npy" n_elements=99999 BLOCK_SIZE=256 --out-dir "$tmp/plain"
has "$tmp/err" "--out-dir: '$tmp/plain' is not a directory"
expect 1 $TILE run $K add_kernel --grid 99 x_ptr=@"$tmp/x.npy" y_ptr=@"$tmp/y.npy" \
	output_ptr=@"$tmp/o.npy" n_elements=99999 BLOCK_SIZE=256 --out-dir "$tmp/fresh"
has "$tmp/err" "accessed memory outside" # a usable one: the run's own error
# an option given twice is refused, not "the last wins"
expect 2 $TILE run $K add_kernel --grid 4 --grid=1 n_elements=1
has "$tmp/err" "--grid is given twice ('4' and '1')"
expect 2 $TILE run $K add_kernel --grid 1 --out-dir a --out-dir b n_elements=1
has "$tmp/err" "--out-dir is given twice ('a' and 'b')"
expect 2 $TILE run $K add_kernel --grid 1 --num-warps 4 --num-warps 8 n_elements=1
has "$tmp/err" "--num-warps is given twice"
# Triton's launch keywords, written as bindings, name the option to use
expect 1 $TILE run $K add_kernel --grid 1 n_elements=1 num_warps=8
has "$tmp/err" "'num_warps' is a launch option of Triton's kernel call, not a parameter of kernel 'add_kernel': pass --num-warps N"
expect 1 $TILE run $K add_kernel --grid 1 n_elements=1 enable_fp_fusion=False
has "$tmp/err" "pass --no-fp-fusion for False"

# a constexpr parameter named num_warps / num_stages takes the launch option's
# keyword, as in Triton (`k[grid](x, num_warps=8)` binds both): --num-warps binds
# the parameter, the parameter sets the option, and two different values are refused
cat >"$tmp/nwp.py" <<'EOF'
import triton
import triton.language as tl
@triton.jit
def k(out_ptr, num_warps: tl.constexpr, num_stages: tl.constexpr = 2):
    tl.store(out_ptr + tl.arange(0, 2), tl.full([2], num_warps * 10 + num_stages, tl.int32))
EOF
npy_arr "$tmp/i2.npy" '<i4' 2 '\000\000\000\000'
for t in cpu cuda-emu; do
	expect 0 $TILE run "$tmp/nwp.py" k --target $t --grid 1 --print out_ptr=@"$tmp/i2.npy" --num-warps 8
	has "$tmp/out" "[82, 82]"
	expect 0 $TILE run "$tmp/nwp.py" k --target $t --grid 1 --print out_ptr=@"$tmp/i2.npy" --num-stages 4 num_warps=2
	has "$tmp/out" "[24, 24]"
	expect 0 $TILE run "$tmp/nwp.py" k --target $t --grid 1 --print out_ptr=@"$tmp/i2.npy" --num-warps 2 num_warps=2
	has "$tmp/out" "[22, 22]"
	expect 1 $TILE run "$tmp/nwp.py" k --target $t --grid 1 out_ptr=@"$tmp/i2.npy" --num-warps 8 num_warps=2
	has "$tmp/err" "parameter 'num_warps' of kernel 'k' is 2 while the num_warps option is 8"
	expect 1 $TILE run "$tmp/nwp.py" k --target $t --grid 1 out_ptr=@"$tmp/i2.npy" num_warps=3
	has "$tmp/err" "which is also the launch option num_warps: num_warps must be a power of two"
	expect 1 $TILE run "$tmp/nwp.py" k --target $t --grid 1 out_ptr=@"$tmp/i2.npy"
	has "$tmp/err" "missing argument 'num_warps'"
done
# the parameter's value is the option the kernel is compiled for
expect 0 $TILE compile "$tmp/nwp.py" k --signature '*i32' --const num_warps=8 --target cuda-emu --emit thread
has "$tmp/out" "warps=8 lanes=32"

# @triton.autotune's early_config_prune runs on the actual arguments, as Triton's
# Autotuner runs it: the first config it keeps is used, with its num_warps; a
# caller binding the configs' parameters skips it; keeping none is Triton's
# error; a pruner tile cannot evaluate leaves the first config, with a warning
cat >"$tmp/prune.py" <<'EOF'
import triton
import triton.language as tl

def prune(configs, named_args, **kwargs):
    return [c for c in configs if c.kwargs['BLOCK'] <= named_args['n']]

def prune_cuda(configs, named_args, **kwargs):
    major, _ = torch.cuda.get_device_capability()
    return configs[1:]

CONFIGS = [triton.Config({'BLOCK': 1024}, num_warps=8), triton.Config({'BLOCK': 16}, num_warps=2)]

@triton.jit
def body(out_ptr, n, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    tl.store(out_ptr + o, o * 0 + BLOCK * 100 + tl.extra.cuda.num_warps(), mask=o < 16)

@triton.autotune(configs=CONFIGS, key=['n'], prune_configs_by={'early_config_prune': prune})
@triton.jit
def k(out_ptr, n, BLOCK: tl.constexpr):
    body(out_ptr, n, BLOCK)

@triton.autotune(configs=CONFIGS, key=['n'], prune_configs_by={'early_config_prune': prune_cuda})
@triton.jit
def k_cuda(out_ptr, n, BLOCK: tl.constexpr):
    body(out_ptr, n, BLOCK)

def host_configs():
    return [triton.Config({'BLOCK': b}) for b in torch.cuda.sizes()]

@triton.autotune(configs=host_configs(), key=['n'], prune_configs_by={'early_config_prune': prune})
@triton.jit
def k_host(out_ptr, n, BLOCK: tl.constexpr):
    body(out_ptr, n, BLOCK)
EOF
npy_arr "$tmp/p16.npy" '<i4' 16 '\000\000\000\000'
for t in cpu cuda-emu; do
	expect 0 $TILE run "$tmp/prune.py" k --target $t --grid 1 --print out_ptr=@"$tmp/p16.npy" n=16
	has "$tmp/out" "[1602, 1602, 1602,"
	expect 0 $TILE run "$tmp/prune.py" k --target $t --grid 1 --print out_ptr=@"$tmp/p16.npy" n=16 --num-warps 4
	has "$tmp/out" "[1604, 1604, 1604,"
	expect 0 $TILE run "$tmp/prune.py" k --target $t --grid 1 --print out_ptr=@"$tmp/p16.npy" n=5000
	has "$tmp/out" "[102408, 102408,"
	expect 0 $TILE run "$tmp/prune.py" k --target $t --grid 1 --print out_ptr=@"$tmp/p16.npy" n=5000 BLOCK=16
	has "$tmp/out" "[1604, 1604,"
	expect 1 $TILE run "$tmp/prune.py" k --target $t --grid 1 out_ptr=@"$tmp/p16.npy" n=1
	has "$tmp/err" "early_config_prune of @triton.autotune kept no config"
	expect 0 $TILE run "$tmp/prune.py" k_cuda --target $t --grid 1 --print out_ptr=@"$tmp/p16.npy" n=16
	has "$tmp/err" "warning: early_config_prune of @triton.autotune could not be evaluated"
	has "$tmp/out" "[102408, 102408,"
	# configs tile cannot build: the caller binds BLOCK, and there is nothing to prune
	expect 0 $TILE run "$tmp/prune.py" k_host --target $t --grid 1 --print out_ptr=@"$tmp/p16.npy" n=16 BLOCK=16
	[ -s "$tmp/err" ] && fail "k_host: a warning where the configs could not be evaluated"
	has "$tmp/out" "[1604, 1604,"
done
# from a signature, early_config_prune runs where it reads what the signature
# gives (n given as a constant, a pointer's dtype): its first config is
# compiled, with its num_warps (it was always the first config); one reading a
# runtime value keeps the first config, quietly
expect 0 $TILE compile "$tmp/prune.py" k --signature '*i32,16' --target cuda-emu --emit thread
has "$tmp/out" "warps=2 lanes=32"
has "$tmp/out" "const 1600 :"
[ -s "$tmp/err" ] && fail "a signature compile that prunes warns"
expect 0 $TILE compile "$tmp/prune.py" k --signature '*i32,i32' --target cuda-emu --emit thread
has "$tmp/out" "warps=8 lanes=32"
has "$tmp/out" "const 102400 :"
[ -s "$tmp/err" ] && fail "a pruner reading a runtime value warns from a signature"

# heuristics and early_config_prune read a tensor argument's shape and strides
# where tile run has them (the .npy array), as Triton's launcher passes the
# tensor; from a signature they are an error that says why (it was "needs the
# value of runtime argument 'x'" whatever the host gave)
cat >"$tmp/shape.py" <<'EOF'
import triton
import triton.language as tl

def prune(configs, named_args, **kwargs):
    return [c for c in configs if c.kwargs['BLOCK'] <= named_args['x'].numel()]

@triton.autotune(configs=[triton.Config({'BLOCK': 256}), triton.Config({'BLOCK': 64})], key=['n'],
                 prune_configs_by={'early_config_prune': prune})
@triton.heuristics({'ROWS': lambda a: a['x'].shape[0], 'S0': lambda a: a['x'].stride(0),
                    'C': lambda a: a['x'].is_contiguous() and a['x'].dim() == 2,
                    'LAST': lambda a: a['x'].size(-1) + a['x'].ndim * 100})
@triton.jit
def k(x, out_ptr, n, BLOCK: tl.constexpr, ROWS: tl.constexpr, S0: tl.constexpr, C: tl.constexpr,
      LAST: tl.constexpr):
    o = tl.arange(0, 8)
    v = tl.where(o == 0, BLOCK, tl.where(o == 1, ROWS, tl.where(o == 2, S0, tl.where(o == 3, C, LAST))))
    tl.store(out_ptr + o, v, mask=o < 5)
EOF
npy_arr "$tmp/x340.npy" '<f4' 120 '\000\000\000\000' '3, 40'
npy_arr "$tmp/o5.npy" '<i4' 5 '\000\000\000\000'
expect 0 $TILE run "$tmp/shape.py" k --target cpu --grid 1 --print x=@"$tmp/x340.npy" out_ptr=@"$tmp/o5.npy" n=120
has "$tmp/out" "[64, 3, 40, 1, 240]"
npy_arr "$tmp/x1000.npy" '<f4' 1000 '\000\000\000\000'
expect 0 $TILE run "$tmp/shape.py" k --target cpu --grid 1 --print x=@"$tmp/x1000.npy" out_ptr=@"$tmp/o5.npy" n=1000
has "$tmp/out" "[256, 1000, 1, 0, 1100]"
expect 1 $TILE compile "$tmp/shape.py" k --signature '*fp32,*i32,i32' --target cpu
has "$tmp/err" "needs the shape of tensor argument 'x': known only where the host passes the tensor"

# prune_configs_by's perf_model ranks the configs where more are left than
# top_k, as Triton's Autotuner does before it benchmarks them: tile takes the
# best estimate (it was the first config, whatever the model said); with
# Triton's default top_k (1.0) the model is not run; a model tile cannot
# evaluate, or a prune_configs_by it cannot read, leaves the first config with
# a warning (that was silent); a top_k neither an int nor a float <= 1.0 is
# Triton's TypeError
cat >"$tmp/pm.py" <<'EOF'
import triton
import triton.language as tl

def est(n, BLOCK, num_warps, num_stages, **kw):
    return abs(BLOCK - n) + num_warps

CONFIGS = [triton.Config({'BLOCK': 16}, num_warps=2), triton.Config({'BLOCK': 64}, num_warps=4),
           triton.Config({'BLOCK': 256}, num_warps=8), triton.Config({'BLOCK': 1024})]

@triton.jit
def body(out_ptr, n, BLOCK: tl.constexpr):
    o = tl.arange(0, 16)
    tl.store(out_ptr + o, o * 0 + BLOCK * 100 + tl.extra.cuda.num_warps())

@triton.autotune(configs=CONFIGS, key=['n'], prune_configs_by={'perf_model': est, 'top_k': 2})
@triton.jit
def k(out_ptr, n, BLOCK: tl.constexpr):
    body(out_ptr, n, BLOCK)

@triton.autotune(configs=CONFIGS, key=['n'], prune_configs_by={'perf_model': est})
@triton.jit
def k_all(out_ptr, n, BLOCK: tl.constexpr):
    body(out_ptr, n, BLOCK)

def est_cuda(**kw):
    return torch.cuda.get_device_properties(0).multi_processor_count

@triton.autotune(configs=CONFIGS, key=['n'], prune_configs_by={'perf_model': est_cuda, 'top_k': 1})
@triton.jit
def k_cuda(out_ptr, n, BLOCK: tl.constexpr):
    body(out_ptr, n, BLOCK)

@triton.autotune(configs=CONFIGS, key=['n'], prune_configs_by={'perf_model': est, 'top_k': 'x'})
@triton.jit
def k_bad(out_ptr, n, BLOCK: tl.constexpr):
    body(out_ptr, n, BLOCK)

from triton.ops.matmul_perf_model import estimate_matmul_time
@triton.autotune(configs=CONFIGS, key=['n'], prune_configs_by={'perf_model': estimate_matmul_time, 'top_k': 1})
@triton.jit
def k_unread(out_ptr, n, BLOCK: tl.constexpr):
    body(out_ptr, n, BLOCK)
EOF
expect 0 $TILE run "$tmp/pm.py" k --target cpu --grid 1 --print out_ptr=@"$tmp/p16.npy" n=200
has "$tmp/out" "[25608, 25608,"
expect 0 $TILE run "$tmp/pm.py" k --target cpu --grid 1 --print out_ptr=@"$tmp/p16.npy" n=60
has "$tmp/out" "[6404, 6404,"
expect 0 $TILE run "$tmp/pm.py" k_all --target cpu --grid 1 --print out_ptr=@"$tmp/p16.npy" n=200
has "$tmp/out" "[1602, 1602,"
[ -s "$tmp/err" ] && fail "k_all: a warning where the perf_model is not run"
expect 0 $TILE run "$tmp/pm.py" k_cuda --target cpu --grid 1 --print out_ptr=@"$tmp/p16.npy" n=200
has "$tmp/err" "warning: perf_model of @triton.autotune could not be evaluated"
has "$tmp/out" "[1602, 1602,"
expect 0 $TILE run "$tmp/pm.py" k_unread --target cpu --grid 1 --print out_ptr=@"$tmp/p16.npy" n=200
has "$tmp/err" "prune_configs_by at line 39 could not be evaluated"
has "$tmp/out" "[1602, 1602,"
expect 1 $TILE run "$tmp/pm.py" k_bad --target cpu --grid 1 out_ptr=@"$tmp/p16.npy" n=200
has "$tmp/err" "top_k of @triton.autotune's prune_configs_by must be a float <= 1.0 or an int"

expect 2 $TILE run $K add_kernel --target cpu --target cuda-emu --grid 1 n_elements=1
has "$tmp/err" "--target is given twice"
expect 2 $TILE run

finish

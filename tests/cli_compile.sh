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
# with --emit the times go to stderr, the dump alone to stdout, and the
# stages that ran have times (codegen: LLVM for the IR)
expect 0 $TILE compile $K add_kernel --signature "$SIG" --const BLOCK_SIZE=256 --target cpu \
	--emit llvm --time
has "$tmp/err" "time: sema"
grep -q "time:" "$tmp/out" && fail "--time mixed the times into the dump"
grep -q "codegen 0.00 ms" "$tmp/err" && fail "--time --emit llvm: codegen shows no time"
expect 0 $TILE compile $K add_kernel --signature "$SIG" --const BLOCK_SIZE=256 -o "$tmp/k.o"
[ -s "$tmp/k.o" ] || fail "-o wrote nothing"

# a helper passed as a value (a combine_fn) is not an entry point either
cat >"$tmp/combine.tile" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def add(a, b):
    return a + b


@triton.jit
def total(X, Y, N: tl.constexpr):
    tl.store(Y, tl.reduce(tl.load(X + tl.arange(0, N)), 0, add))
EOF
expect 0 $TILE compile "$tmp/combine.tile" --signature '*fp32,*fp32,64'
has "$tmp/out" "compiled total"

# a kernel made by the call forms (`k = triton.jit(k)`, `k = triton.heuristics(...)(k)`)
# is the default kernel too: its name as the decorator's argument is not a use
cat >"$tmp/callform.tile" <<'EOF'
import triton
import triton.language as tl


def _fill(X, N: tl.constexpr, EVEN: tl.constexpr):
    tl.store(X + tl.arange(0, N), tl.full([N], 1.0 if EVEN else 2.0, tl.float32))


_fill = triton.jit(_fill)
_fill = triton.heuristics({"EVEN": lambda args: args["N"] % 2 == 0})(_fill)
EOF
expect 0 $TILE compile "$tmp/callform.tile" --signature '*fp32,64'
has "$tmp/out" "compiled _fill"
# a helper passed to another call's result is still used: total is the default
cat >"$tmp/callform2.tile" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def add(a, b):
    return a + b


def pick(f):
    return f


@triton.jit
def total(X, Y, N: tl.constexpr):
    tl.store(Y, tl.reduce(tl.load(X + tl.arange(0, N)), 0, pick(pick)(add)))
EOF
expect 0 $TILE compile "$tmp/callform2.tile" --signature '*fp32,*fp32,64'
has "$tmp/out" "compiled total"

# a note before an error (static_print) is printed once, not again with the error
cat >"$tmp/note.tile" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def k(X, B: tl.constexpr):
    tl.static_print("B is", B)
    tl.store(X + tl.arange(0, B), undefined_name)
EOF
expect 1 $TILE compile "$tmp/note.tile" k --signature '*fp32,16'
[ "$(grep -c 'note: static_print: B is 16' "$tmp/err")" = 1 ] || fail "the static_print note is not printed once"
[ "$(grep -c "error: unknown name 'undefined_name'" "$tmp/err")" = 1 ] || fail "the error is not printed once"

# names beyond ASCII (PEP 3131) in the source and in a bound name; the kernel's
# symbol in generated code is ASCII (PTX and assemblers take no other)
cat >"$tmp/uni.py" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def 激活(x):
    return tl.maximum(x, 0.0)


@triton.jit
def 核(x_ptr, ACT: tl.constexpr):
    o = tl.arange(0, 16)
    tl.store(x_ptr + o, ACT(tl.load(x_ptr + o)))
EOF
expect 0 $TILE compile "$tmp/uni.py" 核 --signature '*fp32:16' --const ACT=激活 --target cpu
has "$tmp/out" "compiled 核 for cpu"
expect 0 $TILE compile "$tmp/uni.py" 核 --signature '*fp32:16,激活' --target cpu --emit asm
grep -q "tile_u_u6838_" "$tmp/out" || fail "the CPU symbol of kernel 核 is not tile_u_u6838_"
expect 1 $TILE compile "$tmp/uni.py" 核 --signature '*fp32:16' --const 'ACT=激活²' --target cpu
has "$tmp/err" "is not a constant"

# tl.argmax lowers an in-thread step to one compare and two selects where the
# index order is known (lower_reduce.c arg_combine), not Triton's combine of
# seven ops: 1024 values are 32 per CPU thread, 31 in-thread compares, 22 for
# the lane and warp steps (115 in all before)
cat >"$tmp/am.py" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def amax(x_ptr, out_ptr, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    tl.store(out_ptr, tl.argmax(tl.load(x_ptr + o), 0))
EOF
expect 0 $TILE compile "$tmp/am.py" amax --signature '*fp32:16,*i32,1024' --target cpu --emit thread
ncmp=$(grep -c ' = cmp ' "$tmp/out")
[ "$ncmp" -le 56 ] || fail "argmax of 1024 values: $ncmp compares in the CPU thread program, expected at most 56"

expect 0 $TILE compile $K --emit ast
[ -s "$tmp/out" ] || fail "--emit ast printed nothing"
expect 0 $TILE compile $K add_kernel --emit=tir --signature "$SIG" --const BLOCK_SIZE=256
[ -s "$tmp/out" ] || fail "--emit tir printed nothing"
expect 0 $TILE compile $K add_kernel --emit llvm --signature "$SIG" --const BLOCK_SIZE=256 -o "$tmp/k.ll"
[ -s "$tmp/k.ll" ] || fail "--emit llvm -o wrote nothing"
# the report of a GPU compile gives ptxas's registers and spills (nvrtc needed);
# a CPU one has no such numbers
if $TILE --version | grep -q "^nvrtc: [0-9]"; then
	expect 0 $TILE compile $K add_kernel --signature "$SIG" --const BLOCK_SIZE=1024 --target sm_90a
	has "$tmp/out" "registers, 0 bytes spilled per thread"
	# line info: the PTX's .loc lines name the kernel's own file and lines
	# (line 16 of vector_add.tile loads x); --emit cuda stays readable
	expect 0 $TILE compile $K add_kernel --signature "$SIG" --const BLOCK_SIZE=1024 --target sm_90a --emit ptx
	grep -q '^[[:space:]]*\.file[[:space:]]*[0-9]* ".*kernels/vector_add.tile"' "$tmp/out" ||
		fail "the PTX has no .file for kernels/vector_add.tile"
	fno=$(sed -n 's/^[[:space:]]*\.file[[:space:]]*\([0-9]*\) ".*kernels\/vector_add.tile".*/\1/p' "$tmp/out")
	grep -q "^[[:space:]]*\.loc[[:space:]]*$fno 16 " "$tmp/out" || fail "the PTX has no .loc for line 16 of vector_add.tile"
	expect 0 $TILE compile $K add_kernel --signature "$SIG" --const BLOCK_SIZE=1024 --target sm_90a --emit cuda
	grep -q "^#line" "$tmp/out" && fail "--emit cuda shows #line directives"
	# TILE_NVRTC_LOG shows each nvrtc run's options and ptxas's log
	expect 0 env TILE_NVRTC_LOG=1 $TILE compile $K add_kernel --signature "$SIG" \
		--const BLOCK_SIZE=1024 --target sm_80 --time
	has "$tmp/err" "tile: nvrtc add_kernel.cu: --gpu-architecture=sm_80"
	# ptxas's report, unless nvrtc took the cubin from the driver's cache (a GPU
	# machine that compiled it before), which the log then says
	grep -q "Used \|CUDA_CACHE_DISABLE" "$tmp/err" || fail "TILE_NVRTC_LOG printed neither ptxas's report nor why not"
	expect 0 $TILE compile $K add_kernel --signature "$SIG" --const BLOCK_SIZE=1024 --target sm_80
	[ -s "$tmp/err" ] && fail "nvrtc's log is printed without TILE_NVRTC_LOG"
	# --emit ptx takes the PTX from the compilation that made the cubin (which
	# decides the launch bounds): nvrtc runs once, as for --emit cubin
	for e in ptx cubin; do
		expect 0 env TILE_NVRTC_LOG=1 $TILE compile $K add_kernel --signature "$SIG" \
			--const BLOCK_SIZE=1024 --target sm_90a --emit $e -o "$tmp/k.$e"
		[ "$(grep -c '^tile: nvrtc ' "$tmp/err")" = 1 ] || fail "--emit $e ran nvrtc $(grep -c '^tile: nvrtc ' "$tmp/err") times"
	done
	grep -q '^\.target sm_90a' "$tmp/k.ptx" || fail "--emit ptx gave no .target sm_90a"
	# --no-fp-fusion (Triton's enable_fp_fusion=False): a * b + c is a rounded
	# multiply and a rounded add, not an fma; tl.fma stays one. The fused
	# compile comes first, so the disk cache must tell the two apart.
	cat >"$tmp/fuse.py" <<'EOF'
import triton
import triton.language as tl
@triton.jit
def k(a_ptr, b_ptr, c_ptr, o_ptr, FMA: tl.constexpr):
    o = tl.arange(0, 16)
    a = tl.load(a_ptr + o)
    b = tl.load(b_ptr + o)
    c = tl.load(c_ptr + o)
    tl.store(o_ptr + o, tl.fma(a, b, c) if FMA else a * b + c)
EOF
	FSIG='*fp32:16,*fp32:16,*fp32:16,*fp32:16'
	expect 0 $TILE compile "$tmp/fuse.py" k --signature "$FSIG" --const FMA=False --target sm_90a --emit ptx
	has "$tmp/out" "fma.rn.f32"
	expect 0 $TILE compile "$tmp/fuse.py" k --signature "$FSIG" --const FMA=False --target sm_90a --emit ptx --no-fp-fusion
	has "$tmp/out" "mul.rn.f32"
	grep -q "fma.rn.f32" "$tmp/out" && fail "--no-fp-fusion: a * b + c became an fma"
	expect 0 $TILE compile "$tmp/fuse.py" k --signature "$FSIG" --const FMA=True --target sm_90a --emit ptx --no-fp-fusion
	has "$tmp/out" "fma.rn.f32"
	expect 0 env TILE_NVRTC_LOG=1 $TILE compile "$tmp/fuse.py" k --signature "$FSIG" --const FMA=False --target sm_80 --no-fp-fusion
	has "$tmp/err" "--fmad=false"
	expect 2 $TILE compile "$tmp/fuse.py" k --signature "$FSIG" --const FMA=False --target sm_80 --no-fp-fusion --no-fp-fusion
	has "$tmp/err" "--no-fp-fusion is given twice"
	# a Config's kwargs may say enable_fp_fusion=False (Triton's launcher takes
	# it as an option): it applies where the config's options do
	cat >"$tmp/fuse_cfg.py" <<'EOF'
import triton
import triton.language as tl
@triton.autotune(configs=[triton.Config({'BLOCK': 16, 'enable_fp_fusion': False})], key=[])
@triton.jit
def k(a_ptr, b_ptr, c_ptr, o_ptr, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    tl.store(o_ptr + o, tl.load(a_ptr + o) * tl.load(b_ptr + o) + tl.load(c_ptr + o))
EOF
	expect 0 $TILE compile "$tmp/fuse_cfg.py" k --signature "$FSIG" --target sm_90a --emit ptx
	has "$tmp/out" "mul.rn.f32"
	grep -q "fma.rn.f32" "$tmp/out" && fail "Config enable_fp_fusion=False: a * b + c became an fma"
	expect 0 $TILE compile "$tmp/fuse_cfg.py" k --signature "$FSIG" --const BLOCK=16 --target sm_90a --emit ptx
	has "$tmp/out" "fma.rn.f32"
fi
expect 0 $TILE compile $K add_kernel --signature "$SIG" --const BLOCK_SIZE=1024 --target cpu
grep -q "registers" "$tmp/out" && fail "a CPU report names registers"
# without --target the form picks the kind: llvm/asm the CPU (also on a GPU
# machine), cuda/ptx the GPU here, or an error naming the fix when there is none
expect 0 $TILE compile $K add_kernel --emit asm --signature "$SIG" --const BLOCK_SIZE=256
has "$tmp/out" "add_kernel"
if $TILE --version | grep -q "^GPU: .*(sm_"; then
	expect 0 $TILE compile $K add_kernel --emit cuda --signature "$SIG" --const BLOCK_SIZE=256
	has "$tmp/out" '__global__'
else
	# TILE_TARGET names one as --target does
	expect 0 env TILE_TARGET=sm_80 $TILE compile $K add_kernel --emit cuda --signature "$SIG" --const BLOCK_SIZE=256
	has "$tmp/out" 'generated by tile for sm_80'
	expect 1 $TILE compile $K add_kernel --emit cuda --signature "$SIG" --const BLOCK_SIZE=256
	has "$tmp/err" "--emit cuda without --target compiles for this machine's GPU, and it has none: name an architecture, e.g. --target sm_90a"
fi
# a bad TILE_TARGET is named as the source of the target the user never gave
expect 1 env TILE_TARGET=sm_79 $TILE compile $K add_kernel --signature "$SIG" --const BLOCK_SIZE=256
has "$tmp/err" "unknown target 'sm_79' (set by TILE_TARGET)"
expect 0 env TILE_TARGET=sm_79 $TILE compile $K add_kernel --signature "$SIG" --const BLOCK_SIZE=256 --target cpu

# --const after autotuned, heuristic and defaulted parameters: those take their
# defaults (the first config, the heuristic, the declared default)
cat >"$tmp/at.tile" <<'EOF'
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({'BLOCK': 128}, num_warps=4), triton.Config({'BLOCK': 64})], key=['n'])
@triton.heuristics({'EVEN': lambda args: args['n'] % 16 == 0})
@triton.jit
def k(X, n, BLOCK: tl.constexpr, EVEN: tl.constexpr, D: tl.constexpr = 2, STEP: tl.constexpr = 1):
    if EVEN:
        tl.store(X + tl.arange(0, BLOCK), STEP * D)
    else:
        tl.store(X + tl.arange(0, BLOCK), STEP * D, mask=tl.arange(0, BLOCK) < n)
EOF
expect 0 $TILE compile "$tmp/at.tile" k --signature '*fp32:16,i32:16' --const STEP=3 --emit tir
has "$tmp/out" "end=128"
has "$tmp/out" "const 6.0"
grep -q "cmp" "$tmp/out" && fail "the EVEN heuristic was not applied"
expect 0 $TILE compile "$tmp/at.tile" k --signature '*fp32:16,i32' --const STEP=3 --const EVEN=False --const BLOCK=64 --emit tir
has "$tmp/out" "end=64"
has "$tmp/out" "cmp"

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
# no --signature for a kernel with parameters: an error naming the first one
# (in a sanitizer build, also no leak of the split signature)
expect 1 $TILE compile $K add_kernel
has "$tmp/err" "parameter 'x_ptr' of 'add_kernel' needs a type"
expect 1 $TILE compile "$tmp/absent.tile"
has "$tmp/err" "absent.tile"
# an endless source (or one over 64 MiB) is refused, not read until memory runs out
if [ -r /dev/zero ] && command -v timeout >/dev/null 2>&1; then
	expect 1 timeout 20 $TILE compile /dev/zero k
	has "$tmp/err" "cannot read '/dev/zero': File too large"
fi

# module-level names each defined by the previous one are evaluated recursively
# (lazily, from the use): 5000 deep overflowed the stack; past 256 it is an error
{
	printf 'import triton\nimport triton.language as tl\nA0 = 1\n'
	i=1
	while [ $i -lt 5000 ]; do
		echo "A$i = A$((i - 1)) + 1"
		i=$((i + 1))
	done
	printf '@triton.jit\ndef k(Y):\n    tl.store(Y, A4999)\n'
} >"$tmp/chain.tile"
expect 1 $TILE compile "$tmp/chain.tile" k --signature '*i32' --emit tir
has "$tmp/err" "module-level names are defined in terms of each other more than 256 deep"

# an early return under a runtime if makes the rest of the function the other
# branch: a run of 5000 nested regions that deep (a stack overflow), and an if
# whose body only sometimes returns runs the rest in both branches (40 of them:
# 2^40 copies, a hang). Runtime control flow nests at most 256 deep, and the
# statements executed count against the compile-time work budget.
{
	printf 'import triton\nimport triton.language as tl\n@triton.jit\ndef k(Y, n):\n'
	i=0
	while [ $i -lt 5000 ]; do
		printf '    if n == %d:\n        return\n' $i
		i=$((i + 1))
	done
	printf '    tl.store(Y, 1)\n'
} >"$tmp/returns.tile"
expect 1 $TILE compile "$tmp/returns.tile" k --signature '*i32,i32' --emit tir
has "$tmp/err" "control flow nested more than 256 deep"
{
	printf 'import triton\nimport triton.language as tl\n@triton.jit\ndef k(Y, n):\n'
	i=0
	while [ $i -lt 40 ]; do
		printf '    if n == %d:\n        if n > 100:\n            return\n' $i
		i=$((i + 1))
	done
	printf '    a = 0\n    for i in tl.static_range(100):\n        a += 1\n    tl.store(Y, a)\n'
} >"$tmp/dup.tile"
if command -v timeout >/dev/null 2>&1; then
	expect 1 timeout 60 $TILE compile "$tmp/dup.tile" k --signature '*i32,i32' --emit tir
	has "$tmp/err" "compile-time evaluation takes more than"
fi

# a NUL byte: the diagnostic is rendered whole (the echoed line shows it as '?'),
# not cut at the NUL and prefixed with a second "tile: error:"
printf 'import triton\n\000 x\n' >"$tmp/nul.tile"
expect 1 $TILE compile "$tmp/nul.tile" k
has "$tmp/err" "nul.tile:2:1: error: source code cannot contain null bytes"
has "$tmp/err" "    2 | ? x"
if grep -q "tile: error" "$tmp/err"; then fail "the NUL-byte diagnostic was cut short"; fi

# lowering a big tl.dot is linear in the registers per thread (a register
# lookup scanned them all: minutes here, now seconds); a 1024x1024
# accumulator (8192 registers per thread) and K = 64: 8192 mma instructions
# per thread, the most a kernel may have. K = 1024 is over that limit and
# stops before lowering, at once, with an error that says so.
cat >"$tmp/bigdot.tile" <<'EOF'
import triton
import triton.language as tl
@triton.jit
def k(X, K: tl.constexpr):
    a = tl.zeros([1024, K], tl.float16)
    b = tl.zeros([K, 1024], tl.float16)
    tl.store(X, tl.sum(tl.sum(tl.dot(a, b), 0), 0))
EOF
if command -v timeout >/dev/null 2>&1; then
	expect 0 timeout 60 $TILE compile "$tmp/bigdot.tile" k --signature "*fp32,64" --target sm_90a \
		--emit thread -o /dev/null
	expect 1 timeout 10 $TILE compile "$tmp/bigdot.tile" k --signature "*fp32,1024" \
		--target sm_90a --emit thread -o /dev/null
	has "$tmp/err" "its dots unroll into 131072 mma instructions per thread, more than 8192"
fi

# the module path: a package found neither beside the kernel nor above it is
# looked for in the directories of TILE_PATH (as sys.path); unknown, the error
# names the file it looked for and TILE_PATH
mkdir -p "$tmp/kdir" "$tmp/lib/helpers_pkg/sub"
cat >"$tmp/lib/helpers_pkg/sub/ops.py" <<'EOF'
import triton
import triton.language as tl
@triton.jit
def twice(x):
    return x * 2
EOF
cat >"$tmp/kdir/uses_path.py" <<'EOF'
import triton
import triton.language as tl
from helpers_pkg.sub import ops
from helpers_pkg.sub.ops import twice
@triton.jit
def k(X, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(X + offs, ops.twice(twice(tl.load(X + offs))))
EOF
expect 1 $TILE compile "$tmp/kdir/uses_path.py" k --signature "*fp32,64" --target cpu
has "$tmp/err" "unknown module 'helpers_pkg.sub': no helpers_pkg/sub.py (or .tile, or helpers_pkg/sub/__init__.py) beside the importing file, in a directory above it or on the module path (TILE_PATH)"
expect 0 env TILE_PATH="$tmp/nonexistent:$tmp/lib" $TILE compile "$tmp/kdir/uses_path.py" k --signature "*fp32,64" --target cpu
has "$tmp/out" "compiled k"

# a GPU older than Ampere (a T4 is sm_75) is named as too old, not as a
# spelling tile does not know
expect 1 $TILE compile $K add_kernel --signature "$SIG" --const BLOCK_SIZE=1024 --target sm_75
has "$tmp/err" "unknown target 'sm_75' (expected auto, cpu, cuda, cuda-emu or sm_XX with XX >= 80"

# a kernel compiled as its first @triton.autotune config (the caller binds
# none of its parameters) takes that config's num_warps too, unless
# --num-warps says otherwise; binding the parameters leaves the default (4)
cat >"$tmp/autotuned.tile" <<'EOF'
import triton
import triton.language as tl
@triton.autotune(configs=[triton.Config({'BLOCK': 256}, num_warps=8, num_stages=2),
                          triton.Config({'BLOCK': 128}, num_warps=2)], key=['n'])
@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + o, tl.load(x_ptr + o, mask=o < n) * 2, mask=o < n)
EOF
expect 0 $TILE compile "$tmp/autotuned.tile" k --signature '*fp32,i32' --target cuda-emu
has "$tmp/out" "256 threads"
expect 0 $TILE compile "$tmp/autotuned.tile" k --signature '*fp32,i32' --target cuda-emu --num-warps 2
has "$tmp/out" "64 threads"
expect 0 $TILE compile "$tmp/autotuned.tile" k --signature '*fp32,i32,128' --target cuda-emu
has "$tmp/out" "128 threads"
# a first config that sets no parameters (flash-attention's layer norm) applies too
sed 's/{.BLOCK.: 256}/{}/' "$tmp/autotuned.tile" >"$tmp/autotuned2.tile"
expect 0 $TILE compile "$tmp/autotuned2.tile" k --signature '*fp32,i32,256' --target cuda-emu
has "$tmp/out" "256 threads"

# usage errors: exit 2
expect 2 $TILE compile
expect 2 $TILE compile $K --emit nonsense
expect 2 $TILE compile $K --bogus-option
expect 2 $TILE compile $K add_kernel --num-warps x
# the binary on stdout is only the binary: the report goes to stderr
expect 0 $TILE compile $K add_kernel --signature '*fp32,*fp32,*fp32,i32,64' --target cpu -o - --time
head -c 4 "$tmp/out" | od -c | grep -q 'E   L   F' || fail "-o - does not write an ELF object to stdout"
grep -q "compiled add_kernel" "$tmp/out" && fail "-o - mixed the report into the binary"
has "$tmp/err" "compiled add_kernel"
# output that cannot be written is an error that says why
expect 1 $TILE compile $K add_kernel --signature '*fp32,*fp32,*fp32,i32,64' --target cpu -o "$tmp/no/such/dir/k.o"
has "$tmp/err" "No such file or directory"
if [ -w /dev/full ]; then
	expect 1 sh -c "$TILE compile $K add_kernel --signature '*fp32,*fp32,*fp32,i32,64' --target cpu --emit tir >/dev/full"
	has "$tmp/err" "cannot write the output"
fi
# a failed write leaves the previous OUT whole; /dev/null stays a device
printf 'previous' >"$tmp/k.o"
expect 1 sh -c "trap '' XFSZ; ulimit -f 1; exec $TILE compile $K add_kernel --signature '*fp32,*fp32,*fp32,i32,64' --target cpu -o '$tmp/k.o'"
[ "$(cat "$tmp/k.o")" = previous ] || fail "a failed -o write destroyed the previous file"
ls "$tmp" | grep -q 'k.o.tmp' && fail "a failed -o write left its temporary file"
expect 0 $TILE compile $K add_kernel --signature '*fp32,*fp32,*fp32,i32,64' --target cpu -o /dev/null
[ -c /dev/null ] || fail "-o /dev/null replaced /dev/null"
expect 1 $TILE compile $K add_kernel --signature '*fp32,*fp32,*fp32,i32,64' --target cpu --emit cubin -o "$tmp/k.cubin"
has "$tmp/err" "--emit=cubin is not available for target 'cpu'"
# an option given twice is refused, not "the last wins"
expect 2 $TILE compile $K add_kernel --signature '*fp32,*fp32,*fp32,i32,64' --signature '*fp16,*fp16,*fp16,i32,64'
has "$tmp/err" "--signature is given twice"
expect 2 $TILE compile $K add_kernel --emit tir --emit llvm
expect 2 $TILE compile $K add_kernel -o "$tmp/a" -o "$tmp/b"
expect 2 $TILE compile $K add_kernel --signature '*fp32,*fp32,*fp32,i32,64' --target cpu --target sm_90a
has "$tmp/err" "--target is given twice ('cpu' and 'sm_90a')"
expect 2 $TILE compile $K add_kernel --signature '*fp32,*fp32,*fp32,i32,64' --target cpu --num-warps 4 --num-warps=8
has "$tmp/err" "--num-warps is given twice (4 and 8)"
expect 2 $TILE compile $K add_kernel --signature '*fp32,*fp32,*fp32,i32,64' --target cpu --num-stages 2 --num-stages 3
has "$tmp/err" "--num-stages is given twice"
expect 1 $TILE compile $K add_kernel --signature '*fp32,*fp32,*fp32,i32' --const BLOCK_SIZE=64 --const BLOCK_SIZE=128
has "$tmp/err" "parameter 'BLOCK_SIZE' is given twice"

# an architecture the loaded nvrtc does not know is a plain error (it was an
# "internal compiler error" quoting nvrtc's invalid-option message)
expect 1 $TILE compile $K add_kernel --signature '*fp32,*fp32,*fp32,i32' --const BLOCK_SIZE=64 \
	--target sm_999 --emit ptx -o /dev/null
if grep -q "internal compiler error" "$tmp/err"; then fail "sm_999: $(cat "$tmp/err")"; fi

# a constexpr whose default is a @jit function or a lambda may be left out, also
# before a parameter --const binds (it was "signature gives no entry for 'ACT'")
cat >"$tmp/act.py" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def twice(x):
    return x * 2


@triton.jit
def act(X, Y, ACT: tl.constexpr = twice, F: tl.constexpr = lambda v: v + 1, Z: tl.constexpr = 0):
    o = tl.arange(0, 64)
    tl.store(Y + o, F(ACT(tl.load(X + o))) + Z)
EOF
expect 0 $TILE compile "$tmp/act.py" act --signature '*fp32,*fp32' --target cpu
expect 0 $TILE compile "$tmp/act.py" act --signature '*fp32,*fp32' --const Z=3 --target cpu --emit tir
has "$tmp/out" "mul"
expect 0 $TILE compile "$tmp/act.py" act --signature '*fp32,*fp32' --const ACT=twice --const Z=3 --target cpu

# kernels named like what the generated code uses (a C++ keyword, libm's sinf,
# main) get the symbol tile_k_NAME: the plain name was an invalid LLVM module
# (sinf called with the kernel's type), a duplicate JIT symbol (sin) or a
# CUDA C error from nvrtc (int, main, xor, NULL and va_start, macros there,
# clock64, a C-linkage builtin, the CUDA runtime's cudaSuccess, cudaArrayDefault
# and CUDART_VERSION); `_` and WARP_SZ are no PTX identifiers (ptxas)
for name in int main sinf sin _ xor NULL va_start clock64 WARP_SZ cudaSuccess cudaArrayDefault CUDART_VERSION; do
	cat >"$tmp/named.py" <<EOF
import triton
import triton.language as tl
@triton.jit
def $name(X):
    x = tl.arange(0, 64)
    tl.store(X + x, tl.sin(tl.load(X + x)))
EOF
	expect 0 $TILE compile "$tmp/named.py" $name --signature '*fp32:16' --target cpu -o /dev/null
	expect 0 $TILE compile "$tmp/named.py" $name --signature '*fp32:16' --target sm_90a --emit cuda
	has "$tmp/out" "void __launch_bounds__(128) tile_k_$name("
	if $TILE --version | grep -q 'nvrtc: [0-9]'; then
		expect 0 $TILE compile "$tmp/named.py" $name --signature '*fp32:16' --target sm_90a \
			-o "$tmp/named.cubin"
	fi
done
# emit_c's f32 division helper, float div_full_f32(float, float): a kernel of
# that name and parameters was an overload by return type alone (nvrtc ICE)
printf 'import triton\nimport triton.language as tl\n@triton.jit\ndef div_full_f32(x, y):\n    tl.device_print("q", x / y)\n' >"$tmp/div.py"
expect 0 $TILE compile "$tmp/div.py" div_full_f32 --signature 'fp32,fp32' --target sm_90a --emit cuda
has "$tmp/out" ") tile_k_div_full_f32(float arg_x, float arg_y)"
if $TILE --version | grep -q 'nvrtc: [0-9]'; then
	expect 0 $TILE compile "$tmp/div.py" div_full_f32 --signature 'fp32,fp32' --target sm_90a --emit ptx -o /dev/null
fi

# a device_assert's file and line on the GPU come from its location, not from
# parsing "file:line: msg": a directory named a:1:b split the file name there
mkdir -p "$tmp/a:1:b"
printf 'import triton\nimport triton.language as tl\n@triton.jit\ndef k(X):\n    x = tl.load(X + tl.arange(0, 16))\n    tl.device_assert(x > 0, "x: positive")\n' \
	>"$tmp/a:1:b/k.py"
expect 0 $TILE compile "$tmp/a:1:b/k.py" k --signature '*i32' --target sm_90a --emit cuda --debug
has "$tmp/out" "__assertfail(\"x: positive\", \"$tmp/a:1:b/k.py\", 6, \"k\", 1);"
# without --debug (or TRITON_DEBUG=1) a device_assert is dropped, as Triton's
# semantic drops it: no check in the CUDA C
expect 0 $TILE compile "$tmp/a:1:b/k.py" k --signature '*i32' --target sm_90a --emit cuda
lacks "$tmp/out" "__assertfail"
expect 0 env TRITON_DEBUG=1 $TILE compile "$tmp/a:1:b/k.py" k --signature '*i32' --target sm_90a --emit cuda
has "$tmp/out" "__assertfail(\"x: positive\""

# on the CPU only a while loop that reads what other programs write (an
# atomic, a volatile load) calls the pool's spin check (jit/cpu_launch.h):
# one that only computes is a loop of its own, with no call
cat >"$tmp/spin.py" <<'EOF'
import triton
import triton.language as tl
@triton.jit
def k(F, out, n):
    i = 0
    acc = 0
    while i < n:
        acc = acc * 3 + i
        i += 1
    f = tl.load(F, volatile=True)
    while f == 0:
        f = tl.load(F, volatile=True)
    c = tl.atomic_add(F + 1, 0)
    while c < n:
        c = tl.atomic_add(F + 1, 0)
    tl.store(out, acc + f + c)
EOF
expect 0 $TILE compile "$tmp/spin.py" k --signature '*i32,*i32,i32' --target cpu --emit llvm
[ "$(grep -c 'call i32 @tile_rt_spin' "$tmp/out")" = 2 ] || fail "--emit llvm: tile_rt_spin is called in $(grep -c 'call i32 @tile_rt_spin' "$tmp/out") while loops, not the 2 that wait"

finish

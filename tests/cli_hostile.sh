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

# -o naming the kernel's own source (directly, through ./ or a symlink) is an
# error: it replaced the kernel with its ELF object or dump
SIG='*fp32:16,*fp32:16,*fp32:16,i32,1024'
cp kernels/vector_add.tile "$tmp/va.tile"
ln -s va.tile "$tmp/link.tile"
for o in "$tmp/va.tile" "$tmp/./va.tile" "$tmp/link.tile"; do
	for emit in "" "--emit=llvm" "--emit=ast"; do
		expect 1 $TILE compile "$tmp/va.tile" add_kernel --signature "$SIG" --target cpu $emit -o "$o"
		has "$tmp/err" "is the kernel's source file"
		cmp -s kernels/vector_add.tile "$tmp/va.tile" || fail "-o $o $emit overwrote the source"
		cp kernels/vector_add.tile "$tmp/va.tile"
	done
done
expect 0 $TILE compile "$tmp/link.tile" add_kernel --signature "$SIG" --target cpu -o "$tmp/va.o"
cmp -s kernels/vector_add.tile "$tmp/va.tile" || fail "-o va.o changed the source"

# so is -o naming a module the kernel's file imports (through a package too):
# it was overwritten with the ELF object
mkdir -p "$tmp/dep/pkg"
printf 'import triton\n\n\n@triton.jit\ndef two(x):\n    return x * 2\n' >"$tmp/dep/helpers.py"
printf 'from .inner import three\n' >"$tmp/dep/pkg/__init__.py"
printf 'import triton\n\n\n@triton.jit\ndef three(x):\n    return x * 3\n' >"$tmp/dep/pkg/inner.py"
printf 'import triton\nimport triton.language as tl\nimport helpers\nimport pkg\n\n\n@triton.jit\ndef k(X):\n    tl.store(X, pkg.three(helpers.two(1)))\n' \
	>"$tmp/dep/k.py"
for o in "$tmp/dep/helpers.py" "$tmp/dep/pkg/../helpers.py" "$tmp/dep/pkg/inner.py" "$tmp/dep/pkg/__init__.py"; do
	cp "$o" "$tmp/dep/saved"
	expect 1 $TILE compile "$tmp/dep/k.py" k --signature '*i32' --target cpu -o "$o"
	has "$tmp/err" "a module the kernel's file imports"
	cmp -s "$tmp/dep/saved" "$o" || fail "-o $o overwrote an imported module"
done
expect 0 $TILE compile "$tmp/dep/k.py" k --signature '*i32' --target cpu -o "$tmp/dep/k.o"

# a kernel name longer than the symbol buffer (Python has no limit) runs, on
# a cold and a warm cache: the JIT looked up the name cut at 127 characters
long=$(printf 'k%.0s' $(seq 1 200))
printf 'import triton\nimport triton.language as tl\n@triton.jit\ndef %s(X):\n    x = tl.arange(0, 64)\n    tl.store(X + x, tl.load(X + x) * 2.0 + 1.0)\n' \
	"$long" >"$tmp/long.py"
npy_f32 "$tmp/one.npy" 64 '\000\000\200\077'
for t in cpu cpu cuda-emu; do
	expect 0 $TILE run "$tmp/long.py" "$long" --target $t X=@"$tmp/one.npy" --print
	has "$tmp/out" "[3., 3., 3.,"
done

# --out-dir with a parameter named past the file system's NAME_MAX: refused
# before the kernel runs (it failed after the run, "File name too long"), with
# the reason (the 256-byte message cut it off after the path)
printf 'import triton\nimport triton.language as tl\n@triton.jit\ndef k(%s):\n    x = tl.arange(0, 64)\n    tl.device_print("ran", x)\n    tl.store(%s + x, 1.0)\n' \
	"$long$long" "$long$long" >"$tmp/param.py"
expect 1 $TILE run "$tmp/param.py" k --target cpu "$long$long=@$tmp/one.npy" --out-dir "$tmp/outs"
has "$tmp/err" "--out-dir: the file for array 'kkkk"
has "$tmp/err" "(400 characters and .npy) would have a name longer than the"
grep -q "ran" "$tmp/out" && fail "--out-dir: the kernel ran before the name was refused"

# a kernel importing a module beside it or in the directory above, run from a
# working directory deeper than PATH_MAX: the import looked the module up by
# its absolute path, which cannot be opened ("unknown module 'helper'")
abs=$(cd "$(dirname "$TILE")" && pwd)/$(basename "$TILE")
d250=$(printf 'd%.0s' $(seq 1 250))
(
	cd "$tmp" || exit 1
	for i in $(seq 1 18); do mkdir "$d250" && cd -P "$d250" || exit 1; done
	printf 'import triton\n@triton.jit\ndef two(x):\n    return x * 2\n' >helper.py
	printf 'import triton\nimport triton.language as tl\nfrom helper import two\n@triton.jit\ndef k(X):\n    x = tl.arange(0, 64)\n    tl.store(X + x, two(tl.load(X + x)))\n' >m.py
	mkdir sub && cp m.py sub/m.py
	"$abs" run m.py k --target cpu X=@"$tmp/one.npy" --print >"$tmp/deep1" 2>&1
	cd -P sub && "$abs" run m.py k --target cpu X=@"$tmp/one.npy" --print >"$tmp/deep2" 2>&1
)
has "$tmp/deep1" "[2., 2., 2.,"
has "$tmp/deep2" "[2., 2., 2.,"

# device_print on the CPU targets with a 300-character prefix and a value
# printed in 300 digits: each line whole, as the GPU's printf prints it (a
# 512-byte line cut the prefix at 200 and ran the long values together)
pre=$(printf 'p%.0s' $(seq 1 300))
printf 'import triton\nimport triton.language as tl\n@triton.jit\ndef k(X):\n    x = tl.load(X)\n    tl.device_print("%s", x)\n    tl.device_print("%s", x * 1e300)\n' \
	"$pre" "$pre" >"$tmp/print.py"
npy_arr "$tmp/d.npy" '<f8' 1 '\000\000\000\000\000\000\010\100'
for t in cpu cuda-emu; do
	expect 0 $TILE run "$tmp/print.py" k --target $t --num-warps 1 X=@"$tmp/d.npy"
	n=$(grep -c "$pre: 3.000000\$" "$tmp/out")
	m=$(grep -c "$pre: 3000000000000[0-9]*\.000000\$" "$tmp/out")
	[ "$n" -gt 0 ] && [ "$n" = "$m" ] && [ "$(wc -l <"$tmp/out")" = $((n + m)) ] ||
		fail "$t: device_print lines cut: $n short and $m long lines of $(wc -l <"$tmp/out")"
done

# a failed device_assert with a 300-character message: the launch error keeps
# all of it and where it failed (a 256-byte copy cut both off)
printf 'import triton\nimport triton.language as tl\n@triton.jit\ndef k(X):\n    x = tl.load(X)\n    tl.device_assert(x < 0, "%s")\n' \
	"$pre" >"$tmp/assert.py"
for t in cpu cuda-emu; do
	expect 1 $TILE run "$tmp/assert.py" k --target $t --debug X=@"$tmp/d.npy"
	has "$tmp/err" "assert.py:6: $pre (program (0, 0, 0), thread 0)"
done

# a device_assert fails once per thread that holds a failing element, as
# Triton's GPU lowering checks a thread's elements together: on the cpu (1 warp
# of 8 lanes, 2 elements each: i and i + 8) x < 5 over arange(16) fails in all
# 8 lanes (one assert per register stopped at the first register and counted 3);
# cuda-emu's warp is 32 lanes, each element held by 2 of them: 22 threads
printf 'import triton\nimport triton.language as tl\n@triton.jit\ndef k(X):\n    x = tl.load(X + tl.arange(0, 16))\n    tl.device_assert(x < 5, "small")\n' >"$tmp/assert16.py"
expect 1 $TILE run "$tmp/assert16.py" k --target cpu --num-warps 1 --debug 'X=arange(16)'
has "$tmp/err" "device_assert failed in 8 threads: "
expect 1 $TILE run "$tmp/assert16.py" k --target cuda-emu --num-warps 1 --debug 'X=arange(16)'
has "$tmp/err" "device_assert failed in 22 threads: "
expect 2 $TILE run "$tmp/assert16.py" k --debug --debug 'X=arange(16)'
has "$tmp/err" "--debug is given twice"

# without debug a device_assert or a runtime `assert` is dropped, as Triton's
# semantic drops it (debug=True, --debug, TRITON_DEBUG=1 keep it): the store
# after it runs. `assert False` in a branch the program never takes compiles
# (it was "assertion failed" at compile time); with debug it fails where taken.
cat >"$tmp/nodebug.py" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def k(X, mode):
    x = tl.load(X + tl.arange(0, 4))
    tl.device_assert(x < 0, "negative")
    assert x.sum() < 0, "negative sum"
    if mode == 0:
        x = x + 1
    else:
        assert False, "unknown mode"
    tl.store(X + tl.arange(0, 4), x)


@triton.jit(debug=True)
def kd(X):
    x = tl.load(X + tl.arange(0, 4))
    tl.device_assert(x < 0, "kept by the decorator")
EOF
for t in cpu cuda-emu; do
	expect 0 $TILE run "$tmp/nodebug.py" k --target $t 'X=arange(4)' mode=0 --print
	has "$tmp/out" "[1, 2, 3, 4]"
	expect 1 $TILE run "$tmp/nodebug.py" k --target $t 'X=arange(4)' mode=0 --debug
	has "$tmp/err" ": negative (program (0, 0, 0)"
	expect 1 $TILE run "$tmp/nodebug.py" k --target $t 'X=[-1, -2, -3, -4]' mode=2 --debug
	has "$tmp/err" ": unknown mode (program (0, 0, 0)"
	expect 0 $TILE run "$tmp/nodebug.py" k --target $t 'X=[-1, -2, -3, -4]' mode=0 --debug
	expect 1 $TILE run "$tmp/nodebug.py" kd --target $t 'X=arange(4)'
	has "$tmp/err" ": kept by the decorator"
done

# a runtime range step of 0 over a range that is not empty never ends
# (Triton's loop hangs the GPU): a failed check naming the loop instead, with
# or without debug; an empty range with step 0 runs nothing, as before
cat >"$tmp/step0.py" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def k(X, n, s):
    acc = 0
    for i in range(0, n, s):
        acc += i
    tl.store(X, acc)
EOF
for t in cpu cuda-emu; do
	expect 0 $TILE run "$tmp/step0.py" k --target $t 'X=[0]' n=10 s=3 --print
	has "$tmp/out" "[18]"
	expect 1 timeout 120 $TILE run "$tmp/step0.py" k --target $t 'X=[0]' n=10 s=0 # 124 without the check
	has "$tmp/err" "step0.py:8: range step is 0: the loop would never end"
	expect 0 $TILE run "$tmp/step0.py" k --target $t 'X=[5]' n=0 s=0 --print
	has "$tmp/out" "[0]"
done

# tile run of a kernel whose decorators fail: their error (or why a config
# could not be read), not "missing argument 'B'" for the parameter they set,
# as tile compile and tile_kernel_get report it
for deco in '@triton.autotune(configs=None, key=["N"])' '@triton.heuristics(5)' \
	'@triton.autotune(configs=[triton.Config(5)], key=["N"])'; do
	printf 'import triton\nimport triton.language as tl\n%s\n@triton.jit\ndef k(X, N, B: tl.constexpr):\n    o = tl.arange(0, B)\n    tl.store(X + o, 1.0, mask=o < N)\n' \
		"$deco" >"$tmp/deco.py"
	expect 1 $TILE run "$tmp/deco.py" k --target cpu X=@"$tmp/one.npy" N=64
	case $deco in
	*None*) has "$tmp/err" "deco.py:3:26: error: configs of @triton.autotune must be a list of triton.Config, got None" ;;
	*5\)) has "$tmp/err" "deco.py:3:20: error: @triton.heuristics takes a dict of parameter name -> function, got int" ;;
	*) has "$tmp/err" "missing argument 'B' for kernel 'k'; the @triton.autotune configs at line 3 could not be evaluated" ;;
	esac
done

# a kernel faulting past an array whose parameter name is 400 characters:
# the message keeps its end (a 200-byte buffer cut the size, the advice and
# the newline)
printf 'import triton\nimport triton.language as tl\n@triton.jit\ndef k(%s):\n    tl.store(%s + tl.arange(0, 64), 1.0)\n' \
	"$long$long" "$long$long" >"$tmp/fault.py"
expect 1 $TILE run "$tmp/fault.py" k --target cpu "$long$long=zeros(4)"
has "$tmp/err" "kkkk' (16 bytes); check --grid and the sizes passed"

# a float bound to a constexpr parameter named num_warps, which is also the
# launch option (Triton's option check fails on it): the kernel compiled
# for 4 warps
printf 'import triton\nimport triton.language as tl\n@triton.jit\ndef k(X, num_warps: tl.constexpr):\n    tl.store(X + tl.arange(0, 8), 1.0)\n' >"$tmp/nw.py"
expect 1 $TILE run "$tmp/nw.py" k --target cpu X='zeros(8)' num_warps=1.5
has "$tmp/err" "parameter 'num_warps' of kernel 'k' is 1.5, which is also the launch option num_warps: it must be an int"
expect 1 $TILE compile "$tmp/nw.py" k --signature '*fp32,2.0' --target cpu
has "$tmp/err" "is 2.0, which is also the launch option num_warps: it must be an int"

# a float for a parameter annotated with an integer dtype (Triton's launcher
# cannot pack it): the kernel was specialized for fp32 and computed with 1.5
printf 'import triton\nimport triton.language as tl\n@triton.jit\ndef k(X, a: tl.int8, d: tl.int1):\n    tl.store(X, a.to(tl.float32) + d.to(tl.float32))\n' >"$tmp/ann.py"
expect 1 $TILE run "$tmp/ann.py" k --target cpu X='zeros(1)' a=1.5 d=True
has "$tmp/err" "argument 'a' is a float, but the parameter is annotated tl.int8: pass an integer"
expect 1 $TILE run "$tmp/ann.py" k --target cpu X='zeros(1)' a=1 d=1.0
has "$tmp/err" "argument 'd' is a float, but the parameter is annotated tl.int1: pass True or False"
expect 0 $TILE run "$tmp/ann.py" k --target cpu X='zeros(1)' a=-3 d=True --print
has "$tmp/out" "[-2.]"

# --out-dir writing an array's file over the kernel's source (a kernel file
# named X.npy, or a link there to the kernel or a module it imports): refused
# before the run, as -o is; the source was replaced by the array
mkdir -p "$tmp/od"
printf 'import triton\nimport triton.language as tl\nimport helpers\n@triton.jit\ndef k(X, Y):\n    x = tl.arange(0, 64)\n    tl.device_print("ran", x)\n    tl.store(X + x, helpers.two(1.0))\n' >"$tmp/od/X.npy"
printf 'import triton\n\n\n@triton.jit\ndef two(x):\n    return x * 2\n' >"$tmp/od/helpers.py"
ln -s helpers.py "$tmp/od/Y.npy"
cp "$tmp/od/X.npy" "$tmp/od/saved"
cp "$tmp/od/helpers.py" "$tmp/od/saved_h"
expect 1 $TILE run "$tmp/od/X.npy" k --target cpu X="zeros(64)" Y="zeros(1)" --out-dir "$tmp/od"
has "$tmp/err" "--out-dir: '$tmp/od/X.npy', the file for array 'X', is the kernel's source '$tmp/od/X.npy'"
grep -q "ran" "$tmp/out" && fail "--out-dir over the source: the kernel ran before it was refused"
cmp -s "$tmp/od/saved" "$tmp/od/X.npy" || fail "--out-dir overwrote the kernel's source"
mv "$tmp/od/X.npy" "$tmp/od/k.py"
expect 1 $TILE run "$tmp/od/k.py" k --target cpu X="zeros(64)" Y="zeros(1)" --out-dir "$tmp/od"
has "$tmp/err" "the file for array 'Y', is the kernel's source '$tmp/od/helpers.py'"
cmp -s "$tmp/od/saved_h" "$tmp/od/helpers.py" || fail "--out-dir overwrote an imported module"
rm "$tmp/od/Y.npy"
expect 0 $TILE run "$tmp/od/k.py" k --target cpu X="zeros(64)" Y="zeros(1)" --out-dir "$tmp/od"

# --emulate=cuda is --target cuda-emu: given with --target (or twice) it is a
# usage error; with --target cpu it ran on cuda-emu, silently
for opts in "--target cpu --emulate=cuda" "--emulate=cuda --target=sm_80" "--emulate=cuda --emulate=cuda"; do
	expect 2 $TILE compile "$tmp/od/k.py" k --signature '*fp32,*fp32' $opts
	expect 2 $TILE run $opts "$tmp/od/k.py" k X="zeros(64)" Y="zeros(1)"
done
has "$tmp/err" "--emulate=cuda is given twice"
expect 2 $TILE compile "$tmp/od/k.py" k --signature '*fp32,*fp32' --target cpu --emulate=cuda
has "$tmp/err" "--emulate=cuda is given with --target cpu (it is --target cuda-emu)"
expect 2 $TILE compile "$tmp/od/k.py" k --signature '*fp32,*fp32' --emulate=cuda --target=sm_80
has "$tmp/err" "--target sm_80 is given with --emulate=cuda"
expect 0 $TILE compile "$tmp/od/k.py" k --signature '*fp32,*fp32' --emulate=cuda
has "$tmp/out" "compiled k for cuda-emu"

# --no-fp-fusion twice to tile run (before and after the kernel): a usage
# error, as for compile and every other option; run took it silently
expect 2 $TILE run --no-fp-fusion "$tmp/od/k.py" k --target cpu X="zeros(64)" Y="zeros(1)" --no-fp-fusion
has "$tmp/err" "--no-fp-fusion is given twice"
expect 0 $TILE run "$tmp/od/k.py" k --target cpu X="zeros(64)" Y="zeros(1)" --no-fp-fusion

# a kernel file whose name starts with '-': '--' ends the options (compile:
# FILE and KERNEL follow; run: FILE, KERNEL and NAME=VALUE) where '--' was an
# unknown option; without it `tile run -k.py k` said "cannot open 'k'"
cp "$tmp/od/k.py" "$tmp/od/-k.py"
(
	cd "$tmp/od" || exit 1
	expect 0 "$abs" compile --target cpu --signature '*fp32,*fp32' -- -k.py k
	has "$tmp/out" "compiled k for cpu"
	expect 0 "$abs" run --target cpu --print -- -k.py k X="zeros(64)" Y="zeros(1)"
	has "$tmp/out" "[2., 2., 2.,"
	expect 2 "$abs" run --target cpu -- -k.py k --print X="zeros(64)" Y="zeros(1)"
	has "$tmp/err" "run: '--print' after '--' is no NAME=VALUE (options go before '--')"
	expect 2 "$abs" run --target cpu -k.py k X="zeros(64)" Y="zeros(1)"
	has "$tmp/err" "run: unknown option '-k.py' (a FILE whose name starts with '-': put '--' before it)"
	expect 2 "$abs" compile --target cpu -k.py k
	has "$tmp/err" "compile: unknown option '-k.py' (a FILE whose name starts with '-': put '--' before it)"
	exit "$nfail"
) || nfail=$((nfail + $?))

# a kernel with more runtime parameters than a launch takes (512) is refused
# before it is built: 5000 pointers compiled for the CPU, where no launch could
# pass them, and on a GPU target were "internal compiler error in emit_cuda"
# (nvrtc: 40000 bytes of parameters, over CUDA's 32764)
awk 'BEGIN { printf "import triton\nimport triton.language as tl\n@triton.jit\ndef k(";
	for (i = 0; i < 5000; i++) printf "%sp%d", i ? ", " : "", i;
	printf "):\n    tl.store(p4999, 1)\n" }' >"$tmp/params.py"
sig=$(awk 'BEGIN { for (i = 0; i < 5000; i++) printf "%s*i32", i ? "," : "" }')
expect 1 $TILE compile "$tmp/params.py" k --signature "$sig" --target cpu -o /dev/null
has "$tmp/err" "kernel 'k' has 5000 runtime parameters; tile allows at most 512"

# a stray or unclosed bracket in one --signature entry is an error about that
# entry: a '<' opens only after `tensordesc`, a comma ends an unclosed '<' and a
# closer ends what it left open (each quoted the whole rest of the signature);
# a tuple that is never closed says so
printf 'import triton\nimport triton.language as tl\n@triton.jit\ndef k(d, Y, n, B: tl.constexpr):\n    tl.store(Y + tl.arange(0, B), d.load([0]))\n' >"$tmp/sig.py"
for e in 'tensordesc<<fp16[64]>' 'tensordesc<fp16[64]' 'tensordesc<fp16[64>'; do
	expect 1 $TILE compile "$tmp/sig.py" k --signature "$e,*fp16:16,i32,64" --target cpu -o /dev/null
	has "$tmp/err" "signature entry '$e' for parameter 'd' is not a tensor descriptor type"
done
expect 1 $TILE compile "$tmp/sig.py" k --signature '(i32, i32,*fp16:16,i32,64' --target cpu -o /dev/null
has "$tmp/err" "opens a tuple that is never closed"
expect 0 $TILE compile "$tmp/sig.py" k --signature 'tensordesc<fp16[64]>:16,*fp16:16,i32,64' --target cpu -o /dev/null

# a file that declares an encoding other than UTF-8 and Latin-1 is taken only
# while it is ASCII (its bytes past that, read as UTF-8, were other strings
# than Python's), and a declaration after a UTF-8 BOM is Python's "encoding
# problem" (both were taken)
printf '# vim: set fileencoding=cp1252 :\nimport triton\nimport triton.language as tl\n@triton.jit\ndef k(X):\n    tl.store(X, ord("\200"))\n' >"$tmp/cp1252.py"
expect 1 $TILE compile "$tmp/cp1252.py" k --signature '*i32' --target cpu -o /dev/null
has "$tmp/err" "cp1252.py:6:22: error: byte 0x80 in a file that declares the encoding 'cp1252'"
printf '# vim: set fileencoding=cp1252 :\nimport triton\nimport triton.language as tl\n@triton.jit\ndef k(X):\n    tl.store(X, 1)\n' >"$tmp/cp1252.py"
expect 0 $TILE compile "$tmp/cp1252.py" k --signature '*i32' --target cpu -o /dev/null
printf '\357\273\277# coding: latin-1\nimport triton\nimport triton.language as tl\n@triton.jit\ndef k(X):\n    tl.store(X, 1)\n' >"$tmp/bomlatin.py"
expect 1 $TILE compile "$tmp/bomlatin.py" k --signature '*i32' --target cpu -o /dev/null
has "$tmp/err" "encoding problem: latin_1 with BOM"

# an f-string's literal text reads as any string's: a CRLF or lone CR line
# break in it is \n (len(f"""{1}<CRLF>{2}""") was 4, Python's 3), a backslash
# before a line break continues the line, and \x41, \101, \u00e9 are escapes
# (they were "not supported"); a field's line counts lone CRs too
for eol in '\r\n' '\r'; do
	printf "import triton\nimport triton.language as tl\nV = len(f'''{1}${eol}{2}''') * 1000000 + len(f'ab\\\\${eol}cd{1}') * 10000 + ord(f'\\\\x41{1}'[0]) * 10 + len(f'\\\\101\\\\u00e9{1}')${eol}@triton.jit${eol}def k(X):${eol}    tl.store(X, V)${eol}" >"$tmp/fcr.py"
	expect 0 $TILE run "$tmp/fcr.py" k --target cpu --grid 1 X='zeros(1,dtype=int64)' --print
	has "$tmp/out" "[3050653]"
done
printf "import triton\nimport triton.language as tl\nV = f'''{1}\r\r{1 +* 2}'''\n@triton.jit\ndef k(X):\n    tl.store(X, len(V))\n" >"$tmp/fcr.py"
expect 1 $TILE compile "$tmp/fcr.py" k --signature '*i32' --target cpu -o /dev/null
has "$tmp/err" "(line 5, column 5:"

# a module-level `M.X = v` sets X of what M names, an imported module or a
# class of the module, as Python runs it at import: the kernel (compiled after)
# and M's own functions read v (they read the value M bound, silently), `+=`
# and `Cfg.X = Cfg.X * 2` go in order, a `from M import X` before the statement
# keeps the value X had (S0 = 2); statements in two modules are an error
mkdir -p "$tmp/aset"
printf 'import triton\nimport triton.language as tl\nSCALE = tl.constexpr(2)\n\n\n@triton.jit\ndef pub(v):\n    return v * SCALE + 1\n' >"$tmp/aset/alib.py"
printf 'import alib\nimport triton.language as tl\nalib.SCALE = tl.constexpr(9)\n' >"$tmp/aset/alib2.py"
cat >"$tmp/aset/k.py" <<'EOF'
import triton
import triton.language as tl
import alib
from alib import SCALE as S0


class Cfg:
    OFF = 1
    MUL = 3


alib.SCALE = tl.constexpr(5)
Cfg.OFF = 7
Cfg.OFF = Cfg.OFF * 2
Cfg.MUL += 1


@triton.jit
def k(X):
    tl.store(X, alib.pub(1) * 1000 + alib.SCALE * 100 + Cfg.OFF + Cfg.MUL * 10000 + S0 * 1000000)
EOF
for t in cpu cuda-emu; do
	expect 0 $TILE run "$tmp/aset/k.py" k --target $t --grid 1 X='zeros(1,dtype=int32)' --print
	has "$tmp/out" "[2046514]"
done
printf 'import triton\nimport triton.language as tl\nimport alib\nimport alib2\nalib.SCALE = tl.constexpr(5)\nalib2.unused = 1\n\n\n@triton.jit\ndef k(X):\n    tl.store(X, alib2.alib.SCALE + alib.SCALE)\n' >"$tmp/aset/k2.py"
expect 1 $TILE compile "$tmp/aset/k2.py" k --signature '*i32' --target cpu -o /dev/null
has "$tmp/err" "'SCALE' is set by module-level 'alib.SCALE = ...' statements in more than one module"

finish

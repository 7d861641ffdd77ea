#!/bin/sh
# Costly math functions (sin, cos, pow, ...) are inline CUDA: past a budget of
# copies in one kernel they are called out of line through one __noinline__
# wrapper each (src/codegen/emit_c_math.c). Twelve sin/cos on a 1024-element
# tile made a 600 KB cubin and took seconds of nvrtc; few copies stay inline,
# and so do cheap functions (exp) whatever their count.
set -u
tile=build/tile
[ -x "$tile" ] || { echo "skip: build/tile not built"; exit 77; }
if $tile --version 2>&1 | grep -q "nvrtc: not found"; then
	echo "skip: no libnvrtc"
	exit 77
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/k.tile" <<'K'
import triton
import triton.language as tl

@triton.jit
def waves(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    a = tl.sin(x) * tl.cos(x * 2.0) + tl.sin(x * 3.0) * tl.cos(x * 4.0)
    b = tl.sin(a) * tl.cos(a * 2.0) + tl.sin(a * 3.0) * tl.cos(a * 4.0)
    c = tl.exp(b) + tl.exp(b * 0.5) + tl.exp(b * 0.25)
    tl.store(y_ptr + offs, c, mask=m)

@triton.jit
def one_sin(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.sin(tl.load(x_ptr + offs, mask=m)), mask=m)

@triton.jit
def powers(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(y_ptr + offs, libdevice.pow(x, x * 0.5) + libdevice.pow(x, 3.0), mask=m)
K
sed -i 's/^import triton.language as tl$/import triton.language as tl\nfrom triton.language.extra import libdevice/' "$dir/k.tile"
fail=0
emit() { # KERNEL DTYPE BLOCK ARCH FORM [OUT]
	$tile compile "$dir/k.tile" "$1" --signature "*$2:16,*$2:16,i32,$3" --target "$4" \
		--emit "$5" ${6:+-o "$6"} 2>&1
}
src=$(emit waves fp32 1024 sm_90a cuda)
for f in sinf cosf; do
	printf '%s\n' "$src" | grep -q "__noinline__ float tile_$f(float a0)" ||
		{ echo "FAIL: waves: no out-of-line $f"; fail=1; }
done
printf '%s\n' "$src" | grep -q "tile_expf" && { echo "FAIL: waves: exp called out of line"; fail=1; }
printf '%s\n' "$src" | grep -q " expf(" || { echo "FAIL: waves: no inline expf"; fail=1; }
for arch in sm_80 sm_90a; do
	if out=$(emit waves fp32 1024 $arch cubin "$dir/w.cubin"); then
		size=$(wc -c < "$dir/w.cubin")
		[ "$size" -lt 200000 ] || { echo "FAIL: waves $arch: cubin of $size bytes"; fail=1; }
	else
		echo "FAIL: waves $arch: $out"; fail=1
	fi
done
src=$(emit one_sin fp32 256 sm_90a cuda)
printf '%s\n' "$src" | grep -q "__noinline__" && { echo "FAIL: one_sin: called out of line"; fail=1; }
printf '%s\n' "$src" | grep -q " sinf(" || { echo "FAIL: one_sin: no inline sinf"; fail=1; }
src=$(emit powers fp64 1024 sm_90a cuda)
printf '%s\n' "$src" | grep -q "__noinline__ double tile_pow(double a0, double a1)" ||
	{ echo "FAIL: powers fp64: no out-of-line pow"; fail=1; }
out=$(emit powers fp64 1024 sm_80 cubin "$dir/p.cubin") || { echo "FAIL: powers sm_80: $out"; fail=1; }
[ $fail = 0 ] && echo "ok: costly math called out of line past the budget, cheap math inline"
exit $fail

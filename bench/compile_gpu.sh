#!/bin/sh
# bench/compile_gpu.sh: where the latency of an sm_90a compile goes as the
# per-thread program grows (not part of `make bench`: the big sizes take
# minutes). For each BLOCK of bench/kernels/ew_exp.tile (or iota.tile, a
# store-only kernel that never spills) over 4 warps: the
# wall time of `tile compile --emit cubin` (fresh kernel cache, nvrtc's
# cache off), tile's own stages (--time: sema, layout, lower), how many
# times nvrtc ran (spill retries and variants, from TILE_NVRTC_LOG), ptxas's
# share (its "Compile time" lines summed) and the rest of codegen (nvrtc's
# CUDA C -> PTX front end, and tile printing the CUDA C), the CUDA C's size,
# and the kept cubin's registers and spills.
#
#   sh bench/compile_gpu.sh [BLOCK...]     default: 1024 2048 4096 8192 16384 32768
#   TILE_BIN=path  another build;  BENCH_WARPS=N  num_warps (default 4)
#   BENCH_KERNEL=iota  the store-only kernel (default ew_exp)
#   BENCH_OUT=FILE  also write the table there (markdown)
cd "$(dirname "$0")/.." || exit 1
TILE=${TILE_BIN:-build/tile}
[ -x "$TILE" ] || { echo "bench: $TILE is not built" >&2; exit 1; }
$TILE --version | grep -q "^nvrtc: [0-9]" || { echo "bench: no libnvrtc" >&2; exit 1; }
W=${BENCH_WARPS:-4}
[ $# -gt 0 ] || set -- 1024 2048 4096 8192 16384 32768
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tile-cbench.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
case ${BENCH_KERNEL:-ew_exp} in
ew_exp) K=bench/kernels/ew_exp.tile sig0="*fp32,*fp32,*fp32,i32" ;;
iota) K=bench/kernels/iota.tile sig0="*i32,i32" ;;
*) echo "bench: BENCH_KERNEL is ew_exp or iota" >&2; exit 1 ;;
esac
out=$tmp/table
{
	echo "| BLOCK | elems/thread | wall s | sema+layout+lower ms | nvrtc runs | ptxas s | rest of codegen s | CUDA C KB | regs | spill B |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
} >"$out"
for B in "$@"; do
	sig="$sig0,$B"
	rm -rf "$tmp/cache"
	t0=$(date +%s.%N)
	TILE_CACHE_DIR=$tmp/cache CUDA_CACHE_DISABLE=1 TILE_NVRTC_LOG=1 $TILE compile $K k --signature "$sig" \
		--num-warps "$W" --target sm_90a --emit cubin -o "$tmp/k.cubin" --time >"$tmp/out" 2>"$tmp/err"
	rc=$?
	t1=$(date +%s.%N)
	TILE_CACHE_DIR=$tmp/cache $TILE compile $K k --signature "$sig" --num-warps "$W" --target sm_90a \
		--emit cuda >"$tmp/k.cu" 2>/dev/null
	rep=$(TILE_CACHE_DIR=$tmp/cache $TILE compile $K k --signature "$sig" --num-warps "$W" --target sm_90a 2>&1 | tail -n 1)
	awk -v B="$B" -v W="$W" -v t0="$t0" -v t1="$t1" -v rc="$rc" -v cu="$(wc -c <"$tmp/k.cu")" -v rep="$rep" '
		/^tile: nvrtc / { runs++ }
		/Compile time = / { for (i = 1; i <= NF; i++) if ($i == "=") ptx += $(i + 1) / 1000 }
		/^time:/ { for (i = 1; i <= NF; i++) { if ($i == "sema" || $i == "layout" || $i == "lower") fe += $(i + 1); if ($i == "codegen") cg = $(i + 1) / 1000 } }
		END {
			regs = rep; sub(/ registers.*/, "", regs); sub(/.* /, "", regs)
			sp = rep; sub(/ bytes spilled.*/, "", sp); sub(/.*registers, /, "", sp)
			printf "| %s | %d | %.2f%s | %.1f | %d | %.2f | %.2f | %.0f | %s | %s |\n", B, B / (32 * W), t1 - t0,
			       rc ? " (rc " rc ")" : "", fe, runs, ptx, cg - ptx, cu / 1024, regs, sp
		}' "$tmp/err" >>"$out"
	tail -n 1 "$out"
done
[ -z "$BENCH_OUT" ] || cp "$out" "$BENCH_OUT"

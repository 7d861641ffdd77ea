#!/bin/bash
# on_device.sh: the GPU checks of issue 3 in one command, for a GPU machine that
# has none of our build dependencies (see README.md here).
#
# On the build machine (repository root):
#   ./configure && make -j2
#   /work/shared/tools/devpack -o .devpack build/tile build/libtile.so build/tests/* build/examples/*
# On the GPU machine (repository root, .devpack carried):
#   bash bench/gpu/on_device.sh [STEP...]     (default: env suite kernels sanitize bench-quick)
#
# Steps: env (machine, driver, toolkit), suite (the whole `make check` runner),
# kernels (kernels/ on target cuda, num_stages 1-4), sanitize (compute-sanitizer
# memcheck and racecheck on the kernel suite), bench-quick / bench (bench_gpu.py),
# sweep (tile's fp16 matmul over more configurations than the tutorial's), regs
# (registers and spills per thread, tile vs Triton, same kernels and arguments),
# mixed (layer norm with fp32 weights, atomic_add accumulation: tile vs Triton),
# w8 (int8-weight matmul: tile with and without value-load pipelining, Triton, cuBLAS),
# paged (attention through kv_indices: tile paged, Triton paged, tile contiguous).
# Each step's log goes to $OUT (or /tmp/tile-gpu) as STEP.log; one line per
# step is printed at the end.
set -u
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-/tmp/tile-gpu}
mkdir -p "$out"
# two invocations may start together (one in the background): unpack once
flock .devpack/.lock bash -c '[ -d .devpack/bin ] || tar -xJf .devpack/payload.tar.xz -C .devpack' &&
	source .devpack/env.sh || exit 1
dp=$(cd .devpack && pwd)

# tests/run.sh expects the build tree: point it at the carried binaries (on a
# machine that has a build tree of its own, leave it alone)
if [ -e build/libtile.so ] && [ ! -L build/libtile.so ]; then
	echo "on_device.sh: build/ holds a real build; run this on the GPU machine" >&2
	exit 2
fi
mkdir -p build/tests build/examples
ln -sf "$dp/bin/tile" build/tile
ln -sf "$dp/bin/libtile.so" build/libtile.so
for f in "$dp"/bin/test_*; do ln -sf "$f" build/tests/; done
[ -x "$dp/bin/embed" ] && ln -sf "$dp/bin/embed" build/examples/embed
export TILE_CACHE_DIR=/tmp/tile-cache.$$ # one per invocation (two may run at once), not in $OUT
summary=""

step() { # step NAME LIMIT_S CMD...: runs CMD with a time limit, logs, records its status
	local name=$1 limit=$2 t0=$SECONDS st
	shift 2
	timeout "$limit" bash -c '"$@"' bash "$@" >"$out/$name.log" 2>&1 # functions too (export -f)
	st=$?
	summary+=$(printf '%-11s exit %3d  %4d s  %s' "$name" "$st" $((SECONDS - t0)) \
		"$(tail -n 1 "$out/$name.log")")$'\n'
}

env_step() {
	nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
	nvcc --version | tail -n 2
	python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'
	ldconfig -p | grep -E 'libnvrtc|libcuda\.' | head
	ls /usr/local/cuda/lib64/libnvrtc* 2>&1 | head -3
	uname -r; nproc; cat /etc/os-release | head -2
	tile --version
	tile compile --target cuda kernels/softmax.tile softmax_kernel --signature '*fp32:16,*fp32:16,i32,i32,i32,i32,1024' 2>&1 | head -20
	# test_emit_c's spill retry did not happen on the H100 in session 9: nvrtc's logs
	TILE_NVRTC_LOG=1 tile compile bench/gpu/spill_probe.tile mm4 --target sm_90a \
		--signature '*fp16:16,*fp16:16,*fp32:16,*fp32:16,i32:16,64,128,32' 2>&1 | tail -n 20
}

# one process per kernel group: a fault poisons its CUDA context, not the others'
kernels_step() {
	local st=0 g
	for g in vector_add softmax layer_norm rms_norm "matmul fp32" "matmul fp16" \
		"matmul_block_ptr fp32" "matmul_block_ptr fp16" "matmul_descriptor fp32" \
		"matmul_descriptor fp16" matmul_w8 attention dropout row_reduce cumsum swiglu; do
		echo "== $g"
		TILE_TEST_TARGETS=cuda TILE_TEST_NUM_STAGES=1,2,3,4 TILE_TEST_ONLY="$g" \
			build/tests/test_kernels 2>&1 | tail -n 30
		[ "${PIPESTATUS[0]}" = 0 ] || st=1
	done
	echo "kernels on cuda: $([ $st = 0 ] && echo all groups passed || echo FAILURES)"
	return $st
}

sanitize_step() {
	local st=0
	echo "== compute-sanitizer --tool memcheck test_emit_c (hand-built thread programs)"
	compute-sanitizer --tool memcheck --error-exitcode 3 --print-limit 10 build/tests/test_emit_c || st=1
	for tool in memcheck racecheck; do
		echo "== compute-sanitizer --tool $tool"
		TILE_TEST_TARGETS=cuda TILE_TEST_NUM_STAGES=1,2,3,4 compute-sanitizer --tool $tool --error-exitcode 3 \
			--print-limit 20 build/tests/test_kernels || st=1
	done
	echo "sanitizers: $([ $st = 0 ] && echo clean || echo FOUND ERRORS)"
	return $st
}

export -f env_step kernels_step sanitize_step
steps=${*:-env suite kernels sanitize bench-quick}
for s in $steps; do
	case $s in
	env) step env 60 env_step ;;
	suite) step suite 420 env TEST_TIMEOUT=120 sh tests/run.sh ;;
	kernels) step kernels 240 kernels_step ;;
	sanitize) step sanitize 300 sanitize_step ;;
	bench-quick) step bench-quick 240 python3 bench/gpu/bench_gpu.py --quick --lib build/libtile.so --out "$out/gpu-quick.md" ;;
	bench) step bench 560 python3 bench/gpu/bench_gpu.py --lib build/libtile.so --out "$out/gpu.md" ;;
	sweep) step sweep 560 python3 bench/gpu/bench_gpu.py --only sweep --lib build/libtile.so --out "$out/gpu-sweep.md" ;;
	regs) step regs 300 python3 bench/gpu/bench_gpu.py --only registers --lib build/libtile.so --out "$out/gpu-regs.md" ;;
	mixed) step mixed 300 python3 bench/gpu/bench_gpu.py --only mixed --lib build/libtile.so --out "$out/gpu-mixed.md" ;;
	w8) step w8 420 python3 bench/gpu/bench_gpu.py --only w8 --lib build/libtile.so --out "$out/gpu-w8.md" ;;
	paged) step paged 300 python3 bench/gpu/bench_gpu.py --only paged --lib build/libtile.so --out "$out/gpu-paged.md" ;;
	*) echo "unknown step $s" >&2 ;;
	esac
done
rm -rf "$TILE_CACHE_DIR"
printf '%s' "$summary"

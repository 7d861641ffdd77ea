#!/bin/sh
# bench/run.sh: the benchmarks behind `make bench` (POSIX sh; works with dash).
#
#   sh bench/run.sh            build bench/bench_cpu.c, run it, write
#                              bench/results/cpu-YYYY-MM-DD.md (today's file is replaced)
#   BENCH_QUICK=1 sh bench/run.sh   few samples: for checking the script, not for results
#   BENCH_OUT=FILE sh bench/run.sh  write the results to FILE instead
#
# Expects a built tree (`make` has run: build/libtile.a, build/libtile.so).
# The benchmark is compiled with the Makefile's own CC, CFLAGS and LIBS and
# linked with build/libtile.a, with -Isrc, so that it can also read per-stage
# compile times and call a JIT'd function directly (-DBENCH_INTERNAL). If that
# build fails (internal headers changing under us), it falls back to the public
# API only, linked with build/libtile.so.
#
# Numbers are ratios against baselines measured in the same run (memcpy, an
# empty C call, a direct call), so they mean something on any machine; the
# absolute times depend on the machine and on its load, which is recorded.
# GPU benchmarks: bench/gpu/README.md (need a GPU machine; not run here).

cd "$(dirname "$0")/.." || exit 1
root=$(pwd)

[ -f build/libtile.a ] && [ -f build/libtile.so ] || {
	echo "bench: build/libtile.a or build/libtile.so is missing: run ./configure && make" >&2
	exit 1
}

# A variable of the Makefile, expanded by make itself.
mkvar() {
	printf 'bench-print-var:\n\t@echo $(%s)\n' "$1" |
		${MAKE:-make} -s --no-print-directory -f Makefile -f - bench-print-var 2>/dev/null
}

mkdir -p build/bench bench/results
CC_=$(mkvar CC)
CFLAGS_=$(mkvar CFLAGS)
LDFLAGS_=$(mkvar LDFLAGS)
LIBS_=$(mkvar LIBS)
: "${CC_:=cc}"

mode=internal
bin=build/bench/bench_cpu
echo "bench: building $bin"
# shellcheck disable=SC2086
if ! $CC_ $CFLAGS_ -DBENCH_INTERNAL -o $bin bench/bench_cpu.c build/libtile.a $LDFLAGS_ $LIBS_ \
	2>build/bench/build-internal.log; then
	echo "bench: the internal build failed (see build/bench/build-internal.log);" \
		"using the public API only" >&2
	mode=public
	# shellcheck disable=SC2086
	$CC_ -std=c11 -O2 -Iinclude -o $bin bench/bench_cpu.c -Lbuild -ltile \
		-Wl,-rpath,"$root/build" -lpthread -lm || {
		echo "bench: cannot build bench/bench_cpu.c" >&2
		exit 1
	}
fi

day=$(date +%Y-%m-%d)
out=${BENCH_OUT:-bench/results/cpu-$day.md}
tmp=$out.tmp.$$
trap 'rm -f "$tmp"' EXIT INT TERM

model=$(lscpu 2>/dev/null | sed -n 's/^Model name:[[:space:]]*//p' | head -n 1)
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || nproc)
mem=$(free -h 2>/dev/null | awk '/^Mem:/ {print $2}')
load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)
flags=$(sed -n 's/^#define TILE_BUILD_FLAGS "\(.*\)"/\1/p' build/config.h 2>/dev/null)
llvm=$(sed -n 's/^#define TILE_LLVM_VERSION "\(.*\)"/\1/p' build/config.h 2>/dev/null)
rev=$(git rev-parse --short HEAD 2>/dev/null || echo "no commit")
dirty=$(git status --porcelain 2>/dev/null | head -n 1)

{
	echo "# tile CPU benchmarks, $day"
	echo
	echo "Produced by \`make bench\` (\`sh bench/run.sh\`$( [ -n "${BENCH_QUICK:-}" ] && echo ", BENCH_QUICK=$BENCH_QUICK")) at $(date '+%Y-%m-%d %H:%M:%S %Z')."
	echo "Benchmark program: bench/bench_cpu.c, $mode build ($bin)."
	echo
	echo "- tile: $(git describe --always --dirty 2>/dev/null || echo "$rev")${dirty:+ (working tree has uncommitted changes)}; build flags: \`${flags:-?}\`; LLVM ${llvm:-?}"
	echo "- compiler: $($CC_ --version 2>/dev/null | head -n 1)"
	echo "- CPU: ${model:-unknown}, $cores cores; memory: ${mem:-?}"
	echo "- load average before the run: ${load_before:-?} (other processes on the machine skew the numbers)"
	echo
	echo "Targets (from the issue): cold compile <= 60 ms; cache hit to callable <= 1 ms;"
	echo "thunk <= 1 us over a direct call; vector add >= 50% and softmax >= 30% of memcpy"
	echo "bandwidth. memcpy is measured in the same run over the same traffic (bytes read +"
	echo "bytes written), with 1 thread and with all cores; the better of the two is the baseline."
	echo "Kernels run on the default thread pool (all cores), median of the timed runs after warm-up."
	echo
	echo "## Machine"
	echo
	echo '```'
	echo "\$ uname -a"
	uname -a
	echo "\$ lscpu | grep -v '^Flags'"
	lscpu 2>/dev/null | grep -v '^Flags'
	echo "\$ lscpu | grep '^Flags'"
	lscpu 2>/dev/null | grep '^Flags'
	echo "\$ free -h"
	free -h 2>/dev/null
	echo '```'
	echo
} >"$tmp"

echo "bench: running $bin (takes under a minute)"
# shellcheck disable=SC2086
$bin --md "$tmp"
rc=$?
echo "- load average after the run: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)" >>"$tmp"
mv "$tmp" "$out"
trap - EXIT INT TERM
echo "bench: wrote $out"
[ $rc -eq 0 ] || echo "bench: some benchmarks could not run (exit status $rc)" >&2
exit $rc

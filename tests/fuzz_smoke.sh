#!/bin/sh
# fuzz_smoke.sh: a short libFuzzer run of each fuzz target, seeded with the
# kernels and every golden .tile file:
#   fuzz_parse    10 s  lexer and parser
#   fuzz_compile  15 s  parse -> sema -> layout -> lower -> emit: LLVM IR for cpu,
#                       CUDA C for sm_90a (src/fuzz/fuzz_compile.c)
# Needs build/fuzz/ (`make fuzz`, clang; `make check` builds it when clang is
# there); skips (exit 77) without it. The deterministic mutation smoke test
# that always runs lives in tests/unit/test_parse.c.
cd "$(dirname "$0")/.." || exit 1
if [ ! -x build/fuzz/fuzz_parse ] || [ ! -x build/fuzz/fuzz_compile ]; then
	echo "skip: fuzz targets not built (make fuzz)"
	exit 77
fi
# undefined behaviour stops the run (UBSan only prints it by default), so a
# seed that reaches some fails the test
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}
export UBSAN_OPTIONS
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tile-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/corpus"
i=0
for f in $(find kernels tests/golden -name '*.tile' -type f | LC_ALL=C sort); do
	i=$((i + 1))
	cp "$f" "$tmp/corpus/seed$i.tile"
done

# run_fuzzer NAME SECONDS: a private copy of the corpus, so runs do not mix.
# The per-input timeout catches hangs; the slowest seed (a golden that runs
# into the compile-time work limit) takes 8 s of CPU under the sanitizers, so
# the limit leaves room for a loaded machine.
run_fuzzer() {
	mkdir -p "$tmp/$1/corpus" "$tmp/$1/artifacts"
	cp "$tmp"/corpus/* "$tmp/$1/corpus/"
	"build/fuzz/$1" -max_total_time="$2" -seed=1 -timeout=60 -rss_limit_mb=2048 \
		-max_len=65536 -artifact_prefix="$tmp/$1/artifacts/" "$tmp/$1/corpus" \
		>"$tmp/$1/log" 2>&1
	st=$?
	echo "$1: $(grep -E '^Done' "$tmp/$1/log")"
	if [ $st -ne 0 ]; then
		tail -n 30 "$tmp/$1/log"
		echo "$1 failed (exit $st); crashing input:"
		for a in "$tmp/$1"/artifacts/*; do
			[ -f "$a" ] && od -c "$a" | head -n 20
		done
		return 1
	fi
	return 0
}

run_fuzzer fuzz_parse 10 || exit 1
run_fuzzer fuzz_compile 15 || exit 1
exit 0

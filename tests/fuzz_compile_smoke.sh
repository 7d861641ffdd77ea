#!/bin/sh
# fuzz_compile_smoke.sh: fifteen seconds of libFuzzer on parse, sema, layout and
# lowering (src/fuzz/fuzz_compile.c), seeded with kernels/ and every golden
# .tile file. Needs build/fuzz/fuzz_compile (`make fuzz`, clang);
# skips (exit 77) without it.
cd "$(dirname "$0")/.." || exit 1
bin=build/fuzz/fuzz_compile
if [ ! -x "$bin" ]; then
	echo "skip: fuzz target not built (make fuzz)"
	exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tile-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/corpus" "$tmp/artifacts"
i=0
for f in $(find kernels tests/golden -name '*.tile' -type f | LC_ALL=C sort); do
	i=$((i + 1))
	cp "$f" "$tmp/corpus/seed$i.tile"
done
"$bin" -max_total_time=15 -seed=1 -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
	-artifact_prefix="$tmp/artifacts/" "$tmp/corpus" >"$tmp/log" 2>&1
st=$?
tail -n 5 "$tmp/log"
if [ $st -ne 0 ]; then
	echo "fuzz_compile failed (exit $st); crashing input:"
	for a in "$tmp"/artifacts/*; do
		[ -f "$a" ] && od -c "$a" | head -n 20
	done
	exit 1
fi
exit 0

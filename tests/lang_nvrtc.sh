#!/bin/sh
# lang_nvrtc.sh: every kernel test_lang runs (on cpu and cuda-emu) compiled
# for sm_80 and sm_90a through nvrtc and ptxas, so the CUDA C of each
# language feature is checked where test_lang cannot run it (no GPU). A
# kernel Triton compiles that nvrtc rejects is a bug of ours (emit_c.c).
# Skips without libnvrtc. TILE_LANG_NVRTC_TARGETS overrides the targets.
cd "$(dirname "$0")/.." || exit 1
[ -x build/tile ] && [ -x build/tests/test_lang ] || { echo "skip: not built"; exit 77; }
if build/tile --version 2>&1 | grep -q "nvrtc: not found"; then
	echo "skip: no libnvrtc"
	exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tile-lang-nvrtc.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
TILE_TEST_DUMP_DIR=$tmp TILE_CACHE_DIR=$tmp/cache build/tests/test_lang >"$tmp/lang.log" 2>&1 || {
	echo "test_lang failed:"; tail -n 20 "$tmp/lang.log"; exit 1
}
n=0 bad=0
for tgt in ${TILE_LANG_NVRTC_TARGETS:-sm_90a sm_80}; do
	while IFS='	' read -r id kernel sig warps line; do
		n=$((n + 1))
		if ! TILE_CACHE_DIR=$tmp/cache build/tile compile "$tmp/$id.tile" "$kernel" \
			--signature "$sig" --num-warps "$warps" --target "$tgt" --emit cubin \
			-o "$tmp/out.cubin" >"$tmp/err" 2>&1; then
			bad=$((bad + 1))
			echo "FAIL $tgt: test_lang.c:$line kernel $kernel --signature '$sig' --num-warps $warps"
			head -n 8 "$tmp/err" | sed 's/^/    /'
		fi
	done <"$tmp/list"
done
echo "$n compiles, $bad failed"
[ "$bad" = 0 ]

#!/bin/sh
# api_symbols.sh: libtile.so exports exactly the public API: every defined
# dynamic symbol is tile_*, and every function tile.h declares is exported.
cd "$(dirname "$0")/.." || exit 1
lib=${TILE_LIB:-build/libtile.so}
if [ ! -f "$lib" ]; then echo "skip: $lib is not built"; exit 77; fi
if ! command -v nm >/dev/null 2>&1; then echo "skip: nm not found"; exit 77; fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tile-sym.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
nfail=0
nm -D --defined-only "$lib" | awk '$2 == "T" || $2 == "D" || $2 == "B" { print $3 }' | sort >"$tmp/exported"
# the linker's own markers are not ours
grep -v -e '^tile_' -e '^_edata$' -e '^_end$' -e '^__bss_start$' -e '^_init$' -e '^_fini$' \
	"$tmp/exported" >"$tmp/extra"
if [ -s "$tmp/extra" ]; then
	echo "FAIL: exported symbols outside the tile_ namespace ($(wc -l <"$tmp/extra")):"
	head -n 20 "$tmp/extra" | sed 's/^/    /'
	nfail=1
fi
tr '\n' ' ' <include/tile.h | sed 's/;/;\n/g' | grep 'TILE_API' |
	sed -n 's/.*[ *]\(tile_[a-z0-9_]*\)(.*/\1/p' | sort -u >"$tmp/declared"
comm -23 "$tmp/declared" "$tmp/exported" >"$tmp/missing"
if [ -s "$tmp/missing" ]; then
	echo "FAIL: declared in tile.h but not exported:"
	sed 's/^/    /' "$tmp/missing"
	nfail=1
fi
[ -s "$tmp/declared" ] || { echo "FAIL: found no TILE_API declarations in tile.h"; nfail=1; }
exit $nfail

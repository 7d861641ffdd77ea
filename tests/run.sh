#!/bin/sh
# tests/run.sh: the test runner behind `make check` (POSIX sh; works with dash).
#
#   sh tests/run.sh [SUBSTRING]   run every test (or those whose name contains it)
#   UPDATE=1 sh tests/run.sh      rewrite the expected files of golden tests
#
# Runs, from the repository root:
#   unit/NAME     every build/tests/NAME binary (from tests/unit/NAME.c)
#   golden/PATH   every tests/golden/**/*.tile with a "# RUN: ARGS" line among its
#                 first 10 lines: build/tile ARGS (%s = the file's path), compared
#                 with NAME.out (stdout then stderr), or NAME.err (stderr only, exit
#                 status 1 by default); NAME.status overrides the expected status
#   example/NAME  every build/examples/NAME binary
#   script/NAME   every executable tests/*.sh other than this one
# Exit status 0 passes, 77 skips (the reason is the last line of stdout).
# Ends with "N passed, N failed"; exits 1 if anything failed.
#
# Every run gets a fresh TILE_CACHE_DIR, so tests never touch ~/.cache.

cd "$(dirname "$0")/.." || exit 1

filter=${1:-}
timeout_s=${TEST_TIMEOUT:-600}
npass=0
nfail=0
nskip=0

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tile-tests.XXXXXX") || exit 1
TILE_CACHE_DIR=$tmp/cache
mkdir -p "$TILE_CACHE_DIR"
export TILE_CACHE_DIR
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

TIMEOUT=
if command -v timeout >/dev/null 2>&1; then TIMEOUT="timeout $timeout_s"; fi

selected() {
	[ -z "$filter" ] && return 0
	case "$1" in *"$filter"*) return 0 ;; esac
	return 1
}

pass() { npass=$((npass + 1)); echo "PASS $1"; }
skip() { nskip=$((nskip + 1)); echo "SKIP $1: $2"; }
fail() {
	nfail=$((nfail + 1))
	echo "FAIL $1${2:+: $2}"
	if [ -n "${3:-}" ] && [ -s "$3" ]; then sed 's/^/    /' "$3"; fi
}

# run_prog NAME LOG CMD...: runs a program, classifies by exit status.
run_prog() {
	name=$1
	log=$2
	shift 2
	$TIMEOUT "$@" >"$log" 2>&1 </dev/null
	st=$?
	case $st in
	0) pass "$name" ;;
	77)
		why=$(grep -v '^[[:space:]]*$' "$log" | tail -n 1)
		why=${why#skip: }
		skip "$name" "${why:-skipped}"
		;;
	124) fail "$name" "timed out after ${timeout_s}s" "$log" ;;
	*) fail "$name" "exit status $st" "$log" ;;
	esac
}

# ---- unit tests ------------------------------------------------------------------
for t in build/tests/*; do
	[ -f "$t" ] && [ -x "$t" ] || continue
	[ -f "tests/unit/${t##*/}.c" ] || continue # stale: its source is gone
	name=unit/${t##*/}
	selected "$name" || continue
	run_prog "$name" "$tmp/log" "$t"
done

# ---- golden tests ----------------------------------------------------------------
# compare NAME EXPECTED ACTUAL: 0 if equal, else prints a diff into $tmp/diff.
compare() {
	if cmp -s "$2" "$3"; then return 0; fi
	{
		echo "--- $2 (expected) vs actual"
		if command -v diff >/dev/null 2>&1; then diff -u "$2" "$3" | tail -n +3 | head -n 60
		else echo "expected:"; head -n 30 "$2"; echo "actual:"; head -n 30 "$3"; fi
	} >>"$tmp/diff"
	return 1
}

golden_one() {
	f=$1
	name=golden/${f#tests/golden/}
	selected "$name" || return 0
	args=$(head -n 10 "$f" | sed -n 's/^#[[:space:]]*RUN:[[:space:]]*//p' | head -n 1)
	[ -n "$args" ] || return 0
	if [ ! -x build/tile ]; then
		skip "$name" "build/tile is not built"
		return 0
	fi
	base=${f%.tile}
	# %s -> the file's path (paths in the tree have no '|' or '&')
	args=$(printf '%s\n' "$args" | sed "s|%s|$f|g")
	eval "$TIMEOUT build/tile $args" >"$tmp/stdout" 2>"$tmp/stderr" </dev/null
	st=$?
	cat "$tmp/stdout" "$tmp/stderr" >"$tmp/combined"
	if [ -n "${UPDATE:-}" ]; then
		golden_update "$base" "$st"
		pass "$name (updated)"
		return 0
	fi
	if [ -f "$base.err" ]; then
		want=1
	elif [ -f "$base.out" ]; then
		want=0
	else
		fail "$name" "no $base.out or $base.err (run: UPDATE=1 make check)"
		return 0
	fi
	[ -f "$base.status" ] && want=$(tr -d ' \n\r\t' <"$base.status")
	: >"$tmp/diff"
	ok=1
	if [ -f "$base.err" ]; then
		compare "$name" "$base.err" "$tmp/stderr" || ok=0
		if [ -f "$base.out" ]; then compare "$name" "$base.out" "$tmp/stdout" || ok=0; fi
	else
		compare "$name" "$base.out" "$tmp/combined" || ok=0
	fi
	if [ "$st" != "$want" ]; then
		echo "exit status $st, expected $want" >>"$tmp/diff"
		ok=0
	fi
	if [ $ok = 1 ]; then pass "$name"; else fail "$name" "" "$tmp/diff"; fi
}

golden_update() {
	base=$1
	st=$2
	if [ -f "$base.err" ] || { [ ! -f "$base.out" ] && [ "$st" != 0 ]; }; then
		cp "$tmp/stderr" "$base.err"
		if [ -f "$base.out" ] || [ -s "$tmp/stdout" ]; then cp "$tmp/stdout" "$base.out"; fi
		default=1
	else
		cp "$tmp/combined" "$base.out"
		default=0
	fi
	if [ "$st" != "$default" ]; then echo "$st" >"$base.status"
	else rm -f "$base.status"; fi
}

if [ -d tests/golden ]; then
	find tests/golden -name '*.tile' -type f | LC_ALL=C sort >"$tmp/golden.list"
	while IFS= read -r f; do
		golden_one "$f"
	done <"$tmp/golden.list"
fi

# ---- examples ----------------------------------------------------------------------
for t in build/examples/*; do
	[ -f "$t" ] && [ -x "$t" ] || continue
	[ -f "examples/${t##*/}.c" ] || [ -f "examples/${t##*/}.cpp" ] ||
		[ -f "examples/${t##*/}.rs" ] || [ -f "examples/${t##*/}.go" ] || continue
	name=example/${t##*/}
	selected "$name" || continue
	run_prog "$name" "$tmp/log" "$t"
done
# Examples in other languages are built only where their toolchain is: say so.
for src in examples/*.cpp examples/*.rs examples/*.go; do
	[ -f "$src" ] || continue
	base=${src##*/}
	base=${base%.*}
	selected "example/$base" || continue
	[ -x "build/examples/$base" ] && continue
	case $src in
	*.cpp) why="no C++ compiler" ;;
	*.rs) why="no rustc (or a sanitizer build)" ;;
	*) why="no go (or a sanitizer build)" ;;
	esac
	skip "example/$base" "not built: $why"
done

# ---- script tests -------------------------------------------------------------------
for t in tests/*.sh; do
	[ -f "$t" ] && [ -x "$t" ] || continue
	[ "${t##*/}" = run.sh ] && continue
	name=script/${t##*/}
	name=${name%.sh}
	selected "$name" || continue
	run_prog "$name" "$tmp/log" "./$t"
done

echo "($nskip skipped)"
echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ]

# cli_lib.sh: helpers sourced by the tests/cli_*.sh scripts (not a test itself:
# it is not executable). POSIX sh.

cd "$(dirname "$0")/.." || exit 1
TILE=${TILE_BIN:-build/tile} # TILE_BIN: test another build of the command
if [ ! -x "$TILE" ]; then
	echo "skip: $TILE is not built"
	exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tile-cli.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
: "${TILE_CACHE_DIR:=$tmp/cache}"
export TILE_CACHE_DIR
nfail=0

fail() {
	echo "FAIL: $*"
	nfail=$((nfail + 1))
}

# expect STATUS CMD...: runs CMD (stdout -> $tmp/out, stderr -> $tmp/err) and
# checks its exit status.
expect() {
	want=$1
	shift
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" != "$want" ]; then
		fail "exit status $got (expected $want): $*"
		sed 's/^/    stderr: /' "$tmp/err" | head -n 20
	fi
}

# has FILE TEXT: FILE contains TEXT (fixed string).
has() {
	if ! grep -qF -- "$2" "$1"; then
		fail "$(basename "$1") lacks '$2'"
		sed 's/^/    /' "$1" | head -n 20
	fi
}

# lacks FILE TEXT: FILE does not contain TEXT (fixed string).
lacks() {
	if grep -qF -- "$2" "$1"; then
		fail "$(basename "$1") has '$2'"
	fi
}

# npy_f32 FILE N BYTES: a float32 .npy of shape (N,) whose every element is
# the 4 bytes BYTES (printf escapes, e.g. '\000\000\200\077' for 1.0).
npy_f32() {
	npy_arr "$1" '<f4' "$2" "$3"
}

# npy_arr FILE DESCR N BYTES [SHAPE]: a .npy of N elements of dtype DESCR, each
# BYTES, of shape (N,) or SHAPE ("3, 40").
npy_arr() {
	dict="{'descr': '$2', 'fortran_order': False, 'shape': (${5:-$3},), }"
	len=$((${#dict} + 1))
	pad=$(((64 - (10 + len) % 64) % 64))
	hlen=$((len + pad))
	{
		printf '\223NUMPY\001\000'
		printf "\\$(printf %03o $((hlen % 256)))\\$(printf %03o $((hlen / 256)))"
		printf '%s' "$dict"
		printf "%${pad}s\n" ""
		printf "$4%.0s" $(seq 1 "$3")
	} >"$1"
}

# f32_pattern N BYTES: the raw bytes of N float32 elements equal to BYTES.
f32_pattern() {
	printf "$2%.0s" $(seq 1 "$1")
}

finish() {
	if [ "$nfail" -ne 0 ]; then
		echo "$nfail check(s) failed"
		exit 1
	fi
	exit 0
}

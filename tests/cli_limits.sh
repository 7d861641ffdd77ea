#!/bin/sh
# cli_limits.sh: kernels that hit a compile-time limit fail with its error in
# bounded memory (an address-space limit of 800 MB, LLVM's mappings included),
# not with "out of memory" or a swapping machine.
. "$(dirname "$0")/cli_lib.sh"

if ldd "$TILE" 2>/dev/null | grep -q 'libasan'; then
	echo "skip: a sanitizer build reserves too much address space for ulimit -v"
	exit 77
fi

# limited FILE KERNEL SIG: compile under the limit; status 1 expected
limited() {
	(ulimit -v 800000 && exec $TILE compile "$1" "$2" --signature "$3" --target cpu -o /dev/null) \
		>"$tmp/out" 2>"$tmp/err"
	st=$?
	[ "$st" = 1 ] || fail "exit status $st (expected 1): $1"
}

# 524288 IR values from an unrolled store: each call's argument arrays used to
# stay in the arena (about 800 MB at the limit)
limited tests/golden/sema/err_too_big_unrolled.tile k '*fp32'
has "$tmp/err" "is too large: more than 524288 values"
# a range() rebuilt for every item of a comprehension
limited tests/golden/sema/err_range_work.tile k '*i32'
has "$tmp/err" "compile-time evaluation takes more than"

[ "$nfail" = 0 ]

#!/bin/sh
# bench/gpu/bench_gpu.py drives libtile through ctypes with its own copies of
# tile.h's structs and parses cache entries itself; --selftest-cpu checks both
# against the library built here, so a header or format change cannot leave the
# GPU benchmark broken until someone has a GPU.
command -v python3 >/dev/null 2>&1 || { echo "skip: no python3"; exit 77; }
# a sanitizer build's libtile.so needs the ASan runtime loaded before python
# (which is not built with it): "ASan runtime does not come first"
asan=$(ldd build/libtile.so 2>/dev/null | sed -n 's/.*libasan[^ ]* => \([^ ]*\).*/\1/p' | head -n 1)
if [ -n "$asan" ]; then
	LD_PRELOAD=$asan ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0} # python's own allocations are not ours
	export LD_PRELOAD ASAN_OPTIONS
fi
TILE_CACHE_DIR=${TILE_CACHE_DIR:-$(mktemp -d)} exec python3 bench/gpu/bench_gpu.py --selftest-cpu --lib build/libtile.so

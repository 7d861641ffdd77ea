#!/bin/sh
# bench/gpu/bench_gpu.py drives libtile through ctypes with its own copies of
# tile.h's structs and parses cache entries itself; --selftest-cpu checks both
# against the library built here, so a header or format change cannot leave the
# GPU benchmark broken until someone has a GPU.
command -v python3 >/dev/null 2>&1 || { echo "skip: no python3"; exit 77; }
TILE_CACHE_DIR=${TILE_CACHE_DIR:-$(mktemp -d)} exec python3 bench/gpu/bench_gpu.py --selftest-cpu --lib build/libtile.so

/* src_kernels.h: kernel source shared by test_emit_llvm.c (which runs it on
 * cpu and cuda-emu) and test_emit_c.c (which compiles it for the GPU): a
 * pointer tile built from loaded indices and a bool tile, both moved through
 * shared memory by a layout conversion. */
#ifndef TILE_TEST_SRC_KERNELS_H
#define TILE_TEST_SRC_KERNELS_H

#define SRC_KERNELS_SMEM_TILES                                                                     \
	"import triton\n"                                                                          \
	"import triton.language as tl\n"                                                           \
	"\n"                                                                                       \
	"@triton.jit\n"                                                                            \
	"def hist(cnt_ptr, idx_ptr, B: tl.constexpr):\n"                                           \
	"    o = tl.arange(0, B)\n"                                                                \
	"    i = tl.load(idx_ptr + o)\n"                                                           \
	"    tl.atomic_add(cnt_ptr + i, 1)\n"                                                      \
	"\n"                                                                                       \
	"@triton.jit\n"                                                                            \
	"def flip(X, Y, B: tl.constexpr):\n"                                                       \
	"    r = tl.arange(0, B)\n"                                                                \
	"    o = r[:, None] * B + r[None, :]\n"                                                    \
	"    x = tl.load(X + o)\n"                                                                 \
	"    m = tl.trans(x > 0)\n"                                                                \
	"    tl.store(Y + o, tl.where(m, x, -x))\n"

#endif

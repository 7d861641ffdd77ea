/* rt_lanes.c: the lane loops of the CPU code's gathers and scatters.
 *
 * A gather or scatter over hundreds of lanes, or a masked access of 8/16-bit
 * elements, is emitted as a call here rather than as a loop in the kernel:
 * thousands of inline lane loops gave LLVM thousands of blocks whose loads of
 * the same stack arrays its GVN and instruction selection spent most of a
 * big kernel's compile time on (see emit_llvm_mem.c). Lane t's element is at
 * addr[t] + off, or at base + t * stride + off when addr is NULL; lanes whose
 * mask byte is 0 are skipped (mask NULL: every lane). */
#include "jit/orc.h"

#include <string.h>

static inline uint8_t *lane_ptr(const uint64_t *addr, uint8_t *base, int64_t stride, int64_t off,
                                int32_t t)
{
	return addr ? (uint8_t *)(uintptr_t)addr[t] + off : base + (int64_t)t * stride + off;
}

void tile_rt_lanes_load(uint8_t *out, const uint64_t *addr, uint8_t *base, int64_t stride,
                        int64_t off, const uint8_t *mask, int32_t nlanes, int32_t size)
{
	for (int32_t t = 0; t < nlanes; t++)
		if (!mask || mask[t])
			memcpy(out + (size_t)t * (size_t)size, lane_ptr(addr, base, stride, off, t),
			       (size_t)size);
}

/* in lane order, so that two lanes storing to one address leave the last's */
void tile_rt_lanes_store(const uint8_t *in, const uint64_t *addr, uint8_t *base, int64_t stride,
                         int64_t off, const uint8_t *mask, int32_t nlanes, int32_t size)
{
	for (int32_t t = 0; t < nlanes; t++)
		if (!mask || mask[t])
			memcpy(lane_ptr(addr, base, stride, off, t), in + (size_t)t * (size_t)size,
			       (size_t)size);
}

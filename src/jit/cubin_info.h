/* cubin_info.h: a kernel's resource use read from its cubin (an ELF file).
 *
 * ptxas writes each kernel's register count and stack frame into the cubin's
 * `.nv.info` sections; the driver reports the same numbers after loading
 * (CU_FUNC_ATTRIBUTE_NUM_REGS, _LOCAL_SIZE_BYTES). Reading them from the
 * cubin needs neither a driver nor ptxas's `-v` log, which nvrtc leaves
 * empty when it serves a cubin from its own cache (CUDA 12.9+, with a
 * driver present).
 */
#ifndef TILE_CUBIN_INFO_H
#define TILE_CUBIN_INFO_H

#include <stdbool.h>
#include <stddef.h>

/* Registers per thread and stack frame bytes per thread (local memory:
 * spilled registers, and arrays ptxas could not keep in registers) of
 * `kernel` in the cubin. False when the cubin is malformed or says nothing
 * of that kernel; the outputs are then -1. */
bool cubin_resources(const void *cubin, size_t len, const char *kernel, int *registers,
                     int *frame_bytes);

#endif

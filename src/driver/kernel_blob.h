/* kernel_blob.h: a CompiledKernel as one self-describing byte string, the
 * payload of a cache entry (the cache adds length and checksum around it). */
#ifndef TILE_KERNEL_BLOB_H
#define TILE_KERNEL_BLOB_H

#include "driver/driver.h"

void *kernel_blob_encode(const CompiledKernel *k, size_t *len); /* heap */
/* Returns 0, or -1 when the bytes are not a well-formed blob of this version. */
int kernel_blob_decode(const void *data, size_t len, CompiledKernel *out);

#endif

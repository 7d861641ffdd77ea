/* checksum.h: a fast 128-bit non-cryptographic hash, for the integrity check
 * of disk-cache entries (accidental damage: truncation, bit flips, an entry
 * renamed to another key). Not for adversaries: whoever can write the cache
 * directory can write a valid entry anyway. */
#ifndef TILE_CHECKSUM_H
#define TILE_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

/* The 16-byte checksum of data[0..n) with a 64-bit seed. The same bytes give
 * the same checksum on every machine of the same byte order. */
void checksum128(const void *data, size_t n, uint64_t seed, uint8_t out[16]);

#endif

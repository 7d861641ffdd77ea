/* sha256.h: SHA-256 (FIPS 180-4), for cache keys and source hashes. */
#ifndef TILE_SHA256_H
#define TILE_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct Sha256 {
	uint32_t h[8];
	uint64_t nbytes; /* total message length so far */
	uint8_t buf[64]; /* partial block */
	size_t buflen;
} Sha256;

void sha256_init(Sha256 *s);
void sha256_update(Sha256 *s, const void *data, size_t n);
void sha256_final(Sha256 *s, uint8_t out[32]);
void sha256(const void *data, size_t n, uint8_t out[32]);
/* Writes 64 lowercase hex digits and a NUL into hex (65 bytes). */
void sha256_hex(const uint8_t digest[32], char hex[65]);

#endif

/* checksum.c: see checksum.h. Four 64-bit lanes, each a multiply-rotate
 * round per 8-byte word over 32-byte stripes (the structure of xxHash64),
 * so the lanes run in parallel: about 20x SHA-256's speed here, which was
 * half the time of a cache hit for a 4 MB CPU object and about a third for a
 * 100 KB cubin. The two output words fold the lanes and the tail with
 * different rotations and constants, each through a full avalanche. */
#include "util/checksum.h"

#include <string.h>

static const uint64_t P1 = 0x9E3779B185EBCA87ULL, P2 = 0xC2B2AE3D27D4EB4FULL, P3 = 0x165667B19E3779F9ULL,
                      P4 = 0x85EBCA77C2B2AE63ULL, P5 = 0x27D4EB2F165667C5ULL;

static uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static uint64_t word(const unsigned char *p)
{
	uint64_t w;
	memcpy(&w, p, 8);
	return w;
}

static uint64_t round64(uint64_t acc, uint64_t w) { return rotl(acc + w * P2, 31) * P1; }

static uint64_t avalanche(uint64_t h)
{
	h ^= h >> 33;
	h *= P2;
	h ^= h >> 29;
	h *= P3;
	return h ^ (h >> 32);
}

void checksum128(const void *data, size_t n, uint64_t seed, uint8_t out[16])
{
	const unsigned char *p = data, *end = p + n;
	uint64_t v[4] = {seed + P1 + P2, seed + P2, seed, seed - P1};
	for (; end - p >= 32; p += 32)
		for (int i = 0; i < 4; i++)
			v[i] = round64(v[i], word(p + 8 * i));
	uint64_t h = rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) + rotl(v[3], 18) + P5;
	uint64_t g = rotl(v[0], 43) ^ rotl(v[1], 29) ^ rotl(v[2], 17) ^ rotl(v[3], 5) ^ P4;
	for (int i = 0; i < 4; i++) {
		h = (h ^ round64(0, v[i])) * P1 + P4;
		g = (g + round64(P3, v[(i + 1) & 3])) * P2 ^ P5;
	}
	h += (uint64_t)n;
	g ^= (uint64_t)n * P3;
	for (; end - p >= 8; p += 8) {
		uint64_t w = word(p);
		h = rotl(h ^ round64(0, w), 27) * P1 + P4;
		g = rotl(g + round64(P5, w), 23) * P3 ^ P1;
	}
	for (; p < end; p++) {
		h = rotl(h ^ (*p * P5), 11) * P1;
		g = rotl(g + (*p * P1), 13) * P2;
	}
	h = avalanche(h);
	g = avalanche(g ^ h);
	for (int i = 0; i < 8; i++) {
		out[i] = (uint8_t)(h >> (8 * i));
		out[8 + i] = (uint8_t)(g >> (8 * i));
	}
}

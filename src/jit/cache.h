/* cache.h: the on-disk kernel cache.
 *
 * Where: the directory given to cache_open, else $TILE_CACHE_DIR, else
 * $XDG_CACHE_HOME/tile, else ~/.cache/tile (created if missing).
 *
 * Key: a SHA-256 the caller computes over everything that changes the output
 * (source closure, specialization, options, target + arch, compiler and
 * toolchain versions) with the cache_key_* helpers, which length-prefix every
 * field so that ("ab","c") and ("a","bc") differ.
 *
 * Entry: ONE file per key, HEX(key).tc, holding
 *   "TILECACH" | u32 format version | u64 payload length |
 *   checksum128(payload, seed from the key) | key[0..16) | payload
 * (integers little-endian; util/checksum.h: fast, for damage, not attacks). It is written to a unique temporary name in the same
 * directory and rename()d into place, so readers see a whole entry or none and
 * concurrent writers of the same key are harmless.
 *
 * Failures never fail a compile: a missing entry is a miss; a truncated or
 * damaged one is a miss, reported once as a warning on the DiagSink and
 * deleted; a directory in an entry's place is removed when empty, else
 * reported once, and that key is not cached (no file can be renamed over it);
 * an unusable directory is reported once and the cache is disabled; an
 * entry over the process's file size limit (RLIMIT_FSIZE) is not written,
 * with one warning (writing it raised SIGXFSZ, which kills a process that
 * does not ignore it).
 * A directory that can be read but not written (a shared or prebuilt cache)
 * still answers gets; puts are dropped, with one warning.
 * After each put, if the entries exceed max_bytes (default 1 GiB, env
 * TILE_CACHE_MAX_BYTES, K/M/G suffixes allowed, 0 = no cap), the least recently
 * used entries (by mtime; a hit refreshes it) are deleted down to 90%.
 *
 * A Cache is used by one thread at a time; separate Caches (and separate
 * processes) may share a directory.
 */
#ifndef TILE_JIT_CACHE_H
#define TILE_JIT_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/sha256.h"
#include "util/util.h"

/* 2: the checksum covers the key; 3: checksum128 and the key's first 16 bytes
 * (SHA-256 was up to half of a cache hit's time) */
#define CACHE_FORMAT_VERSION 3u
#define CACHE_HEADER_SIZE    52 /* 8 magic + 4 version + 8 length + 16 checksum + 16 key */

typedef struct Cache {
	char *dir;          /* heap; NULL if no directory could be determined */
	bool enabled;       /* false: every get misses and every put is dropped */
	bool read_only;     /* the directory is readable, not writable: puts are dropped */
	DiagSink *diags;    /* where warnings go (may be NULL) */
	uint64_t max_bytes; /* size cap; 0 = unlimited */
	bool warned_dir;    /* the "cannot write cache directory" warning was given */
	bool warned_fsize;  /* the "over the file size limit" warning was given */
	VEC(char *) warned; /* entry names already reported (damaged, a directory) */
	uint64_t rng;       /* for temporary names */
	uint32_t counter;   /* for temporary names */
	/* statistics */
	uint64_t hits, misses, puts, evictions;
} Cache;

void cache_open(Cache *c, const char *dir_or_null, DiagSink *diags);
/* The same without creating the directory (to list or clear it): a missing
 * one leaves c->dir set and the cache disabled, scans failing with ENOENT. */
void cache_open_existing(Cache *c, const char *dir_or_null, DiagSink *diags);
void cache_close(Cache *c);
/* On a hit, *payload is a heap copy (free it) and *len its length. */
bool cache_get(Cache *c, const uint8_t key[32], void **payload, size_t *len);
bool cache_put(Cache *c, const uint8_t key[32], const void *payload, size_t len);
/* An entry whose payload the caller cannot use (whole by its checksum, but
 * not what the key stands for): reported as damaged, once, and deleted. */
void cache_discard(Cache *c, const uint8_t key[32]);
/* Calls fn for each entry, sorted by name; returns the count, or -1. */
int cache_list(Cache *c, void (*fn)(void *user, const char *name, size_t bytes, double mtime),
               void *user);
/* Removes every entry and stale temporary file; returns the count, or -1
 * (also when one could not be removed). */
int cache_clear(Cache *c);
/* Total bytes of all entries (-1 if the directory cannot be read). */
int64_t cache_total_bytes(Cache *c);
/* Path of the entry file for key into buf (needs strlen(dir) + 69 bytes);
 * false if the cache has no directory. */
bool cache_entry_path(const Cache *c, const uint8_t key[32], char *buf, size_t cap);

/* Key building: begin, add fields, end. */
typedef struct CacheKey {
	Sha256 sha;
} CacheKey;
void cache_key_begin(CacheKey *k);
void cache_key_add_bytes(CacheKey *k, const void *p, size_t n);
void cache_key_add_str(CacheKey *k, const char *s); /* NULL differs from "" */
void cache_key_add_u64(CacheKey *k, uint64_t v);
void cache_key_end(CacheKey *k, uint8_t key[32]);

#endif

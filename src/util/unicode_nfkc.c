/* unicode_nfkc.c: NFKC as in UAX #15 (and CPython's unicodedata): each code
 * point replaced by its full compatibility decomposition (Hangul syllables by
 * formula), each run of combining marks stably sorted by combining class, then
 * canonical composition from the left, a mark composing with the last starter
 * unless a mark of the same or a higher class stands between them. */
#include "util/unicode_nfkc.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

enum { S_BASE = 0xAC00, L_BASE = 0x1100, V_BASE = 0x1161, T_BASE = 0x11A7, L_COUNT = 19, V_COUNT = 21,
       T_COUNT = 28, N_COUNT = V_COUNT * T_COUNT, S_COUNT = L_COUNT * N_COUNT };

static unsigned ccc(uint32_t cp)
{
	size_t lo = 0, hi = ccc_count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cp < ccc_ranges[mid][0])
			hi = mid;
		else if (cp > ccc_ranges[mid][1])
			lo = mid + 1;
		else
			return ccc_ranges[mid][2];
	}
	return 0;
}

/* appends cp's full decomposition to out (room for 4 more) */
static size_t decompose(uint32_t cp, uint32_t *out)
{
	if (cp >= S_BASE && cp < S_BASE + S_COUNT) {
		uint32_t s = cp - S_BASE, t = s % T_COUNT;
		out[0] = L_BASE + s / N_COUNT;
		out[1] = V_BASE + s % N_COUNT / T_COUNT;
		if (!t) return 2;
		out[2] = T_BASE + t;
		return 3;
	}
	size_t lo = 0, hi = nfkd_count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cp < nfkd_key[mid])
			hi = mid;
		else if (cp > nfkd_key[mid])
			lo = mid + 1;
		else {
			size_t k = nfkd_off[mid], e = nfkd_off[mid + 1];
			memcpy(out, nfkd_pool + k, (e - k) * sizeof *out);
			return e - k;
		}
	}
	out[0] = cp;
	return 1;
}

/* the primary composite of a then b, 0 if none */
static uint32_t compose(uint32_t a, uint32_t b)
{
	if (a >= L_BASE && a < L_BASE + L_COUNT && b >= V_BASE && b < V_BASE + V_COUNT)
		return S_BASE + ((a - L_BASE) * V_COUNT + (b - V_BASE)) * T_COUNT;
	if (a >= S_BASE && a < S_BASE + S_COUNT && (a - S_BASE) % T_COUNT == 0 && b > T_BASE &&
	    b < T_BASE + T_COUNT)
		return a + (b - T_BASE);
	size_t lo = 0, hi = compose_count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const uint32_t *p = compose_pairs[mid];
		if (a < p[0] || (a == p[0] && b < p[1]))
			hi = mid;
		else if (a > p[0] || b > p[1])
			lo = mid + 1;
		else
			return p[2];
	}
	return 0;
}

static size_t utf8_get(const unsigned char *s, uint32_t *cp)
{
	if (s[0] < 0x80) return *cp = s[0], 1;
	size_t n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : 2;
	uint32_t v = s[0] & (0x7f >> n);
	for (size_t i = 1; i < n; i++) v = v << 6 | (s[i] & 0x3f);
	*cp = v;
	return n;
}

static size_t utf8_put(uint32_t cp, char *o)
{
	if (cp < 0x80) return o[0] = (char)cp, 1;
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	o[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

char *unicode_nfkc(const char *s, size_t n, size_t *out_n)
{
	/* every code point takes at least one byte and decomposes into at most 4 */
	uint32_t *cp = malloc((4 * n + 1) * sizeof *cp);
	if (!cp) return NULL;
	size_t m = 0;
	for (size_t i = 0; i < n;) {
		uint32_t c;
		i += utf8_get((const unsigned char *)s + i, &c);
		m += decompose(c, cp + m);
	}
	/* canonical order: marks sorted by class within each run (insertion sort: stable) */
	for (size_t i = 1; i < m; i++) {
		unsigned ci = ccc(cp[i]);
		if (!ci) continue;
		uint32_t c = cp[i];
		size_t j = i;
		for (; j > 0 && ccc(cp[j - 1]) > ci; j--) cp[j] = cp[j - 1];
		cp[j] = c;
	}
	/* composition */
	size_t out = 0, starter = 0;
	unsigned last = 256;
	if (m) {
		last = ccc(cp[0]) ? 256 : 0;
		out = 1;
	}
	for (size_t i = 1; i < m; i++) {
		unsigned c = ccc(cp[i]);
		uint32_t comp = compose(cp[starter], cp[i]);
		if (comp && (last < c || last == 0)) {
			cp[starter] = comp;
			continue;
		}
		if (!c) starter = out, last = 0;
		else last = c;
		cp[out++] = cp[i];
	}
	char *r = malloc(4 * out + 1);
	if (r) {
		size_t k = 0;
		for (size_t i = 0; i < out; i++) k += utf8_put(cp[i], r + k);
		r[k] = 0;
		*out_n = k;
	}
	free(cp);
	return r;
}

/* cubin_info.c: registers and stack frame of a kernel, from its cubin (see
 * cubin_info.h).
 *
 * A cubin is a little-endian ELF64 file. Each `.nv.info*` section is a list
 * of attributes, each a 4-byte header {format, attribute, u16} where format
 * 4 (EIFMT_SVAL) means the u16 is the size of a payload that follows. Per
 * kernel attributes carry the kernel's symbol index first:
 *   EIATTR_REGCOUNT (0x2f): {u32 symbol, u32 registers}
 *   EIATTR_FRAME_SIZE (0x11): {u32 symbol, u32 bytes}
 * Older cubins also keep the register count in the top byte of the sh_info
 * of the kernel's `.text.<name>` section; it is the fallback. Every offset is
 * checked against the file: a damaged cubin gives false, never a bad read. */
#include "jit/cubin_info.h"

#include <stdint.h>
#include <string.h>

enum {
	SHT_SYMTAB_ = 2,
	EIFMT_SVAL = 4,
	EIATTR_FRAME_SIZE = 0x11,
	EIATTR_REGCOUNT = 0x2f,
	SHDR_SIZE = 64,
	SYM_SIZE = 24,
};

typedef struct Elf {
	const uint8_t *p;
	size_t len;
	uint64_t shoff;
	unsigned shnum, shentsize;
	uint64_t shstr_off, shstr_size;
} Elf;

static uint64_t rd(const uint8_t *p, int bytes)
{
	uint64_t v = 0;
	for (int i = bytes - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static bool in_file(const Elf *e, uint64_t off, uint64_t n)
{
	return off <= e->len && n <= e->len - off;
}

/* Section i's header fields (false when out of the file). */
static bool section(const Elf *e, unsigned i, uint32_t *name, uint32_t *type, uint64_t *off,
                    uint64_t *size, uint32_t *link, uint32_t *info)
{
	uint64_t h = e->shoff + (uint64_t)i * e->shentsize;
	if (i >= e->shnum || !in_file(e, h, SHDR_SIZE))
		return false;
	const uint8_t *s = e->p + h;
	*name = (uint32_t)rd(s, 4);
	*type = (uint32_t)rd(s + 4, 4);
	*off = rd(s + 24, 8);
	*size = rd(s + 32, 8);
	*link = (uint32_t)rd(s + 40, 4);
	*info = (uint32_t)rd(s + 44, 4);
	return in_file(e, *off, *size);
}

/* The NUL-terminated string at `at` of a string table, or NULL. */
static const char *str_at(const Elf *e, uint64_t tab_off, uint64_t tab_size, uint64_t at)
{
	if (at >= tab_size)
		return NULL;
	const char *s = (const char *)e->p + tab_off + at;
	return memchr(s, 0, tab_size - at) ? s : NULL;
}

static const char *section_name(const Elf *e, uint32_t name)
{
	return str_at(e, e->shstr_off, e->shstr_size, name);
}

static bool elf_open(Elf *e, const void *cubin, size_t len)
{
	memset(e, 0, sizeof *e);
	e->p = cubin;
	e->len = len;
	/* ELF magic, 64-bit, little-endian */
	if (!cubin || len < 64 || memcmp(e->p, "\177ELF", 4) != 0 || e->p[4] != 2 || e->p[5] != 1)
		return false;
	e->shoff = rd(e->p + 40, 8);
	e->shentsize = (unsigned)rd(e->p + 58, 2);
	e->shnum = (unsigned)rd(e->p + 60, 2);
	unsigned shstrndx = (unsigned)rd(e->p + 62, 2);
	if (e->shentsize < SHDR_SIZE || !in_file(e, e->shoff, (uint64_t)e->shnum * e->shentsize))
		return false;
	uint32_t name, type, link, info;
	return section(e, shstrndx, &name, &type, &e->shstr_off, &e->shstr_size, &link, &info);
}

/* The symbol-table index of the function `kernel`, or -1. */
static long find_symbol(const Elf *e, const char *kernel)
{
	for (unsigned i = 0; i < e->shnum; i++) {
		uint32_t name, type, link, info, n2, t2, l2, i2;
		uint64_t off, size, str_off, str_size;
		if (!section(e, i, &name, &type, &off, &size, &link, &info) || type != SHT_SYMTAB_ ||
		    !section(e, link, &n2, &t2, &str_off, &str_size, &l2, &i2))
			continue;
		for (uint64_t k = 0; k + SYM_SIZE <= size; k += SYM_SIZE) {
			const char *s = str_at(e, str_off, str_size, rd(e->p + off + k, 4));
			if (s && strcmp(s, kernel) == 0)
				return (long)(k / SYM_SIZE);
		}
	}
	return -1;
}

/* Walks the `.nv.info*` sections for the kernel's register count and frame. */
static void scan_info(const Elf *e, long sym, int *registers, int *frame)
{
	for (unsigned i = 0; i < e->shnum; i++) {
		uint32_t name, type, link, info;
		uint64_t off, size;
		if (!section(e, i, &name, &type, &off, &size, &link, &info))
			continue;
		const char *sn = section_name(e, name);
		if (!sn || strncmp(sn, ".nv.info", 8) != 0)
			continue;
		const uint8_t *a = e->p + off, *end = a + size;
		while (end - a >= 4) {
			unsigned fmt = a[0], attr = a[1];
			uint64_t n = fmt == EIFMT_SVAL ? rd(a + 2, 2) : 0;
			if ((uint64_t)(end - a - 4) < n)
				break;
			if (n >= 8 && (long)rd(a + 4, 4) == sym) {
				uint64_t v = rd(a + 8, 4);
				if (v <= INT32_MAX && attr == EIATTR_REGCOUNT)
					*registers = (int)v;
				else if (v <= INT32_MAX && attr == EIATTR_FRAME_SIZE)
					*frame = (int)v;
			}
			a += 4 + n;
		}
	}
}

/* The register count in the top byte of `.text.<kernel>`'s sh_info, or -1. */
static int text_registers(const Elf *e, const char *kernel)
{
	for (unsigned i = 0; i < e->shnum; i++) {
		uint32_t name, type, link, info;
		uint64_t off, size;
		if (!section(e, i, &name, &type, &off, &size, &link, &info))
			continue;
		const char *sn = section_name(e, name);
		if (sn && strncmp(sn, ".text.", 6) == 0 && strcmp(sn + 6, kernel) == 0)
			return info >> 24 ? (int)(info >> 24) : -1;
	}
	return -1;
}

bool cubin_resources(const void *cubin, size_t len, const char *kernel, int *registers,
                     int *frame_bytes)
{
	*registers = *frame_bytes = -1;
	Elf e;
	if (!kernel || !elf_open(&e, cubin, len))
		return false;
	long sym = find_symbol(&e, kernel);
	if (sym < 0)
		return false;
	scan_info(&e, sym, registers, frame_bytes);
	if (*registers < 0)
		*registers = text_registers(&e, kernel);
	if (*registers < 0) {
		*frame_bytes = -1;
		return false;
	}
	if (*frame_bytes < 0) /* no frame attribute: the kernel has no stack */
		*frame_bytes = 0;
	return true;
}

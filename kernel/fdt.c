/*
 * fdt.c - find /chosen/bootargs in a flattened device tree (Devicetree
 * Specification, chapter 5: big-endian header, then a structure block of
 * 4-byte tokens, then a strings block holding property names).
 */
#include "fdt.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kstring.h"

#define FDT_MAGIC      0xd00dfeed
#define FDT_BEGIN_NODE 1
#define FDT_END_NODE   2
#define FDT_PROP       3
#define FDT_NOP	       4
#define FDT_MAX_SIZE   0x100000 /* refuse headers claiming more than 1 MiB */

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Length of the NUL-terminated string at s, or `limit` if none ends before. */
static size_t bounded_strlen(const char *s, size_t limit)
{
	size_t n = 0;

	while (n < limit && s[n])
		n++;
	return n;
}

const char *fdt_bootargs(const void *fdt)
{
	const uint8_t *base = fdt;
	uint32_t total, off, end, strings, strings_size;
	int depth = 0;
	bool in_chosen = false;

	if (!base || be32(base) != FDT_MAGIC)
		return "";
	total = be32(base + 4);
	off = be32(base + 8);
	strings = be32(base + 12);
	strings_size = be32(base + 32);
	end = off + be32(base + 36);
	if (total > FDT_MAX_SIZE || end > total || end < off || strings > total ||
	    strings_size > total - strings)
		return "";

	while (off + 4 <= end) {
		uint32_t token = be32(base + off);

		off += 4;
		if (token == FDT_BEGIN_NODE) {
			const char *name = (const char *)base + off;
			size_t len = bounded_strlen(name, end - off);

			depth++;
			if (depth == 2)
				in_chosen = str_equal(name, "chosen");
			off += (uint32_t)(len + 4) & ~3u; /* name, NUL, pad to 4 */
		} else if (token == FDT_END_NODE) {
			if (depth == 2)
				in_chosen = false;
			depth--;
		} else if (token == FDT_PROP && off + 8 <= end) {
			uint32_t len = be32(base + off);
			uint32_t name_off = be32(base + off + 4);
			const char *value = (const char *)base + off + 8;

			off += 8;
			if (len > end - off)
				return "";
			if (in_chosen && depth == 2 && name_off < strings_size &&
			    str_equal((const char *)base + strings + name_off,
				      "bootargs") &&
			    len > 0 && value[len - 1] == '\0')
				return value;
			off += (len + 3) & ~3u;
		} else if (token != FDT_NOP) {
			break; /* FDT_END (9), or something we do not understand */
		}
	}
	return "";
}

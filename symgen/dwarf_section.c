/*
 * dwarf_section.c - see dwarf_section.h. The compression header is the
 * gABI's Elf32_Chdr / Elf64_Chdr.
 */
#include "dwarf_section.h"

#include <zlib.h>

#define SHF_COMPRESSED	 0x800
#define ELFCOMPRESS_ZLIB 1
/* zlib's deflate never shrinks data by more than about 1032:1. */
#define ZLIB_MAX_RATIO 1032

struct dwarf_bytes dwarf_section_inflated(const struct elf_file *elf, const char *name)
{
	uint32_t index = elf_section_by_name(elf, name);
	struct dwarf_bytes raw = dwarf_section(elf, name);
	struct dwarf_cursor c = {raw.data, raw.data + raw.size, false};
	uint64_t type, size;
	unsigned char *inflated;
	uLongf inflated_size;

	if (index == 0 || !(elf_section(elf, index).flags & SHF_COMPRESSED))
		return raw;
	type = dwarf_read_fixed(&c, 4);
	if (elf->is64) {
		dwarf_read_fixed(&c, 4); /* ch_reserved */
		size = dwarf_read_fixed(&c, 8);
		dwarf_read_fixed(&c, 8); /* ch_addralign */
	} else {
		size = dwarf_read_fixed(&c, 4);
		dwarf_read_fixed(&c, 4);
	}
	if (c.bad || type != ELFCOMPRESS_ZLIB)
		die(elf->path, "%s: unknown compression (type %llu)", name,
		    (unsigned long long)type);
	if (size == 0 || size / ZLIB_MAX_RATIO > raw.size || size > (uLongf)-1)
		die(elf->path, "%s: compressed to an impossible size (%llu bytes)", name,
		    (unsigned long long)size);
	inflated = tracked_alloc(elf->path, size, 1);
	inflated_size = (uLongf)size;
	if (uncompress(inflated, &inflated_size, c.p, (uLong)(c.end - c.p)) != Z_OK ||
	    inflated_size != size)
		die(elf->path, "%s: does not inflate to the %llu bytes its header gives",
		    name, (unsigned long long)size);
	return (struct dwarf_bytes){inflated, size};
}

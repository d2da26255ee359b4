/*
 * dwarf_section.h - a debug section's bytes, inflated when the linker
 * compressed it (SHF_COMPRESSED, ELFCOMPRESS_ZLIB: -gz, --compress-debug-sections).
 * Needs zlib (Debian's zlib1g-dev).
 */
#ifndef SYMGEN_DWARF_SECTION_H
#define SYMGEN_DWARF_SECTION_H

#include "dwarf_read.h"
#include "elf.h"

/* The section called name, inflated into a tracked block if it is
 * compressed; none (size 0) if the image lacks it. Dies on a compressed
 * section that does not inflate to the size its header gives. */
struct dwarf_bytes dwarf_section_inflated(const struct elf_file *elf, const char *name);

#endif /* SYMGEN_DWARF_SECTION_H */

/*
 * dwarf_names.h - the name the debugging information gives each function,
 * by its entry address: what GDB's bt prints for a pc inside it, whatever
 * other symbols (aliases) share that address.
 */
#ifndef SYMGEN_DWARF_NAMES_H
#define SYMGEN_DWARF_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "dwarf_read.h"
#include "elf.h"

struct dwarf_name {
	uint64_t addr;	  /* DW_AT_low_pc */
	const char *name; /* DW_AT_linkage_name, else DW_AT_name */
};

/*
 * Every DW_TAG_subprogram of .debug_info (DWARF 2 to 5) with an entry
 * address and a name, sorted by address. None (*count 0) if the image has
 * no .debug_info, or if it holds something this reader does not know (the
 * symbol table alone then names the functions, as it did before). The names point into
 * elf's data; the array is a tracked block (die.h), for tracked_free().
 */
struct dwarf_name *dwarf_names_read(const struct elf_file *elf, size_t *count);

/*
 * The offsets in .debug_line of the line programs the units of .debug_info
 * name (DW_AT_stmt_list), in the units' order; the sections got through
 * `section` (dwarf_section, or one that inflates them). NULL if a unit
 * holds something this reader does not know; else a tracked block (*count
 * 0 if the image has no .debug_info).
 */
uint64_t *dwarf_line_programs(const struct elf_file *elf, dwarf_section_reader *section,
			      size_t *count);

/* The name dwarf_names_read() found for addr, or NULL. */
const char *dwarf_name_at(const struct dwarf_name *names, size_t count, uint64_t addr);

#endif /* SYMGEN_DWARF_NAMES_H */

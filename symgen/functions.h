/*
 * functions.h - the functions of a linked image as the tracer's symbol table
 * lists them: symgen writes them out, prologue_check decodes each one.
 */
#ifndef SYMGEN_FUNCTIONS_H
#define SYMGEN_FUNCTIONS_H

#include "elf.h"

struct function {
	const char *name;
	uint64_t addr;
	uint64_t size;	      /* st_size, else up to the next function (see .c) */
	uint64_t section_end; /* end address of the containing section */
	unsigned char bind;
	bool typed; /* STT_FUNC; else an untyped label in code (STT_NOTYPE) */
};

/*
 * The functions of the image, sorted by address, one per address, each with a
 * size that ends at or before the next one's start: its STT_FUNC symbols
 * defined in allocated sections, and, as nm and GDB show them, its untyped
 * labels in executable sections (assembly entry points written without
 * .type), except the assembler's own (.L*, mapping symbols), labels inside a
 * function of explicit size, and labels that cover no byte. Among names for
 * one address, the one printed is a typed one, then global before weak
 * before local, then the alphabetically first (typed) or last (untyped, as
 * GDB picks among labels); but a function the debugging information names
 * (dwarf_names.h) goes by that name, as GDB's bt shows it: an alias's
 * function by its own name. *count may be 0. The names point into elf's
 * data; the array is a tracked block (die.h), for tracked_free().
 */
struct function *functions_read(const struct elf_file *elf, size_t *count);

#endif /* SYMGEN_FUNCTIONS_H */

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
};

/*
 * The STT_FUNC symbols defined in allocated sections, sorted by address, one
 * per address (global before weak before local, then alphabetical), each with
 * a size. *count may be 0. The names point into elf's data; the array is a
 * tracked block (die.h), for tracked_free().
 */
struct function *functions_read(const struct elf_file *elf, size_t *count);

#endif /* SYMGEN_FUNCTIONS_H */

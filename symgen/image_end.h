/*
 * image_end.h - the check that a kernel's end-of-image symbol (where many
 * kernels start their heap or page allocator) lies after the tracer's tables.
 */
#ifndef SYMGEN_IMAGE_END_H
#define SYMGEN_IMAGE_END_H

#include "elf.h"

/* Names from the command line: allowed below the tables, or checked too. */
struct name_list {
	const char **names;
	size_t count;
};

/*
 * Dies, naming the symbol, its address, the tables and the fix, when a
 * well-known end-of-image or heap-start symbol of `elf` (or one in `extra`)
 * lies below the end of the tables symgen embeds (.tracer_symtab, and
 * .eh_frame too with `cfi`): a page allocator that starts there overwrites
 * them at boot. Symbols in `allowed` are not checked. An image without
 * __tracer_symtab_end (not linked with tracer_symtab.ld) has nothing to check.
 * An error, not a warning: what it prevents shows only at panic time (raw
 * frames, or a fault in the walk), and a warning scrolls by in a build log;
 * the opt-out names one symbol, so the others stay checked.
 */
void image_end_check(const struct elf_file *elf, bool cfi, struct name_list allowed,
		     struct name_list extra);

#endif /* SYMGEN_IMAGE_END_H */

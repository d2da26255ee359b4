/*
 * unwind_table.h - the unwind table of a linked image (struct
 * tracer_unwind_table in tracer/tracer.h, format in docs/unwind-table-format.md):
 * the rule table of its .eh_frame, row by row, as the tracer's own CFI
 * interpreter (tracer/cfi_row.c, built for the host) computes it.
 */
#ifndef SYMGEN_UNWIND_TABLE_H
#define SYMGEN_UNWIND_TABLE_H

#include "fde_index.h"

struct unwind_table {
	uint64_t base;	/* the address of the first row */
	uint16_t *rows; /* rules' offsets in rules[] (table_format.h) */
	size_t count;
	uint64_t *maps;	  /* block_count entries */
	uint16_t *lookup; /* block_count entries */
	size_t block_count;
	struct tracer_unwind_rule *rules;
	size_t rule_count;
	size_t interpreted; /* rows marked "interpret" */
};

/*
 * The table of the FDEs (fde_index_read's, sorted, not overlapping): at
 * every 2-byte step of the code each covers, the interpreter's row, encoded
 * (or "interpret" where the format cannot express it); identical
 * consecutive rows merged; a no-CFI row wherever the next FDE does not
 * start where one ends, and after the last. Rules past the dictionary's
 * TRACER_UNWIND_MAX_RULES become "interpret". Dies on code at an odd
 * address. Tracked blocks (die.h).
 */
struct unwind_table unwind_table_build(const struct elf_file *elf,
				       const struct fde_entry *fdes, size_t count);

#endif /* SYMGEN_UNWIND_TABLE_H */

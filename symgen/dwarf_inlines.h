/*
 * dwarf_inlines.h - the inlined calls of a linked image: every
 * DW_TAG_inlined_subroutine of .debug_info (DWARF 2 to 5, section 3.3.8),
 * with its addresses, the function it inlines and the file:line of its call,
 * and, for any pc, the chain of inlined calls there, innermost first: what
 * `addr2line -i` and GDB's bt print as frames of their own.
 */
#ifndef SYMGEN_DWARF_INLINES_H
#define SYMGEN_DWARF_INLINES_H

#include <stddef.h>
#include <stdint.h>

#include "elf.h"

#define INLINE_NO_CALL SIZE_MAX

/* One DW_TAG_inlined_subroutine. */
struct inline_call {
	const char *name;      /* the inlined function's, or NULL if none is given */
	const char *call_file; /* as the line table names files, or NULL */
	uint32_t call_line;    /* 0 if not given */
	size_t parent;	       /* the call this one is inside, or INLINE_NO_CALL */
	unsigned depth;	       /* 0 for a call directly inside a function */
	uint64_t offset;       /* of its entry in .debug_info */
};

/* [low, high) of the code of inline_table.calls[call]. */
struct inline_range {
	uint64_t low;
	uint64_t high;
	size_t call;
};

/*
 * Every inlined call, in the order of .debug_info, with the ranges of those
 * that have code (an abstract instance's calls have none). Call files are
 * named as dwarf_lines.h names files: relative to the compilation
 * directory where the line program says they are in it.
 */
struct inline_table {
	struct inline_call *calls;
	size_t call_count;
	struct inline_range *ranges;
	size_t range_count;
};

/*
 * Reads elf's inlined calls (the sections compressed with zlib or not); an
 * image without .debug_info gives an empty table. Dies with "malformed
 * .debug_info at offset 0x...: ..." (or .debug_ranges, .debug_rnglists) on
 * anything out of bounds, inconsistent or that this reader does not know.
 * The arrays and names are tracked blocks (die.h).
 */
void dwarf_inlines_read(const struct elf_file *elf, struct inline_table *table);

/*
 * The chain of inlined calls at pc, innermost first, as indices in
 * table->calls, up to `max` of them into chain; returns the chain's length
 * (which may exceed max). The innermost is the deepest call whose ranges
 * hold pc (of equals, the one with the smallest range holding it); the
 * others are the calls it is inside, as the entries nest.
 */
size_t dwarf_inline_chain(const struct inline_table *table, uint64_t pc, size_t *chain,
			  size_t max);

#endif /* SYMGEN_DWARF_INLINES_H */

/*
 * table_lookup.h - finding the rule of a pc in the unwind table symgen
 * compiles (table_format.h): a count of set bits, no search. The table
 * unwinder reads its rules; the frame-pointer and DWARF unwinders read one
 * fact of them, the frame size that witnesses an s0-based frame.
 */
#ifndef TRACER_TABLE_LOOKUP_H
#define TRACER_TABLE_LOOKUP_H

#include "walk.h"

/*
 * How many rows start below `end` bytes past the base of a table
 * tracer_unwind_table_check() accepted (`end` even, in one of its blocks):
 * the rows up to the end of the block less those that start in it at or
 * past `end`. The row in effect just below `end` is the last of them (at
 * least one: the first block starts with a row). So a block's first offset
 * (end & 127 = 0) needs no special case, and a return address is its own
 * `end` (pc - base: the call is below it). No search: inline, the table's
 * capture loop runs it once a frame.
 */
static inline uintptr_t unwind_table_rows_below(const uint64_t *maps,
						const uint16_t *lookup, uintptr_t end)
{
	uintptr_t block = end >> TRACER_UNWIND_BLOCK_SHIFT;

	return (uintptr_t)lookup[block] -
	       tracer_unwind_popcount(tracer_unwind_rows_from(maps[block], end));
}

/* The rule a row names (its byte offset in rules[]). */
static inline const struct tracer_unwind_rule *
unwind_table_rule_of(const struct tracer_unwind_rule *rules, uint16_t row)
{
	return (const struct tracer_unwind_rule *)(const void *)((const char *)rules +
								 row);
}

/* Whether pc lies in one of the table's blocks; *end is then its offset
 * from the base, just past the 2-byte unit pc is in. */
static inline bool unwind_table_end(const struct tracer_unwind_table *table, uintptr_t pc,
				    uintptr_t *end)
{
	uintptr_t offset = pc - table->base;

	*end = (offset | 1) + 1;
	/* Past the last block: end there too (the last unit of the last
	 * block); the offset first, as end wraps at the top of the address
	 * space. */
	return pc >= table->base &&
	       offset >> TRACER_UNWIND_BLOCK_SHIFT < table->block_count &&
	       *end >> TRACER_UNWIND_BLOCK_SHIFT < table->block_count;
}

/* The rule in effect at pc in a table tracer_unwind_table_check()
 * accepted: no-CFI before the base or past the last block; "interpret"
 * everywhere in an empty table. */
const struct tracer_unwind_rule *
unwind_table_rule(const struct tracer_unwind_table *table, uintptr_t pc);

/* The table's fields a step reads, as locals, so that a loop keeps them in
 * registers. */
struct table_lookup {
	uintptr_t base;
	const uint64_t *maps;
	const uint16_t *lookup;
	const uint16_t *rows;
	const struct tracer_unwind_rule *rules;
};

static inline void table_lookup_of(struct table_lookup *to,
				   const struct tracer_unwind_table *table)
{
	to->base = table->base;
	to->maps = table->maps;
	to->lookup = table->lookup;
	to->rows = table->rows;
	to->rules = table->rules;
}

/* The rule in effect just below `end` bytes past the table's base (even, in
 * one of its blocks): the last row that starts below it. */
static inline const struct tracer_unwind_rule *
table_rule_below(const struct table_lookup *table, uintptr_t end)
{
	return unwind_table_rule_of(
	    table->rules,
	    table->rows[unwind_table_rows_below(table->maps, table->lookup, end) - 1]);
}

/*
 * The second witness of a caller's frame, whose CFA an unwinder took from
 * s0 (a saved s0 that a stack overwrite may have forged): the frame size
 * its row states (frame_size_16, measured in the code by symgen), if any,
 * puts the CFA at sp + that size. False if they disagree: the general step
 * then ends the walk (TRACER_STOP_FRAME_SIZE, in walk.c's advance()).
 */
static inline bool frame_size_agrees(const struct tracer_unwind_rule *rule, uintptr_t sp,
				     uintptr_t cfa)
{
	return rule->frame_size_16 == 0 ||
	       cfa - sp == (uintptr_t)rule->frame_size_16 * TRACER_UNWIND_FRAME_UNIT;
}

/* The walk's call_window for the table and auto: `call` less the return
 * addresses whose call (pc - 1) the table's blocks do not cover. */
struct window unwind_table_call_window(const struct tracer_unwind_table *table,
				       struct window call);

#endif /* TRACER_TABLE_LOOKUP_H */

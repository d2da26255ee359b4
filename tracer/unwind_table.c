/*
 * unwind_table.c - the table unwinder: one frame from the unwind table symgen
 * compiled out of .eh_frame (format: tracer/UNWIND_TABLE.md).
 *
 * Find the row in effect at the pc (the lookup index narrows the binary
 * search to one block of code), then apply it as the DWARF unwinder applies
 * a row of the rule table: the CFA is the caller's sp, ra's rule gives the
 * caller's pc, s0's rule its s0. The checks are the DWARF unwinder's too:
 * the CFA lies in the stack above the frame before, and "ra undefined" is
 * believed only at the top of the stack. A row the table could not express
 * goes to the DWARF unwinder (the caller runs it: see internal.h); a pc no
 * FDE covers stops with NO_CFI, as DWARF does, so that auto falls through
 * to the next unwinder.
 */
#include "internal.h"

const struct tracer_unwind_row *unwind_table_find(const struct tracer_unwind_table *table,
						  uintptr_t pc)
{
	const struct tracer_unwind_row *rows = table->rows;
	uintptr_t offset = pc - table->base;
	uintptr_t block = offset >> TRACER_UNWIND_BLOCK_SHIFT;
	uint32_t low;
	uint32_t high;

	if (pc < table->base || table->count == 0)
		return NULL;
	/* Past the last block: the last row, which is no-CFI. */
	if (block >= table->lookup_count)
		return &rows[table->count - 1];
	/* The row in effect lies between those at this block's start and the
	 * next one's (the last block: the last row). */
	low = table->lookup[block];
	high = block + 1 < table->lookup_count ? table->lookup[block + 1] : table->count - 1;
	while (low < high) {
		uint32_t middle = low + (high - low + 1) / 2;

		if (rows[middle].pc <= offset)
			low = middle;
		else
			high = middle - 1;
	}
	return &rows[low];
}

/* base + offset, offset a signed field in units of `unit` bytes. Unsigned
 * arithmetic: a crafted row wraps instead of overflowing. */
static uintptr_t displaced(uintptr_t base, uint32_t rule, unsigned shift, unsigned bits,
			   uintptr_t unit)
{
	return base + (uintptr_t)(intptr_t)tracer_unwind_signed(rule, shift, bits) * unit;
}

bool table_step(struct tracer_walk *walk)
{
	const struct tracer_unwind_table *table = walk->config->unwind_table;
	struct tracer_regs *regs = &walk->next;
	/* A return address is just past its call: look up the call itself. */
	uintptr_t pc = walk->next_is_exact ? regs->pc : regs->pc - 1;
	const struct tracer_unwind_row *row;
	uint32_t rule;
	uintptr_t cfa;
	uintptr_t ra = regs->ra;
	uintptr_t s0 = regs->s[0];

	/* A table that failed validation is not read (see tables.c). */
	if (walk->unwind_table_status != TRACER_TABLE_OK) {
		walk->stop = walk->unwind_table_status == TRACER_TABLE_ABSENT
				 ? TRACER_STOP_NO_CFI
				 : TRACER_STOP_BAD_UNWIND_TABLE;
		return true;
	}
	row = unwind_table_find(table, pc);
	rule = row ? row->rule : TRACER_UNWIND_CFA_NONE;
	switch (rule & 3) {
	case TRACER_UNWIND_CFA_SP:
		cfa = regs->sp;
		break;
	case TRACER_UNWIND_CFA_S0:
		cfa = regs->s[0];
		break;
	case TRACER_UNWIND_CFA_INTERPRET:
		return false;
	default:
		walk->stop = TRACER_STOP_NO_CFI;
		return true;
	}
	cfa = displaced(cfa, rule, TRACER_UNWIND_CFA_OFFSET_SHIFT, TRACER_UNWIND_CFA_BITS,
			TRACER_UNWIND_CFA_UNIT);
	/* Boot code marks the first frame of a stack so: no caller. */
	if ((rule >> TRACER_UNWIND_RA_SHIFT & 3) == TRACER_UNWIND_RA_UNDEFINED) {
		walk->stop = frame_outermost(walk, cfa, TRACER_STOP_EARLY_OUTERMOST);
		return true;
	}
	walk->stop = frame_check_cfa(walk, cfa);
	if (walk->stop != TRACER_RUNNING)
		return true;
	if (((rule >> TRACER_UNWIND_RA_SHIFT & 3) == TRACER_UNWIND_RA_SAVED &&
	     !memory_read_word(&walk->stack,
			       displaced(cfa, rule, TRACER_UNWIND_RA_OFFSET_SHIFT,
					 TRACER_UNWIND_SAVE_BITS, sizeof(uintptr_t)),
			       &ra)) ||
	    ((rule & TRACER_UNWIND_S0_SAVED) &&
	     !memory_read_word(&walk->stack,
			       displaced(cfa, rule, TRACER_UNWIND_S0_OFFSET_SHIFT,
					 TRACER_UNWIND_SAVE_BITS, sizeof(uintptr_t)),
			       &s0))) {
		walk->stop = TRACER_STOP_OUTSIDE_STACK;
		return true;
	}
	/* After the return, ra still holds the address returned to. */
	regs->pc = ra;
	regs->ra = ra;
	regs->sp = cfa;
	regs->s[0] = s0;
	walk->next_is_exact = false;
	return true;
}

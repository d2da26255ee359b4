/*
 * unwind_table.c - the table unwinder: one frame from the unwind table symgen
 * compiled out of .eh_frame (format: tracer/UNWIND_TABLE.md).
 *
 * Find the rule in effect at the pc (the lookup index narrows the binary
 * search to one block of code), then apply it as the DWARF unwinder applies
 * a row of the rule table: the CFA is the caller's sp, ra's rule gives the
 * caller's pc, s0's rule its s0. The checks are the DWARF unwinder's too:
 * the CFA lies in the stack above the frame before, and "ra undefined" is
 * believed only at the top of the stack. A row the table could not express
 * goes to the DWARF unwinder (the caller runs it: see internal.h); a pc no
 * FDE covers stops with NO_CFI, as DWARF does, so that auto falls through
 * to the next unwinder.
 *
 * table_run() is the raw capture's loop over the common frames (a row
 * based on sp or s0 with ra saved), with the same checks against bounds
 * computed once; table_step() does every frame it leaves.
 */
#include "internal.h"

#define WORD sizeof(uintptr_t)

uint32_t unwind_table_rule(const struct tracer_unwind_table *table, uintptr_t pc)
{
	uintptr_t offset = pc - table->base;
	uintptr_t block = offset >> TRACER_UNWIND_BLOCK_SHIFT;

	/* Past the last block: the last row's range, which is no-CFI. */
	if (pc < table->base || block >= table->block_count)
		return TRACER_UNWIND_CFA_NONE;
	return unwind_table_rule_in(table->rows, table->lookup, table->rules, block, offset);
}

/* base + offset, offset a signed field in units of `unit` bytes. Unsigned
 * arithmetic: a crafted row wraps instead of overflowing. */
static inline uintptr_t displaced(uintptr_t base, uint32_t rule, unsigned shift,
				  unsigned bits, uintptr_t unit)
{
	return base + (uintptr_t)(intptr_t)tracer_unwind_signed(rule, shift, bits) * unit;
}

bool table_step(struct tracer_walk *walk)
{
	const struct tracer_unwind_table *table = walk->config->unwind_table;
	struct tracer_regs *regs = &walk->next;
	/* A return address is just past its call: look up the call itself. */
	uintptr_t pc = walk->next_is_exact ? regs->pc : regs->pc - 1;
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
	rule = unwind_table_rule(table, pc);
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
					 TRACER_UNWIND_SAVE_BITS, WORD),
			       &ra)) ||
	    ((rule & TRACER_UNWIND_S0_SAVED) &&
	     !memory_read_word(&walk->stack,
			       displaced(cfa, rule, TRACER_UNWIND_S0_OFFSET_SHIFT,
					 TRACER_UNWIND_SAVE_BITS, WORD),
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

/* The kinds table_run() takes: CFA sp- or s0-based, ra saved. */
#define COMMON_MASK (3u | 3u << TRACER_UNWIND_RA_SHIFT)
#define COMMON_SP   (TRACER_UNWIND_CFA_SP | TRACER_UNWIND_RA_SAVED << TRACER_UNWIND_RA_SHIFT)
#define COMMON_S0   (TRACER_UNWIND_CFA_S0 | TRACER_UNWIND_RA_SAVED << TRACER_UNWIND_RA_SHIFT)

size_t table_run(struct tracer_walk *walk, uintptr_t *pcs, size_t max)
{
	const struct tracer_unwind_table *table = walk->config->unwind_table;
	const struct tracer_window call = walk->call_window;
	const struct tracer_window trap_return = walk->trap_return_window;
	/* memory_read_word's stack, [start, end - WORD], for an aligned word:
	 * a CFA aligned to words makes every slot aligned, its offsets being
	 * in words. */
	const uintptr_t top = walk->stack.end;
	struct tracer_window slots = memory_window(walk->stack, WORD);
	uintptr_t pc = walk->next.pc;
	uintptr_t sp = walk->next.sp;
	uintptr_t s0 = walk->next.s[0];
	uintptr_t *next = pcs;
	uintptr_t *const end = pcs + max;
	const uint16_t *rows;
	const uint32_t *lookup;
	const uint32_t *rules;
	uintptr_t base;
	uintptr_t blocks;

	/* frame_check_cfa's stack, (start, end]: from an sp inside it, a CFA
	 * above sp and at or below the top is inside it. */
	if (walk->unwind_table_status != TRACER_TABLE_OK ||
	    !frame_pointer_takes_common(walk) || sp < walk->stack.start)
		return 0;
	rows = table->rows;
	lookup = table->lookup;
	rules = table->rules;
	base = table->base + 1; /* pc - 1: the call */
	blocks = table->block_count;
	slots.first -= WORD;
	while (next != end) {
		uintptr_t offset = pc - base;
		uintptr_t block = offset >> TRACER_UNWIND_BLOCK_SHIFT;
		uintptr_t cfa;
		uint32_t rule;
		uintptr_t slot;
		uintptr_t caller_s0 = s0;

		/* Below the base, offset wraps past every block. */
		if (block >= blocks)
			break;
		rule = unwind_table_rule_in(rows, lookup, rules, block, offset);
		if ((rule & COMMON_MASK) == COMMON_SP)
			cfa = sp;
		else if ((rule & COMMON_MASK) == COMMON_S0)
			cfa = s0;
		else
			break;
		cfa += (uintptr_t)(intptr_t)tracer_unwind_signed(
			   rule, TRACER_UNWIND_CFA_OFFSET_SHIFT, TRACER_UNWIND_CFA_BITS) *
		       TRACER_UNWIND_CFA_UNIT;
		/* Above sp, strictly: a caller's frame. */
		if (cfa <= sp || cfa > top || cfa % WORD != 0)
			break;
		slot = cfa + (uintptr_t)(intptr_t)tracer_unwind_signed(
				 rule, TRACER_UNWIND_RA_OFFSET_SHIFT, TRACER_UNWIND_SAVE_BITS) *
			     WORD;
		if (!window_contains(slots, slot))
			break;
		pc = target_word(slot);
		if (rule & TRACER_UNWIND_S0_SAVED) {
			slot = cfa + (uintptr_t)(intptr_t)tracer_unwind_signed(
					 rule, TRACER_UNWIND_S0_OFFSET_SHIFT,
					 TRACER_UNWIND_SAVE_BITS) *
				     WORD;
			if (!window_contains(slots, slot))
				break;
			caller_s0 = target_word(slot);
		}
		if (!code_follows_ra_call(call, pc))
			break;
		*next++ = pc;
		sp = cfa;
		s0 = caller_s0;
		if (window_contains(trap_return, pc))
			break;
	}
	if (next != pcs) {
		walk->next.pc = next[-1];
		walk->next.ra = next[-1]; /* ra still holds the address returned to */
		walk->next.sp = sp;
		walk->next.s[0] = s0;
		walk->next_found_by = TRACER_TABLE;
	}
	return (size_t)(next - pcs);
}

/*
 * unwind_table.c - the table unwinder: one frame from the unwind table symgen
 * compiled out of .eh_frame (format: docs/unwind-table-format.md).
 *
 * Find the rule in effect at the pc (a block's map of row starts and the
 * count of rows before it: no search), then apply it as the DWARF unwinder applies
 * a row of the rule table: the CFA is the caller's sp, ra's rule gives the
 * caller's pc, s0's rule its s0. The checks are the DWARF unwinder's too:
 * the CFA lies in the stack above the frame before, and "ra undefined" is
 * believed only at the top of the stack. A row the table could not express
 * goes to the DWARF unwinder (the caller runs it: walk.c); a pc no
 * FDE covers stops with NO_CFI, as DWARF does, so that auto falls through
 * to the next unwinder.
 *
 * table_common_step() below is the step for the common frames (a
 * row based on sp or s0 with ra saved), with the same checks, against
 * bounds computed once or guaranteed by the table's validation: table_run()
 * is the raw capture's loop over it, and tracer_next() takes it for one
 * frame; table_step() does every frame they leave.
 */
#include "riscv.h"
#include "table_lookup.h"
#include "verify.h"

#define WORD sizeof(uintptr_t)

/* How far a rule's 16-bit offset reaches. */
#define TABLE_OFFSET_REACH 0x8000u

/* The kinds the table's common step takes (ra saved): CFA sp-based, s0
 * saved or not; s0-based, s0 saved (as it always is, s0 being the frame
 * pointer). */
#define TABLE_COMMON_SP_S0 0u
#define TABLE_COMMON_S0	   TRACER_UNWIND_CFA_ON_S0
#define TABLE_COMMON_SP	   TRACER_UNWIND_S0_UNCHANGED

const struct tracer_unwind_rule *
unwind_table_rule(const struct tracer_unwind_table *table, uintptr_t pc)
{
	static const struct tracer_unwind_rule no_cfi = {0, 0, 0, TRACER_UNWIND_NO_CFI,
							 0};
	static const struct tracer_unwind_rule interpret = {0, 0, 0,
							    TRACER_UNWIND_INTERPRET, 0};
	uintptr_t end;

	/* An empty table is one symgen could not fill (more rows than the
	 * format counts): it says nothing, and the DWARF unwinder computes
	 * every frame. */
	if (table->count == 0)
		return &interpret;
	/* Past the last block: the last row's range, which is no-CFI. */
	if (!unwind_table_end(table, pc, &end))
		return &no_cfi;
	return unwind_table_rule_of(
	    table->rules,
	    table->rows[unwind_table_rows_below(table->maps, table->lookup, end) - 1]);
}

__attribute__((noinline)) enum tracer_stop frame_size_check(struct walk *walk,
							    uintptr_t cfa)
{
	struct table_lookup table;

	/* call_window: the valid table covers the call. A walk that checks
	 * what it reads checks the row first: a table rejected there is no
	 * witness. */
	if (walk->next_is_exact || walk->unwind_table_status != TRACER_TABLE_OK ||
	    !window_contains(walk->call_window, walk->next.pc) ||
	    !walk_unwind_rule_check(walk,
				    walk->next.pc - walk->config->unwind_table->base))
		return TRACER_RUNNING;
	table_lookup_of(&table, walk->config->unwind_table);
	return frame_size_agrees(table_rule_at_return(&table, walk->next.pc),
				 walk->next.sp, cfa)
		   ? TRACER_RUNNING
		   : TRACER_STOP_FRAME_SIZE;
}

bool table_step(struct walk *walk)
{
	const struct tracer_unwind_table *table = walk->config->unwind_table;
	struct tracer_regs *regs = &walk->next;
	/* A return address is just past its call: look up the call itself. */
	uintptr_t pc = walk->next_is_exact ? regs->pc : regs->pc - 1;
	const struct tracer_unwind_rule *rule;
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
	if (rule->kind == TRACER_UNWIND_INTERPRET)
		return false;
	if (rule->kind == TRACER_UNWIND_NO_CFI) {
		walk->stop = TRACER_STOP_NO_CFI;
		return true;
	}
	/* Unsigned arithmetic: a crafted offset wraps instead of overflowing. */
	cfa = (rule->kind & TRACER_UNWIND_CFA_ON_S0 ? regs->s[0] : regs->sp) +
	      (uintptr_t)(intptr_t)rule->cfa_offset;
	/* Boot code marks the first frame of a stack so: no caller. */
	if (rule->kind & TRACER_UNWIND_RA_UNDEFINED) {
		walk->stop = frame_outermost(walk, cfa, TRACER_STOP_EARLY_OUTERMOST);
		return true;
	}
	walk->stop = frame_check_cfa(walk, cfa);
	if (walk->stop == TRACER_RUNNING && rule->kind & TRACER_UNWIND_CFA_ON_S0)
		walk->stop = frame_size_check(walk, cfa);
	if (walk->stop != TRACER_RUNNING)
		return true;
	if ((tracer_unwind_ra_saved(rule->kind) &&
	     !memory_read_word(&walk->stack, cfa + (uintptr_t)(intptr_t)rule->ra_offset,
			       &ra)) ||
	    (!(rule->kind & TRACER_UNWIND_S0_UNCHANGED) &&
	     !memory_read_word(&walk->stack, cfa + (uintptr_t)(intptr_t)rule->s0_offset,
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

/*
 * The return addresses the common step takes, as a window: those whose call
 * (pc - 1) its lookup covers, with pc - base inside a block, and that
 * code_follows_ra_call() could accept (4 bytes of text before them, the
 * window `call`). Empty ({UINTPTR_MAX, 0}: only an odd address) if none
 * are.
 */
struct window unwind_table_call_window(const struct tracer_unwind_table *table,
					      struct window call)
{
	struct window window = {UINTPTR_MAX, 0};
	uintptr_t first = table->base + 1;
	uintptr_t last = UINTPTR_MAX;
	uintptr_t call_last = call.first + call.span;

	if (table->base == UINTPTR_MAX || table->block_count == 0)
		return window;
	if (table->block_count <= (UINTPTR_MAX - table->base) >>
	    TRACER_UNWIND_BLOCK_SHIFT)
		last = table->base +
		       ((uintptr_t)table->block_count << TRACER_UNWIND_BLOCK_SHIFT) - 1;
	if (call.first > first)
		first = call.first;
	if (call_last < last)
		last = call_last;
	if (first <= last) {
		window.first = first;
		window.span = last - first;
	}
	return window;
}

/* Out of line: the general step runs it, after each frame it takes. */
bool table_common_ready(const struct walk *walk)
{
	const uintptr_t top = walk->stack.end;
	const uintptr_t sp = walk->next.sp;
	const uintptr_t pc = walk->next.pc;

	return walk->stop == TRACER_RUNNING &&
	       walk->unwind_table_status == TRACER_TABLE_OK &&
	       walk->next_found_by == TRACER_TABLE && !walk->next_is_exact &&
	       sp >= walk->stack.start && sp <= top && sp % WORD == 0 &&
	       sp >= TABLE_OFFSET_REACH && top <= UINTPTR_MAX - TABLE_OFFSET_REACH &&
	       window_contains(walk->call_window, pc) && pc % 2 == 0;
}

/*
 * One frame of the table's common path, the turn of table_run()'s loop
 * that tracer_next() also takes, inline in both. The frame (*pc, *sp, *s0)
 * must be one table_common_ready() accepts, or the caller of one this
 * step returned: *pc a return address in `window` (the walk's
 * call_window), *sp aligned, in the stack below `top`, TABLE_OFFSET_REACH
 * from both ends of the address space. If its row is sp- or s0-based with
 * ra saved, the slots lie in the stack and the caller's pc in `window`,
 * even, after `jal ra` or `jalr ra`: the caller into (*pc, *sp, *s0),
 * which then meets the same conditions (its sp is a CFA at or below
 * `top`), and true. Else false, changing nothing: the general step
 * decides.
 *
 * Few checks of its own, because validation guarantees what a common rule
 * holds (table_format.h): in a sp-based frame the slots lie between sp and
 * the CFA, at word multiples, and the CFA is at least a word above sp. So
 * with sp word-aligned and in [start, top], a sp-based frame needs only
 * "CFA at or below the top" for every read to be inside the stack. An
 * s0-based CFA is checked in full: aligned, above sp, at or below the top,
 * its slots (below it) at or above sp. sp's distance from the ends of the
 * address space keeps the 16-bit offsets from wrapping around it.
 */
static inline __attribute__((always_inline)) bool
table_common_step(const struct table_lookup *table, struct window window,
		  uintptr_t top, uintptr_t *pc, uintptr_t *sp, uintptr_t *s0)
{
	const uintptr_t word = sizeof(uintptr_t);
	/* pc - base: the end of the call (unwind_table_rows_below). */
	const struct tracer_unwind_rule *rule = unwind_table_rule_of(
	    table->rules, table->rows[unwind_table_rows_below(table->maps, table->lookup,
							      *pc - table->base) -
				      1]);
	uintptr_t kind = rule->kind;
	uintptr_t cfa;
	uintptr_t ra_slot;
	uintptr_t caller_pc;
	uintptr_t caller_s0 = *s0;

	if (kind == TABLE_COMMON_S0) {
		uintptr_t s0_slot;

		cfa = *s0 + (uintptr_t)(intptr_t)rule->cfa_offset;
		ra_slot = cfa + (uintptr_t)(intptr_t)rule->ra_offset;
		s0_slot = cfa + (uintptr_t)(intptr_t)rule->s0_offset;
		/* Above sp strictly (a caller's frame), so slots no more than
		 * TABLE_OFFSET_REACH below it do not wrap. */
		/* frame_size_16: see frame_size_agrees(). */
		if (cfa % word != 0 || cfa <= *sp || cfa > top || ra_slot < *sp ||
		    s0_slot < *sp ||
		    (rule->frame_size_16 != 0 &&
		     cfa - *sp !=
			 (uintptr_t)rule->frame_size_16 * TRACER_UNWIND_FRAME_UNIT))
			return false;
		caller_s0 = target_word(s0_slot);
	} else if (kind == TABLE_COMMON_SP_S0) {
		cfa = *sp + (uintptr_t)(intptr_t)rule->cfa_offset;
		ra_slot = cfa + (uintptr_t)(intptr_t)rule->ra_offset;
		if (cfa > top)
			return false;
		caller_s0 = target_word(cfa + (uintptr_t)(intptr_t)rule->s0_offset);
	} else if (kind == TABLE_COMMON_SP) {
		cfa = *sp + (uintptr_t)(intptr_t)rule->cfa_offset;
		ra_slot = cfa + (uintptr_t)(intptr_t)rule->ra_offset;
		if (cfa > top)
			return false;
	} else {
		return false;
	}
	caller_pc = target_word(ra_slot);
	if (!window_contains(window, caller_pc) || caller_pc % 2 != 0 ||
	    !parcel_is_ra_call(((const uint16_t *)caller_pc)[-2]))
		return false;
	*pc = caller_pc;
	*sp = cfa;
	*s0 = caller_s0;
	return true;
}


/* table_common_step() for the frame in walk->next, if
 * walk->next_table_common (the caller checks). */
bool table_next(struct walk *walk)
{
	struct table_lookup table;
	uintptr_t pc = walk->next.pc;
	uintptr_t sp = walk->next.sp;
	uintptr_t s0 = walk->next.s[0];

	if (window_contains(walk->trap_return_window, pc) ||
	    !walk_unwind_rule_check(walk, pc - walk->config->unwind_table->base))
		return false;
	table_lookup_of(&table, walk->config->unwind_table);
	if (!table_common_step(&table, walk->call_window, walk->stack.end, &pc, &sp, &s0))
		return false;
	walk->next.pc = pc;
	walk->next.ra = pc; /* ra still holds the address returned to */
	walk->next.sp = sp;
	walk->next.s[0] = s0;
	return true;
}

/* The loop over table_common_step(), its bounds in registers. */
size_t table_run(struct walk *walk, uintptr_t *pcs, size_t max)
{
	const struct window window = walk->call_window;
	const struct window trap_return = walk->trap_return_window;
	const uintptr_t top = walk->stack.end;
	struct table_lookup table;
	uintptr_t pc = walk->next.pc;
	uintptr_t sp = walk->next.sp;
	uintptr_t s0 = walk->next.s[0];
	uintptr_t *next = pcs;
	uintptr_t *const end = pcs + max;

	if (!walk->next_table_common || window_contains(trap_return, pc) || max == 0)
		return 0;
	table_lookup_of(&table, walk->config->unwind_table);
	while (table_common_step(&table, window, top, &pc, &sp, &s0)) {
		*next++ = pc;
		if (window_contains(trap_return, pc) || next == end)
			break;
	}
	if (next != pcs) {
		/* The last pc stored: pc's register is free when the step
		 * declines. */
		pc = next[-1];
		walk->next.pc = pc;
		walk->next.ra = pc; /* ra still holds the address returned to */
		walk->next.sp = sp;
		walk->next.s[0] = s0;
	}
	return (size_t)(next - pcs);
}

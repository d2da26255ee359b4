/*
 * unwind_table.c - the table unwinder: one frame from the unwind table symgen
 * compiled out of .eh_frame (format: docs/unwind-table-format.md).
 *
 * Find the rule in effect at the pc (a block's map of row starts and the
 * count of rows before it: no search), then apply it as the DWARF unwinder
 * applies a row of the rule table: the CFA is the caller's sp, ra's rule
 * gives the caller's pc, s0's rule its s0. The checks are the DWARF
 * unwinder's too: the CFA lies in the stack above the frame before, and "ra
 * undefined" is believed only at the top of the stack. A row the table
 * could not express goes to the DWARF unwinder (the caller runs it: walk.c);
 * a pc no FDE covers stops with NO_CFI, as DWARF does, so that auto falls
 * through to the next unwinder.
 *
 * One step, table_caller(), checks and unwinds a frame: the iterator runs
 * it once a frame (table_step), the raw capture in a loop (table_run).
 */
#include "riscv.h"
#include "table_lookup.h"
#include "verify.h"

/* Not a stop: the row asks the DWARF unwinder to interpret the CFI. */
#define TABLE_INTERPRET TRACER_STOP_COUNT

static const struct tracer_unwind_rule no_cfi = {0, 0, 0, TRACER_UNWIND_NO_CFI, 0};
static const struct tracer_unwind_rule interpret = {0, 0, 0, TRACER_UNWIND_INTERPRET, 0};

const struct tracer_unwind_rule *
unwind_table_rule(const struct tracer_unwind_table *table, uintptr_t pc)
{
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

/* What a step reads besides the frame, computed once per run of frames. */
struct table_bounds {
	const struct tracer_unwind_table *table;
	struct table_lookup lookup; /* its arrays */
	struct tracer_range stack;  /* the walk's current stack */
	struct window words;	    /* its words (memory_word_window) */
};

static void table_bounds_of(struct table_bounds *bounds, const struct walk *walk)
{
	bounds->table = walk->config->unwind_table;
	table_lookup_of(&bounds->lookup, bounds->table);
	bounds->stack = walk->stack;
	bounds->words = memory_word_window(walk->stack);
}

/*
 * The rule in effect at code_pc, what the lookup reads checked if `checked`
 * (not in the capture, whose tables tracer_prepare() checked); NULL, the
 * table rejected, if that does not hold. `covered`: code_pc is the call
 * before a return address in the walk's call_window, which the table's
 * blocks cover (the capture's loop keeps to those).
 */
static inline const struct tracer_unwind_rule *
table_rule(const struct table_bounds *bounds, struct walk *walk, bool checked,
	   bool covered, uintptr_t code_pc)
{
	uintptr_t end = code_pc - bounds->lookup.base + 1;

	/* An empty table is one symgen could not fill (more rows than the
	 * format counts): it says nothing, and the DWARF unwinder computes
	 * every frame. Past the last block: the last row's range, no CFI. */
	if (!covered && bounds->table->count == 0)
		return &interpret;
	if (!covered && !unwind_table_end(bounds->table, code_pc, &end))
		return &no_cfi;
	if (checked)
		return walk_unwind_rule(walk, end);
	return unwind_table_rule_of(
	    bounds->lookup.rules,
	    bounds->lookup.rows[unwind_table_rows_below(bounds->lookup.maps,
							bounds->lookup.lookup, end) -
				1]);
}

/*
 * One step: the caller of the frame (*pc, *ra, *sp, *s0; `exact` for the
 * first frame of a register set) into the same, and TRACER_RUNNING; or the
 * reason there is none, or TABLE_INTERPRET, changing nothing.
 */
static inline __attribute__((always_inline)) enum tracer_stop
table_caller(const struct table_bounds *bounds, struct walk *walk, bool checked,
	     bool covered, bool exact, uintptr_t *pc, uintptr_t *ra, uintptr_t *sp,
	     uintptr_t *s0)
{
	/* A return address is just past its call: look up the call itself. */
	const struct tracer_unwind_rule *rule =
	    table_rule(bounds, walk, checked, covered, exact ? *pc : *pc - 1);
	uintptr_t kind;
	uintptr_t cfa;
	uintptr_t caller_ra = *ra;
	uintptr_t caller_s0 = *s0;

	if (!rule)
		return TRACER_STOP_BAD_UNWIND_TABLE;
	kind = rule->kind;
	if (kind == TRACER_UNWIND_INTERPRET)
		return TABLE_INTERPRET;
	if (kind == TRACER_UNWIND_NO_CFI)
		return TRACER_STOP_NO_CFI;
	/* Unsigned arithmetic: a crafted offset wraps instead of overflowing. */
	cfa = (kind & TRACER_UNWIND_CFA_ON_S0 ? *s0 : *sp) +
	      (uintptr_t)(intptr_t)rule->cfa_offset;
	/* Boot code marks the first frame of a stack so: no caller. */
	if (kind & TRACER_UNWIND_RA_UNDEFINED)
		return cfa == bounds->stack.end || *sp == bounds->stack.end
			   ? TRACER_STOP_OUTERMOST
			   : TRACER_STOP_EARLY_OUTERMOST;
	/* The CFA lies in the stack, above the frame before: strictly so
	 * past the first frame of a register set (a function without a
	 * frame has CFA == sp). */
	if (cfa <= bounds->stack.start || cfa > bounds->stack.end)
		return TRACER_STOP_OUTSIDE_STACK;
	if (cfa < *sp || (cfa == *sp && !exact))
		return TRACER_STOP_NOT_ASCENDING;
	/* An s0-based caller's frame: its row's frame size witnesses s0,
	 * which a stack overwrite may have forged. */
	if (!exact && (kind & TRACER_UNWIND_CFA_ON_S0) &&
	    !frame_size_agrees(rule, *sp, cfa))
		return TRACER_STOP_FRAME_SIZE;
	if ((tracer_unwind_ra_saved(kind) &&
	     !memory_read_window_word(bounds->words,
				      cfa + (uintptr_t)(intptr_t)rule->ra_offset,
				      &caller_ra)) ||
	    (!(kind & TRACER_UNWIND_S0_UNCHANGED) &&
	     !memory_read_window_word(
		 bounds->words, cfa + (uintptr_t)(intptr_t)rule->s0_offset, &caller_s0)))
		return TRACER_STOP_OUTSIDE_STACK;
	/* After the return, ra still holds the address returned to. */
	*pc = caller_ra;
	*ra = caller_ra;
	*sp = cfa;
	*s0 = caller_s0;
	return TRACER_RUNNING;
}

bool table_step(struct walk *walk)
{
	struct tracer_regs *regs = &walk->next;
	struct table_bounds bounds;
	enum tracer_stop stop;

	/* A table that failed validation is not read (see tables.c). */
	if (walk->unwind_table_status != TRACER_TABLE_OK) {
		walk->stop = walk->unwind_table_status == TRACER_TABLE_ABSENT
				 ? TRACER_STOP_NO_CFI
				 : TRACER_STOP_BAD_UNWIND_TABLE;
		return true;
	}
	table_bounds_of(&bounds, walk);
	stop = table_caller(&bounds, walk, !walk->tables_verified, false,
			    walk->next_is_exact, &regs->pc, &regs->ra, &regs->sp,
			    &regs->s[0]);
	if (stop == TABLE_INTERPRET)
		return false;
	if (stop != TRACER_RUNNING) {
		walk->stop = stop;
		return true;
	}
	walk->next_is_exact = false;
	return true;
}

/*
 * The return addresses whose call the table covers, as a window: those whose call
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

/*
 * The same step in a loop, for tracer_capture(): the frames whose return
 * address follows `jal ra` or `jalr ra` (most of them), up to the first
 * that returns into the trap entry. Any other frame, a row for DWARF, and a
 * stop are left to the iterator's step (walk_advance), which says why.
 */
size_t table_run(struct walk *walk, uintptr_t *pcs, size_t max)
{
	const struct window call = walk->call_window;
	const struct window trap_return = walk->trap_return_window;
	struct table_bounds bounds;
	uintptr_t pc = walk->next.pc;
	uintptr_t ra = walk->next.ra;
	uintptr_t sp = walk->next.sp;
	uintptr_t s0 = walk->next.s[0];
	size_t count = 0;

	/* The loop keeps to return addresses in the call window, whose calls
	 * a table with rows covers. */
	if (walk->next_is_exact || walk->unwind_table_status != TRACER_TABLE_OK ||
	    walk->config->unwind_table->count == 0 || !window_contains(call, pc) ||
	    window_contains(trap_return, pc))
		return 0;
	table_bounds_of(&bounds, walk);
	while (count < max) {
		uintptr_t caller_pc = pc;
		uintptr_t caller_ra = ra;
		uintptr_t caller_sp = sp;
		uintptr_t caller_s0 = s0;

		if (table_caller(&bounds, walk, false, true, false, &caller_pc,
				 &caller_ra, &caller_sp, &caller_s0) != TRACER_RUNNING ||
		    !code_follows_ra_call(call, caller_pc))
			break;
		pcs[count++] = caller_pc;
		pc = caller_pc;
		ra = caller_ra;
		sp = caller_sp;
		s0 = caller_s0;
		if (window_contains(trap_return, pc))
			break;
	}
	if (count > 0) {
		walk->next.pc = pc;
		walk->next.ra = ra;
		walk->next.sp = sp;
		walk->next.s[0] = s0;
	}
	return count;
}

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
 * could not express goes to the DWARF unwinder (the caller runs it:
 * walk.c); a pc no FDE covers stops with NO_CFI, as DWARF does, so that
 * auto falls through to the next unwinder.
 *
 * One function, table_caller(), checks and unwinds a frame, as
 * frame_pointer.c's frame_pointer_caller() does: the iterator's step runs
 * it for any frame (table_step), the raw capture in a loop for the frames
 * most walks are made of (table_run).
 */
#include "riscv.h"
#include "table_lookup.h"
#include "verify.h"

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

/* frame_size_check's verdict, from the rule of the frame's row (NULL:
 * none to witness). */
static inline enum tracer_stop frame_size_verdict(const struct tracer_unwind_rule *rule,
						  const struct walk *walk, uintptr_t cfa)
{
	return !rule || frame_size_agrees(rule, walk->next.sp, cfa)
		   ? TRACER_RUNNING
		   : TRACER_STOP_FRAME_SIZE;
}

/* The row read through the checks of a walk that checks what it reads
 * (verify.c). Out of line, reached by a tail call: frame_size_check's path
 * for tables checked whole then makes no call and saves no register. */
static __attribute__((noinline)) enum tracer_stop
checked_frame_size(struct walk *walk, uintptr_t end, uintptr_t cfa)
{
	return frame_size_verdict(walk_unwind_rule(walk, end), walk, cfa);
}

__attribute__((noinline)) enum tracer_stop frame_size_check(struct walk *walk,
							    uintptr_t cfa)
{
	struct table_lookup table;
	uintptr_t end;

	/* call_window: the valid table covers the call. A walk that checks
	 * what it reads checks the row first: a table rejected there is no
	 * witness. */
	if (walk->next_is_exact || walk->unwind_table_status != TRACER_TABLE_OK ||
	    !window_contains(walk->call_window, walk->next.pc))
		return TRACER_RUNNING;
	table_lookup_of(&table, walk->config->unwind_table);
	end = walk->next.pc - table.base;
	if (!walk_tables_verified(walk))
		return checked_frame_size(walk, end, cfa);
	return frame_size_verdict(table_rule_below(&table, end), walk, cfa);
}

/* What a step reads of the walk besides the frame, as locals, so that a
 * loop over frames keeps them in registers (see frame_pointer.c). */
struct table_view {
	const struct tracer_unwind_table *table;
	struct table_lookup lookup;
	struct tracer_range stack; /* the walk's current stack */
	struct window call;	   /* the walk's call_window */
};

static inline __attribute__((always_inline)) void table_view_of(struct table_view *view,
								const struct walk *walk)
{
	view->table = walk->config->unwind_table;
	table_lookup_of(&view->lookup, view->table);
	view->stack = walk->stack;
	view->call = walk->call_window;
}

/*
 * One step, with a valid table that has rows: the caller of the frame (*pc,
 * *sp, *s0, and ra: live if `exact`, the first frame of a register set, else
 * *pc, the address the frame's callee returned to) into (*pc, *sp, *s0), and
 * TRACER_RUNNING; or why there is none, changing nothing:
 * TRACER_STOP_UNSUPPORTED_CFI for a row the table marks "interpret" (and,
 * `common`, one that states no frame size).
 * `checked`: the walk checks what it reads (not the capture, whose tables
 * tracer_prepare() checked), so the row first; a table rejected there stops
 * the step. `common`: a caller's frame whose return address *pc lies in the
 * walk's call_window (so the table's blocks cover its call), its sp aligned
 * in the stack, as table_common() checks and as every caller this step
 * returns is.
 *
 * A common frame's reads need no check of their own below its CFA, sp
 * plus the frame's size: validation guarantees that the rule's slots lie
 * within that size, at word multiples (table_format.h), so inside the
 * stack if sp is aligned and in it, and the CFA is too.
 */
static inline __attribute__((always_inline)) enum tracer_stop
table_caller(const struct table_view *view, struct walk *walk, bool checked, bool common,
	     bool exact, uintptr_t ra, uintptr_t *pc, uintptr_t *sp, uintptr_t *s0)
{
	const uintptr_t word = sizeof(uintptr_t);
	const struct tracer_unwind_rule *rule;
	uintptr_t end;
	uintptr_t kind;
	uintptr_t size;
	uintptr_t cfa;
	uintptr_t caller_pc = ra;
	uintptr_t caller_s0 = *s0;

	/* A return address is just past its call: the call's row. */
	if (common)
		end = *pc - view->lookup.base;
	else if (!unwind_table_end(view->table, exact ? *pc : *pc - 1, &end))
		return TRACER_STOP_NO_CFI;
	if (!checked)
		rule = table_rule_below(&view->lookup, end);
	else if (!(rule = walk_unwind_rule(walk, end)))
		return TRACER_STOP_BAD_UNWIND_TABLE;
	kind = rule->kind;
	size = (uintptr_t)rule->frame_size_16 * TRACER_UNWIND_FRAME_UNIT;
	/* A common frame's row states its size, as symgen's do at the calls
	 * of most functions: then ra is saved (validation). Any other row is
	 * left to the iterator's step. */
	if (common && size == 0)
		return TRACER_STOP_UNSUPPORTED_CFI;
	/* A caller's frame whose row states its size: the CFA is sp plus it,
	 * not s0, a value read from the stack that a forged record would
	 * move. Unsigned arithmetic: a crafted offset wraps instead of
	 * overflowing. */
	if (!exact && size != 0)
		cfa = *sp + size;
	else
		cfa = (kind & TRACER_UNWIND_CFA_ON_S0 ? *s0 : *sp) +
		      (uintptr_t)(intptr_t)rule->cfa_offset;
	/* The kinds past "ra in its register", in one comparison. No CFI, or
	 * a row the table does not express; or "ra undefined", which boot
	 * code marks the first frame of a stack with: no caller. Believed
	 * only at the top of the stack: callers may remain. */
	if (!common && kind >= TRACER_UNWIND_RA_UNDEFINED) {
		if (kind == TRACER_UNWIND_NO_CFI || kind == TRACER_UNWIND_INTERPRET)
			return kind == TRACER_UNWIND_NO_CFI ? TRACER_STOP_NO_CFI
							    : TRACER_STOP_UNSUPPORTED_CFI;
		return cfa == view->stack.end || *sp == view->stack.end
			   ? TRACER_STOP_OUTERMOST
			   : TRACER_STOP_EARLY_OUTERMOST;
	}
	/* The stack grows down: the CFA lies above sp (at sp only in a
	 * register set's frame, in a function that has no frame), inside the
	 * stack (above its start, as sp is in a common frame). */
	if (cfa <= *sp || cfa > view->stack.end ||
	    (!common && cfa <= view->stack.start)) {
		if (cfa <= view->stack.start || cfa > view->stack.end)
			return TRACER_STOP_OUTSIDE_STACK;
		if (cfa < *sp || !exact)
			return TRACER_STOP_NOT_ASCENDING;
	}
	/* The slots outside a common frame are checked, whose sp may lie
	 * below the stack (a frame that overflowed it): each used one at or
	 * above sp and the stack's start, below the CFA (an offset a rule does
	 * not use is 0: the CFA itself). Not in a common frame: validation
	 * puts its slots within its size below the CFA, so between sp and
	 * the CFA. */
	if (!common) {
		const uintptr_t floor = *sp < view->stack.start ? view->stack.start : *sp;
		const uintptr_t room = cfa - floor;

		if (cfa % word != 0 ||
		    cfa + (uintptr_t)(intptr_t)rule->ra_offset - floor > room ||
		    cfa + (uintptr_t)(intptr_t)rule->s0_offset - floor > room)
			return TRACER_STOP_OUTSIDE_STACK;
	}
	/* Saved, mostly (always in a common frame): the loads in line (4
	 * instructions a frame less in make bench's capture). */
	if (common || __builtin_expect(!(kind & TRACER_UNWIND_RA_IN_REGISTER), 1))
		caller_pc = target_word(cfa + (uintptr_t)(intptr_t)rule->ra_offset);
	if (__builtin_expect(!(kind & TRACER_UNWIND_S0_UNCHANGED), 1))
		caller_s0 = target_word(cfa + (uintptr_t)(intptr_t)rule->s0_offset);
	/* A common frame's caller is one too: its return address follows
	 * `jal ra` or `jalr ra`. Any other is left to the iterator's step,
	 * which checks a return address in full. */
	if (common && !code_follows_ra_call(view->call, caller_pc))
		return TRACER_STOP_NOT_A_CALL;
	*pc = caller_pc;
	*sp = cfa;
	*s0 = caller_s0;
	return TRACER_RUNNING;
}

bool table_step(struct walk *walk)
{
	struct tracer_regs *frame = &walk->next;
	struct table_view view;
	enum tracer_stop stop;

	/* A table that failed validation is not read (see tables.c). An
	 * empty one is one symgen could not fill (more rows than the format
	 * counts): it says nothing, and the DWARF unwinder computes every
	 * frame. */
	if (walk->unwind_table_status != TRACER_TABLE_OK) {
		walk->stop = walk->unwind_table_status == TRACER_TABLE_ABSENT
				 ? TRACER_STOP_NO_CFI
				 : TRACER_STOP_BAD_UNWIND_TABLE;
		return true;
	}
	if (walk->config->unwind_table->count == 0)
		return false;
	table_view_of(&view, walk);
	stop = table_caller(&view, walk, !walk_tables_verified(walk), false,
			    walk->next_is_exact, frame->ra, &frame->pc, &frame->sp,
			    &frame->s[0]);
	if (stop == TRACER_STOP_UNSUPPORTED_CFI)
		return false;
	if (stop == TRACER_RUNNING) {
		/* After the return, ra still holds the address returned to. */
		frame->ra = frame->pc;
		walk->next_is_exact = false;
	}
	walk->stop = stop;
	return true;
}

#if TRACER_LINKS_CAPTURE
/* Whether the frame in walk->next may take the common frames' path: a
 * caller's frame of a walk whose valid table has rows, its return address in
 * the call window (a call the table covers), not returning into the trap
 * entry or an entry point (stacks_cross_trap), its sp aligned in the
 * stack. */
static inline bool table_common(const struct walk *walk)
{
	return walk->unwind_table_status == TRACER_TABLE_OK && !walk->next_is_exact &&
	       walk->config->unwind_table->count > 0 &&
	       window_contains(walk->call_window, walk->next.pc) &&
	       !window_contains(walk->trap_return_window, walk->next.pc) &&
	       walk->next.sp % sizeof(uintptr_t) == 0 &&
	       walk->next.sp >= walk->stack.start && walk->next.sp <= walk->stack.end;
}

/* The same in a loop, for tracer_capture(), whose tables tracer_prepare()
 * checked. */
size_t table_run(struct walk *walk, uintptr_t *pcs, size_t max)
{
	const struct window trap_return = walk->trap_return_window;
	uintptr_t pc = walk->next.pc;
	uintptr_t sp = walk->next.sp;
	uintptr_t s0 = walk->next.s[0];
	uintptr_t *next = pcs;
	uintptr_t *const end = pcs + max;
	struct table_view view;

	if (!table_common(walk))
		return 0;
	table_view_of(&view, walk);
	/* ra: the frame's pc, the address its callee returned to. */
	while (next != end && table_caller(&view, walk, false, true, false, pc, &pc, &sp,
					   &s0) == TRACER_RUNNING) {
		*next++ = pc;
		if (window_contains(trap_return, pc))
			break;
	}
	if (next != pcs) {
		walk->next.pc = pc;
		walk->next.ra = pc; /* ra still holds the address returned to */
		walk->next.sp = sp;
		walk->next.s[0] = s0;
		walk->next_found_by = TRACER_TABLE;
	}
	return (size_t)(next - pcs);
}
#endif

/*
 * The return addresses the common path takes, as a window: those whose call
 * (pc - 1) the table's blocks cover, with pc - base inside a block, and
 * that code_follows_ra_call() could accept (4 bytes of text before them,
 * the window `call`). Empty ({UINTPTR_MAX, 0}: only an odd address) if none
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

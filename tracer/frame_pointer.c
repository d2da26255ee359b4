/*
 * frame_pointer.c - the frame-pointer unwinder (the seed's FramePointTracer):
 * follow the records that functions built with -fno-omit-frame-pointer keep
 * below s0.
 *
 * With frame pointers, s0 holds the frame's CFA (the sp its caller had), and
 * the prologue stores, just below it:
 *
 *     s0 - 8:   return address (ra)       GCC and clang, non-leaf functions
 *     s0 - 16:  the caller's s0
 *
 * GCC's leaf functions (they call nothing, so ra never leaves its register)
 * store only the caller's s0, at s0 - 8. That layout can be told apart only in
 * a frame whose live ra we know, i.e. the first frame of a register set.
 *
 * Where a valid unwind table covers the code, its row says more: the CFA's
 * offset from s0 (GCC keeps a variadic function's s0 below its register
 * save area), and, in a caller's frame, the frame size that s0 must lie
 * at above sp (frame_size_agrees): a saved s0 forged to a real outer
 * record would otherwise skip frames unnoticed.
 *
 * Most frames are neither first nor odd: frame_pointer_next()
 * and frame_pointer_run() below unwind those with inline checks against
 * bounds the walk computed once; frame_pointer_step() does the rest.
 */
#include "riscv.h"
#include "table_lookup.h"
#include "verify.h"

#define WORD sizeof(uintptr_t)

/* A caller's frame address lies inside a declared stack or at its very top
 * (the outermost function's CFA is the initial sp); a return address never
 * does. Any declared stack, not only the current one: a leaf an interrupt
 * handler reached by tail calls from the trap entry saves the interrupted
 * code's s0, on the stack the trap came from. */
static bool is_frame_address(const struct tracer_config *config, uintptr_t value)
{
	unsigned count = config->stacks ? config->stack_count : 0;

	for (unsigned i = 0; i < count && i < TRACER_MAX_STACKS; i++)
		if (value > config->stacks[i].start && value <= config->stacks[i].end)
			return true;
	return false;
}

/* The CFA of a frame whose frame pointer is fp and whose row is `rule`:
 * fp, unless the row puts it at an offset from s0 (GCC: a variadic
 * function's s0 lies below its register save area). */
static inline uintptr_t frame_pointer_cfa(const struct tracer_unwind_rule *rule,
					  uintptr_t fp)
{
	uintptr_t kind = rule->kind;

	return (kind & TRACER_UNWIND_CFA_ON_S0) && kind < TRACER_UNWIND_NO_CFI
		   ? fp + (uintptr_t)(intptr_t)rule->cfa_offset
		   : fp;
}

/* Whether the frame-pointer unwinder's common path takes a caller's frame
 * (sp, fp) whose row is `rule`: its CFA is fp itself, and agrees with the
 * frame size the row states. The others go to frame_pointer_step(). */
static inline bool frame_pointer_rule_common(const struct tracer_unwind_rule *rule,
					     uintptr_t sp, uintptr_t fp)
{
	return frame_pointer_cfa(rule, fp) == fp && frame_size_agrees(rule, sp, fp);
}

/*
 * The frame's CFA: fp, or where the valid unwind table's row for its pc
 * puts it from s0 (frame_pointer_cfa), so that the caller's sp is the one
 * the witness (frame_size_agrees) compares.
 */
static uintptr_t frame_cfa(struct walk *walk, uintptr_t fp)
{
	const struct tracer_unwind_table *table = walk->config->unwind_table;
	uintptr_t pc = walk->next_is_exact ? walk->next.pc : walk->next.pc - 1;
	uintptr_t end;

	/* A walk that checks what it reads checks the row first: a table
	 * rejected there says nothing. */
	if (!TRACER_LINKS_TABLE || walk->unwind_table_status != TRACER_TABLE_OK ||
	    (unwind_table_end(table, pc, &end) && !walk_unwind_rule_check(walk, end)))
		return fp;
	return frame_pointer_cfa(unwind_table_rule(table, pc), fp);
}

void frame_pointer_step(struct walk *walk)
{
	const struct tracer_range *stack = &walk->stack;
	struct tracer_regs *frame = &walk->next;
	uintptr_t fp = frame->s[0]; /* s0 is the frame pointer */
	uintptr_t cfa;
	uintptr_t word_below_fp;
	uintptr_t caller_fp;
	uintptr_t caller_pc;

	/* The boot code clears s0: there is no caller, if this frame is at
	 * the top of the stack. Elsewhere s0 = 0 is a frame pointer lost (code
	 * built without frame pointers, or a corrupted record). */
	if (fp == 0) {
		walk->stop = frame_outermost(walk, frame->sp, TRACER_STOP_FP_ZERO);
		return;
	}
	if (fp % TRACER_STACK_ALIGN != 0) {
		walk->stop = TRACER_STOP_MISALIGNED;
		return;
	}
	/* The stack grows down: this frame's CFA is above its sp, and above
	 * the CFA of the frame before it (which is this frame's sp). */
	if (fp <= frame->sp) {
		walk->stop = TRACER_STOP_NOT_ASCENDING;
		return;
	}
	/* fp >= 16 here (aligned, non-zero), so fp - 2 * WORD cannot wrap. */
	if (fp - 2 * WORD < stack->start || fp > stack->end ||
	    !memory_read_word(stack, fp - WORD, &word_below_fp)) {
		walk->stop = TRACER_STOP_OUTSIDE_STACK;
		return;
	}
	cfa = frame_cfa(walk, fp);
	if (cfa != fp)
		walk->stop = frame_check_cfa(walk, cfa);
	if (TRACER_LINKS_TABLE && walk->stop == TRACER_RUNNING)
		walk->stop = frame_size_check(walk, cfa);
	if (walk->stop != TRACER_RUNNING)
		return;
	if (walk->next_is_exact && is_frame_address(walk->config, word_below_fp)) {
		/* GCC leaf: only s0 saved; ra is still live. */
		caller_fp = word_below_fp;
		caller_pc = frame->ra;
	} else {
		caller_pc = word_below_fp;
		if (!memory_read_word(stack, fp - 2 * WORD, &caller_fp)) {
			walk->stop = TRACER_STOP_OUTSIDE_STACK;
			return;
		}
	}
	frame->pc = caller_pc;
	frame->sp = cfa;
	frame->s[0] = caller_fp;
	frame->ra = 0; /* unknown in callers' frames, as are s1-s11 */
	walk->next_is_exact = false;
}

/*
 * The frame-pointer unwinder's common path, where frame_pointer_step and
 * the walk's check of the return address would go on: the caller of the
 * frame at (sp, fp) from its record, if every check of frame_pointer_step
 * accepts the record (fp above sp, aligned, the record inside the stack)
 * and the return address follows `jal ra` or `jalr ra` in text. The
 * windows are the walk's (record_window, call_window), as arguments, so
 * that a loop keeps them in registers.
 */
static inline bool frame_pointer_common(struct window record,
					struct window call, uintptr_t sp,
					uintptr_t fp, uintptr_t *caller_fp,
					uintptr_t *caller_pc)
{
	/* fp <= sp also catches fp = 0: the walk's end, or a lost fp. */
	return fp > sp && memory_read_record(record, fp, caller_fp, caller_pc) &&
	       code_follows_ra_call(call, *caller_pc);
}

/* Whether frame_pointer_common may unwind the frame in walk->next: not a
 * register set's, which may be a leaf's (frame_pointer_step), not one that
 * returns into the trap entry (stacks_cross_trap). */
static inline bool frame_pointer_takes_common(const struct walk *walk)
{
	return !walk->next_is_exact &&
	       !window_contains(walk->trap_return_window, walk->next.pc);
}

bool frame_pointer_next(struct walk *walk)
{
	uintptr_t caller_fp;
	uintptr_t caller_pc;

	if (!frame_pointer_takes_common(walk) ||
	    !frame_pointer_common(walk->record_window, walk->call_window, walk->next.sp,
				  walk->next.s[0], &caller_fp, &caller_pc))
		return false;
	/* With a valid table, the frame's row (call_window: the table covers
	 * its call, else the general step decides). */
	if (TRACER_LINKS_TABLE && walk->unwind_table_status == TRACER_TABLE_OK) {
		struct table_lookup table;

		table_lookup_of(&table, walk->config->unwind_table);
		if (!window_contains(walk->call_window, walk->next.pc) ||
		    !walk_unwind_rule_check(walk, walk->next.pc -
						      walk->config->unwind_table->base) ||
		    !frame_pointer_rule_common(
			table_rule_at_return(&table, walk->next.pc), walk->next.sp,
			walk->next.s[0]))
			return false;
	}
	walk->next.pc = caller_pc;
	walk->next.sp = walk->next.s[0];
	walk->next.s[0] = caller_fp;
	walk->next.ra = 0; /* unknown in callers' frames */
	return true;
}

size_t frame_pointer_run(struct walk *walk, uintptr_t *pcs, size_t max)
{
	const struct window record = walk->record_window;
	const struct window call = walk->call_window;
	const struct window trap_return = walk->trap_return_window;
	/* Only a valid table is read: then every frame the loop takes has
	 * its row (call_window: the table covers its call). */
	const bool table_valid =
	    TRACER_LINKS_TABLE && walk->unwind_table_status == TRACER_TABLE_OK;
	struct table_lookup table = {0, NULL, NULL, NULL, NULL};
	uintptr_t pc = walk->next.pc;
	uintptr_t sp = walk->next.sp;
	uintptr_t fp = walk->next.s[0];
	uintptr_t *next = pcs;
	uintptr_t *const end = pcs + max;

	if (!frame_pointer_takes_common(walk) ||
	    (table_valid && !window_contains(call, pc)))
		return 0;
	if (table_valid)
		table_lookup_of(&table, walk->config->unwind_table);
	while (next != end) {
		uintptr_t caller_fp;
		uintptr_t caller_pc;

		if (!frame_pointer_common(record, call, sp, fp, &caller_fp, &caller_pc) ||
		    (table_valid && !frame_pointer_rule_common(
					table_rule_at_return(&table, pc), sp, fp)))
			break;
		*next++ = caller_pc;
		pc = caller_pc;
		sp = fp;
		fp = caller_fp;
		if (window_contains(trap_return, caller_pc))
			break;
	}
	if (next != pcs) {
		walk->next.pc = next[-1];
		walk->next.sp = sp;
		walk->next.s[0] = fp;
		walk->next.ra = 0; /* unknown in callers' frames */
	}
	return (size_t)(next - pcs);
}

/*
 * frame_pointer.c - FramePointTracer: follow the records that functions
 * built with -fno-omit-frame-pointer keep below s0.
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
 * Most frames are neither first nor odd: frame_pointer_next() (internal.h)
 * and frame_pointer_run() below unwind those with inline checks against
 * bounds the walk computed once; frame_pointer_step() does the rest.
 */
#include "internal.h"

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

/*
 * The frame's CFA: fp, or where the valid unwind table's row for its pc
 * puts it from s0 (frame_pointer_cfa), so that the caller's sp is the one
 * the witness (frame_size_agrees) compares.
 */
static uintptr_t frame_cfa(struct tracer_walk *walk, uintptr_t fp)
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

void frame_pointer_step(struct tracer_walk *walk)
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

size_t frame_pointer_run(struct tracer_walk *walk, uintptr_t *pcs, size_t max)
{
	const struct tracer_window record = walk->record_window;
	const struct tracer_window call = walk->call_window;
	const struct tracer_window trap_return = walk->trap_return_window;
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

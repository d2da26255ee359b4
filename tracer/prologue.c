/*
 * prologue.c - the prologue unwinder (TRACER_PROLOGUE): one frame from what
 * the function's own code says about it, for kernels built with neither
 * frame pointers nor unwind tables. The decoder that reads the code is
 * prologue_decode.c, apart because host tools build it too (symgen, for
 * frame sizes); this file is the step, which needs the walk.
 *
 * The function comes from the symbol table: its start is where decoding
 * begins. The decoded frame gives the CFA (from sp, or from s0 when the
 * function set it up as a frame pointer) and the slots of ra and s0. A
 * function that did not save ra yet (a leaf, or a pc early in the prologue)
 * still has it in the register, which only a register set (the first frame,
 * the frame a trap interrupted) holds.
 *
 * Checks: the CFA lies in the stack above the previous frame (the walk
 * checks the return address, as for every unwinder).
 */
#include "prologue.h"

static enum tracer_stop frame_cfa(const struct walk *walk,
				  const struct prologue_frame *frame, uintptr_t *cfa)
{
	const struct tracer_regs *regs = &walk->next;

	if (frame->sp_state == PROLOGUE_SP_RELATIVE) {
		*cfa = regs->sp - (uintptr_t)frame->sp_offset;
		return TRACER_RUNNING;
	}
	if (frame->fp_valid) {
		*cfa = regs->s[0] - (uintptr_t)frame->fp_offset;
		return TRACER_RUNNING;
	}
	if (frame->sp_state != PROLOGUE_SP_ORIGIN)
		return TRACER_STOP_UNKNOWN_CODE;
	/* The function set sp to an address: its stack starts here. */
	*cfa = regs->sp;
	return frame_outermost(walk, *cfa, TRACER_STOP_EARLY_OUTERMOST);
}

/* The caller's value of a register the frame may have saved at CFA + offset;
 * `live` if it did not. */
static bool saved_register(const struct tracer_range *stack, bool saved, uintptr_t cfa,
			   intptr_t offset, uintptr_t live, uintptr_t *value)
{
	if (!saved) {
		*value = live;
		return true;
	}
	return memory_read_word(stack, cfa + (uintptr_t)offset, value);
}

void prologue_step(struct walk *walk)
{
	const struct tracer_config *config = walk->config;
	const struct tracer_symbol *function = walk_function(walk);
	struct tracer_regs *regs = &walk->next;
	struct prologue_analysis analysis;
	const struct prologue_frame *frame = &analysis.frame;
	uintptr_t cfa;
	uintptr_t ra;
	uintptr_t s0;

	if (!function) {
		walk->stop = walk->symtab_status == TRACER_TABLE_OK ||
				     walk->symtab_status == TRACER_TABLE_ABSENT
				 ? TRACER_STOP_NO_SYMBOL
				 : TRACER_STOP_BAD_SYMTAB;
		return;
	}
	if (prologue_analyze(config, function->addr, function->addr + function->size,
			     regs->pc, sizeof(uintptr_t), &analysis) != PROLOGUE_OK) {
		walk->stop = TRACER_STOP_UNKNOWN_CODE;
		return;
	}
	walk->stop = frame_cfa(walk, frame, &cfa);
	if (walk->stop != TRACER_RUNNING)
		return;
	/* A caller's frame made a call, which overwrote ra: the return
	 * address is lost unless the function saved it (a call to a noreturn
	 * function need not). */
	if (!frame->ra_saved && !walk->next_is_exact) {
		walk->stop = TRACER_STOP_RA_NOT_SAVED;
		return;
	}
	walk->stop = frame_check_cfa(walk, cfa);
	if (walk->stop != TRACER_RUNNING)
		return;
	if (!saved_register(&walk->stack, frame->ra_saved, cfa, frame->ra_offset,
			    regs->ra, &ra) ||
	    !saved_register(&walk->stack, frame->s0_saved, cfa, frame->s0_offset,
			    regs->s[0], &s0)) {
		walk->stop = TRACER_STOP_OUTSIDE_STACK;
		return;
	}
	/* s1-s11 keep the callee's values: compiled code never finds a frame
	 * through them. After the return, ra holds the address returned to. */
	regs->pc = ra;
	regs->ra = ra;
	regs->sp = cfa;
	regs->s[0] = s0;
	walk->next_is_exact = false;
}

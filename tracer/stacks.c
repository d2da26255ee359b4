/*
 * stacks.c - the declared stacks: which one a walk reads, and the switch
 * from one to another across a trap frame (the rules: tracer_config in
 * tracer.h).
 *
 * The walk keeps a copy of its current stack, which every read checks, so
 * the list is searched only here: at the start and at each trap frame. Out
 * of walk.c, so that tracer_next(), which runs once a frame, does not carry
 * the registers of this rarer path.
 */
#include "walk.h"

_Static_assert(TRACER_MAX_STACKS <= 32, "stacks_left has a bit per stack");

/* The privilege a trap came from, 0 for user mode: sstatus.SPP (bit 8), or
 * mstatus.MPP (bits 11-12). */
#define SSTATUS_SPP_SHIFT 8
#define SSTATUS_SPP_MASK  1u
#define MSTATUS_MPP_SHIFT 11
#define MSTATUS_MPP_MASK  3u

/*
 * The stack sp is on (see tracer_config): the one with start < sp <= end,
 * else the lowest one starting at or above sp (sp ran past its bottom into
 * the guard page below, and its frames lie above), else STACKS_NONE.
 */
TRACER_COLD_UNLESS_CAPTURE static unsigned find_stack(const struct tracer_config *config,
						      uintptr_t sp)
{
	unsigned count = config->stacks ? config->stack_count : 0;
	unsigned below = STACKS_NONE;

	if (count > TRACER_MAX_STACKS)
		count = TRACER_MAX_STACKS;
	for (unsigned i = 0; i < count; i++) {
		struct tracer_range stack = config->stacks[i];

		if (stack.start < sp && sp <= stack.end)
			return i;
		/* An empty entry holds no frame: never chosen. */
		if (stack.start >= sp && stack.start < stack.end &&
		    (below == STACKS_NONE || stack.start < config->stacks[below].start))
			below = i;
	}
	return below;
}

/* Makes stack `index` the current one; STACKS_NONE leaves an empty range,
 * inside which no read succeeds. */
TRACER_COLD_UNLESS_CAPTURE static void enter_stack(struct walk *walk, unsigned index)
{
	walk->stack_index = index;
	walk->stack.start = index == STACKS_NONE ? 0 : walk->config->stacks[index].start;
	walk->stack.end = index == STACKS_NONE ? 0 : walk->config->stacks[index].end;
	walk->record_window = memory_window(walk->stack, 2 * sizeof(uintptr_t));
}

TRACER_COLD_UNLESS_CAPTURE void stacks_start(struct walk *walk)
{
	walk->stacks_left = 0;
	enter_stack(walk, find_stack(walk->config, walk->next.sp));
}

/* Reads the word at `offset` in the trap frame into *value, which stays as
 * it is where the layout says TRACER_TRAP_NOT_SAVED; false if the word is
 * not on the stack. */
static inline bool trap_word(const struct tracer_range *stack, uintptr_t trap_frame,
			     uint16_t offset, uintptr_t *value)
{
	return offset == TRACER_TRAP_NOT_SAVED ||
	       memory_read_word(stack, trap_frame + offset, value);
}

/* The CSRs read at panic time, if they are the trap frame's: the walk's
 * first trap frame is the innermost. */
static inline const struct tracer_trap_csrs *panic_csrs(const struct walk *walk)
{
	return walk->innermost_trap_crossed ? NULL : walk->config->trap_csrs;
}

/* The saved status's field that says which privilege the trap came from. */
static uintptr_t previous_privilege(const struct tracer_trap_layout *trap,
				    uintptr_t status)
{
	return trap->mode == TRACER_TRAP_MACHINE
		   ? status >> MSTATUS_MPP_SHIFT & MSTATUS_MPP_MASK
		   : status >> SSTATUS_SPP_SHIFT & SSTATUS_SPP_MASK;
}

TRACER_COLD void stacks_cross_trap(struct walk *walk)
{
	const struct tracer_config *config = walk->config;
	const struct tracer_trap_layout *trap = config->trap;
	struct tracer_range frame_stack = walk->stack;
	const struct tracer_range *stack = &frame_stack;
	struct tracer_regs *regs = &walk->next;
	const uintptr_t entry_sp = regs->sp;
	uintptr_t trap_frame = entry_sp;
	const struct tracer_trap_csrs *csrs = panic_csrs(walk);
	const uintptr_t interrupt_bit = (uintptr_t)1 << (8 * sizeof(uintptr_t) - 1);
	uintptr_t status; /* sstatus/mstatus, or from the kernel where none is saved */
	unsigned next_stack;
	bool readable;

	if (!csrs && (trap->epc_offset == TRACER_TRAP_NOT_SAVED ||
		      trap->cause_offset == TRACER_TRAP_NOT_SAVED ||
		      trap->tval_offset == TRACER_TRAP_NOT_SAVED)) {
		walk->stop = trap->mode == TRACER_TRAP_MACHINE
				 ? TRACER_STOP_MACHINE_TRAP_NOT_SAVED
				 : TRACER_STOP_TRAP_NOT_SAVED;
		return;
	}
	/* Straight into walk->next: the frame there was returned already,
	 * and a walk that stops here shows nothing more. What the frame does
	 * not hold comes from the CSRs and the frame's size. */
	if (csrs) {
		regs->pc = csrs->epc;
		walk->trap_cause = csrs->cause;
		walk->trap_tval = csrs->tval;
	}
	/* The innermost frame saved, then sp moved to another stack: the
	 * frame is read where it is (on a declared stack, as every read is). */
	if (!walk->innermost_trap_crossed && config->trap_frame != 0) {
		unsigned index = find_stack(config, config->trap_frame + 1);

		trap_frame = config->trap_frame;
		frame_stack.start =
		    index == STACKS_NONE ? 0 : config->stacks[index].start;
		frame_stack.end = index == STACKS_NONE ? 0 : config->stacks[index].end;
	}
	walk->innermost_trap_crossed = true;
	walk->trap_frame = trap_frame;
	/* Not saved: the walk cannot tell, and goes on as from the kernel. */
	status = trap->mode == TRACER_TRAP_MACHINE
		     ? (uintptr_t)MSTATUS_MPP_MASK << MSTATUS_MPP_SHIFT
		     : (uintptr_t)SSTATUS_SPP_MASK << SSTATUS_SPP_SHIFT;
	readable = trap_word(stack, trap_frame, trap->epc_offset, &regs->pc) &&
		   memory_read_word(stack, trap_frame + trap->ra_offset, &regs->ra) &&
		   trap_word(stack, trap_frame, trap->cause_offset, &walk->trap_cause) &&
		   trap_word(stack, trap_frame, trap->tval_offset, &walk->trap_tval) &&
		   trap_word(stack, trap_frame, trap->status_offset, &status);
	regs->sp = trap_frame + trap->frame_size;
	readable = readable && trap_word(stack, trap_frame, trap->sp_offset, &regs->sp);

	for (unsigned i = 0; i < TRACER_SAVED_REGS && readable; i++)
		readable =
		    memory_read_word(stack, trap_frame + trap->s_offset[i], &regs->s[i]);
	if (!readable) {
		walk->stop = TRACER_STOP_OUTSIDE_STACK;
		return;
	}
	/* The pc of an exception, where the entry saved one past it. */
	if (trap->epc_offset != TRACER_TRAP_NOT_SAVED &&
	    !(walk->trap_cause & interrupt_bit))
		regs->pc -= trap->exception_epc_added;
	/* A trap from user mode: its sp is on no stack of the kernel's. The
	 * frame is shown, and advance() ends the walk after it. */
	walk->next_from_user = previous_privilege(trap, status) == 0;
	next_stack = walk->next_from_user ? STACKS_NONE : find_stack(config, regs->sp);
	if (next_stack == walk->stack_index) {
		/* The entry pushed the trap frame below the interrupted sp. */
		if (regs->sp <= entry_sp) {
			walk->stop = TRACER_STOP_NOT_ASCENDING;
			return;
		}
	} else if (next_stack != STACKS_NONE && (walk->stacks_left >> next_stack & 1)) {
		/* Back to a stack the walk left below: a loop. */
		walk->stop = TRACER_STOP_NOT_ASCENDING;
		return;
	} else {
		/* A stack switch, or a trap from no declared stack (user
		 * mode): the interrupted frame is shown, and advance() stops
		 * after it. */
		walk->stacks_left |= (uint32_t)1 << walk->stack_index;
		enter_stack(walk, next_stack);
	}
	walk->next_is_exact = true;
	walk->next_after_trap = true;
	walk->next_found_by = walk->unwinder;
}

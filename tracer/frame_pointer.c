/*
 * frame_pointer.c - the frame-pointer unwinder (the seed's FramePointTracer): follow the
 * records that functions built with -fno-omit-frame-pointer keep below s0.
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
 * One step, frame_pointer_caller(), checks and unwinds a frame: the
 * iterator runs it once a frame (frame_pointer_step), the raw capture in a
 * loop (frame_pointer_run), with the bounds in registers.
 */
#include "riscv.h"
#include "table_lookup.h"
#include "verify.h"

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

/* What a step reads besides the frame, computed once per run of frames. */
struct fp_bounds {
	struct tracer_range stack; /* the walk's current stack */
	struct window record;	   /* fp whose record (2 words below) lies in it */
	struct table_lookup table; /* a valid unwind table's arrays, */
	bool has_table;		   /* if there is one */
	uintptr_t table_blocks;	   /* its blocks, from table.base */
};

static void fp_bounds_of(struct fp_bounds *bounds, const struct walk *walk)
{
	const struct tracer_unwind_table *table = walk->config->unwind_table;

	bounds->stack = walk->stack;
	bounds->record = walk->record_window;
	bounds->has_table =
	    walk->unwind_table_status == TRACER_TABLE_OK && table->count > 0;
	bounds->table_blocks = bounds->has_table ? table->block_count : 0;
	if (bounds->has_table) {
		table_lookup_of(&bounds->table, table);
	} else {
		bounds->table.base = 0;
		bounds->table.maps = NULL;
		bounds->table.lookup = NULL;
		bounds->table.rows = NULL;
		bounds->table.rules = NULL;
	}
}

/*
 * The row that covers code_pc in the valid unwind table, or NULL (always,
 * without the table unwinder linked: TRACER_LINKS_TABLE): the table
 * states where the CFA lies from s0 (GCC keeps a variadic function's s0
 * below its register save area) and the frame size that witnesses s0. A
 * walk that checks what it reads (`checked`: not the capture, whose tables
 * tracer_prepare() checked) checks the row first: a table rejected there
 * says nothing.
 */
static inline const struct tracer_unwind_rule *frame_rule(const struct fp_bounds *bounds,
							  struct walk *walk, bool checked,
							  uintptr_t code_pc)
{
	uintptr_t offset = code_pc - bounds->table.base;
	uintptr_t end = (offset | 1) + 1; /* past the 2-byte unit of code_pc */

	if (!TRACER_LINKS_TABLE || !bounds->has_table || code_pc < bounds->table.base ||
	    offset >> TRACER_UNWIND_BLOCK_SHIFT >= bounds->table_blocks ||
	    end >> TRACER_UNWIND_BLOCK_SHIFT >= bounds->table_blocks ||
	    (checked && !walk_unwind_rule(walk, end)))
		return NULL;
	return unwind_table_rule_of(
	    bounds->table.rules,
	    bounds->table.rows[unwind_table_rows_below(bounds->table.maps,
						       bounds->table.lookup, end) -
			       1]);
}

/* The CFA of a frame whose frame pointer is fp: fp, unless its row puts
 * the CFA at an offset from s0. */
static inline uintptr_t frame_cfa(const struct tracer_unwind_rule *rule, uintptr_t fp)
{
	uintptr_t kind = rule ? rule->kind : TRACER_UNWIND_NO_CFI;

	return (kind & TRACER_UNWIND_CFA_ON_S0) && kind < TRACER_UNWIND_NO_CFI
		   ? fp + (uintptr_t)(intptr_t)rule->cfa_offset
		   : fp;
}

/*
 * One step: the caller of the frame (*pc, *sp, *fp, with ra for the first
 * frame of a register set, `exact`) into (*pc, *sp, *fp) and
 * TRACER_RUNNING, or the reason there is none, changing nothing.
 */
static inline __attribute__((always_inline)) enum tracer_stop
frame_pointer_caller(const struct fp_bounds *bounds, struct walk *walk, bool checked,
		     bool exact, uintptr_t ra, uintptr_t *pc, uintptr_t *sp,
		     uintptr_t *fp)
{
	const struct tracer_unwind_rule *rule;
	uintptr_t cfa;
	uintptr_t word_below_fp;
	uintptr_t saved_fp;
	uintptr_t caller_fp;

	/* The boot code clears s0: there is no caller, if this frame is at
	 * the top of the stack. Elsewhere s0 = 0 is a frame pointer lost
	 * (code built without frame pointers, or a corrupted record). */
	if (*fp == 0)
		return *sp == bounds->stack.end ? TRACER_STOP_OUTERMOST
						: TRACER_STOP_FP_ZERO;
	if (*fp % TRACER_STACK_ALIGN != 0)
		return TRACER_STOP_MISALIGNED;
	/* The stack grows down: this frame's CFA is above its sp, and above
	 * the CFA of the frame before it (which is this frame's sp). */
	if (*fp <= *sp)
		return TRACER_STOP_NOT_ASCENDING;
	/* The record, two words below fp, lies in the stack. */
	if (!memory_read_record(bounds->record, *fp, &saved_fp, &word_below_fp))
		return TRACER_STOP_OUTSIDE_STACK;
	rule = frame_rule(bounds, walk, checked, exact ? *pc : *pc - 1);
	cfa = frame_cfa(rule, *fp);
	if (cfa != *fp) {
		if (cfa <= bounds->stack.start || cfa > bounds->stack.end)
			return TRACER_STOP_OUTSIDE_STACK;
		if (cfa < *sp || (cfa == *sp && !exact))
			return TRACER_STOP_NOT_ASCENDING;
	}
	/* The second witness of a caller's frame: a saved s0 forged to point
	 * at a real outer record would skip frames unnoticed. A register
	 * set's s0 is the register's, and its pc may lie in a prologue. */
	if (!exact && rule && !frame_size_agrees(rule, *sp, cfa))
		return TRACER_STOP_FRAME_SIZE;
	if (exact && is_frame_address(walk->config, word_below_fp)) {
		/* GCC leaf: only s0 saved; ra is still live. */
		caller_fp = word_below_fp;
		*pc = ra;
	} else {
		caller_fp = saved_fp;
		*pc = word_below_fp;
	}
	*sp = cfa;
	*fp = caller_fp;
	return TRACER_RUNNING;
}

void frame_pointer_step(struct walk *walk)
{
	struct fp_bounds bounds;
	struct tracer_regs *frame = &walk->next;
	enum tracer_stop stop;

	fp_bounds_of(&bounds, walk);
	stop = frame_pointer_caller(&bounds, walk, !walk->tables_verified,
				    walk->next_is_exact, frame->ra, &frame->pc,
				    &frame->sp, &frame->s[0]);
	if (stop != TRACER_RUNNING) {
		walk->stop = stop;
		return;
	}
	frame->ra = 0; /* unknown in callers' frames, as are s1-s11 */
	walk->next_is_exact = false;
}

/*
 * The same step in a loop, for tracer_capture(): the frames whose return
 * address follows `jal ra` or `jalr ra` (most of them), up to the first
 * that returns into the trap entry. Any other frame, and a stop, is left
 * to the iterator's step (walk_advance), which says why.
 */
size_t frame_pointer_run(struct walk *walk, uintptr_t *pcs, size_t max)
{
	const struct window call = walk->call_window;
	const struct window trap_return = walk->trap_return_window;
	struct fp_bounds bounds;
	uintptr_t pc = walk->next.pc;
	uintptr_t sp = walk->next.sp;
	uintptr_t fp = walk->next.s[0];
	size_t count = 0;

	if (walk->next_is_exact || window_contains(trap_return, pc))
		return 0;
	fp_bounds_of(&bounds, walk);
	while (count < max) {
		uintptr_t caller_pc = pc;
		uintptr_t caller_sp = sp;
		uintptr_t caller_fp = fp;

		if (frame_pointer_caller(&bounds, walk, false, false, 0, &caller_pc,
					 &caller_sp, &caller_fp) != TRACER_RUNNING ||
		    !code_follows_ra_call(call, caller_pc))
			break;
		pcs[count++] = caller_pc;
		pc = caller_pc;
		sp = caller_sp;
		fp = caller_fp;
		if (window_contains(trap_return, pc))
			break;
	}
	if (count > 0) {
		walk->next.pc = pc;
		walk->next.sp = sp;
		walk->next.s[0] = fp;
		walk->next.ra = 0; /* unknown in callers' frames */
	}
	return count;
}

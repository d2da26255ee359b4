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
 * One function, frame_pointer_caller(), checks and unwinds a frame. The
 * iterator's step runs it for any frame (frame_pointer_step); the raw
 * capture runs it in a loop (frame_pointer_run) for the frames most walks
 * are made of (a caller's, its return address after `jal ra` or `jalr
 * ra`), and leaves any other to the step.
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

/* The rule of code no valid unwind table covers: it states nothing. */
static const struct tracer_unwind_rule no_rule = {0, 0, 0, TRACER_UNWIND_NO_CFI, 0};

/* What a step reads of the walk besides the frame, as locals, so that a
 * loop over frames keeps them in registers (the reads of the stack are
 * volatile: the compiler would load the walk's fields again each time). */
struct fp_view {
	struct tracer_range stack;		 /* the walk's current stack */
	struct window record;			 /* fp whose record lies in it */
	struct window call;			 /* the walk's call_window */
	const struct tracer_unwind_table *table; /* valid, with rows; or NULL */
	struct table_lookup lookup;		 /* its arrays */
};

static inline __attribute__((always_inline)) void fp_view_of(struct fp_view *view,
							     const struct walk *walk)
{
	const struct tracer_unwind_table *table = walk->config->unwind_table;

	view->stack = walk->stack;
	view->record = walk->record_window;
	view->call = walk->call_window;
	view->table = TRACER_LINKS_TABLE &&
			      walk->unwind_table_status == TRACER_TABLE_OK &&
			      table->count > 0
			  ? table
			  : NULL;
	/* Read only with a table, but set: the compiler cannot tell. */
	view->lookup.base = 0;
	view->lookup.maps = NULL;
	view->lookup.lookup = NULL;
	view->lookup.rows = NULL;
	view->lookup.rules = NULL;
	if (view->table)
		table_lookup_of(&view->lookup, table);
}

/*
 * The row that covers code_pc in the walk's valid unwind table, else
 * no_rule (always, without the table unwinder linked): the table states
 * where the CFA lies from s0 (GCC keeps a variadic function's s0 below its
 * register save area) and the frame size that witnesses s0. `checked`: the
 * walk checks what it reads (not the capture, whose tables
 * tracer_prepare() checked), so the row first; a table rejected there
 * says nothing. `covered`: code_pc is the call before a return address in
 * the walk's call_window, which the table's blocks cover. `with_table`:
 * view->table is not NULL (a constant where the caller knows it).
 */
static inline __attribute__((always_inline)) const struct tracer_unwind_rule *
frame_rule(const struct fp_view *view, struct walk *walk, bool checked, bool covered,
	   bool with_table, uintptr_t code_pc)
{
	uintptr_t end;

	if (!TRACER_LINKS_TABLE || !with_table)
		return &no_rule;
	if (covered)
		end = code_pc + 1 - view->lookup.base;
	else if (!unwind_table_end(view->table, code_pc, &end))
		return &no_rule;
	if (checked && !walk_unwind_rule(walk, end))
		return &no_rule;
	return unwind_table_rule_of(
	    view->lookup.rules,
	    view->lookup.rows[unwind_table_rows_below(view->lookup.maps,
						      view->lookup.lookup, end) -
			      1]);
}

/* The CFA of a frame whose frame pointer is fp: fp, unless its row puts
 * the CFA at an offset from s0. */
static inline uintptr_t frame_cfa(const struct tracer_unwind_rule *rule, uintptr_t fp)
{
	uintptr_t kind = rule->kind;

	return (kind & TRACER_UNWIND_CFA_ON_S0) && kind < TRACER_UNWIND_NO_CFI
		   ? fp + (uintptr_t)(intptr_t)rule->cfa_offset
		   : fp;
}

/*
 * One step: the caller of the frame (*pc, *sp, *fp, with its live ra if
 * `exact`, the first frame of a register set) into (*pc, *sp, *fp), and
 * TRACER_RUNNING; or why there is none, changing nothing. `covered`: a
 * common frame, whose caller must be one too (its return address after
 * `jal ra` or `jalr ra`). `with_table`: see frame_rule().
 */
static inline __attribute__((always_inline)) enum tracer_stop
frame_pointer_caller(const struct fp_view *view, struct walk *walk, bool checked,
		     bool covered, bool with_table, bool exact, uintptr_t ra,
		     uintptr_t *pc, uintptr_t *sp, uintptr_t *fp)
{
	const struct tracer_unwind_rule *rule;
	uintptr_t cfa;
	uintptr_t word_below_fp;
	uintptr_t saved_fp;

	/* The stack grows down: this frame's CFA is above its sp, and above
	 * the CFA of the frame before it (which is this frame's sp). Below
	 * it: s0 = 0, which the boot code sets (no caller, if this frame is at
	 * the top of the stack; elsewhere a frame pointer lost), or one not
	 * 16-byte aligned (psABI), or a loop. */
	if (*fp <= *sp) {
		if (*fp == 0)
			return *sp == view->stack.end ? TRACER_STOP_OUTERMOST
						      : TRACER_STOP_FP_ZERO;
		return *fp % TRACER_STACK_ALIGN != 0 ? TRACER_STOP_MISALIGNED
						     : TRACER_STOP_NOT_ASCENDING;
	}
	if (*fp % TRACER_STACK_ALIGN != 0)
		return TRACER_STOP_MISALIGNED;
	/* The record, two words below fp, lies in the stack. */
	if (!memory_read_record(view->record, *fp, &saved_fp, &word_below_fp))
		return TRACER_STOP_OUTSIDE_STACK;
	rule =
	    frame_rule(view, walk, checked, covered, with_table, exact ? *pc : *pc - 1);
	cfa = frame_cfa(rule, *fp);
	if (cfa != *fp) {
		if (cfa <= view->stack.start || cfa > view->stack.end)
			return TRACER_STOP_OUTSIDE_STACK;
		if (cfa < *sp || (cfa == *sp && !exact))
			return TRACER_STOP_NOT_ASCENDING;
	}
	/* The second witness of a caller's frame: a saved s0 forged to point
	 * at a real outer record would skip frames unnoticed. A register
	 * set's s0 is the register's, and its pc may lie in a prologue. */
	if (!exact && !frame_size_agrees(rule, *sp, cfa))
		return TRACER_STOP_FRAME_SIZE;
	if (exact && is_frame_address(walk->config, word_below_fp)) {
		/* GCC leaf: only s0 saved; ra is still live. */
		saved_fp = word_below_fp;
		word_below_fp = ra;
	}
	/* Any other caller is left to the iterator's step, which checks a
	 * return address in full. */
	if (covered && !code_follows_ra_call(view->call, word_below_fp))
		return TRACER_STOP_NOT_A_CALL;
	*pc = word_below_fp;
	*sp = cfa;
	*fp = saved_fp;
	return TRACER_RUNNING;
}

void frame_pointer_step(struct walk *walk)
{
	struct tracer_regs *frame = &walk->next;
	struct fp_view view;
	enum tracer_stop stop;

	fp_view_of(&view, walk);
	stop = frame_pointer_caller(&view, walk, !walk_tables_verified(walk), false,
				    view.table, walk->next_is_exact, frame->ra,
				    &frame->pc, &frame->sp, &frame->s[0]);
	if (stop != TRACER_RUNNING) {
		walk->stop = stop;
		return;
	}
	frame->ra = 0; /* unknown in callers' frames, as are s1-s11 */
	walk->next_is_exact = false;
}

#if TRACER_LINKS_CAPTURE
/* Whether the frame in walk->next may take the common frames' path: a
 * caller's frame (a register set's may be a leaf's), its return address
 * in the call window (a call the valid table covers), not returning into
 * the trap entry or an entry point (stacks_cross_trap). */
static inline bool frame_pointer_common(const struct walk *walk)
{
	return !walk->next_is_exact &&
	       window_contains(walk->call_window, walk->next.pc) &&
	       !window_contains(walk->trap_return_window, walk->next.pc);
}

/* The frames tracer_capture() stores: frame_pointer_caller() in a loop,
 * from (*pc, *sp, *fp), into next[] up to end; returns past the last. */
static inline __attribute__((always_inline)) uintptr_t *
frame_pointer_loop(const struct fp_view *view, struct walk *walk, bool with_table,
		   uintptr_t *next, uintptr_t *const end, uintptr_t *pc, uintptr_t *sp,
		   uintptr_t *fp)
{
	const struct window trap_return = walk->trap_return_window;

	while (next != end &&
	       frame_pointer_caller(view, walk, false, true, with_table, false, 0, pc, sp,
				    fp) == TRACER_RUNNING) {
		*next++ = *pc;
		if (window_contains(trap_return, *pc))
			break;
	}
	return next;
}

/* The same in a loop, for tracer_capture(), whose tables tracer_prepare()
 * checked. */
size_t frame_pointer_run(struct walk *walk, uintptr_t *pcs, size_t max)
{
	uintptr_t pc = walk->next.pc;
	uintptr_t sp = walk->next.sp;
	uintptr_t fp = walk->next.s[0];
	uintptr_t *next;
	struct fp_view view;

	if (!frame_pointer_common(walk))
		return 0;
	fp_view_of(&view, walk);
	/* A loop for each case, so that a kernel without the unwind table
	 * keeps no register for its witness. */
	if (view.table)
		next =
		    frame_pointer_loop(&view, walk, true, pcs, pcs + max, &pc, &sp, &fp);
	else
		next =
		    frame_pointer_loop(&view, walk, false, pcs, pcs + max, &pc, &sp, &fp);
	if (next != pcs) {
		walk->next.pc = pc;
		walk->next.sp = sp;
		walk->next.s[0] = fp;
		walk->next.ra = 0; /* unknown in callers' frames */
	}
	return (size_t)(next - pcs);
}
#endif

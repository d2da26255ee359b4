/*
 * walk.c - the iterator shared by all unwinders.
 *
 * A walk holds the frame it will return next. tracer_next() returns it,
 * symbolized, and then computes its caller: by crossing a trap frame when the
 * return address lies in the trap entry, otherwise by the chosen unwinder's
 * step. Checks common to every unwinder live here: the embedded tables'
 * headers are checked at the start, each block of them as it is read
 * (verify.c), and every return address an unwinder
 * recovers must lie in text just after a call; the depth is bounded. Which
 * stack the walk reads, and the switch at a trap frame: stacks.c.
 */
#include "internal.h"

void tracer_start(struct tracer_walk *walk, enum tracer_unwinder unwinder,
		  const struct tracer_config *config, const struct tracer_regs *regs)
{
	/* The tables of an unwinder not linked are not read. */
	enum tracer_table_status fde_index_status =
	    TRACER_LINKS_DWARF ? fde_index_header_check(config) : TRACER_TABLE_ABSENT;

	walk_begin(
	    walk, unwinder, config, regs, symtab_header_check(config), fde_index_status,
	    TRACER_LINKS_TABLE ? unwind_table_header_check(config) : TRACER_TABLE_ABSENT,
	    TRACER_LINKS_DWARF && fde_index_status == TRACER_TABLE_OK
		? eh_frame_header_check(config)
		: TRACER_TABLE_ABSENT,
	    false);
}

/*
 * The address that says which code a frame is in. A return address may point
 * just past the function that made the call (a call to a noreturn function
 * can end it, even at the very end of text): use the call instruction itself,
 * as GDB and Linux do.
 */
static uintptr_t code_address(uintptr_t pc, bool is_return_address)
{
	return is_return_address ? pc - 1 : pc;
}

const struct tracer_symbol *walk_function(struct tracer_walk *walk)
{
	if (!walk->next_function_known) {
		walk->next_function = walk_symtab_search(
		    walk, code_address(walk->next.pc, !walk->next_is_exact));
		walk->next_function_known = true;
	}
	return walk->next_function;
}

/*
 * The frame in walk->next, symbolized; returns its function. table_common:
 * walk->next_table_common holds, so the frame's marks are known without
 * reading them: a caller's frame (a return address) that the table found,
 * after no trap (table_common_ready() accepts no register set's frame, and
 * the general step clears the trap's marks on the others).
 */
static inline __attribute__((always_inline)) const struct tracer_symbol *
describe_next(struct tracer_walk *walk, struct tracer_frame *frame, bool table_common)
{
	const bool is_return_address = table_common || !walk->next_is_exact;
	const enum tracer_unwinder found_by =
	    table_common ? TRACER_TABLE : walk->next_found_by;
	const struct tracer_symbol *symbol = walk_symtab_search_checked(
	    walk, code_address(walk->next.pc, is_return_address));

	frame->pc = walk->next.pc;
	frame->sp = walk->next.sp;
	frame->fp = walk->next.s[0];
	frame->is_return_address = is_return_address;
	frame->after_trap = !table_common && walk->next_after_trap;
	frame->trap_cause = table_common ? 0 : walk->trap_cause;
	frame->trap_tval = table_common ? 0 : walk->trap_tval;
	frame->found_by = found_by;
	frame->found_by_fallback = walk->unwinder == TRACER_AUTO &&
				   found_by != TRACER_AUTO && found_by != TRACER_TABLE &&
				   found_by != TRACER_DWARF;
	if (symbol) {
		frame->name = tracer_symbol_name(walk->config->symtab, symbol);
		frame->offset = frame->pc - symbol->addr;
		frame->size = symbol->size;
	} else {
		frame->name = NULL;
		frame->offset = 0;
		frame->size = 0;
	}
	return symbol;
}

enum tracer_stop frame_outermost(const struct tracer_walk *walk, uintptr_t cfa,
				 enum tracer_stop early)
{
	uintptr_t top = walk->stack.end;

	return cfa == top || walk->next.sp == top ? TRACER_STOP_OUTERMOST : early;
}

/*
 * The unwinders' steps, for a walk that checks what it reads (`checked`:
 * tracer_next(), not tracer_capture(), which trusts tracer_prepare()'s
 * verdict): what the step will read is checked first (verify.c), and a
 * rejected table stops the step as one rejected at the start would; the
 * steps themselves read as the capture does. Each unwinder is referenced
 * only where its TRACER_LINKS_* says it is linked.
 */
#if TRACER_LINKS_DWARF
static inline __attribute__((always_inline)) void
checked_dwarf_step(struct tracer_walk *walk, bool checked)
{
	if (checked && !walk_dwarf_check(walk))
		return;
	dwarf_step(walk);
}
#endif

#if TRACER_LINKS_TABLE
static inline __attribute__((always_inline)) bool
checked_table_step(struct tracer_walk *walk, bool checked)
{
	if (checked)
		walk_table_check(walk);
	return table_step(walk);
}

/* TRACER_TABLE: the rows the table cannot express go to DWARF. */
static inline __attribute__((always_inline)) void
table_or_dwarf_step(struct tracer_walk *walk, bool checked)
{
	if (checked_table_step(walk, checked))
		return;
#if TRACER_LINKS_DWARF
	checked_dwarf_step(walk, checked);
#else
	walk->stop = TRACER_STOP_UNSUPPORTED_CFI;
#endif
}
#endif

/*
 * TRACER_AUTO: the first unwinder that applies to the frame, of those
 * linked. Each one leaves walk->next as it was when it does not apply: no
 * row (or no valid table); no FDE (or no valid index or .eh_frame); no
 * function in a valid symbol table, or code the decoder does not follow.
 * The rows the table cannot express go to DWARF too; a frame either finds
 * stays unmarked. With neither linked, no CFI covers any pc.
 */
static inline __attribute__((always_inline)) void auto_step(struct tracer_walk *walk,
							    bool checked)
{
	(void)checked; /* unread with neither the table nor DWARF */
	walk->stop = TRACER_STOP_NO_CFI;
#if TRACER_LINKS_TABLE
	walk->stop = TRACER_RUNNING;
	walk->next_found_by = TRACER_TABLE;
	if (!checked_table_step(walk, checked) ||
	    walk->stop == TRACER_STOP_BAD_UNWIND_TABLE)
		walk->stop = TRACER_STOP_NO_CFI;
#endif
#if TRACER_LINKS_DWARF
	if (walk->stop == TRACER_STOP_NO_CFI) {
		walk->stop = TRACER_RUNNING;
		checked_dwarf_step(walk, checked);
		walk->next_found_by = TRACER_DWARF;
	}
#endif
	if (walk->stop != TRACER_STOP_NO_CFI && walk->stop != TRACER_STOP_BAD_FDE_INDEX &&
	    walk->stop != TRACER_STOP_BAD_EH_FRAME)
		return;
#if TRACER_LINKS_PROLOGUE
	walk->stop = TRACER_RUNNING;
	prologue_step(walk);
	walk->next_found_by = TRACER_PROLOGUE;
	if (walk->stop != TRACER_STOP_NO_SYMBOL &&
	    walk->stop != TRACER_STOP_UNKNOWN_CODE &&
	    walk->stop != TRACER_STOP_BAD_SYMTAB)
		return;
#endif
#if TRACER_LINKS_FRAME_POINTER
	walk->stop = TRACER_RUNNING;
	frame_pointer_step(walk);
	walk->next_found_by = TRACER_FRAME_POINTER;
#endif
}

static inline __attribute__((always_inline)) void advance(struct tracer_walk *walk,
							  bool checked)
{
	const struct tracer_config *config = walk->config;

	/* A pc from a register set is shown even when it is not code (a jump
	 * to a bad address), but nothing can be unwound from it. Unwound
	 * return addresses were checked before they were returned. Nor can
	 * anything be unwound from an sp on no declared stack; only register
	 * sets change stacks, so unwound frames need neither check. */
	if (walk->next_is_exact) {
		if (walk->next_from_user) {
			walk->stop = TRACER_STOP_USER_ENTRY;
			return;
		}
		if (!range_contains(config->text, walk->next.pc)) {
			walk->stop = TRACER_STOP_PC_OUTSIDE_TEXT;
			return;
		}
		if (walk->stack_index == STACKS_NONE) {
			walk->stop = TRACER_STOP_OUTSIDE_STACK;
			return;
		}
	}
	/* User values stand where its caller's would be. */
	if (config->entry_points &&
	    entry_points_contain(config,
				 code_address(walk->next.pc, !walk->next_is_exact))) {
		walk->stop = TRACER_STOP_USER_ENTRY;
		return;
	}
	if (!walk->next_is_exact && config->trap &&
	    range_contains(config->trap->entry, code_address(walk->next.pc, true))) {
		stacks_cross_trap(walk);
		return;
	}
	switch (walk->unwinder) {
#if TRACER_LINKS_FRAME_POINTER
	case TRACER_FRAME_POINTER:
		frame_pointer_step(walk);
		break;
#endif
#if TRACER_LINKS_DWARF
	case TRACER_DWARF:
		checked_dwarf_step(walk, checked);
		break;
#endif
#if TRACER_LINKS_PROLOGUE
	case TRACER_PROLOGUE:
		prologue_step(walk);
		break;
#endif
	case TRACER_AUTO:
		auto_step(walk, checked);
		break;
#if TRACER_LINKS_TABLE
	case TRACER_TABLE:
		table_or_dwarf_step(walk, checked);
		break;
#endif
	default:
		walk->stop = (unsigned)walk->unwinder < TRACER_UNWINDER_COUNT
				 ? TRACER_STOP_NOT_LINKED
				 : TRACER_STOP_BAD_UNWINDER;
		return;
	}
	walk->next_after_trap = false;
	walk->trap_cause = 0;
	walk->trap_tval = 0;
	if (walk->stop != TRACER_RUNNING)
		return;
	/* An unwound return address is printed only if it is code, just after
	 * a call: a word that merely points into text is no caller. A call
	 * found before it puts it in text; only a failure asks which. */
	if (code_follows_call(config, walk->next.pc, sizeof(uintptr_t)))
		return;
	walk->stop = range_contains(config->text, code_address(walk->next.pc, true))
			 ? TRACER_STOP_NOT_A_CALL
			 : TRACER_STOP_PC_OUTSIDE_TEXT;
}

/*
 * The step, after which the frame's function is forgotten. The common frame
 * takes the raw capture's checked step (frame_pointer_next; for the table
 * and auto table_common_step, table_run()'s turn), which declines any other
 * frame, changing nothing; advance() then decides, in step_general(), out
 * of line: tracer_next() calls it, and so needs no frame of its own on the
 * common paths (a call, not a jump: GCC then gives tracer_next() a frame on
 * that path only, also with -fno-omit-frame-pointer), and adds none below
 * advance() on the deepest one. step_general() also says whether the
 * table's common step may start from the frame it leaves
 * (walk->next_table_common); each frame that step finds meets the same
 * conditions.
 */
static inline __attribute__((always_inline)) void
step_general_of(struct tracer_walk *walk, bool checked)
{
	advance(walk, checked);
	walk->next_function_known = false;
	/* The flag stays false in the other walks (walk_begin). */
#if TRACER_LINKS_TABLE
	if (walk->unwinder == TRACER_TABLE || walk->unwinder == TRACER_AUTO)
		walk->next_table_common = table_common_ready(walk);
#endif
}

/* The capture's, trusting tracer_prepare()'s verdict, and the iterator's,
 * which checks what it reads unless tracer_prepare() checked it all. */
static __attribute__((noinline)) void step_general(struct tracer_walk *walk)
{
	step_general_of(walk, false);
}

static __attribute__((noinline)) void step_general_checked(struct tracer_walk *walk)
{
	step_general_of(walk, true);
}

/* table_common_step() for the frame in walk->next, if
 * walk->next_table_common (the caller checks). */
static inline bool table_next(struct tracer_walk *walk)
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

/* The capture's step, after its loops (frame_pointer_run, table_run) have
 * taken the common frames: the general one. */
void walk_advance(struct tracer_walk *walk)
{
	step_general(walk);
}

/*
 * The function a frame's step may need (walk_function) is kept for the
 * general step only: a common step forgets it at once, and the general
 * step leaves it unknown, so a frame a common step takes neither keeps nor
 * clears it.
 */
bool tracer_next(struct tracer_walk *walk, struct tracer_frame *frame)
{
	const struct tracer_symbol *function;

	if (walk->stop != TRACER_RUNNING || walk->frames_left == 0) {
		if (walk->stop == TRACER_RUNNING)
			walk->stop = TRACER_STOP_DEPTH_LIMIT;
		return false;
	}
	walk->frames_left--;
	if (TRACER_LINKS_TABLE && walk->next_table_common) {
		function = describe_next(walk, frame, true);
		if (table_next(walk))
			return true;
	} else {
		function = describe_next(walk, frame, false);
		if (TRACER_LINKS_FRAME_POINTER &&
		    walk->unwinder == TRACER_FRAME_POINTER && frame_pointer_next(walk))
			return true;
	}
	walk->next_function = function;
	walk->next_function_known = true;
	step_general_checked(walk);
	return true;
}

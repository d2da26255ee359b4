/*
 * walk.c - the iterator shared by all unwinders.
 *
 * A walk holds the frame it will return next. tracer_next() returns it,
 * symbolized (its function, and its place in the line table: first the
 * calls the compiler inlined into its code, innermost first, each a frame
 * of its own, as GDB shows them), and then computes its caller: by
 * crossing a trap frame when the return address lies in the trap entry,
 * otherwise by the chosen unwinder's step. Checks common to every unwinder
 * live here: the embedded tables' headers are checked at the start, each
 * block of them as it is read (verify.c; the line table whole, before its
 * first lookup), and every return address an unwinder recovers must lie
 * in text just after a call; the depth is bounded. Which stack the walk
 * reads, and the switch at a trap frame: stacks.c.
 */
#include "lines.h"
#include "riscv.h"
#include "table_lookup.h"
#include "verify.h"

/* Field by field: a struct assignment or a copy loop may become a call to
 * memcpy, which a freestanding kernel need not have. */
static void regs_copy(struct tracer_regs *to, const struct tracer_regs *from)
{
	to->pc = from->pc;
	to->ra = from->ra;
	to->sp = from->sp;
	to->s[0] = from->s[0];
	if (TRACER_SAVED_REGS == 1)
		return;
	to->s[1] = from->s[1];
	to->s[2] = from->s[2];
	to->s[3] = from->s[3];
	to->s[4] = from->s[4];
	to->s[5] = from->s[5];
	to->s[6] = from->s[6];
	to->s[7] = from->s[7];
	to->s[8] = from->s[8];
	to->s[9] = from->s[9];
	to->s[10] = from->s[10];
	to->s[11] = from->s[11];
}

/* A sorted table's search, set up once a walk (sorted_search_from), for
 * its `count` entries: none for 0, a table the walk does not search. */
static void search_begin(uint32_t count, uint32_t *levels, uint32_t *first_probe)
{
	*levels = count ? sorted_levels(count) : 0;
	*first_probe = count ? count - ((uint32_t)1 << *levels) : 0;
}

TRACER_COLD_UNLESS_CAPTURE void walk_begin_symbols(struct walk *walk,
						   const struct tracer_config *config,
						   enum tracer_table_status symtab_status,
						   bool verified)
{
	walk->config = config;
	walk->symtab_status = symtab_status;
	/* Only a valid table is read, even for its count. */
	walk->symtab_searchable = TRACER_LINKS_SYMBOLS &&
				  symtab_status == TRACER_TABLE_OK &&
				  config->symtab->count > 0;
	search_begin(walk->symtab_searchable ? config->symtab->count : 0,
		     &walk->symtab_levels, &walk->symtab_first_probe);
	walk->tables_verified = verified;
	walk->verified_valid = 0;
	walk->recent_valid = 0;
}

/* Out of line: tracer_start() and the capture share it (GCC would inline
 * it into the first, keeping both copies). */
TRACER_COLD_UNLESS_CAPTURE __attribute__((noinline)) void
walk_begin(struct walk *walk, enum tracer_unwinder unwinder,
	   const struct tracer_config *config, const struct tracer_regs *regs,
	   enum tracer_table_status symtab_status,
	   enum tracer_table_status fde_index_status,
	   enum tracer_table_status unwind_table_status,
	   enum tracer_table_status eh_frame_status, bool verified)
{
	walk->stop =
	    unwinder < TRACER_UNWINDER_COUNT ? TRACER_RUNNING : TRACER_STOP_BAD_UNWINDER;
	walk->unwinder = unwinder;
	regs_copy(&walk->next, regs);
	walk->next_is_exact = true;
	walk->next_after_trap = false;
	walk->trap_cause = 0;
	walk->trap_tval = 0;
	walk->trap_frame = 0;
	walk->frames_left = config->max_depth ? config->max_depth : TRACER_DEFAULT_DEPTH;
	walk_begin_symbols(walk, config, symtab_status, verified);
	/* The walks that may take a DWARF step: the table's rows it cannot
	 * express go to DWARF. */
	walk->fde_searchable = TRACER_LINKS_DWARF &&
			       (unwinder == TRACER_DWARF || unwinder == TRACER_TABLE ||
				unwinder == TRACER_AUTO) &&
			       fde_index_status == TRACER_TABLE_OK && config->fde_index &&
			       config->fde_index->count > 0;
	search_begin(walk->fde_searchable ? config->fde_index->count : 0,
		     &walk->fde_levels, &walk->fde_first_probe);
	walk->next_function = NULL;
	walk->next_function_known = false;
	walk->next_found_by = unwinder;
	walk->fde_index_status = fde_index_status;
	walk->unwind_table_status = unwind_table_status;
	walk->eh_frame_status = eh_frame_status;
	walk->noted = 0;
	walk->lines_status = TRACER_TABLE_ABSENT;
	walk->lines_verified = false;
	walk->lines_pending = false;
	walk->line_call = 0;
	walk->line_file = 0;
	walk->line_line = 0;
	walk->call_window = memory_window(config->text, 4);
	if (TRACER_LINKS_TABLE && unwind_table_status == TRACER_TABLE_OK)
		walk->call_window =
		    unwind_table_call_window(config->unwind_table, walk->call_window);
#if TRACER_LINKS_CAPTURE
	walk->trap_return_window = entry_points_return_window(config);
#endif
	walk->next_from_user = false;
	walk->innermost_trap_crossed = false;
	/* No CIE yet. Every field defined all the same (a bool of another
	 * value is undefined). Field by field: a struct store may call
	 * memset, which a freestanding kernel need not have. */
	walk->cie.address = UINTPTR_MAX;
	walk->cie.fde_encoding = 0;
	walk->cie.has_augmentation_data = false;
	walk->cie.is_signal_frame = false;
	walk->cie.initial_known = false;
	stacks_start(walk);
}

TRACER_COLD void tracer_start(struct tracer_walk *walk, enum tracer_unwinder unwinder,
			      const struct tracer_config *config,
			      const struct tracer_regs *regs)
{
	/* The tables of an unwinder not linked are not read. */
	enum tracer_table_status fde_index_status =
	    TRACER_LINKS_DWARF ? fde_index_header_check(config) : TRACER_TABLE_ABSENT;

	walk_begin(
	    walk_of(walk), unwinder, config, regs,
	    TRACER_LINKS_SYMBOLS ? symtab_header_check(config) : TRACER_TABLE_ABSENT,
	    fde_index_status,
	    TRACER_LINKS_TABLE ? unwind_table_header_check(config) : TRACER_TABLE_ABSENT,
	    TRACER_LINKS_DWARF && fde_index_status == TRACER_TABLE_OK
		? eh_frame_header_check(config)
		: TRACER_TABLE_ABSENT,
	    false);
	/* Lines only for the iterator: a raw capture prints none. */
	walk_of(walk)->lines_status =
	    TRACER_LINKS_LINES ? lines_header_check(config) : TRACER_TABLE_ABSENT;
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

const struct tracer_symbol *walk_function(struct walk *walk)
{
	if (!walk->next_function_known) {
		walk->next_function = walk_symtab_search(
		    walk, code_address(walk->next.pc, !walk->next_is_exact));
		walk->next_function_known = true;
	}
	return walk->next_function;
}

/* The frame in walk->next, symbolized: its function's. Inline: it is the
 * most of a symbolized walk's frame. */
static inline __attribute__((always_inline)) void
describe_next(struct walk *walk, struct tracer_frame *frame)
{
	const bool is_return_address = !walk->next_is_exact;
	const enum tracer_unwinder found_by = walk->next_found_by;
	const struct tracer_symbol *symbol = walk_function(walk);

	frame->pc = walk->next.pc;
	frame->sp = walk->next.sp;
	frame->fp = walk->next.s[0];
	frame->is_return_address = is_return_address;
	frame->after_trap = walk->next_after_trap;
	frame->trap_cause = walk->trap_cause;
	frame->trap_tval = walk->trap_tval;
	frame->trap_machine_mode =
	    walk->config->trap && walk->config->trap->mode == TRACER_TRAP_MACHINE;
	frame->trap_frame = walk->trap_frame;
	frame->found_by = found_by;
	frame->found_by_fallback = walk->unwinder == TRACER_AUTO &&
				   found_by != TRACER_AUTO && found_by != TRACER_TABLE &&
				   found_by != TRACER_DWARF;
	frame->file = NULL;
	frame->line = 0;
	frame->inlined = false;
	if (symbol) {
		frame->name = tracer_symbol_name(walk->config->symtab, symbol);
		frame->offset = frame->pc - symbol->addr;
		frame->size = symbol->size;
	} else {
		frame->name = NULL;
		frame->offset = 0;
		frame->size = 0;
	}
}

/* The line table found damaged: no more lines this walk (tracer_format_note
 * says so). */
static void reject_lines(struct walk *walk, enum tracer_table_status status)
{
	walk->lines_status = status;
	walk->lines_pending = false;
}

/* Looks up the code of walk->next in the line table: its place and the
 * innermost call inlined there, for the frames tracer_next() returns next
 * (lines_pending). The table's arrays are checked before the first. */
static void lines_begin(struct walk *walk)
{
	const struct tracer_lines *table = walk->config->lines;
	struct tracer_line found;

	if (!TRACER_LINKS_LINES || walk->lines_status != TRACER_TABLE_OK)
		return;
	if (!walk->lines_verified) {
		enum tracer_table_status status = lines_arrays_check(walk->config);

		if (status != TRACER_TABLE_OK) {
			reject_lines(walk, status);
			return;
		}
		walk->lines_verified = true;
	}
	switch (tracer_line_at(table, code_address(walk->next.pc, !walk->next_is_exact),
			       &found)) {
	case TRACER_LINE_CORRUPT:
		reject_lines(walk, TRACER_TABLE_MALFORMED);
		return;
	case TRACER_LINE_NONE: /* found.call is set */
		found.file = 0;
		found.line = 0;
		break;
	case TRACER_LINE_FOUND:
		break;
	}
	walk->lines_pending = true;
	walk->line_call = found.call;
	walk->line_file = found.file;
	walk->line_line = found.line;
}

/* The place of the frame tracer_next() returns (lines_pending), and if it
 * is an inlined call's, its name; then the next frame's: the call's own
 * place, in the call it is inlined in (its parent: 0, the function). */
static void describe_lines(struct walk *walk, struct tracer_frame *frame)
{
	const struct tracer_lines *table = walk->config->lines;
	struct tracer_inline_call call;

	/* Without lines.c (TRACER_LINKS_LINES 0) never called; the check
	 * leaves its calls out of an -O0 build too. */
	if (!TRACER_LINKS_LINES)
		return;
	if (walk->line_file != 0 && walk->line_line != 0) {
		frame->file = tracer_lines_file(table, walk->line_file);
		frame->line = walk->line_line;
	}
	if (walk->line_call == 0) {
		walk->lines_pending = false;
		return;
	}
	if (tracer_inline_call_at(table, walk->line_call, &call) != TRACER_LINE_FOUND) {
		/* This frame is the function's own, without a place. */
		reject_lines(walk, TRACER_TABLE_MALFORMED);
		frame->file = NULL;
		frame->line = 0;
		return;
	}
	frame->inlined = true;
	frame->name = call.name ? tracer_lines_name(table, call.name) : NULL;
	frame->offset = 0;
	frame->size = 0;
	walk->line_call = call.parent;
	walk->line_file = call.file;
	walk->line_line = call.line;
}

/* Used by the unwinders that find outermost frames from CFI or code. */
#if TRACER_LINKS_DWARF || TRACER_LINKS_PROLOGUE
enum tracer_stop frame_outermost(const struct walk *walk, uintptr_t cfa,
				 enum tracer_stop early)
{
	uintptr_t top = walk->stack.end;

	return cfa == top || walk->next.sp == top ? TRACER_STOP_OUTERMOST : early;
}
#endif

/*
 * The DWARF and table steps of a walk that checks what it reads (not one
 * whose tables tracer_prepare() checked whole): what the step will read is
 * checked first (verify.c), and a rejected table stops the step as one
 * rejected at the start would. Each unwinder is referenced only where its
 * TRACER_LINKS_* says it is linked.
 */
#if TRACER_LINKS_DWARF
static void checked_dwarf_step(struct walk *walk)
{
	if (!walk_tables_verified(walk) && !walk_dwarf_check(walk))
		return;
	dwarf_step(walk);
}
#endif

#if TRACER_LINKS_TABLE
/* TRACER_TABLE: the rows the table cannot express go to DWARF. */
static void table_or_dwarf_step(struct walk *walk)
{
	if (table_step(walk))
		return;
#if TRACER_LINKS_DWARF
	checked_dwarf_step(walk);
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
static void auto_step(struct walk *walk)
{
	walk->stop = TRACER_STOP_NO_CFI;
#if TRACER_LINKS_TABLE
	walk->stop = TRACER_RUNNING;
	walk->next_found_by = TRACER_TABLE;
	if (!table_step(walk) || walk->stop == TRACER_STOP_BAD_UNWIND_TABLE)
		walk->stop = TRACER_STOP_NO_CFI;
#endif
#if TRACER_LINKS_DWARF
	if (walk->stop == TRACER_STOP_NO_CFI) {
		walk->stop = TRACER_RUNNING;
		checked_dwarf_step(walk);
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

static void advance(struct walk *walk)
{
	const struct tracer_config *config = walk->config;
	const uintptr_t code = code_address(walk->next.pc, !walk->next_is_exact);

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
	    ranges_contain(config->entry_points, config->entry_point_count, code)) {
		walk->stop = TRACER_STOP_USER_ENTRY;
		return;
	}
	if (!walk->next_is_exact && config->trap &&
	    range_contains(config->trap->entry, code)) {
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
		checked_dwarf_step(walk);
		break;
#endif
#if TRACER_LINKS_PROLOGUE
	case TRACER_PROLOGUE:
		prologue_step(walk);
		break;
#endif
	case TRACER_AUTO:
		auto_step(walk);
		break;
#if TRACER_LINKS_TABLE
	case TRACER_TABLE:
		table_or_dwarf_step(walk);
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
	walk->trap_frame = 0;
	if (walk->stop != TRACER_RUNNING)
		return;
	/* A task's first function: the context restore that started it set
	 * ra = 0, where a call would have left a return address. */
	if (walk->next.pc == 0 && config->task_entries &&
	    ranges_contain(config->task_entries, config->task_entry_count, code)) {
		walk->stop = TRACER_STOP_OUTERMOST;
		return;
	}
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
 * The step, out of line: tracer_next() and the capture's loop share it.
 * The frame's function, looked up when the frame was returned, is kept for
 * the step (walk_function), then forgotten.
 */
__attribute__((noinline)) void walk_advance(struct walk *walk)
{
	advance(walk);
	walk->next_function_known = false;
}

bool tracer_next(struct tracer_walk *caller_walk, struct tracer_frame *frame)
{
	struct walk *walk = walk_of(caller_walk);
	/* The first of the frames of walk->next's code: its inlined calls,
	 * innermost first, then the function's own. */
	const bool first = !TRACER_LINKS_LINES || !walk->lines_pending;

	if (first) {
		if (walk->stop != TRACER_RUNNING || walk->frames_left == 0) {
			if (walk->stop == TRACER_RUNNING)
				walk->stop = TRACER_STOP_DEPTH_LIMIT;
			return false;
		}
		walk->frames_left--;
		lines_begin(walk);
	}
	describe_next(walk, frame);
	/* The trap line goes before the first of them only. */
	frame->after_trap = frame->after_trap && first;
	if (TRACER_LINKS_LINES && walk->lines_pending) {
		describe_lines(walk, frame);
		if (frame->inlined)
			return true;
	}
	walk_advance(walk);
	return true;
}

enum tracer_stop tracer_stop_reason(const struct tracer_walk *caller_walk)
{
	return walk_of((struct tracer_walk *)caller_walk)->stop;
}

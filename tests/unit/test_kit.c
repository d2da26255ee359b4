/*
 * test_kit.c - the port kit: the one-call printer, trap layouts for trap
 * vectors as they are (CSRs not saved, sp stored after the frame was
 * taken), and the clean ends of walks from user mode (entry points, a trap
 * frame whose sstatus says user mode).
 *
 * The stack is test_frame_pointer.c's trap crossing: panic (fp 100) <-
 * handler (fp 140) <- trap entry, whose trap frame sits at word 140 <- the
 * interrupted leaf (sp 296, s0 300) <- its caller (fp 400) <- the top.
 * Expected lines are written out by hand from docs/output-format.md, the
 * addresses printed with printf's %016lx.
 */
#include <stdio.h>
#include <string.h>

#include "fake_stack.h"
#include "fake_tables.h"
#include "harness.h"

#define TF	    140	     /* the trap frame's word */
#define TF_STATUS   TF_WORDS /* sstatus, one word past the test layout */
#define SSTATUS_SPP 0x100u
#define JAL_RA	    0x000000efu /* jal ra, 0 */
#define USER_PC	    ((uintptr_t)0x10000)
#define MAX_LINES   16

/* The unwinders that walk these stacks without tables (auto falls back to
 * frame pointers). */
static const enum tracer_unwinder walkers[] = {TRACER_FRAME_POINTER, TRACER_AUTO};

static uintptr_t text(uintptr_t offset)
{
	return FAKE_TEXT_START + offset;
}

static void build_trap(struct fake_stack *s)
{
	uintptr_t tf = fake_addr(s, TF);

	fake_enable_traps(s);
	fake_record(s, fake_addr(s, 100), tf, text(0x500));
	fake_record(s, tf, fake_addr(s, 300), FAKE_ENTRY_START + 0x40);
	fake_put(s, tf + TF_EPC * WORD, text(0x600));
	fake_put(s, tf + TF_RA * WORD, text(0x704));
	fake_put(s, tf + TF_SP * WORD, fake_addr(s, 296));
	fake_put(s, tf + TF_S0 * WORD, fake_addr(s, 300));
	fake_put(s, tf + TF_CAUSE * WORD, 5);
	fake_put(s, tf + TF_TVAL * WORD, 0x10);
	fake_put(s, fake_addr(s, 299), fake_addr(s, 400));
	fake_record(s, fake_addr(s, 400), 0, text(0x908));
	s->range.end = fake_addr(s, 400);
	s->regs.pc = text(0x100);
	s->regs.ra = 0;
	s->regs.sp = fake_addr(s, 90);
	s->regs.s[0] = fake_addr(s, 100);
}

/* The frames of build_trap, by offset into the text; frame 3 is the one
 * the trap interrupted. */
static bool walk_is_complete(const struct fake_stack *s, size_t n)
{
	static const uintptr_t offsets[] = {0x100, 0x500, 0x840, 0x600, 0x704, 0x908};

	if (n != 6 || s->stop != TRACER_STOP_OUTERMOST)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s->frames[i].pc != text(offsets[i]) ||
		    s->frames[i].after_trap != (i == 3))
			return false;
	return s->frames[3].sp == fake_addr(s, 296) &&
	       s->frames[3].fp == fake_addr(s, 300);
}

struct lines {
	char line[MAX_LINES][TRACER_LINE_MAX];
	size_t count;
};

static void collect(void *context, const char *line)
{
	struct lines *lines = context;

	if (lines->count < MAX_LINES)
		snprintf(lines->line[lines->count], TRACER_LINE_MAX, "%s", line);
	lines->count++;
}

static bool line_is(const struct lines *lines, size_t i, const char *expected)
{
	return i < lines->count && strcmp(lines->line[i], expected) == 0;
}

/* " [<0x...>]" with the text address at `offset`, then `rest`. */
static const char *frame_line(char *buf, uintptr_t offset, const char *rest)
{
	snprintf(buf, TRACER_LINE_MAX, " [<0x%016lx>]%s", (unsigned long)text(offset),
		 rest);
	return buf;
}

struct symbols {
	struct tracer_symbol symbol[5];
	_Alignas(8) char names[48];
	struct tracer_symtab symtab;
};

/* do_panic [0, 0x200), handler [0x480, 0x580), faulting [0x5f0, 0x700),
 * caller [0x700, 0x800), outer [0x900, 0x910); the trap entry has none. */
static void add_symbols(struct fake_stack *s, struct symbols *t)
{
	static const char names[48] = "do_panic\0handler\0faulting\0caller\0outer";
	const struct tracer_symbol symbols[5] = {
	    {text(0x000), 0x200, 0},  {text(0x480), 0x100, 9}, {text(0x5f0), 0x110, 17},
	    {text(0x700), 0x100, 26}, {text(0x900), 0x10, 33},
	};

	memcpy(t->symbol, symbols, sizeof(symbols));
	memcpy(t->names, names, sizeof(names));
	fake_symtab_fill(&t->symtab, t->symbol, 5, t->names, sizeof(t->names));
	s->config.symtab = &t->symtab;
	fake_tables_anywhere(&s->config);
}

/* The printer gives the lines the demo kernel prints: header, frames, the
 * trap line before the frame a trap interrupted, the end; and the stop. */
void kit_print_backtrace_lines(void)
{
	struct fake_stack s;
	struct symbols t;
	struct lines lines = {0};
	char expected[TRACER_LINE_MAX];

	fake_stack_init(&s);
	build_trap(&s);
	add_symbols(&s, &t);
	CHECK(tracer_print_backtrace(&s.config, &s.regs, TRACER_FRAME_POINTER, collect,
				     &lines) == TRACER_STOP_OUTERMOST);
	CHECK(lines.count == 9);
	CHECK(line_is(&lines, 0, "Call Trace (frame-pointer unwinder):"));
	CHECK(line_is(&lines, 1, frame_line(expected, 0x100, " do_panic+0x100/0x200")));
	CHECK(line_is(&lines, 2, frame_line(expected, 0x500, " handler+0x80/0x100")));
	CHECK(line_is(&lines, 3, frame_line(expected, 0x840, "")));
	snprintf(expected, sizeof(expected),
		 "--- trap: load access fault sepc=0x%016lx stval=0x0000000000000010 ---",
		 (unsigned long)text(0x600));
	CHECK(line_is(&lines, 4, expected));
	CHECK(line_is(&lines, 5, frame_line(expected, 0x600, " faulting+0x10/0x110")));
	CHECK(line_is(&lines, 6, frame_line(expected, 0x704, " caller+0x4/0x100")));
	CHECK(line_is(&lines, 7, frame_line(expected, 0x908, " outer+0x8/0x10")));
	CHECK(line_is(&lines, 8, "End of trace: reached the outermost frame"));
	fake_stack_free(&s);
}

/* A rejected table: the note after the header, frames raw; and a walk that
 * cannot start prints its header and end. */
void kit_print_backtrace_note(void)
{
	struct fake_stack s;
	struct symbols t;
	struct lines lines = {0};
	char expected[TRACER_LINE_MAX];

	fake_stack_init(&s);
	build_trap(&s);
	add_symbols(&s, &t);
	t.symtab.checksum ^= 1;
	CHECK(tracer_print_backtrace(&s.config, &s.regs, TRACER_AUTO, collect, &lines) ==
	      TRACER_STOP_OUTERMOST);
	CHECK(lines.count == 10);
	CHECK(line_is(&lines, 0, "Call Trace (auto unwinder):"));
	CHECK(line_is(&lines, 1,
		      "Note: symbol table rejected (checksum mismatch): frames "
		      "print raw"));
	CHECK(line_is(&lines, 2, frame_line(expected, 0x100, "")));
	CHECK(line_is(&lines, 3, frame_line(expected, 0x500, " (frame-pointer)")));
	CHECK(line_is(&lines, 9, "End of trace: reached the outermost frame"));
	lines.count = 0;
	CHECK(tracer_print_backtrace(&s.config, &s.regs, TRACER_UNWINDER_COUNT, collect,
				     &lines) == TRACER_STOP_BAD_UNWINDER);
	CHECK(lines.count == 3);
	CHECK(line_is(&lines, 0, "Call Trace (unknown unwinder):"));
	CHECK(line_is(&lines, 2, "End of trace: unknown unwinder"));
	fake_stack_free(&s);
}

/* sepc, scause and stval not in the trap frame: the innermost trap frame
 * takes them from config.trap_csrs (the slots hold decoys), and without
 * them the walk ends at that trap frame. */
void kit_trap_csrs_not_saved(void)
{
	struct fake_stack s;
	struct tracer_trap_csrs csrs;
	uintptr_t tf;

	fake_stack_init(&s);
	build_trap(&s);
	tf = fake_addr(&s, TF);
	fake_put(&s, tf + TF_EPC * WORD, text(0x610));
	fake_put(&s, tf + TF_CAUSE * WORD, 13);
	fake_put(&s, tf + TF_TVAL * WORD, 0x20);
	s.trap.epc_offset = TRACER_TRAP_NOT_SAVED;
	s.trap.cause_offset = TRACER_TRAP_NOT_SAVED;
	s.trap.tval_offset = TRACER_TRAP_NOT_SAVED;
	csrs.epc = text(0x600);
	csrs.cause = 5;
	csrs.tval = 0x10;
	s.config.trap_csrs = &csrs;
	for (size_t i = 0; i < 2; i++) {
		CHECK(walk_is_complete(&s, fake_walk_with(&s, walkers[i])));
		CHECK(s.frames[3].trap_cause == 5 && s.frames[3].trap_tval == 0x10);
	}
	/* Saved ones are read from the frame, even with CSRs given. */
	s.trap.cause_offset = TF_CAUSE * WORD;
	CHECK(walk_is_complete(&s, fake_walk(&s)) && s.frames[3].trap_cause == 13);
	/* Any one of them missing, and no CSRs: the walk ends at the trap. */
	s.config.trap_csrs = NULL;
	CHECK(fake_walk(&s) == 3 && s.stop == TRACER_STOP_TRAP_NOT_SAVED);
	s.trap.epc_offset = TF_EPC * WORD;
	CHECK(fake_walk(&s) == 3 && s.stop == TRACER_STOP_TRAP_NOT_SAVED);
	s.trap.tval_offset = TF_TVAL * WORD;
	CHECK(fake_walk(&s) == 6 && s.frames[3].pc == text(0x610));
	CHECK(strcmp(tracer_stop_text(TRACER_STOP_TRAP_NOT_SAVED),
		     "trap frame holds no saved sepc/scause/stval") == 0);
	/* An M-mode layout names M-mode's CSRs. */
	s.trap.tval_offset = TRACER_TRAP_NOT_SAVED;
	s.trap.mode = TRACER_TRAP_MACHINE;
	CHECK(fake_walk(&s) == 3 && s.stop == TRACER_STOP_MACHINE_TRAP_NOT_SAVED);
	CHECK(strcmp(tracer_stop_text(TRACER_STOP_MACHINE_TRAP_NOT_SAVED),
		     "trap frame holds no saved mepc/mcause/mtval") == 0);
	fake_stack_free(&s);
}

/*
 * Two trap frames: the interrupted code of the first (sp 296, fp 300) is
 * itself a handler the trap entry called, whose trap frame is at word 300
 * (its record below it). The CSRs given are the first's only: the second,
 * without a saved sepc, ends the walk.
 */
void kit_trap_csrs_innermost_only(void)
{
	struct fake_stack s;
	struct tracer_trap_csrs csrs = {0, 5, 0x10};
	uintptr_t tf2;

	fake_stack_init(&s);
	build_trap(&s);
	tf2 = fake_addr(&s, 300);
	fake_record(&s, tf2, fake_addr(&s, 400), FAKE_ENTRY_START + 0x40);
	fake_put(&s, tf2 + TF_EPC * WORD, text(0x620));
	fake_put(&s, tf2 + TF_RA * WORD, text(0x704));
	fake_put(&s, tf2 + TF_SP * WORD, fake_addr(&s, 396));
	fake_put(&s, tf2 + TF_S0 * WORD, fake_addr(&s, 400));
	fake_put(&s, tf2 + TF_CAUSE * WORD, 7);
	s.range.end = fake_addr(&s, 400);
	/* Every CSR saved: both trap frames are crossed. */
	CHECK(fake_walk(&s) == 7 && s.stop == TRACER_STOP_OUTERMOST);
	CHECK(s.frames[4].pc == FAKE_ENTRY_START + 0x40 && s.frames[5].after_trap);
	CHECK(s.frames[5].pc == text(0x620) && s.frames[5].trap_cause == 7);
	s.trap.epc_offset = TRACER_TRAP_NOT_SAVED;
	csrs.epc = text(0x600);
	s.config.trap_csrs = &csrs;
	CHECK(fake_walk(&s) == 5 && s.stop == TRACER_STOP_TRAP_NOT_SAVED);
	CHECK(s.frames[3].pc == text(0x600) && s.frames[3].after_trap);
	fake_stack_free(&s);
}

/* A vector that stores sp after taking its frame: the interrupted sp is
 * the trap frame's address plus frame_size (the sp slot holds a decoy). */
void kit_trap_sp_from_frame_size(void)
{
	struct fake_stack s;

	fake_stack_init(&s);
	build_trap(&s);
	fake_put(&s, fake_addr(&s, TF) + TF_SP * WORD, fake_addr(&s, TF));
	s.trap.sp_offset = TRACER_TRAP_NOT_SAVED;
	s.trap.frame_size = (296 - TF) * WORD;
	CHECK(walk_is_complete(&s, fake_walk(&s)));
	CHECK(walk_is_complete(&s, fake_walk_with(&s, TRACER_AUTO)));
	/* No frame taken: the interrupted sp would be the trap frame's. */
	s.trap.frame_size = 0;
	CHECK(fake_walk(&s) == 3 && s.stop == TRACER_STOP_NOT_ASCENDING);
	fake_stack_free(&s);
}

/* A trap frame whose sstatus.SPP is clear came from user mode: its pc is
 * shown after the trap line, whatever its sp, and the walk ends there. */
void kit_trap_from_user_mode(void)
{
	struct fake_stack s;
	struct lines lines = {0};
	uintptr_t tf;

	fake_stack_init(&s);
	build_trap(&s);
	tf = fake_addr(&s, TF);
	s.trap.status_offset = TF_STATUS * WORD;
	fake_put(&s, tf + TF_STATUS * WORD, SSTATUS_SPP | 0x2);
	CHECK(walk_is_complete(&s, fake_walk(&s)));
	fake_put(&s, tf + TF_STATUS * WORD, ~(uintptr_t)SSTATUS_SPP);
	fake_put(&s, tf + TF_EPC * WORD, USER_PC);
	fake_put(&s, tf + TF_CAUSE * WORD, 8);
	for (size_t i = 0; i < 2; i++) {
		CHECK(fake_walk_with(&s, walkers[i]) == 4);
		CHECK(s.stop == TRACER_STOP_USER_ENTRY);
		CHECK(s.frames[3].after_trap && s.frames[3].pc == USER_PC);
	}
	/* A user sp below the trap frame, on the kernel's stack: no loop. */
	fake_put(&s, tf + TF_SP * WORD, fake_addr(&s, 96));
	CHECK(fake_walk(&s) == 4 && s.stop == TRACER_STOP_USER_ENTRY);
	CHECK(tracer_print_backtrace(&s.config, &s.regs, TRACER_FRAME_POINTER, collect,
				     &lines) == TRACER_STOP_USER_ENTRY);
	CHECK(lines.count == 7);
	CHECK(line_is(&lines, 4,
		      "--- trap: environment call from U-mode "
		      "sepc=0x0000000000010000 stval=0x0000000000000010 ---"));
	CHECK(line_is(&lines, 5, " [<0x0000000000010000>]"));
	CHECK(
	    line_is(&lines, 6, "End of trace: reached the kernel entry from user mode"));
	/* sstatus unreadable: the trap frame is not on the stack. */
	s.trap.status_offset = (uint16_t)(FAKE_STACK_WORDS * WORD);
	CHECK(fake_walk(&s) == 3 && s.stop == TRACER_STOP_OUTSIDE_STACK);
	fake_stack_free(&s);
}

/* A frame whose code lies in an entry point is shown, and ends the walk:
 * its "caller" would be user values. The first frame too, with every
 * unwinder; entries past the count, or past TRACER_MAX_ENTRY_POINTS, and
 * empty ones are not declared. */
void kit_entry_point_ends_walk(void)
{
	struct fake_stack s;
	struct tracer_range entries[TRACER_MAX_ENTRY_POINTS + 1];

	fake_stack_init(&s);
	build_trap(&s);
	memset(entries, 0, sizeof(entries));
	s.config.entry_points = entries;
	s.config.entry_point_count = TRACER_MAX_ENTRY_POINTS + 1;
	entries[TRACER_MAX_ENTRY_POINTS] =
	    (struct tracer_range){text(0x480), text(0x580)};
	CHECK(walk_is_complete(&s, fake_walk(&s)));
	entries[TRACER_MAX_ENTRY_POINTS - 1] = entries[TRACER_MAX_ENTRY_POINTS];
	for (size_t i = 0; i < 2; i++) {
		CHECK(fake_walk_with(&s, walkers[i]) == 2);
		CHECK(s.stop == TRACER_STOP_USER_ENTRY && s.frames[1].pc == text(0x500));
	}
	s.config.entry_point_count = TRACER_MAX_ENTRY_POINTS - 1;
	CHECK(walk_is_complete(&s, fake_walk(&s)));
	s.config.entry_points = NULL;
	s.config.entry_point_count = 1;
	CHECK(walk_is_complete(&s, fake_walk(&s)));
	/* A return address is looked up at its call: 0x500 - 1. */
	s.config.entry_points = entries;
	entries[0] = (struct tracer_range){text(0x500), text(0x580)};
	CHECK(walk_is_complete(&s, fake_walk(&s)));
	entries[0] = (struct tracer_range){text(0x400), text(0x500)};
	CHECK(fake_walk(&s) == 2 && s.stop == TRACER_STOP_USER_ENTRY);
	/* The interrupted frame of a trap, and the first frame (exact pcs:
	 * looked up as they are), whatever the unwinder. */
	entries[0] = (struct tracer_range){text(0x600), text(0x601)};
	CHECK(fake_walk(&s) == 4 && s.stop == TRACER_STOP_USER_ENTRY);
	entries[0] = (struct tracer_range){text(0x100), text(0x102)};
	for (int unwinder = 0; unwinder < TRACER_UNWINDER_COUNT; unwinder++) {
		CHECK(fake_walk_with(&s, (enum tracer_unwinder)unwinder) == 1);
		CHECK(s.stop == TRACER_STOP_USER_ENTRY);
	}
	CHECK(strcmp(tracer_stop_text(TRACER_STOP_USER_ENTRY),
		     "reached the kernel entry from user mode") == 0);
	fake_stack_free(&s);
}

/*
 * The frame-pointer unwinder's capture loop honours entry points, as its
 * step does: frames whose return addresses follow `jal ra`, 0x100 <- 0x504
 * <- 0x604 <- 0x704 at the top. The entry point
 * holds the call before 0x504; what its frame record holds, a user program
 * may have forged as a valid kernel frame: it must not be followed.
 */
void kit_entry_point_fast_path(void)
{
	struct fake_stack s;
	struct tracer_range entries[2] = {{0, 0}, {0, 0}};

	fake_stack_init(&s);
	fake_text_put32(&s, text(0x500), JAL_RA);
	fake_text_put32(&s, text(0x600), JAL_RA);
	fake_text_put32(&s, text(0x700), JAL_RA);
	fake_record(&s, fake_addr(&s, 100), fake_addr(&s, 200), text(0x504));
	fake_record(&s, fake_addr(&s, 200), fake_addr(&s, 300), text(0x604));
	fake_record(&s, fake_addr(&s, 300), 0, text(0x704));
	s.range.end = fake_addr(&s, 300);
	s.regs.pc = text(0x100);
	s.regs.sp = fake_addr(&s, 90);
	s.regs.s[0] = fake_addr(&s, 100);
	CHECK(fake_walk(&s) == 4 && s.stop == TRACER_STOP_OUTERMOST);
	s.config.entry_points = entries;
	s.config.entry_point_count = 2;
	/* Entry points around the frames, not holding them: the walk goes on. */
	entries[0] = (struct tracer_range){text(0x000), text(0x010)};
	entries[1] = (struct tracer_range){text(0xf00), text(0xf10)};
	CHECK(fake_walk(&s) == 4 && s.stop == TRACER_STOP_OUTERMOST);
	entries[1] = (struct tracer_range){text(0x480), text(0x580)};
	CHECK(fake_walk(&s) == 2 && s.stop == TRACER_STOP_USER_ENTRY);
	CHECK(s.frames[1].pc == text(0x504));
	/* Alone, and with a trap entry elsewhere. */
	entries[0] = entries[1];
	CHECK(fake_walk(&s) == 2 && s.stop == TRACER_STOP_USER_ENTRY);
	fake_enable_traps(&s);
	CHECK(fake_walk(&s) == 2 && s.stop == TRACER_STOP_USER_ENTRY);
	fake_stack_free(&s);
}

static bool range_is(struct tracer_range range, uintptr_t start, uintptr_t end)
{
	return range.start == start && range.end == end;
}

/* A function's range for code without an end symbol: add_symbols' sizes,
 * from any address inside; empty at the address in a gap, past the last
 * function, and with a table the walk would reject. Checked as a walk
 * checks: a damaged block of symbols[] empties the ranges it holds, not the
 * others (handler's entry lies in the first block, outer's in the second:
 * 16-byte entries, 64-byte blocks). */
void kit_function_range(void)
{
	struct fake_stack s;
	struct symbols t;

	fake_stack_init(&s);
	add_symbols(&s, &t);
	CHECK(range_is(tracer_function_range(&s.config, text(0x500)), text(0x480),
		       text(0x580)));
	CHECK(range_is(tracer_function_range(&s.config, text(0x000)), text(0x000),
		       text(0x200)));
	CHECK(range_is(tracer_function_range(&s.config, text(0x7ff)), text(0x700),
		       text(0x800)));
	CHECK(range_is(tracer_function_range(&s.config, text(0x90f)), text(0x900),
		       text(0x910)));
	CHECK(range_is(tracer_function_range(&s.config, text(0x200)), text(0x200),
		       text(0x200)));
	CHECK(range_is(tracer_function_range(&s.config, text(0x910)), text(0x910),
		       text(0x910)));
	t.symtab.checksum ^= 1;
	CHECK(range_is(tracer_function_range(&s.config, text(0x500)), text(0x500),
		       text(0x500)));
	t.symtab.checksum ^= 1;
	CHECK(1 * sizeof(struct tracer_symbol) / TRACER_HASH_BLOCK == 0 &&
	      4 * sizeof(struct tracer_symbol) / TRACER_HASH_BLOCK == 1);
	t.symbol[4].size ^= 1;
	CHECK(range_is(tracer_function_range(&s.config, text(0x908)), text(0x908),
		       text(0x908)));
	CHECK(range_is(tracer_function_range(&s.config, text(0x500)), text(0x480),
		       text(0x580)));
	t.symbol[4].size ^= 1;
	t.symbol[1].size ^= 1;
	CHECK(range_is(tracer_function_range(&s.config, text(0x500)), text(0x500),
		       text(0x500)));
	CHECK(range_is(tracer_function_range(&s.config, text(0x908)), text(0x900),
		       text(0x910)));
	t.symbol[1].size ^= 1;
	s.config.tables.start = (uintptr_t)&t.symtab + 1;
	CHECK(range_is(tracer_function_range(&s.config, text(0x500)), text(0x500),
		       text(0x500)));
	s.config.symtab = NULL;
	CHECK(range_is(tracer_function_range(&s.config, text(0x500)), text(0x500),
		       text(0x500)));
	fake_stack_free(&s);
}

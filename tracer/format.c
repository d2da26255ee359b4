/*
 * format.c - the output lines, Linux-style so that existing tools (scripts
 * that run addr2line on " [<addr>] name+off/size" lines) keep working.
 * No libc: a bounded string builder that truncates instead of overflowing.
 */
#include <stdarg.h>

#include "walk.h"

/* The builders are out of line: printing is no hot path. */
TRACER_COLD static __attribute__((noinline)) void put_char(struct line *line, char c)
{
	if (line->len + 1 < line->size) {
		line->buf[line->len++] = c;
		line->buf[line->len] = '\0';
	}
}

TRACER_COLD static void put_str(struct line *line, const char *s)
{
	while (*s)
		put_char(line, *s++);
}

/* Digits of `value` in `base` (16 or 10), zero-padded to at least
 * min_digits (at most a word's hex digits), most significant first: the
 * largest power of the base they need, then a digit per power. No buffer:
 * this runs at the deepest point of the print path's stack. scale * base
 * cannot overflow: it stays at most value, or below base^min_digits. */
TRACER_COLD static __attribute__((noinline)) void
put_digits(struct line *line, uintptr_t value, unsigned base, unsigned min_digits)
{
	uintptr_t scale = 1;

	for (unsigned n = 1; value / scale >= base || n < min_digits; n++)
		scale *= base;
	for (; scale > 0; scale /= base)
		put_char(line, "0123456789abcdef"[value / scale % base]);
}

TRACER_COLD __attribute__((noinline)) void format_add(struct line *line, const char *fmt,
						      ...)
{
	va_list args;

	va_start(args, fmt);
	for (; *fmt != '\0'; fmt++) {
		if (*fmt != '%') {
			put_char(line, *fmt);
			continue;
		}
		switch (*++fmt) {
		case 's':
			put_str(line, va_arg(args, const char *));
			break;
		case 'a':
			put_str(line, "0x");
			put_digits(line, va_arg(args, uintptr_t), 16, ADDR_DIGITS);
			break;
		case 'x':
			put_str(line, "0x");
			put_digits(line, va_arg(args, uintptr_t), 16, 1);
			break;
		case 'r':
			put_digits(line, va_arg(args, uintptr_t), 16, ADDR_DIGITS);
			break;
		case 'h':
			put_digits(line, va_arg(args, unsigned), 16, 4);
			break;
		case 'u':
			put_digits(line, va_arg(args, unsigned), 10, 1);
			break;
		default: /* only the conversions above are ever written */
			va_end(args);
			return;
		}
	}
	va_end(args);
}

/* Whether " (file:line)" fits in what is left of the line. */
TRACER_COLD static bool fits(const struct line *line, const char *file, uint32_t number)
{
	size_t length = sizeof(" (:)") - 1 + 1;

	while (*file++)
		length++;
	for (; number >= 10; number /= 10)
		length++;
	return line->len + length < line->size;
}

TRACER_COLD char *tracer_format_frame(char *buf, size_t size,
				      const struct tracer_frame *frame)
{
	struct line line = format_line_begin(buf, size);

	/* An inlined call has no address of its own: a line without one,
	 * which decode_stacktrace.sh passes through as it is. */
	if (TRACER_LINKS_LINES && frame->inlined)
		format_add(&line, " [inlined] %s", frame->name ? frame->name : "??");
	else
		format_add(&line, " [<%a>]", frame->pc);
	/* Before the symbol, as Linux puts its " ? " mark: decode_stacktrace.sh
	 * takes a frame line's last word as the symbol. */
	if (frame->found_by_fallback && !frame->inlined)
		format_add(&line, " (%s)", tracer_unwinder_name(frame->found_by));
	if (frame->name && !frame->inlined)
		format_add(&line, " %s+%x/%x", frame->name, frame->offset, frame->size);
	/* Where Linux's CONFIG_KALLSYMS_LINEINFO puts it; whole or not at
	 * all: a place cut short would name another line. */
	if (TRACER_LINKS_LINES && frame->file && fits(&line, frame->file, frame->line))
		format_add(&line, " (%s:%u)", frame->file, (unsigned)frame->line);
	return buf;
}

TRACER_COLD char *tracer_format_trap(char *buf, size_t size,
				     const struct tracer_frame *frame)
{
	struct line line = format_line_begin(buf, size);
	const char *mode = frame->trap_machine_mode ? "m" : "s";

	format_add(&line, "--- trap: %s %sepc=%a %stval=%a ---",
		   tracer_trap_cause_name(frame->trap_cause), mode, frame->pc, mode,
		   frame->trap_tval);
	return buf;
}

TRACER_COLD char *tracer_format_header(char *buf, size_t size,
				       enum tracer_unwinder unwinder)
{
	struct line line = format_line_begin(buf, size);

	format_add(&line, "Call Trace (%s unwinder):", tracer_unwinder_name(unwinder));
	return buf;
}

TRACER_COLD char *tracer_format_end(char *buf, size_t size, enum tracer_stop stop)
{
	struct line line = format_line_begin(buf, size);

	format_add(&line, "End of trace: %s", tracer_stop_text(stop));
	return buf;
}

/* "<table> rejected (<why>): <consequence>", if it was and is not yet
 * noted (bit `bit` of walk->noted); returns whether. */
TRACER_COLD static bool put_table_note(struct line *line, bool after_another,
				       struct walk *walk, unsigned bit, const char *table,
				       enum tracer_table_status status,
				       const char *consequence)
{
	if (status == TRACER_TABLE_OK || status == TRACER_TABLE_ABSENT ||
	    (walk->noted & bit))
		return false;
	walk->noted |= bit;
	format_add(line, "%s%s rejected (%s): %s", after_another ? "; " : "Note: ", table,
		   tracer_table_status_text(status), consequence);
	return true;
}

TRACER_COLD char *tracer_format_note(char *buf, size_t size,
				     struct tracer_walk *caller_walk)
{
	struct walk *walk = walk_of(caller_walk);
	struct line line = format_line_begin(buf, size);
	bool noted = TRACER_LINKS_SYMBOLS &&
		     put_table_note(&line, false, walk, 1, "symbol table",
				    walk->symtab_status, "frames print raw");

	/* The tables of an unwinder not linked are never read. */
	if (TRACER_LINKS_DWARF)
		noted |= put_table_note(&line, noted, walk, 2, "FDE index",
					walk->fde_index_status, "no DWARF unwinding");
	if (TRACER_LINKS_TABLE)
		noted |= put_table_note(&line, noted, walk, 4, "unwind table",
					walk->unwind_table_status, "no table unwinding");
	if (TRACER_LINKS_DWARF)
		noted |= put_table_note(&line, noted, walk, 8, ".eh_frame",
					walk->eh_frame_status, "no DWARF unwinding");
	if (TRACER_LINKS_LINES)
		noted |=
		    put_table_note(&line, noted, walk, 16, "line table",
				   walk->lines_status, "frames print without file:line");
	return noted ? buf : NULL;
}

TRACER_COLD const char *tracer_table_status_text(enum tracer_table_status status)
{
	static const char *const texts[] = {
	    [TRACER_TABLE_OK] = "valid",
	    [TRACER_TABLE_ABSENT] = "absent",
	    [TRACER_TABLE_OUTSIDE] = "outside the declared table memory",
	    [TRACER_TABLE_MALFORMED] = "malformed header or entries",
	    [TRACER_TABLE_BAD_CHECKSUM] = "checksum mismatch",
	};

	return (unsigned)status < sizeof(texts) / sizeof(texts[0]) ? texts[status]
								   : "unknown status";
}

TRACER_COLD const char *tracer_stop_text(enum tracer_stop stop)
{
	static const char *const texts[TRACER_STOP_COUNT] = {
	    [TRACER_RUNNING] = "walk still running",
	    [TRACER_STOP_OUTERMOST] = "reached the outermost frame",
	    [TRACER_STOP_OUTSIDE_STACK] = "frame outside the stack",
	    [TRACER_STOP_MISALIGNED] = "misaligned frame pointer",
	    [TRACER_STOP_NOT_ASCENDING] =
		"frame not above the previous one (loop or corrupt stack)",
	    [TRACER_STOP_PC_OUTSIDE_TEXT] = "return address outside kernel text",
	    [TRACER_STOP_DEPTH_LIMIT] = "depth limit reached",
	    [TRACER_STOP_BAD_UNWINDER] = "unknown unwinder",
	    [TRACER_STOP_NO_CFI] = "no call-frame information for the pc",
	    [TRACER_STOP_BAD_CFI] = "malformed call-frame information",
	    [TRACER_STOP_UNSUPPORTED_CFI] = "unsupported call-frame information",
	    [TRACER_STOP_NO_SYMBOL] = "pc in no function of the symbol table",
	    [TRACER_STOP_UNKNOWN_CODE] = "code the prologue decoder cannot follow",
	    [TRACER_STOP_RA_NOT_SAVED] = "caller's frame saved no return address",
	    [TRACER_STOP_NOT_A_CALL] = "return address does not follow a call",
	    [TRACER_STOP_FP_ZERO] = "frame pointer is zero before the top of the stack",
	    [TRACER_STOP_EARLY_OUTERMOST] =
		"outermost frame claimed below the top of the stack",
	    [TRACER_STOP_BAD_SYMTAB] = "symbol table rejected",
	    [TRACER_STOP_BAD_FDE_INDEX] = "FDE index rejected",
	    [TRACER_STOP_BAD_UNWIND_TABLE] = "unwind table rejected",
	    [TRACER_STOP_USER_ENTRY] = "reached the kernel entry from user mode",
	    [TRACER_STOP_TRAP_NOT_SAVED] = "trap frame holds no saved sepc/scause/stval",
	    [TRACER_STOP_BAD_EH_FRAME] = ".eh_frame rejected",
	    [TRACER_STOP_FRAME_SIZE] = "frame pointer disagrees with the frame size",
	    [TRACER_STOP_NOT_LINKED] = "unwinder not linked into this kernel",
	    [TRACER_STOP_MACHINE_TRAP_NOT_SAVED] =
		"trap frame holds no saved mepc/mcause/mtval",
	};

	return (unsigned)stop < TRACER_STOP_COUNT ? texts[stop] : "unknown stop reason";
}

TRACER_COLD const char *tracer_unwinder_name(enum tracer_unwinder unwinder)
{
	static const char *const names[TRACER_UNWINDER_COUNT] = {
	    [TRACER_FRAME_POINTER] = "frame-pointer",
	    [TRACER_DWARF] = "dwarf",
	    [TRACER_PROLOGUE] = "prologue",
	    [TRACER_AUTO] = "auto",
	    [TRACER_TABLE] = "table",
	};

	return (unsigned)unwinder < TRACER_UNWINDER_COUNT ? names[unwinder] : "unknown";
}

/* scause and mcause values from the RISC-V privileged specification (tables
 * "Supervisor cause register values after trap" and "Machine cause register
 * values after trap"; scause never holds the machine-level interrupts). The
 * top bit marks interrupts. */
TRACER_COLD const char *tracer_trap_cause_name(uintptr_t cause)
{
	static const char *const exceptions[] = {
	    "instruction address misaligned",
	    "instruction access fault",
	    "illegal instruction",
	    "breakpoint",
	    "load address misaligned",
	    "load access fault",
	    "store/AMO address misaligned",
	    "store/AMO access fault",
	    "environment call from U-mode",
	    "environment call from S-mode",
	    "reserved exception 10",
	    "environment call from M-mode",
	    "instruction page fault",
	    "load page fault",
	    "reserved exception 14",
	    "store/AMO page fault",
	};
	const uintptr_t interrupt_bit = (uintptr_t)1 << (8 * sizeof(uintptr_t) - 1);
	uintptr_t code = cause & ~interrupt_bit;

	if (cause & interrupt_bit) {
		switch (code) {
		case 1:
			return "supervisor software interrupt";
		case 3:
			return "machine software interrupt";
		case 5:
			return "supervisor timer interrupt";
		case 7:
			return "machine timer interrupt";
		case 9:
			return "supervisor external interrupt";
		case 11:
			return "machine external interrupt";
		default:
			return "unknown interrupt";
		}
	}
	return code < sizeof(exceptions) / sizeof(exceptions[0]) ? exceptions[code]
								 : "unknown exception";
}

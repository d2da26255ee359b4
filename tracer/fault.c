/*
 * fault.c - the fault report (tracer_format_fault()): the registers of a
 * trap frame as Linux's riscv __show_regs() prints them, and the code
 * around the pc as its dump_kernel_instr() does, from the trap layout the
 * port declares. Optional: a kernel built without it (TRACER_FAULT_REPORT=no
 * in symgen/tracer_sources.mk, TRACER_LINKS_FAULT_REPORT 0) leaves its code
 * out, and tracer_print_backtrace() prints no report.
 */
#include "cursor.h"
#include "walk.h"

/* The registers of a trap frame the report prints, in its order, three a
 * line, with Linux's labels: epc comes from the frame (the walk read it,
 * or took config->trap_csrs), the others from the trap frame. */
#define FAULT_GPRS 15u
#define FAULT_EPC  0u
#define FAULT_RA   1u
#define FAULT_SP   2u
#define FAULT_S0   3u

static const char *const fault_labels[FAULT_GPRS] = {
    "epc : ", " ra : ", " sp : ", " s0 : ", " s1 : ", " s2 : ", " s3 : ", " s4 : ",
    " s5 : ", " s6 : ", " s7 : ", " s8 : ", " s9 : ", " s10: ", " s11: ",
};

/* The trap frame's word at `offset` into *value, if the layout saves it
 * and it lies on a declared stack. */
TRACER_COLD static __attribute__((noinline)) bool
fault_word(const struct tracer_config *config, uintptr_t trap_frame, uint16_t offset,
	   uintptr_t *value)
{
	unsigned count = config->stacks ? config->stack_count : 0;

	if (offset == TRACER_TRAP_NOT_SAVED)
		return false;
	if (count > TRACER_MAX_STACKS)
		count = TRACER_MAX_STACKS;
	for (unsigned i = 0; i < count; i++)
		if (memory_read_word(&config->stacks[i], trap_frame + offset, value))
			return true;
	return false;
}

/* "Code: " and the parcels around the pc, 10 before it and 2 from it, as
 * Linux's riscv dump_kernel_instr() takes them, less those outside text;
 * false if the pc's own parcel is not in text. Inline: a frame of its own
 * would sit under format_add()'s, at the print path's deepest point
 * (TRACER_STACK_PRINT). */
#define CODE_PARCELS_BEFORE 10u
#define CODE_PARCELS_FROM   2u

static inline __attribute__((always_inline)) bool
put_code(struct line *line, const struct tracer_config *config, uintptr_t pc)
{
	const struct tracer_range text = config->text;
	uintptr_t start = pc - text.start < 2 * CODE_PARCELS_BEFORE
			      ? text.start
			      : pc - 2 * CODE_PARCELS_BEFORE;
	uintptr_t end =
	    text.end - pc < 2 * CODE_PARCELS_FROM ? text.end : pc + 2 * CODE_PARCELS_FROM;
	struct memory_cursor code;

	if (pc % 2 != 0 || !range_contains(text, pc) || text.end - pc < 2)
		return false;
	/* An odd text start: the parcels from the first aligned one. */
	start += start % 2;
	code = memory_code_cursor(config, start, end - (end - start) % 2);
	if (code.failed)
		return false;
	format_add(line, "Code:");
	while (code.end - code.pos >= 2) {
		bool at_pc = code.pos == pc;
		uint16_t parcel = cursor_u16(&code);

		format_add(line, at_pc ? " <%h>" : " %h", (unsigned)parcel);
	}
	return true;
}

/* Register `i` of the report's order into *value, if known. */
TRACER_COLD static __attribute__((noinline)) bool
fault_register(const struct tracer_config *config, const struct tracer_frame *frame,
	       unsigned i, uintptr_t *value)
{
	const struct tracer_trap_layout *trap = config->trap;

	if (i == FAULT_EPC) {
		*value = frame->pc;
		return true;
	}
	return fault_word(config, frame->trap_frame,
			  i == FAULT_RA	  ? trap->ra_offset
			  : i == FAULT_SP ? trap->sp_offset
					  : trap->s_offset[i - FAULT_S0],
			  value);
}

/* Read again for each line, not kept: the panic path's stack is short. */
TRACER_COLD char *tracer_format_fault(char *buf, size_t size,
				      const struct tracer_config *config,
				      const struct tracer_frame *frame, unsigned index)
{
	struct line line = format_line_begin(buf, size);
	unsigned count = 0, register_lines;
	uintptr_t value;

	if (!frame->after_trap || !config->trap)
		return NULL;
	for (unsigned i = 0; i < FAULT_GPRS; i++)
		count += fault_register(config, frame, i, &value);
	/* Lines 0 .. register_lines - 1: the registers known, three a line
	 * (epc always is). */
	register_lines = (count + 2) / 3;
	if (index < register_lines) {
		for (unsigned i = 0, printed = 0; i < FAULT_GPRS; i++) {
			if (!fault_register(config, frame, i, &value))
				continue;
			if (printed++ / 3 == index)
				format_add(&line, "%s%r", fault_labels[i], value);
		}
		return buf;
	}
	if (index == register_lines) {
		if (fault_word(config, frame->trap_frame, config->trap->status_offset,
			       &value))
			format_add(&line, "status: %r ", value);
		format_add(&line, "badaddr: %r cause: %r", frame->trap_tval,
			   frame->trap_cause);
		return buf;
	}
	return index == register_lines + 1 && put_code(&line, config, frame->pc) ? buf
										 : NULL;
}

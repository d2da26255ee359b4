/*
 * test_fault.c - the fault report (tracer_format_fault()): a hand-made trap
 * frame, laid out as the demo kernel's (x1..x31 at their index, then sepc,
 * sstatus, scause, stval), and hand-made code. Expected lines are written
 * out by hand from docs/output-format.md (Linux's __show_regs() labels,
 * three a line; "Code:" with 10 parcels before the pc and 2 from it).
 */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "tracer.h"

#define WORD	     sizeof(uintptr_t)
#define FRAME_WORDS  36
#define CODE_PARCELS 16

struct fault_test {
	uintptr_t frame[FRAME_WORDS]; /* the trap frame */
	uint16_t code[CODE_PARCELS];  /* the text */
	struct tracer_range stack;
	struct tracer_trap_layout trap;
	struct tracer_config config;
	struct tracer_frame tracer_frame;
};

/* Registers with values told apart at a glance: s1 = 1, s2..s11 = 0x12..0x1b. */
static void build(struct fault_test *t)
{
	memset(t, 0, sizeof(*t));
	t->frame[1] = 0x80201250; /* ra */
	t->frame[2] = 0x80213f80; /* sp */
	t->frame[8] = 0x80213f90; /* s0 */
	t->frame[9] = 1;	  /* s1 */
	for (unsigned i = 18; i <= 27; i++)
		t->frame[i] = 0x12 + (i - 18); /* s2..s11 */
	t->frame[33] = 0x200000100;	       /* sstatus */
	for (unsigned i = 0; i < CODE_PARCELS; i++)
		t->code[i] = (uint16_t)(0x1100 + i);
	t->stack.start = (uintptr_t)t->frame;
	t->stack.end = (uintptr_t)(t->frame + FRAME_WORDS);
	t->trap.epc_offset = 32 * WORD;
	t->trap.ra_offset = 1 * WORD;
	t->trap.sp_offset = 2 * WORD;
	for (unsigned i = 0; i < 12; i++)
		t->trap.s_offset[i] = (uint16_t)((i < 2 ? 8 + i : 16 + i) * WORD);
	t->trap.status_offset = 33 * WORD;
	t->trap.cause_offset = 34 * WORD;
	t->trap.tval_offset = 35 * WORD;
	t->config.text.start = (uintptr_t)t->code;
	t->config.text.end = (uintptr_t)(t->code + CODE_PARCELS);
	t->config.stacks = &t->stack;
	t->config.stack_count = 1;
	t->config.trap = &t->trap;
	t->tracer_frame.after_trap = true;
	t->tracer_frame.pc = (uintptr_t)&t->code[12];
	t->tracer_frame.trap_frame = (uintptr_t)t->frame;
	t->tracer_frame.trap_cause = 0xd;
	t->tracer_frame.trap_tval = 0x18;
}

static bool line_is(struct fault_test *t, unsigned index, const char *expected)
{
	char line[TRACER_LINE_MAX];
	const char *got =
	    tracer_format_fault(line, sizeof(line), &t->config, &t->tracer_frame, index);

	if (got && strcmp(got, expected) != 0)
		printf("  line %u: \"%s\"\n  expected \"%s\"\n", index, got, expected);
	return got && strcmp(got, expected) == 0;
}

static bool no_line(struct fault_test *t, unsigned index)
{
	char line[TRACER_LINE_MAX];

	return tracer_format_fault(line, sizeof(line), &t->config, &t->tracer_frame,
				   index) == NULL;
}

void fault_report_lines(void)
{
	struct fault_test t;
	char epc[TRACER_LINE_MAX];

	build(&t);
	snprintf(epc, sizeof(epc),
		 "epc : %016lx ra : 0000000080201250 sp : 0000000080213f80",
		 (unsigned long)t.tracer_frame.pc);
	CHECK(line_is(&t, 0, epc));
	CHECK(line_is(
	    &t, 1, " s0 : 0000000080213f90 s1 : 0000000000000001 s2 : 0000000000000012"));
	CHECK(line_is(
	    &t, 2, " s3 : 0000000000000013 s4 : 0000000000000014 s5 : 0000000000000015"));
	CHECK(line_is(
	    &t, 3, " s6 : 0000000000000016 s7 : 0000000000000017 s8 : 0000000000000018"));
	CHECK(line_is(
	    &t, 4, " s9 : 0000000000000019 s10: 000000000000001a s11: 000000000000001b"));
	CHECK(line_is(&t, 5,
		      "status: 0000000200000100 badaddr: 0000000000000018 cause: "
		      "000000000000000d"));
	CHECK(line_is(&t, 6,
		      "Code: 1102 1103 1104 1105 1106 1107 1108 1109 110a 110b "
		      "<110c> 110d"));
	CHECK(no_line(&t, 7));
	CHECK(no_line(&t, 100));
}

/* The window stops at the ends of text; a pc outside it: no Code line. */
void fault_report_code_inside_text(void)
{
	struct fault_test t;

	build(&t);
	t.tracer_frame.pc = (uintptr_t)&t.code[3];
	CHECK(line_is(&t, 6, "Code: 1100 1101 1102 <1103> 1104"));
	t.tracer_frame.pc = (uintptr_t)&t.code[15];
	CHECK(line_is(&t, 6,
		      "Code: 1105 1106 1107 1108 1109 110a 110b 110c 110d 110e "
		      "<110f>"));
	t.tracer_frame.pc = (uintptr_t)&t.code[0];
	CHECK(line_is(&t, 6, "Code: <1100> 1101"));
	t.tracer_frame.pc = (uintptr_t)(t.code + CODE_PARCELS);
	CHECK(!no_line(&t, 5));
	CHECK(no_line(&t, 6));
	t.tracer_frame.pc = (uintptr_t)&t.code[4] + 1; /* odd */
	CHECK(no_line(&t, 6));
	t.tracer_frame.pc = (uintptr_t)t.code - 2;
	CHECK(no_line(&t, 6));
}

/* Slots the layout does not save, or that lie on no declared stack, are
 * left out; the others close up, three a line. */
void fault_report_unsaved_registers(void)
{
	struct fault_test t;
	char epc[TRACER_LINE_MAX];

	build(&t);
	t.trap.sp_offset = TRACER_TRAP_NOT_SAVED;
	t.trap.status_offset = TRACER_TRAP_NOT_SAVED;
	t.trap.s_offset[11] = 36 * WORD; /* one past the stack: s11 */
	snprintf(epc, sizeof(epc),
		 "epc : %016lx ra : 0000000080201250 s0 : 0000000080213f90",
		 (unsigned long)t.tracer_frame.pc);
	CHECK(line_is(&t, 0, epc));
	CHECK(line_is(
	    &t, 1, " s1 : 0000000000000001 s2 : 0000000000000012 s3 : 0000000000000013"));
	CHECK(line_is(
	    &t, 3, " s7 : 0000000000000017 s8 : 0000000000000018 s9 : 0000000000000019"));
	CHECK(line_is(&t, 4, " s10: 000000000000001a"));
	CHECK(line_is(&t, 5, "badaddr: 0000000000000018 cause: 000000000000000d"));
	CHECK(line_is(&t, 6,
		      "Code: 1102 1103 1104 1105 1106 1107 1108 1109 110a 110b "
		      "<110c> 110d"));
	CHECK(no_line(&t, 7));
}

/* No report for a frame that no trap interrupted, or without a layout. */
void fault_report_needs_a_trap(void)
{
	struct fault_test t;

	build(&t);
	t.tracer_frame.after_trap = false;
	CHECK(no_line(&t, 0));
	build(&t);
	t.config.trap = NULL;
	CHECK(no_line(&t, 0));
	/* A line cut at the buffer's end, never past it. */
	build(&t);
	{
		char line[8];

		CHECK(tracer_format_fault(line, sizeof(line), &t.config, &t.tracer_frame,
					  5) == line);
		CHECK(strcmp(line, "status:") == 0);
	}
}

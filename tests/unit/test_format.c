/*
 * test_format.c - the output lines. Expected strings are written out by hand
 * from the format in docs/output-format.md (Linux's " [<addr>] sym+off/size").
 */
#include <string.h>

#include "harness.h"
#include "tracer_tables.h"

static struct tracer_frame frame_at(uintptr_t pc)
{
	struct tracer_frame frame;

	memset(&frame, 0, sizeof(frame));
	frame.pc = pc;
	return frame;
}

void format_symbolized_frame(void)
{
	struct tracer_frame frame = frame_at(0x80201234);
	char line[TRACER_LINE_MAX];

	frame.name = "do_work";
	frame.offset = 0x1c;
	frame.size = 0x60;
	CHECK(strcmp(tracer_format_frame(line, sizeof(line), &frame),
		     " [<0x0000000080201234>] do_work+0x1c/0x60") == 0);
	frame.offset = 0;
	CHECK(strcmp(tracer_format_frame(line, sizeof(line), &frame),
		     " [<0x0000000080201234>] do_work+0x0/0x60") == 0);
}

void format_raw_frame(void)
{
	struct tracer_frame frame = frame_at(0xffffffffffffff00u);
	char line[TRACER_LINE_MAX];

	CHECK(strcmp(tracer_format_frame(line, sizeof(line), &frame),
		     " [<0xffffffffffffff00>]") == 0);
	frame.pc = 0;
	CHECK(strcmp(tracer_format_frame(line, sizeof(line), &frame),
		     " [<0x0000000000000000>]") == 0);
}

void format_trap_line(void)
{
	struct tracer_frame frame = frame_at(0x80200c96);
	char line[TRACER_LINE_MAX];

	frame.after_trap = true;
	frame.trap_cause = 5;
	frame.trap_tval = 0;
	CHECK(strcmp(tracer_format_trap(line, sizeof(line), &frame),
		     "--- trap: load access fault sepc=0x0000000080200c96 "
		     "stval=0x0000000000000000 ---") == 0);
	/* A machine-mode layout's trap: the M-mode CSRs. */
	frame.trap_machine_mode = true;
	frame.trap_cause = (uintptr_t)1 << (8 * sizeof(uintptr_t) - 1) | 7;
	frame.trap_tval = 0x10;
	CHECK(strcmp(tracer_format_trap(line, sizeof(line), &frame),
		     "--- trap: machine timer interrupt mepc=0x0000000080200c96 "
		     "mtval=0x0000000000000010 ---") == 0);
}

void format_header_and_end(void)
{
	char line[TRACER_LINE_MAX];

	CHECK(strcmp(tracer_format_header(line, sizeof(line), TRACER_FRAME_POINTER),
		     "Call Trace (frame-pointer unwinder):") == 0);
	CHECK(strcmp(tracer_format_end(line, sizeof(line), TRACER_STOP_OUTERMOST),
		     "End of trace: reached the outermost frame") == 0);
	CHECK(strcmp(tracer_stop_text(TRACER_STOP_COUNT), "unknown stop reason") == 0);
	for (int stop = 0; stop < TRACER_STOP_COUNT; stop++)
		CHECK(tracer_stop_text((enum tracer_stop)stop) != NULL);
}

/* Cause codes from the privileged spec's scause table. */
void format_trap_cause_names(void)
{
	const uintptr_t interrupt = (uintptr_t)1 << (8 * sizeof(uintptr_t) - 1);

	CHECK(strcmp(tracer_trap_cause_name(0), "instruction address misaligned") == 0);
	CHECK(strcmp(tracer_trap_cause_name(2), "illegal instruction") == 0);
	CHECK(strcmp(tracer_trap_cause_name(3), "breakpoint") == 0);
	CHECK(strcmp(tracer_trap_cause_name(7), "store/AMO access fault") == 0);
	CHECK(strcmp(tracer_trap_cause_name(13), "load page fault") == 0);
	CHECK(strcmp(tracer_trap_cause_name(15), "store/AMO page fault") == 0);
	CHECK(strcmp(tracer_trap_cause_name(16), "unknown exception") == 0);
	CHECK(strcmp(tracer_trap_cause_name(interrupt | 5),
		     "supervisor timer interrupt") == 0);
	CHECK(strcmp(tracer_trap_cause_name(interrupt | 2), "unknown interrupt") == 0);
	/* mcause's machine-level interrupts (scause never holds them). */
	CHECK(strcmp(tracer_trap_cause_name(interrupt | 3),
		     "machine software interrupt") == 0);
	CHECK(strcmp(tracer_trap_cause_name(interrupt | 7), "machine timer interrupt") ==
	      0);
	CHECK(strcmp(tracer_trap_cause_name(interrupt | 11),
		     "machine external interrupt") == 0);
	CHECK(strcmp(tracer_trap_cause_name(interrupt | 13), "unknown interrupt") == 0);
}

/* A short buffer truncates and stays NUL-terminated; an empty one is not
 * written. */
void format_truncates(void)
{
	struct tracer_frame frame = frame_at(0x80201234);
	char line[16];

	memset(line, 'x', sizeof(line));
	frame.name = "a_rather_long_function_name";
	tracer_format_frame(line, 10, &frame);
	CHECK(strlen(line) == 9);
	CHECK(strncmp(line, " [<0x0000", 9) == 0);
	CHECK(line[10] == 'x');
	/* Size 0: nothing written, not even a NUL. */
	memset(line, 'x', sizeof(line));
	tracer_format_frame(line, 0, &frame);
	tracer_format_header(line, 0, TRACER_FRAME_POINTER);
	CHECK(line[0] == 'x');
}

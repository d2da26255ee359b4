/*
 * print.c - the one-call printer: a whole trace through the iterator, line
 * by line to the kernel's output function, so that a panic handler needs
 * no loop of its own.
 */
#include "tracer.h"

/* Out of line: the walk's deepest paths do not carry its registers. */
__attribute__((cold)) static __attribute__((noinline)) void
print_fault_report(const struct tracer_config *config, const struct tracer_frame *frame,
		   char line[TRACER_LINE_MAX], tracer_put_line_fn *put_line,
		   void *context)
{
	for (unsigned i = 0; tracer_format_fault(line, TRACER_LINE_MAX, config, frame, i);
	     i++)
		put_line(context, line);
}

__attribute__((cold)) enum tracer_stop
tracer_print_backtrace(const struct tracer_config *config, const struct tracer_regs *regs,
		       enum tracer_unwinder unwinder, tracer_put_line_fn *put_line,
		       void *context)
{
	struct tracer_walk walk;
	struct tracer_frame frame;
	char line[TRACER_LINE_MAX];

	put_line(context, tracer_format_header(line, sizeof(line), unwinder));
	tracer_start(&walk, unwinder, config, regs);
	/* A table rejected at the start, or while the frame was found and
	 * symbolized: said before its line. */
	while (tracer_next(&walk, &frame)) {
		if (tracer_format_note(line, sizeof(line), &walk))
			put_line(context, line);
		if (frame.after_trap)
			put_line(context, tracer_format_trap(line, sizeof(line), &frame));
		/* An exception's registers and code: an interrupt's pc is
		 * merely where the code was. */
		if (TRACER_LINKS_FAULT_REPORT && frame.after_trap &&
		    config->fault_report && (intptr_t)frame.trap_cause >= 0)
			print_fault_report(config, &frame, line, put_line, context);
		put_line(context, tracer_format_frame(line, sizeof(line), &frame));
	}
	if (tracer_format_note(line, sizeof(line), &walk))
		put_line(context, line);
	put_line(context,
		 tracer_format_end(line, sizeof(line), tracer_stop_reason(&walk)));
	return tracer_stop_reason(&walk);
}

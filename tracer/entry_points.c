/*
 * entry_points.c - where walks end: code the kernel entered from user mode
 * by a jump (config->entry_points), whose frames hold user values where a
 * caller's would be, and the functions tasks start in (task_entries). The
 * trap frame of a trap from user mode is stacks.c's.
 */
#include "walk.h"

bool ranges_contain(const struct tracer_range *ranges, unsigned count, uintptr_t address)
{
	for (unsigned i = 0; i < count && i < TRACER_MAX_ENTRY_POINTS; i++)
		if (range_contains(ranges[i], address))
			return true;
	return false;
}

#if TRACER_LINKS_CAPTURE
/* The declared entry points looked at (tracer_config's rules). */
TRACER_COLD static unsigned entry_point_count(const struct tracer_config *config)
{
	unsigned count = config->entry_points ? config->entry_point_count : 0;

	return count < TRACER_MAX_ENTRY_POINTS ? count : TRACER_MAX_ENTRY_POINTS;
}

TRACER_COLD struct window entry_points_return_window(const struct tracer_config *config)
{
	struct tracer_range span =
	    config->trap ? config->trap->entry : (struct tracer_range){0, 0};
	unsigned count = entry_point_count(config);

	/* One window for the fast paths, over the trap entry and every entry
	 * point: a return address in it (its call just before) goes to the
	 * general path, which checks each exactly. */
	for (unsigned i = 0; i < count; i++) {
		struct tracer_range range = config->entry_points[i];

		if (range.start >= range.end)
			continue;
		if (span.start >= span.end) {
			span = range;
			continue;
		}
		if (range.start < span.start)
			span.start = range.start;
		if (range.end > span.end)
			span.end = range.end;
	}
	return memory_window(span, 1);
}
#endif

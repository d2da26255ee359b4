/*
 * lines.h - PROTOTYPE (issue 19, not in the image yet): the line table's
 * lookup, pc -> (file, line), over a table in the layout of line_format.h.
 */
#ifndef TRACER_LINES_H
#define TRACER_LINES_H

#include <stdbool.h>
#include <stdint.h>

#include "line_format.h"

struct tracer_line {
	uint32_t file; /* index in the table's files, 1 on (0 is "no line") */
	uint32_t line;
};

enum tracer_line_result {
	TRACER_LINE_FOUND,
	TRACER_LINE_NONE,    /* no row covers pc, or the row is an end */
	TRACER_LINE_CORRUPT, /* the table's contents do not hold */
};

/* Whether a table's header holds (its magic, version, counts and
 * parameters): once per walk, before any lookup. */
bool tracer_lines_valid(const struct tracer_lines *table);

/* The row in effect at pc in a table tracer_lines_valid() accepted: the
 * last that starts at or below it. */
enum tracer_line_result tracer_line_at(const struct tracer_lines *table, uintptr_t pc,
				       struct tracer_line *found);

#endif /* TRACER_LINES_H */

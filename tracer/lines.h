/*
 * lines.h - the line table's lookup: pc -> (file, line) and the innermost
 * inlined call there, then the chain of calls, over a table in the layout
 * of line_format.h. Shared by the walk (walk.c) and the host tools.
 */
#ifndef TRACER_LINES_H
#define TRACER_LINES_H

#include <stdbool.h>
#include <stdint.h>

#include "line_format.h"

struct tracer_line {
	uint32_t file; /* index in the table's files, 1 on (0 is "no line") */
	uint32_t line;
	uint32_t call; /* the innermost inlined call in effect, 1 on (0: none) */
};

/* An inlined call's record: the function inlined, and where it is called
 * from, inside its parent call (0: inside the function of the symbol). */
struct tracer_inline_call {
	uint32_t parent;
	uint32_t name; /* index in the table's names, 1 on (0: no name given) */
	uint32_t file; /* of the call, as tracer_line.file */
	uint32_t line; /* of the call (0: not given) */
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
 * last that starts at or below it. found->call is set for NONE too. */
enum tracer_line_result tracer_line_at(const struct tracer_lines *table, uintptr_t pc,
				       struct tracer_line *found);

/* The record of call (1 on) in a table tracer_lines_valid() accepted;
 * CORRUPT if there is none, or its parent is not below it: a chain that
 * follows parents ends, in at most call steps. */
enum tracer_line_result tracer_inline_call_at(const struct tracer_lines *table,
					      uint32_t call,
					      struct tracer_inline_call *found);

/* The name of file `file` (1 on) or of the inlined function `name` (1 on),
 * in a table whose arrays tracer_lines_check() accepted. */
static inline const char *tracer_lines_file(const struct tracer_lines *table,
					    uint32_t file)
{
	return table->strings + table->string_offsets[file - 1];
}

static inline const char *tracer_lines_name(const struct tracer_lines *table,
					    uint32_t name)
{
	return table->strings + table->string_offsets[table->file_count - 1 + name - 1];
}

#endif /* TRACER_LINES_H */

/*
 * line_table.h - PROTOTYPE (issue 19, not in the image yet): symgen's
 * encoder of the line table the tracer looks up (tracer/line_format.h),
 * from the rows of dwarf_lines.c.
 */
#ifndef SYMGEN_LINE_TABLE_H
#define SYMGEN_LINE_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "dwarf_lines.h"
#include "line_format.h"

/* Blocks of 28 bytes: the fewest that keep every test kernel within the
 * issue's 1.85 bytes per row (27 would, by 0.003), for the fewest rows a
 * lookup decodes (docs/line-table-plan.md). */
#define LINE_TABLE_BLOCK_BYTES 28u

/* The table, its arrays tracked blocks (die.h); header.base is the first
 * row's address and header's pointers point at the arrays. */
struct encoded_lines {
	struct tracer_lines header;
	uint16_t *group_block;
	uint8_t *page_block;
	uint8_t *stream;
};

/* Encodes rows (one per change of file and line, in order: the others are
 * dropped here) in blocks of block_bytes; dies naming path on what the
 * layout cannot hold. */
void line_table_encode(const char *path, const struct line_table *rows,
		       uint32_t block_bytes, struct encoded_lines *out);

/* The bytes the table takes in the image: its header, page map and stream
 * (not the file names, which are stored once each, apart). */
size_t line_table_bytes(const struct encoded_lines *table);

#endif /* SYMGEN_LINE_TABLE_H */

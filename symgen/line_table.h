/*
 * line_table.h - symgen's encoder of the line table the tracer looks up
 * (tracer/line_format.h), from the rows of dwarf_lines.c and the inlined
 * calls of dwarf_inlines.c.
 */
#ifndef SYMGEN_LINE_TABLE_H
#define SYMGEN_LINE_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "dwarf_inlines.h"
#include "dwarf_lines.h"
#include "line_format.h"

/* Blocks of 28 bytes: the fewest that keep every test kernel within the
 * issue's 1.85 bytes per row (27 would, by 0.003), for the fewest rows a
 * lookup decodes (docs/line-table-format.md). */
#define LINE_TABLE_BLOCK_BYTES 28u

/* The table, its arrays tracked blocks (die.h); header.base is the first
 * row's address and header's pointers point at the arrays (its checksum
 * and hashes are the writer's). names[n - 1] is name n of the records
 * (the inline table's names, stored once each); call_of[n - 1] is call
 * n's index in the inline_table encoded. */
struct encoded_lines {
	struct tracer_lines header;
	uint16_t *group_block;
	uint8_t *page_block;
	uint8_t *stream;
	uint8_t *records;
	const char **names;
	size_t *call_of;
	/* The files rows or calls name: file n is files[n - 1], and
	 * rows->files[i] is file file_map[i + 1] (0: named by none). */
	const char **files;
	size_t file_count;
	uint32_t *file_map;
	uint32_t *string_offsets;
	char *strings;
};

/* Encodes rows (one per change of file, line and, if inlines is not NULL,
 * innermost inlined call, in order: the others are dropped here) in blocks
 * of block_bytes, and the records of inlines' calls that have code; dies
 * naming path on what the layout cannot hold. */
void line_table_encode(const char *path, const struct line_table *rows,
		       const struct inline_table *inlines, uint32_t block_bytes,
		       struct encoded_lines *out);

/* The bytes the table takes in the image: its header, page map and stream
 * (not the file names, which are stored once each, apart). */
size_t line_table_bytes(const struct encoded_lines *table);

/* The bytes of the inline table's header fields, records and names: each
 * name once, with its terminator, and a 32-bit offset to it. */
size_t line_table_record_bytes(const struct encoded_lines *table);

#endif /* SYMGEN_LINE_TABLE_H */

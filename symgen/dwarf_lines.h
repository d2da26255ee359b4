/*
 * dwarf_lines.h - the line table of a linked image: for each address, the
 * source file and line the compiler recorded, read from every line program
 * of .debug_line (DWARF 2 to 5, section 6.2), as binutils' addr2line reads
 * them.
 */
#ifndef SYMGEN_DWARF_LINES_H
#define SYMGEN_DWARF_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elf.h"

/* From addr up to the next row's address, the code is of file:line; an
 * end row says that no line program covers the addresses from addr on. */
struct line_row {
	uint64_t addr;
	uint32_t file; /* index in line_table.files */
	uint32_t line; /* 0: code the compiler ties to no line */
	bool end;      /* DW_LNE_end_sequence: no row from here */
};

/* Which of the rows a sequence has at one address covers the code there. */
enum line_choice {
	LINE_CHOICE_ADDR2LINE, /* the last (binutils' addr2line) */
	/* the last that is a statement (is_stmt), if the last is not and one
	 * is; rows of line 0 dropped: as GDB 13's find_pc_line() (info line,
	 * bt) in all but the rows it merges on lines with discriminators */
	LINE_CHOICE_GDB,
};

/*
 * Rows sorted by address, one per address: where rows of a sequence share
 * an address, the one `choice` says. Files once each, by
 * name: the directory the compiler recorded joined to the name, relative
 * to the compilation directory when the program names it (DWARF 5's
 * directory 0, or DWARF 4's directory index 0), else as recorded.
 */
struct line_table {
	struct line_row *rows;
	size_t row_count;
	const char **files;
	size_t file_count;
	const char *problem; /* why there are no rows, if the image has lines */
};

/*
 * Reads the line program of every unit of elf's .debug_info (the sections
 * compressed with zlib or not); an image without them gives an empty
 * table, one whose .debug_info this reader does not know an empty table
 * and a problem. Dies with "malformed
 * .debug_line at offset 0x..." on anything out of bounds or inconsistent.
 * The arrays and names are tracked blocks (die.h).
 */
void dwarf_lines_read(const struct elf_file *elf, enum line_choice choice,
		      struct line_table *table);

/* The files of one line program's header, by number: names[n - first] is
 * file n, named as in line_table.files. */
struct line_files {
	const char **names;
	size_t count;
	unsigned first; /* the number of names[0]: 0 in DWARF 5, else 1 */
};

/*
 * The file tables of the line programs at offsets[0 .. count) of elf's
 * .debug_line (units' DW_AT_stmt_list), into files[0 .. count): what a
 * unit's DW_AT_decl_file and DW_AT_call_file count in. Dies as
 * dwarf_lines_read() does. The arrays and names are tracked blocks.
 */
void dwarf_line_files(const struct elf_file *elf, const uint64_t *offsets, size_t count,
		      struct line_files *files);

/* The row in effect at addr, or NULL if no program covers it. */
const struct line_row *dwarf_line_at(const struct line_table *table, uint64_t addr);

#endif /* SYMGEN_DWARF_LINES_H */

/*
 * line_rows.c - symgen's line table (symgen/dwarf_lines.c) of an image, for
 * the test against binutils' addr2line (tests/line_oracle.py).
 *
 *     line_rows ELF < addresses     one answer per address (hex, one a line):
 *                                   "ADDR FILE:LINE", or "ADDR ??:0" where no
 *                                   line program covers ADDR
 *     line_rows --rows ELF          the table: "ADDR FILE:LINE" per row,
 *                                   "ADDR end" per end of a sequence
 *
 * Of the rows a program gives one address, the table keeps the last, as
 * addr2line does; with --gdb before ELF, the one GDB's info line and bt
 * take (dwarf_lines.h).
 */
#include "die.h"
#include "dwarf_lines.h"
#include "elf.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static void print_row(const struct line_table *table, const struct line_row *row)
{
	printf("%s:%" PRIu32 "\n", table->files[row->file], row->line);
}

int main(int argc, char **argv)
{
	enum line_choice choice = LINE_CHOICE_ADDR2LINE;
	bool rows = false;
	struct elf_file elf;
	struct line_table table;
	char query[64];
	int arg = 1;

	die_program = "line_rows";
	for (; arg < argc - 1; arg++) {
		if (strcmp(argv[arg], "--rows") == 0)
			rows = true;
		else if (strcmp(argv[arg], "--gdb") == 0)
			choice = LINE_CHOICE_GDB;
		else
			break;
	}
	if (arg != argc - 1) {
		fprintf(stderr, "usage: line_rows [--rows] [--gdb] ELF [< addresses]\n");
		return 2;
	}
	elf_open(&elf, argv[arg]);
	dwarf_lines_read(&elf, choice, &table);
	if (table.problem)
		die(argv[argc - 1], "no line table: %s", table.problem);
	if (rows) {
		for (size_t i = 0; i < table.row_count; i++) {
			printf("%" PRIx64 " ", table.rows[i].addr);
			if (table.rows[i].end)
				printf("end\n");
			else
				print_row(&table, &table.rows[i]);
		}
		return 0;
	}
	while (fgets(query, sizeof(query), stdin)) {
		uint64_t addr;
		const struct line_row *row;

		if (sscanf(query, "%" SCNx64, &addr) != 1)
			die(argv[argc - 1], "not an address: %s", query);
		row = dwarf_line_at(&table, addr);
		printf("%" PRIx64 " ", addr);
		if (row)
			print_row(&table, row);
		else
			printf("??:0\n");
	}
	return 0;
}

/*
 * inline_rows.c - symgen's inlined calls (symgen/dwarf_inlines.c) of an
 * image, for tests/line_oracle.py (its differences with binutils' addr2line -i).
 *
 *     inline_rows ELF < addresses   one line per address (hex, one a line):
 *                                   "ADDR" then, for each inlined call at
 *                                   ADDR, innermost first, a tab and
 *                                   "OFFSET NAME FILE:LINE": its entry's
 *                                   offset in .debug_info, the inlined
 *                                   function and the file:line of its call
 *     inline_rows --calls ELF       every inlined call that has code: "OFFSET
 *                                   DEPTH RANGES NAME FILE:LINE" (its entry's
 *                                   offset in .debug_info, its nesting, the
 *                                   number of its address ranges)
 *
 * A name or file the debugging information does not give prints as "??".
 */
#include "die.h"
#include "dwarf_inlines.h"
#include "elf.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Longer chains than this are cut, with a warning: none is near it. */
#define MAX_CHAIN 64

static void print_call(const struct inline_call *call)
{
	printf("%s %s:%" PRIu32, call->name ? call->name : "??",
	       call->call_file ? call->call_file : "??", call->call_line);
}

static void print_calls(const struct inline_table *table)
{
	size_t *ranges =
	    tracked_alloc("inline_rows", table->call_count + 1, sizeof(*ranges));

	for (size_t i = 0; i < table->range_count; i++)
		ranges[table->ranges[i].call]++;
	for (size_t i = 0; i < table->call_count; i++) {
		if (ranges[i] == 0)
			continue;
		printf("%" PRIx64 " %u %zu ", table->calls[i].offset,
		       table->calls[i].depth, ranges[i]);
		print_call(&table->calls[i]);
		printf("\n");
	}
	tracked_free(ranges);
}

int main(int argc, char **argv)
{
	bool calls = false;
	struct elf_file elf;
	struct inline_table table;
	char query[64];
	int arg = 1;

	die_program = "inline_rows";
	if (arg < argc - 1 && strcmp(argv[arg], "--calls") == 0) {
		calls = true;
		arg++;
	}
	if (arg != argc - 1) {
		fprintf(stderr, "usage: inline_rows [--calls] ELF [< addresses]\n");
		return 2;
	}
	elf_open(&elf, argv[arg]);
	dwarf_inlines_read(&elf, &table);
	if (calls) {
		print_calls(&table);
		return 0;
	}
	while (fgets(query, sizeof(query), stdin)) {
		uint64_t addr;
		size_t chain[MAX_CHAIN], length;

		if (sscanf(query, "%" SCNx64, &addr) != 1)
			die(argv[arg], "not an address: %s", query);
		length = dwarf_inline_chain(&table, addr, chain, MAX_CHAIN);
		if (length > MAX_CHAIN)
			die(argv[arg], "0x%" PRIx64 ": %zu inlined calls, more than %d",
			    addr, length, MAX_CHAIN);
		printf("%" PRIx64, addr);
		for (size_t i = 0; i < length; i++) {
			printf("\t%" PRIx64 " ", table.calls[chain[i]].offset);
			print_call(&table.calls[chain[i]]);
		}
		printf("\n");
	}
	return 0;
}

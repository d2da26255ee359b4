/*
 * line_lookup.c - PROTOTYPE (issue 19): the tracer's line lookup
 * (tracer/lines.c) over symgen's encoding (symgen/line_table.c) of an
 * image's rows of GDB's choice and its inlined calls, against those rows
 * (symgen/dwarf_lines.c) and inlined calls (symgen/dwarf_inlines.c).
 *
 *     line_lookup [--block BYTES] ELF
 *         the sizes of the table without inlined calls (the line table
 *         alone) and with them, then the lookup in both at every address
 *         from each row to the next (64 KiB at most) and below the first:
 *         the file:line must equal the rows' answer (dwarf_line_at), and the
 *         chain of inlined calls (the call the lookup gives, then its
 *         records' parents) dwarf_inline_chain()'s, name, call file and call
 *         line of each; exit 1 if not
 *     line_lookup [--block BYTES] [--lines-alone] --emit-c OUT.c ELF < pcs
 *         also writes the table with inlined calls (with --lines-alone, the
 *         line table alone) and the pcs (hex, one a line) with the rows' and
 *         dwarf_inline_chain()'s answers (no chains with --lines-alone) as
 *         C, for the instruction count on RISC-V (tests/bench/line_bench.c)
 *     line_lookup --answers ELF < addresses
 *         the lookup's answer at each address (hex, one a line), for the
 *         oracle against addr2line -i (tests/line_oracle.py): a line
 *         "ADDR FILE:LINE" ("ADDR ??:0" where the table has no line), then,
 *         for each inlined call at ADDR, innermost first, a tab and "NAME
 *         CALLFILE:CALLLINE" ("??" for a name or file not given)
 *
 * The layout is tracer/line_format.h's, in blocks of BYTES bytes (default
 * LINE_TABLE_BLOCK_BYTES).
 */
#include "die.h"
#include "dwarf_inlines.h"
#include "dwarf_lines.h"
#include "elf.h"
#include "line_table.h"
#include "lines.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The rows' answer as the lookup gives it, files numbered as the encoded
 * table numbers them: file 0 for none. */
static struct tracer_line expected_at(const struct line_table *rows,
				      const struct encoded_lines *encoded,
				      uint64_t address)
{
	const struct line_row *row = dwarf_line_at(rows, address);
	struct tracer_line answer = {0, 0, 0};

	if (row) {
		answer.file = encoded->file_map[row->file + 1];
		answer.line = row->line;
	}
	return answer;
}

/* Chains longer than this are an error here: none is near it. */
#define MAX_CHAIN 64

static struct tracer_line lookup(const struct tracer_lines *table, uint64_t address)
{
	struct tracer_line answer = {0, 0, 0};
	enum tracer_line_result result =
	    tracer_line_at(table, (uintptr_t)address, &answer);

	if (result == TRACER_LINE_CORRUPT)
		die("line_lookup", "the lookup calls its own table corrupt at 0x%" PRIx64,
		    address);
	if (result == TRACER_LINE_NONE)
		answer = (struct tracer_line){0, 0, answer.call};
	return answer;
}

/* Whether the lookup's chain from call equals want[0 .. length) of
 * inlines->calls: the name, call file and call line of each. */
static bool same_chain(const struct encoded_lines *encoded,
		       const struct inline_table *inlines, uint32_t call,
		       const size_t *want, size_t length)
{
	for (size_t i = 0; i < length; i++) {
		const struct inline_call *expected = &inlines->calls[want[i]];
		struct tracer_inline_call record;
		const char *name, *file;

		if (call == 0 || tracer_inline_call_at(&encoded->header, call, &record) !=
				     TRACER_LINE_FOUND)
			return false;
		name = record.name ? encoded->names[record.name - 1] : NULL;
		file = record.file ? encoded->files[record.file - 1] : NULL;
		if ((name == NULL) != (expected->name == NULL) ||
		    (name && strcmp(name, expected->name) != 0) ||
		    (file == NULL) != (expected->call_file == NULL) ||
		    (file && strcmp(file, expected->call_file) != 0) ||
		    record.line != expected->call_line)
			return false;
		call = record.parent;
	}
	return call == 0;
}

/* The lookup at every address against the rows and, with inlines, the
 * inlined calls: the addresses checked; *differences those that differ. */
static size_t check(const struct line_table *rows, const struct inline_table *inlines,
		    const struct encoded_lines *encoded, size_t *differences)
{
	size_t checked = 0;

	*differences = 0;
	for (size_t i = 0; i < rows->row_count; i++) {
		uint64_t from = rows->rows[i].addr, to = from + 65536;

		if (i == 0)
			from = from >= 64 ? from - 64 : 0;
		if (i + 1 < rows->row_count && rows->rows[i + 1].addr < to)
			to = rows->rows[i + 1].addr;
		for (uint64_t address = from; address < to; address++) {
			struct tracer_line want = expected_at(rows, encoded, address);
			struct tracer_line got = lookup(&encoded->header, address);
			size_t chain[MAX_CHAIN], length = 0;

			if (inlines)
				length = dwarf_inline_chain(inlines, address, chain,
							    MAX_CHAIN);
			if (length > MAX_CHAIN)
				die("line_lookup", "0x%" PRIx64 ": %zu inlined calls",
				    address, length);
			checked++;
			if (want.file != got.file || want.line != got.line ||
			    (inlines
				 ? !same_chain(encoded, inlines, got.call, chain, length)
				 : got.call != 0)) {
				if (++*differences <= 10)
					printf("difference at 0x%" PRIx64
					       ": rows %s:%" PRIu32
					       ", %zu inlined calls; lookup file %" PRIu32
					       " line %" PRIu32 " call %" PRIu32 "\n",
					       address,
					       want.file ? encoded->files[want.file - 1]
							 : "??",
					       want.line, length, got.file, got.line,
					       got.call);
			}
		}
	}
	return checked;
}

/* The table the lookup answers from, and the names its indexes stand
 * for: files[n - 1] is file n, names[n - 1] name n. */
/* The table --answers looks up in; its names are its own strings. */
struct answer_table {
	struct tracer_lines header;
};

/* The table of the image at path: here symgen's encoding of its rows
 * (GDB's choice) and inlined calls, as symgen encodes them for the image.
 * The one place that says where --answers' table comes from. */
static void read_answer_table(const char *path, struct answer_table *table)
{
	struct elf_file elf;
	struct line_table rows;
	struct inline_table inlines;
	struct encoded_lines encoded;

	elf_open(&elf, path);
	dwarf_lines_read(&elf, LINE_CHOICE_GDB, &rows);
	if (rows.problem)
		die(path, "no line table: %s", rows.problem);
	dwarf_inlines_read(&elf, &inlines);
	line_table_encode(path, &rows, &inlines, LINE_TABLE_BLOCK_BYTES, &encoded);
	table->header = encoded.header;
}

/* --answers: the lookup's file:line and chain at each address of stdin. */
static void print_answers(const char *path)
{
	struct answer_table table;
	char query[64];

	read_answer_table(path, &table);
	if (!tracer_lines_valid(&table.header))
		die(path, "the lookup rejects the table's header");
	while (fgets(query, sizeof(query), stdin)) {
		uint64_t pc;
		struct tracer_line answer;
		uint32_t call, steps = 0;

		if (sscanf(query, "%" SCNx64, &pc) != 1)
			die(path, "not an address: %s", query);
		answer = lookup(&table.header, pc);
		printf("%" PRIx64 " %s:%" PRIu32, pc,
		       answer.file ? tracer_lines_file(&table.header, answer.file) : "??",
		       answer.line);
		/* A table the lookup accepts has parents below their calls: the
		 * chain ends within call_count steps. */
		for (call = answer.call; call != 0; call = answer.call) {
			struct tracer_inline_call record;

			if (++steps > table.header.call_count ||
			    tracer_inline_call_at(&table.header, call, &record) !=
				TRACER_LINE_FOUND)
				die(path,
				    "0x%" PRIx64 ": inlined call %" PRIu32
				    " has no record, or its chain no end",
				    pc, call);
			printf("\t%s %s:%" PRIu32,
			       record.name ? tracer_lines_name(&table.header, record.name)
					   : "??",
			       record.file ? tracer_lines_file(&table.header, record.file)
					   : "??",
			       record.line);
			answer.call = record.parent;
		}
		printf("\n");
	}
}

static void emit_array(FILE *out, const char *type, const char *name, const void *data,
		       size_t count, size_t size)
{
	fprintf(out, "const %s %s[%zu] = {", type, name, count ? count : 1);
	for (size_t i = 0; i < count; i++) {
		uint64_t value = 0;

		memcpy(&value, (const uint8_t *)data + i * size, size);
		fprintf(out, "%s0x%" PRIx64 "u,", i % 8 ? " " : "\n\t", value);
	}
	fprintf(out, "%s\n};\n", count ? "" : "0");
}

/* Index 1 on of name in encoded's names (0 for NULL, UINT32_MAX if not
 * there: the bench then counts a wrong answer). */
static uint32_t expected_name(const struct encoded_lines *encoded, const char *name)
{
	if (name == NULL)
		return 0;
	for (uint32_t i = 0; i < encoded->header.name_count; i++)
		if (strcmp(encoded->names[i], name) == 0)
			return i + 1;
	return UINT32_MAX;
}

/* The number of file in the encoded table (0 for NULL, UINT32_MAX if not
 * there). */
static uint32_t expected_file(const struct line_table *rows,
			      const struct encoded_lines *encoded, const char *file)
{
	if (file == NULL)
		return 0;
	for (size_t i = 0; i < rows->file_count; i++)
		if (strcmp(rows->files[i], file) == 0)
			return encoded->file_map[i + 1];
	return UINT32_MAX;
}

static void emit_c(const char *path, const struct encoded_lines *encoded,
		   const struct line_table *rows, const struct inline_table *inlines)
{
	FILE *out = fopen(path, "w");
	char query[64];
	uint64_t *pcs = NULL;
	uint32_t *answers = NULL, *chain_start = NULL, *chain_calls = NULL;
	size_t count = 0, chain_size = 0;

	if (!out)
		die(path, "cannot write");
	while (fgets(query, sizeof(query), stdin)) {
		uint64_t pc;
		struct tracer_line answer;
		size_t chain[MAX_CHAIN], length;

		if (sscanf(query, "%" SCNx64, &pc) != 1)
			die(path, "not an address: %s", query);
		pcs = tracked_realloc(path, pcs, count + 1, sizeof(*pcs));
		answers =
		    tracked_realloc(path, answers, 2 * (count + 1), sizeof(*answers));
		chain_start =
		    tracked_realloc(path, chain_start, count + 2, sizeof(*chain_start));
		answer = expected_at(rows, encoded, pc);
		pcs[count] = pc;
		answers[2 * count] = answer.file;
		answers[2 * count + 1] = answer.line;
		length = inlines ? dwarf_inline_chain(inlines, pc, chain, MAX_CHAIN) : 0;
		if (length > MAX_CHAIN)
			die(path, "0x%" PRIx64 ": %zu inlined calls", pc, length);
		chain_start[count] = (uint32_t)chain_size;
		chain_calls =
		    tracked_realloc(path, chain_calls, 3 * (chain_size + length) + 1,
				    sizeof(*chain_calls));
		for (size_t i = 0; i < length; i++, chain_size++) {
			const struct inline_call *call = &inlines->calls[chain[i]];

			chain_calls[3 * chain_size] = expected_name(encoded, call->name);
			chain_calls[3 * chain_size + 1] =
			    expected_file(rows, encoded, call->call_file);
			chain_calls[3 * chain_size + 2] = call->call_line;
		}
		count++;
	}
	chain_start = tracked_realloc(path, chain_start, count + 1, sizeof(*chain_start));
	chain_start[count] = (uint32_t)chain_size;
	fprintf(out,
		"/* Generated by line_lookup --emit-c. */\n#include \"line_bench.h\"\n");
	emit_array(out, "uint8_t", "bench_stream", encoded->stream,
		   encoded->header.stream_size, 1);
	emit_array(out, "uint16_t", "bench_group_block", encoded->group_block,
		   (encoded->header.page_count >> encoded->header.group_shift) + 1, 2);
	emit_array(out, "uint8_t", "bench_page_block", encoded->page_block,
		   encoded->header.page_count + 1, 1);
	emit_array(out, "uint8_t", "bench_records", encoded->records,
		   (size_t)encoded->header.call_count * encoded->header.record_bytes, 1);
	emit_array(out, "uint64_t", "bench_pcs", pcs, count, 8);
	emit_array(out, "uint32_t", "bench_answers", answers, 2 * count, 4);
	emit_array(out, "uint32_t", "bench_chain_start", chain_start, count + 1, 4);
	emit_array(out, "uint32_t", "bench_chain_calls", chain_calls, 3 * chain_size, 4);
	fprintf(out, "const uint32_t bench_pc_count = %zu;\n", count);
	fprintf(out,
		"const struct tracer_lines bench_table = {\n"
		"\t.magic = 0x%" PRIx32 "u, .version = %" PRIu32
		"u, .block_bytes = %" PRIu32 "u,\n\t.literal_bytes = %" PRIu32
		"u, .file_bits = %" PRIu32 "u, .row_count = %" PRIu32
		"u,\n\t.block_count = %" PRIu32 "u, .page_count = %" PRIu32
		"u, .stream_size = %" PRIu32 "u,\n\t.file_count = %" PRIu32
		"u, .group_shift = %" PRIu32 "u, .base = 0x%" PRIxPTR "u,\n",
		encoded->header.magic, encoded->header.version,
		encoded->header.block_bytes, encoded->header.literal_bytes,
		encoded->header.file_bits, encoded->header.row_count,
		encoded->header.block_count, encoded->header.page_count,
		encoded->header.stream_size, encoded->header.file_count,
		encoded->header.group_shift, encoded->header.base);
	fprintf(out,
		"\t.group_block = bench_group_block, .page_block = bench_page_block,\n"
		"\t.stream = bench_stream, .call_bits = %" PRIu32
		"u, .call_count = %" PRIu32 "u,\n\t.record_bytes = %" PRIu32
		"u, .name_bits = %" PRIu32 "u, .name_count = %" PRIu32
		"u,\n\t.call_line_bits = %" PRIu32 "u, .records = bench_records};\n",
		encoded->header.call_bits, encoded->header.call_count,
		encoded->header.record_bytes, encoded->header.name_bits,
		encoded->header.name_count, encoded->header.call_line_bits);
	fclose(out);
	tracked_free(pcs);
	tracked_free(answers);
	tracked_free(chain_start);
	tracked_free(chain_calls);
}

/* Encodes rows (and inlines, if not NULL) and checks the lookup at every
 * address; prints the sizes and the counts; returns the differences. */
static size_t encode_and_check(const char *path, const struct line_table *rows,
			       const struct inline_table *inlines, uint32_t block_bytes,
			       struct encoded_lines *encoded)
{
	size_t checked, differences, bytes;

	line_table_encode(path, rows, inlines, block_bytes, encoded);
	if (!tracer_lines_valid(&encoded->header))
		die(path, "the lookup rejects the encoded table's header");
	bytes = line_table_bytes(encoded);
	printf("%s, block %" PRIu32 " bytes: %" PRIu32 " rows, %" PRIu32
	       " blocks (%.1f rows each), %zu bytes (page map %zu, stream %" PRIu32
	       "), %.3f bytes per row",
	       inlines ? "with inlined calls" : "lines alone", block_bytes,
	       encoded->header.row_count, encoded->header.block_count,
	       (double)encoded->header.row_count /
		   (encoded->header.block_count ? encoded->header.block_count : 1),
	       bytes,
	       bytes - offsetof(struct tracer_lines, call_bits) -
		   encoded->header.stream_size,
	       encoded->header.stream_size,
	       (double)bytes /
		   (encoded->header.row_count ? encoded->header.row_count : 1));
	if (inlines)
		printf("; %" PRIu32 " calls, records of %" PRIu32 " bytes, %" PRIu32
		       " names: %zu bytes of header fields, records and names",
		       encoded->header.call_count, encoded->header.record_bytes,
		       encoded->header.name_count, line_table_record_bytes(encoded));
	printf("\n");
	checked = check(rows, inlines, encoded, &differences);
	printf("%s: checked %zu addresses: %zu equal to the rows%s, %zu differ\n",
	       inlines ? "with inlined calls" : "lines alone", checked,
	       checked - differences, inlines ? " and inlined calls" : "", differences);
	return differences;
}

int main(int argc, char **argv)
{
	uint32_t block_bytes = LINE_TABLE_BLOCK_BYTES;
	const char *emit = NULL;
	bool lines_alone = false;
	struct elf_file elf;
	struct line_table rows;
	struct inline_table inlines;
	struct encoded_lines alone, with_calls;
	size_t differences;
	int arg = 1;

	die_program = "line_lookup";
	if (argc == 3 && strcmp(argv[1], "--answers") == 0) {
		print_answers(argv[2]);
		return 0;
	}
	for (; arg < argc - 1; arg++) {
		if (strcmp(argv[arg], "--block") == 0 && arg + 1 < argc - 1)
			block_bytes = (uint32_t)strtoul(argv[++arg], NULL, 10);
		else if (strcmp(argv[arg], "--emit-c") == 0 && arg + 1 < argc - 1)
			emit = argv[++arg];
		else if (strcmp(argv[arg], "--lines-alone") == 0)
			lines_alone = true;
		else
			break;
	}
	if (arg != argc - 1) {
		fprintf(
		    stderr,
		    "usage: line_lookup [--block BYTES] [--lines-alone] [--emit-c OUT.c] "
		    "ELF\n       line_lookup --answers ELF < addresses\n");
		return 2;
	}
	elf_open(&elf, argv[arg]);
	dwarf_lines_read(&elf, LINE_CHOICE_GDB, &rows);
	if (rows.problem)
		die(argv[arg], "no line table: %s", rows.problem);
	dwarf_inlines_read(&elf, &inlines);
	differences = encode_and_check(argv[arg], &rows, NULL, block_bytes, &alone);
	differences +=
	    encode_and_check(argv[arg], &rows, &inlines, block_bytes, &with_calls);
	printf("inline table: %zu bytes in the rows (the table with inlined calls less "
	       "the line table alone), %zu of its header, records and names\n",
	       line_table_bytes(&with_calls) - line_table_bytes(&alone),
	       line_table_record_bytes(&with_calls));
	if (emit && lines_alone)
		emit_c(emit, &alone, &rows, NULL);
	else if (emit)
		emit_c(emit, &with_calls, &rows, &inlines);
	return differences ? 1 : 0;
}

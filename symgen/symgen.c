/*
 * symgen - writes the symbol table of a linked RISC-V kernel, its line
 * table (file:line and inlined calls, from -g), and with --cfi the index
 * of its FDEs and its unwind table, as C source for the tracer library
 * (struct tracer_symtab, struct tracer_lines, struct tracer_fde_index and
 * struct tracer_unwind_table, see tracer/tracer_tables.h).
 *
 *     symgen -o symtab.c kernel.elf          table of kernel.elf's functions
 *     symgen --cfi -o symtab.c kernel.elf    ... the index of its .eh_frame, and
 *                                            the unwind table compiled from it
 *     symgen --empty [--cfi] -o symtab.c     empty tables, first link
 *     symgen --no-lines ...                  no line table (empty)
 *     symgen --no-symbols ...                no symbol table (empty), for a
 *                                            tracer that prints raw frames
 *
 * It fails when a well-known end-of-image symbol (`end`, `_end`,
 * `__heap_start`, ...: image_end.c) lies below the tables, where the kernel's
 * allocator would overwrite them; --allow-end-before-tables=NAME for a kernel
 * whose NAME means something else, --heap-start=NAME to check a name of its own.
 *
 * The index and unwind table descriptors are always written (empty without
 * --cfi), so a kernel may refer to them whichever unwinders it uses.
 *
 * Each descriptor starts with a header (tracer/table_format.h): magic,
 * version, word size, counts and a checksum of them; with each table go the
 * hashes of its arrays' blocks as the target lays them out, and with the FDE
 * index those of .eh_frame (tracer/table_hash.h), which the tracer checks
 * as a walk reads them.
 *
 * Only libc, zlib and tracer/: copy symgen/ into your tree and build every
 * file of it with the files of tracer/ it shares (TRACER_SYMGEN_LIB_SRCS in
 * tracer.mk: the tracer's own .eh_frame parser and interpreter, prologue
 * decoder and line table checksum), with the host compiler and
 * -DTRACER_HOST_VIEW -Itracer -lz.
 * The output is written to a temporary file and renamed into place, so a
 * failed run leaves no output behind.
 */
#include "symgen.h"

#include "fde_index.h"
#include "line_table.h"
#include "unwind_table.h"
#include "elf.h"
#include "functions.h"
#include "image_end.h"
#include "table_format.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Everything symgen writes. */
struct table {
	struct function *functions;
	size_t function_count;
	/* names_size bytes: each name and its NUL, in the functions' order,
	 * at name_offsets[i]; NULs between (symtab_name_offset) and up to a
	 * multiple of 4. NULL when there are no functions. */
	unsigned char *names;
	uint32_t *name_offsets;
	uint32_t names_size;
	struct fde_entry *fdes; /* sorted by pc_start; NULL without --cfi */
	size_t fde_count;
	struct unwind_table unwind; /* empty without --cfi */
	/* The line table and its inlined calls (line_format.h), from the
	 * image's debugging information: no rows without it. */
	struct encoded_lines lines;
	/* .eh_frame as the image holds it (with --cfi): its hashes go with
	 * the FDE index. */
	uint64_t eh_frame;
	const unsigned char *eh_frame_bytes;
	uint32_t eh_frame_size;
	/* sizeof(uintptr_t) of the image: 4 or 8; 0 for --empty, which does
	 * not know the target: its source says sizeof(uintptr_t). */
	unsigned word_size;
};

/* The command line. */
struct options {
	const char *output;
	const char *input; /* NULL for --empty */
	bool cfi;
	bool lines;   /* the line table (not --no-lines) */
	bool symbols; /* the symbol table (not --no-symbols) */
	FILE *err;    /* for warnings */
	/* The whole command line, for the options that name symbols. */
	int argc;
	char **argv;
};

#define ALLOW_OPTION	  "--allow-end-before-tables"
#define HEAP_START_OPTION "--heap-start"

/* Writes name as the body of a C string literal. Octal escapes are always
 * three digits, so a following digit cannot extend them. */
static void write_c_string(FILE *out, const char *name)
{
	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p < 0x20 || *p >= 0x7f)
			fprintf(out, "\\%03o", *p);
		else
			fputc(*p, out);
	}
}

/* An array's bytes as the target lays them out (little-endian), to hash. */
struct bytes {
	const char *path; /* for tracked_realloc's message */
	unsigned char *data;
	size_t size;
	size_t capacity;
};

static void put_le(struct bytes *b, uint64_t value, unsigned size)
{
	if (b->size + size > b->capacity) {
		b->capacity = 2 * b->capacity + size + 64;
		b->data = tracked_realloc(b->path, b->data, b->capacity, 1);
	}
	for (unsigned i = 0; i < size; i++)
		b->data[b->size++] = (unsigned char)(value >> (8 * i));
}

/* Writes `blocks` hashes of the array's bytes (table_hash.h) as the next
 * entries of a hashes[] initializer. */
static void write_hashes(FILE *out, enum tracer_hashed kind, const unsigned char *data,
			 uint64_t size)
{
	uint32_t blocks = tracer_hash_blocks(size);

	for (uint32_t block = 0; block < blocks; block++)
		fprintf(out, "    0x%08" PRIx32 "u,\n",
			tracer_hash_bytes(kind, block, data, size));
}

/* The arrays of each table, laid out as the target holds them: the
 * symbols (addr a target word, size, name offset), the FDE index's
 * entries (two target words), the unwind table's rows, maps, lookup and
 * rules (16-bit fields). */
static void symbols_bytes(const struct table *table, struct bytes *b)
{
	for (size_t i = 0; i < table->function_count; i++) {
		const struct function *f = &table->functions[i];

		put_le(b, f->addr, table->word_size);
		put_le(b, f->size, 4);
		put_le(b, table->name_offsets[i], 4);
	}
}

static void fde_entries_bytes(const struct table *table, struct bytes *b)
{
	for (size_t i = 0; i < table->fde_count; i++) {
		put_le(b, table->fdes[i].pc_start, table->word_size);
		put_le(b, table->fdes[i].fde, table->word_size);
	}
}

static void write_symtab_hashes(FILE *out, const struct table *table, const char *path)
{
	struct bytes symbols = {path, NULL, 0, 0};

	symbols_bytes(table, &symbols);
	fprintf(out,
		"__attribute__((section(\".tracer_symtab.hashes\")))\n"
		"static const uint32_t symtab_hashes[%" PRIu32 "] = {\n",
		tracer_hash_blocks(symbols.size) + tracer_hash_blocks(table->names_size));
	write_hashes(out, TRACER_HASHED_SYMBOLS, symbols.data, symbols.size);
	write_hashes(out, TRACER_HASHED_NAMES, table->names, table->names_size);
	fprintf(out, "};\n\n");
	tracked_free(symbols.data);
}

static void write_fde_index_hashes(FILE *out, const struct table *table, const char *path)
{
	struct bytes entries = {path, NULL, 0, 0};

	fde_entries_bytes(table, &entries);
	fprintf(out,
		"__attribute__((section(\".tracer_symtab.hashes\")))\n"
		"static const uint32_t fde_index_hashes[%" PRIu32 "] = {\n",
		tracer_hash_blocks(entries.size) +
		    tracer_hash_blocks(table->eh_frame_size));
	write_hashes(out, TRACER_HASHED_FDE_ENTRIES, entries.data, entries.size);
	write_hashes(out, TRACER_HASHED_EH_FRAME, table->eh_frame_bytes,
		     table->eh_frame_size);
	fprintf(out, "};\n\n");
	tracked_free(entries.data);
}

static void write_unwind_hashes(FILE *out, const struct unwind_table *unwind,
				const char *path)
{
	struct bytes rows = {path, NULL, 0, 0};
	struct bytes maps = {path, NULL, 0, 0};
	struct bytes lookup = {path, NULL, 0, 0};
	struct bytes rules = {path, NULL, 0, 0};

	for (size_t i = 0; i < unwind->count; i++)
		put_le(&rows, unwind->rows[i], 2);
	for (size_t i = 0; i < unwind->block_count; i++) {
		put_le(&maps, unwind->maps[i], 8);
		put_le(&lookup, unwind->lookup[i], 2);
	}
	for (size_t i = 0; i < unwind->rule_count; i++) {
		put_le(&rules, (uint16_t)unwind->rules[i].cfa_offset, 2);
		put_le(&rules, (uint16_t)unwind->rules[i].ra_offset, 2);
		put_le(&rules, (uint16_t)unwind->rules[i].s0_offset, 2);
		put_le(&rules, unwind->rules[i].kind, 1);
		put_le(&rules, unwind->rules[i].frame_size_16, 1);
	}
	fprintf(out,
		"__attribute__((section(\".tracer_symtab.hashes\")))\n"
		"static const uint32_t unwind_hashes[%" PRIu32 "] = {\n",
		tracer_hash_blocks(rows.size) + tracer_hash_blocks(maps.size) +
		    tracer_hash_blocks(lookup.size) + tracer_hash_blocks(rules.size));
	write_hashes(out, TRACER_HASHED_UNWIND_ROWS, rows.data, rows.size);
	write_hashes(out, TRACER_HASHED_UNWIND_MAPS, maps.data, maps.size);
	write_hashes(out, TRACER_HASHED_UNWIND_LOOKUP, lookup.data, lookup.size);
	write_hashes(out, TRACER_HASHED_UNWIND_RULES, rules.data, rules.size);
	fprintf(out, "};\n\n");
	tracked_free(rows.data);
	tracked_free(maps.data);
	tracked_free(lookup.data);
	tracked_free(rules.data);
}

/* The descriptors' checksums (table_format.h): their counts, sizes, base. */
static uint32_t symtab_checksum(const struct table *table)
{
	uint32_t words[2] = {(uint32_t)table->function_count, table->names_size};

	return tracer_header_hash(TRACER_HASHED_SYMTAB_HEADER, words, 2);
}

static uint32_t fde_index_checksum(const struct table *table)
{
	uint32_t words[4] = {(uint32_t)table->fde_count, (uint32_t)table->eh_frame,
			     (uint32_t)(table->eh_frame >> 32), table->eh_frame_size};

	return tracer_header_hash(TRACER_HASHED_FDE_INDEX_HEADER, words, 4);
}

static uint32_t unwind_table_checksum(const struct unwind_table *unwind)
{
	uint32_t words[5] = {(uint32_t)unwind->count, (uint32_t)unwind->block_count,
			     (uint32_t)unwind->rule_count, (uint32_t)unwind->base,
			     (uint32_t)(unwind->base >> 32)};

	return tracer_header_hash(TRACER_HASHED_UNWIND_HEADER, words, 5);
}

/*
 * names[] is declared with its size, and its literal holds one byte less:
 * the literal's own terminating NUL is the last byte, so the compiler
 * neither drops a NUL nor warns that it would. A line per name, and one
 * for the NULs that pad up to a name (symtab_name_offset).
 */
static void write_symbols(FILE *out, const struct table *table)
{
	uint32_t literal_bytes = table->names_size - 1;
	uint32_t written = 0;

	fprintf(out,
		"__attribute__((section(\".tracer_symtab.names\"), aligned(8)))\n"
		"static const char names[%" PRIu32 "] =\n",
		table->names_size);
	for (size_t i = 0; i < table->function_count; i++) {
		/* The padding in a literal of its own: "\0" then a digit would
		 * read as one octal escape. */
		if (written < table->name_offsets[i]) {
			fprintf(out, "    \"");
			for (; written < table->name_offsets[i]; written++)
				fprintf(out, "\\0");
			fprintf(out, "\"\n");
		}
		fprintf(out, "    \"");
		write_c_string(out, table->functions[i].name);
		written += (uint32_t)strlen(table->functions[i].name);
		if (written < literal_bytes) {
			fprintf(out, "\\0");
			written++;
		}
		fprintf(out, "\"\n");
	}
	fprintf(out, "    \"");
	for (; written < literal_bytes; written++)
		fprintf(out, "\\0");
	fprintf(out, "\";\n");
	fprintf(out,
		"\n__attribute__((section(\".tracer_symtab.symbols\")))\n"
		"static const struct tracer_symbol symbols[%zu] = {\n",
		table->function_count);
	for (size_t i = 0; i < table->function_count; i++) {
		const struct function *f = &table->functions[i];

		fprintf(out,
			table->word_size == 8 ? "    {0x%016llxu, 0x%llxu, %lluu},\n"
					      : "    {0x%08llxu, 0x%llxu, %lluu},\n",
			(unsigned long long)f->addr, (unsigned long long)f->size,
			(unsigned long long)table->name_offsets[i]);
	}
	fprintf(out, "};\n\n");
}

static void write_fde_entries(FILE *out, const struct table *table)
{
	fprintf(out,
		"__attribute__((section(\".tracer_symtab.fde_index\")))\n"
		"static const struct tracer_fde_entry fde_entries[%zu] = {\n",
		table->fde_count);
	for (size_t i = 0; i < table->fde_count; i++)
		fprintf(out,
			table->word_size == 8 ? "    {0x%016llxu, 0x%016llxu},\n"
					      : "    {0x%08llxu, 0x%08llxu},\n",
			(unsigned long long)table->fdes[i].pc_start,
			(unsigned long long)table->fdes[i].fde);
	fprintf(out, "};\n\n");
}

/* Every array starts 8-byte aligned: the tracer hashes it in words
 * (tracer/table_hash.h). */
static void write_unwind_arrays(FILE *out, const struct unwind_table *unwind)
{
	fprintf(out,
		"__attribute__((section(\".tracer_symtab.unwind_rows\"), aligned(8)))\n"
		"static const uint16_t unwind_rows[%zu] = {\n",
		unwind->count);
	for (size_t i = 0; i < unwind->count; i++)
		fprintf(out, "    0x%04x,\n", (unsigned)unwind->rows[i]);
	fprintf(out,
		"};\n\n__attribute__((section(\".tracer_symtab.unwind_maps\")))\n"
		"static const uint64_t unwind_maps[%zu] = {\n",
		unwind->block_count);
	for (size_t i = 0; i < unwind->block_count; i++)
		fprintf(out, "    0x%016" PRIx64 "u,\n", unwind->maps[i]);
	fprintf(out,
		"};\n\n__attribute__((section(\".tracer_symtab.unwind_lookup\"), "
		"aligned(8)))\n"
		"static const uint16_t unwind_lookup[%zu] = {\n",
		unwind->block_count);
	for (size_t i = 0; i < unwind->block_count; i++)
		fprintf(out, "    %uu,\n", (unsigned)unwind->lookup[i]);
	fprintf(out,
		"};\n\n__attribute__((section(\".tracer_symtab.unwind_rules\"), "
		"aligned(8)))\n"
		"static const struct tracer_unwind_rule unwind_rules[%zu] = {\n",
		unwind->rule_count);
	for (size_t i = 0; i < unwind->rule_count; i++)
		fprintf(out, "    {%d, %d, %d, %u, %u},\n", unwind->rules[i].cfa_offset,
			unwind->rules[i].ra_offset, unwind->rules[i].s0_offset,
			(unsigned)unwind->rules[i].kind,
			(unsigned)unwind->rules[i].frame_size_16);
	fprintf(out, "};\n\n");
}

static void write_word_size(FILE *out, unsigned word_size)
{
	if (word_size == 0)
		fprintf(out, "    .word_size = sizeof(uintptr_t),\n");
	else
		fprintf(out, "    .word_size = %u,\n", word_size);
}

/* An array of bytes (of 1, 2 or 4 bytes each), word-aligned: the tracer
 * hashes tables in words. */
static void write_lines_array(FILE *out, const char *type, const char *name,
			      const void *data, size_t count, unsigned size)
{
	const unsigned char *bytes = data;

	fprintf(out,
		"__attribute__((section(\".tracer_symtab.%s\"), aligned(8)))\n"
		"static const %s %s[%zu] = {",
		name, type, name, count);
	for (size_t i = 0; i < count; i++) {
		uint64_t value = 0;

		for (unsigned j = 0; j < size; j++)
			value |= (uint64_t)bytes[i * size + j] << (8 * j);
		fprintf(out, "%s0x%llxu,", i % 12 == 0 ? "\n    " : " ",
			(unsigned long long)value);
	}
	fprintf(out, "\n};\n\n");
}

/* The line table's arrays, names and hashes (a table with rows). */
static void write_lines_arrays(FILE *out, const struct encoded_lines *lines,
			       const char *path)
{
	const struct tracer_lines *header = &lines->header;
	const size_t groups = ((size_t)header->page_count >> header->group_shift) + 1;
	const size_t records = (size_t)header->call_count * header->record_bytes;
	const size_t strings = (size_t)header->file_count - 1 + header->name_count;
	struct bytes bytes[2] = {{.path = path}, {.path = path}};
	uint64_t blocks;

	write_lines_array(out, "uint16_t", "lines_group_block", lines->group_block,
			  groups, 2);
	write_lines_array(out, "uint8_t", "lines_page_block", lines->page_block,
			  (size_t)header->page_count + 1, 1);
	write_lines_array(out, "uint8_t", "lines_stream", lines->stream,
			  header->stream_size, 1);
	if (records)
		write_lines_array(out, "uint8_t", "lines_records", lines->records,
				  records, 1);
	write_lines_array(out, "uint32_t", "lines_string_offsets", lines->string_offsets,
			  strings, 4);
	fprintf(out,
		"__attribute__((section(\".tracer_symtab.lines_strings\"), aligned(8)))\n"
		"static const char lines_strings[%" PRIu32 "] =\n    \"",
		header->strings_size);
	/* Each name and its NUL, the last NULs implied by the array's size. */
	for (uint32_t i = 0; i + 1 < header->strings_size; i++) {
		if (lines->strings[i] == '\0') {
			fprintf(out, "\\0\"\n    \"");
			continue;
		}
		write_c_string(out, (char[]){lines->strings[i], '\0'});
	}
	fprintf(out, "\";\n\n");
	for (size_t i = 0; i < groups; i++)
		put_le(&bytes[0], lines->group_block[i], 2);
	for (size_t i = 0; i < strings; i++)
		put_le(&bytes[1], lines->string_offsets[i], 4);
	blocks = tracer_hash_blocks(groups * 2) +
		 tracer_hash_blocks((uint64_t)header->page_count + 1) +
		 tracer_hash_blocks(header->stream_size) + tracer_hash_blocks(records) +
		 tracer_hash_blocks((uint64_t)strings * 4) +
		 tracer_hash_blocks(header->strings_size);
	fprintf(out,
		"__attribute__((section(\".tracer_symtab.lines_hashes\"), aligned(8)))\n"
		"static const uint32_t lines_hashes[%llu] = {\n",
		(unsigned long long)blocks);
	write_hashes(out, TRACER_HASHED_LINES_GROUPS, bytes[0].data, bytes[0].size);
	write_hashes(out, TRACER_HASHED_LINES_PAGES, lines->page_block,
		     (uint64_t)header->page_count + 1);
	write_hashes(out, TRACER_HASHED_LINES_STREAM, lines->stream, header->stream_size);
	write_hashes(out, TRACER_HASHED_LINES_RECORDS, lines->records, records);
	write_hashes(out, TRACER_HASHED_LINES_STRING_OFFSETS, bytes[1].data,
		     bytes[1].size);
	write_hashes(out, TRACER_HASHED_LINES_STRINGS,
		     (const unsigned char *)lines->strings, header->strings_size);
	fprintf(out, "};\n\n");
	tracked_free(bytes[0].data);
	tracked_free(bytes[1].data);
}

/* The line table's descriptor, its checksum computed as the target's
 * (base in the image's words). */
static void write_lines_descriptor(FILE *out, const struct table *table)
{
	const struct tracer_lines *header = &table->lines.header;
	const bool has_rows = header->row_count > 0;

	fprintf(out, "\n__attribute__((section(\".tracer_symtab\")))\n"
		     "const struct tracer_lines tracer_lines = {\n"
		     "    .magic = TRACER_LINES_MAGIC,\n"
		     "    .version = TRACER_LINES_VERSION,\n");
	write_word_size(out, table->word_size);
	fprintf(out,
		"    .block_bytes = %" PRIu32 ", .literal_bytes = %" PRIu32
		", .file_bits = %" PRIu32 ",\n"
		"    .row_count = %" PRIu32 ", .block_count = %" PRIu32
		", .page_count = %" PRIu32 ",\n"
		"    .stream_size = %" PRIu32 ", .file_count = %" PRIu32
		", .group_shift = %" PRIu32 ",\n"
		"    .base = 0x%llxu,\n",
		header->block_bytes, header->literal_bytes, header->file_bits,
		header->row_count, header->block_count, header->page_count,
		header->stream_size, header->file_count, header->group_shift,
		(unsigned long long)header->base);
	fprintf(out,
		"    .group_block = %s, .page_block = %s, .stream = %s,\n"
		"    .call_bits = %" PRIu32 ", .call_count = %" PRIu32
		", .record_bytes = %" PRIu32 ",\n"
		"    .name_bits = %" PRIu32 ", .name_count = %" PRIu32
		", .call_line_bits = %" PRIu32 ",\n"
		"    .records = %s,\n"
		"    .strings_size = %" PRIu32 ",\n"
		"    .checksum = 0x%08" PRIx32 "u,\n"
		"    .string_offsets = %s, .strings = %s, .hashes = %s,\n"
		"};\n",
		has_rows ? "lines_group_block" : "0", has_rows ? "lines_page_block" : "0",
		has_rows ? "lines_stream" : "0", header->call_bits, header->call_count,
		header->record_bytes, header->name_bits, header->name_count,
		header->call_line_bits, header->call_count ? "lines_records" : "0",
		header->strings_size, tracer_lines_checksum(header),
		has_rows ? "lines_string_offsets" : "0", has_rows ? "lines_strings" : "0",
		has_rows ? "lines_hashes" : "0");
}

/*
 * The descriptors go first in the table's output section, the arrays after
 * them, and both descriptors exist in every link, empty or not: so their
 * addresses are the same in both links (see linker/tracer.ld).
 */
static void write_table(FILE *out, const struct table *table, const char *path)
{
	bool has_symbols = table->function_count > 0;
	bool has_fdes = table->fde_count > 0;
	bool has_fde_hashes = has_fdes || table->eh_frame_size > 0;

	fprintf(out,
		"/* Generated by symgen: %zu functions, %zu FDEs, %zu unwind rows (%zu "
		"interpreted, %zu rules). Do not edit. */\n",
		table->function_count, table->fde_count, table->unwind.count,
		table->unwind.interpreted, table->unwind.rule_count);
	fprintf(out, "#include \"tracer_tables.h\"\n\n");
	if (has_symbols) {
		write_symbols(out, table);
		write_symtab_hashes(out, table, path);
	}
	if (has_fdes)
		write_fde_entries(out, table);
	if (has_fde_hashes)
		write_fde_index_hashes(out, table, path);
	if (table->unwind.count > 0) {
		write_unwind_arrays(out, &table->unwind);
		write_unwind_hashes(out, &table->unwind, path);
	}
	if (table->lines.header.row_count > 0)
		write_lines_arrays(out, &table->lines, path);
	fprintf(out, "__attribute__((section(\".tracer_symtab\")))\n"
		     "const struct tracer_symtab tracer_symtab = {\n"
		     "    .magic = TRACER_SYMTAB_MAGIC,\n"
		     "    .version = TRACER_TABLE_VERSION,\n");
	write_word_size(out, table->word_size);
	fprintf(out,
		"    .count = %zu,\n"
		"    .names_size = %" PRIu32 ",\n"
		"    .checksum = 0x%08" PRIx32 "u,\n"
		"    .symbols = %s,\n"
		"    .names = %s,\n"
		"    .hashes = %s,\n"
		"};\n\n",
		table->function_count, table->names_size, symtab_checksum(table),
		has_symbols ? "symbols" : "0", has_symbols ? "names" : "0",
		has_symbols ? "symtab_hashes" : "0");
	fprintf(out, "__attribute__((section(\".tracer_symtab\")))\n"
		     "const struct tracer_fde_index tracer_fde_index = {\n"
		     "    .magic = TRACER_FDE_INDEX_MAGIC,\n"
		     "    .version = TRACER_TABLE_VERSION,\n");
	write_word_size(out, table->word_size);
	fprintf(out,
		"    .count = %zu,\n"
		"    .checksum = 0x%08" PRIx32 "u,\n"
		"    .entries = %s,\n"
		"    .eh_frame = 0x%llxu,\n"
		"    .eh_frame_size = %" PRIu32 ",\n"
		"    .hashes = %s,\n"
		"};\n",
		table->fde_count, fde_index_checksum(table),
		has_fdes ? "fde_entries" : "0", (unsigned long long)table->eh_frame,
		table->eh_frame_size, has_fde_hashes ? "fde_index_hashes" : "0");
	fprintf(out, "\n__attribute__((section(\".tracer_symtab\")))\n"
		     "const struct tracer_unwind_table tracer_unwind_table = {\n"
		     "    .magic = TRACER_UNWIND_TABLE_MAGIC,\n"
		     "    .version = TRACER_UNWIND_VERSION,\n");
	write_word_size(out, table->word_size);
	fprintf(out,
		"    .count = %zu,\n"
		"    .block_count = %zu,\n"
		"    .rule_count = %zu,\n"
		"    .checksum = 0x%08" PRIx32 "u,\n"
		"    .base = 0x%llxu,\n"
		"    .rows = %s,\n"
		"    .maps = %s,\n"
		"    .lookup = %s,\n"
		"    .rules = %s,\n"
		"    .hashes = %s,\n"
		"};\n",
		table->unwind.count, table->unwind.block_count, table->unwind.rule_count,
		unwind_table_checksum(&table->unwind),
		(unsigned long long)table->unwind.base,
		table->unwind.count ? "unwind_rows" : "0",
		table->unwind.count ? "unwind_maps" : "0",
		table->unwind.count ? "unwind_lookup" : "0",
		table->unwind.count ? "unwind_rules" : "0",
		table->unwind.count ? "unwind_hashes" : "0");
	write_lines_descriptor(out, table);
}

/* Writes the table to `path` through a temporary file in the same directory;
 * removes the temporary file on every error. */
static void write_output(const char *path, const struct table *table)
{
	size_t length = strlen(path);
	char *temp = tracked_alloc(path, length + sizeof(".XXXXXX"), 1);
	FILE *out;
	int fd;
	int error;

	memcpy(temp, path, length);
	memcpy(temp + length, ".XXXXXX", sizeof(".XXXXXX"));
	fd = mkstemp(temp);
	if (fd < 0)
		die(path, "cannot create output: %s", strerror(errno));
	out = fdopen(fd, "w");
	if (!out) {
		error = errno;
		close(fd);
		unlink(temp);
		die(path, "cannot write output: %s", strerror(error));
	}
	write_table(out, table, path);
	if (ferror(out) | (fclose(out) != 0) || rename(temp, path) != 0) {
		error = errno;
		unlink(temp);
		die(path, "cannot write output: %s", strerror(error));
	}
}

/*
 * Where a name of `length` bytes (its NUL included) goes in names[], the
 * names before it ending at `offset`: there, unless it would cross into
 * the next hash block (table_hash.h) and fits in one; then at the start of
 * that block. A walk checks the blocks a name lies in as it prints it, so
 * each name then costs one block, wherever it falls.
 */
static uint64_t symtab_name_offset(uint64_t offset, uint64_t length)
{
	uint64_t room = TRACER_HASH_BLOCK - offset % TRACER_HASH_BLOCK;

	return length > room && length <= TRACER_HASH_BLOCK ? offset + room : offset;
}

/* names[] of the symbol table: the names in the functions' order, each
 * where symtab_name_offset() puts it, padded with NULs to a multiple of 4. */
static void collect_names(const char *path, struct table *table)
{
	uint64_t size = 0;

	if (table->function_count == 0)
		return;
	table->name_offsets =
	    tracked_alloc(path, table->function_count, sizeof(*table->name_offsets));
	for (size_t i = 0; i < table->function_count; i++) {
		uint64_t length = strlen(table->functions[i].name) + 1;

		size = symtab_name_offset(size, length);
		/* tracer_symtab.names_size (rounded up to 4 below) and every
		 * name offset are 32 bits; so is count, at most names_size. */
		if (size + length > UINT32_MAX - 3)
			die(path, "function names exceed 4 GiB");
		table->name_offsets[i] = (uint32_t)size;
		size += length;
	}
	size = (size + 3) & ~(uint64_t)3;
	table->names_size = (uint32_t)size;
	table->names = tracked_alloc(path, (size_t)size, 1);
	for (size_t i = 0; i < table->function_count; i++)
		memcpy(table->names + table->name_offsets[i], table->functions[i].name,
		       strlen(table->functions[i].name) + 1);
}

/* .eh_frame's address and bytes, which the FDE index's hashes cover (the
 * index was read from it: the section exists). */
static void eh_frame_read(const struct elf_file *elf, struct table *table)
{
	struct elf_section section =
	    elf_section(elf, elf_section_by_name(elf, ".eh_frame"));

	if (section.size > UINT32_MAX)
		die(elf->path, ".eh_frame exceeds 4 GiB");
	/* The tracer hashes it in words (tracer/table_hash.h). */
	if (section.addr % table->word_size != 0)
		die(elf->path, ".eh_frame at 0x%llx is not %u-byte aligned",
		    (unsigned long long)section.addr, table->word_size);
	table->eh_frame = section.addr;
	table->eh_frame_bytes = elf_section_data(elf, &section, ".eh_frame");
	table->eh_frame_size = (uint32_t)section.size;
}

/* The line table of the image's debugging information, with its inlined
 * calls; none, and a warning on err, where the reader does not know it. */
static void lines_read(const struct elf_file *elf, struct table *table, FILE *err)
{
	struct line_table rows;
	struct inline_table inlines;

	dwarf_lines_read(elf, LINE_CHOICE_GDB, &rows);
	if (rows.problem)
		fprintf(err, "symgen: %s: warning: no line table: %s\n", elf->path,
			rows.problem);
	if (rows.row_count == 0)
		return;
	dwarf_inlines_read(elf, &inlines);
	line_table_encode(elf->path, &rows, &inlines, LINE_TABLE_BLOCK_BYTES,
			  &table->lines);
}

/* The tables of the image `elf` the options ask for: its functions unless
 * --no-symbols, its FDE index and unwind table with --cfi, its lines
 * unless --no-lines. */
static struct table read_table(const struct elf_file *elf, const struct options *options)
{
	struct table table = {.word_size = elf->is64 ? 8 : 4};

	if (options->symbols) {
		table.functions = functions_read(elf, &table.function_count);
		collect_names(elf->path, &table);
	}
	if (options->cfi) {
		table.fdes = fde_index_read(elf, &table.fde_count);
		/* tracer_fde_index.count is 32 bits. */
		if (table.fde_count > UINT32_MAX)
			die(elf->path, "more than 2^32 FDEs");
		table.unwind = unwind_table_build(elf, table.fdes, table.fde_count);
		eh_frame_read(elf, &table);
	}
	if (options->lines)
		lines_read(elf, &table, options->err);
	return table;
}

/* The SYMBOL of "OPTION=SYMBOL" in `arg`, or NULL if it is not that option. */
static const char *name_option(const char *arg, const char *option)
{
	size_t length = strlen(option);

	if (strncmp(arg, option, length) != 0 || arg[length] != '=' ||
	    arg[length + 1] == '\0')
		return NULL;
	return arg + length + 1;
}

/* The SYMBOLs of every "OPTION=SYMBOL" on the command line: a tracked block. */
static struct name_list name_options(const struct options *options, const char *option)
{
	struct name_list list = {
	    tracked_alloc(options->output, (size_t)options->argc, sizeof(*list.names)),
	    0};

	for (int i = 1; i < options->argc; i++)
		if (name_option(options->argv[i], option))
			list.names[list.count++] = name_option(options->argv[i], option);
	return list;
}

/* One run, inside die_catch(), which frees the file's bytes and the tables
 * on success as on error. */
static int run(void *context)
{
	const struct options *options = context;
	struct elf_file elf;
	struct table table;

	if (!options->input) {
		/* The first link has no table yet: --cfi changes nothing. */
		write_output(options->output, &(struct table){.word_size = 0});
		return 0;
	}
	elf_open(&elf, options->input);
	image_end_check(&elf, options->cfi, name_options(options, ALLOW_OPTION),
			name_options(options, HEAP_START_OPTION));
	table = read_table(&elf, options);
	write_output(options->output, &table);
	return 0;
}

static int usage(FILE *err)
{
	fprintf(err,
		"usage: symgen [--cfi] [--no-lines] [--no-symbols] "
		"[--allow-end-before-tables=SYMBOL]... "
		"[--heap-start=SYMBOL]... -o OUTPUT.c KERNEL.elf\n"
		"       symgen --empty [--cfi] -o OUTPUT.c\n"
		"  --cfi    also write the FDE index of KERNEL.elf's .eh_frame\n"
		"  --no-lines  no line table (file:line, inlined calls) from its\n"
		"           debugging information\n"
		"  --no-symbols  no symbol table (a tracer built without it prints\n"
		"           raw frames)\n"
		"  --empty  empty table and index (for the first link)\n"
		"  --allow-end-before-tables=SYMBOL  SYMBOL (end, _end, ...) does not\n"
		"           mark free memory: it may lie below the tables\n"
		"  --heap-start=SYMBOL  free memory starts at SYMBOL: it must lie\n"
		"           after the tables, as end, _end, ... must\n");
	return 2;
}

int symgen_run(int argc, char **argv, FILE *err)
{
	struct options options = {
	    .argc = argc, .argv = argv, .lines = true, .symbols = true, .err = err};
	bool empty = false;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
			options.output = argv[++i];
		else if (strcmp(argv[i], "--empty") == 0)
			empty = true;
		else if (strcmp(argv[i], "--cfi") == 0)
			options.cfi = true;
		else if (strcmp(argv[i], "--no-lines") == 0)
			options.lines = false;
		else if (strcmp(argv[i], "--no-symbols") == 0)
			options.symbols = false;
		else if (name_option(argv[i], ALLOW_OPTION) ||
			 name_option(argv[i], HEAP_START_OPTION))
			continue;
		else if (argv[i][0] != '-' && !options.input)
			options.input = argv[i];
		else
			return usage(err);
	}
	if (!options.output || empty == (options.input != NULL))
		return usage(err);
	return die_catch(err, run, &options);
}

/*
 * line_table.c - see line_table.h and the layout in tracer/line_format.h.
 */
#include "line_table.h"

#include <stdlib.h>
#include <string.h>

#include "die.h"

struct stream {
	const char *path;
	uint8_t *bytes;
	size_t size;
	size_t capacity;
};

static void put_byte(struct stream *stream, uint8_t byte)
{
	if (stream->size == stream->capacity) {
		stream->capacity = stream->capacity ? 2 * stream->capacity : 4096;
		stream->bytes =
		    tracked_realloc(stream->path, stream->bytes, stream->capacity, 1);
	}
	stream->bytes[stream->size++] = byte;
}

static void put_uleb(struct stream *stream, uint64_t value)
{
	if (value > TRACER_LINES_MAX_VALUE)
		die(stream->path, "line table: value %llu past the layout's bound",
		    (unsigned long long)value);
	do {
		uint8_t byte = value & 0x7f;

		value >>= 7;
		put_byte(stream, byte | (value ? 0x80 : 0));
	} while (value);
}

static void put_sleb(struct stream *stream, int64_t value)
{
	if (value > (int64_t)TRACER_LINES_MAX_VALUE / 2 ||
	    value < -(int64_t)TRACER_LINES_MAX_VALUE / 2)
		die(stream->path, "line table: line delta %lld past the layout's bound",
		    (long long)value);
	for (;;) {
		uint8_t byte = (uint8_t)((uint64_t)value & 0x7f);

		value >>= 7;
		if ((value == 0 && !(byte & 0x40)) || (value == -1 && byte & 0x40)) {
			put_byte(stream, byte);
			return;
		}
		put_byte(stream, byte | 0x80);
	}
}

/* A row as the layout keeps it: file 0 for an end; call 0 for none, else
 * the innermost inlined call's number. */
struct kept_row {
	uint64_t address;
	uint32_t file;
	uint32_t line;
	uint32_t call;
};

/* A block's state as the lookup (tracer/lines.c) keeps it: three
 * contexts, each a file, its last line and its call, most recent first;
 * the current row is the first's (file NO_FILE: none yet). */
#define NO_FILE UINT32_MAX

struct contexts {
	uint32_t file[3];
	uint32_t line[3];
	uint32_t call[3];
	uint32_t last_call; /* the last a CALL or the literal set, if not 0 */
};

static bool fits_int8(int64_t value)
{
	return value >= -128 && value <= 127;
}

/* Moves context `index` to the front; the ones before it move back. */
static void to_front(struct contexts *contexts, unsigned index)
{
	const uint32_t file = contexts->file[index], line = contexts->line[index];
	const uint32_t call = contexts->call[index];

	for (; index > 0; index--) {
		contexts->file[index] = contexts->file[index - 1];
		contexts->line[index] = contexts->line[index - 1];
		contexts->call[index] = contexts->call[index - 1];
	}
	contexts->file[0] = file;
	contexts->line[0] = line;
	contexts->call[0] = call;
}

/* Pushes a context in front, of the current call: the last one is
 * forgotten. */
static void push(struct contexts *contexts, uint32_t file, uint32_t line)
{
	contexts->file[2] = file;
	contexts->line[2] = line;
	contexts->call[2] = contexts->call[0];
	to_front(contexts, 2);
}

static void encode_context_row(struct stream *stream, struct contexts *contexts,
			       const struct kept_row *previous,
			       const struct kept_row *row);

/* A row, then CALL if its call is not its context's: 0 for none, else
 * the call less the current (or, if none, the last a CALL or the literal
 * set), plus 1 if not negative (see line_format.h). */
static void encode_row(struct stream *stream, struct contexts *contexts,
		       const struct kept_row *previous, const struct kept_row *row)
{
	encode_context_row(stream, contexts, previous, row);
	if (contexts->call[0] != row->call) {
		const uint32_t from =
		    contexts->call[0] ? contexts->call[0] : contexts->last_call;
		const int64_t delta = (int64_t)row->call - (int64_t)from;

		put_byte(stream, TRACER_LINES_CALL);
		put_sleb(stream, row->call == 0 ? 0 : delta >= 0 ? delta + 1 : delta);
		contexts->call[0] = row->call;
		if (row->call)
			contexts->last_call = row->call;
	}
}

/* How well context i serves row: its file, then a line near, then its
 * call; 0 if not of row's file. */
static unsigned context_score(const struct contexts *contexts, unsigned i,
			      const struct kept_row *row)
{
	if (contexts->file[i] != row->file)
		return 0;
	return 1 + 2 * fits_int8((int64_t)row->line - (int64_t)contexts->line[i]) +
	       (contexts->call[i] == row->call);
}

static void encode_context_row(struct stream *stream, struct contexts *contexts,
			       const struct kept_row *previous,
			       const struct kept_row *row)
{
	const uint64_t steps = (row->address - previous->address) / 2;
	unsigned index = 3, best = 0;
	int64_t delta = 0;

	/* Of the contexts in row's file, the first that serves it best. */
	for (unsigned i = 0; i < 3; i++) {
		const unsigned score = context_score(contexts, i, row);

		if (score > best) {
			best = score;
			index = i;
			delta = (int64_t)row->line - (int64_t)contexts->line[i];
		}
	}
	if (index == 0) {
		int special = tracer_lines_special((uint32_t)steps, delta);

		if (special >= 0) {
			put_byte(stream, (uint8_t)special);
		} else if (steps <= TRACER_LINES_RECENT - TRACER_LINES_NEAR &&
			   fits_int8(delta)) {
			put_byte(stream, (uint8_t)(TRACER_LINES_NEAR + steps - 1));
			put_byte(stream, (uint8_t)delta);
		} else if (steps <= TRACER_LINES_CALL - TRACER_LINES_FAR &&
			   delta >= INT16_MIN && delta <= INT16_MAX) {
			/* A jump in the file (an inlined function of the same
			 * file, say): the line it left is a context of its own,
			 * for the row that comes back. */
			put_byte(stream, (uint8_t)(TRACER_LINES_FAR + steps - 1));
			put_byte(stream, (uint8_t)((uint64_t)delta & 0xff));
			put_byte(stream, (uint8_t)((uint64_t)delta >> 8 & 0xff));
			push(contexts, row->file, row->line);
			return;
		} else {
			put_byte(stream, TRACER_LINES_ADVANCE);
			put_uleb(stream, steps - 1);
			put_sleb(stream, delta);
		}
		contexts->line[0] = row->line;
		return;
	}
	if (index < 3 && steps <= 16 && fits_int8(delta)) {
		put_byte(stream,
			 (uint8_t)(TRACER_LINES_RECENT + 16 * (index - 1) + steps - 1));
		put_byte(stream, (uint8_t)delta);
		to_front(contexts, index);
		contexts->line[0] = row->line;
		return;
	}
	if (steps <= TRACER_LINES_FAR - TRACER_LINES_SWITCH) {
		put_byte(stream, (uint8_t)(TRACER_LINES_SWITCH + steps - 1));
		put_uleb(stream, row->file);
	} else {
		put_byte(stream, TRACER_LINES_FILE);
		put_uleb(stream, row->file);
		put_uleb(stream, steps - 1);
	}
	put_uleb(stream, row->line);
	push(contexts, row->file, row->line);
}

/* Bits to hold value. */
static unsigned bits_of(uint64_t value)
{
	unsigned bits = 1;

	while (value >> bits)
		bits++;
	return bits;
}

/* Starts a block at row: pads the one before to block_bytes with END, then
 * writes row as the literal. */
static void start_block(struct stream *stream, const struct tracer_lines *header,
			const struct kept_row *row, uint64_t base)
{
	const uint64_t address = row->address - base;
	uint64_t literal;

	while (stream->size % header->block_bytes != 0)
		put_byte(stream, TRACER_LINES_END);
	literal = (address & ((1u << TRACER_LINES_PAGE_SHIFT) - 1)) / 2 |
		  (uint64_t)row->file << 8 |
		  (uint64_t)row->call << (8 + header->file_bits) |
		  (uint64_t)row->line << (8 + header->file_bits + header->call_bits);
	for (uint32_t i = 0; i < header->literal_bytes; i++)
		put_byte(stream, (uint8_t)(literal >> 8 * i));
}

/* Whether each page's blocks below it, less its group's first page's,
 * fit a byte, in groups of 2^shift pages. */
static bool bytes_fit(const uint32_t *below, uint32_t page_count, unsigned shift)
{
	for (uint32_t page = 0; page <= page_count; page++)
		if (below[page] - below[page >> shift << shift] > UINT8_MAX)
			return false;
	return true;
}

static int compare_addresses(const void *a, const void *b)
{
	const uint64_t left = *(const uint64_t *)a, right = *(const uint64_t *)b;

	return (left > right) - (left < right);
}

/* Where a row may start: each row's address and, with inlines, each end of
 * an inlined call's range, from the first row on; sorted, once each. */
static size_t row_starts(const char *path, const struct line_table *rows,
			 const struct inline_table *inlines, uint64_t **out)
{
	const size_t range_count = inlines ? inlines->range_count : 0;
	uint64_t *starts =
	    tracked_alloc(path, rows->row_count + 2 * range_count + 1, sizeof(*starts));
	size_t count = 0, kept = 0;

	for (size_t i = 0; i < rows->row_count; i++)
		starts[count++] = rows->rows[i].addr;
	for (size_t i = 0; i < range_count; i++) {
		const struct inline_range *range = &inlines->ranges[i];

		if (rows->row_count == 0)
			break;
		if (range->low >= rows->rows[0].addr)
			starts[count++] = range->low;
		if (range->high >= rows->rows[0].addr)
			starts[count++] = range->high;
	}
	qsort(starts, count, sizeof(*starts), compare_addresses);
	for (size_t i = 0; i < count; i++)
		if (kept == 0 || starts[kept - 1] != starts[i])
			starts[kept++] = starts[i];
	*out = starts;
	return kept;
}

/* The number of inlines->calls[call] (1 on), given on first use: a call's
 * parents are numbered before it, so a parent's number is below its
 * child's (what the lookup checks to end a chain). */
static uint32_t call_number(const char *path, const struct inline_table *inlines,
			    uint32_t *number, size_t *call_of, uint32_t *count,
			    size_t call)
{
	if (number[call] == 0) {
		const size_t parent = inlines->calls[call].parent;

		if (parent != INLINE_NO_CALL)
			call_number(path, inlines, number, call_of, count, parent);
		if (*count == UINT32_MAX)
			die(path, "line table: too many inlined calls");
		number[call] = ++*count;
		call_of[*count - 1] = call;
	}
	return number[call];
}

/* Index 1 on of name in names[0 .. *count), added if not there; 0 for
 * NULL. */
static uint32_t name_index(const char **names, size_t *count, const char *name)
{
	if (name == NULL)
		return 0;
	for (size_t i = 0; i < *count; i++)
		if (strcmp(names[i], name) == 0)
			return (uint32_t)i + 1;
	names[(*count)++] = name;
	return (uint32_t)*count;
}

/* The call's file as the rows number files (1 on), 0 for none. */
static uint32_t file_index(const char *path, const struct line_table *rows,
			   const char *file)
{
	if (file == NULL)
		return 0;
	for (size_t i = 0; i < rows->file_count; i++)
		if (strcmp(rows->files[i], file) == 0)
			return (uint32_t)i + 1;
	die(path, "line table: inlined call from %s, a file no line program names", file);
}

/* The records of calls 1 to header->call_count (see line_format.h), and
 * the header's fields for them. */
static void encode_records(const char *path, const struct line_table *rows,
			   const struct inline_table *inlines, const uint32_t *number,
			   struct tracer_lines *header, struct encoded_lines *out)
{
	const size_t count = header->call_count;
	uint32_t *name = tracked_alloc(path, count + 1, sizeof(*name));
	uint32_t *file = tracked_alloc(path, count + 1, sizeof(*file));
	size_t name_count = 0;
	uint32_t max_line = 0;

	out->names = tracked_alloc(path, count + 1, sizeof(*out->names));
	for (size_t n = 0; n < count; n++) {
		const struct inline_call *call = &inlines->calls[out->call_of[n]];

		name[n] = name_index(out->names, &name_count, call->name);
		file[n] = out->file_map[file_index(path, rows, call->call_file)];
		max_line = call->call_line > max_line ? call->call_line : max_line;
	}
	header->name_count = (uint32_t)name_count;
	header->name_bits = bits_of(name_count);
	header->call_line_bits = bits_of(max_line);
	header->record_bytes = (header->call_bits + header->name_bits +
				header->file_bits + header->call_line_bits + 7) /
			       8;
	if (header->record_bytes < TRACER_LINES_MIN_RECORD_BYTES)
		header->record_bytes = TRACER_LINES_MIN_RECORD_BYTES;
	if (header->name_bits > TRACER_LINES_MAX_NAME_BITS ||
	    header->record_bytes > TRACER_LINES_MAX_RECORD_BYTES)
		die(path, "line table: %zu names, records of %u bytes", name_count,
		    header->record_bytes);
	out->records = tracked_alloc(path, count * header->record_bytes + 1, 1);
	for (size_t n = 0; n < count; n++) {
		const struct inline_call *call = &inlines->calls[out->call_of[n]];
		const uint32_t parent =
		    call->parent == INLINE_NO_CALL ? 0 : number[call->parent];
		uint64_t fields = parent;
		unsigned shift = header->call_bits;

		fields |= (uint64_t)name[n] << shift;
		shift += header->name_bits;
		fields |= (uint64_t)file[n] << shift;
		shift += header->file_bits;
		fields |= (uint64_t)call->call_line << shift;
		for (uint32_t i = 0; i < header->record_bytes; i++)
			out->records[n * header->record_bytes + i] =
			    (uint8_t)(fields >> 8 * i);
	}
	tracked_free(name);
	tracked_free(file);
}

/* The files that rows or inlined calls name, numbered from 1 in
 * rows->files' order (out->files, out->file_map), and the rows' files
 * renumbered so: a unit without code adds none (the tables' own, whose
 * file name differs between the two links of symgen's build). */
static void keep_used_files(const char *path, const struct line_table *rows,
			    const struct inline_table *inlines, struct kept_row *kept,
			    size_t count, uint32_t call_count, struct encoded_lines *out)
{
	uint32_t *map = tracked_alloc(path, rows->file_count + 1, sizeof(*map));

	for (size_t i = 0; i < count; i++)
		map[kept[i].file] = 1;
	for (uint32_t n = 0; n < call_count; n++)
		map[file_index(path, rows, inlines->calls[out->call_of[n]].call_file)] =
		    1;
	map[0] = 0;
	out->files = tracked_alloc(path, rows->file_count + 1, sizeof(*out->files));
	out->file_count = 0;
	for (size_t file = 1; file <= rows->file_count; file++)
		if (map[file]) {
			out->files[out->file_count++] = rows->files[file - 1];
			map[file] = (uint32_t)out->file_count;
		}
	for (size_t i = 0; i < count; i++)
		kept[i].file = map[kept[i].file];
	out->file_map = map;
}

/* strings[] and string_offsets[] (line_format.h): the files, then the
 * names, each with its NUL, padded with NULs to a multiple of 4. */
static void encode_strings(const char *path, struct tracer_lines *header,
			   struct encoded_lines *out)
{
	const size_t count = out->file_count + header->name_count;
	uint64_t size = 0;

	out->string_offsets =
	    tracked_alloc(path, count + 1, sizeof(*out->string_offsets));
	for (size_t i = 0; i < count; i++) {
		const char *name =
		    i < out->file_count ? out->files[i] : out->names[i - out->file_count];

		if (size > UINT32_MAX)
			die(path, "line table: names exceed 4 GiB");
		out->string_offsets[i] = (uint32_t)size;
		size += strlen(name) + 1;
	}
	size = (size + 3) & ~(uint64_t)3;
	if (size > UINT32_MAX)
		die(path, "line table: names exceed 4 GiB");
	out->strings = tracked_alloc(path, (size_t)size + 1, 1);
	memset(out->strings, 0, (size_t)size + 1);
	for (size_t i = 0; i < count; i++) {
		const char *name =
		    i < out->file_count ? out->files[i] : out->names[i - out->file_count];

		memcpy(out->strings + out->string_offsets[i], name, strlen(name));
	}
	header->strings_size = (uint32_t)size;
	header->string_offsets = out->string_offsets;
	header->strings = out->strings;
}

void line_table_encode(const char *path, const struct line_table *rows,
		       const struct inline_table *inlines, uint32_t block_bytes,
		       struct encoded_lines *out)
{
	struct stream stream = {.path = path};
	struct contexts contexts = {{0}, {0}, {0}, 0};
	uint64_t *starts;
	const size_t start_count = row_starts(path, rows, inlines, &starts);
	struct kept_row *kept = tracked_alloc(path, start_count + 1, sizeof(*kept));
	const size_t call_count = inlines ? inlines->call_count : 0;
	uint32_t *number = tracked_alloc(path, call_count + 1, sizeof(*number));
	struct tracer_lines header = {
	    .magic = TRACER_LINES_MAGIC,
	    .version = TRACER_LINES_VERSION,
	    .word_size = sizeof(uintptr_t),
	    .block_bytes = block_bytes,
	};
	uint32_t max_line = 0, block = 0;
	uint64_t *block_address;
	uint32_t *below;
	size_t count = 0;

	out->call_of = tracked_alloc(path, call_count + 1, sizeof(*out->call_of));
	out->names = NULL;
	out->records = NULL;
	for (size_t i = 0; i < start_count; i++) {
		const struct line_row *row = dwarf_line_at(rows, starts[i]);
		struct kept_row next = {starts[i], row ? row->file + 1 : 0,
					row ? row->line : 0, 0};
		size_t innermost;

		if (inlines && dwarf_inline_chain(inlines, starts[i], &innermost, 1) > 0)
			next.call = call_number(path, inlines, number, out->call_of,
						&header.call_count, innermost);
		if (count > 0 && kept[count - 1].file == next.file &&
		    kept[count - 1].line == next.line &&
		    kept[count - 1].call == next.call)
			continue;
		if (count > 0 && ((next.address - kept[0].address) % 2 != 0 ||
				  next.address - kept[0].address > UINT32_MAX))
			die(path, "line table: row at 0x%llx odd or 4 GiB past the first",
			    (unsigned long long)next.address);
		if (next.line > TRACER_LINES_MAX_VALUE)
			die(path, "line table: line %u past the layout's bound",
			    next.line);
		max_line = next.line > max_line ? next.line : max_line;
		kept[count++] = next;
	}
	tracked_free(starts);
	keep_used_files(path, rows, inlines, kept, count, header.call_count, out);
	header.file_count = (uint32_t)out->file_count + 1;
	header.call_bits = header.call_count ? bits_of(header.call_count) : 0;
	if (header.call_bits > TRACER_LINES_MAX_CALL_BITS)
		die(path, "line table: %u inlined calls", header.call_count);
	header.file_bits = bits_of(out->file_count);
	header.literal_bytes =
	    1 + (header.file_bits + header.call_bits + bits_of(max_line) + 7) / 8;
	if (header.literal_bytes < TRACER_LINES_MIN_LITERAL_BYTES)
		header.literal_bytes = TRACER_LINES_MIN_LITERAL_BYTES;
	if (header.file_bits > TRACER_LINES_MAX_FILE_BITS)
		die(path, "line table: %zu files", out->file_count);
	if (block_bytes < header.literal_bytes ||
	    block_bytes > TRACER_LINES_MAX_BLOCK_BYTES ||
	    header.literal_bytes > TRACER_LINES_MAX_LITERAL_BYTES)
		die(path, "line table: blocks of %u bytes, literals of %u", block_bytes,
		    header.literal_bytes);

	/* Each row goes in the block of the row before if it fits there, else
	 * starts the next block. */
	block_address = tracked_alloc(path, count + 1, sizeof(*block_address));
	for (size_t i = 0; i < count; i++) {
		const size_t before = stream.size;

		if (i > 0) {
			encode_row(&stream, &contexts, &kept[i - 1], &kept[i]);
			if (stream.size <= (size_t)block * block_bytes)
				continue;
			stream.size = before;
		}
		start_block(&stream, &header, &kept[i], kept[0].address);
		block_address[block++] = kept[i].address - kept[0].address;
		contexts = (struct contexts){{kept[i].file, NO_FILE, NO_FILE},
					     {kept[i].line, 0, 0},
					     {kept[i].call, 0, 0},
					     kept[i].call};
	}
	if (stream.size > UINT32_MAX || block > UINT16_MAX)
		die(path, "line table: %zu bytes, %u blocks", stream.size, block);
	header.row_count = (uint32_t)count;
	header.block_count = block;
	header.stream_size = (uint32_t)stream.size;
	header.base = count ? (uintptr_t)kept[0].address : 0;
	/* The blocks that start below each page, as a group's entry plus the
	 * page's own byte: groups as large as that byte allows. */
	header.page_count =
	    count ? (uint32_t)((kept[count - 1].address - kept[0].address) >>
			       TRACER_LINES_PAGE_SHIFT) +
			1
		  : 0;
	below = tracked_alloc(path, header.page_count + 1, sizeof(*below));
	for (uint32_t page = 0, blocks = 0; page <= header.page_count; page++) {
		while (blocks < block &&
		       block_address[blocks] < (uint64_t)page << TRACER_LINES_PAGE_SHIFT)
			blocks++;
		below[page] = page < header.page_count ? blocks : block;
	}
	header.group_shift = TRACER_LINES_GROUP_SHIFT + 1;
	do
		header.group_shift--;
	while (!bytes_fit(below, header.page_count, header.group_shift));
	out->group_block =
	    tracked_alloc(path, (header.page_count >> header.group_shift) + 1,
			  sizeof(*out->group_block));
	out->page_block =
	    tracked_alloc(path, header.page_count + 1, sizeof(*out->page_block));
	for (uint32_t page = 0; page <= header.page_count; page++) {
		const uint32_t group = page >> header.group_shift;

		if (page % (1u << header.group_shift) == 0)
			out->group_block[group] = (uint16_t)below[page];
		out->page_block[page] = (uint8_t)(below[page] - out->group_block[group]);
	}
	if (header.call_count)
		encode_records(path, rows, inlines, number, &header, out);
	encode_strings(path, &header, out);
	out->stream = stream.bytes;
	header.records = out->records;
	header.group_block = out->group_block;
	header.page_block = out->page_block;
	header.stream = out->stream ? out->stream : (const uint8_t *)"";
	out->header = header;
	tracked_free(below);
	tracked_free(block_address);
	tracked_free(kept);
	tracked_free(number);
}

size_t line_table_bytes(const struct encoded_lines *table)
{
	/* The header as a 64-bit image holds it (the inline table's fields
	 * apart), then the page map. */
	return offsetof(struct tracer_lines, call_bits) +
	       (((size_t)table->header.page_count >> table->header.group_shift) + 1) *
		   sizeof(uint16_t) +
	       ((size_t)table->header.page_count + 1) + table->header.stream_size;
}

size_t line_table_record_bytes(const struct encoded_lines *table)
{
	size_t bytes = sizeof(struct tracer_lines) -
		       offsetof(struct tracer_lines, call_bits) +
		       (size_t)table->header.call_count * table->header.record_bytes;

	for (uint32_t i = 0; i < table->header.name_count; i++)
		bytes += strlen(table->names[i]) + 1 + sizeof(uint32_t);
	return bytes;
}

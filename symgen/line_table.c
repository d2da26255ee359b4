/*
 * line_table.c - see line_table.h and the layout in tracer/line_format.h.
 */
#include "line_table.h"

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

/* A row as the layout keeps it: file 0 for an end. */
struct kept_row {
	uint64_t address;
	uint32_t file;
	uint32_t line;
};

/* A block's state as the lookup (tracer/lines.c) keeps it: three
 * contexts, each a file and its last line, most recent first; the current
 * row is the first's (file NO_FILE: none yet). */
#define NO_FILE UINT32_MAX

struct contexts {
	uint32_t file[3];
	uint32_t line[3];
};

static bool fits_int8(int64_t value)
{
	return value >= -128 && value <= 127;
}

/* Moves context `index` to the front; the ones before it move back. */
static void to_front(struct contexts *contexts, unsigned index)
{
	const uint32_t file = contexts->file[index], line = contexts->line[index];

	for (; index > 0; index--) {
		contexts->file[index] = contexts->file[index - 1];
		contexts->line[index] = contexts->line[index - 1];
	}
	contexts->file[0] = file;
	contexts->line[0] = line;
}

/* Pushes a context in front: the last one is forgotten. */
static void push(struct contexts *contexts, uint32_t file, uint32_t line)
{
	contexts->file[2] = file;
	contexts->line[2] = line;
	to_front(contexts, 2);
}

static void encode_row(struct stream *stream, struct contexts *contexts,
		       const struct kept_row *previous, const struct kept_row *row)
{
	const uint64_t steps = (row->address - previous->address) / 2;
	unsigned index = 3;
	int64_t delta = 0;

	/* Of the contexts in row's file, the first whose line is near. */
	for (unsigned i = 3; i-- > 0;) {
		const int64_t from_here = (int64_t)row->line - (int64_t)contexts->line[i];

		if (contexts->file[i] == row->file &&
		    (index == 3 || fits_int8(from_here) || !fits_int8(delta))) {
			index = i;
			delta = from_here;
		}
	}
	if (index == 0) {
		int special = tracer_lines_special((uint32_t)steps, delta);

		if (special >= 0) {
			put_byte(stream, (uint8_t)special);
		} else if (steps <= 32 && fits_int8(delta)) {
			put_byte(stream, (uint8_t)(TRACER_LINES_NEAR + steps - 1));
			put_byte(stream, (uint8_t)delta);
		} else if (steps <= TRACER_LINES_SPECIAL - TRACER_LINES_FAR &&
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
	if (steps <= 16) {
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
		  (uint64_t)row->line << (8 + header->file_bits);
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

void line_table_encode(const char *path, const struct line_table *rows,
		       uint32_t block_bytes, struct encoded_lines *out)
{
	struct stream stream = {.path = path};
	struct contexts contexts = {{0}, {0}};
	struct kept_row *kept = tracked_alloc(path, rows->row_count + 1, sizeof(*kept));
	struct tracer_lines header = {.magic = TRACER_LINES_MAGIC,
				      .version = TRACER_LINES_VERSION,
				      .block_bytes = block_bytes,
				      .file_count = (uint32_t)rows->file_count + 1};
	uint32_t max_line = 0, block = 0;
	uint64_t *block_address;
	uint32_t *below;
	size_t count = 0;

	for (size_t i = 0; i < rows->row_count; i++) {
		const struct line_row *row = &rows->rows[i];
		struct kept_row next = {row->addr, row->end ? 0 : row->file + 1,
					row->end ? 0 : row->line};

		if (count > 0 && kept[count - 1].file == next.file &&
		    kept[count - 1].line == next.line)
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
	header.file_bits = bits_of(rows->file_count);
	header.literal_bytes = 1 + (header.file_bits + bits_of(max_line) + 7) / 8;
	if (header.literal_bytes < TRACER_LINES_MIN_LITERAL_BYTES)
		header.literal_bytes = TRACER_LINES_MIN_LITERAL_BYTES;
	if (header.file_bits > TRACER_LINES_MAX_FILE_BITS)
		die(path, "line table: %zu files", rows->file_count);
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
					     {kept[i].line, 0, 0}};
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
	out->stream = stream.bytes;
	header.group_block = out->group_block;
	header.page_block = out->page_block;
	header.stream = out->stream ? out->stream : (const uint8_t *)"";
	out->header = header;
	tracked_free(below);
	tracked_free(block_address);
	tracked_free(kept);
}

size_t line_table_bytes(const struct encoded_lines *table)
{
	/* The header as a 64-bit image holds it, then the page map. */
	return sizeof(struct tracer_lines) +
	       (((size_t)table->header.page_count >> table->header.group_shift) + 1) *
		   sizeof(uint16_t) +
	       ((size_t)table->header.page_count + 1) + table->header.stream_size;
}

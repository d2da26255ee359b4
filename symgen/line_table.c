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
	uint64_t bits; /* the bit codec's pending bits, `pending` of them */
	unsigned pending;
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

static void put_bits(struct stream *stream, uint64_t value, unsigned count)
{
	for (unsigned i = count; i-- > 0;) {
		stream->bits = stream->bits << 1 | (value >> i & 1);
		if (++stream->pending == 8) {
			put_byte(stream, (uint8_t)stream->bits);
			stream->bits = 0;
			stream->pending = 0;
		}
	}
}

static void flush_bits(struct stream *stream)
{
	if (stream->pending)
		put_bits(stream, 0, 8 - stream->pending);
}

static void put_exp_golomb(struct stream *stream, uint64_t value, unsigned k)
{
	uint64_t quotient = (value >> k) + 1;
	unsigned length = 0;

	if (value > TRACER_LINES_MAX_VALUE)
		die(stream->path, "line table: value %llu past the layout's bound",
		    (unsigned long long)value);
	while (quotient >> length > 1)
		length++;
	put_bits(stream, 0, length);
	put_bits(stream, quotient, length + 1);
	put_bits(stream, value, k);
}

/* A row as the layout keeps it: file 0 for an end. */
struct kept_row {
	uint64_t address;
	uint32_t file;
	uint32_t line;
};

/* The byte codec's state of a block, as bytes_advance() in tracer/lines.c
 * keeps it: the current file and line, and the two files before it with
 * their last lines (file NO_FILE: none yet). */
#define NO_FILE UINT32_MAX

struct byte_files {
	uint32_t file[3];
	uint32_t line[3];
};

static bool fits_int8(int64_t value)
{
	return value >= -128 && value <= 127;
}

static void encode_bytes_row(struct stream *stream, struct byte_files *files,
			     const struct kept_row *previous, const struct kept_row *row)
{
	const uint64_t steps = (row->address - previous->address) / 2;
	unsigned index = 0;
	int64_t delta;

	while (index < 3 && files->file[index] != row->file)
		index++;
	delta = index < 3 ? (int64_t)row->line - (int64_t)files->line[index] : 0;
	if (index == 0) {
		int special = tracer_lines_special((uint32_t)steps, delta);

		if (special >= 0) {
			put_byte(stream, (uint8_t)special);
		} else if (steps <= 32 && fits_int8(delta)) {
			put_byte(stream, (uint8_t)(TRACER_LINES_NEAR + steps - 1));
			put_byte(stream, (uint8_t)delta);
		} else if (steps <= 16 && delta >= INT16_MIN && delta <= INT16_MAX) {
			put_byte(stream, (uint8_t)(TRACER_LINES_FAR + steps - 1));
			put_byte(stream, (uint8_t)((uint64_t)delta & 0xff));
			put_byte(stream, (uint8_t)((uint64_t)delta >> 8 & 0xff));
		} else {
			put_byte(stream, TRACER_LINES_ADVANCE);
			put_uleb(stream, steps - 1);
			put_sleb(stream, delta);
		}
		files->line[0] = row->line;
		return;
	}
	if (index < 3 && steps <= 16 && fits_int8(delta)) {
		put_byte(stream,
			 (uint8_t)(TRACER_LINES_RECENT + 16 * (index - 1) + steps - 1));
		put_byte(stream, (uint8_t)delta);
	} else {
		if (steps <= 16) {
			put_byte(stream, (uint8_t)(TRACER_LINES_SWITCH + steps - 1));
			put_uleb(stream, row->file);
		} else {
			put_byte(stream, TRACER_LINES_FILE);
			put_uleb(stream, row->file);
			put_uleb(stream, steps - 1);
		}
		put_uleb(stream, row->line);
		index = index < 3 ? index : 2;
	}
	/* Move to the front. */
	for (; index > 0; index--) {
		files->file[index] = files->file[index - 1];
		files->line[index] = files->line[index - 1];
	}
	files->file[0] = row->file;
	files->line[0] = row->line;
}

/* The bit codec's state of a block: as bits_advance() in tracer/lines.c. */
struct recent_files {
	uint32_t file[3];
	uint32_t line[3];
	unsigned known;
};

static void encode_bits_row(struct stream *stream, const struct line_table_layout *layout,
			    unsigned file_bits, struct recent_files *recent,
			    const struct kept_row *previous, const struct kept_row *row)
{
	unsigned index = 0;
	uint32_t base_line;
	int64_t delta;

	while (index < recent->known && recent->file[index] != row->file)
		index++;
	if (index == recent->known)
		index = 3;
	if (index == 0) {
		put_bits(stream, 0, 1);
	} else if (index < 3) {
		put_bits(stream, 2, 2);
		put_bits(stream, index - 1, 1);
	} else {
		put_bits(stream, 3, 2);
		put_bits(stream, row->file, file_bits);
	}
	put_exp_golomb(stream, (row->address - previous->address) / 2 - 1,
		       layout->address_k);
	base_line = index < 3 ? recent->line[index] : recent->line[0];
	delta = (int64_t)row->line - (int64_t)base_line;
	put_exp_golomb(stream,
		       delta >= 0 ? (uint64_t)delta * 2 : (uint64_t)(-delta) * 2 - 1,
		       layout->line_k);
	if (index == 3)
		index = recent->known < 3 ? recent->known++ : 2;
	for (; index > 0; index--) {
		recent->file[index] = recent->file[index - 1];
		recent->line[index] = recent->line[index - 1];
	}
	recent->file[0] = row->file;
	recent->line[0] = row->line;
}

void line_table_encode(const char *path, const struct line_table *rows,
		       const struct line_table_layout *layout, struct encoded_lines *out)
{
	struct stream stream = {.path = path};
	struct recent_files recent = {{0}, {0}, 0};
	struct byte_files byte_files = {{0}, {0}};
	uint32_t group = 0;
	struct kept_row *kept = tracked_alloc(path, rows->row_count + 1, sizeof(*kept));
	size_t count = 0;
	unsigned file_bits = 1;

	if (layout->block_rows == 0 || layout->block_rows > TRACER_LINES_MAX_BLOCK_ROWS)
		die(path, "line table: blocks of %u rows", layout->block_rows);
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
		if (next.line > TRACER_LINES_MAX_VALUE || next.line > 0xffff)
			die(path, "line table: line %u past the layout's bound",
			    next.line);
		kept[count++] = next;
	}
	while (rows->file_count + 1 > (size_t)1 << file_bits)
		file_bits++;
	if (file_bits > TRACER_LINES_MAX_FILE_BITS)
		die(path, "line table: %zu files", rows->file_count);

	memset(out, 0, sizeof(*out));
	out->header.block_count =
	    (uint32_t)((count + layout->block_rows - 1) / layout->block_rows);
	out->header.group_count =
	    (out->header.block_count + TRACER_LINES_GROUP_BLOCKS - 1) /
	    TRACER_LINES_GROUP_BLOCKS;
	out->group_address =
	    tracked_alloc(path, out->header.group_count + 1, sizeof(uint32_t));
	out->group_offset =
	    tracked_alloc(path, out->header.group_count + 1, sizeof(uint32_t));
	out->block_address =
	    tracked_alloc(path, out->header.block_count + 1, sizeof(uint16_t));
	out->block_offset =
	    tracked_alloc(path, out->header.block_count + 1, sizeof(uint16_t));
	for (size_t i = 0; i < count; i++) {
		const uint32_t block = (uint32_t)(i / layout->block_rows);
		const uint64_t address = kept[i].address - kept[0].address;

		if (i % layout->block_rows == 0) {
			flush_bits(&stream);
			if (block % TRACER_LINES_GROUP_BLOCKS == 0) {
				group = block / TRACER_LINES_GROUP_BLOCKS;
				out->group_address[group] = (uint32_t)address;
				out->group_offset[group] = (uint32_t)stream.size;
			}
			if ((address - out->group_address[group]) / 2 > UINT16_MAX ||
			    stream.size - out->group_offset[group] > UINT16_MAX)
				die(path,
				    "line table: a group of blocks past 64 Ki halfwords "
				    "or bytes at 0x%llx",
				    (unsigned long long)kept[i].address);
			out->block_address[block] =
			    (uint16_t)((address - out->group_address[group]) / 2);
			out->block_offset[block] =
			    (uint16_t)(stream.size - out->group_offset[group]);
			if (layout->codec == TRACER_LINES_BYTES) {
				put_uleb(&stream, kept[i].file);
				put_uleb(&stream, kept[i].line);
				byte_files =
				    (struct byte_files){{kept[i].file, NO_FILE, NO_FILE},
							{kept[i].line, 0, 0}};
			} else {
				put_bits(&stream, kept[i].file, file_bits);
				put_bits(&stream, kept[i].line, 16);
				recent = (struct recent_files){
				    {kept[i].file}, {kept[i].line}, 1};
			}
		} else if (layout->codec == TRACER_LINES_BYTES) {
			encode_bytes_row(&stream, &byte_files, &kept[i - 1], &kept[i]);
		} else {
			encode_bits_row(&stream, layout, file_bits, &recent, &kept[i - 1],
					&kept[i]);
		}
	}
	flush_bits(&stream);
	/* Each page's blocks: those whose first row starts at or below it. */
	out->header.page_count =
	    count ? (uint32_t)((kept[count - 1].address - kept[0].address) >>
			       TRACER_LINES_PAGE_SHIFT) +
			1
		  : 0;
	out->page_block =
	    tracked_alloc(path, out->header.page_count + 1, sizeof(uint16_t));
	if (out->header.block_count > UINT16_MAX)
		die(path, "line table: %u blocks", out->header.block_count);
	for (uint32_t page = 0, blocks = 0; page < out->header.page_count; page++) {
		while (blocks < out->header.block_count &&
		       out->group_address[blocks / TRACER_LINES_GROUP_BLOCKS] +
			       2 * (uint64_t)out->block_address[blocks] <=
			   (uint64_t)page << TRACER_LINES_PAGE_SHIFT)
			blocks++;
		out->page_block[page] = (uint16_t)blocks;
	}
	if (stream.size > UINT32_MAX)
		die(path, "line table: %zu bytes", stream.size);
	out->stream = stream.bytes;
	out->header = (struct tracer_lines){
	    .magic = TRACER_LINES_MAGIC,
	    .version = TRACER_LINES_VERSION,
	    .codec = layout->codec,
	    .block_rows = layout->block_rows,
	    .row_count = (uint32_t)count,
	    .block_count = out->header.block_count,
	    .group_count = out->header.group_count,
	    .page_count = out->header.page_count,
	    .stream_size = (uint32_t)stream.size,
	    .file_count = (uint32_t)rows->file_count + 1,
	    .file_bits = file_bits,
	    .address_k = layout->address_k,
	    .line_k = layout->line_k,
	    .base = count ? (uintptr_t)kept[0].address : 0,
	    .page_block = out->page_block,
	    .group_address = out->group_address,
	    .group_offset = out->group_offset,
	    .block_address = out->block_address,
	    .block_offset = out->block_offset,
	    .stream = out->stream ? out->stream : (const uint8_t *)"",
	};
	tracked_free(kept);
}

size_t line_table_bytes(const struct encoded_lines *table)
{
	/* The header as a 64-bit image holds it, then the index. */
	return sizeof(struct tracer_lines) +
	       (size_t)table->header.page_count * sizeof(uint16_t) +
	       (size_t)table->header.group_count * 2 * sizeof(uint32_t) +
	       (size_t)table->header.block_count * 2 * sizeof(uint16_t) +
	       table->header.stream_size;
}

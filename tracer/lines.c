/*
 * lines.c - PROTOTYPE (issue 19, not in the image yet): see lines.h and
 * the layout in line_format.h. Every read of the stream is checked against
 * its size; steps and values are bounded (TRACER_LINES_MAX_VALUE) and
 * addresses kept in 64 bits, so no sum overflows; lines wrap (unsigned), so
 * a hostile table gives a wrong line, never undefined behaviour.
 */
#include "lines.h"

bool tracer_lines_valid(const struct tracer_lines *table)
{
	uint32_t blocks;

	if (table->magic != TRACER_LINES_MAGIC ||
	    table->version != TRACER_LINES_VERSION || table->block_rows == 0 ||
	    table->block_rows > TRACER_LINES_MAX_BLOCK_ROWS ||
	    (table->page_block == NULL && table->page_count != 0) ||
	    table->group_address == NULL || table->group_offset == NULL ||
	    table->block_address == NULL || table->block_offset == NULL ||
	    (table->stream == NULL && table->stream_size != 0))
		return false;
	blocks = table->row_count / table->block_rows +
		 (table->row_count % table->block_rows != 0);
	if (table->block_count != blocks ||
	    table->group_count != blocks / TRACER_LINES_GROUP_BLOCKS +
				      (blocks % TRACER_LINES_GROUP_BLOCKS != 0))
		return false;
	if (table->codec == TRACER_LINES_BYTES)
		return true;
	return table->codec == TRACER_LINES_BITS && table->file_bits >= 1 &&
	       table->file_bits <= TRACER_LINES_MAX_FILE_BITS &&
	       table->address_k <= TRACER_LINES_MAX_EG_K &&
	       table->line_k <= TRACER_LINES_MAX_EG_K;
}

/* A block's rows as they are decoded: the current one, and where the
 * next starts. */
struct line_state {
	uint64_t address; /* from base */
	uint32_t file;
	uint32_t line;
};

/* The byte codec's reads: each moves *at past what it read and fails at
 * end. LEB128 values of at most 4 bytes, 28 bits (TRACER_LINES_MAX_VALUE);
 * a signed one as a 28-bit two's complement, returned as uint32_t to add
 * with wrap-around. */
static inline bool read_leb(const uint8_t **at, const uint8_t *end, bool is_signed,
			    uint32_t *value)
{
	uint32_t result = 0;

	/* Most are one byte: a file, a line below 128. */
	if (*at < end && **at < 0x40) {
		*value = *(*at)++;
		return true;
	}
	for (unsigned shift = 0; shift < 28 && *at < end; shift += 7) {
		uint32_t byte = *(*at)++;

		result |= (byte & 0x7f) << shift;
		if (!(byte & 0x80)) {
			if (is_signed && byte & 0x40)
				result |= ~(uint32_t)0 << (shift + 7);
			*value = result;
			return true;
		}
	}
	return false;
}

/* A signed byte as a delta to add with wrap-around. */
static inline bool read_int8(const uint8_t **at, const uint8_t *end, uint32_t *value)
{
	if (*at >= end)
		return false;
	*value = (*(*at)++ ^ 0x80u) - 0x80u;
	return true;
}

/* No file: a remembered file the block has not had. */
#define NO_FILE UINT32_MAX

/* The byte codec's files: the current one and its line, and the two
 * before it with their last lines, most recent first. */
struct byte_files {
	uint32_t file, line;
	uint32_t before_file, before_line;
	uint32_t earlier_file, earlier_line;
};

/* A row of new_file (the opcodes FILE and SWITCH): of the two files before,
 * the one that is not new_file stays. */
static inline void switch_file(struct byte_files *files, uint32_t new_file)
{
	if (new_file != files->before_file) {
		files->earlier_file = files->before_file;
		files->earlier_line = files->before_line;
	}
	files->before_file = files->file;
	files->before_line = files->line;
	files->file = new_file;
}

/* The byte codec: the block's rows in stream[start, stop) after its first
 * while they start at or below offset. */
static inline bool bytes_advance(const struct tracer_lines *table, uint32_t start,
				 uint32_t stop, uint64_t offset, struct line_state *state)
{
	const uint8_t *at, *end;
	struct byte_files files = {0, 0, NO_FILE, 0, NO_FILE, 0};
	uint32_t delta, steps, swap, new_file;
	uint64_t address = state->address, next;

	if (start > stop || stop > table->stream_size)
		return false;
	at = table->stream + start;
	end = table->stream + stop;
	if (!read_leb(&at, end, false, &files.file) ||
	    !read_leb(&at, end, false, &files.line))
		return false;
	while (at < end) {
		uintptr_t opcode = *at++;

		/* By frequency on the test kernels: special 53% of rows, near
		 * 21%, recent 13%, far 7%, switch 6%, the others 0.2%. */
		if (opcode >= TRACER_LINES_SPECIAL) {
			opcode -= TRACER_LINES_SPECIAL;
			next = address + (opcode >> 3 & ~(uintptr_t)1) + 2;
			if (next > offset)
				break;
			address = next;
			files.line +=
			    (uint32_t)(opcode & 15) + (uint32_t)TRACER_LINES_LINE_BASE;
			continue;
		}
		if (opcode < TRACER_LINES_RECENT && opcode >= TRACER_LINES_NEAR) {
			next = address + 2 * (opcode - TRACER_LINES_NEAR) + 2;
			if (next > offset)
				break;
			if (!read_int8(&at, end, &delta))
				return false;
			files.line += delta;
		} else if (opcode >= TRACER_LINES_RECENT &&
			   opcode < TRACER_LINES_SWITCH) {
			opcode -= TRACER_LINES_RECENT;
			next = address + 2 * (opcode & 15) + 2;
			if (next > offset)
				break;
			swap = files.file;
			if (opcode < 16) {
				files.file = files.before_file;
				files.before_file = swap;
				swap = files.line;
				files.line = files.before_line;
				files.before_line = swap;
			} else {
				files.file = files.earlier_file;
				files.earlier_file = files.before_file;
				files.before_file = swap;
				swap = files.line;
				files.line = files.earlier_line;
				files.earlier_line = files.before_line;
				files.before_line = swap;
			}
			if (files.file == NO_FILE || !read_int8(&at, end, &delta))
				return false;
			files.line += delta;
		} else if (opcode >= TRACER_LINES_FAR) {
			next = address + 2 * (opcode - TRACER_LINES_FAR) + 2;
			if (next > offset)
				break;
			if (end - at < 2)
				return false;
			delta = (uint32_t)at[0] | (uint32_t)at[1] << 8;
			at += 2;
			files.line += (delta ^ 0x8000u) - 0x8000u;
		} else if (opcode >= TRACER_LINES_SWITCH) {
			next = address + 2 * (opcode - TRACER_LINES_SWITCH) + 2;
			if (next > offset)
				break;
			if (!read_leb(&at, end, false, &new_file))
				return false;
			switch_file(&files, new_file);
			if (!read_leb(&at, end, false, &files.line))
				return false;
		} else if (opcode == TRACER_LINES_ADVANCE) {
			if (!read_leb(&at, end, false, &steps))
				return false;
			next = address + 2 * (uint64_t)steps + 2;
			if (next > offset)
				break;
			if (!read_leb(&at, end, true, &delta))
				return false;
			files.line += delta;
		} else {
			if (!read_leb(&at, end, false, &new_file) ||
			    !read_leb(&at, end, false, &steps))
				return false;
			next = address + 2 * (uint64_t)steps + 2;
			if (next > offset)
				break;
			switch_file(&files, new_file);
			if (!read_leb(&at, end, false, &files.line))
				return false;
		}
		address = next;
	}
	state->address = address;
	state->file = files.file;
	state->line = files.line;
	return true;
}

struct bit_reader {
	const uint8_t *stream;
	uint32_t size;
	uint32_t position; /* of the next byte to load */
	unsigned count;	   /* bits in buffer, its low ones */
	uint64_t buffer;
	bool bad;
};

/* count <= 32 bits, most significant first. */
static uint32_t read_bits(struct bit_reader *reader, unsigned count)
{
	while (reader->count < count) {
		if (reader->position >= reader->size) {
			reader->bad = true;
			return 0;
		}
		reader->buffer = reader->buffer << 8 | reader->stream[reader->position++];
		reader->count += 8;
	}
	reader->count -= count;
	return (uint32_t)(reader->buffer >> reader->count) &
	       (uint32_t)(((uint64_t)1 << count) - 1);
}

/* Exp-Golomb with parameter k: zeros, then as many bits after a 1, then k
 * bits. Values past TRACER_LINES_MAX_VALUE are corrupt. */
static uint32_t read_exp_golomb(struct bit_reader *reader, unsigned k)
{
	unsigned zeros = 0;
	uint64_t value;

	while (read_bits(reader, 1) == 0) {
		if (++zeros > 28 || reader->bad) {
			reader->bad = true;
			return 0;
		}
	}
	value = ((uint64_t)1 << zeros | read_bits(reader, zeros)) - 1;
	value = value << k | read_bits(reader, k);
	if (value > TRACER_LINES_MAX_VALUE) {
		reader->bad = true;
		return 0;
	}
	return (uint32_t)value;
}

/* The bit codec (line_format.h): the three most recent files of the block
 * and their last lines, most recent first. */
static __attribute__((noinline)) bool bits_advance(const struct tracer_lines *table,
						   uint32_t start, uint32_t rows,
						   uint64_t offset,
						   struct line_state *state)
{
	struct bit_reader reader = {table->stream, table->stream_size, start, 0, 0,
				    false};
	uint32_t recent_file[3], recent_line[3];
	unsigned known = 1;

	recent_file[0] = read_bits(&reader, table->file_bits);
	recent_line[0] = read_bits(&reader, 16);
	while (rows-- > 0 && !reader.bad) {
		unsigned index = 0;
		uint32_t file, line, zigzag;
		uint64_t address;

		if (read_bits(&reader, 1)) {
			if (read_bits(&reader, 1) == 0) {
				index = 1 + read_bits(&reader, 1);
				if (index >= known) {
					reader.bad = true;
					break;
				}
			} else {
				index = 3;
			}
		}
		file =
		    index < 3 ? recent_file[index] : read_bits(&reader, table->file_bits);
		address = state->address +
			  2 * ((uint64_t)read_exp_golomb(&reader, table->address_k) + 1);
		if (address > offset)
			break;
		zigzag = read_exp_golomb(&reader, table->line_k);
		line = (index < 3 ? recent_line[index] : recent_line[0]) +
		       (zigzag & 1 ? ~(zigzag >> 1) : zigzag >> 1);
		state->address = address;
		/* Move to the front. */
		if (index == 3) {
			index = known < 3 ? known++ : 2;
		}
		for (; index > 0; index--) {
			recent_file[index] = recent_file[index - 1];
			recent_line[index] = recent_line[index - 1];
		}
		recent_file[0] = file;
		recent_line[0] = line;
	}
	state->file = recent_file[0];
	state->line = recent_line[0];
	return !reader.bad;
}

/* Where a block's rows end in the stream: where the next block's start. */
static uint32_t block_end(const struct tracer_lines *table, uintptr_t group,
			  uintptr_t block)
{
	const uintptr_t next = block + 1;
	uint32_t start;

	if (next == table->block_count)
		return table->stream_size;
	if (next % TRACER_LINES_GROUP_BLOCKS == 0)
		return table->group_offset[group + 1];
	start = table->group_offset[group] + table->block_offset[next];
	/* A sum that wraps: a corrupt table, which bytes_advance() rejects. */
	return start < table->group_offset[group] ? 0 : start;
}

enum tracer_line_result tracer_line_at(const struct tracer_lines *table, uintptr_t pc,
				       struct tracer_line *found)
{
	uintptr_t group, block, rows;
	uint32_t start;
	uint64_t offset, group_address;
	struct line_state state;
	bool good;

	if (pc < table->base || pc - table->base > UINT32_MAX)
		return TRACER_LINE_NONE;
	offset = pc - table->base;
	/* The blocks that start at or below the page, then those that start
	 * between the page and offset. */
	block = offset >> TRACER_LINES_PAGE_SHIFT < table->page_count
		    ? table->page_block[offset >> TRACER_LINES_PAGE_SHIFT]
		    : table->block_count;
	if (block > table->block_count)
		return TRACER_LINE_CORRUPT;
	while (block < table->block_count &&
	       table->group_address[block / TRACER_LINES_GROUP_BLOCKS] +
		       2 * (uint64_t)table->block_address[block] <=
		   offset)
		block++;
	if (block == 0)
		return TRACER_LINE_NONE;
	block--;
	group = block / TRACER_LINES_GROUP_BLOCKS;
	group_address = table->group_address[group];
	state.address = group_address + 2 * (uint64_t)table->block_address[block];
	start = table->group_offset[group] + table->block_offset[block];
	if (start < table->group_offset[group])
		return TRACER_LINE_CORRUPT;
	if (table->codec == TRACER_LINES_BYTES)
		good = bytes_advance(table, start, block_end(table, group, block), offset,
				     &state);
	else {
		rows = table->row_count - block * table->block_rows;
		rows = (rows < table->block_rows ? rows : table->block_rows) - 1;
		good = bits_advance(table, start, (uint32_t)rows, offset, &state);
	}
	if (!good || state.file >= table->file_count)
		return TRACER_LINE_CORRUPT;
	if (state.file == 0)
		return TRACER_LINE_NONE;
	found->file = state.file;
	found->line = state.line;
	return TRACER_LINE_FOUND;
}

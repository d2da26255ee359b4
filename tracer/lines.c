/*
 * lines.c - see lines.h and the layout in line_format.h. tracer_lines_valid() bounds
 * every block's literal inside the stream, and each further read is checked against its
 * block's end; steps and values are bounded (TRACER_LINES_MAX_VALUE) and
 * addresses kept in 64 bits, so no sum overflows; lines wrap (unsigned), so
 * a hostile table gives a wrong line, never undefined behaviour. Signed
 * bytes are read as int8_t, a character type, so any byte is a value.
 */
#include "lines.h"

/* A context's file and call in one word, the call in the high 16 bits
 * (files and calls are below 2^16): three contexts then take as many
 * registers as they did without calls. */
#define PLACE_CALL_SHIFT 16u
#define PLACE_FILE_MASK	 0xffffu

/* No place: a context the block has not had (no call is 0xffff). */
#define NO_PLACE UINT32_MAX

/*
 * Bit fields packed little-endian in up to 8 bytes (a literal's, a
 * record's), read whole and then taken apart. On rv64 a 64-bit word; on
 * rv32 two halves, since a variable 64-bit shift there is a runtime
 * routine (__lshrdi3), which a kernel need not have. The host tools
 * (TRACER_HOST_VIEW) take the halves too, so that line_lookup checks them
 * at every address of the test kernels; the unit tests take the word.
 */
#if UINTPTR_MAX > 0xffffffffu && !defined(TRACER_HOST_VIEW)
typedef uint64_t packed_fields;

/* count bytes (at least `unrolled`, 3 or 4, at most 8) at bytes. */
static inline packed_fields packed_read(const uint8_t *bytes, uint32_t count,
					uint32_t unrolled)
{
	uint64_t value = bytes[0] | (uint32_t)bytes[1] << 8 | (uint32_t)bytes[2] << 16;

	if (unrolled == 4)
		value |= (uint64_t)bytes[3] << 24;
	for (uint32_t i = unrolled; i < count; i++)
		value |= (uint64_t)bytes[i] << (8 * i);
	return value;
}

/* The 32 bits from bit `shift` on (below 64). */
static inline uint32_t packed_from(packed_fields value, uint32_t shift)
{
	return (uint32_t)(value >> shift);
}
#else
typedef struct {
	uint32_t low, high;
} packed_fields;

static inline packed_fields packed_read(const uint8_t *bytes, uint32_t count,
					uint32_t unrolled)
{
	packed_fields value = {
	    bytes[0] | (uint32_t)bytes[1] << 8 | (uint32_t)bytes[2] << 16, 0};

	if (unrolled == 4)
		value.low |= (uint32_t)bytes[3] << 24;
	for (uint32_t i = unrolled; i < count; i++) {
		if (i < 4)
			value.low |= (uint32_t)bytes[i] << 24;
		else
			value.high |= (uint32_t)bytes[i] << (8 * (i - 4));
	}
	return value;
}

static inline uint32_t packed_from(packed_fields value, uint32_t shift)
{
	if (shift >= 32)
		return value.high >> (shift - 32);
	if (shift == 0)
		return value.low;
	return value.low >> shift | value.high << (32 - shift);
}
#endif

/* Bits [shift, shift + width) (width below 32). */
static inline uint32_t packed_bits(packed_fields value, uint32_t shift, uint32_t width)
{
	return packed_from(value, shift) & ((1u << width) - 1);
}

/* The 32-bit fields the checksum covers, in order: a loop over them is a
 * tenth of the code of 16 hash steps written out. */
static const uint8_t checksummed_fields[] = {
    offsetof(struct tracer_lines, block_bytes),
    offsetof(struct tracer_lines, literal_bytes),
    offsetof(struct tracer_lines, file_bits),
    offsetof(struct tracer_lines, row_count),
    offsetof(struct tracer_lines, block_count),
    offsetof(struct tracer_lines, page_count),
    offsetof(struct tracer_lines, stream_size),
    offsetof(struct tracer_lines, file_count),
    offsetof(struct tracer_lines, group_shift),
    offsetof(struct tracer_lines, call_bits),
    offsetof(struct tracer_lines, call_count),
    offsetof(struct tracer_lines, record_bytes),
    offsetof(struct tracer_lines, name_bits),
    offsetof(struct tracer_lines, name_count),
    offsetof(struct tracer_lines, call_line_bits),
    offsetof(struct tracer_lines, strings_size),
};

uint32_t tracer_lines_checksum(const struct tracer_lines *table)
{
	const uint64_t base = table->base;
	uint64_t hash = tracer_hash_start(TRACER_HASHED_LINES_HEADER, 0);

	for (size_t i = 0; i < sizeof(checksummed_fields); i++)
		hash = tracer_hash_word(hash, *(const uint32_t *)((const char *)table +
								  checksummed_fields[i]));
	hash = tracer_hash_word(hash, (uint32_t)base);
	hash = tracer_hash_word(hash, (uint32_t)(base >> 32));
	return tracer_hash_end(hash);
}

bool tracer_lines_valid(const struct tracer_lines *table)
{
	const uint64_t block_bytes = table->block_bytes;

	if (table->magic != TRACER_LINES_MAGIC ||
	    table->version != TRACER_LINES_VERSION ||
	    table->literal_bytes < TRACER_LINES_MIN_LITERAL_BYTES ||
	    table->literal_bytes > TRACER_LINES_MAX_LITERAL_BYTES ||
	    table->literal_bytes > block_bytes ||
	    block_bytes > TRACER_LINES_MAX_BLOCK_BYTES || table->file_bits == 0 ||
	    table->file_bits > TRACER_LINES_MAX_FILE_BITS ||
	    table->call_bits > TRACER_LINES_MAX_CALL_BITS ||
	    table->group_shift > TRACER_LINES_MAX_GROUP_SHIFT ||
	    table->file_bits + table->call_bits >= 8 * (table->literal_bytes - 1))
		return false;
	/* The records: calls numbered in call_bits, names in name_bits, and
	 * the fields within a record; a field's shift stays below 64. */
	if (table->call_count >> table->call_bits != 0 ||
	    /* a place holds a file and a call, and no call is 0xffff */
	    table->call_count >= PLACE_FILE_MASK ||
	    table->file_count > PLACE_FILE_MASK + 1 ||
	    table->record_bytes > TRACER_LINES_MAX_RECORD_BYTES ||
	    table->name_bits > TRACER_LINES_MAX_NAME_BITS ||
	    table->call_line_bits >= 32 || table->name_count >> table->name_bits != 0 ||
	    (table->call_count != 0 &&
	     (table->record_bytes < TRACER_LINES_MIN_RECORD_BYTES ||
	      table->call_bits + table->name_bits + table->file_bits +
		      table->call_line_bits >
		  8 * table->record_bytes ||
	      table->records == NULL)))
		return false;
	if (table->block_count == 0)
		return table->page_count == 0 && table->stream_size == 0;
	/* Every block's literal is in the stream: the lookup reads them
	 * unchecked. */
	return table->page_count != 0 && table->group_block != NULL &&
	       table->page_block != NULL && table->stream != NULL &&
	       (table->block_count - 1) * block_bytes + table->literal_bytes <=
		   table->stream_size &&
	       table->stream_size <= table->block_count * block_bytes;
}

/* LEB128 values of at most 4 bytes, 28 bits (TRACER_LINES_MAX_VALUE); a
 * signed one as a 28-bit two's complement, returned as uint32_t to add
 * with wrap-around. Moves *at past what it read; fails at end. */
static inline bool read_leb(const uint8_t **at, const uint8_t *end, bool is_signed,
			    uint32_t *value)
{
	uint32_t result = 0;

	/* Most are one byte: a file, a line below 128. */
	if (*at < end && **at < (is_signed ? 0x40 : 0x80)) {
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

/* The rows of a block as they are decoded: three contexts, each a place
 * (file and innermost inlined call) and its last line, most recent first;
 * the current row is the first's. */
struct line_state {
	uint32_t place, line;
	uint32_t before_place, before_line;
	uint32_t earlier_place, earlier_line;
	uint32_t last_call; /* the last a CALL or the literal set, if not 0 */
};

/* A new context in front, of new_place (the opcodes FILE, SWITCH and FAR);
 * the last is forgotten. */
static inline void push_context(struct line_state *state, uint32_t new_place)
{
	state->earlier_place = state->before_place;
	state->earlier_line = state->before_line;
	state->before_place = state->place;
	state->before_line = state->line;
	state->place = new_place;
}

/* The second context (earlier: the third) to the front (the opcode
 * RECENT). */
static inline void recent_context(struct line_state *state, bool earlier)
{
	const uint32_t place = state->place, line = state->line;

	if (earlier) {
		state->place = state->earlier_place;
		state->line = state->earlier_line;
		state->earlier_place = state->before_place;
		state->earlier_line = state->before_line;
	} else {
		state->place = state->before_place;
		state->line = state->before_line;
	}
	state->before_place = place;
	state->before_line = line;
}

/* The place of new_file in the current call (a hostile file past 2^16
 * gives a wrong call, not undefined behaviour). */
static inline uint32_t file_place(const struct line_state *state, uint32_t new_file)
{
	return new_file | (state->place & ~PLACE_FILE_MASK);
}

/* The rows of stream[at, end) after a block's first (state, at halfword
 * address), while they start at or below halfword target. Addresses count
 * halfwords: a special opcode's step is then its high nibble less a
 * constant. */
static inline bool advance(const uint8_t *at, const uint8_t *end, uintptr_t target,
			   uintptr_t address, struct line_state *state)
{
	uintptr_t next;
	uint32_t delta, steps, new_file;

	while (at < end) {
		uintptr_t opcode = *at;

		/* By frequency on the test kernels: special 68% of the rows a
		 * lookup decodes, near 18%, recent 6%, switch 6%, far 1%. */
		if (opcode >= TRACER_LINES_SPECIAL) {
			next = address + (opcode >> 4) -
			       (TRACER_LINES_SPECIAL / TRACER_LINES_LINE_RANGE - 1);
			if (next > target)
				break;
			address = next;
			state->line +=
			    (uint32_t)(opcode & 15) + (uint32_t)TRACER_LINES_LINE_BASE;
			at++;
			continue;
		}
		at++;
		if (opcode == TRACER_LINES_CALL) {
			/* The row before is in another call: no row of its own. */
			if (!read_leb(&at, end, true, &delta))
				return false;
			if (delta == 0) {
				state->place &= PLACE_FILE_MASK;
				continue;
			}
			if (delta < 0x80000000u)
				delta--;
			steps = state->place >> PLACE_CALL_SHIFT;
			state->last_call = (steps ? steps : state->last_call) + delta;
			state->place = (state->place & PLACE_FILE_MASK) |
				       state->last_call << PLACE_CALL_SHIFT;
			continue;
		}
		if (opcode < TRACER_LINES_RECENT && opcode >= TRACER_LINES_NEAR) {
			next = address + opcode - (TRACER_LINES_NEAR - 1);
			if (next > target)
				break;
			if (at >= end)
				return false;
			state->line += (uint32_t) * (const int8_t *)at++;
		} else if (opcode >= TRACER_LINES_RECENT &&
			   opcode < TRACER_LINES_SWITCH) {
			opcode -= TRACER_LINES_RECENT;
			next = address + (opcode & 15) + 1;
			if (next > target)
				break;
			recent_context(state, opcode >= 16);
			if (state->place == NO_PLACE || at >= end)
				return false;
			state->line += (uint32_t) * (const int8_t *)at++;
		} else if (opcode >= TRACER_LINES_FAR) {
			next = address + opcode - (TRACER_LINES_FAR - 1);
			if (next > target)
				break;
			if (end - at < 2)
				return false;
			delta = at[0] | (uint32_t)((const int8_t *)at)[1] << 8;
			at += 2;
			push_context(state, state->place);
			state->line += delta;
		} else if (opcode >= TRACER_LINES_SWITCH) {
			next = address + opcode - (TRACER_LINES_SWITCH - 1);
			if (next > target)
				break;
			if (!read_leb(&at, end, false, &new_file))
				return false;
			push_context(state, file_place(state, new_file));
			if (!read_leb(&at, end, false, &state->line))
				return false;
		} else if (opcode == TRACER_LINES_ADVANCE) {
			if (!read_leb(&at, end, false, &steps))
				return false;
			next = address + (uintptr_t)steps + 1;
			if (next > target)
				break;
			if (!read_leb(&at, end, true, &delta))
				return false;
			state->line += delta;
		} else if (opcode == TRACER_LINES_FILE) {
			if (!read_leb(&at, end, false, &new_file) ||
			    !read_leb(&at, end, false, &steps))
				return false;
			next = address + (uintptr_t)steps + 1;
			if (next > target)
				break;
			push_context(state, file_place(state, new_file));
			if (!read_leb(&at, end, false, &state->line))
				return false;
		} else {
			break; /* TRACER_LINES_END: the block's padding */
		}
		address = next;
	}
	return true;
}

/* The blocks that start below page (at most page_count). */
static inline uintptr_t blocks_below(const struct tracer_lines *table, uintptr_t page)
{
	return (uintptr_t)table->group_block[page >> table->group_shift] +
	       table->page_block[page];
}

enum tracer_line_result tracer_line_at(const struct tracer_lines *table, uintptr_t pc,
				       struct tracer_line *found)
{
	const uint8_t *const stream = table->stream;
	const uintptr_t block_bytes = table->block_bytes;
	uintptr_t offset, page, halfword, first, last, block;
	packed_fields fields;
	const uint8_t *at, *end;
	struct line_state state;
	uint32_t file, call;

	/* No call, for every NONE too (the code below the first row). */
	found->call = 0;
	if (pc < table->base)
		return TRACER_LINE_NONE;
	offset = pc - table->base;
	page = offset >> TRACER_LINES_PAGE_SHIFT;
	halfword = (offset >> 1) & 0xff;
	if (page >= table->page_count) {
		/* Past the last row's page: the last block's rows. */
		if (table->page_count == 0)
			return TRACER_LINE_NONE;
		page = table->page_count - 1;
		halfword = 0xff;
	}
	/* The last block of the page that starts at or below offset (a
	 * block's first byte is its address in halfwords from its page's
	 * start); if none does, the one before the page's first, which
	 * starts in the last page before with a block. */
	first = blocks_below(table, page);
	last = blocks_below(table, page + 1);
	if (first > last || last > table->block_count)
		return TRACER_LINE_CORRUPT;
	at = stream + first * block_bytes;
	for (block = first; block < last && *at <= halfword; block++)
		at += block_bytes;
	if (block == first) {
		if (first == 0)
			return TRACER_LINE_CORRUPT;
		do {
			if (page == 0)
				return TRACER_LINE_CORRUPT;
			page--;
		} while (blocks_below(table, page) >= first);
	}
	at -= block_bytes;
	end = at + block_bytes;
	if (end > stream + table->stream_size)
		end = stream + table->stream_size;
	/* The first row: its address, then its file, call and line in the
	 * bytes after, little-endian (the header bounds them: 7 bytes at most). */
	fields = packed_read(at + 1, table->literal_bytes - 1, 3);
	call = packed_bits(fields, table->file_bits, table->call_bits);
	state = (struct line_state){
	    packed_bits(fields, 0, table->file_bits) | call << PLACE_CALL_SHIFT,
	    packed_from(fields, table->file_bits + table->call_bits),
	    NO_PLACE,
	    0,
	    NO_PLACE,
	    0,
	    call,
	};
	if (!advance(at + table->literal_bytes, end, offset >> 1,
		     (page << (TRACER_LINES_PAGE_SHIFT - 1)) + at[0], &state))
		return TRACER_LINE_CORRUPT;
	file = state.place & PLACE_FILE_MASK;
	call = state.place >> PLACE_CALL_SHIFT;
	if (file >= table->file_count || call > table->call_count)
		return TRACER_LINE_CORRUPT;
	found->call = call;
	if (file == 0)
		return TRACER_LINE_NONE;
	found->file = file;
	found->line = state.line;
	return TRACER_LINE_FOUND;
}

enum tracer_line_result tracer_inline_call_at(const struct tracer_lines *table,
					      uint32_t call,
					      struct tracer_inline_call *found)
{
	packed_fields fields;
	uint32_t shift;

	if (call == 0 || call > table->call_count)
		return TRACER_LINE_CORRUPT;
	/* At least 4 bytes (the header says). */
	fields = packed_read(table->records + (uintptr_t)(call - 1) * table->record_bytes,
			     table->record_bytes, 4);
	found->parent = packed_bits(fields, 0, table->call_bits);
	shift = table->call_bits;
	found->name = packed_bits(fields, shift, table->name_bits);
	shift += table->name_bits;
	found->file = packed_bits(fields, shift, table->file_bits);
	shift += table->file_bits;
	found->line = packed_bits(fields, shift, table->call_line_bits);
	if (found->parent >= call || found->name > table->name_count ||
	    found->file >= table->file_count)
		return TRACER_LINE_CORRUPT;
	return TRACER_LINE_FOUND;
}

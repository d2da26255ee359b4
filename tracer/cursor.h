/*
 * cursor.h - a bounds-checked byte cursor over a declared region, with the
 * little-endian and LEB128 reads that .eh_frame's parser and the prologue
 * decoder make.
 */
#ifndef TRACER_CURSOR_H
#define TRACER_CURSOR_H

#include "memory.h"

/*
 * A cursor over [pos, end), a part of a declared region: .eh_frame for the
 * DWARF unwinder's byte-oriented parsing, text for the prologue decoder. A
 * read past end yields 0 and sets `failed`, so a parser checks once per
 * record instead of once per field.
 */
struct memory_cursor {
	uintptr_t pos;
	uintptr_t end;
	bool failed;
};

/* Opens a cursor on [start, end) if that lies inside config->eh_frame.
 * Inline: the DWARF unwinder opens a few a frame. */
static inline bool memory_cursor_open(const struct tracer_config *config, uintptr_t start,
				      uintptr_t end, struct memory_cursor *cursor)
{
	const struct tracer_range eh_frame = config->eh_frame;

	if (start > end || start < eh_frame.start || end > eh_frame.end)
		return false;
	cursor->pos = start;
	cursor->end = end;
	cursor->failed = false;
	return true;
}

/* A cursor on the code [start, end), already failed unless that lies inside
 * config->text and start is 2-byte aligned, as every instruction is: the
 * cursor then reads aligned 16-bit parcels (cursor_u16). Returned by value,
 * so that the decoder's loop keeps it in registers. */
struct memory_cursor memory_code_cursor(const struct tracer_config *config,
					uintptr_t start, uintptr_t end);
/* A second cursor from the first one's position (field by field: see
 * regs_copy). */
static inline void cursor_fork(struct memory_cursor *to, const struct memory_cursor *from)
{
	to->pos = from->pos;
	to->end = from->end;
	to->failed = from->failed;
}

/* The reads are inline and check bounds once per field: they run for every
 * byte of CFI an unwinding step interprets. */
static inline uint8_t cursor_u8(struct memory_cursor *cursor)
{
	if (cursor->pos >= cursor->end) {
		cursor->failed = true;
		return 0;
	}
	return target_u8(cursor->pos++);
}

/* One parcel of code: instructions are little-endian 16-bit parcels. */
static inline uint16_t cursor_u16(struct memory_cursor *cursor)
{
	uint16_t parcel;

	if (cursor->end - cursor->pos < 2) {
		cursor->pos = cursor->end;
		cursor->failed = true;
		return 0;
	}
	parcel = target_u16(cursor->pos);
	cursor->pos += 2;
	return parcel;
}

static inline uint32_t cursor_u32(struct memory_cursor *cursor)
{
	uintptr_t pos = cursor->pos;

	if (cursor->end - pos < 4) {
		cursor->pos = cursor->end;
		cursor->failed = true;
		return 0;
	}
	cursor->pos = pos + 4;
	/* One load where the field is aligned, as the fields of every
	 * .eh_frame entry's header are in GCC's and clang's output. */
	return pos % 4 == 0 ? target_u32(pos) : memory_u32_unaligned(pos);
}

/* Little-endian integers of `size` bytes (1 to 8). A value that does not fit
 * in a uintptr_t/intptr_t (rv32) fails the cursor. */
uintptr_t cursor_unsigned(struct memory_cursor *cursor, unsigned size);
intptr_t cursor_signed(struct memory_cursor *cursor, unsigned size);

/* LEB128 of more than one byte. */
uintptr_t cursor_uleb128_long(struct memory_cursor *cursor);
intptr_t cursor_sleb128_long(struct memory_cursor *cursor);

/* LEB128: 7 bits a byte, low group first; most values fit in one byte. */
static inline uintptr_t cursor_uleb128(struct memory_cursor *cursor)
{
	if (cursor->pos < cursor->end && !(target_u8(cursor->pos) & 0x80))
		return target_u8(cursor->pos++);
	return cursor_uleb128_long(cursor);
}

static inline intptr_t cursor_sleb128(struct memory_cursor *cursor)
{
	if (cursor->pos < cursor->end && !(target_u8(cursor->pos) & 0x80))
		/* Bit 6 is the sign of a one-byte value. */
		return (intptr_t)(target_u8(cursor->pos++) ^ 0x40) - 0x40;
	return cursor_sleb128_long(cursor);
}

/* Moves forward `count` bytes, failing if that passes end. */
static inline void cursor_skip(struct memory_cursor *cursor, uintptr_t count)
{
	if (count > cursor->end - cursor->pos) {
		cursor->pos = cursor->end;
		cursor->failed = true;
		return;
	}
	cursor->pos += count;
}

#endif /* TRACER_CURSOR_H */

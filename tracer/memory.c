/*
 * memory.c - the bounds-checked reader.
 *
 * A panic handler must not fault: a corrupt frame pointer could point at an
 * unmapped device hole, and faulting there would recurse into the trap
 * handler. So no unwinder dereferences memory directly; every read comes here
 * and is checked against the regions the caller declared: the walk's
 * current stack for words, .eh_frame for the bytes of call-frame
 * information, text for the instructions the prologue decoder reads.
 */
#include "cursor.h"
#include "riscv.h"

#ifdef TRACER_HOST_VIEW
/* See memory.h. Until a tool says otherwise, the image is in place, with
 * the host's word size. */
uintptr_t tracer_host_bias;
unsigned tracer_host_word_size = sizeof(uintptr_t);
#endif

bool memory_read_word(const struct tracer_range *current_stack, uintptr_t addr,
		      uintptr_t *value)
{
	return memory_read_stack_word(*current_stack, addr, value);
}

/* The reads of code: the prologue decoder's, and the fault report's. */
#if TRACER_LINKS_PROLOGUE || TRACER_LINKS_FAULT_REPORT
struct memory_cursor memory_code_cursor(const struct tracer_config *config,
					uintptr_t start, uintptr_t end)
{
	const struct tracer_range text = config->text;
	struct memory_cursor cursor = {start, end, false};

	if (start % 2 != 0 || start > end || start < text.start || end > text.end) {
		cursor.pos = cursor.end = start;
		cursor.failed = true;
	}
	return cursor;
}
#endif

/* The reads of .eh_frame's bytes: the DWARF unwinder's. */
#if TRACER_LINKS_DWARF
uint32_t memory_u32_unaligned(uintptr_t address)
{
	const uint8_t *bytes = target_bytes(address);

	return (uint32_t)bytes[0] | (uint32_t)bytes[1] << 8 | (uint32_t)bytes[2] << 16 |
	       (uint32_t)bytes[3] << 24;
}

uintptr_t cursor_unsigned(struct memory_cursor *cursor, unsigned size)
{
	uintptr_t value = 0;

	for (unsigned i = 0; i < size; i++) {
		uintptr_t byte = cursor_u8(cursor);

		if (i < TARGET_WORD_SIZE)
			value |= byte << (8 * i);
		else if (byte != 0)
			cursor->failed = true; /* does not fit (rv32) */
	}
	return value;
}

intptr_t cursor_signed(struct memory_cursor *cursor, unsigned size)
{
	uintptr_t value = 0;
	uint8_t byte = 0;

	for (unsigned i = 0; i < size; i++) {
		byte = cursor_u8(cursor);
		if (i < TARGET_WORD_SIZE)
			value |= (uintptr_t)byte << (8 * i);
		else if (byte != ((value >> (8 * TARGET_WORD_SIZE - 1) & 1) ? 0xff : 0))
			cursor->failed = true; /* does not fit (rv32) */
	}
	/* Sign-extend from the top bit read. */
	if (size < sizeof(uintptr_t) && (byte & 0x80))
		value |= ~(uintptr_t)0 << (8 * size);
	return (intptr_t)value;
}

/* LEB128: 7 bits a byte, low group first, high bit set on all but the last. */
uintptr_t cursor_uleb128_long(struct memory_cursor *cursor)
{
	uintptr_t value = 0;
	unsigned shift = 0;
	uint8_t byte;

	do {
		byte = cursor_u8(cursor);
		if (shift < 8 * sizeof(uintptr_t)) {
			uintptr_t bits = (uintptr_t)(byte & 0x7f);

			/* Bits shifted out past the top would be lost. */
			if (shift > 0 && (bits >> (8 * sizeof(uintptr_t) - shift)) != 0)
				cursor->failed = true;
			value |= bits << shift;
		} else if ((byte & 0x7f) != 0) {
			cursor->failed = true;
		}
		shift += 7;
	} while ((byte & 0x80) && !cursor->failed);
	return value;
}

intptr_t cursor_sleb128_long(struct memory_cursor *cursor)
{
	const unsigned bits = 8 * sizeof(uintptr_t);
	uintptr_t value = 0;
	unsigned shift = 0;
	uint8_t byte;

	do {
		byte = cursor_u8(cursor);
		if (shift < bits)
			value |= (uintptr_t)(byte & 0x7f) << shift;
		else if ((byte & 0x7f) != ((value >> (bits - 1)) ? 0x7f : 0))
			cursor->failed = true; /* more than a word of significance */
		shift += 7;
	} while ((byte & 0x80) && !cursor->failed);
	if (shift < bits && (byte & 0x40))
		value |= ~(uintptr_t)0 << shift;
	return (intptr_t)value;
}
#endif

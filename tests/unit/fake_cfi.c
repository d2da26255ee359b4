/*
 * fake_cfi.c - see fake_cfi.h.
 */
#include "fake_cfi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A test that builds more than the buffer holds is itself broken. */
static void need_room(const struct fake_cfi *cfi, size_t count)
{
	if (count > FAKE_CFI_CAPACITY - cfi->size) {
		fprintf(stderr, "fake_cfi: buffer full\n");
		abort();
	}
}

void fake_cfi_init(struct fake_cfi *cfi)
{
	memset(cfi, 0, sizeof(*cfi));
}

void fake_cfi_free(struct fake_cfi *cfi)
{
	free(cfi->block);
	cfi->block = NULL;
}

void fake_cfi_bytes(struct fake_cfi *cfi, const uint8_t *bytes, size_t count)
{
	need_room(cfi, count);
	memcpy(cfi->bytes + cfi->size, bytes, count);
	cfi->size += count;
}

static void put_unsigned(uint8_t *at, uint64_t value, unsigned size)
{
	for (unsigned i = 0; i < size; i++)
		at[i] = (uint8_t)(value >> (8 * i));
}

void fake_cfi_unsigned(struct fake_cfi *cfi, uint64_t value, unsigned size)
{
	need_room(cfi, size);
	put_unsigned(cfi->bytes + cfi->size, value, size);
	cfi->size += size;
}

/* DWARF 5 section 7.6: 7 bits a byte, low group first, bit 7 set on all but
 * the last byte. */
void fake_cfi_uleb(struct fake_cfi *cfi, uint64_t value)
{
	do {
		uint8_t byte = value & 0x7f;

		value >>= 7;
		FAKE_CFI(cfi, value ? byte | 0x80 : byte);
	} while (value);
}

void fake_cfi_pcrel(struct fake_cfi *cfi, uintptr_t target, unsigned size)
{
	if (cfi->fixup_count == FAKE_CFI_FIXUPS) {
		fprintf(stderr, "fake_cfi: too many fixups\n");
		abort();
	}
	cfi->fixups[cfi->fixup_count++] =
	    (struct fake_cfi_fixup){.offset = cfi->size, .size = size, .target = target};
	fake_cfi_unsigned(cfi, 0, size);
}

/* The length field; 0xffffffff announces a 64-bit length after it. */
static void begin_record(struct fake_cfi *cfi)
{
	cfi->record = cfi->size;
	cfi->record_extended = cfi->extended;
	if (cfi->extended) {
		fake_cfi_unsigned(cfi, 0xffffffff, 4);
		fake_cfi_unsigned(cfi, 0, 8);
	} else {
		fake_cfi_unsigned(cfi, 0, 4);
	}
}

/* The CIE id and CIE pointer grow to 8 bytes with a 64-bit length, as GDB
 * (dwarf2/frame.c) and readelf read them, the project's oracles; the LSB
 * keeps them at 4, but no toolchain emits 64-bit .eh_frame to settle it. */
static unsigned id_size(const struct fake_cfi *cfi)
{
	return cfi->record_extended ? 8 : 4;
}

size_t fake_cfi_begin_cie(struct fake_cfi *cfi)
{
	begin_record(cfi);
	fake_cfi_unsigned(cfi, 0, id_size(cfi)); /* CIE id: 0 in .eh_frame */
	return cfi->record;
}

size_t fake_cfi_begin_fde(struct fake_cfi *cfi, size_t cie)
{
	begin_record(cfi);
	fake_cfi_unsigned(cfi, cfi->size - cie, id_size(cfi));
	return cfi->record;
}

/* The length counts the bytes after the length field itself. */
void fake_cfi_end(struct fake_cfi *cfi)
{
	size_t field = cfi->record_extended ? cfi->record + 4 : cfi->record;
	unsigned field_size = cfi->record_extended ? 8 : 4;

	put_unsigned(cfi->bytes + field, cfi->size - (field + field_size), field_size);
}

uintptr_t fake_cfi_seal(struct fake_cfi *cfi, struct tracer_config *config)
{
	free(cfi->block);
	/* malloc(0) may return NULL; an empty .eh_frame still needs an address. */
	cfi->block = malloc(cfi->size ? cfi->size : 1);
	memcpy(cfi->block, cfi->bytes, cfi->size);
	for (size_t i = 0; i < cfi->fixup_count; i++) {
		const struct fake_cfi_fixup *fixup = &cfi->fixups[i];
		uintptr_t field = (uintptr_t)cfi->block + fixup->offset;

		put_unsigned(cfi->block + fixup->offset, fixup->target - field,
			     fixup->size);
	}
	config->eh_frame.start = (uintptr_t)cfi->block;
	config->eh_frame.end = (uintptr_t)cfi->block + cfi->size;
	return (uintptr_t)cfi->block;
}

uintptr_t fake_cfi_addr(const struct fake_cfi *cfi, size_t offset)
{
	return (uintptr_t)cfi->block + offset;
}

/*
 * fake_cfi.h - builds .eh_frame bytes by hand for the DWARF unwinder's tests.
 *
 * Bytes are appended to a fixed buffer; CIEs and FDEs get their length
 * fields patched when they end, and an FDE's CIE pointer is computed from
 * the offsets (LSB .eh_frame: the distance back from the pointer field to
 * the CIE's length field). fake_cfi_seal() then copies the bytes into a heap
 * block of exactly their size and declares it as config->eh_frame, so
 * AddressSanitizer reports any read outside it.
 */
#ifndef TEST_FAKE_CFI_H
#define TEST_FAKE_CFI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracer_tables.h"

#define FAKE_CFI_CAPACITY 4096
#define FAKE_CFI_FIXUPS	  16

/* A pc-relative field whose value depends on where the block lands. */
struct fake_cfi_fixup {
	size_t offset;
	unsigned size;
	uintptr_t target;
};

struct fake_cfi {
	uint8_t bytes[FAKE_CFI_CAPACITY];
	size_t size;
	size_t record;	      /* offset of the open record's length field */
	bool record_extended; /* its length is 0xffffffff + 8 bytes */
	bool extended;	      /* records begun from now on use 64-bit lengths */
	struct fake_cfi_fixup fixups[FAKE_CFI_FIXUPS];
	size_t fixup_count;
	uint8_t *block; /* the sealed copy; NULL before fake_cfi_seal() */
};

void fake_cfi_init(struct fake_cfi *cfi);
void fake_cfi_free(struct fake_cfi *cfi);

void fake_cfi_bytes(struct fake_cfi *cfi, const uint8_t *bytes, size_t count);
/* FAKE_CFI(cfi, 0x0c, 0x02, 0x00): appends the listed bytes. */
#define FAKE_CFI(cfi, ...)                                                               \
	fake_cfi_bytes((cfi), (const uint8_t[]){__VA_ARGS__},                            \
		       sizeof((const uint8_t[]){__VA_ARGS__}))
/* Little-endian, `size` bytes. */
void fake_cfi_unsigned(struct fake_cfi *cfi, uint64_t value, unsigned size);
void fake_cfi_uleb(struct fake_cfi *cfi, uint64_t value);
/* A `size`-byte field holding target minus the field's own address
 * (DW_EH_PE_pcrel), filled in by fake_cfi_seal(). */
void fake_cfi_pcrel(struct fake_cfi *cfi, uintptr_t target, unsigned size);

/* Opens a CIE (length, CIE id 0) and returns its offset. */
size_t fake_cfi_begin_cie(struct fake_cfi *cfi);
/* Opens an FDE of the CIE at offset `cie` (length, CIE pointer) and returns
 * its offset. */
size_t fake_cfi_begin_fde(struct fake_cfi *cfi, size_t cie);
/* Closes the open record: patches its length. */
void fake_cfi_end(struct fake_cfi *cfi);

/* Copies the bytes into an exactly sized heap block, resolves pc-relative
 * fields and sets config->eh_frame to the block. Returns its address. */
uintptr_t fake_cfi_seal(struct fake_cfi *cfi, struct tracer_config *config);
/* Address of byte `offset` of the sealed block. */
uintptr_t fake_cfi_addr(const struct fake_cfi *cfi, size_t offset);

#endif /* TEST_FAKE_CFI_H */

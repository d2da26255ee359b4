/*
 * fake_code.h - machine code for the prologue decoder's tests.
 *
 * Functions are appended as 16-bit parcels (RISC-V instructions are
 * little-endian parcels: a 32-bit instruction is its low half, then its high
 * half). fake_code_seal() then copies them into a heap block exactly as large
 * as the code, so AddressSanitizer reports any read outside it, and declares
 * that block as config->text and the named functions as config->symtab. The
 * decoder dereferences the addresses it is given: they must be the block's.
 */
#ifndef TEST_FAKE_CODE_H
#define TEST_FAKE_CODE_H

#include <stddef.h>
#include <stdint.h>

#include "tracer_tables.h"

/* One instruction as objdump prints its hex: I32(0xfd010113), C16(0x1141). */
#define I32(insn) (uint16_t)((insn)&0xffff), (uint16_t)((uint32_t)(insn) >> 16)
#define C16(insn) (uint16_t)(insn)

#define FAKE_CODE_PARCELS   1024
#define FAKE_CODE_FUNCTIONS 32
#define FAKE_CODE_NAMES	    512

struct fake_code {
	uint16_t parcels[FAKE_CODE_PARCELS];
	size_t count;
	struct tracer_symbol symbols[FAKE_CODE_FUNCTIONS];
	uint32_t symbol_count;
	_Alignas(8) char names[FAKE_CODE_NAMES]; /* read as words by the hash */
	size_t names_size;
	struct tracer_symtab symtab;
	uint16_t *block; /* the sealed copy; NULL before fake_code_seal() */
};

void fake_code_init(struct fake_code *code);
void fake_code_free(struct fake_code *code);

/* Appends a function and returns its offset in bytes. A named function
 * enters the symbol table; NULL: code that no symbol covers. */
size_t fake_code_function(struct fake_code *code, const char *name,
			  const uint16_t *parcels, size_t count);
/* FAKE_FUNCTION(code, "f", C16(0x1141), I32(0x00113423)) */
#define FAKE_FUNCTION(code, name, ...)                                                   \
	fake_code_function((code), (name), (const uint16_t[]){__VA_ARGS__},              \
			   sizeof((const uint16_t[]){__VA_ARGS__}) / sizeof(uint16_t))

/* Copies the code into an exactly sized heap block, declares it as
 * config->text and the symbols as config->symtab. Returns its address. */
uintptr_t fake_code_seal(struct fake_code *code, struct tracer_config *config);
/* Address of byte `offset` of the sealed block. */
uintptr_t fake_code_addr(const struct fake_code *code, size_t offset);
/* One past the sealed block's last byte. */
uintptr_t fake_code_end(const struct fake_code *code);

#endif /* TEST_FAKE_CODE_H */

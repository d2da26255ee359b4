/*
 * riscv.h - the few facts about RISC-V instruction encodings that every
 * unwinder needs: instruction lengths, and whether the code before a return
 * address is a call.
 */
#ifndef TRACER_RISCV_H
#define TRACER_RISCV_H

#include "memory.h"

/* Integer registers by their x number. */
#define RISCV_ZERO 0
#define RISCV_RA   1
#define RISCV_SP   2
#define RISCV_S0   8

/* Length of the instruction whose first 16-bit parcel is `parcel`: 2 (RVC),
 * 4, or 0 for the longer encodings this library does not handle. */
static inline unsigned riscv_instruction_length(uint16_t parcel)
{
	if ((parcel & 0x3) != 0x3)
		return 2;
	return (parcel & 0x1c) != 0x1c ? 4 : 0;
}

/* Whether the `bytes` of code just before `address` (2-byte aligned, as
 * every instruction is) lie inside config->text, to be read as parcels
 * (target_u16). Inline: every unwound return address is checked this way. */
static inline bool memory_code_before(const struct tracer_config *config,
				      uintptr_t address, uintptr_t bytes)
{
	const struct tracer_range text = config->text;

	return address % 2 == 0 && address <= text.end && address >= text.start &&
	       address - text.start >= bytes;
}

/* Whether the instruction (of that length) is a call: it jumps and links
 * (jal or jalr with rd != 0; c.jalr; rv32's c.jal). */
static inline bool riscv_is_call(uint32_t insn, unsigned length, unsigned xlen)
{
	unsigned rd = insn >> 7 & 0x1f;

	if (length == 4)
		return ((insn & 0x7f) == 0x6f || (insn & 0x707f) == 0x67) &&
		       rd != RISCV_ZERO;
	if (length != 2)
		return false;
	/* c.jalr: 1001 rs1 00000 10 with rs1 != 0 */
	if ((insn & 0xf07f) == 0x9002 && rd != RISCV_ZERO)
		return true;
	/* c.jal (rv32 only): 001 ... 01 */
	return xlen == 4 && (insn & 0xe003) == 0x2001;
}

/*
 * Whether the instruction that ends just before `address` is a call, with
 * xlen-byte registers (4: rv32, 8: rv64). Every return address follows one:
 * the walk checks each that an unwinder recovers, so that a word that merely
 * lies in text (a stale pointer to code, a corrupted slot) ends the walk
 * instead of being printed as a caller. Inline: it runs once a frame.
 */
static inline bool code_follows_call(const struct tracer_config *config,
				     uintptr_t address, unsigned xlen)
{
	/* Calls are mostly 4 bytes (jal, auipc + jalr). The parcel at
	 * address - 2 may also be a 2-byte call of its own: either counts. */
	if (memory_code_before(config, address, 4)) {
		uint16_t low = target_u16(address - 4);

		if (riscv_instruction_length(low) == 4 &&
		    riscv_is_call(low | (uint32_t)target_u16(address - 2) << 16, 4, xlen))
			return true;
	}
	return memory_code_before(config, address, 2) &&
	       riscv_is_call(target_u16(address - 2), 2, xlen);
}

/* Whether `parcel`, the first 16 bits of a 4-byte instruction, begins
 * `jal ra` or `jalr ra`. */
static inline bool parcel_is_ra_call(uintptr_t parcel)
{
	const unsigned bits = 8 * sizeof(uintptr_t);

	/* jal ra: the low 12 bits are 0x0ef (rd = 1, opcode 0x6f); jalr ra:
	 * the low 15 are 0x0e7 (funct3 = 0, rd = 1, opcode 0x67). Each as a
	 * difference whose low bits are 0 once the rest is shifted out, both
	 * computed: GCC then keeps no mask or shifted constant in a register
	 * (make bench's capture loops: 2 to 4 instructions a frame less than
	 * with xor and ||). */
	return ((parcel - 0x0ef) << (bits - 12) == 0) |
	       ((parcel - 0x0e7) << (bits - 15) == 0);
}

/*
 * The common case of code_follows_call, for the frame-pointer and table
 * unwinders' common paths: `jal ra` or `jalr ra` (a direct or an indirect
 * call, relaxed or not) ends just before `address`, inside text, whose
 * window (memory_window(text, 4)) is `text`; on rv32 also c.jal, which GCC
 * emits for every call within 2 KiB there (without it, rv32's capture left
 * its loop at most frames: make bench). false means "not this case", and
 * code_follows_call decides.
 */
static inline bool code_follows_ra_call(struct window text, uintptr_t address)
{
	uintptr_t parcel;

	if (address % 2 != 0 || !window_contains(text, address))
		return false;
	parcel = ((const uint16_t *)address)[-2];
#if UINTPTR_MAX == 0xffffffffu
	/* c.jal: 001 ... 01 (rv64's c.addiw) */
	if ((((const uint16_t *)address)[-1] & 0xe003) == 0x2001)
		return true;
#endif
	return parcel_is_ra_call(parcel);
}

#endif /* TRACER_RISCV_H */

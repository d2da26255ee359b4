/*
 * call_site.c - every return address follows a call: the instruction that
 * ends just before it jumped and linked. All unwinders check this of each
 * return address they recover, so that a word that merely lies in text (a
 * stale pointer to code, a corrupted slot) ends the walk instead of being
 * printed as a caller.
 */
#include "internal.h"

bool riscv_is_call(uint32_t insn, unsigned length, unsigned xlen)
{
	unsigned rd = insn >> 7 & 0x1f;

	if (length == 4)
		return ((insn & 0x7f) == 0x6f || ((insn & 0x707f) == 0x67)) &&
		       rd != RISCV_ZERO;
	if (length != 2)
		return false;
	/* c.jalr: 1001 rs1 00000 10 with rs1 != 0 */
	if ((insn & 0xf07f) == 0x9002 && rd != RISCV_ZERO)
		return true;
	/* c.jal (rv32 only): 001 ... 01 */
	return xlen == 4 && (insn & 0xe003) == 0x2001;
}

bool code_follows_call(const struct tracer_config *config, uintptr_t address,
		       unsigned xlen)
{
	const uint16_t *before = memory_code_before(config, address, 4);
	uint16_t last;

	/* Near the start of text only a 2-byte call fits. */
	if (!before) {
		before = memory_code_before(config, address, 2);
		return before && riscv_is_call(before[0], 2, xlen);
	}
	/* The parcel at address - 2 may be a 2-byte call or the upper half of
	 * a 4-byte one: either counts. */
	last = before[1];
	if (riscv_is_call(last, 2, xlen))
		return true;
	return riscv_instruction_length(before[0]) == 4 &&
	       riscv_is_call(before[0] | (uint32_t)last << 16, 4, xlen);
}

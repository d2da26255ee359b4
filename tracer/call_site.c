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
	struct memory_cursor code;
	uint32_t insn;

	/* A 2-byte call just before, or a 4-byte one. The parcels are read
	 * anew for each: the one at address - 2 may be either. */
	if (address < 2)
		return false;
	code = memory_code_cursor(config, address - 2, address);
	insn = cursor_u16(&code);
	if (!code.failed && riscv_is_call(insn, 2, xlen))
		return true;
	if (address < 4)
		return false;
	code = memory_code_cursor(config, address - 4, address);
	insn = cursor_u16(&code);
	insn |= (uint32_t)cursor_u16(&code) << 16;
	return !code.failed && riscv_instruction_length((uint16_t)insn) == 4 &&
	       riscv_is_call(insn, 4, xlen);
}

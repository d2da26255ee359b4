/*
 * dwarf_codes.h - the DWARF opcode values the CFI tests assemble, written
 * out from the DWARF 5 standard, not taken from the implementation:
 * call frame instructions from Table 7.29 (section 7.24) plus the GNU
 * extensions, expression operations from Table 7.9 (section 7.7.1).
 * Named after the spec (DW_CFA_x -> CFA_x, DW_OP_x -> OP_x) so that they
 * cannot clash with the tracer's own names.
 */
#ifndef TEST_DWARF_CODES_H
#define TEST_DWARF_CODES_H

/* The three primary opcodes keep their operand in the low 6 bits. */
enum {
	CFA_advance_loc = 0x40,
	CFA_offset = 0x80,
	CFA_restore = 0xc0,
};

enum {
	CFA_nop = 0x00,
	CFA_set_loc = 0x01,
	CFA_advance_loc1 = 0x02,
	CFA_advance_loc2 = 0x03,
	CFA_advance_loc4 = 0x04,
	CFA_offset_extended = 0x05,
	CFA_restore_extended = 0x06,
	CFA_undefined = 0x07,
	CFA_same_value = 0x08,
	CFA_register = 0x09,
	CFA_remember_state = 0x0a,
	CFA_restore_state = 0x0b,
	CFA_def_cfa = 0x0c,
	CFA_def_cfa_register = 0x0d,
	CFA_def_cfa_offset = 0x0e,
	CFA_def_cfa_expression = 0x0f,
	CFA_expression = 0x10,
	CFA_offset_extended_sf = 0x11,
	CFA_def_cfa_sf = 0x12,
	CFA_def_cfa_offset_sf = 0x13,
	CFA_val_offset = 0x14,
	CFA_val_offset_sf = 0x15,
	CFA_val_expression = 0x16,
	CFA_lo_user = 0x1c,
	CFA_GNU_window_save = 0x2d, /* SPARC register windows */
	CFA_GNU_args_size = 0x2e,
	CFA_GNU_negative_offset_extended = 0x2f,
	CFA_hi_user = 0x3f,
};

enum {
	OP_addr = 0x03,
	OP_deref = 0x06,
	OP_const1u = 0x08,
	OP_const1s = 0x09,
	OP_const2u = 0x0a,
	OP_const2s = 0x0b,
	OP_const4u = 0x0c,
	OP_const4s = 0x0d,
	OP_const8u = 0x0e,
	OP_const8s = 0x0f,
	OP_constu = 0x10,
	OP_consts = 0x11,
	OP_dup = 0x12,
	OP_drop = 0x13,
	OP_over = 0x14,
	OP_pick = 0x15,
	OP_swap = 0x16,
	OP_rot = 0x17,
	OP_abs = 0x19,
	OP_and = 0x1a,
	OP_div = 0x1b,
	OP_minus = 0x1c,
	OP_mod = 0x1d,
	OP_mul = 0x1e,
	OP_neg = 0x1f,
	OP_not = 0x20,
	OP_or = 0x21,
	OP_plus = 0x22,
	OP_plus_uconst = 0x23,
	OP_shl = 0x24,
	OP_shr = 0x25,
	OP_shra = 0x26,
	OP_xor = 0x27,
	OP_bra = 0x28,
	OP_eq = 0x29,
	OP_skip = 0x2f,
	OP_lit0 = 0x30,	 /* lit0-lit31: 0x30-0x4f */
	OP_reg0 = 0x50,	 /* reg0-reg31: 0x50-0x6f */
	OP_breg0 = 0x70, /* breg0-breg31: 0x70-0x8f */
	OP_regx = 0x90,
	OP_fbreg = 0x91,
	OP_bregx = 0x92,
	OP_deref_size = 0x94,
	OP_nop = 0x96,
	OP_call_frame_cfa = 0x9c,
	OP_stack_value = 0x9f,
};

/* DWARF register numbers of the RISC-V psABI used by the tests. */
enum {
	REG_RA = 1,
	REG_SP = 2,
	REG_S0 = 8,
	REG_S1 = 9,
	REG_A0 = 10,
	REG_S2 = 18,
	REG_S3 = 19,
	REG_S11 = 27,
};

#endif /* TEST_DWARF_CODES_H */

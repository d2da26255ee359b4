/*
 * prologue_decode.c - what a function's code did to its frame by a pc, found
 * by decoding it from the function's first instruction: the decoder behind
 * the prologue unwinder (prologue.c). Host tools build it too: symgen
 * measures frame sizes with it, tests/tools/prologue_check.c checks it
 * against CFI.
 *
 * A compiler sets up a frame with a handful of instructions, and the decoder
 * follows those:
 *
 *   sp     addi sp,sp,-N (the frame's allocation), or add/sub sp,sp,t with
 *          t a constant built by lui/addi/li (a large frame); addi sp,s0,N
 *          (the frame found again from the frame pointer)
 *   s0     addi s0,sp,N: s0 becomes a frame pointer, which still finds the
 *          frame once sp moved by an amount the code does not tell (alloca)
 *   saves  stores of ra and s0 relative to sp or the frame pointer, before
 *          the register changed (a store after that saves no caller's value)
 *   restores  loads of ra or s0 from their save slot, or sp moving up: an
 *          epilogue
 *
 * Offsets are in bytes from the CFA, the sp the function was entered with:
 * `addi sp,sp,-48; sd ra,40(sp)` leaves sp at CFA - 48 and ra saved at
 * CFA - 8.
 *
 * The file reads top to bottom: (1) instructions, decoded into one small
 * struct, the same for 16- and 32-bit forms; (2) what one decoded
 * instruction does to the frame; (3) the scan from the function's start to
 * the pc, through calls and jumps.
 */
#include "prologue.h"

/* ---- 1. Decoding ------------------------------------------------------------
 *
 * RISC-V instructions are 32 bits, or 16 bits for the compressed ("C")
 * extension's short forms of frequent ones. The low two bits of the first
 * 16-bit parcel tell which: 11 is a 32-bit instruction (unless bits 4:2 are
 * 111 too, which marks longer ones), anything else a 16-bit one. So
 * decoding forward from a function's first byte always finds where the next
 * instruction begins: it never reads half of one as a whole one.
 *
 * Every compressed instruction is defined as a short form of one 32-bit
 * instruction (c.addi sp,-16 is addi sp,sp,-16), and the decoder expands it
 * to that: the rest of the file sees only struct insn, the instruction
 * reduced to what matters for a frame.
 *
 * Encodings: RISC-V Unprivileged ISA, chapters "RV32I", "RV64I" and "C".
 */

/* Integer registers by their x number (RISCV_ZERO, RISCV_RA, ...: riscv.h). */
#define BIT(reg) ((uintptr_t)1 << (reg))

/* What an instruction does, as far as a frame is concerned. */
enum op {
	OP_NONE,    /* changes no integer register: stores of other registers or
		       narrower words, branches, fences, floating point */
	OP_WRITE,   /* rd gets a value the decoder does not know */
	OP_ADDI,    /* rd = rs1 + imm (also li, mv, lui: from x0, or with 0) */
	OP_ADDIW,   /* rd = rs1 + imm, the low 32 bits sign-extended (rv64) */
	OP_ADD,	    /* rd = rs1 + rs2 */
	OP_SUB,	    /* rd = rs1 - rs2 */
	OP_LOAD,    /* rd = the register-wide word at rs1 + imm */
	OP_STORE,   /* the register-wide word at rs1 + imm = rs2 */
	OP_CALL,    /* jumps and links: the callee returns here */
	OP_JUMP,    /* jumps without linking: a return, a tail call, a goto */
	OP_UNKNOWN, /* reserved or illegal: no compiler's code */
};

/* A decoded instruction. */
struct insn {
	enum op op;
	unsigned rd;
	unsigned rs1;
	unsigned rs2;
	int32_t imm;
};

static inline struct insn insn_make(enum op op, unsigned rd, unsigned rs1, unsigned rs2,
				    int32_t imm)
{
	struct insn insn = {op, rd, rs1, rs2, imm};

	return insn;
}

static inline struct insn insn_op(enum op op)
{
	return insn_make(op, 0, 0, 0, 0);
}

static inline struct insn insn_write(unsigned rd)
{
	return insn_make(OP_WRITE, rd, 0, 0, 0);
}

static inline struct insn insn_addi(unsigned rd, unsigned rs1, int32_t imm)
{
	return insn_make(OP_ADDI, rd, rs1, 0, imm);
}

/* A load of `width` bytes. Only a load of a whole register can restore a
 * saved ra or s0; a narrower one just writes rd. */
static inline struct insn insn_load(unsigned rd, unsigned base, int32_t offset,
				    unsigned width, unsigned xlen)
{
	return insn_make(width == xlen ? OP_LOAD : OP_WRITE, rd, base, 0, offset);
}

/* A store of `width` bytes: only a store of all of ra or s0 can save the
 * caller's value. */
static inline struct insn insn_store(unsigned base, unsigned source, int32_t offset,
				     unsigned width, unsigned xlen)
{
	if (width != xlen || (source != RISCV_RA && source != RISCV_S0))
		return insn_op(OP_NONE);
	return insn_make(OP_STORE, 0, base, source, offset);
}

/*
 * 32-bit instructions. Fields: opcode bits 6:0, rd 11:7, funct3 14:12, rs1
 * 19:15, rs2 24:20, funct7 31:25. The immediate depends on the format:
 * I-type (addi, loads, jalr) bits 31:20; S-type (stores) bits 31:25 and
 * 11:7; U-type (lui, auipc) bits 31:12, the upper 20 bits of a value. All
 * are sign-extended from bit 31.
 */
static inline int32_t imm_i(uintptr_t insn)
{
	return (int32_t)insn >> 20;
}

static inline int32_t imm_s(uintptr_t insn)
{
	return ((int32_t)insn >> 25) * 32 + (int32_t)(insn >> 7 & 31);
}

static inline int32_t imm_u(uintptr_t insn)
{
	return (int32_t)(insn & 0xfffff000u);
}

/* The register fields of a 32-bit instruction. */
#define RD(insn)     ((insn) >> 7 & 31)
#define RS1(insn)    ((insn) >> 15 & 31)
#define RS2(insn)    ((insn) >> 20 & 31)
#define FUNCT3(insn) ((insn) >> 12 & 7)

static inline struct insn decode32(uintptr_t insn, unsigned xlen)
{
	switch (insn & 0x7f) {
	case 0x13: /* OP-IMM: addi (li, mv); shifts and logic write rd */
		if (FUNCT3(insn) == 0)
			return insn_addi(RD(insn), RS1(insn), imm_i(insn));
		return insn_write(RD(insn));
	case 0x1b: /* OP-IMM-32: addiw builds 32-bit constants on rv64 */
		if (FUNCT3(insn) == 0 && xlen == 8)
			return insn_make(OP_ADDIW, RD(insn), RS1(insn), 0, imm_i(insn));
		return insn_write(RD(insn));
	case 0x37: /* LUI rd,imm: rd = imm << 12, that is x0 + imm_u */
		return insn_addi(RD(insn), RISCV_ZERO, imm_u(insn));
	case 0x17: /* AUIPC: an address. Into sp (la sp,stack) it sets up a
		      stack of the function's own: a constant, for the decoder */
		if (RD(insn) == RISCV_SP)
			return insn_addi(RISCV_SP, RISCV_ZERO, 0);
		return insn_write(RD(insn));
	case 0x33: /* OP: add, sub (funct7 0x20); the rest write rd */
		if (FUNCT3(insn) == 0 && insn >> 25 == 0)
			return insn_make(OP_ADD, RD(insn), RS1(insn), RS2(insn), 0);
		if (FUNCT3(insn) == 0 && insn >> 25 == 0x20)
			return insn_make(OP_SUB, RD(insn), RS1(insn), RS2(insn), 0);
		return insn_write(RD(insn));
	case 0x3b: /* OP-32, AMO, SYSTEM (csr reads; ecall, wfi: rd = 0) */
	case 0x2f:
	case 0x73:
		return insn_write(RD(insn));
	case 0x03: /* LOAD: lb lh lw ld (funct3 0-3), lbu lhu lwu (4-6) */
		return insn_load(RD(insn), RS1(insn), imm_i(insn),
				 1u << (FUNCT3(insn) & 3), xlen);
	case 0x23: /* STORE: sb sh sw sd (funct3 0-3) */
		return insn_store(RS1(insn), RS2(insn), imm_s(insn), 1u << FUNCT3(insn),
				  xlen);
	case 0x6f: /* JAL: a call links ra (or t0, for millicode); rd = 0: j */
		return insn_op(RD(insn) != RISCV_ZERO ? OP_CALL : OP_JUMP);
	case 0x67: /* JALR: call, return (jr ra), tail call, jump table */
		if (FUNCT3(insn) != 0)
			return insn_op(OP_UNKNOWN);
		return insn_op(RD(insn) != RISCV_ZERO ? OP_CALL : OP_JUMP);
	case 0x53: /* OP-FP: feq flt fle, fclass, fmv.x, fcvt to an integer
		      (funct5 0x14, 0x1c, 0x18) write integer rd */
		if (insn >> 27 == 0x14 || insn >> 27 == 0x18 || insn >> 27 == 0x1c)
			return insn_write(RD(insn));
		return insn_op(OP_NONE);
	case 0x57: /* OP-V: vset{i}vl{i} (funct3 7), vmv.x.s and kin (funct3 2,
		      funct6 0x10) write integer rd */
		if (FUNCT3(insn) == 7 || (FUNCT3(insn) == 2 && insn >> 26 == 0x10))
			return insn_write(RD(insn));
		return insn_op(OP_NONE);
	case 0x63: /* BRANCH: decoding follows the fall-through path */
	case 0x0f: /* MISC-MEM: fences */
	case 0x07: /* LOAD-FP, STORE-FP, fused multiply-add: floating point */
	case 0x27:
	case 0x43:
	case 0x47:
	case 0x4b:
	case 0x4f:
		return insn_op(OP_NONE);
	default: /* custom and reserved opcodes */
		return insn_op(OP_UNKNOWN);
	}
}

/*
 * 16-bit instructions. The quadrant (bits 1:0: 00, 01, 10) and funct3 (bits
 * 15:13) name the instruction; C(quadrant, funct3) below. Registers are
 * full 5-bit fields (rd or rs1 at 11:7, rs2 at 6:2), or 3-bit ones naming
 * x8-x15 (rd' or rs2' at 4:2, rs1' at 9:7). Immediates are short and their
 * bits scrambled, differently for each instruction, so that the register
 * fields stay in place: FIELD picks bits [from + count - 1 : from] and moves
 * them to bit `to`; the comments give the spec's bit order, as in "bits
 * 12:10 hold uimm[5:3]".
 */
#define C(quadrant, funct3)	     ((quadrant) << 3 | (funct3))
#define FIELD(insn, from, count, to) (((insn) >> (from) & ((1u << (count)) - 1)) << (to))

/* c.addi, c.li, c.addiw, c.lui: imm[5] bit 12, imm[4:0] bits 6:2, signed. */
static inline int32_t c_imm6(uintptr_t insn)
{
	int32_t value = (int32_t)(FIELD(insn, 2, 5, 0) | FIELD(insn, 12, 1, 5));

	return value >= 32 ? value - 64 : value;
}

/* c.addi16sp: nzimm[9] bit 12, nzimm[4|6|8:7|5] bits 6:2, signed. */
static inline int32_t c_addi16sp_imm(uintptr_t insn)
{
	return (int32_t)(FIELD(insn, 6, 1, 4) | FIELD(insn, 5, 1, 6) |
			 FIELD(insn, 3, 2, 7) | FIELD(insn, 2, 1, 5)) -
	       (int32_t)FIELD(insn, 12, 1, 9);
}

/* c.addi4spn: nzuimm[5:4|9:6|2|3] bits 12:5. */
static inline int32_t c_addi4spn_imm(uintptr_t insn)
{
	return (int32_t)(FIELD(insn, 11, 2, 4) | FIELD(insn, 7, 4, 6) |
			 FIELD(insn, 6, 1, 2) | FIELD(insn, 5, 1, 3));
}

/* c.lw, c.sw: uimm[5:3] bits 12:10, uimm[2|6] bits 6:5. */
static inline int32_t c_word_offset(uintptr_t insn)
{
	return (int32_t)(FIELD(insn, 10, 3, 3) | FIELD(insn, 6, 1, 2) |
			 FIELD(insn, 5, 1, 6));
}

/* c.ld, c.sd: uimm[5:3] bits 12:10, uimm[7:6] bits 6:5. */
static inline int32_t c_double_offset(uintptr_t insn)
{
	return (int32_t)(FIELD(insn, 10, 3, 3) | FIELD(insn, 5, 2, 6));
}

/* The register fields of a 16-bit instruction: rd (also rs1) and rs2, and
 * the 3-bit ones. */
#define C_RD(insn)	  ((insn) >> 7 & 31)
#define C_RS2(insn)	  ((insn) >> 2 & 31)
#define C_RD_SHORT(insn)  (8 + ((insn) >> 2 & 7)) /* rd', or rs2' */
#define C_RS1_SHORT(insn) (8 + ((insn) >> 7 & 7))

static inline struct insn decode16(uintptr_t insn, unsigned xlen)
{
	switch (C(insn & 3, insn >> 13)) {
	case C(0, 0): /* c.addi4spn rd',sp,nzuimm: addi; nzuimm 0 is reserved
			 (0x0000, an illegal instruction, among them) */
		if ((insn & 0x1fe0) == 0)
			return insn_op(OP_UNKNOWN);
		return insn_addi(C_RD_SHORT(insn), RISCV_SP, c_addi4spn_imm(insn));
	case C(0, 2): /* c.lw rd',offset(rs1') */
		return insn_load(C_RD_SHORT(insn), C_RS1_SHORT(insn), c_word_offset(insn),
				 4, xlen);
	case C(0, 3): /* c.ld (rv64); c.flw (rv32) */
		if (xlen != 8)
			return insn_op(OP_NONE);
		return insn_load(C_RD_SHORT(insn), C_RS1_SHORT(insn),
				 c_double_offset(insn), 8, xlen);
	case C(0, 4): /* reserved */
		return insn_op(OP_UNKNOWN);
	case C(0, 6): /* c.sw rs2',offset(rs1') */
		return insn_store(C_RS1_SHORT(insn), C_RD_SHORT(insn),
				  c_word_offset(insn), 4, xlen);
	case C(0, 7): /* c.sd (rv64); c.fsw (rv32) */
		if (xlen != 8)
			return insn_op(OP_NONE);
		return insn_store(C_RS1_SHORT(insn), C_RD_SHORT(insn),
				  c_double_offset(insn), 8, xlen);
	case C(1, 0): /* c.addi rd,imm: addi rd,rd,imm (c.nop: rd = 0) */
		return insn_addi(C_RD(insn), C_RD(insn), c_imm6(insn));
	case C(1, 1): /* c.jal (rv32): jal ra; c.addiw rd,imm (rv64; rd = 0
			 is reserved) */
		if (xlen != 8)
			return insn_op(OP_CALL);
		if (C_RD(insn) == RISCV_ZERO)
			return insn_op(OP_UNKNOWN);
		return insn_make(OP_ADDIW, C_RD(insn), C_RD(insn), 0, c_imm6(insn));
	case C(1, 2): /* c.li rd,imm: addi rd,x0,imm */
		return insn_addi(C_RD(insn), RISCV_ZERO, c_imm6(insn));
	case C(1, 3): /* c.addi16sp (rd = sp), c.lui; an immediate 0 is reserved */
		if (C_RD(insn) == RISCV_SP) {
			if (c_addi16sp_imm(insn) == 0)
				return insn_op(OP_UNKNOWN);
			return insn_addi(RISCV_SP, RISCV_SP, c_addi16sp_imm(insn));
		}
		if (c_imm6(insn) == 0)
			return insn_op(OP_UNKNOWN);
		return insn_addi(C_RD(insn), RISCV_ZERO, c_imm6(insn) * 4096);
	case C(1, 4): /* c.srli, c.srai, c.andi, c.sub, c.xor, c.or, c.and,
			 c.subw, c.addw: rd' = rd' op something */
		return insn_write(C_RS1_SHORT(insn));
	case C(1, 5): /* c.j */
		return insn_op(OP_JUMP);
	case C(2, 0): /* c.slli */
		return insn_write(C_RD(insn));
	case C(2, 2): /* c.lwsp rd,offset(sp): uimm[5] bit 12, uimm[4:2|7:6]
			 bits 6:2; rd = 0 is reserved */
		if (C_RD(insn) == RISCV_ZERO)
			return insn_op(OP_UNKNOWN);
		return insn_load(C_RD(insn), RISCV_SP,
				 (int32_t)(FIELD(insn, 12, 1, 5) | FIELD(insn, 4, 3, 2) |
					   FIELD(insn, 2, 2, 6)),
				 4, xlen);
	case C(2, 3): /* c.ldsp (rv64): uimm[5] bit 12, uimm[4:3|8:6] bits 6:2;
			 rd = 0 is reserved. c.flwsp (rv32) */
		if (xlen != 8)
			return insn_op(OP_NONE);
		if (C_RD(insn) == RISCV_ZERO)
			return insn_op(OP_UNKNOWN);
		return insn_load(C_RD(insn), RISCV_SP,
				 (int32_t)(FIELD(insn, 12, 1, 5) | FIELD(insn, 5, 2, 3) |
					   FIELD(insn, 2, 3, 6)),
				 8, xlen);
	case C(2, 4): /* bit 12 clear: c.mv rd,rs2, c.jr rs1; set: c.add rd,rs2,
			 c.jalr rs1, c.ebreak. c.jr x0 is reserved */
		if (C_RS2(insn) != RISCV_ZERO) {
			if (insn & 0x1000)
				return insn_make(OP_ADD, C_RD(insn), C_RD(insn),
						 C_RS2(insn), 0);
			return insn_addi(C_RD(insn), C_RS2(insn), 0);
		}
		if (C_RD(insn) == RISCV_ZERO)
			return insn_op(insn & 0x1000 ? OP_NONE : OP_UNKNOWN);
		return insn_op(insn & 0x1000 ? OP_CALL : OP_JUMP);
	case C(2, 6): /* c.swsp rs2,offset(sp): uimm[5:2|7:6] bits 12:7 */
		return insn_store(RISCV_SP, C_RS2(insn),
				  (int32_t)(FIELD(insn, 9, 4, 2) | FIELD(insn, 7, 2, 6)),
				  4, xlen);
	case C(2, 7): /* c.sdsp (rv64): uimm[5:3|8:6] bits 12:7. c.fswsp (rv32) */
		if (xlen != 8)
			return insn_op(OP_NONE);
		return insn_store(RISCV_SP, C_RS2(insn),
				  (int32_t)(FIELD(insn, 10, 3, 3) | FIELD(insn, 7, 3, 6)),
				  8, xlen);
	default: /* c.fld, c.fsd, c.fldsp, c.fsdsp; branches: c.beqz, c.bnez */
		return insn_op(OP_NONE);
	}
}

/* ---- 2. What an instruction does to the frame -------------------------------
 *
 * The decoder tracks the frame (struct prologue_frame), which registers
 * changed since the entry (a store of ra after a call saves no caller's ra),
 * and which hold a constant, with its value: a frame larger than addi's
 * 2 KiB is allocated as `li t0,N; sub sp,sp,t0`.
 */
struct scan {
	struct prologue_frame now;  /* after the instructions decoded so far */
	struct prologue_frame body; /* before the first epilogue instruction */
	bool in_epilogue;	    /* body holds a frame */
	/* Past a jump made with no frame, the state to go on with; and whether
	 * the code there turned out to be a block that only a branch from the
	 * body reaches (an out-of-line epilogue): skip it to its jump. */
	bool may_resume;
	bool skipping;
	uintptr_t resume_written;
	uintptr_t resume_known;
	uintptr_t written; /* registers changed since the entry, a bit each */
	uintptr_t known;   /* registers holding a known constant; x0 always */
	unsigned xlen;	   /* register width in bytes: 4 or 8 */
	/* The constants, by register: an array apart, so that the compiler
	 * can keep the fields above in registers. */
	intptr_t *value;
};

/* Constants and offsets come from arbitrary code: their arithmetic wraps as
 * the machine's does, instead of overflowing a signed type. */
static inline intptr_t wrapping_add(intptr_t a, intptr_t b)
{
	return (intptr_t)((uintptr_t)a + (uintptr_t)b);
}

static inline intptr_t wrapping_sub(intptr_t a, intptr_t b)
{
	return (intptr_t)((uintptr_t)a - (uintptr_t)b);
}

static inline bool is_known(const struct scan *s, unsigned reg)
{
	return (s->known & BIT(reg)) != 0;
}

/* Whether a change to reg matters: sp, s0 and ra, and registers holding a
 * constant (x0 keeps 0 whatever is written to it). Most instructions of a
 * function change none of them, and end here. */
static inline bool watched(const struct scan *s, unsigned reg)
{
	return ((s->known & ~BIT(RISCV_ZERO)) | BIT(RISCV_RA) | BIT(RISCV_SP) |
		BIT(RISCV_S0)) &
	       BIT(reg);
}

/* The frame at a function's entry: sp at the CFA, nothing saved. */
static inline void frame_clear(struct prologue_frame *f)
{
	f->sp_state = PROLOGUE_SP_RELATIVE;
	f->sp_offset = 0;
	f->fp_valid = false;
	f->fp_offset = 0;
	f->ra_saved = false;
	f->ra_offset = 0;
	f->s0_saved = false;
	f->s0_offset = 0;
}

/* Field by field: a struct assignment may become a call to memcpy, which a
 * freestanding kernel need not have. */
static void frame_copy(struct prologue_frame *to, const struct prologue_frame *from)
{
	to->sp_state = from->sp_state;
	to->sp_offset = from->sp_offset;
	to->fp_valid = from->fp_valid;
	to->fp_offset = from->fp_offset;
	to->ra_saved = from->ra_saved;
	to->ra_offset = from->ra_offset;
	to->s0_saved = from->s0_saved;
	to->s0_offset = from->s0_offset;
}

/* The frame as the body left it, kept for code past the epilogue. */
static void epilogue_begins(struct scan *s)
{
	if (!s->in_epilogue) {
		frame_copy(&s->body, &s->now);
		s->in_epilogue = true;
	}
}

/* rd gets a value the decoder does not know. */
static inline void write_unknown(struct scan *s, unsigned rd)
{
	if (!watched(s, rd))
		return;
	s->written |= BIT(rd);
	s->known &= ~BIT(rd);
	if (rd == RISCV_SP)
		s->now.sp_state = PROLOGUE_SP_LOST;
	else if (rd == RISCV_S0)
		s->now.fp_valid = false;
}

/* rd gets a constant: a large frame size, or an address. */
static inline void write_constant(struct scan *s, unsigned rd, intptr_t value)
{
	if (rd == RISCV_ZERO)
		return;
	write_unknown(s, rd);
	if (rd == RISCV_SP) {
		/* la sp, stack: the function sets up a stack of its own. */
		s->now.sp_state = PROLOGUE_SP_ORIGIN;
		return;
	}
	s->known |= BIT(rd);
	/* rv32 arithmetic wraps at 32 bits. */
	s->value[rd] = s->xlen == 4 ? (intptr_t)(int32_t)value : value;
}

/* sp moves by delta: down allocates the frame, up frees it (an epilogue). */
static inline void sp_adjust(struct scan *s, intptr_t delta)
{
	s->written |= BIT(RISCV_SP);
	if (s->now.sp_state != PROLOGUE_SP_RELATIVE)
		return; /* an origin stays one; a lost sp stays lost */
	if (delta > 0)
		epilogue_begins(s);
	s->now.sp_offset = wrapping_add(s->now.sp_offset, delta);
}

/* sp = s0 + imm, with s0 a frame pointer: the frame is known again. */
static void sp_from_frame_pointer(struct scan *s, intptr_t imm)
{
	intptr_t offset = wrapping_add(s->now.fp_offset, imm);

	if (s->now.sp_state != PROLOGUE_SP_RELATIVE || offset > s->now.sp_offset)
		epilogue_begins(s);
	s->written |= BIT(RISCV_SP);
	s->now.sp_state = PROLOGUE_SP_RELATIVE;
	s->now.sp_offset = offset;
}

/* s0 = sp + sp_plus: s0 becomes a frame pointer. */
static void frame_pointer_set(struct scan *s, intptr_t sp_plus)
{
	write_unknown(s, RISCV_S0);
	s->now.fp_valid = true;
	s->now.fp_offset = wrapping_add(s->now.sp_offset, sp_plus);
}

/* rd = rs1 + imm. */
static inline void do_addi(struct scan *s, unsigned rd, unsigned rs1, intptr_t imm)
{
	if (!watched(s, rd) && !is_known(s, rs1))
		return; /* no constant made, none lost, no frame register */
	if (rd == RISCV_SP && rs1 == RISCV_SP)
		sp_adjust(s, imm);
	else if (rd == RISCV_SP && rs1 == RISCV_S0 && s->now.fp_valid)
		sp_from_frame_pointer(s, imm);
	else if (rd == RISCV_S0 && rs1 == RISCV_SP &&
		 s->now.sp_state == PROLOGUE_SP_RELATIVE)
		frame_pointer_set(s, imm);
	else if (is_known(s, rs1))
		write_constant(s, rd, wrapping_add(s->value[rs1], imm));
	else
		write_unknown(s, rd);
}

/* rd = rs1 + imm in 32 bits, sign-extended (rv64's addiw). */
static void do_addiw(struct scan *s, unsigned rd, unsigned rs1, intptr_t imm)
{
	if (is_known(s, rs1))
		write_constant(s, rd, (int32_t)wrapping_add(s->value[rs1], imm));
	else
		write_unknown(s, rd);
}

/* rd = rs1 + rs2, or rs1 - rs2 (negate): with sp, a large frame's
 * allocation (sub sp,sp,t0), or an alloca by a variable. */
static void do_add(struct scan *s, unsigned rd, unsigned rs1, unsigned rs2, bool negate)
{
	unsigned other = rs1 == RISCV_SP ? rs2 : rs1;
	bool uses_sp = rs1 == RISCV_SP || (rs2 == RISCV_SP && !negate);
	bool other_known = is_known(s, other);
	intptr_t amount = !other_known ? 0
			  : negate     ? wrapping_sub(0, s->value[other])
				       : s->value[other];

	if (!watched(s, rd) && !(is_known(s, rs1) && is_known(s, rs2)))
		return;
	if (rd == RISCV_SP && uses_sp) {
		if (other_known)
			sp_adjust(s, amount);
		else if (s->now.sp_state == PROLOGUE_SP_RELATIVE)
			write_unknown(s, RISCV_SP); /* alloca: by a variable */
		else
			s->written |= BIT(RISCV_SP);
	} else if (rd == RISCV_S0 && uses_sp && other_known &&
		   s->now.sp_state == PROLOGUE_SP_RELATIVE) {
		frame_pointer_set(s, amount);
	} else if (is_known(s, rs1) && is_known(s, rs2)) {
		write_constant(s, rd,
			       negate ? wrapping_sub(s->value[rs1], s->value[rs2])
				      : wrapping_add(s->value[rs1], s->value[rs2]));
	} else {
		write_unknown(s, rd);
	}
}

/* The slot base + offset as an offset from the CFA, if base is sp or the
 * frame pointer and known. */
static inline bool frame_slot(const struct scan *s, unsigned base, intptr_t offset,
			      intptr_t *slot)
{
	if (base == RISCV_SP && s->now.sp_state == PROLOGUE_SP_RELATIVE) {
		*slot = wrapping_add(s->now.sp_offset, offset);
		return true;
	}
	if (base == RISCV_S0 && s->now.fp_valid) {
		*slot = wrapping_add(s->now.fp_offset, offset);
		return true;
	}
	return false;
}

/* A register-wide store of ra or s0: the first one, of the value the
 * function was entered with, into the frame, saves the caller's value. */
static inline void do_store(struct scan *s, unsigned base, unsigned source,
			    intptr_t offset)
{
	struct prologue_frame *f = &s->now;
	intptr_t slot;

	if ((s->written & BIT(source)) || !frame_slot(s, base, offset, &slot))
		return;
	if (source == RISCV_RA && !f->ra_saved) {
		f->ra_saved = true;
		f->ra_offset = slot;
	} else if (source == RISCV_S0 && !f->s0_saved) {
		f->s0_saved = true;
		f->s0_offset = slot;
	}
}

/* A register-wide load: from ra's or s0's save slot, a restore (an
 * epilogue); any load changes rd. */
static inline void do_load(struct scan *s, unsigned rd, unsigned base, intptr_t offset)
{
	struct prologue_frame *f = &s->now;
	intptr_t slot;

	if (!watched(s, rd))
		return;
	if (frame_slot(s, base, offset, &slot) &&
	    ((rd == RISCV_RA && f->ra_saved && slot == f->ra_offset) ||
	     (rd == RISCV_S0 && f->s0_saved && slot == f->s0_offset))) {
		epilogue_begins(s);
		if (rd == RISCV_RA)
			f->ra_saved = false;
		else
			f->s0_saved = false;
	}
	write_unknown(s, rd);
}

/* An instruction that neither calls nor jumps. */
static inline void follow(struct scan *s, struct insn insn)
{
	switch (insn.op) {
	case OP_WRITE:
		write_unknown(s, insn.rd);
		break;
	case OP_ADDI:
		do_addi(s, insn.rd, insn.rs1, insn.imm);
		break;
	case OP_ADDIW:
		do_addiw(s, insn.rd, insn.rs1, insn.imm);
		break;
	case OP_ADD:
	case OP_SUB:
		do_add(s, insn.rd, insn.rs1, insn.rs2, insn.op == OP_SUB);
		break;
	case OP_LOAD:
		do_load(s, insn.rd, insn.rs1, insn.imm);
		break;
	case OP_STORE:
		do_store(s, insn.rs1, insn.rs2, insn.imm);
		break;
	default: /* OP_NONE */
		break;
	}
}

/* ---- 3. The scan ------------------------------------------------------------
 *
 * Decoding goes straight through the code: it takes no branch (the frame is
 * the same on both paths of a prologue's branch), and goes on past calls
 * (a callee returns with the frame as it was; a trap may interrupt the
 * epilogue after a call). A jump (no link) ends the straight line: the code
 * after it is reached only by a branch. There shrink-wrapping puts code
 * that runs before the prologue (an early return), so decoding goes on if
 * no frame was set up yet; after a frame was, it belongs to the body, whose
 * frame is the one from before any epilogue began.
 */

/* The psABI's caller-saved registers, which a call may change: ra, t0-t2,
 * a0-a7, t3-t6. */
#define CALLER_SAVED                                                                     \
	(BIT(1) | BIT(5) | BIT(6) | BIT(7) | BIT(10) | BIT(11) | BIT(12) | BIT(13) |     \
	 BIT(14) | BIT(15) | BIT(16) | BIT(17) | BIT(28) | BIT(29) | BIT(30) | BIT(31))

static void call_returns(struct scan *s)
{
	s->written |= CALLER_SAVED;
	s->known &= ~CALLER_SAVED;
}

/* No frame: nothing was set up (or all of it was undone). */
static bool frame_is_empty(const struct prologue_frame *f)
{
	return f->sp_state == PROLOGUE_SP_RELATIVE && f->sp_offset == 0 && !f->fp_valid &&
	       !f->ra_saved && !f->s0_saved;
}

/* Decoding goes on past a jump made with no frame, as it stands. */
static void resume_point(struct scan *s)
{
	s->may_resume = true;
	s->resume_written = s->written;
	s->resume_known = s->known;
}

/* Back to the state at the last such jump (the frame was empty then). */
static void resume(struct scan *s)
{
	frame_clear(&s->now);
	s->in_epilogue = false;
	s->written = s->resume_written;
	s->known = s->resume_known;
}

/* The state at a function's entry. */
static inline void scan_start(struct scan *s, unsigned xlen, intptr_t *value)
{
	frame_clear(&s->now);
	frame_clear(&s->body);
	s->in_epilogue = false;
	s->may_resume = false;
	s->skipping = false;
	s->resume_written = s->written = 0;
	s->resume_known = s->known = BIT(RISCV_ZERO);
	s->xlen = xlen;
	s->value = value;
	s->value[RISCV_ZERO] = 0;
}

/* The analysis: the frame, where decoding stopped, the first call. */
static inline enum prologue_status found(struct prologue_analysis *analysis,
					 const struct prologue_frame *frame,
					 uintptr_t stop, uintptr_t first_call)
{
	frame_copy(&analysis->frame, frame);
	analysis->stop = stop;
	analysis->first_call = first_call;
	return PROLOGUE_OK;
}

/* The code to decode: [function, limit) towards pc, of code that ends at
 * end. The range is checked once: a parcel at `at` < limit lies in it
 * (limit is even, as `at` is); a 32-bit instruction is checked for its
 * second parcel. */
static bool code_range(const struct tracer_config *config, uintptr_t function,
		       uintptr_t function_end, uintptr_t pc, uintptr_t *limit,
		       uintptr_t *end)
{
	struct memory_cursor code;

	if (function_end > config->text.end || function_end < function)
		function_end = config->text.end;
	code = memory_code_cursor(config, function, function_end);
	if (code.failed)
		return false;
	*end = code.end;
	*limit = pc < code.end ? pc : code.end & ~(uintptr_t)1;
	return true;
}

enum prologue_status prologue_analyze(const struct tracer_config *config,
				      uintptr_t function, uintptr_t function_end,
				      uintptr_t pc, unsigned xlen,
				      struct prologue_analysis *analysis)
{
	struct scan s;
	intptr_t value[32];
	uintptr_t first_call = 0;
	uintptr_t limit;
	uintptr_t end;
	uintptr_t at;

	if (!code_range(config, function, function_end, pc, &limit, &end))
		return PROLOGUE_UNREADABLE;
	scan_start(&s, xlen, value);
	for (at = function; at < limit;) {
		uintptr_t here = at;
		uintptr_t parcel = target_u16(at);
		struct insn insn;

		if ((parcel & 3) != 3) {
			insn = decode16(parcel, xlen);
			at += 2;
		} else {
			if ((parcel & 0x1c) == 0x1c)
				return PROLOGUE_UNKNOWN; /* longer than 32 bits */
			if (end - at < 4)
				return PROLOGUE_UNREADABLE;
			insn =
			    decode32(parcel | (uintptr_t)target_u16(at + 2) << 16, xlen);
			at += 4;
		}
		switch (insn.op) {
		case OP_UNKNOWN:
			return PROLOGUE_UNKNOWN;
		case OP_CALL:
			call_returns(&s);
			if (first_call == 0)
				first_call = here;
			continue;
		case OP_JUMP:
			if (s.skipping) {
				/* The end of a skipped block: back to the state
				 * before it. */
				resume(&s);
				s.skipping = false;
				continue;
			}
			if (s.in_epilogue || !frame_is_empty(&s.now)) {
				/* After an epilogue, the body's frame. */
				if (s.in_epilogue)
					return found(analysis, &s.body, here, first_call);
				return found(analysis, &s.now, here, first_call);
			}
			resume_point(&s); /* shrink-wrapping: no frame yet */
			continue;
		default:
			follow(&s, insn);
		}
		/* sp above the CFA: no path from the entry runs this code. It is
		 * an epilogue that the body branches to, placed before the
		 * prologue: skip it to its jump. */
		if (s.may_resume && s.now.sp_state == PROLOGUE_SP_RELATIVE &&
		    s.now.sp_offset > 0)
			s.skipping = true;
	}
	/* The last parcel lies partly outside the code (an odd end). */
	if (at < pc && at < end)
		return PROLOGUE_UNREADABLE;
	if (s.skipping)
		resume(&s);
	return found(analysis, &s.now, at, first_call);
}

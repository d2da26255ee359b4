/*
 * prologue_decode.c - what a function's code did to its frame, found by
 * decoding it from its first instruction (the prologue unwinder's analysis).
 *
 * RISC-V instructions are 16 bits (RVC, low two bits not 11) or 32 bits
 * (low bits 11), so decoding linearly from a function's start never reads
 * half an instruction as a whole one. On the way the decoder follows:
 *
 *   sp   addi/c.addi/c.addi16sp sp,sp,N; add/sub sp,sp,t with t a constant
 *        built by lui/addi/addiw/li/c.li/c.lui (large frames); mv/addi sp,s0,N
 *   s0   addi s0,sp,N, c.addi4spn s0,sp,N, mv s0,sp: s0 becomes a frame
 *        pointer, which still finds the frame once sp is lost (alloca)
 *   saves  sd/c.sdsp (rv64), sw/c.swsp (rv32) of ra and s0 relative to sp or
 *        the frame pointer, before the register was changed (a store after
 *        that is no save of the caller's value)
 *   restores  loads of ra or s0 from their save slot, sp moving up: an
 *        epilogue
 *
 * All offsets are relative to the CFA, the sp at the function's entry.
 * Encodings: RISC-V Unprivileged ISA, chapters RV32I/RV64I and "C".
 */
#include "prologue.h"

/* What one instruction means for the walk through the code. */
enum effect {
	EFFECT_NOTHING, /* changes nothing the decoder follows; go on */
	EFFECT_NONE,	/* decoded; go on */
	EFFECT_CALL,	/* jumps and links: the callee returns with the frame as
			   it was, and ra and the temporaries changed */
	EFFECT_JUMP,	/* jumps without linking: the code after it is reached
			   only by a branch */
	EFFECT_UNKNOWN, /* cannot be followed */
};

struct scan {
	struct prologue_frame now;  /* after the instructions decoded so far */
	struct prologue_frame body; /* before the first epilogue instruction */
	bool in_epilogue;	    /* body holds a frame */
	/* Past a jump made with no frame, the state to go on with; and whether
	 * the code there turned out to be a block that only a branch from the
	 * body reaches (an out-of-line epilogue): skip it to its jump. */
	bool may_resume;
	bool skipping;
	uint32_t resume_written;
	uint32_t resume_known;
	uint32_t written;   /* registers changed since the entry */
	uint32_t known;	    /* registers holding a known constant */
	unsigned xlen;	    /* register width in bytes: 4 or 8 */
	intptr_t value[32]; /* their values, when known */
};

#define BIT(reg) ((uint32_t)1 << (reg))

/* Constants and offsets come from arbitrary code: their arithmetic wraps as
 * the machine's does, instead of overflowing a signed type. */
static intptr_t wrapping_add(intptr_t a, intptr_t b)
{
	return (intptr_t)((uintptr_t)a + (uintptr_t)b);
}

static intptr_t wrapping_sub(intptr_t a, intptr_t b)
{
	return (intptr_t)((uintptr_t)a - (uintptr_t)b);
}

/* Field by field (see regs_copy in internal.h). */
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

static void epilogue_begins(struct scan *s)
{
	if (!s->in_epilogue) {
		frame_copy(&s->body, &s->now);
		s->in_epilogue = true;
	}
}

/*
 * Whether a change to reg matters: sp, s0 and ra, and registers holding a
 * constant. Most instructions of a function's first block change none of
 * them; returning early for those keeps decoding a frame cheap.
 */
static inline bool watched(const struct scan *s, unsigned reg)
{
	return ((s->known & ~BIT(RISCV_ZERO)) | BIT(RISCV_RA) | BIT(RISCV_SP) |
		BIT(RISCV_S0)) &
	       BIT(reg);
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
static void write_constant(struct scan *s, unsigned rd, intptr_t value)
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

static inline __attribute__((always_inline)) void sp_adjust(struct scan *s,
							    intptr_t delta)
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

static void frame_pointer_set(struct scan *s, intptr_t sp_plus)
{
	write_unknown(s, RISCV_S0);
	s->now.fp_valid = true;
	s->now.fp_offset = wrapping_add(s->now.sp_offset, sp_plus);
}

/* addi rd, rs1, imm; also li (rs1 = zero), mv (imm = 0), c.addi4spn. */
static void op_addi(struct scan *s, unsigned rd, unsigned rs1, intptr_t imm)
{
	if (!watched(s, rd) && !(s->known & BIT(rs1)))
		return; /* no constant made, none lost, no frame register */
	if (rd == RISCV_SP && rs1 == RISCV_SP)
		sp_adjust(s, imm);
	else if (rd == RISCV_SP && rs1 == RISCV_S0 && s->now.fp_valid)
		sp_from_frame_pointer(s, imm);
	else if (rd == RISCV_S0 && rs1 == RISCV_SP &&
		 s->now.sp_state == PROLOGUE_SP_RELATIVE)
		frame_pointer_set(s, imm);
	else if (s->known & BIT(rs1))
		write_constant(s, rd, wrapping_add(s->value[rs1], imm));
	else
		write_unknown(s, rd);
}

/* add or sub (negate) rd, rs1, rs2; also c.add. */
static void op_add(struct scan *s, unsigned rd, unsigned rs1, unsigned rs2, bool negate)
{
	unsigned other = rs1 == RISCV_SP ? rs2 : rs1;
	bool uses_sp = rs1 == RISCV_SP || (rs2 == RISCV_SP && !negate);
	bool other_known = (s->known & BIT(other)) != 0;
	intptr_t amount = !other_known ? 0
			  : negate     ? wrapping_sub(0, s->value[other])
				       : s->value[other];

	if (!watched(s, rd) && !((s->known & BIT(rs1)) && (s->known & BIT(rs2))))
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
	} else if ((s->known & BIT(rs1)) && (s->known & BIT(rs2))) {
		write_constant(s, rd,
			       negate ? wrapping_sub(s->value[rs1], s->value[rs2])
				      : wrapping_add(s->value[rs1], s->value[rs2]));
	} else {
		write_unknown(s, rd);
	}
}

/* The slot base + offset as an offset from the CFA, if base is sp or the
 * frame pointer and known. */
static bool frame_slot(const struct scan *s, unsigned base, intptr_t offset,
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

/* Out of line, as the general decoder's other cases: its code stays small (the
 * unwind table of a kernel grows with its code). */
static __attribute__((noinline)) void
op_store(struct scan *s, unsigned base, unsigned source, intptr_t offset, unsigned width)
{
	struct prologue_frame *f = &s->now;
	intptr_t slot;

	if ((source != RISCV_RA && source != RISCV_S0) || width != s->xlen ||
	    (s->written & BIT(source)) || !frame_slot(s, base, offset, &slot))
		return;
	if (source == RISCV_RA && !f->ra_saved) {
		f->ra_saved = true;
		f->ra_offset = slot;
	} else if (source == RISCV_S0 && !f->s0_saved) {
		f->s0_saved = true;
		f->s0_offset = slot;
	}
}

static __attribute__((noinline)) void op_load(struct scan *s, unsigned rd, unsigned base,
					      intptr_t offset, unsigned width)
{
	struct prologue_frame *f = &s->now;
	intptr_t slot;
	bool restores;

	if (!watched(s, rd))
		return;
	restores = width == s->xlen && frame_slot(s, base, offset, &slot) &&
		   ((rd == RISCV_RA && f->ra_saved && slot == f->ra_offset) ||
		    (rd == RISCV_S0 && f->s0_saved && slot == f->s0_offset));

	if (restores) {
		epilogue_begins(s);
		if (rd == RISCV_RA)
			f->ra_saved = false;
		else
			f->s0_saved = false;
	}
	write_unknown(s, rd);
}

/* Immediates of the 32-bit formats, sign-extended. */
static intptr_t imm_i(uint32_t insn)
{
	return (intptr_t)((int32_t)insn >> 20);
}

static intptr_t imm_s(uint32_t insn)
{
	return (intptr_t)(((int32_t)insn >> 25) * 32 + (int32_t)(insn >> 7 & 0x1f));
}

static intptr_t imm_u(uint32_t insn)
{
	return (intptr_t)(int32_t)(insn & 0xfffff000u);
}

/* Bits [from + count - 1 : from] of an instruction, shifted to `to`. */
#define FIELD(insn, from, count, to)                                                     \
	((((insn) >> (from)) & ((1u << (count)) - 1)) << (to))

/* The sign-extended 6-bit immediate of c.addi, c.li, c.addiw, c.lui. */
static intptr_t imm_ci(uint32_t insn)
{
	int32_t value = (int32_t)(FIELD(insn, 2, 5, 0) | FIELD(insn, 12, 1, 5));

	return value >= 32 ? value - 64 : value;
}

/*
 * Most instructions change no register the decoder watches: they are told
 * apart by the register they write (or store, or read a constant from)
 * before anything else, against these masks. Registers that may matter:
 * written, the frame registers and those holding a constant, x0 included,
 * which sends rd = x0 on to the checks of reserved encodings.
 */
static inline uint32_t write_mask(const struct scan *s)
{
	return s->known | BIT(RISCV_ZERO) | BIT(RISCV_RA) | BIT(RISCV_SP) | BIT(RISCV_S0);
}

/* Stored: only the caller's ra and s0 are saves. */
#define SAVED_REGISTERS (BIT(RISCV_RA) | BIT(RISCV_S0))

/* Fields of a 32-bit instruction, extracted where a case needs them. */
#define RD(insn)     ((insn) >> 7 & 0x1f)
#define RS1(insn)    ((insn) >> 15 & 0x1f)
#define RS2(insn)    ((insn) >> 20 & 0x1f)
#define FUNCT3(insn) ((insn) >> 12 & 0x7)

static inline enum effect decode32(struct scan *s, uint32_t watch, uint32_t insn)
{
	unsigned rd = RD(insn);

	switch (insn & 0x7f) {
	case 0x13: /* OP-IMM: addi, and shifts and logic on a register */
		if (FUNCT3(insn) == 0)
			op_addi(s, rd, RS1(insn), imm_i(insn));
		else
			write_unknown(s, rd);
		return EFFECT_NONE;
	case 0x1b: /* OP-IMM-32: addiw builds 32-bit constants on rv64 */
		if (!(watch & BIT(rd)) && !(s->known & BIT(RS1(insn))))
			return EFFECT_NOTHING;
		if (FUNCT3(insn) == 0 && s->xlen == 8 && (s->known & BIT(RS1(insn))))
			write_constant(
			    s, rd,
			    (int32_t)wrapping_add(s->value[RS1(insn)], imm_i(insn)));
		else
			write_unknown(s, rd);
		return EFFECT_NONE;
	case 0x37: /* LUI */
		write_constant(s, rd, imm_u(insn));
		return EFFECT_NONE;
	case 0x17: /* AUIPC: an address; into sp, a stack of this function's */
		if (!(watch & BIT(rd)))
			return EFFECT_NOTHING;
		if (rd == RISCV_SP)
			write_constant(s, rd, 0);
		else
			write_unknown(s, rd);
		return EFFECT_NONE;
	case 0x33: /* OP: add, sub, and the rest */
		if (!(watch & BIT(rd)) && !(s->known & BIT(RS1(insn))))
			return EFFECT_NOTHING;
		if (FUNCT3(insn) == 0 && ((insn >> 25) == 0 || (insn >> 25) == 0x20))
			op_add(s, rd, RS1(insn), RS2(insn), (insn >> 25) == 0x20);
		else
			write_unknown(s, rd);
		return EFFECT_NONE;
	case 0x23: /* STORE: sb, sh, sw, sd */
		if (!(SAVED_REGISTERS & BIT(RS2(insn))))
			return EFFECT_NOTHING;
		op_store(s, RS1(insn), RS2(insn), imm_s(insn), 1u << FUNCT3(insn));
		return EFFECT_NONE;
	case 0x03: /* LOAD */
		if (!(watch & BIT(rd)))
			return EFFECT_NOTHING;
		op_load(s, rd, RS1(insn), imm_i(insn), 1u << (FUNCT3(insn) & 3));
		return EFFECT_NONE;
	case 0x6f: /* JAL: a call links ra (or t0, for millicode) */
		return rd != RISCV_ZERO ? EFFECT_CALL : EFFECT_JUMP;
	case 0x67: /* JALR: call, return, tail call, jump table */
		if (FUNCT3(insn) != 0)
			return EFFECT_UNKNOWN;
		return rd != RISCV_ZERO ? EFFECT_CALL : EFFECT_JUMP;
	case 0x3b: /* OP-32 */
	case 0x2f: /* AMO */
	case 0x73: /* SYSTEM: csr reads write rd; ecall, ebreak, wfi have rd 0 */
		if (!(watch & BIT(rd)))
			return EFFECT_NOTHING;
		write_unknown(s, rd);
		return EFFECT_NONE;
	case 0x53: /* OP-FP: feq/flt/fle, fclass, fmv.x, fcvt to integer write x rd */
		if (!(watch & BIT(rd)))
			return EFFECT_NOTHING;
		if ((insn >> 27) == 0x14 || (insn >> 27) == 0x18 || (insn >> 27) == 0x1c)
			write_unknown(s, rd);
		return EFFECT_NONE;
	case 0x57: /* OP-V: vset{i}vl{i}, and vmv.x.s and kin (funct6 0x10) */
		if (!(watch & BIT(rd)))
			return EFFECT_NOTHING;
		if (FUNCT3(insn) == 7 || (FUNCT3(insn) == 2 && (insn >> 26) == 0x10))
			write_unknown(s, rd);
		return EFFECT_NONE;
	case 0x63: /* BRANCH: decoding follows the fall-through path */
	case 0x0f: /* MISC-MEM: fences */
	case 0x07: /* LOAD-FP and STORE-FP, FMA: floating-point registers only */
	case 0x27:
	case 0x43:
	case 0x47:
	case 0x4b:
	case 0x4f:
		return EFFECT_NOTHING;
	default: /* custom and reserved opcodes */
		return EFFECT_UNKNOWN;
	}
}

/* Registers x8-x15 of the compressed formats (rd', rs1', rs2'). */
#define RVC_LOW(insn)  (8 + ((insn) >> 2 & 0x7)) /* bits 4:2: rd' or rs2' */
#define RVC_HIGH(insn) (8 + ((insn) >> 7 & 0x7)) /* bits 9:7: rs1', or rd' */
/* Offsets of c.lw/c.sw (uimm[5:3|2|6]) and c.ld/c.sd (uimm[5:3|7:6]). */
#define RVC_WORD_OFFSET(insn)                                                            \
	(FIELD(insn, 10, 3, 3) | FIELD(insn, 6, 1, 2) | FIELD(insn, 5, 1, 6))
#define RVC_DOUBLE_OFFSET(insn) (FIELD(insn, 10, 3, 3) | FIELD(insn, 5, 2, 6))
/* A compressed instruction's case: its quadrant (bits 1:0) and funct3. */
#define RVC(quadrant, funct3) ((quadrant) << 3 | (funct3))

/* Offsets of c.swsp (uimm[5:2|7:6] in bits 12:9|8:7) and c.sdsp
 * (uimm[5:3|8:6] in bits 12:10|9:7). */
#define RVC_SWSP_OFFSET(insn) (FIELD(insn, 9, 4, 2) | FIELD(insn, 7, 2, 6))
#define RVC_SDSP_OFFSET(insn) (FIELD(insn, 10, 3, 3) | FIELD(insn, 7, 3, 6))

/* c.addi16sp's nzimm[9|4|6|8:7|5], in bits 12|6|5|4:3|2, sign-extended. */
static inline intptr_t addi16sp_imm(uint32_t insn)
{
	intptr_t imm = FIELD(insn, 6, 1, 4) | FIELD(insn, 5, 1, 6) |
		       FIELD(insn, 3, 2, 7) | FIELD(insn, 2, 1, 5);

	return imm - (intptr_t)FIELD(insn, 12, 1, 9);
}

/* c.addi4spn's nzuimm[5:4|9:6|2|3], in bits 12:11|10:7|6|5. */
static inline intptr_t addi4spn_imm(uint32_t insn)
{
	return (intptr_t)(FIELD(insn, 11, 2, 4) | FIELD(insn, 7, 4, 6) |
			  FIELD(insn, 6, 1, 2) | FIELD(insn, 5, 1, 3));
}

/* One switch over quadrant and funct3: a single jump for every compressed
 * instruction, most of which then end at a mask test. */
#define RVC_RD(insn)  ((insn) >> 7 & 0x1f) /* also rs1 */
#define RVC_RS2(insn) ((insn) >> 2 & 0x1f)

static inline enum effect decode16(struct scan *s, uint32_t watch, uint32_t insn,
				   unsigned rvc_class)
{
	unsigned rd = RVC_RD(insn);
	intptr_t imm;

	switch (rvc_class) {
	case RVC(0, 0): /* c.addi4spn rd', sp, nzuimm[5:4|9:6|2|3]; all zero: illegal */
		if ((insn & 0x1fe0) == 0)
			return EFFECT_UNKNOWN;
		if (!(watch & BIT(RVC_LOW(insn))))
			return EFFECT_NOTHING;
		op_addi(s, RVC_LOW(insn), RISCV_SP, addi4spn_imm(insn));
		return EFFECT_NONE;
	case RVC(0, 2): /* c.lw */
		if (!(watch & BIT(RVC_LOW(insn))))
			return EFFECT_NOTHING;
		op_load(s, RVC_LOW(insn), RVC_HIGH(insn), RVC_WORD_OFFSET(insn), 4);
		return EFFECT_NONE;
	case RVC(0, 3): /* c.ld (rv64); c.flw (rv32) */
		if (!(watch & BIT(RVC_LOW(insn))) || s->xlen != 8)
			return EFFECT_NOTHING;
		op_load(s, RVC_LOW(insn), RVC_HIGH(insn), RVC_DOUBLE_OFFSET(insn), 8);
		return EFFECT_NONE;
	case RVC(0, 6): /* c.sw */
		if (!(SAVED_REGISTERS & BIT(RVC_LOW(insn))))
			return EFFECT_NOTHING;
		op_store(s, RVC_HIGH(insn), RVC_LOW(insn), RVC_WORD_OFFSET(insn), 4);
		return EFFECT_NONE;
	case RVC(0, 7): /* c.sd (rv64); c.fsw (rv32) */
		if (!(SAVED_REGISTERS & BIT(RVC_LOW(insn))) || s->xlen != 8)
			return EFFECT_NOTHING;
		op_store(s, RVC_HIGH(insn), RVC_LOW(insn), RVC_DOUBLE_OFFSET(insn), 8);
		return EFFECT_NONE;
	case RVC(0, 4): /* reserved */
		return EFFECT_UNKNOWN;
	case RVC(0, 1): /* c.fld, c.fsd */
	case RVC(0, 5):
		return EFFECT_NOTHING;
	case RVC(1, 0): /* c.addi rd, imm (c.nop: rd 0) */
		if (!(watch & BIT(rd)))
			return EFFECT_NOTHING;
		op_addi(s, rd, rd, imm_ci(insn));
		return EFFECT_NONE;
	case RVC(1, 1): /* c.jal (rv32); c.addiw (rv64) */
		if (s->xlen == 4)
			return EFFECT_CALL;
		if (!(watch & BIT(rd)))
			return EFFECT_NOTHING;
		if (rd == RISCV_ZERO)
			return EFFECT_UNKNOWN; /* reserved */
		if (s->known & BIT(rd))
			write_constant(s, rd,
				       (int32_t)wrapping_add(s->value[rd], imm_ci(insn)));
		else
			write_unknown(s, rd);
		return EFFECT_NONE;
	case RVC(1, 2): /* c.li rd, imm */
		op_addi(s, rd, RISCV_ZERO, imm_ci(insn));
		return EFFECT_NONE;
	case RVC(1, 3):
		if (rd != RISCV_SP) { /* c.lui rd, imm */
			if (imm_ci(insn) == 0)
				return EFFECT_UNKNOWN; /* reserved */
			write_constant(s, rd, imm_ci(insn) * 4096);
			return EFFECT_NONE;
		}
		imm = addi16sp_imm(insn); /* c.addi16sp */
		if (imm == 0)
			return EFFECT_UNKNOWN; /* reserved */
		sp_adjust(s, imm);
		return EFFECT_NONE;
	case RVC(1, 4): /* c.srli, c.srai, c.andi, c.sub ... c.addw on rd' */
		if (!(watch & BIT(RVC_HIGH(insn))))
			return EFFECT_NOTHING;
		write_unknown(s, RVC_HIGH(insn));
		return EFFECT_NONE;
	case RVC(1, 5): /* c.j */
		return EFFECT_JUMP;
	case RVC(1, 6): /* c.beqz, c.bnez */
	case RVC(1, 7):
		return EFFECT_NOTHING;
	case RVC(2, 0): /* c.slli */
		if (!(watch & BIT(rd)))
			return EFFECT_NOTHING;
		write_unknown(s, rd);
		return EFFECT_NONE;
	case RVC(2, 2): /* c.lwsp: uimm[5] bit 12, [4:2] bits 6:4, [7:6] bits 3:2 */
		if (!(watch & BIT(rd)))
			return EFFECT_NOTHING;
		if (rd == RISCV_ZERO)
			return EFFECT_UNKNOWN; /* reserved */
		op_load(s, rd, RISCV_SP,
			FIELD(insn, 12, 1, 5) | FIELD(insn, 4, 3, 2) |
			    FIELD(insn, 2, 2, 6),
			4);
		return EFFECT_NONE;
	case RVC(2,
		 3): /* c.ldsp (rv64): uimm[5] bit 12, [4:3] bits 6:5, [8:6] bits 4:2 */
		if (!(watch & BIT(rd)) || s->xlen == 4)
			return EFFECT_NOTHING; /* rv32: c.flwsp */
		if (rd == RISCV_ZERO)
			return EFFECT_UNKNOWN;
		op_load(s, rd, RISCV_SP,
			FIELD(insn, 12, 1, 5) | FIELD(insn, 5, 2, 3) |
			    FIELD(insn, 2, 3, 6),
			8);
		return EFFECT_NONE;
	case RVC(2, 4):
		/* c.mv and c.add change rd, from rs2 (x0 is known: the rest) */
		if (!(watch & BIT(rd)) && !(s->known & BIT(RVC_RS2(insn))))
			return EFFECT_NOTHING;
		if (RVC_RS2(insn) != RISCV_ZERO) {
			if (insn & 0x1000)
				op_add(s, rd, rd, RVC_RS2(insn), false); /* c.add */
			else
				op_addi(s, rd, RVC_RS2(insn), 0); /* c.mv */
			return EFFECT_NONE;
		}
		if (rd == RISCV_ZERO) /* c.ebreak; without bit 12 reserved */
			return insn & 0x1000 ? EFFECT_NONE : EFFECT_UNKNOWN;
		return insn & 0x1000 ? EFFECT_CALL : EFFECT_JUMP; /* c.jalr, c.jr */
	case RVC(2, 6): /* c.swsp: uimm[5:2] bits 12:9, [7:6] bits 8:7 */
		if (!(SAVED_REGISTERS & BIT(RVC_RS2(insn))))
			return EFFECT_NOTHING;
		op_store(s, RISCV_SP, RVC_RS2(insn), RVC_SWSP_OFFSET(insn), 4);
		return EFFECT_NONE;
	case RVC(2, 7): /* c.sdsp (rv64): uimm[5:3] bits 12:10, [8:6] bits 9:7 */
		if (!(SAVED_REGISTERS & BIT(RVC_RS2(insn))) || s->xlen != 8)
			return EFFECT_NOTHING; /* rv32: c.fswsp */
		op_store(s, RISCV_SP, RVC_RS2(insn), RVC_SDSP_OFFSET(insn), 8);
		return EFFECT_NONE;
	default: /* c.fldsp, c.fsdsp; no class (quadrant 3 is 32 bits) */
		return EFFECT_NOTHING;
	}
}

/*
 * The filter in front of the decoder. Before an instruction is decoded, one
 * register field of it says whether decoding could change anything: a
 * table gives, for its class (a compressed instruction's quadrant and
 * funct3, a 32-bit one's opcode), the field's position and the registers
 * that matter there, one bit each, register r at bit 31 - r, so that the
 * test is one shift left and a sign test. The 3-bit fields of compressed
 * instructions (x8-x15) are read as 5-bit ones with the two bits above
 * them: their masks repeat every 8 registers.
 *
 * The tables hold while no register holds a constant other than x0 (the
 * common case: a constant lives from a `li` to the next call): the
 * registers that matter are then the frame registers and x0 (written),
 * ra and s0 (stored), and x0 as a source (li, mv: a constant made). With
 * other constants, filter_all sends every instruction to the decoder,
 * which tests the same as the filter, with the constants.
 */
struct filter {
	uint32_t registers; /* register r matters: bit 31 - r */
	uint32_t shift;	    /* where its field starts in the instruction */
};

#define MATTERS(reg) ((uint32_t)0x80000000u >> (reg))
/* Written: x0 (the reserved encodings with rd = 0), ra, sp, s0. */
#define WRITTEN_FULL                                                                     \
	(MATTERS(RISCV_ZERO) | MATTERS(RISCV_RA) | MATTERS(RISCV_SP) | MATTERS(RISCV_S0))
/* x8 = s0 in a 3-bit field, whatever the two bits above it. */
#define S0_SHORT (MATTERS(0) | MATTERS(8) | MATTERS(16) | MATTERS(24))
/* Stored: a save of ra or s0. */
#define STORED_FULL (MATTERS(RISCV_RA) | MATTERS(RISCV_S0))
#define NEVER                                                                            \
	{                                                                                \
		0, 0                                                                     \
	}
#define ALWAYS                                                                           \
	{                                                                                \
		0xffffffffu, 0                                                           \
	}
#define RD_FULL                                                                          \
	{                                                                                \
		WRITTEN_FULL, 7                                                          \
	} /* rd, bits 11:7 */
#define RD_HIGH                                                                          \
	{                                                                                \
		S0_SHORT, 7                                                              \
	} /* rd', bits 9:7 */
#define REG_LOW                                                                          \
	{                                                                                \
		S0_SHORT, 2                                                              \
	} /* rd' or rs2', bits 4:2 */
#define RS2_SAVED                                                                        \
	{                                                                                \
		STORED_FULL, 2                                                           \
	} /* rs2, bits 6:2 */

/* Compressed instructions by RVC(quadrant, funct3), rv64 and rv32. Always
 * decoded: c.addi4spn (its reserved encodings have any rd'), c.li, c.lui
 * and c.addi16sp, c.j, rv32's c.jal, the reserved quadrant 0 funct3 4, and
 * c.mv/c.add/c.jr/c.jalr, which matter by rd or by rs2 = x0 (a jump). */
static const struct filter rvc_filter_rv64[24] = {
    ALWAYS,  NEVER,   REG_LOW, REG_LOW, ALWAYS,	 NEVER,	 REG_LOW,   REG_LOW,
    RD_FULL, RD_FULL, ALWAYS,  ALWAYS,	RD_HIGH, ALWAYS, NEVER,	    NEVER,
    RD_FULL, NEVER,   RD_FULL, RD_FULL, ALWAYS,	 NEVER,	 RS2_SAVED, RS2_SAVED,
};
static const struct filter rvc_filter_rv32[24] = {
    ALWAYS,  NEVER,  REG_LOW, NEVER,  ALWAYS,  NEVER,  REG_LOW,	  NEVER,
    RD_FULL, ALWAYS, ALWAYS,  ALWAYS, RD_HIGH, ALWAYS, NEVER,	  NEVER,
    RD_FULL, NEVER,  RD_FULL, NEVER,  ALWAYS,  NEVER,  RS2_SAVED, NEVER,
};

#define RS2_STORED                                                                       \
	{                                                                                \
		STORED_FULL, 20                                                          \
	} /* a store's rs2, bits 24:20 */
#define RD_WIDE                                                                          \
	{                                                                                \
		WRITTEN_FULL, 7                                                          \
	}

/* 32-bit instructions by opcode bits 6:2 (bits 4:2 = 7 are longer ones):
 * LOAD .. OP-IMM-32, STORE .. OP-32, MADD .. OP-V, BRANCH .. SYSTEM. */
static const struct filter wide_filter[32] = {
    RD_WIDE,	NEVER,	ALWAYS, NEVER,	 RD_WIDE, RD_WIDE, RD_WIDE, ALWAYS,
    RS2_STORED, NEVER,	ALWAYS, RD_WIDE, RD_WIDE, ALWAYS,  RD_WIDE, ALWAYS,
    NEVER,	NEVER,	NEVER,	NEVER,	 RD_WIDE, RD_WIDE, ALWAYS,  ALWAYS,
    NEVER,	ALWAYS, ALWAYS, ALWAYS,	 RD_WIDE, ALWAYS,  ALWAYS,  ALWAYS,
};
/* OP-IMM, OP-IMM-32 and OP with rs1 = x0 make a constant (li, mv from x0). */
#define OPCODE_BIT(opcode) ((uint32_t)1 << ((opcode) >> 2))
#define FROM_ZERO_OPCODES  (OPCODE_BIT(0x13) | OPCODE_BIT(0x1b) | OPCODE_BIT(0x33))

static const struct filter filter_all[32] = {
    ALWAYS, ALWAYS, ALWAYS, ALWAYS, ALWAYS, ALWAYS, ALWAYS, ALWAYS,
    ALWAYS, ALWAYS, ALWAYS, ALWAYS, ALWAYS, ALWAYS, ALWAYS, ALWAYS,
    ALWAYS, ALWAYS, ALWAYS, ALWAYS, ALWAYS, ALWAYS, ALWAYS, ALWAYS,
    ALWAYS, ALWAYS, ALWAYS, ALWAYS, ALWAYS, ALWAYS, ALWAYS, ALWAYS,
};

static inline bool filter_passes(const struct filter *filter, uintptr_t insn)
{
	uint32_t reg = insn >> filter->shift & 31;

	return (filter->registers << reg & 0x80000000u) != 0;
}

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
	s->now.sp_state = PROLOGUE_SP_RELATIVE;
	s->now.sp_offset = 0;
	s->now.fp_valid = false;
	s->now.ra_saved = false;
	s->now.s0_saved = false;
	s->in_epilogue = false;
	s->written = s->resume_written;
	s->known = s->resume_known;
}

/* sp above the CFA: code no path from the entry runs (see below). */
static inline bool sp_above_cfa(const struct prologue_frame *f)
{
	return f->sp_state == PROLOGUE_SP_RELATIVE && f->sp_offset > 0;
}

/* No frame: nothing was set up (or all of it was undone). */
static bool frame_is_empty(const struct prologue_frame *f)
{
	return f->sp_state == PROLOGUE_SP_RELATIVE && f->sp_offset == 0 && !f->fp_valid &&
	       !f->ra_saved && !f->s0_saved;
}

/* The general decoder: every case above, over [function, limit) of code that
 * ends at `end` (checked), towards pc. */
static inline enum prologue_status scan_general(uintptr_t function, uintptr_t limit,
						uintptr_t end, uintptr_t pc,
						unsigned xlen,
						struct prologue_analysis *analysis)
{
	struct scan s;
	const struct prologue_frame *result = &s.now;
	const struct filter *const rvc_default =
	    xlen == 8 ? rvc_filter_rv64 : rvc_filter_rv32;
	const struct filter *rvc = rvc_default;
	const struct filter *wide = wide_filter;
	uintptr_t at;

	s.now.sp_state = PROLOGUE_SP_RELATIVE;
	s.now.sp_offset = 0;
	s.now.fp_valid = false;
	s.now.ra_saved = false;
	s.now.s0_saved = false;
	s.in_epilogue = false;
	s.may_resume = false;
	s.skipping = false;
	s.written = 0;
	s.known = BIT(RISCV_ZERO);
	s.value[RISCV_ZERO] = 0;
	s.xlen = xlen;
	analysis->first_call = 0;
	for (at = function; at < limit;) {
		uintptr_t here = at;
		uintptr_t insn = target_u16(at);
		enum effect effect;

		if ((insn & 3) != 3) {
			unsigned rvc_class = RVC(insn & 3, insn >> 13);

			at += 2;
			if (!filter_passes(&rvc[rvc_class], insn))
				continue;
			effect = decode16(&s, write_mask(&s), insn, rvc_class);
		} else {
			const struct filter *filter;

			if ((insn & 0x1c) == 0x1c)
				return PROLOGUE_UNKNOWN; /* longer than 32 bits */
			if (end - at < 4)
				return PROLOGUE_UNREADABLE;
			insn |= (uintptr_t)target_u16(at + 2) << 16;
			at += 4;
			filter = &wide[insn >> 2 & 31];
			if (!filter_passes(filter, insn) &&
			    !(RS1(insn) == RISCV_ZERO &&
			      (FROM_ZERO_OPCODES >> (insn >> 2 & 31) & 1)))
				continue;
			effect = decode32(&s, write_mask(&s), insn);
		}
		/* Nothing changed: the checks below would find what they found
		 * after the last instruction that did. */
		if (effect == EFFECT_NOTHING)
			continue;
		if (effect == EFFECT_UNKNOWN)
			return PROLOGUE_UNKNOWN;
		rvc = s.known == BIT(RISCV_ZERO) ? rvc_default : filter_all;
		wide = s.known == BIT(RISCV_ZERO) ? wide_filter : filter_all;
		if (effect == EFFECT_CALL) {
			/* A trap can interrupt the epilogue after a call: go on. */
			call_returns(&s);
			rvc = s.known == BIT(RISCV_ZERO) ? rvc_default : filter_all;
			wide = s.known == BIT(RISCV_ZERO) ? wide_filter : filter_all;
			if (analysis->first_call == 0)
				analysis->first_call = here;
			continue;
		}
		if (effect == EFFECT_JUMP && s.skipping) {
			resume(&s);
			s.skipping = false;
			rvc = s.known == BIT(RISCV_ZERO) ? rvc_default : filter_all;
			wide = s.known == BIT(RISCV_ZERO) ? wide_filter : filter_all;
			continue;
		}
		/* Past a jump, decoding goes on only if there is no frame yet
		 * (shrink-wrapping puts an early return before the prologue);
		 * past an epilogue, the code belongs to the body's frame. */
		if (effect == EFFECT_JUMP && (s.in_epilogue || !frame_is_empty(&s.now))) {
			if (s.in_epilogue)
				result = &s.body;
			frame_copy(&analysis->frame, result);
			analysis->stop = here;
			return PROLOGUE_OK;
		}
		if (effect == EFFECT_JUMP)
			resume_point(&s);
		/* sp above the CFA: no path from the entry runs this code. It is
		 * an epilogue that the body branches to, placed before the
		 * prologue: skip it. */
		if (s.may_resume && sp_above_cfa(&s.now))
			s.skipping = true;
	}
	/* The last parcel lies partly outside the code (an odd end). */
	if (at < pc && at < end)
		return PROLOGUE_UNREADABLE;
	if (s.skipping)
		resume(&s);
	frame_copy(&analysis->frame, result);
	analysis->stop = at;
	return PROLOGUE_OK;
}

/*
 * The common case, in registers: code that builds a frame and works in it up
 * to the pc (sp moved down by constants, ra and s0 saved, s0 set up as a
 * frame pointer or used as any register, calls), with no epilogue, jump,
 * constant or other change to sp before the pc. On that code it finds what
 * the general decoder finds, with the same filter in front; at the first
 * instruction outside it, it declines: the general decoder then decodes the
 * function from its start (prologue_analyze in prologue.h).
 */
struct common {
	intptr_t sp_offset; /* sp - CFA; sp is always known here */
	intptr_t fp_offset;
	intptr_t ra_offset;
	intptr_t s0_offset;
	uint32_t written; /* of ra and s0: a store after a change is no save */
	bool fp_valid;
	bool ra_saved;
	bool s0_saved;
};

/* rd gets a value the decoder does not know; false for sp (lost). */
static inline __attribute__((always_inline)) bool common_write(struct common *c,
							       unsigned rd)
{
	if (rd == RISCV_SP)
		return false;
	if (rd == RISCV_RA) {
		c->written |= BIT(RISCV_RA);
	} else if (rd == RISCV_S0) {
		c->written |= BIT(RISCV_S0);
		c->fp_valid = false;
	}
	return true;
}

/* sp moves down (the frame's allocation); up is an epilogue: false. */
static inline __attribute__((always_inline)) bool common_sp_adjust(struct common *c,
								   intptr_t delta)
{
	if (delta > 0)
		return false;
	c->sp_offset = wrapping_add(c->sp_offset, delta);
	return true;
}

static inline __attribute__((always_inline)) void common_frame_pointer(struct common *c,
								       intptr_t sp_plus)
{
	c->written |= BIT(RISCV_S0);
	c->fp_valid = true;
	c->fp_offset = wrapping_add(c->sp_offset, sp_plus);
}

/* base + offset as an offset from the CFA (frame_slot). */
static inline __attribute__((always_inline)) bool
common_slot(const struct common *c, unsigned base, intptr_t offset, intptr_t *slot)
{
	if (base == RISCV_SP) {
		*slot = wrapping_add(c->sp_offset, offset);
		return true;
	}
	if (base == RISCV_S0 && c->fp_valid) {
		*slot = wrapping_add(c->fp_offset, offset);
		return true;
	}
	return false;
}

/* A store of source at slot: the save of the caller's ra or s0 (op_store). */
static inline __attribute__((always_inline)) void
common_save(struct common *c, unsigned source, intptr_t slot)
{
	if (c->written & BIT(source))
		return;
	if (source == RISCV_RA && !c->ra_saved) {
		c->ra_saved = true;
		c->ra_offset = slot;
	} else if (source == RISCV_S0 && !c->s0_saved) {
		c->s0_saved = true;
		c->s0_offset = slot;
	}
}

static inline __attribute__((always_inline)) void
common_store(struct common *c, unsigned base, unsigned source, intptr_t offset,
	     unsigned width, unsigned xlen)
{
	intptr_t slot;

	if ((source == RISCV_RA || source == RISCV_S0) && width == xlen &&
	    common_slot(c, base, offset, &slot))
		common_save(c, source, slot);
}

/* A load into rd (op_load): false for a restore (an epilogue) and for sp. */
static inline __attribute__((always_inline)) bool
common_load(struct common *c, unsigned rd, unsigned base, intptr_t offset, unsigned width,
	    unsigned xlen)
{
	intptr_t slot;

	if (rd != RISCV_RA && rd != RISCV_S0)
		return rd != RISCV_SP;
	if (width == xlen && common_slot(c, base, offset, &slot) &&
	    ((rd == RISCV_RA && c->ra_saved && slot == c->ra_offset) ||
	     (rd == RISCV_S0 && c->s0_saved && slot == c->s0_offset)))
		return false;
	return common_write(c, rd);
}

static inline __attribute__((always_inline)) enum prologue_status
scan_common(uintptr_t function, uintptr_t limit, uintptr_t end, uintptr_t pc,
	    unsigned xlen, struct prologue_analysis *analysis)
{
	const struct filter *const rvc = xlen == 8 ? rvc_filter_rv64 : rvc_filter_rv32;
	const unsigned save_class = xlen == 8 ? RVC(2, 7) : RVC(2, 6);
	struct common c = {0, 0, 0, 0, 0, false, false, false};
	uintptr_t first_call = 0;
	uintptr_t here = function;
	uintptr_t at;

	for (at = function; at < limit;) {
		uintptr_t insn = target_u16(at);
		unsigned rvc_class = RVC(insn & 3, insn >> 13);
		unsigned rd;

		here = at;
		if ((insn & 3) == 3)
			goto wide;
		at += 2;
		if (!filter_passes(&rvc[rvc_class], insn))
			continue;
		/* A prologue's saves first: c.sdsp (rv64), c.swsp (rv32). */
		if (rvc_class == save_class) {
			common_save(
			    &c, RVC_RS2(insn),
			    wrapping_add(c.sp_offset,
					 (intptr_t)(xlen == 8 ? RVC_SDSP_OFFSET(insn)
							      : RVC_SWSP_OFFSET(insn))));
			continue;
		}
		rd = RVC_RD(insn);
		switch (rvc_class) {
		case RVC(2, 6): /* c.swsp on rv64: too narrow for a save */
		case RVC(2, 7): /* c.fswsp (rv32) */
			continue;
		case RVC(1, 3): /* c.addi16sp (0 is reserved); not c.lui */
			if (rd != RISCV_SP || addi16sp_imm(insn) == 0 ||
			    !common_sp_adjust(&c, addi16sp_imm(insn)))
				goto decline;
			continue;
		case RVC(0, 0): /* c.addi4spn (0 is illegal): s0 = sp + imm */
			if ((insn & 0x1fe0) == 0)
				goto decline;
			if (RVC_LOW(insn) == RISCV_S0)
				common_frame_pointer(&c, addi4spn_imm(insn));
			continue;
		case RVC(1, 4): /* c.srli ... c.addw on rd' (s0: the filter) */
			common_write(&c, RVC_HIGH(insn));
			continue;
		case RVC(1, 0): /* c.addi (c.nop: rd 0) */
			if (rd == RISCV_SP) {
				if (!common_sp_adjust(&c, imm_ci(insn)))
					goto decline;
				continue;
			}
			common_write(&c, rd);
			continue;
		case RVC(1, 1): /* c.jal (rv32); c.addiw (rv64; rd 0 reserved) */
			if (xlen == 4)
				goto call;
			if (rd == RISCV_ZERO || !common_write(&c, rd))
				goto decline;
			continue;
		case RVC(0, 2): /* c.lw, c.ld into s0 (the filter) */
		case RVC(0, 3):
			if (rvc_class == RVC(0, 3) && xlen != 8)
				continue; /* c.flw */
			if (!common_load(&c, RVC_LOW(insn), RVC_HIGH(insn),
					 rvc_class == RVC(0, 2) ? RVC_WORD_OFFSET(insn)
								: RVC_DOUBLE_OFFSET(insn),
					 rvc_class == RVC(0, 2) ? 4 : 8, xlen))
				goto decline;
			continue;
		case RVC(0, 6): /* c.sw, c.sd of s0 (the filter) */
		case RVC(0, 7):
			if (rvc_class == RVC(0, 7) && xlen != 8)
				continue; /* c.fsw */
			common_store(&c, RVC_HIGH(insn), RVC_LOW(insn),
				     rvc_class == RVC(0, 6) ? RVC_WORD_OFFSET(insn)
							    : RVC_DOUBLE_OFFSET(insn),
				     rvc_class == RVC(0, 6) ? 4 : 8, xlen);
			continue;
		case RVC(2, 4):
			if (RVC_RS2(insn) != RISCV_ZERO) { /* c.mv, c.add */
				if (rd == RISCV_SP ||
				    ((rd == RISCV_RA || rd == RISCV_S0) &&
				     RVC_RS2(insn) == RISCV_SP))
					goto decline;
				common_write(&c, rd);
				continue;
			}
			if (rd == RISCV_ZERO) { /* c.ebreak; without bit 12 reserved */
				if (!(insn & 0x1000))
					goto decline;
				continue;
			}
			if (insn & 0x1000)
				goto call; /* c.jalr */
			goto jump;	   /* c.jr */
		case RVC(1, 5):		   /* c.j */
			goto jump;
		default: /* c.li, c.lui, reserved encodings */
			goto decline;
		}
	wide:
		if ((insn & 0x1c) == 0x1c || end - at < 4)
			goto decline; /* longer than 32 bits, or cut by the end */
		insn |= (uintptr_t)target_u16(at + 2) << 16;
		at += 4;
		if (!filter_passes(&wide_filter[insn >> 2 & 31], insn) &&
		    !(RS1(insn) == RISCV_ZERO &&
		      (FROM_ZERO_OPCODES >> (insn >> 2 & 31) & 1)))
			continue;
		rd = RD(insn);
		switch (insn & 0x7f) {
		case 0x13: /* OP-IMM */
			if (rd == RISCV_ZERO)
				continue;
			if (FUNCT3(insn) == 0) { /* addi */
				if (RS1(insn) == RISCV_ZERO)
					goto decline; /* li: a constant */
				if (rd == RISCV_SP) {
					if (RS1(insn) != RISCV_SP ||
					    !common_sp_adjust(&c, imm_i(insn)))
						goto decline;
					continue;
				}
				if (rd == RISCV_S0 && RS1(insn) == RISCV_SP) {
					common_frame_pointer(&c, imm_i(insn));
					continue;
				}
			}
			if (!common_write(&c, rd))
				goto decline;
			continue;
		case 0x1b: /* OP-IMM-32: addiw from x0 makes a constant (rv64) */
			if (rd != RISCV_ZERO && FUNCT3(insn) == 0 && xlen == 8 &&
			    RS1(insn) == RISCV_ZERO)
				goto decline;
			if (!common_write(&c, rd))
				goto decline;
			continue;
		case 0x33: /* OP: add and sub from x0 make a constant, with sp a frame */
			if (rd == RISCV_ZERO)
				continue;
			if (FUNCT3(insn) == 0 &&
			    ((insn >> 25) == 0 || (insn >> 25) == 0x20) &&
			    ((RS1(insn) == RISCV_ZERO && RS2(insn) == RISCV_ZERO) ||
			     ((rd == RISCV_RA || rd == RISCV_S0) &&
			      (RS1(insn) == RISCV_SP || RS2(insn) == RISCV_SP))))
				goto decline;
			if (!common_write(&c, rd))
				goto decline;
			continue;
		case 0x3b: /* OP-32, AMO, SYSTEM, AUIPC: rd gets a value (auipc into
			      sp: a stack of the function's own) */
		case 0x2f:
		case 0x73:
		case 0x17:
			if (!common_write(&c, rd))
				goto decline;
			continue;
		case 0x03: /* LOAD */
			if (!common_load(&c, rd, RS1(insn), imm_i(insn),
					 1u << (FUNCT3(insn) & 3), xlen))
				goto decline;
			continue;
		case 0x23: /* STORE */
			common_store(&c, RS1(insn), RS2(insn), imm_s(insn),
				     1u << FUNCT3(insn), xlen);
			continue;
		case 0x6f: /* JAL */
			if (rd != RISCV_ZERO)
				goto call;
			goto jump;
		case 0x67: /* JALR */
			if (FUNCT3(insn) != 0)
				goto decline;
			if (rd != RISCV_ZERO)
				goto call;
			goto jump;
		default: /* LUI, OP-FP, OP-V, custom and reserved */
			goto decline;
		}
	call:
		/* A trap can interrupt the epilogue after a call: go on. */
		c.written |= BIT(RISCV_RA);
		if (first_call == 0)
			first_call = here;
	}
	/* The last parcel lies partly outside the code (an odd end). */
	if (at < pc && at < end)
		goto decline;
	here = at;
	goto done;
jump:
	/* Past a jump with no frame, the general decoder goes on. */
	if (c.sp_offset == 0 && !c.fp_valid && !c.ra_saved && !c.s0_saved)
		goto decline;
done:
	analysis->frame.sp_state = PROLOGUE_SP_RELATIVE;
	analysis->frame.sp_offset = c.sp_offset;
	analysis->frame.fp_valid = c.fp_valid;
	analysis->frame.fp_offset = c.fp_offset;
	analysis->frame.ra_saved = c.ra_saved;
	analysis->frame.ra_offset = c.ra_offset;
	analysis->frame.s0_saved = c.s0_saved;
	analysis->frame.s0_offset = c.s0_offset;
	analysis->stop = here;
	analysis->first_call = first_call;
	return PROLOGUE_OK;
decline:
	return PROLOGUE_DECLINED;
}

/* The code to decode: [function, limit) towards pc, of code that ends at
 * end. The range is checked once: a parcel at `at` < limit lies in it
 * (limit is even, as `at` is); a 32-bit instruction is checked for its
 * second parcel. */
static inline bool code_range(const struct tracer_config *config, uintptr_t function,
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

enum prologue_status prologue_analyze_common(const struct tracer_config *config,
					     uintptr_t function, uintptr_t function_end,
					     uintptr_t pc, unsigned xlen,
					     struct prologue_analysis *analysis)
{
	uintptr_t limit;
	uintptr_t end;

	/* rv64 only: rv32 code goes to the general decoder. */
	if (xlen != 8)
		return PROLOGUE_DECLINED;
	if (!code_range(config, function, function_end, pc, &limit, &end))
		return PROLOGUE_UNREADABLE;
	return scan_common(function, limit, end, pc, 8, analysis);
}

enum prologue_status prologue_analyze_general(const struct tracer_config *config,
					      uintptr_t function, uintptr_t function_end,
					      uintptr_t pc, unsigned xlen,
					      struct prologue_analysis *analysis)
{
	uintptr_t limit;
	uintptr_t end;

	if (!code_range(config, function, function_end, pc, &limit, &end))
		return PROLOGUE_UNREADABLE;
	return scan_general(function, limit, end, pc, xlen, analysis);
}

/*
 * test_dwarf.c - the DWARF unwinder's walks over fake stacks, with .eh_frame bytes
 * assembled by hand (fake_cfi.h) and an FDE index over them.
 *
 * One program describes every function the tests call into; each test lays
 * out a stack for it and checks each frame and the stop reason. The CFI
 * semantics come from DWARF 5 section 6.4 (the CFA is the caller's sp, the
 * return-address column gives the caller's pc, the other columns the
 * caller's registers; no rule = same value); opcode values from section
 * 7.24 (dwarf_codes.h).
 */
#include <stdlib.h>
#include <string.h>

#include "cfi.h"
#include "dwarf_codes.h"
#include "fake_cfi.h"
#include "fake_stack.h"
#include "fake_tables.h"
#include "harness.h"

/* The functions of the fake program: size bytes at FAKE_TEXT_START + offset. */
enum function {
	WORK,	       /* prologue in three steps; saves ra, s0, s1; CFA = s0 + 0 */
	LEAF,	       /* no instructions: CFA = sp, ra live */
	MIDDLE,	       /* CFA = s0 + 16 after its prologue */
	OUTER,	       /* CFA = s1 + 0 */
	START,	       /* CFA = sp + 16, ra undefined: the outermost frame */
	STANDARD,      /* CFA = sp + 16, ra at CFA - 8, s0 at CFA - 16 */
	NORETURN,      /* STANDARD's rules; its last instruction is a call */
	AFTER,	       /* starts where NORETURN ends; no instructions */
	S3_BASED,      /* CFA = s3 + 16, ra at CFA - 8, s0 at CFA - 16 */
	KINDS,	       /* every kind of rule (see kinds_instructions) */
	BY_S1,	       /* CFA = s1 + 0, ra at CFA - 8, s0 same value (explicit) */
	BY_S2,	       /* CFA = s2 + 0, ra at CFA - 8 */
	RECURSIVE,     /* CFA = sp + 32, ra at CFA - 8 */
	MALFORMED,     /* restore_state with nothing remembered */
	UNKNOWN_OP,    /* DW_CFA_GNU_window_save: not for RISC-V */
	UNKNOWN_DW_OP, /* CFA expression DW_OP_call_frame_cfa */
	HUGE_CFA,      /* CFA = sp + 0x1000 */
	LOW_CFA,       /* CFA = sp - 8 */
	RA_ABOVE,      /* CFA = sp + 16, ra at CFA + 8 */
	SP_RULE,       /* CFA = sp + 32, ra at CFA - 8, sp = CFA - 32 (a loop) */
	SP_UNDEFINED,  /* CFA = sp + 16, ra at CFA - 8, sp undefined */
	FUNCTIONS
};

#define NO_CFI_PC (FAKE_TEXT_START + 0xc000) /* text no FDE covers */

struct function_cfi {
	uintptr_t offset; /* from FAKE_TEXT_START */
	uintptr_t size;
	uint8_t instructions[24];
	size_t count;
};

/*
 * KINDS' rules, one of each kind. Rules read the callee's registers, even
 * those an earlier rule of the row already gave the caller a new value for
 * (s0, read by the last one).
 */
/* CFA = s0 + 16: def_cfa_expression, breg8 16 */
#define KINDS_CFA CFA_def_cfa_expression, 2, OP_breg0 + REG_S0, 0x10
/* ra at CFA - 8: expression: (CFA pushed) const1u 8, minus */
#define KINDS_RA CFA_expression, REG_RA, 3, OP_const1u, 8, OP_minus
/* s0 = CFA - 24: val_offset, 3 * -8 */
#define KINDS_S0 CFA_val_offset, REG_S0, 3
/* s1 = the callee's s2: register */
#define KINDS_S1 CFA_register, REG_S1, REG_S2
/* s2 = the callee's s0 + 0x200: val_expression: (CFA pushed) drop, breg8
 * SLEB 80 04 = 0x200 */
#define KINDS_S2 CFA_val_expression, REG_S2, 4, OP_drop, OP_breg0 + REG_S0, 0x80, 0x04

/*
 * The CIE (see program_cie) has code alignment 1 and data alignment -8, so
 * DW_CFA_offset r, n saves r at CFA - 8n. Deltas of advance_loc (0x40 | d)
 * are bytes.
 */
static const struct function_cfi functions[FUNCTIONS] = {
    /* +2: CFA = sp + 32; +4: ra at -8, s0 at -16, s1 at -24; +8: CFA = s0 */
    [WORK] = {0x1000,
	      0x100,
	      {CFA_advance_loc | 2, CFA_def_cfa_offset, 32, CFA_advance_loc | 2,
	       CFA_offset | REG_RA, 1, CFA_offset | REG_S0, 2, CFA_offset | REG_S1, 3,
	       CFA_advance_loc | 4, CFA_def_cfa, REG_S0, 0},
	      14},
    [LEAF] = {0x1800, 0x20, {0}, 0},
    /* +2: CFA = sp + 48; +4: ra at -8, s0 at -16; +8: CFA = s0 + 16 */
    [MIDDLE] = {0x2000,
		0x100,
		{CFA_advance_loc | 2, CFA_def_cfa_offset, 48, CFA_advance_loc | 2,
		 CFA_offset | REG_RA, 1, CFA_offset | REG_S0, 2, CFA_advance_loc | 4,
		 CFA_def_cfa, REG_S0, 16},
		12},
    /* +4: CFA = s1 + 0, ra at -8, s0 at -16 */
    [OUTER] = {0x3000,
	       0x100,
	       {CFA_advance_loc | 4, CFA_def_cfa, REG_S1, 0, CFA_offset | REG_RA, 1,
		CFA_offset | REG_S0, 2},
	       8},
    [START] = {0x4000, 0x100, {CFA_def_cfa_offset, 16, CFA_undefined, REG_RA}, 4},
    [STANDARD] = {0x5000,
		  0x100,
		  {CFA_def_cfa_offset, 16, CFA_offset | REG_RA, 1, CFA_offset | REG_S0,
		   2},
		  6},
    [NORETURN] = {0x6000,
		  0x10,
		  {CFA_def_cfa_offset, 16, CFA_offset | REG_RA, 1, CFA_offset | REG_S0,
		   2},
		  6},
    [AFTER] = {0x6010, 0x10, {0}, 0},
    [S3_BASED] = {0x7000,
		  0x100,
		  {CFA_def_cfa, REG_S3, 16, CFA_offset | REG_RA, 1, CFA_offset | REG_S0,
		   2},
		  7},
    [KINDS] = {0x8000, 0x100, {KINDS_CFA, KINDS_RA, KINDS_S0, KINDS_S1, KINDS_S2}, 23},
    [BY_S1] = {0x8100,
	       0x100,
	       {CFA_def_cfa, REG_S1, 0, CFA_offset | REG_RA, 1, CFA_same_value, REG_S0},
	       7},
    [BY_S2] = {0x8200, 0x100, {CFA_def_cfa, REG_S2, 0, CFA_offset | REG_RA, 1}, 5},
    [RECURSIVE] = {0x9000, 0x100, {CFA_def_cfa_offset, 32, CFA_offset | REG_RA, 1}, 4},
    [MALFORMED] = {0xb000, 0x10, {CFA_restore_state}, 1},
    [UNKNOWN_OP] = {0xb010, 0x10, {CFA_GNU_window_save}, 1},
    [UNKNOWN_DW_OP] = {0xb020, 0x10, {CFA_def_cfa_expression, 1, OP_call_frame_cfa}, 3},
    /* ULEB 80 20 = 0x1000 */
    [HUGE_CFA] = {0xb030, 0x10, {CFA_def_cfa, REG_SP, 0x80, 0x20}, 4},
    /* SLEB 01 * -8 = -8 */
    [LOW_CFA] = {0xb040, 0x10, {CFA_def_cfa_sf, REG_SP, 0x01}, 3},
    /* SLEB 7f = -1, * -8 = +8 */
    [RA_ABOVE] = {0xb050,
		  0x10,
		  {CFA_def_cfa_offset, 16, CFA_offset_extended_sf, REG_RA, 0x7f},
		  5},
    /* val_offset sp, 4 * -8 = CFA - 32: bytes 14 02 04 */
    [SP_RULE] = {0xb060,
		 0x40,
		 {CFA_def_cfa_offset, 32, CFA_offset | REG_RA, 1, CFA_val_offset, REG_SP,
		  4},
		 7},
    [SP_UNDEFINED] =
	{0xb0a0,
	 0x40,
	 {CFA_def_cfa_offset, 16, CFA_offset | REG_RA, 1, CFA_undefined, REG_SP},
	 6},
};

struct program {
	struct fake_stack stack;
	struct fake_cfi cfi;
	size_t fde_offsets[FUNCTIONS];
	struct tracer_fde_entry entries[FUNCTIONS];
	struct tracer_fde_index index;
};

static uintptr_t pc_in(enum function function, uintptr_t offset)
{
	return FAKE_TEXT_START + functions[function].offset + offset;
}

/*
 * Version 3, "zR", code alignment 1, data alignment SLEB 78 = -8, ra column
 * 1, augmentation data: R = DW_EH_PE_udata8 (plain 8-byte addresses);
 * initial instructions: DW_CFA_def_cfa sp, 0.
 */
static size_t program_cie(struct fake_cfi *cfi)
{
	size_t cie = fake_cfi_begin_cie(cfi);

	FAKE_CFI(cfi, 3, 'z', 'R', 0, 1, 0x78, REG_RA, 1, DW_EH_PE_udata8, CFA_def_cfa,
		 REG_SP, 0);
	fake_cfi_end(cfi);
	return cie;
}

static void program_fde(struct program *p, size_t cie, enum function function)
{
	const struct function_cfi *f = &functions[function];

	p->fde_offsets[function] = fake_cfi_begin_fde(&p->cfi, cie);
	fake_cfi_unsigned(&p->cfi, pc_in(function, 0), 8);
	fake_cfi_unsigned(&p->cfi, f->size, 8);
	FAKE_CFI(&p->cfi, 0);
	fake_cfi_bytes(&p->cfi, f->instructions, f->count);
	fake_cfi_end(&p->cfi);
}

/* The index over the sealed block: the functions are in address order. */
static void index_program(struct program *p)
{
	for (int i = 0; i < FUNCTIONS; i++) {
		p->entries[i].pc_start = pc_in((enum function)i, 0);
		p->entries[i].fde = fake_cfi_addr(&p->cfi, p->fde_offsets[i]);
	}
	fake_fde_index_fill(&p->index, p->entries, FUNCTIONS, p->stack.config.eh_frame);
	p->stack.config.fde_index = &p->index;
	fake_tables_anywhere(&p->stack.config);
}

static void build_program(struct program *p)
{
	size_t cie;

	fake_stack_init(&p->stack);
	fake_cfi_init(&p->cfi);
	cie = program_cie(&p->cfi);
	for (int i = 0; i < FUNCTIONS; i++)
		program_fde(p, cie, (enum function)i);
	fake_cfi_unsigned(&p->cfi, 0, 4); /* the terminator */
	fake_cfi_seal(&p->cfi, &p->stack.config);
	index_program(p);
	/* Stale unless a test says otherwise. */
	p->stack.regs.ra = FAKE_TEXT_START + 0xabc;
}

static void free_program(struct program *p)
{
	fake_cfi_free(&p->cfi);
	fake_stack_free(&p->stack);
}

static size_t walk(struct program *p)
{
	return fake_walk_with(&p->stack, TRACER_DWARF);
}

static uintptr_t word(const struct program *p, size_t index)
{
	return fake_addr(&p->stack, index);
}

static void put(struct program *p, size_t index, uintptr_t value)
{
	fake_put(&p->stack, word(p, index), value);
}

/* The top of the stack, where the outermost frame's CFA must be. */
static void top_at(struct program *p, size_t index)
{
	p->stack.range.end = word(p, index);
}

static bool frame_is(const struct program *p, size_t i, uintptr_t pc, size_t sp_word,
		     uintptr_t fp)
{
	const struct tracer_frame *frame = &p->stack.frames[i];

	return frame->pc == pc && frame->sp == word(p, sp_word) && frame->fp == fp &&
	       frame->is_return_address == (i > 0);
}

/*
 * MIDDLE <- OUTER <- START above a frame of MIDDLE's callee, whose CFA is
 * word 104 and which saved MIDDLE's s0 (word 120) and s1 (word 140):
 *   MIDDLE at +0x50: CFA = s0 + 16 = word 122; ra at word 121, s0 at 120
 *   OUTER at +0x70:  CFA = s1 + 0 = word 140 (s1: same value through
 *                    MIDDLE); ra at word 139, s0 at 138 (0, as boot code)
 *   START at +0x10:  CFA = sp + 16 = word 142, the top; ra undefined
 */
static void build_callers(struct program *p)
{
	top_at(p, 142);
	put(p, 121, pc_in(OUTER, 0x70));
	put(p, 120, word(p, 200)); /* OUTER's s0: any value */
	put(p, 139, pc_in(START, 0x10));
	put(p, 138, 0);
}

/*
 * WORK at +0x40 (after its prologue): CFA = s0 = word 104; ra at 103,
 * MIDDLE's s0 at 102, MIDDLE's s1 at 101; then build_callers' frames.
 */
static void start_in_work(struct program *p)
{
	build_callers(p);
	put(p, 103, pc_in(MIDDLE, 0x50));
	put(p, 102, word(p, 120));
	put(p, 101, word(p, 140));
	p->stack.regs.pc = pc_in(WORK, 0x40);
	p->stack.regs.sp = word(p, 100);
	p->stack.regs.s[0] = word(p, 104);
}

/* WORK's own s0/s1 differ from the saved ones, so a walk that did not
 * restore them would compute wrong CFAs above. */
void dwarf_walk_restores_saved_registers(void)
{
	struct program p;

	build_program(&p);
	start_in_work(&p);
	p.stack.regs.s[1] = 0x5151;
	CHECK(walk(&p) == 4);
	CHECK(p.stack.stop == TRACER_STOP_OUTERMOST);
	CHECK(frame_is(&p, 0, pc_in(WORK, 0x40), 100, word(&p, 104)));
	CHECK(frame_is(&p, 1, pc_in(MIDDLE, 0x50), 104, word(&p, 120)));
	CHECK(frame_is(&p, 2, pc_in(OUTER, 0x70), 122, word(&p, 200)));
	CHECK(frame_is(&p, 3, pc_in(START, 0x10), 140, 0));
	free_program(&p);
}

/* WORK inside its prologue: at +2 the CFA is sp + 32 and nothing is saved
 * yet, so ra is still live; at +0 (entry) the CFA is sp itself. */
void dwarf_walk_in_prologue(void)
{
	static const uintptr_t offsets[] = {0, 2, 3};
	static const size_t cfa_words[] = {100, 104, 104};
	struct program p;

	build_program(&p);
	build_callers(&p);
	for (size_t i = 0; i < 3; i++) {
		/* MIDDLE's s0 and s1 are still in their registers. */
		p.stack.regs.pc = pc_in(WORK, offsets[i]);
		p.stack.regs.ra = pc_in(MIDDLE, 0x50);
		p.stack.regs.sp = word(&p, 100);
		p.stack.regs.s[0] = word(&p, 120);
		p.stack.regs.s[1] = word(&p, 140);
		CHECK(walk(&p) == 4);
		CHECK(p.stack.stop == TRACER_STOP_OUTERMOST);
		CHECK(frame_is(&p, 1, pc_in(MIDDLE, 0x50), cfa_words[i], word(&p, 120)));
		CHECK(frame_is(&p, 3, pc_in(START, 0x10), 140, 0));
	}
	free_program(&p);
}

/* A leaf at its first instruction: CFA = sp (allowed for the first frame),
 * the return address is the live ra. */
void dwarf_walk_leaf_at_entry(void)
{
	struct program p;

	build_program(&p);
	build_callers(&p);
	p.stack.regs.pc = pc_in(LEAF, 0);
	p.stack.regs.ra = pc_in(MIDDLE, 0x50);
	p.stack.regs.sp = word(&p, 110);
	p.stack.regs.s[0] = word(&p, 120);
	p.stack.regs.s[1] = word(&p, 140);
	CHECK(walk(&p) == 4);
	CHECK(p.stack.stop == TRACER_STOP_OUTERMOST);
	CHECK(frame_is(&p, 0, pc_in(LEAF, 0), 110, word(&p, 120)));
	CHECK(frame_is(&p, 1, pc_in(MIDDLE, 0x50), 110, word(&p, 120)));
	CHECK(frame_is(&p, 2, pc_in(OUTER, 0x70), 122, word(&p, 200)));
	free_program(&p);
}

/* ra undefined: this frame is shown, and it is the last. */
void dwarf_walk_outermost(void)
{
	struct program p;

	build_program(&p);
	p.stack.regs.pc = pc_in(START, 0x10);
	p.stack.regs.sp = word(&p, 140);
	top_at(&p, 142);
	CHECK(walk(&p) == 1);
	CHECK(p.stack.stop == TRACER_STOP_OUTERMOST);
	/* Below the top, the claim is false: callers may remain. */
	top_at(&p, 144);
	CHECK(walk(&p) == 1);
	CHECK(p.stack.stop == TRACER_STOP_EARLY_OUTERMOST);
	/* Its CFA may be the very top of the stack. */
	top_at(&p, FAKE_STACK_WORDS);
	p.stack.regs.sp = word(&p, FAKE_STACK_WORDS - 2);
	CHECK(walk(&p) == 1);
	CHECK(p.stack.stop == TRACER_STOP_OUTERMOST);
	/* So may its callee's: STANDARD with sp 2 words below the top. */
	put(&p, FAKE_STACK_WORDS - 1, pc_in(START, 0x10));
	p.stack.regs.pc = pc_in(STANDARD, 0x10);
	CHECK(walk(&p) == 2);
	CHECK(p.stack.stop == TRACER_STOP_OUTERMOST);
	CHECK(frame_is(&p, 1, pc_in(START, 0x10), FAKE_STACK_WORDS, 0));
	free_program(&p);
}

/*
 * Every kind of rule, in KINDS at +0x10 with s0 = word 100, s2 = word 150:
 *   CFA = s0 + 16 = word 102 (expression); ra at CFA - 8 = word 101
 *   caller's s0 = CFA - 24 = word 99; s1 = callee's s2 = word 150;
 *   s2 = callee's s0 + 0x200 = word 100 + 64 = 164
 * BY_S1 then has CFA = s1 = word 150 (ra at 149), and keeps s0; BY_S2 has
 * CFA = s2 = word 164 (ra at 163); START: CFA = word 166, the top.
 */
void dwarf_walk_rule_kinds(void)
{
	struct program p;

	build_program(&p);
	put(&p, 101, pc_in(BY_S1, 0x10));
	put(&p, 149, pc_in(BY_S2, 0x10));
	put(&p, 163, pc_in(START, 0x10));
	p.stack.regs.pc = pc_in(KINDS, 0x10);
	p.stack.regs.sp = word(&p, 96);
	p.stack.regs.s[0] = word(&p, 100);
	p.stack.regs.s[2] = word(&p, 150);
	top_at(&p, 166);
	CHECK(walk(&p) == 4);
	CHECK(p.stack.stop == TRACER_STOP_OUTERMOST);
	CHECK(frame_is(&p, 0, pc_in(KINDS, 0x10), 96, word(&p, 100)));
	CHECK(frame_is(&p, 1, pc_in(BY_S1, 0x10), 102, word(&p, 99)));
	CHECK(frame_is(&p, 2, pc_in(BY_S2, 0x10), 150, word(&p, 99)));
	CHECK(frame_is(&p, 3, pc_in(START, 0x10), 164, word(&p, 99)));
	free_program(&p);
}

/*
 * A return address is looked up at address - 1: a call that ends NORETURN
 * returns to AFTER's first byte, yet the caller is NORETURN (CFA = sp + 16,
 * ra at word 103 here). An exact pc is looked up as is: at AFTER's first
 * byte it is AFTER (no frame: CFA = sp, ra live).
 */
void dwarf_walk_return_address_lookup(void)
{
	struct program p;

	build_program(&p);
	/* STANDARD at +0x10, sp word 100: CFA 102, returns to AFTER's start. */
	put(&p, 101, pc_in(AFTER, 0));
	put(&p, 103, pc_in(START, 0x10));
	p.stack.regs.pc = pc_in(STANDARD, 0x10);
	p.stack.regs.sp = word(&p, 100);
	top_at(&p, 106);
	CHECK(walk(&p) == 3);
	CHECK(p.stack.stop == TRACER_STOP_OUTERMOST);
	CHECK(frame_is(&p, 1, pc_in(AFTER, 0), 102, 0));
	CHECK(frame_is(&p, 2, pc_in(START, 0x10), 104, 0));
	/* Exact: AFTER returns to the live ra. */
	p.stack.regs.pc = pc_in(AFTER, 0);
	p.stack.regs.ra = pc_in(START, 0x10);
	top_at(&p, 102);
	CHECK(walk(&p) == 2);
	CHECK(frame_is(&p, 1, pc_in(START, 0x10), 100, 0));
	CHECK(p.stack.stop == TRACER_STOP_OUTERMOST);
	free_program(&p);
}

/*
 * STANDARD (the "panic" frame, sp word 100) <- STANDARD (the handler, sp
 * 102) <- trap entry (the handler's CFA, word 104, is the trap frame) <-
 * interrupted AFTER at its first byte (exact: AFTER, not NORETURN; ra live
 * from the trap frame) <- S3_BASED (CFA = s3 + 16, s3 from the trap frame:
 * word 302) <- START.
 */
void dwarf_walk_trap_crossing(void)
{
	struct program p;
	const size_t tf = 104;

	build_program(&p);
	fake_enable_traps(&p.stack);
	put(&p, 101, pc_in(STANDARD, 0x20));
	put(&p, 103, FAKE_ENTRY_START + 0x40);
	put(&p, tf + TF_EPC, pc_in(AFTER, 0));
	put(&p, tf + TF_RA, pc_in(S3_BASED, 0x20));
	put(&p, tf + TF_SP, word(&p, 200));
	put(&p, tf + TF_S0, word(&p, 250));
	put(&p, tf + TF_S0 + 3, word(&p, 300));
	put(&p, tf + TF_CAUSE, 5);
	put(&p, tf + TF_TVAL, 0x10);
	put(&p, 301, pc_in(START, 0x10));
	put(&p, 300, 0);
	p.stack.regs.pc = pc_in(STANDARD, 0x10);
	p.stack.regs.sp = word(&p, 100);
	p.stack.regs.s[3] = word(&p, 400); /* not the interrupted code's s3 */
	top_at(&p, 304);
	CHECK(walk(&p) == 6);
	CHECK(p.stack.stop == TRACER_STOP_OUTERMOST);
	CHECK(p.stack.frames[2].pc == FAKE_ENTRY_START + 0x40);
	CHECK(p.stack.frames[3].after_trap && !p.stack.frames[3].is_return_address);
	CHECK(p.stack.frames[3].pc == pc_in(AFTER, 0));
	CHECK(p.stack.frames[3].trap_cause == 5 && p.stack.frames[3].trap_tval == 0x10);
	CHECK(p.stack.frames[3].sp == word(&p, 200));
	CHECK(p.stack.frames[3].fp == word(&p, 250));
	CHECK(frame_is(&p, 4, pc_in(S3_BASED, 0x20), 200, word(&p, 250)));
	CHECK(frame_is(&p, 5, pc_in(START, 0x10), 302, 0));
	free_program(&p);
}

void dwarf_stop_no_cfi(void)
{
	struct program p;

	build_program(&p);
	/* No FDE covers the first pc. */
	p.stack.regs.pc = NO_CFI_PC;
	p.stack.regs.sp = word(&p, 100);
	CHECK(walk(&p) == 1 && p.stack.stop == TRACER_STOP_NO_CFI);
	/* Nor a return address. */
	put(&p, 101, NO_CFI_PC + 4);
	p.stack.regs.pc = pc_in(STANDARD, 0x10);
	CHECK(walk(&p) == 2 && p.stack.stop == TRACER_STOP_NO_CFI);
	CHECK(p.stack.frames[1].pc == NO_CFI_PC + 4);
	/* No index at all. */
	p.stack.config.fde_index = NULL;
	CHECK(walk(&p) == 1 && p.stack.stop == TRACER_STOP_NO_CFI);
	free_program(&p);
}

void dwarf_stop_bad_cfi(void)
{
	struct program p;

	build_program(&p);
	p.stack.regs.sp = word(&p, 100);
	p.stack.regs.pc = pc_in(MALFORMED, 0);
	CHECK(walk(&p) == 1 && p.stack.stop == TRACER_STOP_BAD_CFI);
	/* STANDARD's FDE reaches past the end of the declared text. */
	p.stack.regs.pc = pc_in(STANDARD, 0x10);
	p.stack.config.text.end = pc_in(STANDARD, 0x80);
	CHECK(walk(&p) == 1 && p.stack.stop == TRACER_STOP_BAD_CFI);
	p.stack.config.text.end = FAKE_TEXT_END;
	/* The index entry disagrees with the FDE's start (a table as symgen
	 * would write it: its checksum is right). */
	p.entries[STANDARD].pc_start += 4;
	fake_fde_index_fill(&p.index, p.entries, FUNCTIONS, p.stack.config.eh_frame);
	CHECK(walk(&p) == 1 && p.stack.stop == TRACER_STOP_BAD_CFI);
	free_program(&p);
}

void dwarf_stop_unsupported_cfi(void)
{
	struct program p;

	build_program(&p);
	p.stack.regs.sp = word(&p, 100);
	p.stack.regs.pc = pc_in(UNKNOWN_OP, 0);
	CHECK(walk(&p) == 1 && p.stack.stop == TRACER_STOP_UNSUPPORTED_CFI);
	p.stack.regs.pc = pc_in(UNKNOWN_DW_OP, 0);
	CHECK(walk(&p) == 1 && p.stack.stop == TRACER_STOP_UNSUPPORTED_CFI);
	free_program(&p);
}

/* The CFA must lie in (stack.start, stack.end], and so must every saved
 * register read. */
void dwarf_stop_outside_stack(void)
{
	struct program p;

	build_program(&p);
	/* sp + 0x1000 from word 500: past the end. */
	p.stack.regs.pc = pc_in(HUGE_CFA, 0);
	p.stack.regs.sp = word(&p, 500);
	CHECK(walk(&p) == 1 && p.stack.stop == TRACER_STOP_OUTSIDE_STACK);
	/* A leaf at entry whose sp is the stack's start: CFA == start. */
	p.stack.regs.pc = pc_in(LEAF, 0);
	p.stack.regs.sp = word(&p, 0);
	p.stack.regs.ra = pc_in(START, 0x10);
	CHECK(walk(&p) == 1 && p.stack.stop == TRACER_STOP_OUTSIDE_STACK);
	/* CFA = the stack's end, ra at CFA + 8: beyond it. */
	p.stack.regs.pc = pc_in(RA_ABOVE, 0);
	p.stack.regs.sp = word(&p, FAKE_STACK_WORDS - 2);
	CHECK(walk(&p) == 1 && p.stack.stop == TRACER_STOP_OUTSIDE_STACK);
	free_program(&p);
}

void dwarf_stop_not_ascending(void)
{
	struct program p;

	build_program(&p);
	/* CFA = sp - 8 in the first frame. */
	p.stack.regs.pc = pc_in(LOW_CFA, 0);
	p.stack.regs.sp = word(&p, 100);
	CHECK(walk(&p) == 1 && p.stack.stop == TRACER_STOP_NOT_ASCENDING);
	/* A caller whose CFA equals its sp (LEAF's rules at a return
	 * address): only the first frame may have that. */
	put(&p, 101, pc_in(LEAF, 0x10));
	p.stack.regs.pc = pc_in(STANDARD, 0x10);
	CHECK(walk(&p) == 2 && p.stack.stop == TRACER_STOP_NOT_ASCENDING);
	/* A loop: OUTER's CFA is s1, which it leaves alone; a return address
	 * back into OUTER gives the caller the same CFA. */
	put(&p, 139, pc_in(OUTER, 0x70));
	p.stack.regs.pc = pc_in(OUTER, 0x70);
	p.stack.regs.sp = word(&p, 130);
	p.stack.regs.s[1] = word(&p, 140);
	CHECK(walk(&p) == 2 && p.stack.stop == TRACER_STOP_NOT_ASCENDING);
	free_program(&p);
}

/*
 * The caller's sp is the CFA, which the walk checked. SP_RULE says the
 * caller's sp is CFA - 32, its own sp: applied, that would unwind the same
 * frame forever (its ra returns into SP_RULE itself) until the depth limit.
 */
void dwarf_sp_rule_cannot_loop(void)
{
	struct program p;

	build_program(&p);
	put(&p, 103, pc_in(SP_RULE, 0x20));
	p.stack.regs.pc = pc_in(SP_RULE, 0x10);
	p.stack.regs.sp = word(&p, 100);
	CHECK(walk(&p) == 1);
	CHECK(p.stack.stop == TRACER_STOP_NOT_ASCENDING);
	free_program(&p);
}

/* sp undefined: still the CFA (word 102), not 0. */
void dwarf_sp_undefined_is_the_cfa(void)
{
	struct program p;

	build_program(&p);
	put(&p, 101, pc_in(START, 0x10));
	p.stack.regs.pc = pc_in(SP_UNDEFINED, 0x10);
	p.stack.regs.sp = word(&p, 100);
	top_at(&p, 104);
	CHECK(walk(&p) == 2);
	CHECK(frame_is(&p, 1, pc_in(START, 0x10), 102, 0));
	CHECK(p.stack.stop == TRACER_STOP_OUTERMOST);
	free_program(&p);
}

/* A saved ra that lies in text but after no call (a stale or corrupted
 * slot) is no caller: printed as one, the trace would look complete. */
void dwarf_stop_not_a_call(void)
{
	struct program p;

	build_program(&p);
	start_in_work(&p);
	fake_text_put16(&p.stack, pc_in(OUTER, 0x70) - 2, FAKE_NOT_CALL_PARCEL);
	CHECK(walk(&p) == 2);
	CHECK(p.stack.stop == TRACER_STOP_NOT_A_CALL);
	CHECK(fake_walk_with(&p.stack, TRACER_AUTO) == 2);
	CHECK(p.stack.stop == TRACER_STOP_NOT_A_CALL);
	free_program(&p);
}

/* An FDE index whose checksum fails is not read: DWARF stops with its own
 * reason; auto falls back (here to the frame pointer, no symbol table). */
void dwarf_stop_bad_fde_index(void)
{
	struct program p;

	build_program(&p);
	start_in_work(&p);
	CHECK(walk(&p) == 4);
	p.entries[WORK].fde += 1;
	CHECK(walk(&p) == 1);
	CHECK(p.stack.stop == TRACER_STOP_BAD_FDE_INDEX);
	CHECK(fake_walk_with(&p.stack, TRACER_AUTO) > 1);
	CHECK(p.stack.frames[1].found_by == TRACER_FRAME_POINTER);
	free_program(&p);
}

void dwarf_stop_pc_outside_text(void)
{
	struct program p;

	build_program(&p);
	put(&p, 101, FAKE_TEXT_END + 1);
	p.stack.regs.pc = pc_in(STANDARD, 0x10);
	p.stack.regs.sp = word(&p, 100);
	CHECK(walk(&p) == 1 && p.stack.stop == TRACER_STOP_PC_OUTSIDE_TEXT);
	free_program(&p);
}

/* 100 frames of RECURSIVE, 4 words each (CFA = sp + 32, ra at CFA - 8),
 * then START. */
void dwarf_stop_depth_limit(void)
{
	struct program p;

	build_program(&p);
	for (size_t i = 0; i < 100; i++)
		put(&p, 11 + 4 * i,
		    i == 99 ? pc_in(START, 0x10) : pc_in(RECURSIVE, 0x20));
	p.stack.regs.pc = pc_in(RECURSIVE, 0x10);
	p.stack.regs.sp = word(&p, 8);
	CHECK(walk(&p) == TRACER_DEFAULT_DEPTH);
	CHECK(p.stack.stop == TRACER_STOP_DEPTH_LIMIT);
	CHECK(frame_is(&p, 63, pc_in(RECURSIVE, 0x20), 8 + 4 * 63, 0));
	p.stack.config.max_depth = 4;
	CHECK(walk(&p) == 4 && p.stack.stop == TRACER_STOP_DEPTH_LIMIT);
	p.stack.config.max_depth = 101;
	top_at(&p, 410);
	CHECK(walk(&p) == 101 && p.stack.stop == TRACER_STOP_OUTERMOST);
	CHECK(frame_is(&p, 100, pc_in(START, 0x10), 408, 0));
	free_program(&p);
}

/* ---- robustness ---- */

/* Changes a copy of the program's bytes: overwrites a few, cuts it short,
 * or replaces it with noise. Returns the new size. */
static size_t mutate(uint8_t *bytes, size_t size)
{
	int kind = rand() % 8;

	if (kind == 0) {
		size = 1 + (size_t)rand() % size;
		for (size_t i = 0; i < size; i++)
			bytes[i] = (uint8_t)rand();
		return size;
	}
	for (int flips = 1 + rand() % 8; flips > 0; flips--)
		bytes[(size_t)rand() % size] =
		    (uint8_t)(rand() % 3 ? rand() : rand() % 4);
	if (kind == 1)
		size = 1 + (size_t)rand() % size;
	return size;
}

/* An address inside a random function of the program. */
static uintptr_t random_code(void)
{
	enum function function = (enum function)(rand() % FUNCTIONS);

	return pc_in(function, (uintptr_t)rand() % functions[function].size);
}

/* Random words (stack addresses, code addresses, noise) and registers. */
static void scramble_stack(struct fake_stack *s)
{
	for (size_t i = 0; i < FAKE_STACK_WORDS; i++) {
		int kind = rand() % 3;
		uintptr_t r = (uintptr_t)rand();

		s->words[i] = kind == 0	  ? fake_addr(s, r % (FAKE_STACK_WORDS + 8))
			      : kind == 1 ? random_code()
					  : r * 2654435761u;
	}
	s->regs.pc = random_code();
	s->regs.ra = random_code();
	s->regs.sp = fake_addr(s, (size_t)rand() % FAKE_STACK_WORDS);
	for (unsigned k = 0; k < 12; k++)
		s->regs.s[k] = fake_addr(s, (size_t)rand() % (FAKE_STACK_WORDS + 4));
}

/* The deep stack of dwarf_stop_depth_limit, with a few words changed: long
 * walks through whatever the mutation left of RECURSIVE's CFI. */
static void damage_recursion(struct program *p)
{
	memset(p->stack.words, 0, FAKE_STACK_WORDS * WORD);
	for (size_t i = 0; i < 100; i++)
		put(p, 11 + 4 * i, i == 99 ? pc_in(START, 0x10) : pc_in(RECURSIVE, 0x20));
	for (int changes = rand() % 4; changes > 0; changes--)
		put(p, (size_t)rand() % FAKE_STACK_WORDS,
		    rand() % 2 ? random_code()
			       : word(p, (size_t)rand() % FAKE_STACK_WORDS));
	memset(&p->stack.regs, 0, sizeof(p->stack.regs));
	p->stack.regs.pc = pc_in(RECURSIVE, 0x10);
	p->stack.regs.sp = word(p, 8);
}

/* Parses every indexed FDE of the mutated section and runs it at a pc it
 * covers. Any status will do; reads stay inside (ASan) and it ends. */
static void parse_all(const struct program *p)
{
	for (int i = 0; i < FUNCTIONS; i++) {
		struct cfi_fde fde;
		struct cfi_row row;

		if (cfi_parse_fde(&p->stack.config, p->entries[i].fde, &fde) != CFI_OK)
			continue;
		if (fde.pc_end > fde.pc_start)
			(void)cfi_row_at(&p->stack.config, &fde,
					 fde.pc_start + (uintptr_t)rand() %
							    (fde.pc_end - fde.pc_start),
					 &row);
	}
}

/*
 * 2000 mutated or random sections, each exactly sized (ASan), indexed as
 * the original, some index entries moved to random offsets: parse, run and
 * walk. Every walk must end within the depth limit with a reason.
 */
void dwarf_random_cfi_terminates(void)
{
	struct program p;
	struct fake_cfi original;

	srand(2718);
	build_program(&p);
	fake_enable_traps(&p.stack);
	original = p.cfi;
	original.block = NULL;
	for (int round = 0; round < 2000; round++) {
		size_t size;

		fake_cfi_free(&p.cfi);
		p.cfi = original;
		size = mutate(p.cfi.bytes, p.cfi.size);
		p.cfi.size = size;
		p.cfi.fixup_count = 0;
		fake_cfi_seal(&p.cfi, &p.stack.config);
		index_program(&p);
		for (int moved = rand() % 3; moved > 0; moved--)
			p.entries[rand() % FUNCTIONS].fde =
			    fake_cfi_addr(&p.cfi, (size_t)rand() % (size + 4));
		parse_all(&p);
		if (rand() % 2)
			scramble_stack(&p.stack);
		else
			damage_recursion(&p);
		CHECK(walk(&p) <= TRACER_DEFAULT_DEPTH);
		CHECK(p.stack.stop != TRACER_RUNNING && p.stack.stop < TRACER_STOP_COUNT);
	}
	free_program(&p);
}

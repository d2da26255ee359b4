/*
 * test_capture.c - raw capture (tracer_capture) with the frame-pointer
 * unwinder, whose common frames take a loop of their own
 * (frame_pointer_run): frames whose return address follows `jal ra` or
 * `jalr ra`. Each test lays out the records and the calls by hand and states
 * the pcs and the stop reason it expects; each corruption is one that the
 * loop's other checks would let through, so that only the check it aims at
 * can stop it. Every walk through fake_walk_with() is also captured and
 * compared (fake_stack.c): that covers the other unwinders.
 */
#include <string.h>

#include "fake_stack.h"
#include "fake_tables.h"
#include "harness.h"
#include "walk.h"

/* Instructions before a return address (objdump's hex). */
#define JAL_RA	     0x000000efu /* jal ra, 0: rd = ra */
#define JAL_RA_FAR   0xf3dff0efu /* jal ra, -0xc4 */
#define JALR_RA	     0x000080e7u /* jalr ra, 0(ra): call's second half */
#define JALR_RA_A5   0x008780e7u /* jalr ra, 8(a5): an indirect call */
#define JAL_ZERO     0x0000006fu /* j 0: jal x0, no link */
#define JALR_ZERO_RA 0x00008067u /* ret: jalr x0, 0(ra) */
#define NOP	     0x00000013u /* addi x0, x0, 0 */

/* Six records: fp_i at word 100 + 40 * i, the last at the stack's top. */
#define CHAIN 6

static uintptr_t chain_fp(const struct fake_stack *s, unsigned i)
{
	return fake_addr(s, 100 + 40 * i);
}

static uintptr_t chain_ra(unsigned i)
{
	return FAKE_TEXT_START + 0x200 + 0x40 * i;
}

/* Record i holds {fp_i+1 (0 for the last), ra_i}; `call` ends just before
 * each ra_i. The first frame is a register set's, in a non-leaf. */
static void build_chain(struct fake_stack *s, uint32_t call)
{
	s->range.end = chain_fp(s, CHAIN - 1);
	for (unsigned i = 0; i < CHAIN; i++) {
		fake_record(s, chain_fp(s, i), i + 1 < CHAIN ? chain_fp(s, i + 1) : 0,
			    chain_ra(i));
		fake_text_put32(s, chain_ra(i) - 4, call);
	}
	s->regs.pc = FAKE_TEXT_START + 0x100;
	s->regs.ra = FAKE_TEXT_START + 0xabc; /* stale: a non-leaf's */
	s->regs.sp = fake_addr(s, 90);
	s->regs.s[0] = chain_fp(s, 0);
}

#define UNTOUCHED ((uintptr_t)0x5a5a5a5a)
static uintptr_t pcs[CHAIN + 8];

/* Captures into pcs[] (the words past `max` set to UNTOUCHED first). */
static size_t capture(const struct fake_stack *s, enum tracer_unwinder unwinder,
		      size_t max, enum tracer_stop *stop)
{
	struct tracer_prepared prepared;

	for (size_t i = 0; i < sizeof(pcs) / sizeof(pcs[0]); i++)
		pcs[i] = UNTOUCHED;
	tracer_prepare(&prepared, &s->config);
	return tracer_capture(&prepared, unwinder, &s->regs, pcs, max, stop);
}

/* Whether pcs[] starts with the chain's first `count` frames: the
 * register set's pc, then ra_0, ra_1, ... */
static bool chain_pcs(size_t count)
{
	for (size_t i = 0; i < count; i++) {
		if (pcs[i] !=
		    (i == 0 ? FAKE_TEXT_START + 0x100 : chain_ra((unsigned)i - 1)))
			return false;
	}
	return pcs[count] == UNTOUCHED;
}

/* The chain, with each kind of call before the return addresses: the two
 * the loop takes, and c.jalr (the fill), which the walk's general path
 * takes. Seven frames, up to the top of the stack. */
void capture_fp_chain(void)
{
	static const uint32_t calls[] = {JAL_RA, JAL_RA_FAR, JALR_RA, JALR_RA_A5};
	struct fake_stack s;
	enum tracer_stop stop;

	for (size_t i = 0; i <= sizeof(calls) / sizeof(calls[0]); i++) {
		fake_stack_init(&s);
		if (i < sizeof(calls) / sizeof(calls[0]))
			build_chain(&s, calls[i]);
		else
			build_chain(&s,
				    (uint32_t)FAKE_CALL_PARCEL << 16 | FAKE_CALL_PARCEL);
		CHECK(capture(&s, TRACER_FRAME_POINTER, CHAIN + 4, &stop) == CHAIN + 1);
		CHECK(stop == TRACER_STOP_OUTERMOST && chain_pcs(CHAIN + 1));
		CHECK(fake_walk(&s) == CHAIN + 1 && s.stop == TRACER_STOP_OUTERMOST);
		fake_stack_free(&s);
	}
}

/* Calls of both kinds along one walk: the loop hands a c.jalr frame to the
 * general path and takes the next frame again. */
void capture_fp_mixed_calls(void)
{
	struct fake_stack s;
	enum tracer_stop stop;

	fake_stack_init(&s);
	build_chain(&s, JAL_RA);
	fake_text_put32(&s, chain_ra(2) - 4, NOP);
	fake_text_put16(&s, chain_ra(2) - 2, FAKE_CALL_PARCEL);
	fake_text_put32(&s, chain_ra(4) - 4, JALR_RA_A5);
	CHECK(capture(&s, TRACER_FRAME_POINTER, CHAIN + 4, &stop) == CHAIN + 1);
	CHECK(stop == TRACER_STOP_OUTERMOST && chain_pcs(CHAIN + 1));
	fake_stack_free(&s);
}

/* At most max pcs, nothing written past them; the stop says frames remain.
 * Room for exactly the walk gives the walk's own stop; stop may be NULL. */
void capture_fp_max(void)
{
	struct fake_stack s;
	enum tracer_stop stop;

	fake_stack_init(&s);
	build_chain(&s, JAL_RA);
	CHECK(capture(&s, TRACER_FRAME_POINTER, 3, &stop) == 3);
	CHECK(stop == TRACER_STOP_DEPTH_LIMIT && chain_pcs(3));
	CHECK(capture(&s, TRACER_FRAME_POINTER, 1, &stop) == 1);
	CHECK(stop == TRACER_STOP_DEPTH_LIMIT && chain_pcs(1));
	CHECK(capture(&s, TRACER_FRAME_POINTER, 0, &stop) == 0);
	CHECK(stop == TRACER_STOP_DEPTH_LIMIT && pcs[0] == UNTOUCHED);
	CHECK(capture(&s, TRACER_FRAME_POINTER, CHAIN, &stop) == CHAIN);
	CHECK(stop == TRACER_STOP_DEPTH_LIMIT && chain_pcs(CHAIN));
	CHECK(capture(&s, TRACER_FRAME_POINTER, CHAIN + 1, &stop) == CHAIN + 1);
	CHECK(stop == TRACER_STOP_OUTERMOST && chain_pcs(CHAIN + 1));
	CHECK(capture(&s, TRACER_FRAME_POINTER, CHAIN + 1, NULL) == CHAIN + 1);
	/* config.max_depth bounds printed walks, not captures. */
	s.config.max_depth = 2;
	CHECK(capture(&s, TRACER_FRAME_POINTER, CHAIN + 4, &stop) == CHAIN + 1);
	CHECK(fake_walk(&s) == 2 && s.stop == TRACER_STOP_DEPTH_LIMIT);
	fake_stack_free(&s);
}

void capture_bad_unwinder(void)
{
	struct fake_stack s;
	enum tracer_stop stop;

	fake_stack_init(&s);
	build_chain(&s, JAL_RA);
	CHECK(capture(&s, TRACER_UNWINDER_COUNT, CHAIN + 4, &stop) == 0);
	CHECK(stop == TRACER_STOP_BAD_UNWINDER && pcs[0] == UNTOUCHED);
	fake_stack_free(&s);
}

/*
 * Frame 2 (ra_1, returned by the loop) gets the frame pointer `fp` from
 * record 1; unwinding it must stop with `expected` after three pcs.
 */
static bool frame_2_fp_stops(struct fake_stack *s, uintptr_t fp,
			     enum tracer_stop expected)
{
	enum tracer_stop stop;

	fake_put(s, chain_fp(s, 1) - 2 * WORD, fp);
	return capture(s, TRACER_FRAME_POINTER, CHAIN + 4, &stop) == 3 &&
	       stop == expected && chain_pcs(3);
}

/* fp 8 bytes past a 16-byte boundary, where a record that the other checks
 * accept lies: {fp_3, ra_2}. */
void capture_fp_misaligned(void)
{
	struct fake_stack s;
	uintptr_t fp;

	fake_stack_init(&s);
	build_chain(&s, JAL_RA);
	fp = chain_fp(&s, 2) + 8;
	fake_record(&s, fp, chain_fp(&s, 3), chain_ra(2));
	CHECK(frame_2_fp_stops(&s, fp, TRACER_STOP_MISALIGNED));
	fake_stack_free(&s);
}

/* fp at or below the frame's sp (fp_1): a valid record there, a loop. */
void capture_fp_not_ascending(void)
{
	struct fake_stack s;

	fake_stack_init(&s);
	build_chain(&s, JAL_RA);
	CHECK(frame_2_fp_stops(&s, chain_fp(&s, 0), TRACER_STOP_NOT_ASCENDING));
	CHECK(frame_2_fp_stops(&s, chain_fp(&s, 1), TRACER_STOP_NOT_ASCENDING));
	fake_stack_free(&s);
}

/* fp above the declared stack's top, in memory that holds a valid record;
 * then 16 bytes above the top, whose record lies just past it. */
void capture_fp_outside_stack(void)
{
	struct fake_stack s;
	uintptr_t top;

	fake_stack_init(&s);
	build_chain(&s, JAL_RA);
	top = chain_fp(&s, CHAIN - 1);
	fake_record(&s, fake_addr(&s, 340), 0, chain_ra(4));
	CHECK(frame_2_fp_stops(&s, fake_addr(&s, 340), TRACER_STOP_OUTSIDE_STACK));
	fake_record(&s, top + 16, 0, chain_ra(4));
	CHECK(frame_2_fp_stops(&s, top + 16, TRACER_STOP_OUTSIDE_STACK));
	fake_stack_free(&s);
}

/* fp = 0 in a frame below the stack's top: a frame pointer lost. */
void capture_fp_zero(void)
{
	struct fake_stack s;

	fake_stack_init(&s);
	build_chain(&s, JAL_RA);
	CHECK(frame_2_fp_stops(&s, 0, TRACER_STOP_FP_ZERO));
	fake_stack_free(&s);
}

/* Record 1's return address `ra` must end the walk after two pcs. */
static bool ra_1_stops(struct fake_stack *s, uintptr_t ra, enum tracer_stop expected)
{
	enum tracer_stop stop;

	fake_put(s, chain_fp(s, 1) - WORD, ra);
	return capture(s, TRACER_FRAME_POINTER, CHAIN + 4, &stop) == 2 &&
	       stop == expected && chain_pcs(2);
}

/* A return address past the declared text, after a `jal ra` in memory
 * that exists; then one in the text's first 4 bytes with `jal ra` before
 * it, outside. */
void capture_fp_ra_outside_text(void)
{
	struct fake_stack s;
	uintptr_t ra;

	fake_stack_init(&s);
	build_chain(&s, JAL_RA);
	s.config.text.end = FAKE_TEXT_START + 0x8000;
	ra = FAKE_TEXT_START + 0x9004;
	fake_text_put32(&s, ra - 4, JAL_RA);
	CHECK(ra_1_stops(&s, ra, TRACER_STOP_PC_OUTSIDE_TEXT));
	s.config.text.start = FAKE_TEXT_START + 0x10;
	fake_text_put32(&s, FAKE_TEXT_START + 0x8, JAL_RA);
	CHECK(ra_1_stops(&s, FAKE_TEXT_START + 0xc, TRACER_STOP_PC_OUTSIDE_TEXT));
	fake_stack_free(&s);
}

/* In text, but after an instruction that is no call: a nop, a jump that
 * does not link (j), a return (ret), nor is the parcel before it a call. */
void capture_fp_ra_not_after_call(void)
{
	static const uint32_t not_calls[] = {NOP, JAL_ZERO, JALR_ZERO_RA};
	struct fake_stack s;

	fake_stack_init(&s);
	build_chain(&s, JAL_RA);
	for (size_t i = 0; i < sizeof(not_calls) / sizeof(not_calls[0]); i++) {
		fake_text_put32(&s, chain_ra(1) - 4, not_calls[i]);
		CHECK(ra_1_stops(&s, chain_ra(1), TRACER_STOP_NOT_A_CALL));
	}
	fake_stack_free(&s);
}

/* An odd return address, whose 4 bytes before it spell `jal ra`. */
void capture_fp_ra_odd(void)
{
	struct fake_stack s;
	uint8_t *bytes;
	uintptr_t ra;

	fake_stack_init(&s);
	build_chain(&s, JAL_RA);
	ra = chain_ra(1) + 1;
	bytes = (uint8_t *)(ra - 4);
	memcpy(bytes, (const uint8_t[]){0xef, 0x00, 0x00, 0x00}, 4);
	CHECK(ra_1_stops(&s, ra, TRACER_STOP_NOT_A_CALL));
	fake_stack_free(&s);
}

/*
 * A return into the trap entry, found by the loop (frame 2): the walk
 * crosses the trap frame at that frame's sp, to the interrupted pc and its
 * frame pointer; the record's own caller fp leads elsewhere, to a decoy.
 */
void capture_fp_trap_return(void)
{
	/* From FAKE_TEXT_START; 0x810 is FAKE_ENTRY_START + 0x10. */
	static const uintptr_t expected_offsets[] = {0x100, 0x200, 0x810,
						     0x600, 0x700, 0x740};
	struct fake_stack s;
	enum tracer_stop stop;
	uintptr_t entry_ra;
	uintptr_t trap_frame;

	fake_stack_init(&s);
	entry_ra = FAKE_ENTRY_START + 0x10;
	fake_enable_traps(&s);
	build_chain(&s, JAL_RA);
	fake_record(&s, chain_fp(&s, 1), fake_addr(&s, 260), entry_ra);
	fake_text_put32(&s, entry_ra - 4, JAL_RA);
	trap_frame = chain_fp(&s, 1);
	fake_put(&s, trap_frame + TF_EPC * WORD, FAKE_TEXT_START + 0x600);
	fake_put(&s, trap_frame + TF_SP * WORD, fake_addr(&s, 200));
	fake_put(&s, trap_frame + TF_S0 * WORD, fake_addr(&s, 220));
	fake_record(&s, fake_addr(&s, 220), chain_fp(&s, CHAIN - 1),
		    FAKE_TEXT_START + 0x700);
	fake_text_put32(&s, FAKE_TEXT_START + 0x6fc, JAL_RA);
	fake_record(&s, chain_fp(&s, CHAIN - 1), 0, FAKE_TEXT_START + 0x740);
	fake_text_put32(&s, FAKE_TEXT_START + 0x73c, JAL_RA);
	/* The decoy: where the loop would go on without its trap check. */
	fake_record(&s, fake_addr(&s, 260), chain_fp(&s, CHAIN - 1),
		    FAKE_TEXT_START + 0x780);
	fake_text_put32(&s, FAKE_TEXT_START + 0x77c, JAL_RA);

	CHECK(capture(&s, TRACER_FRAME_POINTER, CHAIN + 4, &stop) == 6);
	CHECK(stop == TRACER_STOP_OUTERMOST && pcs[6] == UNTOUCHED);
	for (size_t i = 0; i < 6; i++)
		CHECK(pcs[i] == FAKE_TEXT_START + expected_offsets[i]);
	CHECK(fake_walk(&s) == 6 && s.frames[3].after_trap);
	fake_stack_free(&s);
}

/*
 * A capture uses the verdict tracer_prepare() reached and validates
 * nothing itself: a symbol table damaged after it (its checksum) still
 * serves the prologue decoder, which tracer_start() would refuse.
 */
void capture_uses_prepared_verdict(void)
{
	_Alignas(8) static const char names[8] = "leaf";
	struct tracer_symtab symtab;
	struct tracer_symbol symbol;
	struct tracer_prepared prepared;
	struct fake_stack s;
	enum tracer_stop stop;

	fake_stack_init(&s);
	/* A function of c.jalr parcels: the decoder sees no frame set up, so
	 * ra is the live one (a leaf, as far as it can tell). */
	symbol = (struct tracer_symbol){FAKE_TEXT_START + 0x100, 0x40, 0};
	fake_symtab_fill(&symtab, &symbol, 1, names, sizeof(names));
	s.config.symtab = &symtab;
	fake_tables_anywhere(&s.config);
	s.regs.pc = FAKE_TEXT_START + 0x104;
	s.regs.ra = FAKE_TEXT_START + 0x302;
	s.regs.sp = fake_addr(&s, 100);
	tracer_prepare(&prepared, &s.config);
	CHECK(prepared_of(&prepared)->symtab_status == TRACER_TABLE_OK);
	symtab.checksum++;
	CHECK(tracer_capture(&prepared, TRACER_PROLOGUE, &s.regs, pcs, 4, &stop) == 2);
	CHECK(pcs[0] == FAKE_TEXT_START + 0x104 && pcs[1] == FAKE_TEXT_START + 0x302);
	CHECK(stop == TRACER_STOP_NO_SYMBOL);
	tracer_prepare(&prepared, &s.config);
	CHECK(prepared_of(&prepared)->symtab_status == TRACER_TABLE_BAD_CHECKSUM);
	CHECK(tracer_capture(&prepared, TRACER_PROLOGUE, &s.regs, pcs, 4, &stop) == 1);
	CHECK(stop == TRACER_STOP_BAD_SYMTAB);
	fake_stack_free(&s);
}

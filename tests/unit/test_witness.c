/*
 * test_witness.c - the frame size an unwind table row states (frame_size_16):
 * the second witness of a CFA taken from s0 for the unwinders that believe
 * s0 (frame pointer, DWARF), the CFA itself (sp plus it) in a caller's frame
 * for those that read the table's rows (table, auto), in walks and in the
 * raw capture; and the empty table (table walks go on with DWARF).
 *
 * Four functions, from the table's base, each row hand-derived:
 *
 *   I  0x000  CFA = s0, ra at CFA - 1 word, s0 at CFA - 2 words; no size
 *   M  0x100  the same, frame size 32 bytes (frame_size_16 = 2)
 *   O  0x200  the same, frame size 48 bytes (frame_size_16 = 3)
 *   T  0x300  CFA = sp, ra undefined: the outermost frame
 *   (no CFI from 0x380)
 *
 * and FDEs saying the same (T's: DW_CFA_undefined ra). The stack, in words
 * (8 bytes on the test host, the same sizes in bytes whatever the word):
 * I's sp w100, CFA w104; M's sp w104, CFA w108 (32 bytes); O's sp w108,
 * CFA w114 (48 bytes); T's sp w114, the top. Each record below a CFA holds
 * the caller's return address (the function + 0x10) and s0 (its CFA; 0
 * below T). The attack: I's saved s0 set to O's CFA (w114), a real outer
 * record: believing it, a walk goes I, M, T and claims the outermost frame.
 */
#include <string.h>

#include "dwarf_codes.h"
#include "fake_cfi.h"
#include "fake_stack.h"
#include "fake_tables.h"
#include "harness.h"

#define W    ((int16_t)sizeof(uintptr_t))
#define BASE (FAKE_TEXT_START + 0x1000)
enum { I = 0x000, M = 0x100, O = 0x200, T = 0x300, END = 0x380 };

struct witness_test {
	struct fake_stack stack;
	struct fake_cfi cfi;
	struct tracer_fde_entry entries[4];
	struct tracer_fde_index index;
	uint16_t rows[5];
	uint64_t maps[8];
	uint16_t lookup[8];
	struct tracer_unwind_rule rules[5];
	struct tracer_unwind_table table;
};

static const enum tracer_unwinder believers[4] = {TRACER_FRAME_POINTER, TRACER_TABLE,
						  TRACER_DWARF, TRACER_AUTO};

/* Whether an unwinder takes a caller's CFA from the table's frame size (the
 * table's rows: table, and auto, whose first choice they are) rather than
 * checking a CFA from s0 against it. */
static bool sizes_the_frame(enum tracer_unwinder unwinder)
{
	return unwinder == TRACER_TABLE || unwinder == TRACER_AUTO;
}

static uintptr_t word(const struct witness_test *t, size_t index)
{
	return fake_addr(&t->stack, index);
}

/* CIE: version 3, "zR", code alignment 1, data alignment -8 (SLEB 0x78),
 * ra column 1, 8-byte absolute addresses (DW_EH_PE_udata8), initial
 * DW_CFA_def_cfa sp, 0. I, M, O: DW_CFA_def_cfa s0, 0; ra at CFA - 8, s0 at
 * CFA - 16. T: DW_CFA_undefined ra. */
static void build_cfi(struct witness_test *t)
{
	static const uintptr_t starts[4] = {I, M, O, T};
	size_t cie;

	fake_cfi_init(&t->cfi);
	cie = fake_cfi_begin_cie(&t->cfi);
	FAKE_CFI(&t->cfi, 3, 'z', 'R', 0, 1, 0x78, 1, 1, 4, CFA_def_cfa, 2, 0);
	fake_cfi_end(&t->cfi);
	for (size_t i = 0; i < 4; i++) {
		size_t fde = fake_cfi_begin_fde(&t->cfi, cie);

		fake_cfi_unsigned(&t->cfi, BASE + starts[i], 8);
		fake_cfi_unsigned(&t->cfi, i < 3 ? 0x100 : END - T, 8);
		if (i < 3)
			FAKE_CFI(&t->cfi, 0, CFA_def_cfa, 8, 0, CFA_offset | 1, 1,
				 CFA_offset | 8, 2);
		else
			FAKE_CFI(&t->cfi, 0, CFA_undefined, 1);
		fake_cfi_end(&t->cfi);
		t->entries[i] = (struct tracer_fde_entry){BASE + starts[i], fde};
	}
	fake_cfi_unsigned(&t->cfi, 0, 4);
	fake_cfi_seal(&t->cfi, &t->stack.config);
	for (size_t i = 0; i < 4; i++)
		t->entries[i].fde = fake_cfi_addr(&t->cfi, t->entries[i].fde);
	fake_fde_index_fill(&t->index, t->entries, 4, t->stack.config.eh_frame);
	t->stack.config.fde_index = &t->index;
}

/* The table, with frame sizes (in 16-byte units) for M and O. */
static void fill_table(struct witness_test *t, uint8_t m_size, uint8_t o_size)
{
	const struct tracer_unwind_rule rules[5] = {{0, -W, -2 * W, 1, 0},
						    {0, -W, -2 * W, 1, m_size},
						    {0, -W, -2 * W, 1, o_size},
						    {0, 0, 0, 10, 0},
						    {0, 0, 0, 16, 0}};
	/* Rows I, M, O, T, END: rules 0-4 (byte offsets 8 apart). One row
	 * starts at offset 0 of blocks 0, 2, 4, 6 and 7. */
	static const uint16_t rows[5] = {0, 8, 16, 24, 32};
	static const uint64_t maps[8] = {1, 0, 1, 0, 1, 0, 1, 1};
	static const uint16_t lookup[8] = {1, 1, 2, 2, 3, 3, 4, 5};

	memcpy(t->rules, rules, sizeof(rules));
	memcpy(t->rows, rows, sizeof(rows));
	memcpy(t->maps, maps, sizeof(maps));
	memcpy(t->lookup, lookup, sizeof(lookup));
	fake_unwind_table_fill(&t->table, BASE, t->rows, 5, t->maps, t->lookup, 8,
			       t->rules, 5);
	t->stack.config.unwind_table = &t->table;
}

/* The calls before the return addresses: c.jalr ra (the fake text's, which
 * the common paths decline) or `jal ra` (0x000000ef, which they take). */
static void put_calls(struct witness_test *t, bool jal)
{
	static const uintptr_t calls[3] = {M + 0x0c, O + 0x0c, T + 0x0c};

	for (size_t i = 0; i < 3; i++)
		fake_text_put32(&t->stack, BASE + calls[i],
				jal ? 0x000000efu
				    : (uint32_t)FAKE_CALL_PARCEL << 16 |
					  FAKE_CALL_PARCEL);
}

static void build(struct witness_test *t)
{
	fake_stack_init(&t->stack);
	build_cfi(t);
	fill_table(t, 2, 3);
	fake_tables_anywhere(&t->stack.config);
	fake_record(&t->stack, word(t, 104), word(t, 108), BASE + M + 0x10);
	fake_record(&t->stack, word(t, 108), word(t, 114), BASE + O + 0x10);
	fake_record(&t->stack, word(t, 114), 0, BASE + T + 0x10);
	t->stack.range.end = word(t, 114);
	t->stack.regs.pc = BASE + I + 0x8;
	t->stack.regs.ra = FAKE_TEXT_START + 0xabc; /* stale */
	t->stack.regs.sp = word(t, 100);
	t->stack.regs.s[0] = word(t, 104);
}

static void release(struct witness_test *t)
{
	fake_cfi_free(&t->cfi);
	fake_stack_free(&t->stack);
}

/* I's record: the caller's s0 forged to O's CFA. */
static void forge(struct witness_test *t)
{
	fake_put(&t->stack, word(t, 104) - 2 * WORD, word(t, 114));
}

/* The walk's pcs are these (offsets from BASE), and it ended so. */
static bool walked(const struct witness_test *t, size_t count, const uintptr_t *pcs,
		   size_t expected, enum tracer_stop stop)
{
	if (count != expected || t->stack.stop != stop)
		return false;
	for (size_t i = 0; i < count; i++)
		if (t->stack.frames[i].pc != BASE + pcs[i])
			return false;
	return true;
}

/* tracer_capture() gives the iterator's pcs and stop. */
static bool capture_agrees(struct witness_test *t, enum tracer_unwinder unwinder)
{
	struct tracer_prepared prepared;
	uintptr_t pcs[FAKE_MAX_FRAMES];
	enum tracer_stop stop;
	size_t count;
	size_t walked_count = fake_walk_with(&t->stack, unwinder);

	tracer_prepare(&prepared, &t->stack.config);
	count = tracer_capture(&prepared, unwinder, &t->stack.regs, pcs, FAKE_MAX_FRAMES,
			       &stop);
	if (count != walked_count || stop != t->stack.stop)
		return false;
	for (size_t i = 0; i < count; i++)
		if (pcs[i] != t->stack.frames[i].pc)
			return false;
	return true;
}

/* The true chain: every unwinder that believes s0 agrees with the sizes,
 * on its general path (c.jalr) and its common one (jal ra). */
void witness_true_chain(void)
{
	static const uintptr_t pcs[4] = {I + 0x8, M + 0x10, O + 0x10, T + 0x10};
	struct witness_test t;

	build(&t);
	for (int jal = 0; jal < 2; jal++) {
		put_calls(&t, jal);
		for (size_t u = 0; u < 4; u++) {
			CHECK(walked(&t, fake_walk_with(&t.stack, believers[u]), pcs, 4,
				     TRACER_STOP_OUTERMOST));
			CHECK(capture_agrees(&t, believers[u]));
		}
	}
	release(&t);
}

/* The forged saved s0: without sizes every unwinder skips O and claims the
 * outermost frame; with them, the frame pointer and DWARF stop after M,
 * whose 32 bytes put its CFA at w108, not at the forged w114, and the table
 * and auto, which take M's CFA from sp and that size, walk the true chain. */
void witness_forged_saved_s0(void)
{
	static const uintptr_t fooled[3] = {I + 0x8, M + 0x10, T + 0x10};
	static const uintptr_t stopped[2] = {I + 0x8, M + 0x10};
	static const uintptr_t true_chain[4] = {I + 0x8, M + 0x10, O + 0x10, T + 0x10};
	struct witness_test t;

	build(&t);
	forge(&t);
	for (int jal = 0; jal < 2; jal++) {
		put_calls(&t, jal);
		fill_table(&t, 0, 0);
		for (size_t u = 0; u < 4; u++)
			CHECK(walked(&t, fake_walk_with(&t.stack, believers[u]), fooled,
				     3, TRACER_STOP_OUTERMOST));
		fill_table(&t, 2, 3);
		for (size_t u = 0; u < 4; u++) {
			if (sizes_the_frame(believers[u]))
				CHECK(walked(&t, fake_walk_with(&t.stack, believers[u]),
					     true_chain, 4, TRACER_STOP_OUTERMOST) &&
				      t.stack.frames[2].sp == word(&t, 108));
			else
				CHECK(walked(&t, fake_walk_with(&t.stack, believers[u]),
					     stopped, 2, TRACER_STOP_FRAME_SIZE));
			CHECK(t.stack.frames[1].sp == word(&t, 104));
			CHECK(capture_agrees(&t, believers[u]));
		}
	}
	release(&t);
}

/*
 * A function that moves sp by more than constants (an alloca in a loop
 * after its call: its frame at the call is larger than the code before the
 * call makes it) gets no size from symgen (frame_size_16 = 0), and its
 * frames are not checked: M's frame here is 80 bytes (sp w104, CFA w114,
 * its caller T), where a size measured at the call alone would say 32, and
 * stop a true walk of the frame pointer or DWARF. The table and auto would
 * believe it: M's CFA at w108, where the stack still holds O's old record,
 * a false chain; so symgen states none (hostile_tests.py's alloca case
 * checks a real one against GDB).
 */
void witness_dynamic_sp_not_checked(void)
{
	static const uintptr_t pcs[3] = {I + 0x8, M + 0x10, T + 0x10};
	static const uintptr_t stale[4] = {I + 0x8, M + 0x10, O + 0x10, T + 0x10};
	struct witness_test t;

	build(&t);
	/* M's caller is T directly: M's record at its CFA, w114. */
	fake_record(&t.stack, word(&t, 104), word(&t, 114), BASE + M + 0x10);
	fake_record(&t.stack, word(&t, 114), 0, BASE + T + 0x10);
	for (int jal = 0; jal < 2; jal++) {
		put_calls(&t, jal);
		fill_table(&t, 0, 3);
		for (size_t u = 0; u < 4; u++) {
			CHECK(walked(&t, fake_walk_with(&t.stack, believers[u]), pcs, 3,
				     TRACER_STOP_OUTERMOST));
			CHECK(capture_agrees(&t, believers[u]));
		}
		fill_table(&t, 2, 3);
		for (size_t u = 0; u < 4; u++)
			if (sizes_the_frame(believers[u]))
				CHECK(walked(&t, fake_walk_with(&t.stack, believers[u]),
					     stale, 4, TRACER_STOP_OUTERMOST));
			else
				CHECK(fake_walk_with(&t.stack, believers[u]) == 2 &&
				      t.stack.stop == TRACER_STOP_FRAME_SIZE);
	}
	release(&t);
}

/* A register set's frame is not checked: its s0 is the register's, and its
 * pc may lie where sp moves under an s0-based row (an epilogue). I's row
 * says 32 bytes; the registers, mid-epilogue, have sp 16 bytes below the
 * CFA. */
void witness_first_frame_not_checked(void)
{
	static const uintptr_t pcs[4] = {I + 0x8, M + 0x10, O + 0x10, T + 0x10};
	struct witness_test t;

	build(&t);
	t.rules[0].frame_size_16 = 2;
	fake_unwind_table_fill(&t.table, BASE, t.rows, 5, t.maps, t.lookup, 8, t.rules,
			       5);
	t.stack.regs.sp = word(&t, 102);
	for (size_t u = 0; u < 4; u++)
		CHECK(walked(&t, fake_walk_with(&t.stack, believers[u]), pcs, 4,
			     TRACER_STOP_OUTERMOST));
	release(&t);
}

/*
 * GCC's variadic functions keep s0 below their register save area: CFA =
 * s0 + 64, the record below s0 as always (ra at CFA - 72, s0 at CFA - 80).
 * With I so, the frame-pointer unwinder takes I's CFA from the table (M's
 * sp w112, not s0 = w104), so that M's size (now 16 bytes to w114) holds.
 */
void witness_fp_variadic_cfa(void)
{
	static const uintptr_t pcs[3] = {I + 0x8, M + 0x10, T + 0x10};
	struct witness_test t;

	build(&t);
	fake_record(&t.stack, word(&t, 104), word(&t, 114), BASE + M + 0x10);
	t.rules[0] = (struct tracer_unwind_rule){64, -72, -80, 1, 0};
	t.rules[1].frame_size_16 = 1;
	fake_unwind_table_fill(&t.table, BASE, t.rows, 5, t.maps, t.lookup, 8, t.rules,
			       5);
	for (int jal = 0; jal < 2; jal++) {
		put_calls(&t, jal);
		CHECK(walked(&t, fake_walk_with(&t.stack, TRACER_FRAME_POINTER), pcs, 3,
			     TRACER_STOP_OUTERMOST));
		CHECK(t.stack.frames[1].sp == word(&t, 112));
		CHECK(capture_agrees(&t, TRACER_FRAME_POINTER));
	}
	release(&t);
}

/* An empty (valid) table, as symgen writes past 65,535 rows: table and
 * auto walks go on with DWARF at every frame. */
void witness_empty_table_uses_dwarf(void)
{
	static const uintptr_t pcs[4] = {I + 0x8, M + 0x10, O + 0x10, T + 0x10};
	static const enum tracer_unwinder unwinders[2] = {TRACER_TABLE, TRACER_AUTO};
	struct witness_test t;

	build(&t);
	fake_unwind_table_fill(&t.table, 0, NULL, 0, NULL, NULL, 0, NULL, 0);
	CHECK(tracer_unwind_table_check(&t.stack.config) == TRACER_TABLE_OK);
	for (int jal = 0; jal < 2; jal++) {
		put_calls(&t, jal);
		for (size_t u = 0; u < 2; u++) {
			CHECK(walked(&t, fake_walk_with(&t.stack, unwinders[u]), pcs, 4,
				     TRACER_STOP_OUTERMOST));
			CHECK(capture_agrees(&t, unwinders[u]));
		}
	}
	release(&t);
}

/*
 * A frame size changed after symgen hashed the rules (M's 32 bytes made 48,
 * the rules' block hash kept): a walk that reads the row rejects the table
 * and believes no size from it. The frame pointer and DWARF walk the true
 * chain to the outermost frame instead of stopping on the damaged size
 * (which a row read unchecked would make them do); the table stops, its
 * table rejected; auto goes on with DWARF.
 */
void witness_frame_size_hashed(void)
{
	static const uintptr_t pcs[4] = {I + 0x8, M + 0x10, O + 0x10, T + 0x10};
	static const enum tracer_stop stops[4] = {
	    TRACER_STOP_OUTERMOST, TRACER_STOP_BAD_UNWIND_TABLE, TRACER_STOP_OUTERMOST,
	    TRACER_STOP_OUTERMOST};
	static const size_t counts[4] = {4, 1, 4, 4};
	struct witness_test t;

	build(&t);
	t.rules[1].frame_size_16 = 3;
	CHECK(tracer_unwind_table_check(&t.stack.config) == TRACER_TABLE_BAD_CHECKSUM);
	for (int jal = 0; jal < 2; jal++) {
		put_calls(&t, jal);
		for (size_t u = 0; u < 4; u++) {
			CHECK(walked(&t, fake_walk_with(&t.stack, believers[u]), pcs,
				     counts[u], stops[u]));
			CHECK(capture_agrees(&t, believers[u]));
		}
	}
	release(&t);
}

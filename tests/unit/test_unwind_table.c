/*
 * test_unwind_table.c - the table unwinder over hand-built unwind tables.
 *
 * The rule words, rows and lookup entries are derived by hand from the
 * layout in tracer/UNWIND_TABLE.md, never with the encoder: rule words
 * (bits 0-1 CFA kind, 2-3 ra, 4 s0 saved, 5-11 ra's offset in words, 12-18
 * s0's offset in words, 19-31 the CFA's offset in units of 4 bytes;
 * offsets two's complement); rows of 16 bits, the offset within a 64-byte
 * block in 2-byte units in bits 11-15, the rule's index in bits 0-10;
 * lookup[i], the first row at or past block i's start, and one entry more,
 * the row count.
 */
#include <stdlib.h>
#include <string.h>

#include "dwarf_codes.h"
#include "fake_cfi.h"
#include "fake_stack.h"
#include "fake_tables.h"
#include "harness.h"

/* CFA = sp + 32 (8 << 19 = 0x400000), ra saved (1 << 2) at CFA - 1 word
 * (0x7f << 5 = 0xfe0), CFA kind sp (1). */
#define RULE_A 0x00400fe5u
/* CFA = s0 + 0 (kind 2), ra saved at CFA - 1 word (0x4 | 0xfe0), s0 saved
 * (0x10) at CFA - 2 words (0x7e << 12 = 0x7e000). */
#define RULE_B 0x0007eff6u
/* CFA = sp + 16 (4 << 19 = 0x200000), ra undefined (2 << 2 = 0x8). */
#define RULE_OUTERMOST 0x00200009u
/* CFA = sp + 0, ra in its register, s0 unchanged: a leaf. */
#define RULE_LEAF 0x00000001u
#define RULE_INTERPRET 0x00000003u
#define RULE_NONE 0x00000000u
/* CFA = sp + 16 (0x200000), ra at CFA - 1 word (0x4 | 0xfe0), s0 at CFA -
 * 2 words (0x10 | 0x7e000), kind sp (1). */
#define RULE_D 0x0027eff5u

/* Where the table's code starts, and its functions, by offset from there. */
#define BASE (FAKE_TEXT_START + 0x1000)
enum {
	A = 0x000,
	B = 0x100,
	C = 0x200,
	LEAF = 0x300,
	INTERPRETED = 0x340,
	GAP = 0x380,
	D = 0x400,
	END = 0x480,
};

struct table_test {
	struct fake_stack stack;
	struct fake_cfi cfi;
	struct tracer_fde_entry entry;
	struct tracer_fde_index index;
	uint16_t rows[8];
	uint32_t lookup[20];
	uint32_t rules[7];
	struct tracer_unwind_table table;
};

/* The FDE of INTERPRETED: CFA = s1 + 0 (no s1 in the table), ra at CFA - 8
 * (DW_CFA_offset ra, 1 with data alignment -8). CIE: version 3, "zR", code
 * alignment 1, data alignment SLEB 0x78 = -8, ra column 1, 8-byte absolute
 * addresses (DW_EH_PE_udata8 = 4), initial DW_CFA_def_cfa sp, 0. */
static void build_cfi(struct table_test *t)
{
	size_t cie;
	size_t fde;

	fake_cfi_init(&t->cfi);
	cie = fake_cfi_begin_cie(&t->cfi);
	FAKE_CFI(&t->cfi, 3, 'z', 'R', 0, 1, 0x78, 1, 1, 4, CFA_def_cfa, 2, 0);
	fake_cfi_end(&t->cfi);
	fde = fake_cfi_begin_fde(&t->cfi, cie);
	fake_cfi_unsigned(&t->cfi, BASE + INTERPRETED, 8);
	fake_cfi_unsigned(&t->cfi, GAP - INTERPRETED, 8);
	FAKE_CFI(&t->cfi, 0, CFA_def_cfa, 9, 0, CFA_offset | 1, 1);
	fake_cfi_end(&t->cfi);
	fake_cfi_unsigned(&t->cfi, 0, 4);
	fake_cfi_seal(&t->cfi, &t->stack.config);
	t->entry = (struct tracer_fde_entry){BASE + INTERPRETED, fake_cfi_addr(&t->cfi, fde)};
	fake_fde_index_fill(&t->index, &t->entry, 1);
	t->stack.config.fde_index = &t->index;
}

/* 19 blocks of 64 bytes from BASE (END is in block 18). */
static void fill_table(struct table_test *t)
{
	fake_unwind_table_fill(&t->table, BASE, t->rows, 8, t->lookup, 19, t->rules, 7);
}

/* Every row starts a block (offset 0): a row is its rule's index. */
static void build(struct table_test *t)
{
	static const uint32_t rules[7] = {RULE_A,	  RULE_B,    RULE_OUTERMOST, RULE_LEAF,
					  RULE_INTERPRET, RULE_NONE, RULE_D};
	/* A, B, C, LEAF, INTERPRETED, GAP, D, END (no CFI: index 5). */
	static const uint16_t rows[8] = {0, 1, 2, 3, 4, 5, 6, 5};
	/* Blocks 0 (A), 1-4 (B at block 4), 5-8 (C at 8), 9-12 (LEAF at 12),
	 * 13 (INTERPRETED), 14 (GAP), 15-16 (D at 16), 17-18 (END at 18). */
	static const uint32_t lookup[20] = {0, 1, 1, 1, 1, 2, 2, 2, 2, 3,
					    3, 3, 3, 4, 5, 6, 6, 7, 7, 8};

	fake_stack_init(&t->stack);
	build_cfi(t);
	memcpy(t->rows, rows, sizeof(rows));
	memcpy(t->lookup, lookup, sizeof(lookup));
	memcpy(t->rules, rules, sizeof(rules));
	fill_table(t);
	t->stack.config.unwind_table = &t->table;
	fake_tables_anywhere(&t->stack.config);
	t->stack.regs.ra = FAKE_TEXT_START + 0xabc; /* stale unless set */
}

static void release(struct table_test *t)
{
	fake_cfi_free(&t->cfi);
	fake_stack_free(&t->stack);
}

static uintptr_t word(const struct table_test *t, size_t index)
{
	return fake_addr(&t->stack, index);
}

static void put(struct table_test *t, uintptr_t addr, uintptr_t value)
{
	fake_put(&t->stack, addr, value);
}

static size_t walk(struct table_test *t)
{
	return fake_walk_with(&t->stack, TRACER_TABLE);
}

static bool frame_is(const struct table_test *t, size_t i, uintptr_t pc, uintptr_t sp,
		     uintptr_t fp)
{
	const struct tracer_frame *frame = &t->stack.frames[i];

	return frame->pc == pc && frame->sp == sp && frame->fp == fp &&
	       frame->is_return_address == (i > 0) && frame->found_by == TRACER_TABLE &&
	       !frame->found_by_fallback;
}

/*
 * Hand-derived (base counts as two words on rv32 too): count 2, block_count
 * 1, rule_count 2, base 0x80200000 (words 0x80200000, 0), rows 0x0000 (at
 * 0, RULE_D) and 0x4001 (at 0x10: 8 << 11, no CFI), lookup {0, 2}, rules
 * {RULE_D, RULE_NONE}: the words 2, 1, 2, 0x80200000, 0, 0, 0x4001, 0, 2,
 * 0x27eff5, 0 give 0x2eafa07a (computed apart, in Python). Empty, base 0:
 * five zero words, a = 1, b = 5: 0x00010005.
 */
void unwind_table_checksum_by_hand(void)
{
	static const uint16_t rows[2] = {0x0000, 0x4001};
	static const uint32_t lookup[2] = {0, 2};
	static const uint32_t rules[2] = {RULE_D, RULE_NONE};
	struct tracer_unwind_table table;
	struct tracer_config config = {.unwind_table = &table};

	fake_unwind_table_fill(&table, 0x80200000u, rows, 2, lookup, 1, rules, 2);
	CHECK(table.checksum == 0x2eafa07au);
	fake_tables_anywhere(&config);
	CHECK(tracer_unwind_table_check(&config) == TRACER_TABLE_OK);
	fake_unwind_table_fill(&table, 0, NULL, 0, NULL, 0, NULL, 0);
	CHECK(table.checksum == 0x00010005u);
	CHECK(tracer_unwind_table_check(&config) == TRACER_TABLE_OK);
}

/*
 * A at +0x10: CFA = sp + 32 = word 100 + 32 bytes, ra below it; s0 (word
 * 120) unchanged. B at +0x20: CFA = s0 = word 120, ra and s0 (0) below it.
 * C at +0x30: CFA = sp + 16, the top; ra undefined: outermost.
 */
void unwind_table_walk_rows(void)
{
	struct table_test t;
	uintptr_t a_cfa;

	build(&t);
	a_cfa = word(&t, 100) + 32;
	put(&t, a_cfa - WORD, BASE + B + 0x20);
	put(&t, word(&t, 120) - WORD, BASE + C + 0x30);
	put(&t, word(&t, 120) - 2 * WORD, 0);
	t.stack.range.end = word(&t, 120) + 16;
	t.stack.regs.pc = BASE + A + 0x10;
	t.stack.regs.sp = word(&t, 100);
	t.stack.regs.s[0] = word(&t, 120);
	CHECK(walk(&t) == 3);
	CHECK(t.stack.stop == TRACER_STOP_OUTERMOST);
	CHECK(frame_is(&t, 0, BASE + A + 0x10, word(&t, 100), word(&t, 120)));
	CHECK(frame_is(&t, 1, BASE + B + 0x20, a_cfa, word(&t, 120)));
	CHECK(frame_is(&t, 2, BASE + C + 0x30, word(&t, 120), 0));
	/* The outermost claim below the top is false. */
	t.stack.range.end += 16;
	CHECK(walk(&t) == 3 && t.stack.stop == TRACER_STOP_EARLY_OUTERMOST);
	release(&t);
}

/* A leaf: its caller is the live ra, its CFA the sp, s0 untouched. Then D
 * (CFA = sp + 16, ra and s0 saved below) and C, outermost. */
void unwind_table_walk_leaf(void)
{
	struct table_test t;
	uintptr_t d_cfa;

	build(&t);
	d_cfa = word(&t, 100) + 16;
	put(&t, d_cfa - WORD, BASE + C + 0x10);
	put(&t, d_cfa - 2 * WORD, 0x5050);
	t.stack.range.end = d_cfa + 16;
	t.stack.regs.pc = BASE + LEAF;
	t.stack.regs.ra = BASE + D + 0x10;
	t.stack.regs.sp = word(&t, 100);
	t.stack.regs.s[0] = 0x4040;
	CHECK(walk(&t) == 3);
	CHECK(t.stack.stop == TRACER_STOP_OUTERMOST);
	CHECK(frame_is(&t, 1, BASE + D + 0x10, word(&t, 100), 0x4040));
	CHECK(frame_is(&t, 2, BASE + C + 0x10, d_cfa, 0x5050));
	/* In a caller's frame, a leaf row (CFA = sp) would be no progress. */
	t.stack.regs.pc = BASE + A;
	t.stack.regs.ra = 0;
	put(&t, word(&t, 100) + 32 - WORD, BASE + LEAF + 0x10);
	CHECK(walk(&t) == 2 && t.stack.stop == TRACER_STOP_NOT_ASCENDING);
	release(&t);
}

/*
 * Rows across block boundaries, each with its own CFA = sp + 16k and ra in
 * its register (k << 21 | 1: 16k bytes are 4k units at bit 19), so the sp
 * of the second frame tells which row the lookup found.
 */
void unwind_table_lookup_edges(void)
{
	static const uint32_t rules[7] = {0x00200001u, 0x00400001u, 0x00600001u, 0x00800001u,
					  0x00a00001u, RULE_NONE,   0x00c00001u};
	/* Rows at 0x000 (block 0), 0x0fe (block 3, offset 0x3e: 0x1f << 11),
	 * 0x100 (block 4), 0x102 (block 4, offset 2: 1 << 11), 0x300 (block
	 * 12), 0x3fe (block 15, offset 0x3e, no CFI), 0x500 (block 20), 0x520
	 * (block 20, offset 0x20: 0x10 << 11, no CFI). */
	static const uint16_t rows[8] = {0x0000, 0xf801, 0x0002, 0x0803,
					 0x0004, 0xf805, 0x0006, 0x8005};
	/* 21 blocks: no row starts in blocks 1-2, 5-11, 13-14, 16-19. */
	static const uint32_t lookup[22] = {0, 1, 1, 1, 2, 4, 4, 4, 4, 4, 4,
					    4, 4, 5, 5, 5, 6, 6, 6, 6, 6, 8};
	static const struct {
		intptr_t offset; /* pc - base */
		uintptr_t cfa;	 /* bytes above sp; 0: no CFI */
	} cases[] = {
	    {-2, 0},	 {0x000, 16}, {0x0fc, 16}, {0x0fe, 32}, {0x100, 48},
	    {0x102, 64}, {0x1fe, 64}, {0x200, 64}, {0x2fe, 64}, {0x300, 80},
	    {0x3fc, 80}, {0x3fe, 0},  {0x4fe, 0},  {0x500, 96}, {0x51e, 96},
	    {0x520, 0},	 {0x5fe, 0},  {0x600, 0},  {0xe000, 0},
	};
	struct table_test t;

	build(&t);
	fake_unwind_table_fill(&t.table, BASE, rows, 8, lookup, 21, rules, 7);
	CHECK(tracer_unwind_table_check(&t.stack.config) == TRACER_TABLE_OK);
	t.stack.config.fde_index = NULL;
	t.stack.config.max_depth = 2;
	t.stack.regs.ra = BASE + 0x10;
	t.stack.regs.sp = word(&t, 100);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		t.stack.regs.pc = BASE + (uintptr_t)cases[i].offset;
		if (cases[i].cfa == 0) {
			CHECK(walk(&t) == 1 && t.stack.stop == TRACER_STOP_NO_CFI);
			continue;
		}
		CHECK(walk(&t) == 2);
		CHECK(t.stack.frames[1].sp == word(&t, 100) + cases[i].cfa);
	}
	release(&t);
}

/* A row the table could not express (CFA = s1): the DWARF unwinder computes
 * the frame from the FDE. Without an FDE index, DWARF finds no CFI. */
void unwind_table_interpret_row(void)
{
	struct table_test t;

	build(&t);
	put(&t, word(&t, 130) - WORD, BASE + C + 0x10);
	t.stack.range.end = word(&t, 130) + 16;
	t.stack.regs.pc = BASE + INTERPRETED + 0x8;
	t.stack.regs.sp = word(&t, 100);
	t.stack.regs.s[1] = word(&t, 130);
	CHECK(walk(&t) == 2);
	CHECK(t.stack.stop == TRACER_STOP_OUTERMOST);
	CHECK(frame_is(&t, 1, BASE + C + 0x10, word(&t, 130), 0));
	t.stack.config.fde_index = NULL;
	CHECK(walk(&t) == 1 && t.stack.stop == TRACER_STOP_NO_CFI);
	release(&t);
}

/* Before the first row, in a gap, after the last: no CFI; so without a
 * table. */
void unwind_table_no_cfi(void)
{
	static const uintptr_t pcs[] = {0x800, 0x1000 + GAP, 0x1000 + GAP + 0x7e,
					0x1000 + END, 0x1000 + END + 0x1000};
	struct table_test t;

	build(&t);
	t.stack.regs.sp = word(&t, 100);
	for (size_t i = 0; i < sizeof(pcs) / sizeof(pcs[0]); i++) {
		t.stack.regs.pc = FAKE_TEXT_START + pcs[i];
		CHECK(walk(&t) == 1 && t.stack.stop == TRACER_STOP_NO_CFI);
	}
	t.stack.regs.pc = BASE + A;
	t.stack.config.unwind_table = NULL;
	CHECK(walk(&t) == 1 && t.stack.stop == TRACER_STOP_NO_CFI);
	release(&t);
}

/* Every read stays on the stack: a CFA past its top, a saved register
 * below its start, a CFA below sp. */
void unwind_table_stack_bounds(void)
{
	struct table_test t;

	build(&t);
	t.stack.regs.pc = BASE + A;
	t.stack.regs.sp = word(&t, 100);
	t.stack.range.end = word(&t, 100) + 16; /* CFA = sp + 32 is above */
	CHECK(walk(&t) == 1 && t.stack.stop == TRACER_STOP_OUTSIDE_STACK);
	t.stack.range.end = word(&t, FAKE_STACK_WORDS);
	/* B: CFA = s0 = one word above the start: s0's slot is below it. */
	t.stack.regs.pc = BASE + B;
	t.stack.regs.sp = word(&t, 0);
	t.stack.regs.s[0] = word(&t, 1);
	put(&t, word(&t, 0), BASE + A + 0x10);
	CHECK(walk(&t) == 1 && t.stack.stop == TRACER_STOP_OUTSIDE_STACK);
	/* The stack starts at the CFA: no frame can be there. */
	t.stack.regs.s[0] = word(&t, 0);
	CHECK(walk(&t) == 1 && t.stack.stop == TRACER_STOP_OUTSIDE_STACK);
	/* s0 below sp: the CFA would go down. */
	t.stack.regs.sp = word(&t, 50);
	t.stack.regs.s[0] = word(&t, 40);
	CHECK(walk(&t) == 1 && t.stack.stop == TRACER_STOP_NOT_ASCENDING);
	release(&t);
}

/* Checks that fail, each on an otherwise valid table. */
static enum tracer_table_status check(struct table_test *t)
{
	return tracer_unwind_table_check(&t->stack.config);
}

void unwind_table_rejected(void)
{
	struct table_test t;
	struct tracer_walk walk_state;
	char line[TRACER_LINE_MAX];

	build(&t);
	CHECK(check(&t) == TRACER_TABLE_OK);
	/* The header. */
	t.table.magic ^= 1;
	CHECK(check(&t) == TRACER_TABLE_MALFORMED);
	fill_table(&t);
	t.table.version = 1;
	CHECK(check(&t) == TRACER_TABLE_MALFORMED);
	fill_table(&t);
	t.table.word_size = 12 - sizeof(uintptr_t);
	CHECK(check(&t) == TRACER_TABLE_MALFORMED);
	/* Contents changed: a rule, a row, the base, a lookup entry, the
	 * count. */
	fill_table(&t);
	t.rules[3] = RULE_D;
	CHECK(check(&t) == TRACER_TABLE_BAD_CHECKSUM);
	t.rules[3] = RULE_LEAF;
	t.rows[3] = 6;
	CHECK(check(&t) == TRACER_TABLE_BAD_CHECKSUM);
	t.rows[3] = 3;
	t.table.base += 2;
	CHECK(check(&t) == TRACER_TABLE_BAD_CHECKSUM);
	t.table.base -= 2;
	t.lookup[19] = 7;
	CHECK(check(&t) == TRACER_TABLE_BAD_CHECKSUM);
	t.lookup[19] = 8;
	t.table.count = 7;
	CHECK(check(&t) == TRACER_TABLE_BAD_CHECKSUM);
	/* Outside the declared memory: the descriptor, each array. */
	fill_table(&t);
	CHECK(check(&t) == TRACER_TABLE_OK);
	t.stack.config.tables.start = (uintptr_t)&t.table;
	t.stack.config.tables.end = (uintptr_t)(&t.table + 1);
	CHECK(check(&t) == TRACER_TABLE_OUTSIDE);
	t.stack.config.tables.start = (uintptr_t)t.rows;
	t.stack.config.tables.end = (uintptr_t)(&t.table + 1);
	CHECK(check(&t) == TRACER_TABLE_OK);
	t.table.lookup = (const uint32_t *)t.stack.words;
	CHECK(check(&t) == TRACER_TABLE_OUTSIDE);
	t.table.lookup = t.lookup;
	t.table.rules = (const uint32_t *)t.stack.words;
	CHECK(check(&t) == TRACER_TABLE_OUTSIDE);
	t.table.rules = t.rules;
	t.table.rows = (const uint16_t *)t.stack.words;
	CHECK(check(&t) == TRACER_TABLE_OUTSIDE);
	t.table.rows = t.rows;
	t.stack.config.tables.start = (uintptr_t)&t.rows[1];
	CHECK(check(&t) == TRACER_TABLE_OUTSIDE);
	fake_tables_anywhere(&t.stack.config);
	t.table.rows = (const uint16_t *)((uintptr_t)t.rows + 1);
	CHECK(check(&t) == TRACER_TABLE_OUTSIDE); /* misaligned */
	/* A count that reaches past the declared end. */
	t.table.count = 0x40000000u;
	t.table.rows = t.rows;
	t.stack.config.tables.start = (uintptr_t)t.rows;
	t.stack.config.tables.end = (uintptr_t)(&t.table + 1);
	CHECK(check(&t) == TRACER_TABLE_OUTSIDE);
	fake_tables_anywhere(&t.stack.config);

	/* Checksums right, contents crafted. Rules: ra's value 3; an offset
	 * a rule does not use; bits beside an interpret or no-CFI kind. */
	static const uint32_t bad_rules[] = {0x0000000du, 0x00000fe1u, 0x0007e001u,
					     0x00200003u, 0x00000004u};
	for (size_t i = 0; i < sizeof(bad_rules) / sizeof(bad_rules[0]); i++) {
		t.rules[3] = bad_rules[i];
		fill_table(&t);
		CHECK(check(&t) == TRACER_TABLE_MALFORMED);
	}
	t.rules[3] = RULE_LEAF;
	/* Rows: a rule index past the rules; the last row covering code; the
	 * first starting past the base. */
	static const struct {
		size_t index;
		uint16_t value;
	} bad_rows[] = {{3, 7}, {7, 3}, {0, 0x0800}};
	for (size_t i = 0; i < sizeof(bad_rows) / sizeof(bad_rows[0]); i++) {
		uint16_t saved = t.rows[bad_rows[i].index];

		t.rows[bad_rows[i].index] = bad_rows[i].value;
		fill_table(&t);
		CHECK(check(&t) == TRACER_TABLE_MALFORMED);
		t.rows[bad_rows[i].index] = saved;
	}
	/* Lookup entries: decreasing; rows 1 and 2 (both at offset 0) in one
	 * block, unsorted; the first not 0; the first block empty; the last
	 * not the count. */
	static const struct {
		size_t first;
		size_t last;
		uint32_t value;
	} bad_lookups[] = {{4, 4, 0}, {5, 8, 3}, {0, 0, 1}, {1, 1, 0}, {19, 19, 7}};
	for (size_t i = 0; i < sizeof(bad_lookups) / sizeof(bad_lookups[0]); i++) {
		uint32_t saved[20];

		memcpy(saved, t.lookup, sizeof(saved));
		for (size_t j = bad_lookups[i].first; j <= bad_lookups[i].last; j++)
			t.lookup[j] = bad_lookups[i].value;
		fill_table(&t);
		CHECK(check(&t) == TRACER_TABLE_MALFORMED);
		memcpy(t.lookup, saved, sizeof(saved));
	}
	/* The last block empty (END moved into block 17); too many rules;
	 * rows without blocks; blocks or rules without rows. */
	t.lookup[18] = 8;
	fill_table(&t);
	CHECK(check(&t) == TRACER_TABLE_MALFORMED);
	t.lookup[18] = 7;
	static uint32_t many_rules[TRACER_UNWIND_MAX_RULES + 1];
	for (size_t i = 0; i <= TRACER_UNWIND_MAX_RULES; i++)
		many_rules[i] = i < 7 ? t.rules[i] : RULE_LEAF;
	fake_unwind_table_fill(&t.table, BASE, t.rows, 8, t.lookup, 19, many_rules,
			       TRACER_UNWIND_MAX_RULES + 1);
	CHECK(check(&t) == TRACER_TABLE_MALFORMED);
	fake_unwind_table_fill(&t.table, BASE, t.rows, 8, t.lookup, 19, many_rules,
			       TRACER_UNWIND_MAX_RULES);
	CHECK(check(&t) == TRACER_TABLE_OK);
	fake_unwind_table_fill(&t.table, BASE, t.rows, 8, t.lookup, 0, t.rules, 7);
	CHECK(check(&t) == TRACER_TABLE_MALFORMED);
	fake_unwind_table_fill(&t.table, BASE, t.rows, 0, t.lookup, 1, t.rules, 0);
	CHECK(check(&t) == TRACER_TABLE_MALFORMED);
	fake_unwind_table_fill(&t.table, BASE, t.rows, 0, t.lookup, 0, t.rules, 7);
	CHECK(check(&t) == TRACER_TABLE_MALFORMED);
	fake_unwind_table_fill(&t.table, BASE, t.rows, 0, t.lookup, 0, t.rules, 0);
	CHECK(check(&t) == TRACER_TABLE_OK);

	/* A walk with a rejected table: tracer=table stops, the note says
	 * why; auto goes on with DWARF. */
	fill_table(&t);
	t.table.checksum ^= 1;
	t.stack.regs.pc = BASE + INTERPRETED;
	t.stack.regs.sp = word(&t, 100);
	t.stack.regs.s[1] = word(&t, 130);
	put(&t, word(&t, 130) - WORD, BASE + C + 0x10);
	t.stack.range.end = word(&t, 130);
	CHECK(walk(&t) == 1 && t.stack.stop == TRACER_STOP_BAD_UNWIND_TABLE);
	tracer_start(&walk_state, TRACER_TABLE, &t.stack.config, &t.stack.regs);
	CHECK(walk_state.unwind_table_status == TRACER_TABLE_BAD_CHECKSUM);
	CHECK(strcmp(tracer_format_note(line, sizeof(line), &walk_state),
		     "Note: unwind table rejected (checksum mismatch): no table unwinding") ==
	      0);
	CHECK(strcmp(tracer_stop_text(TRACER_STOP_BAD_UNWIND_TABLE),
		     "unwind table rejected") == 0);
	CHECK(fake_walk_with(&t.stack, TRACER_AUTO) == 2);
	CHECK(t.stack.frames[1].found_by == TRACER_DWARF &&
	      !t.stack.frames[1].found_by_fallback);
	/* C has no FDE: the frame pointer ends the walk, s0 = 0 at the top. */
	CHECK(t.stack.stop == TRACER_STOP_OUTERMOST);
	release(&t);
}

/* auto: the table where it has a row (unmarked), else DWARF, the prologue
 * decoder, the frame pointer (marked). */
void unwind_table_auto_order(void)
{
	struct table_test t;
	char line[TRACER_LINE_MAX];
	uintptr_t a_cfa;

	build(&t);
	/* A (table) -> a pc in the gap, s0 a frame record (frame pointer)
	 * -> C, outermost by the table. */
	a_cfa = word(&t, 100) + 32;
	put(&t, a_cfa - WORD, BASE + GAP + 0x10);
	t.stack.regs.pc = BASE + A;
	t.stack.regs.sp = word(&t, 100);
	t.stack.regs.s[0] = word(&t, 120);
	fake_record(&t.stack, word(&t, 120), word(&t, 140), BASE + C + 0x10);
	t.stack.range.end = word(&t, 120) + 16;
	CHECK(fake_walk_with(&t.stack, TRACER_AUTO) == 3);
	CHECK(t.stack.stop == TRACER_STOP_OUTERMOST);
	CHECK(t.stack.frames[1].found_by == TRACER_TABLE);
	CHECK(!t.stack.frames[1].found_by_fallback);
	CHECK(t.stack.frames[2].found_by == TRACER_FRAME_POINTER);
	tracer_format_frame(line, sizeof(line), &t.stack.frames[1]);
	CHECK(strchr(line, '(') == NULL);
	tracer_format_frame(line, sizeof(line), &t.stack.frames[2]);
	CHECK(strstr(line, " (frame-pointer)") != NULL);
	/* The interpreted row: DWARF's, unmarked. */
	t.stack.regs.pc = BASE + INTERPRETED;
	t.stack.regs.s[1] = word(&t, 130);
	put(&t, word(&t, 130) - WORD, BASE + C + 0x10);
	t.stack.range.end = word(&t, 130) + 16;
	CHECK(fake_walk_with(&t.stack, TRACER_AUTO) == 2);
	CHECK(t.stack.stop == TRACER_STOP_OUTERMOST);
	CHECK(t.stack.frames[1].found_by == TRACER_DWARF);
	CHECK(!t.stack.frames[1].found_by_fallback);
	CHECK(t.stack.frames[1].sp == word(&t, 130));
	CHECK(strcmp(tracer_unwinder_name(TRACER_TABLE), "table") == 0);
	release(&t);
}

static bool frames_equal(const struct tracer_frame *a, const struct tracer_frame *b)
{
	return a->pc == b->pc && a->sp == b->sp && a->fp == b->fp &&
	       a->is_return_address == b->is_return_address &&
	       a->after_trap == b->after_trap && a->trap_cause == b->trap_cause &&
	       a->trap_tval == b->trap_tval && a->name == b->name &&
	       a->offset == b->offset && a->size == b->size &&
	       a->found_by == b->found_by && a->found_by_fallback == b->found_by_fallback;
}

/*
 * The iterator takes the table capture's step for a caller's frame whose row
 * is sp- or s0-based with ra saved and whose return address follows `jal
 * ra`; any other frame takes the general step. Both give the same frames:
 * A (exact; CFA = sp + 32) -> B + 0x20 (CFA = s0, word 120; ra, s0 = word
 * 130 below it) -> D + 0x10 (CFA = sp + 16; ra, s0 = 0 below it) -> C +
 * 0x30 (CFA = sp + 16, the top: outermost), the calls before B, D and C
 * first c.jalr (the fake text's), then jal ra (the common step's).
 */
void unwind_table_walk_common_step(void)
{
	static const enum tracer_unwinder unwinders[2] = {TRACER_TABLE, TRACER_AUTO};
	struct tracer_frame general[4];
	struct table_test t;
	uintptr_t a_cfa;
	uintptr_t d_cfa;

	build(&t);
	a_cfa = word(&t, 100) + 32;
	d_cfa = word(&t, 120) + 16;
	put(&t, a_cfa - WORD, BASE + B + 0x20);
	put(&t, word(&t, 120) - WORD, BASE + D + 0x10);
	put(&t, word(&t, 120) - 2 * WORD, word(&t, 130));
	put(&t, d_cfa - WORD, BASE + C + 0x30);
	put(&t, d_cfa - 2 * WORD, 0);
	t.stack.range.end = d_cfa + 16;
	t.stack.regs.pc = BASE + A + 0x10;
	t.stack.regs.sp = word(&t, 100);
	t.stack.regs.s[0] = word(&t, 120);
	for (size_t u = 0; u < 2; u++) {
		for (uintptr_t at = 0x1c; at < 0x20; at += 2) {
			fake_text_put16(&t.stack, BASE + B + at, FAKE_CALL_PARCEL);
			fake_text_put16(&t.stack, BASE + D + at - 0x10, FAKE_CALL_PARCEL);
			fake_text_put16(&t.stack, BASE + C + at + 0x10, FAKE_CALL_PARCEL);
		}
		CHECK(fake_walk_with(&t.stack, unwinders[u]) == 4);
		CHECK(t.stack.stop == TRACER_STOP_OUTERMOST);
		CHECK(t.stack.frames[0].found_by == unwinders[u]);
		CHECK(frame_is(&t, 1, BASE + B + 0x20, a_cfa, word(&t, 120)));
		CHECK(frame_is(&t, 2, BASE + D + 0x10, word(&t, 120), word(&t, 130)));
		CHECK(frame_is(&t, 3, BASE + C + 0x30, d_cfa, 0));
		memcpy(general, t.stack.frames, sizeof(general));
		fake_text_put32(&t.stack, BASE + B + 0x1c, 0x000000ef); /* jal ra, 0 */
		fake_text_put32(&t.stack, BASE + D + 0x0c, 0x000000ef);
		fake_text_put32(&t.stack, BASE + C + 0x2c, 0x000000ef);
		CHECK(fake_walk_with(&t.stack, unwinders[u]) == 4);
		CHECK(t.stack.stop == TRACER_STOP_OUTERMOST);
		for (size_t i = 0; i < 4; i++)
			CHECK(frames_equal(&t.stack.frames[i], &general[i]));
	}
	release(&t);
}

/*
 * Entry points (config.entry_points) end table walks too, in the capture's
 * loop (table_run) as in the iterator: walk_rows's frames A+0x10 <- B+0x20
 * <- C+0x30, the calls `jal ra` (0x000000ef), which the loop takes. With B
 * an entry point, B's frame is the last.
 */
void unwind_table_entry_point(void)
{
	struct table_test t;
	struct tracer_range entry = {0, 0};

	build(&t);
	fake_text_put32(&t.stack, BASE + B + 0x1c, 0x000000efu);
	fake_text_put32(&t.stack, BASE + C + 0x2c, 0x000000efu);
	put(&t, word(&t, 100) + 32 - WORD, BASE + B + 0x20);
	put(&t, word(&t, 120) - WORD, BASE + C + 0x30);
	put(&t, word(&t, 120) - 2 * WORD, 0);
	t.stack.range.end = word(&t, 120) + 16;
	t.stack.regs.pc = BASE + A + 0x10;
	t.stack.regs.sp = word(&t, 100);
	t.stack.regs.s[0] = word(&t, 120);
	t.stack.config.entry_points = &entry;
	t.stack.config.entry_point_count = 1;
	CHECK(walk(&t) == 3 && t.stack.stop == TRACER_STOP_OUTERMOST);
	entry = (struct tracer_range){BASE + B, BASE + C};
	CHECK(walk(&t) == 2 && t.stack.stop == TRACER_STOP_USER_ENTRY);
	CHECK(frame_is(&t, 1, BASE + B + 0x20, word(&t, 100) + 32, word(&t, 120)));
	CHECK(fake_walk_with(&t.stack, TRACER_AUTO) == 2);
	CHECK(t.stack.stop == TRACER_STOP_USER_ENTRY);
	release(&t);
}

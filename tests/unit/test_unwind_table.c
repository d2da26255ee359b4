/*
 * test_unwind_table.c - the table unwinder over hand-built unwind tables.
 *
 * The rules, rows, maps and lookup entries are derived by hand from the
 * layout in docs/unwind-table-format.md, never with the encoder: a rule is
 * {cfa_offset, ra_offset, s0_offset, kind}, offsets in bytes, kind bit 0
 * the CFA on s0, bit 1 s0 unchanged, bits 2-3 ra (0 saved, 4 in its
 * register, 8 undefined), 16 no CFI, 17 interpret; a row is its rule's
 * byte offset in rules[] (index * 8); per 128-byte block a map, bit i set
 * where a row starts at offset 2i, and lookup[i], the rows that start in
 * blocks 0 to i.
 */
#include <stdlib.h>
#include <string.h>

#include "dwarf_codes.h"
#include "fake_cfi.h"
#include "fake_stack.h"
#include "fake_tables.h"
#include "harness.h"
#include "walk.h"

#define W ((int16_t)sizeof(uintptr_t))
/* CFA = sp + 32, ra saved at CFA - 1 word, s0 unchanged (kind 2); its
 * frame size 32 bytes (2 units), as symgen states a sp-based rule's. */
#define RULE_A                                                                           \
	{                                                                                \
		32, -W, 0, 2, 2                                                          \
	}
/* CFA = s0 + 0, ra saved at CFA - 1 word, s0 at CFA - 2 words (kind 1). */
#define RULE_B                                                                           \
	{                                                                                \
		0, -W, -2 * W, 1, 0                                                      \
	}
/* CFA = sp + 16, ra undefined, s0 unchanged (8 | 2). */
#define RULE_OUTERMOST                                                                   \
	{                                                                                \
		16, 0, 0, 10, 0                                                          \
	}
/* CFA = sp + 0, ra in its register, s0 unchanged (4 | 2): a leaf. */
#define RULE_LEAF                                                                        \
	{                                                                                \
		0, 0, 0, 6, 0                                                            \
	}
#define RULE_INTERPRET                                                                   \
	{                                                                                \
		0, 0, 0, 17, 0                                                           \
	}
#define RULE_NONE                                                                        \
	{                                                                                \
		0, 0, 0, 16, 0                                                           \
	}
/* CFA = sp + 16, ra at CFA - 1 word, s0 at CFA - 2 words (kind 0); its
 * frame size 16 bytes. */
#define RULE_D                                                                           \
	{                                                                                \
		16, -W, -2 * W, 0, 1                                                     \
	}

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
	/* Word-aligned, as symgen writes them (the hash reads words). */
	_Alignas(8) uint16_t rows[8];
	uint64_t maps[10];
	_Alignas(8) uint16_t lookup[10];
	_Alignas(8) struct tracer_unwind_rule rules[7];
	uint32_t hashes[5]; /* a block of rows, 2 of maps, one of lookup and rules */
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
	t->entry =
	    (struct tracer_fde_entry){BASE + INTERPRETED, fake_cfi_addr(&t->cfi, fde)};
	fake_fde_index_fill(&t->index, &t->entry, 1, t->stack.config.eh_frame);
	t->stack.config.fde_index = &t->index;
}

/* 10 blocks of 128 bytes from BASE (END is in block 9). */
static void fill_table(struct table_test *t)
{
	fake_hashes_at(t->hashes);
	fake_unwind_table_fill(&t->table, BASE, t->rows, 8, t->maps, t->lookup, 10,
			       t->rules, 7);
}

static void build(struct table_test *t)
{
	static const struct tracer_unwind_rule rules[7] = {
	    RULE_A, RULE_B, RULE_OUTERMOST, RULE_LEAF, RULE_INTERPRET, RULE_NONE, RULE_D};
	/* A, B, C, LEAF, INTERPRETED, GAP, D, END (no CFI: rule 5, 40). */
	static const uint16_t rows[8] = {0, 8, 16, 24, 32, 40, 48, 40};
	/* A in block 0, B in 2, C in 4, LEAF (offset 0) and INTERPRETED
	 * (offset 0x40: bit 32) in 6, GAP in 7, D in 8, END in 9. */
	static const uint64_t maps[10] = {1, 0, 1, 0, 1, 0, 0x100000001u, 1, 1, 1};
	static const uint16_t lookup[10] = {1, 1, 2, 2, 3, 3, 5, 6, 7, 8};

	fake_stack_init(&t->stack);
	build_cfi(t);
	memcpy(t->rows, rows, sizeof(rows));
	memcpy(t->maps, maps, sizeof(maps));
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
 * The header's checksum (table_hash.h, kind 7), from the words count 2,
 * block_count 1, rule_count 2, base 0x80200000 (words 0x80200000, 0: two
 * on rv32 too): 0xc4b0f61b; empty, base 0, five zero words: 0x994f2841
 * (computed apart, in Python, from the formula).
 */
void unwind_table_checksum_by_hand(void)
{
	static const uint16_t rows[2] = {0, 8};
	static const uint64_t maps[1] = {0x101};
	static const uint16_t lookup[1] = {2};
	static const struct tracer_unwind_rule rules[2] = {{16, -8, -16, 0, 0},
							   RULE_NONE};
	struct tracer_unwind_table table;
	struct tracer_config config = {.unwind_table = &table};

	fake_unwind_table_fill(&table, 0x80200000u, rows, 2, maps, lookup, 1, rules, 2);
	CHECK(table.checksum == 0xc4b0f61bu);
	fake_tables_anywhere(&config);
	CHECK(tracer_unwind_table_check(&config) == TRACER_TABLE_OK);
	fake_unwind_table_fill(&table, 0, NULL, 0, NULL, NULL, 0, NULL, 0);
	CHECK(table.checksum == 0x994f2841u);
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
 * its register (kind 6), so the sp of the second frame tells which row the
 * lookup found.
 */
void unwind_table_lookup_edges(void)
{
	static const struct tracer_unwind_rule rules[7] = {
	    {16, 0, 0, 6, 0}, {32, 0, 0, 6, 0}, {48, 0, 0, 6, 0}, {64, 0, 0, 6, 0},
	    {80, 0, 0, 6, 0}, RULE_NONE,	{96, 0, 0, 6, 0}};
	/* Rows at 0x000 (block 0, bit 0), 0x07e (block 0, offset 0x7e: bit
	 * 63), 0x080 (block 1, bit 0), 0x082 (block 1, bit 1), 0x300 (block
	 * 6), 0x3fe (block 7, bit 63, no CFI), 0x500 (block 10), 0x520 (block
	 * 10, offset 0x20: bit 16, no CFI). */
	static const uint16_t rows[8] = {0, 8, 16, 24, 32, 40, 48, 40};
	static const uint64_t maps[11] = {0x8000000000000001u, 3, 0, 0,	     0, 0, 1,
					  0x8000000000000000u, 0, 0, 0x10001};
	/* 11 blocks: no row starts in blocks 2-5, 8-9. */
	static const uint16_t lookup[11] = {2, 4, 4, 4, 4, 4, 5, 6, 6, 6, 8};
	static const struct {
		intptr_t offset; /* pc - base */
		uintptr_t cfa;	 /* bytes above sp; 0: no CFI */
	} cases[] = {
	    {-2, 0},	 {0x000, 16}, {0x07c, 16}, {0x07e, 32}, {0x080, 48},
	    {0x082, 64}, {0x0fe, 64}, {0x100, 64}, {0x2fe, 64}, {0x300, 80},
	    {0x3fc, 80}, {0x3fe, 0},  {0x4fe, 0},  {0x500, 96}, {0x51e, 96},
	    {0x520, 0},	 {0x57e, 0},  {0x580, 0},  {0xe000, 0},
	};
	struct table_test t;

	build(&t);
	fake_unwind_table_fill(&t.table, BASE, rows, 8, maps, lookup, 11, rules, 7);
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
	/* Contents changed: a rule, a row, the base, a map, a lookup entry,
	 * the count. */
	fill_table(&t);
	t.rules[3] = (struct tracer_unwind_rule)RULE_D;
	CHECK(check(&t) == TRACER_TABLE_BAD_CHECKSUM);
	t.rules[3] = (struct tracer_unwind_rule)RULE_LEAF;
	t.rows[3] = 48;
	CHECK(check(&t) == TRACER_TABLE_BAD_CHECKSUM);
	t.rows[3] = 24;
	t.table.base += 2;
	CHECK(check(&t) == TRACER_TABLE_BAD_CHECKSUM);
	t.table.base -= 2;
	t.maps[5] = 2;
	CHECK(check(&t) == TRACER_TABLE_BAD_CHECKSUM);
	t.maps[5] = 0;
	t.lookup[9] = 7;
	CHECK(check(&t) == TRACER_TABLE_BAD_CHECKSUM);
	t.lookup[9] = 8;
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
	t.table.lookup = (const uint16_t *)t.stack.words;
	CHECK(check(&t) == TRACER_TABLE_OUTSIDE);
	/* lookup[]'s entries are 2 bytes, and every array is word-aligned
	 * (the hash reads words): its 10 entries 24 bytes before the declared
	 * end are inside (other bytes there: the hash fails); at 20, 22, 18,
	 * or odd, they are not. */
	const char *end = (const char *)(&t.table + 1);
	t.table.lookup = (const uint16_t *)(const void *)(end - 24);
	CHECK(check(&t) == TRACER_TABLE_BAD_CHECKSUM);
	t.table.lookup = (const uint16_t *)(const void *)(end - 20);
	CHECK(check(&t) == TRACER_TABLE_OUTSIDE);
	t.table.lookup = (const uint16_t *)(const void *)(end - 22);
	CHECK(check(&t) == TRACER_TABLE_OUTSIDE);
	t.table.lookup = (const uint16_t *)(const void *)(end - 18);
	CHECK(check(&t) == TRACER_TABLE_OUTSIDE);
	t.table.lookup = (const uint16_t *)(const void *)(end - 21);
	CHECK(check(&t) == TRACER_TABLE_OUTSIDE);
	t.table.lookup = t.lookup;
	t.table.maps = (const uint64_t *)t.stack.words;
	CHECK(check(&t) == TRACER_TABLE_OUTSIDE);
	t.table.maps = t.maps;
	t.table.rules = (const struct tracer_unwind_rule *)t.stack.words;
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
	t.table.rows = t.rows;
	t.table.maps = (const uint64_t *)((uintptr_t)t.maps + 4);
	CHECK(check(&t) == TRACER_TABLE_OUTSIDE); /* misaligned */
	t.table.maps = t.maps;
	/* A count that reaches past the declared end. */
	t.table.count = 0x40000000u;
	t.stack.config.tables.start = (uintptr_t)t.rows;
	t.stack.config.tables.end = (uintptr_t)(&t.table + 1);
	CHECK(check(&t) == TRACER_TABLE_OUTSIDE);
	fake_tables_anywhere(&t.stack.config);

	/* Checksums right, contents crafted. Rules: ra's field 3; an offset
	 * a rule does not use (ra, s0); an offset beside interpret; an
	 * unknown kind; s0 saved at offset 0; ra saved above the CFA, off the
	 * word grid, below sp in a sp-based frame; a sp-based CFA off the word
	 * grid. */
	static const struct tracer_unwind_rule bad_rules[] = {
	    {0, 0, 0, 14, 0},	{0, -W, 0, 6, 0},    {0, 0, -W, 6, 0}, {16, 0, 0, 17, 0},
	    {0, 0, 0, 18, 0},	{16, -W, 0, 0, 0},   {16, W, 0, 2, 0}, {16, -3, 0, 2, 0},
	    {16, -32, 0, 2, 0}, {W + 2, -W, 0, 2, 0}};
	for (size_t i = 0; i < sizeof(bad_rules) / sizeof(bad_rules[0]); i++) {
		t.rules[3] = bad_rules[i];
		fill_table(&t);
		CHECK(check(&t) == TRACER_TABLE_MALFORMED);
	}
	/* Below the CFA, a s0-based frame's slots may be anywhere, unless
	 * its rule states the frame's size (16 bytes here): then within it,
	 * the lowest at CFA - 16. */
	t.rules[3] = (struct tracer_unwind_rule){-64, -2 * W, -32 * W, 1, 0};
	fill_table(&t);
	CHECK(check(&t) == TRACER_TABLE_OK);
	t.rules[3] = (struct tracer_unwind_rule){0, -W, -16, 1, 1};
	fill_table(&t);
	CHECK(check(&t) == TRACER_TABLE_OK);
	t.rules[3] = (struct tracer_unwind_rule){0, -W, -16 - W, 1, 1};
	fill_table(&t);
	CHECK(check(&t) == TRACER_TABLE_MALFORMED);
	t.rules[3] = (struct tracer_unwind_rule){0, -16 - W, -W, 1, 1};
	fill_table(&t);
	CHECK(check(&t) == TRACER_TABLE_MALFORMED);
	/* A size only with ra saved (kind 7: CFA on s0, s0 unchanged, ra in
	 * its register), and a sp-based rule's is its CFA offset: 16 bytes,
	 * 1, not 2. */
	t.rules[3] = (struct tracer_unwind_rule){16, -W, 0, 2, 1};
	fill_table(&t);
	CHECK(check(&t) == TRACER_TABLE_OK);
	t.rules[3] = (struct tracer_unwind_rule){16, -W, 0, 2, 2};
	fill_table(&t);
	CHECK(check(&t) == TRACER_TABLE_MALFORMED);
	t.rules[3] = (struct tracer_unwind_rule){0, 0, 0, 7, 0};
	fill_table(&t);
	CHECK(check(&t) == TRACER_TABLE_OK);
	t.rules[3] = (struct tracer_unwind_rule){0, 0, 0, 7, 1};
	fill_table(&t);
	CHECK(check(&t) == TRACER_TABLE_MALFORMED);
	t.rules[3] = (struct tracer_unwind_rule)RULE_LEAF;
	/* Rows: a rule past the rules; between two rules; the last row
	 * covering code. */
	static const struct {
		size_t index;
		uint16_t value;
	} bad_rows[] = {{3, 56}, {3, 25}, {7, 24}};
	for (size_t i = 0; i < sizeof(bad_rows) / sizeof(bad_rows[0]); i++) {
		uint16_t saved = t.rows[bad_rows[i].index];

		t.rows[bad_rows[i].index] = bad_rows[i].value;
		fill_table(&t);
		CHECK(check(&t) == TRACER_TABLE_MALFORMED);
		t.rows[bad_rows[i].index] = saved;
	}
	/* Maps and lookup entries that disagree: a count one short; a row
	 * more in a map; the first row past the base (map 0 = 2); the last
	 * block empty, its row counted in the block before. */
	static const struct {
		size_t block;
		uint64_t map;
		uint16_t lookup;
	} bad_blocks[] = {{4, 1, 2}, {1, 1, 1}, {0, 2, 1}, {9, 0, 8}};
	for (size_t i = 0; i < sizeof(bad_blocks) / sizeof(bad_blocks[0]); i++) {
		size_t block = bad_blocks[i].block;
		uint64_t saved_map = t.maps[block];
		uint16_t saved_lookup = t.lookup[block];

		t.maps[block] = bad_blocks[i].map;
		t.lookup[block] = bad_blocks[i].lookup;
		if (block == 9) { /* END at 0x47e, the end of block 8 */
			t.maps[8] = 0x8000000000000001u;
			t.lookup[8] = 8;
		}
		fill_table(&t);
		CHECK(check(&t) == TRACER_TABLE_MALFORMED);
		t.maps[block] = saved_map;
		t.lookup[block] = saved_lookup;
		t.maps[8] = 1;
		t.lookup[8] = 7;
	}
	/* An odd base. */
	fake_unwind_table_fill(&t.table, BASE + 1, t.rows, 8, t.maps, t.lookup, 10,
			       t.rules, 7);
	CHECK(check(&t) == TRACER_TABLE_MALFORMED);
	/* Too many rules; rows without blocks; blocks or rules without rows. */
	static struct tracer_unwind_rule many_rules[TRACER_UNWIND_MAX_RULES + 1];
	for (size_t i = 0; i <= TRACER_UNWIND_MAX_RULES; i++)
		many_rules[i] = i < 7 ? t.rules[i] : (struct tracer_unwind_rule)RULE_LEAF;
	fake_unwind_table_fill(&t.table, BASE, t.rows, 8, t.maps, t.lookup, 10,
			       many_rules, TRACER_UNWIND_MAX_RULES + 1);
	CHECK(check(&t) == TRACER_TABLE_MALFORMED);
	fake_unwind_table_fill(&t.table, BASE, t.rows, 8, t.maps, t.lookup, 10,
			       many_rules, TRACER_UNWIND_MAX_RULES);
	CHECK(check(&t) == TRACER_TABLE_OK);
	fake_unwind_table_fill(&t.table, BASE, t.rows, 8, t.maps, t.lookup, 0, t.rules,
			       7);
	CHECK(check(&t) == TRACER_TABLE_MALFORMED);
	fake_unwind_table_fill(&t.table, BASE, t.rows, 0, t.maps, t.lookup, 1, t.rules,
			       0);
	CHECK(check(&t) == TRACER_TABLE_MALFORMED);
	fake_unwind_table_fill(&t.table, BASE, t.rows, 0, t.maps, t.lookup, 0, t.rules,
			       7);
	CHECK(check(&t) == TRACER_TABLE_MALFORMED);
	fake_unwind_table_fill(&t.table, BASE, t.rows, 0, t.maps, t.lookup, 0, t.rules,
			       0);
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
	CHECK(walk_of(&walk_state)->unwind_table_status == TRACER_TABLE_BAD_CHECKSUM);
	CHECK(
	    strcmp(
		tracer_format_note(line, sizeof(line), &walk_state),
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
	CHECK(strstr(line, ">] (frame-pointer)") != NULL);
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

/*
 * The capture loop (table_run) over return addresses that follow `jal ra`
 * (0x000000ef), as compiled code's do, each frame also walked by
 * table_step (fake_walk_with compares the capture with the walk): D
 * (sp-based, s0 saved) returns into B (s0-based), which returns to BASE +
 * 0x100, B's first byte: the call before it, at 0xff in block 1, is in A's
 * row (block 1 has none), not B's. A returns into C, outermost.
 */
void unwind_table_capture_loop(void)
{
	struct table_test t;
	uintptr_t d_cfa;
	uintptr_t b_cfa;

	build(&t);
	d_cfa = word(&t, 100) + 16;
	b_cfa = word(&t, 120);
	put(&t, d_cfa - WORD, BASE + B + 0x20);
	put(&t, d_cfa - 2 * WORD, b_cfa);
	put(&t, b_cfa - WORD, BASE + 0x100);
	put(&t, b_cfa - 2 * WORD, 0x5050);
	put(&t, b_cfa + 32 - WORD, BASE + C + 0x10);
	fake_text_put32(&t.stack, BASE + B + 0x20 - 4, 0x000000ef);
	fake_text_put32(&t.stack, BASE + 0x100 - 4, 0x000000ef);
	fake_text_put32(&t.stack, BASE + C + 0x10 - 4, 0x000000ef);
	t.stack.range.end = b_cfa + 32 + 16;
	t.stack.regs.pc = BASE + D + 0x10;
	t.stack.regs.sp = word(&t, 100);
	t.stack.regs.s[0] = 0x4040;
	CHECK(walk(&t) == 4);
	CHECK(t.stack.stop == TRACER_STOP_OUTERMOST);
	CHECK(frame_is(&t, 1, BASE + B + 0x20, d_cfa, b_cfa));
	CHECK(frame_is(&t, 2, BASE + 0x100, b_cfa, 0x5050));
	CHECK(frame_is(&t, 3, BASE + C + 0x10, b_cfa + 32, 0x5050));
	/* B's CFA a word above D's: its s0 slot is below sp, outside the
	 * frame, though inside the stack: no step reads it. */
	put(&t, d_cfa - 2 * WORD, d_cfa + WORD);
	put(&t, d_cfa, BASE + 0x100);
	put(&t, d_cfa + 32 + WORD - WORD, BASE + C + 0x10);
	t.stack.range.end = d_cfa + WORD + 32 + 16;
	CHECK(walk(&t) == 2);
	CHECK(frame_is(&t, 1, BASE + B + 0x20, d_cfa, d_cfa + WORD));
	CHECK(t.stack.stop == TRACER_STOP_OUTSIDE_STACK);
	/* B returns to D's first byte: the call before it is in the gap, no
	 * CFI, although D's row (sp + 16, ra below) would find a caller. */
	put(&t, d_cfa - 2 * WORD, b_cfa);
	put(&t, b_cfa - WORD, BASE + D);
	put(&t, b_cfa + 16 - WORD, BASE + C + 0x10);
	fake_text_put32(&t.stack, BASE + D - 4, 0x000000ef);
	t.stack.range.end = word(&t, 200);
	CHECK(walk(&t) == 3);
	CHECK(t.stack.stop == TRACER_STOP_NO_CFI);
	CHECK(frame_is(&t, 2, BASE + D, b_cfa, 0x5050));
	/* A returns into D, whose CFA (sp + 16) lies above the top: the walk
	 * stops there, though D's slots hold a caller. */
	put(&t, word(&t, 100) + 32 - WORD, BASE + D + 0x10);
	fake_text_put32(&t.stack, BASE + D + 0x10 - 4, 0x000000ef);
	put(&t, word(&t, 100) + 48 - WORD, BASE + C + 0x10);
	t.stack.range.end = word(&t, 100) + 40;
	t.stack.regs.pc = BASE + A + 0x10;
	CHECK(walk(&t) == 2);
	CHECK(t.stack.stop == TRACER_STOP_OUTSIDE_STACK);
	CHECK(frame_is(&t, 1, BASE + D + 0x10, word(&t, 100) + 32, 0x4040));
	release(&t);
}

/*
 * A frame whose CFA is on s0 and whose ra is still in its register (kind 5:
 * a leaf with a frame pointer, as gcc -fno-omit-frame-pointer builds one,
 * interrupted): the rule's unused ra offset is 0 and names no slot; s0 is
 * read below the CFA. B's rule made so (rule 1, the table re-hashed): B +
 * 0x10, exact, sp word 100, s0 = CFA = word 102, the caller's s0 saved at
 * word 100; ra C + 0x10, whose CFA (sp + 16 bytes: word 104 on rv64) is the
 * top: outermost.
 */
void unwind_table_s0_leaf(void)
{
	struct table_test t;

	build(&t);
	t.rules[1] = (struct tracer_unwind_rule){0, 0, -2 * W, 5, 0};
	fill_table(&t);
	put(&t, word(&t, 100), 0x5050);
	t.stack.range.end = word(&t, 102) + 16;
	t.stack.regs.pc = BASE + B + 0x10;
	t.stack.regs.sp = word(&t, 100);
	t.stack.regs.s[0] = word(&t, 102);
	t.stack.regs.ra = BASE + C + 0x10;
	fake_text_put32(&t.stack, BASE + C + 0x10 - 4, 0x000000ef);
	CHECK(walk(&t) == 2);
	CHECK(t.stack.stop == TRACER_STOP_OUTERMOST);
	CHECK(frame_is(&t, 1, BASE + C + 0x10, word(&t, 102), 0x5050));
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
 * The capture's loop (table_run) takes a caller's frame whose row is sp- or
 * s0-based with ra saved and whose return address follows `jal ra`; any
 * other frame takes the step. Both give the same frames (fake_walk_with()
 * captures each walk too and compares):
 * A (exact; CFA = sp + 32) -> B + 0x20 (CFA = s0, word 120; ra, s0 = word
 * 130 below it) -> D + 0x10 (CFA = sp + 16; ra, s0 = 0 below it) -> C +
 * 0x30 (CFA = sp + 16, the top: outermost), the calls before B, D and C
 * first c.jalr (the fake text's), then jal ra (the loop's).
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

/*
 * The marks tracer_next() gives the frames the table finds, where the walk
 * goes through other steps in between: a trap frame whose entry lies in the
 * table's rows, and (auto) a frame DWARF found. Each walk runs twice: every
 * call before a return address a c.jalr (the fake text's, which the
 * capture's loop declines), then `jal ra` (0x000000ef, which it takes);
 * both must give the frames derived here. Trap: A + 0x10 (exact; CFA = sp + 32, word 104)
 * returns to D + 0x10, in the trap entry [D, D + 0x40): the trap frame at word 104 gives
 * A + 0x40 (exact), sp word 130, s0 word 150, cause 13, tval 0x1234, and ra B + 0x20,
 * after a call too (what D's row, CFA = sp + 16, would take as a caller if the step did
 * not leave returns into the trap entry to the general path). A + 0x40 (CFA word 134) ->
 * B + 0x20 (CFA = s0, word 150; s0 = 0 below it) -> C + 0x30 (CFA = sp + 16, the top:
 * outermost). DWARF: INTERPRETED + 8 (CFA = s1 = word 134) -> B + 0x20 (by DWARF,
 * unmarked) -> C + 0x30 (by the table).
 */
void unwind_table_step_marks(void)
{
	static const enum tracer_unwinder unwinders[2] = {TRACER_TABLE, TRACER_AUTO};
	static const uintptr_t calls[3] = {D + 0x0c, B + 0x1c, C + 0x2c};
	const size_t trap_frame = 104;
	struct table_test t;

	build(&t);
	fake_enable_traps(&t.stack);
	t.stack.trap.entry = (struct tracer_range){BASE + D, BASE + D + 0x40};
	put(&t, word(&t, 104) - WORD, BASE + D + 0x10);
	put(&t, word(&t, trap_frame + TF_EPC), BASE + A + 0x40);
	put(&t, word(&t, trap_frame + TF_RA), BASE + B + 0x20);
	put(&t, word(&t, trap_frame + TF_SP), word(&t, 130));
	put(&t, word(&t, trap_frame + TF_CAUSE), 13);
	put(&t, word(&t, trap_frame + TF_TVAL), 0x1234);
	put(&t, word(&t, trap_frame + TF_S0), word(&t, 150));
	put(&t, word(&t, 134) - WORD, BASE + B + 0x20);
	put(&t, word(&t, 150) - WORD, BASE + C + 0x30);
	put(&t, word(&t, 150) - 2 * WORD, 0);
	t.stack.range.end = word(&t, 152);
	for (size_t run = 0; run < 4; run++) {
		const struct tracer_frame *f = t.stack.frames;

		for (size_t i = 0; i < 3; i++) {
			if (run % 2 == 0)
				fake_text_put32(&t.stack, BASE + calls[i],
						(uint32_t)FAKE_CALL_PARCEL << 16 |
						    FAKE_CALL_PARCEL);
			else
				fake_text_put32(&t.stack, BASE + calls[i], 0x000000ef);
		}
		t.stack.regs.pc = BASE + A + 0x10;
		t.stack.regs.sp = word(&t, 100);
		t.stack.regs.s[0] = 0x4040;
		CHECK(fake_walk_with(&t.stack, unwinders[run / 2]) == 5);
		CHECK(t.stack.stop == TRACER_STOP_OUTERMOST);
		CHECK(f[0].pc == BASE + A + 0x10 && !f[0].is_return_address &&
		      !f[0].after_trap);
		CHECK(f[1].pc == BASE + D + 0x10 && f[1].sp == word(&t, 104) &&
		      f[1].is_return_address && !f[1].after_trap &&
		      f[1].trap_cause == 0 && f[1].found_by == TRACER_TABLE &&
		      !f[1].found_by_fallback);
		CHECK(f[2].pc == BASE + A + 0x40 && f[2].sp == word(&t, 130) &&
		      f[2].fp == word(&t, 150) && !f[2].is_return_address &&
		      f[2].after_trap && f[2].trap_cause == 13 &&
		      f[2].trap_tval == 0x1234 && f[2].found_by == unwinders[run / 2] &&
		      !f[2].found_by_fallback);
		CHECK(f[3].pc == BASE + B + 0x20 && f[3].sp == word(&t, 134) &&
		      f[3].is_return_address && !f[3].after_trap &&
		      f[3].trap_cause == 0 && f[3].trap_tval == 0 &&
		      f[3].found_by == TRACER_TABLE);
		CHECK(frame_is(&t, 4, BASE + C + 0x30, word(&t, 150), 0));
	}
	/* DWARF's frame, then the table's (auto). */
	t.stack.config.trap = NULL;
	put(&t, word(&t, 134) - WORD, BASE + B + 0x20);
	for (size_t run = 0; run < 2; run++) {
		const struct tracer_frame *f = t.stack.frames;

		for (size_t i = 1; i < 3; i++) {
			if (run == 0)
				fake_text_put32(&t.stack, BASE + calls[i],
						(uint32_t)FAKE_CALL_PARCEL << 16 |
						    FAKE_CALL_PARCEL);
			else
				fake_text_put32(&t.stack, BASE + calls[i], 0x000000ef);
		}
		t.stack.regs.pc = BASE + INTERPRETED + 8;
		t.stack.regs.sp = word(&t, 100);
		t.stack.regs.s[0] = word(&t, 150);
		t.stack.regs.s[1] = word(&t, 134);
		CHECK(fake_walk_with(&t.stack, TRACER_AUTO) == 3);
		CHECK(t.stack.stop == TRACER_STOP_OUTERMOST);
		CHECK(f[1].pc == BASE + B + 0x20 && f[1].sp == word(&t, 134) &&
		      f[1].fp == word(&t, 150) && f[1].found_by == TRACER_DWARF &&
		      !f[1].found_by_fallback);
		CHECK(frame_is(&t, 2, BASE + C + 0x30, word(&t, 150), 0));
	}
	release(&t);
}

/* symgen's encoding states a sp-based rule's frame size when ra is saved:
 * its CFA offset in 16-byte units (32 bytes: 2), if a multiple of 16 up to
 * 255 units; never an s0-based rule's (symgen measures it in the code). */
void unwind_table_encode_sizes(void)
{
	static const struct {
		bool cfa_on_s0;
		int64_t cfa_offset;
		enum tracer_unwind_ra ra;
		uint8_t size;
	} cases[] = {
	    {false, 32, TRACER_UNWIND_RA_SAVED, 2},
	    {false, 4080, TRACER_UNWIND_RA_SAVED, 255},
	    {false, 4096, TRACER_UNWIND_RA_SAVED, 0},
	    {false, 48 - W, TRACER_UNWIND_RA_SAVED, 0},
	    {false, 32, TRACER_UNWIND_RA_REGISTER, 0},
	    {false, 32, TRACER_UNWIND_RA_LOST, 0},
	    {true, 32, TRACER_UNWIND_RA_SAVED, 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tracer_unwind_rule rule;

		CHECK(tracer_unwind_encode(&rule, cases[i].cfa_on_s0, cases[i].cfa_offset,
					   cases[i].ra, -W, true, -2 * W,
					   sizeof(uintptr_t)));
		CHECK(rule.frame_size_16 == cases[i].size);
	}
}

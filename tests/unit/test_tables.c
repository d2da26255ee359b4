/*
 * test_tables.c - validation of the embedded tables: a table that memory
 * corruption reached is rejected, never dereferenced, and the trace says so.
 */
#include <stdlib.h>
#include <string.h>

#include "fake_stack.h"
#include "fake_tables.h"
#include "harness.h"
#include "walk.h"

/* One block holds the descriptor and the arrays, as .tracer_symtab does;
 * config->tables declares exactly that block. */
struct table_block {
	struct tracer_symtab symtab;
	struct tracer_fde_index index;
	struct tracer_symbol symbols[2];
	struct tracer_fde_entry entries[1];
	_Alignas(8) char names[16];
	uint32_t symtab_hashes[2]; /* a block of symbols[], one of names[] */
	uint32_t index_hashes[1];
};

static void fill_symtab(struct table_block *b, uint32_t names_size)
{
	fake_hashes_at(b->symtab_hashes);
	fake_symtab_fill(&b->symtab, b->symbols, 2, b->names, names_size);
}

static struct table_block *new_block(struct tracer_config *config)
{
	struct table_block *b = calloc(1, sizeof(*b));

	memset(config, 0, sizeof(*config));
	memcpy(b->names, "first\0second", 13);
	b->symbols[0] = (struct tracer_symbol){0x1000, 0x10, 0};
	b->symbols[1] = (struct tracer_symbol){0x1010, 0x10, 6};
	b->entries[0] = (struct tracer_fde_entry){0x1000, 0x2000};
	fill_symtab(b, 16);
	fake_hashes_at(b->index_hashes);
	fake_fde_index_fill(&b->index, b->entries, 1, config->eh_frame);
	config->symtab = &b->symtab;
	config->fde_index = &b->index;
	config->tables.start = (uintptr_t)b;
	config->tables.end = (uintptr_t)(b + 1);
	return b;
}

/* Hand-derived (table_hash.h), mod 2^64 (in Python, from the formula):
 * the empty table's header hash starts from the seed of kind 1, block 0:
 * 0xc2b2ae3d27d4eb4f; word 0 (count): * 0x9e3779b97f4a7c15 =
 * 0xf58d71ae9c47917b, ^ >> 29: 0xf58d71a9302c1c0f; word 0 (names_size):
 * * the multiplier = 0x63d272b8de8b913b, ^ >> 29: 0x63d272bbc01804fd;
 * folded (^ >> 32, low 32 bits): 0xa3ca7646. */
void tables_checksum_of_empty_table(void)
{
	struct tracer_symtab empty = {TRACER_SYMTAB_MAGIC,
				      TRACER_TABLE_VERSION,
				      sizeof(uintptr_t),
				      0,
				      0,
				      0xa3ca7646u,
				      NULL,
				      NULL,
				      NULL};
	struct tracer_config config;

	memset(&config, 0, sizeof(config));
	config.symtab = &empty;
	config.tables.start = (uintptr_t)&empty;
	config.tables.end = (uintptr_t)(&empty + 1);
	CHECK(tracer_symtab_check(&config) == TRACER_TABLE_OK);
	empty.checksum ^= 1;
	CHECK(tracer_symtab_check(&config) == TRACER_TABLE_BAD_CHECKSUM);
}

/* The block hash by hand (table_hash.h), mod 2^64 (in Python, from the
 * formula): kind 3 (names), block 0, the bytes "f\0\0\0\0g" (6 bytes: one
 * word, zero-extended: 0x670000000066). Seed 3 * 0xc2b2ae3d27d4eb4f =
 * 0x48180ab7777ec1ed; ^ the word: 0x48186db7777ec18b; * 0x9e3779b97f4a7c15
 * = 0x1d67db091a533467; ^ >> 29: 0x1d67db09f16dec2f; folded: 0xec0a3726. */
void tables_hash_by_hand(void)
{
	static const unsigned char bytes[6] = {'f', 0, 0, 0, 0, 'g'};

	CHECK(tracer_hash_bytes(TRACER_HASHED_NAMES, 0, bytes, 6) == 0xec0a3726u);
}

/* A change a sum cannot see: three words changed by +d, -2d, +d in one
 * block (the name offsets of three symbols); and a single word. Both fail
 * the block's hash, for many d. */
void tables_hash_sees_compensated_change(void)
{
	uint32_t words[16];
	uint32_t changed[16];
	uint32_t original;
	unsigned missed = 0;

	for (uint32_t i = 0; i < 16; i++)
		words[i] = 0x1000u * i + 7;
	original = tracer_hash_bytes(TRACER_HASHED_SYMBOLS, 0, (const void *)words, 64);
	for (uint32_t d = 1; d <= 4096; d++) {
		memcpy(changed, words, sizeof(words));
		changed[3] += d;
		changed[7] -= 2 * d;
		changed[11] += d;
		/* The linear sum agrees; the hash does not. */
		CHECK(changed[3] + changed[7] + changed[11] ==
		      words[3] + words[7] + words[11]);
		missed += tracer_hash_bytes(TRACER_HASHED_SYMBOLS, 0,
					    (const void *)changed, 64) == original;
		memcpy(changed, words, sizeof(words));
		changed[d % 16] ^= d;
		missed += tracer_hash_bytes(TRACER_HASHED_SYMBOLS, 0,
					    (const void *)changed, 64) == original;
	}
	CHECK(missed == 0);
	/* The same bytes as another block, or another array's: other hashes. */
	CHECK(tracer_hash_bytes(TRACER_HASHED_SYMBOLS, 1, (const void *)words, 64) !=
	      original);
	CHECK(tracer_hash_bytes(TRACER_HASHED_NAMES, 0, (const void *)words, 64) !=
	      original);
}

void tables_valid(void)
{
	struct tracer_config config;
	struct table_block *b = new_block(&config);

	CHECK(tracer_symtab_check(&config) == TRACER_TABLE_OK);
	CHECK(tracer_fde_index_check(&config) == TRACER_TABLE_OK);
	config.symtab = NULL;
	config.fde_index = NULL;
	CHECK(tracer_symtab_check(&config) == TRACER_TABLE_ABSENT);
	CHECK(tracer_fde_index_check(&config) == TRACER_TABLE_ABSENT);
	free(b);
}

/* The symbols pointer overwritten with 0x8; the descriptor or an array
 * partly or wholly outside the declared memory; a count that would reach
 * past it. */
void tables_outside_declared_memory(void)
{
	struct tracer_config config;
	struct table_block *b = new_block(&config);

	b->symtab.symbols = (const struct tracer_symbol *)8;
	CHECK(tracer_symtab_check(&config) == TRACER_TABLE_OUTSIDE);
	fill_symtab(b, 16);
	b->symtab.count = 0x10000000;
	CHECK(tracer_symtab_check(&config) == TRACER_TABLE_OUTSIDE);
	b->symtab.count = 2;
	config.tables.end = (uintptr_t)b->names + 8;
	CHECK(tracer_symtab_check(&config) == TRACER_TABLE_OUTSIDE);
	config.tables.end = (uintptr_t)&b->symtab + 4;
	CHECK(tracer_symtab_check(&config) == TRACER_TABLE_OUTSIDE);
	CHECK(tracer_fde_index_check(&config) == TRACER_TABLE_OUTSIDE);
	config.tables.start = config.tables.end = 0; /* declared none */
	CHECK(tracer_symtab_check(&config) == TRACER_TABLE_OUTSIDE);
	config.tables.end = (uintptr_t)(b + 1);
	b->index.entries = (const struct tracer_fde_entry *)((uintptr_t)b->entries + 1);
	CHECK(tracer_fde_index_check(&config) == TRACER_TABLE_OUTSIDE); /* misaligned */
	free(b);
}

void tables_malformed(void)
{
	struct tracer_config config;
	struct table_block *b = new_block(&config);

	b->symtab.magic ^= 1;
	CHECK(tracer_symtab_check(&config) == TRACER_TABLE_MALFORMED);
	fill_symtab(b, 16);
	b->symtab.version = 1; /* the format before the hashes */
	CHECK(tracer_symtab_check(&config) == TRACER_TABLE_MALFORMED);
	fill_symtab(b, 16);
	b->symtab.word_size = 12 - sizeof(uintptr_t); /* the other xlen */
	CHECK(tracer_symtab_check(&config) == TRACER_TABLE_MALFORMED);
	/* Names not a multiple of 4 bytes, or not NUL-terminated. */
	fill_symtab(b, 10);
	CHECK(tracer_symtab_check(&config) == TRACER_TABLE_MALFORMED);
	fill_symtab(b, 8);
	CHECK(tracer_symtab_check(&config) == TRACER_TABLE_MALFORMED);
	/* Checksums right, contents crafted: a name offset past names[],
	 * symbols out of order, overlapping. */
	b->symbols[1].name = 16;
	fill_symtab(b, 16);
	CHECK(tracer_symtab_check(&config) == TRACER_TABLE_MALFORMED);
	b->symbols[1] = (struct tracer_symbol){0x1000, 0x10, 6};
	fill_symtab(b, 16);
	CHECK(tracer_symtab_check(&config) == TRACER_TABLE_MALFORMED);
	/* Overlapping entries: the first one's end past the second's start,
	 * by one byte, and by a size that wraps the address space. */
	b->symbols[1] = (struct tracer_symbol){0x1010, 0x10, 6};
	b->symbols[0].size = 0x11;
	fill_symtab(b, 16);
	CHECK(tracer_symtab_check(&config) == TRACER_TABLE_MALFORMED);
	b->symbols[0].size = 0xffffffffu;
	fill_symtab(b, 16);
	CHECK(tracer_symtab_check(&config) == TRACER_TABLE_MALFORMED);
	b->symbols[0].size = 0x10; /* ends at the second's start: valid */
	fill_symtab(b, 16);
	CHECK(tracer_symtab_check(&config) == TRACER_TABLE_OK);
	b->index.magic = TRACER_SYMTAB_MAGIC;
	CHECK(tracer_fde_index_check(&config) == TRACER_TABLE_MALFORMED);
	free(b);
}

/* One changed byte, two swapped symbols, a changed count: each fails. */
void tables_bad_checksum(void)
{
	struct tracer_config config;
	struct table_block *b = new_block(&config);
	struct tracer_symbol first = b->symbols[0];

	b->names[1] = 'X';
	CHECK(tracer_symtab_check(&config) == TRACER_TABLE_BAD_CHECKSUM);
	b->names[1] = 'i';
	CHECK(tracer_symtab_check(&config) == TRACER_TABLE_OK);
	b->symbols[0] = b->symbols[1];
	b->symbols[1] = first;
	CHECK(tracer_symtab_check(&config) == TRACER_TABLE_BAD_CHECKSUM);
	b->symbols[1] = b->symbols[0];
	b->symbols[0] = first;
	b->symtab.count = 1;
	CHECK(tracer_symtab_check(&config) == TRACER_TABLE_BAD_CHECKSUM);
	b->entries[0].fde = 0x2004;
	CHECK(tracer_fde_index_check(&config) == TRACER_TABLE_BAD_CHECKSUM);
	free(b);
}

/* A walk with a rejected symbol table prints raw frames and says why; the
 * prologue unwinder, which needs it, stops with its own reason. */
void tables_walk_with_rejected_symtab(void)
{
	_Alignas(8) static const char names[12] = "callee\0\0\0\0\0";
	struct tracer_symbol symbol;
	struct tracer_symtab symtab;
	struct tracer_walk walk;
	struct fake_stack s;
	char line[TRACER_LINE_MAX];

	fake_stack_init(&s);
	symbol = (struct tracer_symbol){FAKE_TEXT_START + 0x100, 0x40, 0};
	fake_symtab_fill(&symtab, &symbol, 1, names, sizeof(names));
	s.config.symtab = &symtab;
	fake_tables_anywhere(&s.config);
	s.range.end = fake_addr(&s, 200);
	fake_record(&s, fake_addr(&s, 100), fake_addr(&s, 200), FAKE_TEXT_START + 0x204);
	fake_record(&s, fake_addr(&s, 200), 0, FAKE_TEXT_START + 0x308);
	s.regs.pc = FAKE_TEXT_START + 0x100;
	s.regs.sp = fake_addr(&s, 90);
	s.regs.s[0] = fake_addr(&s, 100);
	CHECK(fake_walk(&s) == 3 && s.frames[0].name != NULL);
	tracer_start(&walk, TRACER_FRAME_POINTER, &s.config, &s.regs);
	CHECK(tracer_format_note(line, sizeof(line), &walk) == NULL);

	symtab.symbols = (const struct tracer_symbol *)8;
	s.config.tables.start = (uintptr_t)&symtab;
	s.config.tables.end = (uintptr_t)(&symtab + 1);
	CHECK(fake_walk(&s) == 3 && s.stop == TRACER_STOP_OUTERMOST);
	for (size_t i = 0; i < 3; i++)
		CHECK(s.frames[i].name == NULL);
	tracer_start(&walk, TRACER_FRAME_POINTER, &s.config, &s.regs);
	CHECK(walk_of(&walk)->symtab_status == TRACER_TABLE_OUTSIDE);
	CHECK(strcmp(tracer_format_note(line, sizeof(line), &walk),
		     "Note: symbol table rejected (outside the declared table memory): "
		     "frames print raw") == 0);
	CHECK(fake_walk_with(&s, TRACER_PROLOGUE) == 1);
	CHECK(s.stop == TRACER_STOP_BAD_SYMTAB);
	/* auto: neither DWARF (no index) nor the decoder: the frame pointer. */
	CHECK(fake_walk_with(&s, TRACER_AUTO) == 3 && s.stop == TRACER_STOP_OUTERMOST);
	fake_stack_free(&s);
}

/* Both tables rejected: one line names both. */
void tables_note_names_both(void)
{
	struct tracer_config config;
	struct table_block *b = new_block(&config);
	struct tracer_regs regs;
	struct tracer_walk walk;
	char line[TRACER_LINE_MAX];
	char small[8];

	memset(&regs, 0, sizeof(regs));
	b->symtab.magic = 0;
	b->index.count = 0;
	tracer_start(&walk, TRACER_AUTO, &config, &regs);
	CHECK(strcmp(tracer_format_note(line, sizeof(line), &walk),
		     "Note: symbol table rejected (malformed header or entries): frames "
		     "print raw; FDE index rejected (checksum mismatch): no DWARF "
		     "unwinding") == 0);
	/* Said once. */
	CHECK(tracer_format_note(line, sizeof(line), &walk) == NULL);
	/* Cut to the buffer, still a note. */
	tracer_start(&walk, TRACER_AUTO, &config, &regs);
	CHECK(tracer_format_note(small, sizeof(small), &walk) == small);
	CHECK(strcmp(small, "Note: s") == 0);
	free(b);
}

/* An empty FDE index (symgen without --cfi) hashes no .eh_frame: the walk
 * reads none, whatever config->eh_frame declares, and says nothing of it;
 * a non-empty one must hash the .eh_frame the config declares. */
void tables_empty_index_reads_no_eh_frame(void)
{
	struct tracer_config config;
	struct table_block *b = new_block(&config);
	static const uint32_t eh_frame[4] = {12, 0, 0, 0};
	struct tracer_regs regs;
	struct tracer_walk walk;
	char line[TRACER_LINE_MAX];

	memset(&regs, 0, sizeof(regs));
	fake_hashes_at(b->index_hashes);
	fake_fde_index_fill(&b->index, b->entries, 0, config.eh_frame);
	config.eh_frame.start = (uintptr_t)eh_frame;
	config.eh_frame.end = (uintptr_t)(eh_frame + 4);
	CHECK(tracer_eh_frame_check(&config) == TRACER_TABLE_ABSENT);
	tracer_start(&walk, TRACER_AUTO, &config, &regs);
	CHECK(walk_of(&walk)->eh_frame_status == TRACER_TABLE_ABSENT);
	CHECK(tracer_format_note(line, sizeof(line), &walk) == NULL);
	fake_hashes_at(b->index_hashes);
	fake_fde_index_fill(&b->index, b->entries, 1, (struct tracer_range){0, 0});
	CHECK(tracer_eh_frame_check(&config) == TRACER_TABLE_MALFORMED);
	free(b);
}

/* 40 functions of 0x40 bytes, 0x100 apart, named f00 to f39: a symbol
 * table of 10 blocks of symbols and 3 of names. */
#define WALKED_FUNCTIONS 40

struct walked_table {
	struct tracer_symbol symbols[WALKED_FUNCTIONS];
	_Alignas(8) char names[4 * WALKED_FUNCTIONS];
	struct tracer_symtab symtab;
};

static void walked_table_fill(struct walked_table *t)
{
	for (unsigned i = 0; i < WALKED_FUNCTIONS; i++) {
		t->symbols[i] =
		    (struct tracer_symbol){FAKE_TEXT_START + 0x100 * i, 0x40, 4 * i};
		t->names[4 * i] = 'f';
		t->names[4 * i + 1] = (char)('0' + i / 10);
		t->names[4 * i + 2] = (char)('0' + i % 10);
		t->names[4 * i + 3] = '\0';
	}
	fake_symtab_fill(&t->symtab, t->symbols, WALKED_FUNCTIONS, t->names,
			 sizeof(t->names));
}

/*
 * A block of the symbol table damaged after tracer_start(): a walk through
 * f00 <- f20 <- f36 finds it when it reads it (f20's entry, the second
 * frame), not before: f00 named, the note before f20's line, f20 and f36
 * raw; the frames are the same pcs. tracer_prepare() rejects the table
 * whole. Then the same damage in names[] (f36's name), and a compensated
 * change of three name offsets (+1, -2, +1) in one block, found the same
 * way.
 */
void tables_damage_found_mid_walk(void)
{
	static struct walked_table t;
	struct fake_stack s;
	struct tracer_walk walk;
	struct tracer_frame frame;
	struct tracer_prepared prepared;
	char line[TRACER_LINE_MAX];
	const char *names[3];
	const char *notes[3];
	char note[TRACER_LINE_MAX] = "";
	size_t count;

	walked_table_fill(&t);
	fake_stack_init(&s);
	s.config.symtab = &t.symtab;
	fake_tables_anywhere(&s.config);
	s.range.end = fake_addr(&s, 200);
	fake_record(&s, fake_addr(&s, 100), fake_addr(&s, 200), FAKE_TEXT_START + 0x1404);
	fake_record(&s, fake_addr(&s, 200), 0, FAKE_TEXT_START + 0x2408);
	s.regs.pc = FAKE_TEXT_START + 0x10;
	s.regs.sp = fake_addr(&s, 90);
	s.regs.s[0] = fake_addr(&s, 100);

	for (int round = 0; round < 4; round++) {
		/* Round 0 intact; 1: f20's entry (its size); 2: f36's name;
		 * 3: the name offsets of f20 to f22, +1, -2, +1. */
		walked_table_fill(&t);
		if (round == 1)
			t.symbols[20].size ^= 1;
		if (round == 2)
			t.names[4 * 36 + 1] = 'X';
		if (round == 3) {
			t.symbols[20].name += 1;
			t.symbols[21].name -= 2;
			t.symbols[22].name += 1;
		}
		tracer_start(&walk, TRACER_FRAME_POINTER, &s.config, &s.regs);
		CHECK_ROW(walk_of(&walk)->symtab_status == TRACER_TABLE_OK, round);
		count = 0;
		while (tracer_next(&walk, &frame) && count < 3) {
			notes[count] = tracer_format_note(line, sizeof(line), &walk);
			if (notes[count])
				strcpy(note, line);
			names[count++] = frame.name;
		}
		CHECK_ROW(count == 3 &&
			      tracer_stop_reason(&walk) == TRACER_STOP_OUTERMOST,
			  round);
		CHECK_ROW(names[0] && strcmp(names[0], "f00") == 0 && !notes[0], round);
		if (round == 0) {
			CHECK_ROW(names[1] && strcmp(names[1], "f20") == 0 && !notes[1],
				  round);
			CHECK_ROW(names[2] && strcmp(names[2], "f36") == 0 && !notes[2],
				  round);
			continue;
		}
		/* Round 2's damage is in f36's name: f20 is still named. */
		CHECK_ROW(round == 2
			      ? names[1] && strcmp(names[1], "f20") == 0 && !notes[1]
			      : !names[1] && notes[1],
			  round);
		CHECK_ROW(!names[2] && (round == 2) == (notes[2] != NULL), round);
		CHECK_ROW(walk_of(&walk)->symtab_status == TRACER_TABLE_BAD_CHECKSUM,
			  round);
		CHECK_ROW(strcmp(note, "Note: symbol table rejected (checksum mismatch): "
				       "frames print raw") == 0,
			  round);
		/* Said once: nothing more at the end. */
		CHECK_ROW(tracer_format_note(line, sizeof(line), &walk) == NULL, round);
		tracer_prepare(&prepared, &s.config);
		CHECK_ROW(prepared_of(&prepared)->symtab_status ==
			      TRACER_TABLE_BAD_CHECKSUM,
			  round);
	}
	fake_stack_free(&s);
}

/*
 * A symbol that holds the pc names its frame from its own block: symgen's
 * entries do not overlap, so the entry after it need not be read. With the
 * block after it damaged, a pc inside the last function of a block is
 * named, and no note said; a pc in the gap after that function needs the
 * next entry to bracket it (the answer might be the next function): the
 * damage is found there.
 */
void tables_symbol_holding_reads_its_block(void)
{
	static struct walked_table t;
	struct fake_stack s;
	struct tracer_walk walk;
	struct tracer_frame frame;
	char line[TRACER_LINE_MAX];
	unsigned last = 20;

	/* The first function from f20 on whose entry ends a block. */
	while (((last + 1) * sizeof(struct tracer_symbol)) % TRACER_HASH_BLOCK != 0)
		last++;
	fake_stack_init(&s);
	s.config.symtab = &t.symtab;
	fake_tables_anywhere(&s.config);
	s.regs.sp = fake_addr(&s, 90);
	for (int round = 0; round < 2; round++) {
		walked_table_fill(&t);
		t.symbols[last + 1].size ^= 1; /* the next block, after hashing */
		/* Round 0: inside f<last>; 1: in the gap after it. */
		s.regs.pc = FAKE_TEXT_START + 0x100 * last + (round == 0 ? 0x10 : 0x50);
		tracer_start(&walk, TRACER_FRAME_POINTER, &s.config, &s.regs);
		CHECK_ROW(tracer_next(&walk, &frame), round);
		CHECK_ROW(round == 1 || (frame.name && frame.name == t.names + 4 * last),
			  round);
		CHECK_ROW(round == 0 || !frame.name, round);
		CHECK_ROW(walk_of(&walk)->symtab_status ==
			      (round == 0 ? TRACER_TABLE_OK : TRACER_TABLE_BAD_CHECKSUM),
			  round);
		CHECK_ROW((tracer_format_note(line, sizeof(line), &walk) != NULL) ==
			      (round == 1),
			  round);
	}
	fake_stack_free(&s);
}

/* Crafted tables whose hashes hold, read by a walk, never past their
 * arrays (under ASan, exactly sized): a name offset past names[], found
 * where the walk reads it (MALFORMED: the frames from there raw); entries
 * out of order, which the walk need not notice (its answers are then
 * a search's of that table), and tracer_symtab_check() rejects. */
void tables_crafted_found_mid_walk(void)
{
	static struct walked_table t;
	struct fake_stack s;
	struct tracer_walk walk;
	struct tracer_frame frame;
	size_t count;

	fake_stack_init(&s);
	s.config.symtab = &t.symtab;
	fake_tables_anywhere(&s.config);
	s.range.end = fake_addr(&s, 200);
	fake_record(&s, fake_addr(&s, 100), fake_addr(&s, 200), FAKE_TEXT_START + 0x1404);
	fake_record(&s, fake_addr(&s, 200), 0, FAKE_TEXT_START + 0x2408);
	s.regs.pc = FAKE_TEXT_START + 0x10;
	s.regs.sp = fake_addr(&s, 90);
	s.regs.s[0] = fake_addr(&s, 100);
	for (int round = 0; round < 2; round++) {
		walked_table_fill(&t);
		if (round == 0)
			t.symbols[20].name = 4 * WALKED_FUNCTIONS + 8;
		else
			t.symbols[21].addr = FAKE_TEXT_START + 0x1000;
		fake_symtab_fill(&t.symtab, t.symbols, WALKED_FUNCTIONS, t.names,
				 sizeof(t.names));
		tracer_start(&walk, TRACER_FRAME_POINTER, &s.config, &s.regs);
		count = 0;
		while (tracer_next(&walk, &frame)) {
			CHECK_ROW(count > 0 ||
				      (frame.name && strcmp(frame.name, "f00") == 0),
				  round);
			CHECK_ROW(round == 1 || count == 0 || !frame.name, round);
			count++;
		}
		CHECK_ROW(count == 3 &&
			      tracer_stop_reason(&walk) == TRACER_STOP_OUTERMOST,
			  round);
		CHECK_ROW(round == 1 ||
			      walk_of(&walk)->symtab_status == TRACER_TABLE_MALFORMED,
			  round);
		CHECK_ROW(tracer_symtab_check(&s.config) == TRACER_TABLE_MALFORMED,
			  round);
	}
	fake_stack_free(&s);
}

/*
 * test_lines.c - the line table in a walk: its checks, the frames of calls
 * inlined at a pc, and how they print. The table is encoded by hand from
 * the layout in tracer/line_format.h (its opcodes and bit fields), so the
 * expected places come from the format, not from symgen's encoder.
 */
#include <string.h>

#include "fake_tables.h"
#include "harness.h"
#include "lines.h"
#include "walk.h"

#define BASE 0x1000u

/*
 * One block of rows, from BASE (files 1 "a.c" and 2 "b.h"; literal of 4
 * bytes: the row's halfword in its page, then file (2 bits), call (2
 * bits) and line, little-endian):
 *   BASE + 0   a.c:10, no inlined call          literal 0x00, 1 | 10 << 4
 *   BASE + 8   a.c:12, inside call 2            special: 4 halfwords on, 2
 *                                               lines on: 3 * 16 + 7 + 96;
 *                                               CALL, SLEB128 3: from none,
 *                                               the last set (0) plus 2
 *   BASE + 16  a.c:20, no call                  special: 4 on, 8 lines on:
 *                                               3 * 16 + 13 + 96; CALL 0
 * Call 1: outer_inline, called from a.c:30 in the function; call 2:
 * inner_inline, called from b.h:40 inside call 1. A record (4 bytes):
 * parent (2 bits), name (2 bits), file (2 bits), line (6 bits).
 */
_Alignas(8) static const uint8_t stream[28] = {0x00, 0xa1, 0x00, 0x00, 151,
					       95,   3,	   157,	 95,   0};
_Alignas(8) static const uint16_t group_block[1] = {0};
_Alignas(8) static const uint8_t page_block[2] = {0, 1};
_Alignas(8) static const uint8_t records[8] = {
    /* 0 | 1 << 2 | 1 << 4 | 30 << 6 */ 0x94,
    0x07,
    0,
    0,
    /* 1 | 2 << 2 | 2 << 4 | 40 << 6 */ 0x29,
    0x0a,
    0,
    0};
_Alignas(8) static const char strings[36] = "a.c\0b.h\0outer_inline\0inner_inline";
_Alignas(8) static const uint32_t string_offsets[4] = {0, 4, 8, 21};

struct lines_block {
	struct tracer_lines table;
	/* Each array word-aligned, as symgen writes them (the hashes read
	 * words). */
	_Alignas(8) uint32_t hashes[8];
	_Alignas(8) uint8_t stream[28];
	_Alignas(8) uint32_t string_offsets[4];
};

/* The table above, with its checksum and hashes (as symgen writes them). */
static void lines_fill(struct tracer_lines *table, const uint8_t *stream_bytes,
		       const uint32_t *offsets, uint32_t *hashes)
{
	const struct {
		uint32_t kind;
		const void *data;
		uint32_t size;
	} arrays[] = {{TRACER_HASHED_LINES_GROUPS, group_block, 2},
		      {TRACER_HASHED_LINES_PAGES, page_block, 2},
		      {TRACER_HASHED_LINES_STREAM, stream_bytes, 28},
		      {TRACER_HASHED_LINES_RECORDS, records, 8},
		      {TRACER_HASHED_LINES_STRING_OFFSETS, offsets, 16},
		      {TRACER_HASHED_LINES_STRINGS, strings, 36}};

	memset(table, 0, sizeof(*table));
	table->magic = TRACER_LINES_MAGIC;
	table->version = TRACER_LINES_VERSION;
	table->word_size = sizeof(uintptr_t);
	table->block_bytes = 28;
	table->literal_bytes = 4;
	table->file_bits = 2;
	table->row_count = 3;
	table->block_count = 1;
	table->page_count = 1;
	table->stream_size = 10;
	table->file_count = 3;
	table->group_shift = 5;
	table->base = BASE;
	table->group_block = group_block;
	table->page_block = page_block;
	table->stream = stream_bytes;
	table->call_bits = 2;
	table->call_count = 2;
	table->record_bytes = 4;
	table->name_bits = 2;
	table->name_count = 2;
	table->call_line_bits = 6;
	table->records = records;
	table->strings_size = 36;
	table->string_offsets = offsets;
	table->strings = strings;
	table->hashes = hashes;
	table->checksum = tracer_lines_checksum(table);
	/* One block per array: each is below 64 bytes. The stream's size
	 * for its hash is the bytes the table says it has. */
	for (unsigned i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++)
		hashes[i] = tracer_hash_bytes(
		    arrays[i].kind, 0, arrays[i].data,
		    arrays[i].kind == TRACER_HASHED_LINES_STREAM ? 10 : arrays[i].size);
}

static void block_fill(struct lines_block *b)
{
	memcpy(b->stream, stream, sizeof(stream));
	memcpy(b->string_offsets, string_offsets, sizeof(string_offsets));
	lines_fill(&b->table, b->stream, b->string_offsets, b->hashes);
}

/* The lookup at each row and between them, by hand from the rows above. */
void lines_lookup_by_hand(void)
{
	struct lines_block b;
	struct tracer_line found;
	struct tracer_inline_call call;

	block_fill(&b);
	CHECK(tracer_lines_valid(&b.table));
	/* Below the first row: none, and no inlined call, whatever found held. */
	found.call = 7;
	CHECK(tracer_line_at(&b.table, BASE - 2, &found) == TRACER_LINE_NONE);
	CHECK(found.call == 0);
	CHECK(tracer_line_at(&b.table, BASE + 6, &found) == TRACER_LINE_FOUND);
	CHECK(found.file == 1 && found.line == 10 && found.call == 0);
	CHECK(tracer_line_at(&b.table, BASE + 8, &found) == TRACER_LINE_FOUND);
	CHECK(found.file == 1 && found.line == 12 && found.call == 2);
	CHECK(tracer_line_at(&b.table, BASE + 0x40, &found) == TRACER_LINE_FOUND);
	CHECK(found.file == 1 && found.line == 20 && found.call == 0);
	CHECK(tracer_inline_call_at(&b.table, 2, &call) == TRACER_LINE_FOUND);
	CHECK(call.parent == 1 && call.name == 2 && call.file == 2 && call.line == 40);
	CHECK(strcmp(tracer_lines_name(&b.table, call.name), "inner_inline") == 0);
	CHECK(strcmp(tracer_lines_file(&b.table, call.file), "b.h") == 0);
	CHECK(tracer_inline_call_at(&b.table, 1, &call) == TRACER_LINE_FOUND);
	CHECK(call.parent == 0 && call.name == 1 && call.file == 1 && call.line == 30);
	CHECK(tracer_inline_call_at(&b.table, 3, &call) == TRACER_LINE_CORRUPT);
}

/* A config whose text holds the rows; no stack: a walk returns the first
 * frame's frames, then stops. */
static void config_for(struct tracer_config *config, const struct tracer_lines *table)
{
	memset(config, 0, sizeof(*config));
	config->text.start = BASE;
	config->text.end = BASE + 0x100;
	config->lines = table;
	fake_tables_anywhere(config);
}

/* The frames a walk from pc returns, printed, into lines[]; their count. */
static size_t walk_lines(const struct tracer_config *config, uintptr_t pc,
			 char lines[][TRACER_LINE_MAX], size_t max)
{
	struct tracer_regs regs;
	struct tracer_walk walk;
	struct tracer_frame frame;
	size_t count = 0;

	memset(&regs, 0, sizeof(regs));
	regs.pc = pc;
	tracer_start(&walk, TRACER_FRAME_POINTER, config, &regs);
	while (count < max && tracer_next(&walk, &frame)) {
		char note[TRACER_LINE_MAX];

		if (tracer_format_note(note, sizeof(note), &walk))
			strcpy(lines[count++], note);
		tracer_format_frame(lines[count++], TRACER_LINE_MAX, &frame);
	}
	return count;
}

/* GDB's order: the innermost inlined call at the pc's line, each call
 * then at the line of the call inside it, the function's frame last. */
void lines_walk_returns_inlined_calls(void)
{
	struct lines_block b;
	struct tracer_config config;
	char lines[8][TRACER_LINE_MAX];

	block_fill(&b);
	config_for(&config, &b.table);
	CHECK(tracer_lines_check(&config) == TRACER_TABLE_OK);
	CHECK(walk_lines(&config, BASE + 10, lines, 8) == 3);
	CHECK(strcmp(lines[0], " [inlined] inner_inline (a.c:12)") == 0);
	CHECK(strcmp(lines[1], " [inlined] outer_inline (b.h:40)") == 0);
	CHECK(strcmp(lines[2], " [<0x000000000000100a>] (a.c:30)") == 0 ||
	      strcmp(lines[2], " [<0x0000100a>] (a.c:30)") == 0);
	CHECK(walk_lines(&config, BASE + 2, lines, 8) == 1);
	CHECK(strstr(lines[0], ">] (a.c:10)") != NULL);
	/* Without a table, or with one without rows: no places. */
	config.lines = NULL;
	CHECK(walk_lines(&config, BASE + 10, lines, 8) == 1);
	CHECK(strchr(lines[0], '(') == NULL);
	b.table.row_count = 0;
	b.table.checksum = tracer_lines_checksum(&b.table);
	config.lines = &b.table;
	CHECK(tracer_lines_check(&config) == TRACER_TABLE_ABSENT);
	CHECK(walk_lines(&config, BASE + 10, lines, 8) == 1);
	CHECK(strchr(lines[0], '(') == NULL);
}

/* Each damage the checks catch, and what the walk then prints: a note,
 * and frames without places. */
void lines_rejected(void)
{
	struct lines_block b;
	struct tracer_config config;
	char lines[8][TRACER_LINE_MAX];

	block_fill(&b);
	config_for(&config, &b.table);
	b.table.magic++;
	CHECK(tracer_lines_check(&config) == TRACER_TABLE_MALFORMED);
	block_fill(&b);
	b.table.stream_size = 9;
	CHECK(tracer_lines_check(&config) == TRACER_TABLE_BAD_CHECKSUM);
	block_fill(&b);
	config.tables.start = (uintptr_t)&b.table;
	config.tables.end = (uintptr_t)(&b.table + 1);
	CHECK(tracer_lines_check(&config) == TRACER_TABLE_OUTSIDE);
	fake_tables_anywhere(&config);
	/* A byte of the rows changed: the hashes say so, the walk too. */
	b.stream[7] = 151;
	CHECK(tracer_lines_check(&config) == TRACER_TABLE_BAD_CHECKSUM);
	CHECK(walk_lines(&config, BASE + 10, lines, 8) == 2);
	CHECK(strcmp(lines[0],
		     "Note: line table rejected (checksum mismatch): frames print "
		     "without file:line") == 0);
	CHECK(strchr(lines[1], '(') == NULL);
	/* A name past the strings, its hashes rewritten: malformed. */
	block_fill(&b);
	b.string_offsets[3] = 36;
	lines_fill(&b.table, b.stream, b.string_offsets, b.hashes);
	CHECK(tracer_lines_check(&config) == TRACER_TABLE_MALFORMED);
	/* A header the lookup cannot bound (a literal past the stream). */
	block_fill(&b);
	b.table.literal_bytes = 12;
	b.table.checksum = tracer_lines_checksum(&b.table);
	CHECK(tracer_lines_check(&config) == TRACER_TABLE_MALFORMED);
}

/* How the places print (docs/output-format.md). */
void lines_format(void)
{
	struct tracer_frame frame;
	char line[TRACER_LINE_MAX];

	memset(&frame, 0, sizeof(frame));
	frame.pc = 0x80201234;
	frame.name = "do_work";
	frame.offset = 0x1c;
	frame.size = 0x60;
	frame.file = "kernel/work.c";
	frame.line = 123;
	CHECK(strstr(tracer_format_frame(line, sizeof(line), &frame),
		     ">] do_work+0x1c/0x60 (kernel/work.c:123)") != NULL);
	frame.found_by = TRACER_PROLOGUE;
	frame.found_by_fallback = true;
	CHECK(strstr(tracer_format_frame(line, sizeof(line), &frame),
		     ">] (prologue) do_work+0x1c/0x60 (kernel/work.c:123)") != NULL);
	frame.inlined = true;
	frame.name = "helper";
	frame.line = 4000000000u;
	CHECK(strcmp(tracer_format_frame(line, sizeof(line), &frame),
		     " [inlined] helper (kernel/work.c:4000000000)") == 0);
	frame.name = NULL;
	frame.file = NULL;
	CHECK(strcmp(tracer_format_frame(line, sizeof(line), &frame), " [inlined] ??") ==
	      0);
}

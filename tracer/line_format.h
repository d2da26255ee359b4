/*
 * line_format.h - the layout of the line table (pc -> file, line) and, in
 * it, the inline table (pc -> the chain of inlined calls there), shared by
 * the tracer's lookup (tracer/lines.c) and symgen's encoder
 * (symgen/line_table.c), which embeds it in the image (struct tracer_lines,
 * config->lines).
 *
 * Why this layout (measured by tests/bench/line_bench.py and
 * tests/tools/line_lookup; the figures, and the layouts tried and
 * rejected, are in docs/line-table-format.md). A lookup costs what it
 * decodes: about 90 instructions whatever the block, and about 15 a row
 * decoded (11 a special opcode). So the layout spends its bytes on making
 * a block cheap, and blocks small:
 * - A block is a fixed number of stream bytes (block_bytes, 28 by
 *   default), not of rows: its offset is block * block_bytes, no index
 *   entry. The rows that do not fill it are padded with END (0.4 bytes a
 *   block).
 * - A block's first row is a literal: its address in halfwords from its
 *   512-byte page (one byte), then its file, call and line packed in the
 *   bytes after. The byte is all the search needs: the page map says which
 *   blocks start in pc's page.
 * - The page map: a byte per page under a 16-bit entry per group of pages.
 * At 28 bytes a block holds about 16 rows of the line table alone: 1.79 to
 * 1.85 bytes per row on the -O2 kernels, 248 to 260 instructions a lookup
 * at their return addresses on rv64imac -O2; the layout of 32-row blocks
 * it replaces took 1.82 to 1.84 bytes per row and 482 to 489 instructions.
 *
 * Why the inline table is in the rows: the inlined calls change mostly
 * where the rows do, so the one block decode that finds pc's line finds
 * its innermost call too, and the chain's other calls are a record each,
 * through parents; a separate search of the calls' ranges would cost a
 * second lookup (100 to 250 instructions). Each context of the decoder
 * (below) carries a call: an inlined function's rows alternate with its
 * caller's, so RECENT takes the caller's call back with its line, and only
 * a change that no context has costs a CALL. With the inlined calls, the
 * lookup and its chain take 330 to 343 instructions at the -O2 kernels'
 * return addresses (the rows 283 to 293 of them), 262 on the 10x kernel;
 * the calls add 3.4 to 6.1 KB to the rows of the -O2 and -Os kernels
 * (0.3 KB at -O0, 7.5 KB on the 10x kernel: 0.4 to 0.6 times the line
 * table's bytes, 0.19 on the 10x), and 5.9 to 9.8 KB of records and
 * names. Carrying calls costs the decoder about 23 instructions a lookup.
 *
 * Rows: where the code of (file, line, call) starts, one per change of
 * (file, line, call), sorted by address; the rows of GDB's choice
 * (dwarf_lines.h), and a row where the innermost inlined call changes
 * (dwarf_inlines.h) but the line does not. File 0 is "no line": the end of
 * a sequence, code no line program covers. Call 0 is none; calls are
 * numbered from 1 in the order of their first code, each after its
 * parents, so a parent's number is below its child's (a chain ends).
 * Addresses are 2-byte aligned (RISC-V's C extension), so steps are counted
 * in halfwords, each at least 1.
 *
 * The lookup: pc's page (2^TRACER_LINES_PAGE_SHIFT bytes from base); the
 * blocks that start below it are group_block[page >> group_shift] +
 * page_block[page], and those that start in it run to the next page's.
 * Of these the last whose first byte is at or below pc's halfword in the
 * page has pc; if none, the one before them, which starts in the last page
 * before with a block. Its rows are decoded from its literal until the
 * next starts above pc.
 *
 * A block in the stream: literal_bytes of literal (its halfword in its
 * page; then, little-endian, the file in the low file_bits bits, the call
 * in the call_bits after and the line above), then rows until END or the
 * block's end. The rows are a byte code like DWARF's special opcodes
 * (DWARF 5, section 6.2.5.1), on halfword steps. The block keeps three
 * contexts, each a file, its last line and its call, most recent first;
 * the row is the first's. An inlined function's rows alternate with its
 * caller's, in another file or far in the same: each such jump pushes a
 * context (of the current call), and the row that comes back takes the
 * old one back, its call too.
 *   >= TRACER_LINES_SPECIAL   same context: byte / 16 - 5 halfwords on,
 *                             byte % 16 + LINE_BASE lines on
 *   TRACER_LINES_NEAR + n     (n < 32) same context: n + 1 halfwords on,
 *                             the next byte (int8) lines on
 *   TRACER_LINES_RECENT + n   (n < 32) the second context (n < 16) or the
 *                             third to the front: n % 16 + 1 halfwords on,
 *                             the next byte (int8) lines on from its line
 *   TRACER_LINES_FAR + n      (n < 12) n + 1 halfwords on, a new context of
 *                             the same file: the next two bytes (int16,
 *                             little-endian) lines on
 *   TRACER_LINES_SWITCH + n   (n < 16) n + 1 halfwords on, a new context:
 *                             the file of the ULEB128 that follows, at the
 *                             line of the ULEB128 after it
 *   TRACER_LINES_ADVANCE      same context: ULEB128 steps - 1, SLEB128
 *                             lines on
 *   TRACER_LINES_FILE         a new context: ULEB128 file, ULEB128 steps -
 *                             1, ULEB128 line
 *   TRACER_LINES_CALL         after a row: the row's call is another, by
 *                             the SLEB128 v that follows: none if v is 0,
 *                             else from the current call (or, if none,
 *                             the last a CALL or the literal set) v - 1
 *                             on if v > 0, v on if v < 0
 *   TRACER_LINES_END          no more rows in the block
 * A new context forgets the third. symgen takes, of the contexts of the
 * row's file, the first whose line is within int8 of the row's and, of
 * those, the first of the row's call.
 *
 * The records (records, call_count of them, record_bytes each): call n's
 * parent, its function's name (an index in the names, stored once each
 * apart), and its call's file (an index in the line table's files) and
 * line, packed as struct tracer_lines says.
 */
#ifndef TRACER_LINE_FORMAT_H
#define TRACER_LINE_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "table_format.h"

#define TRACER_LINES_MAGIC   0x4e494c54u /* "TLIN" in memory */
#define TRACER_LINES_VERSION 4u

/* The opcodes (see above); LINE_BASE and the number of codes of each
 * kind chosen by measurement on the test kernels. */
#define TRACER_LINES_END	0u
#define TRACER_LINES_FILE	1u
#define TRACER_LINES_ADVANCE	2u
#define TRACER_LINES_NEAR	3u
#define TRACER_LINES_RECENT	35u
#define TRACER_LINES_SWITCH	67u
#define TRACER_LINES_FAR	83u
#define TRACER_LINES_CALL	95u
#define TRACER_LINES_SPECIAL	96u
#define TRACER_LINES_LINE_BASE	(-5)
#define TRACER_LINES_LINE_RANGE 16u

/* page_block[] has an entry per 2^TRACER_LINES_PAGE_SHIFT bytes of code,
 * 256 halfwords: what a block's first byte can say. */
#define TRACER_LINES_PAGE_SHIFT 9u

/* Pages per group of the page map at most: 2^TRACER_LINES_GROUP_SHIFT
 * (symgen takes fewer where a group's blocks pass 255). */
#define TRACER_LINES_GROUP_SHIFT 5u

/* Bounds on what a table may say: blocks of at most 256 bytes; literals
 * and records of 4 to 8 bytes; files below 2^16; halfword steps and LEB128 values
 * below 2^28 (at most 4 bytes). */
#define TRACER_LINES_MAX_BLOCK_BYTES   256u
#define TRACER_LINES_MIN_LITERAL_BYTES 4u
#define TRACER_LINES_MAX_LITERAL_BYTES 8u
#define TRACER_LINES_MAX_FILE_BITS     16u
#define TRACER_LINES_MAX_CALL_BITS     16u
#define TRACER_LINES_MAX_NAME_BITS     24u
#define TRACER_LINES_MIN_RECORD_BYTES  4u
#define TRACER_LINES_MAX_RECORD_BYTES  8u
#define TRACER_LINES_MAX_GROUP_SHIFT   16u
#define TRACER_LINES_MAX_VALUE	       0x0fffffffu

struct tracer_lines {
	uint32_t magic;		/* TRACER_LINES_MAGIC */
	uint16_t version;	/* TRACER_LINES_VERSION */
	uint16_t word_size;	/* sizeof(uintptr_t) of the image */
	uint32_t block_bytes;	/* each block's share of the stream */
	uint32_t literal_bytes; /* of a block's first row */
	uint32_t file_bits;	/* of a file in a block's first row */
	uint32_t row_count;	/* for the record: the lookup needs it not */
	uint32_t block_count;
	uint32_t page_count;  /* pages of code from base to the last row */
	uint32_t stream_size; /* bytes: the last block's may be fewer */
	uint32_t file_count;  /* file 0 included */
	uint32_t group_shift; /* a group has 2^group_shift pages */
	uintptr_t base;	      /* addresses are from here */
	/* The blocks that start below a page: its group's entry plus its own;
	 * page_count + 1 entries (the last says block_count) and a group for
	 * each */
	const uint16_t *group_block;
	const uint8_t *page_block;
	const uint8_t *stream;
	/* The inline table (line_table_bytes() counts the fields above): */
	uint32_t call_bits;	 /* of a call in a block's first row: 0 if none */
	uint32_t call_count;	 /* inlined calls: records, 1 on (0 is none) */
	uint32_t record_bytes;	 /* of a call's record */
	uint32_t name_bits;	 /* of its function's name in the record */
	uint32_t name_count;	 /* names, 1 on (0 is none) */
	uint32_t call_line_bits; /* of its call's line in the record */
	/* Call n's record at records[(n - 1) * record_bytes], little-endian:
	 * its parent in the low call_bits bits, then its name (name_bits),
	 * its call's file (file_bits), its call's line (call_line_bits) */
	const uint8_t *records;
	/* The names, each once, NUL-terminated, in strings[] (strings_size
	 * bytes, a multiple of 4): string_offsets[] holds the offset of files
	 * 1 to file_count - 1, then of names 1 to name_count. */
	uint32_t strings_size;
	/* tracer_header_hash() of every 32-bit field above but magic, version
	 * and word size, then base (64-bit, low word first) */
	uint32_t checksum;
	const uint32_t *string_offsets;
	const char *strings;
	/* A hash per block of group_block[], page_block[], stream[],
	 * records[], string_offsets[], then strings[] (table_hash.h): the
	 * tracer checks them all before its first lookup of a walk. */
	const uint32_t *hashes;
};

/* The descriptor's checksum: tracer_header_hash() of every 32-bit field
 * after word_size but checksum, in order, then base (64-bit, low word
 * first). lines.c, shared with symgen, which writes it. */
uint32_t tracer_lines_checksum(const struct tracer_lines *table);

/* The special opcode for a step of `steps` halfwords and a line delta, or
 * -1 if none has them. */
static inline int tracer_lines_special(uint32_t steps, int64_t line_delta)
{
	const int64_t line_index = line_delta - TRACER_LINES_LINE_BASE;
	uint64_t opcode;

	if (steps == 0 || line_index < 0 || line_index >= TRACER_LINES_LINE_RANGE)
		return -1;
	opcode = (uint64_t)(steps - 1) * TRACER_LINES_LINE_RANGE + (uint64_t)line_index +
		 TRACER_LINES_SPECIAL;
	return opcode <= 255 ? (int)opcode : -1;
}

#endif /* TRACER_LINE_FORMAT_H */

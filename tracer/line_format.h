/*
 * line_format.h - PROTOTYPE (issue 19, not in the image yet): the layout of
 * the line table (pc -> file, line), shared by the tracer's lookup
 * (tracer/lines.c) and symgen's encoder (symgen/line_table.c).
 *
 * Why this layout (measured by tests/bench/line_bench.py and
 * tests/tools/line_lookup): a byte-oriented code decodes 5 to 20 times
 * faster than bit-packed exp-Golomb rows (bits in blocks of 64 rows: 1.59
 * bytes per row on gcc -O2 but 10,000 instructions a lookup; of 16 rows:
 * 2,900), and with the opcodes below it holds the 1.85 bytes per
 * row at blocks of 32 rows (at most 1.84 on the test kernels, 1.35 on the
 * 10x kernel), with 16-bit block entries under 32-bit group entries (0.14
 * bytes per row; two 32-bit words per block would take 0.25). Its lookup
 * costs 482 instructions on average at gcc-O2-fp0's return addresses on
 * rv64imac -O2 (clang-O2-fp1: 489 at 1.84 bytes per row; the 10x kernel:
 * 488 at 1.35; blocks of 24: 407 at 1.88; of 16: 363 at 2.00), was 612
 * before the page map of blocks, the opcodes tested by frequency,
 * word-size indices and one-byte LEB128 in line: about 210 a lookup
 * whatever the block (the page, the blocks after it, the first row, the
 * call) and 17 a row decoded. The 400
 * is for the lines and the inline chain together, so the open question
 * stays the rows decoded. Considered, not built: blocks that start at each
 * function, found by the symbol's index, which the frame's symbol lookup
 * has already paid for (a function has 21 rows on average); but a block's
 * first row and entries for each of 284 functions take about 0.3 bytes a
 * row more, past the 1.85.
 *
 * Rows: where the code of (file, line) starts, one per change of (file,
 * line), sorted by address; the rows of GDB's choice (dwarf_lines.h). File 0
 * is "no line": the end of a sequence, code no line program covers.
 * Addresses are 2-byte aligned (RISC-V's C extension), so steps are counted
 * in halfwords, each at least 1.
 *
 * Rows are cut into blocks of block_rows, and blocks into groups of
 * TRACER_LINES_GROUP_BLOCKS. Per group, in arrays of their own: the address
 * of its first row (32 bits, from base) and the byte offset of its first
 * block in the stream (32 bits); per block, from its group's: the address
 * of its first row in halfwords and its byte offset (16 bits each); per
 * 1 KiB page of code (TRACER_LINES_PAGE_SHIFT), the blocks that start at or
 * below it (16 bits). A lookup takes the page's blocks and any that start
 * between the page and pc (no search: 512-byte pages save 14 instructions
 * more at blocks of 32, but take clang-O2-fp1 to 1.859 bytes per row), then
 * decodes the block's rows from its first until the next starts above pc. In the
 * stream a block starts with its first row's file and line; each further
 * row follows in one of two codecs:
 *
 * TRACER_LINES_BYTES (the chosen one): a byte-oriented code like DWARF's
 * special opcodes (DWARF 5, section 6.2.5.1), on halfword steps, with the
 * two files before the current one remembered with their last lines (an
 * inlined function's rows alternate with its caller's):
 *   >= TRACER_LINES_SPECIAL   one row of the same file: (byte - SPECIAL) /
 *                             16 + 1 halfwords on, (byte - SPECIAL) % 16 +
 *                             LINE_BASE lines on
 *   TRACER_LINES_NEAR + n     (n < 32) n + 1 halfwords on, same file, the
 *                             next byte (int8) lines on
 *   TRACER_LINES_RECENT + n   (n < 32) n % 16 + 1 halfwords on, in the
 *                             file before the current one (n < 16) or the
 *                             one before it; the next byte (int8) lines on
 *                             from that file's last line
 *   TRACER_LINES_FAR + n      (n < 16) n + 1 halfwords on, same file, the
 *                             next two bytes (int16, little-endian) lines on
 *   TRACER_LINES_SWITCH + n   (n < 16) n + 1 halfwords on, in the file of
 *                             the ULEB128 that follows, at the line of the
 *                             ULEB128 after it
 *   TRACER_LINES_ADVANCE      ULEB128 steps - 1, SLEB128 lines (same file)
 *   TRACER_LINES_FILE         ULEB128 file, ULEB128 steps - 1, ULEB128 line
 * A block's first row: ULEB128 file, ULEB128 line. A block's rows end
 * where the next block's start (the last's at the end of the stream).
 *
 * TRACER_LINES_BITS (measured, rejected: several times slower to decode):
 * bit strings,
 * most significant bit first. A block's first row: the file in file_bits
 * bits, the line in 16 bits. Each further row: the file ("0" the previous
 * row's, "10" + 1 bit the second or third most recent file of the block,
 * "11" + file_bits bits any other), steps - 1 as exp-Golomb with k =
 * address_k, the line's delta from the last line of the same file among
 * the three most recent (else from the previous row's), zigzagged, as
 * exp-Golomb with k = line_k.
 */
#ifndef TRACER_LINE_FORMAT_H
#define TRACER_LINE_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TRACER_LINES_MAGIC   0x4e494c54u /* "TLIN" in memory */
#define TRACER_LINES_VERSION 2u

/* The opcodes (see above); LINE_BASE and the number of codes of each
 * kind chosen by measurement on the test kernels. */
#define TRACER_LINES_END	0u
#define TRACER_LINES_FILE	1u
#define TRACER_LINES_ADVANCE	2u
#define TRACER_LINES_NEAR	3u
#define TRACER_LINES_RECENT	35u
#define TRACER_LINES_SWITCH	67u
#define TRACER_LINES_FAR	83u
#define TRACER_LINES_SPECIAL	96u
#define TRACER_LINES_LINE_BASE	(-5)
#define TRACER_LINES_LINE_RANGE 16u

/* page_block[] has an entry per 2^TRACER_LINES_PAGE_SHIFT bytes of code:
 * a block's first byte, its address in halfwords from its page's start,
 * holds 256 of them. */
#define TRACER_LINES_PAGE_SHIFT 9u

/* Pages per group of the page map at most: 2^TRACER_LINES_GROUP_SHIFT
 * (symgen takes fewer where a group's blocks pass 255). */
#define TRACER_LINES_GROUP_SHIFT 5u

/* Bounds on what a table may say: blocks of at most 256 bytes; literals
 * of 4 to 8 bytes; files below 2^16; halfword steps and LEB128 values
 * below 2^28 (at most 4 bytes). */
#define TRACER_LINES_MAX_BLOCK_BYTES   256u
#define TRACER_LINES_MIN_LITERAL_BYTES 4u
#define TRACER_LINES_MAX_LITERAL_BYTES 8u
#define TRACER_LINES_MAX_FILE_BITS     16u
#define TRACER_LINES_MAX_GROUP_SHIFT   16u
#define TRACER_LINES_MAX_VALUE	       0x0fffffffu

struct tracer_lines {
	uint32_t magic;
	uint32_t version;
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
};

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

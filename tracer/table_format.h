/*
 * table_format.h - the headers of the tables symgen embeds into the image
 * (struct tracer_symtab, struct tracer_fde_index, struct tracer_unwind_table
 * in tracer.h): their magic numbers, version and checksum, and the bit
 * layout of the unwind table's rows. Shared by the tracer, which validates a
 * table once per walk before it reads it, and by symgen, which writes it.
 *
 * A panic often follows memory corruption, and the tables sit at the end of
 * the image, where a page allocator that starts at the linker's end symbol
 * overwrites them. A table whose header, bounds or checksum do not hold is
 * rejected, never dereferenced.
 *
 * The checksum is Fletcher-like over little-endian 32-bit words (the tables
 * are arrays of 32- and 64-bit fields, their names padded to 4 bytes): two
 * additions per word, so validating a table of a few thousand symbols costs
 * a few instructions per byte, once per walk.
 */
#ifndef TRACER_TABLE_FORMAT_H
#define TRACER_TABLE_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TRACER_SYMTAB_MAGIC 0x4d595354u	   /* "TSYM" in memory */
#define TRACER_FDE_INDEX_MAGIC 0x45444654u /* "TFDE" in memory */
#define TRACER_UNWIND_TABLE_MAGIC 0x574e5554u /* "TUNW" in memory */
#define TRACER_TABLE_VERSION 1u

struct table_checksum {
	uint32_t a;
	uint32_t b;
};

static inline void table_checksum_start(struct table_checksum *sum)
{
	sum->a = 1;
	sum->b = 0;
}

static inline void table_checksum_word(struct table_checksum *sum, uint32_t word)
{
	sum->a += word;
	sum->b += sum->a; /* position-dependent: catches swapped words */
}

static inline void table_checksum_words(struct table_checksum *sum, const uint32_t *words,
					size_t count)
{
	for (size_t i = 0; i < count; i++)
		table_checksum_word(sum, words[i]);
}

static inline uint32_t table_checksum_end(const struct table_checksum *sum)
{
	return sum->b ^ (sum->a << 16 | sum->a >> 16);
}

/*
 * The unwind table (tracer/UNWIND_TABLE.md): a dictionary of the distinct
 * 32-bit rule words, 16-bit rows, and a lookup index over blocks of
 * 2^TRACER_UNWIND_BLOCK_SHIFT bytes of code from the table's base. A row
 * is the row's first address as an offset within its block, in 2-byte
 * units (instructions are 2-byte aligned), in the top
 * TRACER_UNWIND_ROW_OFFSET_BITS bits, and its rule's index in the
 * dictionary in the low TRACER_UNWIND_RULE_BITS. lookup[i] is the index of
 * the first row of block i (lookup[block_count] = count): a block's rows
 * sort as numbers in the order of their addresses. A rule word:
 *
 *   bits  0-1   CFA:  0 no CFI (no FDE covers the pc), 1 sp + offset,
 *                     2 s0 + offset, 3 interpret (the row does not fit:
 *                     the DWARF unwinder computes it)
 *   bits  2-3   ra:   0 still in ra, 1 saved at CFA + offset,
 *                     2 undefined (outermost frame); 3 is invalid
 *   bit   4     s0:   0 unchanged, 1 saved at CFA + offset
 *   bits  5-11  ra's offset from the CFA, signed, in words
 *   bits 12-18  s0's offset from the CFA, signed, in words
 *   bits 19-31  the CFA's offset from sp or s0, signed, in units of 4 bytes
 *
 * The offset fields are 0 when their rule has none; a no-CFI or interpret
 * rule is its CFA kind alone.
 */
#define TRACER_UNWIND_VERSION	       2u
#define TRACER_UNWIND_BLOCK_SHIFT      6u
#define TRACER_UNWIND_ROW_OFFSET_BITS  (TRACER_UNWIND_BLOCK_SHIFT - 1u)
#define TRACER_UNWIND_RULE_BITS	       (16u - TRACER_UNWIND_ROW_OFFSET_BITS)
#define TRACER_UNWIND_MAX_RULES	       (1u << TRACER_UNWIND_RULE_BITS)

/* The row for an offset within its block (even) and a rule index. */
static inline uint16_t tracer_unwind_row(uint32_t block_offset, uint32_t rule_index)
{
	return (uint16_t)(block_offset >> 1 << TRACER_UNWIND_RULE_BITS | rule_index);
}

/* A row's offset within its block, in bytes, and its rule's index. */
static inline uint32_t tracer_unwind_row_offset(uint16_t row)
{
	return (uint32_t)(row >> TRACER_UNWIND_RULE_BITS) << 1;
}

static inline uint32_t tracer_unwind_row_rule(uint16_t row)
{
	return row & (TRACER_UNWIND_MAX_RULES - 1);
}

/* The largest row whose offset is at or below `block_offset` (any rule):
 * a search compares whole rows with it. */
static inline uint16_t tracer_unwind_row_key(uintptr_t block_offset)
{
	return (uint16_t)((block_offset & ((1u << TRACER_UNWIND_BLOCK_SHIFT) - 2))
			      << (TRACER_UNWIND_RULE_BITS - 1) |
			  (TRACER_UNWIND_MAX_RULES - 1));
}

/* The unwind table's checksum: the words count, block_count, rule_count,
 * base (64-bit, low word first, on rv32 too), then each row as a word of
 * its own, the block_count + 1 lookup entries and the rules. An empty
 * table (count 0) has no arrays. */
static inline uint32_t tracer_unwind_checksum(uint32_t count, uint32_t block_count,
					      uint32_t rule_count, uint64_t base,
					      const uint16_t *rows, const uint32_t *lookup,
					      const uint32_t *rules)
{
	struct table_checksum sum;

	table_checksum_start(&sum);
	table_checksum_word(&sum, count);
	table_checksum_word(&sum, block_count);
	table_checksum_word(&sum, rule_count);
	table_checksum_word(&sum, (uint32_t)base);
	table_checksum_word(&sum, (uint32_t)(base >> 32));
	if (count > 0) {
		for (uint32_t i = 0; i < count; i++)
			table_checksum_word(&sum, rows[i]);
		table_checksum_words(&sum, lookup, (size_t)block_count + 1);
		table_checksum_words(&sum, rules, rule_count);
	}
	return table_checksum_end(&sum);
}

enum tracer_unwind_cfa {
	TRACER_UNWIND_CFA_NONE,
	TRACER_UNWIND_CFA_SP,
	TRACER_UNWIND_CFA_S0,
	TRACER_UNWIND_CFA_INTERPRET,
};

enum tracer_unwind_ra {
	TRACER_UNWIND_RA_REGISTER,
	TRACER_UNWIND_RA_SAVED,
	TRACER_UNWIND_RA_UNDEFINED,
};

#define TRACER_UNWIND_RA_SHIFT	       2u
#define TRACER_UNWIND_S0_SAVED	       (1u << 4)
#define TRACER_UNWIND_RA_OFFSET_SHIFT  5u
#define TRACER_UNWIND_S0_OFFSET_SHIFT  12u
#define TRACER_UNWIND_CFA_OFFSET_SHIFT 19u
#define TRACER_UNWIND_SAVE_BITS	       7u  /* ra's and s0's offsets */
#define TRACER_UNWIND_CFA_BITS	       13u /* the CFA's offset */
#define TRACER_UNWIND_CFA_UNIT	       4

/* The unsigned field of `bits` bits at `shift`. */
static inline uint32_t tracer_unwind_field(uint32_t rule, unsigned shift, unsigned bits)
{
	return rule >> shift & ((1u << bits) - 1);
}

/* The signed (two's complement) field of `bits` bits at `shift`: shifted
 * to the top, then back with the sign (GCC and clang convert and shift
 * signed values so, as two's complement). */
static inline int32_t tracer_unwind_signed(uint32_t rule, unsigned shift, unsigned bits)
{
	return (int32_t)(rule << (32 - shift - bits)) >> (32 - bits);
}

/* Places `value` as a signed field of `bits` bits at `shift`; false if it
 * does not fit. */
static inline bool tracer_unwind_put_signed(uint32_t *rule, int64_t value, unsigned shift,
					   unsigned bits)
{
	int64_t limit = (int64_t)1 << (bits - 1);

	if (value < -limit || value >= limit)
		return false;
	*rule |= ((uint32_t)value & ((1u << bits) - 1)) << shift;
	return true;
}

/*
 * The rule word of a sp- or s0-based row (symgen's side): offsets in
 * bytes, word_size that of the image. False when the row does not fit (an
 * offset too large, or not a multiple of its unit): it is then interpreted.
 */
static inline bool tracer_unwind_encode(uint32_t *rule, enum tracer_unwind_cfa cfa,
				       int64_t cfa_offset, enum tracer_unwind_ra ra,
				       int64_t ra_offset, bool s0_saved, int64_t s0_offset,
				       unsigned word_size)
{
	*rule = (uint32_t)cfa | (uint32_t)ra << TRACER_UNWIND_RA_SHIFT;
	if (cfa_offset % TRACER_UNWIND_CFA_UNIT != 0 ||
	    !tracer_unwind_put_signed(rule, cfa_offset / TRACER_UNWIND_CFA_UNIT,
				      TRACER_UNWIND_CFA_OFFSET_SHIFT, TRACER_UNWIND_CFA_BITS))
		return false;
	if (ra == TRACER_UNWIND_RA_SAVED &&
	    (ra_offset % word_size != 0 ||
	     !tracer_unwind_put_signed(rule, ra_offset / word_size,
				       TRACER_UNWIND_RA_OFFSET_SHIFT, TRACER_UNWIND_SAVE_BITS)))
		return false;
	if (s0_saved) {
		*rule |= TRACER_UNWIND_S0_SAVED;
		if (s0_offset % word_size != 0 ||
		    !tracer_unwind_put_signed(rule, s0_offset / word_size,
					      TRACER_UNWIND_S0_OFFSET_SHIFT,
					      TRACER_UNWIND_SAVE_BITS))
			return false;
	}
	return true;
}

#endif /* TRACER_TABLE_FORMAT_H */

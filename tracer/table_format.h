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
 * The unwind table (tracer/UNWIND_TABLE.md): rows sorted by pc, each a pc
 * offset from the table's base and a 32-bit rule word:
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
 * row is its CFA kind alone. The lookup index has an entry per
 * 2^TRACER_UNWIND_BLOCK_SHIFT bytes from the base: the row in effect at
 * that block's first byte.
 */
#define TRACER_UNWIND_BLOCK_SHIFT 8u

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

/* The signed (two's complement) field of `bits` bits at `shift`. */
static inline int32_t tracer_unwind_signed(uint32_t rule, unsigned shift, unsigned bits)
{
	uint32_t sign = 1u << (bits - 1);

	return (int32_t)(tracer_unwind_field(rule, shift, bits) ^ sign) - (int32_t)sign;
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

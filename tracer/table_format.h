/*
 * table_format.h - the headers of the tables symgen embeds into the image
 * (struct tracer_symtab, struct tracer_fde_index, struct tracer_unwind_table
 * in tracer.h): their magic numbers, version and checksum, and the bit
 * layout of the unwind table's rows. Shared by the tracer, which checks a
 * table's header when a walk starts and each block of its arrays as the
 * walk reads it, and by symgen, which writes it.
 *
 * A panic often follows memory corruption, and the tables sit at the end of
 * the image, where a page allocator that starts at the linker's end symbol
 * overwrites them. A table whose header, bounds or hashes do not hold is
 * rejected, never believed.
 *
 * The checksum is the hash of table_hash.h over the descriptor's counts,
 * sizes and base; the arrays have a hash per block of their own.
 */
#ifndef TRACER_TABLE_FORMAT_H
#define TRACER_TABLE_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "table_hash.h"

#define TRACER_SYMTAB_MAGIC	  0x4d595354u /* "TSYM" in memory */
#define TRACER_FDE_INDEX_MAGIC	  0x45444654u /* "TFDE" in memory */
#define TRACER_UNWIND_TABLE_MAGIC 0x574e5554u /* "TUNW" in memory */
#define TRACER_TABLE_VERSION	  2u

/* A descriptor's checksum: its counts, sizes and base (words, as the
 * descriptor says: table_hash.h). */
static inline uint32_t tracer_header_hash(uint32_t kind, const uint32_t *words,
					  unsigned count)
{
	uint64_t hash = tracer_hash_start(kind, 0);

	for (unsigned i = 0; i < count; i++)
		hash = tracer_hash_word(hash, words[i]);
	return tracer_hash_end(hash);
}

/*
 * The unwind table (docs/unwind-table-format.md): a dictionary of the distinct
 * rules (struct tracer_unwind_rule: offsets in bytes, ready to add),
 * 16-bit rows (each its rule's byte offset in the dictionary: its index
 * times 8), and per block of
 * 2^TRACER_UNWIND_BLOCK_SHIFT bytes of code from the table's base a 64-bit
 * map of where rows start (bit i: at offset 2i; instructions are 2-byte
 * aligned) and a 16-bit lookup[], the rows that start in it or before it
 * (so a table holds at most TRACER_UNWIND_MAX_ROWS rows). The row
 * in effect at an offset is the last row that starts at or below it:
 * lookup[block] - 1 less the rows that start in the block above it, a
 * count of bits, no search.
 *
 * A rule's kind, numbered so that the frames the capture loop takes (ra
 * saved) are kinds 0 to 3, and the commonest 0:
 *   bit 0      the CFA: 0 sp + cfa_offset, 1 s0 + cfa_offset
 *   bit 1      s0: 0 saved at CFA + s0_offset, 1 unchanged
 *   bits 2-3   ra: 0 saved at CFA + ra_offset, 1 still in ra, 2 undefined
 *              (the outermost frame)
 *   16         no CFI (no FDE covers the code)
 *   17         interpret (the row does not fit: the DWARF unwinder
 *              computes it)
 * A rule with ra saved (kinds 0 to 3) may also state its frame's size
 * (frame_size_16), the CFA's distance from sp at the calls its row covers:
 * a sp-based rule its CFA offset, when that is a multiple of 16; an
 * s0-based one what symgen measures in the code (the prologue decoder) of
 * functions that move sp by constants only. In a caller's frame the CFA is
 * then sp plus that size, whatever s0 holds: a forged saved s0 cannot move
 * it, and every common frame is computed alike. 0 where it is not known (a
 * frame of 4 KiB or more, too), and in every other rule.
 * Offsets a rule does not use are 0; a used one never is. Saved slots lie
 * below the CFA, at multiples of the word size; in a frame based on sp
 * they lie in it, between sp and the CFA, and the CFA's offset is a
 * multiple of the word size too: so a walk that keeps sp aligned and
 * inside the stack needs no check of its own for those slots. Nor for
 * those of a rule that states its frame's size, in a caller's frame: they
 * lie within that size below the CFA.
 * tracer_unwind_rule_valid() says what a rule may hold.
 */
struct tracer_unwind_rule {
	int16_t cfa_offset; /* from sp or s0, in bytes */
	int16_t ra_offset;  /* from the CFA, in bytes; 0 unless ra is saved */
	int16_t s0_offset;  /* from the CFA, in bytes; 0 unless s0 is saved */
	uint8_t kind;
	uint8_t frame_size_16; /* ra saved: CFA - sp at the row's calls, in
				  16-byte units (TRACER_UNWIND_FRAME_UNIT); 0 if
				  unknown */
};

/* The psABI keeps sp 16-byte aligned at calls: a frame's size there is a
 * multiple of it. */
#define TRACER_UNWIND_FRAME_UNIT 16u

#define TRACER_UNWIND_VERSION	  8u
#define TRACER_UNWIND_BLOCK_SHIFT 7u
#define TRACER_UNWIND_MAX_RULES	  2048u
#define TRACER_UNWIND_MAX_ROWS	  65535u /* lookup[]'s entries are 16-bit */

#define TRACER_UNWIND_CFA_ON_S0	     1u
#define TRACER_UNWIND_S0_UNCHANGED   2u
#define TRACER_UNWIND_RA_IN_REGISTER 4u
#define TRACER_UNWIND_RA_UNDEFINED   8u
#define TRACER_UNWIND_NO_CFI	     16u
#define TRACER_UNWIND_INTERPRET	     17u

enum tracer_unwind_ra {
	TRACER_UNWIND_RA_SAVED,
	TRACER_UNWIND_RA_REGISTER,
	TRACER_UNWIND_RA_LOST, /* undefined: the outermost frame */
};

/* The kind of a sp- or s0-based rule. */
static inline uint16_t tracer_unwind_kind(bool cfa_on_s0, enum tracer_unwind_ra ra,
					  bool s0_saved)
{
	return (uint16_t)((cfa_on_s0 ? TRACER_UNWIND_CFA_ON_S0 : 0) |
			  (s0_saved ? 0 : TRACER_UNWIND_S0_UNCHANGED) |
			  (unsigned)ra << 2);
}

static inline bool tracer_unwind_ra_saved(uint16_t kind)
{
	return (kind & (TRACER_UNWIND_RA_IN_REGISTER | TRACER_UNWIND_RA_UNDEFINED)) == 0;
}

/* The bits set in `bits`: in shifts, masks and one multiplication (the
 * tracer's targets need not have Zbb's cpop). */
static inline unsigned tracer_unwind_popcount(uint64_t bits)
{
	bits -= bits >> 1 & 0x5555555555555555u;
	bits = (bits & 0x3333333333333333u) + (bits >> 2 & 0x3333333333333333u);
	bits = (bits + (bits >> 4)) & 0x0f0f0f0f0f0f0f0fu;
	return (unsigned)((bits * 0x0101010101010101u) >> 56);
}

/* A block's map less the rows that start before `end` (its low bits: the
 * offset within the block, even): those at or past it, shifted down. */
static inline uint64_t tracer_unwind_rows_from(uint64_t map, uintptr_t end)
{
	unsigned shift = end >> 1 & 63;
#if UINTPTR_MAX > 0xffffffffu
	return map >> shift;
#else
	/* In 32-bit halves: rv32 compilers call a runtime routine for a
	 * variable 64-bit shift, which a freestanding kernel need not have. */
	uint32_t low = (uint32_t)map;
	uint32_t high = (uint32_t)(map >> 32);

	if (shift >= 32)
		return high >> (shift - 32);
	if (shift == 0)
		return map;
	return (uint64_t)(high >> shift) << 32 | (low >> shift | high << (32 - shift));
#endif
}

/* Whether a rule is one symgen writes for an image of word_size-byte
 * words (see above): the kind known, offsets only where the kind has
 * them, saved slots below the CFA at word multiples, and inside the frame
 * when the CFA is sp-based or the rule states the frame's size; a size only
 * with ra saved, a sp-based rule's its CFA offset. A no-CFI or interpret
 * rule is its kind alone. */
static inline bool tracer_unwind_rule_valid(const struct tracer_unwind_rule *rule,
					    unsigned word_size)
{
	const int word = (int)word_size;
	unsigned kind = rule->kind;

	if (kind == TRACER_UNWIND_NO_CFI || kind == TRACER_UNWIND_INTERPRET)
		return rule->cfa_offset == 0 && rule->ra_offset == 0 &&
		       rule->s0_offset == 0 && rule->frame_size_16 == 0;
	if (rule->frame_size_16 != 0 &&
	    (!tracer_unwind_ra_saved(rule->kind) ||
	     (!(kind & TRACER_UNWIND_CFA_ON_S0) &&
	      rule->cfa_offset != rule->frame_size_16 * (int)TRACER_UNWIND_FRAME_UNIT)))
		return false;
	if (kind >= TRACER_UNWIND_NO_CFI ||
	    (kind & TRACER_UNWIND_RA_IN_REGISTER && kind & TRACER_UNWIND_RA_UNDEFINED) ||
	    tracer_unwind_ra_saved(rule->kind) != (rule->ra_offset != 0) ||
	    !(kind & TRACER_UNWIND_S0_UNCHANGED) != (rule->s0_offset != 0) ||
	    rule->ra_offset > 0 || rule->ra_offset % word != 0 || rule->s0_offset > 0 ||
	    rule->s0_offset % word != 0)
		return false;
	if (kind & TRACER_UNWIND_CFA_ON_S0) {
		const int size = rule->frame_size_16 * (int)TRACER_UNWIND_FRAME_UNIT;

		return size == 0 ||
		       (-rule->ra_offset <= size && -rule->s0_offset <= size);
	}
	return rule->cfa_offset % word == 0 && -rule->ra_offset <= rule->cfa_offset &&
	       -rule->s0_offset <= rule->cfa_offset;
}

/* Places a signed offset in a rule's 16-bit field; false if it does not
 * fit. */
static inline bool tracer_unwind_put(int16_t *field, int64_t value)
{
	if (value < INT16_MIN || value > INT16_MAX)
		return false;
	*field = (int16_t)value;
	return true;
}

/*
 * The rule of a sp- or s0-based row (symgen's side): offsets in bytes (the
 * ra and s0 offsets ignored unless saved), word_size that of the image.
 * False when the row does not fit: an offset out of range, a slot at or
 * above the CFA or off the word grid, outside a sp-based frame; it is then
 * interpreted. A sp-based rule with ra saved states its frame's size, its
 * CFA offset, where the format can; an s0-based one is left to symgen,
 * which measures it.
 */
static inline bool tracer_unwind_encode(struct tracer_unwind_rule *rule, bool cfa_on_s0,
					int64_t cfa_offset, enum tracer_unwind_ra ra,
					int64_t ra_offset, bool s0_saved,
					int64_t s0_offset, unsigned word_size)
{
	rule->kind = tracer_unwind_kind(cfa_on_s0, ra, s0_saved);
	rule->frame_size_16 = 0;
	rule->ra_offset = 0;
	rule->s0_offset = 0;
	if (!tracer_unwind_put(&rule->cfa_offset, cfa_offset) ||
	    (ra == TRACER_UNWIND_RA_SAVED &&
	     (ra_offset == 0 || !tracer_unwind_put(&rule->ra_offset, ra_offset))) ||
	    (s0_saved &&
	     (s0_offset == 0 || !tracer_unwind_put(&rule->s0_offset, s0_offset))))
		return false;
	if (!cfa_on_s0 && ra == TRACER_UNWIND_RA_SAVED && cfa_offset > 0 &&
	    cfa_offset % TRACER_UNWIND_FRAME_UNIT == 0 &&
	    cfa_offset / TRACER_UNWIND_FRAME_UNIT <= UINT8_MAX)
		rule->frame_size_16 = (uint8_t)(cfa_offset / TRACER_UNWIND_FRAME_UNIT);
	return tracer_unwind_rule_valid(rule, word_size);
}

#endif /* TRACER_TABLE_FORMAT_H */

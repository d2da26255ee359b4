/*
 * table_hash.h - the hash that proves a block of an embedded table, or of
 * .eh_frame, holds what symgen read: shared by symgen, which writes one hash
 * per block with each table, and by the tracer, which checks a block the
 * first time a walk reads from it (verify.c).
 *
 * Each array a table holds (and .eh_frame) is cut into blocks of
 * TRACER_HASH_BLOCK bytes from its start, the last one shorter. A block's
 * hash starts from a seed of the array's kind and the block's index (so
 * that no block passes for another), then takes its little-endian 64-bit
 * words in order, a last partial word zero-extended:
 *
 *     h = (h ^ word) * TRACER_HASH_MULTIPLIER;  h ^= h >> 29;
 *
 * and is stored folded to 32 bits (h ^ h >> 32). Each step is a bijection
 * of h, so a block that differs from symgen's in any way reaches another
 * h, and its 32 bits match only by chance, about once in 2^32, whatever
 * the change: a compensated one (+d, -2d, +d, which a sum cannot see)
 * like any other. The descriptors' own fields (counts, sizes, the base)
 * go through the same hash, as 32-bit words of a block of their own kind.
 *
 * The block size is a trade measured in `make bench`: a walk checks the
 * blocks it reads, the first time, about 7 instructions per 8 bytes on
 * rv64 plus some 60 per block; a table stores 4 bytes of hash per block
 * (6% at 64 bytes). Arrays start 8-byte aligned on rv64 (4 on rv32), so
 * that a word is one load.
 */
#ifndef TRACER_TABLE_HASH_H
#define TRACER_TABLE_HASH_H

#include <stdint.h>

#define TRACER_HASH_BLOCK_SHIFT 6u
#define TRACER_HASH_BLOCK	(1u << TRACER_HASH_BLOCK_SHIFT)
#define TRACER_HASH_MULTIPLIER	0x9e3779b97f4a7c15u

/* The kinds of hashed arrays: each table's hashes[] holds its arrays'
 * blocks in this order (tracer.h). */
enum tracer_hashed {
	TRACER_HASHED_SYMTAB_HEADER = 1,
	TRACER_HASHED_SYMBOLS,
	TRACER_HASHED_NAMES,
	TRACER_HASHED_FDE_INDEX_HEADER,
	TRACER_HASHED_FDE_ENTRIES,
	TRACER_HASHED_EH_FRAME,
	TRACER_HASHED_UNWIND_HEADER,
	TRACER_HASHED_UNWIND_ROWS,
	TRACER_HASHED_UNWIND_MAPS,
	TRACER_HASHED_UNWIND_LOOKUP,
	TRACER_HASHED_UNWIND_RULES,
	/* The kinds a walk checks block by block (walk.h): the line table's
	 * arrays, after them, are checked whole before a walk's first lookup. */
	TRACER_HASHED_KINDS,
	TRACER_HASHED_LINES_HEADER = TRACER_HASHED_KINDS,
	TRACER_HASHED_LINES_GROUPS,
	TRACER_HASHED_LINES_PAGES,
	TRACER_HASHED_LINES_STREAM,
	TRACER_HASHED_LINES_RECORDS,
	TRACER_HASHED_LINES_STRING_OFFSETS,
	TRACER_HASHED_LINES_STRINGS,
};

static inline uint64_t tracer_hash_start(uint32_t kind, uint32_t block)
{
	return (uint64_t)kind * 0xc2b2ae3d27d4eb4fu ^
	       (uint64_t)block * 0x165667b19e3779f9u;
}

static inline uint64_t tracer_hash_word(uint64_t hash, uint64_t word)
{
	hash = (hash ^ word) * TRACER_HASH_MULTIPLIER;
	return hash ^ hash >> 29;
}

/* What a table stores: the hash folded to 32 bits. */
static inline uint32_t tracer_hash_end(uint64_t hash)
{
	return (uint32_t)(hash ^ hash >> 32);
}

/* The blocks of an array of `size` bytes. */
static inline uint32_t tracer_hash_blocks(uint64_t size)
{
	return (uint32_t)((size + TRACER_HASH_BLOCK - 1) >> TRACER_HASH_BLOCK_SHIFT);
}

/* The hash of block `block` of an array of kind `kind` whose bytes (in
 * memory that need not be aligned) are bytes[0, size): for the host tools
 * and tests; the tracer reads the target's words itself (verify.c). */
static inline uint32_t tracer_hash_bytes(uint32_t kind, uint32_t block,
					 const unsigned char *bytes, uint64_t size)
{
	uint64_t start = (uint64_t)block << TRACER_HASH_BLOCK_SHIFT;
	uint64_t end =
	    size - start < TRACER_HASH_BLOCK ? size : start + TRACER_HASH_BLOCK;
	uint64_t hash = tracer_hash_start(kind, block);

	for (uint64_t i = start; i < end; i += 8) {
		uint64_t word = 0;

		for (uint64_t j = 0; j < 8 && i + j < end; j++)
			word |= (uint64_t)bytes[i + j] << (8 * j);
		hash = tracer_hash_word(hash, word);
	}
	return tracer_hash_end(hash);
}

#endif /* TRACER_TABLE_HASH_H */

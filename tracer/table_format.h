/*
 * table_format.h - the headers of the tables symgen embeds into the image
 * (struct tracer_symtab, struct tracer_fde_index in tracer.h): their magic
 * numbers, version and checksum. Shared by the tracer, which validates a
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

#include <stddef.h>
#include <stdint.h>

#define TRACER_SYMTAB_MAGIC 0x4d595354u	   /* "TSYM" in memory */
#define TRACER_FDE_INDEX_MAGIC 0x45444654u /* "TFDE" in memory */
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

#endif /* TRACER_TABLE_FORMAT_H */

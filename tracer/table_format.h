/*
 * table_format.h - the header of the tables symgen embeds (struct
 * tracer_symtab and struct tracer_fde_index in tracer.h): their magic
 * numbers, version and checksum. Shared by the tracer, which checks them,
 * and symgen, which writes them.
 *
 * The tracer validates the embedded tables once per walk, so that a corrupt
 * table (a stray write in the panicking kernel, a stale or foreign image) is
 * rejected instead of dereferenced.
 *
 * Freestanding: only <stdint.h> and <stddef.h>.
 */
#ifndef TRACER_TABLE_FORMAT_H
#define TRACER_TABLE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define TRACER_SYMTAB_MAGIC    0x4d595354u /* bytes "TSYM" little-endian */
#define TRACER_FDE_INDEX_MAGIC 0x45444654u /* bytes "TFDE" */
#define TRACER_TABLE_VERSION   1u

/*
 * A Fletcher-style checksum over 32-bit words: cheap enough for a panic
 * handler, and, unlike a plain sum, it depends on the order of the words.
 * Arithmetic is modulo 2^32.
 */
struct table_checksum {
	uint32_t a, b;
};

static inline void table_checksum_start(struct table_checksum *c)
{
	c->a = 1;
	c->b = 0;
}

static inline void table_checksum_word(struct table_checksum *c, uint32_t w)
{
	c->a += w;
	c->b += c->a;
}

static inline void table_checksum_words(struct table_checksum *c, const uint32_t *w,
					size_t n)
{
	for (size_t i = 0; i < n; i++)
		table_checksum_word(c, w[i]);
}

static inline uint32_t table_checksum_end(const struct table_checksum *c)
{
	return c->b ^ (c->a << 16 | c->a >> 16);
}

#endif /* TRACER_TABLE_FORMAT_H */

/*
 * search.h - binary search over the sorted tables symgen embeds (the symbol
 * table, the FDE index): each entry starts with its address.
 */
#ifndef TRACER_SEARCH_H
#define TRACER_SEARCH_H

#include "tracer_tables.h"

/* floor(log2(count)) for count >= 1 (0 for 0): the probes sorted_search
 * makes after its first. */
static inline unsigned sorted_levels(uint32_t count)
{
	unsigned levels = 0;

	/* Written out: GCC keeps the loop. */
	if (count >> 16) {
		count >>= 16;
		levels += 16;
	}
	if (count >> 8) {
		count >>= 8;
		levels += 8;
	}
	if (count >> 4) {
		count >>= 4;
		levels += 4;
	}
	if (count >> 2) {
		count >>= 2;
		levels += 2;
	}
	return levels + (count >> 1);
}

/* One probe: entry + offset if its key is <= key, else entry. */
static inline const char *sorted_probe(const char *entry, uintptr_t offset, uintptr_t key)
{
	return *(const uintptr_t *)(entry + offset) <= key ? entry + offset : entry;
}

/* Probes above 2^SORTED_UNROLLED entries run in a loop, the others unrolled. */
#define SORTED_UNROLLED 12u

/*
 * Shar's binary search over `count` > 0 sorted entries of `size` bytes,
 * each starting with its uintptr_t key: the last entry whose key <= key, or
 * the first entry if none is. levels is sorted_levels(count), and
 * first_probe count - 2^levels. After the first probe the entry lies in
 * [entry, entry + 2^levels) (first_probe < 2^levels); each probe then
 * halves that range. The probes are unrolled, entered at the first one the
 * range needs: each is then a load, a comparison and an addition of a
 * constant. Inline (always: GCC would not, for its size), with a constant
 * size: the symbol table and the FDE index use it once a frame.
 */
_Static_assert(offsetof(struct tracer_symbol, addr) == 0, "sorted_search: key first");
_Static_assert(offsetof(struct tracer_fde_entry, pc_start) == 0,
	       "sorted_search: key first");

static inline __attribute__((always_inline)) const void *
sorted_search_from(const void *entries, uint32_t first_probe, unsigned levels,
		   size_t size, uintptr_t key)
{
	const char *entry = sorted_probe(entries, (uintptr_t)first_probe * size, key);

	for (; levels > SORTED_UNROLLED; levels--)
		entry = sorted_probe(entry, ((uintptr_t)1 << (levels - 1)) * size, key);
	switch (levels) {
	case 12:
		entry = sorted_probe(entry, 2048 * size, key);
		/* fall through */
	case 11:
		entry = sorted_probe(entry, 1024 * size, key);
		/* fall through */
	case 10:
		entry = sorted_probe(entry, 512 * size, key);
		/* fall through */
	case 9:
		entry = sorted_probe(entry, 256 * size, key);
		/* fall through */
	case 8:
		entry = sorted_probe(entry, 128 * size, key);
		/* fall through */
	case 7:
		entry = sorted_probe(entry, 64 * size, key);
		/* fall through */
	case 6:
		entry = sorted_probe(entry, 32 * size, key);
		/* fall through */
	case 5:
		entry = sorted_probe(entry, 16 * size, key);
		/* fall through */
	case 4:
		entry = sorted_probe(entry, 8 * size, key);
		/* fall through */
	case 3:
		entry = sorted_probe(entry, 4 * size, key);
		/* fall through */
	case 2:
		entry = sorted_probe(entry, 2 * size, key);
		/* fall through */
	case 1:
		entry = sorted_probe(entry, size, key);
		break;
	default:
		break;
	}
	return entry;
}

/* sorted_search_from's first probe for a table of count >= 1 entries. */
static inline uint32_t sorted_first_probe(uint32_t count)
{
	return count - ((uint32_t)1 << sorted_levels(count));
}

/* The same search from the table's count: the last entry whose key <= key,
 * or NULL. */
static inline const void *sorted_search(const void *entries, uint32_t count, size_t size,
					uintptr_t key)
{
	unsigned levels = sorted_levels(count);

	if (count == 0 || key < *(const uintptr_t *)entries)
		return NULL;
	return sorted_search_from(entries, sorted_first_probe(count), levels, size, key);
}

/* The symbol holding addr, if `symbol` is the last one at or below it
 * (sorted_search's answer), else NULL: past its end is padding between
 * functions, or data after the last; below it, an address before the
 * first. That one is compared: the subtraction wraps, and below a symbol
 * whose end passes the top of the address space (a size as large as rv32's
 * whole space) it would land inside the size. */
static inline const struct tracer_symbol *
symbol_holding(const struct tracer_symbol *symbol, uintptr_t addr)
{
	return addr >= symbol->addr && addr - symbol->addr < symbol->size ? symbol : NULL;
}

#endif /* TRACER_SEARCH_H */

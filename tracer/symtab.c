/*
 * symtab.c - lookups in the table symgen embeds (sorted by address).
 */
#include "internal.h"

const struct tracer_symbol *tracer_symtab_lookup(const struct tracer_symtab *symtab,
						 uintptr_t addr)
{
	uint32_t low = 0;
	uint32_t high = symtab->count;
	const struct tracer_symbol *symbol;

	/* Find the last symbol starting at or below addr. */
	while (low < high) {
		uint32_t mid = low + (high - low) / 2;

		if (symtab->symbols[mid].addr <= addr)
			low = mid + 1;
		else
			high = mid;
	}
	if (low == 0)
		return NULL;
	symbol = &symtab->symbols[low - 1];
	/* Past its end: padding between functions, or data after the last. */
	if (addr - symbol->addr >= symbol->size)
		return NULL;
	return symbol;
}

static bool names_equal(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

const struct tracer_symbol *tracer_symtab_find(const struct tracer_symtab *symtab,
					       const char *name)
{
	for (uint32_t i = 0; i < symtab->count; i++) {
		if (names_equal(tracer_symbol_name(symtab, &symtab->symbols[i]), name))
			return &symtab->symbols[i];
	}
	return NULL;
}

/*
 * symtab.c - lookups in the table symgen embeds (sorted by address).
 */
#include "internal.h"

const struct tracer_symbol *tracer_symtab_lookup(const struct tracer_symtab *symtab,
						 uintptr_t addr)
{
	const struct tracer_symbol *symbol = symtab->symbols;
	uint32_t count = symtab->count;

	if (count == 0 || addr < symbol->addr)
		return NULL;
	/* The last symbol starting at or below addr lies in [symbol, symbol +
	 * count): halve that until one is left. Runs once a frame. */
	while (count > 1) {
		uint32_t half = count / 2;

		if (symbol[half].addr <= addr)
			symbol += half;
		count -= half;
	}
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

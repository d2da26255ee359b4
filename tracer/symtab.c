/*
 * symtab.c - lookups in the table symgen embeds (sorted by address).
 */
#include "verify.h"

const struct tracer_symbol *symtab_search(const struct tracer_symtab *symtab,
					  uint32_t first_probe, unsigned levels,
					  uintptr_t addr)
{
	return sorted_search_from(symtab->symbols, first_probe, levels,
				  sizeof(struct tracer_symbol), addr);
}

const struct tracer_symbol *tracer_symtab_lookup(const struct tracer_symtab *symtab,
						 uintptr_t addr)
{
	const struct tracer_symbol *symbol;

	if (symtab->count == 0 || addr < symtab->symbols[0].addr)
		return NULL;
	symbol = symtab_search(symtab, sorted_first_probe(symtab->count),
			       sorted_levels(symtab->count), addr);
	return symbol_holding(symbol, addr);
}

struct tracer_range tracer_function_range(const struct tracer_config *config,
					  uintptr_t addr)
{
	const struct tracer_symbol *symbol = NULL;

	if (tracer_symtab_check(config) == TRACER_TABLE_OK)
		symbol = tracer_symtab_lookup(config->symtab, addr);
	if (!symbol)
		return (struct tracer_range){addr, addr};
	return (struct tracer_range){symbol->addr, symbol->addr + symbol->size};
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

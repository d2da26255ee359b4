/*
 * symtab.c - lookups in the table symgen embeds (sorted by address): the
 * walk's search, a function's range (checked as a walk checks what it
 * reads), and the lookups of a table checked whole (TRACER_LINKS_CAPTURE).
 */
#include "verify.h"

const struct tracer_symbol *symtab_search(const struct tracer_symtab *symtab,
					  uint32_t first_probe, unsigned levels,
					  uintptr_t addr)
{
	return sorted_search_from(symtab->symbols, first_probe, levels,
				  sizeof(struct tracer_symbol), addr);
}

/* A walk's lookup: the blocks it reads are checked, not the whole table,
 * so that its cost does not grow with the table. */
TRACER_COLD struct tracer_range tracer_function_range(const struct tracer_config *config,
						      uintptr_t addr)
{
	struct walk walk;
	const struct tracer_symbol *symbol;

	walk_begin_symbols(&walk, config, symtab_header_check(config), false);
	symbol = walk_symtab_search(&walk, addr);
	if (!symbol)
		return (struct tracer_range){addr, addr};
	return (struct tracer_range){symbol->addr, symbol->addr + symbol->size};
}

#if TRACER_LINKS_CAPTURE
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

TRACER_COLD static bool names_equal(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

TRACER_COLD const struct tracer_symbol *
tracer_symtab_find(const struct tracer_symtab *symtab, const char *name)
{
	for (uint32_t i = 0; i < symtab->count; i++) {
		if (names_equal(tracer_symbol_name(symtab, &symtab->symbols[i]), name))
			return &symtab->symbols[i];
	}
	return NULL;
}
#endif

/*
 * functions.c - see functions.h.
 */
#include "functions.h"

#include <stdlib.h>
#include <string.h>

/* Among aliases (functions at one address), the one whose name is printed:
 * global before weak before local, then the alphabetically first. */
static int alias_rank(unsigned char bind)
{
	switch (bind) {
	case STB_GLOBAL:
		return 0;
	case STB_WEAK:
		return 1;
	default:
		return 2;
	}
}

static int compare_functions(const void *a, const void *b)
{
	const struct function *x = a;
	const struct function *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (alias_rank(x->bind) != alias_rank(y->bind))
		return alias_rank(x->bind) - alias_rank(y->bind);
	return strcmp(x->name, y->name);
}

/* Collects STT_FUNC symbols defined in allocated sections. */
static struct function *collect_functions(const struct elf_file *elf, size_t *count)
{
	uint32_t symtab = elf_symtab_index(elf);
	uint64_t total = elf_symbol_count(elf, symtab);
	struct function *functions =
	    tracked_alloc(elf->path, total ? total : 1, sizeof(*functions));
	size_t n = 0;

	for (uint64_t i = 0; i < total; i++) {
		struct elf_symbol symbol = elf_symbol(elf, symtab, i);
		struct elf_section section;

		if (symbol.type != STT_FUNC || symbol.shndx == SHN_UNDEF ||
		    symbol.shndx >= SHN_LORESERVE)
			continue;
		if (symbol.shndx >= elf->shnum)
			die(elf->path, "symbol %s names section %u of %u", symbol.name,
			    symbol.shndx, elf->shnum);
		section = elf_section(elf, symbol.shndx);
		if (!(section.flags & SHF_ALLOC))
			continue;
		functions[n].name = symbol.name;
		functions[n].addr = symbol.value;
		functions[n].size = symbol.size;
		functions[n].section_end = section.addr + section.size;
		functions[n].bind = symbol.bind;
		n++;
	}
	*count = n;
	return functions;
}

/*
 * Sorts, keeps one function per address (the first alias in sort order), and
 * gives every function a size: its own, an alias's, or, if none has one, the
 * distance to the next function or to the end of its section.
 */
static size_t normalize_functions(const struct elf_file *elf, struct function *functions,
				  size_t count)
{
	size_t kept = 0;
	uint64_t names_size = 0;

	qsort(functions, count, sizeof(*functions), compare_functions);
	for (size_t i = 0; i < count; i++) {
		if (kept > 0 && functions[kept - 1].addr == functions[i].addr) {
			if (functions[kept - 1].size < functions[i].size)
				functions[kept - 1].size = functions[i].size;
			continue;
		}
		functions[kept++] = functions[i];
	}
	for (size_t i = 0; i < kept; i++) {
		struct function *f = &functions[i];
		uint64_t limit = f->section_end;

		if (f->size != 0)
			continue;
		if (i + 1 < kept && functions[i + 1].addr < limit)
			limit = functions[i + 1].addr;
		f->size = limit > f->addr ? limit - f->addr : 0;
	}
	/* The table stores sizes and name offsets in 32 bits. */
	for (size_t i = 0; i < kept; i++) {
		if (functions[i].size > UINT32_MAX)
			die(elf->path, "function %s is larger than 4 GiB",
			    functions[i].name);
		names_size += strlen(functions[i].name) + 1;
	}
	if (names_size > UINT32_MAX)
		die(elf->path, "function names exceed 4 GiB");
	return kept;
}

struct function *functions_read(const struct elf_file *elf, size_t *count)
{
	struct function *functions = collect_functions(elf, count);

	*count = normalize_functions(elf, functions, *count);
	return functions;
}

/*
 * functions.c - see functions.h.
 */
#include "functions.h"

#include <stdlib.h>
#include <string.h>

#include "dwarf_names.h"

/* Among aliases (functions at one address), the one whose name is printed:
 * a typed function before a label, then global before weak before local. */
static int alias_rank(const struct function *f)
{
	int rank = f->typed ? 0 : 3;

	switch (f->bind) {
	case STB_GLOBAL:
		return rank;
	case STB_WEAK:
		return rank + 1;
	default:
		return rank + 2;
	}
}

/* Then the alphabetically first function, or the alphabetically last label:
 * GDB sorts the labels at one address by name and names a pc by the last. */
static int compare_functions(const void *a, const void *b)
{
	const struct function *x = a;
	const struct function *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (alias_rank(x) != alias_rank(y))
		return alias_rank(x) - alias_rank(y);
	return x->typed ? strcmp(x->name, y->name) : strcmp(y->name, x->name);
}

/*
 * Names the assembler and compilers make for themselves, which binutils
 * (riscv_elf_is_target_special_symbol) and so nm's and GDB's symbol readers
 * leave out: no name, local labels (.L1, ..x, _.L_x, and gas's L<digit>
 * labels with a ^A or ^B in them), and the mapping symbols $d, $x, $x<isa>.
 */
static bool is_assembler_symbol(const char *name)
{
	if (name[0] == '\0' || strncmp(name, ".L", 2) == 0 ||
	    strncmp(name, "..", 2) == 0 || strncmp(name, "_.L_", 4) == 0)
		return true;
	if (name[0] == 'L' && name[1] >= '0' && name[1] <= '9' && strpbrk(name, "\1\2"))
		return true;
	return name[0] == '$' && ((name[1] == 'd' && name[2] == '\0') || name[1] == 'x');
}

/* A function symbol, or a label that may start code (see functions.h). */
static bool is_candidate(const struct elf_symbol *symbol,
			 const struct elf_section *section)
{
	if (!(section->flags & SHF_ALLOC))
		return false;
	if (symbol->type == STT_FUNC)
		return true;
	return symbol->type == STT_NOTYPE && (section->flags & SHF_EXECINSTR) &&
	       !is_assembler_symbol(symbol->name);
}

/* Collects the candidates: function symbols and labels in code. */
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

		if ((symbol.type != STT_FUNC && symbol.type != STT_NOTYPE) ||
		    symbol.shndx == SHN_UNDEF || symbol.shndx >= SHN_LORESERVE)
			continue;
		if (symbol.shndx >= elf->shnum)
			die(elf->path, "symbol %s names section %u of %u", symbol.name,
			    symbol.shndx, elf->shnum);
		section = elf_section(elf, symbol.shndx);
		if (!is_candidate(&symbol, &section))
			continue;
		functions[n].name = symbol.name;
		functions[n].addr = symbol.value;
		functions[n].size = symbol.size;
		functions[n].section_end = section.addr + section.size;
		functions[n].bind = symbol.bind;
		functions[n].typed = symbol.type == STT_FUNC;
		n++;
	}
	*count = n;
	return functions;
}

/* Whether `name` is a compiler's copy of `function` (function.constprop.0,
 * .isra.0, .part.0, .cold): that name stays, as Linux prints it. */
static bool is_clone_of(const char *name, const char *function)
{
	size_t length = strlen(function);

	return strncmp(name, function, length) == 0 && name[length] == '.';
}

/*
 * A function the debugging information names is printed under that name,
 * as GDB's bt names it (the subprogram's, not the symbol table's): among
 * aliases, the function's own name, which a compiler need not even put in
 * the symbol table (clang keeps only the alias of a static function).
 */
static void prefer_dwarf_names(const struct elf_file *elf, struct function *functions,
			       size_t count)
{
	size_t name_count;
	struct dwarf_name *names = dwarf_names_read(elf, &name_count);

	for (size_t i = 0; i < count; i++) {
		const char *own = dwarf_name_at(names, name_count, functions[i].addr);

		if (own && functions[i].typed && !is_clone_of(functions[i].name, own))
			functions[i].name = own;
	}
	tracked_free(names);
}

/*
 * Sorts, keeps one function per address (the first alias in sort order), and
 * gives every function a size: its own, an alias's, or, if none has one, the
 * distance to the next function or to the end of its section, and never
 * past the next function's start; then names it
 * as the debugging information does, if it does. A label inside
 * a function of explicit size is a part of it (GDB names its pcs after the
 * function too), and a label with no byte after it names nothing: both go.
 */
static size_t normalize_functions(const struct elf_file *elf, struct function *functions,
				  size_t count)
{
	size_t kept = 0;
	size_t sized = 0;
	uint64_t names_size = 0;
	/* The end of the functions of explicit size seen so far. */
	uint64_t covered_end = 0;

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

		if (!f->typed && f->size == 0 && f->addr < covered_end)
			continue;
		if (f->size != 0) {
			/* A size past the end of the address space covers the rest. */
			uint64_t end =
			    f->addr + f->size < f->addr ? UINT64_MAX : f->addr + f->size;

			if (end > covered_end)
				covered_end = end;
		}
		functions[sized++] = *f;
	}
	kept = 0;
	for (size_t i = 0; i < sized; i++) {
		struct function *f = &functions[i];
		uint64_t limit = f->section_end;

		if (f->size == 0) {
			if (i + 1 < sized && functions[i + 1].addr < limit)
				limit = functions[i + 1].addr;
			f->size = limit > f->addr ? limit - f->addr : 0;
		}
		if (f->typed || f->size != 0)
			functions[kept++] = *f;
	}
	/* A function declared inside another's extent (hand-written assembly
	 * may nest them) ends the one before it: the tracer takes the entry
	 * that holds an address as the table's answer without reading the
	 * next entry (tracer/verify.c), which entries that do not overlap
	 * allow. No lookup changes: the addresses cut off were the next's. */
	for (size_t i = 0; i + 1 < kept; i++) {
		if (functions[i].size > functions[i + 1].addr - functions[i].addr)
			functions[i].size = functions[i + 1].addr - functions[i].addr;
	}
	prefer_dwarf_names(elf, functions, kept);
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

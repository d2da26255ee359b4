/*
 * image_end.c - see image_end.h.
 *
 * The mistake it catches: `INCLUDE tracer.ld` after the kernel's
 * `PROVIDE(end = .)`. The kernel then hands the pages from `end` up to its
 * allocator, which fills them, and the tables with them: without .eh_frame
 * every frame prints raw, with it the walk faults in the symbol lookup.
 */
#include "image_end.h"

#include <inttypes.h>
#include <string.h>

/*
 * Names that say "the image ends here, free memory starts here" (binutils'
 * end/_end, newlib's __end__ and __heap_start, rCore's ekernel, the OSDev
 * wiki's kernel_end, ...): below the tables they are always a mistake.
 */
static const char *const image_end_names[] = {
    "end",	   "_end",	   "__end",	  "__end__",  "kernel_end",
    "_kernel_end", "__kernel_end", "ekernel",	  "_ekernel", "heap_start",
    "_heap_start", "__heap_start", "__heap_base", "_sheap",
};

/*
 * Names of the end of .bss, where many kernels start their heap too, but which
 * every kernel that zeroes its .bss defines (the demo's __bss_end): one of
 * them is taken for the image's end only when no other allocated section
 * (stacks, say) lies between it and the tables, as a heap start must.
 */
static const char *const bss_end_names[] = {
    "_ebss", "ebss", "__bss_end", "__bss_end__", "_bss_end", "bss_end", "__bss_stop",
};

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

static bool in_list(const char *const *names, size_t count, const char *name)
{
	for (size_t i = 0; i < count; i++)
		if (strcmp(names[i], name) == 0)
			return true;
	return false;
}

/* The value of the global symbol `name`, if defined. */
static bool symbol_value(const struct elf_file *elf, uint32_t symtab, const char *name,
			 uint64_t *value)
{
	uint64_t total = elf_symbol_count(elf, symtab);

	for (uint64_t i = 0; i < total; i++) {
		struct elf_symbol symbol = elf_symbol(elf, symtab, i);

		if (symbol.bind != STB_LOCAL && symbol.shndx != SHN_UNDEF &&
		    strcmp(symbol.name, name) == 0) {
			*value = symbol.value;
			return true;
		}
	}
	return false;
}

/* True if an allocated section other than the tables' holds memory above
 * `addr` and below the tables' start. */
static bool memory_between(const struct elf_file *elf, uint64_t addr,
			   uint64_t tables_start)
{
	for (uint32_t i = 1; i < elf->shnum; i++) {
		struct elf_section section = elf_section(elf, i);

		if ((section.flags & SHF_ALLOC) && section.size != 0 &&
		    section.addr < tables_start &&
		    (section.addr > addr || addr - section.addr < section.size))
			return true;
	}
	return false;
}

void image_end_check(const struct elf_file *elf, bool cfi, struct name_list allowed,
		     struct name_list extra)
{
	uint32_t symtab = elf_symtab_index(elf);
	uint64_t start, end, eh_start, eh_end;
	uint64_t total;

	if (!symbol_value(elf, symtab, "__tracer_symtab_start", &start) ||
	    !symbol_value(elf, symtab, "__tracer_symtab_end", &end))
		return;
	if (cfi && symbol_value(elf, symtab, "__eh_frame_start", &eh_start) &&
	    symbol_value(elf, symtab, "__eh_frame_end", &eh_end)) {
		start = eh_start < start ? eh_start : start;
		end = eh_end > end ? eh_end : end;
	}
	total = elf_symbol_count(elf, symtab);
	for (uint64_t i = 0; i < total; i++) {
		struct elf_symbol symbol = elf_symbol(elf, symtab, i);
		bool image_end;

		/* Linker-script symbols are global and untyped; a function or a
		 * local label called `end` marks no memory. */
		if (symbol.bind == STB_LOCAL || symbol.shndx == SHN_UNDEF ||
		    (symbol.type != STT_NOTYPE && symbol.type != STT_OBJECT) ||
		    symbol.value >= end ||
		    in_list(allowed.names, allowed.count, symbol.name))
			continue;
		image_end =
		    in_list(image_end_names, COUNT(image_end_names), symbol.name) ||
		    in_list(extra.names, extra.count, symbol.name);
		if (!image_end &&
		    !(in_list(bss_end_names, COUNT(bss_end_names), symbol.name) &&
		      !memory_between(elf, symbol.value, start)))
			continue;
		die(elf->path,
		    "`%s` (0x%" PRIx64
		    ") lies below the end of the tracer's tables (0x%" PRIx64
		    "-0x%" PRIx64
		    "): memory handed out from `%s` would overwrite them. Move "
		    "`INCLUDE tracer.ld` before the definition of `%s` in the linker "
		    "script (or "
		    "define `%s` after it); if `%s` is not where free memory starts, "
		    "pass "
		    "--allow-end-before-tables=%s",
		    symbol.name, symbol.value, start, end, symbol.name, symbol.name,
		    symbol.name, symbol.name, symbol.name);
	}
}

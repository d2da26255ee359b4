/*
 * symgen - writes the symbol table of a linked RISC-V kernel, and with --cfi
 * the index of its FDEs, as C source for the tracer library (struct
 * tracer_symtab and struct tracer_fde_index, see tracer/tracer.h).
 *
 *     symgen -o symtab.c kernel.elf          table of kernel.elf's functions
 *     symgen --cfi -o symtab.c kernel.elf    ... and the index of its .eh_frame
 *     symgen --empty [--cfi] -o symtab.c     empty table and index, first link
 *
 * The index descriptor is always written (empty without --cfi), so a kernel
 * may refer to it whichever unwinders it uses.
 *
 * Only libc: copy symgen/ into your tree and build it with the host compiler.
 * The output is written to a temporary file and renamed into place, so a
 * failed run leaves no output behind.
 */
#include "eh_frame.h"
#include "elf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct function {
	const char *name;
	uint64_t addr;
	uint64_t size;	      /* st_size; 0 if the ELF gives none */
	uint64_t section_end; /* end address of the containing section */
	unsigned char bind;
};

/* Everything symgen writes. */
struct table {
	struct function *functions;
	size_t function_count;
	struct fde_entry *fdes; /* sorted by pc_start; NULL without --cfi */
	size_t fde_count;
	bool is64; /* addresses as 16 hex digits, else 8 */
};

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
	struct function *functions = calloc(total ? total : 1, sizeof(*functions));
	size_t n = 0;

	if (!functions)
		die(elf->path, "out of memory");
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

/* Writes name as the body of a C string literal. Octal escapes are always
 * three digits, so a following digit cannot extend them. */
static void write_c_string(FILE *out, const char *name)
{
	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p < 0x20 || *p >= 0x7f)
			fprintf(out, "\\%03o", *p);
		else
			fputc(*p, out);
	}
}

static void write_symbols(FILE *out, const struct table *table)
{
	uint64_t name_offset = 0;

	fprintf(out, "__attribute__((section(\".tracer_symtab.names\")))\n"
		     "static const char names[] =\n");
	for (size_t i = 0; i < table->function_count; i++) {
		fprintf(out, "    \"");
		write_c_string(out, table->functions[i].name);
		fprintf(out, "\\0\"%s\n", i + 1 == table->function_count ? ";" : "");
	}
	fprintf(out,
		"\n__attribute__((section(\".tracer_symtab.symbols\")))\n"
		"static const struct tracer_symbol symbols[%zu] = {\n",
		table->function_count);
	for (size_t i = 0; i < table->function_count; i++) {
		const struct function *f = &table->functions[i];

		fprintf(out,
			table->is64 ? "    {0x%016llxu, 0x%llxu, %lluu},\n"
				    : "    {0x%08llxu, 0x%llxu, %lluu},\n",
			(unsigned long long)f->addr, (unsigned long long)f->size,
			(unsigned long long)name_offset);
		name_offset += strlen(f->name) + 1;
	}
	fprintf(out, "};\n\n");
}

static void write_fde_entries(FILE *out, const struct table *table)
{
	fprintf(out,
		"__attribute__((section(\".tracer_symtab.fde_index\")))\n"
		"static const struct tracer_fde_entry fde_entries[%zu] = {\n",
		table->fde_count);
	for (size_t i = 0; i < table->fde_count; i++)
		fprintf(out,
			table->is64 ? "    {0x%016llxu, 0x%016llxu},\n"
				    : "    {0x%08llxu, 0x%08llxu},\n",
			(unsigned long long)table->fdes[i].pc_start,
			(unsigned long long)table->fdes[i].fde);
	fprintf(out, "};\n\n");
}

/*
 * The descriptors go first in the table's output section, the arrays after
 * them, and both descriptors exist in every link, empty or not: so their
 * addresses are the same in both links (see linker/tracer.ld).
 */
static void write_table(FILE *out, const struct table *table)
{
	fprintf(out, "/* Generated by symgen: %zu functions, %zu FDEs. Do not edit. */\n",
		table->function_count, table->fde_count);
	fprintf(out, "#include \"tracer.h\"\n\n");
	if (table->function_count > 0)
		write_symbols(out, table);
	if (table->fde_count > 0)
		write_fde_entries(out, table);
	fprintf(out, "__attribute__((section(\".tracer_symtab\")))\n");
	if (table->function_count > 0)
		fprintf(
		    out,
		    "const struct tracer_symtab tracer_symtab = {symbols, %zu, names};\n",
		    table->function_count);
	else
		fprintf(out, "const struct tracer_symtab tracer_symtab = {0, 0, 0};\n");
	fprintf(out, "\n__attribute__((section(\".tracer_symtab\")))\n");
	if (table->fde_count > 0)
		fprintf(out,
			"const struct tracer_fde_index tracer_fde_index = "
			"{fde_entries, %zu};\n",
			table->fde_count);
	else
		fprintf(out,
			"const struct tracer_fde_index tracer_fde_index = {0, 0};\n");
}

/* Writes the table to `path` through a temporary file in the same directory. */
static void write_output(const char *path, const struct table *table)
{
	size_t length = strlen(path);
	char *temp = malloc(length + sizeof(".XXXXXX"));
	FILE *out;
	int fd;

	if (!temp)
		die(path, "out of memory");
	memcpy(temp, path, length);
	memcpy(temp + length, ".XXXXXX", sizeof(".XXXXXX"));
	fd = mkstemp(temp);
	if (fd < 0)
		die(path, "cannot create output: %s", strerror(errno));
	out = fdopen(fd, "w");
	if (!out) {
		unlink(temp);
		die(path, "cannot write output: %s", strerror(errno));
	}
	write_table(out, table);
	if (ferror(out) | (fclose(out) != 0) || rename(temp, path) != 0) {
		int error = errno;

		unlink(temp);
		die(path, "cannot write output: %s", strerror(error));
	}
	free(temp);
}

static _Noreturn void usage(void)
{
	fprintf(stderr, "usage: symgen [--cfi] -o OUTPUT.c KERNEL.elf\n"
			"       symgen --empty [--cfi] -o OUTPUT.c\n"
			"  --cfi    also write the FDE index of KERNEL.elf's .eh_frame\n"
			"  --empty  empty table and index (for the first link)\n");
	exit(2);
}

/* The table of the image `elf`; with `cfi`, its FDE index too. */
static struct table read_table(const struct elf_file *elf, bool cfi)
{
	struct table table = {.is64 = elf->is64};

	table.functions = collect_functions(elf, &table.function_count);
	table.function_count =
	    normalize_functions(elf, table.functions, table.function_count);
	if (cfi) {
		table.fdes = eh_frame_index(elf, &table.fde_count);
		/* tracer_fde_index.count is 32 bits. */
		if (table.fde_count > UINT32_MAX)
			die(elf->path, "more than 2^32 FDEs");
	}
	return table;
}

int main(int argc, char **argv)
{
	const char *output = NULL;
	const char *input = NULL;
	bool empty = false;
	bool cfi = false;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
			output = argv[++i];
		else if (strcmp(argv[i], "--empty") == 0)
			empty = true;
		else if (strcmp(argv[i], "--cfi") == 0)
			cfi = true;
		else if (argv[i][0] != '-' && !input)
			input = argv[i];
		else
			usage();
	}
	if (!output || empty == (input != NULL))
		usage();

	if (empty) {
		/* The first link has no table yet: --cfi changes nothing. */
		struct table table = {.is64 = true};

		write_output(output, &table);
	} else {
		struct elf_file elf;
		struct table table;

		elf_open(&elf, input);
		table = read_table(&elf, cfi);
		write_output(output, &table);
		free(table.functions);
		free(table.fdes);
		elf_close(&elf);
	}
	return 0;
}

/*
 * elf.c - see elf.h. Field offsets follow the System V gABI ("Object Files").
 */
#include "elf.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static uint64_t read_le(const unsigned char *p, unsigned bytes)
{
	uint64_t value = 0;

	for (unsigned i = bytes; i > 0; i--)
		value = value << 8 | p[i - 1];
	return value;
}

/* True if [offset, offset + length) lies inside the file. */
static bool in_file(const struct elf_file *elf, uint64_t offset, uint64_t length)
{
	return offset <= elf->size && length <= elf->size - offset;
}

/* Reads a `bytes`-wide field at `offset`; the caller checked the bounds. */
static uint64_t field(const struct elf_file *elf, uint64_t offset, unsigned bytes)
{
	return read_le(elf->data + offset, bytes);
}

/* A word-sized field: 4 bytes in ELF32, 8 in ELF64. */
static unsigned word_bytes(const struct elf_file *elf)
{
	return elf->is64 ? 8 : 4;
}

/* The file is closed before any error: die() would not close it. */
static void read_whole_file(struct elf_file *elf, const char *path)
{
	FILE *file = fopen(path, "rb");
	long length;
	bool read_all;
	int error;

	if (!file)
		die(path, "cannot open: %s", strerror(errno));
	if (fseek(file, 0, SEEK_END) != 0 || (length = ftell(file)) < 0 ||
	    fseek(file, 0, SEEK_SET) != 0) {
		error = errno;
		fclose(file);
		die(path, "cannot read: %s", strerror(error));
	}
	elf->size = (size_t)length;
	elf->data = tracked_try_realloc(NULL, elf->size ? elf->size : 1, 1);
	read_all = elf->data && fread(elf->data, 1, elf->size, file) == elf->size;
	error = errno;
	fclose(file);
	if (!elf->data)
		die(path, "out of memory");
	if (!read_all)
		die(path, "cannot read: %s", strerror(error));
}

void elf_open(struct elf_file *elf, const char *path)
{
	static const unsigned char magic[4] = {0x7f, 'E', 'L', 'F'};

	memset(elf, 0, sizeof(*elf));
	elf->path = path;
	read_whole_file(elf, path);
	if (elf->size < 16 || memcmp(elf->data, magic, 4) != 0)
		die(path, "not an ELF file");
	if (elf->data[4] != 1 && elf->data[4] != 2)
		die(path, "unsupported ELF class %u", elf->data[4]);
	elf->is64 = elf->data[4] == 2;
	if (elf->data[5] != 1)
		die(path, "not a little-endian ELF file");
	if (!in_file(elf, 0, elf->is64 ? 64 : 52))
		die(path, "truncated ELF header");
	if (field(elf, 18, 2) != EM_RISCV)
		die(path, "not a RISC-V ELF file (e_machine %u)",
		    (unsigned)field(elf, 18, 2));

	elf->shoff = field(elf, elf->is64 ? 40 : 32, word_bytes(elf));
	elf->shentsize = (uint32_t)field(elf, elf->is64 ? 58 : 46, 2);
	elf->shnum = (uint32_t)field(elf, elf->is64 ? 60 : 48, 2);
	if (elf->shoff == 0)
		die(path, "no section headers");
	if (elf->shentsize < (elf->is64 ? 64u : 40u))
		die(path, "bad section header size %u", elf->shentsize);
	if (elf->shnum == 0) {
		/* More than 0xff00 sections: the count is in section 0's sh_size. */
		if (!in_file(elf, elf->shoff, elf->shentsize))
			die(path, "truncated: section headers past end of file");
		elf->shnum = (uint32_t)field(elf, elf->shoff + (elf->is64 ? 32 : 20),
					     word_bytes(elf));
	}
	if (!in_file(elf, elf->shoff, (uint64_t)elf->shnum * elf->shentsize))
		die(path, "truncated: section headers past end of file");
	elf->shstrndx = (uint32_t)field(elf, elf->is64 ? 62 : 50, 2);
	if (elf->shstrndx == SHN_XINDEX)
		elf->shstrndx = elf_section(elf, 0).link;
}

void elf_close(struct elf_file *elf)
{
	tracked_free(elf->data);
	elf->data = NULL;
}

struct elf_section elf_section(const struct elf_file *elf, uint32_t index)
{
	uint64_t base = elf->shoff + (uint64_t)index * elf->shentsize;
	unsigned w = word_bytes(elf);
	struct elf_section section;

	/* Elf32_Shdr / Elf64_Shdr: name, type, flags, addr, offset, size,
	 * link, info, addralign, entsize. */
	section.name = (uint32_t)field(elf, base, 4);
	section.type = (uint32_t)field(elf, base + 4, 4);
	section.flags = field(elf, base + 8, w);
	section.addr = field(elf, base + 8 + w, w);
	section.offset = field(elf, base + 8 + 2 * w, w);
	section.size = field(elf, base + 8 + 3 * w, w);
	section.link = (uint32_t)field(elf, base + 8 + 4 * w, 4);
	section.entsize = field(elf, base + 16 + 5 * w, w);
	return section;
}

uint32_t elf_section_by_name(const struct elf_file *elf, const char *name)
{
	struct elf_section names;
	const char *table;

	/* No section names (SHN_UNDEF) is legal: then nothing has a name. */
	if (elf->shstrndx == SHN_UNDEF)
		return 0;
	if (elf->shstrndx >= elf->shnum)
		die(elf->path, "section name table is section %u of only %u",
		    elf->shstrndx, elf->shnum);
	names = elf_section(elf, elf->shstrndx);
	table = (const char *)elf_section_data(elf, &names, "section name table");
	for (uint32_t i = 1; i < elf->shnum; i++) {
		uint32_t offset = elf_section(elf, i).name;

		if (offset >= names.size ||
		    !memchr(table + offset, '\0', names.size - offset))
			die(elf->path, "corrupt name of section %u", i);
		if (strcmp(table + offset, name) == 0)
			return i;
	}
	return 0;
}

const unsigned char *elf_section_data(const struct elf_file *elf,
				      const struct elf_section *section, const char *name)
{
	if (section->type == SHT_NOBITS)
		die(elf->path, "%s has no data in the file (SHT_NOBITS)", name);
	if (!in_file(elf, section->offset, section->size))
		die(elf->path, "truncated: %s past end of file", name);
	return elf->data + section->offset;
}

uint32_t elf_symtab_index(const struct elf_file *elf)
{
	uint32_t dynsym = 0;

	for (uint32_t i = 0; i < elf->shnum; i++) {
		uint32_t type = elf_section(elf, i).type;

		if (type == SHT_SYMTAB)
			return i;
		if (type == SHT_DYNSYM && dynsym == 0)
			dynsym = i;
	}
	/* A stripped position-independent image (OpenSBI's firmware is one)
	 * still names its exported functions in .dynsym. */
	if (dynsym != 0)
		return dynsym;
	die(elf->path, "no symbol table (stripped?)");
}

static unsigned symbol_entry_size(const struct elf_file *elf)
{
	return elf->is64 ? 24 : 16;
}

uint64_t elf_symbol_count(const struct elf_file *elf, uint32_t symtab_index)
{
	struct elf_section symtab = elf_section(elf, symtab_index);
	struct elf_section strtab;

	if (symtab.entsize != symbol_entry_size(elf))
		die(elf->path, "bad symbol entry size %llu",
		    (unsigned long long)symtab.entsize);
	if (!in_file(elf, symtab.offset, symtab.size))
		die(elf->path, "truncated: symbol table past end of file");
	if (symtab.link == 0 || symtab.link >= elf->shnum)
		die(elf->path, "symbol table names no string table");
	strtab = elf_section(elf, symtab.link);
	if (strtab.type != SHT_STRTAB || !in_file(elf, strtab.offset, strtab.size))
		die(elf->path, "corrupt string table");
	return symtab.size / symtab.entsize;
}

struct elf_symbol elf_symbol(const struct elf_file *elf, uint32_t symtab_index,
			     uint64_t index)
{
	struct elf_section symtab = elf_section(elf, symtab_index);
	struct elf_section strtab = elf_section(elf, symtab.link);
	uint64_t base = symtab.offset + index * symtab.entsize;
	uint64_t name_offset = field(elf, base, 4);
	const char *names = (const char *)elf->data + strtab.offset;
	unsigned char info;
	struct elf_symbol symbol;

	/* Elf32_Sym: name, value, size, info, other, shndx.
	 * Elf64_Sym: name, info, other, shndx, value, size. */
	if (elf->is64) {
		info = elf->data[base + 4];
		symbol.shndx = (uint16_t)field(elf, base + 6, 2);
		symbol.value = field(elf, base + 8, 8);
		symbol.size = field(elf, base + 16, 8);
	} else {
		symbol.value = field(elf, base + 4, 4);
		symbol.size = field(elf, base + 8, 4);
		info = elf->data[base + 12];
		symbol.shndx = (uint16_t)field(elf, base + 14, 2);
	}
	symbol.type = info & 0xf;
	symbol.bind = info >> 4;
	if (name_offset >= strtab.size ||
	    !memchr(names + name_offset, '\0', strtab.size - name_offset))
		die(elf->path, "corrupt name of symbol %llu", (unsigned long long)index);
	symbol.name = names + name_offset;
	return symbol;
}

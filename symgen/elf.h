/*
 * elf.h - a small, defensive reader of little-endian RISC-V ELF32/ELF64 files.
 *
 * Every offset and size read from the file is checked against the file's
 * length before use, so a truncated or corrupt file yields an error message,
 * never a crash. Errors end the run (see die.h). The file's bytes are a
 * tracked block (die.h).
 */
#ifndef SYMGEN_ELF_H
#define SYMGEN_ELF_H

#include "die.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EM_RISCV 243

struct elf_file {
	const char *path;
	unsigned char *data;
	size_t size;
	bool is64;	/* ELFCLASS64, else ELFCLASS32 */
	uint64_t shoff; /* section header table */
	uint32_t shnum;
	uint32_t shentsize;
	uint32_t shstrndx; /* section holding the section names */
};

struct elf_section {
	uint32_t name; /* offset in the section name table */
	uint32_t type;
	uint64_t flags;
	uint64_t addr;
	uint64_t offset;
	uint64_t size;
	uint32_t link;
	uint64_t entsize;
};

#define SHT_SYMTAB    2
#define SHT_STRTAB    3
#define SHT_NOBITS    8
#define SHT_DYNSYM    11
#define SHF_ALLOC     0x2
#define SHF_EXECINSTR 0x4

struct elf_symbol {
	const char *name;
	uint64_t value;
	uint64_t size;
	unsigned char type; /* STT_* */
	unsigned char bind; /* STB_* */
	uint16_t shndx;
};

#define STT_NOTYPE    0
#define STT_OBJECT    1
#define STT_FUNC      2
#define STB_LOCAL     0
#define STB_GLOBAL    1
#define STB_WEAK      2
#define SHN_UNDEF     0
#define SHN_LORESERVE 0xff00
#define SHN_ABS	      0xfff1
#define SHN_XINDEX    0xffff

/* Reads and validates the file header; dies on anything unusable. */
void elf_open(struct elf_file *elf, const char *path);
void elf_close(struct elf_file *elf);

/* Section header `index` (< elf->shnum). */
struct elf_section elf_section(const struct elf_file *elf, uint32_t index);

/* The index of the first section called `name`, or 0 if there is none. */
uint32_t elf_section_by_name(const struct elf_file *elf, const char *name);

/* The bytes of `section` in the file; dies, naming the section `name`, if
 * they lie outside it or it has none (SHT_NOBITS). */
const unsigned char *elf_section_data(const struct elf_file *elf,
				      const struct elf_section *section,
				      const char *name);

/* The symbol table (.symtab, else .dynsym): its section index, or dies if
 * the file has neither. */
uint32_t elf_symtab_index(const struct elf_file *elf);
uint64_t elf_symbol_count(const struct elf_file *elf, uint32_t symtab_index);
/* Symbol `index` of the table; dies on a corrupt entry. */
struct elf_symbol elf_symbol(const struct elf_file *elf, uint32_t symtab_index,
			     uint64_t index);

#endif /* SYMGEN_ELF_H */

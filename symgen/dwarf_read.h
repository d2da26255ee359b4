/*
 * dwarf_read.h - what symgen's DWARF readers share: a bounds-checked cursor
 * over a section's bytes (fixed-size and LEB128 numbers, strings), the
 * attribute forms (DWARF 5, section 7.5.6), and the debug sections of an
 * image.
 */
#ifndef SYMGEN_DWARF_READ_H
#define SYMGEN_DWARF_READ_H

#include <stdbool.h>
#include <stdint.h>

#include "elf.h"

#define DW_FORM_block	       0x09
#define DW_FORM_string	       0x08
#define DW_FORM_strp	       0x0e
#define DW_FORM_udata	       0x0f
#define DW_FORM_indirect       0x16
#define DW_FORM_line_strp      0x1f
#define DW_FORM_implicit_const 0x21

/* A section's bytes, or none (size 0) if the image lacks it. */
struct dwarf_bytes {
	const unsigned char *data;
	uint64_t size;
};

/* A read position in a section. Any read past `end` sets `bad` and gives
 * 0: the caller checks once, where it can give up cleanly. */
struct dwarf_cursor {
	const unsigned char *p;
	const unsigned char *end;
	bool bad;
};

/* What the size of a form's value depends on. */
struct dwarf_sizes {
	unsigned version;
	unsigned offset_size;  /* 4: 32-bit DWARF, 8: 64-bit */
	unsigned address_size; /* 4 or 8 */
};

/* The value of an attribute, as far as it can matter to symgen. */
struct dwarf_value {
	unsigned form;
	uint64_t number;    /* an offset, an index, an address */
	const char *string; /* DW_FORM_string: inline */
};

/* A little-endian number of `bytes` (at most 8) bytes. */
uint64_t dwarf_read_fixed(struct dwarf_cursor *c, unsigned bytes);
/* LEB128; bits past the 64th are dropped (no value that large matters). */
uint64_t dwarf_read_leb(struct dwarf_cursor *c, bool is_signed);
void dwarf_skip(struct dwarf_cursor *c, uint64_t bytes);
/* A NUL-terminated string at c (DW_FORM_string). */
const char *dwarf_read_string(struct dwarf_cursor *c);

/* Reads (or skips) one attribute value; false for a form this reader does
 * not know. */
bool dwarf_read_value(struct dwarf_cursor *c, unsigned form,
		      const struct dwarf_sizes *sizes, struct dwarf_value *value);

/* A section by name, or none. */
struct dwarf_bytes dwarf_section(const struct elf_file *elf, const char *name);
/* dwarf_section, or another way to get a section's bytes. */
typedef struct dwarf_bytes dwarf_section_reader(const struct elf_file *elf,
						const char *name);

/* The string at `offset` of `in`, or NULL if it does not end inside it. */
const char *dwarf_string_at(struct dwarf_bytes in, uint64_t offset);

#endif /* SYMGEN_DWARF_READ_H */

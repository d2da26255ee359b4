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

/* The sections the entries of .debug_info refer to. */
struct dwarf_info {
	struct dwarf_bytes info, abbrev, str, line_str, str_offsets, addr;
};

/* What one unit's entries need to resolve their attributes. */
struct dwarf_unit {
	struct dwarf_sizes sizes;
	unsigned type; /* DW_UT_*: DWARF 5's, or DW_UT_compile before it */
	uint64_t abbrev_offset;
	uint64_t str_offsets_base;  /* DW_AT_str_offsets_base, from the unit's entry */
	uint64_t addr_base;	    /* DW_AT_addr_base */
	const unsigned char *start; /* the unit header: references count from it */
	const unsigned char *end;
};

#define DW_UT_compile 0x01
#define DW_UT_partial 0x03

/* The sections of info, got through `section`. */
void dwarf_info_sections(const struct elf_file *elf, dwarf_section_reader *section,
			 struct dwarf_info *info);

/*
 * Reads the unit header at c (DWARF 2 to 5, 32- or 64-bit) into unit and
 * moves c past the unit; *entries covers the unit's entries. False if the
 * header is truncated or of a version or address size this reader does not
 * know.
 */
bool dwarf_read_unit(struct dwarf_cursor *c, struct dwarf_unit *unit,
		     struct dwarf_cursor *entries);

/* The abbreviation `code` of the unit's table: its tag, whether its entries
 * have children, and where its attribute specifications start. */
bool dwarf_find_abbrev(const struct dwarf_info *info, const struct dwarf_unit *unit,
		       uint64_t code, uint64_t *tag, bool *has_children,
		       struct dwarf_cursor *specs);

/*
 * The next attribute of an entry: its name from the specifications at
 * specs, its value read at c (DW_FORM_indirect resolved, implicit_const's
 * value in value->number). 1 for an attribute, 0 at the end of the list, -1
 * for one that cannot be read (truncated, or a form this reader does not
 * know).
 */
int dwarf_next_attribute(struct dwarf_cursor *c, const struct dwarf_unit *unit,
			 struct dwarf_cursor *specs, uint64_t *attribute,
			 struct dwarf_value *value);

/* The string an attribute names (string, strp, line_strp, strx forms), or
 * NULL. */
const char *dwarf_value_string(const struct dwarf_info *info,
			       const struct dwarf_unit *unit,
			       const struct dwarf_value *v);

/* The address an attribute gives (addr, addrx forms), if it gives one. */
bool dwarf_value_address(const struct dwarf_info *info, const struct dwarf_unit *unit,
			 const struct dwarf_value *v, uint64_t *addr);

/* Entry `index` of a table of `bytes`-wide words at `base` of `in`. */
bool dwarf_table_entry(struct dwarf_bytes in, uint64_t base, uint64_t index,
		       unsigned bytes, uint64_t *entry);

#endif /* SYMGEN_DWARF_READ_H */

/*
 * dwarf_read.c - see dwarf_read.h.
 */
#include "dwarf_read.h"

#include <string.h>

uint64_t dwarf_read_fixed(struct dwarf_cursor *c, unsigned bytes)
{
	uint64_t value = 0;

	if (c->bad || (size_t)(c->end - c->p) < bytes) {
		c->bad = true;
		return 0;
	}
	for (unsigned i = bytes; i > 0; i--)
		value = value << 8 | c->p[i - 1];
	c->p += bytes;
	return value;
}

/* LEB128; bits past the 64th are dropped (no value that large matters). */
uint64_t dwarf_read_leb(struct dwarf_cursor *c, bool is_signed)
{
	uint64_t value = 0;
	unsigned shift = 0;
	unsigned char byte;

	do {
		byte = (unsigned char)dwarf_read_fixed(c, 1);
		if (shift < 64)
			value |= (uint64_t)(byte & 0x7f) << shift;
		shift += 7;
	} while ((byte & 0x80) && !c->bad);
	if (is_signed && shift < 64 && (byte & 0x40))
		value |= ~(uint64_t)0 << shift;
	return value;
}

void dwarf_skip(struct dwarf_cursor *c, uint64_t bytes)
{
	if (c->bad || (uint64_t)(c->end - c->p) < bytes) {
		c->bad = true;
		return;
	}
	c->p += bytes;
}

/* A NUL-terminated string at c (DW_FORM_string). */
const char *dwarf_read_string(struct dwarf_cursor *c)
{
	const char *s = (const char *)c->p;
	const unsigned char *nul;

	if (c->bad || !(nul = memchr(c->p, '\0', (size_t)(c->end - c->p)))) {
		c->bad = true;
		return NULL;
	}
	c->p = nul + 1;
	return s;
}

/* The bytes a value of `form` takes, for the forms of fixed size, or -1. */
static int fixed_form_size(unsigned form, const struct dwarf_sizes *unit)
{
	switch (form) {
	case 0x0b:
	case 0x0c:
	case 0x11:
	case 0x25:
	case 0x29: /* data1 flag ref1 strx1 addrx1 */
		return 1;
	case 0x05:
	case 0x12:
	case 0x26:
	case 0x2a: /* data2 ref2 strx2 addrx2 */
		return 2;
	case 0x27:
	case 0x2b: /* strx3 addrx3 */
		return 3;
	case 0x06:
	case 0x13:
	case 0x1c:
	case 0x28:
	case 0x2c: /* data4 ref4 ref_sup4 strx4 addrx4 */
		return 4;
	case 0x07:
	case 0x14:
	case 0x20:
	case 0x24: /* data8 ref8 ref_sig8 ref_sup8 */
		return 8;
	case 0x1e: /* data16 */
		return 16;
	case 0x19:
	case DW_FORM_implicit_const: /* flag_present; the value is in the abbreviation */
		return 0;
	case 0x01: /* addr */
		return (int)unit->address_size;
	case 0x10: /* ref_addr: an address in DWARF 2 */
		return (int)(unit->version == 2 ? unit->address_size : unit->offset_size);
	case 0x0e:
	case 0x17:
	case 0x1d:
	case 0x1f:
	case 0x1f20:
	case 0x1f21:
		/* strp sec_offset strp_sup line_strp GNU_ref_alt GNU_strp_alt */
		return (int)unit->offset_size;
	default:
		return -1;
	}
}

/* Reads (or skips) one attribute value; false for a form this reader does
 * not know. */
bool dwarf_read_value(struct dwarf_cursor *c, unsigned form,
		      const struct dwarf_sizes *unit, struct dwarf_value *value)
{
	int size = fixed_form_size(form, unit);

	value->form = form;
	value->string = NULL;
	value->number = 0;
	if (size >= 0) {
		value->number =
		    dwarf_read_fixed(c, (unsigned)size > 8 ? 0 : (unsigned)size);
		if (size > 8)
			dwarf_skip(c, (uint64_t)size);
		return true;
	}
	switch (form) {
	case 0x08: /* string */
		value->string = dwarf_read_string(c);
		return true;
	case 0x0d: /* sdata */
		value->number = dwarf_read_leb(c, true);
		return true;
	case 0x0f:
	case 0x15:
	case 0x1a:
	case 0x1b:
	case 0x22:
	case 0x23:
	case 0x1f01:
	case 0x1f02:
		/* udata ref_udata strx addrx loclistx rnglistx GNU_addr_index
		 * GNU_str_index */
		value->number = dwarf_read_leb(c, false);
		return true;
	case 0x0a: /* block1 */
		dwarf_skip(c, dwarf_read_fixed(c, 1));
		return true;
	case 0x03: /* block2 */
		dwarf_skip(c, dwarf_read_fixed(c, 2));
		return true;
	case 0x04: /* block4 */
		dwarf_skip(c, dwarf_read_fixed(c, 4));
		return true;
	case 0x09:
	case 0x18: /* block exprloc */
		dwarf_skip(c, dwarf_read_leb(c, false));
		return true;
	default:
		return false;
	}
}

/* A section by name, or none. */
struct dwarf_bytes dwarf_section(const struct elf_file *elf, const char *name)
{
	/* Never NULL: a cursor over no bytes still points somewhere. */
	static const unsigned char no_bytes[1];
	uint32_t index = elf_section_by_name(elf, name);
	struct elf_section section;

	if (index == 0)
		return (struct dwarf_bytes){no_bytes, 0};
	section = elf_section(elf, index);
	return (struct dwarf_bytes){elf_section_data(elf, &section, name), section.size};
}

/* The string at `offset` of `in`, or NULL if it does not end inside it. */
const char *dwarf_string_at(struct dwarf_bytes in, uint64_t offset)
{
	if (offset >= in.size || !memchr(in.data + offset, '\0', in.size - offset))
		return NULL;
	return (const char *)in.data + offset;
}

void dwarf_info_sections(const struct elf_file *elf, dwarf_section_reader *section,
			 struct dwarf_info *info)
{
	info->info = section(elf, ".debug_info");
	info->abbrev = section(elf, ".debug_abbrev");
	info->str = section(elf, ".debug_str");
	info->line_str = section(elf, ".debug_line_str");
	info->str_offsets = section(elf, ".debug_str_offsets");
	info->addr = section(elf, ".debug_addr");
}

bool dwarf_read_unit(struct dwarf_cursor *c, struct dwarf_unit *unit,
		     struct dwarf_cursor *entries)
{
	uint64_t length;

	*unit = (struct dwarf_unit){{0, 4, 0}, DW_UT_compile, 0, 0, 0, c->p, NULL};
	length = dwarf_read_fixed(c, 4);
	if (length == 0xffffffff) {
		unit->sizes.offset_size = 8;
		length = dwarf_read_fixed(c, 8);
	}
	if (c->bad || length > (uint64_t)(c->end - c->p))
		return false;
	*entries = (struct dwarf_cursor){c->p, c->p + length, false};
	c->p += length;
	unit->end = c->p;
	unit->sizes.version = (unsigned)dwarf_read_fixed(entries, 2);
	if (unit->sizes.version < 2 || unit->sizes.version > 5)
		return false;
	if (unit->sizes.version == 5) {
		unit->type = (unsigned)dwarf_read_fixed(entries, 1);
		unit->sizes.address_size = (unsigned)dwarf_read_fixed(entries, 1);
		unit->abbrev_offset = dwarf_read_fixed(entries, unit->sizes.offset_size);
	} else {
		unit->abbrev_offset = dwarf_read_fixed(entries, unit->sizes.offset_size);
		unit->sizes.address_size = (unsigned)dwarf_read_fixed(entries, 1);
	}
	if (unit->type != DW_UT_compile && unit->type != DW_UT_partial)
		return !entries->bad; /* type and split units: the caller skips them */
	return !entries->bad &&
	       (unit->sizes.address_size == 4 || unit->sizes.address_size == 8);
}

bool dwarf_find_abbrev(const struct dwarf_info *info, const struct dwarf_unit *unit,
		       uint64_t code, uint64_t *tag, bool *has_children,
		       struct dwarf_cursor *specs)
{
	struct dwarf_cursor c = {info->abbrev.data, info->abbrev.data + info->abbrev.size,
				 false};

	dwarf_skip(&c, unit->abbrev_offset);
	while (!c.bad) {
		uint64_t this_code = dwarf_read_leb(&c, false);

		if (this_code == 0)
			return false;
		*tag = dwarf_read_leb(&c, false);
		*has_children = dwarf_read_fixed(&c, 1) != 0;
		if (this_code == code) {
			*specs = c;
			return !c.bad;
		}
		for (;;) { /* skip the specifications */
			uint64_t attr = dwarf_read_leb(&c, false);
			uint64_t form = dwarf_read_leb(&c, false);

			if (form == DW_FORM_implicit_const)
				dwarf_read_leb(&c, true);
			if ((attr == 0 && form == 0) || c.bad)
				break;
		}
	}
	return false;
}

int dwarf_next_attribute(struct dwarf_cursor *c, const struct dwarf_unit *unit,
			 struct dwarf_cursor *specs, uint64_t *attribute,
			 struct dwarf_value *value)
{
	uint64_t form;
	int64_t implicit = 0;

	*attribute = dwarf_read_leb(specs, false);
	form = dwarf_read_leb(specs, false);
	if (form == DW_FORM_implicit_const)
		implicit = (int64_t)dwarf_read_leb(specs, true);
	if (specs->bad)
		return -1;
	if (*attribute == 0 && form == 0)
		return c->bad ? -1 : 0;
	while (form == DW_FORM_indirect && !c->bad)
		form = dwarf_read_leb(c, false);
	if (form > 0xffff || !dwarf_read_value(c, (unsigned)form, &unit->sizes, value))
		return -1;
	if (form == DW_FORM_implicit_const)
		value->number = (uint64_t)implicit;
	return c->bad ? -1 : 1;
}

bool dwarf_table_entry(struct dwarf_bytes in, uint64_t base, uint64_t index,
		       unsigned bytes, uint64_t *entry)
{
	struct dwarf_cursor c = {in.data, in.data + in.size, false};

	if (base > in.size || index > (in.size - base) / bytes)
		return false;
	c.p += base + index * bytes;
	*entry = dwarf_read_fixed(&c, bytes);
	return !c.bad;
}

const char *dwarf_value_string(const struct dwarf_info *info,
			       const struct dwarf_unit *unit, const struct dwarf_value *v)
{
	uint64_t offset;

	switch (v->form) {
	case DW_FORM_string:
		return v->string;
	case DW_FORM_strp:
		return dwarf_string_at(info->str, v->number);
	case DW_FORM_line_strp:
		return dwarf_string_at(info->line_str, v->number);
	case 0x1a:
	case 0x25:
	case 0x26:
	case 0x27:
	case 0x28: /* strx, strx1-4 */
		if (!dwarf_table_entry(info->str_offsets, unit->str_offsets_base,
				       v->number, unit->sizes.offset_size, &offset))
			return NULL;
		return dwarf_string_at(info->str, offset);
	default:
		return NULL;
	}
}

bool dwarf_value_address(const struct dwarf_info *info, const struct dwarf_unit *unit,
			 const struct dwarf_value *v, uint64_t *addr)
{
	switch (v->form) {
	case 0x01: /* addr */
		*addr = v->number;
		return true;
	case 0x1b:
	case 0x29:
	case 0x2a:
	case 0x2b:
	case 0x2c: /* addrx, addrx1-4 */
		return dwarf_table_entry(info->addr, unit->addr_base, v->number,
					 unit->sizes.address_size, addr);
	default:
		return false;
	}
}

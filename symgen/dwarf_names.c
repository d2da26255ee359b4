/*
 * dwarf_names.c - see dwarf_names.h. Reads only what naming a function
 * needs: the unit headers, the abbreviations, and, in each subprogram's
 * entry, DW_AT_low_pc, DW_AT_name and DW_AT_linkage_name; every other
 * attribute is skipped by its form (DWARF 5, section 7.5.6).
 */
#include "dwarf_names.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "die.h"
#include "dwarf_read.h"

#define DW_TAG_subprogram	0x2e
#define DW_AT_name		0x03
#define DW_AT_stmt_list		0x10
#define DW_AT_low_pc		0x11
#define DW_AT_abstract_origin	0x31
#define DW_AT_specification	0x47
#define DW_AT_linkage_name	0x6e
#define DW_AT_MIPS_linkage_name 0x2007
#define DW_AT_str_offsets_base	0x72
#define DW_AT_addr_base		0x73
#define DW_UT_compile		0x01
#define DW_UT_partial		0x03

/* What one unit's entries need to resolve their attributes. */
struct unit {
	unsigned version;
	unsigned offset_size;  /* 4: 32-bit DWARF, 8: 64-bit */
	unsigned address_size; /* 4 or 8 */
	uint64_t str_offsets_base;
	uint64_t addr_base;
	uint64_t abbrev_offset;
	uint64_t stmt_list; /* the unit's line program, if has_stmt_list */
	bool has_stmt_list;
	const unsigned char *start; /* the unit header: references count from it */
	const unsigned char *end;
};

struct reader {
	const struct elf_file *elf;
	struct dwarf_bytes info, abbrev, str, line_str, str_offsets, addr;
	const char *problem; /* why the debugging information was set aside */
	struct dwarf_name *names;
	size_t count;
	size_t capacity;
	uint64_t *line_offsets; /* the units' DW_AT_stmt_list */
	size_t line_count;
	size_t line_capacity;
};

/* Entry `index` of a table of `bytes`-wide words at `base` of `in`. */
static bool table_entry(struct dwarf_bytes in, uint64_t base, uint64_t index,
			unsigned bytes, uint64_t *entry)
{
	struct dwarf_cursor c = {in.data, in.data + in.size, false};

	if (base > in.size || index > (in.size - base) / bytes)
		return false;
	c.p += base + index * bytes;
	*entry = dwarf_read_fixed(&c, bytes);
	return !c.bad;
}

/* The string an attribute names, or NULL. */
static const char *value_string(const struct reader *r, const struct unit *unit,
				const struct dwarf_value *v)
{
	uint64_t offset;

	switch (v->form) {
	case 0x08:
		return v->string;
	case 0x0e:
		return dwarf_string_at(r->str, v->number);
	case 0x1f:
		return dwarf_string_at(r->line_str, v->number);
	case 0x1a:
	case 0x25:
	case 0x26:
	case 0x27:
	case 0x28: /* strx, strx1-4 */
		if (!table_entry(r->str_offsets, unit->str_offsets_base, v->number,
				 unit->offset_size, &offset))
			return NULL;
		return dwarf_string_at(r->str, offset);
	default:
		return NULL;
	}
}

/* The address an attribute gives, if it gives one. */
static bool value_address(const struct reader *r, const struct unit *unit,
			  const struct dwarf_value *v, uint64_t *addr)
{
	switch (v->form) {
	case 0x01:
		*addr = v->number;
		return true;
	case 0x1b:
	case 0x29:
	case 0x2a:
	case 0x2b:
	case 0x2c: /* addrx, addrx1-4 */
		return table_entry(r->addr, unit->addr_base, v->number,
				   unit->address_size, addr);
	default:
		return false;
	}
}

/* The abbreviation `code` of the table at `offset`: its tag, whether it has
 * children, and where its attribute specifications start. */
static bool find_abbrev(const struct reader *r, uint64_t offset, uint64_t code,
			uint64_t *tag, struct dwarf_cursor *specs)
{
	struct dwarf_cursor c = {r->abbrev.data, r->abbrev.data + r->abbrev.size, false};

	dwarf_skip(&c, offset);
	while (!c.bad) {
		uint64_t this_code = dwarf_read_leb(&c, false);

		if (this_code == 0)
			return false;
		*tag = dwarf_read_leb(&c, false);
		dwarf_read_fixed(&c, 1); /* children */
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

static void add_name(struct reader *r, uint64_t addr, const char *name)
{
	if (r->count == r->capacity) {
		r->capacity = r->capacity ? 2 * r->capacity : 64;
		r->names = tracked_realloc(r->elf->path, r->names, r->capacity,
					   sizeof(*r->names));
	}
	r->names[r->count++] = (struct dwarf_name){addr, name};
}

static void add_line_offset(struct reader *r, uint64_t offset)
{
	if (r->line_count == r->line_capacity) {
		r->line_capacity = r->line_capacity ? 2 * r->line_capacity : 64;
		r->line_offsets =
		    tracked_realloc(r->elf->path, r->line_offsets, r->line_capacity,
				    sizeof(*r->line_offsets));
	}
	r->line_offsets[r->line_count++] = offset;
}

/* What an entry says that matters here. */
struct entry {
	struct dwarf_value low_pc, name, linkage, origin;
	bool has_low_pc, has_name, has_linkage, has_origin;
};

/* Reads the attributes of an entry at c, as `specs` lists them; the
 * unit's own entry (unit_entry) also gives the bases. */
static bool read_attributes(struct dwarf_cursor *c, struct unit *unit,
			    struct dwarf_cursor specs, bool unit_entry, struct entry *e)
{
	memset(e, 0, sizeof(*e));
	for (;;) {
		uint64_t attr = dwarf_read_leb(&specs, false);
		uint64_t form = dwarf_read_leb(&specs, false);
		int64_t implicit = 0;
		struct dwarf_value v;
		struct dwarf_sizes sizes = {unit->version, unit->offset_size,
					    unit->address_size};

		if (form == DW_FORM_implicit_const)
			implicit = (int64_t)dwarf_read_leb(&specs, true);
		if (specs.bad)
			return false;
		if (attr == 0 && form == 0)
			return !c->bad;
		while (form == DW_FORM_indirect && !c->bad)
			form = dwarf_read_leb(c, false);
		if (!dwarf_read_value(c, (unsigned)form, &sizes, &v))
			return false;
		if (form == DW_FORM_implicit_const)
			v.number = (uint64_t)implicit;
		if (attr == DW_AT_low_pc) {
			e->low_pc = v;
			e->has_low_pc = true;
		} else if (attr == DW_AT_name) {
			e->name = v;
			e->has_name = true;
		} else if (attr == DW_AT_linkage_name ||
			   attr == DW_AT_MIPS_linkage_name) {
			e->linkage = v;
			e->has_linkage = true;
		} else if (attr == DW_AT_abstract_origin || attr == DW_AT_specification) {
			e->origin = v;
			e->has_origin = true;
		} else if (unit_entry && attr == DW_AT_str_offsets_base) {
			unit->str_offsets_base = v.number;
		} else if (unit_entry && attr == DW_AT_addr_base) {
			unit->addr_base = v.number;
		} else if (unit_entry && attr == DW_AT_stmt_list) {
			unit->stmt_list = v.number;
			unit->has_stmt_list = true;
		}
	}
}

/*
 * An entry's name: its linkage name, else its name, else, for an
 * out-of-line instance of an inlined function or a definition apart from
 * its declaration, the name of the entry it refers to in the same unit (as
 * GDB names it). NULL if none within a few such steps.
 */
static const char *entry_name(const struct reader *r, const struct unit *unit,
			      const struct entry *e, unsigned depth)
{
	struct unit copy = *unit;
	struct dwarf_cursor c;
	struct dwarf_cursor specs;
	struct entry origin;
	uint64_t code, tag;

	if (e->has_linkage)
		return value_string(r, unit, &e->linkage);
	if (e->has_name)
		return value_string(r, unit, &e->name);
	/* ref1, ref2, ref4, ref8, ref_udata: offsets from the unit's start. */
	if (!e->has_origin || depth >= 4 || e->origin.form < 0x11 ||
	    e->origin.form > 0x15 ||
	    e->origin.number >= (uint64_t)(unit->end - unit->start))
		return NULL;
	c = (struct dwarf_cursor){unit->start + e->origin.number, unit->end, false};
	code = dwarf_read_leb(&c, false);
	if (c.bad || !find_abbrev(r, unit->abbrev_offset, code, &tag, &specs) ||
	    !read_attributes(&c, &copy, specs, false, &origin))
		return NULL;
	return entry_name(r, unit, &origin, depth + 1);
}

/* One entry, at c: a subprogram with an entry address and a name is kept. */
static bool read_entry(struct reader *r, struct dwarf_cursor *c, struct unit *unit,
		       uint64_t tag, struct dwarf_cursor specs, bool unit_entry)
{
	struct entry e;
	const char *name;
	uint64_t addr;

	if (!read_attributes(c, unit, specs, unit_entry, &e))
		return false;
	if (tag != DW_TAG_subprogram || !e.has_low_pc)
		return true;
	name = entry_name(r, unit, &e, 0);
	if (name && *name && value_address(r, unit, &e.low_pc, &addr))
		add_name(r, addr, name);
	return true;
}

/* One unit, whose header starts at c; c moves past it. */
static bool read_unit(struct reader *r, struct dwarf_cursor *c)
{
	struct unit unit = {0, 4, 0, 0, 0, 0, 0, false, c->p, NULL};
	uint64_t length = dwarf_read_fixed(c, 4);
	unsigned unit_type = DW_UT_compile;
	struct dwarf_cursor entries;
	bool first = true;

	if (length == 0xffffffff) {
		unit.offset_size = 8;
		length = dwarf_read_fixed(c, 8);
	}
	if (c->bad || length > (uint64_t)(c->end - c->p))
		return false;
	entries = (struct dwarf_cursor){c->p, c->p + length, false};
	c->p += length;
	unit.end = c->p;
	unit.version = (unsigned)dwarf_read_fixed(&entries, 2);
	if (unit.version < 2 || unit.version > 5)
		return false;
	if (unit.version == 5) {
		unit_type = (unsigned)dwarf_read_fixed(&entries, 1);
		unit.address_size = (unsigned)dwarf_read_fixed(&entries, 1);
		unit.abbrev_offset = dwarf_read_fixed(&entries, unit.offset_size);
	} else {
		unit.abbrev_offset = dwarf_read_fixed(&entries, unit.offset_size);
		unit.address_size = (unsigned)dwarf_read_fixed(&entries, 1);
	}
	if (unit_type != DW_UT_compile && unit_type != DW_UT_partial)
		return !entries.bad; /* type and split units name no code here */
	if (entries.bad || (unit.address_size != 4 && unit.address_size != 8))
		return false;
	while (entries.p < entries.end) {
		uint64_t code = dwarf_read_leb(&entries, false);
		uint64_t tag;
		struct dwarf_cursor specs;

		if (code == 0)
			continue; /* the end of a list of children */
		if (!find_abbrev(r, unit.abbrev_offset, code, &tag, &specs) ||
		    !read_entry(r, &entries, &unit, tag, specs, first))
			return false;
		if (first && unit.has_stmt_list)
			add_line_offset(r, unit.stmt_list);
		first = false;
	}
	return !entries.bad;
}

static int compare_names(const void *a, const void *b)
{
	const struct dwarf_name *x = a;
	const struct dwarf_name *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name); /* the same order every run */
}

/* Reads every unit of .debug_info, its sections got through `section`;
 * false if one holds something this reader does not know. */
static bool read_units(struct reader *r, dwarf_section_reader *section)
{
	struct dwarf_cursor c;

	r->info = section(r->elf, ".debug_info");
	r->abbrev = section(r->elf, ".debug_abbrev");
	r->str = section(r->elf, ".debug_str");
	r->line_str = section(r->elf, ".debug_line_str");
	r->str_offsets = section(r->elf, ".debug_str_offsets");
	r->addr = section(r->elf, ".debug_addr");
	c = (struct dwarf_cursor){r->info.data, r->info.data + r->info.size, false};
	while (r->info.size && c.p < c.end)
		if (!read_unit(r, &c))
			return false;
	return true;
}

struct dwarf_name *dwarf_names_read(const struct elf_file *elf, size_t *count)
{
	struct reader r;

	memset(&r, 0, sizeof(r));
	r.elf = elf;
	if (!read_units(&r, dwarf_section)) {
		/* Names from the symbol table alone, as without .debug_info: a
		 * kernel with debugging information this reader does not know
		 * must still build. */
		r.count = 0;
	}
	tracked_free(r.line_offsets);
	if (r.count > 1)
		qsort(r.names, r.count, sizeof(*r.names), compare_names);
	*count = r.count;
	return r.names;
}

uint64_t *dwarf_line_programs(const struct elf_file *elf, dwarf_section_reader *section,
			      size_t *count)
{
	struct reader r;

	memset(&r, 0, sizeof(r));
	r.elf = elf;
	if (!read_units(&r, section)) {
		tracked_free(r.names);
		tracked_free(r.line_offsets);
		return NULL;
	}
	tracked_free(r.names);
	*count = r.line_count;
	return r.line_offsets ? r.line_offsets
			      : tracked_alloc(elf->path, 1, sizeof(*r.line_offsets));
}

const char *dwarf_name_at(const struct dwarf_name *names, size_t count, uint64_t addr)
{
	size_t low = 0, high = count;

	while (low < high) {
		size_t mid = low + (high - low) / 2;

		if (names[mid].addr < addr)
			low = mid + 1;
		else
			high = mid;
	}
	return low < count && names[low].addr == addr ? names[low].name : NULL;
}

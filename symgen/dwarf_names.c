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

struct reader {
	const struct elf_file *elf;
	struct dwarf_info info;
	struct dwarf_name *names;
	size_t count;
	size_t capacity;
	uint64_t *line_offsets; /* the units' DW_AT_stmt_list */
	size_t line_count;
	size_t line_capacity;
};

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
 * unit's own entry (unit_entry) also gives the bases and the line program. */
static bool read_attributes(struct dwarf_cursor *c, struct dwarf_unit *unit,
			    struct dwarf_cursor specs, bool unit_entry, struct entry *e,
			    uint64_t *stmt_list, bool *has_stmt_list)
{
	uint64_t attr;
	struct dwarf_value v;
	int more;

	memset(e, 0, sizeof(*e));
	while ((more = dwarf_next_attribute(c, unit, &specs, &attr, &v)) > 0) {
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
			*stmt_list = v.number;
			*has_stmt_list = true;
		}
	}
	return more == 0;
}

/*
 * An entry's name: its linkage name, else its name, else, for an
 * out-of-line instance of an inlined function or a definition apart from
 * its declaration, the name of the entry it refers to in the same unit (as
 * GDB names it). NULL if none within a few such steps.
 */
static const char *entry_name(const struct reader *r, const struct dwarf_unit *unit,
			      const struct entry *e, unsigned depth)
{
	struct dwarf_unit copy = *unit;
	struct dwarf_cursor c;
	struct dwarf_cursor specs;
	struct entry origin;
	uint64_t code, tag, stmt_list;
	bool has_children, has_stmt_list;

	if (e->has_linkage)
		return dwarf_value_string(&r->info, unit, &e->linkage);
	if (e->has_name)
		return dwarf_value_string(&r->info, unit, &e->name);
	/* ref1, ref2, ref4, ref8, ref_udata: offsets from the unit's start. */
	if (!e->has_origin || depth >= 4 || e->origin.form < 0x11 ||
	    e->origin.form > 0x15 ||
	    e->origin.number >= (uint64_t)(unit->end - unit->start))
		return NULL;
	c = (struct dwarf_cursor){unit->start + e->origin.number, unit->end, false};
	code = dwarf_read_leb(&c, false);
	if (c.bad ||
	    !dwarf_find_abbrev(&r->info, unit, code, &tag, &has_children, &specs) ||
	    !read_attributes(&c, &copy, specs, false, &origin, &stmt_list,
			     &has_stmt_list))
		return NULL;
	return entry_name(r, unit, &origin, depth + 1);
}

/* One entry, at c: a subprogram with an entry address and a name is kept;
 * the unit's own entry gives the unit's line program. */
static bool read_entry(struct reader *r, struct dwarf_cursor *c, struct dwarf_unit *unit,
		       uint64_t tag, struct dwarf_cursor specs, bool unit_entry)
{
	struct entry e;
	const char *name;
	uint64_t addr, stmt_list = 0;
	bool has_stmt_list = false;

	if (!read_attributes(c, unit, specs, unit_entry, &e, &stmt_list, &has_stmt_list))
		return false;
	if (has_stmt_list)
		add_line_offset(r, stmt_list);
	if (tag != DW_TAG_subprogram || !e.has_low_pc)
		return true;
	name = entry_name(r, unit, &e, 0);
	if (name && *name && dwarf_value_address(&r->info, unit, &e.low_pc, &addr))
		add_name(r, addr, name);
	return true;
}

/* One unit, whose header starts at c; c moves past it. */
static bool read_unit(struct reader *r, struct dwarf_cursor *c)
{
	struct dwarf_unit unit;
	struct dwarf_cursor entries;
	bool first = true;

	if (!dwarf_read_unit(c, &unit, &entries))
		return false;
	if (unit.type != DW_UT_compile && unit.type != DW_UT_partial)
		return true; /* type and split units name no code here */
	while (entries.p < entries.end) {
		uint64_t code = dwarf_read_leb(&entries, false);
		uint64_t tag;
		bool has_children;
		struct dwarf_cursor specs;

		if (code == 0)
			continue; /* the end of a list of children */
		if (!dwarf_find_abbrev(&r->info, &unit, code, &tag, &has_children,
				       &specs) ||
		    !read_entry(r, &entries, &unit, tag, specs, first))
			return false;
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

	dwarf_info_sections(r->elf, section, &r->info);
	c = (struct dwarf_cursor){r->info.info.data,
				  r->info.info.data + r->info.info.size, false};
	while (r->info.info.size && c.p < c.end)
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

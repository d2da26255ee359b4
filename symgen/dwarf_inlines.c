/*
 * dwarf_inlines.c - see dwarf_inlines.h. Two passes over .debug_info: the
 * first reads each unit's header and its own entry (the bases its forms
 * count from, its base address, its line program), so that a reference
 * into any unit can be read; the second walks each unit's tree of entries,
 * keeping the nesting of DW_TAG_inlined_subroutine entries. Ranges are
 * DWARF 5's (section 2.17: low_pc and high_pc, or DW_AT_ranges into
 * .debug_rnglists) or DWARF 4's (.debug_ranges).
 */
#include "dwarf_inlines.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "die.h"
#include "dwarf_lines.h"
#include "dwarf_read.h"
#include "dwarf_section.h"

#define DW_TAG_subprogram	  0x2e
#define DW_TAG_inlined_subroutine 0x1d
#define DW_AT_name		  0x03
#define DW_AT_stmt_list		  0x10
#define DW_AT_low_pc		  0x11
#define DW_AT_high_pc		  0x12
#define DW_AT_abstract_origin	  0x31
#define DW_AT_specification	  0x47
#define DW_AT_ranges		  0x55
#define DW_AT_call_file		  0x58
#define DW_AT_call_line		  0x59
#define DW_AT_linkage_name	  0x6e
#define DW_AT_str_offsets_base	  0x72
#define DW_AT_addr_base		  0x73
#define DW_AT_rnglists_base	  0x74
#define DW_AT_MIPS_linkage_name	  0x2007
#define DW_FORM_addr		  0x01
#define DW_FORM_ref_addr	  0x10
#define DW_FORM_ref1		  0x11
#define DW_FORM_ref_udata	  0x15
#define DW_FORM_rnglistx	  0x23
#define DW_RLE_end_of_list	  0x00
#define DW_RLE_base_addressx	  0x01
#define DW_RLE_startx_endx	  0x02
#define DW_RLE_startx_length	  0x03
#define DW_RLE_offset_pair	  0x04
#define DW_RLE_base_address	  0x05
#define DW_RLE_start_end	  0x06
#define DW_RLE_start_length	  0x07
/* How many DW_AT_abstract_origin and DW_AT_specification steps a name may
 * take: gcc and clang take at most two (abstract instance, declaration);
 * a longer chain is taken for a loop. */
#define MAX_ORIGIN_STEPS 8

/* A unit and what its own entry says. */
struct unit {
	struct dwarf_unit header;
	struct dwarf_cursor entries; /* after the header */
	uint64_t base_address;	     /* DW_AT_low_pc: where range lists count from */
	uint64_t rnglists_base;
	bool has_rnglists_base;
	uint64_t stmt_list;	 /* its line program, if has_files */
	struct line_files files; /* of its line program */
	bool has_files;
};

struct reader {
	const struct elf_file *elf;
	struct dwarf_info info;
	struct dwarf_bytes ranges, rnglists;
	struct unit *units;
	size_t unit_count, unit_capacity;
	struct inline_table *table;
	size_t call_capacity, range_capacity;
};

/* What an entry says that matters here. */
struct entry {
	struct dwarf_value low_pc, high_pc, ranges, origin, name, linkage, call_file,
	    call_line;
	bool has_low_pc, has_high_pc, has_ranges, has_origin, has_name, has_linkage,
	    has_call_file, has_call_line;
};

_Noreturn static void malformed(const struct reader *r, const char *section,
				struct dwarf_bytes bytes, const unsigned char *at,
				const char *why)
{
	die(r->elf->path, "malformed %s at offset 0x%llx: %s", section,
	    (unsigned long long)(at - bytes.data), why);
}

_Noreturn static void malformed_info(const struct reader *r, const unsigned char *at,
				     const char *why)
{
	malformed(r, ".debug_info", r->info.info, at, why);
}

/* Reads the attributes of the entry at c, as `specs` lists them. */
static void read_entry(const struct reader *r, struct dwarf_cursor *c,
		       const struct unit *unit, struct dwarf_cursor specs,
		       struct entry *e)
{
	const unsigned char *at = c->p;
	uint64_t attr;
	struct dwarf_value v;
	int more;

	memset(e, 0, sizeof(*e));
	while ((more = dwarf_next_attribute(c, &unit->header, &specs, &attr, &v)) > 0) {
		switch (attr) {
		case DW_AT_low_pc:
			e->low_pc = v;
			e->has_low_pc = true;
			break;
		case DW_AT_high_pc:
			e->high_pc = v;
			e->has_high_pc = true;
			break;
		case DW_AT_ranges:
			e->ranges = v;
			e->has_ranges = true;
			break;
		case DW_AT_abstract_origin:
		case DW_AT_specification:
			e->origin = v;
			e->has_origin = true;
			break;
		case DW_AT_name:
			e->name = v;
			e->has_name = true;
			break;
		case DW_AT_linkage_name:
		case DW_AT_MIPS_linkage_name:
			e->linkage = v;
			e->has_linkage = true;
			break;
		case DW_AT_call_file:
			e->call_file = v;
			e->has_call_file = true;
			break;
		case DW_AT_call_line:
			e->call_line = v;
			e->has_call_line = true;
			break;
		default:
			break;
		}
	}
	if (more < 0)
		malformed_info(r, at,
			       "entry truncated, or of a form symgen does not know");
}

/* The abbreviation of the entry at c: c moves past its code. False for
 * code 0 (the end of a list of children). */
static bool read_abbrev(const struct reader *r, struct dwarf_cursor *c,
			const struct unit *unit, uint64_t *tag, bool *has_children,
			struct dwarf_cursor *specs)
{
	const unsigned char *at = c->p;
	uint64_t code = dwarf_read_leb(c, false);

	if (c->bad)
		malformed_info(r, at, "entry truncated");
	if (code == 0)
		return false;
	if (!dwarf_find_abbrev(&r->info, &unit->header, code, tag, has_children, specs))
		malformed_info(r, at, "abbreviation code not in the unit's table");
	return true;
}

/* The unit that holds .debug_info offset `offset`, or NULL. */
static const struct unit *unit_at(const struct reader *r, uint64_t offset)
{
	size_t low = 0, high = r->unit_count;

	while (low < high) {
		size_t mid = low + (high - low) / 2;

		if ((uint64_t)(r->units[mid].header.end - r->info.info.data) <= offset)
			low = mid + 1;
		else
			high = mid;
	}
	if (low == r->unit_count ||
	    (uint64_t)(r->units[low].entries.p - r->info.info.data) > offset)
		return NULL;
	return &r->units[low];
}

/*
 * The name of the function an inlined call's entry refers to: the linkage
 * name, else the name, of the entry its DW_AT_abstract_origin names, or of
 * the one that entry's DW_AT_abstract_origin or DW_AT_specification names,
 * and so on, in any unit. NULL if none of them has a name.
 */
static const char *origin_name(const struct reader *r, const struct unit *unit,
			       const struct entry *e, const unsigned char *at)
{
	struct entry current = *e;

	for (unsigned step = 0; step < MAX_ORIGIN_STEPS; step++) {
		uint64_t offset, tag;
		bool has_children;
		struct dwarf_cursor c, specs;

		if (current.has_linkage || current.has_name) {
			const char *name = dwarf_value_string(
			    &r->info, &unit->header,
			    current.has_linkage ? &current.linkage : &current.name);

			if (!name)
				malformed_info(r, at, "name not in the string sections");
			return name;
		}
		if (!current.has_origin)
			return NULL;
		if (current.origin.form == DW_FORM_ref_addr) {
			offset = current.origin.number;
		} else if (current.origin.form >= DW_FORM_ref1 &&
			   current.origin.form <= DW_FORM_ref_udata) {
			/* ref1-8, ref_udata: from the unit's start */
			uint64_t unit_start =
			    (uint64_t)(unit->header.start - r->info.info.data);

			if (current.origin.number > UINT64_MAX - unit_start)
				malformed_info(r, at, "reference out of .debug_info");
			offset = unit_start + current.origin.number;
		} else {
			malformed_info(r, at, "reference of a form symgen does not know");
		}
		if (!(unit = unit_at(r, offset)))
			malformed_info(r, at,
				       "reference out of the units of .debug_info");
		at = r->info.info.data + offset;
		c = (struct dwarf_cursor){at, unit->header.end, false};
		if (!read_abbrev(r, &c, unit, &tag, &has_children, &specs))
			malformed_info(r, at, "reference to no entry");
		read_entry(r, &c, unit, specs, &current);
	}
	malformed_info(r, at, "a loop of DW_AT_abstract_origin or DW_AT_specification");
}

static void add_range(struct reader *r, uint64_t low, uint64_t high, size_t call)
{
	struct inline_table *t = r->table;

	if (low >= high)
		return; /* empty: code the compiler dropped */
	if (t->range_count == r->range_capacity) {
		r->range_capacity = r->range_capacity ? 2 * r->range_capacity : 256;
		t->ranges = tracked_realloc(r->elf->path, t->ranges, r->range_capacity,
					    sizeof(*t->ranges));
	}
	t->ranges[t->range_count++] = (struct inline_range){low, high, call};
}

/* start + length, or a malformed error if it wraps. */
static uint64_t range_end(const struct reader *r, const char *section,
			  struct dwarf_bytes bytes, const unsigned char *at,
			  uint64_t start, uint64_t length)
{
	if (length > UINT64_MAX - start)
		malformed(r, section, bytes, at,
			  "range past the end of the address space");
	return start + length;
}

/* An address of .debug_addr, by index, for a range list entry. */
static uint64_t list_address(const struct reader *r, const struct unit *unit,
			     const unsigned char *at, uint64_t index)
{
	uint64_t addr;

	if (!dwarf_table_entry(r->info.addr, unit->header.addr_base, index,
			       unit->header.sizes.address_size, &addr))
		malformed(r, ".debug_rnglists", r->rnglists, at,
			  "address index out of .debug_addr");
	return addr;
}

/* DWARF 5: the range list at `offset` of .debug_rnglists (section 2.17.3),
 * for the entry at `entry`. */
static void read_rnglist(struct reader *r, const struct unit *unit,
			 const unsigned char *entry, uint64_t offset, size_t call)
{
	const char *section = ".debug_rnglists";
	struct dwarf_cursor c = {r->rnglists.data, r->rnglists.data + r->rnglists.size,
				 false};
	unsigned address_size = unit->header.sizes.address_size;
	uint64_t base = unit->base_address;

	if (offset >= r->rnglists.size)
		malformed_info(r, entry, "range list offset past .debug_rnglists");
	c.p += offset;
	for (;;) {
		const unsigned char *at = c.p;
		unsigned kind = (unsigned)dwarf_read_fixed(&c, 1);
		uint64_t start, end;

		switch (kind) {
		case DW_RLE_end_of_list:
			if (c.bad)
				malformed(r, section, r->rnglists, at, "list not ended");
			return;
		case DW_RLE_base_addressx:
			base = list_address(r, unit, at, dwarf_read_leb(&c, false));
			break;
		case DW_RLE_startx_endx:
			start = list_address(r, unit, at, dwarf_read_leb(&c, false));
			end = list_address(r, unit, at, dwarf_read_leb(&c, false));
			add_range(r, start, end, call);
			break;
		case DW_RLE_startx_length:
			start = list_address(r, unit, at, dwarf_read_leb(&c, false));
			end = range_end(r, section, r->rnglists, at, start,
					dwarf_read_leb(&c, false));
			add_range(r, start, end, call);
			break;
		case DW_RLE_offset_pair:
			start = dwarf_read_leb(&c, false);
			end = dwarf_read_leb(&c, false);
			if (start > end)
				malformed(r, section, r->rnglists, at,
					  "range ends before it starts");
			add_range(r, range_end(r, section, r->rnglists, at, base, start),
				  range_end(r, section, r->rnglists, at, base, end),
				  call);
			break;
		case DW_RLE_base_address:
			base = dwarf_read_fixed(&c, address_size);
			break;
		case DW_RLE_start_end:
			start = dwarf_read_fixed(&c, address_size);
			end = dwarf_read_fixed(&c, address_size);
			add_range(r, start, end, call);
			break;
		case DW_RLE_start_length:
			start = dwarf_read_fixed(&c, address_size);
			end = range_end(r, section, r->rnglists, at, start,
					dwarf_read_leb(&c, false));
			add_range(r, start, end, call);
			break;
		default:
			malformed(r, section, r->rnglists, at,
				  "unknown range list entry");
		}
		if (c.bad)
			malformed(r, section, r->rnglists, at, "list not ended");
	}
}

/* DWARF 2-4: the range list at `offset` of .debug_ranges (DWARF 4,
 * section 2.17.3): pairs of addresses from the base address; (0, 0) ends
 * it, (all ones, address) sets the base address. For the entry at `entry`. */
static void read_ranges(struct reader *r, const struct unit *unit,
			const unsigned char *entry, uint64_t offset, size_t call)
{
	const char *section = ".debug_ranges";
	struct dwarf_cursor c = {r->ranges.data, r->ranges.data + r->ranges.size, false};
	unsigned address_size = unit->header.sizes.address_size;
	uint64_t all_ones = address_size == 8 ? UINT64_MAX : UINT32_MAX;
	uint64_t base = unit->base_address;

	if (offset >= r->ranges.size)
		malformed_info(r, entry, "range list offset past .debug_ranges");
	c.p += offset;
	for (;;) {
		const unsigned char *at = c.p;
		uint64_t start = dwarf_read_fixed(&c, address_size);
		uint64_t end = dwarf_read_fixed(&c, address_size);

		if (c.bad)
			malformed(r, section, r->ranges, at, "list not ended");
		if (start == 0 && end == 0)
			return;
		if (start == all_ones) {
			base = end;
			continue;
		}
		if (start > end)
			malformed(r, section, r->ranges, at,
				  "range ends before it starts");
		add_range(r, range_end(r, section, r->ranges, at, base, start),
			  range_end(r, section, r->ranges, at, base, end), call);
	}
}

/* The ranges of an inlined call's entry, at `at`. */
static void read_call_ranges(struct reader *r, const struct unit *unit,
			     const struct entry *e, const unsigned char *at, size_t call)
{
	uint64_t low, high, offset;

	if (e->has_ranges) {
		if (e->ranges.form == DW_FORM_rnglistx) {
			if (!unit->has_rnglists_base)
				malformed_info(r, at,
					       "rnglistx without DW_AT_rnglists_base");
			/* The index's offset counts from the base (2.17.3). */
			if (!dwarf_table_entry(r->rnglists, unit->rnglists_base,
					       e->ranges.number,
					       unit->header.sizes.offset_size, &offset) ||
			    offset > UINT64_MAX - unit->rnglists_base)
				malformed_info(r, at,
					       "range list index past .debug_rnglists");
			read_rnglist(r, unit, at, unit->rnglists_base + offset, call);
		} else if (unit->header.sizes.version >= 5) {
			read_rnglist(r, unit, at, e->ranges.number, call);
		} else {
			read_ranges(r, unit, at, e->ranges.number, call);
		}
		return;
	}
	if (!e->has_low_pc || !e->has_high_pc)
		return; /* no code: an abstract instance's call */
	if (!dwarf_value_address(&r->info, &unit->header, &e->low_pc, &low))
		malformed_info(r, at, "DW_AT_low_pc is not an address");
	switch (e->high_pc.form) {
	case DW_FORM_addr:
	case 0x1b:
	case 0x29:
	case 0x2a:
	case 0x2b:
	case 0x2c: /* addrx, addrx1-4 */
		if (!dwarf_value_address(&r->info, &unit->header, &e->high_pc, &high))
			malformed_info(r, at, "DW_AT_high_pc is not an address");
		if (high < low)
			malformed_info(r, at, "DW_AT_high_pc before DW_AT_low_pc");
		break;
	case 0x05:
	case 0x06:
	case 0x07:
	case 0x0b:
	case 0x0f:
	case 0x21: /* data2, data4, data8, data1, udata, implicit_const: a length */
		high =
		    range_end(r, ".debug_info", r->info.info, at, low, e->high_pc.number);
		break;
	default:
		malformed_info(r, at, "DW_AT_high_pc of a form symgen does not know");
	}
	add_range(r, low, high, call);
}

/* The file a call's DW_AT_call_file names, in its unit's line program. */
static const char *call_file(const struct reader *r, const struct unit *unit,
			     const struct entry *e, const unsigned char *at)
{
	const struct line_files *files = &unit->files;
	uint64_t number = e->call_file.number;

	if (!e->has_call_file)
		return NULL;
	/* File 0 of a DWARF 2-4 line program (or unit, without one) is none. */
	if (number == 0 &&
	    (unit->has_files ? files->first == 1 : unit->header.sizes.version < 5))
		return NULL;
	if (!unit->has_files)
		malformed_info(r, at, "DW_AT_call_file in a unit without a line program");
	if (number < files->first || number - files->first >= files->count)
		malformed_info(r, at, "DW_AT_call_file past the line program's files");
	return files->names[number - files->first];
}

static size_t add_call(struct reader *r, const struct unit *unit, const struct entry *e,
		       const unsigned char *at, size_t parent)
{
	struct inline_table *t = r->table;
	struct inline_call call;

	if (e->has_call_line && e->call_line.number > UINT32_MAX)
		malformed_info(r, at, "DW_AT_call_line past 2^32");
	call.name = origin_name(r, unit, e, at);
	call.call_file = call_file(r, unit, e, at);
	call.call_line = e->has_call_line ? (uint32_t)e->call_line.number : 0;
	call.parent = parent;
	call.depth = parent == INLINE_NO_CALL ? 0 : t->calls[parent].depth + 1;
	call.offset = (uint64_t)(at - r->info.info.data);
	if (t->call_count == r->call_capacity) {
		r->call_capacity = r->call_capacity ? 2 * r->call_capacity : 256;
		t->calls = tracked_realloc(r->elf->path, t->calls, r->call_capacity,
					   sizeof(*t->calls));
	}
	t->calls[t->call_count] = call;
	read_call_ranges(r, unit, e, at, t->call_count);
	return t->call_count++;
}

/*
 * Walks a unit's entries after its own. `inside[level]` is the inlined
 * call the entries at that level of nesting are in: a subprogram starts a
 * tree of its own (a nested function is not inside its parent's calls).
 */
static void read_tree(struct reader *r, const struct unit *unit)
{
	struct dwarf_cursor c = unit->entries;
	size_t *inside;
	size_t levels = 0, capacity = 16;
	uint64_t tag;
	bool has_children;
	struct dwarf_cursor specs;
	struct entry e;

	inside = tracked_alloc(r->elf->path, capacity, sizeof(*inside));
	/* The unit's own entry, read in the first pass. */
	if (!read_abbrev(r, &c, unit, &tag, &has_children, &specs))
		malformed_info(r, c.p, "unit without an entry");
	read_entry(r, &c, unit, specs, &e);
	if (has_children)
		inside[levels++] = INLINE_NO_CALL;
	while (levels > 0 && c.p < c.end) {
		const unsigned char *at = c.p;
		size_t here = inside[levels - 1], children = here;

		if (!read_abbrev(r, &c, unit, &tag, &has_children, &specs)) {
			levels--;
			continue;
		}
		read_entry(r, &c, unit, specs, &e);
		if (tag == DW_TAG_subprogram)
			children = INLINE_NO_CALL;
		else if (tag == DW_TAG_inlined_subroutine)
			children = add_call(r, unit, &e, at, here);
		if (!has_children)
			continue;
		if (levels == capacity) {
			capacity *= 2;
			inside = tracked_realloc(r->elf->path, inside, capacity,
						 sizeof(*inside));
		}
		inside[levels++] = children;
	}
	tracked_free(inside);
}

/* First pass: each unit's header and own entry. */
static void read_units(struct reader *r)
{
	struct dwarf_cursor c = {r->info.info.data, r->info.info.data + r->info.info.size,
				 false};

	while (c.p < c.end) {
		const unsigned char *at = c.p;
		struct unit unit;
		uint64_t tag, attr;
		bool has_children, has_low_pc = false;
		struct dwarf_cursor specs, entry;
		struct dwarf_value v, low_pc;
		int more;

		memset(&unit, 0, sizeof(unit));
		if (!dwarf_read_unit(&c, &unit.header, &unit.entries))
			malformed_info(r, at,
				       "unit header truncated, or of a version or "
				       "address size symgen does not know");
		if (unit.header.type != DW_UT_compile &&
		    unit.header.type != DW_UT_partial)
			continue; /* type and split units: no code */
		entry = unit.entries;
		if (!read_abbrev(r, &entry, &unit, &tag, &has_children, &specs))
			malformed_info(r, unit.entries.p, "unit without an entry");
		while ((more = dwarf_next_attribute(&entry, &unit.header, &specs, &attr,
						    &v)) > 0) {
			if (attr == DW_AT_str_offsets_base) {
				unit.header.str_offsets_base = v.number;
			} else if (attr == DW_AT_addr_base) {
				unit.header.addr_base = v.number;
			} else if (attr == DW_AT_rnglists_base) {
				unit.rnglists_base = v.number;
				unit.has_rnglists_base = true;
			} else if (attr == DW_AT_stmt_list) {
				unit.stmt_list = v.number;
				unit.has_files = true;
			} else if (attr == DW_AT_low_pc) {
				low_pc = v;
				has_low_pc = true;
			}
		}
		if (more < 0)
			malformed_info(
			    r, unit.entries.p,
			    "entry truncated, or of a form symgen does not know");
		/* After the loop: an addrx needs DW_AT_addr_base, which may follow. */
		if (has_low_pc && !dwarf_value_address(&r->info, &unit.header, &low_pc,
						       &unit.base_address))
			malformed_info(r, unit.entries.p,
				       "DW_AT_low_pc is not an address");
		if (r->unit_count == r->unit_capacity) {
			r->unit_capacity = r->unit_capacity ? 2 * r->unit_capacity : 64;
			r->units = tracked_realloc(r->elf->path, r->units,
						   r->unit_capacity, sizeof(*r->units));
		}
		r->units[r->unit_count++] = unit;
	}
}

/* Each unit's line program's files, for DW_AT_call_file. */
static void read_files(struct reader *r)
{
	uint64_t *offsets =
	    tracked_alloc(r->elf->path, r->unit_count + 1, sizeof(*offsets));
	struct line_files *files =
	    tracked_alloc(r->elf->path, r->unit_count + 1, sizeof(*files));
	size_t count = 0;

	for (size_t i = 0; i < r->unit_count; i++)
		if (r->units[i].has_files)
			offsets[count++] = r->units[i].stmt_list;
	dwarf_line_files(r->elf, offsets, count, files);
	for (size_t i = 0, n = 0; i < r->unit_count; i++)
		if (r->units[i].has_files)
			r->units[i].files = files[n++];
	tracked_free(offsets);
	tracked_free(files);
}

void dwarf_inlines_read(const struct elf_file *elf, struct inline_table *table)
{
	struct reader r;

	memset(&r, 0, sizeof(r));
	memset(table, 0, sizeof(*table));
	r.elf = elf;
	r.table = table;
	dwarf_info_sections(elf, dwarf_section_inflated, &r.info);
	r.ranges = dwarf_section_inflated(elf, ".debug_ranges");
	r.rnglists = dwarf_section_inflated(elf, ".debug_rnglists");
	read_units(&r);
	read_files(&r);
	for (size_t i = 0; i < r.unit_count; i++)
		read_tree(&r, &r.units[i]);
	for (size_t i = 0; i < r.unit_count; i++)
		tracked_free(r.units[i].files.names);
	tracked_free(r.units);
}

size_t dwarf_inline_chain(const struct inline_table *table, uint64_t pc, size_t *chain,
			  size_t max)
{
	size_t innermost = INLINE_NO_CALL, length = 0;
	uint64_t innermost_size = 0;

	for (size_t i = 0; i < table->range_count; i++) {
		const struct inline_range *range = &table->ranges[i];
		const struct inline_call *call = &table->calls[range->call];
		uint64_t size = range->high - range->low;

		if (pc < range->low || pc >= range->high)
			continue;
		if (innermost == INLINE_NO_CALL ||
		    call->depth > table->calls[innermost].depth ||
		    (call->depth == table->calls[innermost].depth &&
		     size < innermost_size)) {
			innermost = range->call;
			innermost_size = size;
		}
	}
	for (size_t call = innermost; call != INLINE_NO_CALL;
	     call = table->calls[call].parent) {
		if (length < max)
			chain[length] = call;
		length++;
	}
	return length;
}

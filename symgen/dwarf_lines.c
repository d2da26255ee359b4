/*
 * dwarf_lines.c - see dwarf_lines.h. Runs each line program's state
 * machine (DWARF 5, section 6.2.5) and keeps, of each row, the address, the
 * file, the line and is_stmt (for GDB's choice among rows at one address);
 * columns, views, discriminators and the basic_block, prologue and
 * epilogue flags are read and dropped, as addr2line and GDB drop them.
 */
#include "dwarf_lines.h"

#include <stdlib.h>
#include <string.h>

#include "die.h"
#include "dwarf_names.h"
#include "dwarf_read.h"
#include "dwarf_section.h"

#define DW_LNS_copy		  1
#define DW_LNS_advance_pc	  2
#define DW_LNS_advance_line	  3
#define DW_LNS_set_file		  4
#define DW_LNS_set_column	  5
#define DW_LNS_negate_stmt	  6
#define DW_LNS_set_basic_block	  7
#define DW_LNS_const_add_pc	  8
#define DW_LNS_fixed_advance_pc	  9
#define DW_LNS_set_prologue_end	  10
#define DW_LNS_set_epilogue_begin 11
#define DW_LNS_set_isa		  12
#define DW_LNE_end_sequence	  1
#define DW_LNE_set_address	  2
#define DW_LNE_define_file	  3
#define DW_LNE_set_discriminator  4
#define DW_LNCT_path		  1
#define DW_LNCT_directory_index	  2

/* A row while its sequence is read: `order` keeps the programs' order
 * among rows at one address through the sort. */
struct raw_row {
	struct line_row row;
	size_t order;
	bool is_stmt;
};

struct reader {
	const struct elf_file *elf;
	enum line_choice choice;
	struct dwarf_bytes line, line_str, str;
	/* Every file of every program, duplicates included. */
	const char **paths;
	size_t path_count, path_capacity;
	struct raw_row *rows;
	size_t row_count, row_capacity;
	size_t sequence_start; /* the first row of the sequence being read */
};

/* One program's header: what its opcodes and file numbers mean. */
struct program {
	struct dwarf_sizes sizes;
	unsigned min_instruction_length;
	unsigned max_ops; /* operations per instruction (VLIW; 1 here) */
	bool default_is_stmt;
	int line_base;
	unsigned line_range;
	unsigned opcode_base;
	const unsigned char *opcode_lengths; /* of opcodes 1 .. opcode_base - 1 */
	const char **dirs;
	size_t dir_count;
	size_t *files; /* indices in reader.paths */
	size_t file_count, file_capacity;
	size_t first_file; /* the number of files[0]: 0 in DWARF 5, else 1 */
};

/* The state machine's registers that rows keep, and those that place them. */
struct state {
	uint64_t address;
	uint64_t op_index;
	uint64_t file;
	uint32_t line;
	bool is_stmt;
	/* What GDB's choice of rows looks back at (add_row). */
	uint64_t discriminator;
	bool line_had_discriminator;
	const char *last_path; /* of the last row GDB kept */
	uint32_t last_line;
	uint64_t last_address; /* of the last row */
	bool stmt_at_address;  /* a statement row at last_address */
};

_Noreturn static void malformed(const struct reader *r, const unsigned char *at,
				const char *why)
{
	die(r->elf->path, "malformed .debug_line at offset 0x%llx: %s",
	    (unsigned long long)(at - r->line.data), why);
}

static void check(const struct reader *r, const struct dwarf_cursor *c,
		  const unsigned char *at, const char *why)
{
	if (c->bad)
		malformed(r, at, why);
}

/* A copy of dir "/" name (or name alone if it is absolute or dir empty). */
static const char *join_path(const struct reader *r, const char *dir, const char *name)
{
	size_t dir_length = strlen(dir), name_length = strlen(name);
	char *path;

	if (name[0] == '/' || dir_length == 0)
		dir_length = 0;
	path = tracked_alloc(r->elf->path, dir_length + name_length + 2, 1);
	if (dir_length) {
		memcpy(path, dir, dir_length);
		path[dir_length++] = '/';
	}
	memcpy(path + dir_length, name, name_length + 1);
	return path;
}

/* The string a path attribute names, or NULL. */
static const char *path_string(const struct reader *r, const struct dwarf_value *v)
{
	switch (v->form) {
	case DW_FORM_string:
		return v->string;
	case DW_FORM_line_strp:
		return dwarf_string_at(r->line_str, v->number);
	case DW_FORM_strp:
		return dwarf_string_at(r->str, v->number);
	default:
		return NULL;
	}
}

/*
 * A file's path, relative to the compilation directory where the program
 * says it is in it: DWARF 5's directory 0 is the compilation directory,
 * DWARF 4's directory index 0 means it; a directory under the compilation
 * directory loses that prefix. NULL for a directory index out of range.
 */
static const char *file_path(const struct reader *r, const struct program *p,
			     const char *name, uint64_t dir)
{
	const char *compilation_dir = p->sizes.version >= 5 ? p->dirs[0] : NULL;
	const char *directory;
	size_t length;

	if (p->sizes.version >= 5) {
		if (dir >= p->dir_count)
			return NULL;
		directory = dir == 0 ? "" : p->dirs[dir];
	} else {
		if (dir > p->dir_count)
			return NULL;
		directory = dir == 0 ? "" : p->dirs[dir - 1];
	}
	if (compilation_dir && (length = strlen(compilation_dir)) > 0 &&
	    strncmp(directory, compilation_dir, length) == 0 &&
	    (directory[length] == '/' || directory[length] == '\0'))
		directory += directory[length] ? length + 1 : length;
	return join_path(r, directory, name);
}

static void add_file(struct reader *r, struct program *p, const char *path)
{
	if (r->path_count == r->path_capacity) {
		r->path_capacity = r->path_capacity ? 2 * r->path_capacity : 64;
		r->paths = tracked_realloc(r->elf->path, r->paths, r->path_capacity,
					   sizeof(*r->paths));
	}
	if (p->file_count == p->file_capacity) {
		p->file_capacity = p->file_capacity ? 2 * p->file_capacity : 16;
		p->files = tracked_realloc(r->elf->path, p->files, p->file_capacity,
					   sizeof(*p->files));
	}
	p->files[p->file_count++] = r->path_count;
	r->paths[r->path_count++] = path;
}

/* DWARF 2-4: the include directories, then the files (name, directory
 * index, time, length), each list ended by an empty name. */
static void read_v4_names(struct reader *r, struct program *p, struct dwarf_cursor *c)
{
	const unsigned char *list = c->p;
	struct dwarf_cursor count = *c;
	const char *dir;

	while ((dir = dwarf_read_string(&count)) && *dir != '\0')
		p->dir_count++;
	check(r, &count, list, "include directories not ended");
	p->dirs = tracked_alloc(r->elf->path, p->dir_count + 1, sizeof(*p->dirs));
	for (size_t i = 0; i < p->dir_count; i++)
		p->dirs[i] = dwarf_read_string(c);
	dwarf_read_fixed(c, 1);
	for (;;) {
		const unsigned char *entry = c->p;
		const char *name = dwarf_read_string(c);
		uint64_t dir;
		const char *path;

		check(r, c, entry, "file names not ended");
		if (*name == '\0')
			return;
		dir = dwarf_read_leb(c, false);
		dwarf_read_leb(c, false); /* modification time */
		dwarf_read_leb(c, false); /* length */
		check(r, c, entry, "file entry past the header");
		if (!(path = file_path(r, p, name, dir)))
			malformed(r, entry, "file's directory index out of range");
		add_file(r, p, path);
	}
}

/* DWARF 5: an entry format (content type, form pairs), then the entries;
 * each entry's path and directory index are kept. */
static void read_v5_entries(struct reader *r, struct program *p, struct dwarf_cursor *c,
			    bool directories)
{
	const unsigned char *at = c->p;
	unsigned format_count = (unsigned)dwarf_read_fixed(c, 1);
	struct dwarf_cursor format = *c;
	bool has_path = false;
	uint64_t count;

	for (unsigned i = 0; i < format_count; i++) {
		has_path |= dwarf_read_leb(c, false) == DW_LNCT_path;
		dwarf_read_leb(c, false);
	}
	count = dwarf_read_leb(c, false);
	check(r, c, at, "entry format past the header");
	/* Every entry has a path, of at least one byte: a count larger than
	 * the bytes left is a lie, and must not size an allocation. */
	if (count && !has_path)
		malformed(r, at, "entries without a path");
	if (count > (uint64_t)(c->end - c->p))
		malformed(r, at, "more entries than bytes");
	if (directories) {
		p->dirs = tracked_alloc(r->elf->path, count + 1, sizeof(*p->dirs));
		p->dir_count = count;
	}
	for (uint64_t n = 0; n < count; n++) {
		const unsigned char *entry = c->p;
		struct dwarf_cursor pairs = format;
		const char *name = NULL;
		uint64_t dir = 0;
		const char *path;

		for (unsigned i = 0; i < format_count; i++) {
			uint64_t content = dwarf_read_leb(&pairs, false);
			uint64_t form = dwarf_read_leb(&pairs, false);
			struct dwarf_value v;

			if (!dwarf_read_value(c, (unsigned)form, &p->sizes, &v) ||
			    form == DW_FORM_implicit_const || form == DW_FORM_indirect)
				malformed(r, entry, "unknown form in an entry");
			check(r, c, entry, "entry past the header");
			if (content == DW_LNCT_path && !(name = path_string(r, &v)))
				malformed(r, entry, "path is not a string");
			else if (content == DW_LNCT_directory_index)
				dir = v.number;
		}
		if (directories) {
			p->dirs[n] = name;
		} else {
			if (p->dir_count == 0)
				malformed(r, entry, "files without directories");
			if (!(path = file_path(r, p, name, dir)))
				malformed(r, entry,
					  "file's directory index out of range");
			add_file(r, p, path);
		}
	}
}

/* Reads the header at c, up to the program's first opcode. */
static void read_header(struct reader *r, struct program *p, struct dwarf_cursor *c)
{
	const unsigned char *at = c->p;
	uint64_t header_length;
	struct dwarf_cursor names;

	p->sizes.version = (unsigned)dwarf_read_fixed(c, 2);
	check(r, c, at, "truncated header");
	if (p->sizes.version < 2 || p->sizes.version > 5)
		malformed(r, at, "unknown version");
	if (p->sizes.version >= 5) {
		p->sizes.address_size = (unsigned)dwarf_read_fixed(c, 1);
		dwarf_read_fixed(c, 1); /* segment selector size */
	}
	header_length = dwarf_read_fixed(c, p->sizes.offset_size);
	check(r, c, at, "truncated header");
	if (header_length > (uint64_t)(c->end - c->p))
		malformed(r, at, "header longer than its unit");
	names = (struct dwarf_cursor){c->p, c->p + header_length, false};
	c->p += header_length;
	p->min_instruction_length = (unsigned)dwarf_read_fixed(&names, 1);
	if (p->sizes.version >= 4) {
		at = names.p;
		if ((p->max_ops = (unsigned)dwarf_read_fixed(&names, 1)) == 0 &&
		    !names.bad)
			malformed(r, at, "zero operations per instruction");
	} else {
		p->max_ops = 1;
	}
	p->default_is_stmt = dwarf_read_fixed(&names, 1) != 0;
	p->line_base = (int)(int8_t)dwarf_read_fixed(&names, 1);
	at = names.p;
	if ((p->line_range = (unsigned)dwarf_read_fixed(&names, 1)) == 0 && !names.bad)
		malformed(r, at, "line range 0");
	at = names.p;
	if ((p->opcode_base = (unsigned)dwarf_read_fixed(&names, 1)) == 0 && !names.bad)
		malformed(r, at, "opcode base 0");
	p->opcode_lengths = names.p;
	dwarf_skip(&names, p->opcode_base - 1);
	check(r, &names, at, "truncated header");
	if (p->sizes.version >= 5) {
		read_v5_entries(r, p, &names, true);
		read_v5_entries(r, p, &names, false);
	} else {
		read_v4_names(r, p, &names);
	}
	p->first_file = p->sizes.version >= 5 ? 0 : 1;
}

static void add_row(struct reader *r, const struct program *p, struct state *s, bool end,
		    const unsigned char *at)
{
	struct line_row row = {s->address, 0, s->line, end};
	bool same_address = s->last_address == s->address;
	bool skip = false;

	s->discriminator = 0;
	if (!same_address)
		s->stmt_at_address = false;
	s->last_address = s->address;
	if (!end) {
		if (s->file < p->first_file || s->file - p->first_file >= p->file_count)
			malformed(r, at, "row of a file the header does not list");
		row.file = (uint32_t)p->files[s->file - p->first_file];
	}
	if (!end && r->choice == LINE_CHOICE_GDB) {
		/* GDB 13 (dwarf2/read.c, lnp_state_machine::record_line) keeps
		 * no row of line 0, where the line before goes on, nor one that
		 * changes file where a statement row already is; nor, without
		 * forgetting it, one that repeats the last on a line with
		 * discriminators. */
		bool file_changed =
		    !s->last_path || strcmp(s->last_path, r->paths[row.file]);

		skip = s->line == 0 || (file_changed && same_address &&
					s->stmt_at_address && !s->is_stmt);
		s->stmt_at_address |= s->is_stmt;
		if (skip)
			return;
		skip =
		    !file_changed && s->last_line == s->line && s->line_had_discriminator;
		s->last_path = r->paths[row.file];
		s->last_line = s->line;
		if (skip)
			return;
	}
	s->stmt_at_address |= s->is_stmt;
	if (r->row_count == r->row_capacity) {
		r->row_capacity = r->row_capacity ? 2 * r->row_capacity : 1024;
		r->rows = tracked_realloc(r->elf->path, r->rows, r->row_capacity,
					  sizeof(*r->rows));
	}
	r->rows[r->row_count] = (struct raw_row){row, r->row_count, s->is_stmt};
	r->row_count++;
}

/* Ends the sequence whose end row was just added: of rows at one address,
 * one covers the code (line_choice); rows at the end address cover none. */
static void end_sequence(struct reader *r)
{
	struct raw_row *rows = r->rows + r->sequence_start;
	size_t count = r->row_count - r->sequence_start;
	uint64_t end = rows[count - 1].row.addr;
	size_t kept = 0;

	for (size_t i = 0; i + 1 < count;) {
		size_t last = i, chosen;

		while (last + 2 < count && rows[last + 1].row.addr == rows[i].row.addr)
			last++;
		chosen = last;
		if (r->choice == LINE_CHOICE_GDB && !rows[last].is_stmt)
			for (size_t j = last; j-- > i;)
				if (rows[j].is_stmt) {
					chosen = j;
					break;
				}
		if (rows[i].row.addr != end)
			rows[kept++] = rows[chosen];
		i = last + 1;
	}
	rows[kept++] = rows[count - 1];
	r->row_count = r->sequence_start + kept;
	r->sequence_start = r->row_count;
}

/* The address and op_index after `advance` operations (DWARF 5, 6.2.5.1). */
static void advance(const struct program *p, struct state *s, uint64_t operations)
{
	uint64_t total = s->op_index + operations;

	s->address += p->min_instruction_length * (total / p->max_ops);
	s->op_index = total % p->max_ops;
}

/* The line register moves; GDB then forgets the old line's discriminators. */
static void advance_line(struct state *s, int64_t delta)
{
	s->line += (uint32_t)delta;
	if (delta != 0)
		s->line_had_discriminator = s->discriminator != 0;
}

/* An extended opcode (after its 0 byte), at c. */
static void run_extended(struct reader *r, struct program *p, struct state *s,
			 struct dwarf_cursor *c, const unsigned char *at)
{
	uint64_t length = dwarf_read_leb(c, false);
	struct dwarf_cursor operands;
	unsigned opcode;

	check(r, c, at, "truncated extended opcode");
	if (length == 0 || length > (uint64_t)(c->end - c->p))
		malformed(r, at, "extended opcode's length out of its unit");
	operands = (struct dwarf_cursor){c->p, c->p + length, false};
	c->p += length;
	opcode = (unsigned)dwarf_read_fixed(&operands, 1);
	switch (opcode) {
	case DW_LNE_end_sequence:
		add_row(r, p, s, true, at);
		end_sequence(r);
		*s = (struct state){0,	  0, 1, 1,    p->default_is_stmt, 0, false,
				    NULL, 0, 0, false};
		break;
	case DW_LNE_set_address:
		if (length - 1 == 0 || length - 1 > 8)
			malformed(r, at, "address of an impossible size");
		s->address = dwarf_read_fixed(&operands, (unsigned)(length - 1));
		s->op_index = 0;
		break;
	case DW_LNE_define_file: {
		const char *name = dwarf_read_string(&operands);
		uint64_t dir = dwarf_read_leb(&operands, false);
		const char *path;

		check(r, &operands, at, "truncated DW_LNE_define_file");
		if (p->sizes.version >= 5)
			malformed(r, at, "DW_LNE_define_file in DWARF 5");
		if (!(path = file_path(r, p, name, dir)))
			malformed(r, at, "file's directory index out of range");
		add_file(r, p, path);
		break;
	}
	case DW_LNE_set_discriminator:
		s->discriminator = dwarf_read_leb(&operands, false);
		s->line_had_discriminator |= s->discriminator != 0;
		break;
	default: /* vendor opcodes: nothing kept */
		break;
	}
	check(r, &operands, at, "extended opcode longer than its length");
}

/* The program from c to its unit's end. */
static void run_program(struct reader *r, struct program *p, struct dwarf_cursor *c)
{
	struct state s = {0, 0, 1, 1, p->default_is_stmt, 0, false, NULL, 0, 0, false};

	while (c->p < c->end) {
		const unsigned char *at = c->p;
		unsigned opcode = (unsigned)dwarf_read_fixed(c, 1);

		if (opcode >= p->opcode_base) {
			unsigned adjusted = opcode - p->opcode_base;

			advance(p, &s, adjusted / p->line_range);
			advance_line(&s, p->line_base + (int)(adjusted % p->line_range));
			add_row(r, p, &s, false, at);
			continue;
		}
		switch (opcode) {
		case 0:
			run_extended(r, p, &s, c, at);
			break;
		case DW_LNS_copy:
			add_row(r, p, &s, false, at);
			break;
		case DW_LNS_advance_pc:
			advance(p, &s, dwarf_read_leb(c, false));
			break;
		case DW_LNS_advance_line:
			advance_line(&s, (int64_t)dwarf_read_leb(c, true));
			break;
		case DW_LNS_set_file:
			s.file = dwarf_read_leb(c, false);
			break;
		case DW_LNS_const_add_pc:
			advance(p, &s, (255 - p->opcode_base) / p->line_range);
			break;
		case DW_LNS_fixed_advance_pc:
			s.address += dwarf_read_fixed(c, 2);
			s.op_index = 0;
			break;
		case DW_LNS_set_column:
		case DW_LNS_set_isa:
			dwarf_read_leb(c, false);
			break;
		case DW_LNS_negate_stmt:
			s.is_stmt = !s.is_stmt;
			break;
		case DW_LNS_set_basic_block:
		case DW_LNS_set_prologue_end:
		case DW_LNS_set_epilogue_begin:
			break;
		default: /* a standard opcode this reader does not know */
			for (unsigned i = 0; i < p->opcode_lengths[opcode - 1]; i++)
				dwarf_read_leb(c, false);
		}
		check(r, c, at, "opcode past the end of its unit");
	}
	if (r->sequence_start != r->row_count)
		malformed(r, c->end, "rows after the last DW_LNE_end_sequence");
}

/* One unit's header, at c, into p; c moves past the unit, *unit covers its
 * program. */
static void read_unit_header(struct reader *r, struct program *p, struct dwarf_cursor *c,
			     struct dwarf_cursor *unit)
{
	const unsigned char *at = c->p;
	uint64_t length;

	memset(p, 0, sizeof(*p));
	p->sizes.offset_size = 4;
	p->sizes.address_size = 8;
	length = dwarf_read_fixed(c, 4);
	if (length == 0xffffffff) {
		p->sizes.offset_size = 8;
		length = dwarf_read_fixed(c, 8);
	}
	check(r, c, at, "truncated unit length");
	if (length > (uint64_t)(c->end - c->p))
		malformed(r, at, "unit longer than .debug_line");
	*unit = (struct dwarf_cursor){c->p, c->p + length, false};
	c->p += length;
	read_header(r, p, unit);
}

/* One unit, at c; c moves past it. */
static void read_unit(struct reader *r, struct dwarf_cursor *c)
{
	struct program p;
	struct dwarf_cursor unit;

	read_unit_header(r, &p, c, &unit);
	run_program(r, &p, &unit);
	tracked_free(p.dirs);
	tracked_free(p.files);
}

/* A cursor at the program a unit names at `offset`. */
static struct dwarf_cursor program_at(const struct reader *r, uint64_t offset)
{
	if (offset >= r->line.size)
		die(r->elf->path,
		    "malformed .debug_info: DW_AT_stmt_list 0x%llx past .debug_line",
		    (unsigned long long)offset);
	return (struct dwarf_cursor){r->line.data + offset, r->line.data + r->line.size,
				     false};
}

static int compare_offsets(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

static int compare_rows(const void *a, const void *b)
{
	const struct raw_row *x = a, *y = b;

	if (x->row.addr != y->row.addr)
		return x->row.addr < y->row.addr ? -1 : 1;
	/* One sequence's end before another's start at the same address. */
	if (x->row.end != y->row.end)
		return x->row.end ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The paths whose indices the qsort below sorts (qsort has no context). */
static const char **sort_paths;

static int compare_path_indices(const void *a, const void *b)
{
	const size_t *x = a, *y = b;
	int order = strcmp(sort_paths[*x], sort_paths[*y]);

	return order ? order : (*x > *y) - (*x < *y);
}

/* Files once each: table->files sorted by name, rows renumbered. */
static void unique_files(struct reader *r, struct line_table *table)
{
	size_t *by_name =
	    tracked_alloc(r->elf->path, r->path_count + 1, sizeof(*by_name));
	uint32_t *number =
	    tracked_alloc(r->elf->path, r->path_count + 1, sizeof(*number));

	for (size_t i = 0; i < r->path_count; i++)
		by_name[i] = i;
	sort_paths = r->paths;
	qsort(by_name, r->path_count, sizeof(*by_name), compare_path_indices);
	table->files =
	    tracked_alloc(r->elf->path, r->path_count + 1, sizeof(*table->files));
	for (size_t i = 0; i < r->path_count; i++) {
		const char *path = r->paths[by_name[i]];

		if (table->file_count == 0 ||
		    strcmp(table->files[table->file_count - 1], path) != 0)
			table->files[table->file_count++] = path;
		number[by_name[i]] = (uint32_t)(table->file_count - 1);
	}
	for (size_t i = 0; i < table->row_count; i++)
		if (!table->rows[i].end)
			table->rows[i].file = number[table->rows[i].file];
	tracked_free(by_name);
	tracked_free(number);
}

static void start_reader(struct reader *r, const struct elf_file *elf,
			 enum line_choice choice)
{
	memset(r, 0, sizeof(*r));
	r->elf = elf;
	r->choice = choice;
	r->line = dwarf_section_inflated(elf, ".debug_line");
	r->line_str = dwarf_section_inflated(elf, ".debug_line_str");
	r->str = dwarf_section_inflated(elf, ".debug_str");
}

void dwarf_lines_read(const struct elf_file *elf, enum line_choice choice,
		      struct line_table *table)
{
	struct reader r;
	struct dwarf_cursor c;
	uint64_t *programs;
	size_t program_count = 0;

	memset(table, 0, sizeof(*table));
	start_reader(&r, elf, choice);
	programs = dwarf_line_programs(elf, dwarf_section_inflated, &program_count);
	if (!programs) {
		table->problem = ".debug_info holds something symgen does not know";
		return;
	}
	/* Only the programs of units, as addr2line and GDB read them: an
	 * assembler may leave one that no unit names (clang 14's, of a .S). */
	qsort(programs, program_count, sizeof(*programs), compare_offsets);
	for (size_t i = 0; i < program_count; i++) {
		if (i > 0 && programs[i] == programs[i - 1])
			continue;
		c = program_at(&r, programs[i]);
		read_unit(&r, &c);
	}
	tracked_free(programs);
	if (r.row_count > 1)
		qsort(r.rows, r.row_count, sizeof(*r.rows), compare_rows);
	table->rows = tracked_alloc(elf->path, r.row_count + 1, sizeof(*table->rows));
	/* One row per address: the last, which is a start if a sequence
	 * starts where another ends. */
	for (size_t i = 0; i < r.row_count; i++) {
		if (i + 1 < r.row_count && r.rows[i + 1].row.addr == r.rows[i].row.addr)
			continue;
		table->rows[table->row_count++] = r.rows[i].row;
	}
	unique_files(&r, table);
	tracked_free(r.rows);
	tracked_free(r.paths);
}

void dwarf_line_files(const struct elf_file *elf, const uint64_t *offsets, size_t count,
		      struct line_files *files)
{
	struct reader r;

	start_reader(&r, elf, LINE_CHOICE_ADDR2LINE);
	for (size_t i = 0; i < count; i++) {
		struct dwarf_cursor c = program_at(&r, offsets[i]), unit;
		struct program p;

		read_unit_header(&r, &p, &c, &unit);
		files[i].names =
		    tracked_alloc(elf->path, p.file_count + 1, sizeof(*files[i].names));
		for (size_t n = 0; n < p.file_count; n++)
			files[i].names[n] = r.paths[p.files[n]];
		files[i].count = p.file_count;
		files[i].first = (unsigned)p.first_file;
		tracked_free(p.dirs);
		tracked_free(p.files);
	}
	tracked_free(r.paths);
}

const struct line_row *dwarf_line_at(const struct line_table *table, uint64_t addr)
{
	size_t low = 0, high = table->row_count;

	/* The last row at or below addr. */
	while (low < high) {
		size_t mid = low + (high - low) / 2;

		if (table->rows[mid].addr <= addr)
			low = mid + 1;
		else
			high = mid;
	}
	if (low == 0 || table->rows[low - 1].end)
		return NULL;
	return &table->rows[low - 1];
}

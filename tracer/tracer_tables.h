/*
 * tracer_tables.h - the tables symgen embeds in the image (the symbol table,
 * the FDE index, the unwind table, the line table), their checks and their
 * lookups. A port
 * needs none of it to print a trace (tracer.h, tracer_embedded.h); it is
 * for symgen's output, for commands that look functions up by name or
 * address, and for checking the tables ahead of time.
 */
#ifndef TRACER_TABLES_H
#define TRACER_TABLES_H

#include "line_format.h"
#include "table_format.h"
#include "tracer.h"

/* One function of the symbol table that symgen embeds into the image. */
struct tracer_symbol {
	uintptr_t addr; /* first instruction */
	uint32_t size;	/* bytes of code */
	uint32_t name;	/* offset of the NUL-terminated name in names[] */
};

/*
 * The embedded table: symbols sorted by addr, one entry per address, each
 * ending at or before the next one's start; names[] holds each name inside
 * one hash block where it fits in one. The header lets a walk reject a
 * table that memory corruption damaged (magic, version and checksum: see
 * table_format.h).
 */
struct tracer_symtab {
	uint32_t magic;	     /* TRACER_SYMTAB_MAGIC */
	uint16_t version;    /* TRACER_TABLE_VERSION */
	uint16_t word_size;  /* sizeof(uintptr_t) of the image */
	uint32_t count;	     /* entries of symbols[] */
	uint32_t names_size; /* bytes of names[]: a multiple of 4, the last one NUL */
	uint32_t checksum;   /* tracer_header_hash() of count and names_size */
	const struct tracer_symbol *symbols;
	const char *names;
	/* A hash per block of symbols[], then per block of names[]
	 * (table_hash.h), checked as a walk reads them. */
	const uint32_t *hashes;
};

/*
 * The FDE index symgen embeds (symgen --cfi): for each FDE of .eh_frame, the
 * first address it covers and where it is, sorted by pc_start, so that the
 * DWARF unwinder finds a function's CFI by binary search instead of scanning
 * .eh_frame (the GNU linker makes no .eh_frame_hdr for RISC-V).
 */
struct tracer_fde_entry {
	uintptr_t pc_start; /* the FDE's initial location */
	uintptr_t fde;	    /* address of the FDE's length field, inside .eh_frame */
};

struct tracer_fde_index {
	uint32_t magic;	    /* TRACER_FDE_INDEX_MAGIC */
	uint16_t version;   /* TRACER_TABLE_VERSION */
	uint16_t word_size; /* sizeof(uintptr_t) of the image */
	uint32_t count;	    /* entries of entries[] */
	uint32_t checksum;  /* tracer_header_hash() of count, eh_frame, eh_frame_size */
	const struct tracer_fde_entry *entries;
	/* The .eh_frame the index points into, as symgen read it: a walk reads
	 * only the part of config->eh_frame that this covers. */
	uintptr_t eh_frame;
	uint32_t eh_frame_size;
	/* A hash per block of entries[], then per block of .eh_frame
	 * (table_hash.h), checked as a walk reads them. */
	const uint32_t *hashes;
};

/*
 * The unwind table symgen compiles from .eh_frame (symgen --cfi; the format:
 * docs/unwind-table-format.md, the rows and rules: table_format.h): for each
 * range of code, how to find the CFA (sp or s0 plus an offset), ra and s0,
 * or that the DWARF unwinder must interpret the range, or that no CFI
 * covers it. Rows are byte offsets into rules[]; per block of
 * 2^TRACER_UNWIND_BLOCK_SHIFT bytes from base, maps[i] marks where rows
 * start and lookup[i] counts the rows up to its end.
 */
struct tracer_unwind_table {
	uint32_t magic;	      /* TRACER_UNWIND_TABLE_MAGIC */
	uint16_t version;     /* TRACER_UNWIND_VERSION */
	uint16_t word_size;   /* sizeof(uintptr_t) of the image */
	uint32_t count;	      /* entries of rows[] */
	uint32_t block_count; /* entries of maps[] and lookup[] */
	uint32_t rule_count;  /* entries of rules[] */
	/* tracer_header_hash() of count, block_count, rule_count and base
	 * (64-bit, low word first, on rv32 too) */
	uint32_t checksum;
	uintptr_t base; /* the address of the first row */
	const uint16_t *rows;
	const uint64_t *maps;
	const uint16_t *lookup; /* at most TRACER_UNWIND_MAX_ROWS rows */
	const struct tracer_unwind_rule *rules;
	/* A hash per block of rows[], maps[], lookup[], then rules[]
	 * (table_hash.h), checked as a walk reads them. */
	const uint32_t *hashes;
};

/* Whether an embedded table can be used, as a walk found it. */
enum tracer_table_status {
	TRACER_TABLE_OK,
	TRACER_TABLE_ABSENT,	/* NULL in the config: not an error */
	TRACER_TABLE_OUTSIDE,	/* descriptor or arrays outside config->tables */
	TRACER_TABLE_MALFORMED, /* magic, version, word size, sizes, names or order wrong
				 */
	TRACER_TABLE_BAD_CHECKSUM /* contents changed since symgen wrote them */
};

/* Whether the table config names is usable: inside config->tables, with
 * the right magic, version, word size, sizes and checksum, every block's
 * hash and every entry as symgen writes them: the whole table, about 9
 * instructions per 8 bytes. Call it before the lookups below on a table
 * that memory corruption may have reached. These checks and the lookups
 * are linked with TRACER_LINKS_CAPTURE only (tracer_function_range(), in
 * tracer.h, checks what it reads itself); the symbol table's, and its
 * lookups, with TRACER_LINKS_SYMBOLS too. */
enum tracer_table_status tracer_symtab_check(const struct tracer_config *config);
enum tracer_table_status tracer_fde_index_check(const struct tracer_config *config);
enum tracer_table_status tracer_unwind_table_check(const struct tracer_config *config);
/* The line table: TRACER_TABLE_ABSENT, too, for one without rows (an image
 * built without -g). Linked with TRACER_LINKS_LINES only. */
enum tracer_table_status tracer_lines_check(const struct tracer_config *config);
/* .eh_frame, by the FDE index's hashes: TRACER_TABLE_ABSENT without a valid
 * index. */
enum tracer_table_status tracer_eh_frame_check(const struct tracer_config *config);

const char *tracer_table_status_text(enum tracer_table_status status);

/* Function containing addr, or NULL if addr is in a gap or outside the
 * table. The table must be one tracer_symtab_check() accepted. */
const struct tracer_symbol *tracer_symtab_lookup(const struct tracer_symtab *symtab,
						 uintptr_t addr);
/* Function named `name`, or NULL. Linear: for commands, not for unwinding. */
const struct tracer_symbol *tracer_symtab_find(const struct tracer_symtab *symtab,
					       const char *name);

static inline const char *tracer_symbol_name(const struct tracer_symtab *symtab,
					     const struct tracer_symbol *symbol)
{
	return symtab->names + symbol->name;
}

#endif /* TRACER_TABLES_H */

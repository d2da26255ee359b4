/*
 * fake_tables.h - headers for the tables the unit tests build by hand, as
 * symgen writes them (magic, version, word size, sizes, checksum), with the
 * hashes of their blocks (and of .eh_frame, for the FDE index).
 */
#ifndef TEST_FAKE_TABLES_H
#define TEST_FAKE_TABLES_H

#include <stdint.h>

#include "tracer_tables.h"

/* names: names_size bytes (a multiple of 4), 4-byte aligned, NUL-padded. */
void fake_symtab_fill(struct tracer_symtab *symtab, const struct tracer_symbol *symbols,
		      uint32_t count, const char *names, uint32_t names_size);
/* eh_frame: the .eh_frame the index covers (the config's), as it is now. */
void fake_fde_index_fill(struct tracer_fde_index *index,
			 const struct tracer_fde_entry *entries, uint32_t count,
			 struct tracer_range eh_frame);
/* base: the address of the first row; block_count entries of maps[] and
 * lookup[] (none read if count is 0). */
void fake_unwind_table_fill(struct tracer_unwind_table *table, uintptr_t base,
			    const uint16_t *rows, uint32_t count, const uint64_t *maps,
			    const uint16_t *lookup, uint32_t block_count,
			    const struct tracer_unwind_rule *rules, uint32_t rule_count);
/* The next fill writes its hashes to `storage` (enough for its blocks:
 * table_hash.h) instead of a pool of the library's: for tests that declare
 * exactly where their tables lie. */
void fake_hashes_at(uint32_t *storage);
/* Declares all memory as table memory: for tests of unwinding, whose tables
 * live wherever the test put them. */
void fake_tables_anywhere(struct tracer_config *config);

#endif /* TEST_FAKE_TABLES_H */

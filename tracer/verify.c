/*
 * verify.c - checking the embedded tables and .eh_frame as a walk reads
 * them: each block the first time (table_hash.h), and each entry's
 * structure where it is read, so that a walk's cost does not grow with the
 * tables and a crafted table whose hashes hold is still read safely.
 *
 * A walk remembers the blocks it has checked (struct tracer_walk): per
 * array kind the last range of blocks it read, and a cache of 16 sets of
 * two slots; a block evicted by another is checked again, which costs
 * time, never trust. A block that fails ends its table's use
 * for the rest of the walk (status TRACER_TABLE_BAD_CHECKSUM; an entry
 * that breaks the format, TRACER_TABLE_MALFORMED), and tracer_format_note
 * says so before the next frame line.
 *
 * A sorted table's search (the symbol table, the FDE index) is proved by
 * its answer alone: symgen wrote the keys sorted, so if the blocks of the
 * entry found and of the one after it hold, and their keys bracket the
 * address, the entry is the one a search of the intact table finds,
 * whatever the probes on the way read (a symbol that holds the address
 * needs no next one: walk_symbol_check). Keys that do not bracket it mean
 * a probe read a damaged block (or the table is not sorted): the whole
 * table is checked then, once, to say which.
 */
#include "table_lookup.h"
#include "verify.h"

#if TRACER_READS_TABLES
/* A word of a block: 8-byte aligned on rv64, one load; two on rv32. */
static inline uint64_t block_word(uintptr_t pos)
{
#if UINTPTR_MAX > 0xffffffffu && !defined(TRACER_HOST_VIEW)
	return *(const uint64_t *)pos;
#else
	return (uint64_t)target_u32(pos) | (uint64_t)target_u32(pos + 4) << 32;
#endif
}

/* Whether block `block` (< its count) of an array (struct hashed_array's
 * fields) hashes as symgen wrote. The array is word-aligned (the header
 * checks say so), and so is every block. Out of line: its callers' frames
 * stay small. The fields one by one: a struct passed by value is copied on
 * the caller's stack, with memcpy at rv32 -Os, which a kernel need not
 * have. */
static __attribute__((noinline)) bool block_intact(uint32_t kind, uintptr_t data,
						   uint32_t size, uintptr_t hashes,
						   uint32_t block)
{
	uint32_t start = block << TRACER_HASH_BLOCK_SHIFT;
	uint32_t bytes =
	    size - start < TRACER_HASH_BLOCK ? size - start : TRACER_HASH_BLOCK;
	uintptr_t pos = data + start;
	uintptr_t words_end = pos + (bytes & ~7u);
	uint64_t hash = tracer_hash_start(kind, block);

	for (; pos < words_end; pos += 8)
		hash = tracer_hash_word(hash, block_word(pos));
	if (bytes % 8 != 0) {
		/* In 32-bit halves: a variable 64-bit shift is a runtime
		 * routine on rv32 (__ashldi3), which a kernel need not have. */
		uint32_t low = 0, high = 0;

		for (unsigned i = 0; i < bytes % 8 && i < 4; i++)
			low |= (uint32_t)target_u8(pos + i) << (8 * i);
		for (unsigned i = 4; i < bytes % 8; i++)
			high |= (uint32_t)target_u8(pos + i) << (8 * (i - 4));
		hash = tracer_hash_word(hash, (uint64_t)high << 32 | low);
	}
	return tracer_hash_end(hash) == target_u32(hashes + 4 * (uintptr_t)block);
}

TRACER_COLD __attribute__((noinline)) bool
hashed_array_intact(const struct hashed_array *array)
{
	uint32_t blocks = tracer_hash_blocks(array->size);

	for (uint32_t block = 0; block < blocks; block++) {
		if (!block_intact(array->kind, array->data, array->size, array->hashes,
				  block))
			return false;
	}
	return true;
}

/* A block's id in the walk's cache: its array's kind above its index (an
 * array holds less than 2^32 bytes: below 2^26 blocks). */
static inline uint32_t block_id(uint32_t kind, uint32_t block)
{
	return kind << 26 | block;
}

/* The first of the two slots (a set) where the cache may hold a block. */
static inline unsigned cache_set(uint32_t id)
{
	return (id * 0x9e3779b1u) >> (32 - TRACER_VERIFIED_SHIFT) & ~1u;
}

static inline bool cache_holds(const struct walk *walk, unsigned slot, uint32_t id)
{
	return (walk->verified_valid >> slot & 1) && walk->verified[slot] == id;
}

/* Whether block `block` of the array of kind `kind` holds: checked unless
 * a set of two slots of the cache holds it; a block checked goes in the
 * first slot of its set, the one there to the second, so that two blocks
 * a frame reads never evict each other. */
static __attribute__((noinline)) bool
verify_block(struct walk *walk, enum tracer_hashed kind, uint32_t block)
{
	uint32_t id = block_id(kind, block);
	unsigned set = cache_set(id);
	uint32_t first_valid = walk->verified_valid >> set & 1;
	struct hashed_array array;

	if (cache_holds(walk, set, id) || cache_holds(walk, set + 1, id))
		return true;
	array = table_array(walk->config, kind);
	if (!block_intact(array.kind, array.data, array.size, array.hashes, block))
		return false;
	walk->verified[set + 1] = walk->verified[set];
	walk->verified[set] = id;
	walk->verified_valid = (walk->verified_valid & ~((uint32_t)3 << set)) |
			       first_valid << (set + 1) | (uint32_t)1 << set;
	return true;
}

/* Whether the blocks `first` to `last` of the array of kind `kind` hold;
 * they become the walk's last range of that kind. Out of line: a walk
 * mostly reads the last range of each kind again. */
static __attribute__((noinline)) bool
verify_blocks(struct walk *walk, enum tracer_hashed kind, uint32_t first, uint32_t last)
{
	for (uint32_t block = first; block <= last; block++) {
		if (!verify_block(walk, kind, block))
			return false;
	}
	walk->recent_first[kind] = first;
	walk->recent_last[kind] = last;
	walk->recent_valid |= (uint32_t)1 << kind;
	return true;
}

/* Whether the bytes [offset, offset + length) of the array of kind `kind`
 * (inside it, length > 0) lie in blocks that hold: each checked unless the
 * walk has (its last range of that kind, or the cache, holds it). */
static inline __attribute__((always_inline)) bool
walk_verify(struct walk *walk, enum tracer_hashed kind, uint32_t offset, uint32_t length)
{
	uint32_t first = offset >> TRACER_HASH_BLOCK_SHIFT;
	uint32_t last = (offset + (length - 1)) >> TRACER_HASH_BLOCK_SHIFT;

	return ((walk->recent_valid >> kind & 1) && first >= walk->recent_first[kind] &&
		last <= walk->recent_last[kind]) ||
	       verify_blocks(walk, kind, first, last);
}

/*
 * Whether `entry`, the i-th of the `count` sorted entries of `size` bytes
 * of the array of kind `kind` (a search's answer for key), lies in a block
 * that holds, and is the answer of the intact table: the one after it
 * checked too, and the two keys bracketing key, unless `holds_key` (the
 * entry covers key, in an array whose entries do not overlap).
 * TRACER_TABLE_OK if so; else BAD_CHECKSUM if a block of the array fails,
 * MALFORMED if none does (keys not sorted).
 */
static inline __attribute__((always_inline)) enum tracer_table_status
sorted_answer_status(struct walk *walk, enum tracer_hashed kind, const char *entry,
		     uint32_t i, uint32_t count, uint32_t size, uintptr_t key,
		     bool holds_key)
{
	bool has_next = i + 1 < count && !holds_key;
	struct hashed_array array;

	if (!walk_verify(walk, kind, i * size, has_next ? 2 * size : size))
		return TRACER_TABLE_BAD_CHECKSUM;
	/* The first entry stands for "none" when its key is above key. */
	if ((i == 0 || *(const uintptr_t *)entry <= key) &&
	    (!has_next || *(const uintptr_t *)(entry + size) > key))
		return TRACER_TABLE_OK;
	array = table_array(walk->config, kind);
	return hashed_array_intact(&array) ? TRACER_TABLE_MALFORMED
					   : TRACER_TABLE_BAD_CHECKSUM;
}

#if TRACER_LINKS_SYMBOLS
/* Ends the use of the symbol table for the rest of the walk: no symbol. */
static const struct tracer_symbol *reject_symtab(struct walk *walk,
						 enum tracer_table_status status)
{
	walk->symtab_status = status;
	walk->symtab_searchable = false;
	return NULL;
}

/* Whether names[offset...] up to its NUL lies in blocks that hold. symgen
 * writes the names in the symbols' order: the next symbol's name starts
 * just past this one's NUL, and the bytes up to it are the name; else (the
 * last symbol, or a table laid out otherwise) the name is scanned for its
 * NUL. The header checks made the last byte of names[] NUL: the scan ends
 * inside. */
static inline __attribute__((always_inline)) bool
name_intact(struct walk *walk, const struct tracer_symtab *symtab, uint32_t offset,
	    uint32_t next_offset)
{
	const char *names = symtab->names;
	uint32_t end = offset;

	if (next_offset > offset && next_offset <= symtab->names_size &&
	    names[next_offset - 1] == '\0')
		return walk_verify(walk, TRACER_HASHED_NAMES, offset,
				   next_offset - offset);
	while (names[end] != '\0')
		end++;
	return walk_verify(walk, TRACER_HASHED_NAMES, offset, end - offset + 1);
}

/*
 * An entry that holds addr is the intact table's answer by itself: symgen
 * writes entries that do not overlap (symgen/functions.h, and
 * tracer_symtab_check() rejects a table whose entries do), so the next one
 * starts above addr. Only an answer that does not hold addr needs the next
 * entry to bracket it. So a symbolized frame checks one block of
 * symbols[], and, symgen keeping each name inside a block, one of names[].
 */
const struct tracer_symbol *
walk_symbol_check(struct walk *walk, const struct tracer_symbol *symbol, uintptr_t addr)
{
	const struct tracer_symtab *symtab = walk->config->symtab;
	uint32_t i = (uint32_t)(symbol - symtab->symbols);
	/* Read before its block is checked: it only says how much is. */
	const struct tracer_symbol *holding = symbol_holding(symbol, addr);
	enum tracer_table_status status =
	    sorted_answer_status(walk, TRACER_HASHED_SYMBOLS, (const char *)symbol, i,
				 symtab->count, sizeof(*symbol), addr, holding != NULL);

	if (status != TRACER_TABLE_OK)
		return reject_symtab(walk, status);
	if (!holding)
		return NULL;
	if (symbol->name >= symtab->names_size)
		return reject_symtab(walk, TRACER_TABLE_MALFORMED);
	/* The next entry's name offset, unchecked, only bounds the bytes
	 * checked: they end at a NUL, so the name lies inside them. */
	if (!name_intact(walk, symtab, symbol->name,
			 i + 1 < symtab->count ? symbol[1].name : 0))
		return reject_symtab(walk, TRACER_TABLE_BAD_CHECKSUM);
	return holding;
}
#endif

/* What the DWARF unwinder reads: the FDE index and .eh_frame. */
#if TRACER_LINKS_DWARF
static bool reject_fde_index(struct walk *walk, enum tracer_table_status status)
{
	walk->fde_index_status = status;
	walk->fde_searchable = false;
	return false;
}

static bool reject_eh_frame(struct walk *walk, enum tracer_table_status status)
{
	walk->eh_frame_status = status;
	return false;
}

/* Whether the .eh_frame entry at addr lies, from its length field to its
 * end, in blocks that hold. The hashed bytes are config->eh_frame (the
 * header checks say so): what lies outside them, or past them, the parser
 * rejects itself; the bytes it reads first are checked. The length is
 * read before its block is checked: a damaged one changes the bytes
 * checked, never the first block, which holds it. */
static inline __attribute__((always_inline)) bool
eh_frame_entry_intact(struct walk *walk, const struct tracer_fde_index *index,
		      uintptr_t addr)
{
	uint32_t offset = (uint32_t)(addr - index->eh_frame);
	uint32_t room = index->eh_frame_size - offset;
	uint32_t length;

	if (addr < index->eh_frame || addr - index->eh_frame >= index->eh_frame_size)
		return true;
	if (room < 4)
		return walk_verify(walk, TRACER_HASHED_EH_FRAME, offset, room);
	length = memory_u32_unaligned(addr);
	if (length > room - 4)
		length = room - 4;
	return walk_verify(walk, TRACER_HASHED_EH_FRAME, offset, 4 + length);
}

/* The FDE at fde and its CIE, where its (intact) CIE pointer says:
 * counted back from the pointer's own field; not the walk's cached CIE,
 * which was checked before dwarf_step() read it. Another pointer: the
 * parser says what is wrong. */
static inline __attribute__((always_inline)) bool eh_frame_fde_intact(struct walk *walk,
								      uintptr_t fde)
{
	const struct tracer_fde_index *index = walk->config->fde_index;
	uintptr_t cie_pointer;

	if (!eh_frame_entry_intact(walk, index, fde))
		return false;
	if (fde < index->eh_frame || fde - index->eh_frame >= index->eh_frame_size ||
	    index->eh_frame_size - (fde - index->eh_frame) < 8)
		return true;
	cie_pointer = memory_u32_unaligned(fde + 4);
	if (cie_pointer == 0 || cie_pointer > fde + 4 - index->eh_frame ||
	    fde + 4 - cie_pointer == walk->cie.address)
		return true;
	return eh_frame_entry_intact(walk, index, fde + 4 - cie_pointer);
}

bool walk_dwarf_check(struct walk *walk)
{
	const struct tracer_fde_index *index = walk->config->fde_index;
	/* The pc dwarf_step() looks up: a return address's call. */
	uintptr_t pc = walk->next_is_exact ? walk->next.pc : walk->next.pc - 1;
	const struct tracer_fde_entry *entry;
	enum tracer_table_status status;

	if (walk->eh_frame_status != TRACER_TABLE_OK &&
	    walk->eh_frame_status != TRACER_TABLE_ABSENT) {
		walk->stop = TRACER_STOP_BAD_EH_FRAME;
		return false;
	}
	/* dwarf_step() says what stops it without an index. */
	if (walk_tables_verified(walk) || !walk->fde_searchable)
		return true;
	entry = sorted_search_from(index->entries, walk->fde_first_probe,
				   walk->fde_levels, sizeof(struct tracer_fde_entry), pc);
	status = sorted_answer_status(
	    walk, TRACER_HASHED_FDE_ENTRIES, (const char *)entry,
	    (uint32_t)(entry - index->entries), index->count, sizeof(*entry), pc, false);
	if (status != TRACER_TABLE_OK) {
		reject_fde_index(walk, status);
		walk->stop = TRACER_STOP_BAD_FDE_INDEX;
		return false;
	}
	if (pc >= entry->pc_start && !eh_frame_fde_intact(walk, entry->fde)) {
		reject_eh_frame(walk, TRACER_TABLE_BAD_CHECKSUM);
		walk->stop = TRACER_STOP_BAD_EH_FRAME;
		return false;
	}
	return true;
}
#endif

/* What the unwind table's readers read (the table unwinder, and the
 * frame-size witness of the others). */
#if TRACER_LINKS_TABLE
static bool reject_unwind_table(struct walk *walk, enum tracer_table_status status)
{
	walk->unwind_table_status = status;
	return false;
}

/*
 * The rule in effect just below `end` bytes past the table's base (even, in
 * one of its blocks), read from blocks that hold, the entries on the way
 * checked as tracer_unwind_table_check checks the whole table: the row
 * inside rows[], a rule's offset in rules[], the rule valid. NULL, the
 * table rejected, if not.
 */
const struct tracer_unwind_rule *walk_unwind_rule(struct walk *walk, uintptr_t end)
{
	const struct tracer_unwind_table *table = walk->config->unwind_table;
	uint32_t block = (uint32_t)(end >> TRACER_UNWIND_BLOCK_SHIFT);
	uintptr_t below;
	uint16_t row;
	const struct tracer_unwind_rule *rule;

	if (!walk_verify(walk, TRACER_HASHED_UNWIND_MAPS, block * 8, 8) ||
	    !walk_verify(walk, TRACER_HASHED_UNWIND_LOOKUP, block * 2, 2)) {
		reject_unwind_table(walk, TRACER_TABLE_BAD_CHECKSUM);
		return NULL;
	}
	below = unwind_table_rows_below(table->maps, table->lookup, end);
	if (below == 0 || below > table->count) {
		reject_unwind_table(walk, TRACER_TABLE_MALFORMED);
		return NULL;
	}
	if (!walk_verify(walk, TRACER_HASHED_UNWIND_ROWS, (uint32_t)(below - 1) * 2, 2)) {
		reject_unwind_table(walk, TRACER_TABLE_BAD_CHECKSUM);
		return NULL;
	}
	row = table->rows[below - 1];
	if (row % sizeof(struct tracer_unwind_rule) != 0 ||
	    row / sizeof(struct tracer_unwind_rule) >= table->rule_count) {
		reject_unwind_table(walk, TRACER_TABLE_MALFORMED);
		return NULL;
	}
	if (!walk_verify(walk, TRACER_HASHED_UNWIND_RULES, row,
			 sizeof(struct tracer_unwind_rule))) {
		reject_unwind_table(walk, TRACER_TABLE_BAD_CHECKSUM);
		return NULL;
	}
	rule = unwind_table_rule_of(table->rules, row);
	if (!tracer_unwind_rule_valid(rule, TARGET_WORD_SIZE)) {
		reject_unwind_table(walk, TRACER_TABLE_MALFORMED);
		return NULL;
	}
	return rule;
}

#endif
#endif /* TRACER_READS_TABLES */

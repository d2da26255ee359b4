/*
 * table_check.c - the proof that the unwind table is exact (tests/
 * table_proof.py): at every instruction boundary of an image's code, the
 * row the table gives, found as the table unwinder finds it
 * (unwind_table_rule), against the row the tracer's interpreter computes
 * from .eh_frame (cfi_row_at).
 *
 *     table_check ELF
 *
 * The table is symgen's for the image (unwind_table_build), validated as a
 * walk validates it. Inside an FDE, a row equals the interpreter's if it
 * decodes to the same CFA (register and offset), ra rule and s0 rule; an
 * "interpret" row counts as equal only if the interpreter's row is not
 * expressible in the format, which this file decides on its own from
 * docs/unwind-table-format.md. In a function no FDE covers, the row must be
 * no-CFI. Prints one line per difference, a line per frame size an
 * s0-based row of an FDE states (for table_proof.py to check against the
 * function's epilogues, read from objdump),
 *
 *     size 0xSTART 0xEND BYTES
 *
 * then
 *
 *     table_check: N boundaries (F in FDEs, G outside), E equal (I interpreted), D differ
 *
 * and exits 1 if any differ.
 */
#include "cfi.h"
#include "riscv.h"
#include "table_lookup.h"
#include "functions.h"
#include "image_view.h"
#include "unwind_table.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

struct counts {
	size_t in_fdes;
	size_t outside;
	size_t interpreted;
	size_t differ;
};

/* What a register column holds in the interpreter's row, as the format
 * would say it: 0 kept, 1 saved at CFA + offset, 2 undefined, -1 none of
 * these. */
static int column(const struct cfi_row *row, unsigned number, int64_t *offset)
{
	struct cfi_rule rule = cfi_row_rule(row, number);

	*offset = 0;
	if (rule.kind == 0 || rule.kind == CFI_RULE_SAME_VALUE)
		return 0;
	if (rule.kind == CFI_RULE_UNDEFINED)
		return 2;
	if (rule.kind != CFI_RULE_OFFSET)
		return -1;
	*offset = rule.value;
	return 1;
}

/* Whether a saved register's offset from the CFA fits the format: a
 * 16-bit field, below the CFA, at a multiple of the word size. */
static bool slot_fits(int64_t offset, int64_t word)
{
	return offset >= INT16_MIN && offset < 0 && offset % word == 0;
}

/* Whether the format can express the row (docs/unwind-table-format.md, "interpret"). */
static bool expressible(const struct cfi_fde *fde, enum cfi_status status,
			const struct cfi_row *row, int64_t word)
{
	int64_t ra_offset, s0_offset;
	int ra, s0;

	if (status != CFI_OK || fde->cie.is_signal_frame || fde->cie.ra_column != 1 ||
	    row->cfa_kind != CFI_CFA_REGISTER_OFFSET ||
	    (row->cfa_register != 2 && row->cfa_register != 8) ||
	    cfi_row_rule(row, 2).kind != 0 || row->cfa_offset < INT16_MIN ||
	    row->cfa_offset > INT16_MAX)
		return false;
	ra = column(row, 1, &ra_offset);
	s0 = column(row, 8, &s0_offset);
	if (ra < 0 || s0 < 0 || s0 == 2 || (ra == 1 && !slot_fits(ra_offset, word)) ||
	    (s0 == 1 && !slot_fits(s0_offset, word)))
		return false;
	/* sp-based: the CFA on the word grid, the slots between sp and it. */
	return row->cfa_register == 8 ||
	       (row->cfa_offset % word == 0 && -ra_offset <= row->cfa_offset &&
		-s0_offset <= row->cfa_offset);
}

/* Whether the table's rule says what the interpreter's row says (kind:
 * bit 0 CFA on s0, bit 1 s0 unchanged, bits 2-3 ra 0 saved, 4 in its
 * register, 8 undefined; 16 no CFI, 17 interpret). */
static bool same_row(const struct tracer_unwind_rule *rule, const struct cfi_fde *fde,
		     enum cfi_status status, const struct cfi_row *row, int64_t word,
		     struct counts *counts)
{
	int64_t ra_offset, s0_offset;
	int ra, s0;

	if (rule->kind == 17) {
		counts->interpreted++;
		return !expressible(fde, status, row, word);
	}
	if (rule->kind == 16 || !expressible(fde, status, row, word))
		return false;
	ra = column(row, 1, &ra_offset);
	s0 = column(row, 8, &s0_offset);
	return row->cfa_register == (rule->kind & 1 ? 8 : 2) &&
	       row->cfa_offset == rule->cfa_offset &&
	       (rule->kind >> 2) == (ra == 1   ? 0u
				     : ra == 0 ? 1u
					       : 2u) &&
	       ra_offset == rule->ra_offset && s0 == !(rule->kind & 2) &&
	       s0_offset == rule->s0_offset;
}

static const struct tracer_unwind_rule *
table_rule(const struct tracer_unwind_table *table, uint64_t pc)
{
	return unwind_table_rule(table, (uintptr_t)pc);
}

/* The rule as printed: {cfa_offset, ra_offset, s0_offset, kind}. */
static void print_rule(const struct tracer_unwind_rule *rule)
{
	printf("{%d, %d, %d, %u}", rule->cfa_offset, rule->ra_offset, rule->s0_offset,
	       (unsigned)rule->kind);
}

/* The next instruction boundary: 2 or 4 bytes on (2 past a longer
 * encoding, which RISC-V code here does not use). */
static uint64_t next_boundary(uint64_t pc)
{
	unsigned length = riscv_instruction_length(target_u16((uintptr_t)pc));

	return pc + (length ? length : 2);
}

static void check_fde(const struct tracer_config *config,
		      const struct tracer_unwind_table *table,
		      const struct fde_entry *entry, int64_t word, struct counts *counts)
{
	struct cfi_fde fde;
	struct cfi_row row;

	if (cfi_parse_fde(config, (uintptr_t)entry->fde, &fde) != CFI_OK) {
		printf("FDE at .eh_frame+0x%" PRIx64 ": does not parse\n", entry->offset);
		counts->differ++;
		return;
	}
	unsigned stated = 0;

	for (uint64_t pc = entry->pc_start; pc < entry->pc_end; pc = next_boundary(pc)) {
		enum cfi_status status = cfi_row_at(config, &fde, (uintptr_t)pc, &row);
		const struct tracer_unwind_rule *rule = table_rule(table, pc);

		/* The frame sizes symgen measured (s0-based rows), for the
		 * oracle of tests/table_proof.py: each once per FDE. */
		if (rule->kind < TRACER_UNWIND_NO_CFI &&
		    rule->kind & TRACER_UNWIND_CFA_ON_S0 && rule->frame_size_16 != 0 &&
		    rule->frame_size_16 != stated) {
			stated = rule->frame_size_16;
			printf("size 0x%" PRIx64 " 0x%" PRIx64 " %u\n", entry->pc_start,
			       entry->pc_end, stated * TRACER_UNWIND_FRAME_UNIT);
		}
		counts->in_fdes++;
		if (!same_row(rule, &fde, status, &row, word, counts)) {
			printf("0x%" PRIx64 ": table rule ", pc);
			print_rule(rule);
			printf(", interpreter: status %d cfa r%u%+" PRId32 "\n",
			       (int)status, (unsigned)row.cfa_register, row.cfa_offset);
			counts->differ++;
		}
	}
}

/* The FDE covering pc, or NULL. */
static const struct fde_entry *fde_at(const struct fde_entry *fdes, size_t count,
				      uint64_t pc)
{
	for (size_t i = 0; i < count; i++)
		if (pc >= fdes[i].pc_start && pc < fdes[i].pc_end)
			return &fdes[i];
	return NULL;
}

static void check_functions_without_cfi(const struct elf_file *elf,
					const struct tracer_unwind_table *table,
					const struct fde_entry *fdes, size_t fde_count,
					struct tracer_range text, struct counts *counts)
{
	size_t count;
	struct function *functions = functions_read(elf, &count);

	for (size_t i = 0; i < count; i++) {
		uint64_t end = functions[i].addr + functions[i].size;

		if (functions[i].addr < text.start || end > text.end)
			continue;
		for (uint64_t pc = functions[i].addr; pc < end; pc = next_boundary(pc)) {
			if (fde_at(fdes, fde_count, pc))
				continue;
			counts->outside++;
			if (table_rule(table, pc)->kind != 16) {
				printf("0x%" PRIx64 " (%s, no FDE): table rule ", pc,
				       functions[i].name);
				print_rule(table_rule(table, pc));
				printf("\n");
				counts->differ++;
			}
		}
	}
}

/* Hashes of the blocks of rows, maps, lookup and rules, as symgen writes
 * them (table_hash.h): of a table of up to 65,535 rows and 2,048 rules,
 * and 2^19 blocks (the 64 MiB of code symgen allows), with room. */
#define MAX_HASHES (65535 * 2 / 64 + 2048 * 8 / 64 + (1u << 20) * 10 / 64 + 8)

static uint32_t *hash_array(uint32_t *hashes, enum tracer_hashed kind, const void *data,
			    size_t size)
{
	for (uint32_t block = 0; block < tracer_hash_blocks(size); block++)
		hashes[block] = tracer_hash_bytes(kind, block, data, size);
	return hashes + tracer_hash_blocks(size);
}

static const uint32_t *hash_arrays(const struct unwind_table *built, uint32_t *hashes)
{
	uint32_t *next =
	    hash_array(hashes, TRACER_HASHED_UNWIND_ROWS, built->rows, built->count * 2);

	next = hash_array(next, TRACER_HASHED_UNWIND_MAPS, built->maps,
			  built->block_count * 8);
	next = hash_array(next, TRACER_HASHED_UNWIND_LOOKUP, built->lookup,
			  built->block_count * 2);
	hash_array(next, TRACER_HASHED_UNWIND_RULES, built->rules,
		   built->rule_count * sizeof(struct tracer_unwind_rule));
	return hashes;
}

int main(int argc, char **argv)
{
	struct elf_file elf;
	struct fde_entry *fdes;
	size_t fde_count;
	struct unwind_table built;
	struct tracer_unwind_table table;
	struct tracer_config config = {.tables = {0, UINTPTR_MAX}};
	struct image_view view;
	struct counts counts = {0};
	static uint32_t hashes[MAX_HASHES];
	uint32_t header[5];
	uintptr_t bias;
	enum tracer_table_status status;

	if (argc != 2) {
		fprintf(stderr, "usage: table_check ELF\n");
		return 2;
	}
	die_program = "table_check";
	elf_open(&elf, argv[1]);
	fdes = fde_index_read(&elf, &fde_count);
	built = unwind_table_build(&elf, fdes, fde_count);
	/* The descriptor symgen would write, with its arrays' hashes, checked
	 * as tracer_prepare() checks it: in this program's memory, no bias. */
	table = (struct tracer_unwind_table){TRACER_UNWIND_TABLE_MAGIC,
					     TRACER_UNWIND_VERSION,
					     sizeof(uintptr_t),
					     (uint32_t)built.count,
					     (uint32_t)built.block_count,
					     (uint32_t)built.rule_count,
					     0,
					     (uintptr_t)built.base,
					     built.rows,
					     built.maps,
					     built.lookup,
					     built.rules,
					     hash_arrays(&built, hashes)};
	header[0] = table.count;
	header[1] = table.block_count;
	header[2] = table.rule_count;
	header[3] = (uint32_t)built.base;
	header[4] = (uint32_t)(built.base >> 32);
	table.checksum = tracer_header_hash(TRACER_HASHED_UNWIND_HEADER, header, 5);
	config.unwind_table = &table;
	bias = tracer_host_bias;
	tracer_host_bias = 0;
	status = tracer_unwind_table_check(&config);
	tracer_host_bias = bias;
	if (status != TRACER_TABLE_OK) {
		printf("table_check: the table fails validation\n");
		return 1;
	}
	/* The interpreter reads code and .eh_frame through the view. */
	view = image_view(&elf, IMAGE_VIEW_CODE | IMAGE_VIEW_EH_FRAME);
	config.text = view.text;
	config.eh_frame = view.eh_frame;
	for (size_t i = 0; i < fde_count; i++)
		check_fde(&config, &table, &fdes[i], elf.is64 ? 8 : 4, &counts);
	check_functions_without_cfi(&elf, &table, fdes, fde_count, view.text, &counts);
	printf("table_check: %zu boundaries (%zu in FDEs, %zu outside), %zu equal "
	       "(%zu interpreted), %zu differ\n",
	       counts.in_fdes + counts.outside, counts.in_fdes, counts.outside,
	       counts.in_fdes + counts.outside - counts.differ, counts.interpreted,
	       counts.differ);
	return counts.differ ? 1 : 0;
}

/*
 * cfi_rows.c - prints rows of the tracer's CFI rule table, for the
 * differential test against binutils' readelf (tests/cfi_differential.py).
 *
 *     cfi_rows ELF < queries
 *
 * Each query line is "FDE_OFFSET PC" (hex; the offset of the FDE's length
 * field from the start of .eh_frame). Each answer line is, for a good query,
 *
 *     fde=START..END cf=1 df=-4 ra=1 cfa=r2+16 r1=c-8 r8=c-16
 *
 * the FDE's pc range, its CIE's factors and return-address column (as
 * readelf prints a CIE), then the row at PC: the CFA and one rule per column
 * that has one, in readelf's notation but with DWARF register numbers
 * (rN); the script maps numbers to readelf's register names. A refusal of
 * the tracer ends the line with error=WORD (not-found, malformed,
 * unsupported, unreadable); a PC outside the FDE gives error=outside, and a
 * row whose other columns (not restored by the walk) did not all fit
 * error=other-columns-lost.
 *
 * The tracer reads .eh_frame at the image's addresses through its host view
 * (image_view.c), so that the pc-relative pointers in it mean what
 * they mean in the image.
 */
#include "cfi.h"
#include "elf.h"
#include "image_view.h"

#include <inttypes.h>
#include <stdio.h>

static struct tracer_config config_for(const struct elf_file *elf)
{
	struct image_view view = image_view(elf, IMAGE_VIEW_EH_FRAME);

	return (struct tracer_config){.text = view.text, .eh_frame = view.eh_frame};
}

static const char *status_word(enum cfi_status status)
{
	switch (status) {
	case CFI_OK:
		return "ok";
	case CFI_NOT_FOUND:
		return "not-found";
	case CFI_MALFORMED:
		return "malformed";
	case CFI_UNSUPPORTED:
		return "unsupported";
	case CFI_UNREADABLE:
		return "unreadable";
	}
	return "unknown-status";
}

static void print_cfa(const struct cfi_row *row)
{
	switch (row->cfa_kind) {
	case CFI_CFA_REGISTER_OFFSET:
		printf(" cfa=r%u%+" PRId32, (unsigned)row->cfa_register, row->cfa_offset);
		break;
	case CFI_CFA_EXPRESSION:
		printf(" cfa=exp");
		break;
	case 0:
		printf(" cfa=undefined");
		break;
	default:
		printf(" cfa=kind%u", (unsigned)row->cfa_kind);
	}
}

/* readelf's notation for a register rule (binutils dwarf.c,
 * frame_display_row), with a register number for DW_CFA_register. */
static void print_rule(const struct cfi_rule *rule)
{
	printf(" r%u=", (unsigned)rule->column);
	switch (rule->kind) {
	case CFI_RULE_UNDEFINED:
		printf("u");
		break;
	case CFI_RULE_SAME_VALUE:
		printf("s");
		break;
	case CFI_RULE_OFFSET:
		printf("c%+" PRId32, rule->value);
		break;
	case CFI_RULE_VAL_OFFSET:
		printf("v%+" PRId32, rule->value);
		break;
	case CFI_RULE_REGISTER:
		printf("r%" PRId32, rule->value);
		break;
	case CFI_RULE_EXPRESSION:
		printf("exp");
		break;
	case CFI_RULE_VAL_EXPRESSION:
		printf("vexp");
		break;
	default:
		printf("kind%u", (unsigned)rule->kind);
	}
}

static void print_rule_of(struct cfi_rule rule)
{
	print_rule(&rule);
}

static void answer(const struct tracer_config *config, uintptr_t fde_offset, uintptr_t pc)
{
	struct cfi_fde fde;
	struct cfi_row row;
	enum cfi_status status;

	status = cfi_parse_fde(config, config->eh_frame.start + fde_offset, &fde);
	if (status != CFI_OK) {
		printf("error=%s\n", status_word(status));
		return;
	}
	printf("fde=%" PRIxPTR "..%" PRIxPTR " cf=%" PRIuPTR " df=%" PRIdPTR
	       " ra=%" PRIuPTR,
	       fde.pc_start, fde.pc_end, fde.cie.code_align, fde.cie.data_align,
	       fde.cie.ra_column);
	if (pc < fde.pc_start || pc >= fde.pc_end) {
		printf(" error=outside\n");
		return;
	}
	status = cfi_row_at(config, &fde, pc, &row);
	if (status != CFI_OK) {
		printf(" error=%s\n", status_word(status));
		return;
	}
	if (row.others_lost) {
		printf(" error=other-columns-lost\n");
		return;
	}
	print_cfa(&row);
	/* The walk's columns through the same lookup as the others. */
	for (unsigned column = 0; column < 32; column++)
		if (cfi_column_slot(&row, column) != CFI_SLOTS &&
		    cfi_row_rule(&row, column).kind != 0)
			print_rule_of(cfi_row_rule(&row, column));
	if (row.return_column >= 32 && cfi_row_rule(&row, row.return_column).kind != 0)
		print_rule_of(cfi_row_rule(&row, row.return_column));
	for (unsigned i = 0; i < row.other_count; i++)
		print_rule(&row.others[i]);
	printf("\n");
}

int main(int argc, char **argv)
{
	struct elf_file elf;
	struct tracer_config config;
	char line[256];

	if (argc != 2) {
		fprintf(stderr,
			"usage: cfi_rows ELF < queries (\"FDE_OFFSET PC\" in hex)\n");
		return 2;
	}
	die_program = "cfi_rows";
	elf_open(&elf, argv[1]);
	config = config_for(&elf);
	while (fgets(line, sizeof line, stdin)) {
		uintptr_t fde_offset, pc;

		if (sscanf(line, "%" SCNxPTR " %" SCNxPTR, &fde_offset, &pc) != 2)
			die("stdin", "bad query: %s", line);
		answer(&config, fde_offset, pc);
	}
	elf_close(&elf);
	return 0;
}

/*
 * prologue_check - the prologue decoder (tracer/prologue_decode.c) against
 * an image's own CFI: a build-time cross-check of the prologue unwinder.
 *
 *     prologue_check KERNEL.elf
 *     prologue_check --no-cfi --functions FILE IMAGE.elf
 *
 * The first form takes the functions of the symbol table as symgen does
 * (functions.c) and, for each one an FDE covers, compares the frame the
 * decoder describes with the CFI row at two kinds of points:
 *
 *   prologue-end    the function's first call, else where decoding from its
 *                   start stops (a jump; its last instruction if nothing
 *                   ends the decoding; the first instruction of the
 *                   epilogue if a jump after one does): the decoder's frame
 *                   at that address against the row there;
 *   return-address  after every call: the decoder's frame at the return
 *                   address against the row at the return address - 1, the
 *                   one an unwinder uses for a caller's frame.
 *
 * They agree when the CFA is the same (sp + N, or s0 + N where the CFI has a
 * frame pointer; a stack of the function's own where the CFI's return
 * address is undefined), the return address is in the same slot or still in
 * ra, and s0 is where the CFI saved it. A refusal of the decoder agrees only
 * with a row that a prologue_frame cannot express either. Each disagreement
 * is one line,
 *
 *     disagree FUNCTION 0xADDRESS POINT: decoder VIEW; cfi VIEW
 *
 * in readelf's notation (cfa=sp+16 ra=c-8 s0=u), then a summary line.
 *
 * The second form is for images without CFI: FILE lists functions, one
 * "START END NAME" (hex addresses) a line, and each gets one line with the
 * decoder's frame where its decoding from the start stops (see prologue.h),
 *
 *     frame NAME 0xSTART stop=0xSTOP cfa=sp+16 ra=c-8 s0=u
 *     refused NAME 0xSTART: unknown instruction 0x00000000 at 0xADDRESS
 *
 * for an oracle of the caller's own (tests/prologue_crosscheck.py).
 *
 * Disagreements are data: the exit status is 0 whenever the check ran, 1
 * with one line on stderr for input it cannot use, 2 for bad usage.
 */
#include "cfi.h"
#include "fde_index.h"
#include "elf.h"
#include "functions.h"
#include "image_view.h"
#include "prologue.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One side of a line, "cfa=sp+16,s0+0 ra=c-8 s0=c-16": room for every
 * number at its longest. */
#define VIEW_MAX 128

struct checker {
	struct tracer_config config;
	struct tracer_fde_index fde_index;
	unsigned xlen;
	size_t with_cfi;
	size_t agreeing; /* functions that agree at every point */
	size_t without_cfi;
	size_t points;
	size_t disagreeing_points;
};

/* The instruction at `at`, if it lies whole in [at, end) and in the
 * image's text: false at the end, and at the longer encodings the decoder
 * does not handle. */
static bool read_instruction(const struct tracer_config *config, uintptr_t at,
			     uintptr_t end, uint32_t *insn, unsigned *length)
{
	if (end > config->text.end)
		end = config->text.end;
	if (at % 2 != 0 || at < config->text.start || at >= end || end - at < 2)
		return false;
	*insn = target_u16(at);
	*length = riscv_instruction_length((uint16_t)*insn);
	if (*length == 0 || end - at < *length)
		return false;
	if (*length == 4)
		*insn |= (uint32_t)target_u16(at + 2) << 16;
	return true;
}

static enum prologue_status analyze(const struct checker *c, const struct function *f,
				    uintptr_t pc, struct prologue_analysis *analysis)
{
	return prologue_analyze(&c->config, (uintptr_t)f->addr,
				(uintptr_t)(f->addr + f->size), pc, c->xlen, analysis);
}

/* Why the decoder refused the code before `pc`: the first instruction whose
 * decoding fails, found by decoding one instruction further each time. */
static void refusal_text(const struct checker *c, const struct function *f, uintptr_t pc,
			 enum prologue_status status, char *text)
{
	struct prologue_analysis analysis;
	uint32_t insn = 0;
	unsigned length = 2;
	uintptr_t at = (uintptr_t)f->addr;

	if (status == PROLOGUE_UNREADABLE) {
		snprintf(text, VIEW_MAX, "unreadable code");
		return;
	}
	while (read_instruction(&c->config, at, pc, &insn, &length) &&
	       analyze(c, f, at + length, &analysis) == PROLOGUE_OK)
		at += length;
	snprintf(text, VIEW_MAX, "unknown instruction 0x%0*" PRIx32 " at 0x%" PRIxPTR,
		 length == 4 ? 8 : 4, insn, at);
}

static void frame_text(const struct prologue_frame *frame, char *text)
{
	int n;

	if (frame->sp_state == PROLOGUE_SP_RELATIVE)
		n = snprintf(text, VIEW_MAX, "cfa=sp%+" PRIdPTR "%s", -frame->sp_offset,
			     frame->fp_valid ? "," : "");
	else
		n = snprintf(text, VIEW_MAX, "cfa=%s",
			     frame->sp_state == PROLOGUE_SP_ORIGIN ? "origin" : "lost");
	if (frame->fp_valid)
		n += snprintf(text + n, VIEW_MAX - n, "%ss0%+" PRIdPTR,
			      frame->sp_state == PROLOGUE_SP_RELATIVE ? "" : ",",
			      -frame->fp_offset);
	n += frame->ra_saved
		 ? snprintf(text + n, VIEW_MAX - n, " ra=c%+" PRIdPTR, frame->ra_offset)
		 : snprintf(text + n, VIEW_MAX - n, " ra=u");
	if (frame->s0_saved)
		snprintf(text + n, VIEW_MAX - n, " s0=c%+" PRIdPTR, frame->s0_offset);
	else
		snprintf(text + n, VIEW_MAX - n, " s0=u");
}

static const char *register_name(unsigned column)
{
	static char name[16];

	if (column == DWARF_REG_RA)
		return "ra";
	if (column == DWARF_REG_SP)
		return "sp";
	if (column == DWARF_REG_S0)
		return "s0";
	snprintf(name, sizeof name, "r%u", column);
	return name;
}

/* readelf's notation for a rule; "u" also for no rule, as readelf prints a
 * column no rule has been given yet. */
static int rule_text(struct cfi_rule rule, char *text, size_t size)
{
	switch (rule.kind) {
	case 0:
	case CFI_RULE_UNDEFINED:
		return snprintf(text, size, "u");
	case CFI_RULE_SAME_VALUE:
		return snprintf(text, size, "s");
	case CFI_RULE_OFFSET:
		return snprintf(text, size, "c%+" PRId32, rule.value);
	case CFI_RULE_VAL_OFFSET:
		return snprintf(text, size, "v%+" PRId32, rule.value);
	case CFI_RULE_REGISTER:
		return snprintf(text, size, "%s", register_name((unsigned)rule.value));
	case CFI_RULE_EXPRESSION:
		return snprintf(text, size, "exp");
	default:
		return snprintf(text, size, "vexp");
	}
}

static void row_text(const struct cfi_fde *fde, const struct cfi_row *row, char *text)
{
	int n = row->cfa_kind == CFI_CFA_REGISTER_OFFSET
		    ? snprintf(text, VIEW_MAX, "cfa=%s%+" PRId32,
			       register_name(row->cfa_register), row->cfa_offset)
		    : snprintf(text, VIEW_MAX, "cfa=%s", row->cfa_kind ? "exp" : "u");

	n += snprintf(text + n, VIEW_MAX - n, " ra=");
	n += rule_text(cfi_row_rule(row, DWARF_REG_RA), text + n, VIEW_MAX - n);
	n += snprintf(text + n, VIEW_MAX - n, " s0=");
	n += rule_text(cfi_row_rule(row, DWARF_REG_S0), text + n, VIEW_MAX - n);
	if (fde->cie.ra_column != DWARF_REG_RA)
		snprintf(text + n, VIEW_MAX - n, " return=%s",
			 register_name((unsigned)fde->cie.ra_column));
}

static const char *cfi_status_text(enum cfi_status status)
{
	switch (status) {
	case CFI_NOT_FOUND:
		return "no FDE";
	case CFI_MALFORMED:
		return "error=malformed";
	case CFI_UNSUPPORTED:
		return "error=unsupported";
	default:
		return "error=unreadable";
	}
}

/* A rule a prologue_frame can state for ra or s0: a slot, or none. */
static bool rule_expressible(struct cfi_rule rule)
{
	return rule.kind == 0 || rule.kind == CFI_RULE_UNDEFINED ||
	       rule.kind == CFI_RULE_SAME_VALUE || rule.kind == CFI_RULE_OFFSET;
}

/* Whether the row says what a prologue_frame can: a CFA at sp or s0 plus an
 * offset, the return address in ra or a slot, s0 in a slot or unchanged. */
static bool row_expressible(const struct cfi_fde *fde, const struct cfi_row *row)
{
	return row->cfa_kind == CFI_CFA_REGISTER_OFFSET &&
	       (row->cfa_register == DWARF_REG_SP || row->cfa_register == DWARF_REG_S0) &&
	       fde->cie.ra_column == DWARF_REG_RA &&
	       rule_expressible(cfi_row_rule(row, DWARF_REG_RA)) &&
	       rule_expressible(cfi_row_rule(row, DWARF_REG_S0));
}

/* ra as the decoder and the CFI see it: saved at CFA + offset, or not
 * saved (in the register, or undefined). */
static bool ra_agrees(const struct prologue_frame *frame, struct cfi_rule rule)
{
	if (rule.kind == CFI_RULE_OFFSET)
		return frame->ra_saved && frame->ra_offset == rule.value;
	return !frame->ra_saved;
}

/* s0 where the CFI saved it must be where the decoder did: else the
 * unwinder would give the callee's s0 to the caller. A store the CFI does
 * not call a save may be one to the decoder (inline assembly storing s0 for
 * a register dump, before s0 changed): that slot holds the caller's s0 too. */
static bool s0_agrees(const struct prologue_frame *frame, struct cfi_rule rule)
{
	if (rule.kind == CFI_RULE_OFFSET)
		return frame->s0_saved && frame->s0_offset == rule.value;
	return true;
}

/* The CFA as the CFI computes it: from sp, or from s0 as a frame pointer.
 * A function that set up its own stack (la sp) is the outermost frame, as
 * an undefined return address says in CFI: then the CFA does not matter. */
static bool cfa_agrees(const struct prologue_frame *frame, const struct cfi_row *row)
{
	if (frame->sp_state == PROLOGUE_SP_ORIGIN)
		return cfi_row_rule(row, DWARF_REG_RA).kind == CFI_RULE_UNDEFINED;
	if (row->cfa_register == DWARF_REG_SP)
		return frame->sp_state == PROLOGUE_SP_RELATIVE &&
		       -frame->sp_offset == row->cfa_offset;
	return frame->fp_valid && -frame->fp_offset == row->cfa_offset;
}

static bool frames_agree(const struct prologue_frame *frame, const struct cfi_row *row)
{
	return cfa_agrees(frame, row) &&
	       ra_agrees(frame, cfi_row_rule(row, DWARF_REG_RA)) &&
	       s0_agrees(frame, cfi_row_rule(row, DWARF_REG_S0));
}

/* The CFI row at pc, from the FDE that covers it. */
static enum cfi_status row_at(const struct checker *c, uintptr_t pc, struct cfi_fde *fde,
			      struct cfi_row *row)
{
	enum cfi_status status = cfi_find_fde(&c->config, pc, NULL, fde);

	return status == CFI_OK ? cfi_row_at(&c->config, fde, pc, row) : status;
}

/* One point: the decoder's frame at `pc` against the CFI row at `row_pc`.
 * Prints the disagreement, if any. */
static bool check_point(struct checker *c, const struct function *f, const char *point,
			uintptr_t pc, uintptr_t row_pc)
{
	struct prologue_analysis analysis;
	enum prologue_status decoded = analyze(c, f, pc, &analysis);
	struct cfi_fde fde;
	struct cfi_row row;
	enum cfi_status cfi = row_at(c, row_pc, &fde, &row);
	char decoder_view[VIEW_MAX];
	char cfi_view[VIEW_MAX];
	bool agree;

	if (cfi != CFI_OK)
		agree = false;
	else if (decoded != PROLOGUE_OK)
		agree = !row_expressible(&fde, &row);
	else
		agree =
		    row_expressible(&fde, &row) && frames_agree(&analysis.frame, &row);
	c->points++;
	if (agree)
		return true;
	c->disagreeing_points++;
	if (decoded == PROLOGUE_OK)
		frame_text(&analysis.frame, decoder_view);
	else
		refusal_text(c, f, pc, decoded, decoder_view);
	if (cfi == CFI_OK)
		row_text(&fde, &row, cfi_view);
	else
		snprintf(cfi_view, VIEW_MAX, "%s", cfi_status_text(cfi));
	printf("disagree %s 0x%" PRIxPTR " %s: decoder %s; cfi %s\n", f->name, pc, point,
	       decoder_view, cfi_view);
	return false;
}

static bool frames_equal(const struct prologue_frame *a, const struct prologue_frame *b)
{
	return a->sp_state == b->sp_state &&
	       (a->sp_state != PROLOGUE_SP_RELATIVE || a->sp_offset == b->sp_offset) &&
	       a->fp_valid == b->fp_valid &&
	       (!a->fp_valid || a->fp_offset == b->fp_offset) &&
	       a->ra_saved == b->ra_saved &&
	       (!a->ra_saved || a->ra_offset == b->ra_offset) &&
	       a->s0_saved == b->s0_saved &&
	       (!a->s0_saved || a->s0_offset == b->s0_offset);
}

/* The last instruction before `stop` at which the decoder's frame is
 * `body`: the first of the epilogue that ended decoding. */
static uintptr_t epilogue_start(const struct checker *c, const struct function *f,
				uintptr_t stop, const struct prologue_frame *body)
{
	struct prologue_analysis analysis;
	uintptr_t found = stop;
	uint32_t insn;
	unsigned length;

	for (uintptr_t at = (uintptr_t)f->addr;
	     read_instruction(&c->config, at, stop, &insn, &length); at += length) {
		if (analyze(c, f, at, &analysis) == PROLOGUE_OK &&
		    frames_equal(&analysis.frame, body))
			found = at;
	}
	return found;
}

/*
 * The end of the prologue: the first call; else where decoding from the
 * start stops (a jump), or the last instruction (`last`) if nothing stops it. A
 * jump that follows an epilogue (a leaf's ret) is no end of the prologue:
 * the decoder describes the body's frame there, which holds up to the first
 * instruction of the epilogue; that is the point then.
 */
static uintptr_t prologue_end(const struct checker *c, const struct function *f,
			      uintptr_t last)
{
	struct prologue_analysis at_end;
	struct prologue_analysis at_stop;
	uintptr_t end = (uintptr_t)(f->addr + f->size);

	if (analyze(c, f, end, &at_end) != PROLOGUE_OK)
		return last;
	if (at_end.first_call != 0)
		return at_end.first_call;
	if (at_end.stop >= end)
		return last;
	if (analyze(c, f, at_end.stop, &at_stop) == PROLOGUE_OK &&
	    frames_equal(&at_stop.frame, &at_end.frame))
		return at_end.stop;
	return epilogue_start(c, f, at_end.stop, &at_end.frame);
}

static void check_function(struct checker *c, const struct function *f)
{
	uintptr_t start = (uintptr_t)f->addr;
	uintptr_t end = (uintptr_t)(f->addr + f->size);
	uintptr_t last = start;
	uint32_t insn;
	unsigned length;
	uintptr_t stop;
	bool agree = true;
	struct cfi_fde fde;

	if (cfi_find_fde(&c->config, start, NULL, &fde) == CFI_NOT_FOUND) {
		c->without_cfi++;
		return;
	}
	c->with_cfi++;
	for (uintptr_t at = start; read_instruction(&c->config, at, end, &insn, &length);
	     at += length) {
		last = at;
		if (riscv_is_call(insn, length, c->xlen))
			agree &= check_point(c, f, "return-address", at + length,
					     at + length - 1);
	}
	stop = prologue_end(c, f, last);
	agree &= check_point(c, f, "prologue-end", stop, stop);
	c->agreeing += agree;
}

/* The image's FDE index, as symgen would embed it; dies without .eh_frame.
 * Before image_view(): it reads .eh_frame where the file holds it. */
static struct tracer_fde_index fde_index_of(const struct elf_file *elf)
{
	size_t count;
	struct fde_entry *fdes = fde_index_read(elf, &count);
	struct tracer_fde_entry *entries = calloc(count, sizeof(*entries));

	if (!entries)
		die(elf->path, "out of memory");
	for (size_t i = 0; i < count; i++)
		entries[i] = (struct tracer_fde_entry){(uintptr_t)fdes[i].pc_start,
						       (uintptr_t)fdes[i].fde};
	tracked_free(fdes);
	return (struct tracer_fde_index){.entries = entries, .count = (uint32_t)count};
}

static void check_image(const struct elf_file *elf)
{
	struct checker c = {.xlen = elf->is64 ? 8 : 4, .fde_index = fde_index_of(elf)};
	size_t count;
	struct function *functions = functions_read(elf, &count);
	struct image_view view;

	if (count == 0)
		die(elf->path, "no function symbols");
	view = image_view(elf, IMAGE_VIEW_CODE | IMAGE_VIEW_EH_FRAME);
	c.config = (struct tracer_config){
	    .text = view.text, .eh_frame = view.eh_frame, .fde_index = &c.fde_index};
	for (size_t i = 0; i < count; i++)
		check_function(&c, &functions[i]);
	printf("prologue_check: %zu functions with CFI, %zu agree at every point "
	       "(%zu points checked, %zu disagree), %zu without CFI\n",
	       c.with_cfi, c.agreeing, c.points, c.disagreeing_points, c.without_cfi);
	free((void *)c.fde_index.entries);
	tracked_free(functions);
	tracked_free(view.bytes);
}

/* One "START END NAME" line of a --functions file. */
static struct function parse_function_line(const char *path, const char *line,
					   size_t line_number, struct tracer_range text)
{
	uint64_t start, end;
	char name[256];
	struct function f;

	if (sscanf(line, "%" SCNx64 " %" SCNx64 " %255s", &start, &end, name) != 3)
		die(path, "line %zu: expected \"START END NAME\", addresses in hex",
		    line_number);
	if (start > end || start < text.start || end > text.end)
		die(path, "line %zu: 0x%" PRIx64 "..0x%" PRIx64 " is not code",
		    line_number, start, end);
	f = (struct function){.name = strdup(name), .addr = start, .size = end - start};
	if (!f.name)
		die(path, "out of memory");
	return f;
}

/* The functions a --functions file lists, all read before any is decoded:
 * a bad line leaves no output. */
static struct function *read_function_list(const char *path, struct tracer_range text,
					   size_t *count)
{
	FILE *file = fopen(path, "r");
	struct function *functions = NULL;
	size_t capacity = 0;
	char line[512];

	if (!file)
		die(path, "cannot open: %s", strerror(errno));
	for (*count = 0; fgets(line, sizeof line, file); (*count)++) {
		if (*count == capacity) {
			capacity = capacity ? 2 * capacity : 256;
			functions = realloc(functions, capacity * sizeof(*functions));
			if (!functions)
				die(path, "out of memory");
		}
		functions[*count] = parse_function_line(path, line, *count + 1, text);
	}
	fclose(file);
	return functions;
}

static void print_decoded_frame(const struct checker *c, const struct function *f)
{
	struct prologue_analysis analysis;
	enum prologue_status status =
	    analyze(c, f, (uintptr_t)(f->addr + f->size), &analysis);
	char view[VIEW_MAX];

	if (status == PROLOGUE_OK) {
		frame_text(&analysis.frame, view);
		printf("frame %s 0x%" PRIx64 " stop=0x%" PRIxPTR " %s\n", f->name,
		       f->addr, analysis.stop, view);
	} else {
		refusal_text(c, f, (uintptr_t)(f->addr + f->size), status, view);
		printf("refused %s 0x%" PRIx64 ": %s\n", f->name, f->addr, view);
	}
}

static void decode_listed(const struct elf_file *elf, const char *list)
{
	struct checker c = {.xlen = elf->is64 ? 8 : 4};
	struct image_view view = image_view(elf, IMAGE_VIEW_CODE);
	size_t count;
	struct function *functions = read_function_list(list, view.text, &count);

	c.config = (struct tracer_config){.text = view.text};
	for (size_t i = 0; i < count; i++) {
		print_decoded_frame(&c, &functions[i]);
		free((char *)functions[i].name);
	}
	free(functions);
	tracked_free(view.bytes);
}

static _Noreturn void usage(void)
{
	fprintf(stderr,
		"usage: prologue_check KERNEL.elf\n"
		"       prologue_check --no-cfi --functions FILE IMAGE.elf\n"
		"  the first compares the prologue decoder with the image's CFI;\n"
		"  the second prints the decoder's frame for each \"START END NAME\"\n"
		"  line of FILE (hex addresses)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *input = NULL;
	const char *list = NULL;
	bool no_cfi = false;
	struct elf_file elf;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--no-cfi") == 0)
			no_cfi = true;
		else if (strcmp(argv[i], "--functions") == 0 && i + 1 < argc)
			list = argv[++i];
		else if (argv[i][0] != '-' && !input)
			input = argv[i];
		else
			usage();
	}
	if (!input || no_cfi != (list != NULL))
		usage();
	die_program = "prologue_check";
	elf_open(&elf, input);
	if (no_cfi)
		decode_listed(&elf, list);
	else
		check_image(&elf);
	elf_close(&elf);
	return 0;
}

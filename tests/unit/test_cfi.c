/*
 * test_cfi.c - the DWARF unwinder's parser, rule-table machine and
 * expression evaluator (tracer/cfi.h) on hand-assembled .eh_frame bytes.
 *
 * Expected values are derived by hand, in the comments, from DWARF 5
 * section 6.4 (call frame information), section 7.24 (DW_CFA values),
 * section 7.7 (DW_OP values), section 7.6 (LEB128) and the LSB's .eh_frame
 * chapter (CIE/FDE layout, augmentation letters, DW_EH_PE_* encodings).
 * One test uses bytes GCC emitted; its oracle is binutils' readelf decoding.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfi.h"
#include "dwarf_codes.h"
#include "fake_cfi.h"
#include "fake_stack.h"
#include "fake_tables.h"
#include "harness.h"

/* The FDE most tests describe covers [TEST_PC, TEST_PC + TEST_RANGE). */
#define TEST_PC	   ((uintptr_t)0x80201000)
#define TEST_RANGE ((uintptr_t)0x2000)

/* One CIE and one FDE under test; the fake stack supplies the config's
 * text and the stack DW_OP_deref reads. */
struct cfi_case {
	struct fake_stack stack;
	struct fake_cfi cfi;
	size_t cie;
	size_t fde;
	struct cfi_fde parsed;
};

/*
 * Opens the CIE most tests use (LSB: length, CIE id 0, version, augmentation
 * string, code alignment ULEB, data alignment SLEB, return-address register,
 * augmentation length ULEB, augmentation data):
 *   03           version 3 (return-address register as ULEB128)
 *   'z' 'R' 00   augmentation data present; it holds the FDE encoding
 *   code_align   ULEB
 *   7c           data alignment SLEB -4 (GCC's value on RISC-V)
 *   01           return address in column 1 (ra)
 *   01 04        1 byte of augmentation data: R = DW_EH_PE_udata8, so FDE
 *                addresses are plain 8-byte numbers
 * Its initial instructions follow.
 */
static void begin_cie(struct cfi_case *c, unsigned code_align)
{
	fake_stack_init(&c->stack);
	fake_cfi_init(&c->cfi);
	c->cie = fake_cfi_begin_cie(&c->cfi);
	FAKE_CFI(&c->cfi, 3, 'z', 'R', 0);
	fake_cfi_uleb(&c->cfi, code_align);
	FAKE_CFI(&c->cfi, 0x7c, REG_RA, 1, DW_EH_PE_udata8);
}

/* Ends the CIE and opens an FDE: pc_begin TEST_PC and range TEST_RANGE as
 * udata8, augmentation length 0. Its instructions follow. */
static void begin_fde(struct cfi_case *c)
{
	fake_cfi_end(&c->cfi);
	c->fde = fake_cfi_begin_fde(&c->cfi, c->cie);
	fake_cfi_unsigned(&c->cfi, TEST_PC, 8);
	fake_cfi_unsigned(&c->cfi, TEST_RANGE, 8);
	FAKE_CFI(&c->cfi, 0);
}

/* The usual start: code alignment 1, CIE with DW_CFA_def_cfa sp, 0. */
static void begin_case(struct cfi_case *c)
{
	begin_cie(c, 1);
	FAKE_CFI(&c->cfi, CFA_def_cfa, REG_SP, 0);
	begin_fde(c);
}

/* Ends the FDE, seals the bytes and parses the FDE. */
static enum cfi_status finish_case(struct cfi_case *c)
{
	fake_cfi_end(&c->cfi);
	fake_cfi_seal(&c->cfi, &c->stack.config);
	return cfi_parse_fde(&c->stack.config, fake_cfi_addr(&c->cfi, c->fde),
			     &c->parsed);
}

static enum cfi_status row_at(struct cfi_case *c, uintptr_t pc, struct cfi_row *row)
{
	return cfi_row_at(&c->stack.config, &c->parsed, pc, row);
}

/* finish_case, then the row at TEST_PC: the effect of every instruction
 * before the first advance. */
static enum cfi_status first_row(struct cfi_case *c, struct cfi_row *row)
{
	enum cfi_status status = finish_case(c);

	return status == CFI_OK ? row_at(c, TEST_PC, row) : status;
}

static void end_case(struct cfi_case *c)
{
	fake_cfi_free(&c->cfi);
	fake_stack_free(&c->stack);
}

static bool has_rule(const struct cfi_row *row, unsigned column, enum cfi_rule_kind kind,
		     int32_t value)
{
	struct cfi_rule rule = cfi_row_rule(row, column);

	return rule.kind == kind && rule.value == value;
}

/* How many of the columns the row keeps have a rule. */
static unsigned rule_count(const struct cfi_row *row)
{
	unsigned count = 0;

	for (unsigned slot = 0; slot < CFI_SLOTS; slot++)
		count += cfi_row_kind(row, slot) != 0;
	return count;
}

static bool cfa_is(const struct cfi_row *row, unsigned column, int32_t offset)
{
	return row->cfa_kind == CFI_CFA_REGISTER_OFFSET && row->cfa_register == column &&
	       row->cfa_offset == offset;
}

/* ---- pointer encodings (LSB: DW_EH_PE_*) ---- */

/* Where an encoded value is relative to. */
enum pointer_base { ABSOLUTE, FIELD, TEXT, DATA };

struct pointer_case {
	uint8_t encoding;
	uint8_t bytes[8];
	unsigned size; /* bytes the field takes */
	enum pointer_base base;
	uint64_t value; /* expected, before its base is added */
};

/*
 * Values by hand: little-endian fixed sizes; ULEB/SLEB examples from DWARF 5
 * Tables 7.6 and 7.7 (12857 = b9 64, 128 = 80 01, -128 = 80 7f, -2 = 7e,
 * -127 = 81 7f). Each field is followed by a0 bytes that must stay unread.
 */
static const struct pointer_case pointer_cases[] = {
    {DW_EH_PE_absptr,
     {0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11},
     8,
     ABSOLUTE,
     0x1122334455667788},
    {DW_EH_PE_udata2, {0xfe, 0xff}, 2, ABSOLUTE, 0xfffe},
    {DW_EH_PE_udata4, {0xfc, 0xff, 0xff, 0xff}, 4, ABSOLUTE, 0xfffffffc},
    {DW_EH_PE_udata8,
     {0xf8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
     8,
     ABSOLUTE,
     0xfffffffffffffff8},
    {DW_EH_PE_sdata2, {0xfe, 0xff}, 2, ABSOLUTE, (uint64_t)-2},
    {DW_EH_PE_sdata2, {0xff, 0x7f}, 2, ABSOLUTE, 0x7fff},
    {DW_EH_PE_sdata4, {0xfc, 0xff, 0xff, 0xff}, 4, ABSOLUTE, (uint64_t)-4},
    {DW_EH_PE_sdata8, {0, 0, 0, 0, 0, 0, 0, 0x80}, 8, ABSOLUTE, 0x8000000000000000},
    {DW_EH_PE_uleb128, {0xb9, 0x64}, 2, ABSOLUTE, 12857},
    {DW_EH_PE_uleb128, {0x7f}, 1, ABSOLUTE, 127},
    {DW_EH_PE_sleb128, {0x80, 0x7f}, 2, ABSOLUTE, (uint64_t)-128},
    {DW_EH_PE_sleb128, {0x81, 0x7f}, 2, ABSOLUTE, (uint64_t)-127},
    {DW_EH_PE_sleb128, {0x7e}, 1, ABSOLUTE, (uint64_t)-2},
    /* pcrel: relative to the address of the field itself */
    {DW_EH_PE_pcrel | DW_EH_PE_sdata4, {0xf0, 0xff, 0xff, 0xff}, 4, FIELD, (uint64_t)-16},
    {DW_EH_PE_pcrel | DW_EH_PE_udata2, {0x10, 0x00}, 2, FIELD, 16},
    {DW_EH_PE_pcrel | DW_EH_PE_absptr, {0x00, 0x01, 0, 0, 0, 0, 0, 0}, 8, FIELD, 0x100},
    {DW_EH_PE_pcrel | DW_EH_PE_uleb128, {0x80, 0x01}, 2, FIELD, 128},
    {DW_EH_PE_pcrel | DW_EH_PE_sleb128, {0x7e}, 1, FIELD, (uint64_t)-2},
    {DW_EH_PE_pcrel | DW_EH_PE_sdata8,
     {0xf8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
     8,
     FIELD,
     (uint64_t)-8},
    /* textrel: relative to config->text.start */
    {DW_EH_PE_textrel | DW_EH_PE_udata4, {0x10, 0, 0, 0}, 4, TEXT, 0x10},
    {DW_EH_PE_textrel | DW_EH_PE_sdata4, {0xfc, 0xff, 0xff, 0xff}, 4, TEXT, (uint64_t)-4},
    /* datarel: relative to config->eh_frame.start */
    {DW_EH_PE_datarel | DW_EH_PE_udata4, {0x20, 0, 0, 0}, 4, DATA, 0x20},
    {DW_EH_PE_datarel | DW_EH_PE_sdata2, {0xf8, 0xff}, 2, DATA, (uint64_t)-8},
};

/* The field sits 4 bytes into the section, so that pcrel and datarel differ. */
#define FIELD_OFFSET 4

static enum cfi_status read_pointer_case(struct cfi_case *c, uint8_t encoding,
					 const uint8_t *bytes, size_t count,
					 uintptr_t *value, size_t *consumed)
{
	struct memory_cursor cursor;
	enum cfi_status status;

	fake_cfi_init(&c->cfi);
	FAKE_CFI(&c->cfi, 0xa0, 0xa0, 0xa0, 0xa0);
	fake_cfi_bytes(&c->cfi, bytes, count);
	FAKE_CFI(&c->cfi, 0xa0, 0xa0);
	fake_cfi_seal(&c->cfi, &c->stack.config);
	if (!memory_cursor_open(&c->stack.config, fake_cfi_addr(&c->cfi, FIELD_OFFSET),
				c->stack.config.eh_frame.end, &cursor))
		return CFI_NOT_FOUND; /* not a status the reader gives: fails the test */
	status = cfi_read_pointer(&c->stack.config, &cursor, encoding, value);
	*consumed = cursor.pos - fake_cfi_addr(&c->cfi, FIELD_OFFSET);
	return status == CFI_OK && cursor.failed ? CFI_MALFORMED : status;
}

static uintptr_t pointer_base(const struct cfi_case *c, enum pointer_base base)
{
	switch (base) {
	case FIELD:
		return fake_cfi_addr(&c->cfi, FIELD_OFFSET);
	case TEXT:
		return c->stack.config.text.start;
	case DATA:
		return c->stack.config.eh_frame.start;
	default:
		return 0;
	}
}

void cfi_pointer_encodings(void)
{
	struct cfi_case c;

	fake_stack_init(&c.stack);
	for (size_t i = 0; i < sizeof(pointer_cases) / sizeof(pointer_cases[0]); i++) {
		const struct pointer_case *p = &pointer_cases[i];
		uintptr_t value = 0;
		size_t consumed = 0;

		CHECK_ROW(read_pointer_case(&c, p->encoding, p->bytes, p->size, &value,
					    &consumed) == CFI_OK,
			  i);
		CHECK_ROW(value == pointer_base(&c, p->base) + (uintptr_t)p->value, i);
		CHECK_ROW(consumed == p->size, i);
		fake_cfi_free(&c.cfi);
	}
	fake_stack_free(&c.stack);
}

/* LSB: indirect (0x80), funcrel (0x40) and aligned (0x50) are valid but not
 * evaluated here; omit (0xff) means no value at all. */
void cfi_pointer_unsupported_encodings(void)
{
	static const uint8_t encodings[] = {
	    DW_EH_PE_indirect | DW_EH_PE_absptr,
	    DW_EH_PE_indirect | DW_EH_PE_pcrel | DW_EH_PE_sdata4,
	    DW_EH_PE_funcrel | DW_EH_PE_udata4,
	    DW_EH_PE_aligned,
	    DW_EH_PE_omit,
	};
	static const uint8_t bytes[8] = {0};
	struct cfi_case c;

	fake_stack_init(&c.stack);
	for (size_t i = 0; i < sizeof(encodings); i++) {
		uintptr_t value;
		size_t consumed;

		CHECK_ROW(read_pointer_case(&c, encodings[i], bytes, sizeof(bytes),
					    &value, &consumed) == CFI_UNSUPPORTED,
			  i);
		fake_cfi_free(&c.cfi);
	}
	fake_stack_free(&c.stack);
}

/* Format nibbles 5-8 and 0xd-0xf are not defined (LSB Table 10-1). */
void cfi_pointer_bad_formats(void)
{
	static const uint8_t encodings[] = {0x05,
					    0x06,
					    0x07,
					    0x08,
					    0x0d,
					    0x0e,
					    0x0f,
					    DW_EH_PE_pcrel | 0x0d,
					    DW_EH_PE_datarel | 0x06};
	static const uint8_t bytes[8] = {0};
	struct cfi_case c;

	fake_stack_init(&c.stack);
	for (size_t i = 0; i < sizeof(encodings); i++) {
		uintptr_t value;
		size_t consumed;

		CHECK_ROW(read_pointer_case(&c, encodings[i], bytes, sizeof(bytes),
					    &value, &consumed) == CFI_MALFORMED,
			  i);
		fake_cfi_free(&c.cfi);
	}
	fake_stack_free(&c.stack);
}

/* A field that runs past the end of the cursor is an error, never a read
 * outside the section (the block ends right after these bytes). */
void cfi_pointer_truncated(void)
{
	struct cfi_case c;
	struct memory_cursor cursor;
	uintptr_t value;
	enum cfi_status status;

	fake_stack_init(&c.stack);
	fake_cfi_init(&c.cfi);
	/* udata4 with 3 bytes left; then a ULEB whose last byte has bit 7 set. */
	FAKE_CFI(&c.cfi, 0x01, 0x02, 0x03, 0x80);
	fake_cfi_seal(&c.cfi, &c.stack.config);
	CHECK(memory_cursor_open(&c.stack.config, fake_cfi_addr(&c.cfi, 1),
				 c.stack.config.eh_frame.end, &cursor));
	status = cfi_read_pointer(&c.stack.config, &cursor, DW_EH_PE_udata4, &value);
	CHECK(status != CFI_OK || cursor.failed);
	CHECK(memory_cursor_open(&c.stack.config, fake_cfi_addr(&c.cfi, 3),
				 c.stack.config.eh_frame.end, &cursor));
	status = cfi_read_pointer(&c.stack.config, &cursor, DW_EH_PE_uleb128, &value);
	CHECK(status != CFI_OK || cursor.failed);
	end_case(&c);
}

/* ---- CIE and FDE parsing ---- */

/*
 * GCC 12 -O2 -march=rv64imac -fno-omit-frame-pointer
 * -fasynchronous-unwind-tables for
 *     long work(long a, long b) { long buf[4] = {a, b, a + b, a * b};
 *                                 sink(buf); return buf[0] + buf[3]; }
 * linked with .eh_frame at 0x80200040 and work at 0x80200000. readelf -wf:
 *   00000000 CIE: version 3, "zR", code 1, data -4, ra 1, augmentation
 *            data 1b; DW_CFA_def_cfa_register r2; DW_CFA_nop
 *   00000014 FDE cie=0 pc=80200000..8020003c: advance 6; def_cfa_offset 48;
 *            advance 4; offset r8 at cfa-16; offset r1 at cfa-8; advance 2;
 *            def_cfa r8 ofs 0; advance 40; restore r1; advance 2;
 *            restore r8; def_cfa r2 ofs 48; advance 4; def_cfa_offset 0; nop
 * Its pc_begin (pcrel sdata4 at 0x1c) is -0x5c: 0x8020005c - 0x5c.
 */
static const uint8_t gcc_eh_frame[] = {
    0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x7a, 0x52, 0x00,
    0x01, 0x7c, 0x01, 0x01, 0x1b, 0x0d, 0x02, 0x00, 0x24, 0x00, 0x00, 0x00,
    0x18, 0x00, 0x00, 0x00, 0xa4, 0xff, 0xff, 0xff, 0x3c, 0x00, 0x00, 0x00,
    0x00, 0x46, 0x0e, 0x30, 0x44, 0x88, 0x04, 0x81, 0x02, 0x42, 0x0c, 0x08,
    0x00, 0x68, 0xc1, 0x42, 0xc8, 0x0c, 0x02, 0x30, 0x44, 0x0e, 0x00, 0x00,
};
#define GCC_FDE	     0x14
#define GCC_PC_FIELD 0x1c

/* readelf -wF: the rows of that FDE, by offset from the function start
 * ("u" is no rule: unspecified). */
static const struct gcc_row {
	uintptr_t offset;
	unsigned cfa_register;
	int32_t cfa_offset;
	int32_t ra; /* 0: unspecified */
	int32_t s0;
} gcc_rows[] = {
    {0x00, REG_SP, 0, 0, 0},	{0x06, REG_SP, 48, 0, 0},  {0x0a, REG_SP, 48, -8, -16},
    {0x0c, REG_S0, 0, -8, -16}, {0x34, REG_S0, 0, 0, -16}, {0x36, REG_SP, 48, 0, 0},
    {0x3a, REG_SP, 0, 0, 0},
};

static bool saved_at(const struct cfi_row *row, unsigned column, int32_t offset)
{
	return offset ? has_rule(row, column, CFI_RULE_OFFSET, offset)
		      : cfi_row_rule(row, column).kind == 0;
}

static bool is_gcc_row(const struct cfi_row *row, const struct gcc_row *expected)
{
	return cfa_is(row, expected->cfa_register, expected->cfa_offset) &&
	       saved_at(row, REG_RA, expected->ra) && saved_at(row, REG_S0, expected->s0);
}

void cfi_parse_gcc_fde(void)
{
	struct cfi_case c;
	struct cfi_row row;
	uintptr_t start;

	fake_stack_init(&c.stack);
	fake_cfi_init(&c.cfi);
	fake_cfi_bytes(&c.cfi, gcc_eh_frame, sizeof(gcc_eh_frame));
	fake_cfi_seal(&c.cfi, &c.stack.config);
	CHECK(cfi_parse_fde(&c.stack.config, fake_cfi_addr(&c.cfi, GCC_FDE), &c.parsed) ==
	      CFI_OK);
	start = fake_cfi_addr(&c.cfi, GCC_PC_FIELD) - 0x5c;
	CHECK(c.parsed.pc_start == start && c.parsed.pc_end == start + 0x3c);
	CHECK(c.parsed.cie.code_align == 1 && c.parsed.cie.data_align == -4);
	CHECK(c.parsed.cie.ra_column == REG_RA && c.parsed.cie.fde_encoding == 0x1b);
	CHECK(c.parsed.cie.has_augmentation_data && !c.parsed.cie.is_signal_frame);
	CHECK(c.parsed.cie.instructions == fake_cfi_addr(&c.cfi, 0x11));
	CHECK(c.parsed.cie.end == fake_cfi_addr(&c.cfi, 0x14));
	CHECK(c.parsed.instructions == fake_cfi_addr(&c.cfi, 0x25));
	CHECK(c.parsed.end == fake_cfi_addr(&c.cfi, 0x3c));
	for (size_t i = 0; i < sizeof(gcc_rows) / sizeof(gcc_rows[0]); i++) {
		const struct gcc_row *expected = &gcc_rows[i];

		CHECK_ROW(row_at(&c, start + expected->offset, &row) == CFI_OK, i);
		CHECK_ROW(is_gcc_row(&row, expected), i);
		/* The byte before a row's location still has the previous row. */
		if (i > 0) {
			CHECK_ROW(
			    row_at(&c, start + expected->offset - 1, &row) == CFI_OK, i);
			CHECK_ROW(is_gcc_row(&row, &gcc_rows[i - 1]), i);
		}
	}
	CHECK(row_at(&c, start + 0x3b, &row) == CFI_OK && is_gcc_row(&row, &gcc_rows[6]));
	end_case(&c);
}

/* Every prefix of that section cuts the FDE short: always MALFORMED, and
 * never a read outside the (exactly sized) block. */
void cfi_parse_truncated_sections(void)
{
	struct cfi_case c;

	fake_stack_init(&c.stack);
	for (size_t size = 0; size < sizeof(gcc_eh_frame); size++) {
		fake_cfi_init(&c.cfi);
		fake_cfi_bytes(&c.cfi, gcc_eh_frame, size);
		fake_cfi_seal(&c.cfi, &c.stack.config);
		CHECK_ROW(cfi_parse_fde(&c.stack.config, fake_cfi_addr(&c.cfi, GCC_FDE),
					&c.parsed) == CFI_MALFORMED,
			  size);
		fake_cfi_free(&c.cfi);
	}
	fake_stack_free(&c.stack);
}

/*
 * Version 1 keeps the return-address register in one byte (DWARF 2 "ubyte"),
 * version 3 in a ULEB128. With the byte 0x81 followed by the augmentation
 * length 01: as a byte it is column 0x81 and the augmentation data (R = 04)
 * follows; read as a ULEB it would swallow the length (81 01 = 129).
 */
void cfi_parse_cie_version1(void)
{
	struct cfi_case c;
	size_t instructions;

	fake_stack_init(&c.stack);
	fake_cfi_init(&c.cfi);
	c.cie = fake_cfi_begin_cie(&c.cfi);
	FAKE_CFI(&c.cfi, 1, 'z', 'R', 0, 0x01, 0x7c, 0x81, 0x01, DW_EH_PE_udata8);
	instructions = c.cfi.size;
	FAKE_CFI(&c.cfi, CFA_def_cfa, REG_SP, 0);
	begin_fde(&c);
	CHECK(finish_case(&c) == CFI_OK);
	CHECK(c.parsed.cie.ra_column == 0x81);
	CHECK(c.parsed.cie.fde_encoding == DW_EH_PE_udata8);
	CHECK(c.parsed.cie.instructions == fake_cfi_addr(&c.cfi, instructions));
	CHECK(c.parsed.pc_start == TEST_PC && c.parsed.pc_end == TEST_PC + TEST_RANGE);
	end_case(&c);
}

/* Version 3: ULEB128 81 01 = 1 + (1 << 7) = 129. */
void cfi_parse_cie_version3_uleb_ra(void)
{
	struct cfi_case c;
	size_t instructions;

	fake_stack_init(&c.stack);
	fake_cfi_init(&c.cfi);
	c.cie = fake_cfi_begin_cie(&c.cfi);
	FAKE_CFI(&c.cfi, 3, 'z', 'R', 0, 0x01, 0x7c, 0x81, 0x01, 0x01, DW_EH_PE_udata8);
	instructions = c.cfi.size;
	FAKE_CFI(&c.cfi, CFA_def_cfa, REG_SP, 0);
	begin_fde(&c);
	CHECK(finish_case(&c) == CFI_OK);
	CHECK(c.parsed.cie.ra_column == 129);
	CHECK(c.parsed.cie.instructions == fake_cfi_addr(&c.cfi, instructions));
	end_case(&c);
}

/* .eh_frame CIEs are version 1 or 3 (LSB); DWARF 4's version 4 adds fields
 * this parser does not read, and 0, 2, 5 are not .eh_frame versions. */
void cfi_parse_cie_other_versions(void)
{
	static const uint8_t versions[] = {0, 2, 4, 5, 0xff};

	for (size_t i = 0; i < sizeof(versions); i++) {
		struct cfi_case c;
		enum cfi_status status;

		fake_stack_init(&c.stack);
		fake_cfi_init(&c.cfi);
		c.cie = fake_cfi_begin_cie(&c.cfi);
		FAKE_CFI(&c.cfi, versions[i], 'z', 'R', 0, 0x01, 0x7c, 0x01, 0x01,
			 DW_EH_PE_udata8, CFA_def_cfa, REG_SP, 0);
		begin_fde(&c);
		status = finish_case(&c);
		CHECK_ROW(status == CFI_UNSUPPORTED || status == CFI_MALFORMED, i);
		end_case(&c);
	}
}

/*
 * "zPLR": augmentation data = P's encoding (absptr) and an 8-byte
 * personality pointer, L's encoding (pcrel sdata4), R's encoding (udata8):
 * 1 + 8 + 1 + 1 = 11 bytes. The FDE's augmentation data (4 bytes: the LSDA
 * pointer) is skipped by its length.
 */
void cfi_parse_augmentation_plr(void)
{
	struct cfi_case c;
	struct cfi_row row;
	size_t instructions;

	fake_stack_init(&c.stack);
	fake_cfi_init(&c.cfi);
	c.cie = fake_cfi_begin_cie(&c.cfi);
	FAKE_CFI(&c.cfi, 3, 'z', 'P', 'L', 'R', 0, 0x01, 0x7c, 0x01, 11, DW_EH_PE_absptr,
		 1, 2, 3, 4, 5, 6, 7, 8, DW_EH_PE_pcrel | DW_EH_PE_sdata4,
		 DW_EH_PE_udata8, CFA_def_cfa, REG_SP, 0);
	fake_cfi_end(&c.cfi);
	c.fde = fake_cfi_begin_fde(&c.cfi, c.cie);
	fake_cfi_unsigned(&c.cfi, TEST_PC, 8);
	fake_cfi_unsigned(&c.cfi, TEST_RANGE, 8);
	FAKE_CFI(&c.cfi, 4, 0xde, 0xad, 0xbe, 0xef);
	instructions = c.cfi.size;
	FAKE_CFI(&c.cfi, CFA_def_cfa_offset, 16);
	CHECK(first_row(&c, &row) == CFI_OK);
	CHECK(c.parsed.cie.fde_encoding == DW_EH_PE_udata8);
	CHECK(c.parsed.instructions == fake_cfi_addr(&c.cfi, instructions));
	CHECK(c.parsed.pc_start == TEST_PC && c.parsed.pc_end == TEST_PC + TEST_RANGE);
	CHECK(cfa_is(&row, REG_SP, 16));
	end_case(&c);
}

/* GCC's C++ personality: P = indirect | pcrel | sdata4 (0x9b), a 4-byte
 * field. It is only skipped, so indirection does not matter: "zPR" data is
 * 1 + 4 + 1 = 6 bytes. */
void cfi_parse_augmentation_indirect_personality(void)
{
	struct cfi_case c;
	struct cfi_row row;

	fake_stack_init(&c.stack);
	fake_cfi_init(&c.cfi);
	c.cie = fake_cfi_begin_cie(&c.cfi);
	FAKE_CFI(&c.cfi, 3, 'z', 'P', 'R', 0, 0x01, 0x7c, 0x01, 6,
		 DW_EH_PE_indirect | DW_EH_PE_pcrel | DW_EH_PE_sdata4, 0x10, 0x20, 0x30,
		 0x40, DW_EH_PE_udata8, CFA_def_cfa, REG_SP, 0);
	begin_fde(&c);
	CHECK(first_row(&c, &row) == CFI_OK);
	CHECK(c.parsed.cie.fde_encoding == DW_EH_PE_udata8);
	CHECK(c.parsed.pc_start == TEST_PC);
	end_case(&c);
}

/* 'S' marks a signal frame and has no augmentation data. */
void cfi_parse_augmentation_signal_frame(void)
{
	struct cfi_case c;

	fake_stack_init(&c.stack);
	fake_cfi_init(&c.cfi);
	c.cie = fake_cfi_begin_cie(&c.cfi);
	FAKE_CFI(&c.cfi, 3, 'z', 'R', 'S', 0, 0x01, 0x7c, 0x01, 1, DW_EH_PE_udata8,
		 CFA_def_cfa, REG_SP, 0);
	begin_fde(&c);
	CHECK(finish_case(&c) == CFI_OK);
	CHECK(c.parsed.cie.is_signal_frame);
	CHECK(c.parsed.cie.fde_encoding == DW_EH_PE_udata8);
	end_case(&c);
}

/* An unknown letter after 'z': its data (here 2 bytes) is skipped by the
 * augmentation length, 1 (R) + 2 = 3. */
void cfi_parse_augmentation_unknown_after_z(void)
{
	struct cfi_case c;
	struct cfi_row row;
	size_t instructions;

	fake_stack_init(&c.stack);
	fake_cfi_init(&c.cfi);
	c.cie = fake_cfi_begin_cie(&c.cfi);
	FAKE_CFI(&c.cfi, 3, 'z', 'R', 'X', 0, 0x01, 0x7c, 0x01, 3, DW_EH_PE_udata8, 0xaa,
		 0xbb);
	instructions = c.cfi.size;
	FAKE_CFI(&c.cfi, CFA_def_cfa, REG_SP, 8);
	begin_fde(&c);
	CHECK(first_row(&c, &row) == CFI_OK);
	CHECK(c.parsed.cie.fde_encoding == DW_EH_PE_udata8);
	CHECK(c.parsed.cie.instructions == fake_cfi_addr(&c.cfi, instructions));
	CHECK(cfa_is(&row, REG_SP, 8));
	end_case(&c);
}

/* Without 'z' there is no length to skip an unknown letter's data by. */
void cfi_parse_augmentation_unknown_without_z(void)
{
	struct cfi_case c;

	fake_stack_init(&c.stack);
	fake_cfi_init(&c.cfi);
	c.cie = fake_cfi_begin_cie(&c.cfi);
	FAKE_CFI(&c.cfi, 3, 'X', 0, 0x01, 0x7c, 0x01, CFA_def_cfa, REG_SP, 0);
	begin_fde(&c);
	CHECK(finish_case(&c) == CFI_UNSUPPORTED);
	end_case(&c);
}

/*
 * 64-bit lengths (length 0xffffffff, then an 8-byte "extended length"). The
 * CIE id and the FDE's CIE pointer are then 8 bytes too, as GDB and readelf
 * read them (the LSB says 4; see fake_cfi.c).
 */
void cfi_parse_64bit_lengths(void)
{
	struct cfi_case c;
	struct cfi_row row;

	fake_stack_init(&c.stack);
	fake_cfi_init(&c.cfi);
	c.cfi.extended = true;
	c.cie = fake_cfi_begin_cie(&c.cfi);
	FAKE_CFI(&c.cfi, 3, 'z', 'R', 0, 0x01, 0x7c, 0x01, 1, DW_EH_PE_udata8,
		 CFA_def_cfa, REG_SP, 0);
	begin_fde(&c);
	FAKE_CFI(&c.cfi, CFA_def_cfa_offset, 32);
	CHECK(first_row(&c, &row) == CFI_OK);
	CHECK(c.parsed.pc_start == TEST_PC && c.parsed.pc_end == TEST_PC + TEST_RANGE);
	CHECK(cfa_is(&row, REG_SP, 32));
	/* 12 bytes of lengths + 8 of CIE pointer + 8 + 8 + 1 of header. */
	CHECK(c.parsed.instructions == fake_cfi_addr(&c.cfi, c.fde + 37));
	end_case(&c);
}

/* The FDE's pc range has the format of R but is never pcrel (LSB: "PC
 * Range ... an absolute value"); set_loc's operand is a full pointer. With
 * R = pcrel | sdata8: */
void cfi_parse_pcrel_fde(void)
{
	struct cfi_case c;
	struct cfi_row row;

	fake_stack_init(&c.stack);
	fake_cfi_init(&c.cfi);
	c.cie = fake_cfi_begin_cie(&c.cfi);
	FAKE_CFI(&c.cfi, 3, 'z', 'R', 0, 0x01, 0x7c, 0x01, 1,
		 DW_EH_PE_pcrel | DW_EH_PE_sdata8, CFA_def_cfa, REG_SP, 0);
	fake_cfi_end(&c.cfi);
	c.fde = fake_cfi_begin_fde(&c.cfi, c.cie);
	fake_cfi_pcrel(&c.cfi, TEST_PC, 8);
	fake_cfi_unsigned(&c.cfi, TEST_RANGE, 8);
	FAKE_CFI(&c.cfi, 0, CFA_set_loc);
	fake_cfi_pcrel(&c.cfi, TEST_PC + 0x20, 8);
	FAKE_CFI(&c.cfi, CFA_def_cfa_offset, 64);
	CHECK(finish_case(&c) == CFI_OK);
	CHECK(c.parsed.pc_start == TEST_PC && c.parsed.pc_end == TEST_PC + TEST_RANGE);
	CHECK(row_at(&c, TEST_PC + 0x1f, &row) == CFI_OK && cfa_is(&row, REG_SP, 0));
	CHECK(row_at(&c, TEST_PC + 0x20, &row) == CFI_OK && cfa_is(&row, REG_SP, 64));
	end_case(&c);
}

/* Structural errors, each in an otherwise valid section. */
void cfi_parse_not_an_fde(void)
{
	struct cfi_case c;
	size_t second;

	begin_case(&c);
	fake_cfi_end(&c.cfi);
	/* A second "FDE" whose CIE pointer leads to the first FDE. */
	second = fake_cfi_begin_fde(&c.cfi, c.fde);
	fake_cfi_unsigned(&c.cfi, TEST_PC, 8);
	fake_cfi_unsigned(&c.cfi, TEST_RANGE, 8);
	FAKE_CFI(&c.cfi, 0);
	fake_cfi_end(&c.cfi);
	/* The zero terminator. */
	fake_cfi_unsigned(&c.cfi, 0, 4);
	fake_cfi_seal(&c.cfi, &c.stack.config);
	CHECK(cfi_parse_fde(&c.stack.config, fake_cfi_addr(&c.cfi, c.fde), &c.parsed) ==
	      CFI_OK);
	/* A CIE (id 0) is not an FDE. */
	CHECK(cfi_parse_fde(&c.stack.config, fake_cfi_addr(&c.cfi, c.cie), &c.parsed) ==
	      CFI_MALFORMED);
	/* The CIE pointer must lead to a CIE. */
	CHECK(cfi_parse_fde(&c.stack.config, fake_cfi_addr(&c.cfi, second), &c.parsed) ==
	      CFI_MALFORMED);
	/* Length 0 ends the section. */
	CHECK(cfi_parse_fde(&c.stack.config, fake_cfi_addr(&c.cfi, c.cfi.size - 4),
			    &c.parsed) == CFI_MALFORMED);
	/* Outside the section, or its length field straddling the end. */
	CHECK(cfi_parse_fde(&c.stack.config, fake_cfi_addr(&c.cfi, c.cfi.size),
			    &c.parsed) == CFI_MALFORMED);
	CHECK(cfi_parse_fde(&c.stack.config, fake_cfi_addr(&c.cfi, c.cfi.size - 2),
			    &c.parsed) == CFI_MALFORMED);
	CHECK(cfi_parse_fde(&c.stack.config, fake_cfi_addr(&c.cfi, 0) - 8, &c.parsed) ==
	      CFI_MALFORMED);
	end_case(&c);
}

/* The CIE pointer leads before the section (4 bytes before its start). */
void cfi_parse_cie_pointer_outside(void)
{
	struct cfi_case c;

	begin_case(&c);
	fake_cfi_end(&c.cfi);
	/* The pointer field is at c.fde + 4: pointer c.fde + 8 -> offset -4. */
	c.cfi.bytes[c.fde + 4] = (uint8_t)(c.fde + 8);
	fake_cfi_seal(&c.cfi, &c.stack.config);
	CHECK(cfi_parse_fde(&c.stack.config, fake_cfi_addr(&c.cfi, c.fde), &c.parsed) ==
	      CFI_MALFORMED);
	end_case(&c);
}

/* Lengths that overrun their record, with more bytes after the record so
 * that only the record's own bounds can catch them. */
void cfi_parse_lengths_past_record(void)
{
	struct cfi_case c;
	size_t cie_aug_length;
	size_t fde_aug_length;

	begin_cie(&c, 1);
	cie_aug_length = c.cfi.size - 2;
	FAKE_CFI(&c.cfi, CFA_def_cfa, REG_SP, 0);
	begin_fde(&c);
	fde_aug_length = c.cfi.size - 1;
	fake_cfi_end(&c.cfi);
	fake_cfi_unsigned(&c.cfi, 0, 4);
	fake_cfi_unsigned(&c.cfi, 0, 4);
	fake_cfi_seal(&c.cfi, &c.stack.config);

	/* FDE augmentation length 4 > what is left of the FDE (nothing). */
	c.cfi.block[fde_aug_length] = 4;
	CHECK(cfi_parse_fde(&c.stack.config, fake_cfi_addr(&c.cfi, c.fde), &c.parsed) ==
	      CFI_MALFORMED);
	c.cfi.block[fde_aug_length] = 0;
	/* CIE augmentation length 0x20 > the CIE. */
	c.cfi.block[cie_aug_length] = 0x20;
	CHECK(cfi_parse_fde(&c.stack.config, fake_cfi_addr(&c.cfi, c.fde), &c.parsed) ==
	      CFI_MALFORMED);
	c.cfi.block[cie_aug_length] = 1;
	/* FDE length 6: its pc_begin would run 6 bytes past its end. */
	c.cfi.block[c.fde] = 6;
	CHECK(cfi_parse_fde(&c.stack.config, fake_cfi_addr(&c.cfi, c.fde), &c.parsed) ==
	      CFI_MALFORMED);
	/* FDE length past the section's end. */
	c.cfi.block[c.fde] = 0xf0;
	CHECK(cfi_parse_fde(&c.stack.config, fake_cfi_addr(&c.cfi, c.fde), &c.parsed) ==
	      CFI_MALFORMED);
	end_case(&c);
}

/* An augmentation string without its NUL inside the CIE. */
void cfi_parse_unterminated_augmentation(void)
{
	struct cfi_case c;

	fake_stack_init(&c.stack);
	fake_cfi_init(&c.cfi);
	c.cie = fake_cfi_begin_cie(&c.cfi);
	FAKE_CFI(&c.cfi, 3, 'z', 'R', 'R', 'R');
	begin_fde(&c);
	CHECK(finish_case(&c) == CFI_MALFORMED);
	end_case(&c);
}

/* ---- finding the FDE through the index ---- */

/* Three FDEs of one CIE: A [0x80201000, +0x100), B [0x80202000, +0x80),
 * C [0x80203000, +0x10). */
struct indexed_section {
	struct cfi_case c;
	struct tracer_fde_entry entries[3];
	struct tracer_fde_index index;
};

static void add_fde(struct fake_cfi *cfi, size_t cie, uintptr_t pc, uintptr_t range,
		    size_t *offset)
{
	*offset = fake_cfi_begin_fde(cfi, cie);
	fake_cfi_unsigned(cfi, pc, 8);
	fake_cfi_unsigned(cfi, range, 8);
	FAKE_CFI(cfi, 0, CFA_def_cfa_offset);
	fake_cfi_uleb(cfi, range); /* a mark: each FDE's CFA offset is its range */
	fake_cfi_end(cfi);
}

static void build_indexed(struct indexed_section *s)
{
	static const uintptr_t pcs[3] = {0x80201000, 0x80202000, 0x80203000};
	static const uintptr_t ranges[3] = {0x100, 0x80, 0x10};
	size_t offsets[3];

	begin_cie(&s->c, 1);
	/* The lookup compares addresses and reads no code: a text at fixed
	 * numbers keeps them readable. */
	s->c.stack.config.text = (struct tracer_range){0x80200000, 0x80210000};
	FAKE_CFI(&s->c.cfi, CFA_def_cfa, REG_SP, 0);
	fake_cfi_end(&s->c.cfi);
	for (int i = 0; i < 3; i++)
		add_fde(&s->c.cfi, s->c.cie, pcs[i], ranges[i], &offsets[i]);
	fake_cfi_unsigned(&s->c.cfi, 0, 4);
	fake_cfi_seal(&s->c.cfi, &s->c.stack.config);
	for (int i = 0; i < 3; i++) {
		s->entries[i].pc_start = pcs[i];
		s->entries[i].fde = fake_cfi_addr(&s->c.cfi, offsets[i]);
	}
	fake_fde_index_fill(&s->index, s->entries, 3, s->c.stack.config.eh_frame);
	s->c.stack.config.fde_index = &s->index;
	fake_tables_anywhere(&s->c.stack.config);
}

static bool finds(struct indexed_section *s, uintptr_t pc, uintptr_t start)
{
	struct cfi_fde fde;

	return cfi_find_fde(&s->c.stack.config, pc, NULL, &fde) == CFI_OK &&
	       fde.pc_start == start;
}

static enum cfi_status find_status(struct indexed_section *s, uintptr_t pc)
{
	struct cfi_fde fde;

	return cfi_find_fde(&s->c.stack.config, pc, NULL, &fde);
}

void cfi_find_fde_by_index(void)
{
	struct indexed_section s;

	build_indexed(&s);
	CHECK(finds(&s, 0x80201000, 0x80201000) && finds(&s, 0x802010ff, 0x80201000));
	CHECK(finds(&s, 0x80202000, 0x80202000) && finds(&s, 0x8020207f, 0x80202000));
	CHECK(finds(&s, 0x80203000, 0x80203000) && finds(&s, 0x8020300f, 0x80203000));
	/* Before the first, in the gaps, after the last. */
	CHECK(find_status(&s, 0x80200fff) == CFI_NOT_FOUND);
	CHECK(find_status(&s, 0x80201100) == CFI_NOT_FOUND);
	CHECK(find_status(&s, 0x80202080) == CFI_NOT_FOUND);
	CHECK(find_status(&s, 0x80203010) == CFI_NOT_FOUND);
	CHECK(find_status(&s, 0) == CFI_NOT_FOUND);
	CHECK(find_status(&s, UINTPTR_MAX) == CFI_NOT_FOUND);
	/* One entry, and none. */
	s.index.count = 1;
	CHECK(finds(&s, 0x80201080, 0x80201000));
	CHECK(find_status(&s, 0x80202000) == CFI_NOT_FOUND);
	s.index.count = 0;
	CHECK(find_status(&s, 0x80201000) == CFI_NOT_FOUND);
	s.c.stack.config.fde_index = NULL;
	CHECK(find_status(&s, 0x80201000) == CFI_NOT_FOUND);
	end_case(&s.c);
}

void cfi_find_fde_bad_index(void)
{
	struct indexed_section s;

	build_indexed(&s);
	/* The entry says B starts at 0x80202004; B says 0x80202000. */
	s.entries[1].pc_start = 0x80202004;
	CHECK(find_status(&s, 0x80202010) == CFI_MALFORMED);
	/* The entry points at the CIE, then outside .eh_frame. */
	s.entries[1].pc_start = 0x80202000;
	s.entries[1].fde = fake_cfi_addr(&s.c.cfi, s.c.cie);
	CHECK(find_status(&s, 0x80202010) == CFI_MALFORMED);
	s.entries[1].fde = s.c.stack.config.eh_frame.end;
	CHECK(find_status(&s, 0x80202010) == CFI_MALFORMED);
	/* FDEs that reach outside the declared text. */
	s.c.stack.config.text.end = 0x80203008;
	CHECK(find_status(&s, 0x80203000) == CFI_MALFORMED);
	s.c.stack.config.text.start = 0x80201004;
	CHECK(find_status(&s, 0x80201008) == CFI_MALFORMED);
	end_case(&s.c);
}

/*
 * The walk's FDE lookup (a CIE cache) reads the FDE with parse_fde's
 * instance that makes no call where it can (GCC's header: the bytes above,
 * pcrel sdata4, 'z' data of less than 128 bytes, the cached CIE), else
 * with the instance that may (a two-byte augmentation length, a CIE not
 * cached yet); both must give the same result. Each case here first reads
 * the good FDE, which puts its CIE in the cache, then patches the header
 * and reads it again: the result must be the general parse's, whose values
 * come from readelf's decoding above and the LSB's FDE layout. 128 bytes of
 * DW_CFA_nop follow the FDE, room for a longer one.
 */
struct common_header_case {
	struct cfi_case c;
	struct tracer_fde_entry entry;
	struct tracer_fde_index index;
	struct tracer_cie cache;
	uintptr_t start; /* the FDE's pc_begin */
};

/* The case over `bytes`, whose FDE (at offset `fde`) starts its function at
 * 0x5c before its pc_begin field (at `pc_field`), as GCC's does. */
static void build_fde_case(struct common_header_case *h, const uint8_t *bytes,
			   size_t size, size_t fde, size_t pc_field)
{
	static const uint8_t nops[128];

	fake_stack_init(&h->c.stack);
	fake_cfi_init(&h->c.cfi);
	fake_cfi_bytes(&h->c.cfi, bytes, size);
	fake_cfi_bytes(&h->c.cfi, nops, sizeof(nops));
	fake_cfi_seal(&h->c.cfi, &h->c.stack.config);
	h->start = fake_cfi_addr(&h->c.cfi, pc_field) - 0x5c;
	h->c.stack.config.text = (struct tracer_range){h->start, h->start + 0x1000};
	h->entry.pc_start = h->start;
	h->entry.fde = fake_cfi_addr(&h->c.cfi, fde);
	fake_fde_index_fill(&h->index, &h->entry, 1, h->c.stack.config.eh_frame);
	h->c.stack.config.fde_index = &h->index;
	fake_tables_anywhere(&h->c.stack.config);
	h->cache.address = UINTPTR_MAX;
}

static void build_common_header(struct common_header_case *h)
{
	build_fde_case(h, gcc_eh_frame, sizeof(gcc_eh_frame), GCC_FDE, GCC_PC_FIELD);
}

/* Finds the FDE of start + 0x10 with the cache: the good one first. */
static enum cfi_status find_cached(struct common_header_case *h, struct cfi_fde *fde)
{
	return cfi_find_fde(&h->c.stack.config, h->start + 0x10, &h->cache, fde);
}

static bool is_gcc_fde(const struct common_header_case *h, const struct cfi_fde *fde,
		       size_t instructions, size_t end)
{
	return fde->pc_start == h->start && fde->pc_end == h->start + 0x3c &&
	       fde->instructions == fake_cfi_addr(&h->c.cfi, instructions) &&
	       fde->end == fake_cfi_addr(&h->c.cfi, end);
}

static void put_u32(struct common_header_case *h, size_t offset, uint32_t value)
{
	memcpy(h->c.cfi.block + offset, &value, sizeof(value));
}

void cfi_find_fde_common_header(void)
{
	struct common_header_case h;
	struct cfi_fde fde;

	/* Read twice: through the parse that fills the cache, then not. */
	build_common_header(&h);
	CHECK(find_cached(&h, &fde) == CFI_OK && is_gcc_fde(&h, &fde, 0x25, 0x3c));
	CHECK(h.cache.address == fake_cfi_addr(&h.c.cfi, 0));
	CHECK(find_cached(&h, &fde) == CFI_OK && is_gcc_fde(&h, &fde, 0x25, 0x3c));
	/* Augmentation data longer than the FDE (0x7f bytes of 0x17). */
	h.c.cfi.block[0x24] = 0x7f;
	CHECK(find_cached(&h, &fde) == CFI_MALFORMED);
	/* A two-byte augmentation length (0x81 0x00: 1) in an FDE grown by the
	 * 128 nops: its instructions start after that byte, at 0x27. */
	h.c.cfi.block[0x24] = 0x81;
	h.c.cfi.block[0x25] = 0x00;
	put_u32(&h, GCC_FDE, 0x24 + 128);
	CHECK(find_cached(&h, &fde) == CFI_OK && is_gcc_fde(&h, &fde, 0x27, 0x3c + 128));
	/* A length one byte past the end of the section. */
	h.c.cfi.block[0x24] = 0x00;
	put_u32(&h, GCC_FDE, 0x24 + 129);
	CHECK(find_cached(&h, &fde) == CFI_MALFORMED);
	end_case(&h.c);

	/* A range of -1: the FDE would end below its start. */
	build_common_header(&h);
	CHECK(find_cached(&h, &fde) == CFI_OK);
	put_u32(&h, GCC_PC_FIELD + 4, 0xffffffff);
	CHECK(find_cached(&h, &fde) == CFI_MALFORMED);
	end_case(&h.c);

	/* A CIE pointer to the FDE itself (4: its own length field), then to
	 * before the section: no CIE there. */
	build_common_header(&h);
	CHECK(find_cached(&h, &fde) == CFI_OK);
	put_u32(&h, GCC_FDE + 4, 4);
	CHECK(find_cached(&h, &fde) == CFI_MALFORMED);
	put_u32(&h, GCC_FDE + 4, GCC_FDE + 8);
	CHECK(find_cached(&h, &fde) == CFI_MALFORMED);
	end_case(&h.c);
}

/*
 * GCC's CIE and FDE where the walk's instance of the parser, which makes no
 * call, hands the FDE to the one that may: two bytes into the section (its
 * fields unaligned), with a 64-bit length, and with datarel pointers. Each
 * is read twice, the CIE cached the second time. The values are the gcc
 * case's, moved as the LSB's layout moves them.
 */
void cfi_find_fde_needing_calls(void)
{
	/* The 64-bit FDE: 0xffffffff, an 8-byte length (0x28: the 8-byte CIE
	 * pointer, 8 bytes of pc fields, the 24 bytes from the augmentation
	 * length on), an 8-byte CIE pointer (0x20: back from its field to
	 * offset 0); pc_begin at 0x28, instructions from 0x31 to 0x48. */
	static const uint8_t fde64[] = {
	    0xff, 0xff, 0xff, 0xff, 0x28, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0xa4, 0xff, 0xff, 0xff, 0x3c, 0x00, 0x00, 0x00,
	};
	uint8_t bytes[sizeof(gcc_eh_frame) + sizeof(fde64)] = {0};
	struct common_header_case h;
	struct cfi_fde fde;

	/* Two bytes into the section. */
	memcpy(bytes + 2, gcc_eh_frame, sizeof(gcc_eh_frame));
	build_fde_case(&h, bytes, 2 + sizeof(gcc_eh_frame), 2 + GCC_FDE,
		       2 + GCC_PC_FIELD);
	CHECK(h.entry.fde % 4 != 0);
	CHECK(find_cached(&h, &fde) == CFI_OK &&
	      is_gcc_fde(&h, &fde, 2 + 0x25, 2 + 0x3c));
	CHECK(h.cache.address == fake_cfi_addr(&h.c.cfi, 2));
	CHECK(find_cached(&h, &fde) == CFI_OK &&
	      is_gcc_fde(&h, &fde, 2 + 0x25, 2 + 0x3c));
	end_case(&h.c);

	/* The 64-bit FDE after the CIE. */
	memcpy(bytes, gcc_eh_frame, GCC_FDE);
	memcpy(bytes + GCC_FDE, fde64, sizeof(fde64));
	memcpy(bytes + GCC_FDE + sizeof(fde64), gcc_eh_frame + 0x24,
	       sizeof(gcc_eh_frame) - 0x24);
	build_fde_case(&h, bytes, 0x48, GCC_FDE, 0x28);
	CHECK(find_cached(&h, &fde) == CFI_OK && is_gcc_fde(&h, &fde, 0x31, 0x48));
	CHECK(h.cache.address == fake_cfi_addr(&h.c.cfi, 0));
	CHECK(find_cached(&h, &fde) == CFI_OK && is_gcc_fde(&h, &fde, 0x31, 0x48));
	end_case(&h.c);

	/* DW_EH_PE_datarel | sdata4 (0x3b): pc_begin from the section's start,
	 * -0x40 (0x1c - 0x5c), the same function. */
	memcpy(bytes, gcc_eh_frame, sizeof(gcc_eh_frame));
	bytes[0x10] = 0x3b;
	bytes[GCC_PC_FIELD] = 0xc0;
	build_fde_case(&h, bytes, sizeof(gcc_eh_frame), GCC_FDE, GCC_PC_FIELD);
	CHECK(find_cached(&h, &fde) == CFI_OK && is_gcc_fde(&h, &fde, 0x25, 0x3c));
	CHECK(h.cache.fde_encoding == 0x3b);
	CHECK(find_cached(&h, &fde) == CFI_OK && is_gcc_fde(&h, &fde, 0x25, 0x3c));
	end_case(&h.c);
}

/*
 * A walk's rows (cfi_row_at_cached, the CIE's initial row cached): at every
 * pc of GCC's FDE above, the row readelf gives, whether the CIE's row was
 * cached yet or not; then ops GCC's FDE lacks after its final nop (once
 * the regression inputs of the common ops' loop, which handed such ops to
 * a second interpreter).
 */
static enum cfi_status walk_row(struct common_header_case *h, const struct cfi_fde *fde,
				uintptr_t pc, struct cfi_row *row)
{
	return cfi_row_at_cached(&h->c.stack.config, fde, &h->cache, pc, row);
}

void cfi_row_cached_every_pc(void)
{
	struct common_header_case h;
	struct cfi_fde fde;
	struct cfi_row row;
	size_t expected = 0;

	build_common_header(&h);
	CHECK(find_cached(&h, &fde) == CFI_OK);
	for (uintptr_t offset = 0; offset < 0x3c; offset++) {
		while (expected + 1 < sizeof(gcc_rows) / sizeof(gcc_rows[0]) &&
		       gcc_rows[expected + 1].offset <= offset)
			expected++;
		/* Twice: the first run may fill the cache, the second reads it. */
		for (int run = 0; run < 2; run++) {
			CHECK_ROW(walk_row(&h, &fde, h.start + offset, &row) == CFI_OK,
				  offset);
			CHECK_ROW(is_gcc_row(&row, &gcc_rows[expected]), offset);
		}
		CHECK_ROW(h.cache.initial_known, offset);
	}
	/* DW_CFA_offset_extended after the nop, changing the last row:
	 * DW_CFA_offset_extended s1 (9), 2 x -4 = -8. The FDE grows by its 3
	 * bytes (into the nops). */
	h.c.cfi.block[0x3c] = 0x05;
	h.c.cfi.block[0x3d] = REG_S1;
	h.c.cfi.block[0x3e] = 0x02;
	put_u32(&h, GCC_FDE, 0x24 + 3);
	CHECK(find_cached(&h, &fde) == CFI_OK &&
	      fde.end == fake_cfi_addr(&h.c.cfi, 0x3f));
	CHECK(walk_row(&h, &fde, h.start + 0x3b, &row) == CFI_OK);
	CHECK(is_gcc_row(&row, &gcc_rows[6]) &&
	      has_rule(&row, REG_S1, CFI_RULE_OFFSET, -8));
	CHECK(walk_row(&h, &fde, h.start + 0x39, &row) == CFI_OK);
	CHECK(is_gcc_row(&row, &gcc_rows[5]) && cfi_row_rule(&row, REG_S1).kind == 0);
	/* An advance past the end of the address space, from the last row:
	 * malformed. */
	h.c.cfi.block[0x3b] = 0x7f; /* advance_loc 63 in place of the nop */
	fde.pc_end = UINTPTR_MAX;
	CHECK(walk_row(&h, &fde, h.start + 0x3a, &row) == CFI_OK);
	fde.pc_start = UINTPTR_MAX - 0x3c;
	CHECK(walk_row(&h, &fde, UINTPTR_MAX - 2, &row) == CFI_MALFORMED);
	end_case(&h.c);
}

/* ---- call frame instructions (DWARF 5 section 6.4.2) ---- */

/* Operands: register number 8, non-factored offset 16. */
void cfi_op_def_cfa(void)
{
	struct cfi_case c;
	struct cfi_row row;

	begin_case(&c);
	FAKE_CFI(&c.cfi, CFA_def_cfa, REG_S0, 16);
	CHECK(first_row(&c, &row) == CFI_OK);
	CHECK(cfa_is(&row, REG_S0, 16));
	end_case(&c);
}

/* Factored: SLEB 7e = -2, times data alignment -4 = 8. */
void cfi_op_def_cfa_sf(void)
{
	struct cfi_case c;
	struct cfi_row row;

	begin_case(&c);
	FAKE_CFI(&c.cfi, CFA_def_cfa_sf, REG_S0, 0x7e);
	CHECK(first_row(&c, &row) == CFI_OK);
	CHECK(cfa_is(&row, REG_S0, 8));
	end_case(&c);
}

/* New register, old offset (CIE: sp + 32). */
void cfi_op_def_cfa_register(void)
{
	struct cfi_case c;
	struct cfi_row row;

	begin_cie(&c, 1);
	FAKE_CFI(&c.cfi, CFA_def_cfa, REG_SP, 32);
	begin_fde(&c);
	FAKE_CFI(&c.cfi, CFA_def_cfa_register, REG_S0);
	CHECK(first_row(&c, &row) == CFI_OK);
	CHECK(cfa_is(&row, REG_S0, 32));
	end_case(&c);
}

/* New offset, non-factored: ULEB 90 01 = 0x10 + (1 << 7) = 144. */
void cfi_op_def_cfa_offset(void)
{
	struct cfi_case c;
	struct cfi_row row;

	begin_case(&c);
	FAKE_CFI(&c.cfi, CFA_def_cfa_offset, 0x90, 0x01);
	CHECK(first_row(&c, &row) == CFI_OK);
	CHECK(cfa_is(&row, REG_SP, 144));
	end_case(&c);
}

/* Factored: SLEB 7c = -4, times -4 = 16. */
void cfi_op_def_cfa_offset_sf(void)
{
	struct cfi_case c;
	struct cfi_row row;

	begin_case(&c);
	FAKE_CFI(&c.cfi, CFA_def_cfa_offset_sf, 0x7c);
	CHECK(first_row(&c, &row) == CFI_OK);
	CHECK(cfa_is(&row, REG_SP, 16));
	end_case(&c);
}

/* DW_CFA_offset keeps the register in its low 6 bits; the ULEB operand is
 * factored: 3 * -4 = -12, 2 * -4 = -8. */
void cfi_op_offset(void)
{
	struct cfi_case c;
	struct cfi_row row;

	begin_case(&c);
	FAKE_CFI(&c.cfi, CFA_offset | REG_S0, 3, CFA_offset | REG_RA, 2,
		 CFA_offset | REG_S11, 1);
	CHECK(first_row(&c, &row) == CFI_OK);
	CHECK(has_rule(&row, REG_S0, CFI_RULE_OFFSET, -12));
	CHECK(has_rule(&row, REG_RA, CFI_RULE_OFFSET, -8));
	CHECK(has_rule(&row, REG_S11, CFI_RULE_OFFSET, -4));
	CHECK(cfi_row_rule(&row, REG_S1).kind == 0);
	end_case(&c);
}

/* ULEB register (here s2 = 18, and s3 = 19 in two bytes, 93 00), ULEB
 * factored offset: 2 * -4 = -8, 3 * -4 = -12. */
/* GNU_negative_offset_extended s0, ULEB 2^63: does not fit a signed
 * offset, so it cannot be negated (undefined behaviour): malformed. */
void cfi_op_negative_offset_too_large(void)
{
	struct cfi_case c;
	struct cfi_row row;

	begin_case(&c);
	FAKE_CFI(&c.cfi, CFA_GNU_negative_offset_extended, 0x01, 0x80, 0x80, 0x80, 0x80,
		 0x80, 0x80, 0x80, 0x80, 0x80, 0x01);
	CHECK(first_row(&c, &row) == CFI_MALFORMED);
	end_case(&c);
}

void cfi_op_offset_extended(void)
{
	struct cfi_case c;
	struct cfi_row row;

	begin_case(&c);
	FAKE_CFI(&c.cfi, CFA_offset_extended, REG_S2, 2, CFA_offset_extended, 0x93, 0x00,
		 3);
	CHECK(first_row(&c, &row) == CFI_OK);
	CHECK(has_rule(&row, REG_S2, CFI_RULE_OFFSET, -8));
	CHECK(has_rule(&row, REG_S3, CFI_RULE_OFFSET, -12));
	end_case(&c);
}

/* SLEB factored offset: 7e = -2, times -4 = +8. */
void cfi_op_offset_extended_sf(void)
{
	struct cfi_case c;
	struct cfi_row row;

	begin_case(&c);
	FAKE_CFI(&c.cfi, CFA_offset_extended_sf, REG_S1, 0x7e);
	CHECK(first_row(&c, &row) == CFI_OK);
	CHECK(has_rule(&row, REG_S1, CFI_RULE_OFFSET, 8));
	end_case(&c);
}

/* val_offset: ULEB 2 * -4 = -8; val_offset_sf: SLEB 7f = -1, * -4 = 4. */
void cfi_op_val_offset(void)
{
	struct cfi_case c;
	struct cfi_row row;

	begin_case(&c);
	FAKE_CFI(&c.cfi, CFA_val_offset, REG_S0, 2, CFA_val_offset_sf, REG_S1, 0x7f);
	CHECK(first_row(&c, &row) == CFI_OK);
	CHECK(has_rule(&row, REG_S0, CFI_RULE_VAL_OFFSET, -8));
	CHECK(has_rule(&row, REG_S1, CFI_RULE_VAL_OFFSET, 4));
	end_case(&c);
}

void cfi_op_register_undefined_same_value(void)
{
	struct cfi_case c;
	struct cfi_row row;

	begin_case(&c);
	FAKE_CFI(&c.cfi, CFA_register, REG_S0, REG_S1, CFA_undefined, REG_RA,
		 CFA_same_value, REG_S2);
	CHECK(first_row(&c, &row) == CFI_OK);
	CHECK(has_rule(&row, REG_S0, CFI_RULE_REGISTER, REG_S1));
	CHECK(cfi_row_rule(&row, REG_RA).kind == CFI_RULE_UNDEFINED);
	CHECK(cfi_row_rule(&row, REG_S2).kind == CFI_RULE_SAME_VALUE);
	end_case(&c);
}

/* A later rule for the same column replaces the earlier one. */
void cfi_op_rule_replaced(void)
{
	struct cfi_case c;
	struct cfi_row row;

	begin_case(&c);
	FAKE_CFI(&c.cfi, CFA_offset | REG_S0, 1, CFA_undefined, REG_S0,
		 CFA_offset | REG_S0, 4);
	CHECK(first_row(&c, &row) == CFI_OK);
	CHECK(has_rule(&row, REG_S0, CFI_RULE_OFFSET, -16));
	end_case(&c);
}

/*
 * restore and restore_extended: back to the CIE's rule for the column (s0
 * at CFA - 8: 2 * -4), or to none if the CIE gave none (s1).
 */
void cfi_op_restore(void)
{
	for (int extended = 0; extended < 2; extended++) {
		struct cfi_case c;
		struct cfi_row row;

		begin_cie(&c, 1);
		FAKE_CFI(&c.cfi, CFA_def_cfa, REG_SP, 0, CFA_offset | REG_S0, 2);
		begin_fde(&c);
		FAKE_CFI(&c.cfi, CFA_offset | REG_S0, 4, CFA_offset | REG_S1, 3);
		if (extended)
			FAKE_CFI(&c.cfi, CFA_restore_extended, REG_S0,
				 CFA_restore_extended, REG_S1);
		else
			FAKE_CFI(&c.cfi, CFA_restore | REG_S0, CFA_restore | REG_S1);
		CHECK(first_row(&c, &row) == CFI_OK);
		CHECK(has_rule(&row, REG_S0, CFI_RULE_OFFSET, -8));
		CHECK(cfi_row_rule(&row, REG_S1).kind == 0);
		end_case(&c);
	}
}

/*
 * remember_state pushes the rules, restore_state pops them. GCC brackets
 * an epilogue's CFI with them and relies on the CFA coming back too
 * (libgcc and LLVM libunwind keep the CFA rule in the saved state).
 */
void cfi_op_remember_restore_state(void)
{
	struct cfi_case c;
	struct cfi_row row;

	begin_case(&c);
	FAKE_CFI(&c.cfi, CFA_def_cfa_offset, 32, CFA_offset | REG_S0, 2,
		 CFA_remember_state, CFA_offset | REG_S0, 4, CFA_offset | REG_S1, 2,
		 CFA_def_cfa_offset, 0, CFA_advance_loc | 4, CFA_restore_state);
	CHECK(finish_case(&c) == CFI_OK);
	/* Between the two: the changed rules. */
	CHECK(row_at(&c, TEST_PC + 3, &row) == CFI_OK);
	CHECK(has_rule(&row, REG_S0, CFI_RULE_OFFSET, -16));
	CHECK(has_rule(&row, REG_S1, CFI_RULE_OFFSET, -8));
	CHECK(cfa_is(&row, REG_SP, 0));
	/* After restore_state: the remembered ones. */
	CHECK(row_at(&c, TEST_PC + 4, &row) == CFI_OK);
	CHECK(has_rule(&row, REG_S0, CFI_RULE_OFFSET, -8));
	CHECK(cfi_row_rule(&row, REG_S1).kind == 0);
	CHECK(cfa_is(&row, REG_SP, 32));
	end_case(&c);
}

/* CFI_STATE_DEPTH nested remember_states fit; one more is unsupported. */
void cfi_op_remember_state_depth(void)
{
	for (int extra = 0; extra < 2; extra++) {
		struct cfi_case c;
		struct cfi_row row;

		begin_case(&c);
		for (int i = 0; i < CFI_STATE_DEPTH + extra; i++)
			FAKE_CFI(&c.cfi, CFA_remember_state, CFA_def_cfa_offset,
				 (uint8_t)(8 * (i + 1)));
		for (int i = 0; i < CFI_STATE_DEPTH + extra; i++)
			FAKE_CFI(&c.cfi, CFA_restore_state);
		CHECK(first_row(&c, &row) == (extra ? CFI_UNSUPPORTED : CFI_OK));
		if (!extra)
			CHECK(cfa_is(&row, REG_SP, 0));
		end_case(&c);
	}
}

void cfi_op_restore_state_empty(void)
{
	struct cfi_case c;
	struct cfi_row row;

	begin_case(&c);
	FAKE_CFI(&c.cfi, CFA_remember_state, CFA_restore_state, CFA_restore_state);
	CHECK(first_row(&c, &row) == CFI_MALFORMED);
	end_case(&c);
}

/*
 * GNU_args_size (ULEB) changes no rule. GNU_negative_offset_extended:
 * ULEB register, ULEB offset, negated then factored: -(2) * -4 = +8.
 * nop does nothing.
 */
void cfi_op_gnu_and_nop(void)
{
	struct cfi_case c;
	struct cfi_row row;

	begin_case(&c);
	FAKE_CFI(&c.cfi, CFA_nop, CFA_GNU_args_size, 0x90, 0x01,
		 CFA_GNU_negative_offset_extended, REG_S0, 2, CFA_nop, CFA_nop);
	CHECK(first_row(&c, &row) == CFI_OK);
	CHECK(cfa_is(&row, REG_SP, 0));
	CHECK(has_rule(&row, REG_S0, CFI_RULE_OFFSET, 8));
	CHECK(rule_count(&row) == 1);
	end_case(&c);
}

/*
 * Expressions: the rule's value is the offset, from the start of
 * .eh_frame, of the block's ULEB length (opcode and register come first).
 *   expression s0:     10 08 | 02 78 10       (breg8 +16)
 *   val_expression s1: 16 09 | 01 30          (lit0)
 *   def_cfa_expression: 0f   | 02 72 00       (breg2 +0)
 */
void cfi_op_expressions(void)
{
	struct cfi_case c;
	struct cfi_row row;
	size_t at;

	begin_case(&c);
	at = c.cfi.size;
	FAKE_CFI(&c.cfi, CFA_expression, REG_S0, 2, OP_breg0 + REG_S0, 0x10,
		 CFA_val_expression, REG_S1, 1, OP_lit0, CFA_def_cfa_expression, 2,
		 OP_breg0 + REG_SP, 0);
	CHECK(first_row(&c, &row) == CFI_OK);
	CHECK(has_rule(&row, REG_S0, CFI_RULE_EXPRESSION, (int32_t)(at + 2)));
	CHECK(has_rule(&row, REG_S1, CFI_RULE_VAL_EXPRESSION, (int32_t)(at + 7)));
	CHECK(row.cfa_kind == CFI_CFA_EXPRESSION && row.cfa_offset == (int32_t)(at + 10));
	end_case(&c);
}

/*
 * Advances and the row at a pc: a row applies from its location up to the
 * next one. Code alignment 1; the FDE:
 *   def_cfa_offset 16          loc P
 *   advance_loc 1      (41)    loc P + 1:      def_cfa_offset 32
 *   advance_loc1 5     (02 05) loc P + 6:      def_cfa_offset 48
 *   advance_loc2 0x123 (03 23 01) P + 0x129:   def_cfa_offset 64
 *   advance_loc4 0x800 (04 00 08 00 00) P + 0x929: def_cfa_offset 80
 */
void cfi_op_advance_loc(void)
{
	static const struct {
		uintptr_t pc;
		int32_t cfa_offset;
	} rows[] = {
	    {0, 16},	 {1, 32},     {5, 32},
	    {6, 48},	 {0x128, 48}, {0x129, 64},
	    {0x928, 64}, {0x929, 80}, {TEST_RANGE - 1, 80},
	};
	struct cfi_case c;
	struct cfi_row row;

	begin_case(&c);
	FAKE_CFI(&c.cfi, CFA_def_cfa_offset, 16, CFA_advance_loc | 1, CFA_def_cfa_offset,
		 32, CFA_advance_loc1, 5, CFA_def_cfa_offset, 48, CFA_advance_loc2, 0x23,
		 0x01, CFA_def_cfa_offset, 64, CFA_advance_loc4, 0x00, 0x08, 0x00, 0x00,
		 CFA_def_cfa_offset, 80);
	CHECK(finish_case(&c) == CFI_OK);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		CHECK_ROW(row_at(&c, TEST_PC + rows[i].pc, &row) == CFI_OK, i);
		CHECK_ROW(cfa_is(&row, REG_SP, rows[i].cfa_offset), i);
	}
	end_case(&c);
}

/* Deltas are factored by the code alignment, here 4: advance_loc 2 = 8
 * bytes, advance_loc1 3 = 12 more. */
void cfi_op_advance_code_alignment(void)
{
	struct cfi_case c;
	struct cfi_row row;

	begin_cie(&c, 4);
	FAKE_CFI(&c.cfi, CFA_def_cfa, REG_SP, 0);
	begin_fde(&c);
	FAKE_CFI(&c.cfi, CFA_advance_loc | 2, CFA_def_cfa_offset, 16, CFA_advance_loc1, 3,
		 CFA_def_cfa_offset, 32);
	CHECK(finish_case(&c) == CFI_OK);
	CHECK(row_at(&c, TEST_PC + 7, &row) == CFI_OK && cfa_is(&row, REG_SP, 0));
	CHECK(row_at(&c, TEST_PC + 8, &row) == CFI_OK && cfa_is(&row, REG_SP, 16));
	CHECK(row_at(&c, TEST_PC + 19, &row) == CFI_OK && cfa_is(&row, REG_SP, 16));
	CHECK(row_at(&c, TEST_PC + 20, &row) == CFI_OK && cfa_is(&row, REG_SP, 32));
	end_case(&c);
}

/* set_loc's address is encoded with R (udata8 here). DWARF 5 6.4.2.1: "The
 * new location value is always greater than the current one": going back
 * (0x40, then 0x30) is malformed. */
void cfi_op_set_loc(void)
{
	struct cfi_case c;
	struct cfi_row row;

	begin_case(&c);
	FAKE_CFI(&c.cfi, CFA_set_loc);
	fake_cfi_unsigned(&c.cfi, TEST_PC + 0x40, 8);
	FAKE_CFI(&c.cfi, CFA_def_cfa_offset, 64, CFA_set_loc);
	fake_cfi_unsigned(&c.cfi, TEST_PC + 0x30, 8);
	CHECK(finish_case(&c) == CFI_OK);
	CHECK(row_at(&c, TEST_PC + 0x3f, &row) == CFI_OK && cfa_is(&row, REG_SP, 0));
	CHECK(row_at(&c, TEST_PC + 0x40, &row) == CFI_MALFORMED);
	end_case(&c);
	begin_case(&c);
	FAKE_CFI(&c.cfi, CFA_set_loc);
	fake_cfi_unsigned(&c.cfi, TEST_PC + 0x40, 8);
	FAKE_CFI(&c.cfi, CFA_def_cfa_offset, 64);
	CHECK(finish_case(&c) == CFI_OK);
	CHECK(row_at(&c, TEST_PC + 0x40, &row) == CFI_OK && cfa_is(&row, REG_SP, 64));
	end_case(&c);
}

/* Instructions after the advance that passes pc are not run: a bad opcode
 * there matters only to pcs beyond it. */
void cfi_row_stops_at_pc(void)
{
	struct cfi_case c;
	struct cfi_row row;

	begin_case(&c);
	FAKE_CFI(&c.cfi, CFA_def_cfa_offset, 16, CFA_advance_loc | 2, CFA_hi_user);
	CHECK(finish_case(&c) == CFI_OK);
	CHECK(row_at(&c, TEST_PC + 1, &row) == CFI_OK && cfa_is(&row, REG_SP, 16));
	CHECK(row_at(&c, TEST_PC + 2, &row) == CFI_UNSUPPORTED);
	end_case(&c);
}

/* Opcodes DWARF 5 does not define (0x17-0x1b), vendor ranges this unwinder
 * does not know (lo_user, GNU_window_save, hi_user). */
void cfi_op_unknown(void)
{
	static const uint8_t opcodes[] = {0x17, 0x1b, CFA_lo_user, CFA_GNU_window_save,
					  CFA_hi_user};

	for (size_t i = 0; i < sizeof(opcodes); i++) {
		struct cfi_case c;
		struct cfi_row row;

		begin_case(&c);
		FAKE_CFI(&c.cfi, opcodes[i]);
		CHECK_ROW(first_row(&c, &row) == CFI_UNSUPPORTED, i);
		end_case(&c);
	}
}

/*
 * An instruction cut off by the end of its FDE. The section goes on after
 * the FDE (another FDE, then zeros), so reading on would find bytes: only
 * the FDE's own end can tell. Each row: the FDE's last bytes.
 */
static const struct truncated_op {
	uint8_t bytes[8];
	size_t size;
} truncated_ops[] = {
    {{CFA_advance_loc1}, 1},
    {{CFA_advance_loc2, 0x01}, 2},
    {{CFA_advance_loc4, 0x01, 0x00, 0x00}, 4},
    {{CFA_set_loc, 0, 0, 0, 0, 0, 0, 0}, 8},
    {{CFA_offset | REG_S0}, 1},
    {{CFA_offset_extended, REG_S0}, 2},
    {{CFA_offset_extended_sf, REG_S0}, 2},
    {{CFA_restore_extended}, 1},
    {{CFA_undefined}, 1},
    {{CFA_same_value}, 1},
    {{CFA_register, REG_S0}, 2},
    {{CFA_def_cfa, REG_S0}, 2},
    {{CFA_def_cfa, REG_S0, 0x90}, 3}, /* ULEB without its last byte */
    {{CFA_def_cfa_sf, REG_S0}, 2},
    {{CFA_def_cfa_register}, 1},
    {{CFA_def_cfa_offset}, 1},
    {{CFA_def_cfa_offset_sf}, 1},
    {{CFA_val_offset, REG_S0}, 2},
    {{CFA_val_offset_sf, REG_S0}, 2},
    {{CFA_GNU_args_size}, 1},
    {{CFA_GNU_negative_offset_extended, REG_S0}, 2},
    {{CFA_expression, REG_S0}, 2},
    {{CFA_expression, REG_S0, 5, OP_lit0}, 4}, /* block of 5, 1 present */
    {{CFA_val_expression, REG_S0, 2, OP_lit0}, 4},
    {{CFA_def_cfa_expression, 3, OP_breg0 + REG_SP}, 3},
};

void cfi_op_truncated(void)
{
	for (size_t i = 0; i < sizeof(truncated_ops) / sizeof(truncated_ops[0]); i++) {
		struct cfi_case c;
		struct cfi_row row;
		size_t next;

		begin_case(&c);
		fake_cfi_bytes(&c.cfi, truncated_ops[i].bytes, truncated_ops[i].size);
		fake_cfi_end(&c.cfi);
		add_fde(&c.cfi, c.cie, TEST_PC + TEST_RANGE, 0x10, &next);
		fake_cfi_unsigned(&c.cfi, 0, 8);
		fake_cfi_seal(&c.cfi, &c.stack.config);
		CHECK_ROW(cfi_parse_fde(&c.stack.config, fake_cfi_addr(&c.cfi, c.fde),
					&c.parsed) == CFI_OK,
			  i);
		CHECK_ROW(row_at(&c, TEST_PC, &row) == CFI_MALFORMED, i);
		end_case(&c);
	}
}

/* The same in the CIE's initial instructions: def_cfa without its offset,
 * with the FDE's bytes right after. */
void cfi_op_truncated_in_cie(void)
{
	struct cfi_case c;
	struct cfi_row row;

	begin_cie(&c, 1);
	FAKE_CFI(&c.cfi, CFA_def_cfa, REG_SP);
	begin_fde(&c);
	FAKE_CFI(&c.cfi, CFA_def_cfa_offset, 16);
	CHECK(finish_case(&c) == CFI_OK);
	CHECK(row_at(&c, TEST_PC, &row) == CFI_MALFORMED);
	end_case(&c);
}

/*
 * Every column the walk restores has a slot, whatever else the CFI names:
 * rules for all columns 0-63 (each at -(column + 1) * 4, s0 set again many
 * times) leave ra, sp and s0-s11 with theirs, and the others (f registers,
 * t0, column 64 = 0x40) change nothing: the row equals the one without them.
 */
void cfi_op_rule_columns(void)
{
	static const unsigned kept[] = {REG_RA, REG_SP, REG_S0, REG_S1, 18, 19, 20,
					21,	22,	23,	24,	25, 26, REG_S11};
	struct cfi_case c;
	struct cfi_row row;
	struct cfi_row only_kept;

	for (int all = 0; all < 2; all++) {
		begin_case(&c);
		for (unsigned column = 0; column < 64; column++) {
			bool is_kept = false;

			for (unsigned i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
				is_kept |= kept[i] == column;
			if (all || is_kept)
				FAKE_CFI(&c.cfi, CFA_offset_extended, (uint8_t)column,
					 (uint8_t)(column + 1));
		}
		for (int i = 0; i < 64; i++)
			FAKE_CFI(&c.cfi, CFA_offset | REG_S0, REG_S0 + 1);
		if (all)
			FAKE_CFI(&c.cfi, CFA_offset_extended, 0x80, 0x80, 0x04, 1);
		CHECK(first_row(&c, all ? &row : &only_kept) == CFI_OK);
		end_case(&c);
	}
	for (unsigned i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		CHECK_ROW(
		    has_rule(&row, kept[i], CFI_RULE_OFFSET, -(int32_t)(kept[i] + 1) * 4),
		    kept[i]);
	CHECK(rule_count(&row) == sizeof(kept) / sizeof(kept[0]));
	CHECK(cfa_is(&row, REG_SP, 0) && cfa_is(&only_kept, REG_SP, 0));
	for (unsigned slot = 0; slot < CFI_SLOTS; slot++)
		CHECK_ROW(cfi_row_kind(&row, slot) == cfi_row_kind(&only_kept, slot) &&
			      (cfi_row_kind(&row, slot) == 0 ||
			       row.values[slot] == only_kept.values[slot]),
			  slot);
}

/*
 * The CIE cache of a walk (cfi_row_at_cached) keeps the initial row only
 * when it is a CFA rule alone, the same at every pc: sp + 0 is kept and
 * taken on the next call; a CIE that advances (sp + 0 before TEST_PC + 4,
 * sp + 16 from there) or saves a register (s0 at CFA - 8) is run each time.
 */
void cfi_row_cie_cache(void)
{
	for (int cie = 0; cie < 3; cie++) {
		struct cfi_case c;
		struct tracer_cie cache;
		struct cfi_row row;

		begin_cie(&c, 1);
		FAKE_CFI(&c.cfi, CFA_def_cfa, REG_SP, 0);
		if (cie == 1)
			FAKE_CFI(&c.cfi, CFA_advance_loc | 4, CFA_def_cfa_offset, 16);
		if (cie == 2)
			FAKE_CFI(&c.cfi, CFA_offset | REG_S0, 2);
		begin_fde(&c);
		CHECK(finish_case(&c) == CFI_OK);
		cache = c.parsed.cie;
		CHECK(!cache.initial_known);
		/* Past the CIE's advance first, then before it. */
		CHECK(cfi_row_at_cached(&c.stack.config, &c.parsed, &cache, TEST_PC + 8,
					&row) == CFI_OK);
		CHECK(cfa_is(&row, REG_SP, cie == 1 ? 16 : 0));
		CHECK_ROW(cache.initial_known == (cie == 0), cie);
		c.parsed.cie = cache;
		CHECK(cfi_row_at_cached(&c.stack.config, &c.parsed, &cache, TEST_PC,
					&row) == CFI_OK);
		CHECK(cfa_is(&row, REG_SP, 0));
		CHECK_ROW(has_rule(&row, REG_S0, CFI_RULE_OFFSET, -8) == (cie == 2), cie);
		end_case(&c);
	}
}

/* Operands too large for the row: CFA register 0x10000 (ULEB 80 80 04)
 * does not fit its 16 bits, CFA offset 2^31 (ULEB 80 80 80 80 08) not its
 * int32. */
void cfi_op_operand_limits(void)
{
	struct cfi_case c;
	struct cfi_row row;

	begin_case(&c);
	FAKE_CFI(&c.cfi, CFA_advance_loc | 1, CFA_def_cfa, 0x80, 0x80, 0x04, 0);
	CHECK(finish_case(&c) == CFI_OK);
	CHECK(row_at(&c, TEST_PC, &row) == CFI_OK);
	CHECK(row_at(&c, TEST_PC + 1, &row) != CFI_OK);
	end_case(&c);
	begin_case(&c);
	FAKE_CFI(&c.cfi, CFA_def_cfa_offset, 0x80, 0x80, 0x80, 0x80, 0x08);
	CHECK(first_row(&c, &row) != CFI_OK);
	end_case(&c);
}

/*
 * Factors too large for a 6-bit delta or a one-byte offset to stay in
 * range: the row machine must still check what their products do.
 *   code alignment 2^62: advance_loc 4 is 2^64 bytes, past the address
 *     space: malformed;
 *   code alignment floor((2^64 - 1) / 63) = 0x0410410410410410 (63 of it
 *     still fit a word): advance_loc 63 is 0xfffffffffffffff0 bytes, which
 *     passes the pc but wraps from TEST_PC: malformed;
 *   data alignment -2^40 (SLEB 80 80 80 80 80 60): offset 2 is -2^41,
 *     beyond a row's int32: unsupported.
 */
void cfi_op_large_factors(void)
{
	static const uint64_t wide_code_aligns[] = {(uint64_t)1 << 62, UINT64_MAX / 63};
	static const uint8_t wide_deltas[] = {4, 63};
	struct cfi_case c;
	struct cfi_row row;

	if (sizeof(uintptr_t) < 8)
		return; /* the products are those of 64-bit words */
	for (size_t i = 0; i < 2; i++) {
		fake_stack_init(&c.stack);
		fake_cfi_init(&c.cfi);
		c.cie = fake_cfi_begin_cie(&c.cfi);
		FAKE_CFI(&c.cfi, 3, 'z', 'R', 0);
		fake_cfi_uleb(&c.cfi, wide_code_aligns[i]);
		FAKE_CFI(&c.cfi, 0x7c, REG_RA, 1, DW_EH_PE_udata8, CFA_def_cfa, REG_SP,
			 0);
		begin_fde(&c);
		FAKE_CFI(&c.cfi, CFA_advance_loc | wide_deltas[i], CFA_def_cfa_offset,
			 16);
		CHECK_ROW(finish_case(&c) == CFI_OK, i);
		CHECK_ROW(row_at(&c, TEST_PC, &row) == CFI_MALFORMED, i);
		end_case(&c);
	}
	fake_stack_init(&c.stack);
	fake_cfi_init(&c.cfi);
	c.cie = fake_cfi_begin_cie(&c.cfi);
	FAKE_CFI(&c.cfi, 3, 'z', 'R', 0, 1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x60, REG_RA, 1,
		 DW_EH_PE_udata8, CFA_def_cfa, REG_SP, 0);
	begin_fde(&c);
	FAKE_CFI(&c.cfi, CFA_offset | REG_S0, 2);
	CHECK(finish_case(&c) == CFI_OK);
	CHECK(c.parsed.cie.data_align == -((intptr_t)1 << 40));
	CHECK(row_at(&c, TEST_PC, &row) == CFI_UNSUPPORTED);
	end_case(&c);
}

/* No CFA rule at all: nothing to unwind with. */
void cfi_row_without_cfa(void)
{
	struct cfi_case c;
	struct cfi_row row;

	begin_cie(&c, 1);
	begin_fde(&c);
	FAKE_CFI(&c.cfi, CFA_offset | REG_RA, 2);
	CHECK(first_row(&c, &row) == CFI_MALFORMED);
	end_case(&c);
}

/* ---- DWARF expressions (DWARF 5 section 2.5; values section 7.7.1) ---- */

/* The registers expressions see. s_k = 0x1000 + 0x100 * k. */
static void expression_regs(struct fake_stack *s, struct tracer_regs *regs)
{
	memset(regs, 0, sizeof(*regs));
	regs->pc = TEST_PC;
	regs->ra = 0x80200abc;
	regs->sp = fake_addr(s, 100);
	for (unsigned k = 0; k < 12; k++)
		regs->s[k] = 0x1000 + 0x100 * k;
	fake_put(s, fake_addr(s, 100), 0xfeedface);
}

struct expression_case {
	uint8_t bytes[12]; /* ULEB length, then the ops */
	size_t size;
	bool push_initial; /* with initial 0x5000 */
	enum cfi_status status;
	uint64_t value;
};

/* The register values expression_regs sets, for expected results. */
#define RA   0x80200abcu
#define S(k) (0x1000u + 0x100u * (k))

static const struct expression_case expression_cases[] = {
    {{1, OP_lit0}, 2, false, CFI_OK, 0},
    {{1, OP_lit0 + 31}, 2, false, CFI_OK, 31},
    {{2, OP_const1u, 0xff}, 3, false, CFI_OK, 255},
    {{2, OP_const1s, 0xff}, 3, false, CFI_OK, (uint64_t)-1},
    {{3, OP_const2u, 0x34, 0x12}, 4, false, CFI_OK, 0x1234},
    {{3, OP_const2s, 0x00, 0x80}, 4, false, CFI_OK, (uint64_t)-32768},
    {{5, OP_const4u, 0x78, 0x56, 0x34, 0x12}, 6, false, CFI_OK, 0x12345678},
    {{5, OP_const4s, 0xfe, 0xff, 0xff, 0xff}, 6, false, CFI_OK, (uint64_t)-2},
    {{9, OP_const8u, 1, 2, 3, 4, 5, 6, 7, 8}, 10, false, CFI_OK, 0x0807060504030201},
    {{9, OP_const8s, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
     10,
     false,
     CFI_OK,
     (uint64_t)-1},
    {{3, OP_constu, 0xb9, 0x64}, 4, false, CFI_OK, 12857},
    {{3, OP_consts, 0x80, 0x7f}, 4, false, CFI_OK, (uint64_t)-128},
    /* lit3 dup plus = 6; lit1 lit2 drop = 1 */
    {{3, OP_lit0 + 3, OP_dup, OP_plus}, 4, false, CFI_OK, 6},
    {{3, OP_lit0 + 1, OP_lit0 + 2, OP_drop}, 4, false, CFI_OK, 1},
    /* minus: second minus top. lit5 lit2 over -> 5 2 5: 2 - 5 = -3 */
    {{4, OP_lit0 + 5, OP_lit0 + 2, OP_over, OP_minus}, 5, false, CFI_OK, (uint64_t)-3},
    /* lit7 lit2 swap -> 2 7: 2 - 7 = -5 */
    {{4, OP_lit0 + 7, OP_lit0 + 2, OP_swap, OP_minus}, 5, false, CFI_OK, (uint64_t)-5},
    {{3, OP_lit0 + 5, OP_lit0 + 2, OP_minus}, 4, false, CFI_OK, 3},
    {{3, OP_lit0 + 5, OP_lit0 + 2, OP_plus}, 4, false, CFI_OK, 7},
    /* plus_uconst ULEB 80 01 = 128 */
    {{4, OP_lit0 + 1, OP_plus_uconst, 0x80, 0x01}, 5, false, CFI_OK, 129},
    {{3, OP_lit0 + 6, OP_lit0 + 7, OP_mul}, 4, false, CFI_OK, 42},
    /* 12 = 1100b, 10 = 1010b: and 1000b, or 1110b, xor 0110b */
    {{3, OP_lit0 + 12, OP_lit0 + 10, OP_and}, 4, false, CFI_OK, 8},
    {{3, OP_lit0 + 12, OP_lit0 + 10, OP_or}, 4, false, CFI_OK, 14},
    {{3, OP_lit0 + 12, OP_lit0 + 10, OP_xor}, 4, false, CFI_OK, 6},
    {{2, OP_lit0 + 5, OP_neg}, 3, false, CFI_OK, (uint64_t)-5},
    {{2, OP_lit0, OP_not}, 3, false, CFI_OK, UINT64_MAX},
    /* shl/shr/shra: second shifted by top. -16 >> 2: logical
     * 0x3ffffffffffffffc, arithmetic -4. */
    {{3, OP_lit0 + 1, OP_lit0 + 4, OP_shl}, 4, false, CFI_OK, 16},
    {{4, OP_const1s, 0xf0, OP_lit0 + 2, OP_shr}, 5, false, CFI_OK, 0x3ffffffffffffffc},
    {{4, OP_const1s, 0xf0, OP_lit0 + 2, OP_shra}, 5, false, CFI_OK, (uint64_t)-4},
    /* breg: register plus SLEB (70 = -16, 80 01 = 128) */
    {{2, OP_breg0 + REG_RA, 4}, 3, false, CFI_OK, RA + 4},
    {{3, OP_breg0 + REG_S0, 0x80, 0x01}, 4, false, CFI_OK, S(0) + 128},
    {{2, OP_breg0 + REG_S1, 0x70}, 3, false, CFI_OK, S(1) - 16},
    {{2, OP_breg0 + REG_S2, 0}, 3, false, CFI_OK, S(2)},
    {{2, OP_breg0 + REG_S11, 1}, 3, false, CFI_OK, S(11) + 1},
    /* bregx: ULEB register 19 (s3), SLEB 7f = -1 */
    {{3, OP_bregx, REG_S3, 0x7f}, 4, false, CFI_OK, S(3) - 1},
    {{3, OP_nop, OP_lit0 + 1, OP_nop}, 4, false, CFI_OK, 1},
    /* The top of the stack is the result. */
    {{2, OP_lit0 + 1, OP_lit0 + 2}, 3, false, CFI_OK, 2},
    /* The initial value (0x5000) is pushed first. */
    {{2, OP_plus_uconst, 8}, 3, true, CFI_OK, 0x5008},
    {{0}, 1, true, CFI_OK, 0x5000},
    {{3, OP_lit0 + 1, OP_minus, OP_neg}, 4, true, CFI_OK, (uint64_t)-0x4fff},
    /* Registers tracer_regs does not hold: a0 (x10). */
    {{2, OP_breg0 + REG_A0, 0}, 3, false, CFI_UNSUPPORTED, 0},
    {{3, OP_bregx, REG_A0, 0}, 4, false, CFI_UNSUPPORTED, 0},
    /* Ops outside the subset (after two values, so none of them could
     * fail for want of operands instead). */
    {{3, OP_lit0 + 1, OP_lit0 + 1, OP_pick}, 4, false, CFI_UNSUPPORTED, 0},
    {{3, OP_lit0 + 1, OP_lit0 + 1, OP_rot}, 4, false, CFI_UNSUPPORTED, 0},
    {{3, OP_lit0 + 1, OP_lit0 + 1, OP_abs}, 4, false, CFI_UNSUPPORTED, 0},
    {{3, OP_lit0 + 1, OP_lit0 + 1, OP_div}, 4, false, CFI_UNSUPPORTED, 0},
    {{3, OP_lit0 + 1, OP_lit0 + 1, OP_mod}, 4, false, CFI_UNSUPPORTED, 0},
    {{3, OP_lit0 + 1, OP_lit0 + 1, OP_eq}, 4, false, CFI_UNSUPPORTED, 0},
    {{5, OP_lit0 + 1, OP_lit0 + 1, OP_bra, 0, 0}, 6, false, CFI_UNSUPPORTED, 0},
    {{5, OP_lit0 + 1, OP_lit0 + 1, OP_skip, 0, 0}, 6, false, CFI_UNSUPPORTED, 0},
    {{9, OP_addr, 0, 0, 0, 0, 0, 0, 0, 0}, 10, false, CFI_UNSUPPORTED, 0},
    {{3, OP_lit0 + 1, OP_lit0 + 1, OP_reg0 + REG_S0}, 4, false, CFI_UNSUPPORTED, 0},
    {{4, OP_lit0 + 1, OP_lit0 + 1, OP_regx, REG_S0}, 5, false, CFI_UNSUPPORTED, 0},
    {{4, OP_lit0 + 1, OP_lit0 + 1, OP_fbreg, 0}, 5, false, CFI_UNSUPPORTED, 0},
    {{4, OP_lit0 + 1, OP_lit0 + 1, OP_deref_size, 8}, 5, false, CFI_UNSUPPORTED, 0},
    {{3, OP_lit0 + 1, OP_lit0 + 1, OP_call_frame_cfa}, 4, false, CFI_UNSUPPORTED, 0},
    {{3, OP_lit0 + 1, OP_lit0 + 1, OP_stack_value}, 4, false, CFI_UNSUPPORTED, 0},
    {{3, OP_lit0 + 1, OP_lit0 + 1, 0xff}, 4, false, CFI_UNSUPPORTED, 0},
    /* Popping an empty stack; nothing left at the end. */
    {{1, OP_plus}, 2, false, CFI_MALFORMED, 0},
    {{2, OP_lit0 + 1, OP_plus}, 3, false, CFI_MALFORMED, 0},
    {{1, OP_drop}, 2, false, CFI_MALFORMED, 0},
    {{1, OP_dup}, 2, false, CFI_MALFORMED, 0},
    {{2, OP_lit0 + 1, OP_over}, 3, false, CFI_MALFORMED, 0},
    {{2, OP_lit0 + 1, OP_swap}, 3, false, CFI_MALFORMED, 0},
    {{1, OP_neg}, 2, false, CFI_MALFORMED, 0},
    {{1, OP_deref}, 2, false, CFI_MALFORMED, 0},
    {{2, OP_plus_uconst, 1}, 3, false, CFI_MALFORMED, 0},
    {{0}, 1, false, CFI_MALFORMED, 0},
    {{2, OP_lit0 + 1, OP_drop}, 3, false, CFI_MALFORMED, 0},
    /* CFI_EXPRESSION_STACK values fit; one more does not (0x31: lit1). */
    {{8, 0x31, 0x31, 0x31, 0x31, 0x31, 0x31, 0x31, 0x31}, 9, false, CFI_OK, 1},
    {{9, 0x31, 0x31, 0x31, 0x31, 0x31, 0x31, 0x31, 0x31, 0x31},
     10,
     false,
     CFI_UNSUPPORTED,
     0},
    {{8, 0x31, 0x31, 0x31, 0x31, 0x31, 0x31, 0x31, 0x31}, 9, true, CFI_UNSUPPORTED, 0},
    /* Operands cut off by the expression's length (more bytes follow
     * it in the section: see evaluate_case). */
    {{1, OP_const1u}, 2, false, CFI_MALFORMED, 0},
    {{2, OP_const2u, 0x34}, 3, false, CFI_MALFORMED, 0},
    {{1, OP_constu}, 2, false, CFI_MALFORMED, 0},
    {{2, OP_constu, 0x80}, 3, false, CFI_MALFORMED, 0},
    {{1, OP_breg0 + REG_SP}, 2, false, CFI_MALFORMED, 0},
    {{2, OP_bregx, REG_SP}, 3, false, CFI_MALFORMED, 0},
};

/* Lays out [a0 a0] expression [a0 a0 ...]: the trailing bytes are in the
 * section but not in the expression. */
static enum cfi_status evaluate_case(struct fake_stack *s, struct fake_cfi *cfi,
				     const uint8_t *bytes, size_t size, bool push_initial,
				     uintptr_t *result)
{
	struct tracer_regs regs;

	expression_regs(s, &regs);
	fake_cfi_init(cfi);
	FAKE_CFI(cfi, 0xa0, 0xa0);
	fake_cfi_bytes(cfi, bytes, size);
	FAKE_CFI(cfi, 0xa0, 0xa0, 0xa0, 0xa0, 0xa0, 0xa0, 0xa0, 0xa0);
	fake_cfi_seal(cfi, &s->config);
	return cfi_evaluate(&s->config, &s->range, fake_cfi_addr(cfi, 2), &regs,
			    push_initial, 0x5000, result);
}

void cfi_evaluate_ops(void)
{
	struct fake_stack s;
	struct fake_cfi cfi;

	fake_stack_init(&s);
	for (size_t i = 0; i < sizeof(expression_cases) / sizeof(expression_cases[0]);
	     i++) {
		const struct expression_case *e = &expression_cases[i];
		uintptr_t result = 0;

		CHECK_ROW(evaluate_case(&s, &cfi, e->bytes, e->size, e->push_initial,
					&result) == e->status,
			  i);
		if (e->status == CFI_OK)
			CHECK_ROW(result == (uintptr_t)e->value, i);
		fake_cfi_free(&cfi);
	}
	fake_stack_free(&s);
}

/* deref reads a word of the declared stack (sp + 0 holds 0xfeedface), and
 * nothing else: not the stack's end (412 words above sp = 3296 = SLEB
 * e0 19), not a misaligned address. */
void cfi_evaluate_deref(void)
{
	static const uint8_t inside[] = {3, OP_breg0 + REG_SP, 0, OP_deref};
	static const uint8_t at_end[] = {4, OP_breg0 + REG_SP, 0xe0, 0x19, OP_deref};
	static const uint8_t misaligned[] = {3, OP_breg0 + REG_SP, 4, OP_deref};
	struct fake_stack s;
	struct fake_cfi cfi;
	uintptr_t result;

	fake_stack_init(&s);
	CHECK(evaluate_case(&s, &cfi, inside, sizeof(inside), false, &result) == CFI_OK);
	CHECK(result == 0xfeedface);
	fake_cfi_free(&cfi);
	CHECK(evaluate_case(&s, &cfi, at_end, sizeof(at_end), false, &result) ==
	      CFI_UNREADABLE);
	fake_cfi_free(&cfi);
	CHECK(evaluate_case(&s, &cfi, misaligned, sizeof(misaligned), false, &result) ==
	      CFI_UNREADABLE);
	fake_cfi_free(&cfi);
	fake_stack_free(&s);
}

/*
 * Arithmetic is modulo 2^64 (DWARF 5 section 2.5.1: the generic type has
 * the size of an address): no undefined behaviour (UBSan aborts on it) for
 * overflowing products, the most negative number's negation, or shifts by
 * 64 or more (DWARF leaves those unspecified; whatever comes out, it must
 * not be UB; shl/shr by >= 64 give 0 when allowed, shra the sign).
 */
void cfi_evaluate_no_undefined_behaviour(void)
{
	static const struct {
		uint8_t bytes[12];
		size_t size;
		uint64_t value;
	} cases[] = {
	    /* 2^62 * 4 = 2^64 = 0 */
	    {{11, OP_const8u, 0, 0, 0, 0, 0, 0, 0, 0x40, OP_lit0 + 4, OP_mul}, 12, 0},
	    /* -(-2^63) = -2^63 */
	    {{10, OP_const8u, 0, 0, 0, 0, 0, 0, 0, 0x80, OP_neg}, 11, 0x8000000000000000},
	    /* (2^64 - 1) + 1 = 0 */
	    {{11, OP_const8s, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, OP_lit0 + 1,
	      OP_plus},
	     12,
	     0},
	    {{4, OP_lit0 + 1, OP_const1u, 64, OP_shl}, 5, 0},
	    {{4, OP_lit0 + 1, OP_const1u, 200, OP_shr}, 5, 0},
	    {{5, OP_const1s, 0xf0, OP_const1u, 64, OP_shra}, 6, UINT64_MAX},
	    {{4, OP_lit0 + 1, OP_const1s, 0xff, OP_shl}, 5, 0},
	};
	struct fake_stack s;
	struct fake_cfi cfi;

	fake_stack_init(&s);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uintptr_t result = 0;
		enum cfi_status status = evaluate_case(&s, &cfi, cases[i].bytes,
						       cases[i].size, false, &result);

		CHECK_ROW(status != CFI_OK || result == cases[i].value, i);
		fake_cfi_free(&cfi);
	}
	fake_stack_free(&s);
}

/* An expression whose length runs past the end of .eh_frame. */
void cfi_evaluate_past_section(void)
{
	struct fake_stack s;
	struct fake_cfi cfi;
	struct tracer_regs regs;
	uintptr_t result;

	fake_stack_init(&s);
	expression_regs(&s, &regs);
	fake_cfi_init(&cfi);
	FAKE_CFI(&cfi, 5, OP_lit0, OP_lit0);
	fake_cfi_seal(&cfi, &s.config);
	CHECK(cfi_evaluate(&s.config, &s.range, fake_cfi_addr(&cfi, 0), &regs, false, 0,
			   &result) == CFI_MALFORMED);
	/* A length that is itself cut off, and an address past the end. */
	CHECK(cfi_evaluate(&s.config, &s.range, fake_cfi_addr(&cfi, 3), &regs, false, 0,
			   &result) == CFI_MALFORMED);
	cfi.block[2] = 0x80;
	CHECK(cfi_evaluate(&s.config, &s.range, fake_cfi_addr(&cfi, 2), &regs, false, 0,
			   &result) == CFI_MALFORMED);
	fake_cfi_free(&cfi);
	fake_stack_free(&s);
}

/* Random expressions over random registers: any status, never a read
 * outside .eh_frame or the stack, never undefined behaviour. */
void cfi_random_expressions(void)
{
	struct fake_stack s;
	struct fake_cfi cfi;

	srand(4242);
	fake_stack_init(&s);
	for (int round = 0; round < 2000; round++) {
		struct tracer_regs regs;
		uint8_t bytes[24];
		size_t size = 1 + (size_t)rand() % sizeof(bytes);
		uintptr_t result;

		for (size_t i = 0; i < size; i++)
			bytes[i] = (uint8_t)rand();
		/* Mostly a plausible length, sometimes anything. */
		if (rand() % 4)
			bytes[0] = (uint8_t)(size - 1);
		expression_regs(&s, &regs);
		regs.sp = fake_addr(&s, (size_t)rand() % (FAKE_STACK_WORDS + 1));
		for (unsigned k = 0; k < 12; k++)
			regs.s[k] = rand() % 2 ? fake_addr(&s, (size_t)rand() % 600)
					       : (uintptr_t)rand() * 2654435761u;
		fake_cfi_init(&cfi);
		fake_cfi_bytes(&cfi, bytes, size);
		fake_cfi_seal(&cfi, &s.config);
		(void)cfi_evaluate(&s.config, &s.range, fake_cfi_addr(&cfi, 0), &regs,
				   rand() % 2, regs.sp, &result);
		fake_cfi_free(&cfi);
	}
	fake_stack_free(&s);
}

/* ---- registers ---- */

/* psABI DWARF numbers: ra x1, sp x2, s0-s1 x8-x9, s2-s11 x18-x27. */
void cfi_register_values(void)
{
	static const unsigned untracked[] = {0,	 3,  4,	 5,  7,	 REG_A0, 17,
					     28, 31, 32, 40, 64, 1000};
	struct tracer_regs regs;
	uintptr_t value;

	regs.pc = 1;
	regs.ra = 2;
	regs.sp = 3;
	for (unsigned k = 0; k < 12; k++)
		regs.s[k] = 100 + k;
	CHECK(cfi_register_value(&regs, REG_RA, &value) && value == 2);
	CHECK(cfi_register_value(&regs, REG_SP, &value) && value == 3);
	CHECK(cfi_register_value(&regs, REG_S0, &value) && value == 100);
	CHECK(cfi_register_value(&regs, REG_S1, &value) && value == 101);
	CHECK(cfi_register_value(&regs, REG_S2, &value) && value == 102);
	CHECK(cfi_register_value(&regs, REG_S3, &value) && value == 103);
	CHECK(cfi_register_value(&regs, REG_S11, &value) && value == 111);
	for (size_t i = 0; i < sizeof(untracked) / sizeof(untracked[0]); i++)
		CHECK_ROW(!cfi_register_value(&regs, untracked[i], &value), i);
}

/* A walk's search (cfi_find_walk_fde), set up as walk_begin does: for 3
 * entries floor(log2(3)) = 1 probe after the first, which is at entry
 * 3 - 2^1 = 1; for one entry, none after the first, at entry 0. */
static enum cfi_status walk_find(struct indexed_section *s, uint32_t levels,
				 uint32_t first_probe, uintptr_t pc, uintptr_t *start)
{
	struct tracer_walk walk;
	struct tracer_cie cie = {.address = UINTPTR_MAX};
	struct cfi_fde fde;
	enum cfi_status status;

	walk_of(&walk)->config = &s->c.stack.config;
	walk_of(&walk)->fde_searchable = true;
	walk_of(&walk)->fde_levels = levels;
	walk_of(&walk)->fde_first_probe = first_probe;
	status = cfi_find_walk_fde(walk_of(&walk), pc, &cie, &fde);
	*start = status == CFI_OK ? fde.pc_start : 0;
	return status;
}

void cfi_find_walk_fde_by_index(void)
{
	struct indexed_section s;
	uintptr_t start;

	build_indexed(&s);
	CHECK(walk_find(&s, 1, 1, 0x80201000, &start) == CFI_OK && start == 0x80201000);
	CHECK(walk_find(&s, 1, 1, 0x802010ff, &start) == CFI_OK && start == 0x80201000);
	CHECK(walk_find(&s, 1, 1, 0x80202040, &start) == CFI_OK && start == 0x80202000);
	CHECK(walk_find(&s, 1, 1, 0x8020300f, &start) == CFI_OK && start == 0x80203000);
	/* Before the first, in a gap, after the last. */
	CHECK(walk_find(&s, 1, 1, 0x80200fff, &start) == CFI_NOT_FOUND);
	CHECK(walk_find(&s, 1, 1, 0x80202080, &start) == CFI_NOT_FOUND);
	CHECK(walk_find(&s, 1, 1, UINTPTR_MAX, &start) == CFI_NOT_FOUND);
	/* The index disagreeing with its FDE, as in cfi_find_fde. */
	s.entries[1].pc_start = 0x80202004;
	CHECK(walk_find(&s, 1, 1, 0x80202010, &start) == CFI_MALFORMED);
	s.entries[1].pc_start = 0x80202000;
	/* One entry. */
	s.index.count = 1;
	CHECK(walk_find(&s, 0, 0, 0x80201080, &start) == CFI_OK && start == 0x80201000);
	CHECK(walk_find(&s, 0, 0, 0x80202000, &start) == CFI_NOT_FOUND);
	end_case(&s.c);
}

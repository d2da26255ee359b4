/*
 * test_prologue.c - the prologue decoder (prologue_decode.c) and the
 * prologue unwinder's step (prologue.c), on machine code placed in an exactly
 * sized heap block (fake_code.h) and fake stacks.
 *
 * The oracle is the assembler, not the decoder. Every sequence was written in
 * assembly and assembled with binutils 2.40:
 *     riscv64-unknown-elf-as -march=rv64imac -mno-relax            (rv64)
 *     riscv64-unknown-elf-as -march=rv32imac -mabi=ilp32 -mno-relax (rv32)
 * (".option norvc" for the 32-bit forms the assembler would compress), and
 * the bytes read back with riscv64-unknown-elf-objdump -d -M no-aliases. They
 * appear below as objdump prints them, I32(0x...) or C16(0x...), with the
 * assembly beside; `objdump -D -b binary -m riscv:rv64 -M no-aliases` on the
 * parcels re-checks them. `call f` is auipc ra,0; jalr ra,0(ra) before
 * relocation: the decoder ignores targets, and so do the tests.
 *
 * Expected frames are worked out by hand from the assembly. Offsets are from
 * the CFA, the sp at the function's entry: `addi sp,sp,-48; sd ra,40(sp)`
 * leaves sp at -48 and ra at -48 + 40 = -8.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cfi.h"
#include "dwarf_codes.h"
#include "fake_code.h"
#include "fake_cfi.h"
#include "fake_stack.h"
#include "fake_tables.h"
#include "harness.h"
#include "prologue.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * A frame as a test expects it: sp_state (default PROLOGUE_SP_RELATIVE) with
 * sp, the frame pointer if fp_valid, and the slots of ra and s0, 0 meaning
 * "not saved" (CFA + 0 is the caller's frame, never a save slot).
 */
struct expected {
	enum prologue_sp sp_state;
	intptr_t sp;
	bool fp_valid;
	intptr_t fp;
	intptr_t ra;
	intptr_t s0;
};

static bool slot_is(bool saved, intptr_t offset, intptr_t expected)
{
	return expected == 0 ? !saved : saved && offset == expected;
}

static bool decoded_frame_is(const struct prologue_frame *f, const struct expected *e)
{
	return f->sp_state == e->sp_state &&
	       (e->sp_state != PROLOGUE_SP_RELATIVE || f->sp_offset == e->sp) &&
	       f->fp_valid == e->fp_valid && (!e->fp_valid || f->fp_offset == e->fp) &&
	       slot_is(f->ra_saved, f->ra_offset, e->ra) &&
	       slot_is(f->s0_saved, f->s0_offset, e->s0);
}

/* A slot or the frame pointer as show_decoded() prints it. */
static long shown(bool valid, intptr_t offset)
{
	return valid ? (long)offset : 1; /* 1: none (offsets are even) */
}

/* What the decoder found, under the FAIL line of a table's test. */
static void show_decoded(const char *name, enum prologue_status status,
			 const struct prologue_analysis *a, uintptr_t start)
{
	const struct prologue_frame *f = &a->frame;

	printf("  case \"%s\": status %d", name, (int)status);
	if (status == PROLOGUE_OK)
		printf(", sp state %d offset %ld, fp %ld, ra %ld, s0 %ld (1: none), "
		       "stop +%#lx",
		       (int)f->sp_state, (long)f->sp_offset,
		       shown(f->fp_valid, f->fp_offset), shown(f->ra_saved, f->ra_offset),
		       shown(f->s0_saved, f->s0_offset),
		       (unsigned long)(a->stop - start));
	printf("\n");
}

#define MAX_PARCELS 24

/* One function's code, decoded from its start to pc. */
struct frame_case {
	const char *name;
	unsigned xlen; /* 8: rv64, 4: rv32 */
	uint16_t code[MAX_PARCELS];
	size_t count;
	size_t pc;   /* bytes from the start; 0: the end of the code */
	size_t stop; /* where the prologue ends, bytes from the start: the first
			call, else where decoding stops; 0: at pc */
	enum prologue_status status;
	struct expected frame; /* if status is PROLOGUE_OK */
};

#define CODE(...)                                                                        \
	.code = {__VA_ARGS__},                                                           \
	.count = sizeof((const uint16_t[]){__VA_ARGS__}) / sizeof(uint16_t)

/* Decodes the case's code, placed alone in text, from its start to start +
 * pc; the prologue should end at start + stop (see struct frame_case). */
static bool case_holds_at(const struct frame_case *c, size_t pc, size_t stop)
{
	struct fake_code code;
	struct tracer_config config;
	struct prologue_analysis analysis;
	enum prologue_status status;
	uintptr_t start;
	uintptr_t ended;
	bool holds;

	memset(&config, 0, sizeof(config));
	fake_code_init(&code);
	fake_code_function(&code, NULL, c->code, c->count);
	start = fake_code_seal(&code, &config);
	status = prologue_analyze(&config, start, fake_code_end(&code), start + pc,
				  c->xlen, &analysis);
	ended = analysis.first_call ? analysis.first_call : analysis.stop;
	holds = status == c->status &&
		(status != PROLOGUE_OK ||
		 (decoded_frame_is(&analysis.frame, &c->frame) && ended == start + stop));
	if (!holds)
		show_decoded(c->name, status, &analysis, start);
	fake_code_free(&code);
	return holds;
}

/* Runs every case, so that the output names each one that fails. */
static bool all_hold(const struct frame_case *cases, size_t count)
{
	bool all = true;

	for (size_t i = 0; i < count; i++) {
		const struct frame_case *c = &cases[i];
		size_t pc = c->pc ? c->pc : c->count * sizeof(uint16_t);

		all = case_holds_at(c, pc, c->stop ? c->stop : pc) && all;
	}
	return all;
}

/* ---- 1. Every form of sp adjustment ---------------------------------- */

static const struct frame_case sp_cases[] = {
    {.name = "rv64 addi sp,sp,-48",
     .xlen = 8,
     CODE(I32(0xfd010113)), /* addi sp,sp,-48 */
     .frame = {.sp = -48}},
    {.name = "rv64 c.addi sp,-16",
     .xlen = 8,
     CODE(C16(0x1141)), /* c.addi sp,-16 */
     .frame = {.sp = -16}},
    {.name = "rv64 c.addi16sp sp,-64",
     .xlen = 8,
     CODE(C16(0x7139)), /* c.addi16sp sp,-64 */
     .frame = {.sp = -64}},
    /* Every immediate bit of c.addi16sp: nzimm[9|4|6|8:7|5]. */
    {.name = "rv64 c.addi16sp sp,-16",
     .xlen = 8,
     CODE(C16(0x717d)), /* c.addi16sp sp,-16 */
     .frame = {.sp = -16}},
    {.name = "rv64 c.addi16sp sp,-48",
     .xlen = 8,
     CODE(C16(0x7179)), /* c.addi16sp sp,-48 */
     .frame = {.sp = -48}},
    {.name = "rv64 c.addi16sp sp,-496",
     .xlen = 8,
     CODE(C16(0x7141)), /* c.addi16sp sp,-496 */
     .frame = {.sp = -496}},
    {.name = "rv64 c.addi16sp sp,-512",
     .xlen = 8,
     CODE(C16(0x7101)), /* c.addi16sp sp,-512 */
     .frame = {.sp = -512}},
    {.name = "rv64 c.addi16sp sp,496",
     .xlen = 8,
     CODE(C16(0x617d)), /* c.addi16sp sp,496 */
     .frame = {.sp = 496}},
    {.name = "rv64 lui/addi/sub",
     .xlen = 8,
     CODE(I32(0x000022b7),  /* lui t0,0x2 */
	  I32(0xff028293),  /* addi t0,t0,-16: t0 = 8192 - 16 */
	  I32(0x40510133)), /* sub sp,sp,t0 */
     .frame = {.sp = -8176}},
    {.name = "rv64 c.lui/c.addi/sub",
     .xlen = 8,
     CODE(C16(0x6289),	    /* c.lui t0,0x2 */
	  C16(0x12c1),	    /* c.addi t0,-16: t0 = 8176 */
	  I32(0x40510133)), /* sub sp,sp,t0 */
     .frame = {.sp = -8176}},
    {.name = "rv64 li/add",
     .xlen = 8,
     CODE(I32(0x83000293),  /* li t0,-2000 (addi t0,zero,-2000) */
	  I32(0x00510133)), /* add sp,sp,t0 */
     .frame = {.sp = -2000}},
    {.name = "rv64 lui/addiw/sub",
     .xlen = 8,
     CODE(I32(0x00001537),  /* lui a0,0x1 */
	  I32(0x9e05051b),  /* addiw a0,a0,-1568: a0 = 4096 - 1568 = 2528 */
	  I32(0x40a10133)), /* sub sp,sp,a0 */
     .frame = {.sp = -2528}},
    {.name = "rv64 c.li/c.add",
     .xlen = 8,
     CODE(C16(0x5281),	/* c.li t0,-32 */
	  C16(0x9116)), /* c.add sp,t0 */
     .frame = {.sp = -32}},
    {.name = "rv64 c.lui/c.add",
     .xlen = 8,
     CODE(C16(0x72fd),	/* c.lui t0,0xfffff: t0 = -4096 */
	  C16(0x9116)), /* c.add sp,t0 */
     .frame = {.sp = -4096}},
    {.name = "rv64 c.lui/c.addiw/sub",
     .xlen = 8,
     CODE(C16(0x6285),	    /* c.lui t0,0x1 */
	  C16(0x32c1),	    /* c.addiw t0,-16: t0 = 4080 */
	  I32(0x40510133)), /* sub sp,sp,t0 */
     .frame = {.sp = -4080}},
    /* GCC's large frame: the first 2032 bytes, the saves, then the rest. */
    {.name = "rv64 GCC 6128-byte frame",
     .xlen = 8,
     CODE(I32(0x81010113),  /* addi sp,sp,-2032 */
	  I32(0x7e113423),  /* sd ra,2024(sp): -2032 + 2024 = -8 */
	  I32(0x7e813023),  /* sd s0,2016(sp): -16 */
	  I32(0xfffff2b7),  /* li t0,-4096 (lui t0,0xfffff) */
	  I32(0x00510133)), /* add sp,sp,t0: -2032 - 4096 */
     .frame = {.sp = -6128, .ra = -8, .s0 = -16}},
    /* clang's large frame. */
    {.name = "rv64 clang 4560-byte frame",
     .xlen = 8,
     CODE(I32(0x81010113),  /* addi sp,sp,-2032 */
	  I32(0x7e113423),  /* sd ra,2024(sp) */
	  I32(0x7e813023),  /* sd s0,2016(sp) */
	  I32(0x00001537),  /* lui a0,0x1 */
	  I32(0x9e05051b),  /* addiw a0,a0,-1568: 2528 */
	  I32(0x40a10133)), /* sub sp,sp,a0: -2032 - 2528 */
     .frame = {.sp = -4560, .ra = -8, .s0 = -16}},
    /* GCC 12.2 -O2 -fno-omit-frame-pointer, as it compiled
     * `void f(void) { char buf[6000]; g(buf); }`. */
    {.name = "rv64 GCC 12 output, 6016-byte frame",
     .xlen = 8,
     CODE(I32(0x88010113), /* addi sp,sp,-1920 */
	  C16(0x757d),	   /* c.lui a0,0xfffff */
	  I32(0x76813823), /* sd s0,1904(sp): -1920 + 1904 = -16 */
	  I32(0x76113c23), /* sd ra,1912(sp): -8 */
	  I32(0x78010413), /* addi s0,sp,1920: s0 = CFA */
	  C16(0x72fd),	   /* c.lui t0,0xfffff: -4096 */
	  I32(0x88050793), /* addi a5,a0,-1920 */
	  I32(0x00878533), /* add a0,a5,s0 */
	  C16(0x9116)),	   /* c.add sp,t0: -1920 - 4096 */
     .frame = {.sp = -6016, .fp_valid = true, .fp = 0, .ra = -8, .s0 = -16}},
    {.name = "rv32 addi sp,sp,-48",
     .xlen = 4,
     CODE(I32(0xfd010113)), /* addi sp,sp,-48 */
     .frame = {.sp = -48}},
    {.name = "rv32 c.addi sp,-16",
     .xlen = 4,
     CODE(C16(0x1141)), /* c.addi sp,-16 */
     .frame = {.sp = -16}},
    {.name = "rv32 c.addi16sp sp,-64",
     .xlen = 4,
     CODE(C16(0x7139)), /* c.addi16sp sp,-64 */
     .frame = {.sp = -64}},
    {.name = "rv32 c.addi16sp sp,-256",
     .xlen = 4,
     CODE(C16(0x7111)), /* c.addi16sp sp,-256 */
     .frame = {.sp = -256}},
    {.name = "rv32 lui/addi/sub",
     .xlen = 4,
     CODE(I32(0x000022b7),  /* lui t0,0x2 */
	  I32(0xff028293),  /* addi t0,t0,-16 */
	  I32(0x40510133)), /* sub sp,sp,t0 */
     .frame = {.sp = -8176}},
    {.name = "rv32 li/add",
     .xlen = 4,
     CODE(I32(0x83000293),  /* li t0,-2000 */
	  I32(0x00510133)), /* add sp,sp,t0 */
     .frame = {.sp = -2000}},
    {.name = "rv32 c.li/c.add",
     .xlen = 4,
     CODE(C16(0x5281),	/* c.li t0,-32 */
	  C16(0x9116)), /* c.add sp,t0 */
     .frame = {.sp = -32}},
    {.name = "rv32 c.lui/c.add",
     .xlen = 4,
     CODE(C16(0x72fd),	/* c.lui t0,0xfffff */
	  C16(0x9116)), /* c.add sp,t0 */
     .frame = {.sp = -4096}},
    {.name = "rv32 GCC 6128-byte frame",
     .xlen = 4,
     CODE(I32(0x81010113),  /* addi sp,sp,-2032 */
	  I32(0x7e112623),  /* sw ra,2028(sp): -2032 + 2028 = -4 */
	  I32(0x7e812423),  /* sw s0,2024(sp): -8 */
	  I32(0xfffff2b7),  /* li t0,-4096 */
	  I32(0x00510133)), /* add sp,sp,t0 */
     .frame = {.sp = -6128, .ra = -4, .s0 = -8}},
};

void prologue_sp_forms(void)
{
	CHECK(all_hold(sp_cases, ARRAY_SIZE(sp_cases)));
}

/* ---- 2. Saves of ra and s0 ---------------------------------------------- */

static const struct frame_case save_cases[] = {
    {.name = "rv64 sd ra, sd s0",
     .xlen = 8,
     CODE(I32(0xfd010113),  /* addi sp,sp,-48 */
	  I32(0x02113423),  /* sd ra,40(sp) */
	  I32(0x02813023)), /* sd s0,32(sp) */
     .frame = {.sp = -48, .ra = -8, .s0 = -16}},
    {.name = "rv64 c.sdsp ra, c.sdsp s0",
     .xlen = 8,
     CODE(I32(0xfd010113), /* addi sp,sp,-48 */
	  C16(0xf406),	   /* c.sdsp ra,40(sp) */
	  C16(0xf022)),	   /* c.sdsp s0,32(sp) */
     .frame = {.sp = -48, .ra = -8, .s0 = -16}},
    /* The high bits of c.sdsp's offset, uimm[8:6], and c.ldsp's: loading
     * ra and s0 back from their slots restores them (an epilogue). */
    {.name = "rv64 c.sdsp at 504(sp), 496(sp)",
     .xlen = 8,
     CODE(C16(0x7101),	/* c.addi16sp sp,-512 */
	  C16(0xff86),	/* c.sdsp ra,504(sp) */
	  C16(0xfba2)), /* c.sdsp s0,496(sp) */
     .frame = {.sp = -512, .ra = -8, .s0 = -16}},
    {.name = "rv64 c.ldsp from 504(sp), 496(sp)",
     .xlen = 8,
     CODE(C16(0x7101),	/* c.addi16sp sp,-512 */
	  C16(0xff86),	/* c.sdsp ra,504(sp) */
	  C16(0xfba2),	/* c.sdsp s0,496(sp) */
	  C16(0x70fe),	/* c.ldsp ra,504(sp) */
	  C16(0x745e)), /* c.ldsp s0,496(sp) */
     .frame = {.sp = -512}},
    /* Half of ra is no save of ra. */
    {.name = "rv64 sw ra",
     .xlen = 8,
     CODE(I32(0xfd010113),  /* addi sp,sp,-48 */
	  I32(0x02112623)), /* sw ra,44(sp) */
     .frame = {.sp = -48}},
    {.name = "rv64 c.swsp ra",
     .xlen = 8,
     CODE(I32(0xfd010113), /* addi sp,sp,-48 */
	  C16(0xd606)),	   /* c.swsp ra,44(sp) */
     .frame = {.sp = -48}},
    {.name = "rv64 ra at 0(sp)",
     .xlen = 8,
     CODE(I32(0xfd010113),  /* addi sp,sp,-48 */
	  I32(0x00113023)), /* sd ra,0(sp) */
     .frame = {.sp = -48, .ra = -48}},
    {.name = "rv64 ra at 24(sp)",
     .xlen = 8,
     CODE(I32(0xfd010113),  /* addi sp,sp,-48 */
	  I32(0x00113c23)), /* sd ra,24(sp) */
     .frame = {.sp = -48, .ra = -24}},
    /* Relative to the frame pointer; s0 then holds the new frame's
     * address, so storing it saves nothing of the caller's. */
    {.name = "rv64 sd ra,-8(s0)",
     .xlen = 8,
     CODE(I32(0xfe010113),  /* addi sp,sp,-32 */
	  I32(0x02010413),  /* addi s0,sp,32: s0 = CFA */
	  I32(0xfe143c23),  /* sd ra,-8(s0) */
	  I32(0xfe843823)), /* sd s0,-16(s0) */
     .frame = {.sp = -32, .fp_valid = true, .fp = 0, .ra = -8}},
    {.name = "rv64 sd ra,24(s0), s0 = CFA - 32",
     .xlen = 8,
     CODE(I32(0xfd010113),  /* addi sp,sp,-48 */
	  I32(0x01010413),  /* addi s0,sp,16: -48 + 16 = -32 */
	  I32(0x00143c23)), /* sd ra,24(s0): -32 + 24 = -8 */
     .frame = {.sp = -48, .fp_valid = true, .fp = -32, .ra = -8}},
    {.name = "rv64 mv ra,a0 before sd ra",
     .xlen = 8,
     CODE(I32(0xff010113),  /* addi sp,sp,-16 */
	  I32(0x00050093),  /* mv ra,a0 */
	  I32(0x00113423)), /* sd ra,8(sp) */
     .frame = {.sp = -16}},
    {.name = "rv64 c.li s0 before c.sdsp s0",
     .xlen = 8,
     CODE(C16(0x1141),	/* c.addi sp,-16 */
	  C16(0x4415),	/* c.li s0,5 */
	  C16(0xe022)), /* c.sdsp s0,0(sp) */
     .frame = {.sp = -16}},
    /* sp moved by an unknown amount: sp-relative stores land nowhere known. */
    {.name = "rv64 sd ra after alloca without fp",
     .xlen = 8,
     CODE(C16(0x1141),	    /* c.addi sp,-16 */
	  I32(0x40a10133),  /* sub sp,sp,a0 */
	  I32(0x00113423)), /* sd ra,8(sp) */
     .frame = {.sp_state = PROLOGUE_SP_LOST}},
    {.name = "rv32 sw ra, sw s0",
     .xlen = 4,
     CODE(I32(0xfd010113),  /* addi sp,sp,-48 */
	  I32(0x02112623),  /* sw ra,44(sp): -4 */
	  I32(0x02812423)), /* sw s0,40(sp): -8 */
     .frame = {.sp = -48, .ra = -4, .s0 = -8}},
    {.name = "rv32 c.swsp ra, c.swsp s0",
     .xlen = 4,
     CODE(I32(0xfd010113), /* addi sp,sp,-48 */
	  C16(0xd606),	   /* c.swsp ra,44(sp) */
	  C16(0xd422)),	   /* c.swsp s0,40(sp) */
     .frame = {.sp = -48, .ra = -4, .s0 = -8}},
    {.name = "rv32 c.addi, c.swsp",
     .xlen = 4,
     CODE(C16(0x1141),	/* c.addi sp,-16 */
	  C16(0xc606),	/* c.swsp ra,12(sp) */
	  C16(0xc422)), /* c.swsp s0,8(sp) */
     .frame = {.sp = -16, .ra = -4, .s0 = -8}},
    {.name = "rv32 c.swsp at 252(sp), 248(sp)",
     .xlen = 4,
     CODE(C16(0x7111),	/* c.addi16sp sp,-256 */
	  C16(0xdf86),	/* c.swsp ra,252(sp) */
	  C16(0xdda2)), /* c.swsp s0,248(sp) */
     .frame = {.sp = -256, .ra = -4, .s0 = -8}},
    {.name = "rv32 c.lwsp from 252(sp), 248(sp)",
     .xlen = 4,
     CODE(C16(0x7111),	/* c.addi16sp sp,-256 */
	  C16(0xdf86),	/* c.swsp ra,252(sp) */
	  C16(0xdda2),	/* c.swsp s0,248(sp) */
	  C16(0x50fe),	/* c.lwsp ra,252(sp) */
	  C16(0x546e)), /* c.lwsp s0,248(sp) */
     .frame = {.sp = -256}},
    {.name = "rv32 c.swsp ra,16(sp)",
     .xlen = 4,
     CODE(C16(0x7111),	/* c.addi16sp sp,-256 */
	  C16(0xc806)), /* c.swsp ra,16(sp): -256 + 16 */
     .frame = {.sp = -256, .ra = -240}},
    /* rv64's c.sdsp ra,40(sp) is rv32's c.fswsp ft1,40(sp) (objdump -m
     * riscv:rv32 on the parcel f406): a float store. */
    {.name = "rv32 c.fswsp (rv64 c.sdsp ra)",
     .xlen = 4,
     CODE(I32(0xfd010113), /* addi sp,sp,-48 */
	  C16(0xf406)),	   /* rv32: c.fswsp ft1,40(sp) */
     .frame = {.sp = -48}},
    {.name = "rv32 sw ra,-4(s0)",
     .xlen = 4,
     CODE(I32(0xfd010113),  /* addi sp,sp,-48 */
	  I32(0x03010413),  /* addi s0,sp,48 */
	  I32(0xfe142e23)), /* sw ra,-4(s0) */
     .frame = {.sp = -48, .fp_valid = true, .fp = 0, .ra = -4}},
};

void prologue_saves(void)
{
	CHECK(all_hold(save_cases, ARRAY_SIZE(save_cases)));
}

/* ---- 3. Frame pointers ------------------------------------------------- */

static const struct frame_case fp_cases[] = {
    {.name = "rv64 c.addi4spn s0,sp,32",
     .xlen = 8,
     CODE(C16(0x713d),	/* c.addi16sp sp,-32 */
	  C16(0xec06),	/* c.sdsp ra,24(sp) */
	  C16(0xe822),	/* c.sdsp s0,16(sp) */
	  C16(0x1000)), /* c.addi4spn s0,sp,32 */
     .frame = {.sp = -32, .fp_valid = true, .fp = 0, .ra = -8, .s0 = -16}},
    {.name = "rv64 c.addi4spn s0,sp,16",
     .xlen = 8,
     CODE(C16(0x713d),	/* c.addi16sp sp,-32 */
	  C16(0x0800)), /* c.addi4spn s0,sp,16: -32 + 16 */
     .frame = {.sp = -32, .fp_valid = true, .fp = -16}},
    /* Every immediate bit of c.addi4spn: nzuimm[5:4|9:6|2|3]. */
    {.name = "rv64 c.addi4spn s0,sp,1020",
     .xlen = 8,
     CODE(I32(0xc0010113), /* addi sp,sp,-1024 */
	  C16(0x1fe0)),	   /* c.addi4spn s0,sp,1020: -1024 + 1020 */
     .frame = {.sp = -1024, .fp_valid = true, .fp = -4}},
    {.name = "rv64 c.addi4spn s0,sp,12",
     .xlen = 8,
     CODE(C16(0x7101),	/* c.addi16sp sp,-512 */
	  C16(0x0060)), /* c.addi4spn s0,sp,12: -512 + 12 */
     .frame = {.sp = -512, .fp_valid = true, .fp = -500}},
    {.name = "rv64 addi s0,sp,32",
     .xlen = 8,
     CODE(I32(0xfe010113),  /* addi sp,sp,-32 */
	  I32(0x02010413)), /* addi s0,sp,32 */
     .frame = {.sp = -32, .fp_valid = true, .fp = 0}},
    {.name = "rv64 c.mv s0,sp",
     .xlen = 8,
     CODE(C16(0x713d),	/* c.addi16sp sp,-32 */
	  C16(0x840a)), /* c.mv s0,sp */
     .frame = {.sp = -32, .fp_valid = true, .fp = -32}},
    /* alloca: sp moves by a0; s0 still finds the frame. */
    {.name = "rv64 alloca after fp",
     .xlen = 8,
     CODE(C16(0x713d),	    /* c.addi16sp sp,-32 */
	  C16(0xec06),	    /* c.sdsp ra,24(sp) */
	  C16(0xe822),	    /* c.sdsp s0,16(sp) */
	  C16(0x1000),	    /* c.addi4spn s0,sp,32 */
	  I32(0x40a10133)), /* sub sp,sp,a0 */
     .frame =
	 {.sp_state = PROLOGUE_SP_LOST, .fp_valid = true, .fp = 0, .ra = -8, .s0 = -16}},
    {.name = "rv64 sp from fp after alloca",
     .xlen = 8,
     CODE(C16(0x713d),	    /* c.addi16sp sp,-32 */
	  C16(0xec06),	    /* c.sdsp ra,24(sp) */
	  C16(0xe822),	    /* c.sdsp s0,16(sp) */
	  C16(0x1000),	    /* c.addi4spn s0,sp,32 */
	  I32(0x40a10133),  /* sub sp,sp,a0 */
	  I32(0xfe040113)), /* addi sp,s0,-32 */
     .frame = {.sp = -32, .fp_valid = true, .fp = 0, .ra = -8, .s0 = -16}},
    {.name = "rv64 s0 overwritten after fp",
     .xlen = 8,
     CODE(C16(0x713d),	/* c.addi16sp sp,-32 */
	  C16(0x1000),	/* c.addi4spn s0,sp,32 */
	  C16(0x4415)), /* c.li s0,5 */
     .frame = {.sp = -32}},
    {.name = "rv32 c.addi4spn s0,sp,16",
     .xlen = 4,
     CODE(C16(0x7139),	/* c.addi16sp sp,-64 */
	  C16(0x0800)), /* c.addi4spn s0,sp,16: -64 + 16 */
     .frame = {.sp = -64, .fp_valid = true, .fp = -48}},
    {.name = "rv32 c.mv s0,sp",
     .xlen = 4,
     CODE(C16(0x1141),	/* c.addi sp,-16 */
	  C16(0x840a)), /* c.mv s0,sp */
     .frame = {.sp = -16, .fp_valid = true, .fp = -16}},
    {.name = "rv32 alloca after fp",
     .xlen = 4,
     CODE(C16(0x1141),	    /* c.addi sp,-16 */
	  C16(0xc606),	    /* c.swsp ra,12(sp) */
	  C16(0xc422),	    /* c.swsp s0,8(sp) */
	  C16(0x0800),	    /* c.addi4spn s0,sp,16 */
	  I32(0x40a10133)), /* sub sp,sp,a0 */
     .frame =
	 {.sp_state = PROLOGUE_SP_LOST, .fp_valid = true, .fp = 0, .ra = -4, .s0 = -8}},
};

void prologue_frame_pointer_forms(void)
{
	CHECK(all_hold(fp_cases, ARRAY_SIZE(fp_cases)));
}

/* ---- 5. Instructions whose upper half reads as a prologue instruction -- */

/*
 * Each trap is a 32-bit instruction whose upper parcel, read alone at offset
 * 2, is a compressed prologue instruction. Built by choosing the upper
 * parcel first and reading off the fields it fixes:
 *   0x7139 (c.addi16sp sp,-64) as bits 31:16 of an I-type: imm = 0x713,
 *   rs1 = 1001x = s2: addi a0,s2,1811 = 0x71390513; of a U-type: lui
 *   a0,0x71390 = 0x71390537.
 *   0xe406 (rv64 c.sdsp ra,8(sp)) as bits 31:16 of an S-type: imm[11:5] =
 *   0x72, rs2 = zero, rs1 = 0110x = a2: sd zero,-448(a2) = 0xe4063023.
 *   0xc406 (rv32 c.swsp ra,8(sp)): imm[11:5] = 0x62: sw zero,-960(a2) =
 *   0xc4062023.
 * objdump -D -b binary on each instruction's bytes, with --start-address=0
 * and =2, prints both readings as stated.
 */
static const struct frame_case trap_cases[] = {
    {.name = "rv64 traps alone",
     .xlen = 8,
     CODE(C16(0x0001),	   /* c.nop: the traps start 2-byte aligned */
	  I32(0x71390537), /* lui a0,0x71390  | at +2: c.addi16sp sp,-64 */
	  I32(0x71390513), /* addi a0,s2,1811 | at +2: c.addi16sp sp,-64 */
	  I32(0xe4063023), /* sd zero,-448(a2) | at +2: c.sdsp ra,8(sp) */
	  C16(0x0001)),	   /* c.nop */
     .frame = {.sp = 0}},
    {.name = "rv64 traps in a prologue",
     .xlen = 8,
     CODE(C16(0x1141),	   /* c.addi sp,-16 */
	  I32(0x71390537), /* lui a0,0x71390 */
	  I32(0xe4063023), /* sd zero,-448(a2) */
	  C16(0xe022)),	   /* c.sdsp s0,0(sp) */
     .frame = {.sp = -16, .s0 = -16}},
    {.name = "rv32 traps alone",
     .xlen = 4,
     CODE(C16(0x0001),	    /* c.nop */
	  I32(0x71390513),  /* addi a0,s2,1811 | at +2: c.addi16sp sp,-64 */
	  I32(0xc4062023)), /* sw zero,-960(a2) | at +2: c.swsp ra,8(sp) */
     .frame = {.sp = 0}},
    {.name = "rv32 traps in a prologue",
     .xlen = 4,
     CODE(C16(0x1141),	   /* c.addi sp,-16 */
	  I32(0xc4062023), /* sw zero,-960(a2) */
	  I32(0x71390537), /* lui a0,0x71390 */
	  C16(0xc606)),	   /* c.swsp ra,12(sp) */
     .frame = {.sp = -16, .ra = -4}},
};

void prologue_misreading_traps(void)
{
	CHECK(all_hold(trap_cases, ARRAY_SIZE(trap_cases)));
}

/* ---- 6. Calls, jumps and branches ---------------------------------------- */

static const struct frame_case flow_cases[] = {
    /* Decoding goes on past a call, which ends the prologue (first_call);
     * at its return address the frame is as it was at the call. */
    {.name = "rv64 jal ra",
     .xlen = 8,
     CODE(C16(0x852e),	   /* c.mv a0,a1 */
	  I32(0x000000ef), /* +2: jal ra,. */
	  C16(0x1141)),	   /* c.addi sp,-16 */
     .pc = 6,
     .stop = 2,
     .frame = {.sp = 0}},
    {.name = "rv64 jalr ra,0(t1)",
     .xlen = 8,
     CODE(C16(0x852e),	   /* c.mv a0,a1 */
	  I32(0x000300e7), /* +2: jalr ra,0(t1) */
	  C16(0x1141)),	   /* c.addi sp,-16 */
     .pc = 6,
     .stop = 2,
     .frame = {.sp = 0}},
    {.name = "rv64 call (auipc ra; jalr ra)",
     .xlen = 8,
     CODE(C16(0x852e),	   /* c.mv a0,a1 */
	  I32(0x00000097), /* +2: auipc ra,0 */
	  I32(0x000080e7), /* +6: jalr ra,0(ra) */
	  C16(0x1141)),	   /* c.addi sp,-16 */
     .pc = 10,
     .stop = 6,
     .frame = {.sp = 0}},
    {.name = "rv64 c.jalr",
     .xlen = 8,
     CODE(C16(0x852e),	/* c.mv a0,a1 */
	  C16(0x9302),	/* +2: c.jalr t1 */
	  C16(0x1141)), /* c.addi sp,-16 */
     .pc = 4,
     .stop = 2,
     .frame = {.sp = 0}},
    /* Millicode (-msave-restore) links t0. */
    {.name = "rv64 jal t0",
     .xlen = 8,
     CODE(C16(0x852e),	   /* c.mv a0,a1 */
	  I32(0x000002ef), /* +2: jal t0,. */
	  C16(0x1141)),	   /* c.addi sp,-16 */
     .pc = 6,
     .stop = 2,
     .frame = {.sp = 0}},
    {.name = "rv64 call with a frame",
     .xlen = 8,
     CODE(C16(0x1141),	   /* c.addi sp,-16 */
	  C16(0xe406),	   /* c.sdsp ra,8(sp) */
	  I32(0x000000ef), /* +4: jal ra,. */
	  C16(0x1141)),	   /* c.addi sp,-16 */
     .pc = 8,
     .stop = 4,
     .frame = {.sp = -16, .ra = -8}},
    {.name = "rv32 c.jal",
     .xlen = 4,
     CODE(C16(0x852e),	/* c.mv a0,a1 */
	  C16(0x2001),	/* +2: c.jal . */
	  C16(0x1141)), /* c.addi sp,-16 */
     .pc = 4,
     .stop = 2,
     .frame = {.sp = 0}},
    {.name = "rv32 jal ra",
     .xlen = 4,
     CODE(C16(0x852e),	   /* c.mv a0,a1 */
	  I32(0x000000ef), /* +2: jal ra,. */
	  C16(0x1141)),	   /* c.addi sp,-16 */
     .pc = 6,
     .stop = 2,
     .frame = {.sp = 0}},
    {.name = "rv32 call with a frame",
     .xlen = 4,
     CODE(C16(0x1141),	/* c.addi sp,-16 */
	  C16(0xc606),	/* c.swsp ra,12(sp) */
	  C16(0x2001),	/* +4: c.jal . */
	  C16(0x1141)), /* c.addi sp,-16 */
     .pc = 6,
     .stop = 4,
     .frame = {.sp = -16, .ra = -4}},
    /* A jump out of a frame: the code after it is not on this path. */
    {.name = "rv64 j",
     .xlen = 8,
     CODE(C16(0x1141), C16(0xe406), /* c.addi sp,-16; c.sdsp ra,8(sp) */
	  I32(0x0000006f),	    /* +4: j . */
	  C16(0x1141)),		    /* c.addi sp,-16 */
     .stop = 4,
     .frame = {.sp = -16, .ra = -8}},
    {.name = "rv64 c.j",
     .xlen = 8,
     CODE(C16(0x1141), C16(0xe406), /* c.addi sp,-16; c.sdsp ra,8(sp) */
	  C16(0xa001),		    /* +4: c.j . */
	  C16(0x1141)),		    /* c.addi sp,-16 */
     .stop = 4,
     .frame = {.sp = -16, .ra = -8}},
    {.name = "rv64 ret (c.jr ra)",
     .xlen = 8,
     CODE(C16(0x1141), C16(0xe406), /* c.addi sp,-16; c.sdsp ra,8(sp) */
	  C16(0x8082),		    /* +4: c.jr ra */
	  C16(0x1141)),		    /* c.addi sp,-16 */
     .stop = 4,
     .frame = {.sp = -16, .ra = -8}},
    {.name = "rv64 ret (jalr zero,0(ra))",
     .xlen = 8,
     CODE(C16(0x1141), C16(0xe406), /* c.addi sp,-16; c.sdsp ra,8(sp) */
	  I32(0x00008067),	    /* +4: jalr zero,0(ra) */
	  C16(0x1141)),		    /* c.addi sp,-16 */
     .stop = 4,
     .frame = {.sp = -16, .ra = -8}},
    {.name = "rv64 c.jr t1",
     .xlen = 8,
     CODE(C16(0x1141), C16(0xe406), /* c.addi sp,-16; c.sdsp ra,8(sp) */
	  C16(0x8302),		    /* +4: c.jr t1 */
	  C16(0x1141)),		    /* c.addi sp,-16 */
     .stop = 4,
     .frame = {.sp = -16, .ra = -8}},
    {.name = "rv32 c.j",
     .xlen = 4,
     CODE(C16(0x1141), C16(0xc606), /* c.addi sp,-16; c.swsp ra,12(sp) */
	  C16(0xa001),		    /* +4: c.j . */
	  C16(0x1141)),		    /* c.addi sp,-16 */
     .stop = 4,
     .frame = {.sp = -16, .ra = -4}},
    /* Conditional branches: decoding follows the fall-through path. */
    {.name = "rv64 beqz",
     .xlen = 8,
     CODE(C16(0x1141), C16(0xe406), /* c.addi sp,-16; c.sdsp ra,8(sp) */
	  I32(0x00050063),	    /* beqz a0,. (beq a0,zero) */
	  C16(0x1141)),		    /* c.addi sp,-16 */
     .frame = {.sp = -32, .ra = -8}},
    {.name = "rv64 c.beqz",
     .xlen = 8,
     CODE(C16(0x1141), C16(0xe406), /* c.addi sp,-16; c.sdsp ra,8(sp) */
	  C16(0xc101),		    /* c.beqz a0,. */
	  C16(0x1141)),		    /* c.addi sp,-16 */
     .frame = {.sp = -32, .ra = -8}},
    {.name = "rv64 bne",
     .xlen = 8,
     CODE(C16(0x1141), C16(0xe406), /* c.addi sp,-16; c.sdsp ra,8(sp) */
	  I32(0x00b51063),	    /* bne a0,a1,. */
	  C16(0x1141)),		    /* c.addi sp,-16 */
     .frame = {.sp = -32, .ra = -8}},
    {.name = "rv64 c.bnez",
     .xlen = 8,
     CODE(C16(0x1141), C16(0xe406), /* c.addi sp,-16; c.sdsp ra,8(sp) */
	  C16(0xe101),		    /* c.bnez a0,. */
	  C16(0x1141)),		    /* c.addi sp,-16 */
     .frame = {.sp = -32, .ra = -8}},
    {.name = "rv32 c.beqz",
     .xlen = 4,
     CODE(C16(0x1141), C16(0xc606), /* c.addi sp,-16; c.swsp ra,12(sp) */
	  C16(0xc101),		    /* c.beqz a0,. */
	  C16(0x1141)),		    /* c.addi sp,-16 */
     .frame = {.sp = -32, .ra = -4}},
    /*
     * Shrink-wrapping: GCC 12.2 -O2 -fno-omit-frame-pointer compiled
     * `int h(int a) { if (a) return 0; g(0); return 1; }` to this. The ret
     * leaves no frame behind, so decoding goes on to the prologue after it.
     */
    {.name = "rv64 GCC 12 shrink-wrapped",
     .xlen = 8,
     CODE(C16(0xc119),	    /* c.beqz a0,L (L: +6) */
	  C16(0x4501),	    /* c.li a0,0 */
	  C16(0x8082),	    /* c.jr ra */
	  C16(0x1141),	    /* +6: c.addi sp,-16 */
	  C16(0xe022),	    /* c.sdsp s0,0(sp) */
	  C16(0xe406),	    /* c.sdsp ra,8(sp) */
	  C16(0x0800),	    /* c.addi4spn s0,sp,16 */
	  I32(0x00000097),  /* auipc ra,0 */
	  I32(0x000080e7)), /* +0x12: jalr ra,0(ra) */
     .stop = 0x12,
     .frame = {.sp = -16, .fp_valid = true, .fp = 0, .ra = -8, .s0 = -16}},
    {.name = "rv32 shrink-wrapped",
     .xlen = 4,
     CODE(C16(0xc119),	/* c.beqz a0,L (L: +6) */
	  C16(0x4501),	/* c.li a0,0 */
	  C16(0x8082),	/* c.jr ra */
	  C16(0x1141),	/* +6: c.addi sp,-16 */
	  C16(0xc422),	/* c.swsp s0,8(sp) */
	  C16(0xc606),	/* c.swsp ra,12(sp) */
	  C16(0x0800),	/* c.addi4spn s0,sp,16 */
	  C16(0x2001)), /* +0xe: c.jal . */
     .stop = 0xe,
     .frame = {.sp = -16, .fp_valid = true, .fp = 0, .ra = -4, .s0 = -8}},
    /*
     * An epilogue block before the prologue (OpenSBI's GCC -O2 has this
     * shape): the body jumps back to .Lout. Past the early ret the frame is
     * empty, so .Lout's addi would put sp above the CFA: no path from the
     * entry runs it, and decoding skips to its ret. At the return address
     * of the call: sp -16, ra at -16 + 8.
     */
    {.name = "rv64 epilogue block before the prologue",
     .xlen = 8,
     CODE(C16(0x4785),	   /* li a5,1 */
	  I32(0x00b7e763), /* +2: bltu a5,a1,.Lbody (+0x10) */
	  C16(0x4501),	   /* +6: li a0,0 */
	  C16(0x8082),	   /* +8: ret */
	  C16(0x60a2),	   /* +0xa .Lout: ld ra,8(sp) */
	  C16(0x0141),	   /* +0xc: addi sp,sp,16 */
	  C16(0x8082),	   /* +0xe: ret */
	  C16(0x1141),	   /* +0x10 .Lbody: addi sp,sp,-16 */
	  C16(0xe406),	   /* +0x12: sd ra,8(sp) */
	  I32(0x00000097), /* +0x14: auipc ra,0 */
	  I32(0x000080e7), /* +0x18: jalr ra */
	  C16(0xb7fd)),	   /* +0x1c: j .Lout */
     .pc = 0x1c,
     .stop = 0x18,
     .frame = {.sp = -16, .ra = -8}},
    /* An exact pc inside an early return's epilogue (see early_return). */
    {.name = "rv64 pc after the epilogue's ld ra",
     .xlen = 8,
     CODE(C16(0x1141),	/* c.addi sp,-16 */
	  C16(0xe406),	/* c.sdsp ra,8(sp) */
	  C16(0xc501),	/* c.beqz a0,L (L: +0xc) */
	  C16(0x60a2)), /* c.ldsp ra,8(sp): ra holds the caller's again */
     .frame = {.sp = -16}},
    {.name = "rv64 pc after the epilogue's addi sp",
     .xlen = 8,
     CODE(C16(0x1141),	/* c.addi sp,-16 */
	  C16(0xe406),	/* c.sdsp ra,8(sp) */
	  C16(0xc501),	/* c.beqz a0,L (L: +0xc) */
	  C16(0x60a2),	/* c.ldsp ra,8(sp) */
	  C16(0x0141)), /* c.addi sp,16: back at the CFA */
     .frame = {.sp = 0}},
    {.name = "rv32 pc after the epilogue's addi sp",
     .xlen = 4,
     CODE(C16(0x1141),	/* c.addi sp,-16 */
	  C16(0xc606),	/* c.swsp ra,12(sp) */
	  C16(0xc501),	/* c.beqz a0,L (L: +0xc) */
	  C16(0x40b2),	/* c.lwsp ra,12(sp) */
	  C16(0x0141)), /* c.addi sp,16 */
     .frame = {.sp = 0}},
};

void prologue_calls_jumps_branches(void)
{
	CHECK(all_hold(flow_cases, ARRAY_SIZE(flow_cases)));
}

/*
 * An early return: the epilogue on the branch's fall-through path undoes
 * the frame before the ret, and the code after the ret is reached by the
 * branch, with the body's frame:
 *     c.addi sp,-16; c.sdsp ra,8(sp); c.beqz a0,L; c.ldsp ra,8(sp);
 *     c.addi sp,16; c.jr ra; L: call g
 * At L and after the call the frame is the body's: -16, ra at -8. Decoding
 * stops at the jump that ends the epilogue (prologue.h: "the call or jump
 * that ended the prologue").
 */
static const struct frame_case early_return_cases[] = {
    {.name = "rv64 early return, pc after call g",
     .xlen = 8,
     CODE(C16(0x1141),	    /* c.addi sp,-16 */
	  C16(0xe406),	    /* c.sdsp ra,8(sp) */
	  C16(0xc501),	    /* c.beqz a0,L (L: +0xc) */
	  C16(0x60a2),	    /* c.ldsp ra,8(sp) */
	  C16(0x0141),	    /* c.addi sp,16 */
	  C16(0x8082),	    /* +0xa: c.jr ra */
	  I32(0x00000097),  /* +0xc: auipc ra,0 */
	  I32(0x000080e7)), /* +0x10: jalr ra,0(ra) */
     .stop = 0xa,
     .frame = {.sp = -16, .ra = -8}},
    {.name = "rv64 early return, pc at L",
     .xlen = 8,
     CODE(C16(0x1141), C16(0xe406), C16(0xc501), C16(0x60a2), C16(0x0141), C16(0x8082),
	  I32(0x00000097), I32(0x000080e7)), /* as above */
     .pc = 0xc,
     .stop = 0xa,
     .frame = {.sp = -16, .ra = -8}},
    {.name = "rv32 early return, pc after c.jal g",
     .xlen = 4,
     CODE(C16(0x1141),	/* c.addi sp,-16 */
	  C16(0xc606),	/* c.swsp ra,12(sp) */
	  C16(0xc501),	/* c.beqz a0,L (L: +0xc) */
	  C16(0x40b2),	/* c.lwsp ra,12(sp) */
	  C16(0x0141),	/* c.addi sp,16 */
	  C16(0x8082),	/* +0xa: c.jr ra */
	  C16(0x2001)), /* +0xc: c.jal . */
     .stop = 0xa,
     .frame = {.sp = -16, .ra = -4}},
    /* The same with a tail call (tail g) instead of the ret. */
    {.name = "rv64 early tail call, pc after call g",
     .xlen = 8,
     CODE(C16(0x1141),	    /* c.addi sp,-16 */
	  C16(0xe406),	    /* c.sdsp ra,8(sp) */
	  C16(0xc519),	    /* c.beqz a0,L (L: +0x12) */
	  C16(0x60a2),	    /* c.ldsp ra,8(sp) */
	  C16(0x0141),	    /* c.addi sp,16 */
	  I32(0x00000317),  /* auipc t1,0 */
	  I32(0x00030067),  /* +0xe: jalr zero,0(t1) */
	  I32(0x00000097),  /* +0x12: auipc ra,0 */
	  I32(0x000080e7)), /* +0x16: jalr ra,0(ra) */
     .stop = 0xe,
     .frame = {.sp = -16, .ra = -8}},
};

void prologue_early_return(void)
{
	CHECK(all_hold(early_return_cases, ARRAY_SIZE(early_return_cases)));
}

/* ---- 8. Code the decoder cannot follow ------------------------------ */

static const struct frame_case unknown_cases[] = {
    {.name = "rv64 all-zero parcel",
     .xlen = 8,
     CODE(C16(0x1141), C16(0x0000)), /* c.addi sp,-16; c.unimp (illegal) */
     .status = PROLOGUE_UNKNOWN},
    {.name = "rv32 all-zero parcel",
     .xlen = 4,
     CODE(C16(0x1141), C16(0x0000)), /* c.addi sp,-16; c.unimp */
     .status = PROLOGUE_UNKNOWN},
    {.name = "rv64 48-bit instruction",
     .xlen = 8,
     CODE(C16(0x1141),				  /* c.addi sp,-16 */
	  C16(0x001f), C16(0x0000), C16(0x0000)), /* .insn 6, 0x1f */
     .status = PROLOGUE_UNKNOWN},
    {.name = "rv64 64-bit instruction",
     .xlen = 8,
     CODE(C16(0x1141), /* c.addi sp,-16; .8byte 0x3f (objdump) */
	  C16(0x003f), C16(0x0000), C16(0x0000), C16(0x0000)),
     .status = PROLOGUE_UNKNOWN},
    {.name = "rv64 custom-0",
     .xlen = 8,
     CODE(C16(0x1141), I32(0x00c5850b)), /* .insn r CUSTOM_0,0,0,a0,a1,a2 */
     .status = PROLOGUE_UNKNOWN},
    {.name = "rv64 custom-1",
     .xlen = 8,
     CODE(C16(0x1141), I32(0x00c5852b)), /* .insn r CUSTOM_1,0,0,a0,a1,a2 */
     .status = PROLOGUE_UNKNOWN},
    {.name = "rv64 custom-2",
     .xlen = 8,
     CODE(C16(0x1141), I32(0x00c5855b)), /* .insn r CUSTOM_2,0,0,a0,a1,a2 */
     .status = PROLOGUE_UNKNOWN},
    {.name = "rv64 custom-3",
     .xlen = 8,
     CODE(C16(0x1141), I32(0x00c5857b)), /* .insn r CUSTOM_3,0,0,a0,a1,a2 */
     .status = PROLOGUE_UNKNOWN},
    {.name = "rv32 custom-0",
     .xlen = 4,
     CODE(C16(0x1141), I32(0x00c5850b)), /* .insn r CUSTOM_0,0,0,a0,a1,a2 */
     .status = PROLOGUE_UNKNOWN},
    {.name = "rv64 jalr with funct3 1",
     .xlen = 8,
     CODE(C16(0x1141), I32(0x000310e7)), /* .insn i JALR,1,ra,0(t1) */
     .status = PROLOGUE_UNKNOWN},
};

void prologue_unknown_code(void)
{
	CHECK(all_hold(unknown_cases, ARRAY_SIZE(unknown_cases)));
}

/*
 * Reserved encodings of the C extension (RISC-V Unprivileged ISA, "C"
 * chapter, table of RVC opcodes and each instruction's text); objdump shows
 * each as .2byte, not as an instruction (c.addi16sp with 0 it does name;
 * the ISA reserves it: "nzimm=0 is reserved").
 */
static const struct frame_case reserved_cases[] = {
    {.name = "rv64 c.addi4spn s1,sp,0",
     .xlen = 8,
     CODE(C16(0x1141), C16(0x0004)), /* c.addi sp,-16; nzuimm 0 */
     .status = PROLOGUE_UNKNOWN},
    {.name = "rv64 quadrant 0 funct3 100",
     .xlen = 8,
     CODE(C16(0x1141), C16(0x8000)),
     .status = PROLOGUE_UNKNOWN},
    {.name = "rv64 c.addi16sp sp,0",
     .xlen = 8,
     CODE(C16(0x1141), C16(0x6101)),
     .status = PROLOGUE_UNKNOWN},
    {.name = "rv64 c.lui t0,0",
     .xlen = 8,
     CODE(C16(0x1141), C16(0x6281)),
     .status = PROLOGUE_UNKNOWN},
    {.name = "rv64 c.lwsp zero",
     .xlen = 8,
     CODE(C16(0x1141), C16(0x4002)),
     .status = PROLOGUE_UNKNOWN},
    {.name = "rv64 c.ldsp zero",
     .xlen = 8,
     CODE(C16(0x1141), C16(0x6002)),
     .status = PROLOGUE_UNKNOWN},
    {.name = "rv64 c.jr zero",
     .xlen = 8,
     CODE(C16(0x1141), C16(0x8002)),
     .status = PROLOGUE_UNKNOWN},
    /* "C.ADDIW ... The code points with rd=x0 are reserved." */
    {.name = "rv64 c.addiw zero,0",
     .xlen = 8,
     CODE(C16(0x1141), C16(0x2001)),
     .status = PROLOGUE_UNKNOWN},
    {.name = "rv64 c.addiw zero,1",
     .xlen = 8,
     CODE(C16(0x1141), C16(0x2005)),
     .status = PROLOGUE_UNKNOWN},
    {.name = "rv32 quadrant 0 funct3 100",
     .xlen = 4,
     CODE(C16(0x1141), C16(0x8000)),
     .status = PROLOGUE_UNKNOWN},
    {.name = "rv32 c.addi16sp sp,0",
     .xlen = 4,
     CODE(C16(0x1141), C16(0x6101)),
     .status = PROLOGUE_UNKNOWN},
    {.name = "rv32 c.lwsp zero",
     .xlen = 4,
     CODE(C16(0x1141), C16(0x4002)),
     .status = PROLOGUE_UNKNOWN},
    {.name = "rv32 c.jr zero",
     .xlen = 4,
     CODE(C16(0x1141), C16(0x8002)),
     .status = PROLOGUE_UNKNOWN},
};

void prologue_reserved_encodings(void)
{
	CHECK(all_hold(reserved_cases, ARRAY_SIZE(reserved_cases)));
}

/* ---- Registers other than the frame's ----------------------------------- */

/*
 * Most instructions change no register the decoder watches (sp, s0, ra and
 * those holding a constant) and end there (prologue_decode.c). These name
 * no frame register as rd, yet change the frame: a call or a jump through
 * another register, a constant made from x0 or changed while one is known.
 * And a run of instructions that change nothing it follows: saves of other
 * registers, loads, arithmetic elsewhere. (Regression inputs of the filter
 * that sent instructions past the decoder before the decoder was one path.)
 */
static const struct frame_case other_register_cases[] = {
    {.name = "rv64 c.jalr a5: a call",
     .xlen = 8,
     CODE(C16(0x717d),	/* c.addi16sp sp,-16 */
	  C16(0xe406),	/* c.sdsp ra,8(sp) */
	  C16(0x9782),	/* c.jalr a5 */
	  C16(0x8526)), /* c.mv a0,s1 */
     .stop = 4,
     .frame = {.sp = -16, .ra = -8}},
    {.name = "rv64 c.jr a5: a jump, past a frame",
     .xlen = 8,
     CODE(C16(0x717d),	/* c.addi16sp sp,-16 */
	  C16(0xe406),	/* c.sdsp ra,8(sp) */
	  C16(0x8782),	/* c.jr a5 */
	  C16(0x717d)), /* c.addi16sp sp,-16: not reached from the entry */
     .stop = 4,
     .frame = {.sp = -16, .ra = -8}},
    {.name = "rv64 c.addi on a constant",
     .xlen = 8,
     CODE(C16(0x6285),	   /* c.lui t0,0x1 */
	  C16(0x02c1),	   /* c.addi t0,16 */
	  I32(0x40510133), /* sub sp,sp,t0 */
	  C16(0xe406)),	   /* c.sdsp ra,8(sp) */
     .frame = {.sp = -4112, .ra = -4104}},
    {.name = "rv64 addi a5,zero,-2000 (li)",
     .xlen = 8,
     CODE(I32(0x83000793),  /* addi a5,zero,-2000 */
	  I32(0x00f10133)), /* add sp,sp,a5 */
     .frame = {.sp = -2000}},
    {.name = "rv64 addiw a4,zero,-1000",
     .xlen = 8,
     CODE(I32(0xc180071b),  /* addiw a4,zero,-1000 */
	  I32(0x00e10133)), /* add sp,sp,a4 */
     .frame = {.sp = -1000}},
    {.name = "rv32 c.jal: a call",
     .xlen = 4,
     CODE(C16(0x1141),	/* c.addi sp,-16 */
	  C16(0xc606),	/* c.swsp ra,12(sp) */
	  C16(0x2811),	/* c.jal .+20 */
	  C16(0xc422)), /* c.swsp s0,8(sp) */
     .stop = 4,
     .frame = {.sp = -16, .ra = -4, .s0 = -8}},
    {.name = "rv64 skipped instructions",
     .xlen = 8,
     CODE(C16(0x717d),	   /* c.addi16sp sp,-16 */
	  I32(0x00813023), /* sd s0,0(sp) */
	  I32(0x00913423), /* sd s1,8(sp) */
	  I32(0x00c42683), /* lw a3,12(s0) */
	  C16(0xe026),	   /* c.sdsp s1,0(sp) */
	  C16(0x45dc),	   /* c.lw a5,12(a1) */
	  C16(0x9fa9),	   /* c.addw a5,a0 */
	  C16(0x006c),	   /* c.addi4spn a1,sp,12 */
	  C16(0x8526),	   /* c.mv a0,s1 */
	  C16(0xe406)),	   /* c.sdsp ra,8(sp) */
     .frame = {.sp = -16, .ra = -8, .s0 = -16}},
};

void prologue_other_registers(void)
{
	CHECK(all_hold(other_register_cases, ARRAY_SIZE(other_register_cases)));
}

/*
 * After a frame was built: an epilogue's first step, a constant. (Regression
 * inputs of the hand-over from a former fast path, which declined there, to
 * the general decoder.)
 */
static const struct frame_case after_frame_cases[] = {
    {.name = "rv64 sp up by part of the frame, then ret",
     .xlen = 8,
     CODE(I32(0xfe010113), /* addi sp,sp,-32 */
	  I32(0x00113c23), /* sd ra,24(sp) */
	  I32(0x01010113), /* addi sp,sp,16: the epilogue begins */
	  C16(0x8082)),	   /* c.jr ra: the body's frame holds before it */
     .stop = 12,
     .frame = {.sp = -32, .ra = -8}},
    {.name = "rv64 a constant after the saves",
     .xlen = 8,
     CODE(C16(0x717d),	   /* c.addi16sp sp,-16 */
	  C16(0xe406),	   /* c.sdsp ra,8(sp) */
	  C16(0xe022),	   /* c.sdsp s0,0(sp) */
	  C16(0x57e1),	   /* c.li a5,-8 */
	  I32(0x00f10133), /* add sp,sp,a5 */
	  C16(0xe026)),	   /* c.sdsp s1,0(sp) */
     .frame = {.sp = -24, .ra = -8, .s0 = -16}},
};

void prologue_after_frame(void)
{
	CHECK(all_hold(after_frame_cases, ARRAY_SIZE(after_frame_cases)));
}

/* sp set to an address (la sp: a stack of the function's own), or moved by
 * an amount the code does not tell. */
static const struct frame_case sp_state_cases[] = {
    {.name = "rv64 la sp",
     .xlen = 8,
     CODE(I32(0x00000117), /* auipc sp,0 (la sp,stack_top) */
	  I32(0x00010113), /* addi sp,sp,0 */
	  C16(0x1141),	   /* c.addi sp,-16 */
	  C16(0xe406)),	   /* c.sdsp ra,8(sp): relative to no known CFA */
     .frame = {.sp_state = PROLOGUE_SP_ORIGIN}},
    {.name = "rv32 la sp",
     .xlen = 4,
     CODE(I32(0x00000117), /* auipc sp,0 */
	  I32(0x00010113), /* addi sp,sp,0 */
	  C16(0x1141),	   /* c.addi sp,-16 */
	  C16(0xc606)),	   /* c.swsp ra,12(sp) */
     .frame = {.sp_state = PROLOGUE_SP_ORIGIN}},
    {.name = "rv64 mv sp,a0",
     .xlen = 8,
     CODE(C16(0x1141),	/* c.addi sp,-16 */
	  C16(0xe406),	/* c.sdsp ra,8(sp) */
	  C16(0x812a)), /* c.mv sp,a0 */
     .frame = {.sp_state = PROLOGUE_SP_LOST, .ra = -8}},
    {.name = "rv32 mv sp,a0",
     .xlen = 4,
     CODE(C16(0x1141),	/* c.addi sp,-16 */
	  C16(0xc606),	/* c.swsp ra,12(sp) */
	  C16(0x812a)), /* c.mv sp,a0 */
     .frame = {.sp_state = PROLOGUE_SP_LOST, .ra = -4}},
};

void prologue_sp_origin_and_lost(void)
{
	CHECK(all_hold(sp_state_cases, ARRAY_SIZE(sp_state_cases)));
}

/*
 * Constants built in code wrap as the machine's registers do: lui t0,0x80000
 * (t0 = -2^31 on rv64), then doublings of t0 reach -2^63 after 32 and wrap
 * past it on the 33rd; that t0 added to or subtracted from sp, or added to
 * sp into s0, overflows the frame's offsets too. Encodings from objdump
 * (.option norvc).
 */
#define LUI_T0_80000 I32(0x800002b7)
#define ADD_T0_T0_T0 I32(0x005282b3)
#define DOUBLE_T0_32                                                                     \
	ADD_T0_T0_T0, ADD_T0_T0_T0, ADD_T0_T0_T0, ADD_T0_T0_T0, ADD_T0_T0_T0,            \
	    ADD_T0_T0_T0, ADD_T0_T0_T0, ADD_T0_T0_T0, ADD_T0_T0_T0, ADD_T0_T0_T0,        \
	    ADD_T0_T0_T0, ADD_T0_T0_T0, ADD_T0_T0_T0, ADD_T0_T0_T0, ADD_T0_T0_T0,        \
	    ADD_T0_T0_T0, ADD_T0_T0_T0, ADD_T0_T0_T0, ADD_T0_T0_T0, ADD_T0_T0_T0,        \
	    ADD_T0_T0_T0, ADD_T0_T0_T0, ADD_T0_T0_T0, ADD_T0_T0_T0, ADD_T0_T0_T0,        \
	    ADD_T0_T0_T0, ADD_T0_T0_T0, ADD_T0_T0_T0, ADD_T0_T0_T0, ADD_T0_T0_T0,        \
	    ADD_T0_T0_T0, ADD_T0_T0_T0
void prologue_constants_wrap(void)
{
	struct fake_stack s;
	struct fake_code code;
	struct prologue_analysis analysis;
	uintptr_t start;
	size_t functions[4];

	fake_stack_init(&s);
	fake_code_init(&code);
	functions[0] = FAKE_FUNCTION(&code, "wraps", LUI_T0_80000, DOUBLE_T0_32,
				     ADD_T0_T0_T0, C16(0x9002)); /* c.ebreak */
	functions[1] = FAKE_FUNCTION(&code, "adds", LUI_T0_80000, DOUBLE_T0_32,
				     I32(0x00510133), /* add sp,sp,t0 */
				     I32(0x00510133), C16(0x9002));
	functions[2] = FAKE_FUNCTION(&code, "subtracts", LUI_T0_80000, DOUBLE_T0_32,
				     I32(0x40510133), /* sub sp,sp,t0 */
				     C16(0x9002));
	functions[3] = FAKE_FUNCTION(&code, "frames", LUI_T0_80000, DOUBLE_T0_32,
				     I32(0xff010113), /* addi sp,sp,-16 */
				     I32(0x00510433), /* add s0,sp,t0 */
				     I32(0xff040113), /* addi sp,s0,-16 */
				     C16(0x9002));
	start = fake_code_seal(&code, &s.config);
	for (size_t i = 0; i < 4; i++) {
		uintptr_t function = start + functions[i];
		uintptr_t ebreak =
		    (i + 1 < 4 ? start + functions[i + 1] : fake_code_end(&code)) - 2;

		CHECK(prologue_analyze(&s.config, function, ebreak + 2, ebreak, 8,
				       &analysis) == PROLOGUE_OK);
		s.regs.pc = ebreak;
		s.regs.sp = fake_addr(&s, 100);
		s.regs.ra = FAKE_TEXT_START;
		CHECK(fake_walk_with(&s, TRACER_PROLOGUE) >= 1 &&
		      s.stop != TRACER_RUNNING);
	}
	fake_code_free(&code);
	fake_stack_free(&s);
}

/* Code outside text, or cut by its end, is not read. */
void prologue_unreadable_code(void)
{
	struct fake_code code;
	struct tracer_config config;
	struct prologue_analysis analysis;
	uintptr_t start;
	uintptr_t end;

	memset(&config, 0, sizeof(config));
	fake_code_init(&code);
	FAKE_FUNCTION(&code, NULL, C16(0x1141), /* c.addi sp,-16 */
		      C16(0x0113));		/* the low half of addi sp,sp,N */
	start = fake_code_seal(&code, &config);
	end = fake_code_end(&code);
	/* The 32-bit instruction's upper half lies past text. */
	CHECK(prologue_analyze(&config, start, end, end, 8, &analysis) ==
	      PROLOGUE_UNREADABLE);
	CHECK(prologue_analyze(&config, start, end + 64, end + 32, 8, &analysis) ==
	      PROLOGUE_UNREADABLE);
	/* Up to it the code is readable: -16. */
	CHECK(prologue_analyze(&config, start, end, start + 2, 8, &analysis) ==
	      PROLOGUE_OK);
	CHECK(analysis.frame.sp_state == PROLOGUE_SP_RELATIVE &&
	      analysis.frame.sp_offset == -16);
	/* A function whose end is odd: its last parcel is half outside. */
	CHECK(prologue_analyze(&config, start, start + 3, start + 4, 8, &analysis) ==
	      PROLOGUE_UNREADABLE);
	CHECK(prologue_analyze(&config, start, start + 3, start + 2, 8, &analysis) ==
	      PROLOGUE_OK);
	/* A function starting outside text, or at an odd address. */
	CHECK(prologue_analyze(&config, end + 2, end + 6, end + 4, 8, &analysis) ==
	      PROLOGUE_UNREADABLE);
	CHECK(prologue_analyze(&config, start - 4, end, start + 2, 8, &analysis) ==
	      PROLOGUE_UNREADABLE);
	CHECK(prologue_analyze(&config, start + 1, end, start + 3, 8, &analysis) ==
	      PROLOGUE_UNREADABLE);
	fake_code_free(&code);
}

/* A function end past text, or below the start, is text's end; a pc past
 * the function's end decodes the whole function. */
void prologue_function_bounds(void)
{
	struct fake_code code;
	struct tracer_config config;
	struct prologue_analysis analysis;
	uintptr_t start;
	uintptr_t end;

	memset(&config, 0, sizeof(config));
	fake_code_init(&code);
	FAKE_FUNCTION(&code, NULL, C16(0x1141), /* c.addi sp,-16 */
		      C16(0xe406),		/* c.sdsp ra,8(sp) */
		      C16(0x1141));		/* c.addi sp,-16 */
	start = fake_code_seal(&code, &config);
	end = fake_code_end(&code);
	CHECK(prologue_analyze(&config, start, end + 64, end + 32, 8, &analysis) ==
	      PROLOGUE_OK);
	CHECK(analysis.frame.sp_offset == -32 && analysis.frame.ra_saved &&
	      analysis.frame.ra_offset == -8);
	CHECK(analysis.stop == end);
	CHECK(prologue_analyze(&config, start, start - 2, end, 8, &analysis) ==
	      PROLOGUE_OK);
	CHECK(analysis.frame.sp_offset == -32 && analysis.stop == end);
	/* A function of 4 bytes: the third instruction is not its own. */
	CHECK(prologue_analyze(&config, start, start + 4, end, 8, &analysis) ==
	      PROLOGUE_OK);
	CHECK(analysis.frame.sp_offset == -16 && analysis.frame.ra_saved &&
	      analysis.frame.ra_offset == -8);
	CHECK(analysis.stop == start + 4);
	fake_code_free(&code);
}

/* ---- 4. The frame at every position of a prologue ----------------------- */

/* A function's frame at pc (bytes from its start); stop 0: at pc. */
struct position {
	size_t pc;
	size_t stop;
	struct expected frame;
};

static bool positions_hold(const char *name, unsigned xlen, const uint16_t *code,
			   size_t count, const struct position *positions, size_t n)
{
	struct frame_case c;
	char label[64];
	bool all = true;

	if (count > MAX_PARCELS)
		return false; /* the test itself is broken */
	memset(&c, 0, sizeof(c));
	memcpy(c.code, code, count * sizeof(uint16_t));
	c.count = count;
	c.xlen = xlen;
	c.name = label;
	for (size_t i = 0; i < n; i++) {
		snprintf(label, sizeof(label), "%s at +%#zx", name, positions[i].pc);
		c.frame = positions[i].frame;
		all = case_holds_at(&c, positions[i].pc,
				    positions[i].stop ? positions[i].stop
						      : positions[i].pc) &&
		      all;
	}
	return all;
}

/* GCC -O2 -fno-omit-frame-pointer's shape, compressed (rv64). */
static const uint16_t callee_code[] = {
    C16(0x713d),     /* +0x00 c.addi16sp sp,-32 */
    C16(0xec06),     /* +0x02 c.sdsp ra,24(sp) */
    C16(0xe822),     /* +0x04 c.sdsp s0,16(sp) */
    C16(0x1000),     /* +0x06 c.addi4spn s0,sp,32 */
    C16(0x852e),     /* +0x08 c.mv a0,a1 */
    I32(0x00000097), /* +0x0a auipc ra,0 (call leaf) */
    I32(0x000080e7), /* +0x0e jalr ra,0(ra) */
    C16(0x60e2),     /* +0x12 c.ldsp ra,24(sp) */
    C16(0x6442),     /* +0x14 c.ldsp s0,16(sp) */
    C16(0x6105),     /* +0x16 c.addi16sp sp,32 */
    C16(0x8082),     /* +0x18 c.jr ra */
};
#define CALLEE_RETURN 0x12

/* The same, 32-bit instructions only (.option norvc). */
static const uint16_t callee32_code[] = {
    I32(0xfe010113), /* +0x00 addi sp,sp,-32 */
    I32(0x00113c23), /* +0x04 sd ra,24(sp) */
    I32(0x00813823), /* +0x08 sd s0,16(sp) */
    I32(0x02010413), /* +0x0c addi s0,sp,32 */
    I32(0x00058513), /* +0x10 mv a0,a1 */
    I32(0x00000097), /* +0x14 auipc ra,0 (call leaf) */
    I32(0x000080e7), /* +0x18 jalr ra,0(ra) */
    I32(0x01813083), /* +0x1c ld ra,24(sp) */
    I32(0x01013403), /* +0x20 ld s0,16(sp) */
    I32(0x02010113), /* +0x24 addi sp,sp,32 */
    I32(0x00008067), /* +0x28 ret */
};
#define CALLEE32_RETURN 0x1c

/* The rv32 shape (-march=rv32imac -mabi=ilp32). */
static const uint16_t callee_rv32_code[] = {
    C16(0x1141),     /* +0x00 c.addi sp,-16 */
    C16(0xc606),     /* +0x02 c.swsp ra,12(sp) */
    C16(0xc422),     /* +0x04 c.swsp s0,8(sp) */
    C16(0x0800),     /* +0x06 c.addi4spn s0,sp,16 */
    C16(0x852e),     /* +0x08 c.mv a0,a1 */
    I32(0x00000097), /* +0x0a auipc ra,0 (call g) */
    I32(0x000080e7), /* +0x0e jalr ra,0(ra) */
};

/* Frames of callee_code, by hand: sp -32 from +2, ra at -32 + 24 from +4,
 * s0 at -32 + 16 from +6, s0 = sp + 32 = the CFA from +8; the prologue
 * ends at the call's jalr (+0x0e). */
static const struct position callee_positions[] = {
    {0x00, 0, {.sp = 0}},
    {0x02, 0, {.sp = -32}},
    {0x04, 0, {.sp = -32, .ra = -8}},
    {0x06, 0, {.sp = -32, .ra = -8, .s0 = -16}},
    {0x08, 0, {.sp = -32, .fp_valid = true, .fp = 0, .ra = -8, .s0 = -16}},
    {0x0a, 0, {.sp = -32, .fp_valid = true, .fp = 0, .ra = -8, .s0 = -16}},
    {0x0e, 0, {.sp = -32, .fp_valid = true, .fp = 0, .ra = -8, .s0 = -16}},
    {0x12, 0x0e, {.sp = -32, .fp_valid = true, .fp = 0, .ra = -8, .s0 = -16}},
};

static const struct position callee32_positions[] = {
    {0x00, 0, {.sp = 0}},
    {0x04, 0, {.sp = -32}},
    {0x08, 0, {.sp = -32, .ra = -8}},
    {0x0c, 0, {.sp = -32, .ra = -8, .s0 = -16}},
    {0x10, 0, {.sp = -32, .fp_valid = true, .fp = 0, .ra = -8, .s0 = -16}},
    {0x14, 0, {.sp = -32, .fp_valid = true, .fp = 0, .ra = -8, .s0 = -16}},
    {0x18, 0, {.sp = -32, .fp_valid = true, .fp = 0, .ra = -8, .s0 = -16}},
    {0x1c, 0x18, {.sp = -32, .fp_valid = true, .fp = 0, .ra = -8, .s0 = -16}},
};

/* rv32: sp -16, ra at -16 + 12, s0 at -16 + 8, s0 = sp + 16. */
static const struct position callee_rv32_positions[] = {
    {0x00, 0, {.sp = 0}},
    {0x02, 0, {.sp = -16}},
    {0x04, 0, {.sp = -16, .ra = -4}},
    {0x06, 0, {.sp = -16, .ra = -4, .s0 = -8}},
    {0x08, 0, {.sp = -16, .fp_valid = true, .fp = 0, .ra = -4, .s0 = -8}},
    {0x0a, 0, {.sp = -16, .fp_valid = true, .fp = 0, .ra = -4, .s0 = -8}},
    {0x0e, 0, {.sp = -16, .fp_valid = true, .fp = 0, .ra = -4, .s0 = -8}},
    {0x12, 0x0e, {.sp = -16, .fp_valid = true, .fp = 0, .ra = -4, .s0 = -8}},
};

void prologue_every_position(void)
{
	CHECK(positions_hold("rv64 callee", 8, callee_code, ARRAY_SIZE(callee_code),
			     callee_positions, ARRAY_SIZE(callee_positions)));
	CHECK(positions_hold("rv64 callee32", 8, callee32_code, ARRAY_SIZE(callee32_code),
			     callee32_positions, ARRAY_SIZE(callee32_positions)));
	CHECK(positions_hold("rv32 callee", 4, callee_rv32_code,
			     ARRAY_SIZE(callee_rv32_code), callee_rv32_positions,
			     ARRAY_SIZE(callee_rv32_positions)));
}

/*
 * An exact pc (a trap's) in the epilogue that follows the call: after
 * ld ra, ra is the caller's again (in the register); after ld s0, so is s0
 * (no frame pointer any more); after the addi, sp is back at the CFA.
 */
static const struct position callee_epilogue[] = {
    {0x14, 0x0e, {.sp = -32, .fp_valid = true, .fp = 0, .s0 = -16}},
    {0x16, 0x0e, {.sp = -32}},
    {0x18, 0x0e, {.sp = 0}},
};

static const struct position callee32_epilogue[] = {
    {0x20, 0x18, {.sp = -32, .fp_valid = true, .fp = 0, .s0 = -16}},
    {0x24, 0x18, {.sp = -32}},
    {0x28, 0x18, {.sp = 0}},
};

void prologue_exact_pc_in_epilogue_after_call(void)
{
	/* Both run, so that the output shows each. */
	bool compressed =
	    positions_hold("rv64 callee", 8, callee_code, ARRAY_SIZE(callee_code),
			   callee_epilogue, ARRAY_SIZE(callee_epilogue));
	bool full =
	    positions_hold("rv64 callee32", 8, callee32_code, ARRAY_SIZE(callee32_code),
			   callee32_epilogue, ARRAY_SIZE(callee32_epilogue));

	CHECK(compressed && full);
}

/* ---- Walks over a program of several functions ---------------------- */

/* The outermost function: its stack is its own (la sp), no caller. */
static const uint16_t start_code[] = {
    I32(0x00000117), /* +0x00 auipc sp,0 (la sp,stack_top) */
    I32(0x00010113), /* +0x04 addi sp,sp,0 */
    I32(0x00000097), /* +0x08 auipc ra,0 (call caller) */
    I32(0x000080e7), /* +0x0c jalr ra,0(ra) */
    C16(0xa001),     /* +0x10 c.j . */
};
#define START_RETURN 0x10

static const uint16_t caller_code[] = {
    C16(0x1141),     /* +0x00 c.addi sp,-16 */
    C16(0xe406),     /* +0x02 c.sdsp ra,8(sp) */
    C16(0xe022),     /* +0x04 c.sdsp s0,0(sp) */
    C16(0x0800),     /* +0x06 c.addi4spn s0,sp,16 */
    I32(0x00000097), /* +0x08 auipc ra,0 (call callee) */
    I32(0x000080e7), /* +0x0c jalr ra,0(ra) */
    C16(0x60a2),     /* +0x10 c.ldsp ra,8(sp) */
    C16(0x6402),     /* +0x12 c.ldsp s0,0(sp) */
    C16(0x0141),     /* +0x14 c.addi sp,16 */
    C16(0x8082),     /* +0x16 c.jr ra */
};
#define CALLER_RETURN 0x10

static const uint16_t leaf_code[] = {
    C16(0x0505), /* c.addi a0,1 */
    C16(0x8082), /* c.jr ra */
};

/* Calls without having saved ra. */
static const uint16_t nosave_code[] = {
    C16(0x1141),     /* +0x00 c.addi sp,-16 */
    I32(0x00000097), /* +0x02 auipc ra,0 (call leaf) */
    I32(0x000080e7), /* +0x06 jalr ra,0(ra) */
    C16(0x0141),     /* +0x0a c.addi sp,16 */
    C16(0x8082),     /* c.jr ra */
};
#define NOSAVE_RETURN 0x0a

static const uint16_t alloca_code[] = {
    C16(0x713d),     /* +0x00 c.addi16sp sp,-32 */
    C16(0xec06),     /* +0x02 c.sdsp ra,24(sp) */
    C16(0xe822),     /* +0x04 c.sdsp s0,16(sp) */
    C16(0x1000),     /* +0x06 c.addi4spn s0,sp,32 */
    I32(0x40a10133), /* +0x08 sub sp,sp,a0 */
    I32(0x00000097), /* +0x0c auipc ra,0 (call leaf) */
    I32(0x000080e7), /* +0x10 jalr ra,0(ra) */
    I32(0xfe040113), /* +0x14 addi sp,s0,-32 */
    C16(0x60e2),     /* c.ldsp ra,24(sp) */
    C16(0x6442),     /* c.ldsp s0,16(sp) */
    C16(0x6105),     /* c.addi16sp sp,32 */
    C16(0x8082),     /* c.jr ra */
};
#define ALLOCA_RETURN 0x14

/* 8176 bytes: more than the fake stack holds. */
static const uint16_t big_code[] = {
    C16(0x6289),     /* c.lui t0,0x2 */
    C16(0x12c1),     /* c.addi t0,-16 */
    I32(0x40510133), /* sub sp,sp,t0 */
    C16(0x0001),     /* +0x08 c.nop */
};
#define BIG_BODY 0x08

/* sp moves up: the CFA lies below sp. */
static const uint16_t upward_code[] = {
    C16(0x0141), /* c.addi sp,16 */
    C16(0x0001), /* +0x02 c.nop */
};
#define UPWARD_BODY 0x02

/* ra saved above the CFA. */
static const uint16_t above_code[] = {
    C16(0x1141), /* c.addi sp,-16 */
    C16(0xec06), /* c.sdsp ra,24(sp): CFA + 8 */
    C16(0x0001), /* +0x04 c.nop */
};
#define ABOVE_BODY 0x04

static const uint16_t lost_code[] = {
    C16(0x1141),     /* c.addi sp,-16 */
    C16(0xe406),     /* c.sdsp ra,8(sp) */
    C16(0x812a),     /* c.mv sp,a0 */
    I32(0x00000097), /* +0x06 auipc ra,0 (call leaf) */
    I32(0x000080e7), /* jalr ra,0(ra) */
};
#define LOST_BODY   0x06
#define LOST_RETURN 0x0e

static const uint16_t illegal_code[] = {
    C16(0x1141),     /* c.addi sp,-16 */
    C16(0xe406),     /* c.sdsp ra,8(sp) */
    C16(0x0000),     /* c.unimp */
    I32(0x00000097), /* +0x06 auipc ra,0 (call leaf) */
    I32(0x000080e7), /* jalr ra,0(ra) */
};
#define ILLEGAL_BODY   0x06
#define ILLEGAL_RETURN 0x0e

enum chain_function {
	START,
	CALLER,
	CALLEE,
	CALLEE32,
	LEAF,
	NOSAVE,
	ALLOCA,
	BIG,
	UPWARD,
	ABOVE,
	LOST,
	ILLEGAL,
	CHAIN_FUNCTIONS
};

static const struct {
	const char *name;
	const uint16_t *code;
	size_t count;
} chain_functions[CHAIN_FUNCTIONS] = {
#define FUNCTION(id, name, code) [id] = {name, code, ARRAY_SIZE(code)}
    FUNCTION(START, "start", start_code),
    FUNCTION(CALLER, "caller", caller_code),
    FUNCTION(CALLEE, "callee", callee_code),
    FUNCTION(CALLEE32, "callee32", callee32_code),
    FUNCTION(LEAF, "leaf", leaf_code),
    FUNCTION(NOSAVE, "nosave", nosave_code),
    FUNCTION(ALLOCA, "alloca", alloca_code),
    FUNCTION(BIG, "big", big_code),
    FUNCTION(UPWARD, "upward", upward_code),
    FUNCTION(ABOVE, "above", above_code),
    FUNCTION(LOST, "lost", lost_code),
    FUNCTION(ILLEGAL, "illegal", illegal_code),
#undef FUNCTION
};

struct chain {
	struct fake_stack stack;
	struct fake_code code;
	size_t at[CHAIN_FUNCTIONS];
};

static uintptr_t in(const struct chain *c, enum chain_function f, size_t offset)
{
	return fake_code_addr(&c->code, c->at[f] + offset);
}

static uintptr_t word(const struct chain *c, size_t index)
{
	return fake_addr(&c->stack, index);
}

static void put(struct chain *c, size_t index, uintptr_t value)
{
	fake_put(&c->stack, word(c, index), value);
}

/*
 * The stack of start <- caller <- callee (or a function in callee's place
 * with the same slots), in words:
 *   start:  sp = 104 (its own stack's top)
 *   caller: CFA 104, sp 102; ra at 103 (start + START_RETURN), start's s0
 *           (0) at 102; s0 = its CFA = 104
 *   callee: CFA 102, sp 98; ra at 101 (caller + CALLER_RETURN), caller's s0
 *           (104) at 100; s0 = its CFA = 102
 */
static void build_chain(struct chain *c)
{
	fake_stack_init(&c->stack);
	fake_code_init(&c->code);
	for (int f = 0; f < CHAIN_FUNCTIONS; f++)
		c->at[f] =
		    fake_code_function(&c->code, chain_functions[f].name,
				       chain_functions[f].code, chain_functions[f].count);
	fake_code_seal(&c->code, &c->stack.config);
	/* start's frame is the outermost: its sp is the top of the stack. */
	c->stack.range.end = word(c, 104);
	put(c, 103, in(c, START, START_RETURN));
	put(c, 102, 0);
	put(c, 101, in(c, CALLER, CALLER_RETURN));
	put(c, 100, word(c, 104));
}

static void free_chain(struct chain *c)
{
	fake_code_free(&c->code);
	fake_stack_free(&c->stack);
}

static size_t walk(struct chain *c)
{
	return fake_walk_with(&c->stack, TRACER_PROLOGUE);
}

static void start_at(struct chain *c, uintptr_t pc, uintptr_t ra, size_t sp_word,
		     uintptr_t s0)
{
	c->stack.regs.pc = pc;
	c->stack.regs.ra = ra;
	c->stack.regs.sp = word(c, sp_word);
	c->stack.regs.s[0] = s0;
}

static bool walked_frame_is(const struct chain *c, size_t i, uintptr_t pc, uintptr_t sp,
			    uintptr_t fp)
{
	const struct tracer_frame *frame = &c->stack.frames[i];

	return frame->pc == pc && frame->sp == sp && frame->fp == fp &&
	       frame->is_return_address == (i > 0) &&
	       frame->found_by == TRACER_PROLOGUE && !frame->found_by_fallback;
}

/* The frames above callee: caller, then start, whose la sp ends the walk. */
static bool callers_follow(const struct chain *c, size_t n)
{
	return n == 3 && c->stack.stop == TRACER_STOP_OUTERMOST &&
	       walked_frame_is(c, 1, in(c, CALLER, CALLER_RETURN), word(c, 102),
			       word(c, 104)) &&
	       walked_frame_is(c, 2, in(c, START, START_RETURN), word(c, 104), 0);
}

/*
 * Walks from an exact pc at each position of callee (or callee32, whose
 * frames are the same). The registers and stack are what the code has done
 * by then, from the expected frame (CFA = word 102). A slot not yet written
 * holds a wrong but plausible value (start's return address, word 200), and
 * a register already saved holds one too: reading the wrong one shows.
 */
static bool walk_at_position(struct chain *c, enum chain_function f,
			     const struct position *p)
{
	const struct expected *e = &p->frame;
	const uintptr_t wrong_ra = in(c, START, START_RETURN);
	uintptr_t s0 = e->fp_valid ? word(c, 102) + (uintptr_t)e->fp : word(c, 104);
	size_t n;

	put(c, 101, e->ra ? in(c, CALLER, CALLER_RETURN) : wrong_ra);
	put(c, 100, e->s0 ? word(c, 104) : word(c, 200));
	start_at(c, in(c, f, p->pc), e->ra ? wrong_ra : in(c, CALLER, CALLER_RETURN),
		 (size_t)(102 + e->sp / (intptr_t)WORD), s0);
	n = walk(c);
	if (!(callers_follow(c, n) &&
	      walked_frame_is(c, 0, in(c, f, p->pc), c->stack.regs.sp, s0))) {
		printf("  walk from %s+%#zx: %zu frames, stop %d\n",
		       chain_functions[f].name, p->pc, n, (int)c->stack.stop);
		return false;
	}
	return true;
}

void prologue_walk_every_position(void)
{
	struct chain c;
	bool all = true;

	build_chain(&c);
	for (size_t i = 0; i < ARRAY_SIZE(callee_positions); i++)
		all = walk_at_position(&c, CALLEE, &callee_positions[i]) && all;
	for (size_t i = 0; i < ARRAY_SIZE(callee32_positions); i++)
		all = walk_at_position(&c, CALLEE32, &callee32_positions[i]) && all;
	CHECK(all);
	free_chain(&c);
}

/* 7, 10. A leaf has no frame: CFA = sp, ra live; then callee, caller, start. */
void prologue_walk_from_leaf(void)
{
	struct chain c;

	build_chain(&c);
	for (size_t pc = 0; pc <= 2; pc += 2) {
		start_at(&c, in(&c, LEAF, pc), in(&c, CALLEE, CALLEE_RETURN), 98,
			 word(&c, 102));
		CHECK(walk(&c) == 4);
		CHECK(c.stack.stop == TRACER_STOP_OUTERMOST);
		CHECK(walked_frame_is(&c, 0, in(&c, LEAF, pc), word(&c, 98),
				      word(&c, 102)));
		CHECK(walked_frame_is(&c, 1, in(&c, CALLEE, CALLEE_RETURN), word(&c, 98),
				      word(&c, 102)));
		CHECK(walked_frame_is(&c, 2, in(&c, CALLER, CALLER_RETURN), word(&c, 102),
				      word(&c, 104)));
		CHECK(walked_frame_is(&c, 3, in(&c, START, START_RETURN), word(&c, 104),
				      0));
	}
	/* The same through callee32. */
	start_at(&c, in(&c, LEAF, 0), in(&c, CALLEE32, CALLEE32_RETURN), 98,
		 word(&c, 102));
	CHECK(walk(&c) == 4);
	CHECK(c.stack.stop == TRACER_STOP_OUTERMOST);
	CHECK(walked_frame_is(&c, 1, in(&c, CALLEE32, CALLEE32_RETURN), word(&c, 98),
			      word(&c, 102)));
	CHECK(walked_frame_is(&c, 2, in(&c, CALLER, CALLER_RETURN), word(&c, 102),
			      word(&c, 104)));
	CHECK(c.stack.frames[1].name && strcmp(c.stack.frames[1].name, "callee32") == 0);
	free_chain(&c);
}

/* A caller's frame made a call, which overwrote ra: one that saved none
 * cannot be unwound. */
void prologue_walk_ra_not_saved(void)
{
	struct chain c;

	build_chain(&c);
	start_at(&c, in(&c, LEAF, 0), in(&c, NOSAVE, NOSAVE_RETURN), 98, word(&c, 102));
	CHECK(walk(&c) == 2);
	CHECK(c.stack.stop == TRACER_STOP_RA_NOT_SAVED);
	CHECK(walked_frame_is(&c, 1, in(&c, NOSAVE, NOSAVE_RETURN), word(&c, 98),
			      word(&c, 102)));
	free_chain(&c);
}

/*
 * 3. alloca's frame: CFA = s0 = word 102 whatever sp is (here 6 words
 * lower than the 32-byte frame: sp = word 92); ra and s0 in callee's slots.
 */
void prologue_walk_alloca(void)
{
	struct chain c;

	build_chain(&c);
	start_at(&c, in(&c, LEAF, 0), in(&c, ALLOCA, ALLOCA_RETURN), 92, word(&c, 102));
	CHECK(walk(&c) == 4);
	CHECK(c.stack.stop == TRACER_STOP_OUTERMOST);
	CHECK(walked_frame_is(&c, 1, in(&c, ALLOCA, ALLOCA_RETURN), word(&c, 92),
			      word(&c, 102)));
	CHECK(walked_frame_is(&c, 2, in(&c, CALLER, CALLER_RETURN), word(&c, 102),
			      word(&c, 104)));
	CHECK(walked_frame_is(&c, 3, in(&c, START, START_RETURN), word(&c, 104), 0));
	free_chain(&c);
}

/* A CFA not above the frame below it: a corrupt s0 in alloca's frame, or
 * code that moved sp up. */
void prologue_walk_not_ascending(void)
{
	struct chain c;

	build_chain(&c);
	start_at(&c, in(&c, LEAF, 0), in(&c, ALLOCA, ALLOCA_RETURN), 92, word(&c, 90));
	CHECK(walk(&c) == 2);
	CHECK(c.stack.stop == TRACER_STOP_NOT_ASCENDING);
	/* Equal is not above either, past the first frame. */
	start_at(&c, in(&c, LEAF, 0), in(&c, ALLOCA, ALLOCA_RETURN), 92, word(&c, 92));
	CHECK(walk(&c) == 2);
	CHECK(c.stack.stop == TRACER_STOP_NOT_ASCENDING);
	/* CFA = sp - 16. */
	start_at(&c, in(&c, UPWARD, UPWARD_BODY), in(&c, CALLER, CALLER_RETURN), 98, 0);
	CHECK(walk(&c) == 1);
	CHECK(c.stack.stop == TRACER_STOP_NOT_ASCENDING);
	free_chain(&c);
}

void prologue_walk_outside_stack(void)
{
	struct chain c;

	build_chain(&c);
	/* CFA = word 100 + 8176 / 8: past the 512-word stack. */
	start_at(&c, in(&c, BIG, BIG_BODY), in(&c, CALLER, CALLER_RETURN), 100, 0);
	CHECK(walk(&c) == 1);
	CHECK(c.stack.stop == TRACER_STOP_OUTSIDE_STACK);
	/* CFA = the stack's top, allowed; ra's slot above it is not. */
	c.stack.range.end = word(&c, FAKE_STACK_WORDS);
	start_at(&c, in(&c, ABOVE, ABOVE_BODY), 0, FAKE_STACK_WORDS - 2, 0);
	CHECK(walk(&c) == 1);
	CHECK(c.stack.stop == TRACER_STOP_OUTSIDE_STACK);
	/* Lower down the same slot is read: word 100 + 2 + 1 holds start's
	 * return address. start's sp is then word 102, below the top (104):
	 * its la sp does not make it the outermost frame. */
	c.stack.range.end = word(&c, 104);
	start_at(&c, in(&c, ABOVE, ABOVE_BODY), 0, 100, 0);
	CHECK(walk(&c) == 2);
	CHECK(c.stack.stop == TRACER_STOP_EARLY_OUTERMOST);
	CHECK(walked_frame_is(&c, 1, in(&c, START, START_RETURN), word(&c, 102), 0));
	free_chain(&c);
}

/* 9. A return address must lie in text, just after a call. */
void prologue_walk_bad_return_address(void)
{
	struct chain c;
	uintptr_t caller_fp;

	build_chain(&c);
	caller_fp = word(&c, 104);
	/* caller + 4 follows c.sdsp ra,8(sp). */
	put(&c, 101, in(&c, CALLER, 4));
	start_at(&c, in(&c, CALLEE, 8), 0, 98, word(&c, 102));
	CHECK(walk(&c) == 1);
	CHECK(c.stack.stop == TRACER_STOP_NOT_A_CALL);
	put(&c, 101, 0x1000);
	CHECK(walk(&c) == 1);
	CHECK(c.stack.stop == TRACER_STOP_PC_OUTSIDE_TEXT);
	put(&c, 101, fake_code_end(&c.code) + 2);
	CHECK(walk(&c) == 1);
	CHECK(c.stack.stop == TRACER_STOP_PC_OUTSIDE_TEXT);
	/* The live ra of a frame that saved none yet. */
	start_at(&c, in(&c, CALLEE, 0), 0, 102, caller_fp);
	CHECK(walk(&c) == 1);
	CHECK(c.stack.stop == TRACER_STOP_PC_OUTSIDE_TEXT);
	start_at(&c, in(&c, CALLEE, 0), in(&c, CALLER, 2), 102, caller_fp);
	CHECK(walk(&c) == 1);
	CHECK(c.stack.stop == TRACER_STOP_NOT_A_CALL);
	free_chain(&c);
}

/* 8. Code the decoder cannot follow, in the first frame or a caller's; no
 * symbol for the pc. */
void prologue_walk_unknown_code(void)
{
	struct chain c;

	build_chain(&c);
	start_at(&c, in(&c, LOST, LOST_BODY), 0, 98, 0);
	CHECK(walk(&c) == 1);
	CHECK(c.stack.stop == TRACER_STOP_UNKNOWN_CODE);
	start_at(&c, in(&c, ILLEGAL, ILLEGAL_BODY), 0, 98, 0);
	CHECK(walk(&c) == 1);
	CHECK(c.stack.stop == TRACER_STOP_UNKNOWN_CODE);
	start_at(&c, in(&c, LEAF, 0), in(&c, LOST, LOST_RETURN), 98, 0);
	CHECK(walk(&c) == 2);
	CHECK(c.stack.stop == TRACER_STOP_UNKNOWN_CODE);
	start_at(&c, in(&c, LEAF, 0), in(&c, ILLEGAL, ILLEGAL_RETURN), 98, 0);
	CHECK(walk(&c) == 2);
	CHECK(c.stack.stop == TRACER_STOP_UNKNOWN_CODE);
	/* start's la sp: its stack starts there. */
	start_at(&c, in(&c, START, 8), 0, 104, 0);
	CHECK(walk(&c) == 1);
	CHECK(c.stack.stop == TRACER_STOP_OUTERMOST);
	c.stack.config.symtab = NULL;
	start_at(&c, in(&c, LEAF, 0), in(&c, CALLEE, CALLEE_RETURN), 98, word(&c, 102));
	CHECK(walk(&c) == 1);
	CHECK(c.stack.stop == TRACER_STOP_NO_SYMBOL);
	free_chain(&c);
}

/* ---- 9. Return addresses follow calls ----------------------------------- */

static const uint16_t calls_code[] = {
    I32(0x000000ef), /* +0x00 jal ra,. */
    I32(0x000300e7), /* +0x04 jalr ra,0(t1) */
    I32(0x00000097), /* +0x08 auipc ra,0 (call) */
    I32(0x000080e7), /* +0x0c jalr ra,0(ra) */
    C16(0x9302),     /* +0x10 c.jalr t1 */
    I32(0x000002ef), /* +0x12 jal t0,. */
    I32(0x0000006f), /* +0x16 j . */
    C16(0x8082),     /* +0x1a c.jr ra */
    I32(0x00008067), /* +0x1c jalr zero,0(ra) */
    I32(0x00150513), /* +0x20 addi a0,a0,1 */
    C16(0x0505),     /* +0x24 c.addi a0,1 */
    C16(0xa001),     /* +0x26 c.j . */
    C16(0x2001),     /* +0x28 rv32: c.jal .; rv64: c.addiw zero,0 */
};

struct after {
	size_t address; /* bytes from the start of calls_code */
	unsigned xlen;
	bool is_call;
};

static const struct after afters[] = {
    {0x04, 8, true},  {0x08, 8, true},	{0x10, 8, true},  {0x12, 8, true},
    {0x16, 8, true},  {0x1a, 8, false}, {0x1c, 8, false}, {0x20, 8, false},
    {0x24, 8, false}, {0x26, 8, false}, {0x28, 8, false}, {0x2a, 4, true},
    {0x2a, 8, false}, {0x04, 4, true},	{0x1a, 4, false},
};

void prologue_return_address_follows_call(void)
{
	struct fake_code code;
	struct tracer_config config;
	uintptr_t start;
	bool all = true;

	memset(&config, 0, sizeof(config));
	fake_code_init(&code);
	fake_code_function(&code, NULL, calls_code, ARRAY_SIZE(calls_code));
	start = fake_code_seal(&code, &config);
	for (size_t i = 0; i < ARRAY_SIZE(afters); i++) {
		const struct after *a = &afters[i];

		if (code_follows_call(&config, start + a->address, a->xlen) !=
		    a->is_call) {
			printf("  after +%#zx (xlen %u)\n", a->address, a->xlen);
			all = false;
		}
	}
	CHECK(all);
	/* Nothing precedes text's start; nothing is read before it. */
	CHECK(!code_follows_call(&config, start, 8));
	CHECK(!code_follows_call(&config, start + 2, 8));
	CHECK(!code_follows_call(&config, start + 5, 8));
	CHECK(!code_follows_call(&config, fake_code_end(&code) + 2, 8));
	CHECK(!code_follows_call(&config, 0, 8));
	fake_code_free(&code);
}

/*
 * The instruction ending at an address is the 2-byte one before it unless a
 * 4-byte instruction starts 4 bytes back, which takes low bits 11 in that
 * parcel. A compressed call 4 bytes back ends 2 bytes back.
 */
void prologue_return_address_after_compressed_call(void)
{
	struct fake_code code;
	struct tracer_config config;
	uintptr_t start;

	memset(&config, 0, sizeof(config));
	fake_code_init(&code);
	FAKE_FUNCTION(&code, NULL, C16(0x9302), /* +0 c.jalr t1 */
		      C16(0x0001),		/* +2 c.nop */
		      C16(0x2001),		/* +4 rv32 c.jal . */
		      C16(0x0001));		/* +6 c.nop */
	start = fake_code_seal(&code, &config);
	CHECK(code_follows_call(&config, start + 2, 8));
	CHECK(!code_follows_call(&config, start + 4, 8));
	CHECK(code_follows_call(&config, start + 6, 4));
	CHECK(!code_follows_call(&config, start + 8, 4));
	fake_code_free(&code);
}

void prologue_is_call(void)
{
	CHECK(riscv_is_call(0x000000ef, 4, 8));	 /* jal ra,. */
	CHECK(riscv_is_call(0x000002ef, 4, 8));	 /* jal t0,. */
	CHECK(!riscv_is_call(0x0000006f, 4, 8)); /* j . */
	CHECK(riscv_is_call(0x000300e7, 4, 8));	 /* jalr ra,0(t1) */
	CHECK(riscv_is_call(0x000080e7, 4, 4));	 /* jalr ra,0(ra) */
	CHECK(!riscv_is_call(0x00008067, 4, 8)); /* jalr zero,0(ra): ret */
	CHECK(!riscv_is_call(0x00030067, 4, 8)); /* jalr zero,0(t1): tail */
	CHECK(!riscv_is_call(0x000310e7, 4, 8)); /* funct3 1: not jalr */
	CHECK(!riscv_is_call(0x00150513, 4, 8)); /* addi a0,a0,1 */
	CHECK(riscv_is_call(0x9302, 2, 8));	 /* c.jalr t1 */
	CHECK(riscv_is_call(0x9082, 2, 4));	 /* c.jalr ra */
	CHECK(!riscv_is_call(0x8302, 2, 8));	 /* c.jr t1 */
	CHECK(!riscv_is_call(0x8082, 2, 8));	 /* c.jr ra: ret */
	CHECK(!riscv_is_call(0x9002, 2, 8));	 /* c.ebreak */
	CHECK(!riscv_is_call(0x9116, 2, 8));	 /* c.add sp,t0 */
	CHECK(riscv_is_call(0x2001, 2, 4));	 /* rv32 c.jal . */
	CHECK(!riscv_is_call(0x2001, 2, 8));	 /* rv64: c.addiw (reserved) */
	CHECK(!riscv_is_call(0xa001, 2, 4));	 /* c.j . */
	CHECK(!riscv_is_call(0x000000ef, 0, 8)); /* no such length */
}

/* The length encoding: RISC-V Unprivileged ISA, "Expanded Instruction-Length
 * Encoding": low bits 11 and bits 4:2 not 111 is 32 bits. */
void prologue_instruction_length(void)
{
	CHECK(riscv_instruction_length(0x1141) == 2); /* quadrant 1 */
	CHECK(riscv_instruction_length(0x0000) == 2); /* quadrant 0 */
	CHECK(riscv_instruction_length(0x8082) == 2); /* quadrant 2 */
	CHECK(riscv_instruction_length(0x0113) == 4); /* addi */
	CHECK(riscv_instruction_length(0x0003) == 4); /* lb */
	CHECK(riscv_instruction_length(0x006f) == 4); /* jal */
	CHECK(riscv_instruction_length(0x001b) == 4); /* addiw: bits 4:2 110 */
	CHECK(riscv_instruction_length(0x001f) == 0); /* 48-bit */
	CHECK(riscv_instruction_length(0x003f) == 0); /* 64-bit */
	CHECK(riscv_instruction_length(0x007f) == 0); /* 80 bits and up */
	CHECK(riscv_instruction_length(0xffff) == 0);
}

/* ---- 11. TRACER_AUTO: DWARF, then the decoder, then frame pointers ---- */

/* The outermost function: clears s0 (the frame-pointer chain's end). */
static const uint16_t outer_code[] = {
    I32(0x00000117), /* auipc sp,0 (la sp,stack_top) */
    I32(0x00010113), /* addi sp,sp,0 */
    C16(0x4401),     /* c.li s0,0 */
    I32(0x00000097), /* auipc ra,0 (call framed) */
    I32(0x000080e7), /* jalr ra,0(ra) */
    C16(0xa001),     /* +0x12 c.j . */
};
#define OUTER_RETURN 0x12

/* A frame-pointer frame with code the decoder cannot follow. */
static const uint16_t framed_code[] = {
    C16(0x1141),     /* c.addi sp,-16 */
    C16(0xe406),     /* c.sdsp ra,8(sp) */
    C16(0xe022),     /* c.sdsp s0,0(sp) */
    C16(0x0800),     /* c.addi4spn s0,sp,16 */
    I32(0x00c5850b), /* .insn r CUSTOM_0,0,0,a0,a1,a2 */
    I32(0x00000097), /* auipc ra,0 (call decoded) */
    I32(0x000080e7), /* jalr ra,0(ra) */
    C16(0xa001),     /* +0x14 c.j . */
};
#define FRAMED_RETURN 0x14

/* No frame pointer (s0 is a scratch register here): only decoding finds
 * this frame. */
static const uint16_t decoded_code[] = {
    C16(0x713d),     /* c.addi16sp sp,-32 */
    C16(0xec06),     /* c.sdsp ra,24(sp) */
    C16(0xe822),     /* c.sdsp s0,16(sp) */
    C16(0x4415),     /* c.li s0,5 */
    I32(0x00000097), /* auipc ra,0 (call described) */
    I32(0x000080e7), /* jalr ra,0(ra) */
    C16(0xa001),     /* +0x10 c.j . */
};
#define DECODED_RETURN 0x10

/* Described by CFI (which says what the decoder would). */
static const uint16_t described_code[] = {
    C16(0x1141), /* c.addi sp,-16 */
    C16(0xe406), /* c.sdsp ra,8(sp) */
    C16(0x852e), /* c.mv a0,a1 */
    C16(0x0001), /* +0x06 c.nop */
    C16(0x8082), /* c.jr ra */
};
#define DESCRIBED_BODY 0x06

struct auto_program {
	struct fake_stack stack;
	struct fake_code code;
	struct fake_cfi cfi;
	struct tracer_fde_entry entry;
	struct tracer_fde_index index;
	uintptr_t outer, framed, decoded, described;
};

/*
 * described's FDE, with the CIE of test_dwarf.c (code alignment 1, data
 * alignment -8, ra column 1, udata8 addresses, CFA = sp): at +2 CFA = sp +
 * 16; at +4 ra at CFA - 8.
 */
static void describe(struct auto_program *p)
{
	size_t cie;
	size_t fde;

	fake_cfi_init(&p->cfi);
	cie = fake_cfi_begin_cie(&p->cfi);
	FAKE_CFI(&p->cfi, 3, 'z', 'R', 0, 1, 0x78, REG_RA, 1, DW_EH_PE_udata8,
		 CFA_def_cfa, REG_SP, 0);
	fake_cfi_end(&p->cfi);
	fde = fake_cfi_begin_fde(&p->cfi, cie);
	fake_cfi_unsigned(&p->cfi, p->described, 8);
	fake_cfi_unsigned(&p->cfi, sizeof(described_code), 8);
	FAKE_CFI(&p->cfi, 0, CFA_advance_loc | 2, CFA_def_cfa_offset, 16,
		 CFA_advance_loc | 2, CFA_offset | REG_RA, 1);
	fake_cfi_end(&p->cfi);
	fake_cfi_unsigned(&p->cfi, 0, 4); /* the terminator */
	fake_cfi_seal(&p->cfi, &p->stack.config);
	p->entry.pc_start = p->described;
	p->entry.fde = fake_cfi_addr(&p->cfi, fde);
	fake_fde_index_fill(&p->index, &p->entry, 1, p->stack.config.eh_frame);
	p->stack.config.fde_index = &p->index;
	fake_tables_anywhere(&p->stack.config);
}

/*
 * The stack, in words: outer's sp 400; framed: CFA 400, sp 398, ra at 399,
 * outer's s0 (0) at 398, s0 = 400; decoded: CFA 398, sp 394, ra at 397,
 * framed's s0 at 396; described: CFA 394, sp 392, ra at 393. s0 = 5 in
 * described, as decoded left it.
 */
static void build_auto(struct auto_program *p, bool framed_has_symbol)
{
	uintptr_t block;

	fake_stack_init(&p->stack);
	fake_code_init(&p->code);
	p->outer =
	    fake_code_function(&p->code, "outer", outer_code, ARRAY_SIZE(outer_code));
	p->framed = fake_code_function(&p->code, framed_has_symbol ? "framed" : NULL,
				       framed_code, ARRAY_SIZE(framed_code));
	p->decoded = fake_code_function(&p->code, "decoded", decoded_code,
					ARRAY_SIZE(decoded_code));
	p->described = fake_code_function(&p->code, "described", described_code,
					  ARRAY_SIZE(described_code));
	block = fake_code_seal(&p->code, &p->stack.config);
	p->outer += block;
	p->framed += block;
	p->decoded += block;
	p->described += block;
	describe(p);
	p->stack.range.end = fake_addr(&p->stack, 400); /* outer's sp */
	fake_put(&p->stack, fake_addr(&p->stack, 399), p->outer + OUTER_RETURN);
	fake_put(&p->stack, fake_addr(&p->stack, 398), 0);
	fake_put(&p->stack, fake_addr(&p->stack, 397), p->framed + FRAMED_RETURN);
	fake_put(&p->stack, fake_addr(&p->stack, 396), fake_addr(&p->stack, 400));
	fake_put(&p->stack, fake_addr(&p->stack, 393), p->decoded + DECODED_RETURN);
	p->stack.regs.pc = p->described + DESCRIBED_BODY;
	p->stack.regs.sp = fake_addr(&p->stack, 392);
	p->stack.regs.s[0] = 5;
}

static void free_auto(struct auto_program *p)
{
	fake_cfi_free(&p->cfi);
	fake_code_free(&p->code);
	fake_stack_free(&p->stack);
}

static bool auto_frame_is(const struct auto_program *p, size_t i, uintptr_t pc,
			  size_t sp_word, uintptr_t fp, enum tracer_unwinder found_by,
			  bool fallback)
{
	const struct tracer_frame *frame = &p->stack.frames[i];

	return frame->pc == pc && frame->sp == fake_addr(&p->stack, sp_word) &&
	       frame->fp == fp && frame->found_by == found_by &&
	       frame->found_by_fallback == fallback;
}

/*
 * described: an FDE covers it, so DWARF, though the decoder would do; decoded:
 * no FDE, so the decoder (s0 = 5 is no frame pointer); framed: no FDE, and no
 * symbol or code the decoder cannot follow, so its frame pointer; outer: the
 * decoder sees la sp, the end.
 */
static bool auto_walk_holds(struct auto_program *p)
{
	return fake_walk_with(&p->stack, TRACER_AUTO) == 4 &&
	       p->stack.stop == TRACER_STOP_OUTERMOST &&
	       auto_frame_is(p, 0, p->described + DESCRIBED_BODY, 392, 5, TRACER_AUTO,
			     false) &&
	       auto_frame_is(p, 1, p->decoded + DECODED_RETURN, 394, 5, TRACER_DWARF,
			     false) &&
	       auto_frame_is(p, 2, p->framed + FRAMED_RETURN, 398,
			     fake_addr(&p->stack, 400), TRACER_PROLOGUE, true) &&
	       auto_frame_is(p, 3, p->outer + OUTER_RETURN, 400, 0, TRACER_FRAME_POINTER,
			     true);
}

/* The line tracer_format_frame() should print: the address at full width,
 * then `rest`. */
static bool line_is(const struct tracer_frame *frame, const char *rest)
{
	char line[TRACER_LINE_MAX];
	char expected[TRACER_LINE_MAX];

	snprintf(expected, sizeof(expected), " [<0x%0*" PRIxPTR ">]%s",
		 (int)(2 * sizeof(uintptr_t)), frame->pc, rest);
	return strcmp(tracer_format_frame(line, sizeof(line), frame), expected) == 0;
}

void prologue_auto_walk(void)
{
	struct auto_program p;

	build_auto(&p, false);
	CHECK(auto_walk_holds(&p));
	CHECK(p.stack.frames[2].name == NULL);
	CHECK(line_is(&p.stack.frames[1], " decoded+0x10/0x12"));
	CHECK(line_is(&p.stack.frames[2], " (prologue)"));
	CHECK(line_is(&p.stack.frames[3], " (frame-pointer) outer+0x12/0x14"));
	free_auto(&p);
}

/* framed with a symbol: the decoder stops at its custom instruction, and
 * the frame pointer takes over all the same. */
void prologue_auto_walk_unknown_code(void)
{
	struct auto_program p;

	build_auto(&p, true);
	CHECK(auto_walk_holds(&p));
	CHECK(line_is(&p.stack.frames[2], " (prologue) framed+0x14/0x16"));
	/* Without CFI, the decoder finds described's frame too. */
	p.stack.config.fde_index = NULL;
	CHECK(fake_walk_with(&p.stack, TRACER_AUTO) == 4);
	CHECK(p.stack.stop == TRACER_STOP_OUTERMOST);
	CHECK(auto_frame_is(&p, 1, p.decoded + DECODED_RETURN, 394, 5, TRACER_PROLOGUE,
			    true));
	CHECK(auto_frame_is(&p, 3, p.outer + OUTER_RETURN, 400, 0, TRACER_FRAME_POINTER,
			    true));
	free_auto(&p);
}

/* ---- 12. Random code and stacks ------------------------------------------ */

/* xorshift64 (Marsaglia): deterministic, so a failure reproduces. */
static uint64_t random_next(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

static size_t random_below(uint64_t *state, size_t n)
{
	return (size_t)(random_next(state) % n);
}

/* Instructions from the tests above, so that random code often means
 * something to the decoder; low bits 11: 32 bits. */
static const uint32_t vocabulary[] = {
    0xfd010113, 0x81010113, 0x02113423, 0x7e113423, 0x02813023, 0x000022b7, 0xff028293,
    0x40510133, 0x83000293, 0x00510133, 0xfffff2b7, 0x00001537, 0x9e05051b, 0x40a10133,
    0x02010413, 0xfe143c23, 0x00050093, 0xfe040113, 0x00000117, 0x00010113, 0x01813083,
    0x02010113, 0x00008067, 0x000300e7, 0x000000ef, 0x0000006f, 0x00050063, 0x00c5850b,
    0x02112623, 0x71390537, 0xe4063023, 0x1141,	    0x7139,	0x713d,	    0xe406,
    0xe022,	0xec06,	    0xe822,	0x1000,	    0x0800,	0x840a,	    0x5281,
    0x9116,	0x72fd,	    0x6285,	0x32c1,	    0x9302,	0x8302,	    0xa001,
    0xc101,	0x8082,	    0x60a2,	0x6442,	    0x0141,	0x812a,	    0xc606,
    0x2001,	0x0000,	    0x4415,	0x001f,
};

/* count parcels of vocabulary and, one in `noise`, random parcels; a 32-bit
 * instruction may be cut at the end. */
static void random_parcels(uint64_t *state, uint16_t *parcels, size_t count, size_t noise)
{
	size_t n = 0;

	while (n < count) {
		uint32_t insn =
		    random_below(state, noise) == 0
			? (uint32_t)random_next(state)
			: vocabulary[random_below(state, ARRAY_SIZE(vocabulary))];

		parcels[n++] = (uint16_t)insn;
		if ((insn & 3) == 3 && n < count)
			parcels[n++] = (uint16_t)(insn >> 16);
	}
}

/* An address around [start, end): inside, just outside, odd or even. */
static uintptr_t random_address(uint64_t *state, uintptr_t start, uintptr_t end)
{
	return start - 8 + random_below(state, end - start + 16);
}

/* The decoder always returns, reads only [start, end) (ASan), and when it
 * succeeds, stops inside the function's code. */
void prologue_random_code_analysis(void)
{
	uint64_t state = 0x9e3779b97f4a7c15u;

	for (int i = 0; i < 3000; i++) {
		struct fake_code code;
		struct tracer_config config;
		struct prologue_analysis analysis;
		uint16_t parcels[64];
		size_t count = 1 + random_below(&state, ARRAY_SIZE(parcels));
		uintptr_t start;
		uintptr_t end;
		uintptr_t function;
		unsigned xlen = random_below(&state, 2) ? 8 : 4;

		memset(&config, 0, sizeof(config));
		fake_code_init(&code);
		random_parcels(&state, parcels, count, 3);
		fake_code_function(&code, NULL, parcels, count);
		start = fake_code_seal(&code, &config);
		end = fake_code_end(&code);
		function = random_below(&state, 8)
			       ? start + 2 * random_below(&state, count)
			       : random_address(&state, start, end);
		if (prologue_analyze(&config, function,
				     random_address(&state, start, end),
				     random_address(&state, start, end), xlen,
				     &analysis) == PROLOGUE_OK)
			CHECK(function >= start && analysis.stop >= function &&
			      analysis.stop <= end);
		code_follows_call(&config, random_address(&state, start, end), xlen);
		fake_code_free(&code);
	}
}

#define RANDOM_FUNCTIONS 6

/* Prologues a random function may start with (assembled above): ra at
 * CFA - 8, s0 at CFA - 16. */
static const struct {
	uint16_t parcels[6];
	size_t count;
	size_t frame; /* bytes */
} prologues[] = {
    {{C16(0x1141), C16(0xe406), C16(0xe022)}, 3, 16},
    {{C16(0x713d), C16(0xec06), C16(0xe822)}, 3, 32},
    {{I32(0xfd010113), I32(0x02113423), I32(0x02813023)}, 6, 48},
    {{C16(0x7101), C16(0xff86), C16(0xfba2)}, 3, 512},
};

struct random_function {
	uintptr_t return_address; /* just after its call */
	size_t frame;		  /* bytes its prologue allocates; 0: none */
};

/* A prologue (three in four), random code, a call (auipc ra,0; jalr
 * ra,0(ra)), random code; appended to `code`, named (seven in eight). */
static void random_function(uint64_t *state, struct fake_code *code, const char *name,
			    struct random_function *f)
{
	uint16_t parcels[64];
	size_t n = 0;
	size_t p = random_below(state, ARRAY_SIZE(prologues));
	size_t call;

	f->frame = 0;
	if (random_below(state, 4)) {
		memcpy(parcels, prologues[p].parcels,
		       prologues[p].count * sizeof(uint16_t));
		n = prologues[p].count;
		f->frame = prologues[p].frame;
	}
	call = n + random_below(state, 12);
	random_parcels(state, parcels + n, call - n, 12);
	parcels[call] = 0x0097;
	parcels[call + 1] = 0x0000;
	parcels[call + 2] = 0x80e7;
	parcels[call + 3] = 0x0000;
	n = call + 4 + random_below(state, 12);
	random_parcels(state, parcels + call + 4, n - (call + 4), 3);
	/* An offset until fake_code_seal() places the code. */
	f->return_address =
	    fake_code_function(code, random_below(state, 8) ? name : NULL, parcels, n) +
	    (call + 4) * sizeof(uint16_t);
}

static void random_program(uint64_t *state, struct fake_code *code,
			   struct random_function functions[RANDOM_FUNCTIONS],
			   struct tracer_config *config)
{
	static const char *const names[RANDOM_FUNCTIONS] = {"r0", "r1", "r2",
							    "r3", "r4", "r5"};

	fake_code_init(code);
	for (int f = 0; f < RANDOM_FUNCTIONS; f++)
		random_function(state, code, names[f], &functions[f]);
	fake_code_seal(code, config);
	for (int f = 0; f < RANDOM_FUNCTIONS; f++)
		functions[f].return_address =
		    fake_code_addr(code, functions[f].return_address);
}

/* A word of the stack: a return address, a stack address, or noise. */
static uintptr_t random_word(uint64_t *state, const struct fake_stack *stack,
			     const struct random_function functions[RANDOM_FUNCTIONS])
{
	switch (random_below(state, 3)) {
	case 0:
		return functions[random_below(state, RANDOM_FUNCTIONS)].return_address;
	case 1:
		return fake_addr(stack, random_below(state, FAKE_STACK_WORDS + 1));
	default:
		return (uintptr_t)random_next(state);
	}
}

/*
 * A random stack with a call chain planted in it, as the prologues would
 * leave it: from the first frame's sp up, each frame's return address at
 * its CFA - 8. Then a few words turn to noise.
 */
static void random_stack(uint64_t *state, struct fake_stack *s,
			 const struct fake_code *code,
			 const struct random_function functions[RANDOM_FUNCTIONS])
{
	size_t f = random_below(state, RANDOM_FUNCTIONS);
	size_t sp = random_below(state, 64);

	for (size_t w = 0; w < FAKE_STACK_WORDS; w++)
		s->words[w] = random_word(state, s, functions);
	s->regs.pc = random_below(state, 2)
			 ? functions[f].return_address
			 : fake_code_addr(code, 2 * random_below(state, code->count));
	s->regs.sp = fake_addr(s, sp);
	s->regs.ra = functions[random_below(state, RANDOM_FUNCTIONS)].return_address;
	s->regs.s[0] = random_word(state, s, functions);
	while (functions[f].frame && sp + functions[f].frame / WORD <= FAKE_STACK_WORDS) {
		size_t caller = random_below(state, RANDOM_FUNCTIONS);

		sp += functions[f].frame / WORD;
		s->words[sp - 1] = functions[caller].return_address;
		f = caller;
	}
	for (size_t w = 0; w < FAKE_STACK_WORDS; w++)
		if (random_below(state, 32) == 0)
			s->words[w] = random_word(state, s, functions);
}

/* What every walk guarantees: an end, at most max_depth frames, each sp
 * above the last (equal only from the exact first frame), return addresses
 * in text. */
static bool walk_is_sane(const struct fake_stack *s, size_t n)
{
	if (s->stop == TRACER_RUNNING || n == 0 || n > TRACER_DEFAULT_DEPTH)
		return false;
	for (size_t i = 1; i < n; i++) {
		const struct tracer_frame *f = &s->frames[i];

		if (f->sp < s->frames[i - 1].sp ||
		    (i > 1 && f->sp == s->frames[i - 1].sp) || f->sp <= s->range.start ||
		    f->sp > s->range.end || f->pc - 1 < s->config.text.start ||
		    f->pc - 1 >= s->config.text.end)
			return false;
	}
	return true;
}

void prologue_random_walks(void)
{
	uint64_t state = 0x2545f4914f6cdd1du;

	for (int i = 0; i < 2000; i++) {
		struct fake_stack s;
		struct fake_code code;
		struct random_function functions[RANDOM_FUNCTIONS];

		fake_stack_init(&s);
		random_program(&state, &code, functions, &s.config);
		random_stack(&state, &s, &code, functions);
		CHECK(walk_is_sane(&s, fake_walk_with(&s, TRACER_PROLOGUE)));
		CHECK(walk_is_sane(&s, fake_walk_with(&s, TRACER_AUTO)));
		fake_code_free(&code);
		fake_stack_free(&s);
	}
}

/*
 * test_symtab.c - symbol lookup, by address and by name, and how a walk
 * symbolizes its frames.
 */
#include <stdlib.h>
#include <string.h>

#include "fake_stack.h"
#include "fake_tables.h"
#include "harness.h"

/* alpha [0x1000, 0x1010), beta [0x1010, 0x1030), a gap, gamma [0x1040, 0x1048).
 * The names padded to 20 bytes, as symgen pads them. */
_Alignas(8) static const char names[20] = "alpha\0beta\0gamma";
static const struct tracer_symbol symbols[] = {
    {0x1000, 0x10, 0},
    {0x1010, 0x20, 6},
    {0x1040, 0x8, 11},
};

static const struct tracer_symtab *table(void)
{
	static struct tracer_symtab filled;

	fake_symtab_fill(&filled, symbols, 3, names, sizeof(names));
	return &filled;
}

static const char *name_at(uintptr_t addr)
{
	const struct tracer_symbol *symbol = tracer_symtab_lookup(table(), addr);

	return symbol ? tracer_symbol_name(table(), symbol) : NULL;
}

static bool is(const char *actual, const char *expected)
{
	return actual && strcmp(actual, expected) == 0;
}

void symtab_lookup_bounds(void)
{
	CHECK(is(name_at(0x1000), "alpha")); /* first byte of the first */
	CHECK(is(name_at(0x100f), "alpha"));
	CHECK(is(name_at(0x1010), "beta")); /* adjacent functions */
	CHECK(is(name_at(0x102f), "beta"));
	CHECK(is(name_at(0x1040), "gamma"));
	CHECK(is(name_at(0x1047), "gamma")); /* last byte of the last */
}

void symtab_lookup_not_found(void)
{
	CHECK(name_at(0) == NULL);
	CHECK(name_at(0xfff) == NULL);	/* before the first */
	CHECK(name_at(0x1030) == NULL); /* gap */
	CHECK(name_at(0x103f) == NULL);
	CHECK(name_at(0x1048) == NULL); /* past the last */
	CHECK(name_at(UINTPTR_MAX) == NULL);
}

void symtab_lookup_empty(void)
{
	struct tracer_symtab empty;

	fake_symtab_fill(&empty, NULL, 0, NULL, 0);

	CHECK(tracer_symtab_lookup(&empty, 0x1000) == NULL);
	CHECK(tracer_symtab_find(&empty, "alpha") == NULL);
}

void symtab_find_by_name(void)
{
	CHECK(tracer_symtab_find(table(), "beta") == &symbols[1]);
	CHECK(tracer_symtab_find(table(), "gamma") == &symbols[2]);
	CHECK(tracer_symtab_find(table(), "bet") == NULL);
	CHECK(tracer_symtab_find(table(), "betaa") == NULL);
	CHECK(tracer_symtab_find(table(), "") == NULL);
}

/*
 * In a walk, an exact pc is looked up as is, a return address at pc - 1: a
 * call to a noreturn function can be the last instruction of its caller, and
 * its return address then equals the caller's end.
 */
void symtab_walk_symbolizes(void)
{
	_Alignas(8) static const char text_names[16] = "callee\0caller\0";
	struct tracer_symbol text_symbols[2];
	struct tracer_symtab text_table;
	struct fake_stack s;

	fake_stack_init(&s);
	fake_tables_anywhere(&s.config);
	text_symbols[0] = (struct tracer_symbol){FAKE_TEXT_START + 0x100, 0x40, 0};
	text_symbols[1] = (struct tracer_symbol){FAKE_TEXT_START + 0x140, 0x20, 7};
	fake_symtab_fill(&text_table, text_symbols, 2, text_names, sizeof(text_names));
	s.config.symtab = &text_table;
	/* callee (pc at its start) <- caller, whose call ends it <- unknown */
	fake_record(&s, fake_addr(&s, 100), fake_addr(&s, 200), FAKE_TEXT_START + 0x160);
	fake_record(&s, fake_addr(&s, 200), 0, FAKE_TEXT_START + 0x300);
	s.regs.pc = FAKE_TEXT_START + 0x100;
	s.regs.sp = fake_addr(&s, 90);
	s.regs.s[0] = fake_addr(&s, 100);
	CHECK(fake_walk(&s) == 3);
	CHECK(is(s.frames[0].name, "callee") && s.frames[0].offset == 0 &&
	      s.frames[0].size == 0x40);
	CHECK(is(s.frames[1].name, "caller") && s.frames[1].offset == 0x20 &&
	      s.frames[1].size == 0x20);
	CHECK(s.frames[2].name == NULL && s.frames[2].offset == 0 &&
	      s.frames[2].size == 0);
	fake_stack_free(&s);
}

/*
 * An address below the first symbol is in no function, even where that
 * symbol's end passes the top of the address space (the subtraction that
 * tells wraps onto its size): the 32-bit fuzz target met one, with
 * rv32-sized addresses.
 */
void symtab_walk_below_wrapping_symbol(void)
{
	_Alignas(8) static const char top_names[8] = "top";
	struct tracer_symbol top = {UINTPTR_MAX - 0xf, 0x1000, 0};
	struct tracer_symtab top_table;
	struct fake_stack s;

	fake_stack_init(&s);
	fake_tables_anywhere(&s.config);
	fake_symtab_fill(&top_table, &top, 1, top_names, sizeof(top_names));
	s.config.symtab = &top_table;
	s.regs.pc = 0x100;
	s.regs.sp = fake_addr(&s, 90);
	CHECK(fake_walk(&s) >= 1 && s.frames[0].name == NULL);
	fake_stack_free(&s);
}

/*
 * The search at every table size up to 300 and around the sizes where it
 * changes shape (a power of two: one probe more; past 2^12 entries its
 * first probes loop): symbol i at 0x10000 + 16 i, 8 bytes long, so that
 * the 8 bytes after each are a gap.
 */
static bool lookup_at_every_symbol(uint32_t count, uint32_t stride)
{
	struct tracer_symbol *many = calloc(count, sizeof(*many));
	_Alignas(8) static const char empty_names[4] = "";
	struct tracer_symtab filled;
	bool right = many != NULL;

	for (uint32_t i = 0; i < count && many; i++)
		many[i] = (struct tracer_symbol){0x10000 + 16 * (uintptr_t)i, 8, 0};
	fake_symtab_fill(&filled, many, count, empty_names, sizeof(empty_names));
	right = right && tracer_symtab_lookup(&filled, 0xffff) == NULL &&
		tracer_symtab_lookup(&filled, 0) == NULL &&
		tracer_symtab_lookup(&filled, UINTPTR_MAX) == NULL;
	for (uint32_t i = 0; i < count && right; i++) {
		uintptr_t start = 0x10000 + 16 * (uintptr_t)i;

		if (i % stride != 0 && i != count - 1 && (i & (i + 1)) != 0 &&
		    (i & (i - 1)) != 0)
			continue;
		right = tracer_symtab_lookup(&filled, start) == &many[i] &&
			tracer_symtab_lookup(&filled, start + 7) == &many[i] &&
			tracer_symtab_lookup(&filled, start + 8) == NULL &&
			tracer_symtab_lookup(&filled, start + 15) == NULL;
	}
	free(many);
	return right;
}

void symtab_lookup_every_count(void)
{
	static const uint32_t large[] = {511,  512,  513,  4095, 4096,
					 4097, 8191, 8192, 8193, 40000};

	for (uint32_t count = 1; count <= 300; count++)
		CHECK(lookup_at_every_symbol(count, 1));
	for (size_t i = 0; i < sizeof(large) / sizeof(large[0]); i++)
		CHECK(lookup_at_every_symbol(large[i], 97));
}

/*
 * A walk searches the table as it set the search up at its start (the
 * first probe, the probes after it): with one symbol, 300 (unrolled
 * probes only) and 9,000 (a looped one first). Symbol i at
 * FAKE_TEXT_START + 16 + 4 i, 2 bytes long, named by the offset i into names
 * that are all empty. The return addresses are 2 bytes into their
 * function (pc - 1 in it): the first two after `jal ra`, which the
 * frame-pointer unwinder's capture loop takes, the last after c.jalr.
 */
static bool walk_finds(uint32_t count, const uint32_t in[4])
{
	struct tracer_symbol *many = calloc(count, sizeof(*many));
	char *names = calloc(count + 4, 1);
	struct tracer_symtab filled;
	struct fake_stack s;
	bool right;

	if (!many || !names) {
		free(many);
		free(names);
		return false;
	}
	fake_stack_init(&s);
	for (uint32_t i = 0; i < count; i++)
		many[i] =
		    (struct tracer_symbol){FAKE_TEXT_START + 16 + 4 * (uintptr_t)i, 2, i};
	fake_tables_anywhere(&s.config);
	fake_symtab_fill(&filled, many, count, names, (count + 4) / 4 * 4);
	s.config.symtab = &filled;
	fake_record(&s, fake_addr(&s, 100), fake_addr(&s, 200), many[in[1]].addr + 2);
	fake_record(&s, fake_addr(&s, 200), fake_addr(&s, 300), many[in[2]].addr + 2);
	fake_record(&s, fake_addr(&s, 300), 0, many[in[3]].addr + 2);
	fake_text_put32(&s, many[in[1]].addr - 2, 0x000000ef); /* jal ra, 0 */
	fake_text_put32(&s, many[in[2]].addr - 2, 0x000000ef);
	s.regs.pc = many[in[0]].addr;
	s.regs.sp = fake_addr(&s, 90);
	s.regs.s[0] = fake_addr(&s, 100);
	right = fake_walk(&s) == 4 && s.frames[0].name == names + in[0] &&
		s.frames[0].offset == 0 && s.frames[0].size == 2;
	for (size_t k = 1; k < 4 && right; k++)
		right = s.frames[k].name == names + in[k] && s.frames[k].offset == 2 &&
			s.frames[k].size == 2;
	fake_stack_free(&s);
	free(many);
	free(names);
	return right;
}

void symtab_walk_every_shape(void)
{
	static const uint32_t one[4] = {0, 0, 0, 0};
	static const uint32_t some[4] = {0, 299, 150, 1};
	static const uint32_t many[4] = {8999, 4096, 1, 4095};

	CHECK(walk_finds(1, one));
	CHECK(walk_finds(300, some));
	CHECK(walk_finds(9000, many));
}

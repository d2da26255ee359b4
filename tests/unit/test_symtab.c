/*
 * test_symtab.c - symbol lookup, by address and by name, and how a walk
 * symbolizes its frames.
 */
#include <string.h>

#include "fake_stack.h"
#include "fake_tables.h"
#include "harness.h"

/* alpha [0x1000, 0x1010), beta [0x1010, 0x1030), a gap, gamma [0x1040, 0x1048).
 * The names padded to 20 bytes, as symgen pads them. */
_Alignas(4) static const char names[20] = "alpha\0beta\0gamma";
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
	_Alignas(4) static const char text_names[16] = "callee\0caller\0";
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

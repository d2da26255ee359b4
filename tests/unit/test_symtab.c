/*
 * test_symtab.c - symbol lookup, by address and by name, and how a walk
 * symbolizes its frames.
 */
#include <string.h>

#include "fake_stack.h"
#include "harness.h"

/* alpha [0x1000, 0x1010), beta [0x1010, 0x1030), a gap, gamma [0x1040, 0x1048). */
static const char names[] = "alpha\0beta\0gamma";
static const struct tracer_symbol symbols[] = {
    {0x1000, 0x10, 0},
    {0x1010, 0x20, 6},
    {0x1040, 0x8, 11},
};
static const struct tracer_symtab table = {
    .symbols = symbols, .count = 3, .names = names};

static const char *name_at(uintptr_t addr)
{
	const struct tracer_symbol *symbol = tracer_symtab_lookup(&table, addr);

	return symbol ? tracer_symbol_name(&table, symbol) : NULL;
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
	const struct tracer_symtab empty = {.count = 0};

	CHECK(tracer_symtab_lookup(&empty, 0x1000) == NULL);
	CHECK(tracer_symtab_find(&empty, "alpha") == NULL);
}

void symtab_find_by_name(void)
{
	CHECK(tracer_symtab_find(&table, "beta") == &symbols[1]);
	CHECK(tracer_symtab_find(&table, "gamma") == &symbols[2]);
	CHECK(tracer_symtab_find(&table, "bet") == NULL);
	CHECK(tracer_symtab_find(&table, "betaa") == NULL);
	CHECK(tracer_symtab_find(&table, "") == NULL);
}

/*
 * In a walk, an exact pc is looked up as is, a return address at pc - 1: a
 * call to a noreturn function can be the last instruction of its caller, and
 * its return address then equals the caller's end.
 */
void symtab_walk_symbolizes(void)
{
	static const char text_names[] = "callee\0caller\0";
	const struct tracer_symbol text_symbols[] = {
	    {0x80200100, 0x40, 0},
	    {0x80200140, 0x20, 7},
	};
	const struct tracer_symtab text_table = {
	    .symbols = text_symbols, .count = 2, .names = text_names};
	struct fake_stack s;

	fake_stack_init(&s);
	s.config.symtab = &text_table;
	/* callee (pc at its start) <- caller, whose call ends it <- unknown */
	fake_record(&s, fake_addr(&s, 100), fake_addr(&s, 200), 0x80200160);
	fake_record(&s, fake_addr(&s, 200), 0, 0x80200300);
	s.regs.pc = 0x80200100;
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

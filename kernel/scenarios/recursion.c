/*
 * recursion.c - scenario=recursion: a function that calls itself and passes
 * the address of its own local to the next level. The callee reads through
 * it, so every level needs its own live frame: no compiler can turn this
 * recursion into a loop.
 */
#include "panic.h"
#include "scenarios.h"

#define RECURSION_DEPTH 6

/* Every path ends in panic() by design: tell the compiler that is intended. */
#pragma GCC diagnostic ignored "-Winfinite-recursion"

SCENARIO_FN unsigned recurse(unsigned depth, const volatile unsigned *parent)
{
	volatile unsigned mine = *parent + depth;

	if (depth == 0)
		panic("recursion reached the bottom (sum %u)", mine);
	return recurse(depth - 1, &mine) + 1;
}

void scenario_recursion(void)
{
	volatile unsigned seed = 1;

	recurse(RECURSION_DEPTH, &seed);
}

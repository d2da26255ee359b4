/*
 * chain_a.c, chain_b.c, chain_c.c - scenario=panic: a call chain five deep,
 * spread over three files so the compiler cannot merge it. Each function
 * uses its callee's result, so no call is a tail call.
 */
#include "chain.h"
#include "scenarios.h"

SCENARIO_FN int chain_first(int n)
{
	return chain_second(n + 1) * 2;
}

SCENARIO_FN int chain_fourth(int n)
{
	return chain_fifth(n + 1) - 3;
}

void scenario_panic(void)
{
	chain_first(1);
}

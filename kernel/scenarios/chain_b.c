/* chain_b.c - see chain_a.c. */
#include "chain.h"
#include "scenarios.h"

SCENARIO_FN int chain_second(int n)
{
	return chain_third(n + 1) + 5;
}

SCENARIO_FN int chain_fifth(int n)
{
	return chain_bottom(n + 1) ^ 7;
}

/* chain_c.c - see chain_a.c. */
#include "chain.h"
#include "panic.h"
#include "scenarios.h"

SCENARIO_FN int chain_third(int n)
{
	return chain_fourth(n + 1) * 3;
}

SCENARIO_FN int chain_bottom(int n)
{
	panic("deliberate panic at depth %d of the call chain", n);
}

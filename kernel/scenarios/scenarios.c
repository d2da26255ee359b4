/*
 * scenarios.c - the table of scenarios kmain chooses from.
 */
#include "scenarios.h"

const struct scenario scenarios[] = {
    {"panic", scenario_panic, "explicit panic() 5 calls deep, across 3 files"},
    {"recursion", scenario_recursion, "panic at the bottom of a real recursion"},
    {"load-fault", scenario_load_fault, "load from an unmapped address"},
    {"illegal", scenario_illegal, "illegal instruction"},
    {"ebreak", scenario_ebreak, "breakpoint instruction"},
};

const unsigned scenario_count = sizeof(scenarios) / sizeof(scenarios[0]);

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
    {"stack-overflow", scenario_stack_overflow,
     "unbounded recursion into the guard page"},
    {"bad-sp", scenario_bad_sp, "sp set to an unmapped address, then a store"},
    {"small-stack", scenario_small_stack, "panic() with 256 bytes of stack left"},
    {"timer-panic", scenario_timer_panic, "panic in the timer interrupt handler"},
    {"timer-fault", scenario_timer_fault,
     "load page fault in the timer interrupt handler"},
    {"secondary-panic", scenario_secondary_panic,
     "panic on another hart (-smp 2 or more)"},
    {"all-harts", scenario_all_harts, "every hart panics or faults at once (-smp N)"},
    {"bad-sscratch", scenario_bad_sscratch, "sscratch set to 0x1000, then a load fault"},
    {"bad-sscratch-tick", scenario_bad_sscratch_tick,
     "sscratch set to 0x1000, then a timer interrupt"},
    {"bad-sscratch-tp", scenario_bad_sscratch_tp,
     "sscratch and tp set to 0x1000, then a load fault"},
    {"misaligned-sscratch", scenario_misaligned_sscratch,
     "sscratch and tp set to harts + 8, then a load fault"},
    {"panic-mid-line", scenario_panic_mid_line,
     "a tick panics in the middle of its hart's line; the other harts print (-smp N)"},
    {"panic-slow-char", scenario_panic_slow_char,
     "panic while another hart hands a character to the firmware, slowly (-smp 2)"},
    {"panic-stack-1500", scenario_panic_stack_1500,
     "panic() on the panic stack with 1,500 bytes of it left"},
    {"panic-stack-2000", scenario_panic_stack_2000,
     "panic() on the panic stack with 2,000 bytes of it left"},
    {"panic-stack-fault", scenario_panic_stack_fault,
     "panic() on the panic stack with 1,500 bytes left, its message faulting"},
    {"reserve-stack-1500", scenario_reserve_stack_1500,
     "panic() on the reserve stack with 1,500 bytes of it left"},
    {"reserve-stack-2700", scenario_reserve_stack_2700,
     "panic() on the reserve stack with 2,700 bytes of it left"},
};

const unsigned scenario_count = sizeof(scenarios) / sizeof(scenarios[0]);

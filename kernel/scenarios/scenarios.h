/*
 * scenarios.h - the stacks the demo kernel can panic from (scenario=NAME).
 */
#ifndef KERNEL_SCENARIOS_H
#define KERNEL_SCENARIOS_H

/*
 * Scenario functions must keep their own frames, as written, so that the
 * backtrace shows the call chain of the source: never inlined, never cloned
 * into name.constprop.0 and the like.
 */
#if defined(__clang__)
#define SCENARIO_FN __attribute__((noinline))
#else
#define SCENARIO_FN __attribute__((noinline, noclone))
#endif

struct scenario {
	const char *name;
	void (*run)(void);
	const char *what;
};

extern const struct scenario scenarios[];
extern const unsigned scenario_count;

void scenario_panic(void);
void scenario_recursion(void);
void scenario_load_fault(void);
void scenario_illegal(void);
void scenario_ebreak(void);
void scenario_stack_overflow(void);
void scenario_bad_sp(void);
void scenario_small_stack(void);
void scenario_timer_panic(void);
void scenario_timer_fault(void);
void scenario_secondary_panic(void);
void scenario_all_harts(void);
void scenario_bad_sscratch(void);
void scenario_bad_sscratch_tick(void);
void scenario_bad_sscratch_tp(void);
void scenario_misaligned_sscratch(void);
void scenario_panic_mid_line(void);
void scenario_panic_slow_char(void);
void scenario_panic_stack_1500(void);
void scenario_panic_stack_2000(void);
void scenario_panic_stack_fault(void);
void scenario_reserve_stack_1500(void);
void scenario_reserve_stack_2700(void);

#endif /* KERNEL_SCENARIOS_H */

/*
 * main.c - kmain: read the command line (QEMU -append, via the device tree),
 * pick the unwinder and the scenario, run it.
 *
 * Sets up this hart and the others (smp.c), which idle with ticks.
 *
 *     scenario=NAME    one of scenarios[] (default: panic)
 *     scenario=call:F  call function F, found by name in the symbol table
 *     tracer=NAME      auto (default), frame-pointer, dwarf, prologue or table,
 *                      one this kernel links (make UNWINDERS=...); fp and
 *                      compiler are the seed's names for frame-pointer and
 *                      prologue, kept as aliases; all: each linked one in
 *                      turn, auto first
 * Any other word, or one of these twice, is refused: QEMU exits with
 * EXIT_USAGE (poweroff.h), as for an unknown name.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "console.h"
#include "fdt.h"
#include "hart.h"
#include "kstring.h"
#include "panic.h"
#include "poweroff.h"
#include "scenarios/scenarios.h"
#include "smp.h"
#include "timer.h"
#include "tracer_embedded.h"
#include "tracer_tables.h"
#include "vm.h"

#define ARG_MAX 64

/* tracer=NAME takes the name the trace's header prints (tracer_unwinder_name). */
static const enum tracer_unwinder tracers[] = {
    TRACER_AUTO, TRACER_FRAME_POINTER, TRACER_DWARF, TRACER_PROLOGUE, TRACER_TABLE,
};

/* The seed's names, which older notes and scripts use. */
static const struct {
	const char *alias;
	enum tracer_unwinder unwinder;
} tracer_aliases[] = {
    {"fp", TRACER_FRAME_POINTER},
    {"compiler", TRACER_PROLOGUE},
};

/*
 * Copies the value of `key=` from the space-separated args into value
 * (at most ARG_MAX - 1 characters). False if the key is absent.
 */
static bool arg_value(const char *args, const char *key, char value[ARG_MAX])
{
	while (*args) {
		const char *k = key;
		size_t n = 0;

		while (*args == ' ')
			args++;
		while (*k && *args == *k) {
			args++;
			k++;
		}
		if (*k == '\0' && *args == '=') {
			for (args++; *args && *args != ' ' && n + 1 < ARG_MAX; args++)
				value[n++] = *args;
			value[n] = '\0';
			return true;
		}
		while (*args && *args != ' ')
			args++;
	}
	return false;
}

static _Noreturn void usage(const char *problem, const char *value)
{
	kprintf("error: %s '%s'\nscenarios:\n", problem, value);
	for (unsigned i = 0; i < scenario_count; i++)
		kprintf("  scenario=%s: %s\n", scenarios[i].name, scenarios[i].what);
	kprintf("  scenario=call:NAME: call function NAME (add code with make "
		"EXTRA_SRCS=...)\n"
		"tracers:\n");
	for (size_t i = 0; i < sizeof(tracers) / sizeof(tracers[0]); i++)
		kprintf("  tracer=%s%s\n", tracer_unwinder_name(tracers[i]),
			panic_links_unwinder(tracers[i]) ? "" : " (not linked)");
	for (size_t i = 0; i < sizeof(tracer_aliases) / sizeof(tracer_aliases[0]); i++)
		kprintf("  tracer=%s: alias of tracer=%s\n", tracer_aliases[i].alias,
			tracer_unwinder_name(tracer_aliases[i].unwinder));
	kputs("  tracer=all: a trace with each unwinder linked, in turn\n");
	poweroff(EXIT_USAGE);
}

/* Whether the word at `word` (ending at a space or the end) starts with s. */
static bool word_starts_with(const char *word, const char *s)
{
	while (*s && *word == *s) {
		word++;
		s++;
	}
	return *s == '\0';
}

/*
 * Refuses a word of the command line other than scenario=... and tracer=...,
 * and either of them twice: a typo must not run the default quietly.
 */
static void check_words(const char *args)
{
	static const char *const keys[] = {"scenario=", "tracer="};
	bool seen[sizeof(keys) / sizeof(keys[0])] = {false};
	char word[ARG_MAX];

	while (*args) {
		size_t key = 0;
		size_t n = 0;

		while (*args == ' ')
			args++;
		if (!*args)
			break;
		for (const char *c = args; *c && *c != ' ' && n + 1 < ARG_MAX; c++)
			word[n++] = *c;
		word[n] = '\0';
		while (key < sizeof(keys) / sizeof(keys[0]) &&
		       !word_starts_with(args, keys[key]))
			key++;
		if (key == sizeof(keys) / sizeof(keys[0]))
			usage("unknown argument", word);
		if (seen[key])
			usage("argument given twice", word);
		seen[key] = true;
		while (*args && *args != ' ')
			args++;
	}
}

/* The unwinder a tracer= names, if this kernel links it. */
static void use_tracer(enum tracer_unwinder unwinder, const char *name)
{
	if (!panic_links_unwinder(unwinder))
		usage("unwinder not linked into this kernel: tracer", name);
	panic_use_unwinder(unwinder);
}

static void choose_tracer(const char *args)
{
	char value[ARG_MAX];
	const char *name = arg_value(args, "tracer", value) ? value : "auto";

	if (str_equal(name, "all")) {
		panic_use_every_unwinder();
		return;
	}
	for (size_t i = 0; i < sizeof(tracers) / sizeof(tracers[0]); i++) {
		if (str_equal(name, tracer_unwinder_name(tracers[i]))) {
			use_tracer(tracers[i], name);
			return;
		}
	}
	for (size_t i = 0; i < sizeof(tracer_aliases) / sizeof(tracer_aliases[0]); i++) {
		if (str_equal(name, tracer_aliases[i].alias)) {
			use_tracer(tracer_aliases[i].unwinder, name);
			return;
		}
	}
	usage("unknown tracer", name);
}

/* scenario=call:NAME: the function is found in the embedded symbol table,
 * checked whole first (a lookup by name reads every name). */
static void call_by_name(const char *name)
{
#if TRACER_LINKS_CAPTURE && TRACER_LINKS_SYMBOLS
	struct tracer_config config;
	struct tracer_trap_layout trap;
	const struct tracer_symbol *symbol;
	enum tracer_table_status status;

	panic_describe_kernel(&config, &trap);
	status = tracer_symtab_check(&config);
	if (status != TRACER_TABLE_OK)
		usage("the symbol table is unusable", tracer_table_status_text(status));
	symbol = tracer_symtab_find(&tracer_symtab, name);
	if (!symbol)
		usage("no function in the symbol table named", name);
	kprintf("calling %s at 0x%lx\n", name, (unsigned long)symbol->addr);
	poweroff_scenario_started();
	((void (*)(void))symbol->addr)();
#else
	usage("no lookup by name: built with CAPTURE=no or SYMBOLS=no; asked for", name);
#endif
}

/* Runs the scenario args name; it panics (or, for call:, returns). */
static _Noreturn void run_scenario(const char *args)
{
	char value[ARG_MAX];
	const char *name = arg_value(args, "scenario", value) ? value : "panic";

	if (str_starts_with(name, "call:")) {
		call_by_name(name + sizeof("call:") - 1);
		kprintf("the scenario returned without a panic\n");
		poweroff(EXIT_DONE);
	}
	for (unsigned i = 0; i < scenario_count; i++) {
		if (str_equal(name, scenarios[i].name)) {
			kprintf("scenario %s: %s\n", name, scenarios[i].what);
			poweroff_scenario_started();
			scenarios[i].run();
			kprintf("the scenario returned without a panic\n");
			poweroff(EXIT_KERNEL_FAILURE);
		}
	}
	usage("unknown scenario", name);
}

_Noreturn void kmain(unsigned long hartid, const void *fdt);

void kmain(unsigned long hartid, const void *fdt)
{
	const char *args;
	unsigned harts;

	/* How to end QEMU with a status first, then traps, then the guard
	 * pages: from here on, a fault or a stack overflow is reported. */
	poweroff_init(fdt);
	hart_init(hartid);
	vm_init();
	vm_enable();
	args = fdt_bootargs(fdt);
	kprintf("\nbacktrace demo kernel on hart %lu, args \"%s\"\n", hartid, args);
	harts = smp_start_harts();
	if (harts > 1)
		kprintf("%u harts running\n", harts);
	timer_start();
	hart_interrupts_on();
	check_words(args);
	choose_tracer(args);
	run_scenario(args);
}

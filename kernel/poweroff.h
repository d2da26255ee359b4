/*
 * poweroff.h - ending QEMU with an exit status (make run's, README "Try it").
 */
#ifndef KERNEL_POWEROFF_H
#define KERNEL_POWEROFF_H

/* QEMU's exit status when the kernel ends it. QEMU itself exits 1 when it
 * cannot start (a missing file, a bad option): no status of ours is 1. */
enum exit_status {
	/* The demo did what it was asked: a scenario's panic or trap report
	 * (the point of the demo), or a call: whose function returned. */
	EXIT_DONE = 0,
	/* The command line asked for something this kernel has not: an unknown
	 * word, scenario or tracer, an unwinder not linked, a scenario needing
	 * more harts. The kernel says which word, and lists the choices. */
	EXIT_USAGE = 2,
	/* The kernel failed on its own: a panic or trap before the scenario
	 * started, or a scenario that returned instead of panicking. */
	EXIT_KERNEL_FAILURE = 3,
};

/* Finds QEMU's test device in the device tree and maps its page (before
 * vm_init and vm_enable). Without one, the kernel powers off through the
 * firmware (SBI SRST), and QEMU exits 0 whatever the status. */
void poweroff_init(const void *fdt);
/* From now on a panic or trap report is the scenario's: it ends with
 * EXIT_DONE (before, with EXIT_KERNEL_FAILURE). */
void poweroff_scenario_started(void);
/* Ends QEMU with `status` (from any hart). */
_Noreturn void poweroff(enum exit_status status);
/* Ends QEMU after a panic or trap report, with the status it calls for. */
_Noreturn void poweroff_after_panic(void);

#endif /* KERNEL_POWEROFF_H */

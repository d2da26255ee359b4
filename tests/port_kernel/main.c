/*
 * main.c - kmain: the command line, memory, traps, then what the command
 * line asks for (scenario=NAME), each ending in a panic:
 *   chain     mount the file system: fsinit -> bread -> ramdisk_rw panics
 *   fault     a use after free corrupts the free list: kalloc, called from
 *             userinit, loads through it (load access fault, kernelvec)
 *   syscall   the first user program exits: usertrap -> syscall -> sys_exit
 *             -> exit panics ("init exiting")
 */
#include "defs.h"
#include "param.h"

/* One 4 KiB boot stack per hart (entry.S). */
__attribute__((aligned(16))) char stack0[PGSIZE * NCPU];

void kmain(unsigned long hartid, const void *fdt)
{
	const char *scenario;

	bootargs_init(fdt); /* before kinit() junks the tree */
	kinit();
	trapinit();
	printf("hart %d: kernel booted\n", (int)hartid);
	scenario = bootarg("scenario");
	if (strcmp(scenario, "chain") == 0) {
		fsinit(ROOTDEV);
	} else if (strcmp(scenario, "fault") == 0) {
		char *page = kalloc();

		kfree(page);
		safestrcpy(page, "use after free", 16);
		userinit();
	} else if (strcmp(scenario, "syscall") == 0) {
		userinit();
	}
	printf("unknown scenario '%s'; scenarios: chain fault syscall\n", scenario);
	poweroff();
}

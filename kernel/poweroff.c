/*
 * poweroff.c - ending QEMU with an exit status, through the SiFive test
 * device of QEMU virt ("finisher"): writing (status << 16) | 0x3333 to it
 * makes QEMU exit with that status, 0x5555 with 0. The firmware's SBI SRST
 * shutdown, the fallback without the device, makes QEMU exit 0 whatever the
 * reason given. OpenSBI leaves the device to S-mode (no PMP guards it).
 */
#include "poweroff.h"

#include <stdint.h>

#include "fdt.h"
#include "sbi.h"
#include "vm.h"

#define FINISHER_FAIL 0x3333
#define FINISHER_PASS 0x5555

/*
 * Read by trap_entry.S too, which powers off without a stack: the device's
 * address (0: none), and the word that ends QEMU after a panic or trap
 * report (poweroff_after_panic).
 */
uintptr_t poweroff_device;
uint32_t poweroff_panic_word = (uint32_t)EXIT_KERNEL_FAILURE << 16 | FINISHER_FAIL;

static uint32_t finisher_word(enum exit_status status)
{
	return status == EXIT_DONE ? FINISHER_PASS
				   : (uint32_t)status << 16 | FINISHER_FAIL;
}

void poweroff_init(const void *fdt)
{
	uintptr_t address;

	if (fdt_device_address(fdt, "sifive,test0", &address)) {
		vm_map_device(address);
		poweroff_device = address;
	}
}

void poweroff_scenario_started(void)
{
	__atomic_store_n(&poweroff_panic_word, finisher_word(EXIT_DONE),
			 __ATOMIC_SEQ_CST);
}

static _Noreturn void write_finisher(uint32_t word)
{
	if (poweroff_device)
		*(volatile uint32_t *)poweroff_device = word;
	/* No device, or not one that ends QEMU. */
	sbi_shutdown(word != FINISHER_PASS);
}

void poweroff(enum exit_status status)
{
	write_finisher(finisher_word(status));
}

void poweroff_after_panic(void)
{
	write_finisher(__atomic_load_n(&poweroff_panic_word, __ATOMIC_SEQ_CST));
}

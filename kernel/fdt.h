/*
 * fdt.h - reading the flattened device tree the firmware passes in a1.
 */
#ifndef KERNEL_FDT_H
#define KERNEL_FDT_H

#include <stdbool.h>
#include <stdint.h>

/* The /chosen/bootargs string (QEMU's -append), or "" if there is none. */
const char *fdt_bootargs(const void *fdt);
/*
 * The first address in the reg property of the first node whose compatible
 * list holds `compatible`, as the CPU sees it (every bus on the way maps
 * addresses one to one, as on QEMU virt). False if there is no such node.
 */
bool fdt_device_address(const void *fdt, const char *compatible, uintptr_t *address);

#endif /* KERNEL_FDT_H */

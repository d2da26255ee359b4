/*
 * fdt.h - reading the flattened device tree the firmware passes in a1.
 */
#ifndef KERNEL_FDT_H
#define KERNEL_FDT_H

/* The /chosen/bootargs string (QEMU's -append), or "" if there is none. */
const char *fdt_bootargs(const void *fdt);

#endif /* KERNEL_FDT_H */

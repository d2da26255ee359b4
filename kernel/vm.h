/*
 * vm.h - paging: the kernel identity-mapped, a guard page below every stack.
 */
#ifndef KERNEL_VM_H
#define KERNEL_VM_H

#include <stdbool.h>
#include <stdint.h>

/* Builds the page table (once, on the boot hart, before other harts start). */
void vm_init(void);
/* Maps the 4 KiB page holding a device's registers, readable and writable,
 * before vm_enable (the device must lie outside RAM). */
void vm_map_device(uintptr_t address);
/* Turns paging on for the calling hart. */
void vm_enable(void);
/* Unmaps the 4 KiB page holding va, on this hart (other harts may keep it
 * in their TLBs). Only pages around the stacks are 4 KiB pages: false for
 * any other address. */
bool vm_unmap_page(uintptr_t va);

#endif /* KERNEL_VM_H */

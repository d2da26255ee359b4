/*
 * vm.h - paging: the kernel identity-mapped, a guard page below every stack.
 */
#ifndef KERNEL_VM_H
#define KERNEL_VM_H

/* Builds the page table (once, on the boot hart, before other harts start). */
void vm_init(void);
/* Turns paging on for the calling hart. */
void vm_enable(void);

#endif /* KERNEL_VM_H */

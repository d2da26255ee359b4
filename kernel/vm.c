/*
 * vm.c - paging, for one reason: a guard page below each stack, so that a
 * stack overflow faults at once instead of silently overwriting what lies
 * below (with paging off, S-mode cannot trap on any RAM access).
 *
 * Virtual addresses equal physical ones. RAM is mapped with megapages (2 MiB
 * in Sv39, 4 MiB in Sv32), readable, writable and executable, except the
 * megapages that hold the stacks: those get 4 KiB pages, and the guard pages
 * stay unmapped. Besides RAM, only the page of the device that ends QEMU
 * (poweroff.c) is mapped, so a stray pointer to address 0 or to any other
 * device faults (page fault) too.
 */
#include "vm.h"

#include <stdbool.h>
#include <stdint.h>

#include "console.h"
#include "layout.h"
#include "poweroff.h"

#if __riscv_xlen == 64
#define LEVELS	  3 /* Sv39 */
#define VPN_BITS  9
#define SATP_MODE (8ull << 60)
#else
#define LEVELS	  2 /* Sv32 */
#define VPN_BITS  10
#define SATP_MODE (1ul << 31)
#endif
#define PAGE_SHIFT    12
#define TABLE_ENTRIES (1u << VPN_BITS)
#define MEGAPAGE_SIZE ((uintptr_t)PAGE_SIZE << VPN_BITS)

/* Page table entry bits (privileged spec, "Sv32"/"Sv39"). Accessed and dirty
 * are set up front: hardware need not set them itself. */
#define PTE_V	      (1u << 0)
#define PTE_R	      (1u << 1)
#define PTE_W	      (1u << 2)
#define PTE_X	      (1u << 3)
#define PTE_A	      (1u << 6)
#define PTE_D	      (1u << 7)
#define PTE_KERNEL    (PTE_V | PTE_R | PTE_W | PTE_X | PTE_A | PTE_D)
#define PTE_DEVICE    (PTE_V | PTE_R | PTE_W | PTE_A | PTE_D)
#define PTE_PPN_SHIFT 10

/* QEMU virt's RAM starts here; 1 GiB is mapped, more than -m gives by default. */
#define RAM_START  0x80000000ul
#define RAM_MAPPED 0x40000000ul

/* The root, the table under it (Sv39), and 4 KiB-page tables for the
 * megapages the stacks touch: HART_COUNT * HART_STACKS_SIZE (512 KiB) spans
 * at most two; for the device page, a table under the root (Sv39) and a
 * 4 KiB-page table. One to spare. */
#define TABLES 8

typedef uintptr_t pte_t;

static pte_t tables[TABLES][TABLE_ENTRIES] __attribute__((aligned(PAGE_SIZE)));
static unsigned tables_used = 1; /* tables[0] is the root */

extern char __stacks_start[], __stacks_end[];

static pte_t table_pte(const pte_t *table)
{
	return ((uintptr_t)table >> PAGE_SHIFT) << PTE_PPN_SHIFT | PTE_V;
}

static pte_t leaf_pte(uintptr_t addr, pte_t permissions)
{
	return (addr >> PAGE_SHIFT) << PTE_PPN_SHIFT | permissions;
}

static _Noreturn void out_of_tables(void)
{
	kprintf("panic: vm: more than %d page tables needed\n", TABLES);
	poweroff_after_panic();
}

/* The entry for va at `level` (0: 4 KiB pages), making tables on the way. */
static pte_t *entry_for(uintptr_t va, unsigned level)
{
	pte_t *table = tables[0];

	for (unsigned l = LEVELS - 1; l > level; l--) {
		pte_t *pte =
		    &table[(va >> (PAGE_SHIFT + l * VPN_BITS)) & (TABLE_ENTRIES - 1)];

		if (!(*pte & PTE_V)) {
			if (tables_used == TABLES)
				out_of_tables();
			*pte = table_pte(tables[tables_used++]);
		}
		table = (pte_t *)((*pte >> PTE_PPN_SHIFT) << PAGE_SHIFT);
	}
	return &table[(va >> (PAGE_SHIFT + level * VPN_BITS)) & (TABLE_ENTRIES - 1)];
}

/* Whether [page, page + PAGE_SIZE) is the guard page below one of the
 * stacks of some hart (layout.h: a guard below each). */
static int is_guard_page(uintptr_t page)
{
	uintptr_t offset;

	if (page < (uintptr_t)__stacks_start || page >= (uintptr_t)__stacks_end)
		return 0;
	offset = (page - (uintptr_t)__stacks_start) % HART_STACKS_SIZE;
	return offset == TASK_STACK_OFFSET - GUARD_SIZE ||
	       offset == INTERRUPT_STACK_OFFSET - GUARD_SIZE ||
	       offset == PANIC_STACK_OFFSET - GUARD_SIZE ||
	       offset == RESERVE_STACK_OFFSET - GUARD_SIZE;
}

void vm_init(void)
{
	uintptr_t stacks_start = (uintptr_t)__stacks_start & ~(MEGAPAGE_SIZE - 1);
	uintptr_t stacks_end = (uintptr_t)__stacks_end;

	for (uintptr_t mega = RAM_START; mega < RAM_START + RAM_MAPPED;
	     mega += MEGAPAGE_SIZE) {
		if (mega < stacks_start || mega >= stacks_end) {
			*entry_for(mega, 1) = leaf_pte(mega, PTE_KERNEL);
			continue;
		}
		for (uintptr_t page = mega; page < mega + MEGAPAGE_SIZE;
		     page += PAGE_SIZE)
			if (!is_guard_page(page))
				*entry_for(page, 0) = leaf_pte(page, PTE_KERNEL);
	}
}

void vm_map_device(uintptr_t address)
{
	uintptr_t page = address & ~((uintptr_t)PAGE_SIZE - 1);

	*entry_for(page, 0) = leaf_pte(page, PTE_DEVICE);
}

bool vm_unmap_page(uintptr_t va)
{
	pte_t *table = tables[0];
	pte_t *pte;

	for (unsigned l = LEVELS - 1; l > 0; l--) {
		pte = &table[(va >> (PAGE_SHIFT + l * VPN_BITS)) & (TABLE_ENTRIES - 1)];
		/* Invalid, or a leaf (a megapage): no 4 KiB page to unmap. */
		if ((*pte & (PTE_V | PTE_R | PTE_W | PTE_X)) != PTE_V)
			return false;
		table = (pte_t *)((*pte >> PTE_PPN_SHIFT) << PAGE_SHIFT);
	}
	pte = &table[(va >> PAGE_SHIFT) & (TABLE_ENTRIES - 1)];
	*pte = 0;
	__asm__ volatile("sfence.vma %0, zero" ::"r"(va) : "memory");
	return true;
}

void vm_enable(void)
{
	uintptr_t satp = (uintptr_t)SATP_MODE | (uintptr_t)tables[0] >> PAGE_SHIFT;

	__asm__ volatile("sfence.vma zero, zero\n\t"
			 "csrw satp, %0\n\t"
			 "sfence.vma zero, zero" ::"r"(satp)
			 : "memory");
}

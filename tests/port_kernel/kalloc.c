/*
 * kalloc.c - physical page allocator: every 4 KiB page from the end of the
 * kernel image (`end`, kernel.ld) to PHYSTOP, on a free list threaded
 * through the free pages themselves.
 */
#include "defs.h"
#include "param.h"

extern char end[]; /* first address after the kernel (kernel.ld) */

struct run {
	struct run *next;
};

static struct {
	struct run *freelist;
} kmem;

void kinit(void)
{
	char *p = (char *)PGROUNDUP((uint64)end);

	for (; p + PGSIZE <= (char *)PHYSTOP; p += PGSIZE)
		kfree(p);
}

void kfree(void *pa)
{
	struct run *r;

	if ((uint64)pa % PGSIZE != 0 || (char *)pa < end || (uint64)pa >= PHYSTOP)
		panic("kfree");
	/* Junk, to catch dangling references. */
	memset(pa, 1, PGSIZE);
	r = pa;
	r->next = kmem.freelist;
	kmem.freelist = r;
}

void *kalloc(void)
{
	struct run *r = kmem.freelist;

	if (r) {
		kmem.freelist = r->next;
		memset(r, 5, PGSIZE); /* junk */
	}
	return r;
}

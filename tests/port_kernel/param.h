/* param.h - sizes and the physical memory map (QEMU virt, 128 MiB of RAM). */
#define NCPU	   4	       /* harts with a boot stack */
#define NBUF	   8	       /* block cache entries */
#define BSIZE	   1024	       /* block size */
#define PGSIZE	   4096	       /* page and kernel stack size */
#define KERNBASE   0x80200000L /* where OpenSBI enters the kernel */
#define PHYSTOP	   0x88000000L /* end of RAM: kalloc hands out pages up to here */
#define UART0	   0x10000000L /* 16550 UART, already set up by OpenSBI */
#define VIRT_TEST  0x100000L   /* QEMU's test device: writing 0x5555 powers off */
#define ROOTDEV	   1
#define PGROUNDUP(a) (((a) + PGSIZE - 1) & ~(uint64)(PGSIZE - 1))
#define NELEM(x)     (sizeof(x) / sizeof((x)[0]))

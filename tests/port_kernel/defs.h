/* defs.h - every function one file calls in another. */
#include "types.h"

struct buf;
struct proc;

/* bio.c */
struct buf *bread(uint dev, uint blockno);
void brelse(struct buf *b);

/* bootargs.c */
void bootargs_init(const void *fdt);
const char *bootarg(const char *key);

/* console.c */
void consputc(int c);
void printf(const char *fmt, ...);
_Noreturn void panic(const char *s);
_Noreturn void poweroff(void);

/* fs.c */
void fsinit(int dev);

/* kalloc.c */
void kinit(void);
void *kalloc(void);
void kfree(void *pa);

/* proc.c */
struct proc *myproc(void);
void userinit(void);
_Noreturn void exit(int status);

/* ramdisk.c */
void ramdisk_attach(uchar *image, uint blocks);
void ramdisk_rw(struct buf *b, int write);

/* string.c */
void *memset(void *dst, int c, uint64 n);
void *memmove(void *dst, const void *src, uint64 n);
int strcmp(const char *p, const char *q);
int strncmp(const char *p, const char *q, uint64 n);
char *safestrcpy(char *s, const char *t, int n);

/* syscall.c */
void syscall(void);

/* trap.c */
void trapinit(void);
void usertrapret(void);

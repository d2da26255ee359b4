/* proc.c - the one process this kernel runs: the first user program. */
#include "defs.h"
#include "param.h"
#include "proc.h"
#include "riscv.h"

extern char initcode[], initcode_end[]; /* initcode.S */

static struct proc procs[1];
static struct proc *initproc;
static struct proc *current; /* one hart: the running process */

struct proc *myproc(void)
{
	return current;
}

static struct proc *allocproc(void)
{
	struct proc *p = &procs[0];

	p->pid = 1;
	p->trapframe = kalloc();
	p->kstack = (uint64)kalloc();
	if (!p->trapframe || !p->kstack)
		panic("allocproc: out of memory");
	memset(p->trapframe, 0, sizeof *p->trapframe);
	return p;
}

/* Sets up the first process and enters it in user mode; never returns. */
void userinit(void)
{
	struct proc *p = allocproc();

	p->upage = kalloc();
	if (!p->upage)
		panic("userinit: out of memory");
	memmove(p->upage, initcode, (uint64)(initcode_end - initcode));
	/* Paging is off: the user program runs at the page's physical address,
	 * its stack at the page's top. */
	p->trapframe->epc = (uint64)p->upage;
	p->trapframe->sp = (uint64)p->upage + PGSIZE;
	initproc = p;
	current = p;
	usertrapret();
}

_Noreturn void exit(int status)
{
	struct proc *p = myproc();

	if (p == initproc)
		panic("init exiting");
	printf("pid %d exited with status %d\n", p->pid, status);
	poweroff();
}

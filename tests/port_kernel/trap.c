/* trap.c - traps from the kernel (kernelvec.S) and from user mode (trampoline.S). */
#include "defs.h"
#include "param.h"
#include "proc.h"
#include "riscv.h"

#define SCAUSE_ECALL_FROM_U 8

extern char kernelvec[], uservec[];		   /* kernelvec.S, trampoline.S */
void userret(struct trapframe *tf);		   /* trampoline.S */
void kerneltrap(void);
void usertrap(void);

void trapinit(void)
{
	w_stvec((uint64)kernelvec);
}

/* From kernelvec, on the interrupted code's stack. Interrupts are never
 * enabled: any trap here is an error. */
void kerneltrap(void)
{
	uint64 sstatus = r_sstatus();

	if ((sstatus & SSTATUS_SPP) == 0)
		panic("kerneltrap: not from supervisor mode");
	printf("scause %p sepc %p stval %p\n", r_scause(), r_sepc(), r_stval());
	panic("kerneltrap");
}

/* From uservec, by a jump, on the process's kernel stack. */
void usertrap(void)
{
	struct proc *p = myproc();

	if ((r_sstatus() & SSTATUS_SPP) != 0)
		panic("usertrap: not from user mode");
	w_stvec((uint64)kernelvec);
	p->trapframe->epc = r_sepc();
	if (r_scause() == SCAUSE_ECALL_FROM_U) {
		p->trapframe->epc += 4; /* return past the ecall */
		syscall();
	} else {
		printf("usertrap: unexpected scause %p pid %d sepc %p stval %p\n", r_scause(),
		       p->pid, r_sepc(), r_stval());
		panic("usertrap");
	}
	usertrapret();
}

/* Back to user mode at trapframe->epc. */
void usertrapret(void)
{
	struct proc *p = myproc();
	uint64 sstatus = r_sstatus();

	w_stvec((uint64)uservec);
	p->trapframe->kernel_sp = p->kstack + PGSIZE;
	p->trapframe->kernel_trap = (uint64)usertrap;
	sstatus &= ~(SSTATUS_SPP | SSTATUS_SPIE); /* user mode, interrupts off */
	w_sstatus(sstatus);
	w_sepc(p->trapframe->epc);
	userret(p->trapframe);
}

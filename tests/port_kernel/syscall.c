/* syscall.c - system call dispatch: number in a7, arguments in a0.., result in a0. */
#include "defs.h"
#include "param.h"
#include "proc.h"
#include "syscall.h"

uint64 sys_exit(void);
uint64 sys_write(void);

static uint64 (*const syscalls[])(void) = {
	[SYS_exit] = sys_exit,
	[SYS_write] = sys_write,
};

void syscall(void)
{
	struct trapframe *tf = myproc()->trapframe;
	uint64 num = tf->a7;

	if (num < NELEM(syscalls) && syscalls[num]) {
		tf->a0 = syscalls[num]();
	} else {
		printf("pid %d: unknown sys call %d\n", myproc()->pid, (int)num);
		tf->a0 = (uint64)-1;
	}
}

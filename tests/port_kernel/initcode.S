# initcode.S - the first user program, as bytes: userinit() copies
# initcode..initcode_end into a fresh page and enters it in user mode. With
# paging off the program runs at that page's physical address, so it uses
# only pc-relative addressing. It writes a line, then exits, which the kernel
# does not allow the first process to do (proc.c: exit).
#include "syscall.h"
.option norelax
.section .rodata
.globl initcode
.globl initcode_end
.align 2
initcode:
	jal ra, start		# ra and s0 hold user values from here on
1:	j 1b
start:
	addi sp, sp, -16
	sd ra, 8(sp)
	sd s0, 0(sp)
	addi s0, sp, 16
	li a0, 1
	lla a1, hello
	lla a2, hello_end
	sub a2, a2, a1
	li a7, SYS_write
	ecall
	li a0, 0
	li a7, SYS_exit
	ecall
	j 1b
hello:
	.ascii "init: hello from user mode\n"
hello_end:
initcode_end:

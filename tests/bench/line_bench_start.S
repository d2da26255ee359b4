/* line_bench_start.S - PROTOTYPE (issue 19): the entry of line_bench.c, at
 * the start of RAM where QEMU's virt board jumps with -bios none. */
	.section .text.start, "ax"
	.globl _start
_start:
	la sp, bench_stack_top
	call bench_main
1:	j 1b

	.bss
	.balign 16
	.globl bench_stack, bench_stack_top
bench_stack:
	.space 16384
bench_stack_top:

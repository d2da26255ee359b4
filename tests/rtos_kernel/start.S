# start.S - QEMU (-bios none) starts the kernel here, in machine mode, at
# 0x80000000: the lowest loadable address of the image (kernel.ld keeps this
# section first). A boot stack, the trap vector, then main().
	.section .text.start
	.globl _start
_start:
	# PORT GLUE: the outermost frame, for frame pointers and for CFI.
	.cfi_startproc
	.cfi_undefined ra
	li s0, 0
	la sp, boot_stack_top
	la t0, trap_vector
	csrw mtvec, t0
	call main
1:	j 1b
	.cfi_endproc

	.section .bss
	.balign 16
	.globl boot_stack, boot_stack_top
boot_stack:
	.space 2048
boot_stack_top:

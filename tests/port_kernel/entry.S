# entry.S - OpenSBI (qemu -bios default) jumps to _entry in supervisor mode,
# at KERNBASE, with a0 = this hart's id and a1 = the device tree's address.
# Each hart gets a 4 KiB stack in stack0[] (main.c); then kmain().
#
# PORT GLUE: a port marks the outermost frame here (li s0, 0 for frame
# pointers; .cfi_startproc / .cfi_undefined ra / .cfi_endproc for DWARF).
# Like much hand-written entry code, _entry has no .type or .size.
.section .text.entry
.globl _entry
_entry:
	.cfi_startproc
	.cfi_undefined ra
	li s0, 0
	la sp, stack0
	li t0, 4096
	addi t1, a0, 1
	mul t0, t0, t1
	add sp, sp, t0
	call kmain
spin:
	j spin
	.cfi_endproc

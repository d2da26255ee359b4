# trampoline.S - the way between user mode and the kernel.
#
# uservec: stvec while a user program runs. sscratch holds the process's
# trapframe (proc.h); the user registers go there, then the kernel stack and
# usertrap() come from it. usertrap() is entered by a jump, not a call: ra
# and s0 still hold the user program's values.
#
# PORT GLUE: a walk that reaches usertrap() from here has no kernel caller
# above it; a port declares usertrap as where such walks end.
#
# userret(trapframe): back to user mode with the registers in the trapframe.
.globl uservec
.globl userret
.align 4
uservec:
	csrrw a0, sscratch, a0
	sd ra, 24(a0)
	sd sp, 32(a0)
	sd gp, 40(a0)
	sd tp, 48(a0)
	sd t0, 56(a0)
	sd t1, 64(a0)
	sd t2, 72(a0)
	sd s0, 80(a0)
	sd s1, 88(a0)
	sd a1, 104(a0)
	sd a2, 112(a0)
	sd a3, 120(a0)
	sd a4, 128(a0)
	sd a5, 136(a0)
	sd a6, 144(a0)
	sd a7, 152(a0)
	sd s2, 160(a0)
	sd s3, 168(a0)
	sd s4, 176(a0)
	sd s5, 184(a0)
	sd s6, 192(a0)
	sd s7, 200(a0)
	sd s8, 208(a0)
	sd s9, 216(a0)
	sd s10, 224(a0)
	sd s11, 232(a0)
	sd t3, 240(a0)
	sd t4, 248(a0)
	sd t5, 256(a0)
	sd t6, 264(a0)
	csrr t0, sscratch
	sd t0, 96(a0)
	ld sp, 0(a0)
	ld t0, 8(a0)
	jr t0

userret:
	csrw sscratch, a0
	ld ra, 24(a0)
	ld sp, 32(a0)
	ld gp, 40(a0)
	ld tp, 48(a0)
	ld t0, 56(a0)
	ld t1, 64(a0)
	ld t2, 72(a0)
	ld s0, 80(a0)
	ld s1, 88(a0)
	ld a1, 104(a0)
	ld a2, 112(a0)
	ld a3, 120(a0)
	ld a4, 128(a0)
	ld a5, 136(a0)
	ld a6, 144(a0)
	ld a7, 152(a0)
	ld s2, 160(a0)
	ld s3, 168(a0)
	ld s4, 176(a0)
	ld s5, 184(a0)
	ld s6, 192(a0)
	ld s7, 200(a0)
	ld s8, 208(a0)
	ld s9, 216(a0)
	ld s10, 224(a0)
	ld s11, 232(a0)
	ld t3, 240(a0)
	ld t4, 248(a0)
	ld t5, 256(a0)
	ld t6, 264(a0)
	ld a0, 96(a0)
	sret

# portasm.S - the trap vector and the context restore, in the shape of
# FreeRTOS's RISC-V port (portASM.S): the vector saves the interrupted
# context on the interrupted stack, stores that frame's address in the
# current task's TCB (its first word), moves sp to the ISR stack and calls
# trap_handler(mcause, mepc, mtval). For an exception it saves mepc + 4, as
# FreeRTOS does (to return past an ecall). A trap taken on the ISR stack
# (a fault in a handler) stays there: moving sp to the top again would
# overwrite the handler's frames. The frame's slots: kernel.h.
	.equ FRAME_SIZE, 128

	.section .text
	.globl trap_vector
	.type trap_vector, @function
	.balign 4
trap_vector:
	addi sp, sp, -FRAME_SIZE
	sw ra, 4(sp)
	sw t0, 20(sp)
	sw t1, 24(sp)
	sw t2, 28(sp)
	sw s0, 32(sp)
	sw s1, 36(sp)
	sw a0, 40(sp)
	sw a1, 44(sp)
	sw a2, 48(sp)
	sw a3, 52(sp)
	sw a4, 56(sp)
	sw a5, 60(sp)
	sw a6, 64(sp)
	sw a7, 68(sp)
	sw s2, 72(sp)
	sw s3, 76(sp)
	sw s4, 80(sp)
	sw s5, 84(sp)
	sw s6, 88(sp)
	sw s7, 92(sp)
	sw s8, 96(sp)
	sw s9, 100(sp)
	sw s10, 104(sp)
	sw s11, 108(sp)
	sw t3, 112(sp)
	sw t4, 116(sp)
	sw t5, 120(sp)
	sw t6, 124(sp)
	csrr t0, mstatus
	sw t0, 8(sp)
	csrr a0, mcause
	csrr a1, mepc
	bltz a0, 1f
	addi a1, a1, 4
1:	sw a1, 0(sp)
	lw t0, current_tcb
	sw sp, 0(t0)
	la t1, isr_stack
	la t2, isr_stack_top
	bltu sp, t1, 2f
	bltu sp, t2, 3f
2:	mv sp, t2
3:	csrr a2, mtval
	call trap_handler
	# The handler may have chosen another task.
	lw t0, current_tcb
	lw sp, 0(t0)
.Lrestore:
	lw t0, 0(sp)
	csrw mepc, t0
	lw t0, 8(sp)
	csrw mstatus, t0
	lw ra, 4(sp)
	lw t0, 20(sp)
	lw t1, 24(sp)
	lw t2, 28(sp)
	lw s0, 32(sp)
	lw s1, 36(sp)
	lw a0, 40(sp)
	lw a1, 44(sp)
	lw a2, 48(sp)
	lw a3, 52(sp)
	lw a4, 56(sp)
	lw a5, 60(sp)
	lw a6, 64(sp)
	lw a7, 68(sp)
	lw s2, 72(sp)
	lw s3, 76(sp)
	lw s4, 80(sp)
	lw s5, 84(sp)
	lw s6, 88(sp)
	lw s7, 92(sp)
	lw s8, 96(sp)
	lw s9, 100(sp)
	lw s10, 104(sp)
	lw s11, 108(sp)
	lw t3, 112(sp)
	lw t4, 116(sp)
	lw t5, 120(sp)
	lw t6, 124(sp)
	addi sp, sp, FRAME_SIZE
	mret
	.size trap_vector, . - trap_vector

# The first task starts as any task resumes: by restoring its frame (for a
# new task, the one task_create() made: ra = 0, mepc = its function).
	.globl start_first_task
	.type start_first_task, @function
start_first_task:
	lw t0, current_tcb
	lw sp, 0(t0)
	j .Lrestore
	.size start_first_task, . - start_first_task

	.section .bss
	.balign 16
	.globl isr_stack, isr_stack_top
isr_stack:
	.space 4096
isr_stack_top:

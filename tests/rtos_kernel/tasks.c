/*
 * tasks.c - tasks, their stacks from a bump allocator, the tick, and the C
 * side of the trap vector: a round-robin switch at every tick.
 */
#include "kernel.h"

#define HEAP_SIZE 16384

static uint8_t heap[HEAP_SIZE] __attribute__((aligned(16)));
static size_t heap_used;
struct tcb *tasks[MAX_TASKS];
unsigned task_count;
struct tcb *current_tcb;
volatile unsigned ticks;
static unsigned current_index;

/* Never freed: an RTOS's tasks live as long as the system. */
static void *heap_alloc(size_t size)
{
	void *block;

	size = (size + 15) & ~(size_t)15;
	if (size > HEAP_SIZE - heap_used)
		panic("heap exhausted");
	block = heap + heap_used;
	heap_used += size;
	return block;
}

struct tcb *task_create(const char *name, void (*entry)(void *), void *arg,
			size_t stack_size)
{
	struct tcb *task = heap_alloc(sizeof(*task));
	uint32_t *frame;

	if (task_count == MAX_TASKS)
		panic("too many tasks");
	task->stack = heap_alloc(stack_size);
	task->stack_size = stack_size;
	task->entry = entry;
	task->name = name;
	/* The first restore starts the task: ra = 0 (a task never returns),
	 * mret to its function with interrupts on, in machine mode. */
	frame = (uint32_t *)(task->stack + stack_size) - FRAME_WORDS;
	for (int i = 0; i < FRAME_WORDS; i++)
		frame[i] = 0;
	frame[FRAME_MEPC] = (uint32_t)(uintptr_t)entry;
	frame[FRAME_MSTATUS] = MSTATUS_MPP_M | MSTATUS_MPIE;
	frame[FRAME_A0] = (uint32_t)(uintptr_t)arg;
	task->top = frame;
	tasks[task_count++] = task;
	return task;
}

static uint64_t mtime(void)
{
	volatile uint32_t *time = (volatile uint32_t *)CLINT_MTIME;
	uint32_t high, low;

	do {
		high = time[1];
		low = time[0];
	} while (high != time[1]);
	return (uint64_t)high << 32 | low;
}

static void timer_arm(void)
{
	volatile uint32_t *compare = (volatile uint32_t *)CLINT_MTIMECMP;
	uint64_t next = mtime() + TICK_CYCLES;

	/* Never below the time while half written. */
	compare[0] = UINT32_MAX;
	compare[1] = (uint32_t)(next >> 32);
	compare[0] = (uint32_t)next;
}

_Noreturn void scheduler_start(void)
{
	current_index = 0;
	current_tcb = tasks[0];
	timer_arm();
	csr_set(mie, MIE_MTIE);
	start_first_task();
}

static __attribute__((noinline)) void tick_handler(void)
{
	timer_arm();
	tick_hook(ticks);
	ticks++;
	current_index = (current_index + 1) % task_count;
	current_tcb = tasks[current_index];
}

/* Called by trap_vector on the ISR stack; mepc as saved (+ 4 for an
 * exception). */
void trap_handler(uint32_t mcause, uint32_t mepc, uint32_t mtval)
{
	(void)mepc;
	if (mcause == MCAUSE_MTIMER) {
		tick_handler();
		return;
	}
	puts_uart("trap: mcause ");
	put_hex(mcause);
	puts_uart(" mepc ");
	put_hex(csr_read(mepc));
	puts_uart(" mtval ");
	put_hex(mtval);
	puts_uart("\n");
	panic("unexpected trap");
}

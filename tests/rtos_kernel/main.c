/*
 * main.c - two tasks and the scenario: a panic or a fault, in a task or in
 * the tick handler, each at the end of a chain of three calls.
 */
#include "kernel.h"

enum scenario { TASK_PANIC, TASK_FAULT, TICK_PANIC, TICK_FAULT };

/* Set at build time (SCENARIO=N), or by a debugger before the kernel runs. */
volatile unsigned scenario = SCENARIO;

/* Nothing answers at this address on QEMU virt: a load faults. */
#define NO_DEVICE 0x80000u
/* The tick the scenario fails at: the tasks have switched a few times. */
#define FAIL_TICK 3

static volatile uint32_t task_results[2];

static __attribute__((noinline)) uint32_t read_no_device(void)
{
	uint32_t value = *(volatile uint32_t *)NO_DEVICE;

	/* Keep the epilogue after the load, as the demo's read_unmapped()
	 * does: a frame-pointer walk cannot see a frame torn down. */
	__asm__ volatile("" ::: "memory");
	return value;
}

static __attribute__((noinline)) uint32_t fail_level3(uint32_t depth)
{
	if (scenario == TASK_PANIC || scenario == TICK_PANIC)
		panic("fail_level3: giving up");
	return read_no_device() + depth;
}

static __attribute__((noinline)) uint32_t fail_level2(uint32_t depth)
{
	return fail_level3(depth + 1) * 3;
}

static __attribute__((noinline)) uint32_t fail_level1(uint32_t depth)
{
	return fail_level2(depth + 1) + 7;
}

void tick_hook(unsigned tick)
{
	if (tick == FAIL_TICK && (scenario == TICK_PANIC || scenario == TICK_FAULT))
		task_results[0] = fail_level1(tick);
}

static __attribute__((noinline)) uint32_t work(uint32_t seed)
{
	for (int i = 0; i < 100; i++)
		seed = seed * 1103515245u + 12345u;
	return seed;
}

static void task_a(void *arg)
{
	uint32_t total = (uint32_t)(uintptr_t)arg;

	for (;;) {
		total += work(total);
		if (ticks > FAIL_TICK &&
		    (scenario == TASK_PANIC || scenario == TASK_FAULT))
			total += fail_level1(total);
		task_results[0] = total;
	}
}

static void task_b(void *arg)
{
	uint32_t total = (uint32_t)(uintptr_t)arg;

	for (;;) {
		total ^= work(total);
		task_results[1] = total;
	}
}

_Noreturn void main(void)
{
	puts_uart("rtos: scenario ");
	put_hex(scenario);
	puts_uart("\n");
	task_create("a", task_a, (void *)1, 4096);
	task_create("b", task_b, (void *)2, 4096);
	scheduler_start();
}

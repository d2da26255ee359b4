/*
 * console.c - the 16550 UART (polled), the SiFive test device's power-off,
 * memset() and panic().
 */
#include "kernel.h"

#define UART_THR      0
#define UART_LSR      5
#define LSR_TX_IDLE   (1u << 5)
#define TEST_POWEROFF 0x5555u

static void putc_uart(char c)
{
	volatile uint8_t *uart = (volatile uint8_t *)UART0;

	while ((uart[UART_LSR] & LSR_TX_IDLE) == 0)
		;
	uart[UART_THR] = (uint8_t)c;
}

void puts_uart(const char *s)
{
	while (*s)
		putc_uart(*s++);
}

void put_hex(uint32_t value)
{
	puts_uart("0x");
	for (int shift = 28; shift >= 0; shift -= 4)
		putc_uart("0123456789abcdef"[value >> shift & 0xf]);
}

/* The compiler may call it for a structure's initializer. */
void *memset(void *dest, int c, size_t n)
{
	uint8_t *bytes = dest;

	while (n--)
		*bytes++ = (uint8_t)c;
	return dest;
}

_Noreturn void poweroff(void)
{
	*(volatile uint32_t *)TEST_DEVICE = TEST_POWEROFF;
	for (;;)
		;
}

_Noreturn void panic(const char *message)
{
	/* No tick may switch tasks under the panic. */
	csr_clear(mstatus, MSTATUS_MIE);
	puts_uart("panic: ");
	puts_uart(message);
	puts_uart("\n");
	poweroff();
}

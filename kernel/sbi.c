/*
 * sbi.c - SBI calls: `ecall` from S-mode traps into the firmware, with the
 * extension id in a7, the function id in a6 and arguments in a0.. (SBI spec).
 */
#include "sbi.h"

#include <stddef.h>
#include <stdint.h>

#define SBI_EXT_LEGACY_PUTCHAR	0x01
#define SBI_EXT_TIME		0x54494D45 /* "TIME" */
#define SBI_EXT_IPI		0x735049   /* "sPI" */
#define SBI_EXT_HSM		0x48534D   /* "HSM": hart state management */
#define SBI_HSM_HART_START	0
#define SBI_HSM_HART_GET_STATUS 2
#define SBI_EXT_SRST		0x53525354 /* "SRST": system reset */
#define SBI_SRST_SHUTDOWN	0
#define SBI_SRST_REASON_NONE	0
#define SBI_SRST_REASON_FAILURE 1

/* Returns the SBI error (a0): 0 for success, negative for errors. The value
 * (a1) goes to *value when it is wanted. */
static long sbi_call(unsigned long ext, unsigned long fid, unsigned long arg0,
		     unsigned long arg1, unsigned long arg2, long *value)
{
	register unsigned long a0 __asm__("a0") = arg0;
	register unsigned long a1 __asm__("a1") = arg1;
	register unsigned long a2 __asm__("a2") = arg2;
	register unsigned long a6 __asm__("a6") = fid;
	register unsigned long a7 __asm__("a7") = ext;

	__asm__ volatile("ecall"
			 : "+r"(a0), "+r"(a1)
			 : "r"(a2), "r"(a6), "r"(a7)
			 : "memory");
	if (value)
		*value = (long)a1;
	return (long)a0;
}

void sbi_console_putchar(char c)
{
	sbi_call(SBI_EXT_LEGACY_PUTCHAR, 0, (unsigned char)c, 0, 0, NULL);
}

void sbi_set_timer(uint64_t when)
{
	/* rv32 passes the 64-bit time in a0 (low) and a1 (high). */
	sbi_call(SBI_EXT_TIME, 0, (unsigned long)when,
		 sizeof(unsigned long) < 8 ? (unsigned long)(when >> 32) : 0, 0, NULL);
}

void sbi_send_ipi(unsigned long hart_mask)
{
	sbi_call(SBI_EXT_IPI, 0, hart_mask, 0 /* mask base: hart 0 */, 0, NULL);
}

long sbi_hart_status(unsigned long hartid)
{
	long status;
	long error =
	    sbi_call(SBI_EXT_HSM, SBI_HSM_HART_GET_STATUS, hartid, 0, 0, &status);

	return error ? error : status;
}

bool sbi_hart_start(unsigned long hartid, uintptr_t start, unsigned long opaque)
{
	return sbi_call(SBI_EXT_HSM, SBI_HSM_HART_START, hartid, start, opaque, NULL) ==
	       0;
}

void sbi_shutdown(bool failure)
{
	sbi_call(SBI_EXT_SRST, 0, SBI_SRST_SHUTDOWN,
		 failure ? SBI_SRST_REASON_FAILURE : SBI_SRST_REASON_NONE, 0, NULL);
	/* Only reached if the firmware lacks SRST. */
	for (;;)
		__asm__ volatile("wfi");
}

/*
 * sbi.c - SBI calls: `ecall` from S-mode traps into the firmware, with the
 * extension id in a7, the function id in a6 and arguments in a0.. (SBI spec).
 */
#include "sbi.h"

#include <stdint.h>

#define SBI_EXT_LEGACY_PUTCHAR	0x01
#define SBI_EXT_SRST		0x53525354 /* "SRST": system reset */
#define SBI_SRST_SHUTDOWN	0
#define SBI_SRST_REASON_NONE	0
#define SBI_SRST_REASON_FAILURE 1

static long sbi_call(unsigned long ext, unsigned long fid, unsigned long arg0,
		     unsigned long arg1)
{
	register unsigned long a0 __asm__("a0") = arg0;
	register unsigned long a1 __asm__("a1") = arg1;
	register unsigned long a6 __asm__("a6") = fid;
	register unsigned long a7 __asm__("a7") = ext;

	__asm__ volatile("ecall" : "+r"(a0), "+r"(a1) : "r"(a6), "r"(a7) : "memory");
	return (long)a0;
}

void sbi_console_putchar(char c)
{
	sbi_call(SBI_EXT_LEGACY_PUTCHAR, 0, (unsigned char)c, 0);
}

void sbi_shutdown(bool failure)
{
	sbi_call(SBI_EXT_SRST, 0, SBI_SRST_SHUTDOWN,
		 failure ? SBI_SRST_REASON_FAILURE : SBI_SRST_REASON_NONE);
	/* Only reached if the firmware lacks SRST. */
	for (;;)
		__asm__ volatile("wfi");
}

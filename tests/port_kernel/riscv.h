/* riscv.h - supervisor CSRs. */
#define SSTATUS_SPP  (1L << 8) /* previous mode: 1 supervisor, 0 user */
#define SSTATUS_SPIE (1L << 5) /* supervisor previous interrupt enable */
#define SSTATUS_SIE  (1L << 1) /* supervisor interrupt enable */

#define CSR_READ(name)                                                                   \
	static inline uint64 r_##name(void)                                              \
	{                                                                                \
		uint64 x;                                                                \
		__asm__ volatile("csrr %0, " #name : "=r"(x));                           \
		return x;                                                                \
	}
#define CSR_WRITE(name)                                                                  \
	static inline void w_##name(uint64 x)                                            \
	{                                                                                \
		__asm__ volatile("csrw " #name ", %0" : : "r"(x));                       \
	}

CSR_READ(sstatus)
CSR_WRITE(sstatus)
CSR_READ(sepc)
CSR_WRITE(sepc)
CSR_READ(scause)
CSR_READ(stval)
CSR_WRITE(stvec)

/* proc.h - a process: its kernel stack, its saved user registers. */

/* What uservec saves (trampoline.S knows these offsets). */
struct trapframe {
	/*   0 */ uint64 kernel_sp;   /* top of the process's kernel stack */
	/*   8 */ uint64 kernel_trap; /* usertrap() */
	/*  16 */ uint64 epc;	      /* user pc */
	/*  24 */ uint64 ra;
	/*  32 */ uint64 sp;
	/*  40 */ uint64 gp;
	/*  48 */ uint64 tp;
	/*  56 */ uint64 t0;
	/*  64 */ uint64 t1;
	/*  72 */ uint64 t2;
	/*  80 */ uint64 s0;
	/*  88 */ uint64 s1;
	/*  96 */ uint64 a0;
	/* 104 */ uint64 a1;
	/* 112 */ uint64 a2;
	/* 120 */ uint64 a3;
	/* 128 */ uint64 a4;
	/* 136 */ uint64 a5;
	/* 144 */ uint64 a6;
	/* 152 */ uint64 a7;
	/* 160 */ uint64 s2;
	/* 168 */ uint64 s3;
	/* 176 */ uint64 s4;
	/* 184 */ uint64 s5;
	/* 192 */ uint64 s6;
	/* 200 */ uint64 s7;
	/* 208 */ uint64 s8;
	/* 216 */ uint64 s9;
	/* 224 */ uint64 s10;
	/* 232 */ uint64 s11;
	/* 240 */ uint64 t3;
	/* 248 */ uint64 t4;
	/* 256 */ uint64 t5;
	/* 264 */ uint64 t6;
};

struct proc {
	int pid;
	uint64 kstack;		     /* one page: the kernel stack (4 KiB) */
	struct trapframe *trapframe; /* one page */
	char *upage;		     /* one page: user code and stack (satp = 0) */
};

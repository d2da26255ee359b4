/* syscall.h - system call numbers (a7 at ecall). */
#define SYS_exit  2
#define SYS_write 16

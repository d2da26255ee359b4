/* types.h - fixed-width names, rv64 only. */
typedef unsigned char uchar;
typedef unsigned int uint;
typedef unsigned long uint64;

/*
 * symgen.h - symgen as a function, for its command-line wrapper (main.c)
 * and for the fuzzer (tests/fuzz/fuzz_symgen.c).
 */
#ifndef SYMGEN_SYMGEN_H
#define SYMGEN_SYMGEN_H

#include <stdio.h>

/*
 * Runs symgen with the command line argv (argv[0] is the program's name),
 * writing messages to err. Returns the exit status: 0, 1 after an error (one
 * line on err, and no output file), 2 on bad usage. It frees everything it
 * allocates and closes everything it opens, whether it succeeds or not.
 */
int symgen_run(int argc, char **argv, FILE *err);

#endif /* SYMGEN_SYMGEN_H */

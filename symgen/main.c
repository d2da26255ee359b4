/*
 * main.c - the symgen command (see symgen.c).
 */
#include "symgen.h"

int main(int argc, char **argv)
{
	return symgen_run(argc, argv, stderr);
}

/*
 * main.c - runs every unit test of the tracer on the host.
 */
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define TEST(name) void name(void);
#include "test_list.h"
#undef TEST

static const struct unit_test tests[] = {
#define TEST(name) {#name, name},
#include "test_list.h"
#undef TEST
};

bool test_failed;
static const char *current_test;

void test_fail(const char *file, int line, const char *condition)
{
	printf("FAIL %s: %s:%d: %s\n", current_test, file, line, condition);
	test_failed = true;
}

/* A failed CHECK returns early and leaks its fake stack: not a finding. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "detect_leaks=0";
}

int main(int argc, char **argv)
{
	int failures = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);

	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		if (argc > 1 && strcmp(argv[1], tests[i].name) != 0)
			continue;
		current_test = tests[i].name;
		test_failed = false;
		tests[i].run();
		if (test_failed)
			failures++;
		else
			printf("PASS %s\n", tests[i].name);
	}
	return failures ? 1 : 0;
}

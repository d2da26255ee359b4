/*
 * harness.h - a minimal unit-test harness: each test is a function; CHECK
 * stops the test at the first failed condition. Prints "PASS name" or
 * "FAIL name: file:line: condition" per test; tests/run_tests.py counts them.
 */
#ifndef TEST_HARNESS_H
#define TEST_HARNESS_H

#include <stdbool.h>
#include <stdio.h>

extern bool test_failed;
void test_fail(const char *file, int line, const char *condition);

#define CHECK(condition)                                                                 \
	do {                                                                             \
		if (!(condition)) {                                                      \
			test_fail(__FILE__, __LINE__, #condition);                       \
			return;                                                          \
		}                                                                        \
	} while (0)

/* CHECK inside a loop over a table: also names the row that failed. The
 * condition is evaluated once, as CHECK's is: it may be a call. */
#define CHECK_ROW(condition, index)                                                      \
	do {                                                                             \
		if (!(condition)) {                                                      \
			printf("  (table row %zu)\n", (size_t)(index));                  \
			test_fail(__FILE__, __LINE__, #condition);                       \
			return;                                                          \
		}                                                                        \
	} while (0)

struct unit_test {
	const char *name;
	void (*run)(void);
};

#endif /* TEST_HARNESS_H */

/*
 * fuzz_symgen.c - libFuzzer target for symgen: the input is the ELF file.
 *
 * symgen runs on it twice, with and without --cfi, as a function
 * (symgen_run), so AddressSanitizer, UndefinedBehaviorSanitizer and
 * LeakSanitizer watch every error exit. Beyond not crashing or leaking,
 * each run must keep symgen's promises: on success the output exists; on
 * failure exactly one line, naming the input, went to the error stream, and
 * neither the output nor a temporary file is left behind; either way, it
 * gave back every byte it allocated. That last check is not LeakSanitizer's:
 * symgen's blocks stay reachable from its list of tracked blocks (die.h)
 * until the run frees them, so forgetting to would not be a leak to it.
 */
#include "symgen.h"

#include <dirent.h>
#include <sanitizer/allocator_interface.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A directory of this process, holding only the input between runs. */
static char work_dir[] = "/tmp/fuzz_symgen.XXXXXX";
static char input_path[sizeof(work_dir) + sizeof("/input.elf")];
static char output_path[sizeof(work_dir) + sizeof("/table.c")];

#define REQUIRE(condition, ...)                                                          \
	do {                                                                             \
		if (!(condition)) {                                                      \
			fprintf(stderr, "fuzz_symgen: " __VA_ARGS__);                    \
			fputc('\n', stderr);                                             \
			abort();                                                         \
		}                                                                        \
	} while (0)

/* Entries of work_dir other than "." and "..". */
static unsigned files_in_work_dir(void)
{
	DIR *dir = opendir(work_dir);
	unsigned count = 0;
	struct dirent *entry;

	REQUIRE(dir, "cannot list %s", work_dir);
	while ((entry = readdir(dir)))
		count +=
		    strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0;
	closedir(dir);
	return count;
}

/* At a normal exit (the end of -runs or -max_total_time); after a failure
 * the directory stays, with the input that failed. */
static void remove_work_dir(void)
{
	unlink(input_path);
	rmdir(work_dir);
}

/*
 * libFuzzer's RSS-limit thread allocates while it starts, during the first
 * runs, and the allocated-bytes check below would blame that on symgen (it
 * failed about one replay of the seeds in ten): no such thread, and a limit
 * on each allocation instead. libFuzzer reads its flags after this call;
 * these go first, so that the caller's own flags win.
 */
static const char *const default_flags[] = {"-rss_limit_mb=0", "-malloc_limit_mb=2048"};
#define DEFAULT_FLAGS (sizeof(default_flags) / sizeof(default_flags[0]))

static void add_default_flags(int *argc, char ***argv)
{
	static char **with_flags;

	with_flags = calloc((size_t)*argc + DEFAULT_FLAGS + 1, sizeof(*with_flags));
	REQUIRE(with_flags, "out of memory");
	with_flags[0] = (*argv)[0];
	for (size_t i = 0; i < DEFAULT_FLAGS; i++)
		with_flags[1 + i] = (char *)default_flags[i];
	for (int i = 1; i < *argc; i++)
		with_flags[DEFAULT_FLAGS + i] = (*argv)[i];
	*argc += DEFAULT_FLAGS;
	*argv = with_flags;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	add_default_flags(argc, argv);
	REQUIRE(mkdtemp(work_dir), "cannot create %s", work_dir);
	snprintf(input_path, sizeof(input_path), "%s/input.elf", work_dir);
	snprintf(output_path, sizeof(output_path), "%s/table.c", work_dir);
	atexit(remove_work_dir);
	return 0;
}

/* symgen's error stream; messages name symbols, so they may be long. An
 * unbuffered stream on a static buffer allocates nothing while symgen runs. */
static char messages[1 << 20];

static void run_symgen(bool cfi)
{
	char *argv[] = {"symgen", "-o", output_path, input_path, NULL, NULL};
	FILE *err = fmemopen(messages, sizeof(messages), "w");
	char prefix[sizeof("symgen: ") + sizeof(input_path) + sizeof(": warning: ")];
	size_t allocated;
	size_t messages_size;
	int status;

	REQUIRE(err && setvbuf(err, NULL, _IONBF, 0) == 0,
		"cannot open the error stream");
	if (cfi) {
		argv[3] = "--cfi";
		argv[4] = input_path;
	}
	allocated = __sanitizer_get_current_allocated_bytes();
	status = symgen_run(cfi ? 5 : 4, argv, err);
	REQUIRE(__sanitizer_get_current_allocated_bytes() == allocated,
		"symgen_run kept %zu bytes allocated (cfi=%d, exit %d)",
		__sanitizer_get_current_allocated_bytes() - allocated, cfi, status);
	/* The stream's position, not strlen(): the buffer holds older runs'
	 * messages past the end of this one's. */
	messages_size = (size_t)ftell(err);
	REQUIRE(fclose(err) == 0, "cannot close the error stream");
	REQUIRE(messages_size + 1 < sizeof(messages), "messages too long to check");
	if (status == 0) {
		/* Success may warn (debugging information symgen does not read):
		 * one line naming the input. */
		snprintf(prefix, sizeof(prefix), "symgen: %s: warning: ", input_path);
		REQUIRE(messages_size == 0 ||
			    (messages_size > strlen(prefix) &&
			     strncmp(messages, prefix, strlen(prefix)) == 0 &&
			     memchr(messages, '\n', messages_size) ==
				 messages + messages_size - 1),
			"success, but messages: %.*s", (int)messages_size, messages);
		REQUIRE(access(output_path, F_OK) == 0, "success, but no output file");
		REQUIRE(unlink(output_path) == 0, "cannot remove the output");
	} else {
		snprintf(prefix, sizeof(prefix), "symgen: %s: ", input_path);
		REQUIRE(status == 1, "exit status %d: %.*s", status, (int)messages_size,
			messages);
		REQUIRE(messages_size > strlen(prefix) &&
			    strncmp(messages, prefix, strlen(prefix)) == 0 &&
			    memchr(messages, '\n', messages_size) ==
				messages + messages_size - 1,
			"not one line naming the input: \"%.*s\"", (int)messages_size,
			messages);
	}
	/* Only the input is left: no output after an error, no temporary file. */
	REQUIRE(files_in_work_dir() == 1, "files left behind (cfi=%d, exit %d)", cfi,
		status);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *input = fopen(input_path, "wb");

	REQUIRE(input && fwrite(data, 1, size, input) == size && fclose(input) == 0,
		"cannot write %s", input_path);
	run_symgen(false);
	run_symgen(true);
	return 0;
}

#!/usr/bin/python3
"""make test: the tracer's host unit tests, the fuzz targets' corpora and
a short fuzzing run, symgen against binutils, the prologue decoder against
CFI, and the demo kernel in QEMU against GDB, its panic path included;
the port kernels (tests/port_kernel/, tests/rtos_kernel/) under GDB; the README and docs/
against the code and a real run. Ends with the line
'N passed, M failed in S s'."""
import functools
import glob
import os
import shutil
import sys
import threading
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bench_tests  # noqa: E402
import cfi_differential  # noqa: E402
import docs_tests  # noqa: E402
import e2e_tests  # noqa: E402
import fuzz_tests  # noqa: E402
import gdb_trap_tests  # noqa: E402
import host_tests  # noqa: E402
import hostile_tests  # noqa: E402
import line_oracle  # noqa: E402
import panic_path_tests  # noqa: E402
import port_kernel_tests  # noqa: E402
import prologue_crosscheck  # noqa: E402
import rtos_kernel_tests  # noqa: E402
import stack_usage  # noqa: E402
import symgen_tests  # noqa: E402
import table_proof  # noqa: E402
import testlib  # noqa: E402
from testlib import (CROSS, HOST_BUILD, ROOT, TEST_BUILD, UNWINDER_SETS, Results,  # noqa: E402
                     captured, in_group, in_parallel, run, tracer_sources)

TRACER_SOURCES = sorted(glob.glob(os.path.join(ROOT, "tracer", "*.c")))


def run_unit_tests(results):
    result = run([os.path.join(HOST_BUILD, "unit_tests")], timeout=300)
    passed = failed = 0
    for line in result.stdout.splitlines():
        if line.startswith("PASS "):
            passed += results.check("unit " + line[5:], True)
        elif line.startswith("FAIL "):
            failed += not results.check("unit " + line[5:].split(":")[0], False, line)
    # A crash (e.g. AddressSanitizer) stops the binary without a verdict.
    results.check("unit test binary exits cleanly",
                  passed + failed > 0 and (result.returncode == 0) == (failed == 0),
                  "exit %d\n%s" % (result.returncode, result.stderr[-2000:]))


def check_library_builds(results):
    """tracer/ alone, as an adopter copies it: it must compile for rv32 and
    rv64 at every -O level with -Werror, and need nothing from outside (no
    memcpy or memset from struct copies: a kernel need not have them). The
    builds run side by side."""
    tasks = []
    # The set of all unwinders is tracer/ whole, without defines: its build
    # is the library's, checked once under both names.
    everything = [unwinders for unwinders in UNWINDER_SETS
                  if tracer_sources(unwinders) == (TRACER_SOURCES, [])]
    for arch, abi, emulation in [("rv32imac_zicsr_zifencei", "ilp32", "elf32lriscv"),
                                 ("rv64imac_zicsr_zifencei", "lp64", "elf64lriscv")]:
        # Each unwinder set, its files only (symgen/tracer_sources.mk): -O0
        # keeps every reference the source makes (bench_tests checks the
        # sets at -O2 and -Os, rv64, from make bench's builds).
        set_levels = ["-O0"]
        for opt in ["-O0", "-O2", "-Os"]:
            tasks.append(functools.partial(check_library_build, results, arch, abi, emulation, opt,
                                           everything if opt in set_levels else []))
        for unwinders in UNWINDER_SETS + [["dwarf"], ["prologue"]]:
            if unwinders not in everything:
                for opt in set_levels:
                    tasks.append(functools.partial(check_unwinder_set_build, results, arch, abi,
                                                   emulation, unwinders, opt))
        # TRACER_LINES=no: lines.c left out, at -O0 too (no call into it kept);
        # TRACER_CAPTURE=no the same, with issue 18's sets of unwinders, and
        # TRACER_SYMBOLS=no with each unwinder that can go without symbols.
        tasks.append(functools.partial(check_unwinder_set_build, results, arch, abi, emulation,
                                       UNWINDER_SETS[-1], "-O0", False))
        tasks.append(functools.partial(check_unwinder_set_build, results, arch, abi, emulation,
                                       ["frame-pointer", "table"], "-O0", False, False))
        for capture in (False, True):
            tasks.append(functools.partial(check_unwinder_set_build, results, arch, abi,
                                           emulation, ["frame-pointer", "table", "dwarf"], "-O0",
                                           False, capture, False))
        tasks.append(functools.partial(check_unwinder_set_build, results, arch, abi, emulation,
                                       ["frame-pointer"], "-O0", False, False, False))
    tasks.append(functools.partial(check_option_errors, results))
    in_parallel(tasks)


def check_option_errors(results):
    """symgen/tracer_sources.mk refuses, naming why, an option it does not
    know and a build that cannot work: the symbol table left out with what
    reads it (the line table, the prologue decoder); the valid one passes."""
    script = "include symgen/tracer_sources.mk\nprint:\n\t@echo $(TRACER_SOURCES)\n"
    for variables, message in [
            (["TRACER_SYMBOLS=maybe"], "TRACER_SYMBOLS: 'maybe'; choose yes or no"),
            (["TRACER_SYMBOLS=no"], "TRACER_SYMBOLS=no needs TRACER_LINES=no"),
            (["TRACER_SYMBOLS=no", "TRACER_LINES=no"],
             "which the prologue unwinder reads: drop it from TRACER_UNWINDERS"),
            (["TRACER_SYMBOLS=no", "TRACER_LINES=no", "TRACER_UNWINDERS=frame-pointer dwarf"],
             None)]:
        result = run(["make", "-s", "--no-print-directory", "-f", "-", "print"] + variables,
                     input=script)
        results.check("symgen/tracer_sources.mk with %s: %s" % (
            " ".join(variables), "fails: " + message if message else "lists the files"),
                      (result.returncode != 0 and message in result.stderr) if message else
                      (result.returncode == 0 and "symtab.c" not in result.stdout
                       and "frame_pointer.c" in result.stdout),
                      "exit %d\n%s%s" % (result.returncode, result.stdout, result.stderr))


def check_library_build(results, arch, abi, emulation, opt, also_sets):
    """tracer/ whole; the same build is the one of each set of unwinders in
    also_sets (those whose sources are all of tracer/, without defines)."""
    out_dir = os.path.join(TEST_BUILD, "library", "%s%s" % (abi, opt))
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    # One compiler run for every file: each still compiles alone.
    compiled = run([CROSS + "gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", opt,
                    "-march=" + arch, "-mabi=" + abi, "-mcmodel=medany",
                    "-ffreestanding", "-c"] + TRACER_SOURCES, cwd=out_dir, timeout=300)
    problems = [compiled.stderr]
    if compiled.returncode != 0:
        problems.append("gcc exit %d\n" % compiled.returncode)
    out = out_dir + ".o"
    objects = sorted(glob.glob(os.path.join(out_dir, "*.o")))
    if len(objects) != len(TRACER_SOURCES):
        problems.append("%d objects of %d sources" % (len(objects), len(TRACER_SOURCES)))
    linked = run([CROSS + "ld", "-m", emulation, "-r", "-o", out] + objects)
    undefined = run([CROSS + "nm", "-u", out]).stdout.split()
    for name in ["tracer/"] + ["tracer/ with the unwinders %s only" % "+".join(unwinders)
                               for unwinders in also_sets]:
        results.check("%s builds alone for %s %s, needing no outside symbol" % (name, abi, opt),
                      not "".join(problems) and linked.returncode == 0 and not undefined,
                      "".join(problems) + linked.stderr + " ".join(undefined))


def check_unwinder_set_build(results, arch, abi, emulation, unwinders, opt, lines=True,
                             capture=True, symbols=True):
    sources, defines = tracer_sources(unwinders, lines, capture=capture, symbols=symbols)
    name = ("+".join(unwinders) + ("" if lines else ", without lines")
            + ("" if capture else ", without the raw capture")
            + ("" if symbols else ", without symbols"))
    out_dir = os.path.join(TEST_BUILD, "library", "%s%s-%s%s%s%s" % (
        abi, opt, "+".join(unwinders), "" if lines else "-no-lines",
        "" if capture else "-no-capture", "" if symbols else "-no-symbols"))
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    compiled = run([CROSS + "gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", opt,
                    "-march=" + arch, "-mabi=" + abi, "-mcmodel=medany",
                    "-ffreestanding", "-c"] + defines + sources,
                   cwd=out_dir, timeout=300)
    out = out_dir + ".o"
    objects = sorted(glob.glob(os.path.join(out_dir, "*.o")))
    linked = run([CROSS + "ld", "-m", emulation, "-r", "-o", out] + objects)
    undefined = run([CROSS + "nm", "-u", out]).stdout.split()
    results.check("tracer/ with the unwinders %s only builds alone for %s %s, "
                  "needing no outside symbol" % (name, abi, opt),
                  compiled.returncode == 0 and len(objects) == len(sources)
                  and linked.returncode == 0 and not undefined,
                  compiled.stderr + linked.stderr + " ".join(undefined))


class Group(threading.Thread):
    """One part of make test, in a thread of its own with Results of its
    own: it waits for what it needs (after: events), runs, then prints its
    lines together and its line 'group NAME: N passed, M failed, S s' (the
    seconds from its start, once what it needs is there, to its end)."""
    print_lock = threading.Lock()

    def __init__(self, name, function, after=()):
        super().__init__(name=name)
        self.function = function
        self.after = after
        self.results = Results()
        self.value = None
        self.finished = threading.Event()

    def run(self):
        try:
            for event in self.after:
                event.wait()
            start = time.monotonic()
            _, text = in_group(self.name, captured, self.guarded)
            line = "group %s: %d passed, %d failed, %.0f s" % (
                self.name, self.results.passed, self.results.failed, time.monotonic() - start)
            with Group.print_lock:
                print(text + line, flush=True)
        finally:
            self.finished.set()

    def guarded(self):
        """A group that raises (a bug of the tests) fails a check, with the
        traceback, rather than leaving the others waiting."""
        try:
            self.value = self.function(self.results)
        except Exception:
            self.results.check("%s: the tests ran to their end" % self.name, False,
                               traceback.format_exc())


def selected_names(groups):
    """The groups TESTS names (space- or comma-separated; all if empty), in
    make test's order; exits with the valid names if one is unknown."""
    names = os.environ.get("TESTS", "").replace(",", " ").split()
    unknown = [name for name in names if name not in groups]
    if unknown:
        sys.exit("run_tests: no test group %s; the groups: %s"
                 % (", ".join(repr(name) for name in unknown), " ".join(groups)))
    return [name for name in groups if name in names] if names else list(groups)


def main():
    """The groups run side by side, as many commands at once as there are
    cores (testlib.JOBS). The demo kernels come from the e2e group, which
    builds them first; the groups that check them start once they are built
    (a subset without e2e builds them in a group "kernels", without e2e's
    boots). bench_tests and cfi_differential read every kernel under
    build/test: they wait for the groups that build one there before they
    look."""
    # make test passes its start (MAKE_TEST_START, seconds since the epoch):
    # the closing line's time then counts the build of the test programs too.
    start = float(os.environ.get("MAKE_TEST_START") or time.time())
    kernels_built = threading.Event()
    kernels = []

    def built(elves):
        kernels.extend(elves)
        kernels_built.set()

    def with_kernels(function):
        return lambda results: function(results, kernels)

    def run_e2e(results, boots=True):
        try:
            return e2e_tests.run_all(results, built, boots)
        finally:
            kernels_built.set()  # also when it failed: the others run without kernels

    def all_kernels_built():
        for group in kernel_builders:
            group.finished.wait()

    needs_kernels = [kernels_built]
    # In the order they start: the longest first, as a thread waiting for a
    # job slot is served in turn.
    groups = {group.name: group for group in [
        Group("e2e", run_e2e),
        Group("fuzz", fuzz_tests.run_all),
        Group("symgen_tests", with_kernels(symgen_tests.run_all), needs_kernels),
        Group("panic_path", with_kernels(panic_path_tests.run_all), needs_kernels),
        Group("hostile", with_kernels(hostile_tests.run_all), needs_kernels),
        Group("port_kernel", port_kernel_tests.run_all),
        Group("rtos_kernel", rtos_kernel_tests.run_all),
        Group("host", host_tests.run_all),
        Group("library_builds", check_library_builds),
        Group("unit", run_unit_tests),
        Group("stack", stack_usage.run_all),
        Group("docs", with_kernels(docs_tests.run_all), needs_kernels),
        Group("prologue_crosscheck", with_kernels(prologue_crosscheck.run_all), needs_kernels),
        Group("table_proof", with_kernels(table_proof.run_all), needs_kernels),
        Group("line_oracle", with_kernels(line_oracle.run_all), needs_kernels),
        Group("gdb_traps", with_kernels(gdb_trap_tests.run_all), needs_kernels),
        Group("cfi_differential",
              lambda results: cfi_differential.run_all(results, all_kernels_built)),
        Group("bench_tests", lambda results: bench_tests.run_all(results, all_kernels_built)),
    ]}
    chosen = [groups[name] for name in selected_names(groups)]
    if groups["e2e"] not in chosen and any(group.after is needs_kernels
                                           for group in chosen):
        chosen.insert(0, Group("kernels", lambda results: run_e2e(results, boots=False)))
    # The groups that leave a kernel.elf in build/test/*/.
    kernel_builders = [group for group in chosen
                       if group.name in ("e2e", "kernels", "docs", "symgen_tests")]
    for group in chosen:
        group.start()
    for group in chosen:
        group.join()
    passed = sum(group.results.passed for group in chosen)
    failed = sum(group.results.failed for group in chosen)
    e2e_tests.close_idle_gdbs()
    if testlib.PROFILE:
        print(testlib.profile_summary())
    print("%d passed, %d failed in %.0f s" % (passed, failed, time.time() - start))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

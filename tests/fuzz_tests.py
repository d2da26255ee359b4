#!/usr/bin/python3
"""The libFuzzer targets (tests/fuzz/, built by tests/fuzz/fuzz.mk).

make test (run_all): every input of a target's regression corpus
(tests/fuzz/regressions/<target>/: each input that ever failed) and its
seed corpus (tests/fuzz/corpus/<target>/) must run without a crash, a
sanitizer report, an invariant violation or a hang; then each target
fuzzes for a short bounded time from a copy of its seeds.

make fuzz (main): each target fuzzes FUZZ_SECONDS (--seconds), and the
number of executions is printed per target; exit 1 if any target failed.

The targets are those fuzz.mk exports in FUZZ_TARGETS (the symgen target
joins when tests/fuzz/symgen.mk defines it), each a binary name or
binary=corpus when its corpus directories have another name. A binary
whose name ends in _32 is an i386 build (fuzz_walk_auto_32), run under
QEMU's user mode: the host's kernel may not exec it.
"""
import argparse
import functools
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from testlib import ROOT, Results, in_parallel, run  # noqa: E402

FUZZ_BUILD = os.path.join(ROOT, "build", "fuzz")
FUZZ_DIR = os.path.join(ROOT, "tests", "fuzz")
# make test's whole fuzzing budget, shared by the targets, and the most one
# target gets of it.
TEST_FUZZ_BUDGET = 90
TEST_FUZZ_SECONDS = 2
TEST_FUZZ_SEED = 1
# One input taking longer than this is a hang (libFuzzer -timeout).
INPUT_TIMEOUT = 10
REPLAY_TIMEOUT = 120

# The i386 targets' emulator (Debian's qemu-user).
QEMU_I386 = "qemu-i386"

EXECUTED_RE = re.compile(r"^stat::number_of_executed_units: (\d+)$", re.M)


def targets():
    """[(binary name, corpus name)]; none when not run through make."""
    listed = os.environ.get("FUZZ_TARGETS", "").split()
    return [(entry.partition("=")[0], entry.partition("=")[2] or entry) for entry in listed]


def inputs(kind, corpus):
    directory = os.path.join(FUZZ_DIR, kind, corpus)
    if not os.path.isdir(directory):
        return []
    # A README may say what the inputs are.
    return sorted(os.path.join(directory, name) for name in os.listdir(directory)
                  if not name.startswith((".", "README")))


def command(binary):
    """The argv that runs a target's binary: an i386 one under qemu-i386."""
    return ([QEMU_I386] if binary.endswith("_32") else []) + [binary]


def replay(binary, paths):
    """(ok, output): runs each input once."""
    try:
        result = run(command(binary) + ["-timeout=%d" % INPUT_TIMEOUT] + paths,
                     timeout=REPLAY_TIMEOUT)
    except subprocess.TimeoutExpired:
        return False, "timed out after %d s" % REPLAY_TIMEOUT
    return result.returncode == 0, result.stdout + result.stderr


def fuzz(target, corpus_name, seconds, seed=None):
    """(ok, executions, output) of `seconds` of fuzzing from a working copy
    of the seed corpus (libFuzzer's -seed if given: the same mutations each
    time); a failing input is kept in build/fuzz/work/<target>/."""
    work = os.path.join(FUZZ_BUILD, "work", target)
    corpus = os.path.join(work, "corpus")
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(os.path.join(FUZZ_DIR, "corpus", corpus_name), corpus)
    argv = command(os.path.join(FUZZ_BUILD, target)) + [
        "-max_total_time=%d" % seconds, "-timeout=%d" % INPUT_TIMEOUT, "-print_final_stats=1",
        "-artifact_prefix=%s/" % work, corpus] + (["-seed=%d" % seed] if seed else [])
    try:
        result = run(argv, timeout=seconds + 120)
    except subprocess.TimeoutExpired:
        return False, None, "timed out after %d s" % (seconds + 120)
    executed = EXECUTED_RE.search(result.stderr)
    return (result.returncode == 0, int(executed.group(1)) if executed else None,
            result.stderr)


def failure_detail(output):
    """The lines that say what failed: the sanitizer's or the harness's."""
    lines = [line for line in output.splitlines()
             if not line.startswith(("#", "INFO:", "MS:", "\t", "  NEW_FUNC"))]
    return "\n".join(lines[-40:])


def run_all(results: Results):
    names = targets()
    results.check("fuzz: targets listed in FUZZ_TARGETS (run through make)", names != [])
    seconds = min(TEST_FUZZ_SECONDS, TEST_FUZZ_BUDGET // max(len(names), 1))
    # A thread per target; a fuzzing run holds a job slot (a core) throughout.
    in_parallel([functools.partial(check_target, results, target, corpus, seconds)
                 for target, corpus in names])


def check_target(results, target, corpus, seconds):
    binary = os.path.join(FUZZ_BUILD, target)
    if not results.check("fuzz %s: built" % target, os.access(binary, os.X_OK), binary):
        return
    for path in inputs("regressions", corpus):
        ok, output = replay(binary, [path])
        results.check("fuzz %s: regression %s runs cleanly" % (target, os.path.basename(path)),
                      ok, failure_detail(output))
    seeds = inputs("corpus", corpus)
    ok, output = replay(binary, seeds)
    results.check("fuzz %s: its %d seeds run cleanly" % (target, len(seeds)),
                  ok and seeds != [], failure_detail(output))
    # make test's fuzzing repeats itself (and its cost: a random mutation of
    # an ELF image once cost fuzz_symgen 15 s of CPU); make fuzz does not.
    ok, executed, output = fuzz(target, corpus, seconds, seed=TEST_FUZZ_SEED)
    results.check("fuzz %s: %d s of fuzzing find nothing (%s executions)"
                  % (target, seconds, executed), ok and executed, failure_detail(output))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=60, help="fuzzing time per target")
    seconds = parser.parse_args().seconds
    if not targets():
        sys.exit("fuzz_tests: no FUZZ_TARGETS; run make fuzz")
    failed = []
    for target, corpus in targets():
        ok, executed, output = fuzz(target, corpus, seconds)
        print("%s: %s executions in %d s (%s/s)%s"
              % (target, executed, seconds, executed // seconds if executed else "-",
                 "" if ok else ", FAILED"), flush=True)
        if not ok:
            print(failure_detail(output), flush=True)
            print("    failing input kept in %s" % os.path.join(FUZZ_BUILD, "work", target),
                  flush=True)
            failed.append(target)
    if failed:
        print("failed: %s" % " ".join(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""make test: the tracer's host unit tests, the fuzz targets' corpora and
a short fuzzing run, symgen against binutils, the prologue decoder against
CFI, and the demo kernel in QEMU against GDB, its panic path included;
the port kernel (tests/port_kernel/) under GDB; the README and docs/
against the code and a real run. Ends with the line
'N passed, M failed'."""
import glob
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bench_tests  # noqa: E402
import cfi_differential  # noqa: E402
import docs_tests  # noqa: E402
import e2e_tests  # noqa: E402
import fuzz_tests  # noqa: E402
import hostile_tests  # noqa: E402
import panic_path_tests  # noqa: E402
import port_kernel_tests  # noqa: E402
import prologue_crosscheck  # noqa: E402
import stack_usage  # noqa: E402
import symgen_tests  # noqa: E402
import table_proof  # noqa: E402
from testlib import (CROSS, HOST_BUILD, ROOT, TEST_BUILD, UNWINDER_SETS, Results,  # noqa: E402
                     run, tracer_sources)

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
    memcpy or memset from struct copies: a kernel need not have them)."""
    for arch, abi, emulation in [("rv32imac_zicsr_zifencei", "ilp32", "elf32lriscv"),
                                 ("rv64imac_zicsr_zifencei", "lp64", "elf64lriscv")]:
        for opt in ["-O0", "-O2", "-Os"]:
            out = os.path.join(TEST_BUILD, "library", "%s%s.o" % (abi, opt))
            os.makedirs(os.path.dirname(out), exist_ok=True)
            objects, problems = [], []
            for source in TRACER_SOURCES:
                obj = out + "." + os.path.basename(source) + ".o"
                result = run([CROSS + "gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", opt,
                              "-march=" + arch, "-mabi=" + abi, "-mcmodel=medany",
                              "-ffreestanding", "-c", source, "-o", obj])
                problems.append(result.stderr)
                objects.append(obj)
            linked = run([CROSS + "ld", "-m", emulation, "-r", "-o", out] + objects)
            undefined = run([CROSS + "nm", "-u", out]).stdout.split()
            results.check("tracer/ builds alone for %s %s, needing no outside symbol" % (abi, opt),
                          not "".join(problems) and linked.returncode == 0 and not undefined,
                          "".join(problems) + linked.stderr + " ".join(undefined))
        # Each unwinder set, its files only (symgen/tracer_sources.mk): -O0
        # keeps every reference the source makes, -O2 is the default.
        for unwinders in UNWINDER_SETS + [["dwarf"], ["prologue"]]:
            sources, defines = tracer_sources(unwinders)
            for opt in ["-O0", "-O2"]:
                name = "+".join(unwinders)
                out_dir = os.path.join(TEST_BUILD, "library", "%s%s-%s" % (abi, opt, name))
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


def main():
    results = Results()
    run_unit_tests(results)
    fuzz_tests.run_all(results)
    check_library_builds(results)
    stack_usage.run_all(results)
    kernels = e2e_tests.run_all(results)
    docs_tests.run_all(results, kernels)
    hostile_tests.run_all(results, kernels)
    panic_path_tests.run_all(results, kernels)
    port_kernel_tests.run_all(results)
    symgen_tests.run_all(results, kernels)
    prologue_crosscheck.run_all(results, kernels)
    table_proof.run_all(results, kernels)
    cfi_differential.run_all(results)
    bench_tests.run_all(results)
    print("%d passed, %d failed" % (results.passed, results.failed))
    return 0 if results.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

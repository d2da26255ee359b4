#!/usr/bin/python3
"""make test: the tracer's host unit tests, symgen against binutils, and the
demo kernel in QEMU against GDB. Ends with the line 'N passed, M failed'."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import e2e_tests  # noqa: E402
import symgen_tests  # noqa: E402
from testlib import HOST_BUILD, Results, run  # noqa: E402


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


def main():
    results = Results()
    run_unit_tests(results)
    kernels = e2e_tests.run_all(results)
    symgen_tests.run_all(results, kernels)
    print("%d passed, %d failed" % (results.passed, results.failed))
    return 0 if results.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

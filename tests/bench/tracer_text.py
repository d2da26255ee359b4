#!/usr/bin/python3
"""The tracer's code in a kernel, per unwinder set (make UNWINDERS=...):
compiles the files symgen/tracer_sources.mk lists for the set, with the
flags given (the demo kernel's, without -O; -g dropped), at -O2 and -Os, and prints the
sum of their .text sections (objdump -h), one line per set and level:
    bench tracer-text <unwinders, comma-separated> <level> <N> bytes
A kernel links these objects whole, so their .text is the tracer's code
in its image (make bench; tests/bench_tests.py checks the sizes).

    tracer_text.py OUTPUT_DIR CC FLAGS...
"""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from testlib import CROSS, UNWINDER_SETS, tracer_sources  # noqa: E402

LEVELS = ["-O2", "-Os"]


def text_size(objects):
    """The sum of the objects' .text sections, from objdump -h."""
    headers = subprocess.run([CROSS + "objdump", "-h"] + objects, capture_output=True,
                             text=True, check=True).stdout
    total = 0
    for line in headers.splitlines():
        fields = line.split()
        if len(fields) > 2 and fields[1] == ".text":
            total += int(fields[2], 16)
    return total


def main():
    out_root, cc, flags = sys.argv[1], sys.argv[2], sys.argv[3:]
    # Debugging information changes no code (GCC's promise, -fcompare-debug):
    # without it the builds take a third less.
    flags = [flag for flag in flags if flag != "-g"]
    for unwinders in UNWINDER_SETS:
        sources, defines = tracer_sources(unwinders)
        name = ",".join(unwinders)
        for level in LEVELS:
            out_dir = os.path.join(out_root, "%s%s" % (name, level))
            shutil.rmtree(out_dir, ignore_errors=True)
            os.makedirs(out_dir)
            subprocess.run([cc] + flags + [level] + defines + ["-c"] + sources,
                           cwd=out_dir, check=True)
            total = text_size([os.path.join(out_dir, f) for f in sorted(os.listdir(out_dir))])
            print("bench tracer-text %s %s %d bytes" % (name, level, total), flush=True)


if __name__ == "__main__":
    main()

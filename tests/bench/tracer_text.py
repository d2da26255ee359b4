#!/usr/bin/python3
"""The tracer's code in a kernel, per unwinder set (make UNWINDERS=...):
compiles the files symgen/tracer_sources.mk lists for the set, with the
flags given (the demo kernel's, without -O; -g dropped), at -O2 and -Os,
and prints the sum of their .text sections (objdump -h), of the files
every set compiles (the core: the iterator, the output lines, the tables'
checks, ...), and of the code marked cold (.text.unlikely), and what the
set's objects linked together need from outside, four lines per set and
level:
    bench tracer-text <unwinders, comma-separated> <level> <N> bytes
    bench tracer-core <unwinders, comma-separated> <level> <N> bytes
    bench tracer-cold <unwinders, comma-separated> <level> <N> bytes
    bench tracer-undefined <unwinders> <level> none|<symbols it needs>
A kernel links these objects whole, so their .text is the tracer's code
in its image (make bench; tests/bench_tests.py checks the sizes). The sets
of issue 18's targets are measured again without the line table
(TRACER_LINES=no), named "<unwinders>,no-lines", and without the raw
capture too (TRACER_CAPTURE=no), "<unwinders>,no-lines,no-capture", at
-O2 (the targets'); the frame pointer also without the symbol table
(TRACER_SYMBOLS=no: raw frames), "frame-pointer,no-lines,no-capture,no-symbols".
Every set is measured without the fault report (TRACER_FAULT_REPORT=no),
an option of the output, not of the walk; its own code (fault.c, and
what it adds to the files every kernel compiles) is printed apart, at -O2,
from the sets of all four unwinders with it and without it:
    bench tracer-fault-report -O2 <N> bytes

    tracer_text.py OUTPUT_DIR CC FLAGS...
"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from testlib import CROSS, UNWINDER_SETS, tracer_sources  # noqa: E402

LEVELS = ["-O2", "-Os"]
NO_LINES_SETS = [["frame-pointer"], ["frame-pointer", "table"]]


def text_sizes(objects):
    """{object's file name: (the size of its .text sections, of its
    .text.unlikely)}, from one objdump -h of them all: GCC puts the
    functions marked cold (TRACER_COLD) in .text.unlikely."""
    headers = subprocess.run([CROSS + "objdump", "-h"] + objects, capture_output=True,
                             text=True, check=True).stdout
    sizes, current = {}, None
    for line in headers.splitlines():
        fields = line.split()
        named = re.match(r"^(.*):\s+file format \S+$", line)
        if named:
            current = os.path.basename(named.group(1))
            sizes[current] = (0, 0)
        elif current and len(fields) > 2 and re.match(r"^\.text(\.|$)", fields[1]):
            size = int(fields[2], 16)
            total, cold = sizes[current]
            sizes[current] = (total + size, cold + (size if fields[1] == ".text.unlikely" else 0))
    return sizes


def undefined(objects):
    """The symbols the objects, linked together, need from outside: none
    for a set a kernel links alone (no memcpy or memset from struct
    copies: a kernel need not have them)."""
    linked = objects[0] + ".linked"
    subprocess.run([CROSS + "ld", "-r", "-o", linked] + objects, check=True)
    names = subprocess.run([CROSS + "nm", "-u", linked], capture_output=True, text=True,
                           check=True).stdout.split()
    os.remove(linked)
    return [name for name in names if name != "U"]


def main():
    out_root, cc, flags = sys.argv[1], sys.argv[2], sys.argv[3:]
    # Debugging information changes no code (GCC's promise, -fcompare-debug):
    # without it the builds take a third less.
    flags = [flag for flag in flags if flag != "-g"]
    core = set.intersection(*(set(os.path.basename(source)[:-2] + ".o"
                                  for source in tracer_sources(unwinders, fault_report=False)[0])
                              for unwinders in UNWINDER_SETS))
    everything = UNWINDER_SETS[-1]
    sets = ([(unwinders, True, False, True, True) for unwinders in UNWINDER_SETS]
            + [(unwinders, False, False, capture, True) for capture in (True, False)
               for unwinders in NO_LINES_SETS]
            + [(["frame-pointer"], False, False, False, False)]
            + [(everything, True, True, True, True)])
    builds = []
    for unwinders, lines, fault_report, capture, symbols in sets:
        sources, defines = tracer_sources(unwinders, lines, fault_report, capture, symbols)
        name = (",".join(unwinders) + ("" if lines else ",no-lines")
                + ("" if capture else ",no-capture") + ("" if symbols else ",no-symbols")
                + (",fault-report" if fault_report else ""))
        for level in LEVELS if lines and not fault_report else LEVELS[:1]:
            out_dir = os.path.join(out_root, "%s%s" % (name, level))
            shutil.rmtree(out_dir, ignore_errors=True)
            os.makedirs(out_dir)
            builds.append((name, level, out_dir,
                           subprocess.Popen([cc] + flags + [level] + defines + ["-c"] + sources,
                                            cwd=out_dir)))
            # Two compilers at a time, a core each.
            if len([b for b in builds if b[3].poll() is None]) >= 2:
                builds[-2][3].wait()
    totals = {}
    for name, level, out_dir, compiler in builds:
        if compiler.wait() != 0:
            sys.exit("tracer_text: %s %s does not compile" % (name, level))
        objects = [os.path.join(out_dir, f) for f in sorted(os.listdir(out_dir))]
        sizes = text_sizes(objects)
        totals[name, level] = sum(total for total, _ in sizes.values())
        print("bench tracer-undefined %s %s %s" % (name, level, " ".join(undefined(objects))
                                                   or "none"), flush=True)
        if name.endswith(",fault-report"):
            continue
        print("bench tracer-text %s %s %d bytes" % (name, level, totals[name, level]),
              flush=True)
        print("bench tracer-core %s %s %d bytes"
              % (name, level, sum(size for f, (size, _) in sizes.items() if f in core)),
              flush=True)
        print("bench tracer-cold %s %s %d bytes"
              % (name, level, sum(cold for _, cold in sizes.values())), flush=True)
    for level in LEVELS[:1]:
        with_it = totals[",".join(everything) + ",fault-report", level]
        print("bench tracer-fault-report %s %d bytes"
              % (level, with_it - totals[",".join(everything), level]), flush=True)


if __name__ == "__main__":
    main()

"""make bench: instructions per frame of the tracer's unwinders against
libgcc's _Unwind_Backtrace on the same stacks (tests/bench/unwind_bench.c),
and the promise that comes with it: the demo kernels link no allocator
(only the benchmark kernels do, for libgcc).

Per frame means the slope between the two depths the benchmark builds:
(instret deep - instret shallow) / (frames deep - frames shallow), so the
cost of starting a walk and of the frames below the recursion cancels. Each
tracer unwinder is measured raw (tracer_capture(), pcs only) and symbolized
(tracer_start() and tracer_next(), as panic() walks); the kernel prints
the slopes in the form tools read:
    bench <build> <unwinder> raw slope <N> instr/frame
    bench <build> <unwinder> symbolized slope <N> instr/frame
The checks are regression guards at about 1.1 times the figures reached,
the issue's targets where they are met: the
frame-pointer capture at most 25 a frame, symbolizing at most
15 * log2(symbols) more than the raw walk (plus the checks of the blocks a
frame reads), a walk's start (tracer_start() and the first tracer_next())
at most 3,000 whatever the tables' size. The tracer's code per unwinder
set (make UNWINDERS=...; tests/bench/tracer_text.py) is guarded at about
1.1 times the figures reached, and checked against the issue's targets at
-O2 without the line table and the raw capture (frame pointer and table at
most 10 KB; frame pointer alone 4 KB, not met, reported). libgcc's figure
depends on the memcpy and memset it gets (it clears and copies about 1.8 KB a frame):
tests/bench/libgcc_support.c gives it word-at-a-time ones, as a libc would.
The rv32 kernels (rv32imac/ilp32, gcc -O2, FP=0 and FP=1, against
libgcc's rv32imac/ilp32 unwinder) are checked the same way, with their own
guards where rv32 costs more (RV32_MAX_PER_FRAME, RV32_WALK_START_MAX; the
issue's targets are reported there, not asserted).
The figures docs/speed.md states must be the measured ones, within
DOC_TOLERANCE (check_speed_doc): a change that moves one makes the test
print the table with the measured figures, to paste into the doc.
"""
import glob
import math
import os
import re
import subprocess

from testlib import CROSS, ROOT, SHARED_OBJECTS, TEST_BUILD, Results, info, run

# Guards on the slopes, by unwinder and mode, over both builds (rv64imac,
# gcc -O2; FP=1 costs more than FP=0 for all but the frame pointer).
# Issue 17's second witness of frame pointers (a frame size per s0-based
# table row, checked in callers' frames) costs the frame pointer a table
# lookup a frame (22 before), DWARF one where the CFA is s0-based (FP=1:
# 707 and 1,114 before), the table 5 in its s0-based rows (FP=1: 59 and 444).
MAX_PER_FRAME = {
    # One step for the frame pointer (issue 18: 68 and 499 with its former
    # fast path beside the step; 22 before the frame-size witness). A
    # symbolized walk takes the iterator's step for every frame, the raw
    # capture its loop (issue 18: 528 and 322 symbolized while tracer_next()
    # also ran the loop's step first).
    ("frame-pointer", "raw"): 80,   # 72
    # 593 (257 before the witness; 131 before the block checks)
    ("frame-pointer", "symbolized"): 650,
    # The same in a kernel without the unwind table, so without its
    # witness: issue 18's budget is 25.
    ("frame-pointer-alone", "raw"): 25,  # 25
    ("frame-pointer-alone", "symbolized"): 460,  # 418 (405 before the trap fields)
    # DWARF's one interpreter and one FDE parser (issue 18: within 1.5 times
    # the 805 and 618 of the second, inline copy of the common ops it
    # replaced; 1,163 and 918 with the inline copy of the FDE header's parse).
    ("dwarf", "raw"): 1280,         # 1,167 (FP=1); 921 (FP=0)
    ("dwarf", "symbolized"): 1905,  # 1,734 (FP=1; 1,374 with the inline copy, 801 before the checks)
    # The prologue decoder as one path (issue 18: 966 and 1,126 with its
    # former fast path, within the 1.5 times).
    ("prologue", "raw"): 1265,      # 1,148 (FP=1); the target is 600
    ("prologue", "symbolized"): 1440,  # 1,308 (FP=1; 1,002 before the checks)
    # The table's lookup counts bits (no search): the same cost wherever
    # the benchmark's function falls.
    # One step for the table (issue 18: 53 (FP=0) and 64 (FP=1) raw, 454 and
    # 471 symbolized, with its former fast path beside the step). Raw: issue
    # 18's budget, 60. 64 (FP=0) and 69 (FP=1) before format version 8, whose
    # common frame's CFA is sp plus the size its row states, s0-based or
    # not (79 with FP=1 before a common frame skipped the check of its
    # slots). Symbolized: the iterator's step, as for the frame pointer (494
    # and 491 with FP=1 while tracer_next() ran the loop's step first).
    ("auto", "raw"): 60,            # 58 (FP=1), 59 (FP=0): the table's capture loop
    ("auto", "symbolized"): 630,    # 567 (FP=1; 444 before the witness, 163 before the checks)
    ("table", "raw"): 60,           # 58 (FP=1); 59 (FP=0)
    ("table", "symbolized"): 630,   # 555 (FP=1)
}
# Symbolizing adds at most 15 * log2(symbols) per frame (the target
# for the lookup, which every unwinder met: 96 to 109 of 119), plus what the
# walk spends checking the blocks and entries a frame reads (verify.c): up
# to 407 for DWARF in the benchmark's recursion, whose blocks the walk
# checks once (check_costs), the iterator's branches for the line table
# (about 30 a frame without one), and about 13 for a frame's trap fields
# (its layout's mode, the trap frame's address) and the task-entry test.
CHECK_PER_FRAME = 375
LOOKUP_PER_LEVEL = 15
# Everything before a walk's first frame line (tracer_start(), which checks
# the tables' headers, and the first tracer_next(), which checks the blocks it
# reads): the target, 3,000, on the demo-size kernels and the 10x one
# alike, for every unwinder but DWARF, whose first step also reads and runs
# its CIE (4,002 to 4,523 since the kernels print lines; a guard at 1.06
# times that). The frame pointer's
# 2,801 checks the blocks of its first frame's table row (1,682 without).
# It was 48,446 (demo size) and 393,094 (10x) when tracer_start() checked
# every table whole.
WALK_START_MAX = {"frame-pointer": 3000, "frame-pointer-alone": 3000, "prologue": 3000,
                  "auto": 3000, "table": 3000, "dwarf": 4800}
MIN_RATIO_TO_LIBGCC = 1
# rv32 (the kernels rv32-gcc-O2-fp0 and -fp1): what costs more there, a
# guard at about 1.1 times the figure reached; the rest as MAX_PER_FRAME
# and WALK_START_MAX. The table's lookup works on a block's 64-bit map of
# row starts (its count of bits, its shift) in 32-bit halves: the table and
# auto raw 100 (FP=0) and 102 (FP=1) a frame, the frame pointer with its
# witness (that lookup in every frame) 115, alone 28. The capture loops
# take c.jal, rv32's 2-byte call, which GCC emits for every call within 2
# KiB (tracer/riscv.h): before, they left the loop at such frames, and cost
# 412, 422 and 233. Symbolized, a frame costs up to 1.1 times rv64's (the
# same halves in the step's table lookup). A walk's start hashes the blocks
# it checks with 64-bit arithmetic: about 1.3 times rv64's.
RV32_BUILDS = ["rv32-gcc-O2-fp0", "rv32-gcc-O2-fp1"]
RV32_MAX_PER_FRAME = {**MAX_PER_FRAME, **{
    ("frame-pointer", "raw"): 127,               # 115
    ("frame-pointer", "symbolized"): 770,        # 699
    ("frame-pointer-alone", "raw"): 31,          # 28
    ("auto", "raw"): 112,                        # 102 (FP=1); 100 (FP=0)
    ("auto", "symbolized"): 700,                 # 635 (FP=1)
    ("table", "raw"): 112,                       # 102 (FP=1); 100 (FP=0)
    ("table", "symbolized"): 690,                # 623 (FP=1)
}}
# dwarf 5,138 (FP=1), the frame pointer 3,782, the table 3,705, auto 3,717.
RV32_WALK_START_MAX = dict(WALK_START_MAX, **{"frame-pointer": 4160, "table": 4080,
                                               "auto": 4090, "dwarf": 5650})
# What a symbolized walk pays a frame on top of symbolizing, by unwinder:
# the frame-size witness of the frame pointer and of DWARF checks the unwind
# table's row of each s0-based frame (walk_unwind_rule: its blocks found
# checked), which the raw capture, trusting tracer_prepare(), does not: 169
# for the frame pointer, 162 for DWARF with FP=1 (none in FP=0's frames).
# The table and auto (and the frame pointer) pay the iterator's step, with
# its checks of what it reads, where the raw capture runs its loop: 19 to
# 53 more (table and auto, FP=0 and FP=1).
SYMBOLIZED_STEP_EXTRA = {"frame-pointer": 180, "dwarf": 180, "table": 60, "auto": 60}
# .text of the tracer's objects per unwinder set and -O level (bytes, every
# .text section: .text.unlikely holds the cold code, TRACER_COLD): the
# issue's targets, and guards at about 1.1 times the figures reached (frame
# pointer 10,906 / 10,106; table 14,388 / 13,310; both 15,574 / 14,488; all
# 34,290 / 29,604 at -O2 / -Os, with the line table's lookup and checks;
# without them, TRACER_LINES=no, frame pointer 7,284 and both 12,038; without
# the raw capture too, TRACER_CAPTURE=no, 6,058 and 8,878 at -O2; 6,884 and
# 10,030 before the cold code and the saved registers only s0 kept without
# DWARF and the prologue decoder); without the symbol table too,
# TRACER_SYMBOLS=no, the frame pointer printing raw frames, 3,746. The
# targets are on the smallest build of each set, without the options a
# kernel may leave out; the frame pointer's, 4 KB, only without the symbol
# table: 6,058 with it (docs/speed.md says why).
TEXT_TARGETS = {("frame-pointer,no-lines,no-capture,no-symbols", "-O2"): 4096,
                ("frame-pointer,table,no-lines,no-capture", "-O2"): 10240}
TEXT_GUARDS = {("frame-pointer", "-O2"): 11900, ("frame-pointer", "-Os"): 11100,
               ("table", "-O2"): 15720, ("table", "-Os"): 14630,
               ("frame-pointer,table", "-O2"): 17020, ("frame-pointer,table", "-Os"): 15930,
               ("frame-pointer,table,dwarf,prologue", "-O2"): 37620,
               ("frame-pointer,table,dwarf,prologue", "-Os"): 32250,
               ("frame-pointer,no-lines", "-O2"): 7890,
               ("frame-pointer,table,no-lines", "-O2"): 13110,
               ("frame-pointer,no-lines,no-capture", "-O2"): 6630,
               ("frame-pointer,no-lines,no-capture,no-symbols", "-O2"): 4120,
               ("frame-pointer,table,no-lines,no-capture", "-O2"): 9740}
BENCH_TIMEOUT = 600
BENCH_KERNELS = [os.path.join(ROOT, "build", "bench", "kernel.elf"),
                 os.path.join(ROOT, "build", "bench-fp1", "kernel.elf"),
                 os.path.join(ROOT, "build", "bench-10x", "kernel.elf"),
                 os.path.join(ROOT, "build", "bench-rv32", "kernel.elf"),
                 os.path.join(ROOT, "build", "bench-rv32-fp1", "kernel.elf")]
# The rv64 kernels' builds, as they name themselves; the last has ten times the
# functions (tests/bench/many_functions.py), only the walked stack is equal.
BENCH_BUILDS = ["gcc-O2-fp0", "gcc-O2-fp1", "gcc-O2-fp0-10x"]
BIG_BUILD = BENCH_BUILDS[2]
FLAT_PERCENT = 10
# The unwinders each benchmark kernel must measure, by its frame-pointers=N
# line; the kernel may measure more (a new unwinder is one line in
# unwind_bench.c).
REQUIRED_UNWINDERS = {"0": {"auto", "dwarf", "libgcc", "prologue", "table"},
                      "1": {"auto", "dwarf", "frame-pointer", "frame-pointer-alone", "libgcc",
                            "prologue", "table"}}
ALLOCATOR_SYMBOLS = {"malloc", "free", "calloc", "realloc"}
# docs/speed.md: its tables' columns name the kernels so.
SPEED_DOC = os.path.join(ROOT, "docs", "speed.md")
DOC_KERNELS = {"`FP=0`": BENCH_BUILDS[0], "`FP=1`": BENCH_BUILDS[1], "10x": BENCH_BUILDS[2],
               "rv32 `FP=0`": RV32_BUILDS[0], "rv32 `FP=1`": RV32_BUILDS[1]}
# A figure in the doc may differ from the measured one by this much: the
# counts are exact (-icount), but a change of a few instructions need not
# rewrite the doc. The larger of the two applies.
DOC_TOLERANCE_PERCENT = 5
DOC_TOLERANCE_MIN = 3

KERNEL_RE = re.compile(r"^BENCH kernel build=(\S+) frame-pointers=(\d)$")
START_RE = re.compile(r"^BENCH walk-start ([\w-]+) instret=(\d+) symbols=(\d+) fdes=(\d+) "
                      r"unwind=(\d+)$")
WALK_RE = re.compile(r"^BENCH ([\w-]+) (raw|symbolized) depth=(\d+) frames=(\d+) instret=(\d+) "
                     r"complete=([01])$")
SLOPE_RE = re.compile(r"^bench (\S+) ([\w-]+) (raw|symbolized) slope (\d+) instr/frame$")
TEXT_RE = re.compile(r"^bench tracer-text (\S+) (-O\w) (\d+) bytes$", re.M)
CORE_RE = re.compile(r"^bench tracer-core (\S+) (-O\w) (\d+) bytes$", re.M)
COLD_RE = re.compile(r"^bench tracer-cold (\S+) (-O\w) (\d+) bytes$", re.M)
# tests/bench/line_bench.py --bench: the line table of each kernel.
LINE_TABLE_RE = re.compile(r"^bench line-table (\S+) (\d+) rows (\d+) bytes ([\d.]+) bytes/row$",
                           re.M)
INLINE_TABLE_RE = re.compile(r"^bench inline-table (\S+) (\d+) bytes in the rows, (\d+) of "
                             r"records and names$", re.M)
LINE_LOOKUP_RE = re.compile(r"^bench line-lookup (\S+) ([\d.]+) instr/frame \(lines [\d.]+, "
                            r"inlined calls [\d.]+\), max (\d+), stack (\d+) bytes$", re.M)
# Issue 19's budgets: the line table at most 1.85 bytes a row (half of
# Linux's LINEINFO), a frame's lookup (its line and its inlined calls) at
# most 400 instructions on average over the kernel's return addresses.
LINE_TABLE_MAX_BYTES_PER_ROW = 1.85
LINE_LOOKUP_MAX = 400
LINE_KERNELS = {"gcc-O2-fp0": "`FP=0`", "gcc-O2-fp0-10x": "10x"}
LINES_CHECK_RE = re.compile(r"^BENCH lines-check instret=(\d+) bytes=(\d+)$")


def parse(output):
    """(kernels, slopes): {build: {"frame-pointers": "0" or "1", "walk-start":
    {unwinder: (instret, symbols, fdes, unwind)}, (unwinder, mode): {depth:
    (frames, instret, complete)}}} and {build: {(unwinder, mode): slope}}."""
    kernels, slopes, current = {}, {}, None
    for line in output.splitlines():
        line = line.rstrip("\r")
        if KERNEL_RE.match(line):
            build, fp = KERNEL_RE.match(line).groups()
            current = kernels.setdefault(build, {"frame-pointers": fp})
        elif START_RE.match(line) and current is not None:
            name, *numbers = START_RE.match(line).groups()
            current.setdefault("walk-start", {})[name] = tuple(int(g) for g in numbers)
        elif WALK_RE.match(line) and current is not None:
            name, mode, depth, frames, instret, complete = WALK_RE.match(line).groups()
            current.setdefault((name, mode), {})[int(depth)] = (int(frames), int(instret),
                                                               complete == "1")
        elif SLOPE_RE.match(line):
            build, name, mode, slope = SLOPE_RE.match(line).groups()
            slopes.setdefault(build, {})[(name, mode)] = int(slope)
    return kernels, slopes


def slope_of(walks):
    """The slope between the two depths, None if the frames did not grow."""
    (_, (f1, i1, _)), (_, (f2, i2, _)) = sorted(walks.items())
    return (i2 - i1) / (f2 - f1) if f2 > f1 else None


def check_frames(results, label, walks_by_name):
    """Every walk ended at _start and saw the frames the recursion added, and
    all unwinders, raw and symbolized, saw the same number of frames at each
    depth."""
    depths = sorted(next(iter(walks_by_name.values())))
    for (name, mode), walks in sorted(walks_by_name.items()):
        (d1, (f1, _, c1)), (d2, (f2, _, c2)) = sorted(walks.items())
        results.check("%s %s %s: walks end at the outermost frame and count the recursion"
                      % (label, name, mode), c1 and c2 and f2 - f1 == d2 - d1,
                      "depth %d: %d frames (complete %s), depth %d: %d frames (complete %s)"
                      % (d1, f1, c1, d2, f2, c2))
    for depth in depths:
        counts = {"%s %s" % key: walks.get(depth, (None,))[0]
                  for key, walks in walks_by_name.items()}
        results.check("%s depth %d: all unwinders see the same frames" % (label, depth),
                      len(set(counts.values())) == 1, counts)


def check_costs(results, build, walks_by_name, printed, symbols, max_per_frame):
    """The printed slopes are the walks' (rounded), within their guards
    (max_per_frame);
    symbolizing adds at most 15 * log2(symbols) + CHECK_PER_FRAME a frame
    (and what SYMBOLIZED_STEP_EXTRA says the symbolized step adds)."""
    for key, walks in sorted(walks_by_name.items()):
        slope = slope_of(walks)
        results.check("bench %s %s %s: the printed slope is the walks' (%s, printed %s)"
                      % ((build,) + key + (slope, printed.get(key))),
                      slope is not None and printed.get(key) is not None and
                      abs(printed[key] - slope) <= 0.5)
        if key in max_per_frame:
            results.check("bench %s %s %s: at most %d instructions per frame (measured %s)"
                          % ((build,) + key + (max_per_frame[key], printed.get(key))),
                          printed.get(key) is not None and printed[key] <= max_per_frame[key])
            if (max_per_frame[key] > MAX_PER_FRAME.get(key, max_per_frame[key]) and
                    printed.get(key) is not None and printed[key] > MAX_PER_FRAME[key]):
                info("  bench %s %s %s: rv64's guard (the issue's budget), %d, is not met: %s"
                     % ((build,) + key + (MAX_PER_FRAME[key], printed.get(key))))
    bound = LOOKUP_PER_LEVEL * math.log2(symbols) + CHECK_PER_FRAME
    for name in sorted({name for name, mode in walks_by_name if mode == "symbolized"}):
        raw, symbolized = printed.get((name, "raw")), printed.get((name, "symbolized"))
        added = symbolized - raw if raw is not None and symbolized is not None else None
        added = added - SYMBOLIZED_STEP_EXTRA.get(name, 0) if added is not None else None
        info("  bench %s %s: symbolizing adds %s instr/frame; 15 * log2(%d symbols) + %d = %.0f"
             % (build, name, added, symbols, CHECK_PER_FRAME, bound))
        results.check("bench %s %s: symbolizing adds at most %.0f instructions per frame "
                      "(measured %s)" % (build, name, bound, added),
                      added is not None and added <= bound)
    dwarf, libgcc = printed.get(("dwarf", "symbolized")), printed.get(("libgcc", "raw"))
    ratio = libgcc / dwarf if dwarf and libgcc else None
    results.check("bench %s: libgcc / dwarf (symbolized) per frame at least %d (measured %s)"
                  % (build, MIN_RATIO_TO_LIBGCC, "%.1f" % ratio if ratio else None),
                  ratio is not None and ratio >= MIN_RATIO_TO_LIBGCC)


def check_walk_start(results, label, starts, fp, walk_start_max):
    """Starting a walk, up to its first frame, costs at most its
    walk_start_max (WALK_START_MAX, RV32_WALK_START_MAX) instructions with
    every unwinder, whatever the tables' size."""
    if not results.check("%s: the cost of starting a walk was measured for every unwinder"
                         % label, starts is not None and set(starts) >= REQUIRED_UNWINDERS[fp]
                         - {"libgcc"}):
        return
    for name, (instret, symbols, fdes, unwind) in sorted(starts.items()):
        info("  %s %s walk start: %d instructions (%d symbols, %d FDEs, %d unwind table "
             "entries)" % (label, name, instret, symbols, fdes, unwind))
        limit = walk_start_max.get(name, 0)
        if limit > WALK_START_MAX.get(name, limit) and instret > WALK_START_MAX[name]:
            info("  %s %s: rv64's bound on a walk's start, %d, is not met: %d"
                 % (label, name, WALK_START_MAX[name], instret))
        results.check("%s %s: starting a walk costs at most %d instructions (measured %d)"
                      % (label, name, limit, instret),
                      symbols > 0 and fdes > 0 and instret <= limit)


def run_benchmark():
    """(exit status, output) of make bench; status None if it hung."""
    try:
        # -j2: the benchmark kernels' builds take both cores (the
        # measurements count instructions, not time).
        result = run(["make", "-s", "-j2", "bench", SHARED_OBJECTS], timeout=BENCH_TIMEOUT)
    except subprocess.TimeoutExpired:
        return None, "timed out after %d s" % BENCH_TIMEOUT
    return result.returncode, result.stdout + result.stderr


def measured_as_required(kernels, fps):
    """The five kernels ran; each measured its required unwinders at two
    depths, the tracer's raw and symbolized, libgcc's raw."""
    if set(kernels) != set(BENCH_BUILDS + RV32_BUILDS):
        return False
    for build, walks_by_name in kernels.items():
        fp = fps[build]
        names = {name for name, mode in walks_by_name}
        modes = {name: {m for n, m in walks_by_name if n == name} for name in names}
        if not REQUIRED_UNWINDERS[fp] <= names or modes.get("libgcc") != {"raw"}:
            return False
        if any(modes[name] != {"raw", "symbolized"} for name in names - {"libgcc"}):
            return False
        if any(len(walks) != 2 for walks in walks_by_name.values()):
            return False
    return True


def check_many_functions(results, slopes, starts):
    """With ten times the functions, the table's raw walk costs what it did:
    its lookup counts the bits of one block's map, no search."""
    small, big = (next(iter((starts.get(build) or {None: None}).values()))
                  for build in (BENCH_BUILDS[0], BIG_BUILD))
    results.check("bench %s: at least ten times the symbols of %s (%s, %s)"
                  % (BIG_BUILD, BENCH_BUILDS[0], big and big[1], small and small[1]),
                  small and big and big[1] >= 10 * small[1])
    for name in ("table", "auto"):
        base = slopes.get(BENCH_BUILDS[0], {}).get((name, "raw"))
        grown = slopes.get(BIG_BUILD, {}).get((name, "raw"))
        results.check("bench %s %s raw: within %d%% of %s's (%s, %s)"
                      % (BIG_BUILD, name, FLAT_PERCENT, BENCH_BUILDS[0], grown, base),
                      base and grown and grown <= base * (100 + FLAT_PERCENT) / 100)


def markdown_tables(text):
    """[(header cells, [row cells])] of the tables in a markdown text."""
    tables, header, rows = [], None, []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if header is None:
                header, rows = cells, []
            elif not set("".join(cells)) <= set("-: "):
                rows.append(cells)
        elif header is not None:
            tables.append((header, rows))
            header = None
    return tables


def doc_figure(cell):
    """A table cell's figure: None for "-" (not measured)."""
    return None if cell == "-" else int(cell.replace(",", ""))


def close_enough(stated, measured):
    if stated is None or measured is None:
        return stated == measured
    return abs(stated - measured) <= max(DOC_TOLERANCE_MIN, measured * DOC_TOLERANCE_PERCENT / 100)


def check_doc_table(results, title, table, measure):
    """Every cell of `table` (header, rows) against measure(row name, column
    header): the problems name each cell; then the table as measured."""
    header, rows = table
    problems, measured_rows = [], []
    for row in rows:
        name = row[0].strip("`")
        measured = [measure(name, column) for column in header[1:]]
        measured_rows.append([row[0]] + ["-" if value is None else "{:,}".format(value)
                                         for value in measured])
        for column, cell, value in zip(header[1:], row[1:], measured):
            try:
                stated = doc_figure(cell)
            except ValueError:
                stated = cell
            if not isinstance(stated, (int, type(None))) or not close_enough(stated, value):
                problems.append("%s, %s: the doc says %s, measured %s" % (row[0], column, cell,
                                                                         value))
    as_measured = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    as_measured += ["| " + " | ".join(row) + " |" for row in measured_rows]
    results.check("docs/speed.md %s: the measured figures (within %d%%, at least %d)"
                  % (title, DOC_TOLERANCE_PERCENT, DOC_TOLERANCE_MIN), rows and not problems,
                  "\n".join(problems + ["measured:"] + as_measured))


def check_speed_doc(results, slopes, starts):
    """docs/speed.md's five tables: instructions per frame and a walk's
    start (rv64, rv32), the kernels' tables; each row an unwinder (or
    kernel) the benchmark measured, and every unwinder measured in a row
    of each per-frame table."""
    tables = markdown_tables(open(SPEED_DOC).read())
    per_frame = [t for t in tables if t[0][0] == "unwinder" and "raw, `FP=0`" in t[0]]
    start = [t for t in tables if t[0] == ["unwinder", "`FP=0`", "`FP=1`", "10x"]]
    per_frame_rv32 = [t for t in tables if t[0][0] == "unwinder" and "raw, rv32 `FP=0`" in t[0]]
    start_rv32 = [t for t in tables if t[0] == ["unwinder", "rv32 `FP=0`", "rv32 `FP=1`"]]
    kernels = [t for t in tables if t[0][0] == "kernel"]
    if not results.check("docs/speed.md has its five tables",
                         len(per_frame) == len(start) == len(kernels) == len(per_frame_rv32)
                         == len(start_rv32) == 1,
                         "per frame %d (rv32 %d), walk start %d (rv32 %d), kernels %d"
                         % (len(per_frame), len(per_frame_rv32), len(start), len(start_rv32),
                            len(kernels))):
        return

    def slope(name, column):
        mode, kernel = column.split(", ")
        return slopes.get(DOC_KERNELS[kernel], {}).get((name, mode))

    def walk_start(name, column):
        found = (starts.get(DOC_KERNELS[column]) or {}).get(name)
        return found and found[0]

    # A row's name, its backticks stripped at either end, to the kernel.
    row_kernels = {shown.strip("`"): build for shown, build in DOC_KERNELS.items()}

    def kernel_tables(name, column):
        found = next(iter((starts.get(row_kernels.get(name)) or {None: None}).values()))
        fields = {"symbols": 1, "FDEs": 2, "unwind table entries": 3}
        return found and found[fields[column]]

    check_doc_table(results, "instructions per frame", per_frame[0], slope)
    check_doc_table(results, "starting a walk", start[0], walk_start)
    check_doc_table(results, "instructions per frame, rv32", per_frame_rv32[0], slope)
    check_doc_table(results, "starting a walk, rv32", start_rv32[0], walk_start)
    check_doc_table(results, "the benchmark kernels' tables", kernels[0], kernel_tables)
    listed_kernels = {row[0].strip("`") for row in kernels[0][1]}
    results.check("docs/speed.md's table of the kernels' tables has a row for each kernel",
                  listed_kernels == set(row_kernels), sorted(listed_kernels))
    for table, builds in ((per_frame[0], BENCH_BUILDS), (per_frame_rv32[0], RV32_BUILDS)):
        measured = {name for build in builds for name, _ in slopes.get(build, {})}
        listed = {row[0].strip("`") for row in table[1]}
        results.check("docs/speed.md lists every unwinder make bench measured (%s)"
                      % ", ".join(builds), measured == listed,
                      "measured %s, listed %s" % (sorted(measured), sorted(listed)))


def header_constant(path, name):
    """The value of `#define name N` (an unsigned literal) in a tracer header."""
    text = open(os.path.join(ROOT, "tracer", path)).read()
    return int(re.search(r"#define %s\s+(\d+)u" % name, text).group(1))


def check_speed_prose(results, slopes, starts, depths):
    """The figures docs/speed.md's prose states, outside its tables: each
    phrase (in one piece, whitespace folded) says what the tests and the
    benchmark hold (exactly), or a ratio of figures measured (a float:
    within DOC_TOLERANCE_PERCENT, or 0.5 for rounding)."""
    prose = " ".join(line for line in open(SPEED_DOC).read().split()
                     if not line.startswith("|"))
    makefile = open(os.path.join(ROOT, "Makefile")).read()
    many = int(re.search(r"^BENCH_MANY_COUNT := (\d+)$", makefile, re.M).group(1))

    def ratio(build):
        walks = slopes.get(build, {})
        libgcc, dwarf = walks.get(("libgcc", "raw")), walks.get(("dwarf", "raw"))
        return libgcc and dwarf and libgcc / dwarf

    block = 1 << header_constant("table_format.h", "TRACER_UNWIND_BLOCK_SHIFT")
    stated = [
        (r"tolerance: (\d+)%, at least (\d+) instructions",
         [DOC_TOLERANCE_PERCENT, DOC_TOLERANCE_MIN]),
        (r"a recursion (\d+) and (\d+) frames deep", sorted(depths)),
        (r"with ([\d,]+) more functions", [many]),
        (r"stay within (\d+)% of it", [FLAT_PERCENT]),
        (r"about (\d+) times cheaper than libgcc on the `FP=0` kernel and (\d+) times on the "
         r"10x one", [ratio(BENCH_BUILDS[0]), ratio(BIG_BUILD)]),
        (r"at most (\d+) x log2\(symbols\)", [LOOKUP_PER_LEVEL]),
        (r"its (\d+) bytes are hashed",
         [1 << header_constant("table_hash.h", "TRACER_HASH_BLOCK_SHIFT")]),
        (r"at most ([\d,]+) \(DWARF: ([\d,]+)\)",
         [WALK_START_MAX["table"], WALK_START_MAX["dwarf"]]),
        (r"(\d+) per (\d+) bytes of code", [8 + 2, block]),
        (r"about (\d+) times cheaper than libgcc on the rv32 `FP=1` kernel",
         [ratio(RV32_BUILDS[1])]),
        (r"(\d+) KB for the frame pointer alone and (\d+) KB with the table",
         [TEXT_TARGETS[("frame-pointer,no-lines,no-capture,no-symbols", "-O2")] // 1024,
          TEXT_TARGETS[("frame-pointer,table,no-lines,no-capture", "-O2")] // 1024]),
    ]
    def agrees(figure, value):
        if isinstance(value, float):
            return abs(figure - value) <= max(0.5, value * DOC_TOLERANCE_PERCENT / 100)
        return figure == value

    # rv32 against rv64, as decimal ratios: the table's raw walk (FP=0),
    # the table's walk start (FP=1).
    def walk_start(build):
        found = (starts.get(build) or {}).get("table")
        return found and found[0]

    def over(measured, base):
        return measured / base if measured and base else None

    table_raw = over(slopes.get(RV32_BUILDS[0], {}).get(("table", "raw")),
                     slopes.get(BENCH_BUILDS[0], {}).get(("table", "raw")))
    ratios = [(r"The table's raw walk costs about ([\d.]+) times rv64's \(`FP=0`\)", table_raw),
              (r"Starting a walk with the table costs about ([\d.]+) times rv64's \(`FP=1`",
               over(walk_start(RV32_BUILDS[1]), walk_start(BENCH_BUILDS[1])))]
    for pattern, value in ratios:
        found = re.findall(pattern, prose)
        results.check("docs/speed.md says /%s/ once, with %s" % (pattern, value and "%.2f" % value),
                      len(found) == 1 and value is not None and
                      abs(float(found[0]) - value) <= value * DOC_TOLERANCE_PERCENT / 100,
                      "found %s" % (found,))
    for pattern, expected in stated:
        found = re.findall(pattern, prose)
        figures = [int(f.replace(",", "")) for f in (found[0] if found and
                                                     isinstance(found[0], tuple) else found)]
        results.check("docs/speed.md says /%s/ once, with %s" % (pattern, expected),
                      len(found) == 1 and len(figures) == len(expected) and
                      all(value and agrees(figure, value)
                          for figure, value in zip(figures, expected)),
                      "found %s" % (found,))


def check_undefined(results, output):
    """Each unwinder set at -O2 and -Os (and without lines, and with the
    fault report) links alone: needs no outside symbol (tracer_text.py;
    run_tests.py's library builds check -O0, and the whole library at
    every level, for rv32 and rv64)."""
    needs = dict(((name, level), symbols) for name, level, symbols in
                 re.findall(r"^bench tracer-undefined (\S+) (\S+) (.*)$", output, re.M))
    results.check("bench: every unwinder set at -O2 and -Os links alone, needing no outside "
                  "symbol (%d builds)" % len(needs),
                  len(needs) >= len(TEXT_GUARDS) and all(v == "none" for v in needs.values()),
                  "\n".join("%s %s: %s" % (k + (v,)) for k, v in sorted(needs.items())))


def check_text_sizes(results, output):
    """make bench printed the tracer's .text for every unwinder set at -O2
    and -Os; each within its guard, and the issue's targets."""
    sizes = {(unwinders, level): int(size) for unwinders, level, size in TEXT_RE.findall(output)}
    cores = {(unwinders, level): int(size) for unwinders, level, size in CORE_RE.findall(output)}
    colds = {(unwinders, level): int(size) for unwinders, level, size in COLD_RE.findall(output)}
    results.check("make bench prints the tracer's .text for each unwinder set, its core's and "
                  "its cold code's", set(sizes) == set(cores) == set(colds) == set(TEXT_GUARDS),
                  sorted(sizes))
    # The code a walk runs once is cold (TRACER_COLD): a part of every set,
    # never all of it.
    results.check("bench tracer-cold: every set has cold code, less than its .text",
                  all(0 < colds[key] < sizes[key] for key in colds if key in sizes),
                  sorted(colds.items()))
    # docs/speed.md's account of the frame pointer's smallest build.
    smallest = ("frame-pointer,no-lines,no-capture", "-O2")
    prose = " ".join(open(SPEED_DOC).read().split())
    stated = re.findall(r"([\d,]+) of its ([\d,]+) bytes are code a walk runs once", prose)
    measured = (colds.get(smallest), sizes.get(smallest))
    results.check("docs/speed.md says what part of the frame pointer's smallest build is cold "
                  "(within %d%%; measured %s of %s)" % ((DOC_TOLERANCE_PERCENT,) + measured),
                  len(stated) == 1 and None not in measured and
                  all(abs(int(figure.replace(",", "")) - value)
                      <= value * DOC_TOLERANCE_PERCENT / 100
                      for figure, value in zip(stated[0], measured)), stated)
    for key, size in sorted(sizes.items()):
        info("  bench tracer-text %s %s: %d bytes" % (key + (size,)))
    for (unwinders, level), limit in sorted(TEXT_GUARDS.items()):
        size = sizes.get((unwinders, level))
        results.check("bench tracer-text %s %s: at most %d bytes (guard; measured %s)"
                      % (unwinders, level, limit, size), size is not None and size <= limit)
    # docs/speed.md's table of them, as measured.
    sets = {"all four": "frame-pointer,table,dwarf,prologue"}
    tables = [t for t in markdown_tables(open(SPEED_DOC).read()) if t[0][0] == "unwinders"]
    if results.check("docs/speed.md has its table of code sizes", len(tables) == 1,
                     "%d tables" % len(tables)):
        def text_size(name, column):
            core, _, level = column.rpartition(" ")
            return (cores if core else sizes).get((sets.get(name, name.replace(", ", ",")),
                                                   level.strip("`")))

        check_doc_table(results, "code size per set of unwinders", tables[0], text_size)
    # The targets.
    for (unwinders, level), limit in sorted(TEXT_TARGETS.items()):
        size = sizes.get((unwinders, level))
        results.check("bench tracer-text %s %s: %s bytes, within the issue's target (%d)"
                      % (unwinders, level, size, limit), size is not None and size <= limit)


def check_lines_prose(results, output, tables):
    """docs/speed.md's figures about the line table in its prose: bytes a
    row, the table's check at a walk's start (BENCH lines-check, per
    kernel), the code it takes with the frame pointer."""
    prose = open(SPEED_DOC).read()
    checks, build = {}, None
    for line in output.splitlines():
        kernel, check = KERNEL_RE.match(line), LINES_CHECK_RE.match(line)
        build = kernel.group(1) if kernel else build
        if check:
            checks[build] = tuple(int(value) for value in check.groups())
    per_row = re.search(r"That is ([\d.]+) and ([\d.]+) bytes a row", prose)
    results.check("docs/speed.md's bytes a row are make bench's",
                  per_row is not None and
                  [float(v) for v in per_row.groups()] ==
                  [round(float(tables[kernel][2]), 2) for kernel in sorted(LINE_KERNELS)],
                  per_row.groups() if per_row else "not found")
    stated = re.search(r"`BENCH lines-check`: ([\d,]+) instructions for the\s+([\d,]+) bytes "
                       r"of the `FP=0` kernel's table, ([\d,]+) for the 10x kernel's\s+([\d,]+)",
                       prose)
    measured = checks.get("gcc-O2-fp0", ()) + checks.get("gcc-O2-fp0-10x", ())
    results.check("docs/speed.md's line table check at a walk's start is make bench's (%s)"
                  % (measured,), stated is not None and len(measured) == 4 and
                  all(close_enough(int(v.replace(",", "")), m)
                      for v, m in zip(stated.groups(), measured)),
                  stated.groups() if stated else "not found")
    sizes = {(u, level): int(size) for u, level, size in TEXT_RE.findall(output)}
    code = re.search(r"core\) take ([\d,]+) bytes with the frame pointer", prose)
    lines_code = (sizes.get(("frame-pointer", "-O2"), 0)
                  - sizes.get(("frame-pointer,no-lines", "-O2"), 0))
    results.check("docs/speed.md's code of the line table is make bench's (%d)" % lines_code,
                  code is not None and close_enough(int(code.group(1).replace(",", "")),
                                                    lines_code),
                  code.group(0) if code else "not found")


def check_lines(results, output):
    """make bench printed each kernel's line table, inline table and lookup:
    within issue 19's budgets, and as docs/speed.md states them."""
    tables = {m[0]: m[1:] for m in LINE_TABLE_RE.findall(output)}
    inlines = {m[0]: m[1:] for m in INLINE_TABLE_RE.findall(output)}
    lookups = {m[0]: m[1:] for m in LINE_LOOKUP_RE.findall(output)}
    if not results.check("make bench prints the line table, inline table and lookup of "
                         + ", ".join(sorted(LINE_KERNELS)),
                         set(tables) == set(inlines) == set(lookups) == set(LINE_KERNELS),
                         "%s %s %s" % (sorted(tables), sorted(inlines), sorted(lookups))):
        return
    for kernel in sorted(LINE_KERNELS):
        rows, size, per_row = tables[kernel]
        average, most, stack = lookups[kernel]
        info("  bench %s: line table %s rows, %s bytes, %s bytes/row; inline table %s + %s "
             "bytes; lookup %s instr/frame, max %s, stack %s bytes"
             % ((kernel, rows, size, per_row) + inlines[kernel] + lookups[kernel]))
        results.check("bench %s: line table %s bytes/row, at most %.2f"
                      % (kernel, per_row, LINE_TABLE_MAX_BYTES_PER_ROW),
                      float(per_row) <= LINE_TABLE_MAX_BYTES_PER_ROW)
        results.check("bench %s: a frame's lines and inlined calls in %s instructions, at most %d"
                      % (kernel, average, LINE_LOOKUP_MAX), float(average) <= LINE_LOOKUP_MAX)
        limit = header_constant("tracer.h", "TRACER_STACK_LINES")
        results.check("bench %s: the lookup's stack, %s bytes, within TRACER_STACK_LINES (%s)"
                      % (kernel, stack, limit), int(stack) <= limit)
    check_lines_prose(results, output, tables)
    doc = [t for t in markdown_tables(open(SPEED_DOC).read()) if t[0][0] == "line table of"]
    if results.check("docs/speed.md has its table of line tables", len(doc) == 1,
                     "%d tables" % len(doc)):
        names = {shown.strip("`"): kernel for kernel, shown in LINE_KERNELS.items()}

        def figure(name, column):
            kernel = names.get(name)
            if kernel is None:
                return None
            values = {"rows": tables[kernel][0], "line table bytes": tables[kernel][1],
                      "inline table bytes": int(inlines[kernel][0]) + int(inlines[kernel][1]),
                      "lookup, instructions a frame": round(float(lookups[kernel][0]))}
            return int(values[column]) if column in values else None

        check_doc_table(results, "line tables", doc[0], figure)


def check_benchmark(results):
    status, output = run_benchmark()
    check_text_sizes(results, output)
    check_undefined(results, output)
    check_lines(results, output)
    kernels, slopes = parse(output)
    fps = {build: walks.pop("frame-pointers") for build, walks in kernels.items()}
    starts = {build: walks.pop("walk-start", None) for build, walks in kernels.items()}
    ran = results.check("make bench builds and runs the five benchmark kernels (rv64 and rv32)",
                        status == 0 and measured_as_required(kernels, fps),
                        "exit %s\n%s" % (status, output[-3000:]))
    if not ran:
        return
    for build, walks_by_name in sorted(kernels.items()):
        for line in sorted("bench %s %s %s slope %d instr/frame" % ((build,) + key + (value,))
                           for key, value in slopes.get(build, {}).items()):
            info("  " + line)
        check_frames(results, "bench " + build, walks_by_name)
        symbols = next(iter(starts[build].values()))[1] if starts[build] else 1
        rv32 = build in RV32_BUILDS
        if build != BIG_BUILD:
            check_costs(results, build, walks_by_name, slopes.get(build, {}), symbols,
                        RV32_MAX_PER_FRAME if rv32 else MAX_PER_FRAME)
        check_walk_start(results, "bench " + build, starts[build], fps[build],
                         RV32_WALK_START_MAX if rv32 else WALK_START_MAX)
    check_many_functions(results, slopes, starts)
    check_speed_doc(results, slopes, starts)
    check_speed_prose(results, slopes, starts, {int(match.group(3)) for match in
                                        map(WALK_RE.match, output.splitlines()) if match})


def allocator_symbols(elf):
    names = set()
    for line in run([CROSS + "nm", elf]).stdout.splitlines():
        fields = line.split()
        if fields:
            names.add(fields[-1])
    return names & ALLOCATOR_SYMBOLS


def check_no_allocator(results, kernels_built):
    """nm must see the allocator where there is one (the benchmark kernels),
    and none in any demo kernel the end-to-end tests built (once
    kernels_built() returned)."""
    for elf in BENCH_KERNELS:
        results.check("nm finds the allocator in %s" % os.path.relpath(elf, ROOT),
                      os.path.exists(elf) and "malloc" in allocator_symbols(elf))
    kernels_built()
    kernels = sorted(glob.glob(os.path.join(TEST_BUILD, "*", "kernel.elf")))
    results.check("end-to-end kernels exist to check for an allocator", kernels != [])
    for elf in kernels:
        found = allocator_symbols(elf)
        results.check("%s links no allocator" % os.path.relpath(elf, ROOT), not found,
                      " ".join(sorted(found)))


def run_all(results: Results, kernels_built=lambda: None):
    """kernels_built: returns once the other tests' kernels are built
    (tests/run_tests.py runs them side by side)."""
    check_benchmark(results)
    check_no_allocator(results, kernels_built)

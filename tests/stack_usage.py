"""Worst-case stack use of each unwinder, from GCC's own figures: tracer/
is compiled as the demo kernel compiles it (rv64, gcc -O2, with and without
frame pointers) with -fcallgraph-info=su, which gives every function's frame
size and its calls. The worst case of a walk is the deepest path from
tracer_start(), tracer_next() or tracer_prepare() through the functions that
unwinder can reach. It must stay within the figure tracer.h states for that
unwinder (TRACER_STACK_*), which kernels use to size the stack a panic walks
on; tracer_function_range(), which holds a walk of its own, within
TRACER_STACK_PRINT. A raw capture (tracer_capture()) holds its walk in its own frame: its
deepest path must stay within the unwinder's figure plus
TRACER_STACK_CAPTURE; the one-call printer (tracer_print_backtrace()),
within it plus TRACER_STACK_PRINT, its put_line callback aside (the
caller's code: GCC's indirect-call placeholder).

The same for rv32 (-march=rv32imac_zicsr_zifencei -mabi=ilp32, -O2, with
and without frame pointers), against the rv32 column of docs/porting.md's
stack table: what rv32 ports may size their stacks by. tracer.h's figures
must hold there too, and the column must stay a measurement (at most
RV32_SLACK_PERCENT, or 16 bytes, above what rv32 needs).

The call graph must be closed and bounded: no recursion, no frame of
dynamic size, no call to a function outside tracer/ (a freestanding kernel
need not have memcpy).

The demo kernel's panic path sizes what a report takes of the panic stack
as the tracer's figures plus its own frames (kernel/panic.c,
PANIC_OWN_STACK): the deepest path from print_report() to its call of
tracer_print_backtrace(), plus the deepest path from put_line(), the
callback, down to the firmware call. Measured the same way, at every -O
level the kernel is built with, it must stay within that figure.
"""
import os
import re
import tempfile

from testlib import CROSS, ROOT, Results, info, run

FLAGS = ["-std=c11", "-O2", "-mcmodel=medany", "-ffreestanding", "-fno-builtin",
         "-fasynchronous-unwind-tables"]
# The library's two word sizes, each with tracer.h's figures for it.
ARCH_FLAGS = {"rv64": ["-march=rv64imac_zicsr_zifencei", "-mabi=lp64"],
              "rv32": ["-march=rv32imac_zicsr_zifencei", "-mabi=ilp32"]}
FRAME_POINTER_FLAGS = [["-fno-omit-frame-pointer"], ["-fomit-frame-pointer"]]
STEPS = {"frame_pointer_step", "dwarf_step", "prologue_step", "table_step", "table_run"}
# The unwinder, its tracer.h figure, and the steps its walk can reach (the
# table's: table_step, and table_run, its common frames' loop, which the
# capture runs for the table and auto only; the iterator takes that loop's
# step inline). The table
# unwinder's own figure holds for tables without interpreted rows, which
# reach the DWARF unwinder.
TABLE_STEPS = {"table_step", "table_run"}
UNWINDERS = [("frame pointer", "TRACER_STACK_FRAME_POINTER", {"frame_pointer_step"}),
             ("DWARF", "TRACER_STACK_DWARF", {"dwarf_step"}),
             ("prologue", "TRACER_STACK_PROLOGUE", {"prologue_step"}),
             ("table", "TRACER_STACK_TABLE", TABLE_STEPS),
             ("table, interpreted rows", "TRACER_STACK_DWARF", TABLE_STEPS | {"dwarf_step"}),
             ("auto", "TRACER_STACK_AUTO", STEPS)]
# GCC's node for a call through a pointer: the printer's put_line.
INDIRECT_CALL = "__indirect_call"
NODE_RE = re.compile(r'^node: \{ title: "([^"]+)" label: "[^"]*\\n(\d+) bytes \((\w+)\)"')
EDGE_RE = re.compile(r'^edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)"')


def call_graph(flags, directory, sources=None, arch="rv64"):
    """({function: (bytes, qualifier)}, {function: {callees}}, problems) of
    `sources` (default: tracer/*.c), compiled for `arch` with FLAGS and
    `flags`."""
    frames, calls, problems = {}, {}, []
    if sources is None:
        sources = sorted(os.path.join("tracer", f)
                         for f in os.listdir(os.path.join(ROOT, "tracer")) if f.endswith(".c"))
    for source in sources:
        base = os.path.join(directory, os.path.basename(source)[:-2])
        result = run([CROSS + "gcc"] + FLAGS + ARCH_FLAGS[arch] + flags +
                     ["-fcallgraph-info=su", "-Itracer", "-Ikernel", "-c", source,
                      "-o", base + ".o"])
        if result.returncode != 0:
            problems.append(result.stderr)
            continue
        for line in open(base + ".ci"):
            node, edge = NODE_RE.match(line), EDGE_RE.match(line)
            if node:
                frames[node.group(1)] = (int(node.group(2)), node.group(3))
            elif edge:
                calls.setdefault(edge.group(1), set()).add(edge.group(2))
    return frames, calls, problems


def deepest(function, frames, calls, excluded, path):
    """(bytes, [functions]) of the deepest path from function."""
    if function in path:
        raise ValueError("recursion: " + " -> ".join(path + [function]))
    if function not in frames:
        raise ValueError("call outside tracer/: " + " -> ".join(path + [function]))
    size, qualifier = frames[function]
    if qualifier != "static":
        raise ValueError("%s: frame of %s size" % (function, qualifier))
    best = (0, [])
    for callee in sorted(calls.get(function, ())):
        if callee not in excluded:
            best = max(best, deepest(callee, frames, calls, excluded, path + [function]),
                       key=lambda b: b[0])
    return size + best[0], [function] + best[1]


KERNEL_REPORT_SOURCES = ["kernel/panic.c", "kernel/console.c", "kernel/sbi.c"]
KERNEL_OPT_LEVELS = ["-O0", "-O2", "-Os"]


def deepest_path_to(function, target, frames, calls, path):
    """(bytes, [functions]) of the deepest path from function to a call of
    target, frames of target itself excluded; None if there is none."""
    if function in path or function not in frames:
        return None
    size = frames[function][0]
    best = (size, [function]) if target in calls.get(function, ()) else None
    for callee in sorted(calls.get(function, ())):
        below = deepest_path_to(callee, target, frames, calls, path + [function])
        if below and (best is None or size + below[0] > best[0]):
            best = (size + below[0], [function] + below[1])
    return best


def check_kernel_report_frames(results, directory):
    stated = re.search(r"#define PANIC_OWN_STACK (\d+)u",
                       open(os.path.join(ROOT, "kernel", "panic.c")).read())
    stated = int(stated.group(1)) if stated else None
    for opt in KERNEL_OPT_LEVELS:
        for flags in FRAME_POINTER_FLAGS:
            label = "stack use of the demo kernel's report (gcc %s %s)" % (opt, flags[0])
            # FLAGS' -O2 first, then this level: the last -O wins.
            frames, calls, problems = call_graph([opt] + flags, directory, KERNEL_REPORT_SOURCES)
            if not results.check(label + ": compiles with -fcallgraph-info=su", not problems,
                                 "\n".join(problems)):
                continue
            # GCC names a static function after its file.
            above = deepest_path_to("kernel/panic.c:print_report", "tracer_print_backtrace",
                                    frames, calls, [])
            try:
                below = deepest("kernel/panic.c:put_line", frames, calls, set(), [])
            except ValueError as error:
                results.check(label + ": put_line's call graph is bounded", False, str(error))
                continue
            total = (above[0] if above else 0) + below[0]
            path = (above[1] if above else []) + ["(tracer)"] + below[1]
            info("  %s: %d bytes: %s" % (label, total, " -> ".join(path)))
            results.check("%s: %d bytes, within panic.c's PANIC_OWN_STACK (%s)"
                          % (label, total, stated),
                          above is not None and stated is not None and total <= stated,
                          " -> ".join(path))


def stated_figures():
    header = open(os.path.join(ROOT, "tracer", "tracer.h")).read()
    return {name: int(value)
            for name, value in re.findall(r"#define (TRACER_STACK_\w+)\s+(\d+)u?", header)}


def check_unoptimized_factor(results, directory, stated):
    """The demo kernel counts the tracer's figures at FACTOR times tracer.h's
    when built without optimization (kernel/panic.c, TRACER_FIGURE): each
    unwinder's report path (tracer_print_backtrace) at -O0 must fit."""
    source = open(os.path.join(ROOT, "kernel", "panic.c")).read()
    factor = re.search(r"#define TRACER_FIGURE\(bytes\) \((\d+) \* \(bytes\) / (\d+)\)", source)
    if not results.check("kernel/panic.c states the -O0 factor of the tracer's figures",
                         factor is not None):
        return
    for flags in FRAME_POINTER_FLAGS:
        label = "stack use (rv64 gcc -O0 %s)" % flags[0]
        frames, calls, problems = call_graph(["-O0"] + flags, directory)
        if not results.check(label + ": tracer/ compiles", not problems, "\n".join(problems)):
            continue
        for name, macro, steps in UNWINDERS:
            printer = deepest("tracer_print_backtrace", frames, calls,
                              (STEPS - steps) | {INDIRECT_CALL}, [])
            limit = ((stated.get(macro, 0) + stated.get("TRACER_STACK_PRINT", 0))
                     * int(factor.group(1)) // int(factor.group(2)))
            results.check("%s %s printer: %d bytes, within panic.c's %s/%s of tracer.h's "
                          "(%d)" % (label, name, printer[0], factor.group(1), factor.group(2),
                                    limit),
                          printer[0] <= limit, " -> ".join(printer[1]))


# The line table's part of a walk (tracer_next() takes its places there):
# its checks and lookups, within TRACER_STACK_LINES.
LINES_ENTRIES = ("lines_arrays_check", "tracer_line_at", "tracer_inline_call_at")


def check_lines(results, label, frames, calls, stated, source):
    worst = max((deepest(entry, frames, calls, set(), []) for entry in LINES_ENTRIES),
                key=lambda b: b[0])
    info("  %s line table: %d bytes: %s" % (label, worst[0], " -> ".join(worst[1])))
    results.check("%s line table: %d bytes, within %s TRACER_STACK_LINES (%s)"
                  % (label, worst[0], source, stated.get("TRACER_STACK_LINES")),
                  worst[0] <= stated.get("TRACER_STACK_LINES", 0), " -> ".join(worst[1]))
    return {"TRACER_STACK_LINES": worst[0]}


def check_walks(results, label, frames, calls, stated, source):
    """Each unwinder's walk, capture and printer within the figures
    `stated` (from `source`); {macro: the bytes this build needs of it}
    (for TRACER_STACK_CAPTURE and _PRINT: over the unwinder's figure)."""
    needed = check_lines(results, label, frames, calls, stated, source)

    def need(macro, size):
        needed[macro] = max(needed.get(macro, 0), size)

    for name, macro, steps in UNWINDERS:
        excluded = STEPS - steps
        try:
            worst = max((deepest(entry, frames, calls, excluded, [])
                         for entry in ("tracer_start", "tracer_next", "tracer_prepare")),
                        key=lambda b: b[0])
            capture = deepest("tracer_capture", frames, calls, excluded, [])
            printer = deepest("tracer_print_backtrace", frames, calls,
                              excluded | {INDIRECT_CALL}, [])
        except ValueError as error:
            results.check("%s %s: the call graph is bounded" % (label, name), False,
                          str(error))
            continue
        info("  %s %s: %d bytes: %s" % (label, name, worst[0], " -> ".join(worst[1])))
        results.check("%s %s: %d bytes, within %s %s (%s)"
                      % (label, name, worst[0], source, macro, stated.get(macro)),
                      macro in stated and worst[0] <= stated[macro],
                      " -> ".join(worst[1]))
        need(macro, worst[0])
        for what, added, path in (("capture", "TRACER_STACK_CAPTURE", capture),
                                  ("printer", "TRACER_STACK_PRINT", printer)):
            limit = stated.get(macro, 0) + stated.get(added, 0)
            info("  %s %s %s: %d bytes (%d over %s): %s"
                 % (label, name, what, path[0], path[0] - stated.get(macro, 0), macro,
                    " -> ".join(path[1])))
            results.check("%s %s %s: %d bytes, within %s %s + %s (%d)"
                          % (label, name, what, path[0], source, macro, added, limit),
                          macro in stated and added in stated and path[0] <= limit,
                          " -> ".join(path[1]))
            need(added, path[0] - stated.get(macro, 0))
    # A port calls tracer_function_range() before the printer (for its trap
    # entry's range), which holds a walk's symbol lookup in its own frame:
    # it must fit in what the printer alone is given.
    lookup = deepest("tracer_function_range", frames, calls, set(), [])
    info("  %s function range: %d bytes: %s" % (label, lookup[0], " -> ".join(lookup[1])))
    results.check("%s tracer_function_range: %d bytes, within %s TRACER_STACK_PRINT (%s)"
                  % (label, lookup[0], source, stated.get("TRACER_STACK_PRINT")),
                  lookup[0] <= stated.get("TRACER_STACK_PRINT", 0), " -> ".join(lookup[1]))
    return needed


# docs/porting.md's table of the figures: tracer.h's (rv64, the figures
# the macros have) and the ones measured on rv32, which a port may size
# its stacks by there. The rv32 column must hold what the library needs
# (the same checks as tracer.h's) and stay a measurement: at most
# RV32_SLACK_PERCENT (or one 16-byte unit) above it; and within tracer.h's,
# which bounds both.
PORTING = os.path.join(ROOT, "docs", "porting.md")
STACK_ROW_RE = re.compile(r"^\s*\| `(TRACER_STACK_\w+)` \| (\d+) \| (\d+) \|", re.M)
RV32_SLACK_PERCENT = 10
RV32_SLACK_MIN = 16
# Where the docs state that slack: (file, pattern of its two figures).
RV32_SLACK_STATED = [(PORTING, r"no more than (\d+)% \(or (\d+) bytes\) less"),
                     (os.path.join(ROOT, "docs", "testing.md"),
                      r"within (\d+)%\s+\(or (\d+) bytes\) of what rv32 needs")]


def rv32_figures():
    return {name: int(rv32) for name, _, rv32 in STACK_ROW_RE.findall(open(PORTING).read())}


def check_rv32_column(results, figures, stated, needed):
    """The rv32 column: a row for every tracer.h figure, each within it,
    and close to what the rv32 builds needed."""
    results.check("porting.md's stack table has an rv32 figure for each of tracer.h's (%s)"
                  % sorted(figures), set(figures) == set(stated), sorted(stated))
    for macro, figure in sorted(figures.items()):
        most = needed.get(macro, 0) + max(RV32_SLACK_MIN,
                                          needed.get(macro, 0) * RV32_SLACK_PERCENT // 100)
        results.check("porting.md's rv32 %s, %d bytes: within tracer.h's (%s), and at most "
                      "%d%% (or %d bytes) above what rv32 needs (%s)"
                      % (macro, figure, stated.get(macro), RV32_SLACK_PERCENT, RV32_SLACK_MIN,
                         needed.get(macro)),
                      figure <= stated.get(macro, 0) and macro in needed and figure <= most)
    for path, pattern in RV32_SLACK_STATED:
        found = re.findall(pattern, open(path).read())
        results.check("%s states the rv32 column's slack, %d%% or %d bytes"
                      % (os.path.relpath(path, ROOT), RV32_SLACK_PERCENT, RV32_SLACK_MIN),
                      [tuple(map(int, f)) for f in found] ==
                      [(RV32_SLACK_PERCENT, RV32_SLACK_MIN)], found)


def run_all(results: Results):
    stated = stated_figures()
    with tempfile.TemporaryDirectory() as directory:
        check_kernel_report_frames(results, directory)
        check_unoptimized_factor(results, directory, stated)
        figures = {"rv64": (stated, "tracer.h's"), "rv32": (rv32_figures(), "porting.md's rv32")}
        for arch, (figures_of_arch, source) in figures.items():
            needed = {}
            for flags in FRAME_POINTER_FLAGS:
                label = "stack use (%s gcc -O2 %s)" % (arch, flags[0])
                frames, calls, problems = call_graph(flags, directory, arch=arch)
                if not results.check(label + ": tracer/ compiles with -fcallgraph-info=su",
                                     not problems, "\n".join(problems)):
                    continue
                for macro, size in check_walks(results, label, frames, calls, figures_of_arch,
                                               source).items():
                    needed[macro] = max(needed.get(macro, 0), size)
            if arch == "rv32":
                check_rv32_column(results, figures_of_arch, stated, needed)

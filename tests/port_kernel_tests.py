"""The port kernel (tests/port_kernel/, README.md there): a second,
deliberately different kernel, booted in QEMU under GDB for every scenario
and build. GDB's backtrace at each panic (and at the fault, through the
kernel's own trap vector) is the oracle a port of the tracer is compared
with; the GDB output of each boot is kept next to the kernel
(gdb-SCENARIO.txt).

Checked here, of GDB (the oracle itself):
  * each scenario panics with its message, and GDB's bt names the calls the
    scenario makes (hand-written below), each return address inside the
    function nm says holds it;
  * the fault: GDB's sepc/scause/stval equal what the kernel printed;
  * the pitfalls the kernel embodies for a port: every page after `end` is
    junk by the time it panics; its assembly entry points have no type.

And of the port (the tracer built in with symgen/tracer.mk; panic() prints
the trace of every unwinder, from one register capture), per build,
scenario and every unwinder the build supports (the frame pointer only with
frame pointers): its frames equal GDB's bt at panic() (frame 0 by name,
every other by return address and name); for the fault, the frames after
the trap line equal GDB's bt at the faulting instruction (pc exact) and the
trap line's cause/sepc/stval GDB's CSRs; chain and fault end at the
outermost frame (_entry); the system call ends at usertrap, "reached the
kernel entry from user mode" (GDB's user frame, outside the kernel, is not
the tracer's to show). And the mistake of issue 12's list, item 1: the
kernel's script with `INCLUDE tracer.ld` after `PROVIDE(end = .)` fails the
build with symgen's message naming `end`, and leaves no image.
"""
import functools
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import frame_lines  # noqa: E402
from e2e_tests import (CAUSE_NAMES, TRAP_RE, boot, compare_frames, parse_gdb,  # noqa: E402
                       parse_trace, source_name)
from testlib import CROSS, HOST_BUILD, ROOT, TEST_BUILD, Results, in_parallel, run  # noqa: E402

SYMGEN = os.path.join(HOST_BUILD, "symgen")

KERNEL_DIR = os.path.join(ROOT, "tests", "port_kernel")
# (label, make variables): gcc and clang at -O2, with and without frame
# pointers; every build has asynchronous unwind tables.
# The unwinders each build supports, by the names their trace headers use.
ALL_UNWINDERS = ["frame-pointer", "dwarf", "prologue", "auto", "table"]
# The Makefile's defaults (gcc, frame pointers): check_end_mistake starts
# from this build.
DEFAULTS = ["FP=1"]
NO_FP_UNWINDERS = ["dwarf", "prologue", "auto", "table"]
CONFIGS = [
    ("gcc-O2-fp1", DEFAULTS, ALL_UNWINDERS),
    ("gcc-O2-fp0", ["FP=0"], NO_FP_UNWINDERS),
    ("clang-O2-fp0", ["CC=clang", "FP=0"], NO_FP_UNWINDERS),
    # symgen/tracer.mk building only some unwinders (TRACER_UNWINDERS): the
    # others' traces end at once, saying so (UNLINKED_END).
    ("gcc-O2-fp1-frame-pointer-table", ["FP=1", "TRACER_UNWINDERS=frame-pointer table"],
     ["frame-pointer", "table", "auto"]),
]
UNLINKED = {"gcc-O2-fp1-frame-pointer-table": ["dwarf", "prologue"]}
UNLINKED_END = "unwinder not linked into this kernel"
# The real frames the scenario's code makes, newest first; "name?" is a
# static function called once, which the compiler may inline into its
# caller (GDB then shows the caller's frame only).
USER = "(user)"  # a frame whose pc is outside the kernel's text: the user program
SCENARIOS = {
    "chain": {
        "gdb": "stop_at_panic()",
        "console": ["panic: ramdisk_rw: block out of range"],
        "panic": ["panic", "ramdisk_rw", "bget?", "bread", "fsinit", "kmain", "_entry"],
        "end": "reached the outermost frame",
    },
    "fault": {
        "gdb": "stop_at_trap('kernelvec')",
        "console": ["panic: kerneltrap"],
        "trap": ["kalloc", "allocproc?", "userinit", "kmain", "_entry"],
        # GDB's unwind stops in the vector: it saved no pc (the tracer's
        # trap layout is what goes further).
        "panic": ["panic", "kerneltrap", "kernelvec"],
        "end": "reached the outermost frame",
    },
    "syscall": {
        "gdb": "stop_at_panic()",
        "console": ["init: hello from user mode", "panic: init exiting"],
        "end": "reached the kernel entry from user mode",
        # usertrap was entered by a jump from uservec: its return address
        # is the user program's ra.
        "panic": ["panic", "exit", "sys_exit", "syscall", "usertrap", USER],
    },
}
ASM_ENTRIES = ["_entry", "kernelvec", "uservec", "userret"]
# kfree() fills each freed page with 1s (its first word is the free-list link).
JUNK_WORD = 0x0101010101010101
# GDB reads the second word of the first page at or above `end`.
JUNK_PROBE = ("print('JUNK 0x%x' % (int(gdb.parse_and_eval("
              "'*(unsigned long *)((((unsigned long)&end + 4095) & ~4095ul) + 8)')) "
              "& 0xFFFFFFFFFFFFFFFF))")


def build(results, label, variables):
    build_dir = os.path.join(TEST_BUILD, "port_kernel", label)
    # make test's symgen (the same sources: 5 s of CPU each saved); that
    # symgen/tracer.mk builds its own, as a port's first build does, is
    # symgen_tests' check_make_fragment.
    variables = variables + ["TRACER_SYMGEN=" + SYMGEN]
    result = run(["make", "-s", "-C", KERNEL_DIR, "BUILD=" + build_dir] + variables, timeout=300)
    ok = results.check("port kernel: build %s (%s)" % (label, " ".join(variables)),
                       result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:])
    return os.path.join(build_dir, "kernel.elf") if ok else None


def text_symbols(elf):
    """[(address, name)] of the text symbols, sorted, as nm lists them,
    and the end of the text (etext)."""
    symbols, etext = [], None
    for line in run([CROSS + "nm", "-n", elf]).stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TtWw":
            symbols.append((int(parts[0], 16), parts[2]))
        if len(parts) == 3 and parts[2] == "etext":
            etext = int(parts[0], 16)
    return symbols, etext


def nm_name(symbols, etext, pc):
    """The text symbol holding pc (the last one at or below it), or None
    outside the text."""
    if etext is None or not symbols or pc < symbols[0][0] or pc >= etext:
        return None
    return [name for address, name in symbols if address <= pc][-1]


def frame_problems(frames, expected, symbols, etext):
    """Differences between GDB's [(pc, name)] and the expected names."""
    names = [source_name(name) for _, name in frames]
    wanted = [name.rstrip("?") for name in expected
              if not name.endswith("?") or name.rstrip("?") in names]
    problems = []
    if len(names) != len(wanted):
        problems.append("GDB shows %d frames, the scenario makes %d" % (len(names), len(wanted)))
    for i, ((pc, name), want) in enumerate(zip(frames, wanted)):
        # A return address may be the first byte after its call's function
        # (a call that does not return): look up the call, as GDB does.
        holder = nm_name(symbols, etext, pc if i == 0 else pc - 1)
        if want == USER:
            if holder is not None:
                problems.append("frame %d: pc 0x%x is in the kernel (%s), not the user program"
                                % (i, pc, holder))
        elif source_name(name) != want:
            problems.append("frame %d: GDB %s, expected %s" % (i, name, want))
        elif holder is None or source_name(holder) != want:
            problems.append("frame %d: pc 0x%x is in %s by nm, GDB says %s"
                            % (i, pc, holder, name))
    if problems:
        problems += ["GDB: " + " ".join("0x%x %s" % f for f in frames)]
    return problems


def tracer_traces(console, trap_re=TRAP_RE):
    """{unwinder name: parse_trace() of its trace}, one per header line
    (trap_re: the trap line's form, e2e_tests.parse_trace)."""
    traces, section = {}, None
    for line in console.splitlines(keepends=True):
        header = re.match(r"Call Trace \((.+) unwinder\):", line)
        if header:
            section = traces.setdefault(header.group(1), [])
        if section is not None:
            section.append(line)
    return {name: parse_trace("".join(lines), trap_re) for name, lines in traces.items()}


def check_traces(results, name, console, frames, trap, unwinders, unlinked, symbols, etext,
                 spec, places):
    """The port's traces, each unwinder's against GDB's (module docstring);
    places: frame_lines.gdb_places() of the same session."""
    traces = tracer_traces(console)
    # panic() prints every unwinder's; those the build does not support
    # (the frame pointer without frame pointers) are not compared.
    results.check(name + ": a trace from every unwinder", sorted(traces) == sorted(ALL_UNWINDERS),
                  str(sorted(traces)))
    # GDB's user frame (the user program's ra, above usertrap) is outside
    # the kernel: the walk ends before it.
    in_kernel = [nm_name(symbols, etext, f[0] if i == 0 else f[0] - 1) is not None
                 for i, f in enumerate(frames["panic"])]
    gdb_panic = [f for f, inside in zip(frames["panic"], in_kernel) if inside]
    places_panic = [p for p, inside in zip(places.get("panic", []), in_kernel) if inside]
    for unwinder in unlinked:
        trace = traces.get(unwinder)
        results.check("%s unwinder=%s: not linked, its trace ends at once, saying so"
                      % (name, unwinder),
                      trace is not None and trace["end"] == UNLINKED_END
                      and len(trace["before"]) == 1 and trace["trap"] is None, str(trace))
    for unwinder in unwinders:
        trace = traces.get(unwinder)
        label = "%s unwinder=%s" % (name, unwinder)
        if not results.check(label + ": a complete trace", trace is not None
                             and trace["end"] is not None and not trace["bad"],
                             str(trace)):
            continue
        results.check(label + ": walk ended: " + spec["end"], trace["end"] == spec["end"],
                      trace["end"])
        problems = compare_frames(trace["before"], gdb_panic, False)
        results.check(label + ": frames up to the trap entry equal GDB's bt at panic()",
                      not problems, "\n".join(problems))
        problems = frame_lines.differences(trace["before"], trace["places_before"],
                                           places_panic, False)
        results.check(label + ": their file:line and inlined calls equal GDB's",
                      not problems, "\n".join(problems))
        if "trap" not in spec:
            results.check(label + ": no trap line", trace["trap"] is None, str(trace["trap"]))
            continue
        sepc, scause, stval = trap
        results.check(label + ": trap line's cause/sepc/stval equal GDB's CSRs",
                      trace["trap"] == (CAUSE_NAMES.get(scause), sepc, stval),
                      "tracer %s, GDB scause=%d sepc=0x%x stval=0x%x"
                      % (trace["trap"], scause, sepc, stval))
        problems = compare_frames(trace["after"], frames.get("trap", []), True)
        results.check(label + ": frames after the trap line equal GDB's bt at the faulting pc",
                      not problems, "\n".join(problems))
        problems = frame_lines.differences(trace["after"], trace["places_after"],
                                           places.get("trap", []), True)
        results.check(label + ": their file:line and inlined calls equal GDB's",
                      not problems, "\n".join(problems))


def check_scenario(results, label, elf, symbols, etext, scenario, spec, unwinders):
    name = "port kernel %s scenario=%s" % (label, scenario)
    console, gdb_out, problem = boot(elf, "scenario=" + scenario,
                                     spec["gdb"] + "; " + JUNK_PROBE)
    with open(os.path.join(os.path.dirname(elf), "gdb-%s.txt" % scenario), "w") as f:
        f.write(gdb_out)
    frames, trap = parse_gdb(gdb_out)
    places = frame_lines.gdb_places(gdb_out)
    if not results.check(name + ": QEMU and GDB ran, the kernel panicked",
                         problem is None and "panic" in frames
                         and all(line in console for line in spec["console"]),
                         "problem: %s\nconsole tail:\n%s\nGDB:\n%s"
                         % (problem, console[-1500:], gdb_out[-1500:])):
        return
    for side in ("trap", "panic"):
        if side not in spec:
            continue
        problems = frame_problems(frames.get(side, []), spec[side], symbols, etext)
        results.check("%s: GDB's bt at %s names the scenario's calls" % (name, side),
                      not problems, "\n".join(problems))
    if "trap" in spec:
        printed = re.search(r"scause 0x([0-9a-f]+) sepc 0x([0-9a-f]+) stval 0x([0-9a-f]+)", console)
        kernel = printed and (int(printed.group(2), 16), int(printed.group(1), 16),
                              int(printed.group(3), 16))
        results.check(name + ": a load access fault; GDB's sepc/scause/stval equal the kernel's",
                      trap is not None and trap[1] == 5 and kernel == trap,
                      "GDB %s, kernel printed %s" % (trap, printed and printed.group(0)))
    if "trap" not in spec or trap is not None:
        check_traces(results, name, console, frames, trap, unwinders, UNLINKED.get(label, []),
                     symbols, etext, spec, places)
    junk = re.search(r"^JUNK 0x([0-9a-f]+)$", gdb_out, re.M)
    results.check(name + ": the page after `end` is junk at the panic (kinit freed it)",
                  junk is not None and int(junk.group(1), 16) == JUNK_WORD,
                  junk.group(0) if junk else gdb_out[-800:])


def check_untyped_entries(results, label, elf):
    """The assembly entry points are NOTYPE symbols, as in many kernels."""
    types = {}
    for line in run([CROSS + "readelf", "-sW", elf]).stdout.splitlines():
        parts = line.split()
        if len(parts) == 8 and parts[7] in ASM_ENTRIES:
            types[parts[7]] = parts[3]
    results.check("port kernel %s: assembly entry points have no type" % label,
                  types == {name: "NOTYPE" for name in ASM_ENTRIES}, str(types))


def check_end_mistake(results, built_like):
    """Issue 12, mistake 1: the kernel's own script with `INCLUDE tracer.ld`
    after `PROVIDE(end = .)`, where kinit() would free and junk the tables:
    symgen fails the build, naming `end` at the address nm gives it in the
    first link, and the build leaves no image. The build starts from the
    objects of built_like, a build with the Makefile's defaults (the same
    flags): only the links are made again."""
    build_dir = os.path.join(TEST_BUILD, "port_kernel", "end-mistake")
    shutil.rmtree(build_dir, ignore_errors=True)
    shutil.copytree(built_like, build_dir,
                    ignore=shutil.ignore_patterns("kernel*.elf*", "*.txt", "console-*"))
    script = open(os.path.join(KERNEL_DIR, "kernel.ld")).read()
    include = "\tINCLUDE tracer.ld\n"
    wrong = script.replace(include, "").replace("PROVIDE(end = .);", "PROVIDE(end = .);\n" + include)
    script_path = os.path.join(build_dir, "kernel.ld")
    with open(script_path, "w") as f:
        f.write(wrong)
    elf = os.path.join(build_dir, "kernel.elf")
    # An image from an earlier build must not survive (older than its
    # sources: make relinks).
    open(elf, "w").close()
    os.utime(elf, (0, 0))
    result = run(["make", "-s", "-C", KERNEL_DIR, "BUILD=" + build_dir,
                  "TRACER_LDSCRIPT=" + script_path, "TRACER_SYMGEN=" + SYMGEN], timeout=300)
    stage1 = os.path.join(build_dir, "kernel.stage1.elf")
    nm = {parts[2]: int(parts[0], 16) for parts in
          (line.split() for line in run([CROSS + "nm", stage1]).stdout.splitlines())
          if len(parts) == 3} if os.path.exists(stage1) else {}
    wanted = "`end` (0x%x) lies below the end of the tracer's tables" % nm.get("end", 0)
    results.check("port kernel: `INCLUDE tracer.ld` after `end` fails the build, "
                  "symgen names `end`, no image",
                  include in script and wrong != script and result.returncode != 0
                  and "end" in nm and nm["end"] < nm.get("__tracer_symtab_end", 0)
                  and wanted in result.stderr
                  and not os.path.exists(elf) and not os.path.exists(elf + ".tmp"),
                  "exit %d, expected %r in:\n%s" % (result.returncode, wanted,
                                                     result.stderr[-1500:]))


def check_config(results, label, variables, unwinders):
    elf = build(results, label, variables)
    if not elf:
        return
    if variables == DEFAULTS:
        check_end_mistake(results, os.path.dirname(elf))
    check_untyped_entries(results, label, elf)
    symbols, etext = text_symbols(elf)
    for scenario, spec in SCENARIOS.items():
        check_scenario(results, label, elf, symbols, etext, scenario, spec, unwinders)


def run_all(results: Results):
    """A thread per build (each in a directory of its own); the end
    mistake after the build it starts from."""
    in_parallel([functools.partial(check_config, results, label, variables, unwinders)
                 for label, variables, unwinders in CONFIGS])


if __name__ == "__main__":
    results = Results()
    run_all(results)
    print("%d passed, %d failed" % (results.passed, results.failed))
    sys.exit(1 if results.failed else 0)

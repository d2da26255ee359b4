"""The port kernel (tests/port_kernel/, README.md there): a second,
deliberately different kernel, booted in QEMU under GDB for every scenario
and build. GDB's backtrace at each panic (and at the fault, through the
kernel's own trap vector) is the oracle a port of the tracer is compared
with; the GDB output of each boot is kept next to the kernel
(gdb-SCENARIO.txt).

Checked here, without the tracer:
  * each scenario panics with its message, and GDB's bt names the calls the
    scenario makes (hand-written below), each return address inside the
    function nm says holds it;
  * the fault: GDB's sepc/scause/stval equal what the kernel printed;
  * the pitfalls the kernel embodies for a port: every page after `end` is
    junk by the time it panics; its assembly entry points have no type.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from e2e_tests import boot, parse_gdb, source_name  # noqa: E402
from testlib import CROSS, ROOT, TEST_BUILD, Results, run  # noqa: E402

KERNEL_DIR = os.path.join(ROOT, "tests", "port_kernel")
# (label, make variables): gcc and clang at -O2, with and without frame
# pointers; every build has asynchronous unwind tables.
CONFIGS = [
    ("gcc-O2-fp1", ["FP=1"]),
    ("gcc-O2-fp0", ["FP=0"]),
    ("clang-O2-fp1", ["CC=clang", "FP=1"]),
    ("clang-O2-fp0", ["CC=clang", "FP=0"]),
]
# The real frames the scenario's code makes, newest first; "name?" is a
# static function called once, which the compiler may inline into its
# caller (GDB then shows the caller's frame only).
USER = "(user)"  # a frame whose pc is outside the kernel's text: the user program
SCENARIOS = {
    "chain": {
        "gdb": "stop_at_panic()",
        "console": ["panic: ramdisk_rw: block out of range"],
        "panic": ["panic", "ramdisk_rw", "bget?", "bread", "fsinit", "kmain", "_entry"],
    },
    "fault": {
        "gdb": "stop_at_trap('kernelvec')",
        "console": ["panic: kerneltrap"],
        "trap": ["kalloc", "allocproc?", "userinit", "kmain", "_entry"],
        # GDB's unwind stops in the vector: it saved no pc (the tracer's
        # trap layout is what goes further).
        "panic": ["panic", "kerneltrap", "kernelvec"],
    },
    "syscall": {
        "gdb": "stop_at_panic()",
        "console": ["init: hello from user mode", "panic: init exiting"],
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


def check_scenario(results, label, elf, symbols, etext, scenario, spec):
    name = "port kernel %s scenario=%s" % (label, scenario)
    console, gdb_out, problem = boot(elf, "scenario=" + scenario,
                                     spec["gdb"] + "; " + JUNK_PROBE)
    with open(os.path.join(os.path.dirname(elf), "gdb-%s.txt" % scenario), "w") as f:
        f.write(gdb_out)
    frames, trap = parse_gdb(gdb_out)
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


def run_all(results: Results):
    for label, variables in CONFIGS:
        elf = build(results, label, variables)
        if not elf:
            continue
        check_untyped_entries(results, label, elf)
        symbols, etext = text_symbols(elf)
        for scenario, spec in SCENARIOS.items():
            check_scenario(results, label, elf, symbols, etext, scenario, spec)


if __name__ == "__main__":
    results = Results()
    run_all(results)
    print("%d passed, %d failed" % (results.passed, results.failed))
    sys.exit(1 if results.failed else 0)

"""The RTOS kernel (tests/rtos_kernel/, README.md there): an rv32 machine-mode
kernel in the shape of a FreeRTOS port, booted in QEMU (-bios none) under
GDB for every scenario and build. GDB sets the scenario (the kernel's
`scenario` word) before the kernel runs; its backtraces at panic() and at
the trap are the oracle; its output of each boot is kept next to the kernel
(gdb-SCENARIO.txt).

Checked here, of GDB (the oracle itself):
  * each scenario panics with its message, and GDB's bt names the calls the
    scenario makes (hand-written below), each return address inside the
    function nm says holds it;
  * the traps: GDB's mcause is the scenario's (a load access fault, the
    machine timer), and for a fault its mepc/mcause/mtval equal what the
    kernel printed.

And of the port (the tracer built in with symgen/tracer.mk; panic() prints
the trace of every unwinder, from one register capture), per build,
scenario and every unwinder the build supports (the frame pointer only with
frame pointers): its frames equal GDB's bt at panic() (frame 0 by name,
every other by return address and name), with GDB's file:line and inlined
calls; after a trap, the trap line's cause/mepc/mtval equal GDB's CSRs at
the vector (the cause by the privileged spec's name) and the frames after it
GDB's bt at the interrupted instruction (pc exact), up to the task's
function: the walk ends "reached the outermost frame" there (GDB's pc 0
frame above it is the task's ra = 0, outside the kernel). The fault in the
tick handler is a trap inside a trap: config.trap_frame describes the
innermost only, and the walk ends at the outer one (OUTER_TRAP_END).

And of symgen/tracer.mk's default link command: the kernel's Makefile puts
its -march in CFLAGS and LDFLAGS, and each link names it once.

And of a ROM/RAM link (docs/porting.md, "Text in ROM, data in RAM"): the
first build's objects, with one of initialized data, linked by
tests/rtos_kernel/kernel_rom.ld through symgen's two links and check;
readelf must show the code, the read-only data and the tracer's tables in
ROM, .data and .bss in RAM, and .data's load image in ROM below the tables
(so that nothing in ROM moves when the tables grow). Not booted. The same
script with RAM first in MEMORY puts the tables in RAM, 1.5 GiB from the
code: symgen must fail the build, as the guide says ("span too much address
space"), and leave no image.
"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import frame_lines  # noqa: E402
from cfi_differential import parse_interp  # noqa: E402
from e2e_tests import MACHINE_TRAP_RE, boot, compare_frames, parse_gdb  # noqa: E402
from port_kernel_tests import (USER, frame_problems, nm_name, text_symbols,  # noqa: E402
                               tracer_traces)
from testlib import CROSS, HOST_BUILD, ROOT, TEST_BUILD, Results, in_parallel, run  # noqa: E402

SYMGEN = os.path.join(HOST_BUILD, "symgen")
KERNEL_DIR = os.path.join(ROOT, "tests", "rtos_kernel")
ALL_UNWINDERS = ["frame-pointer", "dwarf", "prologue", "auto", "table"]
NO_FP_UNWINDERS = ["dwarf", "prologue", "auto", "table"]
# (label, make variables, unwinders compared): gcc, every build with
# asynchronous unwind tables.
CONFIGS = [
    ("gcc-O2-fp1", ["FP=1"], ALL_UNWINDERS),
    ("gcc-O2-fp0", ["FP=0"], NO_FP_UNWINDERS),
]
ARCH_FLAG = "-march=rv32imac_zicsr"
# The privileged spec's mcause values.
LOAD_ACCESS_FAULT = 5
MACHINE_TIMER = (1 << 31) | 7
CAUSE_NAMES = {LOAD_ACCESS_FAULT: "load access fault", MACHINE_TIMER: "machine timer interrupt"}
# main.c's FAIL_TICK: the tick the tick scenarios fail at. Ticks switch
# between the two tasks, a first: tick 3 interrupts task b.
FAIL_TICK = 3
OUTERMOST = "reached the outermost frame"
# The walk after the nested fault's frames: the tick's own trap frame is
# on task b's stack, and only the innermost is config.trap_frame's.
OUTER_TRAP_END = "trap frame holds no saved mepc/mcause/mtval"
GDB_TRAP = ("gdb.execute('set var scenario = %d'); "
            "stop_at_trap('trap_vector', %r, MACHINE_CSRS)")
# The real frames the scenario's code makes, newest first; "name?" a
# function the compiler may inline into its caller or leave by a tail call
# (GDB then does not show it).
TICK = ["tick_hook?", "tick_handler", "trap_handler?", "trap_vector"]
CHAIN = ["fail_level3", "fail_level2", "fail_level1"]
SCENARIOS = {
    "task-panic": {
        "number": 0,
        "gdb": "gdb.execute('set var scenario = 0'); stop_at_panic()",
        "message": "panic: fail_level3: giving up",
        "panic": ["panic"] + CHAIN + ["task_a"],
        "end": OUTERMOST,
    },
    "task-fault": {
        "number": 1,
        "gdb": GDB_TRAP % (1, "$mcause >= 0"),
        "message": "panic: unexpected trap",
        "cause": LOAD_ACCESS_FAULT,
        "trap": ["read_no_device"] + CHAIN + ["task_a"],
        "panic": ["panic", "trap_handler", "trap_vector"],
        "end": OUTERMOST,
    },
    "tick-panic": {
        "number": 2,
        "gdb": GDB_TRAP % (2, "$mcause < 0 && ticks == %d" % FAIL_TICK),
        "message": "panic: fail_level3: giving up",
        "cause": MACHINE_TIMER,
        "trap": ["work?", "task_b"],
        "panic": ["panic"] + CHAIN + TICK,
        "end": OUTERMOST,
    },
    "tick-fault": {
        "number": 3,
        "gdb": GDB_TRAP % (3, "$mcause >= 0"),
        "message": "panic: unexpected trap",
        "cause": LOAD_ACCESS_FAULT,
        "trap": ["read_no_device"] + CHAIN + TICK,
        "panic": ["panic", "trap_handler", "trap_vector"],
        "end": OUTER_TRAP_END,
    },
}


def qemu_argv(elf, args, harts):
    """Machine mode from reset: no firmware, the kernel at 0x80000000."""
    return ["qemu-system-riscv32", "-machine", "virt", "-smp", str(harts), "-nographic",
            "-bios", "none", "-kernel", elf]


# kernel_rom.ld's regions: QEMU virt's flash, and RAM.
ROM = (0x20000000, 0x20000000 + 32 * 1024 * 1024)
RAM = (0x80000000, 0x80000000 + 128 * 1024 * 1024)
ROM_SECTIONS = [".text", ".rodata", ".eh_frame", ".tracer_symtab"]
RAM_SECTIONS = [".data", ".bss"]
# Initialized data, which the kernel has none of: its load image goes to ROM.
ROM_DATA_SOURCE = "int rom_test_counter = 5;\nint rom_test_table[64] = {1, 2, 3};\n"
SECTION_RE = re.compile(r"^\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s",
                        re.M)
LOAD_RE = re.compile(r"^\s*LOAD\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)",
                     re.M)


RAM_FIRST_ERROR = "span too much address space"


def check_ram_first(results, rom_dir, make, objects):
    """kernel_rom.ld with its two regions swapped: the tables (in no region
    of their own) go to the first that fits, RAM, and symgen refuses."""
    script = open(os.path.join(KERNEL_DIR, "kernel_rom.ld")).read()
    rom, ram = (re.search(r"^\t%s \(.*\n" % name, script, re.M).group(0) for name in ("ROM", "RAM"))
    swapped = os.path.join(rom_dir, "kernel_ram_first.ld")
    with open(swapped, "w") as out:
        out.write(script.replace(rom + ram, ram + rom))
    work = os.path.join(rom_dir, "ram_first")
    elf = os.path.join(work, "kernel.elf")
    linked = run(make + ["-s", "TRACER_LDSCRIPT=" + swapped, "TRACER_ELF=" + elf,
                         "TRACER_WORK=" + work, "TRACER_BUILD_LIB=no",
                         "OBJS=" + " ".join(objects), elf], timeout=120)
    results.check("rtos kernel, kernel_rom.ld with RAM first: symgen fails the build (\"%s\"), "
                  "no image" % RAM_FIRST_ERROR, script != open(swapped).read() and
                  linked.returncode != 0 and RAM_FIRST_ERROR in linked.stderr and
                  not os.path.exists(elf), linked.stdout[-1000:] + linked.stderr[-1000:])


def check_rom_link(results, build_dir, make):
    """The kernel's objects (the kernel's and the tracer's, of build_dir)
    and one of initialized data, linked by kernel_rom.ld into build_dir/rom:
    symgen's two links and its check pass, and readelf places every section
    as the port guide says."""
    rom_dir = os.path.join(build_dir, "rom")
    os.makedirs(rom_dir, exist_ok=True)
    data = os.path.join(rom_dir, "rom_data")
    with open(data + ".c", "w") as source:
        source.write(ROM_DATA_SOURCE)
    compiled = run([CROSS + "gcc", ARCH_FLAG, "-mabi=ilp32", "-O2", "-c", data + ".c",
                    "-o", data + ".o"])
    objects = ([os.path.join(build_dir, name + ".o")
                for name in ("start", "portasm", "main", "tasks", "console")]
               + sorted(glob.glob(os.path.join(build_dir, "tracer", "*.o"))) + [data + ".o"])
    elf = os.path.join(rom_dir, "kernel.elf")
    linked = run(make + ["-s", "TRACER_LDSCRIPT=kernel_rom.ld", "TRACER_ELF=" + elf,
                         "TRACER_WORK=" + rom_dir, "TRACER_BUILD_LIB=no",
                         "OBJS=" + " ".join(objects), elf], timeout=120)
    if not results.check("rtos kernel: linked by kernel_rom.ld (text in ROM, data in RAM), "
                         "symgen's two links and check", compiled.returncode == 0 and
                         linked.returncode == 0 and os.path.exists(elf),
                         compiled.stderr + linked.stdout[-2000:] + linked.stderr[-2000:]):
        return
    sections = {name: (int(address, 16), int(size, 16)) for name, address, size in
                SECTION_RE.findall(run([CROSS + "readelf", "-SW", elf]).stdout)}
    loads = [tuple(int(v, 16) for v in load)
             for load in LOAD_RE.findall(run([CROSS + "readelf", "-lW", elf]).stdout)]
    for names, (start, end), region in ((ROM_SECTIONS, ROM, "ROM"), (RAM_SECTIONS, RAM, "RAM")):
        for name in names:
            address, size = sections.get(name, (None, 0))
            results.check("rtos kernel, kernel_rom.ld: %s in %s (readelf: %s, %d bytes)"
                          % (name, region, address and hex(address), size),
                          address is not None and size > 0 and
                          start <= address and address + size <= end)
    data_address, data_size = sections.get(".data", (None, 0))
    data_load = next((physical for virtual, physical, _ in loads if virtual == data_address),
                     None)
    tables = sections.get(".eh_frame", (None, 0))[0]
    results.check("rtos kernel, kernel_rom.ld: .data's load image in ROM, below the tables "
                  "(load address %s, %d bytes; .eh_frame at %s)"
                  % (data_load and hex(data_load), data_size, tables and hex(tables)),
                  data_load is not None and tables is not None and ROM[0] <= data_load and
                  data_load + data_size <= tables)
    check_ram_first(results, rom_dir, make, objects)


def build(results, label, variables):
    build_dir = os.path.join(TEST_BUILD, "rtos_kernel", label)
    make = ["make", "-C", KERNEL_DIR, "BUILD=" + build_dir, "TRACER_SYMGEN=" + SYMGEN] + variables
    result = run(make + ["-s"], timeout=300)
    ok = results.check("rtos kernel: build %s (%s)" % (label, " ".join(variables)),
                       result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:])
    if ok and label == CONFIGS[0][0]:
        # The commands a change of the linker script would run (-n: shown,
        # not run).
        links = [line for line in run(make + ["-n", "-W", "kernel.ld"]).stdout.splitlines()
                 if "-T kernel.ld" in line]
        results.check("rtos kernel: symgen/tracer.mk's two links name %s (in CFLAGS and "
                      "LDFLAGS) once" % ARCH_FLAG,
                      len(links) == 2 and all(line.split().count(ARCH_FLAG) == 1
                                              for line in links), "\n".join(links))
        check_rom_link(results, build_dir, make)
    return os.path.join(build_dir, "kernel.elf") if ok else None


def cfa_on_s0(elf, pc):
    """Whether the CFI (readelf's interpreted .eh_frame, which GDB reads too,
    through cfi_differential's parser) puts the CFA of the code at pc on s0:
    the frame built, outside its prologue and epilogue. None where no FDE
    covers pc."""
    tables, _ = parse_interp(run([CROSS + "readelf", "--debug-dump=frames-interp", elf]).stdout)
    for table in tables.values():
        if table.kind == "FDE" and int(table.fields[1], 16) <= pc < int(table.fields[2], 16):
            cfas = [cfa for loc, cfa, _ in table.rows if loc <= pc]
            return cfas[-1].startswith("s0") if cfas else None
    return None


def check_unbuilt_frame(results, label, trace, gdb_frames):
    """The frame-pointer walk from a trap in a prologue or an epilogue, where
    s0 is not the interrupted function's frame (docs/design.md, "Limits"):
    its caller may be missing, never another frame; and then the walk may
    stop early, but never at "the outermost frame"."""
    shown = trace["after"]
    whole = compare_frames(shown, gdb_frames[:len(shown)], True)
    missing = compare_frames(shown, (gdb_frames[:1] + gdb_frames[2:])[:len(shown)], True)
    problems = ["no frame"] if not shown else missing if whole else []
    if trace["end"] == OUTERMOST and (whole or len(shown) < len(gdb_frames)):
        problems.append("ended at the outermost frame with a frame missing")
    results.check(label + ": trapped where the frame is not built (CFA not on s0): GDB's "
                  "frames but the caller, in order, and no false outermost claim",
                  not problems, "\n".join(problems))


def check_traces(results, name, console, frames, places, trap, spec, unwinders, frame_built):
    traces = tracer_traces(console, MACHINE_TRAP_RE)
    results.check(name + ": a trace from every unwinder", sorted(traces) == sorted(ALL_UNWINDERS),
                  str(sorted(traces)))
    for unwinder in unwinders:
        trace = traces.get(unwinder)
        label = "%s unwinder=%s" % (name, unwinder)
        if not results.check(label + ": a complete trace", trace is not None
                             and trace["end"] is not None and not trace["bad"], str(trace)):
            continue
        unbuilt = unwinder == "frame-pointer" and frame_built is False
        if not unbuilt:
            results.check(label + ": walk ended: " + spec["end"], trace["end"] == spec["end"],
                          trace["end"])
        check_segment(results, label, "frames up to the trap entry equal GDB's bt at panic()",
                      trace["before"], trace["places_before"], frames["panic"],
                      places["panic"], False)
        if "trap" not in spec:
            results.check(label + ": no trap line", trace["trap"] is None, str(trace["trap"]))
            continue
        mepc, mcause, mtval = trap
        results.check(label + ": trap line's cause/mepc/mtval equal GDB's CSRs",
                      trace["trap"] == (CAUSE_NAMES.get(mcause), mepc, mtval),
                      "tracer %s, GDB mcause=0x%x mepc=0x%x mtval=0x%x"
                      % (trace["trap"], mcause, mepc, mtval))
        if unbuilt:
            check_unbuilt_frame(results, label, trace, frames["trap"])
            continue
        check_segment(results, label, "frames after the trap line equal GDB's bt at the "
                      "trapped pc", trace["after"], trace["places_after"], frames["trap"],
                      places["trap"], True)


def check_segment(results, label, what, frames, places, gdb_frames, gdb_places, from_trap):
    """A part of a trace against GDB's bt: its frames (function and pc), then their
    file:line and inlined calls."""
    problems = compare_frames(frames, gdb_frames, from_trap)
    results.check(label + ": " + what, not problems, "\n".join(problems))
    problems = frame_lines.differences(frames, places, gdb_places, from_trap)
    results.check(label + ": their file:line and inlined calls equal GDB's",
                  not problems, "\n".join(problems))


def check_scenario(results, label, elf, symbols, etext, scenario, spec, unwinders):
    name = "rtos kernel %s scenario=%s" % (label, scenario)
    console, gdb_out, problem = boot(elf, "scenario=" + scenario, spec["gdb"], qemu=qemu_argv)
    with open(os.path.join(os.path.dirname(elf), "gdb-%s.txt" % scenario), "w") as f:
        f.write(gdb_out)
    all_frames, trap = parse_gdb(gdb_out)
    all_places = frame_lines.gdb_places(gdb_out)
    sides = [side for side in ("trap", "panic") if side in spec]
    if not results.check(name + ": QEMU and GDB ran, the kernel panicked",
                         problem is None and all(side in all_frames for side in sides)
                         and spec["message"] in console,
                         "problem: %s\nconsole tail:\n%s\nGDB:\n%s"
                         % (problem, console[-1500:], gdb_out[-1500:])):
        return
    frames, places = {}, {}
    for side in sides:
        # Above a task's function GDB shows the ra = 0 of the context
        # restore that started it: a frame outside the kernel, at pc 0.
        expected = spec[side] + ([USER] if spec[side][-1].startswith("task_") else [])
        problems = frame_problems(all_frames[side], expected, symbols, etext)
        if expected[-1] == USER and all_frames[side] and all_frames[side][-1][0] != 0:
            problems.append("GDB's frame above the task is at 0x%x, not 0"
                            % all_frames[side][-1][0])
        results.check("%s: GDB's bt at %s names the scenario's calls" % (name, side),
                      not problems, "\n".join(problems))
        inside = [nm_name(symbols, etext, pc if i == 0 else pc - 1) is not None
                  for i, (pc, _) in enumerate(all_frames[side])]
        frames[side] = [f for f, keep in zip(all_frames[side], inside) if keep]
        places[side] = [p for p, keep in zip(all_places.get(side, []), inside) if keep]
    if "trap" in spec:
        printed = re.search(r"trap: mcause 0x([0-9a-f]+) mepc 0x([0-9a-f]+) mtval 0x([0-9a-f]+)",
                            console)
        kernel = printed and (int(printed.group(2), 16), int(printed.group(1), 16),
                              int(printed.group(3), 16))
        results.check(name + ": GDB's mcause is the scenario's; a fault's mepc/mcause/mtval "
                      "equal the kernel's",
                      trap is not None and trap[1] == spec["cause"]
                      and (spec["cause"] == MACHINE_TIMER or kernel == trap),
                      "GDB %s, kernel printed %s" % (trap, printed and printed.group(0)))
        if trap is None:
            return
    # A timer tick lands anywhere: in a prologue or an epilogue too.
    frame_built = cfa_on_s0(elf, trap[0]) if "trap" in spec else True
    check_traces(results, name, console, frames, places, trap, spec, unwinders, frame_built)


def check_config(results, label, variables, unwinders):
    elf = build(results, label, variables)
    if not elf:
        return
    symbols, etext = text_symbols(elf)
    for scenario, spec in SCENARIOS.items():
        check_scenario(results, label, elf, symbols, etext, scenario, spec, unwinders)


def run_all(results: Results):
    """A thread per build, each in a directory of its own."""
    in_parallel([lambda c=config: check_config(results, *c) for config in CONFIGS])


if __name__ == "__main__":
    results = Results()
    run_all(results)
    print("%d passed, %d failed" % (results.passed, results.failed))
    sys.exit(1 if results.failed else 0)

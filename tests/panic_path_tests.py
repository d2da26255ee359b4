"""The demo kernel's panic path in the failures kernels really have: a stack
overflow, a garbage sp, a panic with 256 bytes of stack left, a panic and a
fault in the timer interrupt handler, a panic on a secondary hart, every hart
failing at once.

Each boot has a wall-clock bound and must power off by itself (a hang
fails). The report must come first: exactly one `panic:` line, before any
trace. Traces are compared with GDB wherever GDB can see the frames: its bt
at panic(), at each trap (the vector's first instruction, pc set back to
sepc), and for every other hart through GDB's threads, at the moment of the
panic.
"""
import re

from e2e_tests import CAUSE_NAMES, boot, compare_frames, parse_gdb, FRAME_RE, TRAP_RE
from testlib import Results

# Builds (from e2e_tests.CONFIGS) and the tracers each runs the scenarios with.
BUILDS = {
    "gcc-O2-fp1": ["fp", "dwarf", "compiler", "auto", "table"],
    "gcc-O0-fp1": ["auto"],
    "clang-O2-fp1": ["fp", "auto"],
    "gcc-O2-fp0": ["dwarf", "auto"],
    "gcc-O2-nocfi": ["compiler", "auto"],
}
OUTERMOST = "reached the outermost frame"
EXCEPTION = "$scause >= 0"
ARMED_TICK = "$scause < 0 && timer_tick_hook != 0"
HEX = "0x[0-9a-f]+"

OUTSIDE = "frame outside the stack"

# (scenario, GDB's trap stops in the order they happen, the panic line).
SINGLE_HART = [
    ("stack-overflow", [EXCEPTION],
     r"kernel stack overflow: store/AMO page fault sepc=%s stval=%s sp=%s" % (HEX, HEX, HEX)),
    ("bad-sp", [EXCEPTION],
     r"bad kernel stack pointer sp=0x1000: store/AMO page fault sepc=%s stval=0xffc" % HEX),
    ("small-stack", [], r"256 bytes of stack left"),
    ("timer-panic", [ARMED_TICK], r"panic in the timer interrupt handler"),
    ("timer-fault", [ARMED_TICK, EXCEPTION],
     r"trap: load page fault \(scause=0xd\) sepc=%s stval=0x0" % HEX),
]
# With sp = 0x1000, a caller's frame is found only through a frame pointer
# (s0 still points into the stack). Without one, GDB still names the caller
# from the live ra, with a CFA it cannot read; the walk believes no frame
# outside every stack and stops there (the prologue decoder reads `li sp`
# as a claim to be the outermost frame, and refuses it): its frames must be
# GDB's first ones.
STOPS_EARLY = {"bad-sp": (OUTSIDE, "outermost frame claimed below the top of the stack")}
HART_HEADER = re.compile(r"^Backtrace of hart (\d+) \((.*)\):$")
NO_STOP = re.compile(r"^Hart (\d+) did not stop within 1 s: no backtrace$")
BOOT_LINES = re.compile(r"^(backtrace demo kernel on hart|\d+ harts running|scenario )")


def parse_report(console):
    """The report from its first line on: {"lines": [...], "panic": [lines
    starting 'panic: '], "blocks": [{"hart", "why", "header", "segments",
    "traps", "end"}], "bad": [lines that belong to nothing]}. A block is one
    trace; `segments` holds its frames split at trap separators."""
    lines = [line.rstrip("\r") for line in console.splitlines()]
    start = next((i for i, line in enumerate(lines) if line.startswith("panic: ")), None)
    report = {"lines": lines[start:] if start is not None else [], "blocks": [], "bad": [],
              "panic": [line for line in lines if line.startswith("panic: ")]}
    block = None
    pending_hart = None
    for line in report["lines"][1:]:
        header = HART_HEADER.match(line)
        if header:
            pending_hart = (int(header.group(1)), header.group(2))
        elif line.startswith("Call Trace ("):
            block = {"hart": pending_hart[0] if pending_hart else None,
                     "why": pending_hart[1] if pending_hart else None,
                     "header": line, "segments": [[]], "traps": [], "end": None}
            report["blocks"].append(block)
            pending_hart = None
        elif block is not None and block["end"] is None and FRAME_RE.match(line):
            m = FRAME_RE.match(line)
            block["segments"][-1].append((int(m.group(1), 16), m.group(2) or "??"))
        elif block is not None and block["end"] is None and TRAP_RE.match(line):
            m = TRAP_RE.match(line)
            block["traps"].append((m.group(1), int(m.group(2), 16), int(m.group(3), 16)))
            block["segments"].append([])
        elif block is not None and block["end"] is None and line.startswith("End of trace: "):
            block["end"] = line[len("End of trace: "):]
        elif not NO_STOP.match(line) and line:
            report["bad"].append(line)
    return report


def gdb_traps(output):
    """[(sepc, scause, stval)] in the order GDB saw the traps."""
    return [tuple(int(p, 16) for p in line.split()[1:4])
            for line in output.splitlines() if line.startswith("TRAP ")]


def check_headline(results, name, console, problem, report, message):
    """Powered off by itself; one panic line, the report's first, saying
    `message`; nothing unparsable after it."""
    if not results.check(name + ": powered off by itself, within the time bound", problem is None,
                         "%s\n%s" % (problem, console[-1500:])):
        return False
    first = report["lines"][0] if report["lines"] else ""
    ok = (len(report["panic"]) == 1 and re.fullmatch("panic: " + message, first) is not None
          and report["blocks"] and not report["bad"])
    return results.check(name + ": one panic line, first: " + message, ok,
                         "panic lines: %s\nunexpected: %s\n%s"
                         % (report["panic"], report["bad"], console[-1500:]))


def check_against_gdb(results, name, block, gdb_out, stops_early=None):
    """Each segment of the trace against GDB: the first against its bt at
    panic() (frame 0 by name), the one after the k-th separator (walk order,
    innermost first) against the matching trap, pc included. With
    stops_early (stop reasons), a walk that ends for one of them may show
    fewer frames than GDB after the last separator: a prefix of GDB's."""
    frames, _ = parse_gdb(gdb_out)
    traps = gdb_traps(gdb_out)
    problems = compare_frames(block["segments"][0], frames.get("panic", []), False)
    results.check(name + ": frames up to the first trap frame equal GDB's bt at panic()",
                  "panic" in frames and not problems, "\n".join(problems) or gdb_out[-1500:])
    if not results.check(name + ": one trap separator per trap GDB saw",
                         len(block["traps"]) == len(traps), "%s\nGDB: %s" % (block["traps"], traps)):
        return
    for k, separator in enumerate(block["traps"]):
        chronological = len(traps) - 1 - k
        sepc, scause, stval = traps[chronological]
        label = "trap%d" % chronological
        results.check("%s: separator %d equals GDB's sepc/scause/stval" % (name, k + 1),
                      separator == (CAUSE_NAMES.get(scause), sepc, stval),
                      "tracer %s, GDB scause=0x%x sepc=0x%x stval=0x%x"
                      % (separator, scause, sepc, stval))
        gdb = frames.get(label, [])
        if stops_early and block["end"] in stops_early and k + 1 == len(block["traps"]):
            gdb = gdb[:len(block["segments"][k + 1])]
        problems = compare_frames(block["segments"][k + 1], gdb, True)
        results.check("%s: frames after separator %d equal GDB's bt at that trap" % (name, k + 1),
                      label in frames and not problems, "\n".join(problems))


def check_single_hart(results, label, elf, tracer, scenario, conditions, message):
    name = "%s tracer=%s %s" % (label, tracer, scenario)
    console, gdb_out, problem = boot(elf, "scenario=%s tracer=%s" % (scenario, tracer),
                                     "stop_at_traps(%r)" % conditions)
    report = parse_report(console)
    if not check_headline(results, name, console, problem, report, message):
        return
    block = report["blocks"][0]
    results.check(name + ": one trace, complete", len(report["blocks"]) == 1 and block["end"],
                  report["blocks"])
    # The walk may stop early where the stack cannot be read (a garbage sp
    # without a frame pointer); the comparison with GDB says whether it
    # stopped where GDB does too.
    check_against_gdb(results, name, block, gdb_out, STOPS_EARLY.get(scenario))


def check_secondary_panic(results, label, elf, tracer, harts):
    """The last hart panics; every other one is stopped by its IPI and
    prints its own backtrace, equal to GDB's view of that hart."""
    name = "%s tracer=%s secondary-panic -smp %d" % (label, tracer, harts)
    # The idle harts are compared as GDB sees them when the panic starts: in
    # hart_idle. One GDB catches inside a timer tick (it cannot unwind across
    # the trap entry) or inside the firmware (an SBI call) shows nothing to
    # compare: boot again, at most four times.
    for _ in range(5):
        console, gdb_out, problem = boot(elf, "scenario=secondary-panic tracer=%s" % tracer,
                                         "stop_at_traps([])", harts)
        frames, _ = parse_gdb(gdb_out)
        if all(hart[:1] and hart[0][1] == "hart_idle"
               for label_, hart in frames.items() if label_.startswith("hart")):
            break
    report = parse_report(console)
    # OpenSBI picks the boot hart; the scenario picks the highest other one.
    boot_hart = re.search(r"backtrace demo kernel on hart (\d+)", console)
    boot_hart = int(boot_hart.group(1)) if boot_hart else 0
    panicking = max(h for h in range(harts) if h != boot_hart)
    if not check_headline(results, name, console, problem, report, r"panic on hart %d" % panicking):
        return
    blocks = report["blocks"]
    order = [(b["hart"], b["why"]) for b in blocks]
    expected = [(panicking, "the first to panic")] + [
        (h, "stopped by the panic on hart %d" % panicking) for h in range(harts) if h != panicking]
    if not results.check(name + ": the first hart's trace, then each other hart's, in order",
                         order == expected, "%s\nexpected %s" % (order, expected)):
        return
    results.check(name + ": every trace reaches the outermost frame",
                  all(b["end"] == OUTERMOST for b in blocks), [b["end"] for b in blocks])
    check_against_gdb(results, name + " hart %d" % panicking, blocks[0], gdb_out)
    frames, _ = parse_gdb(gdb_out)
    for block in blocks[1:]:
        gdb = frames.get("hart%d" % block["hart"], [])
        problems = compare_frames(block["segments"][0], gdb, False)
        results.check("%s: stopped hart %d's trace equals GDB's bt of that hart"
                      % (name, block["hart"]), gdb and not problems, "\n".join(problems))


def check_all_harts(results, label, elf, tracer, harts):
    """Every hart panics (even ids) or faults (odd ids) at once, interrupts
    masked. Exactly one panic line; then one complete trace per hart, each
    naming its hart, none mixed with another."""
    name = "%s tracer=%s all-harts -smp %d" % (label, tracer, harts)
    console, _, problem = boot(elf, "scenario=all-harts tracer=%s" % tracer, None, harts)
    report = parse_report(console)
    message = r"(hart \d+ panics on purpose|trap: load page fault \(scause=0xd\) sepc=%s stval=0x0)" % HEX
    if not check_headline(results, name, console, problem, report, message):
        return
    blocks = report["blocks"]
    results.check(name + ": one trace per hart, each hart once",
                  sorted(b["hart"] for b in blocks) == list(range(harts))
                  and blocks[0]["why"] == "the first to panic",
                  [(b["hart"], b["why"]) for b in blocks])
    for block in blocks:
        hart = block["hart"]
        expected_why = ("the first to panic" if block is blocks[0] else
                        "it panicked too: " + ("hart %d panics on purpose" % hart if hart % 2 == 0
                                               else "trap: load page fault"))
        names = [f for segment in block["segments"] for _, f in segment]
        results.check("%s: hart %d: complete, through all_harts_fail, %s"
                      % (name, hart, "panicked" if hart % 2 == 0 else "faulted"),
                      block["end"] == OUTERMOST and "all_harts_fail" in names
                      and (block["why"] or "").startswith(expected_why)
                      and len(block["traps"]) == hart % 2,
                      block)


def run_all(results: Results, kernels):
    """kernels: [(name, elf)] from e2e_tests.run_all."""
    elves = dict(kernels)
    for label, tracers in BUILDS.items():
        elf = elves.get("kernel-" + label)
        if not results.check("panic path: kernel %s was built" % label, elf is not None):
            continue
        for tracer in tracers:
            for scenario, conditions, message in SINGLE_HART:
                check_single_hart(results, label, elf, tracer, scenario, conditions, message)
        check_secondary_panic(results, label, elf, "auto", 4)
        check_all_harts(results, label, elf, "auto", 4)
    elf = elves.get("kernel-gcc-O2-fp1")
    if elf:
        check_secondary_panic(results, "gcc-O2-fp1", elf, "fp", 8)
        check_all_harts(results, "gcc-O2-fp1", elf, "auto", 8)

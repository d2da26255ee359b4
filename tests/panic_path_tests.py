"""The demo kernel's panic path in the failures kernels really have: a stack
overflow, a garbage sp, a panic with 256 bytes of stack left, a panic and a
fault in the timer interrupt handler, a panic on a secondary hart, every hart
failing at once; and in attacks on the panic path itself (issue 17): a
garbage sscratch, a panic that cuts its own hart's console line short while
other harts print, a panic with little of the panic stack left.

Each boot has a wall-clock bound and must power off by itself (a hang
fails). The report must come first: exactly one `panic:` line, before any
trace. Traces are compared with GDB wherever GDB can see the frames: its bt
at panic(), at each trap (the vector's first instruction, pc set back to
sepc), and for every other hart through GDB's threads, at the moment of the
panic.
"""
import functools
import re

from e2e_tests import (CAUSE_NAMES, CODE_RE, cause_of_xlen64, FRAME_RE, INLINED_RE, TRAP_RE, boot,
                       boot_all_unwinders, compare_frames, is_report_line, parse_gdb,
                       unwinder_console)
from testlib import CROSS, Results, in_parallel, run

# Builds (from e2e_tests.CONFIGS) and the tracers each runs the scenarios with.
BUILDS = {
    "gcc-O2-fp1": ["frame-pointer", "dwarf", "prologue", "auto", "table"],
    "gcc-O0-fp1": ["auto"],
    "clang-O2-fp1": ["frame-pointer", "auto"],
    "gcc-O2-fp0": ["dwarf", "auto"],
    "gcc-O2-nocfi": ["prologue", "auto"],
    "rv32-gcc-O2-fp1": ["frame-pointer", "dwarf", "prologue", "auto", "table"],
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
    "traps", "reports", "end"}], "bad": [lines that belong to nothing]}. A
    block is one trace; `segments` holds its frames split at trap
    separators, `reports` the fault report after each separator (empty
    after an interrupt's)."""
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
                     "header": line, "segments": [[]], "traps": [], "reports": [], "end": None}
            report["blocks"].append(block)
            pending_hart = None
        elif block is not None and block["end"] is None and FRAME_RE.match(line):
            m = FRAME_RE.match(line)
            block["segments"][-1].append((int(m.group(1), 16), m.group(3) or "??"))
        elif block is not None and block["end"] is None and INLINED_RE.match(line):
            continue  # a call inlined into the next frame's code: e2e_tests checks them
        elif (block is not None and block["end"] is None and block["traps"]
              and not block["segments"][-1] and is_report_line(line)):
            block["reports"][-1].append(line)  # an exception's fault report
        elif block is not None and block["end"] is None and TRAP_RE.match(line):
            m = TRAP_RE.match(line)
            block["traps"].append((m.group(1), int(m.group(2), 16), int(m.group(3), 16)))
            block["reports"].append([])
            block["segments"].append([])
        elif block is not None and block["end"] is None and line.startswith("End of trace: "):
            block["end"] = line[len("End of trace: "):]
        elif not NO_STOP.match(line) and line:
            report["bad"].append(line)
    return report


def gdb_traps(output):
    """[(sepc, scause, stval)] in the order GDB saw the traps, scause as
    rv64 holds it (an rv32 kernel's too)."""
    traps = [tuple(int(p, 16) for p in line.split()[1:4])
             for line in output.splitlines() if line.startswith("TRAP ")]
    return [(sepc, cause_of_xlen64(scause), stval) for sepc, scause, stval in traps]


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
        # The fault report follows an exception's separator, not an
        # interrupt's (e2e_tests checks its values against GDB's).
        exception = scause >> 63 == 0
        results.check("%s: separator %d (%s) %s a fault report"
                      % (name, k + 1, separator[0], "followed by" if exception else "without"),
                      bool(block["reports"][k]) == exception, block["reports"][k])


def check_single_hart(results, label, elf, tracer, scenario, conditions, message):
    name = "%s tracer=%s %s" % (label, tracer, scenario)
    console, gdb_out, problem = boot_all_unwinders(elf, scenario,
                                                   "stop_at_traps(%r)" % conditions)
    report = parse_report(unwinder_console(console, tracer))
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


def check_kernel(results, label, elf, tracers):
    for tracer in tracers:
        for scenario, conditions, message in SINGLE_HART:
            check_single_hart(results, label, elf, tracer, scenario, conditions, message)
    check_secondary_panic(results, label, elf, "auto", 4)
    check_all_harts(results, label, elf, "auto", 4)


def check_eight_harts(results, elf):
    check_secondary_panic(results, "gcc-O2-fp1", elf, "frame-pointer", 8)
    check_all_harts(results, "gcc-O2-fp1", elf, "auto", 8)


def run_all(results: Results, kernels):
    """kernels: [(name, elf)] from e2e_tests.run_all. A thread per kernel,
    and one for the attacks."""
    elves = dict(kernels)
    checks = []
    for label, tracers in BUILDS.items():
        elf = elves.get("kernel-" + label)
        if results.check("panic path: kernel %s was built" % label, elf is not None):
            checks.append(functools.partial(check_kernel, results, label, elf, tracers))
    elf = elves.get("kernel-gcc-O2-fp1")
    if elf:
        checks.append(functools.partial(check_eight_harts, results, elf))
    checks.append(functools.partial(run_attacks, results, elves))
    in_parallel(checks)


# Attack 4: the trap entry's one line for a sscratch that is not this
# hart's struct hart (trap_entry.S), with what sscratch and tp held and the
# trap's CSRs.
BAD_SSCRATCH_LINE = re.compile(r"^panic: trap with a bad sscratch=0x([0-9a-f]+) tp=0x([0-9a-f]+): "
                               r"scause=0x([0-9a-f]+) sepc=0x([0-9a-f]+) stval=0x([0-9a-f]+)$")
HART_SIZE = 256  # kernel/layout.h: struct hart, as harts[] holds it


def symbol_address(elf, name):
    for line in run([CROSS + "nm", elf]).stdout.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[2] == name:
            return int(fields[0], 16)
    return None


# Scenario: (what sscratch holds, whether tp holds the same; else this
# hart's struct hart), from harts' address.
BAD_SSCRATCH = {"bad-sscratch": (lambda harts: 0x1000, False),
                "bad-sscratch-tick": (lambda harts: 0x1000, False),
                "bad-sscratch-tp": (lambda harts: 0x1000, True),
                "misaligned-sscratch": (lambda harts: harts + 8, True)}


def check_bad_sscratch(results, label, elf, scenario):
    """sscratch (and t0) set to garbage, then a trap: one line with what
    sscratch and tp held and the CSRs GDB saw at the trap vector, then
    power off. Before the fix the entry stored through sscratch, trapped
    again, forever (a timeout), or, with harts + 8, stored into harts[]."""
    name = "%s %s" % (label, scenario)
    harts = symbol_address(elf, "harts")
    garbage, same_tp = BAD_SSCRATCH[scenario]
    garbage = garbage(harts or 0)
    console, gdb_out, problem = boot(elf, "scenario=" + scenario,
                                     "print_trap('trap0', '$sscratch == %d')" % garbage)
    if not results.check(name + ": powered off by itself, within the time bound", problem is None,
                         "%s\n%s" % (problem, console[-1500:])):
        return
    lines = [line.rstrip("\r") for line in console.splitlines()]
    found = [BAD_SSCRATCH_LINE.match(line) for line in lines if BAD_SSCRATCH_LINE.match(line)]
    traps = gdb_traps(gdb_out)
    boot_hart = re.search(r"backtrace demo kernel on hart (\d+)", console)
    expected = (garbage, garbage if same_tp else
                harts + HART_SIZE * int(boot_hart.group(1)) if harts and boot_hart else None)
    ok = (len(found) == 1 and len(traps) == 1 and lines[-1] == found[0].group(0)
          and tuple(int(g, 16) for g in found[0].groups()) == expected + (traps[0][1], traps[0][0],
                                                                           traps[0][2]))
    results.check(name + ": the last line reports sscratch, tp and GDB's scause/sepc/stval", ok,
                  "expected sscratch, tp = %s; GDB: %s\n%s" % (expected, traps, console[-800:]))


# Attack 5: the tick that panics is the boot hart's, inside its line.
MID_LINE_TICK = ("$scause < 0 && 'panic_path.c'::mid_line != 0 && "
                 "$sscratch == (unsigned long)&harts['panic_path.c'::line_hart]")
MID_LINE_MESSAGE = "panic in a tick that cut its hart's line short"
FILLER_LINE = re.compile(r"^hart \d+ prints with interrupts masked$")
WHOLE_LINES = [(re.compile(r"^Call Trace \((auto|frame-pointer|dwarf|prologue|table) unwinder\):$"),
                "Call Trace"),
               (re.compile(r"^End of trace: [^:]+$"), "End of trace"),
               (HART_HEADER, "Backtrace of hart"),
               (FRAME_RE, "[<"), (INLINED_RE, "[inlined]"), (TRAP_RE, "--- trap"),
               (CODE_RE, "Code:")]


# A frame line character by character: a 64-bit pc, then the function and
# offset/size, which must be a symbol's as nm -S has them (a stray hex digit
# still makes a frame line FRAME_RE matches).
STRICT_FRAME = re.compile(r"^ \[<0x([0-9a-f]{16})>\](?: \((?:prologue|frame-pointer)\))? "
                          r"(\S+)\+0x([0-9a-f]+)/0x([0-9a-f]+)(?: \([^ ()]+:\d+\))?$")


def nm_functions(elf):
    """{name: {(address, size)}} from nm -S."""
    functions = {}
    for line in run([CROSS + "nm", "-S", "--defined-only", elf]).stdout.splitlines():
        fields = line.split()
        if len(fields) == 4:
            functions.setdefault(fields[3], set()).add((int(fields[0], 16), int(fields[1], 16)))
    return functions


def garbled_lines(lines, functions):
    """Lines of the report that hold a piece of it but are not that piece,
    whole: another hart's text inside, or the line cut short."""
    def whole_frame(line):
        m = STRICT_FRAME.match(line)
        return m is not None and (int(m.group(1), 16) - int(m.group(3), 16),
                                  int(m.group(4), 16)) in functions.get(m.group(2), ())
    return [line for line in lines
            if any(marker in line and not pattern.match(line) for pattern, marker in WHOLE_LINES)
            or ("[<" in line and not whole_frame(line))]


def check_panic_mid_line(results, label, elf, runs, harts):
    """A tick panics while its hart holds the console in the middle of a
    line; the other harts print line after line with interrupts masked.
    Each run: the report's first line is whole and on a line of its own, no
    line of a trace is garbled, the first hart's trace is complete (and, in
    the first run, equals GDB's bt at the tick and at panic()). Before the
    fix: the panic line glued to the cut line every time, frame lines
    garbled when the other harts took the console over after 100 ms."""
    functions = nm_functions(elf)
    for attempt in range(runs):
        name = "%s panic-mid-line -smp %d run %d" % (label, harts, attempt + 1)
        gdb_function = "stop_at_traps([%r])" % MID_LINE_TICK if attempt == 0 else None
        console, gdb_out, problem = boot(elf, "scenario=panic-mid-line tracer=auto", gdb_function,
                                         harts)
        if not results.check(name + ": powered off by itself, within the time bound",
                             problem is None, "%s\n%s" % (problem, console[-1500:])):
            continue
        lines = [line.rstrip("\r") for line in console.splitlines()]
        with_panic = [line for line in lines if "panic: " in line]
        results.check(name + ": the report's first line is whole, on a line of its own",
                      with_panic == ["panic: " + MID_LINE_MESSAGE], with_panic)
        report = parse_report(console)
        start = next((i for i, line in enumerate(lines) if "panic: " in line), len(lines))
        garbled = garbled_lines(lines[start:], functions)
        results.check(name + ": no line of a trace holds another hart's text", not garbled,
                      "\n".join(garbled[:10]))
        blocks = report["blocks"]
        first = blocks[0] if blocks else None
        names = [f for segment in first["segments"] for _, f in segment] if first else []
        results.check(name + ": the first hart's trace is complete, through the cut line",
                      first is not None and first["why"] == "the first to panic"
                      and first["end"] == OUTERMOST and "print_lines_until_tick" in names,
                      first)
        if first is not None and gdb_function:
            check_against_gdb(results, name, first, gdb_out)


SLOW_CHAR_LINE = "a slow character: #"
SLOW_CHAR_MESSAGE = "panic while another hart hands a character to the firmware"


def check_panic_slow_char(results, label, elf, runs):
    """The boot hart panics while hart 1, holding the console, hands a
    character ('#') to the firmware for 300 ms (as a hart the host does not
    run): the first hart takes the console over after 100 ms, and must let
    that character out before its report. Each run: '#' only in its own
    line, before the panic line; the panic line and every line of both
    traces whole; both traces complete. Before the fix the first hart
    waited 100 ms at most for it: '#' landed in the report."""
    functions = nm_functions(elf)
    for attempt in range(runs):
        name = "%s panic-slow-char -smp 2 run %d" % (label, attempt + 1)
        console, _, problem = boot(elf, "scenario=panic-slow-char tracer=auto", None, 2)
        if not results.check(name + ": powered off by itself, within the time bound",
                             problem is None, "%s\n%s" % (problem, console[-1500:])):
            continue
        lines = [line.rstrip("\r") for line in console.splitlines()]
        report = parse_report(console)
        start = next((i for i, line in enumerate(lines) if line.startswith("panic: ")), len(lines))
        results.check(name + ": the slow character goes out, in its line, before the report",
                      [i for i, line in enumerate(lines) if "#" in line]
                      == [i for i, line in enumerate(lines[:start]) if line == SLOW_CHAR_LINE],
                      "\n".join(line for line in lines if "#" in line or "panic" in line))
        garbled = garbled_lines(lines[start:], functions)
        results.check(name + ": the panic line, then whole lines of two complete traces",
                      lines[start:start + 1] == ["panic: " + SLOW_CHAR_MESSAGE] and not garbled
                      and not report["bad"] and len(report["blocks"]) == 2
                      and all(b["end"] == OUTERMOST for b in report["blocks"]),
                      "%s\n%s" % ("\n".join(garbled[:10]), "\n".join(lines[start:start + 30])))


# Attack 6: panic() on the panic stack with little of it left.
RESERVE_STACK_LINE = re.compile(r"^reserve stack: (\d+) bytes left, the (\S+) unwinder needs "
                                r"(\d+): (?:the (\S+) unwinder instead \((\d+)\)|"
                                r"too few for any: no backtrace)$")


def boot_little_stack(results, name, elf, scenario, tracer, nested_fault=False):
    """Boots `scenario` under GDB, stopped at panic(): (console lines from
    the panic line on, GDB's frames at panic(), report), or None if it did
    not power off by itself, within the time bound. Checks that no stack
    ran out, and that nothing faulted while panicking unless the scenario
    makes it (`nested_fault`)."""
    console, gdb_out, problem = boot(elf, "scenario=%s tracer=%s" % (scenario, tracer),
                                     "stop_at_panic")
    if not results.check(name + ": powered off by itself, within the time bound", problem is None,
                         "%s\n%s" % (problem, console[-1500:])):
        return None
    lines = [line.rstrip("\r") for line in console.splitlines()]
    start = next((i for i, line in enumerate(lines) if line.startswith("panic: ")), len(lines))
    results.check(name + ": the stack does not run out, %s nested fault"
                  % ("one" if nested_fault else "no"),
                  "stack exhausted" not in console
                  and console.count("nested") == (1 if nested_fault else 0), console[-1500:])
    return lines[start:], parse_gdb(gdb_out)[0].get("panic", []), parse_report(console)


def check_trace_is_gdbs(results, name, report, gdb, unwinder):
    """One trace, by `unwinder`, whose frames are GDB's bt at panic(), all of
    them (both stop where call_on_stack() switched stacks)."""
    block = report["blocks"][0] if len(report["blocks"]) == 1 else None
    problems = compare_frames(block["segments"][0], gdb, False) if block else ["no single trace"]
    results.check(name + ": a %s trace, equal to GDB's bt at panic()" % unwinder,
                  block is not None and block["header"] == "Call Trace (%s unwinder):" % unwinder
                  and len(gdb) >= 3 and not problems,
                  "\n".join(problems) + "\n" + "\n".join(report["lines"][-12:]))


def check_little_panic_stack(results, label, elf, scenario, tracer):
    """panic() called on the panic stack with 1,500 or 2,000 bytes of it
    left: the report moves to the reserve stack if it must, and prints,
    right after the panic line, a trace by the unwinder asked for, equal to
    GDB's bt at panic(). Before the reserve: a `panic stack: ...` line and
    no trace (1,500), or the frame-pointer trace instead of the one asked
    for (2,000); before that, "fatal: trap with the panic stack exhausted"."""
    name = "%s tracer=%s %s" % (label, tracer, scenario)
    booted = boot_little_stack(results, name, elf, scenario, tracer)
    if booted is None:
        return
    lines, gdb, report = booted
    left = int(scenario.rsplit("-", 1)[1])
    said = re.fullmatch(r"panic: (\d+) bytes of the panic stack left", lines[0]) if lines else None
    results.check(name + ": the panic line, then the trace",
                  said is not None and left <= int(said.group(1)) < left + 16 and len(lines) > 1
                  and lines[1].startswith("Call Trace ("), "\n".join(lines[:3]))
    check_trace_is_gdbs(results, name, report, gdb, tracer)


NESTED_FAULT_LINE = re.compile(r"^nested fault while panicking: load page fault "
                               r"sepc=0x[0-9a-f]+ stval=0x8$")


def check_fault_on_reserve(results, label, elf):
    """panic-stack-fault: panic("%s", (char *)8) on the panic stack with
    1,500 bytes of it left; the report moves to the reserve, where the
    message faults. The trap stays on the reserve (moved to the panic
    stack, its frame would land on the frames the trace starts from): the
    panic line, the nested fault line, then the frame-pointer trace of the
    panic, equal to GDB's bt at panic()."""
    name = "%s tracer=dwarf panic-stack-fault" % label
    booted = boot_little_stack(results, name, elf, "panic-stack-fault", "dwarf", True)
    if booted is None:
        return
    lines, gdb, report = booted
    results.check(name + ": the panic line, then the nested fault line",
                  len(lines) > 2 and lines[0] == "panic: " and NESTED_FAULT_LINE.match(lines[1])
                  and lines[2] == "Call Trace (frame-pointer unwinder):", "\n".join(lines[:3]))
    check_trace_is_gdbs(results, name, report, gdb, "frame-pointer")


def check_little_reserve_stack(results, label, elf, scenario, tracer, fallback):
    """panic() called on the reserve stack itself with 1,500 or 2,700 bytes
    of it left, nowhere else to go: the report says what is left and which
    unwinder it uses instead (`fallback`; None: none fits, no trace), never
    runs out of stack, and its trace is GDB's bt at panic()."""
    name = "%s tracer=%s %s" % (label, tracer, scenario)
    booted = boot_little_stack(results, name, elf, scenario, tracer)
    if booted is None:
        return
    lines, gdb, report = booted
    said = RESERVE_STACK_LINE.match(lines[1]) if len(lines) > 1 else None
    left = int(scenario.rsplit("-", 1)[1])
    results.check(name + ": the panic line, then what is left and which unwinder runs instead",
                  said is not None and re.fullmatch(r"panic: \d+ bytes of the reserve stack left",
                                                    lines[0]) is not None
                  and int(said.group(1)) < left and said.group(2) == tracer
                  and int(said.group(1)) < int(said.group(3)) and said.group(4) == fallback
                  and (fallback is None or int(said.group(5)) <= int(said.group(1))),
                  "\n".join(lines[:3]))
    if fallback is None:
        results.check(name + ": no trace", not report["blocks"], report["blocks"])
        return
    check_trace_is_gdbs(results, name, report, gdb, fallback)


def run_attacks(results, elves):
    """Issue 17's attacks 4, 5 and 6 on the panic path."""
    for label in ["gcc-O2-fp1", "clang-O2-fp1"]:
        elf = elves.get("kernel-" + label)
        if elf:
            for scenario in BAD_SSCRATCH:
                check_bad_sscratch(results, label, elf, scenario)
    elf = elves.get("kernel-gcc-O2-fp1")
    if elf:
        check_panic_mid_line(results, "gcc-O2-fp1", elf, 5, 4)
        check_panic_slow_char(results, "gcc-O2-fp1", elf, 3)
    for label, tracers in [("gcc-O2-fp1", BUILDS["gcc-O2-fp1"]), ("gcc-O0-fp1", ["dwarf"])]:
        elf = elves.get("kernel-" + label)
        if not elf:
            continue
        for tracer in tracers:
            for scenario in ["panic-stack-1500", "panic-stack-2000"]:
                check_little_panic_stack(results, label, elf, scenario, tracer)
        check_fault_on_reserve(results, label, elf)
        check_little_reserve_stack(results, label, elf, "reserve-stack-1500", "dwarf", None)
        # At -O0 the kernel counts the tracer's frames at 9/5 of tracer.h's
        # -O2 figures (panic.c): 2,700 bytes then hold no unwinder.
        check_little_reserve_stack(results, label, elf, "reserve-stack-2700", "dwarf",
                                   None if "-O0-" in label else "frame-pointer")

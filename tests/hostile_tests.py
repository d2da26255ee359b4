"""The demo kernel on memory that is not well-formed: frames and tables
damaged on purpose (tests/fixtures/hostile.S, hostile.c), then a panic. The
tracer must stop with the reason that is true, never print a false frame,
and never fault. Where frames remain trustworthy, they must equal GDB's bt
(GDB reads the ELF file, not the damaged memory)."""
import functools
import re

from e2e_tests import (boot, boot_all_unwinders, compare_frames, parse_gdb, parse_trace,
                       unwinder_console)
from testlib import Results, in_parallel

# Builds (from e2e_tests.CONFIGS, and one of its RV32_BUILDS) and the
# tracers that apply to each.
BUILDS = {
    "gcc-O2-fp1": ["frame-pointer", "dwarf", "prologue", "auto", "table"],
    "clang-O2-fp1": ["frame-pointer", "dwarf", "prologue", "auto", "table"],
    "gcc-O2-fp0": ["dwarf", "prologue", "auto", "table"],
    "gcc-O2-nocfi": ["prologue", "auto"],
    "rv32-gcc-O2-fp1": ["frame-pointer", "dwarf", "prologue", "auto", "table"],
}
NOT_A_CALL = "return address does not follow a call"
OUTERMOST = "reached the outermost frame"
SYMTAB_OUTSIDE = ("Note: symbol table rejected (outside the declared table memory): "
                  "frames print raw")
EH_FRAME_DAMAGED = "Note: .eh_frame rejected (checksum mismatch): no DWARF unwinding"
SYMTAB_DAMAGED = "Note: symbol table rejected (checksum mismatch): frames print raw"
LINES_DAMAGED = ("Note: line table rejected (checksum mismatch): frames print without "
                 "file:line")


def traced(elf, scenario, tracer):
    """(trace, GDB's frames at panic, problem), from the scenario's one
    boot with every unwinder (tracer=all)."""
    console, gdb_out, problem = boot_all_unwinders(elf, scenario, "stop_at_panic")
    console = unwinder_console(console, tracer)
    trace = parse_trace(console)
    if problem is None and (trace["end"] is None or trace["bad"]):
        problem = "no complete trace:\n" + console[-1500:]
    if problem is None and "nested" in console:
        problem = "the tracer faulted:\n" + console[-1500:]
    return trace, parse_gdb(gdb_out)[0].get("panic", []), problem


def check_stops_early(results, name, trace, gdb, expected_end, count):
    """The walk printed `count` frames, equal to GDB's first ones, then
    stopped with `expected_end`."""
    frames = [(pc, function) for pc, function, _ in trace["before"]]
    results.check(name + ": ends: " + expected_end,
                  trace["end"] == expected_end and len(frames) == count, trace)
    results.check(name + ": the frames before it equal GDB's",
                  not compare_frames(frames, gdb[:count], False),
                  "\n".join(compare_frames(frames, gdb[:count], False)))


def check_bad_return_address(results, label, elf, tracer):
    """A saved ra overwritten with _start + 4 (in text, after no call): the
    walk stops there instead of printing _start and 'outermost'."""
    name = "%s tracer=%s hostile_bad_return_address" % (label, tracer)
    trace, gdb, problem = traced(elf, "call:hostile_bad_return_address", tracer)
    if results.check(name + ": a complete trace", problem is None, problem):
        check_stops_early(results, name, trace, gdb, NOT_A_CALL, 2)


def check_frame_pointer_zero(results, label, elf):
    """s0 = 0 saved by a frame below the stack's top: not the outermost."""
    name = "%s tracer=frame-pointer hostile_fp_zero_caller" % label
    trace, gdb, problem = traced(elf, "call:hostile_fp_zero_caller", "frame-pointer")
    if results.check(name + ": a complete trace", problem is None, problem):
        check_stops_early(results, name, trace, gdb,
                          "frame pointer is zero before the top of the stack", 3)


FRAME_SIZE = "frame pointer disagrees with the frame size"


def check_forged_frame_pointer(results, label, elf, tracer):
    """forged_inner overwrites the s0 saved in its own record with the CFA of
    forged_outer's frame, a real outer record (tests/fixtures/hostile.c),
    then panics. GDB, reading the same stack, is fooled past forged_middle:
    it skips forged_outer and still reaches the outermost frame. So the truth
    is GDB's bt at forged_inner's entry, before the forgery, below the
    frames at panic() up to forged_inner. The prologue decoder measures
    frames from sp, and the table and auto take a caller's CFA from sp plus
    the frame size its row states: the whole true trace. Every unwinder
    that believes s0 (frame pointer, DWARF) must stop after forged_middle,
    whose frame size (its code) disagrees with the forged s0, with the new
    reason: its frames up to there are GDB's at panic(), which are true up
    to there."""
    name = "%s tracer=%s hostile_forged_frame_pointer" % (label, tracer)
    console, gdb_out, problem = boot_all_unwinders(
        elf, "call:hostile_forged_frame_pointer", 'stop_at_entry_then_panic("forged_inner")')
    console = unwinder_console(console, tracer)
    trace = parse_trace(console)
    if problem is None and (trace["end"] is None or trace["bad"]):
        problem = "no complete trace:\n" + console[-1500:]
    gdb_frames = parse_gdb(gdb_out)[0]
    at_panic, at_entry = gdb_frames.get("panic", []), gdb_frames.get("entry", [])
    names = [function for _, function in at_panic]
    if problem is None and "forged_inner" not in names:
        problem = "GDB's bt at panic() has no forged_inner:\n" + gdb_out[-1500:]
    if not results.check(name + ": a complete trace", problem is None, problem):
        return
    inner = names.index("forged_inner")
    truth = at_panic[:inner + 1] + at_entry[1:]
    results.check(name + ": GDB itself skips forged_outer at panic()",
                  [f for _, f in truth[inner + 1:inner + 3]] == ["forged_middle", "forged_outer"]
                  and names[inner + 1:inner + 3] == ["forged_middle",
                                                     "hostile_forged_frame_pointer"],
                  "truth %s\nGDB at panic %s" % (truth, at_panic))
    frames = [(pc, function) for pc, function, _ in trace["before"]]
    if tracer in ("prologue", "table", "auto"):
        results.check(name + ": the whole true trace, outermost",
                      trace["end"] == OUTERMOST and not compare_frames(frames, truth, False),
                      "\n".join(compare_frames(frames, truth, False)) + "\n" + str(trace["end"]))
    else:
        check_stops_early(results, name, trace, at_panic, FRAME_SIZE, inner + 2)


def check_alloca_after_call(results, label, elf, tracer):
    """A true stack, not damaged: hostile_alloca_after_call's loop calls
    alloca_callee, then allocas a size the compiler cannot know, and the
    second call panics, with sp below the frame the code before the call
    builds. symgen must state no frame size for such a function: every
    unwinder that checks it (not the prologue decoder, which measures frames
    from sp itself) prints GDB's whole bt and reaches the outermost frame."""
    name = "%s tracer=%s hostile_alloca_after_call" % (label, tracer)
    trace, gdb, problem = traced(elf, "call:hostile_alloca_after_call", tracer)
    if not results.check(name + ": a complete trace", problem is None, problem):
        return
    frames = [(pc, function) for pc, function, _ in trace["before"]]
    results.check(name + ": GDB's frames, outermost",
                  trace["end"] == OUTERMOST and not compare_frames(frames, gdb, False),
                  "\n".join(compare_frames(frames, gdb, False)) + "\n" + str(trace["end"]))


def check_fault_in_panic_message(results, label, elf, tracer):
    """panic("%s", (char *)8): the message faults. The panic line comes
    first, then the nested fault, then the frame-pointer trace of the
    original panic, equal to GDB's bt at panic(); then power off."""
    name = "%s tracer=%s hostile_fault_in_panic_message" % (label, tracer)
    console, gdb_out, problem = boot(elf, "scenario=call:hostile_fault_in_panic_message tracer=%s"
                                     % tracer, "stop_at_panic")
    lines = [line.rstrip("\r") for line in console.splitlines()]
    nested = [i for i, line in enumerate(lines) if line.startswith("nested fault while panicking: ")]
    panic_line = [i for i, line in enumerate(lines) if line.startswith("panic: ")]
    ordered = (problem is None and len(nested) == 1 and panic_line and panic_line[0] < nested[0]
               and re.match(r"^nested fault while panicking: load page fault "
                            r"sepc=0x[0-9a-f]+ stval=0x8$", lines[nested[0]]))
    if not results.check(name + ": the panic line, then the nested fault line", ordered,
                         problem or console[-1500:]):
        return
    trace = parse_trace(console)
    gdb = parse_gdb(gdb_out)[0].get("panic", [])
    frames = [(pc, function) for pc, function, _ in trace["before"]]
    results.check(name + ": then the frame-pointer trace of the panic, equal to GDB's",
                  trace["header"] == "Call Trace (frame-pointer unwinder):" and
                  trace["end"] == OUTERMOST and not compare_frames(frames, gdb, False),
                  "%s\n%s" % (trace["end"], "\n".join(compare_frames(frames, gdb, False))))


def check_fault_in_fallback(results, label, elf):
    """The panic message faults, and so does the fallback trace (the top
    page of the stack unmapped under it): the panic line, the nested fault
    line, the start of the fallback trace, then power off at once, by
    itself, without another report."""
    name = "%s hostile_fault_in_fallback" % label
    console, _, problem = boot(elf, "scenario=call:hostile_fault_in_fallback")
    lines = [line.rstrip("\r") for line in console.splitlines()]
    panic_line = [i for i, line in enumerate(lines) if line.startswith("panic: ")]
    nested = [i for i, line in enumerate(lines) if line.startswith("nested fault while panicking: ")]
    after = lines[nested[0] + 1:] if nested else []
    results.check(name + ": panic line, nested fault line, fallback trace cut short, power off",
                  problem is None and len(panic_line) == 1 and len(nested) == 1
                  and panic_line[0] < nested[0]
                  and after[:1] == ["Call Trace (frame-pointer unwinder):"]
                  and any(" panic+0x" in line for line in after)
                  and not any(line.startswith("End of trace") for line in after),
                  "problem: %s\n%s" % (problem, console[-1500:]))


def check_panic_stack_exhausted(results, label, elf, stack):
    """A fault with sp at the bottom of the panic stack, or of the reserve
    (`stack`): the trap entry has no stack left; it says so through the
    firmware and powers off."""
    name = "%s hostile_exhaust_%s_stack" % (label, stack)
    console, _, problem = boot(elf, "scenario=call:hostile_exhaust_%s_stack" % stack)
    results.check(name + ": the fixed message, then power off by itself",
                  problem is None and
                  "\nfatal: trap with the panic stack exhausted: powering off" in console
                  and "Call Trace" not in console,
                  "problem: %s\n%s" % (problem, console[-1500:]))


def check_fp_walk_without_frame_pointers(results, label, elf):
    """tracer=frame-pointer on a kernel built without frame pointers must not
    claim a complete trace."""
    name = "%s tracer=frame-pointer scenario=panic (no frame pointers)" % label
    trace, _, problem = traced(elf, "panic", "frame-pointer")
    results.check(name + ": does not claim the outermost frame",
                  problem is None and trace["end"] != OUTERMOST, problem or trace["end"])


def raw_and_equal_to_gdb(results, name, trace, gdb):
    frames = [(pc, "??") for pc, _, _ in trace["before"]]
    results.check(name + ": every frame raw", all(f == "??" for _, f, _ in trace["before"]),
                  trace["before"])
    gdb_pcs = [(pc, "??") for pc, _ in gdb]
    results.check(name + ": the frames' addresses equal GDB's, to the outermost",
                  trace["end"] == OUTERMOST and not compare_frames(frames, gdb_pcs, False),
                  "end: %s\n%s" % (trace["end"], "\n".join(compare_frames(frames, gdb_pcs, False))))


def check_clobbered_symtab_pointer(results, label, elf, tracer):
    """tracer_symtab.symbols = 0x8: rejected, frames raw, the walk goes on
    where it needs no symbols."""
    name = "%s tracer=%s hostile_clobber_symtab_pointer" % (label, tracer)
    trace, gdb, problem = traced(elf, "call:hostile_clobber_symtab_pointer", tracer)
    if not results.check(name + ": a complete trace, no fault", problem is None, problem):
        return
    results.check(name + ": the note says why frames are raw", trace["note"] == SYMTAB_OUTSIDE,
                  trace["note"])
    if tracer == "prologue":
        results.check(name + ": the prologue unwinder stops: symbol table rejected",
                      trace["end"] == "symbol table rejected" and len(trace["before"]) == 1,
                      trace)
    elif (tracer in ("frame-pointer", "dwarf", "table")
          or (tracer == "auto" and "nocfi" not in label)):
        raw_and_equal_to_gdb(results, name, trace, gdb)


def check_page_allocator(results, label, elf, tracer):
    """32 pages freed from __stacks_end: both tables (and .eh_frame) are
    junk. Rejected; DWARF stops; the frame pointer still walks."""
    name = "%s tracer=%s hostile_page_allocator" % (label, tracer)
    trace, gdb, problem = traced(elf, "call:hostile_page_allocator", tracer)
    if not results.check(name + ": a complete trace, no fault", problem is None, problem):
        return
    note = trace["note"] or ""
    results.check(name + ": the note rejects both tables",
                  note.startswith("Note: symbol table rejected") and "FDE index rejected" in note,
                  note)
    if tracer == "dwarf":
        results.check(name + ": the DWARF unwinder stops: FDE index rejected",
                      trace["end"] == "FDE index rejected" and len(trace["before"]) == 1, trace)
    elif tracer == "table":
        results.check(name + ": the table unwinder stops: unwind table rejected",
                      trace["end"] == "unwind table rejected" and len(trace["before"]) == 1,
                      trace)
    elif tracer == "prologue":
        results.check(name + ": the prologue unwinder stops: symbol table rejected",
                      trace["end"] == "symbol table rejected" and len(trace["before"]) == 1,
                      trace)
    elif "fp1" in label:
        raw_and_equal_to_gdb(results, name, trace, gdb)


def check_eh_frame_cfa(results, label, elf, tracer):
    """16 added to the CFA offset in hostile_cfa_middle's FDE, in memory
    (GDB reads the ELF file: the true frames). Before: tracer=dwarf skipped
    hostile_cfa_outer and claimed the outermost frame. Now DWARF finds the
    block damaged, says so, and stops there; the frames it printed are
    GDB's. The table and auto, which the table serves, print GDB's frames
    to the outermost without reading .eh_frame."""
    name = "%s tracer=%s hostile_eh_frame_cfa" % (label, tracer)
    trace, gdb, problem = traced(elf, "call:hostile_eh_frame_cfa", tracer)
    if not results.check(name + ": a complete trace, no fault", problem is None, problem):
        return
    frames = [(pc, function) for pc, function, _ in trace["before"]]
    if tracer == "dwarf":
        notes = [note for _, note in trace["notes"]]
        results.check(name + ": the note says .eh_frame was rejected, once",
                      notes == [EH_FRAME_DAMAGED], trace["notes"])
        results.check(name + ": the walk stops: .eh_frame rejected (not the outermost frame)",
                      trace["end"] == ".eh_frame rejected" and 0 < len(frames) < len(gdb),
                      trace)
        results.check(name + ": the frames before it equal GDB's",
                      not compare_frames(frames, gdb[:len(frames)], False),
                      "\n".join(compare_frames(frames, gdb[:len(frames)], False)))
    else:
        results.check(name + ": no note, GDB's frames to the outermost",
                      not trace["notes"] and trace["end"] == OUTERMOST
                      and not compare_frames(frames, gdb, False),
                      "%s\n%s" % (trace, "\n".join(compare_frames(frames, gdb, False))))


def check_symtab_compensated(results, label, elf, tracer):
    """The name offsets of three consecutive symbols changed by +1, -2, +1,
    which the old checksum (a sum) did not see: every unwinder printed
    three wrong names and the outermost frame. Now the block fails: the
    note, printed before the first frame the damaged block would name, and
    from there raw frames; every name printed is GDB's, every address too
    (to the outermost, but for the prologue unwinder, which needs the
    table and stops)."""
    name = "%s tracer=%s hostile_names_a" % (label, tracer)
    trace, gdb, problem = traced(elf, "call:hostile_names_a", tracer)
    if not results.check(name + ": a complete trace, no fault", problem is None, problem):
        return
    frames = trace["before"]
    at = trace["notes"][0][0] if trace["notes"] else None
    results.check(name + ": one note, the symbol table rejected",
                  [note for _, note in trace["notes"]] == [SYMTAB_DAMAGED], trace["notes"])
    if at is None:
        return
    named = [(pc, function) for pc, function, _ in frames[:at]]
    results.check(name + ": the frames before the note are GDB's, named",
                  at > 0 and not compare_frames(named, gdb[:at], False),
                  "\n".join(compare_frames(named, gdb[:at], False)))
    results.check(name + ": the frames from the note on are raw",
                  all(function == "??" for _, function, _ in frames[at:]), frames)
    if tracer == "prologue":
        results.check(name + ": the prologue unwinder stops: symbol table rejected",
                      trace["end"] == "symbol table rejected" and len(frames) == at + 1, trace)
        return
    pcs = [(pc, "??") for pc, _, _ in frames]
    gdb_pcs = [(pc, "??") for pc, _ in gdb]
    if tracer == "auto" and "nocfi" in label:
        # Without CFI, symbols or frame pointers nothing unwinds past the
        # note's frames but the frame pointer's guess, which stops.
        gdb_pcs = gdb_pcs[:len(pcs)]
        results.check(name + ": the frames' addresses equal GDB's, no outermost claimed",
                      trace["end"] != OUTERMOST and not compare_frames(pcs, gdb_pcs, False),
                      "end: %s\n%s" % (trace["end"],
                                        "\n".join(compare_frames(pcs, gdb_pcs, False))))
        return
    results.check(name + ": the frames' addresses equal GDB's, to the outermost",
                  trace["end"] == OUTERMOST and not compare_frames(pcs, gdb_pcs, False),
                  "end: %s\n%s" % (trace["end"], "\n".join(compare_frames(pcs, gdb_pcs, False))))


def check_lines_damaged(results, label, elf, tracer):
    """A byte of the line table's rows changed: the note before the first
    frame, then every frame without a place or an inlined call, and nothing
    else lost: the frames are GDB's, to the outermost."""
    name = "%s tracer=%s hostile_damage_lines" % (label, tracer)
    trace, gdb, problem = traced(elf, "call:hostile_damage_lines", tracer)
    if not results.check(name + ": a complete trace, no fault", problem is None, problem):
        return
    results.check(name + ": one note, before the first frame: the line table rejected",
                  trace["notes"] == [(0, LINES_DAMAGED)], trace["notes"])
    results.check(name + ": no frame has a place or an inlined call",
                  all(place == ("??", []) for place in trace["places_before"]),
                  trace["places_before"])
    frames = [(pc, function) for pc, function, _ in trace["before"]]
    results.check(name + ": the frames equal GDB's, to the outermost",
                  trace["end"] == OUTERMOST and not compare_frames(frames, gdb, False),
                  "end: %s\n%s" % (trace["end"], "\n".join(compare_frames(frames, gdb, False))))


def check_kernel(results, label, elf, tracers):
    if label == "gcc-O2-fp1":  # the walk's handling, whatever the compiler
        check_lines_damaged(results, label, elf, "auto")
    for tracer in tracers:
        check_bad_return_address(results, label, elf, tracer)
        check_clobbered_symtab_pointer(results, label, elf, tracer)
        check_page_allocator(results, label, elf, tracer)
        check_symtab_compensated(results, label, elf, tracer)
        if tracer in ("dwarf", "auto", "table") and "nocfi" not in label:
            check_eh_frame_cfa(results, label, elf, tracer)
    if "fp1" in label:
        for tracer in tracers:
            check_forged_frame_pointer(results, label, elf, tracer)
            if tracer != "prologue":
                check_alloca_after_call(results, label, elf, tracer)
        check_frame_pointer_zero(results, label, elf)
        check_fault_in_panic_message(results, label, elf, "auto")
        check_fault_in_fallback(results, label, elf)
        check_panic_stack_exhausted(results, label, elf, "panic")
        check_panic_stack_exhausted(results, label, elf, "reserve")
    else:
        check_fp_walk_without_frame_pointers(results, label, elf)


def run_all(results: Results, kernels):
    """kernels: [(name, elf)] from e2e_tests.run_all. A thread per kernel."""
    elves = dict(kernels)
    checks = []
    for label, tracers in BUILDS.items():
        elf = elves.get("kernel-" + label)
        if results.check("hostile: kernel %s was built" % label, elf is not None):
            checks.append(functools.partial(check_kernel, results, label, elf, tracers))
    in_parallel(checks)

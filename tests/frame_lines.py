"""Issue 19: the file:line of every frame the tracer prints, and the calls it
prints as inlined into each, against GDB's bt at the same stop: every
GDB-compared end-to-end boot (e2e_tests.check_scenario), the same boots, no
more.

GDB shows a frame's inlined calls as frames of their own (gdb_oracle.py's
INLINE lines, innermost first, before the machine frame's FRAME line), each
with its place: the innermost at the pc's line, each one after it at the
line of the call inlined into it. The tracer prints them the same way
(" [inlined] name (file:line)" lines before the frame's line), so each must
name the same functions, in the same order, at the same places. A place GDB
does not know ("??") is one the tracer prints none for.
"""
import e2e_tests


def gdb_places(output):
    """gdb_oracle.py's lines: {label: [(pc, function, location, inlined)]},
    the newest first; inlined: [(function, location)] of the frames GDB
    shows inlined into the machine frame, innermost first."""
    frames, label, inlined = {}, None, []
    for line in output.splitlines():
        parts = line.split()
        if line.startswith("FRAMES "):
            label, inlined = parts[1], []
            frames[label] = []
        elif line.startswith("INLINE ") and label and len(parts) == 3:
            inlined.append((parts[1], parts[2]))
        elif line.startswith("FRAME ") and label and len(parts) == 4:
            frames[label].append((int(parts[1], 16), parts[2], parts[3], inlined))
            inlined = []
    return frames


def differences(frames, places, gdb, exact_first_pc):
    """Text lines, one per machine frame whose printed place or inlined calls
    are not GDB's. frames: the trace's [(pc, function, mark)]; places: its
    [(location, inlined)]; gdb: gdb_places()'s list for the same stop. The
    first frame's pc is GDB's only if exact_first_pc (after a trap: sepc);
    at panic() GDB stops at the function's breakpoint, the tracer where it
    took its registers, so only the functions are compared there."""
    problems = []
    if len(frames) != len(gdb):
        problems.append("%d frames printed, GDB shows %d" % (len(frames), len(gdb)))
    for i, ((pc, name, _), (place, inlined), (_, gdb_name, gdb_place, gdb_inlined)) in \
            enumerate(zip(frames, places, gdb)):
        printed = [(e2e_tests.source_name(function), where) for function, where in inlined]
        printed.append((e2e_tests.source_name(name), place))
        shown = gdb_inlined + [(gdb_name, gdb_place)]
        if i == 0 and not exact_first_pc:
            printed, shown = [p[0] for p in printed], [p[0] for p in shown]
        if printed != shown:
            problems.append("frame %d (pc 0x%x): printed %s, GDB %s" % (i, pc, printed, shown))
    return problems


def check(results, name, trace, gdb_out):
    """The places of both sides of the trace (before the trap separator:
    GDB's stop at panic(); after it: its stop at the trap) against GDB's."""
    gdb = gdb_places(gdb_out)
    for side, label in (("before", "panic"), ("after", "trap")):
        if not trace[side] or label not in gdb:
            continue
        frames, places = trace[side], trace["places_" + side]
        problems = differences(frames, places, gdb[label], side == "after")
        results.check("%s: file:line and inlined calls of the %d frames %s the trap equal "
                      "GDB's bt at %s (%d inlined)"
                      % (name, len(frames), side, label, sum(len(p[1]) for p in places)),
                      not problems, "\n".join(problems))

"""Issue 19: symgen's line table (symgen/dwarf_lines.c, GDB's choice of rows)
and inlined calls (symgen/dwarf_inlines.c) against GDB's bt, at every machine
frame of every GDB-compared end-to-end boot: the same boots, no more.

GDB names a machine frame's line at its pc when it is the newest frame, at
pc - 1 for the others (a return address: the call is below it). The table is
asked the same addresses, by that rule, so that both the table and the rule
the tracer will print lines by are checked against GDB. Where GDB shows
inlined calls (INLINE lines before the machine frame's FRAME line), the
innermost of them names the pc's line, and each frame after it the line of
the call inlined into it: symgen's chain of inlined calls at the same
address must name the same functions, innermost first, and the same call
sites.
"""
import bisect
import functools
import os
import threading

from testlib import HOST_BUILD, in_parallel, run

LINE_ROWS = os.path.join(HOST_BUILD, "line_rows")
INLINE_ROWS = os.path.join(HOST_BUILD, "inline_rows")

_cache = {}
_cache_lock = threading.Lock()
# The stops check() was given, checked by finish(): [(name, elf, label, frames)].
_pending = []



def gdb_machine_frames(output):
    """gdb_oracle.py's lines: {label: [(pc, name, location, inlined)]}, the
    newest first; inlined: [(name, location)] of the frames GDB shows
    inlined into the machine frame, innermost first."""
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


def table_rows(elf):
    """The line table of elf (GDB's choice of rows), as two sorted lists:
    row addresses, and each row's "file:line" (None for the end of a
    sequence). One line_rows run per image, whatever the boots ask."""
    key = os.path.realpath(elf), os.path.getmtime(elf)
    with _cache_lock:
        if key not in _cache:
            addresses, locations = [], []
            result = run([LINE_ROWS, "--rows", "--gdb", elf], timeout=60)
            for line in result.stdout.splitlines():
                address, location = line.split(" ", 1)
                addresses.append(int(address, 16))
                locations.append(None if location == "end" else location)
            _cache[key] = addresses, locations
        return _cache[key]


def table_location(rows, address):
    """The row in effect at address (as dwarf_line_at() finds it): the last
    that starts at or below it; "??:0" before the first, or in the end of a
    sequence."""
    addresses, locations = rows
    index = bisect.bisect_right(addresses, address) - 1
    return locations[index] if index >= 0 and locations[index] else "??:0"


def inline_chains(elf, addresses):
    """{address: [(function, "file:line" of its call)]}, innermost first,
    from symgen's inlined calls of elf (one inline_rows run)."""
    result = run([INLINE_ROWS, elf], timeout=60,
                 input="".join("%x\n" % address for address in addresses))
    chains = {}
    for line in result.stdout.splitlines():
        fields = line.split("\t")
        chains[int(fields[0], 16)] = [tuple(call.split(" ")[1:3]) for call in fields[1:]]
    return chains


def frame_addresses(frames):
    """The address each machine frame's line is named at: the newest frame's
    pc, the others' pc - 1."""
    return [pc if i == 0 else pc - 1 for i, (pc, _, _, _) in enumerate(frames)]


def differences(rows, chains, frames):
    """Text lines, one per machine frame whose innermost location (its
    innermost inlined frame's, or its own) is not the table's at its
    address (frame_addresses), or whose inlined frames are not symgen's
    chain there."""
    addresses = frame_addresses(frames)
    problems = []
    for i, ((pc, name, location, inlined), address) in enumerate(zip(frames, addresses)):
        table = table_location(rows, address)
        gdb = inlined[0][1] if inlined else location
        if gdb == "??":
            gdb = "??:0"
        if table != gdb:
            problems.append("frame %d (%s, pc 0x%x): GDB %s, the table at 0x%x %s"
                            % (i, name, pc, gdb, address, table))
        # GDB's frames of the machine frame, innermost first: each inlined
        # function, then the call site the next frame shows.
        gdb_chain = [(function, (inlined[1:] + [(name, location)])[k][1])
                     for k, (function, _) in enumerate(inlined)]
        if chains.get(address) != gdb_chain:
            problems.append("frame %d (%s, pc 0x%x): GDB's inlined calls %s, symgen's at "
                            "0x%x %s" % (i, name, pc, gdb_chain, address, chains.get(address)))
    return problems


def check(results, name, elf, gdb_out):
    """Records every stop GDB printed in gdb_out (gdb_oracle.py's lines),
    for finish() to check: one run of each tool per image, whatever the
    boots."""
    with _cache_lock:
        for label, frames in sorted(gdb_machine_frames(gdb_out).items()):
            _pending.append((name, elf, label, frames))


def finish(results):
    """Checks the stops check() recorded, the images side by side."""
    with _cache_lock:
        stops = list(_pending)
        del _pending[:]
    in_parallel([functools.partial(check_image, results, elf,
                                   [stop for stop in stops if stop[1] == elf])
                 for elf in sorted(set(stop[1] for stop in stops))])


def check_image(results, elf, mine):
    """Checks the stops of one image."""
    rows = table_rows(elf)
    chains = inline_chains(elf, sorted(set(
        address for _, _, _, frames in mine for address in frame_addresses(frames))))
    for name, _, label, frames in mine:
        problems = differences(rows, chains, frames)
        results.check("%s: the line table and the inlined calls are GDB's at its %d "
                      "frames at %s() (%d inlined)"
                      % (name, len(frames), label, sum(len(f[3]) for f in frames)),
                      frames and not problems, "\n".join(problems) or "no frames")

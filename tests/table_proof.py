"""The proof that the unwind table is exact (issue 11): at every instruction
boundary of every function of every test kernel built with CFI, and of the
toolchain's whole libgcc (rv64imac and rv32imac), the table's row equals the
row the tracer's interpreter computes from .eh_frame (CFA, ra, s0); a row
the table leaves to the interpreter counts only where the format cannot
express it; code without CFI is no-CFI. tests/tools/table_check.c does the
comparison and prints the counts; every one must be equal.

The frame sizes symgen measures for s0-based rows are not in .eh_frame, and
the table unwinder takes a caller's CFA from them (format version 8): in the
kernels, each must be the frame the function's epilogues undo, read from
objdump's text (prologue_crosscheck's oracle), wherever they undo one.
"""
import bisect
import os
import re

from prologue_crosscheck import disassemble, oracle_frame
from testlib import CROSS, HOST_BUILD, TEST_BUILD, Results, info, link_libgcc_whole, run

# The table's parts, by the names symgen gives them (nm -S sizes).
TABLE_SYMBOLS = {"tracer_unwind_table", "unwind_rows", "unwind_maps", "unwind_lookup",
                 "unwind_rules"}

LIBGCC_FLAGS = [("rv64imac", ["-march=rv64imac", "-mabi=lp64"]),
                ("rv32imac", ["-march=rv32imac", "-mabi=ilp32"])]
SUMMARY_RE = re.compile(r"^table_check: (\d+) boundaries .* (\d+) equal \((\d+) interpreted\), "
                        r"(\d+) differ$", re.M)


SIZE_RE = re.compile(r"^size 0x([0-9a-f]+) 0x([0-9a-f]+) (\d+)$", re.M)


def check_image(results, name, elf):
    """Returns table_check's output."""
    result = run([os.path.join(HOST_BUILD, "table_check"), elf], timeout=300)
    summary = SUMMARY_RE.search(result.stdout)
    if summary:
        info("  %s: %s" % (name, summary.group(0)))
    results.check("unwind table %s: every row equals the interpreter's (100%%)" % name,
                  result.returncode == 0 and summary is not None and summary.group(4) == "0"
                  and summary.group(1) == summary.group(2) and int(summary.group(1)) > 0,
                  (result.stdout[-3000:] + result.stderr[-1000:]))
    return result.stdout


def check_frame_sizes(results, name, elf, table_check_output):
    """Each frame size the table states (table_check's size lines, per FDE)
    against the largest frame the function's epilogues undo (objdump): equal
    wherever the function returns through an epilogue that undoes one (not
    where its frame's only exits are calls that do not return, or tail
    calls: its returns then undo nothing, and the oracle cannot tell)."""
    stated = [(int(start, 16), int(end, 16), int(size))
              for start, end, size in SIZE_RE.findall(table_check_output)]
    code = disassemble(elf) if stated else []
    addresses = [insn[0] for insn in code]
    problems, checked = [], 0
    for start, end, size in stated:
        frame = oracle_frame(code[bisect.bisect_left(addresses, start):
                                  bisect.bisect_left(addresses, end)])
        if frame is None or frame[0] == 0:
            continue
        checked += 1
        if frame[0] != size:
            problems.append("0x%x-0x%x: the table states %d bytes, the epilogues undo %d"
                            % (start, end, size, frame[0]))
    info("  %s: %d frame sizes stated, %d checked against the epilogues"
         % (name, len(stated), checked))
    results.check("unwind table %s: every frame size it states is the frame the "
                  "epilogues undo (%d of %d checked)" % (name, checked, len(stated)),
                  not problems and checked > 0, "\n".join(problems))


def check_size(results, name, elf):
    """The issue's bound: the table and its index (descriptor, rows, lookup,
    rules: their sizes from nm) no larger than the image's .eh_frame (from
    readelf), so that a kernel may drop .eh_frame."""
    table = sum(int(fields[1], 16) for fields in
                (line.split() for line in run([CROSS + "nm", "-S", elf]).stdout.splitlines())
                if len(fields) == 4 and fields[3] in TABLE_SYMBOLS)
    eh_frame = [int(fields[fields.index("PROGBITS") + 3], 16) for fields in
                (line.split() for line in run([CROSS + "readelf", "-SW", elf]).stdout.splitlines())
                if ".eh_frame" in fields and "PROGBITS" in fields]
    if eh_frame:
        info("  %s: unwind table %d bytes, .eh_frame %d bytes (%.2fx)"
             % (name, table, eh_frame[0], table / eh_frame[0]))
    results.check("unwind table %s: table + index <= .eh_frame" % name,
                  len(eh_frame) == 1 and 0 < table <= eh_frame[0],
                  "table %d bytes, .eh_frame %s" % (table, eh_frame))


def run_all(results: Results, kernels):
    """kernels: [(name, elf)] from e2e_tests.run_all; those without CFI
    (-nocfi) have no table."""
    for name, elf in kernels:
        if "nocfi" not in name:
            output = check_image(results, name, elf)
            # The kernels with frame pointers, where the rows state sizes
            # (without, only the hand-written functions' s0-based rows do,
            # the same in every kernel): objdump costs 0.6 s a kernel.
            if "fp1" in name:
                check_frame_sizes(results, name, elf, output)
            check_size(results, name, elf)
    for label, flags in LIBGCC_FLAGS:
        elf = os.path.join(TEST_BUILD, "table-proof", "libgcc-%s.elf" % label)
        os.makedirs(os.path.dirname(elf), exist_ok=True)
        archive, result = link_libgcc_whole(flags, elf)
        if results.check("unwind table proof: %s linked whole (%s)" % (label, archive),
                         result.returncode == 0, result.stderr[-2000:]):
            check_image(results, "libgcc " + label, elf)

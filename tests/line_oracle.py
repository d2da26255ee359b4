"""symgen's line table (symgen/dwarf_lines.c) against binutils' addr2line
(issue 19): at every instruction address objdump disassembles in every test
kernel, the file:line the table gives (tests/tools/line_rows) equals what
`addr2line -e ELF` prints (without -i: the innermost location, the line
table's own answer). Besides the e2e kernels (DWARF 5 from gcc 12 and clang
14), kernels built with -gdwarf-4 (gcc and clang) and with compressed debug
sections (-gz).

addr2line prints paths joined to the compilation directory; the table keeps
them relative to it (as Linux's LINEINFO does), so the compilation
directories (DW_AT_comp_dir, from readelf) are taken off addr2line's answers
before they are compared; its " (discriminator N)" suffix is dropped.

Where the two differ, GDB's `info line *ADDR` is asked too, and the
difference is accepted only for a reason named in KNOWN_DIFFERENCES.
"""
import os
import random
import re

from testlib import CROSS, HOST_BUILD, TEST_BUILD, Results, run

LINE_ROWS = os.path.join(HOST_BUILD, "line_rows")
# Kernels built here, beside the e2e ones: (label, make variables).
EXTRA_BUILDS = [
    ("lines-gcc-dwarf4", ["OPT=-O2 -gdwarf-4"]),
    ("lines-clang-dwarf4", ["CC=clang", "OPT=-O2 -gdwarf-4"]),
    ("lines-gcc-gz", ["OPT=-O2 -gz"]),
]
INSTRUCTION_RE = re.compile(r"^\s+([0-9a-f]+):\t", re.M)
COMP_DIR_RE = re.compile(r"DW_AT_comp_dir\s*:.*?(/\S*)\s*$", re.M)
NO_LINE = "??:0"
RAWLINE_OPCODE_RE = re.compile(r"^\s+\[(0x[0-9a-f]+)\]\s+(.*)$", re.M)
DISCRIMINATOR_RE = re.compile(r" \(discriminator \d+\)$")
GDB_LINE_RE = re.compile(r'^(?:Line (\d+) of "([^"]*)"|No line number information)')


def instruction_addresses(elf):
    """Every instruction address objdump disassembles, in order."""
    result = run([CROSS + "objdump", "-d", elf], timeout=120)
    return [int(a, 16) for a in INSTRUCTION_RE.findall(result.stdout)]


def compilation_dirs(elf):
    """The DW_AT_comp_dir of every unit, longest first."""
    result = run([CROSS + "readelf", "--debug-dump=info", elf], timeout=120)
    return sorted(set(COMP_DIR_RE.findall(result.stdout)), key=len, reverse=True)


def addr2line_answers(elf, addresses, dirs):
    """addr2line's file:line per address, relative to the unit's compilation
    directory when it is in it."""
    result = run([CROSS + "addr2line", "-e", elf],
                 input="".join("0x%x\n" % a for a in addresses), timeout=300)
    answers = []
    for line in result.stdout.splitlines():
        line = DISCRIMINATOR_RE.sub("", line)
        if line.endswith(":?"):
            line = line[:-1] + "0"  # line 0, or none: the table says 0
        for d in dirs:
            if line.startswith(d + "/"):
                line = line[len(d) + 1:]
                break
        answers.append(line)
    return answers


def table_answers(elf, addresses):
    result = run([LINE_ROWS, elf], input="".join("%x\n" % a for a in addresses),
                 timeout=300)
    answers = [line.split(" ", 1)[1] for line in result.stdout.splitlines()]
    return result, answers


def gdb_answers(elf, addresses):
    """GDB's file:line (`info line *ADDR`) per address, "??:0" where it
    has none; GDB names files as the table does, relative to the
    compilation directory."""
    answers = []
    for first in range(0, len(addresses), 500):
        commands = []
        for a in addresses[first:first + 500]:
            commands += ["-ex", "info line *0x%x" % a]
        result = run(["gdb-multiarch", "-batch", "-nx", "-ex", "file " + elf] + commands,
                     timeout=300)
        for line in result.stdout.splitlines():
            found = GDB_LINE_RE.match(line)
            if found:
                answers.append("%s:%s" % (found.group(2), found.group(1))
                               if found.group(1) else "??:0")
    return answers


def known_difference(difference, gdb):
    """The name of the addr2line (binutils 2.40) bug that explains a
    difference, checked against GDB, or None.

    "file numbers": addr2line reads DWARF 5 file numbers as if they counted
    from 1, as DWARF 4's do; where a program's file 1 is not a copy of
    file 0 (gcc -O0 and -Os put a header's inline function first), it names
    the wrong file for the right line. GDB names the table's file.

    "unit without a row": where no line program has a row (code from
    clang 14's assembler, which writes a line program but no unit for a
    .S), addr2line may still name a unit whose range it thinks covers the
    address, with line 0. GDB, like the table, has no line there.

    "stale unit range": gas records an assembly unit's DW_AT_high_pc as a
    length computed before the linker relaxed its calls, so the unit claims
    the first bytes of the code that follows it; addr2line looks there, in
    that unit's line program, finds no row and prints ??:?. The line
    program itself is relocated right; GDB names the table's file.

    Where these are, GDB's line may still differ from the table's: of rows
    at one address GDB takes the last that is a statement (is_stmt), not
    the last; addr2line, and so the table, the last."""
    _, ours, theirs = difference
    our_file, our_line = ours.rsplit(":", 1)
    their_file, their_line = theirs.rsplit(":", 1)
    gdb_file = gdb.rsplit(":", 1)[0]
    if ours == NO_LINE:
        return "unit without a row" if gdb == NO_LINE and their_line == "0" else None
    if gdb_file != our_file:
        return None
    if their_line == our_line != "0" and their_file != our_file:
        return "file numbers"
    if theirs == NO_LINE:
        return "stale unit range"
    return None


def check_kernel(results, name, elf):
    """Every instruction: the table equals addr2line, or, where addr2line
    (binutils 2.40) is known to be wrong, GDB agrees with the table."""
    addresses = instruction_addresses(elf)
    dirs = compilation_dirs(elf)
    theirs = addr2line_answers(elf, addresses, dirs)
    tool, ours = table_answers(elf, addresses)
    ok = tool.returncode == 0 and len(ours) == len(addresses) == len(theirs) > 0
    differences = [(a, o, t) for a, o, t in zip(addresses, ours, theirs) if o != t]
    gdb = gdb_answers(elf, [a for a, _, _ in differences])
    reasons = {}
    unexplained = []
    for (a, o, t), g in zip(differences, gdb):
        reason = known_difference((a, o, t), g)
        if reason:
            reasons[reason] = reasons.get(reason, 0) + 1
        else:
            unexplained.append((a, o, t, g))
    print("  %s: %d instructions, %d equal to addr2line; differ: %s, %d unexplained"
          % (name, len(addresses), len(addresses) - len(differences),
             ", ".join("%d %s" % (n, r) for r, n in sorted(reasons.items())) or "none",
             len(unexplained)), flush=True)
    results.check("line table %s: every instruction's file:line equals addr2line's or, "
                  "where addr2line is known wrong, GDB's" % name,
                  ok and len(gdb) == len(differences) and not unexplained,
                  tool.stderr[-1000:] + "\n" +
                  "\n".join("0x%x: table %s, addr2line %s, GDB %s" % d
                            for d in unexplained[:40]))


def build(results, label, variables):
    build_dir = os.path.join(TEST_BUILD, label)
    result = run(["make", "-s", "BUILD=" + build_dir] + variables, timeout=600)
    ok = results.check("build %s (%s)" % (label, " ".join(variables)), result.returncode == 0,
                       result.stdout[-2000:] + result.stderr[-2000:])
    return os.path.join(build_dir, "kernel.elf") if ok else None


def check_compressed(results, elf):
    """The -gz kernel's line program is compressed (flag C in readelf -S),
    so that its check covers the inflating reader."""
    flags = [line.split("]", 1)[1].split()[6] for line in
             run([CROSS + "readelf", "-SW", elf]).stdout.splitlines()
             if "] .debug_line " in line]
    results.check("line table: the -gz kernel's .debug_line is compressed",
                  len(flags) == 1 and "C" in flags[0], "readelf -S flags: %s" % flags)


def section_offset(elf, name):
    """The file offset and size of a section, from readelf."""
    for line in run([CROSS + "readelf", "-SW", elf]).stdout.splitlines():
        if "] %s " % name in line:
            fields = line.split("]", 1)[1].split()
            return int(fields[3], 16), int(fields[4], 16)
    return None


def run_on_bytes(data, path):
    with open(path, "wb") as out:
        out.write(data)
    return run([LINE_ROWS, "--rows", path], timeout=60)


def check_malformed(results, label, elf, version):
    """Damaged line programs: a clear one-line error naming the offset (the
    house rule's "symgen: FILE: ..." form), never a crash; line_rows runs
    under ASan and UBSan. The first unit's header fields are at the offsets
    DWARF 5 section 6.2.4 gives (version 4: no address and segment sizes)."""
    found = section_offset(elf, ".debug_line")
    if not results.check("line table %s: .debug_line found" % label, found is not None):
        return
    start, size = found
    image = open(elf, "rb").read()
    work = os.path.join(TEST_BUILD, "lines-malformed")
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, label + ".elf")
    line_range = 16 if version == 5 else 14
    # The first DW_LNS_set_file, and the first opcode after it that adds a
    # row, by readelf's offsets.
    raw = run([CROSS + "readelf", "--debug-dump=rawline", elf], timeout=120).stdout
    opcodes = RAWLINE_OPCODE_RE.findall(raw)
    set_file = next(int(o, 16) for o, text in opcodes if text.startswith("Set File Name"))
    row_after_set_file = next(int(o, 16) for o, text in opcodes
                              if int(o, 16) > set_file
                              and text.startswith(("Copy", "Special opcode")))
    cases = [("unit length past the section", 0, b"\xf0\xff\xff\xfe",
              "malformed .debug_line at offset 0x0: unit longer than .debug_line"),
             ("line range 0", line_range, b"\0",
              "malformed .debug_line at offset 0x%x: line range 0" % line_range),
             ("opcode base 0", line_range + 1, b"\0",
              "malformed .debug_line at offset 0x%x: opcode base 0" % (line_range + 1)),
             ("DW_LNS_set_file past the file table (then a row)", set_file + 1, b"\x7f",
              "malformed .debug_line at offset 0x%x: row of a file the header does not "
              "list" % row_after_set_file)]
    for name, offset, patch, expected in cases:
        data = bytearray(image)
        data[start + offset:start + offset + len(patch)] = patch
        result = run_on_bytes(bytes(data), path)
        results.check("line table %s: %s: exit 1, \"line_rows: FILE: %s\""
                      % (label, name, expected),
                      result.returncode == 1 and result.stdout == "" and
                      result.stderr == "line_rows: %s: %s\n" % (path, expected),
                      "exit %d\n%s" % (result.returncode, result.stderr[-1500:]))
    # Bytes changed at random (seeded: the same every run): an answer or
    # one line of error, nothing else.
    generator = random.Random(19)
    bad = []
    for _ in range(200):
        data = bytearray(image)
        for _ in range(generator.randint(1, 4)):
            data[start + generator.randrange(size)] = generator.randrange(256)
        result = run_on_bytes(bytes(data), path)
        if not (result.returncode == 0 or
                (result.returncode == 1 and result.stderr.count("\n") == 1
                 and result.stderr.startswith("line_rows: %s: " % path))):
            bad.append("exit %d: %s" % (result.returncode, result.stderr[-600:]))
    results.check("line table %s: 200 damaged .debug_line: rows or one line of error, "
                  "never a crash" % label, not bad, "\n".join(bad[:3]))


def run_all(results: Results, kernels):
    """kernels: [(name, elf)] from e2e_tests.run_all."""
    extra = [(label, build(results, label, variables)) for label, variables in EXTRA_BUILDS]
    if extra[-1][1]:
        check_compressed(results, extra[-1][1])
    if extra[0][1]:
        check_malformed(results, "dwarf4", extra[0][1], 4)
    for name, elf in kernels:
        if name == "kernel-gcc-O2-fp1":
            check_malformed(results, "dwarf5", elf, 5)
    for name, elf in list(kernels) + [(label, elf) for label, elf in extra if elf]:
        check_kernel(results, name, elf)

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
difference is accepted only as one of the addr2line bugs known_difference()
names. Of the rows a program gives one address, addr2line takes the last,
GDB (so its bt) mostly the last statement: with GDB's choice (line_rows
--gdb) the table must equal GDB's `info line` at every instruction of the
kernels GDB_CHOICE_KERNELS names.

Damaged line programs must give one line of error. Each kernel's distinct
rows are printed with the bytes two compact layouts would take (issue 19's
1.85 bytes per row).
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
# The kernels whose every instruction is also asked of GDB (a GDB session
# per kernel): each compiler, optimization level and DWARF version once.
GDB_CHOICE_KERNELS = {"gcc-O0-fp1", "gcc-O2-fp1", "gcc-Os-fp0", "clang-O2-fp1",
                      "lines-gcc-dwarf4", "lines-clang-dwarf4", "lines-gcc-gz"}
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


def table_answers(elf, addresses, choice=()):
    """The table's file:line per address; choice ["--gdb"]: GDB's choice of
    rows at one address."""
    result = run([LINE_ROWS] + list(choice) + [elf],
                 input="".join("%x\n" % a for a in addresses), timeout=300)
    answers = [line.split(" ", 1)[1] for line in result.stdout.splitlines()]
    return result, answers


def gdb_answers(elf, addresses):
    """GDB's file:line (`info line *ADDR`) per address, "??:0" where it
    has none; GDB names files as the table does, relative to the
    compilation directory. One GDB reads a command file of them all."""
    if not addresses:
        return []
    commands = elf + ".info-line.gdb"
    with open(commands, "w") as out:
        out.write("".join("info line *0x%x\n" % a for a in addresses))
    result = run(["gdb-multiarch", "-batch", "-nx", "-ex", "file " + elf, "-x", commands],
                 timeout=600)
    answers = []
    for line in result.stdout.splitlines():
        found = GDB_LINE_RE.match(line)
        if found:
            answers.append("%s:%s" % (found.group(2), found.group(1))
                           if found.group(1) else NO_LINE)
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


def code_ranges(elf):
    """[start, end) of each allocated executable section (readelf -S)."""
    ranges = []
    for line in run([CROSS + "readelf", "-SW", elf]).stdout.splitlines():
        fields = line.split("]", 1)[1].split() if "]" in line else []
        if len(fields) >= 7 and "A" in fields[6] and "X" in fields[6]:
            start = int(fields[2], 16)
            ranges.append((start, start + int(fields[4], 16)))
    return ranges


def distinct_rows(elf):
    """The table's rows in the code with GDB's choice (what a trace that
    equals GDB's bt must embed), as (address, file or None at an end, line),
    one per address range with a distinct (file, line)."""
    ranges = code_ranges(elf)
    rows = []
    for line in run([LINE_ROWS, "--rows", "--gdb", elf], timeout=120).stdout.splitlines():
        address, where = line.split(" ", 1)
        address = int(address, 16)
        if not any(start <= address < end for start, end in ranges):
            continue
        key = (None, 0) if where == "end" else tuple(where.rsplit(":", 1))
        if not rows or rows[-1][1:] != key:
            rows.append((address,) + key)
    return rows


def uleb_size(value):
    size = 1
    while value >= 128:
        value >>= 7
        size += 1
    return size


def sleb_size(value):
    size = 1
    while not -64 <= value < 64:
        value >>= 7
        size += 1
    return size


def lineinfo_size(rows, files):
    """Linux LINEINFO's compressed layout as the issue describes it: blocks
    of 64 rows, 8 bytes of index each (address, offset); each row after a
    block's first: address delta, file, line delta as LEB128."""
    size = 0
    for i, (address, file, line) in enumerate(rows):
        if i % 64 == 0:
            size += 8 + uleb_size(files[file]) + uleb_size(int(line))
        else:
            size += (uleb_size(address - rows[i - 1][0]) + uleb_size(files[file])
                     + sleb_size(int(line) - int(rows[i - 1][2])))
    return size


def exp_golomb_bits(value, k):
    return 2 * (((value >> k) + 1).bit_length() - 1) + 1 + k


def bit_packed_size(rows, files, address_k, line_k):
    """A proposal for the issue's 1.85 bytes per row: blocks of 64 rows, 8
    bytes of index each (address, bit offset); a block's first row has its
    file and line (16 bits) in full; each other row is a bit string:
    (address delta / 2 - 1) as exp-Golomb(address_k); the line's delta from
    the last line of its own file in the block, zigzagged, as
    exp-Golomb(line_k); then 1 bit if the file is the previous row's, else
    3 bits: the second or third most recent file of the block, or the file
    number (log2 files bits) after them. Each block ends on a byte."""
    file_bits = max(1, (len(files) - 1).bit_length())
    size = 0
    for block in range(0, len(rows), 64):
        bits = file_bits + 16
        recent = [rows[block][1]]
        last_line = {rows[block][1]: int(rows[block][2])}
        for i in range(block + 1, min(block + 64, len(rows))):
            address, file, line = rows[i]
            delta = int(line) - last_line.get(file, int(rows[i - 1][2]))
            zigzag = 2 * delta if delta >= 0 else -2 * delta - 1
            bits += exp_golomb_bits((address - rows[i - 1][0]) // 2 - 1, address_k)
            bits += exp_golomb_bits(zigzag, line_k)
            bits += 1 if file == recent[0] else 3 if file in recent[1:3] else 3 + file_bits
            if file in recent:
                recent.remove(file)
            recent.insert(0, file)
            last_line[file] = int(line)
        size += 8 + (bits + 7) // 8
    return size


def measure(name, elf):
    """Prints the distinct rows and the bytes two compact layouts take."""
    rows = distinct_rows(elf)
    if not rows:
        return
    files = {file: n for n, file in enumerate(sorted({r[1] for r in rows}, key=str))}
    lineinfo = lineinfo_size(rows, files)
    packed, address_k, line_k = min((bit_packed_size(rows, files, a, k), a, k)
                                    for a in range(3) for k in range(5))
    print("  %s: %d distinct rows; LINEINFO's layout %d bytes (%.2f per row); bit-packed "
          "(k=%d,%d) %d bytes (%.2f per row)"
          % (name, len(rows), lineinfo, lineinfo / len(rows), address_k, line_k, packed,
             packed / len(rows)), flush=True)


def check_gdb_choice(results, name, elf):
    """With GDB's choice of rows (line_rows --gdb), the table equals GDB's
    `info line` at every instruction: what the panic trace must print to
    equal GDB's bt."""
    addresses = instruction_addresses(elf)
    tool, ours = table_answers(elf, addresses, ["--gdb"])
    gdb = gdb_answers(elf, addresses)
    differences = [(a, o, g) for a, o, g in zip(addresses, ours, gdb) if o != g]
    print("  %s: %d instructions, %d equal to GDB's info line with GDB's choice of rows"
          % (name, len(addresses), len(addresses) - len(differences)), flush=True)
    results.check("line table %s, GDB's choice: every instruction's file:line equals GDB's"
                  % name,
                  tool.returncode == 0 and len(ours) == len(gdb) == len(addresses) > 0
                  and not differences,
                  tool.stderr[-1000:] + "\n" + "\n".join(
                      "0x%x: table %s, GDB %s" % d for d in differences[:40]))


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


def run_on_bytes(data, path, choice=()):
    with open(path, "wb") as out:
        out.write(data)
    return run([LINE_ROWS, "--rows"] + list(choice) + [path], timeout=60)


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
    # one line of error, nothing else; half with GDB's choice of rows.
    generator = random.Random(19)
    bad = []
    for attempt in range(200):
        data = bytearray(image)
        for _ in range(generator.randint(1, 4)):
            data[start + generator.randrange(size)] = generator.randrange(256)
        result = run_on_bytes(bytes(data), path, ["--gdb"] if attempt % 2 else [])
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
        if name.replace("kernel-", "") in GDB_CHOICE_KERNELS:
            check_gdb_choice(results, name, elf)
        measure(name, elf)

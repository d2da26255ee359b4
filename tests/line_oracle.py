"""The line table and its inlined calls (issue 19) against binutils'
addr2line: at every instruction address objdump disassembles in a kernel,
the tracer's own lookup (tracer/lines.c, run by tests/tools/line_lookup
--answers on the table of the image) gives the file:line `addr2line -f -i
-e ELF` prints first (the innermost location, the line table's answer) and
the chain of inlined calls it prints after: one addr2line and one
line_lookup per kernel, all addresses at once.

For one address addr2line prints pairs of lines: the innermost function and
the location of the address, then each caller and the location of the call
it makes. So the chain of inlined calls, innermost first, is: the function
of each pair but the last, with the location of the pair after it.
addr2line prints paths joined to the compilation directory; the table keeps
them relative to it (as Linux's LINEINFO does), so the compilation
directories (DW_AT_comp_dir, from readelf) are taken off addr2line's
answers; its " (discriminator N)" suffix is dropped; line 0 or none is 0.

Where the lookup and addr2line differ, GDB is asked at those addresses (one
GDB a kernel: `info line *ADDR`, and the chain of its blocks), and the
difference passes only if the lookup equals GDB and a checked reason says
why addr2line differs: the table takes GDB's choice of the rows a program
gives one address (line_choice), or an addr2line (binutils 2.40) bug
explain_line() and explain_chain() name, each checked with GDB, readelf and
symgen's readers (tests/tools/line_rows, inline_rows).

make test (run_all): the e2e kernels (the rv32 ones too), which make test
builds anyway; the readers' answers to damaged debugging information (a
line of error, never a crash) on a few kernels, with fewer random images
than the full run.

The full run (not in make test: it builds five more images and asks GDB at
every instruction, about 5 min):

    python3 tests/line_oracle.py --full [LABEL | ELF]...

adds the kernels built with -gdwarf-4 (gcc and clang) and with compressed
debug sections (-gz), two fixtures linked with -flto (references across
units) and DWARF written by hand in the forms the compilers do not use for
the kernels (tests/fixtures/inline_forms.S, its chains derived by hand);
asks GDB at every instruction of every kernel (the table must equal GDB's
`info line` and blocks everywhere: what the trace must print to equal GDB's
bt); damages 200 images a kernel; and prints the sizes: each kernel's
distinct rows with the bytes two compact layouts would take, and its
inlined calls. LABEL: a kernel of those (e2e labels without "kernel-");
ELF: any other image, such as make bench's build/bench-10x/kernel.elf. It
exits 1 if a check fails.
"""
import functools
import os
import random
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import testlib  # noqa: E402
from testlib import (CROSS, GDB, HOST_BUILD, ROOT, SHARED_OBJECTS, TEST_BUILD, Results,  # noqa: E402
                     in_parallel, info, run)

LINE_LOOKUP = os.path.join(HOST_BUILD, "line_lookup")
LINE_ROWS = os.path.join(HOST_BUILD, "line_rows")
INLINE_ROWS = os.path.join(HOST_BUILD, "inline_rows")
# Kernels the full run builds, beside the e2e ones: (label, make variables).
EXTRA_BUILDS = [
    ("lines-gcc-dwarf4", ["OPT=-O2 -gdwarf-4"]),
    ("lines-clang-dwarf4", ["CC=clang", "OPT=-O2 -gdwarf-4"]),
    ("lines-gcc-gz", ["OPT=-O2 -gz"]),
]
# The kernels whose debugging information is damaged on purpose: DWARF 5
# from gcc (line programs and .debug_info) and clang (.debug_info) in make
# test; in the full run also DWARF 4 from gcc and clang, and the
# hand-written forms. Line programs: label -> DWARF version.
LINE_MALFORMED = {"gcc-O2-fp1": 5, "lines-gcc-dwarf4": 4}
INLINE_MALFORMED = {"gcc-O2-fp1", "clang-O2-fp1", "lines-gcc-dwarf4", "lines-clang-dwarf4",
                    "inline-forms"}
# Images damaged at random a kernel, by make test and by the full run.
DAMAGED_IMAGES_TEST = 16
# The kernels make test damages: one per compiler and level (the readers'
# handling of damage does not depend on frame pointers or CFI); every
# instruction of every kernel is still checked.
DAMAGED_KERNELS = {"kernel-gcc-O0-fp1", "kernel-gcc-O2-fp1", "kernel-gcc-Os-fp1",
                   "kernel-clang-O2-fp1"}
DAMAGED_IMAGES_FULL = 200
COMPRESSED_SECTIONS = [".debug_line", ".debug_info", ".debug_abbrev", ".debug_rnglists"]
INSTRUCTION_RE = re.compile(r"^\s*([0-9a-f]+):\t([0-9a-f ]+?) *\t", re.M)
COMP_DIR_RE = re.compile(r"DW_AT_comp_dir\s*:.*?(/\S*)\s*$", re.M)
NO_LINE = "??:0"
RAWLINE_OPCODE_RE = re.compile(r"^\s+\[(0x[0-9a-f]+)\]\s+(.*)$", re.M)
DISCRIMINATOR_RE = re.compile(r" \(discriminator \d+\)$")
GDB_LINE_RE = re.compile(r'^(?:Line (\d+) of "([^"]*)"|No line number information)')
ENTRY_RE = re.compile(r"^ <\d+><([0-9a-f]+)>: Abbrev Number: \d+ \((\w+)\)")
RNGLISTX_RE = re.compile(r"^\s+<[0-9a-f]+>\s+DW_AT_ranges\s*: \(index: (?:0x)?[0-9a-f]+\)")
ATTRIBUTE_RE = re.compile(r"^\s+<([0-9a-f]+)>\s+(DW_AT_\w+)\s*:")


def addresses_input(addresses):
    return "".join("%x\n" % a for a in addresses)


def instructions(elf):
    """(address, bytes) of every instruction objdump disassembles, in
    order."""
    result = run([CROSS + "objdump", "-d", elf], timeout=120)
    return [(int(address, 16), len(encoding.replace(" ", "")) // 2)
            for address, encoding in INSTRUCTION_RE.findall(result.stdout)]


def compilation_dirs(elf):
    """The DW_AT_comp_dir of every unit, longest first (readelf's units
    alone: --dwarf-depth=1)."""
    result = run([CROSS + "readelf", "--debug-dump=info", "--dwarf-depth=1", elf], timeout=120)
    return sorted(set(COMP_DIR_RE.findall(result.stdout)), key=len, reverse=True)


def location(text, dirs):
    """addr2line's file:line as the table names it: without the
    discriminator, relative to the compilation directory, line 0 for none."""
    text = DISCRIMINATOR_RE.sub("", text)
    if text.endswith(":?"):
        text = text[:-1] + "0"
    for d in dirs:
        if text.startswith(d + "/"):
            return text[len(d) + 1:]
    return text


def addr2line_answers(elf, addresses, dirs):
    """Per address, addr2line's (file:line, chain of inlined calls
    [(function, call file:line)], innermost first). One addr2line reads them
    all (-a marks where each address's answer starts)."""
    result = run([CROSS + "addr2line", "-a", "-f", "-i", "-e", elf],
                 input="".join("0x%x\n" % a for a in addresses), timeout=600)
    answers = {}
    lines = result.stdout.splitlines()
    i = 0
    for address in addresses:
        if i >= len(lines) or not lines[i].startswith("0x") or int(lines[i], 16) != address:
            raise RuntimeError("addr2line: no answer for 0x%x at line %d" % (address, i))
        i += 1
        pairs = []
        while i + 1 < len(lines) and not lines[i].startswith("0x"):
            pairs.append((lines[i], location(lines[i + 1], dirs)))
            i += 2
        answers[address] = (pairs[0][1] if pairs else NO_LINE,
                            [(pairs[n][0], pairs[n + 1][1]) for n in range(len(pairs) - 1)])
    return answers


def lookup_answers(elf, addresses):
    """(the run, per address the lookup's (file:line, chain)): line_lookup
    --answers, the tracer's lookup on the image's table."""
    result = run([LINE_LOOKUP, "--answers", elf], input=addresses_input(addresses),
                 timeout=300)
    answers = {}
    for line in result.stdout.splitlines():
        fields = line.split("\t")
        address, where = fields[0].split(" ", 1)
        answers[int(address, 16)] = (where, [tuple(f.split(" ", 1)) for f in fields[1:]])
    return result, answers


def reader_lines(elf, addresses, choice=()):
    """Per address, the file:line of symgen's rows (tests/tools/line_rows):
    addr2line's choice among rows at one address, or with ["--gdb"] GDB's."""
    if not addresses:
        return {}
    result = run([LINE_ROWS] + list(choice) + [elf], input=addresses_input(addresses),
                 timeout=300)
    return {int(address, 16): where for address, where in
            (line.split(" ", 1) for line in result.stdout.splitlines())}


def reader_chains(elf, addresses):
    """Per address, symgen's chain of inlined calls (tests/tools/inline_rows):
    ([(function, call file:line)], the offsets in .debug_info of the calls'
    entries)."""
    if not addresses:
        return {}
    result = run([INLINE_ROWS, elf], input=addresses_input(addresses), timeout=600)
    answers = {}
    for line in result.stdout.splitlines():
        fields = line.split("\t")
        calls = [f.split(" ", 2) for f in fields[1:]]
        answers[int(fields[0], 16)] = ([(name, where) for _, name, where in calls],
                                       [int(offset, 16) for offset, _, _ in calls])
    return answers


# GDB's answers: `info line *ADDR` (what bt's frame lines take their file
# and line from), and the chain at ADDR from its blocks (gdb.block_for_pc):
# each function's block inside another function's is an inlined call, and
# GDB gives its symbol the call's line and file (DW_AT_call_line,
# DW_AT_call_file): what bt prints for the caller's frame.
GDB_SCRIPT = """
import gdb
def chain(pc):
    block = gdb.block_for_pc(pc)
    calls = []
    while block is not None and not block.is_static and not block.is_global:
        if block.function is not None and not block.superblock.is_static:
            symbol = block.function
            calls.append("%s %s:%d" % (symbol.name,
                                       symbol.symtab.filename if symbol.symtab else "??",
                                       symbol.line))
        block = block.superblock
    return calls
with open(REQUESTS) as requests:
    for request in requests:
        kind, pc = request.split()
        pc = int(pc, 16)
        if kind == "line":
            text = gdb.execute("info line *0x%x" % pc, to_string=True).strip()
            print("line %x\\t%s" % (pc, text.splitlines()[0] if text else ""))
        else:
            print("\\t".join(["chain %x" % pc] + chain(pc)))
"""


def gdb_answers(elf, line_addresses, chain_addresses, dirs):
    """GDB's file:line ("??:0" where it has none; paths made relative to the
    compilation directories as addr2line's are) at each of line_addresses,
    and its chain [(function, call file:line)] at each of chain_addresses.
    One GDB answers them all."""
    lines, chains = {}, {}
    if not line_addresses and not chain_addresses:
        return lines, chains
    requests = elf + ".gdb-requests"
    with open(requests, "w") as out:
        out.write("".join("line %x\n" % a for a in line_addresses))
        out.write("".join("chain %x\n" % a for a in chain_addresses))
    script = elf + ".gdb-answers.py"
    with open(script, "w") as out:
        out.write("REQUESTS = %r\n" % requests + GDB_SCRIPT)
    result = run([GDB, "-batch", "-nx", "-ex", "file " + elf, "-x", script],
                 timeout=1200)
    for line in result.stdout.splitlines():
        fields = line.split("\t")
        kind, _, address = fields[0].partition(" ")
        if kind == "line" and len(fields) == 2:
            found = GDB_LINE_RE.match(fields[1])
            if found:
                lines[int(address, 16)] = (location("%s:%s" % (found.group(2), found.group(1)),
                                                    dirs) if found.group(1) else NO_LINE)
        elif kind == "chain":
            chains[int(address, 16)] = [(name, location(where, dirs)) for name, where in
                                        (f.split(" ", 1) for f in fields[1:])]
    return lines, chains


def known_difference(ours, theirs, gdb):
    """The name of the addr2line (binutils 2.40) bug that explains a
    difference between symgen's rows with addr2line's choice (ours) and
    addr2line's answer (theirs), checked against GDB's, or None.

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

    Where these are, GDB's line may still differ from these rows': of rows
    at one address GDB takes the last that is a statement (is_stmt), not
    the last; addr2line, and so these rows, the last."""
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


def explain_line(ours, theirs, gdb, rows, gdb_rows):
    """The reason the lookup's file:line (ours) differs from addr2line's
    (theirs), checked, or None. The lookup must equal GDB's `info line` and
    symgen's rows of GDB's choice (gdb_rows); then either symgen's rows of
    addr2line's choice (rows) equal addr2line's answer, and the difference
    is the choice among rows at one address ("GDB's choice": addr2line takes
    the last, GDB the last that is a statement, and drops rows of line 0),
    or a known addr2line bug explains why they do not."""
    if ours != gdb or ours != gdb_rows:
        return None
    if rows == theirs:
        return "GDB's choice"
    return known_difference(rows, theirs, gdb)


def explain_chain(ours, reader, offsets, theirs, gdb, rnglistx):
    """The name of the reason for a difference of the lookup's chain (ours)
    with addr2line's (theirs), checked, or None. The lookup must equal GDB's
    chain and symgen's (reader, the calls' entries at offsets).

    "rnglistx": binutils 2.40's addr2line does not read DW_AT_ranges of the
    form DW_FORM_rnglistx (clang 14's, in DWARF 5), so it never finds pc in
    an inlined call whose code those ranges give: its innermost call is the
    first, from the innermost, of the others (or none), and from there it
    follows the entries' nesting as symgen does. Checked: addr2line's chain
    is symgen's without its innermost calls of such ranges (readelf says
    which).

    "asked alone" (check_kernel): binutils 2.40's addr2line, once it has
    looked up an address in a unit whose ranges are in .debug_rnglists, no
    longer finds the inlined calls of a DWARF 4 unit whose ranges are in
    .debug_ranges (seen in inline_forms.S); asked for the address alone, it
    gives the lookup's chain."""
    if ours != gdb or ours != reader:
        return None
    first = 0
    while first < len(offsets) and offsets[first] in rnglistx:
        first += 1
    return "rnglistx" if first > 0 and ours[first:] == theirs else None


def rnglistx_calls(elf):
    """The offsets in .debug_info of the inlined calls whose DW_AT_ranges
    has the form DW_FORM_rnglistx: readelf prints "(index: N)" before the
    list's offset there."""
    calls = set()
    entry = None
    dump = run([CROSS + "readelf", "--debug-dump=info", elf], timeout=300).stdout
    for line in dump.splitlines():
        found = ENTRY_RE.match(line)
        if found:
            entry = int(found.group(1), 16) if found.group(2) == "DW_TAG_inlined_subroutine" \
                else None
        elif entry is not None and RNGLISTX_RE.match(line):
            calls.add(entry)
    return calls


def count_reasons(reasons):
    return ", ".join("%d %s" % (n, r) for r, n in sorted(reasons.items())) or "none"


def check_kernel(results, label, elf, everywhere=False):
    """Every instruction: the lookup's file:line and chain equal addr2line's
    or, where they differ, GDB's, with a checked reason for addr2line's.
    everywhere: GDB is asked at every instruction, and the lookup must
    equal it there."""
    code = instructions(elf)
    addresses = [address for address, _ in code]
    dirs = compilation_dirs(elf)
    theirs = addr2line_answers(elf, addresses, dirs)
    # Each instruction's last byte too: a return address less 1, where a
    # trace looks a caller up, falls there.
    last_bytes = {address: address + size - 1 for address, size in code if size > 1}
    tool, ours = lookup_answers(elf, sorted(set(addresses) | set(last_bytes.values())))
    if not results.check("line table %s: line_lookup --answers answers each of the %d "
                         "instructions" % (label, len(addresses)),
                         tool.returncode == 0 and len(addresses) > 0 and
                         all(a in ours for a in addresses + list(last_bytes.values())),
                         "exit %d\n%s" % (tool.returncode, tool.stderr[-1500:])):
        return
    inside = [a for a, last in last_bytes.items() if ours[last] != ours[a]]
    results.check("line table %s: at the last byte of each of %d instructions (where a "
                  "return address less 1 falls) the lookup gives the instruction's answer"
                  % (label, len(last_bytes)), not inside,
                  "\n".join("0x%x: %s; at 0x%x: %s" % (a, ours[a], last_bytes[a],
                                                      ours[last_bytes[a]])
                             for a in inside[:20]))
    line_differ = [a for a in addresses if ours[a][0] != theirs[a][0]]
    chain_differ = [a for a in addresses if ours[a][1] != theirs[a][1]]
    gdb_lines, gdb_chains = gdb_answers(elf, addresses if everywhere else line_differ,
                                        addresses if everywhere else chain_differ, dirs)
    rows, gdb_rows = reader_lines(elf, line_differ), reader_lines(elf, line_differ, ["--gdb"])
    line_reasons, line_unexplained = {}, []
    for a in line_differ:
        reason = explain_line(ours[a][0], theirs[a][0], gdb_lines.get(a), rows.get(a),
                              gdb_rows.get(a))
        if reason:
            line_reasons[reason] = line_reasons.get(reason, 0) + 1
        else:
            line_unexplained.append(a)
    readers = reader_chains(elf, chain_differ)
    rnglistx = rnglistx_calls(elf) if chain_differ else set()
    chain_reasons, chain_unexplained = {}, []
    for a in chain_differ:
        reader, offsets = readers.get(a, (None, []))
        reason = explain_chain(ours[a][1], reader, offsets, theirs[a][1], gdb_chains.get(a),
                               rnglistx)
        if not reason and ours[a][1] == gdb_chains.get(a) == reader and \
                addr2line_answers(elf, [a], dirs)[a][1] == ours[a][1]:
            reason = "asked alone"
        if reason:
            chain_reasons[reason] = chain_reasons.get(reason, 0) + 1
        else:
            chain_unexplained.append(a)
    info("  %s: %d instructions; file:line: %d equal to addr2line's, differ: %s, "
         "%d unexplained; chains (%d with an inlined call): %d equal to addr2line -i's, "
         "differ: %s, %d unexplained"
         % (label, len(addresses), len(addresses) - len(line_differ),
            count_reasons(line_reasons), len(line_unexplained),
            sum(1 for a in addresses if ours[a][1]), len(addresses) - len(chain_differ),
            count_reasons(chain_reasons), len(chain_unexplained)))
    results.check("line table %s: every instruction's file:line equals addr2line's or, "
                  "where a checked reason explains the difference, GDB's" % label,
                  not line_unexplained,
                  "\n".join("0x%x: lookup %s, addr2line %s, GDB %s; symgen's rows %s, "
                            "of GDB's choice %s"
                            % (a, ours[a][0], theirs[a][0], gdb_lines.get(a), rows.get(a),
                               gdb_rows.get(a)) for a in line_unexplained[:40]))
    results.check("inline chains %s: every instruction's chain equals addr2line -i's or, "
                  "where a checked reason explains the difference, GDB's" % label,
                  not chain_unexplained,
                  "\n".join("0x%x:\n    lookup    %s\n    addr2line %s\n    GDB       %s\n"
                            "    symgen    %s"
                            % (a, ours[a][1], theirs[a][1], gdb_chains.get(a),
                               readers.get(a, (None,))[0]) for a in chain_unexplained[:20]))
    if everywhere:
        differ = [a for a in addresses
                  if ours[a] != (gdb_lines.get(a), gdb_chains.get(a))]
        info("  %s: %d instructions equal to GDB's info line and blocks"
             % (label, len(addresses) - len(differ)))
        results.check("line table %s: every instruction's file:line and chain equal GDB's"
                      % label, not differ,
                      "\n".join("0x%x: lookup %s, GDB %s %s"
                                % (a, ours[a], gdb_lines.get(a), gdb_chains.get(a))
                                for a in differ[:20]))


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


def measure_calls(label, elf):
    """The inlined calls with code, and their distinct (function, call
    file, call line) tuples: input to sizing an inline table."""
    result = run([INLINE_ROWS, "--calls", elf], timeout=600)
    calls = [line.split(" ", 3) for line in result.stdout.splitlines()]
    tuples = {call[3] for call in calls}
    names = {call[3].split(" ", 1)[0] for call in calls}
    files = {call[3].split(" ", 1)[1].rsplit(":", 1)[0] for call in calls}
    ranges = sum(int(call[2]) for call in calls)
    depth = max((int(call[1]) for call in calls), default=-1) + 1
    print("  %s: %d inlined calls with code (%d address ranges, nesting up to %d), "
          "%d distinct (function, call file, call line) of %d functions and %d call files"
          % (label, len(calls), ranges, depth, len(tuples), len(names), len(files)),
          flush=True)


def build(results, label, variables):
    build_dir = os.path.join(TEST_BUILD, label)
    result = run(["make", "-s", "BUILD=" + build_dir, SHARED_OBJECTS] + variables, timeout=600)
    ok = results.check("build %s (%s)" % (label, " ".join(variables)), result.returncode == 0,
                       result.stdout[-2000:] + result.stderr[-2000:])
    return os.path.join(build_dir, "kernel.elf") if ok else None


def build_lto(results):
    """The LTO fixture (tests/fixtures/inline_lto_*.c): references across
    units. None if it does not build."""
    build_dir = os.path.join(TEST_BUILD, "inline-lto")
    os.makedirs(build_dir, exist_ok=True)
    elf = os.path.join(build_dir, "inline_lto.elf")
    result = run([CROSS + "gcc", "-std=c11", "-O2", "-g", "-flto", "-ffreestanding",
                  "-nostdlib", "-march=rv64imac", "-mabi=lp64", "-mcmodel=medany",
                  "tests/fixtures/inline_lto_a.c", "tests/fixtures/inline_lto_b.c",
                  "-o", elf], timeout=300)
    ok = results.check("build the LTO fixture", result.returncode == 0,
                       result.stdout[-2000:] + result.stderr[-2000:])
    if not ok:
        return None
    abbreviations = run([CROSS + "readelf", "--debug-dump=abbrev", elf]).stdout
    results.check("the LTO fixture's origins are DW_FORM_ref_addr references",
                  bool(re.search(r"DW_AT_abstract_origin\s+DW_FORM_ref_addr",
                                 abbreviations)),
                  abbreviations[-2000:])
    return elf


def build_forms(results):
    """The hand-written fixture (tests/fixtures/inline_forms.S): the forms
    the compilers do not write for the kernels. None if it does not build."""
    build_dir = os.path.join(TEST_BUILD, "inline-forms")
    os.makedirs(build_dir, exist_ok=True)
    obj = os.path.join(build_dir, "inline_forms.o")
    elf = os.path.join(build_dir, "inline_forms.elf")
    result = run([CROSS + "gcc", "-c", "-march=rv64imac", "-mabi=lp64",
                  "tests/fixtures/inline_forms.S", "-o", obj], timeout=120)
    if result.returncode == 0:
        result = run([CROSS + "ld", "-e", "_start", obj, "-o", elf], timeout=120)
    ok = results.check("build the hand-written fixture", result.returncode == 0,
                       result.stdout[-2000:] + result.stderr[-2000:])
    return elf if ok else None


# The chains of inline_forms.S, by offset from _start, as its comment
# derives them by hand from the ranges it writes.
OUTER = ("inl_outer", "inline_forms.c:20")
INNER = ("inl_inner", "inline_forms.h:5")
FORMS_CHAINS = dict(
    [(offset, []) for offset in (0x00, 0x04, 0x30, 0x34, 0x38, 0x3c, 0x5c)]
    + [(offset, [OUTER]) for offset in (0x08, 0x0c, 0x18, 0x1c, 0x2c, 0x48, 0x4c, 0x58)]
    + [(offset, [INNER, OUTER]) for offset in (0x10, 0x20, 0x24, 0x28, 0x40, 0x44)]
    + [(0x14, [("inl_spec", "inline_forms.h:7"), INNER, OUTER])]
    + [(offset, [("inl_deep", "inline_forms.c:300")]) for offset in (0x50, 0x54)]
    + [(offset, []) for offset in (0x68, 0x6c, 0x78, 0x7c)]
    + [(offset, [("inl_v4", "inline_forms.h:40")]) for offset in (0x60, 0x64, 0x70, 0x74)])


def check_forms(results, elf):
    """The chains of symgen's reader and of the lookup in the hand-written
    fixture equal the hand-derived ones, at each of its 32 instructions."""
    start = next(int(line.split()[0], 16) for line in
                 run([CROSS + "nm", elf]).stdout.splitlines() if line.endswith(" _start"))
    expected = {start + offset: chain for offset, chain in FORMS_CHAINS.items()}
    readers = reader_chains(elf, sorted(expected))
    tool, ours = lookup_answers(elf, sorted(expected))
    wrong = ["_start+0x%x: symgen %s, lookup %s, by hand %s"
             % (a - start, readers.get(a, (None,))[0], ours.get(a, (None, None))[1], chain)
             for a, chain in sorted(expected.items())
             if readers.get(a, (None,))[0] != chain or ours.get(a, (None, None))[1] != chain]
    results.check("inline chains inline-forms: the chains derived by hand",
                  tool.returncode == 0 and not wrong, tool.stderr + "\n".join(wrong))


def check_compressed(results, elf):
    """The -gz kernel's debug sections are compressed (flag C in readelf
    -S), so that its checks cover the inflating reader."""
    flags = {}
    for line in run([CROSS + "readelf", "-SW", elf]).stdout.splitlines():
        fields = line.split("]", 1)[1].split() if "]" in line else []
        if fields and fields[0] in COMPRESSED_SECTIONS:
            flags[fields[0]] = fields[6]
    results.check("line table: the -gz kernel's %s are compressed"
                  % ", ".join(COMPRESSED_SECTIONS),
                  sorted(flags) == sorted(COMPRESSED_SECTIONS)
                  and all("C" in f for f in flags.values()), "readelf -S flags: %s" % flags)


def section_offset(elf, name):
    """The file offset and size of a section, from readelf."""
    for line in run([CROSS + "readelf", "-SW", elf]).stdout.splitlines():
        if "] %s " % name in line:
            fields = line.split("]", 1)[1].split()
            return int(fields[3], 16), int(fields[4], 16)
    return None


def run_on_bytes(tool, data, path, options=()):
    with open(path, "wb") as out:
        out.write(data)
    return run([tool] + list(options) + [path], timeout=60)


def damaged_images(image, sections, images):
    """`images` copies of image (seeded: the same every run), each with 1 to
    4 bytes changed at random in one of sections [(name, (start, size))]:
    the first section for every other copy, any for the rest."""
    generator = random.Random(19)
    for attempt in range(images):
        data = bytearray(image)
        name, (start, size) = (sections[0] if attempt % 2 else generator.choice(sections))
        for _ in range(generator.randint(1, 4)):
            data[start + generator.randrange(size)] = generator.randrange(256)
        yield attempt, name, bytes(data)


def check_damaged(results, what, tool, label, image, sections, images, path, options):
    """Each damaged image: the tool's answer or one line of error, nothing
    else (the tools run under ASan and UBSan); options(attempt) its options."""
    name = os.path.basename(tool)
    bad = []
    for attempt, section, data in damaged_images(image, sections, images):
        result = run_on_bytes(tool, data, path, options(attempt))
        if not (result.returncode == 0 or
                (result.returncode == 1 and result.stderr.count("\n") == 1
                 and result.stderr.startswith("%s: %s: " % (name, path)))):
            bad.append("%s: exit %d: %s" % (section, result.returncode,
                                             result.stderr[-600:]))
    results.check("%s %s: %d damaged images: %s or one line of error, never a crash"
                  % (what, label, images, "rows" if name == "line_rows" else "the calls"),
                  not bad, "\n".join(bad[:3]))


def check_malformed_lines(results, label, elf, version, images):
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
        result = run_on_bytes(LINE_ROWS, bytes(data), path, ["--rows"])
        results.check("line table %s: %s: exit 1, \"line_rows: FILE: %s\""
                      % (label, name, expected),
                      result.returncode == 1 and result.stdout == "" and
                      result.stderr == "line_rows: %s: %s\n" % (path, expected),
                      "exit %d\n%s" % (result.returncode, result.stderr[-1500:]))
    # Half with GDB's choice of rows.
    check_damaged(results, "line table", LINE_ROWS, label, image,
                  [(".debug_line", found)], images, path,
                  lambda attempt: ["--rows", "--gdb"] if attempt % 2 else ["--rows"])


def inlined_entries(elf):
    """The DW_TAG_inlined_subroutine entries of readelf's dump: (offset,
    [(attribute, value offset, value bytes)], unit's DWARF version); bytes 0
    for an implicit constant (its value is in the abbreviation)."""
    entries = []
    current = None
    version = None
    dump = run([CROSS + "readelf", "--debug-dump=info", elf], timeout=300).stdout
    for line in dump.splitlines():
        if line.startswith("   Version:"):
            version = int(line.split()[1])
        found = ENTRY_RE.match(line)
        attribute = ATTRIBUTE_RE.match(line)
        if found or attribute:
            offset = int((found or attribute).group(1), 16)
            if current and current[1] and current[1][-1][2] is None:
                name, at, _ = current[1][-1]
                current[1][-1] = (name, at, offset - at)
        if found:
            current = (offset, [], version) \
                if found.group(2) == "DW_TAG_inlined_subroutine" else None
            if current:
                entries.append(current)
        elif attribute and current:
            current[1].append((attribute.group(2), int(attribute.group(1), 16), None))
    return entries


def first_attribute(entries, name, size):
    """(entry offset, value offset, unit's version) of the first inlined call
    whose `name` attribute takes `size` bytes in the entry."""
    for offset, attributes, version in entries:
        for attribute, at, length in attributes:
            if attribute == name and length == size:
                return offset, at, version
    return None


def check_malformed_calls(results, label, elf, images):
    """Damaged debugging information: one line of error naming the file and
    the offset, exit 1, never a crash (inline_rows runs under ASan and
    UBSan). Offsets from readelf's dump; each patch hand-derived."""
    sections = {name: section_offset(elf, name)
                for name in (".debug_info", ".debug_abbrev", ".debug_rnglists",
                             ".debug_ranges", ".debug_addr", ".debug_str_offsets")}
    info, _ = sections[".debug_info"]
    entries = inlined_entries(elf)
    cases = [("unit length past the section", 0, b"\xf0\xff\xff\xfe",
              "malformed .debug_info at offset 0x0: unit header truncated, or of a "
              "version or address size symgen does not know")]
    origin = first_attribute(entries, "DW_AT_abstract_origin", 4)
    if origin:  # ref4, from the unit's start: past every unit
        cases.append(("DW_AT_abstract_origin past the units", origin[1], b"\xff\xff\xff\x7f",
                      "malformed .debug_info at offset 0x%x: reference out of the units "
                      "of .debug_info" % origin[0]))
    call_file = first_attribute(entries, "DW_AT_call_file", 1)
    if call_file:  # data1 or udata: file 127, past the few files of a unit
        cases.append(("DW_AT_call_file past the files", call_file[1], b"\x7f",
                      "malformed .debug_info at offset 0x%x: DW_AT_call_file past the line "
                      "program's files" % call_file[0]))
    range_list = first_attribute(entries, "DW_AT_ranges", 4)
    if range_list:  # sec_offset
        ranges = ".debug_rnglists" if range_list[2] >= 5 else ".debug_ranges"
        cases.append(("DW_AT_ranges past " + ranges, range_list[1], b"\xff\xff\xff\x7f",
                      "malformed .debug_info at offset 0x%x: range list offset past %s"
                      % (range_list[0], ranges)))
    work = os.path.join(TEST_BUILD, "inlines-malformed")
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, label + ".elf")
    image = open(elf, "rb").read()
    for name, offset, patch, expected in cases:
        data = bytearray(image)
        data[info + offset:info + offset + len(patch)] = patch
        result = run_on_bytes(INLINE_ROWS, bytes(data), path, ["--calls"])
        results.check("inline chains %s: %s: exit 1, \"inline_rows: FILE: %s\""
                      % (label, name, expected),
                      result.returncode == 1 and result.stdout == "" and
                      result.stderr == "inline_rows: %s: %s\n" % (path, expected),
                      "exit %d\n%s" % (result.returncode, result.stderr[-1500:]))
    # Half in .debug_info.
    present = [(name, where) for name, where in sorted(sections.items()) if where]
    present.sort(key=lambda section: section[0] != ".debug_info")
    check_damaged(results, "inline chains", INLINE_ROWS, label, image, present, images, path,
                  lambda attempt: ["--calls"])


def check_malformed(results, label, elf, images):
    """The readers' damaged inputs, on the kernels LINE_MALFORMED and
    INLINE_MALFORMED name."""
    label = label.replace("kernel-", "")
    if label in LINE_MALFORMED:
        check_malformed_lines(results, label, elf, LINE_MALFORMED[label], images)
    if label in INLINE_MALFORMED:
        check_malformed_calls(results, label, elf, images)


def run_all(results: Results, kernels):
    """make test: kernels, [(name, elf)] from e2e_tests.run_all, side by
    side; not gcc's kernels without unwind tables, whose code and lines are
    those of the same build without frame pointers (-fno-asynchronous-unwind-
    tables changes no code: the full run compares them all, --full)."""
    kernels = [(name, elf) for name, elf in kernels
               if not (name.startswith("kernel-gcc-") and name.endswith("-nocfi"))]
    in_parallel([functools.partial(check_kernel, results, name, elf) for name, elf in kernels]
                + [functools.partial(check_malformed, results, name, elf, DAMAGED_IMAGES_TEST)
                   for name, elf in kernels if name in DAMAGED_KERNELS])


def full_kernels(results, labels):
    """(label, elf) of the e2e kernels, the extra ones and the fixtures;
    those not built yet are built (as e2e_tests builds them); of labels
    only, if any (an ELF path is taken as it is)."""
    import e2e_tests
    found = [(label, label) for label in labels if os.path.isfile(label)]
    labels = [label for label in labels if not os.path.isfile(label)]
    if found and not labels:
        return found
    configs = [(label, variables, e2e_tests.build) for label, variables, _ in e2e_tests.CONFIGS]
    configs += [(label, variables, functools.partial(e2e_tests.build, user_code=e2e_tests.RV32_CODE))
                for label, variables, *_ in e2e_tests.RV32_BUILDS]
    configs += [(label, variables, build) for label, variables in EXTRA_BUILDS]
    for label, variables, builder in configs:
        if labels and label not in labels:
            continue
        elf = os.path.join(TEST_BUILD, label, "kernel.elf")
        if not os.path.exists(elf):
            elf = builder(results, label, variables)
        if elf:
            found.append((label, elf))
    for label, builder in (("inline-lto", build_lto), ("inline-forms", build_forms)):
        if not labels or label in labels:
            elf = builder(results)
            if elf:
                found.append((label, elf))
    return found


def main(labels):
    testlib.VERBOSE = True  # run by hand: every check and figure
    start = time.time()
    results = Results()
    tools = [os.path.relpath(tool, ROOT) for tool in (LINE_LOOKUP, LINE_ROWS, INLINE_ROWS)]
    tool = run(["make", "-s"] + tools, timeout=600)
    if not results.check("build %s" % " ".join(tools), tool.returncode == 0,
                         tool.stdout[-2000:] + tool.stderr[-2000:]):
        return 1
    found = full_kernels(results, labels)
    for label, elf in found:
        check_kernel(results, label, elf, everywhere=True)
    for label, elf in found:
        if label == "inline-forms":
            check_forms(results, elf)
        if label == "lines-gcc-gz":
            check_compressed(results, elf)
        check_malformed(results, label, elf, DAMAGED_IMAGES_FULL)
    print("Sizes:")
    for label, elf in found:
        measure(label, elf)
        measure_calls(label, elf)
    print("%d passed, %d failed, %.0f s" % (results.passed, results.failed,
                                            time.time() - start))
    return 1 if results.failed else 0


if __name__ == "__main__":
    if sys.argv[1:2] != ["--full"]:
        sys.exit("usage: python3 tests/line_oracle.py --full [LABEL | ELF]...")
    sys.exit(main(sys.argv[2:]))

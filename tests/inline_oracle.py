"""symgen's inlined calls (symgen/dwarf_inlines.c) against binutils'
addr2line -i (issue 19): at every instruction address objdump disassembles
in every test kernel, the chain of inlined calls symgen finds
(tests/tools/inline_rows) equals the one `addr2line -f -i -e ELF` prints.
The kernels: the e2e ones (gcc 12 -O0, -O2, -Os and clang 14 -O2, with and
without frame pointers and CFI; DWARF 5) and line_oracle's (-gdwarf-4 from
gcc and clang, and compressed sections); those not yet built are built. And
inline-lto, two fixtures linked with -flto: references across units; and
inline-forms, DWARF written by hand in the forms the compilers do not use
for the kernels (tests/fixtures/inline_forms.S).

For one address addr2line prints pairs of lines: the innermost function and
the location of the address, then each caller and the location of the call
it makes. So the chain of inlined calls, innermost first, is: the function
of each pair but the last, with the location of the pair after it. Paths
are made relative to the compilation directories as line_oracle does.

GDB's chain is asked too, at every address (its blocks: see GDB_SCRIPT). A
difference with addr2line passes only as the addr2line bug explain() names,
checked with GDB and readelf. Damaged debugging information must give one
line of error, never a crash.

Not in make test (it takes a while; it builds build/host/inline_rows):

    python3 tests/inline_oracle.py [LABEL | ELF]...

(LABEL: a kernel of those above; ELF: any other image, such as make bench's
build/bench-10x/kernel.elf.) It prints, per kernel, the addresses checked,
those with an inlined call, those equal to addr2line's chain and those that
differ, by reason, and those equal to GDB's; then the number of inlined
calls with code and of distinct (function, call file, call line) tuples,
for sizing an inline table. It exits 1 if a check fails.
"""
import os
import random
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import e2e_tests  # noqa: E402
import line_oracle  # noqa: E402
from testlib import CROSS, HOST_BUILD, ROOT, TEST_BUILD, Results, run  # noqa: E402

INLINE_ROWS = os.path.join(HOST_BUILD, "inline_rows")
ENTRY_RE = re.compile(r"^ <\d+><([0-9a-f]+)>: Abbrev Number: \d+ \((\w+)\)")
RNGLISTX_RE = re.compile(r"^\s+<[0-9a-f]+>\s+DW_AT_ranges\s*: \(index: (?:0x)?[0-9a-f]+\)")
# The kernels damaged on purpose: DWARF 5 from gcc and clang, DWARF 4 from gcc
# and clang, and the hand-written forms.
MALFORMED_KERNELS = {"gcc-O2-fp1", "clang-O2-fp1", "lines-gcc-dwarf4", "lines-clang-dwarf4",
                     "inline-forms"}
DAMAGED_IMAGES = 200
COMPRESSED_SECTIONS = [".debug_info", ".debug_abbrev", ".debug_rnglists"]
ATTRIBUTE_RE = re.compile(r"^\s+<([0-9a-f]+)>\s+(DW_AT_\w+)\s*:")


def kernels(results, labels):
    """(label, elf) of the e2e kernels and line_oracle's extra ones; those
    not built yet are built (as e2e_tests and line_oracle build them)."""
    found = [(label, label) for label in labels if os.path.isfile(label)]
    labels = [label for label in labels if not os.path.isfile(label)]
    if found and not labels:
        return found
    for label, build in (("inline-lto", build_lto), ("inline-forms", build_forms)):
        if not labels or label in labels:
            elf = build(results)
            if elf:
                found.append((label, elf))
    configs = [(label, variables, e2e_tests.build) for label, variables, _ in e2e_tests.CONFIGS]
    configs += [(label, variables, line_oracle.build)
                for label, variables in line_oracle.EXTRA_BUILDS]
    for label, variables, build in configs:
        if labels and label not in labels:
            continue
        elf = os.path.join(TEST_BUILD, label, "kernel.elf")
        if not os.path.exists(elf):
            elf = build(results, label, variables)
        if elf:
            found.append((label, elf))
    return found


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
    """symgen's chains in the hand-written fixture equal the hand-derived
    ones, at each of its 32 instructions."""
    start = next(int(line.split()[0], 16) for line in
                 run([CROSS + "nm", elf]).stdout.splitlines() if line.endswith(" _start"))
    expected = {start + offset: chain for offset, chain in FORMS_CHAINS.items()}
    tool, ours, _ = symgen_chains(elf, sorted(expected))
    wrong = ["_start+0x%x: symgen %s, by hand %s" % (a - start, ours.get(a), chain)
             for a, chain in sorted(expected.items()) if ours.get(a) != chain]
    results.check("inline chains inline-forms: the chains derived by hand",
                  tool.returncode == 0 and not wrong, tool.stderr + "\n".join(wrong))


def location(text, dirs):
    """addr2line's file:line, as inline_rows prints it: without the
    discriminator, relative to the compilation directory, line 0 for none."""
    text = line_oracle.DISCRIMINATOR_RE.sub("", text)
    if text.endswith(":?"):
        text = text[:-1] + "0"
    for d in dirs:
        if text.startswith(d + "/"):
            return text[len(d) + 1:]
    return text


def addr2line_chains(elf, addresses, dirs):
    """Per address, addr2line's chain of inlined calls: [(function, call
    file:line)], innermost first. One addr2line reads them all (-a marks
    where each address's answer starts)."""
    result = run([CROSS + "addr2line", "-a", "-f", "-i", "-e", elf],
                 input="".join("0x%x\n" % a for a in addresses), timeout=600)
    answers = {}
    lines = result.stdout.splitlines()
    i = 0
    for address in addresses:
        if i >= len(lines) or lines[i] != "0x%016x" % address:
            raise RuntimeError("addr2line: no answer for 0x%x at line %d" % (address, i))
        i += 1
        pairs = []
        while i + 1 < len(lines) and not lines[i].startswith("0x"):
            pairs.append((lines[i], location(lines[i + 1], dirs)))
            i += 2
        answers[address] = [(pairs[n][0], pairs[n + 1][1]) for n in range(len(pairs) - 1)]
    return answers


def symgen_chains(elf, addresses):
    """Per address, inline_rows' chain: [(function, call file:line)], and
    the offsets in .debug_info of the calls' entries."""
    result = run([INLINE_ROWS, elf], input="".join("%x\n" % a for a in addresses),
                 timeout=600)
    answers, offsets = {}, {}
    for line in result.stdout.splitlines():
        fields = line.split("\t")
        calls = [f.split(" ", 2) for f in fields[1:]]
        answers[int(fields[0], 16)] = [(name, where) for _, name, where in calls]
        offsets[int(fields[0], 16)] = [int(offset, 16) for offset, _, _ in calls]
    return result, answers, offsets


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


# GDB's chain at each address, from its blocks (gdb.block_for_pc): each
# function's block inside another function's is an inlined call, and GDB
# gives its symbol the call's line and file (DW_AT_call_line,
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
with open(ADDRESSES) as addresses:
    for line in addresses:
        pc = int(line, 16)
        print("\t".join(["%x" % pc] + chain(pc)))
"""


def gdb_chains(elf, addresses, dirs):
    """Per address, GDB's chain: [(function, call file:line)], paths as
    addr2line's are made. One GDB reads them all."""
    listing = elf + ".inline-addresses"
    with open(listing, "w") as out:
        out.write("".join("%x\n" % a for a in addresses))
    script = elf + ".inline-chain.py"
    with open(script, "w") as out:
        out.write("ADDRESSES = %r\n" % listing + GDB_SCRIPT)
    result = run(["gdb-multiarch", "-batch", "-nx", "-ex", "file " + elf, "-x", script],
                 timeout=1200)
    answers = {}
    for line in result.stdout.splitlines():
        fields = line.split("\t")
        try:
            address = int(fields[0], 16)
        except ValueError:
            continue  # GDB's own messages
        answers[address] = [(name, location(where, dirs))
                             for name, where in (f.split(" ", 1) for f in fields[1:])]
    return answers


def explain(ours, offsets, theirs, gdb, rnglistx):
    """The name of the reason for a difference with addr2line, checked, or
    None.

    "rnglistx": binutils 2.40's addr2line does not read DW_AT_ranges of the
    form DW_FORM_rnglistx (clang 14's, in DWARF 5), so it never finds pc in
    an inlined call whose code those ranges give: its innermost call is the
    first, from the innermost, of the others (or none), and from there it
    follows the entries' nesting as symgen does. Checked: GDB's chain equals
    symgen's, and addr2line's is symgen's without its innermost calls of
    such ranges (readelf says which).

    "asked alone" (check_kernel): binutils 2.40's addr2line, once it has
    looked up an address in a unit whose ranges are in .debug_rnglists, no
    longer finds the inlined calls of a DWARF 4 unit whose ranges are in
    .debug_ranges (seen in inline_forms.S); asked for the address alone, it
    gives symgen's chain, and so does GDB."""
    if ours != gdb:
        return None
    first = 0
    while first < len(offsets) and offsets[first] in rnglistx:
        first += 1
    return "rnglistx" if first > 0 and ours[first:] == theirs else None


def check_kernel(results, label, elf):
    """Every instruction: symgen's chain equals GDB's, and addr2line's or,
    where they differ, a checked reason explains it."""
    addresses = line_oracle.instruction_addresses(elf)
    dirs = line_oracle.compilation_dirs(elf)
    theirs = addr2line_chains(elf, addresses, dirs)
    tool, ours, offsets = symgen_chains(elf, addresses)
    gdb = gdb_chains(elf, addresses, dirs)
    rnglistx = rnglistx_calls(elf)
    ok = tool.returncode == 0 and len(ours) == len(addresses) > 0
    with_chain = sum(1 for a in addresses if ours.get(a))
    differences = [a for a in addresses if ours.get(a) != theirs[a]]
    reasons = {}
    unexplained = []
    for a in differences:
        reason = explain(ours.get(a), offsets.get(a, []), theirs[a], gdb.get(a), rnglistx)
        if not reason and ours.get(a) == gdb.get(a) and \
                addr2line_chains(elf, [a], dirs)[a] == ours.get(a):
            reason = "asked alone"
        if reason:
            reasons[reason] = reasons.get(reason, 0) + 1
        else:
            unexplained.append(a)
    gdb_differences = [a for a in addresses if ours.get(a) != gdb.get(a)]
    print("  %s: %d addresses, %d with an inlined call (addr2line: %d), %d equal, "
          "%d differ (%s), %d unexplained; %d equal to GDB's"
          % (label, len(addresses), with_chain, sum(1 for a in addresses if theirs[a]),
             len(addresses) - len(differences), len(differences),
             ", ".join("%d %s" % (n, r) for r, n in sorted(reasons.items())) or "none",
             len(unexplained), len(addresses) - len(gdb_differences)), flush=True)
    results.check("inline chains %s: every instruction's chain equals GDB's" % label,
                  ok and not gdb_differences,
                  "\n".join("0x%x:\n    symgen    %s\n    GDB       %s"
                            % (a, ours.get(a), gdb.get(a)) for a in gdb_differences[:20]))
    results.check("inline chains %s: every instruction's chain equals addr2line -i's, or a "
                  "checked reason explains it" % label, ok and not unexplained,
                  tool.stderr[-1000:] + "\n" +
                  "\n".join("0x%x:\n    symgen    %s\n    addr2line %s\n    GDB       %s"
                            % (a, ours.get(a), theirs[a], gdb.get(a))
                            for a in unexplained[:20]))


def measure(label, elf):
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


def check_malformed(results, label, elf):
    """Damaged debugging information: one line of error naming the file and
    the offset, exit 1, never a crash (inline_rows runs under ASan and
    UBSan). Offsets from readelf's dump; each patch hand-derived."""
    sections = {name: line_oracle.section_offset(elf, name)
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
        result = run_on_bytes(bytes(data), path)
        results.check("inline chains %s: %s: exit 1, \"inline_rows: FILE: %s\""
                      % (label, name, expected),
                      result.returncode == 1 and result.stdout == "" and
                      result.stderr == "inline_rows: %s: %s\n" % (path, expected),
                      "exit %d\n%s" % (result.returncode, result.stderr[-1500:]))
    # Bytes changed at random (seeded: the same every run), half in
    # .debug_info: the calls or one line of error, nothing else.
    present = [(name, where) for name, where in sorted(sections.items()) if where]
    generator = random.Random(19)
    bad = []
    for attempt in range(DAMAGED_IMAGES):
        data = bytearray(image)
        name, (start, size) = (present[0] if attempt % 2 else generator.choice(present))
        for _ in range(generator.randint(1, 4)):
            data[start + generator.randrange(size)] = generator.randrange(256)
        result = run_on_bytes(bytes(data), path)
        if not (result.returncode == 0 or
                (result.returncode == 1 and result.stderr.count("\n") == 1
                 and result.stderr.startswith("inline_rows: %s: " % path))):
            bad.append("%s: exit %d: %s" % (name, result.returncode, result.stderr[-600:]))
    results.check("inline chains %s: %d damaged images: the calls or one line of error, "
                  "never a crash" % (label, DAMAGED_IMAGES), not bad, "\n".join(bad[:3]))


def run_on_bytes(data, path):
    with open(path, "wb") as out:
        out.write(data)
    return run([INLINE_ROWS, "--calls", path], timeout=60)


def check_compressed(results, elf):
    """The -gz kernel's .debug_info, .debug_abbrev and .debug_rnglists are
    compressed (flag C in readelf -S), so that its check covers the
    inflating reader."""
    flags = {}
    for line in run([CROSS + "readelf", "-SW", elf]).stdout.splitlines():
        fields = line.split("]", 1)[1].split() if "]" in line else []
        if fields and fields[0] in COMPRESSED_SECTIONS:
            flags[fields[0]] = fields[6]
    results.check("inline chains: the -gz kernel's %s are compressed"
                  % ", ".join(COMPRESSED_SECTIONS),
                  sorted(flags) == sorted(COMPRESSED_SECTIONS)
                  and all("C" in f for f in flags.values()), "readelf -S flags: %s" % flags)


def main(labels):
    start = time.time()
    results = Results()
    tool = run(["make", "-s", os.path.relpath(INLINE_ROWS, ROOT)], timeout=600)
    if not results.check("build inline_rows", tool.returncode == 0,
                         tool.stdout[-2000:] + tool.stderr[-2000:]):
        return 1
    found = kernels(results, labels)
    for label, elf in found:
        check_kernel(results, label, elf)
    for label, elf in found:
        if label == "inline-forms":
            check_forms(results, elf)
        if label == "lines-gcc-gz":
            check_compressed(results, elf)
        if label in MALFORMED_KERNELS:
            check_malformed(results, label, elf)
    print("Sizes:")
    for label, elf in found:
        measure(label, elf)
    print("%d passed, %d failed, %.0f s" % (results.passed, results.failed,
                                            time.time() - start))
    return 1 if results.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

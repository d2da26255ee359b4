"""symgen against binutils: every function symbol nm lists, and every label
it lists in code, must be in the generated table with the same address, the
alias symgen promises, and the right size; an end-of-image symbol below the
tables must fail symgen, and symgen/tracer.mk must build from another
Makefile; past 65,535 unwind-table rows symgen must warn and write an empty
unwind table; the FDE index of --cfi must list the FDEs readelf lists; the
tables' headers (magic, version, word size, counts, checksum) must be what
the spec says, read from the linked bytes; bad input must fail cleanly with
one line, no output file and no leak."""
import functools
import glob
import os
import random
import re
import struct

import e2e_tests
from testlib import CROSS, HOST_BUILD, JOBS, ROOT, SHARED_OBJECTS, TEST_BUILD, in_parallel, run

SYMGEN = os.path.join(HOST_BUILD, "symgen")
SYMGEN_ASAN = os.path.join(HOST_BUILD, "symgen-asan")
# Error exits must free everything: LeakSanitizer reports what they leak.
LEAK_CHECK_ENV = dict(os.environ, ASAN_OPTIONS="detect_leaks=1")
OPENSBI_ELFS = [
    "/usr/lib/riscv64-linux-gnu/opensbi/generic/fw_dynamic.elf",
    "/usr/share/qemu/opensbi-riscv64-generic-fw_dynamic.elf",
]
WORK = os.path.join(TEST_BUILD, "symgen")
BAD_DIR = os.path.join(WORK, "bad")
# A fixed sample, each set: fuzz_symgen searches the same inputs guided by
# coverage.
RANDOM_CORRUPTIONS = 80
# readelf --debug-dump=frames: "<offset> <length> <id> FDE cie=<cie> pc=<begin>..<end>"
FDE_LINE = re.compile(r"^([0-9a-f]+) [0-9a-f]+ [0-9a-f]+ FDE cie=(\S+)\s+pc=([0-9a-f]+)\.\.([0-9a-f]+)$",
                      re.M)
FDE_ENTRY = re.compile(r"^    \{0x([0-9a-f]+)u, 0x([0-9a-f]+)u\},$", re.M)
FDE_COUNT = re.compile(r"tracer_fde_index = \{[^}]*\.count = (\d+),")
# The table header (spec: tracer/table_format.h), written here from the spec.
SYMTAB_MAGIC = b"TSYM"
FDE_INDEX_MAGIC = b"TFDE"
TABLE_VERSION = 2
TARGETS = [("rv64", "rv64imac", "lp64", "elf64lriscv"),
           ("rv32", "rv32imac", "ilp32", "elf32lriscv")]
NO_CFI = "no call-frame information (.eh_frame) in the image"


def unescape_c(body):
    """The inverse of symgen's write_c_string for one literal body."""
    out = bytearray()
    i = 0
    while i < len(body):
        if body[i] == "\\":
            if body[i + 1] in "01234567":
                # An octal escape: one to three digits (C11 6.4.4.4).
                digits = re.match(r"[0-7]{1,3}", body[i + 1:]).group()
                out.append(int(digits, 8))
                i += 1 + len(digits)
            else:
                out.append(ord(body[i + 1]))
                i += 2
        else:
            out.append(ord(body[i]))
            i += 1
    return bytes(out)


def parse_table(path):
    """Reads symgen's C output back: {addr: (name, size)}."""
    text = open(path).read()
    # names[]'s literal (the line table's strings are another), whose own
    # terminating NUL is the last byte of names[].
    start = text.find("static const char names[")
    literal = text[start:text.index('";\n', start) + 3] if start >= 0 else ""
    names = b"".join(unescape_c(m) for m in re.findall(r'^    "(.*)"[;]?$', literal, re.M)) + b"\0"
    table = {}
    for addr, size, offset in re.findall(r"\{0x([0-9a-f]+)u, 0x([0-9a-f]+)u, (\d+)u\}", text):
        name = names[int(offset):names.index(b"\0", int(offset))].decode()
        table[int(addr, 16)] = (name, int(size, 16))
    return table


MASK64 = (1 << 64) - 1
HASH_BLOCK = 64
# tracer/table_hash.h's kinds, in its order.
(SYMTAB_HEADER, SYMBOLS, NAMES, FDE_INDEX_HEADER, FDE_ENTRIES,
 EH_FRAME) = range(1, 7)


def block_hash(kind, block, words):
    """The spec's hash (tracer/table_hash.h), from its text: h = kind *
    0xc2b2ae3d27d4eb4f ^ block * 0x165667b19e3779f9; per word h = (h ^ w) *
    0x9e3779b97f4a7c15, h ^= h >> 29 (mod 2^64); the result h ^ h >> 32,
    its low 32 bits."""
    h = (kind * 0xc2b2ae3d27d4eb4f ^ block * 0x165667b19e3779f9) & MASK64
    for w in words:
        h = ((h ^ w) * 0x9e3779b97f4a7c15) & MASK64
        h ^= h >> 29
    return (h ^ h >> 32) & 0xffffffff


def header_checksum(kind, words):
    """A descriptor's checksum: its 32-bit words as one block 0 of `kind`."""
    return block_hash(kind, 0, words)


def array_hashes(kind, data):
    """The hashes of the blocks of an array's bytes: 64-byte blocks, each
    hashed in little-endian 64-bit words, the last zero-extended."""
    hashes = []
    for block, start in enumerate(range(0, len(data), HASH_BLOCK)):
        chunk = data[start:start + HASH_BLOCK]
        chunk += b"\0" * (-len(chunk) % 8)
        hashes.append(block_hash(kind, block, struct.unpack("<%dQ" % (len(chunk) // 8), chunk)))
    return hashes


def image_hashes(image, addr, count):
    """count 32-bit hashes at addr in the image."""
    return list(struct.unpack("<%dI" % count, image.read(addr, 4 * count))) if count else []


class Image:
    """The loaded bytes of a linked ELF file, read by address through
    readelf's section headers, and its symbols through nm."""

    def __init__(self, elf):
        self.data = open(elf, "rb").read()
        self.word_size = 8 if self.data[4] == 2 else 4
        self.sections = section_headers(elf)
        self.symbols = {fields[2]: int(fields[0], 16) for fields in
                        (line.split() for line in run([CROSS + "nm", elf]).stdout.splitlines())
                        if len(fields) == 3}

    def read(self, addr, size):
        for start, offset, length in self.sections.values():
            if start and start <= addr and addr + size <= start + length:
                return self.data[offset + addr - start:offset + addr - start + size]
        raise ValueError("0x%x+%d is in no section" % (addr, size))

    def word(self, addr):
        return struct.unpack("<Q" if self.word_size == 8 else "<I", self.read(addr, self.word_size))[0]


def names_layout(names):
    """names[] as symgen lays it out (tracer_tables.h): the names in order,
    each with its NUL; one that would cross a 64-byte hash block, and fits
    in one, starts at the next block instead; NULs between, and up to a
    multiple of 4."""
    out = b""
    for name in names:
        data = name.encode() + b"\0"
        room = HASH_BLOCK - len(out) % HASH_BLOCK
        if room < len(data) <= HASH_BLOCK:
            out += b"\0" * room
        out += data
    return out + b"\0" * (-len(out) % 4)


def check_symtab_header(results, label, image, expected):
    """tracer_symtab in the linked image: header fields, and a checksum
    recomputed here over the bytes of symbols[] and names[] it points to;
    decoded, those bytes must be `expected` ({addr: (name, size)}, from nm)."""
    base = image.symbols["tracer_symtab"]
    magic, version, word_size, count, names_size, checksum = struct.unpack(
        "<4sHHIII", image.read(base, 20))
    pointers = base + (24 if image.word_size == 8 else 20)
    symbols_addr, names_addr, hashes_addr = (image.word(pointers + i * image.word_size)
                                             for i in range(3))
    entry = 16 if image.word_size == 8 else 12
    wanted_names = names_layout([name for _, (name, _) in sorted(expected.items())])
    problems = []
    if (magic, version, word_size) != (SYMTAB_MAGIC, TABLE_VERSION, image.word_size):
        problems.append("magic %r version %d word size %d" % (magic, version, word_size))
    if count != len(expected) or names_size != len(wanted_names):
        problems.append("count %d names_size %d, expected %d and %d (names laid out, padded)"
                        % (count, names_size, len(expected), len(wanted_names)))
    if count == 0:
        symbols, names = b"", b""
        if symbols_addr or names_addr or hashes_addr:
            problems.append("empty table with pointers 0x%x, 0x%x, 0x%x"
                            % (symbols_addr, names_addr, hashes_addr))
    else:
        symbols, names = image.read(symbols_addr, count * entry), image.read(names_addr, names_size)
        if names_addr % image.word_size or names != wanted_names:
            problems.append("names[] at 0x%x not laid out as names_layout() says" % names_addr)
        layout = "<QII" if image.word_size == 8 else "<III"
        decoded = {}
        for addr, size, offset in struct.iter_unpack(layout, symbols):
            decoded[addr] = (names[offset:names.index(b"\0", offset)].decode(), size)
        if decoded != expected:
            problems.append("symbols[] decoded from the image differ from nm's")
        wanted = array_hashes(SYMBOLS, symbols) + array_hashes(NAMES, names)
        if image_hashes(image, hashes_addr, len(wanted)) != wanted:
            problems.append("hashes[] at 0x%x differ from the blocks' hashes" % hashes_addr)
    if names_size % 4:
        problems.append("names_size %d is not a multiple of 4" % names_size)
    expected_checksum = header_checksum(SYMTAB_HEADER, [count, names_size])
    if checksum != expected_checksum:
        problems.append("checksum 0x%08x, recomputed 0x%08x" % (checksum, expected_checksum))
    results.check("%s: tracer_symtab header (magic, version, word size %d, count %d, names_size %d,"
                  " checksum) and its blocks' hashes" % (label, image.word_size, count, names_size),
                  not problems, "\n".join(problems))


def check_fde_index_header(results, label, image, expected, source=None):
    """tracer_fde_index in the linked image: header fields, and a checksum
    recomputed here over the entries[] it points to, which must decode to
    `expected` ([(pc_start, fde)] from readelf or nm); the hashes of its
    entries' blocks and of .eh_frame's in `source` (the image symgen read;
    default: image), recomputed here too."""
    base = image.symbols["tracer_fde_index"]
    ws = image.word_size
    magic, version, word_size, count, checksum = struct.unpack("<4sHHII", image.read(base, 16))
    entries_addr, eh_frame = image.word(base + 16), image.word(base + 16 + ws)
    eh_frame_size = struct.unpack("<I", image.read(base + 16 + 2 * ws, 4))[0]
    hashes_addr = image.word(base + 16 + 3 * ws)
    layout = "<QQ" if ws == 8 else "<II"
    entries = image.read(entries_addr, count * 2 * ws) if count else b""
    problems = []
    if (magic, version, word_size) != (FDE_INDEX_MAGIC, TABLE_VERSION, ws):
        problems.append("magic %r version %d word size %d" % (magic, version, word_size))
    if count != len(expected) or list(struct.iter_unpack(layout, entries)) != expected:
        problems.append("count %d, entries differ from the %d expected" % (count, len(expected)))
    if count == 0 and entries_addr:
        problems.append("empty index with pointer 0x%x" % entries_addr)
    # .eh_frame is the source image's (symgen's input), which a generated
    # file linked alone does not hold.
    source = source or image
    section = source.sections.get(".eh_frame")
    if count and (section is None or (eh_frame, eh_frame_size) != (section[0], section[2])):
        problems.append(".eh_frame 0x%x+0x%x, the section's %s" % (eh_frame, eh_frame_size, section))
    if count:
        wanted = (array_hashes(FDE_ENTRIES, entries)
                  + array_hashes(EH_FRAME, source.read(eh_frame, eh_frame_size)))
        if image_hashes(image, hashes_addr, len(wanted)) != wanted:
            problems.append("hashes[] at 0x%x differ from the blocks' hashes" % hashes_addr)
    expected_checksum = header_checksum(FDE_INDEX_HEADER, [count, eh_frame & 0xffffffff,
                                                           eh_frame >> 32, eh_frame_size])
    if checksum != expected_checksum:
        problems.append("checksum 0x%08x, recomputed 0x%08x" % (checksum, expected_checksum))
    results.check("%s: tracer_fde_index header (magic, version, word size %d, count %d, checksum)"
                  " and the hashes of its blocks and .eh_frame's" % (label, ws, count),
                  not problems, "\n".join(problems))


def link_generated(results, label, generated, target):
    """Compiles symgen's output for target (a TARGETS row) and links it alone,
    so its pointers are resolved; returns the image, or None. Also checks the
    object asks for names[] aligned to 8 bytes (the hash reads words)."""
    _, arch, abi, emulation = target
    obj = generated + ".o"
    elf = generated + ".elf"
    steps = [[CROSS + "gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-O2", "-ffreestanding",
              "-march=" + arch, "-mabi=" + abi, "-I" + os.path.join(ROOT, "tracer"), "-c",
              generated, "-o", obj],
             [CROSS + "ld", "-m", emulation, "-e", "0", "-Tdata=0x80001000", obj, "-o", elf]]
    if not run_steps(results, label, steps):
        return None
    if "names[" in open(generated).read():
        # readelf -S: the last column is the section's alignment.
        lines = [line for line in run([CROSS + "readelf", "-S", "-W", obj]).stdout.splitlines()
                 if " .tracer_symtab.names " in line]
        results.check("%s: names[] is aligned to 8 bytes in the object" % label,
                      len(lines) == 1 and int(lines[0].split()[-1]) % 8 == 0, lines)
    return Image(elf)


def target_of(elf):
    """The TARGETS row for elf's class."""
    return TARGETS[0] if open(elf, "rb").read(5)[4] == 2 else TARGETS[1]


def check_generated_headers(results, label, generated, elf, fdes):
    """Links symgen's output `generated` for elf and checks both headers:
    the symbol table against nm's functions of elf, the index against fdes."""
    image = link_generated(results, label, generated, target_of(elf))
    if image:
        check_symtab_header(results, label, image, expected_table(elf)[0])
        check_fde_index_header(results, label, image, fdes, Image(elf))


def check_empty_tables(results):
    """symgen --empty: valid headers with count 0, and word_size the
    target's sizeof(uintptr_t), for rv32 and rv64."""
    for options in [[], ["--cfi"]]:
        out = os.path.join(WORK, "empty%s.c" % "".join(options))
        result = run([SYMGEN, "--empty"] + options + ["-o", out])
        if not results.check("symgen --empty %s runs" % " ".join(options), result.returncode == 0,
                             result.stderr):
            continue
        for target in TARGETS:
            label = "symgen --empty %s for %s" % (" ".join(options), target[0])
            image = link_generated(results, label, out, target)
            if image:
                check_symtab_header(results, label, image, {})
                check_fde_index_header(results, label, image, [])


def code_sections(elf):
    """Names of the sections readelf flags executable (X)."""
    result = run([CROSS + "readelf", "-S", "-W", elf])
    return {m.group(1) for m in re.finditer(
        r"\]\s+(\S+)\s+\S+\s+[0-9a-f]+\s+[0-9a-f]+\s+[0-9a-f]+\s+[0-9a-f]+\s+([A-Za-z]*)\s+\d",
        result.stdout) if "X" in m.group(2)}


def nm_functions(elf):
    """Function symbols as nm lists them, and the untyped labels it lists in
    executable sections (nm leaves out the assembler's own: .L labels,
    mapping symbols): [(name, addr, size, class, section, typed)].
    Uses the dynamic table when the file has no .symtab (OpenSBI's firmware)."""
    result = run([CROSS + "nm", "-f", "sysv", "--defined-only", elf])
    if "no symbols" in result.stderr:
        result = run([CROSS + "nm", "-D", "-f", "sysv", "--defined-only", elf])
    code = code_sections(elf)
    functions = []
    for line in result.stdout.splitlines():
        fields = [f.strip() for f in line.split("|")]
        if len(fields) != 7:
            continue
        typed = fields[3] == "FUNC"
        if typed or (fields[3] == "NOTYPE" and fields[6] in code):
            size = int(fields[4], 16) if fields[4] else 0
            functions.append((fields[0], int(fields[1], 16), size, fields[2], fields[6], typed))
    return functions


def section_headers(elf):
    """{section name: (address, file offset, size)} from readelf's section headers."""
    result = run([CROSS + "readelf", "-S", "-W", elf])
    return {m.group(1): tuple(int(g, 16) for g in m.group(2, 3, 4)) for m in
            re.finditer(r"\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)", result.stdout)}


def section_ends(elf):
    """{section name: end address} from readelf's section headers."""
    return {name: addr + size for name, (addr, _, size) in section_headers(elf).items()}


DIE_RE = re.compile(r"^\s*<\d+><([0-9a-f]+)>: Abbrev Number: \d+(?: \((DW_TAG_\w+)\))?")
DIE_ATTRIBUTE_RE = re.compile(r"^\s*<[0-9a-f]+>\s+(DW_AT_\w+)\s*:\s*(.*)$")
# The attributes dwarf_function_names() reads; a line naming none of them
# (most of a dump's lines) is skipped before it is parsed.
NAMING_ATTRIBUTE_RE = re.compile(r"DW_AT_(?:low_pc|abstract_origin|specification|"
                                 r"linkage_name|MIPS_linkage_name|name )")


def dwarf_function_names(elf):
    """{entry address: name} of every DW_TAG_subprogram with a low pc and a
    name of its own (linkage name, else name), from readelf's dump of
    .debug_info: what GDB's bt names a function by."""
    names = {}
    die = None

    dies = {}  # offset in .debug_info: attributes
    for line in run([CROSS + "readelf", "--debug-dump=info", "-W", elf], timeout=300).stdout.splitlines():
        if "Abbrev Number" in line:
            header = DIE_RE.match(line)
            if header:
                die = dies.setdefault(int(header.group(1), 16), {"tag": header.group(2)})
            continue
        if die is None or not NAMING_ATTRIBUTE_RE.search(line):
            continue
        attribute = DIE_ATTRIBUTE_RE.match(line)
        if attribute:
            value = attribute.group(2)
            if attribute.group(1) == "DW_AT_low_pc":
                # "(addr) 0x80200000"; a unit of several ranges (cold code
                # in .text.unlikely), "(addr) 0"
                die["DW_AT_low_pc"] = int(value.split()[-1], 16)
            elif attribute.group(1) in ("DW_AT_abstract_origin", "DW_AT_specification"):
                # "(ref4) <0x22401>": readelf resolves it to a .debug_info offset
                # (not "(ref_addr)": another unit's entry, which GDB needs LTO for).
                target = re.match(r"^\(ref(?:1|2|4|8|_udata)\) <0x([0-9a-f]+)>", value)
                if target:
                    die["origin"] = int(target.group(1), 16)
            else:
                # "(strp) (offset: 0x2e58): name", "(strx1) ...: name", "(string) name"
                die[attribute.group(1)] = re.match(r"^(?:\([^)]*\)\s*)*:?\s*(.*)$",
                                                   value).group(1)

    def name_of(die, depth=0):
        """Its linkage name, else name, else that of the entry it is an
        instance of (an inlined function's out-of-line copy, a definition
        apart from its declaration)."""
        name = (die.get("DW_AT_linkage_name") or die.get("DW_AT_MIPS_linkage_name")
                or die.get("DW_AT_name"))
        if name or depth >= 4 or die.get("origin") not in dies:
            return name
        return name_of(dies[die["origin"]], depth + 1)

    for die in dies.values():
        if die["tag"] == "DW_TAG_subprogram" and "DW_AT_low_pc" in die and name_of(die):
            names.setdefault(die["DW_AT_low_pc"], set()).add(name_of(die))
    # Two subprograms at one address (folded code): the alphabetically first.
    return {addr: min(found) for addr, found in names.items()}


def expected_table(elf):
    """expected_table_of(elf), computed once per version of the file: the
    checks of a kernel ask for it three times."""
    stat = os.stat(elf)
    expected, count = expected_table_of(elf, (stat.st_ino, stat.st_size, stat.st_mtime_ns))
    return dict(expected), count


@functools.lru_cache(maxsize=None)
def expected_table_of(elf, version):
    """What symgen should write, derived from nm and readelf alone: one entry
    per address, named by a function symbol before an untyped label, then the
    global, else weak, else local name, then the alphabetically first function
    or the alphabetically last label (GDB's pick among labels); sized by the
    largest st_size of the names, else up to the next entry or the end of the
    section, and never past the next entry's start. A label inside a function
    of explicit size, or with no byte after it, is left out (GDB names such
    pcs after the function). A
    function the debugging information names goes by that name, as in GDB's
    bt (an alias's function by its own name), unless the symbol is a
    compiler's copy of it (foo.constprop.0 for foo)."""
    functions = nm_functions(elf)
    ends = section_ends(elf)
    by_addr = {}
    for name, addr, size, cls, section, typed in functions:
        by_addr.setdefault(addr, []).append((name, size, cls, section, typed))
    binding = lambda cls: 0 if cls.isupper() and cls not in "VW" else 1 if cls in "VWvw" else 2
    entries = []
    for addr in sorted(by_addr):
        aliases = by_addr[addr]
        best = min((not a[4], binding(a[2])) for a in aliases)
        names = [a[0] for a in aliases if (not a[4], binding(a[2])) == best]
        typed = not best[0]
        entries.append([addr, min(names) if typed else max(names), max(a[1] for a in aliases),
                        typed, ends[aliases[0][3]]])
    covered, kept = 0, []
    for entry in entries:
        addr, _, size, typed, _ = entry
        if not typed and size == 0 and addr < covered:
            continue
        if size:
            covered = max(covered, addr + size)
        kept.append(entry)
    expected = {}
    dwarf_names = dwarf_function_names(elf)
    for i, (addr, name, size, typed, end) in enumerate(kept):
        if size == 0:
            size = min(end, kept[i + 1][0]) - addr if i + 1 < len(kept) else end - addr
        if typed or size:
            own = dwarf_names.get(addr)
            # A compiler's copy (foo.constprop.0, of foo) keeps its name.
            if typed and own and not name.startswith(own + "."):
                name = own
            expected[addr] = (name, size)
    starts = sorted(expected)
    for addr, next_addr in zip(starts, starts[1:]):
        name, size = expected[addr]
        expected[addr] = (name, min(size, next_addr - addr))
    return expected, len(functions)


def compare_with_nm(results, label, elf):
    out = os.path.join(WORK, label + ".c")
    result = run([SYMGEN, "-o", out, elf])
    if not results.check("symgen runs on %s" % label, result.returncode == 0, result.stderr):
        return
    table = parse_table(out)
    expected, nm_count = expected_table(elf)
    wrong = ["0x%x: nm says %s/0x%x, table has %s" % (addr, exp[0], exp[1], table.get(addr))
             for addr, exp in sorted(expected.items()) if table.get(addr) != exp]
    extra = ["0x%x: %s not listed by nm" % (addr, table[addr][0])
             for addr in sorted(set(table) - set(expected))]
    results.check("symgen agrees with nm on %s (%d nm function symbols, %d addresses)"
                  % (label, nm_count, len(expected)),
                  nm_count > 0 and not wrong and not extra, "\n".join((wrong + extra)[:20]))
    check_generated_headers(results, "symgen " + label, out, elf, [])


def check_no_symbols(results, label, elf):
    """symgen --cfi --no-symbols: an empty symbol table (count 0, no arrays,
    its checksum), the FDE index as readelf lists it, as without it."""
    out = os.path.join(WORK, label + "-no-symbols.c")
    result = run([SYMGEN, "--cfi", "--no-symbols", "-o", out, elf])
    if not results.check("symgen --cfi --no-symbols runs on %s" % label, result.returncode == 0,
                         result.stderr):
        return
    image = link_generated(results, "symgen --no-symbols " + label, out, target_of(elf))
    if image:
        check_symtab_header(results, "symgen --no-symbols " + label, image, {})
        check_fde_index_header(results, "symgen --no-symbols " + label, image,
                               readelf_fde_index(elf), Image(elf))


def build_fixture(results, label, arch, abi, emulation):
    obj = os.path.join(WORK, label + ".o")
    elf = os.path.join(WORK, label + ".elf")
    steps = [
        [CROSS + "gcc", "-c", "-march=" + arch, "-mabi=" + abi,
         os.path.join(ROOT, "tests", "fixtures", "aliases.S"), "-o", obj],
        [CROSS + "ld", "-m", emulation, "-Ttext=0x80001000", "-e", "global_fn", obj, "-o", elf],
    ]
    return elf if run_steps(results, label, steps) else None


def build_untyped_fixture(results, label, arch, abi, emulation):
    """untyped.S, its .L label kept (as -L, ld --discard-none)."""
    obj = os.path.join(WORK, label + ".o")
    elf = os.path.join(WORK, label + ".elf")
    steps = [
        [CROSS + "gcc", "-c", "-Wa,-L", "-march=" + arch, "-mabi=" + abi,
         os.path.join(ROOT, "tests", "fixtures", "untyped.S"), "-o", obj],
        [CROSS + "ld", "-m", emulation, "--discard-none", "-Ttext=0x80001000", "-e", "sized_fn",
         obj, "-o", elf],
    ]
    return elf if run_steps(results, label, steps) else None


def check_untyped_semantics(results, label, elf):
    """Hand-stated expectations of untyped.S (names and sizes from its
    comments), on top of the nm comparison; addresses from nm."""
    table = parse_table(os.path.join(WORK, label + ".c"))
    addresses = {fields[2]: int(fields[0], 16) for fields in
                 (line.split() for line in run([CROSS + "nm", elf]).stdout.splitlines())
                 if len(fields) == 3}
    expected = {"sized_fn": 12, "untyped_global": 8, "untyped_local": 4, "label_b": 8,
                "both_fn": 8, "outer_fn": 4, "nested_fn": 8, "after_local": 12}
    wanted = {addresses.get(name): (name, size) for name, size in expected.items()}
    readelf = run([CROSS + "readelf", "-s", "-W", elf]).stdout
    results.check("symgen %s: untyped labels in code are functions, the assembler's are not"
                  % label, table == wanted and ".Lkept_local" in readelf and "$x" in readelf,
                  "table %s\nexpected %s" % (sorted(table.values()), sorted(wanted.values())))


def check_fixture_semantics(results, label, elf):
    """Hand-stated expectations of aliases.S, on top of the nm comparison."""
    table = parse_table(os.path.join(WORK, label + ".c"))
    names = {name for name, _ in table.values()}
    results.check("symgen %s: aliases resolve to global, weak, alphabetical" % label,
                  {"global_fn", "alpha_local", "weak_only", "unsized_local", "unsized_last"} == names,
                  "names: %s" % sorted(names))


def readelf_frames(elf):
    """readelf's dump of .eh_frame alone (not .debug_frame), or None."""
    text = run([CROSS + "readelf", "--debug-dump=frames", elf]).stdout
    parts = text.split("Contents of the .eh_frame section:")
    return parts[1].split("Contents of the ")[0] if len(parts) > 1 else None


def readelf_fde_index(elf):
    """The oracle: every FDE readelf lists in .eh_frame that covers code, as
    (pc_begin, address of the FDE = section address + FDE offset), sorted."""
    frames = readelf_frames(elf)
    if frames is None:
        return []
    base = section_headers(elf)[".eh_frame"][0]
    return sorted((int(begin, 16), base + int(offset, 16))
                  for offset, _, begin, end in FDE_LINE.findall(frames) if int(end, 16) > int(begin, 16))


def parse_fde_index(path):
    """Reads symgen's FDE index back: [(pc_start, fde)] in file order, and the
    count its descriptor states."""
    text = open(path).read()
    # The FDE entries' array only: the unwind table's rows look alike.
    array = text.split("fde_entries[", 1)[1].split("};", 1)[0] if "fde_entries[" in text else ""
    entries = [(int(pc, 16), int(fde, 16)) for pc, fde in FDE_ENTRY.findall(array)]
    count = FDE_COUNT.search(text)
    return entries, int(count.group(1)) if count else None


def compare_fde_index(results, label, generated, expected, oracle="readelf"):
    """The index in symgen's output `generated` must be `expected`, in order,
    and its descriptor must count it."""
    entries, count = parse_fde_index(generated)
    missing = ["pc 0x%x, FDE at 0x%x: not in the index" % e for e in expected if e not in entries]
    extra = ["pc 0x%x, FDE at 0x%x: not listed by %s" % (e + (oracle,)) for e in entries
             if e not in expected]
    results.check("symgen --cfi FDE index equals %s's FDEs on %s (%d FDEs)"
                  % (oracle, label, len(expected)),
                  len(expected) > 0 and entries == expected and count == len(entries),
                  "\n".join((missing + extra)[:20]) or "order or count differs: count %s" % count)


def check_index_of_image(results, label, elf, oracle=("readelf", readelf_fde_index)):
    """Runs symgen --cfi on elf and compares its index with the oracle's."""
    out = os.path.join(WORK, label + ".cfi.c")
    result = run([SYMGEN, "--cfi", "-o", out, elf])
    if results.check("symgen --cfi runs on %s" % label, result.returncode == 0, result.stderr):
        compare_fde_index(results, label, out, oracle[1](elf), oracle[0])
        check_generated_headers(results, "symgen --cfi " + label, out, elf, oracle[1](elf))


def check_kernel_fde_index(results, label, elf):
    """The index the build embedded (its tracer_tables.c, made from the first link)
    must be what readelf says about the final image (empty if the image has
    no .eh_frame); and both descriptors
    must sit at the same address in both links."""
    build_dir = os.path.dirname(elf)
    embedded = os.path.join(build_dir, "tracer_tables.c")
    if ".eh_frame" in section_headers(elf):
        compare_fde_index(results, label + " (embedded)", embedded, readelf_fde_index(elf))
    else:
        # Built with CFI=0: nothing to index, and nothing indexed.
        entries, count = parse_fde_index(embedded)
        results.check("%s: no .eh_frame in the image, and an empty FDE index embedded" % label,
                      entries == [] and count == 0, "entries %s, count %s" % (entries[:5], count))
    image = Image(elf)
    check_symtab_header(results, label + " (embedded)", image, expected_table(elf)[0])
    check_fde_index_header(results, label + " (embedded)", image, readelf_fde_index(elf))
    addresses = []
    for image in [os.path.join(build_dir, "kernel.stage1.elf"), elf]:
        symbols = run([CROSS + "nm", image]).stdout.split("\n")
        addresses.append(sorted(line for line in symbols
                                if line.endswith((" tracer_symtab", " tracer_fde_index"))))
    results.check("%s: tracer_symtab and tracer_fde_index at the same addresses in both links"
                  % label, len(addresses[1]) == 2 and addresses[0] == addresses[1],
                  "first link %s, final %s" % tuple(addresses))


def build_cfi_fixture(results, label, arch, abi, emulation):
    """tests/fixtures/cfi_functions.c as GCC compiles it with unwind tables."""
    obj = os.path.join(WORK, label + ".o")
    elf = os.path.join(WORK, label + ".elf")
    steps = [
        [CROSS + "gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-O2", "-ffreestanding",
         "-fasynchronous-unwind-tables", "-march=" + arch, "-mabi=" + abi, "-c",
         os.path.join(ROOT, "tests", "fixtures", "cfi_functions.c"), "-o", obj],
        [CROSS + "ld", "-m", emulation, "-Ttext=0x80001000", obj, "-o", elf],
    ]
    return elf if run_steps(results, label, steps) else None


def link_libgcc(results, label, flags):
    """The toolchain's whole libgcc.a for `flags`, linked into one image:
    many FDEs, from GCC and from hand-written assembly."""
    libgcc = run([CROSS + "gcc"] + flags + ["-print-libgcc-file-name"]).stdout.strip()
    elf = os.path.join(WORK, label + ".elf")
    steps = [[CROSS + "gcc"] + flags + [
        "-nostdlib", "-nostartfiles", "-Wl,--whole-archive", libgcc, "-Wl,--no-whole-archive",
        "-Wl,--unresolved-symbols=ignore-all", "-Wl,-e,0", "-Wl,--no-warn-rwx-segments",
        "-o", elf]]
    return elf if run_steps(results, "%s (%s)" % (label, libgcc), steps) else None


def check_encodings_fixture(results, label, arch, abi, emulation):
    """tests/fixtures/eh_frame_encodings.S: every pointer format, P/L/S
    augmentations, CIE version 1, 64-bit entries, zero terminators. The
    oracle is nm: a label fde_<pc_begin> at each FDE that covers code."""
    obj = os.path.join(WORK, label + ".o")
    elf = os.path.join(WORK, label + ".elf")
    steps = [
        [CROSS + "gcc", "-c", "-march=" + arch, "-mabi=" + abi,
         os.path.join(ROOT, "tests", "fixtures", "eh_frame_encodings.S"), "-o", obj],
        [CROSS + "ld", "-m", emulation, "-Ttext=0x800", "--section-start=.eh_frame_fixture=0x1000",
         obj, "-o", elf],
        [CROSS + "objcopy", "--rename-section", ".eh_frame_fixture=.eh_frame", elf],
    ]
    if run_steps(results, label, steps):
        check_index_of_image(results, label, elf, ("nm", nm_fde_labels))


def nm_fde_labels(elf):
    """[(pc_begin, address)] of the fixture's fde_<pc_begin> labels."""
    labels = [line.split() for line in run([CROSS + "nm", elf]).stdout.splitlines()]
    return sorted((int(name[len("fde_"):], 16), int(addr, 16))
                  for addr, _, name in labels if name.startswith("fde_"))


def run_steps(results, label, steps):
    """Runs the build commands of a fixture; False at the first failure."""
    for argv in steps:
        result = run(argv)
        if not results.check("build fixture %s: %s" % (label, os.path.basename(argv[0])),
                             result.returncode == 0, result.stderr):
            return False
    return True


ELFCLASS32 = 1


def elf_class(path):
    """EI_CLASS, the ELF header's byte 4: 1 for ELF32, 2 for ELF64."""
    with open(path, "rb") as f:
        return f.read(5)[4]


def elf_patch(data, is64, section_type, field, value):
    """Returns data with `field` (sh_offset or sh_size) of the first section
    of `section_type` set to value. Offsets from the gABI section header."""
    shoff = struct.unpack_from("<Q" if is64 else "<I", data, 40 if is64 else 32)[0]
    shentsize, shnum = struct.unpack_from("<HH", data, 58 if is64 else 46)
    word = "<Q" if is64 else "<I"
    field_offset = {"offset": 24 if is64 else 16, "size": 32 if is64 else 20}[field]
    data = bytearray(data)
    for i in range(shnum):
        base = shoff + i * shentsize
        if struct.unpack_from("<I", data, base + 4)[0] == section_type:
            struct.pack_into(word, data, base + field_offset, value)
            return bytes(data)
    raise ValueError("no such section")


def write_bad(name, data):
    path = os.path.join(BAD_DIR, name)
    open(path, "wb").write(data)
    return path


def expect_rejection(results, label, path, message, options=()):
    """symgen (with sanitizers) must exit 1 with one line naming the file,
    write nothing, and leak nothing."""
    out = os.path.join(BAD_DIR, "out.c")
    result = run([SYMGEN_ASAN] + list(options) + ["-o", out, path], env=LEAK_CHECK_ENV)
    lines = result.stderr.splitlines()
    leftovers = glob.glob(out + "*")
    results.check(
        "symgen rejects %s (one line, no output, no leak)" % label,
        result.returncode == 1 and len(lines) == 1 and "LeakSanitizer" not in result.stderr and
        lines[0].startswith("symgen: %s: " % path) and message in lines[0] and not leftovers,
        "exit %d, stderr %s, left behind %s" % (result.returncode, result.stderr[:1500], leftovers))


def function_symbol_in_section(data, section):
    """Returns data with the first STT_FUNC symbol of .symtab moved to
    section index `section` (st_shndx); offsets from the gABI Elf64_Sym."""
    shoff = struct.unpack_from("<Q", data, 40)[0]
    shentsize, shnum = struct.unpack_from("<HH", data, 58)
    data = bytearray(data)
    for i in range(shnum):
        base = shoff + i * shentsize
        if struct.unpack_from("<I", data, base + 4)[0] == 2:
            offset, size = struct.unpack_from("<QQ", data, base + 24)
            for entry in range(offset, offset + size, 24):
                if data[entry + 4] & 0xf == 2:
                    struct.pack_into("<H", data, entry + 6, section)
                    return bytes(data)
    raise ValueError("no function symbol")


def assemble_with_empty_tables(results, name, source=None):
    """tests/fixtures/NAME.S (or `source`) assembled for rv64, and the empty
    tables of a first link compiled: (the object, the tables' C file, whose
    object is beside it with .o added), or None if a step failed."""
    obj = os.path.join(WORK, name + ".o")
    tables = os.path.join(WORK, name + "_tables.c")
    source = source or os.path.join(ROOT, "tests", "fixtures", name + ".S")
    steps = [[CROSS + "gcc", "-c", "-march=rv64imac", "-mabi=lp64", "-mcmodel=medany",
              source, "-o", obj],
             [SYMGEN, "--empty", "--cfi", "-o", tables],
             [CROSS + "gcc", "-std=c11", "-O2", "-ffreestanding", "-march=rv64imac", "-mabi=lp64",
              "-I" + os.path.join(ROOT, "tracer"), "-c", tables, "-o", tables + ".o"]]
    return (obj, tables) if run_steps(results, name, steps) else None


def check_image_end(results):
    """A kernel whose end-of-image symbol (where its allocator starts) lies
    below the tables: symgen must fail, in one line naming the symbol, its
    address and the tables' range (from nm) and the fix, and leave no
    output; in the right order, or told the symbol means something else, it
    must pass. tests/fixtures/image_end.S with each fixture linker script."""
    built = assemble_with_empty_tables(results, "image_end")
    if not built:
        return
    obj, tables = built
    cases = [("end_before_tables.ld", [], "end"),
             ("end_before_tables.ld", ["--allow-end-before-tables=end"], None),
             ("bss_end_before_tables.ld", [], "_ebss"),
             ("end_after_tables.ld", [], None),
             ("end_after_tables.ld", ["--heap-start=free_memory"], "free_memory")]
    for script, options, symbol in cases:
        label = "%s %s" % (script, " ".join(options))
        elf = os.path.join(WORK, script + ".elf")
        link = [CROSS + "ld", "-m", "elf64lriscv", "--no-warn-rwx-segments", "-L", os.path.join(ROOT, "linker"), "-T",
                os.path.join(ROOT, "tests", "fixtures", script), obj, tables + ".o", "-o", elf]
        if not run_steps(results, script, [link]):
            continue
        nm = Image(elf).symbols
        out = os.path.join(WORK, "image_end.out.c")
        if os.path.exists(out):
            os.unlink(out)
        result = run([SYMGEN_ASAN, "--cfi"] + options + ["-o", out, elf], env=LEAK_CHECK_ENV)
        if symbol is None:
            results.check("symgen passes %s" % label, result.returncode == 0, result.stderr)
            continue
        start = min(nm["__eh_frame_start"], nm["__tracer_symtab_start"])
        end = max(nm["__eh_frame_end"], nm["__tracer_symtab_end"])
        lines = result.stderr.splitlines()
        wanted = ["`%s` (0x%x)" % (symbol, nm[symbol]), "(0x%x-0x%x)" % (start, end),
                  "Move `INCLUDE tracer.ld` before the definition of `%s`" % symbol,
                  "--allow-end-before-tables=%s" % symbol]
        results.check("symgen rejects %s: `%s` below the tables, named with the fix" % (label, symbol),
                      result.returncode == 1 and len(lines) == 1 and nm[symbol] < end and
                      all(w in lines[0] for w in wanted) and not glob.glob(out + "*"),
                      "exit %d, stderr %s, expected %s" % (result.returncode, result.stderr, wanted))


def check_code_span(results):
    """The unwind table's lookup index grows with the span of code it
    covers, so symgen refuses a span past 64 MiB (what a corrupt FDE
    claiming gigabytes would need), naming the range (from nm), and takes
    one below it. tests/fixtures/far_code.S, its second function 32 MiB,
    then 128 MiB after the first."""
    built = assemble_with_empty_tables(results, "far_code")
    if not built:
        return
    obj, tables = built
    for gap, accepted in [(32 << 20, True), (128 << 20, False)]:
        label = "code spanning %d MiB" % (gap >> 20)
        elf = os.path.join(WORK, "far_code_%d.elf" % (gap >> 20))
        link = [CROSS + "ld", "-m", "elf64lriscv", "--no-warn-rwx-segments",
                "-L", os.path.join(ROOT, "linker"),
                "-T", os.path.join(ROOT, "tests", "fixtures", "far_code.ld"),
                "--section-start=.text.far=0x%x" % (0x80200000 + gap), obj, tables + ".o", "-o", elf]
        if not run_steps(results, label, [link]):
            continue
        nm = Image(elf).symbols
        out = os.path.join(WORK, "far_code.out.c")
        if os.path.exists(out):
            os.unlink(out)
        result = run([SYMGEN_ASAN, "--cfi", "-o", out, elf], timeout=60, env=LEAK_CHECK_ENV)
        if accepted:
            results.check("symgen --cfi takes " + label, result.returncode == 0, result.stderr)
            continue
        wanted = "spans 0x%x-0x%x, more than the unwind table's 64 MiB" % (
            nm["_start"], nm["far_away"])
        results.check("symgen --cfi refuses %s, naming the range" % label,
                      result.returncode == 1 and wanted in result.stderr and
                      len(result.stderr.splitlines()) == 1 and not glob.glob(out + "*"),
                      "exit %d, stderr %s, expected %s" % (result.returncode, result.stderr, wanted))


def readelf_table_rows(elf):
    """The oracle for the unwind table's row count: readelf's interpreted
    rows (--debug-dump=frames-interp), equal neighbours merged, across FDEs
    that touch too, and the no-CFI row after the last FDE. (Enough for
    contiguous FDEs of sp-based rows, as the fixture below has.)"""
    text = run([CROSS + "readelf", "--debug-dump=frames-interp", elf]).stdout
    text = text.split("Contents of the .eh_frame section:")[1]
    rows = 0
    last = None
    for fde in re.split(r"^(?=[0-9a-f]+ [0-9a-f]+ [0-9a-f]+ FDE )", text, flags=re.M)[1:]:
        for line in fde.splitlines()[2:]:
            fields = line.split()
            if len(fields) > 1 and re.fullmatch(r"[0-9a-f]{16}", fields[0]):
                rows += fields[1:] != last
                last = fields[1:]
    return rows + 1


def write_many_rows(source, symbol, functions, tail):
    """check_row_limit's fixture: `functions` functions of two rows each,
    under one symbol, and with `tail` one of a single row."""
    with open(source, "w") as out:
        out.write("\t.text\n\t.globl %s\n\t.type %s, @function\n%s:\n"
                  "\t.rept %d\n\t.cfi_startproc\n\tc.addi16sp sp, -16\n"
                  "\t.cfi_def_cfa_offset 16\n\tc.addi16sp sp, 16\n\t.cfi_def_cfa_offset 0\n"
                  "\tret\n\t.cfi_endproc\n\t.endr\n" % (symbol, symbol, symbol, functions))
        if tail:
            out.write("\t.cfi_startproc\n\tc.addi16sp sp, -16\n\t.cfi_def_cfa_offset 16\n"
                      "\tret\n\t.cfi_endproc\n")
        out.write("\t.size %s, . - %s\n" % (symbol, symbol))


def check_empty_table_walks(results):
    """The demo kernel with check_row_limit's 32,767 functions added: past
    65,535 rows its unwind table is empty, and, as symgen's warning says,
    table and auto walks use DWARF at every frame: GDB's whole bt at
    panic(), to the outermost frame."""
    build_dir = os.path.join(TEST_BUILD, "many-rows")
    os.makedirs(build_dir, exist_ok=True)
    source = os.path.join(build_dir, "many_rows.S")
    write_many_rows(source, "many_rows", 32767, False)
    # gcc-O2-fp0's flags: its objects (SHARED_OBJECTS), only the functions to add.
    result = run(["make", "-s", "BUILD=" + build_dir, "EXTRA_SRCS=" + source, "OPT=-O2", "FP=0",
                  SHARED_OBJECTS], timeout=600)
    output = result.stdout + result.stderr
    if not results.check("the kernel with 32,767 more functions builds, its unwind table left empty",
                         result.returncode == 0 and "the unwind table is left empty" in output,
                         output[-1500:]):
        return
    e2e_tests.check_scenario(results, "many-rows", os.path.join(build_dir, "kernel.elf"),
                             ["table", "auto"], "panic", "panic")


def check_row_limit(results):
    """lookup[]'s 16-bit entries count at most 65,535 rows: past that,
    symgen --cfi warns in one line and writes an empty unwind table (count
    0), exit 0; at it, the full table, no warning. A generated fixture:
    N functions of 6 bytes that push and pop a 16-byte frame, two rows
    each, and, for an odd count, one that only pushes (readelf counts the
    rows: 65,535 and 65,536)."""
    for functions, tail, full in [(32766, True, True), (32767, False, False)]:
        name = "many_rows_%d" % functions
        source = os.path.join(WORK, name + ".S")
        write_many_rows(source, "_start", functions, tail)
        built = assemble_with_empty_tables(results, name, source)
        if not built:
            continue
        obj, tables = built
        elf = os.path.join(WORK, name + ".elf")
        link = [CROSS + "ld", "-m", "elf64lriscv", "--no-warn-rwx-segments",
                "-L", os.path.join(ROOT, "linker"),
                "-T", os.path.join(ROOT, "tests", "fixtures", "far_code.ld"), obj, tables + ".o", "-o", elf]
        if not run_steps(results, name, [link]):
            continue
        rows = readelf_table_rows(elf)
        out = os.path.join(WORK, name + ".out.c")
        result = run([SYMGEN_ASAN, "--cfi", "-o", out, elf], timeout=120, env=LEAK_CHECK_ENV)
        generated = open(out).read() if result.returncode == 0 else ""
        header = re.search(r"tracer_unwind_table = \{[^}]*\.count = (\d+),\s*\.block_count = (\d+),"
                           r"\s*\.rule_count = (\d+),", generated)
        counts = tuple(int(n) for n in header.groups()) if header else None
        if full:
            results.check("symgen --cfi writes the full unwind table of %d rows (readelf), no warning"
                          % rows, rows <= 65535 and result.stderr == "" and counts is not None and
                          counts[0] == rows and counts[1] > 0,
                          "exit %d, counts %s, stderr %s" % (result.returncode, counts, result.stderr[:500]))
            # Its last lookup entry 65,535: the table, validated as a walk
            # validates it, gives the interpreter's row everywhere.
            proof = run([os.path.join(HOST_BUILD, "table_check"), elf], timeout=120)
            results.check("the %d-row table passes validation and equals the interpreter's rows" % rows,
                          proof.returncode == 0 and " 0 differ" in proof.stdout,
                          (proof.stdout + proof.stderr)[-1000:])
            continue
        wanted = ("symgen: %s: warning: %d unwind-table rows, more than the format's 65535: the unwind "
                  "table is left empty (table and auto walks use DWARF)" % (elf, rows))
        results.check("symgen --cfi past 65,535 rows (%d, readelf): one warning, an empty unwind table, "
                      "exit 0" % rows,
                      rows > 65535 and result.stderr.splitlines() == [wanted] and counts == (0, 0, 0) and
                      "unwind_rows" not in generated,
                      "exit %d, counts %s, stderr %s, expected %s" % (
                          result.returncode, counts, result.stderr[:500], wanted))


def check_make_fragment(results):
    """symgen/tracer.mk in a Makefile of another shape (tests/fixtures/
    fragment.mk: ld as the linker, symgen built by the fragment): the image
    it links embeds the table symgen makes of it; then, the same build with
    `end` before the tables fails, naming it, and leaves no image behind,
    not even the one the first build made."""
    out = os.path.join(WORK, "fragment")
    make = ["make", "-s", "-f", "tests/fixtures/fragment.mk", "OUT=" + out]
    elf = os.path.join(out, "kernel.elf")
    result = run(make + ["LDSCRIPT=tests/fixtures/end_after_tables.ld"], timeout=300)
    check = os.path.join(out, "check.c")
    ok = result.returncode == 0 and os.path.exists(elf) and \
        run([SYMGEN, "--cfi", "-o", check, elf]).returncode == 0 and \
        open(check).read() == open(os.path.join(out, "tracer_tables.c")).read()
    results.check("symgen/tracer.mk links a kernel with ld, its table embedded", ok,
                  "exit %d\n%s" % (result.returncode, (result.stdout + result.stderr)[-1500:]))
    # -W: make does not know the script changed (the demo's flags file would);
    # the link is made again, with this script (the objects and symgen kept).
    script = "tests/fixtures/end_before_tables.ld"
    result = run(make + ["-W", script, "LDSCRIPT=" + script], timeout=300)
    output = result.stdout + result.stderr
    results.check("symgen/tracer.mk: `end` before the tables fails the build, no image left",
                  ok and result.returncode != 0 and "`end` (0x" in output and
                  not glob.glob(elf + "*"), "exit %d\n%s" % (result.returncode, output[-1500:]))


def check_bad_input(results, kernel):
    good = open(kernel, "rb").read()
    stripped = os.path.join(BAD_DIR, "stripped.elf")
    run([CROSS + "strip", "-o", stripped, kernel])
    bad_class = bytearray(good)
    bad_class[4] = 3
    cases = [
        ("missing file", os.path.join(BAD_DIR, "does-not-exist.elf"), "cannot open"),
        ("not ELF", os.path.join(ROOT, "README.md"), "not an ELF file"),
        ("empty file", write_bad("empty.elf", b""), "not an ELF file"),
        ("truncated header", write_bad("header.elf", good[:30]), "truncated ELF header"),
        ("truncated file", write_bad("half.elf", good[:len(good) // 2]),
         "truncated: section headers past end of file"),
        ("bad ELF class", write_bad("class.elf", bytes(bad_class)), "unsupported ELF class"),
        ("wrong machine", "/bin/true", "not a RISC-V ELF file"),
        ("stripped", stripped, "no symbol table"),
        ("symbol table past end",
         write_bad("symtab.elf", elf_patch(good, True, 2, "offset", len(good) - 8)),
         "truncated: symbol table past end of file"),
        # Found after the symbol table was read: its array must be freed.
        ("a function in a section past the section table",
         write_bad("shndx.elf", function_symbol_in_section(good, 0xfe00)),
         "names section 65024 of"),
    ]
    for label, path, message in cases:
        expect_rejection(results, label, path, message)


def augmentation_r_offset(data, cie):
    """File offset of the R byte (the FDEs' pointer encoding) of the CIE at
    file offset cie, if its augmentation is "zR": after the length, the CIE
    id, the version, "zR", and four LEB128s (code and data alignment, return
    address register, augmentation data length)."""
    if data[cie + 9:cie + 12] != b"zR\0":
        return None
    pos = cie + 12
    for _ in range(4):
        while data[pos] & 0x80:
            pos += 1
        pos += 1
    return pos


def check_bad_eh_frame(results, kernel):
    """Hand-corrupted .eh_frame in a real kernel: symgen --cfi names the bad
    entry (located with readelf) in one line."""
    good = open(kernel, "rb").read()
    section = section_headers(kernel)[".eh_frame"][1]
    first_fde, its_cie = (int(field, 16) for field in FDE_LINE.findall(readelf_frames(kernel))[0][:2])
    r_byte = augmentation_r_offset(good, section + its_cie)
    if not results.check("first CIE of %s has GCC's augmentation zR, encoding 0x1b" % kernel,
                         r_byte is not None and good[r_byte] == 0x1b):
        return

    def patched(name, offset, value):
        data = bytearray(good)
        data[offset:offset + len(value)] = value
        return write_bad(name, bytes(data))

    renamed = os.path.join(BAD_DIR, "no_eh_frame.elf")
    run([CROSS + "objcopy", "--rename-section", ".eh_frame=.not_eh_frame", kernel, renamed])
    at_fde = "malformed .eh_frame at offset 0x%x: " % first_fde
    cases = [
        ("an FDE length past the end of .eh_frame",
         patched("fde_length.elf", section + first_fde, struct.pack("<I", 0x7fffffff)),
         at_fde + "length 0x7fffffff runs past the end of the section"),
        ("a CIE pointer outside .eh_frame",
         patched("cie_pointer.elf", section + first_fde + 4, struct.pack("<I", 0x7fffffff)),
         at_fde + "CIE pointer 0x7fffffff points before the start of the section"),
        ("an unknown FDE pointer encoding (0x0f in R)", patched("encoding.elf", r_byte, b"\x0f"),
         at_fde + "unsupported FDE pointer encoding 0x0f"),
        ("an image without .eh_frame", renamed, NO_CFI),
    ]
    for label, path, message in cases:
        expect_rejection(results, label + " (--cfi)", path, message, ["--cfi"])


def check_corrupt_files_never_crash(results, kernel):
    """Random byte corruptions of a real kernel: symgen --cfi (with
    AddressSanitizer) must either succeed or print its one-line error; never
    crash, hang or leak. First anywhere, mostly the headers, where a bad value
    does most damage; then in .eh_frame only."""
    good = open(kernel, "rb").read()
    _, eh_frame, eh_frame_size = section_headers(kernel)[".eh_frame"]
    anywhere = lambda rng: rng.choice([rng.randrange(64), rng.randrange(len(good)),
                                       len(good) - 1 - rng.randrange(min(len(good), 4096))])
    in_eh_frame = lambda rng: eh_frame + rng.randrange(eh_frame_size)
    # Without the line table (--no-lines) each run takes half the time; its
    # reader gets damaged debugging information from line_oracle.py and
    # fuzz_symgen.
    for what, where, seed, options in [("kernel images", anywhere, 2, ["--no-lines"]),
                                       ("kernel .eh_frame sections", in_eh_frame, 3,
                                        ["--no-lines"])]:
        problems = corrupt_and_run(good, where, random.Random(seed), RANDOM_CORRUPTIONS,
                                   options)
        results.check("symgen --cfi --no-lines survives %d corrupted %s"
                      % (RANDOM_CORRUPTIONS, what),
                      not problems, "\n".join(problems[:5]))


def corrupt_and_run(good, where, rng, runs, options=()):
    """Runs symgen-asan --cfi (and options) on `runs` corruptions of `good`; returns the
    problems (crashes, hangs, leaks, messages not in symgen's format). The
    corruptions are drawn in turn from rng, then run JOBS at a time."""
    cases = []
    for _ in range(runs):
        edits = []
        for _ in range(rng.randint(1, 8)):
            value = rng.randrange(256)
            edits.append((where(rng), value))
        length = rng.randrange(len(good)) if rng.random() < 0.2 else len(good)
        cases.append((edits, length))
    problems = [None] * runs

    def run_cases(worker):
        path = os.path.join(BAD_DIR, "corrupt-%d.elf" % worker)
        out = os.path.join(BAD_DIR, "corrupt-%d.c" % worker)
        for i in range(worker, runs, JOBS):
            edits, length = cases[i]
            data = bytearray(good)
            for offset, value in edits:
                data[offset] = value
            open(path, "wb").write(bytes(data[:length]))
            result = run([SYMGEN_ASAN, "--cfi"] + list(options) + ["-o", out, path], timeout=20,
                         env=LEAK_CHECK_ENV)
            if result.returncode not in (0, 1) or "LeakSanitizer" in result.stderr or (
                    result.returncode == 1 and not result.stderr.startswith("symgen: ")):
                problems[i] = "case %d: exit %d: %s" % (i, result.returncode,
                                                         result.stderr[-300:])

    in_parallel([functools.partial(run_cases, worker) for worker in range(JOBS)])
    return [problem for problem in problems if problem]


def check_kernel(results, label, elf):
    compare_with_nm(results, label, elf)
    check_kernel_fde_index(results, label, elf)


def check_opensbi(results, elf):
    if results.check("OpenSBI image present: %s" % elf, os.path.exists(elf)):
        compare_with_nm(results, "opensbi-" + os.path.basename(os.path.dirname(elf)), elf)


def check_fixtures(results, bits, arch, abi, emulation):
    elf = build_fixture(results, "aliases-" + bits, arch, abi, emulation)
    if elf:
        compare_with_nm(results, "aliases-" + bits, elf)
        check_fixture_semantics(results, "aliases-" + bits, elf)
    elf = build_untyped_fixture(results, "untyped-" + bits, arch, abi, emulation)
    if elf:
        compare_with_nm(results, "untyped-" + bits, elf)
        check_untyped_semantics(results, "untyped-" + bits, elf)
    elf = build_cfi_fixture(results, "cfi-functions-" + bits, arch, abi, emulation)
    if elf:
        check_index_of_image(results, "cfi-functions-" + bits, elf)
    check_encodings_fixture(results, "eh-frame-encodings-" + bits, arch, abi, emulation)


def check_libgcc(results, label, flags):
    elf = link_libgcc(results, label, flags)
    if elf:
        check_index_of_image(results, label, elf)


def check_bad_files(results, kernel):
    # One after the other: both write bad/out.c (expect_rejection).
    check_bad_input(results, kernel)
    check_bad_eh_frame(results, kernel)


def run_all(results, kernels):
    """The checks run side by side (each writes files of its own under
    WORK), their lines printed in this order."""
    os.makedirs(BAD_DIR, exist_ok=True)
    # e2e hands over the rv32 kernels too: the host tools' ELF32 path.
    elf32 = [label for label, elf in kernels if elf_class(elf) == ELFCLASS32]
    results.check("symgen: the kernels include rv32 (ELF32) images: %s" % ", ".join(elf32),
                  elf32 != [], "kernels: %s" % ", ".join(label for label, _ in kernels))
    checks = [functools.partial(check_kernel, results, label, elf) for label, elf in kernels]
    checks += [functools.partial(check_opensbi, results, elf) for elf in OPENSBI_ELFS]
    checks += [functools.partial(check, results)
               for check in (check_empty_tables, check_image_end, check_code_span,
                             check_row_limit, check_empty_table_walks, check_make_fragment)]
    checks += [functools.partial(check_fixtures, results, *target) for target in TARGETS]
    checks += [functools.partial(check_libgcc, results, label, flags)
               for label, flags in [("libgcc-default", []),
                                    ("libgcc-rv64imac", ["-march=rv64imac", "-mabi=lp64"]),
                                    ("libgcc-rv32imac", ["-march=rv32imac", "-mabi=ilp32"])]]
    if kernels:
        checks.append(functools.partial(check_bad_files, results, kernels[0][1]))
        checks.append(functools.partial(check_no_symbols, results, *kernels[0]))
        checks.append(functools.partial(check_corrupt_files_never_crash, results, kernels[0][1]))
    in_parallel(checks)

"""symgen against binutils: every function symbol nm lists must be in the
generated table with the same address, the alias symgen promises, and the
right size; bad input must fail cleanly with one line and no output file."""
import glob
import os
import random
import re
import struct

from testlib import CROSS, HOST_BUILD, ROOT, TEST_BUILD, run

SYMGEN = os.path.join(HOST_BUILD, "symgen")
SYMGEN_ASAN = os.path.join(HOST_BUILD, "symgen-asan")
OPENSBI_ELFS = [
    "/usr/lib/riscv64-linux-gnu/opensbi/generic/fw_dynamic.elf",
    "/usr/share/qemu/opensbi-riscv64-generic-fw_dynamic.elf",
]
WORK = os.path.join(TEST_BUILD, "symgen")


def unescape_c(body):
    """The inverse of symgen's write_c_string for one literal body."""
    out = bytearray()
    i = 0
    while i < len(body):
        if body[i] == "\\":
            if body[i + 1] in "01234567":
                out.append(int(body[i + 1:i + 4], 8))
                i += 4
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
    names = b"".join(unescape_c(m) for m in re.findall(r'^    "(.*)"[;]?$', text, re.M))
    table = {}
    for addr, size, offset in re.findall(r"\{0x([0-9a-f]+)u, 0x([0-9a-f]+)u, (\d+)u\}", text):
        name = names[int(offset):names.index(b"\0", int(offset))].decode()
        table[int(addr, 16)] = (name, int(size, 16))
    return table


def nm_functions(elf):
    """Function symbols as nm lists them: [(name, addr, size, class, section)].
    Uses the dynamic table when the file has no .symtab (OpenSBI's firmware)."""
    result = run([CROSS + "nm", "-f", "sysv", "--defined-only", elf])
    if "no symbols" in result.stderr:
        result = run([CROSS + "nm", "-D", "-f", "sysv", "--defined-only", elf])
    functions = []
    for line in result.stdout.splitlines():
        fields = [f.strip() for f in line.split("|")]
        if len(fields) == 7 and fields[3] == "FUNC":
            size = int(fields[4], 16) if fields[4] else 0
            functions.append((fields[0], int(fields[1], 16), size, fields[2], fields[6]))
    return functions


def section_ends(elf):
    """{section name: end address} from readelf's section headers."""
    result = run([CROSS + "readelf", "-S", "-W", elf])
    ends = {}
    for m in re.finditer(r"\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", result.stdout):
        ends[m.group(1)] = int(m.group(2), 16) + int(m.group(3), 16)
    return ends


def expected_table(elf):
    """What symgen should write, derived from nm and readelf alone: one entry
    per address, named by the global, else weak, else local alias (then the
    alphabetically first); sized by the largest st_size of the aliases, else
    up to the next function or the end of the section."""
    functions = nm_functions(elf)
    ends = section_ends(elf)
    by_addr = {}
    for name, addr, size, cls, section in functions:
        by_addr.setdefault(addr, []).append((name, size, cls, section))
    addrs = sorted(by_addr)
    expected = {}
    for i, addr in enumerate(addrs):
        aliases = by_addr[addr]
        rank = lambda a: (0 if a[2].isupper() and a[2] not in "VW" else 1 if a[2] in "VWvw" else 2, a[0])
        name = min(aliases, key=rank)[0]
        size = max(a[1] for a in aliases)
        if size == 0:
            limit = ends[aliases[0][3]]
            if i + 1 < len(addrs):
                limit = min(limit, addrs[i + 1])
            size = limit - addr
        expected[addr] = (name, size)
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


def build_fixture(results, label, arch, abi, emulation):
    obj = os.path.join(WORK, label + ".o")
    elf = os.path.join(WORK, label + ".elf")
    steps = [
        [CROSS + "gcc", "-c", "-march=" + arch, "-mabi=" + abi,
         os.path.join(ROOT, "tests", "fixtures", "aliases.S"), "-o", obj],
        [CROSS + "ld", "-m", emulation, "-Ttext=0x80001000", "-e", "global_fn", obj, "-o", elf],
    ]
    for argv in steps:
        result = run(argv)
        if not results.check("build fixture %s: %s" % (label, os.path.basename(argv[0])),
                             result.returncode == 0, result.stderr):
            return None
    return elf


def check_fixture_semantics(results, label, elf):
    """Hand-stated expectations of aliases.S, on top of the nm comparison."""
    table = parse_table(os.path.join(WORK, label + ".c"))
    names = {name for name, _ in table.values()}
    results.check("symgen %s: aliases resolve to global, weak, alphabetical" % label,
                  {"global_fn", "alpha_local", "weak_only", "unsized_local", "unsized_last"} == names,
                  "names: %s" % sorted(names))


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


def check_bad_input(results, kernel):
    good = open(kernel, "rb").read()
    bad_dir = os.path.join(WORK, "bad")
    os.makedirs(bad_dir, exist_ok=True)

    def write(name, data):
        path = os.path.join(bad_dir, name)
        open(path, "wb").write(data)
        return path

    stripped = os.path.join(bad_dir, "stripped.elf")
    run([CROSS + "strip", "-o", stripped, kernel])
    bad_class = bytearray(good)
    bad_class[4] = 3
    cases = [
        ("missing file", os.path.join(bad_dir, "does-not-exist.elf"), "cannot open"),
        ("not ELF", os.path.join(ROOT, "README.md"), "not an ELF file"),
        ("empty file", write("empty.elf", b""), "not an ELF file"),
        ("truncated header", write("header.elf", good[:30]), "truncated ELF header"),
        ("truncated file", write("half.elf", good[:len(good) // 2]),
         "truncated: section headers past end of file"),
        ("bad ELF class", write("class.elf", bytes(bad_class)), "unsupported ELF class"),
        ("wrong machine", "/bin/true", "not a RISC-V ELF file"),
        ("stripped", stripped, "no symbol table"),
        ("symbol table past end", write("symtab.elf", elf_patch(good, True, 2, "offset", len(good) - 8)),
         "truncated: symbol table past end of file"),
    ]
    for label, path, message in cases:
        out = os.path.join(bad_dir, "out.c")
        result = run([SYMGEN, "-o", out, path])
        lines = result.stderr.splitlines()
        leftovers = glob.glob(out + "*")
        results.check(
            "symgen rejects %s" % label,
            result.returncode == 1 and len(lines) == 1 and
            lines[0].startswith("symgen: %s: " % path) and message in lines[0] and not leftovers,
            "exit %d, stderr %r, left behind %s" % (result.returncode, result.stderr, leftovers))


def check_corrupt_files_never_crash(results, kernel):
    """Random byte corruptions of a real kernel: symgen (with AddressSanitizer)
    must either succeed or print its one-line error; never crash or hang."""
    good = open(kernel, "rb").read()
    rng = random.Random(2)
    path = os.path.join(WORK, "bad", "corrupt.elf")
    out = os.path.join(WORK, "bad", "corrupt.c")
    problems = []
    runs = 300
    for i in range(runs):
        data = bytearray(good)
        # Corrupt the headers, where a bad value does most damage.
        for _ in range(rng.randint(1, 8)):
            where = rng.choice([rng.randrange(64), rng.randrange(len(data)),
                                len(data) - 1 - rng.randrange(min(len(data), 4096))])
            data[where] = rng.randrange(256)
        if rng.random() < 0.2:
            data = data[:rng.randrange(len(data))]
        open(path, "wb").write(bytes(data))
        result = run([SYMGEN_ASAN, "-o", out, path], timeout=20)
        if result.returncode not in (0, 1) or (result.returncode == 1 and
                                                not result.stderr.startswith("symgen: ")):
            problems.append("case %d: exit %d: %s" % (i, result.returncode, result.stderr[-300:]))
    results.check("symgen survives %d corrupted kernel images" % runs, not problems,
                  "\n".join(problems[:5]))


def run_all(results, kernels):
    os.makedirs(WORK, exist_ok=True)
    for label, elf in kernels:
        compare_with_nm(results, label, elf)
    for elf in OPENSBI_ELFS:
        if results.check("OpenSBI image present: %s" % elf, os.path.exists(elf)):
            compare_with_nm(results, "opensbi-" + os.path.basename(os.path.dirname(elf)), elf)
    for label, arch, abi, emulation in [("aliases-rv64", "rv64imac", "lp64", "elf64lriscv"),
                                        ("aliases-rv32", "rv32imac", "ilp32", "elf32lriscv")]:
        elf = build_fixture(results, label, arch, abi, emulation)
        if elf:
            compare_with_nm(results, label, elf)
            check_fixture_semantics(results, label, elf)
    if kernels:
        check_bad_input(results, kernels[0][1])
        check_corrupt_files_never_crash(results, kernels[0][1])

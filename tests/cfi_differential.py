"""The DWARF unwinder's CFI evaluation against binutils: for every FDE of
.eh_frame in the built kernels (rv64 and rv32), in OpenSBI's firmware (when
it has CFI), in the toolchain's libgcc linked whole (rv64gc, rv64imac,
rv32imac) and in an assembled fixture (rv64 and rv32) with the rule kinds and
FDE pointer encodings compilers rarely emit, the row of the
rule table the tracer computes (build/host/cfi_rows, tests/tools/cfi_rows.c)
must equal the row `readelf --debug-dump=frames-interp` (-wF) prints: the
CFA and every register column, at the first and at the last address of each
row, plus the FDE's pc range and its CIE's factors and return-address column.

What readelf's table can and cannot say, and how it is compared:
  * readelf shows a column only if some instruction of the FDE or its CIE
    names that register ("referenced"); it prints "u" both for a referenced
    column no rule has been given yet (or a DW_CFA_restore to a CIE that gives
    none) and for DW_CFA_undefined. The tracer keeps the first two as "no
    rule" (unspecified) and the last as CFI_RULE_UNDEFINED. So "u" must be no
    rule, or undefined if the FDE or its CIE holds a DW_CFA_undefined for that
    register (found in readelf -wf, the raw dump); a column readelf does not
    show must have no rule.
  * Which register a column is comes from the raw dump too: readelf names the
    CIE's return-address column "ra" whatever its number (libgcc's
    __riscv_save_* use t0, column 5) and regname(1) is "ra" as well, so names
    alone are ambiguous. The columns are the referenced registers in
    ascending order, and their names must then be the ones readelf printed.
  * A row is printed at each advance and once at the end; a row whose range
    is empty (the next row starts at the same address) or lies outside the
    FDE is not comparable, and is counted as skipped.
  * An FDE whose instructions are all DW_CFA_nop gets no rows: at its first
    and last address the row must be the CIE's initial row (printed under the
    CIE).
"""
import functools
import glob
import os
import re
import subprocess

from testlib import (CROSS, HOST_BUILD, SHARED_OBJECTS, TEST_BUILD, in_parallel, info,
                     link_libgcc_whole, run)

CFI_ROWS = os.path.join(HOST_BUILD, "cfi_rows")
WORK = os.path.join(TEST_BUILD, "cfi")
OPENSBI_ELFS = [
    "/usr/lib/riscv64-linux-gnu/opensbi/generic/fw_dynamic.elf",
    "/usr/share/qemu/opensbi-riscv64-generic-fw_dynamic.elf",
]
LIBGCC_VARIANTS = [  # label, gcc flags (none: the default multilib, rv64gc/lp64d)
    ("rv64gc", []),
    ("rv64imac", ["-march=rv64imac", "-mabi=lp64"]),
    ("rv32imac", ["-march=rv32imac", "-mabi=ilp32"]),
]
# The fixture assembled for each word size: (label, -march, -mabi).
FIXTURE_TARGETS = [("rv64", "rv64gc", "lp64d"), ("rv32", "rv32gc", "ilp32d")]
MISMATCHES_SHOWN = 10
# What readelf shows as "u" but the tracer must tell apart, checked by hand
# on the fixture: (function, byte offset, DWARF column, rule or None).
FIXTURE_UNDEFINED = [
    ("fixture_cie_rules", 2, 41, "u"),  # DW_CFA_undefined fs1 overrides the CIE
    ("fixture_kinds", 6, 20, "u"),  # DW_CFA_undefined s4
    ("fixture_kinds", 8, 1, None),  # DW_CFA_restore ra, the CIE has no rule: unspecified
]

# readelf's RISC-V register names (binutils dwarf.c, dwarf_regnames_riscv):
# DWARF numbers 0-63 here, 96-127 are v0-v31, others print as rN except the
# CSRs (4096-8191), which readelf names and this test does not (their columns
# would be reported as a header mismatch).
RISCV_NAMES = ("zero ra sp gp tp t0 t1 t2 s0 s1 a0 a1 a2 a3 a4 a5 a6 a7 "
               "s2 s3 s4 s5 s6 s7 s8 s9 s10 s11 t3 t4 t5 t6 "
               "ft0 ft1 ft2 ft3 ft4 ft5 ft6 ft7 fs0 fs1 fa0 fa1 fa2 fa3 fa4 fa5 fa6 fa7 "
               "fs2 fs3 fs4 fs5 fs6 fs7 fs8 fs9 fs10 fs11 ft8 ft9 ft10 ft11").split()
# Call-frame instructions whose first operand is a register column (the ones
# readelf's first pass counts as referencing it).
COLUMN_OPS = {"DW_CFA_offset", "DW_CFA_restore", "DW_CFA_offset_extended",
              "DW_CFA_val_offset", "DW_CFA_restore_extended", "DW_CFA_undefined",
              "DW_CFA_same_value", "DW_CFA_register", "DW_CFA_expression",
              "DW_CFA_val_expression", "DW_CFA_offset_extended_sf", "DW_CFA_val_offset_sf",
              "DW_CFA_GNU_negative_offset_extended"}

ENTRY_RE = re.compile(r"^([0-9a-f]{8}) [0-9a-f]+ [0-9a-f]+ (CIE|FDE)\b(.*)$")
CIE_INTERP_RE = re.compile(r'^ "(.*)" cf=(\d+) df=(-?\d+) ra=(\d+)$')
FDE_RE = re.compile(r"^ cie=([0-9a-f]{8}) pc=([0-9a-f]+)\.\.([0-9a-f]+)$")
HEADER_RE = re.compile(r"^\s+LOC\s+CFA\s*(.*?)\s*$")
ROW_RE = re.compile(r"^([0-9a-f]+) (.*?)\s*$")
ZERO_RE = re.compile(r"^[0-9a-f]{8} ZERO terminator$")
# A cell is one word, or "r9 (s1)" for DW_CFA_register (regname(n, 0)).
CELL_RE = re.compile(r"r\d+ \([^)]*\)|\S+")

# The assembled fixture: rule kinds and encodings GCC's C output lacks.
FIXTURE_SOURCE = r"""
	.text
	.globl	fixture_cie_rules
	.type	fixture_cie_rules, @function
fixture_cie_rules:		# rules before the first instruction of the first
	.cfi_startproc		# FDE: gas puts them into the CIE
	.cfi_def_cfa_offset 16
	.cfi_offset ra, -8
	.cfi_offset fs1, -16
	nop
	.cfi_offset ra, -16
	.cfi_undefined fs1
	nop
	.cfi_restore ra		# back to the CIE's rules
	.cfi_restore fs1
	nop
	.cfi_endproc

	.globl	fixture_kinds
	.type	fixture_kinds, @function
fixture_kinds:			# every rule kind, the state stack, a CFA expression
	.cfi_startproc
	nop
	.cfi_def_cfa_offset 64
	nop
	.cfi_offset ra, -8
	.cfi_offset s0, -16
	.cfi_offset fs0, -24
	.cfi_offset 100, -32
	nop
	.cfi_same_value s1
	.cfi_register s2, t1
	.cfi_val_offset s3, 16
	.cfi_undefined s4
	.cfi_escape 0x10, 21, 2, 0x72, 8	# DW_CFA_expression s5: breg2 8
	.cfi_escape 0x16, 22, 2, 0x72, 16	# DW_CFA_val_expression s6: breg2 16
	nop
	.cfi_remember_state
	.cfi_restore ra		# to a CIE without a rule for it
	.cfi_restore s0
	.cfi_def_cfa s0, 16
	nop
	.cfi_restore_state
	nop
	.cfi_escape 0x0f, 3, 0x72, 0x20, 0x06	# DW_CFA_def_cfa_expression: breg2 32; deref
	nop
	.cfi_def_cfa sp, 64
	.skip 300			# DW_CFA_advance_loc2
	.cfi_def_cfa_offset 32
	.skip 70000			# DW_CFA_advance_loc4
	.cfi_adjust_cfa_offset -32
	nop
	.cfi_endproc

	.globl	fixture_no_rows
	.type	fixture_no_rows, @function
fixture_no_rows:		# an FDE of DW_CFA_nop only: the CIE's row throughout
	.cfi_startproc
	ret
	.cfi_endproc

	.globl	fixture_augmented
	.type	fixture_augmented, @function
fixture_augmented:		# personality, LSDA and signal frame: CIE "zPLRS"
	.cfi_startproc
	.cfi_personality 0x9b, fixture_personality_ref
	.cfi_lsda 0x1b, fixture_lsda
	.cfi_signal_frame
	nop
	.cfi_def_cfa_offset 16
	nop
	.cfi_endproc

	.option	push
	.option	norvc		# fixed sizes: the FDEs below state them
	.globl	fixture_absptr
	.type	fixture_absptr, @function
fixture_absptr:			# described by hand below, FDE pointers absptr
	nop
	nop
	nop
	ret
	.globl	fixture_version1
	.type	fixture_version1, @function
fixture_version1:		# described by a version-1 CIE without augmentation
	nop
	nop
	ret
	.option	pop

#if __riscv_xlen == 64
#define PTR .8byte		/* DW_EH_PE_absptr: the image's word */
#else
#define PTR .4byte
#endif
	.data
	.balign	8
fixture_personality_ref:
	PTR	fixture_kinds
fixture_lsda:
	PTR	0

	# Entries written by hand before the assembler's own: FDE pointers in
	# the image's word (absptr), which GCC never emits; 4 bytes on rv32.
	.section .eh_frame, "a", @progbits
fixture_absptr_cie:		# "zR", FDE encoding 0x00 (absptr)
	.4byte	2f - 1f
1:	.4byte	0
	.byte	3
	.asciz	"zR"
	.uleb128 1
	.sleb128 -4
	.uleb128 1
	.uleb128 1
	.byte	0x00
	.byte	0x0c, 2, 0	# DW_CFA_def_cfa sp, 0
	.balign	4, 0
2:	.4byte	2f - 1f
1:	.4byte	1b - fixture_absptr_cie
	PTR	fixture_absptr
	PTR	16
	.uleb128 0
	.byte	0x44, 0x0e, 16	# advance 4; DW_CFA_def_cfa_offset 16
	.byte	0x44, 0x81, 2	# advance 4; DW_CFA_offset ra, cfa-8
	.byte	0x44, 0x0e, 0	# advance 4; DW_CFA_def_cfa_offset 0
	.balign	4, 0
2:
fixture_version1_cie:		# version 1, no augmentation: absptr, no data
	.4byte	2f - 1f
1:	.4byte	0
	.byte	1
	.asciz	""
	.uleb128 1
	.sleb128 -4
	.byte	1
	.byte	0x0c, 2, 0	# DW_CFA_def_cfa sp, 0
	.balign	4, 0
2:	.4byte	2f - 1f
1:	.4byte	1b - fixture_version1_cie
	PTR	fixture_version1
	PTR	12
	.byte	0x44, 0x0e, 32	# advance 4; DW_CFA_def_cfa_offset 32
	.byte	0x88, 4		# DW_CFA_offset s0, cfa-16
	.balign	4, 0
2:
"""


def register_name(column):
    if column < len(RISCV_NAMES):
        return RISCV_NAMES[column]
    return "v%d" % (column - 96) if 96 <= column < 128 else "r%d" % column


def eh_frame_part(text):
    """The lines readelf printed for .eh_frame (it also dumps .debug_frame)."""
    match = re.search(r"^Contents of the \.eh_frame section:\n(.*?)(?=^Contents of |\Z)",
                      text, re.M | re.S)
    return match.group(1).splitlines() if match else []


def parse_raw(text):
    """readelf -wf: {entry offset: {"cie": offset or None, "augmentation",
    "encoding", "referenced": set, "undefined": set}}."""
    entries, entry = {}, None
    for line in eh_frame_part(text):
        match = ENTRY_RE.match(line)
        if match:
            cie = re.search(r"cie=([0-9a-f]{8})", match.group(3))
            entry = entries.setdefault(int(match.group(1), 16), {
                "cie": int(cie.group(1), 16) if cie else None, "augmentation": None,
                "encoding": None, "referenced": set(), "undefined": set()})
            continue
        if entry is None:
            continue
        field = re.match(r'^\s+Augmentation:\s+"(.*)"$', line)
        if field:
            entry["augmentation"] = field.group(1)
        field = re.match(r"^\s+Augmentation data:\s+(.*)$", line)
        if field:
            entry["encoding"] = field.group(1).split()
        op = re.match(r"^\s+(DW_CFA_\w+): r(\d+)\b", line)
        if op and op.group(1) in COLUMN_OPS:
            entry["referenced"].add(int(op.group(2)))
            if op.group(1) == "DW_CFA_undefined":
                entry["undefined"].add(int(op.group(2)))
    return entries


class Table:
    """One CIE or FDE of readelf -wF: its header fields, column names and
    rows [(loc, cfa, [cell per column])]."""

    def __init__(self, offset, kind, fields):
        self.offset, self.kind, self.fields = offset, kind, fields
        self.names, self.rows = None, []  # names: None until the header line


def parse_interp(text):
    """readelf -wF: ({offset: Table}, [lines not understood])."""
    tables, table, problems = {}, None, []
    for line in eh_frame_part(text):
        entry = ENTRY_RE.match(line)
        header = HEADER_RE.match(line)
        row = ROW_RE.match(line)
        if not line.strip():
            table = None
        elif entry:
            kind, rest = entry.group(2), entry.group(3)
            fields = (CIE_INTERP_RE if kind == "CIE" else FDE_RE).match(rest)
            if not fields:
                problems.append(line)
                continue
            table = Table(int(entry.group(1), 16), kind, fields.groups())
            tables[table.offset] = table
        elif ZERO_RE.match(line):
            table = None
        elif table is not None and header:
            table.names = header.group(1).split()
        elif table is not None and table.names is not None and row:
            cells = CELL_RE.findall(row.group(2))
            table.rows.append((int(row.group(1), 16), cells[0], cells[1:]))
        else:
            problems.append(line)
    return tables, problems


class Expected:
    """What readelf says about one row of one FDE."""

    def __init__(self, fde, cie, cfa, columns, undefined):
        self.pc_range = (int(fde.fields[1], 16), int(fde.fields[2], 16))
        self.cie_fields = cie.fields[1:]  # cf, df, ra
        self.cfa = cfa
        self.columns = columns  # {column: readelf cell}
        self.undefined = undefined  # columns some DW_CFA_undefined names

    def describe(self):
        cells = " ".join("%s=%s" % (register_name(c), r) for c, r in sorted(self.columns.items()))
        return "cfa=%s %s" % (self.cfa, cells)


def columns_of(table, cie, raw):
    """Maps the table's column names to DWARF numbers through the raw dump's
    referenced registers; returns (numbers, problem or None)."""
    referenced = set(raw.get(cie.offset, {}).get("referenced", ()))
    if table is not cie:
        referenced |= raw.get(table.offset, {}).get("referenced", set())
    numbers = sorted(referenced)
    ra_column = int(cie.fields[3])
    names = ["ra" if n == ra_column else register_name(n) for n in numbers]
    if names != table.names:
        return None, "columns %s, but the raw dump references %s" % (table.names, names)
    return numbers, None


def expected_rows(fde, cie, raw):
    """[(first pc, last pc, Expected)] for the rows of one FDE; the number of
    rows skipped; a problem or None."""
    source = fde if fde.rows else cie
    if not source.rows:
        return [], 0, None
    numbers, problem = columns_of(source, cie, raw)
    if problem:
        return [], 0, "%s 0x%x: %s" % (source.kind, source.offset, problem)
    start, end = int(fde.fields[1], 16), int(fde.fields[2], 16)
    rows = fde.rows
    if not rows:  # all DW_CFA_nop: the CIE's row throughout
        rows = [(start, cfa, cells) for _, cfa, cells in cie.rows[-1:]]
    undefined = raw.get(fde.offset, {}).get("undefined", set()) | \
        raw.get(cie.offset, {}).get("undefined", set())
    if any(len(cells) != len(numbers) for _, _, cells in rows):
        return [], 0, "%s 0x%x: a row has not one cell per column" % (source.kind, source.offset)
    result, skipped = [], 0
    for i, (loc, cfa, cells) in enumerate(rows):
        next_loc = rows[i + 1][0] if i + 1 < len(rows) else end
        if not start <= loc < min(next_loc, end):
            skipped += 1
            continue
        expected = Expected(fde, cie, cfa, dict(zip(numbers, cells)), undefined)
        result.append((loc, min(next_loc, end) - 1, expected))
    return result, skipped, None


REGISTER_RE = re.compile(r"r(\d+)([+-]\d+)?")
COLUMN_RE = re.compile(r"r\d+")


def readelf_notation(answer):
    """The tool's line -> (fields {fde, cf, df, ra, cfa, error}, {column: cell}),
    register numbers turned into readelf's names."""
    fields, columns = {}, {}
    for token in answer.split():
        key, _, value = token.partition("=")
        register = REGISTER_RE.fullmatch(value)
        if key == "cfa" and register and register.group(2):
            value = register_name(int(register.group(1))) + register.group(2)
        elif COLUMN_RE.fullmatch(key):
            if register and not register.group(2):
                n = int(register.group(1))
                name = register_name(n)
                value = "r%d (%s)" % (n, name) if name != "r%d" % n else name
            if int(key[1:]) in columns:
                fields.setdefault("error", "column %s twice" % key)
            columns[int(key[1:])] = value
            continue
        fields[key] = value
    return fields, columns


def differences(expected, answer):
    """Why the tool's answer is not readelf's row; empty if it is."""
    fields, columns = readelf_notation(answer)
    found = []
    if "error" in fields:
        return ["tracer refused: %s" % fields["error"]]
    pc_range = tuple(int(x, 16) for x in fields.get("fde", "0..0").split(".."))
    if pc_range != expected.pc_range:
        found.append("FDE range %s" % fields.get("fde"))
    if (fields.get("cf"), fields.get("df"), fields.get("ra")) != expected.cie_fields:
        found.append("CIE cf=%s df=%s ra=%s" % (fields.get("cf"), fields.get("df"),
                                                fields.get("ra")))
    if fields.get("cfa") != expected.cfa:
        found.append("cfa=%s" % fields.get("cfa"))
    for column in sorted(set(expected.columns) | set(columns)):
        want, got = expected.columns.get(column), columns.get(column)
        if want == "u" and (got is None or (got == "u" and column in expected.undefined)):
            continue
        if got != want:
            found.append("%s=%s (readelf: %s)" % (register_name(column),
                                                   "none" if got is None else got,
                                                   "not shown" if want is None else want))
    return found


def has_eh_frame(elf):
    return re.search(r"\] \.eh_frame\s", run([CROSS + "readelf", "-SW", elf]).stdout) is not None


def compare_elf(results, label, elf):
    """The differential on one ELF; one check line with the figures."""
    raw_result = run([CROSS + "readelf", "-wf", elf], timeout=120)
    interp_result = run([CROSS + "readelf", "-wF", elf], timeout=120)
    raw = parse_raw(raw_result.stdout)
    tables, problems = parse_interp(interp_result.stdout)
    queries, expectations, skipped = [], [], 0
    fdes = [t for t in tables.values() if t.kind == "FDE"]
    for fde in fdes:
        cie = tables.get(int(fde.fields[0], 16))
        if cie is None:
            problems.append("FDE 0x%x: its CIE is not in the dump" % fde.offset)
            continue
        rows, fde_skipped, problem = expected_rows(fde, cie, raw)
        skipped += fde_skipped
        if problem:
            problems.append(problem)
        for first, last, expected in rows:
            expectations.append(expected)
            queries.append((fde.offset, first, last))
    answers, tool_problem = ask_tool(elf, queries)
    if tool_problem:
        problems.append(tool_problem)
    equal, mismatches = 0, []
    for (offset, first, last), expected, pair in zip(queries, expectations, answers):
        found = [(pc, diff) for pc, answer in zip((first, last), pair)
                 for diff in [differences(expected, answer)] if diff]
        if not found:
            equal += 1
        for pc, diff in found[:1]:
            mismatches.append("FDE 0x%x pc 0x%x: %s\n      readelf: %s\n      tracer:  %s" % (
                offset, pc, "; ".join(diff), expected.describe(),
                pair[(first, last).index(pc)]))
    compared = len(queries)
    results.check("CFI differential on %s: %d FDEs, rows compared %d, rows equal %d "
                  "(%d rows with an empty range skipped)"
                  % (label, len(fdes), compared, equal, skipped),
                  compared > 0 and equal == compared and not problems and
                  raw_result.returncode == 0 and interp_result.returncode == 0,
                  "\n".join(problems[:MISMATCHES_SHOWN] + mismatches[:MISMATCHES_SHOWN]) +
                  raw_result.stderr[-500:] + interp_result.stderr[-500:])


def ask_tool(elf, queries):
    """Runs cfi_rows on the queries: [(answer at first pc, answer at last pc)]
    and a problem or None."""
    text = "".join("%x %x\n%x %x\n" % (offset, first, offset, last)
                   for offset, first, last in queries)
    try:
        result = run([CFI_ROWS, elf], input=text, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as error:
        return [], "cfi_rows: %s" % error
    lines = result.stdout.splitlines()
    if result.returncode != 0 or len(lines) != 2 * len(queries):
        return [], "cfi_rows exit %d, %d answers to %d queries: %s" % (
            result.returncode, len(lines), 2 * len(queries), result.stderr[-1000:])
    return list(zip(lines[0::2], lines[1::2])), None


def link_libgcc(results, label, flags):
    """The toolchain's whole libgcc.a in one ELF, so that its CFI is relocated."""
    elf = os.path.join(HOST_BUILD, "libgcc-%s.elf" % label)
    archive, result = link_libgcc_whole(flags, elf)
    ok = results.check("link libgcc %s whole (%s)" % (label, archive),
                       result.returncode == 0, result.stderr)
    return elf if ok else None


def build_fixture(results, label, arch, abi):
    source = os.path.join(WORK, "fixture-%s.S" % label)
    elf = os.path.join(WORK, "fixture-%s.elf" % label)
    with open(source, "w") as f:
        f.write(FIXTURE_SOURCE)
    result = run([CROSS + "gcc", "-march=" + arch, "-mabi=" + abi, "-nostdlib", "-static",
                  "-Wl,-Ttext=0x80001000", "-Wl,-e,fixture_kinds", "-Wl,--no-warn-rwx-segments",
                  source, "-o", elf])
    ok = results.check("build CFI fixture %s (every rule kind, zPLRS CIE, absptr FDEs)" % label,
                       result.returncode == 0, result.stderr)
    return elf if ok else None


def check_fixture_undefined(results, label, elf):
    """The fixture's "u" columns that readelf cannot tell apart."""
    symbols = {}
    for line in run([CROSS + "nm", elf]).stdout.splitlines():
        fields = line.split()
        if len(fields) == 3:
            symbols[fields[2]] = int(fields[0], 16)
    tables, _ = parse_interp(run([CROSS + "readelf", "-wF", elf]).stdout)
    queries, problems = [], []
    for function, offset, column, rule in FIXTURE_UNDEFINED:
        pc = symbols[function] + offset
        fde = [t.offset for t in tables.values()
               if t.kind == "FDE" and int(t.fields[1], 16) <= pc < int(t.fields[2], 16)]
        queries.append((fde[0] if fde else 0, pc, pc))
    answers, problem = ask_tool(elf, queries)
    for (function, offset, column, rule), pair in zip(FIXTURE_UNDEFINED, answers):
        fields, columns = readelf_notation(pair[0])
        if "error" in fields or columns.get(column) != rule:
            problems.append("%s+%d: %s should be %s: %s" % (function, offset, register_name(column),
                                                          rule or "unspecified", pair[0]))
    results.check("CFI fixture %s: DW_CFA_undefined gives an undefined rule, a restore to a CIE "
                  "without one leaves the column unspecified" % label,
                  problem is None and not problems, "\n".join(problems) + (problem or ""))


def kernels(results):
    """Every kernel the end-to-end tests built; one of our own if none."""
    found = sorted(glob.glob(os.path.join(TEST_BUILD, "*", "kernel.elf")))
    if found:
        return found
    build_dir = os.path.join(TEST_BUILD, "diff")
    result = run(["make", "-s", "BUILD=" + build_dir, "OPT=-O2", "FP=0", SHARED_OBJECTS],
                 timeout=600)
    results.check("build kernel for the CFI differential (OPT=-O2 FP=0)", result.returncode == 0,
                  result.stdout[-2000:] + result.stderr[-2000:])
    return [os.path.join(build_dir, "kernel.elf")] if result.returncode == 0 else []


def run_all(results, kernels_built=lambda: None):
    """kernels_built: returns once the other tests' kernels are built
    (tests/run_tests.py runs them side by side)."""
    os.makedirs(WORK, exist_ok=True)
    targets = []
    for label, arch, abi in FIXTURE_TARGETS:
        fixture = build_fixture(results, label, arch, abi)
        if fixture:
            targets.append(("fixture " + label, fixture))
            check_fixture_undefined(results, label, fixture)
    for label, flags in LIBGCC_VARIANTS:
        elf = link_libgcc(results, label, flags)
        if elf:
            targets.append(("libgcc-" + label, elf))
    for elf in OPENSBI_ELFS:
        targets.append(("opensbi " + elf, elf))
    compare_all(results, targets)
    kernels_built()
    kernel_elfs = kernels(results)
    with_cfi = [elf for elf in kernel_elfs if has_eh_frame(elf)]
    results.check("some kernel has .eh_frame to compare (%d of %d)"
                  % (len(with_cfi), len(kernel_elfs)), bool(with_cfi),
                  "\n".join(kernel_elfs))
    compare_all(results, [("kernel " + os.path.basename(os.path.dirname(elf)), elf)
                          for elf in kernel_elfs])


def compare_all(results, targets):
    """compare_elf() on each (label, elf), side by side."""
    def compare(label, elf):
        if not os.path.exists(elf):
            info("SKIP CFI differential on %s: no such file" % label)
        elif not has_eh_frame(elf):
            info("SKIP CFI differential on %s: no .eh_frame" % label)
        else:
            compare_elf(results, label, elf)
    in_parallel([functools.partial(compare, label, elf) for label, elf in targets])

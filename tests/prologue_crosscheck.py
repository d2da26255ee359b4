"""The prologue decoder (tracer/prologue_decode.c, of the prologue unwinder)
against two oracles, through build/host/prologue_check (tests/tools/prologue_check.c):

  * the compiler's CFI, in every kernel the end-to-end tests built that has
    .eh_frame and in the toolchain's libgcc linked whole (three multilibs):
    prologue_check compares the decoder's frame with the CFI row at the end
    of each function's prologue and at each of its return addresses;
  * for OpenSBI's firmware, which has no CFI and is stripped, the frames its
    epilogues undo, read from objdump's text (see check_opensbi).

An image passes when every disagreement is explained by ALLOWLIST and the
decoder is right, on the code it is meant to handle, for at least 99% of the
functions checked: a disagreement explained as the decoder's ("decoder")
counts against it; one where the oracle is wrong or blind ("oracle"), or
where the code is not what the decoder models, on purpose ("outside"), does
not. An assembled fixture with wrong CFI first shows that prologue_check
finds such disagreements at all.
"""
import fnmatch
import os
import re

from testlib import CROSS, HOST_BUILD, ROOT, TEST_BUILD, info, link_libgcc_whole, run

PROLOGUE_CHECK = os.path.join(HOST_BUILD, "prologue_check")
WORK = os.path.join(TEST_BUILD, "prologue")
OPENSBI_ELF = "/usr/lib/riscv64-linux-gnu/opensbi/generic/fw_dynamic.elf"
LIBGCC_VARIANTS = [  # label, gcc flags (none: the default multilib, rv64gc/lp64d)
    ("libgcc-rv64gc", []),
    ("libgcc-rv64imac", ["-march=rv64imac", "-mabi=lp64"]),
    ("libgcc-rv32imac", ["-march=rv32imac", "-mabi=ilp32"]),
]
AGREEMENT_MIN = 0.99
NO_CFI = "no call-frame information (.eh_frame) in the image"

# Every known disagreement: (image label, function, kind, regular expression
# the line must match, why). Labels and functions are shell patterns.
ALLOWLIST = [
    # kernel/scenarios/faults.c executes `unimp` (0x0000) for the
    # illegal-instruction scenario; decoding the whole function is refused
    # there. Unwinding from that trap decodes only up to the faulting pc.
    ("kernel-*", "execute_illegal", "outside", r"decoder unknown instruction 0x0000 ",
     "executes unimp on purpose"),
    # scenario=bad-sp (kernel/scenarios/overflow.c) and the exhausted panic
    # and reserve stacks (tests/fixtures/hostile.c) load sp in inline assembly on purpose:
    # the compiler's CFI cannot know; the decoder reads `li sp` as a claim to
    # be the outermost frame, and `mv sp` from a register as sp lost.
    ("kernel-*", "smash_stack_pointer", "outside", r"decoder cfa=origin ",
     "sets sp = 0x1000 on purpose"),
    ("kernel-*", "hostile_exhaust_*_stack", "outside", r"decoder cfa=lost ",
     "sets sp from a register on purpose"),
    # libgcc's millicode (config/riscv/save-restore.S, hand-written), which
    # -msave-restore code calls with `jal t0`: __riscv_save_N returns through
    # t0, its CFI's return-address column, where a prologue_frame can only
    # say ra. Their shared tail also adds t1 << 4 to sp, which no decoder
    # follows (cfa=lost in __riscv_save_2).
    ("libgcc-*", "__riscv_save_*", "outside", r"return=r5$", "returns through t0"),
    # __riscv_restore_N is entered by a tail jump from an epilogue, on its
    # caller's frame, which its CFI describes; the decoder starts every
    # function at CFA = sp and cannot know that frame.
    ("libgcc-*", "__riscv_restore_*", "outside", r"decoder cfa=sp\+0 ra=u s0=u;",
     "runs on its caller's frame"),
    # OpenSBI 1.1 (Debian's opensbi 1.1-2), stripped: functions are named by
    # address. fw_base.S returns a link-time address, then holds data words
    # and zero padding in .text up to the next function found; decoding that
    # whole range reaches them. An unwinder decodes only up to its pc.
    ("opensbi", "fn_80000600", "outside", r"decoder unknown instruction 0x0000 ",
     "assembly followed by data"),
    # DECODER LIMIT (reported): csr_read_num and csr_write_num
    # (lib/sbi/riscv_asm.c) switch through jump tables; their only frame is
    # on the default path, placed before the cases, which calls sbi_panic
    # (noreturn). Decoding stops at that call and describes its frame for
    # every later pc, but the cases (`csrr a0, mhpmcounterN; ret`), entered
    # through the table, have no frame: a trap on such a csrr (an absent
    # counter) would be unwound through a frame that does not exist.
    ("opensbi", "fn_80003f1e", "decoder", r"decoder cfa=sp\+16,s0\+0 ra=c-8 s0=c-16; "
     r"epilogue cfa=sp\+0 ra=u s0=u$", "frame only on a noreturn path before the cases"),
    ("opensbi", "fn_800042ec", "decoder", r"decoder cfa=sp\+16,s0\+0 ra=c-8 s0=c-16; "
     r"epilogue cfa=sp\+0 ra=u s0=u$", "frame only on a noreturn path before the cases"),
]

SUMMARY_RE = re.compile(r"^prologue_check: (\d+) functions with CFI, (\d+) agree at every point "
                        r"\((\d+) points checked, (\d+) disagree\), (\d+) without CFI$")
DISAGREE_RE = re.compile(r"^disagree (\S+) 0x[0-9a-f]+ (\S+): decoder (.*); cfi (.*)$")
FRAME_RE = re.compile(r"^frame (\S+) 0x([0-9a-f]+) stop=0x[0-9a-f]+ (.*)$")
REFUSED_RE = re.compile(r"^refused (\S+) 0x([0-9a-f]+): (.*)$")

# Functions with right and wrong CFI, and what prologue_check must say.
FIXTURE = os.path.join(ROOT, "tests", "fixtures", "prologue_cfi.S")
FIXTURE_DISAGREEMENTS = [
    ("wrong_ra", "return-address", "cfa=sp+16 ra=c-8 s0=u", "cfa=sp+16 ra=c-16 s0=u"),
    ("wrong_ra", "prologue-end", "cfa=sp+16 ra=c-8 s0=u", "cfa=sp+16 ra=c-16 s0=u"),
    ("wrong_cfa", "return-address", "cfa=sp+32,s0+0 ra=c-8 s0=c-16", "cfa=s0+16 ra=c-8 s0=c-16"),
    ("wrong_cfa", "prologue-end", "cfa=sp+32,s0+0 ra=c-8 s0=c-16", "cfa=s0+16 ra=c-8 s0=c-16"),
]
FIXTURE_SUMMARY = ("prologue_check: 5 functions with CFI, 3 agree at every point "
                   "(9 points checked, 4 disagree), 1 without CFI")

# objdump -d: "    80000abc:\t1141                \tadd\tsp,sp,-16"
OBJDUMP_RE = re.compile(r"^\s*([0-9a-f]+):\t[0-9a-f]+(?: [0-9a-f]+)*\s*\t(\S+)\s*(.*)$")
# What ends a straight-line run of code: branches, jumps, calls, traps.
CONTROL = re.compile(r"^(b\w*|j|jal|jalr|jr|ret|mret|sret|ecall|ebreak|unimp|\.\dbyte)$")
BRANCH = re.compile(r"^(b\w+|j)$")  # direct branches and jumps, not calls
NO_FALL_THROUGH = ("ret", "j", "jr", "mret", "sret")
PADDING = re.compile(r"^(nop|unimp|\.\dbyte)$")
SP_ADJUST = re.compile(r"^sp,sp,(-?\d+)$")  # addi and c.addi16sp (objdump: add)
SLOT_LOAD = re.compile(r"^(ra|s0),(-?\d+)\(sp\)$")


def explanation(label, function, line, used):
    """The kind of the ALLOWLIST entry that explains a disagreement, or None;
    adds the entry's index to `used`."""
    for index, (label_pattern, function_pattern, kind, what, _) in enumerate(ALLOWLIST):
        if (fnmatch.fnmatchcase(label, label_pattern) and
                fnmatch.fnmatchcase(function, function_pattern) and re.search(what, line)):
            used.add(index)
            return kind
    return None


def judge(results, name, label, checked, disagreements, used):
    """One check for an image: [(function, line)] disagreements among
    `checked` functions must all be explained, and the decoder right on
    AGREEMENT_MIN of them."""
    kinds = [(function, line, explanation(label, function, line, used))
             for function, line in disagreements]
    unexplained = [line for _, line, kind in kinds if kind is None]
    decoder_wrong = {function for function, _, kind in kinds if kind in (None, "decoder")}
    explained = sorted({"%s (%s)" % (function, kind) for function, _, kind in kinds if kind})
    right = (checked - len(decoder_wrong)) / checked if checked else 0
    if explained:
        info("    explained: " + ", ".join(explained))
    results.check("%s; decoder right on %.1f%% (at least %.0f%%), every disagreement "
                  "explained" % (name, 100 * right, 100 * AGREEMENT_MIN),
                  checked > 0 and not unexplained and right >= AGREEMENT_MIN,
                  "\n".join(["unexplained:"] + unexplained if unexplained else
                            ["decoder wrong in: " + " ".join(sorted(decoder_wrong))]))


def run_check(results, label, elf):
    """prologue_check on an image with CFI: (summary figures, [(function,
    point, decoder view, CFI view, line)]), or None if it did not run."""
    result = run([PROLOGUE_CHECK, elf], timeout=300)
    lines = result.stdout.splitlines()
    summary = SUMMARY_RE.match(lines[-1]) if lines else None
    found = [m.groups() + (line,) for line in lines[:-1] for m in [DISAGREE_RE.match(line)] if m]
    if not results.check("prologue_check runs on %s" % label,
                         result.returncode == 0 and summary is not None and
                         len(found) == len(lines) - 1 == int(summary.group(4)),
                         "exit %d\n%s%s" % (result.returncode, result.stdout[-1000:],
                                            result.stderr[-1000:])):
        return None
    return tuple(int(g) for g in summary.groups()), found


def check_against_cfi(results, label, elf, used):
    outcome = run_check(results, label, elf)
    if outcome is None:
        return
    (with_cfi, agree, points, disagree, without), found = outcome
    judge(results, "prologue decoder vs CFI on %s: %d functions with CFI, %d agree at every "
          "point (%d points checked, %d disagree), %d without CFI"
          % (label, with_cfi, agree, points, disagree, without),
          label, with_cfi, [(f[0], f[4]) for f in found], used)


def check_fixture(results):
    """The checker itself: on functions with wrong CFI it must disagree, with
    the decoder's and the CFI's view, and agree on the others."""
    elf = os.path.join(WORK, "prologue_cfi.elf")
    built = run([CROSS + "gcc", "-march=rv64imac", "-mabi=lp64", "-nostdlib", "-static",
                 "-Wl,-Ttext=0x80001000", "-Wl,-e,right_frame", "-Wl,--no-warn-rwx-segments",
                 FIXTURE, "-o", elf])
    if not results.check("build fixture prologue_cfi.S", built.returncode == 0, built.stderr):
        return
    result = run([PROLOGUE_CHECK, elf])
    lines = result.stdout.splitlines()
    found = [m.groups() for line in lines for m in [DISAGREE_RE.match(line)] if m]
    results.check("prologue_check finds wrong CFI in the fixture (a wrong ra slot, a wrong CFA "
                  "from s0) and agrees with right CFI",
                  result.returncode == 0 and found == FIXTURE_DISAGREEMENTS and
                  lines[-1:] == [FIXTURE_SUMMARY], result.stdout + result.stderr)


def check_bad_input(results):
    """Input prologue_check cannot use: exit 1, one line naming the file,
    nothing on stdout."""
    listing = os.path.join(WORK, "bad-functions.txt")
    with open(listing, "w") as f:
        f.write("80000000 80000010 first\nnot a line\n")
    cases = [
        ("not ELF", [os.path.join(ROOT, "README.md")], "README.md: not an ELF file"),
        ("an image without .eh_frame", [OPENSBI_ELF], NO_CFI),
        ("a bad --functions line", ["--no-cfi", "--functions", listing, OPENSBI_ELF],
         "bad-functions.txt: line 2: expected"),
    ]
    for label, argv, message in cases:
        result = run([PROLOGUE_CHECK] + argv)
        lines = result.stderr.splitlines()
        results.check("prologue_check rejects %s" % label,
                      result.returncode == 1 and not result.stdout and len(lines) == 1 and
                      lines[0].startswith("prologue_check: ") and message in lines[0],
                      "exit %d, stdout %r, stderr %r" % (result.returncode, result.stdout[-300:],
                                                         result.stderr))


def has_eh_frame(elf):
    return ".eh_frame" in sections(elf)


def sections(elf):
    """{name: (address, file offset, size)} from readelf's section headers."""
    return {m.group(1): tuple(int(g, 16) for g in m.group(2, 3, 4)) for m in
            re.finditer(r"\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)",
                        run([CROSS + "readelf", "-S", "-W", elf]).stdout)}


def link_libgcc(results, label, flags):
    """The toolchain's whole libgcc.a for `flags` in one image: GCC's code
    and hand-written assembly, part of it with CFI."""
    elf = os.path.join(WORK, label + ".elf")
    archive, result = link_libgcc_whole(flags, elf)
    ok = results.check("link %s whole (%s) for the prologue cross-check" % (label, archive),
                       result.returncode == 0, result.stderr)
    return elf if ok else None


def disassemble(elf):
    """[(address, mnemonic, operands, address computed)] of the image's code
    in address order: operands without objdump's comments and symbolic
    targets; the address objdump computed for an auipc pair, or None."""
    code = []
    for line in run([CROSS + "objdump", "-d", elf], timeout=120).stdout.splitlines():
        m = OBJDUMP_RE.match(line)
        if m:
            computed = re.search(r"# ([0-9a-f]+)", m.group(3))
            operands = re.sub(r"\s*(#.*|<[^>]*>)$", "", m.group(3)).strip()
            code.append((int(m.group(1), 16), m.group(2), operands,
                         int(computed.group(1), 16) if computed else None))
    return code


def jump_table_targets(elf, code):
    """Code reached through jump tables: GCC's (PIC style) are words in
    .rodata holding the target minus the table's address, which an auipc
    pair computes. Every address so computed is read as a table for as long
    as its words lead to instructions."""
    rodata = sections(elf).get(".rodata")
    if rodata is None:
        return set()
    with open(elf, "rb") as f:
        f.seek(rodata[1])
        data = f.read(rodata[2])
    instructions = {addr for addr, _, _, _ in code}
    targets = set()
    for table in {c for _, _, _, c in code if c and rodata[0] <= c < rodata[0] + rodata[2]}:
        for offset in range(table - rodata[0], len(data) - 3, 4):
            target = table + int.from_bytes(data[offset:offset + 4], "little", signed=True)
            if target not in instructions:
                break
            targets.add(target)
    return targets


def unreached_code(code, jump_targets):
    """Code no instruction reaches: the first after one that does not fall
    through (a return, a jump, a tail call) and its padding, unless a branch,
    jump or jump table targets it. Functions nothing calls directly start
    there: unused ones, and those called through pointers made in code."""
    targets = jump_targets | {int(operands.split(",")[-1], 16) for _, mnemonic, operands, _
                              in code if BRANCH.match(mnemonic) and
                              re.search(r"(^|,)[0-9a-f]+$", operands)}
    found, after_end = [], False
    for addr, mnemonic, _, _ in code:
        if after_end and not PADDING.match(mnemonic):
            if addr not in targets:
                found.append(addr)
            after_end = False
        after_end = after_end or mnemonic in NO_FALL_THROUGH
    return found


def function_starts(elf, code, text):
    """{start: name} of a stripped image: the targets of direct calls (jal
    with ra, which objdump prints with the target alone), the functions of
    .dynsym, the entry point, the code addresses in relocated data (function
    pointers) and unreached code."""
    starts = {}
    for _, mnemonic, operands, _ in code:
        if mnemonic == "jal" and re.match(r"^[0-9a-f]+$", operands):
            starts[int(operands, 16)] = ""
    for line in run([CROSS + "readelf", "-r", "-W", elf]).stdout.splitlines():
        fields = line.split()
        if len(fields) == 4 and fields[2] == "R_RISCV_RELATIVE":
            starts[int(fields[3], 16)] = ""
    for addr in unreached_code(code, jump_table_targets(elf, code)):
        starts[addr] = ""
    entry = re.search(r"Entry point address:\s+0x([0-9a-f]+)",
                      run([CROSS + "readelf", "-h", elf]).stdout)
    if entry:
        starts[int(entry.group(1), 16)] = "entry"
    for line in run([CROSS + "readelf", "--dyn-syms", "-W", elf]).stdout.splitlines():
        fields = line.split()
        if len(fields) >= 8 and fields[3] == "FUNC" and fields[6] != "UND":
            starts[int(fields[1], 16)] = fields[7]
    return {addr: name or "fn_%x" % addr for addr, name in starts.items()
            if text[0] <= addr < text[1]}


def epilogue_frame(instructions, ret):
    """The frame the straight-line code before instructions[ret] (a return)
    undoes, as (frame size, ra slot, s0 slot), slots from the CFA or None;
    None if sp is restored other than by `addi sp,sp,M`."""
    size, slots = 0, {}
    for _, mnemonic, operands, _ in reversed(instructions[:ret]):
        adjust = SP_ADJUST.match(operands) if mnemonic in ("add", "addi") else None
        load = SLOT_LOAD.match(operands) if mnemonic in ("ld", "lw") else None
        if CONTROL.match(mnemonic):
            break
        if adjust and int(adjust.group(1)) > 0:
            size += int(adjust.group(1))
        elif load:
            slots.setdefault(load.group(1), int(load.group(2)) - size)
        elif operands.startswith("sp,") and mnemonic not in ("sd", "sw"):
            return None  # from a frame pointer, a register, or down
    return size, slots.get("ra"), slots.get("s0")


def oracle_frame(instructions):
    """The function's frame as its epilogues undo it: the largest they undo
    (a shrink-wrapped early return undoes none); None without a return."""
    frames = [epilogue_frame(instructions, i) for i, (_, mnemonic, operands, _)
              in enumerate(instructions) if mnemonic == "ret" or (mnemonic, operands) == ("jr", "ra")]
    frames = [f for f in frames if f is not None]
    return max(frames, key=lambda f: f[0]) if frames else None


def oracle_text(frame):
    """An oracle frame in prologue_check's notation."""
    size, ra, s0 = frame
    return "cfa=sp+%d ra=%s s0=%s" % (size, "u" if ra is None else "c%+d" % ra,
                                       "u" if s0 is None else "c%+d" % s0)


def frames_agree(decoder, oracle):
    """The decoder's "cfa=sp+S[,s0+F] ra=R s0=Q" against an oracle frame:
    the same size and ra, and s0 where the epilogue restores it (see
    s0_agrees in prologue_check.c)."""
    m = re.match(r"^cfa=sp\+(\d+)(?:,s0[+-]\d+)? ra=(\S+) s0=(\S+)$", decoder)
    size, ra, s0 = oracle
    return (m is not None and int(m.group(1)) == size and
            m.group(2) == ("u" if ra is None else "c%+d" % ra) and
            (s0 is None or m.group(3) == "c%+d" % s0))


def decode_functions(results, label, elf, functions):
    """prologue_check --no-cfi on [(start, end, name)]: {start: (kind,
    view)}, kind "frame" or "refused"; None if it did not run."""
    listing = os.path.join(WORK, label + "-functions.txt")
    with open(listing, "w") as f:
        f.writelines("%x %x %s\n" % function for function in functions)
    result = run([PROLOGUE_CHECK, "--no-cfi", "--functions", listing, elf], timeout=300)
    views = {}
    for line in result.stdout.splitlines():
        m = FRAME_RE.match(line) or REFUSED_RE.match(line)
        if m:
            views[int(m.group(2), 16)] = (line.split()[0], m.group(3))
    ok = results.check("prologue_check --no-cfi runs on %s (%d functions)" % (label, len(functions)),
                       result.returncode == 0 and len(views) == len(functions),
                       "exit %d, %d views\n%s" % (result.returncode, len(views), result.stderr))
    return views if ok else None


def check_opensbi(results, label, elf, used):
    """No CFI, no symbols: the oracle is the code's own epilogues. Functions
    start where function_starts says and end at the next start; each `ret`
    read backwards gives a frame (epilogue_frame). A function is checked if
    it has one, against the decoder's frame where decoding from its start
    stops (its body's frame, see prologue.h)."""
    code, text = disassemble(elf), sections(elf).get(".text")
    if not results.check("disassemble %s" % elf, bool(code) and text is not None):
        return
    starts = function_starts(elf, code, (text[0], text[0] + text[2]))
    ordered = sorted(starts)
    functions = [(a, b, starts[a]) for a, b in zip(ordered, ordered[1:] + [text[0] + text[2]])]
    views = decode_functions(results, label, elf, functions)
    if views is None:
        return
    checked, disagreements = 0, []
    for start, end, name in functions:
        kind, view = views[start]
        if kind == "refused":
            info("    decoder refuses %s 0x%x: %s" % (name, start, view))
        oracle = oracle_frame([i for i in code if start <= i[0] < end])
        if oracle is None:
            continue
        checked += 1
        if kind == "refused" or not frames_agree(view, oracle):
            disagreements.append((name, "disagree %s 0x%x: decoder %s; epilogue %s"
                                  % (name, start, view, oracle_text(oracle))))
    refused = sum(kind == "refused" for kind, _ in views.values())
    judge(results, "prologue decoder vs epilogues on %s: %d functions found, %d checked (with "
          "an epilogue), %d agree, %d refused by the decoder"
          % (label, len(functions), checked, checked - len(disagreements), refused),
          label, checked, disagreements, used)


def report_unused(used):
    """Entries no image needed: fixed, or their images were not built."""
    for index, (label, function, kind, _, why) in enumerate(ALLOWLIST):
        if index not in used:
            info("NOTE prologue cross-check: allowlist entry (%s, %s, %s: %s) explained nothing"
                 % (label, function, kind, why))


def run_all(results, kernels):
    os.makedirs(WORK, exist_ok=True)
    used = set()
    check_fixture(results)
    check_bad_input(results)
    images = list(kernels)
    for label, flags in LIBGCC_VARIANTS:
        elf = link_libgcc(results, label, flags)
        if elf:
            images.append((label, elf))
    for label, elf in images:
        if has_eh_frame(elf):
            check_against_cfi(results, label, elf, used)
        else:
            info("SKIP prologue decoder vs CFI on %s: no .eh_frame" % label)
    if results.check("OpenSBI image present: %s" % OPENSBI_ELF, os.path.exists(OPENSBI_ELF)):
        check_opensbi(results, "opensbi", OPENSBI_ELF, used)
    report_unused(used)

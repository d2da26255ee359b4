#!/usr/bin/python3
"""Writes the fuzz targets' seed corpora (tests/fuzz/corpus/) from a built
demo kernel: its code, .eh_frame, FDE index and symbol table, and real
stacks taken with GDB at the moment the kernel starts its own walk (a
breakpoint on tracer_start: its config and regs arguments give the stack
and the registers the kernel walks from). One more seed splits the load
fault's stack in two at the trap frame, as if the trap had switched to an
interrupt stack.

    make BUILD=build/fuzzseed FP=1
    tests/fuzz/make_seeds.py build/fuzzseed/kernel.elf

fuzz_cfi's seeds of images not booted (the rv32 kernel, the CFI
differential's fixtures) are their .eh_frame with a made-up stack:

    tests/fuzz/make_seeds.py --cfi build/test/rv32-gcc-O2-fp1/kernel.elf \
        build/test/cfi/fixture-rv32.elf build/test/cfi/fixture-rv64.elf

fuzz_lines' seeds are line tables of kernels as symgen encodes them
(build/host/line_lookup --emit-c), with the inlined calls and without, and
an empty table; no boot:

    make build/host/line_lookup
    tests/fuzz/make_seeds.py --lines build/test/gcc-O2-fp1/kernel.elf ...

Input formats: the comments at the top of fuzz_walk.c, fuzz_cfi.c and
fuzz_lines.c.
"""
import os
import re
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from testlib import CROSS, ROOT, run  # noqa: E402

CORPUS = os.path.join(HERE, "corpus")
WALK_TARGETS = ["fuzz_walk_fp", "fuzz_walk_dwarf", "fuzz_walk_prologue", "fuzz_walk_auto",
                "fuzz_walk_table"]
BOOT_TIMEOUT = 60

FLAG_TRAP, FLAG_SYMTAB, FLAG_FDE_INDEX, FLAG_SYMTAB_DAMAGED = 1, 2, 4, 8
FLAG_STACKS_SHIFT = 5  # bits 5-6: stacks after the first
# The demo kernel's trap frame (kernel/layout.h): 36 words.
TRAP_FRAME_BYTES = 36 * 8
# Words of stack kept below the sp the walk starts from (the rest of the
# hart's stack is unused by the walk).
STACK_BELOW_SP = 32

# Runs inside gdb-multiarch at the breakpoint on tracer_start(walk, unwinder,
# config, regs): prints the registers and the stack the kernel declared.
GDB_SNAPSHOT = """
import gdb
inferior = gdb.selected_inferior()
def word(address):
    return int.from_bytes(inferior.read_memory(address, 8).tobytes(), "little")
config = int(gdb.parse_and_eval("$a2")) & 0xffffffffffffffff
regs = int(gdb.parse_and_eval("$a3")) & 0xffffffffffffffff
stacks = word(config + 16)  # the kernel declares one: config.stacks[0]
stack_start, stack_end = word(stacks), word(stacks + 8)
print("REGS " + " ".join("%x" % word(regs + 8 * i) for i in range(15)))
print("STACK %x %x %s" % (stack_start, stack_end,
      inferior.read_memory(stack_start, stack_end - stack_start).tobytes().hex()))
"""


def snapshot(elf, args):
    """(regs, stack start, stack bytes) at the kernel's call of tracer_start."""
    # Imported here: --lines needs no boot. (These helpers have since left
    # e2e_tests: the walk seeds need them back before they can be rewritten.)
    from e2e_tests import free_port, qemu_argv, wait_for_listener
    port = free_port()
    with tempfile.NamedTemporaryFile("w", suffix=".py") as script:
        script.write(GDB_SNAPSHOT)
        script.flush()
        qemu = subprocess.Popen(qemu_argv(elf, args) + ["-S", "-gdb", "tcp:127.0.0.1:%d" % port],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        try:
            if not wait_for_listener(port, time.time() + 10):
                sys.exit("make_seeds: QEMU's gdbstub did not start")
            gdb = run(["gdb-multiarch", "-batch", "-nx", "-ex", "file " + elf,
                       "-ex", "target remote 127.0.0.1:%d" % port,
                       "-ex", "break *tracer_start", "-ex", "continue",
                       "-x", script.name, "-ex", "kill"], timeout=BOOT_TIMEOUT)
        finally:
            qemu.kill()
            qemu.wait()
    regs = re.search(r"^REGS (.*)$", gdb.stdout, re.M)
    stack = re.search(r"^STACK (\w+) (\w+) (\w*)$", gdb.stdout, re.M)
    if not regs or not stack:
        sys.exit("make_seeds: no snapshot for %s:\n%s" % (args, gdb.stdout + gdb.stderr))
    return ([int(v, 16) for v in regs.group(1).split()], int(stack.group(1), 16),
            bytes.fromhex(stack.group(3)))


def section(elf, name):
    with tempfile.NamedTemporaryFile(suffix=".bin") as out:
        result = run([CROSS + "objcopy", "-O", "binary", "--only-section=" + name, elf, out.name])
        if result.returncode != 0:
            sys.exit("make_seeds: objcopy %s: %s" % (name, result.stderr))
        return open(out.name, "rb").read()


def symbols(elf):
    """{name: (address, size)} of the functions nm lists with a size."""
    found = {}
    for line in run([CROSS + "nm", "-S", "--defined-only", elf]).stdout.splitlines():
        fields = line.split()
        if len(fields) == 4 and fields[2] in "Tt":
            found[fields[3]] = (int(fields[0], 16), int(fields[1], 16))
    return found


# The unwind table's layout (docs/unwind-table-format.md, table_format.h): 128-byte
# blocks, each with a 64-bit map of where rows start (bit i: offset 2i); a row
# is its rule's byte offset in rules[]; a rule is {cfa_offset, ra_offset,
# s0_offset, kind} (int16, int16, int16, uint16).
BLOCK_SHIFT, RULE_SIZE = 7, 8
KIND_NO_CFI, KIND_INTERPRET = 16, 17


def input_rule(rule):
    """The fuzz input's word for a table rule (fuzz_walk.c, valid_rule): bits
    0-1 the CFA (0 no CFI, 1 sp, 2 s0, 3 interpret), 2-3 ra (0 in its
    register, 1 saved, 2 undefined), 4 s0 saved, 5-11 and 12-18 ra's and s0's
    offsets in words, 19-31 the CFA's in units of 4 bytes; "interpret" for an
    offset those fields cannot hold."""
    cfa_offset, ra_offset, s0_offset, kind = rule
    if kind == KIND_NO_CFI:
        return 0
    if kind == KIND_INTERPRET:
        return 3
    fields = [(cfa_offset, 4, 13, 19), (ra_offset, 8, 7, 5), (s0_offset, 8, 7, 12)]
    word = (2 if kind & 1 else 1) | {0: 1, 4: 0, 8: 2}[kind & 12] << 2 | (0 if kind & 2 else 16)
    for value, unit, bits, shift in fields:
        if value % unit or not -(1 << (bits - 1)) <= value // unit < 1 << (bits - 1):
            return 3
        word |= (value // unit & ((1 << bits) - 1)) << shift
    return word


def unwind_rows(elf, addresses):
    """(base, [(pc offset, fuzz input rule word)]) of the image's unwind table
    (struct tracer_unwind_table, rv64), or (0, []) if it has none."""
    if "tracer_unwind_table" not in addresses:
        return 0, []
    start = addresses["__tracer_symtab_start"]
    data = section(elf, ".tracer_symtab")

    def at(address, size):
        return data[address - start:address - start + size]

    count, blocks, rule_count = struct.unpack("<III", at(addresses["tracer_unwind_table"] + 8, 12))
    base, rows, maps, lookup, rules = struct.unpack(
        "<QQQQQ", at(addresses["tracer_unwind_table"] + 24, 40))
    if count == 0:
        return base, []
    rows = struct.unpack("<%dH" % count, at(rows, 2 * count))
    maps = struct.unpack("<%dQ" % blocks, at(maps, 8 * blocks))
    rules = [struct.unpack("<hhhH", at(rules + RULE_SIZE * i, RULE_SIZE))
             for i in range(rule_count)]
    pcs = [(block << BLOCK_SHIFT) + 2 * bit
           for block in range(blocks) for bit in range(64) if maps[block] >> bit & 1]
    return base, [(pc, input_rule(rules[row // RULE_SIZE])) for pc, row in zip(pcs, rows)]


def fde_list(elf):
    """[(offset of the FDE in .eh_frame, pc_start)] from readelf."""
    out = run([CROSS + "readelf", "--debug-dump=frames", elf]).stdout
    return [(int(m.group(1), 16), int(m.group(2), 16))
            for m in re.finditer(r"^([0-9a-f]+) [0-9a-f]+ [0-9a-f]+ FDE cie=\w+ pc=([0-9a-f]+)\.\.",
                                 out, re.M)]


class Image:
    """The kernel's regions, and words encoded as fuzz_walk.c decodes them."""

    def __init__(self, elf):
        names = symbols(elf)
        addresses = {}
        for line in run([CROSS + "nm", elf]).stdout.splitlines():
            fields = line.split()
            if len(fields) == 3:
                addresses[fields[2]] = int(fields[0], 16)
        self.text_start, self.text_end = addresses["__text_start"], addresses["__text_end"]
        self.eh_frame_start = addresses["__eh_frame_start"]
        self.trap_entry = (addresses["trap_entry"], addresses["trap_entry_end"])
        self.text = section(elf, ".text")[:self.text_end - self.text_start]
        self.eh_frame = section(elf, ".eh_frame")
        self.functions = sorted((a, s, n) for n, (a, s) in names.items()
                                if self.text_start <= a < self.text_end)
        self.fdes = fde_list(elf)
        self.unwind_base, self.unwind_rows = unwind_rows(elf, addresses)
        self.stacks = []

    def encode(self, value):
        """The u32 whose decoding is value (or a stand-in for it). With
        several stacks, bits 26-28 of a stack offset say which one."""
        if len(self.stacks) == 1:
            stacks = [(1 << 29, 1 << 29) + self.stacks[0]]
        else:
            stacks = [(1 << 29 | k << 26, 1 << 26) + stack for k, stack in enumerate(self.stacks)]
        regions = ([(0, 1 << 29, self.text_start, self.text_end)] + stacks +
                   [(3 << 29, 1 << 29, self.eh_frame_start,
                     self.eh_frame_start + len(self.eh_frame))])
        for prefix, limit, start, end in regions:
            if start <= value <= end and value - start < limit:
                return prefix | (value - start)
        if value < 1 << 29:
            return 2 << 29 | value
        if value >= (1 << 64) - (1 << 29):
            return 7 << 29 | ((1 << 64) - 1 - value)
        return 2 << 29 | (value & 0x1fffffff)


def u16(value):
    return struct.pack("<H", value)


def u32(value):
    return struct.pack("<I", value)


def trap_layout(image):
    """The demo kernel's trap frame (kernel/layout.h): x1..x31 at 8 * i,
    then sepc, sstatus, scause, stval."""
    start, end = image.trap_entry
    s_registers = [8, 9] + list(range(18, 28))
    offsets = [32 * 8, 1 * 8, 2 * 8] + [8 * r for r in s_registers] + [34 * 8, 35 * 8]
    return (u16(start - image.text_start) + u16(end - start) +
            b"".join(u16(o) for o in offsets))


def trimmed(regs, stack_start, stack):
    """(start, bytes) of the stack from STACK_BELOW_SP words below sp."""
    keep_from = max(0, (regs[2] - stack_start) // 8 - STACK_BELOW_SP) // 2 * 2
    return stack_start + 8 * keep_from, stack[8 * keep_from:]


def interrupt_stacks(regs, stack_start, stack, trap_entry):
    """The stack as two, [task, interrupt]: the handler's frames and the
    trap frame on the interrupt stack, the interrupted code's frames on the
    task stack, which starts 16 bytes below the interrupted sp."""
    words = struct.unpack("<%dQ" % (len(stack) // 8), stack)

    def saved_sp(i):
        return words[i + 3] if i + 3 < len(words) else None

    # The handler's saved ra, at its CFA - 8, returns into the trap entry;
    # its CFA is the trap frame, whose x2 is the sp it was pushed below.
    trap_frame = next((stack_start + 8 * i + 8 for i, w in enumerate(words)
                       if stack_start + 8 * i >= regs[2] and trap_entry[0] <= w <= trap_entry[1]
                       and saved_sp(i) == stack_start + 8 * i + 8 + TRAP_FRAME_BYTES), None)
    if trap_frame is None:
        sys.exit("make_seeds: no trap frame on the stack")
    interrupted_sp = trap_frame + TRAP_FRAME_BYTES
    task_from = interrupted_sp - 16 - stack_start
    return [(stack_start + task_from, stack[task_from:]),
            trimmed(regs, stack_start, stack[:interrupted_sp - stack_start])]


def unwind_part(image):
    """The unwind table as fuzz_walk.c reads it: rows, damage 0, base, then
    each row's step (2 * (1 + n) bytes) and rule."""
    rows, previous = b"", 0
    for pc, rule in image.unwind_rows:
        rows += u16(max(pc - previous, 2) // 2 - 1) + u32(rule)
        previous = pc
    return (u16(len(image.unwind_rows)) + b"\0" + u16(image.unwind_base - image.text_start) +
            rows)


def walk_seed(image, regs, stacks, flags, max_depth, symtab_damage=0):
    """stacks: [(start, bytes)], config.stacks in order: the first one's
    size is in the header, the others follow the names."""
    image.stacks = [(start, start + len(data)) for start, data in stacks]
    stack_words = [struct.unpack("<%dQ" % (len(data) // 8), data) for _, data in stacks]
    flags |= (len(stacks) - 1) << FLAG_STACKS_SHIFT
    names = b""
    symbol_bytes = b""
    for address, size, name in image.functions:
        symbol_bytes += u32(image.encode(address)) + u32(size) + u32(len(names))
        names += name.encode() + b"\0"
    entries = b"".join(u32(image.encode(pc)) + u32(image.encode(image.eh_frame_start + offset))
                       for offset, pc in image.fdes)
    header = (bytes([flags, max_depth, 40, symtab_damage, 0]) + u16(len(stack_words[0])) +
              u16(len(image.text)) + u16(len(image.eh_frame)) + u16(len(image.fdes)) +
              u16(len(image.functions)) + u16(len(names)) +
              u32(image.eh_frame_start - image.text_start))
    return (header + b"".join(u32(image.encode(r)) for r in regs) + trap_layout(image) +
            b"".join(u32(image.encode(w)) for w in stack_words[0]) + image.text +
            image.eh_frame + entries + symbol_bytes + names +
            b"".join(u16(len(words)) + b"".join(u32(image.encode(w)) for w in words)
                     for words in stack_words[1:]) + unwind_part(image))


# The kit part (fuzz_walk.c's KIT_*): sepc, scause, stval not saved, sp not
# saved, the CSRs given, sstatus saved.
KIT_EPC, KIT_CAUSE, KIT_TVAL, KIT_SP, KIT_CSRS, KIT_STATUS = 1, 2, 4, 8, 16, 32
TF_SSTATUS, TF_SCAUSE = 33 * 8, 34 * 8


def kit_seeds(seed):
    """{name: seed} from a walk seed of one stack that holds a trap frame
    (the load fault), with a kit part appended: the layout without sepc,
    scause, stval and sp, the CSRs given (the trap frame's own words);
    an entry point at the interrupted function's caller; sstatus read from
    a word whose SPP bit is clear (scause's), as from user mode."""
    stack_words = struct.unpack_from("<H", seed, 5)[0]
    trap_at = 21 + 15 * 4  # after the header and the registers
    entry_start, entry_length = struct.unpack_from("<HH", seed, trap_at)
    stack_at = trap_at + 4 + 17 * 2
    words = struct.unpack_from("<%dI" % stack_words, seed, stack_at)
    # The handler's saved ra returns into the trap entry (a text offset,
    # prefix 0); the trap frame starts just above it.
    frame = next(i + 1 for i, w in enumerate(words)
                 if w >> 29 == 0 and entry_start < w <= entry_start + entry_length)
    csrs = u32(words[frame + 32]) + u32(words[frame + 34]) + u32(words[frame + 35])
    caller = words[frame + 1]  # the interrupted code's ra: a text offset

    def kit(flags, status_offset, entries):
        return (seed + bytes([flags]) + u16(TRAP_FRAME_BYTES) + u16(status_offset) + csrs +
                bytes([len(entries)]) + b"".join(u16(start) + bytes([length])
                                                 for start, length in entries))

    not_saved = KIT_EPC | KIT_CAUSE | KIT_TVAL | KIT_SP
    return {"load-fault-csrs-not-saved": kit(not_saved | KIT_CSRS | KIT_STATUS, TF_SSTATUS, []),
            "load-fault-entry-point": kit(KIT_STATUS, TF_SSTATUS, [(0, 0), (caller - 4, 8)]),
            "load-fault-from-user": kit(KIT_STATUS, TF_SCAUSE, [])}


# The damage part (fuzz_walk.c): flags (1: each row states the frame size
# the undamaged walk found), kind (1 a byte of .eh_frame, 2 a byte of text,
# 3 a stack word), position, value. It follows the kit part, here one of
# zeros (the config unchanged) with no entry points.
DAMAGE_SIZES_MEASURED = 1
OUTSIDE_EH_FRAME, OUTSIDE_CODE, OUTSIDE_STACK = 1, 2, 3
EMPTY_KIT = bytes(18)


def damage_seeds(seed):
    """{name: seed} from a walk seed of one stack, built with frame
    pointers, without a kit part (the panic), with the frame sizes measured
    and one change outside the checked tables: the saved s0 in frame 1's
    record (frame 2's fp) set to frame 3's, a real outer record (issue 17's
    attack 3: believed, it skips frame 2 and still reaches the top); 16
    added to a byte of the CFI of frame 1's FDE (attack 1); the call before
    frame 1's return address zeroed."""
    stack_words, text_size, eh_frame_size, fde_count = struct.unpack_from("<4H", seed, 5)
    regs_at = 21
    stack_at = regs_at + 15 * 4 + 4 + 17 * 2
    eh_frame_at = stack_at + 4 * stack_words + text_size
    words = struct.unpack_from("<%dI" % stack_words, seed, stack_at)
    entries = struct.unpack_from("<%dI" % (2 * fde_count), seed, eh_frame_at + eh_frame_size)

    def record(fp):
        """(index of the saved s0, the saved s0, the return address) of the
        frame record below frame pointer fp (an encoded stack offset)."""
        index = ((fp & 0x1fffffff) - 16) // 8
        return index, words[index], words[index + 1]

    fp0 = struct.unpack_from("<I", seed, regs_at + 3 * 4)[0]
    _, fp1, ra1 = record(fp0)
    slot, fp2, _ = record(fp1)
    _, fp3, _ = record(fp2)
    # The FDE covering frame 1's call (text offsets: prefix 0), its first
    # call-frame instruction 17 bytes in (length, CIE pointer, pc_begin,
    # pc_range, augmentation length).
    fde = max((pc, fde & 0x1fffffff) for pc, fde in zip(entries[::2], entries[1::2])
              if pc < ra1)[1]
    cfi_byte = seed[eh_frame_at + fde + 17]

    def damaged(flags, kind, position, value):
        return seed + EMPTY_KIT + bytes([flags, kind]) + u32(position) + u32(value)

    return {"panic-forged-saved-s0":
            damaged(DAMAGE_SIZES_MEASURED, OUTSIDE_STACK, slot, fp3),
            "panic-eh-frame-cfi-byte":
            damaged(DAMAGE_SIZES_MEASURED, OUTSIDE_EH_FRAME, fde + 17, (cfi_byte + 16) & 0xff),
            "panic-call-zeroed":
            damaged(DAMAGE_SIZES_MEASURED, OUTSIDE_CODE, (ra1 & 0x1fffffff) - 4, 0)}


def cfi_seed(image, regs, stack_start, stack, encoding, pointer_offset):
    """fuzz_cfi.c's format: registers and stack words as stack offsets."""
    words = struct.unpack("<%dQ" % (len(stack) // 8), stack)[-256:]
    base = stack_start + len(stack) - 8 * len(words)

    def offset(value):
        return value - base if base <= value <= base + 8 * len(words) else 0

    header = bytes([encoding]) + u16(pointer_offset) + u16(0) + u32(0x1234) + u16(len(words))
    reg_offsets = [0, 0] + [offset(r) for r in regs[2:]]
    return (header + b"".join(u32(o) for o in reg_offsets) +
            b"".join(u32(offset(w)) for w in words) + image.eh_frame)


CFI_STACK_WORDS = 64
CIE_ENCODING_RE = re.compile(r'^\s+Augmentation:\s+"(\w*)"\n(?:.*\n)*?\s+Augmentation data:\s+(.*)$',
                             re.M)


def image_cfi_seed(elf):
    """fuzz_cfi's format without a boot: elf's .eh_frame (any word size),
    the pointer its first FDE's pc_begin in its CIE's encoding, and a
    made-up stack of CFI_STACK_WORDS words of the image's size, each
    pointing at the next (sp at the lowest, s0-s11 a few words apart)."""
    eh_frame = section(elf, ".eh_frame")
    fdes = fde_list(elf)
    raw = run([CROSS + "readelf", "--debug-dump=frames", elf]).stdout
    cie = CIE_ENCODING_RE.search(raw[raw.index(".eh_frame"):])
    # Without an R augmentation, FDE pointers are absptr (0).
    encoding = int(cie.group(2).split()[-1], 16) if cie and "R" in cie.group(1) else 0
    word = 4 if "ELF32" in run([CROSS + "readelf", "-h", elf]).stdout else 8
    header = (bytes([encoding]) + u16(fdes[0][0] + 8) + u16(0) + u32(0x1234)
              + u16(CFI_STACK_WORDS))
    reg_offsets = [0, 0, 0] + [4 * word * k for k in range(12)]
    return (header + b"".join(u32(o) for o in reg_offsets)
            + b"".join(u32((i + 1) * word) for i in range(CFI_STACK_WORDS)) + eh_frame)


def cfi_seeds(elves):
    """fuzz_cfi's seeds of images without a boot (rv32 ones, for
    fuzz_cfi_rv32 too), named by the kernel's build directory or the
    file."""
    for elf in elves:
        name = os.path.basename(elf)
        label = (os.path.basename(os.path.dirname(os.path.abspath(elf)))
                 if name == "kernel.elf" else os.path.splitext(name)[0])
        write("fuzz_cfi", label, image_cfi_seed(elf))


LINES_TARGET = "fuzz_lines"
LINE_LOOKUP = os.path.join(ROOT, "build", "host", "line_lookup")
TRACER_LINES_MAGIC, TRACER_LINES_VERSION = 0x4E494C54, 3  # tracer/line_format.h
LINES_PAGE_SHIFT = 9
LINES_PC_CHOICES = 16
C_ARRAY_RE = re.compile(r"const \w+ bench_(\w+)\[\d+\] = \{([^}]*)\};")
C_FIELD_RE = re.compile(r"\.(\w+) = (0x[0-9a-f]+|\d+)u")
LINES_HEADER = [("magic", "I"), ("version", "I"), ("block_bytes", "H"), ("literal_bytes", "B"),
                ("file_bits", "B"), ("call_bits", "B"), ("group_shift", "B"),
                ("record_bytes", "B"), ("name_bits", "B"), ("call_line_bits", "B"),
                ("row_count", "I"), ("block_count", "I"), ("page_count", "I"),
                ("stream_size", "I"), ("file_count", "I"), ("call_count", "I"),
                ("name_count", "I"), ("base", "Q")]


def lines_input(fields, arrays):
    """fuzz_lines.c's format: the header, pcs spread over the table's
    pages, then the arrays."""
    header = struct.pack("<" + "".join(kind for _, kind in LINES_HEADER),
                         *(fields.get(name, 0) for name, _ in LINES_HEADER))
    span = (fields.get("page_count", 0) + 2) << LINES_PAGE_SHIFT
    pcs = b"".join(u32(i * span // LINES_PC_CHOICES + 2 * i + 1)
                   for i in range(LINES_PC_CHOICES))
    records = fields.get("call_count", 0) * fields.get("record_bytes", 0)
    groups = (fields.get("page_count", 0) >> fields.get("group_shift", 0)) + 1
    return (header + pcs + bytes(arrays.get("records", [])[:records])
            + b"".join(u16(entry) for entry in arrays.get("group_block", [])[:groups])
            + bytes(arrays.get("page_block", [])[:fields.get("page_count", 0) + 1])
            + bytes(arrays.get("stream", [])[:fields.get("stream_size", 0)]))


def lines_seed(elf, lines_alone):
    """The table line_lookup encodes for elf (with --lines-alone, without
    the inlined calls), as fuzz_lines input."""
    with tempfile.TemporaryDirectory() as work:
        source = os.path.join(work, "table.c")
        result = run([LINE_LOOKUP] + (["--lines-alone"] if lines_alone else [])
                     + ["--emit-c", source, elf], input="", timeout=300)
        if result.returncode != 0:
            sys.exit("make_seeds: line_lookup failed:\n" + result.stdout[-2000:]
                     + result.stderr[-2000:])
        text = open(source).read()
    arrays = {name: [int(value.rstrip("u"), 0) for value in values.split(",") if value.strip()]
              for name, values in C_ARRAY_RE.findall(text)}
    fields = {name: int(value, 0) for name, value in C_FIELD_RE.findall(text)}
    return lines_input(fields, arrays)


def lines_seeds(elves):
    """fuzz_lines' seeds: each kernel's table with and without its inlined
    calls, named by the kernel's build directory, and an empty table."""
    write(LINES_TARGET, "empty", lines_input(
        {"magic": TRACER_LINES_MAGIC, "version": TRACER_LINES_VERSION, "block_bytes": 28,
         "literal_bytes": 4, "file_bits": 1}, {}))
    for elf in elves:
        label = os.path.basename(os.path.dirname(os.path.abspath(elf)))
        write(LINES_TARGET, label, lines_seed(elf, False))
        write(LINES_TARGET, label + "-lines-alone", lines_seed(elf, True))


def write(target, name, data):
    directory = os.path.join(CORPUS, target)
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data)


def main():
    if sys.argv[1:2] == ["--lines"]:
        lines_seeds(sys.argv[2:])
        return
    if sys.argv[1:2] == ["--cfi"]:
        cfi_seeds(sys.argv[2:])
        return
    elf = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "fuzzseed", "kernel.elf")
    image = Image(elf)
    everything = FLAG_TRAP | FLAG_SYMTAB | FLAG_FDE_INDEX
    panic = snapshot(elf, "scenario=panic")
    fault = snapshot(elf, "scenario=load-fault")
    recursion = snapshot(elf, "scenario=recursion")
    for target in WALK_TARGETS:
        write(target, "panic", walk_seed(image, panic[0], [trimmed(*panic)], everything, 0))
        for name, seed in damage_seeds(walk_seed(image, panic[0], [trimmed(*panic)],
                                                 everything, 0)).items():
            write(target, name, seed)
        write(target, "load-fault", walk_seed(image, fault[0], [trimmed(*fault)], everything, 0))
        for name, seed in kit_seeds(walk_seed(image, fault[0], [trimmed(*fault)], everything,
                                              0)).items():
            write(target, name, seed)
        write(target, "load-fault-interrupt-stack",
              walk_seed(image, fault[0], interrupt_stacks(*fault, image.trap_entry),
                        everything, 0))
        # A depth limit, and a symbol table damaged after its checksum.
        write(target, "recursion-damaged-symtab",
              walk_seed(image, recursion[0], [trimmed(*recursion)],
                        everything | FLAG_SYMTAB_DAMAGED, 8, 7))
    # The kernel's FDEs use pc-relative sdata4 (0x1b) pointers.
    write("fuzz_cfi", "panic", cfi_seed(image, *panic, 0x1b, image.fdes[0][0] + 8))
    write("fuzz_cfi", "load-fault", cfi_seed(image, *fault, 0x03, 0))


if __name__ == "__main__":
    main()

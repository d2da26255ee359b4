# trap_frames.py - lets GDB's `bt` cross the demo kernel's trap frames into
# the interrupted code, as the tracer does. Load it into gdb-multiarch with
# -x (make gdb does; make debug prints the command):
#
#     gdb-multiarch -ex 'file build/kernel.elf' -x scripts/gdb/trap_frames.py \
#         -ex 'target remote :1234'
#
# Without it, GDB's backtrace stops in the trap vector ("frame did not save
# the PC"): kernel/trap_entry.S has no call-frame information, and what it
# saves is a trap frame, not a call's frame. The script gives GDB that
# information, for every pc in [trap_entry, trap_entry_end):
#   - from the return from trap_handler to the sret: the trap frame at sp
#     holds every interrupted register, pc (sepc) included -- the contract
#     the kernel declares to the tracer (panic_describe_kernel());
#   - at the first instruction, and at the sret: every register still (or
#     again) holds its interrupted value, and sepc the interrupted pc;
#   - in between, while the entry picks a stack and saves: unknown, so bt
#     ends at the entry rather than show what is not there.
# In bt the entry's frame reads "trap_entry (scause=.., sepc=.., stval=..)",
# the CSRs from its trap frame, where GDB would print "<signal handler
# called>".
#
# Why call-frame information, and not a Python unwinder: GDB makes every
# Python unwinder's frame a normal frame, and stops a backtrace where a
# normal frame's caller lies below it on the stack ("previous frame inner to
# this frame"): an interrupt moves to the interrupt stack, above the task
# stack, so such a backtrace stops at the first interrupt. The information
# marks the entry as a signal frame (augmentation "S"): GDB then allows the
# switch of stacks, and finds the interrupted function and its row at sepc
# itself, not at sepc - 1 as for a return address.
#
# Nothing of the layout is written here: the entry's range is the kernel's
# symbols trap_entry and trap_entry_end (those it gives the tracer), the
# points inside it come from its instructions, and the frame is the
# kernel's struct trap_frame (kernel/trap.c) in the debugging information:
# regs[i] holds xi, sepc the interrupted pc. A port with other names
# changes the names below. The information reaches GDB as the .debug_frame
# of a small ELF file written beside the kernel (KERNEL.trap_frames), which
# the script adds to GDB's symbols; the kernel itself is not changed.
import os
import struct
import tempfile

import gdb
from gdb.FrameDecorator import FrameDecorator, SymValueWrapper

ENTRY_SYMBOL = "trap_entry"
ENTRY_END_SYMBOL = "trap_entry_end"
FRAME_TYPE = "struct trap_frame"
REGS_FIELD, EPC_FIELD = "regs", "sepc"
TRAP_CSRS = ["scause", "sepc", "stval"]  # fields bt shows of each trap frame

# DWARF 5, section 6.4 (call frame instructions) and 7.24, and the RISC-V
# ELF psABI's DWARF register numbers: x0-x31 are 0-31, CSR n is 4096 + n.
DW_CFA_ADVANCE_LOC = 0x40  # | delta
DW_CFA_ADVANCE_LOC2 = 0x03
DW_CFA_ADVANCE_LOC4 = 0x04
DW_CFA_OFFSET = 0x80  # | register, ULEB128 offset
DW_CFA_RESTORE = 0xC0  # | register
DW_CFA_OFFSET_EXTENDED = 0x05
DW_CFA_RESTORE_EXTENDED = 0x06
DW_CFA_UNDEFINED = 0x07
DW_CFA_SAME_VALUE = 0x08
DW_CFA_DEF_CFA = 0x0C
DW_CFA_NOP = 0x00
DWARF_SP = 2
DWARF_SEPC = 4096 + 0x141
EM_RISCV = 243


def uleb128(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def field_offset(frame_type, name):
    return next(field.bitpos // 8 for field in frame_type.fields() if field.name == name)


def advance(delta):
    if delta < 0x40:
        return bytes([DW_CFA_ADVANCE_LOC | delta])
    if delta < 0x10000:
        return bytes([DW_CFA_ADVANCE_LOC2]) + struct.pack("<H", delta)
    return bytes([DW_CFA_ADVANCE_LOC4]) + struct.pack("<I", delta)


def debug_frame(entry, frame_type, word):
    """A .debug_frame section: one CIE (version 3, augmentation "S": a
    signal frame; the return address column is sepc) and one FDE over the
    entry, whose rows follow what the entry has done at each pc:
      - its first instruction, and from its sret on: every register holds
        the interrupted value, and the interrupted pc is in sepc;
      - from the return from the handler: the trap frame at sp holds them;
      - in between, while it picks a stack and saves: unknown (bt ends)."""
    regs = field_offset(frame_type, REGS_FIELD)
    epc = field_offset(frame_type, EPC_FIELD)
    sepc = uleb128(DWARF_SEPC)
    # CFA = sp (the trap frame once it is built); pc = sepc.
    initial = (bytes([DW_CFA_DEF_CFA]) + uleb128(DWARF_SP) + uleb128(0)
               + bytes([DW_CFA_SAME_VALUE]) + sepc)
    # version, augmentation, code and data alignment factors, return column
    cie = (struct.pack("<IB", 0xFFFFFFFF, 3) + b"S\0" + uleb128(1) + uleb128(1) + sepc
           + initial)
    cie += bytes([DW_CFA_NOP]) * (-(len(cie) + 4) % word)
    saving = advance(entry.saving - entry.start) + bytes([DW_CFA_UNDEFINED]) + sepc
    saved = advance(entry.handler_return - entry.saving)
    for number in range(1, 32):  # x0 is zero: not saved
        saved += bytes([DW_CFA_OFFSET | number]) + uleb128(regs + number * word)
    saved += bytes([DW_CFA_OFFSET_EXTENDED]) + sepc + uleb128(epc)
    restored = advance(entry.sret - entry.handler_return)
    restored += bytes(DW_CFA_RESTORE | number for number in range(1, 32))
    restored += bytes([DW_CFA_RESTORE_EXTENDED]) + sepc
    address = "<Q" if word == 8 else "<I"
    fde = (struct.pack("<I", 0) + struct.pack(address, entry.start)
           + struct.pack(address, entry.end - entry.start) + saving + saved + restored)
    fde += bytes([DW_CFA_NOP]) * (-(len(fde) + 4) % word)
    return struct.pack("<I", len(cie)) + cie + struct.pack("<I", len(fde)) + fde


class TrapEntry:
    """The trap entry's code: where it starts and ends (the kernel's
    symbols), and, from its instructions, where its second one starts, where
    the call of the handler returns (its only call that links ra), and its
    sret. Raises ValueError if the code does not have them."""

    def __init__(self):
        self.start = int(gdb.parse_and_eval("(unsigned long)&" + ENTRY_SYMBOL))
        self.end = int(gdb.parse_and_eval("(unsigned long)&" + ENTRY_END_SYMBOL))
        code = gdb.selected_inferior().architecture().disassemble(self.start, self.end - 1)
        self.saving = self.start + code[0]["length"]
        returns = [i["addr"] + i["length"] for i in code if links_ra(i["asm"])]
        srets = [i["addr"] for i in code if i["asm"].split()[0] == "sret"]
        if len(returns) != 1 or len(srets) != 1 or not self.saving < returns[0] < srets[0]:
            raise ValueError("%s: not one call, then one sret, after its first instruction"
                             % ENTRY_SYMBOL)
        self.handler_return, self.sret = returns[0], srets[0]


def links_ra(assembly):
    """Whether an instruction, as GDB disassembles it, is a call that puts
    its return address in ra: jal or jalr without another link register
    (GDB prints "jal t3,..." for one), or call."""
    mnemonic, _, operands = assembly.partition("\t")
    if mnemonic == "call":
        return True
    if mnemonic == "jal":
        return "," not in operands
    if mnemonic == "jalr":
        return "," not in operands or operands.startswith("ra,")
    return False


def elf_file(word, sections):
    """A little-endian RISC-V ELF executable with only these sections
    [(name, type, address, bytes)] after an empty .text (GDB relocates an
    objfile's frame information by its .text), and their names."""
    sections = [(".text", 1, 0, b"")] + sections  # SHT_PROGBITS
    names = b"\0" + b"".join(name.encode() + b"\0" for name, _, _, _ in sections) + b".shstrtab\0"
    elf64 = word == 8
    header_size, section_header_size = (64, 64) if elf64 else (52, 40)
    body, offsets = b"", []
    for _, _, _, data in sections + [(None, None, None, names)]:
        offsets.append(header_size + len(body))
        body += data + b"\0" * (-len(data) % 8)
    table_offset = header_size + len(body)
    ident = b"\x7fELF" + bytes([2 if elf64 else 1, 1, 1]) + b"\0" * 9
    fields = (2, EM_RISCV, 1, 0, 0, table_offset, 0, header_size, 0, 0, section_header_size,
              len(sections) + 2, len(sections) + 1)  # ET_EXEC; section names last
    header = ident + struct.pack("<HHIQQQIHHHHHH" if elf64 else "<HHIIIIIHHHHHH", *fields)
    table = b"\0" * section_header_size  # the null section
    name_offset = 1
    for (name, kind, address, data), offset in zip(sections + [(".shstrtab", 3, 0, names)],
                                                   offsets):
        flags = 6 if name == ".text" else 0  # SHF_ALLOC | SHF_EXECINSTR
        row = (name_offset, kind, flags, address, offset, len(data), 0, 0, 1, 0)
        table += struct.pack("<IIQQQQIIQQ" if elf64 else "<IIIIIIIIII", *row)
        name_offset += len(name) + 1
    return header + body + table


class TrapEntryFrame(FrameDecorator):
    """The entry's frame as bt prints it, where GDB would print "<signal
    handler called>": named, placed (a return address at pc - 1, as the
    tracer places it), and, while the trap frame is at sp, with the trap's
    CSRs from it."""

    def __init__(self, base, entry, frame_pointer_type):
        super().__init__(base)
        self.entry = entry
        self.frame_pointer_type = frame_pointer_type

    def function(self):
        return ENTRY_SYMBOL

    def place(self):
        frame = self.inferior_frame()
        return gdb.find_pc_line(frame.pc() - (frame.level() > 0))

    def filename(self):
        sal = self.place()
        return sal.symtab.filename if sal.symtab else None

    def line(self):
        return self.place().line or None

    def frame_args(self):
        frame = self.inferior_frame()
        if not self.entry.handler_return <= frame.pc() < self.entry.sret:
            return None
        trap = frame.read_register("sp").cast(self.frame_pointer_type).dereference()
        as_address = gdb.lookup_type("void").pointer()  # printed in hex
        return [SymValueWrapper(name, trap[name].cast(as_address)) for name in TRAP_CSRS]


class TrapEntryFrames:
    """The frame filter that puts TrapEntryFrame on the entry's frames."""

    def __init__(self):
        self.name = "trap_frames"
        self.priority = 100
        self.enabled = True
        self.entry = None
        self.frame_pointer_type = None
        gdb.frame_filters[self.name] = self

    def filter(self, frames):
        return map(self.decorate, frames)

    def decorate(self, decorator):
        frame = decorator.inferior_frame()
        if (self.entry and frame.type() == gdb.SIGTRAMP_FRAME
                and self.entry.start <= frame.pc() < self.entry.end):
            return TrapEntryFrame(decorator, self.entry, self.frame_pointer_type)
        return decorator


def add_trap_frames():
    """Gives GDB the trap vector's call-frame information, if the program
    has the kernel's names; says why not otherwise."""
    try:
        entry = TrapEntry()
        frame_type = gdb.lookup_type(FRAME_TYPE)
        word = frame_type[EPC_FIELD].type.sizeof
    except (gdb.error, KeyError, ValueError) as error:
        print("trap_frames.py: no trap frames to describe (%s)" % error)
        return
    # Beside the kernel; written whole, then renamed: another GDB on the
    # same kernel may be reading the last one.
    path = gdb.current_progspace().filename + ".trap_frames"
    with tempfile.NamedTemporaryFile(dir=os.path.dirname(path), delete=False) as out:
        out.write(elf_file(word, [(".debug_frame", 1, 0, debug_frame(entry, frame_type, word))]))
    os.replace(out.name, path)
    try:  # the one a reload of the kernel left, if any
        gdb.execute("remove-symbol-file " + path, to_string=True)
    except gdb.error:
        pass
    gdb.execute("add-symbol-file %s -o 0" % path, to_string=True)
    trap_entry_frames.entry = entry
    trap_entry_frames.frame_pointer_type = frame_type.pointer()
    print("trap_frames.py: bt crosses trap frames at %s" % ENTRY_SYMBOL)


def program_loaded(event):
    """Loading the kernel (after this script, or again) describes it anew."""
    if event.new_objfile.filename == gdb.current_progspace().filename:
        add_trap_frames()


trap_entry_frames = TrapEntryFrames()
gdb.events.new_objfile.connect(program_loaded)
if gdb.current_progspace().filename:
    add_trap_frames()

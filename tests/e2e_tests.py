"""End to end: build the demo kernel, boot every scenario in QEMU with GDB
attached to its gdbstub, and compare the tracer's printed frames with GDB's
backtrace at the same point.

What is compared, per scenario:
  * panic side: GDB's `bt` at the entry of panic() against the frames the
    tracer printed before any trap separator. Frame 0 is panic() in both,
    but at different pcs (GDB stops at its first instruction, the tracer
    captured its registers a few instructions later), so frame 0 compares
    names only; every other frame compares return address and function.
    GDB ends this side at the trap entry ("frame did not save the PC"), as
    the tracer's first part does.
  * trap side (traps only): GDB's `bt` with the faulting instruction as pc,
    against the frames after the separator; and sepc/scause/stval read by
    GDB against the separator line.
  * the fault report after the separator (tracer_format_fault): its
    registers against GDB's at the trap, its Code: parcels, as
    scripts/decodecode reads them, against the image's bytes (objdump -s).
Function names compare after removing GCC's clone suffixes (.constprop.0,
.isra.0, .part.0): the ELF symbol has them, GDB prints the source name.
GDB's inline frames are skipped by gdb_oracle.py (the tracer sees machine
frames only).
"""
import atexit
import functools
import itertools
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import threading
import time

import decode_stacktrace_model
import frame_lines
from testlib import (CROSS, GDB, ROOT, SHARED_OBJECTS, TEST_BUILD, Popen, Results, in_parallel,
                     job_slot, profile, run)

# (label, make variables, tracers to check: the tracer= names, which the
# trace's header prints too). The frame-pointer unwinder
# needs frame pointers and the DWARF and table ones need CFI; the prologue unwinder and
# auto (the default) must work everywhere, including images built without
# unwind tables whose linker script discards .eh_frame (-nocfi).
ALL_TRACERS = ["frame-pointer", "dwarf", "prologue", "auto", "table"]
NO_FP_TRACERS = ["dwarf", "prologue", "auto", "table"]
NO_CFI_TRACERS = ["prologue", "auto"]
# The seed's names, which the kernel accepts too.
TRACER_ALIASES = {"fp": "frame-pointer", "compiler": "prologue"}
NO_CFI = ["FP=0", "CFI=0", "LDSCRIPT=tests/fixtures/no_eh_frame.ld"]
CONFIGS = [
    ("gcc-O0-fp1", ["OPT=-O0", "FP=1"], ALL_TRACERS),
    ("gcc-O2-fp1", ["OPT=-O2", "FP=1"], ALL_TRACERS),
    ("gcc-Os-fp1", ["OPT=-Os", "FP=1"], ALL_TRACERS),
    ("clang-O2-fp1", ["CC=clang", "OPT=-O2", "FP=1"], ALL_TRACERS),
    ("gcc-O0-fp0", ["OPT=-O0", "FP=0"], NO_FP_TRACERS),
    ("gcc-O2-fp0", ["OPT=-O2", "FP=0"], NO_FP_TRACERS),
    ("gcc-Os-fp0", ["OPT=-Os", "FP=0"], NO_FP_TRACERS),
    ("clang-O2-fp0", ["CC=clang", "OPT=-O2", "FP=0"], NO_FP_TRACERS),
    ("gcc-O0-nocfi", ["OPT=-O0"] + NO_CFI, NO_CFI_TRACERS),
    ("gcc-O2-nocfi", ["OPT=-O2"] + NO_CFI, NO_CFI_TRACERS),
    ("gcc-Os-nocfi", ["OPT=-Os"] + NO_CFI, NO_CFI_TRACERS),
    ("clang-O2-nocfi", ["CC=clang", "OPT=-O2"] + NO_CFI, NO_CFI_TRACERS),
]
# Kernels that link some unwinders only (make UNWINDERS=...): (label, make
# variables, tracers to check, unwinders not linked), each GDB-checked on a
# few scenarios (UNWINDER_SET_SCENARIOS). The frame-pointer kernel builds
# without CFI (the default when neither DWARF nor the table is linked).
UNWINDER_SETS = [
    ("gcc-O2-fp1-frame-pointer-only", ["OPT=-O2", "FP=1", "UNWINDERS=frame-pointer"],
     ["frame-pointer"], ["dwarf", "prologue", "table"]),
    ("gcc-O2-fp0-table-only", ["OPT=-O2", "FP=0", "UNWINDERS=table"],
     ["table", "auto"], ["frame-pointer", "dwarf", "prologue"]),
]
UNWINDER_SET_SCENARIOS = [("panic", "panic"), ("load-fault", "trap")]
# The smallest kernels (issue 18's sets: docs/speed.md), without the line
# table and the raw capture, so without scenario=call: and the code of ours
# it reaches (no EXTRA_SRCS): the frame pointer and the table (10 KB), and
# the frame pointer printing raw frames (4 KB, SYMBOLS=no), which the test
# names as a host does (readelf). (label, make variables, tracers to
# check), GDB-checked on the same scenarios.
SMALLEST_BUILDS = [
    ("gcc-O2-fp1-smallest", ["OPT=-O2", "FP=1", "UNWINDERS=frame-pointer table", "LINES=no",
                             "CAPTURE=no"], ["frame-pointer", "table", "auto"]),
    ("gcc-O2-fp1-raw", ["OPT=-O2", "FP=1", "UNWINDERS=frame-pointer", "LINES=no", "CAPTURE=no",
                        "SYMBOLS=no"], ["frame-pointer"]),
]
# Kernels built with link-time optimization: (label, make variables, tracers
# to check), each GDB-checked on a few scenarios, one of them a function
# reached only by name that `used` keeps (tests/fixtures/lto_named.c). gcc
# only: an LTO build costs about 11 s of CPU, and clang's
# (CC=clang OPT="-O2 -flto") builds by the same rule.
LTO_CODE = "tests/fixtures/lto_named.c"
LTO_BUILDS = [
    ("gcc-O2-lto", ["OPT=-O2 -flto", "FP=1"], ["auto", "frame-pointer"]),
]
LTO_SCENARIOS = [("panic", "panic"), ("load-fault", "trap"), ("call:lto_named_entry", "panic")]
# rv32 kernels (XLEN=32, under qemu-system-riscv32 and the riscv32 OpenSBI
# make fetches), GDB-compared: the fixtures' assembly is written for both
# word sizes. (label, make variables, tracers, the scenarios: None for all
# of SCENARIOS.) gcc -O2 with frame pointers runs them all; the others,
# gcc -O2 and clang -O2 without frame pointers and gcc -O0 with them, the
# few that walk every kind of frame the C code has (a panic, a trap, a deep
# user stack), for make test's time; so do gcc -O0 without frame pointers
# and clang -O2 with them.
RV32_SOME_SCENARIOS = ["panic", "load-fault", "call:user_stack_entry"]
RV32_TOOLS_KERNELS = ["rv32-gcc-O2-fp1", "rv32-clang-O2-fp0"]
RV32_BUILDS = [
    ("rv32-gcc-O2-fp1", ["XLEN=32", "OPT=-O2", "FP=1"], ALL_TRACERS, None),
    ("rv32-gcc-O2-fp0", ["XLEN=32", "OPT=-O2", "FP=0"], NO_FP_TRACERS, RV32_SOME_SCENARIOS),
    ("rv32-gcc-O0-fp1", ["XLEN=32", "OPT=-O0", "FP=1"], ALL_TRACERS, RV32_SOME_SCENARIOS),
    ("rv32-gcc-O0-fp0", ["XLEN=32", "OPT=-O0", "FP=0"], NO_FP_TRACERS, RV32_SOME_SCENARIOS),
    ("rv32-clang-O2-fp1", ["XLEN=32", "CC=clang", "OPT=-O2", "FP=1"], ALL_TRACERS,
     RV32_SOME_SCENARIOS),
    ("rv32-clang-O2-fp0", ["XLEN=32", "CC=clang", "OPT=-O2", "FP=0"], NO_FP_TRACERS,
     RV32_SOME_SCENARIOS),
]
# EXTRA_SRCS of every build; user_stack.c last (its last function ends the text).
USER_CODE = ("tests/fixtures/asm_frames.S tests/fixtures/hostile.S tests/fixtures/hostile.c "
             "tests/fixtures/aliases_c.c tests/fixtures/user_stack.c")
RV32_CODE = USER_CODE
# Hand-written functions without CFI (asm_frames.S): neither frame pointers
# nor DWARF can pass them, so only the prologue unwinder and auto run them.
# The unwinder sets' kernels add a walk with each unwinder (before
# user_stack.c, which stays last).
UNWINDER_SET_CODE = USER_CODE.replace(
    "tests/fixtures/user_stack.c",
    "tests/fixtures/interpreted_cfi.S tests/fixtures/unwinder_walks.c "
    "tests/fixtures/user_stack.c")
ASM_FUNCTIONS = {"asm_frames_entry", "asm_large_frame", "asm_trap_in_prologue",
                 "asm_untyped_entry"}
# (scenario, kind, tracers it applies to: None for all).
SCENARIOS = [
    ("panic", "panic", None),
    ("recursion", "panic", None),
    ("load-fault", "trap", None),
    ("illegal", "trap", None),
    ("ebreak", "trap", None),
    ("call:user_stack_entry", "panic", None),
    ("call:asm_frames_entry", "panic", NO_CFI_TRACERS),
    ("call:asm_trap_in_prologue", "trap", NO_CFI_TRACERS),
    # An entry without .type: named after its label (symgen), as GDB names it.
    ("call:asm_untyped_entry", "panic", NO_CFI_TRACERS),
    # A static function called through its alias: named as GDB names it,
    # after the function (its DWARF subprogram), not the alias.
    ("call:alias_entry", "panic", None),
]
# A boot that takes longer hangs (GDB's session and QEMU's run each): far
# above the few seconds a boot takes on a machine busy with make test's
# other jobs.
QEMU_TIMEOUT = 60
# QEMU's exit status as the kernel sets it (kernel/poweroff.h).
EXIT_DONE = 0
EXIT_USAGE = 2
EXIT_KERNEL_FAILURE = 3
# The kernel's first line (kernel/main.c), where make run's console starts.
BOOT_LINE = "backtrace demo kernel on hart 0, args \""
# The privileged spec's scause codes, for checking the separator line.
CAUSE_NAMES = {2: "illegal instruction", 3: "breakpoint", 5: "load access fault",
               13: "load page fault", 15: "store/AMO page fault",
               (1 << 63) | 5: "supervisor timer interrupt"}


def cause_of_xlen64(scause):
    """scause as rv64 holds it, for CAUSE_NAMES: rv32's interrupt bit is
    bit 31 (an exception code never reaches it)."""
    return (1 << 63) | (scause & ~(1 << 31)) if scause >> 31 == 1 else scause

# Where the code is in the source, as Linux's CONFIG_KALLSYMS_LINEINFO prints
# it: " (file:line)" (groups: file, line).
LOCATION = r"(?: \(([^ ()]+):(\d+)\))?"
# In an auto walk, the fallback unwinder that found the frame is named
# before the symbol, where decode_stacktrace.sh's frame pattern allows a
# mark (Linux's " ? "). Groups: pc, mark, function, offset, size, file, line.
FRAME_RE = re.compile(r"^ \[<0x([0-9a-f]+)>\](?: \((prologue|frame-pointer)\))?"
                      r"(?: (\S+)\+0x([0-9a-f]+)/0x([0-9a-f]+))?" + LOCATION + "$")
# A call inlined into the next frame line's code (innermost first).
INLINED_RE = re.compile(r"^ \[inlined\] (\S+)" + LOCATION + "$")
TRAP_RE = re.compile(r"^--- trap: (.+) sepc=0x([0-9a-f]+) stval=0x([0-9a-f]+) ---$")
# A machine-mode kernel's (tests/rtos_kernel_tests.py).
MACHINE_TRAP_RE = re.compile(r"^--- trap: (.+) mepc=0x([0-9a-f]+) mtval=0x([0-9a-f]+) ---$")
# The fault report after an exception's separator (docs/output-format.md):
# registers three a line with Linux's labels ("epc : ", " ra : ", " s10: "),
# the CSRs, the code around the pc.
REGISTER_FIELD = r"(?:^| )(epc|ra|sp|s1[01]|s\d) ?: ([0-9a-f]+)"
REGISTERS_RE = re.compile(r"^(?:(?:^| )(?:epc|ra|sp|s1[01]|s\d) ?: [0-9a-f]+){1,3}$")
STATUS_RE = re.compile(r"^(?:status: ([0-9a-f]+) )?badaddr: ([0-9a-f]+) cause: ([0-9a-f]+)$")
CODE_RE = re.compile(r"^Code:(?: <?[0-9a-f]{4}>?)+$")
CLONE_SUFFIX = re.compile(r"\.(constprop|isra|part|cold)\.\d+$")


_console_numbers = itertools.count()


def gdb_listener():
    """A TCP socket bound to a free port of 127.0.0.1 and listening, for
    QEMU's gdbstub: QEMU inherits it (-chardev socket,fd=), so no other
    program can take the port between its choice and QEMU's start, and runs
    side by side each have their own."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    return listener


# The riscv32 OpenSBI make fetches where QEMU bundles none (Makefile, XLEN).
RV32_OPENSBI = os.path.join(ROOT, "build", "firmware", "opensbi-riscv32-fw_dynamic.bin")


def elf_is_32_bit(elf):
    with open(elf, "rb") as image:
        return image.read(5)[4:] == b"\x01"  # EI_CLASS: ELFCLASS32


def qemu_argv(elf, args, harts=1):
    """An rv64 kernel under QEMU's own OpenSBI, an rv32 one (XLEN=32) under
    the one make fetched."""
    if elf_is_32_bit(elf):
        machine, bios = "qemu-system-riscv32", RV32_OPENSBI
    else:
        machine, bios = "qemu-system-riscv64", "default"
    return [machine, "-machine", "virt", "-smp", str(harts), "-nographic",
            "-bios", bios, "-kernel", elf, "-append", args]


class GdbSession:
    """A GDB running gdb_oracle.py's serve(): it answers boots one after
    another (ask()), each under its own wall-clock limit."""

    def __init__(self):
        commands, self.commands = os.pipe()
        self.argv = [GDB, "-batch", "-nx", "-ex", "set pagination off",
                     "-ex", "set remotetimeout %d" % QEMU_TIMEOUT,
                     "-x", os.path.join(ROOT, "tests", "gdb_oracle.py"),
                     "-ex", "python serve(%d)" % commands]
        self.start = time.monotonic()
        self.process = Popen(self.argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, pass_fds=[commands])
        os.close(commands)
        self.loaded = None

    def ask(self, port, elf, statement):
        """What GDB printed for one boot: attached to QEMU's gdbstub on
        port, with elf's symbols, running the Python statement. Raises
        subprocess.TimeoutExpired (its output: what GDB printed) if GDB
        has not answered within QEMU_TIMEOUT seconds; then, or if GDB
        ended, the session is over."""
        deadline = time.monotonic() + QEMU_TIMEOUT
        loaded = (elf, os.stat(elf).st_mtime_ns)
        os.write(self.commands, ("%d\t%s\t%d\t%s\n" % (port, elf, loaded != self.loaded,
                                                       statement)).encode())
        self.loaded = loaded
        output, served = b"", (ORACLE_SERVED + "\n").encode()
        out = self.process.stdout.fileno()
        while not output.endswith(served):
            left = deadline - time.monotonic()
            ready = select.select([out], [], [], max(left, 0))[0]
            chunk = os.read(out, 65536) if ready else b""
            if not chunk:  # timed out, or GDB ended
                self.close(kill=True)
                text = output.decode(errors="replace")
                if not ready:
                    raise subprocess.TimeoutExpired(self.argv, QEMU_TIMEOUT, text)
                return text
            output += chunk
        return output[:-len(served)].decode(errors="replace")

    def close(self, kill=False):
        """Ends the session: GDB returns at the end of its input (or is
        killed, if it may hang)."""
        os.close(self.commands)
        if kill:
            self.process.kill()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process.stdout.close()
        profile(self.argv, self.start, self.process)


ORACLE_SERVED = "GDB-ORACLE-SERVED"  # gdb_oracle.SERVED (gdb_oracle imports gdb)
_idle_gdbs = []
_idle_gdbs_lock = threading.Lock()


def ask_gdb(port, elf, statement):
    """GdbSession.ask() of an idle session (one that last read elf if there
    is one), or of a new one; the session is idle again after its answer,
    unless it failed to give one in time. Only a session that last read a
    kernel of the same word size: GDB keeps the architecture of the target
    it was attached to (riscv:rv32), and then cannot debug the other."""
    width = elf_is_32_bit(elf)
    with _idle_gdbs_lock:
        fitting = [s for s in _idle_gdbs if not s.loaded or elf_is_32_bit(s.loaded[0]) == width]
        session = next((s for s in fitting if s.loaded and s.loaded[0] == elf),
                       fitting[0] if fitting else None)
        if session:
            _idle_gdbs.remove(session)
    if session and session.process.poll() is not None:  # ended while idle
        session.close()
        session = None
    session = session or GdbSession()
    output = session.ask(port, elf, statement)  # on a timeout, closed
    if session.process.poll() is None:
        with _idle_gdbs_lock:
            _idle_gdbs.append(session)
    return output


@atexit.register
def close_idle_gdbs():
    with _idle_gdbs_lock:
        while _idle_gdbs:
            _idle_gdbs.pop().close()


def boot(elf, args, gdb_function=None, harts=1, qemu=qemu_argv):
    """Boots the kernel on `harts` harts; with gdb_function, under GDB running
    that call of gdb_oracle.py ("stop_at_panic", or a call with arguments).
    qemu(elf, args, harts) gives QEMU's command line. Returns (console
    text, GDB output, problem or None). Takes a job slot (testlib.job_slot):
    boots side by side use a core each."""
    console, gdb_out, problem, _ = boot_with_status(elf, args, gdb_function, harts, qemu)
    return console, gdb_out, problem


def boot_with_status(elf, args, gdb_function=None, harts=1, qemu=qemu_argv):
    """boot()'s (console, GDB output, problem), and QEMU's exit status
    (None if it hung), which the kernel sets (kernel/poweroff.h)."""
    # Numbered: the same boot may run twice at once (from two test groups).
    console_path = os.path.join(os.path.dirname(elf), "console-%s-smp%d-%d.txt"
                                % (re.sub(r"\W", "_", args), harts, next(_console_numbers)))
    argv = qemu(elf, args, harts)
    listener = gdb_listener() if gdb_function else None
    if listener:
        # nodelay=on, as QEMU sets for -gdb tcp::PORT: without it each GDB
        # packet waits for a delayed ACK, and a boot takes ten times longer.
        argv += ["-S", "-chardev", "socket,id=gdb,server=on,wait=off,nodelay=on,fd=%d"
                 % listener.fileno(), "-gdb", "chardev:gdb"]
    gdb_out = ""
    problem = None
    with job_slot(), open(console_path, "w") as console:
        start = time.monotonic()
        qemu = Popen(argv, stdin=subprocess.DEVNULL, stdout=console,
                     stderr=subprocess.STDOUT,
                     pass_fds=[listener.fileno()] if listener else [])
        try:
            if listener:
                # QEMU holds the socket now; GDB's connection waits in its
                # backlog until QEMU accepts it (on a busy machine, later
                # than GDB's default 2 s for a reply).
                port = listener.getsockname()[1]
                listener.close()
                gdb_out = ask_gdb(port, elf, gdb_function if "(" in gdb_function
                                  else gdb_function + "()")
            qemu.wait(timeout=QEMU_TIMEOUT)
        except subprocess.TimeoutExpired as timeout:
            gdb_out = timeout.output or gdb_out
            problem = "timed out after %d s" % QEMU_TIMEOUT
        finally:
            if listener:
                listener.close()
            if qemu.poll() is None:
                qemu.kill()
                qemu.wait()
            profile(argv, start, qemu)
    status = None if problem else qemu.returncode
    return open(console_path, errors="replace").read(), gdb_out, problem, status


def location(file, line):
    """A frame's place as GDB's bt names it: "file:line", or "??"."""
    return "%s:%s" % (file, line) if file else "??"


def is_report_line(line):
    return bool(REGISTERS_RE.match(line) or STATUS_RE.match(line) or CODE_RE.match(line))


def parse_trace(console, trap_re=TRAP_RE):
    """The tracer's output: frames before and after the trap separator (a
    line trap_re matches),
    [(pc, function, fallback mark)]; beside each side's frames, in "places"
    ("places_before", "places_after"), each frame's location and the calls
    inlined into it, [(location, [(function, location)])], innermost first;
    the note before the first frame ("note"), and every note with the number
    of frame lines before it ("notes": a walk notes a table it rejects
    before the next frame line)."""
    trace = {"header": None, "note": None, "notes": [], "before": [], "trap": None, "report": [],
             "after": [], "end": None, "bad": [], "places_before": [], "places_after": []}
    side = "before"
    inlined = []
    for line in console.splitlines():
        line = line.rstrip("\r")
        if line.startswith("Call Trace ("):
            trace["header"] = line
        elif trace["header"] is None or trace["end"] is not None:
            continue
        elif line.startswith("End of trace: "):
            trace["end"] = line[len("End of trace: "):]
        elif line.startswith("Note: "):
            trace["notes"].append((len(trace["before"]) + len(trace["after"]), line))
            if not trace["before"]:
                trace["note"] = line
        elif trap_re.match(line):
            m = trap_re.match(line)
            trace["trap"] = (m.group(1), int(m.group(2), 16), int(m.group(3), 16))
            side = "after"
        elif side == "after" and not trace["after"] and is_report_line(line):
            trace["report"].append(line)
        elif FRAME_RE.match(line):
            m = FRAME_RE.match(line)
            trace[side].append((int(m.group(1), 16), m.group(3) or "??", m.group(2)))
            trace["places_" + side].append((location(m.group(6), m.group(7)), inlined))
            inlined = []
        elif INLINED_RE.match(line):
            m = INLINED_RE.match(line)
            inlined.append((m.group(1), location(m.group(2), m.group(3))))
        else:
            trace["bad"].append(line)
    # Inlined calls belong to the frame line after them.
    trace["bad"] += ["%s (inlined, no frame after it)" % call[0] for call in inlined]
    return trace


def parse_gdb(output):
    """gdb_oracle.py's lines: {label: [(pc, name)]} and the trap CSRs."""
    frames, trap, label = {}, None, None
    for line in output.splitlines():
        parts = line.split()
        if line.startswith("FRAMES "):
            label = parts[1]
            frames[label] = []
        elif line.startswith("FRAME ") and label:
            frames[label].append((int(parts[1], 16), parts[2]))
        elif line.startswith("TRAP "):
            trap = tuple(int(p, 16) for p in parts[1:4])
    return frames, trap


def gdb_trap_registers(output):
    """gdb_oracle.py's TRAPREGS line (the first): {name: value}."""
    for line in output.splitlines():
        if line.startswith("TRAPREGS "):
            return {name: int(value, 16) for name, value in
                    (field.split("=") for field in line.split()[1:])}
    return {}


@functools.lru_cache(maxsize=None)
def text_bytes(elf):
    """{address: byte} of the image's .text, from objdump -s."""
    dump = run([CROSS + "objdump", "-s", "-j", ".text", elf]).stdout
    data = {}
    for line in dump.splitlines():
        m = re.match(r"^ ([0-9a-f]+) ((?:[0-9a-f]{2,8} ){1,4})", line + " ")
        if m and len(line) > 40:
            address = int(m.group(1), 16)
            for i, byte in enumerate(bytes.fromhex(m.group(2).replace(" ", ""))):
                data[address + i] = byte
    return data


def report_problems(elf, report, sepc, scause, stval, gdb_registers):
    """Differences between the fault report's lines and the oracles: GDB's
    registers and CSRs at the trap, and the image's code."""
    problems = []
    fields = [field for line in report if REGISTERS_RE.match(line)
              for field in re.findall(REGISTER_FIELD, line)]
    printed = {name: int(value, 16) for name, value in fields}
    expected = dict(gdb_registers, epc=sepc)
    expected.pop("sstatus", None)
    if [name for name, _ in fields] != ["epc", "ra", "sp"] + ["s%d" % i for i in range(12)]:
        problems.append("registers printed: %s" % [name for name, _ in fields])
    problems += ["%s: printed 0x%x, GDB 0x%x" % (name, printed.get(name, -1), value)
                 for name, value in sorted(expected.items()) if printed.get(name) != value]
    status = [STATUS_RE.match(line) for line in report if STATUS_RE.match(line)]
    csrs = (gdb_registers.get("sstatus"), stval, scause)
    if len(status) != 1 or tuple(v and int(v, 16) for v in status[0].groups()) != csrs:
        problems.append("status line %s, GDB sstatus/stval/scause %s"
                        % ([s.group(0) for s in status], csrs))
    code = [line for line in report if CODE_RE.match(line)]
    if len(code) != 1:
        return problems + ["%d Code: lines" % len(code)]
    width, values, marker = decode_stacktrace_model.decodecode_reading(code[0])
    start = sepc - 2 * (marker or 0)
    image = text_bytes(elf)
    in_image = [image.get(start + 2 * i, -1) | image.get(start + 2 * i + 1, -1) << 8
                for i in range(len(values))]
    # Linux's riscv window: 10 parcels before the pc, 2 from it.
    if (width, marker, len(values)) != (2, 10, 12) or values != in_image:
        problems.append("decodecode reads %d-byte units %s, the pc's at %s; the image "
                        "has %s from 0x%x" % (width, ["%04x" % v for v in values], marker,
                                              ["%04x" % v for v in in_image], start))
    return problems


def check_fault_report(results, name, elf, trace, gdb_out):
    """The report after the separator of an exception: each register and
    CSR is GDB's at the trap, the code the image's (docs/output-format.md)."""
    sepc, scause, stval = parse_gdb(gdb_out)[1]
    problems = report_problems(elf, trace["report"], sepc, scause, stval,
                               gdb_trap_registers(gdb_out))
    results.check(name + ": fault report: registers equal GDB's at the trap, Code: the "
                  "image's parcels around sepc", not problems,
                  "\n".join(problems + ["report:"] + trace["report"]))


def source_name(name):
    return CLONE_SUFFIX.sub("", name)


def compare_frames(tracer, gdb, exact_first_pc):
    """Differences between two [(pc, name)] lists, as text lines."""
    problems = []
    if len(tracer) != len(gdb):
        problems.append("%d frames printed, GDB shows %d" % (len(tracer), len(gdb)))
    for i, (t, g) in enumerate(zip(tracer, gdb)):
        if source_name(t[1]) != g[1]:
            problems.append("frame %d: function %s, GDB %s" % (i, t[1], g[1]))
        if (i > 0 or exact_first_pc) and t[0] != g[0]:
            problems.append("frame %d: pc 0x%x, GDB 0x%x" % (i, t[0], g[0]))
    if problems:
        width = max(len(tracer), len(gdb))
        pad = lambda l, i: "0x%x %s" % l[i][:2] if i < len(l) else "-"
        problems.append("tracer | GDB:")
        problems += ["  %-40s | %s" % (pad(tracer, i), pad(gdb, i)) for i in range(width)]
    return problems


def expected_fallbacks(frames, has_cfi):
    """In an auto walk, the unwinder named after each frame: the prologue
    decoder finds a frame (from the one above it) where no FDE covers the
    pc: everywhere without CFI, else above the hand-written functions. The
    first frame of each side comes from a register set: never named."""
    return [None if i == 0 or (has_cfi and source_name(frames[i - 1][1]) not in ASM_FUNCTIONS)
            else "prologue" for i in range(len(frames))]


def check_fallback_marks(results, name, trace, has_cfi):
    for side in ("before", "after"):
        marks = [frame[2] for frame in trace[side]]
        expected = expected_fallbacks(trace[side], has_cfi)
        results.check("%s: frames %s the trap name the unwinder that found them" % (name, side),
                      marks == expected,
                      "\n".join("%-40s expected %s" % ("0x%x %s %s" % f, e)
                                for f, e in zip(trace[side], expected)))


def unwinder_console(console, unwinder):
    """The console of a tracer=all boot as a boot with tracer=UNWINDER shows
    it: the other unwinders' traces (from their header to their end line)
    taken out."""
    kept, skipping = [], False
    for line in console.splitlines(keepends=True):
        header = re.match(r"Call Trace \((\S+) unwinder\):", line)
        if header:
            skipping = header.group(1) != unwinder
        if not skipping:
            kept.append(line)
        elif line.startswith("End of trace: "):
            skipping = False
    return "".join(kept)


_shared_boots = {}
_shared_boots_lock = threading.Lock()


def boot_all_unwinders(elf, scenario, gdb_function, harts=1):
    """boot(elf, "scenario=SCENARIO tracer=all", ...), once for every caller
    that asks for the same (the checks of each unwinder share it)."""
    key = (elf, scenario, gdb_function, harts)
    with _shared_boots_lock:
        entry = _shared_boots.setdefault(key, {"lock": threading.Lock()})
    with entry["lock"]:
        if "result" not in entry:
            entry["result"] = boot(elf, "scenario=%s tracer=all" % scenario, gdb_function, harts)
        return entry["result"]


def check_scenario(results, label, elf, tracers, scenario, kind, lines=True, raw=False):
    """One boot with tracer=all (the kernel prints a trace with each
    unwinder it links, of the same registers), GDB stopped at the panic or
    the trap: each of `tracers`'s traces against GDB, their places too
    (none if not `lines`: a kernel built with LINES=no; if `raw`, a kernel
    built with SYMBOLS=no, its frames print no name and are named on the
    host)."""
    console, gdb_out, problem, status = boot_with_status(
        elf, "scenario=%s tracer=all" % scenario,
        "stop_at_trap" if kind == "trap" else "stop_at_panic")
    gdb_frames, gdb_trap = parse_gdb(gdb_out)
    for tracer in tracers:
        check_trace(results, "%s tracer=%s %s" % (label, tracer, scenario), label, elf, tracer,
                    kind, parse_trace(unwinder_console(console, tracer)), gdb_frames, gdb_trap,
                    gdb_out, problem, status, console, lines, raw)


def check_trace(results, name, label, elf, tracer, kind, trace, gdb_frames, gdb_trap, gdb_out,
                problem, status, console, lines=True, raw=False):
    header = "Call Trace (%s unwinder):" % tracer
    if raw:
        frames = trace["before"] + trace["after"]
        results.check(name + ": every frame prints raw, no name (SYMBOLS=no)",
                      frames and all(frame[1] == "??" for frame in frames), frames)
        trace = dict(trace, before=host_named(elf, trace["before"]),
                     after=host_named(elf, trace["after"]))
    complete = (problem is None and trace["header"] == header
                and trace["end"] is not None and not trace["bad"] and "panic" in gdb_frames)
    if not results.check(name + ": QEMU and GDB ran, a complete trace was printed", complete,
                         "problem: %s\nconsole tail:\n%s\nGDB:\n%s"
                         % (problem, console[-1500:], gdb_out[-1500:])):
        return
    results.check(name + ": QEMU exits 0 (the scenario's panic is the demo's success)",
                  status == EXIT_DONE, "exit status %s" % status)
    # A frameless call to a noreturn function (clang without unwind tables)
    # loses the return address: GDB ends there too, and the tracer says why.
    outermost = gdb_frames.get("trap" if kind == "trap" else "panic")
    lost = outermost and outermost[-1][1] != "_start"
    expected_end = ("caller's frame saved no return address" if lost
                    else "reached the outermost frame")
    results.check(name + ": walk ended: " + expected_end, trace["end"] == expected_end,
                  trace["end"])
    if tracer == "auto":
        check_fallback_marks(results, name, trace, "nocfi" not in label)
    else:
        results.check(name + ": no unwinder named after the frames (not an auto walk)",
                      not any(frame[2] for frame in trace["before"] + trace["after"]))
    results.check(name + ": frames up to the trap entry equal GDB's bt at panic()",
                  not compare_frames(trace["before"], gdb_frames["panic"], False),
                  "\n".join(compare_frames(trace["before"], gdb_frames["panic"], False)))
    if lines:
        frame_lines.check(results, name, trace, gdb_out)
    else:
        places = trace["places_before"] + trace["places_after"]
        results.check(name + ": no frame has a place or inlined calls (no line table)",
                      not any(place != "??" or inlined for place, inlined in places), places)
    if kind != "trap":
        results.check(name + ": no trap separator", trace["trap"] is None, trace["trap"])
        return
    if not results.check(name + ": trap separator printed and GDB saw the trap",
                         trace["trap"] is not None and gdb_trap is not None and "trap" in gdb_frames,
                         "tracer %s, GDB %s" % (trace["trap"], gdb_trap)):
        return
    sepc, scause, stval = gdb_trap
    results.check(name + ": separator cause/sepc/stval equal GDB's CSRs",
                  trace["trap"] == (CAUSE_NAMES.get(scause), sepc, stval),
                  "tracer %s, GDB scause=%d sepc=0x%x stval=0x%x" % (trace["trap"], scause, sepc, stval))
    results.check(name + ": interrupted frames equal GDB's bt at the faulting pc",
                  not compare_frames(trace["after"], gdb_frames["trap"], True),
                  "\n".join(compare_frames(trace["after"], gdb_frames["trap"], True)))
    check_fault_report(results, name, elf, trace, gdb_out)


def check_bad_arguments(results, label, elf, more=()):
    """Unknown names print the valid choices, and the kernel powers off with
    the usage error's status. `more`: other (args, message) to try."""
    for args, message in [("scenario=nonsense", "error: unknown scenario 'nonsense'"),
                          ("tracer=nonsense", "error: unknown tracer 'nonsense'"),
                          ("scenario=call:no_such_function",
                           "error: no function in the symbol table named 'no_such_function'")
                          ] + list(more):
        console, _, problem, status = boot_with_status(elf, args)
        results.check("%s %s: explained, lists choices, shuts down" % (label, args),
                      problem is None and message in console and "scenario=load-fault" in console
                      and "tracer=prologue" in console and "Call Trace" not in console
                      and all("tracer=%s: alias of tracer=%s" % alias in console
                              for alias in TRACER_ALIASES.items()),
                      "problem: %s\n%s" % (problem, console[-800:]))
        results.check("%s %s: QEMU exits %d (a usage error)" % (label, args, EXIT_USAGE),
                      status == EXIT_USAGE, "exit status %s" % status)


def make_run(variables, args):
    """(make's exit status or None if it hung, stdout, stderr) of
    `make run ARGS=args` with the variables of a kernel built already."""
    argv = ["make", "-s", "--no-print-directory", "run", "ARGS=" + args] + variables
    with job_slot():
        start = time.monotonic()
        # A session of its own: on a hang, QEMU goes with make.
        with Popen(argv, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                   stderr=subprocess.PIPE, text=True, errors="replace",
                   start_new_session=True) as process:
            try:
                stdout, stderr = process.communicate(timeout=QEMU_TIMEOUT)
                status = process.returncode
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                stdout, stderr = process.communicate()
                status = None
            profile(argv, start, process)
    return status, stdout, stderr


def check_exit_status(results, label, elf, variables):
    """QEMU's exit status (kernel/poweroff.h): a word of ARGS the kernel
    does not take, or one given twice, is a usage error it names; so is a
    scenario that needs more harts than QEMU has; a fault before the
    scenario is a kernel failure. Through make run (its
    script's pipe, which hides the firmware's banner): a usage error fails
    make with QEMU's status in make's message; a deliberate panic is success,
    and BANNER=1 shows the banner."""
    check_bad_arguments(results, label, elf, [
        ("scenario=panic junk", "error: unknown argument 'junk'"),
        ("scenario=panic tracer=auto scenario=recursion",
         "error: argument given twice 'scenario=recursion'")])
    console, _, problem, status = boot_with_status(elf, "scenario=secondary-panic")
    results.check("%s scenario=secondary-panic on one hart: says so, QEMU exits %d"
                  % (label, EXIT_USAGE), problem is None and status == EXIT_USAGE
                  and "secondary-panic needs another hart" in console,
                  "problem: %s, exit status %s\n%s" % (problem, status, console[-800:]))
    # A fault before the scenario started (GDB makes timer_start, which kmain
    # calls before it, jump to 0) is the kernel's own failure.
    console, _, problem, status = boot_with_status(elf, "scenario=panic",
                                                   "jump_to_zero_at('timer_start')")
    results.check("%s: a fault before the scenario starts: reported, QEMU exits %d"
                  % (label, EXIT_KERNEL_FAILURE), problem is None
                  and status == EXIT_KERNEL_FAILURE and "panic: trap: " in console
                  and "scenario panic:" not in console,
                  "problem: %s, exit status %s\n%s" % (problem, status, console[-800:]))
    run_variables = (["BUILD=" + os.path.dirname(elf), "EXTRA_SRCS=" + USER_CODE, SHARED_OBJECTS]
                     + variables)
    status, stdout, stderr = make_run(run_variables, "scenario=nonsense")
    results.check("make run ARGS=scenario=nonsense: make fails with QEMU's %d, the kernel "
                  "names the word, no firmware banner" % EXIT_USAGE,
                  status == 2 and re.search(r"\brun\] Error %d$" % EXIT_USAGE, stderr, re.M)
                  and stdout.startswith(BOOT_LINE)
                  and "error: unknown scenario 'nonsense'" in stdout and "OpenSBI" not in stdout,
                  "make's exit status %s\nstdout:\n%s\nstderr:\n%s"
                  % (status, stdout[-1500:], stderr[-1500:]))
    status, stdout, stderr = make_run(run_variables + ["BANNER=1"], "scenario=panic")
    results.check("make run ARGS=scenario=panic BANNER=1: exits 0, the banner and the trace",
                  status == 0 and "OpenSBI v" in stdout and BOOT_LINE in stdout
                  and "End of trace: " in stdout,
                  "make's exit status %s\nstdout:\n%s\nstderr:\n%s"
                  % (status, stdout[-1500:], stderr[-1500:]))


def trace_lines(console):
    """The lines of the trace, from its header to its end line."""
    lines = [line.rstrip("\r") for line in console.splitlines()]
    start = next((i for i, line in enumerate(lines) if line.startswith("Call Trace (")), None)
    end = next((i for i, line in enumerate(lines) if line.startswith("End of trace: ")), None)
    return lines[start:end + 1] if start is not None and end is not None else []


def check_tracer_aliases(results, label, elf):
    """tracer=fp and tracer=compiler, the seed's names, print the trace of
    the unwinder they name, line for line."""
    for alias, canonical in TRACER_ALIASES.items():
        traces = {}
        for name in (alias, canonical):
            console, _, problem = boot(elf, "scenario=load-fault tracer=%s" % name)
            traces[name] = trace_lines(console) if problem is None else []
        results.check("%s tracer=%s: an alias of tracer=%s, the same trace"
                      % (label, alias, canonical),
                      bool(traces[alias]) and traces[alias] == traces[canonical]
                      and traces[alias][0] == "Call Trace (%s unwinder):" % canonical,
                      "\n".join(["tracer=" + alias] + traces[alias]
                                + ["tracer=" + canonical] + traces[canonical]))


def check_default_tracer(results, label, elf):
    """Without tracer=, the kernel walks with auto."""
    console, _, problem = boot(elf, "scenario=panic")
    results.check("%s: the default tracer is auto" % label,
                  problem is None and "Call Trace (auto unwinder):" in console,
                  "problem: %s\n%s" % (problem, console[-800:]))


def check_unlinked_unwinders(results, label, elf, unlinked):
    """A kernel asked for an unwinder it does not link says so and walks
    nothing; a walk or capture started with one (unwinder_walks.c) stops
    after the registers' frame with the clear reason; the linked ones and
    auto walk to the outermost frame, all alike."""
    for unwinder in unlinked:
        args = "scenario=panic tracer=" + unwinder
        console, _, problem, status = boot_with_status(elf, args)
        results.check("%s %s: QEMU exits %d (a usage error)" % (label, args, EXIT_USAGE),
                      status == EXIT_USAGE, "exit status %s" % status)
        results.check("%s %s: refused, not linked into this kernel" % (label, args),
                      problem is None and "error: unwinder not linked into this kernel: "
                      "tracer '%s'" % unwinder in console
                      and "tracer=%s (not linked)" % unwinder in console
                      and "Call Trace" not in console,
                      "problem: %s\n%s" % (problem, console[-800:]))
    console, _, problem = boot(elf, "scenario=call:walk_each_unwinder")
    lines = dict(re.findall(r"^((?:walk|capture) \S+): (.*)$", console, re.M))
    linked = [u for u in ALL_TRACERS if u not in unlinked]
    expected_linked = lines.get("walk auto")
    for unwinder in ALL_TRACERS:
        for api, unit in (("walk", "frames"), ("capture", "pcs")):
            got = lines.get("%s %s" % (api, unwinder))
            if unwinder in unlinked:
                expected = "1 %s, unwinder not linked into this kernel" % unit
                ok = got == expected
            else:
                expected = "the same frames as auto, reached the outermost frame"
                ok = (got is not None and got.endswith(", reached the outermost frame")
                      and int(got.split()[0]) >= 3 and expected_linked is not None
                      and got.split()[0] == expected_linked.split()[0])
            results.check("%s: %s with %s: %s" % (label, api, unwinder, expected),
                          problem is None and ok,
                          "problem: %s, got %r (linked: %s)\n%s"
                          % (problem, got, linked, console[-800:]))


def check_table_without_dwarf(results, label, elf):
    """The table's rows for DWARF (interpreted_cfi.S: a CFA based on s1),
    in a kernel without DWARF: the table walk and capture end at that frame,
    the second (walk_each_unwinder's caller), with the reason; auto, with
    no other unwinder linked, ends there too."""
    console, _, problem = boot(elf, "scenario=call:interpreted_cfi_entry")
    lines = dict(re.findall(r"^((?:walk|capture) \S+): (.*)$", console, re.M))
    for api, unit in (("walk", "frames"), ("capture", "pcs")):
        expected = "2 %s, unsupported call-frame information" % unit
        results.check("%s: %s with table from a frame only DWARF can unwind: %s"
                      % (label, api, expected),
                      problem is None and lines.get(api + " table") == expected,
                      "problem: %s, got %r\n%s" % (problem, lines.get(api + " table"),
                                                    console[-800:]))
        got = lines.get(api + " auto", "")
        results.check("%s: %s with auto ends at that frame too" % (label, api),
                      problem is None and got.startswith("2 %s, " % unit)
                      and "outermost" not in got, "got %r" % got)


def build(results, label, variables, user_code=USER_CODE):
    build_dir = os.path.join(TEST_BUILD, label)
    result = run(["make", "-s", "BUILD=" + build_dir, "EXTRA_SRCS=" + user_code, SHARED_OBJECTS]
                 + variables, timeout=600)
    ok = results.check("build %s (%s)" % (label, " ".join(variables)), result.returncode == 0,
                       result.stdout[-2000:] + result.stderr[-2000:])
    return os.path.join(build_dir, "kernel.elf") if ok else None


def makes_at_once(argvs):
    """Runs the makes together (not through run(): its job slots could run
    them one after the other), in one job slot, as their locks let one
    build run at a time. [(exit status, output)]."""
    outcomes = []
    with job_slot():
        start = time.monotonic()
        makes = [Popen(argv, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, errors="replace")
                 for argv in argvs]
        for argv, make in zip(argvs, makes):
            try:
                output = make.communicate(timeout=600)[0]
            except subprocess.TimeoutExpired:
                make.kill()
                output = "timed out\n" + make.communicate()[0]
            outcomes.append((make.returncode, output))
            profile(argv, start, make)
    return outcomes


def check_concurrent_builds(results):
    """Two makes building one clean BUILD at once (two make run, or make run
    beside make test) must not write over each other's files: both succeed,
    and the kernel each leaves behind is the same. A small kernel (one
    unwinder, no lines): the second make waits for the first's lock. Then
    two makes of two clean BUILDs sharing one clean OBJ_CACHE (as make
    test's builds do): the objects are compiled once, under their own lock,
    and both kernels, of the same flags and sources, load the same bytes."""
    build_dir = os.path.join(TEST_BUILD, "concurrent")
    shutil.rmtree(build_dir, ignore_errors=True)
    elf = os.path.join(build_dir, "kernel.elf")
    argv = ["make", "-s", "BUILD=" + build_dir, "UNWINDERS=frame-pointer", "LINES=no"]
    outcomes, images = makes_at_once([argv, argv]), []
    for status, _ in outcomes:
        images.append(open(elf, "rb").read() if status == 0 else None)
    results.check("two makes of one clean build directory at once both succeed, "
                  "with the same kernel",
                  all(status == 0 for status, _ in outcomes)
                  and images[0] is not None and images[0] == images[1],
                  "exit %s\n%s" % ([status for status, _ in outcomes],
                                    "\n".join(output[-1500:] for _, output in outcomes)))
    cache = os.path.join(build_dir, "objects")
    builds = [os.path.join(build_dir, name) for name in ("a", "b")]
    outcomes = makes_at_once([argv[:2] + ["BUILD=" + build, "OBJ_CACHE=" + cache] + argv[3:]
                              for build in builds])
    # The loaded image: the debugging information names each build's own
    # table source.
    images = []
    for build, (status, _) in zip(builds, outcomes):
        image = os.path.join(build, "kernel.bin")
        copied = status == 0 and run([CROSS + "objcopy", "-O", "binary",
                                      os.path.join(build, "kernel.elf"), image]).returncode == 0
        images.append(open(image, "rb").read() if copied else None)
    flag_sets = os.listdir(cache) if os.path.isdir(cache) else []
    results.check("two makes of two clean builds sharing one clean OBJ_CACHE at once both "
                  "succeed, with one set of objects and the same loaded image",
                  all(status == 0 for status, _ in outcomes) and len(flag_sets) == 1
                  and images[0] is not None and images[0] == images[1],
                  "exit %s, object sets %s\n%s"
                  % ([status for status, _ in outcomes], flag_sets,
                     "\n".join(output[-1500:] for _, output in outcomes)))


def check_moved_code_fails_build(results):
    """The table must sit after the code; a linker script that puts it before
    must make the build fail loudly and leave no kernel.elf behind."""
    build_dir = os.path.join(TEST_BUILD, "table-before-text")
    result = run(["make", "-s", "BUILD=" + build_dir, "LDSCRIPT=tests/fixtures/table_before_text.ld",
                  # gcc-O2-fp1-g0's objects: the same link, nothing to compile.
                  "DEBUG_CFLAGS=-g0", "OPT=-O2", "FP=1", SHARED_OBJECTS], timeout=600)
    results.check("build fails when the symbol table moves code",
                  result.returncode != 0 and
                  "error: function addresses in" in result.stdout + result.stderr and
                  not os.path.exists(os.path.join(build_dir, "kernel.elf")),
                  "exit %d\n%s" % (result.returncode, (result.stdout + result.stderr)[-1500:]))


def check_missing_cfi_fails_build(results):
    """A linker script that discards .eh_frame leaves the DWARF unwinder
    nothing to read: the build must say so and leave no kernel.elf behind."""
    build_dir = os.path.join(TEST_BUILD, "discard-eh-frame")
    result = run(["make", "-s", "BUILD=" + build_dir, "LDSCRIPT=tests/fixtures/discard_eh_frame.ld",
                  # gcc-O2-fp1-g0's objects: the same link, nothing to compile.
                  "DEBUG_CFLAGS=-g0", "OPT=-O2", "FP=1", SHARED_OBJECTS], timeout=600)
    output = result.stdout + result.stderr
    results.check("build fails when the linker script discards .eh_frame",
                  result.returncode != 0 and
                  "no call-frame information (.eh_frame) in the image" in output and
                  not os.path.exists(os.path.join(build_dir, "kernel.elf")),
                  "exit %d\n%s" % (result.returncode, output[-1500:]))


def check_unwinder_set(results, label, elf, tracers, unlinked):
    """A kernel that links some unwinders only (UNWINDER_SETS)."""
    for scenario, kind in UNWINDER_SET_SCENARIOS:
        check_scenario(results, label, elf, tracers, scenario, kind)
    check_unlinked_unwinders(results, label, elf, unlinked)
    if "dwarf" in unlinked and "table" not in unlinked:
        check_table_without_dwarf(results, label, elf)


def check_smallest(results, label, elf, tracers, raw):
    """SMALLEST_BUILDS: their traces equal GDB's (without places: no line
    table; named on the host if `raw`), and they have no raw capture
    (check_without_capture), nor symbols if `raw` (check_without_symbols)."""
    for scenario, kind in UNWINDER_SET_SCENARIOS:
        check_scenario(results, label, elf, tracers, scenario, kind, lines=False, raw=raw)
    check_without_capture(results, label, elf)
    if raw:
        check_without_symbols(results, label, elf)


def check_without_symbols(results, label, elf):
    """A kernel built with SYMBOLS=no links no symbol lookup (nm) and embeds
    no symbol table: none of the arrays symgen writes for one (nm)."""
    names = {fields[2] for fields in (line.split() for line in
                                      run([CROSS + "nm", elf]).stdout.splitlines())
             if len(fields) == 3}
    left_out = {"symtab_search", "walk_symbol_check", "symtab_header_check",
                "tracer_function_range", "symbols", "names", "symtab_hashes"}
    results.check("%s: SYMBOLS=no leaves out %s" % (label, ", ".join(sorted(left_out))),
                  "tracer_symtab" in names and "tracer_next" in names and not names & left_out,
                  "linked: %s" % sorted(names & left_out))


def host_named(elf, frames):
    """Raw frames [(pc, "??", mark)] named as a host names them from the
    image's symbols (readelf: the function whose [value, value + size)
    holds the address): a return address by its call (pc - 1), the first
    frame by its pc, which is exact."""
    functions = [(int(fields[1], 16), int(fields[2], 0), fields[7]) for fields in (
        line.split() for line in run([CROSS + "readelf", "-sW", elf]).stdout.splitlines())
        if len(fields) == 8 and fields[3] == "FUNC"]
    named = []
    for i, (pc, _, mark) in enumerate(frames):
        address = pc if i == 0 else pc - 1
        holders = [name for start, size, name in functions if start <= address < start + size]
        named.append((pc, holders[0] if holders else "??", mark))
    return named


def check_without_capture(results, label, elf):
    """A kernel built with CAPTURE=no links neither the raw capture nor the
    lookups of a table checked whole (nm), and scenario=call:, which needs
    them, says so and exits as a usage error."""
    names = {fields[2] for fields in (line.split() for line in
                                      run([CROSS + "nm", elf]).stdout.splitlines())
             if len(fields) == 3}
    left_out = {"tracer_capture", "tracer_prepare", "tracer_symtab_check",
                "tracer_unwind_table_check", "tracer_symtab_lookup", "tracer_symtab_find",
                "frame_pointer_run", "table_run"}
    results.check("%s: CAPTURE=no leaves out %s" % (label, ", ".join(sorted(left_out))),
                  "tracer_next" in names and not names & left_out,
                  "linked: %s" % sorted(names & left_out))
    console, _, problem, status = boot_with_status(elf, "scenario=call:chain_first")
    results.check("%s scenario=call:chain_first: explained (no lookup by name), QEMU exits %d"
                  % (label, EXIT_USAGE),
                  problem is None and status == EXIT_USAGE and
                  "error: no lookup by name: built with CAPTURE=no or SYMBOLS=no; asked for "
                  "'chain_first'" in console and "Call Trace" not in console,
                  "problem %s, exit %s\n%s" % (problem, status, console[-600:]))


def check_lto_kernel(results, label, elf, tracers):
    """An LTO kernel (LTO_BUILDS): nm says which function reached by name
    LTO kept; the traces equal GDB's."""
    names = {fields[2] for fields in (line.split() for line in
                                      run([CROSS + "nm", elf]).stdout.splitlines())
             if len(fields) == 3}
    results.check("%s: LTO kept lto_named_entry (used) and dropped lto_unkept_entry" % label,
                  "lto_named_entry" in names and "lto_unkept_entry" not in names,
                  "lto_* symbols: %s" % sorted(name for name in names if name.startswith("lto_")))
    for scenario, kind in LTO_SCENARIOS:
        check_scenario(results, label, elf, tracers, scenario, kind)


def check_scenarios(results, label, elf, tracers, scenario, kind, applies_to):
    check_scenario(results, label, elf,
                   [tracer for tracer in tracers if applies_to is None or tracer in applies_to],
                   scenario, kind)


# The kernels the argument errors are tried on besides gcc-O2-fp1's exit
# statuses: the parser is the same code in every build, the choices it
# lists each build's own (clang's, and gcc -O0's without CFI).
BAD_ARGUMENT_KERNELS = ["clang-O2-fp0", "gcc-O0-nocfi"]


def check_arguments(results, label, elf, variables):
    check_default_tracer(results, label, elf)
    if label == "gcc-O2-fp1":
        check_tracer_aliases(results, label, elf)
        check_exit_status(results, label, elf, variables)
    elif label in BAD_ARGUMENT_KERNELS:
        check_bad_arguments(results, label, elf)


def check_without_lines(results, with_lines):
    """A kernel built without -g (-g0 after it) prints what the tracer
    printed before it had lines: the trace of with_lines (the gcc-O2-fp1
    kernel, the same code: GCC makes the same code with and without -g)
    with its places and [inlined] lines taken out, line for line."""
    without_debug = build(results, "gcc-O2-fp1-g0", ["DEBUG_CFLAGS=-g0", "OPT=-O2", "FP=1"])
    if without_debug is None:
        return
    traces = []
    for elf in (with_lines, without_debug):
        console, _, problem = boot(elf, "scenario=load-fault")
        lines = [line.rstrip("\r") for line in console.splitlines()]
        start = next((i for i, line in enumerate(lines) if line.startswith("Call Trace")), None)
        end = next((i for i, line in enumerate(lines) if line.startswith("End of trace")), None)
        traces.append(lines[start:end + 1] if problem is None and None not in (start, end)
                      else None)
    with_lines, without_debug = traces
    stripped = [re.sub(r" \([^ ()]+:\d+\)", "", line) for line in with_lines or []
                if not INLINED_RE.match(line)]
    results.check("a kernel built without -g prints the -g kernel's trace without its "
                  "places and inlined calls, line for line",
                  with_lines is not None and with_lines != stripped and
                  stripped == without_debug,
                  "\n".join(map(str, (with_lines, without_debug))))


def run_all(results: Results, built=lambda kernels: None, boots=True):
    """Returns [(label, kernel.elf)] of the builds, for the symgen tests;
    calls built() with them as soon as they are built, before the boots
    (none if not `boots`: the kernels for other groups only). The builds
    run side by side, then the boots (a thread per kernel and tracer)."""
    builds = in_parallel(
        [functools.partial(build, results, label, variables) for label, variables, _ in CONFIGS]
        + [functools.partial(build, results, label, variables, UNWINDER_SET_CODE)
           for label, variables, _, _ in UNWINDER_SETS]
        + [functools.partial(build, results, label, variables, LTO_CODE)
           for label, variables, _ in LTO_BUILDS]
        + [functools.partial(build, results, label, variables, RV32_CODE)
           for label, variables, _, _ in RV32_BUILDS]
        + [functools.partial(build, results, label, variables, "")
           for label, variables, _ in SMALLEST_BUILDS]
        + [functools.partial(check_moved_code_fails_build, results),
           functools.partial(check_concurrent_builds, results),
           functools.partial(check_missing_cfi_fails_build, results)])
    kernels = [("kernel-" + label, elf) for (label, _, _), elf in zip(CONFIGS, builds) if elf]
    # rv32 kernels too, for the host tools' checks of ELF32 images: gcc's
    # and clang's at -O2 (RV32_TOOLS_KERNELS), for make test's time.
    kernels += [("kernel-" + label, elf) for (label, _, _, _), elf in zip(
        RV32_BUILDS, builds[len(CONFIGS) + len(UNWINDER_SETS) + len(LTO_BUILDS):])
        if elf and label in RV32_TOOLS_KERNELS]
    built(kernels)
    if not boots:
        return kernels
    tasks = []
    for (label, variables, tracers), elf in zip(CONFIGS, builds):
        if elf and label == "gcc-O2-fp1":
            tasks.append(functools.partial(check_without_lines, results, elf))
        if elf:
            tasks += [functools.partial(check_scenarios, results, label, elf, tracers, scenario,
                                        kind, applies_to)
                      for scenario, kind, applies_to in SCENARIOS]
            tasks.append(functools.partial(check_arguments, results, label, elf, variables))
    for (label, _, tracers, unlinked), elf in zip(UNWINDER_SETS, builds[len(CONFIGS):]):
        if elf:
            tasks.append(functools.partial(check_unwinder_set, results, label, elf, tracers,
                                           unlinked))
    for (label, variables, tracers), elf in zip(SMALLEST_BUILDS, builds[
            len(CONFIGS) + len(UNWINDER_SETS) + len(LTO_BUILDS) + len(RV32_BUILDS):]):
        if elf:
            tasks.append(functools.partial(check_smallest, results, label, elf, tracers,
                                           "SYMBOLS=no" in variables))
    for (label, _, tracers), elf in zip(LTO_BUILDS,
                                        builds[len(CONFIGS) + len(UNWINDER_SETS):]):
        if elf:
            tasks.append(functools.partial(check_lto_kernel, results, label, elf, tracers))
    for (label, _, tracers, chosen), elf in zip(
            RV32_BUILDS, builds[len(CONFIGS) + len(UNWINDER_SETS) + len(LTO_BUILDS):]):
        if elf:
            tasks += [functools.partial(check_scenarios, results, label, elf, tracers, scenario,
                                        kind, applies_to)
                      for scenario, kind, applies_to in SCENARIOS
                      if chosen is None or scenario in chosen]
    in_parallel(tasks)
    return kernels

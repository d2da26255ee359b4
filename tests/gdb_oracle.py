# gdb_oracle.py - runs inside gdb-multiarch (gdb -x), attached to QEMU's
# gdbstub, and prints the frames GDB sees, one per line:
#
#     FRAMES <label>
#     INLINE <function name or ??> <file:line or ??>   (issue 19)
#     FRAME <pc hex> <function name or ??> <file:line or ??>
#     TRAP <sepc hex> <scause hex> <stval hex>   (or mepc, mcause, mtval)
#     TRAPREGS ra=<hex> sp=<hex> s0=<hex> ... s11=<hex> sstatus=<hex>
#                                 (after TRAP, in S-mode: the interrupted registers)
#
# A machine frame's INLINE lines come before its FRAME line, innermost
# first, as GDB's bt lists them; each location is the one bt prints (the
# pc's line for the newest of a machine frame's frames, the call's line
# for the others, GDB's pc - 1 rule for return addresses).
#
# Call stop_at_panic() or stop_at_trap() (gdb -ex 'python stop_at_trap()'),
# stop_at_entry_then_panic("function"), or stop_at_traps([...]) and stop_at_panic_all_harts() for the panic-path
# scenarios (tests/panic_path_tests.py):
#
#     FRAMES hart<N>              (stop_at_panic_all_harts: every other hart)
#
# The kernel takes timer ticks, so the trap vector also runs for interrupts:
# a stop at a trap waits for the first trap that matches a condition.
import gdb

# scause of an exception: the interrupt bit (the sign bit) clear.
EXCEPTION = "$scause >= 0"
# The trap CSRs a TRAP line prints: a supervisor-mode kernel's, or a
# machine-mode one's (tests/rtos_kernel_tests.py), with its EXCEPTION.
SUPERVISOR_CSRS = ("sepc", "scause", "stval")
MACHINE_CSRS = ("mepc", "mcause", "mtval")
MACHINE_EXCEPTION = "$mcause >= 0"


def location(frame):
    """The file:line GDB's bt prints for a frame, or ??."""
    sal = frame.find_sal()
    if sal.symtab is None or not sal.line:
        return "??"
    return "%s:%d" % (sal.symtab.filename, sal.line)


def print_frames(label):
    """Prints GDB's backtrace from the newest frame.

    GDB shows a function inlined into another as an extra frame with the
    same pc: an INLINE line. The tracer's unwinders see machine frames, so
    each FRAME line is one, named by the function that owns its code."""
    print("FRAMES %s" % label)
    frame = gdb.newest_frame()
    count = 0
    while frame is not None and count < 200:
        name = frame.name() or "??"
        if frame.type() == gdb.INLINE_FRAME:
            print("INLINE %s %s" % (name, location(frame)))
        else:
            print("FRAME 0x%x %s %s" % (frame.pc(), name, location(frame)))
            count += 1
        try:
            frame = frame.older()
        except gdb.error:
            break


def register(name):
    """The register's bits, unsigned (GDB's type of a CSR is signed; on rv32
    it is 32 bits wide)."""
    value = gdb.parse_and_eval("$" + name)
    return int(value) & ((1 << 8 * value.type.sizeof) - 1)


def stop_at_panic():
    """Backtrace at the entry of panic()."""
    gdb.execute("break *panic", to_string=True)
    gdb.execute("continue", to_string=True)
    print_frames("panic")
    gdb.execute("delete", to_string=True)


def stop_at_entry_then_panic(function):
    """Backtrace at the first instruction of `function` (label "entry"),
    then at panic(): for a scenario that damages frames after its entry,
    the first is the truth about the frames above it."""
    gdb.execute("break *%s" % function, to_string=True)
    gdb.execute("continue", to_string=True)
    print_frames("entry")
    gdb.execute("delete", to_string=True)
    stop_at_panic()


def jump_to_zero_at(function):
    """No backtrace: a wild jump at the first instruction of `function`, pc
    set to 0 (nothing is mapped there), for a fault the kernel did not ask
    for."""
    gdb.execute("break *%s" % function, to_string=True)
    gdb.execute("continue", to_string=True)
    gdb.execute("set $pc = 0")
    gdb.execute("delete", to_string=True)


# The registers the demo's trap frame saves that the fault report prints
# (tracer_format_fault), besides sepc, scause and stval.
TRAP_REGISTERS = ["ra", "sp"] + ["s%d" % i for i in range(12)] + ["sstatus"]


def print_trap(label, condition, vector="trap_entry", csrs=SUPERVISOR_CSRS):
    """At the first instruction of the trap vector (`vector`), every general register
    still holds the interrupted value; only pc has moved to the vector. With
    pc set back to sepc (csrs: the epc, cause and tval CSRs' names), GDB's
    view is exactly that of a breakpoint on the interrupted instruction.
    Then the pc is restored."""
    gdb.execute("break *%s if %s" % (vector, condition), to_string=True)
    gdb.execute("continue", to_string=True)
    sepc = register(csrs[0])
    print("TRAP 0x%x 0x%x 0x%x" % (sepc, register(csrs[1]), register(csrs[2])))
    if csrs == SUPERVISOR_CSRS:
        print("TRAPREGS " + " ".join("%s=0x%x" % (name, register(name))
                                     for name in TRAP_REGISTERS))
    vector = register("pc")
    gdb.execute("set $pc = %d" % sepc)
    print_frames(label)
    # Without this, GDB 13 may write the restored pc into ra (the register
    # its frame-1 unwind of a leaf cached as the pc): the kernel would then
    # see ra changed under it.
    gdb.execute("maintenance flush register-cache", to_string=True)
    gdb.execute("set $pc = %d" % vector)
    gdb.execute("delete", to_string=True)


def stop_at_trap(vector="trap_entry", condition=EXCEPTION, csrs=SUPERVISOR_CSRS):
    """GDB's bt at the first trap taken through `vector` that matches
    condition (by default an exception: a fault), then at panic()."""
    print_trap("trap", condition, vector, csrs)
    stop_at_panic()


def stop_at_traps(conditions):
    """GDB's bt at each trap, in the order they happen: the first trap that
    matches conditions[0] (labelled trap0), then conditions[1], ...; then
    stop_at_panic_all_harts()."""
    for i, condition in enumerate(conditions):
        print_trap("trap%d" % i, condition)
    stop_at_panic_all_harts()


def stop_at_panic_all_harts():
    """stop_at_panic(), then the backtrace of every other hart as it is at
    that moment (QEMU shows hart N as thread N + 1). A hart stopped by the
    panic's IPI is interrupted close to there: in an idle loop its frames
    above the first do not change."""
    gdb.execute("break *panic", to_string=True)
    gdb.execute("continue", to_string=True)
    print_frames("panic")
    gdb.execute("delete", to_string=True)
    selected = gdb.selected_thread()
    for thread in sorted(gdb.selected_inferior().threads(), key=lambda t: t.ptid[1]):
        if thread.ptid == selected.ptid:
            continue
        thread.switch()
        print_frames("hart%d" % (thread.ptid[1] - 1))
    selected.switch()


# What serve() prints after each boot's answer.
SERVED = "GDB-ORACLE-SERVED"


def serve(fd):
    """Answers one boot after another, so that one GDB serves many (starting
    GDB costs about what a boot does). Each line read from the file
    descriptor fd is 'PORT<tab>ELF<tab>RELOAD<tab>STATEMENT': load ELF
    (RELOAD 1: a new file, or one rebuilt), attach to QEMU's gdbstub on
    PORT, run the Python STATEMENT (a call of the functions above), detach
    (QEMU runs on), then print SERVED. Returns at the end of the input."""
    for line in open(fd):
        port, elf, reload, statement = line.rstrip("\n").split("\t", 3)
        try:
            gdb.execute("delete", to_string=True)
            if reload == "1":
                gdb.execute("file " + elf)
            gdb.execute("target remote 127.0.0.1:" + port)
            gdb.execute("python " + statement)
        except gdb.error as error:
            print(error)
        finally:
            try:
                gdb.execute("detach")
            except gdb.error as error:
                print(error)
        print(SERVED)
        gdb.flush()

# gdb_oracle.py - runs inside gdb-multiarch (gdb -x), attached to QEMU's
# gdbstub, and prints the frames GDB sees, one per line:
#
#     FRAMES <label>
#     FRAME <pc hex> <function name or ??>
#     TRAP <sepc hex> <scause hex> <stval hex>
#
# Call stop_at_panic() or stop_at_trap() (gdb -ex 'python stop_at_trap()').
import gdb


def print_frames(label):
    """Prints GDB's backtrace from the newest frame, real frames only.

    GDB shows a function inlined into another as an extra frame with the
    same pc. The tracer sees machine frames, so inline frames are skipped
    and each real frame is named by the function that owns its code."""
    print("FRAMES %s" % label)
    frame = gdb.newest_frame()
    count = 0
    while frame is not None and count < 200:
        if frame.type() != gdb.INLINE_FRAME:
            name = frame.name() or "??"
            print("FRAME 0x%x %s" % (frame.pc(), name))
            count += 1
        try:
            frame = frame.older()
        except gdb.error:
            break


def register(name):
    return int(gdb.parse_and_eval("$" + name)) & 0xFFFFFFFFFFFFFFFF


def stop_at_panic():
    """Backtrace at the entry of panic()."""
    gdb.execute("break *panic", to_string=True)
    gdb.execute("continue", to_string=True)
    print_frames("panic")
    gdb.execute("delete", to_string=True)


def stop_at_trap():
    """At the first instruction of the trap vector, every general register
    still holds the interrupted value; only pc has moved to the vector. With
    pc set back to sepc, GDB's view is exactly that of a breakpoint on the
    faulting instruction. Then the pc is restored and panic() awaited."""
    gdb.execute("break *trap_entry", to_string=True)
    gdb.execute("continue", to_string=True)
    sepc = register("sepc")
    print("TRAP 0x%x 0x%x 0x%x" % (sepc, register("scause"), register("stval")))
    vector = register("pc")
    gdb.execute("set $pc = %d" % sepc)
    print_frames("trap")
    gdb.execute("set $pc = %d" % vector)
    gdb.execute("delete", to_string=True)
    stop_at_panic()

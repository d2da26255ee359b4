"""GDB across trap frames: with scripts/gdb/trap_frames.py loaded (as make
gdb loads it), GDB's `bt` at panic() lists the frames the tracer printed,
across every trap separator: the same functions and return addresses, into
the interrupted code. Frame 0 compares names only (GDB stops at panic's
first instruction, the tracer captured its registers later). Each trap
entry's line in bt shows the CSRs of the tracer's separator.

Stopped at the trap vector's first instruction, bt with the script lists
the entry, then what gdb_oracle.py's view of the trap shows (pc set back to
sepc: a breakpoint on the interrupted instruction).

The scenarios: a fault on the task stack (the trap frame below the faulting
code), a panic in the timer interrupt (the interrupt stack, above the task
stack: GDB stops a backtrace of normal frames where a caller lies below its
callee), a fault in that interrupt (two traps), and a stack overflow (the
trap entry moves to the panic stack). And the check that this test can
fail: without the script, GDB's bt ends at the trap entry.

The tracer's output and the oracle's view are the references; the script in
GDB is what is tested. Each boot runs its own GDB (the e2e tests' shared
GDB sessions must not load the script: their oracle stops at the entry).
"""
import functools
import os
import re
import subprocess
import tempfile
import time

from e2e_tests import (CAUSE_NAMES, QEMU_TIMEOUT, cause_of_xlen64, TRAP_RE, compare_frames, gdb_listener,
                       parse_gdb, parse_trace, qemu_argv)
from panic_path_tests import symbol_address
from testlib import ROOT, Popen, Results, in_parallel, job_slot, profile

SCRIPT = os.path.join(ROOT, "scripts", "gdb", "trap_frames.py")
ORACLE = os.path.join(ROOT, "tests", "gdb_oracle.py")
# e2e_tests.CONFIGS labels, and the scenarios each boots: every scenario on
# one kernel; on clang's and on one without .eh_frame (GDB then reads the
# compiler's .debug_frame), the fault in the interrupt (both kinds of trap)
# and the move to the panic stack; on rv32 (e2e_tests.RV32_BUILDS), the
# fault in the interrupt.
KERNELS = {
    "gcc-O2-fp1": ["load-fault", "timer-panic", "timer-fault", "stack-overflow"],
    "clang-O2-fp0": ["timer-fault", "stack-overflow"],
    "gcc-O2-nocfi": ["timer-fault", "stack-overflow"],
    "rv32-gcc-O2-fp1": ["timer-fault"],
}
WITHOUT_SCRIPT_KERNEL = "gcc-O2-fp1"
# gdb_oracle.py conditions: the trap each scenario's vector view stops at.
EXCEPTION = "$scause >= 0"
ARMED_TICK = "$scause < 0 && timer_tick_hook != 0"
FIRST_TRAP = {"load-fault": EXCEPTION, "stack-overflow": EXCEPTION,
              "timer-panic": ARMED_TICK, "timer-fault": ARMED_TICK}
# The script's line for a trap entry's frame in bt (the trap's CSRs).
BT_TRAP_RE = re.compile(r"^#\d+ +trap_entry \(scause=0x([0-9a-f]+), sepc=0x([0-9a-f]+)"
                        r"(?: <\S+>)?, stval=0x([0-9a-f]+)\) at kernel/trap_entry\.S:\d+$")


def boot_with_gdb(elf, scenario, with_script, commands):
    """(console, GDB's output, problem or None) of a boot whose GDB, with or
    without the script, runs the commands (gdb_oracle.py's functions), then
    detaches: the kernel goes on to print its trace and power off."""
    listener = gdb_listener()
    port = listener.getsockname()[1]
    qemu_args = qemu_argv(elf, "scenario=" + scenario) + [
        "-S", "-chardev", "socket,id=gdb,server=on,wait=off,nodelay=on,fd=%d"
        % listener.fileno(), "-gdb", "chardev:gdb"]
    gdb_args = (["gdb-multiarch", "-batch", "-nx", "-ex", "set pagination off",
                 "-ex", "set width 0", "-ex", "file " + elf]
                + (["-x", SCRIPT] if with_script else [])
                + ["-x", ORACLE, "-ex", "target remote 127.0.0.1:%d" % port]
                + [word for command in commands + ["detach"] for word in ("-ex", command)])
    problem, gdb_out = None, ""
    with job_slot(), tempfile.TemporaryFile("w+") as console:
        start = time.monotonic()
        qemu = Popen(qemu_args, stdin=subprocess.DEVNULL, stdout=console,
                     stderr=subprocess.STDOUT, pass_fds=[listener.fileno()])
        listener.close()
        gdb = Popen(gdb_args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT, text=True, errors="replace")
        try:
            gdb_out = gdb.communicate(timeout=QEMU_TIMEOUT)[0]
            qemu.wait(timeout=QEMU_TIMEOUT)
        except subprocess.TimeoutExpired:
            problem = "timed out after %d s" % QEMU_TIMEOUT
        finally:
            for process, argv in ((gdb, gdb_args), (qemu, qemu_args)):
                if process.poll() is None:
                    process.kill()
                    process.communicate()
                profile(argv, start, process)
        console.seek(0)
        return console.read(), gdb_out, problem


# The README's sample of bt with the script (its "make gdb" paragraph): the
# lines of this boot's bt it shows, hex numbers masked.
README_SAMPLE = ("gcc-O2-fp1", "timer-fault")
README_SAMPLE_INTRO = "At `break panic` in `scenario=timer-fault`:"
HEX = re.compile(r"0x[0-9a-f]+")


def readme_bt_sample():
    """The README's sample lines (between its ``` fences after the intro)."""
    text = open(os.path.join(ROOT, "README.md")).read()
    start = text.find(README_SAMPLE_INTRO)
    block = re.search(r"```\n(.*?)```", text[start:], re.S) if start >= 0 else None
    return block.group(1).splitlines() if block else []


def check_readme_sample(results, gdb_out):
    sample = readme_bt_sample()
    real = {line.split()[0]: line for line in gdb_out.splitlines() if re.match(r"#\d+ ", line)}
    shown = [real.get(line.split()[0], "") for line in sample if line.split()]
    results.check("README.md's sample of bt with trap_frames.py is this boot's (%s %s), hex "
                  "numbers masked" % README_SAMPLE,
                  sample and [HEX.sub("0x", line) for line in sample] ==
                  [HEX.sub("0x", line) for line in shown],
                  "the real lines (paste them into README.md):\n" + "\n".join(shown))


def check_scenario(results, label, elf, scenario):
    name = "GDB with trap_frames.py, %s %s" % (label, scenario)
    commands = ["python print_trap('trap', '%s')" % FIRST_TRAP[scenario],
                "python print_frames('vector')", "python stop_at_panic()", "bt"]
    console, gdb_out, problem = boot_with_gdb(elf, scenario, True, commands)
    trace = parse_trace(console)
    views = parse_gdb(gdb_out)[0]
    frames = views.get("panic")
    if not results.check(name + ": QEMU and GDB ran, a trace across a trap was printed",
                         problem is None and trace["end"] is not None and not trace["bad"]
                         and trace["trap"] is not None and frames is not None
                         and "bt crosses trap frames" in gdb_out,
                         "problem: %s\nconsole tail:\n%s\nGDB:\n%s"
                         % (problem, console[-1500:], gdb_out[-1500:])):
        return
    if (label, scenario) == README_SAMPLE:
        check_readme_sample(results, gdb_out)
    printed = trace["before"] + trace["after"]
    problems = compare_frames(printed, frames, False)
    results.check(name + ": bt at panic() lists the tracer's frames, across the traps",
                  not problems, "\n".join(problems))
    # Each trap entry's line in bt: the CSRs of the tracer's separator.
    separators = [TRAP_RE.match(line.rstrip("\r")) for line in console.splitlines()]
    separators = [(m.group(1), int(m.group(2), 16), int(m.group(3), 16))
                  for m in separators if m]
    shown = [BT_TRAP_RE.match(line) for line in gdb_out.splitlines()]
    shown = [(CAUSE_NAMES.get(cause_of_xlen64(int(m.group(1), 16))), int(m.group(2), 16), int(m.group(3), 16))
             for m in shown if m]
    results.check(name + ": bt names each trap entry with the CSRs of the tracer's separator",
                  shown == separators, "bt %s\ntracer %s" % (shown, separators))
    # At the vector: the entry, then the oracle's view of the trap.
    vector, oracle = views.get("vector", []), views.get("trap", [])
    entry = [(symbol_address(elf, "trap_entry"), "trap_entry")]
    problems = compare_frames(vector, entry + oracle, True)
    results.check(name + ": bt at the trap vector lists the entry, then the interrupted frames",
                  oracle and not problems,
                  "\n".join(["left: bt with the script; right: the entry, then the oracle's"]
                            + problems) if problems else "no oracle view")


def check_without_script(results, label, elf):
    """What the script changes: without it, GDB's bt ends at the first trap
    entry, so the comparison above fails (the frames after it are missing)."""
    name = "GDB without trap_frames.py, %s timer-fault" % label
    console, gdb_out, problem = boot_with_gdb(elf, "timer-fault", False,
                                              ["python stop_at_panic()"])
    trace = parse_trace(console)
    frames = parse_gdb(gdb_out)[0].get("panic") or []
    printed = trace["before"] + trace["after"]
    results.check(name + ": bt ends at the trap entry, short of the tracer's frames",
                  problem is None and trace["after"] and frames
                  and not compare_frames(trace["before"], frames, False)
                  and compare_frames(printed, frames, False),
                  "problem: %s\nGDB:\n%s\nconsole tail:\n%s"
                  % (problem, gdb_out[-1500:], console[-1500:]))


def run_all(results: Results, kernels):
    """kernels: [(name, elf)] from e2e_tests.run_all."""
    elves = dict(kernels)
    checks = []
    for label, scenarios in KERNELS.items():
        elf = elves.get("kernel-" + label)
        if results.check("GDB across traps: kernel %s was built" % label, elf is not None):
            checks += [functools.partial(check_scenario, results, label, elf, scenario)
                       for scenario in scenarios]
    elf = elves.get("kernel-" + WITHOUT_SCRIPT_KERNEL)
    if elf:
        checks.append(functools.partial(check_without_script, results, WITHOUT_SCRIPT_KERNEL,
                                        elf))
    in_parallel(checks)

"""Shared helpers of the Python tests: result counting, running tools, and
running parts of the tests side by side."""
import contextlib
import io
import os
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOST_BUILD = os.path.join(ROOT, "build", "host")
TEST_BUILD = os.path.join(ROOT, "build", "test")
# The demo kernels' builds share the objects of kernel/ and tracer/ between
# those with equal compile flags (the Makefile's OBJ_CACHE): make test builds
# over twenty, many with the flags of another.
SHARED_OBJECTS = "OBJ_CACHE=" + os.path.join(TEST_BUILD, "objects")
# The cross binutils' prefix and the RISC-V GDB: those the Makefile found
# (it exports them), else Debian's.
CROSS = os.environ.get("CROSS_COMPILE", "riscv64-unknown-elf-")
GDB = os.environ.get("GDB", "gdb-multiarch")
# Commands that run at once (run(), boot()), whatever the number of threads
# waiting to run one: one per core, and one more, so that no core idles
# while a command waits (a boot for its GDB, a build for its files).
JOBS = (os.cpu_count() or 1) + 1
# TEST_VERBOSE=1 (make test V=1): a line for every check that passes, and
# the figures the checks measured (info()); else only failures and their
# details.
VERBOSE = os.environ.get("TEST_VERBOSE", "") not in ("", "0")


class Results:
    """Counts checks and prints one line per check, details under failures.
    Threads may share one."""

    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.lock = threading.Lock()

    def check(self, name, ok, detail=""):
        lines = ["%s %s" % ("PASS" if ok else "FAIL", name)]
        if not ok:
            lines += ["    " + line for line in str(detail).splitlines()]
        with self.lock:
            if ok:
                self.passed += 1
            else:
                self.failed += 1
        if not ok or VERBOSE:
            print("\n".join(lines), flush=True)
        return ok


def info(text):
    """A figure or a note a check measured (printed with TEST_VERBOSE)."""
    if VERBOSE:
        print(text, flush=True)


class ThreadOutput(io.TextIOBase):
    """sys.stdout for tests run side by side: what a thread prints goes to
    its buffer while it has one (captured()), else to the real stdout."""

    def __init__(self, stdout):
        super().__init__()
        self.stdout = stdout
        self.local = threading.local()

    def write(self, text):
        buffer = getattr(self.local, "buffer", None)
        if buffer is None:
            self.stdout.write(text)
        else:
            buffer.append(text)
        return len(text)

    def flush(self):
        self.stdout.flush()


_stdout_lock = threading.Lock()


def captured(function, *args):
    """(function(*args), what it printed); the printing held back until it
    returns (then the caller prints it), so that threads' lines do not mix.
    If it raises, what it printed is the exception's `printed`."""
    with _stdout_lock:
        if not isinstance(sys.stdout, ThreadOutput):
            sys.stdout = ThreadOutput(sys.stdout)
    local = sys.stdout.local
    outer, buffer = getattr(local, "buffer", None), []
    local.buffer = buffer
    try:
        return function(*args), "".join(buffer)
    except BaseException as error:
        error.printed = "".join(buffer)
        raise
    finally:
        local.buffer = outer


def in_parallel(tasks):
    """Runs each callable of tasks in a thread of its own and returns their
    values, in order. Each task's output is printed together, in the order
    of tasks, once all have returned. A task that raised raises here."""
    outcomes = [None] * len(tasks)

    def body(i):
        try:
            value, text = captured(tasks[i])
            outcomes[i] = (value, text, None)
        except BaseException as error:  # re-raised in the caller's thread
            outcomes[i] = (None, error.printed, error)

    group = current_group()
    threads = [threading.Thread(target=in_group, args=(group, body, i)) for i in range(len(tasks))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for value, text, error in outcomes:
        print(text, end="", flush=True)
    for value, text, error in outcomes:
        if error is not None:
            raise error
    return [value for value, text, error in outcomes]


_job_slots = threading.BoundedSemaphore(JOBS)
_holder = threading.local()


@contextlib.contextmanager
def job_slot():
    """Holds one of the JOBS slots while a command runs. A thread already
    holding one (boot(): QEMU, then GDB beside it) does not take another."""
    if getattr(_holder, "slot", False):
        yield
        return
    with _job_slots:
        _holder.slot = True
        try:
            yield
        finally:
            _holder.slot = False


# The unwinder sets a kernel may link (make UNWINDERS=...), as make names
# them: the two smallest, the pair, and all (the default).
UNWINDER_SETS = [["frame-pointer"], ["table"], ["frame-pointer", "table"],
                 ["frame-pointer", "table", "dwarf", "prologue"]]


def tracer_sources(unwinders, lines=True, fault_report=True, capture=True, symbols=True):
    """What symgen/tracer_sources.mk compiles for these unwinders (and the
    line table, unless lines is False: TRACER_LINES=no; the fault report,
    unless fault_report is False: TRACER_FAULT_REPORT=no; the raw capture,
    unless capture is False: TRACER_CAPTURE=no; the symbol table, unless
    symbols is False: TRACER_SYMBOLS=no): (the tracer/*.c paths, the -D
    flags)."""
    script = ("include symgen/tracer_sources.mk\n"
              "print:\n\t@echo $(TRACER_SOURCES)\n\t@echo $(TRACER_UNWINDER_FLAGS)\n")
    result = run(["make", "-s", "--no-print-directory", "-f", "-", "print",
                  "TRACER_UNWINDERS=" + " ".join(unwinders),
                  "TRACER_LINES=" + ("yes" if lines else "no"),
                  "TRACER_FAULT_REPORT=" + ("yes" if fault_report else "no"),
                  "TRACER_CAPTURE=" + ("yes" if capture else "no"),
                  "TRACER_SYMBOLS=" + ("yes" if symbols else "no")], input=script)
    sources, flags = (result.stdout.splitlines() + ["", ""])[:2]
    return [os.path.normpath(os.path.join(ROOT, s)) for s in sources.split()], flags.split()


# Programs that only read their files: the same command on the same files
# (unchanged since) prints the same, so run() answers it again from memory
# (many checks read one kernel with nm or readelf).
READ_ONLY_TOOLS = {CROSS + "nm", CROSS + "readelf", CROSS + "objdump"}
# Outputs kept at most this long (readelf's dumps of DWARF can be megabytes).
REMEMBERED_OUTPUT_MAX = 1 << 20
_remembered = {}
_remembered_lock = threading.Lock()


def files_read(argv, cwd):
    """The identity of each argument that names a file, as it is now."""
    identity = []
    for arg in argv[1:]:
        path = os.path.join(cwd, arg)
        if os.path.isfile(path):
            stat = os.stat(path)
            identity.append((path, stat.st_ino, stat.st_size, stat.st_mtime_ns))
    return tuple(identity)


def run(argv, timeout=60, **kwargs):
    """Runs a command, capturing text output; never raises on exit status.
    The timeout counts from its start, not from the wait for a job slot.
    A READ_ONLY_TOOLS command run before on the same files is not run again."""
    if argv[0] in READ_ONLY_TOOLS and set(kwargs) <= {"cwd"}:
        key = (tuple(argv), files_read(argv, kwargs.get("cwd", ROOT)))
        with _remembered_lock:
            if key in _remembered:
                return _remembered[key]
        result = run_command(argv, timeout, **kwargs)
        if len(result.stdout) + len(result.stderr) <= REMEMBERED_OUTPUT_MAX:
            with _remembered_lock:
                _remembered[key] = result
        return result
    return run_command(argv, timeout, **kwargs)


def run_command(argv, timeout, **kwargs):
    with job_slot():
        start = time.monotonic()
        with Popen(argv, stdin=subprocess.PIPE if "input" in kwargs else None,
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace",
                   cwd=kwargs.pop("cwd", ROOT), **{k: v for k, v in kwargs.items()
                                                   if k != "input"}) as process:
            try:
                stdout, stderr = process.communicate(kwargs.get("input"), timeout=timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate()
                raise
            finally:
                profile(argv, start, process)
        return subprocess.CompletedProcess(argv, process.returncode, stdout, stderr)


# TEST_PROFILE=FILE: each command run() and boot() run appends a line to
# FILE: its group, wall seconds, CPU seconds (user + system, its children
# included) and argv; make test ends with their sums (profile_summary()).
PROFILE = os.environ.get("TEST_PROFILE")
_profile_lock = threading.Lock()
_group = threading.local()


def current_group():
    return getattr(_group, "name", "-")


def in_group(name, function, *args):
    """Calls function(*args) with current_group() == name, as in_parallel's
    threads do with their caller's group. With TEST_PROFILE, the thread's
    own CPU time is the group's command "(python)"."""
    _group.name = name
    cpu = time.thread_time()
    try:
        return function(*args)
    finally:
        if PROFILE:  # no wall time: the thread mostly waits
            with _profile_lock, open(PROFILE, "a") as out:
                out.write("%s\t0\t%.2f\t(python)\n" % (name, time.thread_time() - cpu))


class Popen(subprocess.Popen):
    """subprocess.Popen that keeps the resources its process used
    (os.wait4), for TEST_PROFILE."""
    cpu = 0.0

    def _try_wait(self, wait_flags):
        try:
            pid, status, usage = os.wait4(self.pid, wait_flags)
        except ChildProcessError:
            return self.pid, 0
        if pid:
            self.cpu = usage.ru_utime + usage.ru_stime
        return pid, status


def profile(argv, start, process):
    if not PROFILE:
        return
    summary = " ".join(os.path.relpath(a, ROOT) if a.startswith(ROOT) else a
                       for a in argv)[:300].replace("\n", " ")
    with _profile_lock, open(PROFILE, "a") as out:
        out.write("%s\t%.2f\t%.2f\t%s\n" % (current_group(), time.monotonic() - start,
                                             process.cpu, summary))


def profile_summary():
    """TEST_PROFILE's lines summed by group and by group and program: the
    commands, their wall and CPU seconds, the most CPU first."""
    sums = {}
    for line in open(PROFILE):
        group, wall, cpu, command = line.rstrip("\n").split("\t")
        program = os.path.basename(command.split()[0]) if command.split() else "?"
        for key in ((group,), (group, program)):
            count, walls, cpus = sums.get(key, (0, 0.0, 0.0))
            sums[key] = (count + 1, walls + float(wall), cpus + float(cpu))
    lines = ["profile: commands, wall s, CPU s"]
    by_cpu = sorted(sums.items(), key=lambda item: -item[1][2])
    for (group, *_), (count, wall, cpu) in [item for item in by_cpu if len(item[0]) == 1]:
        lines.append("  %-40s %5d %8.1f %8.1f" % (group, count, wall, cpu))
        lines += ["      %-36s %5d %8.1f %8.1f" % ((key[1],) + value)
                  for key, value in by_cpu if len(key) == 2 and key[0] == group]
    return "\n".join(lines)


def link_libgcc_whole(flags, elf):
    """Links the toolchain's whole libgcc.a for gcc `flags` into one image,
    elf, so that its code and CFI are relocated. Returns (archive, result)."""
    gcc = CROSS + "gcc"
    archive = run([gcc] + flags + ["-print-libgcc-file-name"]).stdout.strip()
    result = run([gcc] + flags + [
        "-nostdlib", "-nostartfiles", "-Wl,--whole-archive", archive, "-Wl,--no-whole-archive",
        "-Wl,--unresolved-symbols=ignore-all", "-Wl,-e,0", "-Wl,--no-warn-rwx-segments",
        "-o", elf], timeout=120)
    return archive, result

"""The build on another host's tools, and what it prints: a cross
toolchain and a GDB named as Arch's and Homebrew's packages name them
(riscv64-elf-gcc, riscv64-elf-gdb), found on PATH without being named,
with Debian's names (and apt-get) hidden; make's short build lines, and
V=1's commands; the dependency check's message when a tool is missing."""
import os
import re
import shutil

from testlib import ROOT, Results, run

WORK = os.path.join(ROOT, "build", "test-host")
# A PATH without Debian's names: links to every program of the real PATH
# but these, and the toolchain and GDB under Arch's names.
HIDDEN = re.compile(r"^(riscv64-unknown-elf-.*|gdb-multiarch|apt-get)$")
OTHER_PREFIX = "riscv64-elf-"
# The kernel built: small, for a cheap build (a few seconds of CPU).
KERNEL_VARIABLES = ["UNWINDERS=frame-pointer", "LINES=no", "DEBUG_CFLAGS="]
SHORT_LINE = re.compile(r"^  [A-Z]+ +\S+$")
# The timeout of a QEMU run, far above the second a boot takes.
QEMU_TIMEOUT = 60


def other_host_path():
    """A directory of links standing for another host's PATH."""
    directory = os.path.join(WORK, "path")
    os.makedirs(directory, exist_ok=True)
    for name in os.listdir(directory):
        os.unlink(os.path.join(directory, name))
    for bin_dir in os.environ["PATH"].split(os.pathsep):
        if not os.path.isdir(bin_dir):
            continue
        for name in os.listdir(bin_dir):
            program = os.path.join(bin_dir, name)
            if name.startswith("riscv64-unknown-elf-"):
                link = OTHER_PREFIX + name[len("riscv64-unknown-elf-"):]
            elif name == "gdb-multiarch":
                link = OTHER_PREFIX + "gdb"
            else:
                link = name
            if HIDDEN.match(link) or os.path.lexists(os.path.join(directory, link)):
                continue
            if os.access(program, os.X_OK) and not os.path.isdir(program):
                os.symlink(program, os.path.join(directory, link))
    return directory


def clean_environment(path=None):
    """The environment of a make run by hand: nothing make test's make
    passes down (its flags, the tools it found)."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "CROSS_COMPILE", "GDB", "V")}
    if path:
        env["PATH"] = path
    return env


def check_other_prefix(results, path):
    """make, make V=1, make run and make -n debug with the riscv64-elf-
    tools only."""
    build = os.path.join(WORK, "kernel")
    shutil.rmtree(build, ignore_errors=True)
    env = clean_environment(path)
    built = run(["make", "BUILD=" + build] + KERNEL_VARIABLES, timeout=600, env=env)
    lines = built.stdout.splitlines()
    long_lines = [line for line in lines if not SHORT_LINE.match(line)]
    results.check("another prefix: make builds with riscv64-elf-gcc, found on PATH",
                  built.returncode == 0 and
                  open(os.path.join(build, "flags")).read().split()[0] == OTHER_PREFIX + "gcc",
                  "exit %d\n%s%s" % (built.returncode, built.stdout[-1500:], built.stderr[-1500:]))
    results.check("make prints a short line a step (  CC      kernel/main.c), nothing else",
                  built.returncode == 0 and not long_lines and built.stderr == "" and
                  "  CC      kernel/main.c" in lines and "  AS      kernel/entry.S" in lines and
                  "  LD      %s/kernel.elf" % build in lines,
                  "lines not short:\n%s\nstderr:\n%s" % ("\n".join(long_lines[:20]),
                                                         built.stderr[-1000:]))
    # main.c's object removed, not make -W (which a sub-make is not given).
    os.remove(os.path.join(build, "obj", "kernel", "main.c.o"))
    verbose = run(["make", "BUILD=" + build, "V=1"] + KERNEL_VARIABLES, timeout=600, env=env)
    commands = verbose.stdout.splitlines()
    results.check("make V=1 prints the commands (the compiler's, with its flags), no short line",
                  verbose.returncode == 0 and
                  any(line.startswith(OTHER_PREFIX + "gcc -std=c11 ") and
                      line.endswith("-c kernel/main.c -o %s/obj/kernel/main.c.o" % build)
                      for line in commands) and
                  not any(SHORT_LINE.match(line) for line in commands),
                  verbose.stdout[-2000:] + verbose.stderr[-1000:])
    booted = run(["make", "run", "BUILD=" + build, "ARGS=scenario=panic"] + KERNEL_VARIABLES,
                 timeout=QEMU_TIMEOUT, env=env)
    results.check("another prefix: make run boots the kernel and prints its trace",
                  "Call Trace (auto unwinder):" in booted.stdout and
                  "End of trace: reached the outermost frame" in booted.stdout,
                  booted.stdout[-2000:] + booted.stderr[-1000:])
    debug = run(["make", "-n", "debug", "BUILD=" + build] + KERNEL_VARIABLES, env=env)
    results.check("another prefix: make debug names riscv64-elf-gdb, found on PATH",
                  debug.returncode == 0 and ("%sgdb -ex 'file %s/kernel.elf'"
                                             % (OTHER_PREFIX, build)) in debug.stdout,
                  debug.stdout[-1500:] + debug.stderr[-1000:])


def check_missing_tools(results, path):
    """A missing tool stops the build before it starts, named with the
    variable that names it: on this (Debian) host, one Debian does not
    package is not installed; on a host without apt-get, the message lists
    other systems' packages, and nothing is installed."""
    build = os.path.join(WORK, "missing")
    shutil.rmtree(build, ignore_errors=True)
    for label, env, goal, variable, message in [
            ("Debian", clean_environment(), [], "CC=nonexistent",
             "Debian has no package of these names"),
            ("no apt-get", clean_environment(path), [], "CC=nonexistent", "Fedora: dnf install"),
            ("no apt-get", clean_environment(path), ["run"], "QEMU=qemu-system-nonexistent",
             "Arch:   pacman -S")]:
        result = run(["make", "BUILD=" + build] + goal + [variable], env=env)
        output = result.stdout + result.stderr
        what = "make run" if goal else "the build"
        results.check("%s host, %s: make%s fails, says it is missing for %s, installs nothing"
                      % (label, variable, "".join(" " + word for word in goal), what),
                      result.returncode != 0 and "missing for %s:" % what in output and
                      variable in output and message in output and
                      "installing" not in output and "present" not in output and
                      not os.path.exists(os.path.join(build, "flags")),
                      "exit %d\n%s" % (result.returncode, output[-1500:]))


def run_all(results: Results):
    path = other_host_path()
    check_other_prefix(results, path)
    check_missing_tools(results, path)

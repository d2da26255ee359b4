"""Shared helpers of the Python tests: result counting and running tools."""
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOST_BUILD = os.path.join(ROOT, "build", "host")
TEST_BUILD = os.path.join(ROOT, "build", "test")
CROSS = "riscv64-unknown-elf-"


class Results:
    """Counts checks and prints one line per check, details under failures."""

    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, name, ok, detail=""):
        if ok:
            self.passed += 1
            print("PASS %s" % name, flush=True)
        else:
            self.failed += 1
            print("FAIL %s" % name, flush=True)
            for line in str(detail).splitlines():
                print("    " + line, flush=True)
        return ok


# The unwinder sets a kernel may link (make UNWINDERS=...), as make names
# them: the two smallest, the pair, and all (the default).
UNWINDER_SETS = [["frame-pointer"], ["table"], ["frame-pointer", "table"],
                 ["frame-pointer", "table", "dwarf", "prologue"]]


def tracer_sources(unwinders):
    """What symgen/tracer_sources.mk compiles for these unwinders: (the
    tracer/*.c paths, the -D flags)."""
    script = ("include symgen/tracer_sources.mk\n"
              "print:\n\t@echo $(TRACER_SOURCES)\n\t@echo $(TRACER_UNWINDER_FLAGS)\n")
    result = run(["make", "-s", "--no-print-directory", "-f", "-", "print",
                  "TRACER_UNWINDERS=" + " ".join(unwinders)], input=script)
    sources, flags = (result.stdout.splitlines() + ["", ""])[:2]
    return [os.path.normpath(os.path.join(ROOT, s)) for s in sources.split()], flags.split()


def run(argv, timeout=60, **kwargs):
    """Runs a command, capturing text output; never raises on exit status."""
    return subprocess.run(argv, capture_output=True, text=True, errors="replace", timeout=timeout,
                          cwd=kwargs.pop("cwd", ROOT), **kwargs)


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

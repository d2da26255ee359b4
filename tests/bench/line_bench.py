#!/usr/bin/env python3
"""The line table's layouts on size and lookup cost.

    tests/bench/line_bench.py [--layouts NAME,...] [--calls-only] OUT_DIR ELF...
    tests/bench/line_bench.py --bench OUT_DIR NAME=ELF...

With --bench (make bench), the layout symgen embeds, at return addresses,
in the form bench_tests.py reads, per kernel:
    bench line-table NAME <rows> rows <bytes> bytes <B> bytes/row
    bench inline-table NAME <bytes> bytes in the rows, <bytes> of records and names
    bench line-lookup NAME <N> instr/frame (lines <N>, inlined calls <N>), max <N>, stack <N> bytes
(the line table alone, without the inlined calls, is the one sized per
row: issue 19's 1.85 bytes; the inline table is what the calls add).

For each kernel and each layout of LAYOUTS: line_lookup's sizes (the line
table alone, and with inlined calls) and its check at every address (host
build, ASan+UBSan), then the instructions of the lookup and the walk of its
chain of inlined calls in the table with inlined calls on
rv64imac -O2 (tests/bench/line_bench.c under qemu-system-riscv64 -icount
shift=0) at two sets of pcs: each return address - 1 (a call: jal or jalr
that links ra, from objdump) and, unless --calls-only, every instruction
(objdump). Layouts named "-lines" time the line table alone. Prints one
line per kernel, layout and set (the average of the lookup and the chain
together, and of each), and the size lines.
"""
import os
import re
import subprocess
import sys

# The Makefile's prefix (it exports it), else Debian's.
CROSS = os.environ.get("CROSS_COMPILE", "riscv64-unknown-elf-")
LINE_LOOKUP = "build/host/line_lookup"
LAYOUTS = ([("bytes-%d" % size, ["--block", str(size)]) for size in (16, 20, 24, 28, 32, 40)]
           + [("bytes-28-lines", ["--block", "28", "--lines-alone"])])
CFLAGS = ["-std=c11", "-Wall", "-Wextra", "-Werror", "-O2", "-march=rv64imac_zicsr", "-mabi=lp64",
          "-mcmodel=medany", "-ffreestanding", "-fno-builtin", "-nostdlib", "-static",
          "-Itracer", "-Itests/bench", "-T", "tests/bench/line_bench.ld"]
INSTRUCTION_RE = re.compile(r"^\s*([0-9a-f]+):\s+([0-9a-f]+)\s+(\S+)\s*(\S*)", re.M)
BENCH_RE = re.compile(r"LINEBENCH lookups=(\d+) total=(\d+) max=(\d+) max_pc=([0-9a-f]+) "
                      r"stack=(\d+) wrong=(\d+) lines=(\d+) calls=(\d+)")


def run(command, **kwargs):
    return subprocess.run(command, capture_output=True, text=True, check=False, **kwargs)


def pcs_of(elf):
    """(each return address - 1, every instruction), from objdump."""
    calls, instructions = [], []
    text = run([CROSS + "objdump", "-d", elf]).stdout
    for address, encoding, mnemonic, operands in INSTRUCTION_RE.findall(text):
        address = int(address, 16)
        instructions.append(address)
        links_ra = ((mnemonic == "jal" and "," not in operands)
                    or (mnemonic == "jalr" and ("," not in operands
                                                or operands.startswith("ra,"))))
        if links_ra:
            calls.append(address + len(encoding) // 2 - 1)
    return calls, instructions


def bench(out_dir, elf, layout, options, pcs, label):
    source = os.path.join(out_dir, "%s-%s.c" % (layout, label))
    image = os.path.join(out_dir, "%s-%s.elf" % (layout, label))
    host = run([LINE_LOOKUP] + options + ["--emit-c", source, elf],
               input="".join("%x\n" % pc for pc in pcs))
    if host.returncode != 0:
        sys.exit("line_lookup failed:\n" + host.stdout[-2000:] + host.stderr[-2000:])
    build = run([CROSS + "gcc"] + CFLAGS + ["tests/bench/line_bench_start.S",
                                            "tests/bench/line_bench.c", "tracer/lines.c",
                                            source, "-o", image])
    if build.returncode != 0:
        sys.exit("build failed:\n" + build.stderr[-3000:])
    qemu = run(["qemu-system-riscv64", "-M", "virt", "-bios", "none", "-nographic",
                "-icount", "shift=0", "-kernel", image], timeout=600)
    found = BENCH_RE.search(qemu.stdout)
    if not found:
        sys.exit("no LINEBENCH line:\n" + qemu.stdout[-2000:] + qemu.stderr[-2000:])
    lookups, total, most, most_pc, stack, wrong, lines, calls = found.groups()
    return (host.stdout, int(lookups), int(total), int(most), most_pc, int(stack), int(wrong),
            int(lines), int(calls))


SIZE_RE = re.compile(r"^lines alone, block \d+ bytes: (\d+) rows, \d+ blocks .*?, (\d+) bytes "
                     r"\(page map \d+, stream \d+\), ([\d.]+) bytes per row$", re.M)
INLINE_RE = re.compile(r"^inline table: (\d+) bytes in the rows .*?, (\d+) of its header, "
                       r"records and names$", re.M)


def bench_lines(out_dir, named):
    """make bench's lines (the module's docstring) for NAME=ELF each."""
    for name, elf in (argument.split("=", 1) for argument in named):
        calls, _ = pcs_of(elf)
        host, lookups, total, most, _, stack, wrong, lines, _ = bench(
            out_dir, elf, "bytes-28", ["--block", "28"], calls, "calls")
        size, inline = SIZE_RE.search(host), INLINE_RE.search(host)
        if not size or not inline or wrong or not lookups:
            sys.exit("line_bench %s: no sizes, or %d wrong lookups:\n%s" % (elf, wrong, host))
        print("bench line-table %s %s rows %s bytes %s bytes/row" % ((name,) + size.groups()))
        print("bench inline-table %s %s bytes in the rows, %s of records and names"
              % ((name,) + inline.groups()))
        print("bench line-lookup %s %.1f instr/frame (lines %.1f, inlined calls %.1f), max %d, "
              "stack %d bytes" % (name, total / lookups, lines / lookups,
                                  (total - lines) / lookups, most, stack), flush=True)


def main():
    arguments = sys.argv[1:]
    if arguments[:1] == ["--bench"]:
        os.makedirs(arguments[1], exist_ok=True)
        bench_lines(arguments[1], arguments[2:])
        return
    layouts = LAYOUTS
    if arguments[:1] == ["--layouts"]:
        names = arguments[1].split(",")
        layouts = [layout for layout in LAYOUTS if layout[0] in names]
        arguments = arguments[2:]
    calls_only = arguments[:1] == ["--calls-only"]
    if calls_only:
        arguments = arguments[1:]
    out_dir, elves = arguments[0], arguments[1:]
    os.makedirs(out_dir, exist_ok=True)
    for elf in elves:
        calls, instructions = pcs_of(elf)
        for layout, options in layouts:
            size_lines = None
            sets = [("calls", calls)] + ([] if calls_only else [("all", instructions)])
            for label, pcs in sets:
                host, lookups, total, most, most_pc, stack, wrong, lines, walked = bench(
                    out_dir, elf, layout, options, pcs, label)
                size_lines = size_lines or [line for line in host.splitlines()
                                            if "bytes" in line]
                print("%s %s %s: %d lookups, average %.1f (lines %.1f, chain %.1f: %.2f "
                      "inlined calls a lookup), max %d (at 0x%s), stack %d, wrong %d"
                      % (elf, layout, label, lookups, total / lookups, lines / lookups,
                         (total - lines) / lookups, walked / lookups, most, most_pc, stack,
                         wrong), flush=True)
            for size_line in size_lines:
                print("%s %s size: %s" % (elf, layout, size_line), flush=True)


if __name__ == "__main__":
    main()

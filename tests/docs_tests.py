"""The docs against the code they describe, so that none goes stale unseen
(docs/testing.md, "What keeps the docs true"):

  * every relative link of every tracked .md file names a file that
    exists, and an anchor a heading of the file it names;
  * every .md file a tracked file mentions by path exists;
  * docs/layout.md names every tracked file, and no file that is not one;
  * every `make` target the README and docs/ show is the Makefile's; every
    scenario= and tracer= name is one the kernel lists (its own error
    output), every scenario=call:NAME a function of the test kernel;
  * the README's sample trace is what its command prints, hex addresses
    masked; its addr2line example, run on the real address of the frame it
    names, names that function; the panic and reserve-stack lines of
    design.md's panic-path cases are what those cases print;
  * the README's "Add your own code" example builds, boots and panics;
  * porting.md's TRACER_STACK_* table equals the headers' figures, and its
    hand build of symgen builds a symgen that runs; its ROM/RAM linker
    script fragment is tests/rtos_kernel/kernel_rom.ld's (which
    rtos_kernel_tests links), and the span symgen allows is symgen's;
  * Linux's decode_stacktrace.sh, as tests/decode_stacktrace_model.py
    models its parser, reads the trace lines of the real sample runs and a
    line of each shape docs/output-format.md's grammar allows as that
    model's check_lines() says (a frame's symbol, [inlined] lines passed
    through, the location suffix and its remedy). The check is here, not
    in a group of its own: it needs the kernel and the real runs of the
    docs' samples this group already boots for.

The kernel is e2e_tests' gcc-O2-fp1 build: the build the sample trace
names (gcc -O2, frame pointers), with the tests' fixtures linked after the
demo's code.
"""
import glob
import os
import re
import shlex
import shutil
import sys

import decode_stacktrace_model
from e2e_tests import boot, is_report_line
from testlib import CROSS, ROOT, SHARED_OBJECTS, TEST_BUILD, Results, run

SAMPLE_KERNEL = "kernel-gcc-O2-fp1"
DOCS = ["README.md"] + sorted(os.path.relpath(p, ROOT)
                              for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))
LAYOUT = "docs/layout.md"
# The only directories the layout may name instead of their files: inputs,
# not code (every other file gets its own sentence).
LAYOUT_DIRECTORIES = {"tests/fuzz/corpus/", "tests/fuzz/regressions/"}
LINK_RE = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
MD_PATH_RE = re.compile(r"(?<![\w./-])((?:[\w.-]+/)*[\w.-]+\.md)\b")
LAYOUT_ENTRY_RE = re.compile(r"^- `([^`]+)`")
FENCE_RE = re.compile(r"^```")
CODE_SPAN_RE = re.compile(r"`([^`\n]+)`")
SCENARIO_RE = re.compile(r"scenario=([\w:.-]+)")
TRACER_RE = re.compile(r"tracer=([\w-]+)")
ADDRESS_RE = re.compile(r"\[<0x[0-9a-f]+>\]|sepc=0x[0-9a-f]+")
ADDR2LINE_RE = re.compile(r"^\$ (\S*addr2line) -f -e (\S+) (0x[0-9a-f]+)$")
STACK_ROW_RE = re.compile(r"^\s*\| `(TRACER_STACK_\w+)` \| (\d+) \|")
STACK_DEFINE_RE = re.compile(r"^#define (TRACER_STACK_\w+)\s+(\d+)u?\b", re.M)
BOOT_LINE = "backtrace demo kernel on hart 0, args \""


def read(path):
    with open(os.path.join(ROOT, path), errors="replace") as f:
        return f.read()


def tracked_files():
    """The repository's files: git's list, or without git a walk of the
    tree without build/ and caches."""
    if shutil.which("git") and os.path.exists(os.path.join(ROOT, ".git")):
        listed = run(["git", "ls-files", "-z"])
        if listed.returncode == 0:
            return sorted(f for f in listed.stdout.split("\0") if f)
    found = []
    for top, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in (".git", "__pycache__")
                   and not (top == ROOT and d == "build")]
        found += [os.path.relpath(os.path.join(top, f), ROOT) for f in files]
    return sorted(found)


def code_blocks(text):
    """[(first line number, [lines])] of the fenced blocks."""
    blocks, current, start = [], None, 0
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE_RE.match(line.strip()):
            if current is None:
                current, start = [], number + 1
            else:
                blocks.append((start, current))
                current = None
        elif current is not None:
            current.append(line)
    return blocks


def prose(text):
    """The text outside fenced blocks, line by line."""
    lines, fenced = [], False
    for line in text.splitlines():
        if FENCE_RE.match(line.strip()):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def code_texts(text):
    """Every piece of code the doc shows: fenced lines and `spans`."""
    pieces = [line for _, block in code_blocks(text) for line in block]
    for line in prose(text):
        pieces += CODE_SPAN_RE.findall(line)
    return pieces


def heading_anchors(text):
    """The anchors GitHub gives the headings of a markdown text."""
    anchors = set()
    for line in prose(text):
        m = re.match(r"^#+\s+(.*)$", line)
        if m:
            title = m.group(1).strip().lower().replace("`", "")
            anchors.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return anchors


def check_links(results, files):
    """Every relative link of every tracked .md file."""
    tracked = set(files)
    for doc in [f for f in files if f.endswith(".md")]:
        text, problems = read(doc), []
        for line in prose(text):
            for target in LINK_RE.findall(line):
                if re.match(r"^[a-z]+:", target):
                    continue
                path, _, anchor = target.partition("#")
                resolved = (os.path.normpath(os.path.join(os.path.dirname(doc), path))
                            if path else doc)
                if resolved not in tracked and not os.path.isdir(os.path.join(ROOT, resolved)):
                    problems.append("%s: no such file (%s)" % (target, resolved))
                elif anchor and resolved.endswith(".md") and \
                        anchor not in heading_anchors(read(resolved)):
                    problems.append("%s: no heading #%s in %s" % (target, anchor, resolved))
        results.check("docs: every relative link in %s names a file (and heading) that exists"
                      % doc, not problems, "\n".join(problems))


def check_md_mentions(results, files):
    """A .md file named by path anywhere (a comment, a doc) exists: moved
    docs leave no stale pointer."""
    tracked, names = set(files), {os.path.basename(f) for f in files}
    problems = []
    for path in files:
        if path.startswith("tests/fuzz/corpus/") or path.startswith("tests/fuzz/regressions/"):
            continue
        try:
            text = read(path)
        except (UnicodeDecodeError, IsADirectoryError):
            continue
        for mention in set(MD_PATH_RE.findall(text)):
            if "/" not in mention:
                found = mention in names
            else:
                found = (os.path.normpath(mention) in tracked or os.path.normpath(
                    os.path.join(os.path.dirname(path), mention)) in tracked)
            if not found:
                problems.append("%s mentions %s, which does not exist" % (path, mention))
    results.check("docs: every .md file a tracked file mentions exists", not problems,
                  "\n".join(sorted(problems)))


def check_layout(results, files):
    """docs/layout.md names every tracked file (or, for the inputs in
    LAYOUT_DIRECTORIES, its directory), and names nothing else."""
    named = [m.group(1) for m in map(LAYOUT_ENTRY_RE.match, read(LAYOUT).splitlines()) if m]
    directories = [n for n in named if n.endswith("/")]
    tracked = set(files)
    missing = [f for f in files if f not in named
               and not any(f.startswith(d) for d in directories)]
    extra = [n for n in named if n not in tracked and not (
        n in LAYOUT_DIRECTORIES and any(f.startswith(n) for f in files))]
    repeated = sorted({n for n in named if named.count(n) > 1})
    detail = []
    for title, names in [("missing from %s (add a line '- `path`: what it does.')" % LAYOUT,
                          missing),
                         ("named in %s but not a tracked file (remove it)" % LAYOUT, extra),
                         ("named twice in %s" % LAYOUT, repeated)]:
        if names:
            detail += [title + ":"] + ["  " + n for n in names]
    results.check("docs: %s names every tracked file, each once, and no other" % LAYOUT,
                  not detail, "\n".join(detail))


def make_targets(text):
    """The targets of every `make ...` command the doc shows."""
    targets = set()
    for piece in code_texts(text):
        for m in re.finditer(r"(?:^|[\s;&|(])make\s+([^#;&|)]*)", piece):
            try:
                words = shlex.split(m.group(1))
            except ValueError:
                words = m.group(1).split()
            targets |= {w for w in words if "=" not in w and not w.startswith("-")
                        and re.match(r"^[\w./-]+$", w)}
    return targets


def kernel_choices(elf):
    """(scenarios, tracers, problem, console): the names the kernel lists
    when a name is unknown, and all it printed."""
    console, _, problem = boot(elf, "scenario=nonsense")
    scenarios = set(re.findall(r"^  scenario=([\w:-]+):", console, re.M))
    tracers = set(re.findall(r"^  tracer=([\w-]+)", console, re.M))
    return scenarios, tracers, problem, console


def help_section(text, title):
    """The lines of make help's section whose heading starts with title."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(title)), None)
    if start is None:
        return []
    section = []
    for line in lines[start + 1:]:
        if not line.startswith("  "):
            break
        section.append(line)
    return section


def check_make_help(results, console):
    """make help's scenarios and tracers (read from the kernel's sources)
    are those the kernel lists when a name is unknown (console): the same
    names, scenario descriptions and aliases, in the same order. Its
    variables are the Makefile's, with their values."""
    shown = run(["make", "--no-print-directory", "help"], timeout=60)
    kernel_scenarios = [" ".join(pair) for pair in
                        re.findall(r"^  scenario=([\w:-]+): (.*?)\r?$", console, re.M)]
    kernel_tracers = [" ".join(pair).strip() for pair in
                      re.findall(r"^  tracer=([\w-]+)(?: \(not linked\))?(?:: (.*?))?\r?$",
                                 console, re.M)]
    help_scenarios = [" ".join(line.split(None, 1)) for line in
                      help_section(shown.stdout, "Scenarios")]
    help_tracers = [" ".join(line.split(None, 1)) for line in help_section(shown.stdout, "Tracers")]
    results.check("make help: its scenarios and tracers are the kernel's own list",
                  shown.returncode == 0 and help_scenarios and help_tracers
                  and help_scenarios == kernel_scenarios and help_tracers == kernel_tracers,
                  "make help (exit %d):\n%s\nthe kernel:\n%s"
                  % (shown.returncode, "\n".join(help_scenarios + help_tracers),
                     "\n".join(kernel_scenarios + kernel_tracers)))
    values = dict(line.split(None, 1) if len(line.split()) > 1 else (line.strip(), "")
                  for line in help_section(shown.stdout, "Variables"))
    dry = run(["make", "-n", "--no-print-directory", "run", "ARGS=x"], timeout=60)
    results.check("make help: the variables' values are make run's (QEMU, SMP, BUILD)",
                  values.get("SMP") and values.get("BUILD") and values.get("QEMU")
                  and "%s -machine virt -smp %s " % (values["QEMU"], values["SMP"]) in dry.stdout
                  and "-kernel %s/kernel.elf" % values["BUILD"] in dry.stdout,
                  "make help's values: %s\nmake -n run:\n%s" % (values, dry.stdout[-1500:]))


def function_names(elf):
    return {fields[2] for fields in (line.split() for line in
                                     run([CROSS + "nm", elf]).stdout.splitlines())
            if len(fields) == 3 and fields[1] in "tTwW"}


def example_functions(text):
    """Functions the README's example code defines (`void f(void) {`)."""
    return set(re.findall(r"\bvoid (\w+)\(void\)\s*\{", text))


def check_names(results, elf):
    """make targets, scenario= and tracer= names in the README and docs/."""
    scenarios, tracers, problem, console = kernel_choices(elf)
    if not results.check("docs: the kernel lists its scenarios and tracers",
                         problem is None and "load-fault" in scenarios and "auto" in tracers,
                         problem):
        return
    check_make_help(results, console)
    functions = function_names(elf)
    dry_runs = {}  # target: make -n's result (docs name the same targets)
    for doc in DOCS:
        text = read(doc)
        problems = []
        for target in sorted(make_targets(text)):
            if target not in dry_runs:
                dry_runs[target] = run(["make", "-n", "--no-print-directory", target],
                                       timeout=120)
            dry = dry_runs[target]
            if dry.returncode != 0:
                problems.append("make %s: not a target (%s)" % (target, dry.stderr.strip()[-200:]))
        defined = example_functions(text)
        for name in sorted(set(SCENARIO_RE.findall(text))):
            if name.isupper() or name == "call:NAME":
                continue  # a placeholder: scenario=NAME
            if name.startswith("call:"):
                if name[5:] not in functions | defined:
                    problems.append("scenario=%s: no function %s in %s" % (name, name[5:], elf))
            elif name not in scenarios:
                problems.append("scenario=%s: not a scenario of the kernel" % name)
        for name in sorted(set(TRACER_RE.findall(text))):
            if name not in tracers and not name.isupper():
                problems.append("tracer=%s: not a tracer of the kernel" % name)
        results.check("docs: every make target, scenario= and tracer= in %s exists" % doc,
                      not problems, "\n".join(problems + ["kernel's scenarios: " +
                                                          " ".join(sorted(scenarios)),
                                                          "kernel's tracers: " +
                                                          " ".join(sorted(tracers))]))


def masked(lines):
    """The lines with their addresses masked, and the values of the fault
    report's registers and code (their labels and marker kept)."""
    return [re.sub(r"\b[0-9a-f]{4,16}\b", "...", line) if is_report_line(line)
            else ADDRESS_RE.sub(lambda m: re.sub(r"0x[0-9a-f]+", "0x...", m.group(0)), line)
            for line in lines]


def sample_traces(text):
    """(args, [lines]) of every sample console output in the doc: a block
    that begins with the kernel's boot line."""
    samples = []
    for _, block in code_blocks(text):
        if block and block[0].startswith(BOOT_LINE):
            samples.append((block[0][len(BOOT_LINE):-1], block))
    return samples


def run_sample(elf, args):
    """The kernel's lines from its boot line to the end of the trace."""
    console, _, problem = boot(elf, args)
    lines = [line.rstrip("\r") for line in console.splitlines()]
    start = next((i for i, line in enumerate(lines) if line.startswith(BOOT_LINE)), None)
    end = next((i for i, line in enumerate(lines) if line.startswith("End of trace: ")), None)
    if start is None or end is None:
        return None, problem or "no complete trace:\n" + console[-1500:]
    return lines[start:end + 1], problem


def frame_address(line):
    m = re.match(r"^ \[<(0x[0-9a-f]+)>\] (\S+)\+", line)
    return (int(m.group(1), 16), m.group(2)) if m else None


def check_addr2line(results, doc, text, elf, sample, real):
    """Each `$ addr2line -f -e build/kernel.elf ADDRESS` example, with the
    function and file:line lines after it: ADDRESS is a frame of the doc's
    sample; the same frame of the real run, given to addr2line on the real
    kernel, gives that function, and a line of that file."""
    for _, block in code_blocks(text):
        for i, line in enumerate(block):
            m = ADDR2LINE_RE.match(line)
            if not m:
                continue
            name = "docs: %s's addr2line example %s" % (doc, m.group(3))
            address = int(m.group(3), 16)
            said_function, said_place = (block[i + 1:i + 3] + ["", ""])[:2]
            frames = [frame_address(l) for l in sample]
            at = next((k for k, f in enumerate(frames) if f and f[0] == address), None)
            if not results.check(name + ": is a frame of the sample trace, in function "
                                 + said_function, at is not None and
                                 frames[at][1] == said_function, "\n".join(sample)):
                continue
            real_frame = frame_address(real[at]) if at < len(real) else None
            if not results.check(name + ": the real run has that frame", real_frame is not None,
                                 "\n".join(real)):
                continue
            shown = run([CROSS + "addr2line", "-f", "-e", elf, "0x%x" % real_frame[0]])
            out = shown.stdout.splitlines() + ["", ""]
            suffix = said_place[3:] if said_place.startswith(".../") else said_place
            results.check(name + ": addr2line on the real kernel's address 0x%x names %s, %s"
                          % (real_frame[0], said_function, suffix),
                          out[0] == said_function and out[1].endswith(suffix),
                          "addr2line printed:\n" + shown.stdout + shown.stderr)


def check_samples(results, elf):
    """Returns the lines of the real runs."""
    lines = []
    for doc in DOCS:
        text = read(doc)
        for args, sample in sample_traces(text):
            name = "docs: %s's sample for \"%s\"" % (doc, args)
            real, problem = run_sample(elf, args)
            if not results.check(name + ": the kernel printed a whole trace", real is not None
                                 and problem is None, problem):
                continue
            results.check(name + ": the real run prints the same lines, hex addresses masked",
                          masked(sample) == masked(real),
                          "the real run (paste it into %s):\n%s" % (doc, "\n".join(real)))
            check_addr2line(results, doc, text, elf, sample, real)
            lines += real
    return lines


def check_decode_stacktrace(results, elf, real):
    """decode_stacktrace_model's checks on the real runs' lines and on a
    line of each shape of the grammar (a frame in panic, a text symbol of
    every kernel): every shape is read as the grammar means it (issue 20
    item 7)."""
    symbols = decode_stacktrace_model.text_symbols(elf)
    samples = decode_stacktrace_model.grammar_samples("panic")
    for source, lines in (("the grammar's samples", samples),
                          ("the real runs of the docs' samples", real)):
        decode_stacktrace_model.check_lines(results, source, lines, symbols)


def check_example(results):
    """The README's "Add your own code": its file, its make command (built
    into build/test/docs-example, booted as the test kernel boots)."""
    text = read("README.md")
    heredoc = re.search(r"cat > (\S+) <<'C'\n(.*?)\nC\nmake run ([^\n]*)\n", text, re.S)
    if not results.check("docs: README.md has the EXTRA_SRCS example", heredoc is not None):
        return
    directory = os.path.join(TEST_BUILD, "docs-example")
    os.makedirs(directory, exist_ok=True)
    source = os.path.join(directory, heredoc.group(1))
    with open(source, "w") as f:
        f.write(heredoc.group(2) + "\n")
    words = shlex.split(heredoc.group(3))
    variables = [w.replace(heredoc.group(1), source) if w.startswith("EXTRA_SRCS=") else w
                 for w in words if not w.startswith("ARGS=")]
    args = next((w[len("ARGS="):] for w in words if w.startswith("ARGS=")), "")
    built = run(["make", "-s", "BUILD=" + directory, SHARED_OBJECTS] + variables, timeout=600)
    if not results.check("docs: the README's example builds", built.returncode == 0,
                         built.stdout[-1500:] + built.stderr[-1500:]):
        return
    console, _, problem = boot(os.path.join(directory, "kernel.elf"), args)
    said = re.search(r'panic\("([^"]*)"\)', heredoc.group(2))
    defined = example_functions(heredoc.group(2)) | set(
        re.findall(r"static void (\w+)\(void\)", heredoc.group(2)))
    results.check("docs: the README's example panics with its message, its functions "
                  "in the trace", problem is None and said is not None
                  and ("panic: %s" % said.group(1)) in console
                  and all(re.search(r"\] %s\+0x" % f, console) for f in defined),
                  "problem: %s\n%s" % (problem, console[-1500:]))


def panic_path_rows(text):
    """[(scenario spans, SMP harts, full lines)] of design.md's table of
    panic-path cases: the lines written out in full (no "..") that the
    cases print."""
    rows, in_table = [], False
    for line in text.splitlines():
        if line.startswith("| case | run with | printed, in order |"):
            in_table = True
        elif in_table and not line.startswith("|"):
            in_table = False
        elif in_table and not line.startswith("| ---"):
            cells = line.strip().strip("|").split(" | ")
            if len(cells) != 3:
                continue
            runs = [span for span in CODE_SPAN_RE.findall(cells[1])
                    if span.startswith("scenario=")]
            harts = re.search(r"SMP=(\d+)", cells[1])
            # A line written out in full; <N> and the like stand for a
            # number the run decides (the hart the firmware booted on).
            lines = [span for span in CODE_SPAN_RE.findall(cells[2])
                     if re.match(r"^(panic: |reserve stack: )\S", span) and ".." not in span
                     and "<" not in re.sub(r"<[A-Z]>", "", span)]
            rows.append((runs, int(harts.group(1)) if harts else 1, lines))
    return rows


def line_pattern(line):
    """A line of the doc as a regular expression: <N> and the like match a
    number, the rest itself."""
    return "".join(r"\d+" if re.fullmatch(r"<[A-Z]>", piece) else re.escape(piece)
                   for piece in re.split(r"(<[A-Z]>)", line))


def check_panic_path_lines(results, elf):
    """design.md's panic-path cases: each line it writes out in full is
    printed by one of the runs the case names; the prose's figure for
    DWARF's reserve is the one those lines print."""
    text = read("docs/design.md")
    stated = re.findall(r"([\d,]+) bytes for DWARF, the figure the `reserve stack:` lines below",
                        " ".join(text.split()))
    printed_figures = set(re.findall(r"the dwarf unwinder needs (\d+)", text))
    results.check("docs: design.md's DWARF reserve figure is the one its reserve-stack lines print",
                  len(stated) == 1 and {stated[0].replace(",", "")} == printed_figures,
                  "prose %s, lines %s" % (stated, sorted(printed_figures)))
    rows = panic_path_rows(text)
    results.check("docs: design.md's panic-path table has cases with lines to check",
                  sum(len(lines) for _, _, lines in rows) >= 5, rows)
    for runs, harts, lines in rows:
        if not lines:
            continue
        printed, problems = set(), []
        for args in runs:
            args = re.sub(r"\s*SMP=\d+", "", args)
            console, _, problem = boot(elf, args, None, harts)
            printed |= {line.rstrip("\r") for line in console.splitlines()}
            if problem:
                problems.append("%s: %s" % (args, problem))
        problems += ["not printed: %s" % line for line in lines
                     if not any(re.fullmatch(line_pattern(line), text) for text in printed)]
        results.check("docs: design.md's lines for %s are what the kernel prints"
                      % ", ".join(runs), not problems,
                      "\n".join(problems + ["printed:"] + sorted(
                          l for l in printed if l.startswith(("panic: ", "reserve stack: ")))))


def check_stack_figures(results):
    """porting.md's table of TRACER_STACK_* against their definitions."""
    defined = {}
    for header in glob.glob(os.path.join(ROOT, "tracer", "*.h")):
        defined.update((n, int(v)) for n, v in STACK_DEFINE_RE.findall(read(header)))
    rows = [m.groups() for m in map(STACK_ROW_RE.match, read("docs/porting.md").splitlines())
            if m]
    problems = ["%s: the doc says %s, the header %s" % (n, v, defined.get(n))
                for n, v in rows if defined.get(n) != int(v)]
    results.check("docs: porting.md's TRACER_STACK_* figures are the headers' (%d rows)"
                  % len(rows), rows and not problems, "\n".join(problems))


def check_symgen_by_hand(results):
    """porting.md's command that builds symgen by hand builds one that runs
    (its output path moved under build/test)."""
    block = next((b for _, b in code_blocks(read("docs/porting.md"))
                  if any("-o build/symgen" in line for line in b)), None)
    if not results.check("docs: porting.md shows how to build symgen by hand", block is not None):
        return
    directory = os.path.join(TEST_BUILD, "docs-symgen")
    os.makedirs(directory, exist_ok=True)
    symgen = os.path.join(directory, "symgen")
    command = "\n".join(block).replace("mkdir -p build && ", "").replace(
        "-o build/symgen", "-o " + shlex.quote(symgen))
    built = run(["bash", "-e", "-c", command], timeout=300)
    empty = os.path.join(directory, "empty.c")
    ran = run([symgen, "--empty", "--cfi", "-o", empty]) if built.returncode == 0 else None
    results.check("docs: porting.md's hand build of symgen builds a symgen that writes tables",
                  built.returncode == 0 and ran is not None and ran.returncode == 0
                  and os.path.exists(empty),
                  command + "\n" + built.stderr[-1500:] + (ran.stderr if ran else ""))


ROM_SCRIPT = "tests/rtos_kernel/kernel_rom.ld"


def check_rom_fragment(results):
    """porting.md's ROM/RAM fragment: its lines, "..." aside, are lines of
    kernel_rom.ld in the same order (indentation aside); and the span it
    says symgen allows code and .eh_frame is symgen's SPAN_MAX."""
    text = read("docs/porting.md")
    block = next((b for _, b in code_blocks(text) if any("MEMORY" in line for line in b)), None)
    if not results.check("docs: porting.md shows a ROM/RAM linker script", block is not None):
        return
    script = [line.strip() for line in read(ROM_SCRIPT).splitlines()]
    position, missing = 0, []
    for line in (line.strip() for line in block):
        if line == "...":
            continue
        if line in script[position:]:
            position = script.index(line, position) + 1
        else:
            missing.append(line)
    results.check("docs: porting.md's ROM/RAM fragment is %s's, in order" % ROM_SCRIPT,
                  not missing, "not in the script (or out of order): %s" % missing)
    span = re.search(r"#define SPAN_MAX \(\(uint64_t\)1 << (\d+)\)", read("symgen/image_view.c"))
    stated = re.search(r"code and\s+`\.eh_frame` as one span, of\s+at\s+most (\d+) GiB", text)
    results.check("docs: porting.md's span of code and .eh_frame is symgen's SPAN_MAX",
                  span is not None and stated is not None and
                  int(stated.group(1)) << 30 == 1 << int(span.group(1)),
                  "%s, %s" % (span and span.group(0), stated and stated.group(0)))


def check_test_runner(results):
    """docs/testing.md's promises of make test's output, on its quickest
    group: quiet, only the group's line and the count; V=1 a PASS line a
    check; an unknown group named, with the groups, and a failing exit."""
    def run_tests(groups, verbose):
        env = dict(os.environ, TESTS=groups, TEST_VERBOSE=verbose)
        env.pop("MAKE_TEST_START", None)
        env.pop("TEST_PROFILE", None)  # its sums would follow the count
        return run([sys.executable, os.path.join(ROOT, "tests", "run_tests.py")], timeout=120,
                   env=env)

    quiet, verbose, unknown = (run_tests("unit", "0"), run_tests("unit", "1"),
                               run_tests("unit no_such_group", "0"))
    lines = quiet.stdout.splitlines()
    results.check("make test: quiet, a line for the group and the closing count",
                  quiet.returncode == 0 and len(lines) == 2
                  and re.fullmatch(r"group unit: (\d+) passed, 0 failed, \d+ s", lines[0])
                  and re.fullmatch(r"\d+ passed, 0 failed in \d+ s", lines[1]),
                  quiet.stdout[-2000:] + quiet.stderr[-2000:])
    passes = [line for line in verbose.stdout.splitlines() if line.startswith("PASS unit ")]
    counted = re.search(r"^(\d+) passed, 0 failed", verbose.stdout, re.M)
    results.check("make test V=1: a PASS line for every check",
                  verbose.returncode == 0 and counted is not None
                  and len(passes) == int(counted.group(1)) > 0,
                  verbose.stdout[-2000:] + verbose.stderr[-2000:])
    results.check("make test TESTS=<unknown>: names it and the groups, and fails",
                  unknown.returncode != 0 and "'no_such_group'" in unknown.stderr
                  and "line_oracle" in unknown.stderr and not unknown.stdout,
                  unknown.stdout[-2000:] + unknown.stderr[-2000:])


def run_all(results: Results, kernels):
    """kernels: [(name, elf)] from e2e_tests.run_all."""
    files = tracked_files()
    check_links(results, files)
    check_md_mentions(results, files)
    check_layout(results, files)
    check_stack_figures(results)
    check_symgen_by_hand(results)
    check_rom_fragment(results)
    check_test_runner(results)
    elf = dict(kernels).get(SAMPLE_KERNEL)
    if not results.check("docs: the test kernel %s was built" % SAMPLE_KERNEL, elf is not None):
        return
    check_names(results, elf)
    check_decode_stacktrace(results, elf, check_samples(results, elf))
    check_panic_path_lines(results, elf)
    check_example(results)

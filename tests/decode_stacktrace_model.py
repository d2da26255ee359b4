#!/usr/bin/python3
"""What Linux's scripts/decode_stacktrace.sh makes of our trace lines: a
model of its parser, written from the behaviour of its main loop,
handle_line and parse_symbol (torvalds/linux at 076979ee), not from its
text. It decides which lines are frame lines and which word it looks up;
it does not run addr2line.

- A line is a frame line if it holds a `[<...>]` word or a token
  `name+0xN/0xM` (a name without `+` or space); other lines pass through
  unchanged (but for the blanks `read` strips at either end). A trailing
  carriage return is dropped first.
- A frame line is split into words on whitespace; `[<...>]` words are
  dropped. If the last word is `[...]`, it is a module and the symbol is
  the word before; otherwise the symbol is the last word (empty if the
  last word was a dropped `[<...>]`: a raw frame prints nothing of its
  address).
- The symbol loses one leading `(` and one trailing `)`, then everything up
  to its first `:` (a "segment", kept aside). The name is what comes before
  its last `+`; it is decoded only if `nm` lists it as a text symbol (t or
  T). Otherwise the line prints its other words and the stripped symbol.
- (Timestamps of the form `[ 12.345]` are reformatted; our lines have none,
  and the model ignores them.)

tests/docs_tests.py applies it to the real lines of its sample runs and to
samples of every line shape of docs/output-format.md's grammar
(check_lines, report_shapes). Run alone, it prints what the script does with each line
of a console log:

    python3 tests/decode_stacktrace_model.py build/kernel.elf < console.log
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from testlib import CROSS, info, run  # noqa: E402

ADDRESS_WORD_RE = re.compile(r"\[<([^]]+)>\]")
SYMBOL_TOKEN_RE = re.compile(r"[^+ ]+\+0x[0-9a-f]+/0x[0-9a-f]+")
MODULE_RE = re.compile(r"\[([^]]+)\]")
LOOKED_UP_RE = re.compile(r"^(.+)\+0x[0-9a-f]+/0x[0-9a-f]+$")
# The remedy for the location suffix: strip it before the script reads
# the line, as sed -E 's/ \([^ ()]+:[0-9]+\)$//' does; with an auto fallback
# mark after it, the mark too: 's/ \([^ ()]+:[0-9]+\)( \((prologue|frame-pointer)\))?$//'.
# Either also strips an [inlined] line's location, so only on lines with
# an address: sed -E '/\[</ s/.../'.
STRIP_LOCATION = re.compile(r" \([^ ()]+:[0-9]+\)$")
STRIP_LOCATION_AND_MARK = re.compile(r" \([^ ()]+:[0-9]+\)( \((prologue|frame-pointer)\))?$")


def text_symbols(elf):
    """The names `nm` lists as text symbols (t or T): what parse_symbol
    looks names up in."""
    names = set()
    for line in run([CROSS + "nm", elf]).stdout.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[1] in ("t", "T"):
            names.add(fields[2])
    return names


class Decoded:
    """What the script does with one line: frame (whether handle_line takes
    it), symbol (the word it looks up, "" for none), module, name (what it
    looks up in nm), decoded (whether nm has it, so addr2line is asked)."""

    def __init__(self, frame, symbol="", module="", name="", decoded=False):
        self.frame = frame
        self.symbol = symbol
        self.module = module
        self.name = name
        self.decoded = decoded

    def __repr__(self):
        if not self.frame:
            return "passed through unchanged"
        return ("symbol word %r%s: looks up %r, %s"
                % (self.symbol, " (module %s)" % self.module if self.module else "", self.name,
                   "decoded" if self.decoded else "not in nm: printed as %r"
                   % strip_symbol(self.symbol)[1]))


def strip_symbol(symbol):
    """(segment, symbol) after parse_symbol's stripping: one leading `(`,
    one trailing `)`, and up to the first `:`."""
    if symbol.startswith("("):
        symbol = symbol[1:]
    if symbol.endswith(")"):
        symbol = symbol[:-1]
    segment = ""
    if ":" in symbol:
        segment, symbol = symbol.split(":", 1)
        segment += ":"
    return segment, symbol


def decode_line(line, symbols):
    """The script's handling of line, with symbols the text symbols of the
    image (text_symbols())."""
    if line.endswith("\r"):
        line = line[:-1]
    if not (ADDRESS_WORD_RE.search(line) or SYMBOL_TOKEN_RE.search(line)):
        return Decoded(False)
    # The words by position: a dropped `[<...>]` word leaves an empty one.
    words = ["" if ADDRESS_WORD_RE.search(word) else word for word in line.split()]
    module = ""
    if MODULE_RE.search(words[-1]):
        module = words[-1]
        symbol = words[-2] if len(words) >= 2 else ""
    else:
        symbol = words[-1]
    _, stripped = strip_symbol(symbol)
    name = stripped.rsplit("+", 1)[0]
    looked_up = LOOKED_UP_RE.match(stripped)
    return Decoded(True, symbol, module, name,
                   bool(looked_up) and looked_up.group(1) == name and name in symbols)


FRAME_SYMBOL_RE = re.compile(r"^ \[<0x[0-9a-f]+>\] (\S+)\+0x[0-9a-f]+/0x[0-9a-f]+")
INLINED_RE = re.compile(r"^ \[inlined\] ")
LOCATION_MARK_END_RE = re.compile(r" \([^ ()]+:[0-9]+\) \((prologue|frame-pointer)\)$")
MARK_END_RE = re.compile(r" \((prologue|frame-pointer)\)$")


def grammar_samples(function):
    """A line of each shape docs/output-format.md's grammar allows, with a
    frame in function."""
    frame = " [<0x0000000080201234>] %s+0x1c/0x60" % function
    raw = " [<0x0000000080201234>]"
    return [frame + " (kernel/foo.c:123)", frame + " (kernel/foo.c:123) (prologue)",
            frame + " (kernel/foo.c:123) (frame-pointer)", frame, frame + " (prologue)",
            frame + " (frame-pointer)", raw, raw + " (kernel/foo.c:123)",
            " [inlined] helper (kernel/lab.c:18)", " [inlined] ?? (kernel/lab.c:18)",
            " [inlined] helper", " [inlined] ??"]


def remedied(line, pattern):
    """line after sed -E '/\\[</ s/PATTERN//'."""
    return pattern.sub("", line) if "[<" in line else line


def check_lines(results, source, lines, symbols):
    """The script's reading of each of lines (trace lines of our grammar,
    from source) that has a shape below; a check per shape present:
    (a) a frame line without a location suffix or mark: the script looks
        up our symbol;
    (b) an inlined call's line: not a frame line, passed through;
    (c) a frame line with the location suffix, last or before an auto
        fallback mark: the script takes the last word as the symbol (the
        location, as with Linux's LINEINFO, or the mark), not ours; with
        the suffix stripped (STRIP_LOCATION for a suffix last,
        STRIP_LOCATION_AND_MARK for either), it looks up ours.
    Lines ending in an auto fallback mark without a location (d), and raw
    frames, are reported (report_shapes), not checked: issue 20 item 7 is
    to settle them."""
    wrong = {"a": [], "b": [], "c": []}
    found = set()
    for line in lines:
        decoded = decode_line(line, symbols)
        ours = FRAME_SYMBOL_RE.match(line)
        if INLINED_RE.match(line):
            found.add("b")
            if decoded.frame or remedied(line, STRIP_LOCATION_AND_MARK) != line:
                wrong["b"].append("%s\n    %r" % (line, decoded))
        elif ours and (STRIP_LOCATION.search(line) or LOCATION_MARK_END_RE.search(line)):
            found.add("c")
            last = line.split()[-1]
            cured = [remedied(line, STRIP_LOCATION_AND_MARK)]
            if STRIP_LOCATION.search(line):
                cured.append(remedied(line, STRIP_LOCATION))
            # The line as printed: the last word looked up, not ours; cured:
            # ours.
            for text in [line] + cured:
                again = decode_line(text, symbols)
                ours_found = again.decoded and again.name == ours.group(1)
                if ours_found != (text != line) or (text == line and again.symbol != last):
                    wrong["c"].append("%s\n    %r" % (text, again))
        elif ours and MARK_END_RE.search(line):
            continue  # (d)
        elif ours:
            found.add("a")
            if not (decoded.decoded and decoded.name == ours.group(1)):
                wrong["a"].append("%s\n    %r" % (line, decoded))
    titles = {"a": "every frame line without a location or mark yields our symbol",
              "b": "every [inlined] line is not a frame line (passed through unchanged), "
                   "and the remedy leaves it as it is",
              "c": "every frame line with a location suffix yields the location or mark as "
                   "its symbol, and our symbol once the suffix is stripped"}
    for shape in sorted(titles):
        if shape in found:
            results.check("decode_stacktrace.sh model, %s: %s" % (source, titles[shape]),
                          not wrong[shape], "\n".join(wrong[shape][:10]))


def report_shapes(source, lines, symbols):
    """Prints what the script does with the first line of each shape the
    checks do not cover: a mark without a location (d), and raw frames."""
    seen = set()
    for line in lines:
        ours = FRAME_SYMBOL_RE.match(line)
        if ours and MARK_END_RE.search(line) and not LOCATION_MARK_END_RE.search(line):
            shape = "mark " + MARK_END_RE.search(line).group(1)
        elif not ours and ADDRESS_WORD_RE.match(line.strip()):
            shape = "raw" + (" with a location" if STRIP_LOCATION.search(line) else "")
        else:
            continue
        if shape not in seen:
            seen.add(shape)
            info("  decode_stacktrace.sh model, %s: %s: %r\n    %r"
                 % (source, shape, line, decode_line(line, symbols)))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: python3 tests/decode_stacktrace_model.py ELF < console.log")
    symbols = text_symbols(sys.argv[1])
    for line in sys.stdin.read().splitlines():
        print("%s\n    %r" % (line, decode_line(line, symbols)))


if __name__ == "__main__":
    main()

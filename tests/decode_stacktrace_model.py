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
- A line that is no frame line but holds `Code:` goes to scripts/decodecode
  (torvalds/linux at 27eb2c4b), which reads what follows `Code: ` as
  values of the width of its first word (two hex digits a byte), the
  faulting one after the first `<` (or, without one, `(`):
  decodecode_reading().

tests/docs_tests.py applies it to the real lines of its sample runs and to
samples of every line shape of docs/output-format.md's grammar
(check_lines); tests/e2e_tests.py reads the fault report's Code: lines
with decodecode_reading(). Run alone, it prints what the script does with
each line of a console log:

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
# the line, as sed -E 's/ \([^ ()]+:[0-9]+\)$//' does (an auto walk's
# fallback mark is before the symbol, out of the way). It also strips an
# [inlined] line's location, so only on lines with an address:
# sed -E '/\[</ s/.../'.
STRIP_LOCATION = re.compile(r" \([^ ()]+:[0-9]+\)$")


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
    looks up in nm), decoded (whether nm has it, so addr2line is asked);
    code (not a frame line: whether it goes to decodecode, the line then
    in symbol)."""

    def __init__(self, frame, symbol="", module="", name="", decoded=False, code=False):
        self.frame = frame
        self.symbol = symbol
        self.module = module
        self.name = name
        self.decoded = decoded
        self.code = code

    def __repr__(self):
        if self.code:
            width, values, marker = decodecode_reading(self.symbol)
            return ("sent to decodecode: %d-byte values %s, the faulting one at %s"
                    % (width, " ".join("%x" % value for value in values), marker))
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
        code = "Code:" in line
        return Decoded(False, symbol=line if code else "", code=code)
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


def decodecode_reading(line):
    """What decodecode reads of a Code: line: (the width of a value in
    bytes, [the values], the index of the one after the marker or None)."""
    code = re.sub(r".*Code: ", "", line)
    # expr index: the 1-based place of the first blank, 0 for none.
    width = (code.find(" ") + 1 - 1) // 2
    words = code.split()
    marked = [i for i, word in enumerate(words) if "<" in word]
    marked = marked or [i for i, word in enumerate(words) if "(" in word]
    return (width, [int(re.sub(r"[<>()]", "", word), 16) for word in words],
            marked[0] if marked else None)


# Our frame line: the address, an auto walk's fallback mark, the symbol.
FRAME_SYMBOL_RE = re.compile(r"^ \[<0x[0-9a-f]+>\](?: \((?:prologue|frame-pointer)\))? "
                             r"(\S+)\+0x[0-9a-f]+/0x[0-9a-f]+")
RAW_FRAME_RE = re.compile(r"^ \[<0x[0-9a-f]+>\](?: \((?:prologue|frame-pointer)\))?"
                          r"(?: \([^ ()]+:[0-9]+\))?$")
INLINED_RE = re.compile(r"^ \[inlined\] ")
# The fault report (docs/output-format.md): registers, CSRs, code.
REPORT_RE = re.compile(r"^(?:(?:(?:^| )(?:epc|ra|sp|s1[01]|s\d) ?: [0-9a-f]+){1,3}"
                       r"|(?:status: [0-9a-f]+ )?badaddr: [0-9a-f]+ cause: [0-9a-f]+)$")
CODE_RE = re.compile(r"^Code:(?: <?[0-9a-f]{4}>?)+$")


def grammar_samples(function):
    """A line of each shape docs/output-format.md's grammar allows, with a
    frame in function."""
    frame = " [<0x0000000080201234>]%s " + function + "+0x1c/0x60"
    raw = " [<0x0000000080201234>]"
    place = " (kernel/foo.c:123)"
    frames = [frame % mark + suffix for mark in ("", " (prologue)", " (frame-pointer)")
              for suffix in ("", place)]
    raws = [raw + mark + suffix for mark in ("", " (prologue)", " (frame-pointer)")
            for suffix in ("", place)]
    report = ["epc : 0000000080201234 ra : 0000000080201250 sp : 0000000080213f80",
              " s0 : 0000000080213f90 s1 : 0000000000000000 s2 : 0000000000000001",
              " s9 : 0000000000000000 s10: 0000000000000000 s11: 0000000000000000",
              "epc : 80201234 ra : 80201250 sp : 80213f80",
              "status: 0000000200000100 badaddr: 0000000000000000 cause: 000000000000000d",
              "badaddr: 0000000000000000 cause: 000000000000000d",
              "Code: 6fc5 f0ef ce0f 1141 e422 0800 3797 0001 b783 dca7 <6388> 6422",
              "Code: 1141 e422 <0003> 0000"]
    others = ["Call Trace (auto unwinder):", "End of trace: reached the outermost frame",
              "--- trap: load page fault sepc=0x0000000080201234 stval=0x0000000000000000 ---",
              "Note: symbol table rejected (checksum mismatch): frames print raw",
              "panic: trap: load page fault (scause=0xd) sepc=0x80201234 stval=0x0",
              "Note: line table rejected (checksum mismatch): frames print without file:line",
              "Backtrace of hart 1 (stopped by the panic on hart 0):",
              "Hart 2 did not stop within 1 s: no backtrace", "4 harts running",
              "nested fault while panicking: load page fault sepc=0x80201234 stval=0x8",
              "nested panic while panicking, giving up",
              "reserve stack: 1500 bytes left, the auto unwinder needs 2896: the prologue "
              "unwinder instead (2736)",
              "fatal: trap with the panic stack exhausted: powering off: scause=0x000000000000000f "
              "sepc=0x0000000080201234 stval=0x0000000080230ff8"]
    return (frames + raws + report + others +
            [" [inlined] helper (kernel/lab.c:18)", " [inlined] ?? (kernel/lab.c:18)",
             " [inlined] helper", " [inlined] ??"])


def remedied(line, pattern):
    """line after sed -E '/\\[</ s/PATTERN//'."""
    return pattern.sub("", line) if "[<" in line else line


def check_lines(results, source, lines, symbols):
    """The script's reading of each of lines (trace lines of our grammar,
    from source); a check per shape present:
    (a) a frame line without a location suffix, with or without an auto
        walk's fallback mark: the script looks up our symbol;
    (b) an inlined call's line: not a frame line, passed through;
    (c) a frame line with the location suffix: the script takes it as the
        symbol (as with Linux's LINEINFO), not ours; with the suffix
        stripped (STRIP_LOCATION), it looks up ours;
    (d) a raw frame (no symbol; a mark, a location): a frame line in which
        the script finds no function to look up;
    (e) a fault report's register or CSR line: passed through unchanged;
    (f) a Code: line: sent to decodecode, which reads 2-byte values, one
        marked as the faulting one;
    (g) every other line: passed through unchanged."""
    wrong = {shape: [] for shape in "abcdefg"}
    found = set()
    for line in lines:
        decoded = decode_line(line, symbols)
        ours = FRAME_SYMBOL_RE.match(line)
        if INLINED_RE.match(line):
            shape = "b"
            ok = not decoded.frame and remedied(line, STRIP_LOCATION) == line
        elif ours and STRIP_LOCATION.search(line):
            shape = "c"
            cured = decode_line(remedied(line, STRIP_LOCATION), symbols)
            ok = (decoded.frame and decoded.symbol == line.split()[-1] and not decoded.decoded
                  and cured.decoded and cured.name == ours.group(1))
            decoded = "%r; cured: %r" % (decoded, cured)
        elif ours:
            shape = "a"
            ok = decoded.decoded and decoded.name == ours.group(1)
        elif RAW_FRAME_RE.match(line):
            shape = "d"
            ok = decoded.frame and not decoded.decoded
        elif REPORT_RE.match(line):
            shape = "e"
            ok = not decoded.frame and not decoded.code
        elif CODE_RE.match(line):
            shape = "f"
            width, values, marker = decodecode_reading(line)
            ok = (not decoded.frame and decoded.code and width == 2 and marker is not None
                  and len(values) == len(line.split()) - 1)
        else:
            shape = "g"
            ok = not decoded.frame and not decoded.code
        found.add(shape)
        if not ok:
            wrong[shape].append("%s\n    %s" % (line, decoded))
    titles = {"a": "every frame line without a location yields our symbol, marked or not",
              "b": "every [inlined] line is not a frame line (passed through unchanged), "
                   "and the remedy leaves it as it is",
              "c": "every frame line with a location suffix yields the location as its "
                   "symbol, and our symbol once the suffix is stripped",
              "d": "every raw frame line is a frame line with no function to look up",
              "e": "every fault report register or CSR line is passed through unchanged",
              "f": "every Code: line goes to decodecode, read as 2-byte values with the "
                   "faulting one marked",
              "g": "every other line is passed through unchanged"}
    for shape in sorted(titles):
        if shape in found:
            results.check("decode_stacktrace.sh model, %s: %s" % (source, titles[shape]),
                          not wrong[shape], "\n".join(wrong[shape][:10]))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: python3 tests/decode_stacktrace_model.py ELF < console.log")
    symbols = text_symbols(sys.argv[1])
    for line in sys.stdin.read().splitlines():
        print("%s\n    %r" % (line, decode_line(line, symbols)))


if __name__ == "__main__":
    main()

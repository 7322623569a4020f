"""JSON read at byte offsets of a file that is never loaded whole: the values of an array walked one by
one, and single values (the top-level keys around the event array) checked for depth and size before
Python builds them.

Bytes are decoded as latin-1 for walking, one character per byte, so a position in the text is the byte
offset in the file; JSON's structure is ASCII, so latin-1 and UTF-8 agree on it. A value kept as Python
data is decoded again as UTF-8 (`load_value`)."""
import json
import re
from dataclasses import dataclass

_DECODER = json.JSONDecoder()
_BLANK = re.compile(r"[ \t\r\n]*")
_NEXT = re.compile(r'[\[\]{}"]')                         # what changes the depth, or starts a string
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)   # a whole string, escapes included
_SCALAR = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|true|false|null")
# The value `walk` passes for a value nested deeper than Python's parser goes (~1,000 levels).
DEEP = type("Deep", (), {"__repr__": lambda self: "<nested too deep to read>"})()
# A value that ends this close to the end of the bytes failed because the bytes ran out (a number,
# literal or \u escape cut short is at most 8 characters from the end), not because it is malformed.
_NEAR_END = 8


@dataclass
class ScanStop(Exception):
    """Where and why a walk stopped before a ']'. kind: 'cut' (the bytes end inside a value), 'syntax'
    (malformed JSON), 'deep' (nested deeper than allowed), 'close' (a ']' or '}' closing a container the
    walk did not open: the walk began inside a value)."""
    kind: str
    pos: int
    reason: str


class Window:
    """Bytes [start, stop) of a file as latin-1 text, read as a walk needs them: `block` bytes first, then
    as many again as the window holds (a value of 10 MB is parsed ~8 times from its start, not 160)."""

    def __init__(self, f, start: int, stop: int, block: int):
        self.f, self.base, self.stop, self.block = f, start, stop, block
        self.text = ""
        self.more()

    def more(self) -> bool:
        """Read further; False when the window already reaches `stop` or the file ends."""
        end = self.base + len(self.text)
        if end >= self.stop:
            return False
        self.f.seek(end)
        data = self.f.read(min(max(self.block, len(self.text)), self.stop - end))
        self.text += data.decode("latin-1")
        return bool(data)

    def drop_before(self, i: int) -> int:
        """Forget the text before index i (a walk never goes back); returns the new index of that byte."""
        if i > (1 << 22):
            self.base += i
            self.text = self.text[i:]
            return 0
        return i


def walk(f, start: int, stop: int, lead_comma: bool, block: int, on_value=None) -> int:
    """Walk the values of an array from byte `start` (just after its '[', or just after one of its values
    when `lead_comma`) to the ']' that closes it, reading the file `f` up to byte `stop`; returns the
    offset of that ']'. on_value(first byte, end byte, value) is called for each value; when it returns
    True the walk stops there and returns that value's end; a value nested deeper than Python's parser
    goes is passed as DEEP. Raises ScanStop: 'cut' when the bytes end first (pos: the end of the last
    whole value), 'syntax' on malformed JSON, 'close' on a '}' where ',' or ']' was expected (the walk
    began inside a value)."""
    w = Window(f, start, stop, block)
    i, last_end, state = 0, start, ("comma" if lead_comma else "first")   # first | comma | value
    while True:
        i = _blank(w, i)
        if i >= len(w.text):
            raise ScanStop("cut", last_end, "the bytes end before the array closes")
        c = w.text[i]
        if c == "]" and state != "value":
            return w.base + i
        if state == "comma":
            if c != ",":
                kind = "close" if c == "}" else "syntax"
                raise ScanStop(kind, w.base + i, f"{_show(c)} where ',' or ']' was expected")
            i, state = i + 1, "value"
            continue
        if c in "]}":
            raise ScanStop("syntax", w.base + i, f"{_show(c)} where a value was expected")
        first_byte = w.base + i
        value, i = _decode_at(w, i, last_end)
        last_end, state = w.base + i, "comma"
        if on_value is not None and on_value(first_byte, last_end, value):
            return last_end
        i = w.drop_before(i)


def _decode_at(w: Window, i: int, last_end: int):
    """The value starting at w.text[i] and the index after it, the window read further while the value
    runs past it."""
    while True:
        try:
            return _DECODER.raw_decode(w.text, i)
        except RecursionError:   # DuckDB's reader takes any depth: find the end without Python's parser
            return DEEP, _deep_end(w, i, last_end)
        except json.JSONDecodeError as e:
            near_end = e.pos >= len(w.text.rstrip()) - _NEAR_END or e.msg.startswith("Unterminated string")
            if near_end and w.more():
                continue
            if near_end:
                raise ScanStop("cut", last_end, "the bytes end inside a value") from None
            raise ScanStop("syntax", w.base + e.pos, e.msg[0].lower() + e.msg[1:]) from None


def _deep_end(w: Window, i: int, last_end: int) -> int:
    """End of a value nested too deep for json's parser, by counting brackets (value_end)."""
    while True:
        try:
            return value_end(w.text, i, 1 << 30)
        except ScanStop as s:
            if s.kind == "cut" and w.more():
                continue
            raise ScanStop(s.kind, last_end if s.kind == "cut" else w.base + s.pos, s.reason) from None


def _blank(w: Window, i: int) -> int:
    while True:
        i = _BLANK.match(w.text, i).end()
        if i < len(w.text) or not w.more():
            return i


def _show(c: str) -> str:
    return repr(c) if c.isprintable() else f"byte 0x{ord(c):02x}"


def value_end(text: str, i: int, max_depth: int) -> int:
    """End (exclusive) of the JSON value starting at text[i], found without building it: strings are
    skipped whole and brackets counted. Raises ScanStop: 'cut' when the text ends first, 'deep' past
    `max_depth` levels, 'syntax' for a bracket that does not match or a value that is not JSON."""
    c = text[i:i + 1]
    if c == '"':
        m = _STRING.match(text, i)
        if not m:
            raise ScanStop("cut", i, "a string is not closed")
        return m.end()
    if c not in ("[", "{"):
        m = _SCALAR.match(text, i)
        if not m or m.end() == i:
            if i >= len(text):
                raise ScanStop("cut", i, "the text ends where a value was expected")
            raise ScanStop("syntax", i, f"{_show(c)} where a value was expected")
        return m.end()
    stack, pos = [], i
    while True:
        m = _NEXT.search(text, pos)
        if m is None:
            raise ScanStop("cut", i, "a value is not closed")
        t = m.group()
        if t == '"':
            s = _STRING.match(text, m.start())
            if not s:
                raise ScanStop("cut", i, "a string is not closed")
            pos = s.end()
            continue
        if t in "[{":
            stack.append("]" if t == "[" else "}")
            if len(stack) > max_depth:
                raise ScanStop("deep", m.start(), f"nested deeper than {max_depth} levels")
        elif not stack or stack.pop() != t:
            raise ScanStop("syntax", m.start(), f"{t!r} does not close what was opened")
        elif not stack:
            return m.end()
        pos = m.end()


def load_value(raw: bytes, key: str):
    """A value's bytes as Python data: strict UTF-8, and an object that repeats a key is refused (the
    JSON reader refuses it in events too). Raises ValueError naming what is wrong."""
    def no_repeats(pairs):
        seen = {}
        for k, v in pairs:
            if k in seen:
                raise ValueError(f"the key {k!r} appears twice in {key}")
            seen[k] = v
        return seen
    return json.loads(raw.decode("utf-8"), object_pairs_hook=no_repeats)


def blank_at(text: str, i: int) -> int:
    """Index of the first non-blank character at or after i."""
    return _BLANK.match(text, i).end()

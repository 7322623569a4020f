"""JSON read at byte offsets of a file that is never loaded whole: the values of an array walked one by
one, and single values (the top-level keys around the event array) checked for depth and size before
Python builds them.

Bytes are decoded as latin-1 for walking, one character per byte, so a position in the text is the byte
offset in the file; JSON's structure is ASCII, so latin-1 and UTF-8 agree on it. A value kept as Python
data is decoded again as UTF-8 (`load_value`)."""
import json
import re
from dataclasses import dataclass

from tracedb.ingest.capped_read import BLANK_RUN_MAX, VALUE_MAX, mib

_DECODER = json.JSONDecoder()
_BLANK = re.compile(r"[ \t\r\n]*")
_COMMA = re.compile(r"[ \t\r\n]*,[ \t\r\n]*")
# What changes the depth, or a string: a run of brackets is one match, so that a value nested a million
# levels deep is counted in C (one match per bracket: 10 MB of '[' took seconds of Python); a string is
# one match too, or its opening quote alone when the text ends inside it.
_NEXT = re.compile(r'[\[{]+|[\]}]+|"[^"\\]*(?:\\.[^"\\]*)*"|"')
_CLOSING = bytes.maketrans(b"[{", b"]}")
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
    walk did not open: the walk began inside a value), 'limit' (more than BLANK_RUN_MAX blanks in a row,
    or a value longer than VALUE_MAX), 'value' (a value its caller refuses); for the last two the reason
    says what was expected too."""
    kind: str
    pos: int
    reason: str


def shown(v) -> str:
    """A value as JSON, at most 60 characters, for a message."""
    try:
        text = json.dumps(v, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


LONG_BLANKS = (f"more than {mib(BLANK_RUN_MAX)} of blanks in a row; expected at most {mib(BLANK_RUN_MAX)} of blanks "
               "between two JSON values")
LONG_VALUE = (f"a value longer than {mib(VALUE_MAX)}; expected events of at most {mib(VALUE_MAX)} each (DuckDB's "
              "JSON reader reads none longer)")


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

    def drop_before(self, i: int, always: bool = False) -> int:
        """Forget the text before index i (a walk never goes back; past 4 MiB of it, or `always`); returns
        the new index of that byte."""
        if i > (1 << 22) or (always and i):
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
        if state == "comma":     # the common case at once: blanks, a comma, blanks and the next value
            m = _COMMA.match(w.text, i)
            if m is not None and m.end() < len(w.text) and m.end() - i <= BLANK_RUN_MAX \
                    and w.text[m.end()] not in "]}":
                i = m.end()
                first_byte = w.base + i
                value, i = _decode_at(w, i, last_end)
                last_end = w.base + i
                if on_value is not None and on_value(first_byte, last_end, value):
                    return last_end
                i = w.drop_before(i)
                continue
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
    runs past it, up to VALUE_MAX (each read doubles the window: the value is parsed ~2 times over)."""
    while True:
        try:
            value, end = _DECODER.raw_decode(w.text, i)
        except RecursionError:   # DuckDB's reader takes any depth: find the end without Python's parser
            return DEEP, _deep_end(w, i, last_end)
        except json.JSONDecodeError as e:
            near_end = e.pos >= len(w.text.rstrip()) - _NEAR_END or e.msg.startswith("Unterminated string")
            if near_end and len(w.text) - i > VALUE_MAX:
                raise ScanStop("limit", w.base + i, LONG_VALUE) from None
            if near_end and w.more():
                continue
            if near_end:
                raise ScanStop("cut", last_end, "the bytes end inside a value") from None
            raise ScanStop("syntax", w.base + e.pos, e.msg[0].lower() + e.msg[1:]) from None
        except ValueError:       # Python's int() refuses a number of more than 4,300 digits
            raise ScanStop("limit", w.base + i, "a number of more than 4300 digits") from None
        if end - i > VALUE_MAX:
            raise ScanStop("limit", w.base + i, LONG_VALUE)
        return value, end


def _deep_end(w: Window, i: int, last_end: int) -> int:
    """End of a value nested too deep for json's parser, by counting brackets (_count), the count carried
    on as the window is read further (counted again from its start each time, 8 MB of `[{"a":` took 5.3 s
    to refuse, 3.0 s so)."""
    stack, pos = bytearray(), i
    while True:
        try:
            end, pos = _count(w.text, pos, stack, VALUE_MAX)     # never deeper than its bytes
        except ScanStop as s:
            raise ScanStop(s.kind, w.base + s.pos, s.reason) from None
        if end - i > VALUE_MAX or (end < 0 and len(w.text) - i > VALUE_MAX):
            raise ScanStop("limit", w.base + i, LONG_VALUE)
        if end >= 0:
            return end
        if not w.more():
            raise ScanStop("cut", last_end, "a value is not closed")


def _blank(w: Window, i: int) -> int:
    """Index of the first non-blank character at or after i, the blanks read past forgotten (a stream of
    2 GiB of blanks was kept whole: 5.4 GB of memory); more than BLANK_RUN_MAX in a row are refused."""
    first = w.base + i
    while True:
        i = _BLANK.match(w.text, i).end()
        if w.base + i - first > BLANK_RUN_MAX:
            raise ScanStop("limit", first, LONG_BLANKS)
        if i < len(w.text):
            return i
        i = w.drop_before(i, always=True)
        if not w.more():
            return i


def _show(c: str) -> str:
    return repr(c) if c.isprintable() else f"byte 0x{ord(c):02x}"


def value_end(text: str, i: int, max_depth: int) -> int:
    """End (exclusive) of the JSON value starting at text[i], found without building it: strings are
    skipped whole and brackets counted, a run of brackets at a time (linear in the text however deep).
    Raises ScanStop: 'cut' when the text ends first, 'deep' past `max_depth` levels, 'syntax' for a
    bracket that does not match or a value that is not JSON."""
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
    end, _ = _count(text, i, bytearray(), max_depth)
    if end < 0:
        raise ScanStop("cut", i, "a value is not closed")
    return end


def _count(text: str, pos: int, stack: bytearray, max_depth: int) -> tuple[int, int]:
    """Brackets counted from text[pos] on, `stack` holding the closing bracket each open level expects (one
    byte a level): (end of the value, -1) once the outermost closes, or (-1, where to go on) when the text
    ends first (the count goes on there, in more text, with the same stack). Raises ScanStop 'deep' past
    `max_depth` levels, 'syntax' for a bracket that does not match."""
    search = _NEXT.search
    while True:
        m = search(text, pos)
        if m is None:
            return -1, len(text)
        run = m.group()
        if run[0] == '"':
            if len(run) == 1:           # the text ends inside this string: go on from its quote
                return -1, m.start()
            pos = m.end()
            continue
        if run[0] in "[{":
            if len(stack) + len(run) > max_depth:
                raise ScanStop("deep", m.start() + max_depth - len(stack), f"nested deeper than {max_depth} levels")
            stack += run.encode("latin-1").translate(_CLOSING)
            pos = m.end()
            continue
        n = min(len(run), len(stack))
        expected = stack[len(stack) - n:][::-1].decode("latin-1")
        if run[:n] != expected or not n:
            k = next((j for j in range(n) if run[j] != expected[j]), n)
            raise ScanStop("syntax", m.start() + k, f"{run[k]!r} does not close what was opened")
        del stack[len(stack) - n:]
        if not stack:
            return m.start() + n, -1
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

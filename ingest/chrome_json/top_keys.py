"""The members of the top-level object of a Chrome trace beside its "traceEvents" array, read one at a time with
limits (chrome_json/layout.py finds the array with it, before and after): each value at most META_MAX_DEPTH deep
and META_MAX_BYTES long; only the keys tracedb reads (READ_KEYS) become Python data, the others are checked and
skipped."""
from tracedb.errors import InputError
from tracedb.ingest.capped_read import BLANK_RUN_MAX
from tracedb.ingest.chrome_json.jsonscan import LONG_BLANKS, ScanStop, blank_at, load_value, value_end

# The keys read as data; any other key's value is checked for depth and closing brackets and skipped.
READ_KEYS = ("schemaVersion", "deviceProperties", "distributedInfo", "baseTimeNanoseconds")
SKIPPED = "(not read)"
# Limits on the keys around the events. Real traces: 3 levels deep (deviceProperties, distributedInfo's
# pg_config), a few KB in all (HTA's nccl trace: 9 keys, 3 KB).
META_MAX_DEPTH = 64
META_MAX_BYTES = 64 << 20
# Bytes first read of the members (real traces' keys: a few KB); more is read while a member runs past.
_FIRST_READ = 1 << 16


CUT = "cut"


class Members:
    """The members of a JSON object read one at a time from byte `at` of a file (just after its '{', or
    after a value of it), the text read further while a member runs past it, up to META_MAX_BYTES. A
    "traceEvents" member is returned as soon as its '[' is seen, its value not read."""

    def __init__(self, f, at: int, stop: int, block: int, note: str, first: bool = True):
        self.f, self.at, self.stop, self.block, self.note, self.first = f, at, stop, block, note, first
        self.text, self.i = "", 0
        self._grow()

    def _grow(self) -> bool:
        """Reads on: _FIRST_READ bytes first, then as much again as is read so far, at most `block` at a time.
        Kineto's keys before the events are a few KB: reading a 4 MB block first read and decoded a 2.6 MB
        rank trace whole to find them (2-3 ms of its ~45 ms)."""
        end = self.at + len(self.text)
        if end >= self.stop or len(self.text) >= META_MAX_BYTES:
            return False
        self.f.seek(end)
        data = self.f.read(min(self.block, max(_FIRST_READ, len(self.text)), self.stop - end))
        self.text += data.decode("latin-1")
        return bool(data)

    def member(self, source: str, seen: dict):
        """(key, value, byte offset of the value) of the next member; None at the object's '}' (self.i is
        then after it); CUT when the bytes end inside the member."""
        while True:
            try:
                return self._member(source, seen)
            except _NeedMore:
                if not self._grow():
                    return CUT
            except ScanStop as s:
                expected = "" if s.kind == "limit" else "; expected the top-level object's keys and values"
                raise InputError(f"{source}: byte {self.at + s.pos}{self.note}: {s.reason}{expected}") from None

    def _member(self, source: str, seen: dict):
        text = self.text
        i = _blanks(text, self.i)
        if text[i] == "}":
            self.i = i + 1
            return None
        if not self.first:
            if text[i] != ",":
                raise ScanStop("syntax", i, f"{text[i]!r} where ',' or '}}' was expected")
            i = _blanks(text, i + 1)
        if text[i] != '"':
            raise ScanStop("syntax", i, f"{text[i]!r} where a key was expected")
        end = _end_of(text, i, 1)
        try:
            key = load_value(text[i:end].encode("latin-1"), "a key")
        except ValueError as e:   # a bad escape, invalid UTF-8
            raise ScanStop("syntax", i, f"a key that is not a JSON string ({_reason(e)})") from None
        i = _blanks(text, end)
        if text[i] != ":":
            raise ScanStop("syntax", i, f"{text[i]!r} where ':' was expected")
        i = _blanks(text, i + 1)
        at = self.at + i
        if key in seen or (key == "traceEvents" and "traceEvents" in seen):
            raise InputError(f"{source}: byte {at}{self.note}: the top-level key {key!r} appears twice; expected "
                             "each key once")
        if key == "traceEvents":
            if text[i] != "[":
                raise InputError(f"{source}: byte {at}{self.note}: \"traceEvents\" holds {_kind(text[i])}; "
                                 "expected an array of events")
            self.i, self.first = i + 1, False
            return key, None, at
        try:
            end = _end_of(text, i, META_MAX_DEPTH)
        except ScanStop as s:   # too deep: the value's first byte; malformed: the byte itself
            raise InputError(f"{source}: byte {at if s.kind == 'deep' else self.at + s.pos}{self.note}: {key!r}: "
                             f"{s.reason}; expected a JSON value at most {META_MAX_DEPTH} levels deep") from None
        if end - i > META_MAX_BYTES:
            raise InputError(f"{source}: byte {at}{self.note}: {key!r} is {(end - i) / 1e6:.0f} MB; expected at "
                             f"most {META_MAX_BYTES >> 20} MB for a key beside the events")
        value = SKIPPED
        if key in READ_KEYS:
            try:
                value = load_value(text[i:end].encode("latin-1"), repr(key))
            except (ValueError, RecursionError) as e:
                raise InputError(f"{source}: byte {at}{self.note}: {key!r}: {_reason(e)}; expected a JSON value") \
                    from None
        self.i, self.first = end, False
        return key, value, at


class _NeedMore(Exception):
    """The text ends inside the member being read."""


def _need(text: str, i: int) -> int:
    if i >= len(text):
        raise _NeedMore()
    return i


def _blanks(text: str, i: int) -> int:
    """_need of the first non-blank at or after i; more than BLANK_RUN_MAX blanks in a row are refused
    (else 64 MiB of blanks read as "no traceEvents array in the first 64 MiB")."""
    j = blank_at(text, i)
    if j - i > BLANK_RUN_MAX:
        raise ScanStop("limit", i, LONG_BLANKS)
    return _need(text, j)


def _end_of(text: str, i: int, depth: int) -> int:
    """value_end, or _NeedMore when the value may go on past the text (a number ending at its end too)."""
    try:
        end = value_end(text, i, depth)
    except ScanStop as s:
        if s.kind == "cut":
            raise _NeedMore() from None
        raise
    if end >= len(text):
        raise _NeedMore()
    return end


def _kind(c: str) -> str:
    return {"{": "an object", '"': "a string", "t": "true", "f": "false", "n": "null", "": "nothing"}.get(
        c, "a number" if c in "-0123456789" else repr(c))


def _reason(e: BaseException) -> str:
    if isinstance(e, UnicodeDecodeError):
        return f"invalid UTF-8 at its byte {e.start}"
    if isinstance(e, RecursionError):
        return "nested too deep"
    return str(e).split(": line ")[0]

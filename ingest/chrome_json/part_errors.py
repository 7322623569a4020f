"""A part's error told in terms of the user's file: the byte offset, the event, the field, what was expected.

DuckDB's reader names the part file it read and a record number in it ("JSON transform error in file
"/tmp/.../part0.json", in record/value 8: ..."). Each part is a known byte range of the user's file, so
walking that range's events with Python's parser (~60 MB/s, on failures only) finds the record's offset,
and the record itself says which field is wrong. DuckDB 2.0 counts records from 1, and in a malformed-
JSON error one further ("at byte B in record/value K" for the (K-1)th): the walk does not rely on it, it
finds the malformed byte itself."""
import json
import re

from tracedb.errors import InputError
from tracedb.ingest import formats
from tracedb.ingest.chrome_json.jsonscan import DEEP, LONG_VALUE, ScanStop, shown, walk
from tracedb.ingest.chrome_json.layout import Layout

_RECORD = re.compile(r"record/value (\d+)")
_REASON = re.compile(r"(?:record/value \d+|Error): (.*)$")
_IN_FILE = re.compile(r' (?:while reading|in) file "[^"]*"')
_PEEK = 1 << 16


class RetrySafely(formats.ReadAgain):
    """The fast read failed: a cut between parts fell inside an event, or an args value has a type the
    typed schema does not take. Parse the array again as one part with every args value as JSON."""

    def adjust(self, options: dict):
        options.update(parts=1, safe=True)


class EndsEarly(Exception):
    """A walk from the event array's first byte met the ']' that closes it at byte `pos`, before the end
    the layout found (metadata after the array that holds objects with "ph" looks like events from the
    end): load again with that end."""

    def __init__(self, pos: int):
        super().__init__(pos)
        self.pos = pos


def part_error(e: Exception, source: str, layout: Layout, rng: tuple[int, int], safe: bool) -> Exception:
    """What to raise for DuckDB's error `e` on the part of bytes `rng` of layout.path: RetrySafely when a
    cut or (before the safe read) an args value may be the cause, else an InputError naming the byte."""
    msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    reason = (_REASON.search(msg).group(1) if _REASON.search(msg) else msg).strip().rstrip(".")
    reason = _IN_FILE.sub("", reason)       # the part file DuckDB read is no file of the user's
    k = int(_RECORD.search(msg).group(1)) if _RECORD.search(msg) else None
    malformed = "Malformed JSON" in msg
    target = None if k is None else (k - 1 if malformed else k)
    found, stop = _walk_part(layout, rng, target)

    def where(pos: int) -> str:   # not str.format: the path may hold braces
        return f"{source}: byte {pos}{layout.note}"
    if stop is not None:
        if stop.kind in ("limit", "value"):     # past a limit, or not an event: the reason names it
            return InputError(f"{where(stop.pos)}: {stop.reason}")
        if stop.kind == "early" and rng[0] == layout.start:
            return EndsEarly(stop.pos)   # walked from the array's start: that ']' is the array's end
        if stop.kind in ("close", "early") or (stop.kind == "cut" and stop.pos < rng[1]):
            if not safe:
                return RetrySafely()   # a cut inside an event, most likely: one part has none
            return InputError(f"{where(stop.pos)}: {stop.reason}; expected the events of the traceEvents "
                              "array, separated by commas")
        if stop.kind == "syntax":
            return InputError(f"{where(stop.pos)}: malformed JSON ({stop.reason}); expected the events of "
                              "the traceEvents array")
    if found is None and "maximum_object_size" in msg:    # an event DuckDB reads no more of: past 32 MiB less
        return InputError(f"{source}: between bytes {rng[0]} and {rng[1]}{layout.note}: {LONG_VALUE}")   # 5 bytes
    if found is None:
        bad_utf8 = _invalid_utf8(layout.path, rng)
        if bad_utf8 is not None:
            return InputError(f"{where(bad_utf8)}: invalid UTF-8; expected JSON text in UTF-8")
        if not safe and not malformed:
            return RetrySafely()
        return InputError(f"{source}: between bytes {rng[0]} and {rng[1]}{layout.note}: {reason}")
    first, end, value = found
    bad_utf8 = _invalid_utf8(layout.path, (first, end))
    if bad_utf8 is not None:
        return InputError(f"{where(bad_utf8)}: invalid UTF-8; expected JSON text in UTF-8")
    if malformed:    # DuckDB's parser refused what Python's takes: NaN, Infinity
        return InputError(f"{where(first)}: malformed JSON in {describe_event(value)} ({reason}); expected "
                          "standard JSON (numbers, not NaN or Infinity)")
    what = _wrong_field(layout.path, first, end, value)
    if what is not None:
        return InputError(f"{where(first)}: {describe_event(value)} {what}")
    if not safe:
        return RetrySafely()      # an args value of a type the typed read does not take
    return InputError(f"{where(first)}: {describe_event(value)}: {reason}")


def event_at(layout: Layout, rng: tuple[int, int], ordinal: int):
    """(first byte, end byte, value) of the `ordinal`th (from 1) value of the part of bytes `rng`."""
    found, _ = _walk_part(layout, rng, ordinal)
    return found


def bad_time(value) -> str:
    """Why a complete event's ts or dur was refused (ingest_chrome_check), e.g. "has dur -5; expected ..."."""
    ts, dur = value.get("ts"), value.get("dur", _MISSING)
    if not _number_like(ts) or not abs(float(ts)) <= 4e15:
        return f"has {_field('ts', ts)}; expected a timestamp in µs, a number within ±4e15"
    return f"has {_field('dur', dur)}; expected a duration in µs, a number from 0 to 1e15"


_MISSING = object()


def _walk_part(layout: Layout, rng: tuple[int, int], target: int | None):
    """((first, end, value) of the target-th value or None, ScanStop or None) over the part's bytes: the
    ScanStop says why the walk ended before the part's end, or where the array closed inside it."""
    x, y = rng
    count, found = [0], []

    def keep(first, end, value):
        count[0] += 1
        if count[0] == target:
            found.append((first, end, value))
            return True
        return False

    with open(layout.path, "rb") as f:
        try:
            close = walk(f, x, y, x != layout.start, _PEEK, on_value=keep)
        except ScanStop as s:
            if found:
                return found[0], None
            return None, (None if s.kind == "cut" and s.pos >= _last_event_end(layout, rng) else s)
    if found:
        return found[0], None
    if close < _last_event_end(layout, rng):
        return None, ScanStop("early", close, "']' closes the event array before its end")
    return None, None


def _last_event_end(layout: Layout, rng: tuple[int, int]) -> int:
    """Where the part's last event ends at the latest: the part's end, less blanks before it."""
    with open(layout.path, "rb") as f:
        f.seek(max(rng[0], rng[1] - 4096))
        tail = f.read(rng[1] - max(rng[0], rng[1] - 4096))
    return rng[1] - (len(tail) - len(tail.rstrip(b" \t\r\n")))


def _invalid_utf8(path: str, rng: tuple[int, int]) -> int | None:
    """Offset of the first byte in the range that is not UTF-8 (DuckDB refuses those; latin-1 walking
    does not see them); a character split between two reads is carried over."""
    with open(path, "rb") as f:
        f.seek(rng[0])
        pos, carry = rng[0], b""
        while pos + len(carry) < rng[1]:
            block = f.read(min(1 << 22, rng[1] - pos - len(carry)))
            if not block:
                break
            data = carry + block
            try:
                data.decode("utf-8")
                pos, carry = pos + len(data), b""
            except UnicodeDecodeError as e:
                if e.end < len(data) or len(data) - e.start > 3:
                    return pos + e.start
                pos, carry = pos + e.start, data[e.start:]    # maybe a character cut by this read
        return pos if carry else None


def _wrong_field(path: str, first: int, end: int, value) -> str | None:
    """What is wrong with a record the reader refused, in its top-level fields, or None (then it is an
    args value): not an object, a key twice, ts not a number, args not an object."""
    if value is DEEP:        # nested past Python's parser: what it is, from its first byte
        with open(path, "rb") as f:
            f.seek(first)
            opener = f.read(1)
        return None if opener == b"{" else ("is an array nested too deep to show; expected an event object "
                                            "{\"ph\": ..., \"ts\": ..., ...}")
    if not isinstance(value, dict):
        return f"is {_show(value)}; expected an event object {{\"ph\": ..., \"ts\": ..., ...}}"
    twice = _repeated_key(path, first, end)
    if twice is not None:
        return f"has the key {twice!r} twice; expected each key once"
    if "ts" in value and value["ts"] is not None and not _number_like(value["ts"]):
        return f"has {_field('ts', value['ts'])}; expected a timestamp in µs (a number)"
    if value.get("args") is not None and not isinstance(value["args"], dict):
        return f"has {_field('args', value['args'])}; expected an object"
    return None


def _repeated_key(path: str, first: int, end: int) -> str | None:
    found = []

    def pairs(items):
        keys = [k for k, _ in items]
        found.extend(k for k in keys if keys.count(k) > 1)
        return dict(items)

    with open(path, "rb") as f:
        f.seek(first)
        try:
            json.loads(f.read(end - first).decode("latin-1"), object_pairs_hook=pairs)
        except (ValueError, RecursionError):
            return None
    return found[0] if found else None


def _number_like(v) -> bool:
    if isinstance(v, bool) or v is None:
        return False
    if isinstance(v, (int, float)):
        return v == v and abs(v) != float("inf")
    if isinstance(v, str):
        try:
            return _number_like(float(v))
        except ValueError:
            return False
    return False


def describe_event(value) -> str:
    name = value.get("name") if isinstance(value, dict) else None
    ph = value.get("ph") if isinstance(value, dict) else None
    if isinstance(name, str):
        return f"the event {name[:80]!r}" + (f" (ph {ph!r})" if isinstance(ph, str) else "")
    return "an event" if isinstance(value, dict) else "a value of the event array"


def _field(key: str, v) -> str:
    return f"no {key}" if v is _MISSING else f"{key} {_show(v)}"


_show = shown

"""Where the `traceEvents` array lies in a plain JSON file, where its events meet, and the keys around it
read (with limits) for what they say about the run (chrome_json/facts.py checks that).

The head is read key by key up to `"traceEvents": [`. The end is found by walking the last few events
forward with Python's parser from a place known to lie between two events (an event boundary followed
by an object with a "ph"), so metadata of any size or shape after the array (a 5 MB object, a list of
objects) cannot be taken for events. What follows the array decides how the file ends:

    the rest of the object, then nothing        a complete trace
    the bytes end inside an event or the rest   a cut trace (crashed run): the complete events are kept
                                                and the run is marked truncated
    anything after the end of the document      refused, naming the byte where it starts

Zero bytes at the very end (a file system's tail after a crash) count as the end of the file.

The keys around the events are read with limits (chrome_json/top_keys.py); the facts read from them are
checked for type and range by facts.run_facts."""
import os
import re
from dataclasses import dataclass, field

from tracedb.errors import InputError
from tracedb.ingest.capped_read import BLANK_RUN_MAX, blank_refusal
from tracedb.ingest.chrome_json.config import DEFAULT, JsonIngestConfig
from tracedb.ingest.chrome_json.jsonscan import DEEP, ScanStop, shown, walk
from tracedb.ingest.chrome_json.top_keys import CUT, META_MAX_BYTES, Members
from tracedb.ingest.sniff import LEADING, past_blanks

# An event boundary: `}`, a comma, `{` and a key that starts Kineto and Perfetto events. It cannot occur
# inside a JSON string (the quote would be escaped), but it can inside args that hold a list of objects
# keyed like that: DuckDB then rejects a part, and the caller parses the array as one part instead.
BOUNDARY = re.compile(rb'\}\s*,\s*\{\s*"(?:ph|cat|name|pid|tid|ts|dur|args|id|s|bp)"\s*:')
# Where two objects of an array meet, whatever their first key: a candidate place to start walking.
_MEET = re.compile(rb"\}\s*,\s*\{")
# Events walked back from the end before the walk starts: a boundary inside an event's args (a list of
# objects with "ph") cannot be the earliest of four.
_ORIGIN_EVENTS = 4
# Looking for them: bytes read back at a time, bytes of one candidate read to see whether it is an event
# (Kineto's are ~0.3-2 KB; a longer one is passed over), and bytes read for all candidates before the walk
# starts from the first event instead. Each candidate first read 64 KiB: 3 million `{}` in a 9 MB trace's
# args took 32 s.
_BACK = 1 << 16
_CANDIDATE = 1 << 12
_CANDIDATE_MAX = 1 << 20
_ORIGIN_BUDGET = 32 << 20
# Bytes first read to look at one event (Kineto's are ~0.3-2 KB); more is read while an event runs past.
_PEEK = 1 << 16


@dataclass
class Layout:
    path: str                 # the plain JSON file (the decompressed copy for .gz)
    start: int                # first byte after '['
    end: int                  # the closing ']' (or where the complete events stop, when truncated)
    truncated: bool
    metadata: dict = field(default_factory=dict)    # top-level keys other than traceEvents
    object_form: bool = False   # {"traceEvents": [...]} rather than a bare array
    note: str = ""            # " of the inflated JSON" for a .gz: what byte offsets count
    clean_end: bool = False   # nothing but blanks after the document: DuckDB may read the file itself


def read_whole(layout: Layout) -> bool:
    """A bare array (BOM or blanks before it at most, blanks after it): DuckDB reads the file itself as one
    part, with no part file written."""
    return layout.clean_end and not layout.object_form and layout.start <= 4


def locate(path: str, source: str, config: JsonIngestConfig = DEFAULT, note: str = "",
           end_at: int | None = None) -> Layout:
    """Where the event array lies in `path` (named `source` in messages); `end_at`: see find_end."""
    layout = read_head(path, source, config, note)
    find_end(layout, source, config, end_at)
    return layout


def read_head(path: str, source: str, config: JsonIngestConfig, note: str = "") -> Layout:
    """The layout with its start, its form and the metadata keys before the events (end not known yet)."""
    with open(path, "rb") as f:
        lead = _lead(f, source, note)
        f.seek(lead)
        first = f.read(1)
        if first == b"[":
            start, meta = lead + 1, {}
        elif first == b"{":
            start, meta = object_start(f, source, config, note)
        else:
            raise InputError(f"{source}: byte offset {lead}{note}: expected a JSON trace ('{{' or '['), "
                             f"found {first!r}")
    return Layout(path, start, start, False, meta, object_form=first == b"{", note=note)


# ----------------------------------------------------------------------------------------------- head
def _lead(f, source: str, note: str) -> int:
    """Offset of the document's first byte, after a BOM and at most BLANK_RUN_MAX blanks."""
    f.seek(0)
    head = f.read(_PEEK)
    text = head.lstrip(LEADING)
    if text or len(head) < _PEEK:
        return len(head) - len(text)
    f.seek(0)
    data = f.read(BLANK_RUN_MAX + 1)
    return len(data) - len(past_blanks(data, source, note))


def object_start(f, source: str, config: JsonIngestConfig, note: str = "") -> tuple[int, dict]:
    """The byte after `"traceEvents": [` and the keys before it, read one by one (at most META_MAX_BYTES)."""
    lead = _lead(f, source, note) + 1        # after '{'
    obj, meta = Members(f, lead, 1 << 62, config.chunk, note), {}   # to the file's end (a .gz too)
    while True:
        member = obj.member(source, meta)
        if member is None:
            raise InputError(f"{source}: no \"traceEvents\" array in the first {obj.at + obj.i:,} bytes (the whole "
                             "object); expected a Chrome trace object {\"traceEvents\": [...]} or a bare event array")
        if member == CUT:
            raise InputError(f"{source}: no \"traceEvents\" array in the first {obj.at + len(obj.text):,} bytes; "
                             "expected a Chrome trace object {\"traceEvents\": [...]} or a bare event array (the "
                             f"keys before it are read up to {META_MAX_BYTES >> 20} MB)")
        key, value, at = member
        if key == "traceEvents":
            return at + 1, meta
        meta[key] = value


# ------------------------------------------------------------------------------------------------ end
def find_end(layout: Layout, source: str, config: JsonIngestConfig, end_at: int | None = None):
    """Sets the layout's end, truncated, clean_end and the metadata keys after the events. `end_at`: the
    offset of the array's ']', known from a walk of every event (part_errors.EndsEarly); what follows it
    is checked all the same."""
    size = os.path.getsize(layout.path)
    with open(layout.path, "rb") as f:
        data_end = _data_end(f, layout.start, size, config.chunk)
        close = end_at if end_at is not None else _array_close(f, layout, data_end, source, config)
        if close is None:
            return                 # cut inside the events: the layout is set
        layout.end = close
        more, layout.truncated, clean = _after_events(f, layout, close + 1, data_end, source, config)
        layout.metadata.update(more)
        layout.clean_end = clean and data_end == size


def _array_close(f, layout: Layout, data_end: int, source: str, config: JsonIngestConfig) -> int | None:
    """Offset of the ']' that closes the event array, walked to from a few events before the end (from
    its first event when that place turned out to lie inside an event); None for a file cut inside the
    events (the layout is then set: _cut_or_refuse)."""
    origin, lead_comma = _walk_origin(f, layout.start, data_end, config)
    try:
        return walk(f, origin, data_end, lead_comma, _PEEK, on_value=None if lead_comma else _an_event)
    except ScanStop as s:
        stop = s
    if stop.kind == "close" and lead_comma:
        try:
            return walk(f, layout.start, data_end, False, config.chunk, on_value=_an_event)
        except ScanStop as s:
            stop = s
    return _cut_or_refuse(layout, stop, source)


def _an_event(first: int, end: int, value) -> bool:
    """A walk from the array's first value stops at the first that is no object, which DuckDB's reader
    refuses anyway: five million numbers in a 10 MB array were walked for 7 s before it did."""
    if value is not DEEP and not isinstance(value, dict):
        raise ScanStop("value", first, f"a value of the event array is {shown(value)}; expected an event object "
                                       "{\"ph\": ..., \"ts\": ..., ...}")
    return False


def _cut_or_refuse(layout: Layout, s: ScanStop, source: str):
    """A walk that stopped before the array closed: a cut file ends at its last complete event (None:
    the layout is set); malformed JSON is refused."""
    if s.kind in ("limit", "value"):
        raise InputError(f"{source}: byte {s.pos}{layout.note}: {s.reason}")
    if s.kind != "cut":
        raise InputError(f"{source}: byte {s.pos}{layout.note}: {s.reason}; expected the events of the "
                         "traceEvents array, separated by commas")
    if s.pos <= layout.start:
        raise InputError(f"{source}: byte offset {layout.start}{layout.note}: the event array is cut before its "
                         "first complete event")
    layout.end, layout.truncated = s.pos, True
    return None


def _data_end(f, start: int, size: int, block: int) -> int:
    """Where the file's bytes end once zero bytes at its very end are left out."""
    end = size
    while end > start:
        lo = max(start, end - block)
        f.seek(lo)
        kept = f.read(end - lo).rstrip(b"\x00")
        if kept:
            return lo + len(kept)
        end = lo
    return end


def _walk_origin(f, start: int, data_end: int, config: JsonIngestConfig) -> tuple[int, bool]:
    """(offset, True) just after an event's '}' a few events before the end, found from the end _BACK
    bytes at a time: the earliest of the last _ORIGIN_EVENTS places where two objects meet and the second
    is an event (an object with a string "ph"); (start, False) when there is none, or when the candidates
    read _ORIGIN_BUDGET bytes before enough were found (the walk then covers every event)."""
    found, hi, spent = [], data_end, 0
    while hi > start and len(found) < _ORIGIN_EVENTS:
        lo = max(start, hi - _BACK)
        f.seek(lo)
        block = f.read(min(hi + 64, data_end) - lo)
        for m in reversed(list(_MEET.finditer(block))):
            at = lo + m.start() + 1
            if at >= hi:
                continue
            is_event, read = _event_at(f, lo + m.end() - 1, data_end)
            spent += read
            if is_event:
                found.append(at)
                if len(found) == _ORIGIN_EVENTS:
                    break
            if spent > _ORIGIN_BUDGET:
                return start, False
        hi = lo
    return (found[-1], True) if found else (start, False)


def _event_at(f, pos: int, data_end: int) -> tuple[bool, int]:
    """(the JSON value at `pos` is an object with a string "ph", bytes read to tell)."""
    seen = []
    try:
        walk(f, pos, min(data_end, pos + _CANDIDATE_MAX), False, _CANDIDATE,
             on_value=lambda a, b, v: seen.append(v) or True)
    except ScanStop:
        return False, f.tell() - pos
    return bool(seen) and isinstance(seen[0], dict) and isinstance(seen[0].get("ph"), str), f.tell() - pos


def _after_events(f, layout: Layout, at: int, data_end: int, source: str, config: JsonIngestConfig):
    """(keys after the events, cut short?, nothing but blanks after the document?) from byte `at` (after
    the array's ']'): the rest of the top-level object, then blanks only."""
    more, after = {}, at
    if layout.object_form:
        obj = Members(f, at, data_end, config.chunk, layout.note, first=False)
        while (member := obj.member(source, {**layout.metadata, **more, "traceEvents": None})) not in (None, CUT):
            more[member[0]] = member[1]
        if member == CUT:
            return more, True, False     # cut inside the keys after the events: the events are all there
        after = at + obj.i
    rest = _first_non_blank(f, after, data_end, config.chunk, source, layout.note)
    if rest is not None:
        raise InputError(f"{source}: byte {rest}{layout.note}: data after the end of the JSON document; expected "
                         f"nothing after its closing {'}' if layout.object_form else ']'!r} (two traces in one file?)")
    return more, False, True


def _first_non_blank(f, at: int, data_end: int, block: int, source: str, note: str) -> int | None:
    """Offset of the first byte from `at` to data_end that is not blank, None when there is none; more
    than BLANK_RUN_MAX blanks are refused."""
    pos = at
    while pos < data_end:
        f.seek(pos)
        chunk = f.read(min(block, data_end - pos, BLANK_RUN_MAX + 1))
        stripped = chunk.lstrip(b" \t\r\n")
        if stripped:
            return pos + len(chunk) - len(stripped)
        pos += len(chunk)
        if pos - at > BLANK_RUN_MAX:
            raise InputError(blank_refusal(source, at, note))
    return None


def boundary_after(path: str, target: int, limit: int) -> int | None:
    """The first event boundary at or after `target` and before `limit` (just after its '}')."""
    with open(path, "rb") as f:
        f.seek(target)
        m = BOUNDARY.search(f.read(max(0, limit - target)))
    return target + m.start() + 1 if m else None

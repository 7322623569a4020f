"""Where the `traceEvents` array lies in a plain JSON file, where its events meet, and what the keys around
it say about the run.

The array is located from the two ends of the file: its start from the head, its closing ']' from a
short tail; the metadata before and after it is small and parsed with `json`. A file cut short ends at
its last complete event."""
import json
import os
import re
from dataclasses import dataclass, field

from tracedb.errors import InputError
from tracedb.ingest.chrome_json.config import DEFAULT, JsonIngestConfig
from tracedb.ingest.sniff import LEADING

# An event boundary: `}`, a comma, `{` and a key that starts Kineto and Perfetto events. It cannot occur
# inside a JSON string (the quote would be escaped), but it can inside args that hold a list of objects
# keyed like that: DuckDB then rejects a part, and the caller parses the array as one part instead.
BOUNDARY = re.compile(rb'\}\s*,\s*\{\s*"(?:ph|cat|name|pid|tid|ts|dur|args|id|s|bp)"\s*:')
_TRACE_EVENTS_KEY = re.compile(rb'"traceEvents"\s*:\s*\[')
_BLANK_TO_END = re.compile(r"\s*\Z")   # matched at a position: no copy of the rest of the text
_BLANKS = re.compile(r"\s*")


@dataclass
class Layout:
    path: str                 # the plain JSON file (the decompressed copy for .gz)
    start: int                # first byte after '['
    end: int                  # the closing ']' (or where the complete events stop, when truncated)
    truncated: bool
    metadata: dict = field(default_factory=dict)    # top-level keys other than traceEvents
    object_form: bool = False   # {"traceEvents": [...]} rather than a bare array


def locate(path: str, source: str, config: JsonIngestConfig = DEFAULT) -> Layout:
    """Where the event array lies in `path` (named `source` in messages)."""
    layout = read_head(path, source, config)
    find_end(layout, source, config)
    return layout


def read_head(path: str, source: str, config: JsonIngestConfig) -> Layout:
    """The layout with its start, its form and the metadata keys before the events (end not known yet)."""
    with open(path, "rb") as f:
        head = f.read(config.chunk)
        lead = len(head) - len(head.lstrip(LEADING))
        first = head[lead:lead + 1]
        if first == b"[":
            start, meta = lead + 1, {}
        elif first == b"{":
            start, meta = object_start(f, source, config)
        else:
            raise InputError(f"{source}: byte offset {lead}: expected a JSON trace ('{{' or '['), found {first!r}")
    return Layout(path, start, start, False, meta, object_form=first == b"{")


def find_end(layout: Layout, source: str, config: JsonIngestConfig):
    """Sets the layout's end (and truncated, and the metadata keys after the events) from the file's tail."""
    size = os.path.getsize(layout.path)
    with open(layout.path, "rb") as f:
        for tail_len in config.tails:
            tail_at = max(layout.start, size - tail_len)
            f.seek(tail_at)
            end, more = _array_end(f.read(), tail_at, layout.object_form)
            if end is not None:
                layout.metadata.update(more)
                layout.end = end
                return
            if tail_at == layout.start:
                break
    layout.end = _last_complete_event(layout.path, layout.start, size, source, config)
    layout.truncated = True


def object_start(f, source: str, config: JsonIngestConfig) -> tuple[int, dict]:
    """The byte after `"traceEvents": [` and the metadata keys before it, read in growing chunks."""
    f.seek(0)
    buf = b""
    while True:
        block = f.read(config.chunk)
        buf += block
        m = _TRACE_EVENTS_KEY.search(buf)
        if m:
            break
        if not block or len(buf) > 64 * config.chunk:
            raise InputError(f"{source}: no \"traceEvents\" array in the first {len(buf):,} bytes; expected a "
                             "Chrome trace object {\"traceEvents\": [...]} or a bare event array")
    prefix = buf[:m.start()].decode("utf-8", "replace").strip().lstrip("\ufeff")
    try:
        meta = json.loads(prefix.rstrip().rstrip(",") + "}")
    except ValueError:
        meta = {}   # metadata we cannot read is not worth refusing the events for
    return m.end(), meta if isinstance(meta, dict) else {}


def _array_end(tail: bytes, tail_at: int, object_form: bool):
    """Position of the ']' closing the event array, from the last bytes of the file, and the metadata
    keys after it: the first ']' after which the rest of the file is exactly the end of the top-level
    object (`, "key": value, ...}`) or of the file. Later candidates can pass too (Kineto may write
    deviceProperties after the events), earlier ones inside events cannot (an event follows them).
    Each candidate is checked by walking the tokens after it, so a failing one costs a few tokens.
    surrogateescape keeps a multi-byte character cut by the tail's start at its exact byte length."""
    text = tail.decode("utf-8", "surrogateescape")
    decoder = json.JSONDecoder()
    for m in re.finditer(r"\]", text):
        if object_form:
            more = _object_tail(text, m.end(), decoder)
        else:
            more = {} if _BLANK_TO_END.match(text, m.end()) else None
        if more is not None:
            return tail_at + len(text[:m.start()].encode("utf-8", "surrogateescape")), more
    return None, {}


def _object_tail(text: str, i: int, decoder) -> dict | None:
    """The keys of `, "k": v, ... }` starting at text[i] when that is all that is left, else None."""
    i = _BLANKS.match(text, i).end()
    out = {}
    while True:
        if text.startswith("}", i):
            return out if _BLANK_TO_END.match(text, i + 1) else None
        if not text.startswith(",", i):
            return None
        i = _BLANKS.match(text, i + 1).end()
        try:
            key, i = decoder.raw_decode(text, i)
            i = _BLANKS.match(text, i).end()
            if not isinstance(key, str) or not text.startswith(":", i):
                return None
            value, i = decoder.raw_decode(text, _BLANKS.match(text, i + 1).end())
        except ValueError:
            return None
        out[key] = value
        i = _BLANKS.match(text, i).end()


def _last_complete_event(path: str, start: int, size: int, source: str, config: JsonIngestConfig) -> int:
    """A cut file (crashed run, Kineto's unfinished .tmp): the events end at the last boundary."""
    with open(path, "rb") as f:
        pos = size
        while pos > start:
            lo = max(start, pos - config.chunk)
            f.seek(lo)
            block = f.read(pos - lo + 64)
            hits = list(BOUNDARY.finditer(block))
            if hits:
                return lo + hits[-1].start() + 1      # just after the '}' of the last complete event
            pos = lo
    raise InputError(f"{source}: byte offset {start}: the event array is cut before its first complete event")


def boundary_after(path: str, target: int, limit: int) -> int | None:
    """The first event boundary at or after `target` and before `limit` (just after its '}')."""
    with open(path, "rb") as f:
        f.seek(target)
        m = BOUNDARY.search(f.read(max(0, limit - target)))
    return target + m.start() + 1 if m else None


def run_facts(meta: dict) -> dict:
    """What the top-level keys say about the run: device name, rank, world size, time base."""
    facts = {}
    props = meta.get("deviceProperties")
    if isinstance(props, list) and props and isinstance(props[0], dict):
        facts["device_name"] = props[0].get("name") or None
    dist = meta.get("distributedInfo")
    if isinstance(dist, dict):
        for key, fact in (("rank", "rank"), ("world_size", "world_size")):
            if isinstance(dist.get(key), int):
                facts[fact] = dist[key]
    base = meta.get("baseTimeNanoseconds")
    facts["base_ns"] = base if isinstance(base, int) else 0
    return facts

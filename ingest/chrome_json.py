"""Chrome trace-event JSON (PyTorch profiler / Kineto, Ascend trace_view.json) -> events in the store.

The file is never loaded as a whole Python object. Its `traceEvents` array is located from the two ends
of the file (the metadata before it and after it is small and parsed with `json`), cut into parts at
event boundaries, and each part is handed to DuckDB's JSON reader with an explicit schema, so parsing
runs in C++ on every core with memory bounded by DuckDB's buffers (PERFORMANCE.md: the obvious
`read_json(format='unstructured') + unnest` took 71 s and 5.3 GB for 1 GB; `json.load` 41 s, 5.4 GB).

A part is a plain file `[` + slice + `]` in a temporary folder: the one copy (copy_file_range, written
while the parts before it are parsed) costs ~0.4 s of CPU per GB, which is what lets a gzip trace and a
compact one-line trace take the same path.
"""
import collections
import contextlib
import gzip
import json
import os
import queue
import re
import shutil
import tempfile
import threading
import time
import zlib
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor
from concurrent.futures import wait as wait_any
from dataclasses import dataclass, field

import duckdb

from tracedb.errors import InputError

CHUNK = 1 << 22
HEAD_BYTES = 4 << 20       # inflated before the head of a .gz is read (Kineto's keys before the events: a few KB)
TS_SNIFF = 1 << 16         # bytes after the array's start in which ts_kind looks at the first ts
TAILS = (1 << 16, 1 << 20)  # bytes read from the end to find where the event array closes; a small tail first
PART_MIN = 16 << 20       # below this an array is parsed as one part
# An event boundary: `}`, a comma, `{` and a key that starts Kineto and Perfetto events. It cannot occur
# inside a JSON string (the quote would be escaped), but it can inside args that hold a list of objects
# keyed like that: DuckDB then rejects a part, and the caller parses the array as one part instead.
BOUNDARY = re.compile(rb'\}\s*,\s*\{\s*"(?:ph|cat|name|pid|tid|ts|dur|args|id|s|bp)"\s*:')


class RetrySafely(Exception):
    """The fast read failed: a cut between parts fell inside an event, or an args value has a type the
    typed schema does not take. Parse the array again as one part with every args value as JSON."""


@dataclass
class Layout:
    path: str                 # the plain JSON file (the decompressed copy for .gz)
    start: int                # first byte after '['
    end: int                  # the closing ']' (or where the complete events stop, when truncated)
    truncated: bool
    metadata: dict = field(default_factory=dict)    # top-level keys other than traceEvents
    object_form: bool = False   # {"traceEvents": [...]} rather than a bare array


def is_gzip(path: str) -> bool:
    with open(path, "rb") as f:
        return f.read(2) == b"\x1f\x8b"


def looks_like_json(path: str) -> bool:
    """First non-blank byte is '{' or '[' (after gunzip): the sniffer's test for this format."""
    try:
        opener = gzip.open if is_gzip(path) else open
        with opener(path, "rb") as f:
            head = f.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    except (OSError, EOFError, zlib.error):
        return False
    return head[:1] in (b"{", b"[")


def head_facts(path: str) -> dict:
    """run_facts of the keys written before the event array (Kineto puts distributedInfo there): the rank
    of a trace without ingesting it. Empty for a bare array or a file that cannot be read."""
    try:
        opener = gzip.open if is_gzip(path) else open
        with opener(path, "rb") as f:
            if f.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")[:1] != b"{":
                return {}
            return run_facts(_object_start(f, path)[1])
    except (OSError, EOFError, zlib.error, InputError):
        return {}


class Gunzip(threading.Thread):
    """Decompresses a .gz trace into `out` on its own thread, so parsing starts on the first parts while
    the rest is still being inflated (zlib releases the GIL); readers wait for bytes with `wait_for`.
    A corrupt stream is an InputError naming the offset; a cut one keeps what came before the cut
    (the layout then marks the run truncated)."""

    IN_BLOCK = 1 << 20   # compressed bytes read at a time
    OUT_CAP = 2 << 20    # most bytes inflated per call, so a block of a 20:1 stream stays small in memory
                         # (with 16 MB, peak RSS for 1 GB reached 0.57-0.62 GB; with 2 MB, 0.55 GB)

    def __init__(self, path: str, workdir: str):
        super().__init__(daemon=True)
        self.path, self.out = path, os.path.join(workdir, "trace.json")
        self.size, self.done, self.stop, self.error = 0, False, False, None
        self.cond = threading.Condition()
        open(self.out, "wb").close()   # readers may open it before the first bytes arrive

    def run(self):
        read = 0
        try:
            d = zlib.decompressobj(wbits=31)
            with open(self.path, "rb") as src, open(self.out, "wb") as dst:
                while (block := src.read(self.IN_BLOCK)) and not self.stop:
                    read += len(block)
                    while block and not self.stop:
                        self._emit(dst, d.decompress(block, self.OUT_CAP))
                        block = d.unconsumed_tail
                        if not block and d.unused_data:       # concatenated gzip members
                            block, d = d.unused_data, zlib.decompressobj(wbits=31)
                self._emit(dst, d.flush())
        except zlib.error as e:
            self.error = InputError(f"{self.path}: byte offset ~{read}: corrupt gzip data ({e})")
        except OSError as e:
            self.error = InputError(f"{self.path}: cannot read: {e.strerror}")
        finally:
            with self.cond:
                self.done = True
                self.cond.notify_all()

    def _emit(self, dst, data: bytes):
        if data:
            dst.write(data)
            dst.flush()   # on disk before readers are told
            with self.cond:
                self.size += len(data)
                self.cond.notify_all()

    def wait_for(self, n: int) -> int:
        """Bytes decompressed once there are at least `n` or the stream has ended."""
        with self.cond:
            self.cond.wait_for(lambda: self.size >= n or self.done)
        if self.error:
            raise self.error
        return self.size

    def close(self):
        self.stop = True
        if self.is_alive():
            self.join()


def locate(path: str, source: str) -> Layout:
    """Where the event array lies in `path` (named `source` in messages)."""
    layout = _head(path, source)
    _find_end(layout, source)
    return layout


def _head(path: str, source: str) -> Layout:
    """The layout with its start, its form and the metadata keys before the events (end not known yet)."""
    with open(path, "rb") as f:
        head = f.read(CHUNK)
        lead = len(head) - len(head.lstrip(b"\xef\xbb\xbf \t\r\n"))
        first = head[lead:lead + 1]
        if first == b"[":
            start, meta = lead + 1, {}
        elif first == b"{":
            start, meta = _object_start(f, source)
        else:
            raise InputError(f"{source}: byte offset {lead}: expected a JSON trace ('{{' or '['), found {first!r}")
    return Layout(path, start, start, False, meta, object_form=first == b"{")


def _find_end(layout: Layout, source: str):
    """Sets the layout's end (and truncated, and the metadata keys after the events) from the file's tail."""
    size = os.path.getsize(layout.path)
    with open(layout.path, "rb") as f:
        for tail_len in TAILS:
            tail_at = max(layout.start, size - tail_len)
            f.seek(tail_at)
            end, more = _array_end(f.read(), tail_at, layout.object_form)
            if end is not None:
                layout.metadata.update(more)
                layout.end = end
                return
            if tail_at == layout.start:
                break
    layout.end, layout.truncated = _last_complete_event(layout.path, layout.start, size, source), True


def _object_start(f, source):
    """The byte after `"traceEvents": [` and the metadata keys before it, read in growing chunks."""
    f.seek(0)
    buf = b""
    key = re.compile(rb'"traceEvents"\s*:\s*\[')
    while True:
        block = f.read(CHUNK)
        buf += block
        m = key.search(buf)
        if m:
            break
        if not block or len(buf) > 64 * CHUNK:
            raise InputError(f"{source}: no \"traceEvents\" array in the first {len(buf):,} bytes; expected a "
                             "Chrome trace object {\"traceEvents\": [...]} or a bare event array")
    prefix = buf[:m.start()].decode("utf-8", "replace").strip().lstrip("\ufeff")
    meta = {}
    text = prefix.rstrip().rstrip(",") + "}"
    try:
        meta = json.loads(text)
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


_BLANK_TO_END = re.compile(r"\s*\Z")   # matched at a position: no copy of the rest of the text


def _object_tail(text: str, i: int, decoder) -> dict | None:
    """The keys of `, "k": v, ... }` starting at text[i] when that is all that is left, else None."""
    ws = re.compile(r"\s*")
    i = ws.match(text, i).end()
    out = {}
    while True:
        if text.startswith("}", i):
            return out if _BLANK_TO_END.match(text, i + 1) else None
        if not text.startswith(",", i):
            return None
        i = ws.match(text, i + 1).end()
        try:
            key, i = decoder.raw_decode(text, i)
            i = ws.match(text, i).end()
            if not isinstance(key, str) or not text.startswith(":", i):
                return None
            value, i = decoder.raw_decode(text, ws.match(text, i + 1).end())
        except ValueError:
            return None
        out[key] = value
        i = ws.match(text, i).end()


def _last_complete_event(path: str, start: int, size: int, source: str) -> int:
    """A cut file (crashed run, Kineto's unfinished .tmp): the events end at the last boundary."""
    with open(path, "rb") as f:
        pos = size
        while pos > start:
            lo = max(start, pos - CHUNK)
            f.seek(lo)
            block = f.read(pos - lo + 64)
            hits = list(BOUNDARY.finditer(block))
            if hits:
                return lo + hits[-1].start() + 1      # just after the '}' of the last complete event
            pos = lo
    raise InputError(f"{source}: byte offset {start}: the event array is cut before its first complete event")


def split(layout: Layout, parts: int) -> list[tuple[int, int]]:
    """Byte ranges of the event array, cut at event boundaries near equal sizes."""
    a, b = layout.start, layout.end
    if parts <= 1 or b - a < PART_MIN:
        return [(a, b)]
    cuts = [a]
    for k in range(1, parts):
        target = a + (b - a) * k // parts
        cut = _boundary_after(layout.path, target, target + CHUNK)
        if cut is not None and cut < b:
            cuts.append(cut)   # after the '}', the comma starts the next part
    cuts.append(b)
    return [(x, y) for x, y in zip(cuts, cuts[1:]) if y > x]


def _boundary_after(path: str, target: int, limit: int) -> int | None:
    """The first event boundary at or after `target` and before `limit` (just after its '}')."""
    with open(path, "rb") as f:
        f.seek(target)
        m = BOUNDARY.search(f.read(max(0, limit - target)))
    return target + m.start() + 1 if m else None


def stream_ranges(layout: Layout, gz: Gunzip, source: str, size: int):
    """Byte ranges of the event array of a file that `gz` is still writing: a part is cut every
    `size` bytes as soon as the bytes after the cut are there; once the stream has ended, the end is found
    from the tail (setting layout.end, truncated, metadata) and the rest is split as usual."""
    x = layout.start
    while True:
        target = x + size
        limit = target + CHUNK
        cut = None
        while cut is None and gz.wait_for(limit) >= limit and not gz.done:
            cut = _boundary_after(layout.path, target, limit)
            limit += CHUNK     # an event longer than a chunk: look further
        if cut is None:
            break              # the stream has ended: the rest is cut below
        yield x, cut
        x = cut
    _find_end(layout, source)
    if layout.end > x:
        rest = Layout(layout.path, x, layout.end, layout.truncated)
        yield from split(rest, max(1, -(-(layout.end - x) // size)))


def write_part(layout: Layout, rng: tuple[int, int], out: str) -> str:
    """The byte range `rng` of the event array as its own JSON array file `out`; leading commas are skipped
    by starting after them. The bytes are copied by the kernel (copy_file_range), not through Python."""
    x, y = rng
    with open(layout.path, "rb") as src, open(out, "wb") as dst:
        src.seek(x)
        head = src.read(min(y - x, 64))
        dst.write(b"[" + head.lstrip(b" \t\r\n,"))
        dst.flush()
        _copy_range(src.fileno(), dst.fileno(), x + len(head), y - x - len(head))
        dst.write(b"]")
    return out


def _copy_range(src_fd: int, dst_fd: int, offset: int, count: int):
    """Append `count` bytes of src from `offset` to dst (at its current end)."""
    while count > 0:
        try:
            done = os.copy_file_range(src_fd, dst_fd, min(count, 1 << 30), offset)
        except (AttributeError, OSError):   # not Linux, or a file system without it
            done = 0
        if done <= 0:
            os.lseek(src_fd, offset, os.SEEK_SET)
            block = os.read(src_fd, min(count, CHUNK))
            if not block:
                return
            done = os.write(dst_fd, block)
        offset += done
        count -= done


def ts_kind(layout: Layout) -> str:
    """How the events write ts, from the first one: 'string' (Ascend trace_view.json: "1718851234567890.123"),
    'epoch' (a number of absolute µs, older Kineto: 1740461679479712) or 'relative' (Kineto's us.fff from
    baseTimeNanoseconds). Numbers of either kind convert exactly with TS_NUMBER; strings take the
    decimal text path."""
    with open(layout.path, "rb") as f:
        f.seek(layout.start)
        head = f.read(TS_SNIFF)
    m = re.search(rb'"ts"\s*:\s*("|-?(\d+))', head)
    if not m:
        return "relative"
    if m.group(1) == b'"':
        return "string"
    return "epoch" if len(m.group(2)) >= 13 else "relative"   # >= 1e12 µs: 11.6 days, no trace is that long


class Workdir:
    """A temporary folder for decompressed data and parts, removed however the ingest ends."""

    def __enter__(self):
        self.path = tempfile.mkdtemp(prefix="tracedb-json-")
        return self.path

    def __exit__(self, *exc):
        shutil.rmtree(self.path, ignore_errors=True)


ARGS = {  # the args keys tracedb reads (matched case-insensitively: legacy "external id" too), typed so the
        # reader converts them while parsing (casting JSON text afterwards took 1.3 s per 300 MB)
    "correlation": "BIGINT", "External id": "BIGINT", "device": "BIGINT", "stream": "BIGINT",
    "grid": "BIGINT[]", "block": "BIGINT[]", "registers per thread": "BIGINT", "shared memory": "BIGINT",
    "name": "VARCHAR", "sort_index": "BIGINT", "Task Type": "VARCHAR", "Stream Id": "BIGINT", "Task Id": "BIGINT",
    "connection_id": "BIGINT", "taskId": "BIGINT", "extra_id": "BIGINT", "event-hint": "VARCHAR",
}
# Keys only Ascend's trace_view.json and on-device NPU traces write. A Kineto trace (its top-level keys say
# so: KINETO_KEYS) is read without them: every key of the reader's args struct is a child vector filled
# for every event, and these seven cost ~3 % of the insert's instructions (callgrind, 72 MB part).
NPU_ARGS = ("Task Type", "Stream Id", "Task Id", "connection_id", "taskId", "extra_id", "event-hint")
KINETO_KEYS = ("schemaVersion", "deviceProperties", "baseTimeNanoseconds")
# Whole µs and the fraction apart: epoch µs (~1.7e15) are exact in a double but ts * 1000 is not (a multiple
# of 256 ns there); the fraction of Kineto's relative us.fff rounds to its exact ns either way.
TS_NUMBER = "CAST(trunc(ts) AS BIGINT) * 1000 + CAST(round((ts - trunc(ts)) * 1000) AS BIGINT)"
TS_TEXT = "us_text_to_ns(ts)"


def columns(ts_text: bool, safe: bool = False, keys=tuple(ARGS)) -> dict:
    """The reader's schema, with the args `keys`. safe: every args value as JSON text (any producer's
    types), cast in SQL. Ascend's trace_view.json (ts_text) also gives the flow id: its host-to-device
    flows link each kernel to the op that launched it."""
    from tracedb import sql
    args = ", ".join(f"{sql.ident(k)} {'JSON' if safe and ARGS[k] != 'VARCHAR' else ARGS[k]}" for k in keys)
    return {"ph": "VARCHAR", "cat": "VARCHAR", "name": "VARCHAR", "pid": "JSON", "tid": "JSON",
            "ts": "VARCHAR" if ts_text else "DOUBLE", "dur": "DOUBLE", "args": f"STRUCT({args})",
            **({"id": "VARCHAR"} if ts_text else {})}


def args_keys(layout: Layout) -> tuple:
    """The args keys to read: all of ARGS, or those a Kineto trace can hold (see NPU_ARGS)."""
    kineto = layout.object_form and any(k in layout.metadata for k in KINETO_KEYS)
    return tuple(k for k in ARGS if not (kineto and k in NPU_ARGS))


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


PART_BYTES = 64 << 20    # the smallest part, and half the largest: one INSERT, parsed by one core
ROWS_PER_PART = 150_000  # kept events a part aims at: more than a row group (122,880 rows), which DuckDB
                         # writes straight to the file; a smaller insert goes through the WAL and is
                         # written again at the checkpoint (32 MB parts of a 1 GB trace: +2 CPU-s)
KEPT_EVENT = re.compile(rb'"ph"\s*:\s*"[XM]"')
SAMPLE_BYTES = 1 << 20
INSERTERS = 2            # parts inserted at once, each on its own cursor (DuckDB reads one file on one
                         # thread; two cursors keep both cores of a small machine busy)
AHEAD = 1                # part files written before a cursor is free for them (disk: INSERTERS + AHEAD parts)


MEMORY_CAP = 400 << 20   # DuckDB's memory_limit while the parts go in. DuckDB keeps the blocks it has written
                         # in its buffer pool until memory is short, so without a cap the peak RSS grew with the
                         # store: 0.36-0.39 GB for 1 GB of JSON, 0.46-0.54 GB for 3 GB. Two parts in flight need
                         # ~150-250 MB (with 150 MB DuckDB spilled 4 MB; with 300 MB nothing).

DEFAULT_CORE_RULES = [("(?i)^(AIC)([_ (]|$)", "AIC"), ("(?i)^(AIV)([_ (]|$)", "AIV")]


class _Inserters:
    """Parts inserted into trace_events on INSERTERS cursors at once, each part in its own transaction.

    The calling thread writes the next part file while the cursors parse; `submit` waits while
    INSERTERS + AHEAD parts are in flight, so memory and temporary disk stay bounded. The first error
    stops the ingest once the inserts in flight have ended (the caller then removes the run's rows).
    Each insert's bytes and seconds are kept, so `settle` can tell how long the busy cursor still needs."""

    def __init__(self, con, insert):
        from tracedb import sql
        self.cursors = queue.SimpleQueue()
        for _ in range(INSERTERS):
            cur = con.cursor()
            self.cursors.put(cur)
            sql.run(cur, "macros")   # temporary: each cursor is a connection of its own
        self.pool = ThreadPoolExecutor(INSERTERS)
        self.insert, self.flight = insert, collections.deque()
        self.lock, self.running, self.done_bytes, self.done_seconds = threading.Lock(), {}, 0, 0.0

    def submit(self, size: int, *args):
        """Insert the part of `size` bytes: insert(cursor, *args) on the next free cursor."""
        self._raise_done_error()
        while len(self.flight) >= INSERTERS + AHEAD or (self.flight and self.flight[0].done()):
            self.flight.popleft().result()   # an insert's error is raised here
        self.flight.append(self.pool.submit(self._run, size, *args))

    def _raise_done_error(self):
        for f in self.flight:
            if f.done() and f.exception() is not None:
                raise f.exception()

    def _run(self, size, *args):
        cur = self.cursors.get()
        key, t0 = object(), time.perf_counter()
        with self.lock:
            self.running[key] = (t0, size)
        try:
            self.insert(cur, *args)
        finally:
            with self.lock:
                del self.running[key]
                self.done_bytes += size
                self.done_seconds += time.perf_counter() - t0
            self.cursors.put(cur)

    def settle(self) -> tuple[float, float | None]:
        """Waits until a cursor is free and no part waits for one. Returns (seconds the busiest running
        insert still needs, bytes a cursor parses per second), the rate from the inserts done (None
        before any ended: then the seconds are 0)."""
        while sum(not f.done() for f in self.flight) >= INSERTERS:
            wait_any([f for f in self.flight if not f.done()], return_when=FIRST_COMPLETED)
        self._raise_done_error()
        with self.lock:
            rate = self.done_bytes / self.done_seconds if self.done_seconds > 0 else None
            now = time.perf_counter()
            left = max((size / rate - (now - t0) for t0, size in self.running.values()), default=0.0) if rate else 0.0
        return max(left, 0.0), rate

    def wait(self):
        """Until every insert has ended; the first error is raised after all of them ended."""
        error = None
        while self.flight:
            try:
                self.flight.popleft().result()
            except BaseException as e:
                error = error or e
        if error is not None:
            raise error

    def close(self):
        try:
            self.wait()
        finally:
            self.pool.shutdown()
            while not self.cursors.empty():
                self.cursors.get().close()


def part_bytes(path: str, start: int, end: int | None) -> int:
    """Bytes per part for ~ROWS_PER_PART kept (complete and metadata) events, from their density in
    samples of the event array (its start, middle and end; the start alone when `end` is not known yet),
    between PART_BYTES and 2 * PART_BYTES. Kineto events with long args (input shapes, strides) halve the
    density of the bench generator's."""
    spots = [start] if end is None else sorted({start, max(start, (start + end - SAMPLE_BYTES) // 2),
                                                max(start, end - SAMPLE_BYTES)})
    kept = seen = 0
    with open(path, "rb") as f:
        for at in spots:
            f.seek(at)
            block = f.read(SAMPLE_BYTES if end is None else max(0, min(SAMPLE_BYTES, end - at)))
            kept += len(KEPT_EVENT.findall(block))
            seen += len(block)
    if kept == 0:
        return PART_BYTES
    return int(min(2 * PART_BYTES, max(PART_BYTES, ROWS_PER_PART * seen / kept)))


def balance_tail(layout: Layout, stretch: tuple[int, int], busy_left: float, rate: float | None,
                 min_bytes: int = 0) -> list:
    """The last stretch of the event array as one or two ranges, for two cursors: the first range for the
    cursor free now, the second for the one still busy for `busy_left` seconds, cut at an event boundary
    so that both end together when a cursor parses `rate` bytes per second (halves without a rate).
    Neither range is cut shorter than `min_bytes`. With equal parts the last one often ran alone: 0.6 s
    of a 5.8 s ingest of 1 GB; a last part under a row group of rows went through the WAL, and once
    triggered DuckDB's automatic checkpoint in its commit (1.8 s for a 39 MB part)."""
    x, y = stretch
    first = (y - x + busy_left * rate) / 2 if rate else (y - x) / 2
    first = int(max(min_bytes, min(first, y - x - min_bytes)))
    if first >= y - x or y - x < 2 * min_bytes:
        return [(x, y)]
    cut = _boundary_after(layout.path, x + first, min(y, x + first + CHUNK))
    return [(x, cut), (cut, y)] if cut is not None and x < cut < y else [(x, y)]


def load(con, run_id: int, path: str, parts: int | None = None, safe: bool = False, core_rules=()) -> dict:
    """Load the events of one Chrome trace file into trace_events as run `run_id`, part by part.

    Memory stays flat as files grow: the event array is cut into parts (`part_bytes`), and each part is one
    INSERT straight from DuckDB's JSON reader, committed on its own, two at a time on two cursors while
    this thread writes the next part file (`_Inserters`), under MEMORY_CAP (`memory_cap`). A .gz is
    inflated on its own thread while the parts already there are parsed. The rows stay invisible until
    the run's final transaction adds its runs row (`finish` runs in it); the caller removes them when
    anything fails (sql/discard_pending.sql).
    Returns run facts: device_name, rank, world_size, truncated, clock_domain, format, device_kind,
    inflated_bytes (a .gz's JSON bytes, else None)."""
    with Workdir() as work, memory_cap(con, MEMORY_CAP):
        gz = Gunzip(path, work) if is_gzip(path) else None
        try:
            return _load(con, run_id, path, work, gz, parts, safe)
        finally:
            if gz is not None:
                gz.close()


def _load(con, run_id, path, work, gz, parts, safe) -> dict:
    from tracedb import sql
    layout, plain = _open_layout(path, gz)
    kind = ts_kind(layout)
    ascend = kind == "string"   # trace_view.json: string ts, the exact text path
    base_ns = run_facts(layout.metadata)["base_ns"]
    base_known = "baseTimeNanoseconds" in layout.metadata or not layout.object_form
    if gz is not None and not safe and not ascend and base_known:
        gz.wait_for(layout.start + SAMPLE_BYTES)
        size = part_bytes(layout.path, layout.start, None)
        ranges, whole = stream_ranges(layout, gz, path, size), False   # parse while inflating
    else:   # the time base may come after the events (newer Kineto): wait for the whole file
        if gz is not None:
            gz.wait_for(float("inf"))
            _find_end(layout, path)
            base_ns = run_facts(layout.metadata)["base_ns"]
        size = part_bytes(layout.path, layout.start, layout.end)
        wanted = 1 if safe else (parts or max(2, -(-(layout.end - layout.start) // size)))
        ranges = split(layout, wanted)
        # a bare array (BOM or blanks before it at most) in one part: DuckDB reads the file itself
        whole = len(ranges) == 1 and not layout.truncated and not layout.object_form and layout.start <= 4
    keys = args_keys(layout)
    params = {"cols": columns(ascend, safe, keys), "run_id": run_id, "base_ns": base_ns}
    placeholders = {"ts_ns": TS_TEXT if ascend else TS_NUMBER, "arg": _ArgExpr(safe, keys),
                    "flow_id": "TRY_CAST(id AS BIGINT)" if ascend else "CAST(NULL AS BIGINT)"}

    def insert(cur, i, part):
        try:
            sql.run(cur, "ingest_chrome_part", {**params, "file": part, "base_seq": i << 32}, **placeholders)
        except (duckdb.InvalidInputException, duckdb.ConversionException) as e:   # what the reader says of the JSON
            if not safe:   # the caller removes the rows so far and calls again, safely
                raise RetrySafely() from None
            raise InputError(f"{path}: {_json_error(e)}") from None
        finally:
            if part != plain:
                os.remove(part)

    part_ranges = []   # in file order: part i's events have seq >> 32 == i
    inserters = _Inserters(con, insert)

    def send(rng):
        i = len(part_ranges)
        part = plain if whole else write_part(layout, rng, os.path.join(work, f"part{i}.json"))
        part_ranges.append(rng)
        inserters.submit(rng[1] - rng[0], i, part)

    try:
        # the last three parts' bytes become two parts, cut once a cursor is free so that both cursors
        # end together; each keeps at least a part's size, so neither goes through the WAL
        tail = ranges[-3:] if isinstance(ranges, list) and len(ranges) > 3 else []   # a .gz streams: no tail
        for rng in ranges[:-3] if tail else ranges:
            send(rng)
        if tail:
            for rng in balance_tail(layout, (tail[0][0], tail[-1][1]), *inserters.settle(), min_bytes=size):
                send(rng)
    finally:
        inserters.close()
    n, no_ts, first, named = sql.run(con, "ingest_chrome_check", {"run_id": run_id}).fetchone()
    if no_ts:
        x, y = part_ranges[first >> 32]
        what = f"an event named {named!r}" if named else "an event"
        raise InputError(f"{path}: between bytes {x} and {y}: {what} of phase 'X' has no numeric ts ({no_ts} "
                         "such); expected ts in microseconds")
    if n == 0:
        raise InputError(f"{path}: the trace holds no complete events; expected a non-empty traceEvents array")
    facts = run_facts(layout.metadata)   # with the keys after the events, known now
    facts["time_base_ns"] = facts.pop("base_ns")
    facts.update(truncated=layout.truncated, inflated_bytes=gz.size if gz is not None else None,
                 format="ascend-trace-view" if ascend else "chrome-trace",
                 device_kind="npu" if ascend else "gpu",
                 clock_domain="unix-epoch-local" if ascend else
                 ("unix-epoch" if base_ns or kind == "epoch" else "trace-relative"))
    return facts


@contextlib.contextmanager
def memory_cap(con, cap: int):
    """DuckDB's memory_limit lowered to `cap` bytes for the block, then RESET to the default, or set back
    to an API user's own limit (to the 0.1 GiB current_setting shows); a limit under `cap` is kept."""
    setting = "SELECT current_setting('memory_limit')"
    before = con.execute(setting).fetchone()[0]
    lower = size_bytes(before) > cap
    if lower:
        con.execute("SET memory_limit = $v", {"v": f"{cap}B"})
    try:
        yield
    finally:
        if lower:
            try:
                con.execute("RESET memory_limit")
                if con.execute(setting).fetchone()[0] != before:
                    con.execute("SET memory_limit = $v", {"v": before})
            except duckdb.Error:
                pass   # never hide the error that ended the block; the cap only slows a later big query


_SIZE = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([KMGTP]?i?B|bytes)?\s*", re.IGNORECASE)


def size_bytes(text: str) -> float:
    """Bytes of a DuckDB size setting as current_setting shows it ('18.8 GiB', '381.4 MiB', '400MB', '0 bytes');
    unreadable text counts as no limit."""
    m = _SIZE.fullmatch(str(text))
    if not m:
        return float("inf")
    unit = (m.group(2) or "B").upper()
    power = "BKMGTP".index(unit[0]) if unit != "BYTES" else 0
    return float(m.group(1)) * (1024 if "I" in unit else 1000) ** power


def _open_layout(path: str, gz):
    """(layout, plain file): for a plain file the whole layout; for a .gz being inflated, the head only
    (layout.end is set later), read once enough of it has arrived."""
    if gz is None:
        return locate(path, path), path
    gz.start()
    gz.wait_for(HEAD_BYTES)
    try:
        layout = _head(gz.out, path)
    except InputError:
        if gz.done:
            raise
        gz.wait_for(float("inf"))   # a head longer than HEAD_BYTES (or not a trace): read it whole
        layout = _head(gz.out, path)
    gz.wait_for(layout.start + TS_SNIFF)
    return layout, gz.out


def finish(con, run_id: int, core_rules=()):
    """Inside the run's final transaction, before its runs row makes its rows visible: tracks from the
    metadata events, NPU task facts, per-core tasks told from host events by thread name (`core_rules`
    before the built-in AIC/AIV ones), then category-less events of device-named processes (simulators)."""
    from tracedb import sql
    sql.run(con, "ingest_chrome_tracks", {"run_id": run_id})
    sql.run(con, "ingest_chrome_tasks", {"run_id": run_id})
    rules = list(core_rules) + DEFAULT_CORE_RULES
    sql.run(con, "ingest_chrome_cores", {"run_id": run_id, "patterns": [p for p, _ in rules],
                                          "classes": [c for _, c in rules]})
    sql.run(con, "ingest_chrome_devices", {"run_id": run_id})
    sql.run(con, "ingest_chrome_finish")


class _ArgExpr:
    """Builds `args.<key>` for the part SQL (ingest_chrome_part): as typed by the reader, or cast from JSON
    text (safe mode); a NULL of the key's type for a key the reader was not asked for."""

    def __init__(self, cast: bool, keys=tuple(ARGS)):
        self.cast, self.keys = cast, keys

    def __getitem__(self, key: str) -> str:
        from tracedb import sql
        if key not in self.keys:
            return f"CAST(NULL AS {ARGS[key]})"
        ref = f"args.{sql.ident(key)}"
        return f"TRY_CAST({ref} AS {ARGS[key]})" if self.cast and ARGS[key] != "VARCHAR" else ref


def _json_error(e) -> str:
    msg = str(e).strip().splitlines()[0]
    return msg.split("Error:", 1)[-1].strip() if "Error:" in msg else msg

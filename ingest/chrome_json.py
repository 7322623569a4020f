"""Chrome trace-event JSON (PyTorch profiler / Kineto, Ascend trace_view.json) -> events in the store.

The file is never loaded as a whole Python object. Its `traceEvents` array is located from the two ends
of the file (the metadata before it and after it is small and parsed with `json`), cut into parts at
event boundaries, and each part is handed to DuckDB's JSON reader with an explicit schema, so parsing
runs in C++ on every core with memory bounded by DuckDB's buffers (PERFORMANCE.md: the obvious
`read_json(format='unstructured') + unnest` took 71 s and 5.3 GB for 1 GB; `json.load` 41 s, 5.4 GB).

A part is a plain file `[` + slice + `]` in a temporary folder: the one copy costs ~0.2 s per GB from
the page cache, which is what lets a gzip trace and a compact one-line trace take the same path.
"""
import gzip
import json
import os
import re
import shutil
import tempfile
import zlib
from dataclasses import dataclass, field

from tracedb.errors import InputError

CHUNK = 1 << 22
TAIL = 1 << 20            # bytes read from the end to find where the event array closes
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


def decompress(path: str, workdir: str) -> str:
    """Gunzip to a file in `workdir`; a corrupt or cut stream is an InputError naming the offset."""
    out = os.path.join(workdir, "trace.json")
    d = zlib.decompressobj(wbits=31)
    read = 0
    try:
        with open(path, "rb") as src, open(out, "wb") as dst:
            while block := src.read(CHUNK):
                read += len(block)
                dst.write(d.decompress(block))
                while d.unused_data:           # concatenated gzip members
                    rest = d.unused_data
                    d = zlib.decompressobj(wbits=31)
                    dst.write(d.decompress(rest))
            dst.write(d.flush())   # a cut stream keeps what came before the cut; locate() marks it truncated
    except zlib.error as e:
        raise InputError(f"{path}: byte offset ~{read}: corrupt gzip data ({e})") from None
    return out


def locate(path: str, source: str) -> Layout:
    """Where the event array lies in `path` (named `source` in messages)."""
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        head = f.read(min(size, CHUNK))
        lead = len(head) - len(head.lstrip(b"\xef\xbb\xbf \t\r\n"))
        first = head[lead:lead + 1]
        if first == b"[":
            start, meta = lead + 1, {}
        elif first == b"{":
            start, meta = _object_start(f, source)
        else:
            raise InputError(f"{source}: byte offset {lead}: expected a JSON trace ('{{' or '['), found {first!r}")
        f.seek(max(start, size - TAIL))
        tail = f.read()
        tail_at = max(start, size - TAIL)
    end, more = _array_end(tail, tail_at, object_form=(first == b"{"))
    if end is not None:
        meta.update(more)
        return Layout(path, start, end, False, meta)
    return Layout(path, start, _last_complete_event(path, start, size, source), True, meta)


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
    Each candidate is checked by walking the tokens after it, so a failing one costs a few tokens."""
    text = tail.decode("utf-8", "replace")
    decoder = json.JSONDecoder()
    for m in re.finditer(r"\]", text):
        more = _object_tail(text, m.end(), decoder) if object_form else ({} if not text[m.end():].strip() else None)
        if more is not None:
            return tail_at + len(text[:m.start()].encode("utf-8", "replace")), more
    return None, {}


def _object_tail(text: str, i: int, decoder) -> dict | None:
    """The keys of `, "k": v, ... }` starting at text[i] when that is all that is left, else None."""
    ws = re.compile(r"\s*")
    i = ws.match(text, i).end()
    out = {}
    while True:
        if text.startswith("}", i):
            return out if not text[i + 1:].strip() else None
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
    with open(layout.path, "rb") as f:
        for k in range(1, parts):
            target = a + (b - a) * k // parts
            f.seek(target)
            block = f.read(CHUNK)
            m = BOUNDARY.search(block)
            if m and target + m.start() + 1 < b:
                cuts.append(target + m.start() + 1)   # after the '}', the comma starts the next part
    cuts.append(b)
    return [(x, y) for x, y in zip(cuts, cuts[1:]) if y > x]


def write_parts(layout: Layout, ranges, workdir: str) -> list[str]:
    """Each range as its own JSON array file; leading commas of a part are skipped by starting after them."""
    files = []
    with open(layout.path, "rb") as src:
        for i, (x, y) in enumerate(ranges):
            out = os.path.join(workdir, f"part{i}.json")
            src.seek(x)
            with open(out, "wb") as dst:
                dst.write(b"[")
                first = src.read(min(y - x, 64))
                dst.write(first.lstrip(b" \t\r\n,"))
                remaining = y - x - len(first)
                while remaining > 0:
                    block = src.read(min(CHUNK, remaining))
                    if not block:
                        break
                    dst.write(block)
                    remaining -= len(block)
                dst.write(b"]")
            files.append(out)
    return files


def ts_is_text(layout: Layout) -> bool:
    """Ascend's trace_view.json writes ts as a string of µs ("1718851234567890.123"); Kineto a number."""
    with open(layout.path, "rb") as f:
        f.seek(layout.start)
        head = f.read(1 << 16)
    m = re.search(rb'"ts"\s*:\s*(["0-9-])', head)
    return bool(m and m.group(1) == b'"')


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
TS_NUMBER = "CAST(round(ts * 1000) AS BIGINT)"
TS_TEXT = "us_text_to_ns(ts)"


def columns(ts_text: bool, safe: bool = False) -> dict:
    """The reader's schema. safe: every args value as JSON text (any producer's types), cast in SQL."""
    from tracedb import sql
    args = ", ".join(f"{sql.ident(k)} {'JSON' if safe and t != 'VARCHAR' else t}" for k, t in ARGS.items())
    return {"ph": "VARCHAR", "cat": "VARCHAR", "name": "VARCHAR", "pid": "JSON", "tid": "JSON",
            "ts": "VARCHAR" if ts_text else "DOUBLE", "dur": "DOUBLE", "args": f"STRUCT({args})"}


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


PART_BYTES = 64 << 20    # parts are read two at a time (one per core): memory stays ~ 2 parts' events


DEFAULT_CORE_RULES = [("(?i)^(AIC)([_ (]|$)", "AIC"), ("(?i)^(AIV)([_ (]|$)", "AIV")]


def load(con, run_id: int, path: str, parts: int | None = None, safe: bool = False, core_rules=()) -> dict:
    """Ingest the events of one Chrome trace file as run `run_id` (inside the caller's transaction).

    The array is cut into `parts` (default: one per 64 MB, at least 2) read two at a time, each pair
    staged and moved into the store before the next, so memory does not grow with the file.
    Returns run facts: device_name, rank, world_size, truncated, clock_domain, format, device_kind."""
    from tracedb import sql
    with Workdir() as work:
        plain = decompress(path, work) if is_gzip(path) else path
        layout = locate(plain, path)
        text_ts = ts_is_text(layout)
        wanted = 1 if safe else (parts or max(2, -(-(layout.end - layout.start) // PART_BYTES)))
        ranges = split(layout, wanted)
        # Ascend trace_view tasks are told apart by their process name: keep such a file in one batch
        batches = [ranges] if text_ts else [ranges[i:i + 2] for i in range(0, len(ranges), 2)]
        facts = run_facts(layout.metadata)
        base_ns = facts.pop("base_ns")
        con.execute("CREATE OR REPLACE TEMP TABLE _meta (pid VARCHAR, tid VARCHAR, name VARCHAR, arg_name VARCHAR, "
                    "sort_index BIGINT)")
        offset = 0
        whole = len(ranges) == 1 and not layout.truncated and _is_bare_array(layout)   # read the file itself
        for batch in batches:
            files = [plain] if whole else write_parts(layout, batch, work)
            params = {"files": files, "cols": columns(text_ts, safe), "base_ns": base_ns}
            try:
                sql.run(con, "ingest_chrome_stage", params, ts_ns=TS_TEXT if text_ts else TS_NUMBER,
                        arg=_arg_cast if safe else _arg_plain)
            except Exception as e:
                if not safe:   # the transaction is aborted: the caller rolls back and calls again, safely
                    raise RetrySafely() from None
                raise InputError(f"{path}: {_json_error(e)}") from None
            n, bad = con.execute("SELECT count(*), min(rowid) FILTER (WHERE ph = 'X' AND start_ns IS NULL) - "
                                 "min(rowid) FROM _ev").fetchone()
            if bad is not None:
                raise InputError(f"{path}: event #{offset + bad + 1} of the array: a complete ('X') event without "
                                 "a numeric ts")
            sql.run(con, "ingest_chrome_batch", {"run_id": run_id, "offset": offset})
            offset += n
            for f in files:
                if f != plain:
                    os.remove(f)
        if offset == 0:
            raise InputError(f"{path}: the trace holds no events; expected a non-empty traceEvents array")
        sql.run(con, "ingest_chrome_tracks", {"run_id": run_id})
        rules = list(core_rules) + DEFAULT_CORE_RULES
        sql.run(con, "ingest_chrome_cores", {"run_id": run_id, "patterns": [p for p, _ in rules],
                                              "classes": [c for _, c in rules]})
    facts.update(truncated=layout.truncated, format="ascend-trace-view" if text_ts else "chrome-trace",
                 device_kind="npu" if text_ts else "gpu",
                 clock_domain="unix-epoch-local" if text_ts else
                 ("unix-epoch" if base_ns else "trace-relative"))
    return facts


class _ArgExpr:
    """Builds `args.<key>` for the stage SQL: as typed by the reader, or cast from JSON text (safe mode)."""

    def __init__(self, cast: bool):
        self.cast = cast

    def __getitem__(self, key: str) -> str:
        from tracedb import sql
        ref = f"args.{sql.ident(key)}"
        return f"TRY_CAST({ref} AS {ARGS[key]})" if self.cast and ARGS[key] != "VARCHAR" else ref


_arg_plain, _arg_cast = _ArgExpr(False), _ArgExpr(True)


def _is_bare_array(layout: Layout) -> bool:
    with open(layout.path, "rb") as f:
        f.seek(max(0, layout.start - 1))
        return f.read(1) == b"[" and layout.start <= 4   # the file is the array itself (BOM/blanks at most)


def _json_error(e) -> str:
    msg = str(e).strip().splitlines()[0]
    return msg.split("Error:", 1)[-1].strip() if "Error:" in msg else msg

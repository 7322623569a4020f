"""Loading one Chrome trace file into trace_events: how its parts are planned, written and inserted, the
check of the inserted events, and the facts about the run that the file gives. Every error names the
user's file (and the byte in it, of the inflated JSON for a .gz), never a part file."""
import dataclasses
import os
from collections.abc import Iterator
from dataclasses import dataclass

import duckdb

from tracedb import sql
from tracedb.errors import InputError
from tracedb.ingest.chrome_json.config import DEFAULT, JsonIngestConfig
from tracedb.ingest.duckdb_memory import memory_cap
from tracedb.ingest.chrome_json.gunzip import Gunzip
from tracedb.ingest.chrome_json.inserters import Inserters
from tracedb.ingest.chrome_json.facts import run_facts
from tracedb.ingest.chrome_json.layout import Layout, find_end, locate, read_head, read_whole
from tracedb.ingest.chrome_json.part_errors import (EndsEarly, RetrySafely, bad_time, describe_event, event_at,
                                                     part_error)
from tracedb.ingest.chrome_json.part_files import Workdir, store_folder, write_part
from tracedb.ingest.chrome_json.parts import part_bytes, split, stream_ranges
from tracedb.ingest.chrome_json.schema import (INEXACT, TS_READ, ArgExpr, args_keys, args_read, columns, old_layout,
                                               ts_kind, ts_read)
from tracedb.ingest.chrome_json.sniff import is_gzip
from tracedb.ingest.chrome_json.tail_balance import balance_tail
from tracedb.ingest.sniff import check_regular

__all__ = ["RetrySafely", "load"]
INFLATED = " of the inflated JSON"


class _Inexact(Exception):
    """A part met a ts with a fraction beyond 2^43 µs, which a double cannot hold: read ts as DECIMAL."""


@dataclass
class _Plan:
    """How the event array goes in."""
    ranges: list[tuple[int, int]] | Iterator[tuple[int, int]]   # parts' byte ranges; a generator while a .gz inflates
    size: int     # bytes of a part: the least either balanced last part keeps
    whole: bool   # DuckDB reads the trace file itself as the one part


def load(con, run_id: int, path: str, parts: int | None = None, safe: bool = False, core_rules=(),
         config: JsonIngestConfig = DEFAULT, capture: bool = False) -> dict:
    """Load the events of one Chrome trace file into trace_events as run `run_id`, part by part.

    Memory stays flat as files grow: the event array is cut into parts (`part_bytes`), and each part is one
    INSERT straight from DuckDB's JSON reader, committed on its own, two at a time on two cursors while
    this thread writes the next part file (`Inserters`), under config.memory_cap (`memory_cap`). A .gz is
    inflated on its own thread while the parts already there are parsed. Part files go to a work folder
    beside the store `con` writes (part_files.Workdir), removed however this ends. The rows stay invisible
    until the run's final transaction adds its runs row (`finish` runs in it); the caller removes them
    when anything fails. When a part meets a ts a double cannot hold, the rows so far are removed and the
    file is read again with ts as DECIMAL. `capture`: the trace is a graph capture, whose launch calls keep
    the name of the kernel they launch (schema.CAPTURE_ARGS).
    Returns run facts: device_name, rank, world_size, truncated, clock_domain, format, device_kind,
    inflated_bytes (a .gz's JSON bytes, else None)."""
    check_regular(path)     # not a FIFO, not sparse: the host trace beside an Ascend CSV comes straight here
    config = _cursors_for(con, config)
    with Workdir(store_folder(con)) as work, memory_cap(con, config.memory_cap):
        again = _Again()
        while True:
            gz = Gunzip(path, work, config) if is_gzip(path) else None
            try:
                return _load(con, run_id, path, work, gz, parts, safe, again, config, capture)
            except (_Inexact, EndsEarly) as e:
                again.learn(e, path)
                sql.run(con, "ingest_chrome_discard", {"run_id": run_id})
            finally:
                if gz is not None:
                    gz.close()


def _cursors_for(con, config: JsonIngestConfig) -> JsonIngestConfig:
    """config with no more cursors than DuckDB threads `con` may use. A connection held to one thread (a
    worker of a folder ingest that has a core of its own, engine/loading/parallel.py) parses with one
    cursor, in parts no smaller than a part's size: two cursors would only take turns on its core, and the
    two halves of a 100 MB trace (~100 k events each, under a row group) went through the WAL and were
    written again at the checkpoint: 1.34-1.45 CPU-s per 100 MB trace, against 1.08-1.17 in one part."""
    threads = int(sql.run(con, "parsing_setting", {"s": "threads"}).fetchone()[0])
    return dataclasses.replace(config, inserters=threads) if threads < config.inserters else config


@dataclass
class _Again:
    """What a failed try taught the next one (each at most once): read ts as DECIMAL; where the array ends."""
    exact: bool = False
    end_at: int | None = None

    def learn(self, e: Exception, path: str):
        if isinstance(e, _Inexact) and not self.exact:
            self.exact = True
        elif isinstance(e, EndsEarly) and self.end_at is None:
            self.end_at = e.pos
        else:   # never expected: the same lesson twice
            raise InputError(f"{path}: the event array could not be read consistently ({type(e).__name__})") from None


def _load(con, run_id, path, work, gz, parts, safe, again, config, capture=False) -> dict:
    layout, plain = _open_layout(path, gz, config, again.end_at)
    kind = ts_kind(layout, config)
    read = ts_read(layout, kind, config, again.exact)
    run_facts(layout.metadata, path)   # the keys before the events checked before any part is written
    if gz is not None and not safe and kind != "string" and _base_before_events(layout) and again.end_at is None:
        plan = _plan_streamed(layout, gz, path, config)   # parse while inflating
    else:   # the time base may come after the events (newer Kineto): wait for the whole file
        plan = _plan_whole(layout, gz, path, parts, safe, config, again.end_at)
    base_ns = run_facts(layout.metadata, path)["base_ns"]   # before a stream's end adds the keys after the events
    old = old_layout(layout, config)
    insert = _part_inserter(path, layout, plain, safe, *_part_sql(layout, run_id, base_ns, read, safe, capture, old))
    part_ranges = _insert_parts(con, layout, plain, work, plan, insert, config, macros=read == "string")
    _check_events(con, run_id, path, layout, part_ranges)
    return file_facts(layout, gz, kind, base_ns, path)


def _open_layout(path: str, gz: Gunzip | None, config: JsonIngestConfig, end_at: int | None) -> tuple[Layout, str]:
    """(layout, plain file): for a plain file the whole layout; for a .gz being inflated, the head only
    (layout.end is set later), read once enough of it has arrived."""
    if gz is None:
        return locate(path, path, config, end_at=end_at), path
    gz.start()
    gz.wait_for(config.head_bytes)
    try:
        layout = read_head(gz.out, path, config, INFLATED)
    except InputError:
        if gz.done:
            raise
        gz.wait_for(float("inf"))   # a head longer than config.head_bytes (or not a trace): read it whole
        layout = read_head(gz.out, path, config, INFLATED)
    gz.wait_for(layout.start + config.ts_sniff)
    return layout, gz.out


def _base_before_events(layout: Layout) -> bool:
    """The time base is known from the head: written before the events, or absent (a bare array)."""
    return "baseTimeNanoseconds" in layout.metadata or not layout.object_form


def _plan_streamed(layout: Layout, gz: Gunzip, source: str, config: JsonIngestConfig) -> _Plan:
    """Parts cut while the .gz inflates, sized from the density of the events at the array's start."""
    gz.wait_for(layout.start + config.sample_bytes)
    size = part_bytes(layout.path, layout.start, None, config)
    return _Plan(stream_ranges(layout, gz, source, size, config), size, whole=False)


def _plan_whole(layout: Layout, gz: Gunzip | None, source: str, parts: int | None, safe: bool,
                config: JsonIngestConfig, end_at: int | None = None) -> _Plan:
    """Parts of the whole array (a .gz inflated to its end first): `parts` of them, one in safe mode, else
    as many as the part size gives, one per cursor at least; with one cursor, none smaller than the part
    size (fewer parts rather than parts under a row group)."""
    if gz is not None:
        gz.wait_for(float("inf"))
        find_end(layout, source, config, end_at)
    span = layout.end - layout.start
    # an array under part_min is one part whatever the size (split): its events need not be sampled
    size = part_bytes(layout.path, layout.start, layout.end, config) if span >= config.part_min else config.part_bytes
    wanted = 1 if safe else (parts or (max(1, span // size) if config.inserters == 1 else max(2, -(-span // size))))
    ranges = split(layout, wanted, config)
    # one part of a bare array: DuckDB reads the file itself
    whole = len(ranges) == 1 and read_whole(layout)
    return _Plan(ranges, size, whole)


def _part_sql(layout: Layout, run_id: int, base_ns: int, read: str, safe: bool,
              capture: bool = False, old: bool = False) -> tuple[dict, dict]:
    """(parameters, placeholders) of ingest_chrome_part shared by every part of the run; `read` is the
    TS_READ entry (string, decimal or number); `capture`: a graph capture (args_keys); `old`: the PyTorch
    profiler's older layout (schema.old_layout)."""
    keys = args_keys(layout, capture, old)
    ts_type, ts_ns = TS_READ[read]
    params = {"cols": columns(ts_type, safe, keys, old), "run_id": run_id, "base_ns": base_ns}
    placeholders = {"more_files": "", "ts_ns": ts_ns, "arg": ArgExpr(safe, keys), "args": args_read(old, safe, keys),
                    "flow_id": "TRY_CAST(id AS BIGINT)" if read == "string" else "CAST(NULL AS BIGINT)"}
    return params, placeholders


def _part_inserter(path: str, layout: Layout, plain: str, safe: bool, params: dict, placeholders: dict):
    """insert(cursor, i, part file, byte range): part i's events into trace_events with seq from i << 32;
    the part file is removed after, unless it is the trace file itself. What the reader says of the JSON
    becomes an error naming the user's file and byte (part_errors), or RetrySafely."""
    def insert(cur, i, part, rng):
        try:
            sql.run(cur, "ingest_chrome_part", {**params, "file": part, "base_seq": i << 32}, **placeholders)
        except (duckdb.InvalidInputException, duckdb.ConversionException) as e:   # what the reader says of the JSON
            if INEXACT in str(e):
                raise _Inexact() from None
            raise part_error(e, path, layout, rng, safe) from None
        finally:
            if part != plain:
                try:
                    os.remove(part)
                except FileNotFoundError:
                    pass
    return insert


def _insert_parts(con, layout: Layout, plain: str, work: str, plan: _Plan, insert,
                  config: JsonIngestConfig, macros: bool = True) -> list[tuple[int, int]]:
    """Writes each part file while the cursors insert the ones before; returns the parts' byte ranges in
    file order (part i's events have seq >> 32 == i). `macros`: the part SQL uses tracedb's macros."""
    part_ranges = []
    inserters = Inserters(con, insert, config, macros)

    def send(rng):
        i = len(part_ranges)
        part = plain if plan.whole else write_part(layout, rng, os.path.join(work, f"part{i}.json"), config)
        part_ranges.append(rng)
        inserters.submit(rng[1] - rng[0], i, part, rng)

    ranges = plan.ranges
    try:
        # the last three parts' bytes become two parts, cut once a cursor is free so that both cursors
        # end together; each keeps at least a part's size, so neither goes through the WAL
        # (a .gz streams, and one cursor has nothing to balance: no tail)
        tail = ranges[-3:] if isinstance(ranges, list) and len(ranges) > 3 and inserters.width > 1 else []
        for rng in ranges[:-3] if tail else ranges:
            send(rng)
        if tail:
            stretch = (tail[0][0], tail[-1][1])
            for rng in balance_tail(layout, stretch, *inserters.settle(), min_bytes=plan.size, config=config):
                send(rng)
    except BaseException:
        inserters.close(failing=True)   # Ctrl-C or a failed part: the inserts in flight are interrupted
        raise
    inserters.close()
    return part_ranges


def _check_events(con, run_id: int, path: str, layout: Layout, part_ranges: list[tuple[int, int]]):
    """Every complete event has a ts and a dur that are times, and there is at least one event; an error
    names the byte where the first bad event starts and what is wrong with it."""
    _, n, bad, first = sql.run(con, "ingest_chrome_check", {"run_ids": [run_id]}).fetchone() or (run_id, 0, 0, None)
    if bad:
        rng = part_ranges[first >> 32]
        found = event_at(layout, rng, first & 0xFFFFFFFF)
        if found is None or not isinstance(found[2], dict):
            raise InputError(f"{path}: between bytes {rng[0]} and {rng[1]}{layout.note}: a complete event has no "
                             f"valid ts or dur ({bad:,} such); expected ts and dur in µs")
        at, _, event = found
        raise InputError(f"{path}: byte {at}{layout.note}: {describe_event(event)} {bad_time(event)} "
                         f"({bad:,} such complete event{'s' if bad > 1 else ''})")
    if n == 0:
        raise InputError(f"{path}: the trace holds no complete events; expected a non-empty traceEvents array")


def file_facts(layout: Layout, gz: Gunzip | None, kind: str, base_ns: int, path: str) -> dict:
    """The run facts `load` returns, from the top-level keys and the form of the timestamps."""
    ascend = kind == "string"
    facts = run_facts(layout.metadata, path)   # with the keys after the events, known now
    facts["time_base_ns"] = facts.pop("base_ns")
    facts.update(truncated=layout.truncated, inflated_bytes=gz.size if gz is not None else None,
                 format="ascend-trace-view" if ascend else "chrome-trace",
                 device_kind="npu" if ascend else "gpu",
                 clock_domain="unix-epoch-local" if ascend else
                 ("unix-epoch" if base_ns or kind == "epoch" else "trace-relative"))
    return facts

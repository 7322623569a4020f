"""Small Chrome traces read together: the plain trace files of a folder ingest's batch whose event array is
one part go into trace_events by one INSERT, each as its own run.

A rank of a job is a few MB. Read one by one, each trace paid for a statement and a commit of its own:
on one core, 32 ranks of 2.6 MB took 27-28 ms a rank inserted each on its own, 18-19 ms in one
transaction, and 12-14 ms in one statement (a UNION ALL of one read per file; ingest_chrome_part.sql). Its
work folder, memory cap and check (ingest_chrome_check, one row per run) are shared too.

Whatever is out of the ordinary is left to `loader.load`, one trace at a time, which also says why a trace
is refused: a .gz, an array of a part's size or more, ts written as text or epoch µs with a fraction, a
head or end that does not read, a statement that fails (every trace of it is then read alone, none of its
rows left), a run whose events include a ts or dur that is not a time, or that kept no event."""
import os
from dataclasses import dataclass

import duckdb

from tracedb import sql
from tracedb.ingest.chrome_json.config import DEFAULT, JsonIngestConfig
from tracedb.ingest.chrome_json.facts import run_facts
from tracedb.ingest.chrome_json.layout import Layout, locate, read_whole
from tracedb.ingest.chrome_json.loader import file_facts
from tracedb.ingest.chrome_json.part_files import Workdir, store_folder, write_part
from tracedb.ingest.chrome_json.schema import (TS_READ, ArgExpr, args_keys, args_read, columns, more_files, old_layout,
                                               ts_kind, ts_read)
from tracedb.ingest.chrome_json.sniff import is_gzip
from tracedb.ingest.duckdb_memory import memory_cap


@dataclass
class _Trace:
    run_id: int
    layout: Layout
    kind: str        # ts_kind: relative or epoch (numbers that a double reads exactly)
    base_ns: int
    old: bool        # the PyTorch profiler's older layout (schema.old_layout): its args read as JSON text


def load_together(con, items: list[tuple[int, str]], config: JsonIngestConfig = DEFAULT) -> dict[int, dict]:
    """Loads the trace files `items` ((run_id, path), each its own run) that can go in together: one INSERT
    per set of args keys and way of reading args. Returns the run facts of each trace read, by run id (as
    `load` returns them); the others have no row in trace_events and are for `load`."""
    groups: dict[tuple, list[_Trace]] = {}
    for run_id, path in items:
        trace = _plan(run_id, path, config)
        if trace is not None:
            groups.setdefault((args_keys(trace.layout, old=trace.old), trace.old), []).append(trace)
    if not any(len(g) > 1 for g in groups.values()):
        return {}         # nothing shared: one by one as ever
    out = {}
    with Workdir(store_folder(con)) as work, memory_cap(con, config.memory_cap):
        for (keys, old), group in groups.items():
            if len(group) > 1:
                out.update(_insert(con, work, keys, old, group, config))
    return out


def _plan(run_id: int, path: str, config: JsonIngestConfig) -> _Trace | None:
    """The trace's layout and time base when it can go in together, else None (`load` then reads it, and
    refuses it if it must)."""
    try:
        if is_gzip(path):
            return None
        layout = locate(path, path, config)
        if layout.end - layout.start >= config.part_min:
            return None
        kind = ts_kind(layout, config)
        if kind == "string" or ts_read(layout, kind, config) != "number":
            return None
        base_ns = run_facts(layout.metadata, path)["base_ns"]
    except Exception:   # whatever it is, `load` meets it again and says it as it does
        return None
    return _Trace(run_id, layout, kind, base_ns, old_layout(layout, config))


def _insert(con, work: str, keys: tuple, old: bool, group: list[_Trace], config: JsonIngestConfig) -> dict[int, dict]:
    """The group's traces by one INSERT, then checked: the facts of those kept, by run id."""
    params = {"cols": columns(TS_READ["number"][0], False, keys, old)}
    for k, t in enumerate(group):      # part files stay in `work` until it goes, with the group's last statement
        lay = t.layout
        part = lay.path if read_whole(lay) else write_part(lay, (lay.start, lay.end), os.path.join(work, f"t{k}.json"),
                                                           config)
        k = f"_{k}" if k else ""      # the first trace's parameters, then $file_1, $run_id_1, ...
        params.update({f"file{k}": part, f"run_id{k}": t.run_id, f"base_ns{k}": t.base_ns, f"base_seq{k}": 0})
    try:
        sql.run(con, "ingest_chrome_part", params, more_files=more_files(len(group)), ts_ns=TS_READ["number"][1],
                arg=ArgExpr(False, keys), args=args_read(old, False, keys), flow_id="CAST(NULL AS BIGINT)")
    except duckdb.Error as e:
        if isinstance(e, (duckdb.IOException, duckdb.InterruptException)):    # a full disk, Ctrl-C: not a trace's
            raise
        return {}       # one statement: none of its rows went in; read alone, each trace says what is wrong
    ids = [t.run_id for t in group]
    checked = {r: (n, bad) for r, n, bad, _ in sql.run(con, "ingest_chrome_check", {"run_ids": ids}).fetchall()}
    out = {}
    for t in group:
        n, bad = checked.get(t.run_id, (0, 0))
        if n and not bad:
            out[t.run_id] = file_facts(t.layout, None, t.kind, t.base_ns, t.layout.path)
        elif n:         # read alone, it is refused naming the event
            sql.run(con, "ingest_chrome_discard", {"run_id": t.run_id})
    return out

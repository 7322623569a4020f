"""Ingest one trace (file or profiler folder) as one run, in one transaction.

Either the whole run lands (run row, every kernel row, duplicate marks) or the store is unchanged: the
trace is parsed into a side store (tracedb.engine.loading.staging; the parse: engine/loading/parsing.py) and
copied into the store in one transaction (engine/loading/landing.py), so a failed or interrupted ingest leaves
no row and no growth behind, and other processes read the store until that short merge.

The content hash (sha256 over the source bytes, ~0.5 s for 464 MB; tracedb.engine.loading.hashing) runs in a thread
beside DuckDB's parse, so it costs little wall time. Identical content is skipped before any parsing: when
a stored run has the trace's byte count, the hash is awaited first (unless `replace`;
engine/loading/known_content.py).

This module knows no format: the trace's reader in the registry (tracedb.ingest.formats) reads its rows,
finishes them inside the run's transaction and says whether a file holds several devices."""
import contextlib
import os
import tempfile

from tracedb.engine.loading import landing, parsing, staging, store_writes
from tracedb.engine.loading.known_content import _known_content, _stored_content
from tracedb.engine.loading.results import IngestResult, _result, _skipped, committing
from tracedb.engine.loading.trace_job import _prepare, _scratch


def ingest_path(con, path: str, name: str | None = None, tags=None, replace: bool = False,
                core_rules=None, capture: bool = False) -> IngestResult:
    """Ingest one trace into the store open on `con` (a writable connection, held by the caller). The
    trace is parsed into a side store first (engine/loading/staging.py) and merged in one transaction.
    `capture`: the trace is a graph capture (engine/loading/captures.py)."""
    job = _prepare(con, path, name, tags, replace, core_rules, capture=capture)
    known = _known_content(con, job)
    if known:
        return _skipped(job, known)
    side = staging.side_path(staging.store_path_of(con) or os.path.join(tempfile.gettempdir(), "tracedb"))
    try:
        staged = parsing._stage(side, job, like=con)
        result = landing._merge(con, side, job, staged)
    finally:
        staging.remove(side)
    if result.status != "skipped":
        store_writes.checkpoint_appended(con)
    return result


def ingest_file(store_path: str | None, path: str, name: str | None = None, tags=None, replace: bool = False,
                core_rules=None, agent: int | None = None, reader: str | None = None,
                capture: bool = False, source=None) -> IngestResult:
    """Ingest one trace into the store at `store_path`, holding its write lock only for the final merge:
    reports, `runs` and `sql` of other processes go on while the trace is parsed. A first ingest into a
    missing store creates it only when the run is complete (the side store is renamed into place).
    `agent`: of a file of several devices, the device this run holds (engine/loading/folder.py plans one run
    per device). `reader`: the registered reader of the file when the caller identified it already
    (ingest/formats.py). `capture`: the trace is a graph capture (engine/loading/captures.py). `source`: what
    the path resolved to when planned (not resolved again). Into a Parquet dataset instead:
    engine/loading/to_dataset.py."""
    from tracedb.engine.store.connect import open_store, resolve_path
    store = resolve_path(store_path)
    with _scratch() if core_rules else contextlib.nullcontext() as scratch:   # a connection checks the regexes
        job = _prepare(scratch, path, name, tags, replace, core_rules, agent, reader, capture=capture,
                       source=source)
    staging.sweep_stale(store)
    known = _stored_content(store, job)
    if known:
        return _skipped(job, known)
    side = staging.side_path(store)
    try:
        staged = parsing._stage(side, job)
        if not os.path.exists(store):
            result = _result(job, "ingested", 1, staged)
            with committing(store, [result]) as cancel:
                published = staging.publish(side, store)
                if not published:
                    cancel()
            if published:
                return result
        con = open_store(store)
        try:
            result = landing._merge(con, side, job, staged)
            if result.status != "skipped":
                store_writes.checkpoint_appended(con)
        finally:
            con.close()
    finally:
        staging.remove(side)
    return result

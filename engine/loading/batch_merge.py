"""A folder ingest's batches merged into the store, one at a time in plan order (engine/loading/parallel.py):
each trace's error, its skip, or its run landed with its batch-mates in one transaction (the first batch into
a missing store: its side store renamed into place), as engine/loading/single.ingest_file lands one run."""
import os
import time
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from tracedb.engine.loading import landing, staging, store_writes
from tracedb.engine.loading.results import IngestResult, _result, committing
from tracedb.engine.loading.store_writes import ROW_GROUP_BUFFER
from tracedb.engine.loading.worker import _Parsed
from tracedb.errors import TracedbError


@dataclass
class _Digest:
    """A finished content hash, as the merge reads one (join, error, digest, size)."""
    digest: str
    size: int
    error: None = None

    def join(self):
        pass


def _finish(store, items, future, replace: list[bool], stored) -> list:
    """The results of one batch, in plan order: each trace's error, its skip, or its merge into the store
    (then added to `stored`, which the traces handed out later are checked against). A worker that died
    (SIGKILL, the kernel's out-of-memory killer) ends the whole ingest in one line."""
    try:
        out = future.result()
    except TracedbError as e:
        return [e] * len(items)
    except BrokenProcessPool:
        raise TracedbError(f"{items[0].path}: a process parsing the traces ended abruptly (killed, or out of "
                           "memory?); the runs reported above are in the store, the others are not") from None
    results = list(out.entries)
    parsed = [k for k, e in enumerate(results) if isinstance(e, _Parsed)]
    if not parsed:
        return results
    try:
        merged = _merge(store, out.side, [results[k] for k in parsed], [replace[k] for k in parsed])
    except TracedbError as e:
        merged = [e] * len(parsed)
    finally:
        staging.remove(out.side)
    for k, result in zip(parsed, merged):
        if isinstance(result, IngestResult) and result.status != "skipped":
            stored.append((result.run_id, result.name, results[k].digest, results[k].size))
        results[k] = result
    return results


def _merge(store, side, parsed: list[_Parsed], replace: list[bool]) -> list:
    """The batch's parsed runs into the store, in one transaction (the first batch into a missing store: its
    side store renamed into place when it holds them as runs 1..n), as engine/loading/single.ingest_file
    does after its parse. Returns an IngestResult, or the error of a run refused (a name taken by other
    content), per run."""
    from types import SimpleNamespace
    from tracedb.engine.store.connect import open_store
    t0 = time.perf_counter()
    jobs = [SimpleNamespace(name=p.name, replace=r, hasher=_Digest(p.digest, p.size),
                            src=SimpleNamespace(files=p.files), t0=t0 - p.seconds) for p, r in zip(parsed, replace)]
    if (not os.path.exists(store) and [p.staged_id for p in parsed] == list(range(1, len(parsed) + 1))
            and len({p.digest for p in parsed}) == len(parsed)):
        results = [_result(job, "ingested", p.staged_id, p.staged) for job, p in zip(jobs, parsed)]
        with committing(store, results) as cancel:
            published = staging.publish(side, store)
            if not published:
                cancel()
        if published:
            return results
    con = open_store(store)
    con.execute("SET write_buffer_row_group_memory_limit = $m", {"m": ROW_GROUP_BUFFER})
    try:
        results = landing.merge_batch(con, side, jobs, [(p.staged_id, p.staged) for p in parsed])
        if any(isinstance(r, IngestResult) and r.status != "skipped" for r in results):
            store_writes.checkpoint_appended(con)
    finally:
        con.close()
    share = (time.perf_counter() - t0) / len(parsed)      # each run's time: its parse and its share of the merge
    for r, p in zip(results, parsed):
        if isinstance(r, IngestResult) and r.status != "skipped":
            r.seconds = p.seconds + share
    return results

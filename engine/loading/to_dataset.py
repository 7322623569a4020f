"""One trace ingested as one run of a Parquet dataset folder instead of a store: the parse half
(`stage_for_dataset`: the trace parsed into a side store as for a store, then written as the run's files
in a staging folder inside the dataset; a worker process runs it) and the commit half (`commit_staged`:
the run named by the dataset's manifest, engine/store/parquet.py). Identical content is skipped from the
manifest's hashes before any parsing."""
import contextlib
import dataclasses
import os
import shutil
import tempfile

from tracedb.engine.loading import hashing, parsing, staging
from tracedb.engine.loading.known_content import _name_taken
from tracedb.engine.loading.results import IngestResult, _result, _skipped
from tracedb.engine.loading.trace_job import _prepare, _scratch
from tracedb.engine.store import parquet as parquet_export
from tracedb.errors import UsageError


def ingest_to_dataset(folder: str, path: str, name: str | None = None, tags=None, replace: bool = False,
                      core_rules=None, agent: int | None = None, reader: str | None = None,
                      source=None) -> IngestResult:
    """Ingest one trace as one run of the Parquet dataset at `folder` (created when missing): parsed into a
    side store as for a store, then written as the run's partition files, which the dataset's manifest
    names only once they are all in place (engine/store/parquet.py). Identical content is skipped."""
    target = parquet_export.prepare_target(folder)
    staging.sweep_stale(target)
    result, run = stage_for_dataset(folder, path, name, tags, replace, core_rules, agent,
                                    side=staging.side_path(target), reader=reader, source=source)
    if run is None:
        return result
    try:
        return commit_staged(folder, result, run, replace)
    finally:
        shutil.rmtree(run.stage, ignore_errors=True)


def stage_for_dataset(folder: str, path: str, name: str | None = None, tags=None, replace: bool = False,
                      core_rules=None, agent: int | None = None, side: str | None = None, stage: str | None = None,
                      threads: int | None = None, reader: str | None = None, source=None):
    """The parse half of an ingest into a dataset (a worker runs it): the trace parsed into the side store
    `side` (default: a temporary file of this machine), written as files in the staging folder `stage`
    inside the dataset (default: a new one named after this process). `threads`: DuckDB's threads for
    the parse (default: DuckDB's own, one per core). Returns (IngestResult, StagedRun), or (the skipped
    result, None) when the dataset already holds identical content."""
    with _scratch() if core_rules else contextlib.nullcontext() as scratch:
        job = _prepare(scratch, path, name, tags, replace, core_rules, agent, reader, source=source)
    stored = parquet_export.stored_runs(folder)
    size = sum(os.path.getsize(f) for f in job.src.files)
    clash = [r for r in stored if r.get("name") == job.name]
    if clash or any(r.get("source_bytes") == size for r in stored):   # as _known_content, from the manifest
        hashing.wait(job.hasher)
        same = [r["name"] for r in stored if r.get("content_hash") == job.hasher.digest]
        if same and not replace:
            return _skipped(job, same[0]), None
        if clash and not replace and clash[0].get("content_hash") != job.hasher.digest:
            raise _name_taken(job.name)
    tmp = None
    if side is None:
        tmp = tempfile.mkdtemp(prefix="tracedb-side-")
        side = os.path.join(tmp, "side.duckdb")
    try:
        with _scratch() if threads else contextlib.nullcontext() as like:
            if like is not None:
                like.execute("SET threads = $t", {"t": threads})
            staged = parsing._stage(side, job, like=like)
        run = parquet_export.stage_run(folder, side, stage)
    finally:
        staging.remove(side)
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    return _result(job, "ingested", None, staged), run


def commit_staged(folder: str, result: IngestResult, run, replace: bool) -> IngestResult:
    """The commit half for one run: stage_for_dataset's run named by the dataset's manifest."""
    status, run_id, same_as = parquet_export.commit_runs(folder, [run], replace)[0]
    return settled(result, status, run_id, same_as)


def settled(result: IngestResult, status: str, run_id, other) -> IngestResult:
    """A staged run's result once committed: ingested or replaced with its id, or skipped; a name taken
    by other content raises (commit_runs returns it as ("error", None, message))."""
    if status == "error":
        raise UsageError(other)
    if status == "skipped":
        return dataclasses.replace(result, status="skipped", run_id=None, same_as=other)
    return dataclasses.replace(result, status=status, run_id=run_id)

"""Traces converted by other processes into a Parquet dataset's staging folder, and the run list
committed once: the shared part of `ingest --to DIR --scheduler ADDRESS` (a Dask cluster,
engine/loading/cluster.py) and `ingest --to DIR --jobs N` (N local worker processes).

Each task parses one trace into a side store and writes the run's files into this job's staging folder
inside DIR (`.tracedb-job-<pid>.<host>-<random>/<task>-<attempt>/`); only file names and a small result (the run's facts
and file list, a few hundred bytes) come back. When every task has ended, one manifest write under the
dataset's lock names all the runs that were converted (engine/store/parquet.commit_runs); until then
readers of DIR see the dataset as it was. A trace that fails is reported in one line, as in a folder
ingest, and the others land. The staging folder is removed at the end, whatever happened.
"""
import os
import secrets
import shutil

from tracedb.engine.loading.batches import batches_of
from tracedb.errors import InputError, TracedbError
from tracedb.ingest import leftovers

JOB_PREFIX = ".tracedb-job-"


def convert(folder: str, stage: str, path: str, name, tags, replace: bool, core_rules, agent, threads=None,
            reader=None):
    """In a worker: one trace parsed and written as staged files; returns (IngestResult, StagedRun | None)
    or the one-line error of a trace that cannot be ingested (raised errors would carry a traceback).
    `threads`: DuckDB's threads for it (None: DuckDB's default, one per core)."""
    from tracedb.engine.loading import to_dataset
    try:
        return to_dataset.stage_for_dataset(folder, path, name, tags, replace, core_rules, agent,
                                        stage=os.path.join(stage, secrets.token_hex(4)), threads=threads,
                                        reader=reader)
    except TracedbError as e:
        return e, None


def convert_batch(folder: str, items, replace: bool, core_rules, threads=None) -> list:
    """In a worker: a batch of traces (engine/loading/batches.py), each converted by `convert` in turn;
    `items` holds each trace's (stage, path, name, tags, agent, reader). One task per batch: a job of 128
    small ranks is a few tasks, not 128."""
    return [convert(folder, stage, path, name, tags, replace, core_rules, agent, threads, reader)
            for stage, path, name, tags, agent, reader in items]


def ingest_staged(folder: str, planned, options: list[dict], submit, replace: bool = False, core_rules=None,
                  on_start=None, threads=None, workers: int = 1):
    """Yields (planned, IngestResult | TracedbError) per planned trace, in plan order, once the run list is
    committed. `options`: each planned run's tags, device and reader (engine/loading/folder.run_options);
    `submit(key, fn, *args)` runs `fn(*args)` somewhere and returns a future (`.result()`);
    `on_start(i, planned)` is called as each task is submitted; `workers`: how many run at once (the
    traces are cut into batches for them, engine/loading/batches.py)."""
    from tracedb.engine.store import parquet as parquet_export
    from tracedb.engine.loading.to_dataset import settled
    folder = os.path.abspath(folder)
    parquet_export.prepare_target(folder)
    # named with this client's pid and host, like side stores: a job whose client was killed leaves its
    # folder behind, and the next job into DIR from this machine removes it
    leftovers.sweep(folder, JOB_PREFIX)
    stage = os.path.join(folder, leftovers.own_name(JOB_PREFIX))
    os.makedirs(stage)
    try:
        futures = []
        for k, batch in enumerate(batches_of(planned, workers)):
            items = []
            for i in batch:
                if on_start:
                    on_start(i, planned[i])
                kw = options[i]                     # its GPU, and the job tag of a folder's ranks
                items.append((os.path.join(stage, str(i)), os.path.abspath(planned[i].path), planned[i].name,
                              kw.get("tags"), kw.get("agent"), kw.get("reader")))
            futures.append((batch, submit(f"tracedb-ingest-{os.path.basename(stage)}-{k}", convert_batch, folder,
                                          items, replace, core_rules, threads)))
        outcomes = []
        for batch, fut in futures:
            try:
                outcomes += fut.result()
            except (KeyboardInterrupt, SystemExit):
                raise
            except Exception as e:   # the task itself failed on every attempt (a worker crash, a bug)
                outcomes += [(InputError(f"{planned[i].path}: could not be converted: "
                                         f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"), None)
                             for i in batch]
        staged = [(i, res, run) for i, (res, run) in enumerate(outcomes) if run is not None]
        committed = dict(zip([i for i, _, _ in staged],
                             parquet_export.commit_runs(folder, [run for _, _, run in staged], replace)
                             if staged else []))
        for i, (item, (res, run)) in enumerate(zip(planned, outcomes)):
            if run is None:
                yield item, res
                continue
            status, run_id, other = committed[i]
            try:
                yield item, settled(res, status, run_id, other)
            except TracedbError as e:
                yield item, e
    finally:
        shutil.rmtree(stage, ignore_errors=True)

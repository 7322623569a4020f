"""Traces ingested on a Dask cluster into a Parquet dataset on shared storage:
`tracedb ingest JOBDIR --to DIR --scheduler tcp://HOST:8786` (the optional extra `tracedb[dask]`).

The client plans the runs as a folder ingest does (engine/ingest_many.plan) and submits one task per
trace. A worker parses its trace into a side store in its own temporary folder and writes the run's
files into a staging folder of this job inside DIR (`.tracedb-job-<id>/<task>-<attempt>/`); only file
names and a small result (the run's facts and file list, a few hundred bytes) travel back. A worker that
dies has its task run again elsewhere (Dask reschedules the tasks of a lost worker; `retries` also
covers a task that raised an OSError on a flaky share). The client commits the run list once, when every
task has ended: one manifest write under the dataset's lock names all the runs that were converted
(engine/parquet_export.commit_runs); until then readers of DIR see the dataset as it was. A trace that
fails is reported in one line, as in a folder ingest, and the others land. The job's staging folder is
removed at the end, whatever happened (files of a worker that died mid-write included).

Workers need tracedb (the same version) installed and DIR and the traces at the same paths as the
client: the paths are sent as they are, made absolute."""
import os
import secrets
import shutil

from tracedb.engine.ingest import IngestResult
from tracedb.errors import InputError, TracedbError, UsageError

JOB_PREFIX = ".tracedb-job-"
RETRIES = 2          # per task, on top of Dask's own rescheduling of tasks whose worker died


def _client(address: str):
    try:
        from distributed import Client
    except ImportError:
        raise UsageError("--scheduler needs dask.distributed: pip install 'tracedb[dask]'") from None
    try:
        return Client(address, timeout="30s", set_as_default=False)
    except (OSError, TimeoutError) as e:
        raise UsageError(f"--scheduler {address}: cannot connect to the Dask scheduler ({e})") from None


def convert(folder: str, stage: str, path: str, name, tags, replace: bool, core_rules, agent):
    """On a worker: one trace parsed and written as staged files; returns (IngestResult, StagedRun | None)
    or the one-line error of a trace that cannot be ingested (raised errors would carry a traceback)."""
    from tracedb.engine import ingest
    try:
        return ingest.stage_for_dataset(folder, path, name, tags, replace, core_rules, agent,
                                        stage=os.path.join(stage, secrets.token_hex(4)))
    except TracedbError as e:
        return e, None


def ingest_on_cluster(address: str, folder: str, planned, tags=None, replace: bool = False, core_rules=None,
                      on_start=None):
    """Yields (planned, IngestResult | TracedbError) per planned trace, in plan order, once the run list is
    committed. `on_start(i, planned)` is called as each task is submitted."""
    from tracedb.engine import parquet_export
    from tracedb.engine.ingest import settled
    from tracedb.engine.ingest_many import run_options
    folder = os.path.abspath(folder)
    parquet_export.prepare_target(folder)
    client = _client(address)
    stage = os.path.join(folder, JOB_PREFIX + secrets.token_hex(6))
    os.makedirs(stage)
    try:
        futures = []
        for i, item in enumerate(planned):
            if on_start:
                on_start(i, item)
            kw = run_options(item, {"tags": tags})     # its GPU, and the job tag of a folder's ranks
            futures.append(client.submit(convert, folder, os.path.join(stage, str(i)), os.path.abspath(item.path),
                                         item.name, kw.get("tags"), replace, core_rules, kw.get("agent"),
                                         key=f"tracedb-ingest-{os.path.basename(stage)}-{i}", retries=RETRIES,
                                         pure=False))
        outcomes = []
        for item, fut in zip(planned, futures):
            try:
                outcomes.append(fut.result())
            except Exception as e:   # the task itself failed on every attempt (a worker crash, a bug)
                outcomes.append((InputError(f"{item.path}: the cluster could not convert it: "
                                            f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"), None))
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
        client.close()


__all__ = ["ingest_on_cluster", "IngestResult"]

"""Traces ingested on a Dask cluster into a Parquet dataset on shared storage: `tracedb ingest JOBDIR --to DIR
--scheduler tcp://HOST:8786` (the optional extra `tracedb[dask]`).

The client plans the runs as a folder ingest does (engine/loading/folder.plan) and submits one task per batch of
traces (engine/loading/batches.py; engine/loading/staged.py, which `--jobs N` uses with local processes). A worker
parses each trace of its batch into a side store in its own temporary folder and writes the run's files into a
staging folder of this job inside DIR (`.tracedb-job-<pid>.<host>-<random>/<task>-<attempt>/`, named for the client
process, so that the next job from this machine removes the folder of a client that was killed); only file names and
a small result (the run's facts and file list, a few hundred bytes) travel back. A worker that dies has its task run
again elsewhere (Dask reschedules the tasks of a lost worker; `retries` also covers a task that raised an OSError on
a flaky share). The client commits the run list once, when every task has ended: one manifest write under the
dataset's lock names all the runs that were converted (engine/store/parquet.commit_runs); until then readers of DIR
see the dataset as it was. A trace that fails is reported in one line, as in a folder ingest, and the others land.
The job's staging folder is removed at the end, whatever happened (files of a worker that died mid-write included).

Workers need tracedb (the same version) installed and DIR and the traces at the same paths as the client: the paths
are sent as they are, made absolute."""
from tracedb.engine.loading import staged as ingest_staged
from tracedb.engine.loading.single import IngestResult
from tracedb.engine.loading.folder import run_options
from tracedb.errors import UsageError

RETRIES = 2          # per task, on top of Dask's own rescheduling of tasks whose worker died


def _client(address: str):
    try:
        from distributed import Client
    except ImportError:
        raise UsageError("--scheduler needs dask.distributed: pip install 'tracedb[dask]'") from None
    try:   # 10 s: Dask retries a refused connection until then, for a scheduler that is still starting
        return Client(address, timeout="10s", set_as_default=False)
    except (OSError, TimeoutError, ValueError) as e:
        raise UsageError(f"--scheduler {address}: cannot connect to the Dask scheduler ({e})") from None


def ingest_on_cluster(address: str, folder: str, planned, tags=None, replace: bool = False, core_rules=None,
                      on_start=None):
    """Yields (planned, IngestResult | TracedbError) per planned trace, in plan order, once the run list is
    committed. `on_start(i, planned)` is called as each task is submitted."""
    client = _client(address)
    try:
        def submit(key, fn, *args):
            return client.submit(fn, *args, key=key, retries=RETRIES, pure=False)
        options = [run_options(item, {"tags": tags}) for item in planned]
        workers = sum((client.nthreads() or {}).values()) or 1   # the traces cut into batches for them
        yield from ingest_staged.ingest_staged(folder, planned, options, submit, replace, core_rules, on_start,
                                               workers=workers)
    finally:
        client.close()


__all__ = ["ingest_on_cluster", "IngestResult"]

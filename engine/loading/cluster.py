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
from tracedb.engine.loading.results import IngestResult
from tracedb.engine.loading.folder import run_options
from tracedb.errors import UsageError

RETRIES = 2          # per task, on top of Dask's own rescheduling of tasks whose worker died


def _client(address: str):
    try:
        from distributed import Client
    except ImportError:
        raise UsageError("--scheduler needs dask.distributed: pip install 'tracedb[dask]'") from None
    _check_transport(address)
    try:   # 10 s: Dask retries a refused connection until then, for a scheduler that is still starting
        return Client(address, timeout="10s", set_as_default=False)
    except (OSError, TimeoutError, ValueError) as e:
        raise UsageError(f"--scheduler {address}: cannot connect to the Dask scheduler ({e})") from None
    except Exception as e:   # Dask's own failures (TypeError, RuntimeError), worded here instead of a traceback
        raise UsageError(f"--scheduler {address}: cannot connect to the Dask scheduler "
                         f"({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''})") from None


def _check_transport(address: str):
    """Refuse, before a Client is made, an address whose transport Dask cannot use here: a Client that fails
    while it starts (tls:// without certificates raises a TypeError inside it) is left half made, and its
    finaliser then waits 20 s at exit and prints a traceback. tls:// needs Dask's TLS settings
    (distributed.comm.tls.ca-file, client.cert, client.key); ucx:// needs its UCX package."""
    from distributed.comm import registry
    from distributed.security import Security
    scheme = address.split("://", 1)[0] if "://" in address else "tcp"
    try:
        registry.get_backend(scheme).get_connector()
    except Exception as e:   # not registered (ValueError), or a stub whose connector cannot be made (TypeError)
        raise UsageError(f"--scheduler {address}: Dask here cannot connect over {scheme}:// "
                         f"({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}); expected "
                         "tcp://HOST:PORT, or a transport with its Dask package installed") from None
    if scheme == "tls" and Security().get_connection_args("client").get("ssl_context") is None:
        raise UsageError(f"--scheduler {address}: tls:// needs Dask's TLS settings, and none are set; expected "
                         "distributed.comm.tls.ca-file, .client.cert and .client.key in the Dask config (or "
                         "DASK_DISTRIBUTED__COMM__TLS__* variables), or a tcp:// address")


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

"""The process that a folder ingest's workers are forked from (engine/loading/parallel.py): a forkserver that
imported tracedb's loading code and DuckDB once, so no worker pays for the imports, and no DuckDB
connection crosses a fork. Kept free of heavy imports: the ingest command starts it before importing DuckDB
itself, so that its start-up (an interpreter and those imports, ~0.2 s on a 2-core machine) overlaps the
command's own imports and the search of the folder."""
import multiprocessing
import os
import threading

PRELOAD = ["tracedb.engine.loading.parallel"]


def cores() -> int:
    """The cores this process may run on (a container's or taskset's limit, not the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def context():
    """The multiprocessing context workers come from: the forkserver, or spawn where there is none
    (Windows)."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    return ctx


def start_early():
    """Start the forkserver now, on a thread, for the workers of the ingest that follows."""
    if context().get_start_method() == "forkserver":
        from multiprocessing import forkserver
        threading.Thread(target=forkserver.ensure_running, daemon=True).start()

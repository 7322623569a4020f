"""The worker processes of a folder ingest (engine/loading/parallel.py): how many (workers_for: at most the
cores, the traces and the memory allows), the pool they run in, forked from the forkserver
(engine/loading/forkserver.py), and how they are stopped on an interrupt.

Memory: each worker is budgeted WORKER_BYTES (1 GiB: the highest peak RSS measured for one ingest was
0.9 GB, a 2 M-row kernel_details.csv; a Kineto trace peaks at 0.3-0.4 GB), so the workers are at most
the available memory over that, as well as at most the cores and the traces.

A small folder goes in one process (forkserver.SMALL_FOLDER_BYTES): starting the workers and merging a second
batch cost more than a parallel parse of a few MB saves."""
import contextlib
import os
import signal
import time
from concurrent.futures import ProcessPoolExecutor

from tracedb.engine.loading import forkserver
from tracedb.engine.loading.forkserver import SMALL_FOLDER_BYTES, cores, json_bytes
from tracedb.engine.loading.worker import _worker_init

WORKER_BYTES = 1 << 30
def available_memory() -> int | None:
    """Bytes of memory available to new processes (MemAvailable of /proc/meminfo); None when unknown."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def memory_cap() -> int | None:
    """Workers that fit in the available memory at WORKER_BYTES each (at least 1); None when unknown."""
    avail = available_memory()
    return None if avail is None else max(1, avail // WORKER_BYTES)


def workers_for(traces: int, jobs: int | None, sizes=()) -> tuple[int, str | None]:
    """(worker processes, a note when memory lowered the count asked for). `jobs` None: as many as cores, or
    one when the traces (`sizes`: (path, bytes on disk) of each) hold less than SMALL_FOLDER_BYTES of JSON;
    either way at most one per trace and at most the memory cap."""
    want = min(cores() if jobs is None else jobs, max(1, traces))
    if jobs is None and sizes and json_bytes(sizes) < SMALL_FOLDER_BYTES:
        want = 1
    cap = memory_cap()
    if cap is None or cap >= want:
        return want, None
    note = (f"{want} parallel ingests lowered to {cap}: {available_memory() / 2**30:.1f} GiB of memory available, "
            f"{WORKER_BYTES / 2**30:.0f} GiB budgeted for each") if jobs is not None else None
    return cap, note


def _pool(jobs: int) -> ProcessPoolExecutor:
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=forkserver.context(), initializer=_worker_init)
    # Every worker started before the executor's watcher thread, as it does for fork: a worker started
    # on demand (its default for forkserver) is missing from what the watcher waits on until its next
    # wake-up, so its death went unseen and the command waited forever (a worker killed with SIGKILL
    # hung 2 runs of 3 here).
    pool._safe_to_dynamically_spawn_children = False
    return pool


def _stop(pool):
    """Interrupt each worker (a busy one cuts its DuckDB query short and removes its side store), then
    wait for them to go."""
    procs = list((getattr(pool, "_processes", None) or {}).values())   # the executor's own list of them
    for p in procs:
        with contextlib.suppress(OSError):
            os.kill(p.pid, signal.SIGTERM)
    pool.shutdown(wait=False, cancel_futures=True)
    deadline = time.monotonic() + 30
    for p in procs:
        p.join(max(0.0, deadline - time.monotonic()))
        if p.is_alive():           # stuck: killed; its side store is swept once it is gone
            p.kill()
            p.join(5)

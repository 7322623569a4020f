"""The process that a folder ingest's workers are forked from (engine/loading/parallel.py): a forkserver that
imported tracedb's loading code and DuckDB once, so no worker pays for the imports, and no DuckDB
connection crosses a fork. Kept free of heavy imports: the ingest command starts it before importing DuckDB
itself, so that its start-up (an interpreter and those imports, ~0.2 s on a 2-core machine) overlaps the
command's own imports and the search of the folder; a folder too small for workers to pay (small_folders)
starts none."""
import contextlib
import multiprocessing
import os
import threading

PRELOAD = ["tracedb.engine.loading.parallel"]
# Below this much JSON a folder ingests faster in the command's own process, unless --jobs asks otherwise:
# generated jobs of 8 to 64 ranks (6-48 MB, two cores) took 0.95-1.69 s in one process against 1.06-1.97 s
# with two workers, and 96 MB 2.53-2.73 s against 2.12-2.47 s (two rounds each, interleaved).
SMALL_FOLDER_BYTES = 64 << 20
# a gzip trace's JSON is ~20 times its size (the TraceLens Qwen traces: 0.4 MB -> 8.6 MB); 10 is on the safe side
GZIP_FACTOR = 10


def cores() -> int:
    """The cores this process may run on (a container's or taskset's limit, not the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def json_bytes(sizes) -> int:
    """The JSON that (path, bytes on disk) pairs hold, a gzip file counted at GZIP_FACTOR times its size."""
    return sum(n * (GZIP_FACTOR if p.endswith(".gz") else 1) for p, n in sizes)


def small_folders(paths) -> bool:
    """Whether the folders and files of `paths` hold less than SMALL_FOLDER_BYTES of JSON, counted as far as
    needed (a big folder stops the count early): the ingest then starts no workers."""
    # the paths as named (a link to a job's folder is that folder); links inside them are not followed
    total, stack = 0, [os.path.realpath(p) for p in paths]
    while stack:        # a stack, not os.walk: Python 3.11's recurses, and a folder may be 1,000 levels deep
        path = stack.pop()
        with contextlib.suppress(OSError):
            if os.path.isdir(path) and not os.path.islink(path):
                with os.scandir(path) as entries:
                    stack.extend(e.path for e in entries)
            else:
                total += json_bytes([(path, os.stat(path, follow_symlinks=False).st_size)])
        if total >= SMALL_FOLDER_BYTES:
            return False
    return True


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

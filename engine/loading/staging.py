"""Side stores: each ingest parses its trace into a DuckDB file of its own beside the store, and only the
short final merge takes the store's write lock.

DuckDB lets one process write a file, or many read it, never both. Parsing a 1 GB Kineto trace takes
~5 s and a 1 M-row kernel_details.csv ~10 s; writing into the store for that long would refuse every
report, `runs` and `sql` of other processes meanwhile. A side store is a complete tracedb store holding
the one run; the merge copies its rows into the store in one transaction (1.1 s for the 2.0 M events of
a 1 GB trace, plus a 1.3 s checkpoint), and a first ingest into a missing store just renames the side
store into place, so it costs nothing.

Side stores are named `.<store file>.ingest-<pid>-<random>` in the store's folder (the same file
system: the rename is atomic, and a full disk shows before the store is touched). A side store left by a
killed process is removed by the next ingest into that folder, once its process is gone.
"""
import contextlib
import os
import shutil

from tracedb import sql
from tracedb.errors import StoreError
from tracedb.ingest import leftovers


def side_path(store_path: str) -> str:
    folder, base = os.path.split(os.path.abspath(store_path))
    return os.path.join(folder, leftovers.own_name(_prefix(base)))


def _prefix(store_base: str) -> str:
    return f".{store_base}.ingest-"


def remove(path: str):
    """The side store, its write-ahead log and DuckDB's spill folder (`<file>.tmp`)."""
    for p in (path, path + ".wal"):
        try:
            os.unlink(p)
        except FileNotFoundError:
            pass
    shutil.rmtree(path + ".tmp", ignore_errors=True)


def sweep_stale(store_path: str) -> list[str]:
    """Remove the side stores of `store_path` whose process is gone (killed mid-ingest); returns them."""
    folder, base = os.path.split(os.path.abspath(store_path))
    return leftovers.sweep(folder, _prefix(base))


@contextlib.contextmanager
def attached(con, side: str):
    """The side store at `side` attached read-only to `con` as `staged` (outside any transaction: a
    failed transaction could not detach it)."""
    con.execute("ATTACH $path AS staged (READ_ONLY)", {"path": side})
    try:
        yield
    finally:
        con.execute("DETACH staged")


def merge(con, ids: list[tuple[int, int]]):
    """Copy runs of the attached side store into the store open on `con`, inside the caller's transaction:
    `ids` holds (side store run id, run id in the store) pairs. Columns are matched by name, so a store whose
    columns were added by migrations in another order takes the rows all the same."""
    sql.run(con, "merge_staged_run", {"staged_ids": [s for s, _ in ids], "run_ids": [r for _, r in ids]})


def check_room(side: str, store_path: str):
    """Refuse a merge that cannot fit before it starts: DuckDB gives a failed transaction's blocks back
    inside the file but does not shrink the file, so running out of space mid-merge would leave the store
    file larger (its content unchanged). The merge writes about the side store's size again (measured: the
    store grew 38 MB for a 1 GB Kineto trace's 43 MB side store, 11 MB for a 280 MB one's 12 MB); 1.25 times
    that, plus 8 MB, is asked for."""
    need = os.path.getsize(side) * 5 // 4 + (8 << 20)
    free = shutil.disk_usage(os.path.dirname(os.path.abspath(store_path))).free
    if free < need:
        raise StoreError(f"{os.path.dirname(os.path.abspath(store_path))}: {free / 1e6:.0f} MB free; adding this run "
                         f"to {os.path.basename(store_path)} needs about {need / 1e6:.0f} MB. Free space and ingest "
                         "again; the store is unchanged")


def publish(side: str, store_path: str) -> bool:
    """Make the side store the store, when there is no store yet: a hard link is atomic and fails if
    another process created the store meanwhile (then the caller merges instead). False when not done."""
    try:
        os.link(side, store_path)
    except FileExistsError:
        return False
    except OSError:             # no hard links here (some network and FAT file systems)
        if os.path.exists(store_path):
            return False
        os.replace(side, store_path)
        return True
    remove(side)
    return True


def store_path_of(con) -> str | None:
    """The file the connection's current database lives in; None for an in-memory store."""
    row = sql.run(con, "staging_store_path").fetchone()
    return row[0] if row and row[0] else None

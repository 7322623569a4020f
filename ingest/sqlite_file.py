"""An SQLite file as the readers open it: told by its magic bytes, opened read-only, and its table names.

It is opened immutable (`mode=ro&immutable=1`): SQLite then takes no lock and writes no journal beside a
file that may sit on a read-only share. The table names tell the profilers' exports apart.

A foreign database is read within bounds, whoever wrote it:
- only real tables: a view or trigger can hold any query (a recursive CTE that never ends, or one that
  grows without bound), so the table names exclude views, and an authorizer refuses any read through a
  view or trigger and any recursive query;
- a WAL or hot journal beside the file holds changes that an immutable open would silently skip (40
  kernels where SQLite itself sees 9): refused with a line that says how to fold them in;
- a progress handler, every PROGRESS_STEPS virtual-machine steps, stops a query on Ctrl-C or SIGTERM
  (Python runs its signal handlers there; without it they wait until SQLite returns) and once it has run
  past a time budget that grows with the file (budget_seconds)."""
import os
import sqlite3
import time
from pathlib import Path

from tracedb import sql
from tracedb.errors import InputError
from tracedb.ingest import sniff


def is_sqlite(path: str) -> bool:
    try:
        with sniff.open_regular(path) as f:
            return f.read(len(sniff.SQLITE_MAGIC)) == sniff.SQLITE_MAGIC
    except (OSError, InputError):
        return False


PROGRESS_STEPS = 20_000     # ~1 ms of SQLite work between two looks at signals and the clock
_STOPPED: list = []         # the exception a signal raised while SQLite ran, or an InputError of the budget


def budget_seconds(path: str) -> float:
    """How long one connection may read: 120 s, plus 60 s per GB of file (a 2 GB Nsight Systems export reads
    in about 30 s; the budget only stops a file built to never finish)."""
    try:
        size = os.path.getsize(path)
    except OSError:
        size = 0
    return 120.0 + 60.0 * size / 1e9


def open_ro(path: str) -> sqlite3.Connection:
    """A read-only connection that never writes beside the file, reads tables only and stops on a signal or
    past its time budget; errors name the file."""
    _refuse_pending_changes(path)
    _STOPPED.clear()     # what stopped a query of an earlier file was raised or is moot by now
    try:
        con = sqlite3.connect(Path(path).resolve().as_uri() + "?mode=ro&immutable=1", uri=True)
    except sqlite3.Error as e:
        raise InputError(f"{path}: cannot open the SQLite database ({e}); "
                         "expected a profiler's SQLite export") from None
    con.set_authorizer(_tables_only)
    con.set_progress_handler(_progress(path, time.monotonic() + budget_seconds(path)), PROGRESS_STEPS)
    return con


def raise_if_stopped() -> None:
    """Raise what stopped the last SQLite query (a signal's KeyboardInterrupt, the budget's InputError), if
    anything did: the readers call it before turning a sqlite3.Error into their own line."""
    if _STOPPED:
        raise _STOPPED.pop()


def _progress(path: str, deadline: float):
    budget = budget_seconds(path)

    def check() -> int:
        try:
            if time.monotonic() > deadline:
                _STOPPED.append(InputError(f"{path}: reading the SQLite database took over {budget:.0f} s; "
                                           "expected a profiler's SQLite export of plain tables"))
                return 1
            return 0
        except BaseException as e:   # a signal handler's exception (Ctrl-C, SIGTERM), raised while SQLite ran
            _STOPPED.append(e)
            return 1
    return check


def _tables_only(action, arg1, arg2, db, inner):
    """SQLite's authorizer: deny a read through a view or trigger (`inner` names it) and a recursive query."""
    if inner is not None or action == sqlite3.SQLITE_RECURSIVE:
        return sqlite3.SQLITE_DENY
    return sqlite3.SQLITE_OK


def _refuse_pending_changes(path: str) -> None:
    for suffix, what in (("-wal", "a write-ahead log"), ("-journal", "a rollback journal")):
        try:
            pending = os.path.getsize(path + suffix) > 0
        except OSError:
            continue
        if pending:
            raise InputError(f"{path}: {what} ({os.path.basename(path)}{suffix}) beside it holds changes not in the "
                             "file; expected a closed export: fold them in with `sqlite3 FILE 'PRAGMA "
                             "wal_checkpoint(TRUNCATE)'` on a copy, or export again once the profiler has finished")


def tables(path: str) -> set[str]:
    """Names of the tables of the file (views are not read: see the module docstring)."""
    con = open_ro(path)
    try:
        return {r[0] for r in sql.run(con, "ingest_sqlite_tables")}
    except sqlite3.Error as e:
        raise_if_stopped()
        raise InputError(f"{path}: cannot read the SQLite database ({e}); "
                         "expected a profiler's SQLite export") from None
    finally:
        con.close()

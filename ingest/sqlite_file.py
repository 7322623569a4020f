"""An SQLite file as the readers open it: told by its magic bytes, opened read-only, and its table names.

It is opened immutable (`mode=ro&immutable=1`): SQLite then takes no lock and writes no journal beside a
file that may sit on a read-only share. The table names tell the profilers' exports apart."""
import sqlite3
from pathlib import Path

from tracedb.errors import InputError
from tracedb.ingest import sniff


def is_sqlite(path: str) -> bool:
    try:
        with sniff.open_regular(path) as f:
            return f.read(len(sniff.SQLITE_MAGIC)) == sniff.SQLITE_MAGIC
    except (OSError, InputError):
        return False


def open_ro(path: str) -> sqlite3.Connection:
    """A read-only connection that never writes beside the file; errors name the file."""
    try:
        return sqlite3.connect(Path(path).resolve().as_uri() + "?mode=ro&immutable=1", uri=True)
    except sqlite3.Error as e:
        raise InputError(f"{path}: cannot open the SQLite database ({e}); expected a profiler's SQLite export") from None


def tables(path: str) -> set[str]:
    """Names of the tables and views of the file."""
    con = open_ro(path)
    try:
        return {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}
    except sqlite3.Error as e:
        raise InputError(f"{path}: cannot read the SQLite database ({e}); expected a profiler's SQLite export") from None
    finally:
        con.close()

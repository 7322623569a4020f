"""Open and create a tracedb store (a DuckDB file): the file checked for what it is, the open waiting for
another process's write lock, a new store written whole from tracedb's own bytes; its catalog (catalog.py) and
schema version (schema.py) checked before anything reads it; and the runs that `--run`/`--tag` name.

The file is created with storage version v1.5.0 so that DuckDB 1.5 clients (the PyPI `duckdb-cli` is
1.5.6 and cannot read DuckDB 2.0's default format) open it too. Schema changes are numbered; a store
from an older tracedb is migrated with `tracedb migrate`, one from a newer one is refused.
"""
import contextlib
import functools
import os
import re
import shutil
import tempfile
import time

import duckdb

from tracedb import atomic, sql
from tracedb.engine.store import schema
from tracedb.errors import StoreError, UsageError

STORAGE_VERSION = "v1.5.0"
DEFAULT_DB = "tracedb.duckdb"
# Seconds an open waits for another process's write lock (an ingest's merge, `tracedb segment`) before it
# gives up: merges hold it ~1 s per million events, so 60 s covers traces of tens of GB.
DEFAULT_WAIT_S = 60.0


def resolve_path(path: str | None) -> str:
    return path or os.environ.get("TRACEDB_DB") or DEFAULT_DB


def open_store(path: str | None = None, read_only: bool = False, migrate: bool = False, wait: float | None = None,
               confined: bool = False):
    """Connection to the store at `path` (default $TRACEDB_DB, else ./tracedb.duckdb).

    Writable opens create the file and its schema when missing. Read-only opens need an existing store
    and allow several readers at once. While another process writes the store (the final merge of an
    ingest, a segmentation), the open waits for it up to `wait` seconds (default $TRACEDB_WAIT, else 60).

    A store file is checked before anything reads it (_check_schema): the tables tracedb keeps must be base
    tables with tracedb's columns, and the store may hold no macro (nor, opened writable, a trigger or CHECK
    constraint), so that a file someone else made runs none of its own SQL in tracedb's queries.
    `confined`, for a session that only reads the store (a report): the store's views give way to tracedb's
    own for the session (own_views), and the connection reaches no file but the store, a dataset's own files
    and this process's scratch folder, where the CSV rendering's COPY writes (atomic.scratch_dir,
    engine/store/sandbox.py)."""
    path = resolve_path(path)
    from tracedb.engine.store import dataset
    if dataset.is_dataset_path(path):   # a Parquet dataset folder: read-only, through its own catalog
        if read_only:   # the catalog is tracedb's own (a new store): only its files are someone else's
            con = dataset.open_dataset(path, lambda p: open_store(p, wait=0), schema.SCHEMA_VERSION, schema.NO_NETWORK)
            if confined:
                _confine(con)
            return con
        if dataset.has_manifest(path):
            raise UsageError(f"{path}: a Parquet dataset, which is read-only; this command needs a store file "
                             "(a DuckDB file); add runs to a dataset with `tracedb ingest TRACE --to FOLDER`")
        raise UsageError(f"{path}: a folder; expected a tracedb store file (a DuckDB file), "
                         f"e.g. {os.path.join(path, DEFAULT_DB)}")
    exists = os.path.exists(path)
    if read_only and not exists:
        raise UsageError(f"{path}: no store here; create one with `tracedb ingest TRACE --db {path}`")
    if exists and not (os.path.isfile(path) or os.path.isdir(path)):
        raise UsageError(f"{path}: not a regular file; expected a tracedb store (a DuckDB file)")
    if exists and os.path.isfile(path) and os.path.getsize(path) == 0:   # `touch store.duckdb`: no content;
        if read_only:                                                       # DuckDB refuses to open it
            raise schema.EmptyStore(f"{path}: empty file; ingest a trace into it first")
        os.unlink(path)
        exists = False
    made = False
    if not exists and not read_only and not path.startswith(":memory:"):   # DuckDB's in-memory database
        exists, made = _create(path)
    if exists:
        _check_header(path)
    config = (dict(schema.NO_NETWORK) if exists
              else {**schema.NO_NETWORK, "storage_compatibility_version": STORAGE_VERSION})
    con = _connect_waiting(path, read_only, config, wait_seconds() if wait is None else wait)
    try:
        sql.run(con, "macros")   # TEMP, so read-only opens have them too; a migration may use them
        schema._check_schema(con, path, read_only, migrate, checked=exists and not made)
        sql.run(con, "launch_macros")   # over the views, which exist once the schema is checked
        if not read_only:
            _discard_unfinished(con)
        if confined:
            own_views(con)
            _confine(con)
    except BaseException:
        con.close()
        raise
    return con


def session(con):
    """A DuckDB session of its own on the store `con` is open on (a cursor: TEMP tables are a session's), with
    tracedb's TEMP macros, as open_store gives them; the caller closes it."""
    cur = con.cursor()
    try:
        sql.run(cur, "macros")
        sql.run(cur, "launch_macros")
    except BaseException:
        cur.close()
        raise
    return cur


def _confine(con):
    from tracedb.engine.store import sandbox
    sandbox.confine(con, [atomic.scratch_dir()])


# The first line of each statement of sql/store/views.sql, made TEMP by own_views
VIEW_HEAD = re.compile(r"^CREATE OR REPLACE VIEW ", re.M)


def own_views(con) -> None:
    """The store's views replaced, for the session on `con`, by tracedb's own: the views of sql/store/views.sql
    as TEMP views, which DuckDB finds before the store's of the same name. A view is SQL kept in the file: a
    store someone else made may hold any (one that reads other files, one that never ends), and a report over
    it runs none of it. The views' SQL cannot be compared instead: DuckDB keeps a view's text as the DuckDB
    that made it wrote it (1.5 and 2.0 place parentheses differently). Costs ~9 ms for the 10 views."""
    for stmt in sql.file_statements("views"):
        temp, n = VIEW_HEAD.subn("CREATE OR REPLACE TEMP VIEW ", stmt, count=1)
        if not n:
            raise RuntimeError("sql/store/views.sql: every statement must start a line with "
                               "`CREATE OR REPLACE VIEW ` (own_views makes it TEMP)")
        con.execute(temp)


@functools.lru_cache(maxsize=1)
def _new_store_bytes() -> bytes | None:
    """The bytes of a new, empty store (schema.sql, every migration, the views), built once per process in a
    temporary folder that is removed at once; None where that folder cannot be made. A new store, each
    ingest's side store among them, is then one file write (~1 ms) instead of ~45 ms of DDL."""
    try:
        folder = tempfile.mkdtemp(prefix="tracedb-new-store-")
    except OSError:
        return None
    try:
        path = os.path.join(folder, "new.duckdb")
        con = duckdb.connect(path, config={**schema.NO_NETWORK, "storage_compatibility_version": STORAGE_VERSION})
        try:
            sql.run(con, "macros")
            schema._check_schema(con, path, False, False, checked=False)
        finally:
            con.close()
        with open(path, "rb") as f:
            return f.read()
    except (OSError, duckdb.Error):
        return None
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _create(path: str) -> tuple[bool, bool]:
    """Put a new, empty store at `path`, whole or not at all: the bytes go to a temporary file beside it, which
    is then hard-linked to `path` (a link never replaces a file, so a store another process made meanwhile is
    kept, and no process ever opens a half-written file). (whether a file is there, whether this call made it);
    (False, False) when no copy could be made: the open then creates the schema in place, as on a file system
    without hard links. A file this call made is tracedb's own bytes: the open does not check its catalog."""
    data = _new_store_bytes()
    if data is None:
        return False, False
    try:
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)), prefix=".tracedb-new-store-")
    except OSError:
        return False, False    # the open names what stops it (a missing folder, no permission)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, atomic.file_mode())
        os.link(tmp, path)
    except FileExistsError:
        return True, False
    except OSError:
        return False, False
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    return True, True


def _check_header(path: str):
    """A file that is not a DuckDB database is named as what it is before DuckDB opens it: DuckDB would
    take a SQLite file for a database to attach through its sqlite extension (and try to load it), and
    words other files' errors as I/O errors. A DuckDB file holds the magic `DUCK` at bytes 8-11; an empty
    file never reaches here (open_store takes it for no store)."""
    try:
        with open(path, "rb") as f:
            head = f.read(16)
    except OSError as e:
        raise StoreError(f"{path}: cannot read: {e.strerror}") from None
    if not head or head[8:12] == b"DUCK":
        return
    what = "a SQLite database" if head.startswith(b"SQLite format 3\0") else "not a DuckDB file"
    raise StoreError(f"{path}: {what}; expected a tracedb store (a DuckDB file written by tracedb ingest)")


def wait_seconds() -> float:
    raw = os.environ.get("TRACEDB_WAIT", "")
    try:
        value = float(raw) if raw.strip() else DEFAULT_WAIT_S
    except ValueError:
        raise UsageError(f"TRACEDB_WAIT={raw!r}: expected a number of seconds, e.g. 60") from None
    if not 0 <= value < 1e7:
        raise UsageError(f"TRACEDB_WAIT={raw!r}: expected a number of seconds from 0 to 10,000,000")
    return value


def _connect_waiting(path, read_only, config, wait):
    """duckdb.connect, retried while another process holds the file's lock, for up to `wait` seconds
    (polling every 20 ms at first, then up to every 250 ms)."""
    deadline, pause = time.monotonic() + wait, 0.02
    while True:
        try:
            return duckdb.connect(path, read_only=read_only, config=config)
        except duckdb.IOException as e:
            if not _is_lock_error(e) or time.monotonic() + pause > deadline:
                raise StoreError(_lock_or_io_message(path, e, wait)) from None
        except duckdb.Error as e:
            raise StoreError(f"{path}: cannot open as a DuckDB file: {_first_line(e)}") from None
        time.sleep(pause)
        pause = min(pause * 2, 0.25)


def _is_lock_error(e) -> bool:
    return "lock" in _first_line(e).lower()


def _discard_unfinished(con):
    """Rows of a Chrome ingest whose process died between its committed parts and its final
    transaction: invisible (no runs row), removed here by the next writer."""
    row = sql.run(con, "meta_value", {"key": "pending_run"}).fetchone()
    if row and str(row[0]).isdigit():
        sql.run(con, "discard_pending", {"run_id": int(row[0])})


def _first_line(e) -> str:
    return str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__


def _lock_or_io_message(path, e, wait=0.0) -> str:
    msg = _first_line(e)
    if "lock" in msg.lower():
        pid = re.search(r"PID (\d+)", msg)
        who = f" (PID {pid.group(1)})" if pid else ""
        return (f"{path}: the store is in use by another process{who} and stayed so for {wait:g} s; DuckDB "
                "allows one writer, or many readers with no writer. Close that process's connection, or wait "
                "longer (TRACEDB_WAIT=seconds)")
    return f"{path}: {msg}"


GLOB_CHARS = frozenset("*?[")


def parse_tags(tags) -> dict[str, str]:
    """Tags to set: `KEY=VALUE` strings (or a dict) -> {key: value}; a later value for a key wins."""
    if isinstance(tags, dict):
        return {str(k): str(v) for k, v in tags.items()}
    out = {}
    for t in tags or []:
        k, sep, v = str(t).partition("=")
        if not sep or not k:
            raise UsageError(f"tag {t!r}: expected KEY=VALUE")
        out[k] = v
    return out


def parse_tag_filters(tags) -> list[tuple[str, str | None]]:
    """`KEY=VALUE` (the tag has this value) or `KEY` (the run has the tag) -> (key, value or None)."""
    out = []
    for t in tags or []:
        k, sep, v = str(t).partition("=")
        if not k:
            raise UsageError(f"--tag {t!r}: expected KEY=VALUE or KEY")
        out.append((k, v if sep else None))
    return out


def resolve_runs(con, runs=(), tags=()) -> list[int]:
    """Run ids for `--run NAME|GLOB` (repeatable) and `--tag KEY[=VALUE]` (repeatable, all must match).

    A name that exists is taken literally, even if it holds glob characters; otherwise a value with
    `* ? [` is a DuckDB GLOB whose matches come in store order (run_id). Names keep the order given (the
    first run is compare's reference, cores' run a); duplicates are dropped. Tags filter the runs named,
    or select among all runs when no --run is given. With neither, a store of one run gives that run. Whatever
    matches nothing is a UsageError."""
    filters = parse_tag_filters(tags)
    if not runs and not filters:
        # a store of one run needs no name for it: there is nothing else it could mean
        only = sql.run(con, "run_id_list").fetchone()[0] or []
        if len(only) == 1:
            return only
        raise UsageError("give at least one --run NAME|GLOB or --tag KEY[=VALUE] (see `tracedb runs`)")
    ids = []
    exact = dict(sql.run(con, "runs_by_name", {"names": list(runs or [])}).fetchall()) if runs else {}
    for r in runs or []:
        found = [exact[r]] if r in exact else []
        if not found and GLOB_CHARS & set(r):
            found = _select(con, pattern=r)
            if not found:
                raise UsageError(f"run pattern {r!r} matches no run name (DuckDB GLOB: * ? [abc] [!abc], "
                                 f"case-sensitive); {_store_hint(con)}")
        if not found:
            raise unknown_run(con, r)
        ids += found
    if filters:
        tagged = _select(con, filters=filters)
        ids = [i for i in ids if i in frozenset(tagged)] if runs else tagged
        if not ids:
            asked = " ".join(f"--tag {t}" for t in tags) + (" among the runs of --run" if runs else "")
            raise UsageError(f"{asked}: no run matches; {_store_hint(con, with_tags=True)}")
    return list(dict.fromkeys(ids))


def _select(con, name=None, pattern=None, filters=()) -> list[int]:
    params = {"name": name, "pattern": pattern, "keys": [k for k, _ in filters], "values": [v for _, v in filters]}
    return [r[0] for r in sql.run(con, "select_runs", params).fetchall()]


def unknown_run(con, name: str) -> UsageError:
    return UsageError(f"unknown run {name!r}; {_store_hint(con)}")


def _store_hint(con, with_tags=False, shown=8) -> str:
    """A few run names (with their tags) for error messages."""
    rows = sql.run(con, "run_names_tags").fetchall()
    if not rows:
        return "the store has no runs yet"
    names = [n + (f" ({', '.join(f'{k}={v}' for k, v in (t or {}).items()) or 'no tags'})" if with_tags else "")
             for n, t in rows[:shown]]
    more = f", … ({len(rows)} runs)" if len(rows) > shown else ""
    return f"runs in the store: {', '.join(names)}{more}"

"""Open, create and check a tracedb store (a DuckDB file).

The file is created with storage version v1.5.0 so that DuckDB 1.5 clients (the PyPI `duckdb-cli` is
1.5.6 and cannot read DuckDB 2.0's default format) open it too. Schema changes are numbered; a store
from an older tracedb is migrated with `tracedb migrate`, one from a newer one is refused.
"""
import contextlib
import functools
import hashlib
import os
import re
import shutil
import tempfile
import time

import duckdb

from tracedb import atomic, sql
from tracedb.errors import StoreError, UsageError

SCHEMA_VERSION = 12
STORAGE_VERSION = "v1.5.0"
DEFAULT_DB = "tracedb.duckdb"
# Seconds an open waits for another process's write lock (an ingest's merge, `tracedb segment`) before it
# gives up: merges hold it ~1 s per million events, so 60 s covers traces of tens of GB.
DEFAULT_WAIT_S = 60.0
# No extension is ever fetched: a --db that names a SQLite or Postgres file would otherwise make DuckDB
# download the scanner it needs (and wait on the network) instead of failing at once.
NO_NETWORK = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}
# Tables every store at SCHEMA_VERSION has (sql/store/schema.sql and the migrations); the views
# (sql/store/views.sql, kernels_raw among them) are built on them.
CORE_TABLES = ("runs", "kernels_raw_full", "kernels_raw_ascend_csv", "trace_events", "tracks", "kernel_names",
               "segmentations", "kernel_segments", "run_groups", "comm_ops", "comm_links", "comm_matrix", "step_times",
               "kernel_texts", "kernel_work_rows", "kernel_work_tuples")
# sha256 over the columns of those tables and tracedb_meta, as _tables_digest lists them for a store at
# SCHEMA_VERSION (`table: column TYPE, ...` lines, tables by name): the check of every open compares a store's
# tables with it at ~2 ms. A store that differs is compared table by table with the tables of a new store,
# built in memory (~0.1 s), to name the table; tests/test_hostile_stores.py checks the value against a new store.
TABLES_DIGEST = "bbfb5c4c0261240c6d4a16919b201defd5256e2bcdaea86bdfdd2b02d90c4a6f"
# from-version -> sql file that brings the store's tables one version up. A new store is schema.sql (v1)
# plus every migration, so the migration path runs on every store ever created; the views are created
# after the last one (views.sql). A change to a view needs a new version too: a store already at the
# current one is never rewritten on open.
MIGRATIONS: dict[int, str] = {1: "migrate_1_to_2", 2: "migrate_2_to_3", 3: "migrate_3_to_4", 4: "migrate_4_to_5",
                              5: "migrate_5_to_6", 6: "migrate_6_to_7",
                              7: "migrate_7_to_8", 8: "migrate_8_to_9", 9: "migrate_9_to_10",
                              10: "migrate_10_to_11", 11: "migrate_11_to_12"}


class EmptyStore(StoreError):
    """A read-only open of a file with no tracedb store in it yet (empty, or a DuckDB file without tables)."""


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
            con = dataset.open_dataset(path, lambda p: open_store(p, wait=0), SCHEMA_VERSION, NO_NETWORK)
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
            raise EmptyStore(f"{path}: empty file; ingest a trace into it first")
        os.unlink(path)
        exists = False
    made = False
    if not exists and not read_only and not path.startswith(":memory:"):   # DuckDB's in-memory database
        exists, made = _create(path)
    if exists:
        _check_header(path)
    config = dict(NO_NETWORK) if exists else {**NO_NETWORK, "storage_compatibility_version": STORAGE_VERSION}
    con = _connect_waiting(path, read_only, config, wait_seconds() if wait is None else wait)
    try:
        sql.run(con, "macros")   # TEMP, so read-only opens have them too; a migration may use them
        _check_schema(con, path, read_only, migrate, checked=exists and not made)
        if not read_only:
            _discard_unfinished(con)
        if confined:
            own_views(con)
            _confine(con)
    except BaseException:
        con.close()
        raise
    return con


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
        con = duckdb.connect(path, config={**NO_NETWORK, "storage_compatibility_version": STORAGE_VERSION})
        try:
            sql.run(con, "macros")
            _check_schema(con, path, False, False, checked=False)
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
    row = con.execute("SELECT value FROM tracedb_meta WHERE key = 'pending_run'").fetchone()
    if row and str(row[0]).isdigit():
        sql.run(con, "discard_pending", {"run_id": int(row[0])})


def _check_schema(con, path, read_only, migrate, checked=True):
    """The store's schema version, creating or migrating the schema where asked. `checked`: the catalog is
    checked first (no macro, trigger or CHECK constraint; the tables tracedb keeps are base tables with its
    columns), before any table is read; a file this process just made from tracedb's own bytes is not."""
    cat = _catalog(con)
    tables = set(cat.tables) | cat.views
    if "tracedb_meta" not in tables:
        if tables:
            raise StoreError(f"{path}: a DuckDB file but not a tracedb store (tables: {', '.join(sorted(tables)[:5])})")
        if checked:
            _refuse_code(con, path, read_only)
        if read_only:
            raise EmptyStore(f"{path}: empty DuckDB file; ingest a trace into it first")
        con.execute("BEGIN")
        sql.run(con, "schema")
        _upgrade(con, 1)
        con.execute("INSERT INTO tracedb_meta VALUES ('schema_version', $v)", {"v": str(SCHEMA_VERSION)})
        con.execute("COMMIT")
        return
    if checked:
        _refuse_code(con, path, read_only)
        _check_tables(path, cat, {"tracedb_meta": META_COLUMNS})   # read next: a table, of two texts
    row = con.execute("SELECT value FROM tracedb_meta WHERE key = 'schema_version'").fetchone()
    version = int(row[0]) if row and str(row[0]).isdigit() else -1
    if version == SCHEMA_VERSION:
        missing = [t for t in CORE_TABLES if t not in tables]
        if missing:   # dropped by hand (tracedb sql --write): every command would fail on it later
            raise StoreError(f"{path}: a tracedb store without its table(s) {', '.join(missing)}; it cannot be "
                             "used: re-ingest the traces into a new store")
        if checked and _tables_digest(cat) != TABLES_DIGEST:
            _check_tables(path, cat, _expected_tables(SCHEMA_VERSION))
        return
    if version > SCHEMA_VERSION:
        raise StoreError(f"{path}: written by a newer tracedb (schema v{version}, this one reads v{SCHEMA_VERSION}); "
                         "upgrade tracedb to read it")
    if version not in MIGRATIONS:
        raise StoreError(f"{path}: schema v{version} cannot be migrated to v{SCHEMA_VERSION}; "
                         "re-ingest the traces into a new store")
    if read_only or not migrate:
        raise StoreError(f"{path}: schema v{version} is older than v{SCHEMA_VERSION}; "
                         f"run `tracedb migrate --db {path}`")
    if checked:   # the migrations read the tables of that version: each must be a table, computing no column
        _check_tables(path, cat, _expected_tables(version), exact=False)
    con.execute("BEGIN")
    _upgrade(con, version)
    if SCHEMA_VERSION >= 5 > version:
        from tracedb.ingest import kernel_names   # v5: short names of the names already there (of the kernels view)
        kernel_names.fill(con)
    if SCHEMA_VERSION >= 9 > version:
        from tracedb.ingest import kernel_work   # v9: the work of the kernels already there
        kernel_work.fill(con)
    con.execute("UPDATE tracedb_meta SET value = $v WHERE key = 'schema_version'", {"v": str(SCHEMA_VERSION)})
    con.execute("COMMIT")


# What a store's catalog holds in its schema main, in one query (~2 ms on a store of 17 tables and 10 views):
# its base tables, the columns of its tables and views (`name TYPE`, and ` = expr` for a column with a default
# or a computed value: tracedb's have neither), and its views. The catalog functions are named with their
# schema: a store's macro named duckdb_tables would otherwise replace DuckDB's in the query.
CATALOG_SQL = """
SELECT 'table' AS kind, table_name AS name, NULL AS position, NULL AS detail FROM system.main.duckdb_tables()
WHERE database_name = system.main.current_database() AND schema_name = 'main'
UNION ALL
SELECT 'column', table_name, column_index, column_name || ' ' || data_type || coalesce(' = ' || column_default, '')
FROM system.main.duckdb_columns()
WHERE database_name = system.main.current_database() AND schema_name = 'main'
UNION ALL
SELECT 'view', view_name, NULL, NULL FROM system.main.duckdb_views()
WHERE database_name = system.main.current_database() AND schema_name = 'main' AND NOT internal"""
# What runs SQL when a table is written: a trigger (DuckDB 2.0 has them, in stores of storage v2.0.0) and a CHECK
# constraint (tracedb's tables have neither). Looked for on writable opens only, as a read runs neither (the
# two listings cost ~5 ms a connection).
WRITE_SQL_SQL = """
SELECT 'a constraint ' || constraint_text, table_name FROM system.main.duckdb_constraints()
WHERE database_name = system.main.current_database() AND schema_name = 'main' AND constraint_type = 'CHECK'"""
TRIGGERS_SQL = """
UNION ALL
SELECT 'a TRIGGER (' || trigger_name || ')', table_name FROM system.main.duckdb_triggers()
WHERE database_name = system.main.current_database() AND schema_name = 'main'"""
# A function kept in the store's schema main: a macro, which DuckDB finds before its own functions of that name
# (a store's macro `upper` or `sha256` replaces DuckDB's in every query). DuckDB lists functions in one table
# with its ~3,300 own, so this is the costly part of the check: ~15 ms.
MACROS_SQL = """
SELECT function_name, function_type FROM system.main.duckdb_functions()
WHERE database_name = system.main.current_database() AND schema_name = 'main'"""
# tracedb_meta, read before the schema version says which tables to expect (schema.sql; no migration changes it)
META_COLUMNS = ("key VARCHAR", "value VARCHAR")
REFUSED = "refused (a store's own SQL is never run)"


class Catalog:
    """A store's schema main: base table -> its columns in order, and the views."""

    def __init__(self, rows):
        columns: dict[str, list] = {}
        for kind, name, position, detail in rows:
            if kind == "column":
                columns.setdefault(name, []).append((position, detail))
        self.tables = {name: tuple(d for _, d in sorted(columns.get(name, ())))
                       for kind, name, _, _ in rows if kind == "table"}
        self.views = {name for kind, name, _, _ in rows if kind == "view"}


def _catalog(con) -> Catalog:
    return Catalog(con.execute(CATALOG_SQL).fetchall())


@functools.lru_cache(maxsize=1)
def _has_triggers() -> bool:
    """DuckDB 2.0 brought triggers (and duckdb_triggers()); 1.5 has neither."""
    return int(re.match(r"\d+", duckdb.__version__).group()) >= 2


def _refuse_code(con, path, read_only: bool):
    """A macro in the store, or on a writable open a trigger or CHECK constraint (tracedb keeps none), refuses
    it, named."""
    if not read_only:
        found = con.execute(WRITE_SQL_SQL + (TRIGGERS_SQL if _has_triggers() else "")).fetchone()
        if found:
            raise StoreError(f"store {path}: main.{found[1]} has {found[0]}, which tracedb never makes and which "
                             f"DuckDB would run on a write; {REFUSED}")
    macro = con.execute(MACROS_SQL).fetchone()
    if macro:
        raise StoreError(f"store {path}: main.{macro[0]} is a {macro[1].upper().replace('_', ' ')}, which tracedb "
                         f"never keeps in a store and which DuckDB would run in place of its own function; {REFUSED}")


def _tables_digest(cat: Catalog) -> str:
    lines = [f"{t}: {', '.join(cat.tables.get(t, ()))}" for t in sorted(("tracedb_meta",) + CORE_TABLES)]
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


@functools.lru_cache(maxsize=4)
def _expected_tables(version: int) -> dict[str, tuple]:
    """Base table -> columns of a store at schema `version`, as schema.sql and the migrations up to it make
    them, in an in-memory database (~0.1 s)."""
    mem = duckdb.connect(config=dict(NO_NETWORK))
    try:
        sql.run(mem, "macros")
        sql.run(mem, "schema")
        for v in range(1, version):
            sql.run(mem, MIGRATIONS[v])
        return _catalog(mem).tables
    finally:
        mem.close()


def _check_tables(path, cat: Catalog, expected: dict[str, tuple], exact=True):
    """Each table of `expected` (name -> columns) is a base table of the store with those columns; not `exact`
    (an older store, to be migrated): with no column of a default or computed value, whatever its columns (an
    older tracedb's are the migrations' business)."""
    for table, want in sorted(expected.items()):
        if table in cat.views:
            raise StoreError(f"store {path}: main.{table} is a VIEW where tracedb keeps a table; {REFUSED}")
        if table not in cat.tables:
            raise StoreError(f"{path}: a tracedb store without its table {table}; it cannot be used: re-ingest the "
                             "traces into a new store")
        got = cat.tables[table]
        computed = [c for c in got if " = " in c]
        if not exact and computed:
            raise StoreError(f"store {path}: main.{table} has the column `{computed[0]}`, of a value DuckDB computes; "
                             f"{REFUSED}")
        if got == want or not exact:
            continue
        for i, (g, w) in enumerate(zip(got, want)):
            if g != w:
                raise StoreError(f"store {path}: main.{table} column {i + 1} is `{g}` where tracedb keeps `{w}`; "
                                 f"{REFUSED}")
        what = (f"has a column `{got[len(want)]}` tracedb does not keep" if len(got) > len(want)
                else f"lacks the column `{want[len(got)]}`")
        raise StoreError(f"store {path}: main.{table} {what}; {REFUSED}")


def _upgrade(con, version: int):
    """The tables of a store at schema `version` brought to SCHEMA_VERSION by the migrations, then every view
    (re-)created from views.sql: a new store (schema.sql is v1) and a migrated one end with the same
    catalog, and an older store's views, written by an older tracedb, give way to today's."""
    for v in range(version, SCHEMA_VERSION):
        sql.run(con, MIGRATIONS[v])
    sql.run(con, "views")


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
        only = con.execute("SELECT list(run_id) FROM runs").fetchone()[0] or []
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
    rows = con.execute("SELECT name, tags FROM runs ORDER BY run_id").fetchall()
    if not rows:
        return "the store has no runs yet"
    names = [n + (f" ({', '.join(f'{k}={v}' for k, v in (t or {}).items()) or 'no tags'})" if with_tags else "")
             for n, t in rows[:shown]]
    more = f", … ({len(rows)} runs)" if len(rows) > shown else ""
    return f"runs in the store: {', '.join(names)}{more}"

"""A Parquet dataset folder (written by `tracedb export parquet` or `tracedb ingest --to DIR`) opened as a
read-only DuckDB connection with the tables and views of a store, so every report and `tracedb sql` runs
over it unchanged.

Layout: one folder per table of the store; a table with a run_id column holds one Hive partition folder
per run (`kernels_raw_full/run_id=3/data.parquet`), any other table whole files (`kernel_names/data.parquet`).
`kernels/` holds the counted kernels (the `kernels` view) per run, for engines other than tracedb. The
manifest `tracedb-dataset.json` lists the runs and, per run, the files that are complete: a file no
manifest names (an ingest killed before its commit) is never read.

The connection is a small DuckDB catalog file made for this open in the temp folder: a new store
(sql/store/schema.sql, every migration and sql/store/views.sql, so its views are a store's, defined once),
in which each base table is replaced by a view over its Parquet files. The file is reopened read-only and
unlinked at once, so writes are refused as in a read-only store, TEMP tables (what reports build) work, and
nothing is left behind. Building it takes ~0.12 CPU-s (0.17 with 300 runs), against 0.03 for opening a store file.
"""
import contextlib
import json
import os
import re
import shutil
import tempfile

import duckdb

from tracedb import atomic, sql
from tracedb.errors import StoreError, UsageError, parse_limit

MANIFEST = "tracedb-dataset.json"
FORMAT = "tracedb-dataset"
FORMAT_VERSION = 1
PARTITION = "run_id"
KERNELS = "kernels"          # the counted kernels, written as a table for other engines
DATA_FILE = "data.parquet"
RAW_TABLES = {"kernels_raw_full", "kernels_raw_ascend_csv"}   # the tables under the view kernels_raw


def is_dataset_path(path: str | None) -> bool:
    """A --db that names a dataset: an existing folder, or a path ending in a slash."""
    return bool(path) and (path.endswith(("/", os.sep)) or os.path.isdir(path))


def manifest_path(folder: str) -> str:
    return os.path.join(folder, MANIFEST)


def has_manifest(folder: str) -> bool:
    return os.path.isfile(manifest_path(folder))


def read_manifest(folder: str) -> dict:
    """The manifest of the dataset at `folder`, checked for what a reader needs."""
    path = manifest_path(folder)
    if not os.path.exists(folder):
        raise UsageError(f"{folder}: no dataset here; write one with `tracedb export parquet --db STORE {folder}`")
    if not os.path.isdir(folder):
        raise UsageError(f"{folder}: not a folder; expected a tracedb dataset folder (holding {MANIFEST})")
    if not os.path.isfile(path):
        raise UsageError(f"{folder}: a folder but not a tracedb dataset (no {MANIFEST}); expected a folder written "
                         "by `tracedb export parquet` or `tracedb ingest --to`, or a store file (a DuckDB file)")
    try:
        with open(path, encoding="utf-8") as f:
            m = json.load(f)
    except OSError as e:
        raise StoreError(f"{path}: cannot read: {e.strerror}") from None
    except (RecursionError, ValueError) as e:   # a manifest tracedb writes nests 4 levels, its numbers 19 digits
        why = parse_limit(e) or f"not JSON ({e})"
        raise StoreError(f"{path}: {why}; expected the manifest of a tracedb dataset") from None
    if not isinstance(m, dict) or m.get("format") != FORMAT or not isinstance(m.get("runs"), list) \
            or not isinstance(m.get("tables"), dict):
        raise StoreError(f"{path}: not a tracedb dataset manifest; "
                         f"expected \"format\": \"{FORMAT}\" with tables and runs")
    check_manifest(path, m)
    return m


# run ids are the store's INTEGER (sql/store/schema.sql): a manifest's ids and next_run_id stay below 2^31 - 1, so
# that the next run's id fits too
MAX_RUN_ID = 2**31 - 2


def _is_int(v, least: int, most: int | None = None) -> bool:
    return type(v) is int and v >= least and (most is None or v <= most)


def _bad(path: str, where: str, got, expected: str):
    shown = json.dumps(got)
    raise StoreError(f"{path}: {where} is {shown[:60] + '…' if len(shown) > 60 else shown}; expected {expected}")


def check_manifest(path: str, m: dict) -> None:
    """The manifest holds what tracedb writes and nothing else, checked before any file it names is read,
    written or deleted: this format's version, tables with plain names, each run once (id and name), and
    every file at the very path the dataset itself writes for its table and run (so no absolute path, no
    `..`, no glob character, no file of another dataset or another run)."""
    if not _is_int(m.get("format_version"), 0) or m["format_version"] != FORMAT_VERSION:
        _bad(path, "format_version", m.get("format_version"),
             f"{FORMAT_VERSION}, the dataset format this tracedb reads")
    if not _is_int(m.get("schema_version"), 1):
        _bad(path, "schema_version", m.get("schema_version"), "a schema version (an integer)")
    if "next_run_id" in m and not _is_int(m["next_run_id"], 1, MAX_RUN_ID + 1):
        _bad(path, "next_run_id", m["next_run_id"], f"an integer from 1 to {MAX_RUN_ID + 1}")
    for table, desc in m["tables"].items():
        if not IDENT.fullmatch(table) or not isinstance(desc, dict) \
                or desc.get("partition_by") not in (None, PARTITION):
            _bad(path, f"tables.{table[:40]}", desc, f"a table of a plain name, partitioned by {PARTITION} or not")
    ids, names = set(), set()
    for i, run in enumerate(m["runs"]):
        where = f"runs[{i}]"
        if not isinstance(run, dict) or not _is_int(run.get("run_id"), 1, MAX_RUN_ID) or run["run_id"] in ids:
            _bad(path, f"{where}.run_id", run.get("run_id") if isinstance(run, dict) else run,
                 f"an integer from 1 to {MAX_RUN_ID}, once per dataset")
        if not isinstance(run.get("name"), str) or not run["name"] or run["name"] in names:
            _bad(path, f"{where}.name", run.get("name"), "a run name, once per dataset")
        ids.add(run["run_id"])
        names.add(run["name"])
        files = run.get("files") or {}
        if not isinstance(files, dict):
            _bad(path, f"{where}.files", files, "an object of table -> file path")
        for table, rel in files.items():
            if rel not in run_file_paths(table, run["run_id"]) or (table not in m["tables"] and table != KERNELS):
                _bad(path, f"{where}.files.{table[:40]}", rel,
                     " or ".join(run_file_paths(table, run["run_id"])) + " (the path the dataset writes)")
    shared = m.get("shared") or {}
    if not isinstance(shared, dict):
        _bad(path, "shared", shared, "an object of table -> file paths")
    for table, rels in shared.items():
        if table not in m["tables"] or rels != [shared_file_path(table)]:
            _bad(path, f"shared.{table[:40]}", rels, f"[{json.dumps(shared_file_path(table))}]")


IDENT = re.compile(r"[a-z_][a-z0-9_]{0,62}")


def run_file_paths(table: str, run_id: int) -> tuple[str, ...]:
    """The paths a dataset writes a run's file of `table` at, relative to its folder: the partition file, or
    a whole file per run (a table without run_id, added by `ingest --to`)."""
    if not IDENT.fullmatch(table):
        return ()
    return (f"{table}/{PARTITION}={run_id}/{DATA_FILE}", f"{table}/run-{run_id}.parquet")


def shared_file_path(table: str) -> str:
    return f"{table}/{DATA_FILE}"


def inside(folder: str, rel: str) -> str:
    """The absolute path of `rel` in the dataset at `folder`, refused when it resolves outside the folder (a
    symlinked table folder or file pointing elsewhere)."""
    root = os.path.realpath(folder)
    real = os.path.realpath(os.path.join(root, rel))
    if os.path.commonpath([root, real]) != root:
        raise StoreError(f"{os.path.join(folder, rel)}: resolves to {real}, outside the dataset {folder}; expected "
                         "the dataset's own file")
    return os.path.join(folder, rel)


def check_version(m: dict, where: str, schema_version: int):
    """A dataset of another store schema than this tracedb's is refused, newer or older."""
    version = m.get("schema_version")
    if version != schema_version:
        newer = isinstance(version, int) and version > schema_version
        raise StoreError(f"{where}: a dataset of schema v{version}, this tracedb reads v{schema_version}; "
                         + ("upgrade tracedb to read it" if newer else
                            "export it again from a migrated store (tracedb migrate, then tracedb export parquet)"))


def table_files(folder: str, m: dict) -> dict[str, list[str]]:
    """Table -> absolute paths of its committed files: every run's, then the shared ones."""
    out: dict[str, list[str]] = {t: [] for t in m["tables"]}
    for run in m["runs"]:
        for table, rel in (run.get("files") or {}).items():
            out.setdefault(table, []).append(inside(folder, rel))
    for table, rels in (m.get("shared") or {}).items():
        out.setdefault(table, []).extend(inside(folder, r) for r in rels)
    return out


def open_dataset(path: str, new_store, schema_version: int, config: dict):
    """A read-only connection presenting the dataset at `path` as a store: its base tables as views over
    the Parquet files, the store's views and macros over them. `new_store(path)` creates an empty store
    (engine/store/connect.py's open_store, passed in so that this module does not import it); `config`: the
    DuckDB settings of every connection."""
    folder = os.path.abspath(path)
    m = read_manifest(path)
    check_version(m, path, schema_version)
    try:
        files = {t: f for t, f in table_files(folder, m).items() if f}
    except (AttributeError, TypeError, ValueError):
        raise StoreError(f"{manifest_path(path)}: runs[].files: expected an object of table -> file path") from None
    missing = [f for fs in files.values() for f in fs if not os.path.isfile(f)]
    if missing:
        raise StoreError(f"{missing[0]}: missing; the dataset {path} is incomplete ({len(missing)} file(s) its "
                         f"{MANIFEST} names are gone)")
    tmp = tempfile.mkdtemp(prefix="tracedb-dataset-")
    catalog = os.path.join(tmp, "dataset.duckdb")
    try:
        _build_catalog(new_store(catalog), m, files, path)
        con = duckdb.connect(catalog, read_only=True, config=dict(config))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)   # the open connection keeps the unlinked file
    try:
        sql.run(con, "macros")
        sql.run(con, "dataset_files", {"files": _files_param(files)})
        sql.run(con, "launch_macros")   # after the files: creating them reads the views over the files
        bad = sql.run(con, "dataset_check_times").fetchone() if RAW_TABLES & files.keys() else None
        if bad:
            raise StoreError(f"{path}: run {bad[0]}: kernel {bad[1][:60]!r} lasts {bad[2]} ns; expected durations "
                             "of 0 or more, as tracedb writes them")
    except BaseException:
        con.close()
        raise
    return con


def _files_param(files: dict[str, list[str]]) -> dict:
    # a STRUCT needs a field; a dataset always has tables, this only guards an empty manifest
    return files or {"none": []}


def _build_catalog(con, m: dict, files: dict, where: str):
    """In the new store open on `con`, the base tables the dataset holds become views over its files; the
    connection is closed."""
    try:
        sql.run(con, "dataset_files", {"files": _files_param(files)})
        schema: dict[str, list[str]] = {}
        for table, column, _ in sql.run(con, "dataset_tables").fetchall():
            schema.setdefault(table, []).append(column)
        for table, columns in schema.items():
            if table not in files:
                continue        # a table this dataset does not hold stays an empty table
            stored = list(m["tables"][table].get("columns") or {}) if table in m["tables"] else None
            if stored is not None and sorted(stored) != sorted(columns):
                raise StoreError(f"{where}: table {table} has columns {', '.join(stored)}; this tracedb's has "
                                 f"{', '.join(columns)}: export the dataset again with this tracedb")
            cols = ", ".join(sql.ident(c) for c in columns)
            name = "dataset_table_view" if PARTITION in columns else "dataset_whole_view"
            sql.run(con, name, table=sql.ident(table), columns=cols)
    except duckdb.Error as e:
        raise StoreError(f"{where}: cannot read the dataset: {str(e).strip().splitlines()[0]}") from None
    finally:
        con.close()


@contextlib.contextmanager
def locked(folder: str):
    """An exclusive lock on the dataset's manifest while it is read, changed and written (several ingests
    into one folder at once, from processes or machines sharing the folder where flock works)."""
    import fcntl
    path = os.path.join(folder, ".tracedb-dataset.lock")
    try:   # O_NOFOLLOW: a symlink planted at the lock's name is refused, never opened (or created) through
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    except OSError as e:
        raise StoreError(f"{path}: cannot open the dataset's lock file ({e.strerror}); expected a plain file "
                         "that tracedb made") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def write_manifest(folder: str, m: dict):
    """Commit a manifest: written to a temporary name, flushed, then renamed over the old one, so a
    reader sees the old or the new manifest, never a part."""
    path = manifest_path(folder)
    with atomic.replaced(path, fsync=True) as f:
        json.dump(m, f, indent=1, sort_keys=False)
        f.write("\n")

"""A Parquet dataset folder (written by `tracedb export parquet` or `tracedb ingest --to DIR`) opened as a
read-only DuckDB connection with the tables and views of a store, so every report and `tracedb sql` runs
over it unchanged.

Layout: one folder per table of the store; a table with a run_id column holds one Hive partition folder
per run (`kernels_raw/run_id=3/data.parquet`), any other table whole files (`kernel_names/data.parquet`).
`kernels/` holds the counted kernels (the `kernels` view) per run, for engines other than tracedb. The
manifest `tracedb-dataset.json` lists the runs and, per run, the files that are complete: a file no
manifest names (an ingest killed before its commit) is never read.

The connection is a small DuckDB catalog file made for this open in the temp folder: a new store
(sql/store/schema.sql, every migration and sql/store/views.sql, so its views are a store's, defined once),
in which each base table is replaced by a view over its Parquet files. The file is reopened read-only and unlinked at once,
so writes are refused as in a read-only store, TEMP tables (what reports build) work, and nothing is left
behind. Building it takes ~0.12 CPU-s (0.17 with 300 runs), against 0.03 for opening a store file.
"""
import contextlib
import json
import os
import shutil
import tempfile

import duckdb

from tracedb import atomic, sql
from tracedb.errors import StoreError, UsageError

MANIFEST = "tracedb-dataset.json"
FORMAT = "tracedb-dataset"
FORMAT_VERSION = 1
PARTITION = "run_id"
KERNELS = "kernels"          # the counted kernels, written as a table for other engines


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
    except ValueError as e:
        raise StoreError(f"{path}: not JSON ({e}); expected the manifest of a tracedb dataset") from None
    if not isinstance(m, dict) or m.get("format") != FORMAT or not isinstance(m.get("runs"), list) \
            or not isinstance(m.get("tables"), dict):
        raise StoreError(f"{path}: not a tracedb dataset manifest; expected \"format\": \"{FORMAT}\" with tables and runs")
    return m


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
            out.setdefault(table, []).append(os.path.join(folder, rel))
    for table, rels in (m.get("shared") or {}).items():
        out.setdefault(table, []).extend(os.path.join(folder, r) for r in rels)
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
    fd = os.open(os.path.join(folder, ".tracedb-dataset.lock"), os.O_RDWR | os.O_CREAT, 0o644)
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

"""The connection of `tracedb sql`, confined: the user's SQL text may read the store (or the dataset's own
Parquet files) and nothing else, unless they name more.

DuckDB can reach the file system from SQL (read_csv, read_blob, glob, COPY ... TO, EXPORT DATABASE, ATTACH,
INSTALL/LOAD) and change its own settings (SET autoinstall_known_extensions = true undoes the no-network
setting of every tracedb connection). Here, once the store is open:
- `enable_external_access = false`: no file but the open database and the paths allowed below, no extension;
- `allowed_paths` / `allowed_directories`: the dataset's own files, and each `--allow-read PATH`;
- `lock_configuration = true`: no SET or RESET can undo the above for the rest of the connection.
DuckDB grants a path for reading and writing alike, so a COPY ... TO into an allowed folder is possible; the
statements that write files (COPY, EXPORT) are refused anyway unless the call has --write."""
import os

import duckdb

from tracedb.errors import UsageError

FILE_WRITERS = {duckdb.StatementType.COPY: "COPY", duckdb.StatementType.EXPORT: "EXPORT DATABASE"}


def confine(con, allow_read=()) -> None:
    """Confine `con` to its database, the dataset files it reads and the paths in `allow_read` (files or
    folders, which must exist)."""
    files, folders = _dataset_files(con), []
    for path in allow_read:
        real = os.path.realpath(path)
        if os.path.isdir(real):
            folders.append(real.rstrip(os.sep) + os.sep)
        elif os.path.isfile(real):
            files.append(real)
        else:
            raise UsageError(f"--allow-read {path}: no such file or folder")
    if files:
        con.execute("SET allowed_paths = $p", {"p": files})
    if folders:
        con.execute("SET allowed_directories = $d", {"d": folders})
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")


def refuse_file_writers(con, query: str, write: bool) -> None:
    """COPY and EXPORT DATABASE write files: refused unless the call has --write (one line naming them)."""
    if write:
        return
    try:
        kinds = [s.type for s in con.extract_statements(query)]
    except duckdb.Error:
        return      # not parsed: DuckDB itself reports the syntax error when the text runs
    for kind, name in FILE_WRITERS.items():
        if kind in kinds:
            raise UsageError(f"sql: {name} writes files; tracedb sql writes nothing without --write (to save a "
                             "result, use --format csv|json -o FILE)")


def _dataset_files(con) -> list[str]:
    """The Parquet files a dataset connection's views read (the variable tracedb_files), else none."""
    try:
        value = con.execute("SELECT getvariable('tracedb_files')").fetchone()[0]
    except duckdb.Error:
        return []
    if not isinstance(value, dict):
        return []
    return sorted({os.path.realpath(f) for fs in value.values() for f in (fs or [])})

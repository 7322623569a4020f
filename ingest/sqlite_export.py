"""Profilers' SQLite exports, told apart by the tables they hold (never by the file name): Nsight Systems'
`nsys export --type sqlite`, torch_npu / msprof's `export_type=Db` files and rocprofv3's rocpd database.

Each format is one module of this package, declared with `declare` (ingest/formats.py's registry): its
`matches(tables) -> bool` (the set of table names is this format's), `devices(path) -> list` (the indexes
of the devices with activity, one run each when several; [] when they cannot be listed) and
`load(con, run_id, src) -> dict` (the run's rows into the staging store, device src.agent or every device
when None; returns run facts as rocprof.load does).

The file is opened read-only (ingest/sqlite_file.py)."""
from tracedb.errors import InputError
from tracedb.ingest import arrow_pool, formats
from tracedb.ingest.sqlite_file import is_sqlite, open_ro, raise_if_stopped, tables

__all__ = ["is_sqlite", "open_ro", "raise_if_stopped", "tables", "declare", "fits", "arrow_batches", "REAL",
           "SUFFIXES"]
SUFFIXES = (".sqlite", ".sqlite3", ".db")    # the names a folder search opens as SQLite (never an ingest's test)


def declare(name: str, order: int, matches, devices, load, device_kind: str, clock_domain: str, sql: tuple,
            docs: tuple, **more) -> formats.Reader:
    """The registry entry of an SQLite export format: recognised by its tables (any file name); a folder
    search opens files named SUFFIXES and passes over other databases. `more`: other Reader fields."""
    def recognise(probe) -> bool:
        return probe.kind == "sqlite" and matches(probe.tables)

    def found(probe) -> bool:
        try:
            return is_sqlite(probe.path) and matches(probe.tables)
        except InputError:
            return False

    return formats.Reader(name=name, order=order, recognise=recognise, found=found, suffixes=SUFFIXES,
                          read=lambda con, run_id, src, options: load(con, run_id, src), devices=devices,
                          device_kind=device_kind, clock_domain=clock_domain, sql=sql, docs=docs, **more)


REAL = "real"   # a column kind of arrow_batches beside True (text) and False (int64): a number as float64


def fits(v, kind) -> bool:
    """A value Arrow takes as a string (kind True), an int64 (False) or a float64 (REAL)."""
    if v is None:
        return True
    if kind is True:
        return isinstance(v, str)
    if kind == REAL:
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    return isinstance(v, int) and not isinstance(v, bool) and -2**63 <= v < 2**63


def arrow_batches(cur, columns, refuse, rows_per_batch: int = 1 << 16):
    """The rows of the sqlite3 cursor `cur` as pyarrow Tables of at most `rows_per_batch` rows, exact:
    `columns` is [(name, kind)] in the cursor's order, kind True for text (strings), REAL for numbers
    (float64: SQLite's NUMERIC holds 0 as an integer beside 0.5) and False for int64. Yields (rows before
    this batch, table). A value of another type (text in an integer column, a float, a blob) raises
    `refuse(column, row number from 1, value, kind)`, the reader's own one-line error."""
    arrow_pool.fit_to_limits()
    import pyarrow as pa
    done = 0
    while True:
        rows = cur.fetchmany(rows_per_batch)
        if not rows:
            return
        arrays = []
        for (name, kind), values in zip(columns, zip(*rows)):     # rows -> columns, in C
            typ = pa.string() if kind is True else pa.float64() if kind == REAL else pa.int64()
            try:
                arrays.append(pa.array(values, type=typ))
            except (pa.ArrowException, TypeError, ValueError, OverflowError):
                at = next((j for j, v in enumerate(values) if not fits(v, kind)), 0)
                raise refuse(name, done + at + 1, values[at], kind) from None
        yield done, pa.Table.from_arrays(arrays, names=[c for c, _ in columns])
        done += len(rows)

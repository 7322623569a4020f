"""The check of an opened store's catalog, before anything reads its tables (schema.py's _check_schema runs it):
the tables tracedb keeps must be base tables with tracedb's columns, and the store may hold no macro (nor,
opened writable, a trigger or CHECK constraint), so that a file someone else made runs none of its own SQL in
tracedb's queries. The catalog is read by sql/store/store_catalog.sql, what would run SQL by
store_check_constraints.sql, store_triggers.sql and store_functions.sql.
"""
import functools
import hashlib
import re

import duckdb

from tracedb import sql
from tracedb.errors import StoreError

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
    return Catalog(sql.run(con, "store_catalog").fetchall())


@functools.lru_cache(maxsize=1)
def _has_triggers() -> bool:
    """DuckDB 2.0 brought triggers (and duckdb_triggers()); 1.5 has neither."""
    return int(re.match(r"\d+", duckdb.__version__).group()) >= 2


def _refuse_code(con, path, read_only: bool):
    """A macro in the store, or on a writable open a trigger or CHECK constraint (tracedb keeps none), refuses
    it, named."""
    if not read_only:
        # two files: DuckDB 1.5 has no duckdb_triggers() (store_triggers.sql), 2.0 is asked it where no CHECK is
        found = sql.run(con, "store_check_constraints").fetchone()
        if not found and _has_triggers():
            found = sql.run(con, "store_triggers").fetchone()
        if found:
            raise StoreError(f"store {path}: main.{found[1]} has {found[0]}, which tracedb never makes and which "
                             f"DuckDB would run on a write; {REFUSED}")
    macro = sql.run(con, "store_functions").fetchone()
    if macro:
        raise StoreError(f"store {path}: main.{macro[0]} is a {macro[1].upper().replace('_', ' ')}, which tracedb "
                         f"never keeps in a store and which DuckDB would run in place of its own function; {REFUSED}")


def _tables_digest(cat: Catalog) -> str:
    lines = [f"{t}: {', '.join(cat.tables.get(t, ()))}" for t in sorted(("tracedb_meta",) + CORE_TABLES)]
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


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

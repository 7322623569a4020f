"""The schema version of an opened store: a new store's tables created (schema.sql, every migration, the
views), an older store's migrated where asked (`tracedb migrate`), a newer one's refused. Schema changes are
numbered; the store's catalog is checked first (catalog.py).
"""
import functools

import duckdb

from tracedb import sql
from tracedb.engine.store import catalog
from tracedb.errors import StoreError

SCHEMA_VERSION = 13
# No extension is ever fetched: a --db that names a SQLite or Postgres file would otherwise make DuckDB
# download the scanner it needs (and wait on the network) instead of failing at once.
NO_NETWORK = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}
# from-version -> sql file that brings the store's tables one version up. A new store is schema.sql (v1)
# plus every migration, so the migration path runs on every store ever created; the views are created
# after the last one (views.sql). A change to a view needs a new version too: a store already at the
# current one is never rewritten on open.
MIGRATIONS: dict[int, str] = {1: "migrate_1_to_2", 2: "migrate_2_to_3", 3: "migrate_3_to_4", 4: "migrate_4_to_5",
                              5: "migrate_5_to_6", 6: "migrate_6_to_7",
                              7: "migrate_7_to_8", 8: "migrate_8_to_9", 9: "migrate_9_to_10",
                              10: "migrate_10_to_11", 11: "migrate_11_to_12", 12: "migrate_12_to_13"}


class EmptyStore(StoreError):
    """A read-only open of a file with no tracedb store in it yet (empty, or a DuckDB file without tables)."""


def _check_schema(con, path, read_only, migrate, checked=True):
    """The store's schema version, creating or migrating the schema where asked. `checked`: the catalog is
    checked first (no macro, trigger or CHECK constraint; the tables tracedb keeps are base tables with its
    columns), before any table is read; a file this process just made from tracedb's own bytes is not."""
    cat = catalog._catalog(con)
    tables = set(cat.tables) | cat.views
    if "tracedb_meta" not in tables:
        if tables:
            raise StoreError(f"{path}: a DuckDB file but not a tracedb store (tables: {', '.join(sorted(tables)[:5])})")
        if checked:
            catalog._refuse_code(con, path, read_only)
        if read_only:
            raise EmptyStore(f"{path}: empty DuckDB file; ingest a trace into it first")
        con.execute("BEGIN")
        sql.run(con, "schema")
        _upgrade(con, 1)
        sql.run(con, "meta_version_insert", {"version": str(SCHEMA_VERSION)})
        con.execute("COMMIT")
        return
    if checked:
        catalog._refuse_code(con, path, read_only)
        catalog._check_tables(path, cat, {"tracedb_meta": catalog.META_COLUMNS})   # read next: a table, of two texts
    row = sql.run(con, "meta_value", {"key": "schema_version"}).fetchone()
    version = int(row[0]) if row and str(row[0]).isdigit() else -1
    if version == SCHEMA_VERSION:
        missing = [t for t in catalog.CORE_TABLES if t not in tables]
        if missing:   # dropped by hand (tracedb sql --write): every command would fail on it later
            raise StoreError(f"{path}: a tracedb store without its table(s) {', '.join(missing)}; it cannot be "
                             "used: re-ingest the traces into a new store")
        if checked and catalog._tables_digest(cat) != catalog.TABLES_DIGEST:
            catalog._check_tables(path, cat, _expected_tables(SCHEMA_VERSION))
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
        catalog._check_tables(path, cat, _expected_tables(version), exact=False)
    con.execute("BEGIN")
    _upgrade(con, version)
    if SCHEMA_VERSION >= 5 > version:
        from tracedb.ingest import kernel_names   # v5: short names of the names already there (of the kernels view)
        kernel_names.fill(con)
    if SCHEMA_VERSION >= 9 > version:
        from tracedb.ingest import kernel_work   # v9: the work of the kernels already there
        kernel_work.fill(con)
    sql.run(con, "meta_version_update", {"version": str(SCHEMA_VERSION)})
    con.execute("COMMIT")


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
        return catalog._catalog(mem).tables
    finally:
        mem.close()


def _upgrade(con, version: int):
    """The tables of a store at schema `version` brought to SCHEMA_VERSION by the migrations, then every view
    (re-)created from views.sql: a new store (schema.sql is v1) and a migrated one end with the same
    catalog, and an older store's views, written by an older tracedb, give way to today's."""
    for v in range(version, SCHEMA_VERSION):
        sql.run(con, MIGRATIONS[v])
    sql.run(con, "views")

"""Segmentations kept in the store for reuse: `tracedb segment` keeps the session tables a segmentation
makes (anchors, passes, windows, every kernel's layer), and a later report on the same runs with the same
options restores them instead of computing them again.

On a job of 128 ranks a segmentation costs 0.75-0.8 s (anchor breaks, pass split, layer assignment of
216 k kernels); restoring it costs ~0.1 s, which brings `report ranks` and `report blame` under 1 s after
start-up. A report says in a note when it reused one.

A kept segmentation is found by a key: sha256 over the options (as a report binds them), the runs (id,
name, content hash, when ingested), the profile and model config read, and the segmentation's own code
(sql/segment, sql/store, engine/segmentation). A change to any of them misses, so a stale one is never
used; `tracedb segment` replaces those of its runs, and drops those whose runs are gone.

Where: the schema `tracedb_cache` of the store, apart from the store's own tables (a dataset export and
the schema listing read the schema main): the index `tracedb_cache.segmentations`, and per kept
segmentation one table per session table, named `s<id><table>`. The tables are computed in a session of
their own (a cursor), exactly as a report's fresh session computes them."""
import hashlib
import json
import re
from dataclasses import asdict
from functools import lru_cache
from importlib import resources

from tracedb import sql
from tracedb.version import __version__
from tracedb.errors import UsageError
from tracedb.engine.segmentation import profiles
from tracedb.engine.store.connect import SCHEMA_VERSION, resolve_runs

SCHEMA = "tracedb_cache"
# the all-pass layer assignment is restored under this name; segment.assign takes each selection from it
ALL_ASSIGNED = "_assigned_all"
_TABLE = re.compile(r"^_[a-z0-9_]+$")       # the session tables a segmentation makes: _passes, _windows, ...
_KEPT = re.compile(r"^s([0-9]+)_")


def keys(con, opt, phases) -> list[str] | None:
    """The key of the segmentation `opt` asks for with each of `phases` in place of its --phase (the runs,
    profile and config read once); None when the runs cannot be resolved (bind says why)."""
    try:
        ids = resolve_runs(con, opt.runs, opt.tags)
        prof = profiles.load(opt.profile or "generic")
        cfg = profiles.model_config(opt.config) if opt.config else {}
    except UsageError:
        return None
    runs = con.execute("SELECT run_id, name, content_hash, ingested_at::VARCHAR, kernel_rows FROM runs "
                       "WHERE run_id IN (SELECT unnest($i)) ORDER BY run_id", {"i": ids}).fetchall()
    fields = {**asdict(opt), "runs": ids, "tags": []}
    return [hashlib.sha256(json.dumps([{**fields, "phase": p}, runs, repr(prof), cfg, _code()], sort_keys=True,
                                      default=str).encode()).hexdigest() for p in phases]


@lru_cache(maxsize=1)
def _code() -> str:
    """sha256 of the code a segmentation runs: its SQL (and the store's views and macros), its Python modules
    and the built-in profiles, with the version and schema version."""
    h = hashlib.sha256(f"{__version__} {SCHEMA_VERSION}".encode())
    for folder in (resources.files("tracedb.sql").joinpath("segment"), resources.files("tracedb.sql").joinpath("store"),
                   resources.files("tracedb.engine.segmentation"),
                   resources.files("tracedb.engine.segmentation").joinpath("profiles")):
        for f in sorted(folder.iterdir(), key=lambda e: e.name):
            if f.is_file() and f.name.endswith((".sql", ".py", ".toml")):
                h.update(f.name.encode() + b"\0" + f.read_bytes())
    return h.hexdigest()


def _exists(con) -> bool:
    return bool(con.execute("SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database() AND "
                            "schema_name = $s AND table_name = 'segmentations'", {"s": SCHEMA}).fetchone()[0])


def find(con, opt):
    """(id, session tables, state, when kept) of the kept segmentation `opt` asks for, or None. A store
    without any kept segmentation costs one catalog query: no key is computed."""
    if not _exists(con):
        return None
    k = keys(con, opt, [opt.phase])
    row = k and sql.run(con, "snapshot_find", {"key": k[0]}).fetchone()
    if not row:
        return None
    snap_id, tables, state, made_at = row
    try:
        return snap_id, [t for t in tables if _TABLE.match(t)], json.loads(state), str(made_at)[:19]
    except (ValueError, TypeError):
        return None       # not this tracedb's: computed afresh


def restore_tables(con, snap_id: int, tables: list[str]):
    """The kept session tables back in `con`'s session; _assigned (every pass) as ALL_ASSIGNED."""
    for t in tables:
        sql.run(con, "snapshot_restore", target=sql.ident(ALL_ASSIGNED if t == "_assigned" else t),
                source=f"{SCHEMA}.{sql.ident(f's{snap_id}{t}')}")


def save(cur, keys: list[str], run_ids: list[int], state: dict):
    """Keep every session table of `cur` (a session that made one segmentation and nothing else) under
    `keys` (the options as given and with the phase they resolve to), with the Bound `state`, in one
    transaction."""
    tables = sorted(t for (t,) in cur.execute("SELECT table_name FROM duckdb_tables() WHERE temporary").fetchall()
                    if _TABLE.match(t))
    cur.execute("BEGIN")
    try:
        sql.run(cur, "snapshot_schema")
        snap_id = cur.execute(f"SELECT coalesce(max(snap_id), 0) + 1 FROM {SCHEMA}.segmentations").fetchone()[0]
        for t in tables:
            sql.run(cur, "snapshot_keep", target=f"{SCHEMA}.{sql.ident(f's{snap_id}{t}')}",
                    source=f"temp.main.{sql.ident(t)}")
        sql.run(cur, "snapshot_add", {"snap_id": snap_id, "keys": keys, "run_ids": run_ids, "tables": tables,
                                      "state": json.dumps(state), "version": __version__})
        cur.execute("COMMIT")
    except BaseException:
        cur.execute("ROLLBACK")
        raise


def forget(con, run_ids: list[int]):
    """Drop the kept segmentations that hold any of `run_ids`, those whose runs are gone, and the kept tables
    (s<id>_...) no kept segmentation lists (left by a delete): inside the caller's transaction, if any. Any
    other table of the schema is left alone."""
    if not _exists(con):
        return
    stale = [s for (s,) in sql.run(con, "snapshot_stale", {"run_ids": list(run_ids)}).fetchall()]
    if stale:
        sql.run(con, "snapshot_forget", {"snap_ids": stale})
    listed = {s for (s,) in con.execute(f"SELECT snap_id FROM {SCHEMA}.segmentations").fetchall()}
    for (t,) in con.execute("SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() AND "
                            "schema_name = $s AND table_name <> 'segmentations'", {"s": SCHEMA}).fetchall():
        m = _KEPT.match(t)
        if m and int(m.group(1)) not in listed:
            sql.run(con, "snapshot_drop", target=f"{SCHEMA}.{sql.ident(t)}")

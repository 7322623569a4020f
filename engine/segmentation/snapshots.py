"""Segmentations kept in the store for reuse: `tracedb segment` (and an ingest, at_ingest.py) keeps the TEMP
tables a segmentation makes (anchors, passes, windows, every kernel's layer), and a later report on the same
runs with the same options restores them instead of computing them again.

On a job of 128 ranks a segmentation costs 0.75-0.8 s (anchor breaks, pass split, layer assignment of
216 k kernels); restoring it costs ~0.1 s, which brings `report ranks` and `report blame` under 1 s after
start-up. A report says in its parameters when it reused one.

A kept segmentation is found by a key: sha256 over the options (as a report binds them), the runs (id,
name, content hash, when ingested), the profile and model config read, and the segmentation's own code
(sql/segment, sql/store, engine/segmentation, and the DuckDB version). A change to any of them misses, so a
stale one is never used; `tracedb segment` replaces those of its runs, and drops those whose runs are gone.

Found, it is proved before it is restored, not trusted (anyone with `tracedb sql --write` can change the
store): `prove` reads the schema listing first, and reads nothing but base tables of the columns and types
`tracedb segment` makes (SHAPES: never a view, whose query could read a file or never end); its options
must be well-formed and the ones asked for; each of its runs must give the digest of its rows recorded when
it was kept (snapshot_digest.sql: rows changed since, by `sql --write` or a migration, recompute); and its
rows must agree with the store's (snapshot_check_*.sql: every kept kernel the store's, with its start and
duration, once; passes and layers numbered without holes, as their blocks give them; phases and categories
from the allowed sets and the profile). Any failure raises SetAside with what failed: the report computes
the segmentation afresh and says why in a note. On a job of 128 ranks (115 k kernels, two busy cores) the
proof costs 0.2-0.35 s (digests 0.05-0.09 s, categories 0.02-0.04 s, row checks 0.12-0.2 s), restoring
0.06-0.08 s, segmenting 2.0-2.6 s.

Where: the schema `tracedb_cache` of the store, apart from the store's own tables (a dataset export and
the schema listing read the schema main): the index `tracedb_cache.segmentations`, and per kept
segmentation one table per session table, named `s<id><table>`. The tables are computed in a session of
their own (a cursor), exactly as a report's fresh session computes them."""
import hashlib
import json
import re
from dataclasses import asdict, dataclass
from functools import lru_cache
from importlib import resources
from types import SimpleNamespace

import duckdb

from tracedb import sql
from tracedb.version import __version__
from tracedb.errors import UsageError
from tracedb.engine.segmentation import categories
from tracedb.engine.segmentation import profiles
from tracedb.engine.store.connect import resolve_runs
from tracedb.engine.store.schema import SCHEMA_VERSION
from tracedb.engine.segmentation.kept_shapes import INDEX, INDEX_BEFORE_DIGESTS, OPTIONAL, SHAPES
from tracedb.engine.segmentation.words import PHASES

SCHEMA = "tracedb_cache"
# the all-pass layer assignment is restored under this name; assignment.assign takes each selection from it
ALL_ASSIGNED = "_assigned_all"
_TABLE = re.compile(r"^_[a-z0-9_]+$")       # the session tables a segmentation makes: _passes, _windows, ...
_KEPT = re.compile(r"^s([0-9]+)_")

# The placeholder each kept table has in snapshot_check_*.sql
_CHECKED = ("_assigned", "_passes", "_windows", "_pass_info", "_anchors", "_anchor_pass", "_pass_split",
            "_pass_groups", "_phase", "_stream_pick", "_stream_runs", "_rules", "_cats")


class SetAside(Exception):
    """A kept segmentation that fails its proof: the message says what failed, for the report's note."""


@dataclass
class Kept:
    snap_id: int
    tables: list[str]
    state: dict
    made_at: str


def keys(con, opt, phases) -> list[str] | None:
    """The key of the segmentation `opt` asks for with each of `phases` in place of its --phase (the runs,
    profile and config read once); None when the runs cannot be resolved (bind says why)."""
    bound = _resolve(con, opt)
    return None if bound is None else [_key(con, opt, p, bound) for p in phases]


def _resolve(con, opt):
    try:
        ids = resolve_runs(con, opt.runs, opt.tags)
        prof = profiles.load(opt.profile or "generic")
        cfg = profiles.model_config(opt.config) if opt.config else {}
    except UsageError:
        return None
    return ids, prof, cfg


def _key(con, opt, phase, bound) -> str:
    ids, prof, cfg = bound
    runs = sql.run(con, "snapshots_runs", {"run_ids": ids}).fetchall()
    fields = {**asdict(opt), "runs": ids, "tags": []}
    return hashlib.sha256(json.dumps([{**fields, "phase": phase}, runs, repr(prof), cfg, _code()], sort_keys=True,
                                     default=str).encode()).hexdigest()


@lru_cache(maxsize=1)
def _code() -> str:
    """sha256 of the code a segmentation runs: its SQL (and the store's views and macros), its Python modules
    and the built-in profiles, with the version, the schema version and DuckDB's version (its hash() makes
    the digests)."""
    h = hashlib.sha256(f"{__version__} {SCHEMA_VERSION} {duckdb.__version__}".encode())
    for folder in (resources.files("tracedb.sql").joinpath("segment"), resources.files("tracedb.sql").joinpath("store"),
                   resources.files("tracedb.engine.segmentation"),
                   resources.files("tracedb.engine.segmentation").joinpath("profiles")):
        for f in sorted(folder.iterdir(), key=lambda e: e.name):
            if f.is_file() and f.name.endswith((".sql", ".py", ".toml")):
                h.update(f.name.encode() + b"\0" + f.read_bytes())
    return h.hexdigest()


def catalog(con) -> dict[str, tuple[str, list[str] | None]]:
    """Name -> (table | view, a table's columns as 'name TYPE') of everything in the schema tracedb_cache,
    from the catalog alone (snapshot_catalog.sql)."""
    return {name: (kind, cols) for name, kind, cols in sql.run(con, "snapshot_catalog").fetchall()}


def _index(cat) -> str:
    """absent | ok | before_digests | view | other: what tracedb_cache.segmentations is."""
    kind, cols = cat.get("segmentations", (None, None))
    if kind is None:
        return "absent"
    if kind != "table":
        return "view"
    return {INDEX: "ok", INDEX_BEFORE_DIGESTS: "before_digests"}.get(tuple(cols), "other")


def _fits(cols: list[str], shape: tuple[str, ...]) -> str | None:
    """None when the columns `cols` ('name TYPE') are `shape`'s, else the first difference in words."""
    for i, want in enumerate(shape):
        name, types = want.split(" ", 1)
        got = cols[i] if i < len(cols) else None
        if got is None:
            return f"no column {name} {types.split('|')[0]}"
        got_name, got_type = got.split(" ", 1)
        if got_name != name or got_type not in types.split("|"):
            return f"{got!r} as column {i + 1}, not {name} {types.split('|')[0]}"
    return f"an extra column {cols[len(shape)]!r}" if len(cols) > len(shape) else None


def digests(con, opt) -> str:
    """JSON: the digest of the rows of each run `opt` selects (snapshot_digest.sql), by run id."""
    ids = resolve_runs(con, opt.runs, opt.tags)
    return json.dumps({str(r[0]): list(r[1:]) for r in sql.run(con, "snapshot_digest", {"run_ids": ids}).fetchall()})


def prove(con, opt, state_fields: set[str]) -> Kept | None:
    """The kept segmentation `opt` asks for, proved against the store (see the module's docstring), or None
    when none is kept. Raises SetAside, saying why, when one is kept that cannot be used. A store without any
    kept segmentation costs one catalog query: no key is computed."""
    cat = catalog(con)
    index = _index(cat)
    if index in ("absent", "before_digests"):
        return None       # nothing kept, or kept by an earlier tracedb: its keys cannot match this code
    if index != "ok":
        raise SetAside(f"{SCHEMA}.segmentations is {'a view' if index == 'view' else 'a table of other columns'}, "
                       "not the index `tracedb segment` makes, so nothing in it was read")
    bound = _resolve(con, opt)
    row = bound and sql.run(con, "snapshot_find", {"key": _key(con, opt, opt.phase, bound)}).fetchone()
    if not row:
        return None
    snap_id, tables, state_text, made_at, run_ids, kept_digests = row
    _check_tables(cat, snap_id, tables)
    try:
        state = json.loads(state_text)
    except ValueError:
        raise SetAside("its options are not JSON") from None
    ids, prof, _ = bound
    names = dict(sql.run(con, "run_names", {"run_ids": ids}).fetchall())
    _check_state(state, opt, run_ids, names, state_fields)
    _check_digests(con, ids, names, kept_digests)
    _check_rows(con, snap_id, state, prof)
    return Kept(snap_id, list(tables), state, str(made_at)[:19])


def _check_tables(cat, snap_id: int, tables: list[str]):
    """Every table the row lists is one a segmentation keeps, listed once, there as a base table of its
    shape; none it must keep is missing."""
    for t in tables:
        if t not in SHAPES:
            raise SetAside(f"it lists {str(t)[:60]!r}, not a table `tracedb segment` keeps")
    if len(set(tables)) != len(tables):
        raise SetAside("it lists a table twice")
    missing = sorted(set(SHAPES) - OPTIONAL - set(tables))
    if missing:
        raise SetAside(f"it lacks its table{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
    for t in tables:
        name = f"s{snap_id}{t}"
        kind, cols = cat.get(name, (None, None))
        if kind is None:
            raise SetAside(f"its table {SCHEMA}.{name} is missing")
        if kind != "table":
            raise SetAside(f"{SCHEMA}.{name} is a view, not a table, so it was not read")
        wrong = _fits(cols, SHAPES[t])
        if wrong:
            raise SetAside(f"{SCHEMA}.{name} has {wrong}")


def _int(v, lo: int) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= lo


def _check_state(state, opt, run_ids: list[int], names: dict[int, str], state_fields: set[str]):
    """The kept bound options (binding.Bound.state) well-formed, of these runs, and the options asked for."""
    if not isinstance(state, dict) or set(state) != state_fields:
        raise SetAside("its options are not the ones a segmentation keeps")
    try:
        bad = [k for k, ok in _state_checks(state, opt, run_ids, names).items() if not ok]
    except (TypeError, ValueError, KeyError):
        raise SetAside("its options are not well-formed") from None    # e.g. a number where a list belongs
    if bad:
        raise SetAside(f"its options ({', '.join(bad)}) are not well-formed, or not the ones asked for")


def _state_checks(state: dict, opt, run_ids: list[int], names: dict[int, str]) -> dict[str, bool]:
    ids, notes, gap = state["run_ids"], state["notes"], state["pass_gap"]
    number = (int, float)
    return {
        "run_ids": isinstance(ids, list) and ids == list(run_ids) and all(_int(r, 0) and r in names for r in ids)
        and len(set(ids)) == len(ids),
        "run_names": isinstance(state["run_names"], list)
        and all(isinstance(p, list) and len(p) == 2 and _int(p[0], 0) for p in state["run_names"])
        and len(state["run_names"]) == len(ids) and {r: n for r, n in state["run_names"]} == {r: names[r] for r in ids},
        "anchor": isinstance(state["anchor"], str) and state["anchor"] != ""
        and (opt.anchor is None or state["anchor"] == opt.anchor),
        "layers": (state["layers"] is None or _int(state["layers"], 1)) and opt.layers in (None, state["layers"]),
        "blocks_per_layer": _int(state["blocks_per_layer"], 1)
        and opt.blocks_per_layer in (None, state["blocks_per_layer"]),
        "layer_offset": _int(state["layer_offset"], 0) and opt.layer_offset in (None, state["layer_offset"]),
        "window": state["window"] == opt.window,
        "pass_gap": gap is None if opt.pass_gap is None else
        isinstance(gap, number) and not isinstance(gap, bool) and gap == opt.pass_gap,
        "layer_types": state["layer_types"] is None or isinstance(state["layer_types"], list)
        and all(isinstance(t, str) for t in state["layer_types"]),
        "notes": isinstance(notes, list) and all(isinstance(n, str) for n in notes),
        "phase": state["phase"] in PHASES and opt.phase in (None, state["phase"]),
        "training": isinstance(state["training"], list) and all(_int(r, 0) and r in ids for r in state["training"]),
        "bind_notes": _int(state["bind_notes"], 0) and isinstance(notes, list) and state["bind_notes"] <= len(notes),
        "kinds": isinstance(state["kinds"], dict) and all(_int(g, 0) for g in state["kinds"].values()),
    }


def _check_digests(con, ids: list[int], names: dict[int, str], kept_digests):
    """Each run's rows give the digest recorded when it was kept."""
    try:
        then = json.loads(kept_digests) if kept_digests is not None else None
    except ValueError:
        then = None
    if not isinstance(then, dict):
        raise SetAside("it has no digest of its runs' rows")
    now = {r[0]: list(r[1:]) for r in sql.run(con, "snapshot_digest", {"run_ids": ids}).fetchall()}
    for rid in ids:
        old, new = then.get(str(rid)), now.get(rid)
        if old == new:
            continue
        run = f"run '{names.get(rid, rid)}'"
        if not isinstance(old, list) or len(old) != 7 or new is None:
            raise SetAside(f"{run} has no digest of its rows as kept")
        if old[:2] != new[:2]:
            raise SetAside(f"{run} changed since it was kept: {old[0]} kernels, {_ms(old[1])} ms of device time "
                           f"then; {new[0]} kernels, {_ms(new[1])} ms now")
        raise SetAside(f"{run} changed since it was kept: " + (
            "its kernels are not the same rows" if old[:4] != new[:4] else
            "its trace events are not the same rows" if old[4:6] != new[4:6] else "its entry in runs"))


def _ms(ns) -> str:
    return f"{ns / 1e6:,.3f}" if isinstance(ns, (int, float)) and not isinstance(ns, bool) else "?"


def _check_rows(con, snap_id: int, state: dict, prof):
    """The kept rows against the store's and against each other (snapshot_check_*.sql); the first failure.
    The categories are made afresh first (TEMP _rules, _names, _cats, as a fresh segmentation makes them;
    restoring replaces them with the kept ones, found equal)."""
    where = {t[1:]: f"{SCHEMA}.{sql.ident(f's{snap_id}{t}')}" for t in _CHECKED}
    categories.categorize_kernels(con, SimpleNamespace(profile=prof, run_ids=state["run_ids"]))
    checks = [("snapshot_check_numbering", {"run_ids": state["run_ids"], "blocks_per_layer": state["blocks_per_layer"],
                                            "reverse": state["phase"] == "backward", "window": state["window"]}),
              ("snapshot_check_values", {"phase": state["phase"]}),
              ("snapshot_check_kernels", {"run_ids": state["run_ids"], "anchor": state["anchor"],
                                          "window": state["window"]})]
    for name, params in checks:
        failed = sql.run(con, name, params, **where).fetchone()
        if failed:
            raise SetAside(failed[0])


def restore_tables(con, snap_id: int, tables: list[str]):
    """The kept session tables back in `con`'s session; _assigned (every pass) as ALL_ASSIGNED."""
    for t in tables:
        sql.run(con, "snapshot_restore", target=sql.ident(ALL_ASSIGNED if t == "_assigned" else t),
                source=f"{SCHEMA}.{sql.ident(f's{snap_id}{t}')}")


def drop_restored(con, tables: list[str]):
    """The session tables restore_tables made from `tables`, dropped (a restore that failed halfway): the
    fresh segmentation must not find any of them (a stage appends to a table it finds)."""
    for t in tables:
        if t in SHAPES:
            sql.run(con, "snapshot_drop", target=f"temp.main.{sql.ident(ALL_ASSIGNED if t == '_assigned' else t)}")


def save(cur, keys: list[str], run_ids: list[int], state: dict, digests: str) -> tuple[int, list[str]]:
    """Keep every session table of `cur` (a session that made one segmentation and nothing else) under
    `keys` (the options as given and with the phase they resolve to), with the Bound `state` and the digests
    of its runs' rows, in one transaction. An index that is not the one `tracedb segment` makes (a view, other
    columns) is replaced, and whatever no kept segmentation lists dropped. Returns (its id, its tables)."""
    tables = sorted(t for (t,) in sql.run(cur, "temp_tables").fetchall() if _TABLE.match(t))
    cur.execute("BEGIN")
    try:
        index = _index(catalog(cur))
        if index == "view":
            sql.run(cur, "snapshot_drop_view", target=f"{SCHEMA}.segmentations")
        elif index == "other":
            sql.run(cur, "snapshot_drop", target=f"{SCHEMA}.segmentations")
        sql.run(cur, "snapshot_schema")
        listed = _drop_unlisted(cur)
        snap_id = max(listed, default=0) + 1
        for t in tables:
            sql.run(cur, "snapshot_keep", target=f"{SCHEMA}.{sql.ident(f's{snap_id}{t}')}",
                    source=f"temp.main.{sql.ident(t)}")
        sql.run(cur, "snapshot_add", {"snap_id": snap_id, "keys": keys, "run_ids": run_ids, "tables": tables,
                                      "state": json.dumps(state), "version": __version__, "digests": digests})
        cur.execute("COMMIT")
    except BaseException:
        cur.execute("ROLLBACK")
        raise
    return snap_id, tables


def _drop_unlisted(con) -> set[int]:
    """Drop the tables and views named s<id>_... that no kept segmentation lists (left by a delete, or by an
    index replaced); returns the ids listed. The index must be a table of its own columns."""
    listed = {s for (s,) in sql.run(con, "snapshots_listed").fetchall()}
    for name, (kind, _) in catalog(con).items():
        m = _KEPT.match(name)
        if m and int(m.group(1)) not in listed:
            sql.run(con, "snapshot_drop" if kind == "table" else "snapshot_drop_view",
                    target=f"{SCHEMA}.{sql.ident(name)}")
    return listed


def forget(con, run_ids: list[int]):
    """Drop the kept segmentations that hold any of `run_ids`, those whose runs are gone, and the kept tables
    (s<id>_...) no kept segmentation lists (left by a delete): inside the caller's transaction, if any. Any
    other table of the schema is left alone, and so is an index that is not a table of the index's columns
    (it is never read: the next `tracedb segment` replaces it)."""
    if _index(catalog(con)) not in ("ok", "before_digests"):
        return
    stale = [s for (s,) in sql.run(con, "snapshot_stale", {"run_ids": list(run_ids)}).fetchall()]
    if stale:
        sql.run(con, "snapshot_forget", {"snap_ids": stale})
    _drop_unlisted(con)

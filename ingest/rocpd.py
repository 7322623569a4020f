"""rocprofv3's rocpd SQLite database (`rocprofv3 --output-format rocpd`, ROCm 7) -> kernels_raw.

The schema is rocprofiler-sdk's source/share/rocprofiler-sdk-rocpd/rocpd_tables.sql (schema_version 3,
https://github.com/ROCm/rocprofiler-sdk): every table is created with a GUID suffix
(`rocpd_kernel_dispatch<uuid>`), and rocpd_views.sql adds the unsuffixed views over them
(`rocpd_kernel_dispatch`) that tracedb reads; a file holding one suffixed set and no views is read through
its suffixed tables. Two layouts of schema version 3 exist: times, agent, queue and thread in the record
rows (`start`, `end`, `agent_id`), or ids of rocpd_timestamp rows and of a rocpd_track row (`start_id`,
`end_id`, `track_id`). Both are read: each table's columns are checked by name, copied into TEMP tables
through Arrow in batches of BATCH_ROWS, as int64 and text (exact ns), and SQL resolves the rest
(sql/ingest/ingest_rocpd_*.sql). Runs follow the JSON reader (ingest/rocprof.py): one run per GPU that
ran kernels, device ids = the GPU index (the agent's type_index), clock_domain 'monotonic'.

The rocpd views of data_views.sql (`kernels`, `memory_copies`, `regions`) are not read: their columns and
joins changed between versions (`corr_id` / `correlation_id`, inner joins on rocpd_event)."""
import re
import sqlite3

import duckdb

from tracedb import sql
from tracedb.errors import InputError
from tracedb.ingest import formats, sqlite_export
from tracedb.ingest.sqlite_export import arrow_batches

FORMAT = "rocpd"
DEVICE_KIND = "gpu"
CLOCK_DOMAIN = "monotonic"
# 64 Ki rows of ~20 integers are ~10 MB of Python tuples at a time: memory stays flat on a long capture.
BATCH_ROWS = 1 << 16
REQUIRED_TABLES = ("rocpd_kernel_dispatch", "rocpd_info_agent", "rocpd_string")
_EXPECTED = "expected a rocprofv3 rocpd database (rocprofv3 --kernel-trace --output-format rocpd)"

# rocpd table -> (target TEMP table, required columns, optional columns); columns are (name, kind).
# An optional column the file lacks is read as NULL; an optional table the file lacks is left empty.
_I, _T, _J = "int", "text", "json"
_TIMES = [("start", _I), ("end", _I), ("track_id", _I), ("start_id", _I), ("end_id", _I)]
_TABLES = {
    "rocpd_string": ("_rpd_strings", [("id", _I), ("string", _T)], []),
    "rocpd_info_agent": ("_rpd_agents", [("id", _I), ("type", _T)],
                         [("absolute_index", _I), ("logical_index", _I), ("type_index", _I), ("name", _T),
                          ("product_name", _T), ("model_name", _T)]),
    "rocpd_info_process": ("_rpd_processes", [("id", _I), ("pid", _I)], []),
    "rocpd_info_thread": ("_rpd_threads", [("id", _I), ("tid", _I)], []),
    "rocpd_info_kernel_symbol": ("_rpd_symbols", [("id", _I)],
                                 [("kernel_name", _T), ("display_name", _T), ("extdata", _J)]),
    "rocpd_event": ("_rpd_events", [("id", _I)], [("category_id", _I), ("stack_id", _I), ("correlation_id", _I),
                                                  ("extdata", _J)]),
    "rocpd_track": ("_rpd_tracks", [("id", _I)], [("pid", _I), ("tid", _I), ("agent_id", _I), ("queue_id", _I),
                                                  ("stream_id", _I)]),
    "rocpd_timestamp": ("_rpd_stamps", [("id", _I), ("value", _I)], []),
    "rocpd_kernel_dispatch": ("_rpd_dispatch", [("id", _I), ("kernel_id", _I)],
                              [("pid", _I), ("tid", _I), ("agent_id", _I), ("queue_id", _I), ("stream_id", _I)]
                              + _TIMES + [("event_id", _I), ("group_segment_size", _I), ("workgroup_size_x", _I),
                                          ("workgroup_size_y", _I), ("workgroup_size_z", _I), ("grid_size_x", _I),
                                          ("grid_size_y", _I), ("grid_size_z", _I)]),
    "rocpd_memory_copy": ("_rpd_copies", [("id", _I), ("name_id", _I)],
                          [("pid", _I), ("tid", _I)] + _TIMES + [
                              ("dst_agent_id", _I), ("src_agent_id", _I), ("queue_id", _I), ("event_id", _I)]),
    "rocpd_region": ("_rpd_regions", [("id", _I), ("name_id", _I)], [("pid", _I), ("tid", _I)] + _TIMES
                     + [("event_id", _I)]),
}
_TIMED = ("rocpd_kernel_dispatch", "rocpd_memory_copy", "rocpd_region")
# the tables devices() needs: which agent each dispatch ran on
_FOR_DEVICES = ("rocpd_info_agent", "rocpd_track", "rocpd_kernel_dispatch")
# rocpd_tables.sql writes `{{uuid}}` after each table name; a run of hex digits, '_' and '-' is taken as one
_SUFFIX = re.compile(r"^_?[0-9A-Fa-f][0-9A-Fa-f_-]{7,}$")


def _names(tables) -> dict[str, list[str]]:
    """rocpd table -> the names it has in the file: the unsuffixed view alone when it is there, else the
    GUID-suffixed tables."""
    out = {}
    for base in _TABLES:
        if base in tables:
            out[base] = [base]
        else:
            found = sorted(t for t in tables if t.startswith(base) and _SUFFIX.match(t[len(base):]))
            if found:
                out[base] = found
    return out


def matches(tables) -> bool:
    """rocpd_kernel_dispatch, rocpd_info_agent and rocpd_string, with or without their GUID suffix."""
    names = _names(set(tables))
    return all(t in names for t in REQUIRED_TABLES)


def devices(path) -> list:
    """The GPU indexes that ran a kernel dispatch ([] when the file cannot be read: the ingest says why)."""
    con = duckdb.connect()
    try:
        _stage(con, path, _FOR_DEVICES)
        return [r[0] for r in sql.run(con, "ingest_rocpd_devices").fetchall()]
    except (InputError, duckdb.Error):
        return []
    finally:
        con.close()


def load(con, run_id: int, src) -> dict:
    """The run's rows (GPU src.agent, or every GPU when None) into kernels_raw, its host events into
    trace_events; returns run facts as rocprof.load does. Every refusal is one line naming the file."""
    path, agent = src.files[0], src.agent
    _stage(con, path, tuple(_TABLES))
    if not sql.run(con, "ingest_rocpd_dispatches").fetchone()[0]:
        raise InputError(f"{path}: no kernel dispatch (rocpd_kernel_dispatch is empty); expected a capture with "
                         "kernel tracing: rocprofv3 --kernel-trace --output-format rocpd")
    bad = sql.run(con, "ingest_rocpd_check").fetchone()
    if bad:
        records, idx, problem = bad
        raise InputError(f"{path}: {records} id {idx} {problem}; {_EXPECTED}")
    gpus = sql.run(con, "ingest_rocpd_gpus").fetchall()
    if agent is not None and agent not in [g[0] for g in gpus]:
        raise InputError(f"{path}: no kernel dispatch on GPU {agent}; the file's dispatches ran on GPU "
                         f"{', '.join(str(g[0]) for g in gpus)}")
    names = sorted({g[1] for g in gpus if (agent is None or g[0] == agent) and g[1]})
    sql.run(con, "ingest_rocpd_insert", {"run_id": run_id, "device": agent})
    return {"device_name": ", ".join(names) or None, "rank": agent, "device_kind": DEVICE_KIND,
            "clock_domain": CLOCK_DOMAIN, "inflated_bytes": None}


def _stage(con, path, which):
    """The tables `which` of the file into the TEMP tables of ingest_rocpd_tables, then resolved."""
    lite = sqlite_export.open_ro(path)
    try:
        have = _columns(lite, path)
        sql.run(con, "ingest_rocpd_tables")
        for base in which:
            if base in have:
                target, required, optional = _TABLES[base]
                name, cols = have[base]
                _copy(lite, con, path, name, target, required + optional, cols)
    except sqlite3.Error as e:
        sqlite_export.raise_if_stopped()
        raise InputError(f"{path}: cannot read the SQLite database ({e}); {_EXPECTED}") from None
    finally:
        lite.close()
    sql.run(con, "ingest_rocpd_resolve")


def _columns(lite, path) -> dict[str, tuple[str, set[str]]]:
    """rocpd table -> (its name in the file, its columns); a required table or column missing is refused."""
    names = _names({r[0] for r in sql.run(lite, "ingest_sqlite_tables")})
    missing = [t for t in REQUIRED_TABLES if t not in names]
    if missing:
        raise InputError(f"{path}: no table {', '.join(missing)}; {_EXPECTED}")
    have = {}
    for base, found in names.items():
        if len(found) > 1:
            raise InputError(f"{path}: {len(found)} tables {found[0]}, {found[1]}, ... and no view {base} over "
                             f"them; {_EXPECTED} holding one capture (rocpd_views.sql makes the view)")
        cols = {r[1] for r in lite.execute(f"PRAGMA table_info({sql.ident(found[0])})")}
        required = _TABLES[base][1]
        lacking = [c for c, _ in required if c not in cols]
        if base in _TIMED and not ({"start", "end"} <= cols or {"start_id", "end_id"} <= cols):
            lacking.append("start and end (or start_id and end_id)")
        if lacking:
            raise InputError(f"{path}: table {found[0]} has no column {', '.join(lacking)}; {_EXPECTED}")
        have[base] = (found[0], cols)
    return have


def _copy(lite, con, path, table, target, spec, cols):
    """Every row of `table` into TEMP `target` (its columns in the order of the spec, NULL for a column
    the file lacks), through Arrow batches. A JSON column stored as SQLite's binary JSONB is read as NULL."""
    select = ", ".join(_select(c, kind) if c in cols else "NULL" for c, kind in spec)

    def refuse(col, row, v, text):
        return InputError(f"{path}: table {table}, row {row}: column {col} holds {repr(v)[:40]} "
                          f"({type(v).__name__}); expected {'text' if text else 'an integer'}")
    cur = sql.run(lite, "ingest_sqlite_read", columns=select, table=sql.ident(table))
    for _, batch in arrow_batches(cur, [(c, kind != _I) for c, kind in spec], refuse, BATCH_ROWS):
        con.from_arrow(batch).insert_into(target)


def _select(name, kind) -> str:
    """The column as read: a JSON column's text, NULL for SQLite's binary JSONB (a blob)."""
    q = sql.ident(name)
    return f"CASE WHEN typeof({q}) = 'text' THEN {q} END" if kind == _J else q


READER = sqlite_export.declare(
    FORMAT, 32, matches, devices, load, DEVICE_KIND, CLOCK_DOMAIN,
    sql=("ingest_rocpd_tables", "ingest_rocpd_resolve", "ingest_rocpd_check", "ingest_rocpd_insert",
         "ingest_rocpd_devices", "ingest_rocpd_dispatches", "ingest_rocpd_gpus"),
    docs=(formats.Doc("rocprofv3 rocpd SQLite database (`rocprofv3 --output-format rocpd`)", "`rocpd`",
                      "`kernels_raw` (one run per GPU)"),),
    recognised="SQLite holding `rocpd_kernel_dispatch`, `rocpd_info_agent` and `rocpd_string` (GUID suffixes "
    "allowed)")

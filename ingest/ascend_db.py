"""Ascend's SQLite exports -> kernels_raw: torch_npu's `ascend_pytorch_profiler_{rank}.db`
(`export_type=Db`) and msprof's `msprof_{ts}.db`. Both hold one table per kind of record, every text
through STRING_IDS (id -> value), times as integer ns.

The rows follow kernel_details.csv, so that one capture gives the same report from either export
(docs/formats.md, "Ascend SQLite exports"):
  - one row per compute task: TASK joined with COMPUTE_TASK_INFO on globalTaskId. The other TASK rows
    (EVENT_RECORD / EVENT_WAIT, MEMCPY_ASYNC, PROFILING_ENABLE, a collective's own SDMA and Notify tasks)
    are runtime tasks that kernel_details.csv leaves out too (552 TASK rows, 187 compute tasks in the
    AlexNet capture of the test data);
  - one row per COMMUNICATION_OP (kernel_details' hcom_* rows: Accelerator Core HCCL, no stream);
  - Step Id from STEP_TIME (each ProfilerStep's host range) widened to the tasks its launches ran, as
    torch_npu assigns it; Wait Time from waitNs where the file has it (msprof), else as torch_npu computes
    it (the gap since the previous row ends, never below 0);
  - torch_npu's framework side (PYTORCH_API: ops, Python frames, task queue) as host events, each op's
    connectionId as external_id on the op and on the rows it launched (CONNECTION_IDS): all 191 rows of
    the AlexNet capture reach their op;
  - the PMU metrics of TASK_PMU_INFO (aic_metrics) in `metrics`, named by the run's metric_columns as the
    export names them (28 for the AlexNet capture's PipeUtilization set: times in ns, where
    kernel_details.csv writes µs and names them `…_time(us)`).

The file is read with Python's sqlite3 (DuckDB's sqlite extension is not installed with tracedb): each
table's columns, checked by name, are copied into TEMP tables of the side store through Arrow in batches
of BATCH_ROWS, as int64 and text (exact ns), and SQL does the rest (sql/ingest/ingest_ascend_db_*.sql)."""
import sqlite3


from tracedb import sql
from tracedb.errors import InputError
from tracedb.ingest import formats, sqlite_export
from tracedb.ingest.duckdb_memory import memory_cap
from tracedb.ingest.sqlite_export import REAL, arrow_batches

FORMAT = "ascend-db"
DEVICE_KIND = "npu"
CLOCK_DOMAIN = "unix-epoch-local"
# 64 Ki rows of ~10 integers are ~5 MB of Python tuples at a time: memory stays flat on a capture of
# millions of tasks, and a batch costs far more than the call that hands it to DuckDB.
BATCH_ROWS = 1 << 16
# DuckDB's memory_limit while the rows are built: gathering 5.6 M PMU rows (200 k tasks x 28 metrics) into
# lists peaked at 0.8 GB RSS uncapped, 0.55 GB under this cap (DuckDB spills the aggregate).
DUCKDB_MEMORY = 400 << 20
REQUIRED_TABLES = ("STRING_IDS", "TASK", "COMPUTE_TASK_INFO")

# table -> (target TEMP table, required columns, optional columns); columns are (name, 'int' | 'text' |
# 'digits': an integer that torch_npu writes as text, PYTORCH_API's times). An optional column the file lacks
# is read as NULL; an optional table the file lacks is left empty.
_I, _T, _D, _R = "int", "text", "digits", "real"
_TABLES = {
    "STRING_IDS": ("_adb_strings", [("id", _I), ("value", _T)], []),
    "TASK": ("_adb_task", [("globalTaskId", _I), ("startNs", _I), ("endNs", _I), ("deviceId", _I)],
             [("streamId", _I), ("taskId", _I), ("modelId", _I), ("contextId", _I), ("connectionId", _I),
              ("taskType", _I)]),
    "COMPUTE_TASK_INFO": ("_adb_compute", [("globalTaskId", _I), ("name", _I)],
                          [("opType", _I), ("taskType", _I), ("blockDim", _I), ("mixBlockDim", _I),
                           ("inputShapes", _I), ("inputDataTypes", _I), ("inputFormats", _I),
                           ("outputShapes", _I), ("outputDataTypes", _I), ("outputFormats", _I), ("waitNs", _I)]),
    "COMMUNICATION_OP": ("_adb_comm", [("opName", _I), ("startNs", _I), ("endNs", _I)],
                         [("opId", _I), ("opType", _I), ("waitNs", _I), ("connectionId", _I)]),
    "COMMUNICATION_TASK_INFO": ("_adb_comm_tasks", [("globalTaskId", _I), ("opId", _I)], []),
    "STEP_TIME": ("_adb_steps", [("id", _I), ("startNs", _I), ("endNs", _I)], []),
    # CANN's API calls: host events; the launches (type 10000, 'node' in ENUM_API_TYPE) tell a step's device
    # range from its host range
    "CANN_API": ("_adb_api", [("startNs", _I), ("endNs", _I), ("type", _I), ("connectionId", _I)],
                 [("globalTid", _I), ("name", _I)]),
    "ENUM_API_TYPE": ("_adb_api_types", [("id", _I), ("name", _T)], []),
    # the framework side (torch_npu): ops, python frames, task queue; CONNECTION_IDS links an op to its tasks
    "PYTORCH_API": ("_adb_fwk", [("startNs", _D), ("endNs", _D), ("globalTid", _I), ("name", _I)],
                    [("connectionId", _I), ("type", _I)]),
    "CONNECTION_IDS": ("_adb_links", [("id", _I), ("connectionId", _I)], []),
    "RANK_DEVICE_MAP": ("_adb_ranks", [("rankId", _I), ("deviceId", _I)], []),
    "NPU_INFO": ("_adb_npus", [("id", _I), ("name", _T)], []),
    # PMU metrics of the compute tasks (aic_metrics), one row per task and metric, value a number
    "TASK_PMU_INFO": ("_adb_pmu", [("globalTaskId", _I), ("name", _I), ("value", _R)], []),
}
_EXPECTED = "expected torch_npu's ascend_pytorch_profiler_N.db or msprof's msprof_N.db"


def matches(tables) -> bool:
    """STRING_IDS + TASK + COMPUTE_TASK_INFO: the tables both exports have and no other profiler writes."""
    return all(t in tables for t in REQUIRED_TABLES)


def check_tables(path, tables):
    """A file the folder layout names as Ascend's export (ascend_pytorch_profiler_N.db, msprof_N.db) but
    without the tables read: refused naming the ones missing."""
    missing = [t for t in REQUIRED_TABLES if t not in tables]
    if missing:
        raise InputError(f"{path}: no table {', '.join(missing)}; {_EXPECTED} (tables STRING_IDS, TASK, "
                         "COMPUTE_TASK_INFO)")


def devices(path) -> list:
    """The device ids that ran a compute task or a collective's task (msprof lists every NPU of the node
    in NPU_INFO; one process usually drives one)."""
    con = sqlite_export.open_ro(path)
    try:
        return [r[0] for r in sql.run(con, "ingest_ascend_db_devices")]
    except sqlite3.Error:
        sqlite_export.raise_if_stopped()
        return []       # the ingest refuses the file with its own line
    finally:
        con.close()


def load(con, run_id: int, src) -> dict:
    """The run's rows (device src.agent, or every device when None) into kernels_raw, in start order;
    returns run facts (device_name, rank, device_kind, clock_domain). Every refusal is one line naming the
    file, the table and what was expected."""
    path = src.files[0]
    lite = sqlite_export.open_ro(path)
    try:
        have = _columns(lite, path)
        sql.run(con, "ingest_ascend_db_tables")
        for table, (target, required, optional) in _TABLES.items():
            if table in have:
                _copy(lite, con, path, table, target, required, optional, have[table])
    except sqlite3.Error as e:
        raise _read_error(path, e) from None
    finally:
        lite.close()
    bad = sql.run(con, "ingest_ascend_db_check", {"device": src.agent}).fetchone()
    if bad:
        raise InputError(f"{path}: {bad[0]}")
    metrics = [r[0] for r in sql.run(con, "ingest_ascend_db_metrics").fetchall()]
    with memory_cap(con, DUCKDB_MEMORY):
        sql.run(con, "ingest_ascend_db_insert", {"run_id": run_id, "device": src.agent, "metrics": metrics})
    sql.run(con, "ingest_split_texts", {"run_id": run_id})
    sql.run(con, "ingest_ascend_db_host", {"run_id": run_id, "device": src.agent})
    rank, device_name = sql.run(con, "ingest_ascend_db_facts", {"run_id": run_id}).fetchone()
    sql.run(con, "ingest_ascend_db_drop")
    info_rank = src.metadata.get("profiler_info", {}).get("rank_id")
    return {"device_name": device_name, "device_kind": DEVICE_KIND, "clock_domain": CLOCK_DOMAIN,
            "rank": info_rank if info_rank is not None else rank if rank is not None else src.rank,
            "metric_columns": metrics}


def _columns(lite, path) -> dict[str, set[str]]:
    """Table -> its columns, for the tables read; a required table or column that is missing is refused."""
    names = {r[0] for r in sql.run(lite, "ingest_sqlite_tables")}
    check_tables(path, names)
    have = {}
    for table, (_, required, _opt) in _TABLES.items():
        if table not in names:
            continue
        cols = {r[1] for r in lite.execute(f"PRAGMA table_info({sql.ident(table)})")}
        lacking = [c for c, _ in required if c not in cols]
        if lacking:
            raise InputError(f"{path}: table {table} has no column {', '.join(lacking)}; {_EXPECTED} ({table} with "
                             f"{', '.join(c for c, _ in required)})")
        have[table] = cols
    return have


def _copy(lite, con, path, table, target, required, optional, cols):
    """Every row of `table` into TEMP `target` (its columns in the order of the spec, NULL for an optional
    column the file lacks), through Arrow batches."""
    spec = required + optional
    select = ", ".join(_column(c, kind) if c in cols else "NULL" for c, kind in spec)

    def refuse(col, row, v, kind):
        expected = "text" if kind is True else "a number" if kind == REAL else "an integer"
        return InputError(f"{path}: table {table}, row {row}: column {col} holds {repr(v)[:40]} "
                          f"({type(v).__name__}); expected {expected}")
    kinds = {_T: True, _R: REAL}
    cur = sql.run(lite, "ingest_sqlite_read", columns=select, table=sql.ident(table))
    for _, batch in arrow_batches(cur, [(c, kinds.get(kind, False)) for c, kind in spec], refuse, BATCH_ROWS):
        con.from_arrow(batch).insert_into(target)


def _read_error(path, e: sqlite3.Error) -> InputError:
    """sqlite3's error as one line: its message quotes the text it could not decode, newlines and all (what
    stopped the query, a signal or the time budget, is raised instead)."""
    sqlite_export.raise_if_stopped()
    msg = str(e)
    if msg.startswith("Could not decode to UTF-8"):
        column = msg.split("'")[1] if msg.count("'") >= 2 else "?"
        return InputError(f"{path}: a text of column {column} is not valid UTF-8; expected UTF-8 text, as the "
                          "profilers write")
    msg = " ".join(msg.split())
    return InputError(f"{path}: cannot read the SQLite database ({msg[:200]}); {_EXPECTED}")


def _column(name, kind) -> str:
    """The column as SQLite hands it over; a 'digits' column's text of at most 19 digits within int64 as
    its integer (SQLite's CAST would turn other text into 0, or saturate, silently): other text stays text
    and is refused by name."""
    q = sql.ident(name)
    if kind != _D:
        return q
    return (f"CASE WHEN typeof({q}) = 'text' AND {q} <> '' AND {q} NOT GLOB '*[^0-9]*' AND (length({q}) < 19 "
            f"OR length({q}) = 19 AND {q} <= '9223372036854775807') THEN CAST({q} AS INTEGER) ELSE {q} END")


READER = sqlite_export.declare(
    FORMAT, 31, matches, devices, load, DEVICE_KIND, CLOCK_DOMAIN,
    sql=("ingest_ascend_db_tables", "ingest_ascend_db_check", "ingest_ascend_db_insert", "ingest_ascend_db_metrics",
         "ingest_ascend_db_host", "ingest_ascend_db_facts", "ingest_ascend_db_drop", "ingest_split_texts",
         "ingest_ascend_db_devices"),
    docs=(formats.Doc("Ascend SQLite exports: torch_npu `ascend_pytorch_profiler_{rank}.db`, msprof "
                      "`msprof_{timestamp}.db`", "`ascend-db`", "`kernels_raw` (one run per NPU)"),),
    recognised="SQLite holding `STRING_IDS`, `TASK` and `COMPUTE_TASK_INFO`")

"""rocprofv3's CSV output (`rocprofv3 --kernel-trace --output-format csv`) -> kernels_raw.

rocprofv3 writes one CSV per kind of record, each named `<prefix>_<kind>.csv` with the prefix `<pid>` by
default: `908_kernel_trace.csv`, and beside it, when traced, `908_agent_info.csv`, `908_memory_copy_trace.csv`,
`908_hip_api_trace.csv`, `908_marker_api_trace.csv`. The kernel trace is the run; the files of the same
prefix in its folder are read with it (and are part of its content hash). Runs follow the JSON reader
(ingest/rocprof.py): one run per GPU that ran kernels, device ids = GPU index, exact integer ns,
clock_domain 'monotonic', so a capture gives the same runs whichever output it was written in.

Column sets differ between versions; COLUMNS maps rocprofv3's header names to the staging columns in this
one place. Checked against rocprofiler-sdk's CSV writer: ROCm 6.2-6.3
(`source/lib/rocprofiler-sdk-tool/generateCSV.cpp`, 18 kernel-trace columns with Private_Segment_Size and
Group_Segment_Size, Agent_Id the node id) and ROCm 7 (`source/lib/output/generateCSV.cpp`, 22 columns with
Stream_Id, LDS_Block_Size, Scratch_Size and register counts, Agent_Id `Agent N`), both in
https://github.com/ROCm/rocprofiler-sdk. Columns tracedb does not read are skipped by name, so an added
column does not stop the reader; a missing required one is refused in one line.

A file DuckDB's reader refuses is read again with the rows it cannot read set aside
(ingest_rocprof_csv_salvage.sql): when the only one is the file's last line, cut short at the end of the file
(tracedb.ingest.cut_end), the complete rows are kept and the run is marked truncated, as a cut Chrome trace
is; otherwise the first such line is refused, naming it. That second read is the failure path only."""
import csv
import io
import os

import duckdb

from tracedb import sql
from tracedb.errors import InputError
from tracedb.ingest import cut_end, formats, sniff

FORMAT = "rocprof-csv"
KERNEL_TRACE = "kernel_trace"
HEAD_BYTES = 1 << 16      # a header line: 22 short names in ROCm 7, 53 in the agent info file

# rocprofv3 header name -> staging column (sql/ingest/ingest_rocprof_csv_tables.sql), per file kind.
_API = {"Domain": "domain", "Function": "function", "Process_Id": "process_id", "Thread_Id": "thread_id",
        "Correlation_Id": "correlation_id", "Start_Timestamp": "start_ts", "End_Timestamp": "end_ts"}
COLUMNS = {
    "kernel_trace": {
        "Kind": "kind", "Agent_Id": "agent", "Queue_Id": "queue_id", "Stream_Id": "stream_id",
        "Thread_Id": "thread_id", "Dispatch_Id": "dispatch_id", "Kernel_Id": "kernel_id",
        "Kernel_Name": "kernel_name", "Correlation_Id": "correlation_id", "Start_Timestamp": "start_ts",
        "End_Timestamp": "end_ts", "Group_Segment_Size": "lds_bytes", "LDS_Block_Size": "lds_bytes",
        "Private_Segment_Size": "scratch_bytes", "Scratch_Size": "scratch_bytes",
        "Workgroup_Size_X": "wg_x", "Workgroup_Size_Y": "wg_y", "Workgroup_Size_Z": "wg_z",
        "Grid_Size_X": "grid_x", "Grid_Size_Y": "grid_y", "Grid_Size_Z": "grid_z"},
    "memory_copy_trace": {
        "Direction": "direction", "Source_Agent_Id": "src_agent", "Destination_Agent_Id": "dst_agent",
        "Correlation_Id": "correlation_id", "Start_Timestamp": "start_ts", "End_Timestamp": "end_ts"},
    "hip_api_trace": _API,
    "marker_api_trace": _API,
    "agent_info": {"Node_Id": "node_id", "Logical_Node_Id": "logical_node_id", "Agent_Type": "agent_type",
                   "Name": "agent_name", "Product_Name": "product_name"},
}
REQUIRED = {
    "kernel_trace": ("Kind", "Agent_Id", "Kernel_Name", "Start_Timestamp", "End_Timestamp"),
    "memory_copy_trace": ("Source_Agent_Id", "Destination_Agent_Id", "Start_Timestamp", "End_Timestamp"),
    "hip_api_trace": ("Function", "Process_Id", "Thread_Id", "Start_Timestamp", "End_Timestamp"),
    "marker_api_trace": ("Function", "Process_Id", "Thread_Id", "Start_Timestamp", "End_Timestamp"),
    "agent_info": ("Node_Id", "Agent_Type"),
}
SIBLINGS = ("agent_info", "memory_copy_trace", "hip_api_trace", "marker_api_trace")
# The files of records over time, whose last line may be cut short (a crashed run, a partial copy) and left
# out. The agent info file is a table of the node's agents: one cut short would misnumber or drop a GPU.
TIMELINES = ("kernel_trace", "memory_copy_trace", "hip_api_trace", "marker_api_trace")
# The longest last line looked at for a cut (cut_end.last_line): DuckDB's reader's own line bound (2 MB).
LINE_LIMIT = 2 << 20


def header(path: str) -> list[str]:
    """The column names of a CSV file's first line ([] when it has none that reads)."""
    try:
        with sniff.open_regular(path) as f:
            head = f.read(HEAD_BYTES)
    except OSError:
        return []
    line = head.split(b"\n", 1)[0].decode("utf-8-sig", "replace").rstrip("\r")
    try:
        return [c.strip() for c in next(csv.reader(io.StringIO(line)), [])]
    except csv.Error:
        return []


def is_kernel_trace(path: str) -> bool:
    """The file's header is rocprofv3's kernel trace (not its counter collection, which also names kernels
    and agents): Kernel_Name and Agent_Id. A required column missing besides is refused by name."""
    cols = header(path)
    return "Kernel_Name" in cols and "Agent_Id" in cols and "Counter_Name" not in cols


def sibling_refusal(path: str) -> str | None:
    """One line for a rocprofv3 CSV that is read with a kernel trace, not alone (agent info, copies, API
    calls), by its name and header; None for any other file."""
    base = os.path.basename(path)
    kind = next((k for k in SIBLINGS if base.endswith(k + ".csv")), None)
    if kind is None or not all(c in header(path) for c in REQUIRED[kind]):
        return None
    trace = base[:-len(kind + ".csv")] + KERNEL_TRACE + ".csv"
    return (f"{path}: rocprofv3's {kind}.csv, which is read with the kernel trace of its capture; expected "
            f"the kernel trace: tracedb ingest {os.path.join(os.path.dirname(path), trace)} (rocprofv3 "
            "--kernel-trace --output-format csv)")


def files(path: str) -> list[str]:
    """The kernel trace, then the files of its prefix beside it, in SIBLINGS order. A kernel trace not
    named `<prefix>kernel_trace.csv` is read alone."""
    base = os.path.basename(path)
    if not base.endswith(KERNEL_TRACE + ".csv"):
        return [path]
    prefix = os.path.join(os.path.dirname(path), base[:-len(KERNEL_TRACE + ".csv")])
    return [path] + [prefix + kind + ".csv" for kind in SIBLINGS if os.path.isfile(prefix + kind + ".csv")]


def part_of(path: str, first: str) -> str:
    if path == first:
        return KERNEL_TRACE
    return next(k for k in SIBLINGS if os.path.basename(path).endswith(k + ".csv"))


def stage(con, paths: list[str]) -> list[cut_end.Cut]:
    """Every file of the capture into TEMP _rcsv_rows, and the agents' devices into _rcsv_devices. Returns
    the files cut short at their end, whose last line was left out (`_salvaged`)."""
    sql.run(con, "ingest_rocprof_csv_tables")
    cuts = []
    for p in paths:
        part = part_of(p, paths[0])
        cols = header(p)
        missing = [c for c in REQUIRED[part] if c not in cols]
        if missing:
            raise InputError(f"{p}: line 1: no column {', '.join(missing)}; expected rocprofv3's {part}.csv "
                             f"header ({', '.join(REQUIRED[part])}, ...)")
        names, used = {}, set()
        for i, c in enumerate(cols):
            target = COLUMNS[part].get(c)
            if target is None or target in used:
                target = f"_skip{i}"
            used.add(target)
            names[target] = "VARCHAR"
        try:
            sql.run(con, "ingest_rocprof_csv_append", {"path": p, "part": part, "columns": names})
        except duckdb.Error as e:
            if _interrupted(e):
                raise
            cuts.append(_salvaged(con, p, part, names, len(cols), e))
    sql.run(con, "ingest_rocprof_csv_agents")
    return cuts


def _salvaged(con, path: str, part: str, names: dict, width: int, error: duckdb.Error) -> cut_end.Cut:
    """A file DuckDB's reader refused (`error`), read again with the rows it cannot read set aside. When the
    only one is the file's last line, cut short at the end of a file of records over time, its complete rows
    stay in _rcsv_rows and the cut is returned; otherwise the first line set aside is refused."""
    cut = cut_end.last_line(path, width, LINE_LIMIT)
    try:
        sql.run(con, "ingest_rocprof_csv_salvage", {"path": path, "part": part, "columns": names})
        rejects = sql.run(con, "ingest_rocprof_csv_rejects").fetchall()
    except duckdb.Error as e:
        if _interrupted(e):
            raise
        rejects = []
    if cut is not None and rejects and {line for line, _, _ in rejects} == {cut.line}:
        if part in TIMELINES:
            return cut
        raise InputError(f"{cut}: cut short (crashed run? a partial copy?); expected the whole {part}.csv: it lists "
                         "the node's agents, and without the last ones a GPU would be numbered or named wrong")
    if rejects:
        raise InputError(_damaged(path, part, width, *rejects[0])) from None
    msg = str(error).strip().splitlines()[0]
    msg = msg if len(msg) <= 200 else msg[:197] + "..."
    raise InputError(f"{path}: cannot read the CSV ({msg}); expected rocprofv3's {part}.csv: "
                     f"{width} comma-separated columns on every line") from None


def _interrupted(e: duckdb.Error) -> bool:
    """Ctrl-C or SIGTERM stopped the read: no second read then."""
    return isinstance(e, duckdb.InterruptException) or "interrupt" in str(e).lower()


def _damaged(path: str, part: str, width: int, line: int, kind: str, text: str | None) -> str:
    """The refusal of a line DuckDB's reader set aside: which line, what is wrong, what was expected."""
    if kind in ("MISSING COLUMNS", "TOO MANY COLUMNS"):
        try:
            found = len(next(csv.reader([text or ""]), []))
        except csv.Error:
            found = None
        if found is not None and found != width:
            return f"{path}: line {line}: expected {width} columns, found {found} (truncated or malformed row)"
        return (f"{path}: line {line}: {'fewer' if kind == 'MISSING COLUMNS' else 'more'} cells than the "
                f"{width} columns of the header (truncated or malformed row)")
    if kind == "UNQUOTED VALUE":
        return (f"{path}: line {line}: a quoted cell is not closed, or has text after its closing quote; expected "
                "RFC 4180 quoting")
    if kind == "INVALID ENCODING":
        return f"{path}: line {line}: invalid UTF-8; expected a UTF-8 text file"
    return f"{path}: line {line}: cannot read the CSV ({kind.lower()}); expected rocprofv3's {part}.csv"


def devices(path: str) -> list[int]:
    """The GPU indexes the kernel trace dispatches to, in order ([] when it cannot be read: the ingest
    then says why)."""
    con = duckdb.connect()
    try:
        stage(con, files(path))
        return [r[0] for r in sql.run(con, "ingest_rocprof_csv_devices").fetchall()]
    except (InputError, duckdb.Error):
        return []
    finally:
        con.close()


def load(con, run_id: int, paths: list[str], agent: int | None) -> dict:
    """The run's rows (GPU `agent`, or every GPU when None) into kernels_raw and its host events into
    trace_events. Returns run facts as rocprof.load does."""
    cuts = stage(con, paths)
    if not sql.run(con, "ingest_rocprof_csv_dispatches").fetchone()[0]:
        cut = next((c for c in cuts if c.path == paths[0]), None)
        if cut is not None:
            raise InputError(f"{cut}: cut short (crashed run?) before any complete kernel dispatch; expected at "
                             "least one complete data line")
        raise InputError(f"{paths[0]}: header only, no kernel dispatch; expected rows of "
                         "rocprofv3 --kernel-trace --output-format csv")
    bad = sql.run(con, "ingest_rocprof_csv_check").fetchone()
    if bad:
        part, row, problem, expected = bad
        path = next(p for p in paths if part_of(p, paths[0]) == part)
        raise InputError(f"{path}: line {row + 1}: {problem}; expected {expected}")
    gpus = sql.run(con, "ingest_rocprof_csv_gpus").fetchall()
    if agent is not None and agent not in [g[0] for g in gpus]:
        raise InputError(f"{paths[0]}: no kernel dispatch on GPU {agent}; the trace's dispatches ran on GPU "
                         f"{', '.join(str(g[0]) for g in gpus)}")
    names = sorted({g[1] for g in gpus if (agent is None or g[0] == agent) and g[1]})
    sql.run(con, "ingest_rocprof_csv_insert", {"run_id": run_id, "device": agent})
    return {"device_name": ", ".join(names) or None, "rank": agent, "device_kind": "gpu",
            "clock_domain": "monotonic", "inflated_bytes": None, "truncated": bool(cuts),
            "cut": [str(c) for c in cuts]}


def _recognise(probe) -> bool:
    """A kernel trace (with the files of its prefix beside it); a file read with one is refused by name."""
    if probe.kind != "text":
        return False
    if is_kernel_trace(probe.path):
        return True
    why = sibling_refusal(probe.path)
    if why:
        raise InputError(why)
    return False


def _found(probe) -> bool:
    probe.opened()          # refuses a pipe named .csv, and a file that cannot be read, by name
    return is_kernel_trace(probe.path)   # the CSVs beside it are read with it


READER = formats.Reader(
    name=FORMAT, order=40, recognise=_recognise, found=_found, suffixes=(".csv",),
    read=lambda con, run_id, src, options: load(con, run_id, src.files, src.agent),
    source=lambda path: {"files": files(path)}, devices=devices, rank_in_path=False,
    recognised="a CSV header naming `Kernel_Name` and `Agent_Id` (not `Counter_Name`)",
    sql=("ingest_rocprof_csv_tables", "ingest_rocprof_csv_append", "ingest_rocprof_csv_salvage",
         "ingest_rocprof_csv_agents", "ingest_rocprof_csv_check", "ingest_rocprof_csv_insert",
         "ingest_rocprof_csv_rejects", "ingest_rocprof_csv_devices", "ingest_rocprof_csv_dispatches",
         "ingest_rocprof_csv_gpus"),
    docs=(formats.Doc("rocprofv3 CSV (`rocprofv3 --output-format csv`), `<pid>_kernel_trace.csv` and the CSVs "
                      "beside it", "`rocprof-csv`", "`kernels_raw` (one run per GPU)"),))

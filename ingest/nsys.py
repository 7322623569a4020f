"""Nsight Systems SQLite exports (`nsys export --type sqlite`, the file `nsys stats` writes) -> kernels_raw and
trace_events.

Device rows: CUPTI_ACTIVITY_KIND_KERNEL, _MEMCPY and _MEMSET, exact integer ns, names through StringIds
(a kernel's demangledName: the name `nsys stats --report cuda_gpu_kern_sum` prints). Host rows, as a Kineto
trace has them, so that module attribution (sql/segment/attribute_modules.sql) reads them unchanged: every
CUDA runtime (and driver) call becomes a `cuda_runtime` (`cuda_driver`) host event carrying its correlation
id, every NVTX push/pop or start/end range a `user_annotation` on the thread that opened it.

The export's tables differ between Nsight Systems versions: COLUMNS below is the one place that maps this
reader's column names to the names the versions use. The rows move from SQLite (Python's sqlite3, the file
opened read-only and immutable) into DuckDB in Arrow batches of BATCH rows, integers as int64 throughout.
One run per device: engine/loading/folder.py plans a run per device that devices() lists; a Source without
`agent` (the Python API on a file) loads every device into one run, told apart by device_id."""
import os
import shutil
import sqlite3
import subprocess

from tracedb import sql
from tracedb.errors import InputError
from tracedb.ingest import formats, sqlite_export
from tracedb.ingest.sqlite_export import arrow_batches

FORMAT = "nsys"
DEVICE_KIND = "gpu"
# Timestamps of an export are ns on the session's clock, as the file has them (EXPORT_PARAM_TIME_NORMALIZE
# false: events before the capture start are negative); TARGET_INFO_SESSION_START_TIME.utcEpochNs, the
# capture's start in UTC, is kept in runs.metadata.
CLOCK_DOMAIN = "nsys-session"
# The times taken, in ns: 31 years before the capture's start to 158 after it (real exports: within hours of it;
# a boot-relative clock reaches ~1e15). Beyond them a row's `end - start` or a report's sums overflow a BIGINT,
# or round past 2^63 as DOUBLE; the span between the two, 6e18, still fits.
MIN_NS, MAX_NS = -10**18, 5 * 10**18
# 100 k rows of ~20 int64 columns is ~16 MB of Arrow per batch: a few DuckDB inserts per million kernels.
BATCH = 100_000
KERNEL, MEMCPY, MEMSET = "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"
RUNTIME, DRIVER, NVTX = "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_DRIVER", "NVTX_EVENTS"
SYNC = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"
# The event records (a cudaEventRecord's stream and event id; exports of captures that traced them): they name
# the work a stream's wait or a host's event synchronisation waited for
EVENTS = "CUPTI_ACTIVITY_KIND_CUDA_EVENT"
# ENUM_CUPTI_SYNC_TYPE's names of a stream's wait for an event, of a stream's synchronisation and of an event's,
# and their ids (used when the export has no enum table): read as Kineto's cuda_sync events (report
# critical-path)
SYNC_TYPES = {"CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT": 2,
              "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE": 3,
              "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE": 1}
META_TABLES = ("EXPORT_META_DATA", "META_DATA_EXPORT")
GPU_TABLES = ("TARGET_INFO_GPU", "TARGET_INFO_CUDA_DEVICE")
# The export schema major this reader was checked against (nsys 2023.1.2 writes 3.1.2); another one is read
# when the columns below are found, and named in the error when they are not.
KNOWN_MAJORS = (3,)
REP_SUFFIX = ".nsys-rep"

# This reader's column -> the names an export may give it, first found wins. A column marked required
# (REQUIRED) missing from its table is refused naming both; the others are NULL when absent.
COLUMNS = {
    "activity": {
        "start_ns": ("start",), "end_ns": ("end",), "device_id": ("deviceId",), "context_id": ("contextId",),
        "stream_id": ("streamId",), "correlation_id": ("correlationId",), "global_pid": ("globalPid",),
        "name_id": ("demangledName", "name", "shortName", "mangledName"),
        "registers": ("registersPerThread",),
        "grid_x": ("gridX",), "grid_y": ("gridY",), "grid_z": ("gridZ",),
        "block_x": ("blockX",), "block_y": ("blockY",), "block_z": ("blockZ",),
        "static_smem": ("staticSharedMemory",), "dynamic_smem": ("dynamicSharedMemory",),
        "graph_node_id": ("graphNodeId",), "bytes": ("bytes",), "copy_kind": ("copyKind",),
    },
    "api": {"start_ns": ("start",), "end_ns": ("end",), "global_tid": ("globalTid",),
            "correlation_id": ("correlationId",), "name_id": ("nameId",)},
    "nvtx": {"start_ns": ("start",), "end_ns": ("end",), "event_type": ("eventType",), "text": ("text",),
             "text_id": ("textId",), "global_tid": ("globalTid",), "domain_id": ("domainId",)},
    "sync": {"start_ns": ("start",), "end_ns": ("end",), "device_id": ("deviceId",), "stream_id": ("streamId",),
             "correlation_id": ("correlationId",), "global_pid": ("globalPid",), "sync_type": ("syncType",),
             "event_id": ("eventId",), "event_sync_id": ("eventSyncId",)},
    "event": {"device_id": ("deviceId",), "stream_id": ("streamId",), "correlation_id": ("correlationId",),
              "global_pid": ("globalPid",), "event_id": ("eventId",), "event_sync_id": ("eventSyncId",)},
    "strings": {"id": ("id",), "value": ("value",)},
    "gpus": {"id": ("id", "cudaId", "cuDevice", "gpuId"), "name": ("name", "deviceName")},
    "meta": {"name": ("name",), "value": ("value",)},
    "enum": {"id": ("id",), "name": ("name",), "label": ("label",)},
}
REQUIRED = {
    "activity": ("start_ns", "end_ns", "device_id", "stream_id"),
    "api": ("start_ns", "end_ns", "global_tid", "correlation_id", "name_id"),
    "nvtx": ("start_ns", "end_ns", "event_type", "global_tid"),
    "sync": ("start_ns", "end_ns", "stream_id", "correlation_id", "sync_type"),
    "event": ("stream_id", "correlation_id", "event_id"),
    "strings": ("id", "value"), "gpus": ("id",), "meta": ("name", "value"), "enum": ("id", "name"),
}
TEXT = {"text", "value", "name", "label", "kind", "cat"}     # every other column is an int64
# ENUM_NSYS_EVENT_TYPE names of the NVTX ranges and of a domain's creation, and their ids in the exports
# checked (used when the export has no enum table).
RANGE_TYPES = {"NvtxPushPopRange": 59, "NvtxStartEndRange": 60, "NvtxtPushPopRange": 70, "NvtxtStartEndRange": 71}
DOMAIN_CREATE = ("NvtxDomainCreate", 75)
# ENUM_CUDA_MEMCPY_OPER labels (used when the export has no enum table)
COPY_KINDS = {0: "Unknown", 1: "Host-to-Device", 2: "Device-to-Host", 3: "Host-to-Array", 4: "Array-to-Host",
              5: "Array-to-Array", 6: "Array-to-Device", 7: "Device-to-Array", 8: "Device-to-Device",
              9: "Host-to-Host", 10: "Peer-to-Peer", 11: "Unified Host-to-Device", 12: "Unified Device-to-Host",
              13: "Unified Device-to-Device"}
NO_KERNELS = f"no {KERNEL} rows: profile with --trace=cuda"


def matches(tables) -> bool:
    """StringIds beside the kernel table or the export's metadata table (an export without kernels is then
    refused by load with the profiling option it lacks)."""
    return "StringIds" in tables and (KERNEL in tables or any(t in tables for t in META_TABLES))


def devices(path) -> list:
    """The device ids with a kernel, copy or memset, ascending; [] when they cannot be read (the ingest then
    says why)."""
    try:
        with _Export(path) as x:
            return x.devices()
    except sqlite3.Error:
        sqlite_export.raise_if_stopped()
        return []
    except InputError:
        return []


def load(con, run_id, src) -> dict:
    """The run's device rows into kernels_raw and its host events into trace_events (device `src.agent`, or
    every device when None). Returns run facts. Every refusal is one line naming the file."""
    path = src.files[0]
    with _Export(path) as x:
        meta = x.metadata()
        if x.rows(KERNEL) == 0:
            raise InputError(f"{path}: {NO_KERNELS}")
        devs = x.devices()
        if src.agent is not None and src.agent not in devs:
            raise InputError(f"{path}: no device {src.agent}; the export has activity on device"
                             f"{'s' if len(devs) != 1 else ''} {', '.join(map(str, devs)) or 'none'}")
        sql.run(con, "ingest_nsys_scratch")
        x.copy(con, "strings", "StringIds", "_nsys_strings")
        gpus = next((t for t in GPU_TABLES if t in x.tables), None)
        if gpus:
            x.copy(con, "gpus", gpus, "_nsys_gpus")
        for table, kind in ((KERNEL, "kernel"), (MEMCPY, "memcpy"), (MEMSET, "memset")):
            if table in x.tables:
                x.copy(con, "activity", table, "_nsys_activity", {"kind": kind}, device=src.agent)
        # only the host side of the processes with device rows here (all when some row has no globalPid)
        gpids = [r[0] for r in sql.run(con, "ingest_nsys_gpu_pids").fetchall()]
        pids = None if None in gpids else sorted({(g >> 24) & 0xFFFFFF for g in gpids})
        for table, cat in ((RUNTIME, "cuda_runtime"), (DRIVER, "cuda_driver")):
            if table in x.tables:
                x.copy(con, "api", table, "_nsys_api", {"cat": cat}, pids=pids)
        if NVTX in x.tables:
            x.copy(con, "nvtx", NVTX, "_nsys_nvtx", pids=pids)
        if SYNC in x.tables:
            x.copy(con, "sync", SYNC, "_nsys_sync", device=src.agent)
        if EVENTS in x.tables:
            x.copy(con, "event", EVENTS, "_nsys_events", device=src.agent)
        event_types, copy_kinds = x.enum("ENUM_NSYS_EVENT_TYPE"), x.enum("ENUM_CUDA_MEMCPY_OPER", label=True)
        sync_types = {**SYNC_TYPES, **x.enum("ENUM_CUPTI_SYNC_TYPE")}
    bad = sql.run(con, "ingest_nsys_check", {"min_ns": MIN_NS, "max_ns": MAX_NS}).fetchone()
    if bad:
        table, start, end = bad
        span = " to ".join(f"{t:.0e}".replace("e+", "e") for t in (MIN_NS, MAX_NS))     # -1e18 to 5e18
        raise InputError(f"{path}: {table}: a row with start {start} and end {end}; expected integer ns"
                         + ("" if table == NVTX else ", start <= end") + f", each from {span}")
    ranges = [event_types.get(n, i) for n, i in RANGE_TYPES.items()]
    domain = event_types.get(DOMAIN_CREATE[0], DOMAIN_CREATE[1])
    kinds = copy_kinds or COPY_KINDS
    sql.run(con, "ingest_nsys_insert", {"run_id": run_id, "range_types": ranges, "domain_type": domain,
                                        "copy_ids": list(kinds), "copy_labels": list(kinds.values()),
                                        **dict(zip(("wait_type", "stream_sync_type", "event_sync_type"),
                                                   (sync_types[n] for n in SYNC_TYPES)))})
    names = [r[0] for r in sql.run(con, "ingest_nsys_gpu_names", {"r": run_id}).fetchall()]
    sql.run(con, "ingest_nsys_drop_gpus")
    src.metadata = {**src.metadata, "nsys": meta}
    return {"device_name": ", ".join(names) or None,
            "rank": src.rank if src.rank is not None else src.agent,
            "device_kind": DEVICE_KIND, "clock_domain": CLOCK_DOMAIN, "inflated_bytes": None, "time_base_ns": 0}


class _Export:
    """An export opened read-only, its tables and their columns; errors name the file."""

    def __init__(self, path):
        self.path = path
        self.con = sqlite_export.open_ro(path)
        self.version = None
        try:
            self.tables = self._try(lambda: {r[0] for r in sql.run(self.con, "ingest_sqlite_tables")})
        except InputError:
            self.con.close()
            raise

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.con.close()

    def _try(self, fn):
        try:
            return fn()
        except sqlite3.DatabaseError as e:
            sqlite_export.raise_if_stopped()
            raise InputError(f"{self.path}: cannot read the SQLite database ({e}): a corrupt or cut file? "
                             "Expected an Nsight Systems export (nsys export --type sqlite)") from None

    def columns(self, key: str, table: str) -> dict:
        """This reader's column -> the table's column (None when absent); a required one missing is refused."""
        have = self._names(table)
        found = {c: next((a for a in aliases if a in have), None) for c, aliases in COLUMNS[key].items()}
        missing = next((COLUMNS[key][c][0] for c in REQUIRED[key] if not found[c]), None)
        if not missing and table == KERNEL and not found["name_id"]:
            missing = COLUMNS[key]["name_id"][0]
        if missing:
            ver = f"export schema {self.version}" if self.version else "an export without a schema version"
            raise InputError(f"{self.path}: {table}: no column {missing}; expected the columns of an Nsight Systems "
                             f"export (read: schema {', '.join(f'{m}.x' for m in KNOWN_MAJORS)}; this is {ver})")
        return found

    def rows(self, table: str) -> int:
        if table not in self.tables:
            return 0
        return self._try(lambda: sql.run(self.con, "ingest_nsys_rows", table=sql.ident(table)).fetchone()[0])

    def metadata(self) -> dict:
        """EXPORT_META_DATA (META_DATA_EXPORT in newer exports) as a dict, the schema version checked, plus
        the capture's UTC start."""
        table = next((t for t in META_TABLES if t in self.tables), None)
        meta = {}
        if table:
            cols = self.columns("meta", table)
            meta = dict(self._try(lambda: sql.run(self.con, "ingest_nsys_pairs", first=sql.ident(cols["name"]),
                                                  second=sql.ident(cols["value"]), table=sql.ident(table)).fetchall()))
        version = meta.get("EXPORT_SCHEMA_VERSION")
        if version is not None:
            major = str(version).split(".")[0]
            if not major.isdigit():
                raise InputError(f"{self.path}: {table}: EXPORT_SCHEMA_VERSION {version!r} is no version; expected "
                                 "MAJOR.MINOR.MICRO as Nsight Systems writes it")
            self.version = str(version)
        out = {k: meta[k] for k in ("EXPORT_SCHEMA_VERSION", "EXPORT_PRODUCT_VERSION", "EXPORT_PRODUCT_NAME")
               if k in meta}
        start = "TARGET_INFO_SESSION_START_TIME"
        if start in self.tables and "utcEpochNs" in self._names(start):
            row = self._try(lambda: sql.run(self.con, "ingest_nsys_session_start").fetchone())
            if row and isinstance(row[0], int):
                out["session_start_utc_epoch_ns"] = row[0]
        return out

    def _names(self, table: str) -> set[str]:
        return {r[1] for r in self._try(lambda: self.con.execute(f"PRAGMA table_info({sql.ident(table)})").fetchall())}

    def devices(self) -> list[int]:
        seen = set()
        for table in (KERNEL, MEMCPY, MEMSET):
            if table in self.tables:
                col = self.columns("activity", table)["device_id"]
                seen.update(r[0] for r in self._try(lambda: sql.run(
                    self.con, "ingest_nsys_distinct", column=sql.ident(col), table=sql.ident(table)).fetchall())
                            if isinstance(r[0], int))
        return sorted(seen)

    def enum(self, table: str, label: bool = False) -> dict:
        """An ENUM_* table as name -> id (label=True: id -> label); {} when absent."""
        if table not in self.tables:
            return {}
        cols = self.columns("enum", table)
        if label and not cols["label"]:
            return {}
        rows = self._try(lambda: sql.run(self.con, "ingest_nsys_pairs", first=sql.ident(cols["id"]),
                                         second=sql.ident(cols["label"] if label else cols["name"]),
                                         table=sql.ident(table)).fetchall())
        return {i: n for i, n in rows if isinstance(i, int)} if label else \
            {n: i for i, n in rows if isinstance(i, int)}

    def copy(self, con, key: str, table: str, target: str, consts: dict | None = None, device: int | None = None,
             pids: list | None = None):
        """The rows of `table` into the TEMP table `target` (columns of COLUMNS[key], plus `consts` and `ord`,
        the row's position in the table), in batches through Arrow; `device`: only that deviceId's rows;
        `pids`: only the rows of threads of those processes."""
        import pyarrow as pa
        cols = self.columns(key, table)
        names = [c for c in cols if cols[c]]           # the others stay NULL in the target
        select = ", ".join(sql.ident(cols[c]) for c in names)
        where, params = "", ()
        if device is not None:
            where, params = f" WHERE {sql.ident(cols['device_id'])} = ?", (device,)
        elif pids is not None:
            marks = ", ".join("?" * len(pids))
            where, params = f" WHERE ({sql.ident(cols['global_tid'])} >> 24) & 16777215 IN ({marks})", tuple(pids)
        read = sql.file_statements("ingest_nsys_read", columns=select, table=sql.ident(table), where=where)[0]
        cur = self._try(lambda: self.con.execute(read, params))

        def refuse(name, row, v, text):
            return InputError(f"{self.path}: {table}.{cols[name]}: {v!r} in row {row}; "
                              f"expected {'text' if text else 'a 64-bit integer'}")
        batches = arrow_batches(cur, [(name, name in TEXT) for name in names], refuse, BATCH)
        insert = sql.file_statements("ingest_nsys_insert_batch", target=sql.ident(target))[0]
        while True:
            item = self._try(lambda: next(batches, None))     # sqlite3 reads as the batches are taken
            if item is None:
                break
            done, batch = item
            for k, v in (consts or {}).items():
                batch = batch.append_column(k, pa.array([v] * batch.num_rows, type=pa.string()))
            batch = batch.append_column("ord", pa.array(range(done, done + batch.num_rows), type=pa.int64()))
            con.register("_nsys_batch", batch)
            try:
                con.execute(insert)
            finally:
                con.unregister("_nsys_batch")


def is_rep(path: str) -> bool:
    return path.lower().endswith(REP_SUFFIX) and os.path.isfile(path)


def _exported(path: str) -> str | None:
    """A `.nsys-rep` report is read through its SQLite export (named as the report)."""
    return export_rep(path) if is_rep(path) else None


def export_rep(path: str) -> str:
    """The SQLite export of a `.nsys-rep` report: `<stem>.sqlite` beside it, as `nsys stats` writes it (an
    export there newer than the report is used as it is), made with `nsys export --type sqlite` when `nsys`
    is on PATH; without `nsys`, one line with the command to run."""
    out = path[:-len(REP_SUFFIX)] + ".sqlite"
    cmd = ["nsys", "export", "--type", "sqlite", "--force-overwrite=true", "--output", out, path]
    shown = " ".join(_sh(c) for c in cmd)
    if os.path.isfile(out) and os.path.getmtime(out) >= os.path.getmtime(path):
        return out
    exe = shutil.which("nsys")
    if not exe:
        raise InputError(f"{path}: an Nsight Systems report, which tracedb reads as its SQLite export; no nsys "
                         f"on PATH to export it: run `{shown}` and ingest {out}")
    if not os.access(os.path.dirname(os.path.abspath(out)), os.W_OK):
        raise InputError(f"{path}: cannot write its SQLite export beside it (the folder is read-only); run "
                         f"`{shown}` with another --output and ingest that file")
    try:
        done = subprocess.run([exe, *cmd[1:]], capture_output=True, text=True, timeout=3600)
    except (OSError, subprocess.SubprocessError) as e:
        raise InputError(f"{path}: nsys export failed ({e}); run `{shown}` and ingest {out}") from None
    if done.returncode != 0 or not os.path.isfile(out):
        why = (done.stderr or done.stdout or "").strip().splitlines()
        raise InputError(f"{path}: nsys export exited with status {done.returncode}"
                         f"{': ' + why[-1][:200] if why else ''}; expected it to write {out}")
    return out


def _sh(arg: str) -> str:
    import shlex
    return shlex.quote(arg)


READER = sqlite_export.declare(
    FORMAT, 30, matches, devices, load, DEVICE_KIND, CLOCK_DOMAIN,
    sql=("ingest_nsys_scratch", "ingest_nsys_check", "ingest_nsys_insert", "ingest_nsys_gpu_pids",
         "ingest_nsys_gpu_names", "ingest_nsys_drop_gpus", "ingest_nsys_rows", "ingest_nsys_pairs",
         "ingest_nsys_session_start", "ingest_nsys_distinct", "ingest_nsys_read", "ingest_nsys_insert_batch"),
    docs=(formats.Doc("Nsight Systems SQLite export (`nsys export --type sqlite`, the `.sqlite` `nsys stats` writes), "
                      "or a `.nsys-rep` when `nsys` is on PATH", "`nsys`",
                      "`kernels_raw` (one run per GPU); host side in `trace_events`"),),
    export=_exported, recognised="SQLite holding `StringIds` and the kernel table or the export's metadata table; "
    "a `.nsys-rep` by its name")

"""What DuckDB's JSON reader is asked for: the columns and their types, the args keys (all, or a Kineto
trace's), how ts is written (number or text) and read (DOUBLE, DECIMAL or text), the SQL that turns ts
into integer ns, and the SQL that reads each args key."""
import json
import re

from tracedb import sql
from tracedb.ingest.chrome_json.config import JsonIngestConfig
from tracedb.ingest.chrome_json.layout import Layout

ARGS = {  # the args keys tracedb reads, matched as written (DuckDB's reader matches keys case-sensitively: the
        # older layout's "external id" is read through OLD_ARGS), typed so the reader converts them while
        # parsing (casting JSON text afterwards took 1.3 s per 300 MB)
    "correlation": "BIGINT", "External id": "BIGINT", "device": "BIGINT", "stream": "BIGINT",
    "grid": "BIGINT[]", "block": "BIGINT[]", "registers per thread": "BIGINT", "shared memory": "BIGINT",
    "name": "VARCHAR", "sort_index": "BIGINT", "Task Type": "VARCHAR", "Stream Id": "BIGINT", "Task Id": "BIGINT",
    "connection_id": "BIGINT", "taskId": "BIGINT", "extra_id": "BIGINT", "event-hint": "VARCHAR",
    # what PyTorch's c10d records on NCCL/RCCL kernels and record_param_comms (kept in extra_args): the
    # collective, its sizes, dtype and process group, and (newer PyTorch) its sequence number
    "Collective name": "VARCHAR", "In msg nelems": "BIGINT", "Out msg nelems": "BIGINT", "Group size": "BIGINT",
    "dtype": "VARCHAR", "In split size": "VARCHAR", "Out split size": "VARCHAR", "Process Group Name": "VARCHAR",
    "Process Group Description": "VARCHAR", "Process Group Ranks": "VARCHAR", "Seq": "BIGINT",
    # a PyTorch op's shapes and dtypes (record_shapes=True), as JSON text: the FLOPs and bytes of the kernels
    # it launches (tracedb.ingest.kernel_work). Kept on the cpu_ops that launched a kernel only.
    "Input Dims": "JSON", "Input type": "JSON", "Concrete Inputs": "JSON",
    # an op's autograd sequence number and forward thread (0 on a forward op; a backward node has its forward
    # op's number): read in the older layout only (OLD_ONLY_ARGS), which records no Concrete Inputs, to pair
    # a forward convolution with its backward node, whose input (dy) has the output's shape (ingest_work_ops)
    "Sequence number": "BIGINT", "Fwd thread id": "BIGINT",
    # the kernel a launch call launches (ROCm's runtime writes it; CUDA's does not): read for a graph capture
    # only (CAPTURE_ARGS), whose captured launches run no kernel of their own to name them
    "kernel": "VARCHAR",
    # a CUDA synchronisation (Kineto's cuda_sync events, PyTorch 2.4+): the stream and the cudaEventRecord call
    # (its correlation id) a Stream Wait Event or an Event Sync waited on (report critical-path's event edges)
    "wait_on_stream": "BIGINT", "wait_on_cuda_event_record_corr_id": "BIGINT",
}
# Keys only Ascend's trace_view.json and on-device NPU traces write. A Kineto trace (its top-level keys say
# so: KINETO_KEYS) is read without them: every key of the reader's args struct is a child vector filled
# for every event, and these seven cost ~3 % of the insert's instructions (callgrind, 72 MB part).
NPU_ARGS = ("Task Type", "Stream Id", "Task Id", "connection_id", "taskId", "extra_id", "event-hint")
KINETO_KEYS = ("schemaVersion", "deviceProperties", "baseTimeNanoseconds")
# The c10d collective keys cost the reader +3-8 % CPU on a 100 MB Kineto trace of a TP16 rank (A/B, 19 runs
# each: median 1.78-1.83 CPU-s without, 1.86-1.92 with; peak RSS 268 -> 273 MB). Only a distributed run has
# collectives, and Kineto writes distributedInfo before the events when there is one: a Kineto trace
# without it skips them.
# Read only when the trace is ingested as a graph capture (tracedb ingest REPLAY --capture CAPTURE): ROCm writes
# the kernel name on every launch call, and keeping it on the launch calls of every trace cost +5 % CPU and +8 %
# store size on a 247 MB trace of 250 k launches, for names its kernels already carry.
CAPTURE_ARGS = ("kernel",)
OLD_ONLY_ARGS = ("Sequence number", "Fwd thread id")
COMM_ARGS = ("Collective name", "In msg nelems", "Out msg nelems", "Group size", "dtype", "In split size",
             "Out split size", "Process Group Name", "Process Group Description", "Process Group Ranks", "Seq")

# The PyTorch profiler's older layout (PyTorch 1.8-1.9, torch-tb-profiler's samples): capitalised categories
# (Operator, Runtime, Kernel, Memcpy, Memset) and a lower-case "external id" on device activities and launch
# calls, where ops write "External id". DuckDB's reader matches a struct's keys case-sensitively and a struct
# cannot hold two keys that differ in case only, so such a trace's args are read as JSON text (columns, old),
# the lower-case key renamed, and turned into the struct the reader gives other traces (OLD_ARGS). That
# read takes about three times the typed one's CPU (0.08 -> 0.25 s on one thread for the 35 MB ResNet-50
# sample: 0.03 s the struct, 0.09 s the check for a key written twice), for this layout only. The layout is
# told by the first ts_sniff bytes of events, where its ops come first.
_OLD_LAYOUT = re.compile(rb'"cat"\s*:\s*"(?:Operator|Runtime|Kernel|Memcpy|Memset)"|"external id"\s*:')
# An args key written twice is refused as the typed read refuses it: the error names the record, and
# part_errors finds the key at its byte. The reader writes JSON text compact: each key's closing quote and
# its colon meet.
OLD_ARGS = ("CASE WHEN len(list_distinct(json_keys(args))) < len(json_keys(args)) "
            "THEN error('tracedb: an args key written twice in record/value ' || ordinality) "
            "ELSE json_transform(replace(args, '\"external id\":', '\"External id\":'), {spec}) END")

# Time bounds, so that base + ts + dur stays inside BIGINT ns (9.22e18): |ts| <= 4e15 µs (year 2096 in epoch
# µs), dur <= 1e15 µs (ingest_chrome_part.sql), baseTimeNanoseconds <= 4e18 (facts.run_facts). A ts
# beyond them, NaN or infinite becomes NULL, and ingest_chrome_check refuses the file naming the event.
TS_MAX_US = "4e15"
# Below 2^43 µs (101 days) a double's error is under 0.5 ns, so a us.fff number rounds to its exact ns
# (Kineto's relative ts; ROCm traces relative to baseTimeNanoseconds reach 6.5e12 µs). Above it a fraction
# can be lost (epoch µs: a double's step is 0.25 µs there, 1764246877073569.640 reads as ...569.75): such a
# ts is read as DECIMAL.
EXACT_DOUBLE_US = 2 ** 43
INEXACT = "tracedb: a fractional ts beyond 2^43 us"   # the error that makes the loader read ts as DECIMAL
# ts read as DOUBLE: whole µs and the fraction converted apart; integer epoch µs (~1.7e15) are exact in a
# double but ts * 1000 is not (a multiple of 256 ns there).
TS_NUMBER = (f"CASE WHEN abs(ts) <= {TS_MAX_US} THEN CASE WHEN abs(ts) >= {EXACT_DOUBLE_US} AND ts <> trunc(ts) "
             f"THEN error('{INEXACT}') ELSE CAST(trunc(ts) AS BIGINT) * 1000 + "
             "CAST(round((ts - trunc(ts)) * 1000) AS BIGINT) END END")
# ts read as DECIMAL(38,3): DuckDB's reader parses a DECIMAL column from the number's digits, so this is
# exact (digits below 1 ns round, as TS_NUMBER's do). ~25 % more CPU for the reader than DOUBLE.
TS_DECIMAL = f"CASE WHEN abs(ts) <= {TS_MAX_US} THEN CAST(ts * 1000 AS BIGINT) END"
# Ascend's string ts: the exact decimal path of us_text_to_ns (macros.sql).
TS_TEXT = (f"CASE WHEN abs(TRY_CAST(trim(ts, chr(9) || ' \"') AS DECIMAL(38, 9))) <= {TS_MAX_US} "
           "THEN us_text_to_ns(ts) END")
# The reader's type of ts and the expression of ingest_chrome_part's `ts_ns`, by ts_read's answer.
TS_READ = {"string": ("VARCHAR", TS_TEXT), "decimal": ("DECIMAL(38,3)", TS_DECIMAL), "number": ("DOUBLE", TS_NUMBER)}
_FIRST_TS = re.compile(rb'"ts"\s*:\s*("|-?(\d+))')
_NUMBER_TS = re.compile(rb'"ts"\s*:\s*-?(\d+)(\.\d*[1-9])?')


def ts_kind(layout: Layout, config: JsonIngestConfig) -> str:
    """How the events write ts, from the first one: 'string' (Ascend trace_view.json: "1718851234567890.123"),
    'epoch' (a number of absolute µs, older Kineto: 1740461679479712) or 'relative' (Kineto's us.fff from
    baseTimeNanoseconds). Strings take the decimal text path; numbers, see ts_read."""
    m = _FIRST_TS.search(_ts_sample(layout, config))
    if not m:
        return "relative"
    if m.group(1) == b'"':
        return "string"
    return "epoch" if len(m.group(2)) >= 13 else "relative"   # >= 1e12 µs: 11.6 days, no trace is that long


def ts_read(layout: Layout, kind: str, config: JsonIngestConfig, exact: bool = False) -> str:
    """The TS_READ entry the parts use: 'string' for string ts; 'decimal' when `exact` (a part met a
    fraction a double cannot hold) or when a ts at the array's start has one (epoch µs with decimals);
    else 'number', the fast one."""
    if kind == "string":
        return "string"
    if exact or any(int(m.group(1)) >= EXACT_DOUBLE_US and m.group(2)
                    for m in _NUMBER_TS.finditer(_ts_sample(layout, config))):
        return "decimal"
    return "number"


def _ts_sample(layout: Layout, config: JsonIngestConfig) -> bytes:
    with open(layout.path, "rb") as f:
        f.seek(layout.start)
        return f.read(config.ts_sniff)


# The read of one file in ingest_chrome_part, and the parameters it binds for that file.
_ONE_FILE = re.compile(r"SELECT \*, CAST\(\$run_id .*?WITH ORDINALITY", re.S)
_PER_FILE = re.compile(r"\$(file|run_id|base_ns|base_seq)\b")


def more_files(files: int) -> str:
    """ingest_chrome_part's `more_files` for `files` traces read by one statement: the file's own read of its
    first trace, repeated for each further trace k with that trace's parameters ($file_k, $run_id_k,
    $base_ns_k, $base_seq_k), each after UNION ALL. Not one read of a list of files: that numbers its rows
    across the files, and orders them at a cost on several threads (WITH ORDINALITY halved the speed of a
    two-thread read of 32 ranks)."""
    one = _ONE_FILE.search(sql.load("ingest_chrome_part")).group(0)
    return "".join(" UNION ALL " + _PER_FILE.sub(rf"$\1_{k}", one) for k in range(1, files))


def _arg_types(safe: bool, keys) -> dict:
    return {k: "JSON" if safe and ARGS[k] != "VARCHAR" else ARGS[k] for k in keys}


def columns(ts_type: str, safe: bool = False, keys=tuple(ARGS), old: bool = False) -> dict:
    """The reader's schema, with the args `keys`. ts_type: the reader's type of ts (TS_READ). safe: every
    args value as JSON text (any producer's types), cast in SQL. old: the older layout (old_layout), whose
    args are read as JSON text (args_read). dur is text, checked in SQL: the reader turns a boolean into 1
    or 0 for a number column. Ascend's trace_view.json (string ts) also gives the flow id: its
    host-to-device flows link each kernel to the op that launched it."""
    args = ", ".join(f"{sql.ident(k)} {t}" for k, t in _arg_types(safe, keys).items())
    return {"ph": "VARCHAR", "cat": "VARCHAR", "name": "VARCHAR", "pid": "JSON", "tid": "JSON",
            "ts": ts_type, "dur": "VARCHAR", "args": "JSON" if old else f"STRUCT({args})",
            **({"id": "VARCHAR"} if ts_type == "VARCHAR" else {})}


def old_layout(layout: Layout, config: JsonIngestConfig) -> bool:
    """The events are in the PyTorch profiler's older layout (_OLD_LAYOUT), from the first ts_sniff bytes."""
    return _OLD_LAYOUT.search(_ts_sample(layout, config)) is not None


def args_read(old: bool, safe: bool = False, keys=tuple(ARGS)) -> str:
    """ingest_chrome_part's `args`: the reader's struct as it is, or (the older layout) the same struct made
    from the args' JSON text, its "external id" read as "External id" (OLD_ARGS). The struct's keys and
    types are tracedb's own (ARGS), written as a JSON literal: json_transform takes a constant only."""
    if not old:
        return "args"
    spec = json.dumps(_arg_types(safe, keys), separators=(",", ":"))
    return OLD_ARGS.format(spec="'" + spec.replace("'", "''") + "'")


def args_keys(layout: Layout, capture: bool = False, old: bool = False) -> tuple:
    """The args keys to read: all of ARGS, or those a Kineto trace can hold (see NPU_ARGS; COMM_ARGS only with
    distributedInfo); CAPTURE_ARGS only for a graph capture (`capture`); OLD_ONLY_ARGS only for the older
    layout (`old`: old_layout)."""
    kineto = layout.object_form and any(k in layout.metadata for k in KINETO_KEYS)
    single = kineto and "distributedInfo" not in layout.metadata
    return tuple(k for k in ARGS if not (kineto and k in NPU_ARGS) and not (single and k in COMM_ARGS)
                 and (capture or k not in CAPTURE_ARGS) and (old or k not in OLD_ONLY_ARGS))


class ArgExpr:
    """Builds `args.<key>` for the part SQL (ingest_chrome_part): as typed by the reader, or cast from JSON
    text (safe mode); a NULL of the key's type for a key the reader was not asked for."""

    def __init__(self, cast: bool, keys=tuple(ARGS)):
        self.cast, self.keys = cast, keys

    def __getitem__(self, key: str) -> str:
        if key not in self.keys:
            return f"CAST(NULL AS {ARGS[key]})"
        ref = f"args.{sql.ident(key)}"
        return f"TRY_CAST({ref} AS {ARGS[key]})" if self.cast and ARGS[key] != "VARCHAR" else ref

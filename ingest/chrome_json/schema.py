"""What DuckDB's JSON reader is asked for: the columns and their types, the args keys (all, or a Kineto
trace's), how ts is written (number or text), and the SQL that reads each args key."""
import re

from tracedb import sql
from tracedb.ingest.chrome_json.config import JsonIngestConfig
from tracedb.ingest.chrome_json.layout import Layout

ARGS = {  # the args keys tracedb reads (matched case-insensitively: legacy "external id" too), typed so the
        # reader converts them while parsing (casting JSON text afterwards took 1.3 s per 300 MB)
    "correlation": "BIGINT", "External id": "BIGINT", "device": "BIGINT", "stream": "BIGINT",
    "grid": "BIGINT[]", "block": "BIGINT[]", "registers per thread": "BIGINT", "shared memory": "BIGINT",
    "name": "VARCHAR", "sort_index": "BIGINT", "Task Type": "VARCHAR", "Stream Id": "BIGINT", "Task Id": "BIGINT",
    "connection_id": "BIGINT", "taskId": "BIGINT", "extra_id": "BIGINT", "event-hint": "VARCHAR",
}
# Keys only Ascend's trace_view.json and on-device NPU traces write. A Kineto trace (its top-level keys say
# so: KINETO_KEYS) is read without them: every key of the reader's args struct is a child vector filled
# for every event, and these seven cost ~3 % of the insert's instructions (callgrind, 72 MB part).
NPU_ARGS = ("Task Type", "Stream Id", "Task Id", "connection_id", "taskId", "extra_id", "event-hint")
KINETO_KEYS = ("schemaVersion", "deviceProperties", "baseTimeNanoseconds")
# Whole µs and the fraction apart: epoch µs (~1.7e15) are exact in a double but ts * 1000 is not (a multiple
# of 256 ns there); the fraction of Kineto's relative us.fff rounds to its exact ns either way.
TS_NUMBER = "CAST(trunc(ts) AS BIGINT) * 1000 + CAST(round((ts - trunc(ts)) * 1000) AS BIGINT)"
TS_TEXT = "us_text_to_ns(ts)"
_FIRST_TS = re.compile(rb'"ts"\s*:\s*("|-?(\d+))')


def ts_kind(layout: Layout, config: JsonIngestConfig) -> str:
    """How the events write ts, from the first one: 'string' (Ascend trace_view.json: "1718851234567890.123"),
    'epoch' (a number of absolute µs, older Kineto: 1740461679479712) or 'relative' (Kineto's us.fff from
    baseTimeNanoseconds). Numbers of either kind convert exactly with TS_NUMBER; strings take the
    decimal text path."""
    with open(layout.path, "rb") as f:
        f.seek(layout.start)
        head = f.read(config.ts_sniff)
    m = _FIRST_TS.search(head)
    if not m:
        return "relative"
    if m.group(1) == b'"':
        return "string"
    return "epoch" if len(m.group(2)) >= 13 else "relative"   # >= 1e12 µs: 11.6 days, no trace is that long


def columns(ts_text: bool, safe: bool = False, keys=tuple(ARGS)) -> dict:
    """The reader's schema, with the args `keys`. safe: every args value as JSON text (any producer's
    types), cast in SQL. Ascend's trace_view.json (ts_text) also gives the flow id: its host-to-device
    flows link each kernel to the op that launched it."""
    args = ", ".join(f"{sql.ident(k)} {'JSON' if safe and ARGS[k] != 'VARCHAR' else ARGS[k]}" for k in keys)
    return {"ph": "VARCHAR", "cat": "VARCHAR", "name": "VARCHAR", "pid": "JSON", "tid": "JSON",
            "ts": "VARCHAR" if ts_text else "DOUBLE", "dur": "DOUBLE", "args": f"STRUCT({args})",
            **({"id": "VARCHAR"} if ts_text else {})}


def args_keys(layout: Layout) -> tuple:
    """The args keys to read: all of ARGS, or those a Kineto trace can hold (see NPU_ARGS)."""
    kineto = layout.object_form and any(k in layout.metadata for k in KINETO_KEYS)
    return tuple(k for k in ARGS if not (kineto and k in NPU_ARGS))


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

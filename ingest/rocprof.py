"""rocprofv3 JSON (`rocprofv3 --output-format json`, the rocprofiler-sdk-tool's results file) -> kernels_raw.

The file is one JSON object `{"rocprofiler-sdk-tool": [{metadata, agents, kernel_symbols, buffer_records,
...}]}`. Kernel dispatches (`buffer_records.kernel_dispatch`) and memory copies (`buffer_records.memory_copy`)
become device rows with exact integer ns; kernel names come from `kernel_symbols`, GPU names from `agents`.
One run per GPU agent: `tracedb ingest FILE` plans one run per GPU (engine/loading/folder.py), each a Source
with `agent` set to the GPU's index; a Source without one (the Python API on a file) loads every GPU into
one run, told apart by device_id.

The document is read by DuckDB's JSON reader with an explicit schema (sql/ingest/ingest_rocprof_read.sql),
which holds the whole document in memory at once: MAX_DOC_BYTES bounds it (docs/formats.md)."""
import json
import os
import re
import zlib

import duckdb

from tracedb import sql
from tracedb.errors import InputError
from tracedb.ingest import capped_read, formats, sniff

FORMAT = "rocprof-json"
KEY = b'"rocprofiler-sdk-tool"'
# DuckDB's reader holds the whole document (and its parsed form: ~8x the 37 MB of the test capture at
# peak; 2 GiB would need ~16 GB). The reader takes at most 4 GiB - 1 (a UINTEGER). Beyond this the ingest is
# refused in one line.
MAX_DOC_BYTES = 2 << 30
# The latest time taken, in ns: 158 years of a boot-relative clock (real captures: ~6e13). Times past it would
# overflow the reports' BIGINT sums of start and duration, or round past 2^63 as DOUBLE.
MAX_NS = 5 * 10**18
AGENTS_HEAD = 4 << 20       # `agents` comes second in the document (after `metadata`), within its first KBs
_OPENING = re.compile(rb'^\{\s*"rocprofiler-sdk-tool"\s*:')


def is_rocprof(head: bytes) -> bool:
    """The first bytes of a document (inflated, leading blanks stripped) open rocprofv3's JSON object."""
    return bool(_OPENING.match(head))


def busy_gpus(path: str) -> list[int]:
    """The indexes of the GPU agents that ran something in a rocprofv3 file: each process's file lists every
    GPU of the node, and usually dispatches to one (the 8-GPU capture of the tests uses GPU 0 only). The
    `agents` list near the start gives each GPU's handle and index; one pass over the (inflated) bytes
    collects the handles that kernel dispatches name (`"agent_id": {"handle": N}`; memory copies name a
    `dst_agent_id` / `src_agent_id` and stay with the GPU of the run they go to). Empty when the agents are
    not found near the start: the ingest then loads every GPU into one run."""
    gpus = gpu_agents(path)
    if not gpus:
        return []
    seen, tail, read = set(), b"", 0
    # a .gz inflates at most to capped_read's cap (a 2 MB bomb of blanks: 2.2 GB read here before): the
    # ingest refuses the rest with its own line
    cap = min(MAX_DOC_BYTES, capped_read.gzip_cap(os.path.getsize(path))) if sniff.is_gzip(path) else None
    try:
        with _open_inflated(path) as f:
            while cap is None or read < cap:
                chunk = f.read(1 << 22)
                if not chunk:
                    break
                read += len(chunk)
                buf = tail + chunk
                seen.update(int(m.group(1)) for m in _AGENT_ID.finditer(buf))
                tail = buf[-64:]
    except (OSError, EOFError, zlib.error, InputError):
        return []           # a corrupt or cut file: the ingest refuses it with its own line
    return [idx for idx, handle in gpus if handle in seen]


_AGENT_ID = re.compile(rb'"agent_id"\s*:\s*\{\s*"handle"\s*:\s*(\d+)')


def _open_inflated(path: str):
    import gzip
    f = sniff.open_regular(path)
    if f.read(2) == b"\x1f\x8b":
        f.seek(0)
        return gzip.GzipFile(fileobj=f)
    f.seek(0)
    return f


def gpu_agents(path: str) -> list[tuple[int, int]]:
    """(GPU index, agent handle) of the GPU agents (type 2) of a rocprofv3 file, from the `agents` list near
    its start (empty when that list is not within AGENTS_HEAD bytes)."""
    head = sniff.head(path, AGENTS_HEAD).decode("utf-8", "replace")
    m = re.search(r'"agents"\s*:\s*', head)
    if not m:
        return []
    try:
        agents, _ = json.JSONDecoder().raw_decode(head, m.end())
    except ValueError:
        return []
    if not isinstance(agents, list):
        return []
    gpus = [a for a in agents if isinstance(a, dict) and a.get("type") == 2]
    out = []
    for i, a in enumerate(sorted(gpus, key=lambda a: _int(a.get("node_id"), 0))):
        handle = a.get("id", {}).get("handle") if isinstance(a.get("id"), dict) else None
        out.append((_int(a.get("logical_node_type_id"), i), handle))
    return out


def _int(v, default):
    return v if isinstance(v, int) and not isinstance(v, bool) else default


def load(con, run_id: int, path: str, agent: int | None) -> dict:
    """The device rows of the run (GPU `agent`, or every GPU when None) into kernels_raw, in file order
    (seq and duplicates are ingest_finish's). Returns run facts: device_name, rank, inflated_bytes,
    clock_domain. Every refusal is one line naming the file."""
    gz = sniff.is_gzip(path)
    if not gz and os.path.getsize(path) > MAX_DOC_BYTES:
        raise _too_big(path)
    # a .gz is read whole, as far as it may inflate (capped_read.gzip_cap)
    cap = min(MAX_DOC_BYTES, capped_read.gzip_cap(os.path.getsize(path))) if gz else MAX_DOC_BYTES
    try:
        sql.run(con, "ingest_rocprof_read", {"path": path, "max_bytes": cap, "compression": "gzip" if gz else "none"})
    except duckdb.Error as e:
        if gz and cap < MAX_DOC_BYTES and "maximum_object_size\" of" in str(e):
            raise InputError(capped_read.gzip_refusal(path, os.path.getsize(path))) from None
        raise _read_error(path, e) from None
    _check_shape(con, path)
    bad = sql.run(con, "ingest_rocprof_check", {"max_ns": MAX_NS}).fetchone()
    if bad:
        tool, records, idx, problem = bad
        where = f"rocprofiler-sdk-tool[{tool - 1}]." if tool > 1 else ""
        expected = (f"integer ns from 0 to {MAX_NS:.0e}, start_timestamp <= end_timestamp".replace("e+", "e")
                    if "timestamp" in problem or problem == "is null"
                    else "every dispatch's kernel_id in kernel_symbols and its agent_id among the GPU agents")
        raise InputError(f"{path}: {where}buffer_records.{records}[{idx}] {problem}; expected {expected}")
    gpus = sql.run(con, "ingest_rocprof_gpus").fetchall()
    if agent is not None and agent not in [g[0] for g in gpus]:
        raise InputError(f"{path}: no GPU agent {agent}; the file lists GPU agents "
                         f"{', '.join(str(g[0]) for g in gpus) or 'none'}")
    names = sorted({g[1] for g in gpus if (agent is None or g[0] == agent) and g[1]})
    sql.run(con, "ingest_rocprof_insert", {"run_id": run_id, "device": agent})
    if agent is not None and not sql.run(con, "ingest_rocprof_kernel_rows", {"r": run_id}).fetchone()[0]:
        raise InputError(f"{path}: GPU agent {agent} has no kernel dispatch or memory copy; the other GPUs' runs "
                         "are ingested on their own")
    return {"device_name": ", ".join(names) or None, "rank": agent, "device_kind": "gpu",
            "clock_domain": "monotonic", "inflated_bytes": None}


def _check_shape(con, path):
    """The document's shape: at least one tool entry with agents, kernel_symbols and kernel dispatches."""
    n, agents, symbols, dispatch, buffers = sql.run(con, "ingest_rocprof_shape").fetchone()
    expected = ("expected rocprofv3's --output-format json results: {\"rocprofiler-sdk-tool\": [{agents, "
                "kernel_symbols, buffer_records: {kernel_dispatch: [...]}}]}")
    if n == 0:
        raise InputError(f"{path}: rocprofiler-sdk-tool is empty or missing; {expected}")
    missing = [k for k, c in (("agents", agents), ("kernel_symbols", symbols), ("buffer_records", buffers)) if c < n]
    if missing:
        raise InputError(f"{path}: no {' or '.join(missing)} in rocprofiler-sdk-tool; {expected}")
    if not dispatch:
        raise InputError(f"{path}: no kernel_dispatch records (buffer_records.kernel_dispatch is empty or missing); "
                         "expected a capture with kernel tracing: rocprofv3 --kernel-trace --output-format json")


def _too_big(path):
    return InputError(f"{path}: a rocprofv3 JSON document larger than {MAX_DOC_BYTES / (1 << 30):g} GiB; tracedb reads "
                      "it whole: record a shorter capture, or use rocprofv3's CSV or rocpd output "
                      "(--output-format csv|rocpd)")


def _read_error(path: str, e: duckdb.Error) -> InputError:
    """DuckDB's reader error as one line naming the file: too large, not JSON, or a value of another type."""
    msg = str(e).strip().splitlines()[0]
    if "maximum_object_size\" of" in msg:
        return _too_big(path)
    if isinstance(e, duckdb.ConversionException) or any(s in msg for s in ("Could not convert", "Failed to cast",
                                                                          "transform error")):
        return InputError(f"{path}: a field of another type than rocprofv3 writes ({_short(msg)}); expected "
                          "integer timestamps, ids and sizes, and text names")
    return InputError(f"{path}: cannot read the rocprofv3 JSON document ({_short(msg)}); expected one JSON "
                      "object {\"rocprofiler-sdk-tool\": [...]}")


def _short(msg: str) -> str:
    msg = re.sub(r"^[A-Za-z ]*Error: ", "", msg)
    return msg if len(msg) <= 200 else msg[:197] + "..."


def _recognise(probe) -> bool:
    return probe.kind in ("gzip", "json") and is_rocprof(probe.head(256))


def _found(probe) -> bool:
    return probe.check_json_named() and is_rocprof(probe.head(256))


def read(con, run_id: int, src, options) -> dict:
    return load(con, run_id, src.files[0], src.agent)


READER = formats.Reader(
    name=FORMAT, order=10, recognise=_recognise, found=_found, suffixes=(".json", ".json.gz"), read=read,
    devices=busy_gpus, rank_in_path=False, recognised="a JSON object (plain or gzip) opening with "
    "`\"rocprofiler-sdk-tool\"`", sql=("ingest_rocprof_read", "ingest_rocprof_check", "ingest_rocprof_insert",
                                     "ingest_rocprof_gpus", "ingest_rocprof_kernel_rows", "ingest_rocprof_shape"),
    docs=(formats.Doc("rocprofv3 JSON (`rocprofv3 --output-format json`), `.json` or `.json.gz`", "`rocprof-json`",
                      "`kernels_raw` (one run per GPU)"),))

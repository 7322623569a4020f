"""The Ascend profiler's communication analyses of one rank, and its parallel groups.

torch_npu's analysis writes, beside kernel_details.csv in ASCEND_PROFILER_OUTPUT/, `communication.json` (per
step, per communication op: start, elapse, transit, wait, synchronisation and idle time, and the bytes,
time and bandwidth per link type) and `communication_matrix.json` (per op group, per src-dst link: transport,
size, time, bandwidth): the Ascend PyTorch Profiler user guide
(https://github.com/Ascend/pytorch/blob/v2.7.1-26.1.0/docs/en/ascend_pytorch_profiler/ascend_pytorch_profiler_user_guide.md)
and msprof-analyze's cluster analysis, which reads them
(https://gitcode.com/ascend/msprof-analyze/blob/master/docs/en/user_guide/cluster_analyse_instruct.md).
Megatron's profiler_metadata.json beside profiler_info_<rank>.json carries the rank's parallel groups
(parallel_group_info: key -> group_name, group_rank, global_ranks) and distributed_args (rank, world_size).

Numbers are read as exact decimals (json's parse_float=Decimal) and turned into integer ns here, never
through a float: a Start Timestamp(us) of 1764246877147674.5 is 1,764,246,877,147,674,500 ns exactly."""
import json
import os
from decimal import Decimal, InvalidOperation

from tracedb import sql
from tracedb.errors import InputError
from tracedb.ingest.capped_read import capped_bytes
from tracedb.ingest import ascend_step_trace, formats

FORMAT = "ascend-comm"   # a rank folder with communication analyses only (no kernel_details.csv): a run of no kernels
FILES = ("communication.json", "communication_matrix.json")
METADATA = "profiler_metadata.json"
# A 64-rank job's communication.json holds a few MB per step (measured: 17-26 KB for 12-20 ops of one step);
# 256 MiB leaves room for long captures and still refuses a file that is not one.
MAX_BYTES = 256 << 20
TIME_KEYS = {"elapse_ns": "Elapse Time(ms)", "transit_ns": "Transit Time(ms)", "wait_ns": "Wait Time(ms)",
             "sync_ns": "Synchronization Time(ms)", "idle_ns": "Idle Time(ms)"}
NS_PER_MS, NS_PER_US, BYTES_PER_MB = Decimal(1_000_000), Decimal(1000), Decimal(1_000_000)
INT64_MAX = 2 ** 63 - 1
# distributed_args' parallel sizes (Megatron / MindSpeed write them into profiler_metadata.json)
PARALLEL_SIZES = ("tensor_model_parallel_size", "pipeline_model_parallel_size", "data_parallel_size",
                  "context_parallel_size", "expert_model_parallel_size")


def files_in(out_dir: str) -> list[str]:
    """The communication analyses present in an ASCEND_PROFILER_OUTPUT folder, in FILES order."""
    return [os.path.join(out_dir, f) for f in FILES if os.path.isfile(os.path.join(out_dir, f))]


def read(path: str):
    """A JSON analysis file, numbers with a fraction as Decimal; one-line errors."""
    data = capped_bytes(path, MAX_BYTES, f"the Ascend profiler's {os.path.basename(path)}")
    try:
        return json.loads(data.decode("utf-8-sig"), parse_float=Decimal)
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: byte offset {e.start}: invalid UTF-8; expected a JSON text file") from None
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: line {e.lineno} column {e.colno}: not valid JSON ({e.msg}); expected the Ascend "
                         f"profiler's {os.path.basename(path)}") from None
    except (RecursionError, ValueError):
        raise InputError(f"{path}: nested too deep or a number too long to read; expected the Ascend profiler's "
                         f"{os.path.basename(path)}") from None


def metadata(pt_root: str) -> dict:
    """profiler_metadata.json of a *_ascend_pt folder: {rank, world_size, distributed_args (the parallel sizes),
    groups}; {} when absent."""
    path = os.path.join(pt_root, METADATA)
    if not os.path.isfile(path):
        return {}
    doc = read(path)
    if not isinstance(doc, dict):
        raise InputError(f"{path}: not a JSON object; expected torch_npu's profiler_metadata.json")
    out = {}
    dist = doc.get("distributed_args")
    if isinstance(dist, dict):
        for key in ("rank", "world_size"):
            if dist.get(key) is not None:
                out[key] = _int(path, f"distributed_args.{key}", dist[key])
        # the parallel sizes, kept in runs.metadata: a rank without a pipeline group in parallel_group_info
        # still says how many stages its job has (pipeline_stage.sql); a size that is no integer is left out,
        # not refused: the kernels do not depend on it
        sizes = {key: int(dist[key]) for key in PARALLEL_SIZES if not isinstance(dist.get(key), bool)
                 and isinstance(dist.get(key), (int, str)) and str(dist[key]).isdecimal()
                 and 0 < int(dist[key]) <= 2 ** 31 - 1}
        if sizes:
            out["distributed_args"] = sizes
    info = doc.get("parallel_group_info")
    if info is not None:
        if not isinstance(info, dict):
            raise InputError(f"{path}: parallel_group_info is not an object; expected group key -> {{group_name, "
                             "group_rank, global_ranks}")
        out["groups"] = [_group(path, key, g) for key, g in info.items()]
    return out


def _group(path: str, key: str, g) -> dict:
    where = f"parallel_group_info.{key}"
    if not isinstance(g, dict):
        raise InputError(f"{path}: {where} is not an object; expected {{group_name, group_rank, global_ranks}}")
    ranks = g.get("global_ranks") or []
    if not isinstance(ranks, list):
        raise InputError(f"{path}: {where}.global_ranks is not a list; expected the group's global ranks")
    ranks = [_int(path, f"{where}.global_ranks", r) for r in ranks]
    rank_in = g.get("group_rank")
    return {"name": str(key)[:1024], "desc": None if g.get("group_name") is None else str(g["group_name"])[:1024],
            "backend": None, "size": len(ranks) or None, "ranks": ranks,
            "group_rank": None if rank_in is None else _int(path, f"{where}.group_rank", rank_in)}


def _int(path: str, what: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, str)) or not str(value).isdecimal() \
            or int(value) > 2 ** 31 - 1:
        raise InputError(f"{path}: {what} is {json.dumps(value, default=str)[:40]}; expected an integer from 0 to "
                         f"{2 ** 31 - 1:,}")
    return int(value)


def insert_groups(con, runs: list[tuple[int, list[dict]]]):
    """The parallel groups of runs ((run_id, groups) pairs) into run_groups, by one statement
    (ingest_comm_groups.sql)."""
    rows = [(run_id, g) for run_id, groups in runs for g in groups or ()]
    if not rows:
        return
    sql.run(con, "ingest_comm_groups", {
        "run_ids": [r for r, _ in rows], "names": [g["name"] for _, g in rows], "descs": [g["desc"] for _, g in rows],
        "backends": [g["backend"] for _, g in rows], "sizes": [g["size"] for _, g in rows],
        "ranks": [g["ranks"] for _, g in rows], "group_ranks": [g["group_rank"] for _, g in rows]})


def load(con, run_id: int, paths: list[str]):
    """Rows of communication.json and communication_matrix.json (whichever `paths` holds) into comm_ops,
    comm_links and comm_matrix as run `run_id`; and the profiler's step_trace_time.csv beside them, its other
    per-rank analysis, into step_times (ingest/ascend_step_trace.py)."""
    for path in paths:
        if os.path.basename(path) == ascend_step_trace.NAME:
            ascend_step_trace.load(con, run_id, path)
            continue
        doc = read(path)
        if not isinstance(doc, dict):
            raise InputError(f"{path}: not a JSON object; expected step -> collective/p2p -> op")
        if os.path.basename(path) == FILES[0]:
            ops, links = _ops(path, doc)
            _insert(con, "ingest_comm_ops", run_id, ops)
            _insert(con, "ingest_comm_links", run_id, links)
        else:
            _insert(con, "ingest_comm_matrix", run_id, _matrix(path, doc))


def _insert(con, file: str, run_id: int, rows: list[dict]):
    if rows:
        sql.run(con, file, {"run_id": run_id, **{k: [r[k] for r in rows] for k in rows[0]}})


def _levels(path: str, doc: dict):
    """(step, op class, key, value) of every op: step -> 'collective' | 'p2p' -> op key -> object."""
    for step, classes in doc.items():
        if not isinstance(classes, dict):
            raise InputError(f"{path}: {step} is not an object; expected 'collective' and 'p2p' op lists")
        for op_class, ops in classes.items():
            if not isinstance(ops, dict):
                raise InputError(f"{path}: {step}.{op_class} is not an object; expected op name -> figures")
            for key, value in ops.items():
                if not isinstance(value, dict):
                    raise InputError(f"{path}: {step}.{op_class}.{key} is not an object; expected its figures")
                yield str(step), str(op_class), str(key), value


def _split(key: str) -> tuple[str, str | None]:
    name, sep, group = key.rpartition("@")
    return (name, group) if sep else (key, None)


def _ops(path: str, doc: dict):
    ops, links = [], []
    for step, op_class, key, value in _levels(path, doc):
        name, group = _split(key)
        where = f"{step}.{op_class}.{key}"
        t = value.get("Communication Time Info") or {}
        start = t.get("Start Timestamp(us)")
        ops.append({"steps": step, "classes": op_class, "names": name, "groups": group,
                    "starts": None if start in (None, 0) else _ns(path, where, start, NS_PER_US),
                    **{k + "s": _ns(path, where, t.get(src), NS_PER_MS) for k, src in TIME_KEYS.items()},
                    "wait_ratios": _num(t.get("Wait Time Ratio")),
                    "sync_ratios": _num(t.get("Synchronization Time Ratio"))})
        for transport, b in (value.get("Communication Bandwidth Info") or {}).items():
            if not isinstance(b, dict):
                continue
            size, time = _ns(path, where, b.get("Transit Size(MB)"), BYTES_PER_MB), \
                _ns(path, where, b.get("Transit Time(ms)"), NS_PER_MS)
            if not size and not time:
                continue
            links.append({"steps": step, "classes": op_class, "names": name, "groups": group, "transports": transport,
                          "sizes": size, "times": time, "bandwidths": _num(b.get("Bandwidth(GB/s)")),
                          "large_ratios": _num(b.get("Large Packet Ratio"))})
    return ops, links


def _matrix(path: str, doc: dict):
    rows = []
    for step, op_class, key, links in _levels(path, doc):
        op, group = _split(key)
        for pair, v in links.items():
            src, sep, dst = str(pair).partition("-")
            if not sep or not src.isdecimal() or not dst.isdecimal() or not isinstance(v, dict):
                raise InputError(f"{path}: {step}.{op_class}.{key}.{pair}: expected a 'src-dst' rank pair with its "
                                 "figures")
            where = f"{step}.{op_class}.{key}.{pair}"
            rows.append({"steps": step, "classes": op_class, "ops": op, "groups": group, "srcs": int(src),
                         "dsts": int(dst), "transports": v.get("Transport Type"),
                         "sizes": _ns(path, where, v.get("Transit Size(MB)"), BYTES_PER_MB),
                         "times": _ns(path, where, v.get("Transit Time(ms)"), NS_PER_MS),
                         "bandwidths": _num(v.get("Bandwidth(GB/s)")), "op_names": v.get("Op Name")})
    return rows


def _ns(path: str, where: str, value, scale: Decimal) -> int | None:
    """A number of ms (µs, MB) as an integer count of ns (bytes), rounded half to even; None when absent."""
    if value is None:
        return None
    try:
        if isinstance(value, bool):
            raise InvalidOperation
        out = int((Decimal(value) * scale).to_integral_value())
    except (InvalidOperation, ValueError, TypeError):
        raise InputError(f"{path}: {where}: {json.dumps(value, default=str)[:40]} is not a number; expected a "
                         "time or size") from None
    if abs(out) > INT64_MAX:
        raise InputError(f"{path}: {where}: {value} is out of range; expected a time or size")
    return out


def _num(value) -> float | None:
    """A ratio or bandwidth, shown as the profiler computed it (DOUBLE)."""
    try:
        return None if value is None or isinstance(value, bool) else float(value)
    except (TypeError, ValueError):
        return None


READER = formats.Reader(
    # never a file of its own: a rank folder of communication analyses only (ingest/ascend_folder.py)
    name=FORMAT, order=95, recognise=lambda probe: False, read=lambda con, run_id, src, options: {},
    device_kind="npu", clock_domain="unix-epoch-local", kernels_required=False,
    recognised="a profiler folder with `communication*.json` and no kernel file",
    sql=("ingest_comm_groups", "ingest_comm_ops", "ingest_comm_links", "ingest_comm_matrix", "ingest_step_times"),
    docs=(formats.Doc("A rank folder holding only communication analyses (`communication.json`, "
                      "`communication_matrix.json`)", "`ascend-comm`", "no kernel rows; collectives in `comm_ops`"),))

"""What a trace says of its job before it is parsed (its rank, world size, job id and capture window), read
cheaply: a file's head, an Ascend folder's small JSON side files, never the events. engine/loading/job_tags.py
groups the traces of a folder into jobs by these facts."""
import glob
import os
from dataclasses import dataclass

from tracedb.errors import InputError, TracedbError
from tracedb.ingest import ascend_comm, ascend_info, formats, sources
from tracedb.ingest.run_source import rank_from_path

# Keys of a job's identity, looked up at the top of profiler_metadata.json (what torch_npu's add_metadata writes)
# and in its ENV_VARIABLES, in this order; the first present is the trace's job id. MASTER_ADDR:MASTER_PORT names
# the rendezvous every rank of one launch shares.
JOB_ID_KEYS = ("TORCHELASTIC_RUN_ID", "SLURM_JOB_ID", "JOB_ID", "job_id")

@dataclass(frozen=True)
class Facts:
    """What a trace says of its job before it is parsed."""
    rank: int | None = None
    world_size: int | None = None
    job_id: str | None = None                  # a job id or master address the trace records
    window: tuple[int, int] | None = None      # capture window, epoch ns, when known before parsing


def trace_facts(path: str, src=None) -> Facts:
    """A trace's rank, world size, job id and (Ascend) capture window from its head or its side files: a Kineto
    file's keys before the event array, an Ascend folder's profiler_info / profiler_metadata.json. The rank of a
    path (`rank_0_ascend_pt`, `rank3.json`) comes first for a file, as the run's name takes it. `src`: what the
    path resolved to, when the caller resolved it (a folder's is not resolved again)."""
    if not os.path.isdir(path):
        rank = rank_from_path(path)
        head = formats.head_facts(path)
        return Facts(rank if rank is not None else head.get("rank"), head.get("world_size"))
    if src is None:
        try:
            src = sources.resolve(path)
        except TracedbError:         # the ingest says why, in one line
            return Facts(rank_from_path(path))
    pt_root = path.rstrip(os.sep)
    if os.path.basename(pt_root) == "ASCEND_PROFILER_OUTPUT":
        pt_root = os.path.dirname(pt_root)
    return Facts(src.rank, src.world_size, _ascend_job_id(pt_root), _ascend_window(pt_root))


def _ascend_window(pt_root: str) -> tuple[int, int] | None:
    """profiler_info's collection window in epoch ns: end_info.collectionTimeEnd, back by the monotonic time the
    collection took (start_info.start_monotonic to end_info.MonotonicTimeEnd); start_info.collectionTimeBegin
    where torch_npu writes it. None when absent or not numbers (the ingest itself judges the file)."""
    files = sorted(glob.glob(os.path.join(glob.escape(pt_root), "profiler_info*.json")))
    try:
        info = ascend_info.read_side_json(files[0]) if files else None
    except (InputError, OSError):
        return None
    if not isinstance(info, dict):
        return None
    start, end = info.get("start_info"), info.get("end_info")
    if not isinstance(start, dict) or not isinstance(end, dict):
        return None
    stop = _int(end.get("collectionTimeEnd"))
    begin = _int(start.get("collectionTimeBegin"))
    mono0, mono1 = _int(start.get("start_monotonic")), _int(end.get("MonotonicTimeEnd"))
    if begin is None and None not in (stop, mono0, mono1) and mono1 >= mono0:
        begin = stop - (mono1 - mono0)
    return (begin, stop) if begin is not None and stop is not None and 0 < begin <= stop else None


def _ascend_job_id(pt_root: str) -> str | None:
    """The job identity profiler_metadata.json records, when it records one (JOB_ID_KEYS, else MASTER_ADDR with
    MASTER_PORT), at its top level or in ENV_VARIABLES; None otherwise."""
    path = os.path.join(pt_root, ascend_comm.METADATA)
    if not os.path.isfile(path):
        return None
    try:
        doc = ascend_comm.read(path)
    except (InputError, OSError):
        return None
    if not isinstance(doc, dict):
        return None
    env = doc.get("ENV_VARIABLES") if isinstance(doc.get("ENV_VARIABLES"), dict) else {}
    value = lambda key: next((str(d[key]) for d in (doc, env) if d.get(key) not in (None, "")), None)  # noqa: E731
    for key in JOB_ID_KEYS:
        if value(key) is not None:
            return f"{key}={value(key)}"
    addr = value("MASTER_ADDR")
    return f"MASTER_ADDR={addr}:{value('MASTER_PORT') or ''}" if addr else None


def _int(v) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None

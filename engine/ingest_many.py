"""Several traces in one command: `tracedb ingest DIR` where DIR holds one profiler output or trace file
per rank (or per run). Each trace becomes its own run in its own transaction, so one that fails leaves
the others in. A path that is a file or a single profiler output stays one run, named as before."""
import os
from collections import Counter
from dataclasses import dataclass

from tracedb.engine.ingest import IngestResult, ingest_file
from tracedb.errors import TracedbError, UsageError
from tracedb.ingest import rocprof, sniff, sources


@dataclass
class Planned:
    path: str
    name: str | None      # None: the trace's own default name (a single trace without --name)
    bytes: int            # size on disk, for progress
    agent: int | None = None   # a rocprofv3 file of several GPUs: the GPU this run holds


def plan(paths, name: str | None = None) -> list[Planned]:
    """What `tracedb ingest PATH...` will load, one entry per run. The traces of a folder are named
    `<prefix>-rank<N>` (rank from profiler_info, the path, or the trace's distributedInfo), else
    `<prefix>-<file stem>`; the prefix is `name` or the folder's name. Labels that two traces share get
    the trace's sub-folders in front (`<prefix>-h100-<stem>`). A rocprofv3 file whose kernels ran on several
    GPUs gives one run per GPU, `<its name>-gpu<N>` (N: the GPU's index)."""
    if name and len(paths) > 1:
        raise UsageError("--name names one run (or prefixes the runs of one folder); give one path, or omit "
                         "--name to name runs after their files")
    out = []
    for p in paths:
        found = sources.expand(p)
        if found in ([p], []):        # a file, one profiler output, or nothing recognisable (resolve says why)
            out += _per_gpu(Planned(p, name, _size(p)))
            continue
        prefix = name or os.path.basename(os.path.abspath(p))
        out += [g for f, label in zip(found, _labels(p, found))
                for g in _per_gpu(Planned(f, f"{prefix}-{label}", _size(f)))]
    return out


def _per_gpu(item: Planned) -> list[Planned]:
    """A rocprofv3 file of several GPU agents as one planned run per GPU; anything else as it is."""
    if not os.path.isfile(item.path) or not rocprof.is_rocprof(sniff.head(item.path, 256)):
        return [item]
    gpus = rocprof.busy_gpus(item.path)
    if len(gpus) < 2:    # one GPU ran kernels: one run, named as any trace, on that GPU (its rank)
        return [Planned(item.path, item.name, item.bytes, agent=gpus[0] if gpus else None)]
    base = item.name or sources.trace_stem(item.path)
    return [Planned(item.path, f"{base}-gpu{idx}", item.bytes, agent=idx) for idx in gpus]


def ingest_all(store_path, planned: list[Planned], on_start=None, **kw):
    """Ingest each planned trace into the store at `store_path` (options as ingest_file); yields (planned, IngestResult) or
    (planned, TracedbError) when that trace failed, and goes on with the next. `on_start(i, planned)`
    is called before each."""
    for i, item in enumerate(planned):
        if on_start:
            on_start(i, item)
        try:
            agent = {"agent": item.agent} if item.agent is not None else {}
            res: IngestResult | TracedbError = ingest_file(store_path, item.path, name=item.name, **agent, **kw)
        except TracedbError as e:
            res = e
        yield item, res


def _labels(root: str, found: list[str]) -> list[str]:
    labels = []
    for f in found:
        rank = sources.trace_rank(f)
        labels.append(f"rank{rank}" if rank is not None else sources.trace_stem(f))
    clash = Counter(labels)
    for i, f in enumerate(found):
        if clash[labels[i]] > 1:
            sub = os.path.relpath(os.path.dirname(os.path.abspath(f)), os.path.abspath(root))
            if sub != os.curdir:
                labels[i] = "-".join(sub.split(os.sep) + [labels[i]])
    left, seen = Counter(labels), Counter()
    for i, label in enumerate(labels):     # still equal (same folder): number them in path order
        seen[label] += 1
        if left[label] > 1:
            labels[i] = f"{label}-{seen[label]}"
    return labels


def _size(path: str) -> int:
    """Bytes ingest will read (0 when the path cannot be resolved: ingest will say why)."""
    try:
        return sum(os.path.getsize(f) for f in sources.resolve(path).files)
    except (TracedbError, OSError):
        return 0

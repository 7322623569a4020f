"""What a path names: a trace file, or a profiler output folder expanded to the files it holds; and,
for a folder of several profiler outputs or trace files (one per rank), the traces it holds.

The format is taken from the content (magic bytes, the first JSON byte, the CSV header), not from the file
name: the reader registry (ingest/formats.py) tells which reader reads a file, and an Ascend profiler
folder is laid out by ingest/ascend_folder.py. What is not a regular file (a named pipe, `<(cat trace.json)`,
a device, a socket) is refused from its `stat`, before it is opened: reading it would block, or consume the
stream a second read needs."""
import os

from tracedb.errors import InputError
from tracedb.ingest import ascend_folder, ascend_layout, formats, sniff
from tracedb.ingest.run_source import Source, rank_from_path

__all__ = ["Source", "rank_from_path", "resolve", "expand", "is_profiler_output", "trace_rank", "trace_world_size",
           "trace_stem"]


def resolve(path: str, reader: str | None = None) -> Source:
    """The run a path names. `reader`: the registered reader's name when the caller already identified the
    file (a planned run of a folder ingest), so that it is not sniffed again."""
    if not os.path.exists(path):
        dangling = os.path.islink(path)
        raise InputError(f"{path}: {'a symbolic link to a missing file' if dangling else 'no such file or folder'}")
    if os.path.isdir(path):
        return ascend_folder.resolve(path)
    alt = formats.exported(path)
    if alt:                 # a report read through its export (`.nsys-rep`), named as the report
        src = resolve(alt)
        src.path = path
        return src
    r = formats.by_name(reader) if reader else formats.identify(path)
    fields = {"format": r.name, "files": [path], **(r.source(path) if r.source else {})}
    return Source(path=path, reader=r.name, rank=rank_from_path(path) if r.rank_in_path else None,
                  device_kind=r.device_kind, clock_domain=r.clock_domain, **fields)


def expand(path: str) -> list[str]:
    """The traces a path holds, one run each: the path itself when it is a file or one profiler output
    (a run as ever), else every profiler output folder, Chrome trace JSON (`.json`, `.json.gz`) and
    Ascend CSV found under it, in path order. A profiler output is not searched further (its
    trace_view.json belongs to it). Empty when the folder holds none."""
    if not os.path.isdir(path) or is_profiler_output(path):
        return [path]
    found = []
    for root, dirs, files in os.walk(path, onerror=_walk_error):
        dirs.sort()
        for d in list(dirs):
            if d.startswith(".") or is_profiler_output(os.path.join(root, d)):
                dirs.remove(d)
                if not d.startswith("."):
                    found.append(os.path.join(root, d))
        found += [os.path.join(root, f) for f in sorted(files) if formats.in_folder(os.path.join(root, f))]
    return sorted(found)


def is_profiler_output(path: str) -> bool:
    """A torch_npu `*_ascend_pt` folder, its ASCEND_PROFILER_OUTPUT, or an msprof output (op_summary files)."""
    return ascend_layout.is_profiler_output(path)


def _walk_error(e: OSError):
    """A sub-folder that cannot be listed would silently hold no traces."""
    raise InputError(f"{e.filename}: cannot read the folder: {e.strerror}; expected a readable folder of traces")


def trace_rank(path: str) -> int | None:
    """The rank a trace belongs to, without ingesting it: profiler_info of an Ascend output, a `rankN`
    in the path, or a Chrome trace's distributedInfo (written before its events)."""
    if os.path.isdir(path):
        try:
            return resolve(path).rank
        except InputError:
            return rank_from_path(path)
    rank = rank_from_path(path)
    return formats.head_facts(path).get("rank") if rank is None else rank


def trace_world_size(path: str) -> int | None:
    """The world size of the job a trace belongs to, without ingesting it: an Ascend output's
    profiler_metadata.json, a Chrome trace's distributedInfo; None when the trace does not say."""
    if not os.path.isdir(path):
        return formats.head_facts(path).get("world_size")
    try:
        return resolve(path).world_size
    except InputError:
        return None


def trace_stem(path: str) -> str:
    """A short name for a trace of a folder: the file name without .json/.gz/.csv and Kineto's .pt.trace."""
    return sniff.file_stem(path)

"""Several traces in one command: `tracedb ingest DIR` where DIR holds one profiler output or trace file
per rank (or per run). Each trace becomes its own run in its own transaction, so one that fails leaves
the others in. A path that is a file or a single profiler output stays one run, named as before."""
import dataclasses
import os
import stat
from collections import Counter
from dataclasses import dataclass

from tracedb.engine.loading import captures, job_facts
from tracedb.engine.loading.unread import names_list
from tracedb.engine.loading.results import IngestResult
from tracedb.engine.loading.single import ingest_file
from tracedb.errors import InputError, TracedbError, UsageError
from tracedb.ingest import formats, sources


@dataclass
class Planned:
    path: str
    name: str | None      # None: the trace's own default name (a single trace without --name)
    bytes: int            # size on disk, for progress
    agent: int | None = None   # a file of several devices: the device this run holds
    job: str | None = None     # the job (tag `job`) it is a rank of, when decided before parsing (job_tags.at_plan)
    reader: str | None = None  # the file's reader (ingest/formats.py), told to the ingest so it is not sniffed again
    capture: bool = False      # a graph capture trace (engine/loading/captures.py): its launch calls keep kernel names
    facts: job_facts.Facts | None = None   # a trace of a folder: its rank, world size, job id, window (job_tags.py)
    folder: str | None = None  # a trace of a folder: the folder ingested (PATH as given), whose jobs it may join
    prefix: str | None = None  # that folder's name prefix (--name, else the folder's name)
    # what the path resolved to when planned (ingest/sources.resolve: its files, reader, rank), handed to the
    # ingest so that the path is resolved once; None when it could not be (the ingest then says why)
    source: sources.Source | None = None


def search(path: str) -> tuple[list[str], list[tuple[str, str]]]:
    """The traces a path holds, as ingest/sources.py's expand finds them (the path itself when it is a file or
    one profiler output; else every profiler output folder and trace file under it, in path order), and the
    entries named like traces that are no regular file, each with why it is left out: a named pipe, a device
    or socket, a symlink to nothing. Those are never opened (reading a pipe without a writer blocks forever),
    and the folder's other traces are ingested all the same. The walk keeps its own list of folders to visit,
    so a folder 1,000 levels deep is searched (Python's recursive os.walk stops near 1,000 levels). A trace
    file whose reader refuses it (a compressed or UTF-16 file) is kept: its ingest fails with its own line."""
    if not os.path.isdir(path) or sources.is_profiler_output(path):
        return [path], []
    found, skipped, todo = [], [], [path]
    while todo:
        root = todo.pop()
        try:
            with os.scandir(root) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as e:   # a sub-folder that cannot be listed would silently hold no traces
            raise InputError(f"{root}: cannot read the folder: {e.strerror}; expected a readable folder of "
                             "traces") from None
        below = []
        for e in entries:
            full = os.path.join(root, e.name)
            if _is_dir(e):
                if e.name.startswith("."):
                    continue
                if sources.is_profiler_output(full):
                    found.append(full)
                elif not e.is_symlink():    # as os.walk: a symlinked folder is not searched
                    below.append(full)
                continue
            why = _not_regular(full)
            if why is None:
                try:
                    if formats.in_folder(full):
                        found.append(full)
                except (InputError, OSError):
                    found.append(full)      # its ingest says why, in one line
            elif full.lower().endswith(_trace_suffixes()):
                skipped.append((full, why))
        todo += reversed(below)              # visited in name order, as os.walk does
    return sorted(found), skipped


def _is_dir(entry) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _trace_suffixes() -> tuple:
    return tuple(x for r in formats.readers() for x in r.suffixes)


_KINDS = {stat.S_IFIFO: "a named pipe", stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device",
          stat.S_IFSOCK: "a socket"}


def _not_regular(path: str) -> str | None:
    """Why the folder entry at `path` is no regular file to read (None: it is one); from stat, never an open."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "a symbolic link to a missing file" if os.path.islink(path) else "gone while the folder was searched"
    except OSError as e:
        return f"cannot be read ({e.strerror})"
    if stat.S_ISREG(mode):
        return None
    return f"not a regular file ({_KINDS.get(stat.S_IFMT(mode), 'a special file')}), never opened"


def plan(paths, name: str | None = None, skipped: list | None = None) -> list[Planned]:
    """What `tracedb ingest PATH...` will load, one entry per run. The traces of a folder are named
    `<prefix>-rank<N>` (rank from profiler_info, the path, or the trace's distributedInfo), else
    `<prefix>-<file stem>`; `prefix` is `name` or the folder's name. Labels that two traces share get their
    sub-folders in front (`<prefix>-h100-<stem>`; _labels). A rocprofv3 file whose kernels ran on several GPUs
    gives one run per GPU, `<its name>-gpu<N>` (N: the GPU's index). Each trace carries what it says of its job
    (job_facts.trace_facts, read from its head or side files, never its events); which traces are ranks of one job
    is decided from them (job_tags.py: after the runs land in a store, at plan time for a dataset). A trace of a
    folder that looks like a graph capture (captures.looks_like_capture) is read as one, and is no rank of a job.
    Entries of a folder that are named like traces but are no regular file (search) are appended to `skipped`
    as (path, why); a folder holding only such entries is refused, naming them."""
    if name and len(paths) > 1:
        raise UsageError("--name names one run (or prefixes the runs of one folder); give one path, or omit "
                         "--name to name runs after their files")
    out = []
    for p in paths:
        found, left_out = search(p)
        if skipped is not None:
            skipped += left_out
        if not found and left_out:
            names = [os.path.relpath(f, p) for f, _ in left_out]
            raise InputError(f"{p}: no trace to read in this folder; left out: {names_list(names)} "
                             f"({left_out[0][1]}); expected trace files or profiler output folders")
        if found in ([p], []):        # a file, one profiler output, or nothing recognisable (resolve says why)
            src = _resolved(p)
            out += _per_device(Planned(p, name, _size(src), source=src))
            continue
        prefix = name or os.path.basename(os.path.abspath(p))
        srcs = [_resolved(f) for f in found]
        facts = [job_facts.trace_facts(f, src) for f, src in zip(found, srcs)]
        out += [g for f, src, label, fx in zip(found, srcs, _labels(p, found, [x.rank for x in facts]), facts)
                for g in _per_device(Planned(f, f"{prefix}-{label}", _size(src), facts=fx, folder=p, prefix=prefix,
                                             capture=captures.looks_like_capture(p, f), source=src))]
    return out


def _resolved(path: str) -> sources.Source | None:
    """What `path` names (ingest/sources.resolve), once per planned path; None when it cannot be resolved: its
    ingest resolves it again and refuses it in one line."""
    try:
        return sources.resolve(path)
    except TracedbError:
        return None


def plan_captures(replay: Planned, paths: list[str]) -> list[Planned]:
    """`tracedb ingest REPLAY --capture CAPTURE...`: the planned runs of the capture traces (each CAPTURE a trace
    file or a folder of them), named after the replay's run: `<replay>-capture`, or `<replay>-capture-<label>`
    for several (label: the rank or file stem, as a folder's runs are labelled)."""
    files, srcs = [], {}
    for p in paths:
        found, left_out = search(p)
        if left_out:              # a capture named on the command line: every trace of it is read, or none
            raise InputError(f"{left_out[0][0]}: {left_out[0][1]}; expected the graph capture trace(s) of the replay")
        if not found:
            raise InputError(f"{p}: no trace found in this folder; expected the graph capture trace(s) of the replay")
        for f in found:
            srcs[f] = sources.resolve(f)          # one that cannot be read is refused before anything is written
        files += [f for f in found if f not in files]
    base = replay.name or sources.resolve(replay.path).default_name
    if len(files) == 1:
        return [dataclasses.replace(g, capture=True)
                for g in _per_device(Planned(files[0], f"{base}-capture", _size(srcs[files[0]]),
                                             source=srcs[files[0]]))]
    root = os.path.commonpath([os.path.dirname(os.path.abspath(f)) for f in files])
    labels = _labels(root, files, [sources.trace_rank(f) for f in files])
    return [dataclasses.replace(g, capture=True) for f, label in zip(files, labels)
            for g in _per_device(Planned(f, f"{base}-capture-{label}", _size(srcs[f]), source=srcs[f]))]


def _per_device(item: Planned) -> list[Planned]:
    """A file whose format holds several devices or ranks (ingest/formats.py: a rocprofv3 JSON or CSV kernel
    trace, an SQLite export) as one planned run per device that has activity; anything else as it is.
    Its reader goes with it, so the ingest does not sniff the file again."""
    if not os.path.isfile(item.path):
        return [item]
    try:
        reader = formats.identify(item.path)
        devices = reader.devices(item.path) if reader.several else None
    except TracedbError:
        return [item]      # the ingest says why, in one line
    item = dataclasses.replace(item, reader=reader.name)
    if devices is None:
        return [item]
    if len(devices) < 2:    # one device has activity: one run, named as any trace, on that device (its rank)
        return [dataclasses.replace(item, agent=devices[0] if devices else None)]
    base = item.name or sources.trace_stem(item.path)      # the name's device word: `-gpu1`, `-npu1`
    return [dataclasses.replace(item, name=f"{base}-{reader.device_kind}{idx}", agent=idx) for idx in devices]


def ingest_all(store_path, planned: list[Planned], on_start=None, jobs: int = 1, **kw):
    """Ingest each planned trace into the store at `store_path` (options as ingest_file); yields
    (planned, IngestResult) or (planned, TracedbError) when that trace failed, and goes on with the next.
    `on_start(i, planned)` is called before each. Several traces go in batches (engine/loading/parallel.py):
    `jobs` > 1 worker processes parse at once, or this process parses one batch after another; the results
    come in plan order all the same. Into a dataset (`to`) with `jobs` > 1, the runs are committed together
    once every trace is converted."""
    if len(planned) > 1:
        from tracedb.engine.loading import parallel as ingest_parallel
        if jobs > 1 and kw.get("to") is not None and set(kw) <= {"to", "tags", "replace", "core_rules"}:
            yield from ingest_parallel.ingest_to_dataset(
                kw["to"], planned, jobs, [run_options(item, {"tags": kw.get("tags")}) for item in planned],
                bool(kw.get("replace")), kw.get("core_rules"), on_start)
            return
        if ingest_parallel.supports(kw):
            options = [run_options(item, kw) for item in planned]
            if jobs > 1:
                yield from ingest_parallel.ingest_parallel(store_path, planned, jobs, options, on_start)
            else:       # one batch after another, in this process
                yield from ingest_parallel.ingest_here(store_path, planned, options, on_start)
            return
    for i, item in enumerate(planned):
        if on_start:
            on_start(i, item)
        try:
            res: IngestResult | TracedbError = _ingest_one(store_path, item, kw)
        except TracedbError as e:
            res = e
        yield item, res


def _ingest_one(store_path, item: Planned, kw) -> IngestResult:
    """One planned run into the store, or into the Parquet dataset `kw["to"]`."""
    options = run_options(item, kw)
    to = options.pop("to", None)
    if to is None:
        return ingest_file(store_path, item.path, name=item.name, **options)
    from tracedb.engine.loading.to_dataset import ingest_to_dataset
    return ingest_to_dataset(to, item.path, name=item.name, **options)


def run_options(item: Planned, kw) -> dict:
    """ingest_file's options for one planned run: the command's, its device, its reader, its job tag."""
    own = {k: v for k, v in (("agent", item.agent), ("reader", item.reader), ("source", item.source))
           if v is not None}
    if item.capture:    # a graph capture is no rank of the folder's job (captures.py pairs it with its replay)
        return {**kw, **own, "capture": True}
    return {**kw, **own, **({"tags": _with_job(kw.get("tags"), item.job)} if item.job else {})}


def _with_job(tags, job: str) -> dict:
    """The user's tags plus `job`, unless they set one (a user's --tag job=... wins)."""
    from tracedb.engine.store.connect import parse_tags
    given = parse_tags(tags)
    return given if "job" in given else {"job": job, **given}


def _labels(root: str, found: list[str], ranks: list) -> list[str]:
    """Each trace's label within the folder: `rank<N>` (its rank, as the plan read it), else its file stem. When two
    traces share a label, the traces of each folder that holds one of them get that folder's path (below `root`)
    in front, all of that folder's alike (`trace_filter-rank0`, `trace_filter-rank1` beside
    `nccl_parser_config-rank0`); still equal (one folder): numbered in path order. The folder's path is
    relative to `root` and the prefix is `root`'s name or --name, so no path part is said twice, and the
    same folder gives the same names every time."""
    labels = [f"rank{r}" if r is not None else sources.trace_stem(f) for f, r in zip(found, ranks)]
    clash = Counter(labels)
    base = os.path.abspath(root)
    folder = [os.path.dirname(os.path.abspath(f)) for f in found]
    shared = {d for d, label in zip(folder, labels) if clash[label] > 1}
    for i, d in enumerate(folder):
        sub = os.path.relpath(d, base)
        if d in shared and sub != os.curdir:
            labels[i] = "-".join(sub.split(os.sep) + [labels[i]])
    left, seen = Counter(labels), Counter()
    for i, label in enumerate(labels):     # still equal (same folder): number them in path order
        seen[label] += 1
        if left[label] > 1:
            labels[i] = f"{label}-{seen[label]}"
    return labels


def _size(src: sources.Source | None) -> int:
    """Bytes ingest will read (0 when the path could not be resolved: ingest will say why)."""
    try:
        return sum(os.path.getsize(f) for f in src.files) if src is not None else 0
    except OSError:
        return 0

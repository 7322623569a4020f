"""Say which files beside a run's files an ingest did not load, and why: the same kernels in another format,
another file of the same kind (one run reads one), not a trace, or a format tracedb does not read."""
import os
import re

from tracedb.errors import TracedbError
from tracedb.ingest import ascend_host, formats

# files of an Ascend profiler folder read for the run's facts, not its kernels (ingest/ascend_info.py)
JOB_FACTS = re.compile(r"profiler_(info(_\d+)?|metadata)\.json$")


def reason(path: str, read: list[str], kinds: dict | None = None) -> str:
    """Why `path`, found beside the files `read`, was not loaded. `kinds`: the reader of each read file
    found so far (None: it has none), shared by the calls of one listing so that each is sniffed once."""
    kinds = {} if kinds is None else kinds
    if JOB_FACTS.match(os.path.basename(path)):
        return "no kernels: the job's facts (rank, world size) are read from it"
    try:
        r = formats.in_folder(path)
    except TracedbError:
        return "unknown format (named like a trace, but not one tracedb reads)"
    except OSError as e:
        return f"not readable ({e.strerror or e})"
    if r is None:
        return "not a trace (no reader claims it)"
    csvs = [f for f in read if os.path.basename(f) == "kernel_details.csv"
            and os.path.dirname(os.path.abspath(f)) == os.path.dirname(os.path.abspath(path))]
    if os.path.basename(path) == ascend_host.NAME and csvs:
        other = ascend_host.other_capture(csvs[0], path)
        if other:
            return f"{other}: not the host side of these kernels; ingest it alone to load it"
    here = [f for f in read if os.path.dirname(os.path.abspath(f)) == os.path.dirname(os.path.abspath(path))]
    read = here or read
    for f in read:
        if f not in kinds:
            try:
                kinds[f] = formats.in_folder(f)
            except (TracedbError, OSError):
                kinds[f] = None
    same = [os.path.basename(f) for f in read if kinds[f] is not None and kinds[f].name == r.name]
    if same:
        return f"the same kind of file ({r.name}) as {', '.join(same)}, which was loaded; ingest it alone to load it"
    loaded = ", ".join(os.path.basename(f) for f in read) or "another file"
    return f"same data in another format ({r.name}); {loaded} was loaded"


def beside(read: list[str], roots: list[str] = ()) -> list[tuple[str, str]]:
    """The regular files in the folders of `read` (and directly in the folders `roots`) that are not in
    `read`, each with its reason, in path order."""
    done = {os.path.abspath(f) for f in read}
    folders = {os.path.dirname(os.path.abspath(f)) for f in read} | {os.path.abspath(r) for r in roots
                                                                      if os.path.isdir(r)}
    out, kinds = [], {}
    for d in sorted(folders):
        try:
            names = sorted(os.listdir(d))
        except OSError:
            continue
        for n in names:
            f = os.path.join(d, n)
            if f in done or not os.path.isfile(f):
                continue
            out.append((f, reason(f, read, kinds)))
    return out


# File names listed in one line at most: a folder of 10,000 files beside its traces made a `not loaded:` line of
# 120 KB. The first ones are named, then how many more.
NAMES_SHOWN = 10


def names_list(names: list[str], shown: int = NAMES_SHOWN) -> str:
    """`a, b, c`; past `shown` names, the first `shown` and how many more (`a, b, …, j and 9,990 more`)."""
    if len(names) <= shown:
        return ", ".join(names)
    return f"{', '.join(names[:shown])} and {len(names) - shown:,} more"


def grouped(unread: list[tuple[str, str]], roots=()) -> list[str]:
    """One line per folder and reason: `not loaded: a.csv, b.json — reason`, at most NAMES_SHOWN names, then
    how many more; when the files lie in several folders, each is named (relative to the folder of `roots`
    that holds it)."""
    by: dict[tuple, list[str]] = {}
    for f, why in unread:
        by.setdefault((os.path.dirname(os.path.abspath(f)), why), []).append(os.path.basename(f))
    several = len({d for d, _ in by}) > 1

    def shown(d):
        for r in (os.path.abspath(r) for r in roots):
            if d == r or d.startswith(r + os.sep):
                return os.path.join(os.path.basename(r), os.path.relpath(d, r)).removesuffix(os.sep + ".")
        return d
    return [f"not loaded{f' in {shown(d)}' if several else ''}: {names_list(names)} — {why}"
            for (d, why), names in by.items()]

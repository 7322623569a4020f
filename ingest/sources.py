"""What a path names: a trace file, or a profiler output folder expanded to the files it holds; and,
for a folder of several profiler outputs or trace files (one per rank), the traces it holds.

The format is taken from the content (the CSV header), not only from the file name."""
import glob
import json
import os
import re
from dataclasses import dataclass, field

from tracedb.errors import InputError
from tracedb.ingest import ascend_csv, chrome_json, sniff


@dataclass
class Source:
    path: str                    # what the user named
    format: str                  # ascend-kernel-details | ascend-op-summary | chrome-json
    files: list[str]             # files to read, in order
    headers: list = field(default_factory=list)
    rank: int | None = None
    device_kind: str = "npu"
    clock_domain: str = "unix-epoch-local"
    metadata: dict = field(default_factory=dict)

    @property
    def default_name(self) -> str:
        """A readable run name: the profiler folder (rank_0_ascend_pt) or the file stem."""
        p = os.path.abspath(self.path)
        if os.path.isdir(p):
            base = os.path.basename(p.rstrip(os.sep))
            if base in ("ASCEND_PROFILER_OUTPUT", "mindstudio_profiler_output"):
                base = os.path.basename(os.path.dirname(p))
            return base
        return sniff.file_stem(p)


def resolve(path: str) -> Source:
    if not os.path.exists(path):
        raise InputError(f"{path}: no such file or folder")
    if os.path.isdir(path):
        return _resolve_dir(path)
    if sniff.is_gzip(path) or chrome_json.looks_like_json(path):
        return Source(path=path, format="chrome-json", files=[path], rank=rank_from_path(path))
    return _from_csv_files(path, [path])


def _resolve_dir(path: str) -> Source:
    """*_ascend_pt/ -> ASCEND_PROFILER_OUTPUT/kernel_details.csv, else the op_summary CSVs msprof wrote
    (every slice, in slice order); ASCEND_PROFILER_OUTPUT/ or mindstudio_profiler_output/ directly too."""
    root = path.rstrip(os.sep)
    out_dir = os.path.join(root, "ASCEND_PROFILER_OUTPUT")
    for cand in (os.path.join(out_dir, "kernel_details.csv"), os.path.join(root, "kernel_details.csv")):
        if os.path.isfile(cand):
            src = _from_csv_files(path, [cand])
            break
    else:
        slices = _op_summary_files(root)
        if not slices:
            db = _sqlite_exports(root)
            if db:   # torch_npu with export_type=Db alone writes no CSV
                raise InputError(f"{path}: holds only the SQLite export {os.path.relpath(db[0], root)}, which tracedb "
                                 "does not read; expected ASCEND_PROFILER_OUTPUT/kernel_details.csv: profile with "
                                 "_ExperimentalConfig(export_type=[torch_npu.profiler.ExportType.Text, "
                                 "torch_npu.profiler.ExportType.Db]) to keep both")
            raise InputError(f"{path}: no kernel_details.csv under ASCEND_PROFILER_OUTPUT/ and no "
                             "op_summary_*.csv under PROF_*/mindstudio_profiler_output/; expected an "
                             "Ascend profiler output folder (*_ascend_pt)")
        src = _from_csv_files(path, slices)
    pt_root = os.path.dirname(root) if os.path.basename(root) == "ASCEND_PROFILER_OUTPUT" else root
    info = _profiler_info(pt_root)
    if info:
        src.metadata["profiler_info"] = info
        rank = str(info.get("rank_id", ""))
        src.rank = int(rank) if rank.isdigit() else src.rank
    return src


def _sqlite_exports(root: str) -> list[str]:
    """ascend_pytorch_profiler[_N].db / msprof_<ts>.db files of a profiler folder (torch_npu export_type=Db)."""
    subs = ("", "ASCEND_PROFILER_OUTPUT", os.path.join("PROF_*", "mindstudio_profiler_output"))
    pats = [os.path.join(root, sub, name) for sub in subs for name in ("ascend_pytorch_profiler*.db", "msprof_*.db")]
    return sorted(f for p in pats for f in glob.glob(p))


def _op_summary_files(root: str) -> list[str]:
    pats = [os.path.join(root, "PROF_*", "mindstudio_profiler_output", "op_summary_*.csv"),
            os.path.join(root, "mindstudio_profiler_output", "op_summary_*.csv"),
            os.path.join(root, "op_summary_*.csv")]
    files = sorted({f for p in pats for f in glob.glob(p)})

    def slice_key(f):  # op_summary_slice_{i}_{ts}.csv: numeric slice order, unsliced files first
        m = re.search(r"op_summary_slice_(\d+)_", os.path.basename(f))
        return (os.path.dirname(f), int(m.group(1)) if m else -1, f)
    return sorted(files, key=slice_key)


def _profiler_info(pt_root: str) -> dict | None:
    """profiler_info_{rank}.json (or profiler_info.json): rank_id, profiler level, versions."""
    for f in sorted(glob.glob(os.path.join(pt_root, "profiler_info*.json"))):
        try:
            with open(f, encoding="utf-8") as fh:
                info = json.load(fh)
        except (OSError, ValueError):
            continue
        if isinstance(info, dict):
            m = re.search(r"profiler_info_(\d+)\.json$", f)
            if "rank_id" not in info and m:
                info["rank_id"] = int(m.group(1))
            keep = {k: info[k] for k in ("rank_id", "torch_npu_version", "cann_version") if k in info}
            level = info.get("config", {}).get("experimental_config", {}).get("_profiler_level")
            if level:
                keep["profiler_level"] = level
            return keep
    return None


def _from_csv_files(path: str, files: list[str]) -> Source:
    headers = [ascend_csv.read_header(f) for f in files]
    src = Source(path=path, format=headers[0].format, files=files, headers=headers)
    src.rank = rank_from_path(path)
    return src


def rank_from_path(path: str) -> int | None:
    """rank_0_ascend_pt, rank0, dp0_tp0_rank3_decode: the innermost path component with a `rank N` word."""
    for part in reversed(os.path.abspath(path).split(os.sep)):
        m = re.search(r"(?:^|[_\-.])rank_?(\d+)(?=[_\-.]|$)", part)
        if m:
            return int(m.group(1))
    return None


OUTPUT_DIRS = ("ASCEND_PROFILER_OUTPUT", "mindstudio_profiler_output")
SNIFF_BYTES = 1 << 20     # a Chrome trace names "traceEvents" (or its first event's "ph") well before this


def expand(path: str) -> list[str]:
    """The traces a path holds, one run each: the path itself when it is a file or one profiler output
    (a run as ever), else every profiler output folder, Chrome trace JSON (`.json`, `.json.gz`) and
    Ascend CSV found under it, in path order. A profiler output is not searched further (its
    trace_view.json belongs to it). Empty when the folder holds none."""
    if not os.path.isdir(path) or is_profiler_output(path):
        return [path]
    found = []
    for root, dirs, files in os.walk(path):
        dirs.sort()
        for d in list(dirs):
            if d.startswith(".") or is_profiler_output(os.path.join(root, d)):
                dirs.remove(d)
                if not d.startswith("."):
                    found.append(os.path.join(root, d))
        found += [os.path.join(root, f) for f in sorted(files) if _is_trace_file(os.path.join(root, f))]
    return sorted(found)


def is_profiler_output(path: str) -> bool:
    """A torch_npu `*_ascend_pt` folder, its ASCEND_PROFILER_OUTPUT, or an msprof output (op_summary files)."""
    base = os.path.basename(os.path.abspath(path))
    return (base.endswith("_ascend_pt") or base in OUTPUT_DIRS
            or os.path.isdir(os.path.join(path, "ASCEND_PROFILER_OUTPUT"))
            or os.path.isfile(os.path.join(path, "kernel_details.csv")) or bool(_op_summary_files(path)))


def _is_trace_file(path: str) -> bool:
    name = os.path.basename(path).lower()
    if name.endswith((".json", ".json.gz")):
        return _is_chrome_trace(path)
    if name.endswith(".csv"):
        try:
            ascend_csv.read_header(path)
        except (InputError, OSError, UnicodeDecodeError):
            return False       # some other CSV (step_trace_time.csv, a report)
        return True
    return False


def _is_chrome_trace(path: str) -> bool:
    """A trace object naming "traceEvents", or an event array, in its first MB (config and profiler_info
    JSON do neither)."""
    head = sniff.head(path, SNIFF_BYTES)
    return (head[:1] == b"{" and b'"traceEvents"' in head) or (head[:1] == b"[" and b'"ph"' in head)


def trace_rank(path: str) -> int | None:
    """The rank a trace belongs to, without ingesting it: profiler_info of an Ascend output, a `rankN`
    in the path, or a Chrome trace's distributedInfo (written before its events)."""
    if os.path.isdir(path):
        try:
            return resolve(path).rank
        except InputError:
            return rank_from_path(path)
    rank = rank_from_path(path)
    if rank is None and path.lower().endswith((".json", ".json.gz")):
        rank = chrome_json.head_facts(path).get("rank")
    return rank


def trace_stem(path: str) -> str:
    """A short name for a trace of a folder: the file name without .json/.gz/.csv and Kineto's .pt.trace."""
    return sniff.file_stem(path)

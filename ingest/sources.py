"""What a path names: a trace file, or a profiler output folder expanded to the files it holds; and,
for a folder of several profiler outputs or trace files (one per rank), the traces it holds.

The format is taken from the content (magic bytes, the first JSON byte, the CSV header), not from the file
name. What is not a regular file (a named pipe, `<(cat trace.json)`, a device, a socket) is refused from its
`stat`, before it is opened: reading it would block, or consume the stream a second read needs."""
import glob
import json
import os
import re
from dataclasses import dataclass, field

from tracedb.errors import InputError
from tracedb.ingest import ascend_comm, ascend_csv, ascend_db, chrome_json, nsys, rocprof, rocprof_csv, sniff, \
    sqlite_export

# profiler_info_{rank}.json: torch_npu writes ~1.5 KB (the config, start/end clocks, versions, rank_id;
# 1,231-1,547 bytes in the real test data) nested 3 deep (config.common_config.schedule). 1 MiB and 32
# levels leave ample room and keep a runaway or hostile file from costing memory or Python's recursion.
SIDE_JSON_BYTES = 1 << 20
SIDE_JSON_DEPTH = 32
MAX_RANK = 2**31 - 1              # runs.rank is INTEGER
MAX_TEXT = 256                    # a version or level string, stored in runs.metadata


@dataclass
class Source:
    path: str                    # what the user named
    format: str                  # ascend-kernel-details | ascend-op-summary | chrome-json | rocprof-json |
                                 # rocprof-csv, or a SQLite export's (ingest/sqlite_export.py)
    files: list[str]             # files to read, in order
    headers: list = field(default_factory=list)
    rank: int | None = None
    device_kind: str = "npu"
    clock_domain: str = "unix-epoch-local"
    metadata: dict = field(default_factory=dict)
    agent: int | None = None     # a file of several devices (rocprof-json/-csv, SQLite exports): the device
                                 # (index) this run reads; None: every device
    comm_files: list = field(default_factory=list)   # Ascend communication analyses (ingest/ascend_comm.py)
    groups: list | None = None   # parallel groups (profiler_metadata.json), rows of run_groups
    world_size: int | None = None

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
        dangling = os.path.islink(path)
        raise InputError(f"{path}: {'a symbolic link to a missing file' if dangling else 'no such file or folder'}")
    if os.path.isdir(path):
        return _resolve_dir(path)
    if nsys.is_rep(path):       # an Nsight Systems report: read through its SQLite export, named as the report
        src = resolve(nsys.export_rep(path))
        src.path = path
        return src
    kind = sniff.kind(path)
    if kind in ("gzip", "json") and rocprof.is_rocprof(sniff.head(path, 256)):
        return Source(path=path, format=rocprof.FORMAT, files=[path], device_kind="gpu", clock_domain="monotonic")
    if kind in ("gzip", "json"):
        return Source(path=path, format="chrome-json", files=[path], rank=rank_from_path(path))
    if kind == "sqlite":
        reader = sqlite_export.reader_for(path)
        return Source(path=path, format=reader.FORMAT, files=[path], rank=rank_from_path(path),
                      device_kind=reader.DEVICE_KIND, clock_domain=reader.CLOCK_DOMAIN)
    if kind == "empty" and path.lower().endswith((".json", ".json.gz", ".gz")):
        raise InputError(f"{path}: empty file; expected a trace (a Chrome trace JSON object or event array)")
    if kind == "text" and path.lower().endswith(".json"):   # JSON text that is no object or array: 42, "x"
        shown = sniff.head(path, 40).decode("utf-8", "replace")
        raise InputError(f"{path}: starts with {shown!r}, not a JSON object or array; expected a trace (a Chrome "
                         "trace JSON object or event array)")
    if kind == "text" and rocprof_csv.is_kernel_trace(path):     # with the files of its prefix beside it
        return Source(path=path, format=rocprof_csv.FORMAT, files=rocprof_csv.files(path), device_kind="gpu",
                      clock_domain="monotonic")
    if kind == "text" and rocprof_csv.sibling_refusal(path):
        raise InputError(rocprof_csv.sibling_refusal(path))
    return _from_csv_files(path, [path])


def _resolve_dir(path: str) -> Source:
    """*_ascend_pt/ -> ASCEND_PROFILER_OUTPUT/kernel_details.csv, else the op_summary CSVs msprof wrote
    (every slice, in slice order); ASCEND_PROFILER_OUTPUT/ or mindstudio_profiler_output/ directly too."""
    root = path.rstrip(os.sep) or os.sep
    _check_listable(root)
    out_dir = os.path.join(root, "ASCEND_PROFILER_OUTPUT")
    if os.path.isdir(out_dir):
        _check_listable(out_dir)
    for cand in (os.path.join(out_dir, "kernel_details.csv"), os.path.join(root, "kernel_details.csv")):
        if os.path.lexists(cand):      # not isfile: a named pipe there is refused by name, not passed over
            src = _from_csv_files(path, [cand])
            break
    else:
        slices = _op_summary_files(root)
        comm = ascend_comm.files_in(out_dir if os.path.isdir(out_dir) else root)
        db = _sqlite_exports(root) if not slices else []
        if not slices and not db and comm:   # a rank whose kernels were not exported: its communication analyses
            src = Source(path=path, format=ascend_comm.FORMAT, files=[], rank=rank_from_path(path))
        elif not slices:
            if not db:
                raise InputError(f"{path}: no kernel_details.csv under ASCEND_PROFILER_OUTPUT/ and no "
                                 "op_summary_*.csv under PROF_*/mindstudio_profiler_output/; expected an "
                                 "Ascend profiler output folder (*_ascend_pt)")
            src = _from_sqlite_export(path, root, db)   # torch_npu with export_type=Db alone writes no CSV
        else:
            src = _from_csv_files(path, slices)
    pt_root = os.path.dirname(root) if os.path.basename(root) == "ASCEND_PROFILER_OUTPUT" else root
    info = _profiler_info(pt_root)
    if info:
        src.metadata["profiler_info"] = info
        src.rank = info.get("rank_id", src.rank)
    _job_facts(src, pt_root, os.path.join(pt_root, "ASCEND_PROFILER_OUTPUT"))
    return src


def _job_facts(src: Source, pt_root: str, out_dir: str):
    """A rank of a job: its parallel groups and world size (profiler_metadata.json) and its communication
    analyses (read after the kernels, hashed with them)."""
    meta = ascend_comm.metadata(pt_root)
    if meta.get("groups") is not None:
        src.groups = meta["groups"]
    src.world_size = meta.get("world_size")
    if src.rank is None:
        src.rank = meta.get("rank")
    src.comm_files = ascend_comm.files_in(out_dir) if os.path.isdir(out_dir) else []
    if src.headers or src.format == ascend_comm.FORMAT:   # CSV runs: hashed with the kernels (a SQLite export's
        src.files = src.files + src.comm_files           # reader keeps its own file list)


def _check_listable(folder: str):
    """A folder whose entries cannot be read would look empty to glob and isfile: say so instead."""
    if not os.access(folder, os.R_OK | os.X_OK):
        raise InputError(f"{folder}: cannot read the folder: permission denied; expected a readable profiler "
                         "output folder")


def _from_sqlite_export(path: str, root: str, found: list[str]) -> Source:
    """The SQLite export of a profiler folder: torch_npu's ascend_pytorch_profiler_N.db (it adds the framework
    side: steps, rank) before msprof's msprof_N.db of the same capture; two of one kind are refused."""
    torch_npu = [f for f in found if os.path.basename(f).startswith("ascend_pytorch_profiler")]
    pick = torch_npu or found
    if len(pick) > 1:
        shown = ", ".join(os.path.relpath(f, root) for f in pick)
        raise InputError(f"{path}: holds {len(pick)} SQLite exports ({shown}); "
                         "expected one per profiler folder: ingest each file on its own")
    sniff.check_regular(pick[0])
    ascend_db.check_tables(pick[0], sqlite_export.tables(pick[0]))
    return Source(path=path, format=ascend_db.FORMAT, files=[pick[0]], rank=rank_from_path(path),
                  device_kind=ascend_db.DEVICE_KIND, clock_domain=ascend_db.CLOCK_DOMAIN)


def _sqlite_exports(root: str) -> list[str]:
    """ascend_pytorch_profiler[_N].db / msprof_<ts>.db files of a profiler folder (torch_npu export_type=Db)."""
    subs = ("", "ASCEND_PROFILER_OUTPUT", os.path.join("PROF_*", "mindstudio_profiler_output"))
    pats = [os.path.join(glob.escape(root), sub, name) for sub in subs
            for name in ("ascend_pytorch_profiler*.db", "msprof_*.db")]
    return sorted(f for p in pats for f in glob.glob(p))


def _op_summary_files(root: str) -> list[str]:
    root = glob.escape(root)     # a folder named like `run[1]` is a name, not a pattern
    pats = [os.path.join(root, "PROF_*", "mindstudio_profiler_output", "op_summary_*.csv"),
            os.path.join(root, "mindstudio_profiler_output", "op_summary_*.csv"),
            os.path.join(root, "op_summary_*.csv")]
    files = sorted({f for p in pats for f in glob.glob(p)})

    def slice_key(f):  # op_summary_slice_{i}_{ts}.csv: numeric slice order, unsliced files first
        m = re.search(r"op_summary_slice_(\d+)_", os.path.basename(f))
        return (os.path.dirname(f), int(m.group(1)) if m else -1, f)
    return sorted(files, key=slice_key)


def _profiler_info(pt_root: str) -> dict | None:
    """profiler_info_{rank}.json (or profiler_info.json): rank_id, profiler level, versions. A file that is
    there but malformed, or holds a field tracedb reads with a wrong type or range, is refused naming the
    file and the field (fix or remove it: the run's rank would be wrong without it)."""
    files = sorted(glob.glob(os.path.join(glob.escape(pt_root), "profiler_info*.json")))
    if not files:
        return None
    f = files[0]
    info = read_side_json(f)
    if not isinstance(info, dict):
        raise InputError(f"{f}: a JSON {_json_type(info)}; expected torch_npu's profiler_info JSON object")
    keep = {}
    m = re.search(r"profiler_info_(\d+)\.json$", f)
    named = _rank(f, "the rank in the file name", m.group(1)) if m else None
    if info.get("rank_id") is not None:
        keep["rank_id"] = _rank(f, "field rank_id", info["rank_id"])
        if named is not None and named != keep["rank_id"]:
            raise InputError(f"{f}: field rank_id is {keep['rank_id']} but the file name says rank {named}; "
                             "expected them to agree (torch_npu writes both from one rank)")
    elif named is not None:
        keep["rank_id"] = named
    for key in ("torch_npu_version", "cann_version"):
        if info.get(key) is not None:
            keep[key] = _text_field(f, key, info[key])
    config = _object_field(f, "config", info.get("config"))
    experimental = _object_field(f, "config.experimental_config", config.get("experimental_config"))
    level = experimental.get("_profiler_level")
    if level is not None:
        keep["profiler_level"] = _text_field(f, "config.experimental_config._profiler_level", level)
    return keep


def read_side_json(path: str):
    """A small JSON side file, size- and depth-checked before it is parsed (SIDE_JSON_BYTES, SIDE_JSON_DEPTH)."""
    with sniff.open_regular(path) as fh:
        data = fh.read(SIDE_JSON_BYTES + 1)
    if len(data) > SIDE_JSON_BYTES:
        raise InputError(f"{path}: larger than {SIDE_JSON_BYTES >> 20} MiB; expected torch_npu's profiler_info JSON "
                         "(about 1.5 KB)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: byte offset {e.start}: invalid UTF-8; expected a JSON text file") from None
    depth, at = _json_depth(text)
    if depth > SIDE_JSON_DEPTH:
        raise InputError(f"{path}: character offset {at}: nested more than {SIDE_JSON_DEPTH} levels deep; expected "
                         "torch_npu's profiler_info JSON (3 levels)")
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: line {e.lineno} column {e.colno}: not valid JSON ({e.msg}); expected "
                         "torch_npu's profiler_info JSON") from None
    except ValueError:      # Python reads integers of at most 4300 digits
        raise InputError(f"{path}: a number of more than 4300 digits; expected torch_npu's profiler_info JSON") \
            from None
    except RecursionError:  # not reached after the depth check; kept so that no nesting can escape as a traceback
        raise InputError(f"{path}: nested too deep to read; expected torch_npu's profiler_info JSON") from None


# a string token's closing quote is optional: an unterminated string then takes the rest of the text in one
# match instead of being rescanned from every quote inside it (quadratic: 20 KB took 0.8 s)
_JSON_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]')


def _json_depth(text: str) -> tuple[int, int]:
    """The deepest nesting of brackets outside strings, and the character offset where it is first reached."""
    depth = deepest = at = 0
    for m in _JSON_TOKENS.finditer(text):
        c = m.group()
        if c in ("[", "{"):
            depth += 1
            if depth > deepest:
                deepest, at = depth, m.start()
                if deepest > SIDE_JSON_DEPTH:
                    break
        elif c in ("]", "}"):
            depth -= 1
    return deepest, at


def _json_type(value) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}.get(
        type(value), "number")


def _rank(path: str, what: str, value) -> int:
    """A rank: an integer, or a string of digits (torch_npu writes os.environ['RANK'] as is), 0..2^31-1."""
    ok = (isinstance(value, int) and not isinstance(value, bool)) or (isinstance(value, str) and value.isdecimal()
                                                                    and value.isascii() and len(value) <= 10)
    if ok and 0 <= int(value) <= MAX_RANK:
        return int(value)
    shown = repr(value) if isinstance(value, str) else json.dumps(value)[:40]
    raise InputError(f"{path}: {what} is {shown}; expected a rank from 0 to {MAX_RANK} (an integer or a string "
                     "of digits)")


def _text_field(path: str, key: str, value) -> str:
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        shown = f"a string of {len(value):,} characters" if isinstance(value, str) else \
            f"{json.dumps(value)[:40]} (a JSON {_json_type(value)})"
        raise InputError(f"{path}: field {key} is {shown}; expected a string of at most {MAX_TEXT} characters")
    return value


def _object_field(path: str, key: str, value) -> dict:
    """An optional JSON object: {} when absent or null."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InputError(f"{path}: field {key} is {json.dumps(value)[:40]} (a JSON {_json_type(value)}); expected "
                         "a JSON object")
    return value


def _from_csv_files(path: str, files: list[str]) -> Source:
    for f in files:
        sniff.check_regular(f)
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
SQLITE_SUFFIXES = (".sqlite", ".sqlite3", ".db")
SNIFF_BYTES = 1 << 20     # a Chrome trace names "traceEvents" (or its first event's "ph") well before this


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
        found += [os.path.join(root, f) for f in sorted(files) if _is_trace_file(os.path.join(root, f))]
    return sorted(found)


def is_profiler_output(path: str) -> bool:
    """A torch_npu `*_ascend_pt` folder, its ASCEND_PROFILER_OUTPUT, or an msprof output (op_summary files)."""
    base = os.path.basename(os.path.abspath(path))
    return (base.endswith("_ascend_pt") or base in OUTPUT_DIRS
            or os.path.isdir(os.path.join(path, "ASCEND_PROFILER_OUTPUT"))
            or os.path.lexists(os.path.join(path, "kernel_details.csv")) or bool(_op_summary_files(path)))


def _walk_error(e: OSError):
    """A sub-folder that cannot be listed would silently hold no traces."""
    raise InputError(f"{e.filename}: cannot read the folder: {e.strerror}; expected a readable folder of traces")


def _is_trace_file(path: str) -> bool:
    """By name, then content. A trace-named file that is not a regular file, or is compressed or encoded
    in a way tracedb does not read, is refused (skipping it would hide a trace); other files are passed over."""
    name = os.path.basename(path).lower()
    if name.endswith(SQLITE_SUFFIXES):      # a profiler's SQLite export, by its tables; other databases passed over
        if not sqlite_export.is_sqlite(path):
            return False
        try:
            sqlite_export.reader_for(path)
        except InputError:
            return False
        return True
    if not name.endswith((".json", ".json.gz", ".csv")):
        return False
    with sniff.open_regular(path) as f:     # refuses a pipe, and a file that cannot be read, by name
        first = f.read(sniff.SNIFF)
    if name.endswith((".json", ".json.gz")):
        why = sniff.refusal(path, first)
        if why:
            raise InputError(why)
        return _is_chrome_trace(path)
    if rocprof_csv.is_kernel_trace(path):   # rocprofv3's *_kernel_trace.csv; the CSVs beside it are read with it
        return True
    try:
        ascend_csv.read_header(path)
    except InputError:
        return False       # some other CSV (step_trace_time.csv, a report)
    return True


def _is_chrome_trace(path: str) -> bool:
    """A trace object naming "traceEvents", an event array, or a rocprofv3 results object, in its first MB
    (config and profiler_info JSON do neither)."""
    head = sniff.head(path, SNIFF_BYTES)
    return ((head[:1] == b"{" and b'"traceEvents"' in head) or (head[:1] == b"[" and b'"ph"' in head)
            or rocprof.is_rocprof(head))


def trace_rank(path: str) -> int | None:
    """The rank a trace belongs to, without ingesting it: profiler_info of an Ascend output, a `rankN`
    in the path, or a Chrome trace's distributedInfo (written before its events)."""
    if os.path.isdir(path):
        try:
            return resolve(path).rank
        except InputError:
            return rank_from_path(path)
    rank = rank_from_path(path)
    if rank is None and path.lower().endswith((".json", ".json.gz")) and not rocprof.is_rocprof(sniff.head(path, 256)):
        rank = chrome_json.head_facts(path).get("rank")
    return rank


def trace_world_size(path: str) -> int | None:
    """The world size of the job a trace belongs to, without ingesting it: an Ascend output's
    profiler_metadata.json, a Chrome trace's distributedInfo; None when the trace does not say."""
    try:
        if os.path.isdir(path):
            return resolve(path).world_size
        if path.lower().endswith((".json", ".json.gz")) and not rocprof.is_rocprof(sniff.head(path, 256)):
            return chrome_json.head_facts(path).get("world_size")
    except InputError:
        return None
    return None


def trace_stem(path: str) -> str:
    """A short name for a trace of a folder: the file name without .json/.gz/.csv and Kineto's .pt.trace."""
    return sniff.file_stem(path)

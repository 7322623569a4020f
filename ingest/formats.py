"""The registry of trace formats: which reader reads a file, decided once per file, and what each format is.

Every reader module of tracedb.ingest (a module or a sub-package) declares its format once, as
`READER = formats.Reader(...)`: how a file of it is recognised (`recognise`, asked with one Probe of the
file), whether one file holds several devices or ranks (`devices`: a folder ingest then plans one run per
device), the function that loads it into the side store (`read`), the SQL files it runs (`sql`) and the
rows of the formats table of docs/formats.md (`docs`). The registry finds the declarations itself
(every module of the package is looked at once), so a new format is its module, its SQL, its tests and
its row of that table (docs/gen_formats.py writes it; tests/test_formats.py checks it).

Readers are asked in `order`, lowest first; the first whose `recognise` says yes reads the file. A
`recognise` may raise an InputError instead: the file is of its kind but cannot be read, and the line
says why. What a file was found to be is remembered for the life of the process (keyed by the file's
identity, size and modification time), so the folder search, the run planner and the ingest sniff it
once; a run planned in one process names its reader to the process that ingests it
(engine/loading/folder.py, `Planned.reader`)."""
import importlib
import os
import pkgutil
import re
from dataclasses import dataclass
from typing import Callable

from tracedb.errors import InputError, TracedbError
from tracedb.ingest import sniff, sqlite_file

# ingest SQL not of one reader: what runs for every format (the run's finish, stats, names and work), and the
# reads every SQLite export shares
SHARED_SQL = ("ingest_finish", "ingest_run_stats", "ingest_pending", "discard_pending", "kernel_names_missing",
              "ingest_kernel_names_insert", "ingest_work_which", "ingest_work_npu", "ingest_work_ops",
              "ingest_work_pending", "ingest_sqlite_tables", "ingest_sqlite_read")


class ReadAgain(Exception):
    """Raised by a reader when the run must be read again with other read options: the caller rolls the
    side store back and calls `read` again after `adjust(options)`."""

    def adjust(self, options: dict):
        raise NotImplementedError


@dataclass(frozen=True)
class Doc:
    """One row of the formats table of docs/formats.md."""
    input: str          # what the user has
    formats: str        # the runs.format values it gives
    rows: str           # where its device rows go


@dataclass(frozen=True)
class Reader:
    """One format's declaration. `name` is the runs.format of its runs unless its `source` says otherwise
    (the Ascend CSV reader: kernel_details or op_summary; the Chrome reader's runs take theirs from the
    trace's facts)."""
    name: str
    order: int                                   # asked lowest first; catch-alls last
    recognise: Callable                          # (Probe) -> bool, or InputError for a broken file of its kind
    read: Callable                               # (con, run_id, Source, options) -> run facts (dict)
    read_many: Callable | None = None            # (con, [(run_id, Source)]) -> {run_id: run facts} of those
                                                 # it read together; the others are for `read`
    sql: tuple = ()                              # the sql/ingest files it runs
    docs: tuple = ()                             # rows of the formats table (Doc)
    recognised: str = ""                         # how a file of it is told, for that table
    suffixes: tuple = ()                         # file names a folder search looks at for it (lowercase)
    found: Callable | None = None                # (Probe) -> bool: a folder search's test (default recognise)
    devices: Callable | None = None              # (path) -> device indexes with activity: several per file
    head_facts: Callable | None = None           # (path) -> rank / world_size its head says, without ingesting
    source: Callable | None = None               # (path) -> Source fields (default: files [path])
    rank_in_path: bool = True                    # a `rankN` in the path is the run's rank
    device_kind: str = "gpu"
    clock_domain: str = "monotonic"
    finish: Callable | None = None               # (con, run_id, Source, core_rules) inside the run's transaction
                                                 # -> None, or a note for the run's line (events it left out)
    finish_many: Callable | None = None          # (con, run_ids, core_rules) -> (runs refused, {run_id: note}):
                                                 # finish of a batch
    memory: int | None = None                    # DuckDB memory_limit for that transaction (bytes)
    kernels_required: bool = True                # a run of no kernel rows is refused
    export: Callable | None = None               # (path) -> the file to read instead (a report's export), or None

    @property
    def several(self) -> bool:
        """One file may hold several devices or ranks (a folder ingest splits it, one run per device)."""
        return self.devices is not None


class Probe:
    """What is known of one file while readers are asked: its kind and first bytes, read once."""

    def __init__(self, path: str):
        self.path = path
        self.name = os.path.basename(path).lower()
        self._kind = None
        self._head = (0, b"")
        self._tables = None
        self._first = None

    @property
    def kind(self) -> str:
        """sniff.kind: refuses a file that is no regular file, compressed otherwise, or UTF-16/32, in one line."""
        if self._kind is None:
            self._kind = sniff.kind(self.path)
        return self._kind

    def head(self, n: int) -> bytes:
        """sniff.head: the first n bytes (inflated, blanks stripped); b"" when the file cannot be read."""
        if n > self._head[0]:
            self._head = (n, sniff.head(self.path, n))
        return self._head[1][:n]

    def opened(self) -> bytes:
        """The first SNIFF bytes as they are on disk; refuses, by name, what is not a regular file or cannot
        be read (a folder search asks this before it looks inside a trace-named file)."""
        if self._first is None:
            with sniff.open_regular(self.path) as f:
                self._first = f.read(sniff.SNIFF)
        return self._first

    def check_json_named(self) -> bool:
        """A `.json` / `.json.gz` file met in a folder search: refused when it is no regular file, or compressed
        or encoded in a way tracedb does not read; True otherwise."""
        why = sniff.refusal(self.path, self.opened())
        if why:
            raise InputError(why)
        return True

    @property
    def tables(self) -> set[str]:
        """The table names of an SQLite file (an InputError when it cannot be read)."""
        if self._tables is None:
            self._tables = sqlite_file.tables(self.path)
        return self._tables


_READERS: list[Reader] = []
_SEEN: dict = {}


# A module that declares a reader: `READER = ...` at the top level, or a package's `import ... READER`.
_DECLARES = re.compile(r"^(READER\s*=|from \S+ import .*\bREADER\b)", re.M)


def readers() -> list[Reader]:
    """Every declared reader, in the order they are asked. Only the modules whose source declares one are
    imported: the others may import what the readers keep for later (pyarrow reserves address space at
    import, and the JSON and SQLite readers run under tighter limits without it)."""
    if not _READERS:
        import tracedb.ingest as package
        found = []
        for info in pkgutil.iter_modules(package.__path__):
            if _declares(os.path.join(package.__path__[0], info.name), info.ispkg):
                module = importlib.import_module(f"tracedb.ingest.{info.name}")
                found += [module.READER] if isinstance(getattr(module, "READER", None), Reader) else []
        _READERS.extend(sorted(found, key=lambda r: (r.order, r.name)))
    return _READERS


def _declares(path: str, package: bool) -> bool:
    try:
        with open(os.path.join(path, "__init__.py") if package else path + ".py", encoding="utf-8") as f:
            return bool(_DECLARES.search(f.read()))
    except OSError:
        return False


def by_name(name: str) -> Reader:
    """The reader of a name (Reader.name)."""
    for r in readers():
        if r.name == name:
            return r
    raise KeyError(name)


def _identity(path: str):
    """What a remembered answer is keyed by: the file, its size and its change times (a file rewritten in
    place is asked again)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (os.path.realpath(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _remember(path: str, reader: Reader) -> Reader:
    key = _identity(path)
    if key is not None:
        _SEEN[key] = reader
    return reader


def identify(path: str) -> Reader:
    """The reader of a trace file (asked once per file and process), or the one line saying why none reads it."""
    known = _SEEN.get(_identity(path))
    if known is not None:
        return known
    probe = Probe(path)
    for r in readers():
        if r.recognise(probe):
            return _remember(path, r)
    raise InputError(_unclaimed(probe))


def _unclaimed(probe: Probe) -> str:
    if probe.kind == "sqlite":
        names = probe.tables
        shown = ", ".join(sorted(names)[:8]) + (", ..." if len(names) > 8 else "") if names else "no tables"
        return (f"{probe.path}: an SQLite database that is no profiler export tracedb reads (it holds {shown}); "
                "expected an Nsight Systems export (nsys export --type sqlite), an Ascend profiler DB "
                "(ascend_pytorch_profiler_N.db, msprof_N.db) or a rocprofv3 rocpd database")
    return f"{probe.path}: not a trace format tracedb reads (docs/formats.md lists them)"


def in_folder(path: str) -> Reader | None:
    """The reader of a file met in a folder search, by name, then content; None for a file that is no trace
    (a config JSON, a report CSV, another database), passed over. A trace-named file that is not a regular
    file, or is compressed or encoded in a way tracedb does not read, is refused (skipping it would hide
    a trace)."""
    probe = Probe(path)
    for r in readers():
        if probe.name.endswith(r.suffixes) and (r.found or r.recognise)(probe):
            return _remember(path, r)
    return None


def exported(path: str) -> str | None:
    """The file to read instead of `path` when it is a report read through its export (`.nsys-rep`)."""
    for r in readers():
        alt = r.export(path) if r.export else None
        if alt:
            return alt
    return None


def head_facts(path: str) -> dict:
    """What a trace file's head says of its rank and world size, without ingesting it ({} when nothing)."""
    try:
        r = identify(path)
    except TracedbError:
        return {}
    return r.head_facts(path) if r.head_facts else {}


def refuse_json_text(probe: Probe, expected: str) -> bool:
    """A `.json` file that is empty, or JSON text that is no object or array (42, "x"), refused in one line;
    False for any other file."""
    kind = probe.kind
    if kind == "empty" and probe.name.endswith((".json", ".json.gz", ".gz")):
        raise InputError(f"{probe.path}: empty file; expected {expected}")
    if kind == "text" and probe.name.endswith(".json"):
        shown = sniff.head(probe.path, 40).decode("utf-8", "replace")
        raise InputError(f"{probe.path}: starts with {shown!r}, not a JSON object or array; expected {expected}")
    return False


def table_rows() -> list[Doc]:
    """The formats table of docs/formats.md, in reader order."""
    return [d for r in readers() for d in r.docs]

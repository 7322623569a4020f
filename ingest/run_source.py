"""What one run reads (Source), and the rank a path names.

A Source holds the path the user named, the files, the format and reader, and the facts known before
reading: rank, device kind, clock, the device of a file of several."""
import os
import re
from dataclasses import dataclass, field

from tracedb.ingest import sniff
from tracedb.shown import CONTROL

MAX_NAME = 200   # characters of a run name
SUFFIX_ROOM = 24   # a name made from a path leaves room for the suffixes folder ingests add (-gpu7, -rank127)


def clean_name(raw: str) -> str:
    """A run name made from a path obeys the rules `--name` is held to (cli/options.py): controls become
    `_`, edge blanks go, at most MAX_NAME - SUFFIX_ROOM characters; `run` when nothing is left."""
    name = CONTROL.sub("_", raw).strip()[:MAX_NAME - SUFFIX_ROOM].strip()
    return name or "run"


@dataclass
class Source:
    path: str                    # what the user named
    format: str                  # runs.format (chrome-json: the trace's own, set when it is read)
    files: list[str]             # files to read, in order
    reader: str = ""             # the registered reader (ingest/formats.py); default: the format's name
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
    host_trace: str | None = None   # the trace_view.json beside a kernel_details.csv: its host side (ascend_host.py)
    copy_candidates: list | None = None   # found while reading an Ascend CSV: the seq of the rows that may be
                                          # exact copies, for its final transaction (None: any row may)

    def __post_init__(self):
        self.reader = self.reader or self.format

    @property
    def default_name(self) -> str:
        """A readable run name: the profiler folder (rank_0_ascend_pt) or the file stem."""
        p = os.path.abspath(self.path)
        if os.path.isdir(p):
            base = os.path.basename(p.rstrip(os.sep))
            if base in ("ASCEND_PROFILER_OUTPUT", "mindstudio_profiler_output"):
                base = os.path.basename(os.path.dirname(p))
            return clean_name(base)
        return clean_name(sniff.file_stem(p))


def rank_from_path(path: str) -> int | None:
    """rank_0_ascend_pt, rank0, dp0_tp0_rank3_decode: the innermost path component with a `rank N` word."""
    for part in reversed(os.path.abspath(path).split(os.sep)):
        m = re.search(r"(?:^|[_\-.])rank_?(\d+)(?=[_\-.]|$)", part)
        if m:
            return int(m.group(1))
    return None

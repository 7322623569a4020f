"""The Ascend profiler's step_trace_time.csv of one rank: its own breakdown of each step's device time.

torch_npu's analysis writes it into ASCEND_PROFILER_OUTPUT/ beside kernel_details.csv and communication.json,
one line per device and step, times in µs (the Ascend PyTorch Profiler user guide; msprof-analyze's cluster
analysis reads it into cluster_step_trace_time.csv). Three layouts are known, each adding columns:

    Step, Computing, Communication(Not Overlapped), Overlapped, Communication, Free, Stage, Bubble,
        Communication(Not Overlapped and Exclude Receive)
    ... , Preparing
    Device_id, Step, ... , Preparing

A column a layout lacks is NULL; Step is empty when the capture had no step marks (NULL). Columns no layout
has are ignored, so a later layout that adds one still loads.

The times are float sums printed by Python ("231290.09999999995"): read as exact decimals and rounded to the
nearest ns, never through a float, which recovers the ns the profiler summed (its float error is far below
1 ns). kernel_details.csv's timestamps are truncated instead (ingest/timefmt.py): they are exact µs with 3
decimals, where rounding and truncation agree.

A file that cannot be read as such is an error naming its line and what was expected, as a malformed
communication.json is (ingest/ascend_comm.py): the run is not ingested half-described. Ingest the
kernel_details.csv alone to leave the file out."""
import csv
import io
import os
import re
from decimal import ROUND_HALF_EVEN, Decimal, localcontext

from tracedb import sql
from tracedb.errors import InputError
from tracedb.ingest.capped_read import capped_bytes

NAME = "step_trace_time.csv"
# One line per device and step (~200 bytes): 16 MiB is some 80,000 steps, and still refuses a file that is not one.
MAX_BYTES = 16 << 20
# header -> step_times column (ns)
TIMES = {"Computing": "computing_ns", "Communication(Not Overlapped)": "comm_not_overlapped_ns",
         "Overlapped": "overlapped_ns", "Communication": "communication_ns", "Free": "free_ns", "Stage": "stage_ns",
         "Bubble": "bubble_ns",
         "Communication(Not Overlapped and Exclude Receive)": "comm_not_overlapped_excl_receive_ns",
         "Preparing": "preparing_ns"}
# the columns of the oldest layout: a header without one of them is not this file
REQUIRED = ("Step", "Computing", "Communication(Not Overlapped)", "Overlapped", "Communication", "Free")
_PAD = " \t"
# a decimal number as Python prints a float ('0.0', '1e-05', '-3.5'); the exponent is bounded so that no
# spelling makes a huge integer
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d{1,4})?")
_INTEGER = re.compile(r"[+-]?\d{1,18}")
_LONGEST = 64          # characters of a number: a float's repr has at most 24
INT64_MAX = 2 ** 63 - 1


def files_in(out_dir: str) -> list[str]:
    """[ASCEND_PROFILER_OUTPUT/step_trace_time.csv] when the folder has it, else []."""
    path = os.path.join(out_dir, NAME)
    return [path] if os.path.isfile(path) else []


def load(con, run_id: int, path: str):
    """The rows of `path` into step_times as run `run_id` (ingest_step_times.sql)."""
    rows = read(path)
    if rows:
        sql.run(con, "ingest_step_times", {"run_id": run_id, "device_ids": [r["device_id"] for r in rows],
                                           "steps": [r["step"] for r in rows],
                                           **{col + "s": [r[col] for r in rows] for col in TIMES.values()}})


def read(path: str) -> list[dict]:
    """One dict per data line: device_id, step and the TIMES columns in ns (None where the layout has no such
    column or the cell is empty). One-line errors."""
    text = _text(path)
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader, None)
        if header is None:
            raise InputError(f"{path}: empty; expected the Ascend profiler's {NAME} with a header line "
                             f"({', '.join(REQUIRED)}, ...)")
        names = [h.strip(_PAD) for h in header]
        missing = [c for c in REQUIRED if c not in names]
        if missing:
            raise InputError(f"{path}: line 1: no column {', '.join(missing)}; expected the Ascend profiler's "
                             f"{NAME} header ({', '.join(REQUIRED)}, ...)")
        twice = sorted({n for n in names if n and names.count(n) > 1})
        if twice:
            raise InputError(f"{path}: line 1: column {', '.join(twice)} twice; expected each column once")
        at = {n: i for i, n in enumerate(names)}
        rows = []
        for cells in reader:
            line = reader.line_num
            if not any(c.strip(_PAD) for c in cells):
                continue             # a blank line (a trailing one)
            if len(cells) != len(names):
                raise InputError(f"{path}: line {line}: {len(cells)} fields, the header has {len(names)}; "
                                 "expected one value per column")
            row = {"device_id": _integer(path, line, "Device_id", cells[at["Device_id"]]) if "Device_id" in at
                   else None,
                   "step": _integer(path, line, "Step", cells[at["Step"]])}
            for col, key in TIMES.items():
                row[key] = _ns(path, line, col, cells[at[col]]) if col in at else None
            rows.append(row)
    except csv.Error as e:
        raise InputError(f"{path}: line {reader.line_num}: {e}; expected comma-separated values") from None
    return rows


def _text(path: str) -> str:
    data = capped_bytes(path, MAX_BYTES, f"the Ascend profiler's {NAME} (one line per step)")
    nul = data.find(b"\0")
    if nul >= 0:
        raise InputError(f"{path}: byte offset {nul}: a NUL byte; expected a CSV text file")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: byte offset {e.start}: invalid UTF-8; expected a CSV text file") from None


def _integer(path: str, line: int, column: str, cell: str) -> int | None:
    """A step or device number; empty is None (no step marks in the capture)."""
    s = cell.strip(_PAD)
    if not s:
        return None
    if not _INTEGER.fullmatch(s):
        raise InputError(f"{path}: line {line}: {column} is {_shown(cell)}; expected an integer or nothing")
    return int(s)


def _ns(path: str, line: int, column: str, cell: str) -> int | None:
    """µs text -> ns, rounded half to even; empty is None."""
    s = cell.strip(_PAD)
    if not s:
        return None
    if len(s) > _LONGEST or not _NUMBER.fullmatch(s):
        raise InputError(f"{path}: line {line}: {column} is {_shown(cell)}; expected a time in µs (a decimal "
                         "number)")
    with localcontext() as ctx:
        ctx.prec = 2 * _LONGEST + 16     # exact: the product of a 64-digit number and 1000 needs no rounding
        us = Decimal(s)
        if us.adjusted() > 16:           # 1e17 µs is 1e20 ns, beyond a BIGINT
            raise InputError(f"{path}: line {line}: {column} is {_shown(cell)}; out of range, expected a time "
                             "in µs")
        ns = int((us * 1000).to_integral_value(rounding=ROUND_HALF_EVEN))
    if abs(ns) > INT64_MAX:
        raise InputError(f"{path}: line {line}: {column} is {_shown(cell)}; out of range, expected a time in µs")
    return ns


def _shown(cell: str) -> str:
    """A cell quoted for an error line: at most 40 characters, control characters escaped."""
    return repr(cell[:40] + ("..." if len(cell) > 40 else ""))

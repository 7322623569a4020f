"""Ascend kernel_details.csv and msprof op_summary_*.csv -> the `_stage` table of kernel rows.

Both are the same table under two sets of column names (torch_npu renames op_summary's columns), with
drift across versions: Block Dim|Num, Step Id|ID, Device_id optional, Level0 vs Level1/2 column sets,
PMU columns that depend on aic_metrics. The header is mapped to canonical columns here, in one place;
every other column is kept: numeric ones (PMU metrics, judged from the first rows) as DOUBLE in
`metrics`, named by the run's `metric_columns`, the rest verbatim in `extra_text` / `extra_columns`.
DuckDB's CSV reader does the parsing (4x faster than a Python csv loop on a 2 M-row file) with every column as
text, so the start times keep all their digits until sql/store/macros.sql turns them into integer ns.
"""
import csv
import re

from tracedb import sql
from tracedb.errors import InputError

# normalised header text -> canonical column (first match wins when a file has both spellings)
COLUMNS = {
    "step id": "step_id",
    "device_id": "device_id",
    "device id": "device_id",
    "model id": "model_id",
    "task id": "task_id",
    "stream id": "stream_id",
    "name": "name",
    "op name": "name",
    "type": "op_type",
    "op type": "op_type",
    "op state": "op_state",
    "accelerator core": "core_type",
    "task type": "core_type",
    "start time(us)": "start_us",
    "task start time(us)": "start_us",
    "duration(us)": "dur_us",
    "task duration(us)": "dur_us",
    "wait time(us)": "wait_us",
    "task wait time(us)": "wait_us",
    "block dim": "block_dim",
    "block num": "block_dim",
    "mix block dim": "mix_block_dim",
    "mix block num": "mix_block_dim",
    "context id": "context_id",
    "input shapes": "input_shapes",
    "input data types": "input_dtypes",
    "input formats": "input_formats",
    "output shapes": "output_shapes",
    "output data types": "output_dtypes",
    "output formats": "output_formats",
}
CANONICAL = list(dict.fromkeys(COLUMNS.values()))
# How the CSV reader parses each canonical column (others: VARCHAR). Absolute start µs need 16+6 digits.
TYPES = {"start_us": "DECIMAL(25,6)", "dur_us": "DECIMAL(18,6)", "wait_us": "DECIMAL(18,6)",
         "device_id": "INTEGER", "block_dim": "INTEGER", "mix_block_dim": "INTEGER", "stream_id": "BIGINT",
         "task_id": "BIGINT", "step_id": "BIGINT", "model_id": "BIGINT", "context_id": "BIGINT"}
REQUIRED = {"name": "Name", "start_us": "Start Time(us)", "dur_us": "Duration(us)"}


def normalise(header_cell: str) -> str:
    return re.sub(r"\s+", " ", header_cell.replace("\ufeff", "").strip().lower())


class Header:
    """Where each canonical column sits in one CSV header, and which columns are extras."""

    def __init__(self, path: str, cells: list[str]):
        self.path, self.cells = path, cells
        self.position: dict[str, int] = {}
        self.extras: list[tuple[str, int]] = []
        for i, cell in enumerate(cells):
            canon = COLUMNS.get(normalise(cell))
            if canon and canon not in self.position:
                self.position[canon] = i
            else:
                self.extras.append((cell.replace("\ufeff", "").strip(), i))
        missing = [label for canon, label in REQUIRED.items() if canon not in self.position]
        if missing:
            raise InputError(f"{path}: line 1: not an Ascend kernel_details/op_summary header: missing "
                             f"{', '.join(missing)} (found: {', '.join(cells[:8])}{', ...' if len(cells) > 8 else ''})")

    @property
    def format(self) -> str:
        names = {normalise(c) for c in self.cells}
        return "ascend-op-summary" if names & {"op name", "task start time(us)", "task duration(us)"} \
            else "ascend-kernel-details"


def read_header(path: str) -> Header:
    try:
        with open(path, "rb") as f:
            head = f.read(1 << 16)
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror}") from None
    if not head.replace(b"\xef\xbb\xbf", b"", 1).strip():
        raise InputError(f"{path}: empty file; expected a kernel_details.csv / op_summary CSV with a header line")
    if b"\0" in head:
        offset = head.index(b"\0")
        raise InputError(f"{path}: byte offset {offset}: binary data; expected a CSV text file")
    try:
        first = head.decode("utf-8-sig").splitlines()[0]
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: byte offset {e.start}: not UTF-8 text; expected a CSV file") from None
    cells = next(csv.reader([first]))
    if len(cells) < 3:
        raise InputError(f"{path}: line 1: expected a comma-separated header with columns Name, "
                         f"Start Time(us), Duration(us); found {first[:80]!r}")
    return Header(path, cells)


class NotNumeric(Exception):
    """An extra column judged numeric from the first rows holds text further down: load it as text."""

    def __init__(self, index: int):
        super().__init__(index)
        self.index = index


def numeric_extras(header: Header, sample_rows: int = 2000) -> set[int]:
    """Positions of the extra columns whose first `sample_rows` values are all numbers (or N/A, empty)."""
    candidates = {i for _, i in header.extras}
    with open(header.path, newline="", encoding="utf-8-sig") as f:
        reader = csv.reader(f)
        next(reader, None)
        for n, row in enumerate(reader):
            if n >= sample_rows or not candidates:
                break
            for i in list(candidates):
                v = row[i].strip("\t ") if i < len(row) else ""
                if v not in ("", "N/A") and not _is_number(v):
                    candidates.discard(i)
    return candidates


def _is_number(v: str) -> bool:
    try:
        float(v)
        return True
    except ValueError:
        return False


def _joined(texts) -> str:
    """SQL joining the text extras with chr(31), NULL as '' so every column keeps its place."""
    if not texts:
        return "NULL::VARCHAR"
    if len(texts) == 1:
        return sql.ident(f"c{texts[0][1]}")
    return "concat(" + ", chr(31), ".join(f"coalesce({sql.ident(f'c{i}')}, '')" for _, i in texts) + ")"


def load(con, run_id: int, headers: list[Header], as_text: set[int] = frozenset()) -> tuple[list[str], list[str]]:
    """Insert the rows of CSV files sharing one header layout into kernels_raw as run `run_id`.

    Returns the names of the metric (numeric) and of the text extra columns, in stored order. Raises
    NotNumeric when a column judged numeric is not; the caller retries with it in `as_text`."""
    first = headers[0]
    for h in headers[1:]:
        if [normalise(c) for c in h.cells] != [normalise(c) for c in first.cells]:
            raise InputError(f"{h.path}: line 1: header differs from {first.path}; slices of one run must share it")
    numeric = numeric_extras(first) - set(as_text)
    canon_at = {i: c for c, i in first.position.items()}
    cols = {f"c{i}": TYPES.get(canon_at.get(i), "DOUBLE" if i in numeric else "VARCHAR") for i in range(len(first.cells))}
    projection = ",\n        ".join(
        (sql.ident(f"c{first.position[c]}") if c in first.position else f"NULL::{TYPES.get(c, 'VARCHAR')}")
        + f" AS {sql.ident(c)}" for c in CANONICAL)
    metrics = [(n, i) for n, i in first.extras if i in numeric]
    texts = [(n, i) for n, i in first.extras if i not in numeric]
    try:
        sql.run(con, "ingest_ascend_csv", {"run_id": run_id, "files": [h.path for h in headers], "cols": cols},
                projection=projection,
                metrics="[" + ", ".join(sql.ident(f"c{i}") for _, i in metrics) + "]::DOUBLE[]",
                extra_text=_joined(texts))
    except Exception as e:  # duckdb.Error, translated to one line naming file, line and column
        bad = re.search(r'converting column "c(\d+)"', str(e))
        if bad and int(bad.group(1)) in numeric:
            raise NotNumeric(int(bad.group(1))) from None
        raise InputError(_load_error(headers, e)) from None
    return [n for n, _ in metrics], [n for n, _ in texts]


def _load_error(headers, e) -> str:
    msg = str(e)
    path = re.search(r"file = (.+)", msg)
    where = path.group(1).strip() if path else headers[0].path
    line = re.search(r"CSV Error on Line: (\d+)", msg)
    found = re.search(r"Expected Number of Columns: (\d+) Found: (\d+)", msg)
    if line and found:
        return (f"{where}: line {line.group(1)}: expected {found.group(1)} columns, found {found.group(2)} "
                "(truncated or malformed row)")
    conv = re.search(r'converting column "c(\d+)"\. Could not convert string "(.*?)" to \'?(\w+)', msg)
    if line and conv:
        # a missing or extra cell shifts every later column: say that rather than the shifted value
        cells = _cells_at(where, int(line.group(1)))
        ncol = len(headers[0].cells)
        if cells is not None and len(cells) != ncol:
            return f"{where}: line {line.group(1)}: expected {ncol} columns, found {len(cells)} (truncated or malformed row)"
        cell = headers[0].cells[int(conv.group(1))].replace("\ufeff", "").strip()
        want = "a number of microseconds" if conv.group(3).upper().startswith("DECIMAL") else "an integer"
        return f"{where}: line {line.group(1)}: column '{cell}' is {conv.group(2)!r}; expected {want}"
    if "NOT NULL constraint" in msg:
        return _missing_time(headers)
    if line:
        return f"{where}: line {line.group(1)}: {_reason(msg)}"
    return f"{where}: cannot read as CSV: {msg.strip().splitlines()[0]}"


def _reason(msg: str) -> str:
    """DuckDB's CSV errors read 'CSV Error on Line: N / Original Line: ... / <reason> / Possible fixes...'."""
    lines = [ln.strip() for ln in msg.splitlines()]
    for i, ln in enumerate(lines):
        if ln.startswith("Original Line"):
            for nxt in lines[i + 1:]:
                if nxt and not nxt.startswith("Possible fixes"):
                    return nxt.rstrip(".")
            break
    return lines[0].split(":", 1)[-1].strip()


def _cells_at(path: str, line_no: int):
    """Error path only: the cells of the CSV record starting at physical line `line_no`."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            reader = csv.reader(f)
            for row in reader:
                if reader.line_num >= line_no:
                    return row
    except (OSError, UnicodeDecodeError, csv.Error):
        return None
    return None


def _missing_time(headers) -> str:
    """Error path only: find the first row with an empty or N/A start time or duration, in Python."""
    for h in headers:
        cols = [(h.position[c], REQUIRED[c]) for c in ("start_us", "dur_us")]
        with open(h.path, newline="", encoding="utf-8-sig") as f:
            reader = csv.reader(f)
            next(reader, None)
            for row in reader:
                for i, label in cols:
                    if i < len(row) and row[i].strip("\t ") in ("", "N/A"):
                        return (f"{h.path}: line {reader.line_num}: column '{label}' is {row[i]!r}; "
                                "expected a number of microseconds")
    return f"{headers[0].path}: a row has no start time or duration"

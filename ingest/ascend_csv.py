"""Ascend kernel_details.csv and msprof op_summary_*.csv -> the `_stage` table of kernel rows.

Both are the same table under two sets of column names (torch_npu renames op_summary's columns), with
drift across versions: Block Dim|Num, Step Id|ID, Device_id optional, Level0 vs Level1/2 column sets,
PMU columns that depend on aic_metrics. The header is mapped to canonical columns here, in one place;
every other column is kept: numeric ones (PMU metrics, judged from the first rows) as DOUBLE in
`metrics`, named by the run's `metric_columns`, the rest verbatim in `extra_text` / `extra_columns`.
DuckDB's CSV reader does the parsing (4x faster than a Python csv loop on a 2 M-row file) with the times as
text, so the start times keep all their digits until sql/ingest/ingest_ascend_csv.sql turns them into
integer ns.

What is refused, each with one line naming the file and the line (and byte offset where it applies):
invalid UTF-8 and NUL bytes anywhere, lines longer than LINE_LIMIT, a header naming a column twice, time
cells that are not plain decimal µs (tracedb.ingest.timefmt.csv_us_to_ns), rows of the wrong width. The
Python readers here (header, the sampled rows, the error paths) decode strictly, line by line, so their
errors carry the same places as DuckDB's; DuckDB's errors are turned into such lines by `_translate`.
Mixed LF / CRLF line ends, which DuckDB's strict reader refuses, are read from an LF copy (`_lf_files`).
"""
import contextlib
import csv
import itertools
import os
import re
import shutil
import tempfile

import duckdb

from tracedb import sql
from tracedb.errors import InputError, StoreError
from tracedb.ingest import leftovers, sniff, timefmt

# The longest line (so also field) read from a CSV: 2 MiB, DuckDB's own default max_line_size. The real
# traces' longest line is 1,351 bytes (the AlexNet kernel_details.csv, shape lists), so 2 MiB leaves room
# for any shape list. A larger bound costs every ingest: DuckDB sizes its CSV buffers from max_line_size,
# and 64 MiB took a 1 M-row, 330 MB file from 5.8 s and 0.58 GB peak RSS to 7.7 s and 1.01 GB. Python's
# csv module (field_size_limit, default 128 KiB) gets the same bound.
LINE_LIMIT = 2 << 20
csv.field_size_limit(max(csv.field_size_limit(), LINE_LIMIT))
HEAD_BYTES = 1 << 16        # read for the empty / binary / other-format checks: ~90 lines of a real trace
SAMPLE_ROWS = 2000          # rows that judge whether an extra column is numeric
BOM = b"\xef\xbb\xbf"
# `as_text` (column positions load() reads as text on a retry) holds this when load() is to read LF copies
NORMALISE_LINE_ENDS = -1

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
# How the CSV reader parses each canonical column (others, and the times: VARCHAR). The times stay text
# until sql/ingest/ingest_ascend_csv.sql checks their spelling and turns them into integer ns exactly.
TYPES = {"device_id": "INTEGER", "block_dim": "INTEGER", "mix_block_dim": "INTEGER", "stream_id": "BIGINT",
         "task_id": "BIGINT", "step_id": "BIGINT", "model_id": "BIGINT", "context_id": "BIGINT"}
REQUIRED = {"name": "Name", "start_us": "Start Time(us)", "dur_us": "Duration(us)"}
# The time columns, whether a '-' is allowed (Wait Time is a gap the profiler computes) and whether a
# missing value ('' or N/A) is an error.
TIMES = (("start_us", False, True), ("dur_us", False, True), ("wait_us", True, False))


def normalise(header_cell: str) -> str:
    return re.sub(r"\s+", " ", header_cell.replace("\ufeff", "").strip().lower())


class Header:
    """Where each canonical column sits in one CSV header, and which columns are extras."""

    def __init__(self, path: str, cells: list[str]):
        self.path, self.cells = path, cells
        self.position: dict[str, int] = {}
        self.extras: list[tuple[str, int]] = []
        self._check_unique()
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

    def _check_unique(self):
        """A column named twice is refused: which of two `Name` columns is the name, and two metrics of one
        name would be one metric in kernel_metrics. No real header repeats one (19 real CSVs checked)."""
        seen: dict[str, int] = {}
        for i, cell in enumerate(self.cells):
            n = normalise(cell)
            if n and n in seen:
                raise InputError(f"{self.path}: line 1: column {cell.strip()!r} appears twice (columns "
                                 f"{seen[n] + 1} and {i + 1}); expected each column name once")
            seen.setdefault(n, i)

    def label(self, canon: str) -> str:
        """The header's own text for a canonical column (`Task Start Time(us)` in an op_summary)."""
        return self.cells[self.position[canon]].replace("\ufeff", "").strip()

    @property
    def format(self) -> str:
        names = {normalise(c) for c in self.cells}
        return "ascend-op-summary" if names & {"op name", "task start time(us)", "task duration(us)"} \
            else "ascend-kernel-details"


# ------------------------------------------------------------------------------------------ reading text
def read_header(path: str) -> Header:
    with sniff.open_regular(path) as f:
        head = f.read(HEAD_BYTES)
    _check_head(path, head)
    line, cells = next(records(path), (1, []))
    if len(cells) < 3:
        raise InputError(f"{path}: line {line}: expected a comma-separated header with columns Name, "
                         f"Start Time(us), Duration(us); found {','.join(cells)[:80]!r}")
    return Header(path, cells)


def _check_head(path: str, head: bytes):
    """What the first bytes show: another format, an empty file, binary data."""
    why = sniff.refusal(path, head)
    if why:
        raise InputError(why)
    if head[:2] == b"\x1f\x8b":
        raise InputError(f"{path}: gzip-compressed data; tracedb reads Ascend CSVs uncompressed: decompress it "
                         "first with `gzip -d`")
    if not head.replace(BOM, b"", 1).strip():
        raise InputError(f"{path}: empty file; expected a kernel_details.csv / op_summary CSV with a header line")
    nul = head.find(b"\0")
    if nul >= 0 and not _is_utf8(head[:nul]):
        # binary from its first bytes (an image, an archive); a NUL inside text is named by line in records()
        raise InputError(f"{path}: byte offset {nul}: binary data; expected a CSV text file")


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def records(path: str):
    """(line number, cells) of every CSV record of the file, the header first (line numbers count physical
    lines, as DuckDB's errors do; a record's is the line it ends on). Invalid UTF-8, NUL bytes, lines over
    LINE_LIMIT and csv module errors are refused with one line naming the line."""
    with sniff.open_regular(path) as f:
        reader = csv.reader(_text_lines(path, f))
        while True:
            try:
                cells = next(reader)
            except StopIteration:
                return
            except csv.Error as e:
                raise InputError(_csv_error(path, reader.line_num, e)) from None
            yield reader.line_num, cells


def _text_lines(path: str, f):
    """The file's lines, decoded as strict UTF-8 one at a time (a multi-byte character never spans a
    newline), keeping their line ends for the csv module; the BOM of line 1 dropped."""
    offset = 0
    for n in itertools.count(1):
        raw = f.readline(LINE_LIMIT + 1)
        if not raw:
            return
        if len(raw.rstrip(b"\r\n")) > LINE_LIMIT:
            raise InputError(f"{path}: line {n}: longer than {LINE_LIMIT >> 20} MiB; expected CSV lines of at most "
                             f"{LINE_LIMIT >> 20} MiB (a real kernel_details.csv line is about 1 KB)")
        nul = raw.find(b"\0")
        if nul >= 0:
            raise InputError(f"{path}: line {n}, byte offset {offset + nul}: NUL byte (binary data); expected a "
                             "CSV text file")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise InputError(_utf8_error(path, n, offset, e)) from None
        yield text[1:] if n == 1 and text.startswith("\ufeff") else text
        offset += len(raw)


def _utf8_error(path, line, offset, e: UnicodeDecodeError) -> str:
    bad = " ".join(f"0x{b:02X}" for b in e.object[e.start:e.end])
    return (f"{path}: line {line}, byte offset {offset + e.start}: invalid UTF-8 ({bad}: {e.reason}); "
            "expected a UTF-8 text file")


def _csv_error(path: str, line: int, e: csv.Error) -> str:
    text = str(e)
    if "field larger than field limit" in text:
        return (f"{path}: line {line}: a field longer than {LINE_LIMIT >> 20} MiB; expected CSV fields of at most "
                f"{LINE_LIMIT >> 20} MiB")
    if "new-line character seen in unquoted field" in text:     # a CR inside a line: the same words as DuckDB's
        return _lone_cr(path) or f"{path}: line {line}: a carriage return (CR) inside a line; expected LF or CRLF line ends"
    return f"{path}: line {line}: not valid CSV ({text}); expected an RFC 4180 CSV"


class NotNumeric(Exception):
    """An extra column judged numeric from the first rows holds text further down: load it as text. Also
    raised with index NORMALISE_LINE_ENDS when the files must be read from LF copies: the caller rolls
    back and calls load() again with `index` added to as_text (DuckDB cannot go on in a transaction after
    a failed statement, so the retry is the caller's)."""

    def __init__(self, index: int):
        super().__init__(index)
        self.index = index


def numeric_extras(header: Header, sample_rows: int = SAMPLE_ROWS) -> set[int]:
    """Positions of the extra columns whose first `sample_rows` values are all numbers (or N/A, empty)."""
    candidates = {i for _, i in header.extras}
    rows = records(header.path)
    next(rows, None)
    for n, (_, row) in enumerate(rows):
        if n >= sample_rows or not candidates:
            break
        for i in list(candidates):
            v = row[i].strip("\t ") if i < len(row) else ""
            if v not in ("", "N/A") and not _is_number(v):
                candidates.discard(i)
    rows.close()
    return candidates


def _is_number(v: str) -> bool:
    try:
        float(v)
        return True
    except ValueError:
        return False


# ------------------------------------------------------------------------------------------------ load
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
    NotNumeric when a column judged numeric is not, or when the files mix LF and CRLF line ends; the
    caller retries with its index in `as_text`."""
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
    with _lf_files(con, headers, NORMALISE_LINE_ENDS in as_text) as files:
        try:
            sql.run(con, "ingest_ascend_csv", {"run_id": run_id, "files": list(files), "cols": cols,
                                               "max_line_size": LINE_LIMIT},
                    projection=projection,
                    metrics="[" + ", ".join(sql.ident(f"c{i}") for _, i in metrics) + "]::DOUBLE[]",
                    extra_text=_joined(texts))
        except duckdb.Error as e:
            _translate(e, headers, files, numeric, as_text)
    return [n for n, _ in metrics], [n for n, _ in texts]


def _translate(e: duckdb.Error, headers, files: dict, numeric: set, as_text) -> None:
    """Raise, for DuckDB's error, NotNumeric (a retry) or one InputError line naming file and place.
    Errors that are not about the input (interrupt, out of memory, a write that failed) go on as they are."""
    msg = str(e)
    if isinstance(e, (duckdb.InterruptException, duckdb.OutOfMemoryException)) or (
            isinstance(e, duckdb.IOException) and not any(f in msg for f in files)):
        raise e
    bad = re.search(r'converting column "c(\d+)"', msg)
    if bad and int(bad.group(1)) in numeric:
        raise NotNumeric(int(bad.group(1))) from None
    path = re.search(r"file = (.+)", msg)
    where = files.get(path.group(1).strip(), path.group(1).strip()) if path else headers[0].path
    if "state machine reached an invalid state" in msg and NORMALISE_LINE_ENDS not in as_text \
            and any(_mixed_line_ends(h.path) for h in headers):
        raise NotNumeric(NORMALISE_LINE_ENDS) from None
    raise InputError(_load_error(headers, where, msg)) from None


def _load_error(headers, where: str, msg: str) -> str:
    line = re.search(r"CSV Error on Line: (\d+)", msg)
    if "tracedb:bad-time" in msg:
        return _first_bad_time(headers)
    if "tracedb:nul" in msg or "Invalid unicode" in msg:
        return _first_bad_text(headers, where, line)
    if "state machine reached an invalid state" in msg:
        return _lone_cr(where) or f"{where}: cannot read as CSV ({msg.strip().splitlines()[0]}); expected an RFC 4180 CSV"
    size = re.search(r"Maximum line size of \d+ bytes exceeded\. Actual Size:\s*(\d+)", msg)
    if line and size:
        return (f"{where}: line {line.group(1)}: {int(size.group(1)):,} bytes long; expected CSV lines of at most "
                f"{LINE_LIMIT >> 20} MiB (a real kernel_details.csv line is about 1 KB)")
    found = re.search(r"Expected Number of Columns: (\d+) Found: (\d+)", msg)
    if line and found:
        return (f"{where}: line {line.group(1)}: expected {found.group(1)} columns, found {found.group(2)} "
                "(truncated or malformed row)")
    conv = re.search(r'converting column "c(\d+)"\. Could not convert string "(.*?)" to', msg)
    if line and conv:
        return _conversion_error(headers[0], where, int(line.group(1)), int(conv.group(1)), conv.group(2))
    if line:
        return f"{where}: line {line.group(1)}: {_reason(msg)}"
    return f"{where}: cannot read as CSV: {msg.strip().splitlines()[0]}"


def _conversion_error(header: Header, where: str, line: int, col: int, value: str) -> str:
    """An id column that is not an integer, or the cause that shifted a value into it: a row with a cell
    too few or too many, or a second header line."""
    cells = _cells_at(where, line)
    ncol = len(header.cells)
    if cells is not None and _is_header(header, cells):
        return _repeated_header(where, line)
    if cells is not None and len(cells) != ncol:
        return f"{where}: line {line}: expected {ncol} columns, found {len(cells)} (truncated or malformed row)"
    cell = header.cells[col].replace("\ufeff", "").strip()
    return f"{where}: line {line}: column '{cell}' is {value!r}; expected an integer"


def _is_header(header: Header, cells) -> bool:
    return [normalise(c) for c in cells] == [normalise(c) for c in header.cells]


def _repeated_header(where, line) -> str:
    return (f"{where}: line {line}: the header again (files joined with `cat`?); expected one header line, "
            "then rows (ingest the files of one run as a profiler folder instead)")


def _reason(msg: str) -> str:
    """DuckDB's CSV errors read 'CSV Error on Line: N / Original Line: ... / <reason> / Possible fixes...',
    where the original line may itself span lines: the reason is the last line before the fixes."""
    head = re.split(r"\n\s*Possible (?:fixes|Solution)", msg, maxsplit=1)[0]
    reason = head.strip().splitlines()[-1].strip().rstrip(".")
    if reason.startswith("Value with unterminated quote"):
        return "a quoted cell is not closed, or has text after its closing quote; expected RFC 4180 quoting"
    return reason


# ----------------------------------------------------------------------------------- error paths only
def _cells_at(path: str, line_no: int):
    """The cells of the CSV record ending at or after physical line `line_no` (None past the end). A NUL
    byte or invalid UTF-8 up to there is raised: it is the first thing wrong with the file."""
    for line, cells in records(path):
        if line >= line_no:
            return cells
    return None


def _first_bad_time(headers) -> str:
    """The first time cell (or row end) the SQL refused, found again with the same rule in Python
    (timefmt.csv_us_to_ns)."""
    for h in headers:
        cols = [(h.position[c], h.label(c), signed, required) for c, signed, required in TIMES if c in h.position]
        rows = records(h.path)
        next(rows, None)
        for line, cells in rows:
            if not cells:
                continue            # a blank line: DuckDB skips it too
            if _is_header(h, cells):
                return _repeated_header(h.path, line)
            if len(cells) != len(h.cells):
                return (f"{h.path}: line {line}: expected {len(h.cells)} columns, found {len(cells)} (truncated or "
                        "malformed row)")
            ns = []
            for i, label, signed, required in cols:
                cell = cells[i]
                try:
                    ns.append(timefmt.csv_us_to_ns(cell, signed=signed, required=required))
                except timefmt.BadTime as e:
                    return f"{h.path}: line {line}: column '{label}' is {cell!r}; {e}"
            if ns[0] + ns[1] >= 2**63:
                return (f"{h.path}: line {line}: the kernel ends ({h.label('start_us')} + {h.label('dur_us')}) "
                        f"beyond {timefmt.MAX_US_TEXT} µs; expected it to end within the BIGINT nanoseconds the "
                        "store keeps")
    return f"{headers[0].path}: a time cell is not a plain decimal number of microseconds"


def _first_bad_text(headers, where: str, line) -> str:
    """The first NUL byte or invalid UTF-8 of the files (the file DuckDB named first), by a strict read."""
    for path in dict.fromkeys([where] + [h.path for h in headers]):
        try:
            for _ in records(path):
                pass
        except InputError as e:
            return str(e)
    at = f"line {line.group(1)}: " if line else ""
    return f"{where}: {at}invalid UTF-8 or a NUL byte; expected a UTF-8 text file"


def _lone_cr(path: str) -> str | None:
    """Where a carriage return does not end a line (CR without LF), which DuckDB's reader refuses."""
    line, offset = 1, 0
    with sniff.open_regular(path) as f:
        prev = b""
        while chunk := f.read(1 << 20):
            buf = prev + chunk
            for m in re.finditer(rb"\r(?!\n)", buf[:-1]):
                at, before = m.start(), buf.count(b"\n", 0, m.start())
                return (f"{path}: line {line + before}, byte offset {offset + at}: a carriage return (CR) that "
                        "does not end a line; expected LF or CRLF line ends")
            line += buf.count(b"\n", 0, len(buf) - 1)
            offset += len(buf) - 1
            prev = buf[-1:]
    return None


# ------------------------------------------------------------------------------ mixed LF / CRLF line ends
def _mixed_line_ends(path: str) -> bool:
    """Both CRLF and bare LF line ends in one file (DuckDB's strict reader takes one kind per file)."""
    crlf = lf = 0
    with sniff.open_regular(path) as f:
        prev = b""
        while chunk := f.read(1 << 20):
            crlf += (prev + chunk[:1]).count(b"\r\n") + chunk.count(b"\r\n")
            lf += chunk.count(b"\n")
            prev = chunk[-1:]
    return 0 < crlf < lf


@contextlib.contextmanager
def _lf_files(con, headers, normalise_ends: bool):
    """{file DuckDB reads: the user's file}. With `normalise_ends`, a file that mixes LF and CRLF is read
    from a copy with LF line ends (CR+LF inside quoted cells kept: their text is data), written beside the
    side store and removed afterwards. Lines keep their numbers, so errors still name the right line."""
    if not normalise_ends:
        yield {h.path: h.path for h in headers}
        return
    where = _scratch_dir(con)
    where = where or tempfile.gettempdir()
    leftovers.sweep(where, LF_PREFIX)
    folder = os.path.join(where, leftovers.own_name(LF_PREFIX))
    os.mkdir(folder, 0o700)
    try:
        files = {}
        for i, h in enumerate(headers):
            if _mixed_line_ends(h.path):
                copy = os.path.join(folder, f"{i}-{os.path.basename(h.path)}")
                _lf_copy(h.path, copy)
                files[copy] = h.path
            else:
                files[h.path] = h.path
        yield files
    finally:
        shutil.rmtree(folder, ignore_errors=True)


LF_PREFIX = ".tracedb-lf-"      # + pid + "-" + random: the LF copies' folder


def _scratch_dir(con) -> str | None:
    row = sql.run(con, "ascend_csv_scratch_dir").fetchone()
    return os.path.dirname(os.path.abspath(row[0])) if row and row[0] and row[0] != ":memory:" else None


def _lf_copy(src: str, dst: str):
    """Copy src to dst with CRLF line ends made LF, 1 MiB at a time, cutting only after an LF with an
    even number of quotes before it (outside any quoted cell)."""
    try:
        with sniff.open_regular(src) as fin, open(dst, "wb") as fout:
            buf = b""
            while True:
                chunk = fin.read(1 << 20)
                buf += chunk
                cut = _outside_quotes_cut(buf) if chunk else len(buf)
                fout.write(_crlf_to_lf(buf[:cut]))
                buf = buf[cut:]
                if not chunk:
                    return
    except OSError as e:
        raise StoreError(f"{os.path.dirname(dst)}: cannot write the LF copy of {src} that its mixed LF/CRLF line "
                         f"ends need: {e.strerror}") from None


def _crlf_to_lf(piece: bytes) -> bytes:
    """CR LF -> LF outside quoted cells of a piece that starts outside quotes: split at the quotes, the
    even parts are outside (a doubled quote inside a cell gives an empty outside part, keeping the parity).
    8x faster than one regex over quoted cells (0.17 s for 21 MB)."""
    parts = piece.split(b'"')
    parts[0::2] = [p.replace(b"\r\n", b"\n") for p in parts[0::2]]
    return b'"'.join(parts)


def _outside_quotes_cut(buf: bytes) -> int:
    """The end of the last line of buf that ends outside quotes; 0 when none is found among the last 64
    lines (the next read adds to buf), len(buf) once buf exceeds LINE_LIMIT (DuckDB refuses such a record)."""
    if len(buf) > LINE_LIMIT:
        return len(buf)
    quotes = buf.count(b'"')
    end = len(buf)
    for _ in range(64):
        nl = buf.rfind(b"\n", 0, end)
        if nl < 0:
            return 0
        quotes -= buf.count(b'"', nl + 1, end)
        if quotes % 2 == 0:
            return nl + 1
        end = nl
    return 0

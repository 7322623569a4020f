"""Ascend kernel_details.csv and msprof op_summary_*.csv -> kernels_raw_ascend_csv rows of one run.

Both are the same table under two sets of column names (torch_npu renames op_summary's columns), with
drift across versions: Block Dim|Num, Step Id|ID, Device_id optional, Level0 vs Level1/2 column sets,
PMU columns that depend on aic_metrics. The header is mapped to canonical columns in one place
(tracedb.ingest.ascend_csv_header);
every other column is kept: numeric ones (PMU metrics, judged from the first rows) as DOUBLE in
`metrics`, named by the run's `metric_columns`, the rest verbatim in `extra_text` / `extra_columns`.
pyarrow's CSV reader parses the rows and tracedb.ingest.ascend_csv_arrow turns them into the store's
columns (times as text until they are integer ns), which sql/ingest/ingest_ascend_csv.sql inserts.

What is refused, each with one line naming the file and the line (and byte offset where it applies):
invalid UTF-8 and NUL bytes anywhere, lines longer than LINE_LIMIT, a carriage return that does not end a
line, a header naming a column twice, time cells that are not plain decimal µs
(tracedb.ingest.timefmt.csv_us_to_ns), id cells that are not integers, rows of the wrong width. The fast
path only notices that something is wrong; the Python readers here (header, the sampled rows, the error
path `_first_problem`) decode strictly, line by line, and say where. LF and CRLF line ends may be mixed.

A run's last file cut short at its end (its last line without a line end and incomplete: tracedb.ingest.cut_end)
is read up to that line and the run is marked truncated, as a cut Chrome trace is; that is looked for only
when the reader stops, or when the last line has no line end (a quoted cell left open there is text the
parser would take).
"""
import contextlib
import csv
import itertools
import re

import duckdb

from tracedb import sql
from tracedb.errors import InputError
from tracedb.ingest import ascend_host, cut_end, formats, sniff, timefmt
from tracedb.ingest.ascend_csv_header import CANONICAL, INT_BITS, SQL_TYPES, TIMES, Header, normalise
from tracedb.ingest.duckdb_memory import memory_cap

# The longest line (so also field) read from a CSV: 4 MiB. The real traces' longest line is 1,351 bytes
# (the AlexNet kernel_details.csv, shape lists), so this leaves room for any shape list. pyarrow's reader
# needs every row inside one block, and its block is this size: 2 MiB blocks made a 464 MB file 12 % slower
# to ingest than 4 MiB, 8 MiB blocks took 0.24 GB more memory. Python's csv module (field_size_limit,
# default 128 KiB) gets the same bound.
LINE_LIMIT = 4 << 20
csv.field_size_limit(max(csv.field_size_limit(), LINE_LIMIT))
HEAD_BYTES = 1 << 16        # read for the empty / binary / other-format checks: ~90 lines of a real trace
SAMPLE_ROWS = 2000          # rows that judge whether an extra column is numeric
# Rows per INSERT: two of DuckDB's row groups (122,880 rows each), so that no INSERT leaves a row group
# half full for the next one to rewrite. Each INSERT commits on its own, so memory holds a few such
# tables whatever the file's size; 111 INSERTs of one parsed block each took twice the time.
INSERT_ROWS = 2 * 122_880
# DuckDB's memory_limit while the rows go in and during the run's final transaction (engine/loading/single.py):
# DuckDB keeps what it has written cached until memory is short; for a 2 GB file the peak RSS was 1.0 GB
# without the cap and 0.73-0.78 GB with it.
DUCKDB_MEMORY = 400 << 20
BOM = b"\xef\xbb\xbf"
# The table of these rows: kernels_raw's columns but the seven GPU launch ones, which Ascend's CSVs never
# fill (each NULL column cost ~40 ms of CPU per 2 M rows to append, as much again to write).
TABLE = "kernels_raw_ascend_csv"

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


def records(path: str, end_line: int | None = None):
    """(line number, cells) of every CSV record of the file, the header first (line numbers count physical
    lines; a record's is the line it ends on). Invalid UTF-8, NUL bytes, lines over LINE_LIMIT and csv
    module errors (strict: a quote left open, text after a closing quote) are refused with one line naming
    the line. `end_line`: the lines from there on are not read (the cut line of a file cut short)."""
    with sniff.open_regular(path) as f:
        reader = csv.reader(_text_lines(path, f, end_line), strict=True)
        while True:
            try:
                cells = next(reader)
            except StopIteration:
                return
            except csv.Error as e:
                raise InputError(_csv_error(path, reader.line_num, e)) from None
            yield reader.line_num, cells


def _text_lines(path: str, f, end_line: int | None = None):
    """The file's lines before `end_line` (all when None), decoded as strict UTF-8 one at a time (a
    multi-byte character never spans a newline), keeping their line ends for the csv module; the BOM of
    line 1 dropped."""
    offset = 0
    for n in itertools.count(1):
        if end_line is not None and n >= end_line:
            return
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


class CutShort(formats.ReadAgain):
    """The run's last file is cut short at its end (a cut_end.Cut): the caller rolls back and calls load()
    again with it, to read the file up to its cut line."""

    def __init__(self, cut: cut_end.Cut):
        super().__init__(str(cut))
        self.cut = cut

    def adjust(self, options: dict):
        options["cut"] = self.cut


class NotNumeric(formats.ReadAgain):
    """An extra column judged numeric from the first rows holds text further down: load it as text. The
    caller rolls back and calls load() again with `index` added to as_text (DuckDB cannot go on in a
    transaction after a failed statement, so the retry is the caller's)."""

    def __init__(self, index: int):
        super().__init__(index)
        self.index = index

    def adjust(self, options: dict):
        options["as_text"].add(self.index)


def numeric_extras(header: Header, sample_rows: int = SAMPLE_ROWS, end_line: int | None = None) -> set[int]:
    """Positions of the extra columns whose first `sample_rows` values (of the lines before `end_line`) are
    all numbers (or N/A, empty)."""
    candidates = {i for _, i in header.extras}
    rows = records(header.path, end_line)
    next(rows, None)
    for n, (_, row) in enumerate(rows):
        if n >= sample_rows or not candidates:
            break
        for i in list(candidates):
            v = row[i].strip("\t ") if i < len(row) else ""
            if v not in ("", "N/A") and not is_number(v):
                candidates.discard(i)
    rows.close()
    return candidates


def is_number(v: str) -> bool:
    try:
        float(v)
        return True
    except ValueError:
        return False


# ------------------------------------------------------------------------------------------------ load
def _arrow():
    """tracedb.ingest.ascend_csv_arrow, imported when a CSV is read: pyarrow's compute and CSV modules
    reserve address space at import (the JSON and SQLite readers run under tighter limits without them)."""
    from tracedb.ingest import ascend_csv_arrow
    return ascend_csv_arrow


def _layout(header: Header, numeric: set[int]):
    """How pyarrow reads each column: ids as integers, times as text, numeric extras as DOUBLE, every
    other text dictionary-encoded (each distinct text once per block). An ascend_csv_arrow.Layout."""
    import pyarrow as pa
    arrow = _arrow()
    canon_at = {i: c for c, i in header.position.items()}
    types = {}
    for i in range(len(header.cells)):
        canon = canon_at.get(i)
        if canon in INT_BITS:
            types[i] = pa.int32() if INT_BITS[canon] == 32 else pa.int64()
        elif canon in arrow.NS_COLUMN:
            types[i] = pa.string()
        elif canon is None and i in numeric:
            types[i] = pa.float64()
        else:
            types[i] = pa.dictionary(pa.int32(), pa.string())
    extras = [i for _, i in header.extras]
    return arrow.Layout(len(header.cells), types, header.position, [i for i in extras if i in numeric],
                        [i for i in extras if i not in numeric])


def load(con, run_id: int, headers: list[Header], as_text: set[int] = frozenset(), cut: cut_end.Cut | None = None):
    """Insert the rows of CSV files sharing one header layout into kernels_raw_ascend_csv as run `run_id`, and its
    distinct text tuples into kernel_texts. Each INSERT commits on its own (rows inside one open
    transaction kept every Arrow table alive until the commit: 2.2 GB for a 2 GB file); the run is not
    visible before its runs row, and a failed ingest discards the side store that holds them.

    Returns the names of the metric (numeric) and of the text extra columns, in stored order, and the seq
    of the rows that may be exact copies (None: any row may; arrow.CopyCandidates). Raises
    NotNumeric when a column judged numeric is not; the caller rolls back and retries with its index in
    `as_text`. Raises CutShort when the last file is cut short at its end; the caller rolls back and
    retries with that `cut`, the rows then read up to its line. Only the last file may be: a slice cut short
    before the next one leaves a gap inside the run. Any other problem of the files is raised as one
    InputError naming file and line."""
    first = headers[0]
    for h in headers[1:]:
        if [normalise(c) for c in h.cells] != [normalise(c) for c in first.cells]:
            raise InputError(f"{h.path}: line 1: header differs from {first.path}; slices of one run must share it")
    try:
        numeric = numeric_extras(first, end_line=cut.line if cut and cut.path == first.path else None) - set(as_text)
    except InputError:          # a sampled line: the cut line, a quote left open at the end of the file?
        again = _cut_at_end(headers, cut)
        if again:
            raise again from None
        raise
    arrow = _arrow()
    layout = _layout(first, numeric)
    metrics = [(n, i) for n, i in first.extras if i in numeric]
    hazards: list = []
    texts, copies = arrow.Texts(layout), arrow.CopyCandidates()
    rows = arrow.batches([h.path for h in headers], layout, TIMES, LINE_LIMIT, hazards, texts, copies,
                         {cut.path: cut.offset} if cut else None)
    try:
        with memory_cap(con, DUCKDB_MEMORY), contextlib.closing(arrow.in_tables(rows, INSERT_ROWS)) as tables:
            for table in tables:
                _insert(con, run_id, table, metrics)
    except arrow.Suspect as e:
        raise _cut_at_end(headers, cut) or _first_problem(headers, numeric, str(e), cut) from None
    finally:
        for _, guard in hazards:
            guard.close()
    if cut is None and not hazards[-1][1].line_end:
        again = _cut_at_end(headers, cut)      # a quoted cell open at the end, which the parser took as a cell
        if again:
            raise again
    for path, guard in hazards:
        if guard.nul or guard.lone_cr:        # found again, with its place (a CR inside quotes is data)
            problem = _first_problem([h for h in headers if h.path == path], numeric, None, cut)
            if problem is not None:
                raise problem
    if cut is not None and copies.rows == 0:
        raise InputError(f"{cut}: cut short (crashed run?) before any complete row; expected at least one "
                         "complete data line")
    _register(con, "ascend_csv_texts", texts.table(),
              lambda: sql.run(con, "ingest_ascend_csv_texts", {"run_id": run_id}).fetchall())
    return [n for n, _ in metrics], [n for n, i in first.extras if i not in numeric], copies.seq()


def _cut_at_end(headers, cut) -> CutShort | None:
    """CutShort when the run's last file is cut short at its end (cut_end.last_line) and that is not known
    yet (`cut` None)."""
    if cut is not None:
        return None
    last = headers[-1]
    found = cut_end.last_line(last.path, len(last.cells), LINE_LIMIT)
    return CutShort(found) if found else None


def _insert(con, run_id, table, metrics):
    """Insert one Arrow table of converted rows, visible to the INSERT as ascend_csv_rows."""
    arrow = _arrow()
    present = set(table.schema.names)
    projection = ",\n        ".join(
        (sql.ident(c) if c in present else f"NULL::{SQL_TYPES.get(c, 'VARCHAR')}") + f" AS {sql.ident(c)}"
        for c in CANONICAL if c not in arrow.NS_COLUMN and c not in arrow.TEXT_COLUMNS) + (
        ",\n        wait_ns" if "wait_ns" in present else ",\n        NULL::BIGINT AS wait_ns")
    _register(con, "ascend_csv_rows", table, lambda: sql.run(
        con, "ingest_ascend_csv", {"run_id": run_id}, projection=projection,
        metrics="[" + ", ".join(sql.ident(f"metric_{i}") for _, i in metrics) + "]::DOUBLE[]").fetchall())


def _register(con, name: str, data, statement):
    """Run `statement` with the Arrow `data` visible to it as `name`."""
    con.register(name, data)
    try:
        statement()
    finally:
        try:
            con.unregister(name)
        except duckdb.TransactionException:      # a failed INSERT aborted the transaction: the caller rolls back
            pass


# ----------------------------------------------------------------------------------- error paths only
def _first_problem(headers, numeric: set[int], hint: str | None, cut: cut_end.Cut | None = None):
    """The first thing wrong with the files, found by a strict read in Python: an InputError naming file
    and line (raised directly by `records` for invalid UTF-8, NUL bytes, long lines and CSV syntax), or
    NotNumeric for a column judged numeric that holds text. None when the files are fine and `hint` is
    None (what the reader took for a problem, a CR inside a quoted cell, is data). `cut`: the file's lines
    from its cut line on are not read."""
    for h in headers:
        times = [(h.position[c], h.label(c), signed, required) for c, signed, required in TIMES if c in h.position]
        ints = [(h.position[c], h.label(c), bits) for c, bits in INT_BITS.items() if c in h.position]
        rows = records(h.path, cut.line if cut and cut.path == h.path else None)
        next(rows, None)
        for line, cells in rows:
            if not cells:
                continue            # a blank line: the reader skips it too
            if _is_header(h, cells):
                return InputError(_repeated_header(h.path, line))
            if len(cells) != len(h.cells):
                return InputError(f"{h.path}: line {line}: expected {len(h.cells)} columns, found {len(cells)} "
                                  "(truncated or malformed row)")
            ns = []
            for i, label, signed, required in times:
                try:
                    ns.append(timefmt.csv_us_to_ns(cells[i], signed=signed, required=required))
                except timefmt.BadTime as e:
                    return InputError(f"{h.path}: line {line}: column '{label}' is {cells[i]!r}; {e}")
            if ns[0] + ns[1] >= 2**63:
                return InputError(f"{h.path}: line {line}: the kernel ends ({h.label('start_us')} + "
                                  f"{h.label('dur_us')}) beyond {timefmt.MAX_US_TEXT} µs; expected it to end "
                                  "within the BIGINT nanoseconds the store keeps")
            for i, label, bits in ints:
                if cells[i] not in timefmt.CSV_MISSING and not _is_integer(cells[i], bits):
                    shown = cells[i] if len(cells[i]) <= 60 else cells[i][:60] + "…"
                    return InputError(f"{h.path}: line {line}: column '{label}' is {shown!r}; expected an integer")
            for i in numeric:
                if cells[i] not in timefmt.CSV_MISSING and not is_number(cells[i]):
                    return NotNumeric(i)
    if hint is None:
        return None
    return InputError(f"{headers[0].path}: cannot read as CSV ({hint.strip().splitlines()[0]}); expected an "
                      "RFC 4180 CSV")


def _is_integer(cell: str, bits: int) -> bool:
    """What the reader takes as an integer of `bits` bits: decimal digits with an optional '-' (or a 0x
    hexadecimal), blanks around them allowed."""
    text = cell.strip(" \t")
    # 40 characters hold any 64-bit integer, leading zeros aside; Python refuses int() of over 4,300 digits
    if len(text.lstrip("-").lstrip("0")) > 40 or not re.fullmatch(r"-?[0-9]+|0[xX][0-9a-fA-F]+", text):
        return False
    value = int(text, 0) if text[:2] in ("0x", "0X") else int(text)
    return -(1 << (bits - 1)) <= value < (1 << (bits - 1))


def _is_header(header: Header, cells) -> bool:
    return [normalise(c) for c in cells] == [normalise(c) for c in header.cells]


def _repeated_header(where, line) -> str:
    return (f"{where}: line {line}: the header again (files joined with `cat`?); expected one header line, "
            "then rows (ingest the files of one run as a profiler folder instead)")


def _lone_cr(path: str) -> str | None:
    """Where a carriage return does not end a line (CR without LF), which the reader does not take."""
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


def _utf8_error(path, line, offset, e: UnicodeDecodeError) -> str:
    bad = " ".join(f"0x{b:02X}" for b in e.object[e.start:e.end])
    return (f"{path}: line {line}, byte offset {offset + e.start}: invalid UTF-8 ({bad}: {e.reason}); "
            "expected a UTF-8 text file")


def _csv_error(path: str, line: int, e: csv.Error) -> str:
    text = str(e)
    if "field larger than field limit" in text:
        return (f"{path}: line {line}: a field longer than {LINE_LIMIT >> 20} MiB; expected CSV fields of at most "
                f"{LINE_LIMIT >> 20} MiB")
    if "new-line character seen in unquoted field" in text:     # a CR inside a line
        return _lone_cr(path) or (f"{path}: line {line}: a carriage return (CR) inside a line; "
                                   "expected LF or CRLF line ends")
    if "unexpected end of data" in text or "expected after" in text:
        return (f"{path}: line {line}: a quoted cell is not closed, or has text after its closing quote; expected "
                "RFC 4180 quoting")
    return f"{path}: line {line}: not valid CSV ({text}); expected an RFC 4180 CSV"


# ------------------------------------------------------------------------------------------ the format
def source(files: list[str]) -> dict:
    """The Source fields of CSV files of one run (a file, or a profiler folder's slices): their headers, and
    the format the first header names."""
    for f in files:
        sniff.check_regular(f)
    headers = [read_header(f) for f in files]
    return {"files": files, "headers": headers, "format": headers[0].format}


def _found(probe) -> bool:
    probe.opened()
    try:
        read_header(probe.path)
    except InputError:
        return False       # some other CSV: a report, or step_trace_time.csv (no kernels: read beside them, as a
                           # profiler folder's analysis, by ingest/ascend_step_trace.py)
    return True


def _read(con, run_id: int, src, options) -> dict:
    cut = options.get("cut")
    metrics, extras, src.copy_candidates = load(con, run_id, src.headers, options["as_text"], cut)
    if src.host_trace:        # a profiler folder's trace_view.json: the host side (ingest/ascend_host.py)
        ascend_host.load(con, run_id, src.host_trace, src)
    return {"metric_columns": metrics, "extra_columns": extras, "truncated": cut is not None,
            "cut": [str(cut)] if cut else []}


def _finish(con, run_id: int, src, core_rules) -> str | None:
    """Inside the run's transaction: file order and duplicate marks, then the host side when there is one.
    Returns the ingest line's note when the host side was left out (ascend_host.finish), else None."""
    sql.run(con, "ingest_finish", {"run_id": run_id, "marked": True, "candidates": src.copy_candidates},
            rows=sql.ident(TABLE))
    if src.host_trace:
        return ascend_host.finish(con, run_id, src)
    return None


READER = formats.Reader(
    # the catch-all, asked last: any other text is read as an Ascend CSV, whose header check refuses it
    name="ascend-csv", order=90, recognise=lambda probe: probe.kind in ("text", "empty"), found=_found,
    suffixes=(".csv",), source=lambda path: source([path]), read=_read, device_kind="npu",
    recognised="any other text, whose header must name Name, Start Time(us) and Duration(us) (or op_summary's "
    "names); a folder by its layout",
    clock_domain="unix-epoch-local", memory=DUCKDB_MEMORY,   # rows committed and duplicates marked in load
    finish=_finish,
    sql=("ingest_ascend_csv", "ingest_ascend_csv_texts", "ingest_ascend_host_link"),
    docs=(formats.Doc("Ascend `kernel_details.csv` (torch_npu profiler)", "`ascend-kernel-details`", "`kernels_raw`"),
          formats.Doc("msprof `op_summary_*.csv`", "`ascend-op-summary`", "`kernels_raw`"),
          formats.Doc("A profiler folder (`*_ascend_pt/`, `ASCEND_PROFILER_OUTPUT/`, msprof `PROF_*`)",
                      "one of the two above, or `ascend-db`", "`kernels_raw`")))

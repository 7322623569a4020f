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
path only notices that something is wrong; the Python readers (header, the sampled rows, the error path
`first_problem`: tracedb.ingest.ascend_csv_strict) decode strictly, line by line, and say where. LF and CRLF
line ends may be mixed.

A run's last file cut short at its end (its last line without a line end and incomplete: tracedb.ingest.cut_end)
is read up to that line and the run is marked truncated, as a cut Chrome trace is; that is looked for only
when the reader stops, or when the last line has no line end (a quoted cell left open there is text the
parser would take).
"""
import contextlib

import duckdb

from tracedb import sql
from tracedb.errors import InputError
from tracedb.ingest import ascend_csv_strict, ascend_host, cut_end, formats, sniff
from tracedb.ingest.ascend_csv_header import CANONICAL, INT_BITS, SQL_TYPES, TIMES, Header, normalise
from tracedb.ingest.duckdb_memory import memory_cap
HEAD_BYTES = 1 << 16        # read for the empty / binary / other-format checks: ~90 lines of a real trace
SAMPLE_ROWS = 2000          # rows that judge whether an extra column is numeric
# Rows per INSERT: two of DuckDB's row groups (122,880 rows each), so that no INSERT leaves a row group
# half full for the next one to rewrite. Each INSERT commits on its own, so memory holds a few such
# tables whatever the file's size; 111 INSERTs of one parsed block each took twice the time.
INSERT_ROWS = 2 * 122_880
# DuckDB's memory_limit while the rows go in and during the run's final transaction (engine/loading/landing.py):
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
    line, cells = next(ascend_csv_strict.records(path), (1, []))
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
        # binary from its first bytes (an image, an archive); a NUL inside text is named by line in
        # ascend_csv_strict.records()
        raise InputError(f"{path}: byte offset {nul}: binary data; expected a CSV text file")


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


class CutShort(formats.ReadAgain):
    """The run's last file is cut short at its end (a cut_end.Cut): the caller rolls back and calls load()
    again with it, to read the file up to its cut line."""

    def __init__(self, cut: cut_end.Cut):
        super().__init__(str(cut))
        self.cut = cut

    def adjust(self, options: dict):
        options["cut"] = self.cut


def numeric_extras(header: Header, sample_rows: int = SAMPLE_ROWS, end_line: int | None = None) -> set[int]:
    """Positions of the extra columns whose first `sample_rows` values (of the lines before `end_line`) are
    all numbers (or N/A, empty)."""
    candidates = {i for _, i in header.extras}
    rows = ascend_csv_strict.records(header.path, end_line)
    next(rows, None)
    for n, (_, row) in enumerate(rows):
        if n >= sample_rows or not candidates:
            break
        for i in list(candidates):
            v = row[i].strip("\t ") if i < len(row) else ""
            if v not in ("", "N/A") and not ascend_csv_strict.is_number(v):
                candidates.discard(i)
    rows.close()
    return candidates


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
    ascend_csv_strict.NotNumeric when a column judged numeric is not; the caller rolls back and retries with its
    index in `as_text`. Raises CutShort when the last file is cut short at its end; the caller rolls back and
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
    rows = arrow.batches([h.path for h in headers], layout, TIMES, ascend_csv_strict.LINE_LIMIT, hazards, texts,
                         copies, {cut.path: cut.offset} if cut else None)
    try:
        with memory_cap(con, DUCKDB_MEMORY), contextlib.closing(arrow.in_tables(rows, INSERT_ROWS)) as tables:
            for table in tables:
                _insert(con, run_id, table, metrics)
    except arrow.Suspect as e:
        raise _cut_at_end(headers, cut) or ascend_csv_strict.first_problem(headers, numeric, str(e), cut) from None
    finally:
        for _, guard in hazards:
            guard.close()
    if cut is None and not hazards[-1][1].line_end:
        again = _cut_at_end(headers, cut)      # a quoted cell open at the end, which the parser took as a cell
        if again:
            raise again
    for path, guard in hazards:
        if guard.nul or guard.lone_cr:        # found again, with its place (a CR inside quotes is data)
            problem = ascend_csv_strict.first_problem([h for h in headers if h.path == path], numeric, None, cut)
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
    found = cut_end.last_line(last.path, len(last.cells), ascend_csv_strict.LINE_LIMIT)
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
    sql=("ingest_ascend_csv", "ingest_ascend_csv_texts", "ingest_ascend_host_link", "ingest_ascend_host_linked"),
    docs=(formats.Doc("Ascend `kernel_details.csv` (torch_npu profiler)", "`ascend-kernel-details`", "`kernels_raw`"),
          formats.Doc("msprof `op_summary_*.csv`", "`ascend-op-summary`", "`kernels_raw`"),
          formats.Doc("A profiler folder (`*_ascend_pt/`, `ASCEND_PROFILER_OUTPUT/`, msprof `PROF_*`)",
                      "one of the two above, or `ascend-db`", "`kernels_raw`")))

"""The rows of Ascend CSV files as Arrow tables in the store's columns, ready for INSERTs.

Three stages overlap, each on a thread of its own: pyarrow's streaming CSV reader parses one block at a
time (so memory stays flat as files grow); Arrow compute kernels turn each block into kernels_raw
columns; the caller's thread has DuckDB insert them, on DuckDB's own threads. On a 2-core machine the
load of a 2 M-row, 464 MB kernel_details.csv takes 3.5-4 s this way, where DuckDB's CSV reader storing
the same columns took 7.3 s.

- Texts are read dictionary-encoded: names, types, shapes, dtypes and formats repeat (14 distinct tuples
  of shapes, dtypes and formats among 2 M rows of a decode trace), so each block holds each text once,
  and each run's distinct tuples are numbered once (`Texts`, stored in kernel_texts).
- Times are read as text and turned into integer ns here, exactly, by the rule of
  tracedb.ingest.timefmt.csv_us_to_ns (integer part * 1000 + the first 3 decimals, digits below 1 ns
  truncated); never through a float.
- Nothing is refused here with a message: a cell or row that breaks a rule stops the batches with
  `Suspect`, and tracedb.ingest.ascend_csv_strict finds and words the first problem of the file by reading it
  again, strictly, in Python. Only what can hide from the parser is looked for while reading: NUL bytes
  and carriage returns (`Guarded`, tracedb.ingest.ascend_csv_guarded).
- A file cut short at its end is read up to its cut line (`limits`, tracedb.ingest.cut_end): the parser
  sees the file's bytes up to there only.
"""
import queue
import threading

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from tracedb.ingest import arrow_pool
from tracedb.ingest.ascend_csv_guarded import Guarded

arrow_pool.fit_to_limits()

QUEUE_BLOCKS = 2                           # parsed blocks waiting for conversion (memory: ~2 blocks' rows)
QUEUE_TABLES = 2                           # converted tables waiting for their INSERT


class Suspect(Exception):
    """The parser refused a block, or a cell breaks a rule: the file is read again strictly to say where."""


class Layout:
    """How the columns of one header are read and where each goes, as tracedb.ingest.ascend_csv decides:
    `names` (c0, c1, ... for the parser), `types` (pyarrow type per column name), `canon` (canonical
    column -> position), `metrics` and `extras` (positions of the numeric and the text extra columns)."""

    def __init__(self, ncols: int, types: dict[int, pa.DataType], canon: dict[str, int], metrics: list[int],
                 extras: list[int]):
        self.names = [f"c{i}" for i in range(ncols)]
        self.types = {self.names[i]: t for i, t in types.items()}
        self.canon, self.metrics, self.extras = canon, metrics, extras


# the canonical text columns kept once per distinct tuple (kernel_texts), in kernel_texts' order
TEXT_COLUMNS = ("op_state", "input_shapes", "input_dtypes", "input_formats", "output_shapes", "output_dtypes",
                "output_formats")
# canonical time column -> the store's column
NS_COLUMN = {"start_us": "start_ns", "dur_us": "dur_ns", "wait_us": "wait_ns"}


def batches(paths: list[str], layout: Layout, time_cols, line_limit: int, hazards: list, texts: "Texts",
            copies: "CopyCandidates", limits: dict[str, int] | None = None):
    """Record batches of every row of `paths` (one header layout), in file order: seq, the canonical
    columns but the texts (times as start_ns, dur_ns, wait_ns), metric_<i> per numeric extra column,
    kind, and text_id (the row's tuple of texts in `texts`). `time_cols`: (canonical column, signed,
    required). Raises Suspect at the first block the parser or a rule refuses; appends each file's
    Guarded reader to `hazards` (NUL, lone CR) for the caller to look at once every row is read. `copies`
    notes the rows that may be exact copies of others. `limits`: path -> the byte its rows end at (a file
    cut short at its end)."""
    seq, counting = 0, pa.array([], pa.int64())
    for path in paths:
        guard = Guarded(path, (limits or {}).get(path))
        hazards.append((path, guard))
        for block in _parsed(guard, layout, line_limit):
            if len(counting) < block.num_rows:      # 0, 1, 2, ...: built in Python once, not per block
                counting = pa.array(range(block.num_rows), pa.int64())
            cols = {"seq": pc.add(counting.slice(0, block.num_rows), _i64(seq))}
            for canon, signed, required in time_cols:
                if canon in layout.canon:
                    cols[NS_COLUMN[canon]] = _ns(block.column(layout.canon[canon]), signed, required)
            for canon, i in layout.canon.items():
                if canon not in NS_COLUMN and canon not in TEXT_COLUMNS:
                    cols[canon] = block.column(i)
            for i in layout.metrics:
                cols[f"metric_{i}"] = block.column(i)
            _check_end(cols)
            _check_nul([cols[c] for c in ("name", "op_type", "core_type") if c in cols] + texts.columns(block))
            cols["kind"] = _kind(cols.get("name"), cols.get("core_type"))
            cols["text_id"] = texts.ids(block)
            copies.add(cols["start_ns"], seq)
            seq += block.num_rows
            yield pa.record_batch(cols)


def _parsed(guard: Guarded, layout: Layout, line_limit: int):
    """The file's parsed blocks, read on a thread of their own (the parser holds no GIL while it works)."""
    try:
        reader = pacsv.open_csv(
            guard, read_options=pacsv.ReadOptions(block_size=line_limit + 2, column_names=layout.names, skip_rows=1),
            parse_options=pacsv.ParseOptions(newlines_in_values=True),
            convert_options=pacsv.ConvertOptions(column_types=layout.types, null_values=["", "N/A"],
                                                 strings_can_be_null=True, quoted_strings_can_be_null=True))
    except pa.ArrowInvalid as e:
        raise Suspect(str(e)) from None
    try:
        yield from threaded(lambda: iter(reader), QUEUE_BLOCKS, "tracedb-ascend-parse")
    except pa.ArrowInvalid as e:
        raise Suspect(str(e)) from None


def threaded(items, size: int, name: str):
    """The items of the iterator `items()` makes, produced on a thread of their own and handed over
    through a queue of `size`, in order; what the iterator raises is raised here, in the caller's thread.
    Leaving early (an error, Ctrl-C) stops the thread and closes the iterator."""
    q: queue.Queue = queue.Queue(size)
    stop = threading.Event()
    done = object()

    def put(item) -> bool:
        while not stop.is_set():
            try:
                q.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def work():
        source = None
        try:
            source = items()
            for item in source:
                if not put(item):
                    return
            put(done)
        except BaseException as e:          # handed to the caller, which raises it
            put(e)
        finally:
            close = getattr(source, "close", None)
            if close:
                close()

    worker = threading.Thread(target=work, name=name, daemon=True)
    worker.start()
    try:
        while (item := q.get()) is not done:
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        worker.join()


def _i64(value: int) -> pa.Scalar:
    """A typed scalar: pyarrow infers the type of a bare Python number by trying to import numpy first,
    which, without numpy installed, searched the import path on every call (1.4 s per 2 M rows)."""
    return pa.scalar(value, pa.int64())


ZERO, ONE = _i64(0), _i64(1)
MAX_NS = _i64(2**63 - 1)


def _ns(cells: pa.Array, signed: bool, required: bool) -> pa.Array:
    """Integer ns of a column of time cells (timefmt.csv_us_to_ns), or Suspect when one breaks the rule.
    The digits with the point removed and the fraction cut or padded to 3 places are the ns."""
    if cells.null_count and required:
        raise Suspect("a missing time")
    text = pc.ascii_trim(cells, "\t ")
    neg = None
    if signed and pc.any(pc.starts_with(text, "-")).as_py():
        neg = pc.starts_with(text, "-")
        text = pc.if_else(neg, pc.utf8_slice_codeunits(text, 1), text)
    dot = pc.find_substring(text, ".")
    digits = pc.replace_substring(text, ".", "", max_replacements=1)
    decimals = pc.if_else(pc.less(dot, ZERO), ZERO, pc.subtract(pc.subtract(pc.binary_length(text), dot), ONE))
    # plain: ASCII digits only, a point (if any) neither first nor last
    ok = pc.and_(pc.ascii_is_decimal(digits),
                 pc.or_(pc.less(dot, ZERO), pc.and_(pc.greater(dot, ZERO), pc.greater(decimals, ZERO))))
    if not pc.all(pc.or_kleene(ok, pc.is_null(cells))).as_py():
        raise Suspect("a time cell that is not plain decimal µs")
    lo, hi = pc.min_max(decimals).values()
    if not (lo.as_py() == hi.as_py() == 3):
        digits = _three_decimals(digits, decimals)
    try:
        # plain digits (checked above) with leading zeros taken; more than 2^63 - 1 is refused by the cast
        ns = pc.cast(digits, pa.int64())
    except (pa.ArrowInvalid, OverflowError):
        raise Suspect("a time beyond BIGINT ns") from None
    return pc.if_else(neg, pc.negate(ns), ns) if neg is not None else ns


def _three_decimals(digits: pa.Array, decimals: pa.Array) -> pa.Array:
    """The digits as if every cell had exactly 3 decimals: zeros added, or the digits below 1 ns cut."""
    out = digits
    for k in pc.unique(decimals).to_pylist():
        if k is None or k == 3:
            continue
        alt = pc.binary_join_element_wise(digits, pa.scalar("0" * (3 - k), pa.string()), pa.scalar("", pa.string())) \
            if k < 3 else pc.utf8_slice_codeunits(digits, 0, -(k - 3))
        out = pc.if_else(pc.equal(decimals, _i64(k)), alt, out)
    return out


# A row is communication ('comm') when its core type is HCCL or COMMUNICATION or its name starts with
# hcom_ (msprof's op_summary has no core type for some hcom rows); every other row is a 'kernel'. The
# rule is applied to each block's dictionary of distinct texts, not to every row (0.2 s per 2 M rows as
# a SQL CASE).
COMM_CORES = pa.array(["HCCL", "COMMUNICATION"], pa.string())
KINDS = pa.array(["kernel", "comm"], pa.string())


def _kind(name, core_type) -> pa.Array:
    """`kind` of each row of a block; `name` is always there (read_header requires it), `core_type` may not."""
    comm = pc.fill_null(pc.take(pc.starts_with(name.dictionary, "hcom_"), name.indices), False)
    if core_type is not None:
        comm = pc.or_(comm, pc.fill_null(pc.take(pc.is_in(core_type.dictionary, value_set=COMM_CORES),
                                                 core_type.indices), False))
    return pa.DictionaryArray.from_arrays(pc.cast(comm, pa.int32()), KINDS)


def _check_end(cols: dict):
    """Every kernel must end (start + duration) within BIGINT ns: every report adds them."""
    start, dur = cols.get("start_ns"), cols.get("dur_ns")
    if start is not None and dur is not None and len(start):
        room = pc.subtract(MAX_NS, dur)
        if not pc.all(pc.less_equal(start, room)).as_py():
            raise Suspect("a kernel that ends beyond BIGINT ns")


def _check_nul(columns: list):
    """A NUL character in a text cell (each block's dictionary of distinct texts is looked at)."""
    for value in columns:
        if pa.types.is_dictionary(value.type):
            if len(value.dictionary) and pc.any(pc.match_substring(value.dictionary, "\0")).as_py():
                raise Suspect("a NUL character")


# Beyond one candidate in 16 rows (and 4,096) the final transaction searches every row instead: handing
# DuckDB 2^16 seq and keeping those rows of 2 M took 67 ms, 2^18 182 ms; the full search takes ~110 ms.
CANDIDATES_PER_ROW = 1 / 16
MIN_CANDIDATES = 4096


class CopyCandidates:
    """The rows of a run that may be exact copies of one another, noted as its blocks go by. A copy has the
    start of its original (ingest_finish.sql), so while the starts never go backwards in file order, only
    rows whose start equals the previous row's can be copies: those rows and the rows before them are the
    candidates. Once a start goes backwards (slices concatenated twice, streams interleaved out of order),
    any row may be one. Costs ~5 ms per 2 M rows; spares the run's final transaction a partition of every
    row by start, stream and task (~0.1 s, 0.2 CPU-s per 2 M rows)."""

    def __init__(self):
        self.ordered, self.rows = True, 0
        self.last: int | None = None       # the start of the last row seen
        self.seqs: list[pa.Array] = []

    def add(self, start: pa.Array, first_seq: int):
        """The starts of the next block of rows, the first of which has seq `first_seq`."""
        n = len(start)
        self.rows += n
        if not n or not self.ordered:
            return
        head, before, after = start[0].as_py(), start.slice(0, n - 1), start.slice(1)
        if (self.last is not None and head < self.last) or pc.any(pc.less(after, before)).as_py():
            self.ordered, self.seqs = False, []
            return
        if self.last == head:
            self.seqs.append(pa.array([first_seq - 1, first_seq], pa.int64()))
        same = pc.indices_nonzero(pc.equal(after, before))
        if len(same):
            at = pc.cast(same, pa.int64())
            self.seqs += [pc.add(at, _i64(first_seq)), pc.add(at, _i64(first_seq + 1))]
        self.last = start[n - 1].as_py()

    def seq(self) -> list[int] | None:
        """The seq of every candidate row, each once; None when any row may be a copy, or when there are so
        many candidates that the full search costs less than handing them over (CANDIDATES_PER_ROW)."""
        if not self.ordered or sum(len(a) for a in self.seqs) > max(MIN_CANDIDATES, self.rows * CANDIDATES_PER_ROW):
            return None
        return pc.unique(pa.chunked_array(self.seqs, pa.int64())).to_pylist() if self.seqs else []


class Texts:
    """The distinct tuples of a run's text cells (the canonical text columns the file has, then its text
    extras), numbered from 0 in the order of their first row: the run's kernel_texts. Each block's rows
    are mapped to those numbers with Arrow kernels over the dictionary indices; only a block's distinct
    tuples (a handful) go through Python."""

    def __init__(self, layout: Layout):
        self.canon = [(c, layout.canon[c]) for c in TEXT_COLUMNS if c in layout.canon]
        self.extras = list(layout.extras)
        self.positions = [i for _, i in self.canon] + self.extras
        self.number: dict[tuple, int] = {}

    def columns(self, block) -> list:
        return [block.column(i) for i in self.positions]

    def ids(self, block) -> pa.Array:
        """text_id of every row of the block."""
        if not self.positions:
            return pa.nulls(block.num_rows, pa.int32())
        key, span = None, 1
        for column in self.columns(block):
            column = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
            width = len(column.dictionary) + 1            # + 1: NULL
            code = pc.fill_null(column.indices, pa.scalar(width - 1, column.indices.type)).cast(pa.int64())
            if key is not None and span * width >= 1 << 62:
                # the combined code would overflow: renumber the tuples so far 0..k-1 first
                key = pc.dictionary_encode(key).indices.cast(pa.int64())
                span = int(pc.max(key).as_py()) + 1
            key, span = (code, width) if key is None else (pc.add(pc.multiply(key, _i64(width)), code), span * width)
        encoded = pc.dictionary_encode(key)
        # the first row of each distinct tuple of the block (in the order dictionary_encode numbered them),
        # then the tuple's texts
        rows = pc.index_in(encoded.dictionary, value_set=key)
        values = [column.take(rows).to_pylist() for column in self.columns(block)]
        mapping = [self.number.setdefault(t, len(self.number)) for t in zip(*values)]
        return pc.take(pa.array(mapping, pa.int32()), encoded.indices)

    def table(self) -> pa.Table:
        """kernel_texts rows of the run (without run_id): text_id and the eight text columns, the extras
        joined by chr(31) with NULL as '' (one extra: its text as it is)."""
        n = len(self.canon)
        tuples = list(self.number)
        cols = {"text_id": pa.array(range(len(tuples)), pa.int32())}
        for j, (c, _) in enumerate(self.canon):
            cols[c] = pa.array([t[j] for t in tuples], pa.string())
        if len(self.extras) == 1:
            cols["extra_text"] = pa.array([t[n] for t in tuples], pa.string())
        elif self.extras:
            cols["extra_text"] = pa.array(["\x1f".join(v or "" for v in t[n:]) for t in tuples], pa.string())
        return pa.table(cols)


def in_tables(batches, rows: int):
    """The record batches of the generator `batches`, run on a thread of its own, as tables of `rows`
    rows each (the last one fewer), in order (see `threaded`)."""
    def tables():
        try:
            chunk, n = [], 0
            for batch in batches:
                chunk.append(batch)
                n += batch.num_rows
                if n >= rows:
                    table = pa.Table.from_batches(chunk)
                    yield table.slice(0, rows)
                    rest = table.slice(rows)
                    chunk, n = rest.to_batches(), rest.num_rows
            if n:
                yield pa.Table.from_batches(chunk, schema=batch.schema)
        finally:
            batches.close()
    return threaded(tables, QUEUE_TABLES, "tracedb-ascend-convert")

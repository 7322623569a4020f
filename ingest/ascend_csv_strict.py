"""The strict Python read of Ascend CSV files, line by line: their records, and the first problem of a file,
named by file and line.

pyarrow's parser (tracedb.ingest.ascend_csv_arrow) only notices that something is wrong; the readers here
decode strictly and say where. tracedb.ingest.ascend_csv reads the header and the sampled rows with
`records`, and when the parser stops, `first_problem` reads the files again to find what stopped it: invalid
UTF-8, NUL bytes, lines longer than LINE_LIMIT, csv module errors, a carriage return that does not end a line,
the header again, rows of the wrong width, time and id cells that break their rule, or a column judged
numeric that holds text (`NotNumeric`).
"""
import csv
import itertools
import re

from tracedb.errors import InputError
from tracedb.ingest import cut_end, formats, sniff, timefmt
from tracedb.ingest.ascend_csv_header import INT_BITS, TIMES, Header, normalise

# The longest line (so also field) read from a CSV: 4 MiB. The real traces' longest line is 1,351 bytes
# (the AlexNet kernel_details.csv, shape lists), so this leaves room for any shape list. pyarrow's reader
# needs every row inside one block, and its block is this size: 2 MiB blocks made a 464 MB file 12 % slower
# to ingest than 4 MiB, 8 MiB blocks took 0.24 GB more memory. Python's csv module (field_size_limit,
# default 128 KiB) gets the same bound.
LINE_LIMIT = 4 << 20
csv.field_size_limit(max(csv.field_size_limit(), LINE_LIMIT))


# ------------------------------------------------------------------------------------------ reading text
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


class NotNumeric(formats.ReadAgain):
    """An extra column judged numeric from the first rows holds text further down: load it as text. The
    caller rolls back and calls load() again with `index` added to as_text (DuckDB cannot go on in a
    transaction after a failed statement, so the retry is the caller's)."""

    def __init__(self, index: int):
        super().__init__(index)
        self.index = index

    def adjust(self, options: dict):
        options["as_text"].add(self.index)



def is_number(v: str) -> bool:
    try:
        float(v)
        return True
    except ValueError:
        return False



# ----------------------------------------------------------------------------------- error paths only
def first_problem(headers, numeric: set[int], hint: str | None, cut: cut_end.Cut | None = None):
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

"""The error path of the Ascend CSV reader: when pyarrow's fast read finds something wrong, the files are
read again strictly in Python to name the first problem (file, line, column, value), or the column judged
numeric that holds text (ascend_csv.NotNumeric). Imported only when a read fails."""
import re

from tracedb.errors import InputError
from tracedb.ingest import sniff, timefmt
from tracedb.ingest.ascend_csv import INT_BITS, TIMES, Header, NotNumeric, is_number, normalise, records


def first_problem(headers, numeric: set[int], hint: str | None):
    """The first thing wrong with the files, found by a strict read in Python: an InputError naming file
    and line (raised directly by `records` for invalid UTF-8, NUL bytes, long lines and CSV syntax), or
    NotNumeric for a column judged numeric that holds text. None when the files are fine and `hint` is
    None (what the reader took for a problem, a CR inside a quoted cell, is data)."""
    for h in headers:
        times = [(h.position[c], h.label(c), signed, required) for c, signed, required in TIMES if c in h.position]
        ints = [(h.position[c], h.label(c), bits) for c, bits in INT_BITS.items() if c in h.position]
        rows = records(h.path)
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
                    return InputError(f"{h.path}: line {line}: column '{label}' is {cells[i]!r}; expected an integer")
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
    if not re.fullmatch(r"-?[0-9]+|0[xX][0-9a-fA-F]+", text):
        return False
    value = int(text, 0) if text[:2] in ("0x", "0X") else int(text)
    return -(1 << (bits - 1)) <= value < (1 << (bits - 1))


def _is_header(header: Header, cells) -> bool:
    return [normalise(c) for c in cells] == [normalise(c) for c in header.cells]


def _repeated_header(where, line) -> str:
    return (f"{where}: line {line}: the header again (files joined with `cat`?); expected one header line, "
            "then rows (ingest the files of one run as a profiler folder instead)")


def lone_cr(path: str) -> str | None:
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

"""A CSV trace cut short at its end (a crashed run, a partial copy): where its last, incomplete line starts.

The policy (docs/formats.md, "Damaged input"): a file whose last line has no line end and is incomplete
(fewer cells than the header, or a quoted cell still open at the end of the file) is read up to the line
before it and the run is marked truncated, as a Chrome trace cut inside its events is. Damage anywhere else
(a row with a cell too many or too few, a quote left open before the last line) stays the readers' to
refuse: the line boundaries may hold while the columns are shifted, and loading the rest would change sums
without a word. This module only says whether and where a file is cut; the readers ask it on their
failure paths (and the Ascend reader when a file's last line has no line end), never for a whole file."""
import csv
import os
from dataclasses import dataclass

from tracedb.ingest import sniff

TAIL_STEP = 1 << 16         # read backwards from the end in steps of this many bytes to find the last line
COUNT_CHUNK = 1 << 20       # the pass that counts quotes and line ends before the last line


@dataclass(frozen=True)
class Cut:
    """The last line of `path`, cut short: it starts at byte `offset` (the file is read up to there) and is
    line `line` (1-based, as the readers' errors count lines)."""
    path: str
    offset: int
    line: int

    def __str__(self) -> str:
        return f"{self.path}: line {self.line}"


def last_line(path: str, columns: int, line_limit: int) -> Cut | None:
    """Where `path` is cut short, when it is: its last line has no line end (neither LF nor CR), comes after
    a complete record (an even number of quote characters before it) and is incomplete: a quoted cell left
    open at the end of the file, or fewer than `columns` cells. None otherwise: a last line with all its
    cells is a whole row (a final newline is optional), and any other damage is the reader's to refuse.
    The first line (the header) is never a cut row; a last line longer than `line_limit` bytes is not
    looked at (the readers refuse it)."""
    with sniff.open_regular(path) as f:
        size = f.seek(0, os.SEEK_END)
        tail, at, nl = b"", size, -1
        while at > 0 and len(tail) <= line_limit + 1:
            step = min(at, TAIL_STEP)
            at -= step
            f.seek(at)
            tail = f.read(step) + tail
            nl = tail.rfind(b"\n")
            if nl >= 0:
                break
        if nl < 0:
            return None             # one line, the header, or a line past the limit
        rest = tail[nl + 1:]
        if not rest or rest.endswith(b"\r"):
            return None             # the last line has its line end: whole, or refused by the reader
        if not _incomplete(rest.decode("utf-8", "replace"), columns):
            return None
        start = at + nl + 1
        quotes, lines = _count(f, start)
    if quotes % 2:
        return None                 # a quoted cell opened before the last line: damage the reader refuses
    return Cut(path, start, lines + 1)


def _incomplete(text: str, columns: int) -> bool:
    """The last line's text (no line end) is a row cut short: a quote left open, or fewer cells than the
    header, and not more."""
    open_quote = text.count('"') % 2 == 1
    try:
        cells = next(csv.reader([text + '"' if open_quote else text]), [])
    except csv.Error:               # a carriage return inside the line: the reader refuses it
        return False
    return len(cells) <= columns if open_quote else len(cells) < columns


def _count(f, end: int) -> tuple[int, int]:
    """(quote characters, line feeds) in the file's first `end` bytes."""
    f.seek(0)
    quotes = lines = 0
    left = end
    while left > 0:
        chunk = f.read(min(COUNT_CHUNK, left))
        if not chunk:
            break
        quotes += chunk.count(b'"')
        lines += chunk.count(b"\n")
        left -= len(chunk)
    return quotes, lines

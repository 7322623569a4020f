"""The bytes of an Ascend CSV as pyarrow's parser reads them, watched for what it would take silently: NUL
bytes and carriage returns that do not end a line.

tracedb.ingest.ascend_csv_arrow hands each file to the parser through `Guarded`; once every row is read,
tracedb.ingest.ascend_csv looks at what each file's reader saw, and has a file that held a NUL byte or a lone
CR read again strictly to say where (tracedb.ingest.ascend_csv_strict).
"""
import io

from tracedb.ingest import sniff


class Guarded(io.RawIOBase):
    """A file read for pyarrow that notes what its parser would take silently: a NUL byte (valid UTF-8,
    so a string cell would keep it) and carriage returns (a lone CR ends a row for pyarrow; tracedb takes
    LF and CRLF line ends only). pyarrow calls read(n): the file's bytes are handed over as read, looked
    at with memchr-speed searches, and counted only in a block that holds a CR. `limit`: the bytes handed
    over end there (a file cut short at its end, read up to its cut line)."""

    def __init__(self, path: str, limit: int | None = None):
        super().__init__()
        self._f = sniff.open_regular(path)
        self._left = limit
        self.nul = False
        self.cr = self.crlf = 0
        self._last = b""

    def readable(self):
        return True

    def read(self, size: int = -1) -> bytes:
        if self._left is not None:
            size = self._left if size < 0 else min(size, self._left)
        data = self._f.read(size)
        if data:
            self._look(data)
            if self._left is not None:
                self._left -= len(data)
        return data

    def readinto(self, buffer) -> int:
        data = self.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)

    def _look(self, data: bytes):
        if not self.nul and data.find(b"\0") >= 0:
            self.nul = True
        if self._last == b"\r":
            self.crlf += data[:1] == b"\n"
        if data.find(b"\r") >= 0:
            self.cr += data.count(b"\r")
            self.crlf += data.count(b"\r\n")
        self._last = data[-1:]

    def close(self):
        self._f.close()
        super().close()

    @property
    def lone_cr(self) -> bool:
        return self.cr != self.crlf

    @property
    def line_end(self) -> bool:
        """The bytes read end with a line end (or there were none)."""
        return self._last in (b"", b"\n", b"\r")

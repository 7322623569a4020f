"""Part files: each byte range of the event array copied into a JSON array file of its own, in a temporary
folder removed however the ingest ends.

The one copy (copy_file_range, written while the parts before it are parsed) costs ~0.4 s of CPU per GB,
which is what lets a gzip trace and a compact one-line trace take the same path."""
import os
import shutil
import tempfile

from tracedb.ingest.chrome_json.config import JsonIngestConfig
from tracedb.ingest.chrome_json.layout import Layout


class Workdir:
    """A temporary folder for decompressed data and parts, removed however the ingest ends."""

    def __enter__(self):
        self.path = tempfile.mkdtemp(prefix="tracedb-json-")
        return self.path

    def __exit__(self, *exc):
        shutil.rmtree(self.path, ignore_errors=True)


def write_part(layout: Layout, rng: tuple[int, int], out: str, config: JsonIngestConfig) -> str:
    """The byte range `rng` of the event array as its own JSON array file `out`; leading commas are skipped
    by starting after them. The bytes are copied by the kernel (copy_file_range), not through Python."""
    x, y = rng
    with open(layout.path, "rb") as src, open(out, "wb") as dst:
        src.seek(x)
        head = src.read(min(y - x, 64))
        dst.write(b"[" + head.lstrip(b" \t\r\n,"))
        dst.flush()
        _copy_range(src.fileno(), dst.fileno(), x + len(head), y - x - len(head), config.chunk)
        dst.write(b"]")
    return out


def _copy_range(src_fd: int, dst_fd: int, offset: int, count: int, block_size: int):
    """Append `count` bytes of src from `offset` to dst (at its current end); through `block_size` reads
    where the kernel cannot copy them."""
    while count > 0:
        try:
            done = os.copy_file_range(src_fd, dst_fd, min(count, 1 << 30), offset)
        except (AttributeError, OSError):   # not Linux, or a file system without it
            done = 0
        if done <= 0:
            os.lseek(src_fd, offset, os.SEEK_SET)
            block = os.read(src_fd, min(count, block_size))
            if not block:
                return
            done = os.write(dst_fd, block)
        offset += done
        count -= done

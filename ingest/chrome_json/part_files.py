"""Part files: each byte range of the event array copied into a JSON array file of its own, in a work
folder removed however the ingest ends.

The one copy (copy_file_range, written while the parts before it are parsed) costs ~0.4 s of CPU per GB,
which is what lets a gzip trace and a compact one-line trace take the same path.

The work folder (`.tracedb-json-<pid>-<random>`) lies beside the store the parts go into (the ingest's
side store, itself beside the user's store), not in $TMPDIR: that file system is the one the data ends up
on anyway, and $TMPDIR is often a small tmpfs (RAM) while a .gz inflates to GBs and 3 parts of up to
128 MB are on disk at once. A process killed with SIGKILL cannot remove its folder: the next ingest into
that folder removes every such folder whose process is gone (sweep). Any OSError while writing is one line
naming the folder (StoreError: exit 1, the store unchanged)."""
import contextlib
import errno
import os
import shutil
import tempfile

from tracedb import sql
from tracedb.errors import StoreError
from tracedb.ingest import leftovers
from tracedb.ingest.chrome_json.config import JsonIngestConfig
from tracedb.ingest.chrome_json.layout import Layout

PREFIX = ".tracedb-json-"


class Workdir:
    """A work folder for decompressed data and parts in `folder` (its name holds this process's id),
    removed however the ingest ends; stale ones of processes that are gone are removed first."""

    def __init__(self, folder: str | None):
        self.folder = os.path.abspath(folder or tempfile.gettempdir())
        self.path = None

    def __enter__(self) -> str:
        leftovers.sweep(self.folder, PREFIX)
        path = os.path.join(self.folder, leftovers.own_name(PREFIX))
        with cannot_write(self.folder):
            os.mkdir(path, 0o700)
        self.path = path
        return path

    def __exit__(self, *exc):
        shutil.rmtree(self.path, ignore_errors=True)


@contextlib.contextmanager
def cannot_write(folder: str):
    """An OSError inside the block (disk full, no permission, quota) as one line naming the folder."""
    try:
        yield
    except OSError as e:
        reason = e.strerror or str(e) or type(e).__name__
        raise StoreError(f"{folder}: cannot write the JSON ingest's temporary files: {reason}; free space there "
                         "(or set TMPDIR for an in-memory store) and ingest again; the store is unchanged") from None


def store_folder(con) -> str | None:
    """The folder of the database file `con` writes (None in memory): where the work folder goes."""
    row = sql.run(con, "staging_store_path").fetchone()
    return os.path.dirname(os.path.abspath(row[0])) if row and row[0] else None


def write_part(layout: Layout, rng: tuple[int, int], out: str, config: JsonIngestConfig) -> str:
    """The byte range `rng` of the event array as its own JSON array file `out` (in a work folder: an
    error names the folder that holds it); leading commas are skipped by starting after them. The bytes
    are copied by the kernel (copy_file_range), not through Python."""
    x, y = rng
    with cannot_write(os.path.dirname(os.path.dirname(out))), open(layout.path, "rb") as src, \
            open(out, "wb") as dst:
        src.seek(x)
        head = src.read(min(y - x, 64))
        dst.write(b"[" + head.lstrip(b" \t\r\n,"))
        dst.flush()
        _copy_range(src.fileno(), dst.fileno(), x + len(head), y - x - len(head), config.chunk)
        dst.write(b"]")
    return out


def _copy_range(src_fd: int, dst_fd: int, offset: int, count: int, block_size: int):
    """Append `count` bytes of src from `offset` to dst (at its current end); through `block_size` reads
    where the kernel cannot copy them. A full disk raises OSError(ENOSPC) either way."""
    while count > 0:
        try:
            done = os.copy_file_range(src_fd, dst_fd, min(count, 1 << 30), offset)
        except AttributeError:      # not Linux
            done = 0
        except OSError as e:        # a file system without it (EXDEV, EINVAL, ENOSYS...); not a full disk
            if e.errno in (errno.ENOSPC, errno.EDQUOT):
                raise
            done = 0
        if done <= 0:
            os.lseek(src_fd, offset, os.SEEK_SET)
            block = os.read(src_fd, min(count, block_size))
            if not block:
                return
            done = os.write(dst_fd, block)
        offset += done
        count -= done

"""Files replaced whole: every file tracedb writes for the user (a report's `-o`, a Perfetto trace, a
dataset's manifest, the HTML script cache) is written to a temporary file and renamed over its target once
complete, so a reader sees the old file or the new one, never a part.

The temporary file is created exclusively (`mkstemp`: O_CREAT | O_EXCL, mode 0600, then the umask's mode),
in the target's folder under a fresh random name: a file or symlink planted there in advance is never opened,
so nothing is written through a link to another file. The rename replaces the target's directory entry: a
symlink at the target itself is replaced, its destination left as it was."""
import contextlib
import errno
import os
import tempfile

PREFIX = ".tracedb-write-"


def file_mode() -> int:
    """The mode a new file gets from open(): 0o666 less the process's umask."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


@contextlib.contextmanager
def replaced(path: str, binary: bool = False, fsync: bool = False):
    """A file object to write; on a clean exit it becomes `path` (fsync'd first with `fsync`), on an
    exception the temporary file is removed and `path` left as it was."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f"{PREFIX}{os.getpid()}-", suffix=".tmp")
    try:
        os.fchmod(fd, file_mode())
        kw = {} if binary else {"encoding": "utf-8", "newline": ""}
        with os.fdopen(fd, "wb" if binary else "w", **kw) as f:
            yield f
            if fsync:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def probe(path: str) -> None:
    """Raise OSError when `replaced(path)` could not write `path`: a missing or read-only folder, a name too
    long, no permission. Checked before a command does its work."""
    folder = os.path.dirname(os.path.abspath(path))
    if len(os.fsencode(os.path.basename(path))) > os.pathconf(folder, "PC_NAME_MAX"):
        raise OSError(errno.ENAMETOOLONG, os.strerror(errno.ENAMETOOLONG), path)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f"{PREFIX}{os.getpid()}-", suffix=".tmp")
    os.close(fd)
    os.unlink(tmp)


_scratch: str | None = None


def scratch_dir() -> str:
    """A folder of this process's own (mkdtemp: mode 0700, a fresh name; removed at exit) for the files tracedb
    has DuckDB write and then reads back itself (the CSV rendering's COPY): a confined report session may
    reach it and no other path but the store, where the whole temporary folder would let it reach every
    other user's files there."""
    global _scratch
    if _scratch is None or not os.path.isdir(_scratch):
        import atexit
        import shutil
        _scratch = tempfile.mkdtemp(prefix="tracedb-scratch-")
        atexit.register(shutil.rmtree, _scratch, True)
    return _scratch

"""Where a report's text goes: printed, or written to a file atomically (tracedb/atomic.py: a temporary file
beside it, created exclusively, then a rename), so an interrupted write never leaves half a report where a
good one was."""
import contextlib
import os
import stat

from tracedb import atomic


def is_stream(path: str) -> bool:
    """A path written in place, never replaced by a renamed temporary file: a character device or a named
    pipe, and anything under /dev or /proc. /dev/stdout is a link to /proc/self/fd/1, which is a regular
    file when stdout is redirected to one: replacing it would put a plain file where the link was."""
    real = os.path.realpath(path)
    if real.startswith(("/dev/", "/proc/")) or os.path.abspath(path).startswith(("/dev/", "/proc/")):
        return True
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)


def write_output(text: str, path: str | None):
    """Print, or write to a file (atomically: a partial report never replaces a good one)."""
    if not path:
        return text
    with naming(path):
        if is_stream(path):
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(text)
            return None
        with atomic.replaced(path) as f:
            f.write(text)
    return None


@contextlib.contextmanager
def naming(path: str):
    """An OSError while `path` is written names it: a write or flush that fails (ENOSPC, EIO) carries no file
    name, and `error: No space left on device` would not say which file."""
    try:
        yield
    except OSError as e:
        if e.filename is not None or isinstance(e, BrokenPipeError):
            raise
        raise OSError(e.errno, e.strerror or str(e), path) from None

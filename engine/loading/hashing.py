"""The content hash of a run's source files: SHA-256 over their bytes, computed on a thread beside the
parse (hashlib releases the GIL), so identical content is found without costing wall time.

`tracedb ingest FILE` starts it before DuckDB is imported: importing the engine and opening the store
take ~0.3 s on one core, time the second core spends hashing instead of idling. `hasher_for` hands that
thread to the ingest when the files are still the same (path, device, inode, size, mtime), else starts a
new one.

What is hashed is what was read: each file's identity (st_dev, st_ino, st_size, st_mtime_ns) is taken when
the hasher is made, before the parse opens anything, and must be the same when the hasher opens the file
(one open for all its bytes), after it read them, and by path whenever the hasher is joined: after the
parse (engine/loading/parsing.py waits for the hash once the run's rows are read, before its runs row
goes in) and before the merge. A file replaced or written to in between is refused naming it: its run
would hold the new file's rows under the old file's hash, and that file would then be skipped as
"identical content" for good."""
import errno
import hashlib
import json
import os
import stat
import threading

from tracedb.errors import InputError
from tracedb.ingest.capped_read import sparse_refusal


class Refused(OSError):
    """A source file the hasher will not read, or that changed under it: `message` is the whole line."""

    def __init__(self, path: str, message: str):
        super().__init__(errno.EINVAL, message, path)
        self.message = message


def _changed(path: str, before: tuple, now: tuple, when: str) -> Refused:
    """The refusal of a file whose identity went from `before` to `now`."""
    if before[:2] != now[:2]:
        what = "replaced by another file"
    elif before[2] != now[2]:
        what = f"its size went from {before[2]:,} to {now[2]:,} bytes"
    else:
        what = "written to (its modification time changed)"
    return Refused(path, f"{path}: changed {when} ({what}); expected a file that stays as it is while it is "
                         "ingested: ingest it again once its writer is done")


def _ident(st: os.stat_result) -> tuple:
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def _ident_of(path: str) -> tuple | None:
    try:
        return _ident(os.stat(path))
    except OSError:
        return None


class Hasher(threading.Thread):
    """SHA-256 of `files` in order, on its own thread; once joined: digest, size (bytes read) and error
    (the OSError that stopped it, if any: a Refused when a file is sparse or changed while it was read)."""

    def __init__(self, files):
        super().__init__(daemon=True)
        self.files, self.digest, self.size, self.error = list(files), None, 0, None
        self.seen = [_ident_of(f) for f in self.files]     # before the parse opens them

    def run(self):
        try:
            h = hashlib.sha256()
            for k, f in enumerate(self.files):
                self._hash(h, k, f)
            self.digest = h.hexdigest()
        except OSError as e:
            self.error = e

    def _hash(self, h, k: int, path: str):
        """File k into `h`, through one open: its identity checked when opened and once read."""
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))   # a FIFO swapped in: never block
        with os.fdopen(fd, "rb") as fh:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise OSError(errno.EINVAL, "not a regular file", path)
            why = sparse_refusal(path, st, fd)      # 20 GB of holes: minutes of hashing zeros
            if why:
                raise Refused(path, why)
            if self.seen[k] is None:
                self.seen[k] = _ident(st)
            elif _ident(st) != self.seen[k]:
                raise _changed(path, self.seen[k], _ident(st), "before it was read")
            read = 0
            while block := fh.read(1 << 22):
                h.update(block)
                read += len(block)
            now = _ident(os.fstat(fd))
            if now != self.seen[k] or read != st.st_size:
                raise _changed(path, self.seen[k], now if now != self.seen[k] else (*now[:2], read, now[3]),
                               "while it was read")
            self.size += read

    def join(self, timeout=None):
        super().join(timeout)
        if not self.is_alive():
            self.check_unchanged()

    def check_unchanged(self):
        """Each file hashed is still, by its path, the file that was read (not replaced, not written to)."""
        if self.error is not None or self.digest is None:
            return
        for path, seen in zip(self.files, self.seen):
            now = _ident_of(path)
            if now is None:
                self.error = Refused(path, f"{path}: removed while it was ingested; expected a file that stays "
                                           "as it is while it is ingested")
                return
            if now != seen:
                self.error = _changed(path, seen, now, "while it was ingested")
                return


def wait(hasher):
    """Wait for `hasher` (a Hasher or SaltedHasher); a source file it could not read, or that changed since
    the hasher was made, is an InputError naming it."""
    hasher.join()
    e = hasher.error
    if isinstance(e, Refused):
        raise InputError(e.message)
    if e:
        raise InputError(f"{e.filename}: cannot read: {e.strerror}")


class LazyHasher(Hasher):
    """A Hasher that runs on the thread that first joins it. A folder ingest's worker hashes its batch's traces
    so: its core is busy parsing anyway, and a thread per 2.6 MB rank cost more to start (~1.3 ms while the
    parse holds the core) than its hash takes (1.4 ms). The files' identities are still taken when it is
    made, before the parse."""

    def start(self):
        pass

    def join(self, timeout=None):
        if self.digest is None and self.error is None:
            self.run()
        self.check_unchanged()


_early: dict = {}


def start_early(path: str) -> Hasher | None:
    """Start hashing one trace file now, for the ingest that follows in this process."""
    key = _identity([path])
    if key is not None and key not in _early:
        _early[key] = Hasher([path])
        _early[key].start()
    return _early.get(key)


def hasher_for(files, lazy: bool = False) -> Hasher:
    """A running hasher of `files`: the one start_early began for the same files, or a new one (`lazy`: a
    LazyHasher, run when first joined)."""
    hasher = _early.pop(_identity(files), None)
    if hasher is None:
        hasher = LazyHasher(files) if lazy else Hasher(files)
        hasher.start()
    return hasher


def _identity(files):
    try:
        return tuple((os.path.realpath(f), *_ident(st)) for f in files for st in [os.stat(f)])
    except OSError:
        return None


class SaltedHasher:
    """A content hash with a text mixed in: what else decided the run's rows besides the files' bytes.

    - `rocprof-gpuN`: one device's run of a file of several devices, so that the runs of one file's devices
      are not taken for one another (and a re-ingest of a device is still skipped). Kept as first written,
      for every format: stored runs' hashes stay valid.
    - `core-rules=[...]`: an ingest with --core-rule classes per-core tasks its own way, so the same files
      ingested with other rules (or none) are other content, not skipped as identical. Without rules
      nothing is mixed in."""

    def __init__(self, inner, salt: str):
        self.inner, self.salt = inner, salt

    def join(self):
        self.inner.join()

    @property
    def error(self):
        return self.inner.error

    @property
    def size(self):
        return self.inner.size

    @property
    def digest(self):
        d = self.inner.digest
        return None if d is None else hashlib.sha256(f"{d}:{self.salt}".encode()).hexdigest()


def for_agent(inner, agent: int) -> SaltedHasher:
    return SaltedHasher(inner, f"rocprof-gpu{agent}")


def with_core_rules(inner, rules: list[tuple[str, str]]):
    """`inner`, or with the --core-rule list (pattern, class) in order mixed in when there is one."""
    return SaltedHasher(inner, "core-rules=" + json.dumps(rules)) if rules else inner

"""The content hash of a run's source files: SHA-256 over their bytes, computed on a thread beside the
parse (hashlib releases the GIL), so identical content is found without costing wall time.

`tracedb ingest FILE` starts it before DuckDB is imported: importing the engine and opening the store
take ~0.3 s on one core, time the second core spends hashing instead of idling. `hasher_for` hands that
thread to the ingest when the files are still the same (path, size, mtime), else starts a new one."""
import errno
import hashlib
import os
import stat
import threading

from tracedb.errors import InputError


class Hasher(threading.Thread):
    """SHA-256 of `files` in order, on its own thread; once joined: digest, size (bytes read) and error
    (the OSError that stopped it, if any)."""

    def __init__(self, files):
        super().__init__(daemon=True)
        self.files, self.digest, self.size, self.error = list(files), None, 0, None

    def run(self):
        try:
            h = hashlib.sha256()
            for f in self.files:
                if not stat.S_ISREG(os.stat(f).st_mode):   # a FIFO swapped in after the check: never block
                    raise OSError(errno.EINVAL, "not a regular file", f)
                with open(f, "rb") as fh:
                    while block := fh.read(1 << 22):
                        h.update(block)
                        self.size += len(block)
            self.digest = h.hexdigest()
        except OSError as e:
            self.error = e


def wait(hasher):
    """Wait for `hasher` (a Hasher or AgentHasher); a source file it could not read is an InputError naming it."""
    hasher.join()
    if hasher.error:
        raise InputError(f"{hasher.error.filename}: cannot read: {hasher.error.strerror}")


class LazyHasher(Hasher):
    """A Hasher that runs on the thread that first joins it. A folder ingest's worker hashes its batch's traces
    so: its core is busy parsing anyway, and a thread per 2.6 MB rank cost more to start (~1.3 ms while the
    parse holds the core) than its hash takes (1.4 ms)."""

    def start(self):
        pass

    def join(self, timeout=None):
        if self.digest is None and self.error is None:
            self.run()


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
        return tuple((os.path.realpath(f), st.st_size, st.st_mtime_ns) for f in files for st in [os.stat(f)])
    except OSError:
        return None


class AgentHasher:
    """The content hash of one device's run of a file of several devices: the file's hash with the device
    index mixed in, so that the runs of one file's devices are not taken for one another (and a re-ingest
    of a device is still skipped). The mixed-in text is kept as first written (`rocprof-gpuN`, for every
    format): stored runs' hashes stay valid."""

    def __init__(self, inner, agent: int):
        self.inner, self.agent = inner, agent

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
        return None if d is None else hashlib.sha256(f"{d}:rocprof-gpu{self.agent}".encode()).hexdigest()

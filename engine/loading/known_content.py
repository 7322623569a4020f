"""Whether a trace's content is stored already, found before any parsing: the stored run with its content hash
(skipped for, unless `replace`), the refusal of a run name that other content holds, and, for a folder
ingest, the stored runs read once for the workers and the earlier trace of the plan with the same content."""
import os

from tracedb import sql
from tracedb.errors import TracedbError, UsageError
from tracedb.engine.loading import hashing
from tracedb.ingest import sources


def _stored_content(store: str, job) -> str | None:
    """_known_content read from the store with a read-only connection (none while nothing is stored)."""
    from tracedb.engine.store.connect import open_store
    from tracedb.engine.store.schema import EmptyStore
    if not os.path.exists(store):
        return None
    try:
        ro = open_store(store, read_only=True)
    except EmptyStore:
        return None
    try:
        return _known_content(ro, job)
    finally:
        ro.close()


def _known_content(con, job) -> str | None:
    """Before any parsing: the name of a stored run with the trace's content (which `replace` would
    replace, so None then), and the refusal of a name taken by other content. The hash is waited for only
    when a stored run has the trace's byte count; otherwise it goes on beside the parse."""
    clash = sql.run(con, "known_content_name_hash", {"n": job.name}).fetchone()
    size = sum(os.path.getsize(f) for f in job.src.files)
    if not clash and not sql.run(con, "known_content_size", {"b": size}).fetchone():
        return None
    same = _runs_of_same_content(con, job.hasher)
    if same and not job.replace:
        return same[0][1]
    if clash and not job.replace and clash[0] != job.hasher.digest:
        raise _name_taken(job.name)
    return None


def _runs_of_same_content(con, hasher) -> list:
    """(run_id, name) of the stored runs whose content hash is the source's, once the hash is done."""
    hashing.wait(hasher)
    return sql.run(con, "known_content_same", {"h": hasher.digest}).fetchall()


def _name_taken(name) -> UsageError:
    return UsageError(f"run '{name}' already exists with other content; choose another --name or pass --replace")


# --- a folder ingest's traces (engine/loading/parallel.py) ---

def _stored_runs(store) -> list[tuple]:
    """(run_id, name, content_hash, source_bytes) of every stored run, read once before the workers start:
    they check each trace against it before parsing, as _known_content checks against the store, so
    that no worker opens the store (a worker's read would wait for a merge, and the merge for the read).
    Runs merged meanwhile are checked again by the merge, in its transaction."""
    from tracedb.engine.store.connect import open_store
    from tracedb.engine.store.schema import EmptyStore
    if not os.path.exists(store):
        return []
    try:
        ro = open_store(store, read_only=True)
    except EmptyStore:
        return []
    try:
        return sql.run(ro, "known_content_runs").fetchall()
    finally:
        ro.close()


def _known(job, stored) -> str | None:
    """_known_content against `stored` (_stored_runs): the name of a stored run with the
    trace's content (None with `replace`), or the refusal of a name taken by other content. The hash is
    waited for only when a stored run has the trace's byte count."""
    clash = [h for _, name, h, _ in stored if name == job.name]
    size = sum(os.path.getsize(f) for f in job.src.files)
    if not clash and all(b != size for *_, b in stored):
        return None
    hashing.wait(job.hasher)
    same = [name for _, name, h, _ in stored if h == job.hasher.digest]
    if same and not job.replace:
        return same[0]
    if clash and not job.replace and clash[0] != job.hasher.digest:
        raise _name_taken(job.name)
    return None


def _earlier_twins(planned) -> list:
    """For each planned trace, the index of the last earlier one with the same content (same device of a
    multi-device file), else None. Only traces of equal byte count whose first and last 64 KiB are equal
    too are hashed (SHA-256, ~0.1 s per 100 MB): the ranks of a generated job are often of one size
    (76 of 128 here, 0.6 s of hashing), a copy of a trace is rare."""
    by_size, digests, samples, out = {}, {}, {}, []
    for i, item in enumerate(planned):
        twin = None
        for k in reversed(by_size.get((item.bytes, item.agent), []) if item.bytes else []):
            if _sample(planned[k], samples, k) != _sample(item, samples, i):
                continue
            theirs = _digest(planned[k], digests, k)
            if theirs is not None and theirs == _digest(item, digests, i):
                twin = k
                break
        out.append(twin)
        by_size.setdefault((item.bytes, item.agent), []).append(i)
    return out


def _sample(item, cache, i) -> bytes | None:
    """The first and last 64 KiB of a planned trace's first file (None when it cannot be read)."""
    if i not in cache:
        try:
            with open(item.path, "rb") as f:
                head = f.read(1 << 16)
                f.seek(max(0, os.fstat(f.fileno()).st_size - (1 << 16)))
                cache[i] = head + f.read(1 << 16)
        except OSError:
            cache[i] = None
    return cache[i]


def _digest(item, cache, i) -> str | None:
    """The SHA-256 of a planned trace's files (None when they cannot be read: its ingest says why)."""
    if i not in cache:
        try:
            hasher = hashing.Hasher((item.source or sources.resolve(item.path, item.reader)).files)
        except TracedbError:
            cache[i] = None
            return None
        hasher.run()           # on this thread: the caller needs it now
        cache[i] = hasher.digest
    return cache[i]

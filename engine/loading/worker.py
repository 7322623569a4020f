"""What a worker process of a folder ingest runs (engine/loading/parallel.py): a batch of traces parsed into one
side store (_parse_batch; the command's own process runs it too with `--jobs 1`), or converted into a dataset's
staging folder (_convert), either stopped by SIGTERM or Ctrl-C with its side store removed."""
import contextlib
import signal
import time
from dataclasses import dataclass

import duckdb

from tracedb.engine.loading import parsing, staging, store_writes
from tracedb.engine.loading.known_content import _known
from tracedb.engine.loading.results import _skipped
from tracedb.engine.loading.store_writes import ROW_GROUP_BUFFER, _write_failed
from tracedb.engine.loading.trace_job import _Job, _prepare
from tracedb.errors import InputError, TracedbError


@dataclass
class _Parsed:
    """What a worker hands back for the merge: the side store and what the runs row and summary need."""
    side: str
    staged: "parsing._Staged"
    staged_id: int        # its run id in the side store
    name: str
    files: list
    digest: str
    size: int
    seconds: float


@dataclass
class _Batch:
    """A worker's batch: its side store (None when nothing was staged) and, per trace in plan order, its
    _Parsed, its skip (IngestResult) or its error."""
    side: str | None
    entries: list


@dataclass
class _Copy:
    """A trace of a batch with the content of an earlier trace of it: not parsed."""
    job: object


_busy = _stopping = False


def _worker_init():
    """A worker stops on SIGTERM (sent by the parent when the command is interrupted) or Ctrl-C (the
    terminal sends SIGINT to the whole process group): once, so that a second signal cannot cut its
    clean-up short. Idle, it only notes the stop (a trace handed to it later is refused) and waits for
    the parent to shut the pool down."""
    def on_signal(signum, frame):
        global _stopping
        first, _stopping = not _stopping, True
        if _busy and first:
            raise KeyboardInterrupt
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
def _parse_batch(store, items, threads, stored) -> _Batch:
    """In a worker (or in the command's process, `ingest_here`): a batch of traces parsed into one side store
    beside the store, each as its own run; `items`: (path, name, options, index in the batch of an earlier
    copy of it, or None). Every trace's rows are read first (those a reader reads together by one statement,
    parsing.read_together, the others one by one), then the runs are finished together
    (engine/loading/parsing.finish_loaded). A trace that fails leaves no row there and the others go on; a
    trace whose content the store holds, or an earlier trace of the batch holds, is skipped before parsing.
    The side store is removed when nothing was staged, and on an interrupt."""
    global _busy
    _busy = True
    side, con = staging.side_path(store), None
    entries: list = [None] * len(items)
    try:
        if _stopping:
            raise KeyboardInterrupt
        con = parsing.open_side(side)
        con.execute("SET threads = $t", {"t": threads})
        con.execute("SET write_buffer_row_group_memory_limit = $m", {"m": ROW_GROUP_BUFFER})
        jobs, took = {}, {}      # the traces to read (their _Job) by place in the batch
        for k, (path, name, options, copy_of) in enumerate(items):
            t = time.perf_counter()
            got = _prepare_one(con, path, name, options, stored, copy_of is not None and copy_of in jobs)
            took[k] = time.perf_counter() - t
            if isinstance(got, _Job):
                jobs[k] = got
            else:
                entries[k] = got
        ids = {k: i + 1 for i, k in enumerate(jobs)}    # side store run ids in plan order
        t = time.perf_counter()
        together = _read_together(con, side, [(job, ids[k]) for k, job in jobs.items()])
        share = (time.perf_counter() - t) / max(1, len(together))
        loaded, where = [], []
        for k, job in jobs.items():
            t = time.perf_counter()
            got = together.get(ids[k]) or _read_alone(con, side, job, ids[k])
            took[k] += time.perf_counter() - t + (share if ids[k] in together else 0.0)
            if isinstance(got, parsing.Loaded):
                loaded.append(got)
                where.append(k)
            else:
                entries[k] = got
        t = time.perf_counter()
        finished = _finish_read(con, side, loaded)
        share = (time.perf_counter() - t) / max(1, len(loaded))    # a trace's time: its read, its share of the finish
        for k, item, done in zip(where, loaded, finished):
            entries[k] = done if not isinstance(done, parsing._Staged) else _Parsed(
                side=side, staged=done, staged_id=item.run_id, name=item.job.name, files=list(item.job.src.files),
                digest=item.job.hasher.digest, size=item.job.hasher.size, seconds=took[k] + share)
        for k, entry in enumerate(entries):      # a copy of a batch-mate: skipped naming it, once it is in
            if isinstance(entry, _Copy):
                mate = entries[items[k][3]]
                entries[k] = (_skipped(entry.job, mate.name) if isinstance(mate, _Parsed) else
                              InputError(f"{items[k][0]}: the same content as {items[items[k][3]][0]}, refused above"))
        staged = any(isinstance(e, _Parsed) for e in entries)
        if staged:
            store_writes.checkpoint_appended(con)
        con.close()
        con = None
        if not staged:
            staging.remove(side)
            side = None
        return _Batch(side=side, entries=entries)
    except BaseException as e:
        if con is not None:
            with contextlib.suppress(duckdb.Error):
                con.close()
        staging.remove(side)
        if isinstance(e, KeyboardInterrupt) or isinstance(e, (duckdb.Error, RuntimeError)) and \
                "interrupted" in str(e).lower():
            raise KeyboardInterrupt from None     # told to the parent as an interrupt, without a traceback
        raise
    finally:
        _busy = False


def _prepare_one(con, path, name, options, stored, copy):
    """A trace of a batch checked before reading (trace_job._prepare): its _Job, the IngestResult of a skip
    (_Copy for a copy of a batch-mate, settled once that one is read), or the TracedbError refusing it."""
    try:
        job = _prepare(con, path, name, options.get("tags"), bool(options.get("replace")),
                       options.get("core_rules"), options.get("agent"), options.get("reader"), lazy_hash=True,
                       capture=bool(options.get("capture")), source=options.get("source"))
        known = _known(job, stored)
        if known:
            return _skipped(job, known)
        if copy and not job.replace:
            return _Copy(job)
        return job
    except TracedbError as e:
        return e


def _read_together(con, side, batch) -> dict:
    """parsing.read_together of the batch's traces ((job, run_id) pairs): the Loaded of those read at once."""
    try:
        return parsing.read_together(con, batch)
    except duckdb.IOException as e:
        raise _write_failed(side, e) from None


def _read_alone(con, side, job, run_id):
    """A trace of a batch read into the side store open on `con` as `run_id`: its parsing.Loaded, or the
    TracedbError saying why it failed (its rows removed again)."""
    try:
        try:
            return parsing.read_into(con, job, run_id)
        except duckdb.IOException as e:
            raise _write_failed(side, e) from None
    except TracedbError as e:
        with contextlib.suppress(duckdb.Error):
            parsing.discard(con, run_id)
        return e


def _finish_read(con, side, loaded) -> list:
    """The batch's read runs finished (parsing.finish_loaded): per run its _Staged or its error."""
    try:
        return parsing.finish_loaded(con, loaded)
    except duckdb.IOException as e:
        return [_write_failed(side, e)] * len(loaded)


def _convert(*args):
    """In a worker: engine/loading/staged.convert_batch of a batch of traces, stopped by SIGTERM or Ctrl-C as
    _parse_batch is."""
    global _busy
    from tracedb.engine.loading import staged as ingest_staged
    _busy = True
    try:
        if _stopping:
            raise KeyboardInterrupt
        return ingest_staged.convert_batch(*args)
    except (KeyboardInterrupt, duckdb.Error, RuntimeError) as e:
        if isinstance(e, KeyboardInterrupt) or "interrupted" in str(e).lower():
            raise KeyboardInterrupt from None
        raise
    finally:
        _busy = False

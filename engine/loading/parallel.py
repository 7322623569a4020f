"""Several traces parsed at once by worker processes, a batch of traces each, merged into the store one
batch at a time.

A folder ingest spends almost all its time parsing, and each batch of traces (engine/loading/batches.py) is
parsed into a side store of its own (engine/loading/staging.py), so the parses need not wait for one another:
N worker processes each read a batch's traces into its side store and finish them together
(engine/loading/single.finish_loaded), while this process merges the finished batches into the store, in plan
order, each in one short transaction (DuckDB lets one process write a file at a time). A worker reads the
batch's traces that its reader can read together by one statement (single.read_together; a job's small
Kineto ranks: ingest/chrome_json/together.py), the others one by one. A trace that fails leaves its
batch-mates in. The runs, their ids, names, rows and output lines are those of the serial path (`--jobs 1`).

Why processes, and merges here: DuckDB connections must not cross a fork, so workers come from a
forkserver (engine/loading/forkserver.py: a clean process that imported tracedb once; each worker is forked
from it, without any connection) and open their own connections. Merging here, in plan order, keeps run ids
deterministic, and no worker ever waits for the store's write lock: one batch more than the workers is
handed out, so a worker that ends during a merge (0.3-1.1 s for a 100 MB Kineto trace on a busy 2-core
machine) starts the next batch at once. Workers that waited out each merge took 15.9 s for 8 traces of 100 MB, against
9.1 s, in back-to-back runs.

Each worker's DuckDB gets the cores divided by the workers as its threads, and with one thread the JSON
reader parses on one cursor in whole parts (ingest/chrome_json/loader.py), 20 % less CPU than two cursors
taking turns on one core. A lone 100 MB Kineto trace keeps ~1.4 cores busy, so on 2 cores 8 such traces
went 1.85-2.15x faster than 8 one-file ingests, 1.44-1.64x faster than `--jobs 1` (docs/performance.md).

Memory: each worker is budgeted WORKER_BYTES (1 GiB: the highest peak RSS measured for one ingest was
0.9 GB, a 2 M-row kernel_details.csv; a Kineto trace peaks at 0.3-0.4 GB), so the workers are at most
the available memory over that, as well as at most the cores and the traces.

Interrupts (Ctrl-C, SIGTERM): every busy worker is stopped (its DuckDB query cut short, its side store
removed), the merge under way is rolled back, and the side stores parsed but not merged are removed;
the runs merged before stay, each whole. A worker killed outright (SIGKILL, out of memory) ends the
command in one line, likewise."""
import contextlib
import os
import signal
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

import duckdb

from tracedb.engine.loading import forkserver, hashing
from tracedb.engine.loading.forkserver import cores
from tracedb.engine.loading.batches import batches_of
from tracedb.engine.loading import single as ingest
from tracedb.engine.loading import staging
from tracedb.errors import InputError, TracedbError
from tracedb.ingest import sources

WORKER_BYTES = 1 << 30
# Row groups DuckDB buffers before writing them, in a worker's side store and in a merge (DuckDB's default: a
# fifth of its memory limit over its threads, GBs here). With 16 MB, a 128-rank job's largest worker
# peaked at 143-147 MB instead of 168-172, the merging process at 196-199 MB instead of 238, at the
# same speed.
ROW_GROUP_BUFFER = "16MB"


def available_memory() -> int | None:
    """Bytes of memory available to new processes (MemAvailable of /proc/meminfo); None when unknown."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def memory_cap() -> int | None:
    """Workers that fit in the available memory at WORKER_BYTES each (at least 1); None when unknown."""
    avail = available_memory()
    return None if avail is None else max(1, avail // WORKER_BYTES)


def workers_for(traces: int, jobs: int | None) -> tuple[int, str | None]:
    """(worker processes, a note when memory lowered the count asked for). `jobs` None: as many as cores;
    either way at most one per trace and at most the memory cap."""
    want = min(cores() if jobs is None else jobs, max(1, traces))
    cap = memory_cap()
    if cap is None or cap >= want:
        return want, None
    note = (f"{want} parallel ingests lowered to {cap}: {available_memory() / 2**30:.1f} GiB of memory available, "
            f"{WORKER_BYTES / 2**30:.0f} GiB budgeted for each") if jobs is not None else None
    return cap, note


@dataclass
class _Parsed:
    """What a worker hands back for the merge: the side store and what the runs row and summary need."""
    side: str
    staged: "ingest._Staged"
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


@dataclass
class _Digest:
    """A finished content hash, as the merge reads one (join, error, digest, size)."""
    digest: str
    size: int
    error: None = None

    def join(self):
        pass


OPTIONS = {"tags", "replace", "core_rules", "agent", "reader", "capture"}


def supports(kw) -> bool:
    """Whether the ingest options `kw` (those of engine/loading/single.ingest_file) can be run by the workers."""
    return {k for k, v in kw.items() if v is not None} <= OPTIONS


def ingest_parallel(store_path, planned, jobs: int, options: list[dict], on_start=None):
    """As engine/loading/folder.ingest_all, with `jobs` worker processes parsing at once; `options`: the
    ingest_file options of each planned run. Yields (planned, IngestResult | TracedbError) in plan order.
    Another error (an internal one, an interrupt) stops every worker and is raised here."""
    from tracedb.engine.store.connect import resolve_path
    store = resolve_path(store_path)
    staging.sweep_stale(store)
    stored = _stored_runs(store)      # grows with each merge
    threads = max(1, cores() // jobs)
    pool = _pool(jobs)
    batches = batches_of(planned, jobs)
    twin = _earlier_twins(planned)
    futures, running = {}, set()
    nxt = 0            # the next batch to hand out, in plan order

    def waits(k):
        """A batch holding a copy of a trace of an earlier batch not merged yet waits for that merge, so
        that the copy is skipped before parsing, as one after another would skip it."""
        return any(twin[i] is not None and twin[i] < batches[k][0] and twin[i] >= nxt_merge for i in batches[k])

    def refill():
        """Keep one batch more than the workers handed out: a worker that ends while this process
        merges (0.3-1.1 s for a 100 MB trace) starts the next batch at once instead of waiting."""
        nonlocal nxt
        running.difference_update([f for f in running if f.done()])
        while len(running) <= jobs and nxt < len(batches) and not waits(nxt):
            items = _batch_items(planned, batches[nxt], twin, options, on_start)
            futures[nxt] = pool.submit(_parse_batch, store, items, threads, stored)
            running.add(futures[nxt])
            nxt += 1

    nxt_merge = 0      # traces before this one are merged (or failed, or skipped)
    try:
        for k, batch in enumerate(batches):
            refill()
            while not futures[k].done():
                wait(running, return_when=FIRST_COMPLETED)
                refill()
            results = _finish(store, [planned[i] for i in batch], futures.pop(k),
                              [bool(options[i].get("replace")) for i in batch], stored)
            nxt_merge = batch[-1] + 1
            yield from zip((planned[i] for i in batch), results)
    except BaseException:
        _stop(pool)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        for f in futures.values():     # parsed, never merged (an interrupt): their side stores go too
            if f.done() and not f.cancelled() and f.exception() is None and f.result().side:
                staging.remove(f.result().side)
        staging.sweep_stale(store)     # and those of workers stopped before they could say where theirs was


def ingest_here(store_path, planned, options: list[dict], on_start=None):
    """As ingest_parallel with one worker, in this process (`--jobs 1`, or one core): each batch is parsed
    into a side store here, then merged, one after the other; no process is started. Yields (planned,
    IngestResult | TracedbError) in plan order. A trace with the content of one of an earlier batch is
    skipped before parsing, that one being in the store by then."""
    from tracedb.engine.store.connect import resolve_path
    store = resolve_path(store_path)
    staging.sweep_stale(store)
    stored = _stored_runs(store)
    twin = _earlier_twins(planned)
    for batch in batches_of(planned, 1):
        items = _batch_items(planned, batch, twin, options, on_start)
        parsed = Future()        # as _finish reads a worker's
        try:
            parsed.set_result(_parse_batch(store, items, cores(), stored))
        except TracedbError as e:
            parsed.set_exception(e)
        yield from zip((planned[i] for i in batch),
                       _finish(store, [planned[i] for i in batch], parsed,
                               [bool(options[i].get("replace")) for i in batch], stored))


def _batch_items(planned, batch: list[int], twin: list, options: list[dict], on_start) -> list[tuple]:
    """_parse_batch's items of the planned traces `batch` (on_start called for each): path, name, options and
    the place in the batch of the earlier trace it copies (`twin`, _earlier_twins), if that one is in it."""
    items = []
    for i in batch:
        if on_start:
            on_start(i, planned[i])
        inside = twin[i] is not None and twin[i] >= batch[0]
        items.append((planned[i].path, planned[i].name, options[i], batch.index(twin[i]) if inside else None))
    return items


def _stored_runs(store) -> list[tuple]:
    """(run_id, name, content_hash, source_bytes) of every stored run, read once before the workers start:
    they check each trace against it before parsing, as engine/loading/single.py checks against the store, so
    that no worker opens the store (a worker's read would wait for a merge, and the merge for the read).
    Runs merged meanwhile are checked again by the merge, in its transaction."""
    from tracedb.engine.store.connect import EmptyStore, open_store
    if not os.path.exists(store):
        return []
    try:
        ro = open_store(store, read_only=True)
    except EmptyStore:
        return []
    try:
        return ro.execute("SELECT run_id, name, content_hash, source_bytes FROM runs ORDER BY run_id").fetchall()
    finally:
        ro.close()


def _known(job, stored) -> str | None:
    """engine/loading/single._known_content against `stored` (_stored_runs): the name of a stored run with the
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
        raise ingest._name_taken(job.name)
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
            hasher = hashing.Hasher(sources.resolve(item.path, item.reader).files)
        except TracedbError:
            cache[i] = None
            return None
        hasher.run()           # on this thread: the caller needs it now
        cache[i] = hasher.digest
    return cache[i]


def _finish(store, items, future, replace: list[bool], stored) -> list:
    """The results of one batch, in plan order: each trace's error, its skip, or its merge into the store
    (then added to `stored`, which the traces handed out later are checked against). A worker that died
    (SIGKILL, the kernel's out-of-memory killer) ends the whole ingest in one line."""
    try:
        out = future.result()
    except TracedbError as e:
        return [e] * len(items)
    except BrokenProcessPool:
        raise TracedbError(f"{items[0].path}: a process parsing the traces ended abruptly (killed, or out of "
                           "memory?); the runs reported above are in the store, the others are not") from None
    results = list(out.entries)
    parsed = [k for k, e in enumerate(results) if isinstance(e, _Parsed)]
    if not parsed:
        return results
    try:
        merged = _merge(store, out.side, [results[k] for k in parsed], [replace[k] for k in parsed])
    except TracedbError as e:
        merged = [e] * len(parsed)
    finally:
        staging.remove(out.side)
    for k, result in zip(parsed, merged):
        if isinstance(result, ingest.IngestResult) and result.status != "skipped":
            stored.append((result.run_id, result.name, results[k].digest, results[k].size))
        results[k] = result
    return results


def _merge(store, side, parsed: list[_Parsed], replace: list[bool]) -> list:
    """The batch's parsed runs into the store, in one transaction (the first batch into a missing store: its
    side store renamed into place when it holds them as runs 1..n), as engine/loading/single.ingest_file
    does after its parse. Returns an IngestResult, or the error of a run refused (a name taken by other
    content), per run."""
    from types import SimpleNamespace
    from tracedb.engine.store.connect import open_store
    t0 = time.perf_counter()
    jobs = [SimpleNamespace(name=p.name, replace=r, hasher=_Digest(p.digest, p.size),
                            src=SimpleNamespace(files=p.files), t0=t0 - p.seconds) for p, r in zip(parsed, replace)]
    if (not os.path.exists(store) and [p.staged_id for p in parsed] == list(range(1, len(parsed) + 1))
            and len({p.digest for p in parsed}) == len(parsed) and staging.publish(side, store)):
        results = [ingest._result(job, "ingested", p.staged_id, p.staged) for job, p in zip(jobs, parsed)]
        ingest._landed(results)
        return results
    con = open_store(store)
    con.execute("SET write_buffer_row_group_memory_limit = $m", {"m": ROW_GROUP_BUFFER})
    try:
        results = ingest.merge_batch(con, side, jobs, [(p.staged_id, p.staged) for p in parsed])
        if any(isinstance(r, ingest.IngestResult) and r.status != "skipped" for r in results):
            ingest.checkpoint_appended(con)
    finally:
        con.close()
    share = (time.perf_counter() - t0) / len(parsed)      # each run's time: its parse and its share of the merge
    for r, p in zip(results, parsed):
        if isinstance(r, ingest.IngestResult) and r.status != "skipped":
            r.seconds = p.seconds + share
    return results


def ingest_to_dataset(folder: str, planned, jobs: int, options: list[dict], replace: bool = False, core_rules=None,
                      on_start=None):
    """`ingest --to DIR --jobs N`: the traces converted by `jobs` worker processes into the dataset's
    staging folder and committed at once (engine/loading/staged.py); `options`: each planned run's tags
    and agent. Yields (planned, IngestResult |
    TracedbError) in plan order once the run list is committed; an interrupt stops every worker."""
    from tracedb.engine.loading import staged as ingest_staged
    pool = _pool(jobs)
    try:
        yield from ingest_staged.ingest_staged(folder, planned, options,
                                               lambda key, fn, *args: pool.submit(_convert, *args), replace,
                                               core_rules, on_start, threads=max(1, cores() // jobs), workers=jobs)
    except BaseException:
        _stop(pool)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _pool(jobs: int) -> ProcessPoolExecutor:
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=forkserver.context(), initializer=_worker_init)
    # Every worker started before the executor's watcher thread, as it does for fork: a worker started
    # on demand (its default for forkserver) is missing from what the watcher waits on until its next
    # wake-up, so its death went unseen and the command waited forever (a worker killed with SIGKILL
    # hung 2 runs of 3 here).
    pool._safe_to_dynamically_spawn_children = False
    return pool


def _stop(pool):
    """Interrupt each worker (a busy one cuts its DuckDB query short and removes its side store), then
    wait for them to go."""
    procs = list((getattr(pool, "_processes", None) or {}).values())   # the executor's own list of them
    for p in procs:
        with contextlib.suppress(OSError):
            os.kill(p.pid, signal.SIGTERM)
    pool.shutdown(wait=False, cancel_futures=True)
    deadline = time.monotonic() + 30
    for p in procs:
        p.join(max(0.0, deadline - time.monotonic()))
        if p.is_alive():           # stuck: killed; its side store is swept once it is gone
            p.kill()
            p.join(5)


# --- in the worker processes ---

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
    single.read_together, the others one by one), then the runs are finished together
    (engine/loading/single.finish_loaded). A trace that fails leaves no row there and the others go on; a
    trace whose content the store holds, or an earlier trace of the batch holds, is skipped before parsing.
    The side store is removed when nothing was staged, and on an interrupt."""
    global _busy
    _busy = True
    side, con = staging.side_path(store), None
    entries: list = [None] * len(items)
    try:
        if _stopping:
            raise KeyboardInterrupt
        con = ingest.open_side(side)
        con.execute("SET threads = $t", {"t": threads})
        con.execute("SET write_buffer_row_group_memory_limit = $m", {"m": ROW_GROUP_BUFFER})
        jobs, took = {}, {}      # the traces to read (their _Job) by place in the batch
        for k, (path, name, options, copy_of) in enumerate(items):
            t = time.perf_counter()
            got = _prepare_one(con, path, name, options, stored, copy_of is not None and copy_of in jobs)
            took[k] = time.perf_counter() - t
            if isinstance(got, ingest._Job):
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
            if isinstance(got, ingest.Loaded):
                loaded.append(got)
                where.append(k)
            else:
                entries[k] = got
        t = time.perf_counter()
        finished = _finish_read(con, side, loaded)
        share = (time.perf_counter() - t) / max(1, len(loaded))    # a trace's time: its read, its share of the finish
        for k, item, done in zip(where, loaded, finished):
            entries[k] = done if not isinstance(done, ingest._Staged) else _Parsed(
                side=side, staged=done, staged_id=item.run_id, name=item.job.name, files=list(item.job.src.files),
                digest=item.job.hasher.digest, size=item.job.hasher.size, seconds=took[k] + share)
        for k, entry in enumerate(entries):      # a copy of a batch-mate: skipped naming it, once it is in
            if isinstance(entry, _Copy):
                mate = entries[items[k][3]]
                entries[k] = (ingest._skipped(entry.job, mate.name) if isinstance(mate, _Parsed) else
                              InputError(f"{items[k][0]}: the same content as {items[items[k][3]][0]}, refused above"))
        staged = any(isinstance(e, _Parsed) for e in entries)
        if staged:
            ingest.checkpoint_appended(con)
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
    """A trace of a batch checked before reading (single._prepare): its _Job, the IngestResult of a skip
    (_Copy for a copy of a batch-mate, settled once that one is read), or the TracedbError refusing it."""
    try:
        job = ingest._prepare(con, path, name, options.get("tags"), bool(options.get("replace")),
                              options.get("core_rules"), options.get("agent"), options.get("reader"), lazy_hash=True,
                              capture=bool(options.get("capture")))
        known = _known(job, stored)
        if known:
            return ingest._skipped(job, known)
        if copy and not job.replace:
            return _Copy(job)
        return job
    except TracedbError as e:
        return e


def _read_together(con, side, batch) -> dict:
    """single.read_together of the batch's traces ((job, run_id) pairs): the Loaded of those read at once."""
    try:
        return ingest.read_together(con, batch)
    except duckdb.IOException as e:
        raise ingest._write_failed(side, e) from None


def _read_alone(con, side, job, run_id):
    """A trace of a batch read into the side store open on `con` as `run_id`: its single.Loaded, or the
    TracedbError saying why it failed (its rows removed again)."""
    try:
        try:
            return ingest.read_into(con, job, run_id)
        except duckdb.IOException as e:
            raise ingest._write_failed(side, e) from None
    except TracedbError as e:
        with contextlib.suppress(duckdb.Error):
            ingest.discard(con, run_id)
        return e


def _finish_read(con, side, loaded) -> list:
    """The batch's read runs finished (single.finish_loaded): per run its _Staged or its error."""
    try:
        return ingest.finish_loaded(con, loaded)
    except duckdb.IOException as e:
        return [ingest._write_failed(side, e)] * len(loaded)


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

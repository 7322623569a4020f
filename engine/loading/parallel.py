"""Several traces parsed at once by worker processes, a batch of traces each, merged into the store one
batch at a time.

A folder ingest spends almost all its time parsing, and each batch of traces (engine/loading/batches.py) is
parsed into a side store of its own (engine/loading/staging.py), so the parses need not wait for one another:
N worker processes each read a batch's traces into its side store and finish them together
(engine/loading/worker.py; engine/loading/parsing.finish_loaded), while this process merges the finished
batches into the store, in plan order, each in one short transaction (engine/loading/batch_merge.py; DuckDB
lets one process write a file at a time). A worker reads the batch's traces that its reader can read
together by one statement (parsing.read_together; a job's small Kineto ranks: ingest/chrome_json/together.py),
the others one by one. A trace that fails leaves its batch-mates in. The runs, their ids, names, rows and
output lines are those of the serial path (`--jobs 1`).

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

Memory: each worker is budgeted 1 GiB, so the workers are at most the available memory over that, as well
as at most the cores and the traces (engine/loading/worker_pool.py).

Interrupts (Ctrl-C, SIGTERM): every busy worker is stopped (its DuckDB query cut short, its side store
removed), the merge under way is rolled back, and the side stores parsed but not merged are removed;
the runs merged before stay, each whole. A worker killed outright (SIGKILL, out of memory) ends the
command in one line, likewise."""
from concurrent.futures import FIRST_COMPLETED, Future, wait

from tracedb.engine.loading.batch_merge import _finish
from tracedb.engine.loading.batches import batches_of
from tracedb.engine.loading.forkserver import cores
from tracedb.engine.loading.known_content import _earlier_twins, _stored_runs
from tracedb.engine.loading import staging
from tracedb.engine.loading.worker import _convert, _parse_batch
from tracedb.engine.loading.worker_pool import _pool, _stop
from tracedb.errors import TracedbError


OPTIONS = {"tags", "replace", "core_rules", "agent", "reader", "capture", "source"}


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

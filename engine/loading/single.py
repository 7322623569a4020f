"""Ingest one trace (file or profiler folder) as one run, in one transaction.

Either the whole run lands (run row, every kernel row, duplicate marks) or the store is unchanged: the
trace is parsed into a side store (tracedb.engine.loading.staging) and copied into the store in one transaction,
so a failed or interrupted ingest leaves no row and no growth behind, and other processes read the store
until that short merge.

The content hash (sha256 over the source bytes, ~0.5 s for 464 MB; tracedb.engine.loading.hashing) runs in a thread
beside DuckDB's parse, so it costs little wall time. Identical content is skipped before any parsing: when
a stored run has the trace's byte count, the hash is awaited first (unless `replace`).

This module knows no format: the trace's reader in the registry (tracedb.ingest.formats) reads its rows,
finishes them inside the run's transaction and says whether a file holds several devices."""
import contextlib
import json
import os
import tempfile
import time
from dataclasses import dataclass

import duckdb

from tracedb import sql
from tracedb.version import __version__
from tracedb.errors import InputError, StoreError, TracedbError, UsageError
from tracedb.engine.loading import hashing
from tracedb.engine.loading import staging
from tracedb.patterns import check_regex
from tracedb.engine.store.connect import NO_NETWORK, parse_tags
from tracedb.ingest import ascend_comm, formats, kernel_names, kernel_work, sources
from tracedb.ingest.duckdb_memory import memory_cap



# A rate says something only over enough bytes and time: 0.03 MB in 0.07 s printed "(0 MB/s)", which reads as
# a stall. Below 1 MB or 0.5 s the line gives the size and the time alone.
RATE_MIN_MB, RATE_MIN_S = 1.0, 0.5


def rate(mb: float, seconds: float, what: str = "") -> str:
    """' (N MB/s)' for an ingest of at least RATE_MIN_MB in at least RATE_MIN_S, else ''."""
    return f" ({mb / seconds:,.0f} MB/s{what})" if mb >= RATE_MIN_MB and seconds >= RATE_MIN_S else ""

@dataclass
class IngestResult:
    name: str
    run_id: int | None
    status: str            # ingested | skipped | replaced
    rows: int = 0
    duplicates: int = 0
    seconds: float = 0.0
    bytes: int = 0
    same_as: str | None = None
    truncated: bool = False
    inflated: int | None = None   # a .gz trace's JSON bytes
    files: tuple = ()             # the files the run read (runs.source_files)
    unplaced: str | None = None   # a per-core trace's events no core took: how many, of which threads, why
    cut: tuple = ()               # the CSV files cut short at their end: "<file>: line N", each line left out

    def summary(self, named: bool = False) -> str:
        """One line; `named`: a skipped trace says which run it would have been (folder ingests)."""
        if self.status == "skipped":
            return (f"skipped{f' run {self.name!r}' if named else ''}: identical content is already run "
                    f"'{self.same_as}' (use --replace to ingest again)")
        mb = self.bytes / 1e6
        cut = (f"; {' and '.join(self.cut)} {'is' if len(self.cut) == 1 else 'are'} cut short (crashed run?): "
               f"the complete rows before {'it' if len(self.cut) == 1 else 'them'} were kept" if self.cut
               else "; the file is cut short (crashed run?): the complete events were kept" if self.truncated else "")
        size = (f"{mb:.1f} MB gzip, {self.inflated / 1e6:.1f} MB inflated, in {self.seconds:.2f} s"
                f"{rate(self.inflated / 1e6, self.seconds, ' inflated')}" if self.inflated is not None
                else f"{mb:.1f} MB in {self.seconds:.2f} s{rate(mb, self.seconds)}")
        unplaced = f"; {self.unplaced}" if self.unplaced else ""
        return (f"{self.status} run '{self.name}': {self.rows:,} kernel rows ({self.duplicates:,} duplicates not "
                f"counted), {size}{cut}{unplaced}")


# Runs this process has committed while a command records them (recording_landed): appended right after
# each commit, so that an interrupt between a run's commit and its line (the checkpoint after a merge takes
# tens of ms; a batch's lines are printed one by one) still lets the command say which runs are in.
_ledger: list | None = None


@contextlib.contextmanager
def recording_landed():
    """Within the block, every run this process commits (IngestResult) is appended to the list it yields."""
    global _ledger
    _ledger = []
    try:
        yield _ledger
    finally:
        _ledger = None


def _landed(results):
    if _ledger is not None:
        _ledger.extend(r for r in results if isinstance(r, IngestResult) and r.status != "skipped")


def checkpoint_appended(con):
    """Write the run's rows to the file now, without DuckDB's vacuum: at the default checkpoint (on close)
    it merges the partly filled row groups that each committed part ends with, which rewrote ~11 MB and
    took 0.4 s after a 1 GB trace for no gain in reading. A checkpoint that cannot run now (another
    transaction of an API user is open) is left to DuckDB's next one."""
    before = con.execute("SELECT current_setting('max_vacuum_tasks')").fetchone()[0]   # an API user's own
    try:
        con.execute("SET max_vacuum_tasks = 0")
        con.execute("CHECKPOINT")
    except duckdb.Error:
        pass
    finally:
        con.execute("SET max_vacuum_tasks = $v", {"v": before})


def _parse_core_rules(rules) -> list[tuple[str, str]]:
    """`REGEX=CLASS` strings -> (pattern, class), in order; checked before the built-in AIC/AIV/AICPU naming."""
    out = []
    for r in rules or []:
        pat, sep, cls = str(r).rpartition("=")
        if not sep or not pat or not cls.strip():
            raise UsageError(f"--core-rule {r!r}: expected REGEX=CLASS, e.g. '^Channel_[0-7]$=AIC'")
        out.append((pat, cls.strip().upper()))
    return out


@dataclass
class _Job:
    """One trace to ingest: what it is, what to call it, and its content hash (running on a thread)."""
    src: sources.Source
    name: str
    tag_map: dict
    core_rules: list
    replace: bool
    hasher: hashing.Hasher
    t0: float
    capture: bool = False   # a graph capture trace: its launch calls keep their kernel's name (--capture)


def ingest_path(con, path: str, name: str | None = None, tags=None, replace: bool = False,
                core_rules=None, capture: bool = False) -> IngestResult:
    """Ingest one trace into the store open on `con` (a writable connection, held by the caller). The
    trace is parsed into a side store first (engine/loading/staging.py) and merged in one transaction.
    `capture`: the trace is a graph capture (engine/loading/captures.py)."""
    job = _prepare(con, path, name, tags, replace, core_rules, capture=capture)
    known = _known_content(con, job)
    if known:
        return _skipped(job, known)
    side = staging.side_path(staging.store_path_of(con) or os.path.join(tempfile.gettempdir(), "tracedb"))
    try:
        staged = _stage(side, job, like=con)
        result = _merge(con, side, job, staged)
    finally:
        staging.remove(side)
    if result.status != "skipped":
        checkpoint_appended(con)
    return result


def ingest_file(store_path: str | None, path: str, name: str | None = None, tags=None, replace: bool = False,
                core_rules=None, agent: int | None = None, reader: str | None = None,
                capture: bool = False) -> IngestResult:
    """Ingest one trace into the store at `store_path`, holding its write lock only for the final merge:
    reports, `runs` and `sql` of other processes go on while the trace is parsed. A first ingest into a
    missing store creates it only when the run is complete (the side store is renamed into place).
    `agent`: of a file of several devices, the device this run holds (engine/loading/folder.py plans one run
    per device). `reader`: the registered reader of the file when the caller identified it already
    (ingest/formats.py). `capture`: the trace is a graph capture (engine/loading/captures.py). Into a Parquet
    dataset instead: engine/loading/to_dataset.py."""
    from tracedb.engine.store.connect import open_store, resolve_path
    store = resolve_path(store_path)
    with _scratch() if core_rules else contextlib.nullcontext() as scratch:   # a connection checks the regexes
        job = _prepare(scratch, path, name, tags, replace, core_rules, agent, reader, capture=capture)
    staging.sweep_stale(store)
    known = _stored_content(store, job)
    if known:
        return _skipped(job, known)
    side = staging.side_path(store)
    try:
        staged = _stage(side, job)
        if not os.path.exists(store) and staging.publish(side, store):
            result = _result(job, "ingested", 1, staged)
            _landed([result])
            return result
        con = open_store(store)
        try:
            result = _merge(con, side, job, staged)
            if result.status != "skipped":
                checkpoint_appended(con)
        finally:
            con.close()
    finally:
        staging.remove(side)
    return result


def _stored_content(store: str, job) -> str | None:
    """_known_content read from the store with a read-only connection (none while nothing is stored)."""
    from tracedb.engine.store.connect import EmptyStore, open_store
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


@contextlib.contextmanager
def _scratch():
    con = duckdb.connect(config=dict(NO_NETWORK))
    try:
        yield con
    finally:
        con.close()


def _prepare(con, path, name, tags, replace, core_rules, agent=None, reader=None, lazy_hash=False,
             capture=False) -> _Job:
    """Check the call and the trace before anything is written; starts the content hash (`lazy_hash`: it runs
    when first needed, on that thread)."""
    t0 = time.perf_counter()
    tag_map = parse_tags(tags)
    rules = _parse_core_rules(core_rules)
    for pattern, _ in rules:
        check_regex(con, pattern, "--core-rule")
    src = sources.resolve(path, reader)
    hasher = hashing.hasher_for(src.files, lazy=lazy_hash)
    if agent is not None and formats.by_name(src.reader).several:
        src.agent, hasher = agent, hashing.for_agent(hasher, agent)   # one device of the file: its own content
    hasher = hashing.with_core_rules(hasher, rules)
    return _Job(src=src, name=name or src.default_name, tag_map=tag_map, core_rules=rules, replace=replace,
                hasher=hasher, t0=t0, capture=bool(capture))


def _known_content(con, job) -> str | None:
    """Before any parsing: the name of a stored run with the trace's content (which `replace` would
    replace, so None then), and the refusal of a name taken by other content. The hash is waited for only
    when a stored run has the trace's byte count; otherwise it goes on beside the parse."""
    clash = con.execute("SELECT content_hash FROM runs WHERE name = $n", {"n": job.name}).fetchone()
    size = sum(os.path.getsize(f) for f in job.src.files)
    if not clash and not con.execute("SELECT 1 FROM runs WHERE source_bytes = $b LIMIT 1", {"b": size}).fetchone():
        return None
    same = _runs_of_same_content(con, job.hasher)
    if same and not job.replace:
        return same[0][1]
    if clash and not job.replace and clash[0] != job.hasher.digest:
        raise _name_taken(job.name)
    return None


def _skipped(job, same_as) -> IngestResult:
    return IngestResult(name=job.name, run_id=None, status="skipped", same_as=same_as, files=tuple(job.src.files),
                        seconds=time.perf_counter() - job.t0, bytes=sum(os.path.getsize(f) for f in job.src.files))


def _result(job, status, run_id, staged) -> IngestResult:
    return IngestResult(name=job.name, run_id=run_id, status=status, rows=staged.rows, duplicates=staged.dups,
                        seconds=time.perf_counter() - job.t0, bytes=job.hasher.size, truncated=staged.truncated,
                        inflated=staged.inflated, files=tuple(job.src.files), unplaced=staged.unplaced,
                        cut=staged.cut)


@dataclass
class _Staged:
    rows: int
    dups: int
    truncated: bool
    inflated: int | None
    unplaced: str | None = None     # the reader's note of per-core events it could not place
    cut: tuple = ()                 # where CSV files were cut short ("<file>: line N"), from the reader's facts


def _stage(side: str, job, like=None) -> _Staged:
    """Parse the trace into a new side store at `side` as its run 1 (every row, duplicate marks, the runs
    row with the content hash). Nothing of the store is touched; a failure leaves only the side file,
    which the caller removes. `like`: an API user's connection, whose memory and thread limits apply."""
    con = open_side(side)
    try:
        for setting in ("memory_limit", "threads") if like is not None else ():
            value = like.execute("SELECT current_setting($s)", {"s": setting}).fetchone()[0]
            con.execute(f"SET {setting} = $v", {"v": value})
        staged = _load_run(con, job, 1)
        checkpoint_appended(con)
    except duckdb.IOException as e:
        raise _write_failed(side, e) from None
    finally:
        try:
            con.close()
        except duckdb.Error:   # a second Ctrl-C while inserts were being stopped: keep the first error
            pass
    return staged


def open_side(side: str):
    """A new side store at `side`, open for writing."""
    from tracedb.engine.store.connect import open_store
    try:
        return open_store(side, wait=0)
    except StoreError as e:
        raise StoreError(f"{side}: cannot create the ingest's side store beside the store: {e}") from None


def discard(con, run_id: int):
    """The rows of a staged run that failed, out of its side store."""
    _rollback(con)
    sql.run(con, "delete_run", {"run_ids": [run_id]})


def _write_failed(path, e) -> StoreError:
    return StoreError(f"{os.path.dirname(os.path.abspath(path)) or '.'}: cannot write the ingest's data: "
                      f"{str(e).strip().splitlines()[0]}; the store is unchanged")


def _load_run(con, job, run_id: int) -> _Staged:
    """The run's rows (its reader's `read`), then one transaction: duplicate marks, run row, stats (in the
    side store open on `con`, as run `run_id`)."""
    result = finish_loaded(con, [read_into(con, job, run_id)])[0]
    if isinstance(result, TracedbError):
        raise result
    return result


@dataclass
class Loaded:
    """A run whose rows are read into a side store, not yet finished (no runs row: invisible)."""
    job: _Job
    run_id: int
    reader: formats.Reader
    facts: dict
    columns: tuple


def _read_rows(con, job, options, run_id: int) -> Loaded:
    """The run's rows, by its reader's `read`: a Loaded, its facts as the runs row wants them."""
    reader = formats.by_name(job.src.reader)
    return _loaded(job, run_id, reader, reader.read(con, run_id, job.src, options))


def _loaded(job, run_id: int, reader, read_facts: dict) -> Loaded:
    """The Loaded of a run whose reader said `read_facts` (over the facts its source gives)."""
    src = job.src
    facts = {"format": src.format, "device_kind": src.device_kind, "clock_domain": src.clock_domain,
             "rank": src.rank, "world_size": src.world_size, "truncated": False, "inflated_bytes": None}
    facts.update(read_facts)
    # (metric columns, extra columns) of the runs row: of the readers, only the Ascend CSV and DB readers fill
    # metrics (the DB's PMU table), only the CSV reader extra_text
    columns = (facts.pop("metric_columns", []), facts.pop("extra_columns", []))
    return Loaded(job, run_id, reader, facts, columns)


def read_together(con, batch: list[tuple]) -> dict[int, Loaded]:
    """Of a folder ingest's batch ((job, run_id) pairs), the traces whose reader reads several at once
    (formats.Reader.read_many), read into the side store open on `con`: their Loaded by run id. The others,
    and those the reader left, have no rows yet: `read_into` reads them one by one."""
    groups: dict = {}
    for job, run_id in batch:
        reader = formats.by_name(job.src.reader)
        if reader.read_many is not None and len(job.src.files) == 1 and job.src.agent is None and not job.capture:
            groups.setdefault(reader.name, []).append((job, run_id))
    out = {}
    for name, group in groups.items():
        if len(group) < 2:
            continue
        reader = formats.by_name(name)
        jobs = {run_id: job for job, run_id in group}
        try:
            read = reader.read_many(con, [(run_id, job.src) for job, run_id in group])
        except TracedbError:     # its work folder cannot be written...: read alone, each says so
            _rollback(con)
            sql.run(con, "delete_run", {"run_ids": list(jobs)})
            continue
        for run_id, facts in read.items():
            out[run_id] = _loaded(jobs[run_id], run_id, reader, facts)
    return out


def read_into(con, job, run_id: int) -> Loaded:
    """The trace's rows read into the side store open on `con` as run `run_id`, not finished:
    `finish_loaded` finishes them (a folder ingest's worker reads a batch of traces, then finishes them
    together)."""
    # what a reader may change when it asks to read again (formats.ReadAgain): an Ascend CSV's metric
    # column with text past the sampled rows or its last line cut short, a Chrome trace's cut inside an event
    options = {"as_text": set(), "parts": None, "safe": False, "core_rules": job.core_rules, "capture": job.capture,
               "cut": None}
    while True:
        try:
            return _read_rows(con, job, options, run_id)
        except formats.ReadAgain as again:   # rare
            discard(con, run_id)
            again.adjust(options)


def finish_loaded(con, loaded: list[Loaded]) -> list:
    """The loaded runs finished: per run its _Staged, or the TracedbError refusing it (its rows removed).
    Runs of one reader that can finish several at once (formats.Reader.finish_many) are finished in one
    transaction; should any of them be refused there, or anything fail, that transaction is rolled back and
    every run is finished on its own, so that the run at fault says why and the others land."""
    if len(loaded) > 1 and _together(loaded):
        try:
            return _finish_together(con, loaded)
        except (TracedbError, duckdb.Error) as e:
            if isinstance(e, duckdb.Error) and "interrupt" in str(e).lower():
                raise      # Ctrl-C or SIGTERM: stop, not one run at a time

    out = []
    for item in loaded:
        try:
            # an Ascend CSV's rows are committed already, duplicates marked: its transaction only adds the
            # runs row and its facts (capped anyway: whatever it reads of millions of rows stays under the cap)
            with memory_cap(con, item.reader.memory) if item.reader.memory else contextlib.nullcontext():
                out.append(_finish_run(con, item.job, item.reader, item.run_id, item.facts, item.columns))
        except TracedbError as e:
            discard(con, item.run_id)
            out.append(e)
    return out


def _together(loaded: list[Loaded]) -> bool:
    first = loaded[0]
    return (first.reader.finish_many is not None and first.reader.memory is None
            and all(x.reader is first.reader and x.job.core_rules == first.job.core_rules for x in loaded))


class _NotTogether(TracedbError):
    """A run of the batch must be finished on its own (it would be refused, or its hash failed)."""


def _finish_together(con, loaded: list[Loaded]) -> list[_Staged]:
    """_finish_run of several runs of one reader in one transaction, each statement over all of them."""
    ids = [x.run_id for x in loaded]
    con.execute("BEGIN")
    try:
        refused, notes = loaded[0].reader.finish_many(con, ids, loaded[0].job.core_rules)
        if refused:
            raise _NotTogether("a run without device activity")
        for x in loaded:
            x.job.hasher.join()
            if x.job.hasher.error:
                raise _NotTogether("a file that cannot be read")
        _add_runs(con, [(x.job, x.run_id, x.facts, x.columns) for x in loaded])
        stats = {r: (n, d) for r, n, d in sql.run(con, "ingest_run_stats", {"run_ids": ids}).fetchall()}
        if loaded[0].reader.kernels_required and any(stats[r][0] == 0 for r in ids):
            raise _NotTogether("a run without kernel rows")
        kernel_names.fill(con, ids)
        kernel_work.fill(con, ids)
        con.execute("COMMIT")
    except BaseException:
        _rollback(con)
        raise
    return [_Staged(rows=stats[x.run_id][0], dups=stats[x.run_id][1], truncated=x.facts["truncated"],
                    inflated=x.facts["inflated_bytes"], unplaced=notes.get(x.run_id),
                    cut=tuple(x.facts.get("cut") or ()))
            for x in loaded]


def _finish_run(con, job, reader, run_id, facts, columns) -> _Staged:
    """The run's one transaction over its loaded rows: duplicate marks (and a Chrome trace's tracks, tasks
    and cores), the runs row, the communication analyses, the stats and the short kernel names."""
    src = job.src
    con.execute("BEGIN")
    unplaced = None
    try:
        if reader.finish:        # a Chrome trace's tracks, tasks and cores; an Ascend CSV's file order
            unplaced = reader.finish(con, run_id, src, job.core_rules)
        else:                    # the file order and duplicate marks of the other readers' rows
            sql.run(con, "ingest_finish", {"run_id": run_id, "marked": False, "candidates": None},
                    rows=sql.ident("kernels_raw_full"))
        hashing.wait(job.hasher)
        _add_runs(con, [(job, run_id, facts, columns)])
        _, rows, dups = sql.run(con, "ingest_run_stats", {"run_ids": [run_id]}).fetchone()
        if rows == 0 and reader.kernels_required:   # not a rank of communication analyses only
            raise InputError(f"{src.files[0]}: header only, no kernel rows; expected at least one data line")
        kernel_names.fill(con, [run_id])
        kernel_work.fill(con, [run_id])
        hashing.wait(job.hasher)    # the files read since (communication analyses) still the ones hashed
        con.execute("COMMIT")
    except BaseException:
        _rollback(con)
        raise
    return _Staged(rows=rows, dups=dups, truncated=facts["truncated"], inflated=facts["inflated_bytes"],
                   unplaced=unplaced, cut=tuple(facts.get("cut") or ()))


def _add_runs(con, runs: list[tuple]):
    """Finished runs' runs rows and communication analyses (groups, and an Ascend rank's files); `runs` holds
    each one's (job, run_id, facts, columns), `columns` being (metric columns, extra columns). The rows and
    groups go in by one statement each for all the runs."""
    sql.run(con, "insert_run", {
        "run_ids": [r for _, r, _, _ in runs], "names": [j.name for j, *_ in runs],
        "tag_keys": [list(j.tag_map) for j, *_ in runs], "tag_values": [list(j.tag_map.values()) for j, *_ in runs],
        "source_paths": [j.src.path for j, *_ in runs], "source_files": [list(j.src.files) for j, *_ in runs],
        "source_bytes": [j.hasher.size for j, *_ in runs], "formats": [f["format"] for _, _, f, _ in runs],
        "content_hashes": [j.hasher.digest for j, *_ in runs], "ranks": [f.get("rank") for _, _, f, _ in runs],
        "device_kinds": [f["device_kind"] for _, _, f, _ in runs],
        "device_names": [f.get("device_name") for _, _, f, _ in runs],
        "world_sizes": [f.get("world_size") for _, _, f, _ in runs],
        "clock_domains": [f["clock_domain"] for _, _, f, _ in runs],
        "truncated": [f["truncated"] for _, _, f, _ in runs],
        "metric_columns": [list(c[0]) for *_, c in runs], "extra_columns": [list(c[1]) for *_, c in runs],
        "metadata": [json.dumps(j.src.metadata, sort_keys=True) for j, *_ in runs], "version": __version__,
        "time_base_ns": [f.get("time_base_ns") for _, _, f, _ in runs]})
    ascend_comm.insert_groups(con, [(r, f.get("groups") or j.src.groups) for j, r, f, _ in runs])
    for job, run_id, _, _ in runs:
        ascend_comm.load(con, run_id, job.src.comm_files)


def _merge(con, side, job, staged) -> IngestResult:
    """One transaction in the store: the runs this one replaces removed, the staged run copied in. Either
    it all lands or the store is unchanged."""
    result = merge_batch(con, side, [job], [(1, staged)])[0]
    if isinstance(result, TracedbError):
        raise result
    return result


def merge_batch(con, side, jobs, staged: list[tuple[int, _Staged]]) -> list:
    """Runs of the side store at `side` into the store open on `con`, in one transaction, by one copy
    (staging.merge): `staged` holds each job's (side store run id, _Staged). Per job, in order: its
    IngestResult (ingested, replaced, or skipped when the store or an earlier job of the batch holds its
    content), or the UsageError refusing a name that other content holds, that job left out. Any other
    failure leaves the store unchanged and is raised."""
    store = staging.store_path_of(con)
    if store:
        staging.check_room(side, store)
    out, ids, taken = [], [], {}
    with staging.attached(con, side):
        con.execute("BEGIN")
        try:
            run_id = con.execute("SELECT coalesce(max(run_id), 0) + 1 FROM runs").fetchone()[0]   # before deleting:
            stored = _StoredRuns(con, jobs)                                          # a replaced run's id is not reused
            for job, (staged_id, st) in zip(jobs, staged):
                same = stored.same_content(job.hasher)
                known = taken.get(job.hasher.digest) or (same[0][1] if same else None)
                if known and not job.replace:
                    out.append(_skipped(job, known))
                    continue
                try:
                    replaced = stored.delete_replaced(job.name, same, job.replace)
                except UsageError as e:
                    out.append(e)
                    continue
                ids.append((staged_id, run_id))
                taken[job.hasher.digest] = job.name
                out.append(_result(job, "replaced" if replaced else "ingested", run_id, st))
                run_id += 1
            if ids:
                staging.merge(con, ids)
            con.execute("COMMIT")
            _landed(out)
        except duckdb.IOException as e:
            _rollback(con)
            raise _write_failed(store or side, e) from None
        except BaseException:
            _rollback(con)
            raise
    return out


class _StoredRuns:
    """The stored runs a batch's merge may skip for or replace (same content or name as one of `jobs`), read
    by one query rather than two per run (~1 ms each: 0.1 s of a 128-rank job's merges), and kept current
    as runs are deleted."""

    def __init__(self, con, jobs):
        self.con = con
        for job in jobs:
            hashing.wait(job.hasher)
        self.rows = con.execute("SELECT run_id, name, content_hash FROM runs WHERE content_hash IN "
                                "(SELECT unnest($hashes::VARCHAR[])) OR name IN (SELECT unnest($names::VARCHAR[])) "
                                "ORDER BY run_id", {"hashes": [j.hasher.digest for j in jobs],
                                                    "names": [j.name for j in jobs]}).fetchall()

    def same_content(self, hasher) -> list:
        """(run_id, name) of the stored runs with the content of `hasher`, as _runs_of_same_content."""
        return [(r, n) for r, n, h in self.rows if h == hasher.digest]

    def delete_replaced(self, name, same, replace) -> list:
        """Deletes the runs this one replaces (same content, or same name with `replace`); returns their ids.
        Another run of this name with other content is an error without `replace`."""
        clash = next((r for r, n, _ in self.rows if n == name), None)
        if clash is not None and not replace:
            raise _name_taken(name)
        replaced = list(dict.fromkeys([r for r, _ in same] + ([clash] if clash is not None else [])))
        if replaced:
            sql.run(self.con, "delete_run", {"run_ids": replaced})
            self.rows = [row for row in self.rows if row[0] not in replaced]
        return replaced


def _runs_of_same_content(con, hasher) -> list:
    """(run_id, name) of the stored runs whose content hash is the source's, once the hash is done."""
    hashing.wait(hasher)
    return con.execute("SELECT run_id, name FROM runs WHERE content_hash = $h ORDER BY run_id",
                       {"h": hasher.digest}).fetchall()


def _rollback(con):
    try:
        con.execute("ROLLBACK")
    except duckdb.Error:
        pass  # the transaction may already be closed by the error


def _name_taken(name) -> UsageError:
    return UsageError(f"run '{name}' already exists with other content; choose another --name or pass --replace")

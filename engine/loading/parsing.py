"""A trace parsed into a side store as one run: its rows read by its reader (read_into; several traces of one
reader at once, read_together), then finished in the run's one transaction (finish_loaded): duplicate marks,
the runs row, the communication analyses, the stats and the short kernel names. Nothing of the store is
touched; engine/loading/landing.py merges the finished runs into it.

This module knows no format: the trace's reader in the registry (tracedb.ingest.formats) reads its rows and
finishes them inside the run's transaction."""
import contextlib
import json
from dataclasses import dataclass

import duckdb

from tracedb import sql
from tracedb.version import __version__
from tracedb.errors import InputError, StoreError, TracedbError
from tracedb.engine.loading import hashing, store_writes
from tracedb.engine.loading.store_writes import _rollback, _write_failed
from tracedb.engine.loading.trace_job import _Job
from tracedb.ingest import ascend_comm, formats, kernel_names, kernel_work
from tracedb.ingest.duckdb_memory import memory_cap


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
            value = sql.run(like, "parsing_setting", {"s": setting}).fetchone()[0]
            con.execute(f"SET {setting} = $v", {"v": value})
        staged = _load_run(con, job, 1)
        store_writes.checkpoint_appended(con)
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

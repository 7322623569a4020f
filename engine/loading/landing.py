"""Staged runs landed in the store: one transaction that removes the runs each one replaces, skips one whose
content is stored already, refuses a name that other content holds, and copies the others in from their side
store (staging.merge). Either it all lands or the store is unchanged."""
import duckdb

from tracedb import sql
from tracedb.errors import TracedbError, UsageError
from tracedb.engine.loading import hashing
from tracedb.engine.loading import staging
from tracedb.engine.loading.known_content import _name_taken
from tracedb.engine.loading.parsing import _Staged
from tracedb.engine.loading.results import IngestResult, _result, _skipped, committing
from tracedb.engine.loading.store_writes import _rollback, _write_failed


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
            run_id = sql.run(con, "landing_next_run_id").fetchone()[0]   # before deleting:
            stored = _StoredRuns(con, jobs)                               # a replaced run's id is not reused
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
            with committing(store, out):
                con.execute("COMMIT")
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
        self.rows = sql.run(con, "landing_stored", {"hashes": [j.hasher.digest for j in jobs],
                                                    "names": [j.name for j in jobs]}).fetchall()

    def same_content(self, hasher) -> list:
        """(run_id, name) of the stored runs with the content of `hasher`, as known_content._runs_of_same_content."""
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

"""What an ingest says of each run: its IngestResult (ingested, replaced or skipped, with rows, bytes and time)
and the one line that summarizes it, and the runs a command has landed so far (recording_landed), so that an
interrupt right after a commit still names every run that is in."""
import contextlib
import os
import time
from dataclasses import dataclass

from tracedb import sql


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
# Runs whose commit (a COMMIT, or a side store linked into place) had begun when the command stopped: the stop
# may have come after the store took them but before they were entered in the ledger (a SIGINT during
# DuckDB's COMMIT raises once the commit is done). landed_after_stop asks the store.
_pending: list = []


@contextlib.contextmanager
def recording_landed():
    """Within the block, every run this process commits (IngestResult) is appended to the list it yields."""
    global _ledger
    _ledger = []
    _pending.clear()
    try:
        yield _ledger
    finally:
        _ledger = None
        _pending.clear()


@contextlib.contextmanager
def committing(store: str | None, results: list):
    """Around the commit of `results` into the store file `store`: entered in the ledger when the block ends
    normally (unless it calls the yielded `cancel`: nothing was committed), left pending when it raises."""
    made = [r for r in results if isinstance(r, IngestResult) and r.status != "skipped"]
    entry = (store, made)
    cancelled = []
    _pending.append(entry)
    yield lambda: cancelled.append(True)
    _pending.remove(entry)
    if not cancelled:
        _landed(made)


def landed_after_stop() -> list:
    """After a stop: the runs of the ledger, then those whose commit was under way that the store holds (by
    run id and name; a store that cannot be read now adds none)."""
    out = list(_ledger or [])
    for store, made in list(_pending):
        if not store or not made:
            continue
        try:
            import duckdb
            con = duckdb.connect(store, read_only=True)
            try:
                held = set(sql.run(con, "captures_run_names").fetchall())
            finally:
                con.close()
        except Exception:       # locked by another writer, or not a store: nothing is claimed
            continue
        out += [r for r in made if (r.run_id, r.name) in held and r not in out]
    return out


def _landed(results):
    if _ledger is not None:
        _ledger.extend(r for r in results if isinstance(r, IngestResult) and r.status != "skipped")


def _skipped(job, same_as) -> IngestResult:
    return IngestResult(name=job.name, run_id=None, status="skipped", same_as=same_as, files=tuple(job.src.files),
                        seconds=time.perf_counter() - job.t0, bytes=sum(os.path.getsize(f) for f in job.src.files))


def _result(job, status, run_id, staged) -> IngestResult:
    return IngestResult(name=job.name, run_id=run_id, status=status, rows=staged.rows, duplicates=staged.dups,
                        seconds=time.perf_counter() - job.t0, bytes=job.hasher.size, truncated=staged.truncated,
                        inflated=staged.inflated, files=tuple(job.src.files), unplaced=staged.unplaced,
                        cut=staged.cut)

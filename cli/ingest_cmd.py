"""`tracedb ingest`: load trace files or profiler folders into the store, one run each; a folder of
several profiler outputs or trace files (one per rank) gives one run per trace, with progress."""
import contextlib
import dataclasses
import os
import sys
import time
from typing import Annotated, List, Optional

import typer

from tracedb.cli.common import DbOpt, one_line, one_line_errors
from tracedb.cli.options import integer, non_empty, run_name, scheduler_address

MAX_JOBS = 1024     # worker processes: far beyond any one machine's cores; only refuses a typo


@one_line_errors
def ingest(
    paths: Annotated[List[str], typer.Argument(
        help="Trace files, profiler output folders (*_ascend_pt, ASCEND_PROFILER_OUTPUT), or folders of them "
             "(one run per trace).", callback=non_empty("a trace file or folder"))],
    db: DbOpt = None,
    name: Annotated[Optional[str], typer.Option(
        "--name", "-n", help="Run name (default: folder or file name); for a folder of traces, the prefix of their "
                             "names.", callback=run_name)] = None,
    tag: Annotated[Optional[List[str]], typer.Option("--tag", "-t", help="KEY=VALUE, repeatable; applies to every run.",
                                                             callback=non_empty("KEY=VALUE"))] = None,
    replace: Annotated[bool, typer.Option(
        "--replace", help="Replace a run with the same name or identical content.")] = False,
    core_rule: Annotated[Optional[List[str]], typer.Option(
        "--core-rule", help="Per-core traces: REGEX=CLASS maps thread names to a core class, before the built-in "
                            "AIC/AIV/AICPU naming; repeatable.", callback=non_empty("REGEX=CLASS"))] = None,
    jobs: Annotated[Optional[int], typer.Option(
        "--jobs", "-j", help="Traces parsed at once, a process each (default: one per core, at most one per trace "
                             "and per GiB of available memory); 1: in this process, one batch after another.",
        callback=integer(1, MAX_JOBS))] = None,
    to: Annotated[Optional[str], typer.Option(
        "--to", metavar="DIR", help="Add each run to the Parquet dataset DIR (created when missing) instead of a "
                                    "store; read it with --db DIR/.", callback=non_empty("a dataset folder"))] = None,
    scheduler: Annotated[Optional[str], typer.Option(
        "--scheduler", metavar="ADDRESS",
        help="With --to: convert the traces on the Dask cluster at ADDRESS (tcp://HOST:8786), one task per batch of "
             "traces; DIR and the traces must be at the same paths on the workers (extra tracedb[dask]).",
        callback=scheduler_address)] = None,
    capture: Annotated[Optional[List[str]], typer.Option(
        "--capture", metavar="CAPTURE",
        help="The graph capture trace of the replay PATH (a trace file, or a folder of them; repeatable): ingested "
             "as a run of its own, paired with the replay so that its graph-replayed kernels take the ops and "
             "modules that captured them.", callback=non_empty("a graph capture trace"))] = None,
    segment: Annotated[Optional[bool], typer.Option(
        "--segment/--no-segment",
        help="Keep the runs' passes and layers for the reports, as `tracedb segment` does (a job's runs together); "
             "default: when the runs landed hold at most 250,000 kernels in all.")] = None,
):
    """Ingest traces: each trace becomes one run, in its own transaction (all or nothing per run)."""
    from tracedb.engine.loading.hashing import start_early
    if len(paths) == 1 and os.path.isfile(paths[0]):   # isfile: a FIFO or device is never opened here
        start_early(paths[0])   # before DuckDB's import: the hash of a big trace overlaps it
    elif scheduler is None and (jobs or 2) > 1:
        from tracedb.ingest.ascend_layout import is_profiler_output
        if any(os.path.isdir(p) and not is_profiler_output(p) for p in paths):   # a folder of several traces
            from tracedb.engine.loading import forkserver
            # the workers' forkserver starts while DuckDB is imported and the folder searched, unless the folder
            # is too small for workers to pay (forkserver.SMALL_FOLDER_BYTES)
            if forkserver.cores() > 1 and (jobs is not None or not forkserver.small_folders(paths)):
                forkserver.start_early()
    from tracedb.engine.loading.folder import plan
    from tracedb.errors import UsageError as TracedbUsage
    from tracedb.ingest.sources import resolve
    if to is not None and db is not None:
        raise TracedbUsage("--db and --to: give one (--db: a store file; --to: a Parquet dataset folder)")
    if scheduler is not None and to is None:
        raise TracedbUsage("--scheduler: give --to DIR, the dataset on storage the workers share")
    skipped: list = []     # entries named like traces that are no regular file: said with what was not loaded
    planned = plan(paths, name, skipped)
    if capture:
        planned = _with_captures(paths, planned, capture, to)
    elif to is not None and any(p.capture for p in planned):   # pairing tags runs in a store
        typer.echo(f"note: {sum(p.capture for p in planned)} of the traces look like graph captures; a dataset "
                   "(--to) keeps them as plain runs, not paired with their replays: ingest into a store (--db) to "
                   "pair them", err=True)
        planned = [dataclasses.replace(p, capture=False) for p in planned]
    if to is not None:      # a dataset's runs are written with their tags: their jobs are decided now
        from tracedb.engine.loading import job_tags
        planned = job_tags.at_plan(planned)
    if len(planned) == 1:   # a trace that cannot be read fails here, before anything is written
        resolve(planned[0].path)
    with _new_folder_removed_unless_used(to):
        _ingest_planned(paths, planned, db, to, tag, replace, core_rule, jobs, scheduler, capture, skipped,
                        segment)


@contextlib.contextmanager
def _new_folder_removed_unless_used(to: str | None):
    """`--to DIR` with DIR missing: the ingest creates it; when no run landed in it (every trace failed, or
    an interrupt), the folder is removed again, so a failed first ingest leaves nothing behind. Only an empty
    folder is removed (os.rmdir): one another ingest wrote into meanwhile stays."""
    made = to is not None and not os.path.lexists(to)
    try:
        yield
    finally:
        if made and os.path.isdir(to) and not os.path.islink(to):
            from tracedb.engine.store import dataset
            if not dataset.has_manifest(to):
                with contextlib.suppress(OSError):
                    os.rmdir(to)


def _ingest_planned(paths, planned, db, to, tag, replace, core_rule, jobs, scheduler, capture, skipped, segment):
    """The planned runs ingested, each run's line printed as it lands, then what the folders held that was not
    loaded, the pairing of graph captures and the jobs; exits 1 (or 2) when a trace failed."""
    from tracedb.engine.loading.folder import ingest_all
    from tracedb.engine.loading.worker_pool import workers_for
    from tracedb.errors import TracedbError
    failed, read, done, kept = [], [], [], []
    t0 = time.perf_counter()
    folders = [p for p in paths if os.path.isdir(p)]    # a folder ingest says what it loaded and what not
    workers, note = workers_for(len(planned), jobs, [(p.path, p.bytes) for p in planned])
    if note:
        typer.echo(f"note: {one_line(note)}", err=True)
    from tracedb.engine.loading.results import recording_landed
    said: set = set()      # runs whose line is printed
    with recording_landed(), _Progress(planned) as progress, _say_landed(progress, said, len(planned) > 1):
        if scheduler is not None:
            from tracedb.engine.loading.cluster import ingest_on_cluster
            runner = ingest_on_cluster(scheduler, to, planned, tags=tag, replace=replace, core_rules=core_rule,
                                       on_start=progress.start)
        else:
            runner = ingest_all(db, planned, on_start=progress.start, jobs=workers, tags=tag, replace=replace,
                                core_rules=core_rule, **({"to": to} if to is not None else {}))
        with contextlib.closing(runner) as results:
            for item, res in results:
                if isinstance(res, TracedbError) and len(planned) == 1:
                    raise res
                failed += [res] if isinstance(res, TracedbError) else []
                progress.done(item, f"error: {res}" if isinstance(res, TracedbError) else
                              res.summary(named=len(planned) > 1), isinstance(res, TracedbError))
                if isinstance(res, TracedbError):     # its error names it: not said again below
                    read += _files_of(item.path)
                else:
                    said.add(res.name)
                    read += res.files
                    done.append(res)
                    kept.append((item, res))
                    if folders and res.status != "skipped":
                        _loaded(progress, res)
    if folders:
        from tracedb.engine.loading import unread
        for line in unread.grouped(unread.beside(read, folders) + skipped, folders):
            progress.note(f"  {line}")
    if to is None and (capture or folders):
        for line in _pair(db, kept, capture):
            progress.note(line)
    if folders:             # after the pairing: a graph capture is no rank of a job
        for line in _jobs(db, to, planned, kept, tag):
            progress.note(line)
    took = time.perf_counter() - t0      # the loading's time (its MB/s): the segmentation kept below is not in it
    if to is None and segment is not False:
        _keep_segmentation(db, [res.name for item, res in kept if res.status != "skipped" and not item.capture],
                           "always" if segment else "auto")
    if len(planned) > 1:
        progress.note("  " + _in_all(done, failed, took))
    if len(failed) > 1:     # one failure: its own line says it all
        rest = ("no run was ingested" if len(failed) == len(planned) else
                f"the other runs are in the {'dataset' if to is not None else 'store'}")
        typer.echo(f"error: {len(failed)} of {len(planned)} traces failed (above); {rest}", err=True)
    if failed:
        raise typer.Exit(min(e.exit_code for e in failed))   # 2 only when every failure was a wrong call


def _with_captures(paths, planned, capture, to):
    """The plan of `tracedb ingest REPLAY --capture CAPTURE...`: the replay's run, then its captures'."""
    from tracedb.engine.loading.folder import plan_captures
    from tracedb.errors import UsageError as TracedbUsage
    if to is not None:
        raise TracedbUsage("--capture: pairs runs in a store (--db); not with --to")
    if len(paths) != 1 or len(planned) != 1 or not os.path.isfile(paths[0]):
        raise TracedbUsage("--capture: give one replay trace file as PATH (a folder ingest pairs the captures it "
                           "holds by itself)")
    for c in capture:
        if os.path.exists(c) and os.path.samefile(c, paths[0]):
            raise TracedbUsage(f"--capture {c}: the replay itself; give the graph capture trace of its process")
    return planned + plan_captures(planned[0], capture)


def _pair(db, kept: list, capture) -> list[str]:
    """Pair the graph captures among the runs landed (or already stored) with their replays; the lines to say."""
    from tracedb.engine.loading import captures
    from tracedb.engine.store.connect import open_store, resolve_path
    runs = [captures.Landed(item.path, res.same_as if res.status == "skipped" else res.name, item.capture)
            for item, res in kept]
    reps, caps = [x.run for x in runs if not x.capture], [x.run for x in runs if x.capture]
    if capture and (not reps or not caps):     # the replay or every capture failed: its error said why
        return []
    if not capture and len(runs) < 2:
        return []
    con = open_store(resolve_path(db))
    try:
        return captures.pair_given(con, reps[0], caps) if capture else captures.pair_landed(con, runs)
    finally:
        con.close()


def _jobs(db, to, planned, kept: list, tag) -> list[str]:
    """Which runs of each folder are ranks of one job (engine/loading/job_tags.py), tagged `job` in a store once
    the runs landed (a dataset's were tagged as planned); the lines that say so."""
    from tracedb.engine.loading import job_tags
    from tracedb.engine.store.connect import open_store, parse_tags, resolve_path
    given = parse_tags(tag).get("job")
    if to is not None:
        return job_tags.lines_at_plan(planned, {res.name for _, res in kept if res.status != "skipped"}, given)
    if not kept:
        return []
    con = open_store(resolve_path(db))
    try:
        return job_tags.settle(con, kept, given)
    finally:
        con.close()


def _keep_segmentation(db, names: list[str], when: str):
    """The runs landed segmented and kept for the reports (engine/segmentation/at_ingest.py), quietly, as part
    of the ingest; a note when they are too many for it or it failed (a write the disk refused), the runs
    staying in."""
    if not names:
        return
    from tracedb.engine.segmentation import at_ingest
    from tracedb.engine.store.connect import open_store, resolve_path
    con = open_store(resolve_path(db))
    try:
        _, lines = at_ingest.keep(con, names, when)
    finally:
        con.close()
    for line in lines:
        typer.echo(line, err=True)


@contextlib.contextmanager
def _say_landed(progress, said: set, named: bool):
    """On Ctrl-C, SIGTERM (or any error that ends the command): the line of every run committed before it
    (engine/loading/results.landed_after_stop) whose line was not printed yet (the stop came between its commit
    and its line: DuckDB cuts the checkpoint after a merge short on SIGINT, and a SIGINT during its COMMIT
    raises once the commit is done), then the command goes on to its one error line."""
    from tracedb.engine.loading.results import landed_after_stop
    try:
        yield
    except BaseException:
        for res in landed_after_stop():
            if res.name not in said:
                said.add(res.name)
                progress.done(None, res.summary(named=named), False)
        raise


def _in_all(done, failed, seconds: float) -> str:
    """The line of a several-trace ingest that says what it did in all: runs, bytes, time and rate."""
    from tracedb.engine.loading import results
    made = [r for r in done if r.status != "skipped"]
    mb = sum((r.inflated if r.inflated is not None else r.bytes) for r in made) / 1e6
    others = [f"{n} {what}" for n, what in ((len(done) - len(made), "skipped"), (len(failed), "failed")) if n]
    return (f"in all: {len(made)} run{'s' if len(made) != 1 else ''} ingested"
            + (f" ({', '.join(others)})" if others else "")
            + f", {mb:,.1f} MB in {seconds:.2f} s{results.rate(mb, seconds)}")


def _files_of(path) -> list[str]:
    """The files a planned run would read (the path itself when it cannot be resolved)."""
    from tracedb.errors import TracedbError
    from tracedb.ingest.sources import resolve
    try:
        return list(resolve(path).files)
    except (TracedbError, OSError):
        return [path]


def _loaded(progress, res):
    """Under a run's line: the files it loaded (those it did not are said once every run is in)."""
    base = os.path.dirname(os.path.abspath(res.files[0])) if res.files else ""
    names = [os.path.relpath(os.path.abspath(f), base) for f in res.files]
    progress.note(f"  loaded: {', '.join(names)}" + (f" (in {base})" if base else ""))


class _Progress:
    """A bar on stderr when stderr is a terminal and there are several traces. Either way each run's
    summary line goes to stdout (an error to stderr) as it ends: the one line per run of a log."""

    def __init__(self, planned):
        self.n = len(planned)
        self.tty = self.n > 1 and sys.stderr.isatty()
        self.bar = None
        self._ctx = typer.progressbar(length=max(1, sum(p.bytes for p in planned)), label="ingest",
                                      file=sys.stderr) if self.tty else contextlib.nullcontext()

    def __enter__(self):
        self.bar = self._ctx.__enter__() if self.tty else None
        return self

    def __exit__(self, *exc):
        return self._ctx.__exit__(*exc)

    def start(self, i, item):
        if self.bar is not None:
            self.bar.label = f"[{i + 1}/{self.n}] {item.name or os.path.basename(item.path)}"
            self.bar.render_progress()

    def note(self, line: str):
        """A line of what a run loaded or not, indented under the run's line (wrapped in a terminal)."""
        from tracedb.engine.rendering.render import terminal_width
        width = terminal_width()
        if self.bar is not None:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
        if width:
            from tracedb.engine.rendering.names import wrapped
            line = wrapped("", one_line(line), width)
        typer.echo(line if width else one_line(line))
        if self.bar is not None:
            self.bar.render_progress()

    def done(self, item, line: str, err: bool):
        if self.bar is not None:
            sys.stderr.write("\r\x1b[K")     # clear the bar's line; it is drawn again below
            sys.stderr.flush()
        typer.echo(line, err=err)
        if self.bar is not None and item is not None:
            self.bar.update(item.bytes)

"""The segmentation an ingest keeps: once `tracedb ingest` has landed its runs, it segments them with the
default options as `tracedb segment` does (persist.segment_runs), so that the reports that follow restore
passes and layers instead of finding them again, and `kernel_layers` answers in SQL at once.

Which runs together, as the reports select them: the runs of one job (the tag `job`, `--tag job=J`) in one
segmentation, every other run alone (`--run NAME`). A report that selects runs another way (two ranks of a
job, a GLOB, other options) finds no kept segmentation and segments afresh, as without one.

When: `auto` keeps one while the runs landed hold at most AUTO_MAX_KERNELS kernels in all. A segmentation
costs ~0.6 s however small the run (its ~100 statements), then ~12 us a kernel on 2 cores: 0.6-0.8 s for
the 0.5 B H100 trace (3.4 k kernels), 2.0-2.6 s for a 128-rank job (216 k), 9.2 s for the 1 GB Kineto trace
(673 k) that ingests in 4.5 s. Past the bound the ingest would more than double, so it says instead how to
keep one (`tracedb segment`, or `--segment`).

A run with no layers to find (no anchor: a CNN, a trace of a few kernels) keeps none; its reports say why,
as they would. The runs are committed before any of this: a segmentation that fails costs the ingest
nothing but its note."""
import duckdb

from tracedb import sql
from tracedb.engine.segmentation import binding
from tracedb.engine.segmentation.persist import segment_runs
from tracedb.engine.store.connect import session
from tracedb.errors import TracedbError

AUTO_MAX_KERNELS = 250_000


def groups(con, names: list[str]) -> tuple[list[binding.Options], int]:
    """The selections to keep, in run order (a job's: its tag; another run's: its name), and the kernels of
    the runs `names` in all."""
    rows = sql.run(con, "runs_for_keeping", {"names": list(names)}).fetchall()
    out, jobs = [], set()
    for name, job, _ in rows:
        if job is None:
            out.append(binding.Options(runs=[name]))
        elif job not in jobs:
            jobs.add(job)
            out.append(binding.Options(tags=[f"job={job}"]))
    return out, sum(r[2] for r in rows)


def keep(con, names: list[str], when: str = "auto") -> tuple[int, list[str]]:
    """Keep the segmentation of the runs `names` (just ingested) when `when` is `always`, or `auto` and they
    are small enough: (the segmentations kept, the lines an ingest says about it)."""
    if when == "never" or not names:
        return 0, []
    todo, kernels = groups(con, names)
    if when == "auto" and kernels > AUTO_MAX_KERNELS:
        return 0, [f"note: segmentation not kept ({kernels:,} kernels, over {AUTO_MAX_KERNELS:,}): each report "
                   "finds passes and layers again; `tracedb segment` (or ingest --segment) keeps them for the "
                   "reports"]
    done, out = 0, []
    for opt in todo:
        what = f"job '{opt.tags[0][4:]}'" if opt.tags else f"run '{opt.runs[0]}'"
        cur = session(con)    # a session per selection: nothing one leaves in TEMP tables reaches the next
        try:
            segment_runs(cur, opt)
        except TracedbError:
            continue      # no layers to find: the reports that need them say why
        except duckdb.InterruptException:
            raise
        except duckdb.Error as e:     # the runs are in; only their segmentation is missing
            msg = str(e).splitlines()[0] if str(e) else type(e).__name__
            out.append(f"note: {what}: segmentation not kept ({msg}); reports segment it themselves")
        else:
            done += 1
        finally:
            cur.close()
    return done, out

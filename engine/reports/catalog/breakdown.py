"""`report breakdown`: device time per run, step, pass or layer: span, computing, communication, their overlap
and the free time (sql/report/breakdown_*.sql), with the Ascend profiler's own figures beside where it wrote
them. --by pass and layer segment the runs as report layers does; --by run and step need no anchor, only the
profile's category rules (what is communication)."""
from tracedb.engine.rendering import vega_lite as vl
from tracedb.engine.reports.declaration import MEAN_REFUSED, SEGMENTED, Examples, Report, charts
from tracedb.engine.reports.shared_options import PASS, _by

# what `report breakdown` counts, stated in a note of every breakdown (docs/reports.md#report-breakdown)
DEFINITIONS = (
    "computing, communication: unions of the compute kernels' and the communication ops' intervals (communication: "
    "logged so, as HCCL ops, or in the profile's communication category: NCCL/RCCL, DeepEP, custom all-reduce); "
    "overlapped: both at once; free: span with neither, copies and fills inside it (the Ascend profiler's "
    "step_trace_time.csv definitions); memcpy, memset: copies and fills on their own, exposed where no kernel or "
    "communication op runs (a fill: nor a copy); device_span = computing + comm_not_overlapped + memcpy_exposed + "
    "memset_exposed + idle, over every activity (AMD TraceLens's gpu_timeline)")
# the profiler's own figures beside tracedb's (report_breakdown.sql): a table for people leaves out those no row
# has, without a note (a GPU run never has them); CSV and JSON keep them
PROFILER_COLUMNS = ("prof_span_us", "prof_computing_us", "prof_communication_us", "prof_overlapped_us",
                    "prof_comm_not_overlapped_us", "prof_free_us", "prof_bubble_us", "prof_preparing_us")


def build(con, fmt, seg, by="run", pass_spec=None):
    from tracedb import sql
    from tracedb.engine.rendering import render as rnd
    from tracedb.engine.segmentation import units
    b, meta = units.activity_units(con, pass_spec, by, seg)
    units.check_activities(con, b, by)
    if by == "step":
        units.split_steps(con, b)
    sql.run(con, "breakdown_union")
    meta["by"] = by
    b.notes.append(DEFINITIONS)
    excluded = sql.run(con, "breakdown_uncounted").fetchall()
    for rid in dict.fromkeys(r for r, *_ in excluded):
        b.notes.append(f"run '{b.run_names[rid]}': not counted (neither computing nor communication, so free): "
                       + ", ".join(f"{n:,} {kind} ({ns / 1000:,.3f} us)" for r, kind, n, ns in excluded if r == rid))
    _profiler_notes(con, b, by)
    res = rnd.fetch_file(con, fmt, "report_breakdown", {"run_ids": b.run_ids, "by": by}, "breakdown", b, meta,
                         f"device time by {by}: computing, communication, overlap, free",
                         labels=units.PROLOGUE if by == "layer" else None)
    hidden = units.hidden_unit_columns(fmt, by)
    res = rnd.drop_columns(res, hidden) if hidden else res
    if fmt in ("table", "md"):
        at = {c: i for i, c in enumerate(res.columns)}
        res = rnd.drop_columns(res, [c for c in PROFILER_COLUMNS if all(row[at[c]] is None for row in res.rows)])
    return res


def _profiler_notes(con, b, by):
    """Where the Ascend profiler's own figures (step_trace_time.csv, table step_times) stand in the rows."""
    from tracedb import sql
    steps, bare = sql.run(con, "breakdown_profiler_steps", {"run_ids": b.run_ids}).fetchone()
    if not steps:
        return
    if by in ("pass", "layer"):
        b.notes.append("the Ascend profiler's step_trace_time.csv has no passes or layers: its figures (prof_*) are "
                       "in --by run and step")
        return
    b.notes.append("prof_*: the Ascend profiler's own figures of the run or step (its step_trace_time.csv: Stage + "
                   "Bubble, Computing, Communication, Overlapped, Communication(Not Overlapped), Free, Bubble, "
                   "Preparing), beside tracedb's")
    for rid in bare or []:
        b.notes.append(f"run '{b.run_names[rid]}' has no kernel rows: its span, computing, communication, overlap and "
                       "free time are its profiler's step_trace_time.csv figures (source step_trace_time)")


def breakdown_chart(res):
    """Computing, communication not overlapped and free time per unit: together the unit's span."""
    unit, title = vl.unit(res, ("run", "step", "pass", "layer"))
    return vl.stack(unit, title, ["computing_us", "comm_not_overlapped_us", "free_us"], "time")


REPORT = Report(
    "breakdown", "Where device time goes: span, computing, communication, overlapped, not-overlapped communication "
    "and free time per run, step, pass or layer (the Ascend profiler's step_trace_time.csv columns).",
    SEGMENTED, (_by("run", ("run", "step", "pass", "layer"),
                    "run, step (Ascend Step Id; Kineto ProfilerStep#N), pass or layer (these two segment like report "
                    "layers; --profile sets what is communication for all)."), PASS),
    MEAN_REFUSED, ("report_breakdown",),
    charts(("computing_us free_us", breakdown_chart)), build=build, place=80,
    # tiny_x2 doubles every duration at the same starts, so its hcom ops overlap the MatMul before and the SwiGlu
    # after them (tests/test_breakdown.py derives it)
    examples=Examples("tiny", {
        "breakdown.table": ("table", {"runs": ["tiny", "tiny_x2"]}),
        "breakdown.md": ("md", {"runs": ["tiny_x2"], "by": "step"}),
        "breakdown.csv": ("csv", {"runs": ["tiny_x2"], "by": "layer", "window": "full"}),
        "breakdown.json": ("json", {"runs": ["tiny_x2"], "by": "pass", "pass_spec": "3"}),
        "breakdown_layer.md": ("md", {"runs": ["tiny_x2"], "by": "layer", "pass_spec": "steady"}),
        "breakdown_gpu.csv": ("csv", {"runs": ["gpu"], "profile": None, "layers": None}),
        "breakdown.html.json": ("html", {"runs": ["tiny_x2"], "by": "layer", "window": "full"}),
    }, checks=(
        {"by": "layer", "pass_spec": "all"},
    )))

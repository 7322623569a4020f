"""`report cores`: on-core busy time, idle time and bubbles of per-core NPU traces (tasks of kind 'task'), per
core class or core; two runs side by side with their ratio; --scheduler the AICPU phases, --top-gaps the
longest idle gaps."""
from typing import Optional

from tracedb.engine.rendering import vega_lite as vl
from tracedb.engine.reports.declaration import RUNS, Examples, Option, Report, charts
from tracedb.engine.reports.shared_options import _flag

CORES = {"runs": ["cores"]}


def build(con, fmt, seg, match=None, from_us=None, to_us=None, per_core=False, scheduler=False, stack=False,
          top_gaps=0):
    from tracedb import patterns, sql
    from tracedb.engine.rendering import render as rnd
    from tracedb.engine.segmentation import binding
    from tracedb.errors import UsageError
    b = binding.bind_runs(con, seg.get("runs") or (), seg.get("tags") or ())
    ids, names = b.run_ids, b.run_names
    if scheduler:
        return rnd.fetch_file(con, fmt, "report_cores_scheduler", {"run_ids": ids}, "cores", b,
                              {"runs": ", ".join(names[r] for r in ids)}, "AICPU scheduler phases")
    have = dict(sql.run(con, "cores_tasks", {"run_ids": ids}).fetchall())
    for rid in ids:
        if not have.get(rid):
            raise UsageError(f"run '{names[rid]}' has no per-core tasks (threads named like AIC_0 / AIV 12 outside an "
                             "AICPU process); `tracedb report cores` reads on-device per-core traces")
    if match:
        patterns.check_regex(con, match, "--match")
        hits = sql.run(con, "cores_match", {"run_ids": ids, "match": match}).fetchall()
        if not hits[0][0]:
            raise UsageError(f"--match {match!r}: no task name of the runs matches; most frequent: "
                             + ", ".join(f"{n} ({c})" for _, n, c in hits if n))
    to_ns = lambda v: None if v is None else round(float(v) * 1000)   # noqa: E731
    sql.run(con, "report_cores", {"run_ids": ids, "match": match, "from_ns": to_ns(from_us), "to_ns": to_ns(to_us)})
    meta = {"runs": ", ".join(names[r] for r in ids), "match": match or "every task",
            "window": f"{from_us if from_us is not None else 'first task'} .. "
                      f"{to_us if to_us is not None else 'last task'}"}
    if top_gaps:
        return rnd.fetch_file(con, fmt, "report_cores_gaps", {"run_ids": ids, "top": top_gaps}, "cores", b, meta,
                              f"the {top_gaps} longest idle gaps per core class")
    if len(ids) == 2 and not per_core and not stack:
        return rnd.fetch_file(con, fmt, "report_cores_compare", {"run_ids": ids}, "cores", b, meta,
                              f"on-core time: {names[ids[1]]} vs {names[ids[0]]}")
    file, title = ("report_cores_core", "per core") if per_core else ("report_cores_class", "per core class")
    return rnd.fetch_file(con, fmt, file, {"run_ids": ids}, "cores", b, meta, f"on-core time {title}")


def cores_chart(res):
    """Busy and idle time per core class (or per core), stacked."""
    unit, title = vl.unit(res, ("run", "core") if "core" in res.columns else ("run", "core_class"))
    return vl.stack(unit, title, ["busy_us", "idle_us"], "time")


def compare_chart(res):
    """Two runs: each core class's busy time side by side."""
    return vl.side_by_side({"calculate": "datum.core_class", "as": "unit"}, "core_class", ["busy_us_a", "busy_us_b"],
                           "datum.part == 'busy_us_a' ? datum.run_a : datum.run_b")


def scheduler_chart(res):
    """Time per phase on each AICPU thread, stacked."""
    unit, title = vl.unit(res, ("run", "process", "thread"), prefix=("thread",))
    spec = vl.bar_per_row(unit, title, "sum_us", "phase")
    spec["encoding"]["x"]["stack"] = "zero"
    return spec


def gaps_chart(res):
    """The longest idle gaps as time ranges on their cores."""
    lane, title = vl.unit(res, ("run", "core"), prefix=("core",))
    return vl.ranges(lane, title, "start_us", "end_us", "core_class", vl.US,
                     ("unit", "rank", "start_us", "end_us", "gap_us", "exposed_us"))


REPORT = Report(
    "cores", "On-core busy time, idle time and bubbles (exposed vs hidden) of per-core NPU traces; two runs side by "
    "side.",
    RUNS, (Option("match", ("--match", "-m"), Optional[str], None,
                  "RE2 on task names: only this kernel set (e.g. attention).", check="pattern"),
           Option("from_", ("--from",), Optional[float], None, "Window start, µs after the run's first task.",
                  check="us", engine="from_us"),
           Option("to", ("--to",), Optional[float], None, "Window end, µs after the run's first task.", check="us",
                  engine="to_us"),
           _flag("per_core", "One row per core instead of per core class."),
           _flag("scheduler", "Time per phase on each AICPU scheduler / orchestrator thread."),
           _flag("stack", "With two runs: their per-class rows stacked, not side by side."),
           Option("top_gaps", ("--top-gaps",), int, 0, "The N longest idle gaps per core class, with time ranges.",
                  check="count")),
    None, ("report_cores_class", "report_cores_core", "report_cores_compare", "report_cores_scheduler",
           "report_cores_gaps"),
    charts(("busy_us_a busy_us_b", compare_chart), ("phase sum_us", scheduler_chart), ("start_us end_us", gaps_chart),
           ("busy_us idle_us", cores_chart)), build=build, place=60,
    examples=Examples("tiny", {
        "cores.table": ("table", CORES),
        "cores.md": ("md", {**CORES, "per_core": True}),
        "cores.csv": ("csv", CORES),
        "cores.json": ("json", {**CORES, "match": "attn"}),
        "cores_window.csv": ("csv", {**CORES, "from_us": 10, "to_us": 30, "per_core": True}),
        "cores_gaps.csv": ("csv", {**CORES, "top_gaps": 2}),
        "cores.html.json": ("html", {**CORES, "per_core": True}),
    }, checks=(
        {**CORES, "match": "attn"},
        {**CORES, "scheduler": True},
        {"runs": ["cores", "cores2"]},
    )))

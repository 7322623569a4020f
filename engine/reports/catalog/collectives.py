"""`report collectives`: the collectives of a job's ranks matched across each process group: arrival skew,
transfer time, bytes and nccl-tests bandwidths, in clocks aligned on the collectives (--no-align: raw) (the
computation: engine/jobs/collectives.py; docs/jobs.md)."""
from tracedb.engine.rendering import vega_lite as vl
from tracedb.engine.reports.declaration import PROFILED, Examples, Report, charts
from tracedb.engine.reports.shared_options import NO_ALIGN, _flag


def build(con, fmt, seg, per_rank=False, no_align=False):
    from tracedb.engine.jobs import collectives
    return collectives.build(con, fmt, per_rank=per_rank, no_align=no_align, **seg)


def collectives_chart(res):
    """Per collective instance (group/seq and op, in the order of their first start) its arrival skew."""
    unit, title = vl.unit(res, ("group", "seq"), suffix="datum.op", name="collective")
    spec = vl.bar_per_row(unit, title, "arrival_skew_us", "op", horizontal=False)
    spec["encoding"]["y"]["title"] = f"arrival skew {vl.US}"
    spec["encoding"]["tooltip"] = vl.tip("unit", "op", "last_rank", "us", "transfer_us")
    return spec


def per_rank_chart(res):
    """Per collective instance a bar per member rank: its wait for the last rank to arrive."""
    unit, title = vl.unit(res, ("group", "seq"), suffix="datum.op", name="collective")
    return {"transform": [unit, {"calculate": vl.datum("wait_us"), "as": "us"},
                          {"calculate": vl.text("rank"), "as": "member"}],
            **vl.bars(title, vl.color_by("member"), offset="member", value_title=f"wait {vl.US}",
                      tooltip=("member", "run"))}


REPORT = Report(
    "collectives", "Collectives of a job's ranks matched across each process group: arrival skew, transfer time, "
    "bytes and nccl-tests bandwidths, in clocks aligned on the collectives (--no-align: raw); see docs/jobs.md.",
    PROFILED, (_flag("per_rank", "One row per collective and rank: its start, duration and wait for the last rank."),
               NO_ALIGN),
    None, ("collectives_report", "collectives_per_rank"),
    charts(("wait_us rank", per_rank_chart), ("arrival_skew_us transfer_us", collectives_chart)), build=build,
    place=120,
    # a job of 3 ranks of one TP group (2 layers, 2 passes), rank 1 late by 25 µs at the group's collective 1, clock
    # offsets 0, +100 and -50 µs
    examples=Examples("gen_job", {
        "collectives.table": ("table", {}),
        "collectives.md": ("md", {}),
        "collectives.csv": ("csv", {}),
        "collectives.json": ("json", {}),
        "collectives.html.json": ("html", {}),
        "collectives_raw.csv": ("csv", {"no_align": True}),
        "collectives_per_rank.csv": ("csv", {"per_rank": True}),
        "collectives_per_rank.md": ("md", {"per_rank": True, "no_align": True}),
        "collectives_per_rank.html.json": ("html", {"per_rank": True}),
    }))

"""`report ranks`: the ranks of a job compared per layer, each run segmented alike: the spread of the compute
time, the slowest rank and its skew, the last arrival at the layer's collectives; --per-rank a row per rank,
--stragglers the vote across passes (the computation: engine/jobs/ranks.py; docs/jobs.md)."""
from tracedb.engine.rendering import vega_lite as vl
from tracedb.engine.reports.declaration import MEAN_REFUSED, SEGMENTED, Examples, Report, charts
from tracedb.engine.reports.shared_options import NO_ALIGN, PASS, _flag

# tests/tiny_job.py's three ranks (rank 2 slow in layer 1), in raw clocks unless a case says aligned
JOB = {"runs": ["job-rank*"], "profile": None, "anchor": "attn_fwd", "layers": 2, "window": "full", "no_align": True}
RANK_SPREAD = ["min_compute_us", "median_compute_us", "max_compute_us"]


def build(con, fmt, seg, pass_spec=None, per_rank=False, stragglers=False, no_align=False):
    from tracedb.engine.jobs import ranks
    return ranks.build(con, fmt, pass_spec, per_rank=per_rank, stragglers=stragglers, no_align=no_align, **seg)


def ranks_chart(res):
    """Per (pass, layer): the ranks' least, median and most compute time side by side; below, the skew of the
    slowest rank, coloured by whether it counts as a straggler."""
    unit, title = vl.unit(res, ("pass", "layer"))
    names = [c[:-len("_compute_us")] for c in RANK_SPREAD]
    bars = {"transform": [*vl.fold(RANK_SPREAD, "part_name"), {"calculate": "replace(datum.part_name, '_compute', '')",
                                                              "as": "side"}],
            **vl.bars(title, vl.color_by("side", names), offset="side", value_title=f"compute {vl.US}",
                      tooltip=("side", "slowest_rank"))}
    skew = {"name": "skew", "mark": {"type": "point", "filled": True}, "encoding": {
        "x": vl.axis("unit", title),
        "y": {"field": "skew", "type": "quantitative", "title": "skew of the slowest rank"},
        "color": {"field": "straggler", "type": "nominal", "scale": {"domain": ["true", "false"],
                                                                      "range": ["#e15759", "#bab0ac"]}},
        "tooltip": vl.tip("unit", "slowest_rank", "skew", "last_arrival_rank", "arrival_spread_us")}}
    return {"transform": [unit], "vconcat": [bars, {"height": 120, "layer": [skew]}],
            "resolve": {"scale": {"x": "shared", "color": "independent"}}}


def per_rank_chart(res):
    """Per (pass, layer) a bar per rank: its compute time with its wait at the layer's collectives stacked on it."""
    unit, title = vl.unit(res, ("pass", "layer"))
    spec = vl.stack(unit, title, ["compute_us", "wait_us"], "time")
    spec["encoding"]["xOffset"] = {"field": "rank", "type": "nominal", "sort": None}
    spec["encoding"]["tooltip"] = vl.tip("unit", "rank", "run", "time", "us")
    return spec


def stragglers_chart(res):
    """Per layer (and all layers): how often its straggler was the slowest, coloured by the rank."""
    return {"transform": [{"calculate": vl.text("layer"), "as": "unit"},
                          {"calculate": vl.datum("slowest_count"), "as": "us"},
                          {"filter": "datum.us > 0"}, {"calculate": vl.text("rank"), "as": "straggler"}],
            **vl.bars("layer", vl.color_by("straggler"), value_title="(pass, layer) units as the straggler",
                      tooltip=("straggler", "run", "share", "median_skew"))}


REPORT = Report(
    "ranks", "The ranks of a job compared per layer (each run segmented alike): spread of the compute time, the "
    "slowest rank and its skew, the last arrival at the layer's collectives; --stragglers names the slow rank and "
    "layers. In a pipeline job a layer is compared only with the same model layer on the ranks of its stage.",
    SEGMENTED, (PASS,
                _flag("per_rank", "One row per (pass, layer, rank): its compute, communication, wait and late "
                      "arrival."),
                _flag("stragglers", "The vote across passes: per layer and overall, which rank was the straggler how "
                      "often."), NO_ALIGN),
    MEAN_REFUSED, ("report_ranks", "report_ranks_per_rank", "report_ranks_stragglers"),
    charts(("slowest_count rank", stragglers_chart), ("compute_us wait_us rank", per_rank_chart),
           ("min_compute_us skew", ranks_chart)), build=build, place=100,
    examples=Examples("tiny", {
        "ranks.table": ("table", JOB),
        "ranks.md": ("md", {**JOB, "window": "strict"}),
        "ranks.csv": ("csv", JOB),
        "ranks.json": ("json", {**JOB, "no_align": False}),                 # aligned on the collectives
        "ranks_per_rank.csv": ("csv", {**JOB, "per_rank": True}),
        "ranks_per_rank.md": ("md", {**JOB, "per_rank": True, "pass_spec": "1"}),
        "ranks_per_rank.json": ("json", {**JOB, "per_rank": True, "pass_spec": "0"}),
        "ranks_stragglers.csv": ("csv", {**JOB, "stragglers": True}),
        "ranks_stragglers.table": ("table", {**JOB, "stragglers": True}),
        "ranks_stragglers.json": ("json", {**JOB, "stragglers": True}),
        "ranks.html.json": ("html", JOB),
        "ranks_per_rank.html.json": ("html", {**JOB, "per_rank": True}),
        "ranks_stragglers.html.json": ("html", {**JOB, "stragglers": True}),
    }, checks=(
        {"runs": ["tiny", "tiny_x2"]},                                          # two Ascend ranks
        {"runs": ["tiny", "tiny_x2"], "per_rank": True},
        {"runs": ["tiny", "tiny_x2"], "stragglers": True},
        {"runs": ["cnn0", "cnn1"], "profile": "generic", "layers": None},       # no layers: whole runs
    )))

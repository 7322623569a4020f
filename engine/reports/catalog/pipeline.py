"""`report pipeline`: a pipeline-parallel job's micro-batches per stage and rank (forward and backward passes):
start, end, busy time and the bubble before each, and each stage's bubble against 1F1B's ideal, as
msprof-analyze's pp chart lays them out (the computation: engine/reports/pipeline.py; docs/reports.md)."""
from dataclasses import replace

from tracedb.engine.rendering import vega_lite as vl
from tracedb.engine.reports.declaration import SEGMENTED, Examples, Report, charts
from tracedb.engine.reports.shared_options import ABSOLUTE, NO_ALIGN

# tests/tiny_pipeline.py's generated 1F1B jobs (2 stages, 2 micro-batches)
PP = {"runs": [], "tags": ["job=pp"], "profile": None, "layers": None, "window": "full"}


def build(con, fmt, seg, absolute=False, no_align=False):
    from tracedb.engine.reports import pipeline
    return pipeline.build(con, fmt, absolute=absolute, no_align=no_align, **seg)


def pipeline_chart(res):
    """The pp chart: a lane per stage and rank, each micro-batch a bar from its start to its end coloured by
    phase and labelled F<n> / B<n>, the bubble before it a grey bar."""
    lane = {"calculate": "'stage ' + " + vl.text("pp_stage") + " + ' / rank ' + " + vl.text("rank")
            + " + ' ' + datum.run", "as": "unit"}
    passes = [lane, {"filter": "datum.unit_kind == 'pass'"},
              {"calculate": "(datum.phase == 'backward' ? 'B' : 'F') + datum.microbatch", "as": "label"}]
    y = vl.axis("unit", "stage / rank")
    x = {"field": "start_us", "type": "quantitative", "title": vl.US, "scale": {"zero": False}}
    bubble = {"name": "bubbles", "transform": [{"filter": "datum.bubble_us > 0"},
                                               {"calculate": "datum.start_us - datum.bubble_us", "as": "wait_us"}],
              "mark": {"type": "bar", "color": "#d9d9d9"},
              "encoding": {"y": y, "x": {**x, "field": "wait_us"}, "x2": {"field": "start_us"},
                           "tooltip": vl.tip("unit", "step", "phase", "microbatch", "bubble_us", "p2p_us")}}
    bars = {"name": "bars", "mark": "bar", "encoding": {
        "y": y, "x": x, "x2": {"field": "end_us"},
        "color": {"field": "phase", "type": "nominal", "scale": {"domain": ["forward", "backward"],
                                                                   "range": ["#4e79a7", "#f28e2b"]}},
        "tooltip": vl.tip("unit", "step", "phase", "microbatch", "start_us", "end_us", "busy_us", "bubble_us")}}
    labels = {"name": "labels", "mark": {"type": "text", "align": "left", "dx": 2, "color": "white"},
              "encoding": {"y": y, "x": x, "text": {"field": "label"}}}
    # `unit` names the lane in every layout; the report's own unit column (pass | stage) is read as unit_kind
    return {"transform": [{"calculate": "datum.unit", "as": "unit_kind"}, *passes], "layer": [bubble, bars, labels]}


REPORT = Report(
    "pipeline", "A pipeline-parallel job's micro-batches per stage and rank (forward and backward passes): start, end, "
    "busy time and the bubble before each, and each stage's bubble against 1F1B's ideal (p-1)/(m+p-1), as "
    "msprof-analyze's pp chart; see docs/reports.md.",
    SEGMENTED, (replace(ABSOLUTE, help="Absolute times (the reference rank's clock) instead of from the runs' "
                        "earliest step start."), NO_ALIGN), None, ("pipeline_report",),
    charts(("pp_stage start_us end_us unit", pipeline_chart)), build=build, place=130,
    examples=Examples("tiny", {
        "pipeline.table": ("table", PP),
        "pipeline.md": ("md", PP),
        "pipeline.csv": ("csv", PP),
        "pipeline.json": ("json", PP),
        "pipeline.html.json": ("html", PP),
        "pipeline_steps.csv": ("csv", {**PP, "tags": ["job=steps"]}),       # 4 stages, 4 micro-batches, 2 steps
        "pipeline_unknown.csv": ("csv", {**PP, "tags": ["job=nogroups"]}),  # stages that cannot be told
        "pipeline_none.table": ("table", {**PP, "runs": ["tiny"], "tags": []}),   # no pipeline stage
    }))

"""`report timeline`: the passes' and layers' time ranges in seconds from the trace's first event (as Perfetto
shows them), to navigate there; without an anchor to find passes, each run's range."""
from typing import List, Optional

from tracedb.engine.rendering import vega_lite as vl
from tracedb.engine.reports.declaration import MEAN_REFUSED, SEGMENTED, Examples, Option, Report, charts
from tracedb.engine.reports.shared_options import ABSOLUTE, PASS


def build(con, fmt, seg, pass_spec=None, absolute=False, timeline_layers=None):
    from tracedb.engine.rendering import render as rnd
    from tracedb.engine.reports import layered, run_wide
    from tracedb.engine.segmentation import units
    from tracedb.errors import NoAnchor
    try:
        b = layered.prepare(con, seg)
    except NoAnchor as e:   # each run's range instead, where no layer was asked for
        if seg.get("anchor") or timeline_layers:
            raise
        return run_wide.build(con, "timeline", fmt, e, seg, None, absolute)
    meta = units.params(b, pass_spec)
    layered.assign(con, b, pass_spec)
    layered.check_layers(con, b, list(timeline_layers or []))
    return rnd.fetch_file(con, fmt, "report_timeline",
                          {"run_ids": b.run_ids, "absolute": bool(absolute), "layers": list(timeline_layers or [])},
                          "timeline", b, meta,
                          "pass and layer time ranges (s from the trace's first event, as Perfetto shows them)",
                          display={"layer": "(pass)"})


def timeline_chart(res):
    """Passes and layers as time ranges: a lane per pass, and one for its layers below it."""
    lane, title = vl.unit(res, ("run", "pass"), prefix=("pass",), suffix="(datum.layer == null ? '' : 'layers')")
    kind = {"calculate": "datum.layer == null ? 'pass' : datum.layer % 2 ? 'odd layer' : 'even layer'", "as": "kind"}
    return vl.ranges(lane, title, "start_s", "end_s", "kind", "s",
                     ("run", "pass", "layer", "start_s", "end_s", "dur_ms"), [kind])


REPORT = Report(
    "timeline", "Pass and layer time ranges in seconds from the trace start, to navigate in Perfetto.",
    SEGMENTED, (PASS, ABSOLUTE,
                Option("layer", ("--layer",), Optional[List[int]], None,
                       "Only these layers (repeatable); passes always.", check="layer", engine="timeline_layers")),
    MEAN_REFUSED, ("report_timeline",),
    charts(("start_s end_s", timeline_chart)), build=build, place=40,
    examples=Examples("tiny", {
        "timeline.table": ("table", {}),
        "timeline.md": ("md", {"window": "full"}),
        "timeline.csv": ("csv", {"timeline_layers": [1]}),
        "timeline.json": ("json", {"pass_spec": "all"}),
        "timeline.html.json": ("html", {}),
    }, checks=(
        {"runs": ["cnn0"], "profile": "generic", "layers": None},     # no anchor: each run's range
    )))

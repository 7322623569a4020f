"""`report kernels`: the hot kernels of the selected pass or layer; with --flow every kernel of a layer in
order, with --compare-layer a layer's kernel set against another's. Without an anchor to find passes, the
hot kernels of the whole run."""
from dataclasses import replace
from typing import Optional

from tracedb.engine.rendering import vega_lite as vl
from tracedb.engine.reports.declaration import MEAN_REFUSED, SEGMENTED, Examples, Option, Report, charts
from tracedb.engine.reports.shared_options import ABSOLUTE, PASS, _flag

TOP = 40   # bars a chart keeps: the longest first


def build(con, fmt, seg, pass_spec=None, absolute=False, layer=None, compare_layer=None, flow=False, top=20,
          order="dur"):
    from tracedb.engine.rendering import render as rnd
    from tracedb.engine.reports import layered, run_wide
    from tracedb.engine.segmentation import units
    from tracedb.errors import NoAnchor, UsageError
    try:
        b = layered.prepare(con, seg)
    except NoAnchor as e:   # the whole run instead, where no layer or flow was asked for
        if seg.get("anchor") or layer is not None or flow or compare_layer is not None:
            raise
        return run_wide.build(con, "kernels", fmt, e, seg, top, absolute)
    meta = units.params(b, pass_spec)
    if (flow or compare_layer is not None) and layer is None:
        raise UsageError("--layer is needed with --format compute-flow / --flow and with --compare-layer")
    layered.assign(con, b, pass_spec, categorize=True)
    layered.check_layers(con, b, [w for w in (layer, compare_layer) if w is not None])
    meta["layer"] = layer
    if compare_layer is not None:
        meta["compare_layer"] = compare_layer
        res = rnd.fetch_file(con, fmt, "report_compare_layers",
                             {"run_ids": b.run_ids, "layer": layer, "layer_b": compare_layer},
                             "kernels", b, meta, f"layer {layer} (a) vs layer {compare_layer} (b)")
        # a table for people shows the short name, kernels that share one told apart; CSV and JSON keep both
        return rnd.for_people(res, short="kernel") if fmt in rnd.READING else res
    if flow:
        res = rnd.fetch_file(con, fmt, "report_flow",
                             {"run_ids": b.run_ids, "absolute": bool(absolute), "layer": layer, "order": order},
                             "kernels", b, meta, f"compute flow of layer {layer}", labels=units.PROLOGUE)
        return rnd.for_people(res, short="kernel") if fmt in rnd.READING else res
    res = rnd.fetch_file(con, fmt, "report_kernels", {"run_ids": b.run_ids, "layer": layer, "top": top, "rest": False},
                         "kernels", b, meta, "hot kernels" + (f" of layer {layer}" if layer is not None else ""))
    # a table for people shows the short name; CSV and JSON keep both
    return rnd.for_people(res) if fmt in ("table", "md") else res


def kernels_chart(res):
    """The hot kernels: a horizontal bar per kernel, coloured by category (the TOP first of each list)."""
    unit, title = vl.unit(res, ("run", "pass", "layer"), suffix="'#' + datum.rank + ' ' + datum.short_name",
                          name="kernel")
    return vl.bar_per_row(unit, title, "sum_us", "category", pre=[{"filter": f"{TOP} >= datum.rank"}])


def flow_chart(res):
    """Every kernel of the layer, in the report's order, coloured by category."""
    unit, title = vl.unit(res, ("run", "pass", "layer"), suffix="'#' + datum.ordinal + ' ' + datum.kernel",
                          name="kernel")
    return vl.bar_per_row(unit, title, "dur_us", "category")


def layer_diff_chart(res):
    """`--compare-layer`: per kernel its time in layer a and in layer b, side by side."""
    unit, title = vl.unit(res, ("run", "pass"), suffix="datum.kernel", name="kernel")
    a, b = res.params.get("layer"), res.params.get("compare_layer")
    return vl.side_by_side(unit, title, ["sum_us_a", "sum_us_b"],
                           f"datum.part == 'sum_us_a' ? 'layer {a}' : 'layer {b}'", horizontal=True)


REPORT = Report(
    "kernels", "Hot kernels of a pass or layer; --format compute-flow (or --flow) for the layer's compute flow.",
    SEGMENTED, (replace(PASS, default="auto"), ABSOLUTE,
                Option("layer", ("--layer",), Optional[int], None,
                       "Only this layer (needed for the flow and --compare-layer).", check="layer"),
                Option("compare_layer", ("--compare-layer",), Optional[int], None,
                       "Diff the kernel set of --layer against this layer.", check="layer"),
                _flag("flow", "Every kernel of the layer with category, simplified name, ts and shapes."),
                Option("top", ("--top",), int, 20, "Hot list length (0: all).", check="count"),
                Option("order", ("--order",), str, "dur", "Flow order: dur (hottest first) or time.",
                       choices=("dur", "time"))),
    MEAN_REFUSED, ("report_kernels", "report_flow", "report_compare_layers"),
    charts(("sum_us_a sum_us_b", layer_diff_chart), ("ordinal dur_us", flow_chart), ("rank sum_us", kernels_chart)),
    build=build, place=30,
    examples=Examples("tiny", {
        "kernels.table": ("table", {"pass_spec": "steady"}),
        "kernels.md": ("md", {"pass_spec": "3", "layer": 0}),
        "kernels.csv": ("csv", {"pass_spec": "3", "window": "full", "top": 0}),
        "kernels.json": ("json", {"pass_spec": "3", "layer": 0, "top": 3}),
        "kernels_flow.table": ("table", {"pass_spec": "3", "layer": 0, "flow": True}),
        "kernels_flow.csv": ("csv", {"pass_spec": "3", "layer": 1, "flow": True, "window": "full", "order": "time"}),
        "kernels_compare.csv": ("csv", {"pass_spec": "3", "window": "full", "layer": 0, "compare_layer": 1}),
        "kernels.html.json": ("html", {"pass_spec": "3", "window": "full", "top": 0}),
        "kernels_flow.html.json": ("html", {"pass_spec": "3", "layer": 0, "flow": True}),
        "kernels_compare.html.json": ("html", {"pass_spec": "3", "window": "full", "layer": 0, "compare_layer": 1}),
    }, checks=(
        {"runs": ["cnn0"], "profile": "generic", "layers": None},     # no anchor: the whole run
    )))

"""`report compare`: two or more runs segmented alike, aligned by layer, category, module, kernel or stage,
with each key's delta and ratio to the first run (the alignment: engine/reports/compare.py)."""
import json
from typing import Optional

from tracedb.engine.rendering import vega_lite as vl
from tracedb.engine.reports.declaration import MEAN_AVERAGED, SEGMENTED, Examples, Option, Report, charts
from tracedb.engine.reports.shared_options import MODULE_PATH, PASS, PEAK_TBS, PEAK_TFLOPS, _by, _flag

TWO = {"runs": ["tiny", "tiny_x2"], "pass_spec": "3"}
GPU = {"runs": ["gpu", "gpu_x2"], "profile": None, "anchor": "flash_fwd", "by": "module"}


def build(con, fmt, seg, pass_spec=None, by="layer", layer=None, module_path=False, roofline=False, peak_tflops=None,
          peak_tbs=None):
    from tracedb.engine.reports import compare, layered
    from tracedb.engine.segmentation import units
    b = layered.prepare(con, seg)
    return compare.build(con, fmt, b, pass_spec, by, units.params(b, pass_spec), layer=layer,
                         module_path=module_path, roofline=roofline, peak_tflops=peak_tflops, peak_tbs=peak_tbs)


def _first_run(res) -> str:
    """The reference run of `report compare` (its first --run): the run its `runs` parameter starts with."""
    runs = list(dict.fromkeys(vl.values(res, "run")))
    listed = str(res.params.get("runs", ""))
    return max((r for r in runs if listed == r or listed.startswith(r + ", ")), key=len, default=runs[0])


def compare_chart(res):
    """The runs side by side per key, and below it each later run's ratio to the first. --by kernel is
    shown per category (its kernels summed; the ratio of those sums)."""
    first = _first_run(res)
    by = res.params.get("by", "layer")
    if by == "kernel":
        unit, title = {"calculate": "datum.category", "as": "unit"}, "category"
        keyed = [{"aggregate": [{"op": "sum", "field": "sum_us", "as": "us"}], "groupby": ["unit", "run"]},
                 {"calculate": f"datum.run == {json.dumps(first)} ? datum.us : 0", "as": "first_us"},
                 {"joinaggregate": [{"op": "sum", "field": "first_us", "as": "ref"}], "groupby": ["unit"]},
                 {"calculate": "datum.ref > 0 ? datum.us / datum.ref : null", "as": "ratio"}]
    else:
        key = {"category": ("category",), "module": ("module",)}.get(by, ())
        unit, title = vl.unit(res, ("pass", "layer", *key), prefix=key)
        keyed = [{"calculate": "datum.sum_us", "as": "us"}]
    run = vl.color_by("run", None)
    bars = {"transform": [{"filter": "datum.us > 0"}], **vl.bars(title, run, offset="run", tooltip=("run",))}
    ratio = {"name": "ratio", "transform": [{"filter": f"datum.run != {json.dumps(first)} && datum.ratio != null"}],
             "mark": {"type": "point", "filled": True}, "encoding": {
                 "x": vl.axis("unit", title),
                 "y": {"field": "ratio", "type": "quantitative", "title": f"ratio to {first}"},
                 "color": run, "tooltip": vl.tip("unit", "run", "ratio")}}
    one = {"data": {"values": [{}]}, "mark": {"type": "rule", "strokeDash": [4, 4]}, "encoding": {"y": {"datum": 1}}}
    return {"transform": [unit, *keyed], "vconcat": [bars, {"height": 120, "layer": [ratio, one]}],
            "resolve": {"scale": {"x": "shared"}}}


REPORT = Report(
    "compare", "Two or more runs segmented alike, aligned by layer, category, module, kernel or stage, with delta and "
    "ratio to the first (a simulated run after a measured one: simulated / measured, and M6 in the notes).",
    SEGMENTED, (PASS, _by("layer", ("layer", "category", "module", "kernel", "stage"),
                          "layer, category, module (traces with host events), kernel (aligned by category, "
                          "module role and rank), or stage (attention, ffn; an MoE layer's router, dispatch, "
                          "experts, combine, shared: a column stage instead of category)."),
                Option("layer", ("--layer",), Optional[str], None,
                       "Only this layer, or mean: per key the mean over the full layers.", check="layer_or_mean"),
                MODULE_PATH,
                _flag("roofline", "Add each run's tflops_s and pct_peak per key (report roofline's; "
                                  "docs/roofline.md)."),
                PEAK_TFLOPS, PEAK_TBS),
    MEAN_AVERAGED, ("report_compare", "report_compare_mean", "report_compare_wide"),
    charts(("run sum_us ratio", compare_chart)), build=build, place=70,
    examples=Examples("tiny", {
        "compare.csv": ("csv", {**TWO, "by": "layer"}),
        "compare.md": ("md", {**TWO, "by": "category"}),
        "compare_kernel.csv": ("csv", {**TWO, "by": "kernel", "window": "full"}),
        "compare.table": ("table", TWO),
        "compare.json": ("json", {**TWO, "by": "category"}),
        "compare_layer.md": ("md", {**TWO, "by": "layer", "window": "full"}),
        "compare_category.csv": ("csv", {**TWO, "by": "category"}),
        "compare_kernel.md": ("md", {**TWO, "by": "kernel", "window": "full"}),
        # two GPU runs, the second with every device duration doubled: its memcpy falls into layer 1
        "compare_module.md": ("md", GPU),
        "compare_module.csv": ("csv", {**GPU, "window": "full"}),
        # --pass mean over the steady passes 3, 4, 6 of a jittery decode
        "compare_mean.csv": ("csv", {"runs": ["tiny_jitter", "tiny"], "pass_spec": "mean", "by": "kernel"}),
        "compare_mean.md": ("md", {"runs": ["tiny_jitter", "tiny"], "pass_spec": "mean", "by": "category"}),
        # predicted vs measured (a run tagged kind=simulated): ratio = simulated / measured
        "compare_sim.md": ("md", {"runs": ["tiny", "tiny_sim"], "pass_spec": "steady", "by": "category"}),
        "compare_sim.csv": ("csv", {"runs": ["tiny", "tiny_sim"], "pass_spec": "steady", "by": "layer",
                                    "window": "full"}),
        # runs of different depth (2 and 3 layers; passes by gaps): a note, layers of one run flagged, kernels of
        # one run unpaired
        "compare_depth.md": ("md", {"runs": ["tiny", "tiny_deep"], "pass_spec": "0", "layers": None, "by": "kernel"}),
        "compare.html.json": ("html", {**TWO, "by": "category"}),
        "compare_kernel.html.json": ("html", {**TWO, "by": "kernel", "window": "full"}),
    }, checks=(
        {**TWO, "pass_spec": "mean", "by": "kernel"},
        {**GPU, "profile": "dsv3-gpu", "layers": 2, "window": "full"},
        {**GPU, "profile": "dsv3-gpu", "layers": 2, "window": "full", "by": "stage", "layer": "mean"},
    )))

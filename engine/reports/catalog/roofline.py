"""`report roofline`: how far from the hardware: FLOPs and bytes per kernel from the trace's own shapes, achieved
TFLOP/s and TB/s, % of the device's peak (compute or memory bound) and MFU, per kernel name, category, layer,
pass or run (the computation: engine/reports/roofline.py; docs/roofline.md)."""
from tracedb.engine.rendering import vega_lite as vl
from tracedb.engine.reports.declaration import MEAN_REFUSED, SEGMENTED, Examples, Report, charts
from tracedb.engine.reports.shared_options import PASS, PEAK_TBS, PEAK_TFLOPS, _by

PEAKS = {"peak_tflops": 300, "peak_tbs": 1.6}


def build(con, fmt, seg, by="kernel", pass_spec=None, peak_tflops=None, peak_tbs=None):
    from tracedb.engine.reports import roofline
    b, meta = roofline.segment_runs(con, pass_spec, seg, by)
    return roofline.build(con, fmt, pass_spec, by, meta, b, peak_tflops, peak_tbs)


def roofline_chart(res):
    """The roofline: one point per kernel group at its intensity (FLOP/byte) and achieved TFLOP/s, both axes
    logarithmic, coloured by its bound; groups without both figures are left out. Under them each run's roof:
    min(peak TFLOP/s, intensity x peak TB/s), from the report's `roofs` parameter."""
    unit, _ = vl.unit(res, ("run", "pass", "layer", "category"),
                      suffix="datum.short_name" if "short_name" in res.columns else None, name="group")
    x = {"field": "intensity", "type": "quantitative", "scale": {"type": "log"}, "title": "intensity (FLOP/byte)"}
    y = {"field": "tflops_s", "type": "quantitative", "scale": {"type": "log"}, "title": "achieved TFLOP/s"}
    points = {"transform": [unit, {"filter": "datum.intensity > 0 && datum.tflops_s > 0"}],
              "mark": {"type": "point", "name": "points", "filled": True},
              "encoding": {"x": x, "y": y, "color": vl.color_by("bound"),
                           "size": {"field": "sum_us", "type": "quantitative", "title": vl.US},
                           "tooltip": vl.tip("unit", "intensity", "tflops_s", "tbytes_s", "pct_peak", "sum_us")}}
    lines = _roof_lines(str(res.params.get("roofs") or ""))
    if not lines:
        return points
    roof = {"data": {"values": lines}, "mark": {"type": "line", "name": "roofs", "strokeDash": [6, 3]},
            "encoding": {"x": x, "y": y, "detail": {"field": "run"},
                         "tooltip": vl.tip("run", "intensity", "tflops_s")}}
    return {"layer": [roof, points]}


def _roof_lines(roofs: str) -> list[dict]:
    """Points of each run's roof (`run=TFLOP/s@TB/s; ...`) from 1/64 to 4,096 FLOP/byte, and at its ridge."""
    out = []
    for part in filter(None, (p.strip() for p in roofs.split(";"))):
        run, _, peaks = part.rpartition("=")
        try:
            tf, tb = (float(v) for v in peaks.split("@"))
        except ValueError:
            continue
        xs = sorted({2.0 ** e for e in range(-6, 13)} | {tf / tb})
        out += [{"run": run, "intensity": x, "tflops_s": min(tf, x * tb)} for x in xs]
    return out


REPORT = Report(
    "roofline", "How far from the hardware: FLOPs and bytes per kernel from the trace's own shapes, achieved TFLOP/s "
    "and TB/s, % of the device's peak (compute or memory bound) and MFU, per kernel name, category, layer, pass or "
    "run (docs/roofline.md).",
    SEGMENTED, (_by("kernel", ("kernel", "category", "layer", "pass", "run"),
                    "kernel (a row per kernel name), category, layer, pass or run."), PASS, PEAK_TFLOPS, PEAK_TBS),
    MEAN_REFUSED, ("report_roofline",),
    charts(("intensity tflops_s", roofline_chart)), build=build, place=140,
    examples=Examples("tiny", {
        "roofline.table": ("table", {"pass_spec": "3", **PEAKS}),
        "roofline.md": ("md", {"by": "layer", "pass_spec": "3", "window": "full", "peak_tflops": 300, "peak_tbs": 8}),
        "roofline.csv": ("csv", {"by": "pass", "pass_spec": "all", **PEAKS}),
        "roofline.json": ("json", {"runs": ["gpu"], "profile": None, "anchor": "flash_fwd", "by": "category"}),
        "roofline.html.json": ("html", {"pass_spec": "3", **PEAKS}),
    }, checks=(
        {"runs": ["gpu"], "profile": "dsv3-gpu", "anchor": "flash_fwd", "by": "layer", "pass_spec": "all",
         "window": "full"},
    )))

"""The chart of each HTML report, as a Vega-Lite spec (https://vega.github.io/vega-lite/): the layouts, one
per variant (`report kernels` hot list, compute flow or layer diff, ...); which one a report's rows get is
declared with the report (engine/reports/declared.py).

Specs are declarative: Vega draws them in the page. A spec reads the data set `rows`, which the page fills
with the report's JSON rows, so every bar is a number of the table (exact DuckDB text parsed by the browser)
and no number is copied or rounded in Python. Marks are named (`bars`, `wall`, `ratio`): the SVG groups
carry the name, which the browser test counts. Kernel and module lists keep their TOP longest bars. The
layouts are built of the pieces of engine/rendering/vega_lite.py."""
import json

from tracedb.engine.rendering import vega_lite as vl
from tracedb.engine.rendering.vega_lite import US

SCHEMA = "https://vega.github.io/schema/vega-lite/v6.json"
TOP = 40


def spec(res) -> dict | None:
    """The Vega-Lite spec of the report's chart: the first of its declared layouts (res.charts, from
    engine/reports/declared.py) whose columns the rows have; None when it has no rows or no chart."""
    if not res.rows:
        return None
    cols = set(res.columns)
    for chart in res.charts:
        if chart.needs <= cols:
            return {"$schema": SCHEMA, "data": {"name": "rows"}, **LAYOUTS[chart.layout](res)}
    return None


# --- layouts ---------------------------------------------------------------------------------------------

def _layers(res):
    """Time per category per layer, stacked, with the layer's wall time as a line (one per pass)."""
    unit, title = vl.unit(res, ("run", "pass", "layer"))
    cats = [c for c in res.columns if c in res.sparse]
    series = {"calculate": vl.text("run") + " + '/' + " + vl.text("pass"), "as": "series"}
    return vl.with_line(vl.stack(unit, title, cats, "category"), vl.wall_line("wall_us", "series", title), [series])


def _clusters(res):
    """Per layer type: the mean layer's time per category (share × mean sum), the mean wall as a line."""
    unit, title = vl.unit(res, ("run", "layer_type"), prefix=("layer_type",))
    shares = [c for c in res.columns if c.endswith("_pct")]
    times = [{"calculate": f"{vl.datum(c)} * datum.avg_sum_us / 100", "as": c[:-len("_pct")] + "_us"} for c in shares]
    stack = vl.stack(unit, title, [c[:-len("_pct")] + "_us" for c in shares], "category", pre=times,
                   value_title=f"{US} per layer of the type")
    return vl.with_line(stack, vl.wall_line("avg_wall_us", "run", title))


def _passes(res):
    """Wall and sum time per pass side by side, the colour the pass's state (cold-start, steady-state, ...)."""
    unit, title = vl.unit(res, ("run", "pass"))
    spec = vl.side_by_side(unit, title, ["wall_us", "sum_us"], "datum.part_name")
    spec["transform"].append({"calculate": "datum.note ? datum.note : 'unclassified'", "as": "state"})
    spec["encoding"].update(
        color={"field": "state", "type": "nominal",
               "scale": {"domain": ["cold-start", "steady-state", "partial", "unclassified"],
                         "range": ["#e15759", "#4e79a7", "#bab0ac", "#59a14f"]}},
        opacity={"field": "side", "type": "nominal", "sort": ["wall", "sum"], "scale": {"range": [1, 0.5]},
                 "title": "time"},
        tooltip=vl.tip("unit", "state", "side", "us"))
    return spec


def _kernels(res):
    """The hot kernels: a horizontal bar per kernel, coloured by category (the TOP first of each list)."""
    unit, title = vl.unit(res, ("run", "pass", "layer"), suffix="'#' + datum.rank + ' ' + datum.short_name",
                         name="kernel")
    return vl.bar_per_row(unit, title, "sum_us", "category", pre=[{"filter": f"{TOP} >= datum.rank"}])


def _flow(res):
    """Every kernel of the layer, in the report's order, coloured by category."""
    unit, title = vl.unit(res, ("run", "pass", "layer"), suffix="'#' + datum.ordinal + ' ' + datum.kernel",
                         name="kernel")
    return vl.bar_per_row(unit, title, "dur_us", "category")


def _layer_diff(res):
    """`--compare-layer`: per kernel its time in layer a and in layer b, side by side."""
    unit, title = vl.unit(res, ("run", "pass"), suffix="datum.kernel", name="kernel")
    a, b = res.params.get("layer"), res.params.get("compare_layer")
    return vl.side_by_side(unit, title, ["sum_us_a", "sum_us_b"],
                         f"datum.part == 'sum_us_a' ? 'layer {a}' : 'layer {b}'", horizontal=True)


def _timeline(res):
    """Passes and layers as time ranges: a lane per pass, and one for its layers below it."""
    lane, title = vl.unit(res, ("run", "pass"), prefix=("pass",), suffix="(datum.layer == null ? '' : 'layers')")
    kind = {"calculate": "datum.layer == null ? 'pass' : datum.layer % 2 ? 'odd layer' : 'even layer'", "as": "kind"}
    return vl.ranges(lane, title, "start_s", "end_s", "kind", "s",
                     ("run", "pass", "layer", "start_s", "end_s", "dur_ms"), [kind])


def _gaps(res):
    """The longest idle gaps as time ranges on their cores."""
    lane, title = vl.unit(res, ("run", "core"), prefix=("core",))
    return vl.ranges(lane, title, "start_us", "end_us", "core_class", US,
                   ("unit", "rank", "start_us", "end_us", "gap_us", "exposed_us"))


def _modules(res):
    """Device time per module role (summed over passes, layers and kernels), a bar per run; the TOP roles."""
    top = [{"calculate": "datum.module", "as": "unit"},
           {"aggregate": [{"op": "sum", "field": "sum_us", "as": "us"}], "groupby": ["unit", "run"]},
           {"joinaggregate": [{"op": "sum", "field": "us", "as": "total"}], "groupby": ["unit"]},
           {"window": [{"op": "dense_rank", "as": "top"}], "sort": [{"field": "total", "order": "descending"}]},
           {"filter": f"{TOP} >= datum.top && datum.us > 0"}]
    spec = {"transform": top,
            **vl.bars("module", vl.color_by("run", None), horizontal=True, offset="run", tooltip=("run",))}
    spec["encoding"]["y"]["sort"] = {"field": "total", "op": "max", "order": "descending"}
    return spec


def _first_run(res) -> str:
    """The reference run of `report compare` (its first --run): the run its `runs` parameter starts with."""
    runs = list(dict.fromkeys(vl.values(res, "run")))
    listed = str(res.params.get("runs", ""))
    return max((r for r in runs if listed == r or listed.startswith(r + ", ")), key=len, default=runs[0])


def _compare(res):
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


def _cores(res):
    """Busy and idle time per core class (or per core), stacked."""
    unit, title = vl.unit(res, ("run", "core") if "core" in res.columns else ("run", "core_class"))
    return vl.stack(unit, title, ["busy_us", "idle_us"], "time")


def _cores_compare(res):
    """Two runs: each core class's busy time side by side."""
    return vl.side_by_side({"calculate": "datum.core_class", "as": "unit"}, "core_class", ["busy_us_a", "busy_us_b"],
                         "datum.part == 'busy_us_a' ? datum.run_a : datum.run_b")


def _scheduler(res):
    """Time per phase on each AICPU thread, stacked."""
    unit, title = vl.unit(res, ("run", "process", "thread"), prefix=("thread",))
    spec = vl.bar_per_row(unit, title, "sum_us", "phase")
    spec["encoding"]["x"]["stack"] = "zero"
    return spec


def _breakdown(res):
    """Computing, communication not overlapped and free time per unit: together the unit's span."""
    unit, title = vl.unit(res, ("run", "step", "pass", "layer"))
    return vl.stack(unit, title, ["computing_us", "comm_not_overlapped_us", "free_us"], "time")


IDLE = ["host_bound_idle_us", "other_idle_us", "unknown_idle_us"]


def _launches(res):
    """Idle time per unit: host-bound, other and unknown, stacked (together the unit's free time)."""
    unit, title = vl.unit(res, ("run", "step", "pass", "layer"))
    return vl.stack(unit, title, IDLE, "idle")


def _launches_kernels(res):
    """Per kernel the idle time its start ended (host-bound, other, unknown): the TOP kernels by idle time."""
    unit, title = vl.unit(res, ("run", "pass", "layer"), suffix="datum.short_name + ' (' + datum.kind + ')'",
                         name="kernel")
    top = [{"calculate": " + ".join(vl.datum(c) for c in IDLE), "as": "idle_us"},
           {"window": [{"op": "row_number", "as": "top"}], "sort": [{"field": "idle_us", "order": "descending"}]},
           {"filter": f"{TOP} >= datum.top && datum.idle_us > 0"}]
    return vl.stack(unit, title, IDLE, "idle", horizontal=True, pre=top)


RANK_SPREAD = ["min_compute_us", "median_compute_us", "max_compute_us"]


def _ranks(res):
    """Per (pass, layer): the ranks' least, median and most compute time side by side; below, the skew of the
    slowest rank, coloured by whether it counts as a straggler."""
    unit, title = vl.unit(res, ("pass", "layer"))
    names = [c[:-len("_compute_us")] for c in RANK_SPREAD]
    bars = {"transform": [*vl.fold(RANK_SPREAD, "part_name"), {"calculate": "replace(datum.part_name, '_compute', '')",
                                                              "as": "side"}],
            **vl.bars(title, vl.color_by("side", names), offset="side", value_title=f"compute {US}",
                    tooltip=("side", "slowest_rank"))}
    skew = {"name": "skew", "mark": {"type": "point", "filled": True}, "encoding": {
        "x": vl.axis("unit", title),
        "y": {"field": "skew", "type": "quantitative", "title": "skew of the slowest rank"},
        "color": {"field": "straggler", "type": "nominal", "scale": {"domain": ["true", "false"],
                                                                      "range": ["#e15759", "#bab0ac"]}},
        "tooltip": vl.tip("unit", "slowest_rank", "skew", "last_arrival_rank", "arrival_spread_us")}}
    return {"transform": [unit], "vconcat": [bars, {"height": 120, "layer": [skew]}],
            "resolve": {"scale": {"x": "shared", "color": "independent"}}}


def _ranks_per_rank(res):
    """Per (pass, layer) a bar per rank: its compute time with its wait at the layer's collectives stacked on it."""
    unit, title = vl.unit(res, ("pass", "layer"))
    spec = vl.stack(unit, title, ["compute_us", "wait_us"], "time")
    spec["encoding"]["xOffset"] = {"field": "rank", "type": "nominal", "sort": None}
    spec["encoding"]["tooltip"] = vl.tip("unit", "rank", "run", "time", "us")
    return spec


def _stragglers(res):
    """Per layer (and all layers): how often its straggler was the slowest, coloured by the rank."""
    spec = {"transform": [{"calculate": vl.text("layer"), "as": "unit"},
                          {"calculate": vl.datum("slowest_count"), "as": "us"},
                          {"filter": "datum.us > 0"}, {"calculate": vl.text("rank"), "as": "straggler"}],
            **vl.bars("layer", vl.color_by("straggler"), value_title="(pass, layer) units as the straggler",
                    tooltip=("straggler", "run", "share", "median_skew"))}
    return spec


def _collectives(res):
    """Per collective instance (group/seq and op, in the order of their first start) its arrival skew."""
    unit, title = vl.unit(res, ("group", "seq"), suffix="datum.op", name="collective")
    spec = vl.bar_per_row(unit, title, "arrival_skew_us", "op", horizontal=False)
    spec["encoding"]["y"]["title"] = f"arrival skew {US}"
    spec["encoding"]["tooltip"] = vl.tip("unit", "op", "last_rank", "us", "transfer_us")
    return spec


def _collectives_per_rank(res):
    """Per collective instance a bar per member rank: its wait for the last rank to arrive."""
    unit, title = vl.unit(res, ("group", "seq"), suffix="datum.op", name="collective")
    return {"transform": [unit, {"calculate": vl.datum("wait_us"), "as": "us"},
                          {"calculate": vl.text("rank"), "as": "member"}],
            **vl.bars(title, vl.color_by("member"), offset="member", value_title=f"wait {US}",
                      tooltip=("member", "run"))}


def _roofline(res):
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
                           "size": {"field": "sum_us", "type": "quantitative", "title": US},
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


def _pipeline(res):
    """The pp chart: a lane per stage and rank, each micro-batch a bar from its start to its end coloured by
    phase and labelled F<n> / B<n>, the bubble before it a grey bar."""
    lane = {"calculate": "'stage ' + " + vl.text("pp_stage") + " + ' / rank ' + " + vl.text("rank")
            + " + ' ' + datum.run", "as": "unit"}
    passes = [lane, {"filter": "datum.unit_kind == 'pass'"},
              {"calculate": "(datum.phase == 'backward' ? 'B' : 'F') + datum.microbatch", "as": "label"}]
    y = vl.axis("unit", "stage / rank")
    x = {"field": "start_us", "type": "quantitative", "title": US, "scale": {"zero": False}}
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


def _advise(res):
    """`tracedb advise`: a bar per finding, in rank order, of its time at stake, coloured by its severity."""
    rank = {"window": [{"op": "row_number", "as": "place"}]}
    unit = {"calculate": "'#' + datum.place + ' ' + datum.rule + ' ' + " + vl.text("run"), "as": "unit"}
    spec = vl.bar_per_row(unit, "finding", "at_stake_us", "severity", pre=())
    spec["transform"].insert(0, rank)
    spec["encoding"]["color"] = {"field": "severity", "type": "nominal", "scale": {
        "domain": ["critical", "high", "medium", "low", "info"],
        "range": ["#b2182b", "#ef8a62", "#fddbc7", "#d1e5f0", "#bababa"]}}
    spec["encoding"]["tooltip"] = vl.tip("unit", "severity", "at_stake_us", "at_stake_pct", "finding")
    # the labels say what each bar is (#place rule run); an axis title beside labels that long overlapped them
    spec["encoding"]["y"]["title"] = None
    return spec


# the layouts by the name a report's declaration gives (engine/reports/declared.py: which one, for which columns)
LAYOUTS = {"passes": _passes, "clusters": _clusters, "layers": _layers, "layer_diff": _layer_diff, "flow": _flow,
           "kernels": _kernels, "timeline": _timeline, "modules": _modules, "compare": _compare,
           "cores_compare": _cores_compare, "scheduler": _scheduler, "gaps": _gaps, "cores": _cores,
           "breakdown": _breakdown, "launches_kernels": _launches_kernels, "launches": _launches,
           "collectives_per_rank": _collectives_per_rank, "collectives": _collectives, "stragglers": _stragglers,
           "ranks_per_rank": _ranks_per_rank, "ranks": _ranks, "pipeline": _pipeline, "roofline": _roofline,
           "advise": _advise}
